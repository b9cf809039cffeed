"""The judge of check ``cuda.visible_devices`` (declared in ``visible_devices_check``):
which physical GPU is behind each cuda:N.

CUDA_VISIBLE_DEVICES is parsed as CUDA parses it (``cvd``), and the mapping
cuda:N -> physical GPU is taken from the CUDA driver itself (``cuda_driver``
probe, matched to NVML by UUID). Where the driver cannot be asked, the
mapping is predicted from the parse, and says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from torchdoctor.checks.devices import cvd, job_gpus
from torchdoctor.inputs import bounded
from torchdoctor.machine import nvml
from torchdoctor.model import Finding, Fix, Status

_CPU_FALLBACK = " (training silently runs on the CPU)"


def judge(facts: Mapping[str, Any], options: Mapping[str, Any]) -> Finding:
    if facts["env"].get("variables_known") is False:  # a pasted nvidia-smi table says nothing of them
        return Finding(
            Status.SKIP, "CUDA_VISIBLE_DEVICES is not known from these facts: run torchdoctor check there"
        )
    env = facts["env"]["variables"]
    raw = env.get("CUDA_VISIBLE_DEVICES")
    order = env.get("CUDA_DEVICE_ORDER") or "FASTEST_FIRST"
    nv = facts["nvml"]
    gpus = nvml.gpus_in(nv)
    driver = facts["cuda_driver"]
    parsed = cvd.parse(raw)
    resolution = job_gpus.resolve(raw, job_gpus.in_cuda_order(gpus))
    shown_value = "unset" if raw is None else repr(raw)
    facts_shown: dict[str, Any] = {
        "CUDA_VISIBLE_DEVICES": raw,
        "CUDA_DEVICE_ORDER": env.get("CUDA_DEVICE_ORDER"),
        "LOCAL_RANK": env.get("LOCAL_RANK"),
        "parsed": list(parsed.items),
        "issues": [i.kind for i in resolution.issues],
    }
    if not gpus and not driver.get("device_count"):
        return _without_gpus(parsed, resolution, shown_value, nv, facts_shown)

    jobs, source = job_gpus.job_gpus(nv, driver, env)
    rows = [_row(job) for job in jobs]
    facts_shown["mapping"] = rows
    facts_shown["mapping_source"] = source
    findings = [_issue_finding(issue, raw) for issue in _hides_all_first(resolution.issues)]
    findings += _mig_findings(parsed, gpus)
    visible = len(rows)
    if source == "driver" and parsed.mode != "mig":
        predicted = [_row(job) for job in job_gpus.job_gpus(nv, {}, env)[0]]
        findings += _driver_disagrees(rows, predicted)
    findings += _order_finding(gpus, order, parsed)
    findings += _local_rank_finding(env.get("LOCAL_RANK"), visible, raw)
    details: list[Any] = [
        f"CUDA_VISIBLE_DEVICES={shown_value}, CUDA_DEVICE_ORDER={order}",
        "mapping read from the CUDA driver"
        if source == "driver"
        else "mapping predicted from the value and NVML (the CUDA driver could not be asked)",
    ]
    details += rows
    summary = _mapping_summary(raw, rows, len(gpus))
    if not findings:
        return Finding(Status.PASS, summary, tuple(details), facts=facts_shown)
    combined = Finding.combine(findings)
    return Finding(
        combined.status, combined.summary, (*combined.details, summary, *details), combined.fix, facts_shown
    )


def _driver_disagrees(
    actual: Sequence[Mapping[str, Any]], predicted: Sequence[Mapping[str, Any]]
) -> list[Finding]:
    """The driver's mapping is the truth; a different prediction means the numbering is not what it seems."""
    if len(actual) != len(predicted):
        return [
            Finding(
                Status.WARN,
                f"the CUDA driver exposes {len(actual)} GPU(s) where the value predicts {len(predicted)}",
                ("the driver's answer is the one your job gets; the prediction follows PyTorch's parser",),
            )
        ]
    moved = [(a, p) for a, p in zip(actual, predicted, strict=True) if a["uuid"] != p["uuid"]]
    if not moved:
        return []
    first, guess = moved[0]
    return [
        Finding(
            Status.WARN,
            f"{first['device']} is GPU {first['gpu']} ({first['name']}), not GPU {guess['gpu']} "
            f"({guess['name']}) as nvidia-smi's numbering suggests: CUDA orders the GPUs differently",
            tuple(
                f"{a['device']}: driver says GPU {a['gpu']}, nvidia-smi order says GPU {p['gpu']}"
                for a, p in moved
            ),
            Fix(
                "Number GPUs the way nvidia-smi does, or select them by UUID.",
                ("export CUDA_DEVICE_ORDER=PCI_BUS_ID",),
            ),
        )
    ]


def _hides_all_first(issues: Sequence[cvd.CvdIssue]) -> list[cvd.CvdIssue]:
    # The consequence leads the verdict; the entry that caused it follows as evidence.
    return sorted(issues, key=lambda issue: issue.kind != "hides_all")


def _row(job: job_gpus.JobGpu) -> dict[str, Any]:
    gpu = job.gpu or {}
    return {
        "device": job.device,
        "gpu": gpu.get("index"),
        "name": gpu.get("name"),
        "uuid": job.uuid,
        "pci_bus_id": gpu.get("pci_bus_id"),
    }


def _physical(row: Mapping[str, Any]) -> str:
    gpu = f"GPU {row['gpu']}" if row["gpu"] is not None else f"unknown GPU {row['uuid']}"
    uuid = str(row.get("uuid") or "")
    return f"MIG {uuid[4:12]} on {gpu}" if uuid.startswith("MIG-") else gpu


def _mapping_summary(raw: str | None, rows: Sequence[Mapping[str, Any]], total: int) -> str:
    if not rows:
        return f"no GPU is visible (CUDA_VISIBLE_DEVICES={raw!r})"
    pairs = ", ".join(f"{r['device']} -> {_physical(r)}" for r in rows[:4])
    more = f", ... ({len(rows)} in all)" if len(rows) > 4 else ""
    if raw is None:
        return f"all {len(rows)} GPU(s) visible (CUDA_VISIBLE_DEVICES unset): {pairs}{more}"
    return f"CUDA_VISIBLE_DEVICES={raw}: {len(rows)} of {total} GPU(s) visible, {pairs}{more}"


def _issue_finding(issue: cvd.CvdIssue, raw: str | None, gpus_here: bool = True) -> Finding:
    message = issue.message + (_CPU_FALLBACK if issue.kind == "hides_all" and gpus_here else "")
    fix = Fix(
        "Set CUDA_VISIBLE_DEVICES to a comma-separated list of distinct GPU indices or full UUIDs "
        "(nvidia-smi -L prints them), or unset it to use every GPU.",
        ("nvidia-smi -L",),
    )
    return Finding(Status.WARN, message, (), fix)


def _order_finding(gpus: Sequence[Mapping[str, Any]], order: str, parsed: cvd.ParsedCvd) -> list[Finding]:
    names = sorted({str(g.get("name")) for g in gpus})
    if order == "PCI_BUS_ID" or len(names) < 2:
        return []
    return [
        Finding(
            Status.WARN,
            f"CUDA_DEVICE_ORDER is {order} on a machine with different GPU models: cuda:N and the "
            "integers in CUDA_VISIBLE_DEVICES follow CUDA's fastest-first order, not nvidia-smi's",
            tuple(f"GPU {g.get('index')}: {g.get('name')} at {g.get('pci_bus_id')}" for g in gpus),
            Fix("Make CUDA's numbering match nvidia-smi's.", ("export CUDA_DEVICE_ORDER=PCI_BUS_ID",)),
        )
    ]


def _local_rank_finding(local_rank: str | None, visible: int, raw: str | None) -> list[Finding]:
    rank = bounded.whole_number(local_rank)
    if rank is None:
        return []
    if rank < visible:
        return []
    return [
        Finding(
            Status.WARN,
            f"LOCAL_RANK={rank} but only {visible} GPU(s) are visible: cuda:{rank} does not exist "
            "('invalid device ordinal')",
            (f"CUDA_VISIBLE_DEVICES={'unset' if raw is None else repr(raw)}",),
            Fix(
                "Start at most as many processes per node as visible GPUs (torchrun --nproc-per-node), "
                "or make more GPUs visible."
            ),
        )
    ]


def _without_gpus(
    parsed: cvd.ParsedCvd,
    resolution: cvd.Resolution,
    shown_value: str,
    nv: Mapping[str, Any],
    facts_shown: dict[str, Any],
) -> Finding:
    why = f"no NVIDIA GPU on this machine (NVML: {nv.get('error') or 'no devices'})"
    issues = [*parsed.issues, *_malformed_uuids(parsed)]
    if not issues:
        return Finding(Status.SKIP, f"{why}; {_meaning_here(parsed, shown_value)}", facts=facts_shown)
    if (parsed.raw or "").strip() in ("-1", ""):
        # The idioms that hide every GPU on purpose: here there is none to hide.
        hidden = next(i.message for i in issues if i.kind == "hides_all")
        return Finding(Status.SKIP, f"{why}; {hidden}", facts=facts_shown)
    combined = Finding.combine(
        [_issue_finding(issue, parsed.raw, gpus_here=False) for issue in _hides_all_first(issues)]
    )
    return Finding(combined.status, combined.summary, (*combined.details, why), combined.fix, facts_shown)


_UUID_BODY = frozenset("0123456789abcdefABCDEF-")


def _malformed_uuids(parsed: cvd.ParsedCvd) -> list[cvd.CvdIssue]:
    """GPU- entries that cannot be a UUID prefix: on a GPU machine they would match no GPU."""
    if parsed.mode != "uuid":
        return []
    bad = [(pos, str(item)) for pos, item in enumerate(parsed.items) if not set(str(item)[4:]) <= _UUID_BODY]
    return [
        cvd.CvdIssue(
            "malformed_uuid",
            pos,
            item,
            f"entry {pos} {item!r} is not a GPU UUID: after 'GPU-' come hex digits and dashes, as "
            "`nvidia-smi -L` prints them, so on a GPU machine it would match no GPU",
        )
        for pos, item in bad
    ]


def _meaning_here(parsed: cvd.ParsedCvd, shown_value: str) -> str:
    """What the value would select, said where there is no GPU to select (so nothing is wrong here)."""
    if parsed.mode == "uuid":
        return (
            f"CUDA_VISIBLE_DEVICES={shown_value} selects GPUs by UUID, which is well formed; "
            "there is no GPU here to match it against"
        )
    if parsed.mode == "mig":
        return (
            f"CUDA_VISIBLE_DEVICES={shown_value} selects a MIG instance; there is no GPU here to "
            "match it against"
        )
    return f"CUDA_VISIBLE_DEVICES is {shown_value}"


def _mig_findings(parsed: cvd.ParsedCvd, gpus: Sequence[Mapping[str, Any]]) -> list[Finding]:
    """A MIG- value is only useful where a GPU has MIG enabled and that instance exists."""
    if parsed.mode != "mig" or not parsed.items:
        return []
    wanted = str(parsed.items[0])
    instances = [str(m.get("uuid")) for g in gpus for m in g.get("mig_devices") or []]
    fix = Fix(
        "Name a MIG instance this machine has (nvidia-smi -L lists them under their GPU), or select "
        "whole GPUs by index or GPU- UUID.",
        ("nvidia-smi -L",),
    )
    if not any(g.get("mig_mode") for g in gpus):
        return [
            Finding(
                Status.WARN,
                f"CUDA_VISIBLE_DEVICES={wanted!r} names a MIG instance, but no GPU here has MIG "
                "enabled: the job sees no GPU" + _CPU_FALLBACK,
                (),
                fix,
            )
        ]
    legacy = wanted.startswith("MIG-GPU-")  # MIG-GPU-<uuid>/<gi>/<ci>, before driver R470
    if not legacy and not any(uuid.startswith(wanted) for uuid in instances):
        return [
            Finding(
                Status.WARN,
                f"CUDA_VISIBLE_DEVICES={wanted!r} matches none of this machine's {len(instances)} MIG "
                "instance(s): the job sees no GPU" + _CPU_FALLBACK,
                tuple(instances),
                fix,
            )
        ]
    return []
