"""Options the checks declare: merged into the commands that run checks, and validated before anything runs.

A check declares ``Option("min_free_pct", "--min-free", ..., type="float", minimum=0, maximum=100)``; the
``check``, ``report`` and ``cluster`` commands then take ``--min-free PCT`` (it shows in ``--help`` and in
shell completion), and every probe and judge receives ``options["min_free_pct"]``. Values are checked here
against the declaration, and by the option's own ``validate`` function in the worker.
"""

from __future__ import annotations

import inspect
import math
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from torchdoctor.checking.registry import CheckInfo, Loaded, LoadFailure
from torchdoctor.output import inert
from torchdoctor.output.messages import shown_value
from torchdoctor.plugin import Option

RESERVED_FLAGS = frozenset(
    {
        "--only",
        "--skip",
        "--json",
        "--fail-on",
        "--timeout",
        "--verbose",
        "--from",
        "--help",
        "--version",
        "--output",
        "--format",
        "--force",
        "--redact",
        "--no-redact",
        "--preview",
    }
)
"""Flags of the commands themselves; a check may not declare them."""
MAX_OPTION_FILE_BYTES = 512 * 2**20
"""The largest file a ``file`` option may name (an allocator snapshot of a big job is tens of MiB)."""
_PARAM_PREFIX = "declared_"


class BadOption(ValueError):
    """A value the declaration refuses; the message is one line naming the flag."""


def merge(checks: Sequence[Loaded]) -> tuple[list[Option], list[Loaded]]:
    """The options of all described checks, each flag once, and the checks with clashes made LoadFailures.

    Two checks may share an option by declaring it identically; a check whose option takes a command's own
    flag, or a flag another check declares differently, fails to load.
    """
    by_flag: dict[str, Option] = {}
    keys: dict[str, str] = {}
    kept: list[Loaded] = []
    for check in checks:
        if isinstance(check, LoadFailure):
            kept.append(check)
            continue
        clash = _clash(check, by_flag, keys)
        if clash:
            kept.append(LoadFailure(check.entry, f"{check.entry.display_name}: {clash}"))
            continue
        for option in check.options:
            by_flag[option.flag] = option
            keys[option.key] = option.flag
        kept.append(check)
    return sorted(by_flag.values(), key=lambda o: o.flag), kept


def _clash(check: CheckInfo, by_flag: Mapping[str, Option], keys: Mapping[str, str]) -> str | None:
    for option in check.options:
        if option.flag in RESERVED_FLAGS:
            return f"its option {option.flag} is one of torchdoctor's own"
        known = by_flag.get(option.flag)
        if known is not None and known != option:
            return f"its option {option.flag} is declared differently by another check"
        if known is None and option.key in keys:
            return f"its option {option.flag} uses the key {option.key!r} of {keys[option.key]}"
    return None


def defaults(declared: Iterable[Option]) -> dict[str, Any]:
    return {option.key: option.default for option in declared}


def _param_name(option: Option) -> str:
    return _PARAM_PREFIX + option.key


def _completer(choices: Sequence[str]) -> Callable[[str], list[str]]:
    return lambda incomplete: [c for c in choices if c.startswith(incomplete)]


def _parameter(option: Option) -> inspect.Parameter:
    info: Any
    if option.type == "flag":
        kind: Any = bool
        info = typer.Option(option.flag, help=option.help)
        default: Any = bool(option.default)
    else:
        kind = {"float": float, "int": int, "choice": str, "file": Path}[option.type]
        metavar = option.metavar or ("|".join(option.choices) if option.type == "choice" else "VALUE")
        completion = _completer(option.choices) if option.type == "choice" else None
        info = typer.Option(option.flag, help=option.help, metavar=metavar, autocompletion=completion)
        if option.default is None:
            kind = kind | None
        default = option.default
    return inspect.Parameter(
        _param_name(option), inspect.Parameter.KEYWORD_ONLY, default=default, annotation=Annotated[kind, info]
    )


def with_declared(function: Callable[..., Any], declared: Sequence[Option]) -> Callable[..., Any]:
    """``function`` as a typer command that also takes ``declared``; it receives their values as
    ``declared={key: value}`` and the keys of those given on the command line as ``given``.
    ``function`` takes ``ctx: typer.Context`` as its first parameter."""
    signature = inspect.signature(function, eval_str=True)
    own = [p for p in signature.parameters.values() if p.name not in ("declared", "given")]
    extra = [_parameter(option) for option in declared]

    def command(**kwargs: Any) -> Any:
        context = kwargs["ctx"]
        values: dict[str, Any] = {}
        given: set[str] = set()
        for option in declared:
            name = _param_name(option)
            values[option.key] = kwargs.pop(name)
            if _is_given(context, name):
                given.add(option.key)
        return function(**kwargs, declared=values, given=given)

    parameters = own + extra
    command.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in parameters}
    command.__name__ = function.__name__
    command.__qualname__ = function.__qualname__
    command.__doc__ = function.__doc__
    command.__module__ = function.__module__
    return command


def _is_given(context: Any, name: str) -> bool:
    source = context.get_parameter_source(name)
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


def checked(declared: Sequence[Option], values: Mapping[str, Any]) -> dict[str, Any]:
    """The values as probes and judges get them, checked against their declarations (BadOption if not)."""
    result: dict[str, Any] = {}
    for option in declared:
        value = values.get(option.key, option.default)
        try:
            result[option.key] = _checked(option, value)
        except (TypeError, ValueError, OverflowError) as exc:
            if isinstance(exc, BadOption):
                raise
            raise BadOption(f"{option.flag} takes {_kind(option)}, not {shown_value(value)}") from None
    return result


def from_report(declared: Sequence[Option], values: Mapping[str, Any]) -> dict[str, Any]:
    """The options a saved report was run with, each of a declared option checked against its declaration
    (type and range; a file name is the other machine's and is not looked for here); BadOption naming the
    field for a value the option never takes. Keys no installed check declares are kept as they are."""
    result = dict(values)
    for option in declared:
        if option.key not in values:
            continue
        value = values[option.key]
        if option.type == "path":
            if value is not None and not isinstance(value, str):
                raise BadOption(f"options.{option.key} is {_json_kind(value)}, not a file name")
            continue
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if option.type in ("float", "int") and value is not None and not number:
            raise BadOption(f"options.{option.key} is {_json_kind(value)}, not {_kind(option)}")
        if option.type == "flag" and value is not None and not isinstance(value, bool):
            raise BadOption(f"options.{option.key} is {_json_kind(value)}, not true or false")
        try:
            result[option.key] = _checked(option, value)
        except (TypeError, ValueError, OverflowError) as exc:
            raise BadOption(f"options.{option.key} in the report: {exc}") from None
    return result


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, str):
        return f"the string {shown_value(value)}"
    if isinstance(value, int | float):
        return f"the number {value}"
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else "null"


def _kind(option: Option) -> str:
    return {
        "float": "a number",
        "int": "a whole number",
        "choice": "one of " + ", ".join(option.choices),
    }.get(option.type, "a file name")


def _checked(option: Option, value: Any) -> Any:
    if value is None or option.type == "flag":
        return bool(value) if option.type == "flag" else None
    if option.type in ("float", "int"):
        number = float(value)
        if math.isnan(number) or math.isinf(number):
            raise BadOption(f"{option.flag} must be a finite number, not {str(value).strip()}")
        low, high = option.minimum, option.maximum
        if (low is not None and number < low) or (high is not None and number > high):
            raise BadOption(f"{option.flag} must be between {_num(low)} and {_num(high)}, not {_num(number)}")
        return int(value) if option.type == "int" else number
    if option.type == "choice":
        if not isinstance(value, str) or value not in option.choices:
            raise BadOption(f"{option.flag} must be one of {', '.join(option.choices)}, not {value!r}")
        return value
    if not isinstance(value, str | Path):
        raise TypeError("not a path")
    return str(_regular_file(option, Path(value)))


def _num(value: float | None) -> str:
    return "any" if value is None else f"{value:g}"


def _regular_file(option: Option, path: Path) -> Path:
    try:
        info = path.stat()
    except FileNotFoundError:
        raise BadOption(f"{option.flag}: {inert.shown(path)} does not exist") from None
    except OSError as exc:
        raise BadOption(f"{option.flag}: cannot read {inert.shown(path)}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise BadOption(f"{option.flag}: {inert.shown(path)} is not a regular file")
    if info.st_size > MAX_OPTION_FILE_BYTES:
        raise BadOption(
            f"{option.flag}: {inert.shown(path)} is {info.st_size / 2**20:.0f} MiB, more than the "
            f"{MAX_OPTION_FILE_BYTES // 2**20} MiB torchdoctor reads"
        )
    return path
