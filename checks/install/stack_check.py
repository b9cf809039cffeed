"""Check ``torch.stack``: the libraries torch actually loaded, and the companion packages built for it
(:mod:`stack_judge`)."""

from torchdoctor.checks import probes
from torchdoctor.plugin import Check, Probe, judge_at

CHECK = Check(
    id="torch.stack",
    title="torch and its libraries",
    probes=(
        probes.TORCH,
        Probe("loaded_libraries", "torchdoctor.checks.install.libraries_probe:probe"),
        Probe("companions", "torchdoctor.checks.install.companions_probe:probe"),
        Probe("companion_operators", "torchdoctor.checks.install.companions_probe:operators_probe"),
    ),
    judge=judge_at("torchdoctor.checks.install.stack_judge:judge"),
    order=15,
    description="The CUDA and OpenMP libraries torch mapped, and companion packages built for this torch.",
)
