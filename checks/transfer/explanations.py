"""Messages about host-to-device copies: non_blocking copies from pageable memory, pinning that fails.

Registered in the entry-point group ``torchdoctor.explanations``; quoted from where torch raises them, the
research notes (research/memory_bandwidth.md 4), and the real texts of tests/corpus/errors.
"""

from __future__ import annotations

import re

from torchdoctor.explain import Analysis, Entry
from torchdoctor.explain.model import last_match
from torchdoctor.model import Fix

_CANNOT_PIN = re.compile(r"cannot pin '([\w.]{1,80})'")


def analyse_cannot_pin(text: str) -> Analysis:
    """A GPU tensor handed to pin_memory is a code error; a pin memory thread that dies is the machine's."""
    match = last_match(_CANNOT_PIN, text)
    if match is None:
        return Analysis(check="transfer.pinned")
    if "cuda" not in match[1].lower():
        return Analysis(evidence=(f"the tensor to pin is a {match[1]}",))
    return Analysis(
        evidence=(f"the tensor to pin is a {match[1]}: it is already on the GPU",),
        fix=Fix(
            "The dataset or collate_fn returns tensors that are already on the GPU, so the DataLoader's "
            "pin_memory=True cannot pin them: return CPU tensors from the dataset and move each batch with "
            ".to(device, non_blocking=True), or set pin_memory=False."
        ),
    )


ENTRIES: tuple[Entry, ...] = (
    Entry(
        id="transfer.pageable_non_blocking",
        title="non_blocking copies from pageable memory",
        patterns=(
            r"Memcpy HtoD \(Pageable -> Device\)",
            r"non_blocking=True[^\n]{0,80}(?:pageable|not pinned|unpinned|without pin)",
            r"(?:pageable|not pinned|unpinned)[^\n]{0,80}non_blocking",
        ),
        cause="A host-to-GPU copy from pageable memory is staged by the driver through a pinned buffer and "
        "waits for the host, so non_blocking=True does not overlap it with compute; only copies from pinned "
        "memory do.",
        fix=Fix(
            "Let the DataLoader pin batches on its own thread (DataLoader(..., pin_memory=True)) and copy "
            "with .to(device, non_blocking=True). Calling .pin_memory() yourself before each copy is slower "
            "than a plain copy (PyTorch's pin_memory/non_blocking tutorial)."
        ),
        check="transfer.pinned",
        source="research/memory_bandwidth.md 4 (pytorch/tutorials intermediate_source/pinmem_nonblock.py)",
    ),
    Entry(
        id="transfer.cannot_pin",
        title="pin_memory failed",
        patterns=(
            r"cannot pin '",
            r"only (?:dense )?CPU (?:tensors|memory) can be pinned",
            r"Caught \w+ in pin memory thread",
            r"Pin memory thread exited unexpectedly",
        ),
        cause="The DataLoader's pin_memory step failed: it was handed tensors that are already on the GPU "
        "(a dataset or collate_fn that calls .cuda()), or page-locking the batch failed (too little "
        "pinnable host memory, a pin memory thread that died with the error shown above it).",
        fix=Fix(
            "Return CPU tensors from the dataset and collate_fn and move batches to the GPU in the training "
            "loop; when the batch is already on the GPU or pinning keeps failing, set pin_memory=False."
        ),
        source="aten/src/ATen/native/Memory.cpp pin_memory ('cannot pin ... only dense CPU tensors can be "
        "pinned'); torch/utils/data/_utils/pin_memory.py and dataloader.py (the pin memory thread); "
        "tests/corpus/errors/*/transfer.cannot_pin.json",
        analyse=analyse_cannot_pin,
    ),
)
