"""The verdict table in colour, for a terminal (rich)."""

from __future__ import annotations

from typing import TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from torchdoctor.model import Report, Status
from torchdoctor.render.text import closing_line, detail_lines, headline, shows_evidence

STYLES = {
    Status.PASS: ("✓ pass", "bold green"),
    Status.WARN: ("! warn", "bold yellow"),
    Status.FAIL: ("✗ fail", "bold red"),
    Status.SKIP: ("- skip", "dim"),
    Status.ERROR: ("☠ error", "bold magenta"),
}


def build_table(report: Report, verbose: bool = False) -> Table:
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False, expand=False)
    table.add_column("status", no_wrap=True)
    table.add_column("check", style="cyan", no_wrap=True)
    table.add_column("verdict", overflow="fold")
    for verdict in report.verdicts:
        label, style = STYLES[verdict.status]
        summary = Text(verdict.summary)
        if verbose:
            summary.append(f"  ({verdict.duration_s:.2f} s)", style="dim")
        table.add_row(Text(label, style=style), verdict.id, summary)
        if not shows_evidence(verdict, verbose):
            continue
        for line in detail_lines(verdict.details):
            table.add_row("", "", Text(line, style="dim"))
        if verdict.fix is not None:
            table.add_row("", "", Text.assemble(("fix: ", "bold"), verdict.fix.text))
            for command in verdict.fix.commands:
                table.add_row("", "", Text(f"  $ {command}", style="bold"))
    return table


def render(report: Report, out: TextIO, verbose: bool = False, console: Console | None = None) -> None:
    console = console or Console(file=out, highlight=False, soft_wrap=False)
    console.print(Text(headline(report), style="bold"))
    console.print()
    console.print(build_table(report, verbose))
    console.print()
    worst = max((v.status.severity for v in report.verdicts), default=0)
    style = (
        "green" if worst <= Status.PASS.severity else ("yellow" if worst == Status.WARN.severity else "red")
    )
    console.print(Text(closing_line(report.verdicts, report.timings.get("total_s")), style=f"bold {style}"))
