"""The ``pinned_bandwidth`` probe: host-to-device and device-to-host copy rates of every visible GPU.

nvbandwidth's copy-engine method (research/memory_bandwidth.md §2.1 and §2.6): one GPU at a time;
the measuring thread and its host buffers on the GPU's NUMA node where the process may run there
(nvbandwidth does the same with nvmlDeviceSetCpuAffinity); a large buffer copied with
``copy_(non_blocking=True)`` (cudaMemcpyAsync on a copy engine) on a side stream; warm-up copies
first, which also wake the link from its idle speed; then a spin kernel holds the stream while
the start event, the copies and the end event are queued, so queuing costs are not timed; the
median of several samples. Pageable copies are staged by the driver and synchronous for the host,
so they are timed with the wall clock, as bandwidthTest does. The PCIe link is read through NVML
right after the pinned copies, while the GPU is still in P0.

Bounded: at most ``budget_s`` per GPU (3 s, ``--quick`` 1 s), context creation included; the
number of copies, then the buffer, shrink to fit. Expected failures (no CUDA, pinning refused)
are facts, not exceptions.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from torchdoctor.checks.probes import torch_probe
from torchdoctor.machine import nvml

MIB = 2**20


@dataclass(frozen=True)
class Plan:
    """How much to measure on each GPU."""

    budget_s: float = 3.0
    buffer_bytes: int = 256 * MIB
    samples: int = 3
    max_copies: int = 8
    warmup: int = 2
    min_buffer_bytes: int = 8 * MIB
    spin_cycles: int = 5_000_000  # 2.5 ms at 2 GHz, 15 ms at idle clocks: longer than queuing the copies


DEFAULT = Plan()
QUICK = Plan(budget_s=1.0, buffer_bytes=64 * MIB, samples=3, max_copies=4, warmup=1)
_MARGIN_S = 5.0  # left of the probe's deadline for importing torch and answering


def plan_for(options: Mapping[str, Any], gpus: int, spent_s: float = 0.0) -> Plan:
    """The plan for ``--quick`` or not, shortened so every GPU fits in the probe's deadline."""
    base = QUICK if options.get("quick") else DEFAULT
    timeout = float(options.get("timeout") or 30.0)
    per_gpu = (timeout - _MARGIN_S - spent_s) / max(gpus, 1)
    if per_gpu >= base.budget_s:
        return base
    return dataclasses.replace(base, budget_s=max(per_gpu, 0.2))


def memlock_limit() -> dict[str, int | None] | None:
    """RLIMIT_MEMLOCK in bytes (None: unlimited); pinning beyond it can fail in containers. None where the
    platform has no such limit (Windows: no ``resource`` module)."""
    if sys.platform == "win32":
        return None
    try:
        import resource
    except ImportError:
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_MEMLOCK)
    unlimited = resource.RLIM_INFINITY
    return {"soft": None if soft == unlimited else soft, "hard": None if hard == unlimited else hard}


def allowed_cpus() -> set[int]:
    """The CPUs this process may run on: its affinity on Linux (and through psutil on Windows); every CPU
    where the platform does not say (macOS has no affinity)."""
    if sys.platform == "linux" and hasattr(os, "sched_getaffinity"):
        return set(os.sched_getaffinity(0))
    if sys.platform == "win32":
        with contextlib.suppress(Exception):
            import psutil

            return set(psutil.Process().cpu_affinity() or [])
    return set(range(os.cpu_count() or 1))


def bind_to(cpus: set[int]) -> bool:
    """Run this thread (Linux) on ``cpus``; False where the platform cannot bind it (the copies are then
    measured wherever the scheduler puts them)."""
    if sys.platform == "linux" and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, cpus)
        return True
    return False


# ---------------------------------------------------------------------------------------------
# NUMA placement, from sysfs


def parse_cpulist(text: str) -> list[int]:
    """``0-3,8,10-11`` -> [0, 1, 2, 3, 8, 10, 11] (the kernel's cpulist format)."""
    cpus: list[int] = []
    for part in text.strip().split(","):
        if not part:
            continue
        low, _, high = part.partition("-")
        cpus.extend(range(int(low), int(high or low) + 1))
    return cpus


def sysfs_bus_id(pci_bus_id: str) -> str:
    """``00000000:3A:00.0`` (NVML, torch) -> ``0000:3a:00.0`` (/sys/bus/pci/devices)."""
    domain, bus, rest = pci_bus_id.split(":")
    return f"{int(domain, 16):04x}:{bus.lower()}:{rest.lower()}"


def numa_placement(
    pci_bus_id: str | None, thread_cpus: set[int], sysfs: Path = Path("/sys")
) -> dict[str, Any]:
    """The GPU's NUMA node and local CPUs, and the nodes of the CPUs this thread may run on."""
    facts: dict[str, Any] = {
        "gpu_node": None,
        "gpu_local_cpus": [],
        "thread_cpus": sorted(thread_cpus),
        "thread_nodes": [],
    }
    if pci_bus_id:
        device = sysfs / "bus" / "pci" / "devices" / sysfs_bus_id(pci_bus_id)
        node = _read(device / "numa_node")
        facts["gpu_node"] = int(node) if node is not None and int(node) >= 0 else None
        cpus = _read(device / "local_cpulist")
        facts["gpu_local_cpus"] = parse_cpulist(cpus) if cpus else []
    node_of: dict[int, int] = {}
    for node_dir in sorted((sysfs / "devices" / "system" / "node").glob("node[0-9]*")):
        cpulist = _read(node_dir / "cpulist")
        for cpu in parse_cpulist(cpulist or ""):
            node_of[cpu] = int(node_dir.name[4:])
    facts["thread_nodes"] = sorted({node_of[c] for c in thread_cpus if c in node_of})
    return facts


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


# ---------------------------------------------------------------------------------------------
# timing


def _median_rate(rates: list[float]) -> float | None:
    import statistics  # here: a worker that only describes the checks needs none of it

    return round(statistics.median(rates), 3) if rates else None


class _Clock:
    def __init__(self, budget_s: float) -> None:
        self.deadline = time.perf_counter() + budget_s

    def left(self) -> float:
        return max(self.deadline - time.perf_counter(), 0.0)


def _sizes(per_copy_s: float, nbytes: int, share_s: float, plan: Plan) -> tuple[int, int]:
    """Copies per sample and bytes per copy that fit what is left of ``share_s`` after the warm-up."""
    per_sample = max(share_s - per_copy_s * plan.warmup, 0.0) / plan.samples
    copies = int(per_sample / per_copy_s) if per_copy_s > 0 else plan.max_copies
    if copies >= 1:
        return min(copies, plan.max_copies), nbytes
    shrunk = int(nbytes * per_sample / per_copy_s) // MIB * MIB
    return 1, max(shrunk, plan.min_buffer_bytes)


def time_pinned(torch: Any, stream: Any, dst: Any, src: Any, plan: Plan, share_s: float) -> dict[str, Any]:
    """Pinned copies timed with CUDA events behind a spin kernel; GB/s of each sample."""
    nbytes = src.numel()
    spin = getattr(torch.cuda, "_sleep", None)
    with torch.cuda.stream(stream):
        started = time.perf_counter()
        for _ in range(plan.warmup):
            dst.copy_(src, non_blocking=True)
        stream.synchronize()
        per_copy = (time.perf_counter() - started) / max(plan.warmup, 1)
        copies, size = _sizes(per_copy, nbytes, share_s, plan)
        d, s = dst[:size], src[:size]
        rates = []
        for _ in range(plan.samples):
            begin = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            if spin is not None:
                spin(plan.spin_cycles)
            begin.record(stream)
            for _ in range(copies):
                d.copy_(s, non_blocking=True)
            end.record(stream)
            end.synchronize()
            rates.append(size * copies / (begin.elapsed_time(end) / 1e3) / 1e9)
    return {
        "gbps": _median_rate(rates),
        "samples_gbps": [round(r, 3) for r in rates],
        "copies": copies,
        "bytes": size,
        "timer": "cuda_events",
    }


def time_pageable(torch: Any, dst: Any, src: Any, plan: Plan, share_s: float) -> dict[str, Any]:
    """Pageable copies, synchronous for the host: timed with the wall clock."""
    nbytes = src.numel()
    torch.cuda.synchronize()
    started = time.perf_counter()
    for _ in range(plan.warmup):
        dst.copy_(src)
    torch.cuda.synchronize()
    per_copy = (time.perf_counter() - started) / max(plan.warmup, 1)
    copies, size = _sizes(per_copy, nbytes, share_s, plan)
    d, s = dst[:size], src[:size]
    rates = []
    for _ in range(plan.samples):
        torch.cuda.synchronize()
        begin = time.perf_counter()
        for _ in range(copies):
            d.copy_(s)
        torch.cuda.synchronize()
        rates.append(size * copies / (time.perf_counter() - begin) / 1e9)
    return {
        "gbps": _median_rate(rates),
        "samples_gbps": [round(r, 3) for r in rates],
        "copies": copies,
        "bytes": size,
        "timer": "wall_clock",
    }


def measure_device(
    torch: Any,
    index: int,
    plan: Plan = DEFAULT,
    read_link: Callable[[str], nvml.LinkReading] = nvml.read_link,
) -> dict[str, Any]:
    """One GPU: pinned and pageable, H2D and D2H, the link read under load, NUMA placement."""
    clock = _Clock(plan.budget_s)
    started = time.perf_counter()
    props = torch.cuda.get_device_properties(index)
    bus_id = torch_probe.pci_bus_id(props)
    allowed = allowed_cpus()
    numa = numa_placement(bus_id, allowed)
    local = set(numa["gpu_local_cpus"]) & allowed
    facts: dict[str, Any] = {
        "index": index,
        "name": props.name,
        "uuid": str(getattr(props, "uuid", "") or "") or None,
        "pci_bus_id": bus_id,
        "numa": {**numa, "bound_to_gpu_node": bool(local) and local != allowed},
        "budget_s": round(plan.budget_s, 3),
        "pinned": {"ok": False, "error": None, "pin_s": None, "h2d": None, "d2h": None},
        "pageable": {"h2d": None, "d2h": None},
        "link": None,
    }
    # Pages of the pinned buffer land on the node of the thread that first touches them.
    bound = bool(local) and local != allowed and bind_to(local)
    facts["numa"]["bound_to_gpu_node"] = bound
    try:
        _measure(torch, index, plan, clock, facts, read_link)
    finally:
        if bound:
            bind_to(allowed)
        with contextlib.suppress(Exception):  # after a CUDA error the cache may not empty
            torch.cuda.empty_cache()
    facts["elapsed_s"] = round(time.perf_counter() - started, 3)
    return facts


def _measure(
    torch: Any,
    index: int,
    plan: Plan,
    clock: _Clock,
    facts: dict[str, Any],
    read_link: Callable[[str], nvml.LinkReading],
) -> None:
    with torch.cuda.device(index):
        created = time.perf_counter()
        device_buffer = torch.empty(plan.buffer_bytes, dtype=torch.uint8, device=f"cuda:{index}")
        torch.cuda.synchronize(index)
        facts["context_s"] = round(time.perf_counter() - created, 3)
        pageable = torch.empty(plan.buffer_bytes, dtype=torch.uint8)
        pageable.fill_(1)  # first touch outside the timed copies
        pinned = None
        pin_started = time.perf_counter()
        try:
            pinned = torch.empty(plan.buffer_bytes, dtype=torch.uint8, pin_memory=True)
            pinned.fill_(1)
            facts["pinned"].update(ok=True, pin_s=round(time.perf_counter() - pin_started, 3))
        except RuntimeError as exc:  # cudaHostAlloc refused: memlock limit, or no host memory left
            facts["pinned"]["error"] = str(exc).strip().splitlines()[0][:500]
        stream = torch.cuda.Stream(index)
        phases = 4 if pinned is not None else 2
        if pinned is not None:
            facts["pinned"]["h2d"] = time_pinned(
                torch, stream, device_buffer, pinned, plan, clock.left() / phases
            )
            facts["link"] = read_link(str(facts["pci_bus_id"])).to_json() if facts["pci_bus_id"] else None
            phases -= 1
            facts["pinned"]["d2h"] = time_pinned(
                torch, stream, pinned, device_buffer, plan, clock.left() / phases
            )
            phases -= 1
        facts["pageable"]["h2d"] = time_pageable(torch, device_buffer, pageable, plan, clock.left() / phases)
        if facts["link"] is None and facts["pci_bus_id"]:
            facts["link"] = read_link(str(facts["pci_bus_id"])).to_json()
        phases -= 1
        facts["pageable"]["d2h"] = time_pageable(torch, pageable, device_buffer, plan, clock.left() / phases)
        del device_buffer, pageable, pinned


def probe(options: Mapping[str, Any]) -> dict[str, Any]:
    started = time.perf_counter()
    facts: dict[str, Any] = {
        "available": False,
        "reason": None,
        "torch": None,
        "memlock_bytes": memlock_limit(),
        "quick": bool(options.get("quick")),
        "devices": [],
    }
    try:
        import torch
    except Exception as exc:  # a broken torch raises anything from OSError to SystemError
        facts["torch_error"] = f"{type(exc).__name__}: {exc}"[:300]
        facts["reason"] = f"torch cannot be imported ({facts['torch_error']})"
        return facts
    facts["torch"] = torch.__version__
    if not torch.cuda.is_available():
        facts["reason"] = (
            f"torch {torch.__version__} is a CPU-only build"
            if torch.version.cuda is None
            else f"torch {torch.__version__} (CUDA {torch.version.cuda}) sees no GPU"
        )
        return facts
    count = torch.cuda.device_count()
    plan = plan_for(options, count, time.perf_counter() - started)
    facts["available"] = True
    with nvml.session():
        for index in range(count):
            try:
                facts["devices"].append(measure_device(torch, index, plan))
            except Exception as exc:  # a full or failing GPU: the others are still measured
                message = " ".join(str(exc).split())[:500]
                facts["devices"].append({"index": index, "error": f"{type(exc).__name__}: {message}"})
    return facts
