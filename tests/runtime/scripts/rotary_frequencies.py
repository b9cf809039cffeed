"""Rotary embedding frequencies computed over several lines of a helper, as LLaMA-style code computes
inv_freq (torch.arange without device=, then arithmetic), used against activations on the device."""

import os

import torch

DEVICE = os.environ.get("DEMO_DEVICE", "cuda")


def rotary_frequencies(dim: int, base: float = 10000.0) -> torch.Tensor:
    exponents = torch.arange(0, dim, 2)  # made without device
    scaled = exponents.float() / dim
    return 1.0 / (base**scaled)  # last operation


activations = torch.randn(4, device=DEVICE)
print(activations * rotary_frequencies(8))  # fails
