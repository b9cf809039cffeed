"""Run a script of tests/runtime/scripts in this process as ``torchdoctor run`` runs it, for the runtime
tests: stdout and stderr captured, the report kept, sys.argv, sys.path and __main__ put back afterwards."""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from pathlib import Path

from torchdoctor.runtime import launch
from torchdoctor.runtime.model import RunReport
from torchdoctor.runtime.session import Options, Session

SCRIPTS = Path(__file__).parent / "runtime" / "scripts"


@dataclass
class Ran:
    code: int
    stdout: str
    stderr: str
    report: RunReport


def marked_line(script: str, marker: str) -> int:
    """The number of the line of ``scripts/script`` that carries the comment ``# <marker>``."""
    for number, line in enumerate((SCRIPTS / script).read_text().splitlines(), 1):
        if line.rstrip().endswith(f"# {marker}"):
            return number
    raise AssertionError(f"{script} has no line marked {marker!r}")


def run_script(script: str, *args: str, options: Options | None = None, record: bool = True) -> Ran:
    """``torchdoctor run scripts/script args...`` in this process (stdout and stderr captured); with
    ``record=False``, ``python scripts/script args...`` (an empty report)."""
    program = launch.script(str(SCRIPTS / script), list(args))
    out, err = io.StringIO(), io.StringIO()
    reports: list[RunReport] = []
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        if record:
            session = Session(options or Options(), argv=program.argv)
            session.start()
            code = launch.run(
                program, lambda error, code: reports.append(session.finish(error, code)), restore=True
            )
        else:
            code = launch.run(program, lambda error, code: None, restore=True)
            reports.append(RunReport(tool_version="", created_at="", argv=program.argv))
    return Ran(code, out.getvalue(), err.getvalue(), reports[0])
