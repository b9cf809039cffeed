"""The emulated machine: how many GPUs it has, which one is current, and the device of each tensor.

A tensor's emulated device is kept in a table keyed by its identity with one weak reference (gone with the
tensor): ``cuda:k`` (k), or the CPU (``CPU``) for the tensors the program made there (a factory,
``.cpu()``, a DataLoader batch, ``torch.load``) and those computed from them. A tensor not in the table was
made by torch's C++ code without operands (the buckets DistributedDataParallel's reducer allocates): it is
where torch says, and takes the device of the tensors it meets, as it would have been made on theirs.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from typing import Any

CUDA = "cuda"
CPU = -1
"""The tag of a tensor known to be on the CPU."""


class _Ref(weakref.ref):  # type: ignore[type-arg]
    __slots__ = ("key",)
    key: int


class Machine:
    """N emulated GPUs, ``cuda:0`` to ``cuda:N-1``, and the current one (``torch.cuda.set_device``)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.current = 0
        self.tags: dict[int, tuple[_Ref, int]] = {}
        """id(tensor) -> (a weak reference to it, its GPU); read directly by the dispatch mode."""
        self._pinned: dict[int, _Ref] = {}

    # --- the table --------------------------------------------------------------------------------------

    def tag_of(self, tensor: Any) -> int | None:
        """``tensor``'s tag: its GPU, CPU, or None (not known)."""
        entry = self.tags.get(id(tensor))
        if entry is None or entry[0]() is not tensor:
            return None
        return entry[1]

    def index_of(self, tensor: Any) -> int | None:
        """The emulated GPU ``tensor`` is on, None when it is where torch says."""
        tag = self.tag_of(tensor)
        return None if tag is None or tag < 0 else tag

    def made_here(self, tensor: Any) -> None:
        """``tensor`` was made on the CPU by the program, unless it is already placed."""
        if self.tag_of(tensor) is None:
            self.place(tensor, CPU)

    def place(self, tensor: Any, index: int | None) -> None:
        """Tag ``tensor`` with ``index`` (a GPU, or CPU); None forgets it."""
        key = id(tensor)
        if index is None:
            entry = self.tags.get(key)
            if entry is not None and entry[0]() is tensor:
                del self.tags[key]
            return
        entry = self.tags.get(key)
        if entry is not None and entry[0]() is tensor:
            if entry[1] != index:
                self.tags[key] = (entry[0], index)
            return
        try:
            ref = _Ref(tensor, self._dropped)
        except TypeError:
            return
        ref.key = key
        self.tags[key] = (ref, index)

    def pin(self, tensor: Any) -> None:
        """``tensor`` is in pinned memory (``pin_memory()``), as far as the program can tell."""
        ref = _Ref(tensor, self._unpinned)
        ref.key = id(tensor)
        self._pinned[ref.key] = ref

    def is_pinned(self, tensor: Any) -> bool:
        ref = self._pinned.get(id(tensor))
        return ref is not None and ref() is tensor

    def _unpinned(self, ref: _Ref) -> None:
        if self._pinned.get(ref.key) is ref:
            del self._pinned[ref.key]

    def tensors_on(self, index: int) -> Iterator[Any]:
        for ref, where in list(self.tags.values()):
            tensor = ref()
            if tensor is not None and where == index:
                yield tensor

    def clear(self) -> None:
        self.tags.clear()
        self._pinned.clear()

    def _dropped(self, ref: _Ref) -> None:
        entry = self.tags.get(ref.key)
        if entry is not None and entry[0] is ref:
            del self.tags[ref.key]

    # --- devices ----------------------------------------------------------------------------------------

    def resolve(self, device: Any) -> int | str | None:
        """What a device argument names: the GPU index (``cuda`` is the current one), None for the CPU, or
        the device's own type for any other (``meta``), left to torch. An index beyond the machine raises as
        CUDA does."""
        parsed = self.parse(device)
        return self.check(parsed) if isinstance(parsed, int) else parsed

    def parse(self, device: Any) -> int | str | None:
        """:meth:`resolve` without the check of the index."""
        if isinstance(device, int) and not isinstance(device, bool):
            return device
        import torch

        parsed = device if isinstance(device, torch.device) else torch.device(device)
        if parsed.type == CUDA:
            return self.current if parsed.index is None else int(parsed.index)
        if parsed.type == "cpu":
            return None
        return str(parsed.type)

    def check(self, index: int) -> int:
        __tracebackhide__ = True
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
