"""The machines of the tables' edges, judged as ``torchdoctor check --from FIXTURE`` judges them (the
installed checks on the saved facts, in this process). Each fixture says which published figures it is
built from."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from support import FIXTURES, fixture_facts, judged


def _verdict(name: str, check_id: str = "torch.build", facts: dict[str, Any] | None = None) -> Any:
    [verdict] = judged([check_id], facts if facts is not None else fixture_facts(name))
    return verdict


@pytest.mark.parametrize(
    ("name", "command"),
    [
        # release/2.13 built CUDA 12.9 for Linux only: Windows gets a driver update and the CUDA 13.0 build.
        ("rtx5090_windows_driver576_cpu_wheel.json", "torch==2.13.0+cu130"),
        # The 12.8 builds of 2.8 dropped sm_50/sm_60 and those of 2.11 sm_70: the 12.6 build keeps them.
        ("gtx1080_driver570_torch28_cpu_wheel.json", "torch==2.8.0+cu126"),
        ("v100_driver570_torch211_cpu_wheel.json", "torch==2.11.0+cu126"),
        # NVIDIA's R470 is the last driver for Kepler, and no build of any release has sm_35 kernels.
        ("k40m_driver470_cpu_wheel.json", "torch==2.13.0+cpu"),
        # No torch before 2.15.0 has a cp315 wheel, and 2.15 published no CUDA 12.x build (its release
        # notice): driver 570 needs the update to 580 that the CUDA 13.0 build asks for.
        ("rtx4090_python315_no_torch.json", "torch==2.15.0+cu130"),
        # An installed 2.13 CUDA 12.6 build has no sm_120 kernels; 2.13's CUDA 12.9 build does, and driver 570
        # runs it through minor-version compatibility.
        ("rtx5090_cu126_wheel.json", "torch==2.13.0+cu129"),
    ],
)
def test_each_machine_gets_the_build_that_installs_and_runs_there(name: str, command: str) -> None:
    verdict = _verdict(name)
    assert verdict.status.value == "fail"
    assert verdict.fix is not None and len(verdict.fix.commands) == 1
    assert f'"{command}"' in verdict.fix.commands[0]


def test_the_windows_rtx_5090_is_told_the_driver_its_build_needs() -> None:
    verdict = _verdict("rtx5090_windows_driver576_cpu_wheel.json")
    assert "Update the NVIDIA driver to 580 or later" in verdict.fix.text
    assert not any("cu129" in c for c in verdict.fix.commands)


def test_kepler_is_told_its_last_driver_branch_not_a_driver_update() -> None:
    verdict = _verdict("k40m_driver470_cpu_wheel.json")
    assert "R470" in verdict.fix.text and "Update the NVIDIA driver" not in verdict.fix.text


def test_the_2_13_cu126_wheel_fails_sm_120_even_without_its_arch_list_in_the_facts() -> None:
    # A collect_env dump has no arch list: the wheel's own table (PYTORCH_RELEASES_CODE_CC) says no sm_120.
    facts = copy.deepcopy(fixture_facts("rtx5090_cu126_wheel.json"))
    del facts["torch"]["arch_list"]
    verdict = _verdict("", facts=facts)
    assert verdict.status.value == "fail" and "no kernel image" in verdict.summary
    assert any("PYTORCH_RELEASES_CODE_CC['12.6']" in str(d) for d in verdict.details)


def test_a_torch_newer_than_the_tables_is_judged_honestly() -> None:
    verdict = _verdict("h100_torch216_nightly.json")
    assert verdict.status.value == "pass"  # driver and arch list judged from the facts themselves
    assert any("does not know torch 2.16 yet" in str(d) for d in verdict.details)


def test_numpy_2_beside_a_windows_torch_2_3_is_told_numpy_1_or_torch_2_4_1() -> None:
    verdict = _verdict("rtx3060_windows_torch231_numpy2.json", "torch.stack")
    assert verdict.status.value == "warn" and "torch cannot use NumPy 2.0.0" in verdict.summary
    assert "torch 2.3.1+cu121 for Windows is built for NumPy 1.x" in " ".join(map(str, verdict.details))
    assert verdict.fix is not None and verdict.fix.commands == ('pip install "numpy<2"',)
    assert "torch 2.4.1 and later for Windows" in verdict.fix.text


def test_mps_on_macos_13_with_torch_2_9_names_the_macos_that_release_needs() -> None:
    verdict = _verdict("macbook_m1_macos13_torch29.json")
    assert verdict.status.value == "warn"
    assert "macOS 13.6.7 is older than 14.0, which torch 2.9 needs for MPS" in verdict.summary
    assert verdict.fix is not None and "macOS 14.0 or newer" in verdict.fix.text


@pytest.mark.parametrize(
    "name", sorted(p.name for p in FIXTURES.glob("*.json") if "torch" in fixture_facts(p.name))
)
def test_no_fix_of_the_install_checks_is_a_broken_sentence(name: str) -> None:
    """A fix names a version, a branch, or the document that does: never "a newer release or later"."""
    facts = fixture_facts(name)
    for check_id in ("torch.build", "torch.stack"):
        for verdict in judged([check_id], facts):
            text = verdict.summary + (verdict.fix.text if verdict.fix else "")
            assert "a newer release" not in text
