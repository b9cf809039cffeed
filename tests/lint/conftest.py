"""Shared fixture of the lint tests: lint a snippet, get (rule, line) pairs."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable

import pytest

from torchdoctor.lint import lint_source
from torchdoctor.lint.rules import ALL_RULES

Lint = Callable[..., list[tuple[str, int]]]


@pytest.fixture
def lint() -> Lint:
    """``lint(code, rules)`` -> sorted (rule, line) of the findings; ``code`` is dedented."""

    def run(code: str, rules: Iterable[str] = ALL_RULES) -> list[tuple[str, int]]:
        source = textwrap.dedent(code).lstrip("\n")
        return [
            (finding.rule, finding.line) for finding in lint_source(source, "snippet.py", frozenset(rules))
        ]

    return run
