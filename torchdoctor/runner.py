"""Run the probes the selected checks need in a worker, then judge their facts.

Probes run one at a time in a spawned worker, each under its own deadline. A
probe that fails without an answer costs the worker, which is replaced for the
remaining probes. Judging is separate (:func:`judge_all`) so a saved report's
facts can be judged again without running anything.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from torchdoctor.model import Finding, Fix, Status, Verdict
from torchdoctor.plugin import Check, Probe
from torchdoctor.registry import LoadFailure
from torchdoctor.workerproc import ProbeFailure, WorkerProcess

DEFAULT_TIMEOUT_S = 30.0


class Worker(Protocol):
    def call(self, target: str, options: dict[str, Any], timeout: float) -> dict[str, Any]: ...
    def close(self) -> None: ...
    def stderr_text(self) -> str: ...


@dataclass
class ProbeRun:
    """What running the probes produced: facts of those that answered, errors of the others."""

    facts: dict[str, dict[str, Any]] = field(default_factory=dict)
    errors: dict[str, dict[str, Any]] = field(default_factory=dict)
    durations: dict[str, float] = field(default_factory=dict)
    worker_log: list[str] = field(default_factory=list)


class Progress(Protocol):
    def probe_started(self, name: str, index: int, total: int) -> None: ...
    def probe_finished(self, name: str, duration_s: float, error: Mapping[str, Any] | None) -> None: ...


def needed_probes(checks: Sequence[Check | LoadFailure]) -> tuple[list[Probe], dict[str, str]]:
    """Probes in first-use order, each once; and the checks whose probe name clashes with another target."""
    probes: dict[str, Probe] = {}
    clashes: dict[str, str] = {}
    for check in checks:
        if isinstance(check, LoadFailure):
            continue
        for probe in check.probes:
            known = probes.get(probe.name)
            if known is None:
                probes[probe.name] = probe
            elif known.target != probe.target:
                clashes[check.id] = (
                    f"probe name '{probe.name}' means {known.target} to an earlier check "
                    f"and {probe.target} here"
                )
    return list(probes.values()), clashes


def run_probes(
    probes: Sequence[Probe],
    options: dict[str, Any],
    timeout: float = DEFAULT_TIMEOUT_S,
    progress: Progress | None = None,
    worker_factory: Callable[[], Worker] = WorkerProcess,
) -> ProbeRun:
    result = ProbeRun()
    worker: Worker | None = None
    try:
        for index, probe in enumerate(probes):
            if worker is None:
                worker = worker_factory()
            if progress:
                progress.probe_started(probe.name, index, len(probes))
            started = time.perf_counter()
            error: dict[str, Any] | None = None
            try:
                answer = worker.call(probe.target, options, timeout)
            except ProbeFailure as failure:
                error = failure.to_json()
                result.worker_log.append(worker.stderr_text())
                worker.close()
                worker = None
            else:
                if "error" in answer:
                    error = dict(answer["error"])
                else:
                    result.facts[probe.name] = answer.get("facts", {})
            elapsed = time.perf_counter() - started
            result.durations[probe.name] = elapsed
            if error is not None:
                result.errors[probe.name] = error
            if progress:
                progress.probe_finished(probe.name, elapsed, error)
    finally:
        if worker is not None:
            result.worker_log.append(worker.stderr_text())
            worker.close()
    return result


def judge_all(
    checks: Sequence[Check | LoadFailure],
    facts: Mapping[str, Mapping[str, Any]],
    errors: Mapping[str, Mapping[str, Any]],
    options: Mapping[str, Any],
    durations: Mapping[str, float] | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> list[Verdict]:
    """One verdict per check, from facts alone. Never raises for a check's sake."""
    durations = durations or {}
    _, clashes = needed_probes(checks)
    verdicts = []
    for check in checks:
        if isinstance(check, LoadFailure):
            verdicts.append(_load_error_verdict(check))
        elif check.id in clashes:
            verdicts.append(_error(check, clashes[check.id], (), None, 0.0))
        else:
            verdicts.append(_judge_one(check, facts, errors, options, durations, timeout))
    return verdicts


def _judge_one(
    check: Check,
    facts: Mapping[str, Mapping[str, Any]],
    errors: Mapping[str, Mapping[str, Any]],
    options: Mapping[str, Any],
    durations: Mapping[str, float],
    timeout: float,
) -> Verdict:
    probe_time = sum(durations.get(p.name, 0.0) for p in check.probes)
    for probe in check.probes:
        if probe.name in errors:
            return _probe_error_verdict(check, probe, errors[probe.name], probe_time, timeout)
        if probe.name not in facts:
            return _error(check, f"no facts from probe '{probe.name}' in this report", (), None, probe_time)
    own_facts = {p.name: facts[p.name] for p in check.probes}
    started = time.perf_counter()
    try:
        finding = check.judge(own_facts, options)
        if not isinstance(finding, Finding):
            raise TypeError(f"judge returned {type(finding).__name__}, not a Finding")
        shown_facts = dict(finding.facts) if finding.facts else own_facts
        json.dumps(shown_facts, allow_nan=False)
    except Exception as exc:
        return _error(
            check,
            f"the judge of {check.id} raised {type(exc).__name__}: {exc}",
            (),
            _BUG_FIX,
            probe_time + time.perf_counter() - started,
        )
    return Verdict(
        id=check.id,
        title=check.title,
        status=finding.status,
        summary=finding.summary,
        details=tuple(finding.details),
        fix=finding.fix,
        facts=shown_facts,
        duration_s=probe_time + time.perf_counter() - started,
    )


_BUG_FIX = Fix("This is a defect of the check, not of your environment: report it with this output (-v).")


def _probe_error_verdict(
    check: Check, probe: Probe, error: Mapping[str, Any], duration: float, timeout: float
) -> Verdict:
    kind = error.get("kind", "exception")
    if kind == "timeout":
        summary = f"probe '{probe.name}' did not answer within {timeout:g} s"
        fix = Fix(
            "Something in this probe hangs (often a driver call or a network wait). "
            "Run again with -v for the worker's log, or give it more time with --timeout.",
            (f"torchdoctor check --only {check.id} --timeout {max(timeout * 4, 60):g} -v",),
        )
    elif kind == "exception":
        summary = (
            f"probe '{probe.name}' raised {error.get('type', 'an exception')}: {error.get('message', '')}"
        )
        fix = _BUG_FIX
    else:
        summary = f"probe '{probe.name}' failed: {error.get('message', kind)}"
        fix = _BUG_FIX
    tail = str(error.get("traceback") or error.get("stderr_tail") or "")
    details = tuple(line for line in tail.splitlines()[-12:] if line.strip())
    return _error(check, summary, details, fix, duration, {"probe": probe.name, "error": dict(error)})


def _error(
    check: Check,
    summary: str,
    details: tuple[str, ...],
    fix: Fix | None,
    duration: float,
    facts: Mapping[str, Any] | None = None,
) -> Verdict:
    return Verdict(check.id, check.title, Status.ERROR, summary, details, fix, facts or {}, duration)


def _load_error_verdict(failure: LoadFailure) -> Verdict:
    entry = failure.entry
    return Verdict(
        id=entry.id,
        title=entry.id,
        status=Status.ERROR,
        summary=failure.reason,
        details=(
            f"entry point: {entry.id} = {entry.value}",
            f"distribution: {entry.distribution} {entry.version}",
        ),
        fix=Fix(
            f"The plugin '{entry.distribution}' is broken in this environment: reinstall or remove it, "
            f"or leave it out with --skip {entry.id}.",
            (f"pip install --force-reinstall {entry.distribution}",),
        ),
        facts={"entry_point": entry.value, "distribution": entry.distribution, "version": entry.version},
    )
