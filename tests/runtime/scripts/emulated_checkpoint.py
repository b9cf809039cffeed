"""Saves a model on one GPU, or loads what was saved without map_location."""

import sys

import torch
from torch import nn

action, path = sys.argv[1], sys.argv[2]
if action == "save":
    model = nn.Linear(4, 4).to(sys.argv[3])
    torch.save({"model": model.state_dict(), "step": 3}, path)
else:
    state = torch.load(path)  # loaded
    print(state["model"]["weight"].device)
