"""gpu.fragmentation judged on snapshots of real machine types, allocator variables and in-process facts."""

from __future__ import annotations

import copy
import json
import pickle
from pathlib import Path
from typing import Any

import pytest

from torchdoctor.checks.memory import allocator_probe, allocator_snapshot
from torchdoctor.checks.memory.fragmentation_check import CHECK
from torchdoctor.model import Finding, Status

from support import FIXTURES, fixture_facts

MIB = 2**20
GIB = 2**30
FRAGMENTED = "v100_32gb_split_fragmented.json"
HEALTHY = "h200_expandable_segments_healthy.json"
NO_DRIVER = {"available": False, "error": "LibraryNotFound", "gpus": []}


def raw_snapshot(name: str) -> dict[str, Any]:
    snapshot: dict[str, Any] = json.loads((FIXTURES / name).read_text())["snapshot"]
    return snapshot


def judged(
    tmp_path: Path,
    name: str,
    snapshot: dict[str, Any] | None = None,
    variables: dict[str, str] | None = None,
    options: dict[str, Any] | None = None,
) -> Finding:
    """Pickle the fixture's snapshot as _dump_snapshot() would, run the probe on it, judge the facts."""
    path = tmp_path / "snapshot.pickle"
    path.write_bytes(pickle.dumps(snapshot if snapshot is not None else raw_snapshot(name)))
    facts = fixture_facts(name)
    if variables is not None:
        facts["env"] = {"variables": variables}
    facts["allocator"] = allocator_probe.probe({"memory_snapshot": str(path)})
    return CHECK.judge(facts, options or {})


def without_oom(snapshot: dict[str, Any]) -> dict[str, Any]:
    quiet = copy.deepcopy(snapshot)
    quiet["device_traces"] = [[]]
    return quiet


def text(finding: Finding) -> str:
    return "\n".join([finding.summary, *map(str, finding.details)])


def test_the_fragmented_v100_snapshot_fails_on_its_fragmentation_oom(tmp_path: Path) -> None:
    verdict = judged(tmp_path, FRAGMENTED)

    assert verdict.status is Status.FAIL
    assert verdict.summary == (
        "cuda:0 ran out of memory asking for 50.0 MiB while 13.0 GiB sat free in the allocator's segments, "
        "none of it in a block that large: fragmentation"
    )
    assert "largest free block 42.0 MiB; the GPU had 30.0 MiB left" in text(verdict)
    rows = [d for d in verdict.details if isinstance(d, dict)]
    assert rows[0] == {
        "device": "cuda:0",
        "pool": "large",
        "reserved": "30.9 GiB",
        "allocated": "17.9 GiB",
        "free": "13.0 GiB",
        "largest_free": "42.0 MiB",
        "fragmentation": "99.7 %",
        "segments": 158,
    }
    assert verdict.fix is not None
    assert verdict.fix.commands == ("export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",)
    assert "empty_cache()" in verdict.fix.text and "long-lived tensors" in verdict.fix.text
    json.dumps(verdict.facts, allow_nan=False)


def test_without_the_oom_the_split_free_blocks_alone_warn(tmp_path: Path) -> None:
    verdict = judged(tmp_path, FRAGMENTED, without_oom(raw_snapshot(FRAGMENTED)))

    assert verdict.status is Status.WARN
    assert verdict.summary.startswith("cuda:0 large pool is fragmented: 13.0 GiB (42 % of 30.9 GiB reserved)")
    assert "largest free block is 42.0 MiB (external fragmentation 99.7 %)" in verdict.summary


def test_half_the_pool_in_slivers_fails_without_an_oom(tmp_path: Path) -> None:
    snapshot = without_oom(raw_snapshot(FRAGMENTED))
    for segment in snapshot["segments"][:158]:  # 60 + 42 + 56 + 42 MiB -> 40 + 60 + 40 + 60 MiB
        for block, size in zip(segment["blocks"], (40, 60, 40, 60), strict=True):
            block["size"] = block["requested_size"] = size * MIB

    verdict = judged(tmp_path, FRAGMENTED, snapshot)

    assert verdict.status is Status.FAIL
    assert "(60 % of 30.9 GiB reserved)" in verdict.summary


def test_the_healthy_h200_passes_although_a_third_of_its_reserve_is_free(tmp_path: Path) -> None:
    verdict = judged(tmp_path, HEALTHY)

    assert verdict.status is Status.PASS
    assert verdict.fix is None
    assert verdict.summary.startswith(
        "cuda:0: 33.3 GiB of 90.0 GiB reserved is free, the largest block 31.7 GiB"
    )
    assert (
        "the job's allocator, recorded in the snapshot: PYTORCH_CUDA_ALLOC_CONF='expandable_segments:True' "
        "(expandable_segments True)" in text(verdict)
    )


def with_settings(name: str, **settings: Any) -> dict[str, Any]:
    snapshot = raw_snapshot(name)
    snapshot["allocator_settings"] = {**snapshot["allocator_settings"], **settings}
    return snapshot


def test_with_expandable_segments_already_on_in_the_job_the_fix_is_about_lifetimes(tmp_path: Path) -> None:
    snapshot = with_settings(
        FRAGMENTED, PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True", expandable_segments=True
    )
    verdict = judged(tmp_path, FRAGMENTED, snapshot)

    assert verdict.status is Status.FAIL
    assert verdict.fix is not None
    assert verdict.fix.text.startswith(
        "Expandable segments are already on, so what is left is interleaved lifetimes"
    )
    assert verdict.fix.commands == ()


def test_a_snapshot_is_judged_with_its_own_jobs_settings_not_this_machines_variable(tmp_path: Path) -> None:
    # The snapshot's job ran without expandable segments; this machine happens to set them.
    here = {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True,max_split_size_mb:256"}
    verdict = judged(tmp_path, FRAGMENTED, variables=here)

    assert verdict.fix is not None
    assert verdict.fix.commands == ("export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",)
    assert (
        "the job's allocator, recorded in the snapshot: no allocator variable set (expandable_segments False)"
        in text(verdict)
    )
    assert "max_split_size_mb:256" not in text(verdict)


def test_a_snapshot_without_recorded_settings_does_not_borrow_this_machines(tmp_path: Path) -> None:
    snapshot = raw_snapshot(FRAGMENTED)
    del snapshot["allocator_settings"]
    verdict = judged(
        tmp_path, FRAGMENTED, snapshot, variables={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}
    )

    assert verdict.fix is not None
    assert "unless it already sets it" in verdict.fix.text
    assert "does not record its job's allocator settings" in text(verdict)


def test_the_fix_keeps_the_options_the_job_set_in_the_variable_it_used(tmp_path: Path) -> None:
    snapshot = with_settings(
        FRAGMENTED, PYTORCH_CUDA_ALLOC_CONF=None, PYTORCH_ALLOC_CONF="max_split_size_mb:512"
    )
    verdict = judged(tmp_path, FRAGMENTED, snapshot)

    assert verdict.fix is not None
    assert verdict.fix.commands == (
        "export PYTORCH_ALLOC_CONF=max_split_size_mb:512,expandable_segments:True",
    )


def test_an_oom_with_little_free_cache_is_exhaustion_not_fragmentation(tmp_path: Path) -> None:
    snapshot = raw_snapshot(HEALTHY)
    snapshot["device_traces"] = [[{"action": "oom", "size": 40 * GIB, "device_free": 2 * MIB}]]

    verdict = judged(tmp_path, HEALTHY, snapshot)

    assert verdict.status is Status.WARN
    assert "the GPU was full rather than fragmented" in verdict.summary
    assert verdict.fix is not None and "batch size" in verdict.fix.text


# -- without a snapshot: the allocator variables, and how to get the data ---------------------------


def judge_env(variables: dict[str, str], nv: dict[str, Any] | None = None) -> Finding:
    facts = {
        "env": {"variables": variables},
        "nvml": nv or NO_DRIVER,
        "allocator": allocator_probe.probe({}),
    }
    return CHECK.judge(facts, {})


def test_no_snapshot_and_no_gpu_is_a_skip_that_says_how_to_get_the_data() -> None:
    verdict = judge_env({})

    assert verdict.status is Status.SKIP
    assert verdict.summary == (
        "no allocator variable set; no allocator data: no NVIDIA GPU here (NVML: LibraryNotFound); judge a "
        "snapshot with --memory-snapshot FILE or call torchdoctor.memory_report() in the job"
    )
    assert any("torch.cuda.memory._dump_snapshot('snapshot.pickle')" in str(d) for d in verdict.details)


def test_no_snapshot_on_a_gpu_machine_says_the_data_lives_in_the_job() -> None:
    verdict = judge_env(
        {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}, fixture_facts("h100x8_cvd_2_3.json")["nvml"]
    )

    assert verdict.status is Status.SKIP
    assert verdict.summary.startswith(
        "PYTORCH_CUDA_ALLOC_CONF='expandable_segments:True' is valid; no allocator data: its statistics live "
        "inside the training process"
    )


@pytest.mark.parametrize(
    ("value", "key"),
    [("expandable_segments:Maybe", "expandable_segments"), ("max_split_size_mb:abc", "max_split_size_mb")],
)
def test_a_bad_allocator_variable_fails_naming_the_key_even_without_data(value: str, key: str) -> None:
    verdict = judge_env({"PYTORCH_CUDA_ALLOC_CONF": value})

    assert verdict.status is Status.FAIL
    assert verdict.summary.startswith(key)
    assert verdict.summary.endswith("(torch raises at the first CUDA allocation)")
    assert f"PYTORCH_CUDA_ALLOC_CONF={value!r}" in verdict.details
    assert any(str(d).startswith("skip: ") for d in verdict.details)
    assert verdict.fix is not None and key in verdict.fix.text


def test_both_variables_set_and_disagreeing_warn() -> None:
    verdict = judge_env(
        {
            "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:False",
            "PYTORCH_ALLOC_CONF": "expandable_segments:True",
        }
    )

    assert verdict.status is Status.WARN
    assert "are both set and disagree" in verdict.summary
    assert verdict.facts["alloc_conf"]["variable"] == "PYTORCH_CUDA_ALLOC_CONF"


def test_caching_switched_off_warns() -> None:
    verdict = judge_env({"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"})

    assert verdict.status is Status.WARN
    assert verdict.fix is not None and verdict.fix.commands == ("unset PYTORCH_NO_CUDA_MEMORY_CACHING",)


def test_a_snapshot_that_cannot_be_read_at_probe_time_is_an_error(tmp_path: Path) -> None:
    facts = {
        "env": {"variables": {}},
        "nvml": NO_DRIVER,
        "allocator": allocator_probe.probe({"memory_snapshot": str(tmp_path / "gone.pickle")}),
    }

    verdict = CHECK.judge(facts, {})

    assert verdict.status is Status.ERROR
    assert "gone.pickle does not exist" in verdict.summary


# -- facts from inside a job (torchdoctor.memory_report) ------------------------------------------


def in_process(counters: dict[str, int], snapshot: dict[str, Any]) -> dict[str, Any]:
    summary = allocator_snapshot.summarize(snapshot)
    devices = [{**device, "counters": counters} for device in summary["devices"]]
    return {"source": "in_process", "devices": devices, "allocator_settings": summary["allocator_settings"]}


def test_alloc_retries_inside_the_job_warn() -> None:
    facts = {
        "env": {"variables": {}},
        "allocator": in_process({"num_alloc_retries": 3, "num_ooms": 0}, raw_snapshot(HEALTHY)),
    }

    verdict = CHECK.judge(facts, {})

    assert verdict.status is Status.WARN
    assert verdict.summary.startswith("cuda:0: 3 cudaMalloc retries: each one flushed the allocator's cache")
    assert "from this process's allocator" in text(verdict)


def test_ooms_counted_inside_the_job_fail_when_the_free_memory_is_fragmented() -> None:
    allocator = in_process({"num_alloc_retries": 0, "num_ooms": 2}, without_oom(raw_snapshot(FRAGMENTED)))

    verdict = CHECK.judge({"env": {"variables": {}}, "allocator": allocator}, {})

    assert verdict.status is Status.FAIL
    assert "cuda:0: 2 out-of-memory errors in this process with fragmented free memory" in text(verdict)


def test_no_allocator_in_this_process_is_a_skip_with_the_reason() -> None:
    facts = {
        "env": {"variables": {}},
        "allocator": {"source": None, "unavailable_reason": "no CUDA here", "devices": []},
    }

    verdict = CHECK.judge(facts, {})

    assert verdict.status is Status.SKIP
    assert verdict.summary == "no allocator variable set; no allocator data: no CUDA here"


def test_the_async_backend_warning_fixes_the_value_not_the_variables() -> None:
    facts = fixture_facts("laptop_no_driver.json")
    facts["env"] = {
        "variables": {"PYTORCH_CUDA_ALLOC_CONF": "backend:cudaMallocAsync,expandable_segments:True"}
    }
    facts["allocator"] = {"source": None, "path": None, "error": None}
    finding = CHECK.judge(facts, {})
    assert finding.status is Status.WARN
    assert finding.fix is not None
    assert "one allocator variable" not in finding.fix.text
    assert finding.fix.commands == ("export PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync",)
