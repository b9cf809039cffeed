"""The rank program binding cuda:LOCAL_RANK, on a torch.cuda showing the GPUs of the 8x H100 node fixture."""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import Any

import pytest

from torchdoctor.checks.ddp import rank_program

from support import fixture_facts

HEALTHY = "h100x8_ddp_healthy.json"  # synthetic, from the DGX H100's published layout (its fixture.source)


def fixture_devices() -> list[dict[str, Any]]:
    """What each rank of the fixture's run says of the device it bound, in local rank order."""
    ranks = fixture_facts(HEALTHY)["ddp.dryrun"]["ranks"]
    return [copy.deepcopy(rank["device"]) for rank in sorted(ranks, key=lambda r: r["local_rank"])]


class FixtureCuda:
    """``torch.cuda`` of a machine with ``devices``: properties as torch gives them (the UUID without its
    "GPU-" prefix, the PCI location as numbers); ``bound`` holds every set_device."""

    def __init__(self, devices: list[dict[str, Any]]) -> None:
        self.devices = devices
        self.bound: list[int] = []

    def is_available(self) -> bool:
        return bool(self.devices)

    def device_count(self) -> int:
        return len(self.devices)

    def set_device(self, index: int) -> None:
        if not 0 <= index < len(self.devices):
            raise RuntimeError("CUDA error: invalid device ordinal")
        self.bound.append(index)

    def get_device_properties(self, index: int) -> SimpleNamespace:
        device = self.devices[index]
        domain, bus, slot_function = device["pci_bus_id"].split(":")
        return SimpleNamespace(
            uuid=device["uuid"].removeprefix("GPU-"),
            name=device["name"],
            major=device["capability"][0],
            minor=device["capability"][1],
            pci_domain_id=int(domain, 16),
            pci_bus_id=int(bus, 16),
            pci_device_id=int(slot_function.split(".")[0], 16),
        )

    def mem_get_info(self, index: int) -> tuple[int, int]:
        device = self.devices[index]
        return device["memory_free_bytes"], device["memory_total_bytes"]


def a_torch(devices: list[dict[str, Any]], nccl: bool = True) -> tuple[Any, Any]:
    import torch

    fake = SimpleNamespace(__version__="2.13.0+cu129", cuda=FixtureCuda(devices), device=torch.device)
    return fake, SimpleNamespace(is_nccl_available=lambda: nccl)


@pytest.fixture(autouse=True)
def _no_visible_devices_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)  # the fixture's run had none


@pytest.mark.parametrize("backend", ["nccl", "gloo"])
def test_each_rank_binds_cuda_local_rank_and_says_what_the_fixtures_ranks_say(backend: str) -> None:
    import torch as real_torch

    devices = fixture_devices()
    for local_rank, said in enumerate(devices):
        torch, dist = a_torch(devices)
        tensor_device, facts = rank_program._bind(torch, dist, backend, local_rank)
        assert facts == said
        assert torch.cuda.bound == [local_rank]
        # nccl's tensors live on the bound GPU; gloo's stay on the CPU
        expected = real_torch.device("cuda", local_rank) if backend == "nccl" else None
        assert tensor_device == expected


def test_a_local_rank_beyond_the_visible_gpus_fails_before_set_device_with_the_count() -> None:
    torch, dist = a_torch(fixture_devices()[:3])
    with pytest.raises(rank_program.RankFailure) as failure:
        rank_program._bind(torch, dist, "nccl", 3)
    assert failure.value.kind == "invalid_device_ordinal"
    assert str(failure.value) == (
        "LOCAL_RANK=3 -> cuda:3, but only 3 CUDA device(s) are visible (invalid device ordinal)"
    )
    assert failure.value.data == {"device_count": 3}
    assert torch.cuda.bound == []  # CUDA's own error would not say which rank or how many GPUs


def test_nccl_needs_a_torch_with_nccl_and_a_gpu_and_gloo_needs_neither() -> None:
    torch, dist = a_torch(fixture_devices(), nccl=False)
    with pytest.raises(rank_program.RankFailure, match=r"torch 2\.13\.0\+cu129 has no NCCL") as no_nccl:
        rank_program._bind(torch, dist, "nccl", 0)
    torch, dist = a_torch([])
    with pytest.raises(rank_program.RankFailure, match=r"torch\.cuda\.is_available\(\) is False") as no_gpu:
        rank_program._bind(torch, dist, "nccl", 0)
    assert no_nccl.value.kind == no_gpu.value.kind == "nccl_unavailable"
    assert rank_program._bind(torch, dist, "gloo", 1) == (None, None)
