"""PyTorch's release compatibility matrix (``data/torch_releases.json``): per release line, the Python
versions it supports and the CUDA versions it is published for, and lookups on it.

The table starts at torch 1.12 (the matrix has no older rows): for an older torch every lookup answers None,
so a judge leaves that comparison out rather than guess.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from torchdoctor.checks.install import tables
from torchdoctor.checks.install.versions import Version, parse_version, release_line

TABLE = tables.load("torch_releases.json")
SOURCE: str = TABLE["source"]
_RELEASES: dict[str, dict[str, Any]] = TABLE["releases"]


@dataclass(frozen=True)
class Release:
    line: str
    """The release line (``2.6``)."""
    python_min: str
    python_max: str
    python_experimental: tuple[str, ...]
    """Versions the matrix marks experimental (``3.13t``: free-threaded; ``3.12``: wheels published early)."""
    cuda: tuple[str, ...]
    """The CUDA versions of its published builds, stable and experimental."""
    python_cell: str
    """The matrix's own words, for the evidence."""


def release(torch_version: str | None) -> Release | None:
    """The matrix row of this torch's release line (nightlies and patch releases included)."""
    line = release_line(torch_version)
    row = _RELEASES.get(line or "")
    if line is None or row is None:
        return None
    python = row["python"]
    return Release(
        line=line,
        python_min=python["min"],
        python_max=python["max"],
        python_experimental=tuple(python.get("experimental") or ()),
        cuda=tuple(row.get("cuda") or ()),
        python_cell=row["python_cell"],
    )


def python_line(python: str | None) -> str | None:
    """``"3.10.13"`` -> ``"3.10"``; None for text that is not a version."""
    parsed = parse_version(python)
    if parsed is None or len(parsed.release) < 2:
        return None
    return f"{parsed.release[0]}.{parsed.release[1]}"


def supports_python(row: Release, python: str) -> bool | None:
    """Whether the release supports this Python (an experimental version counts: wheels are published).

    None when the Python version cannot be read."""
    line = python_line(python)
    if line is None:
        return None
    if line in row.python_experimental:
        return True
    return Version(row.python_min) <= Version(line) <= Version(row.python_max)


def newest_for_python(python: str) -> Release | None:
    """The newest release line of the matrix that supports this Python."""
    rows = [row for row in map(release, _RELEASES) if row is not None]
    fitting = [row for row in rows if supports_python(row, python)]
    return max(fitting, key=lambda row: Version(row.line), default=None)
