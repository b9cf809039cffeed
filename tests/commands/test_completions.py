"""The shell completions in completions/: generated from the CLI, and completing what the CLI has.

The scripts hand every TAB to torchdoctor itself; these tests fail when a script is stale (not what
``python -m torchdoctor.commands.completions`` writes today), or when completing through it no longer yields
the CLI's commands, options, option values or check ids. bash runs for real; zsh and fish are not installed
here, so their requests are made the way their scripts make them.
"""

from __future__ import annotations

import functools
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import typer

from torchdoctor.checking import registry
from torchdoctor.cli import build_app, prepare
from torchdoctor.commands import completions

from support import BIN, cli_env, invoke

REPO = Path(__file__).resolve().parents[2]
FOLDER = REPO / "completions"


@functools.cache
def cli_tree() -> dict[str, list[str]]:
    """Every command of the CLI with its option names (the installed checks' included), read from the
    click command typer builds (the checks described as for ``list``: no probe worker is started)."""
    run = prepare("list")
    assert run.workers is not None
    run.workers.close()
    group = typer.main.get_command(build_app(run.declared))
    assert isinstance(group, typer.core.TyperGroup)
    return {
        name: sorted(opt for param in command.params for opt in param.opts if opt.startswith("--"))
        for name, command in group.commands.items()
    }


def bash_complete(*words: str) -> list[str]:
    """Source completions/torchdoctor.bash in a real bash and press TAB after ``torchdoctor WORDS``."""
    line = ["torchdoctor", *words]
    script = (
        f"source {shlex.quote(str(FOLDER / 'torchdoctor.bash'))}\n"
        f"COMP_WORDS=({' '.join(shlex.quote(w) for w in line)})\n"
        f"COMP_CWORD={len(line) - 1}\n"
        "_torchdoctor_completion torchdoctor\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    env = cli_env()
    env["PATH"] = f"{BIN}:{env['PATH']}"
    result = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return [line for line in result.stdout.splitlines() if line]


def requested(*words: str) -> list[str]:
    """What completions/torchdoctor.bash asks torchdoctor for a TAB after ``torchdoctor WORDS`` (its words
    joined by its IFS, a line break), asked of the CLI in this process: each line is one COMPREPLY entry."""
    line = ["torchdoctor", *words]
    env = cli_env(
        COMP_WORDS="\n".join(line), COMP_CWORD=str(len(line) - 1), _TORCHDOCTOR_COMPLETE="complete_bash"
    )
    result = invoke(env=env)
    assert result.returncode == 0, result.stderr
    return [line for line in result.stdout.splitlines() if line]


def test_the_committed_scripts_are_what_the_generator_writes_today(tmp_path: Path) -> None:
    written = completions.write(tmp_path)
    assert [p.name for p in written] == ["torchdoctor.bash", "torchdoctor.zsh", "torchdoctor.fish"]
    for path in written:
        assert (FOLDER / path.name).read_text() == path.read_text(), (
            "run python -m torchdoctor.commands.completions"
        )
    check = subprocess.run(
        [sys.executable, "-m", "torchdoctor.commands.completions", "--check", str(FOLDER)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert check.returncode == 0, check.stderr


def test_the_generator_check_fails_on_a_stale_script(tmp_path: Path) -> None:
    completions.write(tmp_path)
    stale = tmp_path / "torchdoctor.fish"
    stale.write_text(stale.read_text().replace("torchdoctor", "torchdoc"))
    assert completions.main(["--check", str(tmp_path)]) == 1
    assert completions.stale(tmp_path) == ["torchdoctor.fish"]


def test_the_zsh_script_starts_with_compdef_so_zsh_can_autoload_it() -> None:
    assert (FOLDER / "torchdoctor.zsh").read_text().startswith("#compdef torchdoctor\n")


def test_bash_completes_every_command_of_the_cli() -> None:
    assert sorted(bash_complete("")) == sorted(cli_tree())
    # What the script asks, asked in this process, is what bash completes: the other tests ask so.
    assert requested("") == bash_complete("")


@pytest.mark.parametrize("command", ["check", "report", "diff", "explain"])
def test_bash_completes_every_option_of_a_command(command: str) -> None:
    offered = set(requested(command, "--"))
    assert set(cli_tree()[command]) <= offered


def test_options_the_checks_declare_complete_like_the_commands_own() -> None:
    declared = {"--min-free", "--memory-snapshot", "--nproc", "--backend", "--quick"}
    tree = cli_tree()
    for command in ("check", "report", "cluster"):
        assert declared <= set(tree[command])
    assert "--min-free" in requested("check", "--mi")
    assert requested("check", "--backend", "") == ["nccl", "gloo"]
    assert requested("check", "--fail-on", "") == ["warn", "fail"]


def test_bash_completes_check_ids_and_report_formats() -> None:
    ids = [e.id for e in registry.find_entries() if e.id.startswith("torch.")]
    assert ids and sorted(requested("check", "--only", "torch.")) == sorted(ids)
    assert sorted(requested("report", "--skip", "cuda.vis")) == ["cuda.visible_devices"]
    assert requested("report", "--format", "") == ["md", "json", "html", "svg"]
    # After a comma, the next id of the list (bash keeps the comma inside the word it completes).
    assert bash_complete("check", "--only", "torch.build,gpu.m") == ["torch.build,gpu.memory"]


@pytest.mark.parametrize(
    ("shell", "extra"),
    [("zsh", {}), ("fish", {"_TYPER_COMPLETE_FISH_ACTION": "get-args"})],
)
def test_zsh_and_fish_requests_get_the_check_ids(shell: str, extra: dict[str, str]) -> None:
    script = (FOLDER / f"torchdoctor.{shell}").read_text()
    assert f"_TORCHDOCTOR_COMPLETE=complete_{shell}" in script
    env = cli_env(
        _TORCHDOCTOR_COMPLETE=f"complete_{shell}",
        _TYPER_COMPLETE_ARGS="torchdoctor check --only cuda.",
        **extra,
    )
    result = invoke(env=env)
    assert result.returncode == 0, result.stderr
    assert "cuda.visible_devices" in result.stdout


def test_after_a_comma_in_only_the_next_id_completes() -> None:
    from torchdoctor.commands.common import complete_ids

    assert sorted(complete_ids("torch.build,gpu")) == [
        "torch.build,gpu.fragmentation",
        "torch.build,gpu.memory",
    ]
    assert "torch.build,torch.build" not in complete_ids("torch.build,")
    assert complete_ids("gpu.m") == ["gpu.memory"]
