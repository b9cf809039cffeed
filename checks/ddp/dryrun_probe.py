"""The probe of check ``ddp.dryrun`` (declared in ``dryrun_check``): start one process per local rank as
torchrun would, and prove DDP works.

The probe plans the run (ranks: ``--nproc`` or the visible GPU count, 2 without GPUs; backend:
``--backend`` or nccl with GPUs, gloo without them and on Windows), checks MASTER_ADDR and MASTER_PORT before
spawning,
and launches the ranks (``ddp_launch``); each binds cuda:LOCAL_RANK, initializes the process group,
verifies an all_reduce, passes a barrier and times an all_reduce (``ddp_rank``). The judge
(``ddp_verdict``) names the rank and the evidence of whatever went wrong.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import sys
import time
from collections.abc import Mapping
from typing import Any

from torchdoctor.checks.ddp import launcher
from torchdoctor.checks.ddp.dryrun_check import MAX_RANKS
from torchdoctor.checks.probes import cuda_driver_probe
from torchdoctor.inputs import bounded
from torchdoctor.isolation import zygote
from torchdoctor.machine import envvars

DEFAULT_TIMEOUT_S = 30.0
CPU_RANKS = 2
RANK_MEMORY_BYTES = 512 * 2**20
"""What one rank takes at its peak: a Python process that imported torch (about 400 MiB on the CPU build)."""
EXTRA_VARIABLES = ("USE_LIBUV",)
RUN_RESERVE_S = 3.0
"""The least time the ranks get after waiting for the worker's import of torch."""


def budget_s(timeout: float) -> float:
    """The dry run's own hard deadline: under the worker's per-probe deadline, with room to clean up."""
    margin = min(5.0, max(1.5, 0.15 * timeout))
    return max(0.6 * timeout, timeout - margin)


def _variables(environ: Mapping[str, str]) -> dict[str, str]:
    shown = envvars.relevant(environ)
    shown.update({name: environ[name] for name in EXTRA_VARIABLES if name in environ})
    return dict(sorted(shown.items()))


def _interfaces() -> list[str] | None:
    try:
        return sorted(name for _, name in socket.if_nameindex())
    except (OSError, AttributeError):
        return None


def _master(environ: Mapping[str, str]) -> dict[str, Any]:
    """MASTER_ADDR and MASTER_PORT as the ranks will get them, checked before anything is spawned."""
    given_addr = environ.get("MASTER_ADDR") or None
    address = launcher.resolve_address(given_addr or launcher.DEFAULT_MASTER_ADDR)
    use_addr = address["value"]
    if given_addr and not address["error"] and not address["local"]:
        # A single-node dry run cannot host rank 0 on another machine.
        use_addr = launcher.DEFAULT_MASTER_ADDR
    given_port = environ.get("MASTER_PORT") or None
    port: dict[str, Any] = {"value": given_port, "source": "env" if given_port else "free"}
    if given_port is None:
        port["port"] = launcher.free_port()
        # Unset MASTER_PORT means 29500 to a plain torchrun and to init_process_group("env://") users.
        port["default"] = launcher.port_status(launcher.TORCHRUN_DEFAULT_PORT)
    elif not 0 < (bounded.whole_number(given_port) or 0) < 65536:
        port["error"] = f"MASTER_PORT={given_port!r} is not a port number (1-65535)"
    else:
        port.update(launcher.port_status(int(given_port.strip())))
    return {"address": {**address, "given": given_addr, "used": use_addr}, "port": port}


def rank_limit() -> tuple[int, str]:
    """How many ranks this machine can start at once, and what limits it: one per GPU, else memory."""
    gpus = cuda_driver_probe.probe({}).get("device_count") or 0
    try:
        import psutil

        available: int | None = int(psutil.virtual_memory().available)
    except Exception:
        available = None
    by_memory = None if available is None else max(1, available // RANK_MEMORY_BYTES)
    if gpus and (by_memory is None or gpus <= by_memory):
        return max(gpus, CPU_RANKS), f"{gpus} visible GPU(s)"
    if available is None or by_memory is None:
        return CPU_RANKS * (os.cpu_count() or 1), f"{os.cpu_count()} CPU(s)"
    return min(by_memory, MAX_RANKS), f"{available / 2**30:.1f} GiB of available memory"


def validate_nproc(value: Any) -> int:
    """``--nproc``: no more ranks than the machine can hold at once."""
    limit, why = rank_limit()
    if int(value) > limit:
        raise ValueError(
            f"{value} ranks are more than this machine can start at once: at most {limit} ({why})"
        )
    return int(value)


def default_backend(visible_gpus: int) -> tuple[str, str]:
    """The backend without ``--backend``, and why: nccl with GPUs, gloo without them and on Windows, where
    torch has no NCCL (gloo is its backend there, on GPUs too)."""
    if not visible_gpus:
        return "gloo", "cpu"
    if sys.platform == "win32":
        return "gloo", "windows"
    return "nccl", "gpus"


@zygote.preload("torch.distributed")
def probe(options: Mapping[str, Any]) -> dict[str, Any]:
    started = time.time()
    environ = dict(os.environ)
    facts: dict[str, Any] = {
        "env": _variables(environ),
        "interfaces": _interfaces(),
    }
    if environ.get("TORCHELASTIC_RUN_ID"):
        facts["status"] = "inside_torchrun"
        return facts
    if importlib.util.find_spec("torch") is None:
        facts["status"] = "no_torch"  # every rank would fail the same way: nothing to learn by starting them
        return facts
    from importlib import metadata  # here, not at the top: the worker that describes checks never needs it

    try:
        facts["torch_version"] = metadata.version("torch")
    except (metadata.PackageNotFoundError, ValueError, OSError):
        facts["torch_version"] = None
    timeout = float(options.get("timeout") or DEFAULT_TIMEOUT_S)
    master = _master(environ)
    port = master["port"]
    precheck_failed = bool(master["address"]["error"] or port.get("error"))
    if not precheck_failed:
        # Before anything here touches CUDA, so the ranks fork from a torch that never did. The worker's
        # import of torch, under way since it started, ends before any fresh rank's would: wait for it,
        # leaving the ranks RUN_RESERVE_S at least (or half the time), else they start fresh.
        zygote.ensure(timeout=max(budget_s(timeout) / 2, budget_s(timeout) - RUN_RESERVE_S))
    visible_gpus = cuda_driver_probe.probe({}).get("device_count") or 0
    nproc = int(options.get("nproc") or visible_gpus or CPU_RANKS)
    default, source = default_backend(visible_gpus)
    backend = options.get("backend") or default
    facts["plan"] = {
        "nproc": nproc,
        "nproc_source": "option" if options.get("nproc") else ("gpus" if visible_gpus else "cpu"),
        "backend": backend,
        "backend_source": "option" if options.get("backend") else source,
        "visible_gpus": visible_gpus,
        "budget_s": round(budget_s(timeout), 3),
    }
    facts["master"] = master
    if precheck_failed:
        facts["status"] = "precheck_failed"
        return facts
    plan = launcher.LaunchPlan(
        nproc=nproc,
        backend=backend,
        master_addr=master["address"]["used"],
        master_port=int(port["port"]),
        budget_s=max(1.0, budget_s(timeout) - (time.time() - started)),  # the deadline holds from the start
        base_env=environ,
    )
    with launcher.port_lock(plan.master_port) as holder:
        if holder is not None:
            port["locked_by"] = holder
            facts["status"] = "precheck_failed"
            return facts
        facts["status"] = "ran"
        facts.update(launcher.launch(plan))
    return facts
