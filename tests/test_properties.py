"""Property-based tests: random files, bytes and strings get a verdict or a one-line refusal, never a crash.

Each reader of what a user hands over is fed what hypothesis makes up: JSON documents for saved reports,
bytes for allocator snapshots, text for explain and for the variables torchdoctor parses, strings for every
option of the command line. In process where the reader is pure (fast, many examples); through the installed
CLI, under a memory cap and a deadline, for the options.
"""

from __future__ import annotations

import copy
import json
import pickle
import resource
import subprocess
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from torchdoctor.checking import exitcodes, options
from torchdoctor.checks.devices import cvd
from torchdoctor.checks.devices.visible_devices_check import CHECK as VISIBLE_DEVICES
from torchdoctor.checks.memory import alloc_conf, allocator_snapshot
from torchdoctor.checks.memory.fragmentation_check import CHECK as FRAGMENTATION
from torchdoctor.explain import catalogue
from torchdoctor.explain import explain as explain_text
from torchdoctor.inputs import saved
from torchdoctor.model import Finding
from torchdoctor.plugin import Option
from torchdoctor.render import sections
from torchdoctor.support import diff

import support
from support import BIN, FIXTURES, cli_env, fixture_facts, slack

ENTRIES = catalogue.installed()
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=30,
)
REPORT = json.loads((FIXTURES / "laptop_no_driver.json").read_text())
QUICK = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@QUICK
@given(JSON)
def test_any_json_is_a_report_or_one_clear_refusal(data: Any) -> None:
    try:
        saved.parse(json.dumps(data), "r.json")
    except saved.SavedReportError as exc:
        assert "\n" not in str(exc)


@QUICK
@given(st.sampled_from(sorted(REPORT)), JSON)
def test_a_report_with_one_part_replaced_is_a_report_or_one_clear_refusal(key: str, value: Any) -> None:
    try:
        saved.parse(json.dumps({**REPORT, key: value}), "r.json")
    except saved.SavedReportError as exc:
        assert "\n" not in str(exc)


@QUICK
@given(st.binary(max_size=2000))
def test_any_bytes_are_a_snapshot_or_one_clear_refusal(data: bytes) -> None:
    try:
        allocator_snapshot.summarize(allocator_snapshot.loads(data, "s.pickle"))
    except allocator_snapshot.SnapshotError as exc:
        assert "\n" not in str(exc)


@QUICK
@given(JSON)
def test_any_plain_data_pickled_is_a_snapshot_or_one_clear_refusal(data: Any) -> None:
    try:
        allocator_snapshot.summarize(allocator_snapshot.loads(pickle.dumps(data), "s.pickle"))
    except allocator_snapshot.SnapshotError as exc:
        assert "\n" not in str(exc)


@QUICK
@given(st.text(max_size=3000))
def test_any_text_is_explained_or_not_in_time(text: str) -> None:
    # in linear time: tests/explain/test_regex_safety.py
    found = explain_text(text, ENTRIES)
    assert all(e.id and e.fix.text for e in found)


@QUICK
@given(st.text(max_size=3000))
def test_any_text_holds_a_saved_report_or_gets_one_clear_refusal(text: str) -> None:
    # in linear time: tests/test_hostile_inputs.py
    try:
        data = saved.from_text(text, "issue.md")
    except saved.SavedReportError as exc:
        assert "\n" not in str(exc)
    else:
        assert "schema_version" in data


VISIBLE_FACTS = fixture_facts("h100x8_cvd_2_3.json")
NO_GPU_FACTS = fixture_facts("laptop_no_driver.json")


@QUICK
@given(st.text(max_size=60))
def test_any_cuda_visible_devices_gets_a_verdict(value: str) -> None:
    cvd.resolve(cvd.parse(value), [f"GPU-{i}" for i in range(4)])
    for facts in (VISIBLE_FACTS, NO_GPU_FACTS):
        env = {"variables": {**facts["env"]["variables"], "CUDA_VISIBLE_DEVICES": value}}
        finding = VISIBLE_DEVICES.judge({**facts, "env": env}, {})
        assert isinstance(finding, Finding)


@QUICK
@given(st.text(max_size=80), st.sampled_from(alloc_conf.VARIABLES))
def test_any_allocator_configuration_gets_a_verdict(value: str, variable: str) -> None:
    alloc_conf.parse(value, variable)
    facts = {
        "env": {"variables": {variable: value}},
        "nvml": NO_GPU_FACTS["nvml"],
        "allocator": {"source": None},
    }
    assert isinstance(FRAGMENTATION.judge(facts, {}), Finding)


DECLARED = [
    Option("min_free_pct", "--min-free", "", "float", default=10.0, minimum=0, maximum=100),
    Option("nproc", "--nproc", "", "int", minimum=1, maximum=256),
    Option("backend", "--backend", "", "choice", choices=("nccl", "gloo")),
    Option("memory_snapshot", "--memory-snapshot", "", "file"),
    Option("quick", "--quick", "", "flag", default=False),
]


@QUICK
@given(st.sampled_from(DECLARED), st.one_of(st.floats(), st.integers(), st.text(max_size=40)))
def test_any_option_value_is_accepted_or_one_clear_refusal(option: Option, value: Any) -> None:
    try:
        options.checked([option], {option.key: value})
    except options.BadOption as exc:
        assert "\n" not in str(exc)


def _capped() -> None:
    cap = 2 * 2**30  # no torchdoctor process needs more; the probe worker's torch fits in a quarter of it
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


ARGUMENT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=30
)


# each example starts torchdoctor (about 1 s of CPU); the option parsers themselves get many more above
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(
        ["--only", "--skip", "--timeout", "--min-free", "--nproc", "--backend", "--from", "--fail-on"]
    ),
    ARGUMENT,
)
def test_any_string_given_to_an_option_is_exit_0_1_or_2_without_a_traceback(flag: str, value: str) -> None:
    result = subprocess.run(
        [str(BIN / "torchdoctor"), "check", "--only", "cuda.visible_devices", flag, value],
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=slack(60),
        preexec_fn=_capped,
        check=False,
    )
    assert result.returncode in (exitcodes.OK, exitcodes.THRESHOLD, exitcodes.USAGE), result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    if result.returncode == exitcodes.USAGE:
        assert len(result.stderr.strip().splitlines()) == 1


# A saved report is validated down to each probe's facts, which are free-form objects: what torchdoctor reads
# from them (diff, the ticket's sections) must take a fact of any type, and read it as unknown. Every key it
# reads, on every object it reads one from, gets a value of each other type.
FACT_KEYS = (
    "variables", "gpus", "devices", "mps", "numpy", "cpu", "tools", "conda", "packages", "mapping",
    "import_error", "distribution", "compute_capability", "mig_devices", "mig_mode", "memory_total_bytes",
    "uuid", "index", "importable", "version", "flavor", "available", "driver_version", "cuda_driver_version",
    "driver_cuda_version", "ordinal", "name", "flags", "model", "gcc", "facts", "kind", "message",
)  # fmt: skip
WRONG_TYPES = ("x", 7, ["x"], {"x": "y"}, None)


def _rich_report() -> dict[str, Any]:
    report = support.machine_report(
        fixture_facts("h100x8_cvd_2_3.json"), ["torch.build", "cuda.visible_devices"], {"hostname": "n1"}
    )
    report["facts"]["system"] = {
        "cpu": {"model": "x", "flags": ["avx2"], "numa_nodes": 2},
        "tools": {"gcc": {"path": "/usr/bin/gcc", "version": "12.2"}},
        "conda": {"prefix": "/opt/conda", "packages": {"pytorch": "2.5.1"}},
    }
    report["facts"]["installed_packages"] = {"packages": {"torch": "2.5.1"}}
    report["probe_errors"]["nvml"] = {"kind": "timeout", "message": "slow"}
    return report


RICH_REPORT = _rich_report()
READ_OBJECTS = {
    "facts": ("facts",),
    "torch": ("facts", "torch"),
    "nvml": ("facts", "nvml"),
    "a GPU": ("facts", "nvml", "gpus", 0),
    "cuda_driver": ("facts", "cuda_driver"),
    "a device": ("facts", "cuda_driver", "devices", 0),
    "env": ("facts", "env"),
    "system": ("facts", "system"),
    "cpu": ("facts", "system", "cpu"),
    "conda": ("facts", "system", "conda"),
    "installed_packages": ("facts", "installed_packages"),
    "a verdict": ("verdicts", 1),
    "its facts": ("verdicts", 1, "facts"),
    "its mapping": ("verdicts", 1, "facts", "mapping", 0),
    "a probe error": ("probe_errors", "nvml"),
}


@pytest.mark.parametrize("where", READ_OBJECTS.values(), ids=list(READ_OBJECTS))
def test_a_fact_of_any_type_is_diffed_and_shown_without_a_crash(where: tuple[Any, ...]) -> None:
    parent = RICH_REPORT
    for part in where:
        parent = parent[part]
    for key in sorted({*FACT_KEYS, *parent}):
        for value in WRONG_TYPES:
            changed = _replaced(RICH_REPORT, (*where, key), value)
            for before, after in ((RICH_REPORT, changed), (changed, RICH_REPORT)):
                diff.format_lines(diff.compare(before, after))
            sections.sections(changed)


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """``value`` with the item at ``path`` set to ``new``; only the objects on the path are copied."""
    copied = copy.copy(value)
    copied[path[0]] = new if len(path) == 1 else _replaced(value[path[0]], path[1:], new)
    return copied
