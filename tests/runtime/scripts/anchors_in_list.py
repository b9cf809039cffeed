"""Anchors held in a plain list attribute, as torchvision's AnchorGenerator holds its cell_anchors
(torchvision/models/detection/anchor_utils.py moves them in forward; a head that does not is wrong on a GPU):
Module.to() moves parameters and buffers, not tensors inside a list or a dict."""

import os
import sys

import torch
from torch import nn

DEVICE = os.environ.get("DEMO_DEVICE", "cuda")


class AnchorHead(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 4)
        self.cell_anchors = [torch.tensor([-8.0, -8.0, 8.0, 8.0]) for _ in range(2)]  # made in a list
        self.priors = {"p3": torch.ones(4)}  # made in a dict

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if sys.argv[1] == "list":
            return self.fc(x) + self.cell_anchors[0]  # fails with the list
        return self.fc(x) * self.priors["p3"]  # fails with the dict


head = AnchorHead().to(DEVICE)  # moved
print(head(torch.randn(2, 8, device=DEVICE)))
