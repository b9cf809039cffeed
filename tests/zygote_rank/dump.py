"""``python -P -m zygote_rank.dump ARGS``: what a process sees of itself, as one JSON object on stdout.

tests/isolation/test_zygote.py starts it twice in one environment, once fresh as the launcher starts a rank
and once
forked from the zygote: every fact of one must be a fact of the other. It imports torch as the rank program
does, then initializes a one-rank gloo process group, which reads GLOO_SOCKET_IFNAME from the environment.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
import threading
import warnings
from datetime import timedelta
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGPIPE, signal.SIGCHLD, signal.SIGTERM)


def c_environ() -> dict[str, str]:
    """The C library's environment, which getenv (torch's C++, gloo, NCCL, the CUDA driver) reads."""
    entries = ctypes.POINTER(ctypes.c_char_p).in_dll(ctypes.CDLL(None), "environ")
    found: dict[str, str] = {}
    index = 0
    while entries[index] is not None:
        name, _, value = entries[index].decode(errors="replace").partition("=")
        found[name] = value
        index += 1
    return found


def threads(torch: Any) -> dict[str, Any]:
    other: list[int] = []
    thread = threading.Thread(target=lambda: other.append(torch.get_num_threads()))
    thread.start()
    thread.join()
    return {
        "intra_op": torch.get_num_threads(),
        "intra_op_new_thread": other[0],
        "inter_op": torch.get_num_interop_threads(),
        "parallel_info": torch.__config__.parallel_info(),
    }


def gloo(dist: Any) -> str:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    try:
        dist.init_process_group(
            "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1, timeout=timedelta(seconds=20)
        )
        dist.destroy_process_group()
        return "initialized"
    except Exception as exc:
        return f"{type(exc).__name__}: {str(exc).splitlines()[0]}"


def main() -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import torch
        import torch.distributed as dist
    facts: dict[str, Any] = {
        "environ": dict(os.environ),
        "c_environ": c_environ(),
        "argv": sys.argv[1:],
        "orig_argv": sys.orig_argv,
        "main": [__name__, os.path.basename(getattr(sys.modules["__main__"], "__file__", "") or "")],
        "flags": repr(sys.flags),
        "path": sys.path,
        "cwd": os.getcwd(),
        "session_leader": os.getsid(0) == os.getpid(),
        "stdin": os.readlink("/proc/self/fd/0"),
        "descriptors": sorted(os.listdir("/proc/self/fd")),
        "signals": {s.name: repr(signal.getsignal(s)) for s in SIGNALS},
        "warning_filters": [repr(f) for f in warnings.filters],
        "stdio": [
            (s.name, s.mode, s.encoding, s.errors, s.line_buffering, s.write_through, type(s.buffer).__name__)
            for s in (sys.stdin, sys.stdout, sys.stderr)
        ],
        "cuda": {
            "initialized": torch.cuda.is_initialized(),
            "bad_fork": torch.cuda._is_in_bad_fork(),
            "distributed_initialized": dist.is_initialized(),
        },
    }
    facts["cuda"]["available"] = torch.cuda.is_available()
    facts["threads"] = threads(torch)
    facts["gloo"] = gloo(dist)
    return facts


if __name__ == "__main__":
    print(json.dumps(main()))
    sys.stdout.flush()
    os._exit(0)
