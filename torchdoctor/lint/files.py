"""Which files a list of paths means (folders recursed for *.py), and reading one file safely."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from torchdoctor.inputs import bounded
from torchdoctor.lint.config import LintConfig
from torchdoctor.lint.display import shown

MAX_BYTES = 10 * 1024 * 1024
STDIN = "-"
STDIN_NAME = "stdin"


class ReadFailure(Exception):
    """A path that is not linted; ``str()`` is the one line to print."""


@dataclass(frozen=True)
class Expansion:
    files: list[str]  # in a stable order; "-" for stdin
    errors: list[str]  # one line each


def expand_paths(paths: Sequence[str], config: LintConfig) -> Expansion:
    files: list[str] = []
    errors: list[str] = []
    for path in paths:
        if path == STDIN:
            if STDIN not in files:
                files.append(STDIN)
        elif not os.path.lexists(path):
            errors.append(f"{shown(path)}: no such file or directory")
        elif os.path.isdir(path):
            files.extend(_python_files(path, config, errors))
        elif not config.excluded(path):
            files.append(path)
    return Expansion(_once_each(files), errors)


def _once_each(files: list[str]) -> list[str]:
    """Each file once, under the first name it was given by: ``lint . train.py`` and ``./train.py`` and a
    link to it name one file, linted (and fixed) once."""
    seen: set[object] = set()
    kept = []
    for path in files:
        key: object = path
        if path != STDIN:
            try:
                info = os.stat(path)
                key = (info.st_dev, info.st_ino)
            except OSError:
                key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            kept.append(path)
    return kept


def _skipped_folder(folder: str, name: str, config: LintConfig) -> bool:
    if name.startswith(".") or name == "__pycache__":
        return True
    full = os.path.join(folder, name)
    if os.path.exists(os.path.join(full, "pyvenv.cfg")) or os.path.isdir(os.path.join(full, "conda-meta")):
        return True  # a virtual environment or a conda environment
    return config.excluded(full)


def _python_files(root: str, config: LintConfig, errors: list[str]) -> list[str]:
    found = []

    def unreadable(error: OSError) -> None:
        errors.append(f"{shown(str(error.filename))}: cannot read: {error.strerror or error}")

    for folder, subfolders, names in os.walk(root, onerror=unreadable):
        subfolders[:] = sorted(name for name in subfolders if not _skipped_folder(folder, name, config))
        for name in sorted(names):
            if name.endswith(".py") and not name.startswith("."):
                path = os.path.join(folder, name)
                if not config.excluded(path) and os.path.isfile(path):  # a FIFO named x.py is not linted
                    found.append(path)
    return found


def read_file(path: str) -> bytes:
    """The bytes of a regular file of at most MAX_BYTES; raises ReadFailure."""
    try:
        return bounded.read_regular(path, MAX_BYTES)
    except bounded.Refused as refused:
        if refused.kind in ("folder", "special"):
            reason = "not a regular file, not linted"
        elif refused.kind == "large":
            reason = f"larger than {MAX_BYTES // (1024 * 1024)} MiB, not linted"
        else:
            reason = f"cannot read: {refused.detail}"
        raise ReadFailure(f"{shown(path)}: {reason}") from None


def read_stdin_bytes(stream: object) -> bytes:
    """At most MAX_BYTES from a binary stream; raises ReadFailure beyond."""
    read = getattr(stream, "read", None)
    if read is None:
        raise ReadFailure(f"{STDIN_NAME}: cannot read standard input")
    try:
        data = read(MAX_BYTES + 1)
    except OSError as error:
        raise ReadFailure(f"{STDIN_NAME}: cannot read: {error.strerror or error}") from None
    if isinstance(data, str):
        data = data.encode("utf-8", errors="surrogateescape")
    if len(data) > MAX_BYTES:
        raise ReadFailure(
            f"{STDIN_NAME}: more than {MAX_BYTES // (1024 * 1024)} MiB on standard input, not linted"
        )
    return bytes(data)
