"""The data tables of the install checks (``data/*.json``), read once when a check is imported so that
judging stays free of I/O."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def load(file_name: str) -> dict[str, Any]:
    text = resources.files("torchdoctor.checks.install").joinpath(f"data/{file_name}").read_text()
    table: dict[str, Any] = json.loads(text)
    return table
