"""Run a program in this process exactly as ``python SCRIPT ARGS`` or ``python -m MODULE ARGS`` would (SCRIPT
a file, a folder or zip file with a ``__main__.py``, or ``-`` for the program on stdin): the same
``sys.argv``, a fresh ``__main__`` module with the same globals (``__file__``, ``__spec__``, ``__loader__``,
``__builtins__`` the module, ``__annotations__``), the same first entry of ``sys.path``, the same room on the
stack before a RecursionError, stdin and stdout untouched, the same exit code; an uncaught exception printed
by ``sys.excepthook`` with the frames of torchdoctor left out.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib.machinery
import importlib.util
import os
import sys
import types
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from torchdoctor.inputs import bounded
from torchdoctor.output import inert

MAX_SCRIPT_BYTES = 64 * 2**20
_OWN_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "")


class ProgramError(Exception):
    """The program cannot be started (no such script or module, a syntax error); one line."""


@dataclass
class Program:
    code: types.CodeType
    argv: list[str]
    path0: str
    """What Python puts first on sys.path: the script's folder (links resolved), or the working directory."""
    attributes: dict[str, Any]
    """The globals of __main__ before the code runs (__file__, __spec__, __loader__...)."""
    module: str | None = None
    runpy_frames: int = 0
    """The frames Python itself has between its start and the program's code: none for a script or stdin,
    runpy's two for ``-m`` and for a folder or zip file."""


def _globals(**attributes: Any) -> dict[str, Any]:
    """The globals Python gives ``__main__`` before its code runs, with ``attributes``."""
    return {
        "__name__": "__main__",
        "__doc__": None,
        "__annotations__": {},
        "__builtins__": builtins,
        **attributes,
    }


def script(path: str, args: list[str]) -> Program:
    """The program ``python path args...`` runs: a file, a folder or zip file with a ``__main__.py``, or
    ``-`` (read from stdin)."""
    if path == "-":
        return _from_stdin(args)
    absolute = os.path.join(os.getcwd(), path) if not os.path.isabs(path) else path
    if os.path.isdir(path) or zipfile.is_zipfile(path):
        return _main_of(path, os.path.abspath(path), args)
    try:
        source = bounded.read_file(Path(path), MAX_SCRIPT_BYTES, "script")
    except bounded.InputError as exc:
        raise ProgramError(str(exc)) from None
    code = _compile(source, absolute, path)
    loader = importlib.machinery.SourceFileLoader("__main__", absolute)
    attributes = _globals(
        __file__=absolute, __cached__=None, __loader__=loader, __package__=None, __spec__=None
    )
    return Program(code, [path, *args], os.path.dirname(os.path.realpath(absolute)), attributes)


def _main_of(path: str, absolute: str, args: list[str]) -> Program:
    """``python FOLDER`` or ``python FILE.zip``: the ``__main__`` module found there, run as runpy runs it."""
    shown = inert.shown(path)
    try:
        spec = importlib.machinery.PathFinder.find_spec("__main__", [absolute])
        get_code = getattr(spec.loader, "get_code", None) if spec is not None else None
        code = get_code("__main__") if get_code is not None else None
    except SyntaxError as exc:
        raise ProgramError(_syntax(exc, path)) from None
    except (ImportError, OSError) as exc:
        raise ProgramError(f"{shown}: {' '.join(str(exc).split())}") from None
    if spec is None or code is None:
        quoted = shown if shown != path else f"'{path}'"
        raise ProgramError(f"can't find '__main__' module in {quoted}")
    attributes = _globals(
        __file__=spec.origin, __cached__=spec.cached, __loader__=spec.loader, __package__="", __spec__=spec
    )
    return Program(code, [path, *args], absolute, attributes, runpy_frames=2)


def _from_stdin(args: list[str]) -> Program:
    """``python - ARGS``: the program read from stdin, to its end, as Python reads it (no deadline)."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise ProgramError("- names the program on stdin, and stdin is closed")
    try:
        source = bounded.read_stream(stream, MAX_SCRIPT_BYTES, "the program on stdin")
    except (bounded.InputError, OSError, ValueError) as exc:
        raise ProgramError(str(exc)) from None
    code = _compile(source, "<stdin>", "-")
    attributes = _globals(
        __file__="<stdin>",
        __cached__=None,
        __loader__=importlib.machinery.BuiltinImporter,
        __package__=None,
        __spec__=None,
    )
    return Program(code, ["-", *args], "", attributes)


def module(name: str, args: list[str]) -> Program:
    """The program ``python -m name args...`` runs (a package runs its ``__main__``)."""
    shown = inert.shown(name)
    if not name or name.startswith(".") or any(not part.isidentifier() for part in name.split(".")):
        raise ProgramError(f"-m {shown}: not a module name")
    sys.path.insert(0, os.getcwd())
    try:
        spec = _find(name)
        if spec is not None and spec.submodule_search_locations is not None:
            spec = _find(f"{name}.__main__")
            if spec is None:
                raise ProgramError(f"-m {shown}: a package without a __main__ module cannot be run")
        if spec is None or spec.loader is None:
            raise ProgramError(f"No module named {shown}")
        get_code = getattr(spec.loader, "get_code", None)
        code = get_code(spec.name) if get_code is not None else None
    except SyntaxError as exc:
        raise ProgramError(_syntax(exc, name)) from None
    except ImportError as exc:
        raise ProgramError(f"-m {shown}: {' '.join(str(exc).split())}") from None
    finally:
        sys.path.remove(os.getcwd())
    if code is None:
        raise ProgramError(f"-m {shown}: no code to run")
    attributes = _globals(
        __file__=spec.origin,
        __cached__=spec.cached,
        __loader__=spec.loader,
        __package__=spec.parent,
        __spec__=spec,
    )
    return Program(code, [str(spec.origin), *args], os.getcwd(), attributes, module=name, runpy_frames=2)


def _find(name: str) -> importlib.machinery.ModuleSpec | None:
    try:
        return importlib.util.find_spec(name)
    except ModuleNotFoundError:
        return None
    except ValueError as exc:
        raise ImportError(str(exc)) from None


def _compile(source: bytes, filename: str, shown: str) -> types.CodeType:
    try:
        return compile(source, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        raise ProgramError(_syntax(exc, shown)) from None
    except (ValueError, MemoryError, RecursionError) as exc:
        raise ProgramError(f"{inert.shown(shown)} cannot be compiled: {type(exc).__name__}: {exc}") from None


def _syntax(exc: SyntaxError, shown: str) -> str:
    where = f", line {exc.lineno}" if exc.lineno else ""
    return f"{inert.shown(shown)}{where}: {type(exc).__name__}: {exc.msg}"


def exit_code(exc: SystemExit, err: Any) -> int:
    """The exit status Python gives ``sys.exit(code)``: None -> 0, an int as it is, anything else printed on
    stderr and 1."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return int(code)
    with contextlib.suppress(OSError, ValueError):
        err.write(f"{code}\n")
    return 1


def without_own_frames(exc: BaseException) -> None:
    """Leave torchdoctor's frames (the launcher, its wrappers around torch) out of ``exc``'s traceback and
    those of the exceptions chained to it, as Python would have printed them without torchdoctor."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        current.__traceback__ = _filtered(current.__traceback__)
        current = current.__cause__ or current.__context__


def _filtered(tb: types.TracebackType | None) -> types.TracebackType | None:
    kept: list[types.TracebackType] = []
    while tb is not None:
        if not os.path.realpath(tb.tb_frame.f_code.co_filename).startswith(_OWN_DIR):
            kept.append(tb)
        tb = tb.tb_next
    following = None
    for entry in reversed(kept):
        following = types.TracebackType(following, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return following


def run(program: Program, finish: Callable[[BaseException | None, int], Any], restore: bool = False) -> int:
    """Run ``program`` as __main__; ``finish(error, exit_code)`` is called before the error is printed.
    ``restore`` puts sys.argv, sys.path[0] and __main__ back afterwards (for running inside tests)."""
    saved_argv, saved_path, saved_main = sys.argv, list(sys.path), sys.modules.get("__main__")
    saved_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(saved_limit + max(0, _levels_here(sys._getframe()) - _levels_of_python(program)))
    main = types.ModuleType("__main__")
    main.__dict__.update(program.attributes)
    sys.modules["__main__"] = main
    sys.argv = list(program.argv)
    safe_path = getattr(sys.flags, "safe_path", False)  # -P, Python 3.11 and newer
    if safe_path and not os.environ.get("PYTHONSAFEPATH"):
        sys.path.insert(0, program.path0)
    elif not safe_path:
        if sys.path:
            sys.path[0] = program.path0
        else:
            sys.path.append(program.path0)
    error: BaseException | None = None
    try:
        exec(program.code, main.__dict__)
        code = 0
    except SystemExit as exc:
        code = exit_code(exc, sys.stderr)
    except KeyboardInterrupt as exc:
        error, code = exc, 130
    except BaseException as exc:
        error, code = exc, 1
    try:
        finish(error, code)
    finally:
        if error is not None:
            without_own_frames(error)
            sys.excepthook(type(error), error, error.__traceback__)
            error = None
        if restore:
            sys.argv, sys.path[:] = saved_argv, saved_path
            sys.setrecursionlimit(saved_limit)
            if saved_main is not None:
                sys.modules["__main__"] = saved_main
    return code


# Until Python 3.12 an exec() counts as a level of recursion of its own, besides the frame it runs.
_EXEC_IS_A_LEVEL = sys.version_info < (3, 12)


def _levels_here(frame: types.FrameType | None) -> int:
    """The levels of recursion under the program's code when ``frame`` execs it: the frames from ``frame``
    down, and the exec."""
    count = int(_EXEC_IS_A_LEVEL)
    while frame is not None:
        count, frame = count + 1, frame.f_back
    return count


def _levels_of_python(program: Program) -> int:
    """The levels Python itself has under the program's code: none for a script or stdin; runpy's frames and
    its exec for ``-m`` and a folder or zip file. As many more allowed here leave the program the same room
    before a RecursionError."""
    return program.runpy_frames + int(_EXEC_IS_A_LEVEL and program.runpy_frames > 0)
