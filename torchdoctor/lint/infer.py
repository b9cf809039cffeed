"""What a name or an expression holds: a tensor, a module, a DataLoader or its batches, a device.

Flow-insensitive per scope: a name's value is the join of everything bound to it in its scope, computed to
a fixed point (so ``x = x.to(device)`` keeps x a tensor). Anything not recognised is UNKNOWN, and UNKNOWN
absorbs: the rules stay silent about it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from enum import Enum

from torchdoctor.lint.classes import ClassTable
from torchdoctor.lint.loaders import DATALOADER, LoaderInfo
from torchdoctor.lint.scan import AttrSite, Binding, ClassInfo, FileFacts, Scope
from torchdoctor.lint.torchapi import (
    CUDA_DEVICE,
    MODULE_SELF_METHODS,
    TENSOR_ATTRIBUTES,
    TENSOR_FUNCTIONS,
    TENSOR_METHODS,
    TENSOR_PRODUCERS,
    is_model_factory,
    layer_name,
)


class Kind(Enum):
    BOTTOM = "nothing yet"
    UNKNOWN = "unknown"
    TENSOR = "tensor"
    PARAMETER = "nn.Parameter"
    BUFFER = "registered buffer"
    MODULE = "nn.Module"
    DATALOADER = "DataLoader"
    BATCH = "DataLoader batch"
    DEVICE = "device"
    SELF = "self"
    OBJECT = "instance of a class of this file"
    NONE = "None"


class Cuda(Enum):
    YES = "cuda"
    MAYBE = "cuda or not"
    NO = "not cuda"
    UNKNOWN = "unknown"


_TENSOR_KINDS = frozenset({Kind.TENSOR, Kind.PARAMETER, Kind.BUFFER})


# Where a value came from when this file cannot say what it is: ("param", function, name, position), a
# parameter of a function of this file (position among the arguments of a call, None for keyword-only).
Origin = tuple[str, str, str, int | None]


@dataclass(frozen=True, slots=True)
class Value:
    kind: Kind
    loader: LoaderInfo | None = None  # TENSOR and BATCH that come straight from a DataLoader; DATALOADER
    cls: ClassInfo | None = None  # SELF, OBJECT, MODULE of a class of this file
    cuda: Cuda | None = None  # DEVICE
    origin: Origin | None = None  # DATALOADER, BATCH and TENSOR iterated from a parameter

    @property
    def is_tensor(self) -> bool:
        return self.kind in _TENSOR_KINDS

    @property
    def may_be_cuda(self) -> bool:
        return self.kind is Kind.DEVICE and self.cuda in (Cuda.YES, Cuda.MAYBE)


BOTTOM = Value(Kind.BOTTOM)
NONE = Value(Kind.NONE)
UNKNOWN = Value(Kind.UNKNOWN)
TENSOR = Value(Kind.TENSOR)
MODULE = Value(Kind.MODULE)
_REGISTERED = {"buffer": Value(Kind.BUFFER), "parameter": Value(Kind.PARAMETER), "module": MODULE}
_OTHER_DEVICE = re.compile(r"(?:cpu|mps|xpu|meta)(?::\d+)?")
_PROGRESS_WRAPPERS = frozenset({"tqdm", "tqdm_notebook", "track", "progress_bar"})
_MAX_ROUNDS = 8
# How many calls deep the return value of a function of this file is followed (a chain of helpers deeper than
# this is unknown rather than a recursion the interpreter cannot take).
_MAX_CALL_DEPTH = 24
# How many return values one file may compute: functions that call each other in a dense web would otherwise
# be explored path by path.
_RETURN_BUDGET = 20_000
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.MatMult)


def join(a: Value, b: Value) -> Value:
    """The least value that covers both (UNKNOWN when they disagree)."""
    if a.kind is Kind.BOTTOM or a == b:
        return b
    if b.kind is Kind.BOTTOM:
        return a
    # None on one path: whatever the other path holds is what a method call on the name can meet.
    if a.kind is Kind.NONE and b.kind is not Kind.UNKNOWN:
        return b
    if b.kind is Kind.NONE and a.kind is not Kind.UNKNOWN:
        return a
    if {a.kind, b.kind} == {Kind.TENSOR, Kind.BATCH}:
        # an item of a batch on one path, the batch on another (`for i, v in enumerate(data)` and
        # `for k, v in data.items()`): data of the same loader either way, and a batch may be one tensor
        a, b = (
            Value(Kind.BATCH, loader=a.loader, cls=a.cls, origin=a.origin),
            Value(Kind.BATCH, loader=b.loader, cls=b.cls, origin=b.origin),
        )
    if a.kind is not b.kind:
        return UNKNOWN
    if a.kind is Kind.DEVICE:
        if Cuda.UNKNOWN in (a.cuda, b.cuda):
            return Value(Kind.DEVICE, cuda=Cuda.UNKNOWN)
        return Value(Kind.DEVICE, cuda=Cuda.MAYBE)
    if a.kind in (Kind.TENSOR, Kind.MODULE, Kind.BATCH):
        # A tensor that may come from a loader keeps the loader: any CPU tensor that is not pinned is
        # pageable alike.
        loader = (
            a.loader if b.loader is None or b.loader is a.loader else b.loader if a.loader is None else None
        )
        origin = (
            a.origin if b.origin is None or b.origin == a.origin else b.origin if a.origin is None else None
        )
        return Value(a.kind, loader=loader, cls=a.cls if a.cls is b.cls else None, origin=origin)
    if a.kind is Kind.DATALOADER:
        return Value(Kind.DATALOADER, loader=a.loader if a.loader is b.loader else None)
    return UNKNOWN


def device_string(text: str) -> Value:
    if CUDA_DEVICE.fullmatch(text):
        return Value(Kind.DEVICE, cuda=Cuda.YES)
    if _OTHER_DEVICE.fullmatch(text):
        return Value(Kind.DEVICE, cuda=Cuda.NO)
    return UNKNOWN


class Inference:
    def __init__(
        self,
        facts: FileFacts,
        classes: ClassTable,
        loaders: dict[ast.Call, LoaderInfo],
        implicit_loader: LoaderInfo | None,
    ) -> None:
        self.imports = facts.imports
        self.classes = classes
        self.loaders = loaders
        # The loader a loop over a parameter named like a loader iterates (every loader of the file agrees).
        self.implicit_loader = implicit_loader
        self._envs: dict[Scope, dict[str, Value]] = {}
        self._computing: set[Scope] = set()
        self._attrs: dict[str, dict[ClassInfo, Value]] = {}
        self._attrs_computing: set[tuple[ClassInfo, str]] = set()
        self._returns: dict[ast.AST, Value] = {}
        self._returns_computing: set[ast.AST] = set()
        self._depth = 0
        self._cycles = 0  # how many times a return value was asked while being computed
        self._budget = _RETURN_BUDGET
        self.facts = facts

    def value(self, expr: ast.expr, scope: Scope) -> Value:
        return self._eval(expr, scope, None)

    def site_value(self, site: AttrSite) -> Value:
        """What one ``self.<attr> = ...`` stores."""
        return self._binding_value(site.binding, site.scope, None)

    def attr(self, cls: ClassInfo, name: str) -> Value:
        """The join of everything the class and its local bases store in ``self.<name>``."""
        key = (cls, name)
        memo = self._attrs.setdefault(name, {})
        known = memo.get(cls)
        if known is None:
            if key in self._attrs_computing:
                return BOTTOM  # self.h = self.h.to(device): the value flows into itself
            self._attrs_computing.add(key)
            try:
                known = self.classes.fold(
                    cls, memo, lambda owner, bases: self._own_attr(owner, name, bases), BOTTOM
                )
            finally:
                self._attrs_computing.discard(key)
        return UNKNOWN if known.kind is Kind.BOTTOM else known

    def _own_attr(self, owner: ClassInfo, name: str, inherited: list[Value]) -> Value:
        value = BOTTOM
        registered = owner.registered.get(name)
        if registered is not None:
            value = join(value, _REGISTERED[registered])
        for site in owner.attr_sites.get(name, ()):
            value = join(value, self._binding_value(site.binding, site.scope, None))
        for base in inherited:
            value = join(value, base)
        return value

    def returned(self, function: ast.AST) -> Value:
        """What a function of this file returns: the join of its return statements (None when it has none),
        unknown for a generator."""
        known = self._returns.get(function)
        if known is not None:
            return known
        if function in self._returns_computing:
            self._cycles += 1
            return BOTTOM  # recursion: the other returns decide
        scope = self.facts.scope_of.get(function)
        if scope is None or function in self.facts.generators or self._depth >= _MAX_CALL_DEPTH:
            return UNKNOWN
        annotation = getattr(function, "returns", None)
        if annotation is not None and self._annotation(annotation).is_tensor:
            self._returns[function] = TENSOR  # def make(n) -> Tensor: what it says, whatever it calls
            return TENSOR
        if self._budget <= 0:
            return UNKNOWN
        self._budget -= 1
        cycles = self._cycles
        self._returns_computing.add(function)
        self._depth += 1
        try:
            returns = self.facts.returns.get(function, [])
            value = NONE if not returns or _falls_through(function) else BOTTOM
            for expr in returns:
                value = join(value, self._eval(expr, scope, None))
        finally:
            self._depth -= 1
            self._returns_computing.discard(function)
        if value.kind is Kind.BOTTOM:
            value = UNKNOWN
        if self._cycles == cycles or not self._returns_computing:
            self._returns[function] = value  # a value that met a recursion may lack what the cycle adds
        return value

    def local_function(self, name: str, scope: Scope) -> ast.AST | None:
        """The function of this file that a plain call ``name(...)`` made in ``scope`` runs, when only one
        can be."""
        found = self.binding_scope(name, scope)
        if found is None:
            return None
        defined = found.functions.get(name, [])
        return defined[0] if len(defined) == 1 and len(found.bindings[name]) == 1 else None

    # -- scopes --------------------------------------------------------------------------------------------

    def _env(self, scope: Scope) -> dict[str, Value] | None:
        env = self._envs.get(scope)
        if env is not None:
            return env
        if scope in self._computing:
            return None
        self._computing.add(scope)
        partial = dict.fromkeys(scope.bindings, BOTTOM)
        changed: set[str] = set()
        for _ in range(_MAX_ROUNDS):
            changed = set()
            for name, bindings in scope.bindings.items():
                value = self._name_value(name, bindings, scope, partial)
                if value != partial[name]:
                    partial[name] = value
                    changed.add(name)
            if not changed:
                break
        for name, value in partial.items():
            if name in changed or value.kind is Kind.BOTTOM:  # did not settle, or only ever bound to itself
                partial[name] = UNKNOWN
        self._computing.discard(scope)
        self._envs[scope] = partial
        return partial

    def _name_value(
        self, name: str, bindings: list[Binding], scope: Scope, partial: dict[str, Value]
    ) -> Value:
        value = BOTTOM
        unknown: list[Binding] = []
        for binding in bindings:
            bound = self._binding_value(binding, scope, partial)
            if binding.how == "param" and binding.expr is None and name.lower().endswith("batch"):
                bound = Value(Kind.BATCH)  # def training_step(self, batch, batch_idx)
            if bound.kind is Kind.UNKNOWN:
                unknown.append(binding)
            else:
                value = join(value, bound)
                if value.kind is Kind.UNKNOWN:
                    return value
        if not unknown:
            return value
        # A batch rebuilt from itself (batch = {k: v.to(device) for k, v in batch.items()}) is still a batch.
        if value.kind is Kind.BATCH and all(mentions(binding.expr, name) for binding in unknown):
            return value
        return UNKNOWN

    def binding_scope(self, name: str, scope: Scope) -> Scope | None:
        """The scope whose variable ``name`` is, seen from ``scope``."""
        current: Scope | None = scope
        while current is not None:
            if current.kind == "class" and current is not scope:
                current = current.parent
                continue
            if name in current.opaque:
                return None
            if name in current.bindings:
                return current
            current = current.parent
        return None

    def binding_values(self, name: str, scope: Scope) -> list[Value]:
        """What each binding of ``name`` in ``scope`` gives, one by one."""
        return [self._binding_value(binding, scope, None) for binding in scope.bindings.get(name, ())]

    def _lookup(self, name: str, scope: Scope, partial: dict[str, Value] | None) -> Value:
        current: Scope | None = scope
        while current is not None:
            if current.kind == "class" and current is not scope:
                current = current.parent  # a class body's names are not visible in its methods
                continue
            if name in current.opaque:
                return UNKNOWN
            bindings = current.bindings.get(name)
            if bindings is not None:
                if name == current.self_name and len(bindings) == 1:
                    return Value(Kind.SELF, cls=current.owner)
                if current is scope and partial is not None:
                    return partial.get(name, BOTTOM)
                env = self._env(current)
                return UNKNOWN if env is None else env.get(name, UNKNOWN)
            current = current.parent
        return UNKNOWN

    def _binding_value(self, binding: Binding, scope: Scope, partial: dict[str, Value] | None) -> Value:
        how = binding.how
        if how == "self":
            return Value(Kind.SELF, cls=scope.owner)
        expr = binding.expr
        if how in ("opaque", "with") or expr is None:
            return UNKNOWN
        if how == "param":
            return self._annotation(expr)
        if binding.outer and scope.parent is not None:
            scope, partial = scope.parent, None
        if how == "value":
            return self._destructure(expr, binding.path, scope, partial)
        return self._iterated(expr, binding.path, scope, partial)

    def _annotation(self, expr: ast.expr) -> Value:
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str) and len(expr.value) < 200:
            try:  # a string annotation: "torch.Tensor"
                expr = ast.parse(expr.value.strip(), mode="eval").body
            except SyntaxError:
                return UNKNOWN
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):  # Tensor | None
            if isinstance(expr.right, ast.Constant) and expr.right.value is None:
                return self._annotation(expr.left)
            return UNKNOWN
        if isinstance(expr, ast.Subscript):  # Optional[Tensor]
            outer = self.imports.qualname(expr.value)
            return self._annotation(expr.slice) if outer == "typing.Optional" else UNKNOWN
        qualname = self.imports.qualname(expr)
        if qualname in ("torch.Tensor", "torch.FloatTensor", "torch.LongTensor"):
            return TENSOR
        if qualname == "torch.nn.Module":
            return MODULE
        if qualname == DATALOADER:
            return Value(Kind.DATALOADER)
        return UNKNOWN

    def _destructure(
        self, expr: ast.expr, path: tuple[int, ...], scope: Scope, partial: dict[str, Value] | None
    ) -> Value:
        while path and isinstance(expr, ast.Tuple | ast.List):
            if any(isinstance(elt, ast.Starred) for elt in expr.elts) or path[0] >= len(expr.elts):
                return UNKNOWN
            expr, path = expr.elts[path[0]], path[1:]
        value = self._eval(expr, scope, partial)
        for _ in path:
            value = _element(value)
        return value

    def _iterated(
        self, expr: ast.expr, path: tuple[int, ...], scope: Scope, partial: dict[str, Value] | None
    ) -> Value:
        """Element ``path`` of an item of ``for ... in expr``."""
        if isinstance(expr, ast.Call):
            func = expr.func
            called = _called_name(func)
            if called == "enumerate" and isinstance(func, ast.Name) and expr.args:
                if not path or path[0] != 1:
                    return UNKNOWN
                return self._iterated(expr.args[0], path[1:], scope, partial)
            if called == "zip" and isinstance(func, ast.Name):
                if not path or path[0] >= len(expr.args) or isinstance(expr.args[path[0]], ast.Starred):
                    return UNKNOWN
                return self._iterated(expr.args[path[0]], path[1:], scope, partial)
            if called in _PROGRESS_WRAPPERS and expr.args:
                return self._iterated(expr.args[0], path, scope, partial)
            if called in ("items", "values") and isinstance(func, ast.Attribute) and not expr.args:
                owner = self._eval(func.value, scope, partial)
                if owner.kind is Kind.BOTTOM:
                    return BOTTOM
                if owner.kind is Kind.UNKNOWN and isinstance(func.value, ast.Name):
                    origin = self.parameter_origin(func.value.id, scope)
                    if origin is not None:  # for k, v in data.items() over a parameter: its entries
                        owner = Value(Kind.BATCH, origin=origin)
                if owner.kind is not Kind.BATCH or (called == "items" and (not path or path[0] != 1)):
                    return UNKNOWN
                return Value(Kind.TENSOR, loader=owner.loader, origin=owner.origin)
        value = self._eval(expr, scope, partial)
        if value.kind is Kind.BOTTOM:
            return BOTTOM
        if value.kind is Kind.UNKNOWN and isinstance(expr, ast.Call):
            # metric_logger.log_every(loader, 10), prefetch(loader): what wraps a loader yields its batches
            value = self._wrapped_loader(expr, scope, partial)
            if value.kind is Kind.BOTTOM:
                return BOTTOM
        if value.kind is Kind.UNKNOWN and isinstance(expr, ast.Name):
            origin = self.parameter_origin(expr.id, scope)
            if origin is not None:
                value = Value(Kind.DATALOADER, origin=origin)
        # `for batch in train_loader` over a parameter: a DataLoader; whether it pins memory is known only
        # when every loader of this file agrees (implicit_loader).
        if (value.kind is Kind.UNKNOWN and _names_a_loader(expr)) or (
            value.kind is Kind.DATALOADER and value.loader is None and _names_a_loader(expr)
        ):
            value = Value(Kind.DATALOADER, loader=self.implicit_loader, origin=value.origin)
        item = (
            Value(Kind.BATCH, loader=value.loader, origin=value.origin)
            if value.kind is Kind.DATALOADER
            else _element(value)
        )
        for _ in path:
            item = _element(item)
        return item

    # -- expressions ---------------------------------------------------------------------------------------

    def _eval(self, expr: ast.expr, scope: Scope, partial: dict[str, Value] | None) -> Value:
        if isinstance(expr, ast.Name):
            return self._lookup(expr.id, scope, partial)
        if isinstance(expr, ast.Call):
            return self._call(expr, scope, partial)
        if isinstance(expr, ast.Attribute):
            return self._attribute(expr, scope, partial)
        if isinstance(expr, ast.Subscript):
            base = self._eval(expr.value, scope, partial)
            if base.kind is Kind.BOTTOM:
                return BOTTOM
            if base.is_tensor or base.kind is Kind.BATCH:
                return Value(Kind.TENSOR, loader=base.loader, origin=base.origin)
            return UNKNOWN
        if isinstance(expr, ast.Constant):
            if expr.value is None:
                return NONE
            return device_string(expr.value) if isinstance(expr.value, str) else UNKNOWN
        if isinstance(expr, ast.JoinedStr):
            first = expr.values[0] if expr.values else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                return device_string(first.value.split(":", 1)[0])
            return UNKNOWN
        if isinstance(expr, ast.IfExp):
            return join(self._eval(expr.body, scope, partial), self._eval(expr.orelse, scope, partial))
        if isinstance(expr, ast.BinOp):
            return self._binop(expr, scope, partial)
        if isinstance(expr, ast.UnaryOp):
            operand = self._eval(expr.operand, scope, partial)
            return operand if operand.kind is Kind.BOTTOM else TENSOR if operand.is_tensor else UNKNOWN
        if isinstance(expr, ast.NamedExpr):
            return self._eval(expr.value, scope, partial)
        if isinstance(expr, ast.Compare) and len(expr.ops) == 1 and not isinstance(expr.ops[0], _IDENTITY):
            left = self._eval(expr.left, scope, partial)
            return left if left.kind is Kind.BOTTOM else TENSOR if left.is_tensor else UNKNOWN
        return UNKNOWN

    def _binop(self, expr: ast.BinOp, scope: Scope, partial: dict[str, Value] | None) -> Value:
        """Arithmetic with a tensor on either side is a tensor. The left operands of ``a + b + c + ...`` are
        walked in a loop: a long sum is no deeper for the analysis than a short one."""
        spine = []
        node: ast.expr = expr
        while isinstance(node, ast.BinOp):
            spine.append(node)
            node = node.left
        value = self._eval(node, scope, partial)
        for binop in reversed(spine):
            if not isinstance(binop.op, _ARITHMETIC):
                value = UNKNOWN if value.kind is not Kind.BOTTOM else value
                continue
            if value.is_tensor:
                value = TENSOR
                continue
            right = self._eval(binop.right, scope, partial)
            if Kind.BOTTOM in (value.kind, right.kind):
                value = BOTTOM
            else:
                value = TENSOR if right.is_tensor else UNKNOWN
        return value

    def _attribute(self, expr: ast.Attribute, scope: Scope, partial: dict[str, Value] | None) -> Value:
        base = self._eval(expr.value, scope, partial)
        if base.kind is Kind.BOTTOM:
            return BOTTOM
        if base.kind is Kind.SELF and base.cls is not None:
            return self.attr(base.cls, expr.attr)
        if base.is_tensor:
            if expr.attr in TENSOR_ATTRIBUTES:
                return TENSOR
            if expr.attr == "device":
                return Value(Kind.DEVICE, cuda=Cuda.UNKNOWN)
        return UNKNOWN

    def _call(self, call: ast.Call, scope: Scope, partial: dict[str, Value] | None) -> Value:
        func = call.func
        qualname = self.imports.qualname(func)
        if qualname is not None:
            return self._torch_call(qualname, call, scope, partial)
        if isinstance(func, ast.Name) and func.id == "next" and call.args:
            return self._next_item(call.args[0], scope, partial)
        if isinstance(func, ast.Name) and func.id == "iter" and call.args:
            iterated = self._eval(call.args[0], scope, partial)
            return iterated if iterated.kind in (Kind.DATALOADER, Kind.BOTTOM) else UNKNOWN
        if isinstance(func, ast.Name):
            cls = self.classes.unique(func.id)
            if cls is None:
                function = self.local_function(func.id, scope)
                return UNKNOWN if function is None else self.returned(function)
            return Value(Kind.MODULE if self.classes.is_module(cls) else Kind.OBJECT, cls=cls)
        if not isinstance(func, ast.Attribute):
            return UNKNOWN
        method = func.attr
        receiver = self._eval(func.value, scope, partial)
        if receiver.kind is Kind.BOTTOM:
            return BOTTOM
        if receiver.is_tensor:
            if method in TENSOR_METHODS or (method == "type" and (call.args or call.keywords)):
                return TENSOR
            return UNKNOWN
        if receiver.kind is Kind.UNKNOWN and (
            method in TENSOR_PRODUCERS or (method == "view" and _shape_arguments(call))
        ):
            return TENSOR
        if receiver.kind is Kind.MODULE and method in MODULE_SELF_METHODS:
            return receiver
        if receiver.kind is Kind.BATCH and method in ("to", "cuda", "cpu"):
            return Value(Kind.BATCH)  # a moved batch (BatchEncoding.to returns itself)
        if receiver.kind in (Kind.SELF, Kind.OBJECT, Kind.MODULE) and receiver.cls is not None:
            found = self.classes.method(receiver.cls, method)  # self.build_input(...): what it returns
            if found is not None:
                return self.returned(found)
        return UNKNOWN

    def _wrapped_loader(self, call: ast.Call, scope: Scope, partial: dict[str, Value] | None) -> Value:
        """The loader among the arguments of a call this file cannot see into, or UNKNOWN."""
        if isinstance(call.func, ast.Name) and (
            call.func.id in _BUILTINS or self.local_function(call.func.id, scope) is not None
        ):
            return UNKNOWN  # range(n), or a function of this file: what it returns was asked already
        for argument in call.args[:2]:
            if isinstance(argument, ast.Starred):
                continue
            value = self._eval(argument, scope, partial)
            if value.kind in (Kind.DATALOADER, Kind.BOTTOM):
                return value
            if value.kind is Kind.UNKNOWN and isinstance(argument, ast.Name) and argument is call.args[0]:
                origin = self.parameter_origin(argument.id, scope)
                if origin is not None:
                    return Value(Kind.DATALOADER, origin=origin)
        return UNKNOWN

    def parameter_origin(self, name: str, scope: Scope) -> Origin | None:
        """``("param", function, name, position)`` when ``name`` is a parameter of a function of this file
        that other code can call (a module-level function or a method), rebound if at all only to values made
        from itself (``data = data.to(device)``)."""
        found = self.binding_scope(name, scope)
        if found is None or found.kind != "function":
            return None
        bindings = found.bindings[name]
        parameters = [binding for binding in bindings if binding.how == "param"]
        if len(parameters) != 1 or parameters[0].expr is not None:
            return None
        if any(binding.how != "param" and not mentions(binding.expr, name) for binding in bindings):
            return None
        function = found.node
        key = function_key(found)
        if key is None or not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            return None
        positional = [arg.arg for arg in (*function.args.posonlyargs, *function.args.args)]
        if found.self_name is not None:
            positional = positional[1:]
        position = positional.index(name) if name in positional else None
        return ("param", key, name, position)

    def _next_item(self, expr: ast.expr, scope: Scope, partial: dict[str, Value] | None) -> Value:
        """``next(iter(loader))``: a batch."""
        if (
            isinstance(expr, ast.Call)
            and isinstance(expr.func, ast.Name)
            and expr.func.id == "iter"
            and expr.args
        ):
            expr = expr.args[0]
        return self._iterated(expr, (), scope, partial)

    def _torch_call(
        self, qualname: str, call: ast.Call, scope: Scope, partial: dict[str, Value] | None
    ) -> Value:
        if qualname in TENSOR_FUNCTIONS:
            return TENSOR
        if qualname.startswith("torch.nn.functional.") and qualname.count(".") == 3:
            return TENSOR
        if qualname == "torch.nn.Parameter":
            return Value(Kind.PARAMETER)
        if qualname == "torch.nn.Buffer":
            return Value(Kind.BUFFER)
        if qualname == "torch.device":
            argument = call.args[0] if call.args else _keyword(call, "type")
            if argument is None:
                return Value(Kind.DEVICE, cuda=Cuda.UNKNOWN)
            value = self._eval(argument, scope, partial)
            if value.kind in (Kind.DEVICE, Kind.BOTTOM):
                return value
            return Value(Kind.DEVICE, cuda=Cuda.UNKNOWN)
        if qualname == DATALOADER:
            return Value(Kind.DATALOADER, loader=self.loaders.get(call))
        if qualname in ("torch.compile", "torch.jit.script", "torch.nn.parallel.DistributedDataParallel"):
            first = call.args[0] if call.args else None
            compiled = self._eval(first, scope, partial) if first is not None else UNKNOWN
            if compiled.kind in (Kind.MODULE, Kind.BOTTOM):
                return compiled
            return MODULE if qualname.endswith("DistributedDataParallel") else UNKNOWN
        if layer_name(qualname) or is_model_factory(qualname):
            return MODULE
        return UNKNOWN


_IDENTITY = (ast.Is, ast.IsNot, ast.In, ast.NotIn)
_BUILTINS = frozenset(
    {"range", "list", "tuple", "sorted", "reversed", "iter", "map", "filter", "len", "set", "dict"}
)


def function_key(scope: Scope) -> str | None:
    """How other code names a function: ``train`` at module level, ``Trainer.fit`` for a method; None for a
    nested function or a lambda."""
    node = scope.node
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or scope.parent is None:
        return None
    if scope.parent.kind == "module":
        return node.name
    grandparent = scope.parent.parent
    if scope.parent.kind == "class" and scope.owner is not None and grandparent is not None:
        return f"{scope.owner.name}.{node.name}" if grandparent.kind == "module" else None
    return None


def _falls_through(function: ast.AST) -> bool:
    """Whether the body of a function can end without a return (then it returns None)."""
    body = getattr(function, "body", None)
    if not isinstance(body, list) or not body:
        return not isinstance(function, ast.Lambda)
    last = body[-1]
    return not isinstance(last, ast.Return | ast.Raise)


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((item.value for item in call.keywords if item.arg == name), None)


def _element(value: Value) -> Value:
    """An element of a destructured or iterated value: the tensors of a batch, the rows of a tensor."""
    if value.kind is Kind.BOTTOM:
        return BOTTOM
    if value.kind is Kind.BATCH or value.is_tensor:
        return Value(Kind.TENSOR, loader=value.loader, origin=value.origin)
    return UNKNOWN


def mentions(expr: ast.expr | None, name: str) -> bool:
    return expr is not None and any(isinstance(node, ast.Name) and node.id == name for node in ast.walk(expr))


def _shape_arguments(call: ast.Call) -> bool:
    """``x.view(1, 80, -1)``, ``x.view(b, -1)``, ``x.view(*shape)``: a shape, which only a tensor's view()
    takes (a NumPy array's takes a dtype)."""
    if not call.args or call.keywords:
        return False
    for argument in call.args:
        if isinstance(argument, ast.UnaryOp) and isinstance(argument.op, ast.USub):
            argument = argument.operand
        if isinstance(argument, ast.Starred):
            argument = argument.value
        if isinstance(argument, ast.Constant) and type(argument.value) is int:
            continue
        if isinstance(argument, ast.Name | ast.BinOp | ast.Subscript):
            continue
        return False
    return True


def _called_name(expr: ast.expr) -> str:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return ""


def _names_a_loader(expr: ast.expr) -> bool:
    return "loader" in _called_name(expr).lower()
