"""``torchdoctor report``: the support-ticket attachment, redacted, written atomically."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from torchdoctor.commands.common import (
    DEFAULT_TIMEOUT_S,
    BadInput,
    FromOption,
    IdsOption,
    RedactOption,
    SkipOption,
    TimeoutOption,
    judged_from,
    redaction,
    run_context,
    run_options,
    select_checks,
    shareable,
    timeout_seconds,
    validate_in_worker,
)
from torchdoctor.output.inert import inert

if TYPE_CHECKING:
    from torchdoctor.model import Report

FORMATS = ("md", "json", "html", "svg")
FORMAT_NAMES = {"md": "Markdown", "json": "JSON", "html": "HTML", "svg": "SVG"}
_SUFFIXES = {".md": "md", ".markdown": "md", ".json": "json", ".html": "html", ".htm": "html", ".svg": "svg"}
DEFAULT_STEM = "torchdoctor-report"


def _complete_formats(incomplete: str) -> list[str]:
    return [name for name in FORMATS if name.startswith(incomplete)]


def report(
    ctx: typer.Context,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            help=f"Where to write it (default: ./{DEFAULT_STEM}.md, or .json/.html/.svg after --format).",
        ),
    ] = None,
    output_format: Annotated[
        str | None,
        typer.Option(
            "--format",
            metavar="md|json|html|svg",
            help="md: paste into a GitHub issue (the default); json: for check --from and diff; "
            "html, svg: the colour table. Default: from the -o suffix, else md.",
            autocompletion=_complete_formats,
        ),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite FILE if it exists.")] = False,
    redact: RedactOption = True,
    preview: Annotated[
        bool, typer.Option("--preview", help="Print what would be shared on stdout and write nothing.")
    ] = False,
    only: IdsOption = None,
    skip: SkipOption = None,
    timeout: TimeoutOption = DEFAULT_TIMEOUT_S,
    from_file: FromOption = None,
    declared: dict[str, Any] | None = None,
    given: set[str] | None = None,
) -> None:
    """Write a report to attach to a support ticket: the verdicts and the facts behind them, redacted.
    With --from, the report of a saved JSON report (its facts judged with today's rules)."""
    from torchdoctor.commands import progress as live
    from torchdoctor.model import Status
    from torchdoctor.render import sections

    fmt = resolve_format(output_format, output)
    target = None if preview else check_target(output or Path(f"{DEFAULT_STEM}.{fmt}"), force)
    timeout_seconds(timeout)
    run = run_context(ctx)
    options = run_options(run.declared, declared or {}, timeout)
    if from_file is not None:
        redaction(redact)
        gathered = judged_from(ctx, from_file, only, skip, Status.FAIL, options, given or set())
    else:
        checks = select_checks(run.checks, only, skip)
        options = validate_in_worker(run.declared, options, run.require_workers().host)
        redaction(redact)
        progress = live.for_terminal(False)
        try:
            workers = run.require_workers()
            gathered = sections.gather(checks, run.checks, options, workers, Status.FAIL, progress)
        finally:
            if progress is not None and hasattr(progress, "stop"):
                progress.stop()
    shared = shareable(gathered, redact)
    text = inert(render(shared, fmt))  # a file is read on a terminal too (cat, less -R)
    if target is None:
        sys.stdout.write(text)
        return
    try:
        write_new(target, text, overwrite=force)
    except FileExistsError:
        raise BadInput(f"{_shown(target)} exists: use --force to overwrite it") from None
    except NotRegularFile:
        raise BadInput(
            f"{_shown(target)} became something else than a regular file while the checks ran (a link, "
            "FIFO, device or folder): nothing was written, and it was left as it is"
        ) from None
    except OSError as exc:
        raise BadInput(f"cannot write {_shown(target)}: {exc.strerror or exc}") from None
    from torchdoctor.render.text import closing_line

    state = "redacted" if redact else "NOT redacted"
    typer.echo(f"wrote {_shown(target)} ({FORMAT_NAMES[fmt]}, {state}): {closing_line(shared.verdicts)}")


def resolve_format(output_format: str | None, output: Path | None) -> str:
    if output_format is not None:
        if output_format not in FORMATS:
            raise BadInput(f"--format must be one of {', '.join(FORMATS)}, not '{output_format}'")
        named = _SUFFIXES.get(output.suffix.lower()) if output is not None else None
        if output is not None and named is not None and named != output_format:
            raise BadInput(
                f"-o {_shown(output)} has the suffix of {FORMAT_NAMES[named]} but --format {output_format} "
                f"writes {FORMAT_NAMES[output_format]}: leave out --format (the suffix picks it) or name a "
                f".{output_format} file"
            )
        return output_format
    if output is not None:
        return _SUFFIXES.get(output.suffix.lower(), "md")
    return "md"


def check_target(path: Path, force: bool) -> Path:
    """Refuse, before any probe runs, a target that cannot be written or would be overwritten.

    Only a regular file is ever replaced (with --force): never a folder, a device, a FIFO or a socket, nor
    a symbolic link to one. A link to a regular file is followed, so the file it names is what is written.
    """
    try:
        info = path.lstat()
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise BadInput(f"-o {_shown(path)}: {exc.strerror or exc}") from None
    if info is not None and stat.S_ISLNK(info.st_mode):
        try:
            resolved = path.resolve(strict=True)
            info = resolved.stat()
        except (OSError, RuntimeError):
            raise BadInput(f"-o {_shown(path)} is a symbolic link to nothing: give a file name") from None
        path = resolved
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise BadInput(f"{_shown(path)} is a folder: give a file name with -o")
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise BadInput(
            f"{_shown(path)} is not a regular file (a device, FIFO or socket): torchdoctor only ever "
            "replaces regular files, even with --force"
        )
    if not path.parent.is_dir():
        raise BadInput(f"the folder {_shown(path.parent)} does not exist")
    if info is not None and not force:
        raise BadInput(f"{_shown(path)} exists: use --force to overwrite it")
    return path


def _shown(path: Path) -> str:
    from torchdoctor.inputs.bounded import shown

    text = shown(path)
    return text if len(text) <= 120 else f"{text[:60]}...{text[-40:]}"


def render(report: Report, fmt: str) -> str:
    if fmt == "md":
        from torchdoctor.render import markdown

        return markdown.render_text(report)
    if fmt == "json":
        from torchdoctor.render import json as json_renderer

        return json_renderer.dumps(report.to_json()) + "\n"
    from torchdoctor.render import html

    return html.render_html(report) if fmt == "html" else html.render_svg(report)


class NotRegularFile(OSError):
    """The name to replace holds something else than a regular file (it was swapped in meanwhile)."""


def write_new(path: Path, text: str, overwrite: bool = False) -> None:
    """Write ``text`` to ``path`` atomically: a temporary file in the same folder, then a rename.

    Without ``overwrite`` an existing file is never replaced, even one created meanwhile: the temporary
    file is hard-linked to the name, which fails if the name exists (FileExistsError). With it, only a
    regular file is replaced, as the name is at the moment of the rename (:func:`replace_regular`).
    """
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".torchdoctor-report-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes it 0600; give it a new file's usual mode
        if overwrite:
            replace_regular(temporary, path)
            return
        try:
            os.link(temporary, path)
        except FileExistsError:
            raise
        except OSError:
            # A file system without hard links: the check before the rename is the best it allows.
            if path.exists():
                raise FileExistsError(path) from None
            os.replace(temporary, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


def replace_regular(temporary: str, path: Path) -> None:
    """Rename ``temporary`` to ``path`` if ``path`` is a regular file or nothing; NotRegularFile otherwise.

    Where the system can swap two names atomically (Linux renameat2 RENAME_EXCHANGE), the two are swapped,
    what came out from under ``path`` is looked at, and swapped back if it is not a regular file: nothing
    can be slipped in between the look and the rename. Elsewhere the name is looked at (without following
    a link) just before the rename.
    """
    if _exchange(temporary, path):
        if stat.S_ISREG(os.lstat(temporary).st_mode):
            return  # the old file is now the temporary name, which the caller removes
        _exchange(temporary, path)
        raise NotRegularFile(str(path))
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        os.link(temporary, path)  # still nothing there: create it, never over something new
        return
    if not stat.S_ISREG(info.st_mode):
        raise NotRegularFile(str(path))
    os.replace(temporary, path)


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _exchange(first: str | Path, second: str | Path) -> bool:
    """Swap two names atomically; False where they cannot be (no such call, nothing at ``second``, a file
    system without the flag)."""
    if sys.platform != "linux":
        return False
    import ctypes
    import errno

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return False
    done = renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE)
    if done == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOENT, errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EXDEV):
        return False
    raise OSError(code, os.strerror(code), str(second))


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
