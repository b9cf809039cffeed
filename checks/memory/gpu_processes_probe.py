"""The ``gpu_processes`` probe: who the processes NVML lists on the GPUs are (name and user via psutil).

NVML reports PIDs as the driver sees them, in the host's PID namespace. Inside a container with
its own PID namespace those numbers name other processes or none, so there the names are
"unknown" (NVIDIA/nvidia-docker #179, #1483; research/memory_bandwidth.md §5.1). Also records
this process's ancestors, so a doctor started from inside a job does not count that job as a
stranger.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from torchdoctor.machine import nvml

# PROC_PID_INIT_INO in the kernel's include/linux/proc_ns.h: the inode of the initial PID namespace.
_INIT_PID_NAMESPACE = "pid:[4026531836]"


def pid_namespace(link: str | None) -> str | None:
    """``host`` in the initial PID namespace, ``container`` in another, None when it cannot be read."""
    if link is None:
        return None
    return "host" if link == _INIT_PID_NAMESPACE else "container"


def _namespace_link() -> str | None:
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return None


def describe(pid: int, namespace: str | None) -> dict[str, Any]:
    """Name and user of ``pid`` as this process can see it, and how sure that is."""
    if namespace == "container":
        return {"name": None, "user": None, "status": "other_namespace"}
    import psutil

    try:
        process = psutil.Process(pid)
        with process.oneshot():
            return {"name": process.name(), "user": process.username(), "status": "found"}
    except psutil.NoSuchProcess:
        return {"name": None, "user": None, "status": "gone"}
    except psutil.AccessDenied:
        return {"name": None, "user": None, "status": "denied"}


def _ancestors() -> list[int]:
    import psutil

    try:
        return [parent.pid for parent in psutil.Process().parents()]
    except psutil.Error:
        return []


def probe(options: Mapping[str, Any]) -> dict[str, Any]:
    snapshot = nvml.query()
    pids = sorted({p.pid for gpu in snapshot.gpus for p in gpu.processes or []})
    namespace = pid_namespace(_namespace_link())
    return {
        "pid_namespace": namespace,
        "own_pid": os.getpid(),
        "ancestors": _ancestors(),
        "processes": {str(pid): describe(pid, namespace) for pid in pids},
    }
