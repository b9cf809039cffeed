"""A wheel install and an editable install both ship the top-level checks/ folder as torchdoctor.checks."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from support import cli_env, install_without_deps, linked_venv, validated_report

REPO = Path(__file__).resolve().parents[1]
OWN_ENTRIES = ("torchdoctor", "__editable__.torchdoctor", "__editable___torchdoctor")


def _copy_of_the_repository(dest: Path) -> Path:
    ignore = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache")
    shutil.copytree(REPO, dest, ignore=ignore)
    return dest


def _where_checks_come_from(python: str, cwd: Path) -> dict[str, object]:
    code = (
        "import json, torchdoctor.checks.install.build_check as tb\n"
        "from torchdoctor import registry\n"
        "print(json.dumps({'file': tb.__file__, 'ids': [e.id for e in registry.find_entries()],\n"
        "                  'loads': [type(registry.load(e)).__name__ for e in registry.find_entries()]}))\n"
    )
    out = subprocess.run(
        [python, "-c", code], cwd=cwd, capture_output=True, text=True, check=True, env=cli_env()
    )
    return json.loads(out.stdout)


@pytest.mark.parametrize("editable", [False, True], ids=["wheel", "editable"])
def test_an_install_finds_and_loads_the_built_in_checks(tmp_path: Path, editable: bool) -> None:
    source = _copy_of_the_repository(tmp_path / "src")
    python, site = linked_venv(tmp_path / "venv", leave_out=OWN_ENTRIES)
    installed = install_without_deps(
        python, "--no-build-isolation", *(["-e", str(source)] if editable else [str(source)])
    )
    assert installed.returncode == 0, installed.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    found = _where_checks_come_from(python, elsewhere)
    expected_root = source / "checks" / "install" if editable else site / "torchdoctor" / "checks" / "install"
    assert Path(str(found["file"])).parent == expected_root
    loads = dict(zip(found["ids"], found["loads"], strict=True))  # type: ignore[call-overload]
    assert loads["torch.build"] == loads["cuda.visible_devices"] == "Check"
    result = subprocess.run(
        [str(Path(python).parent / "torchdoctor"), "check", "--json", "--only", "torch.build,cuda.*"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert validated_report(result.stdout)["summary"]["total"] >= 2
    # From the source folder itself, `python -m torchdoctor` finds ./torchdoctor first (as torchrun's
    # `-m torchdoctor cluster` does): it must still run the installed checks.
    from_source = subprocess.run(
        [python, "-m", "torchdoctor", "check", "--json", "--only", "torch.build"],
        cwd=source,
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=120,
        check=False,
    )
    assert from_source.returncode == 0, from_source.stderr
    (verdict,) = validated_report(from_source.stdout)["verdicts"]
    assert verdict["status"] == "pass", verdict


def test_the_wheel_carries_the_schema_and_the_type_marker(tmp_path: Path) -> None:
    source = _copy_of_the_repository(tmp_path / "src")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("torchdoctor-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "torchdoctor/schema/report.schema.json" in names
    assert "torchdoctor/py.typed" in names
    assert "torchdoctor/checks/install/build_check.py" in names
    assert "torchdoctor/checks/install/data/torch_companions.json" in names
    assert not any(name.startswith(("tests/", "checks/")) for name in names)
