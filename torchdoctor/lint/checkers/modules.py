"""TDL002 (a tensor kept as a plain attribute of an nn.Module) and TDL003 (a layer built inside forward)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TypeGuard

from torchdoctor.lint.context import FileContext
from torchdoctor.lint.findings import Hit, hit
from torchdoctor.lint.infer import Kind
from torchdoctor.lint.scan import AttrSite, ClassInfo
from torchdoctor.lint.torchapi import NORM_FLAGS, STATELESS_LAYERS, TENSOR_FUNCTIONS, layer_name

# A class that overrides one of these moves its own tensors.
_MOVE_HOOKS = ("_apply", "to", "cuda")
_MOVES = frozenset({"to", "cuda", "type_as"})
# Attributes a framework moves to the module's device itself (LightningModule.example_input_array).
_FRAMEWORK_MOVED = frozenset({"example_input_array"})
_REGISTERED_KINDS = frozenset({Kind.PARAMETER, Kind.BUFFER, Kind.MODULE})


def plain_tensor_attributes(ctx: FileContext) -> Iterator[Hit]:
    """TDL002: ``self.mask = torch.zeros(...)`` in ``__init__`` of an nn.Module subclass."""
    for classes in ctx.facts.classes.values():
        for cls in classes:
            init = cls.methods.get("__init__")
            if init is None or not ctx.classes.is_module(cls):
                continue
            lineage = ctx.classes.lineage(cls)
            if any(owner.dynamic_registration for owner in lineage):
                continue
            if any(ctx.classes.method(cls, hook) is not None for hook in _MOVE_HOOKS):
                continue
            construction = _construction(ctx, cls, init)
            for attr, sites in sorted(cls.attr_sites.items()):
                if any(attr in owner.registered for owner in lineage):
                    continue
                stored = [
                    site
                    for site in sites
                    if site.scope.node in construction and _stores_a_cpu_tensor(ctx, site)
                ]
                if stored and not _managed(ctx, cls, attr, sites, construction):
                    first = min(stored, key=lambda site: site.stmt.lineno)
                    yield hit("TDL002", first.stmt, attr=attr, cls=cls.name)


def _managed(
    ctx: FileContext, cls: ClassInfo, attr: str, sites: list[AttrSite], construction: set[ast.AST]
) -> bool:
    """Whether something other than Module.to() takes care of the attribute's device."""
    if any(ctx.infer.site_value(site).kind in _REGISTERED_KINDS for site in sites):
        return True  # self.w = torch.zeros(...) then self.w = nn.Parameter(self.w)
    if any(_refreshed_when_stale(site, attr) for site in sites):
        return True  # a placeholder: `if self.cache is None or ...: self.cache = ...` before use
    if attr in _FRAMEWORK_MOVED and any(_framework_module(ctx, owner) for owner in ctx.classes.lineage(cls)):
        return True
    return _moved_by_hand(ctx, cls, attr, construction)


def _construction(ctx: FileContext, cls: ClassInfo, init: ast.AST) -> set[ast.AST]:
    """``__init__`` and the methods of the class it calls on self (``self.init_states(x)``), transitively."""
    found = {init}
    pending = [init]
    while pending:
        function = pending.pop()
        scope = ctx.facts.scope_of.get(function)
        if scope is None or scope.self_name is None:
            continue
        for node in ast.walk(function):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            receiver = node.func.value
            if isinstance(receiver, ast.Name) and receiver.id == scope.self_name:
                method = cls.methods.get(node.func.attr)
                if method is not None and method not in found:
                    found.add(method)
                    pending.append(method)
    return found


def _framework_module(ctx: FileContext, cls: ClassInfo) -> bool:
    return any((ctx.qualname(base) or "").endswith("LightningModule") for base in cls.node.bases)


def _moved_by_hand(ctx: FileContext, cls: ClassInfo, attr: str, construction: set[ast.AST]) -> bool:
    """The class moves the tensor itself: ``self.state = self.state.to(device)`` somewhere, or every use
    outside construction moves it first (``self.mask.to(x.device)``)."""
    uses = moved = 0
    for method in cls.methods.values():
        if method in construction:
            continue
        scope = ctx.facts.scope_of.get(method)
        me = scope.self_name if scope is not None else None
        receivers: set[ast.AST] = set()
        for node in ast.walk(method):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _MOVES
            ):
                receivers.add(node.func.value)
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                func = node.value.func
                if (
                    isinstance(func, ast.Attribute)
                    and func.attr in _MOVES
                    and _is_self_attr(func.value, me, attr)
                ):
                    return True
        for node in ast.walk(method):
            if _is_self_attr(node, me, attr) and isinstance(node.ctx, ast.Load):
                uses += 1
                moved += node in receivers
    return uses > 0 and moved == uses


def _is_self_attr(node: ast.AST, me: str | None, attr: str) -> TypeGuard[ast.Attribute]:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == attr
        and isinstance(node.value, ast.Name)
        and node.value.id == me
    )


def _refreshed_when_stale(site: AttrSite, attr: str) -> bool:
    """The assignment sits under an ``if`` that tests the attribute itself (a cache rebuilt when stale)."""
    function = site.scope.node
    return isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef) and any(
        site.stmt in _guarded_statements(node) and _tests_attribute(node.test, attr)
        for node in ast.walk(function)
        if isinstance(node, ast.If)
    )


def _guarded_statements(node: ast.If) -> set[ast.AST]:
    return {child for statement in node.body for child in ast.walk(statement)}


def _tests_attribute(test: ast.expr, attr: str) -> bool:
    return any(
        (isinstance(part, ast.Attribute) and part.attr == attr)
        or (isinstance(part, ast.Constant) and part.value == attr)
        for part in ast.walk(test)
    )


def _stores_a_cpu_tensor(ctx: FileContext, site: AttrSite) -> bool:
    """A tensor built right there by torch calls (on whatever device: Module.to() will not move it later),
    and not a 0-dim scalar (those mix with tensors on any device)."""
    binding = site.binding
    expr = binding.expr
    if binding.how != "value" or binding.path or not isinstance(expr, ast.Call):
        return False
    if ctx.infer.site_value(site).kind is not Kind.TENSOR:
        return False
    root = expr
    while isinstance(root.func, ast.Attribute) and isinstance(root.func.value, ast.Call):
        root = root.func.value
    qualname = ctx.qualname(root.func)
    if qualname not in TENSOR_FUNCTIONS:
        return False
    if qualname not in ("torch.tensor", "torch.as_tensor"):
        return True
    # torch.tensor(scale) is usually a 0-dim scalar; torch.tensor([...]) is not
    return bool(root.args) and isinstance(root.args[0], ast.List | ast.Tuple | ast.ListComp)


def layers_in_forward(ctx: FileContext) -> Iterator[Hit]:
    """TDL003: ``nn.Linear(...)`` or ``nn.Parameter(...)`` built inside ``forward()`` of an nn.Module."""
    for name, sites in ctx.facts.calls.items():
        if not name[:1].isupper():
            continue
        for site in sites:
            cls = site.where.forward_of
            if cls is None or not ctx.classes.is_module(cls):
                continue
            call = site.node
            qualname = ctx.qualname(call.func) or ""
            if qualname == "torch.nn.Parameter":
                label = "nn.Parameter"
            else:
                layer = layer_name(qualname)
                if layer is None or not _has_state(layer, call):
                    continue
                label = f"nn.{layer}"
            if not _cached_lazily(ctx, call, cls):
                yield hit("TDL003", call, layer=label, cls=cls.name)


def _has_state(layer: str, call: ast.Call) -> bool:
    if layer in STATELESS_LAYERS or layer.endswith("Loss"):
        return False
    flags = NORM_FLAGS.get(layer)
    if flags is None:
        return True
    given = {k.arg: k.value for k in call.keywords}
    for flag, default in flags:
        value = given.get(flag)
        if value is None:
            if default:
                return True
        elif isinstance(value, ast.Constant) and value.value is True:
            return True
    return False


def _cached_lazily(ctx: FileContext, call: ast.Call, cls: ClassInfo) -> bool:
    """``if self.proj is None: self.proj = nn.Linear(...)``: built once, on first use."""
    attr = ctx.facts.self_assigned.get(call)
    forward = cls.methods.get("forward")
    if attr is None or forward is None:
        return False
    return any(isinstance(node, ast.If) and _tests_attribute(node.test, attr) for node in ast.walk(forward))
