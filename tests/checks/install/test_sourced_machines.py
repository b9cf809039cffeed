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

from torchdoctor.checks.install import builds
from torchdoctor.checks.install.build_check import CHECK
from torchdoctor.inputs import collect_env

MACHINES = Path(__file__).resolve().parents[2] / "corpus" / "machines"

# Where a record does not show the driver, a fix may say which driver a build needs, never that the driver
# must be updated: none of these threads' fixes touched it.
_NO_DRIVER_SHOWN = ("Update the NVIDIA driver",)

# record -> (status, words the verdict must say, words it must not say)
EXPECTED: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    # 1: the GPU's last driver branch ends before the build's CUDA: never "update the driver"
    "1_geforce210_driver342_torch12": ("fail", ("R340 branch",), ("Update the NVIDIA driver",)),
    # 2: a build for another vendor: a ROCm nightly (the index it came from is stated) on an NVIDIA T4
    "2_t4_rocm60_nightly": ("fail", ("runs on AMD GPUs only", "built for CUDA"), ("torch None",)),
    # 2 the other way: a CUDA build where the only GPU is AMD. The threads' labels say fail (the program
    # needed the GPU); torch.build warns, since by its PCI ids an integrated Radeon looks like a discrete one.
    "2_rx7900xtx_pypi_torch260": ("warn", ("whose GPU is AMD", "whl/rocm6.2.4"), ()),
    "2_radeon890m_gfx1150_cu130": ("warn", ("whose GPU is AMD", "whl/rocm7.2"), ()),
    # 3: torch 2.9+ needs macOS 14 for MPS
    "3_m2max_macos13_torch210_mps": ("warn", ("macOS 14.0", "13.7.4"), ()),
    # the error names 12.3; 2.5's MPS needs macOS 13 (pytorch/pytorch#133141), as the maintainer answered
    "3_m1_macos12_torch251_mps": ("warn", ("macOS 13.0", "12.7.6"), ("12.3+ is enough",)),
    # 4: builds without PTX for a newer GPU
    "4_rtx5090d_torch260_cu126": ("fail", ("no kernels for it",), ("unless it ships PTX",)),
    "4_2x_rtx5090_torch27dev_cu124": ("fail", ("no kernels for it",), ("unless it ships PTX",)),
    "4_rtx5080_windows_torch27dev_cu124": (
        "fail",
        ("no kernels for it",),
        ("unless it ships PTX", *_NO_DRIVER_SHOWN),
    ),
    # 5: an architecture the build dropped
    "5_p100_torch280_cu128": ("fail", ("no kernels for it", "torch==2.8.0+cu126"), _NO_DRIVER_SHOWN),
    "5_kaggle_p100_torch2100_cu128": ("fail", ("no kernels for it", "torch==2.10.0+cu126"), _NO_DRIVER_SHOWN),
    "5_gtx1070_windows_torch280_cu129": (
        "fail",
        ("no kernels for it", "torch==2.8.0+cu126"),
        _NO_DRIVER_SHOWN,
    ),
    "5_v100_windows_torch2110_cu128_no_kernel": (
        "fail",
        ("no kernels for it", "cu126"),
        ("Update the NVIDIA driver",),
    ),
    # 4 and 5 from a collect_env dump: the build's arch list stops below the GPU
    "4_h100pcie_torch201_cu117_driver535": (
        "fail",
        ("no kernels for it", "cu118"),
        ("Update the NVIDIA driver",),
    ),
    # 7: a driver of a newer branch than the build needs runs it: no driver advice at all
    "7_8xb200_driver590_torch211_cu130": ("pass", (), ("Update the NVIDIA driver", "a newer release")),
    "7_7xrtx4090_driver550_torch251_cu124": ("pass", (), ("Update the NVIDIA driver", "a newer release")),
    "7_dgx_spark_gb10_driver580_torch291_cu130": (
        "pass",
        (),
        ("Update the NVIDIA driver", "a newer release"),
    ),
}

_AMD_ONLY = "an AMD-only machine: no AMD probe facts to judge the CUDA wheel by"

# record -> why it is not judged here (what its public thread does not show)
NOT_JUDGED: dict[str, str] = {
    "1_k80_torch271_cu118": "no driver version shown: what it may run is not stated",
    "1_2xk80_driver470_textgen_exllama": "no torch version shown (a web UI's own install)",
    "2_rx6650xt_invoke_cuda_fallback": "no installed build label (a pip fallback to the CUDA wheel)",
    "3_centos79_glibc217_torch251": "a conda build failing to import: the dump gives no glibc requirement",
    "3_intel_mac_i9_py314_torch291": "a release that was never installed (pip found no wheel)",
    "3_intel_mac_py3123_torch241": "a release that was never installed (pip found no wheel)",
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
    "1_gt540m_fermi_driver390_debian12": "no torch version shown",
    "2_amd_cachyos_py313_torch271_comfyui": _AMD_ONLY,
    "2_amd_ubuntu_docker_pypi_torch251_sdrocm": _AMD_ONLY,
    "2_radeon6750_ubuntu2204_custom_node_cuda_torch": "no torch version shown",
    "3_centos67_glibc212_torch031_conda": "torch 0.3.1: older than the tables (they start at 1.12)",
    "3_centos68_glibc212_torch10_conda": "torch 1.0: older than the tables (they start at 1.12)",
    "3_intel_mac_torch251_no_wheel_marker": "a release that was never installed (pip found no wheel)",
    "3_macos1276_mps_fastai_dataloaders": "no torch version shown",
    "3_m1_macos1221_torch113dev_mps": "torch 1.13: the build tables (each line's MPS macOS) start at 2.0",
    "3_py310_torch1100_cu113_no_wheel": "a requested install, not an installed build",
    "3_rhel64_glibc_torch12_conda_cuda100": "torch 1.2: older than the tables (they start at 1.12)",
    "4_a100_torch1101_sm70max_wpfs": "torch 1.10.1: older than the tables, and no build label",
    "4_rtx3070_torch171_cu102": "torch 1.7.1: older than the tables (they start at 1.12)",
    "4_rtx3090_torch171_cu101_dinet": "torch 1.7.1: older than the tables (they start at 1.12)",
    "5_gt740m_torch131_cu92_no_kernel": "torch 1.3.1: older than the tables (they start at 1.12)",
    "5_gtx670m_fermi_torch100_cuda80_windows": "torch 1.0.0: older than the tables (they start at 1.12)",
    "5_k80_torch181_cu111": "torch 1.8.1: older than the tables (they start at 1.12)",
    "6_gooddrag_torch201_cu121_never_published": "a requested install, not an installed build",
    "6_torch231_cu121_flat_index_no_longer": "a requested install, not an installed build",
    "6_trellis2_windows_py313_torch2100_cu131": "a requested install, not an installed build",
    "6_wan2gp_torch270_cu124_test_index": "a requested install, not an installed build",
    "6_windows_py38_torch180_cu102_site_command": "a requested install, not an installed build",
    "7_rtx5090_rtx4090_driver570_torch28dev_cu128": "no build label shown (a 2.8 nightly)",
}


def _records() -> dict[str, dict[str, Any]]:
    return {path.stem: json.loads(path.read_text("utf-8")) for path in sorted(MACHINES.glob("*.json"))}


def _facts(record: dict[str, Any]) -> dict[str, Any]:
    text = record.get("text", "")
    dump = collect_env.find(text) if "PyTorch version" in text else None
    if dump is not None:
        facts: dict[str, Any] = dump.to_report("machine")["facts"]
        return facts
    system = (record.get("os") or "Linux").lower()
    os_facts = {"system": "Windows" if "windows" in system else "Linux", "wsl": False}
    if record.get("macos"):
        os_facts = {"system": "Darwin"}
    rocm = re.search(r"/whl/(?:nightly/)?rocm(\d+\.\d+)", record.get("install") or "")
    if "torch" not in record and rocm:  # only the index it came from is stated: a ROCm build
        torch = {
            "importable": True,
            "version": None,
            "flavor": "rocm",
            "cuda": None,
            "hip": rocm[1],
            "os": os_facts,
        }
    else:
        version = str(record["torch"]).split()[0]
        label = version.partition("+")[2]
        cuda = f"{label[2:-1]}.{label[-1]}" if label.startswith("cu") else None
        if not label and "PyPI" in str(record["torch"]) and os_facts["system"] == "Linux":
            # PyPI's Linux x86_64 wheel is a CUDA build: the one the index's metadata names
            cuda = (builds.release_row(version) or {}).get("pypi_cuda")
            version = f"{version}+cu{cuda.replace('.', '')}" if cuda else version
        torch = {
            "importable": True,
            "version": version,
            "flavor": "cuda" if cuda else "cpu",
            "cuda": cuda,
            "os": os_facts,
        }
    gpus, amd = [], []
    for gpu in record.get("gpus") or []:
        if _AMD_NAME.search(gpu["name"]):  # NVML does not see it; the PCI bus lists it
            amd.append({"vendor": "amd", "vendor_id": "0x1002", "device_id": None, "class": "0x030000"})
            continue
        cc = gpu.get("compute_capability") or collect_env.compute_capability(gpu["name"])
        gpus.append({"index": len(gpus), "name": gpu["name"], "compute_capability": list(cc) if cc else None})
    driver = re.search(r"\d+\.\d+(?:\.\d+)?", record.get("driver") or "")
    nvml: dict[str, Any] = {
        "available": True,
        "gpus": gpus,
        "driver_version": driver.group(0) if driver else None,
    }
    if not gpus:
        nvml = {"available": False, "error": "NVML Shared Library Not Found"}
    pci = {"readable": True, "devices": amd} if amd else {"readable": False, "reason": "not shown"}
    if record.get(
        "macos"
    ):  # torch's macOS arm64 wheels are built with MPS; the thread's error says it is off
        torch["mps"] = {"built": True, "macos_version": record["macos"], "machine": "arm64"}
        if "MPS backend is supported on MacOS" in record.get("text", ""):
            torch["mps"]["available"] = False
    return {"torch": torch, "nvml": nvml, "cuda_driver": {"pci_gpus": pci}}


_AMD_NAME = re.compile(r"\b(?:AMD|Radeon|RX \d{4})")


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
