"""Helpers of helper_tensor.py, in another file: they make their tensors on the CPU."""

import torch


def position_bias(n: int) -> torch.Tensor:
    return torch.zeros(n, n)  # made


def causal_mask(n: int) -> torch.Tensor:
    return torch.ones(n, n).tril()  # op
