"""The environment variables that shape a PyTorch run, read as facts.

Values of variables whose names look secret are never recorded, nor credentials inside values (a URL's
``user:password@``, a token); the rules are the ones every report's redaction uses
(``torchdoctor.output.redact``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from torchdoctor.plugin import Probe

RELEVANT_PREFIXES = (
    "CUDA_",
    "NCCL_",
    "TORCH_",
    "PYTORCH_",
    "OMP_",
    "MASTER_",
    "GLOO_",
    "HIP_",
    "ROCR_",
    "NVIDIA_",
    "TORCHELASTIC_",
)
RELEVANT_NAMES = (
    "RANK",
    "LOCAL_RANK",
    "WORLD_SIZE",
    "LOCAL_WORLD_SIZE",
    "GROUP_RANK",
    "ROLE_RANK",
    "LD_LIBRARY_PATH",
    "LD_PRELOAD",
    "PYTHONPATH",
    "MKL_NUM_THREADS",
    "KMP_AFFINITY",
    "SLURM_PROCID",
    "SLURM_LOCALID",
    "SLURM_NTASKS",
    "SLURM_JOB_ID",
)
__all__ = [
    "RELEVANT_NAMES",
    "RELEVANT_PREFIXES",
    "is_relevant",
    "probe",
    "relevant",
]


def is_relevant(name: str) -> bool:
    return name in RELEVANT_NAMES or name.startswith(RELEVANT_PREFIXES)


def relevant(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The relevant variables, sorted by name, with secret-looking values replaced."""
    # Imported here: a worker that only describes the checks that read variables compiles none of its rules.
    from torchdoctor.output.redact import REDACTED, is_secret_name, strip_value

    environ = os.environ if environ is None else environ
    return {
        name: REDACTED if is_secret_name(name) else strip_value(name, value)
        for name, value in sorted(environ.items())
        if is_relevant(name)
    }


def probe(options: Mapping[str, Any]) -> dict[str, Any]:
    """The ``env`` probe: relevant variables as the worker (and so the user's job) sees them."""
    return {"variables": relevant()}


PROBE = Probe.of("env", probe)
"""The ``env`` probe, as every check that reads the environment names it."""
