"""non_blocking=True from pageable memory, and thousands of tiny copies."""

import os

import torch

DEVICE = os.environ.get("DEMO_DEVICE", "cuda")
batches = [torch.randn(64, 1024) for _ in range(8)]
total = torch.zeros((), device=DEVICE)
for batch in batches:
    batch = batch.to(DEVICE, non_blocking=True)  # pageable
    total += batch.sum()
for step in range(1200):
    lr = torch.tensor(0.1 * step).to(DEVICE)  # tiny
    total += lr
print(total.shape)
