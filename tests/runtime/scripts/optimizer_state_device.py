"""Resuming an optimizer: its state is loaded onto its parameters' device, so the model must be on the GPU
first. With --late the model moves after the load, and the state stays on the CPU.

    python optimizer_state_device.py [--late]
"""

import sys

import torch
from torch import nn

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)
model = nn.Linear(4, 2)
optimizer = torch.optim.Adam(model.parameters())
model(torch.randn(3, 4)).sum().backward()
optimizer.step()
saved = optimizer.state_dict()
late = "--late" in sys.argv
if not late:
    model.to(device)
optimizer = torch.optim.Adam(model.parameters())
optimizer.load_state_dict(saved)  # each state tensor goes to its parameter's device
if late:
    model.to(device)
model(torch.randn(3, 4, device=device)).sum().backward()
optimizer.step()  # steps
state = optimizer.state[model.weight]
print(model.weight.device, state["exp_avg"].device, state["step"].device, float(state["step"]))
