"""``torchdoctor triage [FILE]``: a pasted issue's environment judged and its errors explained, together."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from torchdoctor.commands.common import (
    BadInput,
    FailOnOption,
    IdsOption,
    RedactOption,
    SkipOption,
    fail_on_status,
    redaction,
    run_context,
    select_checks,
    shareable,
)
from torchdoctor.output import messages

FORMATS = ("text", "md", "json")


def _complete_formats(incomplete: str) -> list[str]:
    return [name for name in FORMATS if name.startswith(incomplete)]


def triage(
    ctx: typer.Context,
    source: Annotated[
        str | None,
        typer.Argument(
            metavar="[FILE]",
            help="The issue or ticket text: a file, or - (or nothing) to read stdin.",
        ),
    ] = None,
    output_format: Annotated[
        str,
        typer.Option(
            "--format",
            metavar="text|md|json",
            help="text for the terminal; md: a reply to post on the issue; json for tools.",
            autocompletion=_complete_formats,
        ),
    ] = "text",
    json_output: Annotated[bool, typer.Option("--json", help="The same as --format json.")] = False,
    only: IdsOption = None,
    skip: SkipOption = None,
    fail_on: FailOnOption = "fail",
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Evidence for every check.")] = False,
    redact: RedactOption = True,
) -> None:
    """Triage an issue: judge its environment, explain its errors.

    Judge the collect_env dump or torchdoctor report in a pasted issue, explain the errors it quotes, and say
    which verdict explains which error. Exit codes as for check; 2 also when the text shows no environment
    and no error torchdoctor knows."""
    from torchdoctor.render import json as json_renderer
    from torchdoctor.support import triage as triaging
    from torchdoctor.support import triage_render as renderer

    if json_output:
        output_format = "json"
    if output_format not in FORMATS:
        raise BadInput(f"--format must be one of {', '.join(FORMATS)}, not {output_format!r}")
    threshold = fail_on_status(fail_on)
    redaction(redact)
    run = run_context(ctx)
    chosen = select_checks(run.checks, only, skip)
    name, text = _read(source)
    try:
        found = triaging.triage(text, name, chosen, run.require_workers(), threshold)
    except triaging.NothingToTriage as exc:
        raise BadInput(str(exc)) from None
    if found.report is not None:
        found.report = shareable(found.report, redact)
    if output_format == "json":
        from torchdoctor.output import streams

        sys.stdout.write(json_renderer.dumps(streams.redacted_value(found.to_json())) + "\n")
    elif output_format == "md":
        renderer.render_markdown(found, sys.stdout)
    else:
        renderer.render_text(found, sys.stdout, verbose)
    raise typer.Exit(found.exit_code)


def _read(source: str | None) -> tuple[str, str]:
    """The text to triage and the name to call it by: a file (bounded, regular), or stdin."""
    from torchdoctor.inputs import bounded
    from torchdoctor.output import inert

    if source is None or source == "-":
        if bounded.stdin_is_terminal():
            sys.stderr.write(messages.note_line("paste the issue, then press Ctrl-D"))
        name = "stdin"
        try:
            text = bounded.read_stdin_text()
        except bounded.InputError as exc:
            raise BadInput(str(exc)) from None
    else:
        name = inert.shown(source)
        try:
            text = bounded.decode(bounded.read_file(Path(source), bounded.MAX_STDIN_BYTES, "issue"), name)
        except bounded.InputError as exc:
            raise BadInput(str(exc)) from None
    if not text.strip():
        raise BadInput(f"{name} is empty: paste the issue text, its collect_env output and its traceback")
    return name, text
