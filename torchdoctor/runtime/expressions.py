"""The operation that failed in a frame and its operands, read from the source and from the frame's variables
without running anything.

Python 3.11 and later record, for every instruction, the columns of the expression it belongs to (the ones
tracebacks underline): the instruction that raised names the exact sub-expression (``x * self.scale`` inside a
longer line, inside a ``with`` block). Older Pythons give only the line; then every operand on the line is
read. Only names, attributes found without running code (instance and class dictionaries, a module's
parameters, buffers and submodules), constant subscripts of lists, tuples and dicts, and constants are
evaluated: never a call, a property or an operator.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import itertools
import linecache
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from torchdoctor.output.wording import clipped

MAX_SOURCE_BYTES = 4 * 2**20
"""A source file larger than this is not parsed."""
MAX_TEXT = 120
MAX_ITEMS = 16
"""Elements of a list or tuple operand looked at (torch.cat([...]))."""
_MISSING: Any = object()
_PREFERRED = (ast.Call, ast.BinOp, ast.Subscript, ast.Compare, ast.UnaryOp, ast.AugAssign)


def positions(code: types.CodeType, offset: int) -> tuple[int, int, int, int] | None:
    """(line, end line, column, end column) of the instruction at byte ``offset``; None before Python 3.11
    or where the compiler recorded none."""
    co_positions = getattr(code, "co_positions", None)
    if co_positions is None or offset < 0:
        return None
    found = next(itertools.islice(co_positions(), offset // 2, None), None)
    if found is None or None in found:
        return None
    return found  # type: ignore[no-any-return]


def _lines(filename: str, module_globals: dict[str, Any] | None) -> list[str]:
    lines = linecache.getlines(filename, module_globals)
    return lines if sum(len(line) for line in lines) <= MAX_SOURCE_BYTES else []


_TREES: dict[str, tuple[tuple[str, ...], ast.Module | None]] = {}


def _tree(filename: str, module_globals: dict[str, Any] | None) -> ast.Module | None:
    lines = tuple(_lines(filename, module_globals))
    cached = _TREES.get(filename)
    if cached is not None and cached[0] == lines:
        return cached[1]
    try:
        tree: ast.Module | None = ast.parse("".join(lines)) if lines else None
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        tree = None
    _TREES[filename] = (lines, tree)
    return tree


def _span(node: ast.AST) -> tuple[int, int, int, int] | None:
    end_line, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
    if end_line is None or end_col is None or not hasattr(node, "lineno"):
        return None
    return (node.lineno, end_line, node.col_offset, end_col)  # type: ignore[attr-defined]


def failing_node(frame: types.FrameType, offset: int, line: int) -> ast.AST | None:
    """The expression whose instruction at ``offset`` raised in ``frame``; where the columns are not known,
    the innermost statement of ``line``."""
    tree = _tree(frame.f_code.co_filename, frame.f_globals)
    if tree is None:
        return None
    where = positions(frame.f_code, offset)
    if where is not None:
        matching = [node for node in ast.walk(tree) if _span(node) == where]
        for kind in _PREFERRED:
            for node in matching:
                if isinstance(node, kind):
                    return node
        if matching:
            return matching[0]
    statements = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.stmt)
        and not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and node.lineno <= line <= (node.end_lineno or node.lineno)
    ]
    return min(statements, key=lambda n: (n.end_lineno or n.lineno) - n.lineno, default=None)


def text(node: ast.AST) -> str:
    try:
        shown = ast.unparse(node)
    except (ValueError, RecursionError):
        return "?"
    shown = " ".join(shown.split())
    return clipped(shown, MAX_TEXT)


def call_text(frame: types.FrameType) -> str | None:
    """The source text of the call ``frame`` is making now (``y.to(device)``)."""
    where = positions(frame.f_code, frame.f_lasti)
    lines = _lines(frame.f_code.co_filename, frame.f_globals)
    if where is None:
        number = frame.f_lineno or 0
        return " ".join(lines[number - 1].split())[:MAX_TEXT] if 0 < number <= len(lines) else None
    first, last, start, end = where
    if not 0 < first <= last <= len(lines):
        return None
    encoded = [line.encode("utf-8") for line in lines[first - 1 : last]]
    if len(encoded) == 1:
        piece = encoded[0][start:end]
    else:
        piece = b"".join([encoded[0][start:], *encoded[1:-1], encoded[-1][:end]])
    shown = " ".join(piece.decode("utf-8", errors="replace").split())
    return shown[:MAX_TEXT] if shown else None


def statement_tensors(reader: Reader, frame: types.FrameType, node: ast.AST) -> list[tuple[str, Any]]:
    """The tensors the names, attributes and subscripts of the statement around ``node`` hold, read without
    running anything (the next operations of a line that failed at its first)."""
    tree = _tree(frame.f_code.co_filename, frame.f_globals)
    where = _span(node)
    if tree is None or where is None:
        return []
    around = [
        s
        for s in ast.walk(tree)
        if isinstance(s, ast.stmt)
        and not isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.For | ast.While)
        and not isinstance(s, ast.If | ast.With | ast.Try)
        and s.lineno <= where[0]
        and where[1] <= (s.end_lineno or s.lineno)
    ]
    statement = min(around, key=lambda s: (s.end_lineno or s.lineno) - s.lineno, default=None)
    found: list[tuple[str, Any]] = []
    # An index may stay on the CPU (a CUDA tensor indexed by a CPU tensor is fine): what is inside a subscript
    # is not an operand of the next operation.
    indices = (
        {
            id(inner)
            for s in ast.walk(statement)
            if isinstance(s, ast.Subscript)
            for inner in ast.walk(s.slice)
        }
        if statement is not None
        else set()
    )
    for sub in ast.walk(statement) if statement is not None else ():
        if id(sub) in indices:
            continue
        if isinstance(sub, ast.Name | ast.Attribute | ast.Subscript) and isinstance(sub.ctx, ast.Load):
            value = reader.evaluate(sub)
            if value is not _MISSING and reader.is_tensor(value):
                found.append((text(sub), value))
                if len(found) >= MAX_ITEMS:
                    break
    return found


def kept_result(frame: types.FrameType) -> str | None:
    """The statement that keeps the result of the call ``frame`` is making now, whose result is thrown away
    (``x.to(device)`` on a line of its own): ``x = x.to(device)``; ``batch[key] = value.to(device)`` where
    the receiver is the value of a ``for key, value in batch.items()`` loop (assigning the loop variable would
    not change the dict). None where no single statement of that shape is right (a loop over a list, a
    receiver that is a call)."""
    tree = _tree(frame.f_code.co_filename, frame.f_globals)
    where = positions(frame.f_code, frame.f_lasti)
    if tree is None or where is None:
        return None
    call = next((n for n in ast.walk(tree) if isinstance(n, ast.Call) and _span(n) == where), None)
    if call is None or not isinstance(call.func, ast.Attribute):
        return None
    receiver = call.func.value
    shown = text(call)
    if isinstance(receiver, ast.Name):
        loop = _enclosing_loop(tree, receiver.id, where[0])
        if loop is None:
            return f"{receiver.id} = {shown}"
        return _kept_in_loop(loop, receiver.id, shown)
    if isinstance(receiver, ast.Attribute | ast.Subscript) and not _calls(receiver):
        return f"{text(receiver)} = {shown}"
    return None


def _calls(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) for n in ast.walk(node))


def _enclosing_loop(tree: ast.Module, name: str, line: int) -> ast.For | None:
    """The innermost ``for`` loop around ``line`` whose target binds ``name``."""
    loops = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.For | ast.AsyncFor)
        and node.body
        and node.body[0].lineno <= line <= (node.end_lineno or node.lineno)
        and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node.target))
    ]
    return max(loops, key=lambda node: node.lineno, default=None)  # type: ignore[return-value]


def _kept_in_loop(loop: ast.For, name: str, shown: str) -> str | None:
    """``mapping[key] = ...`` for the value of ``for key, value in mapping.items()``; None for other loops."""
    source = loop.iter
    target = loop.target
    if (
        isinstance(source, ast.Call)
        and isinstance(source.func, ast.Attribute)
        and source.func.attr == "items"
        and not source.args
        and not _calls(source.func.value)
        and isinstance(target, ast.Tuple)
        and len(target.elts) == 2
        and all(isinstance(e, ast.Name) for e in target.elts)
        and target.elts[1].id == name  # type: ignore[attr-defined]
    ):
        key = target.elts[0].id  # type: ignore[attr-defined]
        return f"{text(source.func.value)}[{key}] = {shown}"
    return None


@dataclass
class Part:
    """One operand of the failing operation: its source text and the tensors or modules it was made from."""

    expression: str
    leaves: list[tuple[str, Any]] = field(default_factory=list)


class Reader:
    """Reads operands in one frame; ``is_tensor``, ``is_module`` and ``is_torch`` classify values."""

    def __init__(
        self,
        frame: types.FrameType,
        is_tensor: Callable[[Any], bool],
        is_module: Callable[[Any], bool],
        is_torch: Callable[[Any], bool],
    ) -> None:
        self.locals = frame.f_locals
        self.globals = frame.f_globals
        self.is_tensor, self.is_module, self.is_torch = is_tensor, is_module, is_torch

    def parts(self, node: ast.AST) -> list[Part]:
        return [Part(text(child), list(self.leaves(child))) for child in self._operands(node)]

    def _operands(self, node: ast.AST) -> list[ast.AST]:
        if isinstance(node, ast.BinOp):
            return [node.left, node.right]
        if isinstance(node, ast.Compare):
            return [node.left, *node.comparators]
        if isinstance(node, ast.UnaryOp):
            return [node.operand]
        if isinstance(node, ast.AugAssign):
            return [node.target, node.value]
        if isinstance(node, ast.Subscript):
            return [node.value, node.slice]
        if isinstance(node, ast.Call):
            receiver = self._receiver(node)
            arguments: list[ast.AST] = [*node.args, *(k.value for k in node.keywords)]
            callee = self.evaluate(node.func)
            if receiver is not None:
                return [receiver, *arguments]
            if callee is not _MISSING and self.is_module(callee):
                return [node.func, *arguments]
            return arguments
        if isinstance(node, ast.Expr | ast.Assign | ast.AnnAssign | ast.Return) and node.value is not None:
            return self._operands(node.value)
        return [node]

    def _receiver(self, call: ast.Call) -> ast.AST | None:
        """``x`` in ``x.add(y)`` when ``x`` is a tensor."""
        if isinstance(call.func, ast.Attribute):
            value = self.evaluate(call.func.value)
            if value is not _MISSING and self.is_tensor(value):
                return call.func.value
        return None

    def leaves(self, node: ast.AST) -> Iterator[tuple[str, Any]]:
        """The tensors and modules an operand expression was computed from (the device of its result)."""
        value = self.evaluate(node)
        if value is not _MISSING:
            if self.is_tensor(value) or self.is_module(value):
                yield text(node), value
            elif isinstance(value, list | tuple):
                shown = text(node)
                for index, item in enumerate(value[:MAX_ITEMS]):
                    if self.is_tensor(item):
                        yield f"{shown}[{index}]", item
            return
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            for element in node.elts[:MAX_ITEMS]:
                yield from self.leaves(element)
        elif isinstance(node, ast.Starred):
            yield from self.leaves(node.value)
        elif isinstance(node, ast.BinOp):
            yield from self.leaves(node.left)
            yield from self.leaves(node.right)
        elif isinstance(node, ast.UnaryOp):
            yield from self.leaves(node.operand)
        elif isinstance(node, ast.Compare):
            for operand in [node.left, *node.comparators]:
                yield from self.leaves(operand)
        elif isinstance(node, ast.Subscript):
            yield from self.leaves(node.value)
        elif isinstance(node, ast.Call):
            receiver = self._receiver(node)
            callee = self.evaluate(node.func)
            if receiver is not None:
                yield from self.leaves(receiver)
            elif callee is not _MISSING and self.is_module(callee):
                yield text(node), callee
            elif callee is not _MISSING and self.is_torch(callee):
                for argument in [*node.args, *(k.value for k in node.keywords)]:
                    yield from self.leaves(argument)

    def evaluate(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Name):
            for namespace in (self.locals, self.globals):
                if node.id in namespace:
                    return namespace[node.id]
            return getattr(builtins, node.id, _MISSING)
        if isinstance(node, ast.Attribute):
            base = self.evaluate(node.value)
            return _MISSING if base is _MISSING else static_attribute(base, node.attr)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Subscript):
            base = self.evaluate(node.value)
            key = self.evaluate(node.slice)
            if base is _MISSING or key is _MISSING:
                return _MISSING
            return _item(base, key, self.is_module)
        return _MISSING


def static_attribute(obj: Any, name: str) -> Any:
    """``obj.name`` found without running code: the instance dictionary, a module's parameters, buffers and
    submodules, or a plain class attribute; never a property or a ``__getattr__``."""
    try:
        own = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        own = None
    if isinstance(own, dict):
        if name in own:
            return own[name]
        for table in ("_parameters", "_buffers", "_modules"):
            held = own.get(table)
            if isinstance(held, dict) and name in held:
                return held[name]
    if isinstance(obj, types.ModuleType):
        return _MISSING
    try:
        found = inspect.getattr_static(obj, name)
    except AttributeError:
        return _MISSING
    if isinstance(found, staticmethod | classmethod):
        return found.__func__
    if isinstance(found, property | types.GetSetDescriptorType | types.MemberDescriptorType):
        return _MISSING
    return found


def _item(base: Any, key: Any, is_module: Callable[[Any], bool]) -> Any:
    if type(base) in (list, tuple) and isinstance(key, int) and not isinstance(key, bool):
        return base[key] if -len(base) <= key < len(base) else _MISSING
    if type(base) is dict and isinstance(key, str | int):
        return base.get(key, _MISSING)
    if is_module(base):
        held = object.__getattribute__(base, "__dict__").get("_modules", {})
        return held.get(str(key), _MISSING)
    return _MISSING
