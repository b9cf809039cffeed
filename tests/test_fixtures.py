"""The fixtures of machines in tests/fixtures: saved reports of facts that say how they were made, and
whose numbers could come from a real machine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from torchdoctor.checking import registry, runner
from torchdoctor.inputs import saved
from torchdoctor.model import Status
from torchdoctor.support.rejudge import judgeable

from support import FIXTURES, validated_report

NAMES = sorted(path.name for path in FIXTURES.glob("*.json"))


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text())
    return data


@pytest.mark.parametrize("name", NAMES)
def test_a_fixture_is_a_saved_report_check_from_can_judge(name: str) -> None:
    data = load(name)
    validated_report(json.dumps(data))
    assert saved.parse(json.dumps(data), name) == data
    # --from judges a file of facts with every check whose probes all answered (or failed) in it: the
    # machine's checks (check --from), or the cluster's (cluster --from) for the facts of a cluster exchange
    loaded = {}
    for group in (registry.CHECKS, registry.CLUSTER_CHECKS):
        for entry in registry.find_entries(group):
            check = registry.load(entry)
            assert not isinstance(check, registry.LoadFailure), check
            loaded[entry.id] = (entry, check)
    infos = [registry.CheckInfo(entry, check.title, tuple(check.probes)) for entry, check in loaded.values()]
    chosen, _ = judgeable(saved.SavedReport(FIXTURES / name, data), infos)
    if not chosen:
        # a fixture of an allocator snapshot: its facts are those torchdoctor memory reads beside it
        assert "snapshot" in data, "no check can judge the fixture's facts"
    options = data.get("options") or {}
    verdicts = [
        runner.judge_here(loaded[c.id][1], loaded[c.id][0], data["facts"], {}, options) for c in chosen
    ]
    assert [verdict.id for verdict in verdicts] == [check.id for check in chosen]
    for verdict in verdicts:
        assert verdict.status is not Status.ERROR, (verdict.id, verdict.summary, verdict.details)
        assert verdict.summary.strip(), verdict.id


@pytest.mark.parametrize("name", NAMES)
def test_a_fixture_says_how_it_was_made(name: str) -> None:
    fixture = load(name)["fixture"]
    assert fixture["made"] in ("synthetic", "recorded")
    assert len(fixture["source"]) > 40
    if fixture["made"] == "recorded":
        # only bench/record_fixture.py writes these, on the machine they describe
        assert fixture["date"] and fixture["command"].startswith("bench/gpu_smoke.sh")
    else:
        assert "recorded" not in fixture, "a synthetic fixture is never called recorded"


def _gpus(facts: dict[str, Any]) -> list[dict[str, Any]]:
    return list((facts.get("nvml") or {}).get("gpus") or [])


@pytest.mark.parametrize("name", [n for n in NAMES if _gpus(load(n)["facts"])])
def test_gpu_memory_adds_up_as_on_a_real_gpu(name: str) -> None:
    for gpu in _gpus(load(name)["facts"]):
        total, used, free = gpu["memory_total_bytes"], gpu["memory_used_bytes"], gpu["memory_free_bytes"]
        if total is None:  # no figures: NVML's answer says why (a unified-memory GPU's NotSupported)
            assert (gpu.get("errors") or {}).get("memory"), f"GPU {gpu['index']}: no figures, no NVML answer"
            continue
        reserved = gpu.get("memory_reserved_bytes") or 0
        processes = sum(p.get("used_memory_bytes") or 0 for p in gpu.get("processes") or [])
        assert used >= processes, f"GPU {gpu['index']}: processes hold {processes} but {used} is used"
        assert used + free + reserved <= total, f"GPU {gpu['index']}: more memory than the GPU has"


def _same_gpus(facts: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(torch's device, NVML's GPU) of each device both name by UUID, where torch gives its memory."""
    by_uuid = {str(g["uuid"]).removeprefix("GPU-"): g for g in _gpus(facts)}
    pairs = []
    for device in (facts.get("torch") or {}).get("devices") or []:
        gpu = by_uuid.get(str(device.get("uuid")).removeprefix("GPU-"))
        if gpu is not None and device.get("total_memory_bytes"):
            pairs.append((device, gpu))
    return pairs


@pytest.mark.parametrize("name", [n for n in NAMES if _same_gpus(load(n)["facts"])])
def test_torchs_total_memory_is_below_nvmls_total(name: str) -> None:
    pairs = _same_gpus(load(name)["facts"])
    assert pairs
    for device, gpu in pairs:
        assert device["total_memory_bytes"] < gpu["memory_total_bytes"], device["name"]


def test_the_fixture_folder_holds_only_fixtures() -> None:
    assert {p.suffix for p in Path(FIXTURES).iterdir() if p.is_file()} <= {".json"}
