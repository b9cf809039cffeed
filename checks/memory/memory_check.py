"""Check ``gpu.memory``: memory on the GPUs the job will use, and who else holds some
(:mod:`memory_judge`)."""

from torchdoctor.checks import probes
from torchdoctor.plugin import Check, Option, Probe, judge_at

DEFAULT_MIN_FREE_PCT = 10.0

CHECK = Check(
    id="gpu.memory",
    title="GPU memory",
    probes=(
        probes.ENV,
        probes.NVML,
        probes.CUDA_DRIVER,
        Probe("gpu_processes", "torchdoctor.checks.memory.gpu_processes_probe:probe"),
    ),
    judge=judge_at("torchdoctor.checks.memory.memory_judge:judge"),
    order=30,
    description="Total, used and free memory of the job's GPUs and MIG slices through NVML, and the "
    "other processes holding memory there.",
    options=(
        Option(
            "min_free_pct",
            "--min-free",
            "gpu.memory: warn below this share of free memory (%).",
            "float",
            default=DEFAULT_MIN_FREE_PCT,
            metavar="PCT",
            minimum=0,
            maximum=100,
            judged=True,
        ),
    ),
)
