"""What `torchdoctor run` costs a small CPU training loop, measured side by side.

    python bench/runtime_overhead.py [--runs N] [--steps N]

Each round runs tests/runtime/scripts/train_loop.py (an MLP trained with Adam on DataLoader batches moved
with .to(device) each step) three ways, in a shuffled order so that machine noise hits all alike: plain
`python`, `torchdoctor run` (light mode) and `torchdoctor run --deep`. The table shows the medians of the
loop's own seconds (printed by the script, so torch's import and the process start are left out) and of
the whole process, and their ratios to plain python. The loss each run prints must be the same: the
recorder does not change what the program computes.

Target: light mode at most 1.10x plain python on the loop. --deep has no target; its cost is stated.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import sidebyside

TARGET_LIGHT = 1.10
LOOP = Path(__file__).resolve().parent.parent / "tests" / "runtime" / "scripts" / "train_loop.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--steps", type=int, default=400)
    args = parser.parse_args()
    exe = sidebyside.torchdoctor_exe()
    loop = [str(LOOP), "--steps", str(args.steps)]
    commands = {
        "python": [sys.executable, *loop],
        "torchdoctor run": [exe, "run", *loop],
        "torchdoctor run --deep": [exe, "run", "--deep", *loop],
    }
    samples = sidebyside.rounds(commands, args.runs, expect_code=0)
    outputs = {name: [_fields(s["stdout"]) for s in runs] for name, runs in samples.items()}
    losses = {fields["loss"] for runs in outputs.values() for fields in runs}
    loop_s = {name: statistics.median(float(f["loop_s"]) for f in runs) for name, runs in outputs.items()}
    total_s = {name: statistics.median(s["s"] for s in runs) for name, runs in samples.items()}
    print(f"train_loop.py, {args.steps} steps; {sidebyside.heading(args.runs)}")
    print(f"{'':24} {'loop s':>8} {'ratio':>6} {'process s':>10} {'ratio':>6}")
    for name in commands:
        print(
            f"{name:24} {loop_s[name]:8.3f} {loop_s[name] / loop_s['python']:6.2f}x "
            f"{total_s[name]:10.3f} {total_s[name] / total_s['python']:6.2f}x"
        )
    light = loop_s["torchdoctor run"] / loop_s["python"]
    verdict = "meets" if light <= TARGET_LIGHT else "MISSES"
    print(f"light mode {light:.2f}x plain python on the loop: {verdict} the target of {TARGET_LIGHT:.2f}x")
    print(f"final loss the same in every run: {'yes' if len(losses) == 1 else 'NO: ' + ', '.join(losses)}")
    if len(losses) != 1 or light > TARGET_LIGHT:
        raise SystemExit(1)


def _fields(stdout: str) -> dict[str, str]:
    """``loop_s 0.5 steps 400 loss 1.2`` -> {"loop_s": "0.5", "steps": "400", "loss": "1.2"}."""
    words = stdout.split()
    return dict(zip(words[::2], words[1::2], strict=False))


if __name__ == "__main__":
    main()
