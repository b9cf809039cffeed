"""Check ``gpu.fragmentation``: the caching allocator's configuration and how cut up its free memory is
(:mod:`fragmentation_judge`)."""

from torchdoctor.checks import probes
from torchdoctor.plugin import Check, Option, Probe, judge_at

CHECK = Check(
    id="gpu.fragmentation",
    title="GPU allocator fragmentation",
    probes=(
        probes.ENV,
        probes.NVML,
        Probe("allocator", "torchdoctor.checks.memory.allocator_probe:probe"),
    ),
    judge=judge_at("torchdoctor.checks.memory.fragmentation_judge:judge"),
    order=40,
    description="PYTORCH_CUDA_ALLOC_CONF / PYTORCH_ALLOC_CONF validated; free memory inside allocator "
    "segments and its largest block, from a snapshot or inside the job.",
    options=(
        Option(
            "memory_snapshot",
            "--memory-snapshot",
            "gpu.fragmentation: judge an allocator snapshot from torch.cuda.memory._dump_snapshot().",
            "file",
            metavar="FILE",
            validate="torchdoctor.checks.memory.allocator_probe:validate_snapshot",
        ),
    ),
)
