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
    # 2.15 published no CUDA 12.x build: 2.14.1's CUDA 12.6 build is the newest this 575 driver runs.
    assert verdict.fix.commands[0].startswith('pip install "torch==2.14.1+cu126"')


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


def _other_vendor(flavor: str, version: str, **torch_facts: Any) -> dict[str, Any]:
    """The H100 machine's facts with a ROCm or XPU build of torch in place of its CPU one."""
    facts = copy.deepcopy(fixture_facts("h100x8_cpu_wheel.json"))
    facts["torch"].update(
        flavor=flavor, version=version, hip="6.2.41133" if flavor == "rocm" else None, **torch_facts
    )
    facts["torch"]["distribution"]["version"] = version
    return facts


@pytest.mark.parametrize(
    ("flavor", "version", "build"),
    [("rocm", "2.5.1+rocm6.2", "ROCm"), ("xpu", "2.7.0+xpu", "Intel XPU")],
)
def test_a_build_for_another_vendor_on_an_nvidia_machine_fails_with_the_cuda_build(
    flavor: str, version: str, build: str
) -> None:
    facts = _other_vendor(flavor, version, cuda_available=False, device_count=0)
    verdict = CHECK.judge({p.name: facts[p.name] for p in CHECK.probes}, {})
    assert verdict.status is Status.FAIL
    assert verdict.summary.startswith(f"{build} build of torch {version} on a machine with NVIDIA H100")
    assert verdict.fix is not None and "cannot use NVIDIA GPUs" in verdict.fix.text
    assert len(verdict.fix.commands) == 1 and "+cu" in verdict.fix.commands[0]


def test_a_rocm_build_that_sees_an_amd_gpu_beside_the_nvidia_ones_is_the_machines_choice() -> None:
    facts = _other_vendor("rocm", "2.5.1+rocm6.2", cuda_available=True, device_count=1)
    verdict = CHECK.judge({p.name: facts[p.name] for p in CHECK.probes}, {})
    assert "ROCm build" not in verdict.summary or verdict.status is not Status.FAIL


def _cuda_machine(
    base: str, version: str, cuda: str, gpu: str, cc: list[int], driver: str, driver_cuda: int
) -> dict[str, Any]:
    """A fixture's facts with another CUDA build, GPU and driver in place (figures from NVIDIA's tables)."""
    facts = copy.deepcopy(fixture_facts(base))
    torch = facts["torch"]
    torch.update(flavor="cuda", version=version, cuda=cuda, cuda_available=True, device_count=1)
    torch.pop("arch_list", None)  # judged from the tables, as a collect_env dump is
    torch["distribution"]["version"] = version
    facts["nvml"]["gpus"] = [{**facts["nvml"]["gpus"][0], "name": gpu, "compute_capability": cc}]
    facts["nvml"].update(driver_version=driver, cuda_driver_version=driver_cuda)
    return facts


@pytest.mark.parametrize(
    ("gpu", "cc", "driver", "driver_cuda", "version", "cuda", "branch"),
    [
        # Kepler's last branch is R470 (CUDA 11.4): a CUDA 11.7 build runs through minor-version
        # compatibility, and no driver update is possible
        ("Tesla K80", [3, 7], "470.82.01", 11040, "2.0.1+cu117", "11.7", "R470"),
        ("Tesla K40m", [3, 5], "470.256.02", 11040, "1.13.1+cu117", "11.7", "R470"),
        # Maxwell, Pascal and Volta end with R580 (CUDA 13.0): a CUDA 13.2 build is out of their reach
        ("NVIDIA GeForce GTX 1080 Ti", [6, 1], "580.95.05", 13000, "2.14.1+cu132", "13.2", "R580"),
        ("Tesla V100-SXM2-32GB", [7, 0], "580.65.06", 13000, "2.14.1+cu132", "13.2", "R580"),
        ("NVIDIA GeForce GTX 980", [5, 2], "580.82.07", 13000, "2.14.1+cu132", "13.2", "R580"),
    ],
)
def test_a_gpu_past_its_last_driver_branch_is_never_told_to_update_the_driver(
    gpu: str, cc: list[int], driver: str, driver_cuda: int, version: str, cuda: str, branch: str
) -> None:
    facts = _cuda_machine("h100x8_cvd_2_3.json", version, cuda, gpu, cc, driver, driver_cuda)
    verdict = CHECK.judge({p.name: facts[p.name] for p in CHECK.probes}, {})
    assert verdict.status in (Status.WARN, Status.FAIL)
    assert verdict.fix is not None
    assert "Update the NVIDIA driver" not in verdict.fix.text
    assert f"is the {branch} branch" in verdict.fix.text


def test_turing_beside_volta_is_still_told_to_update() -> None:
    facts = _cuda_machine(
        "h100x8_cvd_2_3.json", "2.14.1+cu132", "13.2", "Tesla T4", [7, 5], "580.65.06", 13000
    )
    verdict = CHECK.judge({p.name: facts[p.name] for p in CHECK.probes}, {})
    assert verdict.fix is not None and "Update the NVIDIA driver" in verdict.fix.text


def test_a_cuda_the_tables_do_not_know_names_the_document_not_a_broken_sentence() -> None:
    facts = _cuda_machine(
        "h100x8_cvd_2_3.json", "2.17.0+cu134", "13.4", "NVIDIA H100 80GB HBM3", [9, 0], "615.10", 13030
    )
    verdict = CHECK.judge({p.name: facts[p.name] for p in CHECK.probes}, {})
    assert verdict.fix is not None
    assert "a newer release or later" not in verdict.fix.text
    assert "supports CUDA 13.4" in verdict.fix.text and "Table 3" in verdict.fix.text


@pytest.mark.parametrize(
    ("gpu", "cc", "version", "cuda", "system", "fails"),
    [
        # no PTX in these builds: a GPU newer than the list gets no kernel at all (a failure, not a warning)
        ("NVIDIA GeForce RTX 5090", [12, 0], "2.6.0+cu126", "12.6", "Linux", True),
        ("NVIDIA GeForce RTX 5080", [12, 0], "2.6.0+cu124", "12.4", "Linux", True),
        ("NVIDIA GeForce RTX 5060 Ti", [12, 0], "2.7.1+cu126", "12.6", "Linux", True),
        # architectures a build dropped, per OS: 2.7's Linux CUDA 12.8 build starts at sm_75, its Windows one
        # keeps sm_50 to sm_70
        ("NVIDIA GeForce GTX 1080 Ti", [6, 1], "2.7.1+cu128", "12.8", "Linux", True),
        ("NVIDIA TITAN Xp", [6, 1], "2.7.0+cu128", "12.8", "Linux", True),
        ("NVIDIA GeForce GTX 980", [5, 2], "2.7.1+cu128", "12.8", "Linux", True),
        ("NVIDIA GeForce GTX 1080 Ti", [6, 1], "2.7.1+cu128", "12.8", "Windows", False),
        ("NVIDIA GeForce RTX 5090", [12, 0], "2.7.1+cu128", "12.8", "Linux", False),
    ],
)
def test_builds_without_ptx_and_the_architectures_each_build_dropped(
    gpu: str, cc: list[int], version: str, cuda: str, system: str, fails: bool
) -> None:
    """Arch lists of 2.6 and 2.7 from the wheels' own bytes and torch's own warnings pasted in issues
    (tools/sources/arch_reports.json); judged as a collect_env dump is, without the installed arch list."""
    facts = _cuda_machine("h100x8_cvd_2_3.json", version, cuda, gpu, cc, "576.02", 12090)
    facts["torch"]["os"] = {"system": system, "wsl": False}
    verdict = CHECK.judge({p.name: facts[p.name] for p in CHECK.probes}, {})
    no_kernels = verdict.status is Status.FAIL and "no kernels for it" in verdict.summary
    assert no_kernels is fails, (verdict.status, verdict.summary)


def _cuda_build_on(pci_devices: list[dict[str, str]], system: str = "Linux", nvidia: bool = False) -> Any:
    torch = {
        "importable": True,
        "version": "2.6.0+cu124",
        "flavor": "cuda",
        "cuda": "12.4",
        "cuda_available": False,
        "os": {"system": system, "wsl": False},
    }
    gpu = {"index": 0, "name": "NVIDIA GeForce RTX 3090", "compute_capability": [8, 6]}
    nv = (
        {"available": True, "gpus": [gpu], "driver_version": "550.54.14"}
        if nvidia
        else {"available": False, "error": "NVML Shared Library Not Found"}
    )
    facts = {
        "torch": torch,
        "nvml": nv,
        "cuda_driver": {"pci_gpus": {"readable": True, "devices": pci_devices}},
    }
    return CHECK.judge({probe.name: facts.get(probe.name, {}) for probe in CHECK.probes}, {})


AMD = {"vendor": "amd", "vendor_id": "0x1002", "device_id": "0x744c", "class": "0x030000"}


def test_a_cuda_build_where_the_only_gpu_is_amd_is_told_of_the_rocm_build() -> None:
    # torch 2.6's ROCm build is ROCm 6.2.4 (RELEASE.md's matrix, torch_releases.json)
    verdict = _cuda_build_on([AMD])
    assert verdict.status.value == "warn" and "whose GPU is AMD" in verdict.summary
    assert verdict.fix.commands == (
        'pip install "torch==2.6.0" --index-url https://download.pytorch.org/whl/rocm6.2.4',
    )


def test_an_nvidia_gpu_beside_the_amd_one_is_the_cuda_builds_and_nothing_is_said() -> None:
    nvidia = {"vendor": "nvidia", "vendor_id": "0x10de", "device_id": "0x2204", "class": "0x030000"}
    assert "AMD" not in _cuda_build_on([AMD, nvidia], nvidia=True).summary
    assert "AMD" not in _cuda_build_on([{**AMD, "vendor": "intel"}]).summary


def test_on_windows_no_rocm_wheel_is_offered() -> None:
    verdict = _cuda_build_on([AMD], system="Windows")
    assert verdict.status.value == "warn" and verdict.fix.commands == () and "Linux only" in verdict.fix.text
