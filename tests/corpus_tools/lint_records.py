"""The records of ``tests/corpus/lint/{dev,test}/*.json`` and the code each one labels.

A record either holds its file (``code``) or names it by its git blob (``blob``, the sha1 git gives the file's
bytes): the code then comes from a git copy of its repository (a clone or a bare mirror), where git itself
guarantees that the object named ``blob`` is byte for byte the file the labels were made on.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "lint"
PERMISSIVE = frozenset({"MIT", "BSD-2-Clause", "BSD-3-Clause", "Apache-2.0"})


@dataclass(frozen=True)
class Record:
    file: Path  # the JSON record
    split: str  # the folder it sits in: dev or test
    data: dict[str, Any]

    @property
    def repo(self) -> str:
        return str(self.data["repo"])

    @property
    def labels(self) -> list[tuple[str, int]]:
        return sorted((item["rule"], item["line"]) for item in self.data["findings"])


def records(corpus: Path = CORPUS) -> list[Record]:
    return [
        Record(file, file.parent.name, json.loads(file.read_text(encoding="utf-8")))
        for file in sorted(corpus.glob("*/*.json"))
    ]


def git_dirs(repo: str, roots: Iterable[Path]) -> list[Path]:
    """Where a copy of ``owner/name`` may sit under each root: ``owner+name/repo``, ``owner/name`` or
    ``owner+name`` (a bare repository or a clone with a work tree)."""
    owner, _, name = repo.partition("/")
    found = []
    for root in roots:
        for base in (root / f"{owner}+{name}" / "repo", root / owner / name, root / f"{owner}+{name}"):
            for git_dir in (base / ".git", base):
                if (git_dir / "objects").is_dir() and (git_dir / "HEAD").is_file():
                    found.append(git_dir)
                    break
    return found


def code_of(record: Record, roots: Iterable[Path]) -> str | None:
    """The labelled file's text: the record's own ``code``, or blob ``blob`` read from a git copy of the
    repository under one of ``roots``; None where no copy holds it."""
    if "code" in record.data:
        return str(record.data["code"])
    blob = record.data["blob"]
    if blob in _BLOBS:  # a blob id names its content: the scores, --fix and TorchFix each read every file
        return _BLOBS[blob]
    for git_dir in git_dirs(record.repo, roots):
        shown = subprocess.run(
            ["git", f"--git-dir={git_dir}", "cat-file", "blob", blob],
            capture_output=True,
            check=False,
            timeout=60,
        )
        if shown.returncode == 0:
            _BLOBS[blob] = shown.stdout.decode("utf-8")
            return _BLOBS[blob]
    return None


_BLOBS: dict[str, str] = {}
