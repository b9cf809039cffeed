"""torch.stack judged on the recorded facts of real machine types, and its probes' pure parts."""

from __future__ import annotations

import copy
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from torchdoctor.checks.install import companions_probe, libraries_probe, pairing, versions
from torchdoctor.checks.install.stack_check import CHECK
from torchdoctor.checks.install.versions import Version, satisfies
from torchdoctor.model import Status

from support import fixture_facts, judge_fixture

MATCHED = "a100_stack_matched.json"
OTHER_TORCHVISION = "a100_stack_torchvision_for_torch_2_4.json"
SYSTEM_CUDNN = "a100_stack_system_cudnn_on_ld_library_path.json"
TRITON = "h100_stack_triton_3_2_on_torch_2_5.json"
CU121_ON_CPU = "laptop_stack_cu121_torchvision_on_cpu_torch.json"
SITE = "/opt/venv/lib/python3.11/site-packages"
NMS = "operator torchvision::nms does not exist"


def judge(name: str, **replace: Any) -> Any:
    return judge_fixture(CHECK, name, **replace)


def facts_of(name: str, probe: str) -> dict[str, Any]:
    return copy.deepcopy(fixture_facts(name)[probe])


def rows(verdict: Any) -> list[dict[str, Any]]:
    return [d for d in verdict.details if isinstance(d, dict)]


# --- the five machines -----------------------------------------------------------------------------------


def test_a_matched_stack_passes_with_every_library_from_the_wheels() -> None:
    verdict = judge(MATCHED)
    assert verdict.status is Status.PASS
    assert verdict.summary == (
        "torch 2.5.1+cu124: cuDNN, NCCL, cuBLAS, CUDA runtime, OpenMP runtime loaded from torch's wheels; "
        "torchvision 0.20.1, torchaudio 2.5.1, triton 3.1.0 fit torch 2.5.1"
    )
    by_name = {r["library"]: r for r in rows(verdict)}
    assert by_name["libcudnn.so.9"]["version"] == "9.1.0.70 (nvidia-cudnn-cu12 wheel)"
    assert by_name["libgomp-a34b3233.so.1"]["from"] == "torch's own wheel (2.5.1+cu124)"
    assert "torchvision.ops.nms: runs" in verdict.details
    assert "torch's metadata pins 13 package(s) here; 13 installed at the pinned version" in verdict.details
    assert verdict.fix is None


def test_a_torchvision_of_another_release_fails_with_the_pairing_and_the_operator_error() -> None:
    verdict = judge(OTHER_TORCHVISION)
    assert verdict.status is Status.FAIL
    assert verdict.summary == (
        f'torchvision 0.19.1 is made for torch 2.4; torch 2.5.1+cu124 pairs with torchvision 0.20.1: "{NMS}"'
    )
    assert "torchvision 0.19.1 requires torch==2.4.1 (its metadata)" in verdict.details
    assert f"import torchvision: RuntimeError: {NMS}" in verdict.details
    assert verdict.fix is not None
    assert verdict.fix.commands == (
        "pip install torchvision==0.20.1 --index-url https://download.pytorch.org/whl/cu124",
    )


def test_a_system_cudnn_first_on_ld_library_path_fails_and_names_the_variable() -> None:
    verdict = judge(SYSTEM_CUDNN)
    assert verdict.status is Status.FAIL
    assert verdict.summary == (
        "cuDNN, cuBLAS, CUDA runtime are loaded from /usr/local/cuda-12.4/targets/x86_64-linux/lib, not from "
        "the nvidia-* wheels torch was installed with: /usr/local/cuda/lib64 comes first on LD_LIBRARY_PATH"
    )
    details = [str(d) for d in verdict.details]
    assert (
        "loaded: /usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudnn.so.9.0.0, "
        "version 9.0.0 (torch's cuDNN runtime version)"
    ) in details
    assert f"nvidia-cudnn-cu12 9.1.0.70 ships: {SITE}/nvidia/cudnn/lib/libcudnn.so.9" in details
    assert "LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/nvidia/lib64" in details
    assert "torch was built against cuDNN 9.1.0 and runs cuDNN 9.0.0" in details
    assert any(d.startswith("torch says: RuntimeError: cuDNN version incompatibility") for d in details)
    assert verdict.fix is not None
    assert "LD_LIBRARY_PATH" in verdict.fix.text
    assert verdict.fix.commands == ("export LD_LIBRARY_PATH=/usr/local/nvidia/lib64",)
    # NCCL is not in the toolkit folder, so it still comes from its wheel
    nccl = next(r for r in rows(verdict) if r["library"] == "libnccl.so.2")
    assert nccl["from"] == "nvidia-nccl-cu12 wheel"


def test_a_triton_other_than_torchs_pin_fails_with_the_install_command() -> None:
    verdict = judge(TRITON)
    assert verdict.status is Status.FAIL
    assert verdict.summary == "triton 3.2.0 is installed, but torch 2.5.1+cu124 requires triton==3.1.0"
    assert any("Requires-Dist: triton==3.1.0;" in str(d) for d in verdict.details)
    assert verdict.fix is not None and verdict.fix.commands == ("pip install triton==3.1.0",)


def test_a_cu121_torchvision_on_a_cpu_torch_fails_with_the_cpu_index() -> None:
    verdict = judge(CU121_ON_CPU)
    assert verdict.status is Status.FAIL
    assert verdict.summary == (
        f'torchvision 0.17.1+cu121 is a CUDA 12.1 build, but torch 2.2.1+cpu is CPU-only: "{NMS}"'
    )
    assert verdict.fix is not None
    assert verdict.fix.commands == (
        "pip install --force-reinstall --no-deps torchvision==0.17.1 --index-url https://download.pytorch.org/whl/cpu",
    )


# --- variations on the recorded machines ------------------------------------------------------------------


def test_an_nvidia_wheel_outside_torchs_pin_fails_with_the_pinned_version() -> None:
    comps = facts_of(MATCHED, "companions")
    comps["installed"]["nvidia-cudnn-cu12"] = "9.5.1.17"
    verdict = judge(MATCHED, companions=comps)
    assert verdict.status is Status.FAIL
    assert verdict.summary == (
        "nvidia-cudnn-cu12 9.5.1.17 is outside torch 2.5.1+cu124's pin nvidia-cudnn-cu12==9.1.0.70"
    )
    assert verdict.fix is not None and verdict.fix.commands == ("pip install nvidia-cudnn-cu12==9.1.0.70",)


def test_several_wheels_outside_their_pins_are_one_finding_with_one_command() -> None:
    comps = facts_of(MATCHED, "companions")
    comps["installed"].update({"nvidia-cudnn-cu12": "9.5.1.17", "nvidia-nccl-cu12": "2.26.2"})
    verdict = judge(MATCHED, companions=comps)
    assert verdict.status is Status.FAIL
    assert verdict.summary.startswith("2 CUDA wheels are outside torch 2.5.1+cu124's pins")
    assert verdict.fix is not None
    assert verdict.fix.commands == ("pip install nvidia-cudnn-cu12==9.1.0.70 nvidia-nccl-cu12==2.21.5",)


def test_pinned_wheels_and_triton_that_are_missing_warn() -> None:
    comps = facts_of(MATCHED, "companions")
    del comps["installed"]["nvidia-nccl-cu12"]
    del comps["installed"]["triton"]
    comps["companions"] = [c for c in comps["companions"] if c["name"] != "triton"]
    verdict = judge(MATCHED, companions=comps)
    assert verdict.status is Status.WARN
    text = [verdict.summary, *map(str, verdict.details)]
    assert any("requires triton==3.1.0, which is not installed" in t for t in text)
    assert any(
        "CUDA wheel(s) that torch 2.5.1+cu124 pins are not installed: nvidia-nccl-cu12" in t for t in text
    )
    assert verdict.fix is not None
    assert set(verdict.fix.commands) == {"pip install triton==3.1.0", "pip install nvidia-nccl-cu12==2.21.5"}


def test_a_pin_whose_marker_does_not_apply_is_not_judged() -> None:
    comps = facts_of(MATCHED, "companions")
    for pin in comps["pins"]:
        pin["applies"] = False  # as on Windows, where torch's nvidia-* lines say platform_system == "Linux"
    comps["installed"] = {"torchvision": "0.20.1", "torchaudio": "2.5.1"}
    comps["companions"] = [c for c in comps["companions"] if c["name"] != "triton"]
    verdict = judge(MATCHED, companions=comps)
    assert verdict.status is Status.PASS


def test_ld_library_path_holding_only_the_cuda_folder_is_unset() -> None:
    libs = facts_of(SYSTEM_CUDNN, "loaded_libraries")
    libs["ld_library_path"] = libs["ld_library_path"][:1]
    verdict = judge(SYSTEM_CUDNN, loaded_libraries=libs)
    assert verdict.fix is not None and verdict.fix.commands == ("unset LD_LIBRARY_PATH",)


def test_a_shadowing_not_from_ld_library_path_points_at_the_loaders_debug_output() -> None:
    libs = facts_of(SYSTEM_CUDNN, "loaded_libraries")
    libs["ld_library_path"] = []
    verdict = judge(SYSTEM_CUDNN, loaded_libraries=libs)
    assert verdict.status is Status.FAIL
    assert "LD_LIBRARY_PATH" not in verdict.summary
    assert verdict.fix is not None
    assert verdict.fix.commands == ('LD_DEBUG=libs python -c "import torch" 2>&1 | grep libcudnn',)


def test_two_mapped_copies_of_one_library_warn_beside_the_shadowing() -> None:
    libs = facts_of(MATCHED, "loaded_libraries")
    system = "/usr/local/cuda-12.4/targets/x86_64-linux/lib/libcudart.so.12.4.127"
    libs["libraries"].append(
        {
            "name": "libcudart.so.12.4.127",
            "base": "libcudart",
            "family": "cudart",
            "path": system,
            "file_version": "12.4.127",
        }
    )
    verdict = judge(MATCHED, loaded_libraries=libs)
    assert verdict.status is Status.FAIL
    assert verdict.summary.startswith(
        "CUDA runtime is loaded from /usr/local/cuda-12.4/targets/x86_64-linux/lib"
    )
    assert "warn: 2 copies of libcudart (CUDA runtime) are loaded in the torch process" in verdict.details


def test_a_system_openmp_runtime_in_place_of_torchs_own_only_warns() -> None:
    libs = facts_of(MATCHED, "loaded_libraries")
    gomp = next(lib for lib in libs["libraries"] if lib["family"] == "openmp")
    gomp.update(
        name="libgomp.so.1.0.0", path="/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0", file_version="1.0.0"
    )
    verdict = judge(MATCHED, loaded_libraries=libs)
    assert verdict.status is Status.WARN
    assert verdict.summary == (
        "OpenMP runtime is loaded from /usr/lib/x86_64-linux-gnu, not from torch's own wheel"
    )


def test_without_proc_maps_the_companions_are_still_judged() -> None:
    libs = facts_of(MATCHED, "loaded_libraries")
    libs.update(platform="darwin", source=None, libraries=[], wheel_files={})
    libs["skip_reason"] = "the mapped libraries are read from /proc/self/maps, which darwin does not have"
    verdict = judge(OTHER_TORCHVISION, loaded_libraries=libs)
    assert verdict.status is Status.FAIL
    assert f"loaded libraries: not read, {libs['skip_reason']}" in verdict.details
    passing = judge(MATCHED, loaded_libraries=libs)
    assert passing.status is Status.PASS
    assert "loaded libraries not read on darwin" in passing.summary


def test_a_torch_that_does_not_import_is_a_skip() -> None:
    torch = facts_of(MATCHED, "torch")
    torch["importable"] = False
    verdict = judge(MATCHED, torch=torch)
    assert verdict.status is Status.SKIP
    assert "torch.build" in verdict.summary


def test_a_companion_with_its_operators_broken_but_the_right_release_fails_with_a_reinstall() -> None:
    ops = facts_of(MATCHED, "companion_operators")
    ops["tries"][0].update(
        imported=True,
        operator_error="NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CPU' "
        "backend.",
    )
    verdict = judge(MATCHED, companion_operators=ops)
    assert verdict.status is Status.FAIL
    assert verdict.summary.startswith(
        "torchvision 0.20.1 cannot run its compiled operators with torch 2.5.1+cu124"
    )
    assert verdict.fix is not None
    assert verdict.fix.commands == (
        "pip install --force-reinstall --no-deps torchvision==0.20.1 --index-url https://download.pytorch.org/whl/cu124",
    )


def test_a_missing_pillow_beside_a_matching_torchvision_names_the_module_and_its_package() -> None:
    # torchvision's transforms import PIL at import time; its Requires-Dist names the package "pillow".
    ops = facts_of(MATCHED, "companion_operators")
    ops["tries"][0].update(imported=False, import_error="ModuleNotFoundError: No module named 'PIL'")
    verdict = judge(MATCHED, companion_operators=ops)
    assert verdict.status is Status.FAIL
    assert verdict.summary.startswith(
        "torchvision 0.20.1 does not import: the module PIL it needs is not installed (package pillow)"
    )
    assert verdict.fix is not None and verdict.fix.commands == ("pip install pillow",)
    # Its own extension missing is still a broken torchvision, reinstalled as before.
    ops["tries"][0].update(import_error="ModuleNotFoundError: No module named 'torchvision._C'")
    assert "cannot run its compiled operators" in judge(MATCHED, companion_operators=ops).summary


def test_a_companion_built_for_another_cuda_minor_only_warns() -> None:
    comps = facts_of(MATCHED, "companions")
    comps["companions"][1]["build_version"] = "2.5.1+cu121"
    verdict = judge(MATCHED, companions=comps)
    assert verdict.status is Status.WARN
    assert verdict.summary.startswith("torchaudio 2.5.1+cu121 is a CUDA 12.1 build beside torch 2.5.1+cu124")


def test_a_companion_outside_the_table_is_judged_by_its_own_requirement() -> None:
    comps = facts_of(MATCHED, "companions")
    comps["companions"].append(
        {
            "name": "xformers",
            "version": "0.0.28.post3",
            "build_version": "0.0.28.post3",
            "build_version_from": "xformers/version.py",
            "requires_torch": [{"specifier": "==2.5.1", "applies": True, "line": "torch==2.5.1"}],
            "metadata": f"{SITE}/xformers-0.0.28.post3.dist-info",
        }
    )
    torch = facts_of(MATCHED, "torch")
    torch["version"] = "2.6.0+cu124"
    comps["companions"] = [c for c in comps["companions"] if c["name"] == "xformers"]
    verdict = judge(MATCHED, companions=comps, torch=torch)
    assert verdict.status is Status.FAIL
    assert (
        verdict.summary
        == "xformers 0.0.28.post3 requires torch==2.5.1 (its metadata), but torch is 2.6.0+cu124"
    )
    assert verdict.fix is not None and verdict.fix.commands == ('pip install xformers "torch==2.6.0"',)


def test_a_nightly_torch_is_not_judged_by_the_release_table_but_by_the_companions_requirement() -> None:
    torch = facts_of(MATCHED, "torch")
    torch["version"] = "2.14.0.dev20251020+cu128"
    comps = facts_of(MATCHED, "companions")
    comps["pins"] = []
    comps["companions"] = [c for c in comps["companions"] if c["name"] == "torchvision"]
    verdict = judge(MATCHED, torch=torch, companions=comps)
    assert verdict.status is Status.FAIL
    assert verdict.summary.startswith("torchvision 0.20.1 requires torch==2.5.1 (its metadata)")
    assert verdict.fix is not None
    assert verdict.fix.commands == (
        "pip install --pre torchvision --index-url https://download.pytorch.org/whl/nightly/cu128",
    )


def test_a_companion_newer_than_the_table_and_its_torch_still_fails() -> None:
    torch = facts_of(MATCHED, "torch")
    torch["version"] = "2.16.0+cu130"
    comps = facts_of(MATCHED, "companions")
    comps["pins"] = []
    comps["companions"] = [
        {**c, "version": "2.17.0", "build_version": "2.17.0+cu130", "requires_torch": []}
        for c in comps["companions"]
        if c["name"] == "torchaudio"
    ]
    verdict = judge(MATCHED, torch=torch, companions=comps, companion_operators={"tries": []})
    assert verdict.status is Status.FAIL
    assert verdict.summary == "torchaudio 2.17.0 is made for torch 2.17 and later, not for torch 2.16.0+cu130"
    assert verdict.fix is not None and verdict.fix.commands == ('pip install torchaudio "torch==2.16.0"',)


@pytest.mark.parametrize(
    ("torchaudio", "torch", "status"),
    [
        ("2.11.0", "2.13.0+cpu", Status.PASS),
        ("2.13.0", "2.12.0+cpu", Status.FAIL),
        ("2.9.1", "2.13.0+cpu", Status.FAIL),
    ],
)
def test_torchaudio_from_211_on_works_with_every_later_torch(
    torchaudio: str, torch: str, status: Status
) -> None:
    comps = facts_of(CU121_ON_CPU, "companions")
    comps["companions"] = [
        {
            "name": "torchaudio",
            "version": torchaudio,
            "build_version": f"{torchaudio}+cpu",
            "build_version_from": "torchaudio/version.py",
            "requires_torch": [],
            "metadata": f"{SITE}/torchaudio-{torchaudio}.dist-info",
        }
    ]
    torch_facts = facts_of(CU121_ON_CPU, "torch")
    torch_facts["version"] = torch
    verdict = judge(CU121_ON_CPU, companions=comps, torch=torch_facts, companion_operators={"tries": []})
    assert verdict.status is status
    if status is Status.FAIL:
        assert verdict.fix is not None
        assert verdict.fix.commands == (
            "pip install torchaudio==2.11.1 --index-url https://download.pytorch.org/whl/cpu",
        )


def test_the_verdict_shows_the_facts_it_judged() -> None:
    verdict = judge(OTHER_TORCHVISION)
    assert verdict.facts["torch"]["version"] == "2.5.1+cu124"
    assert verdict.facts["companions"][0]["build_version"] == "0.19.1+cu121"
    assert verdict.facts["operator_tries"][0]["import_error"] == f"RuntimeError: {NMS}"
    assert {"name": "triton", "specifier": "==3.1.0", "installed": "3.1.0"} in verdict.facts["pins"]


# --- the pairing table -----------------------------------------------------------------------------------


def test_the_pairing_table_covers_torch_2_0_to_2_14_and_names_its_source() -> None:
    assert "torchvision" in pairing.SOURCE and "torchaudio" in pairing.SOURCE
    for minor in range(15):
        row = pairing.row_for(f"2.{minor}.0")
        assert row is not None and row.exact, f"torch 2.{minor}.0"
        assert (row.torchvision or "").startswith(f"0.{minor + 15}.")
        assert row.torchaudio is not None


def test_a_patch_release_missing_from_the_table_uses_the_nearest_of_its_line() -> None:
    row = pairing.row_for("2.6.1")
    assert row is not None and (row.torch, row.exact, row.torchvision) == ("2.6.0", False, "0.21.0")
    assert pairing.row_for("2.99.0") is None


def test_pairing_names_the_torch_a_companion_release_is_made_for() -> None:
    pair = pairing.pair("torchvision", "0.27.0", "2.13.0+cpu")
    assert (pair.fits, pair.expected, pair.made_for) == (False, "0.28.0", "torch 2.12")
    assert pairing.pair("torchvision", "0.28.0", "2.13.0+cpu").fits is True
    assert pairing.pair("torchvision", "0.30.0", "2.15.0").fits is None


def test_torchvision_from_0_29_is_built_on_the_stable_abi_and_serves_later_torch_releases() -> None:
    # the 0.29 wheels ship _C_stable.so and run torchvision::nms on torch 2.15.0, where 0.28.0 (_C.so) does
    # not; 0.29.0's metadata alone still pins torch==2.14.0
    row = pairing.row_for("2.15.0")
    assert row is not None and row.torchvision == "0.29.2"
    for release in ("0.29.0", "0.29.1", "0.29.2+cu132"):
        pair = pairing.pair("torchvision", release, "2.15.0")
        assert (pair.fits, pair.expected, pair.made_for) == (True, "0.29.2", "torch 2.14 and later")
        assert pairing.pair("torchvision", release, "2.13.0").fits is False
    assert pairing.pair("torchvision", "0.28.0", "2.15.0").fits is False
    # a stable-ABI release newer than the table: torchaudio is numbered as the torch it is first made for,
    # torchvision is not, so its first torch is not guessed
    assert pairing.pair("torchaudio", "2.17.0", "2.16.0").made_for == "torch 2.17 and later"
    assert pairing.pair("torchvision", "0.31.0", "2.16.0").fits is None


def test_a_stable_abi_companion_pinning_an_older_torch_in_its_metadata_is_a_warning() -> None:
    torch = facts_of(MATCHED, "torch")
    torch.update(version="2.15.0+cu132", cuda="13.2")
    comps = facts_of(MATCHED, "companions")
    comps["pins"] = []
    comps["companions"] = [
        {
            **c,
            "version": "0.29.0",
            "build_version": "0.29.0+cu132",
            "requires_torch": [{"specifier": "==2.14.0", "applies": True}],
        }
        for c in comps["companions"]
        if c["name"] == "torchvision"
    ]
    verdict = judge(MATCHED, torch=torch, companions=comps, companion_operators={"tries": []})
    assert verdict.status is Status.WARN
    assert verdict.summary == (
        "torchvision 0.29.0 asks for torch==2.14.0 (its metadata) and torch is 2.15.0+cu132: "
        "pip check reports a conflict"
    )
    assert verdict.fix is not None and verdict.fix.commands[0].startswith("pip install torchvision==0.29.2")


# --- versions, specifiers and markers as pip reads them ---------------------------------------------------


@pytest.mark.parametrize(
    ("version", "specifier", "expected"),
    [
        ("2.13.0+cpu", "==2.13.0", True),
        ("2.13.0+cpu", "==2.13.0+cu129", False),
        ("13.0.3.0", "==13.0.3", True),
        ("13.1.1.3", "==13.1.1.3.*", True),
        ("13.1.2.0", "==13.1.1.3.*", False),
        ("3.8.1", "~=3.8.0", True),
        ("3.9.0", "~=3.8.0", False),
        ("13.4.92", ">=13.0.88,<14", True),
        ("2.13.0", "(>=2.14.0)", False),
        ("2.14.0.dev20250101", ">=2.14.0", False),
        ("2.14.0rc1", "<2.14.0", False),
        ("1.0.post1", ">1.0", False),
        ("2.13.0", "!=2.13.*", False),
        ("0.29.1+cu130", "===0.29.1+cu130", True),
    ],
)
def test_specifiers_follow_pep_440(version: str, specifier: str, expected: bool) -> None:
    assert satisfies(version, specifier) is expected


def test_version_order_follows_pep_440() -> None:
    ordered = ["1.0.dev1", "1.0a1", "1.0rc1", "1.0", "1.0+local", "1.0.post1", "1!0.1"]
    assert sorted(ordered[::-1], key=Version) == ordered
    assert satisfies("not a version", "==1.0") is None
    assert satisfies("1.0", "not a specifier") is None
    assert satisfies("1.0.post1", ">1.0a1") is True
    assert satisfies("1.0rc1", "<1.0.post1") is True


_RELEASES = ["0.9", "1.0", "1.0.0", "1.0.1", "1.1", "2.13.0", "2.14"]
_SUFFIXES = ["", ".dev1", "a1", "b2", "rc1", ".post1", ".post1.dev2", "+cpu", "+cu129.x"]
_OPERATORS = ["==", "!=", "<", "<=", ">", ">=", "~=", "==*"]


def _generated_pairs() -> list[tuple[str, str]]:
    versions = [r + s for r in _RELEASES for s in _SUFFIXES]
    specifiers = []
    for operator in _OPERATORS:
        for release in _RELEASES:
            for suffix in ("", "a1", ".post1", ".dev1"):
                if operator == "==*":
                    specifiers.append(f"=={release}.*")
                elif operator == "~=" and "." not in release:
                    continue
                else:
                    specifiers.append(f"{operator}{release}{suffix}")
    return [(v, s) for v in versions for s in specifiers[::3]]


def test_installed_versions_are_tested_as_pip_tests_them_on_thousands_of_pairs() -> None:
    from packaging.specifiers import SpecifierSet

    pairs = _generated_pairs()
    assert len(pairs) > 3000
    for version, specifier in pairs:
        expected = SpecifierSet(specifier).contains(version, prereleases=True)
        assert satisfies(version, specifier) is expected, (version, specifier)
        assert satisfies(version, f"({specifier})") is expected  # the old Requires-Dist form


def test_requires_dist_lines_and_their_markers_read_as_pip_reads_them() -> None:
    linux = {**versions.marker_environment(), "platform_system": "Linux", "platform_machine": "x86_64"}
    windows = {**linux, "platform_system": "Windows", "sys_platform": "win32"}
    line = (
        "triton==3.1.0; "
        + 'platform_system == "Linux" and platform_machine == "x86_64" and python_version < "3.13"'
    )
    parsed = versions.parse_requirement(line)
    assert parsed is not None and (parsed.name, parsed.specifier) == ("triton", "==3.1.0")
    assert versions.marker_applies(parsed.marker, {**linux, "python_version": "3.12"}) is True
    assert versions.marker_applies(parsed.marker, {**linux, "python_version": "3.13"}) is False
    assert versions.marker_applies(parsed.marker, windows) is False
    toolkit = versions.parse_requirement('cuda-toolkit[cublas,cudart]==13.0.3; platform_system == "Linux"')
    assert toolkit is not None and toolkit.extras == ("cublas", "cudart")
    old_style = versions.parse_requirement('nvidia-cudnn-cu12 (==8.9.2.26) ; platform_system == "Linux"')
    assert old_style is not None and old_style.specifier == "==8.9.2.26"
    extra = "nvidia-cublas==13.1.1.3.*; (sys_platform == 'linux' or os_name == 'nt') and extra == 'cublas'"
    marker = versions.parse_requirement(extra)
    assert marker is not None
    assert versions.marker_applies(marker.marker, linux, extra="cublas") is True
    assert versions.marker_applies(marker.marker, linux, extra="cufft") is False
    assert versions.marker_applies("weird_variable == '1'", linux) is None


# --- the probes' parts that run without torch -------------------------------------------------------------

MAPS = f"""\
7f1c2a000000-7f1c2a021000 r--p 00000000 fd:01 1234 {SITE}/torch/lib/libgomp-a34b3233.so.1
7f1c2a021000-7f1c2a040000 r-xp 00021000 fd:01 1234 {SITE}/torch/lib/libgomp-a34b3233.so.1
7f1c2b000000-7f1c2b100000 r-xp 00000000 fd:01 5678 /usr/local/cuda/lib64/libcudnn.so.9.0.0
7f1c2c000000-7f1c2c100000 r-xp 00000000 fd:01 9012 /tmp/libcudart.faf08d9a.so.13 (deleted)
7f1c2d000000-7f1c2d100000 r-xp 00000000 fd:01 3456 /usr/lib/x86_64-linux-gnu/libc.so.6
7ffd5c000000-7ffd5c021000 rw-p 00000000 00:00 0    [stack]
7f1c2e000000-7f1c2e100000 rw-p 00000000 00:00 0
"""


def test_mapped_libraries_of_interest_are_read_from_a_maps_text() -> None:
    libraries = libraries_probe.libraries_of_interest(libraries_probe.mapped_files(MAPS))
    assert [(lib["base"], lib["family"], lib["file_version"]) for lib in libraries] == [
        ("libgomp", "openmp", "1"),
        ("libcudnn", "cudnn", "9.0.0"),
        ("libcudart", "cudart", "13"),
    ]
    assert libraries[2]["path"] == "/tmp/libcudart.faf08d9a.so.13"
    assert libraries_probe.family_of("libcublasLt") == "cublas"
    assert libraries_probe.family_of("libnvrtc-builtins") == "nvrtc"
    assert libraries_probe.family_of("libomptarget") is None


def _dist_info(site: Path, name: str, version: str, requires: list[str], files: list[str] = ()) -> Path:
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {name}",
        f"Version: {version}",
        *(f"Requires-Dist: {r}" for r in requires),
    ]
    (info / "METADATA").write_text("\n".join(lines) + "\n")
    (info / "RECORD").write_text("".join(f"{f},,\n" for f in files))
    for file in files:
        (site / file).parent.mkdir(parents=True, exist_ok=True)
        (site / file).write_bytes(b"")
    return info


def test_the_wheels_own_copies_are_found_with_the_wheel_that_ships_them(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    _dist_info(site, "nvidia-cudnn-cu12", "9.1.0.70", [], ["nvidia/cudnn/lib/libcudnn.so.9"])
    (site / "torch" / "lib").mkdir(parents=True)
    (site / "torch" / "lib" / "libgomp.so.1").write_bytes(b"")
    found = libraries_probe.wheel_files(site / "torch", "2.5.1+cu124", {"libcudnn", "libgomp"})
    assert found == {
        "libgomp": [
            {
                "path": str((site / "torch/lib/libgomp.so.1").resolve()),
                "wheel": "torch",
                "version": "2.5.1+cu124",
            }
        ],
        "libcudnn": [
            {
                "path": str((site / "nvidia/cudnn/lib/libcudnn.so.9").resolve()),
                "wheel": "nvidia-cudnn-cu12",
                "version": "9.1.0.70",
            }
        ],
    }


# torch 2.14.1's own Requires-Dist lines (from its wheel's METADATA) and the cuda-toolkit 13.0.3.0 lines
# for two of the extras torch asks for.
TORCH_2141 = [
    "filelock",
    "cuda-toolkit[cublas,cudart,cufft,cufile,cupti,curand,cusolver,cusparse,nvjitlink,nvrtc,nvtx]==13.0.3;"
    ' platform_system == "Linux"',
    'nvidia-cudnn-cu13==9.24.0.43; platform_system == "Linux"',
    'nvidia-nccl-cu13==2.30.7; platform_system == "Linux"',
    'triton~=3.8.0; platform_system == "Linux" and python_version < "3.15"',
    'optree>=0.13.0; extra == "optree"',
]
ON_LINUX_X86 = "(sys_platform == 'linux' and platform_machine == 'x86_64')"
TOOLKIT = [
    f"nvidia-cublas==13.1.1.3.*; {ON_LINUX_X86} and extra == 'cublas'",
    f"nvidia-cuda-runtime==13.0.96.*; {ON_LINUX_X86} and extra == 'cudart'",
    f"nvidia-npp==13.0.1.2.*; {ON_LINUX_X86} and extra == 'npp'",
]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="torch 2.14.1's pins apply on Linux")
def test_cuda_toolkit_extras_are_expanded_to_the_wheels_they_pin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site-packages"
    _dist_info(site, "torch", "2.14.1", TORCH_2141)
    _dist_info(site, "cuda-toolkit", "13.0.3.0", TOOLKIT)
    _dist_info(site, "nvidia-cublas", "13.2.0.9", [])
    _dist_info(site, "nvidia-cuda-runtime", "13.0.96", [])
    _dist_info(site, "nvidia-cudnn-cu13", "9.24.0.43", [])
    _dist_info(site, "nvidia-nccl-cu13", "2.30.7", [])
    _dist_info(site, "triton", "3.8.0", [])
    monkeypatch.setattr(sys, "path", [str(site)])
    facts = companions_probe.probe({})
    pins = {(p["name"], p["specifier"], p["via"]) for p in facts["pins"] if p["applies"]}
    assert ("nvidia-cublas", "==13.1.1.3.*", "cuda-toolkit[cublas]") in pins
    assert ("nvidia-cuda-runtime", "==13.0.96.*", "cuda-toolkit[cudart]") in pins
    assert not any(name == "nvidia-npp" for name, _, _ in pins)  # torch does not ask for that extra
    assert facts["installed"]["cuda-toolkit"] == "13.0.3.0"
    torch = {**facts_of(MATCHED, "torch"), "version": "2.14.1+cu130", "cuda": "13.0"}
    verdict = CHECK.judge(
        {
            "torch": torch,
            "loaded_libraries": {"skip_reason": "not read here"},
            "companions": facts,
            "companion_operators": {"tries": []},
        },
        {},
    )
    assert verdict.status is Status.FAIL
    assert verdict.summary == (
        "nvidia-cublas 13.2.0.9 is outside torch 2.14.1+cu130's pin nvidia-cublas==13.1.1.3.*"
    )
    assert any("via cuda-toolkit[cublas]" in str(d) for d in verdict.details)
    assert verdict.fix is not None and verdict.fix.commands == ('pip install "nvidia-cublas==13.1.1.3.*"',)


def test_a_companions_build_and_requirement_come_from_its_installed_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site-packages"
    _dist_info(
        site,
        "torchvision",
        "0.29.1",
        ["numpy", "torch (>=2.14.0)", "scipy ; extra == 'scipy'"],
        ["torchvision/version.py"],
    )
    (site / "torchvision" / "version.py").write_text("__version__ = '0.29.1+cu130'\ngit_version = 'x'\n")
    monkeypatch.setattr(sys, "path", [str(site)])
    facts = companions_probe.probe({})
    assert facts["torch"] is None and facts["pins"] == []
    [vision] = facts["companions"]
    assert (vision["version"], vision["build_version"], vision["build_version_from"]) == (
        "0.29.1",
        "0.29.1+cu130",
        "torchvision/version.py",
    )
    assert [(r["specifier"], r["applies"]) for r in vision["requires_torch"]] == [(">=2.14.0", True)]


def test_an_operator_try_records_the_real_import_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "broken_ext_for_stack_test.py").write_text(
        textwrap.dedent(
            """
            raise ImportError(
                "/site/flash_attn_2_cuda.so: undefined symbol: _ZN3c104cuda9SetDeviceEi"
            )
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    result = companions_probe.try_operators("flash-attn", "broken_ext_for_stack_test", None, None)
    assert result["imported"] is False
    assert result["import_error"] == (
        "ImportError: /site/flash_attn_2_cuda.so: undefined symbol: _ZN3c104cuda9SetDeviceEi"
    )
