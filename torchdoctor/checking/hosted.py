"""What the worker runs on the CLI's behalf: a plugin's import, its judge and its option validation.

The CLI never imports a check module. It asks the worker (``runner.Session.call``) to run these functions,
each under a deadline, so a plugin that hangs, aborts or exhausts memory at import or in its judge costs one
worker and becomes an ``error`` verdict naming it. Each function takes the request as a mapping and answers
a JSON-able dict, as a probe does.
"""

from __future__ import annotations

import contextlib
import json
import threading
import traceback
from collections.abc import Mapping
from typing import Any

from torchdoctor.checking import registry
from torchdoctor.model import Finding
from torchdoctor.plugin import Check, JudgeAt, resolve

_loaded: dict[tuple[str, str], Check | registry.LoadFailure] = {}


def _check(entry: registry.Entry) -> Check | registry.LoadFailure:
    key = (entry.id, entry.value)
    if key not in _loaded:
        _loaded[key] = registry.load(entry)
    return _loaded[key]


def describe(request: Mapping[str, Any]) -> dict[str, Any]:
    """Import one entry: ``{"check": CheckInfo}`` or ``{"failure": reason}``."""
    entry = registry.Entry.from_json(request["entry"])
    check = _check(entry)
    if isinstance(check, registry.LoadFailure):
        return {"failure": check.reason}
    return {"check": registry.CheckInfo.of(entry, check).to_json()}


def ready(request: Mapping[str, Any]) -> dict[str, Any]:
    """Import the judges of the request's entries in the background, while the probes run elsewhere; judging
    then costs the judging alone. Answers at once. A judge that fails to import, or hangs, does so again when
    it judges, under that call's deadline, as it would have without this."""
    entries = [registry.Entry.from_json(data) for data in request.get("entries") or ()]
    checks = [check for check in map(_check, entries) if isinstance(check, Check)]
    targets = [check.judge.target for check in checks if isinstance(check.judge, JudgeAt)]
    threading.Thread(target=_import_all, args=(targets,), name="torchdoctor-ready", daemon=True).start()
    return {"importing": targets}


def _import_all(targets: list[str]) -> None:
    for target in targets:
        with contextlib.suppress(Exception):
            resolve(target)


def judge(request: Mapping[str, Any]) -> dict[str, Any]:
    """Judge one check's facts: ``{"finding": ...}``, or ``{"raised": ...}`` when the judge failed."""
    check = _check(registry.Entry.from_json(request["entry"]))
    if isinstance(check, registry.LoadFailure):
        return {"raised": {"type": "ImportError", "message": check.reason, "traceback": ""}}
    return judge_with(check, request)


def judge_with(check: Check, request: Mapping[str, Any]) -> dict[str, Any]:
    """Run ``check``'s judge on the request's facts and options, catching what it raises."""
    facts = request.get("facts") or {}
    try:
        finding = check.judge(facts, request.get("options") or {})
        if not isinstance(finding, Finding):
            raise TypeError(f"judge returned {type(finding).__name__}, not a Finding")
        answer = finding.to_json()
        if not finding.facts:
            answer["facts"] = facts
        json.dumps(answer, allow_nan=False)
    except Exception as exc:
        return {
            "raised": {
                "type": type(exc).__name__,
                "message": str(exc)[:2000],
                "traceback": traceback.format_exc(limit=-6)[-3000:],
            }
        }
    return {"finding": answer}


def validate(request: Mapping[str, Any]) -> dict[str, Any]:
    """Run an option's own validation: ``{"value": normalized}`` or ``{"refused": one line}``."""
    function = resolve(str(request["target"]))
    try:
        value = function(request.get("value"))
    except ValueError as exc:
        return {"refused": " ".join(str(exc).split())[:500] or "refused"}
    return {"value": value}
