"""Messages about host-to-device copies: non_blocking copies from pageable memory.

Registered in the entry-point group ``torchdoctor.explanations``; quoted from where torch raises them, and
the research notes (research/memory_bandwidth.md 1.6, research/ddp_dryrun.md 3, research/cuda_semantics.md).
"""

from __future__ import annotations

from torchdoctor.explain import Entry
from torchdoctor.model import Fix

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
)
