"""TDL004 (torch.load without map_location), TDL005 (a hard-coded CUDA device in a distributed script),
TDL101 (a hard-coded CUDA device with no fallback)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from torchdoctor.lint.context import FileContext, keyword
from torchdoctor.lint.findings import Hit, hit
from torchdoctor.lint.torchapi import cuda_literals

_DDP = "torch.nn.parallel.DistributedDataParallel"
# Calls that make a variable GPU the current device of the process.
_SET_DEVICE = ("torch.cuda.set_device", "torch.cuda.device", "torch.accelerator.set_device_index")


def loads_without_map_location(ctx: FileContext) -> Iterator[Hit]:
    """TDL004: ``torch.load(path)`` with neither map_location= nor a second positional argument."""
    for site in ctx.calls_to("torch.load"):
        call = site.node
        if len(call.args) >= 2 or any(isinstance(arg, ast.Starred) for arg in call.args):
            continue
        if any(item.arg in ("map_location", None) for item in call.keywords):
            continue
        yield hit("TDL004", call)


@dataclass(frozen=True)
class HardCodedCuda:
    node: ast.AST  # the call or assignment to report
    what: str  # how it reads: '"cuda"', 'torch.device("cuda:0")', '.cuda()'
    indexed: bool  # it names one fixed GPU
    literal: bool  # a string, rather than a .cuda() call


def hard_coded_cuda(ctx: FileContext) -> list[HardCodedCuda]:
    """Every place that picks a CUDA device with a constant: torch.device("cuda"), .to("cuda"),
    device="cuda:0", map_location="cuda", device = "cuda", .cuda(), .cuda(0)."""
    found: list[HardCodedCuda] = []
    device_calls = {site.node for site in ctx.calls_to("torch.device")}
    for call in device_calls:
        first = call.args[0] if call.args else keyword(call, "type")
        index = call.args[1] if len(call.args) > 1 else keyword(call, "index")
        if index is not None and not isinstance(index, ast.Constant):
            continue  # torch.device("cuda", local_rank)
        for literal in cuda_literals(first) if first is not None else []:
            suffix = f", {index.value!r}" if isinstance(index, ast.Constant) else ""
            what = f'torch.device("{literal}"{suffix})'
            found.append(HardCodedCuda(call, what, ":" in literal or bool(suffix), True))
    for sites in ctx.facts.calls.values():
        for site in sites:
            call = site.node
            if call in device_calls:
                continue
            func = call.func
            values = [item.value for item in call.keywords if item.arg in ("device", "map_location")]
            if isinstance(func, ast.Attribute) and func.attr == "to":
                values.extend(call.args)
            for value in values:
                for literal in cuda_literals(value):
                    found.append(HardCodedCuda(call, f'"{literal}"', ":" in literal, True))
            if isinstance(func, ast.Attribute) and func.attr == "cuda" and ctx.qualname(func) is None:
                index = call.args[0] if call.args else keyword(call, "device")
                if index is None:
                    found.append(HardCodedCuda(call, ".cuda()", False, False))
                elif isinstance(index, ast.Constant) and isinstance(index.value, int):
                    found.append(HardCodedCuda(call, f".cuda({index.value})", True, False))
    defaults = _defaults_callers_override(ctx)
    found = [item for item in found if item.node not in defaults]
    for assign, _ in ctx.facts.device_assigns:
        targets = assign.targets if isinstance(assign, ast.Assign) else [assign.target]
        if assign.value is not None and any(_names_a_device(target) for target in targets):
            for literal in cuda_literals(assign.value):
                found.append(HardCodedCuda(assign, f'"{literal}"', ":" in literal, True))
    return found


def _defaults_callers_override(ctx: FileContext) -> set[ast.AST]:
    """The nodes of parameter defaults (``device=torch.device("cuda")``) that no call in this file relies on:
    every call passes the parameter, or the function is not called here at all."""
    overridden: set[ast.AST] = set()
    for name, functions in ctx.facts.functions.items():
        for function in functions:
            args = function.args
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
                if not any(
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
    """TDL005: in a file that calls init_process_group or wraps a model in DDP."""
    calls = ctx.facts.calls
    initialises = bool(calls.get("init_process_group"))
    if not (initialises or calls.get("DistributedDataParallel") or ctx.calls_to(_DDP)):
        return
    # Without init_process_group here, a helper of another module sets the process group up, and usually
    # the current device with it: only a fixed index is then certainly wrong.
    current_device_set = (
        not initialises
        or ctx.facts.sets_visible_devices
        or any(
            site.node.args and not isinstance(site.node.args[0], ast.Constant)
            for qualname in _SET_DEVICE
            for site in ctx.calls_to(qualname)
        )
    )
    for found in hard_coded_cuda(ctx):
        if found.indexed or not current_device_set:
            yield hit("TDL005", found.node, what=found.what)


def cuda_without_fallback(ctx: FileContext) -> Iterator[Hit]:
    """TDL101: a CUDA device string in a file with no is_available() check and no "cpu"/"mps" path."""
    facts = ctx.facts
    if facts.has_cpu_or_mps_literal or facts.calls.get("is_available") or facts.calls.get("device_count"):
        return
    for found in hard_coded_cuda(ctx):
        if found.literal:
            yield hit("TDL101", found.node, what=found.what)
