"""The ``system`` probe: what collect_env reports beyond torch, for a support ticket.

The CPU (model, cores, the instruction sets kernels pick by, NUMA nodes), the C library, the compilers and
the CUDA toolkit on the PATH (each asked for its version with a deadline), and the conda packages of the
environment (read from its ``conda-meta`` folder: no ``conda`` process, which can take seconds or hang).
"""

from __future__ import annotations

import json
import os
import platform
import re
import stat
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from torchdoctor.plugin import Probe

TOOL_TIMEOUT_S = 3.0
_FLAGS = (
    "sse4_2",
    "avx",
    "avx2",
    "fma",
    "f16c",
    "avx512f",
    "avx512_bf16",
    "avx512_vnni",
    "amx_tile",
    "amx_bf16",
)
_ARM_FEATURES = ("asimd", "sve", "sve2", "bf16", "i8mm")
_VERSION = re.compile(r"\d+\.\d+(?:\.\d+)?")
_MAX_CONDA_PACKAGES = 5000


def probe(options: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "cpu": cpu(),
        "libc": " ".join(part for part in platform.libc_ver() if part) or None,
        "tools": {name: tool_version(name, *args) for name, args in _TOOLS.items()},
        "conda": conda_packages(),
    }


_TOOLS = {"gcc": ("--version",), "clang": ("--version",), "cmake": ("--version",), "nvcc": ("--version",)}


def cpu() -> dict[str, Any]:
    facts: dict[str, Any] = {
        "machine": platform.machine(),
        "cores": os.cpu_count(),
        "model": None,
        "flags": [],
    }
    info = _read("/proc/cpuinfo", 2**20)
    if info:
        first = info.split("\n\n", 1)[0]
        fields = dict(
            (key.strip().lower(), value.strip())
            for key, _, value in (line.partition(":") for line in first.splitlines())
        )
        facts["model"] = fields.get("model name") or fields.get("cpu model") or fields.get("hardware")
        present = set((fields.get("flags") or fields.get("features") or "").split())
        facts["flags"] = [flag for flag in (*_FLAGS, *_ARM_FEATURES) if flag in present]
    elif sys.platform == "darwin":
        sysctl = find_program("sysctl", SYSTEM_FOLDERS)
        facts["model"] = _run([sysctl, "-n", "machdep.cpu.brand_string"]) if sysctl else None
    elif sys.platform == "win32":
        facts["model"] = platform.processor() or None
    nodes = Path("/sys/devices/system/node")
    try:
        facts["numa_nodes"] = len([n for n in nodes.iterdir() if re.fullmatch(r"node\d+", n.name)])
    except OSError:
        facts["numa_nodes"] = None
    return facts


SYSTEM_FOLDERS = ("/usr/sbin", "/sbin", "/usr/bin", "/bin")
"""Where the system's own programs are (sysctl): looked up there, never through PATH."""


def find_program(name: str, folders: Iterable[str] | None = None) -> str | None:
    """The absolute path of program ``name`` in ``folders`` (default: the PATH's), or None.

    Only absolute folders count: an empty PATH entry, ``.`` or any relative one means "the current
    folder", where a file named like a compiler may be anyone's. The first regular, executable file wins,
    as the shell finds it.
    """
    if folders is None:
        folders = os.environ.get("PATH", "").split(os.pathsep)
    for folder in folders:
        if not folder or not os.path.isabs(folder):
            continue
        candidate = os.path.join(folder, name)
        try:
            info = os.stat(candidate)
        except (OSError, ValueError):
            continue
        if stat.S_ISREG(info.st_mode) and os.access(candidate, os.X_OK):
            return candidate
    return None


def tool_version(name: str, *args: str) -> dict[str, Any] | None:
    """Where a tool is on the PATH (absolute folders only) and the version it prints, asked with a
    deadline; None if absent."""
    path = find_program(name)
    if path is None:
        return None
    output = _run([path, *args])
    found = _VERSION.search(output.split("release", 1)[-1] if name == "nvcc" else output) if output else None
    return {"path": path, "version": found.group(0) if found else None}


def conda_packages() -> dict[str, Any] | None:
    """The packages of the conda environment this Python runs in, from ``conda-meta/*.json``."""
    meta = Path(sys.prefix) / "conda-meta"
    if not meta.is_dir():
        return None
    packages: dict[str, str] = {}
    for index, path in enumerate(sorted(meta.glob("*.json"))):
        if index >= _MAX_CONDA_PACKAGES:
            break
        text = _read(str(path), 2**20)
        try:
            record = json.loads(text) if text else None
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("name"), str):
            packages[record["name"]] = str(record.get("version") or "")
    return {"prefix": sys.prefix, "packages": dict(sorted(packages.items()))}


def _read(path: str, limit: int) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(limit)
    except OSError:
        return None


def _run(command: list[str]) -> str:
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=TOOL_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return (done.stdout or done.stderr)[:4000]


PROBE = Probe.of("system", probe)
"""The ``system`` probe every support ticket carries."""
