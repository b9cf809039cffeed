"""Which CUDA builds of a torch release exist on an OS, and which of them run here: the one answer
``torch.build``, ``explain``, ``triage`` and the install plans share.

Reads ``data/torch_builds.json`` (per release line and OS, each CUDA build with the compute capabilities it
has kernels for, every cell with its source) and ``data/torch_wheels.json`` (the releases the index has). A
build whose arch list no source gives is "unknown", never "fits". Pure: no I/O after import.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from torchdoctor.checks.install import cuda_compat, tables
from torchdoctor.checks.install.versions import Version, parse_version, release_line

TABLE = tables.load("torch_builds.json")
WHEELS = tables.load("torch_wheels.json")
SOURCE: str = TABLE["source"]
_LINES: dict[str, dict[str, Any]] = TABLE["lines"]
_RELEASES: dict[str, dict[str, Any]] = WHEELS["releases"]

RUNS, MINOR_COMPAT, ARCH_UNKNOWN, DRIVER_TOO_OLD, DRIVER_NOT_SHOWN, NO_KERNELS, UNKNOWN = (
    "runs",
    "minor_compat",
    "arch_unknown",
    "driver_too_old",
    "driver_not_shown",  # GPUs known, the driver's version not: it runs where the driver is new enough
    "no_kernels",
    "unknown",
)
_ORDER = {
    RUNS: 0,
    MINOR_COMPAT: 1,
    ARCH_UNKNOWN: 2,
    DRIVER_TOO_OLD: 3,
    DRIVER_NOT_SHOWN: 3,
    UNKNOWN: 4,
    NO_KERNELS: 5,
}


@dataclass(frozen=True)
class Build:
    line: str
    cuda: str
    os_key: str
    ccs: tuple[int, ...] | None
    """Compute capabilities with kernel binaries (86 = 8.6); None: no source gives the arch list."""
    ptx: tuple[int, ...]
    source: str

    @property
    def label(self) -> str:
        return f"cu{self.cuda.replace('.', '')}"


@dataclass(frozen=True)
class Verdict:
    build: Build
    status: str
    """RUNS, MINOR_COMPAT (runs through minor-version compatibility), ARCH_UNKNOWN (this driver runs it;
    whether it has kernels for these GPUs is not known), DRIVER_TOO_OLD, NO_KERNELS or UNKNOWN."""
    reason: str
    required_driver: str | None


def wheel_os(system: str | None, machine: str | None) -> str | None:
    """The wheel platform of an OS and machine (``linux-x86_64``); None where no CUDA wheel is published."""
    name = (system or "").strip().lower()
    arch = "aarch64" if (machine or "").strip().lower() in ("aarch64", "arm64") else "x86_64"
    if name.startswith("win"):
        return "windows-x86_64" if arch == "x86_64" else None
    if name in ("linux", ""):
        return f"linux-{arch}"
    return None


def known_lines() -> list[str]:
    return sorted(_LINES, key=Version)


def newest_line() -> str:
    return known_lines()[-1]


def newest_release(line: str) -> str | None:
    """The newest release of a line on the index (``2.14.1`` for ``2.14``)."""
    return _newest_of_each_line().get(line)


@functools.cache
def _newest_of_each_line() -> dict[str, str]:
    newest: dict[str, str] = {}
    for release in sorted(_RELEASES, key=Version):
        line = release_line(release)
        if line is not None:
            newest[line] = release
    return newest


def knows(torch_version: str | None) -> bool | None:
    """Whether these tables know the release line of this torch; None for a text that is not a version."""
    line = release_line(torch_version)
    return None if line is None else line in _LINES


def newer_than_tables(torch_version: str | None) -> bool:
    line = release_line(torch_version)
    return line is not None and line not in _LINES and Version(line) > Version(newest_line())


def of(line: str, os_key: str | None) -> list[Build] | None:
    """The CUDA builds of a release line on an OS, newest CUDA first; None where the tables do not say."""
    entry = (_LINES.get(line) or {}).get("os", {}).get(os_key or "")
    if entry is None:
        return None
    found = [
        Build(
            line,
            cuda,
            str(os_key),
            None if cell.get("ccs") is None else tuple(cell["ccs"]),
            tuple(cell.get("ptx") or ()),
            str(cell.get("source") or entry.get("source")),
        )
        for cuda, cell in entry["builds"].items()
    ]
    return sorted(found, key=lambda b: Version(b.cuda), reverse=True)


def source_of(line: str, os_key: str | None) -> str | None:
    entry = (_LINES.get(line) or {}).get("os", {}).get(os_key or "")
    return None if entry is None else str(entry["source"])


def with_arch_list(build: Build, arch_list: Sequence[str], source: str) -> Build:
    """The build with the arch list a torch reports of itself (``sm_86``, ``compute_90``)."""
    ccs: set[int] = set()
    ptx: set[int] = set()
    for entry in arch_list:
        kind, _, number = str(entry).partition("_")
        digits = "".join(ch for ch in number if ch.isdigit())
        if digits and kind in ("sm", "compute"):
            (ccs if kind == "sm" else ptx).add(int(digits))
    return replace(build, ccs=tuple(sorted(ccs)), ptx=tuple(sorted(ptx)), source=source)


def has_kernels(build: Build, cc: tuple[int, int]) -> bool | None:
    """Whether the build has code for a compute capability (torch's own rule, PTX JIT credited); None when
    the build's arch list is not known."""
    if build.ccs is None:
        return None
    arch = [f"sm_{c}" for c in build.ccs] + [f"compute_{c}" for c in build.ptx]
    return cuda_compat.arch_coverage(arch, cc, build.line, build.cuda).supported


def siblings_without_code(os_key: str | None, cuda: str | None, cc: tuple[int, int]) -> list[Build]:
    """The builds of this CUDA version PyTorch published for this OS in other release lines, where every one
    whose arch list is known has no code for this GPU, kernel or PTX (empty otherwise): a build of that CUDA
    whose own list is unknown (a nightly, a line the tables lack) is judged by them, since PyTorch sets a
    CUDA version's arch list once in its build scripts and changes it rarely."""
    pair = cuda_compat.parse_version(cuda)
    if pair is None or len(pair) < 2:
        return []
    wanted = f"{pair[0]}.{pair[1]}"
    known = [
        build
        for line in _LINES
        for build in of(line, os_key) or []
        if build.cuda == wanted and build.ccs is not None
    ]
    return known if known and all(has_kernels(build, cc) is False for build in known) else []


def judge(
    build: Build,
    ccs: Sequence[tuple[int, int]],
    driver_cuda: int | None,
    driver_version: str | None,
    driver_os: str,
) -> Verdict:
    """Whether one build runs on this driver with kernels for every GPU."""
    kernels = [has_kernels(build, cc) for cc in ccs]
    required = cuda_compat.driver_compat(build.cuda, None, None, driver_os).required_driver
    if any(k is False for k in kernels):
        missing = ", ".join(f"CC {cc[0]}.{cc[1]}" for cc, k in zip(ccs, kernels, strict=True) if k is False)
        return Verdict(
            build, NO_KERNELS, f"the CUDA {build.cuda} build has no kernels for {missing}", required
        )
    compat = cuda_compat.driver_compat(build.cuda, driver_cuda, driver_version, driver_os)
    if any(k is None for k in kernels):
        reason = f"the arch list of the CUDA {build.cuda} build is not known ({build.source})"
        # What its CUDA toolkit can compile for still bounds it: nothing for a GPU older than its targets,
        # and for one newer than them no kernel binary (PTX JIT at best, and whether it ships PTX is unknown).
        reach = [
            cuda_compat.toolkit_reach(build.cuda, cc) for cc, k in zip(ccs, kernels, strict=True) if k is None
        ]
        below = next((r for r in reach if r.status == "below"), None)
        if below is not None:
            return Verdict(build, NO_KERNELS, below.message, required)
        above = next((r for r in reach if r.status == "above"), None)
        if above is not None:
            uncovered = [
                cc
                for cc, k in zip(ccs, kernels, strict=True)
                if k is None and siblings_without_code(build.os_key, build.cuda, cc)
            ]
            if uncovered:
                cc = uncovered[0]
                return Verdict(build, NO_KERNELS, no_sibling_code(build.os_key, build.cuda, cc), required)
            return Verdict(build, UNKNOWN, f"{above.message}; {reason}", required)
        if compat.status in ("ok", "minor_compat"):
            return Verdict(build, ARCH_UNKNOWN, f"{compat.message}; {reason}", required)
        return Verdict(build, UNKNOWN, reason, required)
    if compat.status == "ok":
        return Verdict(build, RUNS, compat.message, required)
    if compat.status == "minor_compat":
        return Verdict(build, MINOR_COMPAT, compat.message, required)
    if compat.status == "no_driver" and ccs:
        needs = f"it needs driver >= {required}; " if required else ""
        return Verdict(build, DRIVER_NOT_SHOWN, f"{needs}the driver's version is not known here", required)
    if compat.status in ("too_old", "no_driver"):
        return Verdict(build, DRIVER_TOO_OLD, compat.message, required)
    return Verdict(build, UNKNOWN, compat.message, required)


def runnable(
    line: str,
    os_key: str | None,
    ccs: Sequence[tuple[int, int]],
    driver_cuda: int | None,
    driver_version: str | None,
    driver_os: str,
    known: Build | None = None,
) -> list[Verdict] | None:
    """Every CUDA build of the line on this OS, judged for this machine: the builds that run first (full
    support before minor-version compatibility, newer CUDA first), then those this driver runs whose arch list
    is not known, then the rest. None where the tables do not know the line or the OS. ``known``: a build
    of the line whose arch list the facts give (the installed torch's own), in place of the table's."""
    found = of(line, os_key)
    if found is None:
        return None
    if known is not None:
        found = [known if (b.line, b.cuda) == (known.line, known.cuda) else b for b in found]
    verdicts = [judge(b, ccs, driver_cuda, driver_version, driver_os) for b in found]
    return sorted(
        verdicts,
        key=lambda v: (
            _ORDER[v.status],
            -Version(v.build.cuda).release[0] * 100 - Version(v.build.cuda).release[1],
        ),
    )


def build_of(line: str, os_key: str | None, cuda: str | None) -> Build | None:
    """The table's build of this line, OS and CUDA (``cuda`` as torch.version.cuda says it)."""
    pair = cuda_compat.parse_version(cuda)
    if pair is None or len(pair) < 2:
        return None
    wanted = f"{pair[0]}.{pair[1]}"
    return next((b for b in of(line, os_key) or [] if b.cuda == wanted), None)


def pip_default(line: str) -> Build | None:
    """The build a plain ``pip install torch==<line>`` gets from PyPI on Linux x86_64: the CUDA of the line's
    newest release there (its torch/version.py, as the wheels table records it)."""
    release = newest_release(line)
    cuda = (_RELEASES.get(release) or {}).get("pypi_cuda") if release is not None else None
    return None if cuda is None else build_of(line, "linux-x86_64", str(cuda))


def default_dropped(cc: tuple[int, int]) -> tuple[Build, Build] | None:
    """(the last of PyPI's default builds with kernels for ``cc``, the next one, without) where a later
    release's default build dropped them; None where no default build had them or the newest still has."""
    defaults = [b for b in (pip_default(line) for line in known_lines()) if b is not None]
    covered = [i for i, build in enumerate(defaults) if has_kernels(build, cc)]
    if not covered or covered[-1] == len(defaults) - 1:
        return None
    return defaults[covered[-1]], defaults[covered[-1] + 1]


def python_tags(torch_version: str | None) -> Mapping[str, list[str]] | None:
    """The Pythons each platform has wheels of this exact release for (the index's file names)."""
    parsed = parse_version(torch_version)
    row = _RELEASES.get(parsed.public) if parsed is not None else None
    return None if row is None else row.get("python")


def line_python_tags(line: str) -> dict[str, set[str]]:
    """The Pythons any release of the line has wheels for, per platform."""
    found: dict[str, set[str]] = {}
    for release, row in _RELEASES.items():
        if release_line(release) == line:
            for platform, pythons in (row.get("python") or {}).items():
                found.setdefault(platform, set()).update(pythons)
    return found


def release_row(torch_version: str | None) -> Mapping[str, Any] | None:
    parsed = parse_version(torch_version)
    return None if parsed is None else _RELEASES.get(parsed.public)


def line_fact(line: str | None, key: str) -> Mapping[str, Any] | None:
    """A per-line fact of torch_builds.json (``mps_macos_min``, ``numpy_2``) with its source."""
    entry = _LINES.get(line or "") or {}
    value = entry.get(key)
    return value if isinstance(value, Mapping) else None


def first_for_numpy_2(os_name: str | None) -> str | None:
    """The first torch release built for NumPy 2 on this OS (any OS where it is not known)."""
    for line in known_lines():
        fact = line_fact(line, "numpy_2") or {}
        built_for: Mapping[str, bool] = fact.get("built_for") or {}
        if os_name is not None and os_name in built_for:
            if built_for[os_name]:
                return line
            patch = (fact.get("from_patch") or {}).get(os_name)
            if patch:
                return str(patch)
        elif built_for and any(built_for.values()):
            return line
    return None


def no_sibling_code(os_key: str | None, cuda: str | None, cc: tuple[int, int]) -> str:
    lines = ", ".join(sorted({b.line for b in siblings_without_code(os_key, cuda, cc)}, key=Version))
    return (
        f"no CUDA {cuda} build PyTorch published for this OS (torch {lines}) has kernels or PTX for CC "
        f"{cc[0]}.{cc[1]}: this one, whose own arch list is not known, has none either"
    )
