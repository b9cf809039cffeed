"""Error messages of GPU memory: CUDA and MPS out of memory with their figures read and classified, and the
cuBLAS and cuDNN status errors that are most often an out-of-memory in disguise.

The entries are the data of explanations.toml beside this module (:mod:`torchdoctor.explain.catalogue_file`),
registered in the entry-point group ``torchdoctor.explanations``; quoted from where torch raises them, the
research notes (research/memory_bandwidth.md 1.6), and the real texts of tests/corpus/errors. This module
holds their analysers.
"""

from __future__ import annotations

import re

from torchdoctor.explain import Analysis, Entry, catalogue_file
from torchdoctor.explain.model import Case, last_match
from torchdoctor.model import Fix

_SIZE = r"(\d+(?:\.\d+)?) ?([KMGTP]i?B|bytes)"

_UNITS = {"B": 1, "BYTES": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15}

_UNITS.update({"KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40, "PIB": 2**50})

_OOM_START = re.compile(r"out of memory\. Tried to allocate", re.IGNORECASE)
_MPS_OOM = re.compile(
    rf"MPS backend out of memory \(MPS allocated: {_SIZE}, other allocations: {_SIZE}, max allowed: "
    rf"{_SIZE}\)\. Tried to allocate {_SIZE}",
    re.IGNORECASE,
)
_CUBLAS = re.compile(r"CUBLAS_STATUS_([A-Z_]+)")
_CUDNN = re.compile(
    r"CUDNN_STATUS_([A-Z_]+)|(valid cuDNN algorithm|valid convolution algorithms)", re.IGNORECASE
)


def _bytes(number: str, unit: str) -> float:
    return float(number) * _UNITS[unit.upper()]


def _size(pattern: str, text: str) -> float | None:
    match = re.search(pattern.replace("SIZE", _SIZE), text, re.IGNORECASE)
    return None if match is None else _bytes(match[1], match[2])


def _gib(size: float) -> str:
    return f"{size / 2**30:.2f} GiB"


def _last_message(start: re.Pattern[str], text: str, length: int = 1500) -> str:
    """The text of the last message that ``start`` finds (the one that stopped the program)."""
    found = last_match(start, text)
    return text if found is None else text[found.start() : found.start() + length]


def _unallocated(text: str) -> float | None:
    """Reserved by PyTorch's allocator but not allocated, from any generation of the message: stated (2.x),
    reserved minus allocated (1.4 to 2.0), or the 'cached' figure of 1.0 to 1.3, which is that same
    difference (it is below 'already allocated' in every pasted 1.x message)."""
    stated = _size(r"SIZE is reserved by PyTorch but unallocated", text)
    if stated is not None:
        return stated
    reserved = _size(r"SIZE reserved in total by PyTorch", text)
    allocated = _size(r"SIZE already allocated", text)
    if reserved is not None and allocated is not None:
        return max(reserved - allocated, 0.0)
    return _size(r"SIZE cached\)", text)


def analyse_oom(text: str) -> Analysis:
    """Sizes of a CUDA OOM message, classified as in research/memory_bandwidth.md 1.6.

    A request larger than the GPU: no setting helps. Reserved-but-unallocated at least as large as the
    request: the memory is there but in pieces (fragmentation). Free plus reserved-but-unallocated below
    the request: the GPU is really full.
    """
    message = _last_message(_OOM_START, text)
    requested = _size(r"Tried to allocate SIZE", message)
    if requested is None:
        return _oom_without_figures(message)
    total = _size(r"total capac\w* of SIZE", message) or _size(r"SIZE total capacity", message)
    free = _size(r"of which SIZE is free", message) or _size(r"SIZE free;", message)
    unallocated = _unallocated(message)
    evidence = [f"tried to allocate {_gib(requested)}"]
    if total is not None:
        evidence.append(f"total capacity of the GPU: {_gib(total)}")
    if free is not None:
        evidence.append(f"free on the GPU: {_gib(free)}")
    if unallocated is not None:
        evidence.append(f"reserved by PyTorch but unallocated: {_gib(unallocated)}")
    evidence += _other_processes(message)
    if total is not None and requested > total:
        return _larger_than_gpu(evidence)
    if unallocated is not None and unallocated >= requested:
        return _fragmented(evidence, message)
    if free is not None and unallocated is not None and free + unallocated < requested:
        evidence.append("exhaustion: free memory plus the allocator's cache is less than the request")
    return Analysis(evidence=tuple(evidence))


def _other_processes(message: str) -> list[str]:
    others = re.findall(rf"Process (\d+) has {_SIZE} memory in use", message, re.IGNORECASE)
    if len(others) < 2:
        return []
    in_use = ", ".join(f"pid {pid}: {_gib(_bytes(n, u))}" for pid, n, u in others)
    return [f"{len(others)} processes hold memory on this GPU ({in_use})"]


def _larger_than_gpu(evidence: list[str]) -> Analysis:
    return Analysis(
        evidence=(*evidence, "one request is larger than the whole GPU"),
        cause="A single allocation asks for more memory than the GPU has: one tensor of the computation "
        "(an activation of a huge batch, sequence or image, or an attention matrix) is too large, whatever "
        "else is on the GPU.",
        fix=Fix(
            "Make that one operation smaller: a smaller batch, sequence length or resolution, or process it "
            "in chunks (memory-efficient attention with torch.nn.functional.scaled_dot_product_attention, "
            "tiled or sliced inference)."
        ),
    )


def _fragmented(evidence: list[str], message: str) -> Analysis:
    return Analysis(
        evidence=(
            *evidence,
            "fragmentation: the cached free memory would fit the request, but not in one block",
        ),
        cause="The GPU ran out of memory while PyTorch's caching allocator held enough free memory for "
        "the request, split in blocks too small to serve it: the memory is fragmented.",
        check="gpu.fragmentation",
        fix=_fragmentation_fix(message),
    )


# expandable_segments came with torch 2.1: merged in April 2023 (pytorch/pytorch PR #96995; PR #100184,
# 2023-04-27, enables it in Meta's build "now that expandable_segments has been merged from OSS"), after
# torch 2.0 was released (2023-03-15). The message's wording "is reserved by PyTorch but unallocated" came
# with the same allocator (torch 2.1's "total capacty ... max_split_size_mb" form already has it, see
# research/memory_bandwidth.md 1.6), and torch.OutOfMemoryError is a later name of torch.cuda's error.
_HAS_EXPANDABLE = re.compile(
    r"is reserved by PyTorch but unallocated|torch\.OutOfMemoryError|PYTORCH_ALLOC_CONF", re.IGNORECASE
)


def _fragmentation_fix(message: str) -> Fix:
    """The allocator setting the message's own torch release offers: named by its hint, or read from its
    wording when the hint is cut off (a pasted text often ends in "...")."""
    named = "max_split_size_mb" in message and "expandable_segments" not in message
    if not named and ("expandable_segments" in message or _HAS_EXPANDABLE.search(message)):
        variable = "PYTORCH_ALLOC_CONF" if "PYTORCH_ALLOC_CONF" in message else "PYTORCH_CUDA_ALLOC_CONF"
        return Fix(
            "Let the allocator grow segments instead of splitting them "
            f"({variable}=expandable_segments:True, set before the first CUDA call), or free cached "
            "blocks between phases with torch.cuda.empty_cache().",
            (f"export {variable}=expandable_segments:True",),
        )
    if named:
        return Fix(
            "Stop the allocator from splitting large blocks (PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128, "
            "set before the first CUDA call); torch 2.1 and later offer expandable_segments:True instead, "
            "which usually works better.",
            ("export PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128",),
        )
    # Only the older wordings are left ("reserved in total by PyTorch", "cached)"): torch 2.0 or older.
    return Fix(
        "This message's wording is that of torch 2.0 or older, which has no expandable_segments: stop "
        "the allocator from splitting large blocks (PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128, torch "
        "1.10 and later), free cached blocks between phases with torch.cuda.empty_cache(), or upgrade "
        "torch for PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.",
    )


def _oom_without_figures(message: str) -> Analysis:
    if re.search(r"CUDA error: out of memory|runtime error \(2\)|error=2\b", message, re.IGNORECASE):
        return Analysis(
            evidence=(
                "the message has no figures: a CUDA call outside PyTorch's caching allocator failed (the "
                "CUDA context, a cuBLAS or cuDNN workspace, an extension's own allocation)",
            )
        )
    return Analysis()


def analyse_mps_oom(text: str) -> Analysis:
    """The figures of the MPS allocator's message (aten/src/ATen/mps/MPSAllocator.mm): MPS allocated is
    what tensors use, other allocations the rest of this process's Metal memory (the allocator's cache
    among it), max allowed the high-watermark limit (PYTORCH_MPS_HIGH_WATERMARK_RATIO times the device's
    recommended working set)."""
    found = last_match(_MPS_OOM, text)
    if found is None:
        return Analysis()
    allocated, other, limit, requested = (_bytes(found[i], found[i + 1]) for i in (1, 3, 5, 7))
    sizes = [f"{found[i]} {found[i + 1]}" for i in (1, 3, 5, 7)]
    evidence = [
        f"tensors: {sizes[0]}, other Metal allocations: {sizes[1]}, limit: {sizes[2]}, request: {sizes[3]}"
    ]
    if allocated + other + requested <= limit:
        return Analysis(
            evidence=(*evidence, "below the limit: Metal itself refused the allocation"),
            cause="The allocation stayed under PyTorch's limit, so Metal refused it: the machine has no "
            "memory left for the GPU (other applications, swap pressure) or gives this process little GPU "
            "memory at all (a virtual machine or a CI runner).",
            fix=Fix(
                "Close other memory-hungry applications, or run where the GPU has memory (a virtual macOS "
                "runner often has almost none); on such machines run on the CPU."
            ),
        )
    if requested > limit:
        return Analysis(evidence=(*evidence, "one request is larger than the whole limit"))
    if other > allocated:
        return Analysis(
            evidence=(*evidence, "other allocations exceed the tensors: cached or non-tensor Metal memory"),
            fix=Fix(
                "Most of the memory is not held by tensors: return the allocator's cache with "
                "torch.mps.empty_cache() between phases, and lower the batch size; raising the limit "
                "(PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0) risks the whole system swapping or freezing."
            ),
        )
    return Analysis(evidence=(*evidence, "the tensors themselves fill the limit"))


_CUBLAS_STATUSES = catalogue_file.cases(__package__, "cublas.status_error")


def analyse_cublas(text: str) -> Analysis:
    statuses = _CUBLAS.findall(text)
    if not statuses:
        return Analysis()
    status = statuses[-1].upper()
    return _status_analysis(_CUBLAS_STATUSES, status, f"CUBLAS_STATUS_{status}")


_CUDNN_STATUSES = catalogue_file.cases(__package__, "cudnn.status_error")


def analyse_cudnn(text: str) -> Analysis:
    found = _CUDNN.findall(text)
    if not found:
        return Analysis()
    status, algorithm = found[-1]
    key = "ALGORITHM" if algorithm else status.upper()
    evidence = "no cuDNN algorithm could run" if algorithm else f"CUDNN_STATUS_{key}"
    return _status_analysis(_CUDNN_STATUSES, key, evidence)


def _status_analysis(statuses: tuple[Case, ...], status: str, evidence: str) -> Analysis:
    """The analysis of the case whose pattern is the whole ``status``; the evidence alone without one."""
    case = next((c for c in statuses if c.compiled.fullmatch(status)), None)
    return Analysis(evidence=(evidence,)) if case is None else case.analysis(evidence)


ENTRIES: tuple[Entry, ...] = catalogue_file.read(__package__, globals())
