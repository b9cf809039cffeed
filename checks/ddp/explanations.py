"""Error messages of distributed training: NCCL, the c10d store, rendezvous, ports and forked CUDA.

Registered in the entry-point group ``torchdoctor.explanations``; quoted from where torch raises them, and
the research notes (research/memory_bandwidth.md 1.6, research/ddp_dryrun.md 3, research/cuda_semantics.md).
"""

from __future__ import annotations

import re

from torchdoctor.explain import Analysis, Entry
from torchdoctor.model import Fix


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


ENTRIES: tuple[Entry, ...] = (
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
)
