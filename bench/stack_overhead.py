"""What torch.stack adds to `torchdoctor check`, measured side by side.

    python bench/stack_overhead.py [--runs N]

Each round runs `torchdoctor check --only torch.build` and `torchdoctor check --only torch.build,torch.stack`
once, in a shuffled order, so machine noise hits both alike; the table shows the medians, the seconds
torch.stack adds and the ratio. It also lists the companion packages installed, since the target holds for
an environment without them (the operator tries import each companion that is there).

Target: at most +0.1 s when no companion package is installed.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGET_ADDED_S = 0.1
COMPANIONS = ("torchvision", "torchaudio", "torchtext", "torchdata", "triton", "xformers", "flash-attn")


def seconds(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def installed_companions() -> list[str]:
    found = []
    for name in COMPANIONS:
        try:
            found.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            continue
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    exe = shutil.which("torchdoctor") or str(Path(sys.executable).parent / "torchdoctor")
    commands = {
        "check --only torch.build": [exe, "check", "--only", "torch.build"],
        "check --only torch.build,torch.stack": [exe, "check", "--only", "torch.build,torch.stack"],
    }
    for command in commands.values():  # warm the file cache once
        seconds(command)
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        order = list(commands)
        random.shuffle(order)
        for name in order:
            samples[name].append(seconds(commands[name]))
    base, with_stack = (statistics.median(samples[name]) for name in commands)
    print(f"{args.runs} rounds, {time.strftime('%Y-%m-%d %H:%M')}, Python {sys.version.split()[0]}")
    print(f"companion packages installed: {', '.join(installed_companions()) or 'none'}")
    print(f"{'torchdoctor':<40} {'median s':>9} {'min s':>7}")
    for name, runs in samples.items():
        print(f"{name:<40} {statistics.median(runs):9.3f} {min(runs):7.3f}")
    added = with_stack - base
    verdict = "within" if added <= TARGET_ADDED_S else "over"
    print(
        f"torch.stack adds {added:+.3f} s, ratio {with_stack / base:.3f}x "
        f"({verdict} the +{TARGET_ADDED_S} s target)"
    )


if __name__ == "__main__":
    main()
