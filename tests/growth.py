"""Growth-rate checks for the text processors that must run in linear time.

The work of one call at size n and at 4n is compared, each the least CPU time of a few runs (the least is
the run the machine disturbed least): linear work grows about 4 times, quadratic work 16 times. The limit
leaves room for noise and for n log n, never for a square. No absolute time is asserted anywhere.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

LINEAR_LIMIT = 8.0
"""The most a linear processor's work may grow from n to 4n (a quadratic one grows 16 times)."""


def least_cpu_time(function: Callable[[Any], object], argument: Any, runs: int = 5) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.process_time()
        function(argument)
        best = min(best, time.process_time() - started)
    return best


def growth(function: Callable[[Any], object], make: Callable[[int], Any], n: int) -> float:
    """How many times more CPU time ``function(make(4 * n))`` takes than ``function(make(n))``."""
    small, large = make(n), make(4 * n)
    return least_cpu_time(function, large) / max(least_cpu_time(function, small), 1e-6)


def repeated(unit: str, prefix: str = "", suffix: str = "") -> Callable[[int], str]:
    """A text of about n characters: ``unit`` repeated between ``prefix`` and ``suffix``."""
    return lambda n: prefix + unit * max(1, n // len(unit)) + suffix
