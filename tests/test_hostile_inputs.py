"""Hostile input: whatever a file, a stream or an option holds, torchdoctor answers in one line, in time."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from torchdoctor import collect_env, exitcodes, saved

from support import BIN, cli_env, linear, run_cli, slack

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
    ],
)
def test_a_malformed_saved_report_is_one_line(tmp_path: Path, change: dict[str, Any], text: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps({**REPORT, **change}))
    for args in (("check", "--from", str(path)), ("diff", str(path), str(path))):
        line = one_line_error(run_cli(*args))
        assert text in line, line


def test_deeply_nested_and_huge_json_are_refused(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    assert "nested more deeply than 64 levels" in one_line_error(run_cli("check", "--from", str(deep)))
    huge = tmp_path / "huge.json"
    with huge.open("wb") as out:
        out.truncate(65 * 2**20)  # sparse: 65 MiB of zeros, over the 64 MiB a report may have
    assert "more than the 64 MiB torchdoctor reads" in one_line_error(run_cli("diff", str(huge), str(huge)))


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "fifo", "folder"])
def test_a_file_argument_that_is_no_regular_file_is_refused_without_reading_it(
    tmp_path: Path, device: str
) -> None:
    if device == "fifo":
        path = tmp_path / "fifo"
        os.mkfifo(path)  # nobody writes: opening it for reading would wait for ever
    elif device == "folder":
        path = tmp_path
    else:
        path = Path(device)
    for args in (
        ("check", "--from", str(path)),
        ("diff", str(path), str(path)),
        ("check", "--only", "gpu.fragmentation", "--memory-snapshot", str(path)),
        ("triage", str(path)),
    ):
        # a fifo nobody writes to would block a reader for ever: the timeout catches that
        line = one_line_error(run_cli(*args, timeout=slack(30)))
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


def test_a_text_of_endless_fences_and_dump_openings_is_triaged_in_time(tmp_path: Path) -> None:
    path = tmp_path / "issue.md"
    piece = '```json\n{"schema_version": 1}\n```\nPyTorch version: 2.1.0\n'
    path.write_text((piece * 400_000)[: 15 * 2**20])
    result = run_cli("triage", "--json", str(path), timeout=slack(60))
    assert result.returncode in (0, 1, 2), result.stderr


def test_saved_reports_and_dumps_are_found_in_linear_time() -> None:
    piece = '```json\n{"schema_version": 1}\n```\nPyTorch version: 2.1.0\n'

    def read(size: int) -> None:
        text = (piece * (size // len(piece) + 1))[:size]
        with contextlib.suppress(saved.SavedReportError):
            saved.from_text(text, "issue.md")
        collect_env.find(text)

    assert linear(read, 256 * 2**10)


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
    line = one_line_error(run_cli(*args, cwd=Path(__file__).resolve().parents[1]))
    assert text in line, line


def test_a_path_with_a_line_break_is_named_on_one_line(tmp_path: Path) -> None:
    from torchdoctor import inputs, options
    from torchdoctor.plugin import Option

    path = tmp_path / "report\nEVIL: forged line.json"
    with pytest.raises(inputs.InputError) as read:
        inputs.read_file(path)
    snapshot = Option(key="memory_snapshot", flag="--memory-snapshot", help="", type="file")
    with pytest.raises(options.BadOption) as given:
        options.checked([snapshot], {"memory_snapshot": str(path)})
    for message in (str(read.value), str(given.value)):
        assert "\n" not in message and "\\nEVIL: forged line.json'" in message, message


def test_a_key_with_a_line_break_in_a_saved_report_is_named_on_one_line() -> None:
    from torchdoctor import saved

    report = json.loads((Path(__file__).parent / "fixtures" / "h100x8_cvd_2_3.json").read_text())
    with pytest.raises(saved.SavedReportError) as refused:
        saved.parse(json.dumps({**report, "facts": {"\nEVIL": None}}), "r.json")
    assert "\n" not in str(refused.value)
    assert "at facts/'\\nEVIL'" in str(refused.value)
