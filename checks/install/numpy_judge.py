"""NumPy as torch sees it (the ``numpy`` facts of the torch probe): missing or unusable is a warning.

torch imports without NumPy (it warns "Failed to initialize NumPy"), and then fails later, in
``tensor.numpy()``, ``torch.from_numpy`` or a DataLoader over NumPy data, with "Numpy is not available"; a
NumPy that is installed but that torch cannot use (NumPy 2 beside a torch built for NumPy 1.x, a broken
install) fails the same way or with "_ARRAY_API not found".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from torchdoctor.checks.install import builds, versions
from torchdoctor.model import Finding, Fix, Status

_OS_NAMES = {"linux": "Linux", "windows": "Windows", "macos": "macOS"}


def _facts(torch: Mapping[str, Any]) -> Mapping[str, Any] | None:
    numpy = torch.get("numpy")
    return numpy if isinstance(numpy, Mapping) else None


def _os(torch: Mapping[str, Any]) -> str | None:
    system = str((torch.get("os") or {}).get("system") or "").lower()
    return "windows" if system.startswith("win") else "macos" if system == "darwin" else system or None


def _built_for_numpy_2(line: str, os_name: str | None, version: versions.Version) -> bool | None:
    """Whether this release's wheels for the OS are built for NumPy 2 (data/torch_builds.json per line and
    OS); None where the table does not say (an OS it does not name gets an answer only where every OS
    agrees)."""
    fact = builds.line_fact(line, "numpy_2")
    if fact is None:
        return None
    built_for: Mapping[str, bool] = fact["built_for"]
    if os_name is None or os_name not in built_for:
        answers = set(built_for.values())
        return answers.pop() if len(answers) == 1 else None
    patch = versions.parse_version((fact.get("from_patch") or {}).get(os_name))
    return bool(built_for[os_name]) or (patch is not None and version.release >= patch.release)


def _needs_numpy_1(torch: Mapping[str, Any]) -> tuple[bool, str] | None:
    """Whether this torch is built for NumPy 1.x on its OS, with the table's source; None where the tables
    do not say (a release newer than the tables). Releases older than the tables predate NumPy 2."""
    version = versions.parse_version(torch.get("version"))
    line = versions.release_line(torch.get("version"))
    if version is None or line is None:
        return None
    known = builds.known_lines()
    if versions.Version(line) < versions.Version(known[0]):
        oldest = builds.line_fact(known[0], "numpy_2") or {}
        return True, str(oldest.get("source"))
    built = _built_for_numpy_2(line, _os(torch), version)
    if built is None:
        return None
    fact = builds.line_fact(line, "numpy_2") or {}
    return not built, str(fact.get("source"))


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
    needs = _needs_numpy_1(torch)
    needs_1 = needs is not None and needs[0]
    if numpy.get("installed") is False:
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
    # The fix `torchdoctor explain` gives for the same text; its catalogue is imported only when needed.
    from torchdoctor.checks.install import explanations

    analysis = explanations.analyse_numpy(problem)
    details = [f"{shown}: {first_line[:300]}", *analysis.evidence]
    if version.startswith("2") and needs is not None and needs[0]:
        os_name = _os(torch)
        where = f" for {_OS_NAMES[os_name]}" if os_name in _OS_NAMES else ""
        first = builds.first_for_numpy_2(os_name)
        later = f"; torch {first} and later{where} run with NumPy 2" if first else ""
        details += [
            f"torch {torch.get('version')}{where} is built for NumPy 1.x{later}",
            f"source: {needs[1]}",
        ]
    reinstall = Fix("Reinstall NumPy in this environment.", ("pip install --force-reinstall numpy",))
    fix = analysis.fix or reinstall
    if (
        version.startswith("2")
        and needs is not None
        and needs[0]
        and fix.commands == ('pip install "numpy<2"',)
    ):
        os_name = _os(torch)
        first = builds.first_for_numpy_2(os_name)
        where = f" for {_OS_NAMES[os_name]}" if os_name in _OS_NAMES else ""
        newer = f" (torch {first} and later{where} are built for NumPy 2, so upgrading torch also works)"
        fix = Fix(f"Install NumPy 1.x next to this torch{newer if first else ''}.", fix.commands)
    summary = f"torch cannot use {shown}: tensor.numpy() and torch.from_numpy() fail"
    return [Finding(Status.WARN, summary, tuple(details), fix)]
