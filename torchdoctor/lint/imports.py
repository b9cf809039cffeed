"""The names a file binds with import statements, and the qualified name an expression spells."""

from __future__ import annotations

import ast
from collections.abc import Container

from torchdoctor.lint.torchapi import canonical


class ImportTable:
    """Local alias -> qualified name, file-wide (an import inside a function counts too).

    ``package`` is the package the file belongs to (``pkg.sub`` for ``pkg/sub/mod.py`` and for
    ``pkg/sub/__init__.py``), which relative imports start from; None when it is not known (then a relative
    import names nothing)."""

    def __init__(self, package: str | None = None) -> None:
        self.aliases: dict[str, str] = {}
        self.package = package
        self.star = False  # a `from x import *`: names may come from there
        self.star_modules: list[str] = []  # the modules of those imports, in the file's order
        self._by_target: tuple[int, dict[str, set[str]]] | None = None  # (len(aliases) when built, map)

    def assume_star_exports(self, bound: Container[str]) -> None:
        """After ``from model import *``, ``torch``, ``nn`` and ``F`` that nothing else binds are torch's (a
        file that uses them unbound gets them from the star import, and they mean the usual modules)."""
        if not self.star:
            return
        for name, target in (("torch", "torch"), ("nn", "torch.nn"), ("F", "torch.nn.functional")):
            if name not in self.aliases and name not in bound:
                self.aliases[name] = target

    def add(self, node: ast.Import | ast.ImportFrom) -> None:
        self._by_target = None
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.aliases[alias.asname] = alias.name
                else:
                    top = alias.name.split(".", 1)[0]
                    self.aliases[top] = top
            return
        base = self._absolute(node)
        if base is None:
            return
        for alias in node.names:
            if alias.name == "*":
                self.star = True
                if base:
                    self.star_modules.append(base)
            else:
                self.aliases[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name

    def _absolute(self, node: ast.ImportFrom) -> str | None:
        """The module a ``from ... import`` names, relative imports resolved against the package."""
        if not node.level:
            return node.module or None
        if self.package is None:
            return None
        parts = self.package.split(".") if self.package else []
        if node.level - 1 > len(parts):
            return None  # beyond the top-level package
        parts = parts[: len(parts) - (node.level - 1)]
        if node.module:
            parts.append(node.module)
        return ".".join(parts)

    def qualname(self, node: ast.expr) -> str | None:
        """``nn.Linear`` -> ``torch.nn.Linear`` when ``nn`` is ``torch.nn``; None for anything else."""
        if type(node) is ast.Name:
            base = self.aliases.get(node.id)
            return None if base is None else canonical(base)
        parts: list[str] = []
        while type(node) is ast.Attribute:
            parts.append(node.attr)  # type: ignore[attr-defined]
            node = node.value  # type: ignore[attr-defined]
        if type(node) is not ast.Name:
            return None
        base = self.aliases.get(node.id)  # type: ignore[attr-defined]
        if base is None:
            return None
        parts.append(base)
        return canonical(".".join(reversed(parts)))

    def aliases_of(self, qualname: str) -> set[str]:
        """The local names bound directly to ``qualname`` (``DDP`` for DistributedDataParallel)."""
        if self._by_target is None or self._by_target[0] != len(self.aliases):
            by_target: dict[str, set[str]] = {}
            for alias, target in self.aliases.items():
                by_target.setdefault(canonical(target), set()).add(alias)
            self._by_target = (len(self.aliases), by_target)
        return self._by_target[1].get(qualname, set())
