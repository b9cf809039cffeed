"""``[tool.torchdoctor.lint]`` in the nearest pyproject.toml above the linted paths, and which rules apply to
which file once the command line has had its say."""

from __future__ import annotations

import fnmatch
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from torchdoctor.lint.rules import DEFAULT_RULES, expand

if sys.version_info >= (3, 11):
    import tomllib
else:  # the same parser, published as tomli before it joined the standard library
    import tomli as tomllib

_KEYS = ("select", "extend-select", "ignore", "exclude", "per-file-ignores")


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
        pattern = pattern.rstrip("/")
        relative = _relative(path, self.root)
        return fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(os.path.basename(path), pattern)

    def excluded(self, path: str) -> bool:
        return any(self.matches(path, pattern) for pattern in self.exclude)


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
    try:
        text = pyproject.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{pyproject}: cannot read: {error}") from None
    if "torchdoctor" not in text:
        return None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{pyproject}: cannot parse: {error}") from None
    table = data.get("tool", {}).get("torchdoctor", {}).get("lint")
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ConfigError(f"{pyproject}: [tool.torchdoctor.lint] must be a table")
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
            f"{pyproject}: unknown key {unknown[0]!r} in [tool.torchdoctor.lint] (known: {', '.join(_KEYS)})"
        )
    select = options.get("select")
    per_file = options.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f"{pyproject}: per-file-ignores must be a table of pattern = [rule ids]")
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
    raise ConfigError(f"{pyproject}: {key} must be a list of strings")


@dataclass(frozen=True)
class Selection:
    """The rules that apply to each file: the selected ones, less the per-file ignores."""

    rules: frozenset[str]
    config: LintConfig
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = ()

    def rules_for(self, path: str) -> frozenset[str]:
        ignored: set[str] = set()
        for pattern, ids in self.per_file_ignores:
            if self.config.matches(path, pattern):
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
