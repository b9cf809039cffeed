"""TDL002 (a tensor kept as a plain attribute of an nn.Module) and TDL003 (a layer built inside forward)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from torchdoctor.lint import edits
from torchdoctor.lint.context import FileContext
from torchdoctor.lint.findings import Hit, hit
from torchdoctor.lint.infer import Kind
from torchdoctor.lint.scan import AttrSite, CallSite, ClassInfo
from torchdoctor.lint.torchapi import NORM_FLAGS, STATELESS_LAYERS, TENSOR_FUNCTIONS, layer_name

# A class that overrides one of these moves its own tensors.
_MOVE_HOOKS = ("_apply", "to", "cuda")
_MOVES = frozenset({"to", "cuda", "type_as"})
# Attributes a framework moves to the module's device itself (LightningModule.example_input_array).
_FRAMEWORK_MOVED = frozenset({"example_input_array"})
_REGISTERED_KINDS = frozenset({Kind.PARAMETER, Kind.BUFFER, Kind.MODULE})


def plain_tensor_attributes(ctx: FileContext) -> Iterator[Hit]:
    """TDL002: ``self.mask = torch.zeros(...)`` while an nn.Module is built (``__init__`` and the methods it
    calls), also through ``setattr`` and in loops."""
    for classes in ctx.facts.classes.values():
        for cls in classes:
            init = cls.methods.get("__init__")
            if init is None:
                continue
            requirement = ctx.module_requirement(cls)
            if requirement is None or ctx.classes.dynamic_registration(cls):
                continue
            moved = _moved_by_hooks(ctx, cls)
            if moved is None:
                continue  # an override of to()/_apply that moves whatever the module holds
            construction = _construction(ctx, cls, init)
            for attr, sites in sorted(cls.attr_sites.items()):
                if attr in moved or ctx.classes.registered(cls, attr):
                    continue
                stored = [
                    site
                    for site in sites
                    if site.scope.node in construction and _stores_a_cpu_tensor(ctx, site)
                ]
                if stored and not _managed(ctx, cls, attr, sites, construction):
                    first = min(stored, key=lambda site: site.stmt.lineno)
                    fix = _as_buffer(ctx, cls, attr, first) if _buffer_is_safe(ctx, cls, attr, first) else ()
                    yield hit("TDL002", first.stmt, requires=requirement, edits=fix, attr=attr, cls=cls.name)


def _as_buffer(ctx: FileContext, cls: ClassInfo, attr: str, site: AttrSite) -> tuple[edits.Edit, ...]:
    statement = site.stmt
    assert isinstance(statement, ast.Assign)
    me = site.scope.self_name
    return (
        edits.replace(
            statement,
            edits.text(f'{me}.register_buffer("{attr}", '),
            edits.copy(statement.value),
            edits.text(", persistent=False)"),
        ),
    )


def _buffer_is_safe(ctx: FileContext, cls: ClassInfo, attr: str, site: AttrSite) -> bool:
    """``self.x = t`` -> ``self.register_buffer("x", t, persistent=False)`` keeps the module's behaviour but
    for the device when: the assignment is a plain one in the class's own ``__init__`` after
    ``super().__init__()`` (a buffer needs the module set up), every value the attribute ever gets is a
    tensor or None (a buffer refuses anything else), and no ``__setattr__``/``__getattr__`` of the class is
    in play."""
    statement = site.stmt
    if not (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Attribute)
        and site.scope.node is cls.methods.get("__init__")
        and site.scope.self_name is not None
    ):
        return False
    if any(ctx.classes.method(cls, name) is not None for name in ("__setattr__", "__getattr__")):
        return False
    for owner in ctx.classes.lineage(cls):
        for other in owner.attr_sites.get(attr, ()):
            value = ctx.infer.site_value(other)
            if not (value.is_tensor or value.kind is Kind.NONE):
                return False
    init = site.scope.node
    return any(
        _initialises_base(call.node) and ctx.paths(init).before(call.node, statement)
        for call in ctx.calls.calls_in(init)
    )


def _initialises_base(call: ast.Call) -> bool:
    """``super().__init__(...)``, ``super(Net, self).__init__()``, ``nn.Module.__init__(self)``."""
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr != "__init__":
        return False
    receiver = func.value
    if isinstance(receiver, ast.Call):
        return isinstance(receiver.func, ast.Name) and receiver.func.id == "super"
    return isinstance(receiver, ast.Name | ast.Attribute)


def _moved_by_hooks(ctx: FileContext, cls: ClassInfo) -> set[str] | None:
    """The attributes an override of ``to()``, ``cuda()`` or ``_apply()`` moves by name; None when one moves
    everything (it goes through ``self.__dict__``, ``vars(self)``, or ``setattr`` under a computed name)."""
    moved: set[str] = set()
    for hook in _MOVE_HOOKS:
        method = ctx.classes.method(cls, hook)
        if method is None:
            continue
        scope = ctx.facts.scope_of.get(method)
        me = scope.self_name if scope is not None else None
        for node in ast.walk(method):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == me:
                if node.attr == "__dict__":
                    return None
                moved.add(node.attr)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and (
                    node.func.id == "vars"
                    or (
                        node.func.id in ("setattr", "getattr")
                        and len(node.args) > 1
                        and not isinstance(node.args[1], ast.Constant)
                    )
                )
            ):
                return None
    return moved


def _managed(
    ctx: FileContext, cls: ClassInfo, attr: str, sites: list[AttrSite], construction: set[ast.AST]
) -> bool:
    """Whether something other than Module.to() takes care of the attribute's device."""
    if any(ctx.infer.site_value(site).kind in _REGISTERED_KINDS for site in sites):
        return True  # self.w = torch.zeros(...) then self.w = nn.Parameter(self.w)
    if any(_refreshed_when_stale(site, attr) for site in sites):
        return True  # a placeholder: `if self.cache is None or ...: self.cache = ...` before use
    return attr in _FRAMEWORK_MOVED and any(
        _framework_module(ctx, owner) for owner in ctx.classes.lineage(cls)
    )


def _construction(ctx: FileContext, cls: ClassInfo, init: ast.AST) -> set[ast.AST]:
    """``__init__`` and the methods of the class it calls on self (``self.init_states(x)``), transitively."""
    found = {init}
    pending = [init]
    while pending:
        function = pending.pop()
        scope = ctx.facts.scope_of.get(function)
        if scope is None or scope.self_name is None:
            continue
        for site in ctx.calls.calls_in(function):
            func = site.node.func
            if not isinstance(func, ast.Attribute):
                continue
            receiver = func.value
            if isinstance(receiver, ast.Name) and receiver.id == scope.self_name:
                method = cls.methods.get(func.attr)
                if method is not None and method not in found:
                    found.add(method)
                    pending.append(method)
    return found


def _framework_module(ctx: FileContext, cls: ClassInfo) -> bool:
    return any((ctx.qualname(base) or "").endswith("LightningModule") for base in cls.node.bases)


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
    """A tensor built right there by torch calls, on whatever device (Module.to() will not move it later):
    ``torch.zeros(n)``, ``torch.tensor(mean).view(-1, 1, 1)``, ``1 / (10000 ** torch.arange(0, d, 2))``."""
    binding = site.binding
    expr = binding.expr
    if binding.how != "value" or binding.path or expr is None:
        return False
    if ctx.infer.site_value(site).kind is not Kind.TENSOR:
        return False
    return _built_tensor(ctx, expr, site)


def _built_tensor(ctx: FileContext, expr: ast.expr, site: AttrSite) -> bool:
    """Whether an expression makes a new tensor from torch factories alone (no other tensor in it)."""
    where = site.scope
    if isinstance(expr, ast.BinOp | ast.UnaryOp):
        factories = 0
        for node in ast.walk(expr):
            if isinstance(node, ast.Call):
                if not _built_tensor(ctx, node, site):
                    if ctx.infer.value(node, where).is_tensor:
                        return False
                else:
                    factories += 1
            elif isinstance(node, ast.Name | ast.Attribute) and ctx.infer.value(node, where).is_tensor:
                return False  # derived from another tensor (a parameter, a buffer)
        return factories > 0 and ctx.infer.value(expr, where).is_tensor
    if not isinstance(expr, ast.Call):
        return False
    root = expr
    while isinstance(root.func, ast.Attribute) and isinstance(root.func.value, ast.Call):
        root = root.func.value
    return ctx.qualname(root.func) in TENSOR_FUNCTIONS


def layers_in_forward(ctx: FileContext) -> Iterator[Hit]:
    """TDL003: a layer with weights or an ``nn.Parameter`` built while ``forward()`` runs: in forward itself,
    in a loop or comprehension there, in a helper it calls (of this file, or of another file whose function a
    forward calls), an ``nn.Sequential`` of such layers built on the fly, a stateful module class of this file
    instantiated there."""
    creations = _creations(ctx)
    if not creations:
        return
    by_function: dict[ast.AST | None, list[tuple[CallSite, str]]] = {}
    by_forward: dict[ClassInfo, list[tuple[CallSite, str]]] = {}
    for creation in creations:
        by_function.setdefault(ctx.enclosing_function(creation[0].where), []).append(creation)
        owner = creation[0].where.forward_of
        if owner is not None:
            by_forward.setdefault(owner, []).append(creation)
    reported: set[ast.AST] = set()
    for cls, functions in ctx.forward_closures.items():
        requirement = ctx.module_requirement(cls)
        if requirement is None or _dry_run(ctx, cls):
            continue
        inside = [creation for function in functions for creation in by_function.get(function, ())]
        seen: set[ast.AST] = set()
        for site, label in sorted([*inside, *by_forward.get(cls, ())], key=lambda c: c[0].node.lineno):
            if site.node in seen:
                continue
            seen.add(site.node)
            reported.add(site.node)
            lazy = site.where.lazy or _cached_lazily(ctx, site.node, cls)
            why = _ONCE if lazy else _EVERY_CALL
            yield hit("TDL003", site.node, requires=requirement, layer=label, cls=cls.name, why=why)
    for site, label in creations:
        function = ctx.enclosing_function(site.where)
        if site.node in reported or function is None:
            continue
        key = ctx.name_key(function)
        if key is not None and "." not in key:  # a module-level helper another file's forward may call
            yield hit("TDL003", site.node, requires=(("forward-calls", key),), layer=label, why=_EVERY_CALL)


_EVERY_CALL = "it is built on the CPU at every call and its weights are never trained"
_ONCE = (
    "it is built on the first call, on the CPU after model.to() has run and outside the parameters the "
    "optimizer was given: it stays there and is never trained"
)


def _dry_run(ctx: FileContext, cls: ClassInfo) -> bool:
    """Whether building the module runs forward once (``self(torch.zeros(...))`` in __init__), so that what
    forward builds lazily exists before model.to() and the optimizer."""
    init = cls.methods.get("__init__")
    if init is None:
        return False
    scope = ctx.facts.scope_of.get(init)
    me = scope.self_name if scope is not None else None
    for site in ctx.calls.calls_in(init):
        func = site.node.func
        if isinstance(func, ast.Name) and func.id == me:
            return True
        if isinstance(func, ast.Attribute) and func.attr == "forward" and isinstance(func.value, ast.Name):
            return func.value.id == me
    return False


def _creations(ctx: FileContext) -> list[tuple[CallSite, str]]:
    """Every call of this file that builds a layer with state (or a container holding one), with its label;
    the layers inside a container built in the same call are its part, not findings of their own."""
    found: list[tuple[CallSite, str]] = []
    inner: set[ast.AST] = set()
    for name, sites in ctx.facts.calls.items():
        if not name[:1].isupper():
            continue
        for site in sites:
            label = _stateful(ctx, site.node)
            if label is None:
                continue
            found.append((site, label))
            if label in _CONTAINER_LABELS:
                inner.update(node for arg in _arguments(site.node) for node in ast.walk(arg))
    return [(site, label) for site, label in found if site.node not in inner]


_CONTAINERS = frozenset({"Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"})
_CONTAINER_LABELS = frozenset(f"nn.{name}" for name in _CONTAINERS)


def _arguments(call: ast.Call) -> list[ast.expr]:
    return [*call.args, *(item.value for item in call.keywords)]


def _stateful(ctx: FileContext, call: ast.Call) -> str | None:
    """``nn.Linear`` for a layer with weights or running statistics, ``nn.Parameter``, ``nn.Sequential`` for a
    container that builds such a layer in its arguments, the class name for a module class of this file whose
    construction creates weights; None for anything else."""
    qualname = ctx.qualname(call.func) or ""
    if qualname == "torch.nn.Parameter":
        return "nn.Parameter"
    prefix = "torch.nn."
    if qualname.startswith(prefix) and qualname[len(prefix) :] in _CONTAINERS:
        holds = any(
            isinstance(node, ast.Call)
            and node is not call
            and _stateful(ctx, node) not in (None, *_CONTAINER_LABELS)
            for arg in _arguments(call)
            for node in ast.walk(arg)
        )
        return f"nn.{qualname[len(prefix) :]}" if holds else None
    layer = layer_name(qualname)
    if layer is not None:
        return f"nn.{layer}" if _has_state(layer, call) else None
    if isinstance(call.func, ast.Name) and qualname == "":
        cls = ctx.classes.unique(call.func.id)
        if cls is not None and ctx.classes.is_module(cls) and _creates_weights(ctx, cls):
            return cls.name
    return None


def _creates_weights(ctx: FileContext, cls: ClassInfo) -> bool:
    """Whether building the module class creates a layer with state or a parameter (its __init__ does)."""
    init = ctx.classes.method(cls, "__init__")
    if init is None:
        return False
    for site in ctx.calls.calls_in(init):
        qualname = ctx.qualname(site.node.func) or ""
        if qualname == "torch.nn.Parameter":
            return True
        layer = layer_name(qualname)
        if layer is not None and _has_state(layer, site.node):
            return True
    return False


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
