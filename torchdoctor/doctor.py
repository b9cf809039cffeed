"""One diagnosis: select checks, run their probes, judge, and assemble the Report."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from torchdoctor import exitcodes, host, registry, runner
from torchdoctor._version import __version__
from torchdoctor.model import Report, Status
from torchdoctor.plugin import Check, Probe
from torchdoctor.registry import LoadFailure


def select_checks(only: Iterable[str] = (), skip: Iterable[str] = ()) -> list[Check | LoadFailure]:
    """Load the checks chosen by --only/--skip; raises registry.UnknownCheckError for a bad id."""
    entries = registry.select(registry.find_entries(), only, skip)
    return sorted((registry.load(entry) for entry in entries), key=registry.table_key)


def diagnose(
    checks: Sequence[Check | LoadFailure],
    options: dict[str, Any],
    timeout: float = runner.DEFAULT_TIMEOUT_S,
    fail_on: Status = Status.FAIL,
    progress: runner.Progress | None = None,
    extra_probes: Sequence[Probe] = (),
) -> Report:
    """Run the checks' probes (and ``extra_probes``, for facts no check needs) in a worker, judge, report."""
    started = time.perf_counter()
    created_at = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    probes, _ = runner.needed_probes(checks)
    # A check's probe of the same name wins.
    names = {p.name for p in probes}
    probes += [p for p in extra_probes if p.name not in names]
    run = runner.run_probes(probes, options, timeout=timeout, progress=progress)
    verdicts = runner.judge_all(checks, run.facts, run.errors, options, run.durations, timeout)
    report = Report(
        tool_version=__version__,
        created_at=created_at,
        host=host.summary(),
        options={**options, "timeout": timeout, "fail_on": fail_on.value},
        facts=run.facts,
        verdicts=verdicts,
        timings={
            "total_s": round(time.perf_counter() - started, 4),
            "probes": {name: round(s, 4) for name, s in run.durations.items()},
        },
        exit_code=exitcodes.for_verdicts(verdicts, fail_on),
        probe_errors=run.errors,
        worker_log="".join(run.worker_log),
    )
    return report
