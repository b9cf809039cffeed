"""The click classes of torchdoctor's group and commands: how a command's usage line and argument list read
in ``--help``, and plain parameters converted directly (:mod:`torchdoctor.commands.values`).

typer wraps every positional argument in braces or brackets of its own (``{A}``, ``[[TEXT]]``) and prints its
Python type beside it (``<list[str]>``). A torchdoctor argument declares its metavar exactly as the usage line
should show it (``A``, ``[TEXT]``, ``[PATHS]...``), so that is what the usage line and the argument list show.
"""

from __future__ import annotations

from typing import Any

import typer.core

from torchdoctor.commands.values import DirectValues


def _argument_name(param: Any, ctx: Any) -> list[str]:
    if param.metavar:
        return [str(param.metavar)]
    return list(param.get_usage_pieces(ctx))


class DirectGroup(DirectValues, typer.core.TyperGroup):
    """The group of torchdoctor's commands: its own options (``--version``, ``--help``, the completion ones)
    convert directly too."""


class PlainCommand(DirectValues, typer.core.TyperCommand):
    """A typer command whose arguments appear in help under their own metavar, with no type beside it, and
    whose plain parameters convert their values directly."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                pieces += _argument_name(param, ctx)
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        arguments, options = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                arguments.append((" ".join(_argument_name(param, ctx)), record[1]))
            elif param.param_type_name == "option":
                options.append(record)
        if arguments:
            with formatter.section("Arguments"):
                _write_rows(formatter, arguments)
        if options:
            with formatter.section("Options"):
                _write_rows(formatter, options)


COLUMN_MAX = 30
SPACING = 2


def _write_rows(formatter: Any, rows: list[tuple[str, str]]) -> None:
    """click's definition list, but its help text broken at spaces only: a default such as
    ./torchdoctor-report.md or a flag such as --nproc-per-node is never split at its hyphen."""
    from torchdoctor.render.table import wrap

    indent = formatter.current_indent
    first = min(max((len(name) for name, _ in rows), default=0), COLUMN_MAX) + SPACING
    width = max(formatter.width - first - indent - SPACING, 10)
    for name, text in rows:
        lines = wrap(" ".join(text.split()), width) if text else []
        if not lines:
            formatter.write(f"{'':>{indent}}{name}\n")
            continue
        if len(name) <= first - SPACING:
            formatter.write(f"{'':>{indent}}{name}{' ' * (first - len(name))}{lines[0]}\n")
        else:
            formatter.write(f"{'':>{indent}}{name}\n{'':>{indent + first}}{lines[0]}\n")
        for line in lines[1:]:
            formatter.write(f"{'':>{indent + first}}{line}\n")


def use_plain_commands(app: typer.Typer) -> None:
    """Every command of ``app`` registered with typer's own command class becomes a PlainCommand."""
    for command in app.registered_commands:
        if command.cls in (None, typer.core.TyperCommand):
            command.cls = PlainCommand
