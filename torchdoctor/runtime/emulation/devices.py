"""The emulated machine: how many GPUs it has, which one is current, and the device of each tensor.

A tensor's emulated device is kept in a table keyed by its identity with one weak reference (gone with the
tensor): ``cuda:k`` (k), or the CPU (``CPU``) for the tensors the program made there (a factory,
``.cpu()``, a DataLoader batch, ``torch.load``) and those computed from them. A tensor not in the table was
made by torch's C++ code without operands (the buckets DistributedDataParallel's reducer allocates): it is
where torch says, and takes the device of the tensors it meets, as it would have been made on theirs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from torchdoctor.runtime.table import IdTable

CUDA = "cuda"
CPU = -1
"""The tag of a tensor known to be on the CPU."""


class Machine:
    """N emulated GPUs, ``cuda:0`` to ``cuda:N-1``, and the current one (``torch.cuda.set_device``)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.current = 0
        self.tags: IdTable[int] = IdTable()
        self._pinned: IdTable[bool] = IdTable()
        # torch.device(...) is itself a torch function (a TorchFunctionMode sees it): each is made once.
        self._devices: dict[int, Any] = {}
        self.stepping = False
        """A step of torch's own optimizer runs outside the mode (optimizers.py): the state it makes is placed
        when it ends, and its tensors' devices were checked before it began."""
        self._parsed: dict[Any, int | str | None] = {}

    # --- the table --------------------------------------------------------------------------------------

    def tag_of(self, tensor: Any) -> int | None:
        """``tensor``'s tag: its GPU, CPU, or None (not known)."""
        return self.tags.get(tensor)

    def index_of(self, tensor: Any) -> int | None:
        """The emulated GPU ``tensor`` is on, None when it is where torch says."""
        tag = self.tags.get(tensor)
        return None if tag is None or tag < 0 else tag

    def made_here(self, tensor: Any) -> None:
        """``tensor`` was made on the CPU by the program, unless it is already placed."""
        if self.tags.get(tensor) is None:
            self.tags.put(tensor, CPU)

    def place(self, tensor: Any, index: int | None) -> None:
        """Tag ``tensor`` with ``index`` (a GPU, or CPU); None forgets it."""
        if index is None:
            self.tags.pop(tensor)
        else:
            self.tags.put(tensor, index)

    def pin(self, tensor: Any) -> None:
        """``tensor`` is in pinned memory (``pin_memory()``), as far as the program can tell."""
        self._pinned.put(tensor, True)

    def is_pinned(self, tensor: Any) -> bool:
        return bool(self._pinned.get(tensor))

    def tensors_on(self, index: int) -> Iterator[Any]:
        return (tensor for tensor, where in self.tags.items() if where == index)

    def clear(self) -> None:
        self.tags.clear()
        self._pinned.clear()

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
        try:
            known = self._parsed[device]
        except KeyError:
            known = self._parsed[device] = self._parse(device)
        except TypeError:  # not hashable: torch.device refuses it
            known = self._parse(device)
        return self.current if known == CUDA else known

    @staticmethod
    def _parse(device: Any) -> int | str | None:
        """What a device names: a GPU index, CUDA (``cuda``: the current GPU), None (the CPU), or its type."""
        import torch

        parsed = device if isinstance(device, torch.device) else torch.device(device)
        if parsed.type == CUDA:
            return CUDA if parsed.index is None else int(parsed.index)
        if parsed.type == "cpu":
            return None
        return str(parsed.type)

    def device(self, index: int) -> Any:
        """``torch.device("cuda", index)``, made once."""
        found = self._devices.get(index)
        if found is None:
            import torch

            found = self._devices[index] = torch.device(CUDA, index)
        return found

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
