"""Everything the checkers ask about one file, built from a single walk of its tree."""

from __future__ import annotations

import ast
import functools
import os
import re

from torchdoctor.lint.callgraph import CallGraph
from torchdoctor.lint.classes import ClassTable
from torchdoctor.lint.evidence import Usage, usages
from torchdoctor.lint.flow import Paths
from torchdoctor.lint.infer import Inference, Kind, Origin, Value, function_key, mentions
from torchdoctor.lint.loaders import LoaderInfo, find_loaders
from torchdoctor.lint.scan import (
    Binding,
    CallSite,
    ClassInfo,
    FileFacts,
    Scope,
    Where,
    enclosing_function,
    scan,
)
from torchdoctor.output.wording import clipped

_CONTAINERS = ("torch.utils.data.Subset", "torch.utils.data.ConcatDataset")
_MAX_TRACE = 8  # how many `name = ...` steps a reference is followed through
PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", "tox.ini", ".git")


def folders_in_project(path: str) -> list[str]:
    """The folders a file sits in below its project's root (the nearest folder above it holding one of
    PROJECT_MARKERS): a project checked out in ~/test/ is not a test folder. For a text that is no file
    here (stdin), or a file outside any project, the folders of the path as given."""
    given = path.replace("\\", "/").split("/")[:-1]
    if not os.path.isfile(path):
        return given
    absolute = os.path.abspath(path)
    root = _project_root(os.path.dirname(absolute))
    if root is None:
        return given
    inside = os.path.relpath(os.path.dirname(absolute), root)
    return [] if inside == os.curdir else inside.split(os.sep)


@functools.lru_cache(maxsize=256)
def _project_root(folder: str) -> str | None:
    while True:
        if any(os.path.lexists(os.path.join(folder, marker)) for marker in PROJECT_MARKERS):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


class FileContext:
    def __init__(
        self, tree: ast.Module, package: str | None = None, path: str = "", source: str | bytes | None = None
    ) -> None:
        self.path = path
        self.tree = tree
        self._source = source
        self.facts: FileFacts = scan(tree, package)
        self.imports = self.facts.imports
        self.classes = ClassTable(self.facts)
        self.loaders: dict[ast.Call, LoaderInfo] = find_loaders(self.facts)
        known = list(self.loaders.values())
        # A loop over `train_loader` (a parameter) iterates one of this file's loaders: when none of them pins
        # memory, which one does not matter.
        unpinned = known[0] if known and all(loader.pin_memory is False for loader in known) else None
        self.infer = Inference(self.facts, self.classes, self.loaders, unpinned)
        self.calls = CallGraph(self.facts, self.classes, self.infer)
        self._usages: dict[Scope, dict[str, Usage]] = {}
        self._paths: dict[ast.AST, Paths] = {}
        self._rank0: dict[ast.AST, bool] = {}
        self.memo: dict[str, object] = {}  # what one checker computed that another one or the summary reuses

    def qualname(self, expr: ast.expr) -> str | None:
        return self.imports.qualname(expr)

    @functools.cached_property
    def is_test_file(self) -> bool:
        """test_*.py, *_test.py, conftest.py, or a file in a tests/ folder of its project: code that runs on
        the machine that runs the tests, and nowhere else."""
        name = self.path.replace("\\", "/").rsplit("/", 1)[-1]
        return (
            name.startswith("test_")
            or name.endswith("_test.py")
            or name == "conftest.py"
            or any(folder in ("tests", "test") for folder in folders_in_project(self.path))
        )

    @functools.cached_property
    def lines(self) -> list[str]:
        """The file's text by line, where the caller has it (comments are not in the tree); split only when a
        rule reads a comment."""
        source = self._source
        if source is None:
            return []
        return (source.decode("utf-8", "replace") if isinstance(source, bytes) else source).splitlines()

    def value(self, expr: ast.expr, where: Where) -> Value:
        return self.infer.value(expr, where.scope)

    def tensor_by_usage(self, name: str, where: Where) -> bool:
        """Whether a name the inference cannot type is a tensor by the way its function uses it. What is
        bound to it must not say otherwise: a tensor, a parameter, something derived from the name itself
        (``x = x[None, :]``), or a value nothing is known of that no constructor made (an element of what
        a function returned, ``torch.load()``); ``x = SomeClass()`` is an object, whatever methods it shares
        with tensors."""
        scope = self.infer.binding_scope(name, where.scope)
        if scope is None or scope.kind != "function":
            return False
        for binding, value in zip(scope.bindings[name], self.infer.binding_values(name, scope), strict=True):
            parameter = binding.how == "param" and binding.expr is None
            if not value.is_tensor and self._model_output(binding, scope):
                return False
            if not (
                value.is_tensor
                or parameter
                or mentions(binding.expr, name)
                or (value.kind is Kind.UNKNOWN and _made_by_no_constructor(binding))
            ):
                return False
        found = self._usages.get(scope)
        if found is None:
            found = self._usages[scope] = usages(scope.node, self.imports, self._module_call)
        usage = found.get(name)
        return usage is not None and usage.tensor_like

    def _model_output(self, binding: Binding, scope: Scope) -> bool:
        """``x = model(x)``: what a model this file cannot see returns (a tuple, a dict, an output object)."""
        expr = binding.expr
        return (
            isinstance(expr, ast.Call)
            and self.infer.value(expr, scope).kind is Kind.UNKNOWN
            and self._module_call(expr, scope.node)
        )

    def _module_call(self, call: ast.Call, scope_node: ast.AST) -> bool:
        """Whether a call inside a function runs an nn.Module (``self.encoder(x)``): its arguments are its
        inputs."""
        scope = self.facts.scope_of.get(scope_node)
        if scope is None:
            return False
        kind = self.infer.value(call.func, scope).kind
        if kind is Kind.MODULE:
            return True
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        return kind is Kind.UNKNOWN and _MODEL_NAME.fullmatch(name) is not None

    def paths(self, body: ast.AST) -> Paths:
        """The order of the statements of a function (or of the module)."""
        found = self._paths.get(body)
        if found is None:
            statements = getattr(body, "body", [])
            found = self._paths[body] = Paths(statements if isinstance(statements, list) else [])
        return found

    def calls_to(self, qualname: str) -> list[CallSite]:
        """The calls of the function or class ``qualname``, however it was imported."""
        names = {qualname.rsplit(".", 1)[-1], *self.imports.aliases_of(qualname)}
        return [site for site in self.facts.calls_named(*names) if self.qualname(site.node.func) == qualname]

    # -- functions and references ---------------------------------------------------------------------------

    def enclosing_function(self, where: Where) -> ast.AST | None:
        """The function or lambda a place is in; None at module level."""
        node = enclosing_function(where.scope).node
        return None if isinstance(node, ast.Module) else node

    def rank0_only(self, where: Where) -> bool:
        """Whether only rank 0 runs this place: under ``if rank == 0:``, or in a function that this file calls
        only from such places (``if rank == 0: evaluate(...)``)."""
        if where.rank0:
            return True
        function = self.enclosing_function(where)
        if function is None:
            return False
        known = self._rank0.get(function)
        if known is None:
            self._rank0[function] = False  # a recursion is no evidence
            callers = self.calls.callers(function)
            known = bool(callers) and all(self.rank0_only(site.where) for site in callers)
            self._rank0[function] = known
        return known

    def name_key(self, function: ast.AST) -> str | None:
        """``":train"`` or ``":Trainer.fit"``: how another file names a function of this one."""
        scope = self.facts.scope_of.get(function)
        key = None if scope is None else function_key(scope)
        return None if key is None else f":{key}"

    def function_keys(self, function: ast.AST) -> list[str]:
        """Every reference that means this function: its name and its place in the file."""
        name = self.name_key(function)
        place = node_key(function)
        return [place] if name is None else [name, place]

    def function_of_reference(self, ref: str) -> ast.AST | None:
        """The function of this file that a local reference means: ``":train"``, ``":Trainer.fit"``,
        ``":@12:4"``."""
        if not ref.startswith(":"):
            return None
        return self._functions_by_key.get(ref)

    @functools.cached_property
    def _functions_by_key(self) -> dict[str, ast.AST]:
        found: dict[str, ast.AST] = {}
        for function in self.facts.scope_of:
            for key in self.function_keys(function):
                found.setdefault(key, function)
        return found

    def references(self, expr: ast.expr, where: Where, instance: bool = False) -> list[tuple[str, str]]:
        """What an argument such as ``collate_fn=...`` (or, with ``instance``, ``dataset=...``) names, as
        (reference, how a message names it): functions and methods of this file, an instance of a class of
        this file or of another one, a ``functools.partial`` of any of those."""
        for _ in range(_MAX_TRACE):
            if isinstance(expr, ast.Lambda):
                return [] if instance else [(node_key(expr), "lambda")]
            if isinstance(expr, ast.Call):
                qualname = self.qualname(expr.func) or ""
                if qualname.endswith("functools.partial") or qualname == "functools.partial":
                    if not expr.args:
                        return []
                    expr = expr.args[0]
                    continue
                if qualname in _CONTAINERS and instance and expr.args:
                    expr = expr.args[0]
                    continue
                return self._instance(expr, where, instance)
            value = self.value(expr, where)
            if value.cls is not None and value.kind in (Kind.OBJECT, Kind.MODULE):
                return self._class_reference(value.cls, instance)
            if isinstance(expr, ast.Attribute):
                receiver = self.value(expr.value, where)
                if receiver.cls is not None and receiver.kind in (Kind.SELF, Kind.OBJECT, Kind.MODULE):
                    method = self.classes.method(receiver.cls, expr.attr)
                    if method is None or instance:
                        return []
                    return [(key, f"{receiver.cls.name}.{expr.attr}()") for key in self.function_keys(method)]
            if not isinstance(expr, ast.Name):
                return []
            function = self.infer.local_function(expr.id, where.scope)
            if function is not None:
                return [] if instance else [(key, f"{expr.id}()") for key in self.function_keys(function)]
            imported = self.qualname(expr)
            if imported is not None:
                if imported.startswith("torch.") or instance:
                    return []
                return [(imported, f"{imported.rsplit('.', 1)[-1]}()")]
            bound = self._single_value(expr.id, where.scope)
            if bound is None:
                return []
            expr, where = bound
        return []

    def _instance(self, call: ast.Call, where: Where, instance: bool) -> list[tuple[str, str]]:
        """``Images(root)`` as a dataset, ``Collator(pad)`` as a collate_fn (its ``__call__`` runs),
        ``make_collate(pad)`` returning a function it defines."""
        if isinstance(call.func, ast.Name):
            cls = self.classes.unique(call.func.id)
            if cls is not None:
                return self._class_reference(cls, instance)
            factory = self.infer.local_function(call.func.id, where.scope)
            if factory is not None:
                return [] if instance else self._returned_functions(factory)
        qualname = self.qualname(call.func)
        if qualname is None or qualname.startswith("torch."):
            return []
        name = qualname.rsplit(".", 1)[-1]
        return [(qualname, name)] if instance else [(f"{qualname}.__call__", f"{name}.__call__()")]

    def _returned_functions(self, factory: ast.AST) -> list[tuple[str, str]]:
        scope = self.facts.scope_of.get(factory)
        found = []
        for expr in self.facts.returns.get(factory, []) if scope is not None else []:
            if isinstance(expr, ast.Lambda):
                found.append((node_key(expr), "lambda"))
            elif isinstance(expr, ast.Name) and scope is not None:
                function = self.infer.local_function(expr.id, scope)
                if function is not None:
                    found += [(key, f"{expr.id}()") for key in self.function_keys(function)]
        return found

    def _class_reference(self, cls: ClassInfo, instance: bool) -> list[tuple[str, str]]:
        if instance:
            return [(f":{cls.name}", cls.name)]
        method = self.classes.method(cls, "__call__")
        if method is None:
            return []
        return [(key, f"{cls.name}.__call__()") for key in self.function_keys(method)]

    def _single_value(self, name: str, scope: Scope) -> tuple[ast.expr, Where] | None:
        """The one expression ever assigned to a name, and where it is evaluated."""
        found = self.infer.binding_scope(name, scope)
        if found is None:
            return None
        bindings = found.bindings[name]
        if len(bindings) != 1 or bindings[0].how != "value" or bindings[0].path or bindings[0].expr is None:
            return None
        return bindings[0].expr, Where(found)

    def tensor_arguments(self, function: ast.AST, origin: Origin) -> bool:
        """Whether every call of this file passes the parameter a tensor: typed as one, or a name the caller
        uses as one (``if image.size(0) != 1: ...; self.prepare(image)``)."""
        _, _, name, position = origin
        callers = self.calls.callers(function)
        for site in callers:
            call = site.node
            argument = keyword(call, name)
            if argument is None and position is not None and position < len(call.args):
                argument = call.args[position]
            if argument is None or isinstance(argument, ast.Starred):
                return False
            if self.value(argument, site.where).is_tensor:
                continue
            if not (isinstance(argument, ast.Name) and self.tensor_by_usage(argument.id, site.where)):
                return False
        return bool(callers)

    def callee_reference(self, site: CallSite) -> str | None:
        """The function a call runs, as a reference: of this file (``":train"``) or imported."""
        func = site.node.func
        if isinstance(func, ast.Name):
            function = self.infer.local_function(func.id, site.where.scope)
            if function is not None:
                return self.name_key(function)
        callee = self.calls.callee(site)
        if callee is not None:
            return self.name_key(callee)
        qualname = self.qualname(func)
        if qualname is None and isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            made_by = self._imported_class(func.value.id, site.where.scope)
            qualname = None if made_by is None else f"{made_by}.{func.attr}"
        return None if qualname is None or qualname.startswith("torch.") else qualname

    def _imported_class(self, name: str, scope: Scope) -> str | None:
        """``trainer = Trainer(...)`` with ``Trainer`` imported: its qualified name (``sdf.utils.Trainer``),
        or ``*Trainer`` where only a star import can have bound it; None for anything else."""
        found = self.infer.binding_scope(name, scope)
        if found is None:
            return None
        made: set[str] = set()
        for binding in found.bindings[name]:
            if binding.how != "value" or binding.path or not isinstance(binding.expr, ast.Call):
                return None
            maker = binding.expr.func
            qualname = self.qualname(maker)
            if qualname is None and isinstance(maker, ast.Name) and self.imports.star_modules:
                if maker.id in self.facts.module.bindings:
                    return None
                qualname = f"*{maker.id}"
            if qualname is None or not qualname.rpartition(".")[2].lstrip("*")[:1].isupper():
                return None  # a factory function, not a class: what it returns is not known here
            made.add(qualname)
        return made.pop() if len(made) == 1 else None

    @functools.cached_property
    def forward_closures(self) -> dict[ClassInfo, set[ast.AST]]:
        """For each class that is (or may be) an nn.Module: its forward() and the functions of this file it
        calls, constructors aside."""
        closures: dict[ClassInfo, set[ast.AST]] = {}
        for classes in self.facts.classes.values():
            for cls in classes:
                forward = cls.methods.get("forward")
                if forward is None or self.classes.module_status(cls) is False:
                    continue
                seen: set[ast.AST] = {forward}
                pending: list[ast.AST] = [forward]
                while pending:
                    function = pending.pop()
                    for site in self.calls.calls_in(function):
                        callee = self.calls.callee(site)
                        if callee is None or callee in seen or getattr(callee, "name", "") == "__init__":
                            continue
                        seen.add(callee)
                        pending.append(callee)
                closures[cls] = seen
        return closures

    def module_requirement(self, cls: ClassInfo) -> tuple[tuple[str, ...], ...] | None:
        """What a finding about an nn.Module needs to know of ``cls``: nothing (it is one), that a base class
        of another file is one (``("module", ":Net")``), or None: it is not a module."""
        status = self.classes.module_status(cls)
        if status is True:
            return ()
        if status is None:
            return (("module", f":{cls.name}"),)
        return None


def parameter_default(function: ast.AST, name: str) -> ast.expr | None:
    """The default value of a function's parameter, None when it has none."""
    args = getattr(function, "args", None)
    if not isinstance(args, ast.arguments):
        return None
    positional = [*args.posonlyargs, *args.args]
    pairs = zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True)
    for arg, default in [*pairs, *zip(args.kwonlyargs, args.kw_defaults, strict=True)]:
        if arg.arg == name:
            return default
    return None


def node_key(node: ast.AST) -> str:
    """The reference of a function of this file by its place (a lambda, a nested function have no name)."""
    return f":@{getattr(node, 'lineno', 0)}:{getattr(node, 'col_offset', 0)}"


def dotted(expr: ast.expr) -> str | None:
    """``model``, ``self.mask``, ``batch["x"]`` or ``self.buf.data`` for a stored place; None for anything
    computed (a call, an operation)."""
    node = expr
    while isinstance(node, ast.Attribute | ast.Subscript):
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Constant | ast.Name):
            return None
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ast.unparse(expr)


def keyword(call: ast.Call, name: str) -> ast.expr | None:
    for item in call.keywords:
        if item.arg == name:
            return item.value
    return None


def short_source(expr: ast.expr, limit: int = 40) -> str:
    return clipped(ast.unparse(expr), limit)


# What a function calls a model it was handed (``model(data)``, ``self.net(x)``): its arguments are inputs.
_MODEL_NAME = re.compile(
    r"(?:[a-z0-9]+_)*(?:model|net|network|encoder|decoder|generator|discriminator|backbone|classifier|critic)"
    r"|netG|netD|G|D"
)


# Calls that return a BatchEncoding or a dict of tensors, whose .to() moves them in place.
_ENCODER_CALL = re.compile(r"token|processor|extractor|collat|encode", re.IGNORECASE)


def _made_by_no_constructor(binding: Binding) -> bool:
    """A value that a plain function or method returned (or an element of it), a subscript or an attribute:
    not ``Model(...)``, whose capitalised name is a class's."""
    if binding.how not in ("value", "iter") or binding.expr is None:
        return False
    expr = binding.expr
    if isinstance(expr, ast.Call):
        func = expr.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        return bool(name) and not name[:1].isupper() and _ENCODER_CALL.search(dotted(func) or name) is None
    return isinstance(expr, ast.Subscript | ast.Attribute)
