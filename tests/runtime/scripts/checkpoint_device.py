"""A checkpoint saved on another GPU, loaded without map_location: its tensors land on that GPU.

python checkpoint_device.py CHECKPOINT  (make_checkpoint.py writes one saved on cuda:3)
"""

import sys

import torch
from torch import nn

state = torch.load(sys.argv[1])  # loaded
model = nn.Linear(16, 16).cuda()
x = torch.randn(8, 16, device="cuda")
with torch.no_grad():
    out = model(x) + state["bias"]  # fails
print(out.shape)
