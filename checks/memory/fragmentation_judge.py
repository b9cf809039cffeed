"""The judge of check ``gpu.fragmentation`` (declared in ``fragmentation_check``):
the caching allocator's configuration and how cut up its free memory is.

One judge for three sources of allocator facts (the ``allocator`` facts):

1. the allocator variables (``env`` facts), judged on every run through :mod:`alloc_conf`;
2. a snapshot file from ``torch.cuda.memory._dump_snapshot()`` (``--memory-snapshot FILE``),
   summarised by the ``allocator`` probe;
3. the live allocator of a training process, read by :func:`torchdoctor.memory_report`.

Allocator statistics exist only inside the process that allocates, so without a snapshot the
second half of the check is a ``skip`` that says how to get one.

Thresholds (heuristics of research/memory_bandwidth.md §1.4 and §1.6), per large pool:

- ``warn``: free blocks inside segments that are also in use (inactive split) are at least 25 %
  of the pool's reserved memory and at least 256 MiB, and external fragmentation
  (1 - largest free block / free bytes) is at least 50 %; or the allocator had to retry a
  cudaMalloc after flushing its cache (``num_alloc_retries`` > 0).
- ``fail``: inactive split at least 50 % of reserved with external fragmentation at least 75 %;
  or an out-of-memory error for a request smaller than the free bytes the cache held, which no
  single free block could serve.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from torchdoctor.checks import units
from torchdoctor.checks.memory import alloc_conf
from torchdoctor.inputs import allocator_segments
from torchdoctor.machine import nvml
from torchdoctor.model import Finding, Fix, Status

SPLIT_WARN = 0.25
SPLIT_FAIL = 0.50
EXTERNAL_WARN = 0.50
EXTERNAL_FAIL = 0.75
MIN_SPLIT_BYTES = 256 * 2**20

SNAPSHOT_HOWTO = (
    "in the job: torch.cuda.memory._record_memory_history() early (to keep the OOM history), then "
    "torch.cuda.memory._dump_snapshot('snapshot.pickle') after a few steps or in an OOM handler",
    "then here: torchdoctor check --only gpu.fragmentation --memory-snapshot snapshot.pickle",
    "or inside the job: print(torchdoctor.memory_report())",
)
_DOCS = "https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf"


# ---------------------------------------------------------------------------------------------
# judge


def judge(facts: Mapping[str, Any], options: Mapping[str, Any]) -> Finding:
    variables = (facts.get("env") or {}).get("variables") or {}
    allocator = facts.get("allocator") or {}
    reading = alloc_conf.read(variables, alloc_conf.accepted_keys(allocator.get("torch_keys")))
    config_findings = _config_findings(reading)
    config_line = f"allocator config: {alloc_conf.describe(reading)}"
    shown: dict[str, Any] = {
        "alloc_conf": {
            "variable": reading.used.variable if reading.used else None,
            "value": reading.used.raw if reading.used else None,
            "options": dict(reading.used.options) if reading.used else {},
            "issues": [issue.message for issue in reading.issues],
        },
        "source": allocator.get("source"),
    }
    if allocator.get("error"):
        error = Finding(
            Status.ERROR,
            str(allocator["error"]),
            fix=Fix("Pass a file written by torch.cuda.memory._dump_snapshot()."),
        )
        return _finish([*config_findings, error], None, [], shown)
    devices = list(allocator.get("devices") or [])
    if allocator.get("source") is None or not devices:
        skip = _no_data(allocator, facts.get("nvml"), devices)
        if config_findings:
            return _finish(config_findings, skip, [], shown)
        state = _config_state(reading)
        return Finding(Status.SKIP, f"{state}; {skip.summary}", (*skip.details, config_line), facts=shown)
    shown["devices"] = [_shown_device(d) for d in devices]
    setting = _allocator_setting(allocator, reading)
    shown["allocator_setting"] = {"variable": setting.variable, "options": dict(setting.options)}
    findings = list(config_findings)
    details: list[Any] = []
    for device in devices:
        # a summary, or a pasted snapshot whose blocks were not printed: totals only
        totals_only = allocator.get("source") == "memory_summary" or (
            allocator.get("source") == "memory_snapshot" and device.get("largest_free_block_bytes") is None
        )
        findings += (
            _summary_findings(device, setting, allocator.get("source") == "memory_snapshot")
            if totals_only
            else _device_findings(device, setting)
        )
        details += _rows(device)
    details += [*([] if config_findings else [setting.line]), *_source_lines(allocator)]
    ok = Finding(Status.PASS, _pass_summary(devices))
    return _finish(findings, ok, details, shown)


def _finish(
    findings: Sequence[Finding], ok: Finding | None, details: Sequence[Any], shown: dict[str, Any]
) -> Finding:
    if not findings:
        assert ok is not None
        return Finding(ok.status, ok.summary, (*ok.details, *details), ok.fix, shown)
    combined = Finding.combine(findings)
    # A skipped half is one line of evidence under a problem with the other half.
    extra = () if ok is None or ok.status is Status.PASS else (f"{ok.status.value}: {ok.summary}",)
    return Finding(
        combined.status, combined.summary, (*combined.details, *extra, *details), combined.fix, shown
    )


def _no_data(allocator: Mapping[str, Any], nv: Mapping[str, Any] | None, devices: list[Any]) -> Finding:
    reason = allocator.get("unavailable_reason")
    if reason:
        return Finding(Status.SKIP, f"no allocator data: {reason}")
    if allocator.get("source") == "snapshot_file" and not devices:
        return Finding(
            Status.SKIP,
            "the snapshot holds no segments (nothing was allocated, or backend:cudaMallocAsync, "
            "which keeps no segments of its own)",
        )
    nv = nv or {}
    gpus = nvml.gpus_in(nv)
    where = (
        "its statistics live inside the training process"
        if gpus
        else f"no NVIDIA GPU here (NVML: {nv.get('error') or 'no devices'})"
    )
    return Finding(
        Status.SKIP,
        f"no allocator data: {where}; judge a snapshot with --memory-snapshot FILE "
        "or call torchdoctor.memory_report() in the job",
        SNAPSHOT_HOWTO,
    )


def _config_state(reading: alloc_conf.ConfReading) -> str:
    if reading.used is None:
        return "no allocator variable set"
    if not reading.issues:
        return f"{reading.used.variable}={reading.used.raw!r} is valid"
    return f"{reading.used.variable}={reading.used.raw!r}"


def _config_findings(reading: alloc_conf.ConfReading) -> list[Finding]:
    findings = []
    used = reading.used
    for issue in reading.issues:
        status = Status.FAIL if issue.severity == alloc_conf.FAIL else Status.WARN
        value = f"{used.variable}={used.raw!r}" if used else ""
        consequence = " (torch raises at the first CUDA allocation)" if status is Status.FAIL and used else ""
        where = used.variable if used else "the variable"
        text = (
            issue.fix or f"Correct {issue.key or 'the value'} in {where}; the options are listed at {_DOCS}"
        )
        commands = (f"export {used.variable}={issue.value}",) if used and issue.value is not None else ()
        findings.append(
            Finding(status, issue.message + consequence, (value,) if value else (), Fix(text, commands))
        )
    if reading.no_caching:
        findings.append(
            Finding(
                Status.WARN,
                f"{alloc_conf.NO_CACHING} is set: every allocation is a cudaMalloc and every free a "
                "cudaFree (a debugging switch; slow, and allocator statistics read zero)",
                fix=Fix("Unset it outside of memory debugging.", (f"unset {alloc_conf.NO_CACHING}",)),
            )
        )
    return findings


@dataclass(frozen=True)
class AllocatorSetting:
    """The allocator configuration of the process whose memory is judged, and where it was read."""

    expandable: bool | None
    """None: not known (a snapshot that does not record its job's settings)."""
    variable: str
    options: Mapping[str, str]
    line: str
    """The evidence line that says what it is and where it comes from."""


def _allocator_setting(allocator: Mapping[str, Any], reading: alloc_conf.ConfReading) -> AllocatorSetting:
    """A snapshot file's own job's settings (it records them), never this machine's variable: the snapshot
    may come from another machine. In the job itself (memory_report), this process's variables."""
    if allocator.get("source") not in ("snapshot_file", "memory_summary", "memory_snapshot"):
        variable = reading.used.variable if reading.used else "PYTORCH_CUDA_ALLOC_CONF"
        options = dict(reading.used.options) if reading.used else {}
        return AllocatorSetting(
            reading.expandable_segments,
            variable,
            options,
            f"allocator config: {alloc_conf.describe(reading)}",
        )
    settings = allocator.get("allocator_settings")
    if not isinstance(settings, Mapping):
        return AllocatorSetting(
            None,
            "PYTORCH_CUDA_ALLOC_CONF",
            {},
            f"the {'summary' if allocator.get('source') == 'memory_summary' else 'snapshot'} does not record "
            "its job's allocator settings (this machine's variables are not the job's)",
        )
    expandable = bool(settings.get("expandable_segments"))
    variable, raw = next(
        ((name, str(settings[name])) for name in alloc_conf.VARIABLES if isinstance(settings.get(name), str)),
        ("PYTORCH_CUDA_ALLOC_CONF", ""),
    )
    options = {}
    for part in raw.split(","):
        key, _, value = part.partition(":")
        if key.strip() and value.strip():
            options[key.strip()] = value.strip()
    said = f"{variable}={raw!r}" if raw else "no allocator variable set"
    return AllocatorSetting(
        expandable,
        variable,
        options,
        f"the job's allocator, recorded in the snapshot: {said} (expandable_segments {expandable})",
    )


def _device_findings(device: Mapping[str, Any], setting: AllocatorSetting) -> list[Finding]:
    label = f"cuda:{device['device']}"
    findings: list[Finding] = []
    fix = fragmentation_fix(setting)
    for pool in device.get("pools") or []:
        # Blocks under 1 MiB live in 2 MiB segments, whose free space never serves a large request.
        if not str(pool["pool"]).startswith("large"):
            continue
        finding = _pool_finding(label, pool, fix)
        if finding is not None:
            findings.append(finding)
    findings += _oom_findings(label, device, fix)
    findings += _counter_findings(label, device, fix, bool(findings))
    return findings


SUMMARY_GAP = 0.50
"""A pasted memory summary: reserved memory no tensor uses, as a share of the reserved, from which the gap is
judged (with at least MIN_SPLIT_BYTES of it)."""


def _summary_findings(
    device: Mapping[str, Any], setting: AllocatorSetting, snapshot: bool = False
) -> list[Finding]:
    """A ``torch.cuda.memory_summary()`` table: reserved against allocated, the non-releasable part, the OOM
    and retry counters. Without per-block figures the largest free block is unknown, so the verdict says what
    the totals show and no more."""
    label = f"cuda:{device['device']}"
    reserved, allocated = device.get("reserved_bytes"), device.get("allocated_bytes")
    if reserved is None or allocated is None or reserved <= 0:
        return []
    gap = max(int(reserved) - int(allocated), 0)
    split = device.get("inactive_split_bytes")
    counters = device.get("counters") or {}
    ooms, retries = int(counters.get("num_ooms") or 0), int(counters.get("num_alloc_retries") or 0)
    figures = (
        f"{_mb(reserved)} reserved against {_mb(allocated)} allocated: {_mb(gap)} sits in the allocator's "
        "segments unused"
    )
    details = [
        *([f"{_mb(split)} of it non-releasable (free inside segments also in use)"] if split else []),
        *(
            []
            if snapshot
            else [f"CUDA OOMs: {ooms}, cudaMalloc retries: {retries} (from the summary's counters)"]
        ),
        "the pasted snapshot's blocks were not printed: the largest free block is unknown; a snapshot file "
        "(torch.cuda.memory._dump_snapshot) shows it"
        if snapshot
        else "the summary has no per-block figures: the largest free block is unknown; a snapshot "
        "(torch.cuda.memory._dump_snapshot) shows it",
    ]
    fix = fragmentation_fix(setting)
    if gap < MIN_SPLIT_BYTES or gap < SUMMARY_GAP * int(reserved):
        return []
    if ooms:
        return [
            Finding(
                Status.FAIL,
                f"{label} ran out of memory with {figures}: the memory was reserved but cut up, not used "
                "(fragmentation)",
                tuple(details),
                fix,
            )
        ]
    status = Status.WARN if retries or (split is not None and split >= MIN_SPLIT_BYTES) else Status.PASS
    if status is Status.PASS:
        return []
    return [Finding(status, f"{label}: {figures}", tuple(details), fix)]


def _mb(n: Any) -> str:
    """Bytes as the summary prints them (torch's MB are MiB)."""
    return f"{int(n) / 2**20:.0f} MB"


def _pool_finding(label: str, pool: Mapping[str, Any], fix: Fix) -> Finding | None:
    reserved = int(pool["reserved_bytes"])
    split = int(pool["inactive_split_bytes"])
    if reserved <= 0 or split < MIN_SPLIT_BYTES:
        return None
    split_ratio = split / reserved
    external = float(pool["external_fragmentation"])
    if split_ratio >= SPLIT_FAIL and external >= EXTERNAL_FAIL:
        status = Status.FAIL
    elif split_ratio >= SPLIT_WARN and external >= EXTERNAL_WARN:
        status = Status.WARN
    else:
        return None
    summary = (
        f"{label} {pool['pool']} pool is fragmented: {units.size(split)} ({units.pct(split_ratio)} of "
        f"{units.size(reserved)} reserved) is free inside segments in use, and the largest free block "
        f"is {units.size(pool['largest_free_block_bytes'])} (external fragmentation {units.pct(external)})"
    )
    details = (
        f"{pool['free_blocks']} free blocks in {pool['segments']} segments; a request larger than "
        f"{units.size(pool['largest_free_block_bytes'])} needs a new cudaMalloc even with "
        f"{units.size(pool['free_bytes'])} free",
        f"thresholds: warn at {units.pct(SPLIT_WARN)} split and {units.pct(EXTERNAL_WARN)} external "
        f"fragmentation, fail at {units.pct(SPLIT_FAIL)} and {units.pct(EXTERNAL_FAIL)}",
    )
    return Finding(status, summary, details, fix)


def _oom_findings(label: str, device: Mapping[str, Any], fix: Fix) -> list[Finding]:
    ooms = [o for o in device.get("ooms") or [] if o.get("size")]
    if not ooms:
        return []
    largest = max(ooms, key=lambda o: int(o["size"]))
    size = int(largest["size"])
    free = int(device.get("free_bytes") or 0)
    biggest_block = int(device.get("largest_free_block_bytes") or 0)
    count = f"{len(ooms)} out-of-memory error{'s' if len(ooms) != 1 else ''}"
    gpu_free = largest.get("device_free")
    gpu_free_text = f"; the GPU had {units.size(gpu_free)} left" if gpu_free is not None else ""
    if free >= size > biggest_block:
        return [
            Finding(
                Status.FAIL,
                f"{label} ran out of memory asking for {units.size(size)} while {units.size(free)} sat "
                f"free in the allocator's segments, none of it in a block that large: fragmentation",
                (
                    f"{count} in the snapshot's history; largest free block {units.size(biggest_block)}"
                    f"{gpu_free_text}",
                ),
                fix,
            )
        ]
    return [
        Finding(
            Status.WARN,
            f"{label} ran out of memory asking for {units.size(size)}: the cache held only "
            f"{units.size(free)} free, so the GPU was full rather than fragmented",
            (f"{count} in the snapshot's history{gpu_free_text}",),
            Fix(
                "Reduce what the step holds at its peak (batch size, activation checkpointing, "
                "mixed precision), or check for other processes on the GPU (gpu.memory)."
            ),
        )
    ]


def _counter_findings(label: str, device: Mapping[str, Any], fix: Fix, fragmented: bool) -> list[Finding]:
    counters = device.get("counters") or {}
    findings = []
    retries = counters.get("num_alloc_retries")
    if retries:
        findings.append(
            Finding(
                Status.WARN,
                f"{label}: {retries} cudaMalloc retr{'ies' if retries != 1 else 'y'}: each one flushed the "
                "allocator's cache and synchronised every stream before trying again",
                (
                    "num_alloc_retries from torch.cuda.memory_stats(); steady growth means the cache "
                    "keeps running short",
                ),
                fix,
            )
        )
    ooms = counters.get("num_ooms")
    if ooms and not device.get("ooms"):
        findings.append(
            Finding(
                Status.FAIL if fragmented else Status.WARN,
                f"{label}: {ooms} out-of-memory error{'s' if ooms != 1 else ''} in this process"
                + (" with fragmented free memory" if fragmented else ""),
                ("num_ooms from torch.cuda.memory_stats()",),
                fix,
            )
        )
    return findings


def fragmentation_fix(setting: AllocatorSetting) -> Fix:
    """The fix for fragmented free memory; expandable segments first unless they are already on."""
    lifetimes = (
        "allocate long-lived tensors (weights, optimizer state, persistent buffers) before the training "
        "loop, so they do not interleave with short-lived activations"
    )
    empty_cache = (
        "call torch.cuda.empty_cache() only at a phase change where tensor sizes change (after "
        "evaluation, after a resize), never every step"
    )
    if setting.expandable:
        return Fix(
            f"Expandable segments are already on, so what is left is interleaved lifetimes: {lifetimes}; "
            f"{empty_cache}."
        )
    options = {**setting.options, "expandable_segments": "True"}
    value = ",".join(f"{k}:{v}" for k, v in options.items())
    unless = " in the job, unless it already sets it" if setting.expandable is None else " in the job"
    return Fix(
        f"Let segments grow in place so free memory stays in one block: set expandable_segments:True{unless} "
        f"(before the first CUDA call); {empty_cache}; {lifetimes}.",
        (f"export {setting.variable}={value}",),
    )


def _rows(device: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "device": f"cuda:{device['device']}",
            "pool": pool["pool"],
            "reserved": units.size(pool["reserved_bytes"]),
            "allocated": units.size(pool["allocated_bytes"]),
            "free": units.size(pool["free_bytes"]),
            "largest_free": units.size(pool["largest_free_block_bytes"]),
            "fragmentation": units.pct(pool["external_fragmentation"]),
            "segments": pool["segments"],
        }
        for pool in device.get("pools") or []
    ]


def _source_lines(allocator: Mapping[str, Any]) -> list[str]:
    if allocator.get("source") == "memory_summary":
        return ["from a pasted torch.cuda.memory_summary() table"]
    if allocator.get("source") == "memory_snapshot":
        return [
            f"from pasted torch.cuda.memory_snapshot() segments ({allocator.get('segments', 0)} segments)"
        ]
    if allocator.get("source") == "snapshot_file":
        return [f"from the snapshot {allocator.get('path')} ({allocator.get('segments', 0)} segments)"]
    return ["from this process's allocator (torch.cuda.memory_stats() and the live snapshot)"]


def _shown_device(device: Mapping[str, Any]) -> dict[str, Any]:
    keys = ("device", "reserved_bytes", "allocated_bytes", "free_bytes", "inactive_split_bytes")
    shown = {k: device.get(k) for k in keys}
    shown["largest_free_block_bytes"] = device.get("largest_free_block_bytes")
    shown["pools"] = [
        {k: p[k] for k in ("pool", "reserved_bytes", "inactive_split_bytes", "external_fragmentation")}
        for p in device.get("pools") or []
    ]
    shown["ooms"] = list(device.get("ooms") or [])
    if device.get("counters"):
        shown["counters"] = dict(device["counters"])
    return shown


def _total(n: Any, what: str) -> str:
    """A memory summary's total, or that the pasted table does not show it (unknown, not zero)."""
    return f"{what} unknown" if n is None else f"{_mb(n)} {what}"


def _pass_summary(devices: Sequence[Mapping[str, Any]]) -> str:
    parts = []
    for device in devices[:4]:
        if device.get("largest_free_block_bytes") is None:  # a memory summary: totals only
            parts.append(
                f"cuda:{device['device']}: {_total(device.get('reserved_bytes'), 'reserved')}, "
                f"{_total(device.get('allocated_bytes'), 'allocated')}"
            )
            continue
        free = int(device.get("free_bytes") or 0)
        largest = int(device.get("largest_free_block_bytes") or 0)
        reserved = units.size(device.get("reserved_bytes"))
        if free:
            frag = units.pct(allocator_segments.fragmentation(largest, free))
            parts.append(
                f"cuda:{device['device']}: {units.size(free)} of {reserved} reserved is free, the largest "
                f"block {units.size(largest)} (fragmentation {frag})"
            )
        else:
            parts.append(f"cuda:{device['device']}: {reserved} reserved, no free blocks")
    more = f"; {len(devices) - 4} more device(s)" if len(devices) > 4 else ""
    return "; ".join(parts) + more
