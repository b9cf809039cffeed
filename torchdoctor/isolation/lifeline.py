"""A child process that must not outlive the process that started it (the probe worker, a DDP rank).

On Linux the kernel kills the child when its parent dies (PR_SET_PDEATHSIG); everywhere a daemon thread
notices the parent is gone (a new parent pid on POSIX; on Windows, through psutil, no process of the parent's
start time under its pid), or that an optional deadline has passed, and exits. Where the kernel bounds no
memory (Windows, macOS), a daemon thread ends the process at a resident size instead (:func:`bound_memory`).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Callable

EXIT_ORPHANED = 70
EXIT_MEMORY = 71
"""The exit code of a worker the memory watchdog ended (:func:`bound_memory`)."""
MEMORY_POLL_S = 0.1
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_PR_SET_CHILD_SUBREAPER = 36


def die_with_parent(parent_pid: int, deadline: float | None = None, exit_code: int = EXIT_ORPHANED) -> None:
    """Exit with ``exit_code`` once ``parent_pid`` is no longer this process's parent, or after ``deadline``
    (a ``time.time()`` value)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent_pid:  # the parent died before the line above took effect
        os._exit(exit_code)
    alive = _parent_watch(parent_pid)

    def watch() -> None:
        while True:
            time.sleep(0.25)
            if not alive() or (deadline is not None and time.time() > deadline):
                os._exit(exit_code)

    threading.Thread(target=watch, name="torchdoctor-lifeline", daemon=True).start()


def _parent_watch(parent_pid: int) -> Callable[[], bool]:
    """Whether the parent still lives. POSIX gives an orphan a new parent, so ``os.getppid()`` changes;
    Windows keeps the dead parent's pid, which may even be reused: there psutil compares the process that
    holds the pid now with the one that started this process."""
    if sys.platform == "win32":
        try:
            import psutil

            born = psutil.Process(parent_pid).create_time()
        except ImportError:  # psutil cannot tell: the parent's own end closes the worker's input instead
            return lambda: True
        except Exception as exc:  # gone already, or not ours to read
            gone = type(exc).__name__ == "NoSuchProcess"
            return lambda: not gone

        def alive() -> bool:
            try:
                return bool(psutil.Process(parent_pid).create_time() == born)
            except psutil.NoSuchProcess:
                return False
            except Exception:
                return True

        return alive
    return lambda: os.getppid() == parent_pid


def adopt_orphans() -> None:
    """Make this process a child subreaper (Linux): a descendant whose parent exits (a daemon that forked
    twice, a process that called setsid) becomes this process's child instead of init's, so it stays in
    this process's tree, where whoever ends this process finds and ends it too."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def bound_memory(limit: int, exit_code: int = EXIT_MEMORY) -> bool:
    """End this process with ``exit_code`` once its resident memory passes ``limit`` bytes, watched through
    psutil by a daemon thread: the bound where the kernel enforces none (Windows, macOS). False where psutil
    cannot read this process's memory."""
    try:
        import psutil

        me = psutil.Process()
        me.memory_info()
    except Exception:  # no psutil, or it cannot read this process
        return False

    def watch() -> None:
        while True:
            time.sleep(MEMORY_POLL_S)
            try:
                used = me.memory_info().rss
            except Exception:
                return
            if used > limit:
                with contextlib.suppress(Exception):
                    sys.stderr.write(f"torchdoctor: the worker passed its memory bound ({limit} bytes)\n")
                    sys.stderr.flush()
                os._exit(exit_code)

    threading.Thread(target=watch, name="torchdoctor-memory-bound", daemon=True).start()
    return True
