"""One rank per GPU, counted wrongly: cuda:2 on a machine with two GPUs."""

import torch

device = torch.device("cuda", 2)
x = torch.zeros(8, device=device)  # beyond
