"""What differs between two reports that matters for training ("works on node A, not on node B").

Compared: versions (OS and kernel, Python, torch and its build, cuDNN, NCCL, the torch-stack packages),
the NVIDIA driver, the GPUs, the cuda:N -> physical GPU mapping, the relevant environment variables, and
the verdicts whose status changed. Left out on purpose: what differs between any two runs or machines
without changing training (hostnames, paths, timings, GPU UUIDs, memory in use).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from torchdoctor.render import sections

SECTIONS = ("versions", "driver", "GPUs", "visible devices", "environment", "packages", "verdicts")
_VERSION_KEYS = {
    "system": ("OS", "kernel", "machine", "Python"),
    "torch": ("torch", "build", "cuDNN", "NCCL", "kernels for", "CUDA available", "GPUs torch sees"),
}
_DRIVER_KEYS = ("NVIDIA driver", "CUDA supported by the driver")


@dataclass(frozen=True)
class Difference:
    section: str
    name: str
    before: str | None
    after: str | None
    """``None``: absent from that report (an unset variable, a missing GPU, a check not run)."""
    note: str | None = None
    """For a verdict, the new summary (or the old one when the check is gone)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "section": self.section,
            "name": self.name,
            "before": self.before,
            "after": self.after,
            "note": self.note,
        }


def compare(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[Difference]:
    """The differences, grouped by section in the order of SECTIONS; empty when nothing that matters differs.

    A verdict differs when its status does: its summary carries numbers that move between any two runs.
    """
    differences: list[Difference] = []
    for section, read in _READERS:
        differences += _changed(section, read(before), read(after))
    summaries = {**_summaries(before), **_summaries(after)}
    return [
        Difference(d.section, d.name, d.before, d.after, summaries.get(d.name))
        if d.section == "verdicts"
        else d
        for d in differences
    ]


def _versions(data: Mapping[str, Any]) -> dict[str, str | None]:
    system = sections.system(data)
    torch = sections.torch_build(data)
    values: dict[str, Any] = {key: system.get(key) for key in _VERSION_KEYS["system"]}
    values.update({key: torch.get(key) for key in _VERSION_KEYS["torch"]})
    if torch.get("torch") == "not importable":
        values["torch"] = f"not importable ({torch.get('import error')})"
    return _texts(values)


def _driver(data: Mapping[str, Any]) -> dict[str, str | None]:
    found = sections.driver(data)
    return _texts({key: found.get(key) for key in _DRIVER_KEYS})


def _gpus(data: Mapping[str, Any]) -> dict[str, str | None]:
    rows = sections.gpus(data)
    values: dict[str, Any] = {"count": len(rows) if sections.driver(data) else None}
    for row in rows:
        shape = ", ".join(str(row[k]) for k in ("name", "cc", "memory", "mig") if row.get(k) is not None)
        values[f"GPU {row.get('gpu')}"] = shape
    return _texts(values)


def _visible(data: Mapping[str, Any]) -> dict[str, str | None]:
    values = {}
    for row in sections.mapping(data):
        gpu = f"GPU {row['gpu']}" if row.get("gpu") is not None else "unknown GPU"
        values[str(row.get("device"))] = f"{gpu} ({row.get('name')})"
    return _texts(values)


def _verdicts(data: Mapping[str, Any]) -> dict[str, str | None]:
    return {str(v.get("id")): str(v.get("status")) for v in sections.objects(data.get("verdicts"))}


def _summaries(data: Mapping[str, Any]) -> dict[str, str]:
    return {str(v.get("id")): str(v.get("summary")) for v in sections.objects(data.get("verdicts"))}


def _texts(values: Mapping[str, Any]) -> dict[str, str | None]:
    return {key: None if value is None else sections.as_text(value) for key, value in values.items()}


_READERS = (
    ("versions", _versions),
    ("driver", _driver),
    ("GPUs", _gpus),
    ("visible devices", _visible),
    ("environment", lambda data: dict(sections.environment(data))),
    ("packages", lambda data: dict(sections.packages(data))),
    ("verdicts", _verdicts),
)


def _changed(
    section: str, before: Mapping[str, str | None], after: Mapping[str, str | None]
) -> list[Difference]:
    names = list(dict.fromkeys([*before, *after]))
    return [
        Difference(section, name, before.get(name), after.get(name))
        for name in names
        if before.get(name) != after.get(name)
    ]


_ABSENT = {"environment": "(unset)", "packages": "(not installed)", "verdicts": "(not run)"}


def format_lines(differences: Iterable[Difference]) -> list[str]:
    """Differences as aligned text lines under a heading per section."""
    differences = list(differences)
    width = max((len(d.name) for d in differences), default=0)
    lines: list[str] = []
    for section in SECTIONS:
        rows = [d for d in differences if d.section == section]
        if not rows:
            continue
        lines.append(section)
        for row in rows:
            absent = _ABSENT.get(section, "(absent)")
            before = absent if row.before is None else row.before
            after = absent if row.after is None else row.after
            note = f": {row.note}" if row.note else ""
            lines.append(f"  {row.name:<{width}}  {before} -> {after}{note}")
    return lines
