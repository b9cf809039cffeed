"""Checkpoints as on GPUs: ``torch.save`` writes each emulated tensor's location (``cuda:1``), and
``torch.load`` puts a tensor saved on a GPU back on that GPU, or fails as torch fails when this machine has no
such GPU (torch's own check, ``torch.serialization._validate_device``, answered by the emulated
``torch.cuda``). ``map_location`` works as it does on GPUs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torchdoctor.runtime.emulation.devices import Machine

PRIORITY = 9
"""Ahead of torch's own entries (``cpu`` is 10) in torch.serialization's registry: the CPU tensors it
tags as ``cuda:k`` are on the CPU for torch."""


class Checkpoints:
    def __init__(self, torch: Any, machine: Machine, patch: Callable[[Any, str, Any], None]) -> None:
        self.torch, self.machine, self.patch = torch, machine, patch
        self.saving: dict[int, int] = {}
        """Storage address -> emulated GPU of the tensor pickled last with that storage."""
        self.restored: dict[int, int] = {}
        """While torch.load runs: storage address -> the GPU it was restored to."""
        self._entry: Any = None

    def install(self) -> None:
        serialization = self.torch.serialization
        registry = getattr(serialization, "_package_registry", None)
        if not isinstance(registry, list):
            return
        self._entry = (PRIORITY, self._tag, self._restore)
        registry.append(self._entry)
        registry.sort(key=lambda entry: entry[0])
        tensor, utils = self.torch.Tensor, self.torch._utils
        self.patch(tensor, "__reduce_ex__", self._reduce(tensor.__reduce_ex__))
        self.patch(utils, "_rebuild_tensor", self._rebuild(utils._rebuild_tensor))
        self.patch(self.torch, "load", self._load(self.torch.load))

    def uninstall(self) -> None:
        registry = getattr(self.torch.serialization, "_package_registry", None)
        if isinstance(registry, list) and self._entry in registry:
            registry.remove(self._entry)

    def _tag(self, storage: Any) -> str | None:
        index = self.saving.get(_address(storage))
        return f"cuda:{index}" if index is not None else None

    def _restore(self, storage: Any, location: str) -> Any:
        if not location.startswith("cuda"):
            return None
        index = self.torch.serialization._validate_device(location, "cuda").index
        self.restored[_address(storage)] = self.machine.current if index is None else index
        return storage

    def _reduce(self, original: Callable[..., Any]) -> Callable[..., Any]:
        checkpoints = self

        def __reduce_ex__(self: Any, proto: Any) -> Any:
            address = _address(self.untyped_storage())
            index = checkpoints.machine.index_of(self)
            if index is None:
                checkpoints.saving.pop(address, None)
            else:
                checkpoints.saving[address] = index
            return original(self, proto)

        return __reduce_ex__

    def _rebuild(self, original: Callable[..., Any]) -> Callable[..., Any]:
        checkpoints = self

        def _rebuild_tensor(storage: Any, *args: Any) -> Any:
            result = original(storage, *args)
            untyped = getattr(storage, "_untyped_storage", storage)
            index = checkpoints.restored.get(_address(untyped)) if checkpoints.restored else None
            if index is not None:
                checkpoints.machine.place(result, index)
            else:
                checkpoints.machine.made_here(result)
            return result

        return _rebuild_tensor

    def _load(self, original: Callable[..., Any]) -> Callable[..., Any]:
        checkpoints = self

        def load(f: Any, *args: Any, **kwargs: Any) -> Any:
            checkpoints.restored = {}
            try:
                return original(f, *args, **kwargs)
            finally:
                checkpoints.restored = {}

        load.__doc__ = original.__doc__
        return load


def _address(storage: Any) -> int:
    return int(storage.data_ptr())
