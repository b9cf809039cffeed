"""pip found no torch for the requirement it was given: which part of it was never published, read against the
tables of the wheels PyTorch published (torch_wheels.json: releases and their Pythons; torch_builds.json: the
CUDA builds of each release line per OS), and a requirement that exists instead.

Four causes, in this order: a release that never existed (``torch==2.6.1``), a CUDA build the release line
never had on this OS (``2.6.0+cu128``, an index ``cu131``), a nightly the nightly index has dropped, and a
published wheel pip still does not list, for this Python or at this index (pip's own ``from versions:`` list
says which releases it can install here)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from torchdoctor.checks.install import builds, cuda_compat
from torchdoctor.checks.install.install_plan import OS_WORDS
from torchdoctor.checks.install.versions import Version, release_line
from torchdoctor.explain.model import Analysis, last_match
from torchdoctor.model import Fix

_REQUESTED = re.compile(
    r"(?:satisfies the requirement|No matching distribution found for)\s+torch\s*===?\s*"
    r"(\d+\.\d+\.\d+(?:\.dev\d+)?)(?:\+([a-z0-9.]+))?",
    re.IGNORECASE,
)
_INDEX = re.compile(r"download\.pytorch\.org/whl/(?:(?:nightly|test)/)?(cu\d{3}|cpu)\b")
_ROOT_INDEX = re.compile(r"download\.pytorch\.org/whl/?(?=[\s`'\")]|$)")
_FROM_VERSIONS = re.compile(r"\(from versions: ([^)]{0,20000})\)")


def _releases_of(line: str) -> list[str]:
    return sorted((r for r in builds.WHEELS["releases"] if release_line(r) == line), key=Version)


def _nearest(cuda: str, published: Sequence[str]) -> str:
    """The published CUDA closest to the one asked for, the newer one on a tie."""
    asked = Version(cuda)
    return min(published, key=lambda c: (abs(_number(Version(c)) - _number(asked)), -_number(Version(c))))


def _number(version: Version) -> int:
    return version.release[0] * 100 + (version.release[1] if len(version.release) > 1 else 0)


def analyse_unpublished(text: str, os_key: str) -> Analysis:
    requested = last_match(_REQUESTED, text)
    if requested is None:
        return Analysis()
    version, label = requested[1], requested[2]
    index = last_match(_INDEX, text)
    label = label or (index[1] if index else None)
    line = release_line(version.split(".dev")[0])
    where = OS_WORDS.get(os_key, os_key)
    release = version.split(".dev")[0]
    evidence: list[str] = [f"requested: torch {version}" + (f" ({label})" if label else "")]
    listed = _listed(text)
    if line is None or line not in builds.known_lines():
        # a release older than the tables: pip's own list still says what this Python can install
        if listed == [] and ".dev" not in version:
            return _nothing_listed(evidence)
        if listed and release not in listed:
            return _listed_without(evidence, release, listed, label, os_key, None)
        return Analysis()
    if ".dev" in version:
        evidence.append(f"torch {version} is a nightly build: the nightly index keeps a few weeks of them")
    elif release not in builds.WHEELS["releases"]:
        published = _releases_of(line)
        evidence.append(
            f"torch {release} was never released: the releases of {line} are {', '.join(published)}"
        )
        if not published:
            return Analysis(evidence=tuple(evidence))
        release = published[-1]
    cuda = cuda_compat.cuda_of_label(label)
    found = builds.of(line, os_key) or []
    cudas = sorted({b.cuda for b in found}, key=Version)
    if cuda is not None and cudas and cuda not in cudas:
        nearest = _nearest(cuda, cudas)
        evidence.append(
            f"torch {line} has no CUDA {cuda} build for {where}: its CUDA builds are {', '.join(cudas)} "
            f"({builds.source_of(line, os_key) or builds.SOURCE})"
        )
        later = _first_line_with(cuda, os_key, after=line)
        text_fix = f"Install torch {release} built for CUDA {nearest}, which was published for {where}"
        commands = [cuda_compat.install_command(release, nearest)]
        if later is not None:
            first = release_line(later)
            text_fix += f", or torch {later} (torch {first} is the first line built for CUDA {cuda} there)"
            commands.append(cuda_compat.install_command(later, cuda))
        return Analysis(evidence=tuple(evidence), fix=Fix(text_fix + ".", tuple(commands)))
    if ".dev" in version or release != version:
        if cuda is None or cuda in cudas:
            return Analysis(
                evidence=tuple(evidence),
                fix=Fix(
                    f"Install the release torch {release} instead"
                    + (f", built for CUDA {cuda}" if cuda else "")
                    + ".",
                    (cuda_compat.install_command(release, cuda),),
                ),
            )
        return Analysis(evidence=tuple(evidence))
    if listed == []:
        return _nothing_listed(evidence)
    if listed and release not in listed:
        return _listed_without(evidence, release, listed, label, os_key, cuda)
    if cuda is not None and cuda in cudas and (index is None or _ROOT_INDEX.search(text)):
        built = next(build for build in found if build.cuda == cuda)
        evidence.append(
            f"torch {release}+{built.label} was published for {where}: pip finds it only at its own "
            f"index, https://download.pytorch.org/whl/{built.label}"
        )
        return Analysis(
            evidence=tuple(evidence),
            fix=Fix(
                f"Install it from its index with --index-url (not the /whl root nor --extra-index-url beside "
                f"PyPI's torch {release}).",
                (cuda_compat.install_command(release, cuda),),
            ),
        )
    return Analysis(evidence=tuple(evidence))


def _pythons_of(release: str, os_key: str) -> list[str]:
    """The Pythons (free-threaded builds left out) the tables give wheels of ``release`` for on this OS, or on
    any where the OS is not in them; empty where the release is not in the tables."""
    row = builds.WHEELS["releases"].get(release)
    if row is None:
        return []
    tags: dict[str, list[str]] = row.get("python") or {}
    found = tags[os_key] if os_key in tags else [p for ps in tags.values() for p in ps]
    return sorted({p for p in found if not p.endswith("t")}, key=Version)


def _this_python(listed: Sequence[str], asked: Sequence[str], os_key: str) -> list[str]:
    """The Pythons every release pip lists has wheels for (of those in the tables) and the release asked for
    has none for: pip lists only what fits the Python it runs on."""
    if not asked:
        return []
    common: set[str] | None = None
    for release in listed:
        pythons = _pythons_of(release, os_key)
        if pythons:
            common = set(pythons) if common is None else common & set(pythons)
    return sorted((common or set()) - set(asked), key=Version)


def _span(versions: Sequence[str]) -> str:
    return versions[0] if len(versions) == 1 else f"{versions[0]} to {versions[-1]}"


def _first_line_with(cuda: str, os_key: str, after: str) -> str | None:
    """The newest release of the first line after ``after`` with a CUDA ``cuda`` build on this OS."""
    for line in builds.known_lines():
        if Version(line) <= Version(after):
            continue
        if any(b.cuda == cuda for b in builds.of(line, os_key) or []):
            return builds.newest_release(line)
    return None


def _listed(text: str) -> list[str] | None:
    """The releases pip's ``from versions:`` list names (local labels dropped, nightlies and PyPI's 0.1.2
    placeholder left out); None where the text shows no such list."""
    found = last_match(_FROM_VERSIONS, text)
    if found is None:
        return None
    releases = set()
    for item in found[1].split(","):
        public = item.strip().partition("+")[0]
        if re.fullmatch(r"\d+\.\d+\.\d+", public) and Version(public) >= Version("0.2.0"):
            releases.add(public)
    return sorted(releases, key=Version)


_NOTHING_LISTED = Fix(
    "Use a 64-bit Python of a version the requested torch has wheels for (the release notes' compatibility "
    "table; a recent torch for a recent Python), in a new environment, or ask for a torch release that has "
    "wheels for this Python.",
    ('python -c "import sys, platform; print(sys.version, platform.architecture()[0])"',),
)


def _nothing_listed(evidence: list[str]) -> Analysis:
    """pip lists no torch at all ("from versions: none", or only PyPI's 0.1.2 placeholder)."""
    evidence.append(
        "pip lists no torch release at all here: no torch wheel fits this Python and platform, most often a "
        "Python newer than the torch releases asked for (or than any at this index), or a 32-bit Python "
        "(torch publishes 64-bit wheels only)"
    )
    return Analysis(evidence=tuple(evidence), fix=_NOTHING_LISTED)


def _listed_without(
    evidence: list[str], release: str, listed: list[str], label: str | None, os_key: str, cuda: str | None
) -> Analysis:
    """pip lists releases, but not the one asked for: what this Python is, where the tables tell."""
    newer = [r for r in listed if Version(r) > Version(release)]
    where = OS_WORDS.get(os_key, os_key)
    if release in builds.WHEELS["releases"]:
        evidence.append(
            f"torch {release} was published ({label or 'the default build'} for {where}), but pip lists only "
            f"{_span(listed)} here: no wheel of {release} fits this Python or platform"
        )
    else:
        evidence.append(
            f"pip lists only {_span(listed)} here, not {release}: no wheel of {release} fits this Python"
        )
    asked = _pythons_of(release, os_key)
    python = _this_python(listed, asked, os_key)
    if python:
        which = " or ".join(python)
        evidence.append(
            f"every release pip lists that the tables know has wheels for Python {which}, and torch "
            f"{release} has none ({_span(asked)}): this Python is {which}"
        )
    other_python = (
        f"Python {_span(asked)}, which torch {release} has wheels for"
        if asked
        else f"a Python that torch {release} has wheels for"
    )
    if newer:
        return Analysis(
            evidence=tuple(evidence),
            fix=Fix(
                f"Install torch {newer[0]}, the first release pip lists here (or use {other_python}).",
                (cuda_compat.install_command(newer[0], cuda),),
            ),
        )
    return Analysis(evidence=tuple(evidence), fix=Fix(f"Use {other_python}, or a release pip lists here."))
