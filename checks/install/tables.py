"""The data tables of the install checks (``data/*.json``), read once when a check is imported so that
judging stays free of I/O."""

from __future__ import annotations

import json
import pkgutil
from typing import Any


def load(file_name: str) -> dict[str, Any]:
    # pkgutil, not importlib.resources: as able to read from a zip, and a tenth of the import.
    data = pkgutil.get_data("torchdoctor.checks.install", f"data/{file_name}")
    if data is None:
        raise FileNotFoundError(f"torchdoctor.checks.install/data/{file_name}")
    table: dict[str, Any] = json.loads(data)
    return table
