"""What torchdoctor prints, on the way out: redacted, then made inert.

:func:`guarded` puts a :class:`GuardedStream` in place of ``sys.stdout`` and ``sys.stderr`` for the whole
life of a command (``torchdoctor.cli.main`` does it before the command line is even parsed), so every line
any command, renderer, error message or library prints passes through :func:`clean`: credentials always
removed; identities (home directory, user and host names as pseudonyms, GPU UUIDs shortened) unless the
command was given ``--no-redact`` (:func:`keep_identities`); and every character a terminal would act on made
visible (:mod:`torchdoctor.output.inert`). Structured outputs are also redacted where they are built (a
report's JSON data, by key, before any renderer sees it); this is the net under everything else.

Text goes out a line at a time, so a credential written in two pieces is still seen whole, and an armored
block (a PEM key) is dropped from its BEGIN line to its END line, however many lines it spans. The one way
around it is :func:`unguarded`: for rich, whose colour codes are the terminal sequences the guard would show,
and which is only ever given text that went through :func:`clean` or a redacted report.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

from torchdoctor.output import inert
from torchdoctor.output.redact import Identity, Redactor, strip_secrets


@dataclass
class _Policy:
    identities: bool = True
    redact: bool = True
    hostnames: list[str] = field(default_factory=list)
    redactor: Redactor | None = None


_policy = _Policy()


def keep_identities() -> None:
    """``--no-redact``: what is printed from now on keeps identities; credentials still go."""
    _policy.identities = False


def hide_hostnames(names: Iterable[str]) -> None:
    """Other machines' names the output may show (a saved report's host, the nodes of a diff): each gets a
    pseudonym of its own, like this machine's."""
    new = [name for name in names if name and name not in _policy.hostnames]
    if new:
        _policy.hostnames += new
        _policy.redactor = None


def clean(text: str) -> str:
    """``text`` as torchdoctor may print it: redacted (as the command's options say) and inert."""
    return inert.inert(_redacted(text))


def clean_line(text: str) -> str:
    """``text`` as one line of output: :func:`clean`, line breaks and tabs shown as escapes too."""
    return inert.one_line(_redacted(text))


def redacted_value(value: Any) -> Any:
    """A JSON-like value redacted by key and string as the command's options say (a secret-looking key's
    value replaced): for ``--json`` outputs built from what the user handed over. Printed, it is made inert
    on the way out like everything else; inside a JSON string an escape is the same character."""
    return _redactor().value(value) if _policy.redact else value


def _redacted(text: str) -> str:
    if not _policy.redact:
        return text
    if not _policy.identities:
        return strip_secrets(text)
    return _redactor().text(text)


def _redactor() -> Redactor:
    if not _policy.identities:
        return Redactor(Identity(), shorten_uuids=False)
    if _policy.redactor is None:
        _policy.redactor = Redactor(Identity.current(_policy.hostnames))
    return _policy.redactor


_ARMOR_BEGIN = re.compile(r"-----BEGIN (?P<kind>[A-Z0-9 ]{1,64})-----")


def _open_armor(line: str) -> str | None:
    """The kind of an armored block that starts on ``line`` and does not end there."""
    position = 0
    while True:
        begin = _ARMOR_BEGIN.search(line, position)
        if begin is None:
            return None
        end = line.find(f"-----END {begin['kind']}-----", begin.end())
        if end < 0:
            return begin["kind"]
        position = end


class GuardedStream(io.TextIOBase):
    """A text stream that passes what is written to it through :func:`clean`, a whole line at a time."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream
        self._pending = ""
        self._armor: str | None = None

    # What rich, click and the interpreter ask of a stream.
    @property
    def encoding(self) -> str:  # type: ignore[override]
        return str(getattr(self.stream, "encoding", None) or "utf-8")

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.stream, "errors", None)

    def isatty(self) -> bool:
        return bool(getattr(self.stream, "isatty", lambda: False)())

    def fileno(self) -> int:
        return int(self.stream.fileno())

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:  # type: ignore[override]
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self._pending += text
        cut = self._pending.rfind("\n")
        if cut >= 0:
            lines, self._pending = self._pending[: cut + 1], self._pending[cut + 1 :]
            self._emit(lines)
        return len(text)

    def flush(self) -> None:
        if self._pending:
            pending, self._pending = self._pending, ""
            self._emit(pending)
        self.stream.flush()

    def close(self) -> None:
        self.flush()

    def _emit(self, text: str) -> None:
        """Complete lines (``text`` ends with a line feed), or the last, unfinished one (flush)."""
        lines = text.split("\n")
        ends = [*["\n"] * (len(lines) - 1), ""]
        if text.endswith("\n"):
            lines, ends = lines[:-1], ends[:-1]
        for number, line in enumerate(lines):  # CRLF ends a line as LF does (inert keeps it)
            if line.endswith("\r") and ends[number]:
                lines[number], ends[number] = line[:-1], "\r\n"
        shown = ((self._line(line), end) for line, end in zip(lines, ends, strict=True))
        out = "".join(line + end for line, end in shown if line is not None)
        try:
            self.stream.write(out)
        except UnicodeEncodeError:
            self.stream.write(out.encode(self.encoding, "backslashreplace").decode(self.encoding))

    def _line(self, line: str) -> str | None:
        """One line as it is shown; None for a line inside an armored block."""
        if self._armor is not None:
            marker = f"-----END {self._armor}-----"
            end = line.find(marker)
            if end < 0:
                return None
            self._armor, line = None, line[end + len(marker) :]
        if _policy.redact:
            self._armor = _open_armor(line)
        return clean(line)


def utf8_on_windows() -> None:
    """Windows writes a pipe or a file in its ANSI code page (cp1252) unless Python runs in UTF-8 mode: there
    stdout and stderr going anywhere but a console are made UTF-8, as every other platform writes them (a
    console is written in UTF-16 by Python itself, whatever its code page)."""
    if sys.platform != "win32":
        return
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            if isinstance(stream, io.TextIOWrapper) and not stream.isatty():
                stream.reconfigure(encoding="utf-8")


@contextlib.contextmanager
def guarded(redact: bool = True) -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` guarded until the block ends; ``redact=False`` makes text inert
    only (``torchdoctor lint``, whose output names the user's own files)."""
    saved = sys.stdout, sys.stderr, _policy.identities, _policy.redact, list(_policy.hostnames)
    _policy.identities, _policy.redact = True, redact
    # A stream the process was started without (closed descriptor: None) stays without.
    out = GuardedStream(sys.stdout) if sys.stdout is not None else None
    err = GuardedStream(sys.stderr) if sys.stderr is not None else None
    sys.stdout, sys.stderr = out, err  # type: ignore[assignment]
    try:
        yield
    finally:
        for stream in (out, err):
            with contextlib.suppress(OSError, ValueError):
                if stream is not None:
                    stream.flush()
        sys.stdout, sys.stderr = saved[0], saved[1]
        _policy.identities, _policy.redact, _policy.hostnames = saved[2], saved[3], saved[4]
        _policy.redactor = None


def unguarded(stream: TextIO) -> TextIO:
    """The stream under a guarded one (for rich, given only text that is already clean)."""
    if isinstance(stream, GuardedStream):
        stream.flush()
        return stream.stream
    return stream
