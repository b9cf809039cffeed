"""What every command shares: the bad-input error, check selection and the validation of common options."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from torchdoctor import exitcodes

if TYPE_CHECKING:
    from torchdoctor.model import Status
    from torchdoctor.plugin import Check
    from torchdoctor.registry import LoadFailure


class BadInput(Exception):
    """Bad input from the user: one line on stderr and exit code 2."""


def split_ids(values: list[str] | None) -> list[str]:
    """``--only a,b --only c`` -> ``[a, b, c]``."""
    return [part.strip() for value in values or [] for part in value.split(",") if part.strip()]


def complete_ids(incomplete: str) -> list[str]:
    """Shell completion of check ids: entry-point names only, nothing imported."""
    from torchdoctor import registry

    return [e.id for e in registry.find_entries() if e.id.startswith(incomplete)]


IdsOption = Annotated[
    list[str] | None,
    typer.Option(
        metavar="IDS",
        help="Check ids or patterns (gpu.*), comma-separated or repeated.",
        autocompletion=complete_ids,
    ),
]


def select_checks(only: list[str] | None, skip: list[str] | None) -> list[Check | LoadFailure]:
    """The installed checks --only/--skip choose; an unknown id or an empty choice is bad input."""
    from torchdoctor import doctor, registry

    try:
        checks = doctor.select_checks(split_ids(only), split_ids(skip))
    except registry.UnknownCheckError as exc:
        raise BadInput(str(exc)) from None
    if not checks:
        raise BadInput("--only and --skip leave no check to run")
    return checks


def fail_on_status(value: str) -> Status:
    from torchdoctor.model import Status

    if value not in exitcodes.FAIL_ON:
        raise BadInput(f"--fail-on must be 'warn' or 'fail', not '{value}'")
    return Status(exitcodes.FAIL_ON[value])


def positive_seconds(value: float, option: str = "--timeout") -> float:
    if not value > 0 or value != value or value == float("inf"):
        raise BadInput(f"{option} must be a positive number of seconds, not {value:g}")
    return value


DEFAULT_MIN_FREE_PCT = 10.0


def check_options(
    timeout: float,
    min_free: float = DEFAULT_MIN_FREE_PCT,
    memory_snapshot: Path | None = None,
    quick: bool = False,
    nproc: int | None = None,
    backend: str | None = None,
) -> dict[str, Any]:
    """The options probes and judges receive; validated here so a probe never sees a bad value."""
    if not 0 <= min_free <= 100:
        raise BadInput(f"--min-free must be a percentage between 0 and 100, not {min_free:g}")
    if nproc is not None and not 1 <= nproc <= 1024:
        raise BadInput(f"--nproc must be between 1 and 1024, not {nproc}")
    if backend is not None and backend not in ("nccl", "gloo"):
        raise BadInput(f"--backend must be 'nccl' or 'gloo', not '{backend}'")
    snapshot = None
    if memory_snapshot is not None:
        from torchdoctor.checks.memory import allocator_snapshot

        try:
            allocator_snapshot.load(memory_snapshot)
        except allocator_snapshot.SnapshotError as exc:
            raise BadInput(str(exc)) from None
        snapshot = str(memory_snapshot.resolve())
    return {
        "timeout": timeout,
        "min_free_pct": min_free,
        "memory_snapshot": snapshot,
        "quick": quick,
        "nproc": nproc,
        "backend": backend,
    }
