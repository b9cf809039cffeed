"""torch.build judged on the recorded facts of real machine types."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from torchdoctor.checks.install.build_check import CHECK
from torchdoctor.model import Status

from support import fixture_facts, judge_fixture


def judge(name: str, **replace: Any) -> Any:
    return judge_fixture(CHECK, name, **replace)


def test_a_cuda_wheel_that_fits_its_driver_and_gpus_passes() -> None:
    verdict = judge("h100x8_cvd_2_3.json")
    assert verdict.status is Status.PASS
    assert "CUDA 12.9 build" in verdict.summary
    assert "build: CUDA 12.9, cuDNN 9.10.2, NCCL 2.27.5" in verdict.details
    assert "NVIDIA driver 575.57.08 (supports CUDA 12.9)" in verdict.details


def test_a_cpu_wheel_on_a_gpu_box_fails_with_the_matching_cuda_build() -> None:
    verdict = judge("h100x8_cpu_wheel.json")
    assert verdict.status is Status.FAIL
    assert "Torch not compiled with CUDA enabled" in verdict.summary
    assert verdict.fix is not None
    assert verdict.fix.commands == (
        'pip install "torch==2.13.0+cu129" --index-url https://download.pytorch.org/whl/cu129',
    )


def test_a_driver_too_old_for_the_wheel_fails_with_torchs_own_message_as_evidence() -> None:
    verdict = judge("a100_driver470_cu128_wheel.json")
    assert verdict.status is Status.FAIL
    assert "driver is too old" in verdict.summary
    assert any("found version 11040" in str(d) for d in verdict.details)
    assert verdict.fix is not None
    assert "570.26" in verdict.fix.text
    # torch's "cannot see the GPU" is the same root cause, not a second finding
    assert not any(str(d).startswith("fail:") for d in verdict.details)


def test_minor_version_compatibility_is_a_warning() -> None:
    verdict = judge("h100_driver535_cu129_wheel.json")
    assert verdict.status is Status.WARN
    assert "minor-version compatibility" in verdict.summary
    assert verdict.fix is not None and "575.51.03" in verdict.fix.text


def test_a_gpu_newer_than_the_wheels_arch_list_fails_with_no_kernel_image() -> None:
    verdict = judge("rtx5090_cu126_wheel.json")
    assert verdict.status is Status.FAIL
    assert "no kernel image" in verdict.summary
    assert "sm_120" in verdict.summary
    assert verdict.fix is not None
    assert verdict.fix.commands == (
        'pip install "torch==2.13.0+cu129" --index-url https://download.pytorch.org/whl/cu129',
    )


def test_ptx_only_coverage_is_a_warning() -> None:
    facts = fixture_facts("h100x8_cvd_2_3.json")
    torch = copy.deepcopy(facts["torch"])
    torch["arch_list"] = ["sm_75", "sm_80", "compute_80"]
    verdict = judge("h100x8_cvd_2_3.json", torch=torch)
    assert verdict.status is Status.WARN
    assert "PTX" in verdict.summary


def test_an_apple_mps_machine_passes() -> None:
    verdict = judge("macbook_m2_mps.json")
    assert verdict.status is Status.PASS
    assert "MPS available" in verdict.summary
    assert "build: CPU and MPS (Apple GPU)" in verdict.details


def test_mps_built_but_unavailable_under_rosetta_warns_with_the_reasons() -> None:
    verdict = judge("macbook_m1_rosetta.json")
    assert verdict.status is Status.WARN
    assert "older than 12.3, which torch 2.2 needs for MPS" in verdict.summary
    assert any("Rosetta" in str(d) for d in verdict.details)


def test_a_laptop_without_a_driver_passes_with_a_cuda_wheel() -> None:
    verdict = judge("laptop_no_driver.json")
    assert verdict.status is Status.PASS
    assert "no NVIDIA GPU" in verdict.summary


def test_a_mig_slice_on_an_older_driver_is_minor_version_compatibility() -> None:
    verdict = judge("a100_mig_1g10gb.json")
    assert verdict.status is Status.WARN
    assert "550.54.15" in verdict.summary


def _torch(name: str, **changes: Any) -> dict[str, Any]:
    torch = copy.deepcopy(fixture_facts(name)["torch"])
    torch.update(changes)
    return torch


def test_torch_missing_fails_with_an_install_command_for_this_driver() -> None:
    torch = {
        "python": "3.11.9",
        "executable": "/opt/venv/bin/python",
        "distribution": None,
        "candidates": [],
        "importable": False,
        "import_error": {
            "type": "ModuleNotFoundError",
            "message": "No module named 'torch'",
            "traceback": "",
        },
    }
    verdict = judge("h100x8_cvd_2_3.json", torch=torch)
    assert verdict.status is Status.FAIL
    assert "not installed" in verdict.summary
    assert verdict.fix is not None
    # The newest release the tables know; its CUDA 12.6 build is the one this 570 driver runs.
    assert verdict.fix.commands[0].startswith('pip install "torch==2.15.0+cu126"')


@pytest.mark.parametrize(
    ("message", "hint"),
    [
        ("libcudnn.so.9: cannot open shared object file: No such file or directory", "LD_LIBRARY_PATH"),
        ("/x/libtorch_cuda.so: undefined symbol: ncclCommRegister", "does not match"),
        ("cannot import name '_C' from partially initialized module 'torch'", "source checkout"),
    ],
)
def test_torch_that_fails_to_import_fails_with_the_error_and_a_hint(message: str, hint: str) -> None:
    torch = {
        "python": "3.11.9",
        "executable": "/opt/venv/bin/python",
        "distribution": {
            "version": "2.13.0+cu129",
            "location": "/opt/venv/lib/python3.11/site-packages/torch",
        },
        "candidates": ["/opt/venv/lib/python3.11/site-packages/torch"],
        "importable": False,
        "import_error": {
            "type": "OSError",
            "message": message,
            "traceback": "Traceback ...\nOSError: " + message,
        },
    }
    verdict = judge("h100x8_cvd_2_3.json", torch=torch)
    assert verdict.status is Status.FAIL
    assert "fails to import" in verdict.summary
    assert message[:30] in verdict.summary
    assert verdict.fix is not None
    assert hint in verdict.fix.text
    assert verdict.fix.commands == ("pip install --force-reinstall --no-deps torch==2.13.0",)


def test_a_torch_on_pythonpath_shadowing_the_installed_one_warns() -> None:
    torch = _torch("h100x8_cvd_2_3.json", file="/home/me/src/pytorch/torch")
    torch["candidates"] = ["/home/me/src/pytorch/torch", "/opt/venv/lib/python3.11/site-packages/torch"]
    verdict = judge("h100x8_cvd_2_3.json", torch=torch)
    assert verdict.status is Status.WARN
    assert "not from the installed" in verdict.summary


def test_a_torch_folder_in_the_current_directory_warns() -> None:
    torch = _torch("h100x8_cvd_2_3.json")
    torch["candidates"] = ["/home/me/project/torch", *torch["candidates"]]
    verdict = judge("h100x8_cvd_2_3.json", torch=torch)
    assert verdict.status is Status.WARN
    assert "/home/me/project/torch" in verdict.summary


def test_torch_failing_to_initialize_cuda_on_a_good_driver_fails_with_torchs_warning() -> None:
    warning = "CUDA initialization: CUDA driver initialization failed, you might not have a CUDA gpu."
    torch = _torch(
        "h100x8_cvd_2_3.json", cuda_available=False, device_count=0, devices=[], cuda_warnings=[warning]
    )
    verdict = judge("h100x8_cvd_2_3.json", torch=torch)
    assert verdict.status is Status.FAIL
    assert "is_available() is False" in verdict.summary
    assert warning in verdict.details


def test_the_verdict_shows_the_facts_it_judged() -> None:
    verdict = judge("h100x8_cvd_2_3.json")
    assert verdict.facts["torch"]["version"] == "2.13.0+cu129"
    assert verdict.facts["driver_version"] == "575.57.08"
    assert len(verdict.facts["gpus"]) == 8


def _on(system: str, wsl: bool, driver: str) -> Any:
    """The H100 box of h100x8_cvd_2_3.json with another OS and a driver NVML gives no CUDA version for."""
    facts = fixture_facts("h100x8_cvd_2_3.json")
    facts["torch"]["os"] = {"system": system, "release": "5.15.153.1-microsoft-standard-WSL2", "wsl": wsl}
    facts["nvml"].update(driver_version=driver, cuda_driver_version=None)
    return CHECK.judge({p.name: facts[p.name] for p in CHECK.probes}, {})


@pytest.mark.parametrize(("system", "wsl"), [("Windows", False), ("Linux", True)])
def test_windows_and_wsl_drivers_are_judged_against_the_windows_minimums(system: str, wsl: bool) -> None:
    # CUDA 12.9 needs 575.51.03 on Linux and 576.02 on Windows (Table 3): 575.64 passes one, not the other.
    assert _on("Linux", False, "575.64").status is Status.PASS
    verdict = _on(system, wsl, "575.64")
    assert verdict.status is Status.WARN
    assert "minor-version compatibility" in verdict.summary
    assert verdict.fix is not None and "576.02" in verdict.fix.text
