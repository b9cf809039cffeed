"""No catalogue pattern backtracks catastrophically: each runs over a 1 MiB line of 'a's, of spaces, and of
repeated message fragments in under 250 ms, and a whole explain() over such texts stays fast.

A linear pattern takes at most about 25 ms over 1 MiB here; a quadratic one takes minutes. The bound sits far
from both, so a busy machine does not fail the test and a backtracking pattern always does."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import cache

import pytest

from torchdoctor.explain import catalogue, explain

from corpus import splits

ENTRIES = catalogue.installed()
MIB = 2**20
LIMIT_S = 0.250


def _repeat(piece: str) -> str:
    return (piece * (MIB // max(len(piece), 1) + 1))[:MIB]


@cache
def inputs() -> dict[str, str]:
    """1 MiB lines: 'a's, spaces, every corpus text on one line, and the catalogue's own literal pieces (so
    that every pattern starts matching over and over and has to give up)."""
    corpus = " ".join(record["text"].replace("\n", " ") for _, _, record in splits.error_records())
    pieces = " ".join(piece for entry in ENTRIES for required in entry.required for piece in required)
    return {
        "a": "a" * MIB,
        "spaces": " " * MIB,
        "corpus fragments": _repeat(corpus),
        "required pieces": _repeat(pieces + " "),
        "pieces without spaces": _repeat(pieces.replace(" ", "")),
    }


def _best_of(runs: int, work: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


PATTERNS = [(entry.id, n, pattern) for entry in ENTRIES for n, pattern in enumerate(entry.compiled)]


@pytest.mark.parametrize(
    "kind", ["a", "spaces", "corpus fragments", "required pieces", "pieces without spaces"]
)
def test_every_pattern_runs_over_a_mebibyte_in_under_250_ms(kind: str) -> None:
    text = inputs()[kind]
    slow = []
    for entry_id, n, pattern in PATTERNS:
        elapsed = _best_of(1, lambda p=pattern: list(p.finditer(text)))  # type: ignore[misc]
        if elapsed >= LIMIT_S:
            elapsed = _best_of(3, lambda p=pattern: list(p.finditer(text)))  # type: ignore[misc]
        if elapsed >= LIMIT_S:
            slow.append(f"{entry_id} pattern {n} ({pattern.pattern!r}): {elapsed * 1000:.0f} ms")
    assert not slow, slow


@pytest.mark.parametrize("kind", ["a", "spaces", "corpus fragments", "required pieces"])
def test_explain_over_a_mebibyte_stays_fast(kind: str) -> None:
    # The whole catalogue with its analyses; generous against slow machines, far below a backtracking blow-up.
    assert _best_of(2, lambda: explain(inputs()[kind], ENTRIES)) < 5.0
