"""A process that has imported torch and nothing else, to fork fresh processes from: a rank of the DDP
dry run then costs a fork instead of a second ``import torch``.

A warm probe worker imports torch in the background from its start (:func:`start_warming`), noting every
variable the import read through ``os.environ``. When a probe of the run asks for it (:func:`preload`),
:func:`prepare` waits for that import and forks the zygote, before any probe has run, and only while
nothing has touched CUDA (torch's lazy init not run, neither the driver nor NVML loaded). The zygote
checks that torch does not see it as a child forked after CUDA use (``torch.cuda._is_in_bad_fork``),
imports what the probe asked for, and forks each child the way
``subprocess.Popen(start_new_session=True, stdin=DEVNULL, close_fds=True)`` and ``python -P -m MODULE``
start one: its own session, the given stdout and stderr and nothing else open, exactly the given
environment (what ``getenv``, ``os.environ`` and every library that reads them later see), ``sys.argv``
and stdio as at interpreter start, torch's thread count as an import in that environment would have set
it, and the interpreter's warning filters (those of a program that imports torch under
``warnings.catch_warnings``, as the rank program does: torch's own filters go with it).

A child whose environment differs from the one torch was imported in by a variable torch read during the
import, or by any variable its caller does not name as safe to differ, is refused: the caller starts a
fresh process instead. Linux only (fork, SCM_RIGHTS, PR_SET_PDEATHSIG); elsewhere nothing is forked.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import importlib
import io
import json
import os
import re
import runpy
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, TypeVar, cast

from torchdoctor.inputs import bounded
from torchdoctor.isolation import served

THREAD_VARIABLE = "OMP_NUM_THREADS"
"""Read by the OpenMP runtime and MKL as torch's libraries load: a child that gets another value has torch's
thread count set as that import would have set it (MKL_NUM_THREADS, when set, decides instead, in both)."""
STARTUP_WARNING_FILTERS = tuple(warnings.filters)
"""The interpreter's warning filters, before the worker changed any (a fresh child starts with these)."""
READY_TIMEOUT_S = 30.0
REPORT_TIMEOUT_S = 30.0
"""The most a probe's answer waits for the warm-up's report once that import has ended (await_report)."""
_PRELOAD_ATTRIBUTE = "__torchdoctor_zygote_preload__"
_MESSAGE_BYTES = 2**20
_DRIVER_LIBRARY = re.compile(r"/lib(?:cuda|nvidia-ml)\.so(?:\.\d+)*$")  # the driver and NVML, not libcudart
_PR_SET_PDEATHSIG = 1

F = TypeVar("F", bound=Callable[..., Any])


def preload(*modules: str) -> Callable[[F], F]:
    """Mark a probe that starts processes from the zygote, which imports ``modules`` before its first fork."""

    def mark(function: F) -> F:
        setattr(function, _PRELOAD_ATTRIBUTE, tuple(modules))
        return function

    return mark


@dataclass(frozen=True)
class Imported:
    """How torch came into the worker: the environment of the import and what the import read of it."""

    environ: Mapping[str, str]
    read: frozenset[str]
    listed: bool
    """Whether the import iterated over os.environ (then any variable may have been read)."""
    seconds: float


imported: Imported | None = None
_client: Client | None = None
_warming: threading.Thread | None = None
_import_ended = threading.Event()
"""Set when the warm-up's import of torch has returned or raised (its report follows)."""
_deferred: tuple[tuple[str, ...], int] | None = None
"""What the zygote is to preload, and the number of the request that asked for it."""


@contextlib.contextmanager
def _environment_reads() -> Iterator[tuple[set[str], list[bool]]]:
    """The names this thread reads through os.environ (and os.environb, os.getenv) while inside; a
    listing counts as reading them all."""
    cls = type(os.environ)
    real_get, real_iter = cls.__getitem__, cls.__iter__
    names: set[str] = set()
    listed = [False]
    reader = threading.get_ident()

    def getitem(self: Any, key: Any) -> Any:
        if threading.get_ident() == reader:
            names.add(key.decode(errors="replace") if isinstance(key, bytes) else str(key))
        return real_get(self, key)

    def iterate(self: Any) -> Any:
        if threading.get_ident() == reader:
            listed[0] = True
        return real_iter(self)

    setattr(cls, "__getitem__", getitem)  # noqa: B010 (a method of the class, for os.environ and environb)
    setattr(cls, "__iter__", iterate)  # noqa: B010
    try:
        yield names, listed
    finally:
        setattr(cls, "__getitem__", real_get)  # noqa: B010
        setattr(cls, "__iter__", real_iter)  # noqa: B010


def start_warming(report: Callable[[dict[str, Any]], None]) -> None:
    """Import torch in a thread of its own (:func:`warm`), then ``report({"facts": ...})`` or
    ``report({"error": ...})``; probes meanwhile run, and one that imports torch waits for this import."""
    global _warming

    def run() -> None:
        try:
            outcome: dict[str, Any] = {"facts": warm()}
        except BaseException as exc:  # a broken build can raise anything from OSError to SystemError
            _import_ended.set()  # now, not after the error is put in words, which may take a while
            outcome = {
                "error": {
                    "type": type(exc).__name__,
                    "message": str(exc)[:2000],
                    "traceback": traceback.format_exc(limit=-6)[-3000:],
                }
            }
        _import_ended.set()
        report(outcome)

    _warming = threading.Thread(target=run, name="torchdoctor-warm", daemon=True)
    _warming.start()


def await_report(timeout: float = REPORT_TIMEOUT_S) -> None:
    """Before a probe's answer is sent: if the warm-up's import has ended and its report is still being
    made, let that report go first. A probe that imported torch while the warm-up did was handed the
    half-imported module when that import failed; the runner must know of the failure before it reads the
    answer. While the import still runs the probe did not wait for it, and neither does its answer."""
    if _warming is not None and _import_ended.is_set():
        _warming.join(timeout)


def warm() -> dict[str, Any]:
    """Import torch, noting which variables the import read (from the environment it was read in)."""
    global imported
    if "torch" in sys.modules:
        return {"imported_before": True}
    environ = dict(os.environ)
    started = time.perf_counter()
    collecting = gc.isenabled()
    # The import makes about 170,000 objects that live as long as the process: the full collections it would
    # trigger on the way, and the first one after it, cost about 100 ms and free nothing. Frozen, they are
    # skipped by every later collection, here and in the processes forked from here, whose pages the
    # collector then leaves shared.
    gc.disable()
    try:
        with _environment_reads() as (names, listed):
            import torch
    finally:
        gc.freeze()
        if collecting:
            gc.enable()
    imported = Imported(environ, frozenset(names), listed[0], time.perf_counter() - started)
    return {
        "torch": str(torch.__version__),
        "seconds": round(imported.seconds, 4),
        "variables_read": sorted(names),
        "listed_environment": listed[0],
    }


def prepare(options: Mapping[str, Any]) -> dict[str, Any]:
    """Worker target, before any probe: fork the zygote if a probe of the run (``targets``, in the order
    they will run) asks for it; when that probe runs first, leave the fork to it (:func:`ensure`), so a
    run that ends before it starts anything need not wait for torch."""
    global _deferred
    from torchdoctor import plugin

    modules: list[str] = []
    first = None
    for index, target in enumerate(options.get("targets") or ()):
        try:
            function = plugin.resolve(str(target))
        except Exception:  # the probe's own call reports it
            continue
        wanted = getattr(function, _PRELOAD_ATTRIBUTE, ())
        modules += [m for m in wanted if m not in modules]
        if wanted and first is None:
            first = index
    if not modules:
        return {"zygote": None, "why": "no probe of this run starts processes"}
    _deferred = (tuple(modules), served.handled)
    if first == 0:
        return {"zygote": None, "deferred_to": options["targets"][0]}
    client = ensure()
    return {"zygote": client.pid if client else None, "preload": modules}


def ensure(timeout: float | None = None) -> Client | None:
    """The zygote, forked now if :func:`prepare` left it to the probe now running (the first after it),
    which calls this before it touches CUDA; None if there is none, or if torch is not imported within
    ``timeout`` seconds."""
    global _client, _deferred

    if _client is not None or _deferred is None:
        return _client
    (modules, prepared_at), _deferred = _deferred, None
    if served.handled > prepared_at + 1:  # another probe ran since: the state is no longer known
        return None
    if _warming is not None:
        _warming.join(timeout)  # without a timeout, the caller's deadline bounds this
        if _warming.is_alive():
            return None
    if why_not_fork() is None:
        _client = _fork(modules)
    return _client


def current() -> Client | None:
    """This worker's zygote, if one was forked."""
    return _client


def why_not_fork() -> str | None:
    """Why this process is no state to fork torch processes from, or None when it is."""
    if not sys.platform.startswith("linux") or not hasattr(socket, "send_fds"):
        return "forking a torch process needs Linux"
    if imported is None:
        return "torch was not imported before the probes"
    torch = sys.modules["torch"]
    if torch.cuda.is_initialized():
        return "CUDA is initialised in the worker"
    loaded = driver_libraries()
    if loaded:
        return f"{', '.join(loaded)} is loaded in the worker"
    return None


def driver_libraries() -> list[str]:
    """The CUDA driver and NVML libraries mapped into this process (none until CUDA or NVML is first used)."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split(maxsplit=5)[-1].strip() for line in maps if "/lib" in line}
    except OSError:
        return ["/proc/self/maps (unreadable)"]
    return sorted(os.path.basename(p) for p in paths if _DRIVER_LIBRARY.search(p))


def refusal(torch: Imported, child: Mapping[str, str], may_differ: Collection[str]) -> str | None:
    """Why a child with environment ``child`` cannot be forked from the process that imported ``torch``:
    a variable that differs without the caller's leave, or that the import read, or a thread count that
    cannot be set as the import would have."""
    environ = torch.environ
    changed = sorted(k for k in set(environ) | set(child) if environ.get(k) != child.get(k))
    other = [k for k in changed if k not in may_differ]
    if other:
        return f"{', '.join(other[:5])} differ from the environment torch was imported in"
    if changed and torch.listed:
        return "importing torch listed the whole environment"
    read = [k for k in changed if k in torch.read]
    if read:
        return f"importing torch read {', '.join(read)}"
    if THREAD_VARIABLE in changed and "MKL_NUM_THREADS" not in child and not thread_count(environ, child):
        return f"{THREAD_VARIABLE}={child.get(THREAD_VARIABLE)!r} is not a positive whole number"
    return None


def thread_count(environ: Mapping[str, str], child: Mapping[str, str]) -> int | None:
    """The intra-op thread count to give a child (None: leave torch's as the import set it). The OpenMP
    runtime and MKL read OMP_NUM_THREADS as torch loads them; MKL_NUM_THREADS, when set, overrides it for
    both torch and MKL (ATen's ``intraop_default_num_threads`` and MKL's own rule)."""
    if environ.get(THREAD_VARIABLE) == child.get(THREAD_VARIABLE) or "MKL_NUM_THREADS" in child:
        return None
    return bounded.whole_number(child.get(THREAD_VARIABLE))


# The protocol: one JSON object per SOCK_SEQPACKET message, file descriptors as SCM_RIGHTS. To the
# zygote: {"module", "argv", "env", "threads"} with fds [stdout, stderr]. From it: {"ready"} once, then
# {"spawned": pid} or {"failed": why} for each request, and {"exited": pid, "status"} as children end.


def _send(sock: socket.socket, message: Mapping[str, Any], fds: Sequence[int] = ()) -> None:
    if sys.platform != "linux":  # unreachable: why_not_fork() refuses every other platform first
        raise OSError("the zygote needs Linux")
    data = json.dumps(message).encode()
    if fds:
        socket.send_fds(sock, [data], list(fds))
    else:
        sock.sendall(data)


def _receive(sock: socket.socket) -> tuple[dict[str, Any] | None, list[int]]:
    if sys.platform != "linux":  # unreachable: why_not_fork() refuses every other platform first
        raise OSError("the zygote needs Linux")
    data, fds, _, _ = socket.recv_fds(sock, _MESSAGE_BYTES, 4)
    return (json.loads(data) if data else None), list(fds)


class Forked:
    """A child of the zygote, as much of ``subprocess.Popen`` as the launcher uses."""

    def __init__(self, client: Client, pid: int) -> None:
        self._client = client
        self.pid = pid
        self.returncode: int | None = None
        self.stdout: io.BufferedReader | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self._client.exit_code(self.pid, 0.0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            self.returncode = self._client.exit_code(self.pid, timeout)
        if self.returncode is None:
            raise subprocess.TimeoutExpired(f"pid {self.pid}", timeout or 0.0)
        return self.returncode

    def kill(self) -> None:
        if sys.platform == "linux" and self.poll() is None:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)


class Client:
    """The worker's end of the zygote: asks it for children and learns how they ended."""

    def __init__(self, pid: int, sock: socket.socket) -> None:
        self.pid = pid
        self._sock = sock
        self._lock = threading.Lock()
        self._exits: dict[int, int] = {}
        self._ready: dict[str, Any] | None = None
        self._gone = False

    def spawn(
        self,
        module: str,
        argv: Sequence[str],
        env: Mapping[str, str],
        stdout: int,
        stderr: int,
        may_differ: Collection[str],
        timeout: float = READY_TIMEOUT_S,
    ) -> Forked | str:
        """A child running ``python -P -m module *argv`` in ``env``, or why there is none (then start one)."""
        assert imported is not None
        why = refusal(imported, env, may_differ)
        if why is not None:
            return why
        deadline = time.monotonic() + timeout
        ready = self.ready(timeout)
        if not ready.get("ready"):
            return str(ready.get("why"))
        with self._lock:
            request = {
                "module": module,
                "argv": list(argv),
                "env": dict(env),
                "threads": thread_count(imported.environ, env),
            }
            try:
                _send(self._sock, request, (stdout, stderr))
            except OSError as exc:
                return f"cannot ask the zygote: {exc}"
            while not self._gone and time.monotonic() < deadline:
                answer = self._read(deadline)
                if answer is not None and "spawned" in answer:
                    return Forked(self, int(answer["spawned"]))
                if answer is not None and "failed" in answer:
                    return str(answer["failed"])
            # A request without an answer leaves the protocol out of step: no more children from this zygote.
            self._gone = True
            return "the zygote did not answer"

    def ready(self, timeout: float) -> dict[str, Any]:
        """The zygote's first message: ``{"ready": True}``, or ``{"ready": False, "why": ...}``."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._ready is None and not self._gone and time.monotonic() < deadline:
                self._read(deadline)
            if self._ready is not None:
                return self._ready
        why = "the zygote ended" if self._gone else f"the zygote was not ready within {timeout:g} s"
        return {"ready": False, "why": why}

    def exit_code(self, pid: int, timeout: float | None) -> int | None:
        """The child's exit code as Popen gives it (negative: the signal), once the zygote has reaped it."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while pid not in self._exits and not self._gone:
                if self._read(deadline) is None and deadline is not None and time.monotonic() >= deadline:
                    break
            if pid not in self._exits and self._gone:
                self._reap_adopted(pid)
            status = self._exits.get(pid)
        return None if status is None else os.waitstatus_to_exitcode(status)

    def _reap_adopted(self, pid: int) -> None:
        # Without its zygote a child is adopted by this worker (a child subreaper), which can reap it.
        if sys.platform != "linux":
            return
        with contextlib.suppress(ChildProcessError, OSError):
            reaped, status = os.waitpid(pid, os.WNOHANG)
            if reaped == pid:
                self._exits[pid] = status

    def _read(self, deadline: float | None) -> dict[str, Any] | None:
        """One message, or None at the deadline; an exit is filed, the end of the zygote noted."""
        remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
        with selectors.DefaultSelector() as selector:
            selector.register(self._sock, selectors.EVENT_READ)
            if not selector.select(remaining):
                return None
        try:
            message, fds = _receive(self._sock)
        except (OSError, ValueError):
            message, fds = None, []
        for fd in fds:
            os.close(fd)
        if message is None:
            self._gone = True
            return None
        if "exited" in message:
            self._exits[int(message["exited"])] = int(message["status"])
        elif "ready" in message:
            self._ready = message
        return message

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.close()


def _fork(modules: Sequence[str]) -> Client | None:
    if sys.platform != "linux":  # unreachable: why_not_fork() refuses every other platform first
        return None
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    worker = os.getpid()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    try:
        pid = os.fork()
    except OSError:
        ours.close()
        theirs.close()
        return None
    if pid == 0:  # the zygote
        code = 1
        try:
            ours.close()
            code = _serve(theirs, modules, worker)
        finally:
            os._exit(code)
    theirs.close()
    return Client(pid, ours)


def _die_with(parent: int) -> None:
    if sys.platform != "linux":
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != parent:
        os._exit(0)


def _detach_from_worker() -> None:
    """Let go of the worker's stdin and answer channel (/dev/null in their place): when the worker ends,
    whoever reads them must see the end at once, not when the zygote does."""

    devnull = os.open(os.devnull, os.O_RDWR)
    held = [0] + ([served.channel.fileno()] if served.channel is not None else [])
    for fd in held:
        with contextlib.suppress(OSError, ValueError):
            os.dup2(devnull, fd)
    os.close(devnull)


def _serve(sock: socket.socket, modules: Sequence[str], worker: int) -> int:
    """The zygote: check the state it was forked in, import ``modules``, then fork children on request
    until the worker closes its end (or dies: then the kernel closes it)."""
    if sys.platform != "linux":  # unreachable: why_not_fork() refuses every other platform first
        return 1
    _die_with(worker)  # and no thread of its own: its children would be forked from a threaded process
    _detach_from_worker()
    torch = sys.modules["torch"]
    ready: dict[str, Any] = {"ready": True}
    if torch.cuda._is_in_bad_fork():
        ready = {"ready": False, "why": "torch sees the zygote as forked after CUDA was used"}
    else:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for module in modules:
                    importlib.import_module(module)
        except BaseException as exc:
            ready = {"ready": False, "why": f"importing {module} failed: {type(exc).__name__}: {exc}"}
    _send(sock, ready)
    children: dict[int, int | None] = {}
    with selectors.DefaultSelector() as selector:
        selector.register(sock, selectors.EVENT_READ)
        while True:
            polling = any(fd is None for fd in children.values())
            for key, _ in selector.select(0.05 if polling else None):
                if key.fileobj is not sock:
                    continue
                request, fds = _receive(sock)
                if request is None:
                    return 0
                _start(request, fds, sock, selector, children)
            for pid, fd in list(children.items()):
                reaped, status = os.waitpid(pid, os.WNOHANG)
                if reaped:
                    if fd is not None:
                        selector.unregister(fd)
                        os.close(fd)
                    del children[pid]
                    _send(sock, {"exited": pid, "status": status})


def _start(
    request: Mapping[str, Any],
    fds: list[int],
    sock: socket.socket,
    selector: selectors.BaseSelector,
    children: dict[int, int | None],
) -> None:
    if sys.platform != "linux":  # unreachable: why_not_fork() refuses every other platform first
        raise OSError("the zygote needs Linux")
    try:
        if len(fds) != 2:
            raise ValueError(f"expected stdout and stderr, got {len(fds)} descriptors")
        pid = os.fork()
    except (OSError, ValueError) as exc:
        for fd in fds:
            os.close(fd)
        _send(sock, {"failed": f"cannot fork: {exc}"})
        return
    if pid == 0:
        _become(request, fds)
    for fd in fds:
        os.close(fd)
    pidfd: int | None = None
    with contextlib.suppress(AttributeError, OSError):
        pidfd = os.pidfd_open(pid)  # readable once the child ends (Linux 5.3)
        selector.register(pidfd, selectors.EVENT_READ)
    children[pid] = pidfd
    _send(sock, {"spawned": pid})


def _become(request: Mapping[str, Any], fds: Sequence[int]) -> NoReturn:
    """In the new child: become ``python -P -m module`` started by Popen in the request's environment; never
    returns."""
    code = 1
    if sys.platform != "linux":  # unreachable: why_not_fork() refuses every other platform first
        os._exit(code)
    try:
        os.setsid()
        stdin = os.open(os.devnull, os.O_RDONLY)
        for fd, target in ((stdin, 0), (fds[0], 1), (fds[1], 2)):
            os.dup2(fd, target)
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
        _fresh_stdio()
        os.environ.clear()
        os.environ.update(request["env"])
        if request.get("threads"):
            sys.modules["torch"].set_num_threads(int(request["threads"]))
        cast(list[Any], warnings.filters)[:] = STARTUP_WARNING_FILTERS
        warnings._filters_mutated()  # type: ignore[attr-defined]
        module, argv = str(request["module"]), [str(a) for a in request["argv"]]
        sys.argv = [module, *argv]
        sys.orig_argv = [sys.executable, "-P", "-m", module, *argv]
        # The worker may have imported it (the dry run's launcher reads the rank program's protocol): runpy
        # would warn that it found it in sys.modules, where a fresh `python -m` never finds it.
        sys.modules.pop(module, None)
        code = 0
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if not isinstance(exc.code, int) and exc.code is not None:
            print(exc.code, file=sys.stderr)
    except BaseException:
        code = 1
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)


def _fresh_stdio() -> None:
    """sys.stdin, stdout and stderr made on descriptors 0, 1 and 2 as the interpreter makes them at start
    (CPython's ``create_stdio``), with the encoding and buffering the worker's interpreter chose."""
    import faulthandler

    faulthandler.disable()  # the worker's, on its stderr; the child enables its own if it wants one
    buffered = not getattr(sys.__stdout__, "write_through", False)  # False under -u or PYTHONUNBUFFERED
    for fd, name, writes in ((0, "stdin", False), (1, "stdout", True), (2, "stderr", True)):
        like = getattr(sys, f"__{name}__", None)
        buffering = -1 if buffered or not writes else 0
        binary: Any = open(fd, "wb" if writes else "rb", buffering, closefd=False)  # noqa: SIM115
        raw = binary.raw if buffering else binary
        with contextlib.suppress(AttributeError):
            raw.name = f"<{name}>"
        stream = io.TextIOWrapper(
            binary,
            getattr(like, "encoding", None) or "utf-8",
            getattr(like, "errors", None) or ("backslashreplace" if fd == 2 else "strict"),
            "\n",
            line_buffering=buffered and (raw.isatty() or fd == 2),
            write_through=not buffered,
        )
        with contextlib.suppress(AttributeError):
            stream.mode = "w" if writes else "r"  # type: ignore[misc]
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)
