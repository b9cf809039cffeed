"""``torchdoctor run PROGRAM`` is ``python PROGRAM`` to the program: byte for byte the same stdout, the same
stderr outside torchdoctor's own blocks, the same exit status (death by a signal included).

Each program of the matrix runs twice, under python and under ``torchdoctor run``, in a folder that is also
the home folder (so that a path a guard would shorten to ``~`` is in play). None imports torch: what is
compared is what torchdoctor does around a program, which is the same whatever the program imports."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import textwrap
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from support import BIN, cli_env

BLOCK = re.compile(
    r"^== torchdoctor run( \[rank \d+\])? =+\n.*?^== end of torchdoctor run( \[rank \d+\])? =+\n", re.M | re.S
)


@dataclass(frozen=True)
class Program:
    source: str
    args: tuple[str, ...] = ()
    stdin: bytes = b""
    env: dict[str, str] = field(default_factory=dict)
    kind: str = "script"
    """How it is named: a ``script``, a ``folder`` or ``zip`` with __main__.py, ``-`` (stdin), ``module``."""


SECRET = "hf_" + "Q" * 34

PROGRAMS = {
    "colour": Program('print("\\x1b[1;32mgreen\\x1b[0m and \\x1b]0;title\\x07")'),
    "progress bar": Program(
        """
        import sys
        for step in range(5):
            sys.stdout.write(f"\\rstep {step}/5")
            sys.stdout.flush()
        print()
        sys.stderr.write("\\r\\x1b[2Kdone\\n")
        """
    ),
    "a partial line, unbuffered, then os._exit": Program(
        """
        import os
        print("no line feed yet", end="")
        os._exit(0)
        """,
        env={"PYTHONUNBUFFERED": "1"},
    ),
    "binary on stdout.buffer": Program(
        """
        import sys
        sys.stdout.buffer.write(bytes(range(256)))
        sys.stdout.buffer.flush()
        """
    ),
    "reconfigure": Program(
        """
        import sys
        sys.stdout.reconfigure(line_buffering=True)
        sys.stderr.reconfigure(errors="backslashreplace")
        print("reconfigured", sys.stdout.line_buffering)
        """
    ),
    "its host name, home and user": Program(
        """
        import getpass, os, socket
        print(socket.gethostname(), os.path.expanduser("~"), os.getcwd(), getpass.getuser())
        """
    ),
    "a token it prints": Program(f'print("token {SECRET} and a key -----BEGIN PRIVATE KEY-----")'),
    "an uncaught exception, with its paths": Program(
        """
        import os
        def fail():
            raise ValueError("failed in " + os.getcwd())
        fail()
        """
    ),
    "sys.exit with a message": Program('import sys\nsys.exit("it stopped: " + __file__)'),
    "sys.exit(3)": Program("import sys\nprint('before')\nsys.exit(3)"),
    "os._exit(4)": Program("import os, sys\nprint('out', flush=True)\nos._exit(4)"),
    "an uncaught KeyboardInterrupt": Program("print('working', flush=True)\nraise KeyboardInterrupt"),
    "its globals": Program(
        """
        print(sorted(globals()), type(__builtins__).__name__, __name__, __package__, __spec__)
        print(repr(__file__), __loader__.__class__.__name__, __cached__)
        """
    ),
    "room before a RecursionError": Program(
        """
        def depth(n=0):
            try:
                return depth(n + 1)
            except RecursionError:
                return n
        print(depth())
        """
    ),
    "arguments with spaces": Program(
        "import sys\nprint(sys.argv)", args=("two words", "--lr", "3", "-m", "x")
    ),
    "stdin": Program("import sys\nprint(sys.stdin.read().upper())", stdin=b"read me\n"),
    "exit functions": Program(
        """
        import atexit, sys
        atexit.register(lambda: print("goodbye", file=sys.stderr))
        print("hello")
        """
    ),
    "a warning": Program('import warnings\nwarnings.warn("careful")\nprint("after")'),
    "text a terminal would act on": Program('print("\\u202eevil\\u202c \\u2028 caf\\u00e9 \\x07 \\x1b[2J")'),
    "threads": Program(
        """
        import threading
        out = []
        threads = [threading.Thread(target=out.append, args=(i,)) for i in range(4)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        print(sorted(out))
        """
    ),
    "a signal handler": Program(
        """
        import os, signal
        signal.signal(signal.SIGUSR1, lambda number, frame: print("caught", number))
        os.kill(os.getpid(), signal.SIGUSR1)
        print("after")
        """
    ),
    "the interpreter's hooks and signal handlers": Program(
        """
        import signal, sys, threading
        print(sys.excepthook is sys.__excepthook__, sys.unraisablehook is sys.__unraisablehook__)
        print(threading.excepthook is threading.__excepthook__, sys.displayhook is sys.__displayhook__)
        print(sys.breakpointhook is sys.__breakpointhook__, sys.gettrace(), sys.getprofile())
        print([signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE, signal.SIGCHLD)])
        """
    ),
    "sys.path[0] and the working folder": Program("import os, sys\nprint(sys.path[0], os.getcwd())"),
    "a folder with __main__.py": Program(
        "import sys\nprint(__file__, __spec__.name, sys.path[0], sys.argv)", args=("a",), kind="folder"
    ),
    "a zip file with __main__.py": Program(
        "import sys\nprint(__file__, __spec__.name, sys.path[0], sys.argv)", args=("b",), kind="zip"
    ),
    "the program on stdin": Program("import sys\nprint(__file__, sys.argv, repr(sys.path[0]))", kind="-"),
    "-m module": Program(
        "import sys\nprint(__file__, __spec__.name, __package__, sys.argv)\nraise SystemExit(5)",
        args=("c",),
        kind="module",
    ),
}


def _name(program: Program, folder: Path) -> list[str]:
    """Write the program where its kind says, and the command-line words that name it."""
    source = textwrap.dedent(program.source).lstrip()
    if program.kind == "script":
        (folder / "prog.py").write_text(source, encoding="utf-8")
        return ["prog.py"]
    if program.kind == "folder":
        (folder / "app").mkdir()
        (folder / "app" / "__main__.py").write_text(source, encoding="utf-8")
        return ["app"]
    if program.kind == "zip":
        with zipfile.ZipFile(folder / "app.zip", "w") as archive:
            archive.writestr("__main__.py", source)
        return ["app.zip"]
    if program.kind == "module":
        (folder / "pkg").mkdir()
        (folder / "pkg" / "__init__.py").write_text("", encoding="utf-8")
        (folder / "pkg" / "prog.py").write_text(source, encoding="utf-8")
        return ["-m", "pkg.prog"]
    return ["-"]


def _run(command: list[str], program: Program, folder: Path) -> subprocess.CompletedProcess[bytes]:
    env = cli_env(HOME=str(folder), PYTHONPATH=None, **program.env)
    stdin = textwrap.dedent(program.source).lstrip().encode() if program.kind == "-" else program.stdin
    return subprocess.run(
        command, cwd=folder, env=env, input=stdin, capture_output=True, timeout=120, check=False
    )


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_a_program_sees_and_does_under_run_what_it_does_under_python(name: str, tmp_path: Path) -> None:
    program = PROGRAMS[name]
    words = _name(program, tmp_path)
    python = _run([sys.executable, *words, *program.args], program, tmp_path)
    ran = _run([str(BIN / "torchdoctor"), "run", *words, *program.args], program, tmp_path)
    assert ran.stdout == python.stdout
    assert BLOCK.sub("", ran.stderr.decode(errors="surrogateescape")) == python.stderr.decode(
        errors="surrogateescape"
    )
    assert ran.returncode == python.returncode


def test_the_matrix_holds_what_it_is_named_for() -> None:
    """At least twenty programs; the exits include a death by SIGINT and codes other than 0 and 1."""
    assert len(PROGRAMS) >= 20
    assert {program.kind for program in PROGRAMS.values()} == {"script", "folder", "zip", "-", "module"}


def test_an_interrupted_program_dies_by_sigint_under_run_as_under_python(tmp_path: Path) -> None:
    program = PROGRAMS["an uncaught KeyboardInterrupt"]
    words = _name(program, tmp_path)
    ran = _run([str(BIN / "torchdoctor"), "run", *words], program, tmp_path)
    assert ran.returncode == -signal.SIGINT
    assert b"KeyboardInterrupt" in ran.stderr


def test_a_refusal_of_run_is_torchdoctors_own_words_and_guarded(tmp_path: Path) -> None:
    """What torchdoctor says itself still goes through the guard: a --report it refuses, under the home
    folder, is shown with ``~`` for it."""
    (tmp_path / "prog.py").write_text("print('never runs')\n", encoding="utf-8")
    env = cli_env(HOME=str(tmp_path), PYTHONPATH=None)
    ran = subprocess.run(
        [str(BIN / "torchdoctor"), "run", "--report", str(tmp_path / "nothere" / "r.json"), "prog.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (ran.returncode, ran.stdout) == (2, "")
    assert "--report ~/nothere/r.json: the folder ~/nothere does not exist" in ran.stderr, ran.stderr
    assert str(tmp_path) not in ran.stderr


def _run_with_report(source: str, folder: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, object]]:
    (folder / "prog.py").write_text(textwrap.dedent(source).lstrip(), encoding="utf-8")
    (folder / "elsewhere").mkdir()
    ran = subprocess.run(
        [str(BIN / "torchdoctor"), "run", "--report", "run.json", "prog.py", "two words"],
        cwd=folder,
        env=cli_env(PYTHONPATH=None),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert not (folder / "elsewhere" / "run.json").exists()
    return ran, json.loads((folder / "run.json").read_text(encoding="utf-8"))


def test_the_report_is_written_where_the_run_started_with_its_arguments_whole(tmp_path: Path) -> None:
    """A program that changes its folder (Hydra does) leaves its report where the run was started, and an
    argument with a space in it stays one argument."""
    ran, report = _run_with_report("import os\nos.chdir('elsewhere')\nprint('moved')", tmp_path)
    assert ran.returncode == 0, ran.stderr
    program = report["program"]
    assert isinstance(program, dict)
    assert program["argv"] == ["prog.py", "two words"]
    assert program["exit_code"] == 0


def test_a_forked_child_that_ends_later_neither_writes_the_report_nor_speaks(tmp_path: Path) -> None:
    """The child of os.fork() runs the rest of the program too and ends after its parent, with another exit
    status: the run's report and its one block are the parent's."""
    source = """
        import os, sys, time
        if os.fork() == 0:
            time.sleep(0.5)
            sys.exit(3)
        print("parent ends")
    """
    ran, report = _run_with_report(source, tmp_path)
    assert ran.returncode == 0, ran.stderr
    program = report["program"]
    assert isinstance(program, dict)
    assert program["exit_code"] == 0
    assert len(BLOCK.findall(ran.stderr)) == 1, ran.stderr
