"""``torchdoctor explain [TEXT]``: the cause and the fix of an error message or a traceback."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from torchdoctor.commands.common import BadInput


def explain(
    text: Annotated[
        str | None,
        typer.Argument(
            metavar="[TEXT]", help="The error message or traceback; read from stdin when left out."
        ),
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the explanations as JSON.")] = False,
) -> None:
    """Explain an error message or a whole traceback: the cause, the fix and the check to run.
    Exit code 0: explained; 1: not a message torchdoctor knows."""
    from torchdoctor import exitcodes
    from torchdoctor import explain as explainer

    if text is None or text == "-":
        if sys.stdin.isatty():
            sys.stderr.write("torchdoctor: paste the error message, then press Ctrl-D\n")
        text = sys.stdin.read()
    if not text.strip():
        raise BadInput("no error message given: pass it as an argument or on stdin")
    explanations = explainer.explain(text)
    if json_output:
        typer.echo(json.dumps([e.to_json() for e in explanations], indent=2, ensure_ascii=False))
    elif explanations:
        for line in explainer.format_lines(explanations):
            typer.echo(line)
    else:
        typer.echo("torchdoctor does not know this message.")
        typer.echo("Run the checks to look at the environment behind it: torchdoctor check -v")
    raise typer.Exit(exitcodes.OK if explanations else exitcodes.THRESHOLD)
