"""Read back a Markdown report (``torchdoctor report``, the default format) pasted into an issue.

A Markdown report carries its verdicts, the evidence and fix of every problem, and the facts as tables for
people; it holds no facts a judge could read again. What it says is taken as it says it: the verdicts as
recorded on the machine that ran the checks, the header's versions, and where in the text the report sits,
so that nothing inside it (a fact such as ``libcuda.so: cannot open shared object file`` on a machine without
a driver) is mistaken for an error the user met. The reading is one pass over the lines, bounded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from torchdoctor.model import Status

MARKER = "<!-- torchdoctor report: paste it into a GitHub issue as it is -->"
HEADING = "### torchdoctor report"
MAX_VERDICTS = 1000
_STATUSES = {status.value for status in Status}
_CREATED = re.compile(r", (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)$")
_TOTAL = re.compile(r", (\d+(?:\.\d+)?) s$")
_FENCE = re.compile(r"^(`{3,})(\w*)$")
_ESCAPED = re.compile(r"\\(.)")


@dataclass(frozen=True)
class Found:
    data: dict[str, Any]
    """The report as a saved report's JSON: its recorded verdicts, no facts but the header's."""
    start: int
    end: int
    """Where the report sits in the text (offsets), from its first line to the end of its facts block."""


def unescape(text: str) -> str:
    """The prose ``render.markdown.escape`` wrote, as it was."""
    text = text.replace("<br>", "\n")
    text = _ESCAPED.sub(lambda m: m[1], text)
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def uncode(cell: str) -> str:
    """The text of an inline code span ``render.markdown.code`` wrote (any number of backticks)."""
    cell = cell.strip()
    ticks = len(cell) - len(cell.lstrip("`"))
    if ticks == 0 or not cell.endswith("`" * ticks) or len(cell) < 2 * ticks:
        return unescape(cell)
    inner = cell[ticks : len(cell) - ticks]
    if inner.startswith(" ") and inner.endswith(" ") and len(inner) >= 2:
        inner = inner[1:-1]
    return inner.replace("\\|", "|")


def _cells(line: str) -> list[str]:
    """The cells of a table row, split at the pipes that are not escaped."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    cells: list[str] = []
    current: list[str] = []
    escaped = False
    for char in body:
        if char == "|" and not escaped:
            cells.append("".join(current))
            current = []
        else:
            current.append(char)
        escaped = char == "\\" and not escaped
    cells.append("".join(current))
    return [cell.strip() for cell in cells]


def _status(cell: str) -> str | None:
    word = cell.split()[-1] if cell.split() else ""
    return word if word in _STATUSES else None


def find(text: str) -> Found | None:
    """The first Markdown report in ``text``, or None when it holds none."""
    at = text.find(MARKER)
    if at < 0:
        at = text.find(HEADING)
    if at < 0:
        return None
    lines = text[at:].split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    header = _header(lines)
    if header is None:
        return None
    verdicts, index = _verdicts(lines, header["table_at"])
    if not verdicts:
        return None
    index = _problems(lines, index, {v["id"]: v for v in verdicts})
    index = _facts_block(lines, index)
    end = at + min(offsets[index], len(text) - at)
    return Found(_data(header, verdicts), at, end)


def _header(lines: list[str]) -> dict[str, Any] | None:
    """The closing line, the headline with its date, redaction, and where the verdict table starts."""
    found: dict[str, Any] = {"redacted": False}
    for index, raw in enumerate(lines[:12]):
        line = raw.strip()
        if line.startswith("**") and line.endswith("**"):
            found["closing"] = unescape(line.strip("*"))
        elif _CREATED.search(line) and "created_at" not in found:
            found["created_at"] = _CREATED.search(line)[1]  # type: ignore[index]
            found["headline"] = unescape(line[: _CREATED.search(line).start()])  # type: ignore[union-attr]
        elif line.startswith("_Redacted"):
            found["redacted"] = True
        elif line.startswith("| status | check | verdict |"):
            found["table_at"] = index
            break
    if "table_at" not in found or "created_at" not in found:
        return None
    return found


def _verdicts(lines: list[str], table_at: int) -> tuple[list[dict[str, Any]], int]:
    verdicts: list[dict[str, Any]] = []
    index = table_at + 2
    while index < len(lines) and lines[index].startswith("|") and len(verdicts) < MAX_VERDICTS:
        cells = _cells(lines[index])
        status = _status(cells[0]) if len(cells) == 3 else None
        if status is not None and cells[2]:
            verdicts.append(
                {
                    "id": uncode(cells[1]),
                    "title": uncode(cells[1]),
                    "status": status,
                    "summary": unescape(cells[2]),
                    "details": [],
                    "fix": None,
                    "facts": {},
                    "duration_s": 0.0,
                }
            )
        index += 1
    return verdicts, index


def _problems(lines: list[str], index: int, by_id: dict[str, dict[str, Any]]) -> int:
    """The evidence and fix sections under the table, each filling its verdict; returns where they end."""
    current: dict[str, Any] | None = None
    while index < len(lines):
        line = lines[index].rstrip()
        if line.startswith("#### "):
            current = by_id.get(_heading_id(line) or "")
        elif current is not None and _FENCE.match(line):
            block, index = _fenced(lines, index)
            key = "commands" if _FENCE.match(line)[2] == "bash" else "details"  # type: ignore[index]
            if key == "details":
                current["details"] = block
            elif current["fix"] is not None:
                current["fix"]["commands"] = block
            continue
        elif current is not None and line.startswith("**Fix:** "):
            current["fix"] = {"text": unescape(line[len("**Fix:** ") :]), "commands": []}
        elif line and not line.startswith("#### "):
            break
        index += 1
    return index


def _heading_id(line: str) -> str | None:
    """The check id in a problem's heading: its first code span."""
    start = line.find("`")
    if start < 0:
        return None
    ticks = len(line) - start - len(line[start:].lstrip("`"))
    close = line.find("`" * ticks, start + ticks)
    return uncode(line[start : close + ticks]) if close > 0 else None


def _fenced(lines: list[str], index: int) -> tuple[list[str], int]:
    fence = _FENCE.match(lines[index].rstrip())[1]  # type: ignore[index]
    block: list[str] = []
    index += 1
    while index < len(lines) and lines[index].rstrip() != fence:
        block.append(lines[index])
        index += 1
    return block, index + 1


def _facts_block(lines: list[str], index: int) -> int:
    """Past the collapsed facts block that closes the report, when it has one."""
    while index < len(lines) and not lines[index].strip():
        index += 1
    if index >= len(lines) or lines[index].strip() != "<details>":
        return index
    for end in range(index, len(lines)):
        if lines[end].strip() == "</details>":
            return end + 1
    return len(lines)


def _data(header: dict[str, Any], verdicts: list[dict[str, Any]]) -> dict[str, Any]:
    parts = [part.strip() for part in str(header.get("headline") or "").split(" | ")]
    tool = parts[0].split(" ", 1)[1] if parts and parts[0].startswith("torchdoctor ") else "unknown"
    host: dict[str, Any] = {}
    facts: dict[str, Any] = {}
    for part in parts[1:]:
        if part.startswith("Python "):
            host["python"] = part.split(" ", 1)[1]
        elif part.startswith("torch "):
            facts["torch"] = {"importable": True, "version": part.split(" ", 1)[1]}
        elif "os" not in host:
            host["os"] = part
    total = _TOTAL.search(str(header.get("closing") or ""))
    counts = {status: sum(1 for v in verdicts if v["status"] == status) for status in sorted(_STATUSES)}
    return {
        "schema_version": 1,
        "tool": {"name": "torchdoctor", "version": tool},
        "created_at": header["created_at"],
        "host": host,
        "options": {},
        "facts": facts,
        "probe_errors": {},
        "verdicts": verdicts,
        "summary": {**counts, "total": len(verdicts)},
        "exit_code": 0,
        "timings": {"total_s": float(total[1]) if total else 0.0, "probes": {}},
        "redacted": bool(header.get("redacted")),
        "rendered": {"format": "markdown"},
    }
