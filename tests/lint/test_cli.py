"""`torchdoctor lint` through the installed CLI, and the explain entries its findings point to."""

from __future__ import annotations

import json
from pathlib import Path

from torchdoctor.checking import exitcodes

from support import invoke

CODE = """\
import torch

x = torch.zeros(3)
x.cuda()
state = torch.load("model.pt")
"""


def test_lint_reports_findings_with_exit_1_and_json(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(CODE)
    result = invoke("lint", "train.py", cwd=tmp_path)
    assert result.returncode == exitcodes.THRESHOLD, result.stderr
    assert result.stdout.splitlines()[0].startswith("train.py:4:1: TDL001 ")
    found = json.loads(invoke("lint", "--json", "train.py", cwd=tmp_path).stdout)
    assert [f["rule"] for f in found] == ["TDL001", "TDL004"]


def test_a_clean_file_exits_0_and_a_missing_path_exits_2(tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text("import torch\n\nx = torch.zeros(3).cuda()\n")
    assert invoke("lint", "ok.py", cwd=tmp_path).returncode == exitcodes.OK
    missing = invoke("lint", "nope.py", cwd=tmp_path)
    assert missing.returncode == exitcodes.USAGE
    assert len(missing.stderr.splitlines()) == 1


def test_every_see_line_names_an_entry_explain_knows(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(CODE)
    result = invoke("lint", "--show-fixes", "train.py", cwd=tmp_path)
    seen = [line.split("torchdoctor explain ", 1)[1] for line in result.stdout.splitlines() if "see:" in line]
    assert seen == ["tensors.different_devices", "load.map_location"]
    for entry_id in seen:
        explained = invoke("explain", entry_id, "--json")
        assert explained.returncode == exitcodes.OK
        assert json.loads(explained.stdout)[0]["id"] == entry_id


def test_the_pre_commit_entry_takes_a_file_named_like_an_option_as_a_path(tmp_path: Path) -> None:
    (tmp_path / "--ignore=ALL").write_text(CODE)
    result = invoke("lint", "--", "--ignore=ALL", cwd=tmp_path)
    assert result.returncode == exitcodes.THRESHOLD, result.stderr
    assert result.stdout.startswith("--ignore=ALL:4:1: TDL001 ")


def test_tdl006_advice_agrees_with_the_explain_entry_it_names() -> None:
    """The entry says calling .pin_memory() before each copy is slower than a plain copy and points at the
    DataLoader's pin_memory=True: the rule's fix says the same and never advises the slower path."""
    from torchdoctor.explain.catalogue import installed
    from torchdoctor.lint.rules import RULES

    rule = next(rule for rule in RULES if rule.id == "TDL006")
    entry = next(entry for entry in installed() if entry.id == rule.explain)
    assert "pin_memory=True" in entry.fix.text and "slower" in entry.fix.text
    assert "pin_memory=True" in rule.fix
    assert ".pin_memory()" not in rule.fix and "slower" in rule.fix
