"""The report as GitHub-flavoured Markdown, ready to paste into an issue.

The verdict table comes first, then the evidence and fix of every problem, then the facts behind them in
a collapsed ``<details>`` block. Text is escaped so that nothing in it becomes markup: a placeholder such
as ``<user>`` would otherwise vanish as an unknown HTML tag.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TextIO

from torchdoctor.model import Report, Status, Verdict
from torchdoctor.render import sections
from torchdoctor.render.text import closing_line, detail_lines, headline

ICONS = {
    Status.PASS: "✅ pass",
    Status.WARN: "⚠️ warn",
    Status.FAIL: "❌ fail",
    Status.SKIP: "➖ skip",
    Status.ERROR: "☠️ error",
}
# Intraword _ and * are literal in GitHub's Markdown (x86_64, sm_90): left alone for readable source.
_MARKUP = re.compile(r"([\\`{}\[\]<>|#!~&]|(?<![A-Za-z0-9])[_*]|[_*](?![A-Za-z0-9]))")
_ENTITIES = {"<": "&lt;", ">": "&gt;", "&": "&amp;"}


def escape(text: str) -> str:
    """Prose that renders as itself: markup characters escaped, line breaks kept inside a table cell."""
    escaped = _MARKUP.sub(lambda m: _ENTITIES.get(m[1], "\\" + m[1]), text)
    return escaped.replace("\r\n", "\n").replace("\n", "<br>")


def code(text: str) -> str:
    """An inline code span that holds any text, backticks and pipes included."""
    text = text.replace("\n", " ").replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    padding = " " if text.startswith("`") or text.endswith("`") or longest else ""
    return f"{fence}{padding}{text}{padding}{fence}"


def fenced(lines: Iterable[str], language: str = "text") -> list[str]:
    body = list(lines)
    longest = max((len(run) for line in body for run in re.findall(r"`{3,}", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{language}", *body, fence]


def render_text(report: Report) -> str:
    lines = [
        "<!-- torchdoctor report: paste it into a GitHub issue as it is -->",
        "### torchdoctor report",
        "",
    ]
    lines.append(f"**{escape(closing_line(report.verdicts, report.timings.get('total_s')))}**  ")
    lines.append(escape(headline(report)) + f", {escape(report.created_at)}")
    if report.extra.get("redacted"):
        lines.append("")
        lines.append(
            "_Redacted: secrets, credentials in URLs, the home directory (~), the user name and host names "
            "are replaced, GPU UUIDs shortened._"
        )
    lines += ["", *verdict_lines(report.verdicts)]
    shown = sections.sections(report.to_json())
    if shown:
        titles = ", ".join(section.title.split(" (")[0] for section in shown)
        lines += ["", "<details>", f"<summary>Facts: {escape(titles)}</summary>", ""]
        for section in shown:
            lines += [*_section(section), ""]
        lines.append("</details>")
    return "\n".join(lines) + "\n"


def render(report: Report, out: TextIO) -> None:
    out.write(render_text(report))


def verdict_lines(verdicts: Sequence[Verdict]) -> list[str]:
    """The verdict table, then the evidence and fix of every problem."""
    lines = ["| status | check | verdict |", "|---|---|---|"]
    lines += [f"| {ICONS[v.status]} | {code(v.id)} | {escape(v.summary)} |" for v in verdicts]
    for verdict in verdicts:
        if verdict.status in (Status.WARN, Status.FAIL, Status.ERROR):
            lines += ["", *_problem(verdict)]
    return lines


def _problem(verdict: Verdict) -> list[str]:
    lines = [f"#### {ICONS[verdict.status]} {code(verdict.id)}: {escape(verdict.summary)}"]
    evidence = detail_lines(verdict.details)
    if evidence:
        lines += ["", *fenced(evidence)]
    if verdict.fix is not None:
        lines += ["", f"**Fix:** {escape(verdict.fix.text)}"]
        if verdict.fix.commands:
            lines += ["", *fenced(verdict.fix.commands, "bash")]
    return lines


def _section(section: sections.Section) -> list[str]:
    lines = [f"#### {escape(section.title)}", ""]
    if section.columns == ("name", "value"):
        lines += ["| | |", "|---|---|"]
        lines += [f"| {escape(name)} | {code(value)} |" for name, value in section.rows]
        return lines
    lines.append("| " + " | ".join(escape(c) for c in section.columns) + " |")
    lines.append("|" + "---|" * len(section.columns))
    lines += ["| " + " | ".join(code(cell) for cell in row) + " |" for row in section.rows]
    return lines
