"""``torchdoctor run [OPTIONS] SCRIPT [ARGS]...`` and ``torchdoctor run [OPTIONS] -m MODULE [ARGS]...``: the
program runs in this process as ``python`` would run it, with the runtime doctor recording.

Everything from SCRIPT (or ``-m MODULE``) on belongs to the program, as for ``python``: ``torchdoctor run
train.py --deep`` passes ``--deep`` to train.py. The exit code is the program's; 2 when it cannot be started.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from torchdoctor.commands.common import BadInput, RedactOption, run_context
from torchdoctor.commands.usage import PlainCommand

if TYPE_CHECKING:
    from torchdoctor.runtime.launch import Program
    from torchdoctor.runtime.session import Session

PROGRAM_KEY = "torchdoctor.program"
MAX_GPUS = 64
_OWN_WITH_VALUE = frozenset({"--report", "--gpus"})
_MODULE_FLAGS = ("-m", "--module")


def split_program(args: list[str]) -> tuple[list[str], list[str]]:
    """torchdoctor's own options, and the program's command line: from the first argument that is not an
    option (the script), from ``-m``/``--module`` (``-m pkg``, ``-mpkg``), or after ``--``."""
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--":
            return args[:index], args[index + 1 :]
        if arg in _MODULE_FLAGS or (arg.startswith("-m") and not arg.startswith("--")):
            return args[:index], args[index:]
        if arg.startswith("--module="):
            return args[:index], ["-m", arg.split("=", 1)[1], *args[index + 1 :]]
        if not arg.startswith("-") or arg == "-":
            return args[:index], args[index:]
        index += 2 if arg in _OWN_WITH_VALUE else 1
    return args, []


class ProgramCommand(PlainCommand):
    """Hands click only torchdoctor's options; the program's command line is kept as it is."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        own, program = split_program(list(args))
        ctx.meta[PROGRAM_KEY] = program
        return super().parse_args(ctx, own)


def run(
    ctx: typer.Context,
    program: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="SCRIPT [ARGS]... | -m MODULE [ARGS]...",
            help="The program and its arguments, exactly as after 'python'.",
            show_default=False,
        ),
    ] = None,
    deep: Annotated[
        bool,
        typer.Option(
            "--deep",
            help="Also trace the result of every torch operation to its line, and count implicit "
            "synchronisations (.item(), .tolist(), bool(t), nonzero) per line. Slower.",
        ),
    ] = False,
    nan: Annotated[
        bool,
        typer.Option(
            "--nan",
            help="Name the first module whose float16/bfloat16 forward output is not finite, with its input "
            "range (one read per forward pass).",
        ),
    ] = False,
    report: Annotated[
        Path | None,
        typer.Option(
            "--report",
            metavar="PATH",
            help="Also write the report as JSON (one per rank under torchrun: run.json becomes "
            "run.rank0.json, run.rank1.json...; or {rank} in PATH).",
        ),
    ] = None,
    gpus: Annotated[
        int | None,
        typer.Option(
            "--gpus",
            metavar="N",
            help="Emulate N GPUs on the CPU: the program sees cuda:0 to cuda:N-1, its values are computed on "
            "the CPU, and every operation's devices are checked as CUDA checks them.",
            show_default=False,
        ),
    ] = None,
    redact: RedactOption = True,
) -> None:
    """Run a Python program, explaining any device mismatch in it.

    Run it as 'python' would, recording where its tensors were made and moved: a device mismatch is explained
    operand by operand, with the line to fix. With --gpus N it runs on N GPUs emulated on the CPU, so that
    device mistakes show before a GPU is rented. Exit code: the program's; 2 when it cannot be started."""
    from torchdoctor.output import streams
    from torchdoctor.runtime import launch
    from torchdoctor.runtime.session import Options, Session

    argv = list(ctx.meta.get(PROGRAM_KEY) or [])
    if not argv:
        raise BadInput("give the program to run: torchdoctor run train.py [ARGS]... or -m MODULE [ARGS]...")
    if gpus is not None and not 1 <= gpus <= MAX_GPUS:
        raise BadInput(f"--gpus takes 1 to {MAX_GPUS} GPUs, not {gpus}")
    options = Options(
        deep=deep, nan=nan, report=str(report) if report is not None else None, redact=redact, gpus=gpus
    )
    try:
        if argv[0] in ("-m", "--module") or argv[0].startswith("-m"):
            name = argv[1] if argv[0] in ("-m", "--module") and len(argv) > 1 else argv[0][2:]
            rest = argv[2:] if argv[0] in ("-m", "--module") else argv[1:]
            if not name:
                raise BadInput("-m needs a module name: torchdoctor run -m MODULE [ARGS]...")
            started = launch.module(name, rest)
        else:
            started = launch.script(argv[0], argv[1:])
    except launch.ProgramError as exc:
        raise BadInput(str(exc)) from None
    # torchdoctor's own blocks, and only they, go through a guard of their own onto the process's stderr.
    own = streams.GuardedStream(streams.unguarded(sys.stderr))
    session = Session(options, argv=started.argv, module=started.module, err=own)
    if session.report_path is not None:
        _check_report(session.report_path)
    run_context(ctx).program = functools.partial(_execute, started, session)


def _execute(started: Program, session: Session) -> int:
    """Run the program with the process's own streams, as python would, and end as python would end it."""
    from torchdoctor.output import streams
    from torchdoctor.runtime import launch

    if not session.options.redact:
        streams.keep_identities()
    ended: list[BaseException | None] = []
    atexit.register(_end_as_python_does, ended)

    def finish(error: BaseException | None, code: int) -> None:
        ended.append(error)
        session.finish(error, code)

    session.start()
    return launch.run(started, finish)


def _end_as_python_does(ended: list[BaseException | None]) -> None:
    """After the program's own exit functions (registered later, they run first): a program that an
    uncaught KeyboardInterrupt ended dies by SIGINT, as python makes it, so that whatever started it (a shell
    loop) sees an interrupt, not an exit status."""
    if not ended or not isinstance(ended[0], KeyboardInterrupt) or os.name != "posix":
        return
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, OSError, ValueError):
            stream.flush()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGINT)


def _check_report(path: str) -> None:
    """Refuse, before the program runs, a --report that could never be written."""
    from torchdoctor.commands.report import writable

    writable(Path(path), force=True, option="--report")
