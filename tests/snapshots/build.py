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


def _shared_tuples(levels: int = 60) -> bytes:
    """A dict whose key is 60 levels of a pair of the level below, all through the memo: 507 bytes whose
    key takes 2**60 steps to hash (protocol 4: EMPTY_DICT, EMPTY_TUPLE, then BINGET/BINGET/TUPLE2)."""
    out = bytearray(b"\x80\x04}\x94)\x940")
    for level in range(1, levels + 1):
        out += b"h" + bytes([level]) + b"h" + bytes([level]) + b"\x86\x94" + (b"0" if level < levels else b"")
    return bytes(out + b"Ns.")


def _one_string_many_times(size: int = 64 * 2**10, times: int = 20_000) -> bytes:
    """One 64 KiB string referenced 20,000 times: 65 KiB on disk, 1.2 GiB of text once built and written."""
    text = b"x" * size
    out = bytearray(b"\x80\x04}\x94(\x8c\x08segments\x94]\x94(")
    out += b"\x8d" + size.to_bytes(8, "little") + text + b"\x94"
    out += b"h\x03" * (times - 1)
    return bytes(out + b"eu.")


def _device_not_a_number() -> bytes:
    segment = {"device": "abc", "total_size": 2**21, "blocks": [{"size": 2**21, "state": "inactive"}]}
    return pickle.dumps({"segments": [segment], "device_traces": []}, protocol=4)


SNAPSHOTS = {
    "v100_32gb_split_fragmented.pickle": lambda: _from_fixture("v100_32gb_split_fragmented"),
    "h200_expandable_segments_healthy.pickle": lambda: _from_fixture("h200_expandable_segments_healthy"),
    "hostile_calls_os_system.pickle": _calls_a_function,
    "hostile_shared_tuple_key.pickle": _shared_tuples,
    "hostile_one_string_many_times.pickle": _one_string_many_times,
    "hostile_device_not_a_number.pickle": _device_not_a_number,
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
