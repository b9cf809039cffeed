"""torch.stack end to end on this CPU machine: its own torch read for real; a torchvision of another torch."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from support import install_without_deps, linked_venv, run_cli, validated_report

# A torchvision release made for another torch (0.29.1 requires torch>=2.14.0), from the local index.
OTHER_TORCHVISION = "torchvision==0.29.1"


def _stack_verdict(report: dict[str, Any]) -> dict[str, Any]:
    [verdict] = [v for v in report["verdicts"] if v["id"] == "torch.stack"]
    return verdict


@pytest.fixture(scope="session")
def torchvision_venv(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A throwaway venv sharing this torch 2.13.0 (CPU) by symlinks, with the other torch's torchvision
    installed without its dependencies, as `pip install --no-deps` leaves it."""
    python, _ = linked_venv(tmp_path_factory.mktemp("stack") / "venv", leave_out=("torchvision",))
    installed = install_without_deps(python, OTHER_TORCHVISION, timeout=240)
    if installed.returncode != 0:
        pytest.skip(f"pip could not install {OTHER_TORCHVISION} here: {installed.stderr.strip()[-300:]}")
    return python


def test_this_cpu_torch_maps_its_own_openmp_runtime() -> None:
    result = run_cli("check", "--only", "torch.stack", "--json", timeout=120)
    assert result.returncode == 0, result.stderr
    report = validated_report(result.stdout)
    verdict = _stack_verdict(report)
    assert verdict["status"] == "pass"
    libs = report["facts"]["loaded_libraries"]
    assert libs["source"] == "/proc/self/maps"
    openmp = [lib for lib in libs["libraries"] if lib["family"] == "openmp"]
    assert openmp, libs
    for lib in openmp:
        assert lib["base"] in ("libgomp", "libiomp5")
        assert os.path.isfile(lib["path"])
        shipped = {copy["path"]: copy["wheel"] for copy in libs["wheel_files"][lib["base"]]}
        assert shipped.get(lib["path"]) == "torch", "torch's CPU wheel ships the OpenMP runtime it loads"
    assert not [lib for lib in libs["libraries"] if lib["family"] != "openmp"], (
        "a CPU torch maps no CUDA library"
    )
    assert "OpenMP runtime loaded from torch's own wheel" in verdict["summary"]


def test_a_torchvision_made_for_another_torch_fails_with_the_expected_pairing_and_the_operator_error(
    torchvision_venv: str,
) -> None:
    result = run_cli("check", "--only", "torch.stack", "--json", python=torchvision_venv, timeout=120)
    assert result.returncode == 1, result.stderr
    report = validated_report(result.stdout)
    verdict = _stack_verdict(report)
    assert verdict["status"] == "fail"
    assert verdict["summary"].startswith(
        "torchvision 0.29.1 is made for torch 2.14; torch 2.13.0+cpu pairs with torchvision 0.28.0"
    )
    # the error text is torchvision's own, raised while it was imported in the probe worker
    [attempt] = report["facts"]["companion_operators"]["tries"]
    assert attempt["import_error"] == "RuntimeError: operator torchvision::nms does not exist"
    assert '"operator torchvision::nms does not exist"' in verdict["summary"]
    assert "import torchvision: RuntimeError: operator torchvision::nms does not exist" in verdict["details"]
    assert "torchvision 0.29.1 requires torch>=2.14.0 (its metadata)" in verdict["details"]
    # PyPI's 0.29.1 is a CUDA 13.0 build (torchvision/version.py), beside this CPU-only torch
    assert any("CUDA 13.0 build; torch 2.13.0+cpu is CPU-only" in str(d) for d in verdict["details"])
    assert verdict["fix"]["commands"] == [
        "pip install torchvision==0.28.0 --index-url https://download.pytorch.org/whl/cpu"
    ]
    assert (
        Path(report["facts"]["companions"]["companions"][0]["metadata"]).name
        == "torchvision-0.29.1.dist-info"
    )
