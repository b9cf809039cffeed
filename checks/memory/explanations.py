"""Error messages of GPU memory: CUDA and MPS out of memory with their figures read and classified, and the
cuBLAS and cuDNN status errors that are most often an out-of-memory in disguise.

Registered in the entry-point group ``torchdoctor.explanations``; quoted from where torch raises them, the
research notes (research/memory_bandwidth.md 1.6), and the real texts of tests/corpus/errors.
"""

from __future__ import annotations

import re

from torchdoctor.explain import Analysis, Entry
from torchdoctor.explain.model import last_match
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


_CUBLAS_CAUSES = {
    "NOT_INITIALIZED": (
        "cuBLAS could not create its handle (cublasCreate): most often the GPU had no memory left for it, "
        "sometimes a cuBLAS library that does not belong to this torch, or an earlier asynchronous CUDA "
        "error (such as an out-of-range index) reported here.",
        "gpu.memory",
    ),
    "ALLOC_FAILED": ("cuBLAS could not allocate its workspace: the GPU is out of memory.", "gpu.memory"),
    "EXECUTION_FAILED": (
        "A cuBLAS kernel failed to run: usually an earlier asynchronous error (an out-of-range index, a "
        "device-side assert) surfacing here, or a GPU this build of torch has no kernels for.",
        "torch.build",
    ),
    "INVALID_VALUE": (
        "cuBLAS rejected the call's arguments: often an earlier asynchronous error, an operation on empty "
        "or enormous tensors, or a cuBLAS library from another CUDA release loaded in place of torch's.",
        "torch.stack",
    ),
    "ARCH_MISMATCH": ("This cuBLAS has no kernels for the GPU's architecture.", "torch.build"),
    "NOT_SUPPORTED": (
        "The GPU or this cuBLAS does not support the operation (a dtype such as bfloat16 on an old GPU).",
        "torch.build",
    ),
}


def analyse_cublas(text: str) -> Analysis:
    statuses = _CUBLAS.findall(text)
    if not statuses:
        return Analysis()
    status = statuses[-1].upper()
    evidence = (f"CUBLAS_STATUS_{status}",)
    if status not in _CUBLAS_CAUSES:
        return Analysis(evidence=evidence)
    cause, check = _CUBLAS_CAUSES[status]
    return Analysis(evidence=evidence, cause=cause, check=check)


_CUDNN_CAUSES = {
    "NOT_INITIALIZED": (
        "cuDNN could not create its handle: most often the GPU had no memory left for it, otherwise a cuDNN "
        "library that does not belong to this torch (a system or conda copy on LD_LIBRARY_PATH).",
        "gpu.memory",
    ),
    "ALLOC_FAILED": ("cuDNN could not allocate its workspace: the GPU is out of memory.", "gpu.memory"),
    "INTERNAL_ERROR": (
        "cuDNN failed internally: most often out of GPU memory (cudnn.benchmark tries workspace-hungry "
        "algorithms), otherwise a cuDNN that does not fit the driver, or no usable GPU at all (a malformed "
        "CUDA_VISIBLE_DEVICES).",
        "gpu.memory",
    ),
    "EXECUTION_FAILED": (
        "A cuDNN kernel failed to run: an earlier asynchronous error, a GPU this cuDNN has no kernels for, "
        "or a driver problem.",
        "torch.build",
    ),
    "MAPPING_ERROR": (
        "cuDNN could not map GPU memory: usually an earlier asynchronous error, or tensors of another GPU "
        "than the current device (torch.cuda.set_device not called per process).",
        "cuda.visible_devices",
    ),
    "NOT_SUPPORTED": (
        "cuDNN does not support this input (a non-contiguous tensor, or a dtype or shape it has no kernel "
        "for).",
        None,
    ),
    "ALGORITHM": (
        "No cuDNN convolution algorithm could run, almost always because none fits in the GPU memory left.",
        "gpu.memory",
    ),
}


def analyse_cudnn(text: str) -> Analysis:
    found = _CUDNN.findall(text)
    if not found:
        return Analysis()
    status, algorithm = found[-1]
    key = "ALGORITHM" if algorithm else status.upper()
    evidence = ("no cuDNN algorithm could run",) if algorithm else (f"CUDNN_STATUS_{key}",)
    if key not in _CUDNN_CAUSES:
        return Analysis(evidence=evidence)
    cause, check = _CUDNN_CAUSES[key]
    return Analysis(evidence=evidence, cause=cause, check=check)


ENTRIES: tuple[Entry, ...] = (
    Entry(
        id="cuda.out_of_memory",
        title="CUDA out of memory",
        patterns=(
            r"CUDA out of memory",
            r"OutOfMemoryError",
            r"Out of memory\. Tried to allocate",
            r"CUDA error: out of memory",
            r"cuda runtime error \(2\) : out of memory",
            r"error=2 : out of memory",
        ),
        cause="The GPU had no room for an allocation: the batch, the activations or the optimizer state are "
        "too large for it, or other processes hold part of its memory.",
        fix=Fix(
            "Lower the batch size (with gradient accumulation to keep the effective batch), use mixed "
            "precision and activation checkpointing, and make sure no other process holds this GPU.",
            ("nvidia-smi --query-compute-apps=pid,used_memory --format=csv",),
        ),
        check="gpu.memory",
        source="research/memory_bandwidth.md 1.6 (c10/cuda/CUDACachingAllocator.cpp, current and old); "
        "'CUDA error: out of memory' and 'cuda runtime error (2)' (THC, torch 0.4 to 1.x): "
        "tests/corpus/errors/*/cuda.out_of_memory.json",
        analyse=analyse_oom,
    ),
    Entry(
        id="mps.out_of_memory",
        title="MPS (Apple GPU) out of memory",
        patterns=(r"MPS backend out of memory",),
        cause="The MPS allocator reached its limit: on Apple silicon the GPU shares the machine's memory, "
        "and PyTorch caps what it takes (the high watermark, by default 1.7 times the recommended working "
        "set).",
        fix=Fix(
            "Lower the batch size or resolution, use float16, free cached memory with "
            "torch.mps.empty_cache(); PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 lifts the cap, at the risk of the "
            "whole system swapping or freezing."
        ),
        source="aten/src/ATen/mps/MPSAllocator.mm (MPSHeapAllocatorImpl::malloc); "
        "tests/corpus/errors/*/mps.out_of_memory.json",
        analyse=analyse_mps_oom,
    ),
    Entry(
        id="cublas.status_error",
        title="cuBLAS error (CUBLAS_STATUS_...)",
        patterns=(r"CUBLAS_STATUS_[A-Z_]+",),
        cause="A cuBLAS call failed. Most often the GPU was out of memory (cuBLAS needs memory for its "
        "handle and workspace), otherwise an earlier asynchronous error or a cuBLAS library that does not "
        "belong to this torch.",
        fix=Fix(
            "Check the GPU memory first (a smaller batch, no other process on the GPU); run once with "
            "CUDA_LAUNCH_BLOCKING=1 to see the operation that really failed; reinstall torch so that its own "
            "nvidia-cublas library is the one loaded (torchdoctor check --only torch.stack shows it).",
            ("CUDA_LAUNCH_BLOCKING=1 python train.py",),
        ),
        check="gpu.memory",
        source="aten/src/ATen/cuda/CublasHandlePool.cpp and CUDABlas.cpp (TORCH_CUDABLAS_CHECK); "
        "tests/corpus/errors/*/cublas.status_error.json",
        analyse=analyse_cublas,
    ),
    Entry(
        id="cudnn.status_error",
        title="cuDNN error (CUDNN_STATUS_...)",
        patterns=(
            r"CUDNN_STATUS_[A-Z_]+",
            r"Unable to find a valid cuDNN algorithm to run convolution",
            r"no valid convolution algorithms available in CuDNN",
        ),
        cause="A cuDNN call failed. Most often the GPU was out of memory (cuDNN needs memory for its "
        "handle and the convolution workspace), otherwise an earlier asynchronous error or a cuDNN library "
        "that does not belong to this torch.",
        fix=Fix(
            "Lower the batch size and keep other processes off the GPU; try torch.backends.cudnn.benchmark = "
            "False; run once with CUDA_LAUNCH_BLOCKING=1 to see the operation that failed; make sure the "
            "cuDNN loaded is torch's own (torchdoctor check --only torch.stack).",
            ("CUDA_LAUNCH_BLOCKING=1 python train.py",),
        ),
        check="gpu.memory",
        source="aten/src/ATen/cudnn/Exceptions.h (AT_CUDNN_CHECK), aten/src/ATen/native/cudnn/Conv_v7.cpp "
        "(try_all); tests/corpus/errors/*/cudnn.status_error.json",
        analyse=analyse_cudnn,
    ),
)
