"""``torchdoctor cluster``: the same doctor on every rank of a launched job, one report on rank 0.

Run by the user's launcher (``torchrun --nnodes N --nproc-per-node G -m torchdoctor cluster``, or
``srun`` with MASTER_ADDR and MASTER_PORT exported). Every rank runs the local checks as
``torchdoctor check`` would (:func:`torchdoctor.doctor.diagnose`), then the ``cluster.exchange`` probe
(``checks/exchange_probe.py``) hands every rank's facts to rank 0 over torch.distributed, in a worker
like any probe: this process never imports torch. Rank 0 judges the gathered facts
(``checks/cluster_check.py``) and prints one report; the other ranks print nothing on stdout.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TextIO

from torchdoctor import doctor, exitcodes, host, nvml, runner
from torchdoctor._version import __version__
from torchdoctor.checks.ddp import cluster_check, exchange_probe
from torchdoctor.model import Report, Status, Verdict
from torchdoctor.plugin import Probe
from torchdoctor.registry import LoadFailure
from torchdoctor.render import text
from torchdoctor.workerproc import WorkerProcess

LAUNCH_HINT = "torchrun --nnodes N --nproc-per-node G -m torchdoctor cluster"
EXCHANGE_PROBE = Probe.of("cluster.exchange", exchange_probe.probe)
NEVER_RUN = ("ddp.dryrun",)  # it launches ranks of its own: inside a job, the job's ranks are the test
# It measures every visible GPU: run by all ranks of a node at once, they would measure each other's copies.
NOT_BY_DEFAULT = ("transfer.pinned",)
_SLURM = {
    "RANK": "SLURM_PROCID",
    "WORLD_SIZE": "SLURM_NTASKS",
    "LOCAL_RANK": "SLURM_LOCALID",
    "GROUP_RANK": "SLURM_NODEID",
}


class NotLaunched(ValueError):
    """This process is not a rank of a launched job (no RANK/WORLD_SIZE, or no MASTER_ADDR/PORT)."""


@dataclass(frozen=True)
class Launch:
    rank: int
    world_size: int
    launcher: str
    env: dict[str, str]
    """The environment of the exchange worker: the launcher's, with SLURM's variables mapped for srun."""


@dataclass(frozen=True)
class Outcome:
    exit_code: int
    report: Report | None = None
    """Rank 0's report; None on the other ranks."""
    message: str = ""
    """For stderr, on a rank whose exchange failed."""


def launch_from(environ: Mapping[str, str]) -> Launch:
    env = dict(environ)
    if env.get("RANK") and env.get("WORLD_SIZE"):
        launcher = "torchrun" if env.get("TORCHELASTIC_RUN_ID") else "environment"
    elif env.get("SLURM_PROCID") and env.get("SLURM_NTASKS"):
        launcher = "srun"
        for name, slurm in _SLURM.items():
            if slurm in env:
                env.setdefault(name, env[slurm])
        per_node = env.get("SLURM_NTASKS_PER_NODE", "")
        if per_node.isdigit():
            env.setdefault("LOCAL_WORLD_SIZE", per_node)
    else:
        raise NotLaunched(
            f"torchdoctor cluster runs on every rank of a launched job: {LAUNCH_HINT} "
            "(or srun with MASTER_ADDR and MASTER_PORT exported)"
        )
    missing = [name for name in ("MASTER_ADDR", "MASTER_PORT") if not env.get(name)]
    if missing:
        raise NotLaunched(
            f"{' and '.join(missing)} not set: export them for {launcher}, or use {LAUNCH_HINT}"
        )
    bad = [name for name in ("RANK", "WORLD_SIZE", "MASTER_PORT") if not env[name].strip().isdigit()]
    if bad:
        raise NotLaunched(", ".join(f"{name}={env[name]!r} is not a number" for name in bad))
    return Launch(int(env["RANK"]), int(env["WORLD_SIZE"]), launcher, env)


def rank_summary(report: Report) -> dict[str, Any]:
    """What rank 0 needs of this rank's local diagnosis: versions, GPUs, and every verdict."""
    torch = report.facts.get("torch") or {}
    nv = report.facts.get("nvml") or {}
    driver = report.facts.get("cuda_driver") or {}
    return {
        "python": report.host.get("python"),
        "torch": {
            "version": torch.get("version"),
            "cuda": torch.get("cuda"),
            "nccl": torch.get("nccl_version"),
            "importable": torch.get("importable"),
        },
        "driver_version": nv.get("driver_version"),
        "driver_cuda_version": nv.get("cuda_driver_version"),
        "gpus": [
            {"index": g.get("index"), "name": g.get("name"), "uuid": g.get("uuid")} for g in nvml.gpus_in(nv)
        ],
        "visible_gpus": driver.get("device_count"),
        "verdicts": [
            {
                "id": v.id,
                "title": v.title,
                "status": v.status.value,
                "summary": v.summary,
                "fix": v.fix and v.fix.to_json(),
            }
            for v in report.verdicts
        ],
        "exit_code": report.exit_code,
    }


def _check_id(check: Any) -> str:
    return str(check.entry.id if isinstance(check, LoadFailure) else check.id)


def run(
    only: Iterable[str] = (),
    skip: Iterable[str] = (),
    timeout: float = runner.DEFAULT_TIMEOUT_S,
    fail_on: Status = Status.FAIL,
) -> Outcome:
    """This rank's part of the job-wide diagnosis; raises NotLaunched outside a launched job."""
    launch = launch_from(os.environ)
    started = time.perf_counter()
    created_at = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    only, skip = list(only), list(skip)
    left_out = NEVER_RUN if only else (*NEVER_RUN, *NOT_BY_DEFAULT)
    checks = [c for c in doctor.select_checks(only, skip) if _check_id(c) not in left_out]
    options: dict[str, Any] = {
        "timeout": timeout,
        "min_free_pct": 10.0,
        "memory_snapshot": None,
        "quick": True,
        "nproc": None,
        "backend": None,
    }
    local = doctor.diagnose(checks, options, timeout=timeout, fail_on=fail_on)
    exchange = runner.run_probes(
        [EXCHANGE_PROBE],
        {**options, "rank_summary": rank_summary(local)},
        # Rank 0 waits up to `timeout` for the others; the others up to twice that for rank 0.
        timeout=2 * timeout + 20,
        worker_factory=lambda: WorkerProcess(env=launch.env),
    )
    facts = exchange.facts.get(EXCHANGE_PROBE.name)
    error = exchange.errors.get(EXCHANGE_PROBE.name)
    reporter = (facts or {}).get("reporter", 0)
    if launch.rank != reporter:
        if facts is None:
            why = (error or {}).get("message") or "no answer"
            return Outcome(exitcodes.ERRORED, message=f"rank {launch.rank}: the exchange failed: {why}")
        if not facts.get("complete"):
            missing = ", ".join(str(r) for r in facts.get("missing") or [])
            return Outcome(
                exitcodes.THRESHOLD,
                message=f"rank {launch.rank}: ranks {missing} never reached the exchange; "
                f"rank {reporter} reports",
            )
        return Outcome(exitcodes.OK)
    verdicts = [
        Verdict(
            v.id,
            v.title,
            v.finding.status,
            v.finding.summary,
            tuple(v.finding.details),
            v.finding.fix,
            dict(v.finding.facts),
        )
        for v in cluster_check.judge(facts, error)
    ]
    report = Report(
        tool_version=__version__,
        created_at=created_at,
        host=host.summary(),
        options={**options, "fail_on": fail_on.value},
        facts={**local.facts, EXCHANGE_PROBE.name: facts or {}},
        verdicts=verdicts,
        timings={
            "total_s": round(time.perf_counter() - started, 4),
            "probes": {
                **local.timings.get("probes", {}),
                **{k: round(v, 4) for k, v in exchange.durations.items()},
            },
        },
        exit_code=exitcodes.for_verdicts(verdicts, fail_on),
        probe_errors={**local.probe_errors, **exchange.errors},
        extra={"cluster": cluster_section(launch, facts)},
        worker_log=local.worker_log + "".join(exchange.worker_log),
    )
    return Outcome(report.exit_code, report)


def cluster_section(launch: Launch, facts: Mapping[str, Any] | None) -> dict[str, Any]:
    """``cluster`` in the JSON report: every rank with its node, GPU, versions and bandwidth."""
    facts = facts or {}
    ranks = list(facts.get("ranks") or [])
    nodes = cluster_check.by_node(ranks)
    return {
        "launcher": launch.launcher,
        "world_size": launch.world_size,
        "complete": bool(facts.get("complete")),
        "backend": facts.get("backend"),
        "missing_ranks": list(facts.get("missing") or []),
        "nodes": [
            {"node": cluster_check.node_label(members), "ranks": [int(m["rank"]) for m in members]}
            for members in nodes.values()
        ],
        "ranks": [rank_row(r) for r in sorted(ranks, key=lambda r: int(r["rank"]))],
    }


def rank_row(rank: Mapping[str, Any]) -> dict[str, Any]:
    device = rank.get("device") or {}
    version = cluster_check.versions(rank)
    summary = rank.get("summary") or {}
    return {
        "node": cluster_check.node_key(rank),
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


def _table_rows(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    table = []
    for row in rows:
        gpu = row.get("gpu")
        table.append(
            {
                "node": f"{row['node']} ({row['hostname']})",
                "rank": row["rank"],
                "local_rank": row["local_rank"],
                "gpu": None if not gpu else f"cuda:{gpu['index']} {gpu['name']} {str(gpu['uuid'])[:12]}",
                "driver": row["driver"],
                "cuda": row["cuda"],
                "torch": row["torch"],
                "nccl": row["nccl"],
                "busbw_gbps": row["busbw_gbps"],
            }
        )
    return table


def render_text(report: Report, out: TextIO, verbose: bool = False) -> None:
    """Rank 0's table for the whole job, then one line per verdict with evidence and fix."""
    section = report.extra.get("cluster") or {}
    nodes = len(section.get("nodes") or [])
    out.write(
        f"torchdoctor {report.tool_version} | cluster of {section.get('world_size')} ranks on "
        f"{nodes} node(s) ({section.get('launcher')}), backend {section.get('backend') or '-'}\n\n"
    )
    for line in text.detail_lines(_table_rows(section.get("ranks") or [])):
        out.write(line.rstrip() + "\n")
    out.write("\n")
    width = max((len(v.id) for v in report.verdicts), default=10)
    indent = " " * (7 + width + 2)
    for verdict in report.verdicts:
        out.write(f"{text.LABELS[verdict.status]:<6} {verdict.id:<{width}}  {verdict.summary}\n")
        if text.shows_evidence(verdict, verbose):
            for line in text.detail_lines(verdict.details):
                out.write(f"{indent}{line}\n")
            if verdict.fix is not None:
                out.write(f"{indent}fix: {verdict.fix.text}\n")
                for command in verdict.fix.commands:
                    out.write(f"{indent}  $ {command}\n")
    out.write("\n" + text.closing_line(report.verdicts, report.timings.get("total_s")) + "\n")
