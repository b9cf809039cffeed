"""``[tool.torchdoctor.lint]`` in the nearest pyproject.toml above the linted paths, and which rules apply to
which file once the command line has had its say."""

from __future__ import annotations

import fnmatch
import functools
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from torchdoctor.inputs import bounded
from torchdoctor.lint.display import shown
from torchdoctor.lint.rules import DEFAULT_RULES, expand

if sys.version_info >= (3, 11):
    import tomllib
else:  # the same parser, published as tomli before it joined the standard library
    import tomli as tomllib

_KEYS = ("select", "extend-select", "ignore", "exclude", "per-file-ignores")
# A pyproject.toml is a few KiB; one larger than this is not read (it would be read whole to be parsed).
MAX_PYPROJECT_BYTES = 1024 * 1024


class ConfigError(ValueError):
    """A pyproject.toml that cannot be read or says something wrong; ``str()`` is the one line to print."""


@dataclass(frozen=True)
class LintConfig:
    source: Path | None = None  # the pyproject.toml read, None when there is none
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def root(self) -> Path:
        return self.source.parent if self.source is not None else Path.cwd()

    def matches(self, path: str, pattern: str) -> bool:
        """flake8-style: the pattern against the path relative to the pyproject's folder, or its name."""
        return Patterns((pattern,)).match(path, self.root)

    @functools.cached_property
    def _excluded(self) -> Patterns:
        return Patterns(self.exclude)

    def excluded(self, path: str) -> bool:
        return bool(self.exclude) and self._excluded.match(path, self.root)


class Patterns:
    """A set of fnmatch patterns matched at once: names without wildcards by a set lookup, the others
    through one compiled expression, so that a path costs the same whatever the number of patterns
    (fnmatch alone recompiles them once its cache of 32768 is full)."""

    def __init__(self, patterns: Sequence[str]) -> None:
        cleaned = [os.path.normcase(pattern.rstrip("/")) for pattern in patterns]
        self.literal = frozenset(p for p in cleaned if not _WILDCARD.search(p))
        globs = sorted({p for p in cleaned if _WILDCARD.search(p)})
        self.glob = re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in globs)) if globs else None

    def match(self, path: str, root: Path) -> bool:
        return self.match_names(names(path, root))

    def match_names(self, candidates: tuple[str, str]) -> bool:
        for text in candidates:
            if text in self.literal or (self.glob is not None and self.glob.match(text)):
                return True
        return False


def names(path: str, root: Path) -> tuple[str, str]:
    """What a pattern is matched against: the path relative to ``root``, and the file's name."""
    return os.path.normcase(_relative(path, root)), os.path.normcase(os.path.basename(path))


_WILDCARD = re.compile(r"[*?\[]")


def find_pyproject(paths: Sequence[str]) -> Path | None:
    """The nearest pyproject.toml with a [tool.torchdoctor.lint] table, from the folder that holds every
    linted path upwards (the current folder for stdin)."""
    existing = [os.path.abspath(p) for p in paths if p != "-" and os.path.exists(p)]
    if existing:
        start = os.path.commonpath(existing)
        if not os.path.isdir(start):
            start = os.path.dirname(start)
    else:
        start = os.getcwd()
    for folder in (Path(start), *Path(start).parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file() and _table(candidate) is not None:
            return candidate
    return None


def _table(pyproject: Path) -> dict[str, Any] | None:
    name = shown(str(pyproject))
    try:
        data = bounded.read_regular(pyproject, MAX_PYPROJECT_BYTES)
    except bounded.Refused as refused:
        if refused.kind == "large":
            raise ConfigError(
                f"{name}: larger than {MAX_PYPROJECT_BYTES // 1024} KiB, not read (is it a pyproject.toml?)"
            ) from None
        raise ConfigError(f"{name}: cannot read: {refused.detail or refused.kind}") from None
    if b"torchdoctor" not in data:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ConfigError(f"{name}: cannot read: not UTF-8 text (byte {error.start})") from None
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{name}: cannot parse: {str(error).splitlines()[0]}") from None
    except RecursionError:
        raise ConfigError(f"{name}: cannot parse: nested too deeply") from None
    table: Any = document
    for depth, key in enumerate(("tool", "torchdoctor", "lint")):
        if not isinstance(table, dict):
            where = ".".join(("tool", "torchdoctor", "lint")[:depth])
            raise ConfigError(f"{name}: [{where}] must be a table")
        table = table.get(key)
        if table is None:
            return None
    if not isinstance(table, dict):
        raise ConfigError(f"{name}: [tool.torchdoctor.lint] must be a table")
    return table


def load_config(paths: Sequence[str]) -> LintConfig:
    pyproject = find_pyproject(paths)
    if pyproject is None:
        return LintConfig()
    table = _table(pyproject) or {}
    options = {key.replace("_", "-"): value for key, value in table.items()}
    unknown = sorted(set(options) - set(_KEYS))
    if unknown:
        raise ConfigError(
            f"{shown(str(pyproject))}: unknown key {unknown[0]!r} in [tool.torchdoctor.lint] "
            f"(known: {', '.join(_KEYS)})"
        )
    select = options.get("select")
    per_file = options.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(
            f"{shown(str(pyproject))}: per-file-ignores must be a table of pattern = [rule ids]"
        )
    config = LintConfig(
        source=pyproject,
        select=None if select is None else _strings(select, "select", pyproject),
        extend_select=_strings(options.get("extend-select", []), "extend-select", pyproject),
        ignore=_strings(options.get("ignore", []), "ignore", pyproject),
        exclude=_strings(options.get("exclude", []), "exclude", pyproject),
        per_file_ignores={
            str(pattern): _strings(ids, f"per-file-ignores {pattern!r}", pyproject)
            for pattern, ids in per_file.items()
        },
    )
    return config


def _strings(value: object, key: str, pyproject: Path) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise ConfigError(f"{shown(str(pyproject))}: {key} must be a list of strings")


@dataclass(frozen=True)
class Selection:
    """The rules that apply to each file: the selected ones, less the per-file ignores."""

    rules: frozenset[str]
    config: LintConfig
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = ()

    @functools.cached_property
    def _ignore_groups(self) -> list[tuple[Patterns, frozenset[str]]]:
        """The patterns grouped by the rules they ignore: one match per group, not one per pattern."""
        groups: dict[frozenset[str], list[str]] = {}
        for pattern, ids in self.per_file_ignores:
            groups.setdefault(ids, []).append(pattern)
        return [(Patterns(patterns), ids) for ids, patterns in groups.items()]

    def rules_for(self, path: str) -> frozenset[str]:
        if not self.per_file_ignores:
            return self.rules
        candidates = names(path, self.config.root)
        ignored: set[str] = set()
        for patterns, ids in self._ignore_groups:
            if patterns.match_names(candidates):
                ignored |= ids
        return self.rules - ignored if ignored else self.rules


def select_rules(config: LintConfig, select: Sequence[str] | None, ignore: Sequence[str] | None) -> Selection:
    """A --select on the command line replaces the configured selection (select, extend-select and ignore);
    an --ignore adds to whatever ignore applies. Raises UnknownRuleError."""
    where = f"{config.source}" if config.source else ""
    if select is not None:
        rules = expand(select, "--select")
        ignored: frozenset[str] = frozenset()
    else:
        rules = DEFAULT_RULES if config.select is None else expand(config.select, f"select of {where}")
        rules |= expand(config.extend_select, f"extend-select of {where}")
        ignored = expand(config.ignore, f"ignore of {where}")
    if ignore is not None:
        ignored |= expand(ignore, "--ignore")
    per_file = tuple(
        (pattern, expand(ids, f"per-file-ignores of {where}"))
        for pattern, ids in config.per_file_ignores.items()
    )
    return Selection(rules - ignored, config, per_file)


def _relative(path: str, root: Path) -> str:
    try:
        return PurePath(os.path.relpath(os.path.abspath(path), root)).as_posix()
    except ValueError:  # another drive
        return PurePath(path).as_posix()
