"""Start-up and run time of torchdoctor against `python -c "import torch"`, measured side by side.

    python bench/startup.py [--runs N]

Each round runs every command once, in a shuffled order, so machine noise hits all of them alike; the table
shows medians and the ratio to importing torch. Peak memory is the largest resident set of any process a
command started (the CLI, its workers, the dry run's ranks), from getrusage of a wrapper that waits for it.

Targets: `torchdoctor --help` <= 0.15x, `torchdoctor check` (every check, the DDP dry run's two ranks
included) <= 1.05x, `torchdoctor check --only torch.build,cuda.visible_devices` <= 1.1x, peak memory of
`check` <= 1.1x that of importing torch.
"""

from __future__ import annotations

import argparse
import statistics
import sys

import sidebyside

IMPORT = 'python -c "import torch"'
TARGETS = {
    "torchdoctor --help": 0.15,
    "torchdoctor check": 1.05,
    "torchdoctor check --only torch.build,cuda.visible_devices": 1.1,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    exe = sidebyside.torchdoctor_exe()
    commands = {
        IMPORT: [sys.executable, "-c", "import torch"],
        "torchdoctor --help": [exe, "--help"],
        "torchdoctor check": [exe, "check"],
        "torchdoctor check --only torch.build,cuda.visible_devices": [
            exe,
            "check",
            "--only",
            "torch.build,cuda.visible_devices",
        ],
        "python -m torch.utils.collect_env": [sys.executable, "-m", "torch.utils.collect_env"],
    }
    samples = sidebyside.rounds(commands, args.runs)
    base = statistics.median(s["s"] for s in samples[IMPORT])
    base_rss = max(s["rss_kb"] for s in samples[IMPORT])
    print(sidebyside.heading(args.runs))
    print(f"{'command':<58} {'median s':>9} {'ratio':>7} {'peak MiB':>9} {'mem ratio':>9}")
    ratios = {}
    for name, runs in samples.items():
        median = statistics.median(s["s"] for s in runs)
        rss = max(s["rss_kb"] for s in runs)
        ratios[name] = median / base
        print(f"{name:<58} {median:9.3f} {median / base:6.2f}x {rss / 1024:9.1f} {rss / base_rss:8.2f}x")
    for name, target in TARGETS.items():
        verdict = "met" if ratios[name] <= target else "MISSED"
        print(f"{name}: {ratios[name]:.2f}x of importing torch (target <= {target}x): {verdict}")


if __name__ == "__main__":
    main()
