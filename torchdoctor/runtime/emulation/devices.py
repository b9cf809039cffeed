"""The emulated machine: how many GPUs it has, which one is current, and the device of each tensor.

A tensor's emulated device is kept in a table keyed by its identity with one weak reference (gone with the
tensor); a tensor not in the table is where torch says it is (the CPU, or ``meta``).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from typing import Any

CUDA = "cuda"


class _Ref(weakref.ref):  # type: ignore[type-arg]
    __slots__ = ("key",)
    key: int


class Machine:
    """N emulated GPUs, ``cuda:0`` to ``cuda:N-1``, and the current one (``torch.cuda.set_device``)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.current = 0
        self._tags: dict[int, tuple[_Ref, int]] = {}
        self.pinned: weakref.WeakSet[Any] = weakref.WeakSet()

    # --- the table --------------------------------------------------------------------------------------

    def index_of(self, tensor: Any) -> int | None:
        """The emulated GPU ``tensor`` is on, None when it is where torch says."""
        entry = self._tags.get(id(tensor))
        if entry is None or entry[0]() is not tensor:
            return None
        return entry[1]

    def place(self, tensor: Any, index: int | None) -> None:
        """Put ``tensor`` on ``cuda:index``, or back where torch says (None)."""
        key = id(tensor)
        if index is None:
            entry = self._tags.get(key)
            if entry is not None and entry[0]() is tensor:
                del self._tags[key]
            return
        entry = self._tags.get(key)
        if entry is not None and entry[0]() is tensor:
            if entry[1] != index:
                self._tags[key] = (entry[0], index)
            return
        try:
            ref = _Ref(tensor, self._dropped)
        except TypeError:
            return
        ref.key = key
        self._tags[key] = (ref, index)

    def tensors_on(self, index: int) -> Iterator[Any]:
        for ref, where in list(self._tags.values()):
            tensor = ref()
            if tensor is not None and where == index:
                yield tensor

    def clear(self) -> None:
        self._tags.clear()

    def _dropped(self, ref: _Ref) -> None:
        entry = self._tags.get(ref.key)
        if entry is not None and entry[0] is ref:
            del self._tags[ref.key]

    # --- devices ----------------------------------------------------------------------------------------

    def resolve(self, device: Any) -> int | str | None:
        """What a device argument names: the GPU index (``cuda`` is the current one), None for the CPU, or
        the device's own type for any other (``meta``), left to torch. An index beyond the machine raises as
        CUDA does."""
        if isinstance(device, int) and not isinstance(device, bool):
            return self.check(device)
        import torch

        parsed = device if isinstance(device, torch.device) else torch.device(device)
        if parsed.type == CUDA:
            return self.check(self.current if parsed.index is None else parsed.index)
        if parsed.type == "cpu":
            return None
        return str(parsed.type)

    def check(self, index: int) -> int:
        from torchdoctor.runtime.emulation.messages import invalid_ordinal

        if not 0 <= index < self.count:
            raise invalid_ordinal()
        return index

    def bytes_on(self, index: int) -> int:
        """The bytes of the storages the tensors on ``cuda:index`` hold, each storage counted once."""
        seen: dict[int, int] = {}
        for tensor in self.tensors_on(index):
            try:
                storage = tensor.untyped_storage()
                seen[int(storage.data_ptr()) or id(storage)] = int(storage.nbytes())
            except Exception:
                continue
        return sum(seen.values())
