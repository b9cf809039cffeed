"""What every test run shares: one test process (``-n 2`` runs two where pytest-xdist is installed, the tests
that import torch._dynamo in one of them), the facts of the installed torch measured by the import each
test process makes anyway, the package compiled once for the many torchdoctor processes the tests start,
one live run of every check and one saved report of this machine, and the host workers of the commands a
test module invokes in process (support.invoke), ended with the module."""

from __future__ import annotations

import compileall
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

# One OpenMP thread for the torch of the test process and of every process it starts (they inherit the
# environment), unless the environment says otherwise: on two cores a second thread busy-waits after each
# parallel region, which costs CPU and speeds up none of these small tensors (the suite: 151 s of CPU in
# its tests with two threads, 123 s with one).
os.environ.setdefault("OMP_NUM_THREADS", "1")

import pytest
from filelock import FileLock

from support import TORCH_FACTS_ENV, cli_env, cli_in_process, end_kept_hosts, invoke, measure_torch

REPO = Path(__file__).resolve().parents[1]
# Where PYTHONDONTWRITEBYTECODE is set, pytest would rewrite the asserts of every test module anew in each
# test process of every run: let it keep them in the tests' own __pycache__, as it does by default.
sys.dont_write_bytecode = False


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """One test process unless ``-n`` is given: a second one imports torch, collects every module and starts
    its own helpers again, about 20 s more CPU for a run about a minute shorter. With ``-n``, ``--dist
    loadscope`` unless ``--dist`` was given: a module's tests stay in one process, so a module-scoped fixture
    (a live report, a wheel, a dry run) runs once, not once in each test process."""
    if os.environ.get("PYTEST_XDIST_WORKER") or not config.pluginmanager.hasplugin("xdist"):
        return
    if config.option.numprocesses and config.option.dist == "no":
        config.option.dist = "loadscope"


def _runs_tests(config: pytest.Config) -> bool:
    """Whether this process collects and runs tests: a test process of xdist's, or the one process."""
    return bool(os.environ.get("PYTEST_XDIST_WORKER")) or not (
        config.pluginmanager.hasplugin("xdist") and config.option.numprocesses
    )


def pytest_configure(config: pytest.Config) -> None:
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        # torchdoctor keeps its pseudonym key under $XDG_STATE_HOME: the tests' own folder, shared by their
        # processes, never the developer's.
        state = tempfile.mkdtemp(prefix="torchdoctor-state-")
        os.environ["XDG_STATE_HOME"] = state
        config.add_cleanup(lambda: shutil.rmtree(state, ignore_errors=True))
    if _runs_tests(config) and TORCH_FACTS_ENV not in os.environ:
        # Collecting imports torch (tests/runtime): measured first, that import costs nothing more.
        os.environ[TORCH_FACTS_ENV] = json.dumps(measure_torch())
    if os.environ.get("PYTEST_XDIST_WORKER") or config.option.collectonly:
        return
    # Every torchdoctor command a test starts imports the package again. Where PYTHONDONTWRITEBYTECODE is set
    # nothing caches the compiled modules, and each process would compile them anew.
    for folder in ("torchdoctor", "checks", "tests"):
        compileall.compile_dir(REPO / folder, quiet=2, workers=1)


# Where a test imports torch._dynamo in the test process (a meta-device mismatch does, as torch.compile does;
# about as long as importing torch), a test process runs all of these, so that one import serves them.
SHARING_DYNAMO = "tests/runtime/"


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """--dist loadscope, with the tests under SHARING_DYNAMO as one scope."""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SharedDynamo(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return SHARING_DYNAMO if nodeid.startswith(SHARING_DYNAMO) else str(super()._split_scope(nodeid))

    return SharedDynamo(config, log)


@pytest.fixture(autouse=True, scope="module")
def _kept_host_workers() -> Iterator[None]:
    yield
    end_kept_hosts()


def _made_once(factory: pytest.TempPathFactory, name: str, make: Callable[[Path], Any]) -> Any:
    """What ``make(folder)`` returns (JSON), made once per test run however many test processes ask: the
    first makes it, under a lock, in a folder of the run's own; the others read it."""
    shared = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the run's folder, which holds each test process's own
    folder = shared / name
    with FileLock(f"{folder}.lock"):
        made = folder / "made.json"
        if not made.exists():
            folder.mkdir(exist_ok=True)
            made.write_text(json.dumps(make(folder)))
        return json.loads(made.read_text())


LIVE_RUN = (["check", "--json", "--no-redact"], ["list"])


@pytest.fixture(scope="session")
def live_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``torchdoctor check --json --no-redact`` of this machine, every check, then ``list``, in one fresh
    process as ``cli.main`` runs them for a user (support.cli_in_process): its ``report``, ``stdout`` and
    ``stderr`` (ending with what the process imported); made once per test run."""

    def make(folder: Path) -> dict[str, Any]:
        done = cli_in_process(*LIVE_RUN)
        return {"stdout": done.stdout, "stderr": done.stderr}

    run: dict[str, Any] = _made_once(tmp_path_factory, "live_run", make)
    assert run["stdout"].startswith("{"), run["stderr"][-3000:]
    run["report"] = json.JSONDecoder().raw_decode(run["stdout"])[0]
    return run


SAVED_REPORT_ENV = {"CUDA_VISIBLE_DEVICES": "0,0", "NCCL_DEBUG": "INFO"}


@pytest.fixture(scope="session")
def saved_report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``torchdoctor report --only torch.build,cuda.visible_devices -o ticket.json`` of this machine, with
    SAVED_REPORT_ENV (cuda.visible_devices warns of the duplicate entry): the saved report's ``path`` and what
    the command said (``returncode``, ``stdout``, ``stderr``); made once per test run. No test changes it."""

    def make(folder: Path) -> dict[str, Any]:
        path = folder / "ticket.json"
        only = "torch.build,cuda.visible_devices"
        done = invoke("report", "--only", only, "-o", str(path), env=cli_env(**SAVED_REPORT_ENV))
        said = {"returncode": done.returncode, "stdout": done.stdout, "stderr": done.stderr}
        return {"path": str(path), **said}

    saved: dict[str, Any] = _made_once(tmp_path_factory, "saved_report", make)
    return saved
