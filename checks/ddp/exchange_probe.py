"""The ``cluster.exchange`` probe: every rank of a launched job hands its facts to rank 0.

Run in the worker of ``torchdoctor cluster`` under the user's launcher. It uses the launcher's own
rendezvous (``env://``: torchrun's agent store, or rank 0's store under srun) and torch.distributed
collectives; nothing else carries data between nodes. Steps:

1. every rank announces itself in the store; rank 0 waits, within the deadline, for all of them and
   names those that never came (a node that is missing, hung, or runs something else); when rank 0
   itself never comes, the lowest rank that did reports instead;
2. the ranks that all came initialize a process group (gloo for objects, NCCL for GPU tensors where
   every rank can use it), verify an all_reduce, time one job-wide and one within each node;
3. a gather brings every rank's facts to rank 0 (as JSON bytes: ``gather_object`` needs numpy),
   which returns them all.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
import traceback
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from torchdoctor.checks.ddp import collective, nodes, rank_program
from torchdoctor.inputs import bounded

PREFIX = "torchdoctor/cluster"
_ARRIVED = "arrived/{rank}"
_DECISION = "decision"
LATE_S = 2.0  # how much later than the others rank 0 may arrive before they report without it


def _identity(environ: Mapping[str, str]) -> dict[str, Any]:
    def number(name: str) -> int | None:
        return bounded.whole_number(environ.get(name))

    return {
        "rank": int(environ["RANK"]),
        "world_size": int(environ["WORLD_SIZE"]),
        "local_rank": number("LOCAL_RANK") or 0,
        "local_world_size": number("LOCAL_WORLD_SIZE"),
        "group_rank": number("GROUP_RANK"),
        "hostname": socket.gethostname(),
        "boot_id": rank_program.boot_id(),
        "pid": os.getpid(),
    }


def _device(torch: Any, local_rank: int) -> tuple[Any, dict[str, Any] | None, str | None]:
    """Bind cuda:LOCAL_RANK when there are GPUs; returns (device, its facts, why NCCL cannot be used)."""
    import torch.distributed as dist

    if not torch.cuda.is_available():
        return None, None, "no CUDA device"
    count = torch.cuda.device_count()
    if local_rank >= count:
        return (
            None,
            {"index": local_rank, "device_count": count, "error": "invalid device ordinal"},
            (f"LOCAL_RANK={local_rank} but {count} CUDA device(s) visible"),
        )
    torch.cuda.set_device(local_rank)
    props = torch.cuda.get_device_properties(local_rank)
    raw = str(getattr(props, "uuid", "") or "")
    facts = {
        "index": local_rank,
        "uuid": raw if raw.startswith(("GPU-", "MIG-")) or not raw else f"GPU-{raw}",
        "name": props.name,
        "device_count": count,
        "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
    }
    why = None if dist.is_nccl_available() else "this torch has no NCCL"
    return torch.device("cuda", local_rank), facts, why


def probe(options: Mapping[str, Any]) -> dict[str, Any]:
    """This rank's part of the exchange; on the reporting rank, every rank's facts and the job's table.

    A failure of the exchange itself (the store unreachable, a collective that raised) is a fact for the
    judge of ``cluster.exchange``, which says what to look at.
    """
    try:
        facts = _exchange(options)
    except Exception as exc:
        return {
            "failed": {
                "type": type(exc).__name__,
                "message": str(exc)[:2000],
                "traceback": traceback.format_exc(limit=-8)[-3000:],
            }
        }
    if facts.get("ranks"):
        facts["table"] = nodes.table(facts["ranks"])
    return facts


def _exchange(options: Mapping[str, Any]) -> dict[str, Any]:
    import torch
    import torch.distributed as dist

    me = _identity(os.environ)
    rank, world = me["rank"], me["world_size"]
    wait_s = float(options.get("timeout") or 30.0)
    device, device_facts, no_nccl = _device(torch, me["local_rank"])
    run_id = os.environ.get("TORCHELASTIC_RUN_ID") or os.environ.get("SLURM_JOB_ID") or "job"
    attempt = os.environ.get("TORCHELASTIC_RESTART_COUNT") or os.environ.get("SLURM_STEP_ID") or "0"
    store = dist.PrefixStore(f"{PREFIX}/{run_id}/{attempt}/", _store(dist, rank, world, wait_s))
    arrival = {k: me[k] for k in ("hostname", "boot_id", "group_rank", "local_rank")} | {
        "nccl": no_nccl is None
    }
    store.set(_ARRIVED.format(rank=rank), json.dumps(arrival))
    # Rank 0 waits for everyone, the others for rank 0's decision; whoever decides first is followed.
    keys = [_ARRIVED.format(rank=r) for r in range(world)] if rank == 0 else [_DECISION]
    _wait(store, keys, wait_s if rank == 0 else wait_s + LATE_S)
    decision = _decide(store, world, wait_s)
    if decision["missing"]:
        result: dict[str, Any] = {"rank": rank, "complete": False, **decision}
        if rank == decision["reporter"]:
            result["ranks"] = [{**me, "summary": options.get("rank_summary"), "device": device_facts}]
        return result
    backend = decision["backend"]
    started = time.perf_counter()
    dist.init_process_group(
        backend="cpu:gloo,cuda:nccl" if backend == "nccl" else "gloo",
        store=dist.PrefixStore("pg/", store),
        rank=rank,
        world_size=world,
        timeout=timedelta(seconds=wait_s),
    )
    try:
        me["init_s"] = round(time.perf_counter() - started, 6)
        tensor_device = device if backend == "nccl" else None
        me["allreduce"] = collective.verified_all_reduce(torch, dist, tensor_device, rank + 1, world)
        nbytes = collective.NCCL_BUFFER_BYTES if backend == "nccl" else collective.GLOO_BUFFER_BYTES
        me["bandwidth"] = collective.timed_all_reduce(torch, dist, tensor_device, nbytes, world)
        me["node_bandwidth"] = _within_node(torch, dist, tensor_device, nbytes, rank, decision["nodes"])
        payload = {**me, "summary": options.get("rank_summary"), "device": device_facts, "backend": backend}
        gathered = _gather_json(torch, dist, payload, rank, world)
    finally:
        with contextlib.suppress(Exception):
            dist.destroy_process_group()
    if rank != 0:
        return {"rank": rank, "complete": True, "delivered": True, "reporter": 0, "backend": backend}
    return {"rank": 0, "complete": True, "reporter": 0, "backend": backend, "missing": [], "ranks": gathered}


def _store(dist: Any, rank: int, world: int, wait_s: float) -> Any:
    """The launcher's store: torchrun's agent store through env://, or else rank 0's own.

    Outside torchrun, env:// makes rank 0's TCPStore wait in its constructor until every rank has connected,
    and fail there without saying who is missing (torch/distributed/rendezvous.py, _create_c10d_store). Rank
    0 hosts the store itself without that wait instead (multi-tenant, as env:// makes it), so the arrival
    keys below name the ranks that never came.
    """
    timeout = timedelta(seconds=wait_s)
    if os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == str(True):
        store, _, _ = next(dist.rendezvous("env://", rank, world, timeout=timeout))
        return store
    return dist.TCPStore(
        os.environ["MASTER_ADDR"],
        int(os.environ["MASTER_PORT"]),
        world,
        rank == 0,
        timeout=timeout,
        wait_for_workers=False,
        multi_tenant=True,
    )


def _wait(store: Any, keys: list[str], wait_s: float) -> None:
    with contextlib.suppress(Exception):  # a timeout leaves _decide to name who is missing
        store.wait(keys, timedelta(seconds=wait_s))


def _decide(store: Any, world: int, wait_s: float) -> dict[str, Any]:
    """Who is here, who reports and which backend: the first rank to decide sets it for everyone."""
    if not store.check([_DECISION]):
        keys = [_ARRIVED.format(rank=r) for r in range(world)]
        present = {r: json.loads(store.get(k)) for r, k in enumerate(keys) if store.check([k])}
        by_node: dict[str, list[int]] = {}
        for r, info in sorted(present.items()):
            node = (
                info["group_rank"]
                if info.get("group_rank") is not None
                else info["boot_id"] or info["hostname"]
            )
            by_node.setdefault(str(node), []).append(r)
        proposal = {
            "missing": [r for r in range(world) if r not in present],
            "present": {str(r): info for r, info in present.items()},
            "reporter": min(present),
            "backend": "nccl" if all(info["nccl"] for info in present.values()) else "gloo",
            "nodes": list(by_node.values()),
            "waited_s": wait_s,
        }
        store.compare_set(_DECISION, "", json.dumps(proposal))
    decision: dict[str, Any] = json.loads(store.get(_DECISION))
    return decision


def _gather_json(torch: Any, dist: Any, payload: Any, rank: int, world: int) -> list[Any] | None:
    """gather of JSON documents to rank 0, as bytes in CPU tensors (gather_object needs numpy)."""
    data = json.dumps(payload).encode()
    sizes = [torch.zeros(1, dtype=torch.int64) for _ in range(world)]
    dist.all_gather(sizes, torch.tensor([len(data)], dtype=torch.int64))
    longest = max(int(size.item()) for size in sizes)
    mine = torch.zeros(longest, dtype=torch.uint8)
    mine[: len(data)] = torch.frombuffer(bytearray(data), dtype=torch.uint8)
    buffers = [torch.zeros(longest, dtype=torch.uint8) for _ in range(world)] if rank == 0 else None
    dist.gather(mine, buffers, dst=0)
    if buffers is None:
        return None
    return [json.loads(bytes(b[: int(n.item())].tolist())) for b, n in zip(buffers, sizes, strict=True)]


def _within_node(
    torch: Any, dist: Any, device: Any, nbytes: int, rank: int, nodes: list[list[int]]
) -> dict[str, Any] | None:
    """A timed all_reduce among the ranks of this rank's node (every rank creates every group)."""
    group, _ = dist.new_subgroups_by_enumeration(nodes)
    mine = next(node for node in nodes if rank in node)
    if len(mine) < 2:
        return None
    return collective.timed_all_reduce(torch, dist, device, nbytes, len(mine), group=group)
