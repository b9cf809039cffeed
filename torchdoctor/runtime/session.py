"""One recording: started before the program (or the ``with`` body) runs, attached to torch once torch is
imported, and finished with the explanation of the error the program raised, the summary and the report.

Whatever goes wrong inside torchdoctor here is said on stderr in one block and leaves the program alone.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.util
import os
import sys
import time
from dataclasses import dataclass
from types import ModuleType, TracebackType
from typing import Any, Protocol

from torchdoctor._version import __version__
from torchdoctor.inputs.bounded import whole_number
from torchdoctor.runtime import render
from torchdoctor.runtime.imports import AfterImport
from torchdoctor.runtime.model import Finding, RunReport

TORCH = "torch"
LIVE_ONLY = ("rank_device", "rank_device_ids")
"""Findings said the moment they are found (each rank's own), not again in the summary."""
_USED_LATER = (
    "torchdoctor.runtime.audit",
    "torchdoctor.output.redact",
    "torchdoctor.commands.report",
    "torchdoctor.runtime.recorder",
    "torchdoctor.runtime.expressions",
    "torchdoctor.runtime.explainer",
    "torchdoctor.runtime.deep",
    "torchdoctor.runtime.nan",
    "torchdoctor.runtime.output",
    "torchdoctor.runtime.emulation.emulator",
)
"""torchdoctor's modules a session imports while the program runs: imported up front, because the program
runs with sys.path[0] set to its own folder, where torchdoctor may not be found (a source checkout run with
python -m torchdoctor). None of them imports torch."""


def preload() -> None:
    for name in _USED_LATER:
        importlib.import_module(name)


class Writer(Protocol):
    """Where torchdoctor's own blocks go: a text stream, or a guard in front of one."""

    def write(self, text: str, /) -> int: ...
    def flush(self) -> None: ...


@dataclass
class Options:
    deep: bool = False
    nan: bool = False
    report: str | None = None
    """Where to write the JSON report (a regular file; one per rank under torchrun)."""
    redact: bool = True
    gpus: int | None = None
    """Emulate this many GPUs on the CPU (``--gpus N``)."""


@dataclass(frozen=True)
class Rank:
    rank: int | None
    local_rank: int | None
    world_size: int | None

    @classmethod
    def from_environment(cls, environ: Any = None) -> Rank:
        env = os.environ if environ is None else environ
        return cls(
            whole_number(env.get("RANK")),
            whole_number(env.get("LOCAL_RANK")),
            whole_number(env.get("WORLD_SIZE")),
        )

    @property
    def distributed(self) -> bool:
        return self.local_rank is not None or (self.world_size or 0) > 1

    def to_json(self) -> dict[str, int] | None:
        if not self.distributed:
            return None
        return {
            key: value
            for key, value in (
                ("rank", self.rank),
                ("local_rank", self.local_rank),
                ("world_size", self.world_size),
            )
            if value is not None
        }


def report_path(path: str, rank: Rank) -> str:
    """The report of this rank: ``{rank}`` in the path replaced by the rank, else ``.rankN`` before the
    suffix when the job has several ranks; the path itself otherwise."""
    if "{rank}" in path:
        return path.replace("{rank}", str(rank.rank if rank.rank is not None else 0))
    if not rank.distributed or rank.rank is None:
        return path
    root, suffix = os.path.splitext(path)
    return f"{root}.rank{rank.rank}{suffix}"


class Session:
    def __init__(
        self,
        options: Options,
        argv: list[str] | None = None,
        module: str | None = None,
        err: Writer | None = None,
    ) -> None:
        preload()
        self.options = options
        self.argv = list(sys.argv if argv is None else argv)
        self.module = module
        self._err = err
        self.rank = Rank.from_environment()
        # The run's report, where the run was started (a program may change its folder, as Hydra does), and
        # the process that started it: a child it forked that runs on to the end says and writes nothing.
        self.report_path = (
            os.path.abspath(report_path(options.report, self.rank)) if options.report is not None else None
        )
        self._pid = os.getpid()
        self.recorder: Any = None
        self.emulator: Any = None
        self.torch_version: str | None = None
        self.failure: str | None = None
        self.deep_mode: Any = None
        self.nan_watch: Any = None
        self._waiting: AfterImport | None = None
        self._finished = False

    # --- output ------------------------------------------------------------------------------------------

    @property
    def err(self) -> Writer:
        return self._err if self._err is not None else sys.stderr

    def say(self, lines: list[str]) -> None:
        """One marked block on stderr; a stderr that cannot be written costs nothing but the block."""
        rank = self.rank.rank if self.rank.distributed else None
        try:
            self.err.write(render.block(lines, rank))
            self.err.flush()
        except (OSError, ValueError):
            pass

    # --- starting ----------------------------------------------------------------------------------------

    def start(self) -> None:
        torch = sys.modules.get(TORCH)
        if torch is not None and hasattr(torch, "Tensor"):
            self.attach(torch)
        else:
            self._waiting = AfterImport(TORCH, self.attach)
            self._waiting.install()

    def attach(self, torch: ModuleType) -> None:
        """Start recording in ``torch`` (just imported by the program, or already there)."""
        if self.recorder is not None or self._finished:
            return
        try:
            from torchdoctor.runtime.recorder import Recorder

            self.torch_version = str(getattr(torch, "__version__", "unknown"))
            if self.options.gpus:
                self._emulate(torch, self.options.gpus)
            recorder = Recorder(torch, self.say, local_rank=self.rank.local_rank)
            recorder.install()
            self.recorder = recorder
            if self.options.deep:
                from torchdoctor.runtime.deep import DeepMode

                recorder.deep = True
                self.deep_mode = DeepMode.start(recorder)
            if self.options.nan:
                from torchdoctor.runtime.nan import NonfiniteWatch

                self.nan_watch = NonfiniteWatch.start(recorder)
        except Exception as exc:
            self.failure = f"{type(exc).__name__}: {exc}"
            if self.recorder is not None:
                self.recorder.uninstall()
            self.say(
                [f"torchdoctor could not start recording: {self.failure}", "  the program runs without it"]
            )

    def _emulate(self, torch: ModuleType, count: int) -> None:
        """Emulate ``count`` GPUs, said once; without them the program cannot run as written, so a failure
        here is said and the program runs on the CPU as it is."""
        from torchdoctor.runtime.emulation.emulator import Emulator, announcement

        try:
            emulator = Emulator(torch, count, self.say)
            emulator.install()
        except Exception as exc:
            self.say([f"torchdoctor could not emulate GPUs: {type(exc).__name__}: {exc}"])
            return
        self.emulator = emulator
        self.say(announcement(count))

    # --- finishing ---------------------------------------------------------------------------------------

    def finish(self, exc: BaseException | None, exit_code: int | None) -> RunReport:
        """Explain ``exc``, stop recording, print the summary and the explanation (in that order: the
        explanation comes right before the traceback), write the report; never raises. In a process the
        program forked, which ends the program's code too, nothing is said or written: that is the run's."""
        self._finished = True
        if os.getpid() != self._pid:
            if self._waiting is not None:
                self._waiting.remove()
            return self._report(exit_code)
        if self._waiting is not None:
            self._waiting.remove()
        explained: list[Finding] = []
        report = self._report(exit_code)
        try:
            explained = self._explain(exc)
            self._stop()
            report.findings = self._summary_findings() + explained
            report.transfers = list(self.recorder.transfers.values()) if self.recorder else []
            report.syncs = sorted(
                self.recorder.syncs.values() if self.recorder else [], key=lambda s: -s.count
            )
        except Exception as error:
            self.say([f"torchdoctor failed while finishing: {type(error).__name__}: {error}"])
        summary = [f for f in report.findings if f not in explained and f.id not in LIVE_ONLY]
        lines = render.summary_lines(RunReport(**{**vars(report), "findings": summary}), summary)
        if lines or not (explained or report.findings):
            self.say(lines or [self._nothing()])
        if explained:
            self.say([line for finding in explained for line in ["", *render.finding_lines(finding)]][1:])
        if self.recorder is not None:
            report.recorder = "failed" if self.recorder.failure else "on"
            report.recorder_failure = self.recorder.failure
            self.recorder.forget()
        self._write(report)
        return report

    def _nothing(self) -> str:
        if self.recorder is None:
            return "nothing recorded: the program did not import torch" + (
                f" ({self.failure})" if self.failure else ""
            )
        modes = ", ".join(m for m, on in (("--deep", self.options.deep), ("--nan", self.options.nan)) if on)
        return f"nothing found ({modes or 'light mode'}): no device mismatch, no transfer or rank problem"

    def _explain(self, exc: BaseException | None) -> list[Finding]:
        if exc is None or self.recorder is None:
            return []
        from torchdoctor.runtime.explainer import explain

        try:
            return explain(exc, self.recorder)
        except Exception as error:
            self.say([f"torchdoctor could not explain the error: {type(error).__name__}: {error}"])
            return []

    def _stop(self) -> None:
        if self.deep_mode is not None:
            self.deep_mode.stop()
        if self.nan_watch is not None:
            self.nan_watch.stop()
        if self.recorder is not None:
            self.recorder.uninstall()
        if self.emulator is not None:
            self.emulator.uninstall()

    def _summary_findings(self) -> list[Finding]:
        from torchdoctor.runtime import transfers

        if self.recorder is None:
            return []
        found = list(self.recorder.findings)
        for entry in self.recorder.transfers.values():
            found += transfers.judge(entry)
        if self.nan_watch is not None and self.nan_watch.finding is not None:
            found.append(self.nan_watch.finding)
        return found

    def _report(self, exit_code: int | None) -> RunReport:
        return RunReport(
            tool_version=__version__,
            created_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            argv=self.argv,
            module=self.module,
            exit_code=exit_code,
            rank=self.rank.to_json(),
            deep=self.options.deep,
            nan=self.options.nan,
            torch_version=self.torch_version,
            recorder="failed" if self.failure else "off",
            recorder_failure=self.failure,
        )

    def _write(self, report: RunReport) -> None:
        if self.report_path is None:
            return
        from torchdoctor.runtime.output import write_report

        problem = write_report(report, self.report_path, self.options.redact)
        if problem is not None:
            self.say([f"torchdoctor could not write the report: {problem}"])


class Watch(contextlib.ContextDecorator):
    """``with torchdoctor.watch(): ...`` or ``@torchdoctor.watch()``: records while the body runs; a device
    mismatch raised from the body is explained on stderr and raised on unchanged. Watches nest: only the
    outermost records."""

    _active = 0

    def __init__(self, options: Options) -> None:
        self.options = options
        self._sessions: list[Session | None] = []
        self.report: RunReport | None = None

    def __enter__(self) -> Watch:
        Watch._active += 1
        session = Session(self.options) if Watch._active == 1 else None
        self._sessions.append(session)
        if session is not None:
            session.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        Watch._active -= 1
        session = self._sessions.pop() if self._sessions else None
        if session is not None:
            self.report = session.finish(exc, None)
