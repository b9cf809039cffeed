"""The texts a real GPU raises, made for the emulated devices.

Which of torch's two device-mismatch texts an aten operation raises is read from torch's own
``native_functions.yaml`` (shipped in torchgen): an operation declared ``device_check: NoCheck`` checks its
operands in TensorIterator, which names two devices (the first GPU among the operands first); any other is
checked by the generated CUDA wrapper, which names the argument::

    Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
    Expected all tensors to be on the same device, but got mat1 is on cpu, different from other tensors on
    cuda:0 (when checking argument in method wrapper_CUDA_addmm)
"""

from __future__ import annotations

import functools
import os
from typing import Any

INVALID_ORDINAL = (
    "CUDA error: invalid device ordinal\n"
    "GPU device may be out of range, do you have enough GPUs?\n"
    "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
    "might be incorrect.\n"
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"
)
"""c10/cuda/CUDAException.cpp and CUDAMiscFunctions.cpp: cudaErrorInvalidDevice with its help line."""


def invalid_ordinal() -> Exception:
    """What CUDA raises for a GPU index the machine does not have (torch.AcceleratorError where torch has
    it, a RuntimeError before)."""
    import torch

    kind = getattr(torch, "AcceleratorError", RuntimeError)
    try:
        return kind(INVALID_ORDINAL)  # type: ignore[no-any-return]
    except TypeError:
        return RuntimeError(INVALID_ORDINAL)


def numpy_refused(device: str) -> TypeError:
    """torch/csrc/utils/tensor_numpy.cpp, for a tensor that is not on the CPU."""
    return TypeError(
        f"can't convert {device} device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host "
        "memory first."
    )


COMPOSITE = {"embedding": ("index_select", "", {"weight": "self", "indices": "index"})}
"""Operations with no CUDA kernel of their own, whose check is their inner operation's: the inner operation,
its overload, and the names its arguments take there."""


def mismatch(op: Any, named: list[tuple[str, str]]) -> RuntimeError:
    """The mismatch ``op`` (an aten overload) raises on a GPU for its tensor arguments ``named`` (argument
    name, device), in the order the check meets them; the first two devices that differ are named."""
    schema = op._schema
    name, overload = str(schema.name).split("::")[-1], str(schema.overload_name)
    if name in COMPOSITE:
        name, overload, renamed = COMPOSITE[name]
        named = sorted(((renamed.get(n, n), d) for n, d in named), key=lambda item: item[0] != "self")
    first = named[0][1]
    other_name, other = next((n, d) for n, d in named if d != first)
    checks, structured = _declared(f"{name}.{overload}" if overload else name)
    if not checks:
        # TensorIterator takes the first device that is not the CPU as the common one.
        first = next((d for _, d in named if d != "cpu"), first)
        other = next(d for _, d in named if d != first)
        return RuntimeError(
            "Expected all tensors to be on the same device, but found at least two devices, "
            f"{first} and {other}!"
        )
    method = (
        f"wrapper_CUDA_{name}{'_' + overload if overload else ''}"
        if structured
        else (f"wrapper_CUDA_{overload}_{name}")
    )
    return RuntimeError(
        f"Expected all tensors to be on the same device, but got {other_name} is on {other}, different "
        f"from other tensors on {first} (when checking argument in method {method})"
    )


def _declared(key: str) -> tuple[bool, bool]:
    """(whether the generated wrapper checks devices, whether the kernel is structured) for an operator
    of ``native_functions.yaml``; an operator not found there is taken as checked, unstructured."""
    return _table().get(key, (True, False))


@functools.cache
def _table() -> dict[str, tuple[bool, bool]]:
    path = _yaml_path()
    table: dict[str, tuple[bool, bool]] = {}
    if path is None:
        return table
    key: str | None = None
    checks, structured = True, False
    try:
        with open(path, encoding="utf-8") as lines:
            for line in lines:
                if line.startswith("- func:"):
                    if key is not None:
                        table[key] = (checks, structured)
                    key = line[len("- func:") :].strip().split("(", 1)[0]
                    checks, structured = True, False
                elif "device_check: NoCheck" in line:
                    checks = False
                elif line.strip().startswith(("structured_delegate:", "structured: True")):
                    structured = True
        if key is not None:
            table[key] = (checks, structured)
    except OSError:
        return {}
    return table


def _yaml_path() -> str | None:
    import importlib.util

    spec = importlib.util.find_spec("torchgen")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        path = os.path.join(folder, "packaged", "ATen", "native", "native_functions.yaml")
        if os.path.isfile(path):
            return path
    return None
