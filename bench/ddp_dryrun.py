"""The 2-rank gloo dry run, CLI included, against torchrun running a minimal DDP script, side by side.

    python bench/ddp_dryrun.py [--runs N]

Each round runs both commands once, in a shuffled order, so machine noise hits both alike:
`torchdoctor check --only ddp.dryrun` (2 ranks, gloo, no GPU needed) and
`torchrun --standalone --nproc-per-node 2` on a script that does init_process_group, all_reduce and
barrier. Peak memory of the largest rank comes from the dry run's own report (each rank's getrusage
maximum resident set), against the peak of `python -c "import torch"`.

Targets: dry run <= 0.75x torchrun's time; no rank above 1.1x the peak memory of importing torch.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

import sidebyside

MINIMAL_DDP = """
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
tensor = torch.ones(4)
dist.all_reduce(tensor)
dist.barrier()
dist.destroy_process_group()
"""


def largest_rank_kb(report_json: str) -> float:
    ranks = json.loads(report_json)["facts"]["ddp.dryrun"]["ranks"]
    return max(float(r["peak_rss_bytes"]) for r in ranks) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    exe = sidebyside.torchdoctor_exe()
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "minimal_ddp.py"
        script.write_text(MINIMAL_DDP)
        commands = {
            "torchdoctor check --only ddp.dryrun": [exe, "check", "--only", "ddp.dryrun", "--json"],
            "torchrun --standalone --nproc-per-node 2": [
                sys.executable,
                "-m",
                "torch.distributed.run",
                "--standalone",
                "--nproc-per-node",
                "2",
                str(script),
            ],
            'python -c "import torch"': [sys.executable, "-c", "import torch"],
        }
        samples = sidebyside.rounds(commands, args.runs, expect_code=0)
    seconds = {name: statistics.median(float(s["s"]) for s in runs) for name, runs in samples.items()}
    dry, torchrun = (
        seconds["torchdoctor check --only ddp.dryrun"],
        seconds["torchrun --standalone --nproc-per-node 2"],
    )
    rank_kb = max(largest_rank_kb(str(s["stdout"])) for s in samples["torchdoctor check --only ddp.dryrun"])
    torch_kb = max(float(s["rss_kb"]) for s in samples['python -c "import torch"'])
    print(sidebyside.heading(args.runs))
    print(f"{'command':<42} {'median s':>9}")
    for name, median in seconds.items():
        print(f"{name:<42} {median:9.3f}")
    print(f"time: dry run / torchrun = {dry / torchrun:.2f}x (target <= 0.75x)")
    print(
        f"peak memory: largest rank {rank_kb / 1024:.1f} MiB / import torch {torch_kb / 1024:.1f} MiB = "
        f"{rank_kb / torch_kb:.2f}x (target <= 1.1x)"
    )


if __name__ == "__main__":
    main()
