"""Probes that misbehave on purpose, for the runner's tests (imported by the worker through PYTHONPATH)."""

from __future__ import annotations

import os
import sys
import time
from typing import Any


def answer(options: dict[str, Any]) -> dict[str, Any]:
    return {"answer": 42, "pid": os.getpid(), "options": options}


def imports_torch(options: dict[str, Any]) -> dict[str, Any]:
    import torch

    from torchdoctor.isolation import zygote

    return {"torch": torch.__version__, "imported_by_warm_up": zygote.imported is not None}


def hang(options: dict[str, Any]) -> dict[str, Any]:
    time.sleep(3600)
    return {}


def abort(options: dict[str, Any]) -> dict[str, Any]:
    os.abort()


def segfault(options: dict[str, Any]) -> dict[str, Any]:
    import ctypes

    ctypes.string_at(0)
    return {}


def exit_hard(options: dict[str, Any]) -> dict[str, Any]:
    os._exit(7)


def exit_soft(options: dict[str, Any]) -> dict[str, Any]:
    sys.exit(5)


def raise_error(options: dict[str, Any]) -> dict[str, Any]:
    raise ValueError("boom")


def garbage(options: dict[str, Any]) -> dict[str, Any]:
    from torchdoctor.isolation import served

    assert served.channel is not None
    served.channel.write("this is not JSON\n")
    served.channel.flush()
    time.sleep(3600)
    return {}


def chatty(options: dict[str, Any]) -> dict[str, Any]:
    print("garbage printed by a probe")
    os.write(1, b"raw garbage on fd 1\n")
    return {"chatty": True}


def not_json(options: dict[str, Any]) -> dict[str, Any]:
    return {"value": {1, 2, 3}}


def not_a_dict(options: dict[str, Any]) -> Any:
    return [1, 2, 3]


def spawn_child(options: dict[str, Any]) -> dict[str, Any]:
    import subprocess

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    with open(options["pidfile"], "w") as f:
        f.write(str(child.pid))
    time.sleep(3600)
    return {}


def spawn_detached(options: dict[str, Any]) -> dict[str, Any]:
    """A daemon that leaves the worker's session (setsid) and forks twice, as a service launcher would."""
    import subprocess

    code = (
        "import os, sys, time\n"
        "os.setsid()\n"
        "if os.fork():\n"
        "    os._exit(0)\n"
        "open(sys.argv[1], 'w').write(str(os.getpid()))\n"
        "time.sleep(3600)\n"
    )
    subprocess.Popen([sys.executable, "-c", code, options["pidfile"]]).wait()
    deadline = time.monotonic() + 10
    while not os.path.exists(options["pidfile"]) and time.monotonic() < deadline:
        time.sleep(0.02)
    if options.get("hang"):
        time.sleep(3600)
    return {"started": True}


def spawn_daemon_then_die(options: dict[str, Any]) -> dict[str, Any]:
    """Start a daemon that leaves the worker's session and forks twice, then end the worker itself: the
    daemon's parent is gone before anyone kills the worker's tree."""
    spawn_detached({**options, "hang": False})
    os._exit(3)


def flood_stderr(options: dict[str, Any]) -> dict[str, Any]:
    chunk = b"x" * (1 << 20) + b"\n"
    for _ in range(int(options.get("mib", 256))):
        os.write(2, chunk)
    os.write(2, b"the last line\n")
    return {"flooded": True}
