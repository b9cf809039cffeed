"""The edges of transfer.pinned: the link's generation and width against their maxima, NUMA placement, CPU
lists, pinned against pageable copies."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from torchdoctor.checks.transfer import link_bandwidth, pinned_judge
from torchdoctor.checks.transfer.pinned_check import CHECK
from torchdoctor.model import Finding, Status

from support import fixture_facts, judge_fixture

HEALTHY = "h100_pcie_gen5x16.json"


def bandwidth() -> dict[str, Any]:
    facts: dict[str, Any] = copy.deepcopy(fixture_facts(HEALTHY)["pinned_bandwidth"])
    return facts


def text(verdict: Finding) -> str:
    return "\n".join([verdict.summary, *map(str, verdict.details)])


def judged(facts: dict[str, Any]) -> Finding:
    return judge_fixture(CHECK, HEALTHY, pinned_bandwidth=facts)


@pytest.mark.parametrize(
    ("cpus", "shown"),
    [
        ([], "unknown"),
        ([5], "5"),
        ([0, 2], "0,2"),
        ([0, 1, 2, 3, 8, 10, 11], "0-3,8,10-11"),
        ([300, 301, 302], "300-302"),  # machines with more than 256 CPUs exist
        ([255, 256, 257, 400], "255-257,400"),
    ],
)
def test_cpu_lists_are_shown_as_ranges(cpus: list[int], shown: str) -> None:
    assert pinned_judge._cpus(cpus) == shown


@pytest.mark.parametrize(
    ("numa", "warns"),
    [
        ({"gpu_node": 1, "thread_nodes": [0]}, True),
        ({"gpu_node": 1, "thread_nodes": [0, 1]}, False),
        ({"gpu_node": 1, "thread_nodes": []}, False),  # where the process may run is unknown
        ({"gpu_node": None, "thread_nodes": [0]}, False),
    ],
)
def test_a_gpu_on_a_numa_node_the_process_may_not_run_on_warns(numa: dict[str, Any], warns: bool) -> None:
    assert bool(pinned_judge._numa("cuda:0", numa)) is warns


def link_lines(pcie: dict[str, Any], under_load: bool = True) -> tuple[list[Finding], list[str]]:
    link = {"pcie": pcie, "performance_state": 0 if under_load else 8}
    return pinned_judge._link("cuda:0", link, pcie, False, under_load, "00000000:C1:00.0")


@pytest.mark.parametrize(
    ("gen_gpu", "gen_max", "said"),
    [(5, 4, True), (5, 5, False), (4, 5, False), (None, 4, False), (5, None, False)],
)
def test_a_slot_slower_than_the_gpu_is_said(gen_gpu: Any, gen_max: Any, said: bool) -> None:
    pcie = {"gen_current": gen_max, "width_current": 16, "gen_max": gen_max, "width_max": 16}
    pcie["gen_gpu_max"] = gen_gpu
    _, lines = link_lines(pcie)
    limited = [line for line in lines if "the slot limits the link" in line]
    assert limited == (
        [f"cuda:0: the slot limits the link to Gen{gen_max}; the GPU itself supports Gen{gen_gpu}"]
        if said
        else []
    )


@pytest.mark.parametrize(
    ("gen", "width", "gen_max", "width_max", "below"),
    [
        (5, 16, 5, 16, None),
        (4, 16, 5, 16, "speed"),
        (5, 8, 5, 16, "width"),
        (3, 8, 5, 16, "width"),
        (5, 16, 4, 8, None),  # above the maxima NVML reports: not downtrained
        (None, 8, 5, 16, "width"),
        (4, None, 5, 16, "speed"),
        (4, 16, None, 16, None),
        (5, 8, 5, None, None),
    ],
)
def test_a_link_below_its_maximum_under_load_is_downtrained(
    gen: Any, width: Any, gen_max: Any, width_max: Any, below: str | None
) -> None:
    findings, _ = link_lines(
        {"gen_current": gen, "width_current": width, "gen_max": gen_max, "width_max": width_max}
    )
    if below is None:
        assert findings == []
    else:
        [finding] = findings
        assert finding.status is Status.FAIL
        assert finding.details == (f"read in P0 right after the pinned copies; {below} below the maximum",)
        assert finding.fix is not None
        assert finding.fix.commands[0] == "sudo lspci -vv -s c1:00.0 | grep -E 'LnkCap|LnkSta'"


def test_a_refused_pin_is_said_in_the_timing_line() -> None:
    facts = bandwidth()
    facts["devices"][0]["pinned"]["pin_s"] = None
    assert "pinning refused)" in text(judged(facts))
    assert "pinning refused)" not in text(judged(bandwidth()))


def test_the_facts_shown_hold_both_pinned_and_pageable_rates() -> None:
    facts = bandwidth()
    device = facts["devices"][0]
    shown = judged(facts).facts["devices"][0]
    for kind in ("pinned", "pageable"):
        assert shown[f"{kind}_gbps"] == {k: (device[kind].get(k) or {}).get("gbps") for k in ("h2d", "d2h")}
        assert None not in shown[f"{kind}_gbps"].values()


@pytest.mark.parametrize(
    ("pinned", "pageable", "warns"), [(20.0, 20.0, True), (20.0, 20.1, True), (20.1, 20.0, False)]
)
def test_pinned_copies_no_faster_than_pageable_ones_warn(pinned: float, pageable: float, warns: bool) -> None:
    facts = {"ok": True, "h2d": {"gbps": pinned}, "d2h": {"gbps": pinned}}
    paged = {"h2d": {"gbps": pageable}, "d2h": {"gbps": pageable}}
    assert bool(pinned_judge._pinned_not_faster("cuda:0", facts, paged, False)) is warns
    assert pinned_judge._pinned_not_faster("cuda:0", facts, paged, True) == []  # NVLink-C2C: no pageable path
    assert pinned_judge._pinned_not_faster("cuda:0", {**facts, "ok": False}, paged, False) == []


def devices(count: int, gen: int = 5) -> dict[str, Any]:
    """The healthy H100's facts, for ``count`` GPUs; those after the first on a PCIe ``gen`` x16 link, copying
    at the rate expected of it."""
    facts = bandwidth()
    first = facts["devices"][0]
    rate = link_bandwidth.expected(gen, 16).expected_gbps
    facts["devices"] = [first]
    for index in range(1, count):
        device = copy.deepcopy(first)
        device["index"] = index
        pcie = device["link"]["pcie"]
        pcie["gen_current"] = pcie["gen_max"] = gen
        for key in ("h2d", "d2h"):
            device["pinned"][key]["gbps"] = rate
        facts["devices"].append(device)
    return facts


def test_the_pass_summary_names_four_gpus_at_most_and_the_first_ones_expected_rate() -> None:
    four = judged(devices(4, gen=4))
    assert four.status is Status.PASS
    assert [f"cuda:{k} pinned" in four.summary for k in range(4)] == [True] * 4
    assert four.summary.endswith("(at least 85 % of the 53.6 GB/s expected)")
    five = judged(devices(5))
    assert five.status is Status.PASS
    assert "cuda:3 pinned" in five.summary and "cuda:4" not in five.summary
