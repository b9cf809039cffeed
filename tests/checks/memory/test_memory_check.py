"""gpu.memory judged on the recorded facts of real machine types; its process-name probe run here."""

from __future__ import annotations

import copy
import getpass
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from torchdoctor.checks.memory import gpu_processes_probe
from torchdoctor.checks.memory.memory_check import CHECK
from torchdoctor.machine import nvml
from torchdoctor.model import Finding, Status

import fake_nvml
from fake_nvml import FakeNvml, FakeProcess, h100_sxm
from support import fixture_facts, judge_fixture

GIB = 2**30
MIB = 2**20
BUSY = "h100x2_busy_two_foreign.json"
HEALTHY = "h100_pcie_gen5x16.json"
NOBODY = {"pid_namespace": "host", "own_pid": 4242, "ancestors": [1], "processes": {}}


def rows(verdict: Finding) -> list[dict[str, Any]]:
    return [d for d in verdict.details if isinstance(d, dict)]


def text(verdict: Finding) -> str:
    return "\n".join([verdict.summary, *map(str, verdict.details)])


def test_an_idle_h100_pcie_passes_with_its_memory() -> None:
    verdict = judge_fixture(CHECK, HEALTHY)

    assert verdict.status is Status.PASS
    assert verdict.summary == "cuda:0 (GPU 0) 79.3 GiB free of 79.6 GiB; no other process on the job's GPUs"
    assert rows(verdict)[0]["free_pct"] == "99.6 %"
    assert verdict.facts["mapping_source"] == "driver"


def test_a_gpu_with_two_foreign_processes_warns_naming_them() -> None:
    verdict = judge_fixture(CHECK, BUSY)

    assert verdict.status is Status.WARN
    assert verdict.summary == (
        "cuda:0 (GPU 0) is in use by 2 other processes holding 43.0 GiB: "
        "pid 48211 python3 (alice), 30.5 GiB; pid 51377 jupyter-lab (bob), 12.5 GiB"
    )
    assert verdict.fix is not None
    idle_uuid = fixture_facts(BUSY)["nvml"]["gpus"][1]["uuid"]
    assert verdict.fix.commands[-1] == f"export CUDA_VISIBLE_DEVICES={idle_uuid}"
    assert [p["pid"] for p in verdict.facts["devices"][0]["processes"]] == [48211, 51377]


def test_the_same_processes_on_a_gpu_the_job_does_not_use_are_only_evidence() -> None:
    verdict = judge_fixture(CHECK, "h100x8_cvd_2_3.json", gpu_processes=NOBODY)

    assert verdict.status is Status.PASS
    assert verdict.summary.startswith("cuda:0 (GPU 2) 79.1 GiB free of 79.6 GiB, cuda:1 (GPU 3)")
    assert "GPU 0 (not used by this job): pid 48211 unknown, 30.0 GiB" in verdict.details


def test_the_doctors_own_job_is_not_a_stranger() -> None:
    names = copy.deepcopy(fixture_facts(BUSY)["gpu_processes"])
    names["ancestors"] = [48211, 51377]

    verdict = judge_fixture(CHECK, BUSY, gpu_processes=names)

    assert verdict.status is Status.PASS
    assert "cuda:0 (GPU 0): pid 48211 python3 (alice), 30.5 GiB (this job)" in verdict.details


def test_below_min_free_warns_and_options_default_to_10_percent() -> None:
    assert (
        judge_fixture(CHECK, BUSY, gpu_processes={**NOBODY, "ancestors": [48211, 51377]}).status
        is Status.PASS
    )

    verdict = judge_fixture(
        CHECK, BUSY, {"min_free_pct": 50.0}, gpu_processes={**NOBODY, "ancestors": [48211, 51377]}
    )

    assert verdict.status is Status.WARN
    assert verdict.summary == "cuda:0 (GPU 0) has 46 % free (36.3 GiB of 79.6 GiB), below --min-free 50 %"


def test_a_mig_slice_is_reported_as_a_slice() -> None:
    verdict = judge_fixture(CHECK, "a100_mig_1g10gb.json", gpu_processes=NOBODY)

    assert verdict.status is Status.PASS
    (row,) = rows(verdict)
    assert row["device"] == "cuda:0 (MIG d184f67c gi 9 on GPU 0)"
    assert (row["total"], row["free"]) == ("9.6 GiB", "9.6 GiB")
    assert verdict.facts["devices"][0]["uuid"] == "MIG-d184f67c-c95f-5ef2-a935-195bd0094fbd"


def mig_with_process(gpu_instance: int) -> dict[str, Any]:
    nv = copy.deepcopy(fixture_facts("a100_mig_1g10gb.json")["nvml"])
    nv["gpus"][0]["processes"] = [
        {
            "pid": 7001,
            "used_memory_bytes": None,
            "kind": "compute",
            "gpu_instance_id": gpu_instance,
            "compute_instance_id": 0,
        }
    ]
    return nv


def test_a_process_in_the_jobs_mig_slice_warns_and_one_in_another_slice_does_not() -> None:
    names = {**NOBODY, "processes": {"7001": {"name": "python", "user": "carol", "status": "found"}}}

    busy = judge_fixture(CHECK, "a100_mig_1g10gb.json", nvml=mig_with_process(9), gpu_processes=names)
    elsewhere = judge_fixture(CHECK, "a100_mig_1g10gb.json", nvml=mig_with_process(10), gpu_processes=names)

    assert busy.status is Status.WARN
    assert busy.summary == (
        "cuda:0 (MIG d184f67c gi 9 on GPU 0) is in use by 1 other process holding an unknown amount of "
        "memory: pid 7001 python (carol), memory n/a"
    )
    assert elsewhere.status is Status.PASS


def test_a_whole_gpu_in_mig_mode_is_judged_slice_by_slice_when_the_driver_cannot_be_asked() -> None:
    driver = {
        "device_count": None,
        "devices": [],
        "proc_driver_version": "NVRM version: 550.54.15",
        "dev_nodes": [],
    }

    verdict = judge_fixture(
        CHECK, "a100_mig_1g10gb.json", cuda_driver=driver, env={"variables": {}}, gpu_processes=NOBODY
    )

    assert [r["device"] for r in rows(verdict)] == [
        "cuda:0 (MIG d184f67c gi 9 on GPU 0)",
        "cuda:0 (MIG 41e2b3a4 gi 10 on GPU 0)",
    ]
    assert verdict.facts["mapping_source"] == "model"


def test_a_gpu_the_job_uses_that_nvml_cannot_read_fails() -> None:
    nv = copy.deepcopy(fixture_facts("h100x8_cvd_2_3.json")["nvml"])
    lost = nv["gpus"][3]
    lost.update(
        memory_total_bytes=None,
        memory_used_bytes=None,
        memory_free_bytes=None,
        errors={"memory": "GpuIsLost"},
    )

    verdict = judge_fixture(CHECK, "h100x8_cvd_2_3.json", nvml=nv, gpu_processes=NOBODY)

    assert verdict.status is Status.FAIL
    assert verdict.summary == "cuda:1 (GPU 3) cannot be queried (memory: GpuIsLost)"
    assert verdict.fix is not None and verdict.fix.commands == (
        "nvidia-smi -q -i 3",
        "sudo dmesg | grep -i xid",
    )


def test_memory_nobody_listed_is_someone_elses() -> None:
    nv = copy.deepcopy(fixture_facts(HEALTHY)["nvml"])
    nv["gpus"][0]["memory_used_bytes"] = 20 * GIB
    nv["gpus"][0]["memory_free_bytes"] -= 20 * GIB

    verdict = judge_fixture(CHECK, HEALTHY, nvml=nv)

    assert verdict.status is Status.WARN
    assert verdict.summary.endswith(
        "holding 20.0 GiB: unknown processes NVML does not list (another container or user): 20.0 GiB"
    )


def test_in_a_container_with_its_own_pid_namespace_names_are_unknown() -> None:
    names = {
        "pid_namespace": "container",
        "own_pid": 12,
        "ancestors": [1],
        "processes": {
            "48211": gpu_processes_probe.describe(48211, "container"),
            "51377": gpu_processes_probe.describe(51377, "container"),
        },
    }

    verdict = judge_fixture(CHECK, BUSY, gpu_processes=names)

    assert verdict.status is Status.WARN
    assert "pid 48211 unknown: NVML reports host PIDs and this container has its own PID namespace" in text(
        verdict
    )


def test_no_driver_is_a_skip_and_a_broken_driver_a_failure() -> None:
    skipped = judge_fixture(CHECK, "laptop_no_driver.json", gpu_processes=NOBODY)
    driver = copy.deepcopy(fixture_facts(HEALTHY)["cuda_driver"])
    broken = judge_fixture(
        CHECK,
        HEALTHY,
        nvml={
            "available": False,
            "error": "LibRmVersionMismatch",
            "error_message": "RM has detected an NVML/RM version mismatch.",
            "gpus": [],
        },
        cuda_driver=driver,
    )

    assert skipped.status is Status.SKIP
    assert skipped.summary == "no NVIDIA driver on this machine (NVML: LibraryNotFound)"
    assert broken.status is Status.FAIL
    assert broken.summary == "the NVIDIA driver is installed but NVML cannot be queried: LibRmVersionMismatch"
    assert broken.fix is not None and "reboot" in broken.fix.text


def test_a_value_that_hides_every_gpu_is_a_skip() -> None:
    driver = copy.deepcopy(fixture_facts(HEALTHY)["cuda_driver"])
    driver.update(device_count=None, devices=[])

    verdict = judge_fixture(
        CHECK, HEALTHY, cuda_driver=driver, env={"variables": {"CUDA_VISIBLE_DEVICES": ""}}
    )

    assert verdict.status is Status.SKIP
    assert verdict.summary.startswith("no GPU is visible to the job (CUDA_VISIBLE_DEVICES='')")


# -- the gpu_processes probe, for real on this machine ---------------------------------------------


@pytest.fixture
def sleeper() -> Iterator[int]:
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        yield process.pid
    finally:
        process.kill()
        process.wait()


def test_the_probe_names_the_processes_nvml_lists(monkeypatch: pytest.MonkeyPatch, sleeper: int) -> None:
    gone = int(Path("/proc/sys/kernel/pid_max").read_text()) + 1  # no process can have it
    machine = FakeNvml([h100_sxm(0, processes=[FakeProcess(sleeper, 3 * GIB), FakeProcess(gone, 1 * GIB)])])
    monkeypatch.setattr(fake_nvml, "BACKEND", machine)
    monkeypatch.setenv(nvml.BACKEND_ENV, "fake_nvml:BACKEND")
    monkeypatch.setattr(gpu_processes_probe, "_namespace_link", lambda: "pid:[4026531836]")

    facts = gpu_processes_probe.probe({})

    assert facts["processes"][str(sleeper)] == {
        "name": psutil.Process(sleeper).name(),
        "user": getpass.getuser(),
        "status": "found",
    }
    assert facts["processes"][str(gone)]["status"] == "gone"
    assert facts["own_pid"] == os.getpid()
    assert os.getppid() in facts["ancestors"]


@pytest.mark.parametrize(
    ("link", "namespace"),
    [("pid:[4026531836]", "host"), ("pid:[4026532451]", "container"), (None, None)],
)
def test_the_pid_namespace_is_told_by_its_inode(link: str | None, namespace: str | None) -> None:
    assert gpu_processes_probe.pid_namespace(link) == namespace


def test_a_dgx_spark_whose_gpu_has_no_memory_of_its_own_is_not_measured_and_not_failed() -> None:
    verdict = judge_fixture(CHECK, "dgx_spark_gb10_unified_memory.json")

    assert verdict.status is Status.SKIP
    assert verdict.summary == (
        "cuda:0 (GPU 0) has no memory of its own (NVIDIA GB10: unified memory, the system's RAM shared with "
        "the CPU): NVML reports no figures for it, so its free memory is not measured here"
    )
    assert rows(verdict)[0]["free_pct"] == "unified"
    assert verdict.fix is None
