"""Values kept for objects by identity, each for as long as its object lives.

The object gets no attribute (it would be pickled with it) and only one weak reference, held here: callers
never put a parameter or a buffer in a table (``torch.utils.swap_tensors`` refuses a tensor with a weak
reference, and ``Module.to()`` swaps parameters), and :meth:`IdTable.pop` drops the reference of a tensor
the moment it becomes a buffer.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

V = TypeVar("V")


class _Ref(weakref.ref):  # type: ignore[type-arg]
    __slots__ = ("key",)
    key: int


class IdTable(Generic[V]):
    def __init__(self) -> None:
        self._entries: dict[int, tuple[_Ref, V]] = {}
        self._forget: Callable[[_Ref], None] = self._dropped

    def put(self, obj: Any, value: V) -> bool:
        """Keep ``value`` for ``obj``; False (and nothing kept) for an object that takes no weak reference."""
        key = id(obj)
        entry = self._entries.get(key)
        if entry is not None and entry[0]() is obj:
            if entry[1] != value:
                self._entries[key] = (entry[0], value)
            return True
        try:
            ref = _Ref(obj, self._forget)
        except TypeError:
            return False
        ref.key = key
        self._entries[key] = (ref, value)
        return True

    @property
    def entries(self) -> dict[int, tuple[weakref.ref, V]]:  # type: ignore[type-arg]
        """The table itself, ``id(obj) -> (weak reference, value)``, for a caller that reads it on every
        operation of a program and cannot afford a call: an entry counts only where its reference gives
        obj."""
        return self._entries  # type: ignore[return-value]

    def get(self, obj: Any) -> V | None:
        entry = self._entries.get(id(obj))
        if entry is None or entry[0]() is not obj:
            return None
        return entry[1]

    def pop(self, obj: Any) -> V | None:
        """Forget ``obj`` and drop the weak reference to it; its value, if one was kept."""
        key = id(obj)
        entry = self._entries.get(key)
        if entry is None or entry[0]() is not obj:
            return None
        del self._entries[key]
        return entry[1]

    def items(self) -> Iterator[tuple[Any, V]]:
        """The live objects and their values."""
        for ref, value in list(self._entries.values()):
            obj = ref()
            if obj is not None:
                yield obj, value

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def _dropped(self, ref: _Ref) -> None:
        entry = self._entries.get(ref.key)
        if entry is not None and entry[0] is ref:
            del self._entries[ref.key]
