"""torch's own optimizers, stepped outside the function mode.

An optimizer step of torch.optim reads each parameter's gradient several times, asks where each tensor is and
runs a handful of foreach operations: under the mode that is some forty Python calls a step, more than the
forward and backward passes of a small model make. Its tensors are the parameters, their gradients and the
optimizer's state, and CUDA refuses a step only where those are on different devices. So their devices are
checked here first, from the table; where they agree the step runs outside the mode, and the state it made is
placed on its parameter's GPU afterwards (a 0-dim step count stays on the CPU, as torch keeps it there); where
they do not, the step runs under the mode, which raises torch's own message at the operation that meets them.

A step given a closure (which runs the forward and backward passes), an optimizer of the program's own, and a
step while another mode is innermost run under the mode as every other call does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from torchdoctor.runtime.emulation.devices import CPU, Machine


class Optimizers:
    def __init__(
        self, torch: Any, machine: Machine, patch: Callable[[Any, str, Any], None], mode: Callable[[], Any]
    ) -> None:
        self.torch, self.machine, self.patch, self.mode = torch, machine, patch, mode

    def install(self) -> None:
        base = getattr(getattr(self.torch, "optim", None), "Optimizer", None)
        if base is None:
            return
        for kind in _torch_optimizers(self.torch, base):
            if "step" in vars(kind):
                self.patch(kind, "step", self._step(vars(kind)["step"]))
        if "zero_grad" in vars(base):
            self.patch(base, "zero_grad", self._zero_grad(vars(base)["zero_grad"]))

    def _step(self, original: Callable[..., Any]) -> Callable[..., Any]:
        optimizers, overrides = self, self.torch.overrides

        def step(self: Any, *args: Any, **kwargs: Any) -> Any:
            mode = optimizers.mode()
            closure = kwargs.get("closure", args[0] if args else None)
            if mode is None or closure is not None or overrides._get_current_function_mode() is not mode:
                return original(self, *args, **kwargs)
            machine = optimizers.machine
            with overrides._pop_mode_temporarily():
                if optimizers.agree(self):
                    machine.stepping = True
                    try:
                        return original(self, *args, **kwargs)
                    finally:
                        machine.stepping = False
                        optimizers.place_state(self)
            return original(self, *args, **kwargs)

        _same_face(step, original)
        return step

    def _zero_grad(self, original: Callable[..., Any]) -> Callable[..., Any]:
        """Gradients set to None, or zeroed in place: nothing moves, nothing is made."""
        optimizers, overrides = self, self.torch.overrides

        def zero_grad(self: Any, *args: Any, **kwargs: Any) -> Any:
            mode = optimizers.mode()
            if mode is None or overrides._get_current_function_mode() is not mode:
                return original(self, *args, **kwargs)
            with overrides._pop_mode_temporarily():
                return original(self, *args, **kwargs)

        _same_face(zero_grad, original)
        return zero_grad

    def agree(self, optimizer: Any) -> bool:
        """Whether every parameter, its gradient and its state are on one device (a 0-dim CPU step count
        aside); a gradient autograd made takes its parameter's device here, as the program would see it."""
        tag_of, tensor = self.machine.tag_of, self.torch.Tensor
        for parameter, state in _parameters(optimizer):
            where = tag_of(parameter)
            grad = parameter.grad
            if grad is not None:
                placed = tag_of(grad)
                if placed is None:
                    if where is not None:
                        self.machine.place(grad, where)
                elif placed != where:
                    return False
            for value in state.values():
                if not isinstance(value, tensor):
                    continue
                placed = tag_of(value)
                if placed is None or placed == where or (placed == CPU and value.dim() == 0):
                    continue
                return False
        return True

    def place_state(self, optimizer: Any) -> None:
        """The state a step made from its parameter (``zeros_like``, a clone of the gradient) is on the
        parameter's GPU; a 0-dim CPU tensor is the step count torch keeps on the CPU."""
        tag_of, place, tensor = self.machine.tag_of, self.machine.place, self.torch.Tensor
        for parameter, state in _parameters(optimizer):
            where = tag_of(parameter)
            if where is None or where < 0:
                continue
            for value in state.values():
                if isinstance(value, tensor):
                    placed = tag_of(value)
                    if placed is None or (placed == CPU and value.dim() != 0):
                        place(value, where)


def _parameters(optimizer: Any) -> Iterator[tuple[Any, dict[Any, Any]]]:
    """Each parameter of the optimizer and its state (empty before its first step)."""
    state = optimizer.state
    for group in optimizer.param_groups:
        for parameter in group["params"]:
            yield parameter, state.get(parameter) or {}


def _torch_optimizers(torch: Any, base: type) -> list[type]:
    """The optimizers torch.optim defines (Adam, AdamW, SGD, ...), not the program's own."""
    found = []
    for value in vars(torch.optim).values():
        if (
            isinstance(value, type)
            and issubclass(value, base)
            and value is not base
            and value.__module__.startswith("torch.optim.")
        ):
            found.append(value)
    return found


def _same_face(wrapper: Callable[..., Any], original: Callable[..., Any]) -> None:
    """The wrapper answers to the original's name and docs, and keeps torch's mark of a step it has already
    wrapped with its hooks (it would wrap it again)."""
    wrapper.__name__ = getattr(original, "__name__", "step")
    wrapper.__qualname__ = getattr(original, "__qualname__", wrapper.__name__)
    wrapper.__doc__ = getattr(original, "__doc__", None)
    wrapper.__wrapped__ = original  # type: ignore[attr-defined]
    if getattr(original, "hooked", False):
        wrapper.hooked = True  # type: ignore[attr-defined]
