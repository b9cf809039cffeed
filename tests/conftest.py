"""What every test run shares: two test processes where pytest-xdist is installed, the facts of the installed
torch measured once, the package compiled once for the many torchdoctor processes the tests start, and the
host workers of the commands a test module invokes in process (support.invoke), ended with the module."""

from __future__ import annotations

import compileall
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from support import TORCH_FACTS_ENV, end_kept_hosts, measure_torch

REPO = Path(__file__).resolve().parents[1]
# Where PYTHONDONTWRITEBYTECODE is set, pytest would rewrite the asserts of every test module anew in each
# test process of every run: let it keep them in the tests' own __pycache__, as it does by default.
sys.dont_write_bytecode = False
WORKERS = 2  # most end-to-end tests wait on subprocesses and deadlines, not on a CPU


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """``-n 2 --dist loadscope`` unless ``-n`` or ``--dist`` was given, where pytest-xdist is installed;
    without it, one process. A module's tests stay in one process, so a module-scoped fixture (a live
    report, a wheel, a dry run) runs once, not once in each test process."""
    if os.environ.get("PYTEST_XDIST_WORKER") or not config.pluginmanager.hasplugin("xdist"):
        return
    if config.option.numprocesses is None and not config.option.collectonly and not config.option.usepdb:
        config.option.numprocesses = WORKERS
    if config.option.numprocesses and config.option.dist == "no":
        config.option.dist = "loadscope"


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER") or config.option.collectonly:
        return  # a worker reads what the controller measured
    if TORCH_FACTS_ENV not in os.environ:
        os.environ[TORCH_FACTS_ENV] = json.dumps(measure_torch())
    # Every torchdoctor command a test starts imports the package again. Where PYTHONDONTWRITEBYTECODE is set
    # nothing caches the compiled modules, and each process would compile them anew.
    for folder in ("torchdoctor", "checks", "tests"):
        compileall.compile_dir(REPO / folder, quiet=2, workers=1)


@pytest.fixture(autouse=True, scope="module")
def _kept_host_workers() -> Iterator[None]:
    yield
    end_kept_hosts()
