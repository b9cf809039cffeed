"""Precision and recall of `torchdoctor lint` on the labelled corpus (tests/corpus/lint), per rule and split.

A finding is a true positive when its (rule, line) is labelled in the record. Labels marked ``harmless`` are
real instances that cannot bite in that file (a checkpoint the same script saved on the same machine, a data
file without CUDA tensors, a tensor moved by hand before every use); the table also gives recall on the
others. The newest frozen batch (tests/corpus/lint/batches.json: records labelled before lint ran on them) is
also scored apart, from its records alone, per split and over both.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import lint_wild

from torchdoctor.lint.command import run_lint
from torchdoctor.lint.engine import lint_tree, parse
from torchdoctor.lint.rules import DEFAULT_RULES

from corpus_tools.batches import Batch, batches, newest
from corpus_tools.lint_fixes import round_trip
from corpus_tools.lint_records import Record, code_of, git_dirs, records
from corpus_tools.splits import SPLITS

BOTH = "both"  # the column of a batch's table that adds its two splits up


@dataclass
class Tally:
    files: int = 0
    positive: int = 0
    unavailable: int = 0
    tp: Counter[str] = field(default_factory=Counter)
    fp: Counter[str] = field(default_factory=Counter)
    fn: Counter[str] = field(default_factory=Counter)
    biting: Counter[str] = field(default_factory=Counter)  # labels not marked harmless
    biting_found: Counter[str] = field(default_factory=Counter)
    misses: list[str] = field(default_factory=list)


def findings(code: str, path: str) -> Counter[tuple[str, int]]:
    tree = parse(code, path)
    # A label is one per rule and line (tests/corpus/README.md): two findings of a rule on one line (two
    # attributes of one assignment) are one instance there.
    return Counter({(finding.rule, finding.line) for finding in lint_tree(tree, path, DEFAULT_RULES)})


_PROJECTS: dict[tuple[str, str], dict[str, set[tuple[str, int]]] | None] = {}


def findings_in_repository(record: Record, sources: list[Path]) -> Counter[tuple[str, int]] | None:
    """The findings on the record's file when its whole repository (its Python files at the record's commit)
    is linted in one run, as ``torchdoctor lint .`` in a checkout does: the DataLoader of another file, the
    helper that sets the device, count. None where no git copy holds that commit."""
    key = (record.repo.lower(), record.data["commit"])
    if key not in _PROJECTS:
        _PROJECTS[key] = _lint_repository(record, sources)
    found = _PROJECTS[key]
    return None if found is None else Counter(found.get(record.data["path"], set()))


def _lint_repository(record: Record, sources: list[Path]) -> dict[str, set[tuple[str, int]]] | None:
    for git_dir in git_dirs(record.repo, sources):
        with tempfile.TemporaryDirectory(prefix="lint-corpus-") as scratch:
            tree = Path(scratch)
            try:
                lint_wild.export(git_dir, record.data["commit"], tree)
            except subprocess.CalledProcessError:
                continue  # this copy lacks the commit
            out = io.StringIO()
            run_lint(
                [str(tree)],
                select=sorted(DEFAULT_RULES),
                output_format="json",
                stdout=out,
                stderr=io.StringIO(),
            )
            by_path: dict[str, set[tuple[str, int]]] = {}
            for item in json.loads(out.getvalue() or "[]"):
                path = Path(item["path"]).resolve().relative_to(tree.resolve()).as_posix()
                by_path.setdefault(path, set()).add((item["rule"], item["line"]))
            return by_path
    return None


def score(corpus: Iterable[Record], sources: list[Path], with_repository: bool = False) -> dict[str, Tally]:
    tallies = {split: Tally() for split in SPLITS}
    for record in corpus:
        tally = tallies[record.split]
        code = code_of(record, sources)
        found = None
        if code is not None:
            found = (
                findings_in_repository(record, sources)
                if with_repository and "code" not in record.data
                else findings(code, record.data["path"])
            )
        if found is None:
            tally.unavailable += 1
            continue
        tally.files += 1
        tally.positive += record.data["kind"] == "positive"
        labelled = Counter(record.labels)
        for rule, line in found | labelled:
            hits = min(found[(rule, line)], labelled[(rule, line)])
            tally.tp[rule] += hits
            tally.fp[rule] += found[(rule, line)] - hits
            tally.fn[rule] += labelled[(rule, line)] - hits
            if found[(rule, line)] != labelled[(rule, line)]:
                kind = "not labelled" if found[(rule, line)] > hits else "missed"
                tally.misses.append(f"  {kind}: {record.file.stem} line {line} {rule}")
        for item in record.data["findings"]:
            if not item.get("harmless"):
                tally.biting[item["rule"]] += 1
                tally.biting_found[item["rule"]] += (item["rule"], item["line"]) in found
    return tallies


def merged(tallies: Iterable[Tally]) -> Tally:
    """One tally adding up several (a batch's two splits)."""
    total = Tally()
    for t in tallies:
        total.files += t.files
        total.positive += t.positive
        total.unavailable += t.unavailable
        for mine, theirs in (
            (total.tp, t.tp),
            (total.fp, t.fp),
            (total.fn, t.fn),
            (total.biting, t.biting),
            (total.biting_found, t.biting_found),
        ):
            mine.update(theirs)
        total.misses.extend(t.misses)
    return total


def ratio(part: int, whole: int) -> str:
    return f"{part / whole:.2f}" if whole else "-"


def table(tallies: dict[str, Tally], columns: tuple[str, ...] = SPLITS) -> list[str]:
    """One row per rule: labelled, found, precision, recall and recall on biting labels, for each column (a
    split, or both splits added up)."""
    head = f"{'rule':<8}" + "".join(
        f" | {split + ': labelled':>14} {'found':>5} {'prec':>5} {'recall':>6} {'bites':>5}"
        for split in columns
    )
    lines = [head, "-" * len(head)]
    for rule in [*sorted(DEFAULT_RULES), "overall"]:
        row = f"{rule:<8}"
        for split in columns:
            t = tallies[split]
            pick = (lambda c: sum(c.values())) if rule == "overall" else (lambda c, r=rule: c[r])
            tp, fp, fn = pick(t.tp), pick(t.fp), pick(t.fn)
            row += (
                f" | {tp + fn:>14} {tp + fp:>5} {ratio(tp, tp + fp):>5} {ratio(tp, tp + fn):>6}"
                f" {ratio(pick(t.biting_found), pick(t.biting)):>5}"
            )
        lines.append(row)
    return lines


def report(sources: list[Path], show_misses: bool, with_repository: bool = False) -> dict[str, Tally]:
    tallies = score(records(), sources, with_repository)
    if with_repository:
        print("each file linted with its whole repository (the records that hold their code: alone)")
    for split in SPLITS:
        print(_split_line(split, tallies[split], {r.repo.lower() for r in records() if r.split == split}))
    print("\n".join(table(tallies)))
    print("prec, recall: all labels; bites: recall on the labels not marked harmless")
    print("targets on test: precision >= 0.95, recall >= 0.85")
    if show_misses:
        # Only the dev split's disagreements are listed: the test split is measured, never tuned on.
        print("dev disagreements:")
        print("\n".join(tallies["dev"].misses) or "  none")
    return tallies


def _split_line(split: str, t: Tally, repos: set[str]) -> str:
    """How many files of a split were linted, and from how many repositories."""
    line = (
        f"{split}: {t.files} files linted ({t.positive} positive, {t.files - t.positive} clean), "
        f"{len(repos)} repositories"
    )
    if t.unavailable:
        line += f"; {t.unavailable} records skipped: no git copy of their repository under --sources"
    return line


def chosen_batch(name: str | None) -> Batch | None:
    """The frozen batch named ``name``, or the newest one; None where no batch is frozen."""
    if name is None:
        return newest()
    for batch in batches():
        if batch.name == name:
            return batch
    known = ", ".join(batch.name for batch in batches()) or "none"
    raise SystemExit(f"no frozen batch {name!r} in tests/corpus/lint/batches.json (known: {known})")


def batch_report(
    sources: list[Path], show_misses: bool, batch: Batch | None, with_repository: bool = False
) -> dict[str, Tally] | None:
    """The frozen batch scored from its own records: per rule, for each split and for both together."""
    if batch is None:
        print("no frozen batch in tests/corpus/lint/batches.json")
        return None
    frozen = set(batch.records)
    corpus = [r for r in records() if f"{r.split}/{r.file.name}" in frozen]
    tallies = score(corpus, sources, with_repository)
    tallies[BOTH] = merged(tallies[split] for split in SPLITS)
    print(
        f"frozen batch {batch.name} ({batch.date}): {len(corpus)} records, "
        f"{len({r.repo.lower() for r in corpus})} repositories, labelled before lint ran on them"
    )
    for split in (*SPLITS, BOTH):
        print(
            _split_line(split, tallies[split], {r.repo.lower() for r in corpus if split in (BOTH, r.split)})
        )
    print("\n".join(table(tallies, (*SPLITS, BOTH))))
    print("prec, recall: all labels; bites: recall on the labels not marked harmless")
    if show_misses:
        # The batch's test records are measured, never tuned on: only its dev disagreements are listed.
        print(f"dev disagreements of batch {batch.name}:")
        print("\n".join(tallies["dev"].misses) or "  none")
    return tallies


def fix_report(sources: list[Path]) -> None:
    """``--fix`` on every record whose code is at hand: rewritten files, rewrites, and any that fails."""
    files = rewritten = fixes = 0
    problems: list[str] = []
    for record in records():
        code = code_of(record, sources)
        if code is None:
            continue
        files += 1
        result = round_trip(code.encode("utf-8"), record.data["path"])
        rewritten += result.rewritten
        fixes += result.fixed
        if result.problem:
            problems.append(f"  {record.file.stem}: {result.problem}")
    print(
        f"--fix on {files} corpus files: {fixes} rewrites in {rewritten} files; "
        f"{rewritten - len(problems)} of {rewritten} parse, lose their findings and settle on a second pass"
    )
    if problems:
        print("\n".join(problems))
