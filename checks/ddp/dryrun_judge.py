"""The judge of ``ddp.dryrun``: from each rank's phases, exit and messages to one verdict.

Root cause first, as torchelastic's "first observed failure" does: a rank that failed on its own
(could not import torch, named a GPU that is not there, raised, crashed, hung) leads; ranks that only
timed out or lost the connection waiting for it are shown as consequences. A rank the launcher
stopped after a peer failed, or killed at the deadline, is named with the last phase it reached.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from torchdoctor.checks.ddp import binding, collective, env_knobs, signatures
from torchdoctor.checks.ddp.signatures import CONSEQUENCE, ROOT
from torchdoctor.checks.probes import torch_probe
from torchdoctor.model import Detail, Finding, Fix, Status
from torchdoctor.output.wording import ranks_text

RANK_KINDS = {
    "import_failed",
    "invalid_device_ordinal",
    "nccl_unavailable",
    "env_incomplete",
    "foreign_ranks",
}
PHASES = ("start", "imported", "bound", "init", "init_done", "allreduce", "barrier", "bandwidth", "done")
JOINED = PHASES[PHASES.index("init_done") :]
_TAIL_LINES = 8
_LISTED_RANKS = 8
_MESSAGE_CHARS = 300

DEBUG_COMMAND = (
    "TORCH_CPP_LOG_LEVEL=INFO TORCH_DISTRIBUTED_DEBUG=DETAIL NCCL_DEBUG=INFO "
    "torchdoctor check --only ddp.dryrun -v"
)


@dataclass(frozen=True)
class Outcome:
    record: Mapping[str, Any]
    state: str  # ok, error, crashed, hung, stopped, not_started, interrupted
    kind: str | None
    role: str | None
    evidence: str
    at_s: float

    @property
    def rank(self) -> int:
        return int(self.record.get("rank", self.record.get("local_rank", -1)))

    @property
    def last_phase(self) -> str | None:
        value = self.record.get("last_phase")
        return None if value is None else str(value)


def _phase_index(o: Outcome) -> int:
    return PHASES.index(o.last_phase) if o.last_phase in PHASES else -1


def _phase_time(record: Mapping[str, Any]) -> float:
    phases = record.get("phases") or {}
    return float(max(phases.values())) if phases else 0.0


def outcome(record: Mapping[str, Any]) -> Outcome:
    """What became of one rank, and whether it is a root cause or a consequence."""
    error = record.get("error")
    killed = record.get("killed")
    exit_ = record.get("exit") or {}
    last = record.get("last_phase")
    if record.get("start_error"):
        return Outcome(record, "not_started", "start_failed", ROOT, str(record["start_error"]), 0.0)
    if error:
        message = f"{error.get('type')}: {error.get('message')}"
        at_s = float(error.get("at_s") or _phase_time(record))
        if error.get("kind") in RANK_KINDS:
            return Outcome(record, "error", str(error["kind"]), ROOT, str(error.get("message")), at_s)
        signature = signatures.classify(f"{message}\n{record.get('stderr_tail') or ''}")
        if signature is None:
            return Outcome(record, "error", "exception", ROOT, message, at_s)
        return Outcome(record, "error", signature.kind, signature.role, message, at_s)
    if killed:
        after = float(killed.get("after_s") or 0.0)
        reason = killed.get("reason")
        if reason == "deadline":
            return Outcome(record, "hung", "hung", ROOT, f"stuck after '{last}' until the deadline", after)
        if reason == "interrupted":
            return Outcome(
                record, "interrupted", "interrupted", CONSEQUENCE, "stopped by an interruption", after
            )
        return Outcome(
            record, "stopped", "stopped", CONSEQUENCE, f"stopped after '{last}' once a peer failed", after
        )
    if last == "done" and exit_.get("code") == 0:
        return Outcome(record, "ok", None, None, "done", _phase_time(record))
    how = (
        f"was killed by {exit_['signal']}" if exit_.get("signal") else f"exited with code {exit_.get('code')}"
    )
    if last in (None, "start"):
        return Outcome(
            record, "crashed", "import_failed", ROOT, f"{how} while importing torch", _phase_time(record)
        )
    signature = signatures.classify(str(record.get("stderr_tail") or ""))
    kind = signature.kind if signature and signature.role == ROOT else "crashed"
    return Outcome(record, "crashed", kind, ROOT, f"{how} after '{last}'", _phase_time(record))


def _torch_version(dry: Mapping[str, Any]) -> str | None:
    """The ranks' torch: what a rank reported after importing it, else the installed distribution's."""
    reported = [(r.get("torch") or {}).get("version") for r in dry.get("ranks") or []]
    found = next((v for v in reported if isinstance(v, str)), dry.get("torch_version"))
    return found if isinstance(found, str) else None


def judge(facts: Mapping[str, Any], options: Mapping[str, Any]) -> Finding:
    dry = facts["ddp.dryrun"]
    status = dry.get("status")
    env = dry.get("env") or {}
    if status == "inside_torchrun":
        return Finding(
            Status.SKIP,
            f"running inside a torchrun job (TORCHELASTIC_RUN_ID={env.get('TORCHELASTIC_RUN_ID')}): its "
            "MASTER_PORT belongs to that job; use 'torchdoctor cluster' there",
            fix=Fix(
                "Check the whole job from inside it instead.",
                ("torchrun --nnodes N --nproc-per-node G -m torchdoctor cluster",),
            ),
            facts={"status": status},
        )
    if status == "no_torch":
        return torch_probe.needs_torch("ModuleNotFoundError: No module named 'torch'")
    plan = dry.get("plan") or {}
    backend = plan.get("backend")
    knobs = env_knobs.findings(env, backend, dry.get("interfaces"), _torch_version(dry))
    if status == "precheck_failed":
        return Finding.combine([*_precheck_findings(dry.get("master") or {}), *knobs], facts=_shown(dry, []))
    outcomes = [outcome(r) for r in dry.get("ranks") or []]
    if not outcomes:
        return Finding(
            Status.ERROR, f"the dry run reported no rank (status {status!r})", facts=_shown(dry, [])
        )
    messages = {
        str((o.record.get("error") or {}).get("message")) for o in outcomes if o.kind == "import_failed"
    }
    if len(messages) == 1 and all(o.kind == "import_failed" for o in outcomes):
        # Every rank fails to import the torch this environment has: torch.build names it.
        return torch_probe.needs_torch(messages.pop().removeprefix("import torch failed: "))
    findings = _rank_findings(outcomes, dry)
    bound = binding.findings([o.record for o in outcomes], backend)
    if any(o.kind == "duplicate_gpu" for o in outcomes):
        findings = bound + findings  # the shared GPU is the cause of NCCL's "Duplicate GPU detected"
    else:
        findings += bound
    findings += _wrong_results(outcomes)
    for kind, variable in (
        ("gloo_interface", "GLOO_SOCKET_IFNAME"),
        ("nccl_no_interface", "NCCL_SOCKET_IFNAME"),
    ):
        if any(o.kind == kind for o in outcomes):  # the ranks' own error already leads
            knobs = [k for k in knobs if not k.summary.startswith(variable)]
    findings += knobs
    findings += _default_port_findings(dry.get("master") or {})
    rows = _rows(outcomes)
    notes = _notes(dry, outcomes)
    shown = _shown(dry, outcomes)
    if not findings:
        return Finding(Status.PASS, _pass_summary(dry, outcomes), (*notes, *rows), facts=shown)
    combined = Finding.combine(findings)
    return Finding(combined.status, combined.summary, (*combined.details, *notes, *rows), combined.fix, shown)


def _precheck_findings(master: Mapping[str, Any]) -> list[Finding]:
    address = master.get("address") or {}
    port = master.get("port") or {}
    result = []
    if address.get("error"):
        name = address.get("value")
        result.append(
            Finding(
                Status.FAIL,
                f"MASTER_ADDR={name} does not resolve ({address['error']}): every rank would time out "
                "connecting to it",
                ("checked with getaddrinfo before starting any rank",),
                Fix(
                    "Set MASTER_ADDR to a name or IP address of the machine that runs rank 0 which every "
                    "node can resolve (DNS or /etc/hosts), or unset it for a single-node run.",
                    (f"getent hosts {name}",),
                ),
            )
        )
    if port.get("locked_by"):
        result.append(
            Finding(
                Status.FAIL,
                f"another torchdoctor dry run (pid {port['locked_by']}) is using "
                f"MASTER_PORT={port.get('port')} right now: two runs on one port join each other's ranks",
                ("checked with this machine's lock of the port before starting any rank",),
                _SHARED_PORT_FIX,
            )
        )
    if port.get("busy"):
        number = port.get("port")
        owner = port.get("owner")
        held = f" by pid {owner['pid']} ({owner.get('name') or '?'})" if owner else ""
        details: list[str] = [
            "checked by listening on it before starting any rank, as rank 0's TCPStore would"
        ]
        if owner and owner.get("cmdline"):
            details.append(f"pid {owner['pid']}: {owner['cmdline']}")
        result.append(
            Finding(
                Status.FAIL,
                f"MASTER_PORT={number} is already in use{held}: rank 0 cannot host the TCPStore there "
                "(EADDRINUSE) and the other ranks would hang talking to whatever holds it",
                tuple(details),
                Fix(
                    "Stop what holds the port (often a crashed earlier run), or use a free one: unset "
                    "MASTER_PORT and torchdoctor picks one, as torchrun --standalone does.",
                    (f"ss -ltnp 'sport = :{number}'", "unset MASTER_PORT"),
                ),
            )
        )
    elif port.get("error"):
        result.append(
            Finding(
                Status.FAIL,
                f"rank 0 cannot listen on MASTER_PORT={port.get('value')}: {port['error']}",
                (),
                Fix(
                    "Use a port number between 1024 and 65535 that nothing else listens on, or unset "
                    "MASTER_PORT."
                ),
            )
        )
    return result


def _default_port_findings(master: Mapping[str, Any]) -> list[Finding]:
    """MASTER_PORT unset, and the port a plain torchrun would use is taken: the dry run used a free one."""
    port = master.get("port") or {}
    default = port.get("default") or {}
    if port.get("source") != "free" or not default.get("busy"):
        return []
    number = default.get("port")
    owner = default.get("owner")
    held = f" by pid {owner['pid']} ({owner.get('name') or '?'})" if owner else ""
    return [
        Finding(
            Status.WARN,
            f"port {number}, where torchrun and init_process_group put rank 0's store when MASTER_PORT is "
            f"unset, is already in use{held}: a plain 'torchrun' here would fail with 'Address already in "
            "use' (this dry run used a free port)",
            (f"the dry run's own ranks used port {port.get('port')}",),
            Fix(
                "Stop what holds the port (often a crashed earlier run), or give the job its own port: "
                "torchrun --standalone picks a free one, or export MASTER_PORT.",
                (f"ss -ltnp 'sport = :{number}'", "torchrun --standalone --nproc-per-node=NPROC train.py"),
            ),
        )
    ]


def _tail(record: Mapping[str, Any]) -> list[str]:
    lines = [line for line in str(record.get("stderr_tail") or "").splitlines() if line.strip()]
    return [f"  | {line[:_MESSAGE_CHARS]}" for line in lines[-_TAIL_LINES:]]


def _rank_findings(outcomes: Sequence[Outcome], dry: Mapping[str, Any]) -> list[Finding]:
    bad = [o for o in outcomes if o.state != "ok"]
    if not bad:
        return []
    roots = [o for o in bad if o.role == ROOT and o.state != "hung"]
    named = {n for o in bad for n in signatures.ranks_missing_barrier(o.evidence)}
    if not roots:
        stuck = [o for o in bad if o.state in ("stopped", "hung") or o.rank in named]
        # Of the ranks that stopped answering, those that got least far are the ones the others waited for.
        earliest = min((_phase_index(o) for o in stuck), default=0)
        roots = [o for o in stuck if _phase_index(o) == earliest] or bad
    consequences = [o for o in bad if o not in roots]
    ordered = sorted(roots, key=lambda o: (round(o.at_s, 1), o.rank))  # ranks start within ms
    kinds = list(dict.fromkeys(o.kind or "crashed" for o in ordered))
    findings = []
    for kind in kinds:
        members = [o for o in ordered if (o.kind or "crashed") == kind]
        findings.append(_root_finding(kind, members, dry))
    if consequences:
        lead = findings[0]
        lines = ["as a consequence:"]
        lines += [f"rank {o.rank}: {_consequence_text(o)}" for o in consequences[:_LISTED_RANKS]]
        if len(consequences) > _LISTED_RANKS:
            lines.append(f"... and {len(consequences) - _LISTED_RANKS} more ranks")
        findings[0] = Finding(lead.status, lead.summary, (*lead.details, *lines), lead.fix)
    return findings


def _consequence_text(o: Outcome) -> str:
    signature = signatures.by_kind(o.kind or "")
    meaning = f"{signature.meaning}: " if signature else ""
    return f"{meaning}{signatures.telling_line(o.evidence, o.kind)[:_MESSAGE_CHARS]}"


def _phase_text(o: Outcome) -> str:
    if o.last_phase in JOINED:
        return f"after joining the process group (last phase '{o.last_phase}')"
    return f"before joining the process group (last phase '{o.last_phase}')"


_NETWORK_FIX = Fix(
    "Check that every rank reaches MASTER_ADDR:MASTER_PORT and that no firewall blocks the ports gloo and "
    "NCCL open between ranks; run again with torch's distributed logs.",
    (DEBUG_COMMAND,),
)
_HANG_FIX = Fix(
    "A rank that stops answering in torch.distributed usually waits on the network: a firewall, another "
    "process on MASTER_PORT, an interface that cannot reach the other ranks (NCCL_SOCKET_IFNAME, "
    "GLOO_SOCKET_IFNAME), or a GPU that does not answer. Run again with logs, or with more time.",
    (DEBUG_COMMAND, "torchdoctor check --only ddp.dryrun --timeout 120"),
)
_SHARED_PORT_FIX = Fix(
    "Another job's ranks joined: give each job its own port (unset MASTER_PORT and torchdoctor picks a free "
    "one, as torchrun --standalone does), or wait for the other job.",
    ("unset MASTER_PORT",),
)
_FIXES: dict[str, Fix] = {
    "import_failed": Fix(
        "Every rank must import the same working torch: check the PYTHONPATH, the virtual environment "
        "and the LD_LIBRARY_PATH your launcher gives the ranks.",
        ('python -c "import torch; print(torch.__version__, torch.__file__)"',),
    ),
    "nccl_unavailable": Fix(
        "Install a CUDA build of torch on GPU machines (see the torch.build check), or run the dry "
        "run with gloo.",
        ("torchdoctor check --only ddp.dryrun --backend gloo",),
    ),
    "gloo_interface": Fix(
        "Set GLOO_SOCKET_IFNAME to an interface every node has and that reaches the others, or unset it.",
        ("ip -brief address", "unset GLOO_SOCKET_IFNAME"),
    ),
    "duplicate_gpu": binding.BIND_FIX,
    "nccl_no_interface": Fix(
        "Set NCCL_SOCKET_IFNAME to an interface prefix this machine has (or ^docker,lo to exclude), or "
        "unset it to let NCCL choose.",
        ("ip -brief address", "unset NCCL_SOCKET_IFNAME"),
    ),
    "nccl_system_error": Fix(
        "Run with NCCL_DEBUG=INFO to see which transport fails; usual causes: NCCL picked the wrong "
        "interface (set NCCL_SOCKET_IFNAME), a container without --shm-size or --net=host, a "
        "firewall, InfiniBand trouble (NCCL_IB_DISABLE=1 confirms it).",
        (DEBUG_COMMAND,),
    ),
    "libuv_missing": Fix("This torch has no libuv TCPStore: set USE_LIBUV=0.", ("export USE_LIBUV=0",)),
    "env_incomplete": Fix(
        "Launch with torchrun, or export RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT."
    ),
    "master_unresolvable": Fix("Use a MASTER_ADDR every node can resolve.", ("getent hosts $MASTER_ADDR",)),
    "hung": _HANG_FIX,
    "stopped": _HANG_FIX,
    "rendezvous_timeout": _NETWORK_FIX,
    "master_unreachable": _NETWORK_FIX,
    "peer_died": _NETWORK_FIX,
    "collective_timeout": _NETWORK_FIX,
}


def _root_finding(kind: str, members: Sequence[Outcome], dry: Mapping[str, Any]) -> Finding:
    who = ranks_text([o.rank for o in members])
    first = members[0]
    evidence: list[Detail] = []
    for o in members[:_LISTED_RANKS]:
        line = signatures.telling_line(o.evidence, kind)[:_MESSAGE_CHARS]
        evidence.append(f"rank {o.rank} (pid {o.record.get('pid')}): {line}")
        if o is first:  # the others said the same; one stderr tail is enough
            evidence += _tail(o.record)
    if len(members) > _LISTED_RANKS:
        evidence.append(f"... and {len(members) - _LISTED_RANKS} more ranks")
    message = signatures.telling_line(first.evidence, kind)[:_MESSAGE_CHARS]
    fix = _FIXES.get(kind) or _crash_fix(first)
    if kind == "import_failed":
        summary = f"{who} cannot import torch: {message}"
    elif kind == "invalid_device_ordinal":
        summary = f"{who}: {message}"
        count = (first.record.get("error") or {}).get("device_count")
        fix = Fix(
            "Start at most one rank per visible GPU (torchrun --nproc-per-node), or make more GPUs "
            "visible with CUDA_VISIBLE_DEVICES.",
            ("nvidia-smi -L", *([f"torchdoctor check --only ddp.dryrun --nproc {count}"] if count else [])),
        )
    elif kind == "gloo_interface":
        value = (dry.get("env") or {}).get("GLOO_SOCKET_IFNAME")
        shown = f" (GLOO_SOCKET_IFNAME={value})" if value else ""
        summary = f"{who}: gloo cannot use its network interface{shown}: {message}"
        evidence.append(f"interfaces here: {', '.join(dry.get('interfaces') or [])}")
    elif kind == "port_in_use":
        port = ((dry.get("master") or {}).get("port") or {}).get("port")
        summary = f"{who} could not listen on MASTER_PORT={port}: address already in use"
        fix = Fix(
            "Another process took the port; use a free one (unset MASTER_PORT) and stop leftover runs.",
            (f"ss -ltnp 'sport = :{port}'",),
        )
    elif kind == "nccl_system_error":
        summary = f"{who}: NCCL system error: {message}"
    elif kind == "foreign_ranks":
        summary = f"{who}: {message}"
        fix = _SHARED_PORT_FIX
    elif kind == "nccl_no_interface":
        value = (dry.get("env") or {}).get("NCCL_SOCKET_IFNAME")
        shown = f" (NCCL_SOCKET_IFNAME={value})" if value else ""
        summary = f"{who}: NCCL found no network interface to bootstrap with{shown}: {message}"
        evidence.append(f"interfaces here: {', '.join(dry.get('interfaces') or [])}")
    elif kind in ("hung", "stopped"):
        summary = _hang_summary(who, members)
    elif kind in ("rendezvous_timeout", "master_unreachable", "peer_died", "collective_timeout"):
        signature = signatures.by_kind(kind)
        summary = f"{who}: {signature.meaning if signature else kind}: {message}"
    elif first.state == "crashed":
        summary = f"{who} {message}"
    elif kind == "exception":
        summary = f"{who} raised {_phase_text(first)}: {message}"
    else:
        summary = f"{who}: {message}"
    return Finding(Status.FAIL, summary, tuple(evidence), fix)


def _hang_summary(who: str, members: Sequence[Outcome]) -> str:
    first = members[0]
    killed = first.record.get("killed") or {}
    when = (
        "at the dry run's deadline" if killed.get("reason") == "deadline" else "after the other ranks gave up"
    )
    if all(o.last_phase in (None, "start") for o in members):
        return (
            f"{who} still importing torch when killed {when} ({killed.get('after_s')} s after start): "
            "too many ranks for this machine's cores, or a slow file system"
        )
    if all(o.last_phase not in JOINED for o in members):
        what = f"{who} never joined the process group: stuck after '{first.last_phase}'"
    else:
        what = f"{who} hung {_phase_text(first)}"
    return f"{what} (killed {when}, {killed.get('after_s')} s after start)"


def _crash_fix(first: Outcome) -> Fix:
    text = "Read the rank's own error above; run again with torch's distributed logs for more."
    if (first.record.get("exit") or {}).get("signal") == "SIGKILL":
        text = "A rank killed by SIGKILL is often the kernel's out-of-memory killer (see dmesg). " + text
    return Fix(text, (DEBUG_COMMAND,))


def _wrong_results(outcomes: Sequence[Outcome]) -> list[Finding]:
    wrong = [o for o in outcomes if (o.record.get("allreduce") or {}).get("ok") is False]
    if not wrong:
        return []
    first = wrong[0].record["allreduce"]
    return [
        Finding(
            Status.FAIL,
            f"all_reduce returned a wrong result on {ranks_text([o.rank for o in wrong])}: "
            f"{first.get('value')} where every rank contributing rank+1 must give {first.get('expected')}",
            tuple(f"rank {o.rank}: {o.record['allreduce'].get('value')}" for o in wrong),
            Fix(
                "A collective that returns wrong numbers corrupts training silently: check GPU memory errors "
                "and NCCL overrides (NCCL_ALGO, NCCL_PROTO), and run nccl-tests with its correctness check.",
                ("nvidia-smi -q -d ECC", "all_reduce_perf -b 8 -e 128M -f 2 -g 1 -c 1"),
            ),
        )
    ]


def _device_text(record: Mapping[str, Any]) -> str | None:
    device = record.get("device")
    if device:
        return f"cuda:{device.get('index')}"
    return "cpu" if "bound" in (record.get("phases") or {}) else None


def _rows(outcomes: Sequence[Outcome]) -> list[dict[str, Any]]:
    rows = []
    for o in outcomes:
        record = o.record
        device = record.get("device") or {}
        bandwidth = record.get("bandwidth") or {}
        rows.append(
            {
                "rank": o.rank,
                "local_rank": record.get("local_rank"),
                "device": _device_text(record),
                "uuid": device.get("uuid"),
                "phase": o.last_phase,
                "init": _seconds(record.get("init_s")),
                "busbw": _rate(bandwidth.get("busbw_gbps")),
                "outcome": o.state if o.kind is None or o.state == o.kind else f"{o.state}: {o.kind}",
            }
        )
    return rows


def _seconds(value: Any) -> str | None:
    """A table cell: the figure as the summary writes it, never a raw float (the facts keep the number)."""
    return None if not isinstance(value, int | float) else f"{value:.3f} s"


def _rate(value: Any) -> str | None:
    return None if not isinstance(value, int | float) else f"{value:.2f} GB/s"


def _notes(dry: Mapping[str, Any], outcomes: Sequence[Outcome]) -> list[str]:
    notes = []
    address = (dry.get("master") or {}).get("address") or {}
    if address.get("given") and address.get("used") != address.get("given"):
        notes.append(
            f"MASTER_ADDR={address['given']} is another machine; this single-node run used {address['used']}"
        )
    if binding.mode([o.record for o in outcomes]) == "virtual_local_rank":
        notes.append("torchrun --virtual-local-rank mode: every rank is cuda:0 of its own one-GPU view")
    knobs = env_knobs.set_variables(dry.get("env") or {})
    if knobs:
        notes.append(f"set: {', '.join(knobs)}")
    return notes


def job_bandwidth(records: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The run's bandwidth: the slowest rank's mean time, as nccl-tests reports a collective's time."""
    measured = [r["bandwidth"] for r in records if r.get("bandwidth") and r["bandwidth"].get("seconds")]
    if not measured:
        return None
    slowest = max(float(b["seconds"]) for b in measured)
    nbytes = int(measured[0]["bytes"])
    algbw, busbw = collective.bus_bandwidth(nbytes, slowest, len(records))
    return {"bytes": nbytes, "seconds": slowest, "algbw_gbps": algbw, "busbw_gbps": busbw}


def _pass_summary(dry: Mapping[str, Any], outcomes: Sequence[Outcome]) -> str:
    records = [o.record for o in outcomes]
    backend = (dry.get("plan") or {}).get("backend")
    devices = [r["device"] for r in records if r.get("device")]
    where = "on CPU"
    if devices:
        where = f"on {len(devices)} GPU(s) ({', '.join(sorted({str(d.get('name')) for d in devices}))})"
    init = max(float(r.get("init_s") or 0.0) for r in records)
    expected = float((records[0].get("allreduce") or {}).get("expected") or 0.0)
    summary = (
        f"{len(records)} ranks, {backend} {where}: init {init:.3f} s, "
        f"all_reduce verified (sum {expected:g}), barrier passed"
    )
    bandwidth = job_bandwidth(records)
    if bandwidth and bandwidth["busbw_gbps"] is not None:
        summary += (
            f", busbw {bandwidth['busbw_gbps']:.2f} GB/s ({bandwidth['bytes'] / 2**20:g} MiB all_reduce)"
        )
    return summary


def _shown(dry: Mapping[str, Any], outcomes: Sequence[Outcome]) -> dict[str, Any]:
    plan = dry.get("plan") or {}
    master = dry.get("master") or {}
    ranks = []
    for o in outcomes:
        record = o.record
        phases = record.get("phases") or {}
        device = record.get("device")
        ranks.append(
            {
                "rank": o.rank,
                "local_rank": record.get("local_rank"),
                "backend": record.get("backend") or plan.get("backend"),
                "device": None
                if not device
                else {k: device.get(k) for k in ("index", "uuid", "name", "pci_bus_id") if k in device},
                "outcome": o.state,
                "kind": o.kind,
                "last_phase": o.last_phase,
                "timings": {
                    "start_s": phases.get("start"),
                    "import_s": None
                    if "imported" not in phases or "start" not in phases
                    else round(phases["imported"] - phases["start"], 4),
                    "init_s": record.get("init_s"),
                    "allreduce_s": (record.get("allreduce") or {}).get("seconds"),
                    "barrier_s": record.get("barrier_s"),
                },
                "bandwidth": record.get("bandwidth"),
            }
        )
    return {
        "status": dry.get("status"),
        "backend": plan.get("backend"),
        "nproc": plan.get("nproc"),
        "master_addr": (master.get("address") or {}).get("used"),
        "master_port": (master.get("port") or {}).get("port"),
        "ranks": ranks,
        "bandwidth": job_bandwidth([o.record for o in outcomes]),
        "wall_s": dry.get("wall_s"),
    }
