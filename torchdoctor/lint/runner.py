"""Lint a list of files, in worker processes when there are many (each file is independent)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from torchdoctor.lint.engine import ParseFailure, lint_source
from torchdoctor.lint.files import ReadFailure, read_file
from torchdoctor.lint.findings import Finding

PARALLEL_FROM = 48  # files; below this, starting processes costs more than it saves


@dataclass(frozen=True)
class FileResult:
    findings: tuple[Finding, ...] = ()
    error: str | None = None  # the one line to print when the file was not linted


@dataclass(frozen=True)
class Job:
    path: str  # as shown in the output
    rules: frozenset[str]
    data: bytes | None = None  # the text already read (stdin); None: read ``path``


def lint_job(job: Job) -> FileResult:
    try:
        source = job.data if job.data is not None else read_file(job.path)
        return FileResult(tuple(lint_source(source, job.path, job.rules)))
    except ReadFailure as error:
        return FileResult(error=str(error))
    except ParseFailure as error:
        return FileResult(error=error.describe(job.path))
    except RecursionError:
        return FileResult()  # an expression too deep to analyse: stay silent rather than guess
    except Exception as error:  # a bug of the linter must not hide the other files' findings
        return FileResult(error=f"{job.path}: cannot lint: {type(error).__name__}: {error}")


def lint_jobs(jobs: Sequence[Job]) -> list[FileResult]:
    workers = min(os.cpu_count() or 1, 8)
    if len(jobs) >= PARALLEL_FROM and workers > 1:
        try:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                return list(pool.map(lint_job, jobs, chunksize=max(1, len(jobs) // (workers * 16))))
        except (OSError, ImportError, RuntimeError):
            pass  # no processes here (a sandbox): lint in this one
    return [lint_job(job) for job in jobs]
