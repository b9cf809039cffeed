"""torch.build on the machines of tests/corpus/machines: real machines users showed in public issues, one
class of wrong verdict each (a fix the hardware cannot take, a build for another vendor, a platform minimum,
no PTX, a dropped architecture, an unpublished wheel, a newer driver branch).

A machine is judged from its collect_env dump where it has one, else from what its record states: the torch
build, the OS, the driver, and each GPU's compute capability (printed by torch, or the model's published one,
as the dump reader takes it). Machines whose record does not state enough to judge are listed apart, with
why, so that every record is accounted for."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from torchdoctor.checks.install.build_check import CHECK
from torchdoctor.inputs import collect_env

MACHINES = Path(__file__).resolve().parents[2] / "corpus" / "machines"

# record -> (status, words the verdict must say, words it must not say)
EXPECTED: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    # 1: the GPU's last driver branch ends before the build's CUDA: never "update the driver"
    "1_geforce210_driver342_torch12": ("fail", ("R340 branch",), ("Update the NVIDIA driver",)),
    # 3: torch 2.9+ needs macOS 14 for MPS
    "3_m2max_macos13_torch210_mps": ("warn", ("macOS 14.0", "13.7.4"), ()),
    # 4: builds without PTX for a newer GPU
    "4_rtx5090d_torch260_cu126": ("fail", ("no kernels for it",), ("unless it ships PTX",)),
    "4_2x_rtx5090_torch27dev_cu124": ("fail", ("no kernels for it",), ("unless it ships PTX",)),
    "4_rtx5080_windows_torch27dev_cu124": ("fail", ("no kernels for it",), ("unless it ships PTX",)),
    # 5: an architecture the build dropped
    "5_p100_torch280_cu128": ("fail", ("no kernels for it", "torch==2.8.0+cu126"), ()),
    "5_kaggle_p100_torch2100_cu128": ("fail", ("no kernels for it", "torch==2.10.0+cu126"), ()),
    "5_gtx1070_windows_torch280_cu129": ("fail", ("no kernels for it", "torch==2.8.0+cu126"), ()),
    # 7: a driver of a newer branch than the build needs runs it: no driver advice at all
    "7_8xb200_driver590_torch211_cu130": ("pass", (), ("Update the NVIDIA driver", "a newer release")),
    "7_dgx_spark_gb10_driver580_torch291_cu130": (
        "pass",
        (),
        ("Update the NVIDIA driver", "a newer release"),
    ),
}

# record -> why it is not judged here (what its public thread does not show)
NOT_JUDGED: dict[str, str] = {
    "1_k80_torch271_cu118": "no driver version shown: what it may run is not stated",
    "2_radeon890m_gfx1150_cu130": "an AMD-only machine: no NVIDIA facts, no AMD probe facts",
    "2_rx6650xt_invoke_cuda_fallback": "no installed build label (a pip fallback to the CUDA wheel)",
    "2_rx7900xtx_pypi_torch260": "an AMD-only machine: no AMD probe facts to judge the CUDA wheel by",
    "2_t4_rocm60_nightly": "the ROCm nightly's version is not stated",
    "3_centos79_glibc217_torch251": "a conda build failing to import: the dump gives no glibc requirement",
    "3_intel_mac_i9_py314_torch291": "a release that was never installed (pip found no wheel)",
    "3_intel_mac_py3123_torch241": "a release that was never installed (pip found no wheel)",
    "3_m1_macos12_torch251_mps": "no build facts beyond the version: MPS state not shown",
    "3_ubuntu1804_glibc227_torch270": "a release never installed (pip found no manylinux_2_28 wheel)",
    "4_a100_driver450_torch_sm70max": "the torch version is not stated",
    "4_rtx5090_driver590_torch251_cu121": "no build label (installed from the cu121 index)",
    "4_rtx5090_torch201_cu118": "no build label (the CUDA version is stated apart)",
    "5_gtx1070_torch280_cu129_cu128_works": "neither the OS nor the driver is shown",
    "5_gtx1070ti_docker_sm70_build": "the torch version is not stated",
    "5_gtx1080ti_unraid_docker_sm70_build": "the torch version is not stated",
    "5_gtx1080ti_windows10_torch280_cu128": "the stated build is doubtful (the portable build is cu129)",
    "6_blackwell_torch260_cu128_never_published": "a requested install, not an installed build",
    "6_rtx50_pinned_nightly_gone": "a pinned nightly, no GPU named",
    "6_torch210_cu121_fix_names_260_cu121": "a requested install, no GPU named",
    "6_windows_py313_torch251_cu124": "a requested install, no GPU named",
    "7_b200_driver610_cuda133": "the torch version is not stated",
}


def _records() -> dict[str, dict[str, Any]]:
    return {path.stem: json.loads(path.read_text("utf-8")) for path in sorted(MACHINES.glob("*.json"))}


def _facts(record: dict[str, Any]) -> dict[str, Any]:
    text = record.get("text", "")
    dump = collect_env.find(text) if "PyTorch version" in text else None
    if dump is not None:
        facts: dict[str, Any] = dump.to_report("machine")["facts"]
        return facts
    version = str(record["torch"]).split()[0]
    label = version.partition("+")[2]
    cuda = f"{label[2:-1]}.{label[-1]}" if label.startswith("cu") else None
    system = (record.get("os") or "Linux").lower()
    torch = {
        "importable": True,
        "version": version,
        "flavor": "cuda" if cuda else "cpu",
        "cuda": cuda,
        "os": {"system": "Windows" if "windows" in system else "Linux", "wsl": False},
    }
    gpus = []
    for index, gpu in enumerate(record.get("gpus") or []):
        cc = gpu.get("compute_capability") or collect_env.compute_capability(gpu["name"])
        gpus.append({"index": index, "name": gpu["name"], "compute_capability": list(cc) if cc else None})
    driver = re.search(r"\d+\.\d+(?:\.\d+)?", record.get("driver") or "")
    nvml = {"available": True, "gpus": gpus, "driver_version": driver.group(0) if driver else None}
    return {"torch": torch, "nvml": nvml, "cuda_driver": {}}


def test_every_machine_is_judged_or_says_why_not() -> None:
    names = set(_records())
    assert names == set(EXPECTED) | set(NOT_JUDGED)
    assert not set(EXPECTED) & set(NOT_JUDGED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_machine_gets_the_verdict_its_thread_shows(name: str) -> None:
    facts = _facts(_records()[name])
    verdict = CHECK.judge({probe.name: facts.get(probe.name, {}) for probe in CHECK.probes}, {})
    status, says, never = EXPECTED[name]
    text = " ".join([verdict.summary, *map(str, verdict.details)])
    if verdict.fix is not None:
        text += " " + verdict.fix.text + " " + " ".join(verdict.fix.commands)
    assert verdict.status.value == status, (verdict.summary, text)
    assert all(word in text for word in says), text
    assert not any(word in text for word in never), text
