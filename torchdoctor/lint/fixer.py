"""``--fix`` and ``--diff``: apply the one safe rewrite of each finding that has one, re-parse and re-lint the
file after each round (until no finding with a rewrite is left: a second run changes nothing), and write it
back atomically, or show the change as a unified diff.

Nothing is written unless everything holds: the file is still the one that was linted (same bytes), a
regular file (not a link, not hard-linked elsewhere), writable, its text decodes and encodes back in its own
encoding, and the rewritten text parses. Otherwise the file is left as it is and one line says why.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import io
import os
import stat
import sys
import tempfile
import tokenize
from dataclasses import dataclass

from torchdoctor.inputs import bounded
from torchdoctor.lint.display import shown
from torchdoctor.lint.edits import Edit, apply
from torchdoctor.lint.engine import ParseFailure, TooDeep, analyse_source
from torchdoctor.lint.files import MAX_BYTES
from torchdoctor.lint.findings import Finding
from torchdoctor.lint.project import Project
from torchdoctor.lint.summary import Location

_MAX_ROUNDS = 8


class NotFixed(Exception):
    """Why a file was left as it was; ``str()`` is the one line to print."""


@dataclass(frozen=True)
class Fixed:
    path: str
    before: bytes
    after: bytes
    encoding: str
    fixed: int  # findings rewritten
    remaining: tuple[Finding, ...]  # what the rewritten file still has


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fixable(findings: tuple[Finding, ...] | list[Finding]) -> list[Finding]:
    return [finding for finding in findings if finding.edits]


def fix_source(
    data: bytes,
    path: str,
    rules: frozenset[str],
    location: Location,
    project: Project,
    findings: tuple[Finding, ...],
) -> Fixed:
    """The file rewritten until none of its findings has a rewrite left; raises NotFixed."""
    encoding = _encoding(data, path)
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        raise NotFixed(f"{shown(path)}: not valid {encoding} text, not fixed") from None
    current = list(findings)
    count = 0
    for _ in range(_MAX_ROUNDS):
        pending = fixable(current)
        if not pending:
            break
        edits: list[Edit] = [edit for finding in pending for edit in finding.edits]
        try:
            text, applied = apply(text, edits)
        except ValueError as error:
            raise NotFixed(f"{shown(path)}: a fix does not fit the file ({error}), not fixed") from None
        count += sum(1 for finding in pending if set(finding.edits) <= set(applied))
        try:
            analysis = analyse_source(text, path, rules, location)
        except (ParseFailure, TooDeep) as error:
            raise NotFixed(f"{shown(path)}: the fixed text does not parse ({error}), not fixed") from None
        current = project.finish(analysis.summary, analysis.findings)
    else:
        raise NotFixed(f"{shown(path)}: the fixes do not settle after {_MAX_ROUNDS} rounds, not fixed")
    try:
        after = text.encode(encoding)
    except UnicodeEncodeError:
        raise NotFixed(f"{shown(path)}: the fixed text does not encode as {encoding}, not fixed") from None
    return Fixed(path, data, after, encoding, count, tuple(current))


def _encoding(data: bytes, path: str) -> str:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        raise NotFixed(f"{shown(path)}: its encoding declaration is not valid, not fixed") from None
    return encoding


def unified_diff(fixed: Fixed) -> str:
    """The change as a unified diff (``--- a/path``, ``+++ b/path``), file names inert."""
    name = shown(fixed.path)
    before = fixed.before.decode(fixed.encoding, "replace").splitlines(keepends=True)
    after = fixed.after.decode(fixed.encoding, "replace").splitlines(keepends=True)
    lines = difflib.unified_diff(before, after, f"a/{name}", f"b/{name}")
    return "".join(
        line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n" for line in lines
    )


def write(fixed: Fixed) -> None:
    """Replace the file with its fixed bytes, atomically, keeping its mode; raises NotFixed."""
    path = fixed.path
    name = shown(path)
    try:
        info = os.lstat(path)
    except OSError as error:
        raise NotFixed(f"{name}: cannot read: {error.strerror or error}, not fixed") from None
    if stat.S_ISLNK(info.st_mode):
        raise NotFixed(f"{name}: a symbolic link, not fixed (fix the file it points to)")
    if not stat.S_ISREG(info.st_mode):
        raise NotFixed(f"{name}: not a regular file, not fixed")
    if info.st_nlink > 1:
        raise NotFixed(f"{name}: has other hard links, which a rewrite would separate, not fixed")
    if not info.st_mode & stat.S_IWUSR or not os.access(path, os.W_OK):
        raise NotFixed(f"{name}: read-only, not fixed")
    try:
        now = bounded.read_regular(path, MAX_BYTES)
    except bounded.Refused:
        now = None
    if now != fixed.before:
        raise NotFixed(f"{name}: changed since it was linted, not fixed")
    folder = os.path.dirname(os.path.abspath(path))
    try:
        handle, temporary = tempfile.mkstemp(prefix=".torchdoctor-fix-", suffix=".tmp", dir=folder)
    except OSError as error:
        raise NotFixed(f"{name}: cannot write beside it: {error.strerror or error}, not fixed") from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(fixed.after)
            stream.flush()
            os.fsync(stream.fileno())
            if sys.platform == "win32":  # no fchmod or fchown there (Python < 3.13): the read-only bit only
                os.chmod(temporary, stat.S_IMODE(info.st_mode))
            else:
                os.fchmod(stream.fileno(), stat.S_IMODE(info.st_mode))
                with contextlib.suppress(OSError):
                    os.fchown(stream.fileno(), info.st_uid, info.st_gid)
        latest = os.lstat(path)
        if (latest.st_ino, latest.st_size, latest.st_mtime_ns) != (
            info.st_ino,
            info.st_size,
            info.st_mtime_ns,
        ):
            raise NotFixed(f"{name}: changed since it was linted, not fixed")
        os.replace(temporary, path)
    except OSError as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise NotFixed(f"{name}: cannot write: {error.strerror or error}, not fixed") from None
    except NotFixed:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
