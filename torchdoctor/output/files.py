"""Writing a file torchdoctor made (a report): only ever over a regular file, atomically, through a temporary
file and a rename; a link is followed only to a regular file."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from pathlib import Path

from torchdoctor.output import inert


class Unwritable(ValueError):
    """A target that cannot be written, or would be overwritten without leave; the message is one line."""


def check_target(path: Path, force: bool, option: str = "-o") -> Path:
    """Refuse (:class:`Unwritable`), before anything runs, a target that cannot be written or would be
    overwritten; ``option`` is the command-line option that named it.

    Only a regular file is ever replaced (with --force): never a folder, a device, a FIFO or a socket, nor
    a symbolic link to one. A link to a regular file is followed, so the file it names is what is written.
    """
    try:
        info = path.lstat()
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise Unwritable(f"{option} {shown(path)}: {exc.strerror or exc}") from None
    if info is not None and stat.S_ISLNK(info.st_mode):
        try:
            resolved = path.resolve(strict=True)
            info = resolved.stat()
        except (OSError, RuntimeError):
            why = "is a symbolic link to nothing: give a file name"
            raise Unwritable(f"{option} {shown(path)} {why}") from None
        path = resolved
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise Unwritable(f"{shown(path)} is a folder: give a file name with {option}")
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise Unwritable(
            f"{shown(path)} is not a regular file (a device, FIFO or socket): torchdoctor only ever "
            "replaces regular files, even with --force"
        )
    if not path.parent.is_dir():
        raise Unwritable(f"{option} {shown(path)}: the folder {shown(path.parent)} does not exist")
    if info is not None and not force:
        raise Unwritable(f"{shown(path)} exists: use --force to overwrite it")
    return path


def shown(path: Path) -> str:
    """A path as messages show it: quoted where needed, and at most about 120 characters."""
    text = inert.shown(path)
    return text if len(text) <= 120 else f"{text[:60]}...{text[-40:]}"


class NotRegularFile(OSError):
    """The name to replace holds something else than a regular file (it was swapped in meanwhile)."""


def write_new(path: Path, text: str, overwrite: bool = False) -> None:
    """Write ``text`` to ``path`` atomically: a temporary file in the same folder, then a rename.

    Without ``overwrite`` an existing file is never replaced, even one created meanwhile: the temporary
    file is hard-linked to the name, which fails if the name exists (FileExistsError). With it, only a
    regular file is replaced, as the name is at the moment of the rename (:func:`replace_regular`).
    """
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".torchdoctor-report-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes it 0600; give it a new file's usual mode
        if overwrite:
            replace_regular(temporary, path)
            return
        try:
            os.link(temporary, path)
        except FileExistsError:
            raise
        except OSError:
            # A file system without hard links: the check before the rename is the best it allows.
            if path.exists():
                raise FileExistsError(path) from None
            os.replace(temporary, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


def replace_regular(temporary: str, path: Path) -> None:
    """Rename ``temporary`` to ``path`` if ``path`` is a regular file or nothing; NotRegularFile otherwise.

    Where the system can swap two names atomically (Linux renameat2 RENAME_EXCHANGE), the two are swapped,
    what came out from under ``path`` is looked at, and swapped back if it is not a regular file: nothing
    can be slipped in between the look and the rename. Elsewhere the name is looked at (without following
    a link) just before the rename.
    """
    if _exchange(temporary, path):
        if stat.S_ISREG(os.lstat(temporary).st_mode):
            return  # the old file is now the temporary name, which the caller removes
        _exchange(temporary, path)
        raise NotRegularFile(str(path))
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        os.link(temporary, path)  # still nothing there: create it, never over something new
        return
    if not stat.S_ISREG(info.st_mode):
        raise NotRegularFile(str(path))
    os.replace(temporary, path)


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _exchange(first: str | Path, second: str | Path) -> bool:
    """Swap two names atomically; False where they cannot be (no such call, nothing at ``second``, a file
    system without the flag)."""
    if sys.platform != "linux":
        return False
    import ctypes
    import errno

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    done = renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE)
    if done == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOENT, errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EXDEV):
        return False
    raise OSError(code, os.strerror(code), str(second))


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
