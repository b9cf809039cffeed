"""torch.build and torch.stack on partial facts (a collect_env dump's) and on the findings added for them:
a Python the release does not support, a GPU the build's CUDA cannot reach, torch installed twice, a
companion release beside a nightly, triton against the table, and the install plans of older releases."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from torchdoctor.checks.install import (
    build_check,
    companions_judge,
    companions_probe,
    cuda_compat,
    stack_check,
)
from torchdoctor.inputs import collect_env
from torchdoctor.model import Status

from corpus_tools import splits
from support import fixture_facts, judge_fixture

MATCHED = "a100_stack_matched.json"


def corpus_facts(name: str) -> dict[str, Any]:
    dump = collect_env.find(json.loads(splits.find("collect_env", name).read_text())["text"])
    assert dump is not None
    facts: dict[str, Any] = dump.to_report(name)["facts"]
    return facts


def judge(check: Any, facts: dict[str, Any]) -> Any:
    return check.CHECK.judge({p.name: facts[p.name] for p in check.CHECK.probes}, {})


def build_with(name: str, **torch_changes: Any) -> Any:
    facts = fixture_facts(name)
    torch = copy.deepcopy(facts["torch"])
    for key, value in torch_changes.items():
        if value is None:
            torch.pop(key, None)
        else:
            torch[key] = value
    return judge_fixture(build_check.CHECK, name, torch=torch)


# --- torch.build: Python support --------------------------------------------------------------------------


def test_a_python_the_release_does_not_support_warns_with_the_newest_release_that_does() -> None:
    verdict = build_with("h100x8_cvd_2_3.json", python="3.9.18")
    assert verdict.status is Status.WARN
    assert verdict.summary == (
        "torch 2.13.0 has no wheel for Python 3.9: its wheels are for Python 3.10, 3.11, 3.12, 3.13, 3.14"
    )
    assert "package index" in " ".join(str(d) for d in verdict.details)
    assert verdict.fix is not None and verdict.fix.commands == ("pip install torch==2.8.0",)


def test_a_python_no_release_supports_gets_an_environment_with_a_supported_one() -> None:
    verdict = build_with("h100x8_cvd_2_3.json", python="3.99.0")
    assert verdict.status is Status.WARN
    assert verdict.fix is not None and verdict.fix.commands == ("conda create -n torch python=3.14",)


def test_the_live_fixtures_keep_their_verdicts_on_python() -> None:
    assert build_with("h100x8_cvd_2_3.json").status is Status.PASS  # 3.11.9 on 2.13
    assert (
        build_with("h100x8_cvd_2_3.json", version="1.11.0+cu113").status is Status.PASS
    )  # not in the matrix


# --- torch.build: a GPU the build's CUDA cannot reach, without an arch list --------------------------------


def test_without_an_arch_list_the_tables_arch_list_of_the_build_fails_a_gpu_it_lacks() -> None:
    # 2.13+cu126 on an RTX 5090: the table's arch list of that wheel has neither sm_120 nor PTX.
    verdict = build_with("rtx5090_cu126_wheel.json", arch_list=None, cuda_warnings=[])
    assert verdict.status is Status.FAIL
    assert "this torch has no kernels for it" in verdict.summary
    assert any("PYTORCH_RELEASES_CODE_CC['12.6']['x86_64']" in str(d) for d in verdict.details)
    assert verdict.fix is not None
    assert verdict.fix.commands == (
        'pip install "torch==2.13.0+cu129" --index-url https://download.pytorch.org/whl/cu129',
    )


def test_without_an_arch_list_a_gpu_older_than_the_cuda_fails_and_gets_the_cpu_build() -> None:
    verdict = judge(build_check, corpus_facts("pytorch_pytorch_31876"))
    lines = [verdict.summary, *map(str, verdict.details)]
    assert any("GeForce 210 (CC 1.2, sm_12): this torch has no kernels for it" in line for line in lines)
    assert any("CUDA 10.0 compiles for CC 3.0 and newer only" in line for line in lines)
    assert verdict.fix is not None
    assert (
        'pip install "torch==1.2.0+cpu" --index-url https://download.pytorch.org/whl/cpu'
        in verdict.fix.commands
    )


def test_an_empty_live_arch_list_is_still_not_judged() -> None:
    assert build_with("rtx5090_cu126_wheel.json", arch_list=[], cuda_warnings=[]).status is Status.PASS


@pytest.mark.parametrize(
    ("cuda", "cc", "status"),
    [
        ("10.0", (1, 2), "below"),
        ("10.0", (3, 0), "within"),
        ("11.7", (8, 9), "within"),  # sm_86 kernels run on 8.9
        ("12.1", (12, 0), "above"),
        ("12.8", (12, 0), "within"),
        ("12.9", (5, 0), "within"),
        ("13.0", (6, 1), "below"),
        ("10.1.243", (7, 5), "within"),
        ("6.5", (3, 0), "unknown"),
    ],
)
def test_toolkit_reach(cuda: str, cc: tuple[int, int], status: str) -> None:
    assert cuda_compat.toolkit_reach(cuda, cc).status == status


# --- torch.build: install plans for releases other than 2.13 ----------------------------------------------


def test_a_cpu_wheel_of_an_older_release_gets_that_releases_cuda_build() -> None:
    verdict = judge(build_check, corpus_facts("pytorch_pytorch_122924"))
    assert verdict.status is Status.FAIL
    assert verdict.fix is not None
    # torch 2.2's Windows CUDA 12.1 build has sm_86, which runs on this RTX 4080 Laptop GPU (CC 8.9): a build
    # change of the installed release, not a release change.
    assert verdict.fix.text.endswith(
        "Install torch 2.2.2 built for CUDA 12.1, which this driver runs and which has kernels for these "
        "GPUs."
    )
    assert verdict.fix.commands == (
        'pip install "torch==2.2.2+cu121" --index-url https://download.pytorch.org/whl/cu121',
    )


def test_a_release_without_a_build_for_the_gpu_gets_the_newest_release_that_runs_here() -> None:
    verdict = judge(build_check, corpus_facts("pytorch_pytorch_150733"))
    assert verdict.status is Status.FAIL and "no kernel image" in verdict.summary
    assert verdict.fix is not None
    assert "No CUDA build of torch 2.6 for Linux x86_64 is known to run here" in verdict.fix.text
    # Driver 570 (CUDA 12.8): the newer releases' CUDA 13 builds need 580; 2.13's CUDA 12.9 build has sm_120
    # and runs on 570 through minor-version compatibility.
    assert verdict.fix.commands == (
        'pip install "torch==2.13.0+cu129" --index-url https://download.pytorch.org/whl/cu129',
    )


def test_a_driver_too_old_for_every_build_has_no_command_that_would_not_run() -> None:
    verdict = judge(build_check, corpus_facts("lhotse_speech_lhotse_793"))
    assert verdict.status is Status.FAIL
    assert "driver is too old" in verdict.summary
    assert any("found version 9010" in str(d) for d in verdict.details)
    assert verdict.fix is not None and verdict.fix.text == "Update the NVIDIA driver to 440.33 or later."


def test_partial_facts_say_what_they_do_not_know() -> None:
    verdict = judge(build_check, corpus_facts("pytorch_pytorch_167679"))
    assert verdict.status is Status.PASS
    assert "build is not known from these facts" in verdict.summary
    assert "NVIDIA driver: not known from these facts" in verdict.details
    assert not any("imported from None" in str(d) for d in verdict.details)


# --- torch.stack: torch installed twice -------------------------------------------------------------------


def test_two_torch_distributions_on_the_path_fail_with_uninstall_and_reinstall() -> None:
    comps = copy.deepcopy(fixture_facts(MATCHED)["companions"])
    site = "/opt/venv/lib/python3.11/site-packages"
    comps["torch_installs"] = [
        {"version": "2.5.1+cu124", "metadata": f"{site}/torch-2.5.1+cu124.dist-info", "installer": "pip"},
        {"version": "2.4.0", "metadata": f"{site}/torch-2.4.0.dist-info", "installer": "conda"},
    ]
    verdict = judge_fixture(stack_check.CHECK, MATCHED, companions=comps)
    assert verdict.status is Status.FAIL
    assert verdict.summary.startswith("torch is installed twice in this environment: 2 torch distributions")
    assert verdict.fix is not None
    assert verdict.fix.commands == (
        "pip uninstall -y torch",
        "pip uninstall -y torch",
        "pip install --force-reinstall --no-deps torch==2.5.1 --index-url https://download.pytorch.org/whl/cu124",
    )


def test_one_torch_distribution_passes() -> None:
    comps = copy.deepcopy(fixture_facts(MATCHED)["companions"])
    comps["torch_installs"] = [{"version": "2.5.1+cu124", "metadata": "/x/torch-2.5.1.dist-info"}]
    assert judge_fixture(stack_check.CHECK, MATCHED, companions=comps).status is Status.PASS


def test_pip_and_conda_lists_naming_two_releases_fail() -> None:
    verdict = judge(stack_check, corpus_facts("pytorch_pytorch_28321"))
    assert verdict.status is Status.FAIL
    assert "installed twice" in verdict.summary
    assert verdict.fix is not None
    assert verdict.fix.commands == (
        "pip uninstall -y torch",
        "conda install --force-reinstall -y pytorch==1.3.0 -c pytorch",
    )


@pytest.mark.parametrize(
    "listed",
    [
        [
            ("pip", "torch", "1.4.0", None, None),
            ("conda", "pytorch", "1.4.0", "py3.7_cuda10.0.130_cudnn7.6.3_0", "pytorch"),
        ],
        [("pip", "torch", "1.6.0", None, None), ("conda", "torch", "1.6.0", "<pip>", None)],
        [("pip", "torch", "1.7.0+cu110", None, None), ("conda", "torch", "1.7.0+cu110", "pypi_0", "pypi")],
    ],
)
def test_lists_naming_one_install_twice_pass(listed: list[tuple[Any, ...]]) -> None:
    from torchdoctor.checks.install import torch_installs

    installs = [
        {"listed_by": by, "name": name, "version": version, "build": build, "channel": channel}
        for by, name, version, build, channel in listed
    ]
    assert torch_installs.findings({"version": listed[0][2]}, {"torch_installs": installs}) == []


def test_the_companions_probe_finds_every_torch_distribution(tmp_path: Path) -> None:
    paths = []
    for index, version in enumerate(("2.5.1", "2.4.0")):
        info = tmp_path / f"site{index}" / f"torch-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n")
        (info / "RECORD").write_text(f"torch-{version}.dist-info/METADATA,,\n")
        (info / "INSTALLER").write_text("pip\n")
        paths.append(str(info.parent))
    installs = companions_probe.torch_installs(paths)
    assert [(i["version"], i["installer"]) for i in installs] == [("2.5.1", "pip"), ("2.4.0", "pip")]
    assert len({i["metadata"] for i in installs}) == 2
    assert len(companions_probe.torch_installs(paths[:1] * 2)) == 1  # one folder on the path twice


# --- torch.stack: companions judged without their metadata -------------------------------------------------


def test_a_companion_release_beside_a_nightly_is_judged_by_its_torch_line() -> None:
    verdict = judge(stack_check, corpus_facts("pytorch_pytorch_78343"))
    lines = [verdict.summary, *map(str, verdict.details)]
    assert any(
        "torchvision 0.12.0 is made for torch 1.11, not for torch 1.13.0.dev20220525" in x for x in lines
    )
    assert any("torchaudio 0.11.0 is made for torch 1.11" in x for x in lines)
    assert verdict.fix is not None
    assert "pip install --pre torchvision --index-url https://download.pytorch.org/whl/nightly/cpu" in (
        verdict.fix.commands
    )


def test_nightly_companions_beside_a_nightly_pass() -> None:
    assert judge(stack_check, corpus_facts("pytorch_pytorch_164943")).status is Status.PASS


def test_triton_from_a_package_list_is_judged_against_the_tables_pin() -> None:
    facts = copy.deepcopy(fixture_facts(MATCHED))
    comps = {k: v for k, v in facts["companions"].items() if k != "pins"}
    comps["installed"]["triton"] = "3.0.0"
    torch = {**facts["torch"], "os": {"system": "Linux"}, "machine": "x86_64"}
    verdict = judge_fixture(stack_check.CHECK, MATCHED, companions=comps, torch=torch)
    assert verdict.status is Status.FAIL
    assert verdict.summary == "triton 3.0.0 is installed, but torch 2.5.1+cu124 requires triton==3.1.0"
    assert verdict.fix is not None and verdict.fix.commands == ("pip install triton==3.1.0",)
    comps["installed"]["triton"] = "3.1.0"
    assert judge_fixture(stack_check.CHECK, MATCHED, companions=comps, torch=torch).status is Status.PASS


def test_a_table_row_of_a_release_line_installs_the_patch_that_fits_torch() -> None:
    command = companions_judge.install_command("torchvision", "0.8", "1.7.0+cu110")
    assert (
        command
        == 'pip install "torchvision==0.8.*" "torch==1.7.0" --index-url https://download.pytorch.org/whl/cu110'
    )
    assert (
        companions_judge.install_command("torchvision", "0.20.1", "2.5.1")
        == "pip install torchvision==0.20.1"
    )


def test_unknown_companions_are_said_to_be_unknown() -> None:
    verdict = judge(stack_check, corpus_facts("pytorch_pytorch_32524"))
    # No package list and no loaded libraries: nothing was checked, so not a pass.
    assert verdict.status is Status.SKIP
    assert "nothing of its stack is known from these facts" in verdict.summary
