"""``torchdoctor check`` and ``torchdoctor list``: run the checks, or list them without running anything."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from torchdoctor.commands.common import (
    DEFAULT_TIMEOUT_S,
    FailOnOption,
    FromOption,
    IdsOption,
    RedactOption,
    SkipOption,
    TimeoutOption,
    fail_on_status,
    judged_from,
    redaction,
    run_context,
    run_options,
    select_checks,
    shareable,
    timeout_seconds,
    validate_in_worker,
)

if TYPE_CHECKING:
    from torchdoctor.checking.runner import Progress
    from torchdoctor.model import Report


def check(
    ctx: typer.Context,
    only: IdsOption = None,
    skip: SkipOption = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print one JSON report on stdout and nothing else.")
    ] = False,
    fail_on: FailOnOption = "fail",
    timeout: TimeoutOption = DEFAULT_TIMEOUT_S,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Evidence for every check, timings, the worker's log.")
    ] = False,
    redact: RedactOption = True,
    from_file: FromOption = None,
    declared: dict[str, Any] | None = None,
    given: set[str] | None = None,
) -> None:
    """Run the checks: one verdict each, with its evidence and fix.

    Run the installed checks (built-in and plugins) on this machine and print a verdict for each, with the
    evidence and the fix. Exit code 0: no verdict at or above --fail-on; 1: one is; 2: usage error or bad
    input; 3: a check errored or timed out and nothing reached the threshold."""
    from torchdoctor.checking import doctor

    threshold = fail_on_status(fail_on)
    timeout_seconds(timeout)
    redaction(redact)
    run = run_context(ctx)
    workers = run.require_workers()
    options = run_options(run.declared, declared or {}, timeout)
    if from_file is not None:
        report = judged_from(ctx, from_file, only, skip, threshold, options, given or set())
        emit(shareable(report, redact), json_output, verbose)
        raise typer.Exit(report.exit_code)
    checks = select_checks(run.checks, only, skip)
    options = validate_in_worker(run.declared, options, workers.host)
    progress = None if json_output and not verbose else _progress(verbose)
    try:
        report = doctor.diagnose(checks, options, workers, threshold, progress)
    finally:
        if progress is not None and hasattr(progress, "stop"):
            progress.stop()
    emit(shareable(report, redact), json_output, verbose)
    raise typer.Exit(report.exit_code)


def _progress(verbose: bool) -> Progress | None:
    from torchdoctor.commands import progress

    return progress.for_terminal(verbose)


def emit(report: Report, json_output: bool, verbose: bool) -> None:
    if json_output:
        from torchdoctor.render import json as json_renderer

        json_renderer.render(report, sys.stdout)
    elif use_color(sys.stdout):
        from torchdoctor.inputs import saved
        from torchdoctor.output import inert, streams
        from torchdoctor.render import table

        # rich writes its colours straight to the terminal: the report's own text made inert first.
        shown = saved.report_from_json(inert.inert_value(report.to_json()))
        table.render(shown, streams.unguarded(sys.stdout), verbose)
    else:
        from torchdoctor.render import text

        text.render(report, sys.stdout, verbose)
    if verbose and report.worker_log.strip():
        sys.stderr.write("--- worker log ---\n" + report.worker_log.rstrip() + "\n")


def use_color(stream: Any) -> bool:
    """What rich decides for this stream: a terminal (or FORCE_COLOR) without NO_COLOR."""
    from rich.console import Console

    console = Console(file=stream)
    return console.is_terminal and not console.no_color


def list_checks(
    ctx: typer.Context,
    json_output: Annotated[bool, typer.Option("--json", help="Print the list as JSON.")] = False,
) -> None:
    """List the installed checks (built-in and plugins); run nothing.

    Those of check, then those only torchdoctor cluster runs, each with the distribution that installed it."""
    from torchdoctor.checking import doctor, registry
    from torchdoctor.checking.registry import LoadFailure

    run = run_context(ctx)
    cluster_checks = doctor.installed_checks(run.require_workers(), registry.CLUSTER_CHECKS)
    rows: list[dict[str, Any]] = []
    for command, checks in (("check", run.checks), ("cluster", cluster_checks)):
        for loaded in checks:
            entry = loaded.entry
            rows.append(
                {
                    "id": entry.id,
                    "title": loaded.reason if isinstance(loaded, LoadFailure) else loaded.title,
                    "distribution": entry.distribution,
                    "version": entry.version,
                    "loads": not isinstance(loaded, LoadFailure),
                    "command": command,
                }
            )
    if json_output:
        typer.echo(json.dumps(rows, indent=2))
        return
    width = max((len(r["id"]) for r in rows), default=10)
    for row in rows:
        mark = "" if row["loads"] else "ERROR "
        only = " (torchdoctor cluster only)" if row["command"] == "cluster" else ""
        typer.echo(
            f"{row['id']:<{width}}  {mark}{row['title']}{only}  [{row['distribution']} {row['version']}]"
        )
