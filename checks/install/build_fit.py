"""The parts of torch.build's judge added for partial facts: whether the build has kernels for each GPU (by
its arch list, or by what its CUDA toolkit compiles for where the arch list is not known, as in a collect_env
dump), and whether the torch release supports the Python it runs on (PyTorch's release matrix).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from torchdoctor.checks.install import builds, cuda_compat, install_plan, releases
from torchdoctor.checks.install.versions import release_line
from torchdoctor.model import Finding, Fix, Status


def install_fix(
    torch: Mapping[str, Any],
    nv: Mapping[str, Any],
    driver: Mapping[str, Any],
    gpus: Sequence[Mapping[str, Any]],
    reason: str,
) -> Fix:
    """What to install so that torch runs here (``install_plan``), as a Fix."""
    plan = install_plan.plan(torch, nv, driver, gpus, reason)
    return Fix(plan.text, plan.commands)


def plan_evidence(
    torch: Mapping[str, Any],
    nv: Mapping[str, Any],
    driver: Mapping[str, Any],
    gpus: Sequence[Mapping[str, Any]],
) -> tuple[str, ...]:
    """The builds the install plan judged, each with its table row's source, for a verdict's evidence."""
    return install_plan.plan(torch, nv, driver, gpus, "").evidence


def _gpu_label(gpu: Mapping[str, Any], cc: Sequence[int]) -> str:
    return f"GPU {gpu.get('index')} {gpu.get('name')} (CC {cc[0]}.{cc[1]}, sm_{cc[0]}{cc[1]})"


def arch_findings(
    torch: Mapping[str, Any],
    nv: Mapping[str, Any],
    driver: Mapping[str, Any],
    gpus: Sequence[Mapping[str, Any]],
    gpu: Mapping[str, Any],
) -> list[Finding]:
    """Whether the build has kernels for this GPU: by its arch list, or, where the facts have no arch list
    (a collect_env dump), by what its CUDA toolkit can compile for."""
    cc = gpu.get("compute_capability")
    if not cc:
        return []
    if "arch_list" not in torch:
        return _table_findings(torch, nv, driver, gpus, gpu) or _toolkit_findings(
            torch, nv, driver, gpus, gpu
        )
    arch_list = list(torch.get("arch_list") or [])
    if not arch_list:
        return []
    coverage = cuda_compat.arch_coverage(
        arch_list, (int(cc[0]), int(cc[1])), torch.get("version"), torch.get("cuda")
    )
    label = _gpu_label(gpu, cc)
    if not coverage.supported:
        return [_no_kernels(label, (coverage.message,), torch, nv, driver, gpus)]
    if coverage.via == "ptx":
        return [
            Finding(
                Status.WARN,
                f"{label} runs only through PTX JIT compilation ({coverage.entry}): slow first start",
                (coverage.message,),
                install_fix(
                    torch, nv, driver, gpus, "A build with native kernels for this GPU avoids the JIT."
                ),
            )
        ]
    return []


def _table_findings(
    torch: Mapping[str, Any],
    nv: Mapping[str, Any],
    driver: Mapping[str, Any],
    gpus: Sequence[Mapping[str, Any]],
    gpu: Mapping[str, Any],
) -> list[Finding] | None:
    """Where the facts have no arch list: the arch list the tables give for this release's build (torch's own
    PYTORCH_RELEASES_CODE_CC, or what PyTorch published); None where the tables do not know the build."""
    line = release_line(torch.get("version"))
    build = builds.build_of(line or "", install_plan.wheel_os(torch), torch.get("cuda"))
    if build is None or build.ccs is None:
        return None
    cc = (int(gpu["compute_capability"][0]), int(gpu["compute_capability"][1]))
    if builds.has_kernels(build, cc) is not False:
        return []
    listed = " ".join([*(f"sm_{c}" for c in build.ccs), *(f"compute_{c}" for c in build.ptx)])
    evidence = (
        f"the CUDA {build.cuda} build of torch {line} has kernels for {listed} and no PTX for this GPU",
        f"source: {build.source}",
        *plan_evidence(torch, nv, driver, gpus),
    )
    return [_no_kernels(_gpu_label(gpu, cc), evidence, torch, nv, driver, gpus)]


def _no_kernels(
    label: str,
    evidence: tuple[str, ...],
    torch: Mapping[str, Any],
    nv: Mapping[str, Any],
    driver: Mapping[str, Any],
    gpus: Sequence[Mapping[str, Any]],
) -> Finding:
    return Finding(
        Status.FAIL,
        f"{label}: this torch has no kernels for it: 'no kernel image is available for execution on the "
        "device'",
        evidence,
        install_fix(torch, nv, driver, gpus, "Install a build whose arch list covers this GPU."),
    )


def _toolkit_findings(
    torch: Mapping[str, Any],
    nv: Mapping[str, Any],
    driver: Mapping[str, Any],
    gpus: Sequence[Mapping[str, Any]],
    gpu: Mapping[str, Any],
) -> list[Finding]:
    cc = gpu["compute_capability"]
    reach = cuda_compat.toolkit_reach(torch.get("cuda"), (int(cc[0]), int(cc[1])))
    label = _gpu_label(gpu, cc)
    if reach.status == "below":
        return [
            Finding(
                Status.FAIL,
                f"{label}: this torch has no kernels for it: its CUDA {torch.get('cuda')} cannot compile for "
                "a GPU this old",
                (reach.message,),
                install_fix(torch, nv, driver, gpus, "Install a build that has kernels for this GPU."),
            )
        ]
    if reach.status == "above":
        cc_pair = (int(cc[0]), int(cc[1]))
        if builds.siblings_without_code(install_plan.wheel_os(torch), torch.get("cuda"), cc_pair):
            reason = builds.no_sibling_code(install_plan.wheel_os(torch), torch.get("cuda"), cc_pair)
            return [_no_kernels(label, (reach.message, reason), torch, nv, driver, gpus)]
        return [
            Finding(
                Status.WARN,
                f"{label}: this torch has no kernels for it unless it ships PTX: its CUDA "
                f"{torch.get('cuda')} predates this GPU",
                (reach.message, "the arch list of this build is not known from these facts"),
                install_fix(torch, nv, driver, gpus, "Install a build whose CUDA knows this GPU."),
            )
        ]
    return []


def python_support(torch: Mapping[str, Any]) -> list[Finding]:
    """Whether the index has a wheel of this torch release for the Python it runs on (the wheels'
    own tags)."""
    system = (torch.get("os") or {}).get("system")
    platform = releases.platform_of(system, torch.get("machine"))
    support = releases.python_support(torch.get("version"), torch.get("python"), platform)
    if support is None or support.supported is not False:
        return []
    where = f" for {support.platform}" if support.platform else ""
    newest = releases.newest_for_python(support.python, support.platform)
    if newest is not None:
        fix = Fix(
            f"Run torch {support.release} on a Python it has wheels for ({', '.join(support.listed)}), or "
            f"install torch {newest}, the newest release with a wheel for Python {support.python}{where}.",
            (f"pip install torch=={newest}",),
        )
    else:
        fix = Fix(
            f"No torch release on the index has a wheel for Python {support.python}{where}: create an "
            f"environment with a Python torch {support.release} has wheels for "
            f"({', '.join(support.listed)}).",
            (f"conda create -n torch python={support.listed[-1] if support.listed else '3.12'}",),
        )
    return [
        Finding(
            Status.WARN,
            f"torch {support.release} has no wheel for Python {support.python}{where}: its wheels are for "
            f"Python {', '.join(support.listed)}",
            (f"source: {support.source}",),
            fix,
        )
    ]
