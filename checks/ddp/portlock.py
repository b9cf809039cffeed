"""The lock a DDP dry run holds on its MASTER_PORT, so that two dry runs on one machine never join each other.

The lock file lives in a folder of this user's own (``$TMPDIR/torchdoctor-UID``, mode 0700), checked
before it is used: a real folder, not a link, owned by this user, that nobody else can write. In it the lock
file is opened without following a link and created exclusively the first time; an existing one is used
only when it is a regular file of this user's. Nothing is ever truncated: the holder's pid is written over
the file's first bytes, padded to a fixed width. Where any of this does not hold, the dry run goes on
unlocked (the lock only guards against a mistake; it must never let someone else's file be written).

On Windows the folder is named for the account (no uids there) in the user's own temporary folder, and the
lock is a byte locked with ``msvcrt.locking`` just past the pid, which Windows releases when the holder ends.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterator

_PID_WIDTH = 20
_FLAGS = os.O_RDWR | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def lock_folder() -> str | None:
    """Where this user's lock files are: a folder of the temporary folder named for the user's id (on
    Windows, which has no uids, for the account's name; None where that cannot be told)."""
    if sys.platform == "win32":
        from torchdoctor.output.redact import system_user

        account = system_user()
        if not account:
            return None
        return os.path.join(tempfile.gettempdir(), "torchdoctor-" + re.sub(r"[^\w.-]", "_", account))
    return os.path.join(tempfile.gettempdir(), f"torchdoctor-{os.getuid()}")


def open_private_folder(path: str) -> int | None:
    """A descriptor of folder ``path``, created 0700 if missing; None unless it is a folder (not a link)
    owned by this user that no one else can write."""
    if sys.platform == "win32":  # no uids: _open_windows
        return None
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
    if sys.platform == "win32":  # no uids: _open_windows
        return None
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
    name = f"master-port-{port}.lock"
    fd = _open_windows(name) if sys.platform == "win32" else _open_posix(name)
    if fd is None:
        yield None
        return
    held, holder = _lock(fd)
    try:
        yield holder
    finally:
        if held:
            _unlock(fd)
        os.close(fd)


def _open_posix(name: str) -> int | None:
    path = lock_folder()
    folder = open_private_folder(path) if path is not None else None
    fd = open_lock(folder, name) if folder is not None else None
    if folder is not None:
        os.close(folder)
    return fd


def _open_windows(name: str) -> int | None:
    """The lock file in this user's folder of the temporary folder (a folder of the user's own profile,
    which other users cannot write); never through a link, and only a regular file."""
    folder = lock_folder()
    if folder is None:
        return None
    with contextlib.suppress(OSError):
        os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    if os.path.islink(folder) or os.path.islink(path):
        return None
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOINHERIT", 0)
    try:
        fd = os.open(path, flags, 0o600)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return fd


def _lock(fd: int) -> tuple[bool, int | None]:
    """Take the lock without waiting: (True, None) when taken, (False, holder's pid or -1) when another
    run holds it, (False, None) where this platform offers no lock."""
    try:
        if sys.platform == "win32":
            import msvcrt

            os.lseek(fd, _PID_WIDTH, os.SEEK_SET)  # the byte after the pid: Windows locks are mandatory
            try:
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            except OSError:
                return False, _holder(fd)
        else:
            import fcntl

            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False, _holder(fd)
        _write_at_start(fd, str(os.getpid()).ljust(_PID_WIDTH).encode())
    except (ImportError, OSError):
        return False, None
    return True, None


def _unlock(fd: int) -> None:
    """Windows: release the byte locked (closing the file releases it too, but not at once); POSIX: the
    lock goes with the descriptor."""
    if sys.platform == "win32":
        import msvcrt

        with contextlib.suppress(OSError):
            os.lseek(fd, _PID_WIDTH, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)


def _holder(fd: int) -> int:
    text = _read_at_start(fd, _PID_WIDTH).decode("ascii", errors="replace").strip()
    return int(text) if text.isascii() and text.isdigit() else -1


def _read_at_start(fd: int, size: int) -> bytes:
    if hasattr(os, "pread"):
        return os.pread(fd, size, 0)
    os.lseek(fd, 0, os.SEEK_SET)
    return os.read(fd, size)


def _write_at_start(fd: int, data: bytes) -> None:
    if hasattr(os, "pwrite"):
        os.pwrite(fd, data, 0)
        return
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, data)
