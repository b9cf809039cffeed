"""The classes a file defines: lookup by name, their local base classes, which ones are nn.Modules."""

from __future__ import annotations

import ast

from torchdoctor.lint.scan import ClassInfo, FileFacts, FunctionNode
from torchdoctor.lint.torchapi import LIGHTNING_MODULES, layer_name


class ClassTable:
    def __init__(self, facts: FileFacts) -> None:
        self.facts = facts
        self._modules: dict[ClassInfo, bool] = {}

    def unique(self, name: str) -> ClassInfo | None:
        """The class defined under ``name``, when exactly one is and no function shares the name."""
        found = self.facts.classes.get(name, ())
        if len(found) != 1 or name in self.facts.functions:
            return None
        return found[0]

    def local_bases(self, cls: ClassInfo) -> list[ClassInfo]:
        bases = []
        for base in cls.node.bases:
            if isinstance(base, ast.Name):
                found = self.unique(base.id)
                if found is not None and found is not cls:
                    bases.append(found)
        return bases

    def lineage(self, cls: ClassInfo) -> list[ClassInfo]:
        """``cls`` and its local ancestors, nearest first."""
        seen = [cls]
        index = 0
        while index < len(seen):
            for base in self.local_bases(seen[index]):
                if base not in seen:
                    seen.append(base)
            index += 1
        return seen

    def method(self, cls: ClassInfo, name: str) -> FunctionNode | None:
        for owner in self.lineage(cls):
            if name in owner.methods:
                return owner.methods[name]
        return None

    def is_module(self, cls: ClassInfo) -> bool:
        """Whether ``cls`` derives from torch.nn.Module (through torch.nn layers or local classes)."""
        known = self._modules.get(cls)
        if known is not None:
            return known
        self._modules[cls] = False  # a cycle of local bases is not a module
        result = False
        imports = self.facts.imports
        for base in cls.node.bases:
            qualname = imports.qualname(base)
            if qualname is not None and (
                qualname == "torch.nn.Module" or layer_name(qualname) or qualname in LIGHTNING_MODULES
            ):
                result = True
                break
        if not result:
            result = any(self.is_module(base) for base in self.local_bases(cls))
        self._modules[cls] = result
        return result
