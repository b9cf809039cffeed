"""Saved JSON reports: load one with clear errors, or find one in a text (a fence of an issue, a collect_env
dump).

A saved report is what ``torchdoctor check --json`` or ``torchdoctor report --format json`` wrote;
:mod:`torchdoctor.support.rejudge` judges its facts again with today's rules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from torchdoctor._version import __version__
from torchdoctor.inputs import bounded
from torchdoctor.model import SCHEMA_VERSION, Report, Verdict
from torchdoctor.output import inert
from torchdoctor.output.wording import clipped

STANDARD_KEYS = frozenset(
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


class NoReportInText(SavedReportError):
    """A text that holds neither a JSON report (whole or in a fence) nor a collect_env dump."""


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

    def describe(self) -> str:
        """Who wrote it and when, for the line that says what is being judged."""
        fixture = self.data.get("fixture")
        if isinstance(fixture, dict):
            return f"a {fixture.get('made', 'test')} fixture: {str(fixture.get('source') or '')[:80]}"
        dump = self.data.get("collect_env")
        if isinstance(dump, dict):
            cut = "" if dump.get("complete") else ", cut off"
            return f"a collect_env dump{cut}"
        kind = foreign_kind(self.data)
        if kind is not None:
            return kind
        redacted = ", redacted" if self.redacted else ""
        return f"torchdoctor {self.tool_version}, {self.data['created_at']}{redacted}"


FOREIGN_KINDS = (
    ("collect_env", "a collect_env dump"),
    ("nvidia_smi", "nvidia-smi output"),
    ("nvidia_smi_csv", "nvidia-smi CSV output"),
    ("memory_summary", "a torch.cuda.memory_summary() table"),
    ("memory_snapshot", "printed torch.cuda.memory_snapshot() segments"),
    ("nvidia_topo", "nvidia-smi topo -m output"),
)


def foreign_kind(data: Mapping[str, Any]) -> str | None:
    """What a report made of a foreign text was read from (the first reader that found something), or None
    for torchdoctor's own report."""
    return next((what for key, what in FOREIGN_KINDS if isinstance(data.get(key), dict)), None)


def load(path: Path) -> SavedReport:
    """Read and check a saved report. Raises SavedReportError with a one-line reason."""
    name = inert.shown(path)
    try:
        text = bounded.decode(bounded.read_file(path, what="saved report"), name)
    except bounded.InputError as exc:
        raise SavedReportError(str(exc)) from None
    return SavedReport(path, from_text(text, name))


def from_text(text: str, name: str = "the text") -> dict[str, Any]:
    """The saved report a text holds: a JSON report, one inside a Markdown ``json`` fence (an issue body or a
    support ticket), or a ``python -m torch.utils.collect_env`` dump
    (:mod:`torchdoctor.inputs.collect_env`)."""
    return _located(text, name, markdown=False).data


@dataclass(frozen=True)
class Located:
    data: dict[str, Any]
    span: tuple[int, int] | None
    """Where a torchdoctor report sits in the text; None for a collect_env dump (torch's text, not ours)."""

    @property
    def rendered(self) -> bool:
        """A report rendered for people (Markdown): verdicts as recorded, no facts to judge again."""
        return isinstance(self.data.get("rendered"), dict)

    def outside(self, text: str) -> str:
        """The text without the report: what the user wrote around it."""
        if self.span is None:
            return text
        start, end = self.span
        return f"{text[:start]}\n{text[end:]}"


def locate(text: str, name: str = "the text") -> Located:
    """:func:`from_text` for a pasted issue: a Markdown report too (``torchdoctor report``'s default), and
    where the report sits, so that its facts are not read as errors the user met."""
    return _located(text, name, markdown=True)


def _located(text: str, name: str, markdown: bool) -> Located:
    if text.lstrip().startswith(("{", "[")):
        return Located(parse(text, name), (0, len(text)))
    fenced = fenced_report(text)
    if fenced is not None:
        start, end = fenced
        return Located(parse(fence_body(text, start, end), name), fenced)
    if markdown:
        from torchdoctor.inputs import markdown_reader

        found = markdown_reader.find(text)
        if found is not None:
            _check_shape(found.data, name)
            return Located(found.data, (found.start, found.end))
    data = foreign_report(text, name)
    if data is not None:
        _check_shape(data, name)
        return Located(data, None)
    hint = "" if markdown else _rendered(text)
    raise NoReportInText(
        f"{name} holds no torchdoctor JSON report and no collect_env dump (nor nvidia-smi output){hint}"
    )


def foreign_report(text: str, name: str) -> dict[str, Any] | None:
    """The saved report of what foreign texts in ``text`` say (torch's or NVIDIA's, not ours), or None: every
    reader that finds its own adds the facts no reader before it gave (nvidia-smi's memory figures before a
    collect_env dump's GPU names)."""
    from torchdoctor.inputs import (
        collect_env,
        memory_snapshot,
        memory_summary,
        nvidia_smi,
        nvidia_smi_csv,
        nvidia_topo,
    )

    readers: tuple[Callable[[str], _Foreign | None], ...] = (
        nvidia_smi.find,
        nvidia_smi_csv.find,
        memory_summary.find,
        memory_snapshot.find,
        nvidia_topo.find,
        collect_env.find,
    )
    merged: dict[str, Any] | None = None
    for read in readers:
        given = read(text)
        if given is None:
            continue
        data = given.to_report(name)
        if merged is None:
            merged = data
            continue
        facts = merged["facts"]
        for key, value in data["facts"].items():
            if key not in facts or _empty(facts[key]):
                facts[key] = value
        merged["host"] = {**data["host"], **merged["host"]}
        merged.update({k: v for k, v in data.items() if k not in STANDARD_KEYS and k not in merged})
    return merged


def _empty(fact: Any) -> bool:
    """A probe's facts that say nothing: ``{}``, environment variables a pasted text did not show, or a
    probe's place kept for a check by a text that does not show it (``shown: false``)."""
    return not fact or (
        isinstance(fact, dict) and (fact.get("variables_known") is False or fact.get("shown") is False)
    )


class _Foreign(Protocol):
    """What a reader of a foreign text finds: it makes a saved report of it."""

    def to_report(self, name: str) -> dict[str, Any]: ...


def _rendered(text: str) -> str:
    """A hint for a report rendered for people, which cannot be judged again."""
    if text.lstrip().startswith(("<!--", "#", "<svg", "<!DOCTYPE", "<html")):
        return "; it looks like a Markdown, HTML or SVG report: judge the one written with --format json"
    return ""


_FENCE = "```"
MAX_FENCES = 200


def fenced_report(text: str, marker: str = '"schema_version"') -> tuple[int, int] | None:
    """Where the first fenced block of ``text`` that holds a torchdoctor JSON report (it has
    ``schema_version``, or ``marker``) starts and ends, fences included."""
    start = 0
    for _ in range(MAX_FENCES):
        opening = text.find(_FENCE, start)
        if opening < 0:
            return None
        body_start = text.find("\n", opening)
        if body_start < 0:
            return None
        closing = text.find(_FENCE, body_start)
        if closing < 0:
            return None
        body = text[body_start + 1 : closing]
        if body.lstrip().startswith("{") and marker in body:
            return opening, closing + len(_FENCE)
        start = closing + len(_FENCE)
    return None


def fence_body(text: str, start: int, end: int) -> str:
    """What the fence that ``fenced_report`` found between ``start`` and ``end`` holds."""
    return text[text.find("\n", start) + 1 : end - len(_FENCE)]


def parse(text: str, name: str = "the report") -> dict[str, Any]:
    try:
        data = bounded.parse_json(text, name)
    except bounded.InputError as exc:
        raise SavedReportError(f"{exc}{_rendered(text)}") from None
    if not isinstance(data, dict) or "schema_version" not in data:
        raise SavedReportError(f"{name} is JSON but not a torchdoctor report (it has no schema_version)")
    version = data["schema_version"]
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise SavedReportError(f"{name} has an invalid schema_version {version!r}")
    if version > SCHEMA_VERSION:
        tool = data.get("tool")
        writer = tool.get("version") if isinstance(tool, dict) else None
        by = f" (torchdoctor {writer})" if isinstance(writer, str) else ""
        raise SavedReportError(
            f"{name} was written by a newer torchdoctor{by} with schema_version {version}; this one "
            f"({__version__}) reads schema_version {SCHEMA_VERSION}: upgrade torchdoctor to judge it"
        )
    _check_shape(data, name)
    return data


def _check_shape(data: Mapping[str, Any], name: str) -> None:
    """The report against the shipped JSON Schema, then each verdict as the renderers read it."""
    from jsonschema import Draft202012Validator

    from torchdoctor.schema import report_schema

    errors = sorted(Draft202012Validator(report_schema()).iter_errors(data), key=lambda e: list(e.path))
    if errors:
        error = errors[0]
        where = "/".join(inert.shown(str(part)) for part in error.absolute_path) or "the top level"
        message = clipped(" ".join(error.message.split()), 160)
        raise SavedReportError(f"{name} is not a valid report: at {where}: {message}")
    for verdict in data["verdicts"]:
        try:
            Verdict.from_json(verdict)
        except (KeyError, ValueError, TypeError) as exc:
            message = f"{name} is not a valid report: verdict {verdict['id']!r}: {exc}"
            raise SavedReportError(message) from None


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
        extra={k: v for k, v in data.items() if k not in STANDARD_KEYS},
    )
