"""``torchdoctor.audit(module, *inputs)``: where a model's tensors are, and what ``Module.to()`` misses.

For use in your own code, next to the model::

    import torchdoctor
    result = torchdoctor.audit(model, batch)
    print(result)            # parameters and buffers by device and dtype, inputs, problems
    result.to_json()         # the same as plain JSON-able data

``Module.to()`` moves registered parameters and buffers only. A tensor kept as a plain attribute, or inside
a plain list or dict, stays where it was created, and a module kept in a plain list or dict is not
registered at all: ``.to()``, ``.parameters()`` (so the optimizer) and ``state_dict()`` all miss it. Those
are the usual causes of "Expected all tensors to be on the same device". torch is imported when this
runs (in your process, where it already is), never when torchdoctor is imported.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

_MAX_DEPTH = 3  # nesting of plain containers searched for tensors
_MAX_ITEMS = 1000  # items of one container searched


@dataclass(frozen=True)
class TensorGroup:
    """Registered tensors of one kind on one device with one dtype."""

    kind: str  # "parameter" or "buffer"
    device: str
    dtype: str
    count: int
    numel: int
    bytes: int


@dataclass(frozen=True)
class InputTensor:
    where: str
    device: str
    dtype: str
    shape: tuple[int, ...]


@dataclass(frozen=True)
class Problem:
    kind: str
    """unregistered_tensor, tensor_in_container, module_in_container, split_devices, input_device or
    input_dtype"""
    where: str
    summary: str
    fix: str


@dataclass(frozen=True)
class AuditResult:
    module: str
    groups: tuple[TensorGroup, ...]
    devices: Mapping[str, tuple[str, ...]]
    """Each device of the registered tensors, with the top-level submodules that have tensors there."""
    inputs: tuple[InputTensor, ...] = ()
    problems: tuple[Problem, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def status(self) -> str:
        return "pass" if self.ok else "warn"

    def to_json(self) -> dict[str, Any]:
        return {
            "module": self.module,
            "status": self.status,
            "tensors": [vars(group).copy() for group in self.groups],
            "devices": {device: list(owners) for device, owners in self.devices.items()},
            "inputs": [{**vars(i), "shape": list(i.shape)} for i in self.inputs],
            "problems": [vars(problem).copy() for problem in self.problems],
        }

    def __str__(self) -> str:
        lines = [self._headline(), ""]
        lines += _table(
            ("tensors", "device", "dtype", "count", "elements", "size"),
            [(g.kind, g.device, g.dtype, str(g.count), f"{g.numel:,}", _size(g.bytes)) for g in self.groups],
        )
        if self.inputs:
            lines += [
                "",
                *_table(("inputs", "device", "dtype", "shape"), [_input_row(i) for i in self.inputs]),
            ]
        if self.problems:
            lines += ["", "problems"]
            for problem in self.problems:
                lines += [f"  ! {problem.where}: {problem.summary}", f"    fix: {problem.fix}"]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<AuditResult {self.module}: {self.status}, {len(self.problems)} problem(s)>"

    def _headline(self) -> str:
        parameters = sum(g.count for g in self.groups if g.kind == "parameter")
        buffers = sum(g.count for g in self.groups if g.kind == "buffer")
        where = ", ".join(self.devices) or "no device"
        found = (
            f"{len(self.problems)} problem{'' if len(self.problems) == 1 else 's'}" if self.problems else "ok"
        )
        counts = f"{parameters} parameter(s) and {buffers} buffer(s)"
        return f"torchdoctor.audit: {self.module}, {counts} on {where}; {found}"


def _input_row(tensor: InputTensor) -> tuple[str, ...]:
    return (tensor.where, tensor.device, tensor.dtype, str(tensor.shape))


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=False)]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    ]


def _size(size: int) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} B"


def audit(module: Any, *inputs: Any) -> AuditResult:
    """Audit ``module`` (a ``torch.nn.Module``) and, when given, the example inputs of its forward pass."""
    import torch

    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"audit() needs a torch.nn.Module, not {type(module).__name__}")
    registered: list[tuple[str, str, Any]] = [("parameter", name, t) for name, t in module.named_parameters()]
    registered += [("buffer", name, t) for name, t in module.named_buffers()]
    groups = _groups(registered)
    devices = _devices(registered)
    problems = list(_unregistered(module, torch))
    if len(devices) > 1:
        problems.append(_split(module, devices))
    found_inputs = [
        InputTensor(where, str(t.device), _dtype(t), tuple(t.shape))
        for where, t in tensors_in(inputs, "inputs", torch)
    ]
    problems += _input_problems(found_inputs, registered, torch)
    return AuditResult(
        module=type(module).__name__,
        groups=tuple(groups),
        devices=devices,
        inputs=tuple(found_inputs),
        problems=tuple(problems),
    )


def _dtype(tensor: Any) -> str:
    return str(tensor.dtype).removeprefix("torch.")


def _groups(registered: list[tuple[str, str, Any]]) -> list[TensorGroup]:
    totals: dict[tuple[str, str, str], list[int]] = {}
    for kind, _, tensor in registered:
        key = (kind, str(tensor.device), _dtype(tensor))
        count, numel, size = totals.get(key, [0, 0, 0])
        totals[key] = [count + 1, numel + tensor.numel(), size + tensor.numel() * tensor.element_size()]
    return [TensorGroup(kind, device, dtype, *values) for (kind, device, dtype), values in totals.items()]


def _devices(registered: list[tuple[str, str, Any]]) -> dict[str, tuple[str, ...]]:
    owners: dict[str, list[str]] = {}
    for _, name, tensor in registered:
        top = name.split(".", 1)[0] if "." in name else "(own tensors)"
        found = owners.setdefault(str(tensor.device), [])
        if top not in found:
            found.append(top)
    return {device: tuple(names) for device, names in owners.items()}


def _unregistered(module: Any, torch: Any) -> Iterator[Problem]:
    internal = set(vars(torch.nn.Module()))
    for prefix, sub in module.named_modules():
        for attribute, value in vars(sub).items():
            if attribute in internal:
                continue
            where = f"{prefix}.{attribute}" if prefix else attribute
            if isinstance(value, torch.Tensor):
                yield Problem(
                    "unregistered_tensor",
                    where,
                    f"a tensor attribute ({_describe(value)}), not a parameter or buffer: Module.to() does "
                    "not move it",
                    f"self.register_buffer({attribute!r}, tensor) in {type(sub).__name__}.__init__ "
                    "(persistent=False keeps it out of the state_dict), or nn.Parameter if it is trained",
                )
            elif isinstance(value, list | tuple | dict | set):
                yield from _in_container(value, where, torch)


def _in_container(value: Any, where: str, torch: Any) -> Iterator[Problem]:
    kind = type(value).__name__
    for path, tensor in tensors_in(value, where, torch, depth=1):
        yield Problem(
            "tensor_in_container",
            path,
            f"a tensor inside a plain {kind} ({_describe(tensor)}): Module.to() does not move it",
            "register each tensor with self.register_buffer(), or keep trainable ones in nn.ParameterList or "
            "nn.ParameterDict",
        )
    for path, sub in _modules(value, where, torch):
        count = sum(p.numel() for p in sub.parameters())
        yield Problem(
            "module_in_container",
            path,
            f"a {type(sub).__name__} inside a plain {kind} ({count:,} parameter elements): it is not "
            "registered, so Module.to(), .parameters() (the optimizer) and state_dict() all miss it",
            "keep submodules in nn.ModuleList or nn.ModuleDict",
        )


def _children(value: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(value, Mapping):
        items = ((f"[{key!r}]", item) for key, item in value.items())
    elif isinstance(value, set):
        items = ((f"{{item {n}}}", item) for n, item in enumerate(value))
    else:
        items = ((f"[{n}]", item) for n, item in enumerate(value))
    for index, item in enumerate(items):
        if index >= _MAX_ITEMS:
            return
        yield item


def tensors_in(value: Any, where: str, torch: Any, depth: int = 0) -> Iterator[tuple[str, Any]]:
    """The tensors ``value`` holds, itself or in lists, tuples, dicts and sets of them (bounded), each with
    its path from ``where`` (``anchors[0]``)."""
    if isinstance(value, torch.Tensor):
        yield where, value
        return
    if depth > _MAX_DEPTH or not isinstance(value, list | tuple | dict | set):
        return
    for suffix, item in _children(value):
        yield from tensors_in(item, where + suffix, torch, depth + 1)


def _modules(value: Any, where: str, torch: Any, depth: int = 1) -> Iterator[tuple[str, Any]]:
    if depth > _MAX_DEPTH or not isinstance(value, list | tuple | dict | set):
        return
    for suffix, item in _children(value):
        if isinstance(item, torch.nn.Module):
            yield where + suffix, item
        else:
            yield from _modules(item, where + suffix, torch, depth + 1)


def _describe(tensor: Any) -> str:
    return f"{tensor.device}, {_dtype(tensor)}, shape {tuple(tensor.shape)}"


def _split(module: Any, devices: Mapping[str, tuple[str, ...]]) -> Problem:
    spread = "; ".join(f"{device}: {', '.join(owners)}" for device, owners in devices.items())
    fix = "move the whole model with model.to(device), unless the split is deliberate model parallelism"
    if "meta" in devices:
        fix += (
            "; meta tensors hold no data: materialize them (module.to_empty(device=...)) and load the weights"
        )
    return Problem(
        "split_devices",
        type(module).__name__,
        f"parameters and buffers are on {len(devices)} devices ({spread})",
        fix,
    )


def _input_problems(
    found: list[InputTensor], registered: list[tuple[str, str, Any]], torch: Any
) -> list[Problem]:
    if not registered:
        return []
    devices = list(dict.fromkeys(str(t.device) for _, _, t in registered))
    floating = {_dtype(t) for _, _, t in registered if t.is_floating_point()}
    problems = []
    for tensor in found:
        if tensor.device not in devices:
            problems.append(
                Problem(
                    "input_device",
                    tensor.where,
                    f"on {tensor.device}, the parameters on {' and '.join(devices)}",
                    "move inputs to the parameters' device: x = x.to(next(model.parameters()).device)",
                )
            )
        dtype = getattr(torch, tensor.dtype)
        if len(floating) == 1 and dtype.is_floating_point and tensor.dtype not in floating:
            (expected,) = floating
            problems.append(
                Problem(
                    "input_dtype",
                    tensor.where,
                    f"{tensor.dtype}, the floating-point parameters are {expected}: outside torch.autocast "
                    "the forward pass fails ('mat1 and mat2 must have the same dtype')",
                    f"cast it: x = x.to(torch.{expected})",
                )
            )
    return problems
