"""PyTorch's release matrix (data/torch_releases.json): its rows say what their verbatim cells say."""

from __future__ import annotations

import re

import pytest

from torchdoctor.checks.install import releases


def test_the_table_names_its_source() -> None:
    assert "RELEASE.md" in releases.SOURCE and "Release Compatibility Matrix" in releases.SOURCE


@pytest.mark.parametrize("line", sorted(releases.TABLE["releases"]))
def test_each_row_agrees_with_its_verbatim_cells(line: str) -> None:
    row = releases.TABLE["releases"][line]
    cell = row["python_cell"]
    low, high = re.match(r">=(\d+\.\d+), <=\(?(\d+\.\d+)", cell).groups()  # type: ignore[union-attr]
    assert (row["python"]["min"], row["python"]["max"]) == (low, high)
    assert row["python"]["experimental"] == re.findall(r"(\d+\.\d+t?) experimental", cell)
    cuda_cells = f"{row['stable_cuda_cell']} {row['experimental_cuda_cell']}"
    assert row["cuda"] == re.findall(r"CUDA (\d+\.\d+)", cuda_cells)


def test_the_matrix_runs_from_1_12_to_2_14() -> None:
    lines = set(releases.TABLE["releases"])
    assert {"1.12", "1.13", "2.0", "2.5", "2.13", "2.14"} <= lines
    assert releases.release("1.11.0") is None


@pytest.mark.parametrize(
    ("torch", "python", "supported"),
    [
        ("2.5.1+cu124", "3.12.7", True),
        ("2.5.1+cu124", "3.13.0", True),  # "(3.13 experimental)": wheels were published
        ("2.5.1+cu124", "3.8.18", False),
        ("2.2.0+cu121", "3.12.3", True),  # "(3.12 experimental)"
        ("2.4.0", "3.13.1", False),
        ("2.10.0.dev20251008", "3.11.9", True),  # a nightly is judged by its release line
        ("1.12.1", "3.11", False),
        ("2.13.0", "3.15.0", True),
    ],
)
def test_supports_python(torch: str, python: str, supported: bool) -> None:
    row = releases.release(torch)
    assert row is not None
    assert releases.supports_python(row, python) is supported


def test_an_unreadable_python_is_not_judged() -> None:
    row = releases.release("2.5.1")
    assert row is not None and releases.supports_python(row, "three") is None


def test_the_newest_release_for_a_python() -> None:
    newest = releases.newest_for_python("3.8.10")
    assert newest is not None and newest.line == "2.4"
    assert releases.newest_for_python("3.6.9") is None
