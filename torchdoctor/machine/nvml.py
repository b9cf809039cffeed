"""The one door to NVML (``pynvml`` from NVIDIA's ``nvidia-ml-py``).

:func:`query` returns plain dataclasses: ``None`` where the driver cannot say,
and NVML errors as names (``LibraryNotFound``, ``DriverNotLoaded``,
``LibRmVersionMismatch``...), never as exceptions. NVML ignores
CUDA_VISIBLE_DEVICES and never creates a CUDA context, so it is safe to call
in the worker before anything touches CUDA.

The backend is the ``pynvml`` module unless ``TORCHDOCTOR_NVML_BACKEND``
names another object with the same functions (``module:attribute``), which
is how the tests describe GPUs without having any.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from torchdoctor.plugin import Probe, resolve

BACKEND_ENV = "TORCHDOCTOR_NVML_BACKEND"
T = TypeVar("T")


@dataclass
class GpuProcess:
    pid: int
    used_memory_bytes: int | None
    kind: str  # "compute" or "graphics"
    gpu_instance_id: int | None = None
    compute_instance_id: int | None = None


@dataclass
class PcieLink:
    gen_current: int | None = None
    width_current: int | None = None
    gen_max: int | None = None  # what the device and the slot allow together
    width_max: int | None = None
    gen_gpu_max: int | None = None  # what the GPU alone supports


@dataclass
class MigDevice:
    index: int
    uuid: str | None
    memory_total_bytes: int | None
    memory_used_bytes: int | None
    memory_free_bytes: int | None
    gpu_instance_id: int | None
    compute_instance_id: int | None


@dataclass
class Gpu:
    index: int
    name: str | None
    uuid: str | None
    pci_bus_id: str | None
    compute_capability: list[int] | None
    memory_total_bytes: int | None
    memory_used_bytes: int | None
    memory_free_bytes: int | None
    memory_reserved_bytes: int | None
    performance_state: int | None
    mig_mode: bool | None
    mig_devices: list[MigDevice] = field(default_factory=list)
    pcie: PcieLink = field(default_factory=PcieLink)
    processes: list[GpuProcess] | None = None
    errors: dict[str, str] = field(default_factory=dict)


@dataclass
class Snapshot:
    available: bool
    error: str | None = None
    error_message: str | None = None
    driver_version: str | None = None
    cuda_driver_version: int | None = None  # 12080 means CUDA 12.8, as nvidia-smi's "CUDA Version"
    nvml_version: str | None = None
    gpus: list[Gpu] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def error_name(exc: BaseException) -> str:
    """``NVMLError_DriverNotLoaded`` -> ``DriverNotLoaded``; other exceptions keep their class name."""
    name = type(exc).__name__
    if name.startswith("NVMLError_"):
        return name[len("NVMLError_") :]
    if name == "NVMLLibraryMismatchError":
        return "LibraryMismatch"
    return name


def _text(value: Any) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


def load_backend() -> Any:
    """The pynvml module, or the object named by TORCHDOCTOR_NVML_BACKEND; None when it cannot be loaded."""
    return _load_backend()[0]


def _load_backend() -> tuple[Any, str]:
    target = os.environ.get(BACKEND_ENV) or "pynvml"
    try:
        backend: Any = resolve(target)
    except (ImportError, AttributeError) as exc:
        return None, f"cannot load the NVML bindings '{target}': {exc}"
    if backend is None:
        return None, f"the NVML bindings '{target}' are not set up"
    return backend, ""


class _Reader:
    """Calls NVML functions, recording the error name of each call that fails."""

    def __init__(self, nv: Any) -> None:
        self.nv = nv
        self.errors: dict[str, str] = {}

    def get(self, key: str, function: str, *args: Any) -> Any:
        """``nv.function(*args)``, or None with the error recorded under ``key`` (a missing function too)."""
        try:
            return getattr(self.nv, function)(*args)
        except Exception as exc:  # NVMLError and NVMLLibraryMismatchError share no base but Exception
            self.errors[key] = error_name(exc)
            return None


def query(backend: Any = None) -> Snapshot:
    nv, why = (backend, "") if backend is not None else _load_backend()
    if nv is None:
        return Snapshot(available=False, error="NotInstalled", error_message=why)
    try:
        nv.nvmlInit()
    except Exception as exc:
        return Snapshot(available=False, error=error_name(exc), error_message=str(exc))
    try:
        return _collect(nv)
    finally:
        with contextlib.suppress(Exception):
            nv.nvmlShutdown()


def _collect(nv: Any) -> Snapshot:
    system = _Reader(nv)
    snapshot = Snapshot(
        available=True,
        driver_version=_opt_text(system.get("driver_version", "nvmlSystemGetDriverVersion")),
        cuda_driver_version=system.get("cuda_driver_version", "nvmlSystemGetCudaDriverVersion"),
        nvml_version=_opt_text(system.get("nvml_version", "nvmlSystemGetNVMLVersion")),
    )
    count = system.get("device_count", "nvmlDeviceGetCount")
    if count is None:
        snapshot.error = system.errors["device_count"]
        return snapshot
    for index in range(count):
        snapshot.gpus.append(_gpu(nv, index))
    return snapshot


def _opt_text(value: Any) -> str | None:
    return None if value is None else _text(value)


def _gpu(nv: Any, index: int) -> Gpu:
    r = _Reader(nv)
    handle = r.get("handle", "nvmlDeviceGetHandleByIndex", index)
    if handle is None:
        return Gpu(index, None, None, None, None, None, None, None, None, None, None, errors=r.errors)
    pci = r.get("pci", "nvmlDeviceGetPciInfo", handle)
    cc = r.get("compute_capability", "nvmlDeviceGetCudaComputeCapability", handle)
    total, used, free, reserved = _memory(nv, r, handle)
    mig = r.get("mig_mode", "nvmlDeviceGetMigMode", handle)
    mig_mode = None if mig is None else bool(mig[0])
    gpu = Gpu(
        index=index,
        name=_opt_text(r.get("name", "nvmlDeviceGetName", handle)),
        uuid=_opt_text(r.get("uuid", "nvmlDeviceGetUUID", handle)),
        pci_bus_id=None if pci is None else _text(pci.busId),
        compute_capability=None if cc is None else [int(cc[0]), int(cc[1])],
        memory_total_bytes=total,
        memory_used_bytes=used,
        memory_free_bytes=free,
        memory_reserved_bytes=reserved,
        performance_state=_pstate(r.get("performance_state", "nvmlDeviceGetPerformanceState", handle)),
        mig_mode=mig_mode,
        pcie=_pcie(r, handle),
        processes=_processes(nv, r, handle),
    )
    if mig_mode:
        gpu.mig_devices = _mig_devices(nv, r, handle)
    # NotSupported is the normal answer of many GPUs to optional queries; keep the others, and the memory
    # query's: a GPU without memory of its own (unified memory: DGX Spark's GB10, Jetson) answers it so.
    gpu.errors = {k: v for k, v in r.errors.items() if v != "NotSupported" or k == "memory"}
    return gpu


def _pcie(r: _Reader, handle: Any) -> PcieLink:
    return PcieLink(
        gen_current=r.get("pcie.gen_current", "nvmlDeviceGetCurrPcieLinkGeneration", handle),
        width_current=r.get("pcie.width_current", "nvmlDeviceGetCurrPcieLinkWidth", handle),
        gen_max=r.get("pcie.gen_max", "nvmlDeviceGetMaxPcieLinkGeneration", handle),
        width_max=r.get("pcie.width_max", "nvmlDeviceGetMaxPcieLinkWidth", handle),
        gen_gpu_max=r.get("pcie.gen_gpu_max", "nvmlDeviceGetGpuMaxPcieLinkGeneration", handle),
    )


_PSTATE_UNKNOWN = 32  # NVML_PSTATE_UNKNOWN


def _pstate(value: Any) -> int | None:
    return None if value is None or int(value) == _PSTATE_UNKNOWN else int(value)


def _memory(nv: Any, r: _Reader, handle: Any) -> tuple[int | None, int | None, int | None, int | None]:
    version = getattr(nv, "nvmlMemory_v2", None)
    if version is not None:
        try:
            info = nv.nvmlDeviceGetMemoryInfo(handle, version=version)
            return int(info.total), int(info.used), int(info.free), int(info.reserved)
        except Exception:
            pass  # drivers before r510 have no v2: fall back to v1
    info = r.get("memory", "nvmlDeviceGetMemoryInfo", handle)
    if info is None:
        return None, None, None, None
    return int(info.total), int(info.used), int(info.free), None


def _processes(nv: Any, r: _Reader, handle: Any) -> list[GpuProcess] | None:
    found: dict[int, GpuProcess] = {}
    answered = False
    for kind, fn_name in (
        ("compute", "nvmlDeviceGetComputeRunningProcesses"),
        ("graphics", "nvmlDeviceGetGraphicsRunningProcesses"),
    ):
        procs = r.get(f"processes.{kind}", fn_name, handle) if hasattr(nv, fn_name) else None
        if procs is None:
            continue
        answered = True
        for p in procs:
            pid = int(p.pid)
            if pid in found:
                continue
            used = getattr(p, "usedGpuMemory", None)
            found[pid] = GpuProcess(
                pid=pid,
                used_memory_bytes=None if used is None else int(used),
                kind=kind,
                gpu_instance_id=_id_or_none(getattr(p, "gpuInstanceId", None)),
                compute_instance_id=_id_or_none(getattr(p, "computeInstanceId", None)),
            )
    return list(found.values()) if answered else None


def _id_or_none(value: Any) -> int | None:
    # NVML reports 0xFFFFFFFF for "no MIG instance".
    if value is None or int(value) == 0xFFFFFFFF:
        return None
    return int(value)


def _mig_devices(nv: Any, r: _Reader, handle: Any) -> list[MigDevice]:
    devices: list[MigDevice] = []
    slots = r.get("mig_max", "nvmlDeviceGetMaxMigDeviceCount", handle) or 0
    for slot in range(slots):
        try:
            mig = nv.nvmlDeviceGetMigDeviceHandleByIndex(handle, slot)
        except Exception as exc:
            if error_name(exc) != "NotFound":  # an empty slot answers NotFound; anything else is news
                r.errors[f"mig_slot.{slot}"] = error_name(exc)
            continue
        sub = _Reader(nv)
        info = sub.get("memory", "nvmlDeviceGetMemoryInfo", mig)
        devices.append(
            MigDevice(
                index=slot,
                uuid=_opt_text(sub.get("uuid", "nvmlDeviceGetUUID", mig)),
                memory_total_bytes=None if info is None else int(info.total),
                memory_used_bytes=None if info is None else int(info.used),
                memory_free_bytes=None if info is None else int(info.free),
                gpu_instance_id=sub.get("gi", "nvmlDeviceGetGpuInstanceId", mig),
                compute_instance_id=sub.get("ci", "nvmlDeviceGetComputeInstanceId", mig),
            )
        )
    return devices


@dataclass
class LinkReading:
    """The host link of one GPU at one moment, as :func:`read_link` reads it (``None`` where unknown).

    Read it while copies run, or right after: an idle GPU lowers its PCIe generation to save power,
    so only a reading in P0 under load says what the link negotiated (research/memory_bandwidth.md
    §2.8, after DCGM's pcie plugin).
    """

    pci_bus_id: str
    available: bool
    error: str | None = None
    pcie: PcieLink = field(default_factory=PcieLink)
    performance_state: int | None = None
    c2c_enabled: bool | None = None  # NVLink-C2C to the CPU (Grace Hopper, Grace Blackwell)
    errors: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@contextlib.contextmanager
def session(backend: Any = None) -> Iterator[bool]:
    """Keep NVML initialised across several calls; yields whether it started.

    nvmlInit is reference-counted, so :func:`read_link` and :func:`query` inside a session pay for
    a counter instead of loading the driver's state again (which takes a while on a large machine).
    """
    nv, _ = (backend, "") if backend is not None else _load_backend()
    started = False
    if nv is not None:
        try:
            nv.nvmlInit()
            started = True
        except Exception:
            started = False
    try:
        yield started
    finally:
        if started:
            with contextlib.suppress(Exception):
                nv.nvmlShutdown()


# Answers that mean "this GPU, driver or binding has no such query", not a fault of the GPU.
_NOT_AN_ANSWER = ("NotSupported", "FunctionNotFound", "AttributeError")


def read_link(pci_bus_id: str, backend: Any = None) -> LinkReading:
    """The current and maximum link of the GPU at ``pci_bus_id``, its P-state and whether C2C is on."""
    nv, why = (backend, "") if backend is not None else _load_backend()
    if nv is None:
        return LinkReading(pci_bus_id, available=False, error="NotInstalled", errors={"load": why})
    try:
        nv.nvmlInit()
    except Exception as exc:
        return LinkReading(pci_bus_id, available=False, error=error_name(exc))
    try:
        r = _Reader(nv)
        handle = r.get("handle", "nvmlDeviceGetHandleByPciBusId", pci_bus_id)
        if handle is None:
            return LinkReading(pci_bus_id, available=True, error=r.errors["handle"])
        pcie = _pcie(r, handle)
        pstate = _pstate(r.get("performance_state", "nvmlDeviceGetPerformanceState", handle))
        c2c = r.get("c2c", "nvmlDeviceGetC2cModeInfoV", handle)
        return LinkReading(
            pci_bus_id,
            available=True,
            pcie=pcie,
            performance_state=pstate,
            c2c_enabled=None if c2c is None else bool(c2c.isC2cEnabled),
            errors={k: v for k, v in r.errors.items() if v not in _NOT_AN_ANSWER},
        )
    finally:
        with contextlib.suppress(Exception):
            nv.nvmlShutdown()


def gpus_in(facts: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The GPUs of an ``nvml`` probe's facts (a Snapshot's JSON); none when NVML was not available."""
    return list(facts.get("gpus") or []) if facts.get("available") else []


def probe(options: Mapping[str, Any]) -> dict[str, Any]:
    """The ``nvml`` probe: what NVML says about the driver and every GPU (CUDA_VISIBLE_DEVICES ignored)."""
    return query().to_json()


PROBE = Probe.of("nvml", probe)
"""The ``nvml`` probe, as every check that needs NVML's facts names it."""
