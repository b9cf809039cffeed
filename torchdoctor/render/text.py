"""The verdict table as plain text: for pipes, logs, NO_COLOR, and anything that is not a colour terminal."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TextIO

from torchdoctor.model import Detail, Report, Status, Verdict

LABELS = {
    Status.PASS: "PASS",
    Status.WARN: "WARN",
    Status.FAIL: "FAIL",
    Status.SKIP: "SKIP",
    Status.ERROR: "ERROR",
}
_NOUNS = ((Status.WARN, "warning"), (Status.FAIL, "failure"), (Status.ERROR, "error"))


def headline(report: Report) -> str:
    host = report.host
    parts = [f"torchdoctor {report.tool_version}"]
    if host.get("os"):
        machine = str(host.get("machine") or "")
        parts.append(host["os"] if machine in host["os"] else f"{host['os']} {machine}")
    if host.get("python"):
        parts.append(f"Python {host['python']}")
    torch_facts = report.facts.get("torch") or {}
    if torch_facts.get("importable"):
        parts.append(f"torch {torch_facts.get('version')}")
    return " | ".join(parts)


def closing_line(verdicts: Iterable[Verdict], total_s: float | None = None) -> str:
    verdicts = list(verdicts)
    counts = {status: sum(1 for v in verdicts if v.status is status) for status in Status}
    parts = [f"{counts[s]} {noun}{'' if counts[s] == 1 else 's'}" for s, noun in _NOUNS if counts[s]]
    checks = f"{len(verdicts)} check{'' if len(verdicts) == 1 else 's'}"
    line = f"{', '.join(parts)} in {checks}" if parts else f"no problems in {checks}"
    if counts[Status.SKIP]:
        line += f" ({counts[Status.SKIP]} skipped)"
    if total_s is not None:
        line += f", {total_s:.1f} s"
    return line


def format_detail(detail: Detail) -> str:
    if isinstance(detail, str):
        return detail
    return "  ".join(f"{key}={_scalar(value)}" for key, value in detail.items())


def _scalar(value: Any) -> str:
    return "-" if value is None else str(value)


def shows_evidence(verdict: Verdict, verbose: bool) -> bool:
    return verbose or verdict.status in (Status.WARN, Status.FAIL, Status.ERROR)


def render(report: Report, out: TextIO, verbose: bool = False) -> None:
    out.write(headline(report) + "\n\n")
    width = max((len(v.id) for v in report.verdicts), default=10)
    indent = " " * (7 + width + 2)
    for verdict in report.verdicts:
        out.write(f"{LABELS[verdict.status]:<6} {verdict.id:<{width}}  {verdict.summary}\n")
        if shows_evidence(verdict, verbose):
            for line in detail_lines(verdict.details):
                out.write(f"{indent}{line}\n")
            if verdict.fix is not None:
                out.write(f"{indent}fix: {verdict.fix.text}\n")
                for command in verdict.fix.commands:
                    out.write(f"{indent}  $ {command}\n")
        if verbose:
            out.write(f"{indent}({verdict.duration_s:.2f} s)\n")
    out.write("\n" + closing_line(report.verdicts, report.timings.get("total_s")) + "\n")


def detail_lines(details: Iterable[Detail]) -> list[str]:
    details = list(details)
    rows = [d for d in details if isinstance(d, Mapping)]
    if not rows:
        return [str(d) for d in details]
    # Rows share columns: align them as a small table.
    columns = list(dict.fromkeys(key for row in rows for key in row))
    widths = {c: max(len(c), *(len(_scalar(row.get(c))) for row in rows)) for c in columns}
    lines: list[str] = []
    header_done = False
    for detail in details:
        if isinstance(detail, str):
            lines.append(detail)
            continue
        if not header_done:
            lines.append("  ".join(f"{c:<{widths[c]}}" for c in columns).rstrip())
            header_done = True
        lines.append("  ".join(f"{_scalar(detail.get(c)):<{widths[c]}}" for c in columns).rstrip())
    return lines
