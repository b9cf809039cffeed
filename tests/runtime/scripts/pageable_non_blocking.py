"""non_blocking=True from pageable memory, the same from pinned memory (where a GPU lets memory be pinned),
and thousands of tiny copies."""

import os

import torch

DEVICE = os.environ.get("DEMO_DEVICE", "cuda")
batches = [torch.randn(64, 1024) for _ in range(8)]
for batch in batches:
    on_device = batch.to(DEVICE, non_blocking=True)  # pageable
if torch.cuda.is_available():
    pinned = [b.pin_memory() for b in batches]
    for batch in pinned:
        on_device = batch.to(DEVICE, non_blocking=True)  # pinned
for step in range(1200):
    lr = torch.tensor(0.1 * step).to(DEVICE)  # tiny
print(on_device.shape, lr.shape)
