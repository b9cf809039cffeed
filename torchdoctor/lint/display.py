"""Foreign text (file names, messages that quote them) made inert before lint prints it.

A file name can hold anything but a slash and NUL: a line break (a second, forged line), terminal escape
sequences, C1 controls, a lone ESC, and text that a CI runner reads as a command when a line starts with
it (GitHub's ``::error ...::`` workflow commands and its older ``##[...]`` form, read anywhere in a line).
Such a name is shown quoted the way Python quotes a string, so every control character reads as an escape
(``\\n``, ``\\x1b``, ``\\u2028``) and the line starts with a quote.
"""

from __future__ import annotations

import unicodedata

from torchdoctor.output.inert import shown as shown_path

# Characters a terminal or a log reader may act on besides the controls (category C*): line and paragraph
# separators.
_SEPARATORS = frozenset({"Zl", "Zp"})


def _acts(text: str) -> bool:
    stripped = text.lstrip()
    if stripped.startswith("::") or "##[" in text:
        return True
    return any(unicodedata.category(char) in _SEPARATORS for char in text)


def shown(text: str) -> str:
    """``text`` as part of one line of output: itself when harmless, else quoted with escapes."""
    if shown_path(text) == text and not _acts(text):
        return text
    # repr() escapes every character that is not printable (U+2028 and U+2029 included); "##[" stays
    # readable but no longer forms the marker.
    return repr(text).replace("##[", "#\\x23[")


def inert(text: str) -> str:
    """A message that may quote source text: every control or separator character written as its escape,
    and no workflow-command marker left at the start or inside."""
    if text.isprintable() and not _acts(text):
        return text
    escaped = "".join(
        char.encode("unicode_escape", "backslashreplace").decode("ascii") if not char.isprintable() else char
        for char in text
    )
    escaped = escaped.replace("##[", "#\\x23[")
    if escaped.lstrip().startswith("::"):
        head = len(escaped) - len(escaped.lstrip())
        escaped = escaped[:head] + "\\x3a" + escaped[head + 1 :]
    return escaped
