"""The judge of check ``gpu.memory`` (declared in ``memory_check``):
memory on the GPUs the job will use, and who else holds some.

Read through NVML only (``nvml`` probe), never ``torch.cuda.mem_get_info``, which creates a
CUDA context of a few hundred MiB on every GPU it touches (research/memory_bandwidth.md §1.2).
The job's GPUs come from :mod:`job_gpus`; process names from the ``gpu_processes`` probe.

- ``warn``: another process holds memory on a GPU (or MIG slice) the job will use, memory is in
  use that NVML attributes to no process it lists (another container or user), or free memory is
  below ``--min-free`` (default 10 %) of the total.
- ``fail``: the driver is there but NVML cannot be queried, or a GPU the job will use cannot be.
- ``skip``: no NVIDIA driver on this machine, or no GPU visible to the job; a GPU without memory of its own
  (unified memory: DGX Spark's GB10, Jetson), whose memory NVML does not report, is not measured.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from torchdoctor.checks import units
from torchdoctor.checks.devices import job_gpus
from torchdoctor.checks.memory.memory_check import DEFAULT_MIN_FREE_PCT
from torchdoctor.machine import nvml
from torchdoctor.model import Finding, Fix, Status

GIB = 2**30
# Memory NVML counts as used but attributes to no listed process: above this, someone NVML does not
# show us (another container, another user) holds it. With the v1 memory query (drivers before r510)
# "used" includes the driver's reserved carve-out (up to ~1 GiB on 80 GB cards), hence the margin.
UNLISTED_BYTES = 1 * GIB
UNLISTED_BYTES_V1 = 2 * GIB
_QUERY_ERRORS = ("handle", "memory")
# GPUs without memory of their own: their memory is the system's RAM, shared with the CPU, and NVML answers
# the memory query NotSupported (nvidia-smi: "Not Supported" in its table, "[N/A]" in its CSV).
_UNIFIED_MEMORY_GPUS = re.compile(
    r"\bGB10\b|\bJetson\b|\bOrin\b|\bThor\b|\bXavier\b|\bTegra\b", re.IGNORECASE
)


@dataclass(frozen=True)
class _Unit:
    """One thing the job allocates on: a whole GPU, or one MIG slice of it."""

    label: str  # "cuda:0 (GPU 2)" or "cuda:0 (MIG 3g.40gb on GPU 0)"
    gpu: Mapping[str, Any]
    mig: Mapping[str, Any] | None


def judge(facts: Mapping[str, Any], options: Mapping[str, Any]) -> Finding:
    nv = facts["nvml"]
    driver = facts["cuda_driver"]
    variables = facts["env"]["variables"]
    names = facts["gpu_processes"]
    min_free = float(options.get("min_free_pct", DEFAULT_MIN_FREE_PCT))
    if not nv.get("available"):
        return _nvml_unavailable(nv, driver)
    gpus = nvml.gpus_in(nv)
    if nv.get("error") and not gpus:
        return Finding(
            Status.FAIL,
            f"NVML answers but cannot count the GPUs: {nv['error']}",
            (f"NVIDIA driver {nv.get('driver_version')}",),
            _lost_fix(None),
        )
    if not gpus:
        return Finding(Status.SKIP, "NVML lists no NVIDIA GPU on this machine")
    job, source = job_gpus.job_gpus(nv, driver, variables)
    cvd_value = variables.get("CUDA_VISIBLE_DEVICES")
    if not job:
        return Finding(
            Status.SKIP,
            f"no GPU is visible to the job (CUDA_VISIBLE_DEVICES={cvd_value!r}); see cuda.visible_devices",
        )
    findings: list[Finding] = []
    rows: list[dict[str, Any]] = []
    lines: list[str] = []
    shown: list[dict[str, Any]] = []
    used_indices = set()
    # From a pasted nvidia-smi table the job's GPUs are not known: each GPU is judged by its own index.
    pasted = facts["env"].get("variables_known") is False
    for entry in job:
        if entry.gpu is None:
            findings.append(_unknown_device(entry))
            continue
        used_indices.add(entry.gpu.get("index"))
        for unit in _units(entry, pasted):
            unit_findings, row, unit_lines, unit_facts = _judge_unit(unit, names, min_free)
            findings += unit_findings
            rows.append(row)
            lines += unit_lines
            shown.append(unit_facts)
    others = [g for g in gpus if g.get("index") not in used_indices]
    lines += _other_gpu_lines(others, names)
    idle = [g for g in (gpus if pasted else others) if _idle(g, names, min_free)]  # any one it could use
    findings = [_with_idle_hint(f, idle) for f in findings]
    mapping = "from the CUDA driver" if source == "driver" else "predicted from CUDA_VISIBLE_DEVICES"
    jobs = (
        "every GPU the table lists (which the job uses it does not say)"
        if pasted
        else f"GPUs of the job {mapping}"
    )
    details: list[Any] = [*rows, *lines, f"{jobs}; --min-free {min_free:g} %"]
    facts_shown = {"min_free_pct": min_free, "mapping_source": source, "devices": shown}
    if not findings:
        return Finding(Status.PASS, _pass_summary(rows), tuple(details), facts=facts_shown)
    combined = Finding.combine(findings)
    return Finding(
        combined.status, combined.summary, (*combined.details, *details), combined.fix, facts_shown
    )


def _nvml_unavailable(nv: Mapping[str, Any], driver: Mapping[str, Any]) -> Finding:
    error = nv.get("error") or "unknown error"
    driver_present = driver.get("proc_driver_version") or any(
        str(node).startswith("nvidia") and str(node)[6:].isdigit() for node in driver.get("dev_nodes") or []
    )
    if not driver_present:
        return Finding(Status.SKIP, f"no NVIDIA driver on this machine (NVML: {error})")
    hints = {
        "LibRmVersionMismatch": "The NVIDIA kernel module and user-space library differ (a driver update "
        "without a reboot): reboot, or reload the nvidia kernel modules.",
        "DriverNotLoaded": "The NVIDIA kernel module is not loaded: load it (modprobe nvidia) or reinstall "
        "the driver.",
        "NoPermission": "This user may not open /dev/nvidia*: add it to the group that owns them, or run "
        "the container with the GPU devices.",
    }
    return Finding(
        Status.FAIL,
        f"the NVIDIA driver is installed but NVML cannot be queried: {error}",
        tuple(filter(None, [nv.get("error_message"), driver.get("proc_driver_version")])),
        Fix(
            hints.get(error, "Check the driver installation: nvidia-smi shows the same error."),
            ("nvidia-smi",),
        ),
    )


def _unknown_device(entry: job_gpus.JobGpu) -> Finding:
    return Finding(
        Status.FAIL,
        f"{entry.device} (UUID {entry.uuid}) is visible to CUDA but NVML does not list it: its memory "
        "cannot be queried",
        fix=_lost_fix(None),
    )


def _units(entry: job_gpus.JobGpu, pasted: bool = False) -> list[_Unit]:
    gpu = entry.gpu
    assert gpu is not None
    index = gpu.get("index")
    if pasted:
        return [_Unit(f"GPU {index}", gpu, None)]
    if entry.mig is not None:
        return [_Unit(f"{entry.device} (MIG {_slice_name(entry.mig)} on GPU {index})", gpu, entry.mig)]
    slices = gpu.get("mig_devices") or []
    if gpu.get("mig_mode") and slices:
        # A whole GPU in MIG mode: its memory is only reachable through its slices.
        return [_Unit(f"{entry.device} (MIG {_slice_name(m)} on GPU {index})", gpu, m) for m in slices]
    return [_Unit(f"{entry.device} (GPU {index})", gpu, None)]


def _slice_name(mig: Mapping[str, Any]) -> str:
    return f"{str(mig.get('uuid') or '')[4:12]} gi {mig.get('gpu_instance_id')}"


def _processes(unit: _Unit) -> list[Mapping[str, Any]] | None:
    listed = unit.gpu.get("processes")
    if listed is None:
        return None
    if unit.mig is None:
        return list(listed)
    ids = (unit.mig.get("gpu_instance_id"), unit.mig.get("compute_instance_id"))
    return [p for p in listed if (p.get("gpu_instance_id"), p.get("compute_instance_id")) == ids]


def _judge_unit(
    unit: _Unit, names: Mapping[str, Any], min_free: float
) -> tuple[list[Finding], dict[str, Any], list[str], dict[str, Any]]:
    record = unit.mig if unit.mig is not None else unit.gpu
    errors = unit.gpu.get("errors") or {}
    failed = {k: v for k, v in errors.items() if k in _QUERY_ERRORS}
    total, used, free = (record.get(f"memory_{k}_bytes") for k in ("total", "used", "free"))
    row = {
        "device": unit.label,
        "name": unit.gpu.get("name"),
        "total": units.size(total),
        "used": units.size(used),
        "free": units.size(free),
        "free_pct": units.pct(free / total) if total and free is not None else "n/a",
    }
    facts: dict[str, Any] = {
        "device": unit.label,
        "uuid": record.get("uuid"),
        "total_bytes": total,
        "used_bytes": used,
        "free_bytes": free,
        "processes": [],
    }
    findings: list[Finding] = []
    lines: list[str] = []
    if failed or not total or free is None:  # a total of 0 bytes is no figure either (and divides nothing)
        if unit.mig is not None or not _unified_memory(unit.gpu):
            why = ", ".join(f"{k}: {v}" for k, v in failed.items()) or "NVML gives no memory figures"
            finding = Finding(
                Status.FAIL, f"{unit.label} cannot be queried ({why})", fix=_lost_fix(unit.gpu.get("index"))
            )
            return [finding], row, [], facts
        row["free_pct"] = "unified"
        findings.append(_unified_finding(unit))
    processes = _processes(unit)
    strangers = _strangers(processes or [], names)
    row["processes"] = "unknown" if processes is None else len(processes)
    facts["processes"] = [_process_facts(p, names) for p in processes or []]
    for process in processes or []:
        lines.append(f"{unit.label}: {_process_text(process, names)}")
    unlisted = _unlisted_bytes(unit, used, processes)
    if processes is None:
        why = errors.get("processes.compute") or "not reported"
        lines.append(f"{unit.label}: the processes on it are unknown (NVML: {why})")
    if strangers or unlisted:
        held = sum(int(p.get("used_memory_bytes") or 0) for p in strangers) + unlisted
        who = [_process_text(p, names) for p in strangers]
        if unlisted:
            who.append(
                f"unknown processes NVML does not list (another container or user): {units.size(unlisted)}"
            )
        count = len(strangers) + (1 if unlisted else 0)
        # a pasted table names no process as the job's: its processes are not "other" ones
        other = "" if names.get("own_pid") is None and names.get("pid_namespace") == "unknown" else "other "
        summary = (
            f"{unit.label} is in use by {count} {other}process{'es' if count != 1 else ''} holding "
            f"{units.size(held) if held else 'an unknown amount of memory'}: {'; '.join(who[:2])}"
            + (f" and {count - 2} more" if count > 2 else "")
        )
        findings.append(Finding(Status.WARN, summary, tuple(who[2:]), _busy_fix()))
    if free is None or not total:  # a unified-memory GPU's: no figures to compare
        return findings, row, lines, facts
    share = free / total * 100
    if share < min_free:
        # a pasted table that does not list the processes cannot say whose the memory is
        whose = (
            f": {units.size(used)} held by processes the table does not list (another job's, or this one's)"
            if processes is None and used
            else ""
        )
        findings.append(
            Finding(
                Status.WARN,
                f"{unit.label} has {units.pct(free / total)} free ({units.size(free)} of "
                f"{units.size(total)}), below --min-free {min_free:g} %{whose}",
                fix=_busy_fix(),
            )
        )
    return findings, row, lines, facts


def _unified_memory(gpu: Mapping[str, Any]) -> bool:
    """A GPU whose memory is the system's: NVML answered its memory query NotSupported (and nothing else
    failed), or its name is one of those GPUs' while its figures are missing."""
    errors = gpu.get("errors") or {}
    if any(errors.get(key) not in (None, "NotSupported") for key in _QUERY_ERRORS):
        return False
    named = _UNIFIED_MEMORY_GPUS.search(str(gpu.get("name") or "")) is not None
    return errors.get("memory") == "NotSupported" or named


def _unified_finding(unit: _Unit) -> Finding:
    name = unit.gpu.get("name") or "this GPU"
    return Finding(
        Status.SKIP,
        f"{unit.label} has no memory of its own ({name}: unified memory, the system's RAM shared with the "
        "CPU): NVML reports no figures for it, so its free memory is not measured here",
        (
            f"{unit.label}: the memory it can use is the system's (free -h); inside the job, "
            "torch.cuda.mem_get_info() gives what CUDA can allocate",
        ),
    )


def _strangers(processes: Sequence[Mapping[str, Any]], names: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    ours = {names.get("own_pid"), *(names.get("ancestors") or [])}
    return [p for p in processes if p.get("pid") not in ours]


def _unlisted_bytes(unit: _Unit, used: int | None, processes: Sequence[Mapping[str, Any]] | None) -> int:
    """Used memory no listed process accounts for, when it is large enough to be someone else's."""
    if used is None or unit.mig is not None or processes is None:
        return 0  # per-process memory is not available inside MIG slices; processes not known: no stranger
    listed = sum(int(p.get("used_memory_bytes") or 0) for p in processes or [])
    if processes and any(p.get("used_memory_bytes") is None for p in processes):
        return 0  # the listed processes' memory is unknown: nothing to compare with
    margin = UNLISTED_BYTES if unit.gpu.get("memory_reserved_bytes") is not None else UNLISTED_BYTES_V1
    unlisted = used - listed
    return unlisted if unlisted >= margin else 0


def _name(pid: Any, names: Mapping[str, Any]) -> str:
    info = (names.get("processes") or {}).get(str(pid)) or {}
    status = info.get("status")
    if status == "found":
        user = f" ({info['user']})" if info.get("user") else ""
        return f"{info.get('name')}{user}"
    reasons = {
        "other_namespace": "unknown: NVML reports host PIDs and this container has its own PID namespace",
        "gone": "unknown: it has exited",
        "denied": "unknown: not allowed to inspect it",
    }
    return reasons.get(str(status), "unknown")


def _process_text(process: Mapping[str, Any], names: Mapping[str, Any]) -> str:
    memory = process.get("used_memory_bytes")
    held = units.size(memory) if memory is not None else "memory n/a"
    ours = process.get("pid") in {names.get("own_pid"), *(names.get("ancestors") or [])}
    return f"pid {process.get('pid')} {_name(process.get('pid'), names)}, {held}" + (
        " (this job)" if ours else ""
    )


def _process_facts(process: Mapping[str, Any], names: Mapping[str, Any]) -> dict[str, Any]:
    info = (names.get("processes") or {}).get(str(process.get("pid"))) or {}
    return {
        "pid": process.get("pid"),
        "name": info.get("name"),
        "user": info.get("user"),
        "used_memory_bytes": process.get("used_memory_bytes"),
        "kind": process.get("kind"),
    }


def _other_gpu_lines(others: Sequence[Mapping[str, Any]], names: Mapping[str, Any]) -> list[str]:
    lines = []
    for gpu in others:
        processes = gpu.get("processes") or []
        if processes:
            texts = "; ".join(_process_text(p, names) for p in processes[:3])
            lines.append(f"GPU {gpu.get('index')} (not used by this job): {texts}")
    return lines


IDLE_USED_SHARE = 0.01
"""A GPU whose processes are not known (a pasted table cut above them) counts as idle when it holds less than
this share of its memory: nothing runs on it that holds memory."""


def _idle(gpu: Mapping[str, Any], names: Mapping[str, Any], min_free: float) -> bool:
    total, free = gpu.get("memory_total_bytes"), gpu.get("memory_free_bytes")
    used = gpu.get("memory_used_bytes")
    processes = gpu.get("processes")
    unlisted_but_empty = processes is None and used is not None and total and used < IDLE_USED_SHARE * total
    return bool(
        total
        and free is not None
        and free / total * 100 >= min_free
        and (processes == [] or unlisted_but_empty)
        and not gpu.get("mig_mode")
    )


def _busy_fix() -> Fix:
    return Fix(
        "Wait for the other processes, stop them, or give the job GPUs nobody else uses.",
        ("nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv",),
    )


def _with_idle_hint(finding: Finding, idle: Sequence[Mapping[str, Any]]) -> Finding:
    if finding.status is not Status.WARN or finding.fix is None or not idle:
        return finding
    choice = ",".join(str(g.get("uuid") or g.get("index")) for g in idle[:8])
    fix = Fix(
        finding.fix.text + f" {len(idle)} other GPU(s) here are idle.",
        (*finding.fix.commands, f"export CUDA_VISIBLE_DEVICES={choice}"),
    )
    return Finding(finding.status, finding.summary, finding.details, fix, finding.facts)


def _lost_fix(index: Any) -> Fix:
    target = f" -i {index}" if index is not None else ""
    return Fix(
        "NVML cannot read this GPU; GpuIsLost and Unknown usually follow an Xid error in the kernel log. "
        "Check the log, then reset the GPU (nvidia-smi -r) or reboot the machine.",
        (f"nvidia-smi -q{target}", "sudo dmesg | grep -i xid"),
    )


def _pass_summary(rows: Sequence[Mapping[str, Any]]) -> str:
    shown = ", ".join(f"{r['device']} {r['free']} free of {r['total']}" for r in rows[:4])
    more = f", ... ({len(rows)} in all)" if len(rows) > 4 else ""
    return f"{shown}{more}; no other process on the job's GPUs"
