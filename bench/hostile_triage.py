"""`torchdoctor triage` of a text built to be slow to read (fenced JSON blocks and collect_env openings, over
and over), at half the input bound and just under it, measured side by side.

    python bench/hostile_triage.py [--runs N]

The text is what tests/test_hostile_inputs.py triages at 1 MiB: a piece that opens a saved report and a
collect_env dump, repeated. Each size is triaged by the installed ``torchdoctor`` as a user would run it.
Targets: every run exits 0, 1 or 2; reading twice the text takes at most 2.5x as long (linear, with room
for the fixed cost of starting); just under the 16 MiB bound, the triage ends within 30 s.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

import sidebyside

PIECE = '```json\n{"schema_version": 1}\n```\nPyTorch version: 2.1.0\n'
MIB = 2**20
SIZES_MIB = (7.5, 15)
GROWTH_TARGET = 2.5
LONGEST_S = 30.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    exe = sidebyside.torchdoctor_exe()
    with tempfile.TemporaryDirectory() as folder:
        commands = {}
        for size in SIZES_MIB:
            path = Path(folder) / f"issue-{size}.md"
            path.write_text((PIECE * (int(size * MIB) // len(PIECE) + 1))[: int(size * MIB)])
            commands[f"triage --json, {size} MiB"] = [exe, "triage", "--json", str(path)]
        samples = sidebyside.rounds(commands, args.runs)
    print(sidebyside.heading(args.runs))
    medians = {name: statistics.median(s["s"] for s in runs) for name, runs in samples.items()}
    codes = {s["code"] for runs in samples.values() for s in runs}
    for name, median in medians.items():
        print(f"{name:<28} {median:8.3f} s")
    small, large = medians.values()
    growth = large / small
    checks = {
        f"exit codes {sorted(codes)} within 0, 1, 2": codes <= {0, 1, 2},
        f"twice the text: {growth:.2f}x the time (target <= {GROWTH_TARGET}x)": growth <= GROWTH_TARGET,
        f"{SIZES_MIB[-1]} MiB in {large:.1f} s (target <= {LONGEST_S:.0f} s)": large <= LONGEST_S,
    }
    for said, met in checks.items():
        print(f"{said}: {'met' if met else 'MISSED'}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
