"""``torchdoctor run`` runs a program as ``python`` would: the same sys.argv, __main__, sys.path[0], stdin,
stdout and exit code; a program that cannot be started is one line and exit code 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from torchdoctor import cli
from torchdoctor.checking import exitcodes
from torchdoctor.commands.run import split_program
from torchdoctor.runtime import launch
from torchdoctor.runtime.session import Rank, report_path

from run_support import SCRIPTS
from support import assert_valid, cli_env, run_cli

_SHOW = """
import json, sys
print(json.dumps({
    "argv": sys.argv, "name": __name__, "file": __file__, "path0": sys.path[0],
    "spec": getattr(__spec__, "name", None), "package": __package__,
    "main_is_this": sys.modules["__main__"].__dict__ is globals(),
}))
"""


def _in_process(program: launch.Program) -> tuple[int, dict[str, object]]:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = launch.run(program, lambda error, code: None, restore=True)
    return code, json.loads(out.getvalue())


def test_a_script_sees_what_python_shows_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "show.py").write_text(_SHOW)
    monkeypatch.chdir(tmp_path)
    saved_argv, saved_main = list(sys.argv), sys.modules["__main__"]
    code, seen = _in_process(launch.script("folder/show.py", ["--lr", "3", "-m", "x"]))
    python = subprocess.run(
        [sys.executable, "folder/show.py", "--lr", "3", "-m", "x"], capture_output=True, text=True, check=True
    )
    assert code == 0 and seen == json.loads(python.stdout)
    assert sys.argv == saved_argv and sys.modules["__main__"] is saved_main  # put back (restore=True)


def test_a_module_sees_what_python_minus_m_shows_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "showpkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(_SHOW)
    monkeypatch.chdir(tmp_path)
    code, seen = _in_process(launch.module("showpkg", ["a"]))
    python = subprocess.run(
        [sys.executable, "-m", "showpkg", "a"], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert code == 0 and seen == json.loads(python.stdout)
    sys.modules.pop("showpkg", None)
    sys.modules.pop("showpkg.__main__", None)


@pytest.mark.parametrize(
    ("body", "code", "stderr"),
    [
        ("pass", 0, ""),
        ("import sys; sys.exit(3)", 3, ""),
        ("import sys; sys.exit()", 0, ""),
        ("import sys; sys.exit('bye')", 1, "bye\n"),
        ("raise KeyboardInterrupt", 130, "KeyboardInterrupt"),
        ("raise ValueError('x')", 1, "ValueError: x"),
    ],
)
def test_the_exit_code_is_the_programs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, code: int, stderr: str
) -> None:
    script = tmp_path / "exits.py"
    script.write_text(body + "\n")
    assert launch.run(launch.script(str(script), []), lambda error, code: None, restore=True) == code
    err = capsys.readouterr().err
    assert err.endswith(stderr + ("\n" if stderr and not stderr.endswith("\n") else ""))
    assert "torchdoctor" not in err


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d / "missing.py", "{d}/missing.py does not exist"),
        (lambda d: d, "can't find '__main__' module in '{d}'"),
        (lambda d: _write(d / "bad.py", "def f(:\n"), "{d}/bad.py, line 1: SyntaxError: invalid syntax"),
    ],
    ids=["missing", "folder", "syntax"],
)
def test_a_script_that_cannot_start_is_one_line(tmp_path: Path, make: object, message: str) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    with pytest.raises(launch.ProgramError) as refused:
        launch.script(str(path), [])
    assert str(refused.value) == message.format(d=tmp_path)


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("no_such_module_here", "No module named no_such_module_here"),
        ("json.no_such", "No module named json.no_such"),
        ("email", "-m email: a package without a __main__ module cannot be run"),
        ("not a name", "-m 'not a name': not a module name"),
    ],
)
def test_a_module_that_cannot_start_is_one_line(name: str, message: str) -> None:
    with pytest.raises(launch.ProgramError) as refused:
        launch.module(name, [])
    assert str(refused.value) == message or str(refused.value) == message.replace(
        "'not a name'", "not a name"
    )


@pytest.mark.parametrize(
    ("args", "own", "program"),
    [
        (["train.py", "--deep"], [], ["train.py", "--deep"]),
        (
            ["--deep", "--report", "r.json", "train.py", "-m"],
            ["--deep", "--report", "r.json"],
            ["train.py", "-m"],
        ),
        (["--nan", "-m", "pkg", "--nan"], ["--nan"], ["-m", "pkg", "--nan"]),
        (["-mpkg", "x"], [], ["-mpkg", "x"]),
        (["--module=pkg", "x"], [], ["-m", "pkg", "x"]),
        (["--deep", "--", "-weird.py"], ["--deep"], ["-weird.py"]),
        (["--deep"], ["--deep"], []),
    ],
)
def test_everything_from_the_program_on_is_the_programs(
    args: list[str], own: list[str], program: list[str]
) -> None:
    assert split_program(args) == (own, program)


def test_one_report_per_rank() -> None:
    single = Rank(None, None, None)
    ranked = Rank(3, 1, 4)
    assert report_path("run.json", single) == "run.json"
    assert report_path("run.json", ranked) == "run.rank3.json"
    assert report_path("out/{rank}/run.json", ranked) == "out/3/run.json"


def _main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exited:
        cli.main(args)
    return int(exited.value.code or 0), capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run"], "give the program to run"),
        (["run", "--deep"], "give the program to run"),
        (["run", "missing.py"], "missing.py does not exist"),
        (["run", "--report", "/dev/null", "x.py"], "is not a regular file"),
        (["run", "--bogus", "x.py"], "No such option: --bogus"),
    ],
)
def test_the_cli_refuses_in_one_line_with_exit_code_2(
    args: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.py").write_text("print('never')\n")
    code, err = _main(args, capsys)
    assert code == exitcodes.USAGE
    assert err.startswith("torchdoctor: error: ") and message in err and err.count("\n") == 1


def test_the_report_is_never_written_through_a_link_to_something_else(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.py").write_text("print('never')\n")
    (tmp_path / "folder").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "folder")
    code, err = _main(["run", "--report", "link", "x.py"], capsys)
    assert code == exitcodes.USAGE and "is a folder" in err
    assert capsys.readouterr().out == ""


def test_torchdoctor_run_as_installed(tmp_path: Path) -> None:
    """One real process: stdin reaches the program, stdout is the program's alone, stderr holds the block
    and then the traceback, the exit code is the program's, and the report validates."""
    (tmp_path / "prog.py").write_text(
        textwrap.dedent(
            """
            import sys
            import torch
            name = sys.stdin.readline().strip()
            print(f"hello {name}", sys.argv[1:])
            scale = torch.ones(3)
            x = torch.ones(3, device="meta")
            y = x * scale
            """
        )
    )
    done = run_cli(
        "run", "--report", "out.json", "prog.py", "--flag", cwd=tmp_path, input_text="world\n", env=cli_env()
    )
    assert done.returncode == 1
    assert done.stdout == "hello world ['--flag']\n"
    assert done.stderr.index("== torchdoctor run ==") < done.stderr.index(
        "Traceback (most recent call last):"
    )
    assert "made at prog.py:6 in <module> by torch.ones" in done.stderr
    assert done.stderr.rstrip().endswith(
        "RuntimeError: Tensor on device cpu is not on the expected device meta!"
    )
    report = json.loads((tmp_path / "out.json").read_text())
    assert_valid(report, "run_report")
    assert report["program"]["exit_code"] == 1 and report["findings"][0]["id"] == "device_mismatch"
    assert report["program"]["argv"] == ["prog.py", "--flag"]


def test_the_scripts_folder_is_where_the_tests_say(tmp_path: Path) -> None:
    assert (SCRIPTS / "train_loop.py").is_file() and os.sep in str(SCRIPTS)
