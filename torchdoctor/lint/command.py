"""``torchdoctor lint PATHS...``: what the CLI calls. Exit 0 clean, 1 findings, 2 bad input (2 wins)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Sequence
from typing import TextIO

from torchdoctor.lint.config import ConfigError, load_config, select_rules
from torchdoctor.lint.files import STDIN, STDIN_NAME, ReadFailure, expand_paths, read_stdin_bytes
from torchdoctor.lint.findings import Finding
from torchdoctor.lint.output import FORMATS, render
from torchdoctor.lint.rules import UnknownRuleError
from torchdoctor.lint.runner import Job, lint_jobs
from torchdoctor.messages import error_line

OK, FINDINGS, BAD_INPUT = 0, 1, 2


def run_lint(
    paths: Sequence[str],
    *,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    output_format: str = "text",
    show_fixes: bool = False,
    stdin_text: str | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Lint files and folders (``-``: standard input, or ``stdin_text`` when given) and print the findings.

    ``select``/``ignore`` hold rule ids or prefixes (``TDL001``, ``TDL1``, ``ALL``), comma-separated or not;
    None leaves the pyproject.toml's choice. Files that cannot be read or parsed get one line on stderr.
    """
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    if output_format not in FORMATS:
        _write(err, error_line(f"lint: unknown format {output_format!r} (one of: {', '.join(FORMATS)})"))
        return BAD_INPUT
    targets = list(paths) or ["."]
    try:
        config = load_config(targets)
        selection = select_rules(config, select, ignore)
    except (ConfigError, UnknownRuleError) as error:
        _write(err, error_line(f"lint: {error}"))
        return BAD_INPUT
    expansion = expand_paths(targets, config)
    errors = list(expansion.errors)
    jobs = []
    for path in expansion.files:
        if path != STDIN:
            jobs.append(Job(path, selection.rules_for(path)))
            continue
        try:
            data = _stdin_bytes(stdin_text)
        except ReadFailure as error:
            errors.append(str(error))
            continue
        jobs.append(Job(STDIN_NAME, selection.rules, data))
    findings: list[Finding] = []
    for result in lint_jobs(jobs):
        findings.extend(result.findings)
        if result.error is not None:
            errors.append(result.error)
    findings.sort()
    for line in errors:
        _write(err, error_line(line))
    _write(out, render(findings, output_format, show_fixes))
    if errors:
        return BAD_INPUT
    return FINDINGS if findings else OK


def _stdin_bytes(stdin_text: str | None) -> bytes:
    if stdin_text is not None:
        data = stdin_text.encode("utf-8", errors="surrogateescape")
        return read_stdin_bytes(_Bytes(data))
    return read_stdin_bytes(getattr(sys.stdin, "buffer", sys.stdin))


class _Bytes:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def read(self, size: int) -> bytes:
        return self.data[:size]


def _write(stream: TextIO, text: str) -> None:
    """Write, whatever the stream's encoding (a file name with undecodable bytes), and let a closed pipe
    (``torchdoctor lint . | head``) end the output quietly."""
    with contextlib.suppress(BrokenPipeError, ValueError):
        try:
            stream.write(text)
        except UnicodeEncodeError:
            encoding = getattr(stream, "encoding", None) or "utf-8"
            stream.write(text.encode(encoding, "backslashreplace").decode(encoding, "replace"))
        stream.flush()
