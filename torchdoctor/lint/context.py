"""Everything the checkers ask about one file, built from a single walk of its tree."""

from __future__ import annotations

import ast

from torchdoctor.lint.classes import ClassTable
from torchdoctor.lint.evidence import Usage, usages
from torchdoctor.lint.infer import Inference, Value, mentions
from torchdoctor.lint.loaders import LoaderInfo, find_loaders
from torchdoctor.lint.scan import CallSite, FileFacts, Scope, Where, scan


class FileContext:
    def __init__(self, tree: ast.Module) -> None:
        self.facts: FileFacts = scan(tree)
        self.imports = self.facts.imports
        self.classes = ClassTable(self.facts)
        self.loaders: dict[ast.Call, LoaderInfo] = find_loaders(self.facts)
        known = list(self.loaders.values())
        # A loop over `train_loader` (a parameter) iterates one of this file's loaders: when none of them pins
        # memory, which one does not matter.
        unpinned = known[0] if known and all(loader.pin_memory is False for loader in known) else None
        self.infer = Inference(self.facts, self.classes, self.loaders, unpinned)
        self._usages: dict[Scope, dict[str, Usage]] = {}

    def qualname(self, expr: ast.expr) -> str | None:
        return self.imports.qualname(expr)

    def value(self, expr: ast.expr, where: Where) -> Value:
        return self.infer.value(expr, where.scope)

    def tensor_by_usage(self, name: str, where: Where) -> bool:
        """Whether an unannotated parameter is a tensor by the way its function uses it (anything else bound
        to the name must be a tensor or derived from the name itself, like ``x = x[None, :]``)."""
        scope = self.infer.binding_scope(name, where.scope)
        if scope is None or scope.kind != "function":
            return False
        for binding, value in zip(scope.bindings[name], self.infer.binding_values(name, scope), strict=True):
            parameter = binding.how == "param" and binding.expr is None
            if not (value.is_tensor or parameter or mentions(binding.expr, name)):
                return False  # x = SomeClass(): an object, whatever methods it shares with tensors
        found = self._usages.get(scope)
        if found is None:
            found = self._usages[scope] = usages(scope.node, self.imports)
        usage = found.get(name)
        return usage is not None and usage.tensor_like

    def calls_to(self, qualname: str) -> list[CallSite]:
        """The calls of the function or class ``qualname``, however it was imported."""
        names = {qualname.rsplit(".", 1)[-1], *self.imports.aliases_of(qualname)}
        return [site for site in self.facts.calls_named(*names) if self.qualname(site.node.func) == qualname]


def dotted(expr: ast.expr) -> str | None:
    """``model`` or ``self.mask`` for a stored name; None for anything computed."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        return f"{expr.value.id}.{expr.attr}"
    return None


def keyword(call: ast.Call, name: str) -> ast.expr | None:
    for item in call.keywords:
        if item.arg == name:
            return item.value
    return None


def short_source(expr: ast.expr, limit: int = 40) -> str:
    text = ast.unparse(expr)
    return text if len(text) <= limit else text[: limit - 3] + "..."
