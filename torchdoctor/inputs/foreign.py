"""A saved report (schema version 1) made from the facts a foreign text gives (a collect_env dump, nvidia-smi
output): no verdicts yet, no probe run, the text's own marker beside the standard keys; and the facts of the
probes nvml, gpu_processes, env and cuda_driver that nvidia-smi's outputs give."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from torchdoctor._version import __version__
from torchdoctor.model import SCHEMA_VERSION


def report(facts: dict[str, Any], host: dict[str, str], **marker: Any) -> dict[str, Any]:
    """The report whose facts are ``facts``, made now by this torchdoctor; ``marker`` names what it was read
    from (``collect_env={...}``)."""
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "torchdoctor", "version": __version__},
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "host": host,
        "options": {},
        "facts": facts,
        "probe_errors": {},
        "verdicts": [],
        "summary": {"pass": 0, "warn": 0, "fail": 0, "skip": 0, "error": 0, "total": 0},
        "exit_code": 0,
        "timings": {"total_s": 0.0, "probes": {}},
        **marker,
    }


def nvidia_smi_facts(
    driver_version: str | None,
    cuda_driver_version: int | None,
    gpus: list[dict[str, Any]],
    names: dict[str, Any],
) -> dict[str, Any]:
    """The facts of the probes nvml, gpu_processes, env and cuda_driver as far as nvidia-smi output tells: the
    GPUs and their processes (``names``: pid -> name); which process is the job, the job's environment and
    the CUDA driver's own view are unknown."""
    return {
        "nvml": {
            "available": True,
            "error": None,
            "driver_version": driver_version,
            "cuda_driver_version": cuda_driver_version,
            "gpus": gpus,
        },
        "gpu_processes": {"pid_namespace": "unknown", "own_pid": None, "ancestors": [], "processes": names},
        "env": {"variables": {}, "variables_known": False},
        "cuda_driver": {},
    }
