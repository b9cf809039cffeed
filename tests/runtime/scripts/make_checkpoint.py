"""Write a checkpoint whose tensors say they were saved on DEVICE (default cuda:3), on any machine: torch.save
asks torch.serialization.location_tag where each storage lives.

    python make_checkpoint.py PATH [DEVICE]
"""

import sys

import torch

path = sys.argv[1] if len(sys.argv) > 1 else "checkpoint.pt"
device = sys.argv[2] if len(sys.argv) > 2 else "cuda:3"
original = torch.serialization.location_tag
torch.serialization.location_tag = lambda storage: device
try:
    torch.save({"bias": torch.zeros(16), "step": 100}, path)
finally:
    torch.serialization.location_tag = original
