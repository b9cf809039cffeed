"""The DataLoaders a file constructs and what their arguments say statically."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from torchdoctor.lint.scan import FileFacts, Where

DATALOADER = "torch.utils.data.DataLoader"
# DataLoader's positional parameters: dataset, batch_size, shuffle, sampler, batch_sampler, num_workers,
# collate_fn, pin_memory, ...
_POSITION = {"dataset": 0, "num_workers": 5, "collate_fn": 6, "pin_memory": 7}


@dataclass(frozen=True, eq=False)
class LoaderInfo:
    call: ast.Call
    where: Where
    pin_memory: bool | None  # None: not known statically
    num_workers: int | None  # None: not known statically
    collate_fn: ast.expr | None
    dataset: ast.expr | None
    forks_workers: bool  # False with multiprocessing_context= or set_start_method() spawn or forkserver
    no_workers_said: bool = False  # num_workers=0 written out (NUM_WORKERS = 0 counts): loading in the loop

    @property
    def pinning_advised(self) -> bool:
        """Unpinned, and loading in worker processes that pinning would overlap with the copies: where the
        file says num_workers=0 the loop itself loads each batch and a non_blocking copy gains nothing
        that pinning would buy back."""
        return self.pin_memory is False and not self.no_workers_said


def find_loaders(facts: FileFacts) -> dict[ast.Call, LoaderInfo]:
    imports = facts.imports
    names = {"DataLoader", *imports.aliases_of(DATALOADER)}
    spawns = _spawns_processes(facts)
    loaders = {}
    for site in facts.calls_named(*names):
        if imports.qualname(site.node.func) == DATALOADER:
            loaders[site.node] = _describe(site.node, site.where, facts, spawns)
    return loaders


def _spawns_processes(facts: FileFacts) -> bool:
    """``multiprocessing.set_start_method("spawn")`` (or forkserver) somewhere in the file."""
    for site in facts.calls_named("set_start_method"):
        method = site.node.args[0] if site.node.args else None
        if isinstance(method, ast.Constant) and method.value in ("spawn", "forkserver"):
            return True
    return False


def _describe(call: ast.Call, where: Where, facts: FileFacts, spawns: bool) -> LoaderInfo:
    spread = any(keyword.arg is None for keyword in call.keywords)  # DataLoader(ds, **kwargs)

    def argument(name: str) -> ast.expr | None:
        for keyword in call.keywords:
            if keyword.arg == name:
                return keyword.value
        position = _POSITION.get(name)
        if position is not None and position < len(call.args):
            arg = call.args[position]
            return None if isinstance(arg, ast.Starred) else arg
        return None

    pin = argument("pin_memory")
    if pin is None:
        pin_memory: bool | None = None if spread else False
    else:
        known = _constant(pin, facts)
        pin_memory = known if isinstance(known, bool) else None
    workers = argument("num_workers")
    if workers is None:
        num_workers: int | None = None if spread else 0
    else:
        num_workers = _int_constant(workers, facts)
    context = argument("multiprocessing_context")
    forked_context = isinstance(context, ast.Constant) and context.value == "fork"
    forks = not spawns if context is None else forked_context
    return LoaderInfo(
        call,
        where,
        pin_memory,
        num_workers,
        argument("collate_fn"),
        argument("dataset"),
        forks,
        no_workers_said=workers is not None and num_workers == 0,
    )


def _int_constant(expr: ast.expr, facts: FileFacts) -> int | None:
    value = _constant(expr, facts)
    return value if type(value) is int else None


def _constant(expr: ast.expr, facts: FileFacts) -> object:
    """A literal, a module-level name assigned one literal (NUM_WORKERS = 4), or ``args.workers`` where this
    file's argparse parser gives --workers that default; None when not known."""
    if isinstance(expr, ast.Name):
        bindings = facts.module.bindings.get(expr.id, [])
        if len(bindings) != 1 or bindings[0].how != "value" or bindings[0].path:
            return None
        value = bindings[0].expr
        if value is None:
            return None
        expr = value
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        return _argparse_default(expr.attr, facts)
    if isinstance(expr, ast.Constant):
        return expr.value
    return None


def _argparse_default(dest: str, facts: FileFacts) -> object:
    """The default of the one ``parser.add_argument(...)`` of this file whose destination is ``dest``."""
    found: list[object] = []
    for site in facts.calls_named("add_argument"):
        call = site.node
        names = [
            arg.value for arg in call.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
        ]
        explicit = next((item.value for item in call.keywords if item.arg == "dest"), None)
        if isinstance(explicit, ast.Constant):
            target = explicit.value
        else:
            long = [name for name in names if name.startswith("--")]
            target = (long or names or [""])[0].lstrip("-").replace("-", "_")
        if target != dest:
            continue
        default = next((item.value for item in call.keywords if item.arg == "default"), None)
        action = next((item.value for item in call.keywords if item.arg == "action"), None)
        if (
            default is None
            and isinstance(action, ast.Constant)
            and action.value in ("store_true", "store_false")
        ):
            found.append(action.value == "store_false")
        elif isinstance(default, ast.Constant):
            found.append(default.value)
        else:
            return None
    return found[0] if len(found) == 1 else None
