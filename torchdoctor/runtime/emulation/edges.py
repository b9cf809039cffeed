"""What an emulated GPU cannot run, said where it is met and never faked: ``torch.compile`` runs the code
eagerly (inductor and Triton write real CUDA kernels), a custom CUDA extension is refused when built or
loaded, and importing Triton is named once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torchdoctor.runtime.imports import AfterImport

COMPILE = (
    "torch.compile runs the code eagerly under --gpus: inductor and Triton write real CUDA kernels, which an "
    "emulated GPU cannot run"
)
EXTENSION = (
    "torchdoctor run --gpus: a custom CUDA extension cannot run on an emulated GPU (it needs a real GPU and "
    "the CUDA toolkit); run this part on a GPU, or guard it with torch.version.cuda"
)
TRITON = "triton was imported: its kernels need a real GPU and do not run under --gpus"


class Edges:
    def __init__(self, torch: Any, patch: Callable[[Any, str, Any], None], say: Callable[[list[str]], None]):
        self.torch, self.patch, self.say = torch, patch, say
        self.said: set[str] = set()
        self._waiting: list[AfterImport] = []

    def install(self) -> None:
        self.patch(self.torch, "compile", self._eager(self.torch.compile))
        self._when_imported("torch.utils.cpp_extension", self._refuse_extensions)
        self._when_imported("triton", lambda module: self.once(TRITON))

    def uninstall(self) -> None:
        for waiting in self._waiting:
            waiting.remove()
        self._waiting.clear()

    def once(self, line: str) -> None:
        if line not in self.said:
            self.said.add(line)
            self.say([line])

    def _when_imported(self, name: str, then: Callable[[Any], None]) -> None:
        import sys

        module = sys.modules.get(name)
        if module is not None:
            then(module)
            return
        waiting = AfterImport(name, then)
        waiting.install()
        self._waiting.append(waiting)

    def _eager(self, original: Callable[..., Any]) -> Callable[..., Any]:
        edges = self

        def compile(model: Any = None, **kwargs: Any) -> Any:
            edges.once(COMPILE)
            if model is None:
                return lambda function: function
            return model

        compile.__doc__ = original.__doc__
        return compile

    def _refuse_extensions(self, module: Any) -> None:
        def refuse(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError(EXTENSION)

        for name in ("load", "load_inline", "CUDAExtension"):
            if hasattr(module, name):
                self.patch(module, name, refuse)
