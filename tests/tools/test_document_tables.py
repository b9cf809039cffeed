"""The tables read from documents (PyTorch's release matrix, NVIDIA's driver tables): how the generators read
the rows, which source wins where two disagree, and a bad source refused in one line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tools import driver_table, release_matrix, update_tables  # noqa: E402

SOURCES = ROOT / "tools" / "sources"
DATA = ROOT / "checks" / "install" / "data"
MATRIX_TEXT = (SOURCES / "release_matrix.md").read_text(encoding="utf-8")
NVIDIA: dict[str, Any] = json.loads((SOURCES / "nvidia_drivers.json").read_text(encoding="utf-8"))
WHEELS: dict[str, Any] = json.loads((DATA / "torch_wheels.json").read_text(encoding="utf-8"))["releases"]


def _matrix_row(line: str) -> dict[str, str]:
    return next(row for row in release_matrix.parse_matrix(MATRIX_TEXT) if row["release"] == line)


def test_every_release_line_of_the_matrix_is_read() -> None:
    lines = [row["release"] for row in release_matrix.parse_matrix(MATRIX_TEXT)]
    assert lines[0] == "2.14" and lines[-1] == "1.12" and len(lines) == 17


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        # 2.14's form: every CUDA version with its own cuDNN and NCCL in parentheses
        (
            "CUDA 12.6 (CUDNN 9.10.2.21) (NCCL 2.29.3), CUDA 13.0 (CUDNN 9.24.0.43) (NCCL 2.30.7)",
            {
                "12.6": {"cudnn": "9.10.2.21", "nccl": "2.29.3"},
                "13.0": {"cudnn": "9.24.0.43", "nccl": "2.30.7"},
            },
        ),
        # 2.5's form: one cuDNN after the versions, for all of them
        (
            "CUDA 11.8, CUDA 12.1, CUDA 12.4, CUDNN 9.1.0.70",
            {"11.8": {"cudnn": "9.1.0.70"}, "12.1": {"cudnn": "9.1.0.70"}, "12.4": {"cudnn": "9.1.0.70"}},
        ),
        # 2.6's form: the parenthesis belongs to 12.4 alone; 11.8 has no cuDNN in the matrix
        ("CUDA 11.8, CUDA 12.4 (CUDNN 9.1.0.70)", {"11.8": {}, "12.4": {"cudnn": "9.1.0.70"}}),
        ("None", {}),
        ("--", {}),
    ],
)
def test_the_libraries_of_each_cuda_version_are_read_from_every_form_of_the_cell(
    cell: str, expected: dict[str, dict[str, str]]
) -> None:
    assert release_matrix.libraries_by_cuda(cell) == expected


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        (">=3.10, <=(3.15, 3.15t experimental)", {"min": "3.10", "max": "3.15", "experimental": ["3.15t"]}),
        (">=3.9, <=3.13, (3.13t experimental)", {"min": "3.9", "max": "3.13", "experimental": ["3.13t"]}),
        (">=3.8, <=3.11, (3.12 experimental)", {"min": "3.8", "max": "3.11", "experimental": ["3.12"]}),
        (">=3.7, <=3.10", {"min": "3.7", "max": "3.10", "experimental": []}),
    ],
)
def test_the_python_range_is_read_from_every_form_of_the_cell(cell: str, expected: dict[str, Any]) -> None:
    assert release_matrix.python_range(cell) == expected


def test_where_the_matrix_and_the_wheel_disagree_both_are_kept_and_the_wheels_pin_wins() -> None:
    # RELEASE.md gives cuDNN 9.17.1.4 for 2.11's CUDA 13.0 builds; torch 2.11.0's wheel on PyPI (a CUDA 13.0
    # build) pins nvidia-cudnn-cu13==9.19.0.56. The pin is what pip installs beside that wheel, so it wins.
    row = release_matrix.release_row(_matrix_row("2.11"), WHEELS)
    assert row["libraries"]["13.0"]["cudnn"] == "9.19.0.56"
    assert row["stable_cuda_cell"].endswith(
        "CUDA 13.0 (CUDNN 9.17.1.4) (NCCL 2.28.9)"
    )  # the cell stays verbatim
    (disagreement,) = row["disagreements"]
    assert disagreement["matrix"] == "9.17.1.4" and disagreement["wheel"] == "9.19.0.56"
    assert disagreement["wins"] == "wheel" and "nvidia-cudnn-cu13==9.19.0.56" in disagreement["why"]


def test_a_line_whose_wheel_agrees_with_the_matrix_records_no_disagreement() -> None:
    # torch 2.13.0's wheel is a CUDA 13.0 build pinning nvidia-cudnn-cu13==9.20.0.48 and
    # nvidia-nccl-cu13==2.29.7
    pins = release_matrix.wheel_pins(WHEELS["2.13.0"])
    assert WHEELS["2.13.0"]["pypi_cuda"] == "13.0" and pins["cudnn"][0] == "9.20.0.48"
    row = release_matrix.release_row(_matrix_row("2.13"), WHEELS)
    assert "disagreements" not in row and row["libraries"]["13.0"] == {"cudnn": "9.20.0.48", "nccl": "2.29.7"}


def test_a_matrix_without_its_columns_is_refused_in_one_line(tmp_path: Path, capsys: Any) -> None:
    broken = tmp_path / "matrix.md"
    broken.write_text("| PyTorch version | Python |\n| --- | --- |\n| 2.14 | >=3.10 |\n", encoding="utf-8")
    assert update_tables.main(["--offline", "--check", "--quiet", "--matrix", str(broken)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("update_tables: the matrix has no column") and err.count("\n") == 1


def _rows(*rows: tuple[str, str, str, str | None]) -> list[dict[str, Any]]:
    return [
        {"cuda": c, "label": label, "linux": linux, "windows": windows} for c, label, linux, windows in rows
    ]


def test_the_ga_row_is_the_driver_a_cuda_version_needs_not_its_rc_nor_its_updates() -> None:
    # Table 3 of the CUDA 11.6 release notes: 11.0's RC row needs less than its GA row; 8.0's second GA (GA2)
    # and 11.4's Update rows need more.
    edition = {
        "edition": "e",
        "url": "u",
        "rows": _rows(
            ("11.4", "CUDA 11.4 Update 1", "470.57.02", "471.41"),
            ("11.4", "CUDA 11.4.0 GA", "470.42.01", "471.11"),
            ("11.0", "CUDA 11.0.2 GA", "450.51.05", "451.48"),
            ("11.0", "CUDA 11.0.1 RC", "450.36.06", "451.22"),
            ("8.0", "CUDA 8.0 (8.0.61 GA2)", "375.26", "376.51"),
            ("8.0", "CUDA 8.0 (8.0.44)", "367.48", "369.30"),
        ),
    }
    drivers = driver_table.min_driver([edition])
    assert [drivers[v]["linux"] for v in ("8.0", "11.0", "11.4")] == ["367.48", "450.51.05", "470.42.01"]
    assert list(drivers) == ["8.0", "11.0", "11.4"]


def test_the_newest_edition_wins_and_an_older_editions_other_figure_is_kept() -> None:
    # CUDA 9.1.85: the 9.2 release notes' Table 3 says 387.26 / 388.19, the 11.6 edition 390.46 / 391.29.
    table = driver_table.drivers_table(NVIDIA)
    row = table["min_driver"]["9.1"]
    assert (row["linux"], row["windows"]) == ("390.46", "391.29") and "11.6" in row["source"]
    (older,) = row["also"]
    assert (older["linux"], older["windows"]) == ("387.26", "388.19") and "9.2 release notes" in older[
        "source"
    ]


@pytest.mark.parametrize(
    ("branch", "cuda"), [("390", "9.1"), ("470", "11.4"), ("580", "13.0"), ("590", "13.1")]
)
def test_the_cuda_a_driver_branch_runs_is_read_from_table_3(branch: str, cuda: str) -> None:
    # R390 is Fermi's last branch (CUDA 9.2 needs 396.26), R470 Kepler's (11.5 needs 495.29.05), R580 that of
    # Maxwell, Pascal and Volta (13.1 needs 590.44.01)
    drivers = driver_table.min_driver(NVIDIA["table3"])
    assert driver_table.branch_cuda(branch, drivers) == cuda


def test_a_stated_cuda_newer_than_table_3_allows_is_refused() -> None:
    source = json.loads(json.dumps(NVIDIA))
    source["last_driver_branch"]["3"]["cuda"] = "11.8"  # R470 cannot run CUDA 11.8 (520.61.05)
    with pytest.raises(
        driver_table.DriverSourceError, match=r"R470 supports CUDA 11\.8, Table 3 gives 11\.4"
    ):
        driver_table.drivers_table(source)


def test_the_committed_driver_table_is_the_one_the_source_makes() -> None:
    committed = json.loads((DATA / "cuda_drivers.json").read_text(encoding="utf-8"))
    assert committed == driver_table.drivers_table(NVIDIA)
    assert committed["last_driver_branch"]["3"]["cuda"] == "11.4"
    assert committed["min_driver"]["13.0"] == {
        "linux": "580.65.06",
        "source": committed["min_driver"]["13.0"]["source"],
    }
