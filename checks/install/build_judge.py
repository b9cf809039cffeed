"""The parts of torch.build's judge added for partial facts: whether the build has kernels for each GPU (by
its arch list, or by what its CUDA toolkit compiles for where the arch list is not known, as in a collect_env
dump), and whether the torch release supports the Python it runs on (PyTorch's release matrix).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from torchdoctor.checks.install import cuda_compat, install_plan, releases
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
        return _toolkit_findings(torch, nv, driver, gpus, gpu)
    arch_list = list(torch.get("arch_list") or [])
    if not arch_list:
        return []
    coverage = cuda_compat.arch_coverage(arch_list, (int(cc[0]), int(cc[1])))
    label = _gpu_label(gpu, cc)
    if not coverage.supported:
        return [
            Finding(
                Status.FAIL,
                f"{label}: this torch has no kernels for it: 'no kernel image is available for execution "
                "on the device'",
                (coverage.message,),
                install_fix(torch, nv, driver, gpus, "Install a build whose arch list covers this GPU."),
            )
        ]
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
    """Whether this torch release supports the Python it runs on, by PyTorch's release matrix."""
    python = torch.get("python")
    row = releases.release(torch.get("version"))
    if row is None or not python or releases.supports_python(row, str(python)) is not False:
        return []
    line = releases.python_line(str(python))
    newest = releases.newest_for_python(str(python))
    if newest is not None:
        fix = Fix(
            f"Run torch {row.line} on Python {row.python_min} to {row.python_max}, or install torch "
            f"{newest.line}, the newest release that supports Python {line}.",
            (f'pip install "torch=={newest.line}.*"',),
        )
    else:
        fix = Fix(
            f"No torch release supports Python {line}: create an environment with a Python that torch "
            f"{row.line} supports ({row.python_min} to {row.python_max}) and install torch there.",
            (f"conda create -n torch python={row.python_max}",),
        )
    return [
        Finding(
            Status.WARN,
            f"torch {row.line} does not support Python {line}: it supports Python {row.python_min} to "
            f"{row.python_max}",
            (f"PyTorch release matrix, torch {row.line}: Python {row.python_cell}",),
            fix,
        )
    ]
