"""``torchdoctor.memory_report()``: the ``gpu.fragmentation`` verdict from inside a training process.

The caching allocator's statistics exist only in the process that allocates
(research/memory_bandwidth.md §0.1), so this runs in the user's own job::

    import torchdoctor
    print(torchdoctor.memory_report())          # the verdict table
    report = torchdoctor.memory_report(device=0)
    report.status, report.to_json()              # "warn", a report valid against the JSON schema

It reads ``torch.cuda.memory_stats()`` and the live snapshot (``torch.cuda.memory._snapshot()``)
and judges them with the same judge as ``torchdoctor check`` (``gpu.fragmentation``).
It never initialises CUDA itself: before the job has touched the GPU, or without CUDA, the
verdict is a ``skip`` that says why.
"""

from __future__ import annotations

import io
import time
from dataclasses import dataclass, field
from typing import Any

from torchdoctor._version import __version__
from torchdoctor.checking import doctor, exitcodes, registry, runner
from torchdoctor.machine import host
from torchdoctor.model import Report, Status, Verdict


@dataclass
class MemoryReport:
    """The verdicts and the facts they came from; prints as the verdict table, converts to JSON."""

    verdicts: list[Verdict]
    facts: dict[str, Any]
    created_at: str
    duration_s: float
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> Status:
        return max((v.status for v in self.verdicts), key=lambda s: s.severity)

    def report(self) -> Report:
        """As a :class:`~torchdoctor.model.Report`, the object every renderer reads."""
        return Report(
            tool_version=__version__,
            created_at=self.created_at,
            host=host.summary(),
            options=dict(self.options),
            facts=self.facts,
            verdicts=list(self.verdicts),
            timings={"total_s": round(self.duration_s, 4), "probes": {}},
            exit_code=exitcodes.for_verdicts(self.verdicts),
        )

    def to_json(self) -> dict[str, Any]:
        """The report as JSON, valid against torchdoctor/schema/report.schema.json."""
        return self.report().to_json()

    def __str__(self) -> str:
        from torchdoctor.render import text

        out = io.StringIO()
        text.render(self.report(), out, verbose=True)
        return out.getvalue()

    def __rich__(self) -> Any:
        from torchdoctor.render import table

        return table.build_table(self.report(), verbose=True)


def memory_report(device: Any = None) -> MemoryReport:
    """Judge this process's CUDA caching allocator: ``device`` is an index, ``"cuda:1"`` or a
    ``torch.device``; ``None`` judges every GPU this process has allocated on."""
    started = time.perf_counter()
    created_at = doctor.now()
    entry = registry.find_entry(CHECK_ID)
    check = registry.load(entry)
    if isinstance(check, registry.LoadFailure):
        verdict = runner.load_error_verdict(check)
        return MemoryReport([verdict], {}, created_at, time.perf_counter() - started)
    # The check's probes, run here: the job's own allocator is the evidence, and only this process has it.
    options = {"in_process": True, "device": None if device is None else str(device)}
    facts: dict[str, Any] = {}
    errors: dict[str, Any] = {}
    durations: dict[str, float] = {}
    for probe in check.probes:
        began = time.perf_counter()
        answer = hosted_probe(probe.target, options)
        durations[probe.name] = time.perf_counter() - began
        if "error" in answer:
            errors[probe.name] = answer["error"]
        else:
            facts[probe.name] = answer["facts"]
    verdict = runner.judge_here(check, entry, facts, errors, {}, durations)
    elapsed = time.perf_counter() - started
    return MemoryReport(
        [verdict], facts, created_at, elapsed, {"source": "memory_report", "device": str(device)}
    )


CHECK_ID = "gpu.fragmentation"


def hosted_probe(target: str, options: dict[str, Any]) -> dict[str, Any]:
    """Run a probe in this process, as the worker runs it: its facts, or the error it raised."""
    from torchdoctor.isolation import worker

    return worker.handle({"target": target, "options": options})
