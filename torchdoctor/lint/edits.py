"""The one safe rewrite of a finding, as edits of the source text, and their application.

Positions are those of the syntax tree: 1-based lines counted as the tokenizer counts them, and columns in
UTF-8 bytes of the line. An edit replaces a span with pieces that are either new text or a copy of another
span of the original source (``x.to(d)`` -> ``x = x.to(d)`` copies ``x`` as written, quotes and spacing kept).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

Position = tuple[int, int]  # (line, UTF-8 byte column)
Span = tuple[Position, Position]
Piece = str | Span  # new text, or a span of the original source to copy


@dataclass(frozen=True)
class Edit:
    start: Position
    end: Position
    pieces: tuple[Piece, ...]


def start(node: ast.AST) -> Position:
    return (getattr(node, "lineno", 1), getattr(node, "col_offset", 0))


def end(node: ast.AST) -> Position:
    return (getattr(node, "end_lineno", None) or 1, getattr(node, "end_col_offset", None) or 0)


def text(value: str) -> Piece:
    return value


def copy(node: ast.AST) -> Piece:
    return (start(node), end(node))


def insert(at: Position, *pieces: Piece) -> Edit:
    return Edit(at, at, pieces)


def replace(node: ast.AST, *pieces: Piece) -> Edit:
    return Edit(start(node), end(node), pieces)


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)?")


class Source:
    """A source text with positions turned into string offsets."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts: list[int] = []
        offset = 0
        for match in _LINE.finditer(text):
            if not match.group() and match.start() == len(text) and self.starts:
                break
            self.starts.append(offset)
            offset = match.end()

    def offset(self, position: Position) -> int:
        line, column = position
        if not 1 <= line <= len(self.starts):
            raise ValueError(f"line {line} is not in the file")
        begin = self.starts[line - 1]
        stop = self.starts[line] if line < len(self.starts) else len(self.text)
        encoded = self.text[begin:stop].encode("utf-8", "surrogatepass")
        if column > len(encoded):
            raise ValueError(f"column {column} is past the end of line {line}")
        return begin + len(encoded[:column].decode("utf-8", "surrogatepass"))

    def span(self, first: Position, last: Position) -> str:
        return self.text[self.offset(first) : self.offset(last)]


def apply(source: str, edits: list[Edit]) -> tuple[str, list[Edit]]:
    """The text with the edits that do not overlap an earlier one applied, and those applied."""
    document = Source(source)
    chosen: list[tuple[int, int, str, Edit]] = []
    for edit in sorted(set(edits), key=lambda edit: (edit.start, edit.end, repr(edit.pieces))):
        begin, stop = document.offset(edit.start), document.offset(edit.end)
        if chosen and begin < chosen[-1][1]:
            continue  # overlaps the previous edit: the next round applies it, if it still applies
        if chosen and begin == chosen[-1][0] == chosen[-1][1] and begin == stop:
            continue  # two insertions at one place
        replacement = "".join(
            piece if isinstance(piece, str) else document.span(*piece) for piece in edit.pieces
        )
        chosen.append((begin, stop, replacement, edit))
    pieces = []
    last = 0
    for begin, stop, replacement, _ in chosen:
        pieces += [source[last:begin], replacement]
        last = stop
    pieces.append(source[last:])
    return "".join(pieces), [edit for *_, edit in chosen]
