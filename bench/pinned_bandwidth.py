"""transfer.pinned against nvbandwidth, side by side, on every visible GPU.

    python bench/pinned_bandwidth.py [--out FILE.json] [--nvbandwidth PATH] [--quick]

For each GPU it runs the check's own measurement (torchdoctor.checks.transfer.bandwidth_probe) and a
reference: ``nvbandwidth -t host_to_device_memcpy_ce`` where the binary is found (PATH, or
--nvbandwidth), otherwise an independent implementation of nvbandwidth's copy-engine method in
torch (512 MiB pinned buffer allocated after binding to the GPU's local CPUs, 4 warm-up copies,
16 copies per sample behind a spin kernel on a non-blocking stream, the median of 3 samples;
NVIDIA/nvbandwidth testcases_ce.cpp and memcpy.cpp, research/memory_bandwidth.md §2.1). It prints
two ratios per GPU:

- pinned H2D of the check / the reference (target: within 5 %, i.e. 0.95 to 1.05);
- seconds the check spends on the GPU / its 3 s budget (target: at most 1.0).

Needs a CUDA build of torch and a GPU; on a machine without one it says so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

MIB = 2**20
REFERENCE_BYTES = 512 * MIB  # nvbandwidth's defaultBufferSize
REFERENCE_WARMUP = 4  # WARMUP_COUNT
REFERENCE_LOOP = 16  # loopCount
REFERENCE_SAMPLES = 3  # --testSamples


def torch_reference_h2d(torch: Any, index: int, local_cpus: set[int]) -> float:
    """nvbandwidth's host_to_device_memcpy_ce, written with torch: GB/s, the median of the samples."""
    allowed = os.sched_getaffinity(0)
    bind = local_cpus & allowed
    if bind:
        os.sched_setaffinity(0, bind)  # nvbandwidth: nvmlDeviceSetCpuAffinity before cuMemHostAlloc
    try:
        with torch.cuda.device(index):
            host = torch.empty(REFERENCE_BYTES, dtype=torch.uint8, pin_memory=True)
            host.fill_(1)
            device = torch.empty(REFERENCE_BYTES, dtype=torch.uint8, device=f"cuda:{index}")
            stream = torch.cuda.Stream(index)  # created non-blocking, as nvbandwidth's CU_STREAM_NON_BLOCKING
            rates = []
            with torch.cuda.stream(stream):
                for _ in range(REFERENCE_SAMPLES):
                    begin = torch.cuda.Event(enable_timing=True)
                    end = torch.cuda.Event(enable_timing=True)
                    torch.cuda._sleep(10_000_000)  # the spin kernel holding the stream while copies queue
                    for _ in range(REFERENCE_WARMUP):
                        device.copy_(host, non_blocking=True)
                    begin.record(stream)
                    for _ in range(REFERENCE_LOOP):
                        device.copy_(host, non_blocking=True)
                    end.record(stream)
                    end.synchronize()
                    rates.append(REFERENCE_BYTES * REFERENCE_LOOP / (begin.elapsed_time(end) / 1e3) / 1e9)
            del host, device
            torch.cuda.empty_cache()
            return statistics.median(rates)
    finally:
        os.sched_setaffinity(0, allowed)


def nvbandwidth_h2d(binary: str) -> dict[int, float]:
    """GB/s per GPU from ``nvbandwidth -t host_to_device_memcpy_ce``: one CPU row, one GPU per column.

    The header reads "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)" in recent releases and
    "memcpy CE GPU(columns) <- CPU(rows) bandwidth (GB/s)" in early ones; the matrix follows it.
    """
    done = subprocess.run(
        [binary, "-t", "host_to_device_memcpy_ce"], capture_output=True, text=True, timeout=240, check=True
    )
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if "bandwidth (GB/s)" in line)
    columns = [int(c) for c in lines[start + 1].split()]
    cells = lines[start + 2].split()[1:]  # the first cell is the row's label
    return {
        gpu: float(cell) for gpu, cell in zip(columns, cells, strict=False) if re.fullmatch(r"[\d.]+", cell)
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="write the measurements here as JSON")
    parser.add_argument("--nvbandwidth", help="path of the nvbandwidth binary (default: found on PATH)")
    parser.add_argument("--quick", action="store_true", help="measure with the check's --quick plan")
    args = parser.parse_args()

    import torch

    from torchdoctor.checks.transfer import bandwidth_probe

    if not torch.cuda.is_available():
        print(f"no CUDA device: torch {torch.__version__} (CUDA {torch.version.cuda}); nothing to measure")
        return 0
    binary = args.nvbandwidth or shutil.which("nvbandwidth")
    reference: dict[int, float] = {}
    reference_name = "torch (nvbandwidth method)"
    if binary:
        try:
            reference = nvbandwidth_h2d(binary)
            reference_name = f"nvbandwidth ({binary})"
        except (subprocess.SubprocessError, OSError, StopIteration, ValueError, IndexError) as exc:
            print(f"nvbandwidth could not be used ({type(exc).__name__}: {exc}); using the torch reference")
    plan = bandwidth_probe.QUICK if args.quick else bandwidth_probe.DEFAULT
    results = []
    for index in range(torch.cuda.device_count()):
        started = time.perf_counter()
        facts = bandwidth_probe.measure_device(torch, index, plan)
        check_s = time.perf_counter() - started
        local = set(facts["numa"]["gpu_local_cpus"]) or set(os.sched_getaffinity(0))
        ref = reference.get(index)
        if ref is None:
            ref = torch_reference_h2d(torch, index, local)
        check = facts["pinned"]["h2d"]["gbps"] if facts["pinned"]["ok"] else None
        result = {
            "gpu": index,
            "name": facts["name"],
            "link": facts["link"],
            "check_pinned_h2d_gbps": check,
            "check_pinned_d2h_gbps": (facts["pinned"]["d2h"] or {}).get("gbps"),
            "check_pageable_h2d_gbps": (facts["pageable"]["h2d"] or {}).get("gbps"),
            "reference": reference_name,
            "reference_h2d_gbps": round(ref, 3),
            "h2d_ratio": None if check is None else round(check / ref, 4),
            "check_seconds": round(check_s, 3),
            "budget_seconds": plan.budget_s,
            "time_ratio": round(check_s / plan.budget_s, 4),
            "facts": facts,
        }
        results.append(result)
        ratio = "n/a (pinning failed)" if check is None else f"{check / ref:.3f}"
        print(
            f"GPU {index} {facts['name']}: pinned H2D check {check} GB/s vs {reference_name} {ref:.2f} GB/s "
            f"-> ratio {ratio} (target 0.95-1.05); check time {check_s:.2f} s / {plan.budget_s:.1f} s budget "
            f"-> ratio {check_s / plan.budget_s:.2f} (target <= 1.00)"
        )
    if args.out:
        args.out.write_text(json.dumps({"torch": torch.__version__, "results": results}, indent=1))
    ok = all(
        (r["h2d_ratio"] is None or 0.95 <= r["h2d_ratio"] <= 1.05) and r["time_ratio"] <= 1.0 for r in results
    )
    print("within targets" if ok else "OUTSIDE TARGETS")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
