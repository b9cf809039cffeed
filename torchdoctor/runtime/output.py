"""The JSON report of a run, redacted and written as ``torchdoctor report`` writes files: only ever a regular
file (a link is followed only to a regular file), through a temporary file and a rename."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from torchdoctor.runtime.model import RunReport

# What a run report holds that is structure, not content: never rewritten by redaction.
_STRUCTURAL = frozenset({"kind", "run_schema_version", "tool", "created_at", "options", "redacted"})


def shareable(report: RunReport, redact: bool) -> dict[str, Any]:
    """The report as JSON data that may leave the machine: credentials always removed, and by default the
    home directory, user name and hostname too (torchdoctor.output.redact); arguments after a secret-looking
    flag (``--token X``) masked."""
    from torchdoctor.output import redact as redaction

    data = report.to_json()
    identity = redaction.Identity.current() if redact else redaction.Identity()
    redactor = redaction.Redactor(identity, shorten_uuids=redact)
    shared = {key: value if key in _STRUCTURAL else redactor.value(value, key) for key, value in data.items()}
    masked = redaction.masked_arguments(data["program"]["argv"])
    shared["program"]["argv"] = [redactor.text(word) for word in masked]
    shared["redacted"] = redact
    return shared


def dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write_report(report: RunReport, path: str, redact: bool) -> str | None:
    """Write the report to ``path``; the one-line reason when it cannot be written."""
    from torchdoctor.output import files

    try:
        target = files.check_target(Path(path), force=True, option="--report")
        files.write_new(target, dumps(shareable(report, redact)), overwrite=True)
    except files.Unwritable as exc:
        return str(exc)
    except OSError as exc:
        return f"cannot write {path}: {exc.strerror or exc}"
    return None
