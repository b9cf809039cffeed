"""A saved report judged again with today's rules, exactly as a live run's facts are judged
(:func:`torchdoctor.checking.doctor.assemble`), so a support engineer sees the verdicts today's checks give on
the user's machine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from torchdoctor.checking import doctor, runner
from torchdoctor.checking import options as declarations
from torchdoctor.checking.registry import CheckInfo, Loaded
from torchdoctor.inputs.saved import STANDARD_KEYS, SavedReport, foreign_kind
from torchdoctor.model import Report, Status, Verdict
from torchdoctor.output.wording import and_list


def judgeable(saved: SavedReport, checks: Sequence[Loaded]) -> tuple[list[Loaded], list[str]]:
    """The checks to judge a saved report with, and the ids it has verdicts for that are not installed here.

    A report judged before gets the checks it has verdicts for; a file of facts alone (a fixture, a
    collect_env dump) gets every check whose probes all answered, or failed, in it.
    """
    saved_ids = saved.check_ids
    installed = {c.id for c in checks}
    if saved_ids:
        return [c for c in checks if c.id in saved_ids], [i for i in saved_ids if i not in installed]
    known = set(saved.data["facts"]) | set(saved.data["probe_errors"])
    return [c for c in checks if isinstance(c, CheckInfo) and {p.name for p in c.probes} <= known], []


def unanswered(saved: SavedReport, chosen: Sequence[Loaded], judged: Sequence[Loaded]) -> list[Verdict]:
    """For a foreign text (a collect_env dump, nvidia-smi output), a skip verdict for each chosen check it
    says nothing about: the reader sees what it leaves open. A saved report leaves such checks out (it was run
    with --only or --skip)."""
    what = foreign_kind(saved.data)
    if what is None:
        return []
    answered = {c.id for c in judged}
    return [
        Verdict(
            id=c.id,
            title=c.title,
            status=Status.SKIP,
            summary=f"not in {what} (it needs the {and_list([p.name for p in c.probes])} "
            f"probe{'s' if len(c.probes) > 1 else ''}): run torchdoctor check on that machine",
        )
        for c in chosen
        if isinstance(c, CheckInfo) and c.id not in answered
    ]


def saved_options(saved: SavedReport, chosen: Sequence[Loaded]) -> dict[str, Any]:
    """The options the report was run with, each checked against the declaration of a chosen check that
    takes it (options.BadOption, naming the field, for a value that option never takes)."""
    declared = [option for check in chosen if isinstance(check, CheckInfo) for option in check.options]
    return declarations.from_report(declared, saved.data["options"])


def rejudge(
    saved: SavedReport,
    chosen: Sequence[Loaded],
    options: Mapping[str, Any],
    workers: runner.Workers,
    fail_on: Status = Status.FAIL,
) -> Report:
    """A report of today's verdicts on the saved facts by the ``chosen`` checks it can answer (a collect_env
    dump: a skip for each other one, in its place); the run's host, facts and timings are kept."""
    data = saved.data
    timings = dict(data.get("timings") or {})
    run = runner.ProbeRun(
        facts=data["facts"],
        errors=data["probe_errors"],
        durations={str(k): float(v) for k, v in (timings.get("probes") or {}).items()},
    )
    extra = {k: v for k, v in data.items() if k not in STANDARD_KEYS}
    extra["judged_from"] = {
        "tool_version": saved.tool_version,
        "created_at": data.get("created_at"),
        "schema_version": data["schema_version"],
    }
    judged, _ = judgeable(saved, chosen)
    report = doctor.assemble(
        judged,
        run,
        {**saved_options(saved, chosen), **options},
        workers,
        fail_on=fail_on,
        created_at=str(data.get("created_at") or ""),
        host_summary=data["host"],
        total_s=float(timings.get("total_s") or 0.0),
        extra=extra,
        extra_verdicts=unanswered(saved, chosen, judged),
    )
    order = {c.id: i for i, c in enumerate(chosen)}
    report.verdicts.sort(key=lambda v: order.get(v.id, len(order)))
    return report
