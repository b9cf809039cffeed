"""Check ``cuda.visible_devices``: which physical GPU is behind each cuda:N (:mod:`visible_devices_judge`)."""

from torchdoctor.checks import probes
from torchdoctor.plugin import Check, judge_at

CHECK = Check(
    id="cuda.visible_devices",
    title="CUDA_VISIBLE_DEVICES mapping",
    probes=(probes.ENV, probes.NVML, probes.CUDA_DRIVER),
    judge=judge_at("torchdoctor.checks.devices.visible_devices_judge:judge"),
    order=20,
    description="CUDA_VISIBLE_DEVICES parsed as CUDA does, and cuda:N -> physical GPU by UUID.",
)
