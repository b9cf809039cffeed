"""torchdoctor: an environment doctor for PyTorch.

The plugin API is re-exported here: a third-party check needs only
``from torchdoctor import Check, Option, Probe, Finding, Fix, Status`` (and ``judge_at``). The in-process
helpers ``memory_report``, ``audit`` and ``watch`` are imported on first use, so that importing torchdoctor
stays light.
"""

from importlib import import_module
from typing import Any

from torchdoctor._version import __version__
from torchdoctor.model import Finding, Fix, Status, Verdict
from torchdoctor.plugin import Check, Option, Probe, judge_at

_LAZY = {
    "memory_report": "torchdoctor.runtime.memory_report",
    "audit": "torchdoctor.runtime.audit",
    "watch": "torchdoctor.runtime",
}

__all__ = [
    "Check",
    "Finding",
    "Fix",
    "Option",
    "Probe",
    "Status",
    "Verdict",
    "__version__",
    "audit",
    "judge_at",
    "memory_report",
    "watch",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'torchdoctor' has no attribute {name!r}")
