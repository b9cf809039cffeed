"""Tensor.to() returns a moved copy: called on a line of its own, its result is thrown away."""

import os

import torch
from torch import nn

DEVICE = os.environ.get("DEMO_DEVICE", "cuda")

model = nn.Linear(16, 1).to(DEVICE)
x = torch.randn(8, 16).to(DEVICE)
y = torch.randn(8, 1)  # made
y.to(DEVICE)  # discarded
loss = ((model(x) - y) ** 2).mean()  # fails
print(loss)
