"""The default rules on the labelled real code of tests/corpus/lint (any folder layout: ``*.json`` at the
top, or split into ``dev/`` and a frozen ``test/``). Records that hold their code are linted; records named by
a git blob need a copy of their repository and are left to bench/.

Every record lints without an error. The records outside ``test/`` (the ones rules may be tuned on) must meet
the targets together: precision >= 0.95 and recall >= 0.85 by (rule, line); the frozen ``test/`` split is
measured by the bench, never asserted here, so that no test pushes a rule towards it.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from torchdoctor.lint.engine import lint_tree, parse
from torchdoctor.lint.rules import DEFAULT_RULES

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "lint"


def records() -> list[tuple[Path, dict[str, Any]]]:
    found = []
    for path in sorted(CORPUS.glob("**/*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(record, dict) and "code" in record:
            found.append((path, record))
    return found


def findings_of(record: dict[str, Any]) -> list[tuple[str, int]]:
    """What the default rules report, noqa comments aside (the labels are every real instance)."""
    tree = parse(record["code"], record["path"])
    return sorted((finding.rule, finding.line) for finding in lint_tree(tree, record["path"], DEFAULT_RULES))


def test_the_tuning_records_meet_the_targets_and_every_record_lints() -> None:
    true_pos = false_pos = false_neg = 0
    misses = []
    for path, record in records():
        found = Counter(findings_of(record))
        assert {rule for rule, _ in found} <= DEFAULT_RULES
        if "test" in path.relative_to(CORPUS).parts[:-1]:
            continue
        labelled = Counter((item["rule"], item["line"]) for item in record["findings"])
        assert record["kind"] == ("positive" if labelled else "clean"), path.name
        for key in found | labelled:
            hits = min(found[key], labelled[key])
            true_pos += hits
            false_pos += found[key] - hits
            false_neg += labelled[key] - hits
            if found[key] != labelled[key]:
                misses.append(
                    f"{path.stem}: {key[0]} line {key[1]} {'found' if found[key] > hits else 'missed'}"
                )
    if true_pos + false_pos + false_neg == 0:
        return
    precision = true_pos / (true_pos + false_pos) if true_pos + false_pos else 1.0
    recall = true_pos / (true_pos + false_neg) if true_pos + false_neg else 1.0
    assert precision >= 0.95 and recall >= 0.85, (precision, recall, misses)
