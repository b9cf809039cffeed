"""What every command shares: the bad-input error, the run context, check selection, common options."""

from __future__ import annotations

import math
import sys
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from torchdoctor.checking import exitcodes

if TYPE_CHECKING:
    from torchdoctor.checking.registry import Loaded
    from torchdoctor.checking.runner import Session, Workers
    from torchdoctor.model import Report, Status
    from torchdoctor.plugin import Option

MAX_TIMEOUT_S = 3600.0
"""The longest --timeout: an hour per probe."""
DEFAULT_TIMEOUT_S = 30.0


class BadInput(Exception):
    """Bad input from the user: one line on stderr and exit code 2."""


@dataclass
class RunContext:
    """What ``main`` prepared before the command line was parsed: the worker and the described checks."""

    workers: Workers | None = None
    checks: list[Loaded] = field(default_factory=list)
    declared: list[Option] = field(default_factory=list)
    program: Callable[[], int] | None = None
    """What ``torchdoctor run`` leaves to run once the command line is done: the user's program, outside
    torchdoctor's frames and guarded streams; it answers the exit code."""

    def require_workers(self) -> Workers:
        if self.workers is None:
            raise RuntimeError("this command needs the workers that main() starts")
        return self.workers


def run_context(ctx: typer.Context) -> RunContext:
    obj = ctx.find_root().obj
    return obj if isinstance(obj, RunContext) else RunContext()


def no_control_characters(value: str, what: str) -> str:
    if any(unicodedata.category(c).startswith("C") for c in value):
        raise BadInput(f"{what} {value!r} has a control character")
    return value


def split_ids(values: list[str] | None, option: str = "--only") -> list[str]:
    """``--only a,b --only c`` -> ``[a, b, c]``; a value that names no id (``--only ''``) or an id with a
    control character is bad input: an empty choice must not quietly mean every check."""
    ids: list[str] = []
    for value in values or []:
        parts = [part.strip() for part in value.split(",") if part.strip()]
        if not parts:
            raise BadInput(f"{option} {value!r} names no check: give check ids or patterns (gpu.*)")
        ids += parts
    return [no_control_characters(i, "check id") for i in ids]


def complete_ids(incomplete: str) -> list[str]:
    """Shell completion of check ids: entry-point names only, nothing imported. After a comma it completes
    the next id of the list (``torch.build,gpu`` -> ``torch.build,gpu.memory``), leaving out those given."""
    from torchdoctor.checking import registry

    given, _, last = incomplete.rpartition(",")
    prefix = f"{given}," if given else ""
    listed = set(given.split(","))
    return [prefix + e.id for e in registry.find_entries() if e.id.startswith(last) and e.id not in listed]


def complete_fail_on(incomplete: str) -> list[str]:
    return [value for value in exitcodes.FAIL_ON if value.startswith(incomplete)]


IdsOption = Annotated[
    list[str] | None,
    typer.Option(
        metavar="IDS",
        help="Run only these checks: ids or patterns (gpu.*), comma-separated or repeated.",
        autocompletion=complete_ids,
    ),
]
SkipOption = Annotated[
    list[str] | None,
    typer.Option(
        metavar="IDS",
        help="Leave these checks out: ids or patterns (gpu.*), comma-separated or repeated.",
        autocompletion=complete_ids,
    ),
]
FailOnOption = Annotated[
    str,
    typer.Option(
        "--fail-on",
        metavar="warn|fail",
        help="Lowest status that makes the exit code 1.",
        autocompletion=complete_fail_on,
    ),
]
FromOption = Annotated[
    Path | None,
    typer.Option(
        "--from",
        metavar="FILE",
        help="Judge the facts of a saved JSON report with today's rules instead of probing this machine.",
    ),
]
TimeoutOption = Annotated[
    float,
    typer.Option(
        "--timeout", metavar="S", help=f"Deadline of each probe, in seconds (at most {MAX_TIMEOUT_S:g})."
    ),
]


def select_checks(checks: Sequence[Loaded], only: list[str] | None, skip: list[str] | None) -> list[Loaded]:
    """The described checks --only/--skip choose; an unknown id or an empty choice is bad input."""
    from torchdoctor.checking import doctor, registry

    try:
        chosen = doctor.select_checks(checks, split_ids(only), split_ids(skip, "--skip"))
    except registry.UnknownCheckError as exc:
        raise BadInput(str(exc)) from None
    if not chosen:
        raise BadInput("--only and --skip leave no check to run")
    return chosen


def judged_from(
    ctx: typer.Context,
    path: Path,
    only: list[str] | None,
    skip: list[str] | None,
    fail_on: Status,
    options: dict[str, Any],
    given: set[str],
) -> Report:
    """--from: the installed checks the saved report can answer, judged on its facts; no probe runs, so an
    option only probes read (``--timeout`` among them) is bad input."""
    from torchdoctor.inputs import saved
    from torchdoctor.output import messages
    from torchdoctor.output.inert import shown
    from torchdoctor.support import rejudge

    run = run_context(ctx)
    probing = [o.flag for o in run.declared if o.key in given and not o.judged]
    source = ctx.get_parameter_source("timeout")
    if source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP"):
        probing.insert(0, "--timeout")
    if probing:
        raise BadInput(
            f"{', '.join(probing)} cannot be used with --from: it judges saved facts, no probe runs"
        )
    try:
        report = saved.load(path)
    except saved.SavedReportError as exc:
        raise BadInput(str(exc)) from None
    judgeable, missing = rejudge.judgeable(report, run.checks)
    chosen = select_checks(run.checks, only, skip)
    judged = [c for c in judgeable if c in chosen]
    if not judged:
        has = ", ".join(report.check_ids) or "facts of no check installed here"
        raise BadInput(f"no check selected here can be judged from {shown(path)} (it has: {has})")
    try:
        rejudge.saved_options(report, chosen)
    except ValueError as exc:
        raise BadInput(f"{shown(path)} is not a valid report: {exc}") from None
    if missing:
        sys.stderr.write(messages.note_line(f"not installed here, left out: {', '.join(missing)}"))
    described = f"{shown(path)} ({report.describe()})"
    sys.stderr.write(messages.note_line(f"judging the facts of {described} with today's rules"))
    judged_options = {o.key: options[o.key] for o in run.declared if o.key in given}
    return rejudge.rejudge(report, chosen, judged_options, run.require_workers(), fail_on)


def fail_on_status(value: str) -> Status:
    from torchdoctor.model import Status

    if value not in exitcodes.FAIL_ON:
        raise BadInput(f"--fail-on must be 'warn' or 'fail', not {value!r}")
    return Status(exitcodes.FAIL_ON[value])


def timeout_seconds(value: float, option: str = "--timeout") -> float:
    if math.isnan(value) or not 0 < value <= MAX_TIMEOUT_S:
        raise BadInput(
            f"{option} must be a number of seconds above 0 and at most {MAX_TIMEOUT_S:g}, not {value:g}"
        )
    return value


def run_options(declared: Sequence[Option], values: dict[str, Any], timeout: float) -> dict[str, Any]:
    """The options probes and judges receive: the declared ones checked, and the probe deadline."""
    from torchdoctor.checking import options

    try:
        checked = options.checked(declared, values)
    except options.BadOption as exc:
        raise BadInput(str(exc)) from None
    return {**checked, "timeout": timeout}


def validate_in_worker(
    declared: Sequence[Option], values: dict[str, Any], session: Session
) -> dict[str, Any]:
    """Run each given option's own validation in the worker, under a deadline; a refusal is bad input."""
    from torchdoctor.checking import runner

    result = dict(values)
    for option in declared:
        if option.validate is None or values.get(option.key) in (None, False):
            continue
        try:
            answer = session.hosted(
                runner.VALIDATE,
                {"target": option.validate, "value": values[option.key]},
                runner.plugin_timeout(),
            )
        except runner.HostedError as exc:
            raise BadInput(f"{option.flag}: cannot be checked: {exc.error.get('message')}") from None
        if "refused" in answer:
            raise BadInput(f"{option.flag}: {answer['refused']}")
        result[option.key] = answer.get("value", values[option.key])
    return result


NO_REDACT_WARNING = (
    "torchdoctor: warning: --no-redact: the output keeps your home directory, user name, hostname and GPU "
    "UUIDs (never a secret's value or a credential); read it before you share it\n"
)


def redaction(redact: bool) -> None:
    """What --redact/--no-redact says for everything the command prints from now on; --no-redact warns."""
    from torchdoctor.output import streams

    if not redact:
        streams.keep_identities()
        sys.stderr.write(NO_REDACT_WARNING)


def shareable(report: Report, redact: bool) -> Report:
    """The report as it may leave the machine, redacted in one place before any renderer sees it: secrets,
    identities and GPU UUIDs by default; with ``--no-redact`` only credentials go. The hosts it names get
    the same pseudonyms in anything else printed."""
    from torchdoctor.inputs import saved
    from torchdoctor.output import redact as redaction
    from torchdoctor.output import streams

    data = report.to_json()
    hosts = redaction.report_hosts(data)
    streams.hide_hostnames(hosts)
    data = redaction.redact_report(data) if redact else redaction.strip_report(data)
    shared = saved.report_from_json(data)
    if report.worker_log:
        identity = redaction.Identity.current(hosts) if redact else redaction.Identity()
        shared.worker_log = redaction.Redactor(identity, shorten_uuids=redact).text(report.worker_log)
    return shared


RedactOption = Annotated[
    bool,
    typer.Option(
        "--redact/--no-redact",
        help="Replace secrets, credentials in URLs, the home directory, user name and hostname; shorten GPU "
        "UUIDs. --no-redact keeps them, but never a secret's value or a credential.",
    ),
]
