"""Error messages of distributed training: NCCL, the c10d store, rendezvous, ports, the watchdog, shared
memory and forked CUDA.

The entries are the data of explanations.toml beside this module (:mod:`torchdoctor.explain.catalogue_file`),
registered in the entry-point group ``torchdoctor.explanations``; quoted from where torch and NCCL raise
them, the research notes (research/ddp_dryrun.md 3, research/cuda_semantics.md), and the real texts of
tests/corpus/errors. This module holds their analysers.
"""

from __future__ import annotations

import re
import signal

from torchdoctor.checks.devices.explanations import ranks_against_gpus
from torchdoctor.explain import Analysis, Entry, catalogue_file
from torchdoctor.explain.model import last_match
from torchdoctor.inputs import nvidia_topo
from torchdoctor.model import Fix

# The port in the c10d messages: "port: 29500," (torch 2.4 and later) or "...:29500 (errno: 98 - ..." before.
_PORT = re.compile(r"\bport: (\d{1,5})\b|:(\d{1,5}) \(errno: 98\b")
_DUPLICATE = re.compile(r"rank (\d+) and rank (\d+) both on CUDA device ([0-9a-f]+)", re.IGNORECASE)
# NCCL's reason under "Last error:", on the same line or the next one behind the same log prefix ([rank7]:).
_LAST_ERROR = re.compile(r"^([^\n]{0,80}?)Last error:[ \t]*(?:\n\1)?[ \t]*([^\n]{3,200})", re.MULTILINE)
_WATCHDOG = re.compile(
    r"(?:(?:\[Rank (\d+)\] )?Watchdog caught collective operation timeout: )?WorkNCCL\(SeqNum=(\d+), "
    r"OpType=(\w+)(?:, NumelIn=(\d+), NumelOut=(\d+))?, Timeout\(ms\)=(\d+)\)\s{1,40}"
    r"ran for (\d+) ?milliseconds?"
)
# torch's warning that a barrier runs on a GPU it guessed: 1.9's "Rank 0 using best-guess GPU 0", 2.x's
# "[PG ID 0 PG GUID 0 Rank 0]  using GPU 0" (ProcessGroupNCCL::barrier)
_BARRIER_GUESS = re.compile(
    r"(?:\bRank (\d{1,5})\]? +)?using (?:best-guess )?GPU (\d{1,3}) to perform barrier as devices used by "
    r"this process are currently unknown"
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
    ranks = ranks_against_gpus(text)
    if ranks is not None and ranks.cause:
        return ranks
    match = last_match(_DUPLICATE, text)
    if match is None:
        return ranks or Analysis()
    # NCCL prints the PCI bus id as one integer of its hex digits (busIdToInt64 in NCCL's src/misc/utils.cc);
    # int64ToBusId there turns it back into the domain, bus, device and function fields.
    code = int(match[3], 16)
    bus = f"{code >> 20:04x}:{(code >> 12) & 0xFF:02x}:{(code >> 4) & 0xFF:02x}.{code & 0xF:x}"
    # The message's own words first (what a reader searches the log for), then what its number means.
    return Analysis(
        evidence=(
            f"rank {match[1]} and rank {match[2]} both on CUDA device {match[3]}",
            f"ranks {match[1]} and {match[2]} both use the GPU at PCI {bus}",
            *(ranks.evidence if ranks is not None else ()),
        )
    )


def analyse_nccl_invalid_usage(text: str) -> Analysis:
    """The ranks against the GPUs where the text gives both; NCCL's version. Where the text holds NCCL's own
    reason, "Duplicate GPU detected", that entry says it and this one declines."""
    if "Duplicate GPU detected" in text:
        return Analysis(declined=True)
    ranks = ranks_against_gpus(text)
    return _with_nccl_version(ranks if ranks is not None else Analysis(), text)


# ibverbs' completion status (infiniband/verbs.h enum ibv_wc_status: 12 is IBV_WC_RETRY_EXC_ERR).
_IB_COMPLETION = re.compile(
    r"NET/IB\w{0,3} ?: Got completion from peer \S{1,80} with (?:error|status=) ?(\d{1,3})"
)


def analyse_nccl_remote_error(text: str) -> Analysis:
    """NCCL's last error; an InfiniBand completion's status; NCCL's version."""
    analysis = analyse_nccl_last_error(text)
    completion = last_match(_IB_COMPLETION, text)
    if completion is not None and completion[1] == "12":
        analysis = analysis.with_evidence(
            "InfiniBand completion error 12 (IBV_WC_RETRY_EXC_ERR): the transport gave up retrying a send, a "
            "link, cable or switch problem, or a peer that went away"
        )
    return _with_nccl_version(analysis, text)


def analyse_nccl_internal_error(text: str) -> Analysis:
    """NCCL's last error; the transport settings the text makes; NCCL 2.18's names for network errors."""
    analysis = analyse_nccl_last_error(text)
    settings = {m[1]: m[2] for m in _SET.finditer(text[-500_000:])}
    if settings:
        listed = ", ".join(f"{name}={value}" for name, value in sorted(settings.items()))
        analysis = analysis.with_evidence(f"set in the text: {listed} (a transport forced or forbidden)")
    version = last_match(_NCCL_VERSION, text)
    if version is not None and version[1].startswith("2.18."):
        analysis = analysis.with_evidence(
            f"NCCL {version[1].partition('+')[0]}: NCCL 2.18 reports network errors as internal errors"
        )
    return _with_nccl_version(analysis, text)


# The end of torch's NCCL error ("unhandled system error, NCCL version 2.7.8"): ncclGetVersion, the version of
# the NCCL library torch loaded, with the CUDA it was built for in newer releases ("2.18.1+cuda12.1").
_NCCL_VERSION = re.compile(r"\bNCCL version (\d{1,2}\.\d{1,3}\.\d{1,3}(?:\+cuda\d{1,2}(?:\.\d{1,2})?)?)")


def _with_nccl_version(analysis: Analysis, text: str) -> Analysis:
    version = last_match(_NCCL_VERSION, text)
    if version is None:
        return analysis
    return analysis.with_evidence(f"NCCL version {version[1]}: the NCCL library this torch loaded")


def analyse_nccl_last_error(text: str) -> Analysis:
    """NCCL's own reason, the line under 'Last error:' of the DistBackendError."""
    match = last_match(_LAST_ERROR, text)
    return Analysis(evidence=(f"NCCL's last error: {match[2].strip()}",)) if match else Analysis()


def analyse_nccl_system_error(text: str) -> Analysis:
    return _with_nccl_version(_nccl_system_error(text), text)


def _nccl_system_error(text: str) -> Analysis:
    warning = last_match(re.compile(r"NCCL WARN (socket\w*: [^\n]{1,160})"), text)
    if warning is not None:
        return Analysis(evidence=(f"NCCL: {warning[1].strip()}",))
    return analyse_nccl_last_error(text)


def analyse_nccl_cuda_error(text: str) -> Analysis:
    return _with_nccl_version(_nccl_cuda_error(text), text)


def _nccl_cuda_error(text: str) -> Analysis:
    ranks = ranks_against_gpus(text)
    if ranks is not None and ranks.cause:
        return ranks
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


# The transports NCCL chose, one line per channel: "Channel 00 : 1[c2000] -> 0[c1000] via P2P/direct pointer"
_VIA = re.compile(
    r"Channel \d+(?:/\d+)? : \d+\[[0-9a-f]{1,16}\] -> \d+\[[0-9a-f]{1,16}\] via (P2P|SHM|NET)(/[\w/]{0,40})?"
)
_AFTER = re.compile(r"NCCL WARN|Error|error:|Exception|Traceback|timed out|Timeout")
_NO_P2P = re.compile(
    r"Could not enable P2P between dev \d+|P2P is disabled between connected GPUs \d+ and \d+"
)
_WORKED = re.compile(r"\b(?:works?|worked|working|workaround|fixe[sd]|solved?|runs)\b", re.IGNORECASE)
_SET = re.compile(
    r"\b(NCCL_(?:P2P_DISABLE|SHM_DISABLE|IB_DISABLE|P2P_LEVEL))\s*(?:=|set by environment to)\s*(\w{1,10})"
)


# PyTorch Lightning's line as each process enters its rendezvous.
_LIGHTNING_MEMBER = re.compile(r"initializing ddp: GLOBAL_RANK: (\d{1,6}), MEMBER: \d{1,6}/(\d{1,6})")
_LIGHTNING = re.compile(r"initializing ddp|pytorch_lightning|lightning\.pytorch|Lightning", re.IGNORECASE)


def _lightning_rendezvous(text: str) -> Analysis:
    """A hang at Lightning's "initializing ddp": its rendezvous waits for ranks that never come (or two
    processes took one rank) because of what Lightning reads from the environment, or the ranks all came
    and NCCL's first communication between the GPUs (peer to peer) hangs. Both are said, the one the
    members shown point at first."""
    members = [(int(m[1]), int(m[2])) for m in _LIGHTNING_MEMBER.finditer(text[-500_000:])]
    evidence = ["the job stops at Lightning's 'initializing ddp': its rendezvous and NCCL's first collective"]
    all_came = False
    if members:
        world = members[-1][1]
        ranks = [rank for rank, _ in members]
        shown = sorted(set(ranks))
        evidence.append(f"Lightning waits for {world} ranks; the text shows {len(shown)} of them")
        doubled = sorted({rank for rank in ranks if ranks.count(rank) > 1})
        if doubled:
            evidence.append(
                "GLOBAL_RANK " + ", ".join(map(str, doubled[:8])) + " is taken by more than one process: "
                "the nodes do not know their own NODE_RANK"
            )
        all_came = not doubled and len(shown) == world
    environment = (
        "Lightning reads the cluster from the environment, and a NODE_RANK, WORLD_SIZE, LOCAL_RANK or "
        "MASTER_ADDR left there (a cluster's login profile, an earlier export), or a SLURM job whose tasks "
        "per node do not match the GPUs, makes its rendezvous wait for processes nobody starts or gives two "
        "processes one rank"
    )
    p2p = (
        "the ranks all joined and the first collective hangs on peer-to-peer (P2P) traffic between the GPUs "
        "(ACS or the IOMMU on, a driver with a P2P bug)"
    )
    first, second = (p2p, environment) if all_came else (environment, p2p)
    env_fix = (
        "Look for NODE_RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR/MASTER_PORT and SLURM_* in the "
        "environment of the run and unset NODE_RANK (and the others) for a one-node run; on several nodes "
        "give each node its own NODE_RANK (under SLURM, --ntasks-per-node equal to its GPUs)."
    )
    p2p_fix = (
        "Run once with NCCL_P2P_DISABLE=1: if it then runs, P2P is broken on this machine (disable ACS or "
        "VT-d/IOMMU, or update the driver, rather than keeping P2P off)."
    )
    fixes = (p2p_fix, env_fix) if all_came else (env_fix, p2p_fix)
    return Analysis(
        evidence=tuple(evidence),
        cause=f"PyTorch Lightning's DDP stops before training, for one of two reasons, the first more likely "
        f"here: {first}; or {second}.",
        fix=Fix(
            " ".join(fixes),
            (
                "env | grep -E 'NODE_RANK|WORLD_SIZE|LOCAL_RANK|MASTER_ADDR|MASTER_PORT|SLURM'",
                "unset NODE_RANK",
                "NCCL_P2P_DISABLE=1 NCCL_DEBUG=INFO python train.py ...",
            ),
        ),
        check="ddp.dryrun",
    )


_PEER_ACCESS_ERROR = "peer access is not supported between these two devices"


def analyse_hang(text: str) -> Analysis:
    """A log that ends after Init COMPLETE: the transports NCCL chose between the GPUs, the topology of a
    pasted ``nvidia-smi topo -m``, and the NCCL variables the text sets; the documented tests in order. A
    hang at Lightning's "initializing ddp", before NCCL starts, is its rendezvous."""
    if "Init COMPLETE" not in text and "initializing ddp" in text.lower() and _LIGHTNING.search(text):
        return _lightning_rendezvous(text)
    if _PEER_ACCESS_ERROR in text[-200_000:]:
        # an error, no hang: NCCL_P2P_DISABLE=1 beside it is that error's fix (cuda.peer_access_unsupported)
        return Analysis(declined=True)
    guesses = _barrier_guesses(text)
    if _share_a_gpu(guesses):
        return Analysis(
            evidence=tuple(_guessed_lines(guesses)),
            cause="torch ran the ranks' barriers on GPUs it guessed, because no rank had said which GPU is "
            "its own, and two ranks got the same one. " + _UNBOUND_CAUSE,
            fix=Fix(_UNBOUND_FIX, ("NCCL_DEBUG=INFO torchrun ...",)),
        )
    analysis = _hang(text)
    return analysis.with_evidence(*_guessed_lines(guesses)) if guesses else analysis


def _hang(text: str) -> Analysis:
    complete = text.rfind("Init COMPLETE")
    tail = text[complete:] if complete >= 0 else ""
    if _AFTER.search(tail) is not None:
        return Analysis(
            evidence=(
                "the communicators were built; an error follows Init COMPLETE in the text: it is what "
                "stopped the job",
            )
        )
    evidence = (
        ["the log ends after Init COMPLETE with no error: the ranks wait inside the first collective"]
        if complete >= 0
        else []
    )
    transports = sorted({m[1] + (m[2] or "") for m in _VIA.finditer(text[-500_000:])})
    if transports:
        evidence.append(f"NCCL's transports between the GPUs of a node: {', '.join(transports[:4])}")
    refused = len(_NO_P2P.findall(text[-500_000:]))
    if refused:
        evidence.append(
            f"NCCL could not use P2P between {refused} pair(s) of GPUs and routes them through shared memory "
            "or the CPU ('Could not enable P2P' / 'P2P is disabled between connected GPUs')"
        )
    settings = {m[1]: m[2] for m in _SET.finditer(text[-500_000:])}
    if settings:
        evidence.append("set in the text: " + ", ".join(f"{k}={v}" for k, v in sorted(settings.items())))
    topology = nvidia_topo.find(text)
    p2p = any(t.startswith("P2P") for t in transports)
    if topology is not None and topology.describe():
        evidence.append(
            f"nvidia-smi topo -m: {topology.describe()} (GPUs behind a PCIe switch, where ACS redirects or "
            "blocks peer-to-peer traffic)"
        )
    switched = topology is not None and bool(topology.describe())
    # the text says NCCL_P2P_DISABLE=1 made it run: the documented test already answered
    answered = settings.get("NCCL_P2P_DISABLE") == "1" and _WORKED.search(text[-500_000:]) is not None
    if answered:
        evidence.append("the text says it runs with NCCL_P2P_DISABLE=1: P2P between the GPUs is what hangs")
    if answered or ((p2p or switched) and settings.get("NCCL_P2P_DISABLE") != "1"):
        return Analysis(
            evidence=tuple(evidence),
            cause="The GPUs talk peer to peer (P2P) and the first collective never completes: on machines "
            "with PCI Access Control Services (ACS) or the IOMMU (VT-d) on, P2P traffic between GPUs behind "
            "a PCIe switch is redirected through the root complex or dropped, and NCCL waits forever.",
            fix=Fix(
                "Run once with NCCL_P2P_DISABLE=1: if it then runs, P2P is broken on this machine; disable "
                "ACS on the PCIe switches (lspci -vvv | grep ACSCtl shows SrcValid+ where it is on) or "
                "VT-d/IOMMU in the BIOS, or boot with iommu=pt, or update the NVIDIA driver (some releases "
                "hang on P2P), rather than keeping P2P off (it costs bandwidth). NCCL's guide: "
                "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html"
                "#pci-access-control-services-acs",
                (
                    "sudo lspci -vvv | grep ACSCtl",
                    "NCCL_P2P_DISABLE=1 NCCL_DEBUG=INFO torchrun ...",
                    "cat /proc/cmdline",
                ),
            ),
        )
    return Analysis(evidence=tuple(evidence))


def analyse_watchdog(text: str) -> Analysis:
    """The timed-out collectives: which operation, how long, and whether the ranks disagree on it."""
    matches = list(_WATCHDOG.finditer(text))
    works = [match.groups() for match in matches]
    if not works:
        verdict = (
            "the watchdog's verdict only: the collective that failed or timed out is named in the "
            "first error of this rank's log, or in another rank's"
        )
        return _validating_alone([verdict], text) or Analysis(evidence=(verdict,))
    rank, seq, op, numel, _, timeout, ran = works[-1]
    who = f"rank {rank}: " if rank else ""
    size = f" of {int(numel):,} elements" if numel else ""
    last = matches[-1]
    quoted = " ".join(text[text.index("WorkNCCL(", last.start()) : last.end()].split())
    evidence = [
        f"{who}{op}{size} (collective #{seq}) timed out after {int(timeout) // 1000} s "
        f"(ran {int(ran) // 1000} s)",
        f'the work, as the message gives it: "{quoted}"',
    ]
    ops_by_seq: dict[str, set[tuple[str, str]]] = {}
    for _, work_seq, work_op, work_numel, _, _, _ in works:
        ops_by_seq.setdefault(work_seq, set()).add((work_op, work_numel))
    mixed = sorted(s for s, ops in ops_by_seq.items() if len(ops) > 1)
    if mixed:
        return _desynchronised(evidence, mixed[0], ops_by_seq[mixed[0]])
    if seq == "1":
        evidence.append("the very first collective never completed: the ranks never exchanged any data")
        return _first_collective(evidence, text)
    return _validating_alone(evidence, text) or Analysis(evidence=tuple(evidence))


# The writer's words for the phase a timeout came in, where one rank works alone while the others wait:
# validation or evaluation ("in the validation step", "mid-validation", "Evaluating", 评估 and 验证).
_ALONE_PHASE = re.compile(
    r"(?<![\w.])(validation|validating|evaluation|evaluating)\b|(评估|验证)", re.IGNORECASE
)


def _validating_alone(evidence: list[str], text: str) -> Analysis | None:
    """A timeout the text ties to validation: one rank validating while the others wait for it."""
    phase = last_match(_ALONE_PHASE, text[-200_000:])
    if phase is None:
        return None
    said = (phase[1] or phase[2]).lower()
    return Analysis(
        evidence=(*evidence, f"the text ties the timeout to {said}"),
        cause="One rank was busy with validation (or evaluation) while the others waited for it in a "
        "collective, longer than the process group's timeout: validation that runs on one rank alone (rank "
        "0, the main process) or on unevenly split data outlasts the timeout, and the watchdog ends the "
        "waiting ranks.",
        fix=Fix(
            "Raise the timeout above the validation's length: the process group's (init_process_group("
            "timeout=timedelta(hours=2)), accelerate's InitProcessGroupKwargs(timeout=...), the Trainer's "
            "ddp_timeout, or the script's own NCCL timeout option); or make the validation shorter (fewer "
            "samples, prompts or videos) or spread it over every rank (a DistributedSampler over the "
            "validation set, the results gathered after), the other ranks waiting at a dist.barrier() after "
            "it."
        ),
    )


_UNBOUND_CAUSE = (
    "NCCL runs a collective on the rank's current CUDA device, which is cuda:0 in every rank until it calls "
    "torch.cuda.set_device(local_rank): ranks that reach their first collective (a dist.barrier() most "
    "often) before binding their GPU all use GPU 0 and wait for each other forever."
)
_UNBOUND_FIX = (
    "Bind each rank to its GPU before its first collective: torch.cuda.set_device(local_rank) right after "
    "reading LOCAL_RANK, or init_process_group(..., device_id=torch.device('cuda', local_rank)), or "
    "dist.barrier(device_ids=[local_rank])."
)


def _barrier_guesses(text: str) -> list[tuple[str | None, str]]:
    """torch's warnings that a barrier ran on a GPU it guessed: (the rank, where said; the GPU), each once."""
    guesses: list[tuple[str | None, str]] = []
    for match in _BARRIER_GUESS.finditer(text[-500_000:]):
        guess = (match[1], match[2])
        if guess not in guesses:
            guesses.append(guess)
    return guesses


def _share_a_gpu(guesses: list[tuple[str | None, str]]) -> bool:
    """Whether two ranks the warnings name got the same GPU."""
    ranks_by_gpu: dict[str, set[str]] = {}
    for rank, gpu in guesses:
        if rank is not None:
            ranks_by_gpu.setdefault(gpu, set()).add(rank)
    return any(len(ranks) > 1 for ranks in ranks_by_gpu.values())


def _guessed_lines(guesses: list[tuple[str | None, str]]) -> list[str]:
    return [
        f"{f'rank {rank}: ' if rank is not None else ''}torch guessed GPU {gpu} for a barrier (the devices "
        "of the process were unknown): right only if it is the rank's own GPU"
        for rank, gpu in guesses
    ]


def _first_collective(evidence: list[str], text: str) -> Analysis:
    """The first collective timed out: the ranks may never have been bound to their GPUs."""
    return Analysis(
        evidence=(*evidence, *_guessed_lines(_barrier_guesses(text))),
        cause="The process group's first collective never finished, so the ranks never communicated at all. "
        + _UNBOUND_CAUSE
        + " Otherwise NCCL found no working path between the GPUs (peer-to-peer traffic that the machine "
        "drops, a network that does not reach the other node), or one rank never reached the collective.",
        fix=Fix(
            _UNBOUND_FIX
            + " If every rank has its own GPU, tell the paths apart: run once with NCCL_P2P_DISABLE=1 (and "
            "NCCL_IB_DISABLE=1 across nodes) with NCCL_DEBUG=INFO.",
            ("NCCL_DEBUG=INFO torchrun ...", "NCCL_P2P_DISABLE=1 NCCL_DEBUG=INFO torchrun ..."),
        ),
    )


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


_SEGMENT = re.compile(r"shared memory segment [^\s]{1,200} \(size (\d{1,15})\)|to (\d{1,15}) bytes, error")


# Shared memory at work in a text: /dev/shm, a DataLoader's worker or SemLock, torch's shared-memory files,
# NCCL. "No space left on device" without any of them is a full disk, not /dev/shm.
_SHM_AT_WORK = re.compile(
    r"/dev/sh[mn]\b|\bshm\b|shared[ _-]?memory|\bSemLock\b|</?torch_\d|_share_(?:fd|filename)_"
    r"|DataLoader worker|\bBus error\b|NCCL WARN",
    re.IGNORECASE,
)
_NO_SPACE = re.compile(r"No space left on device", re.IGNORECASE)
# The size of /dev/shm: df's row for it ("shm  64M  64M  0 100% /dev/shm"), or a writer's words ("the shared
# memory (/dev/shm) is set to 64 MB", "shm size of 64Mb").
_SHM_DF = re.compile(
    r"^(?:shm|tmpfs|none)[ \t]+(\d{1,6}(?:\.\d)?[KMGT])[ \t]+\S+[ \t]+\S+[ \t]+(\d{1,3})%[ \t]+/dev/shm\b",
    re.MULTILINE,
)
_SHM_SAID = re.compile(
    r"(?:shared memory|/dev/shm|\bshm\b)[^\n\d]{0,40}?\b(\d{1,6}\s?[MG]i?B)\b", re.IGNORECASE
)


def _shm_size(text: str) -> tuple[str, ...]:
    """The size of /dev/shm as the text gives it, as evidence."""
    df = last_match(_SHM_DF, text)
    if df is not None:
        return (f"df shows /dev/shm of {df[1]}, {df[2]}% used",)
    said = last_match(_SHM_SAID, text)
    return (f"the text gives /dev/shm of {said[1]}",) if said is not None else ()


def analyse_shm(text: str) -> Analysis:
    """NCCL's shared-memory transport, or the DataLoader's shared memory between worker processes; a full
    device that is not /dev/shm is declined."""
    if _NO_SPACE.search(text) is not None and _SHM_AT_WORK.search(text) is None:
        return Analysis(declined=True)
    analysis = _bare_bus_error() if _SHM.last_match(text) is None else _shm(text)
    return analysis.with_evidence(*_shm_size(text))


def _bare_bus_error() -> Analysis:
    """A process that died of SIGBUS with no message of torch's or NCCL's: read by the entry's symptoms."""
    cause = (
        "The process died of a bus error (SIGBUS), which prints no error of its own. In a PyTorch program it "
        "is most often shared memory running out: DataLoader workers, a background worker the program hands "
        "its results to, or share_memory() pass tensors through /dev/shm, and writing past what it can hold "
        "is a bus error, not an exception; a container gets 64 MB of it by default (Docker without "
        "--shm-size or --ipc=host). Less often a memory-mapped file (a checkpoint, a dataset) was truncated "
        "or replaced while the program read it."
    )
    fix = Fix(
        "Look at the size of /dev/shm (df -h /dev/shm) and give the container more: docker run "
        "--shm-size=8g or --ipc=host (shm_size in docker-compose; on Kubernetes an emptyDir with medium: "
        "Memory mounted at /dev/shm); num_workers=0 confirms it where DataLoader workers are the users. "
        "Where /dev/shm is large, look for a file the program maps (torch.load(mmap=True), safetensors, a "
        "NumPy memmap) being rewritten while it runs.",
        ("df -h /dev/shm",),
    )
    return Analysis(cause=cause, fix=fix)


def _shm(text: str) -> Analysis:
    if re.search(r"NCCL WARN|nccl-shm|/dev/shm/nccl", text):
        segment = last_match(_SEGMENT, text)
        size = (segment[1] or segment[2]) if segment is not None else None
        return Analysis(
            evidence=(
                (f"NCCL's shared-memory segment of {size} bytes did not fit in /dev/shm",) if size else ()
            ),
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
            "Give the container a larger /dev/shm (docker run --shm-size=16g or --ipc=host; on Kubernetes an "
            "emptyDir with medium: Memory mounted at /dev/shm), or lower the DataLoader's num_workers or "
            "batch size; num_workers=0 avoids shared memory altogether.",
            ("df -h /dev/shm",),
        )
    )


_SYNC_BN = re.compile(r"\bSync(?:hronized)?[ _-]?(?:BN|BatchNorm\w{0,2})\b", re.IGNORECASE)
_DDP_FRAME = re.compile(r"parallel[/\\]distributed\.py\", line \d+, in __init__|DistributedDataParallel\(")


def analyse_no_process_group(text: str) -> Analysis:
    """What asked for the process group, where the text shows it: SyncBatchNorm, or DDP's constructor."""
    evidence = []
    sync = last_match(_SYNC_BN, text)
    if sync is not None:
        evidence.append(
            f"the text names {sync[0]}: SyncBatchNorm needs a process group; on one GPU use BatchNorm"
        )
    if last_match(_DDP_FRAME, text) is not None:
        evidence.append("DistributedDataParallel was built in a process without a process group")
    return Analysis(evidence=tuple(evidence))


# Signs of one process per GPU (a launcher, ranks, DDP): without them, a job on several GPUs whose first one
# fills is nn.DataParallel's, one process that keeps the model on the first GPU and gathers there.
_PROCESS_PER_GPU = re.compile(
    r"torchrun|torch\.distributed\.launch|\blocal_rank\b|DistributedDataParallel|\bDDP\b|mpirun"
    r"|nproc_per_node|\branks?\b|init_process_group|accelerate launch|deepspeed|\bmpi|\bprocesses\b"
    r"|\b(?:each|every) process\b",
    re.IGNORECASE,
)
_OUT_OF_MEMORY = re.compile(r"out of memory|\bOOM\b|memory overflow", re.IGNORECASE)
_DATA_PARALLEL_CAUSE = (
    "The first GPU fills before the others under nn.DataParallel (one process driving several GPUs): it "
    "keeps the model's master copy, scatters each batch from it and gathers every replica's output (and "
    "the loss computed on them) back onto it, so it needs more memory than the others and runs out first "
    "at a batch size they could take. A process that touches cuda:0 before choosing its GPU adds to it "
    "the same way under DistributedDataParallel."
)
_DATA_PARALLEL_FIX = (
    "Lower the batch size until the first GPU fits, or balance the GPUs: compute the loss inside the "
    "model's forward so that only the losses are gathered (or gather to another output_device), and best "
    "move to DistributedDataParallel (torchrun --nproc_per_node=<GPUs>, one process per GPU, each holding "
    "only its own share), which PyTorch recommends over DataParallel. Free the first GPU of other "
    "processes (nvidia-smi). If the job runs one process per GPU (a launcher, MPI), give each its own GPU "
    "before any CUDA work instead: torch.cuda.set_device(local_rank), or a CUDA_VISIBLE_DEVICES of its own."
)


def analyse_first_gpu(text: str) -> Analysis:
    """Where the text shows one process per GPU, the entry's cause; else nn.DataParallel's gathering."""
    if last_match(_PROCESS_PER_GPU, text) is not None:
        return Analysis()
    evidence: tuple[str, ...] = ()
    if last_match(_OUT_OF_MEMORY, text) is not None:
        evidence = ("the first GPU runs out of memory while the others have room",)
    return Analysis(evidence=evidence, cause=_DATA_PARALLEL_CAUSE, fix=Fix(_DATA_PARALLEL_FIX))


_LAUNCHER_VARIABLE = re.compile(
    r"environment variable (RANK|WORLD_SIZE|MASTER_ADDR|MASTER_PORT|LOCAL_RANK) expected"
    r"|KeyError: ['\"](RANK|LOCAL_RANK|WORLD_SIZE|MASTER_ADDR|MASTER_PORT)['\"]"
    r"|^['\"](RANK|LOCAL_RANK|WORLD_SIZE)['\"]\s{0,4}\n\s{0,4}During handling",
    re.MULTILINE,
)
# The writer says the machine has one GPU: "only one gpu", "a single GPU", "1 GPU", "单卡", "一个gpu".
_ONE_GPU = re.compile(
    r"\b(?:only (?:one|1)|a single|single|one|1)[ -]?gpu\b|单卡|一个 ?gpu|一张(?:显)?卡", re.IGNORECASE
)


def analyse_launcher_variables(text: str) -> Analysis:
    """The variable the program missed, and one GPU where the writer says so: --nproc_per_node=1."""
    tail = text[-200_000:]
    evidence = []
    missing = last_match(_LAUNCHER_VARIABLE, tail)
    if missing is not None:
        name = missing[1] or missing[2] or missing[3]
        evidence.append(f"{name} is not set: the process was not started by a launcher")
    if last_match(_ONE_GPU, tail) is not None:
        evidence.append("the text says the machine has one GPU: one process, torchrun --nproc_per_node=1")
    return Analysis(evidence=tuple(evidence))


# The collective a traceback's frame calls ("dist.all_reduce(partial_tensor, ...)"), under its frame line.
_COLLECTIVE_CALL = re.compile(
    r"File \"?([^\",\n]{1,200}?)\"?, line (\d{1,6})[^\n]{0,200}\n[ \t]{0,40}[^\n]{0,120}?"
    r"\b(?:dist|distributed)\.(all_reduce|broadcast\w{0,20}|all_gather\w{0,20}|reduce_scatter\w{0,20}|reduce"
    r"|send|recv|isend|irecv|gather|scatter)\("
)


def analyse_cpu_tensor_on_nccl(text: str) -> Analysis:
    """The device type the message names, and the collective the traceback shows with where it is called."""
    tail = text[-200_000:]
    evidence = []
    if "device type cpu" in tail:
        evidence.append(
            "no NCCL backend for device type cpu: the tensor given to the collective is on the CPU"
        )
    call = last_match(_COLLECTIVE_CALL, tail)
    if call is not None:
        where = call[1].replace("\\", "/")
        evidence.append(f"the collective: {call[3]}, called at {where}, line {call[2]}")
    return Analysis(evidence=tuple(evidence))


_GLOO_INTERFACE = re.compile(r"Unable to find address for: ?(\S{1,60})")
_IPV4 = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")


def analyse_gloo_interface(text: str) -> Analysis:
    """The name Gloo was given, and what is wrong with it where its form says: an exclusion list, an IP."""
    found = last_match(_GLOO_INTERFACE, text[-200_000:])
    if found is None:
        return Analysis()
    name = found[1].rstrip(".,;'\"`")
    if name.startswith("^"):
        line = f"Gloo was given '{name}': NCCL's exclusion syntax, which names no interface for Gloo"
    elif _IPV4.fullmatch(name):
        line = f"Gloo was given '{name}': an IP address where an interface name belongs"
    else:
        line = f"Gloo was given the interface '{name}', which this machine does not have"
    return Analysis(evidence=(line,))


# The reducer's message for a model wrapped with static_graph=True whose graph changed between iterations.
_STATIC_GRAPH = re.compile(r"not compatible with static_graph set to True", re.IGNORECASE)


def analyse_unused_parameters(text: str) -> Analysis:
    """The static_graph variant: the graph changed between iterations, which static_graph=True forbids."""
    if last_match(_STATIC_GRAPH, text[-200_000:]) is None:
        return Analysis()
    return Analysis(
        evidence=(
            "the model was wrapped with static_graph=True, and a parameter used in one iteration went "
            "unused in the next",
        ),
        cause=(
            "The model was wrapped in DistributedDataParallel with static_graph=True, which promises the "
            "same parameters are used every iteration, but a parameter used in one iteration got no "
            "gradient in the next (a branch taken only on some steps)."
        ),
        fix=Fix(
            "Drop static_graph=True and pass find_unused_parameters=True to DistributedDataParallel instead, "
            "or make every iteration use the same parameters.",
            ("model = DistributedDataParallel(model, device_ids=[rank], find_unused_parameters=True)",),
        ),
    )


# Where the DataLoader runs the failing code: its worker loop, or its message for a worker's exception.
_IN_WORKER = re.compile(r"_worker_loop|in DataLoader worker process \d{1,4}|utils/data/_utils/worker\.py")


def analyse_initialization_error(text: str) -> Analysis:
    """A traceback through a DataLoader worker: the forked worker touched CUDA."""
    if last_match(_IN_WORKER, text[-200_000:]) is None:
        return Analysis()
    return Analysis(evidence=("raised in a DataLoader worker process: a forked worker touched CUDA",))


# Signs that the forked child is a DataLoader worker: its worker loop in a trace, or the loader, its workers,
# the dataset's methods, its collate function or a DataPipe named.
_DATALOADER_SAID = re.compile(
    r"_worker_loop|utils/data/_utils/worker\.py|\bDataLoader\b|\bnum_workers\b|\bcollate(?:_fn| function)\b"
    r"|__getitem__|DataPipe\b|\bdataset\b",
    re.IGNORECASE,
)
# The writer's word that spawn was tried and did not cure it ("Using \"spawn\" start method did not solve the
# problem").
_SPAWN_FAILED = re.compile(
    r"\bspawn\b[^\n.]{0,60}?\b(?:does not|doesn't|did not|didn't|not|never)\b[^\n.]{0,20}?"
    r"\b(?:solve|help|fix|work)",
    re.IGNORECASE,
)


def analyse_forked_subprocess(text: str) -> Analysis:
    """In DataLoader workers, the code they run makes CUDA tensors: the fix keeps CUDA out of that code,
    before spawn."""
    tail = text[-200_000:]
    said = last_match(_DATALOADER_SAID, tail)
    if said is None:
        return Analysis()
    evidence = [f"the forked processes are DataLoader workers (the text names {said[0]})"]
    if _SPAWN_FAILED.search(tail) is not None:
        evidence.append(
            "the writer says spawn did not help: what remains is to keep CUDA out of the workers' code"
        )
    return Analysis(
        evidence=tuple(evidence),
        cause=(
            "DataLoader workers are forked from the training process, which had initialised CUDA, and the "
            "code they run (the Dataset, its collate_fn, or a CUDA default tensor type or device) makes CUDA "
            "tensors: CUDA cannot be used again in a forked child."
        ),
        fix=Fix(
            "Keep CUDA out of the DataLoader workers: return CPU tensors from the dataset (its __getitem__) "
            "and collate_fn (no .cuda(), .to(device) or device='cuda' in their code) and move each batch to "
            "the GPU in the training loop (pin_memory=True, batch.to(device, non_blocking=True)); "
            "num_workers=0 confirms it. Starting the workers with spawn "
            "(DataLoader(multiprocessing_context='spawn')) lets them use CUDA, at the cost of a CUDA context "
            "per worker."
        ),
    )


# The argument the launcher passed, as the error quotes it, and the option the script's usage line shows.
_LOCAL_RANK_PASSED = re.compile(r"unrecognized arguments:[^\n]{0,200}?(--?local[-_]rank(?:=\d{1,4})?)")
_LOCAL_RANK_TAKEN = re.compile(r"\[(--local[-_]rank) LOCAL_RANK\]")


def analyse_local_rank_argument(text: str) -> Analysis:
    """The argument the launcher passed and, where the usage line shows it, the one the script takes."""
    tail = text[-200_000:]
    passed = last_match(_LOCAL_RANK_PASSED, tail)
    if passed is None:
        return Analysis()
    line = f"the launcher passed {passed[1]}"
    taken = last_match(_LOCAL_RANK_TAKEN, tail)
    if taken is not None and taken[1] != passed[1].split("=")[0]:
        line += f"; the script's usage shows it takes {taken[1]}"
    return Analysis(evidence=(line,))


# The root cause block of torchrun's summary ("Root Cause (first observed failure):\n[0]:\n ... rank : 0
# (local_rank: 0)\n  exitcode : 1 (pid: 78970)"), or the agent's log line ("failed (exitcode: 1) local_rank:
# 0 (pid: 123)").
_ROOT_CAUSE = re.compile(
    r"Root Cause \(first observed failure\):[^\n]{0,20}\n(?:[^\n]{0,200}\n){0,4}?[ \t]*rank[ \t]*: (\d{1,6}) "
    r"\(local_rank: (\d{1,4})\)[ \t]*\n[ \t]*exitcode[ \t]*: (-?\d{1,3})"
)
_AGENT_FAILED = re.compile(r"failed \(exitcode: (-?\d{1,3})\) local_rank: (\d{1,4})")
_KILLED = re.compile(r"exitcode\s{0,2}:\s{0,2}-9\b|Signal 9 \(SIGKILL\)")


def analyse_child_failed(text: str) -> Analysis:
    """The rank and exit code of the first failure; a rank killed by SIGKILL is left to the host's memory."""
    tail = text[-200_000:]
    if _KILLED.search(tail) is not None:
        return Analysis(declined=True)
    root = last_match(_ROOT_CAUSE, tail)
    if root is not None:
        rank, local, code = root[1], root[2], int(root[3])
        where = f"rank {rank} (local rank {local})"
    else:
        agent = last_match(_AGENT_FAILED, tail)
        if agent is None:
            return Analysis()
        code, where = int(agent[1]), f"local rank {agent[2]}"
    return Analysis(evidence=(f"the first failure: {where}, exit code {code}: {_exit_meaning(code)}",))


def _exit_meaning(code: int) -> str:
    """What a rank's exit code says: a Python exception (positive), the signal that ended it (negative)."""
    if code > 0:
        return "a Python exception in that rank, printed above the summary"
    if code == 0:
        return ""
    try:
        return f"ended by {signal.Signals(-code).name}"
    except ValueError:
        return f"ended by signal {-code}"


ENTRIES: tuple[Entry, ...] = catalogue_file.read(__package__, globals())
_SHM: Entry = next(e for e in ENTRIES if e.id == "nccl.shm")
