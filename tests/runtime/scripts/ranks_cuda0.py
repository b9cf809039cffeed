"""Every rank of a torchrun job on cuda:0: 'cuda' means the current device, and nothing set it.

torchrun --nproc-per-node 2 -m torchdoctor run ranks_cuda0.py
"""

import os

import torch
from torch import nn

local_rank = int(os.environ.get("LOCAL_RANK", "0"))
model = nn.Linear(16, 16).cuda()  # model on cuda:0
x = torch.randn(8, 16, device="cuda")  # batch on cuda:0
with torch.no_grad():
    print(f"rank {local_rank}:", model(x).shape)
