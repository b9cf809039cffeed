"""TDL002 (a tensor kept as a plain attribute of an nn.Module) and TDL003 (a layer built inside forward)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from torchdoctor.lint import edits
from torchdoctor.lint.context import FileContext, dotted
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
                # nn.Parameter(...).cuda() stores a plain tensor wherever it runs: never moved, never trained,
                # whether or not it is rebuilt when stale
                parameters = [site for site in sites if _moves_a_new_parameter(ctx, site)]
                stored = parameters or [
                    site
                    for site in sites
                    if site.scope.node in construction and _stores_a_cpu_tensor(ctx, site)
                ]
                if parameters or (
                    stored
                    and not _managed(ctx, cls, attr, sites, construction)
                    and not _converted_at_last(init, sites, stored)
                ):
                    first = min(stored, key=lambda site: site.stmt.lineno)
                    fix = _fix(ctx, cls, attr, first)
                    yield hit("TDL002", first.stmt, requires=requirement, edits=fix, attr=attr, cls=cls.name)


_CONVERSIONS = frozenset({"tolist", "item", "numpy"})


def _converted_at_last(init: ast.AST, sites: list[AttrSite], stored: list[AttrSite]) -> bool:
    """``self.freq_bands = torch.linspace(...)`` then, at the top of ``__init__``, ``self.freq_bands =
    self.freq_bands.numpy().tolist()``: what the module keeps is a list, not a tensor."""
    body = getattr(init, "body", [])
    last = max((site for site in sites if site.stmt in body), key=lambda site: site.stmt.lineno, default=None)
    if last is None or any(site.stmt.lineno >= last.stmt.lineno for site in stored):
        return False
    value = getattr(last.stmt, "value", None)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        return value.func.attr in _CONVERSIONS
    return isinstance(value, ast.List | ast.Tuple | ast.Dict | ast.Constant | ast.ListComp)


def _fix(ctx: FileContext, cls: ClassInfo, attr: str, site: AttrSite) -> tuple[edits.Edit, ...]:
    """The rewrite the code itself calls for, or none: an ``nn.Parameter`` where the tensor is trained
    (``requires_grad=True``, ``requires_grad_()``, an optimizer given it, a comment that says so, a parameter
    moved at once), a buffer where it is state (an integer or boolean tensor, ``requires_grad=False``, a name
    only constants get: a mask, a positional encoding, rotary frequencies, a cache), nothing where the code
    does not say which: the finding offers both."""
    statement = site.stmt
    if not _plain_assignment(site, cls) or ctx.infer.site_value(site).kind is Kind.NONE:
        return ()
    value = statement.value  # type: ignore[attr-defined]
    if _moved_parameter(ctx, value) and _parameter_is_safe(ctx, cls, attr, site):
        return (edits.replace(value, edits.copy(value.func.value)),)  # the Parameter, moved with its module
    if _trained(ctx, cls, attr, site):
        return _as_parameter(ctx, site, value) if _parameter_is_safe(ctx, cls, attr, site) else ()
    if _state(ctx, attr, value) and _buffer_is_safe(ctx, cls, attr, site):
        return _as_buffer(ctx, cls, attr, site)
    return ()


def _plain_assignment(site: AttrSite, cls: ClassInfo) -> bool:
    statement = site.stmt
    return (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Attribute)
        and site.scope.node is cls.methods.get("__init__")
        and site.scope.self_name is not None
    )


_TRAINED_WORDS = re.compile(r"\b(?:learn(?:able|ed)|trainable|parameters?|weights?)\b", re.IGNORECASE)
_STATE_NAME = re.compile(
    r"mask|inv_freq|freqs?$|_cached$|cache$|anchor|pos(?:itional)?_?enc|^pe$|position_ids|causal",
    re.IGNORECASE,
)
_INTEGER_DTYPES = frozenset(
    {"torch.long", "torch.int64", "torch.int", "torch.int32", "torch.int16", "torch.int8", "torch.uint8"}
    | {"torch.bool", "torch.short"}
)
_INTEGER_CASTS = frozenset({"long", "int", "bool", "byte", "short"})


def _trained(ctx: FileContext, cls: ClassInfo, attr: str, site: AttrSite) -> bool:
    value = site.stmt.value  # type: ignore[attr-defined]
    if any(_constant_keyword(node, "requires_grad", True) for node in ast.walk(value)):
        return True
    for function in {site.scope.node, *cls.methods.values()}:
        for node in ast.walk(function):
            if (  # self.w.requires_grad = True, self.w.requires_grad_()
                isinstance(node, ast.Attribute)
                and node.attr in ("requires_grad", "requires_grad_")
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == attr
            ):
                return True
    for calls in ctx.facts.calls.values():
        for call in calls:
            name = ctx.qualname(call.node.func) or ""
            if name.startswith("torch.optim.") and any(
                isinstance(node, ast.Attribute) and node.attr == attr for node in ast.walk(call.node)
            ):
                return True
    return _says_trained(ctx, site.stmt.lineno)


def _constant_keyword(node: ast.AST, name: str, value: object) -> bool:
    return (
        isinstance(node, ast.keyword)
        and node.arg == name
        and isinstance(node.value, ast.Constant)
        and node.value.value is value
    )


def _says_trained(ctx: FileContext, line: int) -> bool:
    """A comment on the line or on the lines just above it calls it a parameter or weights to learn."""
    lines = ctx.lines
    for number in range(max(1, line - 2), line + 1):
        text = lines[number - 1] if number <= len(lines) else ""
        comment = text.partition("#")[2]
        if comment and _TRAINED_WORDS.search(comment):
            return True
    return False


def _state(ctx: FileContext, attr: str, value: ast.expr) -> bool:
    for node in ast.walk(value):
        if (
            isinstance(node, ast.keyword)
            and node.arg == "dtype"
            and ctx.qualname(node.value) in _INTEGER_DTYPES
        ):
            return True
        if _constant_keyword(node, "requires_grad", False):
            return True
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _INTEGER_CASTS
            and not node.args
        ):
            return True
    return bool(_STATE_NAME.search(attr))


def _parameter_is_safe(ctx: FileContext, cls: ClassInfo, attr: str, site: AttrSite) -> bool:
    """An ``nn.Parameter`` takes the attribute's place when every other value it gets is None or a Parameter
    (a Parameter attribute refuses a plain tensor: TypeError) and no ``__setattr__`` of the class is in
    play."""
    if ctx.classes.method(cls, "__setattr__") is not None:
        return False
    return all(
        ctx.infer.site_value(other).kind in (Kind.NONE, Kind.PARAMETER)
        for owner in ctx.classes.lineage(cls)
        for other in owner.attr_sites.get(attr, ())
        if other is not site
    )


def _as_parameter(ctx: FileContext, site: AttrSite, value: ast.expr) -> tuple[edits.Edit, ...]:
    statement = site.stmt
    assert isinstance(statement, ast.Assign)
    parameter = _parameter_name(ctx)
    if parameter is None:
        return ()
    return (
        edits.replace(
            statement.value,
            edits.text(f"{parameter}("),
            edits.copy(value),
            edits.text(")"),
        ),
    )


def _parameter_name(ctx: FileContext) -> str | None:
    """How this file names ``torch.nn.Parameter``: ``nn.Parameter``, ``torch.nn.Parameter``, ``Parameter``."""
    for alias in sorted(ctx.imports.aliases_of("torch.nn.Parameter")):
        return alias
    for alias in sorted(ctx.imports.aliases_of("torch.nn")):
        return f"{alias}.Parameter"
    for alias in sorted(ctx.imports.aliases_of("torch")):
        return f"{alias}.nn.Parameter"
    return None


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
    for the device when: the assignment (a plain one in the class's own ``__init__``: ``_fix`` checked)
    follows ``super().__init__()`` (a buffer needs the module set up), every value the attribute ever gets is
    a tensor or None (a buffer refuses anything else), the class has no attribute of that name and sets none
    before, and no ``__setattr__``/``__getattr__`` of the class is in play."""
    statement = site.stmt
    if any(ctx.classes.method(cls, name) is not None for name in ("__setattr__", "__getattr__")):
        return False
    if any(_class_attribute(owner, attr) for owner in ctx.classes.lineage(cls)):
        return False  # register_buffer refuses a name the class already has: KeyError
    init = site.scope.node
    for owner in ctx.classes.lineage(cls):
        for other in owner.attr_sites.get(attr, ()):
            value = ctx.infer.site_value(other)
            if not (value.is_tensor or value.kind is Kind.NONE):
                return False
            if other is not site and other.scope.node is init and other.stmt.lineno < statement.lineno:
                return False  # set before: register_buffer raises "attribute already exists"
    return any(
        _initialises_base(call.node) and ctx.paths(init).before(call.node, statement)
        for call in ctx.calls.calls_in(init)
    )


def _class_attribute(cls: ClassInfo, attr: str) -> bool:
    for statement in cls.node.body:
        targets = (
            statement.targets
            if isinstance(statement, ast.Assign)
            else [statement.target]
            if isinstance(statement, ast.AnnAssign) and statement.value is not None
            else []
        )
        if any(isinstance(target, ast.Name) and target.id == attr for target in targets):
            return True
    return False


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
    ``torch.zeros(n)``, ``torch.tensor(mean).view(-1, 1, 1)``, ``1 / (10000 ** torch.arange(0, d, 2))``, a
    local built so (``pe = torch.zeros(n, d)``, then ``self.pe = pe.unsqueeze(0)``), one element of a tuple
    (``self.a, self.b = torch.zeros(3), torch.zeros(4)``), and an ``nn.Parameter`` moved at once
    (``nn.Parameter(torch.ones(3)).cuda()`` returns a plain tensor, no parameter)."""
    binding = site.binding
    expr = binding.expr
    if binding.how != "value" or expr is None:
        return False
    for index in binding.path:
        if not isinstance(expr, ast.Tuple | ast.List) or index >= len(expr.elts):
            return False
        expr = expr.elts[index]
    if _moved_parameter(ctx, expr):
        return True
    if not binding.path and ctx.infer.site_value(site).kind is not Kind.TENSOR:
        return False
    return _built_tensor(ctx, expr, site)


def _moves_a_new_parameter(ctx: FileContext, site: AttrSite) -> bool:
    binding = site.binding
    return binding.how == "value" and not binding.path and _moved_parameter(ctx, binding.expr)


def _moved_parameter(ctx: FileContext, expr: ast.expr | None) -> bool:
    """``nn.Parameter(...).cuda()`` / ``.to(...)``: the move returns a plain tensor, not a Parameter."""
    return (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Attribute)
        and expr.func.attr in _MOVES
        and isinstance(expr.func.value, ast.Call)
        and ctx.qualname(expr.func.value.func) == "torch.nn.Parameter"
    )


_MAX_LOCAL_DEPTH = 4


def _built_tensor(ctx: FileContext, expr: ast.expr, site: AttrSite, depth: int = 0) -> bool:
    """Whether an expression makes a new tensor from torch factories alone (no other tensor in it), or from
    locals of its function built so."""
    where = site.scope
    if isinstance(expr, ast.Name):
        return _built_local(ctx, expr.id, site, depth)
    if isinstance(expr, ast.BinOp | ast.UnaryOp):
        factories = 0
        for node in ast.walk(expr):
            if isinstance(node, ast.Call):
                if not _built_tensor(ctx, node, site, depth):
                    if ctx.infer.value(node, where).is_tensor:
                        return False
                else:
                    factories += 1
            elif isinstance(node, ast.Name) and _built_local(ctx, node.id, site, depth):
                factories += 1
            elif isinstance(node, ast.Name | ast.Attribute) and ctx.infer.value(node, where).is_tensor:
                return False  # derived from another tensor (a parameter, a buffer)
        return factories > 0 and ctx.infer.value(expr, where).is_tensor
    if not isinstance(expr, ast.Call):
        return False
    root = expr
    while isinstance(root.func, ast.Attribute) and isinstance(root.func.value, ast.Call):
        root = root.func.value
    if (
        isinstance(root.func, ast.Attribute)
        and isinstance(root.func.value, ast.Name)
        and ctx.infer.value(expr, where).is_tensor
        and _built_local(ctx, root.func.value.id, site, depth)
    ):
        return True  # pe.unsqueeze(0).transpose(0, 1), pe a local built from factories
    return ctx.qualname(root.func) in TENSOR_FUNCTIONS


def _built_local(ctx: FileContext, name: str, site: AttrSite, depth: int) -> bool:
    """A local of the method that every binding gives a tensor built from factories alone."""
    if depth >= _MAX_LOCAL_DEPTH:
        return False
    scope = ctx.infer.binding_scope(name, site.scope)
    if scope is None or scope.kind != "function" or scope is not site.scope:
        return False
    bindings = scope.bindings.get(name) or []
    return bool(bindings) and all(
        binding.how == "value"
        and not binding.path
        and binding.expr is not None
        and _built_tensor(ctx, binding.expr, site, depth + 1)
        for binding in bindings
    )


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
            if lazy and _materialised_before_training(ctx, cls):
                continue
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


def _dry_run(ctx: FileContext, cls: ClassInfo, depth: int = 0) -> bool:
    """Whether building the module runs forward once (``self(torch.zeros(...))`` in __init__), itself or a
    module of this file that builds it in its own __init__ before such a run (BYOL's NetWrapper, whose
    projector the dummy forward of BYOL.__init__ builds), so that what forward builds lazily exists before
    model.to() and the optimizer."""
    if _runs_itself_once(ctx, cls):
        return True
    if depth >= 3:
        return False
    for classes in ctx.facts.classes.values():
        for owner in classes:
            init = owner.methods.get("__init__")
            if owner is cls or init is None:
                continue
            if any(
                isinstance(site.node.func, ast.Name) and site.node.func.id == cls.name
                for site in ctx.calls.calls_in(init)
            ) and _dry_run(ctx, owner, depth + 1):
                return True
    return False


def _runs_itself_once(ctx: FileContext, cls: ClassInfo) -> bool:
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


def _materialised_before_training(ctx: FileContext, cls: ClassInfo) -> bool:
    """Whether the code that builds the model runs it once (``model(dummy)``) before it moves it and before
    it hands its parameters to an optimizer: what forward builds lazily exists by then."""
    for sites in ctx.facts.calls.values():
        for site in sites:
            func = site.node.func
            if not isinstance(func, ast.Name):
                continue
            value = ctx.value(func, site.where)
            if value.kind is not Kind.MODULE or value.cls is not cls:
                continue
            later = _uses_in_training(ctx, func.id, site)
            if later and all(line > site.node.lineno for line in later):
                return True
    return False


def _uses_in_training(ctx: FileContext, name: str, run: CallSite) -> list[int]:
    """The lines, in the function of ``run``, that move the model (``model.cuda()``) or give it to an
    optimizer (``torch.optim.Adam(model.parameters())``)."""
    lines = []
    for site in ctx.calls.calls_in(ctx.enclosing_function(run.where) or ctx.tree):
        call = site.node
        func = call.func
        moves = isinstance(func, ast.Attribute) and func.attr in ("to", "cuda") and dotted(func.value) == name
        optimises = (ctx.qualname(func) or "").startswith("torch.optim.") and any(
            isinstance(node, ast.Name) and node.id == name for node in ast.walk(call)
        )
        if moves or optimises:
            lines.append(call.lineno)
    return lines


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
