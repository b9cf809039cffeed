"""torch.stack end to end on this machine: its own torch read for real; a torchvision of another torch."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from torchdoctor.checks.install import pairing

from support import (
    cpu_only_torch,
    install_without_deps,
    linked_venv,
    run_cli,
    torch_here,
    validated_report,
)

# torchvision releases on PyPI (CUDA 13.0 builds, torchvision/version.py) with the torch their metadata
# requires; the test installs the one made for another torch than the installed one.
TORCHVISIONS = {"0.29.1": "torch (>=2.14.0)", "0.28.0": "torch (==2.13.0)"}
OTHER_TORCHVISION = next(
    (v for v in TORCHVISIONS if pairing.pair("torchvision", v, str(torch_here()["version"])).fits is False),
    None,
)


def _stack_verdict(report: dict[str, Any]) -> dict[str, Any]:
    [verdict] = [v for v in report["verdicts"] if v["id"] == "torch.stack"]
    return verdict


@pytest.fixture(scope="session")
def torchvision_venv(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A throwaway venv sharing this torch by symlinks, with the other torch's torchvision installed without
    its dependencies, as `pip install --no-deps` leaves it."""
    if OTHER_TORCHVISION is None:
        pytest.skip(
            f"the pairing table knows none of torchvision {sorted(TORCHVISIONS)} not to fit this torch"
        )
    python, _ = linked_venv(tmp_path_factory.mktemp("stack") / "venv", leave_out=("torchvision",))
    wanted = f"torchvision=={OTHER_TORCHVISION}"
    installed = install_without_deps(python, wanted, timeout=240)
    if installed.returncode != 0:
        pytest.skip(f"pip could not install {wanted} here: {installed.stderr.strip()[-300:]}")
    return python


def test_this_torch_maps_its_own_openmp_runtime_and_the_libraries_of_its_build(
    live_run: dict[str, Any],
) -> None:
    report = live_run["report"]
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
        assert shipped.get(lib["path"]) == "torch", "torch's wheel ships the OpenMP runtime it loads"
    # "OpenMP runtime loaded from torch's own wheel" on a CPU build; a CUDA build lists its libraries first
    assert re.search(r"OpenMP runtime loaded from torch's (own wheel|wheels)", verdict["summary"])
    # the libraries found are those the torch process maps, as torch imported here maps them
    mapped = {os.path.realpath(path) for path in torch_here()["mapped"]}
    assert {os.path.realpath(lib["path"]) for lib in libs["libraries"]} <= mapped
    cuda_libraries = [lib for lib in libs["libraries"] if lib["family"] != "openmp"]
    if cpu_only_torch():
        assert not cuda_libraries, "a CPU torch maps no CUDA library"
    else:
        assert {lib["family"] for lib in cuda_libraries} >= {"cudart", "cublas"}, cuda_libraries


def test_a_torchvision_made_for_another_torch_fails_with_the_expected_pairing_and_the_operator_error(
    torchvision_venv: str,
) -> None:
    assert OTHER_TORCHVISION is not None
    result = run_cli("check", "--only", "torch.stack", "--json", python=torchvision_venv, timeout=120)
    assert result.returncode == 1, result.stderr
    report = validated_report(result.stdout)
    verdict = _stack_verdict(report)
    assert verdict["status"] == "fail"
    torch_version = str(torch_here()["version"])
    pair = pairing.pair("torchvision", OTHER_TORCHVISION, torch_version)
    assert verdict["summary"].startswith(
        f"torchvision {OTHER_TORCHVISION} is made for {pair.made_for}; "
        f"torch {torch_version} pairs with torchvision {pair.expected}"
    )
    # the error text is torchvision's own, raised while it was imported in the probe worker
    [attempt] = report["facts"]["companion_operators"]["tries"]
    kind, _, message = attempt["import_error"].partition(": ")
    assert re.fullmatch(r"\w+(Error|Exception)", kind), attempt
    assert f'"{message}"' in verdict["summary"]
    assert f"import torchvision: {attempt['import_error']}" in verdict["details"]
    requires = TORCHVISIONS[OTHER_TORCHVISION].replace("torch (", "").rstrip(")")
    assert f"torchvision {OTHER_TORCHVISION} requires torch{requires} (its metadata)" in verdict["details"]
    if cpu_only_torch():
        # PyPI's torchvision is a CUDA 13.0 build (torchvision/version.py), beside this CPU-only torch
        cpu_only = f"CUDA 13.0 build; torch {torch_version} is CPU-only"
        assert any(cpu_only in str(d) for d in verdict["details"])
    [command] = verdict["fix"]["commands"]
    assert command.startswith(f"pip install torchvision=={pair.expected}")
    assert (
        Path(report["facts"]["companions"]["companions"][0]["metadata"]).name
        == f"torchvision-{OTHER_TORCHVISION}.dist-info"
    )
