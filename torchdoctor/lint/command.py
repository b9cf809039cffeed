"""``torchdoctor lint PATHS...``: what the CLI calls. Exit 0 clean, 1 findings, 2 bad input (2 wins)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Sequence
from typing import TextIO

from torchdoctor.lint import fixer
from torchdoctor.lint.config import ConfigError, load_config, select_rules
from torchdoctor.lint.display import shown
from torchdoctor.lint.files import STDIN, STDIN_NAME, ReadFailure, expand_paths, read_file, read_stdin_bytes
from torchdoctor.lint.findings import Finding
from torchdoctor.lint.output import FORMATS, render
from torchdoctor.lint.rules import UnknownRuleError
from torchdoctor.lint.runner import FileResult, Job, Linted, lint_jobs
from torchdoctor.lint.summary import Location, locate
from torchdoctor.output.messages import error_line

OK, FINDINGS, BAD_INPUT = 0, 1, 2


def run_lint(
    paths: Sequence[str],
    *,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    output_format: str = "text",
    show_fixes: bool = False,
    fix: bool = False,
    diff: bool = False,
    stdin_text: str | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Lint files and folders (``-``: standard input, or ``stdin_text`` when given) and print the findings.

    ``select``/``ignore`` hold rule ids or prefixes (``TDL001``, ``TDL1``, ``ALL``), comma-separated or not;
    None leaves the pyproject.toml's choice. Files that cannot be read or parsed get one line on stderr.
    ``fix`` rewrites the files whose findings have a safe rewrite and prints what is left; ``diff`` prints the
    rewrites as a unified diff and writes nothing.
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
    rewriting = fix or diff
    for path in expansion.files:
        if path != STDIN:
            jobs.append(Job(path, selection.rules_for(path), keep_digest=rewriting))
            continue
        if fix and not diff:
            errors.append(f"{STDIN_NAME}: --fix rewrites files, not standard input (--diff shows the change)")
            continue
        try:
            data = _stdin_bytes(stdin_text)
        except ReadFailure as error:
            errors.append(str(error))
            continue
        jobs.append(Job(STDIN_NAME, selection.rules, data, keep_digest=rewriting))
    if not jobs and not errors:
        where = ", ".join(shown(path) for path in targets)
        _write(err, f"torchdoctor lint: no Python file to lint in {where}\n")
        return OK
    linted = lint_jobs(jobs)
    if rewriting:
        return _rewrite(linted, jobs, errors, out, err, output_format, show_fixes, write=not diff)
    findings: list[Finding] = []
    for result in linted.results:
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


def _rewrite(
    linted: Linted,
    jobs: list[Job],
    errors: list[str],
    out: TextIO,
    err: TextIO,
    output_format: str,
    show_fixes: bool,
    write: bool,
) -> int:
    """--fix (``write``) or --diff: each file with a finding that has a safe rewrite is rewritten, re-linted
    and written back (or shown as a diff); findings without one are printed as usual under --fix."""
    remaining: list[Finding] = []
    diffs: list[str] = []
    fixed_findings = fixed_files = 0
    for job, result in zip(jobs, linted.results, strict=True):
        if result.error is not None:
            errors.append(result.error)
        if not fixer.fixable(result.findings) or result.summary is None:
            remaining.extend(result.findings)
            continue
        try:
            done = _fix_one(job, result, linted)
            if write:
                fixer.write(done)
            else:
                diffs.append(fixer.unified_diff(done))
        except fixer.NotFixed as refusal:
            errors.append(str(refusal))
            remaining.extend(result.findings)
            continue
        fixed_findings += done.fixed
        fixed_files += 1
        remaining.extend(done.remaining)
    for line in errors:
        _write(err, error_line(line))
    if not write:
        _write(out, "".join(diffs))
        if remaining:
            _write(
                err,
                f"torchdoctor lint: {len(remaining)} finding(s) without a rewrite "
                "(lint without --diff lists them)\n",
            )
        return BAD_INPUT if errors else FINDINGS if diffs or remaining else OK
    remaining.sort()
    _write(out, render(remaining, output_format, show_fixes))
    if fixed_findings:
        _write(err, f"torchdoctor lint: fixed {fixed_findings} finding(s) in {fixed_files} file(s)\n")
    if errors:
        return BAD_INPUT
    return FINDINGS if remaining else OK


def _fix_one(job: Job, result: FileResult, linted: Linted) -> fixer.Fixed:
    if job.data is not None:
        data = job.data
        location = Location()
    else:
        try:
            data = read_file(job.path)
        except ReadFailure as error:
            raise fixer.NotFixed(str(error)) from None
        location = locate(job.path)
    if fixer.digest(data) != result.digest:
        raise fixer.NotFixed(f"{shown(job.path)}: changed since it was linted, not fixed")
    return fixer.fix_source(data, job.path, job.rules, location, linted.project, result.findings)


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
