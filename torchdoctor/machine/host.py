"""A summary of the host, read in the CLI process without torch or any driver call."""

from __future__ import annotations

import os
import platform
import socket
import sys
from pathlib import Path
from typing import Any


def _os_name() -> str:
    if sys.platform.startswith("linux"):
        try:
            release = platform.freedesktop_os_release()
            return release.get("PRETTY_NAME") or release.get("NAME") or "Linux"
        except OSError:
            return "Linux"
    if sys.platform == "darwin":
        return f"macOS {platform.mac_ver()[0]}".strip()
    return f"{platform.system()} {platform.release()}".strip()


def in_container() -> bool:
    if Path("/.dockerenv").exists() or Path("/run/.containerenv").exists():
        return True
    try:
        cgroup = Path("/proc/1/cgroup").read_text()
    except OSError:
        return False
    return any(marker in cgroup for marker in ("docker", "kubepods", "containerd", "lxc"))


def summary() -> dict[str, Any]:
    return {
        "hostname": socket.gethostname(),
        "os": _os_name(),
        "kernel": platform.release(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "executable": sys.executable,
        "virtualenv": sys.prefix != sys.base_prefix or "CONDA_PREFIX" in os.environ,
        "cpu_count": os.cpu_count(),
        "in_container": in_container(),
    }
