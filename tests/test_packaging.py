"""A wheel install and an editable install both ship the top-level checks/ folder as torchdoctor.checks."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from torchdoctor.explain import catalogue

from support import cli_env, install_without_deps, linked_venv, slack, validated_report

REPO = Path(__file__).resolve().parents[1]
OWN_ENTRIES = ("torchdoctor", "__editable__.torchdoctor", "__editable___torchdoctor")


def _copy_of_the_repository(dest: Path) -> Path:
    ignore = shutil.ignore_patterns(
        ".git", ".venv*", "build", "dist", "*.egg-info", "__pycache__", ".*_cache"
    )
    shutil.copytree(REPO, dest, ignore=ignore)
    return dest


def _where_checks_come_from(python: str, cwd: Path) -> dict[str, object]:
    code = (
        "import json, torchdoctor.checks.install.build_check as tb\n"
        "from torchdoctor.checking import registry\n"
        "from torchdoctor.explain import catalogue\n"
        "print(json.dumps({'file': tb.__file__, 'ids': [e.id for e in registry.find_entries()],\n"
        "                  'loads': [type(registry.load(e)).__name__ for e in registry.find_entries()],\n"
        "                  'explanations': [e.id for e in catalogue.installed()]}))\n"
    )
    out = subprocess.run(
        [python, "-c", code], cwd=cwd, capture_output=True, text=True, check=True, env=cli_env()
    )
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of a copy of this repository, built once for the tests below."""
    folder = tmp_path_factory.mktemp("wheel")
    source = _copy_of_the_repository(folder / "src")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(folder),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (built,) = folder.glob("torchdoctor-*.whl")
    return built


def _editable_here() -> bool:
    """Whether the torchdoctor these tests run is an editable install of this repository."""
    import torchdoctor.checks

    return Path(torchdoctor.checks.__file__).resolve().parent == REPO / "checks"


def _runs_its_checks(python: str, source: Path, elsewhere: Path) -> None:
    """The console script next to ``python`` runs the checks from ``elsewhere``, and ``python -m torchdoctor``
    from the source folder itself, which finds ./torchdoctor first (as torchrun's ``-m torchdoctor cluster``
    does), still runs the installed checks."""
    result = subprocess.run(
        # two checks whose probes import no torch: what is tested is the installed package, not torch
        [str(Path(python).parent / "torchdoctor"), "check", "--json", "--only", "cuda.*,gpu.memory"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=slack(120),
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert validated_report(result.stdout)["summary"]["total"] == 2
    from_source = subprocess.run(
        [
            python,
            "-m",
            "torchdoctor",
            "check",
            "--json",
            "--only",
            "cuda.visible_devices",
        ],  # imports no torch
        cwd=source,
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=slack(120),
        check=False,
    )
    assert from_source.returncode == 0, from_source.stderr
    (verdict,) = validated_report(from_source.stdout)["verdicts"]
    assert verdict["status"] in ("pass", "skip"), verdict


def test_a_wheel_install_finds_and_loads_the_built_in_checks_and_ships_the_completions(
    tmp_path: Path, wheel: Path
) -> None:
    python, site = linked_venv(tmp_path / "venv", leave_out=OWN_ENTRIES)
    installed = install_without_deps(python, str(wheel))
    assert installed.returncode == 0, installed.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    found = _where_checks_come_from(python, elsewhere)
    assert Path(str(found["file"])).parent == site / "torchdoctor" / "checks" / "install"
    loads = dict(zip(found["ids"], found["loads"], strict=True))  # type: ignore[call-overload]
    assert loads["torch.build"] == loads["cuda.visible_devices"] == "Check"
    # every catalogue reads its explanations.toml from the installed package
    assert found["explanations"] == [e.id for e in catalogue.installed()]
    # the README's `source "$(python -m torchdoctor.shell)/torchdoctor.bash"`
    shell = subprocess.run(
        [python, "-m", "torchdoctor.shell"], cwd=elsewhere, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert Path(shell) == site / "torchdoctor" / "shell"
    assert (Path(shell) / "torchdoctor.bash").read_text() == (
        REPO / "completions" / "torchdoctor.bash"
    ).read_text()
    _runs_its_checks(python, REPO, elsewhere)


def test_an_editable_install_finds_and_loads_the_built_in_checks(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if _editable_here():
        # `pip install -e ".[test]"` made the environment these tests run in: look at it, install nothing
        python, source = sys.executable, REPO
    else:
        source = _copy_of_the_repository(tmp_path / "src")
        python, _ = linked_venv(tmp_path / "venv", leave_out=OWN_ENTRIES)
        installed = install_without_deps(python, "--no-build-isolation", "-e", str(source))
        assert installed.returncode == 0, installed.stderr
    found = _where_checks_come_from(python, elsewhere)
    assert Path(str(found["file"])).parent == source / "checks" / "install"
    loads = dict(zip(found["ids"], found["loads"], strict=True))  # type: ignore[call-overload]
    assert loads["torch.build"] == loads["cuda.visible_devices"] == "Check"
    shell = subprocess.run(
        [python, "-m", "torchdoctor.shell"], cwd=elsewhere, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert Path(shell) == source / "completions"
    if not _editable_here():
        _runs_its_checks(python, source, elsewhere)


def test_the_wheel_carries_the_schema_the_type_marker_the_completions_and_the_licence(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "torchdoctor/schema/report.schema.json" in names
    assert "torchdoctor/py.typed" in names
    assert "torchdoctor/checks/install/build_check.py" in names
    assert "torchdoctor/checks/install/data/torch_companions.json" in names
    assert "torchdoctor/schema/explanations.schema.json" in names
    areas = sorted(p.parent.name for p in (REPO / "checks").glob("*/explanations.toml"))
    assert len(areas) == 6 and {f"torchdoctor/checks/{a}/explanations.toml" for a in areas} <= names
    assert {f"torchdoctor/shell/torchdoctor.{shell}" for shell in ("bash", "zsh", "fish")} <= names
    assert "torchdoctor-0.1.0.dist-info/licenses/LICENSE" in names
    assert not any(name.startswith(("tests/", "checks/", "completions/")) for name in names)
    metadata = zipfile.ZipFile(wheel).read("torchdoctor-0.1.0.dist-info/METADATA").decode()
    assert "License-Expression: MIT" in metadata
    assert "Requires-Python: >=3.10" in metadata
    assert 'Requires-Dist: tomli>=1.1; python_version < "3.11"' in metadata


# --- Python 3.10 (requires-python) ------------------------------------------------------------------------

# What Python 3.11 added that 3.10 lacks, as imports (tomllib only behind a version check).
NEWER_NAMES = {
    ("enum", "StrEnum"),
    ("datetime", "UTC"),
    ("typing", "Self"),
    ("typing", "LiteralString"),
    ("typing", "Never"),
    ("typing", "assert_never"),
    ("typing", "reveal_type"),
    ("typing", "TypeVarTuple"),
    ("typing", "Unpack"),
    ("typing", "Required"),
    ("typing", "NotRequired"),
}


def _unguarded(tree: ast.Module) -> list[ast.stmt]:
    """The statements of a module outside ``if sys.version_info ...`` blocks."""
    found: list[ast.stmt] = []
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.If) and "version_info" in ast.unparse(node.test):
            continue
        found.append(node)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                pending.append(child)
    return found


@pytest.mark.parametrize("folder", ["torchdoctor", "checks"])
def test_every_module_is_python_3_10(folder: str) -> None:
    problems = []
    for path in sorted((REPO / folder).rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        name = path.relative_to(REPO)
        try:
            tree = ast.parse(source, str(path), feature_version=(3, 10))
        except SyntaxError as error:
            problems.append(f"{name}:{error.lineno}: not Python 3.10 grammar: {error.msg}")
            continue
        for node in _unguarded(tree):
            if isinstance(node, ast.Import) and any(a.name == "tomllib" for a in node.names):
                problems.append(f"{name}:{node.lineno}: tomllib without the tomli fallback")
            if isinstance(node, ast.ImportFrom):
                names = {(node.module, a.name) for a in node.names}
                problems += [f"{name}:{node.lineno}: {m}.{n} is Python 3.11+" for m, n in names & NEWER_NAMES]
        for node in ast.walk(tree):
            attribute = isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            if attribute and (node.value.id, node.attr) in NEWER_NAMES:  # type: ignore[union-attr]
                problems.append(f"{name}:{node.lineno}: {ast.unparse(node)} is Python 3.11+")
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "(?>" in node.value:
                problems.append(f"{name}:{node.lineno}: an atomic group (?>...) is Python 3.11+ re")
    assert not problems, "\n".join(problems)
