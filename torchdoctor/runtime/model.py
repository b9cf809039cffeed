"""The report of ``torchdoctor run``: plain data that converts to and from JSON (the shipped schema
``run_report.schema.json``) and that the stderr block and ``explain``/``triage`` render. No torch here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from torchdoctor.runtime.sites import Site, shown_path

KIND = "torchdoctor run"
"""The value of ``kind`` that marks a run report (a check report has none)."""
RUN_SCHEMA_VERSION = 1


def site_json(site: Site | None) -> dict[str, Any] | None:
    return (
        None
        if site is None
        else {"file": shown_path(site.file), "line": site.line, "function": site.function}
    )


def site_from_json(data: Any) -> Site | None:
    if data is None:
        return None
    return Site(str(data["file"]), int(data["line"]), str(data["function"]))


def site_text(site: Site | None) -> str:
    return "an unknown place" if site is None else f"{shown_path(site.file)}:{site.line} in {site.function}"


@dataclass
class Operand:
    """One operand of a failing operation, as torchdoctor saw it."""

    expression: str
    kind: str
    """tensor, module (the output of a module call: its parameters' device) or unknown."""
    device: str | None = None
    dtype: str | None = None
    shape: list[int] | None = None
    notes: list[str] = field(default_factory=list)
    """Its history: the module attribute holding it, where it was made, moved, loaded, a discarded .to()."""
    odd: bool = False
    """On another device than the one the operation runs on (the one to move)."""
    fix: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "expression": self.expression,
            "kind": self.kind,
            "device": self.device,
            "dtype": self.dtype,
            "shape": self.shape,
            "notes": list(self.notes),
            "odd": self.odd,
            "fix": self.fix,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Operand:
        return cls(
            expression=str(data["expression"]),
            kind=str(data["kind"]),
            device=data.get("device"),
            dtype=data.get("dtype"),
            shape=list(data["shape"]) if data.get("shape") is not None else None,
            notes=[str(n) for n in data.get("notes") or []],
            odd=bool(data.get("odd")),
            fix=data.get("fix"),
        )


@dataclass
class Finding:
    """A problem torchdoctor found while the program ran: what is wrong, the evidence and the fix."""

    id: str
    """device_mismatch, checkpoint_device, rank_device, non_blocking_pageable, tiny_copies, nonfinite,
    compiled_region or recorder_off."""
    summary: str
    site: Site | None = None
    evidence: list[str] = field(default_factory=list)
    fix: str | None = None
    operands: list[Operand] = field(default_factory=list)
    """For a device mismatch: every operand of the failing operation."""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "summary": self.summary,
            "site": site_json(self.site),
            "evidence": list(self.evidence),
            "fix": self.fix,
            "operands": [o.to_json() for o in self.operands],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Finding:
        return cls(
            id=str(data["id"]),
            summary=str(data["summary"]),
            site=site_from_json(data.get("site")),
            evidence=[str(e) for e in data.get("evidence") or []],
            fix=data.get("fix"),
            operands=[Operand.from_json(o) for o in data.get("operands") or []],
        )


@dataclass
class TransferSite:
    """Host<->device copies made at one line: how many, how large, from which kind of host memory."""

    site: Site
    direction: str
    """host_to_device or device_to_host."""
    count: int = 0
    bytes: int = 0
    pinned: int = 0
    pageable: int = 0
    non_blocking: int = 0
    non_blocking_pageable: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "site": site_json(self.site),
            "direction": self.direction,
            "count": self.count,
            "bytes": self.bytes,
            "pinned": self.pinned,
            "pageable": self.pageable,
            "non_blocking": self.non_blocking,
            "non_blocking_pageable": self.non_blocking_pageable,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TransferSite:
        site = site_from_json(data["site"])
        assert site is not None
        return cls(
            site=site,
            direction=str(data["direction"]),
            **{key: int(data[key]) for key in _TRANSFER_COUNTS},
        )


_TRANSFER_COUNTS = ("count", "bytes", "pinned", "pageable", "non_blocking", "non_blocking_pageable")


@dataclass
class SyncSite:
    """Implicit host-device synchronisations (``.item()``, ``bool(t)``...) made at one line (``--deep``)."""

    site: Site
    calls: dict[str, int] = field(default_factory=dict)

    @property
    def count(self) -> int:
        return sum(self.calls.values())

    def to_json(self) -> dict[str, Any]:
        return {"site": site_json(self.site), "count": self.count, "calls": dict(self.calls)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SyncSite:
        site = site_from_json(data["site"])
        assert site is not None
        return cls(site=site, calls={str(k): int(v) for k, v in (data.get("calls") or {}).items()})


@dataclass
class RunReport:
    tool_version: str
    created_at: str
    argv: list[str]
    module: str | None = None
    exit_code: int | None = None
    rank: dict[str, int] | None = None
    deep: bool = False
    nan: bool = False
    torch_version: str | None = None
    recorder: str = "off"
    """on: it recorded to the end; off: torch was never imported; failed: it switched itself off."""
    recorder_failure: str | None = None
    findings: list[Finding] = field(default_factory=list)
    transfers: list[TransferSite] = field(default_factory=list)
    syncs: list[SyncSite] = field(default_factory=list)
    redacted: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": KIND,
            "run_schema_version": RUN_SCHEMA_VERSION,
            "tool": {"name": "torchdoctor", "version": self.tool_version},
            "created_at": self.created_at,
            "program": {
                "argv": list(self.argv),
                "module": self.module,
                "exit_code": self.exit_code,
                "rank": dict(self.rank) if self.rank is not None else None,
            },
            "options": {"deep": self.deep, "nan": self.nan},
            "torch": self.torch_version,
            "recorder": {"state": self.recorder, "failure": self.recorder_failure},
            "findings": [f.to_json() for f in self.findings],
            "transfers": [t.to_json() for t in self.transfers],
            "syncs": [s.to_json() for s in self.syncs],
            "redacted": self.redacted,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunReport:
        program = data["program"]
        recorder = data["recorder"]
        return cls(
            tool_version=str(data["tool"]["version"]),
            created_at=str(data["created_at"]),
            argv=[str(a) for a in program["argv"]],
            module=program.get("module"),
            exit_code=program.get("exit_code"),
            rank=dict(program["rank"]) if program.get("rank") is not None else None,
            deep=bool(data["options"]["deep"]),
            nan=bool(data["options"]["nan"]),
            torch_version=data.get("torch"),
            recorder=str(recorder["state"]),
            recorder_failure=recorder.get("failure"),
            findings=[Finding.from_json(f) for f in data["findings"]],
            transfers=[TransferSite.from_json(t) for t in data["transfers"]],
            syncs=[SyncSite.from_json(s) for s in data["syncs"]],
            redacted=bool(data.get("redacted")),
        )
