"""The one-line messages torchdoctor writes on stderr, formatted in one place for every command.

``torchdoctor: error: ...`` for bad input and failures, ``torchdoctor: warning: ...`` for something the user
should know before sharing or trusting an output, ``torchdoctor: ...`` for a note. A message is always one
line: line breaks and runs of spaces inside it are folded to single spaces.
"""

from __future__ import annotations

PROGRAM = "torchdoctor"


def _one_line(message: str) -> str:
    return " ".join(message.split())


def error_line(message: str) -> str:
    return f"{PROGRAM}: error: {_one_line(message)}\n"


def warning_line(message: str) -> str:
    return f"{PROGRAM}: warning: {_one_line(message)}\n"


def note_line(message: str) -> str:
    return f"{PROGRAM}: {_one_line(message)}\n"
