"""The segments of a CUDA caching-allocator snapshot summarised per device and pool: one summary for a
snapshot file (``checks/memory/allocator_snapshot.py``) and a snapshot pasted as text
(``inputs/memory_snapshot.py``).

A segment is the dict torch builds in ``torch/csrc/cuda/Module.cpp``: ``total_size``, ``device``,
``segment_type``, ``segment_pool_id`` and its ``blocks`` (``size``, ``state``, ``requested_size``). Per pool:
the reserved and allocated bytes, the free bytes inside segments (split into what shares a segment with
memory in use, which empty_cache() cannot release, and what it can), the largest free block and external
fragmentation ``1 - largest free block / free bytes``. A pasted segment whose blocks are not all shown (a
debugger's ``[{...}]``) is counted from its ``allocated_size`` and ``active_size``, and its pool's per-block
figures are unknown (None), never guessed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

_DEFAULT_POOL = (0, 0)


def pool_name(segment: Mapping[str, Any]) -> str:
    """``large`` or ``small``; a private pool (CUDA graphs, MemPool) adds its id: ``large@1.0``."""
    kind = str(segment.get("segment_type") or ("large" if segment["total_size"] > 2**21 else "small"))[:32]
    pool_id = segment.get("segment_pool_id")
    if isinstance(pool_id, (list, tuple)) and len(pool_id) == 2 and tuple(pool_id) != _DEFAULT_POOL:
        return f"{kind}@{str(pool_id[0])[:20]}.{str(pool_id[1])[:20]}"
    return kind


def summarize(segments: Iterable[Mapping[str, Any]]) -> dict[int, dict[str, Any]]:
    """Per device (by number), its pools in name order; the device totals are added by :func:`totals`."""
    pools: dict[tuple[int, str], dict[str, Any]] = {}
    for segment in segments:
        name = pool_name(segment)
        pool = pools.setdefault((int(segment.get("device") or 0), name), _empty_pool(name))
        _add_segment(pool, segment)
    devices: dict[int, dict[str, Any]] = {}
    for (device, _name), pool in sorted(pools.items()):
        entry = devices.setdefault(device, {"device": device, "pools": [], "ooms": []})
        pool["external_fragmentation"] = fragmentation(pool["largest_free_block_bytes"], pool["free_bytes"])
        entry["pools"].append(pool)
    return devices


def fragmentation(largest_free: int | None, free: int) -> float | None:
    """External fragmentation ``1 - largest free block / free bytes`` (0 when nothing is free; None when the
    largest free block is not known)."""
    if largest_free is None:
        return None
    return round(1 - largest_free / free, 4) if free > 0 else 0.0


def totals(pools: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """A device's reserved, allocated, free and split bytes, and its largest free block (None where a
    pool's is not known)."""
    pools = list(pools)
    keys = ("reserved_bytes", "allocated_bytes", "free_bytes", "inactive_split_bytes")
    found: dict[str, Any] = {key: sum(int(p[key]) for p in pools) for key in keys}
    largest = [p["largest_free_block_bytes"] for p in pools]
    found["largest_free_block_bytes"] = None if None in largest else max(map(int, largest), default=0)
    return found


def is_size(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**60


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


def _shown_blocks(segment: Mapping[str, Any]) -> Sequence[Mapping[str, Any]] | None:
    """The segment's blocks, or None where they are not all shown."""
    blocks = segment.get("blocks")
    if not isinstance(blocks, list) or not blocks:
        return None
    for block in blocks:
        if not isinstance(block, Mapping) or not is_size(block.get("size")):
            return None
        if not isinstance(block.get("state"), str):
            return None
    return blocks


def _add_segment(pool: dict[str, Any], segment: Mapping[str, Any]) -> None:
    total = int(segment["total_size"])
    pool["segments"] += 1
    pool["expandable_segments"] += bool(segment.get("is_expandable"))
    pool["reserved_bytes"] += total
    blocks = _shown_blocks(segment)
    if blocks is None:
        _add_unshown(pool, segment, total)
        return
    free = [int(b["size"]) for b in blocks if b["state"] == "inactive"]
    in_use = [b for b in blocks if b["state"] != "inactive"]
    for block in in_use:
        if block["state"] == "active_allocated":
            pool["allocated_bytes"] += int(block["size"])
            pool["requested_bytes"] += int(block.get("requested_size") or block["size"])
        else:  # active_awaiting_free (active_pending_free in older builds): freed, waiting on a stream
            pool["awaiting_free_bytes"] += int(block["size"])
    pool["free_bytes"] += sum(free)
    if pool["free_blocks"] is not None:
        pool["free_blocks"] += len(free)
    if free and pool["largest_free_block_bytes"] is not None:
        pool["largest_free_block_bytes"] = max(pool["largest_free_block_bytes"], max(free))
    # Free blocks in a segment that is also in use cannot be released by empty_cache() (the stats'
    # "inactive_split"); a segment that is entirely free can.
    pool["inactive_split_bytes" if in_use else "releasable_bytes"] += sum(free)


def _add_unshown(pool: dict[str, Any], segment: Mapping[str, Any], total: int) -> None:
    """A pasted segment whose blocks are elided: its own allocated and active sizes, no per-block figures."""
    allocated_size = segment.get("allocated_size")
    allocated = allocated_size if is_size(allocated_size) else 0
    active_size = segment.get("active_size", allocated_size)
    active = active_size if is_size(active_size) else None
    pool["allocated_bytes"] += allocated
    free = max(total - active, 0) if active is not None else 0
    in_use = active is not None and active > 0
    pool["free_bytes"] += free
    pool["inactive_split_bytes" if in_use else "releasable_bytes"] += free
    pool["free_blocks"] = None
    pool["largest_free_block_bytes"] = None
