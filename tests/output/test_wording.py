"""Lists and long lines as verdicts say them."""

from __future__ import annotations

import pytest

from torchdoctor.output.wording import and_list, clipped, ranks_text


def test_lists_read_as_a_sentence() -> None:
    assert and_list(["a"]) == "a"
    assert and_list(["0", "2", "3"]) == "0, 2 and 3"
    assert ranks_text([4, 1]) == "ranks 1 and 4"
    assert ranks_text([3]) == "rank 3"


@pytest.mark.parametrize(
    ("text", "limit", "shown"),
    [
        ("short", 10, "short"),
        ("exactly 10", 10, "exactly 10"),
        ("one character over", 17, "one character ..."),
        ("x" * 300, 200, "x" * 197 + "..."),
    ],
)
def test_a_long_line_is_clipped_to_its_limit(text: str, limit: int, shown: str) -> None:
    assert clipped(text, limit) == shown
    assert len(clipped(text, limit)) <= limit
