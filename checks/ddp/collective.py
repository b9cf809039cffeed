"""The collectives a DDP rank runs to prove its process group works, and their bandwidth.

torch is passed in by the caller (a rank program or a probe that imported it), so this module stays
light to import. Bandwidths follow NVIDIA nccl-tests' doc/PERFORMANCE.md: ``algbw = S / t`` and, for
all_reduce, ``busbw = algbw * 2(n-1)/n``, both in GB/s (1e9 bytes per second).
"""

from __future__ import annotations

import time
from typing import Any

GLOO_BUFFER_BYTES = 2 * 2**20  # a rank's peak memory stays within 1.1x of `import torch` alone
NCCL_BUFFER_BYTES = 64 * 2**20  # in GPU memory; big enough to leave the latency-bound regime
TIMED_ITERATIONS = 5


def expected_sum(world_size: int) -> float:
    """Each rank contributes rank + 1, so the sum is n(n+1)/2: a result that names a missing rank."""
    return world_size * (world_size + 1) / 2


def bus_bandwidth(nbytes: int, seconds: float, world_size: int) -> tuple[float | None, float | None]:
    """(algbw, busbw) in GB/s of an all_reduce of ``nbytes`` that took ``seconds`` among ``world_size``."""
    if seconds <= 0:
        return None, None
    algbw = nbytes / seconds / 1e9
    busbw = algbw * 2 * (world_size - 1) / world_size if world_size > 1 else None
    return round(algbw, 4), None if busbw is None else round(busbw, 4)


def _synchronize(torch: Any, device: Any) -> None:
    if device is not None and device.type == "cuda":
        torch.cuda.synchronize(device)


def job_ids_agree(torch: Any, dist: Any, device: Any, job_id: int) -> bool:
    """Whether every rank of the process group came from the same launch: one all_reduce(MAX) of
    ``[id, -id]`` gives the largest and the smallest id at once."""
    tensor = torch.tensor([job_id, -job_id], dtype=torch.int64, device=device)
    dist.all_reduce(tensor, op=dist.ReduceOp.MAX)
    largest, negative_smallest = (int(v) for v in tensor.cpu().tolist())
    return largest == -negative_smallest == job_id


def verified_all_reduce(
    torch: Any, dist: Any, device: Any, contribution: float, world_size: int, group: Any = None
) -> dict[str, Any]:
    """all_reduce(SUM) of a small tensor holding ``contribution``; the result is compared to n(n+1)/2."""
    tensor = torch.full((4,), float(contribution), dtype=torch.float64, device=device)
    started = time.perf_counter()
    dist.all_reduce(tensor, op=dist.ReduceOp.SUM, group=group)
    _synchronize(torch, device)
    seconds = time.perf_counter() - started
    values = sorted({float(v) for v in tensor.cpu().tolist()})
    expected = expected_sum(world_size)
    return {
        "value": values[0] if len(values) == 1 else values,
        "expected": expected,
        "ok": values == [expected],
        "seconds": round(seconds, 6),
    }


def timed_all_reduce(
    torch: Any,
    dist: Any,
    device: Any,
    nbytes: int,
    world_size: int,
    iterations: int = TIMED_ITERATIONS,
    group: Any = None,
) -> dict[str, Any]:
    """Mean time of ``iterations`` all_reduces of ``nbytes`` after one warm-up, with algbw and busbw."""
    buffer = torch.ones(max(1, nbytes // 4), dtype=torch.float32, device=device)
    dist.all_reduce(buffer, group=group)
    _synchronize(torch, device)
    started = time.perf_counter()
    for _ in range(iterations):
        dist.all_reduce(buffer, group=group)
    _synchronize(torch, device)
    seconds = (time.perf_counter() - started) / iterations
    del buffer
    algbw, busbw = bus_bandwidth(nbytes, seconds, world_size)
    return {
        "bytes": nbytes,
        "iterations": iterations,
        "seconds": round(seconds, 6),
        "algbw_gbps": algbw,
        "busbw_gbps": busbw,
    }
