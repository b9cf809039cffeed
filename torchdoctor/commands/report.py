"""``torchdoctor report``: the support-ticket attachment, redacted, written atomically."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from torchdoctor.commands.common import (
    DEFAULT_TIMEOUT_S,
    BadInput,
    FromOption,
    IdsOption,
    RedactOption,
    SkipOption,
    TimeoutOption,
    judged_from,
    redaction,
    run_context,
    run_options,
    select_checks,
    shareable,
    timeout_seconds,
    validate_in_worker,
)
from torchdoctor.output import files
from torchdoctor.output.inert import inert

if TYPE_CHECKING:
    from torchdoctor.model import Report

FORMATS = ("md", "json", "html", "svg")
FORMAT_NAMES = {"md": "Markdown", "json": "JSON", "html": "HTML", "svg": "SVG"}
_SUFFIXES = {".md": "md", ".markdown": "md", ".json": "json", ".html": "html", ".htm": "html", ".svg": "svg"}
DEFAULT_STEM = "torchdoctor-report"


def _complete_formats(incomplete: str) -> list[str]:
    return [name for name in FORMATS if name.startswith(incomplete)]


def report(
    ctx: typer.Context,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            help=f"Where to write it (default: ./{DEFAULT_STEM}.md, or .json/.html/.svg after --format).",
        ),
    ] = None,
    output_format: Annotated[
        str | None,
        typer.Option(
            "--format",
            metavar="md|json|html|svg",
            help="md: paste into a GitHub issue (the default); json: for check --from and diff; "
            "html, svg: the colour table. Default: from the -o suffix, else md.",
            autocompletion=_complete_formats,
        ),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite FILE if it exists.")] = False,
    redact: RedactOption = True,
    preview: Annotated[
        bool, typer.Option("--preview", help="Print what would be shared on stdout and write nothing.")
    ] = False,
    only: IdsOption = None,
    skip: SkipOption = None,
    timeout: TimeoutOption = DEFAULT_TIMEOUT_S,
    from_file: FromOption = None,
    declared: dict[str, Any] | None = None,
    given: set[str] | None = None,
) -> None:
    """Write a redacted report to attach to a support ticket.

    The verdicts and the facts behind them, redacted. With --from, the report of a saved JSON report (its
    facts judged with today's rules)."""
    from torchdoctor.commands import progress as live
    from torchdoctor.model import Status
    from torchdoctor.support import ticket

    fmt = resolve_format(output_format, output)
    target = None if preview else writable(output or Path(f"{DEFAULT_STEM}.{fmt}"), force)
    timeout_seconds(timeout)
    run = run_context(ctx)
    options = run_options(run.declared, declared or {}, timeout)
    if from_file is not None:
        redaction(redact)
        gathered = judged_from(ctx, from_file, only, skip, Status.FAIL, options, given or set())
    else:
        checks = select_checks(run.checks, only, skip)
        options = validate_in_worker(run.declared, options, run.require_workers().host)
        redaction(redact)
        progress = live.for_terminal(False)
        try:
            workers = run.require_workers()
            gathered = ticket.gather(checks, run.checks, options, workers, Status.FAIL, progress)
        finally:
            if progress is not None and hasattr(progress, "stop"):
                progress.stop()
    shared = shareable(gathered, redact)
    text = inert(render(shared, fmt))  # a file is read on a terminal too (cat, less -R)
    if target is None:
        sys.stdout.write(text)
        return
    try:
        files.write_new(target, text, overwrite=force)
    except FileExistsError:
        raise BadInput(f"{files.shown(target)} exists: use --force to overwrite it") from None
    except files.NotRegularFile:
        raise BadInput(
            f"{files.shown(target)} became something else than a regular file while the checks ran (a link, "
            "FIFO, device or folder): nothing was written, and it was left as it is"
        ) from None
    except OSError as exc:
        raise BadInput(f"cannot write {files.shown(target)}: {exc.strerror or exc}") from None
    from torchdoctor.render.text import closing_line

    state = "redacted" if redact else "NOT redacted"
    typer.echo(f"wrote {files.shown(target)} ({FORMAT_NAMES[fmt]}, {state}): {closing_line(shared.verdicts)}")


def resolve_format(output_format: str | None, output: Path | None) -> str:
    if output_format is not None:
        if output_format not in FORMATS:
            raise BadInput(f"--format must be one of {', '.join(FORMATS)}, not '{output_format}'")
        named = _SUFFIXES.get(output.suffix.lower()) if output is not None else None
        if output is not None and named is not None and named != output_format:
            raise BadInput(
                f"-o {files.shown(output)} has the suffix of {FORMAT_NAMES[named]} but "
                f"--format {output_format} "
                f"writes {FORMAT_NAMES[output_format]}: leave out --format (the suffix picks it) or name a "
                f".{output_format} file"
            )
        return output_format
    if output is not None:
        return _SUFFIXES.get(output.suffix.lower(), "md")
    return "md"


def writable(path: Path, force: bool, option: str = "-o") -> Path:
    """The file to write, refused as bad input before anything runs if it could not be written."""
    try:
        return files.check_target(path, force, option)
    except files.Unwritable as exc:
        raise BadInput(str(exc)) from None


def render(report: Report, fmt: str) -> str:
    if fmt == "md":
        from torchdoctor.render import markdown

        return markdown.render_text(report)
    if fmt == "json":
        from torchdoctor.render import json as json_renderer

        return json_renderer.dumps(report.to_json()) + "\n"
    from torchdoctor.render import html

    return html.render_html(report) if fmt == "html" else html.render_svg(report)
