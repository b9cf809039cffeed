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


def judge_device_ids(
    local_rank: int, device_ids: list[int], visible: int | None, site: Site, what: str
) -> Finding | None:
    """A finding when DistributedDataParallel was given ``device_ids`` that are not this rank's own GPU: DDP
    copies each batch to ``device_ids[0]`` before the forward pass, onto another rank's GPU."""
    if not device_ids or device_ids[0] == local_rank:
        return None
    if visible is not None and local_rank >= visible:
        return None
    given = ", ".join(str(index) for index in device_ids)
    return Finding(
        id="rank_device_ids",
        summary=f"LOCAL_RANK={local_rank} wrapped its model with device_ids=[{given}] at {site_text(site)}, "
        f"not its own GPU cuda:{local_rank}",
        site=site,
        evidence=[
            f"{what} at {site_text(site)} was given device_ids=[{given}]",
            f"DistributedDataParallel copies every batch to cuda:{device_ids[0]} before each forward pass, "
            f"so this rank's inputs land on another rank's GPU (a device mismatch where the model is on "
            f"cuda:{local_rank}, or ranks sharing one GPU where it is not)",
        ],
        fix=f"pass device_ids=[{local_rank}] (device_ids=[local_rank], local_rank = "
        "int(os.environ['LOCAL_RANK'])), and output_device=local_rank where it is given",
    )
