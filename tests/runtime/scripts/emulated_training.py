"""An MNIST-like training script written for a GPU, unchanged: it runs on the CPU where no GPU is."""

import sys

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)
images, labels = torch.randn(256, 1, 28, 28), torch.randint(0, 10, (256,))
loader = DataLoader(TensorDataset(images, labels), batch_size=64, pin_memory=torch.cuda.is_available())
model = nn.Sequential(nn.Flatten(), nn.Linear(784, 64), nn.ReLU(), nn.Linear(64, 10)).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(2):
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
    print(f"epoch {epoch} loss {loss.item():.6f}")
weight = model[1].weight
state = optimizer.state[weight]
print(weight.device, weight.grad.device, state["exp_avg"].device, file=sys.stderr)
