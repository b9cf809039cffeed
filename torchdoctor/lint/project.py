"""The linted files as one project: an index of their modules built from their summaries, and the facts a
finding of one file needs from the others (the DataLoader that runs a Dataset's code in its workers, the base
class that makes a class an nn.Module, the helper that sets up the process group, ...).

Every file is parsed and analysed once; what crosses files goes through the summaries, so linting a project is
one pass over its files and a lookup per fact.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from torchdoctor.lint.findings import Fact, Finding, with_details
from torchdoctor.lint.summary import FileSummary, Location

# An argument a call passes: (position, keyword, pin_memory of its loader, the caller's parameter it came in
# through, the caller's file)
_Passed = tuple[int | None, str | None, bool | None, tuple[str, str, int | None] | None, FileSummary]

# How many re-exports (``from .data import Images`` in a package's __init__) a name is followed through, and
# how many files deep a chain of base classes is followed.
_MAX_HOPS = 16
# How many folders without __init__.py above a file's top-level package still name it (``sdf.utils``).
_NAMESPACE_LEVELS = 2


class Project:
    def __init__(self, summaries: Iterable[FileSummary]) -> None:
        self.files: dict[str, FileSummary] = {}
        self.modules: dict[str, list[FileSummary]] = {}
        namespaced: dict[str, list[FileSummary]] = {}
        for summary in summaries:
            self.files[summary.path] = summary
            module = summary.location.module
            if module:
                self.modules.setdefault(module, []).append(summary)
                for name in _namespace_names(summary.location):
                    namespaced.setdefault(name, []).append(summary)
        for name, found in namespaced.items():
            self.modules.setdefault(name, found)  # a regular package of that name wins
        self._loaders: tuple[dict[tuple[str, str], str], set[tuple[str, str]]] | None = None
        self._modules_memo: dict[tuple[str, str], bool | None] = {}
        self._loader_args: dict[tuple[str, str], list[_Passed]] | None = None
        self._forward: dict[tuple[str, str], str] | None = None

    # -- names -----------------------------------------------------------------------------------------------

    def resolve(self, owner: FileSummary, ref: str) -> tuple[FileSummary, str] | None:
        """The file and the name in it that ``ref``, written in ``owner``, means; None outside the project."""
        if ref.startswith(":"):
            return owner, ref[1:]
        if ref.startswith("*"):  # a name only a star import binds: the first of those modules that defines it
            for module in owner.star_modules:
                found = self.resolve(owner, f"{module}.{ref[1:]}")
                if found is not None:
                    return found
            return None
        qualname, root = ref, owner.location.root
        for _ in range(_MAX_HOPS):
            found = self._split(qualname, root)
            if found is None:
                return None
            target, local = found
            first, _, rest = local.partition(".")
            exported = target.exports.get(first)
            if exported is None or exported == qualname:
                # a name the module neither defines nor imports by name (a star import, a variable): unknown
                return (target, local) if first in target.defines else None
            qualname = f"{exported}.{rest}" if rest else exported  # re-exported: follow the import
            root = target.location.root
        return None

    def _split(self, qualname: str, root: str | None) -> tuple[FileSummary, str] | None:
        parts = qualname.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            candidates = self.modules.get(".".join(parts[:cut]))
            if not candidates:
                continue
            near = [summary for summary in candidates if summary.location.root == root]
            chosen = near if near else candidates
            if len(chosen) == 1:
                return chosen[0], ".".join(parts[cut:])
            return None  # two files could be meant
        return None

    # -- facts -----------------------------------------------------------------------------------------------

    def finish(self, owner: FileSummary, findings: Sequence[Finding]) -> list[Finding]:
        """The findings of one file whose facts hold, with the words the facts add: every one, two on one line
        included (``x, y = x.cuda(), y.cuda()`` is x's and y's), as ``--fix`` rewrites them all."""
        kept: dict[tuple[str, int, int, tuple[tuple[str, str], ...]], Finding] = {}
        for finding in sorted(findings):
            key = (finding.rule, finding.line, finding.col, finding.details)
            if key in kept:
                continue
            if not finding.requires:
                kept[key] = finding
                continue
            details: dict[str, str] = {}
            for fact in finding.requires:
                words = self.holds(owner, fact)
                if words is None:
                    break
                details.update(words)
            else:
                kept[key] = with_details(finding, **details)
        return list(kept.values())

    def holds(self, owner: FileSummary, fact: Fact) -> dict[str, str] | None:
        """The words a fact adds when it holds (often none), None when it does not."""
        kind = fact[0]
        if kind == "module":
            return {} if self.is_module(owner, fact[1]) else None
        if kind == "worker":
            return self._worker(owner, fact[1:])
        if kind == "worker-or-unloaded":
            return self._worker(owner, fact[1:]) or self._unloaded(owner, fact[1:])
        if kind == "forward-calls":
            return self._called_from_forward(owner, fact[1])
        if kind == "param-loader":
            return self._unpinned_argument(owner, fact[1], fact[2], fact[3])
        if kind in ("distributed", "device-not-set", "device-set-by-variable", "no-device-set-by-variable"):
            return {} if self._distributed(owner, kind) else None
        raise ValueError(f"unknown fact {kind!r}")

    def is_module(self, owner: FileSummary, ref: str) -> bool:
        """Whether the class ``ref`` names derives from nn.Module, through the bases of any linted file."""
        found = self.resolve(owner, ref)
        if found is None:
            return False
        start = (found[0].path, found[1])
        memo = self._modules_memo
        stack: list[tuple[tuple[str, str], bool]] = [(start, False)]
        open_: set[tuple[str, str]] = set()
        while stack:
            key, ready = stack.pop()
            if key in memo:
                continue
            summary = self.files[key[0]]
            status, bases, evidence = summary.classes.get(key[1], (False, (), False))
            keys = [
                (s.path, name) for s, name in filter(None, (self.resolve(summary, base) for base in bases))
            ]
            if status is not None:
                memo[key] = status
            elif ready:
                open_.discard(key)
                # a base still open is a cycle: no; a base outside the linted files: the class's own looks
                memo[key] = any(memo.get(base) for base in keys) or (len(keys) < len(bases) and evidence)
            else:
                open_.add(key)
                stack.append((key, True))
                stack.extend((base, False) for base in keys if base not in memo and base not in open_)
        return bool(memo.get(start))

    def _worker(self, owner: FileSummary, refs: Sequence[str]) -> dict[str, str] | None:
        roots, _ = self._loader_roots()
        for ref in refs:
            where = roots.get((owner.path, ref.removeprefix(":")))
            if where is not None:
                return {"where": where}
        return None

    def _unloaded(self, owner: FileSummary, refs: Sequence[str]) -> dict[str, str] | None:
        """A Dataset's item method that no DataLoader of the linted files loads: it runs in workers as soon as
        one does with num_workers > 0."""
        _, loaded = self._loader_roots()
        if any((owner.path, ref.removeprefix(":")) in loaded for ref in refs):
            return None
        return {"where": f"{refs[0].removeprefix(':')}()"}

    def _loader_roots(self) -> tuple[dict[tuple[str, str], str], set[tuple[str, str]]]:
        """Every function a DataLoader's worker processes run, by (file, name in it) -> how to name it; and
        every function some DataLoader runs, forking workers or not."""
        if self._loaders is not None:
            return self._loaders
        roots: dict[tuple[str, str], str] = {}
        loaded: set[tuple[str, str]] = set()
        for summary in self.files.values():
            for loader in summary.loaders:
                for ref, label in loader.roots:
                    found = self.resolve(summary, ref)
                    if found is not None:
                        loaded.add((found[0].path, found[1]))
                        if loader.forks:
                            roots.setdefault((found[0].path, found[1]), label)
        self._loaders = (roots, loaded)
        return self._loaders

    def _called_from_forward(self, owner: FileSummary, ref: str) -> dict[str, str] | None:
        if self._forward is None:
            self._forward = {}
            for summary in self.files.values():
                for callee, cls in summary.forward_callees:
                    found = self.resolve(summary, callee)
                    if found is not None:
                        self._forward.setdefault((found[0].path, found[1]), cls)
        caller = self._forward.get((owner.path, ref[1:]))
        return None if caller is None else {"cls": caller}

    def _unpinned_argument(
        self, owner: FileSummary, function: str, name: str, position: str
    ) -> dict[str, str] | None:
        """Some call of the function passes, as this parameter, data of a DataLoader without
        pin_memory=True: the loader itself, or what a parameter of the caller brought in from its callers."""
        if self._loader_args is None:
            self._loader_args = {}
            for summary in self.files.values():
                for callee, at, keyword, pin, origin in summary.loader_args:
                    found = self.resolve(summary, callee)
                    if found is not None:
                        passed = (at, keyword, pin, origin, summary)
                        self._loader_args.setdefault((found[0].path, found[1]), []).append(passed)
        pending = [(owner.path, function, name, int(position) if position else None)]
        seen: set[tuple[str, str, str]] = set()
        while pending:
            path, callee, parameter, index = pending.pop()
            if (path, callee, parameter) in seen:
                continue
            seen.add((path, callee, parameter))
            for at, keyword, pin, origin, caller in self._loader_args.get((path, callee), []):
                if not ((at is not None and at == index) or keyword == parameter):
                    continue
                if pin is False:
                    return {}
                if origin is not None:
                    pending.append((caller.path, *origin))
        return None

    def _distributed(self, owner: FileSummary, kind: str) -> bool:
        initialises, sets = owner.initialises, owner.sets_device
        for callee in owner.callees:
            found = self.resolve(owner, callee)
            if found is None:
                continue
            flags = found[0].dist_functions.get(found[1])
            if flags is not None:
                initialises = initialises or flags[0]
                sets = sets or flags[1]
        if kind == "distributed":
            return initialises or owner.wraps_ddp
        if kind == "device-set-by-variable":
            return sets
        if kind == "no-device-set-by-variable":
            return not sets
        return initialises and not sets and not owner.sets_fixed_device  # device-not-set


def _namespace_names(location: Location) -> list[str]:
    """The names a module also has when the folders above its top-level package are namespace packages
    (PEP 420, no ``__init__.py``): ``sdf/utils.py`` imported as ``sdf.utils`` by ``main.py`` beside
    ``sdf/``."""
    names: list[str] = []
    module, root = location.module, location.root
    for _ in range(_NAMESPACE_LEVELS):
        if not module or not root:
            break
        root, folder = os.path.split(root)
        if not folder.isidentifier():
            break
        module = f"{folder}.{module}"
        names.append(module)
    return names
