"""A finding: one rule violated at one place of one file."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace

from torchdoctor.lint.edits import Edit
from torchdoctor.lint.rules import RULES_BY_ID, Level, Rule

# A fact about the whole project that a finding needs, checked once every file has been read: ("module", ref)
# a class is an nn.Module, ("worker", ref, ...) one of these functions runs in DataLoader workers, ... (see
# torchdoctor.lint.project). A ref is ":name" for a name of the finding's own file, or a qualified name.
Fact = tuple[str, ...]


class _Details(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return f"<{key}>"


def fill(template: str, details: tuple[tuple[str, str], ...] = ()) -> str:
    """A rule's message or fix with the finding's words; a missing word reads ``<word>``."""
    return template.format_map(_Details(details))


@dataclass(frozen=True, order=True)
class Finding:
    path: str
    line: int
    col: int  # 1-based, like the editors and flake8's output
    rule: str
    end_line: int = field(compare=False)
    end_col: int = field(compare=False)
    details: tuple[tuple[str, str], ...] = ()
    """The words of the message: two findings of one rule at one place about two things (``self.a, self.b =
    ...``) are two findings."""
    requires: tuple[Fact, ...] = field(default=(), compare=False)  # all must hold, or no finding
    edits: tuple[Edit, ...] = field(default=(), compare=False)  # the safe rewrite, when there is one

    @property
    def spec(self) -> Rule:
        return RULES_BY_ID[self.rule]

    @property
    def level(self) -> Level:
        return self.spec.level

    @property
    def message(self) -> str:
        return fill(self.spec.message, self.details)

    @property
    def fix(self) -> str:
        return fill(self.spec.fix, self.details)

    @property
    def explain(self) -> str | None:
        return self.spec.explain


@dataclass(frozen=True)
class Hit:
    """What a checker reports: a rule, the node it is about and the words of its message."""

    rule: str
    node: ast.AST
    details: tuple[tuple[str, str], ...] = ()
    requires: tuple[Fact, ...] = ()
    edits: tuple[Edit, ...] = ()

    def at(self, path: str) -> Finding:
        line = getattr(self.node, "lineno", 1)
        col = getattr(self.node, "col_offset", 0) + 1
        return Finding(
            path=path,
            line=line,
            col=col,
            rule=self.rule,
            end_line=getattr(self.node, "end_lineno", None) or line,
            end_col=(getattr(self.node, "end_col_offset", None) or col - 1) + 1,
            details=self.details,
            requires=self.requires,
            edits=self.edits,
        )


def hit(
    rule: str, node: ast.AST, requires: tuple[Fact, ...] = (), edits: tuple[Edit, ...] = (), **details: str
) -> Hit:
    return Hit(rule, node, tuple(sorted(details.items())), requires, edits)


def with_details(finding: Finding, **details: str) -> Finding:
    """The finding with words added or replaced, and no condition left (it has been checked)."""
    merged = dict(finding.details) | details
    return replace(finding, details=tuple(sorted(merged.items())), requires=())
