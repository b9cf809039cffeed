"""`torchdoctor` end to end, in subprocesses, on this CPU machine."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from torchdoctor.checking import exitcodes
from torchdoctor.model import Status

from support import (
    BIN,
    FIXTURES,
    cli_env,
    invoke,
    python_without_torch,
    run_cli,
    slack,
    torch_here,
    validated_report,
    write_distribution,
)

PLUGIN_SOURCE = """
    import os
    import time

    from torchdoctor import Check, Finding, Fix, Probe, Status


    def facts(options):
        return {"pid": os.getpid()}


    def hang(options):
        time.sleep(3600)
        return {}


    def abort(options):
        os.abort()


    def passes(facts, options):
        return Finding(Status.PASS, "all good", (f"probe ran in pid {facts['acme.facts']['pid']}",))


    def warns(facts, options):
        return Finding(Status.WARN, "a little off", fix=Fix("Turn it off and on again."))


    def fails(facts, options):
        return Finding(Status.FAIL, "broken", fix=Fix("Replace it.", ("acme fix --now",)))


    FACTS = Probe.of("acme.facts", facts)
    OK = Check("acme.ok", "Acme passes", (FACTS,), passes)
    WARN = Check("acme.warn", "Acme warns", (FACTS,), warns)
    FAIL = Check("acme.fail", "Acme fails", (FACTS,), fails)
    HANG = Check("acme.hang", "Acme hangs", (Probe.of("acme.hang", hang),), passes)
    ABORT = Check("acme.abort", "Acme aborts", (Probe.of("acme.abort", abort),), passes)
"""
PLUGIN_ENTRIES = {
    "acme.ok": "acme_doctor:OK",
    "acme.warn": "acme_doctor:WARN",
    "acme.fail": "acme_doctor:FAIL",
    "acme.hang": "acme_doctor:HANG",
    "acme.abort": "acme_doctor:ABORT",
    "acme.broken": "acme_missing_module:CHECK",
}


@pytest.fixture(scope="module")
def plugin_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    site = tmp_path_factory.mktemp("site")
    write_distribution(site, "acme-doctor", "1.2.3", "acme_doctor", PLUGIN_SOURCE, PLUGIN_ENTRIES)
    env = cli_env()
    env["PYTHONPATH"] = os.pathsep.join([str(site), env["PYTHONPATH"]])
    return env


CORE = "torch.build,cuda.visible_devices"


BUILT_IN = [
    "torch.build",
    "torch.stack",
    "cuda.visible_devices",
    "gpu.memory",
    "gpu.fragmentation",
    "transfer.pinned",
    "ddp.dryrun",
]


def _nvidia_driver_here() -> str | None:
    """This machine's NVIDIA driver as NVML names it (its version), or None where NVML finds none."""
    from torchdoctor.machine import nvml

    snapshot = nvml.query()
    return (snapshot.driver_version or "of unknown version") if snapshot.available else None


def test_check_on_this_cpu_machine_prints_the_table_and_exits_0() -> None:
    # What a machine without an NVIDIA driver gets; on one with a driver the GPU checks run and judge its
    # GPUs (and a CPU-only torch beside them is a finding), which the fixtures' tests cover.
    driver = _nvidia_driver_here()
    if driver is not None:
        pytest.skip(f"this machine has an NVIDIA driver ({driver}): the test describes one without")
    result = run_cli("check")
    assert result.returncode == exitcodes.OK, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("torchdoctor ")
    rows = [line.split()[:2] for line in lines[2 : 2 + len(BUILT_IN)]]
    assert [check_id for _, check_id in rows] == BUILT_IN
    status = dict((check_id, label) for label, check_id in rows)
    assert status["torch.build"] == "PASS"
    assert status["ddp.dryrun"] == "PASS"
    assert {status[i] for i in ("cuda.visible_devices", "gpu.memory", "transfer.pinned")} == {"SKIP"}
    assert lines[-1].startswith("no problems in 7 checks")
    assert "\x1b[" not in result.stdout


def _run_in_terminal(args: list[str], env: dict[str, str]) -> str:
    """Run the CLI with stdout on a pseudo-terminal, as in an interactive shell."""
    primary, secondary = pty.openpty()
    proc = subprocess.Popen(
        [str(BIN / "torchdoctor"), *args], stdout=secondary, stderr=subprocess.DEVNULL, env=env
    )
    os.close(secondary)
    chunks = []
    while True:
        try:
            data = os.read(primary, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(primary)
    return b"".join(chunks).decode(errors="replace")


def test_a_terminal_gets_colour_and_no_color_gets_plain_text() -> None:
    # The table of a saved report is rendered as a live run's is, without probing this machine again.
    args = ["check", "--from", str(FIXTURES / "h100x8_cvd_2_3.json"), "--only", "torch.build"]
    coloured = _run_in_terminal(args, cli_env(COLUMNS="160"))
    assert "\x1b[" in coloured
    assert "✓ pass" in coloured
    plain = _run_in_terminal(args, cli_env(NO_COLOR="1", COLUMNS="160"))
    assert "\x1b[" not in plain
    assert "PASS   torch.build" in plain


def test_unknown_check_id_is_a_usage_error_naming_the_valid_ids() -> None:
    result = invoke("check", "--only", "torch.biuld")
    assert result.returncode == exitcodes.USAGE
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert "unknown check id 'torch.biuld'" in line
    assert "torch.build" in line and "cuda.visible_devices" in line


@pytest.mark.parametrize(
    "args",
    [
        ["check", "--fail-on", "sometimes"],
        ["check", "--timeout", "0"],
        ["check", "--timeout", "soon"],
        ["check", "--no-such-option"],
        ["check", "--min-free", "150"],
        ["check", "--nproc", "0"],
        ["check", "--backend", "mpi"],
        ["frobnicate"],
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str]) -> None:
    # --only a check whose probe imports no torch: no worker warms torch up for a run refused at once
    result = invoke(*args, *(["--only", "cuda.visible_devices"] if args[0] == "check" else []))
    assert result.returncode == exitcodes.USAGE
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stderr.startswith("torchdoctor: error: ")
    assert "Traceback" not in result.stderr


def test_fail_on_warn_turns_a_warning_into_exit_1() -> None:
    env = cli_env(CUDA_VISIBLE_DEVICES="0,0")
    assert invoke("check", "--only", "cuda.visible_devices", env=env).returncode == exitcodes.OK
    result = invoke("check", "--only", "cuda.visible_devices", "--fail-on", "warn", env=env)
    assert result.returncode == exitcodes.THRESHOLD
    assert "WARN   cuda.visible_devices" in result.stdout


def test_version_and_help_work_without_importing_torch() -> None:
    assert run_cli("--version").stdout.strip().startswith("torchdoctor ")
    result = run_cli("--help")
    assert result.returncode == exitcodes.OK
    assert "check" in result.stdout and "list" in result.stdout


def test_json_is_one_report_on_stdout_and_the_cli_process_imports_no_torch_pynvml_or_pydantic(
    live_run: dict[str, Any],
) -> None:
    assert live_run["stderr"].endswith("imported=[]\n")  # every check ran, and then list
    stdout = live_run["stdout"]
    data, end = json.JSONDecoder().raw_decode(stdout)  # check --json printed one report, then list ran
    report = validated_report(stdout[:end])
    assert report == data == live_run["report"] and stdout.startswith("{")
    assert "torch.build" in stdout[end:]
    assert [v["id"] for v in report["verdicts"]] == BUILT_IN
    statuses = [v["status"] for v in report["verdicts"]]
    assert report["summary"] == {**{s.value: statuses.count(s.value) for s in Status}, "total": len(BUILT_IN)}
    assert report["facts"]["torch"]["version"] == torch_here()["version"]
    assert report["exit_code"] == exitcodes.OK


def test_list_shows_built_in_and_plugin_checks_without_running_them(plugin_env: dict[str, str]) -> None:
    result = invoke("list", "--json", env=plugin_env)
    assert result.returncode == exitcodes.OK
    rows = {row["id"]: row for row in json.loads(result.stdout)}
    assert rows["torch.build"]["title"] == "PyTorch build"
    assert rows["acme.ok"]["distribution"] == "acme-doctor"
    assert rows["acme.broken"]["loads"] is False
    assert list(rows)[:3] == ["torch.build", "torch.stack", "cuda.visible_devices"]
    # The checks only cluster runs are listed too, marked as such.
    assert rows["torch.build"]["command"] == rows["acme.ok"]["command"] == "check"
    assert {i for i, row in rows.items() if row["command"] == "cluster"} == {
        "cluster.exchange",
        "cluster.versions",
        "cluster.gpus",
        "cluster.collective",
    }


def test_a_third_party_plugin_runs_like_a_built_in_check(plugin_env: dict[str, str]) -> None:
    result = invoke("check", "--only", "acme.ok,acme.warn,acme.fail", "--json", env=plugin_env)
    assert result.returncode == exitcodes.THRESHOLD
    report = validated_report(result.stdout)
    statuses = {v["id"]: v["status"] for v in report["verdicts"]}
    assert statuses == {"acme.ok": "pass", "acme.warn": "warn", "acme.fail": "fail"}
    assert report["facts"]["acme.facts"]["pid"] != os.getpid()
    fail = next(v for v in report["verdicts"] if v["id"] == "acme.fail")
    assert fail["fix"] == {"text": "Replace it.", "commands": ["acme fix --now"]}


def test_the_table_shows_the_fix_under_a_failing_row(plugin_env: dict[str, str]) -> None:
    result = invoke("check", "--only", "acme.fail,acme.ok", env=plugin_env)
    lines = result.stdout.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("FAIL   acme.fail"))
    assert lines[row + 1].strip() == "fix: Replace it."
    assert lines[row + 2].strip() == "$ acme fix --now"
    assert lines[-1].startswith("1 failure in 2 checks")


def test_a_plugin_that_fails_to_import_is_an_error_verdict_naming_it(plugin_env: dict[str, str]) -> None:
    result = invoke("check", "--only", "acme.broken,acme.ok", "--json", env=plugin_env)
    assert result.returncode == exitcodes.ERRORED
    report = validated_report(result.stdout)
    broken = next(v for v in report["verdicts"] if v["id"] == "acme.broken")
    assert broken["status"] == "error"
    assert "acme-doctor[acme.broken]" in broken["summary"]
    assert "acme_missing_module" in broken["summary"]


def test_a_hanging_and_an_aborting_plugin_are_errors_within_the_timeout_and_the_rest_passes(
    plugin_env: dict[str, str],
) -> None:
    # The deadline of each probe, torch's included: 3 s where torch imports in 1 s, more where it is slower.
    timeout = slack(3.0)
    only = f"{CORE},acme.*"
    # two replaced workers each import torch again; the run stays bounded
    result = run_cli(
        "check", "--only", only, "--timeout", f"{timeout:g}", "--json", env=plugin_env, timeout=12 * timeout
    )
    assert result.returncode == exitcodes.THRESHOLD  # acme.fail is a failure
    report = validated_report(result.stdout)
    verdicts = {v["id"]: v for v in report["verdicts"]}
    assert verdicts["acme.hang"]["status"] == "error"
    assert f"did not answer within {timeout:g} s" in verdicts["acme.hang"]["summary"]
    assert verdicts["acme.hang"]["duration_s"] <= timeout + 2
    assert verdicts["acme.abort"]["status"] == "error"
    assert "SIGABRT" in verdicts["acme.abort"]["summary"]
    assert verdicts["acme.abort"]["duration_s"] <= timeout + 2
    assert verdicts["torch.build"]["status"] == "pass", verdicts["torch.build"]
    assert verdicts["acme.ok"]["status"] == "pass"


def test_only_errors_exit_3(plugin_env: dict[str, str]) -> None:
    result = invoke("check", "--only", "acme.abort,acme.ok", env=plugin_env)
    assert result.returncode == exitcodes.ERRORED
    assert "ERROR  acme.abort" in result.stdout


def test_torch_missing_is_one_failing_verdict_and_the_checks_that_need_torch_skip(tmp_path: Path) -> None:
    python = python_without_torch(tmp_path / "venv")
    result = run_cli("check", "--json", python=python, cwd=tmp_path)
    assert result.returncode == exitcodes.THRESHOLD, result.stderr
    report = validated_report(result.stdout)
    verdicts = {v["id"]: v for v in report["verdicts"]}
    build = verdicts.pop("torch.build")
    assert build["status"] == "fail"
    assert "torch is not installed" in build["summary"]
    assert build["fix"]["text"].startswith("Install torch into this environment")
    assert build["fix"]["commands"]
    assert {v["status"] for v in verdicts.values()} == {"skip"}, verdicts
    for check_id in ("torch.stack", "transfer.pinned", "ddp.dryrun"):
        assert verdicts[check_id]["summary"].startswith("needs torch, which does not import here"), check_id
        assert verdicts[check_id]["summary"].endswith("see torch.build")
        assert verdicts[check_id]["details"] == []


def test_torch_failing_to_import_is_a_failing_verdict_with_the_error(tmp_path: Path) -> None:
    broken = 'raise OSError("libcudnn.so.9: cannot open shared object file: No such file or directory")\n'
    python = python_without_torch(tmp_path / "venv", fake_torch=broken)
    result = run_cli("check", "--only", "torch.build,ddp.dryrun", "--json", python=python, cwd=tmp_path)
    assert result.returncode == exitcodes.THRESHOLD, result.stderr
    build, dryrun = validated_report(result.stdout)["verdicts"]
    assert build["status"] == "fail"
    assert "libcudnn.so.9" in build["summary"]
    assert build["fix"]["commands"] == ["pip install --force-reinstall --no-deps torch==2.13.0"]
    # every rank failed to import the same broken torch: one cause, counted once
    assert dryrun["status"] == "skip"
    assert dryrun["summary"] == (
        "needs torch, which does not import here (OSError: libcudnn.so.9: cannot open shared object file: "
        "No such file or directory): see torch.build"
    )


def test_a_torch_folder_in_the_current_directory_is_reported_not_imported(tmp_path: Path) -> None:
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text("raise RuntimeError('the local folder was imported')\n")
    result = run_cli("check", "--only", "torch.build", "--json", cwd=tmp_path)
    build = validated_report(result.stdout)["verdicts"][0]
    assert build["status"] == "warn"
    assert str(tmp_path / "torch") in build["summary"]


def test_a_bare_torchdoctor_prints_its_help_not_an_error() -> None:
    result = invoke()
    assert result.returncode == exitcodes.OK
    assert result.stdout.startswith("Usage: torchdoctor [OPTIONS] COMMAND [ARGS]...")
    assert "check" in result.stdout and result.stderr == ""


SLOW_PLUGIN = """
    import os
    import time

    from torchdoctor import Check, Finding, Probe, Status

    if os.environ.get("ACME_SLOW_IMPORT"):
        time.sleep(3600)


    def facts(options):
        return {}


    def loops(facts, options):
        while True:  # never returns; sleeping, it spends no CPU of the test run
            time.sleep(0.1)


    def aborts(facts, options):
        os.abort()


    LOOPS = Check("slow.loops", "Loops", (Probe.of("slow.facts", facts),), loops)
    ABORTS = Check("slow.aborts", "Aborts", (Probe.of("slow.facts", facts),), aborts)
"""


@pytest.fixture(scope="module")
def slow_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    site = tmp_path_factory.mktemp("slow-site")
    entries = {"slow.loops": "slow_doctor:LOOPS", "slow.aborts": "slow_doctor:ABORTS"}
    write_distribution(site, "slow-doctor", "0.1", "slow_doctor", SLOW_PLUGIN, entries)
    env = cli_env(TORCHDOCTOR_PLUGIN_TIMEOUT="2")
    env["PYTHONPATH"] = os.pathsep.join([str(site), env["PYTHONPATH"]])
    return env


def test_a_plugin_that_hangs_at_import_does_not_hang_list_or_check(slow_env: dict[str, str]) -> None:
    env = {**slow_env, "ACME_SLOW_IMPORT": "1"}
    listed = run_cli("list", env=env, timeout=slack(60))
    assert listed.returncode == exitcodes.OK, listed.stderr
    assert re.search(
        r"slow\.loops +ERROR slow-doctor\[slow\.loops\] did not finish importing within 2 s", listed.stdout
    )
    checked = run_cli("check", "--only", "slow.*,cuda.visible_devices", "--json", env=env, timeout=slack(60))
    verdicts = {v["id"]: v for v in validated_report(checked.stdout)["verdicts"]}
    assert verdicts["cuda.visible_devices"]["status"] != "error"
    assert all(verdicts[i]["status"] == "error" for i in ("slow.loops", "slow.aborts"))


def test_a_judge_that_loops_or_aborts_is_an_error_naming_the_plugin(slow_env: dict[str, str]) -> None:
    result = run_cli("check", "--only", "slow.*,cuda.visible_devices", "--json", env=slow_env)
    assert result.returncode == exitcodes.ERRORED, result.stderr
    verdicts = {v["id"]: v for v in validated_report(result.stdout)["verdicts"]}
    assert verdicts["slow.loops"]["summary"] == (
        "the judge of slow.loops (slow-doctor[slow.loops]) did not answer within 2 s"
    )
    assert "SIGABRT" in verdicts["slow.aborts"]["summary"]
    assert "report it to the authors of slow-doctor" in verdicts["slow.aborts"]["fix"]["text"]
    assert verdicts["cuda.visible_devices"]["status"] != "error"


# -- what every command shares: usage lines, --only/--skip, one error format --------------------------


def _click_commands() -> dict[str, Any]:
    import typer.main

    from torchdoctor.cli import build_app

    group = typer.main.get_command(build_app())
    return dict(group.commands)  # type: ignore[attr-defined]


def test_a_command_line_builds_only_the_command_it_runs_and_help_all_of_them() -> None:
    from torchdoctor.cli import build_app

    every = [c.name for c in build_app().registered_commands]
    assert len(every) == len(_click_commands()) == 9
    for name in every:
        assert [c.name for c in build_app(command=name).registered_commands] == [name]
    assert [c.name for c in build_app(command="chek").registered_commands] == every  # click suggests 'check'
    assert invoke("explain", "--help").stdout.startswith("Usage: torchdoctor explain [OPTIONS] [TEXT]")


@pytest.mark.parametrize("columns", ["80", "200"])
def test_help_lists_every_command_with_its_whole_summary(columns: str) -> None:
    """click gives each command one row of the command list and cuts a longer first sentence of its help
    with '...' to fit (at 80 columns, or wider: 65 characters beside the longest name): each command's help
    starts with a one-sentence paragraph that fits, shown whole."""
    import inspect

    result = invoke("--help", env=cli_env(COLUMNS=columns))
    assert result.returncode == exitcodes.OK
    listed = result.stdout.split("\nCommands:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    rows = dict(line.split(maxsplit=1) for line in listed)
    commands = _click_commands()
    assert sorted(rows) == sorted(commands)
    for name, command in commands.items():
        summary = " ".join(inspect.cleandoc(command.help).split("\n\n", 1)[0].split())
        assert rows[name] == summary, name
        assert summary.endswith(".") and not summary.endswith("..."), name
    assert max(len(line) for line in listed) <= 80


def test_usage_lines_and_argument_lists_show_arguments_as_declared() -> None:
    import typer

    for name, command in _click_commands().items():
        with typer.Context(command, info_name=name) as context:
            help_text = command.get_help(context)
        usage = help_text.splitlines()[0]
        assert "{" not in usage and "[[" not in usage, usage
        assert not re.search(r"<(str|path|list\[str\])>", help_text), name
    report = _click_commands()["report"]
    with typer.Context(report, info_name="report", terminal_width=80) as context:
        assert "./torchdoctor-report.md" in report.get_help(context)  # not split at its hyphen
    diff, explain, lint = (_click_commands()[n] for n in ("diff", "explain", "lint"))
    for command, expected in ((diff, "A B"), (explain, "[TEXT]"), (lint, "[PATHS]...")):
        with typer.Context(command, info_name="x") as context:
            assert command.get_usage(context).endswith(f"[OPTIONS] {expected}")


def test_skip_has_its_own_help_text() -> None:
    for name in ("check", "report", "triage", "cluster"):
        helps = {
            p.opts[0]: p.help for p in _click_commands()[name].params if p.opts[0] in ("--only", "--skip")
        }
        assert helps["--only"] != helps["--skip"], name
        assert "Leave these checks out" in str(helps["--skip"])


@pytest.mark.parametrize("values", [[""], [" "], [","], ["torch.build", ""]])
def test_an_only_that_names_no_check_is_bad_input_not_every_check(values: list[str]) -> None:
    from torchdoctor.commands.common import BadInput, split_ids

    with pytest.raises(BadInput, match="names no check"):
        split_ids(values)
    assert split_ids(["torch.build, gpu.*", "ddp.dryrun"]) == ["torch.build", "gpu.*", "ddp.dryrun"]


def test_check_only_empty_is_a_usage_error_before_anything_runs() -> None:
    result = invoke("check", "--only", "")
    assert result.returncode == exitcodes.USAGE
    assert result.stdout == ""
    assert (
        result.stderr == "torchdoctor: error: --only '' names no check: give check ids or patterns (gpu.*)\n"
    )


def _main_stderr(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    from torchdoctor import cli

    with pytest.raises(SystemExit) as exited:
        cli.main(list(args))
    return int(exited.value.code or 0), capsys.readouterr().err


def test_every_command_writes_its_one_line_errors_the_same_way(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = str(tmp_path / "missing.json")
    errors = [
        _main_stderr(capsys, "diff", missing, missing),
        _main_stderr(capsys, "explain", " "),
        _main_stderr(capsys, "lint", str(tmp_path / "missing.py")),
        _main_stderr(capsys, "lint", "--format", "xml", str(tmp_path)),
        _main_stderr(capsys, "diff"),
    ]
    for code, err in errors:
        assert code == exitcodes.USAGE
        assert err.startswith("torchdoctor: error: ") and err.count("\n") == 1, err


def test_report_refuses_a_format_that_contradicts_the_file_suffix() -> None:
    from torchdoctor.commands.common import BadInput
    from torchdoctor.commands.report import resolve_format

    with pytest.raises(BadInput, match=r"-o x\.svg has the suffix of SVG but --format md writes Markdown"):
        resolve_format("md", Path("x.svg"))
    assert resolve_format(None, Path("x.svg")) == "svg"
    assert resolve_format("json", Path("x.txt")) == "json"
    assert resolve_format("md", Path("notes.MD")) == "md"


_PROBES_IMPORT = """
import json, sys
from support import installed
from torchdoctor.checking import registry
from torchdoctor.cli import TORCH_PROBES
from torchdoctor.plugin import resolve
ran = []
built_in = [e.id for e in registry.find_entries() if e.distribution == "torchdoctor"]
for check_id in sorted(set(built_in) - TORCH_PROBES):
    _, check = installed(check_id)
    for probe in check.probes:
        resolve(probe.target)({})
        ran.append(probe.target)
unknown = sorted(TORCH_PROBES - set(built_in))
print(json.dumps({"ran": ran, "torch": "torch" in sys.modules, "unknown": unknown}))
"""


def test_the_checks_run_without_a_warm_worker_import_no_torch() -> None:
    # A run of only these starts no worker that imports torch ahead of time (cli.TORCH_PROBES).
    done = subprocess.run(
        [sys.executable, "-c", _PROBES_IMPORT], env=cli_env(), capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["ran"] and result["torch"] is False and result["unknown"] == [], result


@pytest.mark.parametrize(
    ("argv", "warm"),
    [
        (["check"], True),
        (["check", "--only", "gpu.memory,cuda.visible_devices"], False),
        (["check", "--only=gpu.fragmentation", "--only", "gpu.memory"], False),
        (["check", "--only", "gpu.memory", "--only", "torch.build"], True),
        (["check", "--only", "gpu.*"], False),
        (["check", "--only", "acme.*"], False),
        (["check", "--only", "*.build"], True),
        (["check", "--only", "torch.stack", "--skip", "gpu.*"], True),
        # refused before any probe runs: an empty choice, an id with a control character
        (["check", "--only", "torch.build", "--only", ""], False),
        (["check", "--only", "torch.build\x1b[2J"], False),
        (["report", "--only", "gpu.memory"], False),
        (["check", "--from", "r.json"], False),
        (["list"], False),
    ],
)
def test_a_worker_imports_torch_ahead_only_where_a_check_may_need_it(argv: list[str], warm: bool) -> None:
    from torchdoctor import cli

    assert cli._runs_probes(argv[0], argv) is warm
