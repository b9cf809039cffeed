"""``nvidia-smi --query-gpu=... --format=csv`` and ``--query-compute-apps=... --format=csv`` output found in a
text, read into the facts the live probes give (as :mod:`torchdoctor.inputs.nvidia_smi` does for the table).

Read: a header line that names its fields (``index, name, memory.used [MiB], memory.total [MiB]``; with
``nounits`` the units are missing from header and values alike), then its rows. A GPU query needs
``memory.used`` and ``memory.total`` (or ``memory.free``); a process query is attached to those GPUs through
``gpu_uuid`` or ``gpu_bus_id`` when the GPU query has the same column, or to the only GPU of a one-GPU query.
What the CSV cannot say is left out, never guessed: a process query alone (which GPU of how much memory is
unknown), the indices of a query without an ``index`` column (the rows' order is nvidia-smi's, by index, so
row N is GPU N unless ``-i`` picked some: said in the marker), which process is the job, the job's
CUDA_VISIBLE_DEVICES. A ``noheader`` CSV names no field and is not read. Bounded: ``MAX_CHARS`` of the text
from a header on, ``MAX_ROWS`` rows, lines of ``MAX_LINE`` characters, split on commas only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from torchdoctor.inputs import foreign

MAX_CHARS = 64 * 1024
MAX_ROWS = 256
MAX_LINE = 400
_MIB = 2**20
_UNITS = {"MiB": _MIB, "GiB": 2**30, "KiB": 2**10, "B": 1}
_NOT_REPORTED = ("[N/A]", "[Not Supported]")


@dataclass(frozen=True)
class Block:
    """One CSV: its field names (without units) and its rows, each a dict of field -> text."""

    fields: tuple[str, ...]
    units: tuple[str | None, ...]
    rows: tuple[dict[str, str], ...]

    def number(self, row: dict[str, str], name: str) -> int | None:
        """A memory field in bytes (``"7751 MiB"``, or ``"7751"`` under a ``[MiB]`` header); None for
        ``[N/A]``, ``[Not Supported]`` or anything else."""
        value = row.get(name)
        if value is None:
            return None
        unit = self.units[self.fields.index(name)]
        text, _, said = value.strip().partition(" ")
        scale = _UNITS.get(said.strip() or unit or "MiB")
        if not text.isdigit() or len(text) > 12 or scale is None:
            return None
        return int(text) * scale


@dataclass(frozen=True)
class Query:
    gpus: Block
    processes: Block | None

    def facts(self) -> dict[str, Any]:
        entries: list[dict[str, Any]] = []
        names: dict[str, Any] = {}
        owners = self._owners()
        driver = None
        for position, row in enumerate(self.gpus.rows):
            index = row.get("index", str(position))
            entry: dict[str, Any] = {"index": int(index) if index.isdigit() else position}
            for field, key in (("name", "name"), ("pci.bus_id", "pci_bus_id"), ("uuid", "uuid")):
                if row.get(field):
                    entry[key] = row[field]
            total = self.gpus.number(row, "memory.total")
            used = self.gpus.number(row, "memory.used")
            free = self.gpus.number(row, "memory.free")
            if total is not None and used is None and free is not None:
                used = max(total - free, 0)
            if total is not None and used is not None:
                entry.update(
                    memory_total_bytes=total,
                    memory_used_bytes=used,
                    memory_free_bytes=free if free is not None else max(total - used, 0),
                )
            elif row.get("memory.total", "").strip() in _NOT_REPORTED:
                # nvidia-smi's words where NVML answers the memory query NotSupported (DGX Spark's GB10)
                entry["errors"] = {"memory": "NotSupported"}
            driver = driver or row.get("driver_version")
            if owners is not None:
                listed = owners.get(position, [])
                entry["processes"] = [
                    {"pid": p["pid"], "used_memory_bytes": p["used_memory_bytes"], "kind": "compute"}
                    for p in listed
                ]
                for process in listed:
                    names[str(process["pid"])] = {"name": process["name"], "status": "found"}
            entries.append(entry)
        return foreign.nvidia_smi_facts(driver, None, entries, names)

    def _owners(self) -> dict[int, list[dict[str, Any]]] | None:
        """The processes of each GPU (by row), or None when the text cannot say which GPU a process is on."""
        if self.processes is None:
            return None
        keys = [("gpu_uuid", "uuid"), ("gpu_bus_id", "pci.bus_id")]
        key = next(((p, g) for p, g in keys if p in self.processes.fields and g in self.gpus.fields), None)
        if key is None and len(self.gpus.rows) != 1:
            return None
        owners: dict[int, list[dict[str, Any]]] = {}
        where = {row.get(key[1], "").lower(): i for i, row in enumerate(self.gpus.rows)} if key else {}
        for row in self.processes.rows:
            pid = row.get("pid", "")
            if not pid.isdigit() or len(pid) > 10:
                continue
            position = where.get(row.get(key[0], "").lower()) if key else 0
            if position is None:
                return None  # a process on a GPU the GPU query does not list: the table is not whole
            used = (
                self.processes.number(row, "used_gpu_memory")
                if "used_gpu_memory" in self.processes.fields
                else None
            )
            owners.setdefault(position, []).append(
                {"pid": int(pid), "name": row.get("process_name", ""), "used_memory_bytes": used}
            )
        return owners

    def to_report(self, name: str) -> dict[str, Any]:
        marker = {
            "source": name,
            "gpus": len(self.gpus.rows),
            "indices_from_rows": "index" not in self.gpus.fields,
            "processes_listed": self._owners() is not None,
        }
        return foreign.report(self.facts(), {}, nvidia_smi_csv=marker)


def _header(line: str) -> tuple[tuple[str, ...], tuple[str | None, ...]] | None:
    """The fields and units of a CSV header line nvidia-smi wrote, or None for any other line."""
    parts = [part.strip() for part in line.split(",")]
    fields: list[str] = []
    units: list[str | None] = []
    for part in parts:
        name, _, unit = part.partition(" [")
        if not name or not all(c.isalnum() or c in "._" for c in name):
            return None
        fields.append(name.strip())
        units.append(unit.rstrip("]").strip() or None if unit else None)
    if "pid" in fields and ("used_gpu_memory" in fields or "used_memory" in fields):
        fields = ["used_gpu_memory" if f == "used_memory" else f for f in fields]
        return tuple(fields), tuple(units)
    if "memory.total" in fields and ("memory.used" in fields or "memory.free" in fields):
        return tuple(fields), tuple(units)
    return None


def _blocks(text: str) -> list[Block]:
    blocks: list[Block] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines) and len(blocks) < 8:
        line = _unquoted(lines[index])
        index += 1
        if len(line) > MAX_LINE or "," not in line or ("memory" not in line and "pid" not in line):
            continue
        header = _header(line)
        if header is None:
            continue
        fields, units = header
        rows: list[dict[str, str]] = []
        while index < len(lines) and len(rows) < MAX_ROWS:
            row = _unquoted(lines[index])
            cells = [cell.strip() for cell in row.split(",")] if len(row) <= MAX_LINE else []
            if len(cells) != len(fields) or _header(row) is not None:
                break
            rows.append(dict(zip(fields, cells, strict=True)))
            index += 1
        blocks.append(Block(fields, units, tuple(rows)))
    return blocks


def find(text: str) -> Query | None:
    """The first ``--query-gpu`` CSV of ``text`` with memory figures, with the first ``--query-compute-apps``
    CSV around it, or None."""
    start = min((i for i in (text.find("memory.total"), text.find("used_gpu_memory")) if i >= 0), default=-1)
    if start < 0:
        return None
    begin = text.rfind("\n", 0, start) + 1
    blocks = _blocks(text[begin : begin + MAX_CHARS])
    gpus = next((b for b in blocks if "memory.total" in b.fields and b.rows), None)
    if gpus is None:
        return None
    processes = next((b for b in blocks if "pid" in b.fields), None)
    return Query(gpus, processes)


def _unquoted(line: str) -> str:
    stripped = line.strip()
    while stripped.startswith(">"):
        stripped = stripped[1:].lstrip()
    return stripped.strip("`").strip()
