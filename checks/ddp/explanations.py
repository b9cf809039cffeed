"""Error messages of distributed training: NCCL, the c10d store, rendezvous, ports, the watchdog, shared
memory and forked CUDA.

Registered in the entry-point group ``torchdoctor.explanations``; quoted from where torch and NCCL raise
them, the research notes (research/ddp_dryrun.md 3, research/cuda_semantics.md), and the real texts of
tests/corpus/errors.
"""

from __future__ import annotations

import re

from torchdoctor.explain import Analysis, Entry
from torchdoctor.explain.model import last_match
from torchdoctor.model import Fix

# A CUDA failure NCCL reports from misc/shmutils.cc is its shared-memory segment failing (nccl.shm), not a
# CUDA error: lookbehinds, one per width of the line number, after the literal so that it leads the search.
_NOT_IN_SHMUTILS = "".join(
    rf"(?<!shmutils\.cc:{_digits} NCCL WARN Cuda failure)" for _digits in (r"\d" * n for n in range(1, 6))
)
# The port in the c10d messages: "port: 29500," (torch 2.4 and later) or "...:29500 (errno: 98 - ..." before.
_PORT = re.compile(r"\bport: (\d{1,5})\b|:(\d{1,5}) \(errno: 98\b")
_DUPLICATE = re.compile(r"rank (\d+) and rank (\d+) both on CUDA device ([0-9a-f]+)", re.IGNORECASE)
# NCCL's reason under "Last error:", on the same line or the next one behind the same log prefix ([rank7]:).
_LAST_ERROR = re.compile(r"^([^\n]{0,80}?)Last error:[ \t]*(?:\n\1)?[ \t]*([^\n]{3,200})", re.MULTILINE)
_WATCHDOG = re.compile(
    r"(?:\[Rank (\d+)\] )?Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=(\d+), "
    r"OpType=(\w+)(?:, NumelIn=(\d+), NumelOut=(\d+))?, Timeout\(ms\)=(\d+)\) ran for (\d+) milliseconds"
)
_BARRIER = re.compile(
    r"store based barrier[^\n]{0,80}?\(world_size=(\d+), worker_count=(\d+), timeout=([\d:]+)\)"
)
_CLIENTS = re.compile(r"Timed out after (\d+) seconds waiting for clients\. (\d+)/(\d+) clients joined")
_CONNECT = re.compile(
    r"client socket has timed out after (\d+)s while trying to connect to "
    r"(?:\(([^,)\s]{1,100}), (\d{1,5})\)|([^\s,]{1,100}))"
)


def analyse_port(text: str) -> Analysis:
    match = last_match(_PORT, text)
    if match is None:
        return Analysis()
    port = match[1] or match[2]
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
    match = last_match(_DUPLICATE, text)
    if match is None:
        return Analysis()
    # NCCL prints the PCI bus id as one integer of its hex digits (busIdToInt64 in NCCL's src/misc/utils.cc);
    # int64ToBusId there turns it back into the domain, bus, device and function fields.
    code = int(match[3], 16)
    bus = f"{code >> 20:04x}:{(code >> 12) & 0xFF:02x}:{(code >> 4) & 0xFF:02x}.{code & 0xF:x}"
    return Analysis(evidence=(f"ranks {match[1]} and {match[2]} both use the GPU at PCI {bus}",))


def analyse_nccl_last_error(text: str) -> Analysis:
    """NCCL's own reason, the line under 'Last error:' of the DistBackendError."""
    match = last_match(_LAST_ERROR, text)
    return Analysis(evidence=(f"NCCL's last error: {match[2].strip()}",)) if match else Analysis()


def analyse_nccl_system_error(text: str) -> Analysis:
    warning = last_match(re.compile(r"NCCL WARN (socket\w*: [^\n]{1,160})"), text)
    if warning is not None:
        return Analysis(evidence=(f"NCCL: {warning[1].strip()}",))
    return analyse_nccl_last_error(text)


def analyse_nccl_cuda_error(text: str) -> Analysis:
    failure = last_match(re.compile(r"Cuda failure (?:\d+ )?'([^'\n]{1,80})'", re.IGNORECASE), text)
    if failure is None:
        return analyse_nccl_last_error(text)
    evidence = (f"the CUDA call inside NCCL failed with '{failure[1]}'",)
    if failure[1].lower() != "out of memory":
        return Analysis(evidence=evidence)
    return Analysis(
        evidence=evidence,
        cause="NCCL could not allocate its buffers on the GPU: the GPU was out of memory when the "
        "communicator or a collective needed memory (NCCL allocates outside PyTorch's caching allocator).",
        fix=Fix(
            "Leave memory for NCCL: a smaller batch or model shard per GPU, or a lower memory fraction for "
            "the framework (vLLM's gpu_memory_utilization); NCCL_BUFFSIZE lowers NCCL's own buffers."
        ),
        check="gpu.memory",
    )


def analyse_watchdog(text: str) -> Analysis:
    """The timed-out collectives: which operation, how long, and whether the ranks disagree on it."""
    works = _WATCHDOG.findall(text)
    if not works:
        return Analysis(
            evidence=(
                "the watchdog's verdict only: the collective that failed or timed out is named in the "
                "first error of this rank's log, or in another rank's",
            )
        )
    rank, seq, op, numel, _, timeout, ran = works[-1]
    who = f"rank {rank}: " if rank else ""
    size = f" of {int(numel):,} elements" if numel else ""
    evidence = [
        f"{who}{op}{size} (collective #{seq}) timed out after {int(timeout) // 1000} s "
        f"(ran {int(ran) // 1000} s)"
    ]
    ops_by_seq: dict[str, set[tuple[str, str]]] = {}
    for _, work_seq, work_op, work_numel, _, _, _ in works:
        ops_by_seq.setdefault(work_seq, set()).add((work_op, work_numel))
    mixed = sorted(s for s, ops in ops_by_seq.items() if len(ops) > 1)
    if mixed:
        return _desynchronised(evidence, mixed[0], ops_by_seq[mixed[0]])
    if seq == "1":
        evidence.append("the very first collective never completed: the ranks never exchanged any data")
    return Analysis(evidence=tuple(evidence))


def _desynchronised(evidence: list[str], seq: str, ops: set[tuple[str, str]]) -> Analysis:
    calls = ", ".join(sorted(f"{op}({numel})" if numel else op for op, numel in ops))
    return Analysis(
        evidence=(*evidence, f"collective #{seq} differs between ranks: {calls}"),
        cause="The ranks called different collectives at the same point (or with different sizes): the "
        "code path differs between ranks (a rank-dependent branch, a different number of batches, a "
        "parameter without a gradient on some ranks), so each waits for a collective the others never "
        "start.",
        fix=Fix(
            "Make every rank run the same collectives in the same order with the same sizes; "
            "TORCH_DISTRIBUTED_DEBUG=DETAIL reports the mismatch at the first wrong call.",
            ("TORCH_DISTRIBUTED_DEBUG=DETAIL torchrun ...",),
        ),
    )


def analyse_rendezvous(text: str) -> Analysis:
    barrier = last_match(_BARRIER, text)
    if barrier is not None:
        return _barrier(int(barrier[1]), int(barrier[2]), barrier[3])
    clients = last_match(_CLIENTS, text)
    if clients is not None:
        missing = int(clients[3]) - int(clients[2])
        return Analysis(
            evidence=(
                f"{clients[2]} of {clients[3]} processes joined in {clients[1]} s; {missing} never came",
            )
        )
    connect = last_match(_CONNECT, text)
    if connect is not None:
        return Analysis(
            evidence=(
                f"no answer from the store at {connect[4] or f'{connect[2]}:{connect[3]}'} within "
                f"{connect[1]} s",
            ),
            cause="This rank could not reach the rendezvous store: the address or port is wrong, a firewall "
            "blocks it, or rank 0 (or the agent hosting the store) is not running.",
            fix=Fix(
                "Check MASTER_ADDR/--rdzv-endpoint and the port from this node, and open the port between "
                "the nodes.",
                ("nc -zv MASTER_ADDR MASTER_PORT",),
            ),
        )
    return Analysis()


def _barrier(world_size: int, workers: int, timeout: str) -> Analysis:
    evidence = f"world_size={world_size}, {workers} processes reached the barrier, timeout {timeout}"
    if workers > world_size:
        return Analysis(
            evidence=(evidence, "more processes than the world size: two jobs share one store"),
            cause="More processes checked in than the world size: two jobs (or an earlier run that did not "
            "exit) use the same MASTER_ADDR and MASTER_PORT, or WORLD_SIZE is smaller than the number of "
            "processes started.",
            fix=Fix(
                "Give each job its own MASTER_PORT (torchrun --master-port, or --standalone for one node), "
                "stop leftover processes, and make WORLD_SIZE match the processes started."
            ),
        )
    return Analysis(evidence=(evidence, f"{world_size - workers} rank(s) missing"))


def analyse_shm(text: str) -> Analysis:
    """NCCL's shared-memory transport, or the DataLoader's shared memory between worker processes."""
    if re.search(r"NCCL WARN|nccl-shm|/dev/shm/nccl", text):
        return Analysis(
            fix=Fix(
                "Give the container a larger /dev/shm (docker run --shm-size=16g, or --ipc=host; on "
                "Kubernetes an emptyDir with medium: Memory on /dev/shm), or turn NCCL's shared-memory "
                "transport off (NCCL_SHM_DISABLE=1, slower).",
                ("df -h /dev/shm",),
            ),
            check="ddp.dryrun",
        )
    if re.search(r"Too many open files", text, re.IGNORECASE) or "unable to open shared memory" in text:
        return Analysis(
            evidence=("every tensor a DataLoader worker sends is one shared-memory file",),
            fix=Fix(
                "Raise the open-files limit (ulimit -n 65536), or switch the sharing strategy with "
                "torch.multiprocessing.set_sharing_strategy('file_system'); check /dev/shm is not full.",
                ("ulimit -n", "df -h /dev/shm"),
            ),
        )
    return Analysis(
        fix=Fix(
            "Give the container a larger /dev/shm (docker run --shm-size=16g or --ipc=host), or lower the "
            "DataLoader's num_workers or batch size; num_workers=0 avoids shared memory altogether.",
            ("df -h /dev/shm",),
        )
    )


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
        patterns=(r"unhandled system error", r"ncclSystemError", r"NCCL WARN socket\w*: "),
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
        source="research/ddp_dryrun.md F12 (NCCL error 2 = ncclSystemError); NCCL src/misc/socket.cc",
        analyse=analyse_nccl_system_error,
    ),
    Entry(
        id="dist.rendezvous_timeout",
        title="Ranks never joined the rendezvous",
        patterns=(
            r"Timed out after \d+ seconds waiting for clients",
            r"RendezvousTimeoutError",
            r"Timed out initializing process group in store based barrier",
            r"Waiting in store based barrier to initialize process group",
            r"(?-i:Socket Timeout)",
            r"wait timeout after \d+ ?ms",
            r"Timeout waiting for key",
            r"RendezvousConnectionError",
            r"client socket has timed out after \d+s while trying to connect",
        ),
        cause="The ranks did not all meet at the rendezvous store in time: a rank crashed or hung before "
        "init_process_group, cannot reach MASTER_ADDR:MASTER_PORT, or uses another MASTER_ADDR, "
        "MASTER_PORT or WORLD_SIZE; later in a run, one rank stayed away from a store operation too long.",
        fix=Fix(
            "Look at the first rank that failed (torchrun prints it as the root cause), and make "
            "MASTER_ADDR, MASTER_PORT and WORLD_SIZE the same for every rank."
        ),
        check="ddp.dryrun",
        source="research/ddp_dryrun.md F2; torch/distributed/distributed_c10d.py _store_based_barrier; "
        "torch/csrc/distributed/c10d/TCPStore.cpp (Socket Timeout, wait timeout); "
        "tests/corpus/errors/*/dist.rendezvous_timeout.json",
        analyse=analyse_rendezvous,
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
        id="nccl.cuda_error",
        title="NCCL: unhandled CUDA error",
        patterns=(
            r"unhandled cuda error",
            r"ncclUnhandledCudaError",
            r"NCCL WARN Cuda failure" + _NOT_IN_SHMUTILS,
        ),
        cause="A CUDA call inside NCCL failed: the GPU ran out of memory for NCCL's buffers, an earlier CUDA "
        "error in the process, a driver or peer-to-peer problem between the GPUs, or a container without "
        "enough shared memory.",
        fix=Fix(
            "Run with NCCL_DEBUG=INFO to see the failing CUDA call; try NCCL_P2P_DISABLE=1 to tell "
            "peer-to-peer problems apart, and check the GPU memory and the driver.",
            ("NCCL_DEBUG=INFO torchrun ...",),
        ),
        check="ddp.dryrun",
        source="NCCL error 1 = ncclUnhandledCudaError (NCCL src/include/checks.h 'Cuda failure'); "
        "torch/csrc/distributed/c10d/NCCLUtils.hpp; tests/corpus/errors/*/nccl.cuda_error.json",
        analyse=analyse_nccl_cuda_error,
    ),
    Entry(
        id="nccl.shm",
        title="Shared memory (/dev/shm) exhausted",
        patterns=(
            r"Error while (?:creating|attaching to) shared memory segment",
            r"failed to extend /dev/shm/",
            r"NCCL WARN Call to posix_fallocate failed",
            r"unable to open shared memory object",
            r"killed by signal: Bus error",
            r"insufficient shared memory \(shm\)",
            r"out of shared memory",
        ),
        cause="Processes on this machine exchange data through shared memory (/dev/shm): NCCL between the "
        "GPUs of one node, DataLoader workers with the main process. It ran out: containers get 64 MB by "
        "default, or too many shared-memory files were open.",
        fix=Fix(
            "Give the container a larger /dev/shm (docker run --shm-size=16g, or --ipc=host), or use less "
            "of it (fewer DataLoader workers, NCCL_SHM_DISABLE=1 for NCCL).",
            ("df -h /dev/shm",),
        ),
        source="NCCL src/misc/shmutils.cc; torch/utils/data/_utils/signal_handling.py and dataloader.py "
        "(bus error in a worker); torch/lib/libshm; tests/corpus/errors/*/nccl.shm.json",
        analyse=analyse_shm,
    ),
    Entry(
        id="nccl.watchdog_timeout",
        title="NCCL watchdog: a collective timed out",
        patterns=(
            r"Watchdog caught collective operation timeout",
            r"Some NCCL operations have failed or timed out",
            r"NCCL watchdog thread terminated with exception",
        ),
        cause="A collective (all-reduce, broadcast, all-gather) did not finish within the process group's "
        "timeout, so the watchdog took the process down: a rank stopped participating (crashed, hung, or "
        "busy alone with evaluation or checkpointing), the ranks called different collectives, or the "
        "network between the nodes stalled.",
        fix=Fix(
            "Find the rank that was not in the collective (its own log, or the first error above this one); "
            "keep rank-0-only work short or raise the timeout (init_process_group(timeout=...)); "
            "TORCH_DISTRIBUTED_DEBUG=DETAIL catches mismatched collectives.",
            ("TORCH_DISTRIBUTED_DEBUG=DETAIL NCCL_DEBUG=WARN torchrun ...",),
        ),
        check="ddp.dryrun",
        source="torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp (checkTimeout, the watchdog); "
        "tests/corpus/errors/*/nccl.watchdog_timeout.json",
        analyse=analyse_watchdog,
    ),
)
