"""torch installed twice in one environment.

Live, two ``torch`` distributions on the import path (two ``*.dist-info`` folders: a pip install over a conda
one, or two ``pip install --target`` runs) leave the files of two releases mixed in one ``torch/`` folder. In
a collect_env dump, conda's list names a ``pytorch`` from a conda channel beside a pip-installed torch of
another release (pip lists a conda install too, so the same release in both lists is one install).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from torchdoctor.checks.install import companions_judge
from torchdoctor.model import Finding, Fix, Status

# conda's list shows a package pip installed with these builds or channels.
PIP_BUILDS = ("<pip>", "pypi_0", "<develop>", "dev_0")
PIP_CHANNELS = ("pypi", "<pip>", "<develop>")

Install = Mapping[str, Any]


def findings(torch: Mapping[str, Any], comps: Mapping[str, Any]) -> list[Finding]:
    installs: Sequence[Install] = comps.get("torch_installs") or []
    live = {str(i["metadata"]): i for i in installs if i.get("metadata")}
    if len(live) >= 2:
        return [_two_on_path(torch, list(live.values()))]
    listed = [i for i in installs if i.get("listed_by")]
    found = _two_in_lists(torch, listed)
    return [found] if found else []


def _public(version: Any) -> str:
    return str(version or "").partition("+")[0]


def _two_on_path(torch: Mapping[str, Any], installs: Sequence[Install]) -> Finding:
    version = str(torch.get("version") or installs[0].get("version") or "")
    details = tuple(
        f"torch {i.get('version')} at {i['metadata']} (installed by {i.get('installer') or 'unknown'})"
        for i in installs
    )
    uninstall = ("pip uninstall -y torch",) * len(installs)
    reinstall = companions_judge.install_command("torch", _public(version), version, reinstall=True)
    return Finding(
        Status.FAIL,
        f"torch is installed twice in this environment: {len(installs)} torch distributions on the "
        "import path",
        details,
        Fix(
            "The files of two torch installs are mixed in one torch/ folder: uninstall torch until pip finds "
            f"none, then install the one you want (here torch {version}).",
            (*uninstall, reinstall),
        ),
    )


def _is_conda_build(install: Install) -> bool:
    return install.get("build") not in PIP_BUILDS and install.get("channel") not in PIP_CHANNELS


def _two_in_lists(torch: Mapping[str, Any], listed: Sequence[Install]) -> Finding | None:
    conda = [i for i in listed if i.get("listed_by") == "conda" and i.get("version")]
    native = [i for i in conda if _is_conda_build(i)]
    if not native:
        return None
    pip_in_conda = [i for i in conda if not _is_conda_build(i)]
    native_versions = {_public(i["version"]) for i in native}
    pip_other = [
        i
        for i in listed
        if i.get("listed_by") == "pip" and i.get("version") and _public(i["version"]) not in native_versions
    ]
    others = [*pip_in_conda, *pip_other]
    if not others and len(native) < 2:
        return None
    kept = native[0]
    details = [_listed_text(i) for i in (*native, *others)]
    imported = _public(torch.get("version"))
    if imported and imported not in native_versions and others:
        kept = others[0]
        fix = Fix(
            f"Two installs of torch share one environment; torch imports {imported}, the pip install: remove "
            "conda's package without its dependents, then reinstall that torch so its files are whole.",
            (
                f"conda remove --force -y {native[0].get('name') or 'pytorch'}",
                f"pip install --force-reinstall --no-deps torch=={_public(kept['version'])}",
            ),
        )
    else:
        channel = kept.get("channel")
        source = f" -c {channel}" if channel and channel not in PIP_CHANNELS else ""
        package = f"{kept.get('name') or 'pytorch'}=={kept['version']}"
        fix = Fix(
            "Two installs of torch share one environment: uninstall pip's torch, then reinstall conda's "
            "package so its files are whole again.",
            (
                "pip uninstall -y torch",
                f"conda install --force-reinstall -y {package}{source}",
            ),
        )
    return Finding(
        Status.FAIL,
        "torch is installed twice in this environment: " + " and ".join(details[:2]),
        tuple(details),
        fix,
    )


def _listed_text(install: Install) -> str:
    if install.get("listed_by") == "pip":
        return f"pip's torch {install.get('version')}"
    where = install.get("channel") or install.get("build") or "conda"
    return f"conda's {install.get('name')} {install.get('version')} ({where})"
