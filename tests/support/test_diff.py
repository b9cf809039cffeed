"""`torchdoctor diff A B`: what differs between two reports that matters for training."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from torchdoctor.checking import exitcodes
from torchdoctor.support import diff

import support
from support import cli_env, fixture_facts, invoke

H100 = "h100x8_cvd_2_3.json"
HOST = {
    "hostname": "gpu-node-17",
    "os": "Ubuntu 22.04.4 LTS",
    "kernel": "5.15.0-105-generic",
    "python": "3.11.9",
}


def machine_report(facts: dict[str, Any], host: dict[str, Any] | None = None) -> dict[str, Any]:
    return support.machine_report(facts, ["torch.build", "cuda.visible_devices"], host or HOST)


def node_b() -> dict[str, Any]:
    """The same 8-GPU H100 node after a driver downgrade, with another CUDA_VISIBLE_DEVICES and NCCL_DEBUG."""
    facts = copy.deepcopy(fixture_facts(H100))
    facts["nvml"].update(driver_version="535.104.05", cuda_driver_version=12020)
    facts["env"]["variables"] = {"CUDA_VISIBLE_DEVICES": "3,2", "LOCAL_RANK": "1", "NCCL_DEBUG": "INFO"}
    driver = facts["cuda_driver"]
    driver["devices"] = list(reversed(driver["devices"]))
    for ordinal, device in enumerate(driver["devices"]):
        device["ordinal"] = ordinal
    facts["torch"]["nccl_version"] = "2.21.5"
    return machine_report(facts, {**HOST, "hostname": "gpu-node-18"})


def test_a_report_has_no_differences_with_itself() -> None:
    report = machine_report(fixture_facts(H100))
    assert diff.compare(report, copy.deepcopy(report)) == []


def test_what_changed_for_training_is_listed_and_what_does_not_matter_is_not() -> None:
    found = {
        (d.section, d.name): (d.before, d.after)
        for d in diff.compare(machine_report(fixture_facts(H100)), node_b())
    }
    assert found[("versions", "NCCL")] == ("2.27.5", "2.21.5")
    assert found[("driver", "NVIDIA driver")] == ("575.57.08", "535.104.05")
    assert found[("driver", "CUDA supported by the driver")] == ("12.9", "12.2")
    assert found[("visible devices", "cuda:0")] == (
        "GPU 2 (NVIDIA H100 80GB HBM3)",
        "GPU 3 (NVIDIA H100 80GB HBM3)",
    )
    assert found[("environment", "CUDA_VISIBLE_DEVICES")] == ("2,3", "3,2")
    assert found[("environment", "NCCL_DEBUG")] == (None, "INFO")
    assert found[("verdicts", "torch.build")] == ("pass", "warn")  # minor-version compatibility
    # The hostname differs, and does not matter for training.
    assert not [key for key in found if key[1] == "hostname"]


def test_a_verdict_whose_summary_moves_but_status_does_not_is_no_difference() -> None:
    before = machine_report(fixture_facts(H100))
    after = copy.deepcopy(before)
    after["verdicts"][0]["summary"] += " (measured again)"
    assert diff.compare(before, after) == []


def test_gpus_that_differ_are_named_by_index() -> None:
    facts = copy.deepcopy(fixture_facts(H100))
    facts["nvml"]["gpus"] = facts["nvml"]["gpus"][:4]
    found = {
        (d.section, d.name): (d.before, d.after)
        for d in diff.compare(machine_report(fixture_facts(H100)), machine_report(facts))
    }
    assert found[("GPUs", "count")] == ("8", "4")
    assert found[("GPUs", "GPU 7")] == ("NVIDIA H100 80GB HBM3, 9.0, 79.6 GiB", None)


@pytest.fixture(scope="module")
def saved_pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("diff")
    a, b = folder / "node-a.json", folder / "node-b.json"
    a.write_text(json.dumps(machine_report(fixture_facts(H100))))
    b.write_text(json.dumps(node_b()))
    return a, b


def test_diff_of_a_report_with_itself_says_no_differences_and_exits_0(saved_pair: tuple[Path, Path]) -> None:
    a, _ = saved_pair
    result = invoke("diff", str(a), str(a))
    assert result.returncode == exitcodes.OK, result.stderr
    assert result.stdout.splitlines()[-1] == "no differences"


def test_diff_with_a_changed_report_lists_the_changes_and_exits_1(saved_pair: tuple[Path, Path]) -> None:
    a, b = saved_pair
    result = invoke("diff", str(a), str(b))
    assert result.returncode == exitcodes.THRESHOLD, result.stderr
    lines = result.stdout.splitlines()
    # Each machine under a pseudonym of its own: redacted, and still two machines.
    written = "2026-11-30T11:32:16Z, torchdoctor 0.1.0"
    hosts = [
        re.fullmatch(rf"{x}: {re.escape(str(p))} \((<host-[0-9a-f]{{6,}}>), {written}\)", line)
        for x, p, line in (("A", a, lines[0]), ("B", b, lines[1]))
    ]
    assert hosts[0] and hosts[1] and hosts[0][1] != hosts[1][1], lines[:2]
    assert "gpu-node-1" not in result.stdout
    assert lines[3] == "versions"
    sections = [line for line in lines if line and not line.startswith((" ", "A:", "B:"))]
    assert sections == ["versions", "driver", "visible devices", "environment", "verdicts", "8 differences"]
    assert any(line.split() == ["NCCL_DEBUG", "(unset)", "->", "INFO"] for line in lines)
    verdict = next(line for line in lines if line.strip().startswith("torch.build"))
    assert verdict.split(": ", 1)[0].split() == ["torch.build", "pass", "->", "warn"]
    assert "driver" in verdict.split(": ", 1)[1]  # the new summary says why


def test_diff_json_lists_the_differences(saved_pair: tuple[Path, Path]) -> None:
    a, b = saved_pair
    result = invoke("diff", str(a), str(b), "--json")
    assert result.returncode == exitcodes.THRESHOLD
    rows = json.loads(result.stdout)
    assert {
        "section": "environment",
        "name": "NCCL_DEBUG",
        "before": None,
        "after": "INFO",
        "note": None,
    } in rows


def test_diff_of_two_reports_of_this_machine(tmp_path: Path) -> None:
    only = ("--only", "cuda.visible_devices")  # its probe imports no torch
    (tmp_path / "a.json").write_text(invoke("check", *only, "--json").stdout)
    changed = cli_env(NCCL_DEBUG="INFO", CUDA_VISIBLE_DEVICES="0,0")
    (tmp_path / "b.json").write_text(invoke("check", *only, "--json", env=changed).stdout)
    result = invoke("diff", str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    assert result.returncode == exitcodes.THRESHOLD
    body = [line.split() for line in result.stdout.splitlines()[3:]]
    assert body[:4] == [
        ["environment"],
        ["CUDA_VISIBLE_DEVICES", "(unset)", "->", "0,0"],
        ["NCCL_DEBUG", "(unset)", "->", "INFO"],
        ["verdicts"],
    ]
    assert body[4][:4] == ["cuda.visible_devices", "skip", "->", "warn:"]


def test_an_unreadable_report_is_bad_input(saved_pair: tuple[Path, Path], tmp_path: Path) -> None:
    result = invoke("diff", str(saved_pair[0]), str(tmp_path / "nope.json"))
    assert result.returncode == exitcodes.USAGE
    assert result.stderr == f"torchdoctor: error: {tmp_path / 'nope.json'} does not exist\n"
