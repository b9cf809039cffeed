"""The environment variables that shape a PyTorch run, read as facts.

Values of variables whose names look secret are never recorded.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

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
REDACTED = "<redacted>"
_SECRET_NAME = re.compile(
    r"TOKEN|SECRET|PASSWORD|PASSWD|PASS(?:PHRASE)?\b|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|(?:^|_)KEY(?:$|_)|APIKEY",
    re.IGNORECASE,
)


def is_secret_name(name: str) -> bool:
    return bool(_SECRET_NAME.search(name))


def is_relevant(name: str) -> bool:
    return name in RELEVANT_NAMES or name.startswith(RELEVANT_PREFIXES)


def relevant(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The relevant variables, sorted by name, with secret-looking values replaced."""
    environ = os.environ if environ is None else environ
    return {
        name: REDACTED if is_secret_name(name) else value
        for name, value in sorted(environ.items())
        if is_relevant(name)
    }


def probe(options: Mapping[str, Any]) -> dict[str, Any]:
    """The ``env`` probe: relevant variables as the worker (and so the user's job) sees them."""
    return {"variables": relevant()}
