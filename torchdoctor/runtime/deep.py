"""``--deep``: every torch function the program calls passes through a TorchFunctionMode that records where
its results were made (so ``torch.ones(n).tril()`` in a helper is traced to that line), keeps the operands
of the call that raised, and counts implicit synchronisations (``.item()``, ``.tolist()``, ``bool(t)``,
``nonzero``) per line. It costs a Python call per torch function (bench/runtime_overhead.py says how much).
"""

from __future__ import annotations

import sys
from typing import Any

from torchdoctor.runtime.recorder import Provenance, Recorder

SYNCS = {
    "item": ".item()",
    "tolist": ".tolist()",
    "__bool__": "bool()",
    "__int__": "int()",
    "__float__": "float()",
    "nonzero": "nonzero()",
}
"""Functions that make the host wait for the device: they return a value the host needs now."""
MAX_FAILURES_KEPT = 8


class DeepMode:
    def __init__(self, recorder: Recorder, mode: Any) -> None:
        self.recorder = recorder
        self.mode = mode

    @classmethod
    def start(cls, recorder: Recorder) -> DeepMode:
        mode = _mode_class(recorder)()
        mode.__enter__()
        return cls(recorder, mode)

    def stop(self) -> None:
        """Leave the mode if it is still the innermost one; a mode the program left open above it stays, and
        ours then passes every call straight to torch."""
        current = getattr(self.recorder.torch.overrides, "_get_current_function_mode", None)
        if current is not None and current() is self.mode:
            self.mode.__exit__(None, None, None)


def _mode_class(recorder: Recorder) -> type:
    torch = recorder.torch
    tensor, parameter = torch.Tensor, torch.nn.Parameter
    compiling, frames, tensors = recorder.compiling, recorder.frames, recorder.tensors

    class TorchdoctorDeepMode(torch.overrides.TorchFunctionMode):  # type: ignore[misc,name-defined]
        def __torch_function__(
            self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
        ) -> Any:
            kwargs = kwargs or {}
            if not recorder.on or recorder.internal or compiling():
                return func(*args, **kwargs)
            name = getattr(func, "__name__", "")
            if name == "__get__":
                return func(*args, **kwargs)
            try:
                result = func(*args, **kwargs)
            except Exception as exc:
                try:
                    _failed(recorder, exc, name, args, kwargs, tensor)
                except Exception as failure:
                    recorder.fail(failure)
                raise
            try:
                if name in SYNCS and args and isinstance(args[0], tensor):
                    site = frames.site(sys._getframe(1))
                    if site is not None:
                        recorder.count_sync(SYNCS[name], args[0].device.type, site)
                outputs = result if isinstance(result, tuple | list) else (result,)
                site = None
                for output in outputs[:8]:
                    if (
                        isinstance(output, tensor)
                        and not isinstance(output, parameter)
                        and tensors.get(output) is None
                    ):
                        site = site or frames.site(sys._getframe(1))
                        if site is None:
                            break
                        made = Provenance(made=site, made_by=name or "an operation")
                        made.origin = _origin(args, output, site)
                        tensors.put(output, made)
            except Exception as failure:
                recorder.fail(failure)
            return result

    def _origin(args: tuple[Any, ...], output: Any, site: Any) -> Any:
        """The factory call the first of ``args`` on ``output``'s device was computed from, when on another
        line: where a ``device=`` was missing."""
        for value in args[:4]:
            if isinstance(value, tensor) and value.device == output.device:
                known = tensors.get(value)
                found = known.factory_origin() if known is not None else None
                if found is not None and found[0] != site:
                    return found
        return None

    return TorchdoctorDeepMode


def _failed(
    recorder: Recorder,
    exc: BaseException,
    name: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    tensor: type,
) -> None:
    found = []
    for value in [*args, *kwargs.values()]:
        if isinstance(value, tensor):
            found.append(value)
        elif isinstance(value, list | tuple):
            found += [item for item in value[:16] if isinstance(item, tensor)]
    if found:
        recorder.op_failures = [
            *recorder.op_failures[-(MAX_FAILURES_KEPT - 1) :],
            (exc, name, [name, *found]),
        ]
