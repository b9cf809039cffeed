"""A log of values that can be negative, in bfloat16 (a log-variance or log-probability head fed raw
activations): NaN from inputs near 1.4, far inside bfloat16's range; autocast or scaling would not help."""

import os

import torch
from torch import nn

DEVICE = os.environ.get("DEMO_DEVICE", "cpu")


class LogHead(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.log(x)  # negative inputs give NaN


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.head = LogHead()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.fc(x))


torch.manual_seed(0)
model = Net().to(DEVICE, torch.bfloat16)
with torch.no_grad():
    out = model(torch.randn(4, 8, device=DEVICE, dtype=torch.bfloat16))
    print(bool(out.isnan().any()), float(model.fc(torch.randn(4, 8, dtype=torch.bfloat16)).abs().max()) < 10)
