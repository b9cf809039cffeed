"""What ``torchdoctor explain`` knows and answers: catalogue entries, what their analysis read, explanations.

A catalogue is a tuple of :class:`Entry` objects named in the entry-point group ``torchdoctor.explanations``;
torchdoctor's own entries are registered there by area (``torchdoctor.checks.install.explanations`` and so
on), a plugin adds its own the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from torchdoctor.model import Fix


@dataclass(frozen=True)
class Analysis:
    """What an entry's analysis read out of the message: evidence lines, and a fix that fits it better."""

    evidence: tuple[str, ...] = ()
    fix: Fix | None = None
    cause: str | None = None
    check: str | None = None


@dataclass(frozen=True)
class Entry:
    id: str
    title: str
    patterns: tuple[str, ...]
    cause: str
    fix: Fix
    check: str | None = None
    source: str = ""
    """Where the message text comes from (torch source, a research note, an issue)."""
    analyse: Callable[[str], Analysis] | None = None
    compiled: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "compiled", tuple(re.compile(p, re.IGNORECASE) for p in self.patterns))

    def first_match(self, text: str) -> re.Match[str] | None:
        matches = [m for m in (p.search(text) for p in self.compiled) if m is not None]
        return min(matches, key=lambda m: m.start()) if matches else None


@dataclass(frozen=True)
class Explanation:
    """One recognised message: what it is, the line where it was seen, the cause, the evidence, the fix."""

    id: str
    title: str
    line: str
    """The line of the text where the message was recognised."""
    position: int
    evidence: tuple[str, ...]
    cause: str
    fix: Fix
    check: str | None

    @property
    def check_command(self) -> str | None:
        return f"torchdoctor check --only {self.check}" if self.check else None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "matched": self.line,
            "position": self.position,
            "cause": self.cause,
            "evidence": list(self.evidence),
            "fix": self.fix.to_json(),
            "check": self.check,
            "check_command": self.check_command,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Explanation:
        fix = Fix.from_json(data["fix"])
        if fix is None:
            raise ValueError("an explanation has a fix")
        return cls(
            id=str(data["id"]),
            title=str(data["title"]),
            line=str(data["matched"]),
            position=int(data["position"]),
            evidence=tuple(str(e) for e in data.get("evidence") or ()),
            cause=str(data["cause"]),
            fix=fix,
            check=None if data.get("check") is None else str(data["check"]),
        )
