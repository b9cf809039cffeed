"""``torch.cuda.memory_summary()`` tables found in a text, read into the ``allocator`` facts the live probe
gives (``source: "memory_summary"``), so that ``gpu.fragmentation`` judges a pasted table.

Read: the table torch prints (``PyTorch CUDA memory summary, device ID 0``; the ``CUDA OOMs`` and
``cudaMalloc retries`` counters; the current column of ``Allocated memory``, ``GPU reserved memory`` and
``Non-releasable memory``, whole and per pool). What a summary cannot say is left out, never guessed: the
largest free block and so the external fragmentation (a summary has no per-block figures), the job's allocator
settings. Bounded: at most ``MAX_CHARS`` of the text from each header, ``MAX_DEVICES`` tables, lines of
``MAX_LINE`` characters; each line is split on ``|``, never matched by a pattern that can backtrack.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from torchdoctor.inputs import foreign

MAX_CHARS = 16 * 1024
MAX_DEVICES = 16
MAX_LINE = 200
HEADER = "PyTorch CUDA memory summary, device ID"
_UNITS = {"B": 1, "KB": 2**10, "KiB": 2**10, "MB": 2**20, "MiB": 2**20, "GB": 2**30, "GiB": 2**30}
_UNITS.update({"TB": 2**40, "TiB": 2**40, "PB": 2**50})
# The rows read, by the metric's name as torch prints it, and the fact they give.
_ROWS = {
    "allocated memory": "allocated_bytes",
    "active memory": "active_bytes",
    "requested memory": "requested_bytes",
    "gpu reserved memory": "reserved_bytes",
    "non-releasable memory": "inactive_split_bytes",
}
_POOLS = {"from large pool": "large", "from small pool": "small"}


@dataclass
class Device:
    device: int
    totals: dict[str, int] = field(default_factory=dict)
    pools: dict[str, dict[str, int]] = field(default_factory=dict)
    counters: dict[str, int] = field(default_factory=dict)

    def fact(self) -> dict[str, Any]:
        reserved = self.totals.get("reserved_bytes")
        allocated = self.totals.get("allocated_bytes")
        entry: dict[str, Any] = {
            "device": self.device,
            "reserved_bytes": reserved,
            "allocated_bytes": allocated,
            # what the segments hold that no tensor uses: reserved minus active (or allocated)
            "free_bytes": _free(self.totals),
            "inactive_split_bytes": self.totals.get("inactive_split_bytes"),
            "largest_free_block_bytes": None,  # a summary has no per-block figures
            "pools": [
                {
                    "pool": f"{name}_pool" if name in ("large", "small") else name,
                    "reserved_bytes": pool.get("reserved_bytes"),
                    "allocated_bytes": pool.get("allocated_bytes"),
                    "free_bytes": _free(pool),
                    "inactive_split_bytes": pool.get("inactive_split_bytes", 0),
                    "largest_free_block_bytes": None,
                    "external_fragmentation": None,
                    "free_blocks": None,
                    "segments": None,
                }
                for name, pool in self.pools.items()
            ],
            "ooms": [],
            "counters": dict(self.counters),
        }
        return entry


def _free(figures: dict[str, int]) -> int | None:
    reserved = figures.get("reserved_bytes")
    used = figures.get("active_bytes", figures.get("allocated_bytes"))
    if reserved is None or used is None:
        return None
    return max(reserved - used, 0)


@dataclass
class Summary:
    devices: list[Device]

    def facts(self) -> dict[str, Any]:
        return {
            "allocator": {
                "source": "memory_summary",
                "path": None,
                "error": None,
                "devices": [d.fact() for d in self.devices],
                "segments": None,
                "allocator_settings": None,
            },
            # what gpu.fragmentation also reads, which a summary does not show
            "env": {"variables": {}, "variables_known": False},
            "nvml": {"available": None, "error": None, "gpus": [], "shown": False},
        }

    def to_report(self, name: str) -> dict[str, Any]:
        marker = {"source": name, "devices": [d.device for d in self.devices]}
        return foreign.report(self.facts(), {}, memory_summary=marker)


def size(text: str) -> int | None:
    """``"12420 MB"`` -> bytes (torch's units are powers of 1024); None for anything else."""
    number, _, unit = text.strip().partition(" ")
    unit = unit.strip()
    if not number or len(number) > 12 or not number.isdigit() or unit not in _UNITS:
        return None
    return int(number) * _UNITS[unit]


def find(text: str) -> Summary | None:
    """Every memory summary in ``text`` (one per device, the first table of each device), or None."""
    devices: dict[int, Device] = {}
    start = text.find(HEADER)
    while start >= 0 and len(devices) < MAX_DEVICES:
        device = _read(text[start : start + MAX_CHARS])
        if device is not None and device.device not in devices and device.totals:
            devices[device.device] = device
        start = text.find(HEADER, start + len(HEADER))
    return Summary(list(devices.values())) if devices else None


def _read(chunk: str) -> Device | None:
    lines = chunk.splitlines()
    number = lines[0][len(HEADER) :].strip(" |\t")
    index = number.split()[0] if number else ""
    if not index.isdigit() or len(index) > 3:
        return None
    device = Device(int(index))
    row: str | None = None
    for raw in lines[1:]:
        if len(raw) > MAX_LINE:
            continue
        line = _unquoted(raw)
        if HEADER in line or (line and not line.startswith("|")):
            break  # the next table, or the end of this one
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) == 2 and "CUDA OOMs:" in cells[0]:
            _counter(device, "num_ooms", cells[0])
            _counter(device, "num_alloc_retries", cells[1])
            continue
        if len(cells) < 2:
            continue
        name = cells[0].lower()
        if name in _ROWS:
            row = _ROWS[name]
            figure = size(cells[1])
            if figure is not None:
                device.totals[row] = figure
        elif name in _POOLS and row is not None:
            figure = size(cells[1])
            if figure is not None:
                device.pools.setdefault(_POOLS[name], {})[row] = figure
        elif name:
            row = None
    return device


def _counter(device: Device, key: str, cell: str) -> None:
    value = cell.rpartition(":")[2].strip()
    if value.isdigit() and len(value) <= 12:
        device.counters[key] = int(value)


def _unquoted(line: str) -> str:
    """A line as torch printed it: without a Markdown quote's ``> `` or a code block's indent."""
    stripped = line.strip()
    while stripped.startswith(">"):
        stripped = stripped[1:].lstrip()
    return stripped
