"""``torch.distributed`` under ``--gpus``: a process group asked for NCCL (or for no backend, which on GPUs
means NCCL) runs on gloo underneath, on the CPU tensors the emulated GPUs hold. Collectives gloo lacks
fail with gloo's own error."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

NCCL = "nccl"


def on_gloo(backend: Any) -> Any:
    """The backend that runs here for the one asked for: gloo for NCCL, for ``cuda:nccl,cpu:gloo`` and for
    none; any other as it is."""
    if backend is None:
        return "gloo"
    text = str(backend).lower()
    return "gloo" if NCCL in text else backend


class Distributed:
    def __init__(self, patch: Callable[[Any, str, Any], None]) -> None:
        self.patch = patch

    def install(self) -> None:
        c10d = sys.modules.get("torch.distributed.distributed_c10d")
        package = sys.modules.get("torch.distributed")
        if c10d is None or package is None:
            return
        for name in ("init_process_group", "new_group"):
            original = getattr(c10d, name, None)
            if callable(original):
                wrapper = _backend_swapped(original)
                self.patch(c10d, name, wrapper)
                if getattr(package, name, None) is original:
                    self.patch(package, name, wrapper)
        for owner in (c10d, package):
            if hasattr(owner, "is_nccl_available"):
                self.patch(owner, "is_nccl_available", lambda: True)


def _backend_swapped(original: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        if original.__name__ == "init_process_group" and args:
            args = (on_gloo(args[0]), *args[1:])
        elif "backend" in kwargs or original.__name__ == "init_process_group":
            kwargs["backend"] = on_gloo(kwargs.get("backend"))
        return original(*args, **kwargs)

    call.__name__ = call.__qualname__ = original.__name__
    call.__doc__ = original.__doc__
    return call
