"""Which GPUs, or MIG slices, a job started in this environment gets.

The CUDA driver's own answer (``cuda_driver`` probe: the UUID behind each cuda:N, with
CUDA_VISIBLE_DEVICES already applied) is the truth; where the driver could not be asked, the
answer is predicted from CUDA_VISIBLE_DEVICES with :mod:`cvd`, as ``cuda.visible_devices`` does.
Pure: facts in, records out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from torchdoctor.checks.devices import cvd
from torchdoctor.machine import nvml


@dataclass(frozen=True)
class JobGpu:
    device: str  # "cuda:0"
    gpu: Mapping[str, Any] | None  # the NVML record of the physical GPU (the parent of a MIG slice)
    mig: Mapping[str, Any] | None  # the NVML record of the MIG device when the job gets a slice
    uuid: str | None


def in_cuda_order(gpus: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """GPUs in CUDA's enumeration order as far as NVML can tell: PCI bus order.

    That is CUDA's order under CUDA_DEVICE_ORDER=PCI_BUS_ID, and in practice under the default
    FASTEST_FIRST for the identical GPUs of a server (research/cuda_semantics.md §2).
    """
    return sorted(gpus, key=lambda g: str(g.get("pci_bus_id") or "").lower())


def resolve(raw: str | None, ordered: Sequence[Mapping[str, Any]]) -> cvd.Resolution:
    """CUDA_VISIBLE_DEVICES resolved against GPUs given in CUDA's order."""
    return cvd.resolve(cvd.parse(raw), [str(g.get("uuid") or "") for g in ordered])


def job_gpus(
    nv: Mapping[str, Any], driver: Mapping[str, Any], variables: Mapping[str, str]
) -> tuple[list[JobGpu], str]:
    """The job's devices in cuda:N order, and where the answer came from: ``driver`` or ``model``."""
    gpus = nvml.gpus_in(nv)
    if driver.get("device_count") is not None:
        return _from_driver(gpus, driver.get("devices") or []), "driver"
    ordered = in_cuda_order(gpus)
    resolution = resolve(variables.get("CUDA_VISIBLE_DEVICES"), ordered)
    found = [
        JobGpu(f"cuda:{n}", ordered[pos], None, ordered[pos].get("uuid"))
        for n, pos in enumerate(resolution.visible)
    ]
    for entry in resolution.mig:
        parent, mig = _mig_by_prefix(gpus, entry)
        found.append(JobGpu(f"cuda:{len(found)}", parent, mig, None if mig is None else mig.get("uuid")))
    return found, "model"


def _from_driver(gpus: Sequence[Mapping[str, Any]], devices: Sequence[Mapping[str, Any]]) -> list[JobGpu]:
    by_uuid = {str(g.get("uuid")): g for g in gpus}
    migs = {str(m.get("uuid")): (g, m) for g in gpus for m in g.get("mig_devices") or []}
    found = []
    for device in devices:
        raw = str(device.get("uuid"))
        label = f"cuda:{device.get('ordinal')}"
        if f"GPU-{raw}" in by_uuid:
            found.append(JobGpu(label, by_uuid[f"GPU-{raw}"], None, f"GPU-{raw}"))
        elif f"MIG-{raw}" in migs:
            parent, mig = migs[f"MIG-{raw}"]
            found.append(JobGpu(label, parent, mig, f"MIG-{raw}"))
        else:  # the driver sees a device NVML does not list
            found.append(JobGpu(label, None, None, raw))
    return found


def _mig_by_prefix(
    gpus: Sequence[Mapping[str, Any]], entry: str
) -> tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]:
    for gpu in gpus:
        for mig in gpu.get("mig_devices") or []:
            if str(mig.get("uuid") or "").startswith(entry):
                return gpu, mig
    return None, None
