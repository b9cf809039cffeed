"""A small CPU training loop: an MLP on random data with Adam, batches from a DataLoader, .to(device) each
step. Prints the loop's own seconds (wall and CPU) and the final loss; --save writes the trained weights.

    python train_loop.py [--steps N] [--save PATH] [--device auto] [--width N]

--device auto is what a script written for a GPU does: cuda where torch.cuda.is_available(), else the CPU.
"""

import argparse
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=40)
parser.add_argument("--save")
parser.add_argument("--device", default="cpu")
parser.add_argument("--width", type=int, default=64, help="hidden units (the inputs have width/2 features)")
args = parser.parse_args()

torch.manual_seed(0)
torch.set_num_threads(1)  # the per-step cost of Python and dispatch, not of threads waiting for each other
auto = "cuda" if torch.cuda.is_available() else "cpu"
device = torch.device(auto if args.device == "auto" else args.device)
features = max(1, args.width // 2)
data = TensorDataset(torch.randn(512, features), torch.randint(0, 10, (512,)))
loader = DataLoader(data, batch_size=32, shuffle=True)
model = nn.Sequential(nn.Linear(features, args.width), nn.ReLU(), nn.Linear(args.width, 10)).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()

started, started_cpu = time.perf_counter(), time.process_time()
step = 0
while step < args.steps:
    for x, y in loader:  # batches
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        step += 1
        if step == args.steps:
            break
elapsed, cpu = time.perf_counter() - started, time.process_time() - started_cpu
print(f"loop_s {elapsed:.6f} loop_cpu_s {cpu:.6f} steps {step} loss {loss.item():.8f}")
if args.save:
    torch.save(model.state_dict(), args.save)
