"""The program each rank of the DDP dry run runs: ``python -P -m torchdoctor.checks.ddp.rank_program``.

It is started with the environment torchrun gives its workers (RANK, LOCAL_RANK, WORLD_SIZE,
MASTER_ADDR, MASTER_PORT, ...) and reports each phase as one ``TDR {json}`` line on its stdout, which
carries nothing else (file descriptor 1 is pointed at stderr first, so torch and C libraries print
there): ``start`` -> ``imported`` -> ``bound`` -> ``init`` -> ``init_done`` -> ``allreduce`` ->
``barrier`` -> ``bandwidth`` -> ``done``, or ``error`` with the phase it failed in.

A rank never outlives its launcher: on Linux the kernel kills it when the launcher dies
(PR_SET_PDEATHSIG), elsewhere a watchdog thread notices the new parent; and it ends itself a little
after the launcher's deadline in any case.
"""

from __future__ import annotations

import contextlib
import faulthandler
import json
import os
import socket
import sys
import time
import traceback
import warnings
from datetime import timedelta
from typing import IO, TYPE_CHECKING, Any

from torchdoctor.checks.ddp import collective
from torchdoctor.checks.probes import torch_probe
from torchdoctor.inputs import bounded
from torchdoctor.isolation import lifeline

if TYPE_CHECKING:
    import argparse

PREFIX = "TDR "
EXIT_FAILED = 1
EXIT_ENV = 2
EXIT_ORPHANED = lifeline.EXIT_ORPHANED
LATE_S = 5.0  # the launcher kills at its deadline; this is only the backstop
_MESSAGE_CHARS = 4000

IDENTITY_VARS = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK")
REQUIRED_VARS = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")


class RankFailure(Exception):
    """A failure the rank recognises itself, with a stable ``kind`` for the judge."""

    def __init__(self, kind: str, message: str, **data: Any) -> None:
        super().__init__(message)
        self.kind = kind
        self.data = data


class Channel:
    """The protocol stream: the process's original stdout, one flushed JSON line per phase."""

    def __init__(self) -> None:
        self._out: IO[str] = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
        os.dup2(2, 1)
        sys.stdout = sys.stderr
        self.phase = "start"

    def emit(self, phase: str, **data: Any) -> None:
        if phase != "error":
            self.phase = phase
        self._out.write(PREFIX + json.dumps({"phase": phase, "t": time.time(), **data}) + "\n")
        self._out.flush()


def _parse(argv: list[str] | None) -> argparse.Namespace:
    import argparse  # here: the launcher reads PREFIX from this module and needs no parser

    parser = argparse.ArgumentParser(prog="torchdoctor.checks.ddp.rank_program")
    parser.add_argument("--backend", choices=("nccl", "gloo"), required=True)
    parser.add_argument("--deadline", type=float, required=True, help="the launcher's deadline, epoch s")
    parser.add_argument("--parent-pid", type=int, required=True)
    # torchrun's legacy --local-rank argument, accepted and ignored (LOCAL_RANK is authoritative).
    parser.add_argument("--local-rank", "--local_rank", default=None, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def _identity(environ: dict[str, str]) -> dict[str, Any]:
    missing = [name for name in REQUIRED_VARS if not environ.get(name)]
    not_integers = [
        name for name in IDENTITY_VARS if environ.get(name) and bounded.whole_number(environ[name]) is None
    ]
    if missing or not_integers:
        problems = [f"{name} expected, but not set" for name in missing]
        problems += [f"{name}={environ[name]!r} is not an integer" for name in not_integers]
        raise RankFailure("env_incomplete", "; ".join(problems))
    return {
        "rank": int(environ["RANK"]),
        "local_rank": int(environ["LOCAL_RANK"]),
        "world_size": int(environ["WORLD_SIZE"]),
        "local_world_size": int(environ.get("LOCAL_WORLD_SIZE") or 0) or None,
        "group_rank": int(environ.get("GROUP_RANK") or 0),
    }


def boot_id() -> str | None:
    """This machine's boot id: ranks with the same one share a node (and its GPUs)."""
    try:
        with open("/proc/sys/kernel/random/boot_id") as handle:
            return handle.read().strip()
    except OSError:
        return None


def _import_torch() -> tuple[Any, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import torch
        import torch.distributed as dist
    return torch, dist


def _torch_facts(torch: Any, dist: Any) -> dict[str, Any]:
    nccl = None
    if dist.is_nccl_available():
        with contextlib.suppress(Exception):
            version = torch.cuda.nccl.version()
            nccl = ".".join(str(p) for p in version) if isinstance(version, tuple) else str(version)
    return {
        "version": str(torch.__version__),
        "cuda": getattr(torch.version, "cuda", None),
        "hip": getattr(torch.version, "hip", None),
        "nccl": nccl,
        "nccl_available": bool(dist.is_nccl_available()),
        "gloo_available": bool(dist.is_gloo_available()),
    }


def _bind(torch: Any, dist: Any, backend: str, local_rank: int) -> tuple[Any, dict[str, Any] | None]:
    """The device this rank binds (cuda:LOCAL_RANK), checked against the count before set_device.

    Returns the device its tensors live on (None: CPU) and the facts of the bound device.
    """
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if backend == "nccl" and not dist.is_nccl_available():
        raise RankFailure(
            "nccl_unavailable",
            f"backend nccl requested, but torch {torch.__version__} has no NCCL "
            "(torch.distributed.is_nccl_available() is False)",
        )
    if not torch.cuda.is_available():
        if backend == "nccl":
            raise RankFailure(
                "nccl_unavailable", "backend nccl needs a CUDA device: torch.cuda.is_available() is False"
            )
        return None, None
    count = torch.cuda.device_count()
    index = local_rank
    _check_ordinal(local_rank, index, count)
    torch.cuda.set_device(index)
    props = torch.cuda.get_device_properties(index)
    raw_uuid = str(getattr(props, "uuid", "") or "")
    facts: dict[str, Any] = {
        "index": index,
        "uuid": raw_uuid if raw_uuid.startswith(("GPU-", "MIG-")) or not raw_uuid else f"GPU-{raw_uuid}",
        "name": props.name,
        "capability": [int(props.major), int(props.minor)],
        "device_count": count,
        "cuda_visible_devices": visible,
    }
    bus_id = torch_probe.pci_bus_id(props)
    if bus_id is not None:
        facts["pci_bus_id"] = bus_id
    with contextlib.suppress(Exception):
        free, total = torch.cuda.mem_get_info(index)
        facts["memory_free_bytes"], facts["memory_total_bytes"] = int(free), int(total)
    return (torch.device("cuda", index) if backend == "nccl" else None), facts


def _check_ordinal(local_rank: int, index: int, count: int) -> None:
    if index >= count:
        raise RankFailure(
            "invalid_device_ordinal",
            f"LOCAL_RANK={local_rank} -> cuda:{index}, but only {count} CUDA device(s) are visible "
            "(invalid device ordinal)",
            device_count=count,
        )


def _same_job(torch: Any, dist: Any, device: Any) -> None:
    """Ranks of another job on the same MASTER_PORT can join this process group: every rank checks that all
    came from this launch (its TORCHELASTIC_RUN_ID) before trusting any collective."""
    import hashlib  # here: the launcher reads PREFIX from this module and needs none of it

    run_id = os.environ.get("TORCHELASTIC_RUN_ID") or ""
    job_id = int(hashlib.sha256(run_id.encode()).hexdigest()[:12], 16)
    if not collective.job_ids_agree(torch, dist, device, job_id):
        raise RankFailure(
            "foreign_ranks",
            f"ranks of another job joined this process group on MASTER_PORT={os.environ.get('MASTER_PORT')}: "
            "two jobs share the port",
        )


def _peak_rss_bytes() -> int | None:
    if sys.platform == "win32":  # no getrusage: the peak working set, through psutil
        try:
            import psutil

            return int(psutil.Process().memory_info().peak_wset)
        except Exception:
            return None
    try:
        import resource
    except ImportError:
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)  # macOS counts bytes, Linux KiB


def _pg_timeout(deadline: float) -> float:
    # The store's client retries its connect once, so a connect failure takes about twice the timeout
    # (research note ddp_dryrun.md, section 2.3): leave the launcher time to read the explanation.
    return max(1.0, (deadline - time.time() - 1.0) / 2.5)


def run(args: argparse.Namespace, channel: Channel) -> int:
    identity = _identity(dict(os.environ))
    channel.emit(
        "start",
        pid=os.getpid(),
        hostname=socket.gethostname(),
        boot_id=boot_id(),
        **identity,
        master_addr=os.environ.get("MASTER_ADDR"),
        master_port=os.environ.get("MASTER_PORT"),
    )
    try:
        torch, dist = _import_torch()
    except BaseException as exc:  # a broken build can raise anything from OSError to SystemError
        raise RankFailure("import_failed", f"import torch failed: {type(exc).__name__}: {exc}") from exc
    channel.emit("imported", torch=_torch_facts(torch, dist))
    tensor_device, device = _bind(torch, dist, args.backend, identity["local_rank"])
    channel.emit("bound", device=device)
    timeout = _pg_timeout(args.deadline)
    channel.emit("init", backend=args.backend, timeout_s=round(timeout, 2))
    started = time.perf_counter()
    dist.init_process_group(
        backend=args.backend,
        init_method="env://",
        timeout=timedelta(seconds=timeout),
        # Eager NCCL init, so "Duplicate GPU" and system errors surface here, not at the first collective.
        device_id=tensor_device if args.backend == "nccl" else None,
    )
    try:
        channel.emit("init_done", seconds=round(time.perf_counter() - started, 6))
        _same_job(torch, dist, tensor_device)
        world = identity["world_size"]
        result = collective.verified_all_reduce(torch, dist, tensor_device, identity["rank"] + 1, world)
        channel.emit("allreduce", **result)
        started = time.perf_counter()
        if args.backend == "gloo":
            # gloo's monitored_barrier names the ranks that did not arrive (torch docs).
            dist.monitored_barrier(timeout=timedelta(seconds=timeout), wait_all_ranks=True)
        else:
            dist.barrier(device_ids=[tensor_device.index])
        channel.emit("barrier", seconds=round(time.perf_counter() - started, 6))
        nbytes = collective.NCCL_BUFFER_BYTES if args.backend == "nccl" else collective.GLOO_BUFFER_BYTES
        channel.emit("bandwidth", **collective.timed_all_reduce(torch, dist, tensor_device, nbytes, world))
    finally:
        # A rank that leaves without destroying its group can abort at interpreter exit (research note).
        with contextlib.suppress(Exception):
            dist.destroy_process_group()
    channel.emit("done", peak_rss_bytes=_peak_rss_bytes())
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    lifeline.die_with_parent(args.parent_pid, args.deadline + LATE_S, EXIT_ORPHANED)
    channel = Channel()
    faulthandler.enable()  # a segfault in torch, gloo or NCCL leaves its Python stack in the stderr tail
    try:
        return run(args, channel)
    except RankFailure as failure:
        channel.emit(
            "error",
            at=channel.phase,
            kind=failure.kind,
            type=type(failure).__name__,
            message=str(failure),
            **failure.data,
        )
        if failure.__cause__ is not None:
            traceback.print_exception(failure.__cause__)
        return EXIT_ENV if failure.kind == "env_incomplete" else EXIT_FAILED
    except Exception as exc:
        channel.emit(
            "error",
            at=channel.phase,
            kind=None,
            type=type(exc).__name__,
            message=str(exc)[:_MESSAGE_CHARS],
        )
        traceback.print_exc()
        return EXIT_FAILED


if __name__ == "__main__":
    # Run main() of the importable module, not of __main__, as the worker does.
    from torchdoctor.checks.ddp import rank_program

    code = rank_program.main()
    sys.stderr.flush()
    # The answers are out; torch's interpreter teardown would only cost the launcher time.
    os._exit(code)
