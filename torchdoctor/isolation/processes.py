"""A child started in a group of its own, stopped and killed whole, with what each platform offers.

POSIX: a new session (``setsid``), so the child leads a process group that ``killpg`` ends at once, and
``SIGSTOP`` to freeze it while its tree is read. Windows has neither: the child gets a process group of its
own (``CREATE_NEW_PROCESS_GROUP``, so a Ctrl+C meant for the console does not reach it), and its tree is
found, suspended and killed through psutil.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from typing import Any, Protocol


class Child(Protocol):
    """What :func:`kill_group` needs of a child: ``subprocess.Popen``, or a child of the zygote."""

    @property
    def pid(self) -> int: ...

    def kill(self) -> None: ...


def own_group() -> dict[str, Any]:
    """The ``subprocess.Popen`` arguments that start a child in a group of its own."""
    if sys.platform == "win32":
        return {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}
    return {"start_new_session": True}


def descendants(pid: int) -> list[Any]:
    """The psutil processes below ``pid``; none where the process is gone or psutil cannot tell."""
    try:
        import psutil

        return list(psutil.Process(pid).children(recursive=True))
    except Exception:  # the process is gone, or psutil cannot read the process table
        return []


def stop(pid: int) -> None:
    """Freeze ``pid`` (it forks or starts nothing more until it is killed); nothing where it is gone."""
    if sys.platform == "win32":
        with contextlib.suppress(Exception):
            import psutil

            psutil.Process(pid).suspend()
        return
    import signal

    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGSTOP)


def kill_group(proc: Child) -> None:
    """Kill ``proc`` and its group (POSIX) or its tree (Windows); nothing where it has exited."""
    if sys.platform == "win32":
        for process in descendants(proc.pid):
            with contextlib.suppress(Exception):
                process.kill()
        with contextlib.suppress(OSError):
            proc.kill()
        return
    import signal

    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
