"""The verdicts at the tables' edges, each on the facts of the machine it is about (synthetic facts: the GPU's
published compute capability and NVIDIA's published driver releases), judged with the committed tables."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from torchdoctor.checks.install import (
    build_check,
    build_fit,
    build_judge,
    builds,
    companions_judge,
    cuda_compat,
    explanations,
    install_plan,
    pairing,
    releases,
)
from torchdoctor.inputs import collect_env

from corpus_tools import splits


def _torch(version: str, system: str = "Linux", machine: str = "x86_64", python: str = "3.12.3") -> dict:
    return {"version": version, "os": {"system": system}, "machine": machine, "python": python}


def test_windows_rtx_5090_on_a_cpu_wheel_is_not_told_cu129() -> None:
    # Driver 576.02: NVIDIA's Windows driver of CUDA 12.9 GA. release/2.13 built CUDA 12.9 for Linux only.
    plan = install_plan.plan_for("2.13.0", "windows-x86_64", [(12, 0)], 12090, "576.02", "windows")
    assert not any("cu129" in c for c in plan.commands)
    assert plan.commands == (
        'pip install "torch==2.13.0+cu130" --index-url https://download.pytorch.org/whl/cu130',
    )
    assert "Update the NVIDIA driver to 580" in plan.text and not plan.runs_here
    assert "12.9" not in [b.cuda for b in builds.of("2.13", "windows-x86_64") or []]


@pytest.mark.parametrize(
    ("release", "cc", "driver"),
    [("2.8.0", (6, 1), "570.124.06"), ("2.11.0", (7, 0), "570.124.06")],  # GTX 1080; V100
)
def test_pascal_and_volta_are_not_told_cu128(release: str, cc: tuple[int, int], driver: str) -> None:
    plan = install_plan.plan_for(release, "linux-x86_64", [cc], 12080, driver, "linux")
    assert plan.runs_here
    assert plan.commands == (cuda_compat.install_command(release, "12.6"),)


def test_a_release_newer_than_the_tables_is_said_to_be_unknown() -> None:
    newest = builds.newest_line()
    newer = f"{newest.split('.')[0]}.{int(newest.split('.')[1]) + 1}.0"
    plan = install_plan.plan_for(newer, "linux-x86_64", [(9, 0)], 13000, "580.65.06", "linux")
    assert plan.text.startswith(f"This torchdoctor does not know torch {newer.rsplit('.', 1)[0]} yet")
    assert builds.newer_than_tables(newer) and not builds.knows(newer)
    facts = {**_torch(f"{newer}+cu130"), "importable": True, "flavor": "cuda", "cuda": "13.0"}
    evidence = build_judge._evidence(facts, {}, [])
    assert any("does not know torch" in line for line in evidence)


def test_kepler_is_not_told_to_update_to_a_driver_that_dropped_it() -> None:
    plan = install_plan.plan_for("2.13.0", "linux-x86_64", [(3, 5)], 11040, "470.82.01", "linux")
    assert "Update the NVIDIA driver" not in plan.text
    assert "R470" in plan.text and plan.commands[0].endswith("/whl/cpu")


def test_windows_12x_minor_version_floor_is_528_33_with_its_source() -> None:
    assert cuda_compat.MINOR_COMPAT_FLOOR[12]["windows"] == "528.33"
    assert "528.33" in (cuda_compat.floor_source(12) or "") and "527.41" in (
        cuda_compat.floor_source(12) or ""
    )
    assert cuda_compat.driver_compat("12.6", None, "528.00", "windows").status == "too_old"


def test_toolkit_reach_is_at_the_minor_version() -> None:
    assert cuda_compat.toolkit_reach("12.8", (11, 0)).status == "above"
    assert cuda_compat.toolkit_reach("13.0", (11, 0)).status == "within"
    assert cuda_compat.toolkit_reach("12.8", (12, 1)).status == "within"


@pytest.mark.parametrize(
    ("torch", "python", "supported"),
    [
        ("1.13.0", "3.11", True),
        ("1.13.1", "3.11.4", True),
        ("2.14.1", "3.15.0", False),
        ("2.15.0", "3.15.0", True),
    ],
)
def test_python_support_is_the_wheels_tags(torch: str, python: str, supported: bool) -> None:
    support = releases.python_support(torch, python, "linux-x86_64")
    assert support is not None and support.supported is supported


def test_no_release_before_2_15_is_promised_python_3_15() -> None:
    [finding] = build_fit.python_support(_torch("2.14.1", python="3.15.0"))
    assert finding.fix is not None and finding.fix.commands == ("pip install torch==2.15.0",)


@pytest.mark.parametrize(
    ("torch", "pin"), [("2.12.0", "==3.7.0"), ("2.12.1", "==3.7.1"), ("2.14.0", "~=3.8.0")]
)
def test_triton_rows_are_the_wheels_pins(torch: str, pin: str) -> None:
    row = pairing.row_for(torch)
    assert row is not None and row.exact
    assert [p["specifier"] for p in row.triton or ()] == [pin]


def test_torch_2_5_1_on_python_3_13_is_not_told_to_install_triton_3_1_0() -> None:
    row = pairing.row_for("2.5.1")
    assert row is not None
    environment = companions_judge.marker_environment(_torch("2.5.1", python="3.13.1"))
    assert row.triton_pins(environment) == []
    assert "3.13" not in pairing.TRITON_PYTHON["3.1.0"]
    comps = {"installed": {"triton": "3.2.0"}, "companions": []}
    facts = {**_torch("2.5.1+cu124", python="3.13.1"), "flavor": "cuda"}
    assert companions_judge.findings(facts, comps, {}) == []


def test_a_triton_the_table_has_no_pin_for_is_not_said_to_fit() -> None:
    comps = {
        "looked_for": ["triton"],
        "companions": [{"name": "triton", "version": "3.6.0"}],
        "installed": {"triton": "3.6.0"},
    }
    text = companions_judge.summary({**_torch("2.16.0+cu130"), "flavor": "cuda"}, comps)
    assert "fit unknown" in text and "fit torch" not in text


@pytest.mark.parametrize(
    ("torch", "macos"), [("2.4.1", "12.3"), ("2.5.1", "13.0"), ("2.8.0", "13.0"), ("2.9.0", "14.0")]
)
def test_mps_macos_minimum_per_release(torch: str, macos: str) -> None:
    fact = builds.line_fact(torch.rsplit(".", 1)[0], "mps_macos_min")
    assert fact is not None and fact["version"] == macos and fact["source"]


def test_numpy_2_per_os() -> None:
    fact = builds.line_fact("2.3", "numpy_2")
    assert fact is not None and fact["built_for"] == {"linux": True, "windows": False, "macos": True}


def test_numpy_c_api_mapping() -> None:
    assert explanations.numpy_for_api(7) == "1.7"
    assert explanations.numpy_for_api(8) == "1.8"  # 0x8 names no release of its own
    assert explanations.numpy_for_api(9) == "1.8"
    assert explanations.numpy_for_api(0x12) == "2.0"


def test_explain_and_check_agree_on_found_version_12040() -> None:
    analysis = explanations.analyse_driver_too_old(
        "The NVIDIA driver on your system is too old (found version 12040)."
    )
    plan = install_plan.plan_for(None, "linux-x86_64", [], 12040, None, "linux")
    assert analysis.fix is not None and analysis.fix.commands == plan.commands
    assert "cu126" in plan.commands[0]


def test_explain_and_check_agree_for_an_rtx_5090_on_driver_570() -> None:
    text = (
        "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch "
        "installation.\nPyTorch version: 2.13.0+cu126\nNvidia driver version: 570.86.10"
    )
    analysis = explanations.analyse_no_kernel(text)
    plan = install_plan.plan_for("2.13.0", "linux-x86_64", [(12, 0)], None, "570.86.10", "linux")
    assert analysis.fix is not None and analysis.fix.commands == plan.commands
    assert plan.runs_here and "575.51.03" not in analysis.fix.text


def test_the_2_13_cu126_wheel_fails_b200_and_rtx_5090() -> None:
    build = builds.build_of("2.13", "linux-x86_64", "12.6")
    assert build is not None
    assert builds.has_kernels(build, (10, 0)) is False and builds.has_kernels(build, (12, 0)) is False


def test_a_build_without_a_sourced_arch_list_is_never_said_to_have_kernels() -> None:
    verdicts = builds.runnable("2.6", "linux-x86_64", [(8, 0)], 12060, "560.35.03", "linux") or []
    [verdict] = [v for v in verdicts if v.build.cuda == "11.8"]  # the one 2.6 Linux list no source gives
    assert verdict.status == builds.ARCH_UNKNOWN and "not known" in verdict.reason
    # A driver that cannot run it: unknown, never "needs a driver update for a build with kernels".
    verdicts = builds.runnable("2.6", "linux-x86_64", [(8, 0)], 10010, "418.87.01", "linux") or []
    [verdict] = [v for v in verdicts if v.build.cuda == "11.8"]
    assert verdict.status == builds.UNKNOWN


def test_a_cpu_wheel_of_an_older_release_is_offered_its_own_cuda_build() -> None:
    # RTX 3090 (CC 8.6), driver 570: torch 2.2's own CUDA 12.1 build has sm_86 (pytorch/builder release/2.2).
    plan = install_plan.plan_for(
        "2.2.0", "linux-x86_64", [(8, 6)], 12080, "570.124.06", "linux", python="3.11.4"
    )
    assert plan.commands == (cuda_compat.install_command("2.2.0", "12.1"),) and plan.runs_here
    assert any("pytorch/builder release/2.2 (commit af60d114" in line for line in plan.evidence)


def test_a_release_whose_arch_lists_have_no_source_keeps_its_release_and_says_so() -> None:
    # A CUDA 11.8 driver (520) runs only 2.6's CUDA 11.8 build, whose Linux arch list no source gives
    plan = install_plan.plan_for(
        "2.6.0", "linux-x86_64", [(8, 6)], 11080, "520.61.05", "linux", python="3.12.3"
    )
    assert plan.kind == "arch_unknown" and not plan.runs_here
    assert plan.commands == (cuda_compat.install_command("2.6.0", "11.8"),)
    assert "is not known here" in plan.text and "If it has none for them: install torch" in plan.text


def test_an_older_release_without_a_build_for_the_gpu_moves_to_a_release_that_has_one() -> None:
    # RTX 5090 (CC 12.0) on torch 2.2.0+cpu: no 2.2 build has sm_120; driver 570 runs 2.13's CUDA 12.9 build.
    plan = install_plan.plan_for(
        "2.2.0", "linux-x86_64", [(12, 0)], 12080, "570.124.06", "linux", python="3.12.3"
    )
    assert plan.commands == (cuda_compat.install_command("2.13.0", "12.9"),) and plan.runs_here
    assert "another torch release" in plan.text


@pytest.mark.parametrize(
    ("os_key", "cc", "driver_cuda", "driver", "python", "release", "cuda"),
    [
        # 2.15 published no CUDA 12.x build: on driver 570 (CUDA 12.8) 2.14.1's CUDA 12.6 build is the newest
        ("linux-x86_64", (8, 6), 12080, "570.124.06", "3.12.3", "2.14.1", "12.6"),
        ("linux-x86_64", (8, 6), 12080, "570.124.06", "3.10.12", "2.14.1", "12.6"),  # no cp310 wheel of 2.15
        ("linux-x86_64", (8, 6), 13000, "580.65.06", "3.12.3", "2.15.0", "13.0"),
        ("linux-x86_64", (12, 0), 12080, "570.124.06", "3.12.3", "2.13.0", "12.9"),
        ("windows-x86_64", (12, 0), 12090, "576.02", "3.12.3", "2.11.0", "12.8"),
        ("linux-x86_64", (3, 7), 11040, "470.82.01", "3.10.12", "2.5.1", "11.8"),  # Tesla K80 on R470
    ],
)
def test_a_missing_torch_is_offered_the_newest_release_that_runs_here(
    os_key: str, cc: tuple[int, int], driver_cuda: int, driver: str, python: str, release: str, cuda: str
) -> None:
    os_driver = "windows" if os_key.startswith("windows") else "linux"
    plan = install_plan.plan_for(None, os_key, [cc], driver_cuda, driver, os_driver, python=python)
    assert plan.commands == (cuda_compat.install_command(release, cuda),) and plan.runs_here


def test_arch_lists_of_releases_before_the_wheels_carried_them_are_sourced() -> None:
    linux = builds.build_of("2.0", "linux-x86_64", "11.8")
    windows = builds.build_of("2.1", "windows-x86_64", "11.8")
    assert linux is not None and linux.ccs is not None and 37 in linux.ccs and linux.ptx == ()
    assert windows is not None and windows.ptx == (37,) and 61 in (windows.ccs or ())
    for os_key, ptx in (("linux-x86_64", (120,)), ("windows-x86_64", ())):  # "+PTX on linux builds only"
        build = builds.build_of("2.9", os_key, "13.0")
        assert build is not None and build.ptx == ptx and "PR #164471" in build.source
    # 2.6 and 2.7: the wheels' own arch strings and torch's own warnings pasted in issues
    # (tools/sources/arch_reports.json); four builds no source gives stay unknown
    sourced = {
        (line, os_key, b.cuda): b.ccs
        for line in ("2.6", "2.7")
        for os_key in ("linux-x86_64", "windows-x86_64")
        for b in builds.of(line, os_key) or []
    }
    unknown = {key for key, ccs in sourced.items() if ccs is None}
    assert unknown == {
        ("2.6", "linux-x86_64", "11.8"),
        ("2.6", "windows-x86_64", "11.8"),
        ("2.6", "windows-x86_64", "12.4"),
        ("2.7", "linux-x86_64", "11.8"),
    }
    assert sourced[("2.7", "linux-x86_64", "12.8")] == (75, 80, 86, 90, 100, 120)
    assert 61 in (sourced[("2.7", "windows-x86_64", "12.8")] or ())


def test_an_unknown_arch_list_is_still_bounded_by_what_its_cuda_compiles_for() -> None:
    # torch 2.6's Linux CUDA 11.8 arch list has no source here, and CUDA 11.8 cannot compile for sm_120 (RTX
    # 5090): only PTX could run there, and no CUDA 11.8 build PyTorch published for Linux ships any that
    # reaches it, so none is assumed; its 12.4 and 12.6 lists are known and have no sm_120.
    blackwell = builds.runnable("2.6", "linux-x86_64", [(12, 0)], 12080, "570.124.06", "linux") or []
    assert {v.build.cuda: v.status for v in blackwell} == {
        "11.8": builds.NO_KERNELS,
        "12.4": builds.NO_KERNELS,
        "12.6": builds.NO_KERNELS,
    }
    [unknown] = [v for v in blackwell if v.build.cuda == "11.8"]
    assert "no CUDA 11.8 build PyTorch published for this OS" in unknown.reason
    kepler = builds.runnable("2.6", "linux-x86_64", [(3, 5)], 11040, "470.82.01", "linux") or []
    assert {v.build.cuda: v.status for v in kepler} == {
        "12.6": builds.NO_KERNELS,
        "12.4": builds.NO_KERNELS,
        "11.8": builds.ARCH_UNKNOWN,
    }


def test_the_installed_builds_own_arch_list_outranks_the_table_in_check_and_explain() -> None:
    # pytorch/pytorch#150733: RTX 5090 D, torch 2.6.0+cu126 whose own warning lists sm_50 ... sm_90.
    text = json.loads(splits.find("collect_env", "pytorch_pytorch_150733").read_text())["text"]
    dump = collect_env.find(text)
    assert dump is not None
    verdict = build_check.CHECK.judge(dump.to_report("x")["facts"], {})
    analysis = explanations.analyse_no_kernel(text)
    assert verdict.fix is not None and analysis.fix is not None
    assert verdict.fix.commands == analysis.fix.commands
    assert not any("2.6.0+cu126" in c for c in verdict.fix.commands)


DATA_DIR = Path(builds.__file__).resolve().parent / "data"
_COMMAND = re.compile(r'"torch==(?P<release>[\d.]+)\+(?P<label>cpu|cu\d+)"')
_GRID_CCS = [(3, 7), (5, 2), (6, 1), (7, 0), (7, 5), (8, 0), (8, 6), (9, 0), (10, 0), (12, 0)]
_GRID_DRIVERS = [(11040, "470.82.01"), (12020, "535.104.05"), (12080, "570.124.06"), (13000, "580.65.06")]


def _published(release: str, label: str, os_key: str) -> bool:
    """A wheel the recorded tables say was published: a CUDA build of the release's line on that OS (as its
    build matrix or release notice lists it), or the CPU build of a release the index has."""
    if release not in releases_of_index():
        return False
    if label == "cpu":
        return True
    cuda = f"{label[2:-1]}.{label[-1]}"
    return builds.build_of(release.rsplit(".", 1)[0], os_key, cuda) is not None


def releases_of_index() -> set[str]:
    return set(json.loads((DATA_DIR / "torch_wheels.json").read_text("utf-8"))["releases"])


@pytest.mark.parametrize("os_key", ["linux-x86_64", "windows-x86_64"])
@pytest.mark.parametrize("installed", [None, "2.15.0", "2.8.0", "2.2.0"])
def test_no_install_command_names_a_wheel_that_was_not_published(os_key: str, installed: str | None) -> None:
    """Every command an install plan prints, over GPUs from Kepler to Blackwell, drivers from R470 to R580 and
    Pythons 3.10 to 3.15, names a build the tables record as published."""
    os_driver = "windows" if os_key.startswith("windows") else "linux"
    for cc in _GRID_CCS:
        for driver_cuda, driver in _GRID_DRIVERS:
            for python in ("3.10.12", "3.12.3", "3.15.0"):
                plan = install_plan.plan_for(
                    installed, os_key, [cc], driver_cuda, driver, os_driver, python=python
                )
                for command in plan.commands:
                    for found in _COMMAND.finditer(command):
                        assert _published(found["release"], found["label"], os_key), (cc, driver, command)


def test_2_15s_release_notice_outranks_its_wheels_own_table_of_cuda_builds() -> None:
    """torch 2.15.0's PYTORCH_RELEASES_CODE_CC lists a CUDA 12.6 build; the release notice and the RFC say
    no 12.x wheel was published from 2.15 on. The wheel's table names the builds torch's code knows (2.14's
    named a 13.4 build that was removed before release), so the notice wins, and the table says so."""
    wheels = json.loads((DATA_DIR / "torch_wheels.json").read_text("utf-8"))["releases"]
    assert "12.6" in wheels["2.15.0"]["code_cc"]
    for os_key in ("linux-x86_64", "linux-aarch64", "windows-x86_64"):
        published = [b.cuda for b in builds.of("2.15", os_key) or []]
        assert "12.6" not in published and "13.0" in published
    source = json.loads((DATA_DIR / "torch_builds.json").read_text("utf-8"))["lines"]["2.15"]["os"]
    assert "loses to the notice" in source["linux-x86_64"]["source"]
    # A V100 (sm_70, which no CUDA 13 build has) under 2.15 is sent to 2.14.1, the last with a 12.6 build.
    plan = install_plan.plan_for("2.15.0", "linux-x86_64", [(7, 0)], 12080, "570.124.06", "linux")
    assert "2.15.0+cu126" not in " ".join(plan.commands)


# "no kernel image" where torch's message names no capability and the writer names the GPU (its model or its
# compute capability): the GPU read from the prose, and whether it needs a newer torch or an older one.
_NO_KERNEL = "no kernel image is available for execution on the device"
_GPU_IN_PROSE = [
    # https://github.com/vllm-project/vllm/issues/19906 (title)
    (f"RTX5080 got CUDA error: {_NO_KERNEL}", "sm_120", "Upgrade PyTorch to 2.7 or newer with a CUDA 12.8"),
    # https://github.com/pytorch/pytorch/issues/30532
    (
        "Version 1.3 no longer supporting Tesla K40m?\nI am using a Tesla K40m, installed pytorch 1.3 with "
        f"conda, using CUDA 10.1\nRuntimeError: CUDA error: {_NO_KERNEL}",
        "sm_35",
        "downgrade to an older torch (before 2.0)",
    ),
    # https://github.com/Kaggle/kaggle-cli/issues/1151 (title and error)
    (
        "machine_shape NvidiaTeslaP100 allocates a P100 but default image's torch (cu128) has no sm_60 "
        f"kernels, so every CUDA opertation fails\nRuntimeError: CUDA error: {_NO_KERNEL}",
        "sm_60",
        "downgrade to an older torch that still has its kernels (torch 2.14 with CUDA 12.6",
    ),
]


@pytest.mark.parametrize(("text", "sm", "fix"), _GPU_IN_PROSE)
def test_no_kernel_image_reads_the_gpu_the_writer_names(text: str, sm: str, fix: str) -> None:
    analysis = explanations.analyse_no_kernel(text)
    assert sm in analysis.evidence[0] and analysis.fix is not None and fix in analysis.fix.text


def test_no_kernel_image_names_each_gpu_when_the_text_names_two_of_different_capabilities() -> None:
    # neither is chosen as the GPU: each is said with its capability (the build may cover one of them)
    text = "works on my RTX 3090 but on the Tesla K80 I get no kernel image is available for execution"
    (line,) = explanations.analyse_no_kernel(text).evidence
    assert "Tesla K80 (3.7)" in line and "RTX 3090 (the GeForce RTX 3090) (8.6)" in line, line
    assert "sm_" not in line


def test_a_model_named_with_its_china_edition_suffix_is_read_as_nvidia_smi_names_it() -> None:
    # "RTX 5090D", "RTX-5090D": nvidia-smi's "NVIDIA GeForce RTX 5090 D", the 5090's China edition (12.0).
    # pytorch/pytorch#149845 (a cu128 build fixed it, the reporter), gpustack/gpustack#1382 (llama-box built
    # with CUDA 12.8, the reporter)
    for text in (
        (
            "I encountered problems when running PyTorch on an RTX 5090D in Ubuntu. I installed PyTorch "
            "(torch) and CUDA in a Conda environment, and the following issues occurred:\n"
            "\n>>> import torch\n>>> x = torch.tensor([0, 1, 1]).to(0)\n"
            ">>> print(x.device)\ncuda:0\n>>> x != 0\nTraceback (most recent call last):\n"
            '  File "<stdin>", line 1, in <module>\nRuntimeError: CUDA error: no kernel image is availab'
            "le for execution on the device\nCUDA kernel errors might be asynchronously reported at some"
            " other API call, so the stacktrace below might be incorrect.\n"
            "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
            "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."
        ),
        (
            "Failed to run llama-box with RTX-5090D - CUDA error: no kernel image is available for ex"
            "ecution on the device"
        ),
    ):
        line = explanations.analyse_no_kernel(text).evidence[0]
        assert "5090D (the GeForce RTX 5090 D): sm_120 (compute capability 12.0)" in line, line


@pytest.mark.parametrize(
    ("cc", "last", "first"),
    [
        # PyPI's Linux wheels: 2.7.1 is CUDA 12.6 (sm_50 on), 2.8.0 CUDA 12.8 (sm_70 on), 2.11.0 CUDA 13.0
        # (sm_75 on), 2.1.0 CUDA 12.1 (sm_50 on) after 2.0's CUDA 11.7 (sm_37 on)
        ((6, 1), ("2.7", "12.6"), ("2.8", "12.8")),
        ((5, 2), ("2.7", "12.6"), ("2.8", "12.8")),
        ((7, 0), ("2.10", "12.8"), ("2.11", "13.0")),
        ((3, 7), ("2.0", "11.7"), ("2.1", "12.1")),
    ],
)
def test_pips_default_builds_dropped_old_gpus_at_these_releases(
    cc: tuple[int, int], last: tuple[str, str], first: tuple[str, str]
) -> None:
    dropped = builds.default_dropped(cc)
    assert dropped is not None
    assert ((dropped[0].line, dropped[0].cuda), (dropped[1].line, dropped[1].cuda)) == (last, first)


@pytest.mark.parametrize("cc", [(7, 5), (8, 6), (9, 0), (12, 0), (12, 1)])
def test_gpus_the_newest_default_build_has_were_never_dropped(cc: tuple[int, int]) -> None:
    assert builds.default_dropped(cc) is None
