"""A model moved, then compiled (as nanoGPT's train.py does: model.to(device), then torch.compile(model)),
whose forward meets a plain tensor attribute left on the CPU."""

import os

import torch
from torch import nn

DEVICE = os.environ.get("DEMO_DEVICE", "cuda")


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.scale = torch.ones(4)  # made

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x) * self.scale  # fails inside the compiled code


model = Net().to(DEVICE)  # moved
model = torch.compile(model, backend="eager")
print(model(torch.randn(2, 4, device=DEVICE)))  # compiled call
