"""Versions and version specifiers as pip reads them (PEP 440), without third-party packages.

Enough of PEP 440 to answer "does this installed version satisfy that requirement": epochs, release
segments compared with zero padding (``13.0.3 == 13.0.3.0``), pre-, post- and dev-releases, local labels
(``2.13.0+cpu`` satisfies ``==2.13.0``), prefix matches (``==13.1.1.3.*``) and compatible releases
(``~=3.8.0``). Installed versions are judged as pip judges them after the fact: pre-releases count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import total_ordering
from typing import Any

# The canonical PEP 440 pattern (PEP 440, Appendix B), case-insensitive.
_VERSION_RE = re.compile(
    r"""
    ^\s*v?
    (?:(?P<epoch>[0-9]+)!)?
    (?P<release>[0-9]+(?:\.[0-9]+)*)
    (?P<pre>[-_.]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pre_n>[0-9]+)?)?
    (?P<post>(?:-(?P<post_n1>[0-9]+))|(?:[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>[0-9]+)?))?
    (?P<dev>[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>[0-9]+)?)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?
    \s*$
    """,
    re.VERBOSE | re.IGNORECASE,
)
_PRE_RANK = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}
_OPERATORS = ("===", "~=", "==", "!=", "<=", ">=", "<", ">")


class InvalidVersion(ValueError):
    pass


@total_ordering
@dataclass(frozen=True, eq=False)
class Version:
    epoch: int
    release: tuple[int, ...]
    pre: tuple[int, int] | None
    post: int | None
    dev: int | None
    local: tuple[str, ...]
    text: str

    @classmethod
    def parse(cls, text: str) -> Version:
        match = _VERSION_RE.match(text)
        if match is None:
            raise InvalidVersion(f"not a version: {text!r}")
        pre = None
        if match["pre_l"]:
            pre = (_PRE_RANK[match["pre_l"].lower()], int(match["pre_n"] or 0))
        post = None
        if match["post"]:
            post = int(match["post_n1"] or match["post_n2"] or 0)
        dev = int(match["dev_n"] or 0) if match["dev"] else None
        local = tuple(re.split(r"[-_.]", match["local"].lower())) if match["local"] else ()
        return cls(
            epoch=int(match["epoch"] or 0),
            release=tuple(int(part) for part in match["release"].split(".")),
            pre=pre,
            post=post,
            dev=dev,
            local=local,
            text=text.strip(),
        )

    @property
    def public(self) -> Version:
        """This version without its local label (``2.13.0+cpu`` -> ``2.13.0``)."""
        return Version(self.epoch, self.release, self.pre, self.post, self.dev, (), self.text.split("+")[0])

    @property
    def is_prerelease(self) -> bool:
        return self.pre is not None or self.dev is not None

    @property
    def is_postrelease(self) -> bool:
        return self.post is not None

    def _key(self) -> tuple[Any, ...]:
        release = list(self.release)
        while len(release) > 1 and release[-1] == 0:
            release.pop()
        # A dev release of a final version (1.0.dev1) sorts before its pre-releases (1.0a1).
        if self.pre is None and self.post is None and self.dev is not None:
            pre: tuple[int, ...] = (0,)
        elif self.pre is None:
            pre = (2,)
        else:
            pre = (1, *self.pre)
        post = (0,) if self.post is None else (1, self.post)
        dev = (1,) if self.dev is None else (0, self.dev)
        local = (
            (0,)
            if not self.local
            else (1, *((1, int(p), "") if p.isdigit() else (0, 0, p) for p in self.local))
        )
        return (self.epoch, tuple(release), pre, post, dev, local)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Version) and self._key() == other._key()

    def __lt__(self, other: Version) -> bool:
        return bool(self._key() < other._key())

    def __hash__(self) -> int:
        return hash(self._key())

    def __str__(self) -> str:
        return self.text


def parse_version(text: str | None) -> Version | None:
    """``Version.parse`` that answers None for missing or unparsable text."""
    if not text:
        return None
    try:
        return Version.parse(text)
    except InvalidVersion:
        return None


@dataclass(frozen=True)
class Clause:
    operator: str
    version: str

    def __str__(self) -> str:
        return f"{self.operator}{self.version}"

    def contains(self, candidate: Version) -> bool:
        if self.operator == "===":
            return candidate.text.lower() == self.version.lower()
        if self.operator in ("==", "!=") and self.version.endswith(".*"):
            matched = _prefix_match(candidate, Version.parse(self.version[:-2]))
            return matched if self.operator == "==" else not matched
        spec = Version.parse(self.version)
        if self.operator in ("==", "!="):
            # A local label in the candidate is ignored unless the specifier names one (PEP 440).
            equal = (candidate if spec.local else candidate.public) == spec
            return equal if self.operator == "==" else not equal
        public = candidate.public
        if self.operator == "~=":
            if len(spec.release) < 2:
                raise InvalidVersion(f"~= needs at least two release segments: {self}")
            prefix = Version(spec.epoch, spec.release[:-1], None, None, None, (), "")
            return public >= spec and _prefix_match(candidate, prefix)
        if self.operator == ">=":
            return public >= spec
        if self.operator == "<=":
            return public <= spec
        if self.operator == "<":
            # <V excludes pre-releases of V itself unless V is one (PEP 440, exclusive ordered comparison).
            if public >= spec:
                return False
            return spec.is_prerelease or not (public.is_prerelease and _same_base(public, spec))
        if self.operator == ">":
            # >V excludes post-releases of V unless V is one.
            if public <= spec:
                return False
            return spec.is_postrelease or not (public.is_postrelease and _same_base(public, spec))
        raise InvalidVersion(f"unknown operator in {self}")


def _same_base(a: Version, b: Version) -> bool:
    return Version(a.epoch, a.release, None, None, None, (), "") == Version(
        b.epoch, b.release, None, None, None, (), ""
    )


def _prefix_match(candidate: Version, prefix: Version) -> bool:
    if candidate.epoch != prefix.epoch:
        return False
    width = len(prefix.release)
    padded = (*candidate.release, *([0] * max(0, width - len(candidate.release))))
    return tuple(padded[:width]) == prefix.release


@dataclass(frozen=True)
class SpecifierSet:
    clauses: tuple[Clause, ...]

    @classmethod
    def parse(cls, text: str) -> SpecifierSet:
        """``">=13.0.88,<14"`` or ``"(==2.13.0)"``; an empty text allows every version."""
        clauses = []
        for part in text.strip().strip("()").split(","):
            part = part.strip()
            if not part:
                continue
            operator = next((op for op in _OPERATORS if part.startswith(op)), None)
            if operator is None:
                raise InvalidVersion(f"not a version specifier: {part!r}")
            version = part[len(operator) :].strip()
            if operator != "===":
                Version.parse(version[:-2] if version.endswith(".*") else version)
            clauses.append(Clause(operator, version))
        return cls(tuple(clauses))

    def contains(self, version: str | Version) -> bool:
        candidate = version if isinstance(version, Version) else Version.parse(version)
        return all(clause.contains(candidate) for clause in self.clauses)

    def __str__(self) -> str:
        return ",".join(str(c) for c in self.clauses)


def satisfies(version: str, specifier: str) -> bool | None:
    """Whether ``version`` is inside ``specifier``; None when either cannot be read."""
    try:
        return SpecifierSet.parse(specifier).contains(version)
    except InvalidVersion:
        return None


def release_line(version: str | None, width: int = 2) -> str | None:
    """``"2.13.0+cpu"`` -> ``"2.13"``; None for text that is not a version."""
    parsed = parse_version(version)
    if parsed is None:
        return None
    release = (*parsed.release, *([0] * width))[:width]
    return ".".join(str(part) for part in release)
