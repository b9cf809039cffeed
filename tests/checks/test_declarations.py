"""The built-in checks are declared apart from what runs them: each ``*_check.py`` names its probes by target
and its judge with ``judge_at``, so describing the checks imports neither, and every name resolves."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from torchdoctor.checking import registry
from torchdoctor.checks import probes
from torchdoctor.machine import envvars, nvml
from torchdoctor.plugin import Check, JudgeAt, Probe, resolve

BUILT_IN = [
    entry
    for group in (registry.CHECKS, registry.CLUSTER_CHECKS)
    for entry in registry.find_entries(group)
    if entry.distribution == "torchdoctor"
]


def _declared(entry: registry.Entry) -> Check:
    check = registry.load(entry)
    assert isinstance(check, Check), check
    return check


def test_every_built_in_check_is_found() -> None:
    assert len(BUILT_IN) == 11


@pytest.mark.parametrize("entry", BUILT_IN, ids=lambda e: e.id)
def test_each_probe_and_judge_named_resolves_to_a_function_of_that_name(entry: registry.Entry) -> None:
    check = _declared(entry)
    for probe in check.probes:
        function = resolve(probe.target)
        assert callable(function) and Probe.of(probe.name, function) == probe
    assert isinstance(check.judge, JudgeAt)
    judge = resolve(check.judge.target)
    assert callable(judge) and f"{judge.__module__}:{judge.__qualname__}" == check.judge.target


def test_the_shared_probes_are_the_ones_their_modules_declare() -> None:
    assert probes.NVML == nvml.PROBE and probes.ENV == envvars.PROBE


_DESCRIBE = """
import json, sys
from torchdoctor.checking import hosted, registry
before = set(sys.modules)
for group in (registry.CHECKS, registry.CLUSTER_CHECKS):
    for entry in registry.find_entries(group):
        assert "check" in hosted.describe({"entry": entry.to_json()})
print(json.dumps(sorted(set(sys.modules) - before)))
"""


def test_describing_the_checks_imports_their_declarations_alone() -> None:
    done = subprocess.run(
        [sys.executable, "-P", "-c", _DESCRIBE], capture_output=True, text=True, timeout=120, check=True
    )
    imported: list[Any] = json.loads(done.stdout)
    ours = {m for m in imported if m.startswith("torchdoctor.checks.")}
    declarations = {e.value.partition(":")[0] for e in BUILT_IN}
    assert ours - {"torchdoctor.checks.probes"} - {m.rpartition(".")[0] for m in declarations} == declarations
