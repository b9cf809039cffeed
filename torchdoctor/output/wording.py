"""Words as verdicts say them: lists ("GPUs 0, 2 and 3", "ranks 1 and 4") and long lines clipped."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def and_list(words: Sequence[str]) -> str:
    """``["a", "b", "c"]`` -> ``"a, b and c"``."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def ranks_text(numbers: Iterable[int]) -> str:
    """``[4, 1]`` -> ``"ranks 1 and 4"``; one number -> ``"rank 1"``."""
    ordered = sorted(numbers)
    if len(ordered) == 1:
        return f"rank {ordered[0]}"
    return "ranks " + and_list([str(n) for n in ordered])


def clipped(text: str, limit: int) -> str:
    """``text`` itself where it fits in ``limit`` characters, else its start and "..." in that many."""
    return text if len(text) <= limit else text[: limit - 3] + "..."
