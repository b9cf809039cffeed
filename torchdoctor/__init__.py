"""torchdoctor: an environment doctor for PyTorch.

The plugin API is re-exported here: a third-party check needs only
``from torchdoctor import Check, Probe, Finding, Fix, Status``.
"""

from torchdoctor._version import __version__
from torchdoctor.model import Finding, Fix, Status, Verdict
from torchdoctor.plugin import Check, Probe

__all__ = ["Check", "Finding", "Fix", "Probe", "Status", "Verdict", "__version__"]
