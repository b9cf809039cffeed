"""Turn what bench/gpu_smoke.sh recorded into test fixtures of that real machine.

    python bench/record_fixture.py SMOKE_DIR

Reads SMOKE_DIR/check.json (``torchdoctor check --json``) and SMOKE_DIR/workload/snapshot.pickle,
and writes to SMOKE_DIR/fixtures/:

- ``<gpu>x<n>_recorded.json``: the saved report itself, its verdicts included, as a fixture;
- ``<gpu>_fragmenting_workload.json``: the same machine's env and nvml facts and the snapshot of
  bench/fragmenting_workload.py (stack frames dropped; the summary needs none).

Each file's ``fixture`` says it was recorded, when, and by which command. Copy them to tests/fixtures/.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from torchdoctor.checks.memory import allocator_snapshot


def _slug(name: str) -> str:
    short = re.sub(r"^NVIDIA\s+", "", name or "gpu").split(" ")[0]
    return re.sub(r"[^a-z0-9]+", "_", short.lower()).strip("_") or "gpu"


def _without_frames(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_frames(v) for k, v in value.items() if k != "frames"}
    if isinstance(value, (list, tuple)):
        return [_without_frames(v) for v in value]
    return value


def main(smoke: Path) -> int:
    report = json.loads((smoke / "check.json").read_text())
    facts = report["facts"]
    nv = facts.get("nvml") or {}
    gpus = nv.get("gpus") or []
    name = gpus[0]["name"] if gpus else "no_gpu"
    machine = f"{_slug(name)}x{len(gpus)}"
    torch_version = (facts.get("torch") or {}).get("version")
    where = (
        f"Recorded by bench/gpu_smoke.sh at {report['created_at']} on {len(gpus)}x {name} "
        f"(driver {nv.get('driver_version')}, torch {torch_version}, host {report['host'].get('os')})"
    )
    out = smoke / "fixtures"
    out.mkdir(exist_ok=True)
    made = {"made": "recorded", "date": report["created_at"], "command": "bench/gpu_smoke.sh OUT_DIR"}
    recorded = {
        **report,
        "fixture": {**made, "source": f"{where}: the report of torchdoctor check --json, unedited."},
    }
    (out / f"{machine}_recorded.json").write_text(json.dumps(recorded, indent=1) + "\n")
    snapshot_path = smoke / "workload" / "snapshot.pickle"
    if snapshot_path.exists():
        snapshot = _without_frames(allocator_snapshot.load(snapshot_path))
        workload = {
            **report,
            "fixture": {
                **made,
                "source": f"{where}: the allocator snapshot of bench/fragmenting_workload.py (interleaved "
                "20 MiB lifetimes in 64 MiB segments, then a 40 MiB request under a memory cap), stack "
                "frames dropped.",
            },
            "facts": {"env": facts.get("env") or {"variables": {}}, "nvml": nv},
            "verdicts": [],
            "snapshot": snapshot,
        }
        (out / f"{_slug(name)}_fragmenting_workload.json").write_text(json.dumps(workload, indent=1) + "\n")
    for path in sorted(out.iterdir()):
        print(path)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1])))
