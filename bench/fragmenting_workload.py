"""A small workload that fragments the CUDA caching allocator, then records what it did.

    python bench/fragmenting_workload.py OUT_DIR

Interleaved lifetimes, the pattern research/memory_bandwidth.md §1.4 describes: 64 MiB blocks are
allocated and freed (cached as free 64 MiB segments), 20 MiB tensors are cut out of them three at
a time, every other one is freed, and a 40 MiB request then finds no free block large enough.
With the process capped just above what it reserved (set_per_process_memory_fraction), that
request fails: an out-of-memory error with plenty of free memory in the cache. Writes to OUT_DIR:

- ``snapshot.pickle``: torch.cuda.memory._dump_snapshot(), with the allocation history;
- ``memory_stats.json``: torch.cuda.memory_stats();
- ``memory_report.json`` and ``memory_report.txt``: torchdoctor.memory_report() inside this process.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

MIB = 2**20


def main(out: Path) -> int:
    import torch

    import torchdoctor

    if not torch.cuda.is_available():
        print(f"no CUDA device (torch {torch.__version__}): nothing to fragment")
        return 0
    out.mkdir(parents=True, exist_ok=True)
    torch.cuda.memory._record_memory_history(max_entries=100_000)
    device = torch.device("cuda:0")
    blocks = [torch.empty(64 * MIB, dtype=torch.uint8, device=device) for _ in range(32)]
    del blocks  # 32 free 64 MiB segments stay cached
    pieces = [torch.empty(20 * MIB, dtype=torch.uint8, device=device) for _ in range(96)]
    kept = pieces[::2]  # every other one lives on: 20 MiB holes between live tensors
    del pieces
    reserved = torch.cuda.memory_reserved(device)
    total = torch.cuda.get_device_properties(device).total_memory
    torch.cuda.set_per_process_memory_fraction(min((reserved + 8 * MIB) / total, 1.0), device)
    try:
        torch.empty(40 * MIB, dtype=torch.uint8, device=device)
        print("the 40 MiB request fit: no out-of-memory error recorded")
    except torch.OutOfMemoryError as exc:
        print("out of memory, as intended:", str(exc).splitlines()[0])
    torch.cuda.memory._dump_snapshot(str(out / "snapshot.pickle"))
    (out / "memory_stats.json").write_text(json.dumps(dict(torch.cuda.memory_stats(device)), indent=1))
    report = torchdoctor.memory_report()
    (out / "memory_report.json").write_text(json.dumps(report.to_json(), indent=1))
    (out / "memory_report.txt").write_text(str(report))
    print(report)
    print(f"kept {len(kept)} tensors of 20 MiB; reserved {reserved / MIB:.0f} MiB")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1])))
