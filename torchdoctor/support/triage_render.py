"""A triage as plain text for the terminal, or as Markdown to post as a reply to the issue."""

from __future__ import annotations

import io
import textwrap
from typing import TextIO

from torchdoctor.explain import format_lines
from torchdoctor.model import Status
from torchdoctor.render import markdown, text
from torchdoctor.support.triage import Triage


def render_text(triage: Triage, out: TextIO, verbose: bool = False) -> None:
    out.write(f"torchdoctor triage of {triage.source}\n\n")
    if triage.report is not None:
        out.write(f"Environment, from {triage.environment}:\n")
        buffer = io.StringIO()
        text.render(triage.report, buffer, verbose)
        out.write(textwrap.indent(buffer.getvalue(), "  "))
    else:
        out.write("Environment: none shown (no collect_env dump, no torchdoctor report)\n")
    out.write("\n")
    if triage.explanations:
        out.write("Errors quoted:\n")
        out.write(textwrap.indent("\n".join(format_lines(triage.explanations)) + "\n", "  "))
    else:
        out.write("Errors quoted: none torchdoctor knows\n")
    if triage.links:
        out.write("\nWhat the environment says about them:\n")
        for link in triage.links:
            out.write(f"  {link.explanation.title}\n    {link.reading}\n")
    for problem in triage.problems:
        out.write(f"\nnote: {problem}\n")


def render_markdown(triage: Triage, out: TextIO) -> None:
    lines = ["<!-- torchdoctor triage: post it as a reply to the issue -->", "### torchdoctor triage", ""]
    if triage.report is not None:
        closing = text.closing_line(triage.report.verdicts)
        lines.append(
            f"**Environment** ({markdown.escape(str(triage.environment))}): {markdown.escape(closing)}"
        )
        shown = [v for v in triage.report.verdicts if v.status is not Status.SKIP]
        if shown:
            lines += ["", *markdown.verdict_lines(shown)]
        skipped = [v.id for v in triage.report.verdicts if v.status is Status.SKIP]
        if skipped:
            lines += ["", f"{_skipped_line(skipped)}"]
    else:
        lines.append("**Environment**: none shown. Please attach the output of `torchdoctor report`.")
    lines.append("")
    if triage.explanations:
        lines.append("**Errors quoted**")
        for explanation in triage.explanations:
            lines += ["", f"#### {markdown.escape(explanation.title)}", ""]
            lines.append(f"Seen: {markdown.code(explanation.line)}  ")
            lines.append(f"Cause: {markdown.escape(explanation.cause)}  ")
            lines.append(f"**Fix:** {markdown.escape(explanation.fix.text)}")
            if explanation.fix.commands:
                lines += ["", *markdown.fenced(explanation.fix.commands, "bash")]
    else:
        lines.append("**Errors quoted**: none torchdoctor knows.")
    if triage.links:
        lines += ["", "**What the environment says about them**", ""]
        lines += [
            f"- {markdown.escape(link.explanation.title)}: {markdown.escape(link.reading)}"
            for link in triage.links
        ]
    out.write("\n".join(lines) + "\n")


def _skipped_line(ids: list[str]) -> str:
    """The skipped checks in one line: a reply on an issue does not list what could not be answered."""
    named = ", ".join(markdown.code(i) for i in ids)
    checks = f"{len(ids)} check{'s' if len(ids) != 1 else ''}"
    return f"{checks} skipped (not answerable from what is shown here): {named}."
