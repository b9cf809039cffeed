"""Explain an error message or a whole traceback: the cause, the fix and the check to run.

The known messages are data (``torchdoctor.explain_catalogue``): each entry has the patterns that
recognise a message, what it means, the fix, the check that looks at the same thing, and optionally an
analysis that reads numbers out of the message (sizes of an OOM, the driver's CUDA version, a port).
In a traceback the last recognised error is the one that stopped the program, so it leads; the others
follow as "also in this text".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
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
    entry: Entry
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
            "id": self.entry.id,
            "title": self.entry.title,
            "matched": self.line,
            "cause": self.cause,
            "evidence": list(self.evidence),
            "fix": self.fix.to_json(),
            "check": self.check,
            "check_command": self.check_command,
        }


def catalogue() -> tuple[Entry, ...]:
    from torchdoctor.explain_catalogue import CATALOGUE

    return CATALOGUE


def explain(text: str, entries: Sequence[Entry] | None = None) -> list[Explanation]:
    """Every entry that recognises something in ``text``, the last error in the text first."""
    found = []
    for entry in catalogue() if entries is None else entries:
        match = entry.first_match(text)
        if match is None:
            continue
        analysis = entry.analyse(text) if entry.analyse else Analysis()
        found.append(
            Explanation(
                entry=entry,
                line=_line_at(text, match.start()),
                position=_last_position(entry, text),
                evidence=analysis.evidence,
                cause=analysis.cause or entry.cause,
                fix=analysis.fix or entry.fix,
                check=analysis.check or entry.check,
            )
        )
    return sorted(found, key=lambda e: e.position, reverse=True)


def _last_position(entry: Entry, text: str) -> int:
    return max(m.start() for p in entry.compiled for m in p.finditer(text))


def _line_at(text: str, position: int) -> str:
    start = text.rfind("\n", 0, position) + 1
    end = text.find("\n", position)
    line = text[start : end if end != -1 else len(text)].strip()
    return line if len(line) <= 160 else line[:157] + "..."


def format_lines(explanations: Sequence[Explanation]) -> list[str]:
    """The leading explanation in full, then one line for each other message recognised."""
    lead, others = explanations[0], explanations[1:]
    lines = [lead.entry.title, f"  seen:  {lead.line}", f"  cause: {lead.cause}"]
    lines += [f"         {line}" for line in lead.evidence]
    lines.append(f"  fix:   {lead.fix.text}")
    lines += [f"    $ {command}" for command in lead.fix.commands]
    if lead.check_command:
        lines.append(f"  check: {lead.check_command}")
    if others:
        lines.append("")
        lines.append("also in this text:")
        lines += [f"  {other.entry.title}: {other.line}" for other in others]
    return lines
