"""Hostile input: whatever a file, a stream or an option holds, torchdoctor answers in one line, in time."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from torchdoctor.checking import exitcodes
from torchdoctor.inputs import collect_env, saved

from growth import linear
from support import BIN, FIXTURES, cli_env, invoke, invoked_in_a_process, run_cli, slack

REPORT: dict[str, Any] = {
    "schema_version": 1,
    "tool": {"name": "torchdoctor", "version": "0.1.0"},
    "created_at": "2026-11-30T00:00:00Z",
    "host": {},
    "options": {},
    "facts": {},
    "probe_errors": {},
    "verdicts": [],
    "summary": {"pass": 0, "warn": 0, "fail": 0, "skip": 0, "error": 0, "total": 0},
    "exit_code": 0,
    "timings": {"total_s": 0.0, "probes": {}},
}


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == exitcodes.USAGE, result.stdout + result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("torchdoctor: error: ")
    assert "Traceback" not in result.stdout + result.stderr
    return line


@pytest.mark.parametrize(
    ("change", "text"),
    [
        ({"tool": "x"}, "at tool: 'x' is not of type 'object'"),
        ({"timings": {"total_s": "soon", "probes": {}}}, "at timings/total_s"),
        ({"timings": {"total_s": 1.0, "probes": {"torch": "fast"}}}, "at timings/probes/torch"),
        ({"options": ["timeout"]}, "at options"),
        ({"facts": {"torch": 3}}, "at facts/torch"),
        ({"probe_errors": {"torch": {"kind": "boom", "message": "x"}}}, "at probe_errors/torch/kind"),
        ({"created_at": 5}, "at created_at"),
        # Values of the right JSON type where the report has a field, checked field by field before any judge
        # or the framework reads them (a timeout of "abc" ended in an internal error).
        ({"options": {"timeout": "abc"}}, "at options/timeout: 'abc' is not of type 'number'"),
        ({"options": {"timeout": 0}}, "at options/timeout"),
        ({"options": {"fail_on": "always"}}, "at options/fail_on"),
        ({"facts": {"env": {"variables": "CUDA_VISIBLE_DEVICES=0"}}}, "at facts/env/variables"),
        ({"facts": {"env": {"variables": {"LOCAL_RANK": 3}}}}, "at facts/env/variables/LOCAL_RANK"),
    ],
)
def test_a_malformed_saved_report_is_one_line(tmp_path: Path, change: dict[str, Any], text: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps({**REPORT, **change}))
    for args in (("check", "--from", str(path)), ("diff", str(path), str(path))):
        line = one_line_error(invoke(*args))
        assert text in line, line


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("abc", "options.min_free_pct is the string 'abc', not a number"),
        (150, "options.min_free_pct in the report: --min-free must be between 0 and 100, not 150"),
        (True, "options.min_free_pct is true or false, not a number"),
    ],
)
def test_an_option_of_a_check_in_a_saved_report_is_checked_against_its_declaration(
    tmp_path: Path, value: Any, text: str
) -> None:
    """gpu.memory declares --min-free as a percentage: a saved report that says otherwise is refused naming
    the field, before its judge reads it."""
    data = json.loads((FIXTURES / "h100x2_busy_two_foreign.json").read_text())
    data["options"]["min_free_pct"] = value
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    line = one_line_error(invoke("check", "--from", str(path), "--only", "gpu.memory"))
    assert line == f"torchdoctor: error: {path} is not a valid report: {text}"


def test_deeply_nested_and_huge_json_are_refused(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    assert "nested more deeply than 64 levels" in one_line_error(invoke("check", "--from", str(deep)))
    huge = tmp_path / "huge.json"
    with huge.open("wb") as out:
        out.truncate(65 * 2**20)  # sparse: 65 MiB of zeros, over the 64 MiB a report may have
    assert "more than the 64 MiB torchdoctor reads" in one_line_error(invoke("diff", str(huge), str(huge)))


NOT_REGULAR = ("/dev/zero", "/dev/urandom", "fifo", "folder")


def _file_commands(path: Path) -> list[tuple[str, ...]]:
    return [
        ("check", "--from", str(path)),
        ("report", "--from", str(path), "--preview"),
        ("diff", str(path), str(path)),
        ("check", "--only", "gpu.fragmentation", "--memory-snapshot", str(path)),
        ("triage", str(path)),
    ]


@pytest.fixture(scope="module")
def not_regular_refusals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Any]]:
    """What each command said of each file that is no regular file, all run in one process."""
    folder = tmp_path_factory.mktemp("not-regular")
    fifo = folder / "fifo"
    os.mkfifo(fifo)  # nobody writes: opening it for reading would wait for ever
    (folder / "a folder").mkdir()
    paths = {"/dev/zero": Path("/dev/zero"), "/dev/urandom": Path("/dev/urandom")}
    paths.update(fifo=fifo, folder=folder / "a folder")
    commands = {device: _file_commands(paths[device]) for device in NOT_REGULAR}
    # a fifo nobody writes to would block a reader for ever: the timeout catches that
    results = iter(invoked_in_a_process([c for each in commands.values() for c in each], timeout=slack(120)))
    return {device: [next(results) for _ in each] for device, each in commands.items()}


@pytest.mark.parametrize("device", NOT_REGULAR)
def test_a_file_argument_that_is_no_regular_file_is_refused_without_reading_it(
    not_regular_refusals: dict[str, list[Any]], device: str
) -> None:
    for result in not_regular_refusals[device]:
        line = one_line_error(result)
        assert "regular file" in line or "folder" in line, line


@pytest.mark.parametrize("command", ["explain", "triage"])
def test_text_commands_read_a_bounded_stdin(command: str) -> None:
    with open("/dev/zero", "rb") as zeros:
        result = subprocess.run(
            [str(BIN / "torchdoctor"), command],
            stdin=zeros,
            capture_output=True,
            text=True,
            env=cli_env(),
            timeout=slack(60),
        )
    assert "stdin holds more than the 16 MiB torchdoctor reads" in one_line_error(result)


def test_a_text_of_endless_fences_and_dump_openings_is_triaged_with_a_documented_exit(tmp_path: Path) -> None:
    # Its time, up to the 16 MiB bound: bench/hostile_triage.py.
    path = tmp_path / "issue.md"
    piece = '```json\n{"schema_version": 1}\n```\nPyTorch version: 2.1.0\n'
    path.write_text((piece * 30_000)[: 2**20])
    result = run_cli("triage", "--json", str(path), timeout=slack(60))
    assert result.returncode in (0, 1, 2), result.stderr


def test_saved_reports_and_dumps_are_found_in_linear_time() -> None:
    piece = '```json\n{"schema_version": 1}\n```\nPyTorch version: 2.1.0\n'

    def read(text: str) -> None:
        with contextlib.suppress(saved.SavedReportError):
            saved.from_text(text, "issue.md")
        collect_env.find(text)

    assert linear(read, lambda size: (piece * (size // len(piece) + 1))[:size], 256 * 2**10)


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (("check", "--timeout", "1e10"), "--timeout must be a number of seconds above 0 and at most 3600"),
        (("check", "--timeout", "nan"), "--timeout must be"),
        (("check", "--min-free", "200"), "--min-free must be between 0 and 100, not 200"),
        (
            ("check", "--from", "tests/fixtures/h100x8_cvd_2_3.json", "--min-free", "200"),
            "--min-free must be",
        ),
        (("check", "--only", "a\nb"), "has a control character"),
        (("check", "--nproc", "1024"), "--nproc must be between 1 and 256"),
        (("check", "--only", "torch.build", "--nproc", "250"), "more than this machine can start at once"),
        (("check", "--backend", "mpi"), "--backend must be one of nccl, gloo"),
    ],
)
def test_options_are_checked_whatever_else_is_given(args: tuple[str, ...], text: str) -> None:
    # Where no --only is given, one whose probe imports no torch: no worker starts importing it for nothing.
    only = () if "--only" in args or "--from" in args else ("--only", "cuda.visible_devices")
    line = one_line_error(invoke(*args, *only, cwd=Path(__file__).resolve().parents[1]))
    assert text in line, line


# A value of 100,000 characters where each command echoes one back in its error
LONG = "x" * 100_000


@pytest.mark.parametrize(
    "args",
    [
        ("check", "--only", LONG),
        ("check", "--only", "cuda.visible_devices", "--fail-on", LONG),
        ("check", "--from", LONG),
        ("check", f"--{LONG}"),
        ("lint", LONG),
        ("diff", LONG, LONG),
        ("triage", LONG),
        (LONG,),
    ],
    ids=["unknown id", "choice", "file", "option", "lint path", "diff paths", "triage path", "command"],
)
def test_a_long_value_echoed_back_is_cut_to_a_line_that_fits_a_terminal(args: tuple[str, ...]) -> None:
    line = one_line_error(invoke(*args))
    assert len(line) < 1_100 and "characters left out" in line


def test_a_path_with_a_line_break_is_named_on_one_line(tmp_path: Path) -> None:
    from torchdoctor.checking import options
    from torchdoctor.inputs import bounded
    from torchdoctor.plugin import Option

    path = tmp_path / "report\nEVIL: forged line.json"
    with pytest.raises(bounded.InputError) as read:
        bounded.read_file(path)
    snapshot = Option(key="memory_snapshot", flag="--memory-snapshot", help="", type="file")
    with pytest.raises(options.BadOption) as given:
        options.checked([snapshot], {"memory_snapshot": str(path)})
    for message in (str(read.value), str(given.value)):
        assert "\n" not in message and "\\nEVIL: forged line.json'" in message, message


def test_a_key_with_a_line_break_in_a_saved_report_is_named_on_one_line() -> None:
    from torchdoctor.inputs import saved

    report = json.loads((Path(__file__).parent / "fixtures" / "h100x8_cvd_2_3.json").read_text())
    with pytest.raises(saved.SavedReportError) as refused:
        saved.parse(json.dumps({**report, "facts": {"\nEVIL": None}}), "r.json")
    assert "\n" not in str(refused.value)
    assert "at facts/'\\nEVIL'" in str(refused.value)


# ---------------------------------------------------------------- stdin that never ends


def test_a_stdin_that_never_ends_is_refused_at_its_deadline() -> None:
    from torchdoctor.inputs import bounded

    reading, writing = os.pipe()
    try:
        os.write(writing, b"RuntimeError: CUDA error: out of memory\n")  # a log still being written
        started = time.monotonic()
        with pytest.raises(bounded.InputError) as refused:
            bounded.read_fd(reading, bounded.MAX_STDIN_BYTES, timeout=0.5)
        assert time.monotonic() - started < 10  # the deadline torchdoctor enforces, with room
        assert "stdin did not end within 0.5 s" in str(refused.value)
        os.close(writing)
        writing = -1
    finally:
        os.close(reading)
        if writing >= 0:
            os.close(writing)


def test_a_stdin_that_ends_is_read_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    from torchdoctor.inputs import bounded

    reading, writing = os.pipe()
    os.write(writing, "ünïcode \xff".encode("latin-1") + b"\n")
    os.close(writing)
    with os.fdopen(reading, "r") as stdin:
        monkeypatch.setattr("sys.stdin", stdin)
        assert bounded.read_stdin_text(timeout=5) == "\ufffdn\ufffdcode \ufffd\n"


@pytest.mark.parametrize("command", ["explain", "triage"])
def test_a_closed_stdin_is_one_line(command: str) -> None:
    result = subprocess.run(
        [str(BIN / "torchdoctor"), command],
        preexec_fn=lambda: os.close(0),  # started without a stdin at all
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=60,
        check=False,
    )
    assert "stdin is closed" in one_line_error(result)


# ---------------------------------------------------------------- programs found on the PATH


def test_a_tool_is_never_found_through_a_relative_or_empty_path_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from torchdoctor.machine import sysinfo

    marker = tmp_path / "ran"
    here = tmp_path / "project"
    (here / "bin").mkdir(parents=True)
    for fake in (here / "clang", here / "bin" / "clang"):
        fake.write_text(f"#!/bin/sh\ntouch {marker}\necho 'clang version 99.0'\n")
        fake.chmod(0o755)
    monkeypatch.chdir(here)
    monkeypatch.setenv("PATH", os.pathsep.join(["", ".", "bin", "./bin"]))
    assert sysinfo.find_program("clang") is None
    assert sysinfo.tool_version("clang", "--version") is None
    assert not marker.exists()
    trusted = tmp_path / "trusted"
    trusted.mkdir()
    (trusted / "clang").mkdir()  # a folder named like the tool is no tool
    monkeypatch.setenv("PATH", os.pathsep.join(["", str(trusted), str(here / "bin")]))
    assert sysinfo.find_program("clang") == str(here / "bin" / "clang")
    found = sysinfo.tool_version("clang", "--version")
    assert found == {"path": str(here / "bin" / "clang"), "version": "99.0"}


# ---------------------------------------------------------------- report --force, at the moment of replacing


@pytest.mark.parametrize("swapped_in", ["fifo", "link to a file", "link to nothing", "folder"])
def test_force_replaces_only_a_regular_file_as_it_is_at_the_rename(tmp_path: Path, swapped_in: str) -> None:
    from torchdoctor.output.files import NotRegularFile, write_new

    target, elsewhere = tmp_path / "report.md", tmp_path / "precious"
    elsewhere.write_text("keep me")
    if swapped_in == "fifo":
        os.mkfifo(target)
    elif swapped_in == "folder":
        target.mkdir()
    else:
        target.symlink_to(elsewhere if swapped_in == "link to a file" else tmp_path / "nothing")
    before = os.lstat(target)
    with pytest.raises(NotRegularFile):
        write_new(target, "the report", overwrite=True)
    after = os.lstat(target)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)  # left exactly as it was
    assert elsewhere.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["report.md", "precious"])


def test_force_replaces_a_regular_file_and_writes_a_new_one(tmp_path: Path) -> None:
    from torchdoctor.output.files import write_new

    target = tmp_path / "report.md"
    target.write_text("old")
    write_new(target, "new", overwrite=True)
    target.unlink()
    write_new(target, "again", overwrite=True)
    assert target.read_text() == "again" and [p.name for p in tmp_path.iterdir()] == ["report.md"]


# ---------------------------------------------------------------- the DDP port lock


@pytest.fixture
def lock_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path / f"torchdoctor-{os.getuid()}"


def test_the_port_lock_lives_in_a_private_folder_and_names_its_holder(lock_folder: Path) -> None:
    from torchdoctor.checks.ddp import launcher

    with launcher.port_lock(29512) as first:
        assert first is None
        assert oct(lock_folder.stat().st_mode & 0o777) == "0o700"
        lock = lock_folder / "master-port-29512.lock"
        assert oct(lock.stat().st_mode & 0o777) == "0o600"
        with launcher.port_lock(29512) as second:
            assert second == os.getpid()
    with launcher.port_lock(29512) as again:
        assert again is None


def test_the_port_lock_follows_no_link_and_truncates_nothing(lock_folder: Path, tmp_path: Path) -> None:
    from torchdoctor.checks.ddp import launcher

    victim = tmp_path / "victim"
    victim.write_text("precious data\n" * 100)
    lock_folder.mkdir(mode=0o700)
    (lock_folder / "master-port-29513.lock").symlink_to(victim)
    with launcher.port_lock(29513) as holder:
        assert holder is None  # unlocked, but nothing was written through the link
    assert victim.read_text() == "precious data\n" * 100
    (lock_folder / "master-port-29514.lock").write_text("x" * 100)
    with launcher.port_lock(29514):
        written = (lock_folder / "master-port-29514.lock").read_text()
    assert len(written) == 100 and written.startswith(str(os.getpid()))  # overwritten in place, not cut


@pytest.mark.parametrize("folder", ["a link", "open to others"])
def test_the_port_lock_is_not_used_in_a_folder_others_could_prepare(
    lock_folder: Path, tmp_path: Path, folder: str
) -> None:
    from torchdoctor.checks.ddp import launcher

    if folder == "a link":
        (tmp_path / "theirs").mkdir()
        lock_folder.symlink_to(tmp_path / "theirs")
    else:
        lock_folder.mkdir()
        lock_folder.chmod(0o777)
    with launcher.port_lock(29515) as holder:
        assert holder is None
    assert not list((tmp_path / "theirs" if folder == "a link" else lock_folder).iterdir())


# ---------------------------------------------------------------- foreign text on the way out

ESCAPES = "\x1b]0;owned\x07\x9b2J\x08\x08\u202e"
ACTING = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]")
HF_TOKEN = "hf_" + "Q" * 34


def _saved_with_foreign_text(tmp_path: Path, name: str, variables: Any) -> Path:
    report = json.loads((Path(__file__).parent / "fixtures" / "h100x8_cvd_2_3.json").read_text())
    report["host"] = {"hostname": f"node-{name}", "os": f"Linux{ESCAPES}"}
    report["facts"]["env"] = {"variables": variables}
    report["facts"]["torch"]["file"] = f"/srv/{ESCAPES}/torch/__init__.py"
    path = tmp_path / f"{name}\nEVIL: forged line.json"
    path.write_text(json.dumps(report))
    return path


def test_diff_shows_foreign_text_inert(tmp_path: Path) -> None:
    """(A fact of the wrong type, variables that are no object, is refused: test_a_malformed_saved_report_is_
    one_line.)"""
    a = _saved_with_foreign_text(tmp_path, "a", {"NCCL_DEBUG": "WARN"})
    variables = {"NCCL_DEBUG": f"INFO{ESCAPES}", "HF_HOME": f"/x?token={HF_TOKEN}", "WANDB_API_KEY": "raw1"}
    b = _saved_with_foreign_text(tmp_path, "b", variables)
    result = invoke("diff", str(a), str(b))
    assert result.returncode == exitcodes.THRESHOLD, result.stderr
    assert not ACTING.search(result.stdout) and HF_TOKEN not in result.stdout and "raw1" not in result.stdout
    first, second = result.stdout.splitlines()[:2]
    assert first.startswith("A: '") and "\\nEVIL: forged line.json'" in first  # one line per report
    hosts = re.findall(r"<host-[0-9a-f]+>", first + second)
    assert len(set(hosts)) == 2 and "node-a" not in result.stdout
    assert "NCCL_DEBUG" in result.stdout and "\\u001b]0;owned\\u0007" in result.stdout


def test_check_from_shows_foreign_text_inert_and_no_redact_warns(tmp_path: Path) -> None:
    path = _saved_with_foreign_text(tmp_path, "c", {"NCCL_DEBUG": "INFO"})
    result = invoke("check", "--from", str(path), "--only", "torch.build", "-v", "--no-redact")
    assert result.returncode in (exitcodes.OK, exitcodes.THRESHOLD), result.stderr
    assert result.stderr.startswith("torchdoctor: warning: --no-redact:")
    assert not ACTING.search(result.stdout + result.stderr)
    assert "Linux\\u001b]0;owned\\u0007" in result.stdout
    assert len([line for line in result.stderr.splitlines() if "judging the facts of" in line]) == 1


def test_a_triage_reply_quotes_no_secret_and_no_escape(tmp_path: Path) -> None:
    issue = tmp_path / "issue.md"
    issue.write_text(
        "Training dies:\n```\nTraceback (most recent call last):\n"
        f'  File "train.py", line 3, in <module>\n'
        f"RuntimeError: CUDA error: out of memory while fetching https://bob:hunter2@hub.example.com/m "
        f"with {HF_TOKEN} {ESCAPES}\n```\n"
    )
    result = invoke("triage", "--format", "md", str(issue))
    assert result.returncode == exitcodes.OK, result.stderr
    assert "out of memory" in result.stdout
    for leak in ("hunter2", "bob:", HF_TOKEN):
        assert leak not in result.stdout
    assert not ACTING.search(result.stdout)
