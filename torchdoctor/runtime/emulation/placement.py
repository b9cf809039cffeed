"""Where each tensor is: the device properties and moves of ``torch.Tensor`` answered from the table, the
factories that take data (``torch.tensor``...) made on the CPU and placed, and a TorchDispatchMode that
sees every aten operation (those autograd runs in backward and those optimizers run included): it refuses
operands on two devices as CUDA refuses them, and places each result on its operands' device.

A 0-dim CPU tensor may meet tensors of a GPU (CUDA reads it as a scalar); index tensors may stay on the CPU.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torchdoctor.runtime.emulation import messages
from torchdoctor.runtime.emulation.devices import Machine

DATA_FACTORIES = ("tensor", "as_tensor", "asarray", "sparse_coo_tensor", "sparse_csr_tensor")
"""torch's factories that make a tensor from data in C++ and move it, outside the dispatcher."""
_INDEXING = ("index", "index_put", "index_put_", "_index_put_impl_", "_unsafe_index", "_unsafe_index_put")
_CROSSING = ("copy_", "_copy_from", "_copy_from_and_resize", "_to_copy", "set_", "_local_scalar_dense")
"""Operations meant to take a tensor from one device to another, or to the host: never refused."""
_KEEPING = ("copy_", "_copy_from", "_copy_from_and_resize", "set_")
"""Operations whose result is their destination, which stays where it is."""


def _index(device: Any) -> str:
    return "cpu" if device is None else f"cuda:{device}"


class Placement:
    """Installs the placement rules into ``torch`` for ``machine``; ``undo`` takes them out."""

    def __init__(self, torch: Any, machine: Machine, patch: Callable[[Any, str, Any], None]) -> None:
        self.torch = torch
        self.machine = machine
        self.patch = patch
        self.mode: Any = None

    def install(self) -> None:
        self._tensor_properties()
        self._tensor_methods()
        for name in DATA_FACTORIES:
            original = getattr(self.torch, name, None)
            if callable(original):
                self.patch(self.torch, name, self._data_factory(original))
        self._new_tensor()
        self._groups()
        self.mode = dispatch_mode(self.torch, self.machine)()
        self.mode.__enter__()

    def uninstall(self) -> None:
        if self.mode is None:
            return
        current = self.torch.utils._python_dispatch._get_current_dispatch_mode()
        if current is self.mode:
            self.mode.__exit__(None, None, None)
        self.mode = None

    # --- properties ---------------------------------------------------------------------------------------

    def _tensor_properties(self) -> None:
        torch, machine = self.torch, self.machine
        base = torch._C.TensorBase
        real_device = base.device.__get__
        cuda = torch.device

        def device(self: Any) -> Any:
            index = machine.index_of(self)
            return real_device(self) if index is None else cuda("cuda", index)

        def is_cuda(self: Any) -> bool:
            return machine.index_of(self) is not None

        def is_cpu(self: Any) -> bool:
            return machine.index_of(self) is None and bool(base.is_cpu.__get__(self))

        data_get, data_set = base.data.__get__, base.data.__set__

        def get_data(self: Any) -> Any:
            result = data_get(self)
            machine.place(result, machine.index_of(self))
            return result

        def set_data(self: Any, value: Any) -> None:
            data_set(self, value)
            machine.place(self, machine.index_of(value))

        self.patch(torch.Tensor, "device", property(device))
        self.patch(torch.Tensor, "is_cuda", property(is_cuda))
        self.patch(torch.Tensor, "is_cpu", property(is_cpu))
        self.patch(torch.Tensor, "data", property(get_data, set_data))

    # --- methods ------------------------------------------------------------------------------------------

    def _tensor_methods(self) -> None:
        torch, machine = self.torch, self.machine
        tensor = torch.Tensor
        to, parse = tensor.to, torch._C._nn._parse_to

        def move(
            self: Any, target: Any, dtype: Any, non_blocking: bool, copy: bool, memory_format: Any
        ) -> Any:
            here = machine.index_of(self)
            options: dict[str, Any] = {"non_blocking": non_blocking}
            if dtype is not None:
                options["dtype"] = dtype
            if memory_format is not None:
                options["memory_format"] = memory_format
            if isinstance(target, str):  # a device of torch's own (meta)
                return to(self, device=target, copy=copy, **options)
            if target == here:
                return to(self, copy=copy, **options)
            result = to(self, copy=True, **options)
            machine.place(result, target)
            return result

        def to_(self: Any, *args: Any, **kwargs: Any) -> Any:
            copy = bool(kwargs.pop("copy", False))
            if len(args) > 2 and isinstance(args[2], bool):  # to(device, dtype, non_blocking, copy)
                copy = copy or (len(args) > 3 and bool(args[3]))
                args = args[:3]
            other = args[0] if args and isinstance(args[0], tensor) else kwargs.get("other")
            if other is not None:
                target: Any = machine.index_of(other)
                dtype, non_blocking = other.dtype, bool(args[1]) if len(args) > 1 else False
                return move(self, target, dtype, kwargs.get("non_blocking", non_blocking), copy, None)
            device = kwargs.get("device", args[0] if args and not _is_dtype(torch, args[0]) else None)
            target = machine.resolve(device) if device is not None else machine.index_of(self)
            if "device" in kwargs:
                kwargs["device"] = "cpu"
            elif device is not None:
                args = ("cpu", *args[1:])
            _, dtype, non_blocking, memory_format = parse(*args, **kwargs)
            return move(self, target, dtype, non_blocking, copy, memory_format)

        def cuda(self: Any, device: Any = None, non_blocking: bool = False, **kwargs: Any) -> Any:
            index = machine.resolve("cuda" if device is None else device)
            if isinstance(index, str) or index is None:
                raise ValueError(f"Invalid device, must be cuda device, but got: {device}")
            return move(self, index, None, non_blocking, False, kwargs.get("memory_format"))

        def cpu(self: Any, memory_format: Any = None) -> Any:
            return move(self, None, None, False, False, memory_format)

        real_numpy = tensor.numpy

        def numpy(self: Any, *args: Any, **kwargs: Any) -> Any:
            index = machine.index_of(self)
            if index is not None:
                raise messages.numpy_refused(f"cuda:{index}")
            return real_numpy(self, *args, **kwargs)

        def get_device(self: Any) -> int:
            index = machine.index_of(self)
            return -1 if index is None else index

        def pin_memory(self: Any, device: Any = None) -> Any:
            if machine.index_of(self) is not None:
                raise RuntimeError(f"cannot pin '{self.type()}' only dense CPU tensors can be pinned")
            result = self.clone()
            machine.pinned.add(result)
            return result

        def is_pinned(self: Any, device: Any = None) -> bool:
            return self in machine.pinned

        for name, method in (
            ("to", to_),
            ("cuda", cuda),
            ("cpu", cpu),
            ("numpy", numpy),
            ("get_device", get_device),
            ("pin_memory", pin_memory),
            ("is_pinned", is_pinned),
        ):
            method.__name__ = method.__qualname__ = name
            method.__doc__ = getattr(getattr(tensor, name), "__doc__", None)
            self.patch(tensor, name, method)

    def _data_factory(self, original: Callable[..., Any]) -> Callable[..., Any]:
        machine = self.machine

        def factory(*args: Any, **kwargs: Any) -> Any:
            device = kwargs.get("device")
            if device is None:
                return original(*args, **kwargs)
            target = machine.resolve(device)
            if isinstance(target, str):
                return original(*args, **kwargs)
            result = original(*args, **{**kwargs, "device": "cpu"})
            machine.place(result, target)
            return result

        factory.__name__ = factory.__qualname__ = getattr(original, "__name__", "factory")
        factory.__doc__ = getattr(original, "__doc__", None)
        return factory

    def _new_tensor(self) -> None:
        machine, tensor = self.machine, self.torch.Tensor
        original = tensor.new_tensor

        def new_tensor(self: Any, data: Any, *args: Any, **kwargs: Any) -> Any:
            device = kwargs.pop("device", None)
            target = machine.index_of(self) if device is None else machine.resolve(device)
            if isinstance(target, str):
                return original(self, data, *args, device=device, **kwargs)
            result = original(self, data, *args, device="cpu", **kwargs)
            machine.place(result, target)
            return result

        self.patch(tensor, "new_tensor", new_tensor)

    def _groups(self) -> None:
        """torch's grouping of tensors by device (foreach optimizers, clip_grad_norm_) keys each group by
        the emulated device of its tensors, which is what torch then moves scalars to."""
        torch, machine = self.torch, self.machine
        original = getattr(torch._C, "_group_tensors_by_device_and_dtype", None)
        if original is None:
            return

        def group(tensorlistlist: Any, with_indices: bool = False) -> Any:
            grouped = original(tensorlistlist, with_indices)
            placed = {}
            for (device, dtype), value in grouped.items():
                first = next((t for t in value[0][0] if t is not None), None) if value and value[0] else None
                index = machine.index_of(first) if first is not None else None
                placed[(torch.device("cuda", index) if index is not None else device, dtype)] = value
            return placed

        self.patch(torch._C, "_group_tensors_by_device_and_dtype", group)


def _is_dtype(torch: Any, value: Any) -> bool:
    return isinstance(value, torch.dtype)


def dispatch_mode(torch: Any, machine: Machine) -> type:
    tensor_type = torch.Tensor
    cpu = torch.device("cpu")
    index_of, place = machine.index_of, machine.place

    class EmulatedPlacement(torch.utils._python_dispatch.TorchDispatchMode):  # type: ignore[misc,name-defined]
        @classmethod
        def _should_skip_dynamo(cls) -> bool:
            # torch.compile runs eagerly under --gpus: no wrapper around every call, no import of dynamo.
            return False

        def __torch_dispatch__(
            self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
        ) -> Any:
            kwargs = kwargs or {}
            device = kwargs.get("device")
            if device is not None:
                target = machine.resolve(device)
                if not isinstance(target, str):
                    kwargs = {**kwargs, "device": cpu}
                    if kwargs.get("pin_memory"):
                        kwargs["pin_memory"] = False
                    result = func(*args, **kwargs)
                    _place_all(result, target)
                    return result
                return func(*args, **kwargs)
            found: int | None = None
            odd = False
            for value in (*args, *kwargs.values()):
                for item in value if isinstance(value, list | tuple) else (value,):
                    if not isinstance(item, tensor_type):
                        continue
                    index = index_of(item)
                    if index is None:
                        # A 0-dim CPU tensor is a scalar to CUDA; meta tensors are torch's own to check.
                        odd = odd or (item.dim() != 0 and not item.is_meta)
                    elif found is None:
                        found = index
                    elif index != found:
                        odd = True
            if found is None:
                return func(*args, **kwargs)
            short = func._schema.name.split("::")[-1]
            if short in _KEEPING:
                return func(*args, **kwargs)
            if odd and short not in _CROSSING:
                _refuse(func, args, kwargs, short)
            result = func(*args, **kwargs)
            _place_all(result, found)
            return result

    def _place_all(result: Any, index: int | None) -> None:
        if isinstance(result, tensor_type):
            place(result, index)
        elif isinstance(result, list | tuple):
            for item in result:
                if isinstance(item, tensor_type):
                    place(item, index)

    def _refuse(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], short: str) -> None:
        named = _named(func, args, kwargs)
        if short in _INDEXING:
            return _refuse_indexing(func, named)
        devices = [(n, d) for n, d, scalar in named if not (scalar and d == "cpu")]
        if len({d for _, d in devices}) > 1:
            raise messages.mismatch(func, devices)

    def _refuse_indexing(func: Any, named: list[tuple[str, str, bool]]) -> None:
        own = named[0][1]
        for name, device, scalar in named[1:]:
            if name == "indices":
                if device not in ("cpu", own):
                    raise RuntimeError(
                        f"indices should be either on cpu or on the same device as the indexed tensor ({own})"
                    )
            elif device != own and not (scalar and device == "cpu"):
                raise messages.mismatch(func, [(n, d) for n, d, _ in named if n != "indices"])

    def _named(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[tuple[str, str, bool]]:
        """Every tensor argument in the order of the schema: its name, its emulated device, whether it is
        0-dim."""
        found = []
        for position, argument in enumerate(func._schema.arguments):
            value = args[position] if position < len(args) else kwargs.get(argument.name)
            items = value if isinstance(value, list | tuple) else [value]
            for item in items:
                if isinstance(item, tensor_type) and not item.is_meta:
                    index = index_of(item)
                    found.append((argument.name, _index(index), item.dim() == 0))
        return found

    return EmulatedPlacement
