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

import dataclasses
import io
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from torchdoctor import envvars, exitcodes, host, runner
from torchdoctor._version import __version__
from torchdoctor.checks.memory import allocator_snapshot
from torchdoctor.model import Report, Status, Verdict

# torch.cuda.memory_stats() counters kept as facts (docstring of memory_stats in torch/cuda/memory.py).
_COUNTERS = ("num_alloc_retries", "num_ooms", "num_sync_all_streams", "num_device_alloc", "num_device_free")
_STATS = (
    "allocated_bytes.all.current",
    "allocated_bytes.all.peak",
    "reserved_bytes.all.current",
    "reserved_bytes.all.peak",
    "inactive_split_bytes.all.current",
    "requested_bytes.all.current",
)


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
    from torchdoctor.checks.memory import fragmentation_check

    started = time.perf_counter()
    created_at = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    facts = collect(device)
    collected = time.perf_counter() - started
    # The CLI's judging path, so a judge that raises is an error verdict, not an exception in the job. The
    # job's own allocator is the evidence here; NVML's view from outside is not needed.
    check = dataclasses.replace(
        fragmentation_check.CHECK,
        probes=tuple(p for p in fragmentation_check.CHECK.probes if p.name in facts),
    )
    verdicts = runner.judge_all([check], facts, {}, {}, {"allocator": collected})
    elapsed = time.perf_counter() - started
    return MemoryReport(
        verdicts, facts, created_at, elapsed, {"source": "memory_report", "device": str(device)}
    )


def collect(device: Any = None) -> dict[str, Any]:
    """The facts the judge reads: the allocator variables and this process's allocator."""
    return {"env": {"variables": envvars.relevant()}, "allocator": _allocator(device)}


def _unavailable(reason: str) -> dict[str, Any]:
    return {"source": None, "unavailable_reason": reason, "devices": []}


def _allocator(device: Any) -> dict[str, Any]:
    try:
        with warnings.catch_warnings():  # only the first import in a process warns; the job's came first
            warnings.simplefilter("ignore")
            import torch
    except Exception as exc:  # a broken torch raises anything from OSError to SystemError
        return _unavailable(f"torch cannot be imported here ({type(exc).__name__}: {exc})")
    if not torch.cuda.is_available():
        build = "a CPU-only build" if torch.version.cuda is None else f"built for CUDA {torch.version.cuda}"
        return _unavailable(f"CUDA is not available in this process (torch {torch.__version__}, {build})")
    if not torch.cuda.is_initialized():
        # Initialising CUDA here would create a context the job did not ask for.
        return _unavailable(
            "this process has not used CUDA yet: call memory_report() after the model has run on the GPU"
        )
    wanted = _device_indices(torch, device)
    try:
        summary = allocator_snapshot.summarize(torch.cuda.memory._snapshot())
    except Exception as exc:  # cudaMallocAsync and pluggable allocators may not snapshot
        summary = {"devices": [], "segments": 0, "allocator_settings": None, "snapshot_error": str(exc)}
    by_device = {d["device"]: d for d in summary["devices"]}
    devices = []
    for index in wanted:
        entry = by_device.get(index) or {"device": index, "pools": [], "ooms": [], **_zero_totals()}
        entry["counters"], entry["stats"] = _stats(torch.cuda.memory_stats(index))
        devices.append(entry)
    return {
        "source": "in_process",
        "backend": _backend(torch),
        "segments": summary["segments"],
        "allocator_settings": summary["allocator_settings"],
        "devices": devices,
        **({"snapshot_error": summary["snapshot_error"]} if "snapshot_error" in summary else {}),
    }


def _device_indices(torch: Any, device: Any) -> list[int]:
    if device is not None:
        return [torch.cuda._utils._get_device_index(device, optional=True)]
    used = [
        index
        for index in range(torch.cuda.device_count())
        if torch.cuda.memory_stats(index).get("reserved_bytes.all.peak", 0) > 0
    ]
    return used or [torch.cuda.current_device()]


def _stats(stats: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    counters = {key: int(stats[key]) for key in _COUNTERS if key in stats}
    return counters, {key: int(stats[key]) for key in _STATS if key in stats}


def _zero_totals() -> dict[str, int]:
    keys = (
        "reserved_bytes",
        "allocated_bytes",
        "free_bytes",
        "inactive_split_bytes",
        "largest_free_block_bytes",
    )
    return dict.fromkeys(keys, 0)


def _backend(torch: Any) -> str | None:
    try:
        return str(torch.cuda.get_allocator_backend())
    except Exception:
        return None
