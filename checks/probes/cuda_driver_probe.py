"""The ``cuda_driver`` probe: which GPUs the CUDA driver itself exposes to this process.

The driver applies CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER at cuInit, so
asking it through libcuda (cuInit, cuDeviceGetCount, cuDeviceGetUuid) gives
the ground truth of the cuda:N -> physical GPU mapping, the way nvitop
resolves it. None of these calls creates a CUDA context.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from torchdoctor.machine import pci

CUDA_SUCCESS = 0
CUDA_ERROR_NO_DEVICE = 100
_ATTR_CC_MAJOR = 75
_ATTR_CC_MINOR = 76


def _library_names() -> tuple[str, ...]:
    if sys.platform == "win32":
        return ("nvcuda.dll",)
    if sys.platform == "darwin":
        return ()
    return ("libcuda.so.1", "libcuda.so")


def _load() -> tuple[Any, str | None]:
    last_error = "no CUDA driver library on this platform"
    for name in _library_names():
        try:
            return ctypes.CDLL(name), None
        except OSError as exc:
            last_error = str(exc)
    return None, last_error


def _error_name(lib: Any, code: int) -> str:
    name = ctypes.c_char_p()
    try:
        if lib.cuGetErrorName(code, ctypes.byref(name)) == CUDA_SUCCESS and name.value:
            return name.value.decode()
    except AttributeError:
        pass
    return f"CUDA error {code}"


def format_uuid(raw: bytes) -> str:
    """16 bytes as the 8-4-4-4-12 hex form, without the GPU-/MIG- prefix (as torch prints it)."""
    h = raw.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def _files() -> dict[str, Any]:
    version_file = Path("/proc/driver/nvidia/version")
    try:
        first_line = version_file.read_text(errors="replace").splitlines()[0].strip()
    except (OSError, IndexError):
        first_line = None
    try:
        nodes = sorted(p.name for p in Path("/dev").glob("nvidia*"))
    except OSError:
        nodes = []
    return {"proc_driver_version": first_line, "dev_nodes": nodes}


def probe(options: Mapping[str, Any]) -> dict[str, Any]:
    facts: dict[str, Any] = {
        "library": None,
        "load_error": None,
        "init_error": None,
        "driver_cuda_version": None,
        "device_count": None,
        "devices": [],
        **_files(),
        # the GPUs on the bus, by vendor: an AMD or Intel GPU is one this driver cannot expose
        "pci_gpus": pci.probe(),
    }
    lib, error = _load()
    if lib is None:
        facts["load_error"] = error
        return facts
    facts["library"] = getattr(lib, "_name", None)
    version = ctypes.c_int()
    if lib.cuDriverGetVersion(ctypes.byref(version)) == CUDA_SUCCESS:
        facts["driver_cuda_version"] = version.value
    code = lib.cuInit(0)
    if code == CUDA_ERROR_NO_DEVICE:
        facts["device_count"] = 0
        facts["init_error"] = _error_name(lib, code)
        return facts
    if code != CUDA_SUCCESS:
        facts["init_error"] = _error_name(lib, code)
        return facts
    count = ctypes.c_int()
    if lib.cuDeviceGetCount(ctypes.byref(count)) != CUDA_SUCCESS:
        return facts
    facts["device_count"] = count.value
    facts["devices"] = [_device(lib, ordinal) for ordinal in range(count.value)]
    return facts


def _device(lib: Any, ordinal: int) -> dict[str, Any]:
    device = ctypes.c_int()
    info: dict[str, Any] = {
        "ordinal": ordinal,
        "uuid": None,
        "pci_bus_id": None,
        "name": None,
        "capability": None,
    }
    if lib.cuDeviceGet(ctypes.byref(device), ordinal) != CUDA_SUCCESS:
        return info
    uuid = (ctypes.c_ubyte * 16)()
    # cuDeviceGetUuid_v2 gives the MIG instance's own UUID where v1 gives the parent GPU's.
    get_uuid = getattr(lib, "cuDeviceGetUuid_v2", None) or lib.cuDeviceGetUuid
    if get_uuid(ctypes.byref(uuid), device) == CUDA_SUCCESS:
        info["uuid"] = format_uuid(bytes(uuid))
    bus = ctypes.create_string_buffer(64)
    if lib.cuDeviceGetPCIBusId(bus, 64, device) == CUDA_SUCCESS:
        info["pci_bus_id"] = bus.value.decode(errors="replace")
    name = ctypes.create_string_buffer(256)
    if lib.cuDeviceGetName(name, 256, device) == CUDA_SUCCESS:
        info["name"] = name.value.decode(errors="replace")
    major, minor = ctypes.c_int(), ctypes.c_int()
    if (
        lib.cuDeviceGetAttribute(ctypes.byref(major), _ATTR_CC_MAJOR, device) == CUDA_SUCCESS
        and lib.cuDeviceGetAttribute(ctypes.byref(minor), _ATTR_CC_MINOR, device) == CUDA_SUCCESS
    ):
        info["capability"] = [major.value, minor.value]
    return info
