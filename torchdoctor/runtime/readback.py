"""A ``torchdoctor run`` report found in a text (a pasted issue, a log): the JSON report (whole, or in a
Markdown fence) or the blocks ``torchdoctor run`` wrote on stderr, turned into explanations, so that
``explain`` and ``triage`` show what the run recorded ahead of what the error message alone says.

Torch-free and bounded: the text is scanned once, JSON goes through the bounded reader and the shipped
schema, and every line taken from the text is made inert for a terminal.
"""

from __future__ import annotations

from collections.abc import Iterator

from torchdoctor.explain.model import Explanation
from torchdoctor.inputs import bounded
from torchdoctor.model import Fix
from torchdoctor.output import inert
from torchdoctor.runtime.model import KIND, Finding, RunReport
from torchdoctor.runtime.render import CLOSING, OPENING, operand_lines

MAX_BLOCKS = 20
MAX_BLOCK_LINES = 400
MAX_LINE = 1000
_MARKER = f'"{KIND}"'
_TITLES = {
    "device_mismatch": "a device mismatch, operand by operand",
    "checkpoint_device": "a checkpoint saved on a device this process does not have",
    "rank_device": "a rank on another rank's GPU",
    "rank_device_ids": "DistributedDataParallel given another rank's GPU",
    "non_blocking_pageable": "non_blocking=True from pageable memory",
    "tiny_copies": "thousands of tiny host<->device copies",
    "nonfinite": "the first module whose half precision output is not finite",
    "compiled_region": "an error inside a torch.compile region",
}
_CHECKS = {
    "rank_device": "ddp.dryrun",
    "rank_device_ids": "ddp.dryrun",
    "non_blocking_pageable": "transfer.pinned",
    "tiny_copies": "transfer.pinned",
}
"""The check that looks at the environment behind a finding, where one does."""


class BadRunReport(ValueError):
    """A run report that cannot be read; the message is one line."""


def is_json_report(text: str) -> bool:
    """The whole text is a run report in JSON (not a check report: triage must not judge it as one)."""
    head = text.lstrip()[:4096]
    return head.startswith("{") and _MARKER in text[:65536]


def parse(text: str, name: str = "the text") -> RunReport:
    """A run report from its JSON text, checked against the shipped schema."""
    from jsonschema import Draft202012Validator

    from torchdoctor.schema import run_report_schema

    try:
        data = bounded.parse_json(text, name)
    except bounded.InputError as exc:
        raise BadRunReport(str(exc)) from None
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise BadRunReport(f"{name} is not a torchdoctor run report")
    errors = sorted(Draft202012Validator(run_report_schema()).iter_errors(data), key=lambda e: list(e.path))
    if errors:
        where = "/".join(inert.shown(str(part)) for part in errors[0].absolute_path) or "the top level"
        raise BadRunReport(
            f"{name} is not a valid run report: at {where}: {' '.join(errors[0].message.split())[:160]}"
        )
    return RunReport.from_json(data)


def reports(text: str) -> Iterator[RunReport]:
    """The JSON run reports of the text: the whole text, or each Markdown fence holding one."""
    from torchdoctor.inputs import saved

    if is_json_report(text):
        bodies = [text]
    else:
        bodies, rest = [], text
        for _ in range(MAX_BLOCKS):
            fenced = saved.fenced_report(rest, _MARKER)
            if fenced is None:
                break
            bodies.append(saved.fence_body(rest, *fenced))
            rest = rest[fenced[1] :]
    for body in bodies:
        try:
            report = parse(body)
        except BadRunReport:
            continue
        yield report


def blocks(text: str) -> Iterator[list[str]]:
    """The lines of each block ``torchdoctor run`` wrote (found by its opening and closing marks), as they
    are: whatever shows them makes them inert."""
    start = 0
    for _ in range(MAX_BLOCKS):
        opening = text.find(OPENING, start)
        if opening < 0:
            return
        body_start = text.find("\n", opening)
        closing = text.find(CLOSING, body_start) if body_start >= 0 else -1
        if closing < 0:
            return
        yield [line[:MAX_LINE] for line in text[body_start + 1 : closing].splitlines()[:MAX_BLOCK_LINES]]
        start = closing + len(CLOSING)


def _block_findings(lines: list[str]) -> Iterator[tuple[str, list[str], str | None]]:
    """(summary, evidence, fix) of each finding of a block: a line that starts a finding is not indented;
    the lines under it are."""
    summary: str | None = None
    evidence: list[str] = []
    fix: str | None = None
    for line in [*lines, ""]:
        if line.startswith(" "):
            stripped = line.strip()
            if stripped.startswith("fix: "):
                fix = stripped[len("fix: ") :]
            elif summary is not None:
                evidence.append(stripped)
            continue
        if summary is not None and not summary.endswith(":"):
            yield summary, evidence, fix
        summary, evidence, fix = (line or None), [], None


def explanations(text: str) -> list[Explanation]:
    """What the run reports in ``text`` found, one explanation each, ahead of every other explanation."""
    found: list[Explanation] = []
    for report in reports(text):
        found += [_explanation(f.id, f.summary, _evidence(f), f.fix, len(text)) for f in report.findings]
    if not found:
        for lines in blocks(text):
            for summary, evidence, fix in _block_findings(lines):
                found.append(_explanation(_block_kind(summary), summary, evidence, fix, len(text)))
    return found


def _evidence(finding: Finding) -> list[str]:
    lines = [line.strip() for operand in finding.operands for line in operand_lines(operand)]
    return [*lines, *finding.evidence]


def _explanation(kind: str, summary: str, evidence: list[str], fix: str | None, position: int) -> Explanation:
    title = _TITLES.get(kind, "what torchdoctor run recorded")
    return Explanation(
        id=f"run.{kind}",
        title=f"torchdoctor run: {title}",
        line=inert.shown(summary[:MAX_LINE]),
        position=position,
        evidence=tuple(inert.shown(line[:MAX_LINE]) for line in evidence[:60]),
        cause=f"recorded inside the program by torchdoctor run: {inert.shown(summary[:MAX_LINE])}",
        fix=Fix(inert.shown((fix or "see the evidence above")[:MAX_LINE])),
        check=_CHECKS.get(kind),
    )


_BLOCK_KINDS = (
    ("device mismatch at ", "device_mismatch"),
    ("torch.load(", "checkpoint_device"),
    ("LOCAL_RANK=", "rank_device"),
    ("non_blocking=True at ", "non_blocking_pageable"),
    ("the error was raised while torch.compile", "compiled_region"),
)


def _block_kind(summary: str) -> str:
    """A finding's kind read back from its summary line, as the recorder words them."""
    if summary.startswith("LOCAL_RANK=") and " wrapped its model with device_ids=" in summary:
        return "rank_device_ids"
    for start, kind in _BLOCK_KINDS:
        if summary.startswith(start):
            return kind
    if " copies at " in summary:
        return "tiny_copies"
    if "returned inf or NaN" in summary or "got a non-finite input" in summary:
        return "nonfinite"
    return "block"
