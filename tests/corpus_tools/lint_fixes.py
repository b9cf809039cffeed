"""``torchdoctor lint --fix`` on one file of the lint corpus, checked as the corpus test and bench/lint.py
check it: the rewrites parse, leave no finding that has a rewrite, remove the findings they were for and add
none, and a second pass changes nothing; and each rewrite alone, as bench/lint_fix_review.py judges it."""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass

from torchdoctor.lint import fixer
from torchdoctor.lint.edits import apply
from torchdoctor.lint.engine import analyse_source
from torchdoctor.lint.project import Project
from torchdoctor.lint.rules import ALL_RULES, DEFAULT_RULES
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


@dataclass(frozen=True)
class Rewrite:
    record: str
    rule: str
    line: int
    before: str
    after: str
    occurrence: int = 1  # the same change again in the same file (two equal loads): its own judgement

    @property
    def key(self) -> str:
        digest = hashlib.sha256(f"{self.before}\0{self.after}".encode()).hexdigest()[:16]
        suffix = f":{self.occurrence}" if self.occurrence > 1 else ""
        return f"{self.record}:{self.rule}:{digest}{suffix}"


def rewrites(code: str, path: str, record: str) -> list[Rewrite]:
    """Each rewrite of the file's findings, applied alone: the lines it changes, before and after."""
    analysis = analyse_source(code.encode("utf-8"), path, DEFAULT_RULES)
    findings = Project([analysis.summary]).finish(analysis.summary, analysis.findings)
    found = []
    lines = code.splitlines(keepends=True)
    for finding in fixer.fixable(findings):
        text, _ = apply(code, list(finding.edits))
        changed = text.splitlines(keepends=True)
        first = 0
        while first < min(len(lines), len(changed)) and lines[first] == changed[first]:
            first += 1
        tail = 0
        while (
            tail < min(len(lines), len(changed)) - first
            and lines[len(lines) - 1 - tail] == changed[len(changed) - 1 - tail]
        ):
            tail += 1
        before = "".join(lines[first : len(lines) - tail])
        after = "".join(changed[first : len(changed) - tail])
        seen = sum(
            1 for other in found if (other.rule, other.before, other.after) == (finding.rule, before, after)
        )
        found.append(Rewrite(record, finding.rule, finding.line, before, after, seen + 1))
    return found
