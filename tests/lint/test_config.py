"""[tool.torchdoctor.lint] in the nearest pyproject.toml, and the command line over it."""

from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path

import pytest

from torchdoctor.lint.command import run_lint
from torchdoctor.lint.config import ConfigError, LintConfig, find_pyproject, load_config, select_rules
from torchdoctor.lint.rules import DEFAULT_RULES, UnknownRuleError

LOAD = "import torch\nstate = torch.load(path)\n"
DISCARD = "import torch\nx = torch.zeros(2)\nx.cuda()\n"
FALLBACKLESS = "import torch\ndevice = torch.device('cuda')\n"


def project(tmp_path: Path, table: str, files: dict[str, str]) -> Path:
    (tmp_path / "pyproject.toml").write_text(
        "[project]\nname = 'demo'\n\n[tool.torchdoctor.lint]\n" + textwrap.dedent(table)
    )
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def rules_reported(
    root: Path, *paths: str, select: list[str] | None = None, ignore: list[str] | None = None
) -> tuple[int, list[str], str]:
    """(exit code, sorted "RULE@file name" of the findings, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    targets = [str(root / path) for path in paths] or [str(root)]
    code = run_lint(targets, select=select, ignore=ignore, output_format="json", stdout=out, stderr=err)
    found = [f"{item['rule']}@{Path(item['path']).name}" for item in json.loads(out.getvalue() or "[]")]
    return code, sorted(found), err.getvalue()


def test_without_a_table_the_default_rules_apply(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    (tmp_path / "a.py").write_text(LOAD + FALLBACKLESS)
    config = load_config([str(tmp_path / "a.py")])
    assert config.source != tmp_path / "pyproject.toml"
    assert select_rules(LintConfig(), None, None).rules == DEFAULT_RULES


def test_select_ignore_and_extend_select(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        'select = ["TDL001", "TDL004"]\nignore = ["TDL004"]\nextend-select = ["TDL101"]\n',
        {"a.py": LOAD, "b.py": DISCARD, "c.py": FALLBACKLESS},
    )
    assert rules_reported(root) == (1, ["TDL001@b.py", "TDL101@c.py"], "")


def test_the_command_line_select_replaces_the_configuration(tmp_path: Path) -> None:
    root = project(tmp_path, 'ignore = ["TDL004"]\n', {"a.py": LOAD, "b.py": DISCARD})
    assert rules_reported(root) == (1, ["TDL001@b.py"], "")
    assert rules_reported(root, select=["TDL004"]) == (1, ["TDL004@a.py"], "")
    assert rules_reported(root, ignore=["TDL001"]) == (0, [], "")  # --ignore adds to the configured ignore


def test_exclude_and_per_file_ignores(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        'exclude = ["generated", "legacy_*.py"]\n'
        '[tool.torchdoctor.lint.per-file-ignores]\n"tests/*" = ["TDL004"]\n',
        {
            "generated/a.py": LOAD,
            "legacy_b.py": LOAD,
            "tests/test_c.py": LOAD + "x = torch.zeros(2)\nx.cuda()\n",
            "d.py": LOAD,
        },
    )
    assert rules_reported(root) == (1, ["TDL001@test_c.py", "TDL004@d.py"], "")


def test_the_nearest_pyproject_with_the_table_wins(tmp_path: Path) -> None:
    project(tmp_path, 'select = ["TDL001"]\n', {})
    inner = tmp_path / "pkg"
    inner.mkdir()
    (inner / "pyproject.toml").write_text("[project]\nname = 'no-table-here'\n")
    (inner / "a.py").write_text(LOAD + "x = torch.zeros(2)\nx.cuda()\n")
    assert find_pyproject([str(inner / "a.py")]) == tmp_path / "pyproject.toml"
    assert rules_reported(inner, "a.py") == (1, ["TDL001@a.py"], "")


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('select = ["TDL999"]\n', "unknown rule id 'TDL999'"),
        ('selekt = ["TDL001"]\n', "unknown key 'selekt'"),
        ("select = 3\n", "select must be a list of strings"),
        ('[tool.torchdoctor.lint.per-file-ignores]\n"x.py" = ["NOPE1"]\n', "unknown rule id 'NOPE1'"),
        ("select = [\n", "cannot parse"),
    ],
)
def test_a_bad_configuration_is_one_line_and_exit_2(tmp_path: Path, table: str, message: str) -> None:
    root = project(tmp_path, table, {"a.py": LOAD})
    code, lines, err = rules_reported(root)
    assert (code, lines) == (2, [])
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_selectors_are_ids_prefixes_or_all() -> None:
    assert select_rules(LintConfig(), ["TDL1"], None).rules == {"TDL101", "TDL102", "TDL103", "TDL104"}
    assert select_rules(LintConfig(), ["tdl001,TDL004"], None).rules == {"TDL001", "TDL004"}
    assert len(select_rules(LintConfig(), ["ALL"], ["TDL1"]).rules) == 7
    with pytest.raises(UnknownRuleError, match="unknown rule id 'E501' in --select"):
        select_rules(LintConfig(), ["E501"], None)


def test_a_table_that_is_not_a_table_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.torchdoctor]\nlint = 3\n")
    with pytest.raises(ConfigError, match="must be a table"):
        load_config([str(tmp_path)])
