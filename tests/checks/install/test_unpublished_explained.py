"""``explain`` on pip's "no matching distribution" for torch, on the real texts of tests/corpus/machines
(class 6: a requirement naming a wheel that was never published): what was not published, and a fix that
names only wheels that were (each record's ``expected`` says what its thread established)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from torchdoctor.checks.install import builds
from torchdoctor.checks.install.versions import release_line
from torchdoctor.explain import catalogue, explain

MACHINES = Path(__file__).resolve().parents[2] / "corpus" / "machines"
ENTRIES = catalogue.installed()
_PIN = re.compile(r"torch==(\d+\.\d+\.\d+)\+(cu\d+)")

# record -> words the explanation must hold (from the record's label)
EXPECTED = {
    "6_gooddrag_torch201_cu121_never_published": ("torch 2.0 has no CUDA 12.1 build", "torch==2.0.1+cu118"),
    "6_rtx50_pinned_nightly_gone": ("is a nightly build", "torch==2.7.0+cu128"),
    "6_torch210_cu121_fix_names_260_cu121": ("no wheel of 2.1.0 fits this Python",),
    "6_torch231_cu121_flat_index_no_longer": ("--index-url https://download.pytorch.org/whl/cu121",),
    "6_trellis2_windows_py313_torch2100_cu131": ("no CUDA 13.1 build", "torch==2.10.0+cu130"),
    "6_wan2gp_torch270_cu124_test_index": ("no CUDA 12.4 build", "torch==2.7.0+cu126"),
    "6_windows_py313_torch251_cu124": ("no wheel of 2.5.1 fits this Python", "torch==2.6.0+cu124"),
}
# record -> why explain does not judge it
NOT_JUDGED = {
    "6_blackwell_torch260_cu128_never_published": "no pip error in the text: a question about a fix",
    "6_windows_py38_torch180_cu102_site_command": "torch 1.8: older than the tables (they start at 1.12)",
}


def _published(release: str, label: str) -> bool:
    cuda = f"{label[2:-1]}.{label[-1]}"
    line = release_line(release) or ""
    return release in builds.WHEELS["releases"] and any(
        build.cuda == cuda
        for os_key in ("linux-x86_64", "windows-x86_64")
        for build in builds.of(line, os_key) or []
    )


def test_every_class_6_record_is_judged_or_says_why_not() -> None:
    assert {p.stem for p in MACHINES.glob("6_*.json")} == set(EXPECTED) | set(NOT_JUDGED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_unpublished_part_is_named_and_the_fix_names_published_wheels(name: str) -> None:
    text = json.loads((MACHINES / f"{name}.json").read_text("utf-8"))["text"]
    (first, *_) = explain(text, ENTRIES)
    assert first.id == "pip.torch_not_published"
    fix = first.fix
    words = " ".join([*first.evidence, fix.text, *fix.commands])
    assert all(word in words for word in EXPECTED[name]), words
    pins = [pin for command in fix.commands for pin in _PIN.findall(command)]
    assert pins and all(_published(release, label) for release, label in pins), fix.commands
