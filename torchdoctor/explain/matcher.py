"""Match a text against catalogue entries: every entry that recognises something, the last error first.

A pasted text is a message, a traceback or a whole log. Before matching, terminal colours (ANSI escapes)
are removed and the lines that are source code rather than messages are blanked: a traceback's
``File "..."`` lines and the source line under each, the source line Python prints under a warning, and
``raise ...`` lines, so that ``raise RuntimeError("Distributed package doesn't have NCCL ...")`` never
stands for the error it raises; an ``assert`` line with its AssertionError under it stays, as what failed, and
so does a ``raise`` line that ends a traceback pasted without its exception line.
Blanking keeps every offset, so positions and lines stay those of the text.

In a traceback the last recognised error is the one that stopped the program, so it leads; the others
follow as "also in this text". An entry's symptoms (the effect in a program's or a writer's words, or a
message that only wraps another) explain a text only where no message is recognised: the message says why.
Each explanation quotes the line of its entry's last match. Pure: no I/O; the catalogue is passed in.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from torchdoctor.explain.model import Analysis, Entry, Explanation
from torchdoctor.output.wording import clipped

MAX_LINE = 160
"""The longest quoted line; a longer one is cut around the match."""

# Terminal escapes: CSI (colours, cursor moves), OSC up to its terminator (hyperlinks), character-set
# designations, two-byte ESC codes.
_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\n]{0,2000}(?:\x07|\x1b\\)|\x1b[()*+][0-9A-Za-z]|\x1b[@-Z\\-_]"
)
_FRAME = re.compile(r'File "[^"\n]*", line \d+(?:, in [\w<>.]{1,200})?')
_WARNING = re.compile(r"\.pyw?:\d+: \w*Warning: [^\n]")
# Source lines that carry no frame of their own: `raise` statements, rich's boxed frames (│ 1013 │ ...),
# IPython's arrow lines (---> 45 ...). Each is looked for only in a text that holds its plain part: a pattern
# anchored at line starts is still tried at every position of the text.
_SOURCES = (
    ("raise ", re.compile(r"^[ \t>]*raise \w", re.MULTILINE)),
    ("│", re.compile(r"^[^\n│]*│[ \t]*(?:❱[ \t]*)?\d+[ \t]*│", re.MULTILINE)),
    ("->", re.compile(r"^[ \t]*-+>[ \t]*\d+ ", re.MULTILINE)),
)
_ERROR_HEADER = re.compile(r"(?<![\w.])[\w.]*(?:Error|Exception|Warning):")


@dataclass(frozen=True)
class Prepared:
    """A text made ready for matching: ``clean`` to quote from, ``searchable`` (same length) to match."""

    clean: str
    searchable: str


def prepare(text: str) -> Prepared:
    """The text without terminal escapes and with one kind of line end; code lines blanked for matching."""
    clean = _ANSI.sub("", text).replace("\r\n", "\n").replace("\r", "\n")
    spans = sorted(set(_code_lines(clean)))
    if not spans:
        return Prepared(clean, clean)
    parts: list[str] = []
    done = 0
    for start, end in spans:
        if start < done:
            continue
        parts += [clean[done:start], " " * (end - start)]
        done = end
    parts.append(clean[done:])
    return Prepared(clean, "".join(parts))


_last_prepared: tuple[str, Prepared, str] | None = None
"""The last text prepared, as matched and casefolded: the worker matches one text against each catalogue in
turn, and a long log costs more to prepare than to match."""


def _prepared(text: str) -> tuple[Prepared, str]:
    global _last_prepared
    if _last_prepared is None or _last_prepared[0] != text:
        prepared = prepare(text)
        _last_prepared = (text, prepared, prepared.searchable.casefold())
    return _last_prepared[1], _last_prepared[2]


def explain(text: str, entries: Sequence[Entry]) -> list[Explanation]:
    """Every entry that recognises something in ``text``, the last error in the text first."""
    return explain_marked(text, entries)[0]


def explain_marked(text: str, entries: Sequence[Entry]) -> tuple[list[Explanation], bool]:
    """:func:`explain`, and whether its explanations are of messages (False: of symptoms alone, which
    another catalogue's message, matched apart, outranks)."""
    prepared, folded = _prepared(text)
    found: list[tuple[bool, Explanation]] = []
    occurs: dict[str, bool] = {}
    for entry in entries:
        if not entry.may_match(folded, occurs):
            continue
        match = entry.last_match(prepared.searchable, folded)
        by_message = match is not None
        if match is None:
            match = entry.last_symptom(prepared.searchable, folded)
        if match is None:
            continue
        analysis = _analyse(entry, prepared.clean)
        if analysis.declined:
            continue
        found.append(
            (
                by_message,
                Explanation(
                    id=entry.id,
                    title=entry.title,
                    line=quote(prepared.clean, _anchor(entry, prepared.searchable, match)),
                    position=match.start(),
                    evidence=analysis.evidence,
                    cause=analysis.cause or entry.cause,
                    fix=analysis.fix or entry.fix,
                    check=analysis.check or entry.check,
                ),
            )
        )
    of_messages = any(by_message for by_message, _ in found)
    if of_messages:
        found = [pair for pair in found if pair[0]]
    ranked = [
        explanation for _, explanation in sorted(found, key=lambda pair: pair[1].position, reverse=True)
    ]
    return ranked, of_messages


def quote(text: str, position: int) -> str:
    """The line of ``text`` at ``position``, with a bare ``SomeError:`` line above it joined in front; a
    line longer than MAX_LINE is cut to a window that shows ``position``, from the error name before it
    where that fits."""
    start, end = _line_at(text, position)
    raw = text[start:end]
    line = raw.strip()
    column = position - start - (len(raw) - len(raw.lstrip()))
    if start > 0:
        above = text[_line_at(text, start - 1)[0] : start - 1].strip()
        if _ERROR_HEADER.fullmatch(above):
            line, column = f"{above} {line}", column + len(above) + 1
    if len(line) <= MAX_LINE:
        return line
    begin = 0 if column < MAX_LINE - 40 else _window_start(line, column)
    prefix = "..." if begin else ""
    rest, room = line[begin:], MAX_LINE - len(prefix)
    return prefix + clipped(rest, room)


def _window_start(line: str, column: int) -> int:
    """Where a window of a long line showing ``column`` starts: at the error name before it
    (``RuntimeError:``) when the window still reaches well past ``column``, else a little before it."""
    names = [m.start() for m in _ERROR_HEADER.finditer(line, max(column - (MAX_LINE - 60), 0), column)]
    return names[-1] if names else column - 40


def _anchor(entry: Entry, text: str, match: re.Match[str]) -> int:
    """The first place on the last match's line (up to a quoted line's length before it) where the entry
    recognises something: a message that several patterns recognise is quoted from its beginning."""
    start, end = _line_at(text, match.start())
    start = max(start, match.start() - MAX_LINE)
    patterns = (*entry.compiled, *entry.compiled_symptoms)
    found = (m.start() for p in patterns if (m := p.search(text, start, end)) is not None)
    return min(found, default=match.start())


def _analyse(entry: Entry, text: str) -> Analysis:
    """The entry's analysis of the whole cleaned text, its traceback frames and code lines included (they
    are blanked only for matching): a frame is often the only sign of where the error came from
    (torch.load's restore_location, set_device(local_rank))."""
    if entry.analyse is None:
        return Analysis()
    try:
        return entry.analyse(text)
    except Exception:  # an analysis that trips on an odd text must not cost the explanation itself
        return Analysis()


def _code_lines(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of every line of ``text`` that is source code or a traceback frame, not a message.

    A line is looked at once, for its first frame or warning: a line of a million frames (a log without
    line breaks) costs its length, not its length times its frames."""
    kept: set[int] = set()
    done = -1
    for frame in _FRAME.finditer(text):
        if frame.start() <= done:
            continue
        start, done = _line_at(text, frame.start())
        # From the frame on: what comes before it on its line is a log's prefix ([rank0]:) or the message
        # itself (an error, then where it was raised, flattened onto one line), never code.
        yield frame.start(), done
        below = _source_below(text, done, text[start : frame.start()])
        if below is None or _asserted(text, below):
            continue
        if _raised_last(text, below):
            kept.add(below[0])
        else:
            yield below
    done = -1
    for warning in _WARNING.finditer(text):
        if warning.start() <= done:
            continue
        _, done = _line_at(text, warning.start())
        below = _source_below(text, done, "")
        if below is not None:
            yield below
    for plain, pattern in _SOURCES:
        if plain in text:
            for source in pattern.finditer(text):
                line = _line_at(text, source.start())
                if line[0] not in kept:
                    yield line


def _source_below(text: str, end: int, lead: str) -> tuple[int, int] | None:
    """The line after the one ending at ``end`` when it is Python's source line under a frame or a warning:
    the same log prefix as the line above (``lead`` up to the frame), then two more columns of indent."""
    if end >= len(text):
        return None
    start, stop = _line_at(text, end + 1)
    line, prefix = text[start:stop], lead.rstrip()
    indent = len(lead) + 2
    if line.startswith(prefix) and len(line) > indent and line[len(prefix) : indent].isspace():
        return start, stop
    return None


def _asserted(text: str, source: tuple[int, int]) -> bool:
    """Whether the source line at ``source`` is an assert statement whose AssertionError follows: the
    statement is then what failed, which the error says in no words (a bare AssertionError) or in the
    author's own, so it is matched as the message."""
    start, stop = source
    return text[start:stop].lstrip().startswith("assert") and (
        re.match(r"[ \t]{0,8}AssertionError\b", text[stop + 1 : stop + 40]) is not None
    )


def _raised_last(text: str, source: tuple[int, int]) -> bool:
    """Whether the source line at ``source`` is a raise statement that ends a traceback pasted without its
    exception line: no frame and no error follows it, so the statement is the only words for what stopped the
    program (a raise line anywhere else is code, or its exception line follows)."""
    start, stop = source
    if not text[start:stop].lstrip().startswith("raise "):
        return False
    line = text[stop : stop + 2000].lstrip().partition("\n")[0]
    return _FRAME.search(line) is None and _ERROR_HEADER.search(line) is None


def _line_at(text: str, position: int) -> tuple[int, int]:
    end = text.find("\n", position)
    return text.rfind("\n", 0, position) + 1, len(text) if end == -1 else end
