"""The facts a support ticket shows beyond the verdicts, read back from a report as plain sections.

The extractors (:func:`system`, :func:`torch_build`, :func:`driver`, :func:`gpus`, :func:`mapping`,
:func:`environment`, :func:`packages`) read the facts :func:`torchdoctor.support.ticket.gather` collected back
from a report's JSON data, for the Markdown and HTML renderers and for ``torchdoctor diff``. They are pure
and tolerate a report where a probe is missing: what is not known reads as ``None``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from torchdoctor.machine import envvars
from torchdoctor.machine import packages as installed_packages
from torchdoctor.output.redact import REDACTED, is_secret_name

Row = dict[str, Any]


@dataclass(frozen=True)
class Section:
    """A titled block of facts: rows of the same columns (a two-column name/value list, or a table)."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def sections(data: Mapping[str, Any]) -> list[Section]:
    """Everything a ticket shows below the verdicts, in reading order; empty sections left out."""
    found = [
        _pairs("System", system(data)),
        _pairs("Tools on the PATH", tools(data)),
        _pairs("PyTorch", torch_build(data)),
        _pairs("NVIDIA driver", driver(data)),
        _table("GPUs (NVML order, as nvidia-smi numbers them)", gpus(data)),
        _table("cuda:N -> physical GPU", mapping(data)),
        _pairs("Environment variables", _environment_shown(data)),
        _pairs("Installed torch-stack packages", packages(data)),
        _pairs("Conda packages of the torch stack", conda_packages(data)),
        _pairs("Probes without facts", probe_errors(data)),
    ]
    return [section for section in found if section.rows]


def _pairs(title: str, values: Mapping[str, Any]) -> Section:
    rows = tuple((name, as_text(value)) for name, value in values.items() if value is not None)
    return Section(title, ("name", "value"), rows)


def _table(title: str, rows: Sequence[Row]) -> Section:
    if not rows:
        return Section(title, (), ())
    # A column nothing fills (mig on GPUs without MIG) says nothing: left out.
    columns = tuple(
        c
        for c in dict.fromkeys(key for row in rows for key in row)
        if any(r.get(c) is not None for r in rows)
    )
    return Section(title, columns, tuple(tuple(as_text(row.get(c)) for c in columns) for row in rows))


def as_text(value: Any) -> str:
    """A fact as table text: ``-`` for unknown, yes/no, lists space-separated."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return " ".join(str(v) for v in value)
    return str(value)


def _facts(data: Mapping[str, Any], probe: str) -> Mapping[str, Any]:
    return as_mapping(as_mapping(data.get("facts")).get(probe))


# A saved report is input: a fact of another type than its probe writes reads as unknown, never as a crash.
def as_mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def objects(value: Any) -> list[Mapping[str, Any]]:
    """The objects of a list of objects (anything else in it left out)."""
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def system(data: Mapping[str, Any]) -> dict[str, Any]:
    host_facts = as_mapping(data.get("host"))
    system_facts = _facts(data, "system")
    cpu = as_mapping(system_facts.get("cpu"))
    python = host_facts.get("python")
    if python and host_facts.get("python_implementation") not in (None, "CPython"):
        python = f"{python} ({host_facts['python_implementation']})"
    return {
        "hostname": host_facts.get("hostname"),
        "OS": host_facts.get("os"),
        "kernel": host_facts.get("kernel"),
        "machine": host_facts.get("machine"),
        "Python": python,
        "executable": host_facts.get("executable"),
        "virtual environment": host_facts.get("virtualenv"),
        "container": host_facts.get("in_container"),
        "CPUs": host_facts.get("cpu_count"),
        "CPU model": cpu.get("model"),
        "CPU features": cpu.get("flags") or None,
        "NUMA nodes": cpu.get("numa_nodes"),
        "C library": system_facts.get("libc"),
        "torchdoctor": as_mapping(data.get("tool")).get("version"),
    }


def tools(data: Mapping[str, Any]) -> dict[str, Any]:
    """The compilers and the CUDA toolkit on the PATH, as collect_env lists them."""
    found = as_mapping(_facts(data, "system").get("tools"))
    return {
        name: f"{tool.get('version') or 'unknown version'} ({tool.get('path')})"
        for name, tool in sorted(found.items())
        if isinstance(tool, Mapping)
    }


def conda_packages(data: Mapping[str, Any]) -> dict[str, str]:
    found = as_mapping(as_mapping(_facts(data, "system").get("conda")).get("packages"))
    return {
        str(name): str(version)
        for name, version in sorted(found.items())
        if installed_packages.is_torch_stack(str(name))
        or str(name) in ("pytorch", "pytorch-cuda", "cudatoolkit")
    }


def torch_build(data: Mapping[str, Any]) -> dict[str, Any]:
    torch = _facts(data, "torch")
    if not torch:
        return {}
    if not torch.get("importable"):
        error = as_mapping(torch.get("import_error"))
        return {
            "torch": "not importable",
            "import error": f"{error.get('type')}: {error.get('message')}" if error else None,
            "installed version": as_mapping(torch.get("distribution")).get("version"),
        }
    mps = as_mapping(torch.get("mps"))
    return {
        "torch": torch.get("version"),
        "build": _build(torch),
        "cuDNN": format_cudnn(torch.get("cudnn_version")),
        "NCCL": torch.get("nccl_version"),
        "kernels for": torch.get("arch_list") or None,
        "imported from": torch.get("file"),
        "CUDA available": torch.get("cuda_available") if torch.get("cuda_compiled") else None,
        "GPUs torch sees": torch.get("device_count") if torch.get("cuda_compiled") else None,
        "MPS": ("available" if mps.get("available") else "built, not available")
        if mps.get("built")
        else None,
        "debug build": torch.get("debug"),
        "XNNPACK": torch.get("xnnpack"),
        "MIOpen": torch.get("miopen_version"),
        "NumPy": _numpy_text(torch.get("numpy")),
    }


def _numpy_text(numpy: Any) -> str | None:
    if not isinstance(numpy, Mapping):
        return None
    if not numpy.get("installed"):
        return "not installed"
    text = str(numpy.get("version") or "installed")
    return f"{text}, broken: {numpy['error']}" if numpy.get("error") else text


def _build(torch: Mapping[str, Any]) -> str:
    flavor = torch.get("flavor")
    if flavor == "cuda":
        return f"CUDA {torch.get('cuda')}"
    if flavor == "rocm":
        return f"ROCm (HIP {torch.get('hip')})"
    if flavor == "xpu":
        return "Intel XPU"
    return "CPU-only"


def format_cudnn(version: Any) -> str | None:
    """cuDNN's integer as major.minor.patch: 91002 -> 9.10.2 (major*10000 from cuDNN 9 on), 8902 -> 8.9.2."""
    if not isinstance(version, int):
        return None
    if version >= 10000:
        return f"{version // 10000}.{version // 100 % 100}.{version % 100}"
    return f"{version // 1000}.{version // 100 % 10}.{version % 100}"


def format_cuda(version: Any) -> str | None:
    """A CUDA version integer as NVML and the driver API give it: 12090 -> 12.9."""
    if not isinstance(version, int) or version <= 0:
        return None
    return f"{version // 1000}.{version % 1000 // 10}"


def driver(data: Mapping[str, Any]) -> dict[str, Any]:
    nv = _facts(data, "nvml")
    libcuda = _facts(data, "cuda_driver")
    if not nv and not libcuda:
        return {}
    if nv.get("available"):
        version = nv.get("driver_version")
    else:
        version = f"none found (NVML: {nv.get('error') or 'not asked'})" if nv else None
    return {
        "NVIDIA driver": version,
        "CUDA supported by the driver": format_cuda(nv.get("cuda_driver_version"))
        or format_cuda(libcuda.get("driver_cuda_version")),
        "NVML": nv.get("nvml_version"),
        "kernel module": libcuda.get("proc_driver_version"),
        "libcuda": libcuda.get("library") or libcuda.get("load_error"),
    }


def gpus(data: Mapping[str, Any]) -> list[Row]:
    nv = _facts(data, "nvml")
    if not nv.get("available"):
        return []
    rows = []
    for gpu in objects(nv.get("gpus")):
        cc = gpu.get("compute_capability")
        total = gpu.get("memory_total_bytes")
        mig = gpu.get("mig_devices")
        rows.append(
            {
                "gpu": gpu.get("index"),
                "name": gpu.get("name"),
                "cc": f"{cc[0]}.{cc[1]}" if isinstance(cc, list) and len(cc) == 2 else None,
                "memory": f"{total / 2**30:.1f} GiB" if isinstance(total, int) else None,
                "mig": f"{len(mig)} instance(s)" if gpu.get("mig_mode") and isinstance(mig, list) else None,
                "uuid": gpu.get("uuid"),
                "pci_bus_id": gpu.get("pci_bus_id"),
            }
        )
    return rows


def mapping(data: Mapping[str, Any]) -> list[Row]:
    """cuda:N -> physical GPU as cuda.visible_devices judged it, else as the CUDA driver listed it."""
    for verdict in objects(data.get("verdicts")):
        rows = (
            objects(as_mapping(verdict.get("facts")).get("mapping"))
            if verdict.get("id") == "cuda.visible_devices"
            else []
        )
        if rows:
            return [
                {"device": r.get("device"), "gpu": r.get("gpu"), "name": r.get("name"), "uuid": r.get("uuid")}
                for r in rows
            ]
    by_uuid = {str(g.get("uuid")): g for g in objects(_facts(data, "nvml").get("gpus"))}
    found: list[Row] = []
    for device in objects(_facts(data, "cuda_driver").get("devices")):
        gpu = by_uuid.get(f"GPU-{device.get('uuid')}") or {}
        found.append(
            {
                "device": f"cuda:{device.get('ordinal')}",
                "gpu": gpu.get("index"),
                "name": device.get("name") or gpu.get("name"),
                "uuid": gpu.get("uuid") or device.get("uuid"),
            }
        )
    return found


def environment(data: Mapping[str, Any]) -> dict[str, str]:
    """The variables a report recorded; a secret-looking one's value masked, as the env probe records it (a
    saved report may come from anywhere)."""
    variables = as_mapping(_facts(data, "env").get("variables"))
    return {str(k): REDACTED if is_secret_name(str(k)) else str(v) for k, v in sorted(variables.items())}


def _environment_shown(data: Mapping[str, Any]) -> dict[str, str]:
    if not _facts(data, "env"):
        return {}
    prefixes = ", ".join(f"{prefix}*" for prefix in envvars.RELEVANT_PREFIXES[:6])
    return environment(data) or {"(none set)": f"{prefixes}, LD_LIBRARY_PATH, RANK...: none is set"}


def packages(data: Mapping[str, Any]) -> dict[str, str]:
    found = as_mapping(_facts(data, "installed_packages").get("packages"))
    return {str(k): str(v) for k, v in sorted(found.items())}


def probe_errors(data: Mapping[str, Any]) -> dict[str, str]:
    return {
        str(name): f"{as_mapping(error).get('kind')}: {as_mapping(error).get('message')}"
        for name, error in sorted(as_mapping(data.get("probe_errors")).items())
    }
