"""The promises of the README and the docs: the README's commands are the ones CI runs, the plugin example
works as written, every example output is what its command prints today, and the command line reference is
what the CLI says of itself."""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from torchdoctor.explain import catalogue

from support import cli_env, invoke, validated_report, write_distribution

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()
DOCS = REPO / "docs"


def _page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def _block_after(text: str, marker: str, language: str) -> str:
    blocks = re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)
    return next(block for block in blocks if block.startswith(marker))


def _tool(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, REPO / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


EXAMPLES = _tool("doc_examples")
CLI_REFERENCE = _tool("cli_reference")


@functools.cache
def rendered_cli_reference() -> str:
    """The page the generator writes today (it describes the checks in a worker: once per test process)."""
    return str(CLI_REFERENCE.render())


def test_ci_runs_exactly_the_readme_test_command() -> None:
    setup = README.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.*?)\n```", setup, flags=re.S)
    assert len(commands) == 2, "the set-up is two commands"
    install_and_check, install_and_test = commands
    assert "torchdoctor check" in install_and_check
    ci = (REPO / ".ci" / "run").read_text().splitlines()
    assert install_and_test in ci


def test_ci_builds_the_docs_strictly_with_the_docs_extra() -> None:
    ci = [line.strip() for line in (REPO / ".ci" / "run").read_text().splitlines()]
    assert 'pip install ".[docs]"' in ci
    assert any(line.startswith("mkdocs build --strict") for line in ci)
    assert ci.index('pip install ".[docs]"') > ci.index('pip install -e ".[test]"')


def test_the_plugin_example_runs_as_a_plugin(tmp_path: Path) -> None:
    page = _page("plugins.md")
    source = _block_after(page, "# acme_doctor.py", "python")
    entry = re.search(
        r'"acme\.scratch" = "(.*?)"', _block_after(page, "# pyproject.toml of the plugin", "toml")
    )
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


def test_every_generated_block_has_its_example_and_every_example_its_block() -> None:
    shown = EXAMPLES.shown()
    assert sorted(shown) == sorted(EXAMPLES.BY_NAME)
    assert EXAMPLES.README in EXAMPLES.pages() and DOCS / "commands" / "check.md" in EXAMPLES.pages()
    for name, copies in shown.items():
        example = EXAMPLES.BY_NAME[name]
        for page, body in copies:
            if example.shows_command:
                assert body.startswith(example.prompt), (page, name)
            else:
                assert f"`{example.command}`" in page.read_text(encoding="utf-8"), (page, name)


def test_an_example_of_several_commands_shows_each_as_it_runs() -> None:
    example = EXAMPLES.BY_NAME["cluster-two-agents"]
    first, second = example.commands
    assert first == f"{second} &" and "--nnodes 2" in second
    (_, body), *_ = EXAMPLES.shown()["cluster-two-agents"]
    assert body.startswith(f"$ {first}\n$ {second}\n")


def test_the_example_inputs_are_their_corpus_texts_verbatim_below_a_header_naming_the_source() -> None:
    assert EXAMPLES.stale_copies() == []
    for copy in EXAMPLES.COPIES:
        header = (REPO / copy.path).read_text(encoding="utf-8").partition("\n")[0]
        assert "https://github.com/" in header
        assert copy.path in " ".join(e.command for e in EXAMPLES.EXAMPLES)


def test_a_block_of_a_gpu_machine_is_judged_from_a_fixture_and_says_so() -> None:
    for name, copies in EXAMPLES.shown().items():
        for page, body in copies:
            if re.search(r"NVIDIA (H100|A100|GeForce|GB)", body.split("\n", 1)[1]) and "triage" not in name:
                assert "--from tests/fixtures/" in body.splitlines()[0] or "diff tests/fixtures/" in body, (
                    page,
                    name,
                )


FROM_FILES = [e for e in EXAMPLES.EXAMPLES if not e.live and not e.costly]


@pytest.mark.parametrize("example", FROM_FILES, ids=[e.name for e in FROM_FILES])
def test_the_examples_are_what_the_commands_print_today(example: Any) -> None:
    """Each example run again: it must print what every page that shows it shows, but for this machine's
    headline and the seconds it took. On a failure, python tools/doc_examples.py --write NAME rewrites the
    blocks."""
    output = EXAMPLES.comparable(example, EXAMPLES.run(example, in_process))
    for page, shown in EXAMPLES.shown()[example.name]:
        assert EXAMPLES.comparable(example, shown) == output, page


def in_process(argv: list[str], cwd: Path, env: dict[str, str]) -> str:
    """An example's torchdoctor command run through the CLI in this process (the tool starts a process)."""
    if Path(argv[0]).name != "torchdoctor":
        return str(EXAMPLES.run_process(argv, cwd, env))
    return invoke(*argv[1:], env=env, cwd=cwd, merged=True).stdout


def test_the_drift_comparison_catches_a_changed_word_but_not_a_timing() -> None:
    example = EXAMPLES.BY_NAME["check-from-h100"]
    (_, shown), *_ = EXAMPLES.shown()[example.name]
    assert EXAMPLES.comparable(example, shown.replace("fit all", "fit some")) != EXAMPLES.comparable(
        example, shown
    )
    slower = re.sub(r"(no problems in 2 checks), [\d.]+ s", r"\1, 99.9 s", shown)
    assert EXAMPLES.comparable(example, slower) == EXAMPLES.comparable(example, shown)


def _synopses() -> list[tuple[Path, str]]:
    """The synopsis blocks of the command pages: text blocks whose first line is a torchdoctor command."""
    found = []
    for page in sorted((DOCS / "commands").glob("*.md")):
        for block in re.findall(r"```text\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S):
            if block.startswith("torchdoctor "):
                found.append((page, block))
    return found


def test_the_options_synopses_name_only_options_each_command_takes() -> None:
    import typer.main

    from torchdoctor.cli import build_app, prepare

    run = prepare("list")  # the checks described, no probe worker started
    assert run.workers is not None
    run.workers.close()
    group = typer.main.get_command(build_app(run.declared, run.checks))
    synopses = _synopses()
    assert any(
        page.name == "index.md" and block.startswith("torchdoctor check [") for page, block in synopses
    )
    assert {page.name for page, _ in synopses} >= {f"{name}.md" for name in group.commands}  # type: ignore[attr-defined]
    for page, synopsis in synopses:
        shown: dict[str, set[str]] = {}
        command = ""
        for line in synopsis.splitlines():
            words = line.split()
            if words and words[0] == "torchdoctor":
                command = words[1] if len(words) > 1 and not words[1].startswith("-") else ""
            elif not line.startswith(" "):
                command = ""  # another program's line (torchrun ... -m torchdoctor run)
            shown.setdefault(command, set()).update(re.findall(r"--[a-z][a-z-]*", line))
        for name, flags in shown.items():
            if not name:
                continue
            takes = {opt for param in group.commands[name].params for opt in param.opts}  # type: ignore[attr-defined]
            takes |= {opt for param in group.commands[name].params for opt in param.secondary_opts}  # type: ignore[attr-defined]
            assert flags <= takes, (page.name, name, flags - takes)


def test_the_audit_example_prints_what_the_page_shows(capsys: pytest.CaptureFixture[str]) -> None:
    page = _page("python-api.md")
    source = _block_after(page, "import torch\nfrom torch import nn\n\nimport torchdoctor\n", "python")
    exec(compile(source, "docs/python-api.md", "exec"), {"__name__": "doc_example"})
    assert capsys.readouterr().out == _block_after(page, "torchdoctor.audit: ", "text")


def test_what_the_python_examples_import_and_call_of_torchdoctor_exists() -> None:
    import importlib

    import torchdoctor

    for page in EXAMPLES.pages():
        for block in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S):
            for module, names in re.findall(
                r"^from (torchdoctor[\w.]*) import ([\w, ]+)$", block, flags=re.M
            ):
                imported = importlib.import_module(module)
                for name in names.split(","):
                    assert hasattr(imported, name.strip()), (page.name, module, name)
            for name in re.findall(r"\btorchdoctor\.(\w+)\(", block):
                assert hasattr(torchdoctor, name), (page.name, name)


def test_the_cli_reference_is_what_the_generator_writes_today() -> None:
    page = CLI_REFERENCE.PAGE.read_text(encoding="utf-8")
    assert page == rendered_cli_reference(), "run python tools/cli_reference.py --write"
    for name in ("check", "list", "report", "diff", "explain", "triage", "lint", "run", "cluster"):
        assert f"## `torchdoctor {name}`" in page
    assert "- `--min-free PCT`: gpu.memory: warn below this share of free memory" in page


def test_the_cli_reference_check_fails_on_a_stale_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stale = tmp_path / "docs" / "reference" / "cli.md"
    stale.parent.mkdir(parents=True)
    stale.write_text(CLI_REFERENCE.PAGE.read_text(encoding="utf-8").replace("Deadline", "deadline"))
    monkeypatch.setattr(CLI_REFERENCE, "REPO", tmp_path)
    monkeypatch.setattr(CLI_REFERENCE, "PAGE", stale)
    monkeypatch.setattr(CLI_REFERENCE, "render", rendered_cli_reference)
    assert CLI_REFERENCE.main(["--check"]) == 1
    assert "is stale" in capsys.readouterr().err
    assert CLI_REFERENCE.main(["--write"]) == 0
    assert CLI_REFERENCE.main(["--check"]) == 0


def test_the_explain_page_counts_the_messages_and_real_texts_there_are() -> None:
    page = (DOCS / "commands" / "explain.md").read_text()
    said = re.search(r"It knows (\d+) messages, tested on (\d+) real texts", page)
    assert said is not None
    texts = sum(
        len(json.loads(path.read_text())) for path in (REPO / "tests" / "corpus" / "errors").glob("*/*.json")
    )
    assert (int(said[1]), int(said[2])) == (len(catalogue.installed()), texts)
