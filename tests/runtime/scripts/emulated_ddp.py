"""A DDP training script written for one GPU per rank, as torchrun starts it."""

import os
import sys

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

local_rank = int(os.environ["LOCAL_RANK"])
dist.init_process_group("nccl")
if "--forget-set-device" not in sys.argv:
    torch.cuda.set_device(local_rank)
device = torch.device("cuda")
torch.manual_seed(0)
ids = [0] if "--device-ids-zero" in sys.argv else [local_rank]
model = DistributedDataParallel(nn.Linear(8, 2).to(device), device_ids=ids)  # wrapped
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):
    x = torch.randn(4, 8, device=device)
    loss = model(x).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
weight = model.module.weight
total = weight.detach().clone()
dist.all_reduce(total)
print(f"rank {dist.get_rank()} on {weight.device}: {total.sum().item():.6f}", flush=True)
dist.destroy_process_group()
# torch's gloo (2.13, CPU) can abort at interpreter teardown after a DDP run, with or without torchdoctor
# ("terminate called without an active exception", SIGABRT, in about one run of ten on a busy machine): the
# script ends before the teardown, which is not what the tests look at
sys.stdout.flush()
os._exit(0)
