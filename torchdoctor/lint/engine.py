"""Lint one file: parse once, build its context, run the selected checkers, drop what noqa comments allow."""

from __future__ import annotations

import ast
import warnings
from collections.abc import Iterable

from torchdoctor.lint.checkers import CHECKERS
from torchdoctor.lint.context import FileContext
from torchdoctor.lint.findings import Finding
from torchdoctor.lint.noqa import without_noqa


class ParseFailure(Exception):
    """A file that is not Python this interpreter can parse; ``str()`` is the reason."""

    def __init__(self, reason: str, line: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line

    def describe(self, path: str) -> str:
        where = f" (line {self.line})" if self.line else ""
        return f"{path}: cannot parse: {self.reason}{where}"


def parse(source: str | bytes, path: str) -> ast.Module:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning about escape sequences is not ours to report
            return ast.parse(source, filename=path)
    except SyntaxError as error:
        raise ParseFailure(error.msg or "invalid syntax", error.lineno) from None
    except (ValueError, UnicodeDecodeError) as error:  # null bytes, undecodable text
        raise ParseFailure(str(error)) from None
    except (RecursionError, MemoryError):
        raise ParseFailure("too deeply nested") from None


def lint_tree(tree: ast.Module, path: str, rules: Iterable[str]) -> list[Finding]:
    """The findings of ``rules`` in an already parsed file, sorted, before noqa comments are applied."""
    context = FileContext(tree)
    findings = {hit.at(path) for rule in sorted(rules) for hit in CHECKERS[rule](context)}
    return sorted(findings)


def lint_source(source: str | bytes, path: str, rules: Iterable[str]) -> list[Finding]:
    """Parse and lint one file's text; raises ParseFailure. ``# noqa`` comments are honoured."""
    tree = parse(source, path)
    findings = lint_tree(tree, path, rules)
    if not findings:
        return findings
    text = source if isinstance(source, str) else source.decode("utf-8", errors="replace")
    return without_noqa(findings, text)
