"""A fake CUDA machine for a CPU build of torch, for the runtime tests.

FakeTensorMode(allow_non_fake_inputs=True) makes fake ``cuda:N`` tensors and raises the exact CUDA
device-mismatch message. Only what puts something on a CUDA device is fake: ``Tensor.to('cuda')`` gives the
FakeTensor ``aten._to_copy`` gives inside the mode (made directly, which is far cheaper), a module moves with
``_apply`` and ``aten._to_copy`` inside the mode, factories with ``device='cuda'`` run inside it; the rest of
the program runs on real CPU tensors, because a module built inside the mode cannot be moved. Fake CUDA
tensors must not meet autograd (a CPU build aborts the process): the scripts that use them run under
``torch.no_grad()``.
"""

from __future__ import annotations

import contextlib
import runpy
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

SCRIPTS = Path(__file__).parent / "runtime" / "scripts"
_CUDA_FACTORIES = ("randn", "rand", "zeros", "ones", "empty", "full", "tensor", "arange")


@contextlib.contextmanager
def fake_cuda(device_count: int = 4) -> Iterator[Any]:
    """A machine with ``device_count`` fake GPUs for the duration of the block."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

    mode = FakeTensorMode(allow_non_fake_inputs=True)
    copy = torch.ops.aten._to_copy
    undo: list[Callable[[], None]] = []

    def replace(owner: Any, name: str, make: Callable[[Any], Any]) -> None:
        had_own = isinstance(owner, type) and name in vars(owner)
        original = vars(owner)[name] if had_own else getattr(owner, name)
        setattr(owner, name, make(original))
        if had_own or not isinstance(owner, type):
            undo.append(lambda: setattr(owner, name, original))
        else:
            undo.append(lambda: delattr(owner, name))

    def cuda_target(method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if method == "cuda":
            index = args[0] if args and isinstance(args[0], int) else kwargs.get("device")
            return torch.device("cuda", index if isinstance(index, int) else 0)
        for value in (*args, kwargs.get("device")):
            if isinstance(value, str | torch.device) and torch.device(value).type == "cuda":
                return torch.device("cuda", torch.device(value).index or 0)
        return None

    def copy_tensor(tensor: Any, device: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        # What aten._to_copy gives inside the mode, made directly: far cheaper than entering the mode.
        dtype = kwargs.get("dtype") or next((a for a in args if isinstance(a, torch.dtype)), tensor.dtype)
        meta = torch.empty_strided(tensor.shape, tensor.stride(), dtype=dtype, device="meta")
        return FakeTensor(mode, meta, device)

    def copy_module(module: Any, device: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        with mode:
            return module._apply(lambda t: copy(t, device=device))

    def routed(method: str, to_cuda: Callable[..., Any]) -> Callable[[Any], Any]:
        """``method`` with a CUDA target done by ``to_cuda``; any other target as before."""

        def make(original: Any) -> Any:
            def move(self: Any, *args: Any, **kwargs: Any) -> Any:
                device = cuda_target(method, args, kwargs)
                if device is None:
                    return original(self, *args, **kwargs)
                return to_cuda(self, device, args, kwargs)

            return move

        return make

    def on_device(original: Any) -> Any:
        def factory(*args: Any, **kwargs: Any) -> Any:
            device = kwargs.get("device")
            if device is not None and torch.device(device).type == "cuda":
                with mode:
                    return original(*args, **kwargs)
            return original(*args, **kwargs)

        return factory

    def in_mode(original: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            with mode:
                return original(*args, **kwargs)

        return call

    try:
        for method in ("to", "cuda"):
            replace(torch.Tensor, method, routed(method, copy_tensor))
            replace(torch.nn.Module, method, routed(method, copy_module))
        for name in _CUDA_FACTORIES:
            replace(torch, name, on_device)
        replace(torch, "load", in_mode)
        replace(torch.cuda, "device_count", lambda original: lambda: device_count)
        yield mode
    finally:
        for step in reversed(undo):
            step()


def save_checkpoint_on(path: Path, device: str) -> None:
    """A checkpoint whose tensors say they were saved on ``device`` (scripts/make_checkpoint.py)."""
    saved = sys.argv
    sys.argv = ["make_checkpoint.py", str(path), device]
    try:
        runpy.run_path(str(SCRIPTS / "make_checkpoint.py"), run_name="__main__")
    finally:
        sys.argv = saved
