"""The growth check itself tells linear work from quadratic work (tests that rely on it could not fail
otherwise)."""

from __future__ import annotations

import re

from growth import growth, linear, repeated

BACKTRACKING = re.compile(r"\s*x")
"""Over a run of spaces, every start position scans to the end and gives up: quadratic in the run."""


def test_a_backtracking_pattern_is_told_from_a_linear_one() -> None:
    assert not linear(lambda text: list(BACKTRACKING.finditer(text)), repeated(" "), 1024)


def test_linear_work_passes() -> None:
    assert linear(lambda text: sum(map(ord, text)), repeated("a"), 2**17)


def test_work_too_quick_to_time_gives_no_ratio() -> None:
    assert growth(len, repeated("a"), 16) is None
