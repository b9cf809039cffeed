"""The ``torchdoctor`` command line: thin typer commands over doctor, registry and renderers.

This process never imports torch or pynvml and never touches CUDA: probes run
in a worker, so CUDA_VISIBLE_DEVICES keeps meaning what it means to the
user's own job, and ``--help`` stays fast even when torch is broken.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from torchdoctor import exitcodes
from torchdoctor._version import __version__
from torchdoctor.commands.common import (
    DEFAULT_MIN_FREE_PCT,
    BadInput,
    IdsOption,
    check_options,
    fail_on_status,
    positive_seconds,
    select_checks,
)

if TYPE_CHECKING:
    from torchdoctor.model import Report, Status
    from torchdoctor.runner import Progress

app = typer.Typer(
    name="torchdoctor",
    help="An environment doctor for PyTorch: checks your torch build, GPUs and distributed set-up, "
    "with the evidence and the fix for every problem.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="Exit codes: 0 nothing at or above --fail-on; 1 a verdict at or above it; 2 usage error or bad "
    "input; 3 a check errored or timed out and nothing reached the threshold.",
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"torchdoctor {__version__}")
        raise typer.Exit(exitcodes.OK)


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """The options before any command (the app's help text and epilog describe the tool)."""


@app.command()
def check(
    ctx: typer.Context,
    only: IdsOption = None,
    skip: IdsOption = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print one JSON report on stdout and nothing else.")
    ] = False,
    fail_on: Annotated[
        str, typer.Option("--fail-on", metavar="warn|fail", help="Lowest status that makes the exit code 1.")
    ] = "fail",
    timeout: Annotated[
        float, typer.Option("--timeout", metavar="S", help="Deadline of each probe, in seconds.")
    ] = 30.0,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Evidence for every check, timings, the worker's log.")
    ] = False,
    min_free: Annotated[
        float,
        typer.Option(
            "--min-free", metavar="PCT", help="gpu.memory: warn below this share of free memory (%)."
        ),
    ] = DEFAULT_MIN_FREE_PCT,
    memory_snapshot: Annotated[
        Path | None,
        typer.Option(
            "--memory-snapshot",
            metavar="FILE",
            help="gpu.fragmentation: judge an allocator snapshot from torch.cuda.memory._dump_snapshot().",
        ),
    ] = None,
    quick: Annotated[bool, typer.Option("--quick", help="transfer.pinned: fewer, shorter copies.")] = False,
    nproc: Annotated[
        int | None,
        typer.Option(
            "--nproc", metavar="N", help="ddp.dryrun: ranks to start (default: visible GPUs, 2 on CPU)."
        ),
    ] = None,
    backend: Annotated[
        str | None,
        typer.Option("--backend", metavar="nccl|gloo", help="ddp.dryrun: process group backend."),
    ] = None,
    from_file: Annotated[
        Path | None,
        typer.Option(
            "--from",
            metavar="FILE",
            help="Judge the facts of a saved JSON report with today's rules instead of probing this machine.",
        ),
    ] = None,
) -> None:
    """Run the checks and print a verdict for each, with the evidence and the fix."""
    from torchdoctor import doctor

    threshold = fail_on_status(fail_on)
    positive_seconds(timeout)
    if from_file is not None:
        report = _judged_from(ctx, from_file, only, skip, threshold, min_free)
        _emit(report, json_output, verbose)
        raise typer.Exit(report.exit_code)
    options = check_options(timeout, min_free, memory_snapshot, quick, nproc, backend)
    checks = select_checks(only, skip)
    progress = None if json_output and not verbose else _progress(verbose)
    try:
        report = doctor.diagnose(checks, options, timeout=timeout, fail_on=threshold, progress=progress)
    finally:
        if progress is not None and hasattr(progress, "stop"):
            progress.stop()
    _emit(report, json_output, verbose)
    raise typer.Exit(report.exit_code)


_PROBE_ONLY_OPTIONS = {
    "timeout": "--timeout",
    "memory_snapshot": "--memory-snapshot",
    "quick": "--quick",
    "nproc": "--nproc",
    "backend": "--backend",
}


def _judged_from(
    ctx: typer.Context,
    path: Path,
    only: list[str] | None,
    skip: list[str] | None,
    fail_on: Status,
    min_free: float,
) -> Report:
    """check --from: the installed checks the saved report has, judged on its facts; no probe runs."""
    from torchdoctor import saved

    given = [flag for name, flag in _PROBE_ONLY_OPTIONS.items() if _given(ctx, name)]
    if given:
        raise BadInput(f"{', '.join(given)} cannot be used with --from: it judges saved facts, no probe runs")
    try:
        report = saved.load(path)
    except saved.SavedReportError as exc:
        raise BadInput(str(exc)) from None
    checks = select_checks(only, skip)
    chosen, missing = saved.select(report, checks)
    if not chosen:
        raise BadInput(
            f"no check selected here has a verdict in {path} (it has: {', '.join(report.check_ids)})"
        )
    if missing:
        sys.stderr.write(f"torchdoctor: not installed here, left out: {', '.join(missing)}\n")
    sys.stderr.write(
        f"torchdoctor: judging the facts of {path} (torchdoctor {report.tool_version}, "
        f"{report.data['created_at']}{', redacted' if report.redacted else ''}) with today's rules\n"
    )
    options = {"min_free_pct": min_free} if _given(ctx, "min_free") else {}
    return saved.rejudge(report, chosen, options, fail_on)


def _given(ctx: typer.Context, name: str) -> bool:
    source = ctx.get_parameter_source(name)
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


def _progress(verbose: bool) -> Progress | None:
    from torchdoctor import progress

    return progress.for_terminal(verbose)


def _emit(report: Report, json_output: bool, verbose: bool) -> None:
    if json_output:
        from torchdoctor.render import json as json_renderer

        json_renderer.render(report, sys.stdout)
    elif _use_color(sys.stdout):
        from torchdoctor.render import table

        table.render(report, sys.stdout, verbose)
    else:
        from torchdoctor.render import text

        text.render(report, sys.stdout, verbose)
    if verbose and report.worker_log.strip():
        sys.stderr.write("--- worker log ---\n" + report.worker_log.rstrip() + "\n")


def _use_color(stream: object) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


@app.command("list")
def list_checks(
    json_output: Annotated[bool, typer.Option("--json", help="Print the list as JSON.")] = False,
) -> None:
    """List the installed checks (built-in and plugins) without running them."""
    import json

    from torchdoctor import registry

    rows: list[dict[str, Any]] = []
    loaded_entries = [(entry, registry.load(entry)) for entry in registry.find_entries()]
    for entry, loaded in sorted(loaded_entries, key=lambda pair: registry.table_key(pair[1])):
        title = loaded.reason if isinstance(loaded, registry.LoadFailure) else loaded.title
        rows.append(
            {
                "id": entry.id,
                "title": title,
                "distribution": entry.distribution,
                "version": entry.version,
                "loads": not isinstance(loaded, registry.LoadFailure),
            }
        )
    if json_output:
        typer.echo(json.dumps(rows, indent=2))
        return
    width = max((len(r["id"]) for r in rows), default=10)
    for row in rows:
        mark = "" if row["loads"] else "ERROR "
        typer.echo(f"{row['id']:<{width}}  {mark}{row['title']}  [{row['distribution']} {row['version']}]")


# Commands beyond check and list live in torchdoctor/commands/, one module each, registered here.
from torchdoctor.commands import cluster as cluster_command  # noqa: E402
from torchdoctor.commands import diff as diff_command  # noqa: E402
from torchdoctor.commands import explain as explain_command  # noqa: E402
from torchdoctor.commands import report as report_command  # noqa: E402

app.command("report")(report_command.report)
app.command("diff")(diff_command.diff)
app.command("explain")(explain_command.explain)
app.command("cluster")(cluster_command.cluster)


def _fail(message: str, code: int) -> NoReturn:
    sys.stderr.write(f"torchdoctor: error: {message}\n")
    sys.exit(code)


def _click_exceptions() -> Any:
    # typer >= 0.22 carries its own copy of click; older releases use click itself.
    try:
        from typer._click import exceptions
    except ImportError:
        from click import exceptions  # type: ignore[no-redef]
    return exceptions


def main(argv: list[str] | None = None) -> NoReturn:
    """Console entry point: every exit goes through here with a documented code."""
    click_exceptions = _click_exceptions()
    try:
        code = app(args=argv, prog_name="torchdoctor", standalone_mode=False)
    except BadInput as exc:
        _fail(str(exc), exitcodes.USAGE)
    except click_exceptions.UsageError as exc:
        command = exc.ctx.command_path if exc.ctx is not None else "torchdoctor"
        _fail(f"{exc.format_message()} (see '{command} --help')", exitcodes.USAGE)
    except click_exceptions.ClickException as exc:
        _fail(exc.format_message(), exitcodes.USAGE)
    except (typer.Abort, KeyboardInterrupt):
        _fail("interrupted", 130)
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(exitcodes.OK)
    except Exception as exc:
        if os.environ.get("TORCHDOCTOR_DEBUG"):
            raise
        _fail(
            f"internal error: {type(exc).__name__}: {exc} (set TORCHDOCTOR_DEBUG=1 for the traceback)",
            exitcodes.ERRORED,
        )
    sys.exit(code if isinstance(code, int) else exitcodes.OK)
