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
import statistics

import sidebyside

TARGET_ADDED_S = 0.1
COMPANIONS = ("torchvision", "torchaudio", "torchtext", "torchdata", "triton", "xformers", "flash-attn")


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
    exe = sidebyside.torchdoctor_exe()
    commands = {
        "check --only torch.build": [exe, "check", "--only", "torch.build"],
        "check --only torch.build,torch.stack": [exe, "check", "--only", "torch.build,torch.stack"],
    }
    samples = {
        name: [run["s"] for run in runs] for name, runs in sidebyside.rounds(commands, args.runs).items()
    }
    base, with_stack = (statistics.median(samples[name]) for name in commands)
    print(sidebyside.heading(args.runs))
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
