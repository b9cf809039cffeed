"""What a check is: the probes it needs and the pure judge of their facts.

A plugin module exposes one :class:`Check` and names it in the entry-point
group ``torchdoctor.checks``::

    [project.entry-points."torchdoctor.checks"]
    "acme.scratch" = "acme_doctor:CHECK"

Probes run in the worker process, where torch may be imported; a check module
itself must stay light (no torch import at module level), because the CLI
imports it to read its title.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from torchdoctor.model import Finding

DEFAULT_ORDER = 100
Facts = Mapping[str, Any]
Options = Mapping[str, Any]
ProbeFunction = Callable[[Options], dict[str, Any]]
Judge = Callable[[Facts, Options], Finding]


@dataclass(frozen=True)
class Probe:
    """A fact collector run in the worker.

    ``name`` is the key of its facts in the report and is shared: two checks
    that need the probe named ``nvml`` cause one run of it. ``target`` is the
    ``module:function`` the worker imports and calls with the run options; the
    function returns a JSON-able dict.
    """

    name: str
    target: str

    @classmethod
    def of(cls, name: str, function: ProbeFunction) -> Probe:
        return cls(name=name, target=f"{function.__module__}:{function.__qualname__}")


@dataclass(frozen=True)
class Check:
    """A check: a stable dotted id, a title, its probes and its judge.

    ``judge(facts, options)`` receives ``{probe name: facts}`` for the probes
    listed here and the run options, and returns a :class:`Finding`. It must
    be pure: no I/O, no torch import, no clock.
    """

    id: str
    title: str
    probes: tuple[Probe, ...]
    judge: Judge
    description: str = ""
    order: int = DEFAULT_ORDER
    """Where the check sits in the table and in probe order (lower first; ties by id)."""
