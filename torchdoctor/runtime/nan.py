"""``--nan``: the first module whose float16 or bfloat16 forward output is not finite, with the range of its
inputs against the largest value the dtype holds (the manual ``.half()`` pitfall), judged by what it saw: an
output that overflowed to inf is a matter of range (autocast, scaling); NaN alone from finite inputs is an
operation outside its domain (log or sqrt of a negative, 0/0), which no change of range fixes.

Global forward hooks compute, on the device, whether each half precision output is finite and how large
its inputs were; nothing is read back until the outermost forward call returns, and then once (one
synchronisation per forward pass of the model, not one per layer).
"""

from __future__ import annotations

import inspect
import weakref
from dataclasses import dataclass
from typing import Any

from torchdoctor.runtime.model import Finding, site_text
from torchdoctor.runtime.recorder import Recorder

MAX_PENDING = 100_000
"""Module outputs waiting to be read within one forward pass, at most."""


@dataclass
class _Pending:
    module: Any
    dtype: Any
    finite: Any
    """A 0-dim bool tensor on the output's device."""
    overflowed: Any
    """A 0-dim bool tensor: some output value is inf."""
    input_max: Any
    input_finite: Any


class NonfiniteWatch:
    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder
        self.torch = recorder.torch
        self.half = (self.torch.float16, self.torch.bfloat16)
        self.depth = 0
        self.step = 0
        self.root: Any = None
        self.pending: list[_Pending] = []
        self.finding: Finding | None = None
        self._handles: list[Any] = []

    @classmethod
    def start(cls, recorder: Recorder) -> NonfiniteWatch:
        watch = cls(recorder)
        hooks = recorder.torch.nn.modules.module
        watch._handles.append(hooks.register_module_forward_pre_hook(watch.pre))
        register = hooks.register_module_forward_hook
        if "always_call" in inspect.signature(register).parameters:
            watch._handles.append(register(watch.post, always_call=True))
        else:
            watch._handles.append(register(watch.post))
        return watch

    def stop(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles.clear()
        self.pending.clear()

    def pre(self, module: Any, args: Any) -> None:
        if self.finding is not None or not self.recorder.on or self.recorder.compiling():
            return
        if self.depth == 0:
            self.step += 1
            self.root = weakref.ref(module)
        self.depth += 1

    def post(self, module: Any, args: Any, output: Any) -> None:
        if self.finding is not None or not self.recorder.on or self.recorder.compiling() or self.depth == 0:
            return
        self.depth -= 1
        try:
            self._check(module, args, output)
            if self.depth == 0:
                self._read()
        except Exception as exc:
            self.recorder.fail(exc)

    def _check(self, module: Any, args: Any, output: Any) -> None:
        torch = self.torch
        outputs = [o for o in _flat(output) if isinstance(o, torch.Tensor) and o.dtype in self.half]
        if not outputs or len(self.pending) >= MAX_PENDING:
            return
        self.recorder.internal += 1
        try:
            with torch.no_grad():
                finite = _all([torch.isfinite(o).all() for o in outputs], torch)
                overflowed = _any([torch.isinf(o).any() for o in outputs], torch)
                inputs = [
                    i
                    for i in _flat(args)
                    if isinstance(i, torch.Tensor) and i.is_floating_point() and i.numel()
                ]
                input_max = (
                    torch.stack([i.detach().abs().amax().float() for i in inputs]).amax() if inputs else None
                )
                input_finite = _all([torch.isfinite(i).all() for i in inputs], torch) if inputs else None
        finally:
            self.recorder.internal -= 1
        self.pending.append(
            _Pending(weakref.ref(module), outputs[0].dtype, finite, overflowed, input_max, input_finite)
        )

    def _read(self) -> None:
        """One read per device of every check of this forward pass; the first non-finite output found."""
        pending, self.pending = self.pending, []
        if not pending:
            return
        torch = self.torch
        self.recorder.internal += 1
        try:
            by_device: dict[Any, list[int]] = {}
            for index, item in enumerate(pending):
                by_device.setdefault(item.finite.device, []).append(index)
            finite = [True] * len(pending)
            for indices in by_device.values():
                values = torch.stack([pending[i].finite for i in indices]).tolist()
                for index, value in zip(indices, values, strict=True):
                    finite[index] = bool(value)
            first = next((i for i, ok in enumerate(finite) if not ok), None)
            if first is not None:
                item = pending[first]
                self.finding = self._finding(
                    item,
                    None if item.input_max is None else float(item.input_max.item()),
                    None if item.input_finite is None else bool(item.input_finite.item()),
                    bool(item.overflowed.item()),
                )
        finally:
            self.recorder.internal -= 1

    def _finding(
        self, item: _Pending, input_max: float | None, input_finite: bool | None, overflowed: bool
    ) -> Finding:
        module = item.module()
        root = self.root() if self.root is not None else None
        name = _name(root, module)
        dtype = str(item.dtype).removeprefix("torch.")
        limit = float(self.torch.finfo(item.dtype).max)
        kind = type(module).__name__ if module is not None else "a module"
        evidence = []
        if input_finite is False:
            summary = (
                f"{name} ({kind}) got a non-finite input in forward pass {self.step}: the values were "
                f"already inf or NaN before it ({dtype})"
            )
            fix = "find where the inputs became non-finite: the data, or the code before the model"
        elif not overflowed:
            reached = f"{input_max:.4g}" if input_max is not None else "unknown"
            summary = (
                f"{name} ({kind}) returned NaN, and no inf, in {dtype} in forward pass {self.step}, the "
                f"first module to do so, from finite inputs of at most {reached} ({dtype} holds up to "
                f"{limit:.6g}): not an overflow, but an operation outside its domain"
            )
            fix = (
                "find the operation in its forward that gets values it is not defined for (log or sqrt of a "
                "negative, 0/0, inf - inf, acos beyond 1) and keep them in its domain (x.clamp_min(eps), "
                "abs(), a mask); a wider dtype or autocast would give the same NaN"
            )
        else:
            reached = f"{input_max:.4g}" if input_max is not None else "unknown"
            summary = (
                f"{name} ({kind}) returned inf or NaN in {dtype} in forward pass {self.step}, the first "
                f"module to do so: its inputs reached {reached}, {dtype} holds at most {limit:.6g}"
            )
            fix = (
                "keep the model in float32 and compute in half precision under "
                "torch.autocast(device_type=..., dtype=torch.bfloat16) (bfloat16 has float32's range; with "
                "float16, also "
                "torch.amp.GradScaler for training), or scale the values down before this module"
            )
        conversion = self._conversion(root)
        if conversion is not None:
            evidence.append(conversion)
        return Finding(id="nonfinite", summary=summary, evidence=evidence, fix=fix)

    def _conversion(self, root: Any) -> str | None:
        record = self.recorder.modules.get(root) if root is not None else None
        if record is None:
            return None
        for move in reversed(record.moves):
            if move.dtype in ("float16", "bfloat16"):
                model = type(root).__name__
                where = site_text(move.site)
                return f"{model} was converted to {move.dtype} by {model}.{move.method}() at {where}"
        return None


def _flat(value: Any) -> list[Any]:
    if isinstance(value, tuple | list):
        return [item for entry in value[:64] for item in _flat(entry)] if len(value) else []
    if isinstance(value, dict):
        return [item for entry in list(value.values())[:64] for item in _flat(entry)]
    return [value]


def _all(flags: list[Any], torch: Any) -> Any:
    return flags[0] if len(flags) == 1 else torch.stack(flags).all()


def _any(flags: list[Any], torch: Any) -> Any:
    return flags[0] if len(flags) == 1 else torch.stack(flags).any()


def _name(root: Any, module: Any) -> str:
    if module is None:
        return "a module"
    if root is None or root is module:
        return type(module).__name__
    for path, found in root.named_modules():
        if found is module:
            return f"{type(root).__name__}.{path}"
    return type(module).__name__
