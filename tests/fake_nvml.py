"""A fake NVML backend that describes GPUs instead of talking to a driver.

:class:`FakeNvml` exposes the pynvml functions that ``torchdoctor.machine.nvml`` calls, with the same
signatures and return types as nvidia-ml-py 13.615.71 (ctypes memory and PCI structs, process
records as ``nvmlFriendlyObject``), and raises the real pynvml exception classes, so error names
come out exactly as on a real machine. A field set to ``None`` on :class:`FakeGpu` or
:class:`FakeMig` makes its query answer ``NotSupported``; ``failing`` makes a function raise any
other NVML error. It needs no driver and, like NVML, ignores CUDA_VISIBLE_DEVICES.

``BACKEND`` is built at import time from the Snapshot JSON named by ``FAKE_NVML_MACHINE`` (None
when unset), so a subprocess can run with ``TORCHDOCTOR_NVML_BACKEND=fake_nvml:BACKEND``.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import os
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pynvml

MACHINE_ENV = "FAKE_NVML_MACHINE"
MIB = 2**20
NO_INSTANCE = 0xFFFFFFFF  # NVML's instance id in process records of a GPU that is not in MIG mode
PSTATE_UNKNOWN: int = pynvml.NVML_PSTATE_UNKNOWN  # 32, "Unknown performance state" (nvml.h)
LIBRARY_MISMATCH = "LibraryMismatch"  # pynvml.NVMLLibraryMismatchError, which is not an NVMLError
ANY_FUNCTION = "*"  # a ``failing`` key that makes every device function of that GPU fail

_ERROR_CODES: dict[str, int] = {
    cls.__name__.removeprefix("NVMLError_"): code for code, cls in pynvml.NVMLError._valClassMapping.items()
}
ERROR_NAMES: frozenset[str] = frozenset(_ERROR_CODES) | {LIBRARY_MISMATCH}
PROCESS_KINDS = ("compute", "graphics")
_UUID_NAMESPACE = uuid.UUID("6ba7b811-9dad-11d1-80b4-00c04fd430c8")  # RFC 4122 URL namespace


def nvml_error(name: str) -> Exception:
    """The exception the real pynvml raises for the error ``name`` (``DriverNotLoaded``, ``GpuIsLost``...)."""
    if name == LIBRARY_MISMATCH:
        # The text pynvml's @throwOnVersionMismatch wrappers raise when a versioned symbol is missing.
        return pynvml.NVMLLibraryMismatchError(
            "Unversioned function called and the pyNVML version does not match the NVML lib version. "
            "Either use matching pyNVML and NVML lib versions or use a versioned function such as "
            "nvmlDeviceGetComputeRunningProcesses_v2"
        )
    if name not in _ERROR_CODES:
        raise ValueError(f"unknown NVML error name {name!r}; known: {sorted(ERROR_NAMES)}")
    return pynvml.NVMLError(_ERROR_CODES[name])


def fake_uuid(prefix: str, seed: str) -> str:
    """A stable UUID in NVML's shape: ``GPU-``/``MIG-`` then lowercase 8-4-4-4-12 hex digits."""
    return f"{prefix}-{uuid.uuid5(_UUID_NAMESPACE, seed)}"


@dataclass
class FakeProcess:
    pid: int
    used_memory: int | None  # bytes; None as NVML reports under Windows WDDM
    kind: str = "compute"  # "compute" or "graphics"; the same pid may be listed once of each kind
    gpu_instance_id: int | None = None  # None: not in a MIG instance (NVML says 0xFFFFFFFF)
    compute_instance_id: int | None = None


@dataclass
class FakeMig:
    """One MIG device (a compute instance of a GPU instance). ``None`` fields answer NotSupported."""

    uuid: str | None
    profile: str | None = "3g.40gb"  # the MIG device's name is "<GPU name> MIG <profile>"
    memory_total: int | None = 40448 * MIB
    memory_used: int = 44 * MIB
    memory_free: int | None = None  # None: total - used
    gpu_instance_id: int | None = 1
    compute_instance_id: int | None = 0
    failing: dict[str, str] = field(default_factory=dict)


@dataclass
class FakeGpu:
    """One physical GPU; the defaults describe an idle H100 SXM5 (see :func:`h100_sxm` for sources).

    A field set to ``None`` makes the matching query answer NotSupported; ``failing`` maps a
    function name (or ``"*"`` for all of them) to the NVML error name it raises instead.
    """

    name: str | None = "NVIDIA H100 80GB HBM3"
    uuid: str | None = fake_uuid("GPU", "h100-sxm/0")
    pci_bus_id: str | None = "00000000:18:00.0"
    pci_device_id: int = 0x233010DE  # (device << 16) | vendor, as nvmlPciInfo_t.pciDeviceId
    compute_capability: tuple[int, int] | None = (9, 0)
    memory_total: int | None = 81559 * MIB  # None: nvmlDeviceGetMemoryInfo answers NotSupported
    memory_used: int = 0  # allocated memory, as nvmlMemory_v2_t.used reports it
    memory_reserved: int | None = 336 * MIB  # None: only the v1 call answers
    memory_free: int | None = None  # None: total - reserved - used, as the driver computes it
    performance_state: int | None = 0  # 0..15 for P0..P15, or PSTATE_UNKNOWN
    pcie_gen_current: int | None = 5
    pcie_width_current: int | None = 16
    pcie_gen_max: int | None = 5  # what the GPU and the slot allow together
    pcie_width_max: int | None = 16
    pcie_gen_gpu_max: int | None = 5  # what the GPU alone supports
    c2c_enabled: bool | None = None  # NVLink-C2C to a Grace CPU; None: the query answers NotSupported
    mig_mode: bool | None = False  # None: the GPU answers NotSupported (no MIG)
    mig_mode_pending: bool | None = None  # None: same as mig_mode (no change waiting for a GPU reset)
    max_mig_devices: int | None = 7
    mig_devices: list[FakeMig | None] = field(default_factory=list)  # by slot; None is an empty slot
    processes: list[FakeProcess] | None = field(default_factory=list)  # None: both lists NotSupported
    failing: dict[str, str] = field(default_factory=dict)


# HGX H100 8-GPU baseboard bus ids, from `nvidia-smi --query-gpu=pci.bus_id` of such a server.
HGX_H100_BUS_IDS = (
    "00000000:18:00.0",
    "00000000:2A:00.0",
    "00000000:3A:00.0",
    "00000000:5D:00.0",
    "00000000:9A:00.0",
    "00000000:AB:00.0",
    "00000000:BA:00.0",
    "00000000:DB:00.0",
)
# A 4-GPU, 2-socket PCIe server carrying A100 80GB PCIe cards, from its nvidia-smi listing.
PCIE_SERVER_BUS_IDS = ("00000000:01:00.0", "00000000:25:00.0", "00000000:81:00.0", "00000000:C1:00.0")
WORKSTATION_BUS_IDS = ("00000000:01:00.0",)  # the first x16 slot of a desktop board


def _bus_id(table: Sequence[str], index: int) -> str:
    """The table's bus id for ``index``; further GPUs repeat the layout in the next PCI domain."""
    domain, slot = divmod(index, len(table))
    return f"{domain:08X}{table[slot][8:]}"


def h100_sxm(index: int, **overrides: Any) -> FakeGpu:
    """An idle H100 SXM5 80GB on an HGX board.

    Sources: H100 datasheet (80 GB HBM3, PCIe Gen5 x16, compute capability 9.0); nvidia-smi -q of
    HGX H100 servers: "NVIDIA H100 80GB HBM3", FB total 81559 MiB, Reserved 336 MiB and Used 0 MiB
    idle (driver 550.90.07), Device Id 0x233010DE, PCIe Generation Max/Current 5, Link Width
    16x/16x, Performance State P0, MIG Mode Disabled; nvmlDeviceGetMaxMigDeviceCount is 7.
    """
    gpu = FakeGpu(
        name="NVIDIA H100 80GB HBM3",
        uuid=fake_uuid("GPU", f"h100-sxm/{index}"),
        pci_bus_id=_bus_id(HGX_H100_BUS_IDS, index),
        pci_device_id=0x233010DE,
        compute_capability=(9, 0),
        memory_total=81559 * MIB,
        memory_used=0,
        memory_reserved=336 * MIB,
        performance_state=0,
        pcie_gen_current=5,
        pcie_width_current=16,
        pcie_gen_max=5,
        pcie_width_max=16,
        pcie_gen_gpu_max=5,
        mig_mode=False,
        max_mig_devices=7,
    )
    return dataclasses.replace(gpu, **overrides)


def a100_pcie(index: int, **overrides: Any) -> FakeGpu:
    """An idle A100 80GB PCIe card.

    Sources: A100 PCIe product brief (80 GB HBM2e, PCIe Gen4 x16, compute capability 8.0); pci.ids
    10de:20b5 "GA100 [A100 PCIe 80GB]"; nvidia-smi of such cards: "NVIDIA A100 80GB PCIe",
    81920 MiB, P0, MIG Disabled; the reserved carve-out is the 763 MiB nvidia-smi -q shows for the
    same 80 GB GA100 (driver 555.42.02); nvmlDeviceGetMaxMigDeviceCount is 7.
    """
    gpu = FakeGpu(
        name="NVIDIA A100 80GB PCIe",
        uuid=fake_uuid("GPU", f"a100-pcie/{index}"),
        pci_bus_id=_bus_id(PCIE_SERVER_BUS_IDS, index),
        pci_device_id=0x20B510DE,
        compute_capability=(8, 0),
        memory_total=81920 * MIB,
        memory_used=0,
        memory_reserved=763 * MIB,
        performance_state=0,
        pcie_gen_current=4,
        pcie_width_current=16,
        pcie_gen_max=4,
        pcie_width_max=16,
        pcie_gen_gpu_max=4,
        mig_mode=False,
        max_mig_devices=7,
    )
    return dataclasses.replace(gpu, **overrides)


def rtx_5090(index: int, **overrides: Any) -> FakeGpu:
    """An idle GeForce RTX 5090 in a desktop.

    Sources: RTX 5090 spec sheet (32 GB GDDR7, PCIe Gen5 x16, compute capability 12.0); nvidia-smi
    -q of an idle card (driver 570.124.06): "NVIDIA GeForce RTX 5090", Device Id 0x2B8510DE, FB
    total 32607 MiB, Reserved 487 MiB, Used 2 MiB, Performance State P8, PCIe Generation Max 5 /
    Current 1 and Link Width Max 16x / Current 8x (the link slows down when idle), MIG Mode N/A.
    """
    gpu = FakeGpu(
        name="NVIDIA GeForce RTX 5090",
        uuid=fake_uuid("GPU", f"rtx-5090/{index}"),
        pci_bus_id=_bus_id(WORKSTATION_BUS_IDS, index),
        pci_device_id=0x2B8510DE,
        compute_capability=(12, 0),
        memory_total=32607 * MIB,
        memory_used=2 * MIB,
        memory_reserved=487 * MIB,
        performance_state=8,
        pcie_gen_current=1,
        pcie_width_current=8,
        pcie_gen_max=5,
        pcie_width_max=16,
        pcie_gen_gpu_max=5,
        mig_mode=None,
        max_mig_devices=None,
    )
    return dataclasses.replace(gpu, **overrides)


# MIG device memory as nvidia-smi shows it on an idle slice: (total MiB, used MiB).
# H100 80GB 3g.40gb: the MPS-on-MIG example of NVIDIA's MPS documentation; A100 80GB 1g.10gb:
# an A100 80GB PCIe split into seven 1g.10gb slices (driver 535.129.03).
MIG_PROFILE_MEMORY: dict[tuple[str, str], tuple[int, int]] = {
    ("NVIDIA H100 80GB HBM3", "3g.40gb"): (40448, 44),
    ("NVIDIA A100 80GB PCIe", "1g.10gb"): (9728, 12),
}


def mig_slice(parent: FakeGpu, gpu_instance_id: int, profile: str = "3g.40gb", **overrides: Any) -> FakeMig:
    """A MIG device of ``parent`` in GPU instance ``gpu_instance_id`` (compute instance 0)."""
    total_mib, used_mib = MIG_PROFILE_MEMORY[(str(parent.name), profile)]
    mig = FakeMig(
        uuid=fake_uuid("MIG", f"{parent.uuid}/gi{gpu_instance_id}"),
        profile=profile,
        memory_total=total_mib * MIB,
        memory_used=used_mib * MIB,
        gpu_instance_id=gpu_instance_id,
        compute_instance_id=0,
    )
    return dataclasses.replace(mig, **overrides)


@dataclass(frozen=True)
class FakeHandle:
    """What nvmlDeviceGetHandleBy* return: a GPU, or one MIG slot of it."""

    gpu: int
    mig_slot: int | None = None


class _Auto(enum.Enum):
    AUTO = "auto"


AUTO = _Auto.AUTO

_BUS_ID_PARTS = ("domain", "bus", "device", "function")
_DOMAIN, _BUS, _DEVICE, _FUNCTION = (f"(?P<{part}>[0-9a-f]+)" for part in _BUS_ID_PARTS)
_BUS_ID_FORMS = (  # the formats nvmlDeviceGetHandleByPciBusId accepts (nvml.h), all hexadecimal
    re.compile(rf"{_DOMAIN}:{_BUS}:{_DEVICE}\.{_FUNCTION}", re.I),
    re.compile(rf"{_DOMAIN}:{_BUS}:{_DEVICE}", re.I),
    re.compile(rf"{_BUS}:{_DEVICE}\.{_FUNCTION}", re.I),
)
UUID_SHAPE = re.compile(r"(GPU|MIG)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def parse_bus_id(text: str) -> tuple[int, int, int, int] | None:
    """(domain, bus, device, function) of a PCI bus id in any form NVML accepts; None if malformed."""
    for form in _BUS_ID_FORMS:
        match = form.fullmatch(text.strip())
        if match:
            parts = match.groupdict()
            domain, bus, device, function = (int(parts.get(key) or "0", 16) for key in _BUS_ID_PARTS)
            return domain, bus, device, function
    return None


def _answer(value: Any) -> Any:
    """``value``, or NotSupported when the fake GPU leaves it unset."""
    if value is None:
        raise nvml_error("NotSupported")
    return value


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value


class FakeNvml:
    """The pynvml functions that torchdoctor uses, answered from a list of :class:`FakeGpu`.

    ``driver_version``, ``cuda_driver_version`` or ``nvml_version`` set to None answer
    NotSupported; ``failing`` maps system functions (``nvmlDeviceGetCount``...) to error names.
    """

    nvmlMemory_v2: int = pynvml.nvmlMemory_v2

    def __init__(
        self,
        gpus: Sequence[FakeGpu] = (),
        driver_version: str | None = "550.54.15",
        cuda_driver_version: int | None = 12040,
        init_error: str | None = None,
        no_v2_memory: bool = False,
        nvml_version: str | _Auto | None = AUTO,
        failing: Mapping[str, str] | None = None,
    ) -> None:
        self.gpus: list[FakeGpu] = list(gpus)
        self.driver_version = driver_version
        self.cuda_driver_version = cuda_driver_version
        self.nvml_version = _nvml_version(driver_version, cuda_driver_version, nvml_version)
        self.init_error = init_error
        self.no_v2_memory = no_v2_memory
        self.failing: dict[str, str] = dict(failing or {})
        self.calls: list[str] = []
        self.refcount = 0
        self._validate()

    def __getattr__(self, name: str) -> Any:
        # NVML constants and exception classes (NVML_*, NVMLError_*) are pynvml's own; functions the
        # fake lacks stay missing, as on a pynvml too old to have them.
        if name.startswith("NVML"):
            return getattr(pynvml, name)
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    @classmethod
    def from_snapshot(cls, snapshot: Mapping[str, Any]) -> FakeNvml:
        """A fake machine that answers like the one ``torchdoctor.machine.nvml.Snapshot.to_json()``
        recorded."""
        if not snapshot["available"]:
            return cls([], init_error=snapshot["error"])
        failing = {"nvmlDeviceGetCount": snapshot["error"]} if snapshot.get("error") else {}
        return cls(
            [_gpu_from_json(gpu) for gpu in snapshot["gpus"]],
            driver_version=snapshot["driver_version"],
            cuda_driver_version=snapshot["cuda_driver_version"],
            nvml_version=snapshot["nvml_version"],
            failing=failing,
        )

    # -- init and system ---------------------------------------------------------------------------

    def nvmlInit(self) -> None:
        self.calls.append("nvmlInit")
        if self.init_error is not None:
            raise nvml_error(self.init_error)
        self.refcount += 1

    def nvmlShutdown(self) -> None:
        self.calls.append("nvmlShutdown")
        if self.refcount == 0:
            raise nvml_error("Uninitialized")
        self.refcount -= 1

    def nvmlSystemGetDriverVersion(self) -> str:
        self._system("nvmlSystemGetDriverVersion")
        return _answer(self.driver_version)

    def nvmlSystemGetCudaDriverVersion(self) -> int:
        self._system("nvmlSystemGetCudaDriverVersion")
        return _answer(self.cuda_driver_version)

    def nvmlSystemGetNVMLVersion(self) -> str:
        self._system("nvmlSystemGetNVMLVersion")
        return _answer(self.nvml_version)

    def nvmlDeviceGetCount(self) -> int:
        self._system("nvmlDeviceGetCount")
        return len(self.gpus)

    # -- handles -----------------------------------------------------------------------------------

    def nvmlDeviceGetHandleByIndex(self, index: int) -> FakeHandle:
        self._system("nvmlDeviceGetHandleByIndex")
        if not 0 <= index < len(self.gpus):
            raise nvml_error("InvalidArgument")
        return self._found("nvmlDeviceGetHandleByIndex", FakeHandle(index))

    def nvmlDeviceGetHandleByUUID(self, uuid: str | bytes) -> FakeHandle:
        self._system("nvmlDeviceGetHandleByUUID")
        wanted = _text(uuid)
        for index, gpu in enumerate(self.gpus):
            if gpu.uuid == wanted:
                return self._found("nvmlDeviceGetHandleByUUID", FakeHandle(index))
            for slot, mig in enumerate(gpu.mig_devices):
                if gpu.mig_mode and mig is not None and mig.uuid == wanted:
                    return self._found("nvmlDeviceGetHandleByUUID", FakeHandle(index, slot))
        raise nvml_error("NotFound" if UUID_SHAPE.fullmatch(wanted) else "InvalidArgument")

    def nvmlDeviceGetHandleByPciBusId(self, pciBusId: str | bytes) -> FakeHandle:
        self._system("nvmlDeviceGetHandleByPciBusId")
        wanted = parse_bus_id(_text(pciBusId))
        if wanted is None:
            raise nvml_error("InvalidArgument")
        for index, gpu in enumerate(self.gpus):
            if gpu.pci_bus_id is not None and parse_bus_id(gpu.pci_bus_id) == wanted:
                return self._found("nvmlDeviceGetHandleByPciBusId", FakeHandle(index))
        raise nvml_error("NotFound")

    def nvmlDeviceGetMigDeviceHandleByIndex(self, device: FakeHandle, index: int) -> FakeHandle:
        gpu = self._whole_gpu("nvmlDeviceGetMigDeviceHandleByIndex", device, on_mig="InvalidArgument")
        slots = _answer(gpu.max_mig_devices if gpu.mig_mode is not None else None)
        if not 0 <= index < slots:
            raise nvml_error("InvalidArgument")
        if not gpu.mig_mode or index >= len(gpu.mig_devices) or gpu.mig_devices[index] is None:
            raise nvml_error("NotFound")
        return FakeHandle(device.gpu, index)

    # -- device queries ----------------------------------------------------------------------------

    def nvmlDeviceGetName(self, handle: FakeHandle) -> str:
        gpu, mig = self._device("nvmlDeviceGetName", handle)
        if mig is None:
            return _answer(gpu.name)
        return _answer(None if gpu.name is None or mig.profile is None else f"{gpu.name} MIG {mig.profile}")

    def nvmlDeviceGetUUID(self, handle: FakeHandle) -> str:
        gpu, mig = self._device("nvmlDeviceGetUUID", handle)
        return _answer(gpu.uuid if mig is None else mig.uuid)

    def nvmlDeviceGetPciInfo(self, handle: FakeHandle) -> pynvml.nvmlPciInfo_t:
        gpu, _ = self._device("nvmlDeviceGetPciInfo", handle)  # a MIG device reports its GPU's
        domain, bus, device, _function = parse_bus_id(_answer(gpu.pci_bus_id)) or (0, 0, 0, 0)
        # NVML prints bus ids as NVML_DEVICE_PCI_BUS_ID_FMT "%08X:%02X:%02X.0" and the legacy "%04X:...".
        return pynvml.nvmlPciInfo_t(
            busIdLegacy=f"{domain:04X}:{bus:02X}:{device:02X}.0".encode(),
            domain=domain,
            bus=bus,
            device=device,
            pciDeviceId=gpu.pci_device_id,
            busId=f"{domain:08X}:{bus:02X}:{device:02X}.0".encode(),
        )

    def nvmlDeviceGetCudaComputeCapability(self, handle: FakeHandle) -> tuple[int, int]:
        gpu, _ = self._device("nvmlDeviceGetCudaComputeCapability", handle)
        major, minor = _answer(gpu.compute_capability)
        return major, minor

    def nvmlDeviceGetMemoryInfo(self, handle: FakeHandle, version: int | None = None) -> Any:
        if version and self.no_v2_memory:  # the driver has no nvmlDeviceGetMemoryInfo_v2 symbol
            self._system("nvmlDeviceGetMemoryInfo")
            raise nvml_error("FunctionNotFound")
        gpu, mig = self._device("nvmlDeviceGetMemoryInfo", handle)
        if version and version != self.nvmlMemory_v2:
            raise nvml_error("ArgumentVersionMismatch")
        if mig is None:
            total, used, reserved, free = _gpu_memory(gpu, versioned=bool(version))
        else:
            total, used, reserved, free = _mig_memory(mig)
        if version:
            return pynvml.c_nvmlMemory_v2_t(version, total, reserved, free, used)  # in _fields_ order
        # v1 "used" is the "sum of reserved and allocated device memory" (nvml.h).
        return pynvml.c_nvmlMemory_t(total=total, free=free, used=used + reserved)

    def nvmlDeviceGetPerformanceState(self, handle: FakeHandle) -> int:
        return _answer(self._whole_gpu("nvmlDeviceGetPerformanceState", handle).performance_state)

    def nvmlDeviceGetMigMode(self, handle: FakeHandle) -> list[int]:
        gpu = self._whole_gpu("nvmlDeviceGetMigMode", handle)
        current = _answer(gpu.mig_mode)
        pending = current if gpu.mig_mode_pending is None else gpu.mig_mode_pending
        return [int(current), int(pending)]  # [NVML_DEVICE_MIG_ENABLE/DISABLE current, pending]

    def nvmlDeviceGetMaxMigDeviceCount(self, handle: FakeHandle) -> int:
        gpu = self._whole_gpu("nvmlDeviceGetMaxMigDeviceCount", handle)
        return _answer(gpu.max_mig_devices if gpu.mig_mode is not None else None)

    def nvmlDeviceGetGpuInstanceId(self, handle: FakeHandle) -> int:
        _, mig = self._device("nvmlDeviceGetGpuInstanceId", handle)
        return _answer(None if mig is None else mig.gpu_instance_id)  # a whole GPU is no MIG device

    def nvmlDeviceGetComputeInstanceId(self, handle: FakeHandle) -> int:
        _, mig = self._device("nvmlDeviceGetComputeInstanceId", handle)
        return _answer(None if mig is None else mig.compute_instance_id)

    def nvmlDeviceGetCurrPcieLinkGeneration(self, handle: FakeHandle) -> int:
        return _answer(self._whole_gpu("nvmlDeviceGetCurrPcieLinkGeneration", handle).pcie_gen_current)

    def nvmlDeviceGetCurrPcieLinkWidth(self, handle: FakeHandle) -> int:
        return _answer(self._whole_gpu("nvmlDeviceGetCurrPcieLinkWidth", handle).pcie_width_current)

    def nvmlDeviceGetMaxPcieLinkGeneration(self, handle: FakeHandle) -> int:
        return _answer(self._whole_gpu("nvmlDeviceGetMaxPcieLinkGeneration", handle).pcie_gen_max)

    def nvmlDeviceGetMaxPcieLinkWidth(self, handle: FakeHandle) -> int:
        return _answer(self._whole_gpu("nvmlDeviceGetMaxPcieLinkWidth", handle).pcie_width_max)

    def nvmlDeviceGetGpuMaxPcieLinkGeneration(self, handle: FakeHandle) -> int:
        return _answer(self._whole_gpu("nvmlDeviceGetGpuMaxPcieLinkGeneration", handle).pcie_gen_gpu_max)

    def nvmlDeviceGetC2cModeInfoV(self, handle: FakeHandle) -> pynvml.c_nvmlC2cModeInfo_v1_t:
        gpu = self._whole_gpu("nvmlDeviceGetC2cModeInfoV", handle)
        return pynvml.c_nvmlC2cModeInfo_v1_t(isC2cEnabled=int(_answer(gpu.c2c_enabled)))

    def nvmlDeviceGetComputeRunningProcesses(self, handle: FakeHandle) -> list[Any]:
        return self._processes("nvmlDeviceGetComputeRunningProcesses", handle, "compute")

    def nvmlDeviceGetGraphicsRunningProcesses(self, handle: FakeHandle) -> list[Any]:
        return self._processes("nvmlDeviceGetGraphicsRunningProcesses", handle, "graphics")

    # -- machinery ---------------------------------------------------------------------------------

    def _system(self, function: str) -> None:
        """Record a call; raise Uninitialized before nvmlInit, then any failure set for ``function``."""
        self.calls.append(function)
        if self.refcount == 0:
            raise nvml_error("Uninitialized")
        if function in self.failing:
            raise nvml_error(self.failing[function])

    def _found(self, function: str, handle: FakeHandle) -> FakeHandle:
        """``handle``, unless the device it names fails ``function``."""
        _raise_failure(self._target(handle), function)
        return handle

    def _device(self, function: str, handle: FakeHandle) -> tuple[FakeGpu, FakeMig | None]:
        self._system(function)
        gpu, mig = self._target(handle)
        _raise_failure((gpu, mig), function)
        return gpu, mig

    def _whole_gpu(self, function: str, handle: FakeHandle, on_mig: str = "NotSupported") -> FakeGpu:
        gpu, mig = self._device(function, handle)
        if mig is not None:
            raise nvml_error(on_mig)
        return gpu

    def _target(self, handle: FakeHandle) -> tuple[FakeGpu, FakeMig | None]:
        if not isinstance(handle, FakeHandle) or not 0 <= handle.gpu < len(self.gpus):
            raise nvml_error("InvalidArgument")
        gpu = self.gpus[handle.gpu]
        if handle.mig_slot is None:
            return gpu, None
        slots = gpu.mig_devices
        mig = slots[handle.mig_slot] if gpu.mig_mode and handle.mig_slot < len(slots) else None
        if mig is None:  # the MIG device was destroyed since the handle was taken
            raise nvml_error("InvalidArgument")
        return gpu, mig

    def _processes(self, function: str, handle: FakeHandle, kind: str) -> list[Any]:
        gpu, mig = self._device(function, handle)
        listed = [p for p in _answer(gpu.processes) if p.kind == kind]
        if mig is not None:
            listed = [p for p in listed if (p.gpu_instance_id, p.compute_instance_id) == _ids(mig)]
        return [process_record(p) for p in listed]

    def _validate(self) -> None:
        for name in [self.init_error, *self.failing.values()]:
            if name is not None:
                nvml_error(name)
        _check_functions(self.failing)
        for gpu in self.gpus:
            _validate_gpu(gpu)


def _nvml_version(driver: str | None, cuda: int | None, given: str | _Auto | None) -> str | None:
    """NVML's version is "<CUDA major>.<driver version>", e.g. "12.550.54.15"."""
    if given is not AUTO:
        return given
    return None if driver is None or cuda is None else f"{cuda // 1000}.{driver}"


def _raise_failure(target: tuple[FakeGpu, FakeMig | None], function: str) -> None:
    """Raise the error set for ``function`` on the device; a failing GPU takes its MIG devices along."""
    gpu, mig = target
    own = gpu.failing if mig is None else mig.failing
    name = own.get(function) or own.get(ANY_FUNCTION) or gpu.failing.get(ANY_FUNCTION)
    if name:
        raise nvml_error(name)


def _gpu_memory(gpu: FakeGpu, versioned: bool) -> tuple[int, int, int, int]:
    total = _answer(gpu.memory_total)
    reserved = gpu.memory_reserved or 0
    if versioned:
        reserved = _answer(gpu.memory_reserved)
    free = gpu.memory_free if gpu.memory_free is not None else total - reserved - gpu.memory_used
    return total, gpu.memory_used, reserved, free


def _mig_memory(mig: FakeMig) -> tuple[int, int, int, int]:
    total = _answer(mig.memory_total)
    free = mig.memory_free if mig.memory_free is not None else total - mig.memory_used
    return total, mig.memory_used, 0, free


def _ids(mig: FakeMig) -> tuple[int | None, int | None]:
    return mig.gpu_instance_id, mig.compute_instance_id


def process_record(process: FakeProcess) -> Any:
    """The record pynvml builds from nvmlProcessInfo_t (usedGpuMemory None when not available)."""
    return pynvml.nvmlFriendlyObject(
        {
            "pid": process.pid,
            "usedGpuMemory": process.used_memory,
            "gpuInstanceId": _instance_id(process.gpu_instance_id),
            "computeInstanceId": _instance_id(process.compute_instance_id),
        }
    )


def _instance_id(value: int | None) -> int:
    return NO_INSTANCE if value is None else value


_API = frozenset(name for name in vars(FakeNvml) if name.startswith("nvml") and name != "nvmlMemory_v2")


def _check_functions(failing: Mapping[str, str]) -> None:
    unknown = set(failing) - _API - {ANY_FUNCTION}
    if unknown:
        raise ValueError(f"failing names functions the fake does not have: {sorted(unknown)}")
    for name in failing.values():
        nvml_error(name)


def _validate_gpu(gpu: FakeGpu) -> None:
    _check_functions(gpu.failing)
    if gpu.pci_bus_id is not None and parse_bus_id(gpu.pci_bus_id) is None:
        raise ValueError(f"malformed PCI bus id {gpu.pci_bus_id!r}")
    for mig in gpu.mig_devices:
        if mig is not None:
            _check_functions(mig.failing)
    if gpu.max_mig_devices is not None and len(gpu.mig_devices) > gpu.max_mig_devices:
        raise ValueError(f"{len(gpu.mig_devices)} MIG slots on a GPU that has {gpu.max_mig_devices}")
    for process in gpu.processes or []:
        if process.kind not in PROCESS_KINDS:
            raise ValueError(f"process kind {process.kind!r} is not one of {PROCESS_KINDS}")


# -- replaying a recorded Snapshot -----------------------------------------------------------------

# Snapshot error keys (torchdoctor.machine.nvml) and the NVML function whose failure each records.
_FUNCTION_OF_ERROR_KEY = {
    "handle": "nvmlDeviceGetHandleByIndex",
    "name": "nvmlDeviceGetName",
    "uuid": "nvmlDeviceGetUUID",
    "pci": "nvmlDeviceGetPciInfo",
    "compute_capability": "nvmlDeviceGetCudaComputeCapability",
    "memory": "nvmlDeviceGetMemoryInfo",
    "performance_state": "nvmlDeviceGetPerformanceState",
    "mig_mode": "nvmlDeviceGetMigMode",
    "mig_max": "nvmlDeviceGetMaxMigDeviceCount",
    "pcie.gen_current": "nvmlDeviceGetCurrPcieLinkGeneration",
    "pcie.width_current": "nvmlDeviceGetCurrPcieLinkWidth",
    "pcie.gen_max": "nvmlDeviceGetMaxPcieLinkGeneration",
    "pcie.width_max": "nvmlDeviceGetMaxPcieLinkWidth",
    "pcie.gen_gpu_max": "nvmlDeviceGetGpuMaxPcieLinkGeneration",
    "processes.compute": "nvmlDeviceGetComputeRunningProcesses",
    "processes.graphics": "nvmlDeviceGetGraphicsRunningProcesses",
}


def _failing_from_errors(errors: Mapping[str, str]) -> dict[str, str]:
    unknown = set(errors) - set(_FUNCTION_OF_ERROR_KEY)
    if unknown:
        raise ValueError(f"the snapshot records errors the fake cannot replay: {sorted(unknown)}")
    return {_FUNCTION_OF_ERROR_KEY[key]: name for key, name in errors.items()}


def _gpu_from_json(gpu: Mapping[str, Any]) -> FakeGpu:
    pcie = gpu["pcie"]
    slots = _mig_slots(gpu["mig_devices"])
    fake = FakeGpu(
        name=gpu["name"],
        uuid=gpu["uuid"],
        pci_bus_id=gpu["pci_bus_id"],
        compute_capability=None if gpu["compute_capability"] is None else tuple(gpu["compute_capability"]),
        memory_total=gpu["memory_total_bytes"],
        memory_used=gpu["memory_used_bytes"] or 0,
        memory_reserved=gpu["memory_reserved_bytes"],
        performance_state=gpu["performance_state"],
        pcie_gen_current=pcie["gen_current"],
        pcie_width_current=pcie["width_current"],
        pcie_gen_max=pcie["gen_max"],
        pcie_width_max=pcie["width_max"],
        pcie_gen_gpu_max=pcie["gen_gpu_max"],
        mig_mode=gpu["mig_mode"],
        max_mig_devices=None if gpu["mig_mode"] is None else max(len(slots), 7),
        mig_devices=slots,
        processes=None if gpu["processes"] is None else [_process_from_json(p) for p in gpu["processes"]],
        failing=_failing_from_errors(gpu["errors"]),
    )
    fake.memory_free = _recorded_free(fake, gpu["memory_free_bytes"])
    return fake


def _recorded_free(fake: FakeGpu, free: int | None) -> int | None:
    """The recorded free memory where it differs from what the fake would derive, else None."""
    if free is None or fake.memory_total is None:
        return None
    derived = fake.memory_total - (fake.memory_reserved or 0) - fake.memory_used
    return None if free == derived else free


def _mig_slots(devices: Sequence[Mapping[str, Any]]) -> list[FakeMig | None]:
    slots: list[FakeMig | None] = [None] * (max((d["index"] for d in devices), default=-1) + 1)
    for device in devices:
        total, used, free = (device[f"memory_{part}_bytes"] for part in ("total", "used", "free"))
        slots[device["index"]] = FakeMig(
            uuid=device["uuid"],
            profile=None,
            memory_total=total,
            memory_used=used or 0,
            memory_free=None if total is None or free == total - (used or 0) else free,
            gpu_instance_id=device["gpu_instance_id"],
            compute_instance_id=device["compute_instance_id"],
        )
    return slots


def _process_from_json(process: Mapping[str, Any]) -> FakeProcess:
    return FakeProcess(
        pid=process["pid"],
        used_memory=process["used_memory_bytes"],
        kind=process["kind"],
        gpu_instance_id=process["gpu_instance_id"],
        compute_instance_id=process["compute_instance_id"],
    )


def from_env(environ: Mapping[str, str] = os.environ) -> FakeNvml | None:
    """The machine described by the Snapshot JSON file that ``FAKE_NVML_MACHINE`` names; None if unset."""
    path = environ.get(MACHINE_ENV)
    if not path:
        return None
    with open(path, encoding="utf-8") as file:
        return FakeNvml.from_snapshot(json.load(file))


BACKEND: FakeNvml | None = from_env()
