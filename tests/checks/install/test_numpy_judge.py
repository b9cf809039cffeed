"""NumPy as torch sees it, judged by torch.stack. The messages are real: from tests/corpus/errors/
numpy.unavailable.json (the ComfyUI report of torch 2.0.1 beside NumPy 2, and torch on Windows beside a NumPy
older than the C-API a module was built for); the NumPy versions beside them are what those messages imply."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from torchdoctor.checks.install import numpy_judge
from torchdoctor.checks.install.stack_check import CHECK
from torchdoctor.model import Status

from support import fixture_facts, judge_fixture

MATCHED = "a100_stack_matched.json"
ARRAY_API = (
    "Failed to initialize NumPy: _ARRAY_API not found (Triggered internally at "
    "/Users/runner/work/pytorch/pytorch/pytorch/torch/csrc/utils/tensor_numpy.cpp:84.)"
)
OLD_API = (
    "Failed to initialize NumPy: module compiled against API version 0xf but this version of numpy is 0xe "
    "(Triggered internally at  ..\\torch\\csrc\\utils\\tensor_numpy.cpp:68.)"
)


def with_numpy(numpy: dict[str, Any]) -> Any:
    torch = copy.deepcopy(fixture_facts(MATCHED)["torch"])
    torch["numpy"] = numpy
    return judge_fixture(CHECK, MATCHED, torch=torch)


def test_numpy_2_beside_a_torch_built_for_numpy_1_warns_with_numpy_below_2() -> None:
    numpy = {"installed": True, "version": "2.0.0", "warnings": [ARRAY_API]}
    (finding,) = numpy_judge.findings({"version": "2.0.1", "numpy": numpy})
    assert finding.status is Status.WARN
    assert finding.summary.startswith(
        "torch cannot use NumPy 2.0.0: tensor.numpy() and torch.from_numpy() fail"
    )
    assert "torch 2.0.1 is built for NumPy 1.x; torch 2.3 and later run with NumPy 2" in finding.details
    assert finding.fix is not None and finding.fix.commands == ('pip install "numpy<2"',)


def test_torch_stack_warns_for_an_unusable_numpy_on_a_matched_stack() -> None:
    verdict = with_numpy({"installed": True, "version": "2.0.0", "warnings": [ARRAY_API]})
    assert verdict.status is Status.WARN
    assert verdict.summary.startswith("torch cannot use NumPy 2.0.0")
    assert not any("is built for NumPy 1.x" in str(d) for d in verdict.details)  # torch 2.5 runs with NumPy 2


def test_a_numpy_older_than_a_module_needs_gets_the_upgrade_explain_gives() -> None:
    (finding,) = numpy_judge.findings(
        {"version": "1.13.1", "numpy": {"installed": True, "version": "1.20.3", "warnings": [OLD_API]}}
    )
    assert "(NumPy 1.22 or later), the installed NumPy has 0xe (NumPy 1.20)" in finding.details[1]
    assert finding.fix is not None and finding.fix.commands == ('pip install --upgrade "numpy>=1.22"',)


def test_a_numpy_that_fails_to_import_warns_and_reinstalls() -> None:
    error = "ImportError: numpy.core.multiarray failed to import"
    (finding,) = numpy_judge.findings({"version": "2.13.0", "numpy": {"installed": True, "error": error}})
    assert finding.summary.startswith("torch cannot use NumPy:")
    assert finding.fix is not None and finding.fix.commands == ("pip install --force-reinstall numpy",)


def test_no_numpy_warns_with_the_install_command_for_this_torch() -> None:
    missing = with_numpy({"installed": False})
    assert missing.status is Status.WARN
    assert missing.summary.startswith("NumPy is not installed: tensor.numpy(), torch.from_numpy() and")
    assert missing.fix is not None and missing.fix.commands == ("pip install numpy",)
    (older,) = numpy_judge.findings({"version": "2.1.2", "numpy": {"installed": False}})
    assert older.fix is not None and older.fix.commands == ('pip install "numpy<2"',)


def test_a_working_numpy_is_named_in_the_evidence() -> None:
    working = with_numpy({"installed": True, "version": "2.1.3"})
    assert working.status is Status.PASS
    assert "NumPy 2.1.3: torch uses it" in working.details


def test_facts_without_numpy_say_nothing_of_it() -> None:
    assert numpy_judge.findings({"version": "2.5.1"}) == []
    assert numpy_judge.evidence({"version": "2.5.1"}) == []


@pytest.mark.parametrize(
    ("torch", "system", "numpy_1"),
    [
        ("2.3.1", "Linux", False),
        ("2.3.1", "Windows", True),  # Windows wheels of 2.3.x and 2.4.0 were built against NumPy 1.x
        ("2.4.0", "Windows", True),
        ("2.4.1", "Windows", False),
        ("2.2.2", "Darwin", True),
    ],
)
def test_numpy_2_support_is_judged_per_os(torch: str, system: str, numpy_1: bool) -> None:
    facts = {"version": torch, "os": {"system": system}}
    (missing,) = numpy_judge.findings({**facts, "numpy": {"installed": False}})
    assert missing.fix is not None
    assert missing.fix.commands == (('pip install "numpy<2"',) if numpy_1 else ("pip install numpy",))
    numpy = {"installed": True, "version": "2.0.0", "warnings": [ARRAY_API]}
    (unusable,) = numpy_judge.findings({**facts, "numpy": numpy})
    named = [d for d in unusable.details if "is built for NumPy 1.x" in str(d)]
    assert bool(named) is numpy_1
    if numpy_1 and system == "Windows":
        assert named == [
            f"torch {torch} for Windows is built for NumPy 1.x; "
            "torch 2.4.1 and later for Windows run with NumPy 2"
        ]
        assert any("#131668" in str(d) for d in unusable.details)
