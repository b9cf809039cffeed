"""Duck typing for names the inference cannot type (a function's parameters): how the function uses a name.

A name is taken for a tensor when the function uses it as only a tensor (or an array) can be used, with
``.shape``, ``.unsqueeze()``, ``x[:, 0]``, ``x - y`` or ``torch.is_tensor(x)``, and never as a module or
another object would be: called, or with an attribute tensors do not have (``model.fc``, ``.parameters()``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from torchdoctor.lint.imports import ImportTable
from torchdoctor.lint.torchapi import TENSOR_ATTRIBUTES, TENSOR_METHODS, TENSOR_ONLY

# Attributes that tensors share with other objects that have a .to() (modules, BatchEncoding): no evidence.
_NEUTRAL = TENSOR_METHODS | TENSOR_ATTRIBUTES | frozenset({"device", "dtype", "requires_grad", "backward"})
_ARITHMETIC = (ast.Sub, ast.Div, ast.FloorDiv, ast.Pow, ast.MatMult, ast.Mult)


@dataclass
class Usage:
    tensor_uses: int = 0
    other_uses: int = 0  # called, or an attribute a tensor does not have

    @property
    def tensor_like(self) -> bool:
        return self.tensor_uses > 0 and self.other_uses == 0


def usages(
    function: ast.AST, imports: ImportTable, runs_module: Callable[[ast.Call, ast.AST], bool] | None = None
) -> dict[str, Usage]:
    """How each name is used in ``function`` (nested functions included). A name passed to a call that
    ``runs_module`` says runs an nn.Module (``self.model(x)``) is that module's input: a tensor."""
    found: dict[str, Usage] = {}

    def note(node: ast.expr, tensor: bool) -> None:
        if isinstance(node, ast.Name):
            usage = found.setdefault(node.id, Usage())
            if tensor:
                usage.tensor_uses += 1
            else:
                usage.other_uses += 1

    for node in ast.walk(function):
        if isinstance(node, ast.Attribute):
            if node.attr in TENSOR_ONLY:
                note(node.value, True)
            elif node.attr not in _NEUTRAL:
                note(node.value, False)
        elif isinstance(node, ast.Call):
            note(node.func, False)
            if node.args and _is_tensor_test(node, imports):
                note(node.args[0], True)
            elif (
                runs_module is not None
                and any(isinstance(arg, ast.Name) for arg in node.args)
                and runs_module(node, function)
            ):
                for arg in node.args:
                    note(arg, True)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, _ARITHMETIC):
            note(node.left, True)
            note(node.right, True)
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple | ast.Slice):
            note(node.value, True)
    return found


def _is_tensor_test(call: ast.Call, imports: ImportTable) -> bool:
    """``torch.is_tensor(x)`` or ``isinstance(x, torch.Tensor)``."""
    qualname = imports.qualname(call.func)
    if qualname == "torch.is_tensor":
        return True
    if isinstance(call.func, ast.Name) and call.func.id == "isinstance" and len(call.args) == 2:
        return imports.qualname(call.args[1]) == "torch.Tensor"
    return False
