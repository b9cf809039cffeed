"""Growth-rate checks for the text processors that must run in linear time.

The work of one call at size n and at 4n is compared side by side, in CPU time: linear work grows about 4
times, quadratic work 16 times. The limit leaves room for noise and for n log n, never for a square. Inputs
are made before the clock starts; a ratio above 6 is measured again, the two sizes in turn, as the least of
five runs each (the runs the machine disturbed least). No absolute time is asserted anywhere.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

LINEAR_LIMIT = 8.0
"""The most a linear processor's work may grow from n to 4n (a quadratic one grows 16 times)."""
TOO_QUICK_S = 0.005
"""Below this much CPU time at 4n the ratio is noise: a quadratic blow-up at the sizes the tests use takes
seconds."""


RECHECK_ABOVE = 6.0
"""A first ratio above this is measured again: past the limit it may be noise, and just under it a quadratic
processor whose run at n the machine slowed down."""
RECHECK_RUNS = 5
"""How many times each size runs again, alternately, when a first ratio is above RECHECK_ABOVE."""


def cpu_time(function: Callable[[Any], object], argument: Any) -> float:
    started = time.process_time()
    function(argument)
    return time.process_time() - started


def least_cpu_times(
    function: Callable[[Any], object], small: Any, large: Any, runs: int
) -> tuple[float, float]:
    """The least CPU time of ``runs`` calls on each argument, the two taken in turn, so that a spell of load
    on the machine falls on both sizes alike rather than on all the runs of one."""
    small_s = large_s = float("inf")
    for _ in range(runs):
        small_s = min(small_s, cpu_time(function, small))
        large_s = min(large_s, cpu_time(function, large))
    return small_s, large_s


def growth(function: Callable[[Any], object], make: Callable[[int], Any], n: int) -> float | None:
    """How many times more CPU time ``function(make(4 * n))`` takes than ``function(make(n))``; None when
    the work at 4n is too quick to tell."""
    small, large = make(n), make(4 * n)
    small_s, large_s = least_cpu_times(function, small, large, 1)
    if large_s > TOO_QUICK_S and large_s > RECHECK_ABOVE * small_s:
        small_s, large_s = least_cpu_times(function, small, large, RECHECK_RUNS)
    if large_s <= TOO_QUICK_S:
        return None
    return large_s / max(small_s, 1e-6)


def linear(function: Callable[[Any], object], make: Callable[[int], Any], n: int) -> bool:
    """Whether ``function`` on ``make(n)`` and ``make(4 * n)`` grows within :data:`LINEAR_LIMIT`."""
    ratio = growth(function, make, n)
    return ratio is None or ratio < LINEAR_LIMIT


def repeated(unit: str, prefix: str = "", suffix: str = "") -> Callable[[int], str]:
    """A text of about n characters: ``unit`` repeated between ``prefix`` and ``suffix``."""
    return lambda n: prefix + unit * max(1, n // len(unit)) + suffix
