"""The four output formats: text, json, github workflow commands, SARIF 2.1.0 (checked structurally)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from torchdoctor.lint.command import run_lint
from torchdoctor.lint.output import as_github, render
from torchdoctor.lint.rules import RULES, RULES_BY_ID

CODE = "import torch\nx = torch.zeros(2)\nx.cuda()\nstate = torch.load(path)\n"


def lint_file(tmp_path: Path, output_format: str, show_fixes: bool = False) -> tuple[int, str]:
    path = tmp_path / "train.py"
    path.write_text(CODE)
    out = io.StringIO()
    code = run_lint(
        [str(path)], output_format=output_format, show_fixes=show_fixes, stdout=out, stderr=io.StringIO()
    )
    return code, out.getvalue()


def test_text(tmp_path: Path) -> None:
    code, text = lint_file(tmp_path, "text")
    path = tmp_path / "train.py"
    assert code == 1
    assert text.splitlines() == [
        f"{path}:3:1: TDL001 x.cuda() on a tensor discards its result: Tensor.cuda() returns a new tensor "
        "and x is unchanged",
        f"{path}:4:9: TDL004 torch.load() without map_location: a checkpoint saved on a GPU fails to load "
        "on a machine without one",
    ]


def test_text_with_fixes(tmp_path: Path) -> None:
    _, text = lint_file(tmp_path, "text", show_fixes=True)
    lines = text.splitlines()
    assert lines[1] == "    fix: assign the result: x = x.cuda(...)"
    assert lines[2] == "    see: torchdoctor explain tensors.different_devices"
    assert lines[5] == "    see: torchdoctor explain load.map_location"


def test_json(tmp_path: Path) -> None:
    code, text = lint_file(tmp_path, "json")
    items = json.loads(text)
    assert code == 1
    assert [sorted(item) for item in items] == [
        ["col", "end_line", "explain", "fix", "level", "line", "message", "path", "rule"]
    ] * 2
    assert items[1] == {
        "path": str(tmp_path / "train.py"),
        "line": 4,
        "col": 9,
        "end_line": 4,
        "rule": "TDL004",
        "level": "error",
        "message": RULES_BY_ID["TDL004"].message,
        "fix": RULES_BY_ID["TDL004"].fix,
        "explain": "load.map_location",
    }


def test_json_of_a_clean_tree_is_an_empty_list(tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text("import torch\n")
    out = io.StringIO()
    assert run_lint([str(tmp_path)], output_format="json", stdout=out, stderr=io.StringIO()) == 0
    assert json.loads(out.getvalue()) == []


def test_github(tmp_path: Path) -> None:
    _, text = lint_file(tmp_path, "github")
    first = text.splitlines()[0]
    path = str(tmp_path / "train.py")
    assert first.startswith(f"::error file={path},line=3,col=1,title=TDL001::x.cuda() on a tensor")


def test_github_escapes_what_would_end_a_property_or_the_command() -> None:
    from torchdoctor.lint.findings import Finding

    finding = Finding("a,b:c%.py", 1, 1, "TDL004", end_line=1, end_col=2)
    line = as_github(finding)
    assert line.startswith("::error file=a%2Cb%3Ac%25.py,line=1,col=1,title=TDL004::")
    assert "\n" not in line


def check_sarif(log: dict[str, Any]) -> None:
    """The parts of SARIF 2.1.0 that code-scanning consumers read, with their types."""
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-2.1.0.json")
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert isinstance(driver["name"], str) and isinstance(driver["version"], str)
    ids = [rule["id"] for rule in driver["rules"]]
    assert ids == [rule.id for rule in RULES]
    for rule in driver["rules"]:
        assert isinstance(rule["shortDescription"]["text"], str)
        assert isinstance(rule["help"]["text"], str)
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note", "none")
        assert "{" not in rule["fullDescription"]["text"]
    for result in run["results"]:
        assert ids[result["ruleIndex"]] == result["ruleId"]
        assert result["level"] in ("error", "warning", "note", "none")
        assert isinstance(result["message"]["text"], str) and result["message"]["text"]
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        assert isinstance(physical["artifactLocation"]["uri"], str)
        region = physical["region"]
        assert 1 <= region["startLine"] <= region["endLine"]
        assert region["startColumn"] >= 1 and region["endColumn"] >= 1


def test_sarif(tmp_path: Path) -> None:
    code, text = lint_file(tmp_path, "sarif")
    log = json.loads(text)
    check_sarif(log)
    results = log["runs"][0]["results"]
    assert code == 1
    assert [r["ruleId"] for r in results] == ["TDL001", "TDL004"]
    uri = results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == (tmp_path / "train.py").as_uri()


def test_sarif_with_relative_paths_and_no_results() -> None:
    from torchdoctor.lint.findings import Finding

    finding = Finding("src/train.py", 2, 5, "TDL102", end_line=3, end_col=9)
    log = json.loads(render([finding], "sarif"))
    check_sarif(log)
    result = log["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "src/train.py"
    assert result["level"] == "warning"  # a performance rule
    empty = json.loads(render([], "sarif"))
    check_sarif(empty)
    assert empty["runs"][0]["results"] == []


@pytest.mark.parametrize("output_format", ["text", "github"])
def test_no_findings_no_output(tmp_path: Path, output_format: str) -> None:
    assert render([], output_format) == ""


LEVELS = {
    "TDL001": "error",
    "TDL002": "error",
    "TDL003": "error",
    "TDL004": "error",
    "TDL005": "error",
    "TDL006": "warning",
    "TDL007": "error",
    "TDL101": "note",
    "TDL102": "warning",
    "TDL103": "note",
    "TDL104": "note",
}


def test_levels_bugs_are_errors_performance_warnings_advice_notes() -> None:
    from torchdoctor.lint.findings import Finding

    assert {rule.id: rule.level for rule in RULES} == LEVELS
    commands = {"error": "::error ", "warning": "::warning ", "note": "::notice "}
    for rule, level in LEVELS.items():
        finding = Finding("a.py", 1, 1, rule, end_line=1, end_col=2)
        assert as_github(finding).startswith(commands[level])
        log = json.loads(render([finding], "sarif"))
        assert log["runs"][0]["results"][0]["level"] == level
        configured = {
            entry["id"]: entry["defaultConfiguration"]["level"]
            for entry in log["runs"][0]["tool"]["driver"]["rules"]
        }
        assert configured[rule] == level
        assert json.loads(render([finding], "json"))[0]["level"] == level
