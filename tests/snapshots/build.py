"""Build the allocator snapshot files of tests/snapshots: ``python tests/snapshots/build.py``.

Snapshots are pickles, as ``torch.cuda.memory._dump_snapshot()`` writes them. The plain ones are made from the
snapshots of tests/fixtures; the hostile ones are made byte by byte here, so that no test (and no reader of
this folder) ever needs to trust a pickle of unknown origin. torchdoctor refuses every one of the hostile
ones before anything in it runs; the tests prove it, and ``--check`` proves the files are what this script
writes.
"""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent / "fixtures"


def _from_fixture(name: str) -> bytes:
    snapshot = json.loads((FIXTURES / f"{name}.json").read_text())["snapshot"]
    return pickle.dumps(snapshot, protocol=4)


def _calls_a_function() -> bytes:
    """os.system('echo ...') by REDUCE: the classic pickle that runs code when it is loaded."""
    return b"cposix\nsystem\n(S'echo torchdoctor ran this'\ntR."


SNAPSHOTS = {
    "v100_32gb_split_fragmented.pickle": lambda: _from_fixture("v100_32gb_split_fragmented"),
    "h200_expandable_segments_healthy.pickle": lambda: _from_fixture("h200_expandable_segments_healthy"),
    "hostile_calls_os_system.pickle": _calls_a_function,
}


def main(argv: list[str]) -> int:
    stale = []
    for name, make in SNAPSHOTS.items():
        data = make()
        path = HERE / name
        if "--check" in argv:
            if not path.is_file() or path.read_bytes() != data:
                stale.append(name)
        else:
            path.write_bytes(data)
            print(f"wrote {path}")
    for name in stale:
        print(f"{HERE / name} is out of date: run python tests/snapshots/build.py", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
