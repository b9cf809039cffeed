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
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from torchdoctor.checks.memory import pickle_budget
from torchdoctor.inputs import allocator_segments, bounded
from torchdoctor.output import inert, messages
from torchdoctor.output.inert import one_line

MAX_SNAPSHOT_BYTES = 512 * 2**20
"""The largest snapshot file read (a snapshot of a big job with its history is tens of MiB)."""

_ZIP_MAGIC = b"PK\x03\x04"  # torch.save() writes a zip archive
_SEGMENT_KEYS = ("total_size", "blocks")


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


def summarize(snapshot: Mapping[str, Any]) -> dict[str, Any]:
    """Per device and pool: what is reserved, allocated and free, and how the free memory is cut up."""
    devices = allocator_segments.summarize(snapshot.get("segments") or [])
    for device, trace in enumerate(snapshot.get("device_traces") or []):
        ooms = list(_ooms(trace))
        if ooms:
            devices.setdefault(device, {"device": device, "pools": [], "ooms": []})["ooms"] = ooms
    for entry in devices.values():
        entry.update(allocator_segments.totals(entry["pools"]))
    settings = snapshot.get("allocator_settings")
    return {
        "devices": [devices[d] for d in sorted(devices)],
        "segments": len(snapshot.get("segments") or []),
        "allocator_settings": _plain_settings(settings) if isinstance(settings, Mapping) else None,
    }


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
