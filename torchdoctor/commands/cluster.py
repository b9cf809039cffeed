"""``torchdoctor cluster``: run under torchrun (or srun) on every rank; rank 0 prints the whole job."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from torchdoctor.checking import exitcodes
from torchdoctor.commands.common import (
    DEFAULT_TIMEOUT_S,
    BadInput,
    FailOnOption,
    IdsOption,
    RedactOption,
    SkipOption,
    fail_on_status,
    redaction,
    run_context,
    run_options,
    shareable,
    split_ids,
    timeout_seconds,
    validate_in_worker,
)
from torchdoctor.output import messages


def cluster(
    ctx: typer.Context,
    json_output: Annotated[
        bool, typer.Option("--json", help="Rank 0 prints one JSON report; cluster.ranks lists every rank.")
    ] = False,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout", metavar="S", help="Deadline of each probe, and of rank 0's wait for the other ranks."
        ),
    ] = DEFAULT_TIMEOUT_S,
    fail_on: FailOnOption = "fail",
    only: IdsOption = None,
    skip: SkipOption = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Evidence for every verdict.")] = False,
    redact: RedactOption = True,
    declared: dict[str, Any] | None = None,
    given: set[str] | None = None,
) -> None:
    """Run the doctor on every rank of a launched job; rank 0 reports.

    The same doctor on every rank of a launched job, one report on rank 0:
    torchrun --nnodes N --nproc-per-node G -m torchdoctor cluster [--json]."""
    from torchdoctor.checking import cluster as job
    from torchdoctor.checking import registry

    threshold = fail_on_status(fail_on)
    timeout_seconds(timeout)
    redaction(redact)
    run = run_context(ctx)
    workers = run.require_workers()
    options = validate_in_worker(
        run.declared, run_options(run.declared, declared or {}, timeout), workers.host
    )
    try:
        outcome = job.run(run.checks, options, workers, split_ids(only), split_ids(skip, "--skip"), threshold)
    except (job.NotLaunched, registry.UnknownCheckError) as exc:
        raise BadInput(str(exc)) from None
    if outcome.message:
        failed = outcome.exit_code == exitcodes.ERRORED
        sys.stderr.write((messages.error_line if failed else messages.note_line)(outcome.message))
    if outcome.report is not None:
        shared = shareable(outcome.report, redact)
        if json_output:
            from torchdoctor.render import json as json_renderer

            json_renderer.render(shared, sys.stdout)
        else:
            job.render_text(shared, sys.stdout, verbose)
    raise typer.Exit(outcome.exit_code)
