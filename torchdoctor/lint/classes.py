"""The classes a file defines: lookup by name, their local base classes, which ones are nn.Modules.

Every question about a class and its ancestors is a fold over the base classes, computed once per class
with an explicit stack: 2,000 classes that each derive from the previous one cost 2,000 steps, not 2,000
squared, and no recursion that a long chain could exhaust.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TypeVar

from torchdoctor.lint.scan import ClassInfo, FileFacts, FunctionNode
from torchdoctor.lint.torchapi import LIGHTNING_MODULES, layer_name

T = TypeVar("T")


class ClassTable:
    def __init__(self, facts: FileFacts) -> None:
        self.facts = facts
        self._bases: dict[ClassInfo, list[ClassInfo]] = {}
        self._modules: dict[ClassInfo, bool | None] = {}
        self._methods: dict[str, dict[ClassInfo, FunctionNode | None]] = {}
        self._dynamic: dict[ClassInfo, bool] = {}
        self._registered: dict[str, dict[ClassInfo, bool]] = {}
        self._external: dict[ClassInfo, tuple[str, ...]] = {}
        # A qualified name of a class outside this file -> whether it is an nn.Module (None: not known here).
        self.external_module: Callable[[str], bool | None] = lambda qualname: None

    def unique(self, name: str) -> ClassInfo | None:
        """The class defined under ``name``, when exactly one is and no function shares the name."""
        found = self.facts.classes.get(name, ())
        if len(found) != 1 or name in self.facts.functions:
            return None
        return found[0]

    def local_bases(self, cls: ClassInfo) -> list[ClassInfo]:
        known = self._bases.get(cls)
        if known is not None:
            return known
        bases = []
        for base in cls.node.bases:
            if isinstance(base, ast.Name):
                found = self.unique(base.id)
                if found is not None and found is not cls:
                    bases.append(found)
        self._bases[cls] = bases
        return bases

    def fold(
        self,
        cls: ClassInfo,
        memo: dict[ClassInfo, T],
        own: Callable[[ClassInfo, list[T]], T],
        cyclic: T,
    ) -> T:
        """``own(class, [the answers of its local bases])`` for ``cls``, computed bases first, each class once
        (``memo`` keeps the answers); a base reached again through a cycle answers ``cyclic``."""
        known = memo.get(cls)
        if known is not None or cls in memo:
            return memo[cls]
        stack: list[tuple[ClassInfo, bool]] = [(cls, False)]
        open_: set[ClassInfo] = set()
        while stack:
            node, ready = stack.pop()
            if node in memo:
                continue
            bases = self.local_bases(node)
            if ready:
                open_.discard(node)
                memo[node] = own(node, [memo.get(base, cyclic) for base in bases])
                continue
            open_.add(node)
            stack.append((node, True))
            stack.extend((base, False) for base in reversed(bases) if base not in memo and base not in open_)
        return memo[cls]

    def lineage(self, cls: ClassInfo) -> list[ClassInfo]:
        """``cls`` and its local ancestors, nearest first (for a report; the questions below use fold)."""
        seen = [cls]
        known = {cls}
        index = 0
        while index < len(seen):
            for base in self.local_bases(seen[index]):
                if base not in known:
                    known.add(base)
                    seen.append(base)
            index += 1
        return seen

    def method(self, cls: ClassInfo, name: str) -> FunctionNode | None:
        """The method ``name`` that ``cls`` has, defined by itself or inherited from a local base."""
        memo = self._methods.setdefault(name, {})

        def own(node: ClassInfo, inherited: list[FunctionNode | None]) -> FunctionNode | None:
            found = node.methods.get(name)
            return found if found is not None else next((m for m in inherited if m is not None), None)

        return self.fold(cls, memo, own, None)

    def dynamic_registration(self, cls: ClassInfo) -> bool:
        """Whether the class or a local ancestor registers buffers under computed names."""
        return self.fold(
            cls, self._dynamic, lambda node, bases: node.dynamic_registration or any(bases), False
        )

    def registered(self, cls: ClassInfo, attr: str) -> bool:
        """Whether the class or a local ancestor registers ``attr`` (register_buffer, register_parameter)."""
        memo = self._registered.setdefault(attr, {})
        return self.fold(cls, memo, lambda node, bases: attr in node.registered or any(bases), False)

    def external_bases(self, cls: ClassInfo) -> tuple[str, ...]:
        """The qualified names of the bases of ``cls`` defined outside this file (neither torch's nor
        builtins)."""
        known = self._external.get(cls)
        if known is None:
            names = []
            for base in cls.node.bases:
                qualname = self.facts.imports.qualname(base)
                if qualname is not None and not qualname.startswith("torch."):
                    names.append(qualname)
            known = self._external[cls] = tuple(names)
        return known

    def looks_like_module(self, cls: ClassInfo) -> bool:
        """Whether a class whose base comes from a file not linted behaves like an nn.Module: it defines
        forward(), registers buffers or parameters, or keeps torch.nn layers in its attributes."""
        if "forward" in cls.methods or cls.registered or cls.dynamic_registration:
            return True
        imports = self.facts.imports
        for sites in cls.attr_sites.values():
            for site in sites:
                expr = site.binding.expr
                if isinstance(expr, ast.Call) and layer_name(imports.qualname(expr.func) or ""):
                    return True
        return False

    def is_module(self, cls: ClassInfo) -> bool:
        """Whether ``cls`` derives from torch.nn.Module (through torch.nn layers or local classes)."""
        return self.module_status(cls) is True

    def module_status(self, cls: ClassInfo) -> bool | None:
        """True: an nn.Module; False: not one; None: only a base class of another file can tell."""
        imports = self.facts.imports

        def own(node: ClassInfo, bases: list[bool | None]) -> bool | None:
            for base in node.node.bases:
                qualname = imports.qualname(base)
                if qualname is not None and (
                    qualname == "torch.nn.Module" or layer_name(qualname) or qualname in LIGHTNING_MODULES
                ):
                    return True
            if any(base is True for base in bases):
                return True
            unknown = any(base is None for base in bases)
            for qualname in self.external_bases(node):
                answer = self.external_module(qualname)
                if answer is True:
                    return True
                unknown = unknown or answer is None
            return None if unknown else False

        return self.fold(cls, self._modules, own, False)
