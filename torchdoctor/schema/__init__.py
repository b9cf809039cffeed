"""The JSON Schemas of the reports (the check report; the ``torchdoctor run`` report), shipped inside the
package."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def report_schema() -> dict[str, Any]:
    text = resources.files(__name__).joinpath("report.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def run_report_schema() -> dict[str, Any]:
    text = resources.files(__name__).joinpath("run_report.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
