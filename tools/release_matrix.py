"""``checks/install/data/torch_releases.json`` from PyTorch's Release Compatibility Matrix
(``tools/sources/release_matrix.md``, the table of RELEASE.md as it prints it), cross-checked with the wheels.

Each row keeps the matrix's cells verbatim (``python_cell``, ``stable_cuda_cell``, ``experimental_cuda_cell``,
``rocm_cell``) and the keys read from them: the Python range and the versions marked experimental, every CUDA
version of both CUDA cells, and the cuDNN and NCCL the matrix gives per CUDA version. The matrix is typed by
hand; the torch wheel on the package index pins the ``nvidia-cudnn-*`` and ``nvidia-nccl-*`` wheels it was
built with. Where the two disagree for the CUDA version of the index's wheel, the row keeps both in
``disagreements`` and the wheel's pin wins: it is what ``pip install torch`` installs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from packaging.version import InvalidVersion, Version

MATRIX_URL = "https://github.com/pytorch/pytorch/blob/main/RELEASE.md#release-compatibility-matrix"
_CUDA = re.compile(r"CUDA (\d+\.\d+)((?:\s*\([A-Z]+ [\d.]+\))*)")
_PAREN = re.compile(r"\(([A-Z]+) ([\d.]+)\)")
_SHARED = re.compile(r"\b(CUDNN|NCCL) (\d+(?:\.\d+)+)(?!\))")
_PYTHON = re.compile(r"\d+\.\d+t?")
_PIN = re.compile(r"^nvidia-(cudnn|nccl)-cu\d+==([\d.]+)")
_COLUMNS = {
    "pytorch version": "release",
    "python": "python_cell",
    "stable cuda": "stable_cuda_cell",
    "experimental cuda": "experimental_cuda_cell",
    "stable rocm": "rocm_cell",
}


class MatrixError(ValueError):
    """The matrix text is not the table this reader knows; the text says what is missing."""


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def parse_matrix(text: str) -> list[dict[str, str]]:
    """The rows of the first Markdown table whose header has a 'PyTorch version' column."""
    lines = text.splitlines()
    for n, line in enumerate(lines):
        header = [cell.lower() for cell in _cells(line)] if line.lstrip().startswith("|") else []
        if "pytorch version" not in header:
            continue
        missing = sorted(set(_COLUMNS) - set(header))
        if missing:
            raise MatrixError(f"the matrix has no column {missing[0]!r}")
        rows = []
        for body in lines[n + 2 :]:
            if not body.lstrip().startswith("|"):
                break
            cells = _cells(body)
            if len(cells) != len(header):
                raise MatrixError(
                    f"a row with {len(cells)} cells under {len(header)} columns: {body.strip()}"
                )
            rows.append({_COLUMNS[h]: cells[i] for i, h in enumerate(header) if h in _COLUMNS})
        if not rows:
            raise MatrixError("the matrix has no rows")
        return rows
    raise MatrixError("no table with a 'PyTorch version' column")


def python_range(cell: str) -> dict[str, Any]:
    """``>=3.10, <=(3.15, 3.15t experimental)`` -> min 3.10, max 3.15, experimental [3.15t]."""
    lower = re.search(r">=\s*(\d+\.\d+)", cell)
    upper = re.search(r"<=\s*\(?\s*(\d+\.\d+)", cell)
    if not lower or not upper:
        raise MatrixError(f"no Python range in {cell!r}")
    experimental: list[str] = []
    for group in re.findall(r"([^(),]*)experimental", cell):
        experimental += _PYTHON.findall(group)
    return {"min": lower[1], "max": upper[1], "experimental": experimental}


def libraries_by_cuda(cell: str) -> dict[str, dict[str, str]]:
    """``CUDA 12.6 (CUDNN 9.10.2.21) (NCCL 2.29.3)`` -> {"12.6": {"cudnn": ..., "nccl": ...}}; a bare
    ``CUDNN v`` after the versions (``CUDA 11.8, CUDA 12.1, CUDNN 9.1.0.70``) is that of every version of the
    cell that names none."""
    found: dict[str, dict[str, str]] = {}
    for match in _CUDA.finditer(cell):
        found[match[1]] = {name.lower(): value for name, value in _PAREN.findall(match[2])}
    for name, value in _SHARED.findall(_CUDA.sub("", cell)):
        for libraries in found.values():
            libraries.setdefault(name.lower(), value)
    return found


def _first_release(line: str, wheels: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The first release of a line on the index (``2.11`` -> ``2.11.0``)."""
    found = []
    for release in wheels:
        try:
            version = Version(release)
        except InvalidVersion:
            continue
        if f"{version.major}.{version.minor}" == line:
            found.append(version)
    return str(min(found)) if found else None


def wheel_pins(row: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    """The cuDNN and NCCL the Linux x86_64 wheel pins, each with its requirement:
    ``{"cudnn": ("9.19.0.56", "nvidia-cudnn-cu13==9.19.0.56")}``."""
    pins: dict[str, tuple[str, str]] = {}
    for line in (row.get("requires") or {}).get("linux-x86_64") or []:
        match = _PIN.match(line)
        if match:
            pins[match[1]] = (match[2], match[0])
    return pins


def release_row(matrix_row: Mapping[str, str], wheels: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    line = matrix_row["release"]
    stable, experimental = matrix_row["stable_cuda_cell"], matrix_row["experimental_cuda_cell"]
    libraries = {**libraries_by_cuda(stable), **libraries_by_cuda(experimental)}
    row: dict[str, Any] = {
        "python": python_range(matrix_row["python_cell"]),
        "cuda": sorted(libraries, key=Version),
        "libraries": {
            cuda: dict(found) for cuda, found in sorted(libraries.items(), key=lambda i: Version(i[0]))
        },
        "python_cell": matrix_row["python_cell"],
        "stable_cuda_cell": stable,
        "experimental_cuda_cell": experimental,
        "rocm_cell": matrix_row["rocm_cell"],
    }
    source = f"RELEASE.md Release Compatibility Matrix of pytorch/pytorch ({MATRIX_URL}), row {line}"
    release = _first_release(line, wheels)
    wheel = wheels.get(release) if release else None
    cuda = (wheel or {}).get("pypi_cuda")
    disagreements = []
    if wheel and cuda in row["libraries"]:
        for library, (pinned, requirement) in sorted(wheel_pins(wheel).items()):
            said = row["libraries"][cuda].get(library)
            if said and said != pinned:
                row["libraries"][cuda][library] = pinned
                disagreements.append(
                    {
                        "cuda": cuda,
                        "library": library,
                        "matrix": said,
                        "wheel": pinned,
                        "wins": "wheel",
                        "why": f"torch {release}'s Linux x86_64 wheel on the package index (a CUDA {cuda} "
                        f"build) pins {requirement} (torch_wheels.json): what pip installs",
                    }
                )
    if disagreements:
        row["disagreements"] = disagreements
    row["source"] = source
    return row


def releases_table(matrix_text: str, wheels: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """torch_releases.json as a dict."""
    rows: Sequence[Mapping[str, str]] = parse_matrix(matrix_text)
    return {
        "source": (
            f"PyTorch's Release Compatibility Matrix, RELEASE.md of pytorch/pytorch ({MATRIX_URL}), as "
            "tools/sources/release_matrix.md holds it: one row per release line, its columns Python, Stable"
            " CUDA, Experimental CUDA and Stable ROCm copied verbatim into python_cell, stable_cuda_cell, "
            "experimental_cuda_cell and rocm_cell. The structured keys are read from those cells: python "
            "min/max is the range of the cell, experimental the versions it marks experimental (3.13t, "
            "3.14t, 3.15t are free-threaded builds); cuda lists every CUDA version of both CUDA cells; "
            "libraries the cuDNN and NCCL per CUDA version, where the torch wheel's own pins win over the "
            "matrix (disagreements lists both). The matrix starts at 1.12. Python support and the CUDA "
            "builds per OS are not read from it: torch_wheels.json (the wheels' own tags) and "
            "torch_builds.json say them. Made by tools/update_tables.py."
        ),
        "releases": {row["release"]: release_row(row, wheels) for row in rows},
    }
