"""The README's promises: its commands are the ones CI runs, and its plugin example works as written."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest

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


def _examples() -> list[tuple[str, list[str]]]:
    """Each ``$ command`` of the README's text blocks with the lines shown under it."""
    found = []
    for block in re.findall(r"```text\n(.*?)```", README, flags=re.S):
        command, shown = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if command:
                    found.append((command, shown))
                command, shown = line[2:], []
            elif command:
                shown.append(line)
        if command:
            found.append((command, shown))
    return found


# The examples that name files of this repository run here; the others need a GPU or a user's file.
RUNNABLE = [(c, shown) for c, shown in _examples() if " tests/" in c]
VERDICT = re.compile(r"^(PASS|WARN|FAIL|SKIP|ERROR)\s+(\S+)\s+(.*)$")


@pytest.mark.parametrize(("command", "shown"), RUNNABLE, ids=[c.split(" --")[-1][:40] for c, _ in RUNNABLE])
def test_the_readme_examples_that_name_repository_files_run_as_shown(command: str, shown: list[str]) -> None:
    words = shlex.split(command)
    assignments = dict(w.split("=", 1) for w in words if "=" in w.split(" ")[0] and not w.startswith("-"))
    args = [w for w in words if w not in {f"{k}={v}" for k, v in assignments.items()}]
    assert args[0] == "torchdoctor"
    result = run_cli(*args[1:], env=cli_env(**assignments), cwd=REPO, timeout=120)
    output = result.stdout + result.stderr
    errors = [line for line in shown if line.startswith("torchdoctor: error:")]
    if errors:
        assert result.returncode == 2
        assert errors[0] in output
        return
    assert result.returncode in (0, 1), output
    for line in shown:
        match = VERDICT.match(line)
        if match:
            status, check_id, summary = match.groups()
            assert f"{status:<6} {check_id}" in output, line
            assert summary[:60] in output, line
