"""gpu.memory, gpu.fragmentation and transfer.pinned end to end through the CLI, on this CPU machine."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path
from typing import Any

import pytest

from torchdoctor.checking import exitcodes
from torchdoctor.machine import nvml

import fake_nvml
from support import (
    CPU_MACHINE,
    FIXTURES,
    cli_env,
    cli_in_process,
    invoke,
    no_gpu_reason,
    validated_report,
)

MEMORY_CHECKS = "gpu.memory,gpu.fragmentation,transfer.pinned"


def verdicts(stdout: str) -> dict[str, dict[str, Any]]:
    return {v["id"]: v for v in validated_report(stdout)["verdicts"]}


def snapshot_file(tmp_path: Path, fixture: str) -> Path:
    path = tmp_path / "snapshot.pickle"
    path.write_bytes(pickle.dumps(json.loads((FIXTURES / fixture).read_text())["snapshot"]))
    return path


@CPU_MACHINE
def test_on_this_cpu_machine_all_three_checks_skip_with_a_reason(live_run: dict[str, Any]) -> None:
    found = {v["id"]: v for v in live_run["report"]["verdicts"] if v["id"] in MEMORY_CHECKS.split(",")}
    assert {k: v["status"] for k, v in found.items()} == dict.fromkeys(MEMORY_CHECKS.split(","), "skip")
    assert found["gpu.memory"]["summary"] == "no NVIDIA driver on this machine (NVML: LibraryNotFound)"
    assert "no allocator data: no NVIDIA GPU here" in found["gpu.fragmentation"]["summary"]
    assert "--memory-snapshot FILE" in found["gpu.fragmentation"]["summary"]
    assert found["transfer.pinned"]["summary"].endswith(no_gpu_reason())
    assert list(found) == MEMORY_CHECKS.split(",")


@pytest.mark.parametrize(
    ("value", "key"),
    [
        ("expandable_segments:Maybe", "expandable_segments"),
        ("max_split_size_mb:abc", "max_split_size_mb"),
        ("expandable_segments:True,garbage_collection_treshold:0.6", "garbage_collection_treshold"),
    ],
)
def test_a_bad_allocator_config_fails_naming_the_key(value: str, key: str) -> None:
    result = invoke(
        "check", "--only", "gpu.fragmentation", "--json", env=cli_env(PYTORCH_CUDA_ALLOC_CONF=value)
    )

    assert result.returncode == exitcodes.THRESHOLD
    verdict = verdicts(result.stdout)["gpu.fragmentation"]
    assert verdict["status"] == "fail"
    assert verdict["summary"].startswith(key)
    assert verdict["fix"]["text"].startswith(f"Correct {key} in PYTORCH_CUDA_ALLOC_CONF")


def test_both_allocator_variables_disagreeing_warn() -> None:
    env = cli_env(
        PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True", PYTORCH_ALLOC_CONF="expandable_segments:False"
    )

    table = invoke("check", "--only", "gpu.fragmentation", env=env)
    gated = invoke("check", "--only", "gpu.fragmentation", "--fail-on", "warn", env=env)

    assert table.returncode == exitcodes.OK
    assert table.stdout.splitlines()[2].startswith(
        "WARN   gpu.fragmentation  PYTORCH_CUDA_ALLOC_CONF and PYTORCH_ALLOC_CONF are both set and disagree"
    )
    assert gated.returncode == exitcodes.THRESHOLD


def test_a_fragmented_snapshot_is_judged_through_the_cli(tmp_path: Path) -> None:
    path = snapshot_file(tmp_path, "v100_32gb_split_fragmented.json")

    result = invoke("check", "--only", "gpu.fragmentation", "--memory-snapshot", str(path))

    assert result.returncode == exitcodes.THRESHOLD, result.stderr
    lines = result.stdout.splitlines()
    assert lines[2].startswith("FAIL   gpu.fragmentation  cuda:0 ran out of memory asking for 50.0 MiB")
    table = "\n".join(lines)
    assert "device  pool   reserved  allocated  free      largest_free  fragmentation  segments" in table
    assert "cuda:0  large  30.9 GiB  17.9 GiB   13.0 GiB  42.0 MiB      99.7 %         158" in table
    assert "$ export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True" in table


def test_a_healthy_snapshot_passes_and_its_facts_are_in_the_report(tmp_path: Path) -> None:
    path = snapshot_file(tmp_path, "h200_expandable_segments_healthy.json")
    env = cli_env(PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True")

    result = invoke("check", "--only", "gpu.fragmentation", "--memory-snapshot", str(path), "--json", env=env)

    assert result.returncode == exitcodes.OK, result.stderr
    report = validated_report(result.stdout)
    (verdict,) = report["verdicts"]
    assert verdict["status"] == "pass"
    assert report["options"]["memory_snapshot"] == str(path.resolve())
    assert report["facts"]["allocator"]["devices"][0]["pools"][0]["expandable_segments"] == 1


def test_a_malicious_snapshot_is_refused_and_nothing_runs(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    # The bytes pickle.dumps writes for an object whose __reduce__ returns (os.system, ("touch ...",)).
    payload = b"cposix\nsystem\n(V" + f"touch {marker}".encode() + b"\ntR."
    path = tmp_path / "snapshot.pickle"
    path.write_bytes(payload)

    result = invoke("check", "--only", "gpu.fragmentation", "--memory-snapshot", str(path))

    assert result.returncode == exitcodes.USAGE
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line == (
        f"torchdoctor: error: --memory-snapshot: refused allocator snapshot {path}: the pickle names the "
        "class or callable "
        "'posix.system', and an allocator snapshot holds plain data only; nothing in the file was run"
    )
    assert not marker.exists()


@pytest.mark.parametrize(
    ("content", "text"),
    [
        (pickle.dumps({"segments": [{"total_size": 2, "blocks": []}]})[:-7], "is truncated"),
        (b"\x00\x01\x02", "not a valid pickle"),
    ],
    ids=["truncated", "corrupt"],
)
def test_a_corrupt_snapshot_is_one_clear_line_and_exit_2(tmp_path: Path, content: bytes, text: str) -> None:
    path = tmp_path / "snapshot.pickle"
    path.write_bytes(content)

    result = invoke("check", "--only", "gpu.fragmentation", "--memory-snapshot", str(path))

    assert result.returncode == exitcodes.USAGE
    (line,) = result.stderr.splitlines()
    assert text in line and "Traceback" not in result.stderr


def test_memory_report_runs_inside_the_process_that_calls_it() -> None:
    import torchdoctor

    report = torchdoctor.memory_report()

    assert "SKIP   gpu.fragmentation" in str(report)
    document = validated_report(json.dumps(report.to_json()))
    assert document["verdicts"][0]["status"] == "skip"


@CPU_MACHINE
def test_gpu_memory_through_the_cli_against_a_recorded_busy_machine(tmp_path: Path) -> None:
    machine = tmp_path / "machine.json"
    recorded = json.loads((FIXTURES / "h100x2_busy_two_foreign.json").read_text())["facts"]["nvml"]
    # Those PIDs were recorded on another machine; past pid_max they name no process here either.
    beyond = int(Path("/proc/sys/kernel/pid_max").read_text()) + 1
    for offset, process in enumerate(recorded["gpus"][0]["processes"]):
        process["pid"] = beyond + offset
    machine.write_text(json.dumps(recorded))
    env = cli_env(CUDA_VISIBLE_DEVICES="0")
    env.update({fake_nvml.MACHINE_ENV: str(machine), nvml.BACKEND_ENV: "fake_nvml:BACKEND"})

    result = invoke("check", "--only", "gpu.memory", "--json", env=env)

    assert result.returncode == exitcodes.OK, result.stderr
    verdict = verdicts(result.stdout)["gpu.memory"]
    assert verdict["status"] == "warn"
    assert verdict["summary"] == (
        f"cuda:0 (GPU 0) is in use by 2 other processes holding 43.0 GiB: pid {beyond} unknown: it has "
        f"exited, 30.5 GiB; pid {beyond + 1} unknown: it has exited, 12.5 GiB"
    )
    assert verdict["facts"]["mapping_source"] == "model"
    assert os.environ.get(nvml.BACKEND_ENV) is None  # the subprocess alone saw the fake machine


def test_the_cli_process_imports_neither_torch_nor_pynvml_for_these_checks(tmp_path: Path) -> None:
    path = snapshot_file(tmp_path, "h200_expandable_segments_healthy.json")
    # transfer.pinned left out: its probe imports torch in the worker (test_cli proves the CLI still does not)
    only = "gpu.memory,gpu.fragmentation"
    done = cli_in_process(["check", "--json", "--only", only, "--memory-snapshot", str(path)])

    assert "imported=[]" in done.stderr
    assert verdicts(done.stdout)["gpu.fragmentation"]["status"] == "pass"
