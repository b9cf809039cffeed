"""Mutation testing of the pure judges and parsers: each module against its own tests, with cosmic-ray.

    pip install -e ".[mutation]"
    python bench/mutation.py                      # every module in MODULES, one after the other
    python bench/mutation.py --module cvd         # one (repeat --module for more; a path works too)
    python bench/mutation.py --module cvd --rerun-survivors   # only the mutants that survived last time
    python bench/mutation.py --report             # print the last results again, run nothing

A module whose session has mutants not run yet (an interrupted run) and whose source is unchanged is resumed;
a changed module is mutated anew.

For each module cosmic-ray makes every mutant of the file (a comparison turned, a number changed, a condition
negated, ...), writes it in place, runs the module's own tests (``-x``, one process, no xdist) and writes the
file back: of those tests, the ones that ran the mutated statement on the unmutated module (a line map made
with coverage.py before the run; every one for what runs at import), and none for a statement no test runs. A
mutant the tests fail on, or whose tests run past five times the module's own run, is killed; one they pass on
survived. Mutants inside annotations are not
run (``from __future__ import annotations``: annotations are never evaluated, so changing them changes
nothing). A survivor listed in ``bench/mutation_equivalent.toml`` is an equivalent mutant: it behaves as the
original on every input, for the reason written beside it, and counts in neither side of the score.

Prints, per module, the mutants run, killed, survived, equivalent and the score (killed / (killed +
survived)), then each survivor: ``file:line operator: original -> mutant``. Exit status 1 where a module
scores under ``--min-score`` (default 95), 2 where a module's own tests fail before any mutation.

The sessions (cosmic-ray's SQLite databases) are kept under ``build/mutation/``. The run writes the source
files in place: run it on a clean checkout, and do not edit the mutated module while it runs (an interrupted
run restores the file; ``git checkout -- FILE`` after a killed one). The whole run takes its time on two
cores (CONTRIBUTING: Mutation testing); the process lowers its own priority (nice 10).
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parents[1]
SESSIONS = REPO / "build" / "mutation"
EQUIVALENT = REPO / "bench" / "mutation_equivalent.toml"
TORCH_FACTS_ENV = "TDTEST_TORCH_FACTS"  # tests/support.py: the facts of torch, measured once for every run

# name: (module, its own tests, pytest -k expression or ""). The tests are those written for the module; a
# test that starts a torchdoctor process or imports torch is left to the full suite where it only repeats
# what the in-process tests assert.
MODULES: dict[str, tuple[str, tuple[str, ...], str]] = {
    "conda_builds": (
        "torchdoctor/inputs/conda_builds.py",
        ("tests/inputs/test_conda_builds.py", "tests/explain/test_gpu_threads.py"),
        "conda or build_or_mode",
    ),
    "cpu_path": (
        "torchdoctor/explain/cpu_path.py",
        ("tests/explain/test_cpu_path.py", "tests/explain/test_gpu_threads.py"),
        "cpu_path or still_calls_cuda",
    ),
    "gpus_said": ("checks/memory/gpus_said.py", ("tests/checks/memory/test_gpus_said.py",), ""),
    "xpu_build": (
        "checks/install/xpu_build.py",
        ("tests/checks/install/test_xpu_build.py", "tests/explain/test_gpu_threads.py"),
        "xpu",
    ),
    "cvd": ("checks/devices/cvd.py", ("tests/checks/devices",), ""),
    "visible_devices_judge": ("checks/devices/visible_devices_judge.py", ("tests/checks/devices",), ""),
    "alloc_conf": (
        "checks/memory/alloc_conf.py",
        ("tests/checks/memory/test_alloc_conf.py", "tests/checks/memory/test_alloc_conf_boundaries.py"),
        "not torchs_own_parser",
    ),
    "memory_judge": (
        "checks/memory/memory_judge.py",
        (
            "tests/checks/memory/test_memory_check.py",
            "tests/checks/memory/test_oom_arithmetic.py",
            "tests/checks/memory/test_memory_boundaries.py",
        ),
        "",
    ),
    "fragmentation_judge": (
        "checks/memory/fragmentation_judge.py",
        (
            "tests/checks/memory/test_fragmentation_check.py",
            "tests/checks/memory/test_fragmentation_boundaries.py",
        ),
        "",
    ),
    "cuda_compat": (
        "checks/install/cuda_compat.py",
        (
            "tests/checks/install/test_cuda_compat.py",
            "tests/checks/install/test_cuda_compat_boundaries.py",
            "tests/checks/install/test_table_edges.py",
        ),
        "",
    ),
    "build_judge": (
        "checks/install/build_judge.py",
        (
            "tests/checks/install/test_build_check.py",
            "tests/checks/install/test_build_judge_boundaries.py",
            "tests/checks/install/test_machines.py",
            "tests/checks/install/test_sourced_machines.py",
            "tests/checks/install/test_partial_facts.py",
            "tests/checks/install/test_table_edges.py",
        ),
        "",
    ),
    "companions_judge": (
        "checks/install/companions_judge.py",
        (
            "tests/checks/install/test_stack_check.py",
            "tests/checks/install/test_partial_facts.py",
            "tests/checks/install/test_table_edges.py",
            "tests/checks/install/test_cuda_family.py",
            "tests/checks/install/test_companions_judge_boundaries.py",
            "tests/checks/install/test_companions_judge_rules.py",
        ),
        "",
    ),
    "libraries_judge": (
        "checks/install/libraries_judge.py",
        (
            "tests/checks/install/test_stack_check.py",
            "tests/checks/install/test_libraries_judge_edges.py",
            "tests/checks/install/test_libraries_judge_boundaries.py",
        ),
        "",
    ),
    "stack_judge": (
        "checks/install/stack_judge.py",
        ("tests/checks/install/test_stack_check.py", "tests/checks/install/test_stack_judge_edges.py"),
        "",
    ),
    "numpy_judge": (
        "checks/install/numpy_judge.py",
        ("tests/checks/install/test_numpy_judge.py", "tests/checks/install/test_numpy_judge_edges.py"),
        "",
    ),
    "pinned_judge": ("checks/transfer/pinned_judge.py", ("tests/checks/transfer",), ""),
    "dryrun_judge": (
        "checks/ddp/dryrun_judge.py",
        ("tests/checks/ddp/test_dryrun_check.py", "tests/checks/ddp/test_dryrun_boundaries.py"),
        "",
    ),
    "cluster_judge": (
        "checks/ddp/cluster_judge.py",
        ("tests/checking/test_cluster.py", "tests/checking/test_cluster_boundaries.py"),
        "",
    ),
    "matcher": (
        "torchdoctor/explain/matcher.py",
        (
            "tests/explain/test_matcher.py",
            "tests/explain/test_matcher_rules.py",
            "tests/explain/test_large_inputs.py",
        ),
        "",
    ),
    "redact": (
        "torchdoctor/output/redact.py",
        ("tests/output/test_redact.py", "tests/output/test_redact_rules.py"),
        "",
    ),
}
JUDGES = frozenset(name for name, (path, _, _) in MODULES.items() if path.startswith("checks/"))


@dataclass(frozen=True)
class Mutant:
    job_id: str
    path: str
    line: int
    operator: str
    before: str
    after: str
    function: str | None = None

    def __str__(self) -> str:
        return f"{self.path}:{self.line} {self.operator}: {self.before}  ->  {self.after}"


@dataclass
class Score:
    name: str
    killed: int = 0
    equivalent: int = 0
    not_run: int = 0  # annotations
    pending: int = 0
    incompetent: list[Mutant] = field(default_factory=list)
    survivors: list[Mutant] = field(default_factory=list)

    @property
    def percent(self) -> float:
        judged = self.killed + len(self.survivors)
        return 100.0 * self.killed / judged if judged else 100.0


def _pytest_args(name: str) -> list[str]:
    _, tests, select = MODULES[name]
    args = ["-x", "-q", "-n", "0", "-p", "no:cacheprovider", "-p", "no:randomly", *tests]
    return [*args, "-k", select] if select else args


def run_tests(name: str) -> int:
    """The test command of a mutant: the module's compiled file removed (a mutant written within the second
    of the last one, with the same size, would otherwise be read from the last one's bytecode), then those of
    its tests that run the mutated statement (all of them where the statement runs at import, or where the
    line map is missing); a statement no test runs survives without a test run."""
    path = REPO / MODULES[name][0]
    Path(importlib.util.cache_from_source(str(path))).unlink(missing_ok=True)
    args = _pytest_args(name)
    selected = _tests_running_the_change(name, path)
    if selected is not None:
        if not selected:
            print("no test runs the mutated statement")
            return 0
        listed = SESSIONS / f"{name}.selected"
        listed.write_text("\n".join(selected) + "\n")
        options = [a for a in args if not a.startswith("tests/")]
        if "-k" in options:  # the node ids were selected with it
            at = options.index("-k")
            del options[at : at + 2]
        code = _pytest([*options, f"@{listed}"], _deadline(name))
        if code not in (4, 5):  # a usage error or no test collected: run them all instead
            return code
    return _pytest(args, _deadline(name))


def _deadline(name: str) -> float | None:
    """Seconds a mutant's tests may take: five times what the unmutated module's tests took (at least 10),
    so that a mutant that loops forever is killed soon; None before that is measured."""
    measured = SESSIONS / f"{name}.baseline_s"
    return max(10.0, 5 * float(measured.read_text())) if measured.exists() else None


def _pytest(args: list[str], deadline: float | None) -> int:
    """pytest's exit status; 1 (a failure: the mutant is killed) where it runs past the deadline."""
    with subprocess.Popen([sys.executable, "-m", "pytest", *args], cwd=REPO, start_new_session=True) as proc:
        try:
            return proc.wait(timeout=deadline)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            print(f"the tests ran past {deadline:.0f} s")
            return 1


def _tests_running_the_change(name: str, path: Path) -> list[str] | None:
    """The node ids of the tests that ran the statements the mutant changed, from the line map made on the
    unmutated module; None where every test must run."""
    lines_file, original_file = SESSIONS / f"{name}.lines.json", SESSIONS / f"{name}.orig.py"
    if not (lines_file.exists() and original_file.exists()):
        return None
    original = original_file.read_text().splitlines()
    mutated = path.read_text().splitlines()
    if len(original) != len(mutated):
        return None
    changed = [n + 1 for n, (a, b) in enumerate(zip(original, mutated, strict=True)) if a != b]
    if not changed:
        return None
    by_line: dict[str, list[str]] = json.loads(lines_file.read_text())
    statements = _statement_lines(original_file)
    selected: set[str] = set()
    for line in changed:
        start = statements.get(line, line)
        tests = by_line.get(str(start), by_line.get(str(line)))
        if tests is None:
            continue
        if (
            "" in tests
        ):  # the statement runs at import (a table, a constant, a default): every test depends on it
            return None
        selected.update(tests)
    return sorted(selected)


def _statement_lines(path: Path) -> dict[int, int]:
    """Each line -> the first line of the innermost statement holding it (where coverage records it)."""
    owner: dict[int, tuple[int, int]] = {}
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.stmt) and node.end_lineno is not None:
            body = [
                n for field in ("body", "orelse", "finalbody", "handlers") for n in getattr(node, field, [])
            ]
            end = min((n.lineno for n in body if isinstance(n, ast.AST) and hasattr(n, "lineno")), default=0)
            last = end - 1 if end else node.end_lineno
            for line in range(node.lineno, last + 1):
                span = last - node.lineno
                if line not in owner or span < owner[line][1]:
                    owner[line] = (node.lineno, span)
    return {line: start for line, (start, _) in owner.items()}


_LINE_MAP = """
import importlib, json, sys
import coverage, pytest
target, module, out, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
cov = coverage.Coverage(include=[target], data_file=None)
cov.start()
# imported here, outside any test: what runs at import (tables, constants, defaults) has no test's context,
# so a mutant there runs every test (the checks import their judges lazily, inside the first test)
importlib.import_module(module)
class Contexts:
    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        cov.switch_context(item.nodeid)
        try:
            return (yield)
        finally:
            cov.switch_context("")
code = pytest.main(args, plugins=[Contexts()])
cov.stop()
data = cov.get_data()
files = [f for f in data.measured_files() if f.endswith(target)]
lines = {}
for f in files:
    for line, contexts in data.contexts_by_lineno(f).items():
        lines.setdefault(str(line), set()).update(contexts)
json.dump({k: sorted(v) for k, v in lines.items()}, open(out, "w"))
sys.exit(code)
"""


def _module_name(path: str) -> str:
    """checks/devices/cvd.py -> torchdoctor.checks.devices.cvd (checks/ installs as torchdoctor.checks)."""
    dotted = path.removesuffix(".py").replace("/", ".")
    return f"torchdoctor.{dotted}" if dotted.startswith("checks.") else dotted


def _make_line_map(name: str) -> None:
    """Which tests run each line of the unmutated module (coverage.py, one context per test)."""
    path, _, _ = MODULES[name]
    (SESSIONS / f"{name}.orig.py").write_text((REPO / path).read_text())
    out = SESSIONS / f"{name}.lines.json"
    args = [a for a in _pytest_args(name) if a != "-x"]
    module = _module_name(path)
    code = subprocess.call(
        [sys.executable, "-c", _LINE_MAP, str(REPO / path), module, str(out), *args],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
    )
    if code != 0:
        out.unlink(missing_ok=True)


def _torch_facts() -> str:
    code = "import json, support; print(json.dumps(support.measure_torch()))"
    env = {**os.environ, "PYTHONPATH": str(REPO / "tests")}
    return subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.strip()


def _skip_annotations(db: object, path: Path) -> int:
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    skipped = 0
    done = {job_id for job_id, _ in db.results}  # type: ignore[attr-defined]
    for item in db.work_items:  # type: ignore[attr-defined]
        if item.job_id in done:
            continue
        spec = item.mutations[0]
        if _annotation_span(spec.start_pos, spec.end_pos, path):
            db.set_result(  # type: ignore[attr-defined]
                item.job_id, WorkResult(output="annotation", worker_outcome=WorkerOutcome.SKIPPED)
            )
            skipped += 1
    return skipped


_ANNOTATION_NODES: dict[Path, list[tuple[tuple[int, int], tuple[int, int]]]] = {}


def _annotation_span(start: tuple[int, int], end: tuple[int, int], path: Path) -> bool:
    """Whether the mutated span lies within one annotation's source span."""
    spans = _ANNOTATION_NODES.get(path)
    if spans is None:
        tree = ast.parse(path.read_text())
        spans = []
        for node in ast.walk(tree):
            annotation = None
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                annotation = node.returns
            elif isinstance(node, (ast.arg, ast.AnnAssign)):
                annotation = node.annotation
            if annotation is not None and annotation.end_lineno is not None:
                spans.append(
                    (
                        (annotation.lineno, annotation.col_offset),
                        (annotation.end_lineno, annotation.end_col_offset or 0),
                    )
                )
        _ANNOTATION_NODES[path] = spans
    return any(low <= tuple(start) and tuple(end) <= high for low, high in spans)


def _equivalents() -> dict[tuple[str, str | None, str, str], str]:
    """(module, function or None for any, original line, mutated line) -> why."""
    entries = tomllib.loads(EQUIVALENT.read_text()).get("equivalent", []) if EQUIVALENT.exists() else []
    return {
        (e["module"], e.get("function"), e["line"].strip(), e["mutant"].strip()): e["why"] for e in entries
    }


def _is_equivalent(mutant: Mutant, equivalent: dict[tuple[str, str | None, str, str], str]) -> bool:
    """Listed for its function, or for any function where the entry names none (a line found once)."""
    return any(
        (mutant.path, function, mutant.before, mutant.after) in equivalent
        for function in (mutant.function, None)
    )


def _mutant(item: object, result: object) -> Mutant:
    spec = item.mutations[0]  # type: ignore[attr-defined]
    before = after = ""
    for line in (result.diff or "").splitlines():  # type: ignore[attr-defined]
        if line.startswith("-") and not line.startswith("---"):
            before = before or line[1:].strip()
        elif line.startswith("+") and not line.startswith("+++"):
            after = after or line[1:].strip()
    return Mutant(
        item.job_id,  # type: ignore[attr-defined]
        str(spec.module_path),
        spec.start_pos[0],
        spec.operator_name.removeprefix("core/"),
        before,
        after,
        spec.definition_name,
    )


def score(name: str) -> Score:
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome

    result = Score(name)
    equivalent = _equivalents()
    with use_db(str(SESSIONS / f"{name}.sqlite"), WorkDB.Mode.open) as db:
        results = dict(db.results)
        for item in db.work_items:
            outcome = results.get(item.job_id)
            if outcome is None:
                result.pending += 1
            elif outcome.worker_outcome == WorkerOutcome.SKIPPED:
                result.not_run += 1
            elif outcome.test_outcome == TestOutcome.KILLED:
                result.killed += 1
            elif outcome.test_outcome == TestOutcome.SURVIVED:
                mutant = _mutant(item, outcome)
                if _is_equivalent(mutant, equivalent):
                    result.equivalent += 1
                else:
                    result.survivors.append(mutant)
            else:
                result.incompetent.append(_mutant(item, outcome))
    result.survivors.sort(key=lambda m: (m.line, m.operator))
    return result


def _cosmic_ray(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "cosmic_ray.cli", *args], cwd=REPO, check=True)


def run(name: str, rerun_survivors: bool, timeout: float) -> bool:
    """Mutate one module; False where its own tests fail unmutated."""
    from cosmic_ray.work_db import WorkDB, WorkResultStorage, use_db  # type: ignore[attr-defined]

    path, _, _ = MODULES[name]
    SESSIONS.mkdir(parents=True, exist_ok=True)
    config = SESSIONS / f"{name}.toml"
    session = SESSIONS / f"{name}.sqlite"
    command = f"{sys.executable} {Path(__file__).resolve()} --run-tests {name}"
    config.write_text(
        "[cosmic-ray]\n"
        f"module-path = {json.dumps(path)}\n"
        f"timeout = {timeout}\n"
        "excluded-modules = []\n"
        f"test-command = {json.dumps(command)}\n"
        "[cosmic-ray.distributor]\n"
        'name = "local"\n'
    )
    (SESSIONS / f"{name}.baseline_s").unlink(missing_ok=True)
    started = time.monotonic()
    if run_tests(name) != 0:
        print(f"{name}: its tests fail without a mutation; not mutated", file=sys.stderr)
        return False
    (SESSIONS / f"{name}.baseline_s").write_text(f"{time.monotonic() - started:.1f}")
    source = (REPO / path).read_text()
    original = SESSIONS / f"{name}.orig.py"
    same_source = session.exists() and original.exists() and original.read_text() == source
    _make_line_map(name)
    if same_source and rerun_survivors:
        survivors = {m.job_id for m in score(name).survivors}
        with use_db(str(session), WorkDB.Mode.open) as db, db._session_maker.begin() as sql:
            sql.query(WorkResultStorage).filter(WorkResultStorage.job_id.in_(survivors)).delete()
        print(f"{name}: running the {len(survivors)} survivors again", file=sys.stderr)
    elif same_source and score(name).pending:
        print(f"{name}: resuming the {score(name).pending} mutants not run yet", file=sys.stderr)
    else:
        # a changed module: its last session goes (cosmic-ray init refuses a session that has results)
        session.unlink(missing_ok=True)
        _cosmic_ray("init", str(config), str(session))
        with use_db(str(session), WorkDB.Mode.open) as db:
            skipped = _skip_annotations(db, REPO / path)
            print(f"{name}: {db.num_work_items} mutants, {skipped} in annotations not run", file=sys.stderr)
    try:
        _cosmic_ray("exec", str(config), str(session))
    finally:
        Path(importlib.util.cache_from_source(str(REPO / path))).unlink(missing_ok=True)
    return True


def show(scores: Iterable[Score]) -> None:
    scores = list(scores)
    print(f"{'module':24} {'mutants':>7} {'killed':>7} {'survived':>8} {'equiv.':>7} {'score':>7}")
    for s in scores:
        run = s.killed + len(s.survivors) + s.equivalent + len(s.incompetent)
        pending = f"  ({s.pending} not run yet)" if s.pending else ""
        counts = f"{run:7} {s.killed:7} {len(s.survivors):8} {s.equivalent:7}"
        print(f"{s.name:24} {counts} {s.percent:6.1f}%{pending}")
    for s in scores:
        for mutant in s.survivors:
            print(f"survived  {mutant}")
        for mutant in s.incompetent:
            print(f"not run   {mutant} (the mutant did not load)")


def _names(selected: Sequence[str]) -> list[str]:
    if not selected:
        return list(MODULES)
    names = []
    for wanted in selected:
        found = [n for n, (path, _, _) in MODULES.items() if wanted in (n, path)]
        if not found:
            raise SystemExit(f"unknown module {wanted!r}: one of {', '.join(MODULES)}")
        names += found
    return names


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--module", action="append", default=[], help="a name of MODULES or its path")
    parser.add_argument(
        "--rerun-survivors", action="store_true", help="run only last time's survivors (the module unchanged)"
    )
    parser.add_argument("--report", action="store_true", help="print the last results, run nothing")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds a mutant's tests may take")
    parser.add_argument("--min-score", type=float, default=95.0)
    parser.add_argument("--run-tests", metavar="NAME", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run_tests:
        return run_tests(args.run_tests)
    names = _names(args.module)
    if not args.report:
        os.nice(10)
        os.environ.setdefault(TORCH_FACTS_ENV, _torch_facts())
        failed = []
        for name in names:
            started = time.monotonic()
            if not run(name, args.rerun_survivors, args.timeout):
                failed.append(name)
            print(f"{name}: {(time.monotonic() - started) / 60:.1f} min", file=sys.stderr)
        if failed:
            return 2
    scores = [score(name) for name in names if (SESSIONS / f"{name}.sqlite").exists()]
    show(scores)
    return 1 if any(s.percent < args.min_score for s in scores) else 0


if __name__ == "__main__":
    sys.exit(main())
