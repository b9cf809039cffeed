"""``Requires-Dist`` lines of installed metadata, read as pip reads them (PEP 508), with their markers.

``parse`` splits a line into name, extras, specifier and marker; ``marker_applies`` evaluates the marker
against an environment (``marker_environment()`` describes this interpreter). A marker this module cannot
read answers None, so a caller can leave that requirement out rather than guess.
"""

from __future__ import annotations

import os
import platform
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass

from torchdoctor.checks.install.pep440 import InvalidVersion, SpecifierSet, Version

_NAME_RE = re.compile(r"\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*")
_TOKEN_RE = re.compile(
    r"""\s*(?:
        (?P<paren>[()])
      | (?P<op>===|==|!=|<=|>=|~=|<|>|not\s+in\b|in\b)
      | (?P<bool>and\b|or\b)
      | (?P<string>'[^']*'|"[^"]*")
      | (?P<variable>[A-Za-z_][A-Za-z0-9_.]*)
    )""",
    re.VERBOSE,
)


def normalize(name: str) -> str:
    """The comparable form of a distribution name (PEP 503): ``Flash_Attn`` -> ``flash-attn``."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class Requirement:
    name: str
    """Normalized (``nvidia-cudnn-cu12``)."""
    extras: tuple[str, ...]
    specifier: str
    """``"==9.1.0.70"``, ``">=13.0.88,<14"``; empty when any version will do (or a URL is named)."""
    marker: str | None
    line: str


def parse(line: str) -> Requirement | None:
    """One ``Requires-Dist`` value; None for a line that is not a requirement."""
    requirement, marker = _split_marker(line)
    match = _NAME_RE.match(requirement)
    if match is None:
        return None
    rest = requirement[match.end() :]
    extras: tuple[str, ...] = ()
    if rest.startswith("["):
        close = rest.find("]")
        if close < 0:
            return None
        extras = tuple(normalize(e.strip()) for e in rest[1:close].split(",") if e.strip())
        rest = rest[close + 1 :]
    rest = rest.strip()
    specifier = "" if rest.startswith("@") else rest.strip("()").replace(" ", "")
    return Requirement(normalize(match.group(1)), extras, specifier, marker, line.strip())


def _split_marker(line: str) -> tuple[str, str | None]:
    quote = None
    for index, char in enumerate(line):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == ";":
            return line[:index].strip(), line[index + 1 :].strip() or None
    return line.strip(), None


def marker_environment() -> dict[str, str]:
    """This interpreter's values of the PEP 508 marker variables."""
    info = sys.implementation.version
    implementation_version = f"{info.major}.{info.minor}.{info.micro}"
    if info.releaselevel != "final":
        implementation_version += f"{info.releaselevel[0]}{info.serial}"
    return {
        "implementation_name": sys.implementation.name,
        "implementation_version": implementation_version,
        "os_name": os.name,
        "platform_machine": platform.machine(),
        "platform_python_implementation": platform.python_implementation(),
        "platform_release": platform.release(),
        "platform_system": platform.system(),
        "platform_version": platform.version(),
        "python_full_version": platform.python_version(),
        "python_version": ".".join(platform.python_version_tuple()[:2]),
        "sys_platform": sys.platform,
    }


class _MarkerError(ValueError):
    pass


def marker_applies(marker: str | None, environment: Mapping[str, str], extra: str = "") -> bool | None:
    """Whether ``marker`` holds in ``environment`` (with ``extra`` requested); None if it cannot be read."""
    if not marker:
        return True
    try:
        tokens = _tokenize(marker)
        parser = _MarkerParser(tokens, {**environment, "extra": normalize(extra) if extra else ""})
        result = parser.parse_or()
        if parser.position != len(tokens):
            raise _MarkerError(f"unexpected {tokens[parser.position][1]!r}")
        return result
    except (_MarkerError, InvalidVersion):
        return None


def _tokenize(text: str) -> list[tuple[str, str]]:
    tokens = []
    position = 0
    while position < len(text):
        if text[position:].strip() == "":
            break
        match = _TOKEN_RE.match(text, position)
        if match is None or match.end() == position:
            raise _MarkerError(f"cannot read marker at {text[position:]!r}")
        kind = match.lastgroup or ""
        tokens.append((kind, match.group(kind)))
        position = match.end()
    return tokens


class _MarkerParser:
    def __init__(self, tokens: list[tuple[str, str]], environment: Mapping[str, str]) -> None:
        self.tokens = tokens
        self.environment = environment
        self.position = 0

    def _peek(self) -> tuple[str, str] | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def _take(self, kind: str) -> str:
        token = self._peek()
        if token is None or token[0] != kind:
            raise _MarkerError(f"expected {kind}")
        self.position += 1
        return token[1]

    def parse_or(self) -> bool:
        result = self.parse_and()
        while self._peek() == ("bool", "or"):
            self.position += 1
            right = self.parse_and()
            result = result or right
        return result

    def parse_and(self) -> bool:
        result = self.parse_atom()
        while self._peek() == ("bool", "and"):
            self.position += 1
            right = self.parse_atom()
            result = result and right
        return result

    def parse_atom(self) -> bool:
        if self._peek() == ("paren", "("):
            self.position += 1
            result = self.parse_or()
            if self._take("paren") != ")":
                raise _MarkerError("expected )")
            return result
        left, left_variable = self._value()
        operator = " ".join(self._take("op").split())
        right, right_variable = self._value()
        variable = left_variable or right_variable
        return _compare(left, operator, right, variable)

    def _value(self) -> tuple[str, str | None]:
        token = self._peek()
        if token is None:
            raise _MarkerError("marker ends early")
        kind, text = token
        self.position += 1
        if kind == "string":
            return text[1:-1], None
        if kind == "variable":
            if text not in self.environment:
                raise _MarkerError(f"unknown marker variable {text}")
            value = self.environment[text]
            return value, text
        raise _MarkerError(f"unexpected {text!r}")


def _compare(left: str, operator: str, right: str, variable: str | None) -> bool:
    if variable == "extra":
        left, right = normalize(left), normalize(right)
    if operator == "in":
        return left in right
    if operator == "not in":
        return left not in right
    # As pip does: compare as versions where both sides read as one, else as strings (PEP 508).
    try:
        Version.parse(left)
        return SpecifierSet.parse(f"{operator}{right}").contains(left)
    except InvalidVersion:
        pass
    if operator == "==":
        return left == right
    if operator == "!=":
        return left != right
    if operator == "===":
        return left == right
    raise _MarkerError(f"cannot compare {left!r} {operator} {right!r}")
