"""cuda.visible_devices judged on the recorded facts of real machine types."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from torchdoctor.checks.devices.visible_devices_check import CHECK
from torchdoctor.model import Status

from support import fixture_facts, judge_fixture

H100 = "h100x8_cvd_2_3.json"


def judge(name: str, variables: dict[str, str] | None = None, **replace: Any) -> Any:
    if variables is not None:
        replace["env"] = {"variables": variables}
    return judge_fixture(CHECK, name, **replace)


def without_driver_view(name: str) -> dict[str, Any]:
    """The same machine where libcuda could not be asked: the mapping is predicted."""
    driver = copy.deepcopy(fixture_facts(name)["cuda_driver"])
    driver.update(
        library=None, load_error="libcuda.so.1: cannot open shared object file", device_count=None, devices=[]
    )
    return driver


def rows(verdict: Any) -> list[dict[str, Any]]:
    return [d for d in verdict.details if isinstance(d, dict)]


def test_cvd_2_3_on_8_h100_maps_cuda0_to_gpu2_by_uuid() -> None:
    verdict = judge(H100)
    assert verdict.status is Status.PASS
    assert (
        verdict.summary == "CUDA_VISIBLE_DEVICES=2,3: 2 of 8 GPU(s) visible, cuda:0 -> GPU 2, cuda:1 -> GPU 3"
    )
    mapping = rows(verdict)
    assert [(r["device"], r["gpu"], r["pci_bus_id"]) for r in mapping] == [
        ("cuda:0", 2, "00000000:3A:00.0"),
        ("cuda:1", 3, "00000000:5D:00.0"),
    ]
    assert mapping[0]["uuid"] == "GPU-7e2b9c10-4d5f-4a8b-b3c7-2e4f6a8c0d03"
    assert verdict.facts["mapping_source"] == "driver"


def test_without_the_driver_the_mapping_is_predicted_and_says_so() -> None:
    verdict = judge(H100, cuda_driver=without_driver_view(H100))
    assert verdict.status is Status.PASS
    assert [r["gpu"] for r in rows(verdict)] == [2, 3]
    assert verdict.facts["mapping_source"] == "model"
    assert any("predicted" in str(d) for d in verdict.details)


def test_local_rank_beyond_the_visible_gpus_warns() -> None:
    verdict = judge(
        H100, {"CUDA_VISIBLE_DEVICES": "2,3", "LOCAL_RANK": "2"}, cuda_driver=without_driver_view(H100)
    )
    assert verdict.status is Status.WARN
    assert "LOCAL_RANK=2 but only 2 GPU(s) are visible" in verdict.summary
    assert "invalid device ordinal" in verdict.summary


@pytest.mark.parametrize(
    ("value", "kind", "text"),
    [
        ("", "hides_all", "no GPU is visible"),
        ("-1", "hides_all", "hides every GPU"),
        ("2,2", "hides_all", "hides every GPU"),
        ("2,9,3", "out_of_range", "refers to GPU 9 but this machine has 8 GPUs"),
        ("2;3", "separator", "use commas"),
        ("GPU-7e2b9c10,GPU-", "ambiguous_uuid", "ambiguous"),
        ("GPU-ffffffff", "unknown_uuid", "matches no GPU"),
        ("2,GPU-7e2b9c10", "mixed_kinds", "cannot be mixed"),
    ],
)
def test_a_malformed_value_warns_with_what_the_driver_will_do(value: str, kind: str, text: str) -> None:
    verdict = judge(H100, {"CUDA_VISIBLE_DEVICES": value}, cuda_driver=without_driver_view(H100))
    assert verdict.status is Status.WARN
    assert kind in verdict.facts["issues"]
    assert text in " ".join([verdict.summary, *map(str, verdict.details)])
    assert verdict.fix is not None


def test_hiding_every_gpu_says_training_runs_on_the_cpu() -> None:
    verdict = judge(H100, {"CUDA_VISIBLE_DEVICES": ""}, cuda_driver=without_driver_view(H100))
    assert "training silently runs on the CPU" in verdict.summary
    assert rows(verdict) == []


def test_uuid_prefixes_select_gpus_in_the_order_given() -> None:
    value = "GPU-9b4d6e82,GPU-3c8f1a52"
    verdict = judge(H100, {"CUDA_VISIBLE_DEVICES": value}, cuda_driver=without_driver_view(H100))
    assert verdict.status is Status.PASS
    assert [r["gpu"] for r in rows(verdict)] == [3, 0]


def test_a_mig_slice_maps_to_its_parent_gpu() -> None:
    verdict = judge("a100_mig_1g10gb.json")
    assert verdict.status is Status.PASS
    (row,) = rows(verdict)
    assert row["uuid"] == "MIG-d184f67c-c95f-5ef2-a935-195bd0094fbd"
    assert row["gpu"] == 0
    assert "MIG d184f67c on GPU 0" in verdict.summary


def test_fastest_first_on_mixed_models_shows_the_gpu_the_driver_really_picked() -> None:
    verdict = judge("a4000_a100_fastest_first.json")
    assert verdict.status is Status.WARN
    assert verdict.summary.startswith("cuda:0 is GPU 0 (NVIDIA RTX A4000), not GPU 1 (NVIDIA A100-PCIE-40GB)")
    assert any("CUDA_DEVICE_ORDER is FASTEST_FIRST" in str(d) for d in verdict.details)
    assert verdict.fix is not None
    assert "export CUDA_DEVICE_ORDER=PCI_BUS_ID" in verdict.fix.commands


def test_pci_bus_id_order_on_mixed_models_passes() -> None:
    facts = fixture_facts("a4000_a100_fastest_first.json")
    driver = copy.deepcopy(facts["cuda_driver"])
    a100 = facts["nvml"]["gpus"][1]
    driver["devices"] = [{**driver["devices"][0], "uuid": a100["uuid"][4:], "name": a100["name"]}]
    verdict = judge(
        "a4000_a100_fastest_first.json",
        {"CUDA_VISIBLE_DEVICES": "1", "CUDA_DEVICE_ORDER": "PCI_BUS_ID"},
        cuda_driver=driver,
    )
    assert verdict.status is Status.PASS
    assert [r["gpu"] for r in rows(verdict)] == [1]


@pytest.mark.parametrize("machine", ["laptop_no_driver.json", "macbook_m2_mps.json"])
def test_no_gpu_and_unset_is_a_skip_with_the_reason(machine: str) -> None:
    verdict = judge(machine)
    assert verdict.status is Status.SKIP
    assert "no NVIDIA GPU" in verdict.summary


@pytest.mark.parametrize(("value", "kind"), [("0,0", "duplicate"), ("0 1", "separator")])
def test_a_malformed_value_is_flagged_even_without_a_gpu(value: str, kind: str) -> None:
    verdict = judge("laptop_no_driver.json", {"CUDA_VISIBLE_DEVICES": value})
    assert verdict.status is Status.WARN
    assert kind in verdict.facts["issues"]


def test_a_well_formed_value_without_a_gpu_is_a_skip() -> None:
    verdict = judge("laptop_no_driver.json", {"CUDA_VISIBLE_DEVICES": "0,1"})
    assert verdict.status is Status.SKIP
    assert "'0,1'" in verdict.summary


def _without_gpus(value: str) -> Any:
    facts = fixture_facts("laptop_no_driver.json")
    facts["env"]["variables"]["CUDA_VISIBLE_DEVICES"] = value
    return CHECK.judge({p.name: facts[p.name] for p in CHECK.probes}, {})


@pytest.mark.parametrize("value", ["0,0", "0 1", "1,x", "GPU-zz"])
def test_on_a_machine_without_gpus_a_mistake_warns_without_claiming_a_cpu_fallback(value: str) -> None:
    verdict = _without_gpus(value)
    assert verdict.status is Status.WARN
    assert "silently runs on the CPU" not in verdict.summary + " ".join(map(str, verdict.details))


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("GPU-7e2b9c10", "selects GPUs by UUID, which is well formed; there is no GPU here to match it"),
        ("MIG-4c0e5a3b-5f2a-5c7e-9d3b-1a2b3c4d5e6f", "selects a MIG instance; there is no GPU here"),
        ("-1", "'-1' is the common idiom to hide all GPUs"),
        ("", "is set but empty"),
    ],
)
def test_on_a_machine_without_gpus_uuid_mig_and_hiding_values_skip_saying_what_they_mean(
    value: str, said: str
) -> None:
    verdict = _without_gpus(value)
    assert verdict.status is Status.SKIP
    assert said in verdict.summary


def test_a_mig_value_on_gpus_without_mig_hides_every_gpu() -> None:
    facts = fixture_facts("h100x8_cvd_2_3.json")
    facts["env"]["variables"]["CUDA_VISIBLE_DEVICES"] = "MIG-4c0e5a3b-5f2a-5c7e-9d3b-1a2b3c4d5e6f"
    facts["cuda_driver"] = {**facts["cuda_driver"], "device_count": 0, "devices": []}
    verdict = CHECK.judge({p.name: facts[p.name] for p in CHECK.probes}, {})
    assert verdict.status is Status.WARN
    assert "names a MIG instance, but no GPU here has MIG enabled" in verdict.summary


def test_a_mig_value_naming_no_instance_of_a_mig_gpu_warns() -> None:
    facts = fixture_facts("a100_mig_1g10gb.json")
    facts["env"]["variables"]["CUDA_VISIBLE_DEVICES"] = "MIG-00000000-1111-2222-3333-444444444444"
    facts["cuda_driver"] = {**facts["cuda_driver"], "device_count": 0, "devices": []}
    verdict = CHECK.judge({p.name: facts[p.name] for p in CHECK.probes}, {})
    assert verdict.status is Status.WARN
    assert "matches none of this machine's 2 MIG instance(s)" in verdict.summary
