"""Whether one statement surely runs before another in the same function body: ``torch.save(m, path)`` then
``torch.load(path)``. Structured code only: a statement runs before the later statements of its block and of
the blocks around it; the body of a loop, a ``with`` or a ``try`` is taken to run (a training loop that saves
every epoch), the branches of an ``if`` or a ``match`` and the handlers of a ``try`` are not."""

from __future__ import annotations

import ast
from collections.abc import Iterator

# (block, position of the statement in it, whether entering the block is certain)
Step = tuple[int, int, bool]

_CERTAIN_BLOCKS = {
    ast.For: ("body",),
    ast.AsyncFor: ("body",),
    ast.While: ("body",),
    ast.With: ("body",),
    ast.AsyncWith: ("body",),
    ast.Try: ("body", "finalbody"),
}


class Paths:
    """For every node of a function body, the chain of statement positions that leads to it."""

    def __init__(self, body: list[ast.stmt]) -> None:
        self._chains: dict[ast.AST, tuple[Step, ...]] = {}
        self._blocks = 0
        pending: list[tuple[list[ast.stmt], tuple[Step, ...], bool]] = [(body, (), True)]
        while pending:
            statements, chain, certain = pending.pop()
            block = self._blocks
            self._blocks += 1
            for index, statement in enumerate(statements):
                here = (*chain, (block, index, certain))
                for node in _own_nodes(statement):
                    self._chains[node] = here
                for child, sure in _blocks_of(statement):
                    pending.append((child, here, sure))

    def before(self, first: ast.AST, second: ast.AST) -> bool:
        """Whether ``first`` surely runs, and runs before ``second`` does."""
        a = self._chains.get(first)
        b = self._chains.get(second)
        if a is None or b is None:
            return False
        common = 0
        while common < min(len(a), len(b)) and a[common] == b[common]:
            common += 1
        if common == len(a) or common == len(b):
            return False  # one contains the other
        if a[common][0] != b[common][0] or a[common][1] >= b[common][1]:
            return False  # another block, or not earlier
        return all(certain for _, _, certain in a[common + 1 :])


def _blocks_of(statement: ast.stmt) -> Iterator[tuple[list[ast.stmt], bool]]:
    certain = _CERTAIN_BLOCKS.get(type(statement), ())
    for name in ("body", "orelse", "finalbody", "handlers"):
        value = getattr(statement, name, None)
        if not isinstance(value, list) or not value:
            continue
        if name == "handlers":
            for handler in value:
                yield handler.body, False
        elif isinstance(value[0], ast.stmt):
            yield value, name in certain
    if isinstance(statement, ast.Match):
        for case in statement.cases:
            yield case.body, False


def _own_nodes(statement: ast.stmt) -> Iterator[ast.AST]:
    """The nodes of a statement outside its nested blocks and nested definitions."""
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        yield node
        for name, value in ast.iter_fields(node):
            if node is statement and name in ("body", "orelse", "finalbody", "handlers", "cases"):
                continue
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda) and (
                node is not statement or name in ("body",)
            ):
                continue
            if isinstance(value, list):
                stack.extend(item for item in value if isinstance(item, ast.AST))
            elif isinstance(value, ast.AST):
                stack.append(value)
