"""The probe worker: ``python -P -m torchdoctor.isolation.worker [--warm]``.

Reads one JSON request per line on stdin (``{"id", "target", "options"}``),
calls the probe and answers one JSON line on the protocol channel. The
channel is the process's original stdout; file descriptor 1 is pointed at
stderr before any probe runs, so whatever a probe or a C library prints
cannot corrupt the answers. With ``--warm`` it imports torch in the background
from the start (``torchdoctor.isolation.zygote``) and says how that went in one line
of its own, ``{"id": 0, "warm": {"facts" | "error": ...}}``; an answer made
after that import ended comes after that line.
"""

from __future__ import annotations

import contextlib
import faulthandler
import json
import os
import sys
import threading
import time
import traceback
import warnings
from typing import Any

from torchdoctor.isolation import lifeline, served
from torchdoctor.plugin import resolve

WARM_ID = 0
"""The id of the line that tells how the warm-up went (requests count from 1)."""
_writing = threading.Lock()


def handle(request: dict[str, Any]) -> dict[str, Any]:
    served.handled += 1
    started = time.perf_counter()
    answer: dict[str, Any] = {"id": request.get("id")}
    try:
        probe = resolve(request["target"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            facts = probe(request.get("options") or {})
        if not isinstance(facts, dict):
            raise TypeError(f"probe returned {type(facts).__name__}, not a dict of facts")
        json.dumps(facts, allow_nan=False)  # fail here, inside the probe's answer, not in the runner
        answer["facts"] = facts
    except BaseException as exc:  # SystemExit and KeyboardInterrupt from a probe are probe failures too
        answer["error"] = {
            "kind": "exception",
            "type": type(exc).__name__,
            "message": str(exc) or repr(exc),
            "traceback": traceback.format_exc(limit=-8),
        }
    answer["duration_s"] = time.perf_counter() - started
    return answer


def _limit_memory(argv: list[str]) -> None:
    """``--memory-limit BYTES``: the address space this worker may use (a runaway judge or plugin then gets
    MemoryError instead of the machine's memory; elsewhere the worker is ended at that resident size). Only
    workers that never load CUDA get one."""
    if "--memory-limit" not in argv:
        return
    limit = int(argv[argv.index("--memory-limit") + 1])
    if sys.platform == "linux":
        with contextlib.suppress(ImportError, ValueError, OSError):
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            return
    # Windows has no rlimits and macOS does not enforce RLIMIT_AS: a watchdog ends the worker instead.
    lifeline.bound_memory(limit)


def _send(answer: dict[str, Any]) -> None:
    assert served.channel is not None
    text = json.dumps(answer, allow_nan=False) + "\n"
    with _writing:  # the warm-up's line comes from another thread
        served.channel.write(text)
        served.channel.flush()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    # A hanging probe must not outlive a CLI that was killed outright.
    lifeline.die_with_parent(os.getppid())
    # Orphans of what a probe starts are adopted here, so the CLI finds them in this process's tree.
    lifeline.adopt_orphans()
    _limit_memory(args)
    served.channel = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    faulthandler.enable()
    warming = "--warm" in args
    if warming:
        from torchdoctor.isolation import zygote

        zygote.start_warming(lambda outcome: _send({"id": WARM_ID, "warm": outcome}))
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError:
            continue
        answer = handle(request)
        if warming:
            zygote.await_report()
        _send(answer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
