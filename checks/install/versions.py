"""Versions, specifiers, requirements and markers, read as pip reads them (``packaging``, PEP 440 and 508).

Thin answers for the judges and probes of this area: None where a text cannot be read, so a caller can leave
that comparison out rather than guess. An installed version is tested against a specifier with pre-releases
allowed, as pip tests what is installed.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

from torchdoctor.machine.distributions import canonical_name

# packaging.markers, packaging.requirements and packaging.specifiers are imported where they are used: with
# packaging.tags, which the first two import, they would double what a worker that only describes the checks
# spends importing them.

__all__ = [
    "Pin",
    "Version",
    "marker_applies",
    "marker_environment",
    "parse_requirement",
    "parse_version",
    "release_line",
    "satisfies",
]


def parse_version(text: str | None) -> Version | None:
    if not text:
        return None
    if isinstance(text, str):
        return _parsed_version(text)
    try:
        return Version(text)
    except InvalidVersion:
        return None


# Read thousands of times per judgement (every published build, every pin); bounded, the text being foreign.
@functools.lru_cache(maxsize=4096)
def _parsed_version(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None


def satisfies(version: str, specifier: str) -> bool | None:
    """Whether the installed ``version`` is inside ``specifier``; None when either cannot be read."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    parsed = parse_version(version)
    try:
        specifiers = SpecifierSet(specifier.strip().strip("()").replace(" ", ""))
    except InvalidSpecifier:
        return None
    if parsed is None:
        return None
    return specifiers.contains(parsed, prereleases=True)


def outside(version: str, specifier: str) -> bool:
    """Whether ``version`` is read, ``specifier`` is read, and the one is outside the other: an unreadable
    version or specifier is never a conflict."""
    return satisfies(version, specifier) is False


@functools.lru_cache(maxsize=4096)
def release_line(version: str | None, width: int = 2) -> str | None:
    """``"2.13.0+cpu"`` -> ``"2.13"``; None for text that is not a version."""
    parsed = parse_version(version)
    if parsed is None:
        return None
    release = (*parsed.release, *([0] * width))[:width]
    return ".".join(str(part) for part in release)


@dataclass(frozen=True)
class Pin:
    """One ``Requires-Dist`` line: the normalized name, extras, specifier, marker and the line itself."""

    name: str
    extras: tuple[str, ...]
    specifier: str
    """``"==9.1.0.70"``, ``"<14,>=13.0.88"``; empty when any version will do (or a URL is named)."""
    marker: str | None
    line: str


def parse_requirement(line: str) -> Pin | None:
    """One ``Requires-Dist`` value; None for a line that is not a requirement."""
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        requirement = Requirement(line)
    except InvalidRequirement:
        return None
    return Pin(
        canonical_name(requirement.name),
        tuple(sorted(canonical_name(extra) for extra in requirement.extras)),
        str(requirement.specifier),
        None if requirement.marker is None else str(requirement.marker),
        line.strip(),
    )


def marker_environment() -> dict[str, str]:
    """This interpreter's values of the PEP 508 marker variables."""
    from packaging.markers import default_environment

    return {key: str(value) for key, value in default_environment().items()}


def marker_applies(marker: str | None, environment: Mapping[str, str], extra: str = "") -> bool | None:
    """Whether ``marker`` holds in ``environment`` (with ``extra`` requested); None if it cannot be read."""
    if not marker:
        return True
    from packaging.markers import InvalidMarker, Marker, UndefinedComparison, UndefinedEnvironmentName

    try:
        return Marker(marker).evaluate({**environment, "extra": canonical_name(extra) if extra else ""})
    except (InvalidMarker, UndefinedComparison, UndefinedEnvironmentName):
        return None
