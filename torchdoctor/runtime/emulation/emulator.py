"""N GPUs emulated in this process: installed into torch once it is imported, before the recorder, and taken
out at the end of the run."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any

from torchdoctor.runtime.emulation.checkpoints import Checkpoints
from torchdoctor.runtime.emulation.cuda_api import CudaSurface
from torchdoctor.runtime.emulation.devices import Machine
from torchdoctor.runtime.emulation.distributed import Distributed
from torchdoctor.runtime.emulation.edges import Edges
from torchdoctor.runtime.emulation.legacy import Legacy
from torchdoctor.runtime.emulation.optimizers import Optimizers
from torchdoctor.runtime.emulation.placement import Placement
from torchdoctor.runtime.recorder import Patch


def announcement(count: int) -> list[str]:
    """What is said once, at the start of the program."""
    gpus = "1 GPU (cuda:0)" if count == 1 else f"{count} GPUs (cuda:0 to cuda:{count - 1})"
    return [
        f"emulating {gpus} on the CPU: placement is checked as CUDA checks it, "
        "values are computed on the CPU",
        "  not emulated: custom CUDA kernels and extensions, Triton, torch.compile's inductor (compiled code "
        "runs eagerly), NCCL-only collectives, real GPU memory limits (memory_allocated counts the tensors "
        "on each emulated GPU)",
        "  torch.autocast('cuda') runs as CPU autocast with the same dtype",
    ]


class Emulator:
    def __init__(self, torch: Any, count: int, say: Callable[[list[str]], None]) -> None:
        self.torch = torch
        self.machine = Machine(count)
        self._patches: list[Patch] = []
        self.surface = CudaSurface(torch, self.machine, self._patch)
        self.placement = Placement(torch, self.machine, self._patch)
        self.checkpoints = Checkpoints(torch, self.machine, self._patch)
        self.edges = Edges(torch, self._patch, say)
        self.distributed = Distributed(self._patch)
        self.legacy = Legacy(torch, self.machine, self._patch)
        self.optimizers = Optimizers(torch, self.machine, self._patch, lambda: self.placement.mode)

    def _patch(self, owner: Any, name: str, value: Any) -> None:
        self._patches.append(Patch(owner, name, value))

    def install(self) -> None:
        # torch's own list of the functions that take a device, made (and cached by torch) before any of
        # them is wrapped: the mode answers torch.set_default_device from it as torch does.
        importlib.import_module("torch.utils._device")._device_constructors()
        try:
            self.surface.install()
            self.checkpoints.install()
            self.edges.install()
            self.distributed.install()
            self.optimizers.install()
            self.legacy.install()
            self.placement.install()
        except BaseException:
            self.uninstall()
            raise

    def uninstall(self) -> None:
        default = getattr(sys.modules.get("torch.utils._device"), "CURRENT_DEVICE", None)
        if default is not None and getattr(default, "type", None) == "cuda":
            # torch.set_default_device("cuda") of the program: no such device once the emulation ends
            self.torch.set_default_device(None)
        self.placement.uninstall()
        self.edges.uninstall()
        self.checkpoints.uninstall()
        for patch in reversed(self._patches):
            patch.undo()
        self._patches.clear()
        self.machine.clear()
