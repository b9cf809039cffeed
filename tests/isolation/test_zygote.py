"""A process forked from the zygote is one torch cannot tell from a rank the launcher starts fresh.

One probe worker, warm as the CLI's is (torch imported before any probe), forks the zygote; a probe there
starts ``zygote_rank.dump`` both ways in local rank 1's environment of a 2-rank torchrun job, plus a gloo
variable set for that rank alone, and the two must see the same: the environment at every level, argv,
stdio, signals, warning filters, torch's threads, CUDA untouched, and gloo honouring the variable. Where a C
compiler is at hand, the worker also runs with a getenv logger (LD_PRELOAD), showing what the C and C++ code
read while torch was imported.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from torchdoctor.checking import runner
from torchdoctor.checks.ddp import launcher
from torchdoctor.isolation import zygote
from torchdoctor.isolation.workerproc import WorkerProcess

TESTS = Path(__file__).parents[1]
GETENV_LOG_ENV = "TORCHDOCTOR_TEST_GETENV_LOG"
GETENV_LOGGER = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

static char *(*real_getenv)(const char *);

static void note(const char *name) {
    if (!real_getenv) real_getenv = (char *(*)(const char *))dlsym(RTLD_NEXT, "getenv");
    const char *path = real_getenv("TORCHDOCTOR_TEST_GETENV_LOG");
    FILE *log = path && name ? fopen(path, "a") : NULL;
    if (log) { fprintf(log, "%d %s\n", (int)getpid(), name); fclose(log); }
}

char *getenv(const char *name) { note(name); return real_getenv(name); }

char *secure_getenv(const char *name) {
    static char *(*real)(const char *);
    if (!real) real = (char *(*)(const char *))dlsym(RTLD_NEXT, "secure_getenv");
    note(name);
    return real(name);
}
"""

pytestmark = pytest.mark.skipif(
    zygote.why_not_fork() == "forking a torch process needs Linux", reason="the zygote needs Linux"
)


def _getenv_logger(folder: Path) -> Path | None:
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    source, library = folder / "getenv_log.c", folder / "getenv_log.so"
    source.write_text(GETENV_LOGGER)
    built = subprocess.run(
        [compiler, "-shared", "-fPIC", "-O1", "-o", str(library), str(source), "-ldl"], capture_output=True
    )
    return library if built.returncode == 0 else None


@pytest.fixture(scope="module")
def worker_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("zygote")
    logger, log = _getenv_logger(folder), folder / "getenv.log"
    with pytest.MonkeyPatch.context() as env:
        path = os.environ.get("PYTHONPATH")
        env.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(TESTS), path) if p))
        for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "GLOO_SOCKET_IFNAME", "LD_PRELOAD"):
            env.delenv(name, raising=False)
        if logger is not None:
            env.setenv("LD_PRELOAD", str(logger))
            env.setenv(GETENV_LOG_ENV, str(log))
        with runner.Session(warm_factory=lambda: WorkerProcess(warm=True)) as session:
            # Another probe runs first, as in a default check: the zygote is forked before any probe runs.
            session.prepare(["fake_probes:answer", "zygote_probes:compare"], 120)
            answers = {
                "compare": session.call(
                    "zygote_probes:compare", {"extra": {"GLOO_SOCKET_IFNAME": "nosuchif0"}}, 180
                ),
                "cuda": session.call("zygote_probes:fork_after_cuda_query", {}, 120),
            }
            worker_log = session.log_text()
    for name, answer in answers.items():
        assert "facts" in answer, (name, answer.get("error"), worker_log[-3000:])
    yield {
        **{name: answer["facts"] for name, answer in answers.items()},
        "getenv_log": log.read_text() if logger is not None and log.exists() else None,
    }


def test_a_forked_rank_sees_what_a_fresh_one_sees(worker_run: dict[str, Any]) -> None:
    fresh, forked = worker_run["compare"]["fresh"], worker_run["compare"]["forked"]
    assert sorted(fresh) == sorted(forked)
    assert [k for k in fresh if fresh[k] != forked[k]] == []
    # and says the same on stderr (runpy warns of a module it finds imported, which a fresh one never is)
    assert worker_run["compare"]["stderr"]["forked"] == worker_run["compare"]["stderr"]["fresh"]


def test_its_environment_is_torchruns_at_every_level(worker_run: dict[str, Any]) -> None:
    compare = worker_run["compare"]
    forked = compare["forked"]
    assert forked["environ"] == forked["c_environ"] == compare["env"]
    assert compare["env"]["LOCAL_RANK"] == compare["env"]["RANK"] == "1"
    assert compare["env"]["OMP_NUM_THREADS"] == "1"  # set by torchrun's rule: unset in the worker, 2 ranks


def test_it_is_a_session_leader_with_only_its_stdio_open(worker_run: dict[str, Any]) -> None:
    forked = worker_run["compare"]["forked"]
    assert forked["session_leader"] is True
    assert forked["stdin"] == os.devnull
    assert forked["main"] == ["__main__", "dump.py"]
    assert forked["argv"] == ["--local-rank=1", "two words"]


def test_torch_sets_its_threads_from_the_ranks_environment(worker_run: dict[str, Any]) -> None:
    # The worker imported torch with OMP_NUM_THREADS unset; the rank has it at 1, as a fresh process would.
    fresh, forked = worker_run["compare"]["fresh"]["threads"], worker_run["compare"]["forked"]["threads"]
    assert forked == fresh
    assert forked["intra_op"] == forked["intra_op_new_thread"] == 1


def test_cuda_is_untouched_in_the_zygote_and_in_the_rank(worker_run: dict[str, Any]) -> None:
    cuda = worker_run["compare"]["forked"]["cuda"]
    assert cuda["initialized"] is False and cuda["bad_fork"] is False
    assert cuda["distributed_initialized"] is False
    assert cuda == worker_run["compare"]["fresh"]["cuda"]


def test_a_variable_set_for_the_rank_alone_reaches_gloo(worker_run: dict[str, Any]) -> None:
    forked = worker_run["compare"]["forked"]
    assert "nosuchif0" in forked["gloo"], forked["gloo"]
    assert forked["gloo"] == worker_run["compare"]["fresh"]["gloo"]


def test_importing_torch_read_none_of_torchruns_variables(worker_run: dict[str, Any]) -> None:
    compare = worker_run["compare"]
    assert compare["import_listed"] is False
    assert set(compare["import_read"]) & launcher.TORCHRUN_VARIABLES == set()


def test_at_the_c_level_importing_torch_reads_only_the_thread_count(worker_run: dict[str, Any]) -> None:
    log = worker_run["getenv_log"]
    if log is None:
        pytest.skip("no C compiler to build the getenv logger")
    lines = [line.split(" ", 1) for line in log.splitlines()]
    zygote_pid = str(worker_run["compare"]["zygote_pid"])
    worker_pid = next(pid for pid, rest in lines if rest == "MARK probes start")
    # Everything the worker read from its start until the probe ran: the interpreter's start, the import of
    # torch, and the zygote's fork.
    mark = lines.index([worker_pid, "MARK probes start"])
    before = [rest for pid, rest in lines[:mark] if pid == worker_pid]
    assert "OMP_NUM_THREADS" in before  # the logger sees what the OpenMP runtime reads as torch loads it
    assert set(before) & launcher.TORCHRUN_VARIABLES == {"OMP_NUM_THREADS"}
    zygote_reads = {rest for pid, rest in lines if pid == zygote_pid}
    assert zygote_reads & launcher.TORCHRUN_VARIABLES == set()  # torch.distributed's import, in the zygote


def test_what_importing_torch_made_is_frozen_and_the_collector_runs_again(worker_run: dict[str, Any]) -> None:
    """The warm-up imports torch with the collector off, then freezes what the import made: no collection
    walks it again, in the worker or in a process forked from it (each module torch imported holds objects
    of its own, so there are many more frozen objects than modules)."""
    collector = worker_run["compare"]["collector"]
    assert collector["enabled"] is True
    assert collector["frozen"] > 10 * collector["modules"]


def test_a_zygote_forked_after_torch_asked_about_cuda_does_not_serve(worker_run: dict[str, Any]) -> None:
    cuda = worker_run["cuda"]
    # torch.cuda.is_available() on a CUDA build registers torch's fork handler: a child forked afterwards is
    # "in bad fork" and could never use CUDA; a CPU build has no CUDA to poison.
    assert cuda["ready"]["ready"] is not cuda["cuda_built"]
    if cuda["cuda_built"]:
        assert "forked after CUDA was used" in cuda["ready"]["why"]


HOME = {"HOME": "/root"}


def _imported(read: frozenset[str] = frozenset(), listed: bool = False, **environ: str) -> zygote.Imported:
    return zygote.Imported({"HOME": "/root", **environ}, read, listed, 1.0)


@pytest.mark.parametrize(
    ("torch", "child", "why"),
    [
        (_imported(), {"HOME": "/root", "RANK": "0"}, None),
        (_imported(), {"HOME": "/root", "PYTHONPATH": "/elsewhere"}, "PYTHONPATH differ"),
        (_imported(), {}, "HOME differ"),
        (_imported(frozenset({"RANK"})), {"HOME": "/root", "RANK": "0"}, "importing torch read RANK"),
        (_imported(listed=True), {"HOME": "/root", "RANK": "0"}, "listed the whole environment"),
        (_imported(listed=True), {"HOME": "/root"}, None),
        (_imported(), {"HOME": "/root", "OMP_NUM_THREADS": "1"}, None),
        (_imported(), {"HOME": "/root", "OMP_NUM_THREADS": "many"}, "OMP_NUM_THREADS='many'"),
        (_imported(), {"HOME": "/root", "OMP_NUM_THREADS": "0"}, "OMP_NUM_THREADS='0'"),
        (_imported(), {"HOME": "/root", "OMP_NUM_THREADS": "x", "MKL_NUM_THREADS": "2"}, "MKL_NUM_THREADS"),
        (_imported(MKL_NUM_THREADS="2"), {**HOME, "OMP_NUM_THREADS": "x", "MKL_NUM_THREADS": "2"}, None),
    ],
)
def test_a_child_is_refused_where_the_import_could_tell(
    torch: zygote.Imported, child: dict[str, str], why: str | None
) -> None:
    may_differ = {"RANK", "OMP_NUM_THREADS"}
    found = zygote.refusal(torch, child, may_differ)
    assert found == why if why is None else why in str(found)


@pytest.mark.parametrize(
    ("worker", "child", "threads"),
    [
        ({}, {"OMP_NUM_THREADS": "1"}, 1),
        ({"OMP_NUM_THREADS": "4"}, {"OMP_NUM_THREADS": "4"}, None),
        ({}, {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "3"}, None),
        ({}, {}, None),
    ],
)
def test_the_thread_count_is_set_only_where_the_import_would_have_set_another(
    worker: dict[str, str], child: dict[str, str], threads: int | None
) -> None:
    assert zygote.thread_count(worker, child) == threads
