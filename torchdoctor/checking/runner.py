"""Everything plugin code does runs here, in a worker process, under a deadline: describe, probe, judge.

A :class:`Session` holds one worker and replaces it whenever a call fails without an answer (a hang, a crash,
garbage on the channel), so one misbehaving probe, judge or plugin import costs one worker, never the run.
The CLI process only holds what the worker described (:class:`~torchdoctor.checking.registry.CheckInfo`) and
plain
facts; judging is separate from probing (:func:`judge_all`) so a saved report's facts can be judged again
without running any probe.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from torchdoctor.checking import registry
from torchdoctor.checking.registry import CheckInfo, Entry, Loaded, LoadFailure
from torchdoctor.isolation.workerproc import ProbeFailure, WorkerProcess
from torchdoctor.model import Finding, Fix, Status, Verdict
from torchdoctor.plugin import Check, Probe

DEFAULT_TIMEOUT_S = 30.0
PLUGIN_TIMEOUT_ENV = "TORCHDOCTOR_PLUGIN_TIMEOUT"
DEFAULT_PLUGIN_TIMEOUT_S = 10.0
"""How long a check module may take to import, and a judge to judge (TORCHDOCTOR_PLUGIN_TIMEOUT overrides
it): both need milliseconds; probes have --timeout."""
_HOSTED = "torchdoctor.checking.hosted"
DESCRIBE, JUDGE, VALIDATE, READY = (
    f"{_HOSTED}:{name}" for name in ("describe", "judge", "validate", "ready")
)
"""The worker targets of :mod:`torchdoctor.checking.hosted`."""
PREPARE_TARGET = "torchdoctor.isolation.zygote:prepare"


class Worker(Protocol):
    def call(self, target: str, options: dict[str, Any], timeout: float) -> dict[str, Any]: ...
    def close(self) -> None: ...
    def stderr_text(self) -> str: ...


class HostedError(Exception):
    """A call into the worker that produced no usable answer; ``error`` says why, as a probe error does."""

    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(error.get("message", "no answer"))
        self.error = error


class Session:
    """One worker at a time, replaced after any call that cost it; its stderr is kept for ``-v``.

    ``warm_factory`` starts the first worker at once, importing torch in the background while the CLI
    describes the checks (probes that need no torch do not wait for it). Should that worker die before its
    warm-up is done, or the warm-up fail, the call it was on runs again in a cold worker (replacements
    always are), so what went wrong is met again, and reported, by the probe that imports torch.
    """

    def __init__(
        self,
        worker_factory: Callable[[], Worker] = WorkerProcess,
        warm_factory: Callable[[], Worker] | None = None,
    ) -> None:
        self._factory = worker_factory
        self._worker: Worker | None = None
        self.log: list[str] = []
        self._pristine = False
        """The worker is warm and has run nothing yet."""
        if warm_factory is not None:
            # Started from this thread: the worker's PR_SET_PDEATHSIG follows this thread's life.
            self._worker = warm_factory()
            self._pristine = True

    def call(self, target: str, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        """The worker's answer (``facts`` or ``error``), or ProbeFailure after which the worker is gone."""
        return self._call(target, request, timeout, again=True)

    def _call(self, target: str, request: dict[str, Any], timeout: float, again: bool) -> dict[str, Any]:
        self._pristine = False
        if self._worker is None:
            self._worker = self._factory()
        worker = self._worker
        try:
            answer = worker.call(target, request, timeout)
        except ProbeFailure as failure:
            self._retire()
            # A worker that died while importing torch in the background may have died of that import;
            # a timeout is the call's own (one that needs torch would have waited for it cold as well).
            if failure.kind not in ("crash", "exit") or not _warming(worker):
                raise
            self.log.append(f"torchdoctor: the warm worker ended before torch imported ({failure.message})\n")
        else:
            warmed = getattr(worker, "warmed", None) or {}
            if "error" not in warmed:
                return answer
            # torch failed to import in the background: this answer may have met a half-imported torch.
            self._retire()
            error = warmed["error"]
            self.log.append(f"torchdoctor: importing torch in the background failed ({error.get('type')})\n")
        if not again:
            raise ProbeFailure("start", "the warm-up failed")
        return self._call(target, request, timeout, again=False)

    def prepare(self, targets: Sequence[str], timeout: float) -> None:
        """Before the first probes of a warm worker: let it fork what they start processes from (the
        zygote); whatever happens, the probes run as they would have."""
        if not self._pristine:
            return
        try:
            answer = self._call(PREPARE_TARGET, {"targets": list(targets)}, timeout, again=False)
        except ProbeFailure as failure:
            self.log.append(f"torchdoctor: preparing the probe worker failed ({failure.message})\n")
            return
        if "error" in answer:
            why = answer["error"].get("message")
            self.log.append(f"torchdoctor: preparing the probe worker failed ({why})\n")

    def hosted(self, target: str, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Run ``target`` (``module:function``, one of torchdoctor's own) in the worker and answer what it
        answered; raises HostedError when it gives no answer."""
        try:
            answer = self.call(target, request, timeout)
        except ProbeFailure as failure:
            raise HostedError(failure.to_json()) from None
        if "error" in answer:
            raise HostedError(dict(answer["error"]))
        return dict(answer.get("facts") or {})

    def _retire(self) -> None:
        self._pristine = False
        if self._worker is not None:
            self._worker.close()
            self.log.append(self._worker.stderr_text())
            self._worker = None

    def log_text(self) -> str:
        """The stderr of every worker of this session so far, the live one included."""
        live = self._worker.stderr_text() if self._worker is not None else ""
        return "".join(self.log) + live

    def close(self) -> None:
        self._retire()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


HOST_MEMORY_BYTES = 4 * 2**30
"""The address space of the worker that runs plugin code (imports, judges, explanations, option checks):
a runaway judge gets MemoryError there. The probe worker has no such limit: CUDA maps far more."""


def host_worker() -> Worker:
    """A worker for the plugins' code other than probes: describing, judging, explaining, checking option
    values; under HOST_MEMORY_BYTES."""
    return WorkerProcess(memory_limit=HOST_MEMORY_BYTES)


class Workers:
    """The two workers of a run: one for probes (which may load torch and CUDA), one for the plugins' other
    code (describing, judging, explaining, checking option values), under a memory limit. ``warm``: the
    probe worker imports torch at once, while the other one describes the checks."""

    def __init__(
        self,
        probe_factory: Callable[[], Worker] = WorkerProcess,
        host_factory: Callable[[], Worker] | None = None,
        warm: bool = False,
    ) -> None:
        warm_factory = (lambda: WorkerProcess(warm=True)) if warm else None
        self.probes = Session(probe_factory, warm_factory)
        self.host = Session(host_factory or host_worker)

    def log_text(self) -> str:
        return self.probes.log_text() + self.host.log_text()

    def close(self) -> None:
        self.probes.close()
        self.host.close()

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _warming(worker: Worker) -> bool:
    """Whether the worker was importing torch in the background and had not said how that went."""
    return bool(getattr(worker, "warm", False)) and getattr(worker, "warmed", None) is None


def plugin_timeout() -> float:
    try:
        value = float(os.environ.get(PLUGIN_TIMEOUT_ENV, DEFAULT_PLUGIN_TIMEOUT_S))
    except ValueError:
        return DEFAULT_PLUGIN_TIMEOUT_S
    return value if 0 < value < 3600 else DEFAULT_PLUGIN_TIMEOUT_S


def describe(entries: Iterable[Entry], session: Session) -> list[Loaded]:
    """Each entry as the worker describes it after importing it under a deadline; sorted for the table."""
    described: list[Loaded] = []
    for entry in entries:
        try:
            answer = session.hosted(DESCRIBE, {"entry": entry.to_json()}, plugin_timeout())
            if "failure" in answer:
                described.append(LoadFailure(entry, str(answer["failure"])))
            else:
                described.append(CheckInfo.from_json(entry, answer["check"]))
        except HostedError as exc:
            described.append(LoadFailure(entry, _import_failure(entry, exc.error)))
        except (KeyError, TypeError, ValueError) as exc:
            described.append(LoadFailure(entry, f"{entry.display_name}: cannot be described: {exc}"))
    return sorted(described, key=registry.table_key)


def _import_failure(entry: Entry, error: Mapping[str, Any]) -> str:
    kind = error.get("kind")
    if kind == "timeout":
        return f"{entry.display_name} did not finish importing within {plugin_timeout():g} s"
    if kind in ("crash", "exit"):
        return f"{entry.display_name} ended the worker while importing: {error.get('message')}"
    return f"{entry.display_name} failed to import: {error.get('type', kind)}: {error.get('message')}"


@dataclass
class ProbeRun:
    """What running the probes produced: facts of those that answered, errors of the others."""

    facts: dict[str, dict[str, Any]] = field(default_factory=dict)
    errors: dict[str, dict[str, Any]] = field(default_factory=dict)
    durations: dict[str, float] = field(default_factory=dict)


class Progress(Protocol):
    def probe_started(self, name: str, index: int, total: int) -> None: ...
    def probe_finished(self, name: str, duration_s: float, error: Mapping[str, Any] | None) -> None: ...


def needed_probes(checks: Sequence[Loaded]) -> tuple[list[Probe], dict[str, str]]:
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
    session: Session,
    timeout: float = DEFAULT_TIMEOUT_S,
    progress: Progress | None = None,
) -> ProbeRun:
    result = ProbeRun()
    if probes:
        session.prepare([probe.target for probe in probes], timeout)
    for index, probe in enumerate(probes):
        if progress:
            progress.probe_started(probe.name, index, len(probes))
        started = time.perf_counter()
        error: dict[str, Any] | None = None
        try:
            answer = session.call(probe.target, options, timeout)
        except ProbeFailure as failure:
            error = failure.to_json()
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
    return result


def judge_all(
    checks: Sequence[Loaded],
    facts: Mapping[str, Mapping[str, Any]],
    errors: Mapping[str, Mapping[str, Any]],
    options: Mapping[str, Any],
    session: Session,
    durations: Mapping[str, float] | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> list[Verdict]:
    """One verdict per check, from facts alone, each judge run in the worker. Never raises for a check."""
    durations = durations or {}
    _, clashes = needed_probes(checks)
    verdicts = []
    for check in checks:
        if isinstance(check, LoadFailure):
            verdicts.append(load_error_verdict(check))
        elif check.id in clashes:
            verdicts.append(_error(check, clashes[check.id], (), None, 0.0))
        else:
            ask = _in_worker(session)
            verdicts.append(_judge_one(check, facts, errors, options, ask, durations, timeout))
    return verdicts


def ready_judges(checks: Sequence[Loaded], session: Session) -> None:
    """Have the worker import the judges of ``checks`` in the background while the probes run elsewhere
    (:func:`torchdoctor.checking.hosted.ready`); judging goes as it would have if it cannot."""
    entries = [check.entry.to_json() for check in checks if isinstance(check, CheckInfo)]
    if entries:
        with contextlib.suppress(HostedError):
            session.hosted(READY, {"entries": entries}, plugin_timeout())


JudgeCall = Callable[[dict[str, Any]], dict[str, Any]]
"""Runs one judge request (torchdoctor.checking.hosted.judge) and answers, or raises HostedError."""


def _in_worker(session: Session) -> JudgeCall:
    return lambda request: session.hosted(JUDGE, request, plugin_timeout())


def judge_here(
    check: Check,
    entry: Entry,
    facts: Mapping[str, Mapping[str, Any]],
    errors: Mapping[str, Mapping[str, Any]],
    options: Mapping[str, Any],
    durations: Mapping[str, float] | None = None,
) -> Verdict:
    """The verdict of a check already imported in this process (memory_report runs inside the user's
    job), through the same path as a judge in the worker: a judge that raises is an error verdict."""
    from torchdoctor.checking import hosted

    info = CheckInfo.of(entry, check)
    ask: JudgeCall = lambda request: hosted.judge_with(check, request)  # noqa: E731
    return _judge_one(info, facts, errors, options, ask, durations or {}, DEFAULT_TIMEOUT_S)


def _judge_one(
    check: CheckInfo,
    facts: Mapping[str, Mapping[str, Any]],
    errors: Mapping[str, Mapping[str, Any]],
    options: Mapping[str, Any],
    ask: JudgeCall,
    durations: Mapping[str, float],
    timeout: float,
) -> Verdict:
    probe_time = sum(durations.get(p.name, 0.0) for p in check.probes)
    for probe in check.probes:
        if probe.name in errors:
            return _probe_error_verdict(check, probe, errors[probe.name], probe_time, timeout)
        if probe.name not in facts:
            return _error(check, f"no facts from probe '{probe.name}' in this report", (), None, probe_time)
    request = {
        "entry": check.entry.to_json(),
        "facts": {p.name: facts[p.name] for p in check.probes},
        "options": dict(options),
    }
    started = time.perf_counter()
    try:
        answer = ask(request)
        if "raised" in answer:
            raised = answer["raised"]
            tail = tuple(
                line for line in str(raised.get("traceback") or "").splitlines()[-8:] if line.strip()
            )
            return _error(
                check,
                f"the judge of {check.id} raised {raised.get('type')}: {raised.get('message')}",
                tail,
                _bug_fix(check.entry),
                probe_time + time.perf_counter() - started,
            )
        finding = Finding.from_json(answer["finding"])
    except HostedError as exc:
        return _error(
            check,
            _judge_failure(check, exc.error),
            (),
            _bug_fix(check.entry),
            probe_time + time.perf_counter() - started,
        )
    except (KeyError, TypeError, ValueError) as exc:
        return _error(
            check,
            f"the judge of {check.id} returned something that is not a finding: {exc}",
            (),
            _bug_fix(check.entry),
            probe_time + time.perf_counter() - started,
        )
    return Verdict(
        id=check.id,
        title=check.title,
        status=finding.status,
        summary=finding.summary,
        details=finding.details,
        fix=finding.fix,
        facts=finding.facts,
        duration_s=probe_time + time.perf_counter() - started,
    )


def _judge_failure(check: CheckInfo, error: Mapping[str, Any]) -> str:
    kind = error.get("kind")
    if kind == "timeout":
        return (
            f"the judge of {check.id} ({check.entry.display_name}) did not answer within "
            f"{plugin_timeout():g} s"
        )
    if kind in ("crash", "exit"):
        return (
            f"the judge of {check.id} ({check.entry.display_name}) ended the worker: {error.get('message')}"
        )
    return f"the judge of {check.id} could not run: {error.get('type', kind)}: {error.get('message')}"


def _bug_fix(entry: Entry) -> Fix:
    if entry.distribution == "torchdoctor":
        return Fix("This is a defect of the check, not of your environment: report it with this output (-v).")
    return Fix(
        f"This is a defect of the check, not of your environment: report it to the authors of "
        f"{entry.distribution} with this output (-v), or leave it out with --skip {entry.id}."
    )


def _probe_error_verdict(
    check: CheckInfo, probe: Probe, error: Mapping[str, Any], duration: float, timeout: float
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
        fix = _bug_fix(check.entry)
    else:
        summary = f"probe '{probe.name}' failed: {error.get('message', kind)}"
        fix = _bug_fix(check.entry)
    tail = str(error.get("traceback") or error.get("stderr_tail") or "")
    details = tuple(line for line in tail.splitlines()[-12:] if line.strip())
    return _error(check, summary, details, fix, duration, {"probe": probe.name, "error": dict(error)})


def _error(
    check: CheckInfo,
    summary: str,
    details: tuple[str, ...],
    fix: Fix | None,
    duration: float,
    facts: Mapping[str, Any] | None = None,
) -> Verdict:
    return Verdict(check.id, check.title, Status.ERROR, summary, details, fix, facts or {}, duration)


def load_error_verdict(failure: LoadFailure) -> Verdict:
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
        fix=reinstall_fix(entry),
        facts={"entry_point": entry.value, "distribution": entry.distribution, "version": entry.version},
    )


def reinstall_fix(entry: Entry) -> Fix:
    """Reinstall the distribution from where it came from; torchdoctor itself never from an index."""
    from torchdoctor.machine import packages

    source = packages.install_source(entry.distribution)
    if source is not None:
        return Fix(
            f"{entry.distribution} is broken in this environment: reinstall it from where it was installed "
            f"from, or leave the check out with --skip {entry.id}.",
            (f"pip install --force-reinstall --no-deps {source}",),
        )
    if entry.distribution == "torchdoctor":
        return Fix(
            "torchdoctor is broken in this environment: reinstall it the way you installed it (from its "
            "source folder or wheel file)."
        )
    return Fix(
        f"The plugin '{entry.distribution}' is broken in this environment: reinstall the same release, "
        f"or leave it out with --skip {entry.id}.",
        (f"pip install --force-reinstall --no-deps {entry.distribution}=={entry.version}",),
    )
