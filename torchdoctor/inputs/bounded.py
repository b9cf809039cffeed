"""Reading what the user hands over (files, stdin) with bounds: regular files only, a size cap, JSON limits.

A FIFO, a device such as ``/dev/zero``, a folder or a file over the cap is refused with a one-line reason
before anything is read, and no read ever takes more than the cap plus one byte, so a hostile input cannot
hang torchdoctor or grow it without end.
"""

from __future__ import annotations

import io
import json
import os
import stat
import sys
import time
from pathlib import Path
from typing import IO, Any

from torchdoctor.output.inert import shown

MAX_REPORT_BYTES = 64 * 2**20
"""The largest saved report or text file torchdoctor reads (a report of 8 GPUs is about 100 KiB)."""
MAX_STDIN_BYTES = 16 * 2**20
"""The most torchdoctor reads from stdin (a whole log pasted into explain or triage)."""
STDIN_TIMEOUT_S = 120.0
"""How long torchdoctor waits for a piped stdin to end (a log that is still being written never does)."""
TERMINAL_TIMEOUT_S = 600.0
"""How long it waits for a paste into a terminal to end with Ctrl-D."""
MAX_JSON_DEPTH = 64
MAX_JSON_ITEMS = 2_000_000
"""Objects, arrays and scalars together in one JSON document."""


class InputError(ValueError):
    """An input torchdoctor refuses or cannot read; the message is one line naming it."""


def whole_number(text: str | None) -> int | None:
    """A variable's value read as a non-negative integer the way C programs read one (ASCII digits,
    surrounding spaces allowed); None for anything else ("²" is a digit to Python, not to a launcher)."""
    if text is None:
        return None
    stripped = text.strip()
    return (
        int(stripped)
        if stripped and len(stripped) <= 18 and all(c in "0123456789" for c in stripped)
        else None
    )


def _article(noun: str) -> str:
    return f"an {noun}" if noun[:1] in "aeiou" else f"a {noun}"


def _size_text(n: int) -> str:
    return f"{n / 2**20:.0f} MiB" if n >= 2**20 else f"{n} bytes"


class Refused(Exception):
    """Why :func:`read_regular` read nothing: ``kind`` is one of ``missing``, ``folder``, ``special`` (a pipe,
    socket or device), ``large`` (over the cap, or grew past it while read) or ``unreadable``; ``detail`` is
    the system's reason for ``missing`` and ``unreadable``, the size (or ``grew``) for ``large``."""

    def __init__(self, kind: str, detail: str = "") -> None:
        super().__init__(kind, detail)
        self.kind = kind
        self.detail = detail


def read_regular(path: Path | str, max_bytes: int) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``, or Refused; never waits on a FIFO and never
    reads more than ``max_bytes`` + 1 bytes. Every file reader of torchdoctor goes through here."""
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError as exc:
        raise Refused("missing", str(exc.strerror)) from None
    except IsADirectoryError:
        raise Refused("folder") from None
    except OSError as exc:
        raise Refused("unreadable", str(exc.strerror or exc)) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise Refused("folder")
        if not stat.S_ISREG(info.st_mode):
            raise Refused("special")
        if info.st_size > max_bytes:
            raise Refused("large", _size_text(info.st_size))
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise Refused("unreadable", str(exc.strerror or exc)) from None
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        raise Refused("large", "grew")
    return data


def read_file(path: Path, max_bytes: int = MAX_REPORT_BYTES, what: str = "file") -> bytes:
    """The bytes of a regular file of at most ``max_bytes``; InputError for anything else."""
    try:
        return read_regular(path, max_bytes)
    except Refused as refused:
        raise InputError(_refusal(refused, shown(path), max_bytes, what)) from None


def _refusal(refused: Refused, name: str, max_bytes: int, what: str) -> str:
    if refused.kind == "missing":
        return f"{name} does not exist"
    if refused.kind == "folder":
        return f"{name} is a folder, not {_article(what)}"
    if refused.kind == "special":
        return f"{name} is not a regular file (a pipe, socket or device): give {_article(what)}"
    if refused.kind == "large" and refused.detail == "grew":
        return f"{name} grew past {_size_text(max_bytes)} while it was read"
    if refused.kind == "large":
        return f"{name} is {refused.detail}, more than the {_size_text(max_bytes)} torchdoctor reads"
    return f"cannot read {name}: {refused.detail}"


def read_stream(stream: IO[bytes], max_bytes: int = MAX_STDIN_BYTES, what: str = "stdin") -> bytes:
    """At most ``max_bytes`` of a stream; InputError when there is more."""
    data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise InputError(f"{what} holds more than the {_size_text(max_bytes)} torchdoctor reads")
    return data


def stdin_is_terminal() -> bool:
    """Whether stdin is a terminal (someone may paste into it); False when there is no stdin at all."""
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (AttributeError, OSError, ValueError):
        return False


def read_stdin_text(max_bytes: int = MAX_STDIN_BYTES, timeout: float | None = None) -> str:
    """Standard input as text, at most ``max_bytes`` of it and until its end comes within ``timeout``
    seconds (default: TERMINAL_TIMEOUT_S on a terminal, else STDIN_TIMEOUT_S); undecodable bytes become
    U+FFFD."""
    if sys.stdin is None:
        raise InputError("stdin is closed: pass the text as an argument or a file, or pipe it in")
    fd = _fileno(sys.stdin)
    if fd is not None and _can_wait_on(fd):
        if timeout is None:
            timeout = TERMINAL_TIMEOUT_S if os.isatty(fd) else STDIN_TIMEOUT_S
        return read_fd(fd, max_bytes, timeout).decode("utf-8", errors="replace")
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is not None:
        return read_stream(buffer, max_bytes).decode("utf-8", errors="replace")
    text = sys.stdin.read(max_bytes + 1)
    if len(text) > max_bytes:
        raise InputError(f"stdin holds more than the {_size_text(max_bytes)} torchdoctor reads")
    return text


def read_fd(fd: int, max_bytes: int, timeout: float, what: str = "stdin") -> bytes:
    """What file descriptor ``fd`` holds up to its end: InputError when it holds more than ``max_bytes`` or
    its end has not come after ``timeout`` seconds (a pipe whose writer never closes it)."""
    import select

    deadline = time.monotonic() + timeout
    chunks: list[bytes] = []
    size = 0
    while True:
        left = deadline - time.monotonic()
        ready, _, _ = select.select([fd], [], [], max(left, 0.0))
        if not ready:
            raise InputError(
                f"{what} did not end within {timeout:g} s: give a finished text (a log still being written "
                "never ends: save it to a file, then pass the file or redirect it)"
            )
        try:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
        except BlockingIOError:
            continue
        except OSError as exc:
            raise InputError(f"cannot read {what}: {exc.strerror or exc}") from None
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:
            raise InputError(f"{what} holds more than the {_size_text(max_bytes)} torchdoctor reads")


def _fileno(stream: Any) -> int | None:
    try:
        return int(stream.fileno())
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None


def _can_wait_on(fd: int) -> bool:
    """select() works on every descriptor on POSIX; on Windows only on sockets."""
    return sys.platform != "win32" and fd >= 0


def decode(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name} is not UTF-8 text (byte {exc.start})") from None


def parse_json(text: str, name: str) -> Any:
    """JSON with bounded depth and size; InputError with the line and column of a syntax error."""
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{name} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except RecursionError:
        raise InputError(f"{name} is nested more deeply than {MAX_JSON_DEPTH} levels") from None
    except ValueError as exc:
        raise InputError(f"{name} is not valid JSON: {exc}") from None
    _check_shape(data, name)
    return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _check_shape(data: Any, name: str) -> None:
    stack: list[tuple[Any, int]] = [(data, 1)]
    seen = 0
    while stack:
        value, depth = stack.pop()
        seen += 1
        if seen > MAX_JSON_ITEMS:
            raise InputError(f"{name} holds more than {MAX_JSON_ITEMS:,} JSON values")
        if isinstance(value, dict | list):
            if depth > MAX_JSON_DEPTH:
                raise InputError(f"{name} is nested more deeply than {MAX_JSON_DEPTH} levels")
            children = value.values() if isinstance(value, dict) else value
            stack.extend((child, depth + 1) for child in children)
