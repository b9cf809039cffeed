"""Implicit synchronisations with the GPU: .item() and bool() on device tensors each step (torchdoctor run
--deep counts them per line; on the CPU there is nothing to wait for).

    DEMO_DEVICE=cuda python implicit_syncs.py
"""

import os

import torch

DEVICE = os.environ.get("DEMO_DEVICE", "cuda")
x = torch.randn(256, 256, device=DEVICE)
total = 0.0
for _ in range(50):
    y = x @ x
    total += y.mean().item()  # item
    if (y > 100).any():  # bool
        total += 1
print(round(total, 3))
