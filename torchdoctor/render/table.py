"""The verdict table in colour, for a terminal (rich).

Laid out here rather than by a rich Table: a table cell folds a word longer than its column, so a path or a
URL would be split across lines (and no longer copy or open as one). Lines break at spaces only; a word
longer than the line stays whole and runs past the edge, where the terminal wraps it softly.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TextIO

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions
from rich.text import Text

from torchdoctor.model import Report, Status, Verdict
from torchdoctor.render.text import closing_line, detail_lines, headline, shows_evidence

STYLES = {
    Status.PASS: ("✓ pass", "bold green"),
    Status.WARN: ("! warn", "bold yellow"),
    Status.FAIL: ("✗ fail", "bold red"),
    Status.SKIP: ("- skip", "dim"),
    Status.ERROR: ("☠ error", "bold magenta"),
}
GAP = "  "
MIN_TEXT_WIDTH = 30


def wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` columns, broken at spaces only: a longer word keeps a line."""
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        if current and cell_len(current) + 1 + cell_len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    lines.append(current)
    return lines


def _columns(report: Report) -> tuple[int, int]:
    status = max(cell_len(label) for label, _ in STYLES.values())
    check = max((len(v.id) for v in report.verdicts), default=5)
    return status, max(check, len("check"))


def _cells(verdict: Verdict, verbose: bool) -> Iterator[Text]:
    """The verdict column of one check: its summary, then its evidence and fix when they are shown."""
    summary = Text(verdict.summary)
    if verbose:
        summary.append(f"  ({verdict.duration_s:.2f} s)", style="dim")
    yield summary
    if not shows_evidence(verdict, verbose):
        return
    for line in detail_lines(verdict.details):
        yield Text(line, style="dim")
    if verdict.fix is not None:
        yield Text.assemble(("fix: ", "bold"), verdict.fix.text)
        for command in verdict.fix.commands:
            yield Text(f"  $ {command}", style="bold")


def _wrapped(cell: Text, width: int) -> list[Text]:
    lines, start = [], 0
    for line in wrap(cell.plain, width):
        start = cell.plain.find(line, start)
        lines.append(cell[start : start + len(line)])
        start += len(line)
    return lines


def layout_width(report: Report, verbose: bool = False) -> int:
    """The narrowest width at which no line of the table has to run past the edge."""
    status, check = _columns(report)
    indent = status + len(GAP) + check + len(GAP)
    longest = max(
        (
            cell_len(word)
            for v in report.verdicts
            for cell in _cells(v, verbose)
            for word in cell.plain.split(" ")
        ),
        default=0,
    )
    return indent + longest


def table_lines(report: Report, verbose: bool, width: int) -> Iterator[Text]:
    """The header and every verdict's lines, laid out for ``width`` columns."""
    status_width, check_width = _columns(report)
    indent = " " * (status_width + len(GAP) + check_width + len(GAP))
    text_width = max(width - len(indent), MIN_TEXT_WIDTH)
    yield Text(f"{'status':<{status_width}}{GAP}{'check':<{check_width}}{GAP}verdict", style="bold")
    for verdict in report.verdicts:
        label, style = STYLES[verdict.status]
        lead = Text.assemble(
            (label, style),
            " " * (status_width - cell_len(label)) + GAP,
            (f"{verdict.id:<{check_width}}", "cyan"),
            GAP,
        )
        first = True
        for cell in _cells(verdict, verbose):
            for line in _wrapped(cell, text_width):
                yield Text.assemble(lead if first else indent, line, no_wrap=True, overflow="ignore")
                first = False


class VerdictTable:
    """The table as a rich renderable (``print(rich_object)`` in a notebook, ``MemoryReport.__rich__``)."""

    def __init__(self, report: Report, verbose: bool = False) -> None:
        self.report = report
        self.verbose = verbose

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Text]:
        yield from table_lines(self.report, self.verbose, options.max_width)


def build_table(report: Report, verbose: bool = False) -> VerdictTable:
    return VerdictTable(report, verbose)


def render(report: Report, out: TextIO, verbose: bool = False, console: Console | None = None) -> None:
    console = console or Console(file=out, highlight=False, soft_wrap=False)
    console.print(Text(headline(report), style="bold"))
    console.print()
    for line in table_lines(report, verbose, console.width):
        console.print(line, soft_wrap=True)
    console.print()
    worst = max((v.status.severity for v in report.verdicts), default=0)
    style = (
        "green" if worst <= Status.PASS.severity else ("yellow" if worst == Status.WARN.severity else "red")
    )
    console.print(Text(closing_line(report.verdicts, report.timings.get("total_s")), style=f"bold {style}"))
