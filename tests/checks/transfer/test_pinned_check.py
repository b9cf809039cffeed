"""transfer.pinned judged on the recorded facts of real machine types; its probe's plan and NUMA reading."""

from __future__ import annotations

import contextlib
import copy
import json
import os
import time
import types
from pathlib import Path
from typing import Any

import pytest

from torchdoctor.checks.transfer import bandwidth_probe, link_bandwidth
from torchdoctor.checks.transfer.bandwidth_probe import MIB, Plan
from torchdoctor.checks.transfer.pinned_check import CHECK
from torchdoctor.machine import nvml
from torchdoctor.model import Finding, Status

from support import CPU_MACHINE, fixture_facts, judge_fixture, no_gpu_reason, slack, torch_here

HEALTHY = "h100_pcie_gen5x16.json"


def rows(verdict: Finding) -> list[dict[str, Any]]:
    return [d for d in verdict.details if isinstance(d, dict)]


def text(verdict: Finding) -> str:
    return "\n".join([verdict.summary, *map(str, verdict.details)])


def bandwidth_of(name: str) -> dict[str, Any]:
    facts: dict[str, Any] = copy.deepcopy(fixture_facts(name)["pinned_bandwidth"])
    return facts


def test_a_healthy_h100_on_pcie_gen5_x16_passes() -> None:
    verdict = judge_fixture(CHECK, HEALTHY)

    assert verdict.status is Status.PASS
    assert verdict.summary == (
        "cuda:0 pinned H2D 55.3 GB/s, D2H 55.1 GB/s (at least 85 % of the 53.6 GB/s expected)"
    )
    assert [(r["direction"], r["share"], r["grade"]) for r in rows(verdict)] == [
        ("H2D", "103 %", "pass"),
        ("D2H", "103 %", "pass"),
    ]
    assert "cuda:0: NVIDIA H100 PCIe on PCIe Gen5 x16: 63.0 GB/s theoretical, 53.6 GB/s expected, " in text(
        verdict
    )


def test_a_gpu_downtrained_to_gen3_x8_under_load_fails_on_its_link() -> None:
    verdict = judge_fixture(CHECK, "h100_pcie_gen3x8_downtrained.json")

    assert verdict.status is Status.FAIL
    assert verdict.summary == (
        "cuda:0 link is downtrained: PCIe Gen3 x8 under load, of the PCIe Gen5 x16 that the GPU and its slot "
        "allow"
    )
    # The copies are fine for the link they got: the link is the finding (research note §2.9).
    assert [r["grade"] for r in rows(verdict)] == ["pass", "pass"]
    assert verdict.fix is not None
    assert verdict.fix.commands[0] == "sudo lspci -vv -s c1:00.0 | grep -E 'LnkCap|LnkSta'"


def test_the_same_reading_at_idle_is_not_judged_and_expects_the_full_link() -> None:
    bandwidth = bandwidth_of("h100_pcie_gen3x8_downtrained.json")
    bandwidth["devices"][0]["link"]["performance_state"] = 8

    verdict = judge_fixture(CHECK, HEALTHY, pinned_bandwidth=bandwidth)

    assert "link was read in P8, not under load: its speed is not judged" in text(verdict)
    assert "downtrained" not in verdict.summary
    assert rows(verdict)[0]["expected"] == "53.6 GB/s"
    assert verdict.status is Status.FAIL  # 6.3 GB/s is 12 % of what a Gen5 x16 link carries
    assert verdict.summary.startswith("cuda:0 pinned H2D 6.3 GB/s is 12 % of the 53.6 GB/s expected")


def test_pinning_refused_is_a_failure_with_the_memlock_limit() -> None:
    verdict = judge_fixture(CHECK, "a100_pcie_pageable_only.json")

    assert verdict.status is Status.FAIL
    assert verdict.summary == "pin_memory() failed on cuda:0: CUDA error: out of memory"
    assert "locked-memory limit (ulimit -l): 64.0 KiB" in verdict.details
    assert verdict.fix is not None and "ulimit -l unlimited" in verdict.fix.commands
    assert [(r["pinned"], r["pageable"]) for r in rows(verdict)] == [
        ("n/a", "10.0 GB/s"),
        ("n/a", "10.8 GB/s"),
    ]


def test_copies_from_the_far_numa_node_fail_and_say_why() -> None:
    verdict = judge_fixture(CHECK, "p100_gen3x16_remote_numa.json")

    assert verdict.status is Status.FAIL
    assert verdict.summary == "cuda:0 pinned H2D 3.8 GB/s is 30 % of the 12.6 GB/s expected on PCIe Gen3 x16"
    assert "the copies crossed NUMA nodes (see above)" in verdict.details
    assert (
        "warn: cuda:0 is attached to NUMA node 0, but this process may only run on node(s) 1: every copy "
        "crosses the CPU interconnect"
    ) in verdict.details
    assert "CPUs this process may use: 32-63; CPUs local to the GPU: 0-31" in verdict.details
    assert verdict.fix is not None
    assert "numactl --cpunodebind=0 --membind=0 python train.py" in verdict.fix.commands


def test_grace_blackwell_over_nvlink_c2c_passes_with_pageable_as_fast_as_pinned() -> None:
    verdict = judge_fixture(CHECK, "gb300_nvlink_c2c.json")

    assert verdict.status is Status.PASS
    assert [r["expected"] for r in rows(verdict)] == ["351.0 GB/s", "351.0 GB/s"]
    assert "not faster" not in text(verdict)


@pytest.mark.parametrize(("h2d", "status"), [(45.6, Status.PASS), (40.0, Status.WARN), (32.0, Status.FAIL)])
def test_the_grade_bands_of_the_research_note(h2d: float, status: Status) -> None:
    bandwidth = bandwidth_of(HEALTHY)
    bandwidth["devices"][0]["pinned"]["h2d"]["gbps"] = h2d

    verdict = judge_fixture(CHECK, HEALTHY, pinned_bandwidth=bandwidth)

    assert verdict.status is status


def test_pinned_not_faster_than_pageable_warns() -> None:
    bandwidth = bandwidth_of(HEALTHY)
    bandwidth["devices"][0]["pageable"]["h2d"]["gbps"] = 56.0

    verdict = judge_fixture(CHECK, HEALTHY, pinned_bandwidth=bandwidth)

    assert verdict.status is Status.WARN
    assert verdict.summary == (
        "cuda:0: pinned copies are not faster than pageable ones (H2D pinned 55.3 GB/s, pageable 56.0 GB/s)"
    )


def test_a_gpu_that_could_not_be_measured_warns_and_the_others_are_still_judged() -> None:
    bandwidth = copy.deepcopy(fixture_facts(HEALTHY)["pinned_bandwidth"])
    healthy = bandwidth["devices"][0]
    bandwidth["devices"] = [
        {"index": 0, "error": "OutOfMemoryError: CUDA out of memory. Tried to allocate 256.00 MiB."},
        {**healthy, "index": 1},
    ]
    verdict = judge_fixture(CHECK, HEALTHY, pinned_bandwidth=bandwidth)
    assert verdict.status is Status.WARN
    assert verdict.summary.startswith("cuda:0 could not be measured: OutOfMemoryError")
    assert [row["device"] for row in verdict.details if isinstance(row, dict)] == ["cuda:1", "cuda:1"]


def test_without_a_link_reading_the_rates_are_shown_but_not_graded() -> None:
    bandwidth = bandwidth_of(HEALTHY)
    bandwidth["devices"][0]["link"] = {"available": False, "error": "LibraryNotFound"}

    verdict = judge_fixture(CHECK, HEALTHY, pinned_bandwidth=bandwidth)

    assert verdict.status is Status.SKIP
    assert verdict.summary == "measured, but no expected rate: NVML could not read the links"
    assert "cuda:0: the link could not be read (NVML: LibraryNotFound)" in verdict.details


def test_the_link_table_matches_the_calibration_of_the_research_note() -> None:
    def pass_line(gen: int, width: int) -> float:
        target = link_bandwidth.expected(gen, width)
        assert target is not None
        return round(target.pass_gbps, 1)

    assert [pass_line(5, 16), pass_line(4, 16), pass_line(3, 16), pass_line(3, 8)] == [45.5, 21.4, 10.7, 5.4]
    c2c = link_bandwidth.expected(None, None, c2c=True)
    assert c2c is not None and (c2c.expected_gbps, round(c2c.pass_gbps)) == (351.0, 298)
    assert link_bandwidth.expected(None, 16) is None
    assert link_bandwidth.expected(7, 16) is None


# -- the probe -----------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::UserWarning")  # torch's import warns that NumPy is missing
@CPU_MACHINE
def test_the_probe_on_this_cpu_machine_skips_with_the_reason() -> None:
    facts = bandwidth_probe.probe({"timeout": 30.0})

    assert facts["available"] is False
    assert facts["reason"].endswith(no_gpu_reason())
    assert facts["devices"] == []
    verdict = CHECK.judge({"pinned_bandwidth": facts}, {})
    assert verdict.status is Status.SKIP
    assert verdict.summary.startswith(f"no GPU to measure: torch {torch_here()['version']}")


def test_the_plan_fits_every_gpu_in_the_probes_deadline() -> None:
    assert bandwidth_probe.plan_for({}, 1) == bandwidth_probe.DEFAULT
    assert bandwidth_probe.plan_for({"quick": True}, 1) == bandwidth_probe.QUICK
    eight = bandwidth_probe.plan_for({"timeout": 30.0}, 8, spent_s=2.0)
    assert eight.budget_s == pytest.approx((30.0 - 5.0 - 2.0) / 8)
    assert bandwidth_probe.plan_for({"timeout": 1.0}, 8).budget_s == 0.2


@pytest.mark.parametrize(
    ("per_copy_s", "share_s", "copies", "size"),
    [
        (0.005, 3.0, 8, 256 * MIB),  # fast link: capped at max_copies
        (0.05, 0.75, 4, 256 * MIB),  # Gen3 x8: fewer copies
        (1.0, 3.0, 1, 85 * MIB),  # a link at Gen1 x1 speed: the warm-up leaves 1 s, a smaller buffer
        (30.0, 0.5, 1, 8 * MIB),  # never below the smallest buffer
    ],
)
def test_copies_and_buffer_shrink_to_fit_the_budget(
    per_copy_s: float, share_s: float, copies: int, size: int
) -> None:
    plan = Plan()
    assert bandwidth_probe._sizes(per_copy_s, 256 * MIB, share_s, plan) == (copies, size)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n")


def test_numa_placement_reads_the_gpu_and_thread_nodes_from_sysfs(tmp_path: Path) -> None:
    device = tmp_path / "bus" / "pci" / "devices" / "0000:3a:00.0"
    write(device / "numa_node", "1")
    write(device / "local_cpulist", "32-63")
    write(tmp_path / "devices" / "system" / "node" / "node0" / "cpulist", "0-31")
    write(tmp_path / "devices" / "system" / "node" / "node1" / "cpulist", "32-63")

    placement = bandwidth_probe.numa_placement("00000000:3A:00.0", {0, 1, 2}, sysfs=tmp_path)

    assert placement == {
        "gpu_node": 1,
        "gpu_local_cpus": list(range(32, 64)),
        "thread_cpus": [0, 1, 2],
        "thread_nodes": [0],
    }


def test_numa_placement_on_a_machine_without_numa_information(tmp_path: Path) -> None:
    write(tmp_path / "bus" / "pci" / "devices" / "0000:07:00.0" / "numa_node", "-1")

    placement = bandwidth_probe.numa_placement("00000000:07:00.0", {0}, sysfs=tmp_path)

    assert (placement["gpu_node"], placement["gpu_local_cpus"], placement["thread_nodes"]) == (None, [], [])


def test_cpulists_and_bus_ids_in_the_kernels_formats() -> None:
    assert bandwidth_probe.parse_cpulist("0-3,8,10-11\n") == [0, 1, 2, 3, 8, 10, 11]
    assert bandwidth_probe.parse_cpulist("") == []
    assert bandwidth_probe.sysfs_bus_id("00000001:DB:00.0") == "0001:db:00.0"


def test_memlock_limit_is_read_with_resource() -> None:
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_MEMLOCK)
    expected = None if soft == resource.RLIM_INFINITY else soft
    assert bandwidth_probe.memlock_limit()["soft"] == expected


# -- the measurement's control flow, with CPU tensors standing in for the GPU's ---------------------


class _Event:
    def __init__(self, enable_timing: bool = False) -> None:
        self.at = 0.0

    def record(self, stream: Any = None) -> None:
        self.at = time.perf_counter()

    def synchronize(self) -> None:
        pass

    def elapsed_time(self, end: _Event) -> float:
        return (end.at - self.at) * 1e3


def cuda_on_cpu(torch: Any, refuse_pinning: bool = False) -> Any:
    """torch as measure_device() uses it, every copy a real copy between CPU tensors."""

    def empty(size: int, dtype: Any = None, device: Any = None, pin_memory: bool = False) -> Any:
        if pin_memory and refuse_pinning:
            raise RuntimeError(
                "CUDA error: out of memory\nCUDA kernel errors might be asynchronously reported"
            )
        return torch.empty(size, dtype=dtype)

    props = types.SimpleNamespace(
        name="CPU standing in", uuid="0000", pci_bus_id=0x3A, pci_device_id=0, pci_domain_id=0
    )
    cuda = types.SimpleNamespace(
        get_device_properties=lambda index: props,
        device=lambda index: contextlib.nullcontext(),
        stream=lambda stream: contextlib.nullcontext(),
        Stream=lambda index: types.SimpleNamespace(synchronize=lambda: None),
        Event=_Event,
        synchronize=lambda index=None: None,
        empty_cache=lambda: None,
        _sleep=lambda cycles: None,
    )
    return types.SimpleNamespace(empty=empty, uint8=torch.uint8, cuda=cuda)


def link_reader(calls: list[str]) -> Any:
    def read(bus_id: str) -> nvml.LinkReading:
        calls.append(bus_id)
        return nvml.LinkReading(bus_id, available=True, performance_state=0)

    return read


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_measure_device_keeps_to_its_plan_and_budget() -> None:
    torch = pytest.importorskip("torch")
    plan = Plan(budget_s=0.6, buffer_bytes=32 * MIB, samples=3, max_copies=4, warmup=1)
    calls: list[str] = []
    affinity = os.sched_getaffinity(0)

    facts = bandwidth_probe.measure_device(cuda_on_cpu(torch), 0, plan, read_link=link_reader(calls))

    assert calls == ["00000000:3A:00.0"]  # read once, right after the pinned copies
    assert facts["pinned"]["ok"] is True
    for kind, direction in [("pinned", "h2d"), ("pinned", "d2h"), ("pageable", "h2d"), ("pageable", "d2h")]:
        measured = facts[kind][direction]
        assert measured["gbps"] > 0
        assert 1 <= measured["copies"] <= plan.max_copies
        assert len(measured["samples_gbps"]) == plan.samples
    assert facts["pinned"]["h2d"]["timer"] == "cuda_events"
    assert facts["pageable"]["h2d"]["timer"] == "wall_clock"
    assert facts["elapsed_s"] < plan.budget_s + slack(0.5)  # the probe keeps to its budget
    assert os.sched_getaffinity(0) == affinity
    assert facts["link"]["performance_state"] == 0
    json.dumps(facts, allow_nan=False)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_measure_device_records_a_refused_pin_and_measures_pageable_copies() -> None:
    torch = pytest.importorskip("torch")
    plan = Plan(budget_s=0.3, buffer_bytes=8 * MIB, samples=3, max_copies=2, warmup=1)
    calls: list[str] = []

    facts = bandwidth_probe.measure_device(
        cuda_on_cpu(torch, refuse_pinning=True), 0, plan, link_reader(calls)
    )

    assert facts["pinned"] == {
        "ok": False,
        "error": "CUDA error: out of memory",
        "pin_s": None,
        "h2d": None,
        "d2h": None,
    }
    assert facts["pageable"]["h2d"]["gbps"] > 0 and facts["pageable"]["d2h"]["gbps"] > 0
    assert calls == ["00000000:3A:00.0"]
    verdict = CHECK.judge(
        {"pinned_bandwidth": {"available": True, "devices": [facts], "memlock_bytes": {}}}, {}
    )
    assert verdict.status is Status.FAIL
    assert verdict.summary == "pin_memory() failed on cuda:0: CUDA error: out of memory"
