"""No fix torch.build prints names a wheel that was not published: over a grid of machines (every release line
the tables know, Linux and Windows, GPUs from Kepler to Blackwell, drivers from R470 to R590, every CUDA build
of the line), each ``torch==X+cuNNN`` in a fix is a release of the package index (torch_wheels.json) whose
line published that CUDA build for that OS (torch_builds.json), and each ``--index-url`` names that build."""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest

from torchdoctor.checks.install import builds
from torchdoctor.checks.install.build_check import CHECK

_PIN = re.compile(r"torch==(\d+\.\d+\.\d+)(?:\+(cu\d+|cpu))?")
_INDEX = re.compile(r"--index-url https://download\.pytorch\.org/whl/(cu\d+|cpu)\b")
GPUS = {
    (3, 7): "Tesla K80",
    (5, 2): "GeForce GTX 980",
    (6, 0): "Tesla P100-PCIE-16GB",
    (6, 1): "GeForce GTX 1080 Ti",
    (7, 0): "Tesla V100-SXM2-16GB",
    (7, 5): "Tesla T4",
    (8, 6): "NVIDIA GeForce RTX 3090",
    (9, 0): "NVIDIA H100 80GB HBM3",
    (10, 0): "NVIDIA B200",
    (12, 0): "NVIDIA GeForce RTX 5090",
}
DRIVERS = ("470.256.02", "535.104.05", "575.57.08", "590.44.01")
SYSTEMS = {"Linux": "linux-x86_64", "Windows": "windows-x86_64"}


def _published(release: str, label: str | None, os_key: str) -> bool:
    if release not in builds.WHEELS["releases"]:
        return False
    if label in (None, "cpu"):
        return True
    line = release.rsplit(".", 1)[0]
    cuda = f"{label[2:-1]}.{label[-1]}"
    return any(build.cuda == cuda for build in builds.of(line, os_key) or [])


def _machines() -> list[tuple[str, str, tuple[int, int], str, str]]:
    grid = []
    for line in builds.known_lines():
        release = builds.newest_release(line)
        if release is None:
            continue
        for system, os_key in SYSTEMS.items():
            cudas = sorted({build.cuda for build in builds.of(line, os_key) or [] if build.cuda})
            for cuda, cc, driver in itertools.product(cudas, GPUS, DRIVERS):
                grid.append((release, system, cc, driver, cuda))
    return grid


def _facts(release: str, system: str, cc: tuple[int, int], driver: str, cuda: str) -> dict[str, Any]:
    torch = {
        "importable": True,
        "version": f"{release}+cu{cuda.replace('.', '')}",
        "flavor": "cuda",
        "cuda": cuda,
        "os": {"system": system, "wsl": False},
    }
    gpu = {"index": 0, "name": GPUS[cc], "compute_capability": list(cc)}
    nvml = {"available": True, "gpus": [gpu], "driver_version": driver}
    facts = {"torch": torch, "nvml": nvml, "cuda_driver": {}}
    return {probe.name: facts.get(probe.name, {}) for probe in CHECK.probes}


MACHINES = _machines()


def test_the_grid_covers_every_line_and_both_systems() -> None:
    assert {m[0].rsplit(".", 1)[0] for m in MACHINES} >= {"2.0", "2.7", "2.14"}
    assert len(MACHINES) > 1500


def test_a_wheel_is_published_only_where_its_line_built_it() -> None:
    # 2.6 published cu118, cu124 and cu126 builds; cu128 came with 2.7 (RELEASE.md matrix, rows 2.6 and 2.7)
    assert _published("2.6.0", "cu126", "linux-x86_64") and _published("2.7.0", "cu128", "linux-x86_64")
    assert not _published("2.6.0", "cu128", "linux-x86_64")
    # 2.15 published no CUDA 12.x build (its release notice); 13.4 on Linux only (pytorch/test-infra#8477)
    assert not _published("2.15.0", "cu126", "linux-x86_64")
    assert _published("2.15.0", "cu134", "linux-x86_64")
    assert not _published("2.15.0", "cu134", "windows-x86_64")
    assert not _published("2.6.1", None, "linux-x86_64")  # no such release


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_no_fix_names_a_wheel_that_was_not_published(system: str) -> None:
    unpublished = []
    fixes = 0
    for machine in (m for m in MACHINES if m[1] == system):
        verdict = CHECK.judge(_facts(*machine), {})
        if verdict.fix is None:
            continue
        for command in verdict.fix.commands:
            if "nightly" in command:
                continue
            for release, label in _PIN.findall(command):
                fixes += 1
                if not _published(release, label or None, SYSTEMS[system]):
                    unpublished.append((machine, command))
            for label in _INDEX.findall(command):
                pinned = _PIN.search(command)
                if pinned and not _published(pinned[1], label, SYSTEMS[system]):
                    unpublished.append((machine, command))
    assert fixes > 100
    assert not unpublished, unpublished[:5]
