"""The graphics and compute devices on the PCI bus, by vendor, as Linux's sysfs lists them
(``/sys/bus/pci/devices/*/{vendor,device,class}``): the ``pci_gpus`` fact of the ``cuda_driver`` probe. It
says whether a machine without an NVIDIA driver has an AMD or an Intel GPU, which NVML, CUDA and a CUDA build
of torch cannot see. No driver is loaded and no device is opened; on a platform without sysfs the facts say
the bus was not read."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

SYSFS = Path("/sys/bus/pci/devices")
VENDORS = {"0x10de": "nvidia", "0x1002": "amd", "0x8086": "intel"}
# PCI base classes: 0x03 display controllers (VGA, 3D: every GPU), 0x12 processing accelerators
_GPU_CLASSES = ("0x03", "0x12")
_MAX_DEVICES = 512  # a bus lists a few dozen; a bound on what is read, not a limit a machine meets
_MAX_READ = 64


def _read(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            return handle.read(_MAX_READ).decode("ascii", "replace").strip().lower()
    except OSError:
        return None


def _devices(root: Path) -> Iterator[dict[str, Any]]:
    for count, folder in enumerate(sorted(root.iterdir())):
        if count >= _MAX_DEVICES:
            return
        device_class = _read(folder / "class") or ""
        if not device_class.startswith(_GPU_CLASSES):
            continue
        vendor_id = _read(folder / "vendor") or ""
        yield {
            "vendor": VENDORS.get(vendor_id, "other"),
            "vendor_id": vendor_id,
            "device_id": _read(folder / "device"),
            "class": device_class,
        }


def probe(root: Path = SYSFS) -> dict[str, Any]:
    if not sys.platform.startswith("linux"):
        return {"readable": False, "reason": f"no PCI listing read on {sys.platform} (Linux's sysfs only)"}
    try:
        devices = list(_devices(root))
    except OSError as error:
        return {"readable": False, "reason": f"cannot list {root}: {error.strerror or error}"}
    return {"readable": True, "devices": devices}


def vendors(facts: Any) -> set[str]:
    """The GPU vendors a ``pci_gpus`` fact lists (empty when the bus was not read)."""
    if not isinstance(facts, dict) or not facts.get("readable"):
        return set()
    return {str(d.get("vendor")) for d in facts.get("devices") or [] if isinstance(d, dict)}
