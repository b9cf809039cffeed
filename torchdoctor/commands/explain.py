"""``torchdoctor explain [TEXT]``: the cause and the fix of an error message or a traceback."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import typer

from torchdoctor.commands.common import BadInput
from torchdoctor.output import messages

if TYPE_CHECKING:
    from torchdoctor.explain import Explanation


def explain(
    text: Annotated[
        str | None,
        typer.Argument(
            metavar="[TEXT]", help="The error message or traceback; read from stdin when left out."
        ),
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the explanations as JSON.")] = False,
) -> None:
    """Explain an error message or traceback: its cause and its fix.

    The cause, the fix and the check to run; in a whole traceback the last error leads. Exit code 0:
    explained; 1: not a message torchdoctor knows."""
    from torchdoctor.checking import exitcodes, runner
    from torchdoctor.explain import catalogue, format_lines

    text = read_text(text, "error message")
    with runner.Session(runner.host_worker) as session:
        explanations, problems = explained(text, catalogue.asking(session))
    for problem in problems:
        sys.stderr.write(messages.warning_line(f"{problem}; its messages are left out"))
    if json_output:
        from torchdoctor.output import streams

        rows = streams.redacted_value([e.to_json() for e in explanations])
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
    elif explanations:
        for line in format_lines(explanations):
            typer.echo(line)
    else:
        typer.echo("torchdoctor does not know this message.")
        typer.echo("Run the checks to look at the environment behind it: torchdoctor check -v")
    raise typer.Exit(exitcodes.OK if explanations else exitcodes.THRESHOLD)


def explained(
    text: str, call: Callable[[dict[str, object]], dict[str, object]]
) -> tuple[list[Explanation], list[str]]:
    """What explain shows for ``text``: a pasted ``torchdoctor run`` report's own explanations first, then
    what the installed catalogues match (each asked through ``call``, a worker request); and the catalogues
    that gave no answer."""
    from torchdoctor.explain import catalogue
    from torchdoctor.runtime import readback

    matched = catalogue.explain_in_worker(text, call)
    return readback.explanations(text) + matched.explanations, matched.problems


def read_text(text: str | None, what: str) -> str:
    """The text given as an argument, or read from stdin (``-`` or nothing): bounded, UTF-8, not blank."""
    from torchdoctor.inputs import bounded

    if text is None or text == "-":
        if bounded.stdin_is_terminal():
            sys.stderr.write(messages.note_line(f"paste the {what}, then press Ctrl-D"))
        try:
            text = bounded.read_stdin_text()
        except bounded.InputError as exc:
            raise BadInput(str(exc)) from None
    elif len(text) > bounded.MAX_STDIN_BYTES:
        raise BadInput(
            f"the {what} is longer than the {bounded.MAX_STDIN_BYTES // 2**20} MiB torchdoctor reads"
        )
    if not text.strip():
        raise BadInput(f"no {what} given: pass it as an argument or on stdin")
    return text
