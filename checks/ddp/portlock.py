"""The lock a DDP dry run holds on its MASTER_PORT, so that two dry runs on one machine never join each other.

The lock file lives in a folder of this user's own (``$TMPDIR/torchdoctor-UID``, mode 0700), checked
before it is used: a real folder, not a link, owned by this user, that nobody else can write. In it the lock
file is opened without following a link and created exclusively the first time; an existing one is used
only when it is a regular file of this user's. Nothing is ever truncated: the holder's pid is written over
the file's first bytes, padded to a fixed width. Where any of this does not hold, the dry run goes on
unlocked (the lock only guards against a mistake; it must never let someone else's file be written).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator

_PID_WIDTH = 20
_FLAGS = os.O_RDWR | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def lock_folder() -> str:
    """Where this user's lock files are: a folder of the temporary folder named for the user's id."""
    return os.path.join(tempfile.gettempdir(), f"torchdoctor-{os.getuid()}")


def open_private_folder(path: str) -> int | None:
    """A descriptor of folder ``path``, created 0700 if missing; None unless it is a folder (not a link)
    owned by this user that no one else can write."""
    with contextlib.suppress(FileExistsError, OSError):
        os.mkdir(path, 0o700)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    info = os.fstat(fd)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        os.close(fd)
        return None
    return fd


def open_lock(folder: int, name: str) -> int | None:
    """The lock file ``name`` in ``folder``: created exclusively, or an existing regular file of this
    user's with one link; never through a link. None where there is no such file to use."""
    try:
        return os.open(name, _FLAGS | os.O_CREAT | os.O_EXCL, 0o600, dir_fd=folder)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        fd = os.open(name, _FLAGS, dir_fd=folder)
    except OSError:
        return None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_nlink != 1:
        os.close(fd)
        return None
    return fd


@contextlib.contextmanager
def hold(port: int) -> Iterator[int | None]:
    """Hold this machine's lock of ``port`` for one dry run; yields None, or the pid of the dry run that
    holds it already (-1 when that one wrote no pid)."""
    if not hasattr(os, "getuid"):
        yield None
        return
    folder = open_private_folder(lock_folder())
    fd = open_lock(folder, f"master-port-{port}.lock") if folder is not None else None
    if folder is not None:
        os.close(folder)
    if fd is None:
        yield None
        return
    holder: int | None = None
    try:
        import fcntl

        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            text = os.pread(fd, _PID_WIDTH, 0).decode("ascii", errors="replace").strip()
            holder = int(text) if text.isascii() and text.isdigit() else -1
        else:
            os.pwrite(fd, str(os.getpid()).ljust(_PID_WIDTH).encode(), 0)
    except (ImportError, OSError):
        holder = None
    try:
        yield holder
    finally:
        os.close(fd)
