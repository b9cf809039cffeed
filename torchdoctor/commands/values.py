"""How a command's parameters turn the text of the command line into values.

From 0.29 typer converts every parameter through a pydantic ``TypeAdapter``, and the first conversion imports
pydantic: about a quarter of the CPU time of a command that runs no check. torchdoctor's parameters are plain
text, numbers, paths and lists of them, and every command checks its values itself (``options.checked``,
``inputs``), so those convert here directly, as ``str``, ``int``, ``float``, ``bool`` and ``Path`` do. Any
other parameter, and every parameter under a typer without that conversion step (click converts there), is
left to typer.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from torchdoctor.output.messages import shown_value

_NAMES = {str: "text", int: "whole number", float: "number", Path: "path", bool: "flag value"}
_BOOLS = {"1": True, "true": True, "t": True, "yes": True, "y": True, "on": True}
_BOOLS.update({"0": False, "false": False, "f": False, "no": False, "n": False, "off": False, "": False})
_ZERO_FRACTION = re.compile(r"\s*([+-]?\d+)\.0+\s*")
_KEPT_DEFAULTS = {
    "parser": None,
    "min": None,
    "max": None,
    "clamp": False,
    "formats": None,
    "exists": False,
    "file_okay": True,
    "dir_okay": True,
    "writable": False,
    "resolve_path": False,
    "allow_dash": False,
    "path_type": None,
}
"""The settings under which typer's conversion is the type's own (but for a path that exists, which typer
also tests for reading: torchdoctor opens its files itself and says in one line why one cannot be read); a
parameter that sets any of them otherwise is left to typer."""


class DirectValue:
    """A parameter's conversion (typer's ``RuntimeParam`` protocol: ``coerce(value, param=, ctx=)``) by
    ``kind(text)``, a flag's word by the list click and pydantic share (yes/no, true/false, on/off, 1/0); a
    repeated option or a variadic argument item by item, into a list."""

    def __init__(self, kind: type) -> None:
        self.kind = kind

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        from typer import BadParameter

        many = bool(param.multiple or param.nargs == -1)
        if value is None:
            return () if many else None
        if many and isinstance(value, str):
            raise BadParameter("Value must be an iterable.", ctx=ctx, param=param)
        if not many:
            return self._one(value, param, ctx)
        return [self._one(item, param, ctx) for item in value]

    def _one(self, value: Any, param: Any, ctx: Any) -> Any:
        from typer import BadParameter

        if isinstance(value, self.kind):
            return value
        try:
            if self.kind is bool:
                return _BOOLS[str(value).strip().lower()]
            if self.kind in (int, float):
                return _number(self.kind, str(value))
            return self.kind(value)
        except (TypeError, ValueError, OverflowError, KeyError):
            said = f"{shown_value(value)} is not a valid {_NAMES[self.kind]}."
            raise BadParameter(said, ctx=ctx, param=param) from None


def _number(kind: type, text: str) -> int | float:
    """``text`` as typer 0.29 reads a number: ASCII digits only (Python would take any script's), and a whole
    number may carry a fraction of zeros (``2.0``, not ``2.`` or ``1e3``)."""
    if not text.isascii():
        raise ValueError(text)
    if kind is float:
        return float(text)
    try:
        return int(text)
    except ValueError:
        whole = _ZERO_FRACTION.fullmatch(text)
        if whole is None:
            raise
        return int(whole.group(1))


def _plain_kind(annotation: Any) -> type | None:
    """The type a plain annotation converts its text to: ``str``, ``int``, ``float``, ``bool`` or ``Path``,
    alone, ``X | None`` or ``list[X]``; None for anything else."""
    if typing.get_origin(annotation) is list:
        (annotation,) = typing.get_args(annotation) or (None,)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        annotation = members[0] if len(members) == 1 else None
    return annotation if annotation in _NAMES else None


def _direct_value(param: Any) -> DirectValue | None:
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None or getattr(descriptor, "file_annotation", None) is not None:
        return None
    info = getattr(descriptor, "parameter_info", None)
    if info is None or any(getattr(info, key, kept) != kept for key, kept in _KEPT_DEFAULTS.items()):
        return None
    kind = _plain_kind(descriptor.annotation)
    return DirectValue(kind) if kind else None


def convert_directly(params: Iterable[Any]) -> None:
    """Give each plain parameter of a command built by a typer that converts through pydantic (its parameters
    hold an unset ``_runtime_param``) the direct conversion instead."""
    for param in params:
        if getattr(param, "_runtime_param", False) is not None:
            continue  # an older typer (click converts), or a conversion typer has already built
        direct = _direct_value(param)
        if direct is not None:
            param._runtime_param = direct


class DirectValues:
    """For a click command class: its parameters, those click adds as it parses (``--help``) included,
    convert directly where they can."""

    def get_params(self, ctx: Any) -> list[Any]:
        params: list[Any] = super().get_params(ctx)  # type: ignore[misc]
        convert_directly(params)
        return params
