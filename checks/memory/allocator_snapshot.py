"""Allocator snapshots: read a ``torch.cuda.memory._dump_snapshot()`` file safely, and summarise one.

The file is a pickle, and may come from someone else (a support ticket). :func:`load` reads it
with an unpickler that admits plain data only (dicts, lists, tuples, sets, strings, bytes,
numbers, booleans, None): a pickle that names any class or callable, which is how a pickle runs
code, is refused before anything of it runs. A snapshot holds nothing else (torch builds it from
Python dicts and lists in ``torch/csrc/cuda/Module.cpp``).

:func:`summarize` is pure: per device and pool (large/small, and private pools such as CUDA
graphs' own), the reserved and allocated bytes, the free bytes inside segments, the largest free
block, and external fragmentation ``1 - largest free block / free bytes``. The shape read here is
the one ``torch.cuda.memory._snapshot`` documents (torch 2.13 ``torch/cuda/memory.py``).
"""

from __future__ import annotations

import io
import math
import pickle
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from torchdoctor.checks.memory import pickle_budget
from torchdoctor.inputs import bounded
from torchdoctor.output import inert, messages
from torchdoctor.output.inert import one_line

MAX_SNAPSHOT_BYTES = 512 * 2**20
"""The largest snapshot file read (a snapshot of a big job with its history is tens of MiB)."""

_ZIP_MAGIC = b"PK\x03\x04"  # torch.save() writes a zip archive
_SEGMENT_KEYS = ("total_size", "blocks")
_DEFAULT_POOL = (0, 0)


class SnapshotError(ValueError):
    """The file cannot be judged: missing, unreadable, corrupt, truncated, refused or not a snapshot."""


class _Refused(Exception):
    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


class _PlainDataUnpickler(pickle.Unpickler):
    """Builds containers and scalars; anything that would look up a class or callable is refused."""

    def find_class(self, module: str, name: str) -> Any:
        raise _Refused(f"the class or callable '{module}.{name}'")

    def persistent_load(self, pid: Any) -> Any:
        raise _Refused("a persistent object reference")


def loads(data: bytes, label: str = "the snapshot") -> dict[str, Any]:
    """:func:`load` for bytes already read; ``label`` names the source in messages."""
    if not data:
        raise SnapshotError(f"{label} is empty")
    if data.startswith(_ZIP_MAGIC):
        raise SnapshotError(
            f"{label} is a zip archive (torch.save?), not an allocator snapshot: "
            "write one with torch.cuda.memory._dump_snapshot(FILE)"
        )
    try:
        pickle_budget.check(data)
    except pickle_budget.PickleRefused as refused:
        plain = ", and an allocator snapshot holds plain data only" if refused.names_code else ""
        reason = one_line(str(refused).removeprefix("it "))
        raise SnapshotError(
            f"refused {label}: the pickle {reason}{plain}; nothing in the file was run"
        ) from None
    try:
        obj = _PlainDataUnpickler(io.BytesIO(data)).load()
    except _Refused as refused:
        raise SnapshotError(
            f"refused {label}: the pickle names {one_line(refused.what)}, and an allocator snapshot holds "
            "plain data only; nothing in the file was run"
        ) from None
    except (EOFError, pickle.UnpicklingError) as exc:
        why = "truncated" if isinstance(exc, EOFError) or "truncated" in str(exc) else "not a valid pickle"
        raise SnapshotError(f"{label} is {why} ({one_line(str(exc)) or type(exc).__name__})") from None
    except (ValueError, TypeError, IndexError, KeyError, AttributeError, OverflowError, MemoryError) as exc:
        raise SnapshotError(f"{label} is corrupt: {type(exc).__name__}: {one_line(str(exc))}") from None
    return _as_snapshot(obj, label)


def load(path: Path | str) -> dict[str, Any]:
    """The snapshot in ``path``; :class:`SnapshotError` with a one-line message when it cannot be judged."""
    path = Path(path)
    try:
        data = bounded.read_file(path, MAX_SNAPSHOT_BYTES, "allocator snapshot")
    except bounded.InputError as exc:
        raise SnapshotError(f"allocator snapshot: {exc}") from None
    return loads(data, f"allocator snapshot {inert.shown(path)}")


def _as_snapshot(obj: Any, label: str) -> dict[str, Any]:
    """The snapshot dict of ``_snapshot()``; a bare segment list (``memory_snapshot()``) is wrapped in one."""
    if isinstance(obj, list):
        obj = {"segments": obj, "device_traces": []}
    if not isinstance(obj, dict) or not isinstance(obj.get("segments"), list):
        found = f"a dict with keys {sorted(map(str, obj))[:6]}" if isinstance(obj, dict) else _kind(obj)
        raise SnapshotError(
            f"{label} is not an allocator snapshot: expected the dict torch.cuda.memory._dump_snapshot() "
            f"writes, with a 'segments' list; found {found}"
        )
    for index, segment in enumerate(obj["segments"]):
        if not isinstance(segment, dict) or any(key not in segment for key in _SEGMENT_KEYS):
            raise SnapshotError(
                f"{label} is not an allocator snapshot: segment {index} has no total_size and blocks"
            )
        if not isinstance(segment["blocks"], list) or not all(
            isinstance(b, dict)
            and _is_int(b.get("size"))
            and isinstance(b.get("state"), str)
            and (b.get("requested_size") is None or _is_int(b["requested_size"]))
            for b in segment["blocks"]
        ):
            raise SnapshotError(f"{label} is not an allocator snapshot: segment {index} has malformed blocks")
        if not _is_int(segment["total_size"]):
            raise SnapshotError(f"{label} is not an allocator snapshot: segment {index} has no size")
        if segment.get("device") is not None and not _is_int(segment["device"]):
            raise SnapshotError(
                f"{label} is not an allocator snapshot: segment {index} has a device that is not a number "
                f"({messages.shown_value(segment['device'])})"
            )
    return obj


def _kind(obj: Any) -> str:
    name = type(obj).__name__
    return f"a {name} of {len(obj)} items" if isinstance(obj, (list, tuple, set, dict)) else f"a {name}"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# ---------------------------------------------------------------------------------------------
# summary


def pool_name(segment: Mapping[str, Any]) -> str:
    """``large`` or ``small``; a private pool (CUDA graphs, MemPool) adds its id: ``large@1.0``."""
    kind = str(segment.get("segment_type") or ("large" if segment["total_size"] > 2**21 else "small"))[:32]
    pool_id = segment.get("segment_pool_id")
    if isinstance(pool_id, (list, tuple)) and len(pool_id) == 2 and tuple(pool_id) != _DEFAULT_POOL:
        return f"{kind}@{str(pool_id[0])[:20]}.{str(pool_id[1])[:20]}"
    return kind


def summarize(snapshot: Mapping[str, Any]) -> dict[str, Any]:
    """Per device and pool: what is reserved, allocated and free, and how the free memory is cut up."""
    pools: dict[tuple[int, str], dict[str, Any]] = {}
    for segment in snapshot.get("segments") or []:
        device = int(segment.get("device") or 0)
        name = pool_name(segment)
        pool = pools.setdefault((device, name), _empty_pool(name))
        _add_segment(pool, segment)
    devices: dict[int, dict[str, Any]] = {}
    for (device, _name), pool in sorted(pools.items()):
        entry = devices.setdefault(device, {"device": device, "pools": [], "ooms": []})
        entry["pools"].append(_finish(pool))
    for device, trace in enumerate(snapshot.get("device_traces") or []):
        ooms = list(_ooms(trace))
        if ooms:
            devices.setdefault(device, {"device": device, "pools": [], "ooms": []})["ooms"] = ooms
    for entry in devices.values():
        entry.update(_totals(entry["pools"]))
    settings = snapshot.get("allocator_settings")
    return {
        "devices": [devices[d] for d in sorted(devices)],
        "segments": len(snapshot.get("segments") or []),
        "allocator_settings": _plain_settings(settings) if isinstance(settings, Mapping) else None,
    }


def _empty_pool(name: str) -> dict[str, Any]:
    return {
        "pool": name,
        "segments": 0,
        "expandable_segments": 0,
        "reserved_bytes": 0,
        "allocated_bytes": 0,
        "requested_bytes": 0,
        "awaiting_free_bytes": 0,
        "free_bytes": 0,
        "inactive_split_bytes": 0,
        "releasable_bytes": 0,
        "free_blocks": 0,
        "largest_free_block_bytes": 0,
    }


def _add_segment(pool: dict[str, Any], segment: Mapping[str, Any]) -> None:
    blocks: Sequence[Mapping[str, Any]] = segment["blocks"]
    pool["segments"] += 1
    pool["expandable_segments"] += bool(segment.get("is_expandable"))
    pool["reserved_bytes"] += int(segment["total_size"])
    free = [int(b["size"]) for b in blocks if b["state"] == "inactive"]
    in_use = [b for b in blocks if b["state"] != "inactive"]
    for block in in_use:
        if block["state"] == "active_allocated":
            pool["allocated_bytes"] += int(block["size"])
            pool["requested_bytes"] += int(block.get("requested_size") or block["size"])
        else:  # active_awaiting_free (active_pending_free in older builds): freed, waiting on a stream
            pool["awaiting_free_bytes"] += int(block["size"])
    pool["free_bytes"] += sum(free)
    pool["free_blocks"] += len(free)
    if free:
        pool["largest_free_block_bytes"] = max(pool["largest_free_block_bytes"], max(free))
    # Free blocks in a segment that is also in use cannot be released by empty_cache() (the stats'
    # "inactive_split"); a segment that is entirely free can.
    if in_use:
        pool["inactive_split_bytes"] += sum(free)
    else:
        pool["releasable_bytes"] += sum(free)


def _finish(pool: dict[str, Any]) -> dict[str, Any]:
    pool["external_fragmentation"] = fragmentation(pool["largest_free_block_bytes"], pool["free_bytes"])
    return pool


def fragmentation(largest_free: int, free: int) -> float:
    """External fragmentation ``1 - largest free block / free bytes`` (0 when nothing is free)."""
    return round(1 - largest_free / free, 4) if free > 0 else 0.0


def _totals(pools: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    pools = list(pools)
    keys = ("reserved_bytes", "allocated_bytes", "free_bytes", "inactive_split_bytes")
    totals: dict[str, Any] = {key: sum(int(p[key]) for p in pools) for key in keys}
    totals["largest_free_block_bytes"] = max((int(p["largest_free_block_bytes"]) for p in pools), default=0)
    return totals


def _ooms(trace: Any) -> Iterable[dict[str, Any]]:
    for entry in trace if isinstance(trace, list) else []:
        if isinstance(entry, Mapping) and entry.get("action") == "oom":
            yield {
                "size": _int_or_none(entry.get("size")),
                "device_free": _int_or_none(entry.get("device_free")),
            }


def _int_or_none(value: Any) -> int | None:
    return int(value) if _is_int(value) else None


def _plain_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The snapshot's allocator_settings with JSON-able values only."""
    plain: dict[str, Any] = {}
    for key, value in list(settings.items())[:_MAX_SETTINGS]:
        if _json_scalar(value):
            plain[str(key)[:_MAX_TEXT]] = _short(value)
        elif isinstance(value, Mapping):
            plain[str(key)[:_MAX_TEXT]] = {
                str(k)[:_MAX_TEXT]: _short(v)
                for k, v in list(value.items())[:_MAX_SETTINGS]
                if _json_scalar(v)
            }
    return plain


_MAX_SETTINGS = 64
_MAX_TEXT = 200


def _short(value: Any) -> Any:
    return value[:_MAX_TEXT] if isinstance(value, str) else value


def _json_scalar(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, (str, int, bool))
