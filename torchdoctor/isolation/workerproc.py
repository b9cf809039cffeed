"""The parent's handle on one worker process: send a request, wait for its answer with a deadline.

A worker that hangs, dies, or answers something that is not a JSON answer raises :class:`ProbeFailure`; the
caller then throws the worker away and starts another one for the remaining requests. Everything the worker
started goes with it: its process group, and any descendant that left it (``setsid``), found through the
worker's process tree (the worker is a child subreaper, so even a double-forked daemon stays in its tree).
The tree is stopped before it is killed, so that nothing forks away between the look and the kill; and
where the worker died before it could be killed, what it started is found by the mark every process it
started inherits in its environment (MARK_ENV). What the worker prints on stderr is kept as a bounded tail,
whatever the amount.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from typing import IO, Any

from torchdoctor.isolation import processes, pycommand

WORKER_MODULE = "torchdoctor.isolation.worker"
WARM_ID = 0
"""The id of the worker's line about its warm-up (``torchdoctor.isolation.worker.WARM_ID``)."""
STDERR_TAIL_BYTES = 4000
"""How much of the worker's stderr an error verdict quotes."""
STDERR_KEPT_BYTES = 256 * 2**10
"""How much of the worker's stderr is kept for -v; older output is dropped as it comes."""
MAX_ANSWER_BYTES = 64 * 2**20
"""The longest answer line read from a worker; a longer one is garbage."""
MARK_ENV = "TORCHDOCTOR_WORKER_MARK"
"""A variable each worker is started with, a value of its own: every process it starts inherits it."""
MAX_STOP_ROUNDS = 16
"""How many times the tree is looked at again for what forked while it was being stopped."""


class ProbeFailure(Exception):
    """A request that produced no answer: ``kind`` is timeout, crash, exit, garbage or start."""

    def __init__(self, kind: str, message: str, stderr_tail: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.stderr_tail = stderr_tail

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "stderr_tail": self.stderr_tail}


def signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


class _Tail:
    """The last ``limit`` bytes of a stream, read by a daemon thread as they come."""

    def __init__(self, stream: IO[bytes], limit: int) -> None:
        self._chunks: deque[bytes] = deque()
        self._size = 0
        self._limit = limit
        self._lock = threading.Lock()
        self._thread = threading.Thread(
            target=self._read, args=(stream,), name="torchdoctor-stderr", daemon=True
        )
        self._thread.start()

    def _read(self, stream: IO[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError):
            while chunk := stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536):
                with self._lock:
                    self._chunks.append(chunk)
                    self._size += len(chunk)
                    while self._size - len(self._chunks[0]) >= self._limit:
                        self._size -= len(self._chunks.popleft())

    def text(self, limit: int | None = None, ended: bool = True) -> str:
        """The tail; once the worker has ``ended``, after the reader has drained what it wrote last (a live
        worker's stream has no end to wait for)."""
        self._thread.join(timeout=0.2 if ended else 0.01)
        with self._lock:
            data = b"".join(self._chunks)
        return data[-(limit or self._limit) :].decode("utf-8", errors="replace")


class WorkerProcess:
    """One ``python -P -m torchdoctor.isolation.worker`` process, in its own session so it can be killed
    whole.

    ``warm``: it imports torch from the start, in the background; ``warmed`` holds how that went once its
    line has been read (``{"facts": ...}`` or ``{"error": ...}``), None before.
    """

    def __init__(
        self,
        python: str = sys.executable,
        env: dict[str, str] | None = None,
        memory_limit: int | None = None,
        warm: bool = False,
    ) -> None:
        self._answers: queue.Queue[str | None] = queue.Queue()
        self._next_id = 0
        self.warm = warm
        self.warmed: dict[str, Any] | None = None
        # -P: the worker must import the installed torchdoctor, never a folder of that
        # name in the user's current directory.
        command = pycommand.run_module(python, WORKER_MODULE)
        self.mark = os.urandom(8).hex()
        env = {**(os.environ if env is None else env), MARK_ENV: self.mark}
        if memory_limit is not None:
            command += ["--memory-limit", str(int(memory_limit))]
        if warm:
            command.append("--warm")
        try:
            self.proc: subprocess.Popen[bytes] | None = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                **processes.own_group(),
            )
        except OSError as exc:
            self.proc = None
            self._start_error = f"cannot start the worker ({python}): {exc}"
            return
        assert self.proc.stderr is not None
        self._stderr = _Tail(self.proc.stderr, STDERR_KEPT_BYTES)
        self._reader = threading.Thread(
            target=self._read_answers, name="torchdoctor-worker-reader", daemon=True
        )
        self._reader.start()
        # Here, while the worker starts up, rather than at its end, where it would add to the run: kill()
        # lists what the worker started with psutil.
        with contextlib.suppress(ImportError):
            import psutil  # noqa: F401

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def _read_answers(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        with contextlib.suppress(OSError, ValueError):
            while raw := self.proc.stdout.readline(MAX_ANSWER_BYTES + 1):
                if len(raw) > MAX_ANSWER_BYTES:
                    self._answers.put(
                        raw[:200].decode("utf-8", errors="replace") + " ... (more than the limit)"
                    )
                    break
                self._answers.put(raw.decode("utf-8", errors="replace"))
        self._answers.put(None)

    def call(self, target: str, options: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Run one request; returns the worker's answer (``facts`` or ``error``) or raises ProbeFailure."""
        if self.proc is None:
            raise ProbeFailure("start", self._start_error)
        self._next_id += 1
        request = {"id": self._next_id, "target": target, "options": options}
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write((json.dumps(request) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._died() from None
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._answers.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.kill()
                raise ProbeFailure("timeout", f"timed out after {timeout:g} s", self.stderr_tail()) from None
            if line is None:
                raise self._died()
            try:
                answer = json.loads(line)
                if not isinstance(answer, dict):
                    raise ValueError("not an answer")
                if self.warm and self.warmed is None and answer.get("id") == WARM_ID and "warm" in answer:
                    self.warmed = dict(answer["warm"])
                    continue
                if answer.get("id") != self._next_id:
                    raise ValueError("not an answer to this request")
            except (ValueError, RecursionError, TypeError):
                self.kill()
                shown = line.strip()[:200]
                raise ProbeFailure(
                    "garbage", f"the worker answered garbage: {shown!r}", self.stderr_tail()
                ) from None
            return answer

    def _died(self) -> ProbeFailure:
        assert self.proc is not None
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()
            return ProbeFailure(
                "crash", "the worker closed its channel and stopped answering", self.stderr_tail()
            )
        self._end_marked()
        if code < 0:
            return ProbeFailure("crash", f"the worker died of {signal_name(code)}", self.stderr_tail())
        return ProbeFailure("exit", f"the worker exited with code {code}", self.stderr_tail())

    def stderr_tail(self) -> str:
        if self.proc is None:
            return ""
        return self._stderr.text(STDERR_TAIL_BYTES, ended=self.proc.poll() is not None).strip()

    def stderr_text(self) -> str:
        return self._stderr.text(ended=self.proc.poll() is not None) if self.proc is not None else ""

    def _descendants(self) -> list[Any]:
        return processes.descendants(self.proc.pid) if self.proc is not None else []

    def _stopped_tree(self) -> list[Any]:
        """The worker's descendants, each stopped (SIGSTOP; suspended on Windows), looked at again until no
        new one appears: a stopped process forks no more, and a child it forked meanwhile is found in the next
        round."""
        stopped: dict[int, Any] = {}
        for _ in range(MAX_STOP_ROUNDS):
            new = [p for p in self._descendants() if p.pid not in stopped]
            if not new:
                break
            for process in new:
                with contextlib.suppress(Exception):
                    process.suspend()
                stopped[process.pid] = process
        return list(stopped.values())

    def _marked(self) -> list[Any]:
        """The processes still carrying this worker's mark: what it started, wherever they went (a daemon
        adopted by init once the worker was gone)."""
        try:
            import psutil
        except ImportError:
            return []
        found = []
        for process in psutil.process_iter():
            with contextlib.suppress(psutil.Error, OSError):
                if process.pid != os.getpid() and process.environ().get(MARK_ENV) == self.mark:
                    found.append(process)
        return found

    def _end_marked(self) -> None:
        """The worker died first: its orphans went to init, out of its tree. The mark finds them."""
        for process in self._marked():
            with contextlib.suppress(Exception):
                process.kill()

    def kill(self) -> None:
        """Kill the worker and everything it started; never wait long for a process stuck in the kernel."""
        if self.proc is None:
            return
        if self.proc.poll() is not None:
            self._end_marked()
            return
        processes.stop(self.proc.pid)  # no new child from the worker itself either
        descendants = self._stopped_tree()
        processes.kill_group(self.proc)
        for process in descendants:
            with contextlib.suppress(Exception):
                process.kill()
        with contextlib.suppress(OSError):
            self.proc.kill()  # a worker stopped outside its group (it never is) still goes
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=2)

    def close(self) -> None:
        """End the worker and everything it started.

        Its answers are in; a graceful exit would only spend time in torch's interpreter teardown. Killed
        while it still runs, it cannot leave its tree to init first, as it would on the end of its input.
        """
        if self.proc is None:
            return
        self.kill()
        with contextlib.suppress(OSError):
            assert self.proc.stdin is not None
            self.proc.stdin.close()
