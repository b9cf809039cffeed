"""Discovery of checks and explanations through entry points, without running a plugin's code here.

Two phases, as in flake8's plugin finder: :func:`find_entries` lists the entry points of a group from the
installed distributions' metadata (names serve ``--only``/``--skip`` validation and shell completion); the
worker then imports the selected ones, each under a deadline, and describes them
(:func:`torchdoctor.checking.hosted.describe`) as :class:`CheckInfo`. torchdoctor's own checks arrive through
the same group as any plugin's.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from torchdoctor.machine.distributions import name_and_version
from torchdoctor.plugin import DEFAULT_ORDER, Check, Option, Probe, resolve

CHECKS = "torchdoctor.checks"
"""The checks ``torchdoctor check`` runs."""
CLUSTER_CHECKS = "torchdoctor.cluster_checks"
"""The checks ``torchdoctor cluster`` judges on rank 0, from the facts every rank handed over."""
EXPLANATIONS = "torchdoctor.explanations"
"""Catalogues of error messages ``torchdoctor explain`` knows (tuples of explain Entry objects)."""


@dataclass(frozen=True)
class Entry:
    """One entry point of a group: the id, where it points, who ships it."""

    id: str
    value: str
    distribution: str
    version: str

    @property
    def display_name(self) -> str:
        return f"{self.distribution}[{self.id}]"

    def to_json(self) -> dict[str, str]:
        return {
            "id": self.id,
            "value": self.value,
            "distribution": self.distribution,
            "version": self.version,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Entry:
        return cls(str(data["id"]), str(data["value"]), str(data["distribution"]), str(data["version"]))


@dataclass(frozen=True)
class LoadFailure:
    entry: Entry
    reason: str

    @property
    def id(self) -> str:
        return self.entry.id


@dataclass(frozen=True)
class CheckInfo:
    """What the worker told about a check it imported: everything the CLI needs but its judge."""

    entry: Entry
    title: str
    probes: tuple[Probe, ...]
    options: tuple[Option, ...] = ()
    description: str = ""
    order: int = DEFAULT_ORDER

    @property
    def id(self) -> str:
        return self.entry.id

    @classmethod
    def of(cls, entry: Entry, check: Check) -> CheckInfo:
        return cls(entry, check.title, check.probes, check.options, check.description, check.order)

    def to_json(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "probes": [p.to_json() for p in self.probes],
            "options": [o.to_json() for o in self.options],
            "description": self.description,
            "order": self.order,
        }

    @classmethod
    def from_json(cls, entry: Entry, data: Mapping[str, Any]) -> CheckInfo:
        return cls(
            entry,
            str(data["title"]),
            tuple(Probe(str(p["name"]), str(p["target"])) for p in data["probes"]),
            tuple(Option.from_json(o) for o in data.get("options") or ()),
            str(data.get("description") or ""),
            int(data.get("order", DEFAULT_ORDER)),
        )


Loaded = CheckInfo | LoadFailure


class UnknownCheckError(ValueError):
    """A pattern of --only/--skip matched no check."""


def find_entries(group: str = CHECKS) -> list[Entry]:
    """All entries of ``group``, by id, without importing any of them.

    A distribution on sys.path twice (a known quirk of some system Pythons) lists its entry points twice:
    the first one wins, as the import system would pick it.
    """
    entries: dict[str, Entry] = {}
    named: dict[int, tuple[str, str]] = {}
    from importlib import metadata  # the CLI's alone: the worker is told its entries, it never looks them up

    for point in metadata.entry_points(group=group):
        if point.name in entries:
            continue
        dist = point.dist
        if id(dist) not in named:
            found = name_and_version(dist) if dist is not None else (None, None)
            named[id(dist)] = (found[0] or "unknown", found[1] or "unknown")
        name, version = named[id(dist)]
        entries[point.name] = Entry(id=point.name, value=point.value, distribution=name, version=version)
    return sorted(entries.values(), key=lambda e: e.id)


def select(entries: Sequence[Entry], only: Iterable[str] = (), skip: Iterable[str] = ()) -> list[Entry]:
    """Filter by ids or shell-style patterns (``gpu.*``). Raises UnknownCheckError naming valid ids."""
    ids = [e.id for e in entries]
    only = list(only)
    skip = list(skip)
    for pattern in (*only, *skip):
        if not fnmatch.filter(ids, pattern):
            raise UnknownCheckError(f"unknown check id {pattern!r}; valid ids: {', '.join(ids)}")
    chosen = [e for e in entries if not only or any(fnmatch.fnmatchcase(e.id, p) for p in only)]
    return [e for e in chosen if not any(fnmatch.fnmatchcase(e.id, p) for p in skip)]


def table_key(check: Loaded) -> tuple[int, str]:
    """Sort by ``order``, then id; a plugin that failed to load sorts as a default-order check."""
    if isinstance(check, LoadFailure):
        return DEFAULT_ORDER, check.entry.id
    return check.order, check.id


def load(entry: Entry) -> Check | LoadFailure:
    """Import one entry in this process; any failure, including a wrong object, is a LoadFailure.

    Only the worker (and code running inside the user's own job, such as memory_report) calls this: the
    CLI never imports a plugin.
    """
    try:
        obj: object = resolve(entry.value)
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


def find_entry(check_id: str, group: str = CHECKS) -> Entry:
    """The entry of the installed check ``check_id``; UnknownCheckError when none has that id."""
    for entry in find_entries(group):
        if entry.id == check_id:
            return entry
    raise UnknownCheckError(f"no installed check has the id {check_id!r}")


def probes_named(checks: Iterable[Loaded], names: Iterable[str]) -> list[Probe]:
    """The probes of these names that the described checks declare, first declaration first."""
    wanted = list(names)
    found: dict[str, Probe] = {}
    for check in checks:
        if isinstance(check, CheckInfo):
            for probe in check.probes:
                if probe.name in wanted:
                    found.setdefault(probe.name, probe)
    return [found[name] for name in wanted if name in found]
