"""Discovery of checks through the entry-point group ``torchdoctor.checks``.

Two phases, as in flake8's plugin finder: :func:`find_entries` lists the
entry points without importing anything (names serve ``--only``/``--skip``
validation and shell completion), :func:`load` imports the selected ones and
turns an import failure into a :class:`LoadFailure` instead of an exception.
torchdoctor's own checks arrive through the same group as any plugin.
"""

from __future__ import annotations

import fnmatch
import importlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import metadata

from torchdoctor.plugin import DEFAULT_ORDER, Check

GROUP = "torchdoctor.checks"


@dataclass(frozen=True)
class Entry:
    """One entry point of the group: the check id, where it points, who ships it."""

    id: str
    value: str
    distribution: str
    version: str

    @property
    def display_name(self) -> str:
        return f"{self.distribution}[{self.id}]"


@dataclass(frozen=True)
class LoadFailure:
    entry: Entry
    reason: str


class UnknownCheckError(ValueError):
    """A pattern of --only/--skip matched no check."""


def find_entries() -> list[Entry]:
    """All entries of the group, by id, without importing any of them."""
    entries: list[Entry] = []
    seen: set[str] = set()
    for dist in metadata.distributions():
        eps = [ep for ep in dist.entry_points if ep.group == GROUP]
        if not eps:
            continue  # skip reading metadata of unrelated distributions
        name = dist.metadata["Name"] or "unknown"
        for ep in eps:
            # A distribution on sys.path twice (a known quirk of some system Pythons)
            # lists its entry points twice: keep the first.
            if ep.name in seen:
                continue
            seen.add(ep.name)
            entries.append(Entry(id=ep.name, value=ep.value, distribution=name, version=dist.version))
    return sorted(entries, key=lambda e: e.id)


def select(entries: Sequence[Entry], only: Iterable[str] = (), skip: Iterable[str] = ()) -> list[Entry]:
    """Filter by ids or shell-style patterns (``gpu.*``). Raises UnknownCheckError naming valid ids."""
    ids = [e.id for e in entries]
    only = list(only)
    skip = list(skip)
    for pattern in (*only, *skip):
        if not fnmatch.filter(ids, pattern):
            raise UnknownCheckError(f"unknown check id '{pattern}'; valid ids: {', '.join(ids)}")
    chosen = [e for e in entries if not only or any(fnmatch.fnmatchcase(e.id, p) for p in only)]
    return [e for e in chosen if not any(fnmatch.fnmatchcase(e.id, p) for p in skip)]


def table_key(check: Check | LoadFailure) -> tuple[int, str]:
    """Sort by ``order``, then id; a plugin that failed to load sorts as a default-order check."""
    if isinstance(check, LoadFailure):
        return DEFAULT_ORDER, check.entry.id
    return check.order, check.id


def load(entry: Entry) -> Check | LoadFailure:
    """Import one entry; any failure, including a wrong object, is a LoadFailure."""
    module_name, _, attr = entry.value.partition(":")
    try:
        obj: object = importlib.import_module(module_name.strip())
        for part in attr.strip().split(".") if attr else ():
            obj = getattr(obj, part)
    except BaseException as exc:  # a plugin's import may raise anything, SystemExit included
        if isinstance(exc, KeyboardInterrupt):
            raise
        return LoadFailure(entry, f"{entry.display_name} failed to import: {type(exc).__name__}: {exc}")
    if not isinstance(obj, Check):
        return LoadFailure(
            entry, f"{entry.display_name}: '{entry.value}' is a {type(obj).__name__}, not a Check"
        )
    if obj.id != entry.id:
        return LoadFailure(
            entry, f"{entry.display_name}: entry point '{entry.id}' points to a check with id '{obj.id}'"
        )
    return obj
