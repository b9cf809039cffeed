"""The ``pci_gpus`` probe: GPUs on the PCI bus by vendor, read from a sysfs tree as Linux lays it out."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from torchdoctor.machine import pci


def _device(root: Path, slot: str, vendor: str, device: str, device_class: str) -> None:
    folder = root / slot
    folder.mkdir(parents=True)
    for name, value in (("vendor", vendor), ("device", device), ("class", device_class)):
        (folder / name).write_text(value + "\n")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="sysfs is Linux's")
def test_display_and_accelerator_devices_are_listed_by_vendor(tmp_path: Path) -> None:
    # an RX 7900 XTX (0x744c, VGA), an Intel iGPU (0x0300 class), a MI250X (0x1002:0x740c, display 0x0380),
    # an NVMe controller (class 0x0108) and a Gaudi-style accelerator (class 0x1200)
    _device(tmp_path, "0000:03:00.0", "0x1002", "0x744c", "0x030000")
    _device(tmp_path, "0000:00:02.0", "0x8086", "0xa780", "0x030000")
    _device(tmp_path, "0000:c1:00.0", "0x1002", "0x740c", "0x038000")
    _device(tmp_path, "0000:01:00.0", "0x144d", "0xa808", "0x010802")
    _device(tmp_path, "0000:b3:00.0", "0x1da3", "0x1020", "0x120000")
    facts = pci.probe(tmp_path)
    assert facts["readable"] is True
    assert [(d["vendor"], d["device_id"]) for d in facts["devices"]] == [
        ("intel", "0xa780"),
        ("amd", "0x744c"),
        ("other", "0x1020"),
        ("amd", "0x740c"),
    ]
    assert pci.vendors(facts) == {"amd", "intel", "other"}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="sysfs is Linux's")
def test_a_bus_that_cannot_be_listed_is_said_not_read(tmp_path: Path) -> None:
    facts = pci.probe(tmp_path / "absent")
    assert facts["readable"] is False and "cannot list" in facts["reason"]
    assert pci.vendors(facts) == set()


def test_another_platform_reads_no_bus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pci.sys, "platform", "win32")
    facts = pci.probe()
    assert facts == {"readable": False, "reason": "no PCI listing read on win32 (Linux's sysfs only)"}


def test_vendors_of_malformed_facts_are_none() -> None:
    assert pci.vendors(None) == set() and pci.vendors({"readable": True, "devices": "x"}) == set()
