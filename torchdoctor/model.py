"""The vocabulary of a run: statuses, findings, verdicts and the report.

Everything here is plain data that converts to and from the JSON report; the
names and values are part of the JSON contract (schema version 1).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

SCHEMA_VERSION = 1

Detail = str | Mapping[str, Any]
"""One line of evidence, or one row of a small table (a mapping of column to value)."""


class Status(str, Enum):
    # str and Enum rather than enum.StrEnum (3.11+): str() and format() give the value, as StrEnum's do.
    __str__ = str.__str__

    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    SKIP = "skip"
    ERROR = "error"

    @property
    def severity(self) -> int:
        """Order used to pick the worst of several findings: skip < pass < warn < error < fail."""
        return _SEVERITY[self]


_SEVERITY = {Status.SKIP: 0, Status.PASS: 1, Status.WARN: 2, Status.ERROR: 3, Status.FAIL: 4}


@dataclass(frozen=True)
class Fix:
    """What to do about a finding: a sentence, and commands to run where there are any."""

    text: str
    commands: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "commands": list(self.commands)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> Fix | None:
        if data is None:
            return None
        if not isinstance(data, Mapping) or not isinstance(data.get("text"), str):
            raise ValueError("a fix is an object with a text")
        commands = data.get("commands") or ()
        if not isinstance(commands, list | tuple) or not all(isinstance(c, str) for c in commands):
            raise ValueError("the commands of a fix are not a list of strings")
        return cls(text=data["text"], commands=tuple(commands))


@dataclass(frozen=True)
class Finding:
    """What a judge returns: a status, a one-line summary, the evidence and the fix.

    ``facts`` names what the judge looked at; when a judge leaves it empty the
    verdict carries the facts of the check's probes.
    """

    status: Status
    summary: str
    details: tuple[Detail, ...] = ()
    fix: Fix | None = None
    facts: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "summary": self.summary,
            "details": [d if isinstance(d, str) else dict(d) for d in self.details],
            "fix": self.fix.to_json() if self.fix else None,
            "facts": dict(self.facts),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Finding:
        """A Finding from what a judge returned in the worker; raises ValueError for any other shape."""
        if not isinstance(data, Mapping):
            raise ValueError("a finding is an object")
        summary, details, facts = data.get("summary"), data.get("details") or [], data.get("facts") or {}
        if not isinstance(summary, str):
            raise ValueError("its summary is not a string")
        if not isinstance(details, list) or not all(isinstance(d, str | dict) for d in details):
            raise ValueError("its details are not a list of lines and rows")
        if not isinstance(facts, dict):
            raise ValueError("its facts are not an object")
        return cls(
            Status(str(data.get("status"))), summary, tuple(details), Fix.from_json(data.get("fix")), facts
        )

    @staticmethod
    def combine(
        findings: Sequence[Finding], *, facts: Mapping[str, Any] | None = None, ok: Finding | None = None
    ) -> Finding:
        """Merge several findings into one: the worst one leads, the others become evidence.

        ``ok`` is returned (with ``facts``) when ``findings`` is empty.
        """
        if not findings:
            if ok is None:
                raise ValueError("combine() needs findings or an ok finding")
            return Finding(
                ok.status, ok.summary, ok.details, ok.fix, facts if facts is not None else ok.facts
            )
        ranked = sorted(findings, key=lambda f: f.status.severity, reverse=True)
        lead = ranked[0]
        details: list[Detail] = list(lead.details)
        fixes = [f.fix for f in ranked if f.fix is not None]
        for other in ranked[1:]:
            details.append(f"{other.status.value}: {other.summary}")
            details.extend(other.details)
        fix = _merge_fixes(fixes)
        return Finding(
            lead.status, lead.summary, tuple(details), fix, facts if facts is not None else lead.facts
        )


def _merge_fixes(fixes: Sequence[Fix]) -> Fix | None:
    if not fixes:
        return None
    if len(fixes) == 1:
        return fixes[0]
    texts: list[str] = []
    commands: list[str] = []
    for fix in fixes:  # a text another one already says in full is said once
        if not any(fix.text in kept for kept in texts):
            texts = [kept for kept in texts if kept not in fix.text] + [fix.text]
        commands.extend(c for c in fix.commands if c not in commands)
    return Fix(" ".join(texts), tuple(commands))


@dataclass(frozen=True)
class Verdict:
    id: str
    title: str
    status: Status
    summary: str
    details: tuple[Detail, ...] = ()
    fix: Fix | None = None
    facts: Mapping[str, Any] = field(default_factory=dict)
    duration_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "status": self.status.value,
            "summary": self.summary,
            "details": [d if isinstance(d, str) else dict(d) for d in self.details],
            "fix": self.fix.to_json() if self.fix else None,
            "facts": dict(self.facts),
            "duration_s": round(self.duration_s, 4),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Verdict:
        return cls(
            id=str(data["id"]),
            title=str(data["title"]),
            status=Status(data["status"]),
            summary=str(data["summary"]),
            details=tuple(data.get("details") or ()),
            fix=Fix.from_json(data.get("fix")),
            facts=dict(data.get("facts") or {}),
            duration_s=float(data.get("duration_s") or 0.0),
        )


def count_statuses(verdicts: Iterable[Verdict]) -> dict[str, int]:
    counts = {status.value: 0 for status in Status}
    for verdict in verdicts:
        counts[verdict.status.value] += 1
    return counts


@dataclass
class Report:
    """The one object renderers read and the one thing saved to disk."""

    tool_version: str
    created_at: str
    host: dict[str, Any]
    options: dict[str, Any]
    facts: dict[str, Any]
    verdicts: list[Verdict]
    timings: dict[str, Any]
    exit_code: int = 0
    probe_errors: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    worker_log: str = ""
    """The worker's stderr, shown with -v; not part of the saved report."""

    def summary(self) -> dict[str, int]:
        counts = count_statuses(self.verdicts)
        counts["total"] = len(self.verdicts)
        return counts

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "tool": {"name": "torchdoctor", "version": self.tool_version},
            "created_at": self.created_at,
            "host": self.host,
            "options": self.options,
            "facts": self.facts,
            "probe_errors": self.probe_errors,
            "verdicts": [v.to_json() for v in self.verdicts],
            "summary": self.summary(),
            "exit_code": self.exit_code,
            "timings": self.timings,
        }
        data.update(self.extra)
        return data
