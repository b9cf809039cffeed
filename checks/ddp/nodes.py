"""Which node a rank of a launched job is on, and the job's table of ranks, from what the ranks report.

A node is a torchrun node group (GROUP_RANK) or, without one, a machine (boot id, hostname). Pure.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from torchdoctor.checks.ddp import binding


def node_key(rank: Mapping[str, Any]) -> str:
    if rank.get("group_rank") is not None:
        return f"node {rank['group_rank']}"
    return f"host {binding.host_key(rank)}"


def node_label(ranks: Sequence[Mapping[str, Any]]) -> str:
    hosts = sorted({str(r.get("hostname")) for r in ranks})
    return f"{node_key(ranks[0])} ({', '.join(hosts)})"


def by_node(ranks: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    nodes: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for rank in sorted(ranks, key=lambda r: int(r["rank"])):
        nodes[node_key(rank)].append(rank)
    return dict(nodes)


def versions(rank: Mapping[str, Any]) -> dict[str, Any]:
    """What a rank runs: torch, the CUDA torch was built for, NCCL, the driver, Python."""
    summary = rank.get("summary") or {}
    torch = summary.get("torch") or {}
    return {
        "torch": torch.get("version"),
        "cuda": torch.get("cuda"),
        "nccl": torch.get("nccl"),
        "driver": summary.get("driver_version"),
        "python": summary.get("python"),
    }


def rank_row(rank: Mapping[str, Any]) -> dict[str, Any]:
    """One rank as ``torchdoctor cluster`` lists it: node, GPU, versions, bandwidth, local verdicts."""
    device = rank.get("device") or {}
    version = versions(rank)
    summary = rank.get("summary") or {}
    return {
        "node": node_key(rank),
        "hostname": rank.get("hostname"),
        "rank": rank.get("rank"),
        "local_rank": rank.get("local_rank"),
        "gpu": None
        if not device.get("uuid")
        else {"index": device.get("index"), "name": device.get("name"), "uuid": device.get("uuid")},
        "driver": version["driver"],
        "cuda": version["cuda"],
        "torch": version["torch"],
        "nccl": version["nccl"],
        "python": version["python"],
        "busbw_gbps": (rank.get("bandwidth") or {}).get("busbw_gbps"),
        "node_busbw_gbps": (rank.get("node_bandwidth") or {}).get("busbw_gbps"),
        "local_verdicts": {v["id"]: v["status"] for v in summary.get("verdicts") or []},
    }


def table(ranks: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The nodes and the per-rank rows of a gathered exchange, for the ``cluster`` section of the report."""
    nodes = by_node(ranks)
    return {
        "nodes": [
            {"node": node_label(members), "ranks": [int(m["rank"]) for m in members]}
            for members in nodes.values()
        ],
        "ranks": [rank_row(r) for r in sorted(ranks, key=lambda r: int(r["rank"]))],
    }
