"""The judge of check ``torch.build`` (declared in ``build_check``):
is the installed torch the right build for this machine?

Judges the facts of the ``torch``, ``nvml`` and ``cuda_driver`` probes: where
torch comes from and what shadows it, its flavor (CUDA, ROCm, XPU, CPU-only),
cuDNN and NCCL, MPS, whether the driver is new enough for the wheel's CUDA,
whether every GPU's compute capability has kernels in the wheel, and whether
the torch release supports this Python. Facts read from a collect_env dump are
partial: what the dump does not say is absent, and is then not judged.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from torchdoctor.checks.install import build_fit, builds, cuda_compat, install_plan, releases
from torchdoctor.checks.install.versions import release_line
from torchdoctor.machine import nvml, pci
from torchdoctor.model import Finding, Fix, Status


def judge(facts: Mapping[str, Any], options: Mapping[str, Any]) -> Finding:
    torch = facts["torch"]
    gpus = nvml.gpus_in(facts["nvml"])
    if not torch.get("importable"):
        return _not_importable(torch, facts["nvml"], facts["cuda_driver"])
    evidence = _evidence(torch, facts["nvml"], gpus)
    findings = [*_shadowing(torch), *build_fit.python_support(torch)]
    flavor = torch.get("flavor")
    if flavor in _NOT_NVIDIA_BUILDS:
        findings += _build_without_nvidia(torch, facts["nvml"], facts["cuda_driver"], gpus)
    elif flavor == "cuda":
        findings += _cuda_build(torch, facts["nvml"], facts["cuda_driver"], gpus)
        bus = facts["cuda_driver"].get("pci_gpus")  # absent from reports made before it was read
        findings += _amd_gpu_only(torch, facts["nvml"], facts["cuda_driver"], gpus, bus)
    findings += _mps(torch)
    shown = _shown_facts(torch, facts["nvml"])
    if not findings:
        return Finding(Status.PASS, _pass_summary(torch, facts["nvml"], gpus), tuple(evidence), facts=shown)
    combined = Finding.combine(findings)
    return Finding(combined.status, combined.summary, (*combined.details, *evidence), combined.fix, shown)


driver_os = install_plan.driver_os


def _shown_facts(torch: Mapping[str, Any], nv: Mapping[str, Any]) -> dict[str, Any]:
    keys = (
        "version",
        "file",
        "flavor",
        "cuda",
        "hip",
        "cudnn_version",
        "nccl_version",
        "arch_list",
        "cuda_available",
        "device_count",
        "cuda_warnings",
        "mps",
        "os",
    )
    return {
        "torch": {k: torch.get(k) for k in keys if k in torch},
        "driver_version": nv.get("driver_version"),
        "driver_cuda_version": nv.get("cuda_driver_version"),
        "gpus": [
            {
                "index": g.get("index"),
                "name": g.get("name"),
                "compute_capability": g.get("compute_capability"),
            }
            for g in nv.get("gpus") or []
        ],
    }


def _driver_present(nv: Mapping[str, Any], driver: Mapping[str, Any]) -> bool:
    """An NVIDIA driver is installed: NVML lists GPUs or a driver version, or the kernel module, its device
    nodes or the CUDA driver library answer."""
    return bool(
        nvml.gpus_in(nv)
        or (nv.get("available") and nv.get("driver_version"))
        or driver.get("proc_driver_version")
        or (driver.get("driver_cuda_version") and driver.get("device_count") != 0)
        or any(re.fullmatch(r"nvidia\d+", n) for n in driver.get("dev_nodes") or [])
    )


def _evidence(
    torch: Mapping[str, Any], nv: Mapping[str, Any], gpus: Sequence[Mapping[str, Any]]
) -> list[str]:
    where = f" imported from {torch['file']}" if torch.get("file") else ""
    lines = [f"{_torch_named(torch)}{where}"]
    flavor = torch.get("flavor")
    if flavor == "cuda":
        build = f"build: CUDA {torch.get('cuda')}"
        if torch.get("cudnn_version"):
            build += f", cuDNN {_cudnn(torch['cudnn_version'])}"
        if torch.get("nccl_version"):
            build += f", NCCL {torch['nccl_version']}"
        lines.append(build)
        if torch.get("arch_list"):
            lines.append("kernels for: " + " ".join(torch["arch_list"]))
    elif flavor == "rocm":
        lines.append(f"build: ROCm (HIP {torch.get('hip')})")
    elif flavor == "xpu":
        lines.append("build: Intel XPU")
    elif (torch.get("mps") or {}).get("built"):
        lines.append("build: CPU and MPS (Apple GPU)")
    elif flavor == "cpu":
        lines.append("build: CPU-only")
    else:
        lines.append("build: not known from these facts")
    if nv.get("available"):
        drv = cuda_compat.decode_cuda_int(nv.get("cuda_driver_version"))
        supports = f" (supports CUDA {cuda_compat.format_cuda(drv)})" if drv else ""
        lines.append(f"NVIDIA driver {nv.get('driver_version') or '(version not known)'}{supports}")
    elif "available" in nv:
        lines.append(f"NVIDIA driver: none found (NVML: {nv.get('error')})")
    else:
        lines.append("NVIDIA driver: not known from these facts")
    for gpu in gpus:
        cc = gpu.get("compute_capability")
        cc_text = f", CC {cc[0]}.{cc[1]}" if cc else ""
        lines.append(f"GPU {gpu.get('index')}: {gpu.get('name')}{cc_text}")
    if flavor in ("cuda", "rocm") and "device_count" in torch:
        seen = torch.get("device_count") or 0
        lines.append(
            f"torch sees {seen} GPU{'s' if seen != 1 else ''}"
            + ("" if torch.get("cuda_available") else " (torch.cuda.is_available() is False)")
        )
    mps = torch.get("mps") or {}
    if mps.get("built"):
        lines.append(f"MPS: built, {'available' if mps.get('available') else 'not available'}")
        lines += _mps_lines(torch, mps)
    if builds.newer_than_tables(torch.get("version")):
        lines.append(
            f"this torchdoctor does not know torch {release_line(torch.get('version'))} yet (its tables end "
            f"at torch {builds.newest_line()}): its builds' arch lists, Python wheels and companions are not "
            "judged from the tables; what is judged here holds for any torch"
        )
    return lines


def _cudnn(version: int) -> str:
    # 90100 -> 9.1.0 (cuDNN >= 9 encodes major*10000); 8902 -> 8.9.2
    if version >= 10000:
        return f"{version // 10000}.{version // 100 % 100}.{version % 100}"
    return f"{version // 1000}.{version // 100 % 10}.{version % 100}"


def _torch_named(torch: Mapping[str, Any]) -> str:
    """``torch 2.5.1+cu124``, or ``torch (version not known)`` where a report does not say it."""
    version = torch.get("version")
    return f"torch {version}" if version else "torch (version not known)"


def _pass_summary(torch: Mapping[str, Any], nv: Mapping[str, Any], gpus: Sequence[Mapping[str, Any]]) -> str:
    version = torch.get("version") or "(version not known)"
    flavor = torch.get("flavor")
    if flavor == "cuda":
        if not gpus and "available" not in nv:
            return f"torch {version}, CUDA {torch.get('cuda')} build; no NVIDIA GPU known from these facts"
        if not gpus:
            return (
                f"torch {version}, CUDA {torch.get('cuda')} build; no NVIDIA GPU here, so it runs on the CPU"
            )
        cuda = torch.get("cuda")
        if "device_count" not in torch:
            return f"torch {version}, CUDA {cuda} build; nothing wrong found for the GPU(s) named"
        seen = torch.get("device_count") or 0
        return f"torch {version}, CUDA {cuda} build; driver and kernels fit all {seen} visible GPU(s)"
    if flavor == "rocm":
        sees = f"; torch sees {torch.get('device_count') or 0} GPU(s)" if "device_count" in torch else ""
        return f"torch {version}, ROCm build (HIP {torch.get('hip')}){sees}"
    mps = torch.get("mps") or {}
    if mps.get("available"):
        return f"torch {version} with MPS available on this Mac"
    if flavor not in ("cpu", "xpu"):
        return f"torch {version}: its build is not known from these facts, and nothing judged is wrong"
    where = "on this machine" if "available" in nv else "known from these facts"
    return f"torch {version}, {_build_name(flavor)} build; no NVIDIA GPU {where}"


def _build_name(flavor: str | None) -> str:
    return "Intel XPU" if flavor == "xpu" else "CPU-only"


def _not_importable(torch: Mapping[str, Any], nv: Mapping[str, Any], driver: Mapping[str, Any]) -> Finding:
    error = torch.get("import_error") or {}
    details = [f"python: {torch.get('executable')}"]
    details += [f"torch found at: {c}" for c in torch.get("candidates") or []]
    message = f"{error.get('type')}: {error.get('message')}"
    gpus = nvml.gpus_in(nv)
    unknown = not error  # facts that say torch did not import, not why (collect_env's "PyTorch version: N/A")
    if unknown or (error.get("type") == "ModuleNotFoundError" and not torch.get("candidates")):
        where = (
            "Install torch into this environment (or reinstall it)."
            if unknown
            else f"Install torch into this environment ({torch.get('executable')})."
        )
        fix = (
            build_fit.install_fix(torch, nv, driver, gpus, where)
            if _driver_present(nv, driver)
            else Fix(
                f"{where} Without an NVIDIA driver here, the CPU build is the one that runs.",
                ("pip install torch --index-url https://download.pytorch.org/whl/cpu",),
            )
        )
        if unknown:
            return Finding(Status.FAIL, "torch does not import here (the facts do not say why)", (), fix)
        return Finding(
            Status.FAIL, f"torch is not installed in {torch.get('executable')}", tuple(details), fix
        )
    details.append(message)
    details += [line for line in str(error.get("traceback") or "").splitlines()[-6:] if line.strip()]
    dist = torch.get("distribution") or {}
    pinned = f"torch=={dist['version'].split('+')[0]}" if dist.get("version") else "torch"
    hint = _import_error_hint(str(error.get("message") or ""))
    return Finding(
        Status.FAIL,
        f"torch is installed but fails to import: {message}"[:300],
        tuple(details),
        Fix(
            f"{hint} Reinstall torch in this environment.",
            (f"pip install --force-reinstall --no-deps {pinned}",),
        ),
    )


def _import_error_hint(message: str) -> str:
    if "undefined symbol" in message:
        return (
            "A shared library torch loads does not match it (often an nvidia-* wheel or a library on "
            "LD_LIBRARY_PATH from another CUDA version)."
        )
    if re.search(r"lib\w+\.so", message):
        return (
            "A shared library torch needs cannot be loaded: check LD_LIBRARY_PATH and the nvidia-* wheels "
            "installed with torch."
        )
    if "_C" in message:
        return (
            "torch's C extension did not load: this happens when Python imports a torch source checkout "
            "(run from outside the PyTorch repository) or a partially installed wheel."
        )
    return "The installed torch is broken."


def _shadowing(torch: Mapping[str, Any]) -> list[Finding]:
    imported = torch.get("file")
    installed = (torch.get("distribution") or {}).get("location")
    findings = []
    if installed and imported and installed != imported:
        findings.append(
            Finding(
                Status.WARN,
                f"torch is imported from {imported}, not from the installed {installed}",
                (f"installed torch {torch['distribution'].get('version')} at {installed}",),
                Fix(
                    "Another torch earlier on the import path shadows the installed one: "
                    "remove that path from "
                    "PYTHONPATH (or rename the folder), or uninstall the copy you do not want."
                ),
            )
        )
    others = [c for c in torch.get("candidates") or [] if c not in (imported, installed)]
    for other in others:
        findings.append(
            Finding(
                Status.WARN,
                f"another torch at {other} shadows the installed one for scripts run from its folder",
                (f"imported here: {imported}",),
                Fix(
                    "Rename or remove that torch folder (a PyTorch source checkout, or a stray torch.py), "
                    "or run "
                    "your scripts from another directory."
                ),
            )
        )
    return findings


_NOT_NVIDIA_BUILDS = {"cpu": ("CPU-only", None), "rocm": ("ROCm", "AMD"), "xpu": ("Intel XPU", "Intel")}


def _build_without_nvidia(
    torch: Mapping[str, Any],
    nv: Mapping[str, Any],
    driver: Mapping[str, Any],
    gpus: Sequence[Mapping[str, Any]],
) -> list[Finding]:
    """A build that cannot use the NVIDIA GPUs here: the CPU-only one ("Torch not compiled with CUDA
    enabled"), or a ROCm or XPU build, unless torch sees a GPU of its own vendor too (an AMD GPU beside an
    NVIDIA one: the build is the machine's choice)."""
    flavor = str(torch.get("flavor"))
    build, vendor = _NOT_NVIDIA_BUILDS[flavor]
    if not _driver_present(nv, driver) or (vendor and torch.get("cuda_available")):
        return []
    names = sorted({str(g.get("name")) for g in gpus}) or ["an NVIDIA GPU"]
    shown = nv.get("driver_version") or driver.get("proc_driver_version") or "(version not known)"
    present = f"NVIDIA driver present: {shown}"
    if vendor is None:
        summary = f"CPU-only {_torch_named(torch)} on a machine with {', '.join(names)}: "
        summary += "'Torch not compiled with CUDA enabled'"
        details: tuple[str, ...] = (present,)
        reason = "This torch cannot use the GPUs."
    else:
        summary = f"{build} build of {_torch_named(torch)} on a machine with {', '.join(names)}: "
        summary += f"it runs on {vendor} GPUs only"
        seen = (
            f"torch.cuda.is_available() is False: torch sees no {vendor} GPU"
            if "cuda_available" in torch
            else f"no {vendor} GPU is known from these facts"
        )
        details = (seen, present)
        reason = f"This {build} build cannot use NVIDIA GPUs."
    return [Finding(Status.FAIL, summary, details, build_fit.install_fix(torch, nv, driver, gpus, reason))]


def _cuda_build(
    torch: Mapping[str, Any],
    nv: Mapping[str, Any],
    driver: Mapping[str, Any],
    gpus: Sequence[Mapping[str, Any]],
) -> list[Finding]:
    if not _driver_present(nv, driver):
        return []
    findings: list[Finding] = []
    compat = cuda_compat.driver_compat(
        torch.get("cuda"), install_plan.driver_cuda(nv, driver), nv.get("driver_version"), driver_os(torch)
    )
    needed = compat.required_driver
    update = f"{needed} or later" if needed else cuda_compat.unknown_minimum(torch.get("cuda"))
    ended = install_plan.driver_ended(install_plan.ccs(gpus), needed)
    if compat.status == "too_old":
        alternative = install_plan.plan(torch, nv, driver, gpus, "")
        runs = alternative.runs_here and alternative.commands
        if ended and not runs and ended in alternative.text:  # the plan already says why no driver helps
            fix_text = alternative.text
        elif ended:  # the GPU takes no newer driver: only another build can help
            fix_text = f"{ended[0].upper()}{ended[1:]}: install a torch build for the CUDA this driver runs"
            fix_text += ":" if runs else f". {alternative.text}"
        else:
            fix_text = f"Update the NVIDIA driver to {update}"
            fix_text += ", or install a torch build for the CUDA this driver runs:" if runs else "."
        findings.append(
            Finding(
                Status.FAIL,
                f"the NVIDIA driver is too old for this CUDA {torch.get('cuda')} build of torch",
                (compat.message, *_torch_warnings(torch)),
                Fix(fix_text, alternative.commands if runs else ()),
            )
        )
    elif compat.status == "minor_compat":
        advice = (
            f"{ended[0].upper()}{ended[1:]}: minor-version compatibility is the most this GPU gets; a torch "
            "build for the CUDA its driver supports avoids its limits."
            if ended
            else f"Update the NVIDIA driver to {update} for full support."
        )
        findings.append(
            Finding(
                Status.WARN,
                f"driver {nv.get('driver_version')} runs this CUDA {torch.get('cuda')} build only through "
                "minor-version compatibility",
                (compat.message,),
                Fix(advice),
            )
        )
    for gpu in gpus:
        findings += build_fit.arch_findings(torch, nv, driver, gpus, gpu)
    if compat.status != "too_old":  # a too-old driver already explains why torch cannot use the GPUs
        findings += _torch_cannot_see(torch, driver)
    return findings


def _torch_warnings(torch: Mapping[str, Any]) -> list[str]:
    """What torch itself said while initializing CUDA, one line each."""
    said = [*(torch.get("cuda_warnings") or []), *([torch["cuda_error"]] if torch.get("cuda_error") else [])]
    return [" ".join(str(text).split()) for text in said]


def _torch_cannot_see(torch: Mapping[str, Any], driver: Mapping[str, Any]) -> list[Finding]:
    exposed = driver.get("device_count") or 0
    if torch.get("cuda_available") or exposed == 0:
        return []
    warnings = _torch_warnings(torch)
    return [
        Finding(
            Status.FAIL,
            f"the CUDA driver exposes {exposed} GPU(s) but torch.cuda.is_available() is False",
            tuple(warnings) or ("torch gave no reason",),
            Fix(
                "torch failed to initialize CUDA: the warning above names the cause "
                "(driver/library mismatch, "
                "a reboot pending after a driver update, or CUDA libraries shadowed through LD_LIBRARY_PATH)."
            ),
        )
    ]


def _amd_gpu_only(
    torch: Mapping[str, Any],
    nv: Mapping[str, Any],
    driver: Mapping[str, Any],
    gpus: Sequence[Mapping[str, Any]],
    bus: Any,
) -> list[Finding]:
    """A CUDA build where the PCI bus lists an AMD GPU and no NVIDIA one: torch runs on the CPU, and only a
    ROCm build uses that GPU. A warning, not a failure: by its PCI ids an integrated Radeon (which ROCm mostly
    does not support) looks like a discrete one."""
    vendors = pci.vendors(bus)
    if "amd" not in vendors or "nvidia" in vendors or gpus or _driver_present(nv, driver):
        return []
    ids = sorted(
        {f"{d.get('vendor_id')}:{d.get('device_id')}" for d in bus["devices"] if d.get("vendor") == "amd"}
    )
    summary = f"CUDA build of {_torch_named(torch)} on a machine whose GPU is AMD: torch runs on the CPU"
    details = (f"PCI: AMD GPU {', '.join(ids)}, no NVIDIA GPU", "a CUDA build cannot use an AMD GPU")
    return [Finding(Status.WARN, summary, details, _rocm_fix(torch))]


def _rocm_fix(torch: Mapping[str, Any]) -> Fix:
    """The ROCm build of the installed release, from the release matrix's ROCm column."""
    system = str((torch.get("os") or {}).get("system") or "").lower()
    if system.startswith("win"):
        return Fix(
            "If this AMD GPU is one ROCm supports, use a ROCm build of torch: PyTorch publishes them for "
            "Linux only (on Windows: AMD's own ROCm wheels, or WSL)."
        )
    line = release_line(str(torch.get("version") or ""))
    cell = releases.cell(line, "rocm_cell") if line else None
    found = re.fullmatch(r"ROCm (\d+(?:\.\d+)+)", cell or "")
    if found is None:
        return Fix(
            "If this AMD GPU is one ROCm supports, install a ROCm build of torch (pytorch.org lists them)."
        )
    version = str(torch.get("version")).partition("+")[0]
    index = f"https://download.pytorch.org/whl/rocm{found[1]}"
    return Fix(
        f"If this AMD GPU is one ROCm supports, install the ROCm {found[1]} build of torch {version} (the "
        f"release matrix's ROCm for {line}).",
        (f'pip install "torch=={version}" --index-url {index}',),
    )


def _mps(torch: Mapping[str, Any]) -> list[Finding]:
    """MPS built but not available, and why; from a collect_env dump, which does not say whether MPS is
    available, only whether this Mac's macOS is older than the release needs for it."""
    mps = torch.get("mps") or {}
    if not mps.get("built") or mps.get("available"):
        return []
    line = release_line(torch.get("version"))
    macos = cuda_compat.parse_version(mps.get("macos_version"))
    floor = _mps_floor(line)
    too_old = macos is not None and floor is not None and macos[:2] < floor[1][:2]
    if "available" not in mps:
        return _mps_platform_minimum(line, mps, floor[0]) if too_old and floor is not None else []
    reasons = []
    if too_old and floor is not None:
        reasons.append(
            f"macOS {mps.get('macos_version')} is older than {floor[0]['version']}, which torch {line} needs "
            f"for MPS (source: {floor[0]['source']})"
        )
    elif macos is not None and floor is None and builds.newer_than_tables(torch.get("version")):
        reasons.append(f"this torchdoctor does not know torch {line} yet, so not which macOS its MPS needs")
    if mps.get("rosetta"):
        reasons.append("Python runs under Rosetta (x86_64 on Apple silicon): install an arm64 Python")
    if not reasons:
        reasons.append("no Metal device this process may use (a VM, or a sandboxed or headless session)")
    fix = Fix(
        f"Run on Apple silicon with macOS {floor[0]['version'] if floor else '14'} or newer, a "
        "native arm64 Python, outside sandboxes and VMs."
    )
    if too_old and floor is not None and macos is not None:  # as a dump's macOS gets it
        fix = _macos_fix(str(floor[0]["version"]), str(mps.get("macos_version")), macos)
    return [
        Finding(
            Status.WARN,
            "torch is built with MPS but MPS is not available: " + reasons[0],
            tuple(reasons[1:]),
            fix,
        )
    ]


def _mps_lines(torch: Mapping[str, Any], mps: Mapping[str, Any]) -> list[str]:
    """The macOS against the release's MPS minimum, and what an operator MPS lacks does (a live probe's
    ``fallback``: the value of PYTORCH_ENABLE_MPS_FALLBACK, None when unset)."""
    lines = []
    line = release_line(torch.get("version"))
    floor = _mps_floor(line)
    if mps.get("macos_version") and floor is not None:
        lines.append(
            f"macOS {mps['macos_version']}; torch {line}'s MPS needs macOS {floor[0]['version']} or newer "
            f"(source: {floor[0]['source']})"
        )
    if "fallback" in mps:
        value = mps.get("fallback")
        number = _stoi(value)
        raises = ": an operator MPS lacks raises NotImplementedError (1 runs such operators on the CPU)"
        if number:
            lines.append(
                f"PYTORCH_ENABLE_MPS_FALLBACK={value}: an operator MPS lacks runs on the CPU, slower"
            )
        elif value is None:
            lines.append("PYTORCH_ENABLE_MPS_FALLBACK unset" + raises)
        elif number == 0:
            lines.append(f"PYTORCH_ENABLE_MPS_FALLBACK is {value!r}, which torch reads as 0" + raises)
        else:
            lines.append(
                f"PYTORCH_ENABLE_MPS_FALLBACK is {value!r}, not a number: torch reads it with std::stoi, "
                "which throws on it (set it to 1 or unset it)"
            )
    return lines


def _stoi(value: str | None) -> int | None:
    """The value as torch reads PYTORCH_ENABLE_MPS_FALLBACK (aten/src/ATen/mps/MPSFallback.mm: unset or
    ``std::stoi(value) == 0`` raises for an operator MPS lacks, any other number runs it on the CPU):
    std::stoi's leading whitespace, sign and digits; None where it finds no digits (it throws)."""
    found = re.match(r"[ \t\n\v\f\r]*([+-]?[0-9]+)", value or "")
    return int(found[1]) if found else None


def _mps_floor(line: str | None) -> tuple[Mapping[str, Any], tuple[int, ...]] | None:
    """The macOS a release line's MPS needs: its table row and that version parsed; None where not known."""
    fact = builds.line_fact(line, "mps_macos_min")
    needed = cuda_compat.parse_version(str(fact["version"])) if fact else None
    return (fact, needed) if fact is not None and needed is not None else None


def _mps_platform_minimum(
    line: str | None, mps: Mapping[str, Any], floor: Mapping[str, Any]
) -> list[Finding]:
    current = str(mps.get("macos_version"))
    return [
        Finding(
            Status.WARN,
            f"torch {line} uses MPS only on macOS {floor['version']} or newer; this Mac runs macOS "
            f"{current}: torch.backends.mps.is_available() is False there",
            (f"source: {floor['source']}",),
            _macos_fix(str(floor["version"]), current, cuda_compat.parse_version(current) or ()),
        )
    ]


def _macos_fix(floor: str, current: str, macos: tuple[int, ...]) -> Fix:
    older = _newest_release_for_macos(macos)
    if older is None:
        return Fix(f"Update to macOS {floor} or newer.")
    return Fix(
        f"Update to macOS {floor} or newer, or install torch {older}, the newest release whose MPS runs on "
        f"macOS {current}.",
        (f'pip install "torch=={older}"',),
    )


def _newest_release_for_macos(macos: tuple[int, ...]) -> str | None:
    """The newest release whose MPS macOS minimum this macOS meets (the tables' lines, newest first)."""
    for line in reversed(builds.known_lines()):
        floor = _mps_floor(line)
        if floor is not None and macos[:2] >= floor[1][:2]:
            return builds.newest_release(line)
    return None
