"""Foreign text made inert on a terminal: shown, never obeyed.

Text torchdoctor did not write itself (a file name, a saved report's facts, a pasted log, a plugin's verdict)
may hold characters a terminal acts on instead of showing: ESC and the sequences it opens (CSI colours and
cursor moves, OSC window titles, hyperlinks and clipboard writes), the C1 controls (``U+009B`` is a CSI on
its own), BEL, backspace, carriage return, DEL; characters that reorder or hide what is shown (bidirectional
overrides, zero-width and other format characters, Unicode tag characters); line and paragraph separators;
and lone surrogates (the undecodable bytes of a file name, which no encoder accepts). Each becomes the six
characters ``\\u001b`` (beyond the first plane, a UTF-16 pair such as ``\\udb40\\udc41``): visible, and inside
a JSON string still the same character, so JSON output stays valid and means the same.

Line feed, tab and a carriage return that ends a line (CRLF) stay as they are in :func:`inert` (a log quoted
over several lines, a diff of a CRLF file) and become visible too in :func:`one_line` (a file name inside a
one-line message). One pass of one character class: linear.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from os import PathLike
from typing import Any

# Characters a terminal acts on, by Unicode general category (Unicode Character Database,
# DerivedGeneralCategory.txt, 15.1): Cc (controls, line feed and tab apart), Cf (format), Cs (surrogates),
# Zl and Zp (U+2028, U+2029). tests/output/test_inert.py compares it with the running Python's unicodedata.
_FORMAT = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f"
)
_OTHER = "\x7f-\x9f\u2028\u2029\ud800-\udfff" + _FORMAT
_ACTING = "\x00-\x08\x0b-\x1f" + _OTHER
# A carriage return just before a line feed only ends a line (a CRLF file quoted, a diff of one that
# `patch` must apply): inert() keeps it, one_line() shows it.
_IN_TEXT = re.compile(f"\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f{_OTHER}]")
_IN_LINE = re.compile(f"[\t\n{_ACTING}]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    # Beyond the first plane as JSON writes it, a UTF-16 pair: JSON knows no other escape for it.
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def inert(text: str) -> str:
    """``text`` with every character a terminal would act on shown as its escape; line feeds and tabs kept."""
    return _IN_TEXT.sub(_visible, text)


def one_line(text: str) -> str:
    """``text`` as part of one line: :func:`inert`, and line feeds and tabs shown as escapes too."""
    return _IN_LINE.sub(_visible, text)


def inert_value(value: Any) -> Any:
    """A copy of a JSON-like value with every string in it (keys too) made :func:`inert`."""
    if isinstance(value, str):
        return inert(value)
    if isinstance(value, Mapping):
        return {inert(k) if isinstance(k, str) else k: inert_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [inert_value(item) for item in value]
    return value


def acts_on_terminal(text: str) -> bool:
    """Whether ``text`` holds a character :func:`one_line` would replace (a line feed or tab included)."""
    return _IN_LINE.search(text) is not None


def shown(path: PathLike[str] | str) -> str:
    """A path as one line of a message: quoted as Python does when it holds a character a terminal would
    act on (a line break, an escape, a bidirectional override...)."""
    text = str(path)
    return repr(text) if acts_on_terminal(text) else text
