"""The ``companions`` and ``companion_operators`` probes: the packages around torch, and whether they load.

``companions`` reads installed metadata only (no network, no imports): torch's own ``Requires-Dist`` pins
(triton, the ``nvidia-*`` CUDA wheels, ``cuda-toolkit`` extras expanded to the wheels they pin), the
installed versions of those, and each companion package's version, build (``+cu121``) and its own
requirement on torch. ``companion_operators`` imports the installed companions that ship compiled
operators and runs one tiny operator of each, recording the real error text.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
import time
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from torchdoctor.checks.install import versions
from torchdoctor.machine.distributions import TORCH_COMPANIONS, TRITON_NAMES, canonical_name, name_and_version

COMPANIONS = TORCH_COMPANIONS
# Where a companion records the build it is (PyPI's torchvision 0.29.1 says 0.29.1 in its metadata and
# 0.29.1+cu130 here).
_BUILD_VERSION_FILES = {
    "torchvision": "torchvision/version.py",
    "torchaudio": "torchaudio/version.py",
    "torchtext": "torchtext/version.py",
    "xformers": "xformers/version.py",
}
_VERSION_ASSIGNMENT_RE = re.compile(r"""^__version__\s*=\s*['"]([^'"]+)['"]""", re.MULTILINE)


def is_pinned_name(name: str) -> bool:
    """The packages whose version torch's own metadata pins and this check compares."""
    return name in TRITON_NAMES or name.startswith("nvidia-") or name == "cuda-toolkit"


def installed_distributions(paths: list[str] | None = None) -> dict[str, importlib.metadata.Distribution]:
    """Normalized name -> distribution, for every distribution on the import path; the first one of a name
    wins, as imports do."""
    import importlib.metadata  # here, not at the top: the worker that describes checks never needs it

    found: dict[str, importlib.metadata.Distribution] = {}
    for dist in importlib.metadata.distributions(path=sys.path if paths is None else paths):
        name, _ = name_and_version(dist)
        if name:
            found.setdefault(canonical_name(name), dist)
    return found


_RECORDED_METADATA = re.compile(r"^([^,\n\"]+\.dist-info)/METADATA,", re.MULTILINE)


def metadata_folder(dist: importlib.metadata.Distribution) -> str | None:
    """Where the distribution's metadata lies (its ``*.dist-info`` folder), from the files it lists.

    The RECORD line is searched as text first: ``dist.files`` makes a path object of each of torch's 15,000
    files, a fifth of a second."""
    recorded = _RECORDED_METADATA.search(dist.read_text("RECORD") or "")
    if recorded is not None:
        return str(Path(str(dist.locate_file(f"{recorded[1]}/METADATA"))).parent)
    for path in dist.files or ():
        if path.name == "METADATA" and path.parent.name.endswith((".dist-info", ".egg-info")):
            return str(Path(str(dist.locate_file(path))).parent)
    return None


def torch_installs(paths: list[str] | None = None) -> list[dict[str, Any]]:
    """Every ``torch`` distribution on the import path (more than one: torch is installed twice)."""
    import importlib.metadata

    found: dict[str, dict[str, Any]] = {}
    for dist in importlib.metadata.distributions(path=sys.path if paths is None else paths):
        name, version = name_and_version(dist)
        if canonical_name(name or "") != "torch":
            continue
        folder = metadata_folder(dist) or str(getattr(dist, "_path", "") or "") or None
        key = str(Path(folder).resolve()) if folder else f"unknown-{len(found)}"
        found.setdefault(
            key,
            {
                "version": version,
                "metadata": key if folder else None,
                "installer": (dist.read_text("INSTALLER") or "").strip() or None,
            },
        )
    return list(found.values())


def probe(options: Mapping[str, Any]) -> dict[str, Any]:
    environment = versions.marker_environment()
    installed = installed_distributions()
    facts: dict[str, Any] = {
        "environment": {
            key: environment[key] for key in ("platform_system", "platform_machine", "python_version")
        },
        "torch": None,
        "pins": [],
        "installed": {},
        "companions": [],
        "looked_for": list(COMPANIONS),
        "torch_installs": torch_installs(),
    }
    torch_dist = installed.get("torch")
    if torch_dist is not None:
        facts["torch"] = {"version": torch_dist.version, "metadata": metadata_folder(torch_dist)}
        facts["pins"] = _pins(torch_dist.requires or [], environment, installed)
    names = {p["name"] for p in facts["pins"]} | {n for n in COMPANIONS if n in installed}
    for name in sorted(names):
        if name in installed:
            facts["installed"][name] = installed[name].version
    for name in COMPANIONS:
        if name in installed:
            facts["companions"].append(_companion(name, installed[name], environment))
    return facts


def _pins(
    lines: list[str], environment: Mapping[str, str], installed: Mapping[str, importlib.metadata.Distribution]
) -> list[dict[str, Any]]:
    pins: list[dict[str, Any]] = []
    for line in lines:
        requirement = versions.parse_requirement(line)
        if requirement is None or not is_pinned_name(requirement.name):
            continue
        applies = versions.marker_applies(requirement.marker, environment)
        pins.append(_pin(requirement, applies, via=None))
        if requirement.name == "cuda-toolkit" and applies and "cuda-toolkit" in installed:
            pins += _toolkit_pins(requirement.extras, installed["cuda-toolkit"], environment)
    return pins


def _toolkit_pins(
    extras: tuple[str, ...], toolkit: importlib.metadata.Distribution, environment: Mapping[str, str]
) -> list[dict[str, Any]]:
    """The nvidia-* wheels that the cuda-toolkit extras torch asks for pin (torch >= 2.14 pins them so)."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for line in toolkit.requires or []:
        requirement = versions.parse_requirement(line)
        if requirement is None or not requirement.name.startswith("nvidia-"):
            continue
        for extra in extras:
            if versions.marker_applies(requirement.marker, environment, extra=extra):
                key = (requirement.name, requirement.specifier)
                found.setdefault(key, _pin(requirement, True, via=f"cuda-toolkit[{extra}]"))
                break
    return list(found.values())


def _pin(requirement: versions.Pin, applies: bool | None, via: str | None) -> dict[str, Any]:
    return {
        "name": requirement.name,
        "extras": list(requirement.extras),
        "specifier": requirement.specifier,
        "applies": applies,
        "via": via,
        "line": requirement.line,
    }


def _companion(
    name: str, dist: importlib.metadata.Distribution, environment: Mapping[str, str]
) -> dict[str, Any]:
    build_version, build_from = dist.version, "metadata"
    relative = _BUILD_VERSION_FILES.get(name)
    if relative is not None:
        try:
            text = Path(str(dist.locate_file(relative))).read_text(errors="replace")
        except OSError:
            text = ""
        match = _VERSION_ASSIGNMENT_RE.search(text)
        if match:
            build_version, build_from = match.group(1), relative
    requires_torch = []
    for line in dist.requires or []:
        requirement = versions.parse_requirement(line)
        if requirement is not None and requirement.name == "torch":
            requires_torch.append(
                {
                    "specifier": requirement.specifier,
                    "applies": versions.marker_applies(requirement.marker, environment),
                    "line": requirement.line,
                }
            )
    return {
        "name": name,
        "version": dist.version,
        "build_version": build_version,
        "build_version_from": build_from,
        "requires_torch": requires_torch,
        "metadata": metadata_folder(dist),
    }


def _torchvision_nms(module: Any) -> None:
    import torch

    boxes = torch.tensor([[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0]])
    module.ops.nms(boxes, torch.tensor([0.9, 0.8]), 0.5)


def _torchaudio_lfilter(module: Any) -> None:
    import torch

    module.functional.lfilter(torch.zeros(1, 8), torch.tensor([1.0, 0.0]), torch.tensor([1.0, 0.0]))


# distribution -> (module to import, what the try runs, the operator it calls). Companions that ship their
# compiled code as a separate extension module are tried by importing that module.
OPERATOR_TRIES: dict[str, tuple[str, Callable[[Any], None] | None, str | None]] = {
    "torchvision": ("torchvision", _torchvision_nms, "torchvision.ops.nms"),
    "torchaudio": ("torchaudio", _torchaudio_lfilter, "torchaudio.functional.lfilter"),
    "flash-attn": ("flash_attn_2_cuda", None, None),
    "apex": ("amp_C", None, None),
}


def operators_probe(options: Mapping[str, Any]) -> dict[str, Any]:
    installed = installed_distributions()
    tries = []
    for name, (module_name, operation, operator) in OPERATOR_TRIES.items():
        if name not in installed or importlib.util.find_spec(module_name) is None:
            continue
        tries.append(try_operators(name, module_name, operation, operator))
    return {"tries": tries}


def try_operators(
    name: str, module_name: str, operation: Callable[[Any], None] | None, operator: str | None
) -> dict[str, Any]:
    result: dict[str, Any] = {
        "name": name,
        "module": module_name,
        "operator": operator,
        "imported": False,
        "import_error": None,
        "operator_error": None,
        "warnings": [],
    }
    started = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            import torch  # noqa: F401  (a companion's operators register into an imported torch)

            module = importlib.import_module(module_name)
            result["imported"] = True
            result["runtime_version"] = str(getattr(module, "__version__", "")) or None
            if operation is not None:
                operation(module)
        except BaseException as exc:  # a broken extension raises anything from OSError to SystemError
            key = "operator_error" if result["imported"] else "import_error"
            result[key] = _error_text(exc)
    result["warnings"] = [" ".join(str(w.message).split())[:300] for w in caught][:5]
    result["seconds"] = round(time.perf_counter() - started, 3)
    return result


def _error_text(exc: BaseException) -> str:
    lines = [line for line in str(exc).strip().splitlines() if line.strip()][:3]
    return f"{type(exc).__name__}: {' '.join(lines) or repr(exc)}"[:500]
