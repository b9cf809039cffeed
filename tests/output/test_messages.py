"""The one-line messages on stderr: one line, whatever the message holds, and never longer than the bound."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from torchdoctor.output import messages


@pytest.mark.parametrize(
    ("write", "prefix"),
    [
        (messages.error_line, "torchdoctor: error: "),
        (messages.warning_line, "torchdoctor: warning: "),
        (messages.note_line, "torchdoctor: "),
    ],
)
def test_a_long_message_keeps_its_start_and_its_end_and_says_what_it_left_out(
    write: Callable[[str], str], prefix: str
) -> None:
    message = "unknown check id '" + "x" * 100_000 + "' (see 'torchdoctor check --help')"
    line = write(message)
    assert line.startswith(prefix) and line.count("\n") == 1
    body = line[len(prefix) :]
    assert len(body) <= messages.MAX_CHARACTERS + 1
    assert body.startswith("unknown check id 'xxx")
    assert body.endswith("xxx' (see 'torchdoctor check --help')\n")
    left_out = len(message) - messages._HEAD - messages._TAIL
    assert f" [...{left_out} characters left out...] " in body


def test_a_message_up_to_the_bound_is_kept_whole_and_one_more_character_cuts_it() -> None:
    whole = "a" * messages.MAX_CHARACTERS
    assert messages.error_line(whole) == f"torchdoctor: error: {whole}\n"
    cut = messages.error_line(whole + "b")
    assert cut.endswith("ab\n") and "characters left out" in cut


def test_line_breaks_and_runs_of_spaces_fold_before_the_bound_is_measured() -> None:
    message = "first\n\n" + " " * 5_000 + "second\r\nthird"
    assert messages.error_line(message) == "torchdoctor: error: first second third\n"
