"""Triage a pasted issue: the environment it shows, judged; the errors it quotes, explained; and which verdict
explains which error.

An issue body (or a support ticket) usually holds a ``python -m torch.utils.collect_env`` dump or an attached
torchdoctor JSON report, and a traceback. The environment is judged by today's checks exactly as
``torchdoctor check --from`` judges it; the text goes through the installed explanation catalogues exactly as
``torchdoctor explain`` reads it. An explanation names the check that looks at its cause, so the two meet: an
error whose check fails on the issue's own facts is confirmed by them, one whose check passes points past the
environment, one whose check the dump cannot answer asks for a report from that machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from torchdoctor.checking import exitcodes
from torchdoctor.checking.registry import Loaded
from torchdoctor.explain.model import Explanation
from torchdoctor.inputs import saved
from torchdoctor.model import Report, Status, Verdict
from torchdoctor.support import rejudge

if TYPE_CHECKING:
    from torchdoctor.checking.runner import Workers


class NothingToTriage(ValueError):
    """The text holds no environment and no message torchdoctor knows; the message is one line."""


@dataclass(frozen=True)
class Link:
    """An error of the text and the verdict on the check its explanation names (None: not judged)."""

    explanation: Explanation
    verdict: Verdict | None

    @property
    def reading(self) -> str:
        """What the verdict says about the error, in one sentence."""
        check = self.explanation.check
        if self.verdict is None or self.verdict.status is Status.SKIP:
            return (
                f"the environment shown does not say what {check} looks at: ask for "
                f"`torchdoctor check --only {check}` from the machine that failed"
            )
        status, summary = self.verdict.status, self.verdict.summary
        if status in (Status.FAIL, Status.WARN):
            return f"confirmed by the environment shown: {check} {status.value}s: {summary}"
        if status is Status.PASS:
            return (
                f"{check} passes on the environment shown ({summary}): the error came from another "
                "environment (another Python, venv or conda env, another machine) or from outside what "
                f"{check} looks at"
            )
        return f"{check} could not be judged: {summary}"

    def to_json(self) -> dict[str, Any]:
        return {
            "explanation": self.explanation.id,
            "matched": self.explanation.line,
            "check": self.explanation.check,
            "status": self.verdict.status.value if self.verdict is not None else None,
            "reading": self.reading,
        }


@dataclass
class Triage:
    source: str
    report: Report | None
    """The environment the text shows, judged; None when it shows none."""
    environment: str | None
    """What the environment was read from (a collect_env dump, cut off; a torchdoctor report)."""
    explanations: list[Explanation]
    problems: list[str] = field(default_factory=list)
    """Catalogues that gave no answer, an environment that could not be read: one line each."""

    @property
    def links(self) -> list[Link]:
        """Each explained error whose check the environment was judged by (none without an environment)."""
        if self.report is None:
            return []
        verdicts = {v.id: v for v in self.report.verdicts}
        return [Link(e, verdicts.get(e.check)) for e in self.explanations if e.check]

    @property
    def exit_code(self) -> int:
        return self.report.exit_code if self.report is not None else exitcodes.OK

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "environment": self.environment,
            "report": self.report.to_json() if self.report is not None else None,
            "explanations": [e.to_json() for e in self.explanations],
            "links": [link.to_json() for link in self.links],
            "problems": list(self.problems),
            "exit_code": self.exit_code,
        }


def environment_of(text: str, name: str) -> tuple[saved.Located | None, str | None]:
    """The report the text holds, or None and, where the text holds one that cannot be read, why."""
    try:
        return saved.locate(text, name), None
    except saved.NoReportInText:
        return None, None
    except saved.SavedReportError as exc:
        return None, str(exc)


def triage(
    text: str,
    name: str,
    chosen: Sequence[Loaded],
    workers: Workers,
    fail_on: Status = Status.FAIL,
) -> Triage:
    """Judge the environment ``text`` shows with the ``chosen`` checks and explain the errors it quotes, all
    in the worker. Raises NothingToTriage when it shows neither.

    A torchdoctor report in the text is the environment, never an error quoted: its facts (a missing
    libcuda.so on a machine without a driver) are what its checks judged, so only the text around it goes to
    the explanation catalogues.
    """
    from torchdoctor.explain import catalogue
    from torchdoctor.runtime import readback

    # A torchdoctor run report holds no environment: it is not read as a check report.
    located, unreadable = (None, None) if readback.is_json_report(text) else environment_of(text, name)
    quoted = located.outside(text) if located is not None else text
    matched = catalogue.explain_in_worker(quoted, catalogue.asking(workers.host))
    matched.explanations = readback.explanations(text) + matched.explanations
    problems = ([unreadable] if unreadable else []) + matched.problems
    if located is None and not matched.explanations:
        why = f": {unreadable}" if unreadable else ""
        raise NothingToTriage(
            f"{name} holds no collect_env dump, no torchdoctor report and no error message torchdoctor "
            f"knows{why}"
        )
    report = None
    environment = None
    if located is not None:
        environment = saved.SavedReport(Path(name), located.data)
        if located.rendered:
            report = _as_recorded(environment, chosen, fail_on)
        else:
            judged, _ = rejudge.judgeable(environment, chosen)
            try:
                rejudge.saved_options(environment, chosen)
            except ValueError as exc:
                problems.append(f"the report in {name} is not a valid report: {exc}")
                judged = []
            else:
                if judged or rejudge.unanswered(environment, chosen, judged):
                    report = rejudge.rejudge(environment, chosen, {}, workers, fail_on)
        if report is None or not report.verdicts:
            report = None
            problems.append(f"no check selected here can judge the environment in {name}")
    return Triage(
        source=name,
        report=report,
        environment=_described(environment, located) if environment is not None else None,
        explanations=matched.explanations,
        problems=problems,
    )


def _as_recorded(environment: saved.SavedReport, chosen: Sequence[Loaded], fail_on: Status) -> Report:
    """A Markdown report's verdicts as it recorded them, for the chosen checks, under their titles here."""
    titles = {c.id: getattr(c, "title", c.id) for c in chosen}
    report = saved.report_from_json(environment.data)
    report.verdicts = [replace(v, title=titles[v.id]) for v in report.verdicts if v.id in titles]
    report.exit_code = exitcodes.for_verdicts(report.verdicts, fail_on)
    return report


def _described(environment: saved.SavedReport, located: saved.Located | None) -> str:
    described = environment.describe()
    if located is not None and located.rendered:
        return (
            f"a Markdown report of {described}, its verdicts as recorded (it holds no facts to judge "
            "again; --format json does)"
        )
    return described
