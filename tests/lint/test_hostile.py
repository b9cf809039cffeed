"""Hostile input to lint: a configuration that is not what it should be, inputs that would make a
superlinear linter hang, a file too deep to analyse, and file names that try to act on the terminal or on a
CI runner. Growth checks compare the work at n and 4n with generous slack (linear is 4x, quadratic 16x)."""

from __future__ import annotations

import io
import json
import os
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path, PurePath
from urllib.parse import unquote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from torchdoctor.lint import lint_source
from torchdoctor.lint.command import run_lint
from torchdoctor.lint.config import MAX_PYPROJECT_BYTES, LintConfig
from torchdoctor.lint.output import _uri
from torchdoctor.lint.rules import ALL_RULES

LOAD = "import torch\nstate = torch.load(path)\n"


def run(paths: list[str], **options: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_lint(paths, stdout=out, stderr=err, **options)  # type: ignore[arg-type]
    return code, out.getvalue(), err.getvalue()


def growth(work: Callable[[int], object], n: int) -> float:
    """CPU time of work(4n) over work(n), each the best of three."""

    def best(size: int) -> float:
        times = []
        for _ in range(3):
            started = time.process_time()
            work(size)
            times.append(time.process_time() - started)
        return max(min(times), 1e-4)

    return best(4 * n) / best(n)


# -- configuration ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[tool]\ntorchdoctor = "x"\n', "[tool.torchdoctor] must be a table"),
        ("tool = 5\n# torchdoctor\n", "[tool] must be a table"),
        ("[tool.torchdoctor]\nlint = [1, 2]\n", "[tool.torchdoctor.lint] must be a table"),
        ("x = " + "[" * 5000 + "]" * 5000 + "\n# torchdoctor\n", "cannot parse"),
        ("[tool.torchdoctor.lint]\nselect = ['TDL001'\n", "cannot parse"),
        ("[tool.torchdoctor.lint]\nexclude = [1]\n", "exclude must be a list of strings"),
        ('[tool.torchdoctor.lint]\n"per-file-ignores" = 3\n', "per-file-ignores must be a table"),
    ],
)
def test_a_configuration_that_is_not_one_is_one_line_and_exit_2(
    tmp_path: Path, text: str, message: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(text)
    (tmp_path / "a.py").write_text(LOAD)
    code, out, err = run([str(tmp_path)])
    assert (code, out) == (2, "")
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_huge_pyproject_is_not_read_whole(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("# torchdoctor\n" + "#" * MAX_PYPROJECT_BYTES)
    (tmp_path / "a.py").write_text(LOAD)
    code, _, err = run([str(tmp_path)])
    assert code == 2 and "not read" in err and err.count("\n") == 1


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_pyproject_that_is_a_fifo_is_not_opened_for_reading(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pyproject.toml")
    (tmp_path / "a.py").write_text(LOAD)
    assert run([str(tmp_path)])[0] == 1  # not a regular file: no configuration there


# -- linear time ---------------------------------------------------------------------------------------------


def chained_subclasses(n: int) -> str:
    lines = ["import torch", "import torch.nn as nn", "class C0(nn.Module):", "    def __init__(self):"]
    lines += ["        super().__init__()", "        self.m = torch.zeros(1)"]
    for index in range(1, n):
        lines += [f"class C{index}(C{index - 1}):", "    def forward(self, x):", "        return x + self.m"]
    return "\n".join(lines) + "\n"


def test_chained_subclasses_cost_linear_time() -> None:
    sources = {n: chained_subclasses(n) for n in (100, 400)}
    found = lint_source(sources[400], "chain.py", ALL_RULES)
    assert [(f.rule, f.line) for f in found] == [("TDL002", 6)]
    assert growth(lambda n: lint_source(sources[n], "chain.py", ALL_RULES), 100) < 10


def test_exclude_patterns_cost_linear_time(tmp_path: Path) -> None:
    paths = [str(tmp_path / f"pkg{index}" / "mod.py") for index in range(40)]

    def exclude(n: int) -> None:
        config = LintConfig(
            source=tmp_path / "pyproject.toml", exclude=tuple(f"d{i}/*x{i}.py" for i in range(n))
        )
        assert not any(config.excluded(path) for path in paths)

    assert growth(exclude, 200) < 10


def test_a_long_noqa_comment_costs_linear_time() -> None:
    def lint(n: int) -> None:
        comment = "# noqa: " + ", ".join(f"TDL{index:03d}" for index in range(n)) + "!"
        lint_source(LOAD.rstrip("\n") + "  " + comment + "\n", "a.py", ALL_RULES)

    assert growth(lint, 500) < 10


def test_a_file_too_deep_to_analyse_is_reported_not_skipped(tmp_path: Path) -> None:
    deep = tmp_path / "deep.py"
    deep.write_text("import torch\nx = torch.zeros(1)" + ".float()" * 900 + "\nx.cuda()\ny = torch.load(p)\n")
    (tmp_path / "ok.py").write_text(LOAD)
    code, out, err = run([str(tmp_path)])
    assert code == 2
    assert "ok.py:2:9: TDL004" in out
    refused = "not analysed: nested too deeply for the analysis (findings in it are not reported)"
    assert err == f"torchdoctor: error: {deep}: {refused}\n"


def test_a_long_sum_is_analysed(tmp_path: Path) -> None:
    code = "import torch\nx = torch.zeros(1)\ny = " + " + ".join(["x"] * 1500) + "\ny.cuda()\n"
    assert [(f.rule, f.line) for f in lint_source(code, "sum.py", ALL_RULES)] == [("TDL001", 4)]


# -- foreign text --------------------------------------------------------------------------------------------

HOSTILE_NAMES = [
    "::error file=x.py::forged.py",
    "  ::warning::forged.py",
    "##[error]forged.py",
    "line\nbreak.py",
    "carriage\rreturn.py",
    "\x1b]0;title\x07.py",
    "csi\x1b[2J.py",
    "c1\x9b31m.py",
    "sep\u2028arator.py",
    "back\bspace.py",
    "bidi\u202egnp.py",
]


def inert(text: str) -> bool:
    """No line starts a workflow command, no ##[ marker, no control or separator character but the newline."""
    for line in text.split("\n"):
        if line.lstrip().startswith("::") or "##[" in line:
            return False
        if any(unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp") for char in line):
            return False
    return True


@pytest.mark.parametrize("name", HOSTILE_NAMES)
@pytest.mark.parametrize("output_format", ["text", "github"])
def test_file_names_are_inert_in_findings(tmp_path: Path, name: str, output_format: str) -> None:
    path = tmp_path / name
    path.write_text(LOAD)
    code, out, err = run([str(path)], output_format=output_format)
    assert code == 1 and err == ""
    assert out.count("\n") == 1
    if output_format == "github":
        assert out.startswith("::error file=") and inert(out.split("::", 2)[2])
    else:
        assert inert(out)


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_file_names_are_inert_in_errors(tmp_path: Path, name: str) -> None:
    broken = tmp_path / name
    broken.write_text("def (:\n")
    code, _, err = run([str(broken), str(tmp_path / (name + ".missing"))])
    assert code == 2
    assert err.count("\n") == 2 and inert(err)


def test_the_json_output_keeps_the_name_exact(tmp_path: Path) -> None:
    path = tmp_path / "line\nbreak.py"
    path.write_text(LOAD)
    _, out, _ = run([str(path)], output_format="json")
    assert json.loads(out)[0]["path"] == str(path)


def test_a_file_named_like_an_option_is_a_path_for_the_pre_commit_hook() -> None:
    hooks = (Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml").read_text()
    entries = [
        line.split(":", 1)[1].strip() for line in hooks.splitlines() if line.strip().startswith("entry:")
    ]
    assert entries == ["torchdoctor lint --"]


def test_after_the_double_dash_an_option_is_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from torchdoctor.lint.__main__ import main

    (tmp_path / "--ignore=ALL").write_text(LOAD)
    monkeypatch.chdir(tmp_path)
    assert main(["--", "--ignore=ALL"]) == 1


# -- noqa lines as the tokenizer counts them ----------------------------------------------------------------

ODD_BREAKS = ["\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


@settings(max_examples=60, deadline=None)
@given(
    comments=st.lists(st.sampled_from(ODD_BREAKS), min_size=1, max_size=6),
    crlf=st.booleans(),
    noqa=st.booleans(),
)
def test_noqa_is_read_on_the_line_python_reports(comments: list[str], crlf: bool, noqa: bool) -> None:
    end = "\r\n" if crlf else "\n"
    lines = ["import torch", *(f"# a comment{odd}with a break python does not count" for odd in comments)]
    lines.append("state = torch.load(path)" + ("  # noqa: TDL004" if noqa else ""))
    source = end.join(lines) + end
    found = [(f.rule, f.line) for f in lint_source(source, "a.py", frozenset({"TDL004"}))]
    assert found == ([] if noqa else [("TDL004", len(lines))])


# -- SARIF URIs ----------------------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet=st.characters(blacklist_characters="\x00/", blacklist_categories=("Cs",)), min_size=1)
)
def test_sarif_uris_are_percent_encoded(name: str) -> None:
    for path in (name, f"dir/{name}", f"/abs/{name}"):
        uri = _uri(path)
        assert all(char.isascii() and (char.isalnum() or char in "-._~/%:") for char in uri)
        assert ":" not in uri.removeprefix("file:")
        assert unquote(uri.removeprefix("file://")) == PurePath(path).as_posix()
