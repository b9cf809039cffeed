"""A rank that places a tensor on another rank's GPU, judged from LOCAL_RANK and the GPUs it sees."""

from __future__ import annotations

import pytest

from torchdoctor.runtime import ranks
from torchdoctor.runtime.sites import Site

SITE = Site("/work/train.py", 12, "main")


@pytest.mark.parametrize(
    ("local_rank", "device", "index", "visible", "named"),
    [
        (1, "cuda", 0, 8, True),  # all ranks on cuda:0
        (3, "cuda", 2, None, True),  # GPU count not known: the index alone says it
        (0, "cuda", 0, 8, False),
        (1, "cuda", 1, 8, False),
        (1, "cuda", 0, 1, False),  # one GPU per rank (CUDA_VISIBLE_DEVICES set per rank)
        (1, "cpu", None, 8, False),
        (1, "meta", None, 8, False),
    ],
)
def test_a_rank_on_another_ranks_gpu(
    local_rank: int, device: str, index: int | None, visible: int | None, named: bool
) -> None:
    finding = ranks.judge(local_rank, device, index, visible, SITE, "model.cuda()")
    assert (finding is not None) == named
    if finding is not None:
        assert finding.site == SITE and f"cuda:{index}" in finding.summary
        assert f"torch.cuda.set_device({local_rank})" in str(finding.fix)


@pytest.mark.parametrize(
    ("local_rank", "device_ids", "visible", "named"),
    [
        (1, [0], 8, True),  # device_ids=[0] on every rank
        (2, [1, 2], None, True),  # the first id is where DDP puts the batch
        (1, [1], 8, False),
        (0, [0], 8, False),
        (1, [0], 1, False),  # one GPU per rank: its cuda:0 is its own
        (1, [], 8, False),
    ],
)
def test_device_ids_that_are_not_the_ranks_own_gpu(
    local_rank: int, device_ids: list[int], visible: int | None, named: bool
) -> None:
    finding = ranks.judge_device_ids(local_rank, device_ids, visible, SITE, "DistributedDataParallel(...)")
    assert (finding is not None) == named
    if finding is not None:
        assert finding.id == "rank_device_ids"
        assert f"device_ids=[{local_rank}]" in str(finding.fix)
        assert f"cuda:{device_ids[0]} before each forward pass" in finding.evidence[1]
