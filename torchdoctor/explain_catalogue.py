"""The messages ``torchdoctor explain`` knows: patterns, cause, fix and the check to run.

Message texts are quoted from torch 2.13's own source where it raises them, and otherwise from the research
notes (research/memory_bandwidth.md 1.6 for the OOM variants, research/ddp_dryrun.md 3 for distributed
failures, research/cuda_semantics.md for driver, kernel-image and device-ordinal messages), which name the
threads they come from.
"""

from __future__ import annotations

import re

from torchdoctor.checks.install import cuda_compat
from torchdoctor.explain import Analysis, Entry
from torchdoctor.model import Fix

_SIZE = r"([\d.]+) ?([KMGTP]i?B|bytes)"
_UNITS = {"B": 1, "BYTES": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15}
_UNITS.update({"KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40, "PIB": 2**50})


def _bytes(number: str, unit: str) -> float:
    return float(number) * _UNITS[unit.upper()]


def _size(pattern: str, text: str) -> float | None:
    match = re.search(pattern.replace("SIZE", _SIZE), text, re.IGNORECASE)
    return None if match is None else _bytes(match[1], match[2])


def _gib(size: float) -> str:
    return f"{size / 2**30:.2f} GiB"


def analyse_oom(text: str) -> Analysis:
    """Sizes of a CUDA OOM message, classified as in research/memory_bandwidth.md 1.6.

    Reserved-but-unallocated at least as large as the request: the memory is there but in pieces
    (fragmentation). Free plus reserved-but-unallocated below the request: the GPU is really full.
    """
    requested = _size(r"Tried to allocate SIZE", text)
    free = _size(r"of which SIZE is free", text) or _size(r"SIZE free;", text)
    unallocated = _size(r"SIZE is reserved by PyTorch but unallocated", text)
    reserved = _size(r"SIZE reserved in total by PyTorch", text)
    allocated = _size(r"SIZE already allocated", text)
    if unallocated is None and reserved is not None and allocated is not None:
        unallocated = max(reserved - allocated, 0.0)  # the oldest message gives both totals instead
    others = re.findall(rf"Process (\d+) has {_SIZE} memory in use", text, re.IGNORECASE)
    evidence = []
    if requested is not None:
        evidence.append(f"tried to allocate {_gib(requested)}")
    if free is not None:
        evidence.append(f"free on the GPU: {_gib(free)}")
    if unallocated is not None:
        evidence.append(f"reserved by PyTorch but unallocated: {_gib(unallocated)}")
    if len(others) > 1:
        in_use = ", ".join(f"pid {pid}: {_gib(_bytes(n, u))}" for pid, n, u in others)
        evidence.append(f"{len(others)} processes hold memory on this GPU ({in_use})")
    variable = "PYTORCH_ALLOC_CONF" if "PYTORCH_ALLOC_CONF" in text else "PYTORCH_CUDA_ALLOC_CONF"
    if requested is not None and unallocated is not None and unallocated >= requested:
        return Analysis(
            evidence=(
                *evidence,
                "fragmentation: the cached free memory would fit the request, but not in one block",
            ),
            cause="The GPU ran out of memory while PyTorch's caching allocator held enough free memory for "
            "the request, split in blocks too small to serve it: the memory is fragmented.",
            check="gpu.fragmentation",
            fix=Fix(
                "Let the allocator grow segments instead of splitting them "
                f"({variable}=expandable_segments:True, set before the first CUDA call), or free cached "
                "blocks between phases with torch.cuda.empty_cache().",
                (f"export {variable}=expandable_segments:True",),
            ),
        )
    if (
        requested is not None
        and free is not None
        and unallocated is not None
        and free + unallocated < requested
    ):
        evidence.append("exhaustion: free memory plus the allocator's cache is less than the request")
    return Analysis(evidence=tuple(evidence))


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


def analyse_port(text: str) -> Analysis:
    match = re.search(r"port: (\d+)", text) or re.search(
        r":(\d{2,5})\b[^\n]*(?:errno: 98|in use)", text, re.IGNORECASE
    )
    if match is None:
        return Analysis()
    port = match[1]
    return Analysis(
        evidence=(f"port {port} is taken",),
        fix=Fix(
            f"Another process listens on port {port}: a previous run that did not exit, or a second job on "
            "this machine. Stop it, or give this job another MASTER_PORT (torchrun --master-port; "
            "--standalone picks a free one).",
            (f"ss -ltnp 'sport = :{port}'", "torchrun --standalone --nproc-per-node=NPROC train.py"),
        ),
    )


def analyse_duplicate_gpu(text: str) -> Analysis:
    match = re.search(r"rank (\d+) and rank (\d+) both on CUDA device ([0-9a-f]+)", text, re.IGNORECASE)
    if match is None:
        return Analysis()
    # NCCL prints the PCI bus id as one integer of its hex digits (busIdToInt64 in NCCL's src/misc/utils.cc);
    # int64ToBusId there turns it back into the domain, bus, device and function fields.
    code = int(match[3], 16)
    bus = f"{code >> 20:04x}:{(code >> 12) & 0xFF:02x}:{(code >> 4) & 0xFF:02x}.{code & 0xF:x}"
    return Analysis(evidence=(f"ranks {match[1]} and {match[2]} both use the GPU at PCI {bus}",))


def analyse_size_mismatch(text: str) -> Analysis:
    found = re.findall(
        r"size mismatch for (\S+): copying a param with shape torch\.Size\(\[([^\]]*)\]\) from checkpoint, "
        r"the shape in current model is torch\.Size\(\[([^\]]*)\]\)",
        text,
    )
    if not found:
        return Analysis()
    evidence = tuple(f"{name}: checkpoint [{saved}], model [{model}]" for name, saved, model in found[:8])
    names = ", ".join(repr(name) for name, _, _ in found[:8])
    return Analysis(
        evidence=evidence,
        fix=Fix(
            "Build the model with the configuration the checkpoint was trained with (number of classes, "
            "vocabulary or hidden size). To fine-tune with a new head instead, leave the mismatched tensors "
            f"out and load the rest: state = {{k: v for k, v in state.items() if k not in {{{names}}}}}; "
            "model.load_state_dict(state, strict=False)."
        ),
    )


def analyse_no_kernel(text: str) -> Analysis:
    match = re.search(
        r"CUDA capability (sm_\d+) is not compatible[^\n]*\n?[^\n]*supports CUDA capabilities ([^\n.]*)", text
    )
    if match is None:
        return Analysis()
    return Analysis(
        evidence=(f"the GPU is {match[1]}; the installed torch has kernels for {match[2].strip()}",)
    )


def analyse_devices(text: str) -> Analysis:
    match = (
        re.search(r"found at least two devices, (\S+?) and (\S+?)[!,]", text)
        or re.search(r"got (\w+) is on (\S+?), different from other tensors on (\S+?)[\s(,]", text)
        or re.search(r"Tensor on device (\S+) is not on the expected device (\S+?)!", text)
    )
    if match is None:
        return Analysis()
    if len(match.groups()) == 3:
        return Analysis(evidence=(f"{match[1]} is on {match[2]}, the other tensors on {match[3]}",))
    return Analysis(evidence=(f"devices involved: {match[1]} and {match[2]}",))


_AUDIT = (
    "torchdoctor.audit(model, *inputs) lists every tensor with its device, and what Module.to() does not move"
)

CATALOGUE: tuple[Entry, ...] = (
    Entry(
        id="tensors.different_devices",
        title="Tensors on different devices",
        patterns=(
            r"Expected all tensors to be on the same device",
            r"\bis on \S+, different from other tensors on ",
            r"Tensor on device \S+ is not on the expected device",
            r"Input type \(torch\.(?:cuda\.)?\w+\) and weight type \(torch\.(?:cuda\.)?\w+\) "
            r"should be the same",
        ),
        cause="An operation got tensors on different devices (a model on the GPU and a batch on the CPU, or "
        "a tensor that model.to(device) did not move because it is a plain attribute, not a parameter or "
        "buffer).",
        fix=Fix(
            "Move the model and every input to one device (model.to(device); batch = batch.to(device)); "
            f"register tensors the model keeps with self.register_buffer(). {_AUDIT}."
        ),
        source="ATen device checks; torch 2.13 testing/_internal/common_methods_invocations.py",
        analyse=analyse_devices,
    ),
    Entry(
        id="tensors.different_dtypes",
        title="Tensors of different dtypes",
        patterns=(
            r"mat1 and mat2 must have the same dtype",
            r"expected scalar type \w+ but found \w+",
            r"Input type \(\w+\) and bias type \(\w+\) should be the same",
        ),
        cause="An input's dtype differs from the parameters' (float64 data from NumPy into a float32 model, "
        "or half-precision weights with float32 inputs outside autocast).",
        fix=Fix(
            "Cast inputs to the parameters' dtype (x = x.to(next(model.parameters()).dtype)), or run the "
            f"forward pass under torch.autocast. {_AUDIT}."
        ),
        source="torch 2.13 CPU: nn.Linear(2, 2)(torch.zeros(1, 2, dtype=torch.float64))",
    ),
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
        id="cuda.invalid_device_ordinal",
        title="Invalid device ordinal",
        patterns=(r"invalid device ordinal", r"device_id cuda:\d+ is out of range"),
        cause="The code asked for cuda:N with N at or beyond the number of GPUs this process sees: "
        "LOCAL_RANK beyond the visible GPUs (--nproc-per-node larger than the GPU count, a narrower "
        "CUDA_VISIBLE_DEVICES), or the global RANK used where LOCAL_RANK belongs on a second node.",
        fix=Fix(
            "Use torch.cuda.set_device(int(os.environ['LOCAL_RANK'])), start at most as many ranks per node "
            "as visible GPUs, and check CUDA_VISIBLE_DEVICES.",
            ("nvidia-smi -L",),
        ),
        check="cuda.visible_devices",
        source="research/ddp_dryrun.md F9; research/cuda_semantics.md",
    ),
    Entry(
        id="cuda.out_of_memory",
        title="CUDA out of memory",
        patterns=(
            r"CUDA out of memory",
            r"OutOfMemoryError",
            r"Out of memory\. Tried to allocate",
            r"CUBLAS_STATUS_ALLOC_FAILED",
        ),
        cause="The GPU had no room for an allocation: the batch, the activations or the optimizer state are "
        "too large for it, or other processes hold part of its memory.",
        fix=Fix(
            "Lower the batch size (with gradient accumulation to keep the effective batch), use mixed "
            "precision and activation checkpointing, and make sure no other process holds this GPU.",
            ("nvidia-smi --query-compute-apps=pid,used_memory --format=csv",),
        ),
        check="gpu.memory",
        source="research/memory_bandwidth.md 1.6 (c10/cuda/CUDACachingAllocator.cpp, current and old)",
        analyse=analyse_oom,
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
        id="load.map_location",
        title="Loading GPU tensors where that GPU does not exist",
        patterns=(
            r"Attempting to deserialize object on a \w+ device but torch\.\w+\.is_available\(\) is False",
            r"Attempting to deserialize object on \w+ device \d+ but torch\.\w+\.device_count\(\) is \d+",
        ),
        cause="The checkpoint was saved from GPU tensors, and torch.load puts them back on the device they "
        "were saved from, which this machine or process does not have.",
        fix=Fix(
            "Map the tensors to a device that exists: torch.load(path, map_location='cpu') on a machine "
            "without a GPU, or map_location='cuda:0' (or f'cuda:{local_rank}') when it has fewer GPUs."
        ),
        check="torch.build",
        source="torch 2.13 torch/serialization.py _validate_device",
    ),
    Entry(
        id="load.size_mismatch",
        title="load_state_dict: size mismatch",
        patterns=(r"size mismatch for \S+: copying a param with shape",),
        cause="The checkpoint was saved from a model of a different shape: another number of classes, "
        "vocabulary size or width than the model it is loaded into.",
        fix=Fix(
            "Build the model with the checkpoint's configuration, or load only the matching tensors with "
            "strict=False."
        ),
        source="torch 2.13 torch/nn/modules/module.py _load_from_state_dict",
        analyse=analyse_size_mismatch,
    ),
    Entry(
        id="nccl.duplicate_gpu",
        title="NCCL: two ranks on one GPU",
        patterns=(r"Duplicate GPU detected",),
        cause="Two ranks of the job use the same GPU: no torch.cuda.set_device(local_rank) before the "
        "process group starts, a hard-coded cuda:0, every rank given the same CUDA_VISIBLE_DEVICES, or more "
        "ranks than GPUs.",
        fix=Fix(
            "Give each rank its own GPU: torch.cuda.set_device(local_rank) before init_process_group (or "
            "pass device_id=torch.device('cuda', local_rank)), and start at most one rank per GPU."
        ),
        check="ddp.dryrun",
        source="research/ddp_dryrun.md F10 (NCCL src/init.cc)",
        analyse=analyse_duplicate_gpu,
    ),
    Entry(
        id="dist.address_in_use",
        title="Address already in use (MASTER_PORT taken)",
        patterns=(r"EADDRINUSE", r"Address already in use", r"errno: 98\b"),
        cause="The rendezvous port (MASTER_PORT, 29500 by default) is already taken on this machine, so the "
        "store cannot listen; other ranks may even connect to the squatter and hang.",
        fix=Fix(
            "Stop the process that holds the port (often a previous run), or use another MASTER_PORT.",
            ("ss -ltnp 'sport = :29500'",),
        ),
        check="ddp.dryrun",
        source="research/ddp_dryrun.md F1",
        analyse=analyse_port,
    ),
    Entry(
        id="nccl.system_error",
        title="NCCL: unhandled system error",
        patterns=(r"unhandled system error", r"ncclSystemError"),
        cause="NCCL hit an error in a system call, most often the network: the wrong interface chosen "
        "(docker0, a VPN), a firewall, a container without host networking or with a small /dev/shm, or an "
        "InfiniBand problem.",
        fix=Fix(
            "Run again with NCCL_DEBUG=WARN to see the failing call, then pin the interface "
            "(NCCL_SOCKET_IFNAME=eth0), give containers --ipc=host or --shm-size, and try NCCL_IB_DISABLE=1 "
            "to tell InfiniBand problems apart.",
            ("NCCL_DEBUG=WARN NCCL_DEBUG_SUBSYS=INIT,NET torchrun ...",),
        ),
        check="ddp.dryrun",
        source="research/ddp_dryrun.md F12 (NCCL error 2 = ncclSystemError)",
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
    Entry(
        id="dist.rendezvous_timeout",
        title="Ranks never joined the rendezvous",
        patterns=(r"Timed out after \d+ seconds waiting for clients", r"RendezvousTimeoutError"),
        cause="Rank 0 waited for the others and they never arrived: a rank crashed or hung before "
        "init_process_group, or uses another MASTER_ADDR, MASTER_PORT or WORLD_SIZE.",
        fix=Fix(
            "Look at the first rank that failed (torchrun prints it as the root cause), and make "
            "MASTER_ADDR, MASTER_PORT and WORLD_SIZE the same for every rank."
        ),
        check="ddp.dryrun",
        source="research/ddp_dryrun.md F2",
    ),
    Entry(
        id="cuda.forked_subprocess",
        title="CUDA in a forked subprocess",
        patterns=(r"Cannot re-initialize CUDA in forked subprocess",),
        cause="The parent process had initialised CUDA, then forked (DataLoader workers, multiprocessing): "
        "CUDA cannot be used again in a forked child.",
        fix=Fix(
            "Use the spawn start method (multiprocessing.set_start_method('spawn') or "
            "DataLoader(multiprocessing_context='spawn')), and keep CUDA out of dataset code."
        ),
        source="research/ddp_dryrun.md F16",
    ),
    Entry(
        id="cuda.device_side_assert",
        title="CUDA device-side assert",
        patterns=(r"device-side assert triggered",),
        cause="A kernel's own check failed, most often an index out of range: a class label at or above the "
        "number of classes in a loss, or a token id beyond an embedding. CUDA reports it asynchronously, so "
        "the traceback may point at a later line.",
        fix=Fix(
            "Run once with CUDA_LAUNCH_BLOCKING=1 (or on the CPU) for the real line and a readable message, "
            "and check label and index ranges.",
            ("CUDA_LAUNCH_BLOCKING=1 python train.py",),
        ),
    ),
    Entry(
        id="transfer.pageable_non_blocking",
        title="non_blocking copies from pageable memory",
        patterns=(
            r"Memcpy HtoD \(Pageable -> Device\)",
            r"non_blocking=True[^\n]{0,80}(?:pageable|not pinned|unpinned|without pin)",
            r"(?:pageable|not pinned|unpinned)[^\n]{0,80}non_blocking",
        ),
        cause="A host-to-GPU copy from pageable memory is staged by the driver through a pinned buffer and "
        "waits for the host, so non_blocking=True does not overlap it with compute; only copies from pinned "
        "memory do.",
        fix=Fix(
            "Let the DataLoader pin batches on its own thread (DataLoader(..., pin_memory=True)) and copy "
            "with .to(device, non_blocking=True). Calling .pin_memory() yourself before each copy is slower "
            "than a plain copy (PyTorch's pin_memory/non_blocking tutorial)."
        ),
        check="transfer.pinned",
        source="research/memory_bandwidth.md 4 (pytorch/tutorials intermediate_source/pinmem_nonblock.py)",
    ),
    Entry(
        id="transfer.pin_memory_without_gpu",
        title="pin_memory without a GPU",
        patterns=(
            r"'pin_memory' argument is set as true but no accelerator is found",
            r"Cannot access accelerator device when none is available",
        ),
        cause="Pinned (page-locked) memory needs an accelerator, and this process sees none: a CPU-only "
        "torch, no driver, or CUDA_VISIBLE_DEVICES hiding every GPU.",
        fix=Fix("Set pin_memory=False on a machine without a GPU; otherwise find out why torch sees none."),
        check="cuda.visible_devices",
        source="torch 2.13 torch/utils/data/dataloader.py; torch.empty(2).pin_memory() on the CPU build",
    ),
    Entry(
        id="train.fp16_nan_loss",
        title="NaN or inf loss in half precision",
        patterns=(
            r"\bloss\b[^\n]{0,40}?[\s=:(]-?(?:nan|inf)\b",
            r"returned nan values in its \d+\w* output",
            r"Gradient overflow\.\s+Skipping step",
            r"OVERFLOW!.{0,80}Skipping step",
            r"loss scale overflow! Skipping step",
            r"(?:non-finite|NaN or Inf) (?:loss|found in)",
        ),
        cause="float16 overflows above 65504: large activations, logits or a loss computed in fp16 become "
        "inf, then NaN. A few skipped steps while a dynamic loss scale settles are normal; a scaler that "
        "keeps finding inf gradients, or a NaN loss, is not.",
        fix=Fix(
            "Use bfloat16 where the GPU supports it (Ampere and newer: torch.autocast('cuda', "
            "dtype=torch.bfloat16)); with fp16, use torch.autocast with torch.amp.GradScaler and compute the "
            "loss in float32. torch.autograd.set_detect_anomaly(True) names the first operation that made a "
            "NaN.",
            ('python -c "import torch; print(torch.cuda.is_bf16_supported())"',),
        ),
        source="torch.autograd anomaly mode ('returned nan values'); DeepSpeed and apex loss-scaler messages",
    ),
)
