"""``torchdoctor diff A B``: what differs between two saved reports that matters for training."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from torchdoctor.commands.common import BadInput

if TYPE_CHECKING:
    from torchdoctor.inputs.saved import SavedReport


def diff(
    a: Annotated[Path, typer.Argument(metavar="A", help="A saved JSON report (the one that works).")],
    b: Annotated[Path, typer.Argument(metavar="B", help="Another saved JSON report.")],
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the differences as a JSON list.")
    ] = False,
) -> None:
    """Compare two saved reports for what matters to training.

    Versions, driver, GPUs, visible-device mapping, environment variables and verdicts. Exit code 0: no
    differences; 1: differences."""
    from torchdoctor.checking import exitcodes
    from torchdoctor.inputs import saved
    from torchdoctor.output import redact, streams
    from torchdoctor.support import diff as differ

    try:
        first, second = saved.load(a), saved.load(b)
    except saved.SavedReportError as exc:
        raise BadInput(str(exc)) from None
    # Printed redacted: each machine's name as a pseudonym of its own ("works on A, not on B").
    streams.hide_hostnames(redact.report_hosts(first.data) + redact.report_hosts(second.data))
    differences = differ.compare(first.data, second.data)
    if json_output:
        rows = streams.redacted_value([d.to_json() for d in differences])
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
    else:
        typer.echo(f"A: {_describe(first)}")
        typer.echo(f"B: {_describe(second)}")
        typer.echo("")
        if differences:
            for line in differ.format_lines(differences):
                typer.echo(line)
            typer.echo("")
            typer.echo(f"{len(differences)} difference{'' if len(differences) == 1 else 's'}")
        else:
            typer.echo("no differences")
    raise typer.Exit(exitcodes.THRESHOLD if differences else exitcodes.OK)


def _describe(report: SavedReport) -> str:
    from torchdoctor.output.inert import shown

    data = report.data
    host = data["host"].get("hostname") or "unknown host"
    redacted = ", redacted" if report.redacted else ""
    written = f"{data.get('created_at')}, torchdoctor {report.tool_version}{redacted}"
    return f"{shown(report.path)} ({host}, {written})"
