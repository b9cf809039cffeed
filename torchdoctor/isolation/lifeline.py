"""A child process that must not outlive the process that started it (the probe worker, a DDP rank).

On Linux the kernel kills the child when its parent dies (PR_SET_PDEATHSIG); everywhere a daemon thread
notices the parent is gone, or that an optional deadline has passed, and exits.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time

EXIT_ORPHANED = 70
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

    def watch() -> None:
        while True:
            time.sleep(0.25)
            if os.getppid() != parent_pid or (deadline is not None and time.time() > deadline):
                os._exit(exit_code)

    threading.Thread(target=watch, name="torchdoctor-lifeline", daemon=True).start()


def adopt_orphans() -> None:
    """Make this process a child subreaper (Linux): a descendant whose parent exits (a daemon that forked
    twice, a process that called setsid) becomes this process's child instead of init's, so it stays in
    this process's tree, where whoever ends this process finds and ends it too."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
