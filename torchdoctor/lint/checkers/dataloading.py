"""TDL006 (non_blocking copies of unpinned batches) and TDL007 (CUDA inside DataLoader workers)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from torchdoctor.lint.context import FileContext, keyword, short_source
from torchdoctor.lint.findings import Hit, hit
from torchdoctor.lint.infer import Kind
from torchdoctor.lint.scan import CallSite, Scope, Where

_WORKER_METHODS = ("__getitem__", "__getitems__", "__iter__")


def non_blocking_without_pinned_memory(ctx: FileContext) -> Iterator[Hit]:
    """TDL006: ``x.to(device, non_blocking=True)`` where x comes from a DataLoader without pin_memory=True."""
    if not ctx.loaders:
        return
    for site in ctx.facts.calls_named("to", "cuda"):
        call = site.node
        func = call.func
        if not isinstance(func, ast.Attribute) or not _non_blocking(call, func.attr):
            continue
        value = ctx.value(func.value, site.where)
        loader = value.loader
        if value.kind in (Kind.TENSOR, Kind.BATCH) and loader is not None and loader.pin_memory is False:
            yield hit("TDL006", call, method=func.attr)


def _non_blocking(call: ast.Call, method: str) -> bool:
    flag = keyword(call, "non_blocking")
    if flag is None and method == "cuda" and len(call.args) > 1:
        flag = call.args[1]
    return isinstance(flag, ast.Constant) and flag.value is True


def cuda_in_dataloader_workers(ctx: FileContext) -> Iterator[Hit]:
    """TDL007: a move to the GPU inside a collate_fn or Dataset.__getitem__ of a DataLoader that forks
    workers (num_workers > 0)."""
    workers: dict[ast.AST, str] = {}
    for loader in ctx.loaders.values():
        if not loader.num_workers or not loader.forks_workers:
            continue
        if loader.collate_fn is not None:
            for function in _functions(ctx, loader.collate_fn, loader.where):
                workers.setdefault(function, f"collate_fn {_name(function)}")
        if loader.dataset is not None:
            dataset = ctx.value(loader.dataset, loader.where)
            if dataset.kind is Kind.OBJECT and dataset.cls is not None:
                for method in _WORKER_METHODS:
                    found = ctx.classes.method(dataset.cls, method)
                    if found is not None:
                        workers.setdefault(found, f"{dataset.cls.name}.{method}()")
    if not workers:
        return
    for site in ctx.facts.calls_named("cuda", "to"):
        where = _enclosing_worker(site.where.scope, workers)
        if where is None:
            continue
        what = _gpu_move(ctx, site)
        if what is not None:
            yield hit("TDL007", site.node, what=what, where=where)


def _functions(ctx: FileContext, expr: ast.expr, where: Where) -> list[ast.AST]:
    """The functions of this file a collate_fn= argument names."""
    if isinstance(expr, ast.Lambda):
        return [expr]
    if isinstance(expr, ast.Name):
        return [*ctx.facts.functions.get(expr.id, [])]
    if isinstance(expr, ast.Call) and expr.args:
        if (ctx.qualname(expr.func) or "").endswith("functools.partial"):
            return _functions(ctx, expr.args[0], where)
        return []
    if isinstance(expr, ast.Attribute):
        owner = ctx.value(expr.value, where)
        if owner.cls is not None:
            found = ctx.classes.method(owner.cls, expr.attr)
            return [found] if found is not None else []
        methods: list[ast.AST] = [
            cls.methods[expr.attr]
            for classes in ctx.facts.classes.values()
            for cls in classes
            if expr.attr in cls.methods
        ]
        return methods if len(methods) == 1 else []
    return []


def _name(function: ast.AST) -> str:
    return f"{function.name}()" if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef) else "lambda"


def _enclosing_worker(scope: Scope | None, workers: dict[ast.AST, str]) -> str | None:
    while scope is not None:
        found = workers.get(scope.node)
        if found is not None:
            return found
        scope = scope.parent
    return None


def _gpu_move(ctx: FileContext, site: CallSite) -> str | None:
    """How the call reads when it moves data to a (possibly) CUDA device: ``.cuda()``, ``.to(device)``."""
    call = site.node
    func = call.func
    if not isinstance(func, ast.Attribute) or ctx.qualname(func) is not None:
        return None
    if func.attr == "cuda":
        return ".cuda()"
    target = keyword(call, "device") or (call.args[0] if call.args else None)
    if target is None or isinstance(target, ast.Starred):
        return None
    if ctx.value(target, site.where).may_be_cuda:
        return f".to({short_source(target)})"
    return None
