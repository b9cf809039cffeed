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

if TYPE_CHECKING:
    from torchdoctor.model import Report
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
)


class BadInput(Exception):
    """Bad input from the user: one line on stderr and exit code 2."""


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
    """An environment doctor for PyTorch.

    Exit codes: 0 nothing at or above --fail-on; 1 a verdict at or above it;
    2 usage error or bad input; 3 a check errored or timed out and nothing reached the threshold.
    """


def _split_ids(values: list[str] | None) -> list[str]:
    return [part.strip() for value in values or [] for part in value.split(",") if part.strip()]


def _complete_ids(incomplete: str) -> list[str]:
    from torchdoctor import registry

    return [e.id for e in registry.find_entries() if e.id.startswith(incomplete)]


IdsOption = Annotated[
    list[str] | None,
    typer.Option(
        metavar="IDS",
        help="Check ids or patterns (gpu.*), comma-separated or repeated.",
        autocompletion=_complete_ids,
    ),
]


@app.command()
def check(
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
    ] = 10.0,
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
) -> None:
    """Run the checks and print a verdict for each, with the evidence and the fix."""
    from torchdoctor import doctor, registry
    from torchdoctor.model import Status

    if fail_on not in exitcodes.FAIL_ON:
        raise BadInput(f"--fail-on must be 'warn' or 'fail', not '{fail_on}'")
    if not timeout > 0 or timeout != timeout or timeout == float("inf"):
        raise BadInput(f"--timeout must be a positive number of seconds, not {timeout:g}")
    options = _check_options(timeout, min_free, memory_snapshot, quick, nproc, backend)
    try:
        checks = doctor.select_checks(_split_ids(only), _split_ids(skip))
    except registry.UnknownCheckError as exc:
        raise BadInput(str(exc)) from None
    if not checks:
        raise BadInput("--only and --skip leave no check to run")
    progress = None if json_output and not verbose else _progress(verbose)
    try:
        report = doctor.diagnose(
            checks,
            options,
            timeout=timeout,
            fail_on=Status(exitcodes.FAIL_ON[fail_on]),
            progress=progress,
        )
    finally:
        if progress is not None and hasattr(progress, "stop"):
            progress.stop()
    _emit(report, json_output, verbose)
    raise typer.Exit(report.exit_code)


def _check_options(
    timeout: float,
    min_free: float,
    memory_snapshot: Path | None,
    quick: bool,
    nproc: int | None,
    backend: str | None,
) -> dict[str, Any]:
    """The options probes and judges receive; validated here so a probe never sees a bad value."""
    if not 0 <= min_free <= 100:
        raise BadInput(f"--min-free must be a percentage between 0 and 100, not {min_free:g}")
    if nproc is not None and not 1 <= nproc <= 1024:
        raise BadInput(f"--nproc must be between 1 and 1024, not {nproc}")
    if backend is not None and backend not in ("nccl", "gloo"):
        raise BadInput(f"--backend must be 'nccl' or 'gloo', not '{backend}'")
    snapshot = None
    if memory_snapshot is not None:
        from torchdoctor import allocator_snapshot

        try:
            allocator_snapshot.load(memory_snapshot)
        except allocator_snapshot.SnapshotError as exc:
            raise BadInput(str(exc)) from None
        snapshot = str(memory_snapshot.resolve())
    return {
        "timeout": timeout,
        "min_free_pct": min_free,
        "memory_snapshot": snapshot,
        "quick": quick,
        "nproc": nproc,
        "backend": backend,
    }


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
