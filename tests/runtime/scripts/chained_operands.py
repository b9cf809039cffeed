"""A line whose first operation fails, with a second tensor on the same wrong device further along it (a
scale and a bias applied to activations, as a normalisation written by hand does) and a CPU index, which is
allowed to stay on the CPU."""

import os

import torch

DEVICE = os.environ.get("DEMO_DEVICE", "cuda")

activations = torch.randn(4, 6, device=DEVICE)
rows = torch.tensor([0, 2])  # an index: fine on the CPU
scale = torch.ones(6)  # scale made
bias = torch.zeros(6)  # bias made
print(activations[rows] * scale + bias)  # fails
