"""Lint a list of files as one project: each file is read, parsed and analysed once (in worker processes when
there are many), then the findings that need facts of other files are checked against the summaries of all."""

from __future__ import annotations

import contextlib
import gc
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace

from torchdoctor.lint.display import shown
from torchdoctor.lint.engine import ParseFailure, TooDeep, analyse_source
from torchdoctor.lint.files import ReadFailure, read_file
from torchdoctor.lint.findings import Finding
from torchdoctor.lint.fixer import digest
from torchdoctor.lint.project import Project
from torchdoctor.lint.summary import FileSummary, Location, locate

PARALLEL_FROM = 48  # files; below this, starting processes costs more than it saves


@dataclass(frozen=True)
class FileResult:
    findings: tuple[Finding, ...] = ()
    error: str | None = None  # the one line to print when the file was not linted
    summary: FileSummary | None = None
    digest: str | None = None  # of the bytes linted, when a fix may follow


@dataclass(frozen=True)
class Job:
    path: str  # as shown in the output
    rules: frozenset[str]
    data: bytes | None = None  # the text already read (stdin); None: read ``path``
    keep_digest: bool = False


@dataclass(frozen=True)
class Linted:
    results: list[FileResult]
    project: Project


def lint_job(job: Job) -> FileResult:
    """One file on its own: findings that still wait for the facts of other files, and its summary."""
    try:
        source = job.data if job.data is not None else read_file(job.path)
        location = Location() if job.data is not None else locate(job.path)
        analysis = analyse_source(source, job.path, job.rules, location)
        kept = digest(source) if job.keep_digest else None
        return FileResult(analysis.findings, summary=analysis.summary, digest=kept)
    except ReadFailure as error:
        return FileResult(error=str(error))
    except ParseFailure as error:
        return FileResult(error=error.describe(shown(job.path)))
    except TooDeep as error:
        return FileResult(error=error.describe(shown(job.path)))
    except RecursionError:
        return FileResult(error=TooDeep().describe(shown(job.path)))
    except Exception as error:  # a bug of the linter must not hide the other files' findings
        return FileResult(error=f"{shown(job.path)}: cannot lint: {type(error).__name__}: {error}")


def lint_jobs(jobs: Sequence[Job]) -> Linted:
    """Every file's findings whose facts hold in the project the files make together."""
    results = _analyse(jobs)
    project = Project(result.summary for result in results if result.summary is not None)
    finished = [
        replace(result, findings=tuple(project.finish(result.summary, result.findings)))
        if result.summary is not None
        else result
        for result in results
    ]
    return Linted(finished, project)


# Parsing allocates a syntax tree of many objects that live until the file is done: with CPython's default
# threshold (700 allocations) the collector walks them over and over for nothing. Fewer collections, the same
# garbage collected (a file's cycles are freed by the next one).
_GC_THRESHOLDS = (20_000, 50, 100)


def _worker_setup() -> None:
    gc.freeze()  # what the worker imported stays: no collection needs to look at it again
    gc.set_threshold(*_GC_THRESHOLDS)


@contextlib.contextmanager
def _fewer_collections() -> Iterator[None]:
    before = gc.get_threshold()
    gc.set_threshold(*_GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _analyse(jobs: Sequence[Job]) -> list[FileResult]:
    workers = min(os.cpu_count() or 1, 8)
    if len(jobs) >= PARALLEL_FROM and workers > 1:
        try:
            with ProcessPoolExecutor(max_workers=workers, initializer=_worker_setup) as pool:
                return list(pool.map(lint_job, jobs, chunksize=max(1, len(jobs) // (workers * 16))))
        except (OSError, ImportError, RuntimeError):
            pass  # no processes here (a sandbox): lint in this one
    with _fewer_collections():
        return [lint_job(job) for job in jobs]
