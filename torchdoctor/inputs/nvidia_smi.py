"""``nvidia-smi`` output found in a text (an issue body, a support ticket), read into the facts the live
probes give: the driver, each GPU's memory, and the processes on each GPU, so that ``check --from`` and
``triage`` judge a pasted table with the same ``gpu.memory`` judge as a live machine.

Read: the default table of nvidia-smi 4xx to 5xx (its header with the driver and CUDA versions, two lines per
GPU with the memory in MiB, and the Processes table with and without the GI/CI columns), also when it was
pasted from its column titles on (the driver version then unknown). A Memory-Usage of "Not Supported" (a
GPU without memory of its own, such as DGX Spark's GB10) is read as NVML's NotSupported answer to the query.
What such a table cannot say is left out, never guessed: which process is the job (a pasted table has no
"this process"), the job's CUDA_VISIBLE_DEVICES (unknown: cuda.visible_devices skips), compute capabilities,
UUIDs. Bounded: at most ``MAX_CHARS`` of the text from the header on, ``MAX_GPUS`` GPUs, and lines of
``MAX_LINE`` characters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from torchdoctor.inputs import foreign

MAX_CHARS = 64 * 1024
MAX_GPUS = 64
MAX_LINE = 400
_MIB = 2**20

_HEADER = re.compile(
    r"NVIDIA-SMI\s+(?P<smi>[\d.]+)\s+Driver Version:\s*(?P<driver>[\d.]+)"
    r"(?:\s+CUDA Version:\s*(?P<cuda>[\d.]+))?"
)
# "|   0  NVIDIA GeForce RTX 3090        Off |   00000000:01:00.0  On |                  N/A |"
_GPU_LINE = re.compile(
    r"^\|\s*(?P<index>\d{1,3})\s+(?P<name>\S.*?)\s+(?:On|Off)\s*\|\s*(?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:"
    r"[0-9A-Fa-f]{2}\.\d)"
)
# "| 30%   45C    P8   25W /  350W |     542MiB /  24576MiB |      2%      Default |"
_MEMORY = re.compile(r"\|\s*(?P<used>\d+)\s*MiB\s*/\s*(?P<total>\d+)\s*MiB\s*\|")
# the same cell of a GPU without memory of its own (DGX Spark's GB10): NVML answers its memory query
# NotSupported
_MEMORY_NOT_SUPPORTED = re.compile(r"^\|[^|]{0,80}\|\s*Not Supported\s*\|")
# "|    0   N/A  N/A      1234      C   python                          10240MiB |", or without GI/CI
_PROCESS = re.compile(
    r"^\|\s*(?P<gpu>\d{1,3})\s+(?:(?:N/A|\d+)\s+(?:N/A|\d+)\s+)?(?P<pid>\d+)\s+(?P<type>C\+G|C|G)\s+"
    r"(?P<name>\S.*?)\s+(?P<used>\d+|N/A)\s*(?:MiB)?\s*\|\s*$"
)


@dataclass
class Gpu:
    index: int
    name: str
    pci_bus_id: str
    used_mib: int | None = None
    total_mib: int | None = None
    memory_not_supported: bool = False
    processes: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Table:
    driver_version: str | None
    """None: the table was pasted without its header line (cut above the column titles)."""
    cuda_version: str | None
    gpus: list[Gpu]
    processes_listed: bool  # the table has its whole Processes section (an empty one says: no process)

    def facts(self) -> dict[str, Any]:
        """The facts of the probes nvml, gpu_processes, env and cuda_driver, as far as the table tells."""
        gpus = []
        names: dict[str, Any] = {}
        for gpu in self.gpus:
            entry: dict[str, Any] = {"index": gpu.index, "name": gpu.name, "pci_bus_id": gpu.pci_bus_id}
            if gpu.total_mib is not None and gpu.used_mib is not None:
                entry.update(
                    memory_total_bytes=gpu.total_mib * _MIB,
                    memory_used_bytes=gpu.used_mib * _MIB,
                    memory_free_bytes=max(gpu.total_mib - gpu.used_mib, 0) * _MIB,
                )
            elif gpu.memory_not_supported:
                entry["errors"] = {"memory": "NotSupported"}
            if self.processes_listed:
                entry["processes"] = [
                    {"pid": p["pid"], "used_memory_bytes": p["used_memory_bytes"], "kind": p["kind"]}
                    for p in gpu.processes
                ]
                for process in gpu.processes:
                    names[str(process["pid"])] = {"name": process["name"], "status": "found"}
            gpus.append(entry)
        return foreign.nvidia_smi_facts(self.driver_version, _cuda_int(self.cuda_version), gpus, names)

    def to_report(self, name: str) -> dict[str, Any]:
        """A saved report (schema version 1) whose facts are what this table says."""
        marker = {"source": name, "gpus": len(self.gpus), "processes_listed": self.processes_listed}
        return foreign.report(self.facts(), {}, nvidia_smi=marker)


def _cuda_int(text: str | None) -> int | None:
    """``"12.4"`` -> 12040, as NVML's nvmlSystemGetCudaDriverVersion gives it."""
    if not text:
        return None
    major, _, minor = text.partition(".")
    if not major.isdigit():
        return None
    return int(major) * 1000 + (int(minor[:2]) * 10 if minor[:2].isdigit() else 0)


def find(text: str) -> Table | None:
    """The first nvidia-smi table in ``text`` with at least one GPU, or None."""
    header = _HEADER.search(text)
    # A table cut above its column titles still has them: "| Fan  Temp  Perf  Pwr:Usage/Cap|  Memory-Usage |"
    start = header.start() if header is not None else text.find("Memory-Usage")
    if start < 0:
        return None
    start = text.rfind("\n", 0, start) + 1
    lines = text[start : start + MAX_CHARS].splitlines()
    gpus: list[Gpu] = []
    by_index: dict[int, Gpu] = {}
    current: Gpu | None = None
    processes_listed = False
    in_processes = False
    seen_rule = False
    for raw in lines:
        if len(raw) > MAX_LINE:
            continue  # no line of nvidia-smi is this long; the patterns stay linear on what is left
        line = _unquoted(raw)
        if "Processes:" in line:
            in_processes = True
            continue
        if in_processes:
            # the section is known whole once it ends (its closing border after the '|===' line), says
            # "No running processes found", or lists a process; a table cut inside it leaves them unknown
            if "No running processes found" in line or (line.startswith("+-") and seen_rule):
                processes_listed = True
                break
            seen_rule = seen_rule or line.startswith("|=")
            found = _PROCESS.match(line)
            if found is not None:
                processes_listed = True
            if found is not None and int(found["gpu"]) in by_index:
                used = found["used"]
                by_index[int(found["gpu"])].processes.append(
                    {
                        "pid": int(found["pid"]),
                        "kind": "graphics" if found["type"] == "G" else "compute",
                        "name": found["name"].strip(),
                        "used_memory_bytes": int(used) * _MIB if used.isdigit() else None,
                    }
                )
            continue
        started = _GPU_LINE.match(line)
        if started is not None and len(gpus) < MAX_GPUS:
            current = Gpu(int(started["index"]), started["name"].strip(), started["bus"])
            gpus.append(current)
            by_index.setdefault(current.index, current)
            continue
        memory = _MEMORY.search(line)
        if memory is not None and current is not None and current.total_mib is None:
            current.used_mib, current.total_mib = int(memory["used"]), int(memory["total"])
        elif current is not None and current.total_mib is None and _MEMORY_NOT_SUPPORTED.match(line):
            current.memory_not_supported = True
    if not gpus:
        return None
    if header is None:
        return Table(None, None, gpus, processes_listed)
    return Table(header["driver"], header["cuda"], gpus, processes_listed)


def _unquoted(line: str) -> str:
    """A line as nvidia-smi printed it: without a Markdown quote's ``> `` or a code block's indent."""
    stripped = line.lstrip()
    while stripped.startswith(">"):
        stripped = stripped[1:].lstrip()
    return stripped
