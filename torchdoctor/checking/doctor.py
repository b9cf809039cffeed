"""One diagnosis: describe and select checks, run their probes, judge, and assemble the Report.

:func:`assemble` is the one place a Report is built from facts: ``check``, ``report``, ``cluster`` and
``check --from`` all go through it, so every verdict of every command comes from the same judging path.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from torchdoctor._version import __version__
from torchdoctor.checking import exitcodes, registry, runner
from torchdoctor.checking.registry import Loaded
from torchdoctor.checking.runner import Workers
from torchdoctor.machine import host
from torchdoctor.model import Report, Status, Verdict
from torchdoctor.plugin import Probe


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def installed_checks(workers: Workers, group: str = registry.CHECKS) -> list[Loaded]:
    """Every installed check of ``group``, described by the worker (a broken plugin is a LoadFailure)."""
    return runner.describe(registry.find_entries(group), workers.host)


def select_checks(
    checks: Sequence[Loaded], only: Iterable[str] = (), skip: Iterable[str] = ()
) -> list[Loaded]:
    """The described checks chosen by --only/--skip; raises registry.UnknownCheckError for a bad id."""
    chosen = {e.id for e in registry.select([c.entry for c in checks], only, skip)}
    return [c for c in checks if c.id in chosen]


def assemble(
    checks: Sequence[Loaded],
    run: runner.ProbeRun,
    options: Mapping[str, Any],
    workers: Workers,
    *,
    fail_on: Status = Status.FAIL,
    created_at: str | None = None,
    host_summary: Mapping[str, Any] | None = None,
    total_s: float | None = None,
    extra: Mapping[str, Any] | None = None,
    extra_verdicts: Sequence[Verdict] = (),
) -> Report:
    """Judge ``run``'s facts with ``checks`` in the worker and build the Report every renderer reads;
    ``extra_verdicts`` (``cluster``'s merge of every rank's local verdicts) follow the judged ones."""
    timeout = float(options.get("timeout") or runner.DEFAULT_TIMEOUT_S)
    verdicts = runner.judge_all(checks, run.facts, run.errors, options, workers.host, run.durations, timeout)
    verdicts += extra_verdicts
    return Report(
        tool_version=__version__,
        created_at=created_at or now(),
        host=dict(host_summary) if host_summary is not None else host.summary(),
        options={**options, "fail_on": fail_on.value},
        facts=run.facts,
        verdicts=verdicts,
        timings={
            "total_s": round(total_s, 4) if total_s is not None else 0.0,
            "probes": {name: round(s, 4) for name, s in run.durations.items()},
        },
        exit_code=exitcodes.for_verdicts(verdicts, fail_on),
        probe_errors=run.errors,
        extra=dict(extra or {}),
        worker_log=workers.log_text(),
    )


def diagnose(
    checks: Sequence[Loaded],
    options: dict[str, Any],
    workers: Workers,
    fail_on: Status = Status.FAIL,
    progress: runner.Progress | None = None,
    extra_probes: Sequence[Probe] = (),
) -> Report:
    """Run the checks' probes, and ``extra_probes`` for facts no check needs, in the worker; judge."""
    started = time.perf_counter()
    created_at = now()
    timeout = float(options.get("timeout") or runner.DEFAULT_TIMEOUT_S)
    probes, _ = runner.needed_probes(checks)
    names = {p.name for p in probes}  # a check's probe of the same name wins
    probes += [p for p in extra_probes if p.name not in names]
    runner.ready_judges(checks, workers.host)
    run = runner.run_probes(probes, options, workers.probes, timeout=timeout, progress=progress)
    report = assemble(checks, run, options, workers, fail_on=fail_on, created_at=created_at)
    report.timings["total_s"] = round(time.perf_counter() - started, 4)
    return report
