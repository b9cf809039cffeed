"""`torchdoctor check --only ddp.dryrun` end to end: real rank processes, gloo, on this CPU machine.

Each scenario of the research note that a CPU machine can reproduce, through the CLI; after each,
no process of the run may be left. Faults are injected by faults/sitecustomize.py here; binding a GPU is
tested on the devices of a machine fixture (test_rank_program.py) and judged on fixtures of facts.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from torchdoctor.checks.ddp import dryrun_probe, launcher

from support import BIN, cli_env, end_kept_hosts, invoke, run_cli, slack, validated_report

TOKEN_ENV = "TORCHDOCTOR_DDP_TEST_TOKEN"
FAULTS = Path(__file__).parent / "faults"
# --timeout: 12 s where torch imports in 1 s (the dry run's own deadline is then 10.2 s, each rank's torch
# timeout about 3 s), longer where torch imports slower
FAST = f"{slack(12):g}"


def processes_of(token: str) -> list[str]:
    """Every live process whose environment carries ``token``: the CLI, its worker, the ranks."""
    found = []
    for process in psutil.process_iter(["pid", "cmdline"]):
        try:
            if process.environ().get(TOKEN_ENV) == token and process.status() != psutil.STATUS_ZOMBIE:
                found.append(f"{process.pid}: {' '.join(process.info['cmdline'] or [])[:120]}")
        except psutil.Error:
            continue
    return found


def ranks_of(token: str, cli: int) -> int:
    """How many ranks of the run are alive: processes in a session of their own (as every rank is, forked
    or not) started by anything but the CLI (which starts only its workers)."""
    count = 0
    for process in psutil.process_iter(["pid", "ppid"]):
        try:
            if (
                process.environ().get(TOKEN_ENV) == token
                and process.status() != psutil.STATUS_ZOMBIE
                and os.getsid(process.pid) == process.pid
                and process.info["ppid"] != cli
            ):
                count += 1
        except (psutil.Error, OSError):
            continue
    return count


def assert_none_left(token: str) -> None:
    end_kept_hosts()  # the host worker invoke keeps for a next command is the tests', not the run's
    deadline = time.monotonic() + slack(3)
    while processes_of(token) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_of(token) == []


@pytest.fixture
def token() -> Iterator[str]:
    value = uuid.uuid4().hex
    yield value
    assert_none_left(value)


def dryrun_env(
    tmp_path: Path, token: str, hooks: dict[str, Any] | None = None, **extra: str
) -> dict[str, str]:
    names = ("MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RUN_ID", "GLOO_SOCKET_IFNAME", "NCCL_SOCKET_IFNAME")
    changes: dict[str, str | None] = dict.fromkeys(names)
    changes.update(extra, TMPDIR=str(tmp_path), **{TOKEN_ENV: token})
    env = cli_env(**changes)
    if hooks is not None:
        env["TORCHDOCTOR_TEST_DDP"] = json.dumps(hooks)
        env["PYTHONPATH"] = os.pathsep.join((str(FAULTS), env["PYTHONPATH"]))
    return env


def dryrun(
    env: dict[str, str], timeout: str = FAST, own_process: bool = False
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``check --only ddp.dryrun`` run in this process; in a process of its own, under a deadline of the
    test's, where what is tested is that the dry run's own deadline holds."""
    args = ("check", "--only", "ddp.dryrun", "--json", "--no-redact", "--timeout", timeout)
    result = run_cli(*args, env=env, timeout=slack(90)) if own_process else invoke(*args, env=env)
    report = validated_report(result.stdout)
    assert result.returncode == report["exit_code"], result.stderr
    (verdict,) = report["verdicts"]
    return verdict, report["facts"]["ddp.dryrun"]


def test_two_ranks_pass_with_every_phase_reported(live_run: dict[str, Any]) -> None:
    # The dry run of the live run of every check (conftest.py), as `torchdoctor check` runs it for a user.
    report = live_run["report"]
    (verdict,) = [v for v in report["verdicts"] if v["id"] == "ddp.dryrun"]
    facts = report["facts"]["ddp.dryrun"]
    assert verdict["status"] == "pass", verdict
    assert verdict["summary"].startswith("2 ranks, gloo on CPU: init ")
    assert "all_reduce verified (sum 3), barrier passed, busbw " in verdict["summary"]
    ranks = verdict["facts"]["ranks"]
    assert [(r["rank"], r["local_rank"], r["backend"], r["device"]) for r in ranks] == [
        (0, 0, "gloo", None),
        (1, 1, "gloo", None),
    ]
    assert all(r["timings"]["init_s"] is not None and r["bandwidth"]["busbw_gbps"] > 0 for r in ranks)
    assert facts["plan"] == {
        "nproc": 2,
        "nproc_source": "cpu",
        "backend": "gloo",
        "backend_source": "cpu",
        "visible_gpus": 0,
        "budget_s": round(dryrun_probe.budget_s(report["options"]["timeout"]), 3),
    }
    assert [list(r["phases"]) for r in facts["ranks"]] == [
        ["start", "imported", "bound", "init", "init_done", "allreduce", "barrier", "bandwidth", "done"]
    ] * 2
    assert facts["master"]["port"]["source"] == "free"
    if sys.platform.startswith("linux"):  # forked from the worker's zygote: torchrun's variables reached gloo
        zygotes = {r["process"].get("forked_from") for r in facts["ranks"]}
        assert len(zygotes) == 1 and None not in zygotes, facts["ranks"]


def test_a_busy_master_port_is_named_before_any_rank_starts(tmp_path: Path, token: str) -> None:
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        port = squatter.getsockname()[1]
        verdict, facts = dryrun(dryrun_env(tmp_path, token, MASTER_PORT=str(port)))
    assert verdict["status"] == "fail"
    assert verdict["summary"].startswith(
        f"MASTER_PORT={port} is already in use by pid {psutil.Process().pid} ("
    )
    assert facts["status"] == "precheck_failed" and "ranks" not in facts


def test_an_unresolvable_master_addr_fails_at_once(tmp_path: Path, token: str) -> None:
    verdict, _ = dryrun(dryrun_env(tmp_path, token, MASTER_ADDR="no-such-host.invalid"))
    assert verdict["status"] == "fail"
    assert verdict["summary"].startswith("MASTER_ADDR=no-such-host.invalid does not resolve")


def test_a_rank_that_raises_leads_with_its_own_error(tmp_path: Path, token: str) -> None:
    env = dryrun_env(tmp_path, token, {"faults": {"1": "raise_before_init"}})
    verdict, facts = dryrun(env)
    assert verdict["status"] == "fail"
    assert verdict["summary"] == (
        "rank 1 raised before joining the process group (last phase 'init'): "
        "RuntimeError: injected failure before init_process_group"
    )
    assert any("| RuntimeError: injected failure" in str(d) for d in verdict["details"])
    assert facts["stopped_after_failure_of"] == [1]


def test_a_rank_that_hangs_is_named_and_the_deadline_holds(tmp_path: Path, token: str) -> None:
    env = dryrun_env(tmp_path, token, {"faults": {"1": "hang_before_init"}})
    verdict, facts = dryrun(env, own_process=True)
    assert verdict["status"] == "fail"
    assert verdict["summary"].startswith("rank 1 never joined the process group: stuck after 'init'")
    assert any("1/2 clients joined" in str(d) for d in verdict["details"])
    hung = facts["ranks"][1]
    assert hung["killed"]["reason"] in ("after_peer_failure", "deadline")
    assert hung["exit"]["signal"] == "SIGKILL"


def test_one_rank_failing_to_import_torch(tmp_path: Path, token: str) -> None:
    broken = tmp_path / "broken"
    (broken / "torch").mkdir(parents=True)
    (broken / "torch" / "__init__.py").write_text(
        'raise ImportError("libtorch_global_deps.so: cannot open shared object file")\n'
    )
    env = dryrun_env(tmp_path, token, {"rank_env": {"1": {"PYTHONPATH": str(broken)}}})
    verdict, facts = dryrun(env)
    assert verdict["status"] == "fail"
    assert verdict["summary"] == (
        "rank 1 cannot import torch: import torch failed: ImportError: "
        "libtorch_global_deps.so: cannot open shared object file"
    )
    assert facts["ranks"][1]["last_phase"] == "start"
    # PYTHONPATH is read as Python starts: a rank that differs in it cannot be forked from the zygote.
    assert "PYTHONPATH differ" in facts["ranks"][1]["process"]["fresh"]
    if sys.platform.startswith("linux"):
        assert facts["ranks"][0]["process"]["forked_from"] is not None


def test_a_bad_gloo_socket_ifname(tmp_path: Path, token: str) -> None:
    verdict, _ = dryrun(dryrun_env(tmp_path, token, GLOO_SOCKET_IFNAME="nosuchif0"))
    assert verdict["status"] == "fail"
    # Both ranks fail alike; a rank still importing torch when the other failed is stopped instead.
    assert re.match(
        r"ranks? (0|1|0 and 1): gloo cannot use its network interface \(GLOO_SOCKET_IFNAME=nosuchif0\): ",
        verdict["summary"],
    )
    assert "Unable to find address for: nosuchif0" in verdict["summary"]


def test_inside_a_torchrun_job_nothing_is_started(tmp_path: Path, token: str) -> None:
    verdict, facts = dryrun(dryrun_env(tmp_path, token, TORCHELASTIC_RUN_ID="job-1"))
    assert verdict["status"] == "skip"
    assert "ranks" not in facts


def _interruptible() -> None:
    # A shell starts background jobs with SIGINT ignored, and children inherit that; a terminal does not.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_hanging_run(tmp_path: Path, token: str) -> subprocess.Popen[bytes]:
    env = dryrun_env(tmp_path, token, {"faults": {"0": "hang_before_init", "1": "hang_before_init"}})
    cli = subprocess.Popen(
        [str(BIN / "torchdoctor"), "check", "--only", "ddp.dryrun", "--timeout", "60"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=_interruptible,
    )
    deadline = time.monotonic() + slack(30)
    while ranks_of(token, cli.pid) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert ranks_of(token, cli.pid) == 2
    return cli


def test_ctrl_c_leaves_no_process(tmp_path: Path, token: str) -> None:
    cli = _start_hanging_run(tmp_path, token)
    try:
        cli.send_signal(signal.SIGINT)
        _, stderr = cli.communicate(timeout=20)
    finally:
        cli.kill()
        cli.wait()
    assert cli.returncode == 130, stderr


def test_a_killed_cli_leaves_no_process(tmp_path: Path, token: str) -> None:
    cli = _start_hanging_run(tmp_path, token)
    cli.kill()  # SIGKILL: no cleanup in the CLI; its worker's launcher must notice and end the ranks
    cli.wait()


def test_the_launcher_gives_every_key_of_torchruns_worker_environment() -> None:
    from torch.distributed.elastic.agent.server.local_elastic_agent import LocalElasticAgent

    source = inspect.getsource(LocalElasticAgent._start_workers)
    block = source[source.index("worker_env = {") : source.index("self._set_local_rank_env")]
    torchrun_keys = set(re.findall(r'"([A-Z_]+)":', block)) | {"LOCAL_RANK"}
    env = launcher.torchrun_env(
        {}, local_rank=1, nproc=2, master_addr="127.0.0.1", master_port=29511, run_id="r"
    )
    assert torchrun_keys <= set(env)
    assert env["RANK"] == env["LOCAL_RANK"] == env["ROLE_RANK"] == "1"
    assert env["WORLD_SIZE"] == env["LOCAL_WORLD_SIZE"] == env["ROLE_WORLD_SIZE"] == "2"
    assert (env["GROUP_RANK"], env["GROUP_WORLD_SIZE"], env["MASTER_PORT"]) == ("0", "1", "29511")
    assert env["OMP_NUM_THREADS"] == "1"  # run.py: 1 when unset and nproc > 1
    kept = launcher.torchrun_env(
        {"OMP_NUM_THREADS": "4", "TORCH_NCCL_ASYNC_ERROR_HANDLING": "3"}, 0, 2, "127.0.0.1", 1, "r"
    )
    assert (kept["OMP_NUM_THREADS"], kept["TORCH_NCCL_ASYNC_ERROR_HANDLING"]) == ("4", "3")


def test_a_second_run_on_the_same_master_port_is_told_another_run_holds_it(
    tmp_path: Path, token: str
) -> None:
    port = str(launcher.free_port())
    first_env = dryrun_env(tmp_path, token, {"faults": {"0": "hang_before_init", "1": "hang_before_init"}})
    first_env["MASTER_PORT"] = port
    first = subprocess.Popen(
        [str(BIN / "torchdoctor"), "check", "--only", "ddp.dryrun", "--timeout", "30"],
        env=first_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + slack(30)
        while ranks_of(token, first.pid) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        verdict, facts = dryrun(dryrun_env(tmp_path, token, MASTER_PORT=port))
    finally:
        first.kill()
        first.wait()
    assert verdict["status"] == "fail"
    assert re.match(
        rf"another torchdoctor dry run \(pid \d+\) is using MASTER_PORT={port} ", verdict["summary"]
    )
    assert verdict["fix"]["commands"] == ["unset MASTER_PORT"]
    assert "ranks" not in facts
