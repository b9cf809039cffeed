"""The README's promises: its commands are the ones CI runs, and its plugin example works as written."""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from support import cli_env, invoke, validated_report, write_distribution

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
    result = invoke("check", "--only", "acme.scratch", "--json", env=env)
    (verdict,) = validated_report(result.stdout)["verdicts"]
    assert verdict["id"] == "acme.scratch"
    assert verdict["status"] in ("pass", "warn")
    assert "GB free on" in verdict["summary"]


def _examples_tool() -> Any:
    spec = importlib.util.spec_from_file_location("readme_examples", REPO / "tools" / "readme_examples.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("readme_examples", module)
    spec.loader.exec_module(module)
    return module


EXAMPLES = _examples_tool()


def test_every_generated_block_has_its_example_and_every_example_its_block() -> None:
    blocks = EXAMPLES.blocks(README)
    assert sorted(blocks) == sorted(EXAMPLES.BY_NAME)
    for name, body in blocks.items():
        example = EXAMPLES.BY_NAME[name]
        if example.abridge is None:
            assert body.startswith(f"$ {example.command}\n"), name
        else:
            assert f"`{example.command}`" in README, name


def test_a_readme_block_of_a_gpu_machine_is_judged_from_a_fixture_and_says_so() -> None:
    for name, body in EXAMPLES.blocks(README).items():
        if re.search(r"NVIDIA (H100|A100|GeForce|GB)", body.split("\n", 1)[1]) and "triage" not in name:
            assert "--from tests/fixtures/" in body.splitlines()[0] or "diff tests/fixtures/" in body, name


FROM_FILES = [e for e in EXAMPLES.EXAMPLES if not e.live]


@pytest.mark.parametrize("example", FROM_FILES, ids=[e.name for e in FROM_FILES])
def test_the_readme_examples_are_what_the_commands_print_today(example: Any) -> None:
    """Each example run again: it must print what the README shows, but for this machine's headline and
    the seconds it took. On a failure, python tools/readme_examples.py --write NAME rewrites the block."""
    shown, output = EXAMPLES.blocks(README)[example.name], EXAMPLES.run(example, in_process)
    assert EXAMPLES.comparable(example, output) == EXAMPLES.comparable(example, shown)


def in_process(argv: list[str], cwd: Path, env: dict[str, str]) -> str:
    """An example's torchdoctor command run through the CLI in this process (the tool starts a process)."""
    if Path(argv[0]).name != "torchdoctor":
        return str(EXAMPLES.run_process(argv, cwd, env))
    return invoke(*argv[1:], env=env, cwd=cwd, merged=True).stdout


def test_the_drift_comparison_catches_a_changed_word_but_not_a_timing() -> None:
    example = EXAMPLES.BY_NAME["check-from-h100"]
    shown = EXAMPLES.blocks(README)[example.name]
    assert EXAMPLES.comparable(example, shown.replace("fit all", "fit some")) != EXAMPLES.comparable(
        example, shown
    )
    slower = re.sub(r"(no problems in 2 checks), [\d.]+ s", r"\1, 99.9 s", shown)
    assert EXAMPLES.comparable(example, slower) == EXAMPLES.comparable(example, shown)


def test_the_options_synopsis_names_only_options_each_command_takes() -> None:
    import typer.main

    from torchdoctor.cli import build_app, prepare

    run = prepare("list")  # the checks described, no probe worker started
    assert run.workers is not None
    run.workers.close()
    group = typer.main.get_command(build_app(run.declared, run.checks))
    synopsis = _block_after("torchdoctor check [--only IDS]", "text")
    shown: dict[str, set[str]] = {}
    command = ""
    for line in synopsis.splitlines():
        words = line.split()
        if words and words[0] == "torchdoctor":
            command = words[1] if len(words) > 1 and not words[1].startswith("-") else ""
        shown.setdefault(command, set()).update(re.findall(r"--[a-z][a-z-]*", line))
    for name, flags in shown.items():
        if not name:
            continue
        takes = {opt for param in group.commands[name].params for opt in param.opts}  # type: ignore[attr-defined]
        takes |= {opt for param in group.commands[name].params for opt in param.secondary_opts}  # type: ignore[attr-defined]
        assert flags <= takes, (name, flags - takes)


def test_the_audit_example_prints_what_the_readme_shows(capsys: pytest.CaptureFixture[str]) -> None:
    source = _block_after("import torch\nfrom torch import nn\n\nimport torchdoctor\n", "python")
    exec(compile(source, "README.md", "exec"), {"__name__": "readme_example"})
    assert capsys.readouterr().out == _block_after("torchdoctor.audit: ", "text")
