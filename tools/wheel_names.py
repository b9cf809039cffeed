"""What a wheel's file name says: its release, the Pythons it is for and the platform, in the words the tables
use (``linux-x86_64``, ``linux-aarch64``, ``windows-x86_64``, ``windows-arm64``, ``macos-arm64``,
``macos-x86_64``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.utils import InvalidWheelFilename, parse_wheel_filename
from packaging.version import Version


class MalformedWheelName(ValueError):
    """A file the index lists as a wheel whose name is not one."""


_MACOS = re.compile(r"macosx_(\d+)_(\d+)_(\w+)")
_CPYTHON = re.compile(r"cp(\d)(\d+)(t?)")


@dataclass(frozen=True)
class Wheel:
    filename: str
    version: Version
    pythons: tuple[str, ...]
    """``3.12``, ``3.13t`` (free-threaded)."""
    platform: str | None
    """None for a platform the tables do not follow (``linux-ppc64le``, ``any``)."""
    macos_min: str | None


def _platform(tag: str) -> tuple[str | None, str | None]:
    macos = _MACOS.fullmatch(tag)
    if macos:
        machine = "arm64" if macos[3] == "arm64" else "x86_64" if macos[3] in ("x86_64", "intel") else None
        return (f"macos-{machine}" if machine else None), f"{macos[1]}.{macos[2]}"
    if tag.endswith("_x86_64") and "linux" in tag:
        return "linux-x86_64", None
    if tag.endswith("_aarch64") and "linux" in tag:
        return "linux-aarch64", None
    return {"win_amd64": "windows-x86_64", "win_arm64": "windows-arm64"}.get(tag), None


def parse(filename: str) -> Wheel:
    """The wheel a file name describes; MalformedWheelName for a name that is not a wheel's."""
    try:
        _, version, _, tags = parse_wheel_filename(filename)
    except InvalidWheelFilename as error:
        raise MalformedWheelName(f"malformed wheel name {filename!r}: {error}") from None
    pythons: set[str] = set()
    platforms: set[tuple[str | None, str | None]] = set()
    for tag in tags:
        cpython = _CPYTHON.fullmatch(tag.interpreter)
        if cpython:
            free = "t" if cpython[3] or tag.abi.endswith("t") else ""
            pythons.add(f"{cpython[1]}.{cpython[2]}{free}")
        platforms.add(_platform(tag.platform))
    known = sorted((p for p in platforms if p[0] is not None), key=lambda p: (p[0] or "", p[1] or ""))
    platform, macos_min = known[0] if known else (None, None)
    return Wheel(filename, version, tuple(sorted(pythons, key=python_key)), platform, macos_min)


def python_key(python: str) -> tuple[int, int, str]:
    major, _, rest = python.partition(".")
    minor = rest.rstrip("t")
    return int(major), int(minor or 0), rest[len(minor) :]
