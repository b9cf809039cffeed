"""Which torch to install so that it runs here: a build with kernels for these GPUs that this driver runs.

The builds of torch 2.13 are known with their arch lists (``cuda_compat.RELEASE_CUDA_ARCHES``). Another
release line of PyTorch's release matrix (``releases.py``) is planned with the CUDA versions it was published
for and what those toolkits compile for; a torch older than the matrix gets the current release instead, as
does one whose own builds cannot run here. Pure functions of the facts: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from torchdoctor.checks.install import cuda_compat, releases
from torchdoctor.checks.install.versions import Version, parse_version, release_line

_RUNNABLE = ("ok", "minor_compat")


@dataclass(frozen=True)
class Plan:
    text: str
    commands: tuple[str, ...] = ()
    runs_here: bool = False
    """The commands install a build that this driver runs (not one that needs a driver update first)."""


def driver_os(torch: Mapping[str, Any]) -> str:
    """Whose driver table applies: Windows for Windows and for WSL (its driver is the Windows one)."""
    system = torch.get("os") or {}
    return "windows" if system.get("system") == "Windows" or system.get("wsl") else "linux"


def machine(torch: Mapping[str, Any]) -> str:
    """The wheel architecture to suggest, as the torch probe's interpreter reports it."""
    name = str(torch.get("machine") or "x86_64").lower()
    return "aarch64" if name in ("aarch64", "arm64") else "x86_64"


def torch_release(torch: Mapping[str, Any]) -> str | None:
    version = torch.get("version") or (torch.get("distribution") or {}).get("version")
    return str(version).split("+")[0] if version else None


def ccs(gpus: Sequence[Mapping[str, Any]]) -> list[tuple[int, int]]:
    return [
        (int(g["compute_capability"][0]), int(g["compute_capability"][1]))
        for g in gpus
        if g.get("compute_capability")
    ]


def driver_cuda(nv: Mapping[str, Any], driver: Mapping[str, Any]) -> int | None:
    """The CUDA version the driver supports: NVML's; where NVML says nothing of the driver, the CUDA driver's
    own (``cuDriverGetVersion``, which torch quotes as "found version 11040")."""
    value = nv.get("cuda_driver_version")
    if not value and not nv.get("driver_version"):
        value = driver.get("driver_cuda_version")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def plan(
    torch: Mapping[str, Any],
    nv: Mapping[str, Any],
    driver: Mapping[str, Any],
    gpus: Sequence[Mapping[str, Any]],
    reason: str,
) -> Plan:
    release = torch_release(torch)
    row = releases.release(release)
    if release and row is not None and row.line != cuda_compat.RELEASE_LINE:
        own = _own_release(torch, nv, driver, gpus, release, row.cuda)
        why = (
            f"None of the CUDA builds PyTorch's release matrix lists for torch {row.line} "
            f"(CUDA {', '.join(row.cuda)}) runs here with kernels for these GPUs;"
        )
        return own or _current_release(torch, nv, driver, gpus, release, f"{reason} {why}")
    if release and _older_than_matrix(release):
        why = f"torch {release} is older than PyTorch's release matrix, which these plans are made from;"
        return _current_release(torch, nv, driver, gpus, release, f"{reason} {why}")
    return _same_release(torch, nv, driver, gpus, release, reason)


def _older_than_matrix(release: str) -> bool:
    parsed = parse_version(release)
    oldest = min((Version(line) for line in releases.TABLE["releases"]), default=None)
    line = release_line(release)
    return parsed is not None and oldest is not None and line is not None and Version(line) < oldest


def _runs(flavor: str, torch: Mapping[str, Any], nv: Mapping[str, Any], driver: Mapping[str, Any]) -> str:
    compat = cuda_compat.driver_compat(
        flavor, driver_cuda(nv, driver), nv.get("driver_version"), driver_os(torch)
    )
    return compat.status


def _own_release(
    torch: Mapping[str, Any],
    nv: Mapping[str, Any],
    driver: Mapping[str, Any],
    gpus: Sequence[Mapping[str, Any]],
    release: str,
    flavors: Sequence[str],
) -> Plan | None:
    """The newest CUDA build of this very release that reaches every GPU and runs on this driver."""
    reaching = [
        flavor
        for flavor in sorted(flavors, key=lambda f: parse_version(f) or (), reverse=True)
        if all(cuda_compat.toolkit_reach(flavor, cc).status == "within" for cc in ccs(gpus))
    ]
    for wanted in _RUNNABLE:
        for flavor in reaching:
            if _runs(flavor, torch, nv, driver) == wanted:
                return Plan(
                    f"Install torch {release} built for CUDA {flavor}, which this driver runs and which has "
                    "kernels for these GPUs (in the same environment, replacing the current torch).",
                    (cuda_compat.install_command(release, flavor),),
                    runs_here=True,
                )
    return None


def _current_release(
    torch: Mapping[str, Any],
    nv: Mapping[str, Any],
    driver: Mapping[str, Any],
    gpus: Sequence[Mapping[str, Any]],
    release: str,
    lead: str,
) -> Plan:
    """torch ``release`` has no build known to run here: the current release's build that does."""
    arch = machine(torch)
    lead = lead.strip()
    flavor = cuda_compat.suggest_flavor(
        ccs(gpus), driver_cuda(nv, driver), nv.get("driver_version"), arch, driver_os(torch)
    )
    upgrade = "pip install --upgrade torch --index-url {url}"
    if flavor is not None:
        return Plan(
            f"{lead} the current torch release has one: install its CUDA {flavor} build (this upgrades "
            "torch; upgrade torchvision and torchaudio with it).",
            (upgrade.format(url=cuda_compat.wheel_index_url(flavor)),),
            runs_here=True,
        )
    covering = cuda_compat.covering_flavors(ccs(gpus), arch)
    if covering:
        flavor = covering[0]
        needed = cuda_compat.driver_compat(flavor, None, None, driver_os(torch)).required_driver
        return Plan(
            f"{lead} update the NVIDIA driver to {needed or 'a newer release'} or later, then install the "
            f"current torch release built for CUDA {flavor} (this upgrades torch).",
            (upgrade.format(url=cuda_compat.wheel_index_url(flavor)),),
        )
    return _cpu_only(release, "", gpus)


def _same_release(
    torch: Mapping[str, Any],
    nv: Mapping[str, Any],
    driver: Mapping[str, Any],
    gpus: Sequence[Mapping[str, Any]],
    release: str | None,
    reason: str,
) -> Plan:
    """A torch of the release line whose builds RELEASE_CUDA_ARCHES describes (or a release not known)."""
    arch = machine(torch)
    flavor = cuda_compat.suggest_flavor(
        ccs(gpus), driver_cuda(nv, driver), nv.get("driver_version"), arch, driver_os(torch)
    )
    if flavor is None:
        if ccs(gpus) and not cuda_compat.covering_flavors(ccs(gpus), arch):
            return _cpu_only(release, reason, gpus)
        return Plan(
            f"{reason} No published CUDA build of torch {release or ''} runs on this driver with kernels for "
            "these GPUs: update the NVIDIA driver first.".replace("  ", " ").lstrip()
        )
    command = (
        cuda_compat.install_command(release, flavor)
        if release
        else f"pip install torch --index-url {cuda_compat.wheel_index_url(flavor)}"
    )
    return Plan(
        f"{reason} Install the CUDA {flavor} build, which this driver runs and which has kernels for "
        "these GPUs (in the same environment, replacing the current torch).".lstrip(),
        (command,),
        runs_here=True,
    )


def _cpu_only(release: str | None, reason: str, gpus: Sequence[Mapping[str, Any]]) -> Plan:
    listed = ", ".join(sorted({f"CC {major}.{minor}" for major, minor in ccs(gpus)}))
    command = (
        cuda_compat.install_command(release, None)
        if release
        else "pip install torch --index-url https://download.pytorch.org/whl/cpu"
    )
    return Plan(
        f"{reason} No published CUDA build of torch has kernels for {listed}: this GPU is too old for "
        "torch's CUDA builds. Use the CPU build, or build torch from source with a CUDA that supports "
        "it.".lstrip(),
        (command,),
    )
