"""Plain tensor attributes made by operations light mode does not wrap, as real models make them: a
sinusoidal positional encoding transposed into shape (pytorch/examples word_language_model's
PositionalEncoding, held as a plain attribute instead of its register_buffer), a causal mask by tril().view()
(nanoGPT's bias, likewise), and rotary embedding frequencies from arange and arithmetic (the inv_freq of
LLaMA-style models)."""

import math
import os
import sys

import torch
from torch import nn

DEVICE = os.environ.get("DEMO_DEVICE", "cuda")


class Block(nn.Module):
    def __init__(self, d_model: int = 8, max_len: int = 16) -> None:
        super().__init__()
        pe = torch.zeros(max_len, d_model)  # pe made
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.pe = pe.unsqueeze(0).transpose(0, 1)  # pe set
        self.mask = torch.tril(torch.ones(max_len, max_len)).view(1, max_len, max_len)  # mask set
        self.inv_freq = 1.0 / (10000 ** (torch.arange(0, d_model, 2).float() / d_model))  # inv_freq set
        self.fc = nn.Linear(d_model, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if sys.argv[1] == "pe":
            return self.fc(x) + self.pe[: x.size(0), :]  # fails with pe
        if sys.argv[1] == "mask":
            return self.fc(x) * self.mask[0, :1, :8]  # fails with mask
        return self.fc(x)[..., :4] * self.inv_freq  # fails with inv_freq


block = Block().to(DEVICE)  # moved
print(block(torch.randn(4, 1, 8, device=DEVICE)))
