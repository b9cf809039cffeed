"""The matcher's rules one boundary at a time: how long a quoted line may be and where a long one is cut,
which line above is joined in front, where a message is anchored on its line, which lines are blanked as
code, and what an entry's own analysis and check add. Texts are built for the boundary they state."""

from __future__ import annotations

import dataclasses

import pytest

from torchdoctor.explain import Entry, explain, matcher
from torchdoctor.explain.matcher import MAX_LINE, prepare, quote
from torchdoctor.explain.model import Analysis
from torchdoctor.model import Fix


def _entry(*patterns: str, **more: object) -> Entry:
    return Entry(
        id="test.entry", title="a test entry", patterns=patterns, cause="cause", fix=Fix("fix"), **more
    )


# --- the length of a quoted line ---------------------------------------------------------------------


def test_a_quoted_line_is_at_most_160_characters() -> None:
    assert MAX_LINE == 160
    whole = "RuntimeError: " + "x" * (MAX_LINE - 14)
    assert len(whole) == MAX_LINE
    assert quote(whole, 0) == whole
    longer = whole + "y"
    assert quote(longer, 0) == longer[: MAX_LINE - 3] + "..."


def test_a_short_line_is_quoted_whole_wherever_the_match_is_on_it() -> None:
    line = "z" * 120 + " RuntimeError: CUDA error: boom"
    assert len(line) < MAX_LINE
    assert quote(line, line.index("CUDA")) == line


# --- where a long line is cut ----------------------------------------------------------------------------


def _long(column: int, tail: int = 300) -> tuple[str, int]:
    """A line with the match at ``column`` and no error name before it."""
    return "a" * column + "MATCH" + "b" * tail, column


@pytest.mark.parametrize("column", [0, MAX_LINE - 41])
def test_a_match_in_the_first_120_columns_quotes_the_line_from_its_start(column: int) -> None:
    line, at = _long(column)
    assert quote(line, at) == line[: MAX_LINE - 3] + "..."


def test_a_match_from_column_120_on_opens_a_window_40_characters_before_it() -> None:
    line, at = _long(MAX_LINE - 40)
    assert quote(line, at) == "..." + line[at - 40 : at - 40 + MAX_LINE - 6] + "..."


def test_a_window_that_reaches_the_end_of_the_line_has_no_closing_dots() -> None:
    # the rest from the window's start is exactly the 157 characters after the opening dots
    line, at = _long(200, tail=112)
    assert len(line) - (at - 40) == MAX_LINE - 3
    assert quote(line, at) == "..." + line[at - 40 :]
    longer, at = _long(200, tail=113)
    assert quote(longer, at) == "..." + longer[at - 40 : at - 40 + MAX_LINE - 6] + "..."


def test_the_window_opens_at_the_last_error_name_up_to_100_columns_before_the_match() -> None:
    head = "ValueError: first "
    # an error name 100 columns before the match: the window opens there
    line = "a" * 149 + " " + head + "c" * (100 - len(head)) + "MATCH" + "b" * 300
    at = line.index("MATCH")
    assert quote(line, at) == "..." + line[150 : 150 + MAX_LINE - 6] + "..."
    # 101 columns before: out of reach, the window opens 40 before the match
    line = "a" * 149 + " " + head + "c" * (101 - len(head)) + "MATCH" + "b" * 300
    at = line.index("MATCH")
    assert quote(line, at) == "..." + line[at - 40 : at - 40 + MAX_LINE - 6] + "..."
    # two names in reach: the later one
    line = "a" * 149 + " KeyError: x " + "ValueError: y " + "c" * 20 + "MATCH" + "b" * 300
    at = line.index("MATCH")
    later = line.index("ValueError")
    assert quote(line, at) == "..." + line[later : later + MAX_LINE - 6] + "..."


def test_the_column_of_an_indented_line_is_counted_from_its_first_character() -> None:
    # the indentation is stripped; the window is placed on the stripped line
    text = "first line\n" + " " * 8 + "a" * 200 + "MATCH" + "b" * 300 + "\nlast line\n"
    at = text.index("MATCH")
    line = text.splitlines()[1].strip()
    column = line.index("MATCH")
    assert quote(text, at) == "..." + line[column - 40 : column - 40 + MAX_LINE - 6] + "..."


# --- the line above ----------------------------------------------------------------------------------------


def test_a_bare_error_name_right_above_is_joined_and_the_window_follows_the_joined_line() -> None:
    text = "prefix\nRuntimeError:\n" + "a" * 200 + "MATCH" + "b" * 300
    joined = "RuntimeError: " + "a" * 200 + "MATCH" + "b" * 300
    column = joined.index("MATCH")
    assert (
        quote(text, text.index("MATCH")) == "..." + joined[column - 40 : column - 40 + MAX_LINE - 6] + "..."
    )
    short = "RuntimeError:\nCUDA out of memory"
    assert quote(short, short.index("CUDA")) == "RuntimeError: CUDA out of memory"


def test_a_blank_line_between_the_error_name_and_the_message_keeps_them_apart() -> None:
    text = "RuntimeError:\n\nCUDA out of memory"
    assert quote(text, text.index("CUDA")) == "CUDA out of memory"


def test_the_first_line_of_a_text_has_nothing_above_it() -> None:
    assert quote("ValueError:!", 0) == "ValueError:!"
    assert quote("\nValueError:!", 1) == "ValueError:!"


# --- the anchor of a quoted message ------------------------------------------------------------------------


def test_a_message_is_quoted_from_the_first_pattern_that_matches_up_to_160_columns_before_the_last() -> None:
    entry = _entry(r"FIRST", r"SECOND")
    near = "x" * 300 + " FIRST " + "n" * 100 + " SECOND " + "t" * 400
    (found,) = explain(near, [entry])
    first = near.index("FIRST")
    assert found.line == "..." + near[first - 40 : first - 40 + MAX_LINE - 6] + "..."
    far = "FIRST " + "f" * 300 + " SECOND " + "t" * 400
    (found,) = explain(far, [entry])
    # FIRST is out of reach: the line is quoted around SECOND, its match (at column 307)
    assert "SECOND" in found.line and "FIRST" not in found.line


# --- what an entry's analysis and check add -----------------------------------------------------------------


def test_an_entrys_analysis_adds_its_evidence_cause_and_check() -> None:
    def analyse(text: str) -> Analysis:
        return Analysis(evidence=("read from the text",), cause="the analysed cause", check="torch.build")

    (found,) = explain("boom here", [_entry(r"boom", analyse=analyse, check="gpu.memory")])
    assert found.evidence == ("read from the text",)
    assert found.cause == "the analysed cause"
    assert found.check == "torch.build"


def test_without_an_analysis_the_entrys_own_check_and_cause_stand() -> None:
    (found,) = explain("boom here", [_entry(r"boom", check="gpu.memory")])
    assert found.check == "gpu.memory"
    assert found.cause == "cause"
    assert found.evidence == ()


# --- blanking code lines -----------------------------------------------------------------------------------


def test_a_frame_or_a_warning_on_the_first_line_of_a_text_is_blanked_too() -> None:
    frame = 'File "/srv/x.py", line 3, in f\n    model.cuda()\nRuntimeError: CUDA out of memory\n'
    searchable = prepare(frame).searchable
    assert searchable.startswith(" " * len('File "/srv/x.py", line 3, in f'))
    assert "model.cuda()" not in searchable
    warning = "/srv/x.py:3: UserWarning: slow\n  warnings.warn('CUDA out of memory')\nValueError: x\n"
    assert "warnings.warn" not in prepare(warning).searchable


def test_a_frame_on_a_line_already_blanked_does_not_stop_the_blanking_of_later_lines() -> None:
    # rich's boxed frame holds a File line too: the line is blanked once, and the raise below still is
    text = (
        '│ 12 │ File "/srv/x.py", line 3, in f\n'
        "something\n"
        'raise RuntimeError("CUDA out of memory")\n'
        "ValueError: x\n"
    )
    searchable = prepare(text).searchable
    assert "CUDA out of memory" not in searchable
    assert "something" in searchable


def test_only_the_line_right_under_a_frame_with_two_more_columns_is_its_source() -> None:
    frame = '  File "/srv/x.py", line 3, in f\n'
    assert "model.cuda()" not in prepare(frame + "    model.cuda()\n").searchable
    # one more column only: not Python's source line
    assert "model.cuda()" in prepare(frame + "   model.cuda()\n").searchable
    # two lines down: not it either, nor after a blank line; the message right under it is no source
    assert "model.cuda()" in prepare(frame + "RuntimeError: x\n    model.cuda()\n").searchable
    assert "RuntimeError: x" in prepare(frame + "RuntimeError: x\n    model.cuda()\n").searchable
    assert "model.cuda()" in prepare(frame + "\n    model.cuda()\n").searchable
    three = prepare(frame + "    model.cuda()\nRuntimeError: CUDA out of memory\n").searchable
    assert "model.cuda()" not in three and "RuntimeError: CUDA out of memory" in three
    # a frame at the very end has no line under it
    assert prepare(frame.rstrip("\n")).searchable.strip() == ""


def test_a_source_line_under_a_prefixed_frame_carries_the_same_prefix() -> None:
    text = '[rank0]:   File "/srv/x.py", line 3, in f\n[rank0]:     model.cuda()\n[rank1]:     other()\n'
    searchable = prepare(text).searchable
    assert "model.cuda()" not in searchable
    assert "other()" in searchable


# --- the prepared text --------------------------------------------------------------------------------------


def test_a_prepared_text_cannot_be_changed() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        prepare("x").clean = "y"  # type: ignore[misc]


def test_an_equal_text_is_prepared_once_for_every_catalogue() -> None:
    text = "RuntimeError: CUDA out of memory " * 10
    again = "".join(list(text))
    assert again is not text
    assert matcher._prepared(text)[0] is matcher._prepared(again)[0]
    assert matcher._prepared(text + "!")[0] is not matcher._prepared(again)[0]


def test_the_line_at_a_position_is_found_at_the_text_s_edges() -> None:
    assert matcher._line_at("abc", 0) == (0, 3)
    assert matcher._line_at("a\nbc\n", 3) == (2, 4)
    assert matcher._line_at("\nbc", 1) == (1, 3)


def test_a_line_of_several_frames_or_warnings_does_not_stop_the_blanking_of_the_lines_after_it() -> None:
    # a traceback flattened onto one line, then a traceback of its own
    frames = 'File "/a.py", line 1, in f File "/b.py", line 2, in g\n'
    text = frames + 'File "/c.py", line 3, in h\n    model.cuda()\nRuntimeError: CUDA out of memory\n'
    searchable = prepare(text).searchable
    assert "/c.py" not in searchable and "model.cuda()" not in searchable
    warnings = "/a.py:1: UserWarning: one /b.py:2: UserWarning: two\n"
    text = warnings + "/c.py:3: UserWarning: three\n  warnings.warn('CUDA out of memory')\nValueError: x\n"
    assert "warnings.warn" not in prepare(text).searchable


@pytest.mark.parametrize("under", ["[rank0]:   ", "[rank0]:  "])
def test_a_line_of_the_log_prefix_alone_under_a_frame_is_no_source_line(under: str) -> None:
    text = f'[rank0]: File "/x.py", line 3, in f\n{under}\n[rank0]: RuntimeError: x\n'
    assert prepare(text).searchable.count("[rank0]:") == 3


def test_a_line_of_exactly_160_characters_is_quoted_whole_even_with_the_match_far_on_it() -> None:
    line = "a" * 130 + "MATCH" + "b" * (MAX_LINE - 135)
    assert len(line) == MAX_LINE
    assert quote(line, 130) == line


def test_a_deep_indentation_is_taken_off_before_the_window_is_placed() -> None:
    # more indentation than text: the column is the position less the line's start less the indentation
    text = "x\n" + " " * 300 + "a" * 150 + "MATCH" + "b" * 45
    line = text.splitlines()[1].strip()
    column = line.index("MATCH")
    assert quote(text, text.index("MATCH")) == "..." + line[column - 40 :]


@pytest.mark.parametrize("path", [".py", "a.py"])
def test_a_warning_at_the_very_start_of_a_text_has_its_source_line_blanked(path: str) -> None:
    text = f"{path}:3: UserWarning: slow\n  warnings.warn('CUDA out of memory')\nValueError: x\n"
    assert "warnings.warn" not in prepare(text).searchable


def test_a_pattern_that_matches_more_than_160_columns_before_the_last_match_is_not_the_anchor() -> None:
    entry = _entry(r"FIRST", r"SECOND")
    text = "x" * 199 + " FIRST" + "f" * 194 + " SECOND " + "t" * 400
    assert (text.index("FIRST"), text.index("SECOND")) == (200, 400)
    (found,) = explain(text, [entry])
    assert found.line == "..." + text[360 : 360 + MAX_LINE - 6] + "..."
