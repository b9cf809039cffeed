"""TDL001 (a tensor move whose result is dropped), TDL102 (created then moved in a loop), TDL103 (half model
in training code)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from torchdoctor.lint import edits
from torchdoctor.lint.context import FileContext, dotted, keyword, parameter_default
from torchdoctor.lint.findings import Hit, hit
from torchdoctor.lint.infer import Kind
from torchdoctor.lint.scan import CallSite, Scope
from torchdoctor.lint.torchapi import CREATION_FACTORIES, DTYPES, HALF_DTYPES, MOVE_METHODS


def discarded_tensor_moves(ctx: FileContext) -> Iterator[Hit]:
    """TDL001: ``x.to(device)`` as a statement where x is a tensor (a module's .to() is in place)."""
    for site in ctx.facts.statement_calls:
        call = site.node
        func = call.func
        if not isinstance(func, ast.Attribute) or func.attr not in MOVE_METHODS:
            continue
        if func.attr == "type" and not (call.args or call.keywords):
            continue  # x.type() returns the type's name
        target = dotted(func.value)
        if target is None:
            continue
        value = ctx.value(func.value, site.where)
        if value.is_tensor or (
            value.kind in (Kind.UNKNOWN, Kind.NONE)
            and isinstance(func.value, ast.Name)
            and _tensor_name(ctx, func.value.id, site)
        ):
            # x.to(d) -> x = x.to(d); on a module or a BatchEncoding (whose .to() returns themselves) the
            # assignment changes nothing either. Not on a Parameter: .to() of one returns a plain tensor and
            # a module refuses it in the Parameter's place (TypeError); moving the module is the fix there.
            fix = (
                ()
                if value.kind is Kind.PARAMETER or _may_hold_a_parameter(ctx, func.value, site)
                else (edits.insert(edits.start(call), edits.copy(func.value), edits.text(" = ")),)
            )
            yield hit("TDL001", call, edits=fix, target=target, method=func.attr)


def _may_hold_a_parameter(ctx: FileContext, receiver: ast.expr, site: CallSite) -> bool:
    """``self.w`` where the class makes (or registers) w a Parameter anywhere: assigned a plain tensor, the
    module raises TypeError, now or once the Parameter is in place."""
    scope = site.where.scope
    if not (
        isinstance(receiver, ast.Attribute)
        and isinstance(receiver.value, ast.Name)
        and receiver.value.id == scope.self_name
        and scope.owner is not None
    ):
        return False
    cls, attr = scope.owner, receiver.attr
    if cls.registered.get(attr) == "parameter":
        return True
    return any(
        ctx.qualname(node.func) == "torch.nn.Parameter"
        for owner in ctx.classes.lineage(cls)
        for other in owner.attr_sites.get(attr, ())
        for node in ast.walk(other.stmt)
        if isinstance(node, ast.Call)
    )


_NOT_TENSORS = frozenset({Kind.MODULE, Kind.OBJECT, Kind.DATALOADER, Kind.BATCH, Kind.SELF, Kind.DEVICE})


def _tensor_name(ctx: FileContext, name: str, site: CallSite) -> bool:
    """A name the inference cannot type that still holds a tensor: a tensor on some of its paths and nothing
    else known on the others, a parameter its function uses as a tensor, an input of a module's forward(), or
    a parameter every call of this file passes a tensor to."""
    scope = ctx.infer.binding_scope(name, site.where.scope)
    if scope is None:
        return False
    bindings = scope.bindings[name]
    values = ctx.infer.binding_values(name, scope)
    if any(value.kind in _NOT_TENSORS for value in values):
        return False
    if any(value.is_tensor for value in values) and all(
        value.is_tensor or value.kind is Kind.NONE or (binding.how == "param" and binding.expr is None)
        for binding, value in zip(bindings, values, strict=True)
    ):
        return True  # `if direction is None: direction = torch.randn(...)`
    if ctx.tensor_by_usage(name, site.where):
        return True
    origin = ctx.infer.parameter_origin(name, site.where.scope)
    if origin is None or len(bindings) != 1:
        return False  # rebound (x = model(x)): what callers pass is no longer what it holds
    if _forward_input(ctx, scope, name):
        return True
    return ctx.tensor_arguments(scope.node, origin)


def _forward_input(ctx: FileContext, scope: Scope, name: str) -> bool:
    """A parameter of forward() of an nn.Module, without a default other than None: an input tensor."""
    function = scope.node
    if getattr(function, "name", None) != "forward" or scope.owner is None:
        return False
    if ctx.classes.module_status(scope.owner) is False:
        return False
    default = parameter_default(function, name)
    return default is None or (isinstance(default, ast.Constant) and default.value is None)


def tensors_created_then_moved_in_loops(ctx: FileContext) -> Iterator[Hit]:
    """TDL102: ``torch.zeros(n).to(device)`` inside a loop, where ``device=`` at creation saves a copy."""
    for site in ctx.facts.calls_named("to", "cuda"):
        call = site.node
        func = call.func
        if (
            not site.where.in_loop
            or not isinstance(func, ast.Attribute)
            or not isinstance(func.value, ast.Call)
        ):
            continue
        created = func.value
        factory = ctx.qualname(created.func)
        if factory not in CREATION_FACTORIES or keyword(created, "device") is not None:
            continue
        if func.attr == "to" and not _names_a_device(ctx, call, site):
            continue
        yield hit("TDL102", call, factory=factory, method=func.attr)


def _names_a_device(ctx: FileContext, call: ast.Call, site: CallSite) -> bool:
    if keyword(call, "device") is not None:
        return True
    if not call.args:
        return False
    first = call.args[0]
    if ctx.qualname(first) in DTYPES:
        return False
    if ctx.value(first, site.where).kind is Kind.DEVICE:
        return True
    name = dotted(first) or ""
    return "device" in name.rsplit(".", 1)[-1].lower()


def half_models_in_training(ctx: FileContext) -> Iterator[Hit]:
    """TDL103: ``model.half()`` or ``.to(torch.float16)`` in a file that calls backward() or steps an
    optimizer."""
    if not _trains(ctx):
        return
    for site in ctx.facts.calls_named("half", "to"):
        call = site.node
        func = call.func
        if not isinstance(func, ast.Attribute):
            continue
        if func.attr == "to" and not any(
            ctx.qualname(arg) in HALF_DTYPES for arg in [*call.args, *(k.value for k in call.keywords)]
        ):
            continue
        if ctx.value(func.value, site.where).kind is Kind.MODULE:
            yield hit("TDL103", call, target=dotted(func.value) or "model", method=func.attr)


def _trains(ctx: FileContext) -> bool:
    if ctx.facts.calls.get("backward"):
        return True
    for site in ctx.facts.calls.get("step", ()):
        func = site.node.func
        receiver = dotted(func.value) if isinstance(func, ast.Attribute) else None
        if receiver is not None and "optim" in receiver.lower():
            return True
    return False
