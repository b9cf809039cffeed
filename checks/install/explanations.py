"""Error messages of a torch build that does not fit the machine: CPU-only wheels, drivers, kernels, NCCL.

Registered in the entry-point group ``torchdoctor.explanations``; quoted from where torch raises them, and
the research notes (research/memory_bandwidth.md 1.6, research/ddp_dryrun.md 3, research/cuda_semantics.md).
"""

from __future__ import annotations

import re

from torchdoctor.checks.install import cuda_compat
from torchdoctor.explain import Analysis, Entry
from torchdoctor.model import Fix


def analyse_driver_too_old(text: str) -> Analysis:
    match = re.search(r"found version (\d+)", text)
    if match is None:
        return Analysis()
    found = int(match[1])
    version = cuda_compat.decode_cuda_int(found)
    if version is None:
        return Analysis()
    supported = cuda_compat.format_cuda(version)
    evidence = (
        f"found version {found}: this driver supports CUDA up to {supported} (not a driver release number)",
    )
    # Builds this driver runs fully (minor-version compatibility needs the driver release, which the message
    # does not give), newest first.
    fits = [
        f for f in sorted(cuda_compat.RELEASE_CUDA_ARCHES, key=_pair, reverse=True) if _pair(f) <= version
    ]
    if not fits:
        return Analysis(
            evidence=evidence,
            fix=Fix(
                f"Update the NVIDIA driver: no current torch build targets CUDA {supported} or older "
                "(torchdoctor check --only torch.build names the driver each build needs)."
            ),
        )
    return Analysis(
        evidence=evidence,
        fix=Fix(
            f"Update the NVIDIA driver, or install the torch build for CUDA {fits[0]}, which this driver "
            "runs.",
            (f"pip install torch --index-url {cuda_compat.wheel_index_url(fits[0])}",),
        ),
    )


def _pair(flavor: str) -> tuple[int, int]:
    major, minor = flavor.split(".")[:2]
    return int(major), int(minor)


def analyse_no_kernel(text: str) -> Analysis:
    match = re.search(
        r"CUDA capability (sm_\d+) is not compatible[^\n]*\n?[^\n]*supports CUDA capabilities ([^\n.]*)", text
    )
    if match is None:
        return Analysis()
    return Analysis(
        evidence=(f"the GPU is {match[1]}; the installed torch has kernels for {match[2].strip()}",)
    )


ENTRIES: tuple[Entry, ...] = (
    Entry(
        id="torch.not_compiled_with_cuda",
        title="Torch not compiled with CUDA enabled",
        patterns=(
            r"Torch not compiled with CUDA enabled",
            r"module 'torch\._C' has no attribute '_cuda_\w+'",
        ),
        cause="The installed torch is a CPU-only build: it has no CUDA code, whatever GPUs and driver the "
        "machine has.",
        fix=Fix(
            "Install a CUDA build of torch that fits this machine's driver and GPUs, in the same environment "
            "(torchdoctor check --only torch.build prints the exact pip command)."
        ),
        check="torch.build",
        source="torch/cuda/__init__.py _lazy_init (research/cuda_semantics.md 7); research/ddp_dryrun.md F13",
    ),
    Entry(
        id="cuda.no_kernel_image",
        title="No kernel image for this GPU",
        patterns=(
            r"no kernel image is available for execution on the device",
            r"CUDA capability sm_\d+ is not compatible with the current PyTorch installation",
            r"cudaErrorNoKernelImageForDevice",
        ),
        cause="The installed torch has no kernels for this GPU's compute capability (a new GPU with an older "
        "CUDA build, such as an RTX 50xx with a cu126 wheel, or an old GPU dropped from the arch list).",
        fix=Fix(
            "Install a torch build whose arch list covers this GPU (torchdoctor check --only torch.build "
            "names the build and prints the pip command)."
        ),
        check="torch.build",
        source="research/cuda_semantics.md 5.2 (cudaErrorNoKernelImageForDevice = 209; _check_cubins)",
        analyse=analyse_no_kernel,
    ),
    Entry(
        id="cuda.driver_too_old",
        title="NVIDIA driver too old for this torch",
        patterns=(
            r"driver on your system is too old",
            r"CUDA driver version is insufficient for CUDA runtime version",
        ),
        cause="The torch build needs a newer CUDA than the installed driver supports. The 'found version' is "
        "the CUDA version the driver supports (12020 = CUDA 12.2), not the driver release.",
        fix=Fix(
            "Update the NVIDIA driver, or install a torch build for a CUDA version this driver supports "
            "(torchdoctor check --only torch.build prints the command)."
        ),
        check="torch.build",
        source="c10/cuda/CUDAFunctions.cpp device_count_impl (research/cuda_semantics.md 4)",
        analyse=analyse_driver_too_old,
    ),
    Entry(
        id="cuda.no_driver",
        title="No NVIDIA driver found",
        patterns=(r"Found no NVIDIA driver on your system",),
        cause="torch has CUDA but no NVIDIA driver is loaded: no GPU, a container started without GPU "
        "access, or a driver that is not installed.",
        fix=Fix(
            "Install the NVIDIA driver; in a container, start it with GPU access (docker run --gpus all).",
            ("nvidia-smi",),
        ),
        check="torch.build",
        source="c10/cuda/CUDAFunctions.cpp (research/cuda_semantics.md 4)",
    ),
    Entry(
        id="nccl.not_built",
        title="This torch has no NCCL",
        patterns=(r"Distributed package doesn't have NCCL built in",),
        cause="The backend 'nccl' was requested from a torch without NCCL: a CPU-only build, or macOS or "
        "Windows.",
        fix=Fix("Use backend='gloo' here, or install a CUDA build of torch on Linux for NCCL."),
        check="torch.build",
        source="research/ddp_dryrun.md F13",
    ),
)
