"""A model converted with .half(): float16 holds at most 65504, and unscaled dot products of raw pixel values
go far beyond."""

import os

import torch
from torch import nn

DEVICE = os.environ.get("DEMO_DEVICE", "cpu")


class Scores(nn.Module):
    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        return q @ k.transpose(-1, -2)  # no 1/sqrt(d) scaling


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Linear(512, 512)
        self.scores = Scores()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.embed(x)
        return self.scores(h, h)


torch.manual_seed(0)
model = Net().to(DEVICE)
model.half()  # converted
x = (torch.rand(16, 512, device=DEVICE) * 255).half()  # raw pixel values, not normalised
for step in range(3):
    out = model(x)
    print(step, out.float().abs().max().item())
