"""NumPy as torch sees it (the ``numpy`` facts of the torch probe): missing or unusable is a warning.

torch imports without NumPy (it warns "Failed to initialize NumPy"), and then fails later, in
``tensor.numpy()``, ``torch.from_numpy`` or a DataLoader over NumPy data, with "Numpy is not available"; a
NumPy that is installed but that torch cannot use (NumPy 2 beside a torch built for NumPy 1.x, a broken
install) fails the same way or with "_ARRAY_API not found".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from torchdoctor.checks.install import explanations, versions
from torchdoctor.model import Finding, Fix, Status

FIRST_TORCH_FOR_NUMPY_2 = "2.3"
"""torch 2.3 is the first release built against NumPy 2 (and so runs with NumPy 1.x and 2.x)."""


def _facts(torch: Mapping[str, Any]) -> Mapping[str, Any] | None:
    numpy = torch.get("numpy")
    return numpy if isinstance(numpy, Mapping) else None


def _needs_numpy_1(torch: Mapping[str, Any]) -> bool:
    version = versions.parse_version(torch.get("version"))
    first = versions.parse_version(FIRST_TORCH_FOR_NUMPY_2)
    return version is not None and first is not None and version.release < first.release


def evidence(torch: Mapping[str, Any]) -> list[str]:
    numpy = _facts(torch)
    if numpy is None:
        return []
    if numpy.get("version") and numpy.get("installed") is not False and not _problem(numpy):
        return [f"NumPy {numpy['version']}: torch uses it"]
    return []


def _problem(numpy: Mapping[str, Any]) -> str | None:
    error = numpy.get("error")
    if error:
        return str(error)
    warnings = [str(w) for w in numpy.get("warnings") or []]
    return warnings[0] if warnings else None


def findings(torch: Mapping[str, Any]) -> list[Finding]:
    numpy = _facts(torch)
    if numpy is None:
        return []
    if numpy.get("installed") is False:
        needs_1 = _needs_numpy_1(torch)
        command = 'pip install "numpy<2"' if needs_1 else "pip install numpy"
        built_for = " (this torch is built for NumPy 1.x)" if needs_1 else ""
        return [
            Finding(
                Status.WARN,
                "NumPy is not installed: tensor.numpy(), torch.from_numpy() and DataLoaders over NumPy data "
                "fail with 'Numpy is not available'",
                (),
                Fix(f"Install NumPy in the environment torch runs in{built_for}.", (command,)),
            )
        ]
    problem = _problem(numpy)
    if problem is None:
        return []
    version = str(numpy.get("version") or "")
    shown = f"NumPy {version}" if version else "NumPy"
    first_line = problem.strip().splitlines()[0] if problem.strip() else problem
    analysis = explanations.analyse_numpy(problem)  # the fix `torchdoctor explain` gives for the same text
    details = [f"{shown}: {first_line[:300]}", *analysis.evidence]
    if version.startswith("2") and _needs_numpy_1(torch):
        details.append(
            f"torch {torch.get('version')} is built for NumPy 1.x; torch {FIRST_TORCH_FOR_NUMPY_2} and later "
            "run with NumPy 2"
        )
    reinstall = Fix("Reinstall NumPy in this environment.", ("pip install --force-reinstall numpy",))
    fix = analysis.fix or reinstall
    summary = f"torch cannot use {shown}: tensor.numpy() and torch.from_numpy() fail"
    return [Finding(Status.WARN, summary, tuple(details), fix)]
