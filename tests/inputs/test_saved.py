"""Saved reports: `check --from FILE` judges their facts with today's rules; bad files are exit 2."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from torchdoctor.checking import doctor, exitcodes, runner
from torchdoctor.inputs import saved
from torchdoctor.output.redact import Identity, redact_report
from torchdoctor.support import rejudge

import support
from support import fixture_facts, invoke, judge_fixture, validated_report

CORE = ["torch.build", "cuda.visible_devices"]
H100 = "h100x8_cvd_2_3.json"
HOST = {
    "hostname": "gpu-node-17.corp.example.com",
    "os": "Ubuntu 22.04.4 LTS",
    "kernel": "5.15.0-105-generic",
    "machine": "x86_64",
    "python": "3.11.9",
    "executable": "/home/alice/venv/bin/python",
    "virtualenv": True,
    "cpu_count": 224,
    "in_container": False,
}


def machine_report(fixture: str) -> dict[str, Any]:
    """The JSON report the machine of a fixture would have saved (facts recorded there, judged there)."""
    timings = {"total_s": 2.5, "probes": {"torch": 1.9, "nvml": 0.1, "cuda_driver": 0.05, "env": 0.01}}
    options = {"timeout": 30.0, "fail_on": "fail"}
    return support.machine_report(fixture_facts(fixture), CORE, HOST, options, timings)


def write(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(json.dumps(data))
    return path


def shown(verdicts: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(v["id"], v["status"], v["summary"], v["details"], v["fix"]) for v in verdicts]


def test_round_trip_report_then_check_from_gives_the_same_verdicts(saved_report: dict[str, Any]) -> None:
    assert saved_report["returncode"] == exitcodes.OK, saved_report["stderr"]
    path = saved_report["path"]  # `report -o` of this machine, where cuda.visible_devices warns (conftest.py)
    original = validated_report(Path(path).read_text())
    judged = invoke("check", "--from", path, "--json")
    assert judged.returncode == exitcodes.OK, judged.stderr
    again = validated_report(judged.stdout)
    assert shown(again["verdicts"]) == shown(original["verdicts"])
    assert [v["status"] for v in again["verdicts"]] == ["pass", "warn"]
    assert again["facts"] == original["facts"]
    assert again["judged_from"] == {
        "tool_version": original["tool"]["version"],
        "created_at": original["created_at"],
        "schema_version": 1,
    }
    assert again["redacted"] is True
    assert "judging the facts of" in judged.stderr and "redacted" in judged.stderr
    text = invoke("check", "--from", path)
    assert "WARN   cuda.visible_devices  CUDA_VISIBLE_DEVICES='0,0' hides every GPU" in text.stdout


def test_a_gpu_machines_report_is_judged_here_as_it_was_there(tmp_path: Path) -> None:
    path = write(tmp_path / "h100.json", machine_report(H100))
    result = invoke("check", "--from", str(path), "--json")
    assert result.returncode == exitcodes.OK, result.stderr
    report = validated_report(result.stdout)
    visible = next(v for v in report["verdicts"] if v["id"] == "cuda.visible_devices")
    expected = judge_fixture(support.installed("cuda.visible_devices")[1], H100)
    assert visible["summary"] == expected.summary
    assert visible["summary"].startswith("CUDA_VISIBLE_DEVICES=2,3: 2 of 8 GPU(s) visible, cuda:0 -> GPU 2")
    assert re.fullmatch(r"<host-[0-9a-f]{6,}>", report["host"]["hostname"])  # redacted like any report
    assert report["redacted"] is True
    assert report["timings"]["probes"]["torch"] == 1.9


def test_a_redacted_report_judges_the_same_with_shortened_uuids() -> None:
    original = machine_report(H100)
    identity = Identity.of(["/home/alice"], ["alice"], ["gpu-node-17.corp.example.com", "gpu-node-17"])
    redacted = redact_report(original, identity)
    with runner.Workers() as workers:
        checks = doctor.select_checks(doctor.installed_checks(workers), CORE)
        rejudged = rejudge.rejudge(saved.SavedReport(Path("h100.json"), redacted), checks, {}, workers)
    again = redact_report(rejudged.to_json(), identity)
    assert shown(again["verdicts"]) == shown(redacted["verdicts"])
    assert [v["status"] for v in again["verdicts"]] == [v["status"] for v in original["verdicts"]]
    mapping = next(v for v in again["verdicts"] if v["id"] == "cuda.visible_devices")["facts"]["mapping"]
    assert [(row["device"], row["gpu"], row["uuid"]) for row in mapping] == [
        ("cuda:0", 2, "GPU-7e2b9c10"),
        ("cuda:1", 3, "GPU-9b4d6e82"),
    ]


def test_only_and_skip_choose_among_the_saved_checks(tmp_path: Path) -> None:
    path = write(tmp_path / "h100.json", machine_report(H100))
    result = invoke("check", "--from", str(path), "--skip", "torch.build", "--json")
    assert [v["id"] for v in validated_report(result.stdout)["verdicts"]] == ["cuda.visible_devices"]


def test_a_saved_check_not_installed_here_is_left_out_and_named(tmp_path: Path) -> None:
    data = machine_report(H100)
    gone = dict(data["verdicts"][0], id="acme.gone", title="Acme")
    data["verdicts"].append(gone)
    path = write(tmp_path / "h100.json", data)
    result = invoke("check", "--from", str(path), "--json")
    assert result.returncode == exitcodes.OK, result.stderr
    assert "torchdoctor: not installed here, left out: acme.gone" in result.stderr.splitlines()
    assert [v["id"] for v in validated_report(result.stdout)["verdicts"]] == CORE


def test_a_check_whose_probe_is_missing_from_the_saved_facts_is_an_error(tmp_path: Path) -> None:
    data = machine_report(H100)
    del data["facts"]["cuda_driver"]
    path = write(tmp_path / "old.json", data)
    result = invoke("check", "--from", str(path), "--json")
    assert result.returncode == exitcodes.ERRORED
    statuses = {v["id"]: (v["status"], v["summary"]) for v in validated_report(result.stdout)["verdicts"]}
    assert statuses["torch.build"] == ("error", "no facts from probe 'cuda_driver' in this report")


def test_min_free_given_on_the_command_line_overrides_the_saved_option(tmp_path: Path) -> None:
    path = write(tmp_path / "h100.json", machine_report(H100))
    result = invoke("check", "--from", str(path), "--min-free", "25", "--json")
    options = validated_report(result.stdout)["options"]
    assert options["min_free_pct"] == 25.0 and options["timeout"] == 30.0


def _corrupt(tmp_path: Path) -> Path:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(machine_report(H100))[:500])
    return path


def _newer(tmp_path: Path) -> Path:
    return write(tmp_path / "r.json", {**machine_report(H100), "schema_version": 2})


def _not_a_report(tmp_path: Path) -> Path:
    return write(tmp_path / "r.json", {"segments": [], "device_traces": []})


def _markdown(tmp_path: Path) -> Path:
    path = tmp_path / "r.md"
    path.write_text("<!-- torchdoctor report -->\n### torchdoctor report\n")
    return path


def _no_verdicts(tmp_path: Path) -> Path:
    data = machine_report(H100)
    del data["verdicts"]
    return write(tmp_path / "r.json", data)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (_corrupt, "r.json is not valid JSON (line 1, column 501: "),
        (_newer, "r.json was written by a newer torchdoctor (torchdoctor 0.1.0) with schema_version 2"),
        (_not_a_report, "r.json is JSON but not a torchdoctor report (it has no schema_version)"),
        (
            _markdown,
            "r.md holds no torchdoctor JSON report and no collect_env dump (nor nvidia-smi output); it looks "
            "like a",
        ),
        (_no_verdicts, "r.json is not a valid report: at the top level: 'verdicts' is a required property"),
        (lambda tmp: tmp / "missing.json", "missing.json does not exist"),
    ],
    ids=["corrupt", "newer-schema", "not-a-report", "markdown", "no-verdicts", "missing"],
)
def test_a_bad_file_is_one_clear_line_and_exit_2(tmp_path: Path, make: Any, message: str) -> None:
    path = make(tmp_path)
    result = invoke("check", "--from", path.name, cwd=tmp_path)
    assert result.returncode == exitcodes.USAGE
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"torchdoctor: error: {message}"), line
    assert result.stdout == ""


def test_options_that_only_probes_use_cannot_go_with_from(tmp_path: Path) -> None:
    path = write(tmp_path / "h100.json", machine_report(H100))
    result = invoke("check", "--from", str(path), "--nproc", "2", "--quick")
    assert result.returncode == exitcodes.USAGE
    assert result.stderr == (
        "torchdoctor: error: --nproc, --quick cannot be used with --from: "
        "it judges saved facts, no probe runs\n"
    )


def test_a_newer_schema_is_refused_by_the_library_too() -> None:
    with pytest.raises(saved.SavedReportError, match="newer torchdoctor"):
        saved.parse(json.dumps({**machine_report(H100), "schema_version": 7}), "r.json")
