"""What ``torchdoctor explain`` knows and answers: catalogue entries, what their analysis read, explanations.

A catalogue is a tuple of :class:`Entry` objects named in the entry-point group ``torchdoctor.explanations``;
torchdoctor's own entries are registered there by area (``torchdoctor.checks.install.explanations`` and so
on), a plugin adds its own the same way.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import Any

from torchdoctor.model import Fix


def _pattern_parser() -> tuple[ModuleType | None, ModuleType | None]:
    """CPython's own pattern parser (the one re.compile uses): only a speed-up, never needed for a result;
    on another Python every pattern simply runs on every text."""
    try:
        import re._constants as constants
        import re._parser as parser
    except ImportError:
        try:  # Python 3.10: the same modules under their old names
            import sre_constants as constants  # type: ignore[no-redef]
            import sre_parse as parser  # type: ignore[no-redef]
        except ImportError:
            return None, None
    return constants, parser


sre, sre_parse = _pattern_parser()


def last_match(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """The last match of ``pattern`` in ``text``: in a log, the last message is the one that counts."""
    return _last_in(pattern, text, 0, len(text))


def quoted(pattern: re.Pattern[str], text: str, line: Callable[[re.Match[str]], str]) -> Analysis:
    """An analysis whose one line of evidence is ``line`` of the last match of ``pattern`` in the text's
    last 200,000 characters (where a message is); none where it does not match."""
    return quoted_lines(text, (pattern, line))


def quoted_lines(text: str, *readings: tuple[re.Pattern[str], Callable[[re.Match[str]], str]]) -> Analysis:
    """:func:`quoted` of several readings: a line of evidence for each pattern that matches, in order."""
    tail = text[-200_000:]
    found = ((last_match(pattern, tail), line) for pattern, line in readings)
    return Analysis(evidence=tuple(line(match) for match, line in found if match is not None))


# Unicode's white space, which \s alone no longer is under PATTERN_FLAGS' ASCII: a page's no-break spaces and
# the ideographic space of Chinese text.
_ANY_SPACE = r"[\s\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
_SPACE_RUN = _ANY_SPACE + "{1,256}"


def any_space(pattern: str) -> str:
    """``pattern`` with each space it writes (outside a character class, not escaped) matching a run of white
    space: a long message pasted from a terminal or a rendered page often breaks its line where the message
    has a space ("... with CUDA capability\\nsm_90 is not compatible ..."), and a logger that pads and indents
    its lines (rich's console) puts spaces, a line break and an indentation there. Inside a look-behind, whose
    width must be fixed, and under a quantifier of its own, a space matches one white space character."""
    out: list[str] = []
    in_class = escaped = False
    behind: list[bool] = []  # for each open group: whether it is a look-behind
    for at, char in enumerate(pattern):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]" or (bool(out) and out[-1] == "[")
        elif char == "[":
            in_class = True
        elif char == "(":
            behind.append(pattern.startswith(("(?<=", "(?<!"), at))
        elif char == ")" and behind:
            behind.pop()
        elif char == " ":
            # a quantified space (" ?", " {0,3}") stays one character under its quantifier
            quantified = pattern[at + 1 : at + 2] in ("?", "*", "+", "{")
            out.append(_ANY_SPACE if quantified or any(behind) else _SPACE_RUN)
            continue
        out.append(char)
    return "".join(out)


def required_text(pattern: str) -> tuple[str, ...]:
    """Casefolded plain text of which every match of ``pattern`` contains at least one piece (one piece, or
    one per branch of an alternation every match passes through); () where there is none to be sure of.

    A text that contains none of the pieces cannot match, so the pattern is not run on it: a substring test
    is far cheaper than a case-insensitive regular expression over a long log.
    """
    if sre is None or sre_parse is None:
        return ()
    try:
        items = list(sre_parse.parse(pattern, re.IGNORECASE))
    except (re.error, TypeError, ValueError):
        return ()
    return _required_of(items)


def check_pattern(pattern: str) -> None:
    """Raise re.error where a catalogue pattern does not compile, at a quarter of compiling it: CPython's
    parser finds every error re.compile reports (the pattern is compiled only when it first runs)."""
    _parsed(pattern)


def _parsed(pattern: str) -> list[Any] | None:
    """``pattern`` parsed as re.compile parses it, None on a Python without the parser (compiled there)."""
    if sre_parse is None:
        re.compile(pattern, PATTERN_FLAGS)
        return None
    return list(sre_parse.parse(pattern, PATTERN_FLAGS))


def _checked_required(pattern: str) -> tuple[str, ...]:
    """:func:`required_text` of a catalogue pattern, parsed as it will be compiled: a pattern that does not
    compile raises re.error here, when its catalogue is read, though it is compiled only when first run."""
    items = _parsed(pattern)
    return () if items is None or sre is None else _required_of(items)


def _required_of(items: list[Any]) -> tuple[str, ...]:
    """:func:`required_text` of a parsed pattern."""
    assert sre is not None
    if len(items) == 1 and items[0][0] is sre.BRANCH:
        pieces = tuple(_longest_literal(branch) for branch in items[0][1][1])
        return pieces if all(pieces) else ()
    # The longest plain run, or an alternation every match passes through (each branch's longest run):
    # whichever has the longer shortest piece. "(?:non-finite|NaN or Inf) (?:loss|found in)" needs one of
    # "non-finite" and "nan or inf", where its longest run is a space.
    candidates: list[tuple[str, ...]] = [(_longest_literal(items),)]
    for op, value in _inline(items):
        if op is sre.BRANCH:
            candidates.append(tuple(_longest_literal(branch) for branch in value[1]))
    return max((c for c in candidates if all(c)), key=lambda c: min(map(len, c)), default=())


def _longest_literal(items: Iterable[Any]) -> str:
    assert sre is not None
    zero_width = (sre.AT, sre.ASSERT, sre.ASSERT_NOT)
    runs, current = [""], []
    for op, value in _inline(items):
        if op is sre.LITERAL:
            current.append(chr(value))
        elif op not in zero_width:  # a lookaround or \b between two characters keeps them adjacent
            runs.append("".join(current))
            current = []
    runs.append("".join(current))
    return max(runs, key=len).casefold()


def _inline(items: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
    """The items of a pattern with its groups opened (a group that is not repeated is matched in line)."""
    assert sre is not None
    for op, value in items:
        if op is sre.SUBPATTERN:
            yield from _inline(value[3])
        else:
            yield op, value


@dataclass(frozen=True)
class Analysis:
    """What an entry's analysis read out of the message: evidence lines, and a fix that fits it better."""

    evidence: tuple[str, ...] = ()
    fix: Fix | None = None
    cause: str | None = None
    check: str | None = None
    declined: bool = False
    """The entry's pattern matched something else (a symptom read in a text it does not fit): the entry
    explains nothing in this text."""

    def with_evidence(self, *lines: str) -> Analysis:
        """This analysis with ``lines`` after its evidence."""
        return replace(self, evidence=(*self.evidence, *lines))


PATTERN_FLAGS = re.IGNORECASE | re.ASCII
"""How catalogue patterns are compiled. ASCII: a writer of Chinese or Japanese glues English words to the
characters around them ("会OOM吧", "中的deepspeed"), which Unicode's \\b counts as letters, so no word
boundary would be found there."""


@dataclass(frozen=True)
class Case:
    """One variant of an entry's message that its analyser tells apart (an error number, a library, a
    status): the ``pattern`` it recognises, ignoring case, and what the explanation then says."""

    pattern: str
    evidence: str | None = None
    cause: str | None = None
    fix: Fix | None = None
    check: str | None = None
    compiled: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "compiled", re.compile(self.pattern, PATTERN_FLAGS))

    def analysis(self, *evidence: str) -> Analysis:
        """``evidence``, then this case's own evidence, with its cause, fix and check."""
        own = () if self.evidence is None else (self.evidence,)
        return Analysis(evidence=(*evidence, *own), fix=self.fix, cause=self.cause, check=self.check)


@dataclass(frozen=True)
class Entry:
    id: str
    title: str
    patterns: tuple[str, ...]
    cause: str
    fix: Fix
    check: str | None = None
    source: str = ""
    """Where the message text comes from (torch source, a research note, an issue)."""
    analyse: Callable[[str], Analysis] | None = None
    symptoms: tuple[str, ...] = ()
    """Patterns of the effect told in words (a program's log line, the writer's prose) or of a message that
    only wraps another: they explain a text only where no entry recognises a message in it."""
    required: tuple[tuple[str, ...], ...] = field(init=False, repr=False, compare=False)
    """For each pattern, the text one piece of which a match contains (:func:`required_text`)."""
    required_symptoms: tuple[tuple[str, ...], ...] = field(init=False, repr=False, compare=False)
    _spaced: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _spaced_symptoms: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _compiled: dict[str, re.Pattern[str]] = field(init=False, repr=False, compare=False)
    """Each pattern compiled the first time it runs: most texts hold the required text of a few entries
    only, and compiling the whole catalogue was most of an explanation's start."""
    _pieces: tuple[str, ...] | None = field(init=False, repr=False, compare=False)
    """Every piece of required text of the patterns and symptoms; None when one of them requires none."""

    def __post_init__(self) -> None:
        for kind, patterns in (("", self.patterns), ("_symptoms", self.symptoms)):
            spaced = tuple(any_space(p) for p in patterns)
            object.__setattr__(self, f"_spaced{kind}", spaced)
            object.__setattr__(self, f"required{kind}", tuple(_checked_required(p) for p in spaced))
        object.__setattr__(self, "_compiled", {})
        required = (*self.required, *self.required_symptoms)
        pieces = None if not all(required) else tuple(dict.fromkeys(p for ps in required for p in ps))
        object.__setattr__(self, "_pieces", pieces)

    def may_match(self, folded: str, occurs: dict[str, bool]) -> bool:
        """Whether a pattern or a symptom can match the text whose casefold is ``folded``: the required
        text of one of them is in it. ``occurs`` remembers, over the entries asked about one text, whether
        each piece was found: most pieces are shared, and most entries are ruled out by them alone."""
        if self._pieces is None:
            return True
        for piece in self._pieces:
            found = occurs.get(piece)
            if found is None:
                found = occurs[piece] = piece in folded
            if found:
                return True
        return False

    def compiled_pattern(self, pattern: str) -> re.Pattern[str]:
        """``pattern`` (one of this entry's, as matched) compiled, once."""
        found = self._compiled.get(pattern)
        if found is None:
            found = self._compiled[pattern] = re.compile(pattern, PATTERN_FLAGS)
        return found

    @property
    def compiled(self) -> tuple[re.Pattern[str], ...]:
        return tuple(self.compiled_pattern(p) for p in self._spaced)

    @property
    def compiled_symptoms(self) -> tuple[re.Pattern[str], ...]:
        return tuple(self.compiled_pattern(p) for p in self._spaced_symptoms)

    def first_match(self, text: str) -> re.Match[str] | None:
        matches = [m for m in (p.search(text) for p in self.compiled) if m is not None]
        return min(matches, key=lambda m: m.start()) if matches else None

    def last_match(self, text: str, folded: str | None = None) -> re.Match[str] | None:
        """The match of any pattern that starts last in ``text``; ``folded`` is ``text.casefold()``, given
        when the caller has it.

        A pattern runs only where its required text occurs: first around the last occurrence (the lines
        before and after it), and over the whole text only when it does not match there.
        """
        return _last_of(self._spaced, self.required, text, folded, self.compiled_pattern)

    def last_symptom(self, text: str, folded: str | None = None) -> re.Match[str] | None:
        """The match of any symptom that starts last in ``text``, as :meth:`last_match` finds it."""
        return _last_of(self._spaced_symptoms, self.required_symptoms, text, folded, self.compiled_pattern)


def _last_of(
    patterns: tuple[str, ...],
    required: tuple[tuple[str, ...], ...],
    text: str,
    folded: str | None,
    compiled: Callable[[str], re.Pattern[str]],
) -> re.Match[str] | None:
    """The match of any of ``patterns`` that starts last in ``text``: see :meth:`Entry.last_match`."""
    folded = text.casefold() if folded is None else folded
    aligned = len(folded) == len(text)  # casefold kept every character, so offsets agree
    matches = []
    for spaced, pieces in zip(patterns, required, strict=True):
        at = max((folded.rfind(piece) for piece in pieces), default=0)
        if at < 0:
            continue
        pattern = compiled(spaced)
        start, end = _lines_around(text, at) if pieces and aligned else (0, 0)
        match = _last_in(pattern, text, start, end) if end > start else None
        if match is None and (start, end) != (0, len(text)):
            match = last_match(pattern, text)
        if match is not None:
            matches.append(match)
    return max(matches, key=lambda m: m.start()) if matches else None


def _lines_around(text: str, position: int) -> tuple[int, int]:
    """Start and end of the line at ``position`` with the line before and the line after it."""
    start = text.rfind("\n", 0, max(text.rfind("\n", 0, position), 0)) + 1
    line_end = text.find("\n", position)
    end = -1 if line_end == -1 else text.find("\n", line_end + 1)
    return start, len(text) if end == -1 else end


def _last_in(pattern: re.Pattern[str], text: str, start: int, end: int) -> re.Match[str] | None:
    tail = collections.deque(pattern.finditer(text, start, end), maxlen=1)
    return tail[0] if tail else None


@dataclass(frozen=True)
class Explanation:
    """One recognised message: what it is, the line where it was seen, the cause, the evidence, the fix."""

    id: str
    title: str
    line: str
    """The line of the text where the message was recognised."""
    position: int
    evidence: tuple[str, ...]
    cause: str
    fix: Fix
    check: str | None

    @property
    def check_command(self) -> str | None:
        return f"torchdoctor check --only {self.check}" if self.check else None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "matched": self.line,
            "position": self.position,
            "cause": self.cause,
            "evidence": list(self.evidence),
            "fix": self.fix.to_json(),
            "check": self.check,
            "check_command": self.check_command,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Explanation:
        fix = Fix.from_json(data["fix"])
        if fix is None:
            raise ValueError("an explanation has a fix")
        return cls(
            id=str(data["id"]),
            title=str(data["title"]),
            line=str(data["matched"]),
            position=int(data["position"]),
            evidence=tuple(str(e) for e in data.get("evidence") or ()),
            cause=str(data["cause"]),
            fix=fix,
            check=None if data.get("check") is None else str(data["check"]),
        )
