"""torch's legacy constructors, ``torch.Tensor(...)`` and the typed ``torch.FloatTensor(...)`` and kin: they
make a CPU tensor in C++ without calling a torch function, so no mode sees it. Wrapped here, what they make is
on the CPU, as on a GPU machine; the typed ones stay what they were to ``isinstance``, ``tensor.type(...)``
and ``torch.set_default_tensor_type``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torchdoctor.runtime.emulation.devices import Machine


class Legacy:
    def __init__(self, torch: Any, machine: Machine, patch: Callable[[Any, str, Any], None]) -> None:
        self.torch, self.machine, self.patch = torch, machine, patch

    def install(self) -> None:
        torch, machine = self.torch, self.machine
        base_new = torch._C.TensorBase.__new__

        def __new__(*args: Any, **kwargs: Any) -> Any:
            # (*args, **kwargs) alone: torch._dynamo accepts a stand-in for Tensor.__new__ with this signature
            result = base_new(*args, **kwargs)
            machine.made_here(result)
            return result

        self.patch(torch.Tensor, "__new__", staticmethod(__new__))
        typed: set[Any] = getattr(torch, "_tensor_classes", set())
        for name in dir(torch):
            value = getattr(torch, name, None)
            if name.endswith("Tensor") and any(value is kind for kind in typed):
                self.patch(torch, name, _typed(value, machine))
        original = getattr(torch, "set_default_tensor_type", None)
        if callable(original):

            def set_default_tensor_type(t: Any) -> Any:
                return original(getattr(t, "stands_for", t))

            set_default_tensor_type.__doc__ = original.__doc__
            self.patch(torch, "set_default_tensor_type", set_default_tensor_type)


def answering_as(real: Any, base: type = type) -> type:
    """A metaclass (deriving from ``base``) whose classes answer ``isinstance`` and ``issubclass`` as
    ``real`` does: a stand-in for one of torch's classes stays that class to the program."""

    class _Kind(base):  # type: ignore[misc,valid-type]
        def __instancecheck__(cls, instance: Any) -> bool:
            return isinstance(instance, real)

        def __subclasscheck__(cls, subclass: Any) -> bool:
            return isinstance(subclass, type) and issubclass(subclass, real)

    return _Kind


def _typed(real: Any, machine: Machine) -> type:
    """A stand-in for one of torch's typed tensor classes (``torch.FloatTensor``) whose tensors are placed
    on the CPU; to everything else it is the class it stands for."""

    class _Kind(answering_as(real)):  # type: ignore[misc]
        def __call__(cls, *args: Any, **kwargs: Any) -> Any:
            result = real(*args, **kwargs)
            machine.made_here(result)
            return result

        def __getattr__(cls, name: str) -> Any:
            return getattr(real, name)

        def __repr__(cls) -> str:
            return repr(real)

        def __eq__(cls, other: object) -> bool:
            return other is cls or other is real

        def __hash__(cls) -> int:
            return hash(real)

    stand_in = _Kind(real.__name__, (), {"stands_for": real, "__module__": real.__module__})
    return stand_in
