"""Which function of this file a call runs, and the closures over those calls: everything ``forward()``
reaches, everything that reaches a function (its callers, theirs, ...).

A call counts when its target is certain: ``helper(x)`` naming one function of this file, ``self.method()``
and ``obj.method()`` on an instance of a class of this file, ``Batch(src, trg)`` running ``Batch.__init__``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from torchdoctor.lint.classes import ClassTable
from torchdoctor.lint.infer import Inference, Kind
from torchdoctor.lint.scan import CallSite, FileFacts, Scope, enclosing_function


class CallGraph:
    def __init__(self, facts: FileFacts, classes: ClassTable, infer: Inference) -> None:
        self.facts = facts
        self.classes = classes
        self.infer = infer
        self._callee: dict[ast.Call, ast.AST | None] = {}
        self._callers: dict[str, list[CallSite]] | None = None

    def callee(self, site: CallSite) -> ast.AST | None:
        """The function of this file the call runs (a class's ``__init__`` for ``Cls(...)``), or None."""
        call = site.node
        if call in self._callee:
            return self._callee[call]
        found = self._resolve(site)
        self._callee[call] = found
        return found

    def _resolve(self, site: CallSite) -> ast.AST | None:
        func = site.node.func
        scope = site.where.scope
        if isinstance(func, ast.Name):
            cls = self.classes.unique(func.id)
            if cls is not None:
                return self.classes.method(cls, "__init__")
            return self.infer.local_function(func.id, scope)
        if not isinstance(func, ast.Attribute):
            return None
        if isinstance(func.value, ast.Name | ast.Attribute):  # model.fit(), self.cell.init_hidden()
            receiver = self.infer.value(func.value, scope)
            if receiver.kind in (Kind.SELF, Kind.OBJECT, Kind.MODULE) and receiver.cls is not None:
                return self.classes.method(receiver.cls, func.attr)
        return self._computed_attribute_method(func, scope)

    def _computed_attribute_method(self, func: ast.Attribute, scope: Scope) -> ast.AST | None:
        """``getattr(self, name).init_hidden(...)``: the one ``init_hidden`` of the classes of this file that
        the class builds in its ``__init__`` (``setattr(self, name, Cell(...))``)."""
        call = func.value
        if not (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id == "getattr"
            and len(call.args) >= 2
            and isinstance(call.args[0], ast.Name)
            and call.args[0].id == scope.self_name
            and scope.owner is not None
        ):
            return None
        init = scope.owner.methods.get("__init__")
        if init is None:
            return None
        found = set()
        for site in self.calls_in(init):
            built = site.node.func
            cls = self.classes.unique(built.id) if isinstance(built, ast.Name) else None
            method = self.classes.method(cls, func.attr) if cls is not None else None
            if method is not None:
                found.add(method)
        return found.pop() if len(found) == 1 else None

    def calls_in(self, function: ast.AST) -> list[CallSite]:
        return self.facts.calls_in.get(function, [])

    def reachable(self, roots: Iterable[ast.AST]) -> set[ast.AST]:
        """The roots and every function of this file they call, transitively."""
        seen = set(roots)
        pending = list(seen)
        while pending:
            function = pending.pop()
            for site in self.calls_in(function):
                callee = self.callee(site)
                if callee is not None and callee not in seen:
                    seen.add(callee)
                    pending.append(callee)
        return seen

    def callers(self, function: ast.AST) -> list[CallSite]:
        """The calls of this file that run ``function``."""
        name = getattr(function, "name", None)
        if not isinstance(name, str):
            return []
        names = [name]
        if name == "__init__":
            names = [
                cls.name
                for classes in self.facts.classes.values()
                for cls in classes
                if self.classes.method(cls, "__init__") is function
            ]
        return [site for site in self.facts.calls_named(*names) if self.callee(site) is function]

    def reaching(self, function: ast.AST) -> set[ast.AST]:
        """``function`` and every function of this file that calls it, transitively (lambdas included)."""
        seen = {function}
        pending = [function]
        while pending:
            current = pending.pop()
            for site in self.callers(current):
                caller = enclosing_function(site.where.scope).node
                if caller not in seen and not isinstance(caller, ast.Module):
                    seen.add(caller)
                    pending.append(caller)
        return seen
