"""What one file tells the others: a small, picklable summary read once per file and kept while the whole
project is linted (the DataLoaders it builds and which code their workers run, which of its classes are
nn.Modules, which of its functions set up the process group or the current device, ...).

References name things the way the reading file does: ``":name"`` for a name of the summarised file (a
module-level function ``train``, a method ``Trainer.fit``, a class ``Images``, or ``"@line:col"`` for a
function that has no name another file could use), or a qualified name (``pkg.data.Images``) for an import.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field

from torchdoctor.lint.context import FileContext
from torchdoctor.lint.infer import Kind
from torchdoctor.lint.loaders import LoaderInfo
from torchdoctor.lint.scan import CallSite

# The methods a DataLoader worker runs on a dataset, and on a collate_fn that is an instance of a class.
DATASET_METHODS = ("__getitem__", "__getitems__", "__iter__")
WORKER_METHODS = (*DATASET_METHODS, "__call__")
_SET_DEVICE = ("torch.cuda.set_device", "torch.cuda.device", "torch.accelerator.set_device_index")
_DDP = "torch.nn.parallel.DistributedDataParallel"
_INIT = "torch.distributed.init_process_group"


@dataclass(frozen=True)
class Location:
    """Where a file sits among the modules: its dotted name, the package its relative imports start from,
    and the folder its absolute imports start from (the one that holds its top-level package)."""

    module: str | None = None
    package: str | None = None
    root: str | None = None


def locate(path: str) -> Location:
    """The module a file is, by the ``__init__.py`` files of the folders above it."""
    folder, name = os.path.split(os.path.abspath(path))
    stem = name[:-3] if name.endswith(".py") else name
    parts = [] if stem == "__init__" else [stem]
    package: list[str] = []
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        folder, part = os.path.split(folder)
        package.insert(0, part)
        if not part:
            break
    module = ".".join([*package, *parts]) or None
    return Location(module, ".".join(package), folder)


# (function key, parameter name, position among a call's arguments or None)
ParameterRef = tuple[str, str, int | None]
LoaderArgument = tuple[str, int | None, str | None, bool | None, ParameterRef | None]


@dataclass(frozen=True)
class LoaderRoots:
    """A DataLoader and the code its workers run; ``forks``: it forks worker processes (num_workers > 0 or
    not known here, and no spawn start method)."""

    roots: tuple[tuple[str, str], ...]  # (reference, how a finding names it)
    forks: bool = True


@dataclass
class FileSummary:
    path: str
    location: Location = field(default_factory=Location)
    exports: dict[str, str] = field(default_factory=dict)  # names bound by imports -> qualified names
    defines: frozenset[str] = frozenset()  # the names its top level binds (functions, classes, variables)
    star_modules: tuple[str, ...] = ()  # the modules it imports * from
    # class -> (nn.Module?, its bases, whether it looks like a module: a forward(), layers in its attributes)
    classes: dict[str, tuple[bool | None, tuple[str, ...], bool]] = field(default_factory=dict)
    loaders: tuple[LoaderRoots, ...] = ()
    # Calls that pass data of a DataLoader on: (called function, argument position or None, keyword or None,
    # pin_memory of the loader, or the parameter of the calling function the data came in through)
    loader_args: tuple[LoaderArgument, ...] = ()
    initialises: bool = False  # calls init_process_group
    wraps_ddp: bool = False
    sets_device: bool = False  # set_device(variable) or CUDA_VISIBLE_DEVICES set from a variable
    sets_fixed_device: bool = False  # set_device(0): every process on one GPU (reported where it is)
    dist_functions: dict[str, tuple[bool, bool]] = field(default_factory=dict)  # key -> (initialises, sets)
    callees: tuple[str, ...] = ()  # functions of other files this file calls (distributed scripts only)
    forward_callees: tuple[tuple[str, str], ...] = ()  # (function of another file, class) a forward() calls


def summarise(ctx: FileContext, path: str, location: Location) -> FileSummary:
    defines = frozenset(ctx.facts.module.bindings)
    summary = FileSummary(
        path,
        location,
        exports=dict(ctx.imports.aliases),
        defines=defines,
        star_modules=tuple(ctx.imports.star_modules),
    )
    _classes(ctx, summary)
    _loaders(ctx, summary)
    _distributed(ctx, summary)
    _callees(ctx, summary)
    _forward_callees(ctx, summary)
    return summary


def _classes(ctx: FileContext, summary: FileSummary) -> None:
    for name in ctx.facts.classes:
        cls = ctx.classes.unique(name)
        if cls is None:
            continue
        status = ctx.classes.module_status(cls)
        if status is False:
            continue
        bases = tuple(f":{base.name}" for base in ctx.classes.local_bases(cls))
        evidence = status is None and ctx.classes.looks_like_module(cls)
        summary.classes[name] = (status, (*bases, *ctx.classes.external_bases(cls)), evidence)


def _loaders(ctx: FileContext, summary: FileSummary) -> None:
    loaders = []
    for loader in ctx.loaders.values():
        roots = worker_roots(ctx, loader)
        if roots:
            forks = loader.num_workers != 0 and loader.forks_workers
            loaders.append(LoaderRoots(tuple(roots), forks))
    summary.loaders = tuple(loaders)
    summary.loader_args = tuple(_loader_arguments(ctx))


def worker_roots(ctx: FileContext, loader: LoaderInfo) -> list[tuple[str, str]]:
    """The code a loader's workers run, as references: its collate_fn and its dataset's item methods."""
    roots: list[tuple[str, str]] = []
    if loader.collate_fn is not None:
        for ref, label in ctx.references(loader.collate_fn, loader.where):
            roots.append((ref, f"collate_fn {label}"))
    if loader.dataset is not None:
        for ref, label in ctx.references(loader.dataset, loader.where, instance=True):
            if ref.startswith(":@"):
                continue  # a function is no dataset
            for method in DATASET_METHODS:
                roots.append((f"{ref}.{method}", f"{label}.{method}()"))
    return roots


def _loader_arguments(ctx: FileContext) -> list[LoaderArgument]:
    """The calls that hand a DataLoader's data on, as far as a non_blocking copy needs them: in a file that
    builds loaders, every call given one of them (or a batch of one), ``train(model, train_loader)``; and,
    back from each parameter a non_blocking copy of this file depends on, the calls of this file that pass
    it (``self.prepare(data)`` in ``train_one_epoch(self, loader)``), caller after caller."""
    found: list[LoaderArgument] = []
    if ctx.loaders:
        for sites in ctx.facts.calls.values():
            for site in sites:
                for position, keyword, arg in _arguments(site):
                    if isinstance(arg, ast.Name | ast.Attribute | ast.Call):
                        passed = _passed(ctx, site, position, keyword, arg)
                        if passed is not None and passed[3] is not None:
                            found.append(passed)
    pending = [key for key in ctx.memo.get("non_blocking_parameters", ())]  # type: ignore[attr-defined]
    seen: set[tuple[str, str]] = set()
    while pending:
        key, name, position = pending.pop()
        if (key, name) in seen:
            continue
        seen.add((key, name))
        function = ctx.function_of_reference(f":{key}")
        if function is None:
            continue
        for site in ctx.calls.callers(function):
            given = _argument(site.node, name, position)
            if given is None:
                continue
            passed = _passed(ctx, site, position, name if position is None else None, given)
            if passed is not None:
                found.append(passed)
                if passed[4] is not None:
                    pending.append(passed[4])
    return found


def _arguments(site: CallSite) -> list[tuple[int | None, str | None, ast.expr]]:
    call = site.node
    found: list[tuple[int | None, str | None, ast.expr]] = [
        (index, None, arg) for index, arg in enumerate(call.args) if not isinstance(arg, ast.Starred)
    ]
    return found + [(None, item.arg, item.value) for item in call.keywords if item.arg is not None]


def _argument(call: ast.Call, name: str, position: int | None) -> ast.expr | None:
    for item in call.keywords:
        if item.arg == name:
            return item.value
    if (
        position is not None
        and position < len(call.args)
        and not isinstance(call.args[position], ast.Starred)
    ):
        return call.args[position]
    return None


def _passed(
    ctx: FileContext, site: CallSite, position: int | None, keyword: str | None, arg: ast.expr
) -> LoaderArgument | None:
    """What an argument carries: a loader's data (with its pin_memory), or a parameter of the caller."""
    callee = ctx.callee_reference(site)
    if callee is None:
        return None
    value = ctx.value(arg, site.where)
    if value.kind in (Kind.DATALOADER, Kind.BATCH, Kind.TENSOR) and value.loader is not None:
        loader = value.loader
        pinned = (
            False if loader.pinning_advised else None if loader.pin_memory is False else loader.pin_memory
        )
        return (callee, position, keyword, pinned, None)
    origin = value.origin
    if origin is None and value.kind is Kind.UNKNOWN and isinstance(arg, ast.Name):
        origin = ctx.infer.parameter_origin(arg.id, site.where.scope)
    if origin is None:
        return None
    return (callee, position, keyword, None, (origin[1], origin[2], origin[3]))


def _distributed(ctx: FileContext, summary: FileSummary) -> None:
    calls = ctx.facts.calls
    summary.wraps_ddp = bool(calls.get("DistributedDataParallel") or ctx.calls_to(_DDP))
    if not (
        calls.get("init_process_group")
        or calls.get("set_device")
        or calls.get("set_device_index")
        or ctx.facts.sets_visible_devices
    ):
        return
    inits = ctx.calls_to(_INIT)
    device_calls = [site for qualname in _SET_DEVICE for site in ctx.calls_to(qualname) if site.node.args]
    sets = [site for site in device_calls if not isinstance(site.node.args[0], ast.Constant)]
    summary.initialises = bool(inits)
    summary.sets_device = bool(sets) or ctx.facts.sets_visible_devices
    summary.sets_fixed_device = len(sets) < len(device_calls)
    flags: dict[str, list[bool]] = {}
    for index, sites in enumerate((inits, sets)):
        for site in sites:
            function = ctx.enclosing_function(site.where)
            if function is None:
                continue
            for reaching in ctx.calls.reaching(function):
                key = ctx.name_key(reaching)
                if key is not None:
                    flags.setdefault(key[1:], [False, False])[index] = True
    summary.dist_functions = {key: (pair[0], pair[1]) for key, pair in flags.items()}


def _callees(ctx: FileContext, summary: FileSummary) -> None:
    """The functions of other files a script with a hard-coded CUDA device calls: one of them may set up the
    process group or the current device."""
    if not ctx.memo.get("hard_coded_cuda") or (summary.initialises and summary.sets_device):
        return  # nothing a helper of another file could make a finding of, or this file decides alone
    found = set()
    for sites in ctx.facts.calls.values():
        for site in sites:
            qualname = ctx.qualname(site.node.func)
            if qualname is not None and not qualname.startswith("torch."):
                found.add(qualname)
    summary.callees = tuple(sorted(found))


def _forward_callees(ctx: FileContext, summary: FileSummary) -> None:
    found: set[tuple[str, str]] = set()
    for cls, functions in ctx.forward_closures.items():
        for function in functions:
            for site in ctx.calls.calls_in(function):
                qualname = ctx.qualname(site.node.func)
                if qualname is not None and not qualname.startswith("torch."):
                    found.add((qualname, cls.name))
    summary.forward_callees = tuple(sorted(found))
