"""Which GPU each rank landed on, judged: two ranks on one GPU, a rank off its LOCAL_RANK.

Shared by the dry run and ``torchdoctor cluster``; both describe a rank as a mapping with ``rank``,
``local_rank``, ``hostname``, ``boot_id``, and ``device`` (``index``, ``uuid``, ``name``,
``cuda_visible_devices``; None on CPU).

torchrun's ``--virtual-local-rank`` mode gives every worker LOCAL_RANK=0 and a one-GPU
CUDA_VISIBLE_DEVICES (torch 2.13, ``LocalElasticAgent._set_local_rank_env``), so every rank is on
cuda:0 by design: that is only a problem when the UUIDs say the GPU is the same.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from torchdoctor.model import Finding, Fix, Status
from torchdoctor.output.wording import ranks_text

BIND_FIX = Fix(
    "Bind each rank to its own GPU before any CUDA work: "
    "torch.cuda.set_device(int(os.environ['LOCAL_RANK'])) and DistributedDataParallel(model, "
    "device_ids=[local_rank]); do not give every rank the same CUDA_VISIBLE_DEVICES, and start at "
    "most one rank per GPU.",
    ("nvidia-smi -L",),
)


def host_key(rank: Mapping[str, Any]) -> str:
    """Ranks with the same boot id run on one machine even where hostnames repeat (containers)."""
    return str(rank.get("boot_id") or rank.get("hostname") or "?")


def virtual_local_rank_hosts(ranks: Sequence[Mapping[str, Any]]) -> set[str]:
    """Hosts whose ranks all have LOCAL_RANK 0 and a one-entry CUDA_VISIBLE_DEVICES each."""
    by_host: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for rank in ranks:
        by_host[host_key(rank)].append(rank)
    virtual = set()
    for host, members in by_host.items():
        devices = [m.get("device") or {} for m in members]
        if len(members) > 1 and all(
            m.get("local_rank") == 0 and d.get("index") == 0 and _single_entry(d.get("cuda_visible_devices"))
            for m, d in zip(members, devices, strict=True)
        ):
            virtual.add(host)
    return virtual


def _single_entry(value: Any) -> bool:
    return isinstance(value, str) and value.strip() != "" and "," not in value


def _device_label(rank: Mapping[str, Any]) -> str:
    device = rank.get("device") or {}
    return f"cuda:{device.get('index')}"


def findings(ranks: Sequence[Mapping[str, Any]], backend: str | None) -> list[Finding]:
    """Shared GPUs (fail under NCCL, which refuses them; warn otherwise) and off-LOCAL_RANK bindings."""
    bound = [r for r in ranks if (r.get("device") or {}).get("uuid")]
    virtual = virtual_local_rank_hosts(bound)
    by_uuid: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for rank in bound:
        by_uuid[str(rank["device"]["uuid"])].append(rank)
    result: list[Finding] = []
    shared_ranks: set[int] = set()
    for uuid, sharing in by_uuid.items():
        if len(sharing) < 2:
            continue
        numbers = [int(r["rank"]) for r in sharing]
        shared_ranks.update(numbers)
        indices = sorted({_device_label(r) for r in sharing})
        where = indices[0] if len(indices) == 1 else ", ".join(indices)
        everyone = len(sharing) == len(bound) and len(bound) == len(ranks)
        who = f"all {len(sharing)} ranks" if everyone else ranks_text(numbers)
        consequence = (
            "NCCL refuses this ('Duplicate GPU detected')"
            if backend == "nccl"
            else "under NCCL this fails with 'Duplicate GPU detected'; here they share its memory and compute"
        )
        details = [
            f"rank {r['rank']} (LOCAL_RANK={r.get('local_rank')}) on {_device_label(r)} = {uuid}"
            + (f" on {r.get('hostname')}" if r.get("hostname") else "")
            for r in sorted(sharing, key=lambda r: int(r["rank"]))
        ]
        if any(host_key(r) in virtual for r in sharing):
            details.append(
                "torchrun --virtual-local-rank mode: each rank's CUDA_VISIBLE_DEVICES names the same GPU"
            )
        result.append(
            Finding(
                Status.FAIL if backend == "nccl" else Status.WARN,
                f"{who} are on the same GPU ({where}, {uuid}): {consequence}",
                tuple(details),
                BIND_FIX,
            )
        )
    off = [
        r
        for r in bound
        if int(r["rank"]) not in shared_ranks
        and host_key(r) not in virtual
        and r["device"].get("index") != r.get("local_rank")
    ]
    if off:
        result.append(
            Finding(
                Status.WARN,
                f"{ranks_text([int(r['rank']) for r in off])} bound a GPU other than cuda:LOCAL_RANK",
                tuple(
                    f"rank {r['rank']}: LOCAL_RANK={r.get('local_rank')} but {_device_label(r)}" for r in off
                ),
                BIND_FIX,
            )
        )
    return result


def mode(ranks: Sequence[Mapping[str, Any]]) -> str | None:
    """``virtual_local_rank`` when a host runs in that mode, ``local_rank`` otherwise, None without GPUs."""
    bound = [r for r in ranks if (r.get("device") or {}).get("uuid")]
    if not bound:
        return None
    return "virtual_local_rank" if virtual_local_rank_hosts(bound) else "local_rank"
