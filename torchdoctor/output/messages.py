"""The one-line messages torchdoctor writes on stderr, formatted in one place for every command.

``torchdoctor: error: ...`` for bad input and failures, ``torchdoctor: warning: ...`` for something the user
should know before sharing or trusting an output, ``torchdoctor: ...`` for a note. A message is always one
line: line breaks and runs of spaces inside it are folded to single spaces, and a line longer than
MAX_CHARACTERS (a value echoed back from the command line, a file or an exception) keeps its start and end.
"""

from __future__ import annotations

PROGRAM = "torchdoctor"
MAX_CHARACTERS = 1000
_HEAD, _TAIL = 600, 300
"""What a line cut to MAX_CHARACTERS keeps: its start, and its end, which says what to do (``see --help``)."""


VALUE_CHARACTERS = 40


def shown_value(value: object) -> str:
    """A value the user gave as a message quotes it: its first VALUE_CHARACTERS characters, quoted."""
    return repr(str(value)[:VALUE_CHARACTERS])


def _one_line(message: str) -> str:
    line = " ".join(message.split())
    if len(line) <= MAX_CHARACTERS:
        return line
    return f"{line[:_HEAD]} [...{len(line) - _HEAD - _TAIL} characters left out...] {line[-_TAIL:]}"


def error_line(message: str) -> str:
    return f"{PROGRAM}: error: {_one_line(message)}\n"


def warning_line(message: str) -> str:
    return f"{PROGRAM}: warning: {_one_line(message)}\n"


def note_line(message: str) -> str:
    return f"{PROGRAM}: {_one_line(message)}\n"
