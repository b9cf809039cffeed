"""run_lint: exit codes (0 clean, 1 findings, 2 bad input and 2 wins), stdin, what is read and what is not,
one line per problem and never a traceback."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from torchdoctor.lint import command
from torchdoctor.lint.command import run_lint
from torchdoctor.lint.files import MAX_BYTES

LOAD = "import torch\nstate = torch.load(path)\n"
CLEAN = "import torch\nstate = torch.load(path, map_location='cpu')\n"


def run(paths: list[str], **options: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_lint(paths, stdout=out, stderr=err, **options)  # type: ignore[arg-type]
    return code, out.getvalue(), err.getvalue()


def test_exit_0_clean_1_findings(tmp_path: Path) -> None:
    (tmp_path / "clean.py").write_text(CLEAN)
    (tmp_path / "bad.py").write_text(LOAD)
    assert run([str(tmp_path / "clean.py")]) == (0, "", "")
    code, out, err = run([str(tmp_path)])
    assert (code, err) == (1, "")
    assert out == f"{tmp_path / 'bad.py'}:2:9: TDL004 " + out.split(" TDL004 ", 1)[1]


def test_a_missing_path_is_exit_2_and_the_others_are_still_linted(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text(LOAD)
    code, out, err = run([str(tmp_path / "nope.py"), str(tmp_path / "bad.py")])
    assert code == 2
    assert "TDL004" in out
    assert err == f"torchdoctor: error: {tmp_path / 'nope.py'}: no such file or directory\n"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"def broken(:\n    pass\n", "cannot parse: invalid syntax (line 1)"),
        (b"import torch\nx = (\n", "cannot parse: '(' was never closed (line 2)"),
        (b"x = 1\n\xff\xfe = 2\n", "cannot parse: "),
        (b"x = 1\x00\n", "cannot parse: "),
        (b"# -*- coding: no-such-codec -*-\nx = 1\n", "cannot parse: "),
    ],
)
def test_an_unparsable_file_is_one_line_naming_it(tmp_path: Path, content: bytes, reason: str) -> None:
    (tmp_path / "bad.py").write_bytes(content)
    (tmp_path / "other.py").write_text(LOAD)
    code, out, err = run([str(tmp_path)])
    assert code == 2
    assert "other.py:2:9: TDL004" in out
    assert err.startswith(f"torchdoctor: error: {tmp_path / 'bad.py'}: {reason}")
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize(
    ("select", "ignore", "word"), [(["TDL999"], None, "--select"), (None, ["XYZ1"], "--ignore")]
)
def test_an_unknown_rule_id_is_exit_2(
    tmp_path: Path, select: list[str] | None, ignore: list[str] | None, word: str
) -> None:
    (tmp_path / "a.py").write_text(LOAD)
    code, out, err = run([str(tmp_path)], select=select, ignore=ignore)
    assert (code, out) == (2, "")
    assert err.startswith("torchdoctor: error: lint: unknown rule id") and word in err


def test_an_unknown_format_is_exit_2(tmp_path: Path) -> None:
    code, _, err = run([str(tmp_path)], output_format="xml")
    assert code == 2 and "unknown format 'xml'" in err


def test_stdin_text() -> None:
    code, out, _ = run(["-"], stdin_text=LOAD)
    assert code == 1 and out.startswith("stdin:2:9: TDL004 torch.load() without map_location")
    assert run(["-"], stdin_text=CLEAN) == (0, "", "")
    code, _, err = run(["-"], stdin_text="def (:\n")
    assert code == 2 and err.startswith("torchdoctor: error: stdin: cannot parse:")


def test_stdin_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run(["-"], stdin_text="#" * (MAX_BYTES + 1))
    assert (code, out) == (2, "")
    assert err == "torchdoctor: error: stdin: more than 10 MiB on standard input, not linted\n"

    class Stdin:
        buffer = io.BytesIO(LOAD.encode())

    monkeypatch.setattr(command.sys, "stdin", Stdin)
    assert run(["-"])[0] == 1


def test_a_file_over_10_mib_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.py"
    big.write_bytes(b"#" * (MAX_BYTES + 1))
    code, _, err = run([str(big)])
    assert code == 2
    assert err == f"torchdoctor: error: {big}: larger than 10 MiB, not linted\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    (tmp_path / "bad.py").write_text(LOAD)
    assert run([str(tmp_path)])[0] == 1  # inside a folder: skipped
    code, _, err = run([str(fifo)])  # named: refused, without blocking on the open
    assert code == 2
    assert err == f"torchdoctor: error: {fifo}: not a regular file, not linted\n"


def test_a_device_is_not_read() -> None:
    code, _, err = run([os.devnull])
    assert code == 2 and err == f"torchdoctor: error: {os.devnull}: not a regular file, not linted\n"


def test_folders_skip_hidden_dirs_venvs_and_caches(tmp_path: Path) -> None:
    for folder in (".git", "__pycache__", "env", "pkg", "pkg/.hidden", "conda/conda-meta"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    for name in (".git/a.py", "__pycache__/b.py", "env/c.py", "pkg/.hidden/d.py", "conda/e.py", ".f.py"):
        (tmp_path / name).write_text(LOAD)
    (tmp_path / "pkg" / "g.py").write_text(LOAD)
    (tmp_path / "pkg" / "notes.txt").write_text(LOAD)
    code, out, _ = run([str(tmp_path)])
    assert code == 1
    assert [line.split(":")[0] for line in out.splitlines()] == [str(tmp_path / "pkg" / "g.py")]


def test_the_order_is_path_line_col_rule(tmp_path: Path) -> None:
    for name in ("b.py", "a.py", "c/a.py"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("import torch\nx = torch.zeros(1)\nx.cuda(); torch.load(p)\n")
    _, out, _ = run([str(tmp_path / "c"), str(tmp_path)], output_format="json")
    keys = [(item["path"], item["line"], item["col"], item["rule"]) for item in json.loads(out)]
    assert keys == sorted(keys)
    assert len(keys) == 6  # c/a.py named twice is linted once


def test_many_files_are_linted_in_parallel_with_the_same_result(tmp_path: Path) -> None:
    for index in range(60):
        (tmp_path / f"m{index:02d}.py").write_text(LOAD if index % 3 else CLEAN)
    (tmp_path / "broken.py").write_text("def (:\n")
    code, out, err = run([str(tmp_path)])
    assert code == 2
    assert len(out.splitlines()) == 40
    assert err.count("\n") == 1


def test_python_dash_m_runs_without_traceback(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text(LOAD)
    done = subprocess.run(
        [sys.executable, "-m", "torchdoctor.lint", "--format", "json", str(tmp_path), str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert '"rule": "TDL004"' in done.stdout
    assert "Traceback" not in done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "torchdoctor.lint", "-", "--select", "TDL004", "--json"],
        input=LOAD,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1 and '"path": "stdin"' in done.stdout


@pytest.mark.skipif(sys.platform != "linux", reason="needs a file name that is not UTF-8")
def test_an_undecodable_file_name_on_an_ascii_stream(tmp_path: Path) -> None:
    name = os.fsdecode(b"caf\xe9.py")
    (tmp_path / name).write_text(LOAD)
    out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    code = run_lint([str(tmp_path)], stdout=out, stderr=io.StringIO())
    out.flush()
    text = out.buffer.getvalue().decode("ascii")  # type: ignore[attr-defined]
    assert code == 1
    assert "caf\\udce9.py':2:9: TDL004" in text  # quoted, the undecodable byte written as its escape
