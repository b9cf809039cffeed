"""Where in the user's own code something happened: the innermost frame outside torch, the standard library
and torchdoctor, as file, line and function; and whether a call's result was thrown away.

Every answer is cached by file name or by code object and instruction, so the recorder pays a dictionary
look-up per frame it walks, not a path computation.
"""

from __future__ import annotations

import bisect
import dis
import os
import site
import sysconfig
from collections.abc import Iterable
from types import CodeType, FrameType
from typing import NamedTuple

MAX_FRAMES = 64
"""Frames walked outwards looking for user code before giving up (a deep recursion inside torch)."""
MAX_CACHED_CALLS = 20_000
"""Call instructions whose discarded-result answer is kept."""
_USER_PSEUDO_FILES = ("<stdin>", "<ipython-input")


class Site(NamedTuple):
    file: str
    line: int
    function: str


def _directory(path: str) -> str:
    return os.path.join(os.path.realpath(path), "")


def standard_library_dirs() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    return tuple(dict.fromkeys(_directory(paths[key]) for key in ("stdlib", "platstdlib") if paths.get(key)))


def site_packages_dirs() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    found = [paths[key] for key in ("purelib", "platlib") if paths.get(key)]
    packages = getattr(site, "getsitepackages", None)  # missing in an old virtualenv's site module
    if packages is not None:
        found += packages()
    user = getattr(site, "getusersitepackages", None)
    if user is not None:
        found.append(user())
    return tuple(dict.fromkeys(_directory(path) for path in found))


class Frames:
    """Tells user code from library code by file name."""

    def __init__(self, library_dirs: Iterable[str]) -> None:
        self._library = tuple(dict.fromkeys(_directory(path) for path in library_dirs))
        self._standard = standard_library_dirs()
        self._site_packages = site_packages_dirs()
        self._user: dict[str, bool] = {}
        self._in_library: dict[str, bool] = {}

    def is_user(self, filename: str) -> bool:
        known = self._user.get(filename)
        if known is None:
            known = self._user[filename] = self._classify(filename)
        return known

    def in_library(self, filename: str) -> bool:
        """Whether ``filename`` is one of the library folders' own files (torch's)."""
        known = self._in_library.get(filename)
        if known is None:
            known = self._in_library[filename] = os.path.realpath(filename).startswith(self._library)
        return known

    def _classify(self, filename: str) -> bool:
        if filename.startswith("<"):
            return filename.startswith(_USER_PSEUDO_FILES)
        path = os.path.realpath(filename)
        if path.startswith(self._library):
            return False
        return not (path.startswith(self._standard) and not path.startswith(self._site_packages))

    def user_frame(self, frame: FrameType | None) -> FrameType | None:
        """``frame`` or the first frame outwards from it that runs user code."""
        for _ in range(MAX_FRAMES):
            if frame is None:
                return None
            filename = frame.f_code.co_filename
            known = self._user.get(filename)
            if known is None:
                known = self.is_user(filename)
            if known:
                return frame
            frame = frame.f_back
        return None

    def site(self, frame: FrameType | None) -> Site | None:
        found = self.user_frame(frame)
        if found is None:
            return None
        return Site(found.f_code.co_filename, found.f_lineno or 0, found.f_code.co_name)


def site_of(frame: FrameType) -> Site:
    return Site(frame.f_code.co_filename, frame.f_lineno or 0, frame.f_code.co_name)


_INSTRUCTIONS: dict[CodeType, tuple[list[int], list[str]]] = {}
_DISCARDED: dict[tuple[CodeType, int], bool] = {}


def result_discarded(frame: FrameType) -> bool:
    """Whether the call ``frame`` is making right now is an expression statement: its result is popped and
    thrown away (``x.to(device)`` on a line of its own). During a call ``f_lasti`` points at the call
    instruction or, on Python 3.11, at its last inline cache; either way the next real instruction tells."""
    code, offset = frame.f_code, frame.f_lasti
    key = (code, offset)
    known = _DISCARDED.get(key)
    if known is None:
        instructions = _INSTRUCTIONS.get(code)
        if instructions is None:
            instructions = _instructions(code)
            if len(_INSTRUCTIONS) < MAX_CACHED_CALLS:
                _INSTRUCTIONS[code] = instructions
        offsets, names = instructions
        following = bisect.bisect_right(offsets, offset)
        known = following < len(names) and names[following] == "POP_TOP"
        if len(_DISCARDED) < MAX_CACHED_CALLS:
            _DISCARDED[key] = known
    return known


def _instructions(code: CodeType) -> tuple[list[int], list[str]]:
    """The offsets and names of ``code``'s instructions, inline caches left out."""
    found = [(i.offset, i.opname) for i in dis.get_instructions(code) if i.opname != "CACHE"]
    return [offset for offset, _ in found], [name for _, name in found]


def shown_path(filename: str, cwd: str | None = None) -> str:
    """A file name as a message shows it: relative to the working directory when it is inside it."""
    if filename.startswith("<"):
        return filename
    base = cwd if cwd is not None else _cwd()
    if base and filename.startswith(os.path.join(base, "")):
        return filename[len(base) + 1 :]
    return filename


def _cwd() -> str:
    try:
        return os.getcwd()
    except OSError:
        return ""
