"""TDL004 (torch.load without map_location), TDL005 (a hard-coded CUDA device in a distributed script),
TDL101 (a hard-coded CUDA device with no fallback)."""

from __future__ import annotations

import ast
import re
from collections.abc import Container, Iterator
from dataclasses import dataclass

from torchdoctor.lint import edits
from torchdoctor.lint.context import FileContext, dotted, keyword, short_source
from torchdoctor.lint.findings import Fact, Hit, hit
from torchdoctor.lint.infer import mentions
from torchdoctor.lint.scan import CallSite, Scope, Where, enclosing_function
from torchdoctor.lint.torchapi import cuda_literals

_DDP = "torch.nn.parallel.DistributedDataParallel"
# Calls that make a variable GPU the current device of the process.
_SET_DEVICE = ("torch.cuda.set_device", "torch.cuda.device", "torch.accelerator.set_device_index")


def loads_without_map_location(ctx: FileContext) -> Iterator[Hit]:
    """TDL004: ``torch.load(path)`` with neither map_location= nor a second positional argument, unless the
    same function (a test, a round trip) saved that very file just before (then TDL104). At the top level of
    a script the load stays TDL004: that is the line readers copy to load a checkpoint from elsewhere."""
    for site in _unmapped_loads(ctx):
        if _own_file(ctx, site) is None:
            fix = (
                _map_to_cpu(ctx, site)
                if _restored_into_modules(ctx, site) and not _cpu_round_trip(ctx, site)
                else ()
            )
            yield hit("TDL004", site.node, edits=fix)


def _cpu_round_trip(ctx: FileContext, load: CallSite) -> bool:
    """A file that never puts anything on a GPU and saves the very file it loads (just before, or under the
    same literal name anywhere): a CPU tutorial's save-then-load, whose checkpoint holds CPU tensors, where
    map_location="cpu" is noise a reviewer rejects."""
    facts = ctx.facts
    if facts.has_cuda_literal or facts.calls.get("cuda"):
        return False
    if _saved_before(ctx, load, top_level=True) is not None:
        return True
    path = _load_path(load.node)
    if not (isinstance(path, ast.Constant) and isinstance(path.value, str)):
        return False
    return any(
        isinstance(saved, ast.Constant) and saved.value == path.value
        for sites in facts.calls.values()
        for site in sites
        for saved in [_saved_path(ctx, site.node)]
    )


def loads_of_own_checkpoints(ctx: FileContext) -> Iterator[Hit]:
    """TDL104: the loads TDL004 leaves out: the same run wrote the file on the same machine."""
    for site in _unmapped_loads(ctx):
        why = _own_file(ctx, site)
        if why is not None:
            yield hit("TDL104", site.node, path=short_source(_load_path(site.node) or site.node), why=why)


def _own_file(ctx: FileContext, load: CallSite) -> str | None:
    """Why the file a load reads cannot come from another machine, or None: the same function saved it just
    before, or it sits in a temporary folder of this run (pytest's tmp_path, tempfile)."""
    if _saved_before(ctx, load) is not None:
        scope = "test file" if ctx.enclosing_function(load.where) is None else "function"
        return f"which this {scope} saved itself"
    path = _load_path(load.node)
    if path is not None and _temporary(ctx, path, load.where.scope, 4):
        return "a file of a temporary folder this run made"
    return None


_TEMPORARY_FIXTURES = frozenset({"tmp_path", "tmpdir", "tmp_path_factory", "tmpdir_factory"})


def _temporary(ctx: FileContext, expr: ast.expr, scope: Scope, depth: int) -> bool:
    """Whether a path is built from a temporary folder or file made in this run: pytest's ``tmp_path``
    fixture, ``tempfile.mkdtemp()``, ``with tempfile.TemporaryDirectory() as folder``, or a name bound once
    to such a path."""
    for node in ast.walk(expr):
        if isinstance(node, ast.Call) and (ctx.qualname(node.func) or "").startswith("tempfile."):
            return True
        if not isinstance(node, ast.Name):
            continue
        found = ctx.infer.binding_scope(node.id, scope)
        if found is None:
            continue
        bindings = found.bindings[node.id]
        if any(binding.how == "param" and node.id in _TEMPORARY_FIXTURES for binding in bindings):
            return True
        # every value the name gets is such a path, or built from its previous value
        if depth > 0 and all(
            binding.how in ("value", "with", "iter") and binding.expr for binding in bindings
        ):
            made = [
                _temporary(ctx, binding.expr, found, depth - 1)
                for binding in bindings
                if binding.expr is not None and not mentions(binding.expr, node.id)
            ]
            if made and all(made):
                return True
    return False


def _load_path(call: ast.Call) -> ast.expr | None:
    return call.args[0] if call.args else keyword(call, "f")


def _map_to_cpu(ctx: FileContext, site: CallSite) -> tuple[edits.Edit, ...]:
    call = site.node
    last = max([*call.args, *call.keywords], key=edits.end, default=None)
    if last is None:
        return ()
    return (edits.insert(edits.end(last), edits.text(', map_location="cpu"')),)


# Checkpoint entries that hold numbers or settings rather than tensors.
_SCALAR_KEYS = frozenset(
    {
        "epoch",
        "step",
        "global_step",
        "iteration",
        "iter",
        "best_acc",
        "best_prec1",
        "acc",
        "arch",
        "args",
        "config",
    }
)


def _restored_into_modules(ctx: FileContext, site: CallSite) -> bool:
    """Whether the loaded tensors only reach ``load_state_dict()`` (which copies them onto the devices of the
    module's own tensors, and the optimizer's onto its parameters'): then map_location="cpu" changes nothing
    but that the load works without a GPU. The load's value goes straight there, or a name holds it and its
    every use is ``load_state_dict(name)``, ``load_state_dict(name["model"])`` or ``name["epoch"]``."""
    call = site.node
    function = ctx.enclosing_function(site.where)
    body = function if function is not None else ctx.facts.module.node
    allowed: set[ast.AST] = set()
    target: str | None = None
    for node in ast.walk(body):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "load_state_dict" and node.args:
                first = node.args[0]
                allowed.add(first)
                if isinstance(first, ast.Subscript):
                    allowed.add(first.value)
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            if node.slice.value in _SCALAR_KEYS:
                allowed.add(node.value)
        elif (
            isinstance(node, ast.Assign)
            and node.value is call
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            target = node.targets[0].id
    if call in allowed:
        return True
    if target is None or len(site.where.scope.bindings.get(target, [])) != 1:
        return False
    uses = [
        node
        for node in ast.walk(body)
        if isinstance(node, ast.Name) and node.id == target and isinstance(node.ctx, ast.Load)
    ]
    return bool(uses) and all(use in allowed for use in uses)


def _unmapped_loads(ctx: FileContext) -> list[CallSite]:
    found = []
    for site in ctx.calls_to("torch.load"):
        call = site.node
        if len(call.args) >= 2 or any(isinstance(arg, ast.Starred) for arg in call.args):
            continue
        if any(item.arg in ("map_location", None) for item in call.keywords):
            continue
        found.append(site)
    return found


# Calls that write a checkpoint, and where their path is: torch.save(obj, path),
# trainer.save_checkpoint(path), fabric.save(path, state).
_SAVES = {"torch.save": 1}
_SAVE_METHODS = {"save_checkpoint": 0, "save": 0}


def _saved_before(ctx: FileContext, load: CallSite, top_level: bool = False) -> ast.expr | None:
    """The path of a load when a save of that same path (the same expression, its names never rebound in
    between) runs earlier in the same function or script body (a script's top level only for a test file,
    or ``top_level``): the file cannot come from another machine."""
    call = load.node
    path = _load_path(call)
    if path is None:
        return None
    function = ctx.enclosing_function(load.where)
    if function is None and not (ctx.is_test_file or top_level):
        return None
    body = function if function is not None else ctx.facts.module.node
    wanted = ast.dump(path)
    for site in ctx.calls.calls_in(body):
        if site.where.scope is not load.where.scope:
            continue
        saved = _saved_path(ctx, site.node)
        if (
            saved is not None
            and ast.dump(saved) == wanted
            and ctx.paths(body).before(site.node, call)
            and not _rebound(ctx, path, load)
        ):
            return path
    return None


def _saved_path(ctx: FileContext, call: ast.Call) -> ast.expr | None:
    position = _SAVES.get(ctx.qualname(call.func) or "")
    if position is None and isinstance(call.func, ast.Attribute) and ctx.qualname(call.func) is None:
        position = _SAVE_METHODS.get(call.func.attr)
    if position is None:
        return None
    if len(call.args) > position:
        return call.args[position]
    return keyword(call, "f") or keyword(call, "filepath") or keyword(call, "path")


def _rebound(ctx: FileContext, path: ast.expr, load: CallSite) -> bool:
    """Whether a name the path is built from is bound more than once (it may name another file by then)."""
    for node in ast.walk(path):
        if isinstance(node, ast.Name):
            scope = ctx.infer.binding_scope(node.id, load.where.scope)
            if scope is not None and len(scope.bindings[node.id]) > 1:
                return True
    return False


@dataclass(frozen=True)
class HardCodedCuda:
    node: ast.AST  # the call or assignment to report
    what: str  # how it reads: '"cuda"', 'torch.device("cuda:0")', '.cuda()'
    index: int | None  # the one fixed GPU it names, None for the current device
    literal: bool  # a string, rather than a .cuda() call
    where: Where

    @property
    def indexed(self) -> bool:
        return self.index is not None


def _index(literal: str, extra: object = None) -> int | None:
    if isinstance(extra, int):
        return extra
    _, _, number = literal.partition(":")
    return int(number) if number.isdigit() else None


def hard_coded_cuda(ctx: FileContext) -> list[HardCodedCuda]:
    """Every place that picks a CUDA device with a constant: torch.device("cuda"), .to("cuda"),
    device="cuda:0", map_location="cuda", device = "cuda", .cuda(), .cuda(0)."""
    known = ctx.memo.get("hard_coded_cuda")
    if known is None:
        known = ctx.memo["hard_coded_cuda"] = _hard_coded_cuda(ctx)
    return known  # type: ignore[return-value]


def _hard_coded_cuda(ctx: FileContext) -> list[HardCodedCuda]:
    facts = ctx.facts
    if not (facts.has_cuda_literal or facts.calls.get("cuda")):
        return []
    found: list[HardCodedCuda] = []
    device_calls = {site.node: site for site in ctx.calls_to("torch.device")}
    enumerated = _enumerated_devices(ctx.tree, device_calls) if len(device_calls) > 1 else set()
    for call, site in device_calls.items():
        if call in enumerated:
            continue
        first = call.args[0] if call.args else keyword(call, "type")
        index = call.args[1] if len(call.args) > 1 else keyword(call, "index")
        if index is not None and not isinstance(index, ast.Constant):
            continue  # torch.device("cuda", local_rank)
        for literal in cuda_literals(first) if first is not None else []:
            extra = index.value if isinstance(index, ast.Constant) else None
            suffix = f", {extra!r}" if isinstance(index, ast.Constant) else ""
            what = f'torch.device("{literal}"{suffix})'
            found.append(HardCodedCuda(call, what, _index(literal, extra), True, site.where))
    for name, sites in facts.calls.items():
        moves = name in ("to", "cuda")
        for site in sites:
            call = site.node
            if (not moves and not call.keywords) or call in device_calls:
                continue
            func = call.func
            values = [item.value for item in call.keywords if item.arg in ("device", "map_location")]
            if name == "to" and isinstance(func, ast.Attribute):
                values.extend(call.args)
            where = site.where
            for value in values:
                for literal in cuda_literals(value):
                    found.append(HardCodedCuda(call, f'"{literal}"', _index(literal), True, where))
            if name == "cuda" and isinstance(func, ast.Attribute) and ctx.qualname(func) is None:
                index = call.args[0] if call.args else keyword(call, "device")
                if index is None:
                    found.append(HardCodedCuda(call, ".cuda()", None, False, where))
                elif isinstance(index, ast.Constant) and isinstance(index.value, int):
                    found.append(HardCodedCuda(call, f".cuda({index.value})", index.value, False, where))
    defaults = _defaults_callers_override(ctx)
    found = [item for item in found if item.node not in defaults]
    for assign, where in facts.device_assigns:
        targets = assign.targets if isinstance(assign, ast.Assign) else [assign.target]
        if assign.value is not None and any(_names_a_device(target) for target in targets):
            for literal in cuda_literals(assign.value):
                found.append(HardCodedCuda(assign, f'"{literal}"', _index(literal), True, where))
    return found


def _enumerated_devices(tree: ast.AST, device_calls: Container[ast.AST]) -> set[ast.AST]:
    """torch.device calls listed beside another one (``[torch.device("cuda:0"), torch.device("cuda:1")]``,
    a test's parameters): a list of devices to go through, not the device a process picks."""
    listed: set[ast.AST] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            devices = [element for element in node.elts if element in device_calls]
            if len(devices) > 1:
                listed.update(devices)
    return listed


def fixed_set_device(ctx: FileContext) -> list[HardCodedCuda]:
    """``torch.cuda.set_device(0)``: a constant current device."""
    found = []
    for qualname in _SET_DEVICE:
        for site in ctx.calls_to(qualname):
            first = site.node.args[0] if site.node.args else None
            if isinstance(first, ast.Constant) and isinstance(first.value, int | str):
                index = first.value if isinstance(first.value, int) else _index(first.value)
                what = f"{qualname}({first.value!r})"
                found.append(HardCodedCuda(site.node, what, index, False, site.where))
    return found


def fixed_ddp_devices(ctx: FileContext) -> list[HardCodedCuda]:
    """``DistributedDataParallel(model, device_ids=[0], output_device=0)``: every rank's replica on GPU 0."""
    found = []
    for site in ctx.calls_to(_DDP):
        call = site.node
        ids = keyword(call, "device_ids") or (call.args[1] if len(call.args) > 1 else None)
        output = keyword(call, "output_device") or (call.args[2] if len(call.args) > 2 else None)
        if isinstance(ids, ast.List | ast.Tuple) and len(ids.elts) == 1:
            index = _constant_index(ids.elts[0])
            if index is not None:
                found.append(HardCodedCuda(ids, f"device_ids=[{index}]", index, False, site.where))
                continue
        index = _constant_index(output) if output is not None else None
        if index is not None:
            found.append(HardCodedCuda(output, f"output_device={index}", index, False, site.where))  # type: ignore[arg-type]
    return found


def _constant_index(node: ast.expr) -> int | None:
    """``0``, ``"cuda:0"``, ``torch.device("cuda:0")`` as a GPU index; None for anything else."""
    if isinstance(node, ast.Constant):
        if type(node.value) is int:
            return node.value
        if isinstance(node.value, str) and cuda_literals(node):
            return _index(node.value)
    return None


# Names that hold each process's own GPU: the rank, the local rank, the GPU a launcher gave it.
_PER_PROCESS = re.compile(
    r"(?:^|_)(?:local_?rank|rank|gpu_?id|device_?id|local_process_index|proc_?id)$|^gpu$", re.IGNORECASE
)


def _per_process(value: ast.AST) -> bool:
    """Whether an expression reads a per-process value: ``local_rank``, ``args.gpu``,
    ``os.environ["LOCAL_RANK"]``, ``f"cuda:{rank}"``, ``dist.get_rank()``."""
    for node in ast.walk(value):
        name = (
            node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
        )
        if name is not None and (_PER_PROCESS.search(name) or name in ("get_rank", "get_local_rank")):
            return True
        if isinstance(node, ast.Constant) and node.value in ("LOCAL_RANK", "RANK", "SLURM_LOCALID"):
            return True
    return False


def _overwritten_per_process(ctx: FileContext) -> set[ast.AST]:
    """The nodes of ``device = "cuda:0"`` (or ``torch.device("cuda:0")``) defaults that the same function
    assigns again from the rank's own device (``device = torch.device("cuda", local_rank)``)."""
    by_target: dict[tuple[ast.AST, str], list[ast.Assign | ast.AnnAssign]] = {}
    for assign, where in ctx.facts.assigns:
        targets = assign.targets if isinstance(assign, ast.Assign) else [assign.target]
        for target in targets:
            name = dotted(target)
            if name is not None and _names_a_device(target):
                by_target.setdefault((enclosing_function(where.scope).node, name), []).append(assign)
    overwritten: set[ast.AST] = set()
    for assigns in by_target.values():
        if len(assigns) > 1 and any(_per_process(assign.value) for assign in assigns):  # type: ignore[arg-type]
            for assign in assigns:
                if not _per_process(assign.value):  # type: ignore[arg-type]
                    overwritten.update(ast.walk(assign))
    return overwritten


def _one_gpu_visible_per_process(ctx: FileContext) -> bool:
    """``os.environ["CUDA_VISIBLE_DEVICES"] = str(rank)``: each process sees its own GPU as GPU 0."""
    if not ctx.facts.sets_visible_devices:
        return False
    return any(
        isinstance(assign, ast.Assign)
        and any(
            isinstance(target, ast.Subscript)
            and isinstance(target.slice, ast.Constant)
            and target.slice.value == "CUDA_VISIBLE_DEVICES"
            for target in assign.targets
        )
        and _per_process(assign.value)
        for assign, _ in ctx.facts.assigns
    )


def _defaults_callers_override(ctx: FileContext) -> set[ast.AST]:
    """The nodes of parameter defaults (``device=torch.device("cuda")``) that no call in this file relies on:
    every call passes the parameter, or the function is not called here at all."""
    overridden: set[ast.AST] = set()
    for name, functions in ctx.facts.functions.items():
        for function in functions:
            args = function.args
            if not args.defaults and not any(args.kw_defaults):
                continue
            positional = [*args.posonlyargs, *args.args]
            pairs = [
                *zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True),
                *(
                    (arg, default)
                    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True)
                    if default
                ),
            ]
            scope = ctx.facts.scope_of.get(function)
            shift = 1 if scope is not None and scope.self_name is not None else 0
            for param, default in pairs:
                if isinstance(default, ast.Name | ast.Attribute) or not any(
                    isinstance(node, ast.Constant) and cuda_literals(node) for node in ast.walk(default)
                ):
                    continue
                index = positional.index(param) - shift if param in positional else None
                calls = ctx.facts.calls.get(name, [])
                if all(_passes(site.node, param.arg, index) for site in calls):
                    overridden.update(ast.walk(default))
    return overridden


def _passes(call: ast.Call, name: str, index: int | None) -> bool:
    if any(item.arg in (name, None) for item in call.keywords):
        return True
    if any(isinstance(arg, ast.Starred) for arg in call.args):
        return True
    return index is not None and 0 <= index < len(call.args)


def _names_a_device(target: ast.expr) -> bool:
    if isinstance(target, ast.Name):
        name = target.id.lower()
    elif isinstance(target, ast.Attribute):
        name = target.attr.lower()
    else:
        return False
    if any(word in name for word in ("type", "count", "name", "ids", "backend")):
        return False
    return "device" in name or name == "dev" or name.endswith("_dev")


def hard_coded_cuda_in_distributed(ctx: FileContext) -> Iterator[Hit]:
    """TDL005: in a script that sets up a process group (itself or through a function of another linted file)
    or wraps a model in DDP: a fixed GPU index, ``set_device(0)``, or the current device (``.cuda()``,
    ``"cuda"``) when nothing sets it per process. Code only rank 0 runs may use GPU 0 (or its current
    device): that is its own."""
    fixed = fixed_set_device(ctx)
    candidates = [*hard_coded_cuda(ctx), *fixed, *fixed_ddp_devices(ctx)]
    if not candidates:
        return
    overwritten = _overwritten_per_process(ctx) if ctx.facts.has_cuda_literal else set()
    one_visible = _one_gpu_visible_per_process(ctx)
    for found in candidates:
        if not found.index and ctx.rank0_only(found.where):
            continue
        if found.node in overwritten or (one_visible and not found.index):
            continue  # a default the rank's own device replaces; GPU 0 of a process that sees one GPU
        requires: list[Fact] = [("distributed",)]
        if found in fixed:
            # set_device(0) beside a set_device(local_rank) is the single-process branch
            requires.append(("no-device-set-by-variable",))
        elif not found.indexed:
            # Without a process group set up where this analysis can see it, a helper of another module
            # sets it up, and usually the current device with it: only a fixed index is then certainly wrong.
            requires.append(("device-not-set",))
        yield hit("TDL005", found.node, requires=tuple(requires), what=found.what)


def cuda_without_fallback(ctx: FileContext) -> Iterator[Hit]:
    """TDL101: a CUDA device string in a file with no is_available() check and no "cpu"/"mps" path."""
    facts = ctx.facts
    if facts.has_cpu_or_mps_literal or facts.calls.get("is_available") or facts.calls.get("device_count"):
        return
    for found in hard_coded_cuda(ctx):
        if found.literal:
            yield hit("TDL101", found.node, what=found.what)
