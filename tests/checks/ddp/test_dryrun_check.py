"""ddp.dryrun judged on the recorded facts of real machine types, and the rules it is made of."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from torchdoctor.checks.ddp import binding, env_knobs, signatures
from torchdoctor.checks.ddp.collective import bus_bandwidth
from torchdoctor.checks.ddp.dryrun_check import CHECK
from torchdoctor.model import Status

from support import fixture_facts, judge_fixture

HEALTHY = "h100x8_ddp_healthy.json"
GPU0 = "GPU-3c8f1a52-7d0e-4b6a-9f21-0c5e8d7a1b01"


def dry(name: str) -> dict[str, Any]:
    return copy.deepcopy(fixture_facts(name)["ddp.dryrun"])


def judge(facts: dict[str, Any], options: dict[str, Any] | None = None) -> Any:
    return CHECK.judge({"ddp.dryrun": facts}, options or {})


def text(verdict: Any) -> str:
    return "\n".join(str(d) for d in verdict.details)


def test_a_healthy_8x_h100_node_passes_with_busbw_in_the_published_range() -> None:
    verdict = judge_fixture(CHECK, HEALTHY)
    assert verdict.status is Status.PASS
    assert verdict.summary.startswith("8 ranks, nccl on 8 GPU(s) (NVIDIA H100 80GB HBM3): init 1.520 s")
    assert "all_reduce verified (sum 36)" in verdict.summary
    bandwidth = verdict.facts["bandwidth"]
    # The slowest rank's time, as nccl-tests reports it: 64 MiB in 356 us among 8 ranks.
    assert bandwidth["seconds"] == 0.000356
    assert bandwidth["busbw_gbps"] == pytest.approx(67108864 / 0.000356 / 1e9 * 2 * 7 / 8, rel=1e-3)
    assert 250 < bandwidth["busbw_gbps"] < 480  # 460-480 GB/s is the large-message plateau (nccl-tests#290)
    assert "busbw 329.89 GB/s (64 MiB all_reduce)" in verdict.summary


def test_the_verdict_facts_list_every_rank_with_its_device_uuid_and_timings() -> None:
    verdict = judge_fixture(CHECK, HEALTHY)
    ranks = verdict.facts["ranks"]
    assert [r["rank"] for r in ranks] == list(range(8))
    assert [r["local_rank"] for r in ranks] == list(range(8))
    assert {r["backend"] for r in ranks} == {"nccl"}
    assert ranks[2]["device"]["uuid"] == "GPU-7e2b9c10-4d5f-4a8b-b3c7-2e4f6a8c0d03"
    assert ranks[2]["device"]["index"] == 2
    assert set(ranks[0]["timings"]) == {"start_s", "import_s", "init_s", "allreduce_s", "barrier_s"}
    assert ranks[0]["timings"]["import_s"] == pytest.approx(2.93)
    assert ranks[0]["bandwidth"]["busbw_gbps"] > 300


def test_all_ranks_on_cuda0_fail_naming_the_gpu_and_nccls_refusal() -> None:
    verdict = judge_fixture(CHECK, "h100x8_ddp_all_on_cuda0.json")
    assert verdict.status is Status.FAIL
    assert verdict.summary == (
        f"all 8 ranks are on the same GPU (cuda:0, {GPU0}): NCCL refuses this ('Duplicate GPU detected')"
    )
    assert "rank 7 (LOCAL_RANK=7) on cuda:0" in text(verdict)
    assert "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 18000" in text(verdict)
    assert verdict.fix is not None and "torch.cuda.set_device" in verdict.fix.text


def _on_one_gpu(facts: dict[str, Any], backend: str) -> dict[str, Any]:
    facts["plan"]["backend"] = backend
    for record in facts["ranks"]:
        record["device"] = copy.deepcopy(facts["ranks"][0]["device"])
        record["backend"] = backend
    return facts


def test_two_ranks_sharing_a_gpu_under_gloo_warn_that_nccl_would_refuse() -> None:
    verdict = judge(_on_one_gpu(dry(HEALTHY), "gloo"))
    assert verdict.status is Status.WARN
    assert "all 8 ranks are on the same GPU (cuda:0" in verdict.summary
    assert "under NCCL this fails with 'Duplicate GPU detected'" in verdict.summary


def _virtual_local_rank(facts: dict[str, Any]) -> dict[str, Any]:
    """torchrun --virtual-local-rank: LOCAL_RANK 0 and CUDA_VISIBLE_DEVICES=<one GPU> for every worker."""
    for record in facts["ranks"]:
        gpu = record["device"]["index"]
        record["local_rank"] = 0
        record["device"].update(index=0, device_count=1, cuda_visible_devices=str(gpu))
    return facts


def test_virtual_local_rank_mode_is_not_all_on_cuda0() -> None:
    verdict = judge(_virtual_local_rank(dry(HEALTHY)))
    assert verdict.status is Status.PASS
    assert "virtual-local-rank mode" in text(verdict)
    assert [r["device"]["index"] for r in verdict.facts["ranks"]] == [0] * 8


def test_virtual_local_rank_mode_with_one_gpu_given_twice_still_fails() -> None:
    facts = _virtual_local_rank(dry(HEALTHY))
    facts["ranks"][1]["device"]["uuid"] = facts["ranks"][0]["device"]["uuid"]
    verdict = judge(facts)
    assert verdict.status is Status.FAIL
    assert verdict.summary.startswith("ranks 0 and 1 are on the same GPU (cuda:0")
    assert "each rank's CUDA_VISIBLE_DEVICES names the same GPU" in text(verdict)


def test_a_rank_off_its_local_rank_warns() -> None:
    facts = dry(HEALTHY)
    facts["ranks"][2]["device"], facts["ranks"][3]["device"] = (
        facts["ranks"][3]["device"],
        facts["ranks"][2]["device"],
    )
    verdict = judge(facts)
    assert verdict.status is Status.WARN
    assert verdict.summary == "ranks 2 and 3 bound a GPU other than cuda:LOCAL_RANK"
    assert "rank 2: LOCAL_RANK=2 but cuda:3" in text(verdict)


def test_a_rank_that_hung_is_named_with_its_last_phase_and_the_others_are_consequences() -> None:
    verdict = judge_fixture(CHECK, "h100x8_ddp_rank_hung.json")
    assert verdict.status is Status.FAIL
    assert verdict.summary.startswith("rank 5 never joined the process group: stuck after 'imported'")
    assert "killed after the other ranks gave up, 14.63 s after start" in verdict.summary
    details = text(verdict)
    assert "rank 0: timed out waiting for peers to join: DistStoreError: Timed out after 9 seconds" in details
    assert "7/8 clients joined" in details
    assert verdict.facts["ranks"][5]["outcome"] == "stopped"


def test_a_rank_killed_at_the_deadline_is_hung_even_without_peer_errors() -> None:
    facts = dry(HEALTHY)
    stuck = facts["ranks"][6]
    for phase in ("allreduce", "barrier", "bandwidth", "done"):
        stuck["phases"].pop(phase)
    stuck.update(last_phase="init_done", exit={"code": None, "signal": "SIGKILL"})
    stuck["killed"] = {"reason": "deadline", "after_s": 25.5}
    verdict = judge(facts)
    assert verdict.status is Status.FAIL
    assert verdict.summary == (
        "rank 6 hung after joining the process group (last phase 'init_done') "
        "(killed at the dry run's deadline, 25.5 s after start)"
    )


def test_of_ranks_killed_at_the_deadline_the_one_that_got_least_far_is_the_culprit() -> None:
    facts = dry("h100x8_ddp_rank_hung.json")
    for record in facts["ranks"]:
        record.update(error=None, exit={"code": None, "signal": "SIGKILL"})
        record["killed"] = {"reason": "deadline", "after_s": 25.5}
    verdict = judge(facts)
    assert verdict.summary.startswith("rank 5 never joined the process group: stuck after 'imported'")
    assert "rank 0: stuck after 'init' until the deadline" in text(verdict)


def test_ranks_still_importing_torch_at_the_deadline_say_so() -> None:
    facts = dry(HEALTHY)
    for record in facts["ranks"]:
        record.update(phases={"start": 0.1}, last_phase="start", exit={"code": None, "signal": "SIGKILL"})
        record["killed"] = {"reason": "deadline", "after_s": 8.5}
    verdict = judge(facts)
    assert verdict.status is Status.FAIL
    assert verdict.summary == (
        "ranks 0, 1, 2, 3, 4, 5, 6 and 7 still importing torch when killed at the dry run's deadline "
        "(8.5 s after start): too many ranks for this machine's cores, or a slow file system"
    )
    assert (
        verdict.fix is not None
        and "torchdoctor check --only ddp.dryrun --timeout 120" in verdict.fix.commands
    )


def test_a_crash_shows_the_signal_and_the_stderr_tail() -> None:
    verdict = judge_fixture(CHECK, "h100x8_ddp_rank_crash.json")
    assert verdict.status is Status.FAIL
    assert verdict.summary == "rank 3 was killed by SIGSEGV after 'init'"
    details = text(verdict)
    assert "| Fatal Python error: Segmentation fault" in details
    assert "in init_process_group" in details
    assert "rank 0: stopped after 'init' once a peer failed" in details


def test_a_local_rank_beyond_the_visible_gpus_fails_with_the_nproc_that_fits() -> None:
    # The crash fixture with rank 3's failure replaced by what the rank program says when 3 GPUs are visible
    facts = dry("h100x8_ddp_rank_crash.json")
    beyond = facts["ranks"][3]
    beyond.pop("device", None)
    beyond["phases"] = {"start": 0.1, "imported": 3.05}
    beyond["last_phase"] = "imported"
    beyond["exit"] = {"code": 1, "signal": None}
    beyond["error"] = {
        "at": "imported",
        "kind": "invalid_device_ordinal",
        "type": "RankFailure",
        "message": "LOCAL_RANK=3 -> cuda:3, but only 3 CUDA device(s) are visible (invalid device ordinal)",
        "device_count": 3,
        "at_s": 3.06,
    }
    verdict = judge(facts)
    assert verdict.status is Status.FAIL
    assert verdict.summary == (
        "rank 3: LOCAL_RANK=3 -> cuda:3, but only 3 CUDA device(s) are visible (invalid device ordinal)"
    )
    assert verdict.fix is not None
    assert verdict.fix.commands == ("nvidia-smi -L", "torchdoctor check --only ddp.dryrun --nproc 3")
    assert "rank 0: stopped after 'init' once a peer failed" in text(verdict)


def test_nccl_variables_that_break_things_are_listed_with_the_ranks_error() -> None:
    verdict = judge_fixture(CHECK, "h100x8_ddp_nccl_env.json")
    assert verdict.status is Status.FAIL
    assert verdict.summary == (
        "ranks 0, 1, 2, 3, 4, 5, 6 and 7: NCCL found no network interface to bootstrap with "
        "(NCCL_SOCKET_IFNAME=eth0): Bootstrap : no socket interface found"
    )
    details = text(verdict)
    assert "interfaces here: docker0, enp86s0f0" in details
    assert "warn: NCCL debugging settings are set (NCCL_P2P_DISABLE=1)" in details
    assert "warn: NCCL_ASYNC_ERROR_HANDLING is deprecated since torch 2.2" in details
    assert (
        "set: NCCL_ASYNC_ERROR_HANDLING=1, NCCL_DEBUG=WARN, NCCL_P2P_DISABLE=1, NCCL_SOCKET_IFNAME=eth0"
        in details
    )
    assert verdict.fix is not None and "unset NCCL_SOCKET_IFNAME" in verdict.fix.commands


def test_a_wrong_all_reduce_result_fails() -> None:
    facts = dry(HEALTHY)
    for record in facts["ranks"]:
        record["allreduce"].update(value=28.0, ok=False)
    verdict = judge(facts)
    assert verdict.status is Status.FAIL
    assert verdict.summary.startswith(
        "all_reduce returned a wrong result on ranks 0, 1, 2, 3, 4, 5, 6 and 7: 28.0"
    )
    assert "must give 36.0" in verdict.summary


def test_a_busy_master_port_found_before_spawning_names_the_port_and_its_owner() -> None:
    facts = dry(HEALTHY)
    facts.update(status="precheck_failed", ranks=[])
    facts["master"]["port"] = {
        "value": "29500",
        "source": "env",
        "port": 29500,
        "busy": True,
        "error": "EADDRINUSE: Address already in use",
        "owner": {"pid": 4242, "name": "python3", "cmdline": "python3 -m torch.distributed.run train.py"},
    }
    verdict = judge(facts)
    assert verdict.status is Status.FAIL
    assert verdict.summary.startswith("MASTER_PORT=29500 is already in use by pid 4242 (python3)")
    assert "pid 4242: python3 -m torch.distributed.run train.py" in text(verdict)
    assert verdict.fix is not None and "ss -ltnp 'sport = :29500'" in verdict.fix.commands


def test_a_port_taken_after_the_check_is_read_from_rank_0s_error() -> None:
    facts = dry("h100x8_ddp_rank_crash.json")
    facts["ranks"][3].update(exit={"code": 1, "signal": None}, stderr_tail="")
    facts["ranks"][0].update(
        killed=None,
        exit={"code": 1, "signal": None},
        error={
            "at": "init",
            "kind": None,
            "type": "DistNetworkError",
            "message": "The server socket has failed to listen on any local network address. port: 29500, "
            "useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use",
            "at_s": 3.5,
        },
    )
    verdict = judge(facts)
    assert verdict.summary == "rank 0 could not listen on MASTER_PORT=29500: address already in use"


def test_an_unresolvable_master_addr_fails_before_spawning() -> None:
    facts = dry(HEALTHY)
    facts.update(status="precheck_failed", ranks=[])
    facts["master"]["address"] = {
        "value": "no-such-host.invalid",
        "addresses": [],
        "error": "[Errno -2] Name or service not known",
        "local": False,
        "given": "no-such-host.invalid",
        "used": "no-such-host.invalid",
    }
    verdict = judge(facts)
    assert verdict.status is Status.FAIL
    assert verdict.summary.startswith("MASTER_ADDR=no-such-host.invalid does not resolve")
    assert verdict.fix is not None and verdict.fix.commands == ("getent hosts no-such-host.invalid",)


def test_inside_a_torchrun_job_the_dry_run_skips_and_points_to_cluster() -> None:
    verdict = judge({"status": "inside_torchrun", "env": {"TORCHELASTIC_RUN_ID": "job-7"}, "interfaces": []})
    assert verdict.status is Status.SKIP
    assert "TORCHELASTIC_RUN_ID=job-7" in verdict.summary
    assert verdict.fix is not None and "-m torchdoctor cluster" in verdict.fix.commands[0]


@pytest.mark.parametrize(
    ("message", "kind", "role"),
    [
        (
            "The server socket has failed to listen on any local network address. port: 29500, "
            "useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use",
            "port_in_use",
            signatures.ROOT,
        ),
        (
            "Timed out after 7 seconds waiting for clients. 1/2 clients joined.",
            "rendezvous_timeout",
            "consequence",
        ),
        (
            "[../gloo/transport/tcp/pair.cc:537] Read error [127.0.0.1]:23739: Connection reset by peer.",
            "peer_died",
            "consequence",
        ),
        (
            "[Rank 0]: Ranks 1, 3 failed to pass monitoredBarrier in 5000 ms",
            "collective_timeout",
            "consequence",
        ),
        (
            "[enforce fail at device.cc:84] ifa != nullptr. Unable to find address for: x0",
            "gloo_interface",
            signatures.ROOT,
        ),
        (
            "NCCL error in: ProcessGroupNCCL.cpp:1727, unhandled system error, NCCL version 2.19.3",
            "nccl_system_error",
            signatures.ROOT,
        ),
        ("Distributed package doesn't have NCCL built in", "nccl_unavailable", signatures.ROOT),
        ("CUDA error: invalid device ordinal", "invalid_device_ordinal", signatures.ROOT),
        ("use_libuv was requested but PyTorch was build without libuv support", "libuv_missing", "root"),
        (
            "The client socket has timed out after 6000ms while trying to connect to (10.0.0.1, 29500).",
            "master_unreachable",
            "consequence",
        ),
        ("[c10d] ... (gai error: -2 - Name or service not known)", "master_unresolvable", "root"),
    ],
)
def test_distributed_messages_are_classified_by_their_stable_fragments(
    message: str, kind: str, role: str
) -> None:
    signature = signatures.classify(message)
    assert signature is not None
    assert (signature.kind, signature.role) == (kind, role)


def test_monitored_barrier_names_the_ranks_that_did_not_arrive() -> None:
    assert signatures.ranks_missing_barrier(
        "[Rank 0]: Ranks 1, 3 failed to pass monitoredBarrier in 5 ms"
    ) == [1, 3]
    assert signatures.ranks_missing_barrier("Rank 2 failed to pass monitoredBarrier in 5000 ms") == [2]
    assert signatures.ranks_missing_barrier("all good") == []


INTERFACES = ["docker0", "enp86s0f0", "lo"]


@pytest.mark.parametrize(
    ("env", "backend", "expected"),
    [
        ({"GLOO_SOCKET_IFNAME": "enp86s0f0"}, "gloo", []),
        ({"GLOO_SOCKET_IFNAME": "eth0"}, "gloo", [(Status.FAIL, "GLOO_SOCKET_IFNAME=eth0 names 'eth0'")]),
        ({"GLOO_SOCKET_IFNAME": "eth0"}, "nccl", [(Status.WARN, "GLOO_SOCKET_IFNAME=eth0 names 'eth0'")]),
        ({"GLOO_SOCKET_IFNAME": "^lo"}, "gloo", [(Status.FAIL, "gloo has no '^' or '=' syntax")]),
        ({"NCCL_SOCKET_IFNAME": "enp"}, "nccl", []),
        ({"NCCL_SOCKET_IFNAME": "^docker,lo"}, "nccl", []),
        ({"NCCL_SOCKET_IFNAME": "=enp86"}, "nccl", [(Status.FAIL, "NCCL_SOCKET_IFNAME==enp86 matches no")]),
        ({"NCCL_SOCKET_IFNAME": "eth"}, "gloo", []),
        (
            {"NCCL_IB_DISABLE": "1", "NCCL_ALGO": "Ring"},
            "nccl",
            [(Status.WARN, "NCCL_IB_DISABLE=1, NCCL_ALGO=Ring")],
        ),
        ({"NCCL_BLOCKING_WAIT": "1"}, "gloo", [(Status.WARN, "NCCL_BLOCKING_WAIT is deprecated")]),
    ],
)
def test_environment_knobs(env: dict[str, str], backend: str, expected: list[tuple[Status, str]]) -> None:
    found = env_knobs.findings(env, backend, INTERFACES)
    assert [f.status for f in found] == [status for status, _ in expected]
    for finding, (_, fragment) in zip(found, expected, strict=True):
        assert fragment in finding.summary


@pytest.mark.parametrize(
    ("env", "torch", "expected"),
    [
        ({"NCCL_BLOCKING_WAIT": "1"}, "2.1.2+cu121", None),  # the name torch before 2.2 reads
        (
            {"TORCH_NCCL_BLOCKING_WAIT": "1"},
            "2.1.2+cu121",
            "TORCH_NCCL_BLOCKING_WAIT is read from torch 2.2 on",
        ),
        ({"NCCL_BLOCKING_WAIT": "1"}, "2.2.0", "NCCL_BLOCKING_WAIT is deprecated since torch 2.2"),
        ({"TORCH_NCCL_BLOCKING_WAIT": "1"}, "2.13.0+cu129", None),
    ],
)
def test_the_nccl_rename_is_judged_against_the_ranks_torch(
    env: dict[str, str], torch: str, expected: str | None
) -> None:
    found = env_knobs.findings(env, "nccl", INTERFACES, torch)
    assert [f.summary.split(":")[0] for f in found] == ([] if expected is None else [expected])
    facts = dry(HEALTHY)
    facts["env"] = env
    for rank in facts["ranks"]:
        rank["torch"] = {**(rank.get("torch") or {}), "version": torch}
    verdict = CHECK.judge({"ddp.dryrun": facts}, {})
    shown = " ".join([verdict.summary, *map(str, verdict.details)])
    assert verdict.status is (Status.PASS if expected is None else Status.WARN)
    assert expected is None or expected in shown


def test_binding_rules_need_a_uuid_and_say_which_mode_they_saw() -> None:
    cpu = [{"rank": 0, "local_rank": 0, "device": None}, {"rank": 1, "local_rank": 1, "device": None}]
    assert binding.findings(cpu, "gloo") == []
    assert binding.mode(cpu) is None
    records = dry(HEALTHY)["ranks"]
    assert binding.mode(records) == "local_rank"
    assert binding.mode(_virtual_local_rank({"ranks": records})["ranks"]) == "virtual_local_rank"


def test_bus_bandwidth_follows_nccl_tests() -> None:
    assert bus_bandwidth(8 * 10**9, 1.0, 8) == (8.0, 14.0)  # busbw = algbw * 2(n-1)/n
    assert bus_bandwidth(10**9, 1.0, 1) == (1.0, None)
    assert bus_bandwidth(10**9, 0.0, 2) == (None, None)


def test_torchruns_default_port_taken_while_master_port_is_unset_warns() -> None:
    facts = dry(HEALTHY)
    owner = {"pid": 48211, "name": "python3", "cmdline": "python3 train.py"}
    facts["master"]["port"] = {
        "value": None,
        "source": "free",
        "port": 41873,
        "default": {
            "port": 29500,
            "busy": True,
            "error": "EADDRINUSE: Address already in use",
            "owner": owner,
        },
    }
    verdict = judge(facts)
    assert verdict.status is Status.WARN
    assert verdict.summary.startswith("port 29500, where torchrun and init_process_group put rank 0's store")
    assert "in use by pid 48211 (python3)" in verdict.summary
    assert "torchrun --standalone --nproc-per-node=NPROC train.py" in verdict.fix.commands
    facts["master"]["port"]["default"]["busy"] = False
    assert judge(facts).status is Status.PASS


@pytest.mark.parametrize("value", ["²", "٣", "12a", "-1", "99999999999999999999"])
def test_a_master_port_that_is_no_ascii_number_fails_in_one_line(value: str) -> None:
    from torchdoctor.checks.ddp import dryrun_probe

    master = dryrun_probe._master({"MASTER_PORT": value})
    assert master["port"]["error"] == f"MASTER_PORT={value!r} is not a port number (1-65535)"


def test_ranks_of_another_job_on_the_port_are_named_with_the_shared_port_fix() -> None:
    facts = dry(HEALTHY)
    message = "ranks of another job joined this process group on MASTER_PORT=29500: two jobs share the port"
    for record in facts["ranks"]:
        record.update(
            last_phase="init_done",
            error={"at": "init_done", "kind": "foreign_ranks", "type": "RankFailure", "message": message},
            exit={"code": 1, "signal": None},
        )
    verdict = judge(facts)
    assert verdict.status is Status.FAIL
    assert verdict.summary == f"ranks 0, 1, 2, 3, 4, 5, 6 and 7: {message}"
    assert verdict.fix is not None and verdict.fix.commands == ("unset MASTER_PORT",)
