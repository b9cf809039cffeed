"""Error messages of a device that is not there: no GPU at all, device ordinals, GPU checkpoints without
that GPU, pinning without an accelerator.

Registered in the entry-point group ``torchdoctor.explanations``; quoted from where torch raises them, the
research notes (research/ddp_dryrun.md 3, research/cuda_semantics.md), and the real texts of
tests/corpus/errors.
"""

from __future__ import annotations

import re

from torchdoctor.explain import Analysis, Entry
from torchdoctor.explain.model import last_match
from torchdoctor.model import Fix

_ORDINAL = re.compile(r"device(?:_index)?=(\d+), num_gpus=(\d*)")


def analyse_ordinal(text: str) -> Analysis:
    match = last_match(_ORDINAL, text)
    if match is None:
        return Analysis()
    seen = match[2] or "0"
    return Analysis(evidence=(f"asked for cuda:{match[1]}; this process sees {seen} GPU(s)",))


ENTRIES: tuple[Entry, ...] = (
    Entry(
        id="cuda.invalid_device_ordinal",
        title="Invalid device ordinal",
        patterns=(
            r"invalid device ordinal",
            r"device_id cuda:\d+ is out of range",
            r"device(?:_index)? >= 0 && device(?:_index)? < num_gpus INTERNAL ASSERT FAILED",
        ),
        cause="The code asked for cuda:N with N at or beyond the number of GPUs this process sees: "
        "LOCAL_RANK beyond the visible GPUs (--nproc-per-node larger than the GPU count, a narrower "
        "CUDA_VISIBLE_DEVICES), or the global RANK used where LOCAL_RANK belongs on a second node.",
        fix=Fix(
            "Use torch.cuda.set_device(int(os.environ['LOCAL_RANK'])), start at most as many ranks per node "
            "as visible GPUs, and check CUDA_VISIBLE_DEVICES.",
            ("nvidia-smi -L",),
        ),
        check="cuda.visible_devices",
        source="research/ddp_dryrun.md F9; research/cuda_semantics.md; aten/src/ATen/cuda/CUDAContext.cpp "
        "and c10/cuda/CUDAStream.cpp (the INTERNAL ASSERT form, torch 1.x to 2.7)",
        analyse=analyse_ordinal,
    ),
    Entry(
        id="cuda.no_gpus_available",
        title="No CUDA GPUs are available",
        patterns=(r"No CUDA GPUs are available", r"no CUDA-capable device is detected"),
        cause="CUDA started but sees no GPU in this process: CUDA_VISIBLE_DEVICES names a GPU that does not "
        "exist (a script that sets it to '1' on a one-GPU machine, or to ''), a container or job started "
        "without GPUs, or a machine without an NVIDIA GPU.",
        fix=Fix(
            "Point CUDA_VISIBLE_DEVICES at GPUs this machine has (indices from nvidia-smi -L, set before "
            "Python starts), or leave it unset; give containers and jobs their GPUs (docker run --gpus all, "
            "--gres=gpu:N).",
            ("echo $CUDA_VISIBLE_DEVICES", "nvidia-smi -L"),
        ),
        check="cuda.visible_devices",
        source="c10/cuda/CUDAFunctions.cpp device_count_ensure_non_zero ('No CUDA GPUs are available'); "
        "THC's 'no CUDA-capable device is detected' (cudaErrorNoDevice) in torch 1.x; "
        "tests/corpus/errors/*/cuda.no_gpus_available.json",
    ),
    Entry(
        id="load.map_location",
        title="Loading GPU tensors where that GPU does not exist",
        patterns=(
            r"Attempting to deserialize object on a \w+ device but torch\.\w+\.is_available\(\) is False",
            r"Attempting to deserialize object on \w+ device \d+ but torch\.\w+\.device_count\(\) is \d+",
        ),
        cause="The checkpoint was saved from GPU tensors, and torch.load puts them back on the device they "
        "were saved from, which this machine or process does not have.",
        fix=Fix(
            "Map the tensors to a device that exists: torch.load(path, map_location='cpu') on a machine "
            "without a GPU, or map_location='cuda:0' (or f'cuda:{local_rank}') when it has fewer GPUs."
        ),
        check="torch.build",
        source="torch 2.13 torch/serialization.py _validate_device",
    ),
    Entry(
        id="transfer.pin_memory_without_gpu",
        title="pin_memory without a GPU",
        patterns=(
            r"but no accelerator is found",
            r"Cannot access accelerator device when none is available",
            r"Need to provide pin_memory allocator to use pin memory",
            r"pin_memory=True requires a CUDA or other accelerator backend",
            r"Could not run 'aten::_pin_memory' with arguments from the '\w+' backend",
        ),
        cause="Pinned (page-locked) memory needs an accelerator, and this process sees none: a CPU-only "
        "torch, no driver, or CUDA_VISIBLE_DEVICES hiding every GPU.",
        fix=Fix("Set pin_memory=False on a machine without a GPU; otherwise find out why torch sees none."),
        check="cuda.visible_devices",
        source="torch 2.13 torch/utils/data/dataloader.py; torch.empty(2).pin_memory() on the CPU build; "
        "aten/src/ATen/native/Memory.cpp (older builds: no '_pin_memory' kernel for the CUDA backend); "
        "tests/corpus/errors/*/transfer.pin_memory_without_gpu.json",
    ),
)
