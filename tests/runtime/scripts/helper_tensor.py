"""A CPU tensor made by a helper in another file meets a tensor on the device.

python helper_tensor.py [bias|mask]
"""

import os
import sys

import torch
from mask_helpers import causal_mask, position_bias

DEVICE = os.environ.get("DEMO_DEVICE", "cuda")
scores = torch.randn(4, 8, 8, device=DEVICE)
if sys.argv[1:] == ["mask"]:
    masked = scores * causal_mask(8)  # fails with the mask
else:
    bias = position_bias(8)
    scores = scores + bias  # fails with the bias
print(scores.shape)
