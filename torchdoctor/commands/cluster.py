"""``torchdoctor cluster``: run under torchrun (or srun) on every rank; rank 0 prints the whole job."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from torchdoctor.commands.common import BadInput, fail_on_status, positive_seconds, split_ids


def cluster(
    json_output: Annotated[
        bool, typer.Option("--json", help="Rank 0 prints one JSON report; cluster.ranks lists every rank.")
    ] = False,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout", metavar="S", help="Deadline of each probe, and of rank 0's wait for the other ranks."
        ),
    ] = 30.0,
    fail_on: Annotated[
        str, typer.Option("--fail-on", metavar="warn|fail", help="Lowest status that makes the exit code 1.")
    ] = "fail",
    only: Annotated[
        list[str] | None,
        typer.Option(metavar="IDS", help="Local checks to run on every rank (ids or patterns)."),
    ] = None,
    skip: Annotated[list[str] | None, typer.Option(metavar="IDS", help="Local checks to leave out.")] = None,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Evidence for every verdict.")] = False,
) -> None:
    """The same doctor on every rank of a launched job, one report on rank 0:
    torchrun --nnodes N --nproc-per-node G -m torchdoctor cluster [--json]."""
    from torchdoctor import cluster as job
    from torchdoctor import registry

    threshold = fail_on_status(fail_on)
    positive_seconds(timeout)
    try:
        outcome = job.run(split_ids(only), split_ids(skip), timeout, threshold)
    except (job.NotLaunched, registry.UnknownCheckError) as exc:
        raise BadInput(str(exc)) from None
    if outcome.message:
        sys.stderr.write(f"torchdoctor: {outcome.message}\n")
    if outcome.report is not None:
        if json_output:
            from torchdoctor.render import json as json_renderer

            json_renderer.render(outcome.report, sys.stdout)
        else:
            job.render_text(outcome.report, sys.stdout, verbose)
    raise typer.Exit(outcome.exit_code)
