"""The judge of check ``torch.stack`` (declared in ``stack_check``):
the libraries torch actually loaded, and the companion packages built for it.

Judges the facts of the ``torch``, ``loaded_libraries``, ``companions`` and ``companion_operators``
probes: which copy of cuDNN, cuBLAS, NCCL, the CUDA runtime, NVRTC and OpenMP the torch process mapped (and
whether a system copy shadows the wheel torch pins), whether torchvision, torchaudio, triton, the
``nvidia-*`` wheels and the other packages around torch were built for this torch, whether torch can use the
NumPy beside it, and whether torch itself is installed twice in the environment.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from torchdoctor.checks.install import (
    companions_judge,
    libraries_judge,
    numpy_judge,
    torch_installs,
)
from torchdoctor.checks.probes import torch_probe
from torchdoctor.model import Finding, Status


def judge(facts: Mapping[str, Any], options: Mapping[str, Any]) -> Finding:
    torch = facts["torch"]
    libs = facts["loaded_libraries"]
    comps = facts["companions"]
    ops = facts["companion_operators"]
    if not torch.get("importable"):
        return torch_probe.needs_torch(torch_probe.import_error_text(torch))
    shown = _shown_facts(torch, libs, comps, ops)
    evidence: list[Any] = [
        *companions_judge.evidence(torch, comps, ops),
        *numpy_judge.evidence(torch),
        *_library_evidence(libs),
    ]
    found = [
        *companions_judge.findings(torch, comps, ops),
        *torch_installs.findings(torch, comps),
        *numpy_judge.findings(torch),
        *libraries_judge.findings(libs),
    ]
    if not found and _nothing_known(torch, libs, comps):
        return Finding(
            Status.SKIP,
            f"torch {torch.get('version')}: nothing of its stack is known from these facts (loaded libraries "
            f"not read, {libs['skip_reason']}; no package list)",
            tuple(evidence),
            facts=shown,
        )
    if not found:
        packages = companions_judge.summary(torch, comps)
        summary = f"torch {torch.get('version')}: {libraries_judge.summary(libs)}; {packages}"
        return Finding(Status.PASS, summary, tuple(evidence), facts=shown)
    combined = Finding.combine(found)
    return Finding(combined.status, combined.summary, (*combined.details, *evidence), combined.fix, shown)


def _nothing_known(torch: Mapping[str, Any], libs: Mapping[str, Any], comps: Mapping[str, Any]) -> bool:
    """Neither the loaded libraries, nor the packages around torch, nor its NumPy: a collect_env dump
    without its "Versions of relevant libraries" list. A PASS would claim what was not checked."""
    return bool(libs.get("skip_reason")) and "looked_for" not in comps and torch.get("numpy") is None


def _library_evidence(libs: Mapping[str, Any]) -> list[Any]:
    if libs.get("skip_reason"):
        return [f"loaded libraries: not read, {libs['skip_reason']}"]
    rows = libraries_judge.rows(libs)
    if not rows:
        return [f"loaded libraries: none of the CUDA or OpenMP libraries is mapped ({libs.get('source')})"]
    return [f"loaded libraries, from {libs.get('source')}:", *rows]


def _shown_facts(
    torch: Mapping[str, Any], libs: Mapping[str, Any], comps: Mapping[str, Any], ops: Mapping[str, Any]
) -> dict[str, Any]:
    return {
        "torch": {k: torch.get(k) for k in ("version", "flavor", "cuda", "hip", "file")},
        "loaded_libraries": libraries_judge.rows(libs),
        "loaded_libraries_skipped": libs.get("skip_reason"),
        "ld_library_path": [e.get("entry") for e in libs.get("ld_library_path") or []],
        "companions": [
            {k: c.get(k) for k in ("name", "version", "build_version", "requires_torch")}
            for c in comps.get("companions") or []
        ],
        "pins": [
            {
                "name": p["name"],
                "specifier": p["specifier"],
                "installed": (comps.get("installed") or {}).get(p["name"]),
            }
            for p in comps.get("pins") or []
            if p.get("applies")
        ],
        "operator_tries": list(ops.get("tries") or []),
    }
