"""Check ``torch.build``: is the installed torch the right build for this machine? (:mod:`build_judge`)"""

from torchdoctor.checks import probes
from torchdoctor.plugin import Check, judge_at

CHECK = Check(
    id="torch.build",
    title="PyTorch build",
    probes=(probes.TORCH, probes.NVML, probes.CUDA_DRIVER),
    judge=judge_at("torchdoctor.checks.install.build_judge:judge"),
    order=10,
    description="torch importable and from where; CUDA/ROCm/MPS/CPU build; driver and GPU architecture fit.",
)
