"""Run with -m: reports what it sees."""

import torch

if __name__ == "__main__":
    x = torch.ones(2).cuda()
    print(torch.cuda.device_count(), x.device, x.is_cuda, (x * 2).sum().item())
