"""How big a pickle of plain data is once built, found before anything is built.

A pickle can be tiny and build something enormous: an object referenced many times through the memo (a
1 MiB string reused 20,000 times is 20 GiB when written out), or tuples nested through shared references
(60 levels of a pair of the previous level, whose hash alone takes 2**60 steps when one is a dict key).
This module reads the opcodes (``pickletools.genops``, no object is made) with a small stack machine that
tracks the size each object would have when expanded, and refuses the pickle as soon as it would pass the
budget, names a class or callable, or uses a composite dict key. What it accepts, the unpickler can then
build in time and memory proportional to the budget. (A pickle that refers to an object inside itself
builds a cycle of bounded size; the snapshot's shape check refuses it.)
"""

from __future__ import annotations

import io
import pickletools
from dataclasses import dataclass

MAX_NODES = 50_000_000
"""Objects in the expanded snapshot (a snapshot of a big job with its allocation history: a few million)."""
MAX_CHARS = 2**30
"""Characters and bytes in the expanded snapshot's strings."""

_SCALAR_OPCODES = frozenset(
    {"NONE", "NEWTRUE", "NEWFALSE", "INT", "BININT", "BININT1", "BININT2", "LONG", "LONG1", "LONG4"}
    | {"FLOAT", "BINFLOAT"}
)
_TEXT_OPCODES = frozenset(
    {"STRING", "BINSTRING", "SHORT_BINSTRING", "UNICODE", "BINUNICODE", "SHORT_BINUNICODE", "BINUNICODE8"}
    | {"BINBYTES", "SHORT_BINBYTES", "BINBYTES8", "BYTEARRAY8"}
)
_EMPTY_OPCODES = {"EMPTY_LIST": "list", "EMPTY_DICT": "dict", "EMPTY_TUPLE": "tuple", "EMPTY_SET": "set"}
_FROM_MARK = {"LIST": "list", "TUPLE": "tuple", "DICT": "dict", "FROZENSET": "frozenset"}
_SMALL_TUPLES = {"TUPLE1": 1, "TUPLE2": 2, "TUPLE3": 3}
_MEMO_PUTS = frozenset({"PUT", "BINPUT", "LONG_BINPUT", "MEMOIZE"})
_MEMO_GETS = frozenset({"GET", "BINGET", "LONG_BINGET"})
_IGNORED = frozenset({"PROTO", "FRAME", "STOP"})
_CALLABLES = frozenset({"GLOBAL", "STACK_GLOBAL", "INST", "OBJ", "REDUCE", "NEWOBJ", "NEWOBJ_EX", "BUILD"})


class PickleRefused(ValueError):
    """A pickle that is not plain data of a bounded size; the message says what it holds."""

    def __init__(self, message: str, names_code: bool = False) -> None:
        super().__init__(message)
        self.names_code = names_code
        """It names a class or callable: the way a pickle runs code."""


@dataclass(eq=False)
class _Node:
    kind: str
    size: int = 1
    chars: int = 0
    scalar: bool = True
    text: str | None = None
    """A short string's own text, for naming what STACK_GLOBAL looks up."""


_MARK = _Node("mark")


@dataclass
class _Budget:
    nodes: int = 0
    chars: int = 0

    def spend(self, node: _Node) -> None:
        self.nodes += node.size
        self.chars += node.chars
        if self.nodes > MAX_NODES:
            raise PickleRefused(
                f"it would build more than {MAX_NODES:,} objects once its references are expanded"
            )
        if self.chars > MAX_CHARS:
            raise PickleRefused(
                f"it would hold more than {MAX_CHARS // 2**20:,} MiB of text once its references are expanded"
            )


def check(data: bytes) -> None:
    """Raise PickleRefused unless ``data`` is a pickle of plain data within the budget; a pickle that is
    cut off or malformed is left to the unpickler, which says so."""
    stack: list[_Node] = []
    memo: dict[int, _Node] = {}
    budget = _Budget()
    try:
        for opcode, arg, _position in pickletools.genops(io.BytesIO(data)):
            _step(opcode.name, arg, stack, memo, budget)
    except PickleRefused:
        raise
    except (ValueError, IndexError, KeyError):  # cut off or malformed: the unpickler says which
        return


def _step(name: str, arg: object, stack: list[_Node], memo: dict[int, _Node], budget: _Budget) -> None:
    if name in _IGNORED:
        return
    if name in _CALLABLES:
        what = _callable_name(name, arg, stack)
        raise PickleRefused(f"it names the class or callable {what}", names_code=True)
    if name in _SCALAR_OPCODES or name in _TEXT_OPCODES:
        chars = len(arg) if isinstance(arg, str | bytes | bytearray) else 0
        text = arg if isinstance(arg, str) and chars <= 200 else None
        _push(stack, _Node("scalar", chars=chars, text=text), budget)
    elif name in _EMPTY_OPCODES:
        _push(stack, _Node(_EMPTY_OPCODES[name], scalar=False), budget)
    elif name == "MARK":
        stack.append(_MARK)
    elif name in _FROM_MARK:
        items = _pop_to_mark(stack)
        if name == "DICT":
            _check_keys(items[0::2])
        node = _Node(_FROM_MARK[name], scalar=False)
        _grow(node, items)
        _push(stack, node, budget, counted=items)
    elif name in _SMALL_TUPLES:
        count = _SMALL_TUPLES[name]
        items = [stack.pop() for _ in range(count)][::-1]
        node = _Node("tuple", scalar=False)
        _grow(node, items)
        _push(stack, node, budget, counted=items)
    elif name in ("APPEND", "SETITEM"):
        items = [stack.pop() for _ in range(1 if name == "APPEND" else 2)][::-1]
        if name == "SETITEM":
            _check_keys(items[0::2])
        _grow(stack[-1], items)
    elif name in ("APPENDS", "SETITEMS", "ADDITEMS"):
        items = _pop_to_mark(stack)
        if name == "SETITEMS":
            _check_keys(items[0::2])
        _grow(stack[-1], items)
    elif name in _MEMO_PUTS:
        memo[len(memo) if name == "MEMOIZE" else int(arg)] = stack[-1]  # type: ignore[call-overload]
    elif name in _MEMO_GETS:
        node = memo[int(arg)]  # type: ignore[call-overload]
        budget.spend(node)
        stack.append(node)
    elif name == "POP":
        stack.pop()
    elif name == "POP_MARK":
        _pop_to_mark(stack)
    elif name == "DUP":
        budget.spend(stack[-1])
        stack.append(stack[-1])
    elif name in ("PERSID", "BINPERSID"):
        raise PickleRefused("it holds a persistent object reference", names_code=True)
    else:
        raise PickleRefused(f"it uses the opcode {name}, which plain data never needs")


def _push(stack: list[_Node], node: _Node, budget: _Budget, counted: list[_Node] | None = None) -> None:
    # Items already on the stack were paid for when pushed; only the new container's own node costs.
    budget.spend(_Node("scalar", chars=node.chars) if counted is None else _Node("scalar"))
    stack.append(node)


def _callable_name(name: str, arg: object, stack: list[_Node]) -> str:
    if isinstance(arg, str):  # GLOBAL and INST: "module name"
        return f"'{arg.replace(' ', '.')}'"
    if name == "STACK_GLOBAL" and len(stack) >= 2 and stack[-2].text and stack[-1].text:
        return f"'{stack[-2].text}.{stack[-1].text}'"
    return "that builds an object"


def _grow(container: _Node, items: list[_Node]) -> None:
    container.size += sum(item.size for item in items)
    container.chars += sum(item.chars for item in items)


def _pop_to_mark(stack: list[_Node]) -> list[_Node]:
    items: list[_Node] = []
    while True:
        node = stack.pop()
        if node is _MARK:
            return items[::-1]
        items.append(node)


def _check_keys(keys: list[_Node]) -> None:
    for key in keys:
        if not key.scalar:
            raise PickleRefused(f"it has a dict key that is a {key.kind}; a snapshot's keys are names")
