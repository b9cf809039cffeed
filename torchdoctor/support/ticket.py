"""The facts a support ticket needs, beyond the verdicts: the selected checks run like ``torchdoctor check``
runs them, plus the probes whose facts a support engineer asks for whatever was checked (``torch``, ``nvml``,
``cuda_driver``, ``env``, ``system`` and ``installed_packages``), in the same worker.
:mod:`torchdoctor.render.sections` reads them back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from torchdoctor.checking import doctor, registry, runner
from torchdoctor.checking.registry import Loaded
from torchdoctor.machine import envvars, nvml, sysinfo
from torchdoctor.machine import packages as installed_packages
from torchdoctor.model import Report, Status

OWN_PROBES = (nvml.PROBE, envvars.PROBE, installed_packages.PROBE, sysinfo.PROBE)
CHECK_PROBES = ("torch", "cuda_driver")
"""Probes of the installed checks whose facts every ticket carries: the torch build, the driver's GPUs."""


def gather(
    checks: Sequence[Loaded],
    installed: Sequence[Loaded],
    options: dict[str, Any],
    workers: runner.Workers,
    fail_on: Status = Status.FAIL,
    progress: runner.Progress | None = None,
) -> Report:
    """Run the checks and the ticket's probes in one worker, judge, and assemble the Report."""
    extra = [*registry.probes_named(installed, CHECK_PROBES), *OWN_PROBES]
    return doctor.diagnose(checks, options, workers, fail_on, progress, extra_probes=extra)
