"""torch.stack on the packages around torch: what the evidence says of each companion, and of none.

A companion's build is its PEP 440 local version (``0.20.1+cu124``: the cu124 wheel index); the release
of torch it is made for comes from the pairing table (pytorch/vision README, "Installation": torchvision
0.20 with torch 2.5; pytorch/audio: torchaudio 2.5 with torch 2.5). Facts go through JSON before they are
judged.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from torchdoctor.checks.install.stack_check import CHECK
from torchdoctor.model import Status

from support import fixture_facts

MATCHED = (
    "a100_stack_matched.json"  # torch 2.5.1+cu124 with torchvision 0.20.1, torchaudio 2.5.1, triton 3.1.0
)
LOOKED_FOR = "torchvision, torchaudio, torchtext, torchdata, triton, xformers, flash-attn, deepspeed, apex"


def judged(**replace: Any) -> Any:
    facts = copy.deepcopy(fixture_facts(MATCHED))
    facts.update(replace)
    reported = json.loads(json.dumps(facts))
    return CHECK.judge({p.name: reported[p.name] for p in CHECK.probes}, {})


def test_each_companion_is_evidence_with_its_build_and_the_torch_release_it_is_made_for() -> None:
    details = [d for d in judged().details if isinstance(d, str)]
    assert details[:3] == [
        "torchvision 0.20.1 (build 0.20.1+cu124), made for torch 2.5",
        "torchaudio 2.5.1 (build 2.5.1+cu124), made for torch 2.5",
        "triton 3.1.0",  # not in the pairing table's companions, and its build is its version
    ]


def test_no_companion_installed_is_said_so_with_what_was_looked_for() -> None:
    comps = copy.deepcopy(fixture_facts(MATCHED)["companions"])
    comps["companions"] = []
    for name in ("torchvision", "torchaudio", "triton"):
        comps["installed"].pop(name, None)
    for pin in comps["pins"]:
        if pin["name"] == "triton":
            pin["applies"] = False  # as for Python 3.13, which torch 2.5.1's triton line leaves out

    verdict = judged(companions=comps)

    assert verdict.status is Status.PASS
    assert verdict.summary.endswith("; no companion package installed")
    assert f"companion packages: none installed (looked for {LOOKED_FOR})" in verdict.details
    assert "companion packages: not known from these facts" not in verdict.details


CU124 = "https://download.pytorch.org/whl/cu124"


@pytest.mark.parametrize(
    ("torch_version", "build", "summary", "command"),
    [
        (
            "2.5.1+cu124",
            "0.20.1+cu118",
            "torchvision 0.20.1+cu118 is a CUDA 11.8 build, but torch 2.5.1+cu124 is CUDA 12.4",
            f"pip install --force-reinstall --no-deps torchvision==0.20.1 --index-url {CU124}",
        ),
        (
            "2.5.1+cu124",
            "0.20.1+cu130",
            "torchvision 0.20.1+cu130 is a CUDA 13.0 build, but torch 2.5.1+cu124 is CUDA 12.4",
            f"pip install --force-reinstall --no-deps torchvision==0.20.1 --index-url {CU124}",
        ),
        (
            # PyPI's torch 2.5.1 for Linux x86_64 is the CUDA 12.4 build without a local label:
            # torch.version.cuda says which CUDA it is
            "2.5.1",
            "0.20.1+cu118",
            "torchvision 0.20.1+cu118 is a CUDA 11.8 build, but torch 2.5.1 is CUDA 12.4",
            "pip install --force-reinstall --no-deps torchvision==0.20.1",
        ),
    ],
)
def test_a_companion_of_another_cuda_major_fails_and_is_reinstalled_for_torchs_cuda(
    torch_version: str, build: str, summary: str, command: str
) -> None:
    # CUDA's minor version compatibility holds within one major only (CUDA Compatibility guide): the
    # extension of a cu118 or cu130 build links libcudart.so.11.0 / .so.13, which a CUDA 12 torch lacks
    torch = copy.deepcopy(fixture_facts(MATCHED)["torch"])
    torch["version"] = torch_version
    comps = copy.deepcopy(fixture_facts(MATCHED)["companions"])
    next(c for c in comps["companions"] if c["name"] == "torchvision")["build_version"] = build

    verdict = judged(torch=torch, companions=comps)

    assert verdict.status is Status.FAIL
    assert verdict.summary == summary
    assert verdict.fix is not None
    assert verdict.fix.text == (
        "Reinstall torchvision 0.20.1 from the index torch came from, built for the same CUDA 12.4 torch."
    )
    assert verdict.fix.commands == (command,)


def test_a_companion_outside_the_pairing_table_fits_where_its_own_requirement_on_torch_holds() -> None:
    # xformers 0.0.28.post3's METADATA: Requires-Dist: torch==2.5.1 (it pins the torch it was built with)
    comps = copy.deepcopy(fixture_facts(MATCHED)["companions"])
    comps["companions"].append(
        {
            "name": "xformers",
            "version": "0.0.28.post3",
            "build_version": "0.0.28.post3",
            "build_version_from": "xformers/version.py",
            "requires_torch": [{"specifier": "==2.5.1", "applies": True, "line": "torch==2.5.1"}],
        }
    )
    comps["installed"]["xformers"] = "0.0.28.post3"

    verdict = judged(companions=comps)

    assert verdict.status is Status.PASS
    assert verdict.summary.endswith(
        "torchvision 0.20.1, torchaudio 2.5.1, triton 3.1.0, xformers 0.0.28.post3 fit torch 2.5.1"
    )
