"""The flake8 plugin: directly, and through flake8 itself (a local plugin, as the entry point would be)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from torchdoctor.lint.flake8 import TorchdoctorLint

CODE = (
    "import torch\n"
    "device = torch.device('cuda')\n"
    "state = torch.load(path)\n"
    "other = torch.load(p)  # noqa: TDL004\n"
)


def test_run_yields_flake8_tuples() -> None:
    plugin = TorchdoctorLint(ast.parse(CODE), "train.py")
    results = list(plugin.run())
    assert [(line, col, text.split()[0], kind) for line, col, text, kind in results] == [
        (3, 8, "TDL004", TorchdoctorLint),  # flake8 columns are 0-based
        (4, 8, "TDL004", TorchdoctorLint),  # flake8 itself applies noqa
    ]
    assert results[0][2].startswith("TDL004 torch.load() without map_location")
    assert isinstance(TorchdoctorLint.name, str) and isinstance(TorchdoctorLint.version, str)


def flake8(tmp_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """flake8 as a user runs it: the plugin comes from torchdoctor's flake8.extension entry point."""
    (tmp_path / "setup.cfg").write_text("[flake8]\nselect = TDL\n")
    (tmp_path / "train.py").write_text(CODE)
    return subprocess.run(
        [sys.executable, "-m", "flake8", *options, "train.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )


def test_through_flake8(tmp_path: Path) -> None:
    done = flake8(tmp_path)
    assert done.stderr == ""
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "train.py:3:9: TDL004 torch.load() without map_location: a checkpoint saved on a GPU fails to load "
        "on a machine without one"
    ]


def test_through_flake8_with_the_advice_rules(tmp_path: Path) -> None:
    done = flake8(tmp_path, "--torchdoctor-advice")
    assert [line.split(": ", 1)[1].split()[0] for line in done.stdout.splitlines()] == ["TDL101", "TDL004"]
