"""The judge of check ``transfer.pinned`` (declared in ``pinned_check``):
host-to-device and device-to-host throughput of every visible GPU.

Judges the ``pinned_bandwidth`` probe (:mod:`bandwidth_probe`) by research/memory_bandwidth.md
§2.9, each direction against its own expected rate (:mod:`link_bandwidth`):

- ``fail``: pinned throughput below 60 % of what the link should carry; a link running below the
  generation or width the GPU and its slot allow, read under load in P0 (DCGM's rule: never at
  idle, when GPUs lower the link speed on purpose); ``pin_memory()`` failing.
- ``warn``: pinned throughput from 60 % to 85 % of expected; pinned copies not faster than
  pageable ones (except over NVLink-C2C, where pageable memory is as fast by design, vortex-data/
  vortex PR #7815); the measuring thread confined to a NUMA node other than the GPU's.
- ``skip``: no CUDA device (a CPU-only torch, no driver, no GPU).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from torchdoctor.checks import units
from torchdoctor.checks.probes import torch_probe
from torchdoctor.checks.transfer import link_bandwidth
from torchdoctor.model import Finding, Fix, Status

_DIRECTIONS = (("h2d", "H2D"), ("d2h", "D2H"))
_STATUS = {"pass": Status.PASS, "warn": Status.WARN, "fail": Status.FAIL}


def judge(facts: Mapping[str, Any], options: Mapping[str, Any]) -> Finding:
    bandwidth = facts["pinned_bandwidth"]
    if bandwidth.get("torch_error"):
        return torch_probe.needs_torch(bandwidth["torch_error"])
    if not bandwidth.get("available"):
        return Finding(Status.SKIP, f"no GPU to measure: {bandwidth.get('reason')}")
    devices = list(bandwidth.get("devices") or [])
    if not devices:
        return Finding(Status.SKIP, "no GPU to measure: CUDA lists no device")
    findings: list[Finding] = []
    rows: list[dict[str, Any]] = []
    lines: list[str] = []
    shown: list[dict[str, Any]] = []
    for device in devices:
        device_findings, device_rows, device_lines, device_facts = _judge_device(device, bandwidth)
        findings += device_findings
        rows += device_rows
        lines += device_lines
        shown.append(device_facts)
    details: tuple[Any, ...] = (*rows, *lines)
    facts_shown = {
        "devices": shown,
        "memlock_bytes": bandwidth.get("memlock_bytes"),
        "quick": bandwidth.get("quick"),
    }
    graded = [r for r in rows if r["grade"] != "n/a"]
    if not findings:
        if not graded:
            return Finding(
                Status.SKIP,
                "measured, but no expected rate: NVML could not read the links",
                details,
                facts=facts_shown,
            )
        return Finding(Status.PASS, _pass_summary(rows), details, facts=facts_shown)
    combined = Finding.combine(findings)
    return Finding(
        combined.status, combined.summary, (*combined.details, *details), combined.fix, facts_shown
    )


def _not_measured(label: str, error: str) -> Finding:
    return Finding(
        Status.WARN,
        f"{label} could not be measured: {error}",
        (),
        Fix(
            "Copies to this GPU failed (often no free memory for the 256 MiB buffer: another process holds "
            "it, see gpu.memory); free the GPU and measure again.",
            ("torchdoctor check --only gpu.memory,transfer.pinned",),
        ),
    )


def _judge_device(
    device: Mapping[str, Any], bandwidth: Mapping[str, Any]
) -> tuple[list[Finding], list[dict[str, Any]], list[str], dict[str, Any]]:
    label = f"cuda:{device.get('index')}"
    if device.get("error"):
        return [_not_measured(label, str(device["error"]))], [], [], {"index": device.get("index")}
    link = device.get("link") or {}
    pcie = link.get("pcie") or {}
    c2c = bool(link.get("c2c_enabled"))
    under_load = link.get("performance_state") == 0
    findings: list[Finding] = []
    lines: list[str] = []
    link_finding, link_lines = _link(label, link, pcie, c2c, under_load, device.get("pci_bus_id"))
    findings += link_finding
    lines += link_lines
    target = _target(pcie, c2c, under_load)
    numa_finding = _numa(label, device.get("numa") or {})
    findings += numa_finding
    pinned = device.get("pinned") or {}
    pageable = device.get("pageable") or {}
    if not pinned.get("ok"):
        findings.append(_pin_failure(label, pinned, bandwidth.get("memlock_bytes", {})))
    rows = []
    for key, name in _DIRECTIONS:
        measured = (pinned.get(key) or {}).get("gbps")
        paged = (pageable.get(key) or {}).get("gbps")
        grade = link_bandwidth.grade(measured, target) if measured is not None and target else "n/a"
        rows.append(
            {
                "device": label,
                "direction": name,
                "pinned": units.gbps(measured),
                "pageable": units.gbps(paged),
                "expected": units.gbps(target.expected_gbps) if target else "n/a",
                "share": units.pct(measured / target.expected_gbps)
                if measured is not None and target
                else "n/a",
                "grade": grade,
            }
        )
        if grade in ("warn", "fail") and target is not None and measured is not None:
            findings.append(_slow(label, name, measured, target, grade, bool(numa_finding)))
    findings += _pinned_not_faster(label, pinned, pageable, c2c)
    if target is not None:
        lines.append(
            f"{label}: {device.get('name')} on {target.link}: {units.gbps(target.theoretical_gbps)} "
            f"theoretical, {units.gbps(target.expected_gbps)} expected, pass from "
            f"{units.gbps(target.pass_gbps)}, fail below {units.gbps(target.fail_below_gbps)}"
        )
    pin_time = f"{pinned['pin_s']} s" if pinned.get("pin_s") is not None else "refused"
    lines.append(
        f"{label}: measured in {device.get('elapsed_s')} s of a {device.get('budget_s')} s budget"
        f" (context {device.get('context_s')} s, pinning {pin_time})"
    )
    device_facts = {
        "index": device.get("index"),
        "name": device.get("name"),
        "link": target.link if target else None,
        "expected_gbps": target.expected_gbps if target else None,
        "pinned_gbps": {k: (pinned.get(k) or {}).get("gbps") for k, _ in _DIRECTIONS},
        "pageable_gbps": {k: (pageable.get(k) or {}).get("gbps") for k, _ in _DIRECTIONS},
        "performance_state": link.get("performance_state"),
        "elapsed_s": device.get("elapsed_s"),
    }
    return findings, rows, lines, device_facts


def _target(pcie: Mapping[str, Any], c2c: bool, under_load: bool) -> link_bandwidth.Expected | None:
    if c2c:
        return link_bandwidth.expected(None, None, c2c=True)
    if under_load:
        return link_bandwidth.expected(pcie.get("gen_current"), pcie.get("width_current"))
    # Read at idle, the current link says nothing: expect what the GPU and slot allow.
    return link_bandwidth.expected(pcie.get("gen_max"), pcie.get("width_max"))


def _link(
    label: str,
    link: Mapping[str, Any],
    pcie: Mapping[str, Any],
    c2c: bool,
    under_load: bool,
    bus_id: Any,
) -> tuple[list[Finding], list[str]]:
    if not link or link.get("error"):
        return [], [
            f"{label}: the link could not be read (NVML: {link.get('error') if link else 'no reading'})"
        ]
    if c2c:
        return [], [f"{label}: NVLink-C2C to the CPU"]
    lines = []
    gen, width = pcie.get("gen_current"), pcie.get("width_current")
    gen_max, width_max, gen_gpu = pcie.get("gen_max"), pcie.get("width_max"), pcie.get("gen_gpu_max")
    if gen_gpu is not None and gen_max is not None and gen_gpu > gen_max:
        lines.append(
            f"{label}: the slot limits the link to Gen{gen_max}; the GPU itself supports Gen{gen_gpu}"
        )
    if not under_load:
        pstate = link.get("performance_state")
        lines.append(
            f"{label}: the link was read in P{pstate if pstate is not None else '?'}, not under load: "
            "its speed is not judged (an idle GPU slows its link on purpose)"
        )
        return [], lines
    slower = gen is not None and gen_max is not None and gen < gen_max
    narrower = width is not None and width_max is not None and width < width_max
    if not (slower or narrower):
        return [], lines
    now = link_bandwidth.pcie_label(gen, width)
    best = link_bandwidth.pcie_label(gen_max, width_max)
    slot = str(bus_id or "").split(":", 1)[-1].lower() if bus_id else "<bus>"
    finding = Finding(
        Status.FAIL,
        f"{label} link is downtrained: {now} under load, of the {best} that the GPU and its slot allow",
        (f"read in P0 right after the pinned copies; {'width' if narrower else 'speed'} below the maximum",),
        Fix(
            "Reseat the GPU (or its riser cable), check the slot's link speed and width settings in the "
            "BIOS, and look for the kernel's 'limited by' line about this device.",
            (f"sudo lspci -vv -s {slot} | grep -E 'LnkCap|LnkSta'", "sudo dmesg | grep -i 'limited by'"),
        ),
    )
    return [finding], lines


def _numa(label: str, numa: Mapping[str, Any]) -> list[Finding]:
    node = numa.get("gpu_node")
    nodes = list(numa.get("thread_nodes") or [])
    if node is None or not nodes or node in nodes:
        return []
    return [
        Finding(
            Status.WARN,
            f"{label} is attached to NUMA node {node}, but this process may only run on node(s) "
            f"{', '.join(map(str, nodes))}: every copy crosses the CPU interconnect",
            (
                f"CPUs this process may use: {_cpus(numa.get('thread_cpus') or [])}; "
                f"CPUs local to the GPU: {_cpus(numa.get('gpu_local_cpus') or [])}",
            ),
            Fix(
                "Run each rank on its GPU's NUMA node (the job's CPU set, taskset or numactl confine "
                "it elsewhere).",
                (
                    f"numactl --cpunodebind={node} --membind={node} python train.py",
                    "torchrun --numa-binding=node --nproc-per-node=gpu train.py",
                ),
            ),
        )
    ]


def _cpus(cpus: list[int]) -> str:
    if not cpus:
        return "unknown"
    ranges: list[str] = []
    start = prev = cpus[0]
    for cpu in [*cpus[1:], None]:
        if cpu is not None and cpu == prev + 1:
            prev = cpu
            continue
        ranges.append(f"{start}-{prev}" if prev != start else str(start))
        if cpu is not None:
            start = prev = cpu
    return ",".join(ranges)


def _pin_failure(label: str, pinned: Mapping[str, Any], memlock: Mapping[str, Any] | None) -> Finding:
    summary = f"pin_memory() failed on {label}: {pinned.get('error') or 'unknown error'}"
    consequence = "without pinned memory, DataLoader(pin_memory=True) fails and copies cannot overlap compute"
    if memlock is None:  # Windows: no locked-memory limit to read or raise
        return Finding(
            Status.FAIL,
            summary,
            ("this platform has no locked-memory limit (ulimit -l) to read", consequence),
            Fix("Check that the host has free RAM for the pinned buffers; close what holds it."),
        )
    soft = memlock.get("soft")
    limit = "unlimited" if soft is None else units.size(soft)
    return Finding(
        Status.FAIL,
        summary,
        (f"locked-memory limit (ulimit -l): {limit}", consequence),
        Fix(
            "Raise the locked-memory limit for the job (containers often start with 64 KiB) and check that "
            "the host has free RAM for the pinned buffers.",
            ("ulimit -l unlimited", "docker run --ulimit memlock=-1:-1 ...", "free -g"),
        ),
    )


def _slow(
    label: str, direction: str, measured: float, target: link_bandwidth.Expected, grade: str, numa: bool
) -> Finding:
    share = measured / target.expected_gbps
    cause = (
        "the copies crossed NUMA nodes (see above)"
        if numa
        else "typical causes: another transfer sharing the PCIe switch, IOMMU translation, a busy host"
    )
    return Finding(
        _STATUS[grade],
        f"{label} pinned {direction} {units.gbps(measured)} is {units.pct(share)} of the "
        f"{units.gbps(target.expected_gbps)} expected on {target.link}",
        (
            f"pass from {units.pct(link_bandwidth.PASS_AT)} of expected, warn from "
            f"{units.pct(link_bandwidth.WARN_FROM)}, fail below",
            cause,
        ),
        Fix(
            "Measure again with nothing else on the machine; if it stays low, compare with nvbandwidth "
            "(host_to_device_memcpy_ce) and check the GPU's NUMA placement and the IOMMU mode (iommu=pt).",
            ("torchdoctor check --only transfer.pinned -v",),
        ),
    )


def _pinned_not_faster(
    label: str, pinned: Mapping[str, Any], pageable: Mapping[str, Any], c2c: bool
) -> list[Finding]:
    if c2c or not pinned.get("ok"):
        return []
    slow = []
    for key, name in _DIRECTIONS:
        fast = (pinned.get(key) or {}).get("gbps")
        paged = (pageable.get(key) or {}).get("gbps")
        if fast is not None and paged is not None and fast <= paged:
            slow.append(f"{name} pinned {units.gbps(fast)}, pageable {units.gbps(paged)}")
    if not slow:
        return []
    return [
        Finding(
            Status.WARN,
            f"{label}: pinned copies are not faster than pageable ones ({'; '.join(slow)})",
            ("on x86 hosts pageable copies usually reach 30-60 % of pinned ones (research note §2.5)",),
            Fix(
                "Pinning buys nothing here until the link or the host is fixed: check the link above, the "
                "IOMMU mode (iommu=pt) and the NUMA placement."
            ),
        )
    ]


def _pass_summary(rows: list[dict[str, Any]]) -> str:
    by_device: dict[str, list[str]] = {}
    for row in rows:
        by_device.setdefault(row["device"], []).append(f"{row['direction']} {row['pinned']}")
    shown = "; ".join(f"{d} pinned {', '.join(v)}" for d, v in list(by_device.items())[:4])
    expected = rows[0]["expected"] if rows else "n/a"
    return f"{shown} (at least {units.pct(link_bandwidth.PASS_AT)} of the {expected} expected)"
