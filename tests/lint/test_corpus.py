"""The default rules on every labelled file of tests/corpus/lint (real code, labelled by hand): the findings
must be exactly the labelled ones, by rule and line. One test per record; none when the folder is empty."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from torchdoctor.lint.engine import lint_tree, parse
from torchdoctor.lint.rules import DEFAULT_RULES

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "lint"
RECORDS = sorted(CORPUS.glob("*.json"))


def findings_of(record: dict[str, Any]) -> list[tuple[str, int]]:
    """What the default rules report, noqa comments aside (the labels are every real instance)."""
    tree = parse(record["code"], record["path"])
    return sorted((finding.rule, finding.line) for finding in lint_tree(tree, record["path"], DEFAULT_RULES))


if RECORDS:

    @pytest.mark.parametrize("path", RECORDS, ids=[path.stem for path in RECORDS])
    def test_record(path: Path) -> None:
        record = json.loads(path.read_text(encoding="utf-8"))
        labelled = sorted((item["rule"], item["line"]) for item in record["findings"])
        assert record["kind"] == ("positive" if labelled else "clean")
        assert {rule for rule, _ in labelled} <= DEFAULT_RULES
        found = findings_of(record)
        notes = {(item["rule"], item["line"]): item.get("note", "") for item in record["findings"]}
        missing = [
            f"{rule} line {line}: {notes[(rule, line)]}"
            for rule, line in labelled
            if (rule, line) not in found
        ]
        extra = [f"{rule} line {line}" for rule, line in found if (rule, line) not in labelled]
        assert found == labelled, f"{record['source']}: missing {missing}, not labelled {extra}"
