"""Host<->device copies per line, and what they say: ``non_blocking=True`` from pageable memory, thousands of
tiny copies. Pure functions of counts (tests inject pinned or pageable); no torch here.

Sources of the rules:

- A copy from pageable host memory is staged by the driver and synchronises the host before it starts: CUDA
  Runtime API, "API synchronization behavior" (https://docs.nvidia.com/cuda/cuda-runtime-api/
  api-sync-behavior.html, "For transfers from pageable host memory to device memory, a stream sync is
  performed before the copy is initiated"). PyTorch's tutorial "A guide on good usage of non_blocking and
  pin_memory() in PyTorch" (https://pytorch.org/tutorials/intermediate/pinmem_nonblock.html) shows in its
  traces that only a pinned source overlaps a copy with compute.
- Each copy has a fixed cost, so many small ones cost far more than one large one: CUDA C++ Best Practices
  Guide, "Data Transfer Between Host and Device" (https://docs.nvidia.com/cuda/cuda-c-best-practices-guide/
  #data-transfer-between-host-and-device: "batching many small transfers into one larger transfer performs
  significantly better than making each transfer separately").
"""

from __future__ import annotations

from torchdoctor.runtime.model import Finding, TransferSite, site_text

HOST_TO_DEVICE = "host_to_device"
DEVICE_TO_HOST = "device_to_host"
HOST_DEVICES = frozenset({"cpu"})
NOT_A_COPY = frozenset({"meta"})
"""Devices that hold no data: moving a tensor there or from there copies nothing."""

MANY_COPIES = 1000
"""Copies at one line that make "thousands": the tutorial above measures 1000 tensors copied one by one
against the same data in one copy."""
TINY_COPY_BYTES = 64 * 2**10
"""Mean size of a "tiny" copy: below about 16 KB pinned copies are no faster than pageable ones, and 64 KB
copies reach 4.8 GB/s where 1 MiB copies reach 11 GB/s (npho/cse554 on GitHub,
assignment1/host_GPU/README.md: a Quadro RTX 6000 on PCIe Gen3)."""
_ARROWS = {HOST_TO_DEVICE: "host->device", DEVICE_TO_HOST: "device->host"}
SYNCHRONISING_DEVICES = frozenset({"cuda", "xpu", "mps", "hpu"})
"""Devices whose tensors' .item(), .tolist(), bool() and nonzero() wait for the device to finish."""


def direction(before: str, after: str) -> str | None:
    """Which way a move from device type ``before`` to ``after`` copies, or None when it copies no data
    between host and device (cpu->cpu, cuda->cuda, anything to or from meta)."""
    if before in NOT_A_COPY or after in NOT_A_COPY or (before in HOST_DEVICES) == (after in HOST_DEVICES):
        return None
    return HOST_TO_DEVICE if before in HOST_DEVICES else DEVICE_TO_HOST


def synchronises(device_type: str) -> bool:
    return device_type in SYNCHRONISING_DEVICES


def add(entry: TransferSite, nbytes: int, pinned: bool | None, non_blocking: bool) -> None:
    """Count one copy at ``entry``'s line; ``pinned`` None when the source memory is not known."""
    entry.count += 1
    entry.bytes += nbytes
    if pinned is True:
        entry.pinned += 1
    elif pinned is False:
        entry.pageable += 1
    if non_blocking:
        entry.non_blocking += 1
        if pinned is False:
            entry.non_blocking_pageable += 1


def judge(entry: TransferSite) -> list[Finding]:
    findings = []
    where = site_text(entry.site)
    if entry.direction == HOST_TO_DEVICE and entry.non_blocking_pageable:
        findings.append(
            Finding(
                id="non_blocking_pageable",
                summary=f"non_blocking=True at {where} copies from pageable memory: "
                f"{entry.non_blocking_pageable} of {entry.count} copies cannot overlap with the GPU's work",
                site=entry.site,
                evidence=[
                    "a copy from pageable host memory is staged through a driver buffer and synchronises the "
                    "host first (CUDA runtime API synchronisation behaviour); only a pinned source overlaps",
                ],
                fix="pin the source where it is made: DataLoader(..., pin_memory=True) for batches, or keep "
                "a tensor made once in pinned memory (torch.empty(..., pin_memory=True)); pinning right "
                "before each copy (t.pin_memory().to(device, non_blocking=True)) is slower than a plain copy",
            )
        )
    if entry.count >= MANY_COPIES and entry.bytes / entry.count <= TINY_COPY_BYTES:
        mean = entry.bytes / entry.count
        findings.append(
            Finding(
                id="tiny_copies",
                summary=f"{entry.count} copies at {where} of {mean:,.0f} bytes on average: each pays a "
                "copy's fixed cost, which is how a GPU ends up slower than the CPU",
                site=entry.site,
                evidence=[f"{entry.count} {_ARROWS[entry.direction]} copies, {entry.bytes:,} bytes in all"],
                fix="move the data once, in one piece: build the tensor on the device (device=...), stack "
                "the small tensors first (torch.stack(...).to(device)), or keep the values on the device "
                "between steps instead of copying them each time",
            )
        )
    return findings
