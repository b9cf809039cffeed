"""Error messages of GPU memory: CUDA out of memory, with the figures of the message read and classified.

Registered in the entry-point group ``torchdoctor.explanations``; quoted from where torch raises them, and
the research notes (research/memory_bandwidth.md 1.6, research/ddp_dryrun.md 3, research/cuda_semantics.md).
"""

from __future__ import annotations

import re

from torchdoctor.explain import Analysis, Entry
from torchdoctor.model import Fix

_SIZE = r"([\d.]+) ?([KMGTP]i?B|bytes)"

_UNITS = {"B": 1, "BYTES": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15}

_UNITS.update({"KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40, "PIB": 2**50})


def _bytes(number: str, unit: str) -> float:
    return float(number) * _UNITS[unit.upper()]


def _size(pattern: str, text: str) -> float | None:
    match = re.search(pattern.replace("SIZE", _SIZE), text, re.IGNORECASE)
    return None if match is None else _bytes(match[1], match[2])


def _gib(size: float) -> str:
    return f"{size / 2**30:.2f} GiB"


def analyse_oom(text: str) -> Analysis:
    """Sizes of a CUDA OOM message, classified as in research/memory_bandwidth.md 1.6.

    Reserved-but-unallocated at least as large as the request: the memory is there but in pieces
    (fragmentation). Free plus reserved-but-unallocated below the request: the GPU is really full.
    """
    requested = _size(r"Tried to allocate SIZE", text)
    free = _size(r"of which SIZE is free", text) or _size(r"SIZE free;", text)
    unallocated = _size(r"SIZE is reserved by PyTorch but unallocated", text)
    reserved = _size(r"SIZE reserved in total by PyTorch", text)
    allocated = _size(r"SIZE already allocated", text)
    if unallocated is None and reserved is not None and allocated is not None:
        unallocated = max(reserved - allocated, 0.0)  # the oldest message gives both totals instead
    others = re.findall(rf"Process (\d+) has {_SIZE} memory in use", text, re.IGNORECASE)
    evidence = []
    if requested is not None:
        evidence.append(f"tried to allocate {_gib(requested)}")
    if free is not None:
        evidence.append(f"free on the GPU: {_gib(free)}")
    if unallocated is not None:
        evidence.append(f"reserved by PyTorch but unallocated: {_gib(unallocated)}")
    if len(others) > 1:
        in_use = ", ".join(f"pid {pid}: {_gib(_bytes(n, u))}" for pid, n, u in others)
        evidence.append(f"{len(others)} processes hold memory on this GPU ({in_use})")
    variable = "PYTORCH_ALLOC_CONF" if "PYTORCH_ALLOC_CONF" in text else "PYTORCH_CUDA_ALLOC_CONF"
    if requested is not None and unallocated is not None and unallocated >= requested:
        return Analysis(
            evidence=(
                *evidence,
                "fragmentation: the cached free memory would fit the request, but not in one block",
            ),
            cause="The GPU ran out of memory while PyTorch's caching allocator held enough free memory for "
            "the request, split in blocks too small to serve it: the memory is fragmented.",
            check="gpu.fragmentation",
            fix=Fix(
                "Let the allocator grow segments instead of splitting them "
                f"({variable}=expandable_segments:True, set before the first CUDA call), or free cached "
                "blocks between phases with torch.cuda.empty_cache().",
                (f"export {variable}=expandable_segments:True",),
            ),
        )
    if (
        requested is not None
        and free is not None
        and unallocated is not None
        and free + unallocated < requested
    ):
        evidence.append("exhaustion: free memory plus the allocator's cache is less than the request")
    return Analysis(evidence=tuple(evidence))


ENTRIES: tuple[Entry, ...] = (
    Entry(
        id="cuda.out_of_memory",
        title="CUDA out of memory",
        patterns=(
            r"CUDA out of memory",
            r"OutOfMemoryError",
            r"Out of memory\. Tried to allocate",
            r"CUBLAS_STATUS_ALLOC_FAILED",
        ),
        cause="The GPU had no room for an allocation: the batch, the activations or the optimizer state are "
        "too large for it, or other processes hold part of its memory.",
        fix=Fix(
            "Lower the batch size (with gradient accumulation to keep the effective batch), use mixed "
            "precision and activation checkpointing, and make sure no other process holds this GPU.",
            ("nvidia-smi --query-compute-apps=pid,used_memory --format=csv",),
        ),
        check="gpu.memory",
        source="research/memory_bandwidth.md 1.6 (c10/cuda/CUDACachingAllocator.cpp, current and old)",
        analyse=analyse_oom,
    ),
)
