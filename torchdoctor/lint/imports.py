"""The names a file binds with import statements, and the qualified name an expression spells."""

from __future__ import annotations

import ast

from torchdoctor.lint.torchapi import canonical


class ImportTable:
    """Local alias -> qualified name, file-wide (an import inside a function counts too)."""

    def __init__(self) -> None:
        self.aliases: dict[str, str] = {}

    def add(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.aliases[alias.asname] = alias.name
                else:
                    top = alias.name.split(".", 1)[0]
                    self.aliases[top] = top
            return
        if node.level or not node.module:
            return  # a relative import names this project, never torch
        for alias in node.names:
            if alias.name != "*":
                self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"

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
