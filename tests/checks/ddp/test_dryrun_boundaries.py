"""ddp.dryrun at the edges of its rules: how much of a rank's output a verdict keeps, how ranks are ordered
and grouped, what each way a rank ends is called, and the figures a passing run reports. Ranks are the
healthy 8x H100 fixture's records, changed the way each case needs; facts go through JSON as a saved report
gives them back."""

from __future__ import annotations

import copy
import json
import sys
from typing import Any

import pytest

from torchdoctor.checks.ddp import dryrun_judge, signatures
from torchdoctor.checks.ddp.dryrun_check import CHECK
from torchdoctor.model import Finding, Status

from support import fixture_facts

HEALTHY = "h100x8_ddp_healthy.json"


def dry(name: str = HEALTHY) -> dict[str, Any]:
    return copy.deepcopy(fixture_facts(name)["ddp.dryrun"])


def judge(facts: dict[str, Any]) -> Finding:
    return CHECK.judge(json.loads(json.dumps({"ddp.dryrun": facts})), {})


def text(verdict: Finding) -> str:
    return "\n".join(str(d) for d in verdict.details)


def rows(verdict: Finding) -> list[dict[str, Any]]:
    return [d for d in verdict.details if isinstance(d, dict)]


def raised(record: dict[str, Any], message: str, at_s: float | None = 4.0, stderr: str = "") -> None:
    """The rank raised an exception torchdoctor has no signature for, after joining the process group."""
    for phase in ("allreduce", "barrier", "bandwidth", "done"):
        record["phases"].pop(phase, None)
    record.update(last_phase="init_done", exit={"code": 1, "signal": None}, stderr_tail=stderr)
    record["error"] = {"type": "ValueError", "message": message, "at_s": at_s}


def stopped(record: dict[str, Any], after_s: float = 5.0, reason: str = "after_peer_failure") -> None:
    record.update(error=None, exit={"code": None, "signal": "SIGKILL"})
    record["killed"] = {"reason": reason, "after_s": after_s}


# -- how much of a rank's output is kept -----------------------------------------------------------


def test_a_message_is_cut_at_300_characters() -> None:
    # torchdoctor's choice: a verdict line stays readable; the stderr tail below it keeps the rest.
    facts = dry()
    raised(facts["ranks"][0], "x" * 400)
    for record in facts["ranks"][1:]:
        stopped(record)

    verdict = judge(facts)

    assert (
        verdict.summary
        == "rank 0 raised after joining the process group (last phase 'init_done'): "
        + ("ValueError: " + "x" * 400)[:300]
    )


def test_the_stderr_tail_keeps_its_last_8_lines_without_blank_ones() -> None:
    facts = dry()
    tail = "\n".join([*(f"line {n}" for n in range(1, 11)), "", "   "])
    raised(facts["ranks"][0], "boom", stderr=tail)
    for record in facts["ranks"][1:]:
        stopped(record)

    verdict = judge(facts)

    shown = [d for d in verdict.details if str(d).startswith("  | ")]
    assert shown == [f"  | line {n}" for n in range(3, 11)]


def twenty_ranks() -> list[dict[str, Any]]:
    ranks = [copy.deepcopy(dry()["ranks"][n % 8]) for n in range(20)]
    for n, record in enumerate(ranks):
        record.update(rank=n, local_rank=n, pid=1000 + n)
        record["device"]["uuid"] = f"GPU-{n:08d}"  # twenty GPUs, none shared
        record["device"]["index"] = n
    return ranks


def test_eight_ranks_are_listed_and_the_rest_counted() -> None:
    facts = dry()
    facts["ranks"] = twenty_ranks()
    for record in facts["ranks"]:
        raised(record, "boom")

    verdict = judge(facts)

    listed = [d for d in verdict.details if str(d).startswith("rank ") and " (pid " in str(d)]
    assert len(listed) == 8
    assert "... and 12 more ranks" in verdict.details
    assert verdict.summary.startswith(
        "ranks 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18 and 19"
    )


def test_eight_consequences_are_listed_and_the_rest_counted() -> None:
    facts = dry()
    facts["ranks"] = twenty_ranks()
    for record in facts["ranks"]:
        stopped(record)
    raised(facts["ranks"][0], "boom")

    verdict = judge(facts)

    consequences = [
        d for d in verdict.details if str(d).startswith("rank ") and "once a peer failed" in str(d)
    ]
    assert len(consequences) == 8
    assert verdict.details[verdict.details.index("as a consequence:") + 9] == "... and 11 more ranks"


# -- which rank leads ------------------------------------------------------------------------------


def test_ranks_are_ordered_by_when_they_failed_to_a_tenth_of_a_second_then_by_rank() -> None:
    facts = dry()
    for record in facts["ranks"]:
        stopped(record)
    raised(facts["ranks"][5], "late", at_s=4.9)
    raised(facts["ranks"][6], "first", at_s=4.12)
    raised(facts["ranks"][2], "same tenth", at_s=4.14)

    verdict = judge(facts)

    evidence = [d for d in verdict.details if str(d).startswith("rank ") and "pid" in str(d)]
    assert [d.split(" ")[1] for d in evidence] == ["2", "6", "5"]


def test_a_failure_time_missing_is_the_last_phase_reached() -> None:
    facts = dry()
    for record in facts["ranks"]:
        stopped(record)
    raised(facts["ranks"][3], "no time", at_s=None)  # its last phase, init_done, was at 4.97 s
    raised(facts["ranks"][1], "at 4.9", at_s=4.9)

    verdict = judge(facts)

    evidence = [d for d in verdict.details if str(d).startswith("rank ") and "pid" in str(d)]
    assert [d.split(" ")[1] for d in evidence] == ["1", "3"]


# -- what each way a rank ends is called -----------------------------------------------------------


def test_a_rank_that_never_started_is_the_root_cause() -> None:
    facts = dry()
    for record in facts["ranks"]:
        stopped(record)
    facts["ranks"][4]["start_error"] = "OSError: [Errno 8] Exec format error: '/opt/venv/bin/python'"

    verdict = judge(facts)

    assert verdict.status is Status.FAIL
    assert verdict.summary == "rank 4: OSError: [Errno 8] Exec format error: '/opt/venv/bin/python'"
    assert rows(verdict)[4]["outcome"] == "not_started: start_failed"


def test_a_rank_that_exited_while_importing_torch_could_not_import_it() -> None:
    facts = dry()
    for record in facts["ranks"]:
        stopped(record)
    first = facts["ranks"][0]
    first.update(phases={"start": 0.1}, last_phase="start", exit={"code": 1, "signal": None}, killed=None)

    verdict = judge(facts)

    assert verdict.summary.startswith("rank 0 cannot import torch: exited with code 1 while importing torch")
    assert rows(verdict)[0]["outcome"] == "crashed: import_failed"


def test_interrupted_ranks_are_consequences_and_say_so() -> None:
    facts = dry()
    for record in facts["ranks"][1:]:
        stopped(record, reason="interrupted")
    raised(facts["ranks"][0], "boom")

    verdict = judge(facts)

    assert "rank 1: stopped by an interruption" in text(verdict)
    assert rows(verdict)[1]["outcome"] == "interrupted"


def test_a_rank_with_neither_rank_nor_local_rank_is_rank_minus_one() -> None:
    facts = dry()
    for record in facts["ranks"]:
        stopped(record)
    facts["ranks"][0].pop("rank")
    facts["ranks"][0].pop("device")
    facts["ranks"][1].pop("rank")
    facts["ranks"][1].pop("local_rank")
    facts["ranks"][1].pop("device")  # binding's rules read the rank of every rank bound to a GPU
    raised(facts["ranks"][1], "boom")

    verdict = judge(facts)

    assert verdict.summary.startswith("rank -1 raised")
    assert [r["rank"] for r in rows(verdict)][:2] == [0, -1]


# -- a passing run's figures -----------------------------------------------------------------------


def test_a_passing_run_reports_its_slowest_init_and_busbw_per_rank() -> None:
    facts = dry()
    facts["ranks"][4]["init_s"] = 2.0004
    facts["ranks"][4]["bandwidth"]["busbw_gbps"] = 300.126

    verdict = judge(facts)

    assert verdict.status is Status.PASS
    assert "init 2.000 s" in verdict.summary
    row = rows(verdict)[4]
    assert (row["init"], row["busbw"], row["device"], row["outcome"]) == (
        "2.000 s",
        "300.13 GB/s",
        "cuda:4",
        "ok",
    )


def test_a_cpu_run_without_bandwidth_says_so_in_its_figures() -> None:
    facts = dry()
    facts["plan"]["backend"] = "gloo"
    for record in facts["ranks"]:
        record.pop("device")
        record.pop("bandwidth")
        record["phases"].pop("bandwidth")
        record.pop("init_s")

    verdict = judge(facts)

    assert verdict.status is Status.PASS
    assert (
        verdict.summary == "8 ranks, gloo on CPU: init 0.000 s, all_reduce verified (sum 36), barrier passed"
    )
    row = rows(verdict)[0]
    assert (row["device"], row["init"], row["busbw"]) == ("cpu", None, None)
    assert verdict.facts["bandwidth"] is None


def test_a_rank_that_never_bound_has_no_device() -> None:
    facts = dry()
    for record in facts["ranks"]:
        stopped(record)
    first = facts["ranks"][0]
    first.pop("device")
    first.update(phases={"start": 0.1, "imported": 3.0}, last_phase="imported")
    raised(first, "boom")
    first["phases"] = {"start": 0.1, "imported": 3.0}
    first["last_phase"] = "imported"

    verdict = judge(facts)

    assert verdict.summary.startswith(
        "rank 0 raised before joining the process group (last phase 'imported')"
    )
    assert rows(verdict)[0]["device"] is None
    assert verdict.facts["ranks"][0]["device"] is None
    assert verdict.facts["ranks"][0]["timings"]["import_s"] == pytest.approx(2.9)


def test_the_import_time_needs_both_phases() -> None:
    facts = dry()
    facts["ranks"][0]["phases"].pop("start")
    facts["ranks"][1]["phases"].pop("imported")

    verdict = judge(facts)

    assert verdict.facts["ranks"][0]["timings"]["import_s"] is None
    assert verdict.facts["ranks"][1]["timings"]["import_s"] is None
    phases = facts["ranks"][2]["phases"]
    assert verdict.facts["ranks"][2]["timings"]["import_s"] == round(phases["imported"] - phases["start"], 4)


@pytest.mark.parametrize("given", ["10.0.0.7", "192.168.1.5"])
def test_a_master_addr_of_another_machine_is_noted(given: str) -> None:
    facts = dry()
    facts["master"]["address"].update(given=given, used="127.0.0.1")

    verdict = judge(facts)

    assert f"MASTER_ADDR={given} is another machine; this single-node run used 127.0.0.1" in verdict.details


def test_job_bandwidth_is_the_slowest_ranks_time() -> None:
    records = [
        {"bandwidth": {"bytes": 2**26, "seconds": 0.001}},
        {"bandwidth": {"bytes": 2**26, "seconds": 0.002}},
        {"bandwidth": None},
        {"bandwidth": {"bytes": 2**26, "seconds": 0}},
    ]

    found = dryrun_judge.job_bandwidth(records)

    assert found is not None
    assert (found["bytes"], found["seconds"]) == (2**26, 0.002)
    # nccl-tests' all_reduce bus bandwidth: algbw * 2 (n - 1) / n, with n the 4 ranks
    assert found["busbw_gbps"] == pytest.approx(2**26 / 0.002 / 1e9 * 2 * 3 / 4)
    assert dryrun_judge.job_bandwidth([{"bandwidth": None}]) is None


def test_a_rank_that_never_started_and_one_that_died_at_once_are_ordered_by_rank() -> None:
    facts = dry()
    for record in facts["ranks"]:
        stopped(record)
    facts["ranks"][3]["start_error"] = "OSError: [Errno 24] Too many open files"
    facts["ranks"][1].update(phases={}, last_phase=None, killed=None, exit={"code": 1, "signal": None})

    verdict = judge(facts)

    assert verdict.summary == "rank 1 cannot import torch: exited with code 1 while importing torch"


def test_of_ranks_stopped_at_the_same_phase_the_one_stopped_first_leads() -> None:
    facts = dry()
    for n, record in enumerate(facts["ranks"]):
        stopped(record, after_s=9.0 - n / 10)
        record["phases"].pop("done")
        record["last_phase"] = "bandwidth"
    for record in (facts["ranks"][2], facts["ranks"][5]):
        record["phases"] = {k: v for k, v in record["phases"].items() if k in ("start", "imported", "bound")}
        record["last_phase"] = "bound"

    verdict = judge(facts)

    assert verdict.summary.startswith("ranks 2 and 5 never joined the process group: stuck after 'bound'")
    evidence = [d for d in verdict.details if " (pid " in str(d)]
    assert [d.split(" ")[1] for d in evidence] == ["5", "2"]  # rank 5 was stopped at 8.5 s, rank 2 at 8.8 s


def test_a_crash_by_sigkill_suggests_the_oom_killer_and_another_signal_does_not() -> None:
    killed = _ranks_ending(
        {"killed": None, "last_phase": "init", "exit": {"code": None, "signal": "SIGKILL"}}
    )
    segfault = judge(dry("h100x8_ddp_rank_crash.json"))

    fix = judge(killed).fix
    assert fix is not None and fix.text.startswith(
        "A rank killed by SIGKILL is often the kernel's out-of-memory"
    )
    assert segfault.fix is not None and segfault.fix.text.startswith("Read the rank's own error above")


def test_every_rank_failing_to_import_the_same_torch_is_left_to_torch_build() -> None:
    facts = _ranks_ending(
        {
            "last_phase": "start",
            "error": {"kind": "import_failed", "message": "import torch failed: libcudart"},
        }
    )
    different = copy.deepcopy(facts)
    different["ranks"][7]["error"]["message"] = "import torch failed: other"

    verdict = judge(facts)

    assert verdict.status is Status.SKIP
    assert verdict.summary == "needs torch, which does not import here (libcudart): see torch.build"
    assert judge(different).status is Status.FAIL


def test_a_wrong_result_quotes_the_first_wrong_rank() -> None:
    facts = dry()
    facts["ranks"][2]["allreduce"].update(value=28.0, ok=False)
    facts["ranks"][5]["allreduce"].update(value=30.0, ok=False)

    verdict = judge(facts)

    assert verdict.summary == (
        "all_reduce returned a wrong result on ranks 2 and 5: 28.0 where every rank contributing rank+1 must "
        "give 36.0"
    )


def test_a_ranks_outcome_names_its_kind_where_it_differs_from_its_state() -> None:
    facts = _raised_with("plain failure")

    (first, second, *_) = rows(judge(facts))

    assert (first["outcome"], second["outcome"]) == ("error: exception", "stopped")


def test_an_interface_variable_naming_no_interface_here_is_judged_when_no_rank_failed_on_it() -> None:
    facts = dry()
    facts["env"]["NCCL_SOCKET_IFNAME"] = "eth9"

    verdict = judge(facts)

    assert verdict.summary.startswith("NCCL_SOCKET_IFNAME=eth9 matches no interface of this machine")


# -- facts read back from a saved report are judged as the live ones -----------------------------------------


def _interned(value: Any) -> Any:
    """``value`` with every string the interpreter's own copy, as the judge's literals are."""
    if isinstance(value, str):
        return sys.intern(value)
    if isinstance(value, dict):
        return {_interned(k): _interned(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_interned(v) for v in value]
    return value


def _ranks_ending(how: dict[str, Any], first: dict[str, Any] | None = None) -> dict[str, Any]:
    facts = dry()
    for record in facts["ranks"]:
        stopped(record)
    facts["ranks"][0].update(copy.deepcopy(how if first is None else first))
    for record in facts["ranks"][1:]:
        record.update(copy.deepcopy(how))
    return facts


def _raised_with(message: str, kind: str | None = None) -> dict[str, Any]:
    facts = dry()
    for record in facts["ranks"][1:]:
        stopped(record)
    raised(facts["ranks"][0], message)
    facts["ranks"][0]["error"]["kind"] = kind
    return facts


def _two_ranks_failing(kind: str) -> dict[str, Any]:
    facts = _raised_with("the rank's own failure", kind)
    raised(facts["ranks"][1], "the rank's own failure")
    facts["ranks"][1]["error"]["kind"] = kind
    return facts


def _precheck(**master: Any) -> dict[str, Any]:
    facts = dry()
    facts.update(status="precheck_failed", ranks=[])
    facts["master"].update(master)
    return facts


def _default_port_busy() -> dict[str, Any]:
    facts = dry()
    facts["master"]["port"] = {"source": "free", "port": 41873, "default": {"port": 29500, "busy": True}}
    return facts


def _scenarios() -> dict[str, dict[str, Any]]:
    deadline = {"error": None, "exit": {"code": None, "signal": "SIGKILL"}, "killed": {"reason": "deadline"}}
    scenarios = {
        name: copy.deepcopy(fixture_facts(name)["ddp.dryrun"])
        for name in (
            HEALTHY,
            "h100x8_ddp_all_on_cuda0.json",
            "h100x8_ddp_nccl_env.json",
            "h100x8_ddp_rank_crash.json",
            "h100x8_ddp_rank_hung.json",
        )
    }
    scenarios.update(
        {
            "deadline while importing": _ranks_ending({**deadline, "last_phase": "start"}),
            "deadline after joining": _ranks_ending(
                {**deadline, "last_phase": "init"}, {**deadline, "last_phase": "init_done"}
            ),
            "interrupted": _ranks_ending({"killed": {"reason": "interrupted", "after_s": 2.0}}),
            "killed by SIGKILL": _ranks_ending(
                {"killed": None, "last_phase": "init", "exit": {"code": None, "signal": "SIGKILL"}}
            ),
            "no torch": {"status": "no_torch"},
            "inside torchrun": {"status": "inside_torchrun", "env": {"TORCHELASTIC_RUN_ID": "job-7"}},
            "every rank fails to import torch": _ranks_ending(
                {
                    "last_phase": "start",
                    "error": {"kind": "import_failed", "message": "import torch failed: x"},
                }
            ),
            "port busy before starting": _precheck(port={"port": 29500, "busy": True, "locked_by": 77}),
            "address does not resolve": _precheck(address={"value": "nohost", "error": "gai error"}),
            "default port busy": _default_port_busy(),
            "foreign ranks": _raised_with("ranks of another job joined", "foreign_ranks"),
            "exception": _raised_with("plain failure"),
            "two ranks beyond the GPUs": _two_ranks_failing("invalid_device_ordinal"),
            "two ranks without their environment": _two_ranks_failing("env_incomplete"),
            "one rank cannot import torch": _raised_with("import torch failed: x", "import_failed"),
        }
    )
    for signature in signatures.SIGNATURES:
        scenarios[signature.kind] = _raised_with(f"RuntimeError: {signature.fragments[0]}")
    for variable in ("GLOO_SOCKET_IFNAME", "NCCL_SOCKET_IFNAME"):
        facts = _raised_with("Unable to find address for eth9 / no socket interface found")
        facts["env"][variable] = "eth9"
        scenarios[variable] = facts
    return scenarios


SCENARIOS = _scenarios()


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_a_saved_reports_facts_are_judged_as_the_live_ones(name: str) -> None:
    # JSON gives strings that are no object of the judge's: a rule that compared by identity would differ.
    live = CHECK.judge({"ddp.dryrun": _interned(SCENARIOS[name])}, {})
    saved = judge(SCENARIOS[name])

    assert (saved.status, saved.summary, saved.details, saved.fix) == (
        live.status,
        live.summary,
        live.details,
        live.fix,
    )


# -- more of the rules, each on both sides ---------------------------------------------------------


def test_a_rank_that_reported_no_phase_got_least_far() -> None:
    # A rank killed before it wrote any phase is behind one that wrote 'start': it is the one waited for.
    facts = _ranks_ending({"killed": {"reason": "after_peer_failure", "after_s": 5.0}, "last_phase": "init"})
    facts["ranks"][2].update(last_phase=None, phases={})
    facts["ranks"][6].update(last_phase="start", phases={"start": 0.1})

    verdict = judge(facts)

    assert verdict.summary.startswith(
        "rank 2 still importing torch when killed after the other ranks gave up"
    )


@pytest.mark.parametrize(
    ("not_started", "no_phase", "leader"),
    [(1, 3, "rank 1: OSError"), (3, 1, "rank 1 cannot import torch")],
)
def test_a_rank_that_never_started_counts_as_failing_at_time_0(
    not_started: int, no_phase: int, leader: str
) -> None:
    # Neither wrote a phase: both failed at 0 s, so the lower rank leads.
    facts = dry()
    for record in facts["ranks"]:
        stopped(record)
    facts["ranks"][not_started]["start_error"] = "OSError: [Errno 24] Too many open files"
    crashed = facts["ranks"][no_phase]
    crashed.update(phases={}, last_phase=None, killed=None, exit={"code": 1, "signal": None})
    raised(facts["ranks"][0], "later", at_s=0.5)

    assert judge(facts).summary.startswith(leader)


def test_an_error_without_a_time_or_phase_counts_as_at_0_s() -> None:
    facts = dry()
    for record in facts["ranks"]:
        stopped(record)
    raised(facts["ranks"][5], "no time", at_s=None)
    facts["ranks"][5]["phases"] = {}
    raised(facts["ranks"][1], "at half a second", at_s=0.5)
    facts["ranks"][0]["start_error"] = "OSError: too many open files"

    evidence = [d for d in judge(facts).details if " (pid " in str(d)]

    # ranks 0 (not started) and 5 both at 0 s, rank 0 first; rank 1 at 0.5 s after them
    assert [d.split(" ")[1] for d in evidence] == ["0", "5", "1"]


def test_ranks_stopped_without_a_time_count_as_stopped_at_0_s() -> None:
    facts = _ranks_ending({"killed": {"reason": "after_peer_failure"}, "last_phase": "init"})
    for n in (1, 4, 6):
        facts["ranks"][n].update(last_phase="bound")
    facts["ranks"][1]["killed"]["after_s"] = 0.04  # rounds to 0.0 s
    facts["ranks"][6]["killed"]["after_s"] = 0.5

    evidence = [d for d in judge(facts).details if " (pid " in str(d)]

    assert [d.split(" ")[1] for d in evidence] == ["1", "4", "6"]


def test_a_signature_in_the_stderr_tail_classifies_an_error_and_a_crash() -> None:
    raised_facts = _raised_with("ProcessGroupNCCL failed")
    raised_facts["ranks"][0]["stderr_tail"] = "NCCL WARN ...\nncclSystemError: unhandled system error"
    crashed = _ranks_ending(
        {"killed": None, "last_phase": "init", "exit": {"code": 1, "signal": None}},
    )
    crashed["ranks"][0]["stderr_tail"] = (
        "torch.distributed.DistBackendError: unhandled system error (run with NCCL_DEBUG=INFO)"
    )

    assert judge(raised_facts).summary.startswith("rank 0: NCCL system error: ")
    assert judge(crashed).summary == "rank 0: NCCL system error: exited with code 1 after 'init'"


def test_a_crash_whose_stderr_shows_only_a_consequence_is_a_crash() -> None:
    facts = _ranks_ending({"killed": None, "last_phase": "init", "exit": {"code": 1, "signal": None}})
    for record in facts["ranks"]:
        record["stderr_tail"] = "RuntimeError: Connection reset by peer"

    verdict = judge(facts)

    assert verdict.summary == "ranks 0, 1, 2, 3, 4, 5, 6 and 7 exited with code 1 after 'init'"


@pytest.mark.parametrize(
    ("last", "exit_"),
    [
        ("barrier", {"code": 0, "signal": None}),
        ("init", {"code": 0, "signal": None}),
        ("done", {"code": 1, "signal": None}),
        ("done", {"code": None, "signal": "SIGTERM"}),
    ],
)
def test_a_rank_is_ok_only_after_done_with_exit_code_0(last: str, exit_: dict[str, Any]) -> None:
    facts = dry()
    facts["ranks"][3].update(last_phase=last, exit=exit_)

    verdict = judge(facts)

    assert verdict.status is Status.FAIL
    how = f"exited with code {exit_['code']}" if exit_["code"] is not None else "was killed by SIGTERM"
    assert verdict.summary == f"rank 3 {how} after '{last}'"


def test_one_rank_that_cannot_import_torch_among_ranks_that_raised_is_a_failure() -> None:
    facts = dry()
    for record in facts["ranks"]:
        raised(record, "plain failure")
    facts["ranks"][0]["error"] = {
        "kind": "import_failed",
        "message": "import torch failed: libcudart",
        "at_s": 1,
    }

    verdict = judge(facts)

    assert verdict.status is Status.FAIL
    assert verdict.summary == "rank 0 cannot import torch: import torch failed: libcudart"


def test_the_ranks_own_interface_error_replaces_the_variables_judgement() -> None:
    facts = _raised_with("[enforce fail] Unable to find address for: eth9")
    facts["env"]["GLOO_SOCKET_IFNAME"] = "eth9"

    verdict = judge(facts)

    assert verdict.summary == (
        "rank 0: gloo cannot use its network interface (GLOO_SOCKET_IFNAME=eth9): ValueError: "
        "[enforce fail] Unable to find address for: eth9"
    )
    assert (
        "interfaces here: docker0, enp86s0f0, ibp154s0, ibp192s0, ibp206s0, ibp220s0, ibp24s0, ibp64s0, "
        in text(verdict)
    )
    assert not any("GLOO_SOCKET_IFNAME=eth9 names" in str(d) for d in verdict.details)


def test_a_gloo_interface_error_without_the_variable_names_none() -> None:
    verdict = judge(_raised_with("Unable to find address for: eth0"))

    assert verdict.summary.startswith("rank 0: gloo cannot use its network interface: ValueError")


def test_a_busy_port_without_a_known_owner_names_none() -> None:
    verdict = judge(_precheck(port={"port": 29500, "busy": True}))

    assert verdict.summary.startswith("MASTER_PORT=29500 is already in use: rank 0 cannot host the TCPStore")
    assert (
        verdict.details[0]
        == "checked by listening on it before starting any rank, as rank 0's TCPStore would"
    )


@pytest.mark.parametrize(
    "port", [{"source": "env", "port": 29500, "default": {"port": 29500, "busy": True}}, {}]
)
def test_torchruns_default_port_is_judged_only_where_the_dry_run_chose_a_free_one(
    port: dict[str, Any],
) -> None:
    facts = dry()
    facts["master"]["port"] = port

    assert judge(facts).status is Status.PASS


def test_a_dry_run_without_a_status_or_ranks_is_an_error() -> None:
    verdict = judge({"ranks": []})

    assert verdict.status is Status.ERROR
    assert verdict.summary == "the dry run reported no rank (status None)"


def test_exactly_eight_others_are_all_listed() -> None:
    facts = dry()
    facts["ranks"] = twenty_ranks()[:9]
    for record in facts["ranks"]:
        stopped(record)
    raised(facts["ranks"][0], "boom")
    eight = judge(facts)
    for record in facts["ranks"][1:]:
        raised(record, "boom")
    nine = judge(facts)

    assert not any(str(d).startswith("... and") for d in eight.details)
    assert len([d for d in eight.details if "once a peer failed" in str(d)]) == 8
    assert [d for d in nine.details if str(d).startswith("... and")] == ["... and 1 more ranks"]


def test_the_first_of_a_group_gives_the_message_and_the_first_hung_rank_the_time() -> None:
    facts = dry()
    for record in facts["ranks"]:
        stopped(record)
    raised(facts["ranks"][4], "the first", at_s=3.0)
    raised(facts["ranks"][6], "the second", at_s=4.0)
    hung = _ranks_ending({"last_phase": "init", "killed": {"reason": "after_peer_failure", "after_s": 9.0}})
    hung["ranks"][2].update(last_phase="bound", killed={"reason": "after_peer_failure", "after_s": 7.5})
    hung["ranks"][5].update(last_phase="bound", killed={"reason": "after_peer_failure", "after_s": 8.5})

    assert judge(facts).summary == (
        "ranks 4 and 6 raised after joining the process group (last phase 'init_done'): ValueError: the first"
    )
    assert judge(hung).summary.endswith("(killed after the other ranks gave up, 7.5 s after start)")


def test_a_rank_without_its_environment_says_what_is_missing() -> None:
    facts = _raised_with("RANK expected, but not set", "env_incomplete")

    verdict = judge(facts)

    assert verdict.summary == "rank 0: RANK expected, but not set"
    assert rows(verdict)[0]["outcome"] == "error: env_incomplete"


def test_a_rank_that_timed_out_with_no_one_else_to_blame_is_named_with_the_meaning() -> None:
    facts = dry()  # the others finished: no rank to blame but this one
    raised(facts["ranks"][0], "Timed out after 9 seconds waiting for clients. 7/8 clients joined.")

    verdict = judge(facts)

    assert verdict.summary == (
        "rank 0: timed out waiting for peers to join: ValueError: Timed out after 9 seconds waiting for "
        "clients. 7/8 clients joined."
    )


def test_the_same_master_addr_given_and_used_is_no_note() -> None:
    facts = dry()
    facts["master"]["address"].update(given="10.0.0.7", used="10.0.0.7")

    verdict = judge(facts)

    assert not any(str(d).startswith("MASTER_ADDR=") for d in verdict.details)
    assert not any(str(d).startswith("MASTER_ADDR=") for d in judge(dry()).details)


def test_two_ranks_with_a_message_of_no_whole_mib_report_it() -> None:
    facts = dry()
    facts["plan"]["nproc"] = 2
    facts["ranks"] = facts["ranks"][:2]
    for record in facts["ranks"]:
        record["allreduce"].update(value=3.0, expected=3.0)
        record["bandwidth"]["bytes"] = 3 * 2**19

    verdict = judge(facts)

    assert verdict.summary.endswith(" GB/s (1.5 MiB all_reduce)")


def test_one_rank_passes_with_its_figures() -> None:
    facts = dry()
    facts["plan"]["nproc"] = 1
    facts["ranks"] = facts["ranks"][:1]
    record = facts["ranks"][0]
    record["allreduce"].update(value=1.0, expected=1.0)
    record.pop("backend")
    record["phases"].update(start=0.12345, imported=3.0)

    verdict = judge(facts)

    assert verdict.status is Status.PASS
    assert verdict.summary == (
        "1 ranks, nccl on 1 GPU(s) (NVIDIA H100 80GB HBM3): init 1.520 s, all_reduce verified (sum 1), "
        "barrier passed"
    )
    shown = verdict.facts
    assert (shown["backend"], shown["nproc"], shown["master_addr"], shown["master_port"]) == (
        "nccl",
        1,
        "127.0.0.1",
        29500,
    )
    assert shown["ranks"][0]["backend"] == "nccl"
    assert shown["ranks"][0]["timings"]["import_s"] == round(3.0 - 0.12345, 4)


def test_seven_others_or_eight_of_a_group_are_all_listed() -> None:
    facts = dry()
    for record in facts["ranks"]:
        stopped(record)
    raised(facts["ranks"][0], "boom")
    seven = judge(facts)
    for record in facts["ranks"]:
        raised(record, "boom")
    eight = judge(facts)

    assert len([d for d in seven.details if "once a peer failed" in str(d)]) == 7
    assert len([d for d in eight.details if " (pid " in str(d)]) == 8
    assert not any(str(d).startswith("... and") for d in (*seven.details, *eight.details))
