"""The torch -> torchvision / torchaudio / triton pairing table (``data/torch_companions.json``), and lookups.

torchvision and torchaudio wheels carry C++ operators linked against one torch release, so each of their
releases pairs with one torch release line; from ``forward_compatible_from`` on (torchaudio 2.11, torchvision
0.29), a release is built on torch's stable ABI and also works with every later torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from torchdoctor.checks.install import tables
from torchdoctor.checks.install.versions import Version, marker_applies, parse_version, release_line

PAIRED = ("torchvision", "torchaudio")


TABLE = tables.load("torch_companions.json")
SOURCE: str = TABLE["source"]
_RELEASES: dict[str, dict[str, Any]] = TABLE["releases"]
TRITON_PYTHON: dict[str, list[str]] = TABLE.get("triton_python") or {}
_FORWARD: dict[str, str] = TABLE["forward_compatible_from"]


@dataclass(frozen=True)
class Row:
    torch: str
    """The table's torch release this row is for (``2.13.0``)."""
    exact: bool
    """False when the installed torch is another patch release of the same line."""
    torchvision: str | None
    torchaudio: str | None
    triton: tuple[dict[str, Any], ...] | None
    """torch's own triton pins on Linux x86_64 (``name``, ``specifier``, ``marker``); () when it pins none,
    None where the table has no answer."""
    source: str = ""

    def companion(self, name: str) -> str | None:
        value = {"torchvision": self.torchvision, "torchaudio": self.torchaudio}
        return value.get(name)

    def triton_pins(self, environment: dict[str, str]) -> list[dict[str, Any]] | None:
        """The triton pins whose marker holds in ``environment`` (PEP 508 variables); None when not known."""
        if self.triton is None:
            return None
        return [pin for pin in self.triton if marker_applies(pin.get("marker"), environment) is not False]


def row_for(torch_version: str | None) -> Row | None:
    """The table's row for this torch: its exact release, else the nearest patch release of its line."""
    parsed = parse_version(torch_version)
    if (
        parsed is None or parsed.is_prerelease
    ):  # a nightly pairs with the nightly of the same day, not the table
        return None
    public = Version(parsed.public)
    line = release_line(torch_version)
    keys = {Version(key): key for key in _RELEASES if release_line(key) == line}
    same_line = sorted(keys)
    if not same_line:
        return None
    exact = next((v for v in same_line if v == public), None)
    chosen = exact or max((v for v in same_line if v <= public), default=same_line[0])
    entry = _RELEASES[keys[chosen]]
    return Row(
        torch=keys[chosen],
        exact=exact is not None,
        torchvision=entry.get("torchvision"),
        torchaudio=entry.get("torchaudio"),
        triton=None if entry.get("triton") is None else tuple(entry["triton"]),
        source=str(entry.get("source") or SOURCE),
    )


@dataclass(frozen=True)
class Pairing:
    fits: bool | None
    """None: the table cannot say (a torch or companion release it does not list)."""
    expected: str | None
    """The companion release the table pairs with this torch."""
    made_for: str | None
    """Which torch the installed companion release is made for, in words (``torch 2.14``)."""


def by_release_line(companion: str, companion_version: str, torch_version: str) -> Pairing | None:
    """For a nightly torch, which the table has no row for: a companion *release* whose torch line is known
    and is not the nightly's fits it no better than another torch release. None when that cannot be told
    (a release torch, a nightly companion, or a companion release the table does not list)."""
    torch = parse_version(torch_version)
    own = parse_version(companion_version)
    if torch is None or own is None or not torch.is_prerelease or own.is_prerelease:
        return None
    if _stable_abi(companion, companion_version):
        return None
    made = pair(companion, companion_version, torch_version)
    lines = _torch_lines(companion, release_line(companion_version) or "")
    if not lines or made.made_for is None:
        return None
    return Pairing(release_line(torch_version) in lines, None, made.made_for)


def _stable_abi(companion: str, version: str | None) -> bool:
    """Built on torch's stable ABI: works with the torch it was made for and every later one."""
    parsed = parse_version(version)
    forward = _FORWARD.get(companion)
    return parsed is not None and forward is not None and Version(parsed.public) >= Version(forward)


def _torch_lines(companion: str, own_line: str) -> list[str]:
    return sorted(
        {
            release_line(t) or ""
            for t, entry in _RELEASES.items()
            if release_line(entry.get(companion)) == own_line
        },
        key=Version,
    )


def _numbered_as_torch(companion: str, own_line: str) -> str | None:
    """For a stable-ABI release newer than the table: the torch line it is first made for, where every such
    release line in the table is first made for the torch line of the same number (torchaudio 2.11 for torch
    2.11 and later); None where the numbers differ (torchvision 0.29 for torch 2.14)."""
    lines = {release_line(entry.get(companion)) for entry in _RELEASES.values()}
    stable = [line for line in lines if line and _stable_abi(companion, line)]
    same = all(_torch_lines(companion, line)[:1] == [line] for line in stable)
    return own_line if stable and same else None


def pair(companion: str, companion_version: str, torch_version: str) -> Pairing:
    row = row_for(torch_version)
    expected = row.companion(companion) if row else None
    own_line = release_line(companion_version)
    torch_line = release_line(torch_version)
    if own_line is None or torch_line is None:
        return Pairing(None, expected, None)
    lines = _torch_lines(companion, own_line)
    if _stable_abi(companion, companion_version):
        oldest = lines[0] if lines else _numbered_as_torch(companion, own_line)
        if oldest is None:
            return Pairing(None, expected, None)
        return Pairing(Version(torch_line) >= Version(oldest), expected, f"torch {oldest} and later")
    made_for = f"torch {' / '.join(lines)}" if lines else None
    if expected is None:
        return Pairing(None, None, made_for)
    return Pairing(release_line(expected) == own_line, expected, made_for)
