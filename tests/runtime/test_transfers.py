"""Copies judged from counts: non_blocking from pageable memory and thousands of tiny copies (the pinned or
pageable state is injected; a GPU run checks it for real in bench/gpu_smoke.sh)."""

from __future__ import annotations

import pytest

from torchdoctor.runtime import transfers
from torchdoctor.runtime.model import TransferSite
from torchdoctor.runtime.sites import Site

SITE = Site("/work/train.py", 41, "train")


def copies(direction: str, n: int, nbytes: int, pinned: bool | None, non_blocking: bool) -> TransferSite:
    entry = TransferSite(site=SITE, direction=direction)
    for _ in range(n):
        transfers.add(entry, nbytes, pinned, non_blocking)
    return entry


@pytest.mark.parametrize(
    ("before", "after", "direction"),
    [
        ("cpu", "cuda", transfers.HOST_TO_DEVICE),
        ("cuda", "cpu", transfers.DEVICE_TO_HOST),
        ("cpu", "mps", transfers.HOST_TO_DEVICE),
        ("cuda", "cuda", None),
        ("cpu", "cpu", None),
        ("cpu", "meta", None),
        ("meta", "cuda", None),
    ],
)
def test_only_host_device_moves_are_copies(before: str, after: str, direction: str | None) -> None:
    assert transfers.direction(before, after) == direction


def test_non_blocking_from_pageable_memory_is_named() -> None:
    (finding,) = transfers.judge(copies(transfers.HOST_TO_DEVICE, 8, 2**20, False, True))
    assert finding.id == "non_blocking_pageable" and finding.site == SITE
    assert "8 of 8 copies" in finding.summary and "pin_memory=True" in str(finding.fix)


@pytest.mark.parametrize(
    ("pinned", "non_blocking", "direction"),
    [
        (True, True, transfers.HOST_TO_DEVICE),  # the right way
        (False, False, transfers.HOST_TO_DEVICE),  # a plain blocking copy
        (None, True, transfers.HOST_TO_DEVICE),  # memory not known: nothing said
        (None, True, transfers.DEVICE_TO_HOST),
    ],
)
def test_other_copies_of_large_tensors_are_fine(
    pinned: bool | None, non_blocking: bool, direction: str
) -> None:
    entry = copies(direction, 8, 2**20, pinned, non_blocking)
    assert transfers.judge(entry) == []
    assert (entry.pinned, entry.pageable) == ((8, 0) if pinned else (0, 8) if pinned is False else (0, 0))


def test_thousands_of_tiny_copies_are_named_and_a_few_are_not() -> None:
    (finding,) = transfers.judge(copies(transfers.HOST_TO_DEVICE, transfers.MANY_COPIES, 4, True, False))
    assert finding.id == "tiny_copies" and "1000 copies" in finding.summary
    assert transfers.judge(copies(transfers.HOST_TO_DEVICE, transfers.MANY_COPIES - 1, 4, True, False)) == []
    large = transfers.TINY_COPY_BYTES + 1
    assert transfers.judge(copies(transfers.DEVICE_TO_HOST, transfers.MANY_COPIES, large, None, False)) == []


def test_only_accelerators_synchronise() -> None:
    assert transfers.synchronises("cuda") and transfers.synchronises("mps")
    assert not transfers.synchronises("cpu") and not transfers.synchronises("meta")
