"""Lint one file: parse once, build its context, run the selected checkers, drop what noqa comments allow."""

from __future__ import annotations

import ast
import warnings
from collections.abc import Iterable
from dataclasses import dataclass

from torchdoctor.lint.checkers import CHECKERS
from torchdoctor.lint.context import FileContext
from torchdoctor.lint.display import inert
from torchdoctor.lint.findings import Finding
from torchdoctor.lint.noqa import without_noqa
from torchdoctor.lint.project import Project
from torchdoctor.lint.summary import FileSummary, Location, summarise


class ParseFailure(Exception):
    """A file that is not Python this interpreter can parse; ``str()`` is the reason."""

    def __init__(self, reason: str, line: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line

    def describe(self, path: str) -> str:
        where = f" (line {self.line})" if self.line else ""
        return f"{path}: cannot parse: {inert(self.reason)}{where}"


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


class TooDeep(Exception):
    """A file whose analysis needs more nesting than the interpreter allows; ``str()`` is the reason."""

    def describe(self, path: str) -> str:
        return f"{path}: not analysed: nested too deeply for the analysis (findings in it are not reported)"


@dataclass(frozen=True)
class Analysis:
    """One file read on its own: its findings (some waiting for facts of other files) and its summary."""

    findings: tuple[Finding, ...]
    summary: FileSummary


def analyse_tree(
    tree: ast.Module,
    path: str,
    rules: Iterable[str],
    location: Location | None = None,
    source: str | bytes | None = None,
) -> Analysis:
    """The findings of ``rules`` in an already parsed file (whose text is ``source``, where the caller has
    it), sorted, before noqa comments are applied and before the facts they need from other files are
    checked. Raises TooDeep."""
    where = location or Location()
    try:
        context = FileContext(tree, where.package, path, source)
        findings = {hit.at(path) for rule in sorted(rules) for hit in CHECKERS[rule](context)}
        summary = summarise(context, path, where)
    except RecursionError:
        raise TooDeep from None
    return Analysis(tuple(sorted(findings)), summary)


def lint_tree(
    tree: ast.Module, path: str, rules: Iterable[str], location: Location | None = None
) -> list[Finding]:
    """The findings of ``rules`` in one parsed file taken as a project of its own, sorted, before noqa
    comments are applied. Raises TooDeep."""
    analysis = analyse_tree(tree, path, rules, location)
    return Project([analysis.summary]).finish(analysis.summary, analysis.findings)


def analyse_source(
    source: str | bytes, path: str, rules: Iterable[str], location: Location | None = None
) -> Analysis:
    """Parse and analyse one file's text, ``# noqa`` comments honoured; raises ParseFailure or TooDeep."""
    tree = parse(source, path)
    analysis = analyse_tree(tree, path, rules, location, source)
    if not analysis.findings:
        return analysis
    return Analysis(tuple(without_noqa(list(analysis.findings), source)), analysis.summary)


def lint_source(source: str | bytes, path: str, rules: Iterable[str]) -> list[Finding]:
    """Parse and lint one file's text as a project of its own; raises ParseFailure or TooDeep. ``# noqa``
    comments are honoured."""
    analysis = analyse_source(source, path, rules)
    return Project([analysis.summary]).finish(analysis.summary, analysis.findings)
