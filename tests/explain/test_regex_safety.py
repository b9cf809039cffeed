"""No catalogue pattern backtracks catastrophically: each runs over a line of 'a's, of spaces, and of repeated
message fragments in time that grows linearly with the line (32 KiB against 128 KiB), and so does a whole
explain() over such texts.

A linear pattern takes about 4 times as long over 4 times the text; a quadratic one 16 times. The ratio sits
far from both, so a busy machine does not fail the test and a backtracking pattern always does. How fast
explain is belongs to bench/explain.py."""

from __future__ import annotations

import re
from functools import cache

import pytest

from torchdoctor.checking import registry
from torchdoctor.explain import catalogue, catalogue_file, explain

from corpus_tools import splits
from growth import LINEAR_LIMIT, growth, linear

ENTRIES = catalogue.installed()
MIB = 2**20
PATTERN_N = 32 * 2**10
EXPLAIN_N = 16 * 2**10


def _repeat(piece: str) -> str:
    return (piece * (MIB // max(len(piece), 1) + 1))[:MIB]


@cache
def inputs() -> dict[str, str]:
    """1 MiB lines: 'a's, spaces, every corpus text on one line, and the catalogue's own literal pieces (so
    that every pattern starts matching over and over and has to give up)."""
    corpus = " ".join(record["text"].replace("\n", " ") for _, _, record in splits.error_records())
    pieces = " ".join(
        piece
        for entry in ENTRIES
        for required in (*entry.required, *entry.required_symptoms)
        for piece in required
    )
    return {
        "a": "a" * MIB,
        "spaces": " " * MIB,
        "corpus fragments": _repeat(corpus),
        "required pieces": _repeat(pieces + " "),
        "pieces without spaces": _repeat(pieces.replace(" ", "")),
    }


@cache
def _case_patterns() -> list[tuple[str, int, re.Pattern[str]]]:
    """The patterns of the ``[[entry.case]]`` tables of torchdoctor's own catalogue files: an analyser runs
    them over the text too."""
    found = []
    for point in registry.find_entries(registry.EXPLANATIONS):
        package = point.value.partition(":")[0].rpartition(".")[0]
        if not package.startswith("torchdoctor.checks."):
            continue
        for entry in catalogue.load(point):
            try:
                cases = catalogue_file.cases(package, entry.id)
            except catalogue_file.CatalogueFileError:  # an entry without cases
                continue
            found += [(f"{entry.id} case", n, case.compiled) for n, case in enumerate(cases)]
    return found


@cache
def _patterns() -> list[tuple[str, int, re.Pattern[str]]]:
    """Every entry's patterns and symptoms, compiled here, not at collection (each test process collects)."""
    return [
        (entry.id, n, pattern)
        for entry in ENTRIES
        for n, pattern in enumerate((*entry.compiled, *entry.compiled_symptoms))
    ]


@pytest.mark.parametrize(
    "kind", ["a", "spaces", "corpus fragments", "required pieces", "pieces without spaces"]
)
def test_every_pattern_runs_in_linear_time(kind: str) -> None:
    case_patterns = _case_patterns()
    assert len(case_patterns) >= 38, "the case patterns of every shipped catalogue file are run too"
    text = inputs()[kind]
    slow = []
    for entry_id, n, pattern in _patterns() + case_patterns:
        ratio = growth(lambda part, p=pattern: list(p.finditer(part)), lambda size: text[:size], PATTERN_N)  # type: ignore[misc]
        if ratio is not None and ratio >= LINEAR_LIMIT:
            slow.append(f"{entry_id} pattern {n} ({pattern.pattern!r}): {ratio:.1f}x the time at 4n")
    assert not slow, slow


@pytest.mark.parametrize("kind", ["a", "spaces", "corpus fragments", "required pieces"])
def test_explain_runs_in_linear_time(kind: str) -> None:
    # The whole catalogue with its analyses.
    assert linear(lambda text: explain(text, ENTRIES), lambda size: inputs()[kind][:size], EXPLAIN_N)
