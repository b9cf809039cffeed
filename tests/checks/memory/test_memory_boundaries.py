"""gpu.memory at the edges of its rules: the free-memory floor, the margin of memory NVML lists under no
process, who counts as another process, which GPUs are offered as idle, and what a broken or absent driver
says. GPUs here are NVML's records as the ``nvml`` probe writes them; the job's GPUs are predicted from
CUDA_VISIBLE_DEVICES (no CUDA driver asked), as on a machine where torch is not installed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from torchdoctor.checks.memory.memory_check import CHECK, DEFAULT_MIN_FREE_PCT
from torchdoctor.model import Finding, Status

from support import fixture_facts, judge_fixture

GIB = 2**30
MIB = 2**20
OWN_PID = 4242
NOBODY = {"pid_namespace": "host", "own_pid": OWN_PID, "ancestors": [1], "processes": {}}
RESERVED = 512 * MIB  # NVML's v2 memory query: memory the driver and firmware reserve, apart from "used"


def gpu(
    index: int,
    *,
    total: int = 80 * GIB,
    used: int = 0,
    free: int | None = None,
    reserved: int | None = RESERVED,
    processes: list[dict[str, Any]] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    record = {
        "index": index,
        "name": "NVIDIA H100 80GB HBM3",
        "uuid": f"GPU-{index:08d}-0000-0000-0000-000000000000",
        "memory_total_bytes": total,
        "memory_used_bytes": used,
        "memory_free_bytes": free if free is not None else total - used - (reserved or 0),
        "memory_reserved_bytes": reserved,
        "mig_mode": False,
        "mig_devices": [],
        "processes": [] if processes is None else processes,
        "errors": {},
    }
    record.update(extra)
    return record


def process(pid: int, held: int | None) -> dict[str, Any]:
    return {"pid": pid, "used_memory_bytes": held, "kind": "compute"}


def judged(
    gpus: list[dict[str, Any]],
    *,
    cvd: str | None = None,
    names: dict[str, Any] | None = None,
    options: dict[str, Any] | None = None,
    env: dict[str, Any] | None = None,
) -> Finding:
    facts = {
        "nvml": {"available": True, "error": None, "driver_version": "570.124.06", "gpus": gpus},
        "cuda_driver": {"device_count": None, "devices": [], "proc_driver_version": "NVRM", "dev_nodes": []},
        "env": env
        if env is not None
        else {"variables": {} if cvd is None else {"CUDA_VISIBLE_DEVICES": cvd}},
        "gpu_processes": names if names is not None else NOBODY,
    }
    return CHECK.judge(json.loads(json.dumps(facts)), options or {})


def text(finding: Finding) -> str:
    return "\n".join([finding.summary, *map(str, finding.details)])


# -- free memory below --min-free (default 10 %) -------------------------------------------------------------


def test_the_default_floor_is_10_percent_and_free_memory_at_it_passes() -> None:
    # 100 GiB in all, no reserve: the share of free memory is exact.
    at_floor = judged(
        [gpu(0, total=100 * GIB, used=90 * GIB, reserved=None, processes=[process(OWN_PID, 90 * GIB)])]
    )
    under = judged(
        [
            gpu(
                0,
                total=100 * GIB,
                used=90 * GIB + 1,
                reserved=None,
                processes=[process(OWN_PID, 90 * GIB + 1)],
            )
        ]
    )

    assert DEFAULT_MIN_FREE_PCT == 10.0
    assert at_floor.status is Status.PASS
    assert at_floor.summary == "cuda:0 (GPU 0) 10.0 GiB free of 100.0 GiB; no other process on the job's GPUs"
    assert under.status is Status.WARN
    assert under.summary == "cuda:0 (GPU 0) has 10.0 % free (10.0 GiB of 100.0 GiB), below --min-free 10 %"
    assert under.fix is not None and under.fix.text.startswith("Wait for the other processes")


def test_the_floor_is_an_option() -> None:
    warm = gpu(0, total=100 * GIB, used=60 * GIB, reserved=None, processes=[process(OWN_PID, 60 * GIB)])

    assert judged([warm], options={"min_free_pct": 40.0}).status is Status.PASS
    verdict = judged([warm], options={"min_free_pct": 40.5})
    assert verdict.status is Status.WARN
    assert verdict.summary.endswith("below --min-free 40.5 %")
    assert verdict.details[-1] == "GPUs of the job predicted from CUDA_VISIBLE_DEVICES; --min-free 40.5 %"


def test_a_table_without_processes_says_whose_memory_it_cannot_tell() -> None:
    listed_none = gpu(0, total=100 * GIB, used=95 * GIB, reserved=None, processes=None)
    listed_none["processes"] = None

    verdict = judged([listed_none])

    assert verdict.status is Status.WARN
    assert verdict.summary == (
        "cuda:0 (GPU 0) has 5.0 % free (5.0 GiB of 100.0 GiB), below --min-free 10 %: 95.0 GiB held by "
        "processes "
        "the table does not list (another job's, or this one's)"
    )
    assert "cuda:0 (GPU 0): the processes on it are unknown (NVML: not reported)" in verdict.details
    assert verdict.facts["devices"][0]["processes"] == []


# -- memory NVML lists under no process: 1 GiB margin (v2 query), 2 GiB (v1 query) ---------------------------
# NVML's nvmlDeviceGetMemoryInfo_v2 (nvmlMemory_v2_t, drivers r510 and later) reports the memory reserved by
# the driver and firmware apart from "used"; the v1 query counts it as used (docs.nvidia.com/deploy/nvml-api,
# nvmlMemory_v2_t). The margins are torchdoctor's choice (memory_judge.UNLISTED_BYTES, UNLISTED_BYTES_V1): at
# least 1 GiB used by no listed process is someone NVML does not show (another container or user); the v1
# query's "used" also holds the reserve (up to about 1 GiB on 80 GB cards), hence 2 GiB there.


@pytest.mark.parametrize(
    ("reserved", "margin"),
    [(RESERVED, GIB), (None, 2 * GIB)],
    ids=["v2 query", "v1 query"],
)
def test_memory_no_listed_process_holds_counts_from_the_margin(reserved: int | None, margin: int) -> None:
    ours = process(OWN_PID, 3 * GIB)
    at_margin = judged([gpu(0, used=3 * GIB + margin, reserved=reserved, processes=[ours])])
    under = judged([gpu(0, used=3 * GIB + margin - 1, reserved=reserved, processes=[ours])])

    assert at_margin.status is Status.WARN
    figure = f"{margin // GIB}.0 GiB"
    assert at_margin.summary == (
        f"cuda:0 (GPU 0) is in use by 1 other process holding {figure}: unknown processes NVML does not list "
        f"(another container or user): {figure}"
    )
    assert under.status is Status.PASS


def test_unlisted_memory_is_not_judged_where_the_listed_figures_are_unknown() -> None:
    # A listed process without its figure (NVML gives none inside MIG, or without permission): nothing to
    # subtract, so no stranger is made up.
    verdict = judged([gpu(0, used=20 * GIB, processes=[process(OWN_PID, None)])])

    assert verdict.status is Status.PASS
    assert "cuda:0 (GPU 0): pid 4242 unknown, memory n/a (this job)" in verdict.details


# -- other processes on the job's GPUs -----------------------------------------------------------------------


def test_one_other_process_is_named_and_more_than_two_are_counted() -> None:
    one = judged([gpu(0, used=4 * GIB, processes=[process(7001, 4 * GIB)])])
    three = judged(
        [gpu(0, used=6 * GIB, processes=[process(7001, GIB), process(7002, 2 * GIB), process(7003, 3 * GIB)])]
    )
    five = judged([gpu(0, used=5 * GIB, processes=[process(7001 + n, GIB) for n in range(5)])])

    assert (
        one.summary
        == "cuda:0 (GPU 0) is in use by 1 other process holding 4.0 GiB: pid 7001 unknown, 4.0 GiB"
    )
    assert three.summary == (
        "cuda:0 (GPU 0) is in use by 3 other processes holding 6.0 GiB: pid 7001 unknown, 1.0 GiB; pid 7002 "
        "unknown, 2.0 GiB and 1 more"
    )
    assert three.details[0] == "pid 7003 unknown, 3.0 GiB"
    assert five.summary.endswith("pid 7002 unknown, 1.0 GiB and 3 more")
    assert five.details[:3] == tuple(f"pid {pid} unknown, 1.0 GiB" for pid in (7003, 7004, 7005))


def test_strangers_and_unlisted_memory_are_counted_together() -> None:
    verdict = judged([gpu(0, used=4 * GIB, processes=[process(7001, 3 * GIB)])])

    assert verdict.summary == (
        "cuda:0 (GPU 0) is in use by 2 other processes holding 4.0 GiB: pid 7001 unknown, 3.0 GiB; unknown "
        "processes NVML does not list (another container or user): 1.0 GiB"
    )


def test_a_pasted_table_names_no_process_as_the_jobs_so_none_is_other() -> None:
    pasted = {"pid_namespace": "unknown", "own_pid": None, "ancestors": [], "processes": {}}

    verdict = judged(
        [gpu(0, used=4 * GIB, processes=[process(7001, 4 * GIB)]), gpu(1)],
        names=pasted,
        env={"variables": {}, "variables_known": False},
    )

    assert verdict.summary == "GPU 0 is in use by 1 process holding 4.0 GiB: pid 7001 unknown, 4.0 GiB"
    # every GPU of the table is judged as one the job may use, and an idle one among them is offered
    assert verdict.fix is not None
    assert verdict.fix.commands[-1] == "export CUDA_VISIBLE_DEVICES=GPU-00000001-0000-0000-0000-000000000000"
    assert (
        verdict.details[-1]
        == "every GPU the table lists (which the job uses it does not say); --min-free 10 %"
    )


@pytest.mark.parametrize(
    ("info", "said"),
    [
        ({"status": "found", "name": "python3", "user": "alice"}, "python3 (alice)"),
        ({"status": "found", "name": "python3", "user": None}, "python3"),
        ({"status": "gone"}, "unknown: it has exited"),
        ({"status": "denied"}, "unknown: not allowed to inspect it"),
        (
            {"status": "other_namespace"},
            "unknown: NVML reports host PIDs and this container has its own PID namespace",
        ),
        ({"status": "strange"}, "unknown"),
    ],
)
def test_each_way_a_process_name_is_known_or_not_is_said(info: dict[str, Any], said: str) -> None:
    names = {**NOBODY, "processes": {"7001": info}}

    verdict = judged([gpu(0, used=GIB, processes=[process(7001, GIB)])], names=names)

    assert f"pid 7001 {said}, 1.0 GiB" in verdict.summary
    assert verdict.facts["devices"][0]["processes"] == [
        {
            "pid": 7001,
            "name": info.get("name"),
            "user": info.get("user"),
            "used_memory_bytes": GIB,
            "kind": "compute",
        }
    ]


def test_the_jobs_own_processes_and_ancestors_are_not_strangers() -> None:
    names = {**NOBODY, "ancestors": [1, 999]}

    verdict = judged(
        [gpu(0, used=3 * GIB, processes=[process(OWN_PID, GIB), process(999, 2 * GIB)])], names=names
    )

    assert verdict.status is Status.PASS
    assert "cuda:0 (GPU 0): pid 999 unknown, 2.0 GiB (this job)" in verdict.details


# -- GPUs offered instead: idle ones -------------------------------------------------------------------------


def busy_first(*others: dict[str, Any]) -> Finding:
    return judged([gpu(0, used=4 * GIB, processes=[process(7001, 4 * GIB)]), *others], cvd="0")


def test_a_gpu_with_no_process_and_free_memory_above_the_floor_is_offered() -> None:
    verdict = busy_first(gpu(1, total=100 * GIB, used=90 * GIB, reserved=None))  # exactly 10 % free

    assert verdict.fix is not None
    assert verdict.fix.text.endswith(" 1 other GPU(s) here are idle.")
    assert verdict.fix.commands[-1] == "export CUDA_VISIBLE_DEVICES=GPU-00000001-0000-0000-0000-000000000000"


@pytest.mark.parametrize(
    "other",
    [
        gpu(1, total=100 * GIB, used=90 * GIB + 1, reserved=None),  # under the floor
        gpu(1, processes=[process(7002, GIB)], used=GIB),  # someone runs on it
        gpu(1, mig_mode=True),  # its memory is in MIG slices
        gpu(1, total=0, free=0),  # no figures
    ],
    ids=["under the floor", "a process", "MIG mode", "no total"],
)
def test_a_gpu_that_is_not_idle_is_not_offered(other: dict[str, Any]) -> None:
    verdict = busy_first(other)

    assert verdict.status is Status.WARN
    assert verdict.fix is not None
    assert verdict.fix.commands == (
        "nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv",
    )
    assert "idle" not in verdict.fix.text


def test_a_gpu_whose_processes_are_unknown_is_idle_under_1_percent_used() -> None:
    def unlisted(index: int, used: int) -> dict[str, Any]:
        record = gpu(index, total=100 * GIB, used=used, reserved=None)
        record["processes"] = None
        return record

    idle = busy_first(unlisted(1, GIB - 1))
    held = busy_first(unlisted(1, GIB))  # 1 % of 100 GiB: something holds memory

    assert idle.fix is not None and idle.fix.text.endswith("1 other GPU(s) here are idle.")
    assert held.fix is not None and "idle" not in held.fix.text


def test_at_most_eight_idle_gpus_are_offered_by_uuid_or_index() -> None:
    others = [gpu(i) for i in range(1, 10)]
    others[0]["uuid"] = None

    verdict = busy_first(*others)

    assert verdict.fix is not None
    assert verdict.fix.text.endswith(" 9 other GPU(s) here are idle.")
    chosen = verdict.fix.commands[-1].removeprefix("export CUDA_VISIBLE_DEVICES=").split(",")
    assert chosen[0] == "1" and len(chosen) == 8


def test_a_gpu_the_job_does_not_use_shows_its_first_three_processes() -> None:
    many = [process(7000 + n, GIB) for n in range(4)]

    verdict = judged([gpu(0), gpu(1, used=4 * GIB, processes=many)], cvd="0")

    assert verdict.status is Status.PASS
    (line,) = [d for d in verdict.details if str(d).startswith("GPU 1")]
    assert line == (
        "GPU 1 (not used by this job): pid 7000 unknown, 1.0 GiB; pid 7001 unknown, 1.0 GiB; pid 7002 "
        "unknown, 1.0 GiB"
    )


def test_a_pass_lists_four_devices_and_counts_the_rest() -> None:
    four = judged([gpu(i) for i in range(4)])
    five = judged([gpu(i) for i in range(5)])

    assert not four.summary.startswith("...") and "in all" not in four.summary
    assert four.summary.count("free of") == 4
    assert five.summary.count("free of") == 4
    assert five.summary.endswith(", ... (5 in all); no other process on the job's GPUs")


# -- NVML and the GPUs it cannot read ------------------------------------------------------------------------


def unavailable(error: str | None, dev_nodes: list[str], proc: str | None = None) -> Finding:
    facts = {
        "nvml": {"available": False, "error": error, "error_message": None, "gpus": []},
        "cuda_driver": {
            "device_count": None,
            "devices": [],
            "proc_driver_version": proc,
            "dev_nodes": dev_nodes,
        },
        "env": {"variables": {}},
        "gpu_processes": NOBODY,
    }
    return CHECK.judge(facts, {})


def test_a_gpu_device_node_means_a_driver_and_the_control_nodes_do_not() -> None:
    # /dev/nvidiaN is one GPU's device node; /dev/nvidiactl and /dev/nvidia-uvm exist for the driver itself
    # and can be left behind by a container runtime without any GPU.
    assert unavailable("LibraryNotFound", ["nvidiactl", "nvidia-uvm"]).status is Status.SKIP
    assert unavailable("LibraryNotFound", ["nvidia12"]).status is Status.FAIL
    assert unavailable("LibraryNotFound", [], proc="NVRM version: 570.124.06").status is Status.FAIL


@pytest.mark.parametrize(
    ("error", "fix"),
    [
        ("DriverNotLoaded", "The NVIDIA kernel module is not loaded"),
        ("NoPermission", "This user may not open /dev/nvidia*"),
        ("Uninitialized", "Check the driver installation: nvidia-smi shows the same error."),
    ],
)
def test_each_nvml_error_has_its_fix(error: str, fix: str) -> None:
    verdict = unavailable(error, ["nvidia0"])

    assert verdict.status is Status.FAIL
    assert verdict.summary == f"the NVIDIA driver is installed but NVML cannot be queried: {error}"
    assert verdict.fix is not None and verdict.fix.text.startswith(fix)
    assert verdict.fix.commands == ("nvidia-smi",)


def test_no_error_name_is_an_unknown_error() -> None:
    assert unavailable(None, []).summary == "no NVIDIA driver on this machine (NVML: unknown error)"


def test_nvml_that_answers_without_gpus_fails_and_without_an_error_skips() -> None:
    base = {
        "cuda_driver": {"device_count": None, "devices": []},
        "env": {"variables": {}},
        "gpu_processes": NOBODY,
    }
    broken = CHECK.judge(
        {**base, "nvml": {"available": True, "error": "Unknown", "driver_version": "570.124.06", "gpus": []}},
        {},
    )
    empty = CHECK.judge({**base, "nvml": {"available": True, "error": None, "gpus": []}}, {})

    assert broken.status is Status.FAIL
    assert broken.summary == "NVML answers but cannot count the GPUs: Unknown"
    assert broken.details == ("NVIDIA driver 570.124.06",)
    assert broken.fix is not None and broken.fix.commands == ("nvidia-smi -q", "sudo dmesg | grep -i xid")
    assert empty.status is Status.SKIP
    assert empty.summary == "NVML lists no NVIDIA GPU on this machine"


@pytest.mark.parametrize(
    ("errors", "status"),
    [({"handle": "GpuIsLost"}, Status.FAIL), ({"processes.compute": "NotSupported"}, Status.PASS)],
)
def test_only_a_handle_or_memory_error_makes_a_gpu_unreadable(errors: dict[str, str], status: Status) -> None:
    verdict = judged([gpu(0, errors=errors)])

    assert verdict.status is status
    if status is Status.FAIL:
        assert verdict.summary == "cuda:0 (GPU 0) cannot be queried (handle: GpuIsLost)"


def test_a_gpu_without_memory_figures_cannot_be_queried() -> None:
    blank = gpu(0)
    blank.update(memory_total_bytes=None, memory_used_bytes=None, memory_free_bytes=None)

    verdict = judged([blank])

    assert verdict.status is Status.FAIL
    assert verdict.summary == "cuda:0 (GPU 0) cannot be queried (NVML gives no memory figures)"
    (row,) = [d for d in verdict.details if isinstance(d, dict)]
    assert row["free_pct"] == "n/a"


@pytest.mark.parametrize(
    ("own_pid", "namespace"),
    [(None, "host"), (None, None), (OWN_PID, "unknown")],
)
def test_only_a_table_with_no_own_pid_and_an_unknown_namespace_drops_other(
    own_pid: int | None, namespace: str | None
) -> None:
    names = {"pid_namespace": namespace, "own_pid": own_pid, "ancestors": [], "processes": {}}

    verdict = judged([gpu(0, used=4 * GIB, processes=[process(7001, 4 * GIB)])], names=names)

    assert verdict.summary.startswith("cuda:0 (GPU 0) is in use by 1 other process holding 4.0 GiB")


def test_a_process_nvml_lists_with_no_memory_counts_as_zero_against_the_margin() -> None:
    # NVML gives 0 for a process whose usage it does not account (a graphics context, for one).
    verdict = judged([gpu(0, used=GIB, processes=[process(OWN_PID, 0)])])
    under = judged([gpu(0, used=GIB - 1, processes=[process(OWN_PID, 0)])])

    assert verdict.status is Status.WARN
    assert verdict.summary.endswith("(another container or user): 1.0 GiB")
    assert under.status is Status.PASS


def test_a_gpu_without_a_used_figure_has_no_unlisted_memory() -> None:
    record = gpu(0, processes=[process(OWN_PID, GIB)])
    record["memory_used_bytes"] = None

    verdict = judged([record])

    assert verdict.status is Status.PASS


def test_a_gpu_that_holds_memory_with_unknown_processes_is_not_idle() -> None:
    record = gpu(1, total=100 * GIB, used=50 * GIB, reserved=None)
    record["processes"] = None

    verdict = busy_first(record)

    assert verdict.fix is not None and "idle" not in verdict.fix.text


def test_the_mapping_from_the_cuda_driver_is_said_and_a_device_nvml_misses_does_not_hide_the_next() -> None:
    facts = {
        "nvml": {"available": True, "error": None, "driver_version": "570.124.06", "gpus": [gpu(0)]},
        "cuda_driver": {
            "device_count": 2,
            "devices": [{"ordinal": 0, "uuid": "ffffffff-0000"}, {"ordinal": 1, "uuid": gpu(0)["uuid"][4:]}],
        },
        "env": {"variables": {}},
        "gpu_processes": NOBODY,
    }

    verdict = CHECK.judge(facts, {})

    assert verdict.status is Status.FAIL
    assert verdict.summary == (
        "cuda:0 (UUID ffffffff-0000) is visible to CUDA but NVML does not list it: its memory cannot be "
        "queried"
    )
    assert verdict.fix is not None and verdict.fix.commands[0] == "nvidia-smi -q"
    assert [r["device"] for r in verdict.details if isinstance(r, dict)] == ["cuda:1 (GPU 0)"]
    assert verdict.details[-1] == "GPUs of the job from the CUDA driver; --min-free 10 %"


@pytest.mark.parametrize(
    ("total", "free"),
    [(None, 40 * GIB), (80 * GIB, None), (0, 0)],
    ids=["no total", "no free", "a total of 0"],
)
def test_a_gpu_missing_either_figure_cannot_be_queried(total: int | None, free: int | None) -> None:
    record = gpu(0)
    record.update(memory_total_bytes=total, memory_free_bytes=free)

    verdict = judged([record])

    assert verdict.status is Status.FAIL
    assert verdict.summary == "cuda:0 (GPU 0) cannot be queried (NVML gives no memory figures)"
    (row,) = [d for d in verdict.details if isinstance(d, dict)]
    assert row["free_pct"] == "n/a"


# -- MIG --------------------------------------------------------------------------------------------------


def test_a_gpu_in_mig_mode_without_instances_is_judged_whole_and_slices_count_only_in_mig_mode() -> None:
    # MIG enabled but no GPU instance created yet: CUDA sees no device in it, NVML still has the GPU's memory.
    slice_ = {
        "uuid": "MIG-d184f67c-c95f-5ef2-a935-195bd0094fbd",
        "gpu_instance_id": 9,
        "compute_instance_id": 0,
    }
    empty = judged([gpu(0, mig_mode=True, mig_devices=[])])
    stale = judged([gpu(0, mig_mode=False, mig_devices=[slice_])])

    assert [r["device"] for r in empty.details if isinstance(r, dict)] == ["cuda:0 (GPU 0)"]
    assert [r["device"] for r in stale.details if isinstance(r, dict)] == ["cuda:0 (GPU 0)"]


def test_a_process_in_a_lower_numbered_slice_is_not_in_the_jobs_slice() -> None:
    nv = fixture_facts("a100_mig_1g10gb.json")["nvml"]
    nv["gpus"][0]["processes"] = [
        {
            "pid": 7001,
            "used_memory_bytes": None,
            "kind": "compute",
            "gpu_instance_id": 2,
            "compute_instance_id": 0,
        }
    ]

    verdict = judge_fixture(CHECK, "a100_mig_1g10gb.json", nvml=nv, gpu_processes=NOBODY)

    assert verdict.status is Status.PASS


# -- a GPU without memory of its own (unified memory) --------------------------------------------------------


def test_a_gpu_whose_memory_is_the_system_s_is_not_judged_a_lost_gpu() -> None:
    # DGX Spark's GB10 (and Jetson boards) share the system's RAM: NVML answers the memory query
    # NOT_SUPPORTED, nvidia-smi prints "Not Supported" or "[N/A]", and a lost GPU it is not:
    # leptonai/gpud#1170 (merged: falls back to the system's memory),
    # kubernetes-sigs/dra-driver-nvidia-gpu#1115 (NOT_SUPPORTED made non-fatal), lablup/all-smi#146 (merged),
    # XuehaiPan/nvitop#208 (NVML on a GB10)
    unified = gpu(0, name="NVIDIA GB10", errors={"memory": "NotSupported"})
    unified.update(memory_total_bytes=None, memory_used_bytes=None, memory_free_bytes=None)

    verdict = judged([unified])

    assert verdict.status is Status.SKIP, text(verdict)
    assert verdict.summary.startswith("cuda:0 (GPU 0) has no memory of its own (NVIDIA GB10: unified memory")
    assert verdict.fix is None
    assert "free -h" in text(verdict)
    # a name the text gives, without NVML's answer (nvidia-smi's CSV prints [N/A]), is the same GPU
    by_name = gpu(0, name="NVIDIA GB10")
    by_name.update(memory_total_bytes=None, memory_used_bytes=None, memory_free_bytes=None)
    assert judged([by_name]).status is Status.SKIP
    # its processes are still judged: another process on it warns
    busy = dict(unified, processes=[{"pid": 9001, "used_memory_bytes": 43 * MIB, "kind": "graphics"}])
    assert judged([busy]).status is Status.WARN
    # a discrete GPU without figures, or one lost, still fails
    lost = dict(unified, name="NVIDIA H100 80GB HBM3", errors={"memory": "GpuIsLost"})
    assert judged([lost]).status is Status.FAIL
    gb10_lost = dict(unified, errors={"handle": "GpuIsLost"})
    assert judged([gb10_lost]).status is Status.FAIL
