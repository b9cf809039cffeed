"""torchdoctor.machine.nvml.query() against a fake NVML backend that describes GPUs."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pynvml
import pytest

from torchdoctor.machine import nvml
from torchdoctor.machine.nvml import Gpu, GpuProcess, MigDevice, PcieLink, Snapshot

import fake_nvml
from fake_nvml import (
    FakeGpu,
    FakeHandle,
    FakeNvml,
    FakeProcess,
    a100_pcie,
    h100_sxm,
    mig_slice,
    rtx_5090,
)

TESTS_DIR = Path(__file__).resolve().parents[1]
REPO_ROOT = TESTS_DIR.parent
MIB = fake_nvml.MIB
GIB = 2**30
# The messages pynvml's NVMLError gives for the errors nvmlInit raises on broken installs.
INIT_ERRORS = {
    "LibraryNotFound": "NVML Shared Library Not Found",
    "DriverNotLoaded": "Driver Not Loaded",
    "LibRmVersionMismatch": "RM has detected an NVML/RM version mismatch.",
}


def hgx_h100() -> FakeNvml:
    return FakeNvml([h100_sxm(index) for index in range(8)])


def mig_h100(index: int = 0) -> FakeGpu:
    """An H100 split into two 3g.40gb slices in slots 0 and 2, slot 1 empty."""
    gpu = h100_sxm(index, mig_mode=True, memory_used=87 * MIB)
    gpu.mig_devices = [mig_slice(gpu, 1), None, mig_slice(gpu, 2)]
    return gpu


def mixed_workstation() -> FakeNvml:
    """An RTX 5090 driving the desktop next to an A100 in MIG mode whose memory query fails."""
    desktop = rtx_5090(
        0,
        processes=[
            FakeProcess(2113, 412 * MIB, "graphics"),  # Xorg
            FakeProcess(48211, 21 * GIB, "compute"),
            FakeProcess(48211, 6 * MIB, "graphics"),
        ],
    )
    a100 = a100_pcie(1, mig_mode=True, failing={"nvmlDeviceGetMemoryInfo": "GpuIsLost"})
    a100.mig_devices = [mig_slice(a100, 7, "1g.10gb"), mig_slice(a100, 8, "1g.10gb")]
    a100.processes = [FakeProcess(50120, 3 * GIB, "compute", gpu_instance_id=7, compute_instance_id=0)]
    return FakeNvml([desktop, a100], driver_version="570.124.06", cuda_driver_version=12080)


def expected_gpu(index: int, fake: FakeGpu) -> Gpu:
    """What query() reports for a fake GPU that answers everything, its memory read through v2."""
    assert fake.memory_total is not None and fake.memory_reserved is not None
    assert fake.compute_capability is not None
    return Gpu(
        index=index,
        name=fake.name,
        uuid=fake.uuid,
        pci_bus_id=fake.pci_bus_id,
        compute_capability=list(fake.compute_capability),
        memory_total_bytes=fake.memory_total,
        memory_used_bytes=fake.memory_used,
        memory_free_bytes=fake.memory_total - fake.memory_reserved - fake.memory_used,
        memory_reserved_bytes=fake.memory_reserved,
        performance_state=fake.performance_state,
        mig_mode=fake.mig_mode,
        pcie=PcieLink(
            gen_current=fake.pcie_gen_current,
            width_current=fake.pcie_width_current,
            gen_max=fake.pcie_gen_max,
            width_max=fake.pcie_width_max,
            gen_gpu_max=fake.pcie_gen_gpu_max,
        ),
        processes=[],
    )


def nvml_library_loads() -> bool:
    try:
        ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        return False
    return True


# -- a healthy machine -----------------------------------------------------------------------------


def test_healthy_hgx_h100_reports_every_field() -> None:
    fake = hgx_h100()

    snapshot = nvml.query(fake)

    assert snapshot == Snapshot(
        available=True,
        driver_version="550.54.15",
        cuda_driver_version=12040,
        nvml_version="12.550.54.15",
        gpus=[expected_gpu(index, gpu) for index, gpu in enumerate(fake.gpus)],
    )


def test_healthy_h100_values_are_the_spec_sheet_values() -> None:
    gpu = nvml.query(hgx_h100()).gpus[0]

    assert gpu.name == "NVIDIA H100 80GB HBM3"
    assert gpu.compute_capability == [9, 0]
    assert gpu.memory_total_bytes == 85_520_809_984  # 81559 MiB
    assert gpu.pcie == PcieLink(gen_current=5, width_current=16, gen_max=5, width_max=16, gen_gpu_max=5)
    assert gpu.mig_mode is False
    assert gpu.errors == {}


def test_healthy_hgx_h100_preserves_bus_ids_and_uuids() -> None:
    fake = hgx_h100()

    gpus = nvml.query(fake).gpus

    assert [gpu.pci_bus_id for gpu in gpus] == list(fake_nvml.HGX_H100_BUS_IDS)
    assert [gpu.uuid for gpu in gpus] == [gpu.uuid for gpu in fake.gpus]
    assert len({gpu.uuid for gpu in gpus}) == 8
    assert all(fake_nvml.UUID_SHAPE.fullmatch(str(gpu.uuid)) for gpu in gpus)


def test_memory_is_read_through_v2() -> None:
    gpu = nvml.query(FakeNvml([h100_sxm(0, memory_used=1 * MIB)])).gpus[0]

    # v1 would fold the 336 MiB carve-out into "used" and say nothing of "reserved".
    assert gpu.memory_reserved_bytes == 336 * MIB
    assert gpu.memory_used_bytes == 1 * MIB
    assert gpu.memory_free_bytes == (81559 - 336 - 1) * MIB


# -- init errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "message"), INIT_ERRORS.items())
def test_init_error_gives_unavailable_snapshot(name: str, message: str) -> None:
    fake = FakeNvml([h100_sxm(0)], init_error=name)

    snapshot = nvml.query(fake)

    assert snapshot == Snapshot(available=False, error=name, error_message=message)
    assert fake.calls == ["nvmlInit"]  # no shutdown of a library that never started


# -- failing GPUs ----------------------------------------------------------------------------------


def test_lost_gpu_memory_query_keeps_the_other_gpus() -> None:
    fake = hgx_h100()
    fake.gpus[3].failing = {"nvmlDeviceGetMemoryInfo": "GpuIsLost"}

    gpus = nvml.query(fake).gpus

    assert len(gpus) == 8
    assert gpus[3].errors == {"memory": "GpuIsLost"}
    assert (gpus[3].memory_total_bytes, gpus[3].memory_used_bytes, gpus[3].memory_free_bytes) == (None,) * 3
    assert gpus[3].memory_reserved_bytes is None
    assert gpus[3].uuid == fake.gpus[3].uuid
    assert gpus[:3] + gpus[4:] == [expected_gpu(i, fake.gpus[i]) for i in (0, 1, 2, 4, 5, 6, 7)]


def test_gpu_lost_entirely_keeps_the_other_gpus() -> None:
    fake = hgx_h100()
    fake.gpus[5].failing = {fake_nvml.ANY_FUNCTION: "GpuIsLost"}

    gpus = nvml.query(fake).gpus

    nothing_known = [None] * 10
    assert gpus[5] == Gpu(5, *nothing_known, errors={"handle": "GpuIsLost"})
    assert [gpu.errors for gpu in gpus[:5] + gpus[6:]] == [{}] * 7


def test_device_count_error_is_the_snapshot_error() -> None:
    fake = FakeNvml([h100_sxm(0)], failing={"nvmlDeviceGetCount": "Unknown"})

    snapshot = nvml.query(fake)

    assert (snapshot.available, snapshot.error, snapshot.gpus) == (True, "Unknown", [])
    assert snapshot.driver_version == "550.54.15"


def test_not_supported_answers_become_none_and_are_not_errors() -> None:
    fake = FakeNvml([rtx_5090(0, performance_state=None, pcie_gen_gpu_max=None, processes=None)])
    fake.gpus[0].failing = {"nvmlDeviceGetMaxPcieLinkWidth": "NotSupported"}

    gpu = nvml.query(fake).gpus[0]

    assert gpu.mig_mode is None  # a GeForce card has no MIG
    assert gpu.performance_state is None
    assert gpu.pcie == PcieLink(gen_current=1, width_current=8, gen_max=5, width_max=None, gen_gpu_max=None)
    assert gpu.processes is None
    assert gpu.errors == {}


def test_other_errors_are_listed_by_query() -> None:
    failing = {
        "nvmlDeviceGetComputeRunningProcesses": "NoPermission",
        "nvmlDeviceGetCurrPcieLinkWidth": "Unknown",
    }
    fake = FakeNvml([h100_sxm(0, failing=failing)])

    gpu = nvml.query(fake).gpus[0]

    assert gpu.errors == {"processes.compute": "NoPermission", "pcie.width_current": "Unknown"}
    assert gpu.pcie.width_current is None
    assert gpu.processes == []  # the graphics list still answered


def test_old_driver_without_memory_v2_falls_back_to_v1() -> None:
    fake = FakeNvml([h100_sxm(0, memory_used=1024 * MIB)], driver_version="470.256.02", no_v2_memory=True)

    gpu = nvml.query(fake).gpus[0]

    assert gpu.memory_reserved_bytes is None
    assert gpu.memory_used_bytes == (1024 + 336) * MIB  # v1 "used" includes the reserved carve-out
    assert gpu.memory_free_bytes == (81559 - 336 - 1024) * MIB
    assert gpu.memory_total_bytes == 81559 * MIB
    assert gpu.errors == {}  # FunctionNotFound from the v2 attempt is not an error of the GPU
    assert fake.calls.count("nvmlDeviceGetMemoryInfo") == 2


def test_unknown_performance_state_is_none() -> None:
    """NVML answers NVML_PSTATE_UNKNOWN (32) when it cannot say; the snapshot says None."""
    fake = FakeNvml([h100_sxm(0, performance_state=fake_nvml.PSTATE_UNKNOWN)])

    gpu = nvml.query(fake).gpus[0]

    assert gpu.performance_state is None
    assert gpu.errors == {}


# -- MIG -------------------------------------------------------------------------------------------


def test_mig_slices_are_listed_and_empty_slots_skipped() -> None:
    fake = FakeNvml([mig_h100(0), h100_sxm(1)])
    first, third = fake.gpus[0].mig_devices[0], fake.gpus[0].mig_devices[2]
    assert first is not None and third is not None

    gpus = nvml.query(fake).gpus

    # A 3g.40gb slice of an idle H100: 44 MiB used of 40448 MiB, compute instance 0.
    idle = {
        "memory_total_bytes": 40448 * MIB,
        "memory_used_bytes": 44 * MIB,
        "memory_free_bytes": 40404 * MIB,
    }
    assert gpus[0].mig_mode is True
    assert gpus[0].mig_devices == [
        MigDevice(0, first.uuid, **idle, gpu_instance_id=1, compute_instance_id=0),
        MigDevice(2, third.uuid, **idle, gpu_instance_id=2, compute_instance_id=0),
    ]
    assert str(first.uuid).startswith("MIG-")
    assert gpus[0].errors == {}
    assert (gpus[1].mig_mode, gpus[1].mig_devices) == (False, [])


def test_mig_disabled_gpu_is_not_asked_for_slices() -> None:
    fake = FakeNvml([h100_sxm(0)])

    nvml.query(fake)

    assert "nvmlDeviceGetMaxMigDeviceCount" not in fake.calls
    assert "nvmlDeviceGetMigDeviceHandleByIndex" not in fake.calls


# -- processes -------------------------------------------------------------------------------------


def test_processes_are_merged_by_pid() -> None:
    fake = mixed_workstation()

    processes = nvml.query(fake).gpus[0].processes

    assert processes == [
        GpuProcess(pid=48211, used_memory_bytes=21 * GIB, kind="compute"),
        GpuProcess(pid=2113, used_memory_bytes=412 * MIB, kind="graphics"),
    ]


def test_process_memory_not_available_stays_none() -> None:
    # Windows WDDM: pynvml turns NVML_VALUE_NOT_AVAILABLE into usedGpuMemory None.
    fake = FakeNvml([rtx_5090(0, processes=[FakeProcess(9120, None, "graphics")])])

    processes = nvml.query(fake).gpus[0].processes

    assert processes == [GpuProcess(pid=9120, used_memory_bytes=None, kind="graphics")]


def test_process_instance_ids_outside_mig_become_none() -> None:
    fake = FakeNvml([h100_sxm(0, processes=[FakeProcess(7001, 30 * GIB)])])
    record = fake_nvml.process_record(fake.gpus[0].processes[0])  # type: ignore[index]
    assert (record.gpuInstanceId, record.computeInstanceId) == (0xFFFFFFFF, 0xFFFFFFFF)

    (process,) = nvml.query(fake).gpus[0].processes or []

    assert (process.gpu_instance_id, process.compute_instance_id) == (None, None)


def test_process_instance_ids_inside_mig_are_kept() -> None:
    processes = nvml.query(mixed_workstation()).gpus[1].processes

    assert processes == [GpuProcess(50120, 3 * GIB, "compute", gpu_instance_id=7, compute_instance_id=0)]


# -- init and shutdown pairing ---------------------------------------------------------------------


PAIRING_MACHINES: dict[str, Callable[[], FakeNvml]] = {
    "healthy": hgx_h100,
    "mixed": mixed_workstation,
    "lost_gpu": lambda: FakeNvml([h100_sxm(0, failing={fake_nvml.ANY_FUNCTION: "GpuIsLost"}), h100_sxm(1)]),
    "count_fails": lambda: FakeNvml([h100_sxm(0)], failing={"nvmlDeviceGetCount": "Unknown"}),
    "old_driver": lambda: FakeNvml([a100_pcie(0)], no_v2_memory=True),
}


@pytest.mark.parametrize("build", PAIRING_MACHINES.values(), ids=PAIRING_MACHINES.keys())
def test_init_and_shutdown_are_paired(build: Callable[[], FakeNvml]) -> None:
    fake = build()

    nvml.query(fake)

    assert (fake.calls[0], fake.calls[-1]) == ("nvmlInit", "nvmlShutdown")
    assert fake.calls.count("nvmlInit") == fake.calls.count("nvmlShutdown") == 1
    assert fake.refcount == 0


class _InterruptedNvml(FakeNvml):
    """A machine where the user presses Ctrl-C while the names are read."""

    def nvmlDeviceGetName(self, handle: FakeHandle) -> str:
        super().nvmlDeviceGetName(handle)
        raise KeyboardInterrupt


def test_shutdown_runs_when_a_device_query_raises() -> None:
    fake = _InterruptedNvml([h100_sxm(0)])

    with pytest.raises(KeyboardInterrupt):
        nvml.query(fake)

    assert fake.calls[-1] == "nvmlShutdown"
    assert fake.refcount == 0


# -- replaying recorded machines -------------------------------------------------------------------


ROUND_TRIP_MACHINES: dict[str, Callable[[], FakeNvml]] = {
    **PAIRING_MACHINES,
    "mig": lambda: FakeNvml([mig_h100(0), mig_h100(1)]),
    "not_supported": lambda: FakeNvml([rtx_5090(0, processes=None, performance_state=None)]),
    "no_system_versions": lambda: FakeNvml([h100_sxm(0)], cuda_driver_version=None, nvml_version=None),
    "driver_not_loaded": lambda: FakeNvml([], init_error="DriverNotLoaded"),
}


@pytest.mark.parametrize("build", ROUND_TRIP_MACHINES.values(), ids=ROUND_TRIP_MACHINES.keys())
def test_from_snapshot_round_trips(build: Callable[[], FakeNvml]) -> None:
    recorded = nvml.query(build())
    as_stored = json.loads(json.dumps(recorded.to_json()))

    replayed = nvml.query(FakeNvml.from_snapshot(as_stored))

    assert replayed == recorded


def test_from_snapshot_keeps_recorded_free_memory() -> None:
    recorded = nvml.query(hgx_h100()).to_json()
    recorded["gpus"][0]["memory_free_bytes"] -= 2 * MIB  # MiB rounding on a real machine

    replayed = nvml.query(FakeNvml.from_snapshot(recorded)).to_json()

    assert replayed == recorded


# -- choosing the backend --------------------------------------------------------------------------


def test_load_backend_honours_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = hgx_h100()
    monkeypatch.setattr(fake_nvml, "BACKEND", fake)
    monkeypatch.setenv(nvml.BACKEND_ENV, "fake_nvml:BACKEND")

    assert nvml.load_backend() is fake
    assert [gpu.uuid for gpu in nvml.query().gpus] == [gpu.uuid for gpu in fake.gpus]


def test_load_backend_takes_a_whole_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(nvml.BACKEND_ENV, "pynvml")

    assert nvml.load_backend() is pynvml


def test_backend_that_does_not_import_is_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(nvml.BACKEND_ENV, "no_such_nvml_backend:BACKEND")

    assert nvml.load_backend() is None
    snapshot = nvml.query()
    assert (snapshot.available, snapshot.error) == (False, "NotInstalled")
    assert "no_such_nvml_backend" in str(snapshot.error_message)


def test_a_misnamed_backend_attribute_is_not_installed_rather_than_a_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(nvml.BACKEND_ENV, "fake_nvml:MISSING")

    snapshot = nvml.query()

    assert (snapshot.available, snapshot.error) == (False, "NotInstalled")
    assert "MISSING" in str(snapshot.error_message)


@pytest.mark.skipif(nvml_library_loads(), reason="this machine has an NVIDIA driver")
def test_real_pynvml_without_a_driver_reports_library_not_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(nvml.BACKEND_ENV, raising=False)

    snapshot = nvml.query()

    assert snapshot == Snapshot(
        available=False, error="LibraryNotFound", error_message="NVML Shared Library Not Found"
    )
    assert json.loads(json.dumps(nvml.probe({}))) == snapshot.to_json()


def test_probe_output_is_json_serialisable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fake_nvml, "BACKEND", mixed_workstation())
    monkeypatch.setenv(nvml.BACKEND_ENV, "fake_nvml:BACKEND")

    result = nvml.probe({})

    assert json.loads(json.dumps(result)) == result
    assert result == nvml.query(mixed_workstation()).to_json()


def test_probe_in_a_subprocess_replays_a_recorded_machine(tmp_path: Path) -> None:
    recorded = nvml.query(mixed_workstation()).to_json()
    machine = tmp_path / "machine.json"
    machine.write_text(json.dumps(recorded), encoding="utf-8")
    env = {
        **os.environ,
        fake_nvml.MACHINE_ENV: str(machine),
        nvml.BACKEND_ENV: "fake_nvml:BACKEND",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS_DIR), os.environ.get("PYTHONPATH")])),
    }
    code = "from torchdoctor.machine import nvml; import json; print(json.dumps(nvml.probe({})))"

    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=120
    )

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert [gpu["uuid"] for gpu in result["gpus"]] == [gpu["uuid"] for gpu in recorded["gpus"]]
    assert result == recorded


# -- the fake itself -------------------------------------------------------------------------------


def test_fake_raises_the_real_pynvml_exceptions() -> None:
    fake = hgx_h100()

    with pytest.raises(pynvml.NVMLError_Uninitialized) as before_init:
        fake.nvmlDeviceGetCount()
    fake.nvmlInit()
    with pytest.raises(pynvml.NVMLError_InvalidArgument):
        fake.nvmlDeviceGetHandleByIndex(8)

    assert nvml.error_name(before_init.value) == "Uninitialized"
    assert isinstance(fake_nvml.nvml_error("LibraryMismatch"), pynvml.NVMLLibraryMismatchError)
    assert nvml.error_name(fake_nvml.nvml_error("LibraryMismatch")) == "LibraryMismatch"


def test_fake_shutdown_counts_down_like_the_library() -> None:
    fake = FakeNvml([h100_sxm(0)])
    fake.nvmlInit()
    fake.nvmlInit()
    fake.nvmlShutdown()
    assert fake.nvmlDeviceGetCount() == 1  # still initialised once

    fake.nvmlShutdown()

    with pytest.raises(pynvml.NVMLError_Uninitialized):
        fake.nvmlShutdown()
    with pytest.raises(pynvml.NVMLError_Uninitialized):
        fake.nvmlDeviceGetCount()


@pytest.mark.parametrize(
    "bus_id", ["00000000:9A:00.0", "0000:9a:00.0", "9A:00.0", "00000000:9a:00", b"0000:9A:00.0"]
)
def test_fake_finds_gpus_by_any_pci_bus_id_form(bus_id: str | bytes) -> None:
    fake = hgx_h100()
    fake.nvmlInit()

    handle = fake.nvmlDeviceGetHandleByPciBusId(bus_id)

    assert fake.nvmlDeviceGetUUID(handle) == fake.gpus[4].uuid


def test_fake_finds_gpus_and_mig_devices_by_uuid() -> None:
    fake = FakeNvml([h100_sxm(0), mig_h100(1)])
    mig = fake.gpus[1].mig_devices[2]
    assert mig is not None
    fake.nvmlInit()

    gpu_handle = fake.nvmlDeviceGetHandleByUUID(str(fake.gpus[1].uuid))
    mig_handle = fake.nvmlDeviceGetHandleByUUID(str(mig.uuid))

    assert fake.nvmlDeviceGetPciInfo(gpu_handle).busId == "00000000:2A:00.0"
    assert fake.nvmlDeviceGetName(mig_handle) == "NVIDIA H100 80GB HBM3 MIG 3g.40gb"
    assert fake.nvmlDeviceGetGpuInstanceId(mig_handle) == 2
    with pytest.raises(pynvml.NVMLError_NotFound):
        fake.nvmlDeviceGetHandleByUUID(fake_nvml.fake_uuid("GPU", "not-installed"))
    with pytest.raises(pynvml.NVMLError_InvalidArgument):
        fake.nvmlDeviceGetHandleByUUID("GPU-1")
    with pytest.raises(pynvml.NVMLError_NotFound):
        fake.nvmlDeviceGetHandleByPciBusId("0000:07:00.0")


def test_fake_answers_with_pynvml_structs() -> None:
    fake = FakeNvml([h100_sxm(0)])
    fake.nvmlInit()
    handle = fake.nvmlDeviceGetHandleByIndex(0)

    pci = fake.nvmlDeviceGetPciInfo(handle)
    memory = fake.nvmlDeviceGetMemoryInfo(handle, version=fake.nvmlMemory_v2)

    assert isinstance(pci, pynvml.nvmlPciInfo_t)
    assert (pci.busId, pci.busIdLegacy, pci.bus, pci.pciDeviceId) == (
        "00000000:18:00.0",
        "0000:18:00.0",
        0x18,
        0x233010DE,
    )
    assert isinstance(memory, pynvml.c_nvmlMemory_v2_t)
    assert (memory.version, memory.reserved) == (pynvml.nvmlMemory_v2, 336 * MIB)
    assert isinstance(fake.nvmlDeviceGetMemoryInfo(handle), pynvml.c_nvmlMemory_t)
    assert fake.NVML_DEVICE_MIG_ENABLE == pynvml.NVML_DEVICE_MIG_ENABLE


def test_builders_give_distinct_realistic_gpus() -> None:
    gpus = [h100_sxm(index) for index in range(16)]

    assert len({gpu.pci_bus_id for gpu in gpus}) == len({gpu.uuid for gpu in gpus}) == 16
    assert gpus[8].pci_bus_id == "00000001:18:00.0"  # a second board repeats the layout in domain 1
    assert (a100_pcie(0).compute_capability, a100_pcie(0).memory_total) == ((8, 0), 81920 * MIB)
    assert (rtx_5090(0).compute_capability, rtx_5090(0).memory_total) == ((12, 0), 32607 * MIB)
    assert h100_sxm(2, performance_state=8).performance_state == 8


@pytest.mark.parametrize(
    "make",
    [
        lambda: FakeNvml([], init_error="DriverNotLoad"),
        lambda: FakeNvml([FakeGpu(failing={"nvmlDeviceGetMemInfo": "GpuIsLost"})]),
        lambda: FakeNvml([FakeGpu(failing={"nvmlDeviceGetMemoryInfo": "GPUIsLost"})]),
        lambda: FakeNvml([FakeGpu(pci_bus_id="slot 3")]),
        lambda: FakeNvml([FakeGpu(processes=[FakeProcess(1, 0, "mps")])]),
    ],
    ids=["init_error", "function", "error", "bus_id", "process_kind"],
)
def test_fake_rejects_misspelt_descriptions(make: Callable[[], Any]) -> None:
    with pytest.raises(ValueError):
        make()


def test_from_env_reads_the_machine_file(tmp_path: Path) -> None:
    machine = tmp_path / "machine.json"
    machine.write_text(json.dumps(nvml.query(hgx_h100()).to_json()), encoding="utf-8")

    fake = fake_nvml.from_env({fake_nvml.MACHINE_ENV: str(machine)})

    assert fake is not None
    assert [gpu.uuid for gpu in fake.gpus] == [gpu.uuid for gpu in hgx_h100().gpus]
    assert fake_nvml.from_env({}) is None


# -- the host link of one GPU, read under load ------------------------------------------------------


def test_read_link_reads_one_gpu_by_its_pci_bus_id() -> None:
    fake = hgx_h100()

    reading = nvml.read_link("00000000:3A:00.0", fake)

    assert reading == nvml.LinkReading(
        "00000000:3A:00.0",
        available=True,
        pcie=PcieLink(gen_current=5, width_current=16, gen_max=5, width_max=16, gen_gpu_max=5),
        performance_state=0,
        c2c_enabled=None,  # an H100 SXM has no NVLink-C2C: the query answers NotSupported
    )
    assert (fake.calls[0], fake.calls[-1]) == ("nvmlInit", "nvmlShutdown")
    assert fake.refcount == 0


def test_read_link_sees_a_downtrained_link_and_c2c() -> None:
    slow = h100_sxm(0, pcie_gen_current=3, pcie_width_current=8)
    grace = h100_sxm(1, c2c_enabled=True)
    fake = FakeNvml([slow, grace])

    downtrained = nvml.read_link("0000:18:00.0", fake)
    superchip = nvml.read_link("00000000:2A:00.0", fake)

    assert (downtrained.pcie.gen_current, downtrained.pcie.width_current) == (3, 8)
    assert (downtrained.pcie.gen_max, downtrained.pcie.width_max) == (5, 16)
    assert superchip.c2c_enabled is True
    assert json.loads(json.dumps(superchip.to_json()))["c2c_enabled"] is True


@pytest.mark.parametrize(
    ("fake", "error"),
    [
        (FakeNvml([h100_sxm(0)], init_error="DriverNotLoaded"), "DriverNotLoaded"),
        (FakeNvml([h100_sxm(0, failing={fake_nvml.ANY_FUNCTION: "GpuIsLost"})]), "GpuIsLost"),
        (FakeNvml([h100_sxm(0)]), "NotFound"),
    ],
    ids=["driver_not_loaded", "gpu_lost", "no_such_bus_id"],
)
def test_read_link_reports_why_it_could_not_read(fake: FakeNvml, error: str) -> None:
    bus_id = "00000000:18:00.0" if error != "NotFound" else "00000000:07:00.0"

    reading = nvml.read_link(bus_id, fake)

    assert reading.error == error
    assert reading.pcie == PcieLink()
    assert fake.refcount == 0


def test_read_link_keeps_real_errors_and_drops_unsupported_queries() -> None:
    fake = FakeNvml(
        [h100_sxm(0, performance_state=None, failing={"nvmlDeviceGetCurrPcieLinkWidth": "Unknown"})]
    )

    reading = nvml.read_link("00000000:18:00.0", fake)

    assert reading.errors == {"pcie.width_current": "Unknown"}
    assert reading.performance_state is None


def test_a_session_keeps_nvml_initialised_across_reads() -> None:
    fake = hgx_h100()

    with nvml.session(fake) as started:
        assert fake.refcount == 1
        readings = [nvml.read_link(gpu.pci_bus_id or "", fake) for gpu in fake.gpus[:2]]
        assert fake.refcount == 1

    assert started is True
    assert [r.pcie.gen_current for r in readings] == [5, 5]
    assert fake.refcount == 0
    assert fake.calls.count("nvmlInit") == fake.calls.count("nvmlShutdown") == 3


def test_a_session_without_a_driver_starts_nothing() -> None:
    fake = FakeNvml([], init_error="LibraryNotFound")

    with nvml.session(fake) as started:
        reading = nvml.read_link("00000000:18:00.0", fake)

    assert started is False
    assert (reading.available, reading.error) == (False, "LibraryNotFound")
    assert "nvmlShutdown" not in fake.calls


def test_a_memory_query_answered_not_supported_is_kept_as_a_fact_of_a_gpu_without_memory_of_its_own() -> None:
    # DGX Spark's GB10 shares the system's memory: nvmlDeviceGetMemoryInfo and its v2 answer
    # NVML_ERROR_NOT_SUPPORTED (XuehaiPan/nvitop#208, driver 580.173.02; leptonai/gpud#1170)
    fake = FakeNvml([rtx_5090(0, memory_total=None)])

    gpu = nvml.query(fake).gpus[0]

    assert (gpu.memory_total_bytes, gpu.memory_used_bytes, gpu.memory_free_bytes) == (None,) * 3
    assert gpu.errors == {"memory": "NotSupported"}
