"""A rank of a distributed job that puts tensors on another rank's GPU (all ranks on cuda:0): judged from the
device a tensor landed on, the rank's LOCAL_RANK and how many GPUs the rank sees. No torch here."""

from __future__ import annotations

from torchdoctor.runtime.model import Finding, site_text
from torchdoctor.runtime.sites import Site


def judge(
    local_rank: int, device_type: str, index: int | None, visible: int | None, site: Site, what: str
) -> Finding | None:
    """A finding when ``what`` at ``site`` placed a tensor on ``cuda:index`` while this rank's own GPU,
    ``cuda:local_rank``, exists (``visible`` GPUs). A rank that sees fewer GPUs than its LOCAL_RANK runs with
    one GPU of its own (CUDA_VISIBLE_DEVICES set per rank, as SLURM does): its cuda:0 is right."""
    if device_type != "cuda" or index is None or index == local_rank:
        return None
    if visible is not None and local_rank >= visible:
        return None
    return Finding(
        id="rank_device",
        summary=f"LOCAL_RANK={local_rank} put a tensor on cuda:{index} at {site_text(site)}, not on its own "
        f"GPU cuda:{local_rank}",
        site=site,
        evidence=[
            f"{what} at {site_text(site)} returned a tensor on cuda:{index}",
            f"every rank that does this shares GPU {index}: its memory, its speed, and NCCL fails or hangs "
            "when two ranks of one communicator use one GPU",
        ],
        fix=f"call torch.cuda.set_device({local_rank}) (int(os.environ['LOCAL_RANK'])) before any CUDA work, "
        "and use torch.device('cuda', local_rank): 'cuda' alone means the current device, cuda:0 until "
        "set_device is called",
    )
