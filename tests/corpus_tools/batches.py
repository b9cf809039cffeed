"""The frozen batches of the lint corpus (``tests/corpus/lint/batches.json``).

A batch is a set of records labelled by reading the code against the rules' definitions before
``torchdoctor lint`` ran on any of its files, then frozen: ``batches.json`` keeps the sha256 of each record
file and of their concatenation in sorted order, so a label changed after lint's output was seen shows as a
changed hash. ``bench/lint.py`` scores the newest batch apart from the rest of the corpus.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LINT = Path(__file__).resolve().parents[1] / "corpus" / "lint"
BATCHES = LINT / "batches.json"


@dataclass(frozen=True)
class Batch:
    name: str
    date: str
    records: tuple[str, ...]  # record files relative to tests/corpus/lint, sorted
    sha256: dict[str, str]  # record file -> sha256 of its bytes
    sha256_all: str  # sha256 of the record files' bytes concatenated in sorted order
    labelled: str

    def paths(self, corpus: Path = LINT) -> list[Path]:
        return [corpus / name for name in self.records]


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def concatenated_digest(paths: Iterable[Path]) -> str:
    """sha256 of the files' bytes, one after the other, in the order given."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _batch(entry: dict[str, Any]) -> Batch:
    return Batch(
        name=str(entry["name"]),
        date=str(entry["date"]),
        records=tuple(entry["records"]),
        sha256={str(name): str(value) for name, value in entry["sha256"].items()},
        sha256_all=str(entry["sha256_all"]),
        labelled=str(entry["labelled"]),
    )


def batches(path: Path = BATCHES) -> list[Batch]:
    """Every frozen batch, oldest first (by date, then name)."""
    if not path.is_file():
        return []
    data = json.loads(path.read_text(encoding="utf-8"))
    return sorted((_batch(entry) for entry in data["batches"]), key=lambda b: (b.date, b.name))


def newest(path: Path = BATCHES) -> Batch | None:
    found = batches(path)
    return found[-1] if found else None


def problems(batch: Batch, corpus: Path = LINT) -> list[str]:
    """What no longer matches the frozen batch: a missing or changed record, a record that does not name the
    batch, a changed list of records."""
    wrong = []
    if list(batch.records) != sorted(batch.records) or len(set(batch.records)) != len(batch.records):
        wrong.append("the record list is not sorted and unique")
    if set(batch.sha256) != set(batch.records):
        wrong.append("the hashes do not name exactly the batch's records")
    present = []
    for name in batch.records:
        path = corpus / name
        if not path.is_file():
            wrong.append(f"{name}: missing")
            continue
        present.append(path)
        if file_digest(path) != batch.sha256.get(name):
            wrong.append(f"{name}: changed since the batch was frozen")
        if json.loads(path.read_text(encoding="utf-8")).get("batch") != batch.name:
            wrong.append(f"{name}: does not name batch {batch.name}")
    if len(present) == len(batch.records) and concatenated_digest(present) != batch.sha256_all:
        wrong.append("the concatenated hash differs")
    return wrong


def members(name: str, corpus: Path = LINT) -> list[str]:
    """The record files (relative to ``corpus``) whose ``batch`` field names ``name``."""
    return sorted(
        str(path.relative_to(corpus))
        for path in corpus.glob("*/*.json")
        if json.loads(path.read_text(encoding="utf-8")).get("batch") == name
    )


def freeze(name: str, date: str, labelled: str, corpus: Path = LINT) -> dict[str, Any]:
    """The ``batches.json`` entry of the records that name batch ``name``, hashed as they are now."""
    records = members(name, corpus)
    paths = [corpus / record for record in records]
    return {
        "name": name,
        "date": date,
        "labelled": labelled,
        "records": records,
        "sha256": {record: file_digest(path) for record, path in zip(records, paths, strict=True)},
        "sha256_all": concatenated_digest(paths),
    }
