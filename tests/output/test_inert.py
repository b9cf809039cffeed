"""Foreign text on a terminal: every character a terminal acts on is shown, never obeyed."""

from __future__ import annotations

import json
import re
import sys
import unicodedata

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from torchdoctor.output.inert import acts_on_terminal, inert, inert_value, one_line

from growth import linear, repeated

ACTING_CATEGORIES = ("Cc", "Cf", "Cs", "Zl", "Zp")

ATTACKS = {
    "window title (OSC 0, BEL)": "\x1b]0;owned\x07",
    "window title (OSC 2, ST)": "\x1b]2;owned\x1b\\",
    "hyperlink (OSC 8)": "\x1b]8;;https://example.com\x1b\\click\x1b]8;;\x1b\\",
    "clipboard write (OSC 52)": "\x1b]52;c;cm0gLXJmIH4=\x07",
    "colour and erase (CSI)": "\x1b[31m\x1b[2J\x1b[H",
    "CSI as one C1 control": "\x9b31m\x9b2J",
    "OSC as one C1 control": "\x9d0;owned\x9c",
    "bell": "\x07",
    "backspace over text": "safe\x08\x08\x08\x08evil",
    "carriage return over text": "evil\rsafe",
    "a lone ESC": "\x1b",
    "delete": "\x7f",
    "bidirectional override": "txt.\u202eexe",
    "line separator": "one\u2028two",
    "zero-width space": "ro\u200bot",
    "tag characters": "\U000e0041\U000e0042",
    "a lone surrogate (an undecodable byte of a file name)": "name\udcff",
}


def _acts(character: str) -> bool:
    return unicodedata.category(character) in ACTING_CATEGORIES


@pytest.mark.parametrize("attack", ATTACKS.values(), ids=list(ATTACKS))
def test_each_attack_is_shown_not_obeyed(attack: str) -> None:
    shown = inert(f"before {attack} after")
    assert not any(_acts(c) and c not in "\n\t" for c in shown)
    assert "\\u" in shown  # visible where it was
    assert shown.startswith("before ") and shown.endswith(" after")
    shown.encode("utf-8")  # a lone surrogate no longer stops the output


def test_line_feeds_and_tabs_stay_in_text_and_go_in_a_line() -> None:
    assert inert("a\n\tb") == "a\n\tb"
    assert one_line("a\n\tb") == "a\\u000a\\u0009b"
    assert acts_on_terminal("file\nname") and not acts_on_terminal("plain name.json")


def test_a_carriage_return_that_ends_a_line_stays_in_text_and_goes_in_a_line() -> None:
    """CRLF only ends a line (a CRLF file's diff must still apply); a lone CR rewrites what was shown."""
    assert inert("a\r\nb\r\n") == "a\r\nb\r\n"
    assert inert("shown\rhidden\r") == "shown\\u000dhidden\\u000d"
    assert one_line("a\r\n") == "a\\u000d\\u000a"


def test_the_class_is_every_character_unicode_calls_a_control_a_format_or_a_separator() -> None:
    """The hard-coded class against the running Python's Unicode database (it may hold more, for a newer
    Unicode than this Python's, never less)."""
    acting = [chr(c) for c in range(sys.maxunicode + 1) if _acts(chr(c))]
    assert [c for c in acting if one_line(c) == c] == []


# Text rich in what a terminal acts on, across every plane (tag characters, lone surrogates).
ACTING_TEXT = st.lists(
    st.sampled_from([*ATTACKS.values(), "\U000e007f", "\udc80", "\ud83d", "a", "\\", '"']), max_size=8
).map("".join)


@settings(max_examples=200, deadline=None)
@given(st.text() | ACTING_TEXT)
def test_any_text_is_left_without_a_character_a_terminal_acts_on(text: str) -> None:
    shown = one_line(text)
    assert not any(_acts(c) for c in shown)
    assert one_line(shown) == shown and inert(inert(text)) == inert(text)
    if "\\" not in text:  # everything else kept, in order
        kept = re.sub(r"\\u[0-9a-f]{4}", "", shown)
        assert kept == "".join(c for c in text if not _acts(c))


SURROGATE_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.text() | ACTING_TEXT, lambda inner: st.lists(inner, max_size=3), max_leaves=5))
def test_json_made_inert_still_means_the_same(value: object) -> None:
    """An escape inside a JSON string is the same character: JSON output stays valid and equal."""
    text = json.dumps({"value": value}, ensure_ascii=False)
    # Two lone surrogates that form a pair are one character once escaped, in JSON as in any reader: no text
    # torchdoctor prints holds them (undecodable bytes become lone low surrogates only).
    assume(not SURROGATE_PAIR.search(text))
    assert json.loads(inert(text)) == {"value": value}


def test_inert_value_reaches_keys_and_nested_strings() -> None:
    assert inert_value({"k\x1b": ["v\x07", 3, None]}) == {"k\\u001b": ["v\\u0007", 3, None]}


def test_making_text_inert_is_linear() -> None:
    assert linear(one_line, repeated("a\x1b[31m\u202e"), 1 << 15)
