"""A discarded .to() where assigning the receiver would not fix it: the value of a loop over a dict's items
(the batch of a transformers-style training step), and the element of a loop over a list."""

import os
import sys

import torch
from torch import nn

DEVICE = os.environ.get("DEMO_DEVICE", "cuda")
model = nn.Linear(4, 2).to(DEVICE)

if sys.argv[1] == "dict":
    batch = {"input": torch.randn(3, 4), "labels": torch.randn(3, 2)}
    for name, value in batch.items():  # noqa: B007 (as the real code has it)
        value.to(DEVICE)  # discarded in a dict loop
    model(batch["input"])  # fails
else:
    inputs = [torch.randn(3, 4)]
    for tensor in inputs:
        tensor.to(DEVICE)  # discarded in a list loop
    model(inputs[0])  # fails
