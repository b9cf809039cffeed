"""Allocator snapshot files: read with plain data only, refused when they would run code, summarised."""

from __future__ import annotations

import collections
import copy
import json
import os
import pickle
import re
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import pytest

from torchdoctor.checks.memory import allocator_snapshot
from torchdoctor.checks.memory.allocator_snapshot import SnapshotError
from torchdoctor.inputs import allocator_segments

from support import FIXTURES, run_cli

MIB = 2**20
FRAGMENTED = "v100_32gb_split_fragmented.json"
HEALTHY = "h200_expandable_segments_healthy.json"


def snapshot_of(name: str) -> dict[str, Any]:
    """The fixture's snapshot as torch returns it: segment_pool_id is a tuple there, a list in JSON."""
    snapshot: dict[str, Any] = json.loads((FIXTURES / name).read_text())["snapshot"]
    for segment in snapshot["segments"]:
        segment["segment_pool_id"] = tuple(segment["segment_pool_id"])
    return snapshot


def dumped(tmp_path: Path, obj: Any, protocol: int = pickle.DEFAULT_PROTOCOL) -> Path:
    path = tmp_path / "snapshot.pickle"
    path.write_bytes(pickle.dumps(obj, protocol=protocol))
    return path


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_a_snapshot_loads_back_as_written(tmp_path: Path, protocol: int) -> None:
    snapshot = snapshot_of(HEALTHY)

    assert allocator_snapshot.load(dumped(tmp_path, snapshot, protocol)) == snapshot


def test_a_bare_segment_list_from_memory_snapshot_is_accepted(tmp_path: Path) -> None:
    segments = snapshot_of(HEALTHY)["segments"]

    loaded = allocator_snapshot.load(dumped(tmp_path, segments))

    assert loaded == {"segments": segments, "device_traces": []}


class _RunsACommand:
    """What a malicious pickle carries: unpickling calls os.system."""

    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return os.system, (self.command,)


class _AnyObject:
    def __init__(self) -> None:
        self.secret = "set by __setstate__ on load"


@pytest.mark.parametrize("protocol", [0, 2, 5])
def test_a_pickle_that_would_run_a_command_is_refused_and_nothing_runs(tmp_path: Path, protocol: int) -> None:
    marker = tmp_path / "ran"
    evil = {"segments": [], "device_traces": [], "payload": _RunsACommand(f"touch {marker}")}
    path = dumped(tmp_path, evil, protocol)

    with pytest.raises(SnapshotError) as refused:
        allocator_snapshot.load(path)

    assert not marker.exists()
    message = str(refused.value)
    assert message.startswith(f"refused allocator snapshot {path}")
    assert "'posix.system'" in message
    assert "nothing in the file was run" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("obj", "named"),
    [
        (_AnyObject(), "test_allocator_snapshot._AnyObject"),
        (collections.OrderedDict(segments=[]), "collections.OrderedDict"),
        ({"segments": [], "when": __import__("datetime").date(2026, 1, 1)}, "datetime.date"),
    ],
    ids=["instance", "ordered_dict", "date"],
)
def test_any_class_is_refused_even_a_harmless_one(tmp_path: Path, obj: Any, named: str) -> None:
    with pytest.raises(SnapshotError, match="refused") as refused:
        allocator_snapshot.load(dumped(tmp_path, obj))
    assert named.split(".")[-1] in str(refused.value)


def test_a_persistent_id_is_refused(tmp_path: Path) -> None:
    class Pickler(pickle.Pickler):
        def persistent_id(self, obj: Any) -> Any:
            return "storage-0" if obj == "tensor" else None

    path = tmp_path / "persistent.pickle"
    with path.open("wb") as file:
        Pickler(file, protocol=2).dump({"segments": ["tensor"]})

    with pytest.raises(SnapshotError, match="persistent object reference"):
        allocator_snapshot.load(path)


def test_a_truncated_snapshot_is_a_clear_error(tmp_path: Path) -> None:
    data = pickle.dumps(snapshot_of(FRAGMENTED))
    path = tmp_path / "cut.pickle"
    path.write_bytes(data[: len(data) // 2])

    with pytest.raises(SnapshotError, match=r"is truncated"):
        allocator_snapshot.load(path)


@pytest.mark.parametrize(
    ("content", "text"),
    [
        (b"", "is empty"),
        (b'{"segments": []}', "not a valid pickle"),
        (b"\xff\xd8\xff\xe0 a JPEG, not a pickle", "not a valid pickle"),
        (pickle.dumps([1, 2, 3]), "segment 0 has no total_size and blocks"),
        (pickle.dumps({"traces": []}), "with a 'segments' list; found a dict with keys ['traces']"),
        (pickle.dumps("snapshot"), "found a str"),
        (pickle.dumps({"segments": [{"total_size": 1, "blocks": [{"size": "x"}]}]}), "malformed blocks"),
    ],
    ids=["empty", "json", "jpeg", "int_list", "no_segments", "str", "bad_blocks"],
)
def test_a_file_that_is_not_a_snapshot_is_a_clear_error(tmp_path: Path, content: bytes, text: str) -> None:
    path = tmp_path / "file.pickle"
    path.write_bytes(content)

    with pytest.raises(SnapshotError) as error:
        allocator_snapshot.load(path)

    assert text in str(error.value)
    assert str(path) in str(error.value)


@pytest.mark.parametrize(
    ("content", "shown"),
    [
        (b"F\x01\n", r"could not convert string to float: '\u0001\u000a'"),  # the file's bytes in the reason
        (b"\x80\x04\x8c\x04a\n\x1bb\x8c\x01c\x93.", r"'a\u000a\u001bb.c'"),  # a callable's name from the file
    ],
    ids=["float_of_controls", "stack_global_name"],
)
def test_what_the_file_holds_reaches_the_message_in_one_inert_line(
    tmp_path: Path, content: bytes, shown: str
) -> None:
    path = tmp_path / "bad\nname.pickle"
    path.write_bytes(content)

    with pytest.raises(SnapshotError) as error:
        allocator_snapshot.load(path)

    message = str(error.value)
    assert shown in message and repr(str(path)) in message
    assert message.isprintable(), message


def test_a_torch_save_archive_is_named_as_such(tmp_path: Path) -> None:
    path = tmp_path / "model.pt"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("model/data.pkl", pickle.dumps({"weight": [1.0]}))

    with pytest.raises(SnapshotError, match=r"zip archive \(torch.save\?\)"):
        allocator_snapshot.load(path)


def test_missing_files_folders_and_devices_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(SnapshotError, match=r"missing\.pickle does not exist"):
        allocator_snapshot.load(tmp_path / "missing.pickle")
    with pytest.raises(SnapshotError, match="is a folder, not an allocator snapshot"):
        allocator_snapshot.load(tmp_path)
    with pytest.raises(SnapshotError, match=r"/dev/zero is not a regular file"):
        allocator_snapshot.load("/dev/zero")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(SnapshotError, match="is not a regular file"):
        allocator_snapshot.load(fifo)  # no writer: reading it would block for ever


# -- the summary -----------------------------------------------------------------------------------


def test_the_fragmented_v100_snapshot_in_numbers() -> None:
    summary = allocator_snapshot.summarize(snapshot_of(FRAGMENTED))

    (device,) = summary["devices"]
    large, small = device["pools"]
    assert large == {
        "pool": "large",
        "segments": 158,
        "expandable_segments": 0,
        "reserved_bytes": 158 * 200 * MIB,
        "allocated_bytes": 158 * 116 * MIB,
        "requested_bytes": 158 * (116 * MIB - 4096 - 512),
        "awaiting_free_bytes": 0,
        "free_bytes": 158 * 84 * MIB,
        "inactive_split_bytes": 158 * 84 * MIB,  # every free block sits in a segment still in use
        "releasable_bytes": 0,
        "free_blocks": 316,
        "largest_free_block_bytes": 42 * MIB,
        "external_fragmentation": round(1 - 42 / (158 * 84), 4),
    }
    assert (small["pool"], small["reserved_bytes"], small["free_bytes"]) == ("small", 6 * MIB, 3 * MIB)
    assert device["ooms"] == [{"size": 50 * MIB, "device_free": 30 * MIB}]
    assert device["free_bytes"] == 158 * 84 * MIB + 3 * MIB
    assert device["largest_free_block_bytes"] == 42 * MIB
    assert summary["segments"] == 161
    assert summary["allocator_settings"]["expandable_segments"] is False
    json.dumps(summary, allow_nan=False)


def test_a_healthy_expandable_segment_keeps_its_free_memory_in_one_block() -> None:
    (device,) = allocator_snapshot.summarize(snapshot_of(HEALTHY))["devices"]

    large = device["pools"][0]
    assert large["expandable_segments"] == 1
    assert large["largest_free_block_bytes"] / large["free_bytes"] > 0.95
    assert large["external_fragmentation"] < 0.05


def test_entirely_free_segments_are_releasable_not_split() -> None:
    snapshot = snapshot_of(HEALTHY)
    free_segment = copy.deepcopy(snapshot["segments"][1])
    free_segment["blocks"] = [{"size": free_segment["total_size"], "state": "inactive"}]
    snapshot["segments"] = [free_segment]

    (pool,) = allocator_snapshot.summarize(snapshot)["devices"][0]["pools"]

    assert pool["releasable_bytes"] == pool["free_bytes"] == free_segment["total_size"]
    assert pool["inactive_split_bytes"] == 0
    assert pool["external_fragmentation"] == 0.0


def test_devices_private_pools_and_blocks_awaiting_free_are_kept_apart() -> None:
    def segment(device: int, pool: tuple[int, int], states: list[str]) -> dict[str, Any]:
        blocks = [{"size": 4 * MIB, "state": state, "requested_size": 4 * MIB} for state in states]
        return {
            "device": device,
            "total_size": 4 * MIB * len(states),
            "segment_type": "large",
            "segment_pool_id": pool,
            "blocks": blocks,
        }

    snapshot = {
        "segments": [
            segment(0, (0, 0), ["active_allocated", "inactive"]),
            segment(0, (1, 0), ["active_allocated", "active_awaiting_free", "inactive"]),
            segment(1, (0, 0), ["inactive"]),
        ],
        "device_traces": [[], [{"action": "oom", "size": 8 * MIB, "device_free": 0}]],
    }

    devices = allocator_snapshot.summarize(snapshot)["devices"]

    assert [(d["device"], [p["pool"] for p in d["pools"]]) for d in devices] == [
        (0, ["large", "large@1.0"]),
        (1, ["large"]),
    ]
    private = devices[0]["pools"][1]
    assert (private["allocated_bytes"], private["awaiting_free_bytes"], private["free_bytes"]) == (
        4 * MIB,
        4 * MIB,
        4 * MIB,
    )
    assert devices[1]["ooms"] == [{"size": 8 * MIB, "device_free": 0}]


def test_external_fragmentation_is_one_minus_largest_over_free() -> None:
    assert allocator_segments.fragmentation(42, 168) == 0.75
    assert allocator_segments.fragmentation(10, 10) == 0.0
    assert allocator_segments.fragmentation(0, 0) == 0.0


def test_the_snapshot_files_are_what_their_build_script_writes() -> None:
    build = Path(__file__).resolve().parents[2] / "snapshots" / "build.py"
    result = subprocess.run(
        [sys.executable, str(build), "--check"], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr


SNAPSHOTS = Path(__file__).resolve().parents[2] / "snapshots"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("hostile_calls_os_system", "names the class or callable 'posix.system'"),
        ("hostile_shared_tuple_key", "would build more than 50,000,000 objects"),
        ("hostile_one_string_many_times", "would hold more than 1,024 MiB of text"),
        ("hostile_device_not_a_number", "segment 0 has a device that is not a number ('abc')"),
    ],
)
def test_a_hostile_snapshot_is_refused_at_once_before_anything_is_built(name: str, text: str) -> None:
    started = time.process_time()
    with pytest.raises(SnapshotError, match=re.escape(text)):
        allocator_snapshot.load(SNAPSHOTS / f"{name}.pickle")
    # CPU time, which a busy machine does not stretch: building what these files describe (1 GiB of text,
    # 50,000,000 objects) would take far longer than refusing them
    assert time.process_time() - started < 2


def test_the_hostile_snapshots_are_refused_by_the_cli_in_one_line() -> None:
    for name in ("hostile_shared_tuple_key", "hostile_one_string_many_times"):
        result = run_cli(
            "check", "--only", "gpu.fragmentation", "--memory-snapshot", str(SNAPSHOTS / f"{name}.pickle")
        )
        assert result.returncode == 2
        (line,) = result.stderr.splitlines()
        assert line.startswith("torchdoctor: error: --memory-snapshot: refused allocator snapshot")
