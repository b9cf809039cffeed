"""The README's promises: its commands are the ones CI runs, and its plugin example works as written."""

from __future__ import annotations

import os
import re
from pathlib import Path

from support import cli_env, run_cli, validated_report, write_distribution

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()


def _block_after(marker: str, language: str) -> str:
    blocks = re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)
    return next(block for block in blocks if block.startswith(marker))


def test_ci_runs_exactly_the_readme_test_command() -> None:
    setup = README.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.*?)\n```", setup, flags=re.S)
    assert len(commands) == 2, "the set-up is two commands"
    install_and_check, install_and_test = commands
    assert "torchdoctor check" in install_and_check
    ci = (REPO / ".ci" / "run").read_text().splitlines()
    assert install_and_test in ci


def test_the_plugin_example_runs_as_a_plugin(tmp_path: Path) -> None:
    source = _block_after("# acme_doctor.py", "python")
    entry = re.search(r'"acme\.scratch" = "(.*?)"', _block_after("# pyproject.toml of the plugin", "toml"))
    assert entry is not None
    site = tmp_path / "site"
    write_distribution(site, "acme-doctor", "0.1", "acme_doctor", source, {"acme.scratch": entry[1]})
    (tmp_path / "scratch").mkdir()
    env = cli_env(ACME_SCRATCH=str(tmp_path / "scratch"))
    env["PYTHONPATH"] = os.pathsep.join([str(site), env["PYTHONPATH"]])
    result = run_cli("check", "--only", "acme.scratch", "--json", env=env)
    (verdict,) = validated_report(result.stdout)["verdicts"]
    assert verdict["id"] == "acme.scratch"
    assert verdict["status"] in ("pass", "warn")
    assert "GB free on" in verdict["summary"]
