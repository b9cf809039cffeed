"""The edges of cuda.visible_devices: what is said where the driver and the value disagree, how much of the
mapping is shown, which findings lead, and what a machine without a GPU is told."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from torchdoctor.checks.devices.visible_devices_check import CHECK
from torchdoctor.model import Finding, Status

from support import fixture_facts, judge_fixture

H100 = "h100x8_cvd_2_3.json"  # its driver view was read with CUDA_VISIBLE_DEVICES=2,3
LAPTOP = "laptop_no_driver.json"
LEGACY_MIG = "MIG-GPU-8932f937-d72c-4106-c12f-20bd9faed9f6/1/2"


def judge(name: str, variables: dict[str, str], **replace: Any) -> Finding:
    return judge_fixture(CHECK, name, env={"variables": variables}, **replace)


def predicted(name: str) -> dict[str, Any]:
    """The machine's driver facts where libcuda could not be asked: the mapping follows the value."""
    driver: dict[str, Any] = copy.deepcopy(fixture_facts(name)["cuda_driver"])
    driver.update(library=None, load_error="libcuda.so.1: cannot open", device_count=None, devices=[])
    return driver


def test_pasted_facts_that_say_nothing_of_the_variables_skip_and_others_are_judged() -> None:
    unknown = judge_fixture(CHECK, H100, env={"variables": {}, "variables_known": False})
    assert unknown.status is Status.SKIP
    known = judge_fixture(
        CHECK, H100, env={"variables": {"CUDA_VISIBLE_DEVICES": "2,3"}, "variables_known": True}
    )
    assert known.status is Status.PASS


@pytest.mark.parametrize(("value", "predicts"), [("2,3,4,5", 4), ("2", 1), (None, 8)])
def test_a_driver_that_exposes_another_number_of_gpus_than_the_value_predicts_warns(
    value: str | None, predicts: int
) -> None:
    variables = {} if value is None else {"CUDA_VISIBLE_DEVICES": value}
    verdict = judge(H100, variables)
    assert verdict.status is Status.WARN
    assert verdict.summary == f"the CUDA driver exposes 2 GPU(s) where the value predicts {predicts}"


def test_where_the_mapping_comes_from_is_said() -> None:
    assert judge(H100, {"CUDA_VISIBLE_DEVICES": "2,3"}).details[1] == "mapping read from the CUDA driver"
    assert judge(H100, {"CUDA_VISIBLE_DEVICES": "2,3"}, cuda_driver=predicted(H100)).details[1] == (
        "mapping predicted from the value and NVML (the CUDA driver could not be asked)"
    )


def test_the_summary_shows_four_gpus_and_counts_the_rest() -> None:
    every = judge(H100, {}, cuda_driver=predicted(H100))
    pairs = ", ".join(f"cuda:{k} -> GPU {k}" for k in range(4))
    assert every.summary == f"all 8 GPU(s) visible (CUDA_VISIBLE_DEVICES unset): {pairs}, ... (8 in all)"
    four = judge(H100, {"CUDA_VISIBLE_DEVICES": "0,1,2,3"}, cuda_driver=predicted(H100))
    assert four.summary == f"CUDA_VISIBLE_DEVICES=0,1,2,3: 4 of 8 GPU(s) visible, {pairs}"
    five = judge(H100, {"CUDA_VISIBLE_DEVICES": "0,1,2,3,4"}, cuda_driver=predicted(H100))
    assert five.summary == f"CUDA_VISIBLE_DEVICES=0,1,2,3,4: 5 of 8 GPU(s) visible, {pairs}, ... (5 in all)"


def test_hiding_every_gpu_leads_and_says_the_job_runs_on_the_cpu() -> None:
    verdict = judge(H100, {"CUDA_VISIBLE_DEVICES": "x,1"}, cuda_driver=predicted(H100))
    assert verdict.summary == (
        "CUDA_VISIBLE_DEVICES='x,1' hides every GPU: its first entry 'x' is not a valid GPU index, so the "
        "list is empty (training silently runs on the CPU)"
    )
    assert (
        verdict.details[0]
        == "warn: entry 0 'x' is not a valid GPU index: it and the 1 entry after it are ignored"
    )


@pytest.mark.parametrize(
    ("value", "summary"),
    [
        ("0,x", "entry 1 'x' is not a valid GPU index: it is ignored"),
        (
            "0,0",
            "CUDA_VISIBLE_DEVICES='0,0' hides every GPU: it lists the same GPU twice "
            "(training silently runs on the CPU)",
        ),
        ("0,,1", "entry 1 '' is empty: it and the 1 entry after it are ignored"),
    ],
)
def test_only_hiding_every_gpu_says_the_job_runs_on_the_cpu(value: str, summary: str) -> None:
    assert judge(H100, {"CUDA_VISIBLE_DEVICES": value}, cuda_driver=predicted(H100)).summary == summary


@pytest.mark.parametrize(("rank", "warns"), [("0", False), ("1", False), ("2", True), ("5", True)])
def test_a_local_rank_at_or_past_the_visible_gpus_warns(rank: str, warns: bool) -> None:
    verdict = judge(H100, {"CUDA_VISIBLE_DEVICES": "2,3", "LOCAL_RANK": rank})
    assert (verdict.status is Status.WARN) is warns
    if warns:
        assert verdict.summary.startswith(f"LOCAL_RANK={rank} but only 2 GPU(s) are visible")
        assert verdict.details[0] == "CUDA_VISIBLE_DEVICES='2,3'"


def test_a_local_rank_past_every_gpu_with_the_variable_unset_says_so() -> None:
    verdict = judge(H100, {"LOCAL_RANK": "9"}, cuda_driver=predicted(H100))
    assert verdict.summary.startswith("LOCAL_RANK=9 but only 8 GPU(s) are visible")
    assert "CUDA_VISIBLE_DEVICES=unset" in verdict.details


@pytest.mark.parametrize(
    ("value", "said"),
    [
        (None, "CUDA_VISIBLE_DEVICES is unset"),
        ("0", "CUDA_VISIBLE_DEVICES is '0'"),
        ("GPU-abc0", "CUDA_VISIBLE_DEVICES='GPU-abc0' selects GPUs by UUID, which is well formed"),
        ("MIG-abc0", "CUDA_VISIBLE_DEVICES='MIG-abc0' selects a MIG instance"),
        # the legacy form MIG-<GPU-UUID>/<GPU instance>/<compute instance> (CUDA Programming Guide's example)
        (LEGACY_MIG, f"CUDA_VISIBLE_DEVICES={LEGACY_MIG!r} selects a MIG instance"),
    ],
)
def test_a_machine_without_a_gpu_says_what_the_value_would_select(value: str | None, said: str) -> None:
    verdict = judge(LAPTOP, {} if value is None else {"CUDA_VISIBLE_DEVICES": value})
    assert verdict.status is Status.SKIP
    assert verdict.summary.startswith("no NVIDIA GPU on this machine (NVML: LibraryNotFound); " + said)


@pytest.mark.parametrize(("value", "bad"), [("GPU-z0", True), ("GPU-abc0", False), ("GPU-0z", True)])
def test_a_uuid_with_other_characters_than_hex_and_dashes_is_malformed(value: str, bad: bool) -> None:
    verdict = judge(LAPTOP, {"CUDA_VISIBLE_DEVICES": value})
    assert (verdict.status is Status.WARN) is bad
    if bad:
        assert verdict.summary.startswith(f"entry 0 {value!r} is not a GPU UUID")


def test_a_mig_value_on_a_machine_without_mig_names_its_first_instance() -> None:
    verdict = judge(H100, {"CUDA_VISIBLE_DEVICES": "MIG-a,MIG-b"})
    text = "\n".join([verdict.summary, *map(str, verdict.details)])
    assert "CUDA_VISIBLE_DEVICES='MIG-a' names a MIG instance, but no GPU here has MIG enabled" in text


def test_pci_bus_id_order_on_a_machine_of_mixed_models_is_not_questioned() -> None:
    mixed = "a4000_a100_fastest_first.json"
    warned = "CUDA_DEVICE_ORDER is FASTEST_FIRST on a machine with different GPU models"
    assert any(warned in str(d) for d in judge(mixed, {}).details)
    # a value read from the environment, not the module's own constant object
    ordered = judge(mixed, {"CUDA_DEVICE_ORDER": "".join(["PCI_", "BUS_ID"])})
    assert not any("CUDA_DEVICE_ORDER is" in str(d) for d in [ordered.summary, *ordered.details])


def test_three_gpu_models_in_cudas_own_order_are_questioned_too() -> None:
    mixed = "a4000_a100_fastest_first.json"
    nv = copy.deepcopy(fixture_facts(mixed)["nvml"])
    third = copy.deepcopy(nv["gpus"][0])
    third.update(
        index=len(nv["gpus"]), name="NVIDIA RTX A2000", uuid="GPU-0a2a2a2a-0000-4000-8000-000000000002"
    )
    nv["gpus"].append(third)
    verdict = judge(mixed, {}, nvml=nv, cuda_driver=predicted(mixed))
    warned = "CUDA_DEVICE_ORDER is FASTEST_FIRST on a machine with different GPU models"
    assert any(warned in str(d) for d in [verdict.summary, *verdict.details])
