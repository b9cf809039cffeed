"""`torchdoctor cluster`'s judges at the edges of their rules, on the recorded two-node H100 cluster's facts
changed the way each case needs: who is missing and where, which versions differ, which ranks cannot bind a
GPU, and how the collective's figures are read. The slow-node share (half the best node's intra-node busbw)
is torchdoctor's choice (cluster_judge.SLOW_NODE_SHARE): a node at half or better is within what NVLink and
PCIe generations differ by; under half, a link is down or downtrained."""

from __future__ import annotations

import copy
from typing import Any

from torchdoctor.checks.ddp import cluster_check
from torchdoctor.model import Finding, Status

from support import fixture_facts

TWO_NODES = "h100x8x2_ddp_cluster_healthy.json"


def exchange() -> dict[str, Any]:
    return copy.deepcopy(fixture_facts(TWO_NODES)["cluster.exchange"])


def judged(check: Any, facts: dict[str, Any]) -> Finding:
    return check.judge({"cluster.exchange": facts}, {})


def rows(finding: Finding) -> list[dict[str, Any]]:
    return [d for d in finding.details if isinstance(d, dict)]


def node(facts: dict[str, Any], group: int) -> list[dict[str, Any]]:
    return [r for r in facts["ranks"] if r["group_rank"] == group]


# -- the exchange --------------------------------------------------------------------------------------------


def test_missing_ranks_are_counted_and_placed_in_their_node_groups() -> None:
    ranks = exchange()["ranks"]
    present = {str(r["rank"]): {"hostname": r["hostname"], "group_rank": r["group_rank"]} for r in ranks[:9]}
    present["8"].pop("group_rank")
    facts = {
        "complete": False,
        "missing": [9, 10, 12],
        "present": present,
        "waited_s": 30.0,
        "ranks": ranks[:9],
    }

    verdict = judged(cluster_check.EXCHANGE, facts)

    assert verdict.summary == (
        "3 of 12 ranks never reached the exchange within 30 s: ranks 9, 10 and 12 (node group 1 in "
        "torchrun's rank order)"
    )
    assert verdict.details[0] == "present: rank 0 on dgx-h100-07 (GROUP_RANK=0)"
    assert verdict.details[8] == "present: rank 8 on dgx-h100-08"


def test_a_failed_exchange_names_the_innermost_frame() -> None:
    traceback = (
        "Traceback (most recent call last):\n"
        '  File "/venv/site-packages/torchdoctor/checks/ddp/exchange_probe.py", line 120, in run\n'
        "    gathered = store.get(key)\n"
        '  File "/venv/site-packages/torch/distributed/c10d.py", line 88, in get\n'
        "    raise DistStoreError\n"
        '  File "/venv/site-packages/torch/distributed/store.py", line 12, in wait\n'
    )
    facts = {"failed": {"type": "DistStoreError", "message": "\n Socket Timeout\n", "traceback": traceback}}

    verdict = judged(cluster_check.EXCHANGE, facts)

    assert verdict.summary == "the exchange between ranks failed: DistStoreError: Socket Timeout"
    assert verdict.details == (
        'raised in File "/venv/site-packages/torch/distributed/store.py", line 12, in wait',
    )


def test_an_entry_without_a_rank_is_not_a_rank() -> None:
    facts = exchange()
    facts["ranks"].append({"hostname": "stray", "summary": {}})

    assert judged(cluster_check.VERSIONS, facts).status is Status.PASS
    assert judged(cluster_check.GPUS, facts).summary == "2 node(s) with 8 GPU(s) each, one per rank"


# -- versions ------------------------------------------------------------------------------------------------


def test_a_pass_lists_every_nodes_versions() -> None:
    verdict = judged(cluster_check.VERSIONS, exchange())

    assert rows(verdict) == [
        {
            "node": label,
            "torch": "2.13.0+cu129",
            "torch CUDA": "12.9",
            "NCCL": "2.27.5",
            "driver": "575.57.08",
        }
        for label in ("node 0 (dgx-h100-07)", "node 1 (dgx-h100-08)")
    ]


def test_three_torch_versions_name_both_odd_nodes() -> None:
    facts = exchange()
    third = copy.deepcopy(node(facts, 1))
    for rank in third:
        rank.update(group_rank=2, rank=rank["rank"] + 8, hostname="dgx-h100-09")
        rank["summary"]["torch"]["version"] = "2.12.0+cu129"
    facts["ranks"] += third
    for rank in node(facts, 1):
        rank["summary"]["torch"]["version"] = "2.14.0+cu129"
    facts["ranks"] += copy.deepcopy(node(facts, 0))
    for rank in facts["ranks"][-8:]:
        rank.update(group_rank=3, rank=rank["rank"] + 24, hostname="dgx-h100-10")

    verdict = judged(cluster_check.VERSIONS, facts)

    assert verdict.status is Status.FAIL
    assert verdict.summary == (
        "torch differs between nodes: node 1 (dgx-h100-08) has torch 2.14.0+cu129; node 2 (dgx-h100-09) has "
        "torch 2.12.0+cu129 where the others have 2.13.0+cu129"
    )


# -- GPUs ----------------------------------------------------------------------------------------------------


def test_the_healthy_nodes_rows_and_summary() -> None:
    verdict = judged(cluster_check.GPUS, exchange())

    assert verdict.summary == "2 node(s) with 8 GPU(s) each, one per rank"
    assert rows(verdict)[0] == {"node": "node 0 (dgx-h100-07)", "gpus": 8, "visible": 8, "ranks": 8}


def test_a_node_without_gpus_beside_one_with_them_lists_none() -> None:
    facts = exchange()
    for rank in node(facts, 1):
        rank["summary"]["gpus"] = []
        rank["summary"]["visible_gpus"] = None

    verdict = judged(cluster_check.GPUS, facts)

    assert verdict.summary == "node 1 (dgx-h100-08) has 0 GPU(s) where another node has 8: a GPU is missing"
    assert verdict.details[0] == "node 1 (dgx-h100-08): none"


def test_a_node_missing_a_gpu_names_the_ones_it_has() -> None:
    facts = exchange()
    for rank in node(facts, 1):
        rank["summary"]["gpus"] = rank["summary"]["gpus"][:2]

    verdict = judged(cluster_check.GPUS, facts)

    assert verdict.details[0] == "node 1 (dgx-h100-08): NVIDIA H100 80GB HBM3, NVIDIA H100 80GB HBM3"


def test_ranks_beyond_the_visible_gpus_are_named_from_the_first() -> None:
    # torch.cuda.set_device(LOCAL_RANK) needs LOCAL_RANK < the number of GPUs the rank sees.
    facts = exchange()
    for rank in node(facts, 1):
        rank["summary"]["visible_gpus"] = 2

    verdict = judged(cluster_check.GPUS, facts)

    assert verdict.status is Status.FAIL
    assert (
        "node 1 (dgx-h100-08): ranks 10, 11, 12, 13, 14 and 15 cannot bind cuda:LOCAL_RANK: LOCAL_RANK=2 but "
        "the rank sees 2 GPU(s)"
    ) in [f for f in verdict.details if isinstance(f, str)] + [verdict.summary]


def test_a_rank_that_sees_no_gpu_cannot_bind_local_rank_0() -> None:
    facts = exchange()
    rank = node(facts, 1)[0]
    rank["summary"] = {**rank["summary"], "visible_gpus": 0}

    verdict = judged(cluster_check.GPUS, facts)

    assert verdict.status is Status.FAIL
    assert "rank 8 cannot bind cuda:LOCAL_RANK: LOCAL_RANK=0 but the rank sees 0 GPU(s)" in (
        verdict.summary + "\n" + "\n".join(map(str, verdict.details))
    )


def test_ranks_that_bound_no_gpu_pass_without_a_mode() -> None:
    facts = exchange()
    for rank in facts["ranks"]:
        rank["device"] = None

    verdict = judged(cluster_check.GPUS, facts)

    assert verdict.summary == "2 node(s) with 8 GPU(s) each, one per rank"


# -- the collective ------------------------------------------------------------------------------------------


def test_a_node_at_exactly_half_the_best_busbw_is_not_slow() -> None:
    facts = exchange()
    for group, seconds in ((0, 0.5), (1, 1.0)):  # 2 GB among 8 ranks: busbw 7.0 and 3.5 GB/s, exactly
        for rank in node(facts, group):
            rank["node_bandwidth"].update(bytes=2_000_000_000, seconds=seconds)

    verdict = judged(cluster_check.COLLECTIVE, facts)

    assert [r["intra_node_busbw_gbps"] for r in rows(verdict)] == [7.0, 3.5]
    assert verdict.status is Status.PASS


def test_a_slow_node_among_three_warns() -> None:
    facts = exchange()
    third = copy.deepcopy(node(facts, 1))
    for rank in third:
        rank.update(group_rank=2, rank=rank["rank"] + 8, hostname="dgx-h100-09")
        rank["node_bandwidth"]["seconds"] = 0.0009
    facts["ranks"] += third

    verdict = judged(cluster_check.COLLECTIVE, facts)

    assert verdict.status is Status.WARN
    assert verdict.summary.startswith("node 2 (dgx-h100-09): intra-node busbw 130.5 GB/s is under half")


def test_the_first_wrong_rank_gives_the_value() -> None:
    facts = exchange()
    facts["ranks"][3]["allreduce"].update(value=120.0, ok=False)
    facts["ranks"][9]["allreduce"].update(value=100.0, ok=False)

    verdict = judged(cluster_check.COLLECTIVE, facts)

    assert (
        verdict.summary
        == "all_reduce returned a wrong result on ranks 3 and 9: 120.0 where 136.0 was expected"
    )


def test_ranks_without_bandwidth_figures_leave_them_out() -> None:
    facts = exchange()
    for rank in facts["ranks"]:
        rank["bandwidth"] = None
        rank["node_bandwidth"] = None

    verdict = judged(cluster_check.COLLECTIVE, facts)

    assert verdict.summary == "all_reduce verified on all 16 ranks"
    assert rows(verdict)[0] == {
        "node": "node 0 (dgx-h100-07)",
        "ranks": 8,
        "busbw_gbps": None,
        "intra_node_busbw_gbps": None,
    }


def test_one_rank_per_node_with_a_message_of_no_whole_mib() -> None:
    facts = exchange()
    facts["ranks"] = [node(facts, 0)[0], node(facts, 1)[0]]
    for rank in facts["ranks"]:
        rank["bandwidth"]["bytes"] = 3 * 2**19
        rank["node_bandwidth"]["bytes"] = 3 * 2**19
    facts["ranks"][1]["bandwidth"] = None

    verdict = judged(cluster_check.COLLECTIVE, facts)

    assert verdict.summary.endswith(" GB/s job-wide (1.5 MiB)")
    assert [r["busbw_gbps"] is None for r in rows(verdict)] == [False, True]


def test_a_nodes_row_shows_its_first_ranks_view() -> None:
    facts = exchange()
    last = node(facts, 1)[-1]
    last["summary"] = {**last["summary"], "visible_gpus": 9}

    verdict = judged(cluster_check.GPUS, facts)

    assert [r["visible"] for r in rows(verdict)] == [8, 8]
