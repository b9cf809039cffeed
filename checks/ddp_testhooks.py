"""Test-only fault injection for the DDP dry run: ``TORCHDOCTOR_TEST_DDP``, a JSON object.

Inert unless that variable is set; never set it outside torchdoctor's own tests. It lets a machine
without GPUs exercise the real binding and failure rules:

- ``devices``: UUIDs of simulated CUDA devices; each rank binds one of them (by LOCAL_RANK) and keeps
  its tensors on the CPU, so the device-count and shared-GPU rules judge what the ranks report.
- ``device_index``: every rank binds this index instead of LOCAL_RANK (a hard-coded ``cuda:0``).
- ``faults``: ``{local rank: fault}``, one of :data:`FAULTS`, acted out by that rank.
- ``rank_env``: ``{local rank: {VAR: value}}`` added to that rank's environment by the launcher
  (e.g. a PYTHONPATH whose ``torch`` fails to import).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

HOOK_ENV = "TORCHDOCTOR_TEST_DDP"
FAULTS = frozenset(
    {"raise_before_init", "hang_before_init", "hang_after_init", "exit_after_init", "wrong_input"}
)


@dataclass(frozen=True)
class TestHooks:
    devices: tuple[str, ...] | None = None
    device_index: int | None = None
    faults: Mapping[int, str] = field(default_factory=dict)
    rank_env: Mapping[int, Mapping[str, str]] = field(default_factory=dict)

    def fault(self, local_rank: int) -> str | None:
        return self.faults.get(local_rank)


def load(environ: Mapping[str, str]) -> TestHooks | None:
    """The hooks named by TORCHDOCTOR_TEST_DDP, or None when it is unset. A malformed value raises."""
    raw = environ.get(HOOK_ENV)
    if not raw:
        return None
    data = json.loads(raw)
    faults = {int(rank): str(fault) for rank, fault in (data.get("faults") or {}).items()}
    unknown = sorted(set(faults.values()) - FAULTS)
    if unknown:
        raise ValueError(f"{HOOK_ENV}: unknown faults {unknown}; known: {sorted(FAULTS)}")
    devices = data.get("devices")
    index = data.get("device_index")
    return TestHooks(
        devices=None if devices is None else tuple(str(d) for d in devices),
        device_index=None if index is None else int(index),
        faults=faults,
        rank_env={
            int(rank): {str(k): str(v) for k, v in env.items()}
            for rank, env in (data.get("rank_env") or {}).items()
        },
    )
