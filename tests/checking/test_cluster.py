"""`torchdoctor cluster`: judged on recorded facts of real clusters, and run under torchrun on 127.0.0.1.

Two torchrun agents on this machine stand for two nodes (``--nnodes 2 --nproc-per-node 1``, c10d
rendezvous on a free port); in a second job, of one agent and two ranks, rank 0 never comes to the exchange.
"""

from __future__ import annotations

import contextlib
import copy
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import psutil
import pytest

from torchdoctor.checking import cluster
from torchdoctor.checks.ddp import cluster_check
from torchdoctor.model import Finding, Status

from support import BIN, cli_env, fixture_facts, run_cli, slack, torch_here, validated_report

TWO_NODES = "h100x8x2_ddp_cluster_healthy.json"
TOKEN_ENV = "TORCHDOCTOR_CLUSTER_TEST_TOKEN"


def exchange(name: str) -> dict[str, Any]:
    return copy.deepcopy(fixture_facts(name)["cluster.exchange"])


CLUSTER_CHECKS = (
    cluster_check.EXCHANGE,
    cluster_check.VERSIONS,
    cluster_check.GPUS,
    cluster_check.COLLECTIVE,
)


def verdicts(facts: dict[str, Any]) -> dict[str, Finding]:
    """The cluster checks' findings on gathered facts, then every local check merged across ranks."""
    found = {check.id: check.judge({"cluster.exchange": facts}, {}) for check in CLUSTER_CHECKS}
    for merged in cluster.merged_local_verdicts(facts.get("ranks") or []):
        found[merged.id] = Finding(merged.status, merged.summary, merged.details, merged.fix)
    return found


def details(finding: Any) -> str:
    return "\n".join(str(d) for d in finding.details)


def node_ranks(facts: dict[str, Any], node: int) -> list[dict[str, Any]]:
    return [r for r in facts["ranks"] if r["group_rank"] == node]


def test_two_healthy_h100_nodes_pass_with_busbw_per_node() -> None:
    found = verdicts(exchange(TWO_NODES))
    assert {k: f.status for k, f in found.items()} == {
        "cluster.exchange": Status.PASS,
        "cluster.versions": Status.PASS,
        "cluster.gpus": Status.PASS,
        "cluster.collective": Status.PASS,
        "torch.build": Status.PASS,
        "cuda.visible_devices": Status.PASS,
    }
    assert (
        found["cluster.exchange"].summary == "all 16 ranks on 2 node(s) reached the exchange (backend nccl)"
    )
    assert found["cluster.versions"].summary == (
        "every node runs torch 2.13.0+cu129 (CUDA 12.9, NCCL 2.27.5), driver 575.57.08"
    )
    collective = found["cluster.collective"]
    assert collective.summary == "all_reduce verified on all 16 ranks, busbw 161.94 GB/s job-wide (64 MiB)"
    rows = [d for d in collective.details if isinstance(d, dict)]
    assert [(r["node"], r["intra_node_busbw_gbps"]) for r in rows] == [
        ("node 0 (dgx-h100-07)", pytest.approx(329.89, abs=0.01)),
        ("node 1 (dgx-h100-08)", pytest.approx(329.89, abs=0.01)),
    ]


def test_a_node_with_another_torch_and_driver_is_a_fail() -> None:
    facts = exchange(TWO_NODES)
    for rank in node_ranks(facts, 1):
        rank["summary"]["torch"].update(version="2.12.1+cu128", cuda="12.8", nccl="2.26.2")
        rank["summary"]["driver_version"] = "570.133.20"
    versions = verdicts(facts)["cluster.versions"]
    assert versions.status is Status.FAIL
    assert versions.summary.startswith(
        "torch differs between nodes: node 1 (dgx-h100-08) has torch 2.12.1+cu128 where the others have "
    )
    text = details(versions)
    assert "fail: driver differs between nodes" in text
    assert "fail: NCCL differs between nodes" in text


def test_another_python_is_only_a_warning() -> None:
    facts = exchange(TWO_NODES)
    for rank in node_ranks(facts, 0):
        rank["summary"]["python"] = "3.12.4"
    versions = verdicts(facts)["cluster.versions"]
    assert versions.status is Status.WARN
    assert "Python differs between nodes" in versions.summary


def test_a_node_missing_a_gpu_fails() -> None:
    facts = exchange(TWO_NODES)
    for rank in node_ranks(facts, 1):
        rank["summary"]["gpus"] = rank["summary"]["gpus"][:7]
        rank["summary"]["visible_gpus"] = 7
    gpus = verdicts(facts)["cluster.gpus"]
    assert gpus.status is Status.FAIL
    assert gpus.summary == "node 1 (dgx-h100-08) has 7 GPU(s) where another node has 8: a GPU is missing"
    assert "rank 15 cannot bind cuda:LOCAL_RANK: LOCAL_RANK=7 but the rank sees 7 GPU(s)" in details(gpus)


def test_virtual_local_rank_mode_is_one_gpu_per_rank() -> None:
    gpus = verdicts(exchange("h100x8_ddp_cluster_virtual_local_rank.json"))["cluster.gpus"]
    assert gpus.status is Status.PASS
    assert gpus.summary == "1 node(s) with 8 GPU(s) each, one per rank (torchrun --virtual-local-rank)"


def test_two_ranks_on_one_gpu_across_the_job_fail() -> None:
    facts = exchange(TWO_NODES)
    facts["ranks"][9]["device"] = copy.deepcopy(facts["ranks"][8]["device"])
    gpus = verdicts(facts)["cluster.gpus"]
    assert gpus.status is Status.FAIL
    assert gpus.summary.startswith("ranks 8 and 9 are on the same GPU (cuda:0, GPU-1a2b3c4d")


def test_a_node_with_half_the_intra_node_busbw_warns() -> None:
    facts = exchange(TWO_NODES)
    for rank in node_ranks(facts, 1):
        rank["node_bandwidth"]["seconds"] = 0.0009  # 64 MiB: 130 GB/s busbw, NVLink degraded
    collective = verdicts(facts)["cluster.collective"]
    assert collective.status is Status.WARN
    assert collective.summary == (
        "node 1 (dgx-h100-08): intra-node busbw 130.5 GB/s is under half the best node's 329.9 GB/s"
    )


def test_a_wrong_all_reduce_fails() -> None:
    facts = exchange(TWO_NODES)
    facts["ranks"][3]["allreduce"].update(value=120.0, ok=False)
    collective = verdicts(facts)["cluster.collective"]
    assert collective.status is Status.FAIL
    assert (
        collective.summary == "all_reduce returned a wrong result on rank 3: 120.0 where 136.0 was expected"
    )


def test_local_verdicts_are_the_worst_of_any_rank_with_where() -> None:
    facts = exchange(TWO_NODES)
    for rank in node_ranks(facts, 1):
        rank["summary"]["verdicts"][0] = {
            "id": "torch.build",
            "title": "PyTorch build",
            "status": "fail",
            "summary": "torch 2.13.0+cpu is a CPU-only build on a machine with 8 NVIDIA GPU(s)",
            "fix": {"text": "Install a CUDA build.", "commands": ["pip install torch"]},
        }
    build = verdicts(facts)["torch.build"]
    assert build.status is Status.FAIL
    assert build.summary == (
        "ranks 8, 9, 10, 11, 12, 13, 14 and 15: "
        "torch 2.13.0+cpu is a CPU-only build on a machine with 8 NVIDIA GPU(s)"
    )
    assert "pass: ranks 0, 1, 2, 3, 4, 5, 6 and 7: torch 2.13.0+cu129" in details(build)
    assert build.fix is not None and build.fix.commands == ("pip install torch",)


def test_ranks_that_never_reached_the_exchange_are_named() -> None:
    facts = {
        "rank": 1,
        "complete": False,
        "missing": [0],
        "present": {"1": {"hostname": "vm", "boot_id": "b", "group_rank": 1, "local_rank": 0, "nccl": False}},
        "reporter": 1,
        "waited_s": 4.0,
        "ranks": [{**exchange(TWO_NODES)["ranks"][8], "rank": 1, "local_world_size": 1, "group_rank": 1}],
    }
    found = verdicts(facts)
    assert found["cluster.exchange"].status is Status.FAIL
    assert found["cluster.exchange"].summary == (
        "1 of 2 ranks never reached the exchange within 4 s: rank 0 (node group 0 in torchrun's rank order)"
    )
    assert found["cluster.collective"].status is Status.SKIP


def test_an_exchange_that_failed_is_an_error_and_the_others_skip() -> None:
    failed = {
        "type": "DistStoreError",
        "message": "Socket Timeout",
        "traceback": "Traceback ...\nDistStoreError",
    }
    found = verdicts({"failed": failed})
    assert found["cluster.exchange"].status is Status.ERROR
    assert "DistStoreError: Socket Timeout" in found["cluster.exchange"].summary
    assert found["cluster.exchange"].fix is not None
    assert {found[c].status for c in ("cluster.versions", "cluster.gpus", "cluster.collective")} == {
        Status.SKIP
    }


def test_outside_a_launched_job_it_says_how_to_launch() -> None:
    env = cli_env(**dict.fromkeys(("RANK", "WORLD_SIZE", "SLURM_PROCID", "SLURM_NTASKS")))
    result = run_cli("cluster", env=env, timeout=30)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "torchdoctor: error: torchdoctor cluster runs on every rank of a launched job: torchrun --nnodes N "
        "--nproc-per-node G -m torchdoctor cluster (or srun with MASTER_ADDR and MASTER_PORT exported)"
    )


def test_srun_tasks_get_the_torchrun_variables_from_slurms() -> None:
    slurm = {
        "SLURM_PROCID": "5",
        "SLURM_NTASKS": "8",
        "SLURM_LOCALID": "1",
        "SLURM_NODEID": "1",
        "SLURM_NTASKS_PER_NODE": "4",
        "MASTER_ADDR": "gpu-a01",
        "MASTER_PORT": "29500",
    }
    launch = cluster.launch_from(slurm)
    assert (launch.rank, launch.world_size, launch.launcher) == (5, 8, "srun")
    env = launch.env
    assert (
        env["RANK"],
        env["WORLD_SIZE"],
        env["LOCAL_RANK"],
        env["GROUP_RANK"],
        env["LOCAL_WORLD_SIZE"],
    ) == (
        "5",
        "8",
        "1",
        "1",
        "4",
    )
    without_port = {k: v for k, v in slurm.items() if k != "MASTER_PORT"}
    with pytest.raises(cluster.NotLaunched, match="MASTER_PORT not set: export them for srun"):
        cluster.launch_from(without_port)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"WORLD_SIZE": "0"}, "WORLD_SIZE=0: a job has at least one rank"),
        ({"RANK": "3", "WORLD_SIZE": "2"}, "RANK=3 with WORLD_SIZE=2: ranks run from 0 to 1"),
        ({"MASTER_PORT": "99999"}, "MASTER_PORT=99999: a TCP port is from 1 to 65535"),
        ({"MASTER_PORT": "0"}, "MASTER_PORT=0: a TCP port is from 1 to 65535"),
        ({"LOCAL_WORLD_SIZE": "0"}, "LOCAL_WORLD_SIZE=0: a node runs at least one rank"),
        (
            {"LOCAL_RANK": "2", "LOCAL_WORLD_SIZE": "2"},
            "LOCAL_RANK=2 with LOCAL_WORLD_SIZE=2: local ranks run from 0 to 1",
        ),
    ],
)
def test_launch_values_no_job_can_have_are_refused_naming_the_variable(
    given: dict[str, str], message: str
) -> None:
    """Out of range, not malformed: refused before anything waits on a rank that cannot come or a port
    that cannot exist (it waited out the timeout, or met a raw TCPStore error)."""
    env = {"RANK": "0", "WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29500", **given}
    with pytest.raises(cluster.NotLaunched) as refused:
        cluster.launch_from(env)
    assert str(refused.value) == message


def test_an_out_of_range_launch_is_a_usage_error_on_the_command_line() -> None:
    env = cli_env(RANK="0", WORLD_SIZE="0", MASTER_ADDR="127.0.0.1", MASTER_PORT="29500")
    result = run_cli("cluster", "--only", "cuda.visible_devices", env=env, timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip() == "torchdoctor: error: WORLD_SIZE=0: a job has at least one rank"


# --- under torchrun, two node agents on 127.0.0.1 ---------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def node_agent(
    port: int,
    run_id: str,
    command: list[str],
    env: dict[str, str],
    tmp_path: Path,
    name: str,
    nodes: int = 2,
    ranks_per_node: int = 1,
) -> subprocess.Popen[str]:
    """One torchrun agent standing for one node of a job of ``nodes``, in its own session."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--nnodes",
            str(nodes),
            "--nproc-per-node",
            str(ranks_per_node),
            "--rdzv-backend",
            "c10d",
            "--rdzv-endpoint",
            f"127.0.0.1:{port}",
            "--rdzv-id",
            run_id,
            "--rdzv-conf",
            "join_timeout=40",
            "--max-restarts",
            "0",
            "--local-addr",
            "127.0.0.1",
            *command,
        ],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=(tmp_path / f"{name}.stderr").open("w"),
        text=True,
        start_new_session=True,
    )


def processes_of(token: str) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter():
        try:
            if process.environ().get(TOKEN_ENV) == token and process.status() != psutil.STATUS_ZOMBIE:
                found.append(process)
        except psutil.Error:
            continue
    return found


def end_all(token: str) -> None:
    for process in processes_of(token):
        with contextlib.suppress(psutil.Error):
            process.kill()


@pytest.fixture
def job(tmp_path: Path) -> Any:
    token = uuid.uuid4().hex
    env = cli_env(TMPDIR=str(tmp_path), **{TOKEN_ENV: token}, MASTER_ADDR=None, MASTER_PORT=None)
    env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", "")])
    yield token, env
    end_all(token)
    deadline = time.monotonic() + slack(5)
    while processes_of(token) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_of(token) == []


# The cheapest check beside the cluster's own: its probe imports no torch, so each node starts one torch less.
DOCTOR = ["-m", "torchdoctor", "cluster", "--json", "--only", "cuda.visible_devices"]


def test_two_nodes_on_loopback_give_one_report_on_rank_0(job: Any, tmp_path: Path) -> None:
    token, env = job
    port, run_id = free_port(), f"doctor-{token[:8]}"
    agents = [
        node_agent(port, run_id, [*DOCTOR, "--timeout", "30"], env, tmp_path, f"node{i}") for i in (0, 1)
    ]
    outputs = [agent.communicate(timeout=slack(120))[0] for agent in agents]
    assert [agent.returncode for agent in agents] == [0, 0], [
        (tmp_path / f"node{i}.stderr").read_text()[-2000:] for i in (0, 1)
    ]
    reports = [validated_report(out) for out in outputs if out.strip()]
    assert len(reports) == 1, "rank 0 prints the report, the other rank prints nothing on stdout"
    report = reports[0]
    cluster = report["cluster"]
    assert [r["rank"] for r in cluster["ranks"]] == [0, 1]
    assert sorted(r["node"] for r in cluster["ranks"]) == ["node 0", "node 1"]
    assert cluster["complete"] is True and cluster["world_size"] == 2 and cluster["launcher"] == "torchrun"
    assert all(r["torch"] == torch_here()["version"] and r["busbw_gbps"] > 0 for r in cluster["ranks"])
    statuses = {v["id"]: v["status"] for v in report["verdicts"]}
    assert statuses == {
        "cluster.exchange": "pass",
        "cluster.versions": "pass",
        "cluster.gpus": "skip",
        "cluster.collective": "pass",
        "cuda.visible_devices": statuses["cuda.visible_devices"],
    }
    assert statuses["cuda.visible_devices"] in ("pass", "skip")
    assert report["exit_code"] == 0


# Rank 0 sleeps where the doctor would start: the rank that remains is no host of the job's store (torchrun's
# agent is) and must still report, alone, within the deadline.
RANK_0_NEVER_COMES = 'if [ "$RANK" = 0 ]; then exec sleep 120; fi; exec torchdoctor "$@"'


def test_a_rank_that_never_comes_is_named_within_the_deadline(job: Any, tmp_path: Path) -> None:
    token, env = job
    port, run_id = free_port(), f"doctor-{token[:8]}"
    command = ["--no-python", "sh", "-c", RANK_0_NEVER_COMES, "sh", *DOCTOR[2:], "--timeout", "4"]
    agent = node_agent(port, run_id, command, env, tmp_path, "agent", nodes=1, ranks_per_node=2)
    try:
        output, _ = agent.communicate(timeout=slack(90))
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(agent.pid, signal.SIGKILL)
        agent.wait()
    report = validated_report(output)
    exchange_verdict = next(v for v in report["verdicts"] if v["id"] == "cluster.exchange")
    assert exchange_verdict["status"] == "fail"
    assert exchange_verdict["summary"].startswith(
        "1 of 2 ranks never reached the exchange within 4 s: rank 0"
    ), exchange_verdict
    assert report["cluster"]["complete"] is False
    assert report["cluster"]["missing_ranks"] == [0]
    assert report["exit_code"] == 1 and agent.returncode != 0  # torchrun fails with the failing rank


# -- what cluster takes, runs and says ---------------------------------------------------------------


def _described(*checks: Any) -> list[Any]:
    from torchdoctor.checking.registry import CheckInfo, Entry

    return [
        CheckInfo(Entry(c.id, "x:y", "torchdoctor", "0.1.0"), c.title, c.probes, c.options) for c in checks
    ]


def test_cluster_takes_no_option_of_a_check_it_never_runs() -> None:
    from torchdoctor.checking import options as declared_options
    from torchdoctor.checks.ddp.dryrun_check import CHECK as DRYRUN
    from torchdoctor.checks.memory.memory_check import CHECK as MEMORY

    checks = _described(MEMORY, DRYRUN)
    declared, _ = declared_options.merge(checks)
    flags = {o.flag for o in cluster.usable_options(declared, checks)}
    assert "--min-free" in flags
    assert not flags & {"--nproc", "--backend"}


def test_no_option_of_cluster_is_an_abbreviation_torchrun_would_refuse() -> None:
    # torchrun's parser classifies every argument, the script's included: a prefix of two of its own
    # options ('--nproc') is "ambiguous" before torchdoctor even starts.
    run = pytest.importorskip("torch.distributed.run")
    import typer.main

    from torchdoctor.cli import build_app

    command = typer.main.get_command(build_app()).commands["cluster"]  # type: ignore[attr-defined]
    flags = [opt for param in command.params for opt in param.opts if opt.startswith("--")]
    parser = run.get_args_parser()
    for flag in flags:
        parser.parse_args(["--nproc-per-node", "1", "-m", "torchdoctor", "cluster", flag])


def test_a_check_cluster_leaves_out_is_a_skip_that_says_why() -> None:
    from torchdoctor.checks.ddp.dryrun_check import CHECK as DRYRUN

    (verdict,) = cluster.not_run(_described(DRYRUN))
    assert (verdict.id, verdict.status) == ("ddp.dryrun", Status.SKIP)
    assert "the job's own ranks are the dry run" in verdict.summary


def test_versions_never_read_none_when_a_rank_did_not_say() -> None:
    facts = exchange(TWO_NODES)
    for rank in facts["ranks"]:
        rank["summary"]["torch"] = {"version": None, "cuda": None, "nccl": None}
    finding = verdicts(facts)["cluster.versions"]
    assert finding.status is Status.SKIP
    assert "None" not in finding.summary


def test_a_missing_rank_outside_torchrun_is_named_in_one_clean_verdict() -> None:
    # RANK/WORLD_SIZE exported by hand, rank 1 never starts: rank 0 hosts the store and names it.
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        port = held.getsockname()[1]
    env = cli_env(RANK="0", WORLD_SIZE="2", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    # --timeout is also each probe's deadline: the torch probe must have time to import torch.
    deadline = int(slack(15))
    result = run_cli(
        "cluster", "--only", "gpu.memory", "--timeout", str(deadline), env=env, timeout=12 * deadline
    )
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    exchange_line = next(line for line in lines if line.startswith("FAIL   cluster.exchange"))
    assert exchange_line.endswith(f"1 of 2 ranks never reached the exchange within {deadline} s: rank 1")
    assert "Traceback" not in result.stdout and not any(set(line.strip()) == {"^"} for line in lines)
    assert lines[1] == "" and lines[2].startswith("node ")  # the node table right under the header
    versions = next(line for line in lines if "cluster.versions" in line)
    assert "None" not in versions and "every node runs torch " in versions
