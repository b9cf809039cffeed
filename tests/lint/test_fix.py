"""--fix and --diff: the one safe rewrite of TDL001, TDL002 and TDL004, applied until nothing is left to
rewrite, written atomically; bad input to --fix changes nothing and says so in one line."""

from __future__ import annotations

import io
import json
import os
import stat
import sys
import textwrap
from pathlib import Path

import pytest

from torchdoctor.lint import command
from torchdoctor.lint.command import run_lint
from torchdoctor.lint.rules import DEFAULT_RULES

from corpus_tools.lint_fixes import round_trip

CODE = textwrap.dedent(
    """\
    import torch
    import torch.nn as nn


    class Net(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.mask = torch.zeros(n)
            self.fc = nn.Linear(n, n)

        def forward(self, x):
            return self.fc(x) * self.mask


    x = torch.zeros(3)
    x.cuda(); x.float()
    net = Net(3)
    net.load_state_dict(torch.load("w.pt"))
    ckpt = torch.load("c.pt",)
    net.load_state_dict(ckpt["model"])
    epoch = ckpt["epoch"]
    other = torch.load("o.pt")
    print(other + 1)
    """
)
FIXED = (
    CODE.replace(
        "self.mask = torch.zeros(n)", 'self.register_buffer("mask", torch.zeros(n), persistent=False)'
    )
    .replace("x.cuda(); x.float()", "x = x.cuda(); x = x.float()")
    .replace('torch.load("w.pt")', 'torch.load("w.pt", map_location="cpu")')
    .replace('torch.load("c.pt",)', 'torch.load("c.pt", map_location="cpu",)')
)


def run(*paths: str, **options: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_lint(list(paths), stdout=out, stderr=err, **options)  # type: ignore[arg-type]
    return code, out.getvalue(), err.getvalue()


def test_diff_shows_the_rewrites_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text(CODE)
    code, out, err = run(str(path), diff=True)
    # torch.load("o.pt") feeds `other + 1`: no rewrite, counted on stderr so the diff on stdout stays a patch
    assert (code, err) == (
        1,
        "torchdoctor lint: 1 finding(s) without a rewrite (lint without --diff lists them)\n",
    )
    assert out.startswith(f"--- a/{path}\n+++ b/{path}\n")
    removed = [line[1:] for line in out.splitlines() if line.startswith("-") and not line.startswith("---")]
    added = [line[1:] for line in out.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert len(removed) == len(added) == 4
    assert path.read_text() == CODE


def test_fix_rewrites_until_nothing_is_left_and_a_second_run_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text(CODE)
    path.chmod(0o640)
    code, out, err = run(str(path), fix=True)
    assert path.read_text() == FIXED
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert code == 1  # torch.load("o.pt") feeds `other + 1`: map_location would change that, so no rewrite
    assert [line.split(": ", 1)[1].split()[0] for line in out.splitlines()] == ["TDL004"]
    assert err == "torchdoctor lint: fixed 5 finding(s) in 1 file(s)\n"
    assert run(str(path), fix=True) == (1, out, "")
    code, diff, err = run(str(path), diff=True)
    assert (code, diff) == (1, "") and "1 finding(s) without a rewrite" in err  # exit 1: a finding is left
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left


@pytest.mark.parametrize(
    "init",
    [
        "self.mask = torch.zeros(n)\n        super().__init__()",  # a buffer needs the module set up first
        "super().__init__()\n        self.mask = torch.zeros(n)\n        self.mask = [1, 2]",  # not a tensor
    ],
)
def test_no_buffer_rewrite_where_it_would_change_behaviour(tmp_path: Path, init: str) -> None:
    source = CODE.replace("super().__init__()\n        self.mask = torch.zeros(n)", init)
    path = tmp_path / "train.py"
    path.write_text(source)
    _, out, _ = run(str(path), diff=True, select=["TDL002"])
    assert out == ""


def test_bad_input_changes_nothing_and_says_so_in_one_line(tmp_path: Path) -> None:
    readonly = tmp_path / "readonly.py"
    readonly.write_text(CODE)
    readonly.chmod(0o444)
    broken = tmp_path / "broken.py"
    broken.write_text("import torch\nx = torch.zeros(1)\nx.cuda()\ndef (:\n")
    code, _, err = run(str(readonly), str(broken), fix=True)
    assert code == 2
    assert readonly.read_text() == CODE and broken.read_text().endswith("def (:\n")
    lines = err.splitlines()
    assert sorted(lines) == [
        f"torchdoctor: error: {broken}: cannot parse: invalid syntax (line 4)",
        f"torchdoctor: error: {readonly}: read-only, not fixed",
    ]


def test_a_file_changed_after_it_was_linted_is_not_fixed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "train.py"
    path.write_text(CODE)
    linted = command.lint_jobs

    def lint_then_edit(jobs: list[command.Job]) -> command.Linted:
        result = linted(jobs)
        path.write_text(CODE + "# edited meanwhile\n")
        return result

    monkeypatch.setattr(command, "lint_jobs", lint_then_edit)
    code, _, err = run(str(path), fix=True)
    assert code == 2 and err == f"torchdoctor: error: {path}: changed since it was linted, not fixed\n"
    assert path.read_text().endswith("# edited meanwhile\n")


@pytest.mark.skipif(sys.platform == "win32", reason="symbolic links")
def test_links_are_not_replaced(tmp_path: Path) -> None:
    target = tmp_path / "real.py"
    target.write_text(CODE)
    link = tmp_path / "link.py"
    link.symlink_to(target)
    code, _, err = run(str(link), fix=True)
    refused = f"{link}: a symbolic link, not fixed (fix the file it points to)"
    assert code == 2 and err == f"torchdoctor: error: {refused}\n"
    assert link.is_symlink() and target.read_text() == CODE
    hard = tmp_path / "hard.py"
    os.link(target, hard)
    code, _, err = run(str(hard), fix=True)
    assert code == 2 and "has other hard links" in err and target.read_text() == CODE


def test_stdin_takes_a_diff_not_a_fix() -> None:
    code, _, err = run("-", fix=True, stdin_text=CODE)
    assert code == 2 and err.count("\n") == 1 and "--fix rewrites files" in err
    code, out, _ = run("-", diff=True, stdin_text=CODE)
    assert code == 1 and out.startswith("--- a/stdin\n+++ b/stdin\n")


def test_the_encoding_of_the_file_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "latin.py"
    source = "# -*- coding: latin-1 -*-\nimport torch\n# caf\xe9\nx = torch.zeros(1)\nx.cuda()\n"
    path.write_bytes(source.encode("latin-1"))
    assert run(str(path), fix=True)[0] == 0
    assert path.read_bytes() == source.replace("x.cuda()", "x = x.cuda()").encode("latin-1")


CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "lint"
RECORDS = [path for path in sorted(CORPUS.glob("**/*.json")) if "code" in json.loads(path.read_text("utf-8"))]


def test_every_fix_on_the_corpus_compiles_removes_its_finding_and_settles() -> None:
    """The corpus records that hold their code (bench/lint.py does the same for every record whose
    repository it has): each file's rewrites parse, leave no finding with a rewrite, remove the findings they
    were for, and a second pass changes nothing."""
    results = {}
    for record_path in RECORDS:
        record = json.loads(record_path.read_text("utf-8"))
        results[record_path.name] = round_trip(record["code"].encode("utf-8"), record["path"])
    assert {name: r.problem for name, r in results.items() if r.problem} == {}
    assert any(r.rewritten for r in results.values()) or not RECORDS


def test_default_rules_with_rewrites_are_the_documented_ones() -> None:
    assert {"TDL001", "TDL002", "TDL004"} <= DEFAULT_RULES


def test_diff_exits_as_lint_does(tmp_path: Path) -> None:
    """0 with no finding, 1 with findings (a change to show or not), 2 with bad input."""
    clean = tmp_path / "clean.py"
    clean.write_text("import torch\nx = torch.zeros(3)\n")
    assert run(str(clean), diff=True) == (0, "", "")
    unfixable = tmp_path / "unfixable.py"
    unfixable.write_text("import torch\nother = torch.load('o.pt')\nprint(other + 1)\n")
    code, out, err = run(str(unfixable), diff=True)
    assert (code, out) == (1, "") and err.count("\n") == 1
    assert run(str(tmp_path / "missing.py"), diff=True)[0] == 2


def test_a_diff_of_a_crlf_file_keeps_its_line_endings_through_the_cli(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    """``torchdoctor lint --diff`` goes out through the guarded stdout, which shows a lone carriage return as
    an escape; the CR of a CRLF line stays, so ``patch`` applies the diff to the file."""
    from torchdoctor import cli

    original = b"import torch\r\nx = torch.zeros(3)\r\nx.cuda()\r\n"
    path = tmp_path / "crlf.py"
    path.write_bytes(original)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exited:
        cli.main(["lint", "--diff", "crlf.py"])
    assert exited.value.code == 1
    diff = capfdbinary.readouterr().out
    assert b"-x.cuda()\r\n+x = x.cuda()\r\n" in diff
    assert b"\\u000d" not in diff
    assert path.read_bytes() == original


def test_a_file_named_twice_is_linted_and_fixed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "train.py").write_text("import torch\nx = torch.zeros(3)\nx.cuda()\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(".", "train.py", "./train.py", fix=True)
    assert (code, out) == (0, "")
    assert err == "torchdoctor lint: fixed 1 finding(s) in 1 file(s)\n"
    assert (tmp_path / "train.py").read_text() == "import torch\nx = torch.zeros(3)\nx = x.cuda()\n"
    code, out, _ = run(".", "train.py", select=["ALL"], output_format="json")
    assert code == 0 and json.loads(out) == []


def test_a_folder_without_python_files_says_so(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    code, out, err = run(str(tmp_path))
    assert (code, out) == (0, "")
    assert err == f"torchdoctor lint: no Python file to lint in {tmp_path}\n"


TRAINED_OR_STATE = textwrap.dedent(
    """\
    import torch
    import torch.nn as nn


    class Net(nn.Module):
        scale = None

        def __init__(self, n):
            super().__init__()
            # Create parameters
            self.alpha = torch.zeros(n)
            self.beta = torch.zeros(n, requires_grad=True)
            self.gamma = torch.zeros(n)
            self.gamma.requires_grad_()
            self.delta = torch.randn(n, n)
            self.attn_mask = torch.tril(torch.ones(n, n))
            self.index = torch.arange(n).long()
            self.scale = torch.ones(1)
            self.cache = None
            self.cache = torch.zeros(n)
            self.w = nn.Parameter(torch.randn(n, n)).cuda()
            self.epsilon = torch.zeros(n)

        def forward(self, x):
            self.w.double()
            out = x * self.alpha + self.beta + self.gamma + x @ self.delta @ self.attn_mask[self.index]
            return out * self.scale + self.cache + x @ self.w + self.epsilon


    net = Net(3)
    optimizer = torch.optim.SGD([net.epsilon], lr=0.1)
    """
)


def test_fix_decides_parameter_or_buffer_by_the_evidence_and_never_breaks_at_run_time(tmp_path: Path) -> None:
    """nn.Parameter where the code trains the tensor (a comment says so, requires_grad at creation or next,
    an optimizer given it), a buffer where it is state (a mask, an integer index), nothing where the code
    does not say (delta), where the class has the name already (scale), where it was set before (cache), or
    where the receiver is a Parameter (self.w.double() assigned back raises TypeError)."""
    path = tmp_path / "net.py"
    path.write_text(TRAINED_OR_STATE)
    code, out, err = run(str(path), diff=True, select=["TDL001", "TDL002"])
    assert code == 1
    changed = {
        line[1:].strip() for line in out.splitlines() if line.startswith("+") and not line.startswith("+++")
    }
    assert changed == {
        "self.alpha = nn.Parameter(torch.zeros(n))",
        "self.beta = nn.Parameter(torch.zeros(n, requires_grad=True))",
        "self.gamma = nn.Parameter(torch.zeros(n))",
        'self.register_buffer("attn_mask", torch.tril(torch.ones(n, n)), persistent=False)',
        'self.register_buffer("index", torch.arange(n).long(), persistent=False)',
        "self.w = nn.Parameter(torch.randn(n, n))",  # .cuda() of a Parameter is a plain tensor
        "self.epsilon = nn.Parameter(torch.zeros(n))",
    }
    assert "without a rewrite" in err


def test_every_rewrite_on_the_corpus_records_with_code_is_judged_and_none_is_harmful() -> None:
    """bench/lint_fix_review.py judges every rewrite on the whole corpus (it needs git copies of the
    repositories); the records that hold their code are checked here: a new or changed rewrite needs a
    judgement in bench/lint_fix_judged.json, and no judged rewrite may be harmful."""
    from corpus_tools.lint_fixes import rewrites

    judged_path = Path(__file__).resolve().parents[2] / "bench" / "lint_fix_judged.json"
    judged = {entry["key"]: entry for entry in json.loads(judged_path.read_text("utf-8"))["rewrites"]}
    assert all(
        entry["verdict"] in ("accept", "reject", "harmful") and entry["reason"] for entry in judged.values()
    )
    found = []
    for record_path in RECORDS:
        record = json.loads(record_path.read_text("utf-8"))
        found.extend(rewrites(record["code"], record["path"], record_path.stem))
    assert found
    assert [rewrite.key for rewrite in found if rewrite.key not in judged] == []
    assert [rewrite.key for rewrite in found if judged[rewrite.key]["verdict"] == "harmful"] == []
