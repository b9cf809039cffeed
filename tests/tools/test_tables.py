"""The committed data tables and the script that makes them: consistent, every row sourced, and bad input to
the script a one-line error. No network: the index is never asked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "checks" / "install" / "data"
sys.path.insert(0, str(ROOT))

from tools import table_rows, wheel_names  # noqa: E402


def _load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / name).read_text(encoding="utf-8"))
    return data


WHEELS = _load("torch_wheels.json")
COMPANIONS = _load("torch_companions.json")
BUILDS = _load("torch_builds.json")
DRIVERS = _load("cuda_drivers.json")


def test_every_torch_release_since_2_0_is_in_every_table() -> None:
    releases = [r for r in WHEELS["releases"] if Version(r) >= Version("2.0")]
    assert len(releases) >= 28
    assert set(releases) <= set(COMPANIONS["releases"])
    assert {r.rsplit(".", 1)[0] for r in releases} <= set(BUILDS["lines"])


def test_every_row_names_its_source() -> None:
    for table in (WHEELS, COMPANIONS, _load("torch_releases.json")):
        assert table["source"]
        for key, row in table["releases"].items():
            assert row.get("source"), key
    for line, entry in BUILDS["lines"].items():
        for os_key, given in entry["os"].items():
            assert given["source"], (line, os_key)
            for cuda, cell in given["builds"].items():
                assert cell["source"], (line, os_key, cuda)
    for section in ("min_driver", "minor_compat_floor", "last_driver_branch", "toolkit_targets"):
        for key, row in DRIVERS[section].items():
            assert row["source"], (section, key)


def test_no_null_where_a_sibling_row_has_a_value() -> None:
    rows = {r: v for r, v in COMPANIONS["releases"].items() if Version(r) >= Version("2.0")}
    newest = max(rows, key=Version)
    for release, row in rows.items():
        if release == newest:
            continue  # the newest release may not have its torchvision on the index yet
        for key in ("torchvision", "torchaudio", "triton"):
            assert row[key] is not None, (release, key)


def test_a_stable_abi_release_is_the_companion_of_later_torch_releases_and_names_its_source() -> None:
    # Requires-Dist on torch of torchvision 0.28.0, 0.29.0 and 0.29.2 as the index has them
    releases = {
        "0.28.0": {"requires_torch": "==2.13.0"},
        "0.29.0": {"requires_torch": "==2.14.0"},
        "0.29.2": {"requires_torch": ">=2.14.0"},
    }
    assert table_rows._companion_for("2.14.0", releases, "0.29") == "0.29.0"
    assert table_rows._companion_for("2.15.0", releases, "0.29") == "0.29.2"
    assert table_rows._companion_for("2.15.0", releases, None) is None
    assert table_rows._companion_for("2.15.0", releases, "0.30") is None
    forward = COMPANIONS["forward_compatible_from"]
    assert set(forward) == {"torchaudio", "torchvision"}
    assert set(forward) == set(COMPANIONS["forward_compatible_source"])
    assert COMPANIONS["releases"]["2.15.0"]["torchvision"] == "0.29.2"


def test_python_tags_come_from_the_wheels() -> None:
    assert "3.11" in WHEELS["releases"]["1.13.0"]["python"]["linux-x86_64"]
    before = [r for r in WHEELS["releases"] if Version(r) < Version("2.15.0")]
    assert all("3.15" not in py for r in before for py in WHEELS["releases"][r]["python"].values())


def test_a_wheel_name_is_read_and_a_malformed_one_is_refused() -> None:
    wheel = wheel_names.parse("torch-2.13.0-cp314-cp314t-macosx_14_0_arm64.whl")
    assert wheel.pythons == ("3.14t",) and wheel.platform == "macos-arm64" and wheel.macos_min == "14.0"
    with pytest.raises(wheel_names.MalformedWheelName):
        wheel_names.parse("torch-2.13.0.whl")


def test_code_cc_is_read_without_running_the_file() -> None:
    source = 'PYTORCH_RELEASES_CODE_CC: dict = {"12.6": {"x86_64": {90, 80}}, "13.0": {75}}\nraise SystemExit'
    assert table_rows.parse_code_cc(source) == {"12.6": {"x86_64": [80, 90]}, "13.0": {"any": [75]}}


def _run_script(out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """The script as a developer runs it, against an index on a closed local port."""
    command = [
        sys.executable,
        str(ROOT / "tools" / "update_tables.py"),
        "--index",
        "http://127.0.0.1:9/simple",
    ]
    return subprocess.run(
        [*command, "--out", str(out), "-q", *extra], capture_output=True, text=True, timeout=120
    )


def test_the_script_answers_an_unreachable_index_in_one_line(tmp_path: Path) -> None:
    result = _run_script(tmp_path)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("update_tables: ")
    assert list(tmp_path.iterdir()) == []


def test_the_script_refuses_a_malformed_wheel_name_in_one_line(tmp_path: Path) -> None:
    # The index's answer, as the script keeps it in its cache folder: a file list with a malformed wheel name.
    cache = tmp_path / "cache"
    cache.mkdir()
    page = {"files": [{"filename": "torch-2.x-bad.whl", "url": "x"}]}
    (cache / "127.0.0.1:9_simple_torch_").write_text(json.dumps(page))
    result = _run_script(tmp_path, "--cache", str(cache))
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "malformed wheel name" in result.stderr


def test_the_tables_the_committed_sources_give_are_up_to_date() -> None:
    """``tools/update_tables.py --offline --check``: torch_builds.json is what tools/sources/builds.json and
    the committed torch_wheels.json make, so an edit of the source that the table does not follow fails."""
    from tools import update_tables

    assert update_tables.main(["--offline", "--check", "--quiet"]) == 0
