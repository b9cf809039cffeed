"""Saved JSON reports: load one with clear errors, and judge its facts again with today's rules.

A saved report is what ``torchdoctor check --json`` or ``torchdoctor report --format json`` wrote. Its
facts are judged again through :func:`torchdoctor.runner.judge_all`, exactly as a live run's facts are,
so a support engineer sees the verdicts today's checks give on the user's machine.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from torchdoctor import exitcodes, runner
from torchdoctor._version import __version__
from torchdoctor.model import SCHEMA_VERSION, Report, Status, Verdict
from torchdoctor.plugin import Check
from torchdoctor.registry import LoadFailure

_STANDARD_KEYS = frozenset(
    {
        "schema_version",
        "tool",
        "created_at",
        "host",
        "options",
        "facts",
        "probe_errors",
        "verdicts",
        "summary",
        "exit_code",
        "timings",
    }
)


class SavedReportError(ValueError):
    """A file that is not a saved report this torchdoctor can read; the message is one line."""


@dataclass(frozen=True)
class SavedReport:
    path: Path
    data: dict[str, Any]

    @property
    def check_ids(self) -> list[str]:
        return [str(v["id"]) for v in self.data["verdicts"]]

    @property
    def tool_version(self) -> str:
        return str((self.data.get("tool") or {}).get("version") or "unknown")

    @property
    def redacted(self) -> bool:
        return bool(self.data.get("redacted"))


def load(path: Path) -> SavedReport:
    """Read and check a saved report. Raises SavedReportError with a one-line reason."""
    try:
        text = path.read_text(encoding="utf-8")
    except IsADirectoryError:
        raise SavedReportError(f"{path} is a folder, not a saved report") from None
    except FileNotFoundError:
        raise SavedReportError(f"{path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SavedReportError(f"cannot read {path}: {exc}") from None
    return SavedReport(path, parse(text, str(path)))


def parse(text: str, name: str = "the report") -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        hint = ""
        if text.lstrip().startswith(("<!--", "#", "<svg", "<!DOCTYPE", "<html")):
            hint = "; it looks like a Markdown, HTML or SVG report: judge the one written with --format json"
        raise SavedReportError(
            f"{name} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}){hint}"
        ) from None
    if not isinstance(data, dict) or "schema_version" not in data:
        raise SavedReportError(f"{name} is JSON but not a torchdoctor report (it has no schema_version)")
    version = data["schema_version"]
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise SavedReportError(f"{name} has an invalid schema_version {version!r}")
    if version > SCHEMA_VERSION:
        writer = (data.get("tool") or {}).get("version") if isinstance(data.get("tool"), dict) else None
        by = f" (torchdoctor {writer})" if writer else ""
        raise SavedReportError(
            f"{name} was written by a newer torchdoctor{by} with schema_version {version}; this one "
            f"({__version__}) reads schema_version {SCHEMA_VERSION}: upgrade with pip install -U torchdoctor"
        )
    _check_shape(data, name)
    return data


def _check_shape(data: Mapping[str, Any], name: str) -> None:
    expected = {
        "created_at": str,
        "host": dict,
        "options": dict,
        "facts": dict,
        "probe_errors": dict,
        "verdicts": list,
    }
    for key, kind in expected.items():
        if not isinstance(data.get(key), kind):
            raise SavedReportError(
                f"{name} is not a complete report: '{key}' is missing or not a {kind.__name__}"
            )
    for probe, facts in data["facts"].items():
        if not isinstance(facts, dict):
            raise SavedReportError(
                f"{name} is not a complete report: the facts of probe '{probe}' are not an object"
            )
    for index, verdict in enumerate(data["verdicts"]):
        if not isinstance(verdict, dict) or not isinstance(verdict.get("id"), str):
            raise SavedReportError(f"{name} is not a complete report: verdict {index} has no check id")
        try:
            Verdict.from_json(verdict)
        except (KeyError, ValueError, TypeError) as exc:
            raise SavedReportError(
                f"{name} is not a complete report: verdict '{verdict['id']}' is malformed ({exc})"
            ) from None


def report_from_json(data: Mapping[str, Any]) -> Report:
    """The Report a saved report's JSON describes (the inverse of Report.to_json)."""
    return Report(
        tool_version=str((data.get("tool") or {}).get("version") or "unknown"),
        created_at=str(data.get("created_at") or ""),
        host=dict(data.get("host") or {}),
        options=dict(data.get("options") or {}),
        facts={str(k): dict(v) for k, v in (data.get("facts") or {}).items()},
        verdicts=[Verdict.from_json(v) for v in data.get("verdicts") or []],
        timings=dict(data.get("timings") or {"total_s": 0.0, "probes": {}}),
        exit_code=int(data.get("exit_code") or 0),
        probe_errors=dict(data.get("probe_errors") or {}),
        extra={k: v for k, v in data.items() if k not in _STANDARD_KEYS},
    )


def select(
    saved: SavedReport, checks: Sequence[Check | LoadFailure]
) -> tuple[list[Check | LoadFailure], list[str]]:
    """The installed checks whose ids the saved report has, and the saved ids no installed check has."""
    saved_ids = saved.check_ids
    chosen = [c for c in checks if _id(c) in saved_ids]
    installed = {_id(c) for c in checks}
    return chosen, [i for i in saved_ids if i not in installed]


def _id(check: Check | LoadFailure) -> str:
    return check.entry.id if isinstance(check, LoadFailure) else check.id


def rejudge(
    saved: SavedReport,
    checks: Sequence[Check | LoadFailure],
    options: Mapping[str, Any],
    fail_on: Status = Status.FAIL,
) -> Report:
    """A report of today's verdicts on the saved facts; the run's host, facts and timings are kept."""
    data = saved.data
    run_options = {**data["options"], **options}
    timings = dict(data.get("timings") or {})
    durations = {str(k): float(v) for k, v in (timings.get("probes") or {}).items()}
    timeout = float(run_options.get("timeout") or runner.DEFAULT_TIMEOUT_S)
    verdicts = runner.judge_all(checks, data["facts"], data["probe_errors"], run_options, durations, timeout)
    extra = {k: v for k, v in data.items() if k not in _STANDARD_KEYS}
    extra["judged_from"] = {
        "tool_version": saved.tool_version,
        "created_at": data.get("created_at"),
        "schema_version": data["schema_version"],
    }
    return Report(
        tool_version=__version__,
        created_at=str(data.get("created_at") or ""),
        host=dict(data["host"]),
        options={**run_options, "fail_on": fail_on.value},
        facts=data["facts"],
        verdicts=verdicts,
        timings={"total_s": float(timings.get("total_s") or 0.0), "probes": durations},
        exit_code=exitcodes.for_verdicts(verdicts, fail_on),
        probe_errors=data["probe_errors"],
        extra=extra,
    )
