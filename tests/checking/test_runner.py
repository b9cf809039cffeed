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

from torchdoctor.checking import options, runner
from torchdoctor.checking.registry import CheckInfo, Entry, LoadFailure
from torchdoctor.isolation.workerproc import WorkerProcess
from torchdoctor.model import Status
from torchdoctor.plugin import Probe

from support import slack

TESTS = Path(__file__).parents[1]


@pytest.fixture(autouse=True)
def _worker_finds_fake_probes(monkeypatch: pytest.MonkeyPatch) -> None:
    path = os.environ.get("PYTHONPATH", "")
    monkeypatch.setenv("PYTHONPATH", f"{TESTS}{os.pathsep}{path}" if path else str(TESTS))


def probe(name: str) -> Probe:
    return Probe(name=name, target=f"fake_probes:{name}")


def run_probes(probes: list[Probe], options: dict[str, Any], timeout: float) -> runner.ProbeRun:
    with runner.Session() as session:
        result = runner.run_probes(probes, options, session, timeout=timeout)
        result.log = session.log_text()  # type: ignore[attr-defined]
    return result


def run(*names: str, timeout: float = 10.0, options: dict[str, Any] | None = None) -> runner.ProbeRun:
    return run_probes([probe(n) for n in names], options or {}, timeout)


def test_a_probe_answers_with_its_facts_and_options() -> None:
    result = run("answer", options={"quick": True})
    assert result.facts["answer"]["answer"] == 42
    assert result.facts["answer"]["options"] == {"quick": True}
    assert result.errors == {}


def test_probes_share_one_worker_when_all_goes_well() -> None:
    result = run_probes([probe("answer"), Probe("again", "fake_probes:answer")], {}, timeout=10)
    assert result.facts["answer"]["pid"] == result.facts["again"]["pid"]


def test_a_hanging_probe_times_out_and_the_next_probe_runs_in_a_new_worker() -> None:
    started = time.monotonic()
    result = run_probes([probe("answer"), probe("hang"), Probe("after", "fake_probes:answer")], {}, timeout=2)
    assert result.errors["hang"]["kind"] == "timeout"
    assert time.monotonic() - started < slack(2 + 8)  # the deadline, plus starting two workers
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
    result = run_probes([probe(name), Probe("after", "fake_probes:answer")], {}, timeout=5)
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
    result = run_probes([probe(name), Probe("after", "fake_probes:answer")], {}, timeout=5)
    error = result.errors[name]
    assert error["kind"] == "exception"
    assert error["type"] == error_type
    assert "after" in result.facts


def test_printing_from_a_probe_cannot_corrupt_the_answers() -> None:
    result = run("chatty")
    assert result.facts["chatty"] == {"chatty": True}
    assert "garbage printed by a probe" in result.log  # type: ignore[attr-defined]


def test_an_unknown_probe_target_is_an_exception() -> None:
    result = run_probes([Probe("missing", "no_such_module:probe")], {}, timeout=5)
    assert result.errors["missing"]["type"] == "ModuleNotFoundError"


def test_a_timeout_kills_what_the_probe_started(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    result = run("spawn_child", timeout=3, options={"pidfile": str(pidfile)})
    assert result.errors["spawn_child"]["kind"] == "timeout"
    child = int(pidfile.read_text())
    deadline = time.monotonic() + slack(3)
    while psutil.pid_exists(child) and psutil.Process(child).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "the probe's child outlived the worker"
        time.sleep(0.05)


def entry(check_id: str, attr: str, distribution: str = "acme") -> Entry:
    return Entry(check_id, f"fake_checks:{attr}", distribution, "1.0")


def described(*entries: Entry) -> list[CheckInfo | LoadFailure]:
    with runner.Session() as session:
        return runner.describe(entries, session)


def test_describe_imports_each_check_in_the_worker_and_names_what_failed() -> None:
    found = described(
        entry("a.ok", "OK"),
        entry("a.broken", "NOWHERE"),
        entry("a.notcheck", "NOT_A_CHECK"),
        entry("a.wrong", "WRONG_ID"),
        Entry("a.missing", "no_such_module:CHECK", "acme", "1.0"),
    )
    by_id = {c.id: c for c in found}
    assert isinstance(by_id["a.ok"], CheckInfo)
    assert by_id["a.ok"].probes == (Probe("answer", "fake_probes:answer"),)
    reasons = {i: c.reason for i, c in by_id.items() if isinstance(c, LoadFailure)}
    assert "AttributeError" in reasons["a.broken"]
    assert "is a str, not a Check" in reasons["a.notcheck"]
    assert "points to a check with id 'a.other'" in reasons["a.wrong"]
    assert "acme[a.missing] failed to import: ModuleNotFoundError" in reasons["a.missing"]


def test_a_plugin_that_hangs_or_aborts_at_import_costs_a_worker_not_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "slow_plugin.py").write_text("import time\ntime.sleep(3600)\n")
    (tmp_path / "abort_plugin.py").write_text("import os\nos.abort()\n")
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}{os.pathsep}{os.environ['PYTHONPATH']}")
    monkeypatch.setenv(runner.PLUGIN_TIMEOUT_ENV, "2")
    started = time.monotonic()
    found = described(
        Entry("a.slow", "slow_plugin:CHECK", "slow", "1.0"),
        Entry("a.abort", "abort_plugin:CHECK", "abort", "1.0"),
        entry("a.ok", "OK"),
    )
    by_id = {c.id: c for c in found}
    assert time.monotonic() - started < slack(2 + 10)
    assert isinstance(by_id["a.ok"], CheckInfo)
    assert "did not finish importing within 2 s" in by_id["a.slow"].reason  # type: ignore[union-attr]
    assert "SIGABRT" in by_id["a.abort"].reason  # type: ignore[union-attr]


def judged(
    checks: list[CheckInfo | LoadFailure], facts: dict[str, Any], errors: dict[str, Any]
) -> dict[str, Any]:
    with runner.Session() as session:
        return {v.id: v for v in runner.judge_all(checks, facts, errors, {}, session, timeout=2)}


def test_judge_all_turns_probe_failures_and_judge_failures_into_error_verdicts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(runner.PLUGIN_TIMEOUT_ENV, "2")
    checks = described(
        entry("a.ok", "OK"),
        entry("a.hang", "HANG"),
        entry("a.badjudge", "BAD_JUDGE"),
        entry("a.notfinding", "NOT_FINDING"),
        entry("a.loops", "LOOPS"),
        entry("a.aborts", "ABORTS"),
    )
    checks.append(
        LoadFailure(Entry("a.broken", "nowhere:CHECK", "acme", "1.0"), "acme[a.broken] failed to import")
    )
    facts = {"answer": {"answer": 42}}
    errors = {"hang": {"kind": "timeout", "message": "timed out after 2 s"}}
    started = time.monotonic()
    verdicts = judged(checks, facts, errors)
    assert time.monotonic() - started < slack(2 + 15)
    assert verdicts["a.ok"].status is Status.PASS
    assert verdicts["a.ok"].facts == {"answer": {"answer": 42}}
    assert verdicts["a.hang"].status is Status.ERROR
    assert "did not answer within 2 s" in verdicts["a.hang"].summary
    assert verdicts["a.hang"].fix is not None
    assert "KeyError" in verdicts["a.badjudge"].summary
    assert "not a Finding" in verdicts["a.notfinding"].summary
    assert verdicts["a.loops"].summary == "the judge of a.loops (acme[a.loops]) did not answer within 2 s"
    assert "SIGABRT" in verdicts["a.aborts"].summary and "acme[a.aborts]" in verdicts["a.aborts"].summary
    assert "report it to the authors of acme" in str(verdicts["a.aborts"].fix)
    assert "acme" in verdicts["a.broken"].summary
    assert all(v.status is Status.ERROR for k, v in verdicts.items() if k != "a.ok")


def test_two_checks_that_name_one_probe_differently_are_an_error_not_a_silent_mix() -> None:
    checks = described(entry("a.ok", "OK"), entry("a.second", "SECOND"))
    probes, clashes = runner.needed_probes(checks)
    assert [p.target for p in probes] == ["fake_probes:answer"]
    verdicts = judged(checks, {"answer": {"answer": 42}}, {})
    assert [v.status for v in verdicts.values()] == [Status.PASS, Status.ERROR]
    assert "a.second" in clashes


def test_a_declared_option_reaches_the_judge_and_a_clashing_one_is_a_load_failure() -> None:
    declared, checks = options.merge(
        described(entry("a.option", "WITH_OPTION"), entry("a.clash", "CLASHING"))
    )
    assert [o.flag for o in declared] == ["--level"]
    by_id = {c.id: c for c in checks}
    clash = by_id["a.clash"]
    assert isinstance(clash, LoadFailure) and "--timeout is one of torchdoctor's own" in clash.reason
    with pytest.raises(options.BadOption, match="--level must be between 0 and 9, not 12"):
        options.checked(declared, {"level": 12})
    with runner.Session() as session:
        (verdict,) = runner.judge_all([by_id["a.option"]], {"answer": {}}, {}, {"level": 3}, session)
    assert verdict.facts == {"options": {"level": 3}}


def test_a_worker_does_not_outlive_a_cli_killed_outright() -> None:
    code = (
        "from torchdoctor.isolation.workerproc import WorkerProcess\n"
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
    deadline = time.monotonic() + slack(5)
    while psutil.pid_exists(worker_pid) and psutil.Process(worker_pid).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "the worker outlived its parent"
        time.sleep(0.05)


def _dead(pid: int) -> bool:
    return not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


@pytest.mark.parametrize("hang", [True, False], ids=["timed-out", "answered"])
def test_a_daemon_that_left_the_workers_session_ends_with_the_worker(tmp_path: Path, hang: bool) -> None:
    pidfile = tmp_path / "daemon.pid"
    result = run("spawn_detached", timeout=4, options={"pidfile": str(pidfile), "hang": hang})
    assert ("spawn_detached" in result.errors) is hang
    daemon = int(pidfile.read_text())
    deadline = time.monotonic() + slack(3)
    while not _dead(daemon):
        assert time.monotonic() < deadline, "the setsid daemon outlived the worker"
        time.sleep(0.05)


def test_a_daemon_whose_worker_died_first_ends_with_the_run(tmp_path: Path) -> None:
    """The worker ends itself after its probe started a daemon: the daemon, adopted by init rather than by
    the worker, is still found and ended when the run ends (it ran on)."""
    pidfile = tmp_path / "daemon.pid"
    result = run("spawn_daemon_then_die", timeout=10, options={"pidfile": str(pidfile)})
    assert result.errors["spawn_daemon_then_die"]["kind"] == "exit"
    daemon = int(pidfile.read_text())
    deadline = time.monotonic() + slack(3)
    while not _dead(daemon):
        assert time.monotonic() < deadline, "the daemon of a dead worker outlived the run"
        time.sleep(0.05)


def test_a_probe_that_floods_stderr_leaves_a_bounded_tail() -> None:
    before = psutil.Process().memory_info().rss
    result = run("flood_stderr", timeout=60, options={"mib": 512})
    assert result.facts["flood_stderr"] == {"flooded": True}
    log: str = result.log  # type: ignore[attr-defined]
    assert log.rstrip().endswith("the last line")
    assert len(log) <= 300 * 2**10
    assert psutil.Process().memory_info().rss - before < 100 * 2**20


def test_a_judge_that_exhausts_memory_is_an_error_in_the_memory_limited_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # filling the worker's memory cap takes longer on a loaded machine: the judge's deadline grows with it
    monkeypatch.setenv(runner.PLUGIN_TIMEOUT_ENV, f"{slack(runner.DEFAULT_PLUGIN_TIMEOUT_S):g}")
    checks = described(entry("a.hogs", "HOGS"), entry("a.ok", "OK"))
    with runner.Workers() as workers:
        verdicts = {v.id: v for v in runner.judge_all(checks, {"answer": {}}, {}, {}, workers.host)}
    assert verdicts["a.hogs"].status is Status.ERROR
    assert "MemoryError" in verdicts["a.hogs"].summary
    assert verdicts["a.ok"].status is Status.PASS


def _warm_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, torch_init: str) -> runner.Session:
    """A session whose first worker imports, in the background, a torch whose __init__ is ``torch_init``."""
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text(torch_init)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join((str(tmp_path), os.environ["PYTHONPATH"])))
    return runner.Session(warm_factory=lambda: WorkerProcess(warm=True))


def test_a_warm_worker_runs_the_probes_with_torch_already_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _warm_session(tmp_path, monkeypatch, "__version__ = 'fake'\n") as session:
        result = runner.run_probes([probe("imports_torch")], {}, session, timeout=10)
    assert result.facts["imports_torch"] == {"torch": "fake", "imported_by_warm_up": True}


def test_probes_that_need_no_torch_do_not_wait_for_its_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _warm_session(tmp_path, monkeypatch, "import time\ntime.sleep(3600)\n") as session:
        result = runner.run_probes([probe("answer")], {}, session, timeout=5)
    assert result.errors == {}
    assert result.facts["answer"]["answer"] == 42


@pytest.mark.parametrize(
    ("torch_init", "kind", "text"),
    [
        ("import ctypes\nctypes.string_at(0)\n", "crash", "SIGSEGV"),
        ("raise ImportError('libtorch_cpu.so: cannot open shared object')\n", "exception", "libtorch_cpu.so"),
    ],
)
def test_a_torch_that_breaks_in_the_warm_up_breaks_the_probe_that_imports_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, torch_init: str, kind: str, text: str
) -> None:
    with _warm_session(tmp_path, monkeypatch, torch_init) as session:
        result = runner.run_probes([probe("imports_torch"), probe("answer")], {}, session, timeout=10)
        log = session.log_text()
    error = result.errors["imports_torch"]
    assert error["kind"] == kind
    assert text in error["message"]
    assert result.facts["answer"]["answer"] == 42
    if kind == "crash":  # the probe's answer was lost with the warm worker: it ran again in a cold one
        assert "the warm worker ended before torch imported" in log


SLOW_TO_DESCRIBE = """\
import time

time.sleep(2)


class Broken(ImportError):
    def __str__(self) -> str:
        time.sleep(1)
        return "libtorch_cpu.so: cannot open shared object"


raise Broken()
"""
"""A torch whose import fails after two seconds, and whose error takes a second to put in words: the probe,
which started importing torch while the warm-up was, gets the half-imported module as that import fails,
and answers while the warm-up's report of the failure is still being written."""


def test_the_answer_of_a_probe_that_met_a_failed_warm_up_waits_for_the_report_of_that_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _warm_session(tmp_path, monkeypatch, SLOW_TO_DESCRIBE) as session:
        result = runner.run_probes([probe("imports_torch")], {}, session, timeout=20)
        log = session.log_text()
    error = result.errors["imports_torch"]
    assert "libtorch_cpu.so" in error["message"], error  # not the half-imported module's missing __version__
    assert "importing torch in the background failed" in log
