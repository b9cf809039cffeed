"""The torch releases the index has (``data/torch_wheels.json``) and the Pythons each has wheels for, per
platform: the wheels' own tags, not the release matrix's text (torch 1.13.0 has cp311 wheels although the
matrix said Python 3.10 at most; no torch before 2.15.0 has a cp315 wheel).

``data/torch_releases.json`` (PyPTorch's Release Compatibility Matrix) still gives the cuDNN and NCCL of each
line's builds, with its source per row.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from torchdoctor.checks.install import tables
from torchdoctor.checks.install.versions import Version, parse_version, release_line

MATRIX = tables.load("torch_releases.json")
WHEELS = tables.load("torch_wheels.json")
SOURCE: str = WHEELS["source"]
_ROWS: dict[str, dict[str, Any]] = WHEELS["releases"]


def python_line(python: str | None) -> str | None:
    """``"3.10.13"`` -> ``"3.10"``; None for text that is not a version."""
    parsed = parse_version(python)
    if parsed is None or len(parsed.release) < 2:
        return None
    return f"{parsed.release[0]}.{parsed.release[1]}"


def platform_of(system: str | None, machine: str | None) -> str | None:
    """The wheel platform of an OS and machine, as the tables name it; None when not known."""
    name = (system or "").strip().lower()
    arch = (machine or "").strip().lower()
    arm = arch in ("aarch64", "arm64")
    if name.startswith("win"):
        return "windows-arm64" if arm else "windows-x86_64"
    if name in ("darwin", "macos"):
        return "macos-arm64" if arm else "macos-x86_64"
    if name == "linux":
        return "linux-aarch64" if arm else "linux-x86_64"
    return None


@dataclass(frozen=True)
class PythonSupport:
    supported: bool | None
    """None: the tables do not know this release (or the Python version cannot be read)."""
    release: str
    python: str
    platform: str | None
    listed: tuple[str, ...]
    """The Pythons this release has wheels for on the platform (every platform when it is not known)."""
    source: str


def python_support(
    torch_version: str | None, python: str | None, platform: str | None
) -> PythonSupport | None:
    """Whether the index has a wheel of this torch release for this Python on this platform."""
    parsed = parse_version(torch_version)
    line = python_line(python)
    if parsed is None or line is None:
        return None
    row = _ROWS.get(parsed.public)
    if row is None:
        return PythonSupport(None, parsed.public, line, platform, (), "not in the tables")
    tags: Mapping[str, list[str]] = row.get("python") or {}
    listed = tags.get(platform or "") if platform in tags else sorted({p for ps in tags.values() for p in ps})
    plain = tuple(p for p in listed or () if not p.endswith("t"))
    return PythonSupport(
        line in plain,
        parsed.public,
        line,
        platform if platform in tags else None,
        plain,
        str(row.get("source") or SOURCE),
    )


def newest_for_python(python: str, platform: str | None) -> str | None:
    """The newest torch release with a wheel for this Python on this platform (any platform when not
    known)."""
    line = python_line(python)
    fitting = []
    for release, row in _ROWS.items():
        tags: Mapping[str, list[str]] = row.get("python") or {}
        pythons = (
            tags.get(platform or "", []) if platform in tags else [p for ps in tags.values() for p in ps]
        )
        if line in pythons:
            fitting.append(release)
    return max(fitting, key=Version, default=None)


def newest_release() -> str:
    return max(_ROWS, key=Version)


def known(torch_version: str | None) -> bool:
    parsed = parse_version(torch_version)
    return parsed is not None and release_line(parsed.public) in {release_line(r) for r in _ROWS}


def cell(line: str, key: str) -> str | None:
    """A cell of the release matrix (``stable_cuda_cell``), for the evidence."""
    row = MATRIX["releases"].get(line) or {}
    value = row.get(key)
    return str(value) if value is not None else None
