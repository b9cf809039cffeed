"""The report as one JSON document (schema in torchdoctor/schema/report.schema.json)."""

from __future__ import annotations

import json
from typing import Any, TextIO

from torchdoctor.model import Report


def dumps(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)


def render(report: Report, out: TextIO) -> None:
    out.write(dumps(report.to_json()) + "\n")
