"""Start one process per local rank with torchrun's worker environment, follow them, and end them all.

The launcher never imports torch itself. Each rank runs ``torchdoctor.checks.ddp.rank_program``, forked from
the worker's zygote (``torchdoctor.isolation.zygote``: torch imported, CUDA untouched, the rank's environment
set before
anything reads it) where torch cannot tell the difference, else started as ``python -P -m`` of it. It checks
MASTER_ADDR and MASTER_PORT before anything starts, gives every rank the environment torchrun's
``LocalElasticAgent._start_workers`` builds (torch 2.13,
``torch/distributed/elastic/agent/server/local_elastic_agent.py``), and enforces one hard deadline:
torch's own timeouts do not cover every hang (a rank that connects to a foreign listener on
MASTER_PORT waits for more than 100 s whatever its timeout; research note ddp_dryrun.md, F1). Once a
rank has failed the others get a short grace to explain themselves and are then stopped. Every rank
runs in its own session and is killed with its process group on every way out of :func:`launch`:
exceptions, KeyboardInterrupt, and the death of whatever started the launcher (then nobody would
read the result) included.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import IO, Any

from torchdoctor.checks.ddp.rank_program import PREFIX
from torchdoctor.isolation import processes, pycommand, zygote

RANK_MODULE = "torchdoctor.checks.ddp.rank_program"
DEFAULT_MASTER_ADDR = "127.0.0.1"  # torchrun's --master-addr default
TORCHRUN_DEFAULT_PORT = 29500  # torchrun's --master-port default (torch/distributed/run.py)
PEER_GRACE_S = 1.0
_STDERR_TAIL_CHARS = 4000
_WAIT_AFTER_KILL_S = 2.0
_STRAY_LINES = 10
_PARENT_POLL_S = 0.25


@dataclass(frozen=True)
class LaunchPlan:
    nproc: int
    backend: str
    master_addr: str
    master_port: int
    budget_s: float
    """Seconds from the first spawn until every rank still running is killed."""
    base_env: Mapping[str, str]
    python: str = sys.executable


def torchrun_env(
    base: Mapping[str, str], local_rank: int, nproc: int, master_addr: str, master_port: int, run_id: str
) -> dict[str, str]:
    """The environment torchrun gives local rank ``local_rank`` of a single-node job of ``nproc`` ranks.

    As ``_start_workers`` does: the parent's environment updated with the worker variables. Two
    differences follow from having no agent: TORCHELASTIC_USE_AGENT_STORE is "False" (rank 0 hosts the
    TCPStore, as under torchrun with TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1), and there is no
    TORCHELASTIC_ERROR_FILE, which only an agent reads.
    """
    env = dict(base)
    env.update(
        {
            "RANK": str(local_rank),
            "GROUP_RANK": "0",
            "ROLE_RANK": str(local_rank),
            "ROLE_NAME": "default",
            "LOCAL_WORLD_SIZE": str(nproc),
            "WORLD_SIZE": str(nproc),
            "GROUP_WORLD_SIZE": "1",
            "ROLE_WORLD_SIZE": str(nproc),
            "MASTER_ADDR": master_addr,
            "MASTER_PORT": str(master_port),
            "TORCHELASTIC_RESTART_COUNT": "0",
            "TORCHELASTIC_MAX_RESTARTS": "0",
            "TORCHELASTIC_RUN_ID": run_id,
            "TORCHELASTIC_USE_AGENT_STORE": "False",
            "TORCH_NCCL_ASYNC_ERROR_HANDLING": base.get("TORCH_NCCL_ASYNC_ERROR_HANDLING", "1"),
            "LOCAL_RANK": str(local_rank),
        }
    )
    # torch/distributed/run.py: "OMP_NUM_THREADS" defaults to 1 when unset and nproc_per_node > 1.
    if "OMP_NUM_THREADS" not in base and nproc > 1:
        env["OMP_NUM_THREADS"] = "1"
    return env


TORCHRUN_VARIABLES = frozenset(torchrun_env({}, 0, 2, DEFAULT_MASTER_ADDR, TORCHRUN_DEFAULT_PORT, ""))
"""What a rank's environment adds to the launcher's: the only variables in which a rank forked from the
zygote may differ from the environment torch was imported in."""


def resolve_address(address: str) -> dict[str, Any]:
    """``getaddrinfo`` of MASTER_ADDR, and whether one of its addresses belongs to this host."""
    try:
        infos = socket.getaddrinfo(address, None, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, OSError) as exc:
        return {"value": address, "addresses": [], "error": str(exc), "local": False}
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    return {"value": address, "addresses": addresses, "error": None, "local": any(map(_is_local, infos))}


def _is_local(info: tuple[Any, ...]) -> bool:
    family, _, _, _, sockaddr = info
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((sockaddr[0], 0))
        except OSError:
            return False
    return True


def port_status(port: int) -> dict[str, Any]:
    """Whether a server could listen on ``port`` as rank 0's TCPStore does (all addresses).

    SO_REUSEADDR as the store sets it, so a port in TIME_WAIT is not mistaken for a busy one; Linux
    still refuses it while another socket listens there.
    """
    status: dict[str, Any] = {"port": port, "busy": False, "error": None, "owner": None}
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("0.0.0.0", port))
            sock.listen(1)
        except OSError as exc:
            status["busy"] = exc.errno == errno.EADDRINUSE
            status["error"] = f"{errno.errorcode.get(exc.errno or 0, 'error')}: {exc.strerror}"
    if status["busy"]:
        status["owner"] = port_owner(port)
    return status


def port_owner(port: int) -> dict[str, Any] | None:
    """The process listening on ``port``, where the system lets us see it."""
    import psutil

    from torchdoctor.output import redact

    try:
        connections = psutil.net_connections(kind="inet")
    except (psutil.Error, OSError):
        return None
    for conn in connections:
        if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port and conn.pid:
            try:
                process = psutil.Process(conn.pid)
                own = _own(process)
                return {
                    "pid": conn.pid,
                    "name": process.name(),
                    "own": own,
                    "cmdline": redact.command_line(process.cmdline(), own)[:300],
                }
            except psutil.Error:
                return {"pid": conn.pid, "name": None, "cmdline": None}
    return None


def _own(process: Any) -> bool:
    """Whether ``process`` (psutil) runs as this user: the same uid on POSIX, the same account on Windows,
    which has no uids."""
    if sys.platform == "win32":
        from torchdoctor.output.redact import system_user

        try:
            account = (system_user() or "").lower()
            return bool(account) and str(process.username()).rpartition("\\")[2].lower() == account
        except Exception:  # psutil.AccessDenied: another user's process, as far as we can tell
            return False
    return bool(process.uids().real == os.getuid())


@contextlib.contextmanager
def port_lock(port: int) -> Iterator[int | None]:
    """Hold this machine's lock of ``port`` for one dry run; yields None, or the pid of the dry run that
    holds it already (two runs on one MASTER_PORT would join each other's ranks).

    A lock file in a folder only this user can write (checks.ddp.portlock), locked with flock and released
    when the run ends or dies; where it cannot be used safely, the run goes on unlocked.
    """
    from torchdoctor.checks.ddp import portlock

    with portlock.hold(port) as holder:
        yield holder


def free_port() -> int:
    """A port free on every address right now (like torchrun's get_free_port, it is not reserved)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("", 0))
        return int(sock.getsockname()[1])


@dataclass
class _Rank:
    local_rank: int
    started_at: float
    proc: subprocess.Popen[bytes] | zygote.Forked | None = None
    forked_from: int | None = None
    """The zygote the rank was forked from; None: a fresh process, for the reason in ``fresh_because``."""
    fresh_because: str | None = None
    stderr: IO[bytes] | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    stray: list[str] = field(default_factory=list)
    start_error: str | None = None
    returncode: int | None = None
    killed: dict[str, Any] | None = None
    stderr_tail: str = ""

    @property
    def failed(self) -> bool:
        return any(e.get("phase") == "error" for e in self.events) or bool(self.returncode)

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def take(self, line: str) -> None:
        if not line.startswith(PREFIX):
            self.stray = [*self.stray[-(_STRAY_LINES - 1) :], line.rstrip()[:500]]
            return
        try:
            event = json.loads(line[len(PREFIX) :])
        except ValueError:
            self.stray = [*self.stray[-(_STRAY_LINES - 1) :], line.rstrip()[:500]]
            return
        if isinstance(event, dict):
            self.events.append(event)

    def reap(self, timeout: float) -> None:
        assert self.proc is not None
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.returncode = self.proc.wait(timeout=max(0.05, timeout))

    def kill(self, reason: str) -> None:
        """Kill the rank's process group (its tree on Windows); a rank that already exited keeps its own
        story."""
        if self.proc is None or self.proc.poll() is not None:
            return
        if self.killed is None:
            self.killed = {"reason": reason, "after_s": round(time.time() - self.started_at, 3)}
        processes.kill_group(self.proc)

    def close(self) -> None:
        if self.stderr is None:
            return
        try:
            self.stderr.flush()
            size = self.stderr.seek(0, os.SEEK_END)
            self.stderr.seek(max(0, size - 4 * _STDERR_TAIL_CHARS))
            text = self.stderr.read().decode("utf-8", errors="replace")
            self.stderr_tail = text[-_STDERR_TAIL_CHARS:].strip()
        except (OSError, ValueError):
            pass
        finally:
            with contextlib.suppress(OSError):
                self.stderr.close()
            self.stderr = None

    def to_json(self) -> dict[str, Any]:
        phases: dict[str, float] = {}
        record: dict[str, Any] = {"local_rank": self.local_rank, "rank": self.local_rank}
        error = None
        for event in self.events:
            phase = str(event.get("phase"))
            data = {k: v for k, v in event.items() if k not in ("phase", "t")}
            if phase == "error":
                error = {**data, "at_s": round(float(event.get("t", self.started_at)) - self.started_at, 4)}
                continue
            phases[phase] = round(float(event.get("t", self.started_at)) - self.started_at, 4)
            _absorb(record, phase, data)
        code = self.returncode
        record.update(
            {
                "pid": self.proc.pid if self.proc else None,
                "process": {"forked_from": self.forked_from}
                if self.forked_from is not None
                else {"fresh": self.fresh_because},
                "phases": phases,
                "last_phase": next(reversed(phases), None),
                "error": error,
                "exit": None
                if code is None
                else {
                    "code": code if code >= 0 else None,
                    "signal": _signal_name(code) if code < 0 else None,
                },
                "killed": self.killed,
                "start_error": self.start_error,
                "stderr_tail": self.stderr_tail,
            }
        )
        if self.stray:
            record["stray_stdout"] = self.stray
        return record


def _absorb(record: dict[str, Any], phase: str, data: Mapping[str, Any]) -> None:
    """What each phase line adds to the rank's record."""
    if phase == "start":
        record.update({k: data.get(k) for k in ("rank", "pid", "hostname", "boot_id", "world_size")})
        record["local_rank"] = data.get("local_rank", record["local_rank"])
        record["env_master"] = {"addr": data.get("master_addr"), "port": data.get("master_port")}
    elif phase == "imported":
        record["torch"] = data.get("torch")
    elif phase == "bound":
        record["device"] = data.get("device")
    elif phase == "init":
        record["backend"] = data.get("backend")
        record["pg_timeout_s"] = data.get("timeout_s")
    elif phase == "init_done":
        record["init_s"] = data.get("seconds")
    elif phase == "allreduce":
        record["allreduce"] = dict(data)
    elif phase == "barrier":
        record["barrier_s"] = data.get("seconds")
    elif phase == "bandwidth":
        record["bandwidth"] = dict(data)
    elif phase == "done":
        record["peak_rss_bytes"] = data.get("peak_rss_bytes")


def _signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def _read_lines(stream: IO[bytes], local_rank: int, sink: queue.Queue[tuple[int, str | None]]) -> None:
    with contextlib.suppress(OSError, ValueError):
        for raw in stream:
            sink.put((local_rank, raw.decode("utf-8", errors="replace")))
    sink.put((local_rank, None))


def _arguments(plan: LaunchPlan, deadline: float, parent: int) -> list[str]:
    return ["--backend", plan.backend, "--deadline", f"{deadline:.3f}", "--parent-pid", str(parent)]


def _fork(plan: LaunchPlan, env: dict[str, str], rank: _Rank, deadline: float) -> bool:
    """Start the rank from this worker's zygote (torch already imported, CUDA untouched) where torch cannot
    tell it from a fresh ``python -P -m`` process; False (and why, in ``rank.fresh_because``) elsewhere."""
    client = zygote.current()
    if client is None or plan.python != sys.executable:
        rank.fresh_because = "no zygote" if client is None else f"ranks run {plan.python}"
        return False
    assert rank.stderr is not None
    read, write = os.pipe()
    try:
        child = client.spawn(
            RANK_MODULE,
            _arguments(plan, deadline, client.pid),
            env,
            write,
            rank.stderr.fileno(),
            TORCHRUN_VARIABLES,
            timeout=max(1.0, deadline - time.time()),
        )
    finally:
        os.close(write)
    if isinstance(child, str):
        os.close(read)
        rank.fresh_because = child
        return False
    child.stdout = os.fdopen(read, "rb")
    rank.proc = child
    rank.forked_from = client.pid
    return True


def _exec(plan: LaunchPlan, env: dict[str, str], rank: _Rank, deadline: float) -> None:
    try:
        # Started from the calling thread: the rank's PR_SET_PDEATHSIG follows this thread's life.
        rank.proc = subprocess.Popen(
            [*pycommand.run_module(plan.python, RANK_MODULE), *_arguments(plan, deadline, os.getpid())],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=rank.stderr,
            **processes.own_group(),
        )
    except OSError as exc:
        rank.start_error = f"cannot start {plan.python}: {exc}"


def _start(
    plan: LaunchPlan,
    local_rank: int,
    run_id: str,
    deadline: float,
    sink: queue.Queue[tuple[int, str | None]],
) -> _Rank:
    import tempfile  # here, as uuid in launch: a worker that only describes the checks needs neither

    rank = _Rank(local_rank=local_rank, started_at=time.time())
    env = torchrun_env(plan.base_env, local_rank, plan.nproc, plan.master_addr, plan.master_port, run_id)
    rank.stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed by _Rank.close)
    if not _fork(plan, env, rank, deadline):
        _exec(plan, env, rank, deadline)
    if rank.proc is None or rank.proc.stdout is None:
        return rank
    threading.Thread(
        target=_read_lines,
        args=(rank.proc.stdout, local_rank, sink),
        name=f"ddp-rank-{local_rank}",
        daemon=True,
    ).start()
    return rank


def launch(plan: LaunchPlan) -> dict[str, Any]:
    """Run the ranks to completion or to the deadline; returns each rank's record and the timings."""
    import uuid

    started = time.time()
    deadline = started + plan.budget_s
    run_id = f"torchdoctor-{uuid.uuid4().hex[:12]}"
    sink: queue.Queue[tuple[int, str | None]] = queue.Queue()
    ranks: list[_Rank] = []
    stopped_early_by: list[int] = []
    try:
        for local_rank in range(plan.nproc):
            ranks.append(_start(plan, local_rank, run_id, deadline, sink))
        stopped_early_by = _follow(ranks, sink, deadline)
        _end(ranks, "after_peer_failure" if stopped_early_by and time.time() < deadline else "deadline")
    finally:
        _end(ranks, "interrupted")  # a no-op unless an exception or KeyboardInterrupt got here first
        for rank in ranks:
            rank.close()
    return {
        "run_id": run_id,
        "ranks": [rank.to_json() for rank in ranks],
        "wall_s": round(time.time() - started, 4),
        "budget_s": round(plan.budget_s, 3),
        "stopped_after_failure_of": stopped_early_by,
    }


def _end(ranks: list[_Rank], reason: str) -> None:
    """Kill every rank still running, then reap them all within one short wait."""
    for rank in ranks:
        rank.kill(reason)
    until = time.time() + _WAIT_AFTER_KILL_S
    for rank in ranks:
        if rank.proc is not None and rank.returncode is None:
            rank.reap(until - time.time())


class _Orphaned(Exception):
    """Whoever started the launcher is gone (e.g. killed by SIGKILL): nobody will read the result."""


def _follow(ranks: list[_Rank], sink: queue.Queue[tuple[int, str | None]], deadline: float) -> list[int]:
    """Read phase lines until every rank has exited or the deadline (shortened once a rank fails)."""
    parent = os.getppid()
    reading = {rank.local_rank for rank in ranks if rank.proc is not None}
    end = deadline
    failed: list[int] = [rank.local_rank for rank in ranks if rank.start_error]
    if failed:
        end = min(end, time.time() + PEER_GRACE_S)
    while reading:
        remaining = end - time.time()
        if remaining <= 0:
            break
        if os.getppid() != parent:
            raise _Orphaned
        try:
            local_rank, line = sink.get(timeout=min(remaining, _PARENT_POLL_S))
        except queue.Empty:
            continue
        rank = ranks[local_rank]
        if line is None:
            reading.discard(local_rank)
            rank.reap(min(1.0, end - time.time()))
        else:
            rank.take(line)
        if rank.failed and local_rank not in failed:
            failed.append(local_rank)
            end = min(end, time.time() + PEER_GRACE_S)
    return failed
