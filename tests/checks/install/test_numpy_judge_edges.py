"""The edges of the NumPy verdict: which torch is built for NumPy 1.x on which OS (data/torch_builds.json,
sourced there: pytorch/pytorch#107302 for 2.3.0, #131668 for the Windows wheels of 2.4.1), and what is
said."""

from __future__ import annotations

from typing import Any

import pytest

from torchdoctor.checks.install import builds, numpy_judge
from torchdoctor.model import Finding

ARRAY_API = "Failed to initialize NumPy: _ARRAY_API not found"
NUMPY_2 = {"installed": True, "version": "2.0.0", "warnings": [ARRAY_API]}


def unusable(torch: str, system: str | None, numpy: dict[str, Any] = NUMPY_2) -> Finding:
    facts: dict[str, Any] = {"version": torch, "numpy": numpy}
    if system is not None:
        facts["os"] = {"system": system}
    (finding,) = numpy_judge.findings(facts)
    return finding


def built_for_1(finding: Finding) -> list[str]:
    return [str(d) for d in finding.details if "is built for NumPy 1.x" in str(d)]


@pytest.mark.parametrize(
    ("system", "where"), [("Linux", " for Linux"), ("Darwin", " for macOS"), ("Windows", " for Windows")]
)
def test_a_torch_before_numpy_2_names_the_os_it_was_built_for(system: str, where: str) -> None:
    first = builds.first_for_numpy_2({"Linux": "linux", "Darwin": "macos", "Windows": "windows"}[system])
    assert built_for_1(unusable("2.0.1", system)) == [
        f"torch 2.0.1{where} is built for NumPy 1.x; torch {first} and later{where} run with NumPy 2"
    ]


def test_a_torch_older_than_the_tables_is_built_for_numpy_1_by_the_oldest_lines_source() -> None:
    # NumPy 2 came in 2024; torch 1.x predates it (pytorch/pytorch#107302: support came in torch 2.3.0)
    finding = unusable("1.13.1", "Linux")
    assert built_for_1(finding) == [
        "torch 1.13.1 for Linux is built for NumPy 1.x; torch 2.3 and later for Linux run with NumPy 2"
    ]
    oldest = builds.line_fact(builds.known_lines()[0], "numpy_2")
    assert oldest is not None and f"source: {oldest['source']}" in finding.details
    assert finding.fix is not None and "upgrading torch also works" in finding.fix.text


def test_a_later_windows_patch_than_the_first_built_for_numpy_2_is_too() -> None:
    assert built_for_1(unusable("2.4.2", "Windows")) == []
    assert built_for_1(unusable("2.4.0", "Windows")) != []


def test_an_os_the_table_does_not_name_gets_the_answer_every_os_agrees_on() -> None:
    # 2.5 is built for NumPy 2 everywhere, 2.0 nowhere, 2.3 not on Windows: an unnamed OS is unknown there
    assert built_for_1(unusable("2.5.1", "FreeBSD")) == []
    assert built_for_1(unusable("2.0.1", "FreeBSD")) == [
        "torch 2.0.1 is built for NumPy 1.x; torch 2.3 and later run with NumPy 2"
    ]
    unknown = unusable("2.3.1", "FreeBSD")
    assert built_for_1(unknown) == []
    assert not any(str(d).startswith("source:") for d in unknown.details)
    assert built_for_1(unusable("2.0.1", None)) == [
        "torch 2.0.1 is built for NumPy 1.x; torch 2.3 and later run with NumPy 2"
    ]


def test_a_missing_numpy_beside_a_torch_built_for_numpy_1_asks_for_numpy_1() -> None:
    (missing,) = numpy_judge.findings({"version": "2.0.1", "numpy": {"installed": False}})
    assert missing.fix is not None
    assert (
        missing.fix.text
        == "Install NumPy in the environment torch runs in (this torch is built for NumPy 1.x)."
    )
    (missing,) = numpy_judge.findings({"version": "2.5.1", "numpy": {"installed": False}})
    assert missing.fix is not None
    assert missing.fix.text == "Install NumPy in the environment torch runs in."


def test_the_evidence_names_a_numpy_torch_uses_and_nothing_else() -> None:
    assert numpy_judge.evidence({"numpy": {"installed": True, "version": "1.26.4"}}) == [
        "NumPy 1.26.4: torch uses it"
    ]
    assert numpy_judge.evidence({"numpy": {"installed": False, "version": "1.26.4"}}) == []
    assert numpy_judge.evidence({"numpy": {"installed": True, "version": "2.0.0", "error": "boom"}}) == []
    assert numpy_judge.evidence({"numpy": {"installed": True}}) == []
    assert numpy_judge.evidence({"numpy": {"version": "1.26.4"}}) == ["NumPy 1.26.4: torch uses it"]


def test_the_first_warning_and_first_line_of_the_problem_are_shown() -> None:
    numpy = {"installed": True, "version": "1.26.4", "warnings": ["first line\nsecond line", "another"]}
    finding = unusable("2.5.1", "Linux", numpy)
    assert finding.details[0] == "NumPy 1.26.4: first line"
    long = {"installed": True, "version": "1.26.4", "error": "x" * 400}
    assert unusable("2.5.1", "Linux", long).details[0] == "NumPy 1.26.4: " + "x" * 300
    blank = {"installed": True, "version": "1.26.4", "error": "   "}
    assert unusable("2.5.1", "Linux", blank).details[0] == "NumPy 1.26.4:    "


def test_the_fix_for_numpy_2_beside_a_torch_built_for_numpy_1_names_the_torch_that_runs_with_it() -> None:
    fix = unusable("2.0.1", "Linux").fix
    assert fix is not None and fix.commands == ('pip install "numpy<2"',)
    assert fix.text == (
        "Install NumPy 1.x next to this torch (torch 2.3 and later for Linux are built for NumPy 2, "
        "so upgrading torch also works)."
    )
    numpy_1 = {"installed": True, "version": "1.26.4", "warnings": [ARRAY_API]}
    assert unusable("2.0.1", "Linux", numpy_1).fix != fix  # the explanation's own fix, not this one
    assert unusable("2.5.1", "Linux").fix != fix


def test_a_numpy_2_error_with_no_known_cause_beside_a_torch_built_for_numpy_1_is_reinstalled() -> None:
    numpy = {"installed": True, "version": "2.0.0", "error": "ImportError: boom"}
    fix = unusable("2.0.1", "Linux", numpy).fix
    assert fix is not None
    assert (fix.text, fix.commands) == (
        "Reinstall NumPy in this environment.",
        ("pip install --force-reinstall numpy",),
    )


def test_a_numpy_whose_installation_is_not_said_is_judged_by_what_torch_saw() -> None:
    assert numpy_judge.findings({"version": "2.5.1", "numpy": {"version": "1.26.4"}}) == []
