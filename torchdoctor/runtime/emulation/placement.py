"""Where each tensor is: the device properties and moves of ``torch.Tensor`` answered from the table, torch's
factories placing what they make (on the CPU, or on a GPU named by ``device=``), DataLoader batches on the
CPU, and two modes that see the program's operations.

A TorchFunctionMode sees each torch function the program calls (``F.linear``, ``x + y``, ``p.grad``): where
its tensors are all on one device it runs the call and places the results there. Only a call whose tensors
are on two devices (which CUDA may refuse, or may allow: a CPU index, a copy between devices) is run again
under a TorchDispatchMode that sees each aten operation it is made of, and refuses operands on two devices
exactly where and as CUDA refuses them. The dispatch mode costs a Python call per aten operation, about
three times what plain python spends on a small training loop; the function mode, a Python call per torch
function, runs the mistakes' operations only.

A 0-dim CPU tensor may meet tensors of a GPU (CUDA reads it as a scalar); index tensors may stay on the CPU.
Gradients autograd makes in C++ take their tensor's device when the program reads them (``p.grad``).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any

from torchdoctor.runtime.emulation import messages
from torchdoctor.runtime.emulation.devices import CPU, CUDA, Machine
from torchdoctor.runtime.recorder import FACTORIES

DATA_FACTORIES = ("from_numpy", "frombuffer", "sparse_coo_tensor", "sparse_csr_tensor", "normal", "polar")
"""Besides the recorder's factories: more of torch's functions that make a tensor from no tensor."""
_INDEXING = ("index", "index_put", "index_put_", "_index_put_impl_", "_unsafe_index", "_unsafe_index_put")
_CROSSING = ("copy_", "_copy_from", "_copy_from_and_resize", "_to_copy", "set_", "_local_scalar_dense")
"""Operations meant to take a tensor from one device to another, or to the host: never refused."""
_SEQUENCES = (list, tuple)
_SAME_INDEX = (
    "Tensors of the same index must be on the same device and the same dtype except `step` tensors that can "
    "be CPU and float32/64, and optimizer states that can be bfloat16 for mixed-precision training"
)
"""torch 2.13's words, where its own check cannot be asked for them."""
_KEEPING = ("copy_", "_copy_from", "_copy_from_and_resize", "set_")
"""Operations whose result is their destination, which stays where it is."""


def _shown(tag: int | None) -> str:
    return "cpu" if tag is None or tag < 0 else f"cuda:{tag}"


class Placement:
    """Installs the placement rules into ``torch`` for ``machine``; ``uninstall`` leaves the mode."""

    def __init__(self, torch: Any, machine: Machine, patch: Callable[[Any, str, Any], None]) -> None:
        self.torch = torch
        self.machine = machine
        self.patch = patch
        self.mode: Any = None
        # The torch method one of ours is calling now: torch hands a TorchFunctionMode the method of that name
        # on torch.Tensor (ours, or a wrapper of ours), which must not run twice.
        self.calling: list[Any] = [None]

    def install(self) -> None:
        self._tensor_properties()
        self._tensor_methods()
        for name in (*FACTORIES, *DATA_FACTORIES):
            original = getattr(self.torch, name, None)
            if callable(original):
                self.patch(self.torch, name, self._factory(original))
        self._new_tensor()
        self._subclasses()
        self._groups()
        self._batches()
        self._swap()
        precise = dispatch_mode(self.torch, self.machine)
        self.mode = function_mode(self.torch, self.machine, precise, self.calling)()
        self.mode.__enter__()

    def uninstall(self) -> None:
        if self.mode is None:
            return
        if self.torch.overrides._get_current_function_mode() is self.mode:
            self.mode.__exit__(None, None, None)
        self.mode = None

    # --- properties ---------------------------------------------------------------------------------------

    def _tensor_properties(self) -> None:
        torch, machine = self.torch, self.machine
        base = torch._C.TensorBase
        real_device, real_is_cpu = base.device.__get__, base.is_cpu.__get__

        def device(self: Any) -> Any:
            index = machine.index_of(self)
            return real_device(self) if index is None else machine.device(index)

        def is_cuda(self: Any) -> bool:
            return machine.index_of(self) is not None

        def is_cpu(self: Any) -> bool:
            return machine.index_of(self) is None and bool(real_is_cpu(self))

        data_get, data_set = base.data.__get__, base.data.__set__

        def get_data(self: Any) -> Any:
            result = data_get(self)
            machine.place(result, machine.tag_of(self))
            return result

        def set_data(self: Any, value: Any) -> None:
            data_set(self, value)
            machine.place(self, machine.tag_of(value))

        self.patch(torch.Tensor, "device", property(device))
        self.patch(torch.Tensor, "is_cuda", property(is_cuda))
        self.patch(torch.Tensor, "is_cpu", property(is_cpu))
        self.patch(torch.Tensor, "data", property(get_data, set_data))

    # --- methods ------------------------------------------------------------------------------------------

    def _tensor_methods(self) -> None:
        torch, machine = self.torch, self.machine
        tensor = torch.Tensor
        to, parse = self._direct(tensor.to), torch._C._nn._parse_to
        devices = (str, torch.device)

        def move(
            self: Any, target: Any, dtype: Any, non_blocking: bool, copy: bool, memory_format: Any
        ) -> Any:
            options: dict[str, Any] = {"non_blocking": non_blocking}
            if dtype is not None:
                options["dtype"] = dtype
            if memory_format is not None:
                options["memory_format"] = memory_format
            if isinstance(target, str):  # a device of torch's own (meta)
                return to(self, device=target, copy=copy, **options)
            if target == machine.index_of(self):
                return to(self, copy=copy, **options)
            result = to(self, copy=True, **options)
            machine.place(result, CPU if target is None else target)
            return result

        def to_(self: Any, *args: Any, **kwargs: Any) -> Any:
            copy = bool(kwargs.pop("copy", False))
            if len(args) == 1 and isinstance(args[0], devices) and kwargs.keys() <= {"non_blocking"}:
                # to(device[, non_blocking=...]), nearly every call: nothing for torch's parser to read.
                non_blocking = bool(kwargs.get("non_blocking", False))
                return move(self, machine.resolve(args[0]), None, non_blocking, copy, None)
            if len(args) > 2 and isinstance(args[2], bool):  # to(device, dtype, non_blocking, copy)
                copy = copy or (len(args) > 3 and bool(args[3]))
                args = args[:3]
            other = args[0] if args and isinstance(args[0], tensor) else kwargs.get("other")
            if other is not None:
                non_blocking = bool(args[1]) if len(args) > 1 else bool(kwargs.get("non_blocking", False))
                return move(self, machine.index_of(other), other.dtype, non_blocking, copy, None)
            device = kwargs.get("device", args[0] if args and not isinstance(args[0], torch.dtype) else None)
            target = machine.resolve(device) if device is not None else machine.index_of(self)
            if "device" in kwargs:
                kwargs["device"] = "cpu"
            elif device is not None:
                args = ("cpu", *args[1:])
            _, dtype, non_blocking, memory_format = parse(*args, **kwargs)
            return move(self, target, dtype, non_blocking, copy, memory_format)

        def cuda(self: Any, device: Any = None, non_blocking: bool = False, **kwargs: Any) -> Any:
            index = machine.resolve("cuda" if device is None else device)
            if not isinstance(index, int):
                raise ValueError(f"Invalid device, must be cuda device, but got: {device}")
            return move(self, index, None, non_blocking, False, kwargs.get("memory_format"))

        def cpu(self: Any, memory_format: Any = None) -> Any:
            return move(self, None, None, False, False, memory_format)

        real_type = self._direct(tensor.type)

        def type_(self: Any, dtype: Any = None, non_blocking: bool = False, **kwargs: Any) -> Any:
            """``tensor.type()`` names a GPU tensor's type as on a GPU (``torch.cuda.FloatTensor``), and
            ``tensor.type(torch.cuda.FloatTensor)`` moves it to the current GPU."""
            if dtype is None:
                name = real_type(self)
                on_gpu = machine.index_of(self) is not None
                return name.replace("torch.", "torch.cuda.", 1) if on_gpu else name
            name = dtype if isinstance(dtype, str) else f"{dtype.__module__}.{dtype.__name__}"
            if not name.startswith("torch.cuda."):
                return real_type(self, getattr(dtype, "stands_for", dtype), non_blocking, **kwargs)
            converted = real_type(self, name.replace("torch.cuda.", "torch.", 1), non_blocking, **kwargs)
            return move(converted, machine.resolve("cuda"), None, non_blocking, False, None)

        real_numpy = self._direct(tensor.numpy)

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
            machine.place(result, CPU)
            machine.pin(result)
            return result

        def is_pinned(self: Any, device: Any = None) -> bool:
            return machine.is_pinned(self)

        for name, method in (
            ("to", to_),
            ("cuda", cuda),
            ("cpu", cpu),
            ("type", type_),
            ("numpy", numpy),
            ("get_device", get_device),
            ("pin_memory", pin_memory),
            ("is_pinned", is_pinned),
        ):
            method.__name__ = method.__qualname__ = name
            method.__doc__ = getattr(getattr(tensor, name), "__doc__", None)
            self.patch(tensor, name, method)

    def _direct(self, method: Callable[..., Any]) -> Callable[..., Any]:
        """``method`` (torch's own), called so that the mode runs it, not what torch.Tensor now names."""
        calling = self.calling

        def direct(*args: Any, **kwargs: Any) -> Any:
            calling[0] = method
            try:
                return method(*args, **kwargs)
            finally:
                calling[0] = None

        return direct

    def _factory(self, original: Callable[..., Any]) -> Callable[..., Any]:
        machine, tensor = self.machine, self.torch.Tensor

        def factory(*args: Any, **kwargs: Any) -> Any:
            device = kwargs.get("device")
            target = machine.resolve(device) if device is not None else None
            if isinstance(target, str):
                return original(*args, **kwargs)
            if target is None:
                result = original(*args, **kwargs)
                if isinstance(result, tensor):
                    machine.made_here(result)
                return result
            result = original(*args, **{**kwargs, "device": "cpu"})
            machine.place(result, target)
            return result

        factory.__name__ = factory.__qualname__ = getattr(original, "__name__", "factory")
        factory.__doc__ = getattr(original, "__doc__", None)
        return factory

    def _new_tensor(self) -> None:
        machine, tensor = self.machine, self.torch.Tensor
        original = self._direct(tensor.new_tensor)

        def new_tensor(self: Any, data: Any, *args: Any, **kwargs: Any) -> Any:
            device = kwargs.pop("device", None)
            target = machine.tag_of(self) if device is None else machine.resolve(device)
            if isinstance(target, str):
                return original(self, data, *args, device=device, **kwargs)
            result = original(self, data, *args, device="cpu", **kwargs)
            machine.place(result, CPU if target is None else target)
            return result

        self.patch(tensor, "new_tensor", new_tensor)

    def _subclasses(self) -> None:
        """``nn.Parameter(t)`` makes a new tensor of t's in C++: on t's device."""
        machine, parameter = self.machine, self.torch.nn.Parameter
        original = vars(parameter)["__new__"]
        original = getattr(original, "__func__", original)

        def __new__(cls: Any, data: Any = None, requires_grad: bool = True) -> Any:
            result = original(cls, data, requires_grad)
            if data is not None:
                machine.place(result, machine.tag_of(data))
            return result

        self.patch(parameter, "__new__", staticmethod(__new__))

    def _groups(self) -> None:
        """torch's grouping of tensors by device (foreach optimizers, clip_grad_norm_) groups them by their
        emulated device, keys each group by it (what torch then moves scalars to), and refuses tensors of one
        index on two devices with torch's own message, as it does on GPUs (a 0-dim CPU step count aside)."""
        torch, machine = self.torch, self.machine
        original = getattr(torch._C, "_group_tensors_by_device_and_dtype", None)
        if original is None:
            return

        def group(tensorlistlist: Any, with_indices: bool = False) -> Any:
            _same_devices_per_index(tensorlistlist)
            placed = {}
            for (device, dtype), (lists, indices) in original(tensorlistlist, with_indices).items():
                positions: dict[int | None, list[int]] = {}
                for position, first in enumerate(lists[0]):
                    gpu = machine.index_of(first) if first is not None else None
                    positions.setdefault(gpu, []).append(position)
                for gpu, kept in positions.items():
                    key = (machine.device(gpu) if gpu is not None else device, dtype)
                    if len(positions) == 1:
                        placed[key] = (lists, indices)
                        continue
                    placed[key] = (
                        [[tensors[p] for p in kept] for tensors in lists],
                        [indices[p] for p in kept] if indices else indices,
                    )
            return placed

        def _same_devices_per_index(tensorlistlist: Any) -> None:
            if len(tensorlistlist) < 2 or machine.stepping:
                return
            for position, first in enumerate(tensorlistlist[0]):
                where = machine.tag_of(first) if first is not None else None
                if where is None:
                    continue
                for tensors in tensorlistlist[1:]:
                    other = tensors[position] if position < len(tensors) else None
                    if other is None:
                        continue
                    placed = machine.tag_of(other)
                    if placed is None or placed == where or (placed == CPU and other.dim() == 0):
                        continue
                    # torch's own message, from its own check of two devices (the CPU and meta)
                    original([[torch.empty(1)], [torch.empty(1, device="meta")]], False)
                    raise RuntimeError(_SAME_INDEX)

        self.patch(torch._C, "_group_tensors_by_device_and_dtype", group)

    def _batches(self) -> None:
        """DataLoader batches are on the CPU, whether this process or its workers made them. A
        TensorDataset of CPU tensors is read without the mode, which would only cost (a Python call for each
        sample's indexing)."""
        loader = sys.modules.get("torch.utils.data.dataloader")
        iterator = getattr(loader, "_BaseDataLoaderIter", None)
        if iterator is not None and "__next__" in vars(iterator):
            self.patch(iterator, "__next__", self._batch_next(vars(iterator)["__next__"]))
        fetcher = getattr(sys.modules.get("torch.utils.data._utils.fetch"), "_MapDatasetFetcher", None)
        tensor_dataset = getattr(sys.modules.get("torch.utils.data.dataset"), "TensorDataset", None)
        if fetcher is None or tensor_dataset is None or "fetch" not in vars(fetcher):
            return
        original, placement = vars(fetcher)["fetch"], self
        overrides = self.torch.overrides

        def fetch(self: Any, index: Any) -> Any:
            dataset, index_of = self.dataset, placement.machine.index_of
            if (
                type(dataset) is tensor_dataset
                and placement.mode is not None
                and overrides._get_current_function_mode() is placement.mode
                and all(index_of(t) is None for t in dataset.tensors)
            ):
                with overrides._pop_mode_temporarily():
                    return original(self, index)
            return original(self, index)

        self.patch(fetcher, "fetch", fetch)

    def _batch_next(self, original: Callable[..., Any]) -> Callable[..., Any]:
        torch, machine = self.torch, self.machine

        def __next__(self: Any) -> Any:
            batch = original(self)
            items = batch.values() if isinstance(batch, dict) else batch
            for item in items if isinstance(batch, list | tuple | dict) else (batch,):
                if isinstance(item, torch.Tensor):
                    machine.made_here(item)
            return batch

        return __next__

    def _swap(self) -> None:
        """``torch.utils.swap_tensors`` refuses a tensor with a weak reference: the tags are dropped, the
        tensors swapped, and each tagged with the other's tag."""
        utils, machine = sys.modules.get("torch.utils"), self.machine
        original = getattr(utils, "swap_tensors", None)
        if original is None:
            return

        def swap_tensors(t1: Any, t2: Any) -> Any:
            first, second = machine.tag_of(t1), machine.tag_of(t2)
            machine.place(t1, None)
            machine.place(t2, None)
            result = original(t1, t2)
            machine.place(t1, second)
            machine.place(t2, first)
            return result

        self.patch(utils, "swap_tensors", swap_tensors)


def _meeting(
    tensor_type: Any, machine: Machine
) -> Callable[[tuple[Any, ...]], tuple[int | None, bool, bool | None, bool]]:
    """What the tensors among a call's values (and in its lists) are on: the GPU (the first met), whether two
    devices meet, whether a CPU tensor is among them (None: only 0-dim ones, which CUDA reads as scalars),
    and whether one is not known."""
    tags, sequences = machine.tags.entries, _SEQUENCES

    def meeting(values: tuple[Any, ...]) -> tuple[int | None, bool, bool | None, bool]:
        found: int | None = None
        odd = unknown = False
        on_cpu: bool | None = False
        for value in values:
            if isinstance(value, tensor_type):
                items: Any = (value,)
            elif isinstance(value, sequences):
                items = value
            else:
                continue
            for item in items:
                if not isinstance(item, tensor_type):
                    continue
                entry = tags.get(id(item))
                tag = entry[1] if entry is not None and entry[0]() is item else None
                if tag is None:
                    unknown = True
                elif tag < 0:
                    if item.dim() != 0:
                        odd = on_cpu = True
                    elif not on_cpu:
                        on_cpu = None
                elif found is None:
                    found = tag
                elif tag != found:
                    odd = True
        return found, odd, on_cpu, unknown

    return meeting


def _placing(tensor_type: Any, machine: Machine) -> Callable[[Any, int], None]:
    """Places a call's result: a tensor, or each tensor of a list or tuple."""
    put, sequences = machine.tags.put, _SEQUENCES

    def place_all(result: Any, index: int) -> None:
        if isinstance(result, tensor_type):
            put(result, index)
        elif isinstance(result, sequences):
            for item in result:
                if isinstance(item, tensor_type):
                    put(item, index)

    return place_all


def _made_on_gpu(
    func: Any,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    target: int,
    cpu: Any,
    place_all: Callable[[Any, int], None],
) -> Any:
    """A call that makes tensors on ``cuda:target``: made on the CPU (never pinned: a GPU's memory is not
    the host's) and placed there."""
    __tracebackhide__ = True
    kwargs = {**kwargs, "device": cpu}
    if kwargs.get("pin_memory"):
        kwargs["pin_memory"] = False
    result = func(*args, **kwargs)
    place_all(result, target)
    return result


def function_mode(torch: Any, machine: Machine, precise: type, calling: list[Any]) -> type:
    """The mode of every torch function call; ``precise`` (:func:`dispatch_mode`) checks a call whose
    tensors are on two devices, operation by operation; ``calling`` holds the torch method a method of ours is
    calling (see :meth:`Placement._direct`). It runs on every call the program makes: each
    attribute and call it spends is paid a hundred times a step."""
    tensor_type = torch.Tensor
    cpu = torch.device("cpu")
    put = machine.tags.put
    sequences = _SEQUENCES
    meeting, _place_all = _meeting(tensor_type, machine), _placing(tensor_type, machine)
    parse_to = torch._C._nn._parse_to  # reads a device argument, makes nothing
    default_device = importlib.import_module("torch.utils._device")
    constructors = default_device._device_constructors

    class EmulatedDevices(torch.overrides.TorchFunctionMode):  # type: ignore[misc,name-defined]
        def __torch_function__(
            self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
        ) -> Any:
            __tracebackhide__ = True
            if calling[0] is not None and getattr(func, "__name__", None) == calling[0].__name__:
                # (a mode above this one, --deep's, may call other torch functions first)
                func, calling[0] = calling[0], None
            if kwargs:
                device = kwargs.get("device")
                if device is not None and func is not parse_to:
                    return _made_on(func, args, kwargs, machine.resolve(device))
                values: tuple[Any, ...] = (*args, *kwargs.values())
            else:
                kwargs = {}
                values = args
            default = default_device.CURRENT_DEVICE
            if (
                default is not None
                and default.type == CUDA
                and not kwargs.get("device")
                and func in constructors()
            ):
                # torch.set_default_device("cuda") or `with torch.device("cuda")`: torch's DeviceContext,
                # below this mode, would give a factory called without a device this one; given here.
                return _made_on(func, args, kwargs, machine.resolve(default))
            found, odd, on_cpu, unknown = meeting(values)
            if found is None:
                result = func(*args, **kwargs)
                # Computed from CPU tensors: on the CPU (a 0-dim one alone says so only among tensors known).
                if on_cpu or (on_cpu is None and not unknown):
                    if isinstance(result, tensor_type):
                        put(result, CPU)
                    elif isinstance(result, sequences):
                        _place_all(result, CPU)
                return result
            if odd:
                with precise():
                    return func(*args, **kwargs)
            result = func(*args, **kwargs)
            if isinstance(result, tensor_type):
                if not args or result is not args[0] or func.__name__ not in _KEEPING:
                    put(result, found)
            elif isinstance(result, sequences):
                _place_all(result, found)
            return result

    def _made_on(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], target: int | str | None) -> Any:
        """A call that names the device of what it makes: a GPU's is made on the CPU and placed there."""
        __tracebackhide__ = True
        if isinstance(target, str):
            return func(*args, **kwargs)
        if target is None:
            result = func(*args, **kwargs)
            _place_all(result, CPU)
            return result
        return _made_on_gpu(func, args, kwargs, target, cpu, _place_all)

    return EmulatedDevices


def dispatch_mode(torch: Any, machine: Machine) -> type:
    tensor_type = torch.Tensor
    cpu = torch.device("cpu")
    place = machine.place
    meeting, _place_all = _meeting(tensor_type, machine), _placing(tensor_type, machine)
    short_names: dict[Any, str] = {}

    class EmulatedPlacement(torch.utils._python_dispatch.TorchDispatchMode):  # type: ignore[misc,name-defined]
        @classmethod
        def _should_skip_dynamo(cls) -> bool:
            # torch.compile runs eagerly under --gpus: no wrapper around every call, no import of dynamo.
            return False

        def __torch_dispatch__(
            self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
        ) -> Any:
            __tracebackhide__ = True  # pytest shows the failing operation, as on a GPU
            kwargs = kwargs or {}
            device = kwargs.get("device") if kwargs else None
            if device is not None:
                # A factory torch's C++ code calls: on a GPU when it names one, else where torch says.
                target = machine.resolve(device)
                if isinstance(target, int):
                    return _made_on_gpu(func, args, kwargs, target, cpu, _place_all)
                return func(*args, **kwargs)
            found, odd, on_cpu, unknown = meeting((*args, *kwargs.values()) if kwargs else args)
            if found is None:
                result = func(*args, **kwargs)
                # Computed from CPU tensors: on the CPU (a 0-dim one alone says so only among tensors known).
                if on_cpu or (on_cpu is None and not unknown):
                    _place_all(result, CPU)
                return result
            short = short_names.get(func)
            if short is None:
                short = short_names[func] = func._schema.name.split("::")[-1]
            if short in _KEEPING:
                return func(*args, **kwargs)
            if odd and short not in _CROSSING:
                _refuse(func, args, kwargs, short)
            result = func(*args, **kwargs)
            if isinstance(result, tensor_type):
                place(result, found)
            else:
                _place_all(result, found)
            return result

    def _refuse(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], short: str) -> None:
        __tracebackhide__ = True
        named = _named(func, args, kwargs)
        if short in _INDEXING:
            return _refuse_indexing(func, named)
        devices = [(n, d) for n, d, scalar in named if not (scalar and d == "cpu")]
        if len({d for _, d in devices}) > 1:
            raise messages.mismatch(func, devices)

    def _refuse_indexing(func: Any, named: list[tuple[str, str, bool]]) -> None:
        __tracebackhide__ = True
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
        """Every tensor argument whose device is known, in the order of the schema: its name, its emulated
        device, whether it is 0-dim."""
        found = []
        for position, argument in enumerate(func._schema.arguments):
            value = args[position] if position < len(args) else kwargs.get(argument.name)
            for item in value if isinstance(value, list | tuple) else [value]:
                tag = machine.tag_of(item) if isinstance(item, tensor_type) else None
                if item is not None and tag is not None:
                    found.append((argument.name, _shown(tag), item.dim() == 0))
        return found

    return EmulatedPlacement
