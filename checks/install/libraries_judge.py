"""Judging the ``loaded_libraries`` facts: which copy of each CUDA and OpenMP library torch really uses.

A library mapped from outside the wheels while a wheel beside torch ships it is a shadowing: a directory on
``LD_LIBRARY_PATH`` is searched before the RUNPATH through which torch finds its ``nvidia-*`` wheels
(ld.so(8): LD_LIBRARY_PATH comes before DT_RUNPATH), so a system cuDNN there wins over the wheel torch pins.
Two mapped copies of one library each keep their own state in one process.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from torchdoctor.checks.install.libraries_probe import FAMILY_LABELS
from torchdoctor.model import Finding, Fix, Status

_LD_DEBUG = 'LD_DEBUG=libs python -c "import torch" 2>&1 | grep {base}'
# What shows where the loader found each library, and where else a library may come from, per platform.
_LOADER_DEBUG = {
    "darwin": 'DYLD_PRINT_LIBRARIES=1 python -c "import torch" 2>&1 | grep {base}',
    "win32": 'python -c "import torch, psutil; [print(m.path) for m in psutil.Process().memory_maps()]" '
    "| findstr /i {stem}",
}
_ELSEWHERE = {
    "linux": "a library path in /etc/ld.so.conf, or another package imported first",
    "darwin": "a folder on DYLD_LIBRARY_PATH, or another package imported first",
    "win32": "a folder on PATH, or another package imported first",
}


def _loader_debug(libs: Mapping[str, Any], base: str) -> str:
    """The command that shows which file of ``base`` the loader took, on the platform the facts come from."""
    command = _LOADER_DEBUG.get(str(libs.get("platform")), _LD_DEBUG)
    return command.format(base=base, stem=base.removeprefix("lib"))


# The order in which shadowed libraries are named: the likeliest to break a run first.
_PRIORITY = ("cudnn", "nccl", "cublas", "cudart", "nvrtc", "openmp")
Library = Mapping[str, Any]


def cudnn_text(version: int) -> str:
    # 90100 -> 9.1.0 (cuDNN >= 9 encodes major*10000); 8902 -> 8.9.2
    if version >= 10000:
        return f"{version // 10000}.{version // 100 % 100}.{version % 100}"
    return f"{version // 1000}.{version // 100 % 10}.{version % 100}"


def findings(libs: Mapping[str, Any]) -> list[Finding]:
    if libs.get("skip_reason"):
        return []
    shadowed: dict[str, list[Library]] = {}
    duplicates: list[Finding] = []
    for base, mapped in _by_base(libs).items():
        copy_paths = {c["path"] for c in _copies(libs, base)}
        if copy_paths:
            for lib in mapped:
                if lib["path"] not in copy_paths:
                    shadowed.setdefault(os.path.dirname(lib["path"]), []).append(lib)
        if len(mapped) > 1:
            duplicates.append(_two_copies(libs, base, mapped))
    return [*(_shadowed(libs, folder, found) for folder, found in shadowed.items()), *duplicates]


def rows(libs: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One evidence row per mapped library: which one, its version and where it comes from."""
    return [
        {
            "library": lib["name"],
            "version": version_text(libs, lib, only_copy=len(mapped) == 1),
            "from": _origin(libs, lib),
            "path": lib["path"],
        }
        for mapped in _by_base(libs).values()
        for lib in mapped
    ]


def version_text(libs: Mapping[str, Any], lib: Library, only_copy: bool) -> str:
    """The library's version and where it was read: torch's own report, the wheel, or the file name."""
    reports = libs.get("torch_reports") or {}
    owner = _owner(libs, lib)
    from_torch = None
    if only_copy and lib["base"] == "libcudnn":
        if reports.get("cudnn_runtime"):
            from_torch = f"{reports['cudnn_runtime']} (torch's cuDNN runtime version)"
        elif isinstance(reports.get("cudnn"), int):
            from_torch = f"{cudnn_text(reports['cudnn'])} (torch.backends.cudnn.version())"
    elif only_copy and lib["base"] == "libnccl" and reports.get("nccl"):
        from_torch = f"{reports['nccl']} (torch.cuda.nccl.version())"
    if from_torch and owner is None:
        return from_torch
    if owner is not None and owner.get("wheel") not in (None, "torch"):
        return f"{owner['version']} ({owner['wheel']} wheel)"
    if from_torch:
        return from_torch
    file_version = lib.get("file_version")
    if file_version and "." in file_version:
        return f"{file_version} (file name)"
    if file_version:
        return f"soname {file_version} (file name)"
    return "unknown"


def summary(libs: Mapping[str, Any]) -> str:
    """The loaded libraries in a few words: which ones, and whether they come from torch's wheels."""
    if libs.get("skip_reason"):
        where = f"on {libs['platform']}" if libs.get("platform") else f"({libs['skip_reason']})"
        return f"loaded libraries not read {where}"
    mapped = list(libs.get("libraries") or [])
    if not mapped:
        return "no CUDA or OpenMP library mapped"
    families = sorted({lib["family"] for lib in mapped}, key=_PRIORITY.index)
    labels = ", ".join(FAMILY_LABELS.get(f, f) for f in families)
    owners = [_owner(libs, lib) for lib in mapped]
    outside = sum(1 for owner in owners if owner is None)
    if outside:
        return f"{labels} loaded, {outside} of {len(mapped)} files from outside torch's wheels"
    if all(owner is not None and owner.get("wheel") == "torch" for owner in owners):
        return f"{labels} loaded from torch's own wheel"
    return f"{labels} loaded from torch's wheels"


def _by_base(libs: Mapping[str, Any]) -> dict[str, list[Library]]:
    grouped: dict[str, list[Library]] = {}
    for lib in libs.get("libraries") or []:
        grouped.setdefault(lib["base"], []).append(lib)
    return grouped


def _copies(libs: Mapping[str, Any], base: str) -> list[Library]:
    return list((libs.get("wheel_files") or {}).get(base) or [])


def _owner(libs: Mapping[str, Any], lib: Library) -> Library | None:
    return next((c for c in _copies(libs, lib["base"]) if c["path"] == lib["path"]), None)


def _origin(libs: Mapping[str, Any], lib: Library) -> str:
    owner = _owner(libs, lib)
    if owner is None:
        return "outside the wheels" if _copies(libs, lib["base"]) else "the system"
    if owner.get("wheel") == "torch":
        return f"torch's own wheel ({owner.get('version')})"
    if owner.get("wheel") is None:  # a file in nvidia/<part>/lib that no installed wheel's RECORD lists
        return "site-packages, in no wheel's RECORD"
    return f"{owner.get('wheel')} wheel"


def _named(wheel: str, version: str | None) -> str:
    """A wheel and its version; a wheel whose METADATA gives no Version is named alone."""
    return f"{wheel} {version}" if version else wheel


def _ships(copy: Library) -> str:
    if copy.get("wheel") is None:
        return f"in no wheel's RECORD: {copy['path']}"
    return f"{_named(copy['wheel'], copy.get('version'))} ships: {copy['path']}"


def _wheel_words(copies: Sequence[Library]) -> str:
    wheels = list(dict.fromkeys((c.get("wheel"), c.get("version")) for c in copies))
    if all(name == "torch" for name, _ in wheels):
        return "torch's own wheel"
    if len(wheels) == 1 and wheels[0][0] is not None:
        name, version = wheels[0]
        return f"the {_named(str(name), version)} wheel"
    return "the nvidia-* wheels torch was installed with"


def _shadowed(libs: Mapping[str, Any], folder: str, found: Sequence[Library]) -> Finding:
    found = sorted(found, key=lambda lib: _PRIORITY.index(lib["family"]))
    labels = list(dict.fromkeys(FAMILY_LABELS.get(lib["family"], lib["family"]) for lib in found))
    copies = [c for lib in found for c in _copies(libs, lib["base"])]
    wheels = _wheel_words(copies)
    details: list[str] = []
    for lib in found:
        one = sum(1 for other in libs.get("libraries") or [] if other["base"] == lib["base"]) == 1
        details.append(f"loaded: {lib['path']}, version {version_text(libs, lib, one)}")
        details += [_ships(c) for c in _copies(libs, lib["base"])]
    details += _cudnn_words(libs, found)
    fix, why = _shadow_fix(libs, folder, found, ", ".join(labels), wheels)
    if why.startswith(": ") and (libs.get("ld_library_path") or []):
        value = ":".join(str(e["entry"]) for e in libs.get("ld_library_path") or [])
        details.append(f"LD_LIBRARY_PATH={value}")
    # GNU OpenMP keeps its old symbol versions, so a newer system libgomp still serves torch: a warning.
    status = Status.WARN if all(lib["family"] == "openmp" for lib in found) else Status.FAIL
    verb = "is" if len(labels) == 1 else "are"
    summary = f"{', '.join(labels)} {verb} loaded from {folder}, not from {wheels}{why}"
    return Finding(status, summary, tuple(details), fix)


def _cudnn_words(libs: Mapping[str, Any], found: Sequence[Library]) -> list[str]:
    if not any(lib["base"] == "libcudnn" for lib in found):
        return []
    reports = libs.get("torch_reports") or {}
    words = []
    if reports.get("cudnn_compiled") and reports.get("cudnn_runtime") != reports.get("cudnn_compiled"):
        words.append(
            f"torch was built against cuDNN {reports['cudnn_compiled']} "
            f"and runs cuDNN {reports.get('cudnn_runtime')}"
        )
    if reports.get("cudnn_error"):
        words.append(f"torch says: {reports['cudnn_error']}")
    return words


def _shadow_fix(
    libs: Mapping[str, Any], folder: str, found: Sequence[Library], labels: str, wheels: str
) -> tuple[Fix, str]:
    """The fix, and the reason for the summary (which variable put the folder first)."""
    entries = libs.get("ld_library_path") or []
    # ld.so searches every LD_LIBRARY_PATH entry before DT_RUNPATH: each entry naming the folder is taken off
    naming = [str(e["entry"]) for e in entries if folder in (e.get("entry"), e.get("resolved"))]
    if naming:
        rest = [str(e["entry"]) for e in entries if folder not in (e.get("entry"), e.get("resolved"))]
        command = f"export LD_LIBRARY_PATH={':'.join(rest)}" if rest else "unset LD_LIBRARY_PATH"
        taken = " and ".join(dict.fromkeys(naming))
        fix = Fix(
            f"Take {taken} off LD_LIBRARY_PATH for this job: the loader searches LD_LIBRARY_PATH before the "
            f"RUNPATH that points torch at its wheels, so torch loads the {labels} of {wheels}.",
            (command,),
        )
        return fix, f": {naming[0]} comes first on LD_LIBRARY_PATH"
    paths = {lib["path"] for lib in found}
    preload = next(
        (e for e in libs.get("ld_preload") or [] if paths & {e.get("entry"), e.get("resolved")}), None
    )
    if preload is not None:
        return Fix(f"Remove {preload['entry']} from LD_PRELOAD, so torch loads the {labels} of {wheels}."), (
            ": it is in LD_PRELOAD"
        )
    return (
        Fix(
            f"Something loads this {labels} before torch does ("
            + _ELSEWHERE.get(str(libs.get("platform")), _ELSEWHERE["linux"])
            + "): find it in the loader's debug output and remove it.",
            (_loader_debug(libs, found[0]["base"]),),
        ),
        "",
    )


def _two_copies(libs: Mapping[str, Any], base: str, mapped: Sequence[Library]) -> Finding:
    label = FAMILY_LABELS.get(mapped[0]["family"], mapped[0]["family"])
    return Finding(
        Status.WARN,
        f"{len(mapped)} copies of {base} ({label}) are loaded in the torch process",
        tuple(f"loaded: {lib['path']} ({_origin(libs, lib)})" for lib in mapped),
        Fix(
            "Two copies of one library keep separate state in one process (for OpenMP: oversubscribed "
            "threads or 'OMP: Error #15'); find which package loads the second copy and make both use one.",
            (_loader_debug(libs, base),),
        ),
    )
