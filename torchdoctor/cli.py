"""The ``torchdoctor`` command line: thin typer commands over doctor, registry and renderers.

This process never imports torch, pynvml or any check module and never touches CUDA: the worker imports the
checks, runs the probes and the judges, so CUDA_VISIBLE_DEVICES keeps meaning what it means to the user's own
job, a broken plugin cannot take the CLI down, and ``--help`` stays fast even when torch is broken. Commands
that run checks (``check``, ``report``, ``cluster``, ``list``) start the worker before the command line is
parsed, because the options of the installed checks are part of it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from torchdoctor._version import __version__
from torchdoctor.checking import exitcodes
from torchdoctor.commands.common import BadInput, RunContext, split_ids
from torchdoctor.output import messages
from torchdoctor.plugin import Option

if TYPE_CHECKING:
    from torchdoctor.checking.registry import Loaded

HELP = (
    "An environment doctor for PyTorch: checks your torch build, GPUs and distributed set-up, with the "
    "evidence and the fix for every problem."
)
EPILOG = (
    "Exit codes: 0 nothing at or above --fail-on; 1 a verdict at or above it; 2 usage error or bad input; "
    "3 a check errored or timed out and nothing reached the threshold."
)
RUNS_CHECKS = ("check", "report", "cluster", "list", "triage")
"""Commands whose command line includes the options of the installed checks, or that list or judge them."""
RUNS_PROBES = ("check", "report", "cluster")
"""Commands whose probe worker imports torch while the checks are described (not with --from or --help)."""
# typer re-exports click's BadParameter; its bases are the usage and click errors every command raises.
_CLICK_USAGE_ERROR: type[Exception] = next(
    c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError"
)
_CLICK_EXCEPTION: type[Exception] = next(
    c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException"
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"torchdoctor {__version__}")
        raise typer.Exit(exitcodes.OK)


def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """The options before any command (the app's help text and epilog describe the tool)."""


def build_app(
    declared: Sequence[Option] = (), checks: Sequence[Loaded] = (), command: str | None = None
) -> typer.Typer:
    """The command line, with the options the installed checks declare added to the commands that run them
    (``cluster`` takes those of the checks it runs, when ``checks`` says which declare what).

    ``command``: the one command the command line runs, the only one built (typer converts the parameters of
    every command it holds, at each start of torchdoctor); any other value (None: help, completion) builds
    them all."""
    from torchdoctor.checking.options import with_declared
    from torchdoctor.commands import check as check_command
    from torchdoctor.commands import cluster as cluster_command
    from torchdoctor.commands import diff as diff_command
    from torchdoctor.commands import explain as explain_command
    from torchdoctor.commands import lint as lint_command
    from torchdoctor.commands import report as report_command
    from torchdoctor.commands import run as run_command
    from torchdoctor.commands import triage as triage_command
    from torchdoctor.commands.usage import DirectGroup, use_plain_commands

    app = typer.Typer(
        cls=DirectGroup,
        name="torchdoctor",
        help=HELP,
        epilog=EPILOG,
        add_completion=True,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    app.callback()(_root)
    commands: dict[str, Callable[[], Callable[..., Any]]] = {
        "check": lambda: with_declared(check_command.check, declared),
        "list": lambda: check_command.list_checks,
        "report": lambda: with_declared(report_command.report, declared),
        "diff": lambda: diff_command.diff,
        "explain": lambda: explain_command.explain,
        "cluster": lambda: with_declared(cluster_command.cluster, _cluster_options(declared, checks)),
        "lint": lambda: lint_command.lint,
        "triage": lambda: triage_command.triage,
        "run": lambda: run_command.run,
    }
    classes = {"run": run_command.ProgramCommand}
    for name, function in commands.items():
        if command not in commands or command == name:
            app.command(name, cls=classes.get(name))(function())
    use_plain_commands(app)
    return app


def _cluster_options(declared: Sequence[Option], checks: Sequence[Loaded]) -> list[Option]:
    if not checks:
        return list(declared)
    from torchdoctor.checking.cluster import usable_options

    return usable_options(declared, checks)


def _command_of(argv: Sequence[str]) -> str | None:
    from torchdoctor.commands.completions import complete_var

    if os.environ.get(complete_var()):
        return "complete"
    return next((arg for arg in argv if not arg.startswith("-")), None)


TORCH_PROBES = frozenset({"torch.build", "torch.stack", "transfer.pinned", "ddp.dryrun"})
"""The built-in checks whose probes import torch; the probes of every other built-in check never do
(tests/test_cli.py proves it). A run that selects none of these starts no worker importing torch ahead of
time: a plugin's probe that needs torch imports it when it runs, which costs it only the head start."""


def _runs_probes(command: str | None, argv: Sequence[str]) -> bool:
    """Whether the command will run probes that import torch, judged from the command line alone (the
    checks are not described yet): ``--help`` and ``--from`` run none, ``--only`` of checks that need no
    torch none that import it."""
    if command not in RUNS_PROBES or any(arg in ("-h", "--help") or arg.startswith("--from") for arg in argv):
        return False
    import fnmatch

    only = _only_ids(argv)
    return any(fnmatch.fnmatchcase(check, pattern) for check in TORCH_PROBES for pattern in only)


def _only_ids(argv: Sequence[str]) -> set[str]:
    """The ids ``--only`` names (``--only a,b``, ``--only=a``, repeated), a pattern as itself; ``{"*"}``
    (every check) when ``--only`` is not given; none when it is given wrong (the command refuses it before
    any probe runs)."""
    values: list[str] = []
    for index, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == "--only" and index + 1 < len(argv):
            values.append(argv[index + 1])
        elif arg.startswith("--only="):
            values.append(arg.removeprefix("--only="))
    try:
        return set(split_ids(values)) or {"*"}
    except BadInput:
        return set()


def prepare(command: str | None, argv: Sequence[str] = ()) -> RunContext:
    """The worker and the described checks, for the commands that run or list checks; nothing otherwise."""
    if command not in (*RUNS_CHECKS, "complete"):
        return RunContext()
    from torchdoctor.checking import doctor, options
    from torchdoctor.checking.runner import Workers

    workers = Workers(warm=_runs_probes(command, argv))
    described = doctor.installed_checks(workers)
    declared, checks = options.merge(described)
    return RunContext(workers=workers, checks=checks, declared=declared)


def _fail(message: str, code: int) -> NoReturn:
    if sys.stderr is not None:  # None: started with stderr closed
        sys.stderr.write(messages.error_line(message))
    sys.exit(code)


def main(argv: list[str] | None = None) -> NoReturn:
    """Console entry point: every exit goes through here with a documented code, and everything printed
    goes out redacted and inert (torchdoctor.output.streams)."""
    from torchdoctor.output import streams

    program_hook = sys.excepthook  # the interpreter's, before Typer's call puts its own in place
    args = list(sys.argv[1:] if argv is None else argv) or ["--help"]
    command = _command_of(args)
    if command != "run":  # torchdoctor run: the program's streams stay as python made them
        streams.utf8_on_windows()
    with streams.guarded(redact=command != "lint"):
        code, run = _run(command, args)
    if run.program is not None:  # torchdoctor run: the program's streams and hooks are its own
        sys.excepthook = program_hook
        code = run.program()
    sys.exit(code)


def _run(command: str | None, args: list[str]) -> tuple[int, RunContext]:
    """The exit code of the command line, and what was prepared for it."""
    run = RunContext()
    try:
        run = prepare(command, args)
        code: Any = build_app(run.declared, run.checks, command)(
            args=args, prog_name="torchdoctor", standalone_mode=False, obj=run
        )
    except BadInput as exc:
        _fail(str(exc), exitcodes.USAGE)
    except _CLICK_USAGE_ERROR as exc:
        context = getattr(exc, "ctx", None)
        command = context.command_path if context is not None else "torchdoctor"
        _fail(f"{exc.format_message()} (see '{command} --help')", exitcodes.USAGE)  # type: ignore[attr-defined]
    except _CLICK_EXCEPTION as exc:
        _fail(exc.format_message(), exitcodes.USAGE)  # type: ignore[attr-defined]
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
    finally:
        if run.workers is not None:
            run.workers.close()
    return (code if isinstance(code, int) else exitcodes.OK), run
