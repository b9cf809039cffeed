"""One walk over a file's syntax tree: its scopes and what binds each name in them, its classes, and its
calls grouped by the called name, each with where it is (scope, inside a loop, inside a forward())."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from torchdoctor.lint.imports import ImportTable
from torchdoctor.lint.torchapi import cuda_literals

How = Literal["value", "iter", "param", "self", "opaque", "with"]
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True, slots=True)
class Binding:
    """One way a name gets its value: ``value`` (element ``path`` of ``expr``), ``iter`` (element ``path``
    of an item of iterating ``expr``), ``param`` (``expr`` is the annotation), ``self``, ``with`` (``expr``
    is the context manager whose ``__enter__`` gives it), ``opaque``."""

    how: How
    expr: ast.expr | None = None
    path: tuple[int, ...] = ()
    outer: bool = False  # evaluate expr in the parent scope (the first iterable of a comprehension)


OPAQUE = Binding("opaque")


@dataclass(eq=False)
class Scope:
    kind: Literal["module", "class", "function", "comprehension"]
    node: ast.AST
    parent: Scope | None
    owner: ClassInfo | None = None  # class scopes and methods: the class
    self_name: str | None = None  # methods: the name of their first parameter
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    opaque: set[str] = field(default_factory=set)
    functions: dict[str, list[FunctionNode]] = field(default_factory=dict)  # defined right in this scope

    def bind(self, name: str, binding: Binding) -> None:
        self.bindings.setdefault(name, []).append(binding)

    @property
    def function_name(self) -> str | None:
        node = self.node
        return node.name if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else None


@dataclass(frozen=True, slots=True)
class AttrSite:
    """``self.<attr> = ...`` in a method."""

    binding: Binding
    scope: Scope
    stmt: ast.stmt


@dataclass(eq=False)
class ClassInfo:
    name: str
    node: ast.ClassDef
    methods: dict[str, FunctionNode] = field(default_factory=dict)
    attr_sites: dict[str, list[AttrSite]] = field(default_factory=dict)
    registered: dict[str, str] = field(default_factory=dict)  # attr -> "buffer" | "parameter" | "module"
    dynamic_registration: bool = False  # register_buffer(name_variable, ...)


@dataclass(frozen=True, slots=True)
class Where:
    scope: Scope
    in_loop: bool = False
    forward_of: ClassInfo | None = None  # inside forward() of this class (nested functions included)
    rank0: bool = False  # inside `if rank == 0:` (or local_rank, get_rank(), is_main_process())
    lazy: bool = False  # inside `if self.x is None:` or `if not hasattr(self, "x"):`: runs once

    def inner(self, scope: Scope, in_loop: bool) -> Where:
        """The same place, one scope or loop further in (a nested function starts afresh)."""
        if scope is not self.scope and scope.kind == "function":
            return Where(scope, in_loop, self.forward_of)
        return Where(scope, in_loop, self.forward_of, self.rank0, self.lazy)


@dataclass(frozen=True, slots=True)
class CallSite:
    node: ast.Call
    where: Where


@dataclass
class FileFacts:
    imports: ImportTable
    module: Scope
    classes: dict[str, list[ClassInfo]] = field(default_factory=dict)
    functions: dict[str, list[FunctionNode]] = field(default_factory=dict)
    scope_of: dict[ast.AST, Scope] = field(default_factory=dict)  # function and lambda nodes
    returns: dict[ast.AST, list[ast.expr]] = field(default_factory=dict)  # function -> its return values
    generators: set[ast.AST] = field(default_factory=set)  # functions that yield
    calls: dict[str, list[CallSite]] = field(default_factory=dict)  # by the last part of the called name
    statement_calls: list[CallSite] = field(default_factory=list)  # calls whose result is discarded
    calls_in: dict[ast.AST, list[CallSite]] = field(default_factory=dict)  # by enclosing function (or module)
    device_assigns: list[tuple[ast.Assign | ast.AnnAssign, Where]] = field(default_factory=list)
    assigns: list[tuple[ast.Assign | ast.AnnAssign, Where]] = field(default_factory=list)  # with a value
    self_assigned: dict[ast.Call, str] = field(default_factory=dict)  # self.<attr> = <call>
    has_cpu_or_mps_literal: bool = False
    has_cuda_literal: bool = False
    sets_visible_devices: bool = False  # os.environ["CUDA_VISIBLE_DEVICES"] = <not a constant>

    def calls_named(self, *names: str) -> list[CallSite]:
        return [site for name in names for site in self.calls.get(name, ())]


_REGISTRATIONS = {"register_buffer": "buffer", "register_parameter": "parameter", "add_module": "module"}
_SKIPPED_FIELDS = frozenset(
    {
        "ctx",
        "id",
        "attr",
        "arg",
        "type_comment",
        "kind",
        "level",
        "module",
        "name",
        "op",
        "ops",
        "type_ignores",
    }
)
_FIELDS: dict[type, tuple[str, ...]] = {}
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def scan(tree: ast.Module, package: str | None = None) -> FileFacts:
    """The facts of one file; ``package`` is the package it belongs to (see ImportTable)."""
    facts = _Scanner(tree, package).facts
    facts.imports.assume_star_exports(facts.module.bindings)
    return facts


class _Scanner:
    def __init__(self, tree: ast.Module, package: str | None) -> None:
        module = Scope("module", tree, None)
        self.facts = FileFacts(imports=ImportTable(package), module=module)
        self.stack: list[tuple[ast.AST, Where]] = []
        handlers: dict[type, Callable[[Any, Where], None] | None] = {
            ast.Name: None,
            ast.Import: self.on_import,
            ast.ImportFrom: self.on_import,
            ast.ClassDef: self.on_class,
            ast.FunctionDef: self.on_function,
            ast.AsyncFunctionDef: self.on_function,
            ast.Lambda: self.on_lambda,
            ast.For: self.on_for,
            ast.AsyncFor: self.on_for,
            ast.While: self.on_while,
            ast.Assign: self.on_assign,
            ast.AnnAssign: self.on_ann_assign,
            ast.NamedExpr: self.on_named_expr,
            ast.With: self.on_with,
            ast.AsyncWith: self.on_with,
            ast.ExceptHandler: self.on_except,
            ast.Global: self.on_global,
            ast.Nonlocal: self.on_global,
            ast.MatchAs: self.on_match_capture,
            ast.MatchStar: self.on_match_capture,
            ast.MatchMapping: self.on_match_capture,
            ast.Expr: self.on_expr,
            ast.Return: self.on_return,
            ast.Yield: self.on_yield,
            ast.YieldFrom: self.on_yield,
            ast.If: self.on_if,
            ast.Call: self.on_call,
            ast.Constant: self.on_constant,
        }
        for kind in _COMPREHENSIONS:
            handlers[kind] = self.on_comprehension
        self.push(tree.body, Where(module))
        stack = self.stack
        while stack:
            node, where = stack.pop()
            handler = handlers.get(type(node), self.push_children)
            if handler is not None:
                handler(node, where)

    # -- walking -------------------------------------------------------------------------------------------

    def push(self, nodes: Iterable[ast.AST | None], where: Where) -> None:
        # Reversed, so that the stack hands statements out in source order (fewer fixed-point rounds later).
        stack = self.stack
        for node in reversed(nodes if type(nodes) is list else list(nodes)):
            kind = type(node)
            if kind is ast.Constant:
                self.on_constant(node, where)  # type: ignore[arg-type]
            elif node is not None and kind is not ast.Name:
                stack.append((node, where))

    def push_children(self, node: ast.AST, where: Where) -> None:
        # The hot loop of the linter: a name needs no visit (bindings are read from the statements that make
        # them) and a constant is looked at here rather than pushed.
        fields = _FIELDS.get(type(node))
        if fields is None:
            fields = _FIELDS[type(node)] = tuple(f for f in node._fields if f not in _SKIPPED_FIELDS)
        stack = self.stack
        for name in fields:
            value = getattr(node, name, None)
            if type(value) is list:
                for item in value:
                    kind = type(item)
                    if kind is ast.Name:
                        continue
                    if kind is ast.Constant:
                        self.on_constant(item, where)
                    elif isinstance(item, ast.AST):
                        stack.append((item, where))
            elif value is not None:
                kind = type(value)
                if kind is ast.Constant:
                    self.on_constant(value, where)
                elif kind is not ast.Name and isinstance(value, ast.AST):
                    stack.append((value, where))

    # -- binding names -------------------------------------------------------------------------------------

    def bind_target(
        self,
        scope: Scope,
        target: ast.expr,
        binding: Binding,
        stmt: ast.stmt | None,
        path: tuple[int, ...] = (),
    ) -> None:
        if isinstance(target, ast.Name):
            scope.bind(target.id, Binding(binding.how, binding.expr, path, binding.outer))
        elif isinstance(target, ast.Tuple | ast.List):
            if any(isinstance(elt, ast.Starred) for elt in target.elts):
                self.bind_opaque(scope, target, stmt)
            else:
                for index, elt in enumerate(target.elts):
                    self.bind_target(scope, elt, binding, stmt, (*path, index))
        elif isinstance(target, ast.Starred):
            self.bind_opaque(scope, target, stmt)
        elif isinstance(target, ast.Attribute) and stmt is not None:
            self.bind_self_attr(scope, target, Binding(binding.how, binding.expr, path, binding.outer), stmt)

    def bind_opaque(self, scope: Scope, target: ast.expr, stmt: ast.stmt | None) -> None:
        for node in ast.walk(target):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                scope.bind(node.id, OPAQUE)
            elif isinstance(node, ast.Attribute) and stmt is not None:
                self.bind_self_attr(scope, node, OPAQUE, stmt)

    def bind_self_attr(self, scope: Scope, target: ast.Attribute, binding: Binding, stmt: ast.stmt) -> None:
        base = target.value
        if scope.owner is not None and isinstance(base, ast.Name) and base.id == scope.self_name:
            scope.owner.attr_sites.setdefault(target.attr, []).append(AttrSite(binding, scope, stmt))

    def bind_arguments(self, scope: Scope, args: ast.arguments) -> None:
        positional = [*args.posonlyargs, *args.args]
        for index, arg in enumerate(positional):
            if index == 0 and scope.self_name is not None:
                scope.bind(arg.arg, Binding("self"))
            else:
                scope.bind(arg.arg, Binding("param", arg.annotation))
        for arg in args.kwonlyargs:
            scope.bind(arg.arg, Binding("param", arg.annotation))
        for rest in (args.vararg, args.kwarg):
            if rest is not None:
                scope.bind(rest.arg, OPAQUE)

    # -- handlers ------------------------------------------------------------------------------------------

    def on_import(self, node: ast.Import | ast.ImportFrom, where: Where) -> None:
        self.facts.imports.add(node)

    def on_class(self, node: ast.ClassDef, where: Where) -> None:
        info = ClassInfo(node.name, node)
        self.facts.classes.setdefault(node.name, []).append(info)
        where.scope.bind(node.name, OPAQUE)
        self.push([*node.decorator_list, *node.bases, *node.keywords], where)
        self.push(node.body, Where(Scope("class", node, where.scope, owner=info)))

    def on_function(self, node: FunctionNode, where: Where) -> None:
        outer = where.scope
        outer.bind(node.name, OPAQUE)
        outer.functions.setdefault(node.name, []).append(node)
        self.facts.functions.setdefault(node.name, []).append(node)
        owner = outer.owner if outer.kind == "class" else None
        scope = Scope("function", node, outer, owner=owner)
        if owner is not None:
            owner.methods[node.name] = node
            if not any(_decorator_name(d) in ("staticmethod", "classmethod") for d in node.decorator_list):
                positional = [*node.args.posonlyargs, *node.args.args]
                scope.self_name = positional[0].arg if positional else None
        self.facts.scope_of[node] = scope
        self.bind_arguments(scope, node.args)
        self.push([*node.decorator_list, *node.args.defaults, *node.args.kw_defaults, node.returns], where)
        annotations = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
        self.push([arg.annotation for arg in annotations], where)
        forward_of = owner if owner is not None and node.name == "forward" else where.forward_of
        self.facts.returns[node] = []
        self.push(node.body, Where(scope, False, forward_of))

    def on_lambda(self, node: ast.Lambda, where: Where) -> None:
        scope = Scope("function", node, where.scope)
        self.facts.scope_of[node] = scope
        self.bind_arguments(scope, node.args)
        self.push([*node.args.defaults, *node.args.kw_defaults], where)
        self.facts.returns[node] = [node.body]
        self.push([node.body], where.inner(scope, False))

    def on_comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp, where: Where
    ) -> None:
        scope = Scope("comprehension", node, where.scope)
        inner = where.inner(scope, True)
        for index, generator in enumerate(node.generators):
            self.bind_target(scope, generator.target, Binding("iter", generator.iter, outer=index == 0), None)
            self.push([generator.iter], where if index == 0 else inner)
            self.push(generator.ifs, inner)
        if isinstance(node, ast.DictComp):
            self.push([node.key, node.value], inner)
        else:
            self.push([node.elt], inner)

    def on_for(self, node: ast.For | ast.AsyncFor, where: Where) -> None:
        self.bind_target(where.scope, node.target, Binding("iter", node.iter), node)
        self.push([node.iter, *node.orelse], where)
        self.push(node.body, where.inner(where.scope, True))

    def on_while(self, node: ast.While, where: Where) -> None:
        self.push(node.orelse, where)
        self.push([node.test, *node.body], where.inner(where.scope, True))

    def on_if(self, node: ast.If, where: Where) -> None:
        self.push([node.test, *node.orelse], where)
        rank0 = where.rank0 or _tests_rank_zero(node.test)
        lazy = where.lazy or _tests_unset_attribute(node.test)
        if (rank0, lazy) != (where.rank0, where.lazy):
            where = Where(where.scope, where.in_loop, where.forward_of, rank0, lazy)
        self.push(node.body, where)

    def on_yield(self, node: ast.Yield | ast.YieldFrom, where: Where) -> None:
        scope = where.scope
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent
        self.facts.generators.add(scope.node)
        self.push_children(node, where)

    def on_return(self, node: ast.Return, where: Where) -> None:
        scope = where.scope
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent
        if node.value is not None and scope.kind == "function":
            self.facts.returns.setdefault(scope.node, []).append(node.value)
        self.push([node.value], where)

    def on_assign(self, node: ast.Assign, where: Where) -> None:
        for target in node.targets:
            self.bind_target(where.scope, target, Binding("value", node.value), node)
        self.note_assignment(node, node.targets, node.value, where)
        self.push([node.value, *node.targets], where)

    def on_ann_assign(self, node: ast.AnnAssign, where: Where) -> None:
        if node.value is not None:
            self.bind_target(where.scope, node.target, Binding("value", node.value), node)
            self.note_assignment(node, [node.target], node.value, where)
        self.push([node.value, node.target], where)

    def note_assignment(
        self, node: ast.Assign | ast.AnnAssign, targets: list[ast.expr], value: ast.expr, where: Where
    ) -> None:
        self.facts.assigns.append((node, where))
        if isinstance(value, ast.Call):
            for target in targets:
                if isinstance(target, ast.Attribute) and _is_name(target.value, where.scope.self_name):
                    self.facts.self_assigned[value] = target.attr
        elif isinstance(value, ast.Constant | ast.IfExp) and cuda_literals(value):
            self.facts.device_assigns.append((node, where))
        if not isinstance(value, ast.Constant):
            for target in targets:
                key = target.slice if isinstance(target, ast.Subscript) else None
                if isinstance(key, ast.Constant) and key.value == "CUDA_VISIBLE_DEVICES":
                    self.facts.sets_visible_devices = True

    def on_named_expr(self, node: ast.NamedExpr, where: Where) -> None:
        scope = where.scope
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent
        scope.bind(node.target.id, Binding("value", node.value))
        self.push([node.value], where)

    def on_with(self, node: ast.With | ast.AsyncWith, where: Where) -> None:
        for item in node.items:
            if isinstance(item.optional_vars, ast.Name):
                where.scope.bind(item.optional_vars.id, Binding("with", item.context_expr))
            elif item.optional_vars is not None:
                self.bind_opaque(where.scope, item.optional_vars, node)
        self.push_children(node, where)

    def on_except(self, node: ast.ExceptHandler, where: Where) -> None:
        if node.name:
            where.scope.bind(node.name, OPAQUE)
        self.push_children(node, where)

    def on_global(self, node: ast.Global | ast.Nonlocal, where: Where) -> None:
        where.scope.opaque.update(node.names)

    def on_match_capture(self, node: ast.MatchAs | ast.MatchStar | ast.MatchMapping, where: Where) -> None:
        name = node.rest if isinstance(node, ast.MatchMapping) else node.name
        if name:
            where.scope.bind(name, OPAQUE)
        self.push_children(node, where)

    def on_expr(self, node: ast.Expr, where: Where) -> None:
        if isinstance(node.value, ast.Call):
            self.facts.statement_calls.append(CallSite(node.value, where))
        self.push([node.value], where)

    def on_call(self, node: ast.Call, where: Where) -> None:
        func = node.func
        if isinstance(func, ast.Attribute):
            name = func.attr
            if name in _REGISTRATIONS and isinstance(func.value, ast.Name):
                self.note_registration(node, func.value.id, _REGISTRATIONS[name], where)
        elif isinstance(func, ast.Name):
            name = func.id
        else:
            name = ""
        if name:
            site = CallSite(node, where)
            self.facts.calls.setdefault(name, []).append(site)
            self.facts.calls_in.setdefault(enclosing_function(where.scope).node, []).append(site)
            if name == "setattr" and len(node.args) == 3 and _is_name(node.args[0], where.scope.self_name):
                self.note_setattr(node, where)
        self.push_children(node, where)

    def note_setattr(self, node: ast.Call, where: Where) -> None:
        """``setattr(self, "mask", value)`` stores an attribute as ``self.mask = value`` does; under a
        computed name (``setattr(self, f"w{i}", ...)``) it is kept under the name's source text."""
        owner = where.scope.owner
        if owner is None:
            return
        key = node.args[1]
        attr = key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else ast.unparse(key)
        statement = ast.Expr(value=node, lineno=node.lineno, col_offset=node.col_offset)
        binding = Binding("value", node.args[2])
        owner.attr_sites.setdefault(attr, []).append(AttrSite(binding, where.scope, statement))

    def note_registration(self, node: ast.Call, receiver: str, kind: str, where: Where) -> None:
        owner = where.scope.owner
        if owner is None or receiver != where.scope.self_name:
            return
        first = node.args[0] if node.args else None
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            owner.registered[first.value] = kind
        else:
            owner.dynamic_registration = True

    def on_constant(self, node: ast.Constant, where: Where) -> None:
        value = node.value
        if type(value) is str and value[:1] in ("c", "m"):
            if value.startswith(("cpu", "mps")):
                self.facts.has_cpu_or_mps_literal = True
            elif value.startswith("cuda"):
                self.facts.has_cuda_literal = True


_RANK_NAMES = frozenset({"rank", "local_rank", "global_rank", "gpu", "node_rank", "process_index"})
_MAIN_PROCESS = frozenset(
    {"is_main_process", "is_master", "is_rank_zero", "is_global_zero", "is_local_master"}
)


def _rank_name(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Call):
        expr = expr.func
        name = expr.attr if isinstance(expr, ast.Attribute) else expr.id if isinstance(expr, ast.Name) else ""
        return "rank" if name in ("get_rank", "get_local_rank") else None
    name = expr.attr if isinstance(expr, ast.Attribute) else expr.id if isinstance(expr, ast.Name) else ""
    return name if name.lower() in _RANK_NAMES else None


def _tests_rank_zero(test: ast.expr) -> bool:
    """``rank == 0``, ``args.local_rank == 0``, ``dist.get_rank() == 0``, ``not rank``, ``is_main_process()``,
    alone or as one side of an ``and``."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_tests_rank_zero(value) for value in test.values)
    if isinstance(test, ast.Compare):
        if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq | ast.Is):
            return False
        left, right = test.left, test.comparators[0]
        if isinstance(right, ast.Constant) and right.value == 0 and right.value is not False:
            return _rank_name(left) is not None
        if isinstance(left, ast.Constant) and left.value == 0 and left.value is not False:
            return _rank_name(right) is not None
        return False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _rank_name(test.operand) is not None
    if isinstance(test, ast.Call):
        func = test.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        return name in _MAIN_PROCESS
    if isinstance(test, ast.Attribute | ast.Name):
        name = test.attr if isinstance(test, ast.Attribute) else test.id
        return name in _MAIN_PROCESS
    return False


def enclosing_function(scope: Scope) -> Scope:
    """The function (or lambda) a scope's code runs in; the module scope for top-level and class-body code."""
    current = scope
    while current.kind in ("comprehension", "class") and current.parent is not None:
        current = current.parent
    return current


def _tests_unset_attribute(test: ast.expr) -> bool:
    """``self.x is None``, ``not self.x``, ``not hasattr(self, "x")``, or one of them in an ``or``."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return any(_tests_unset_attribute(value) for value in test.values)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is | ast.Eq):
        right = test.comparators[0]
        return (
            isinstance(test.left, ast.Attribute) and isinstance(right, ast.Constant) and right.value is None
        )
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        operand = test.operand
        if isinstance(operand, ast.Attribute):
            return True
        return (
            isinstance(operand, ast.Call)
            and isinstance(operand.func, ast.Name)
            and operand.func.id == "hasattr"
        )
    return False


def _is_name(node: ast.expr, name: str | None) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _decorator_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None
