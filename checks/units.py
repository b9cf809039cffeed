"""How sizes, shares and rates are written in verdicts: binary units for memory, decimal GB/s for links."""

from __future__ import annotations

_UNITS = (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10))


def size(n: int | float | None) -> str:
    """``13.0 GiB``, ``42.0 MiB``, ``512 B``; ``n/a`` when unknown."""
    if n is None:
        return "n/a"
    for unit, scale in _UNITS:
        if abs(n) >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{int(n)} B"


def pct(share: float | None) -> str:
    """A share (0.25) as ``25 %``; ``9.5 %`` below 10 % and ``99.7 %`` just below 100 %."""
    if share is None:
        return "n/a"
    value = share * 100
    # one decimal where rounding to a whole number would hide the difference from 0 or 100 %
    precise = abs(value) < 10 or 99 < value < 100
    return f"{value:.1f} %" if precise else f"{value:.0f} %"


def gbps(rate: float | None) -> str:
    """Decimal GB/s, as nvbandwidth and bandwidthTest print them."""
    return "n/a" if rate is None else f"{rate:.1f} GB/s"
