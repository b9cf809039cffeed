"""What `torchdoctor run --gpus 1` costs a small training loop, against plain python on the CPU, side by side.

    python bench/emulation_overhead.py [--runs N] [--steps N] [--width N]

tests/runtime/scripts/train_loop.py --device auto (cuda where torch.cuda.is_available(), as a script written
for a GPU picks its device) runs three ways in each round, in a shuffled order: as plain `python` runs it on
a CPU-only machine (it picks the CPU), under `torchdoctor run` (the recorder alone, on the CPU) and under
`torchdoctor run --gpus 1` (it picks cuda, emulated). All run in this process through the launcher
`torchdoctor run` uses, and the loop's own CPU seconds, printed by the script, are compared. Every run must
print the same final loss: the emulated GPU computes the CPU's values.

Every torch function the program calls passes through a TorchFunctionMode (only a call whose tensors are on
two devices is run again under a TorchDispatchMode, operation by operation): its own floor is a Python call
per torch function, a few dozen a step on this loop (torch's own optimizers step outside the mode), so the
smaller the layers (the default --width 64 is tiny), the larger the ratio. --width 512 gives layers whose
operations take longer than that call.

Target: --gpus 1 at most 2x plain python on the loop.
"""

from __future__ import annotations

import argparse
import time

import sidebyside
from runtime_overhead import conclude, in_process

from torchdoctor.runtime.session import Options

TARGET = 2.0
WAYS: dict[str, Options | None] = {
    "python": None,
    "torchdoctor run": Options(),
    "torchdoctor run --gpus 1": Options(gpus=1),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--width", type=int, default=64, help="hidden units of the MLP (train_loop.py)")
    args = parser.parse_args()
    started = time.perf_counter()
    loop_s, losses = in_process(args.runs, args.steps, WAYS, ("--device", "auto", "--width", str(args.width)))
    heading = sidebyside.heading(args.runs)
    print(f"train_loop.py --device auto --width {args.width}, {args.steps} steps, in one process; {heading}")
    print(f"{'':26} {'loop CPU s':>10} {'ratio':>6}")
    for name in WAYS:
        print(f"{name:26} {loop_s[name]:10.3f} {loop_s[name] / loop_s['python']:5.2f}x")
    conclude("--gpus 1", loop_s["torchdoctor run --gpus 1"] / loop_s["python"], TARGET, losses, started)


if __name__ == "__main__":
    main()
