"""Printed ``torch.cuda.memory_snapshot()`` segments found in a text, read into the ``allocator`` facts the
live probe gives (``source: "memory_snapshot"``), so that ``gpu.fragmentation`` judges a pasted snapshot.

A snapshot is a list of segments, each a dict torch builds in ``torch/csrc/cuda/Module.cpp`` and prints as
Python's repr: ``{'device': 0, 'address': ..., 'total_size': 20971520, 'allocated_size': 10485760,
'active_size': 10485760, 'stream': 0, 'segment_type': 'large', 'blocks': [{'size': ..., 'state':
'active_allocated', ...}, ...]}``. Read per device and pool (the segment type): what is reserved, allocated
and active, the free memory inside segments, the part of it that shares a segment with memory in use (what
empty_cache() cannot release), and, where every segment of a pool shows its blocks, the largest free block
and so the external fragmentation, as the snapshot-file probe computes them. A debugger's or reprlib's
``[{...}]`` in place of the blocks leaves the per-block figures out, never guessed.

Bounded: at most ``MAX_CHARS`` of the text are searched, ``MAX_SEGMENTS`` segments of at most
``MAX_SEGMENT_CHARS`` each, nested at most ``MAX_DEPTH`` deep; each segment is cut out by one linear scan
of its brackets and quotes and read by ``ast.literal_eval``, which builds plain data only.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from torchdoctor.inputs import allocator_segments, foreign

MAX_CHARS = 4 * 2**20
MAX_SEGMENTS = 4096
MAX_SEGMENT_CHARS = 256 * 1024
MAX_DEPTH = 8
_STARTS = ("{'device':", '{"device":')
_ELIDED = "{...}"  # what a debugger or reprlib prints for a dict it does not expand


@dataclass
class Snapshot:
    segments: list[dict[str, Any]]

    def facts(self) -> dict[str, Any]:
        return {
            "allocator": {
                "source": "memory_snapshot",
                "path": None,
                "error": None,
                "devices": summarize(self.segments),
                "segments": len(self.segments),
                "allocator_settings": None,
            },
            # what gpu.fragmentation also reads, which a snapshot's segments do not show
            "env": {"variables": {}, "variables_known": False},
            "nvml": {"available": None, "error": None, "gpus": [], "shown": False},
        }

    def to_report(self, name: str) -> dict[str, Any]:
        devices = sorted({int(s["device"]) for s in self.segments})
        marker = {"source": name, "devices": devices, "segments": len(self.segments)}
        return foreign.report(self.facts(), {}, memory_snapshot=marker)


def find(text: str) -> Snapshot | None:
    """The segments of every printed snapshot in ``text``, or None."""
    text = text[:MAX_CHARS]
    segments: list[dict[str, Any]] = []
    position = 0
    # the next place each opening occurs, found again only once passed: a text that lacks one is
    # searched for it once, not once per segment
    following = {opening: text.find(opening) for opening in _STARTS}
    while len(segments) < MAX_SEGMENTS:
        for opening, found in following.items():
            if 0 <= found < position:
                following[opening] = text.find(opening, position)
        starts = [found for found in following.values() if found >= 0]
        if not starts:
            break
        start = min(starts)
        end, closed = _closing(text, start)
        if closed:
            segment = _segment(text[start:end])
            if segment is not None:
                segments.append(segment)
        # on from where the scan stopped, closed or not: every character is scanned once
        position = max(end, start + 1)
    return Snapshot(segments) if segments else None


def _closing(text: str, start: int) -> tuple[int, bool]:
    """Where the dict that opens at ``start`` ends (one scan of brackets and quotes), and whether it closed
    there: not where it is cut off, longer than MAX_SEGMENT_CHARS or deeper than MAX_DEPTH."""
    depth = 0
    quote = ""
    limit = min(len(text), start + MAX_SEGMENT_CHARS)
    index = start
    while index < limit:
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in "[{(":
            depth += 1
            if depth > MAX_DEPTH:
                return index, False
        elif char in "]})":
            depth -= 1
            if depth == 0:
                return index + 1, True
        index += 1
    return index, False


def _segment(span: str) -> dict[str, Any] | None:
    try:
        value = ast.literal_eval(span.replace(_ELIDED, "None"))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if not isinstance(value, dict) or not allocator_segments.is_size(value.get("total_size")):
        return None
    if not isinstance(value.get("device"), int) or not 0 <= value["device"] < 4096:
        return None
    return value


def summarize(segments: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per device and pool, the figures a snapshot file gives (allocator_segments), with the device totals;
    a pool with a segment whose blocks are elided has no per-block figures."""
    devices = allocator_segments.summarize(segments)
    for entry in devices.values():
        entry.update(allocator_segments.totals(entry["pools"]))
        entry["counters"] = {}
    return [devices[d] for d in sorted(devices)]
