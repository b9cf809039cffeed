"""Check ``ddp.dryrun``: start one process per local rank as torchrun would, and prove DDP works
(:mod:`dryrun_probe`, :mod:`dryrun_judge`)."""

from torchdoctor.plugin import Check, Option, Probe, judge_at

MAX_RANKS = 256

CHECK = Check(
    id="ddp.dryrun",
    title="DDP local-rank dry run",
    probes=(Probe("ddp.dryrun", "torchdoctor.checks.ddp.dryrun_probe:probe"),),
    judge=judge_at("torchdoctor.checks.ddp.dryrun_judge:judge"),
    order=60,
    description="One process per local rank with torchrun's environment: device binding, init, "
    "a verified all_reduce, a barrier and bus bandwidth.",
    options=(
        Option(
            "nproc",
            "--nproc",
            "ddp.dryrun: ranks to start (default: visible GPUs, 2 on CPU).",
            "int",
            metavar="N",
            minimum=1,
            maximum=MAX_RANKS,
            validate="torchdoctor.checks.ddp.dryrun_probe:validate_nproc",
        ),
        Option(
            "backend",
            "--backend",
            "ddp.dryrun: process group backend.",
            "choice",
            metavar="nccl|gloo",
            choices=("nccl", "gloo"),
        ),
    ),
)
