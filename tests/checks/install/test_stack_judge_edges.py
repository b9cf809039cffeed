"""torch.stack where a pasted collect_env dump tells one part of the stack: what is known is judged."""

from __future__ import annotations

import json
from typing import Any

from torchdoctor.checks.install import stack_check
from torchdoctor.inputs import collect_env
from torchdoctor.model import Status

from corpus_tools import splits


def corpus_facts(name: str) -> dict[str, Any]:
    dump = collect_env.find(json.loads(splits.find("collect_env", name).read_text())["text"])
    assert dump is not None
    facts: dict[str, Any] = dump.to_report(name)["facts"]
    return facts


def test_a_dump_that_tells_only_numpy_is_judged_on_it() -> None:
    # pytorch/pytorch#32524: no package list, no loaded libraries; with NumPy known, something is judged.
    facts = corpus_facts("pytorch_pytorch_32524")
    facts["torch"]["numpy"] = {"installed": True, "version": "1.26.4", "warnings": []}

    verdict = stack_check.CHECK.judge({p.name: facts[p.name] for p in stack_check.CHECK.probes}, {})

    assert verdict.status is Status.PASS
    assert verdict.summary.startswith(f"torch {facts['torch']['version']}: ")
