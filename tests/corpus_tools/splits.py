"""The one rule that splits every corpus into ``dev`` (what rules are tuned on) and the frozen ``test``.

A record belongs to the repository it was copied from (``owner/name``; the host name for a page outside
GitHub), and a repository's records all sit on one side, so the test split measures material from repositories
no rule was tuned on. The side is a hash of the lowercased repository name: about a third of the repositories
are ``test``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
SPLITS = ("dev", "test")
_GITHUB_SOURCE = re.compile(r"([\w.-]+/[\w.-]+)#")


def repository_of(source: str) -> str:
    """``owner/name`` of a ``owner/name#123`` source, or the host name of a page's URL."""
    found = _GITHUB_SOURCE.match(source)
    if found:
        return found.group(1)
    host = urlsplit(source).hostname
    if not host:
        raise ValueError(f"a corpus source is owner/name#number or a URL: {source!r}")
    return host.removeprefix("www.")


def split_of(repository: str) -> str:
    """``test`` for about a third of the repositories, ``dev`` for the rest; fixed by the name alone."""
    digest = hashlib.sha256(repository.strip().lower().encode("utf-8")).hexdigest()
    return "test" if int(digest[:8], 16) % 3 == 0 else "dev"


def files(corpus: str, split: str | None = None) -> list[Path]:
    """The JSON files of a corpus (``errors``, ``collect_env``, ``issues``, ``lint``), of a split or both."""
    sides = SPLITS if split is None else (split,)
    return sorted(path for side in sides for path in (CORPUS / corpus / side).glob("*.json"))


def find(corpus: str, stem: str) -> Path:
    """The file named ``stem`` of a corpus, on whichever side it sits."""
    for path in files(corpus):
        if path.stem == stem:
            return path
    raise FileNotFoundError(f"no {stem}.json in tests/corpus/{corpus}")


def error_records(split: str | None = None) -> Iterator[tuple[str, int, dict[str, Any]]]:
    """(explanation id, index in its file, record) of every error text of a split or both."""
    for path in files("errors", split):
        for n, record in enumerate(json.loads(path.read_text(encoding="utf-8"))):
            yield path.stem, n, record
