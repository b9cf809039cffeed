"""Check ``transfer.pinned``: host-to-device and device-to-host throughput of every visible GPU
(:mod:`pinned_judge`)."""

from torchdoctor.plugin import Check, Option, Probe, judge_at

CHECK = Check(
    id="transfer.pinned",
    title="Pinned host<->GPU transfer",
    probes=(Probe("pinned_bandwidth", "torchdoctor.checks.transfer.bandwidth_probe:probe"),),
    judge=judge_at("torchdoctor.checks.transfer.pinned_judge:judge"),
    order=50,
    description="Pinned and pageable H2D/D2H throughput per GPU against the link NVML reports; "
    "downtrained links, pin_memory failures, NUMA placement.",
    options=(Option("quick", "--quick", "transfer.pinned: fewer, shorter copies.", "flag", default=False),),
)
