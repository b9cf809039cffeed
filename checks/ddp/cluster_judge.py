"""Judges of ``torchdoctor cluster``: the facts every rank handed to rank 0, read across nodes.

Pure functions of the gathered facts. A node is a torchrun node group (GROUP_RANK) or, without one,
a machine (boot id, hostname). Rules:

- ``cluster.exchange``: every rank reached the exchange within the deadline, else which did not;
- ``cluster.versions``: one torch, CUDA, NCCL and driver version on every node (``fail`` otherwise);
  another Python is a ``warn``;
- ``cluster.gpus``: every node has as many GPUs as the best one, at least one per local rank, and no
  two ranks share a GPU (torchrun's --virtual-local-rank understood);
- ``cluster.collective``: the all_reduce gave n(n+1)/2 on every rank; busbw job-wide and within each
  node, a node below half the best node's busbw is a ``warn``;
- every local check: the worst verdict of any rank, with where it happened.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from torchdoctor.checks.ddp import binding, collective
from torchdoctor.checks.ddp.cluster_check import EXCHANGE_PROBE
from torchdoctor.checks.ddp.nodes import by_node, node_label, versions
from torchdoctor.model import Detail, Finding, Fix, Status
from torchdoctor.output.wording import ranks_text

SLOW_NODE_SHARE = 0.5
SKEW_FIELDS = (
    ("torch", "torch"),
    ("torch CUDA", "cuda"),
    ("NCCL", "nccl"),
    ("driver", "driver"),
)


def _gathered(facts: Mapping[str, Any]) -> Mapping[str, Any]:
    exchange = facts.get(EXCHANGE_PROBE.name)
    return exchange if isinstance(exchange, Mapping) else {}


def _ranks(facts: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [r for r in _gathered(facts).get("ranks") or [] if isinstance(r, Mapping) and "rank" in r]


_NO_RANKS = Finding(Status.SKIP, "no rank's facts reached this rank (see cluster.exchange)")


def judge_exchange(facts: Mapping[str, Any], options: Mapping[str, Any]) -> Finding:
    return _exchange(_gathered(facts), _ranks(facts))


def judge_versions(facts: Mapping[str, Any], options: Mapping[str, Any]) -> Finding:
    ranks = _ranks(facts)
    return _versions(ranks) if ranks else _NO_RANKS


def judge_gpus(facts: Mapping[str, Any], options: Mapping[str, Any]) -> Finding:
    ranks = _ranks(facts)
    return _gpus(ranks) if ranks else _NO_RANKS


def judge_collective(facts: Mapping[str, Any], options: Mapping[str, Any]) -> Finding:
    ranks = _ranks(facts)
    if not ranks:
        return _NO_RANKS
    if not _gathered(facts).get("complete"):
        return Finding(
            Status.SKIP, "no collective ran: not every rank reached the exchange (see cluster.exchange)"
        )
    return _collective(ranks)


def _exchange(exchange: Mapping[str, Any], ranks: Sequence[Mapping[str, Any]]) -> Finding:
    if exchange.get("failed"):
        error = exchange["failed"]
        message = next(
            (line.strip() for line in str(error.get("message") or "").splitlines() if line.strip()), ""
        )
        return Finding(
            Status.ERROR,
            f"the exchange between ranks failed: {error.get('type')}: {message or 'no message'}",
            _raised_in(str(error.get("traceback") or "")),
            Fix(
                "Check that every rank reaches MASTER_ADDR:MASTER_PORT (the launcher's store) and run again "
                "with torch's distributed logs.",
                (
                    "TORCH_CPP_LOG_LEVEL=INFO TORCH_DISTRIBUTED_DEBUG=DETAIL "
                    "torchrun ... -m torchdoctor cluster",
                ),
            ),
        )
    if exchange.get("complete"):
        world = len(ranks)
        nodes = by_node(ranks)
        return Finding(
            Status.PASS,
            f"all {world} ranks on {len(nodes)} node(s) reached the exchange "
            f"(backend {exchange.get('backend')})",
        )
    missing = [int(r) for r in exchange.get("missing") or []]
    present = exchange.get("present") or {}
    world = len(missing) + len(present)
    lws = next((info.get("local_world_size") for info in ranks if info.get("local_world_size")), None)
    where = ""
    if lws:
        groups = sorted({r // int(lws) for r in missing})
        where = f" (node group {', '.join(str(g) for g in groups)} in torchrun's rank order)"
    details: list[Detail] = [
        f"present: rank {r} on {info.get('hostname')}"
        + (f" (GROUP_RANK={info['group_rank']})" if info.get("group_rank") is not None else "")
        for r, info in sorted(present.items(), key=lambda item: int(item[0]))
    ]
    return Finding(
        Status.FAIL,
        f"{len(missing)} of {world} ranks never reached the exchange within {exchange.get('waited_s'):g} s: "
        f"{ranks_text(missing)}{where}",
        tuple(details),
        Fix(
            "Those ranks' node is missing, hung, or runs something else: check its torchrun output, that "
            "torchdoctor is installed there, and its local verdicts (torchdoctor check on that node).",
            ("torchdoctor check",),
        ),
    )


def _raised_in(traceback: str) -> tuple[Detail, ...]:
    """Where the exchange raised, as one line: the innermost frame of its traceback (kept in the facts)."""
    frames = [line.strip() for line in traceback.splitlines() if line.strip().startswith('File "')]
    return (f"raised in {frames[-1]}",) if frames else ()


def _versions(ranks: Sequence[Mapping[str, Any]]) -> Finding:
    nodes = by_node(ranks)
    findings = []
    rows: list[Detail] = []
    for members in nodes.values():
        seen = {field: sorted({str(versions(r)[field]) for r in members}) for _, field in SKEW_FIELDS}
        rows.append(
            {"node": node_label(members), **{label: " / ".join(seen[field]) for label, field in SKEW_FIELDS}}
        )
    for label, field in (*SKEW_FIELDS, ("Python", "python")):
        values: dict[str, list[str]] = defaultdict(list)
        for members in nodes.values():
            for value in sorted({str(versions(r)[field]) for r in members}):
                values[value].append(node_label(members))
        if len(values) < 2:
            continue
        common = max(values, key=lambda v: len(values[v]))
        odd = [
            f"{', '.join(where)} has {label} {value}" for value, where in values.items() if value != common
        ]
        findings.append(
            Finding(
                Status.WARN if field == "python" else Status.FAIL,
                f"{label} differs between nodes: {'; '.join(odd)} where the others have {common}",
                (),
                Fix(
                    "Run every node from the same environment (one container image or one shared "
                    "virtual environment) and the same driver; mixed versions break NCCL and give "
                    "different numerics.",
                    ("torchrun ... -m torchdoctor cluster --json > cluster.json",),
                ),
            )
        )
    if not findings:
        first = versions(ranks[0])
        if first["torch"] is None:
            return Finding(
                Status.SKIP,
                "the ranks' torch version is not known (their torch probe gave no facts: see torch.build)",
                tuple(rows),
            )
        build = f" (CUDA {first['cuda']}, NCCL {first['nccl']})" if first["cuda"] else " (CPU-only)"
        driver = f"driver {first['driver']}" if first["driver"] else "no NVIDIA driver"
        return Finding(Status.PASS, f"every node runs torch {first['torch']}{build}, {driver}", tuple(rows))
    combined = Finding.combine(findings)
    return Finding(combined.status, combined.summary, (*combined.details, *rows), combined.fix)


def _gpus(ranks: Sequence[Mapping[str, Any]]) -> Finding:
    nodes = by_node(ranks)
    counts = {key: len((members[0].get("summary") or {}).get("gpus") or []) for key, members in nodes.items()}
    if not any(counts.values()):
        return Finding(Status.SKIP, f"no NVIDIA GPU on any of the {len(nodes)} node(s)")
    best = max(counts.values())
    findings = []
    rows: list[Detail] = []
    for key, members in nodes.items():
        summary = members[0].get("summary") or {}
        visible = summary.get("visible_gpus")
        label = node_label(members)
        rows.append({"node": label, "gpus": counts[key], "visible": visible, "ranks": len(members)})
        if counts[key] < best:
            findings.append(
                Finding(
                    Status.FAIL,
                    f"{label} has {counts[key]} GPU(s) where another node has {best}: a GPU is missing",
                    (
                        f"{label}: "
                        + (", ".join(str(g.get("name")) for g in summary.get("gpus") or []) or "none"),
                    ),
                    Fix(
                        "A GPU that NVML no longer lists has usually fallen off the bus (Xid 79) or lost its "
                        "driver: check the kernel log and nvidia-smi on that node, and drain it.",
                        ("nvidia-smi -L", "dmesg | grep -i xid"),
                    ),
                )
            )
        beyond = [
            m
            for m in members
            if (m.get("summary") or {}).get("visible_gpus") is not None
            and int(m.get("local_rank") or 0) >= int(m["summary"]["visible_gpus"])
        ]
        if beyond:
            first = beyond[0]
            findings.append(
                Finding(
                    Status.FAIL,
                    f"{label}: {ranks_text([int(m['rank']) for m in beyond])} cannot bind cuda:LOCAL_RANK: "
                    f"LOCAL_RANK={first.get('local_rank')} but the rank sees "
                    f"{first['summary']['visible_gpus']} GPU(s)",
                    ("CUDA_VISIBLE_DEVICES of those ranks, or --nproc-per-node above the GPU count",),
                    binding.BIND_FIX,
                )
            )
    backend = next((r.get("backend") for r in ranks if r.get("backend")), None)
    findings += binding.findings([{**r, "device": r.get("device")} for r in ranks], backend)
    if not findings:
        return Finding(
            Status.PASS,
            f"{len(nodes)} node(s) with {best} GPU(s) each, one per rank"
            + (" (torchrun --virtual-local-rank)" if binding.mode(ranks) == "virtual_local_rank" else ""),
            tuple(rows),
        )
    combined = Finding.combine(findings)
    return Finding(combined.status, combined.summary, (*combined.details, *rows), combined.fix)


def _collective(ranks: Sequence[Mapping[str, Any]]) -> Finding:
    wrong = [r for r in ranks if (r.get("allreduce") or {}).get("ok") is False]
    nodes = by_node(ranks)
    job = _job_bandwidth(ranks)
    rows: list[Detail] = []
    node_busbw: dict[str, float] = {}
    for key, members in nodes.items():
        intra = [m["node_bandwidth"] for m in members if m.get("node_bandwidth")]
        own = _job_bandwidth(members, world=len(ranks))
        row = {
            "node": node_label(members),
            "ranks": len(members),
            "busbw_gbps": None if own is None else own["busbw_gbps"],
            "intra_node_busbw_gbps": None,
        }
        if intra:
            slowest = max(float(b["seconds"]) for b in intra)
            _, busbw = collective.bus_bandwidth(int(intra[0]["bytes"]), slowest, len(members))
            row["intra_node_busbw_gbps"] = busbw
            if busbw is not None:
                node_busbw[key] = busbw
        rows.append(row)
    if wrong:
        first = wrong[0]["allreduce"]
        return Finding(
            Status.FAIL,
            f"all_reduce returned a wrong result on {ranks_text([int(r['rank']) for r in wrong])}: "
            f"{first.get('value')} where {first.get('expected')} was expected",
            tuple(rows),
            Fix(
                "A collective that returns wrong numbers corrupts training silently: check GPU memory errors "
                "and NCCL overrides (NCCL_ALGO, NCCL_PROTO) on those nodes.",
                ("nvidia-smi -q -d ECC",),
            ),
        )
    speed = ""
    if job and job["busbw_gbps"] is not None:
        speed = f", busbw {job['busbw_gbps']:.2f} GB/s job-wide ({job['bytes'] / 2**20:g} MiB)"
    summary = f"all_reduce verified on all {len(ranks)} ranks{speed}"
    if len(node_busbw) >= 2:
        best = max(node_busbw.values())
        slow = {k: v for k, v in node_busbw.items() if v < SLOW_NODE_SHARE * best}
        if slow:
            names = ", ".join(node_label(nodes[k]) for k in slow)
            return Finding(
                Status.WARN,
                f"{names}: intra-node busbw {min(slow.values()):.1f} GB/s is under half the best node's "
                f"{best:.1f} GB/s",
                tuple(rows),
                Fix(
                    "A node much slower than its peers has a degraded link (NVLink down, PCIe "
                    "downtrained) or NCCL settings of its own: compare nvidia-smi topo -m and NCCL_* "
                    "variables with a good node.",
                    ("nvidia-smi topo -m", "nvidia-smi nvlink -s"),
                ),
            )
    return Finding(Status.PASS, summary, tuple(rows))


def _job_bandwidth(ranks: Sequence[Mapping[str, Any]], world: int | None = None) -> dict[str, Any] | None:
    measured = [r["bandwidth"] for r in ranks if r.get("bandwidth") and r["bandwidth"].get("seconds")]
    if not measured:
        return None
    slowest = max(float(b["seconds"]) for b in measured)
    nbytes = int(measured[0]["bytes"])
    _, busbw = collective.bus_bandwidth(nbytes, slowest, world or len(ranks))
    return {"bytes": nbytes, "seconds": slowest, "busbw_gbps": busbw}
