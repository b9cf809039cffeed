"""The ``torch`` probe: import torch in the worker and record what build it is and what it sees.

Everything that can fail is caught and recorded: a missing or broken torch is
a fact for the judge, not a crash of the probe.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import time
import traceback
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from torchdoctor.model import Finding, Status

MPS_FALLBACK = "PYTORCH_ENABLE_MPS_FALLBACK"
"""Set to 1, an operator the MPS backend lacks runs on the CPU instead of raising NotImplementedError."""


def probe(options: Mapping[str, Any]) -> dict[str, Any]:
    import platform  # here, as in the functions below: the worker that describes checks never needs it

    facts: dict[str, Any] = {
        "python": platform.python_version(),
        "executable": sys.executable,
        "machine": platform.machine(),
        "os": os_facts(),
        "distribution": _distribution(),
        "candidates": _candidates(),
    }
    started = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import torch
    except BaseException as exc:  # a broken build can raise anything from OSError to SystemError
        facts["importable"] = False
        facts["import_error"] = {
            "type": type(exc).__name__,
            "message": str(exc).strip()[:2000],
            "traceback": "".join(traceback.format_exception(exc)[-6:])[-3000:],
        }
        facts["import_s"] = round(time.perf_counter() - started, 3)
        return facts
    facts["importable"] = True
    facts["import_s"] = round(time.perf_counter() - started, 3)
    facts["file"] = str(Path(torch.__file__).resolve().parent)
    facts.update(_build(torch))
    facts["mps"] = _mps(torch)
    facts["numpy"] = _numpy(torch)
    facts["xnnpack"] = _call(lambda: bool(importlib.import_module("torch.backends.xnnpack").enabled))
    facts.update(_cuda_runtime(torch, compiled=facts["cuda_compiled"]))
    return facts


def needs_torch(error: str | None = None) -> Finding:
    """The verdict of a check that needs torch where torch does not import: a skip, because torch.build
    already names the cause and its fix; counting it again would make one problem look like several."""
    why = f" ({error})" if error else ""
    return Finding(Status.SKIP, f"needs torch, which does not import here{why}: see torch.build")


def import_error_text(facts: Mapping[str, Any]) -> str | None:
    """``ModuleNotFoundError: No module named 'torch'`` from the torch probe's facts, if it failed."""
    error = facts.get("import_error") or {}
    return f"{error.get('type')}: {error.get('message')}"[:300] if error else None


def os_facts() -> dict[str, Any]:
    """The operating system, and whether it is WSL (whose NVIDIA driver is the Windows host's)."""
    import platform

    release = platform.release()
    return {"system": platform.system(), "release": release, "wsl": "microsoft" in release.lower()}


def _distribution() -> dict[str, Any] | None:
    import importlib.metadata  # here, not at the top: the worker that describes checks never needs it

    try:
        dist = importlib.metadata.distribution("torch")
    except importlib.metadata.PackageNotFoundError:
        return None
    init = Path(str(dist.locate_file("torch/__init__.py")))
    return {
        "version": dist.version,
        "location": str(init.parent.resolve()) if init.exists() else None,
        "installer": (dist.read_text("INSTALLER") or "").strip() or None,
    }


def _candidates() -> list[str]:
    """Every torch package or module on the import path, and in the current directory, in search order."""
    seen: list[str] = []
    roots = [Path.cwd(), *(Path(p) if p else Path.cwd() for p in sys.path)]
    for root in roots:
        for candidate in (root / "torch" / "__init__.py", root / "torch.py"):
            try:
                if candidate.is_file():
                    found = str(candidate.parent.resolve() if candidate.name == "__init__.py" else candidate)
                    if found not in seen:
                        seen.append(found)
            except OSError:
                continue
    return seen


def _build(torch: Any) -> dict[str, Any]:
    version = torch.version
    cuda = getattr(version, "cuda", None)
    hip = getattr(version, "hip", None)
    xpu = getattr(version, "xpu", None)
    if hip:
        flavor = "rocm"
    elif cuda:
        flavor = "cuda"
    elif xpu and _call(lambda: torch.xpu._is_compiled()):
        flavor = "xpu"
    else:
        flavor = "cpu"
    return {
        "version": str(torch.__version__),
        "git_version": getattr(version, "git_version", None),
        "debug": bool(getattr(version, "debug", False)),
        "cuda": cuda,
        "hip": hip,
        "flavor": flavor,
        "cuda_compiled": bool(_call(lambda: torch.backends.cuda.is_built())),
        "cudnn_version": _call(lambda: torch.backends.cudnn.version())
        if flavor in ("cuda", "rocm")
        else None,
        "nccl_version": _nccl_version(torch) if flavor in ("cuda", "rocm") else None,
        "arch_list": _arch_list(torch) if flavor in ("cuda", "rocm") else [],
        "miopen_version": _call(lambda: torch.backends.cudnn.version()) if flavor == "rocm" else None,
    }


def _numpy(torch: Any) -> dict[str, Any]:
    """NumPy as torch sees it: installed or not, its version, and whether torch's bridge to it works
    (a torch built against NumPy 1 beside NumPy 2 says "Failed to initialize NumPy")."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            import numpy
        except ImportError:
            return {"installed": False}
        except Exception as exc:  # a broken NumPy raises anything
            return {"installed": True, "error": f"{type(exc).__name__}: {exc}"[:500]}
        facts: dict[str, Any] = {"installed": True, "version": str(numpy.__version__)}
        try:
            torch.from_numpy(numpy.zeros(1))
        except Exception as exc:
            facts["error"] = f"{type(exc).__name__}: {exc}"[:500]
    messages = [str(w.message)[:300] for w in caught if "NumPy" in str(w.message)]
    if messages:
        facts["warnings"] = messages
    return facts


def _call(fn: Any) -> Any:
    try:
        return fn()
    except Exception:
        return None


def _nccl_version(torch: Any) -> str | None:
    version = _call(lambda: torch.cuda.nccl.version())
    if isinstance(version, tuple):
        return ".".join(str(part) for part in version)
    return None if version is None else str(version)


def _arch_list(torch: Any) -> list[str]:
    arches = _call(lambda: torch._C._cuda_getArchFlags())
    if arches:
        return str(arches).split()
    # Older torch builds return [] from get_arch_list() without a GPU; the config text still has the flags.
    return list(_call(lambda: torch.cuda.get_arch_list()) or [])


def _mps(torch: Any) -> dict[str, Any]:
    import platform

    facts: dict[str, Any] = {
        "built": bool(_call(lambda: torch.backends.mps.is_built())),
        "machine": platform.machine(),
        "macos_version": platform.mac_ver()[0] or None,
        "rosetta": None,
    }
    facts["available"] = bool(_call(lambda: torch.backends.mps.is_available())) if facts["built"] else False
    if sys.platform == "darwin":
        facts["rosetta"] = _rosetta()
    if facts["built"]:  # whether an operator MPS lacks runs on the CPU (set) or raises NotImplementedError
        facts["fallback"] = os.environ.get(MPS_FALLBACK)
    return facts


def _rosetta() -> bool | None:
    from torchdoctor.machine.sysinfo import SYSTEM_FOLDERS, find_program

    sysctl = find_program("sysctl", SYSTEM_FOLDERS)
    if sysctl is None:
        return None
    try:
        out = subprocess.run(
            [sysctl, "-n", "sysctl.proc_translated"], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() == "1" if out.returncode == 0 else False


def _cuda_runtime(torch: Any, compiled: bool) -> dict[str, Any]:
    """What torch sees of the GPUs. Initializes CUDA in this worker, never in the CLI process."""
    facts: dict[str, Any] = {
        "cuda_initialized_before": bool(_call(lambda: torch.cuda.is_initialized())),
        "cuda_available": False,
        "device_count": 0,
        "devices": [],
        "cuda_warnings": [],
        "cuda_error": None,
    }
    if not compiled:
        return facts
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            facts["cuda_available"] = bool(torch.cuda.is_available())
            facts["device_count"] = int(torch.cuda.device_count())
            for index in range(facts["device_count"]):
                facts["devices"].append(_device(torch, index))
        except Exception as exc:
            facts["cuda_error"] = f"{type(exc).__name__}: {exc}"[:2000]
    facts["cuda_warnings"] = sorted({str(w.message).strip()[:2000] for w in caught})
    return facts


def _device(torch: Any, index: int) -> dict[str, Any]:
    props = torch.cuda.get_device_properties(index)
    uuid = getattr(props, "uuid", None)
    device: dict[str, Any] = {
        "index": index,
        "name": props.name,
        "capability": [int(props.major), int(props.minor)],
        "total_memory_bytes": int(props.total_memory),
        "uuid": None if uuid is None else str(uuid),
        "multi_processor_count": int(getattr(props, "multi_processor_count", 0)) or None,
        "gcn_arch_name": getattr(props, "gcnArchName", None),
    }
    bus_id = pci_bus_id(props)
    if bus_id is not None:
        device["pci_bus_id"] = bus_id
    return device


def pci_bus_id(props: Any) -> str | None:
    """Where torch's device properties place the GPU on the PCI bus, as NVML writes it
    (``00000000:3A:00.0``); None where torch does not say."""
    bus = getattr(props, "pci_bus_id", None)
    if bus is None:
        return None
    domain = int(getattr(props, "pci_domain_id", 0))
    device = int(getattr(props, "pci_device_id", 0))
    return f"{domain:08X}:{int(bus):02X}:{device:02X}.0"
