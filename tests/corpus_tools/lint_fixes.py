"""``torchdoctor lint --fix`` on one file of the lint corpus, checked as the corpus test and bench/lint.py
check it: the rewrites parse, leave no finding that has a rewrite, remove the findings they were for and add
none, and a second pass changes nothing."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from torchdoctor.lint import fixer
from torchdoctor.lint.engine import analyse_source
from torchdoctor.lint.project import Project
from torchdoctor.lint.rules import ALL_RULES
from torchdoctor.lint.summary import Location


@dataclass(frozen=True)
class RoundTrip:
    rewritten: bool
    fixed: int = 0
    problem: str | None = None


def round_trip(data: bytes, path: str) -> RoundTrip:
    analysis = analyse_source(data, path, ALL_RULES)
    project = Project([analysis.summary])
    before = project.finish(analysis.summary, analysis.findings)
    if not fixer.fixable(before):
        return RoundTrip(rewritten=False)
    done = fixer.fix_source(data, path, ALL_RULES, Location(), project, tuple(before))
    try:
        ast.parse(done.after)
    except SyntaxError as exc:
        return RoundTrip(True, done.fixed, f"the rewritten file does not parse: {exc}")
    if fixer.fixable(done.remaining):
        return RoundTrip(True, done.fixed, "a finding with a rewrite is left")
    # The rewritten findings are gone and none is new (a map_location="cpu" may also give TDL101 its CPU
    # fallback, so fewer may remain).
    if len(done.remaining) > len(before) - done.fixed or not {
        (f.rule, f.message) for f in done.remaining
    } <= {(f.rule, f.message) for f in before}:
        return RoundTrip(True, done.fixed, "a rewritten finding remains or a new one appears")
    again = fixer.fix_source(done.after, path, ALL_RULES, Location(), project, done.remaining)
    if (again.after, again.fixed) != (done.after, 0):
        return RoundTrip(True, done.fixed, "a second --fix changes the file again")
    return RoundTrip(True, done.fixed)
