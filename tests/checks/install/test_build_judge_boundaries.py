"""torch.build's verdict at its edges: cuDNN's version integer as text, the GPU count and the build named in
the evidence, the macOS an MPS release needs, PYTORCH_ENABLE_MPS_FALLBACK, a torch that fails to import, and
the PCI and driver facts that say whether an NVIDIA driver is here, as torch, cuDNN, macOS and the driver
define them.

Every machine is judged as a report hands its facts over: through JSON, so that a string in the facts is
equal to the judge's literals, not the same object."""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from torchdoctor.checks.install import builds
from torchdoctor.checks.install.build_check import CHECK
from torchdoctor.model import Status

from support import fixture_facts


def _sibling(name: str) -> Any:
    """Another test module of this folder, for its helpers (the tests' folders are not packages)."""
    spec = importlib.util.spec_from_file_location(f"_helpers_{name}", Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BUILD_CHECK_TESTS = _sibling("test_build_check")
H100 = "h100x8_cvd_2_3.json"  # torch 2.13.0+cu129 on eight H100s, driver 575.57.08, two visible to torch
CPU_WHEEL = "h100x8_cpu_wheel.json"  # torch 2.13.0+cpu on the same machine
MAC = "macbook_m2_mps.json"  # torch 2.13.0 on an M2 with macOS 14.5, MPS available
NO_NVML = {"available": False, "error": "LibraryNotFound", "gpus": []}


def _judged(facts: dict[str, Any]) -> Any:
    reported = json.loads(json.dumps(facts))
    return CHECK.judge({p.name: reported.get(p.name, {}) for p in CHECK.probes}, {})


def _machine(name: str, **torch: Any) -> dict[str, Any]:
    facts = copy.deepcopy(fixture_facts(name))
    facts["torch"].update(torch)
    return facts


# torch.backends.cudnn.version() is cudnnGetVersion(), the CUDNN_VERSION of the library loaded. cuDNN 9's
# cudnn_version.h: #define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL); up to
# cuDNN 8 the header (cudnn_version.h in 8, cudnn.h before) defines it as CUDNN_MAJOR * 1000 + CUDNN_MINOR *
# 100 + CUDNN_PATCHLEVEL (cuDNN 9.0.0's migration notes: version checks on CUDNN_VERSION must be updated).
@pytest.mark.parametrize(
    ("version", "text"),
    [
        (91002, "9.10.2"),  # torch 2.8's CUDA 12.9 wheels (nvidia-cudnn-cu12 9.10.2.21)
        (90100, "9.1.0"),  # torch 2.4's CUDA 12.4 wheels
        (90000, "9.0.0"),  # the first release with the new encoding
        (8902, "8.9.2"),  # torch 2.1 to 2.3's CUDA 12.1 wheels
        (8700, "8.7.0"),  # torch 2.0's CUDA 11.8 wheels
        (8005, "8.0.5"),  # torch 1.7's CUDA 11.0 wheels
        (7605, "7.6.5"),  # torch 1.4 to 1.6's CUDA 10.x wheels
        (
            6021,
            "6.0.21",
        ),  # cuDNN 6.0.21, the oldest torch builds against (cudnn-wrapper.h: CUDNN_MAJOR < 6 errors)
    ],
)
def test_cudnns_version_integer_reads_as_its_release(version: int, text: str) -> None:
    verdict = _judged(_machine(H100, cudnn_version=version))
    assert verdict.status is Status.PASS
    assert f"build: CUDA 12.9, cuDNN {text}, NCCL 2.27.5" in verdict.details


def _evidence_line(details: tuple[Any, ...], start: str) -> list[str]:
    return [str(d) for d in details if str(d).startswith(start)]


def test_the_evidence_names_each_gpu_with_its_compute_capability() -> None:
    facts = copy.deepcopy(fixture_facts(H100))
    facts["nvml"]["gpus"][1]["compute_capability"] = None  # NVML could not read it
    verdict = _judged(facts)
    assert "GPU 0: NVIDIA H100 80GB HBM3, CC 9.0" in verdict.details
    assert "GPU 1: NVIDIA H100 80GB HBM3" in verdict.details
    assert len(_evidence_line(verdict.details, "GPU ")) == 8


@pytest.mark.parametrize(
    ("count", "available", "line"),
    [
        (2, True, "torch sees 2 GPUs"),
        (1, True, "torch sees 1 GPU"),
        (8, True, "torch sees 8 GPUs"),
        # CUDA_VISIBLE_DEVICES="" hides every GPU from the CUDA runtime: torch.cuda.device_count() is 0
        (0, False, "torch sees 0 GPUs (torch.cuda.is_available() is False)"),
        (None, False, "torch sees 0 GPUs (torch.cuda.is_available() is False)"),
    ],
)
def test_the_gpus_torch_sees_are_counted_in_english(count: int | None, available: bool, line: str) -> None:
    facts = _machine(H100, device_count=count, cuda_available=available)
    facts["cuda_driver"]["device_count"] = count  # the driver API honors CUDA_VISIBLE_DEVICES too
    verdict = _judged(facts)
    assert _evidence_line(verdict.details, "torch sees") == [line]


def test_the_gpus_torch_sees_fit_the_pass_summary() -> None:
    verdict = _judged(_machine(H100, device_count=8, devices=[]))
    assert (
        verdict.summary == "torch 2.13.0+cu129, CUDA 12.9 build; driver and kernels fit all 8 visible GPU(s)"
    )


def test_every_gpu_hidden_from_torch_passes_with_none_visible() -> None:
    facts = _machine(H100, device_count=0, cuda_available=False, devices=[])
    facts["cuda_driver"]["device_count"] = 0  # CUDA_VISIBLE_DEVICES="": the driver API exposes none either
    verdict = _judged(facts)
    assert verdict.status is Status.PASS
    assert (
        verdict.summary == "torch 2.13.0+cu129, CUDA 12.9 build; driver and kernels fit all 0 visible GPU(s)"
    )


def test_a_dump_without_torchs_gpu_count_passes_for_the_gpus_it_names() -> None:
    facts = copy.deepcopy(fixture_facts(H100))
    del facts["torch"]["device_count"]
    verdict = _judged(facts)
    assert verdict.status is Status.PASS
    assert verdict.summary == "torch 2.13.0+cu129, CUDA 12.9 build; nothing wrong found for the GPU(s) named"
    assert _evidence_line(verdict.details, "torch sees") == []


def test_a_cuda_build_without_nvml_facts_or_a_gpu_says_which() -> None:
    facts = _machine(H100)
    facts["nvml"] = {}
    facts["cuda_driver"] = {}
    verdict = _judged(facts)
    assert verdict.summary == "torch 2.13.0+cu129, CUDA 12.9 build; no NVIDIA GPU known from these facts"
    facts["nvml"] = NO_NVML
    verdict = _judged(facts)
    assert verdict.summary == "torch 2.13.0+cu129, CUDA 12.9 build; no NVIDIA GPU here, so it runs on the CPU"
    del facts["torch"]["version"]
    verdict = _judged(facts)
    assert verdict.summary.startswith("torch (version not known), CUDA 12.9 build; no NVIDIA GPU here")


def _no_nvidia(name: str, **torch: Any) -> dict[str, Any]:
    facts = _machine(name, **torch)
    facts["nvml"] = dict(NO_NVML)
    facts["cuda_driver"] = {
        "library": None,
        "device_count": None,
        "proc_driver_version": None,
        "dev_nodes": [],
    }
    return facts


def test_a_cpu_build_without_an_nvidia_driver_passes_and_names_its_build() -> None:
    verdict = _judged(_no_nvidia(CPU_WHEEL))
    assert verdict.status is Status.PASS
    assert verdict.summary == "torch 2.13.0+cpu, CPU-only build; no NVIDIA GPU on this machine"
    assert "build: CPU-only" in verdict.details
    assert _evidence_line(verdict.details, "torch sees") == []  # torch's GPU count is shown for GPU builds
    assert _evidence_line(verdict.details, "MPS") == []
    facts = _no_nvidia(CPU_WHEEL)
    facts["nvml"] = {}
    assert _judged(facts).summary == "torch 2.13.0+cpu, CPU-only build; no NVIDIA GPU known from these facts"


def test_an_xpu_build_without_an_nvidia_driver_passes_as_intel_xpu() -> None:
    verdict = _judged(_no_nvidia(CPU_WHEEL, flavor="xpu", version="2.7.0+xpu"))
    assert verdict.status is Status.PASS
    assert verdict.summary == "torch 2.7.0+xpu, Intel XPU build; no NVIDIA GPU on this machine"
    assert "build: Intel XPU" in verdict.details


def test_a_build_the_facts_do_not_name_is_not_called_cpu_only() -> None:
    facts = _no_nvidia(CPU_WHEEL)
    del facts["torch"]["flavor"]
    verdict = _judged(facts)
    assert "build: not known from these facts" in verdict.details
    assert "build: CPU-only" not in verdict.details
    assert (
        verdict.summary
        == "torch 2.13.0+cpu: its build is not known from these facts, and nothing judged is wrong"
    )


@pytest.mark.parametrize(
    ("count", "sees"),
    [(1, "; torch sees 1 GPU(s)"), (0, "; torch sees 0 GPU(s)"), (None, "; torch sees 0 GPU(s)"), ("-", "")],
)
def test_a_rocm_build_names_hip_and_the_gpus_it_sees(count: Any, sees: str) -> None:
    facts = _no_nvidia(
        CPU_WHEEL, flavor="rocm", version="2.5.1+rocm6.2", hip="6.2.41133", cuda_available=False
    )
    if count == "-":  # a dump that does not say
        del facts["torch"]["device_count"]
    else:
        facts["torch"]["device_count"] = count
    verdict = _judged(facts)
    assert verdict.status is Status.PASS
    assert verdict.summary == f"torch 2.5.1+rocm6.2, ROCm build (HIP 6.2.41133){sees}"
    assert "build: ROCm (HIP 6.2.41133)" in verdict.details


@pytest.mark.parametrize(
    ("said", "detail"),
    [
        (True, "torch.cuda.is_available() is False: torch sees no AMD GPU"),
        (False, "no AMD GPU is known from these facts"),
    ],
)
def test_a_rocm_build_on_an_nvidia_machine_says_what_it_knows_of_amd_gpus(said: bool, detail: str) -> None:
    facts = _machine(CPU_WHEEL, flavor="rocm", version="2.5.1+rocm6.2", hip="6.2.41133", cuda_available=False)
    if not said:
        del facts["torch"]["cuda_available"]
    verdict = _judged(facts)
    assert verdict.status is Status.FAIL
    assert detail in verdict.details


def test_a_driver_only_the_kernel_module_names_is_an_nvidia_driver() -> None:
    # NVML's library missing (a container without libnvidia-ml), /proc/driver/nvidia/version there
    facts = _no_nvidia(CPU_WHEEL)
    facts["cuda_driver"]["proc_driver_version"] = "550.54.14"
    verdict = _judged(facts)
    assert verdict.status is Status.FAIL
    assert verdict.summary.startswith("CPU-only torch 2.13.0+cpu on a machine with an NVIDIA GPU")
    assert "NVIDIA driver present: 550.54.14" in verdict.details


def test_a_cuda_driver_library_that_finds_no_device_is_no_nvidia_driver() -> None:
    # libcuda loads and cuDeviceGetCount answers 0 (cuInit: CUDA_ERROR_NO_DEVICE): no GPU to build for
    facts = _no_nvidia(CPU_WHEEL)
    facts["cuda_driver"].update(library="libcuda.so.1", driver_cuda_version=12040, device_count=0)
    verdict = _judged(facts)
    assert verdict.status is Status.PASS
    facts["cuda_driver"]["device_count"] = 1
    assert _judged(facts).status is Status.FAIL


def test_mps_built_is_shown_with_whether_it_is_available() -> None:
    verdict = _judged(_machine(MAC))
    assert "MPS: built, available" in verdict.details
    facts = _machine(MAC)
    facts["torch"]["mps"]["available"] = False
    assert "MPS: built, not available" in _judged(facts).details


def _mps(version: str, macos: str | None, **mps: Any) -> Any:
    facts = _machine(MAC, version=version)
    facts["torch"]["mps"].update(macos_version=macos, **mps)
    if macos is None:
        del facts["torch"]["mps"]["macos_version"]
    return _judged(facts)


NO_METAL = "no Metal device this process may use (a VM, or a sandboxed or headless session)"
MACOS_14 = "pytorch/pytorch#163515"  # torch 2.9's MPS needs macOS 14 (torch_builds.json's mps_macos_min)


def test_macos_equal_to_the_releases_floor_is_not_too_old() -> None:
    # torch 2.9 needs macOS 14.0 for MPS: 14.0 itself meets it, so something else keeps MPS away
    verdict = _mps("2.9.0", "14.0", available=False)
    assert verdict.status is Status.WARN
    assert verdict.summary == f"torch is built with MPS but MPS is not available: {NO_METAL}"
    assert verdict.fix is not None
    assert verdict.fix.text == (
        "Run on Apple silicon with macOS 14.0 or newer, a native arm64 Python, outside sandboxes and VMs."
    )
    assert verdict.fix.commands == ()
    assert not any("older than" in str(d) or "Rosetta" in str(d) for d in verdict.details)
    assert NO_METAL not in verdict.details  # the summary's reason, not repeated
    assert any(
        str(d).startswith("macOS 14.0; torch 2.9's MPS needs macOS 14.0 or newer") for d in verdict.details
    )


def test_macos_newer_than_the_releases_floor_is_not_too_old() -> None:
    verdict = _mps("2.9.0", "15.1", available=False)
    assert verdict.summary == f"torch is built with MPS but MPS is not available: {NO_METAL}"


def test_a_table_row_whose_macos_is_not_a_version_is_not_judged(monkeypatch: pytest.MonkeyPatch) -> None:
    line_fact = builds.line_fact

    def unreadable(line: str | None, key: str) -> Any:
        fact = line_fact(line, key)
        return {**fact, "version": "see the release notes"} if key == "mps_macos_min" and fact else fact

    monkeypatch.setattr(builds, "line_fact", unreadable)
    verdict = _mps("2.9.0", "13.0", available=False)
    assert verdict.summary == f"torch is built with MPS but MPS is not available: {NO_METAL}"
    assert verdict.fix is not None and verdict.fix.text.startswith(
        "Run on Apple silicon with macOS 14 or newer"
    )


def test_macos_equal_to_an_older_releases_floor_gets_that_release() -> None:
    # macOS 13.0 is below torch 2.9's 14.0 and equal to 2.5-2.8's 13.0 (pytorch/pytorch#133141): 2.8.0 runs
    verdict = _mps("2.9.0", "13.0", available=False)
    assert verdict.status is Status.WARN
    assert verdict.summary.startswith(
        "torch is built with MPS but MPS is not available: macOS 13.0 is older than 14.0"
    )
    assert verdict.fix is not None
    assert verdict.fix.text == (
        "Update to macOS 14.0 or newer, or install torch 2.8.0, the newest release whose MPS runs on "
        "macOS 13.0."
    )
    assert verdict.fix.commands == ('pip install "torch==2.8.0"',)


def test_macos_between_two_floors_gets_the_release_of_the_lower_one() -> None:
    verdict = _mps("2.9.0", "13.5", available=False)
    assert verdict.fix is not None and verdict.fix.commands == ('pip install "torch==2.8.0"',)


def test_macos_below_every_floor_is_told_only_to_update() -> None:
    # macOS 12.1 is below 12.3, the oldest MPS floor (torch 2.0-2.4: MPS_ERROR_RUNTIME_TOO_LOW below 12.3)
    verdict = _mps("2.2.2", "12.1", available=False)
    assert verdict.status is Status.WARN
    assert "macOS 12.1 is older than 12.3, which torch 2.2 needs for MPS" in verdict.summary
    assert verdict.fix is not None
    assert verdict.fix.text == "Update to macOS 12.3 or newer."
    assert verdict.fix.commands == ()


def test_a_release_newer_than_the_tables_says_its_macos_floor_is_not_known() -> None:
    verdict = _mps("2.16.0", "15.0", available=False)
    assert verdict.summary == (
        "torch is built with MPS but MPS is not available: this torchdoctor does not know torch 2.16 yet, so "
        "not which macOS its MPS needs"
    )
    assert verdict.fix is not None
    assert verdict.fix.text.startswith("Run on Apple silicon with macOS 14 or newer")
    verdict = _mps("2.16.0", None, available=False)
    assert verdict.summary == f"torch is built with MPS but MPS is not available: {NO_METAL}"


def test_a_dumps_macos_below_the_floor_names_the_release_that_runs() -> None:
    # collect_env says the macOS, not whether MPS is available
    facts = _machine(MAC, version="2.9.0")
    facts["torch"]["mps"] = {"built": True, "macos_version": "13.6.7"}
    verdict = _judged(facts)
    assert verdict.status is Status.WARN
    assert verdict.summary == (
        "torch 2.9 uses MPS only on macOS 14.0 or newer; this Mac runs macOS 13.6.7: "
        "torch.backends.mps.is_available() is False there"
    )
    assert verdict.fix is not None and verdict.fix.commands == ('pip install "torch==2.8.0"',)


# aten/src/ATen/mps/MPSFallback.mm registers the MPS fallback once, at load:
#   static const char* enable_mps_fallback = getenv("PYTORCH_ENABLE_MPS_FALLBACK");
#   if (!enable_mps_fallback || std::stoi(enable_mps_fallback) == 0)
#     -> mps_error_fallback (NotImplementedError)
#   else -> mps_fallback (the operator runs on the CPU, with a warning)
# std::stoi reads leading whitespace, a sign and digits, and throws std::invalid_argument where there are
# none.
RAISES = ": an operator MPS lacks raises NotImplementedError (1 runs such operators on the CPU)"
ON = ": an operator MPS lacks runs on the CPU, slower"
STOI = "torch reads it with std::stoi, which throws on it (set it to 1 or unset it)"


@pytest.mark.parametrize(
    ("value", "line"),
    [
        ("1", "PYTORCH_ENABLE_MPS_FALLBACK=1" + ON),
        ("2", "PYTORCH_ENABLE_MPS_FALLBACK=2" + ON),  # any number but 0
        (" 1", "PYTORCH_ENABLE_MPS_FALLBACK= 1" + ON),  # stoi skips the leading space
        ("-1", "PYTORCH_ENABLE_MPS_FALLBACK=-1" + ON),
        ("1.5", "PYTORCH_ENABLE_MPS_FALLBACK=1.5" + ON),  # stoi stops at the first character not a digit
        (None, "PYTORCH_ENABLE_MPS_FALLBACK unset" + RAISES),
        ("0", "PYTORCH_ENABLE_MPS_FALLBACK is '0', which torch reads as 0" + RAISES),
        ("00", "PYTORCH_ENABLE_MPS_FALLBACK is '00', which torch reads as 0" + RAISES),
        (
            "true",
            "PYTORCH_ENABLE_MPS_FALLBACK is 'true', not a number: " + STOI,
        ),
        (
            "",
            "PYTORCH_ENABLE_MPS_FALLBACK is '', not a number: " + STOI,
        ),
    ],
)
def test_the_mps_fallback_variable_is_read_as_torch_reads_it(value: str | None, line: str) -> None:
    facts = _machine(MAC)
    facts["torch"]["mps"]["fallback"] = value
    verdict = _judged(facts)
    assert _evidence_line(verdict.details, "PYTORCH_ENABLE_MPS_FALLBACK") == [line]


def test_without_a_fallback_fact_nothing_is_said_of_it() -> None:
    assert _evidence_line(_judged(_machine(MAC)).details, "PYTORCH_ENABLE_MPS_FALLBACK") == []


def _not_importing(message: str, traceback: str, **torch: Any) -> Any:
    facts = copy.deepcopy(fixture_facts(H100))
    facts["torch"] = {
        "python": "3.11.9",
        "executable": "/opt/venv/bin/python",
        "distribution": {
            "version": "2.13.0+cu129",
            "location": "/opt/venv/lib/python3.11/site-packages/torch",
        },
        "candidates": ["/opt/venv/lib/python3.11/site-packages/torch"],
        "importable": False,
        "import_error": {"type": "OSError", "message": message, "traceback": traceback},
        **torch,
    }
    return _judged(facts)


def test_a_torch_that_fails_to_import_shows_the_last_six_lines_of_its_traceback() -> None:
    frames = [f'  File "/opt/venv/lib/python3.11/site-packages/torch/f{n}.py", line {n}' for n in range(1, 8)]
    message = "libcudnn.so.9: cannot open shared object file: No such file or directory"
    traceback = "\n".join(["Traceback (most recent call last):", *frames, "", f"OSError: {message}"])
    verdict = _not_importing(message, traceback)
    assert verdict.details == (
        "python: /opt/venv/bin/python",
        "torch found at: /opt/venv/lib/python3.11/site-packages/torch",
        f"OSError: {message}",
        *frames[3:],  # the last six lines, the blank one left out
        f"OSError: {message}",
    )


def test_a_long_import_error_is_cut_to_300_characters_in_the_summary() -> None:
    message = (
        "/opt/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: " + "x" * 400
    )
    verdict = _not_importing(message, "")
    assert verdict.summary == f"torch is installed but fails to import: OSError: {message}"[:300]
    assert len(verdict.summary) == 300


def test_torch_c_missing_from_a_found_torch_is_not_called_not_installed() -> None:
    # running from inside a PyTorch checkout: "No module named 'torch._C'" names a torch it found
    verdict = _not_importing(
        "No module named 'torch._C'",
        "",
        import_error={
            "type": "ModuleNotFoundError",
            "message": "No module named 'torch._C'",
            "traceback": "",
        },
    )
    assert (
        verdict.summary
        == "torch is installed but fails to import: ModuleNotFoundError: No module named 'torch._C'"
    )
    assert verdict.fix is not None and "source checkout" in verdict.fix.text


@pytest.mark.parametrize("kind", ["ImportError", "OSError"])
def test_an_import_error_other_than_module_not_found_is_not_called_not_installed(kind: str) -> None:
    message = "/opt/venv/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister"
    verdict = _not_importing(
        message, "", candidates=[], import_error={"type": kind, "message": message, "traceback": ""}
    )
    assert verdict.summary.startswith(f"torch is installed but fails to import: {kind}: ")


def test_facts_that_say_torch_does_not_import_but_not_why_ask_for_a_reinstall() -> None:
    facts = _no_nvidia(CPU_WHEEL)
    facts["torch"] = {"importable": False}
    verdict = _judged(facts)
    assert verdict.summary == "torch does not import here (the facts do not say why)"
    assert verdict.fix is not None
    assert verdict.fix.text == (
        "Install torch into this environment (or reinstall it). Without an NVIDIA driver here, the CPU build "
        "is the one that runs."
    )


def test_a_torch_earlier_on_the_path_that_sorts_before_the_installed_one_still_shadows_it() -> None:
    # Debian's python3-torch in /usr/lib/python3/dist-packages ahead of a venv's
    imported = "/usr/lib/python3/dist-packages/torch"
    facts = _machine(H100, file=imported)
    facts["torch"]["distribution"]["location"] = "/opt/venv/lib/python3.11/site-packages/torch"
    verdict = _judged(facts)
    assert verdict.status is Status.WARN
    assert verdict.summary == (
        f"torch is imported from {imported}, not from the installed "
        "/opt/venv/lib/python3.11/site-packages/torch"
    )
    facts["torch"]["file"] = "/aaa/torch"
    assert _judged(facts).status is Status.WARN


AMD = BUILD_CHECK_TESTS.AMD  # a Radeon RX 7900 XTX
INTEL = {"vendor": "intel", "vendor_id": "0x8086", "device_id": "0xa780", "class": "0x030000"}
NVIDIA = {"vendor": "nvidia", "vendor_id": "0x10de", "device_id": "0x2204", "class": "0x030000"}


def _cuda_build_on_pci(devices: list[dict[str, str]], **driver: Any) -> Any:
    facts = _no_nvidia(H100, version="2.6.0+cu124", cuda="12.4", cuda_available=False, device_count=0)
    facts["torch"]["os"] = {"system": "Linux", "wsl": False}
    facts["cuda_driver"].update(pci_gpus={"readable": True, "devices": devices}, **driver)
    return _judged(facts)


def test_only_the_amd_gpus_on_the_bus_are_named() -> None:
    # an Intel iGPU beside a Radeon RX 7900 XTX; torch 2.6's ROCm is 6.2.4 (RELEASE.md's release matrix)
    verdict = _cuda_build_on_pci([INTEL, AMD])
    assert verdict.status is Status.WARN
    assert "PCI: AMD GPU 0x1002:0x744c, no NVIDIA GPU" in verdict.details
    assert verdict.fix is not None
    assert verdict.fix.text == (
        "If this AMD GPU is one ROCm supports, install the ROCm 6.2.4 build of torch 2.6.0 (the release "
        "matrix's ROCm for 2.6)."
    )


def test_an_nvidia_gpu_on_the_bus_without_its_driver_is_not_an_amd_only_machine() -> None:
    verdict = _cuda_build_on_pci([AMD, NVIDIA])
    assert "whose GPU is AMD" not in verdict.summary


def test_an_nvidia_driver_that_answers_is_not_an_amd_only_machine() -> None:
    verdict = _cuda_build_on_pci([AMD], proc_driver_version="550.54.14")
    assert "whose GPU is AMD" not in verdict.summary


def _cuda_machine(version: str, cuda: str, gpu: str, cc: list[int], driver: str, driver_cuda: int) -> Any:
    """The H100 box with another CUDA build, GPU and driver, made by test_build_check's helper."""
    return _judged(BUILD_CHECK_TESTS._cuda_machine(H100, version, cuda, gpu, cc, driver, driver_cuda))


# Kepler (CC 3.x) ends with the R470 branch, CUDA 11.4 (NVIDIA's CUDA 11.x/12.0 release notes: Kepler support
# removed in 12.0; R470 is its last driver branch)
K80_ENDED = (
    "NVIDIA's last driver for CC 3.x GPUs is the R470 branch (CUDA 11.4), so no driver update brings a newer "
    "CUDA to this GPU"
)


def test_a_kepler_gpu_on_a_minor_version_compatible_build_is_told_its_driver_ended() -> None:
    verdict = _cuda_machine("2.0.1+cu117", "11.7", "Tesla K80", [3, 7], "470.82.01", 11040)
    assert verdict.status is Status.WARN
    assert verdict.fix is not None
    assert verdict.fix.text == (
        f"{K80_ENDED}: minor-version compatibility is the most this GPU gets; a torch build for the CUDA its "
        "driver supports avoids its limits."
    )


def test_a_kepler_gpu_on_a_cuda_12_build_is_given_the_build_its_driver_runs() -> None:
    # torch 2.8 has no build with Kepler kernels that R470 runs: 2.5.1's CUDA 11.8 build is the newest
    verdict = _cuda_machine("2.8.0+cu128", "12.8", "Tesla K80", [3, 7], "470.82.01", 11040)
    assert verdict.status is Status.FAIL
    assert verdict.summary.startswith("the NVIDIA driver is too old for this CUDA 12.8 build of torch")
    assert verdict.fix is not None
    assert verdict.fix.text.startswith(f"{K80_ENDED}: install a torch build for the CUDA this driver runs: ")
    assert verdict.fix.commands == (
        'pip install "torch==2.5.1+cu118" --index-url https://download.pytorch.org/whl/cu118',
    )


def test_a_kepler_gpu_whose_build_is_not_known_to_run_is_told_what_might() -> None:
    verdict = _cuda_machine("2.6.0+cu126", "12.6", "Tesla K80", [3, 7], "470.82.01", 11040)
    assert verdict.fix is not None
    assert verdict.fix.text.startswith(
        f"{K80_ENDED}: install a torch build for the CUDA this driver runs. Install torch 2.6.0 built for "
        "CUDA 11.8, which this driver runs; whether it has kernels for these GPUs is not known here"
    )


@pytest.mark.parametrize("sees", [True, False])
def test_a_driver_version_that_cannot_be_read_is_not_called_too_old(sees: bool) -> None:
    # nvidia-smi's "N/A" for a field it cannot read, and no CUDA version from NVML or libcuda
    facts = _machine(H100, cuda_available=sees)
    facts["nvml"].update(driver_version="N/A", cuda_driver_version=None)
    facts["cuda_driver"]["driver_cuda_version"] = None
    verdict = _judged(facts)
    assert "too old" not in verdict.summary
    if sees:
        assert verdict.status is Status.PASS
    else:  # the driver still exposes the two GPUs torch cannot use
        assert verdict.status is Status.FAIL
        assert verdict.summary == "the CUDA driver exposes 2 GPU(s) but torch.cuda.is_available() is False"


def test_a_kepler_gpu_no_cuda_build_serves_is_given_the_plans_own_words() -> None:
    # a K40m (CC 3.5) on R470, its last branch: no CUDA build of torch 2.13 has kernels for it, and the plan
    # already says why no driver helps; it is not said twice
    verdict = _cuda_machine("2.13.0+cu129", "12.9", "Tesla K40m", [3, 5], "470.256.02", 11040)
    assert verdict.status is Status.FAIL
    assert verdict.fix is not None
    assert verdict.fix.text == (
        "Install a build whose arch list covers this GPU. No CUDA build of torch 2.13 has kernels for CC "
        "3.5; NVIDIA's last driver for CC 3.x GPUs is the R470 branch (CUDA 11.4), so no driver update "
        "brings a newer CUDA to this GPU. Use the CPU build, or build torch from source with a CUDA that "
        "supports this GPU."
    )
