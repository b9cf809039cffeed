"""The runner with real worker processes and probes that misbehave on purpose."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from torchdoctor import runner
from torchdoctor.model import Finding, Status
from torchdoctor.plugin import Check, Probe
from torchdoctor.registry import Entry, LoadFailure

TESTS = Path(__file__).parent


@pytest.fixture(autouse=True)
def _worker_finds_fake_probes(monkeypatch: pytest.MonkeyPatch) -> None:
    path = os.environ.get("PYTHONPATH", "")
    monkeypatch.setenv("PYTHONPATH", f"{TESTS}{os.pathsep}{path}" if path else str(TESTS))


def probe(name: str) -> Probe:
    return Probe(name=name, target=f"fake_probes:{name}")


def run(*names: str, timeout: float = 10.0, options: dict[str, Any] | None = None) -> runner.ProbeRun:
    return runner.run_probes([probe(n) for n in names], options or {}, timeout=timeout)


def test_a_probe_answers_with_its_facts_and_options() -> None:
    result = run("answer", options={"quick": True})
    assert result.facts["answer"]["answer"] == 42
    assert result.facts["answer"]["options"] == {"quick": True}
    assert result.errors == {}


def test_probes_share_one_worker_when_all_goes_well() -> None:
    result = runner.run_probes([probe("answer"), Probe("again", "fake_probes:answer")], {}, timeout=10)
    assert result.facts["answer"]["pid"] == result.facts["again"]["pid"]


def test_a_hanging_probe_times_out_and_the_next_probe_runs_in_a_new_worker() -> None:
    started = time.monotonic()
    result = runner.run_probes(
        [probe("answer"), probe("hang"), Probe("after", "fake_probes:answer")], {}, timeout=2
    )
    assert result.errors["hang"]["kind"] == "timeout"
    assert time.monotonic() - started < 2 + 8  # the deadline, plus starting two workers
    assert result.facts["after"]["pid"] != result.facts["answer"]["pid"]
    assert 2 <= result.durations["hang"] < 4


@pytest.mark.parametrize(
    ("name", "kind", "text"),
    [
        ("abort", "crash", "SIGABRT"),
        ("segfault", "crash", "SIGSEGV"),
        ("exit_hard", "exit", "code 7"),
        ("garbage", "garbage", "this is not JSON"),
    ],
)
def test_a_probe_that_kills_or_corrupts_the_worker_is_a_failure_and_the_run_goes_on(
    name: str, kind: str, text: str
) -> None:
    result = runner.run_probes([probe(name), Probe("after", "fake_probes:answer")], {}, timeout=5)
    assert result.errors[name]["kind"] == kind
    assert text in result.errors[name]["message"]
    assert result.facts["after"]["answer"] == 42


def test_a_crash_keeps_the_worker_stderr_as_evidence() -> None:
    result = run("segfault")
    assert "Fatal Python error" in result.errors["segfault"]["stderr_tail"]


@pytest.mark.parametrize(
    ("name", "error_type"),
    [
        ("raise_error", "ValueError"),
        ("exit_soft", "SystemExit"),
        ("not_json", "TypeError"),
        ("not_a_dict", "TypeError"),
    ],
)
def test_a_probe_that_raises_or_returns_no_facts_is_an_exception_without_losing_the_worker(
    name: str, error_type: str
) -> None:
    result = runner.run_probes([probe(name), Probe("after", "fake_probes:answer")], {}, timeout=5)
    error = result.errors[name]
    assert error["kind"] == "exception"
    assert error["type"] == error_type
    assert "after" in result.facts


def test_printing_from_a_probe_cannot_corrupt_the_answers() -> None:
    result = run("chatty")
    assert result.facts["chatty"] == {"chatty": True}
    assert "garbage printed by a probe" in "".join(result.worker_log)


def test_an_unknown_probe_target_is_an_exception() -> None:
    result = runner.run_probes([Probe("missing", "no_such_module:probe")], {}, timeout=5)
    assert result.errors["missing"]["type"] == "ModuleNotFoundError"


def test_a_timeout_kills_what_the_probe_started(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    result = run("spawn_child", timeout=3, options={"pidfile": str(pidfile)})
    assert result.errors["spawn_child"]["kind"] == "timeout"
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 3
    while psutil.pid_exists(child) and psutil.Process(child).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "the probe's child outlived the worker"
        time.sleep(0.05)


def _check(check_id: str, names: tuple[str, ...], judge: Any = None) -> Check:
    return Check(
        id=check_id,
        title=check_id,
        probes=tuple(probe(n) for n in names),
        judge=judge or (lambda facts, options: Finding(Status.PASS, "fine")),
    )


def test_judge_all_turns_probe_failures_and_judge_exceptions_into_error_verdicts() -> None:
    def bad_judge(facts: Any, options: Any) -> Finding:
        raise KeyError("missing")

    checks: list[Check | LoadFailure] = [
        _check("a.ok", ("answer",)),
        _check("a.hang", ("hang",)),
        _check("a.badjudge", ("answer",), bad_judge),
        _check("a.notfinding", ("answer",), lambda f, o: "pass"),
        LoadFailure(Entry("a.broken", "nowhere:CHECK", "acme", "1.0"), "acme[a.broken] failed to import"),
    ]
    facts = {"answer": {"answer": 42}}
    errors = {"hang": {"kind": "timeout", "message": "timed out after 2 s"}}
    verdicts = {v.id: v for v in runner.judge_all(checks, facts, errors, {}, timeout=2)}
    assert verdicts["a.ok"].status is Status.PASS
    assert verdicts["a.ok"].facts == {"answer": {"answer": 42}}
    assert verdicts["a.hang"].status is Status.ERROR
    assert "did not answer within 2 s" in verdicts["a.hang"].summary
    assert verdicts["a.hang"].fix is not None
    assert verdicts["a.badjudge"].status is Status.ERROR
    assert "KeyError" in verdicts["a.badjudge"].summary
    assert verdicts["a.notfinding"].status is Status.ERROR
    assert verdicts["a.broken"].status is Status.ERROR
    assert "acme" in verdicts["a.broken"].summary


def test_two_checks_that_name_one_probe_differently_are_an_error_not_a_silent_mix() -> None:
    first = _check("a.first", ("answer",))
    second = Check("a.second", "second", (Probe("answer", "fake_probes:chatty"),), first.judge)
    probes, clashes = runner.needed_probes([first, second])
    assert [p.target for p in probes] == ["fake_probes:answer"]
    verdicts = runner.judge_all([first, second], {"answer": {"answer": 42}}, {}, {})
    assert [v.status for v in verdicts] == [Status.PASS, Status.ERROR]
    assert "a.second" in clashes


def test_a_worker_does_not_outlive_a_cli_killed_outright() -> None:
    code = (
        "from torchdoctor.workerproc import WorkerProcess\n"
        "worker = WorkerProcess()\n"
        "print(worker.pid, flush=True)\n"
        "worker.call('fake_probes:hang', {}, 3600)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    worker_pid = int(parent.stdout.readline())
    time.sleep(0.5)  # the worker is inside the hanging probe
    parent.kill()
    parent.wait(timeout=10)
    deadline = time.monotonic() + 5
    while psutil.pid_exists(worker_pid) and psutil.Process(worker_pid).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "the worker outlived its parent"
        time.sleep(0.05)
