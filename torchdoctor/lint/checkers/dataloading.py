"""TDL006 (non_blocking copies of unpinned batches) and TDL007 (CUDA inside DataLoader workers)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from torchdoctor.lint.context import FileContext, dotted, keyword, short_source
from torchdoctor.lint.findings import Hit, hit
from torchdoctor.lint.infer import Cuda, Kind
from torchdoctor.lint.scan import CallSite
from torchdoctor.lint.summary import DATASET_METHODS, WORKER_METHODS, worker_roots
from torchdoctor.lint.torchapi import CREATION_FACTORIES, DTYPES


def non_blocking_without_pinned_memory(ctx: FileContext) -> Iterator[Hit]:
    """TDL006: ``x.to(device, non_blocking=True)`` where x comes from a DataLoader without pin_memory=True:
    built in this file, or passed in by a caller anywhere in the project."""
    for site in ctx.facts.calls_named("to", "cuda"):
        call = site.node
        func = call.func
        if not isinstance(func, ast.Attribute) or not _non_blocking(call, func.attr):
            continue
        fresh = _fresh_cpu_tensor(ctx, func.value)
        if fresh is not None:
            yield hit(
                "TDL006", call, method=func.attr, source=f"a tensor {fresh} just made (pageable memory)"
            )
            continue
        value = ctx.value(func.value, site.where)
        origin = value.origin
        if value.kind is Kind.UNKNOWN and isinstance(func.value, ast.Name):
            origin = ctx.infer.parameter_origin(func.value.id, site.where.scope)
        elif value.kind not in (Kind.TENSOR, Kind.BATCH):
            continue
        loader = value.loader
        if loader is not None:
            if loader.pinning_advised:
                yield hit("TDL006", call, method=func.attr, source=_UNPINNED)
        elif origin is not None:
            _, function, name, position = origin
            fact = ("param-loader", function, name, "" if position is None else str(position))
            parameters = ctx.memo.setdefault("non_blocking_parameters", set())
            parameters.add((function, name, position))  # type: ignore[attr-defined]
            yield hit("TDL006", call, requires=(fact,), method=func.attr, source=_UNPINNED)


_UNPINNED = "a batch of a DataLoader without pin_memory=True"


def _fresh_cpu_tensor(ctx: FileContext, expr: ast.expr) -> str | None:
    """``torch.from_numpy(a)`` (``torch.tensor(...)``, ``torch.zeros(...)`` without device=) right before the
    copy: memory nobody pinned. Named by its maker, or None."""
    if not isinstance(expr, ast.Call):
        return None
    qualname = ctx.qualname(expr.func) or ""
    if qualname == "torch.from_numpy" or (qualname in CREATION_FACTORIES and keyword(expr, "device") is None):
        return f"{qualname}()"
    return None


def _non_blocking(call: ast.Call, method: str) -> bool:
    flag = keyword(call, "non_blocking")
    if flag is None and method == "cuda" and len(call.args) > 1:
        flag = call.args[1]
    return isinstance(flag, ast.Constant) and flag.value is True


def cuda_in_dataloader_workers(ctx: FileContext) -> Iterator[Hit]:
    """TDL007: a move to the GPU (or a tensor created on it) in code that DataLoader workers run: a
    collate_fn, a Dataset's __getitem__, and what they call in this file. Which DataLoader runs them, with
    which num_workers, is a fact of the project: the DataLoader may be built in another file."""
    roots = _worker_candidates(ctx)
    if not roots:
        return
    keys: dict[ast.AST, set[str]] = {}
    datasets: dict[ast.AST, set[str]] = {}  # reached from a Dataset's item method
    for root, names in roots.items():
        item_of_dataset = {name for name in names if _dataset_item_method(ctx, name)}
        for function in ctx.calls.reachable([root]):
            keys.setdefault(function, set()).update(names)
            if item_of_dataset:
                datasets.setdefault(function, set()).update(item_of_dataset)
    for function, names in keys.items():
        # A Dataset no linted DataLoader loads still runs in workers as soon as one loads it with
        # num_workers > 0; one loaded only with num_workers=0 (or spawned workers) does not.
        kind = "worker-or-unloaded" if function in datasets else "worker"
        for site in ctx.calls.calls_in(function):
            what = _gpu_work(ctx, site)
            if what is not None:
                yield hit("TDL007", site.node, requires=((kind, *sorted(names)),), what=what)


_DATASET_BASES = frozenset({"torch.utils.data.Dataset", "torch.utils.data.IterableDataset"})


def _dataset_item_method(ctx: FileContext, ref: str) -> bool:
    """``:Faces.__getitem__`` where Faces derives (in this file) from torch's Dataset or IterableDataset."""
    owner, _, method = ref.removeprefix(":").rpartition(".")
    cls = ctx.classes.unique(owner) if owner and "." not in owner else None
    if cls is None or method not in DATASET_METHODS:
        return False
    return any(
        ctx.qualname(base) in _DATASET_BASES
        for ancestor in ctx.classes.lineage(cls)
        for base in ancestor.node.bases
    )


def _worker_candidates(ctx: FileContext) -> dict[ast.AST, set[str]]:
    """The functions of this file that may be the entry of worker code, each with the references a DataLoader
    may use for it: the item methods of classes, collate functions (by name, for a loader of another file),
    and whatever this file's own loaders name."""
    found: dict[ast.AST, set[str]] = {}
    defined = ctx.facts.functions
    for classes in ctx.facts.classes.values() if any(name in defined for name in WORKER_METHODS) else ():
        for cls in classes:
            for method in WORKER_METHODS:
                function = ctx.classes.method(cls, method)
                if function is not None:
                    found.setdefault(function, set()).add(f":{cls.name}.{method}")
    for name, functions in ctx.facts.functions.items():
        if "collate" in name.lower():
            for function in functions:
                keys = ctx.function_keys(function)
                found.setdefault(function, set()).update(keys)
    for loader in ctx.loaders.values():
        for ref, _ in worker_roots(ctx, loader):
            named = ctx.function_of_reference(ref)
            if named is not None:
                found.setdefault(named, set()).add(ref)
    return found


def _gpu_work(ctx: FileContext, site: CallSite) -> str | None:
    """How a call reads when it moves data to a (possibly) CUDA device or creates a tensor there:
    ``.cuda()``, ``.to(device)``, ``torch.zeros(n, device=device)``."""
    call = site.node
    func = call.func
    qualname = ctx.qualname(func)
    if qualname is not None:
        target = keyword(call, "device")
        if qualname in CREATION_FACTORIES and target is not None and _may_be_gpu(ctx, target, site):
            return f"{qualname.removeprefix('torch.')}(..., device={short_source(target)})"
        return None
    if not isinstance(func, ast.Attribute):
        return None
    if func.attr == "cuda":
        return ".cuda()"
    if func.attr != "to":
        return None
    target = keyword(call, "device") or (call.args[0] if call.args else None)
    if target is None or isinstance(target, ast.Starred) or not _may_be_gpu(ctx, target, site):
        return None
    return f".to({short_source(target)})"


def _may_be_gpu(ctx: FileContext, target: ast.expr, site: CallSite) -> bool:
    if ctx.qualname(target) in DTYPES:
        return False
    if isinstance(target, ast.Attribute) and ctx.value(target.value, site.where).is_tensor:
        return False  # image.to(mask.device): where another tensor of the worker already is
    value = ctx.value(target, site.where)
    if value.kind is Kind.DEVICE and value.cuda in (Cuda.YES, Cuda.MAYBE):
        return True
    if (value.kind is Kind.DEVICE and value.cuda is Cuda.UNKNOWN) or value.kind is Kind.UNKNOWN:
        return _names_a_device(target)
    return False


def _names_a_device(target: ast.expr) -> bool:
    """``device``, ``self.device``, ``args.gpu``, ``cfg.DEVICE``: a name that says it holds a device."""
    name = (dotted(target) or "").rsplit(".", 1)[-1].lower()
    return name in ("device", "dev", "gpu", "cuda") or name.endswith(("_device", "device_id", "_gpu"))
