"""Match a text against catalogue entries: every entry that recognises something, the last error first.

In a traceback the last recognised error is the one that stopped the program, so it leads; the others
follow as "also in this text". Pure: no I/O; the catalogue is passed in.
"""

from __future__ import annotations

from collections.abc import Sequence

from torchdoctor.explain.model import Analysis, Entry, Explanation


def explain(text: str, entries: Sequence[Entry]) -> list[Explanation]:
    """Every entry that recognises something in ``text``, the last error in the text first."""
    found = []
    for entry in entries:
        match = entry.first_match(text)
        if match is None:
            continue
        analysis = entry.analyse(text) if entry.analyse else Analysis()
        found.append(
            Explanation(
                id=entry.id,
                title=entry.title,
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
