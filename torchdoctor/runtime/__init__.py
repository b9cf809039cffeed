"""Inside the user's own program: ``torchdoctor run`` and ``torchdoctor.watch()`` (the runtime doctor),
``torchdoctor.audit()`` (:mod:`.audit`) and ``torchdoctor.memory_report()`` (:mod:`.memory_report`).

It records where (file, line and function in the user's own code) each tensor was made and last moved,
which module attribute holds it and on which device a checkpoint was saved, and, when the program fails with
a device mismatch, names every operand of the failing operation with that history and the fix. It also sums
up host<->device copies, counts implicit synchronisations (``--deep``) and finds the first module whose half
precision output is not finite (``--nan``).

Only the recorder, the explainer and the watchers of this package import torch, and only once the program
has imported it: the report model, its rendering and the reader ``explain`` and ``triage`` use are
torch-free.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from torchdoctor.runtime.session import Watch


def watch(
    *,
    deep: bool = False,
    nan: bool = False,
    report: str | None = None,
    redact: bool = True,
    gpus: int | None = None,
) -> Watch:
    """A context manager (and decorator) that records while its body runs and explains a device mismatch
    raised from it; ``gpus=N`` emulates N GPUs on the CPU for the body. See
    :class:`torchdoctor.runtime.session.Watch`."""
    from torchdoctor.runtime.session import Options, Watch

    return Watch(Options(deep=deep, nan=nan, report=report, redact=redact, gpus=gpus))


__all__ = ["watch"]


def __getattr__(name: str) -> Any:
    raise AttributeError(f"module 'torchdoctor.runtime' has no attribute {name!r}")
