"""What a check is: the probes it needs, the options it takes and the pure judge of their facts.

A plugin module exposes one :class:`Check` and names it in the entry-point
group ``torchdoctor.checks``::

    [project.entry-points."torchdoctor.checks"]
    "acme.scratch" = "acme_doctor:CHECK"

Check modules are imported in the worker process only, each under a deadline, never in the CLI: the CLI
works from what the worker describes (:func:`describe`). Probes run in the worker too, where torch may be
imported; a check module itself stays light (no torch import at module level).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from torchdoctor.model import Finding

DEFAULT_ORDER = 100
Facts = Mapping[str, Any]
Options = Mapping[str, Any]
ProbeFunction = Callable[[Options], dict[str, Any]]
Judge = Callable[[Facts, Options], Finding]
OptionType = Literal["float", "int", "flag", "choice", "file"]

_FLAG = re.compile(r"--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
_KEY = re.compile(r"[a-z][a-z0-9_]*")


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

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "target": self.target}


@dataclass(frozen=True)
class Option:
    """A command-line option a check takes: ``--min-free PCT`` becomes ``options["min_free_pct"]``.

    The CLI validates the value against the declaration (type, range, choices; for ``file`` a regular
    file) before anything runs; ``validate``, a ``module:function`` run in the worker under a deadline,
    can refuse a value the declaration cannot describe (it raises ValueError with a one-line reason).
    ``judged`` options change only the verdict, so they may be given with ``check --from``.
    """

    key: str
    flag: str
    help: str
    type: OptionType
    default: Any = None
    metavar: str | None = None
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    judged: bool = False
    validate: str | None = None

    def __post_init__(self) -> None:
        if not _KEY.fullmatch(self.key):
            raise ValueError(f"option key {self.key!r} is not a lowercase identifier")
        if not _FLAG.fullmatch(self.flag):
            raise ValueError(f"option flag {self.flag!r} is not a long option such as --min-free")
        if self.type == "choice" and not self.choices:
            raise ValueError(f"option {self.flag} is a choice without choices")

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "flag": self.flag,
            "help": self.help,
            "type": self.type,
            "default": self.default,
            "metavar": self.metavar,
            "choices": list(self.choices),
            "minimum": self.minimum,
            "maximum": self.maximum,
            "judged": self.judged,
            "validate": self.validate,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Option:
        return cls(
            key=str(data["key"]),
            flag=str(data["flag"]),
            help=str(data.get("help") or ""),
            type=data["type"],
            default=data.get("default"),
            metavar=data.get("metavar"),
            choices=tuple(str(c) for c in data.get("choices") or ()),
            minimum=data.get("minimum"),
            maximum=data.get("maximum"),
            judged=bool(data.get("judged")),
            validate=data.get("validate"),
        )


@dataclass(frozen=True)
class JudgeAt:
    """The judge ``module:function``, imported when it first judges: describing the check (``torchdoctor
    list``, completions, the start of every command) then imports the declaration alone, not what only
    judging needs. Made by :func:`judge_at`; called as the function it names."""

    target: str

    def __call__(self, facts: Facts, options: Options) -> Finding:
        finding: Finding = resolve(self.target)(facts, options)
        return finding


def resolve(target: str) -> Any:
    """The object ``module:qualified.name`` names, its module imported: a probe's, a judge's or an option's
    target, or an entry point's value (spaces around either part allowed, ``module`` alone the module)."""
    module_name, _, qualname = (part.strip() for part in target.partition(":"))
    obj: Any = importlib.import_module(module_name)
    for part in qualname.split(".") if qualname else ():
        obj = getattr(obj, part)
    return obj


def judge_at(target: str) -> Judge:
    """A check's judge named by ``module:function`` (see :class:`JudgeAt`)."""
    return JudgeAt(target)


@dataclass(frozen=True)
class Check:
    """A check: a stable dotted id, a title, its probes, the options it takes and its judge.

    ``judge(facts, options)`` receives ``{probe name: facts}`` for the probes
    listed here and the run options, and returns a :class:`Finding`. It must
    be pure: no I/O, no torch import, no clock. A probe named by its target
    (``Probe(name, "module:function")``) and a judge named by :func:`judge_at`
    keep the module that declares the check light: describing it imports neither.
    """

    id: str
    title: str
    probes: tuple[Probe, ...]
    judge: Judge
    description: str = ""
    order: int = DEFAULT_ORDER
    """Where the check sits in the table and in probe order (lower first; ties by id)."""
    options: tuple[Option, ...] = ()
