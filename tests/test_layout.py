"""The framework's layout: sub-packages named for what flows through them, arrows that run one way, no circle.

Every import counts, whether at the top of a module, inside a function (a lazy import is still an arrow) or
under ``TYPE_CHECKING``; CONTRIBUTING.md's layout table names every sub-package.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "torchdoctor"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("_version", "model", "plugin", "schema"),
    ("output",),
    ("machine",),
    ("inputs",),
    ("isolation",),
    ("render",),
    ("checking",),
    ("explain",),
    ("lint",),
    ("runtime",),
    ("support",),
    ("commands",),
    ("cli", "__main__", "__init__"),
)
"""From the bottom up: a part imports only from its own layer and the layers below it."""

TOP_LEVEL_MODULES = {
    "__init__": "the public API: the plugin API, audit(), memory_report(), watch()",
    "__main__": "python -m torchdoctor",
    "_version": "the version, read by the build without importing the package",
    "cli": "the console script",
    "model": "the report's vocabulary, part of the plugin API and of the JSON contract",
    "plugin": "the plugin API",
}


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(REPO).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


MODULES = _modules()


def _imported(name: str, path: Path) -> Iterator[str]:
    """The torchdoctor modules ``name`` imports, anywhere in its text."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name in MODULES)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                if f"{base}.{alias.name}" in MODULES:
                    yield f"{base}.{alias.name}"
                elif base in MODULES:
                    yield base


@cache
def _graph() -> dict[str, list[str]]:
    """Each module's torchdoctor imports: read here, not at collection, which each test process does."""
    return {name: sorted(set(_imported(name, path)) - {name}) for name, path in MODULES.items()}


def _part(module: str) -> str:
    """The top-level part of the package a module belongs to: a sub-package, or a top-level module."""
    parts = module.split(".")
    return "__init__" if len(parts) == 1 else parts[1]


def _cycle() -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        stack.append(module)
        for target in _graph()[module]:
            if state.get(target) == 1:
                return [*stack[stack.index(target) :], target]
            if target not in state and (found := visit(target)):
                return found
        stack.pop()
        state[module] = 2
        return None

    for module in sorted(_graph()):
        if module not in state and (found := visit(module)):
            return found
    return None


def test_no_module_imports_itself_through_others() -> None:
    assert _cycle() is None


def test_the_cycle_finder_finds_a_circle() -> None:
    _graph()["torchdoctor.model"].append("torchdoctor.plugin")
    try:
        assert _cycle() == ["torchdoctor.model", "torchdoctor.plugin", "torchdoctor.model"]
    finally:
        _graph()["torchdoctor.model"].remove("torchdoctor.plugin")


def test_every_part_imports_only_its_own_layer_and_those_below() -> None:
    level = {part: index for index, layer in enumerate(LAYERS) for part in layer}
    parts = {_part(module) for module in MODULES}
    assert parts == set(level), "every sub-package and top-level module has a layer"
    upward = [
        f"{module} -> {target}"
        for module, targets in _graph().items()
        for target in targets
        if level[_part(target)] > level[_part(module)]
    ]
    assert upward == []


def test_the_top_level_holds_only_entry_points_and_public_api() -> None:
    top = {path.stem for path in PACKAGE.glob("*.py")}
    assert top == set(TOP_LEVEL_MODULES)


def test_every_sub_package_says_what_it_holds_and_contributing_names_it() -> None:
    contributing = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for folder in sorted(p.parent for p in PACKAGE.glob("*/__init__.py")):
        docstring = ast.get_docstring(ast.parse((folder / "__init__.py").read_text(encoding="utf-8")))
        assert docstring, folder.name
        assert f"`torchdoctor/{folder.name}/`" in contributing, folder.name


def test_the_public_names_resolve_and_importing_them_imports_no_torch() -> None:
    code = (
        "import sys, torchdoctor\n"
        "from torchdoctor import Check, Finding, Fix, Option, Probe, Status, Verdict, judge_at\n"
        "assert 'torch' not in sys.modules\n"
        "for name in torchdoctor.__all__:\n"
        "    getattr(torchdoctor, name)\n"
        "for name in ('audit', 'memory_report', 'watch'):\n"
        "    assert callable(getattr(torchdoctor, name)), name\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def _bound_twice(tree: ast.Module) -> list[str]:
    """Names a module's top level binds more than once (an assignment, a def or a class): the later one
    replaces the earlier for every use, the earlier's own readers included."""
    seen: dict[str, int] = {}
    twice = []
    for node in tree.body:
        if isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            names = [node.target.id]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        else:
            names = []
        for name in names:
            if name in seen:
                twice.append(f"{name} (lines {seen[name]} and {node.lineno})")
            seen.setdefault(name, node.lineno)
    return twice


def test_no_module_binds_a_top_level_name_twice() -> None:
    # A table defined twice under one name (an extension's pip names, a path pattern) silently replaced the
    # first for the functions written against it.
    found = []
    for folder in ("torchdoctor", "checks", "tools"):
        for path in sorted((REPO / folder).rglob("*.py")):
            twice = _bound_twice(ast.parse(path.read_text(encoding="utf-8")))
            found += [f"{path.relative_to(REPO)}: {name}" for name in twice]
    assert found == []
    assert _bound_twice(ast.parse("A = 1\ndef f(): pass\nA = 2\n")) == ["A (lines 1 and 3)"]
