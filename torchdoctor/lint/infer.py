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


class Cuda(Enum):
    YES = "cuda"
    MAYBE = "cuda or not"
    NO = "not cuda"
    UNKNOWN = "unknown"


_TENSOR_KINDS = frozenset({Kind.TENSOR, Kind.PARAMETER, Kind.BUFFER})


@dataclass(frozen=True, slots=True)
class Value:
    kind: Kind
    loader: LoaderInfo | None = None  # TENSOR and BATCH that come straight from a DataLoader; DATALOADER
    cls: ClassInfo | None = None  # SELF, OBJECT, MODULE of a class of this file
    cuda: Cuda | None = None  # DEVICE

    @property
    def is_tensor(self) -> bool:
        return self.kind in _TENSOR_KINDS

    @property
    def may_be_cuda(self) -> bool:
        return self.kind is Kind.DEVICE and self.cuda in (Cuda.YES, Cuda.MAYBE)


BOTTOM = Value(Kind.BOTTOM)
UNKNOWN = Value(Kind.UNKNOWN)
TENSOR = Value(Kind.TENSOR)
MODULE = Value(Kind.MODULE)
_REGISTERED = {"buffer": Value(Kind.BUFFER), "parameter": Value(Kind.PARAMETER), "module": MODULE}
_OTHER_DEVICE = re.compile(r"(?:cpu|mps|xpu|meta)(?::\d+)?")
_PROGRESS_WRAPPERS = frozenset({"tqdm", "tqdm_notebook", "track", "progress_bar"})
_MAX_ROUNDS = 8


def join(a: Value, b: Value) -> Value:
    """The least value that covers both (UNKNOWN when they disagree)."""
    if a.kind is Kind.BOTTOM or a == b:
        return b
    if b.kind is Kind.BOTTOM:
        return a
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
        return Value(a.kind, loader=loader, cls=a.cls if a.cls is b.cls else None)
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
        self._attrs: dict[tuple[ClassInfo, str], Value] = {}
        self._attrs_computing: set[tuple[ClassInfo, str]] = set()

    def value(self, expr: ast.expr, scope: Scope) -> Value:
        return self._eval(expr, scope, None)

    def site_value(self, site: AttrSite) -> Value:
        """What one ``self.<attr> = ...`` stores."""
        return self._binding_value(site.binding, site.scope, None)

    def attr(self, cls: ClassInfo, name: str) -> Value:
        """The join of everything the class and its local bases store in ``self.<name>``."""
        key = (cls, name)
        known = self._attrs.get(key)
        if known is not None:
            return known
        if key in self._attrs_computing:
            return BOTTOM  # self.h = self.h.to(device): the value flows into itself
        self._attrs_computing.add(key)
        value = BOTTOM
        for owner in self.classes.lineage(cls):
            registered = owner.registered.get(name)
            if registered is not None:
                value = join(value, _REGISTERED[registered])
            for site in owner.attr_sites.get(name, ()):
                value = join(value, self._binding_value(site.binding, site.scope, None))
        self._attrs_computing.discard(key)
        if value.kind is Kind.BOTTOM:
            value = UNKNOWN
        self._attrs[key] = value
        return value

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
        if how == "opaque" or expr is None:
            return UNKNOWN
        if how == "param":
            return self._annotation(expr)
        if binding.outer and scope.parent is not None:
            scope, partial = scope.parent, None
        if how == "value":
            return self._destructure(expr, binding.path, scope, partial)
        return self._iterated(expr, binding.path, scope, partial)

    def _annotation(self, expr: ast.expr) -> Value:
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
                if owner.kind is not Kind.BATCH or (called == "items" and (not path or path[0] != 1)):
                    return UNKNOWN
                return Value(Kind.TENSOR, loader=owner.loader)
        value = self._eval(expr, scope, partial)
        if value.kind is Kind.BOTTOM:
            return BOTTOM
        # `for batch in train_loader` over a parameter: a DataLoader; whether it pins memory is known only
        # when every loader of this file agrees (implicit_loader).
        if (value.kind is Kind.UNKNOWN and _names_a_loader(expr)) or (
            value.kind is Kind.DATALOADER and value.loader is None
        ):
            value = Value(Kind.DATALOADER, loader=self.implicit_loader)
        item = Value(Kind.BATCH, loader=value.loader) if value.kind is Kind.DATALOADER else _element(value)
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
                return Value(Kind.TENSOR, loader=base.loader)
            return UNKNOWN
        if isinstance(expr, ast.Constant):
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
        return UNKNOWN

    def _binop(self, expr: ast.BinOp, scope: Scope, partial: dict[str, Value] | None) -> Value:
        left = self._eval(expr.left, scope, partial)
        if left.kind is Kind.BOTTOM or left.is_tensor:
            return TENSOR if left.is_tensor else BOTTOM
        if isinstance(expr.left, ast.Constant) or isinstance(expr.op, ast.MatMult):
            right = self._eval(expr.right, scope, partial)
            return right if right.kind is Kind.BOTTOM else TENSOR if right.is_tensor else UNKNOWN
        return UNKNOWN

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
                return UNKNOWN
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
        if receiver.kind is Kind.MODULE and method in MODULE_SELF_METHODS:
            return receiver
        if receiver.kind is Kind.BATCH and method in ("to", "cuda", "cpu"):
            return Value(Kind.BATCH)  # a moved batch (BatchEncoding.to returns itself)
        return UNKNOWN

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


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((item.value for item in call.keywords if item.arg == name), None)


def _element(value: Value) -> Value:
    """An element of a destructured or iterated value: the tensors of a batch, the rows of a tensor."""
    if value.kind is Kind.BOTTOM:
        return BOTTOM
    if value.kind is Kind.BATCH or value.is_tensor:
        return Value(Kind.TENSOR, loader=value.loader)
    return UNKNOWN


def mentions(expr: ast.expr | None, name: str) -> bool:
    return expr is not None and any(isinstance(node, ast.Name) and node.id == name for node in ast.walk(expr))


def _called_name(expr: ast.expr) -> str:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return ""


def _names_a_loader(expr: ast.expr) -> bool:
    return "loader" in _called_name(expr).lower()
