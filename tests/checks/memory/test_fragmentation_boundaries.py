"""gpu.fragmentation at the edges of its rules: each threshold on both sides, a pasted memory summary's
totals, the counters' wording, and facts read back from a saved report (JSON, whose strings are not the
judge's own literals).

The thresholds are torchdoctor's own heuristics (docs/checks/memory.md, "Thresholds, per large pool"): torch
has no notion of "fragmented"; it only fails a request no free block can serve. Where a rule rests on torch's
allocator, the comment names the source (c10/cuda/CUDACachingAllocator.cpp)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from torchdoctor.checks.memory import fragmentation_judge
from torchdoctor.checks.memory.fragmentation_check import CHECK
from torchdoctor.model import Finding, Status

MIB = 2**20
GIB = 2**30
NO_DRIVER = {"available": False, "error": "LibraryNotFound", "gpus": []}
SPLIT_FLOOR = (
    256 * MIB
)  # MIN_SPLIT_BYTES: less free memory inside used segments than this is no problem worth a warning


def pool(
    reserved: int,
    split: int,
    external: float,
    *,
    name: str = "large",
    largest: int = 64 * MIB,
    free: int | None = None,
) -> dict[str, Any]:
    return {
        "pool": name,
        "reserved_bytes": reserved,
        "allocated_bytes": reserved - (free if free is not None else split),
        "inactive_split_bytes": split,
        "external_fragmentation": external,
        "largest_free_block_bytes": largest,
        "free_bytes": free if free is not None else split,
        "free_blocks": 12,
        "segments": 40,
    }


def device(
    pools: list[dict[str, Any]],
    *,
    index: int = 0,
    ooms: list[dict[str, Any]] | None = None,
    counters: dict[str, int] | None = None,
    **figures: Any,
) -> dict[str, Any]:
    large = pools[0] if pools else {}
    entry: dict[str, Any] = {
        "device": index,
        "reserved_bytes": sum(p["reserved_bytes"] for p in pools),
        "allocated_bytes": sum(p["allocated_bytes"] for p in pools),
        "free_bytes": sum(p["free_bytes"] for p in pools),
        "inactive_split_bytes": sum(p["inactive_split_bytes"] for p in pools),
        "largest_free_block_bytes": large.get("largest_free_block_bytes", 0),
        "pools": pools,
        "ooms": ooms or [],
    }
    if counters is not None:
        entry["counters"] = counters
    entry.update(figures)
    return entry


def saved(facts: dict[str, Any]) -> dict[str, Any]:
    """The facts as a saved report gives them back: through JSON, so no string is the judge's own literal."""
    loaded: dict[str, Any] = json.loads(json.dumps(facts))
    return loaded


def snapshot_verdict(devices: list[dict[str, Any]], **allocator: Any) -> Finding:
    facts = {
        "env": {"variables": {}},
        "nvml": NO_DRIVER,
        "allocator": {
            "source": "snapshot_file",
            "path": "job.pickle",
            "error": None,
            "devices": devices,
            "segments": 40,
            "allocator_settings": {"expandable_segments": False, "PYTORCH_CUDA_ALLOC_CONF": None},
            **allocator,
        },
    }
    return CHECK.judge(saved(facts), {})


def one_pool(reserved: int, split: int, external: float) -> Finding:
    return snapshot_verdict([device([pool(reserved, split, external)])])


def text(finding: Finding) -> str:
    return "\n".join([finding.summary, *map(str, finding.details)])


# -- a large pool's split share and external fragmentation: warn at 25 % and 50 %, fail at 50 % and 75 % --


@pytest.mark.parametrize(
    ("split_share", "external", "status"),
    [
        (0.25, 0.60, Status.WARN),  # the split share at the warn threshold
        (0.30, 0.50, Status.WARN),  # external fragmentation at the warn threshold
        (0.125, 0.90, Status.PASS),  # under the warn share, however scattered the rest
        (0.30, 0.4375, Status.PASS),  # a split share that warns, with the free memory mostly in one block
        (0.50, 0.80, Status.FAIL),  # the split share at the fail threshold
        (0.625, 0.75, Status.FAIL),  # external fragmentation at the fail threshold
        (0.625, 0.625, Status.WARN),  # a fail share, a warn-only external fragmentation
        (0.4375, 0.875, Status.WARN),  # a fail external fragmentation, a warn-only share
    ],
)
def test_each_pool_threshold_counts_at_its_value(split_share: float, external: float, status: Status) -> None:
    reserved = 8 * GIB
    verdict = one_pool(reserved, int(reserved * split_share), external)

    assert verdict.status is status
    if status is not Status.PASS:
        assert verdict.summary.startswith(
            f"cuda:0 large pool is fragmented: {int(split_share * 8 * 1024) / 1024:.1f} GiB"
        )
        assert "thresholds: warn at 25 % split and 50 % external fragmentation, fail at 50 % and 75 %" in (
            verdict.details
        )


def test_split_free_memory_counts_from_256_mib() -> None:
    # A 512 MiB pool, all of it split and scattered: judged from 256 MiB of split free memory, not below.
    at_floor = one_pool(512 * MIB, SPLIT_FLOOR, 0.9)
    under = one_pool(512 * MIB, SPLIT_FLOOR - 1, 0.9)

    assert at_floor.status is Status.FAIL
    assert at_floor.summary.startswith(
        "cuda:0 large pool is fragmented: 256.0 MiB (50 % of 512.0 MiB reserved)"
    )
    assert under.status is Status.PASS


def test_a_pool_with_nothing_reserved_is_not_judged() -> None:
    # Split bytes with no reserve (facts no snapshot gives, but a saved report may hold): no ratio to take.
    verdict = one_pool(0, GIB, 0.9)

    assert verdict.status is Status.PASS


def test_only_the_large_pools_are_judged_whichever_comes_first() -> None:
    # Blocks under 1 MiB live in 2 MiB segments (kSmallBuffer, c10/cuda/CUDACachingAllocator.cpp), whose
    # free space never serves a large request: a scattered small pool is no finding, nor hides the large one.
    small = pool(8 * GIB, 6 * GIB, 0.95, name="small")
    large = pool(8 * GIB, 3 * GIB, 0.6)

    verdict = snapshot_verdict([device([small, large])])

    assert verdict.status is Status.WARN
    assert verdict.summary.startswith("cuda:0 large pool is fragmented: 3.0 GiB (38 % of 8.0 GiB reserved)")


# -- an out-of-memory error in the snapshot's history ----------------------------------------------------


def oom_verdict(size: int, free: int, largest: int | None, count: int = 1) -> Finding:
    ooms = [{"action": "oom", "size": size, "device_free": 0}] * count
    figures: dict[str, Any] = {"free_bytes": free, "largest_free_block_bytes": largest}
    return snapshot_verdict(
        [device([pool(2 * GIB, 0, 0.0, free=free, largest=largest or 0)], ooms=ooms, **figures)]
    )


def test_an_oom_the_free_cache_could_serve_only_in_one_piece_is_fragmentation() -> None:
    # torch serves a request from the smallest free block at least its size (get_free_block: a lower_bound on
    # the pool's blocks, c10/cuda/CUDACachingAllocator.cpp): free bytes equal to the request, in pieces all
    # smaller than it, are fragmentation.
    verdict = oom_verdict(size=100 * MIB, free=100 * MIB, largest=99 * MIB)

    assert verdict.status is Status.FAIL
    assert verdict.summary == (
        "cuda:0 ran out of memory asking for 100.0 MiB while 100.0 MiB sat free in the allocator's segments, "
        "none of it in a block that large: fragmentation"
    )
    assert "1 out-of-memory error in the snapshot's history; largest free block 99.0 MiB" in text(verdict)


def test_an_oom_as_large_as_the_largest_free_block_is_not_fragmentation() -> None:
    # The same rule: a free block of exactly the requested size serves it, so the cache was not what failed.
    for largest in (100 * MIB, 150 * MIB):
        verdict = oom_verdict(size=100 * MIB, free=300 * MIB, largest=largest)

        assert verdict.status is Status.WARN
        assert verdict.summary == (
            "cuda:0 ran out of memory asking for 100.0 MiB: the cache held only 300.0 MiB free, so the GPU "
            "was full rather than fragmented"
        )


def test_an_oom_larger_than_the_free_cache_is_exhaustion() -> None:
    verdict = oom_verdict(size=100 * MIB, free=100 * MIB - 1, largest=10 * MIB, count=2)

    assert verdict.status is Status.WARN
    assert "2 out-of-memory errors in the snapshot's history" in text(verdict)


def test_missing_free_figures_count_as_none() -> None:
    # A device whose free figures are not recorded: no free cache, no free block.
    exhausted = snapshot_verdict(
        [device([], ooms=[{"action": "oom", "size": 1, "device_free": 0}], free_bytes=None)]
    )
    fragmented = oom_verdict(size=1, free=MIB, largest=None)

    assert exhausted.status is Status.WARN
    assert "the cache held only 0 B free" in exhausted.summary
    assert fragmented.status is Status.FAIL
    assert "largest free block 0 B" in text(fragmented)


# -- the counters of torch.cuda.memory_stats() inside the job ----------------------------------------------


def counted(counters: dict[str, int]) -> Finding:
    return snapshot_verdict([device([pool(GIB, 0, 0.0)], counters=counters)], source="in_process")


@pytest.mark.parametrize(("retries", "words"), [(1, "1 cudaMalloc retry:"), (2, "2 cudaMalloc retries:")])
def test_retries_are_counted_in_words(retries: int, words: str) -> None:
    verdict = counted({"num_alloc_retries": retries, "num_ooms": 0})

    assert verdict.status is Status.WARN
    assert verdict.summary.startswith(f"cuda:0: {words} each one flushed the allocator's cache")


@pytest.mark.parametrize(
    ("ooms", "words"), [(1, "1 out-of-memory error in"), (2, "2 out-of-memory errors in")]
)
def test_ooms_are_counted_in_words(ooms: int, words: str) -> None:
    verdict = counted({"num_alloc_retries": 0, "num_ooms": ooms})

    assert verdict.status is Status.WARN  # no fragmented pool beside them
    assert verdict.summary == f"cuda:0: {words} this process"


# -- a pasted torch.cuda.memory_summary(): totals only ------------------------------------------------------


def summary_device(
    reserved: int | None,
    allocated: int | None,
    *,
    split: int | None = None,
    counters: dict[str, int] | None = None,
    index: int = 0,
) -> dict[str, Any]:
    """A device as torchdoctor.inputs.memory_summary reads it from a pasted table."""
    return {
        "device": index,
        "reserved_bytes": reserved,
        "allocated_bytes": allocated,
        "free_bytes": None if reserved is None or allocated is None else max(reserved - allocated, 0),
        "inactive_split_bytes": split,
        "largest_free_block_bytes": None,
        "pools": [],
        "ooms": [],
        "counters": counters if counters is not None else {"num_ooms": 0, "num_alloc_retries": 0},
    }


def summary_verdict(*devices: dict[str, Any]) -> Finding:
    facts = {
        "env": {"variables": {}, "variables_known": False},
        "nvml": {"available": None, "error": None, "gpus": [], "shown": False},
        "allocator": {
            "source": "memory_summary",
            "path": None,
            "error": None,
            "devices": list(devices),
            "segments": None,
            "allocator_settings": None,
        },
    }
    return CHECK.judge(saved(facts), {})


def test_a_summary_with_an_oom_and_half_its_reserve_unused_fails_with_its_figures() -> None:
    # pytorch/pytorch#35901's figures, a fraction of a MiB added to each: torch prints MiB rounded ("MB").
    reserved, allocated = 12420 * MIB + 700 * 1024, 1062 * MIB + 300 * 1024
    verdict = summary_verdict(
        summary_device(reserved, allocated, split=300 * MIB, counters={"num_ooms": 1, "num_alloc_retries": 0})
    )

    assert verdict.status is Status.FAIL
    assert verdict.summary == (
        "cuda:0 ran out of memory with 12421 MB reserved against 1062 MB allocated: 11358 MB sits in the "
        "allocator's segments unused: the memory was reserved but cut up, not used (fragmentation)"
    )
    assert "300 MB of it non-releasable (free inside segments also in use)" in verdict.details
    assert "CUDA OOMs: 1, cudaMalloc retries: 0 (from the summary's counters)" in verdict.details
    assert (
        "the summary does not record its job's allocator settings (this machine's variables are not the "
        "job's)" in verdict.details
    )
    assert "from a pasted torch.cuda.memory_summary() table" in verdict.details
    assert verdict.fix is not None and "unless it already sets it" in verdict.fix.text


@pytest.mark.parametrize(
    ("reserved", "allocated", "status"),
    [
        (2 * GIB, GIB, Status.WARN),  # half the reserve unused: the gap threshold
        (2 * GIB, GIB + 1, Status.PASS),  # a byte less than half
        (512 * MIB, 256 * MIB, Status.WARN),  # 256 MiB unused: the floor, at half
        (400 * MIB, 144 * MIB + 1, Status.PASS),  # a byte under the floor, more than half
        (GIB, 2 * GIB, Status.PASS),  # more allocated than reserved (a summary cut mid-row): no gap
    ],
)
def test_a_summary_gap_counts_from_half_the_reserve_and_256_mib(
    reserved: int, allocated: int, status: Status
) -> None:
    verdict = summary_verdict(
        summary_device(reserved, allocated, counters={"num_ooms": 0, "num_alloc_retries": 3})
    )

    assert verdict.status is status
    if status is Status.WARN:
        gap = (reserved - allocated) // MIB
        assert verdict.summary.startswith(
            f"cuda:0: {reserved // MIB} MB reserved against {allocated // MIB} MB"
        )
        assert f"{gap} MB sits in the allocator's segments unused" in verdict.summary


@pytest.mark.parametrize(
    ("split", "counters", "status"),
    [
        (SPLIT_FLOOR, {"num_ooms": 0, "num_alloc_retries": 0}, Status.WARN),  # non-releasable at the floor
        (SPLIT_FLOOR - 1, {"num_ooms": 0, "num_alloc_retries": 0}, Status.PASS),
        (2 * SPLIT_FLOOR, {"num_ooms": 0, "num_alloc_retries": 0}, Status.WARN),
        (None, {"num_ooms": 0, "num_alloc_retries": 0}, Status.PASS),  # the row was cut: unknown, no finding
        (None, {"num_ooms": 0, "num_alloc_retries": 1}, Status.WARN),  # one retry is enough
        (None, {}, Status.PASS),  # counters the table did not show count as none
        (None, {"num_ooms": 2}, Status.FAIL),
    ],
)
def test_a_summary_gap_warns_on_a_retry_or_split_memory_and_fails_on_an_oom(
    split: int | None, counters: dict[str, int], status: Status
) -> None:
    verdict = summary_verdict(summary_device(4 * GIB, GIB, split=split, counters=counters))

    assert verdict.status is status
    if status is Status.PASS:
        assert verdict.summary == "cuda:0: 4096 MB reserved, 1024 MB allocated"
    else:
        assert f"CUDA OOMs: {counters.get('num_ooms', 0)}, cudaMalloc retries: " in text(verdict)


def test_a_summary_without_its_totals_is_not_judged_and_says_what_it_lacks() -> None:
    no_reserve = summary_verdict(summary_device(None, GIB))
    no_allocation = summary_verdict(summary_device(4 * GIB, None))
    nothing_reserved = summary_verdict(summary_device(0, 0))

    assert no_reserve.status is no_allocation.status is nothing_reserved.status is Status.PASS
    assert no_reserve.summary == "cuda:0: reserved unknown, 1024 MB allocated"
    assert no_allocation.summary == "cuda:0: 4096 MB reserved, allocated unknown"
    assert nothing_reserved.summary == "cuda:0: 0 MB reserved, 0 MB allocated"


def test_every_device_of_a_summary_is_listed() -> None:
    verdict = summary_verdict(summary_device(4 * GIB, 3 * GIB), summary_device(2 * GIB, GIB, index=1))

    assert (
        verdict.summary
        == "cuda:0: 4096 MB reserved, 3072 MB allocated; cuda:1: 2048 MB reserved, 1024 MB allocated"
    )


# -- what a passing verdict says, and what it keeps ----------------------------------------------------------


def test_a_pass_names_four_devices_and_counts_the_rest() -> None:
    def devices(n: int) -> list[dict[str, Any]]:
        return [device([pool(GIB, 0, 0.0, free=GIB // 2, largest=GIB // 4)], index=i) for i in range(n)]

    four, five, nine = (
        snapshot_verdict(devices(4)),
        snapshot_verdict(devices(5)),
        snapshot_verdict(devices(9)),
    )

    assert four.status is five.status is nine.status is Status.PASS
    assert four.summary.count("cuda:") == 4 and "more device" not in four.summary
    assert five.summary.count("cuda:") == 4 and five.summary.endswith("; 1 more device(s)")
    assert nine.summary.count("cuda:") == 4 and nine.summary.endswith("; 5 more device(s)")
    assert five.summary.startswith(
        "cuda:0: 512.0 MiB of 1.0 GiB reserved is free, the largest block 256.0 MiB (fragmentation 50 %)"
    )


def test_a_pass_without_free_figures_says_no_free_blocks() -> None:
    empty = snapshot_verdict([device([], free_bytes=None, largest_free_block_bytes=0, reserved_bytes=GIB)])
    unknown_largest = snapshot_verdict(
        [device([], free_bytes=GIB, largest_free_block_bytes=0, reserved_bytes=GIB)]
    )

    assert empty.summary == "cuda:0: 1.0 GiB reserved, no free blocks"
    assert unknown_largest.summary.startswith(
        "cuda:0: 1.0 GiB of 1.0 GiB reserved is free, the largest block 0 B"
    )


def test_the_verdict_keeps_each_devices_pools_and_ooms_and_names_the_snapshot() -> None:
    oom = {"action": "oom", "size": 3 * GIB, "device_free": 0}
    verdict = snapshot_verdict([device([pool(2 * GIB, 0, 0.0)], ooms=[oom])], segments=7)

    (shown,) = verdict.facts["devices"]
    assert [p["pool"] for p in shown["pools"]] == ["large"]
    assert shown["ooms"] == [oom]
    assert "from the snapshot job.pickle (7 segments)" in verdict.details


def test_a_snapshot_that_does_not_count_its_segments_says_0() -> None:
    facts = {
        "env": {"variables": {}},
        "nvml": NO_DRIVER,
        "allocator": {
            "source": "snapshot_file",
            "path": "job.pickle",
            "devices": [device([pool(GIB, 0, 0.0)])],
            "allocator_settings": None,
        },
    }
    verdict = CHECK.judge(saved(facts), {})

    assert "from the snapshot job.pickle (0 segments)" in verdict.details
    assert "the snapshot does not record its job's allocator settings" in text(verdict)


def test_a_snapshot_without_segments_is_a_skip_that_says_why() -> None:
    verdict = snapshot_verdict([])

    assert verdict.status is Status.SKIP
    assert verdict.summary.startswith(
        "no allocator variable set; the snapshot holds no segments (nothing was allocated, or "
        "backend:cudaMallocAsync"
    )


def test_a_problem_with_the_snapshot_lists_no_pass_line() -> None:
    verdict = one_pool(8 * GIB, 3 * GIB, 0.6)

    assert verdict.status is Status.WARN
    assert not any(str(d).startswith(("pass: ", "skip: ")) for d in verdict.details)


# -- the allocator variable's own issues ------------------------------------------------------------


def test_a_value_torch_misreads_but_accepts_warns_without_saying_torch_raises() -> None:
    facts = {"env": {"variables": {"PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:512x"}}, "nvml": NO_DRIVER}
    facts["allocator"] = {"source": None, "devices": []}

    verdict = CHECK.judge(saved(facts), {})

    assert verdict.status is Status.WARN
    assert verdict.summary == "max_split_size_mb:512x is read as 512: the text after the number is ignored"
    assert verdict.fix is not None
    assert verdict.fix.text.startswith(
        "Correct max_split_size_mb in PYTORCH_CUDA_ALLOC_CONF; the options are"
    )
    assert verdict.fix.commands == ()


def test_the_fix_keeps_only_the_jobs_options_that_have_a_value() -> None:
    settings = {"expandable_segments": False, "PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:512,garbage:,:7"}
    verdict = snapshot_verdict([device([pool(8 * GIB, 3 * GIB, 0.6)])], allocator_settings=settings)

    assert verdict.fix is not None
    assert verdict.fix.commands == (
        "export PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:512,expandable_segments:True",
    )


def test_fragmentation_fix_for_a_job_with_expandable_segments_on_has_no_command() -> None:
    setting = fragmentation_judge.AllocatorSetting(True, "PYTORCH_CUDA_ALLOC_CONF", {}, "")

    fix = fragmentation_judge.fragmentation_fix(setting)

    assert fix.commands == ()
    assert fix.text.startswith("Expandable segments are already on")
