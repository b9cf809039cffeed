"""The ``installed_packages`` probe: versions of the torch stack installed where the worker runs.

Read from ``importlib.metadata`` (no ``pip`` subprocess, which may be missing or hang: pytorch PR #151607,
vLLM #13888). Names and versions only: a location or a direct URL can carry a home directory or a
credential and tells a support engineer little.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

from torchdoctor.machine.distributions import canonical_name, name_and_version
from torchdoctor.plugin import Probe

# Distributions that change what torch does or which kernels run, by normalized name (PEP 503).
TORCH_STACK = frozenset(
    {
        "accelerate",
        "apex",
        "bitsandbytes",
        "deepspeed",
        "flash-attn",
        "functorch",
        "intel-extension-for-pytorch",
        "jax",
        "jaxlib",
        "lightning",
        "mkl",
        "numpy",
        "nvidia-ml-py",
        "onnx",
        "onnxruntime",
        "onnxruntime-gpu",
        "peft",
        "pynvml",
        "pytorch-lightning",
        "safetensors",
        "tensorrt",
        "timm",
        "torchdoctor",
        "transformers",
        "triton",
        "vllm",
        "xformers",
    }
)
TORCH_STACK_PREFIXES = ("torch", "pytorch-triton", "nvidia-", "triton-", "cuda-")


def is_torch_stack(name: str) -> bool:
    normalized = canonical_name(name)
    return normalized in TORCH_STACK or normalized.startswith(TORCH_STACK_PREFIXES)


def installed(distributions: Any = None) -> dict[str, str]:
    """``{normalized name: version}`` of the installed torch-stack distributions, the first one on the
    path winning when a name is installed twice (as the import system would pick it)."""
    from importlib import metadata  # in the probe alone: the worker that only describes checks needs none

    found: dict[str, str] = {}
    for dist in metadata.distributions() if distributions is None else distributions:
        name, version = name_and_version(dist)
        if not name or not is_torch_stack(name):
            continue
        found.setdefault(canonical_name(name), str(version))
    return dict(sorted(found.items()))


def probe(options: Mapping[str, Any]) -> dict[str, Any]:
    """The ``installed_packages`` probe."""
    return {"packages": installed()}


def install_source(name: str) -> str | None:
    """Where a distribution was installed from when it was not an index (PEP 610 ``direct_url.json``):
    a folder or file path, a VCS URL at its commit, or an archive URL; None for an index or unknown."""
    from importlib import metadata

    try:
        text = metadata.distribution(name).read_text("direct_url.json")
        data = json.loads(text) if text else None
    except (metadata.PackageNotFoundError, OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("url"), str):
        return None
    url: str = data["url"]
    vcs = data.get("vcs_info")
    if isinstance(vcs, dict) and vcs.get("vcs"):
        commit = vcs.get("commit_id")
        return f"{vcs['vcs']}+{url}" + (f"@{commit}" if commit else "")
    if url.startswith("file://"):
        return unquote(urlsplit(url).path)
    return url


PROBE = Probe.of("installed_packages", probe)
