"""``torchdoctor cluster``: the same doctor on every rank of a launched job, one report on rank 0.

Run by the user's launcher (``torchrun --nnodes N --nproc-per-node G -m torchdoctor cluster``, or
``srun`` with MASTER_ADDR and MASTER_PORT exported). Every rank runs the local checks as
``torchdoctor check`` would, then the probes of the installed cluster checks (entry-point group
``torchdoctor.cluster_checks``; the built-in ``cluster.exchange`` probe hands every rank's facts to rank 0
over torch.distributed), in a worker like any probe: this process never imports torch. The reporting rank
judges the gathered facts with the cluster checks, through the same judging path as ``check``, and prints
one report; the other ranks print nothing on stdout.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from torchdoctor.checking import doctor, exitcodes, registry, runner
from torchdoctor.checking.registry import CheckInfo, Loaded
from torchdoctor.checking.runner import Session, Workers
from torchdoctor.inputs import bounded
from torchdoctor.isolation.workerproc import WorkerProcess
from torchdoctor.machine import nvml
from torchdoctor.model import Finding, Fix, Report, Status, Verdict
from torchdoctor.output.wording import ranks_text
from torchdoctor.plugin import Option
from torchdoctor.render import text

LAUNCH_HINT = "torchrun --nnodes N --nproc-per-node G -m torchdoctor cluster"
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
        if bounded.whole_number(per_node) is not None:
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
    bad = [name for name in ("RANK", "WORLD_SIZE", "MASTER_PORT") if bounded.whole_number(env[name]) is None]
    if bad:
        raise NotLaunched(", ".join(f"{name}={env[name]!r} is not a number" for name in bad))
    out_of_range = _out_of_range(env)
    if out_of_range:
        raise NotLaunched("; ".join(out_of_range))
    return Launch(int(env["RANK"]), int(env["WORLD_SIZE"]), launcher, env)


MAX_PORT = 65535


def _out_of_range(env: Mapping[str, str]) -> list[str]:
    """What the launch variables say that no job can be (refused before anything waits on a rank or a
    port): a world of no rank, a rank outside it, a port TCP does not have; LOCAL_RANK and LOCAL_WORLD_SIZE
    likewise where they are numbers."""
    rank, world, port = (int(env[name]) for name in ("RANK", "WORLD_SIZE", "MASTER_PORT"))
    problems = []
    if world < 1:
        problems.append(f"WORLD_SIZE={world}: a job has at least one rank")
    elif rank >= world:
        problems.append(f"RANK={rank} with WORLD_SIZE={world}: ranks run from 0 to {world - 1}")
    if not 1 <= port <= MAX_PORT:
        problems.append(f"MASTER_PORT={port}: a TCP port is from 1 to {MAX_PORT}")
    local_rank, local_world = (
        bounded.whole_number(env.get(n, "")) for n in ("LOCAL_RANK", "LOCAL_WORLD_SIZE")
    )
    if local_world is not None and local_world < 1:
        problems.append(f"LOCAL_WORLD_SIZE={local_world}: a node runs at least one rank")
    elif local_rank is not None and local_world is not None and local_rank >= local_world:
        problems.append(
            f"LOCAL_RANK={local_rank} with LOCAL_WORLD_SIZE={local_world}: local ranks run from 0 to "
            f"{local_world - 1}"
        )
    return problems


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


def run(
    checks: Sequence[Loaded],
    options: dict[str, Any],
    workers: Workers,
    only: Iterable[str] = (),
    skip: Iterable[str] = (),
    fail_on: Status = Status.FAIL,
) -> Outcome:
    """This rank's part of the job-wide diagnosis; raises NotLaunched outside a launched job."""
    launch = launch_from(os.environ)
    started = time.perf_counter()
    created_at = doctor.now()
    only, skip = list(only), list(skip)
    left_out = NEVER_RUN if only else (*NEVER_RUN, *NOT_BY_DEFAULT)
    selected = doctor.select_checks(checks, only, skip)
    local_checks = [c for c in selected if c.id not in left_out]
    timeout = float(options["timeout"])
    # What rank_summary reads (versions, GPUs) is gathered whatever --only chose: the cluster checks judge it.
    summarised = [*registry.probes_named(checks, SUMMARY_PROBES), nvml.PROBE]
    local = doctor.diagnose(local_checks, options, workers, fail_on, extra_probes=summarised)
    cluster_checks = doctor.installed_checks(workers, registry.CLUSTER_CHECKS)
    probes, _ = runner.needed_probes(cluster_checks)
    # The probe worker imported torch for the summary probes: the exchange runs there too, unless it needs
    # SLURM's variables mapped to torchrun's (then in a worker of its own, started with them).
    shared = launch.env == dict(os.environ)
    with contextlib.ExitStack() as stack:
        exchange_session = (
            workers.probes if shared else stack.enter_context(Session(lambda: WorkerProcess(env=launch.env)))
        )
        exchange = runner.run_probes(
            probes,
            {**options, "rank_summary": rank_summary(local)},
            exchange_session,
            # Rank 0 waits up to `timeout` for the others; the others up to twice that for rank 0.
            timeout=2 * timeout + 20,
        )
        exchange_log = "" if shared else exchange_session.log_text()
    facts = exchange.facts.get(EXCHANGE, {})
    reporter = facts.get("reporter", 0)
    if launch.rank != reporter:
        return _other_rank(launch, facts, exchange.errors.get(EXCHANGE))
    gathered = runner.ProbeRun(
        facts={**local.facts, **exchange.facts},
        errors={**local.probe_errors, **exchange.errors},
        durations={**local.timings.get("probes", {}), **exchange.durations},
    )
    report = doctor.assemble(
        cluster_checks,
        gathered,
        options,
        workers,
        fail_on=fail_on,
        created_at=created_at,
        extra={"cluster": cluster_section(launch, facts)},
        extra_verdicts=[
            *merged_local_verdicts(facts.get("ranks") or []),
            *not_run([c for c in selected if c.id in left_out]),
        ],
    )
    report.timings["total_s"] = round(time.perf_counter() - started, 4)
    report.worker_log = workers.log_text() + exchange_log
    return Outcome(report.exit_code, report)


EXCHANGE = "cluster.exchange"
SUMMARY_PROBES = ("torch", "cuda_driver")
"""Probes of the installed checks whose facts every rank's summary carries (besides NVML's)."""
_NOT_RUN_WHY = {
    "ddp.dryrun": "not run inside cluster: the job's own ranks are the dry run (cluster.exchange joins them, "
    "cluster.collective verifies an all_reduce across them); run it with torchdoctor check on one node",
    "transfer.pinned": "not run by default inside cluster: ranks sharing a node would measure each other's "
    "copies; name it with --only to measure anyway",
}


def usable_options(declared: Sequence[Option], checks: Sequence[Loaded]) -> list[Option]:
    """The declared options ``cluster`` can use: those of a check it ever runs (not ddp.dryrun's --nproc and
    --backend: the job's launcher sets the ranks and the exchange picks the backend)."""
    used = {
        option.flag
        for check in checks
        if isinstance(check, CheckInfo) and check.id not in NEVER_RUN
        for option in check.options
    }
    return [option for option in declared if option.flag in used]


def not_run(checks: Sequence[Loaded]) -> list[Verdict]:
    """A skip for each selected check cluster leaves out, saying why: nothing chosen disappears silently."""
    return [
        Verdict(
            c.id, getattr(c, "title", c.id), Status.SKIP, _NOT_RUN_WHY.get(c.id, "not run inside cluster")
        )
        for c in checks
    ]


def _other_rank(launch: Launch, facts: Mapping[str, Any], error: Mapping[str, Any] | None) -> Outcome:
    if not facts or facts.get("failed"):
        why = (facts.get("failed") or error or {}).get("message") or "no answer"
        where = ""
        if launch.launcher != "torchrun":
            where = (
                f" (without torchrun, rank 0 hosts the store at {launch.env.get('MASTER_ADDR')}:"
                f"{launch.env.get('MASTER_PORT')}: check that rank 0 started and that this host reaches it)"
            )
        return Outcome(exitcodes.ERRORED, message=f"rank {launch.rank}: the exchange failed: {why}{where}")
    if not facts.get("complete"):
        missing = ", ".join(str(r) for r in facts.get("missing") or [])
        reporter = facts.get("reporter", 0)
        return Outcome(
            exitcodes.THRESHOLD,
            message=f"rank {launch.rank}: ranks {missing} never reached the exchange; "
            f"rank {reporter} reports",
        )
    return Outcome(exitcodes.OK)


def cluster_section(launch: Launch, facts: Mapping[str, Any]) -> dict[str, Any]:
    """``cluster`` in the JSON report: every rank with its node, GPU, versions and bandwidth."""
    table = facts.get("table") or {}
    return {
        "launcher": launch.launcher,
        "world_size": launch.world_size,
        "complete": bool(facts.get("complete")),
        "backend": facts.get("backend"),
        "missing_ranks": list(facts.get("missing") or []),
        "nodes": list(table.get("nodes") or []),
        "ranks": list(table.get("ranks") or []),
    }


def merged_local_verdicts(ranks: Sequence[Mapping[str, Any]]) -> list[Verdict]:
    """One verdict per local check: the worst status any rank saw, and on which ranks.

    Built from the verdicts each rank summarised (:func:`rank_summary`); a malformed summary from
    another rank is left out rather than trusted.
    """
    titles: dict[str, str] = {}
    seen: dict[str, list[tuple[int, Mapping[str, Any]]]] = defaultdict(list)
    numbered = [r for r in ranks if isinstance(r, Mapping) and isinstance(r.get("rank"), int)]
    for rank in sorted(numbered, key=lambda r: int(r["rank"])):
        for verdict in (rank.get("summary") or {}).get("verdicts") or []:
            if not _summarised_verdict(verdict):
                continue
            titles.setdefault(verdict["id"], str(verdict.get("title") or verdict["id"]))
            seen[verdict["id"]].append((int(rank["rank"]), verdict))
    merged = []
    for check_id, title in titles.items():
        outcomes = seen[check_id]
        groups: dict[tuple[str, str], list[int]] = defaultdict(list)
        for number, verdict in outcomes:
            groups[(verdict["status"], verdict["summary"])].append(number)
        worst = max((Status(status) for status, _ in groups), key=lambda status: status.severity)
        at_worst = [(number, v) for number, v in outcomes if v["status"] == worst.value]
        where = [number for number, _ in at_worst]
        scope = f"all {len(numbered)} ranks" if len(where) == len(numbered) > 1 else ranks_text(where)
        details = tuple(
            f"{status}: {ranks_text(numbers)}: {summary}" for (status, summary), numbers in groups.items()
        )
        fix = next((_fix(v.get("fix")) for _, v in at_worst if v.get("fix")), None)
        finding = Finding(
            worst, f"{scope}: {at_worst[0][1]['summary']}", details if len(groups) > 1 else (), fix
        )
        merged.append(Verdict(check_id, title, finding.status, finding.summary, finding.details, finding.fix))
    return merged


def _summarised_verdict(verdict: Any) -> bool:
    return (
        isinstance(verdict, Mapping)
        and isinstance(verdict.get("id"), str)
        and isinstance(verdict.get("summary"), str)
        and verdict.get("status") in {s.value for s in Status}
    )


def _fix(data: Any) -> Fix | None:
    try:
        return Fix.from_json(data)
    except ValueError:
        return None


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
                "busbw": None if row["busbw_gbps"] is None else f"{float(row['busbw_gbps']):.2f} GB/s",
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
