"""The parent's handle on one worker process: send a probe request, wait for its answer with a deadline.

A worker that hangs, dies, or answers something that is not a JSON answer
raises :class:`ProbeFailure`; the caller then throws the worker away and
starts another one for the remaining probes.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import IO, Any

WORKER_MODULE = "torchdoctor.worker"
_STDERR_TAIL_BYTES = 4000


class ProbeFailure(Exception):
    """A probe that produced no answer: ``kind`` is timeout, crash, exit, garbage or start."""

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


class WorkerProcess:
    """One ``python -P -m torchdoctor.worker`` process, in its own session so it can be killed whole."""

    def __init__(self, python: str = sys.executable, env: dict[str, str] | None = None) -> None:
        self._stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the worker)
        self._answers: queue.Queue[str | None] = queue.Queue()
        self._next_id = 0
        # -P: the worker must import the installed torchdoctor, never a folder of that
        # name in the user's current directory.
        command = [python, "-P", "-m", WORKER_MODULE]
        try:
            self.proc: subprocess.Popen[bytes] | None = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                env=env,
                start_new_session=os.name == "posix",
            )
        except OSError as exc:
            self.proc = None
            self._start_error = f"cannot start the worker ({python}): {exc}"
            return
        self._reader = threading.Thread(
            target=self._read_answers, name="torchdoctor-worker-reader", daemon=True
        )
        self._reader.start()

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def _read_answers(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for raw in self.proc.stdout:
            self._answers.put(raw.decode("utf-8", errors="replace"))
        self._answers.put(None)

    def call(self, target: str, options: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Run one probe; returns the worker's answer (``facts`` or ``error``) or raises ProbeFailure."""
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
        try:
            line = self._answers.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            self.kill()
            raise ProbeFailure("timeout", f"timed out after {timeout:g} s", self.stderr_tail()) from None
        if line is None:
            raise self._died()
        try:
            answer = json.loads(line)
            if not isinstance(answer, dict) or answer.get("id") != self._next_id:
                raise ValueError("not an answer to this request")
        except ValueError:
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
        if code < 0:
            return ProbeFailure("crash", f"the worker died of {signal_name(code)}", self.stderr_tail())
        return ProbeFailure("exit", f"the worker exited with code {code}", self.stderr_tail())

    def stderr_tail(self) -> str:
        try:
            self._stderr.flush()
            size = self._stderr.seek(0, os.SEEK_END)
            self._stderr.seek(max(0, size - _STDERR_TAIL_BYTES))
            return self._stderr.read().decode("utf-8", errors="replace").strip()
        except (OSError, ValueError):
            return ""

    def stderr_text(self) -> str:
        try:
            self._stderr.seek(0)
            return self._stderr.read().decode("utf-8", errors="replace")
        except (OSError, ValueError):
            return ""

    def kill(self) -> None:
        """Kill the worker and everything it started; never wait long for a process stuck in the kernel."""
        if self.proc is None or self.proc.poll() is not None:
            return
        with contextlib.suppress(OSError):
            if os.name == "posix":
                os.killpg(self.proc.pid, signal.SIGKILL)
            else:
                self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=2)

    def close(self) -> None:
        """End the worker and everything it started.

        Its answers are in; a graceful exit would only spend time in torch's interpreter teardown.
        """
        if self.proc is None:
            return
        with contextlib.suppress(OSError):
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        self.kill()
        with contextlib.suppress(OSError):
            self._stderr.close()
