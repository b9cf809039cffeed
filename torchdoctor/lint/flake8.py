"""A flake8 plugin: ``flake8`` reports the TDL rules next to its own (entry point ``flake8.extension``,
prefix ``TDL``). flake8 applies its own ``# noqa`` handling and --select/--ignore."""

from __future__ import annotations

import argparse
import ast
from collections.abc import Iterator
from importlib import metadata
from typing import Any

from torchdoctor.lint.engine import lint_tree
from torchdoctor.lint.rules import ALL_RULES, DEFAULT_RULES


def _version() -> str:
    try:
        return metadata.version("torchdoctor")
    except metadata.PackageNotFoundError:
        return "0"


class TorchdoctorLint:
    name = "torchdoctor-lint"
    version = _version()
    # flake8 enables every TDL code by default; the advice rules (TDL1xx) stay off unless asked for.
    advice = False

    def __init__(self, tree: ast.AST, filename: str) -> None:
        self.tree = tree
        self.filename = filename

    @classmethod
    def add_options(cls, parser: Any) -> None:
        parser.add_option(
            "--torchdoctor-advice",
            action="store_true",
            parse_from_config=True,
            help="also report torchdoctor's advice rules (TDL1xx)",
        )

    @classmethod
    def parse_options(cls, options: argparse.Namespace) -> None:
        cls.advice = bool(getattr(options, "torchdoctor_advice", False))

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        if not isinstance(self.tree, ast.Module):
            return
        rules = ALL_RULES if self.advice else DEFAULT_RULES
        for finding in lint_tree(self.tree, self.filename, rules):
            yield finding.line, finding.col - 1, f"{finding.rule} {finding.message}", type(self)
