"""A tensor kept as a plain attribute: Module.to() moves the parameters and buffers, not it."""

import os

import torch
from torch import nn

DEVICE = os.environ.get("DEMO_DEVICE", "cuda")


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(16, 16)
        self.scale = torch.ones(16)  # made

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x) * self.scale  # fails


model = Net()
model.to(DEVICE)  # moved
x = torch.randn(8, 16, device=DEVICE)
print(model(x).sum())
