"""The JSON Schemas of the reports (the check report; the ``torchdoctor run`` report) and of the explanations
files (``explanations.toml``, as parsed), shipped inside the package."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def report_schema() -> dict[str, Any]:
    return _schema("report.schema.json")


def run_report_schema() -> dict[str, Any]:
    return _schema("run_report.schema.json")


def explanations_schema() -> dict[str, Any]:
    return _schema("explanations.schema.json")


def _schema(file_name: str) -> dict[str, Any]:
    text = resources.files(__name__).joinpath(file_name).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
