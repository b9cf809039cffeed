"""Driver ↔ CUDA build and GPU ↔ arch-list compatibility, as pure functions over version tables.

No torch import and no I/O: callers pass what they read from torch (``torch.version.cuda``,
``torch.cuda.get_arch_list()``) and from NVML (driver version, CUDA driver version, compute
capability), and get back a verdict with a one-line explanation.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from torchdoctor.checks.install import tables

# --------------------------------------------------------------------------------------------------
# Versions
# --------------------------------------------------------------------------------------------------

_VERSION_RE = re.compile(r"\d+(?:\.\d+)*")


def parse_version(text: str | None) -> tuple[int, ...] | None:
    """``"12.8"`` -> ``(12, 8)``; ``"570.153.02"`` -> ``(570, 153, 2)``; anything else -> None."""
    if not isinstance(text, str):
        return None
    return _parsed_version(text)


# The judges read the same few versions thousands of times (every published build against every GPU); a
# bounded cache, since a report's text is foreign.
@functools.lru_cache(maxsize=4096)
def _parsed_version(text: str) -> tuple[int, ...] | None:
    text = text.strip()
    if not _VERSION_RE.fullmatch(text):
        return None
    return tuple(int(part) for part in text.split("."))


def decode_cuda_int(value: int | None) -> tuple[int, int] | None:
    """Decode NVML / ``cudaDriverGetVersion`` encoding ``1000 * major + 10 * minor``: 12080 -> (12, 8).

    0 (``cudaDriverGetVersion`` without a driver), negatives and non-integers give None.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        return None
    return value // 1000, (value % 1000) // 10


def format_cuda(version: tuple[int, int]) -> str:
    return f"{version[0]}.{version[1]}"


def _encode_cuda(version: tuple[int, int]) -> int:
    return 1000 * version[0] + 10 * version[1]


def _cuda_pair(text: str | None) -> tuple[int, int] | None:
    parsed = parse_version(text)
    if parsed is None or len(parsed) < 2:
        return None
    return parsed[0], parsed[1]


def _os_key(os_name: str) -> str:
    name = os_name.strip().lower()
    return "windows" if name.startswith("win") or name == "nt" else "linux"


# --------------------------------------------------------------------------------------------------
# Driver tables
# --------------------------------------------------------------------------------------------------

# NVIDIA's tables, each row with its source: data/cuda_drivers.json.
DRIVERS = tables.load("cuda_drivers.json")
SOURCE: str = DRIVERS["source"]


def _pair_key(text: str) -> tuple[int, int]:
    major, minor = text.split(".")
    return int(major), int(minor)


MIN_DRIVER: dict[tuple[int, int], dict[str, str]] = {
    _pair_key(cuda): {k: v for k, v in row.items() if k in ("linux", "windows")}
    for cuda, row in DRIVERS["min_driver"].items()
}
MINOR_COMPAT_FLOOR: dict[int, dict[str, str]] = {
    int(major): {k: v for k, v in row.items() if k in ("linux", "windows")}
    for major, row in DRIVERS["minor_compat_floor"].items()
}
LAST_DRIVER_BRANCH: dict[str, dict[str, str]] = {
    key: dict(row) for key, row in DRIVERS["last_driver_branch"].items()
}
"""GPU architecture (a CC major "5", or one CC "7.0" where a major spans architectures: Volta 7.0 and Turing
7.5) -> the newest driver branch that supports it, with its source."""


def min_driver_source(cuda: tuple[int, int]) -> str | None:
    row = DRIVERS["min_driver"].get(format_cuda(cuda))
    return None if row is None else str(row["source"])


def floor_source(major: int) -> str | None:
    row = DRIVERS["minor_compat_floor"].get(str(major))
    return None if row is None else str(row["source"])


def unknown_minimum(cuda: str | None) -> str:
    """The driver a CUDA version needs, named where the tables do not know its minimum: by the document that
    does, and the newest CUDA the tables know."""
    newest = format_cuda(max(MIN_DRIVER))
    return (
        f"one that supports CUDA {cuda} (Table 3 of NVIDIA's CUDA {cuda} release notes names it; this "
        f"torchdoctor's tables end at CUDA {newest})"
    )


def last_driver_for(cc: tuple[int, int]) -> dict[str, str] | None:
    """The newest driver branch that still supports a GPU of this CC, where NVIDIA ended its support."""
    return LAST_DRIVER_BRANCH.get(f"{cc[0]}.{cc[1]}") or LAST_DRIVER_BRANCH.get(str(cc[0]))


_MINOR_COMPAT_LIMITS = "no JIT of newer PTX, some APIs need a newer driver"


def _min_driver(cuda: tuple[int, int], os_key: str) -> str | None:
    return MIN_DRIVER.get(cuda, {}).get(os_key)


def _floor(major: int, os_key: str) -> str | None:
    return MINOR_COMPAT_FLOOR.get(major, {}).get(os_key)


def minor_compat_floor(cuda: str | None, os_key: str) -> str | None:
    """The lowest driver that runs a build of this CUDA version through minor-version compatibility."""
    pair = parse_version(cuda)
    return _floor(pair[0], os_key) if pair else None


def _at_least(version: tuple[int, ...], minimum: str | None) -> bool:
    bound = parse_version(minimum)
    return bound is not None and version >= bound


def _infer_driver_cuda(driver: tuple[int, ...], os_key: str) -> tuple[int, int] | None:
    """Highest CUDA version whose minimum driver this driver meets; a met major floor counts as X.0."""
    met = [cuda for cuda in MIN_DRIVER if _at_least(driver, _min_driver(cuda, os_key))]
    met += [(major, 0) for major in MINOR_COMPAT_FLOOR if _at_least(driver, _floor(major, os_key))]
    return max(met, default=None)


# --------------------------------------------------------------------------------------------------
# Driver verdict
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DriverCompat:
    status: str  # "ok" | "minor_compat" | "too_old" | "no_driver" | "unknown"
    message: str
    required_driver: str | None


@dataclass(frozen=True)
class _Driver:
    version_text: str | None  # as reported, when it parses
    version: tuple[int, ...] | None
    cuda: tuple[int, int] | None
    inferred: bool  # cuda was inferred from the version, not reported

    def phrase(self) -> str:
        if self.cuda is None:
            return f"driver {self.version_text} predates CUDA {format_cuda(min(MIN_DRIVER))}"
        supports = f"supports CUDA {format_cuda(self.cuda)}"
        if self.version_text is None:
            return f"the driver {supports}"
        suffix = " (by its version number)" if self.inferred else ""
        return f"driver {self.version_text} {supports}{suffix}"


def driver_compat(
    torch_cuda: str | None,
    driver_cuda: int | None,
    driver_version: str | None,
    os_name: str = "linux",
) -> DriverCompat:
    """Whether the installed NVIDIA driver can run a torch built for ``torch_cuda``.

    ``driver_cuda`` is ``nvmlSystemGetCudaDriverVersion()`` (12080), ``driver_version`` is
    ``nvmlSystemGetDriverVersion()`` ("570.153.02"). Under WSL the driver is the Windows one, so
    pass ``os_name="windows"`` there.
    """
    if torch_cuda is None:
        return DriverCompat("unknown", "not a CUDA build of torch (torch.version.cuda is None)", None)
    built = _cuda_pair(torch_cuda)
    if built is None:
        return DriverCompat("unknown", f"cannot read torch's CUDA version {torch_cuda!r}", None)
    os_key = _os_key(os_name)
    required = _min_driver(built, os_key)
    if not driver_cuda and not driver_version:
        needs = f" (needs driver >= {required})" if required else ""
        message = f"no NVIDIA driver found; this torch is built for CUDA {format_cuda(built)}{needs}"
        return DriverCompat("no_driver", message, required)
    driver = _read_driver(driver_cuda, driver_version, os_key)
    if driver is None:
        message = f"cannot read the driver version (reported {driver_version!r}, CUDA {driver_cuda!r})"
        return DriverCompat("unknown", message, required)
    return _judge(built, driver, os_key, required)


def _read_driver(driver_cuda: int | None, driver_version: str | None, os_key: str) -> _Driver | None:
    version = parse_version(driver_version)
    text = driver_version.strip() if version is not None and driver_version is not None else None
    cuda = decode_cuda_int(driver_cuda)
    if cuda is not None:
        return _Driver(text, version, cuda, inferred=False)
    if version is None:
        return None
    return _Driver(text, version, _infer_driver_cuda(version, os_key), inferred=True)


def _judge(built: tuple[int, int], driver: _Driver, os_key: str, required: str | None) -> DriverCompat:
    wheel = f"this torch is built for CUDA {format_cuda(built)}"
    if driver.cuda is not None and driver.cuda >= built:
        return DriverCompat("ok", f"{driver.phrase()}; {wheel}", required)
    if driver.cuda is not None and driver.cuda[0] == built[0]:
        return _judge_minor(built, driver, os_key, required)
    if driver.cuda is None and required is None:
        return DriverCompat("unknown", f"{driver.phrase()}; {wheel}, whose minimum driver is unknown", None)
    return _too_old(built, driver, os_key, required, minor_compat=False)


def _judge_minor(built: tuple[int, int], driver: _Driver, os_key: str, required: str | None) -> DriverCompat:
    """Same major, older minor: minor-version compatibility holds when the driver meets the major's floor."""
    floor = _floor(built[0], os_key)
    if floor is None:  # before CUDA 11 there was no minor-version compatibility
        return _too_old(built, driver, os_key, required, minor_compat=False)
    # Without a reported driver version, the minimum driver of the CUDA it supports is a lower bound.
    lower = driver.version
    if lower is None and driver.cuda is not None:
        lower = parse_version(_min_driver(driver.cuda, os_key))
    if lower is not None and _at_least(lower, floor):
        message = (
            f"{driver.phrase()}; this torch is built for CUDA {format_cuda(built)}: runs through "
            f"minor-version compatibility ({_MINOR_COMPAT_LIMITS})"
        )
        return DriverCompat("minor_compat", message, required)
    if driver.version is not None:
        return _too_old(built, driver, os_key, required, minor_compat=True)
    message = (
        f"{driver.phrase()}; this torch is built for CUDA {format_cuda(built)}: minor-version "
        f"compatibility needs driver >= {floor}, and the driver version is unknown"
    )
    return DriverCompat("unknown", message, required)


def _too_old(
    built: tuple[int, int], driver: _Driver, os_key: str, required: str | None, *, minor_compat: bool
) -> DriverCompat:
    # torch's own error quotes the CUDA version the driver supports, encoded: "found version 12020".
    found = f" (found version {_encode_cuda(driver.cuda)})" if driver.cuda else ""
    needs = required or _floor(built[0], os_key)
    wanted = f", which needs driver >= {needs} on {os_key}" if needs else ""
    floor = _floor(built[0], os_key)
    alternative = f", or >= {floor} for minor-version compatibility" if minor_compat and floor else ""
    message = (
        f"the NVIDIA driver is too old{found}: {driver.phrase()}; "
        f"this torch is built for CUDA {format_cuda(built)}{wanted}{alternative}"
    )
    return DriverCompat("too_old", message, required)


# --------------------------------------------------------------------------------------------------
# Compute capability vs arch list
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Interval:
    """Device CCs from ``start`` up to the end of its major, minus ``exclude`` (integer CCs, 86 = 8.6)."""

    start: int
    exclude: frozenset[int] = frozenset()

    def __contains__(self, device: int) -> bool:
        return device not in self.exclude and device // 10 == self.start // 10 and device >= self.start


# Which device CCs run a cubin built for a code CC. Source: DEVICE_REQUIREMENT in torch/cuda/__init__.py
# of the torch 2.13.0 wheel. A set means "this chip only": the Tegra/iGPU parts (5.3, 6.2, 7.2, 8.7)
# and Thor, which is CC 10.1 up to CUDA 12.9 and CC 11.0 from CUDA 13.0.
DEVICE_REQUIREMENT: dict[int, _Interval | frozenset[int]] = {
    50: _Interval(50, frozenset({53})),
    52: _Interval(52, frozenset({53})),
    53: frozenset({53}),
    60: _Interval(60, frozenset({62})),
    61: _Interval(61, frozenset({62})),
    62: frozenset({62}),
    70: _Interval(70, frozenset({72})),
    72: frozenset({72}),
    75: _Interval(75),
    80: _Interval(80, frozenset({87})),
    86: _Interval(86, frozenset({87})),
    87: frozenset({87}),
    89: _Interval(89),
    90: _Interval(90),
    100: _Interval(100, frozenset({101})),
    101: frozenset({101, 110}),
    103: _Interval(103),
    110: _Interval(110),
    120: _Interval(120),
    121: _Interval(121),
}

# What later releases changed in that table (torch/cuda/__init__.py of the torch 2.14.1 wheel): a cubin for
# sm_110 (Thor) runs on CC 10.1 and 11.0 only; and a build of CUDA 13.2 or later runs SBSA cubins on the
# Jetson parts (DEVICE_REQUIREMENT_POST_JETSON_SBSA_UNIFICATION: sm_70 on 7.2, sm_80 and sm_86 on 8.7).
_FROM_2_14: dict[int, _Interval | frozenset[int]] = {110: frozenset({101, 110})}
_JETSON_SBSA_FROM_CUDA_13_2: dict[int, _Interval | frozenset[int]] = {
    70: _Interval(70),
    80: _Interval(80),
    86: _Interval(86),
}


def device_requirement(torch_version: str | None = None, cuda: str | None = None) -> dict[int, Any]:
    """torch's table of which device CCs run a cubin of each code CC, as the given torch release and CUDA
    build use it (torch 2.13's where they are not known)."""
    table: dict[int, Any] = dict(DEVICE_REQUIREMENT)
    release = parse_version((torch_version or "").partition("+")[0])
    if release is None or release[:2] < (2, 14):
        return table
    table.update(_FROM_2_14)
    built = _cuda_pair(cuda) if cuda else None
    if built is not None and built >= (13, 2):
        table.update(_JETSON_SBSA_FROM_CUDA_13_2)
    return table


_ARCH_RE = re.compile(r"(sm|compute)_(\d+)([af]?)")


@dataclass(frozen=True)
class ArchCoverage:
    supported: bool
    via: str | None  # "sass" | "ptx" | None
    entry: str | None  # the arch-list entry that covers the GPU
    message: str


@dataclass(frozen=True)
class _Arch:
    entry: str
    kind: str  # "sm" | "compute"
    code: int
    suffix: str  # "" | "a" (exactly this chip) | "f" (the family)


@functools.lru_cache(maxsize=1024)
def _parse_arch(entry: str) -> _Arch | None:
    match = _ARCH_RE.fullmatch(entry.strip())
    if match is None:
        return None
    return _Arch(entry.strip(), match[1], int(match[2]), match[3])


def _cc_text(cc: int) -> str:
    return f"{cc // 10}.{cc % 10}"


def _requirement(code: int, table: Mapping[int, Any]) -> _Interval | frozenset[int]:
    # torch treats an unknown code CC as an interval up to the end of its major (with a warning).
    found: _Interval | frozenset[int] = table.get(code, _Interval(code))
    return found


def _runs(arch: _Arch, device: int, table: Mapping[int, Any]) -> bool:
    requirement = _requirement(arch.code, table)
    if arch.suffix == "a":
        return device in (requirement if isinstance(requirement, frozenset) else {arch.code})
    if arch.kind == "compute" and arch.suffix == "":
        # Plain PTX can be JIT-compiled for any equal or newer CC, across majors.
        return (device // 10, device % 10) >= (arch.code // 10, arch.code % 10)
    return device in requirement


def arch_coverage(
    arch_list: Sequence[str], cc: tuple[int, int], torch_version: str | None = None, cuda: str | None = None
) -> ArchCoverage:
    """Whether a wheel built for ``arch_list`` (``torch.cuda.get_arch_list()``) has kernels for a CC.

    ``sm_XY`` entries follow torch's DEVICE_REQUIREMENT as that torch release and CUDA build use it
    (:func:`device_requirement`); ``compute_XY`` entries are PTX, which the driver JIT-compiles for any CC >=
    X.Y (reported as via "ptx": works, with a slow first launch).
    """
    table = device_requirement(torch_version, cuda)
    device = 10 * cc[0] + cc[1]
    archs = [arch for arch in map(_parse_arch, arch_list) if arch is not None]
    if not archs:
        message = f"the wheel's arch list is unknown, so CC {_cc_text(device)} coverage cannot be checked"
        return ArchCoverage(False, None, None, message)
    covering = [arch for arch in archs if _runs(arch, device, table)]
    sass = [arch for arch in covering if arch.kind == "sm"]
    if sass:
        best = max(sass, key=lambda arch: arch.code)
        return ArchCoverage(True, "sass", best.entry, f"CC {_cc_text(device)} runs {best.entry} kernels")
    if covering:
        best = max(covering, key=lambda arch: arch.code)
        message = (
            f"CC {_cc_text(device)} has no kernel binary in the wheel; its {best.entry} PTX is "
            "JIT-compiled on first launch (slower start)"
        )
        return ArchCoverage(True, "ptx", best.entry, message)
    listed = " ".join(arch.entry for arch in archs)
    message = (
        f"sm_{device} GPU (CC {_cc_text(device)}): the wheel's arch list {listed} has no kernel image for it"
    )
    return ArchCoverage(False, None, None, message)


_NVCC_FLAGS_RE = re.compile(r"NVCC architecture flags:(.*)")
_CODE_RE = re.compile(r"code=(\[[^\]]*\]|[^;,\s]+)")


def arch_list_from_config(config_text: str) -> list[str]:
    """Arch list from the "NVCC architecture flags: -gencode;arch=compute_75,code=sm_75;..." line of
    ``torch.__config__.show()``, for torch versions whose ``get_arch_list()`` is empty without a GPU."""
    line = _NVCC_FLAGS_RE.search(config_text)
    if line is None:
        return []
    entries: list[str] = []
    for code in _CODE_RE.findall(line[1]):
        for entry in code.strip("[]").split(","):
            entry = entry.strip()
            if _parse_arch(entry) is not None and entry not in entries:
                entries.append(entry)
    return entries


# --------------------------------------------------------------------------------------------------
# What a CUDA toolkit can compile for
# --------------------------------------------------------------------------------------------------

# From each CUDA release on, the CCs its nvcc compiles kernel binaries for (data/cuda_drivers.json).
TOOLKIT_TARGETS: tuple[tuple[tuple[int, int], tuple[int, ...]], ...] = tuple(
    sorted((_pair_key(cuda), tuple(row["ccs"])) for cuda, row in DRIVERS["toolkit_targets"].items())
)


@dataclass(frozen=True)
class ToolkitReach:
    status: str  # "within" | "below" (no code can run) | "above" (no kernel binary; PTX only) | "unknown"
    message: str


def toolkit_reach(cuda: str | None, cc: tuple[int, int]) -> ToolkitReach:
    """Whether a build with CUDA ``cuda`` can have kernels for a CC at all, when its arch list is unknown: a
    kernel binary of a target the toolkit compiles for runs on the device (torch's rule), at the toolkit's own
    minor version (CUDA 12.8 compiles for sm_101, not for sm_110)."""
    built = _cuda_pair(cuda)
    rows = [row for row in TOOLKIT_TARGETS if built is not None and row[0] <= built]
    device = 10 * cc[0] + cc[1]
    if built is None or not rows:
        return ToolkitReach("unknown", f"which CCs CUDA {cuda} compiles for is not in the table")
    targets = rows[-1][1]
    toolkit = f"CUDA {format_cuda(built)}"
    # A kernel binary of the device's own major (sm_101 cubins also run on Thor renumbered CC 11.0, but a
    # toolkit that cannot target sm_110 is no toolkit for a CC 11.0 GPU).
    if any(
        t // 10 == device // 10 and _runs(_Arch(f"sm_{t}", "sm", t, ""), device, DEVICE_REQUIREMENT)
        for t in targets
    ):
        return ToolkitReach("within", f"{toolkit} compiles for CC {_cc_text(device)}")
    if device < min(targets):
        message = (
            f"{toolkit} compiles for CC {_cc_text(min(targets))} and newer only: no build with it has code "
            f"for CC {_cc_text(device)}"
        )
        return ToolkitReach("below", message)
    listed = ", ".join(f"sm_{t}" for t in targets if t // 10 == cc[0]) or f"no CC {cc[0]}.x target"
    message = (
        f"{toolkit} cannot compile for CC {_cc_text(device)} ({listed}): a build with it has no kernel "
        "binary for this GPU and runs on it only through PTX JIT, if it ships PTX"
    )
    return ToolkitReach("above", message)


# --------------------------------------------------------------------------------------------------
# Published builds
# --------------------------------------------------------------------------------------------------

WHEEL_ROOT = "https://download.pytorch.org/whl"
"""PyTorch's wheel index: a folder per build (``cu129``, ``cpu``, ``xpu``...), ``nightly/`` above them."""


def wheel_index_url(cuda: str, nightly: bool = False) -> str:
    """``"12.9"`` -> ``"https://download.pytorch.org/whl/cu129"``."""
    version = _cuda_pair(cuda)
    if version is None:
        raise ValueError(f"not a CUDA version: {cuda!r}")
    root = f"{WHEEL_ROOT}/nightly" if nightly else WHEEL_ROOT
    return f"{root}/cu{version[0]}{version[1]}"


def cuda_of_label(label: str | None) -> str | None:
    """A wheel's local label as the CUDA version it names: ``cu124`` -> ``12.4``; None for anything else."""
    found = re.fullmatch(r"cu(\d{2})(\d)", label or "")
    return f"{int(found[1])}.{found[2]}" if found else None


def install_command(torch_version: str, cuda: str | None) -> str:
    """The pip command for torch ``torch_version`` built for ``cuda`` (None: the CPU build).

    The local version is named (``torch==2.13.0+cu130``): ``torch==2.13.0`` alone is already satisfied by an
    installed ``2.13.0+cpu``, and pip would install nothing."""
    base = torch_version.split("+", 1)[0].strip()
    nightly = "dev" in base  # as torch's own hint does: nightlies live under /whl/nightly
    if cuda is None:
        url = f"{WHEEL_ROOT}/nightly/cpu" if nightly else f"{WHEEL_ROOT}/cpu"
        label = "cpu"
    else:
        url = wheel_index_url(cuda, nightly=nightly)
        label = url.rsplit("/", 1)[-1]
    return f'pip install "torch=={base}+{label}" --index-url {url}'
