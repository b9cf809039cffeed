"""Error messages of a device that is not there: device ordinals, GPU checkpoints without that GPU, pinning.

Registered in the entry-point group ``torchdoctor.explanations``; quoted from where torch raises them, and
the research notes (research/memory_bandwidth.md 1.6, research/ddp_dryrun.md 3, research/cuda_semantics.md).
"""

from __future__ import annotations

from torchdoctor.explain import Entry
from torchdoctor.model import Fix

ENTRIES: tuple[Entry, ...] = (
    Entry(
        id="cuda.invalid_device_ordinal",
        title="Invalid device ordinal",
        patterns=(r"invalid device ordinal", r"device_id cuda:\d+ is out of range"),
        cause="The code asked for cuda:N with N at or beyond the number of GPUs this process sees: "
        "LOCAL_RANK beyond the visible GPUs (--nproc-per-node larger than the GPU count, a narrower "
        "CUDA_VISIBLE_DEVICES), or the global RANK used where LOCAL_RANK belongs on a second node.",
        fix=Fix(
            "Use torch.cuda.set_device(int(os.environ['LOCAL_RANK'])), start at most as many ranks per node "
            "as visible GPUs, and check CUDA_VISIBLE_DEVICES.",
            ("nvidia-smi -L",),
        ),
        check="cuda.visible_devices",
        source="research/ddp_dryrun.md F9; research/cuda_semantics.md",
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
            r"'pin_memory' argument is set as true but no accelerator is found",
            r"Cannot access accelerator device when none is available",
        ),
        cause="Pinned (page-locked) memory needs an accelerator, and this process sees none: a CPU-only "
        "torch, no driver, or CUDA_VISIBLE_DEVICES hiding every GPU.",
        fix=Fix("Set pin_memory=False on a machine without a GPU; otherwise find out why torch sees none."),
        check="cuda.visible_devices",
        source="torch 2.13 torch/utils/data/dataloader.py; torch.empty(2).pin_memory() on the CPU build",
    ),
)
