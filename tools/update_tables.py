"""Regenerate the install checks' data tables from the package index and PyPI-independent sources.

    python tools/update_tables.py [--index URL] [--builds FILE] [--matrix FILE] [--nvidia FILE] [--cache DIR]
                                  [--offline] [--check]

Reads, for torch, torchvision, torchaudio and triton, the JSON simple API (file names: releases, Python and
platform tags) and the wheels' core metadata (PEP 658 ``<wheel>.metadata``, or ``*.dist-info/METADATA`` read
from the wheel with byte ranges where the index has no metadata file): torch's ``Requires-Dist`` pins of
triton, ``cuda-toolkit`` and the ``nvidia-*`` wheels with their markers, and each companion's requirement on
torch. From each torch wheel it also reads ``torch/cuda/__init__.py`` (``PYTORCH_RELEASES_CODE_CC``: the
compute capabilities of every CUDA build of that release, per host architecture) and ``torch/version.py``.
What the index cannot tell comes from sources committed beside this script, each a snapshot of a document a
maintainer refreshes for the next release: ``--builds`` (``tools/sources/builds.json``: the CUDA builds each
release published per operating system, PyTorch's build matrix per release branch, each entry with the pull
request or file it was read from), ``--matrix`` (``tools/sources/release_matrix.md``: the Release
Compatibility Matrix of RELEASE.md, read by ``tools/release_matrix.py``) and ``--nvidia``
(``tools/sources/nvidia_drivers.json``: editions of Table 3 of the CUDA release notes, the minor-version
floors, the last driver branch per retired architecture, nvcc's targets; read by ``tools/driver_table.py``).

Writes the five tables of ``checks/install/data/``: ``torch_wheels.json``, ``torch_companions.json``,
``torch_builds.json``, ``torch_releases.json`` and ``cuda_drivers.json``; every row names where it was read.
``--offline`` asks no index: it rebuilds the last three from the committed sources and the committed
``torch_wheels.json`` (the tests run it with ``--check``, so an edit of a source that the tables do not follow
fails). ``--check`` writes nothing and exits 1 when the files would change.

Exit codes: 0 written (or unchanged), 1 ``--check`` found a difference, 2 bad input (the index unreachable, a
malformed wheel name, an unreadable or malformed source file): one line on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: python tools/update_tables.py
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools import driver_table, release_matrix, table_rows
from tools.index_client import INDEX, Client, IndexUnreachable, wheel_member
from tools.wheel_names import MalformedWheelName

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "checks" / "install" / "data"
BUILDS = ROOT / "tools" / "sources" / "builds.json"
COMPANIONS = ROOT / "tools" / "sources" / "companions.json"
MATRIX = ROOT / "tools" / "sources" / "release_matrix.md"
NVIDIA = ROOT / "tools" / "sources" / "nvidia_drivers.json"


class BadInput(Exception):
    """A source the tables cannot be made from; its text is the one line printed."""


@dataclass(frozen=True)
class Sources:
    """The committed source snapshots the tables are made from, besides the index."""

    builds: dict[str, Any]
    matrix: str
    nvidia: dict[str, Any]


def _metadata(client: Client, wheels: Sequence[dict[str, Any]], project: str) -> tuple[list[str], str]:
    """Requires-Dist of the first wheel whose metadata can be read, and that wheel's file name."""
    for wheel in wheels:
        try:
            return client.requires_dist(wheel["url"]), wheel["filename"]
        except IndexUnreachable:
            continue
    for wheel in wheels[:1]:
        version = table_rows.wheel_version(wheel["filename"])
        member = f"{project}-{version}.dist-info/METADATA"
        text = wheel_member(client, wheel["url"], int(wheel.get("size") or 0), member)
        if text is not None:
            lines = [
                line.partition(":")[2].strip()
                for line in text.splitlines()
                if line.startswith("Requires-Dist:")
            ]
            return lines, f"{wheel['filename']} ({member})"
    raise IndexUnreachable(f"no metadata of {wheels[0]['filename'] if wheels else project} could be read")


def _code_cc(
    client: Client, wheel: dict[str, Any]
) -> tuple[dict[str, dict[str, list[int]]] | None, str | None]:
    """PYTORCH_RELEASES_CODE_CC and torch.version.cuda of one torch wheel."""
    size = int(wheel.get("size") or 0)
    source = wheel_member(client, wheel["url"], size, "torch/cuda/__init__.py") or ""
    version = wheel_member(client, wheel["url"], size, "torch/version.py") or ""
    return table_rows.parse_code_cc(source), table_rows.parse_version_cuda(version)


def collect(client: Client, sources: Sources, before: dict[str, Any], log: Any) -> dict[str, dict[str, Any]]:
    """The five data files, as dicts, from the index and the committed sources."""
    torch_files = table_rows.wheels_by_release(client.files("torch"), minimum="1.12.0")
    torch_rows: dict[str, dict[str, Any]] = {}
    for release, wheels in torch_files.items():
        print(f"torch {release}", file=log)
        row = table_rows.tags_row(wheels)
        requires: dict[str, list[str]] = {}
        read_from: list[str] = []
        for platform in table_rows.PIN_PLATFORMS:
            chosen = table_rows.metadata_candidates(wheels, platform)
            if not chosen:
                continue
            lines, name = _metadata(client, chosen, "torch")
            requires[platform] = table_rows.pinned_lines(lines)
            read_from.append(name)
        row["requires"] = requires
        code_wheel = table_rows.metadata_candidates(wheels, "linux-x86_64")[:1]
        code_from = ""
        if code_wheel and table_rows.at_least(release, "2.0.0"):
            code_cc, cuda = _code_cc(client, code_wheel[0])
            row["pypi_cuda"] = cuda
            if code_cc:
                row["code_cc"] = code_cc
                code_from = (
                    "; torch/cuda/__init__.py (PYTORCH_RELEASES_CODE_CC) and torch/version.py of "
                    f"{code_wheel[0]['filename']}"
                )
            else:
                code_from = f"; torch/version.py of {code_wheel[0]['filename']}"
        row["source"] = (
            f"package index: the file list of torch {release} ({client.index}/torch/); metadata of "
            + ", ".join(read_from)
            + code_from
        )
        torch_rows[release] = row
    companions: dict[str, dict[str, Any]] = {}
    for project, first in (("torchvision", "0.15.0"), ("torchaudio", "2.0.0")):
        print(project, file=log)
        companions[project] = {}
        for release, wheels in table_rows.wheels_by_release(client.files(project), minimum=first).items():
            chosen = table_rows.metadata_candidates(wheels, "linux-x86_64") or wheels
            lines, name = _metadata(client, chosen, project)
            companions[project][release] = {
                "requires_torch": table_rows.torch_requirement(lines),
                "from": name,
            }
    print("triton", file=log)
    triton = {
        release: table_rows.tags_row(wheels)["python"].get("linux-x86_64", [])
        for release, wheels in table_rows.wheels_by_release(client.files("triton"), minimum="2.0.0").items()
    }
    return {
        "torch_wheels.json": table_rows.wheels_table(torch_rows, client.index),
        "torch_companions.json": table_rows.companions_table(
            torch_rows, companions, triton, client.index, before
        ),
        "torch_builds.json": table_rows.builds_table(sources.builds, torch_rows),
        **from_documents(sources, torch_rows),
    }


def from_documents(sources: Sources, torch_rows: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The tables read from documents, not from the index: NVIDIA's driver tables and PyTorch's release matrix
    (cross-checked with the wheels' pins)."""
    try:
        return {
            "torch_releases.json": release_matrix.releases_table(sources.matrix, torch_rows),
            "cuda_drivers.json": driver_table.drivers_table(sources.nvidia),
        }
    except (release_matrix.MatrixError, driver_table.DriverSourceError) as error:
        raise BadInput(str(error)) from None


def offline(sources: Sources, data: Path) -> dict[str, dict[str, Any]]:
    """The tables that come from the committed sources alone: torch_builds.json from the builds source and the
    per-release rows of the committed torch_wheels.json (their PYTORCH_RELEASES_CODE_CC), torch_releases.json
    and cuda_drivers.json from their documents; no index asked."""
    wheels = _read_json(data / "torch_wheels.json")["releases"]
    return {
        "torch_builds.json": table_rows.builds_table(sources.builds, wheels),
        **from_documents(sources, wheels),
    }


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise BadInput(f"cannot read {path}: {error}") from None
    if not isinstance(data, dict):
        raise BadInput(f"{path}: not a JSON object")
    return data


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, ValueError) as error:
        raise BadInput(f"cannot read {path}: {error}") from None


def _read_builds(path: Path) -> dict[str, Any]:
    data = _read_json(path)
    problem = table_rows.builds_source_problem(data)
    if problem:
        raise BadInput(f"{path}: {problem}")
    return data


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--index", default=INDEX, help="the JSON simple API root (default: PyPI's)")
    parser.add_argument("--builds", type=Path, default=BUILDS, help="the per-OS build matrix source file")
    parser.add_argument(
        "--matrix", type=Path, default=MATRIX, help="PyTorch's release matrix (RELEASE.md's table)"
    )
    parser.add_argument("--nvidia", type=Path, default=NVIDIA, help="NVIDIA's driver tables as read")
    parser.add_argument("--cache", type=Path, help="keep the index's answers in this folder")
    parser.add_argument("--out", type=Path, default=DATA, help="the folder the data files are written to")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a file would change")
    parser.add_argument(
        "--offline",
        action="store_true",
        help="no index: rebuild only what the committed sources give (all but torch_wheels.json and "
        "torch_companions.json)",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)
    log = open(Path("/dev/null"), "w") if args.quiet else sys.stderr  # noqa: SIM115
    try:
        sources = Sources(_read_builds(args.builds), _read_text(args.matrix), _read_json(args.nvidia))
        if args.offline:
            tables = offline(sources, args.out)
        else:
            before = _read_json(COMPANIONS)
            tables = collect(Client(args.index, args.cache), sources, before, log)
    except (IndexUnreachable, MalformedWheelName, BadInput) as error:
        print(f"update_tables: {error}", file=sys.stderr)
        return 2
    changed = []
    for name, table in tables.items():
        text = table_rows.dump(table)
        path = args.out / name
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        if old == text:
            continue
        changed.append(name)
        if not args.check:
            path.write_text(text, encoding="utf-8")
    print(("would change: " if args.check else "changed: ") + (", ".join(changed) or "nothing"), file=log)
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
