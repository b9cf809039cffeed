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

    def assume_star_exports(self, bound: Container[str]) -> None:
        """After ``from model import *``, ``torch``, ``nn`` and ``F`` that nothing else binds are torch's (a
        file that uses them unbound gets them from the star import, and they mean the usual modules)."""
        if not self.star:
            return
        for name, target in (("torch", "torch"), ("nn", "torch.nn"), ("F", "torch.nn.functional")):
            if name not in self.aliases and name not in bound:
                self.aliases[name] = target

    def add(self, node: ast.Import | ast.ImportFrom) -> None:
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
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        base = self.aliases.get(node.id)
        if base is None:
            return None
        parts.append(base)
        return canonical(".".join(reversed(parts)))

    def aliases_of(self, qualname: str) -> set[str]:
        """The local names bound directly to ``qualname`` (``DDP`` for DistributedDataParallel)."""
        return {alias for alias, target in self.aliases.items() if canonical(target) == qualname}
