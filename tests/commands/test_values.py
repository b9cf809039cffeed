"""The command line's plain parameters convert directly to what typer's own conversion gives, and a typer that
would convert them through pydantic never gets to import it (tests/test_cli.py: the CLI process of a whole
run imports no pydantic)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any

import pytest
import typer
import typer.main

from torchdoctor.cli import build_app
from torchdoctor.commands import values
from torchdoctor.plugin import Option

# One declared option of each type a check may declare (torchdoctor.plugin.Option), beside the commands' own.
DECLARED = [
    Option("count", "--count", "a whole number", "int"),
    Option("share", "--share", "a number", "float", default=10.0),
    Option("quick", "--quick", "a flag", "flag"),
    Option("mode", "--mode", "a choice", "choice", choices=("a", "b")),
    Option("snapshot", "--snapshot", "a file", "file"),
]
TEXTS: dict[type, list[Any]] = {
    str: ["x", "", "ü", "--a", " spaced "],
    int: ["3", "-1", " 7 ", "+4", "2.0", "-0.0", " 3.00 ", "1_000", "10" * 12,
          "abc", "1.5", "1e3", "2.", "0x10", "٣", "nan", "1e400", ""],
    float: ["1.5", "1e10", "nan", "inf", "-0", " 2 ", "1_000", "1e400", "Infinity", "+1.", ".5", "5e-324",
            "abc", "٣.5", "1,5", "0x1p3", ""],
    bool: [True, False, "yes", "no", "On", " 1 ", "", "maybe"],
    Path: ["a/b", "", "/", "~", "-"],
}  # fmt: skip


def parameters() -> list[tuple[str, Any, Any]]:
    """Every parameter of every command and of the group (those click adds while parsing, --help, included),
    with the click command it belongs to."""
    group = typer.main.get_command(build_app(DECLARED))
    found = []
    for name, command in [("torchdoctor", group), *group.commands.items()]:  # type: ignore[attr-defined]
        found += [(name, command, param) for param in command.get_params(typer.Context(command))]
    return found


def converted(runtime: Any, value: Any, param: Any, ctx: Any) -> tuple[str, Any]:
    try:
        return "value", runtime.coerce(value, param=param, ctx=ctx)
    except typer.BadParameter:
        return "refused", None


def same(theirs: tuple[str, Any], ours: tuple[str, Any]) -> bool:
    if theirs[0] != ours[0]:
        return False
    a, b = theirs[1], ours[1]
    both_nan = isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)
    return bool(both_nan or (a == b and type(a) is type(b)))


def test_every_parameter_is_plain_and_converts_as_typers_own_conversion_would() -> None:
    coercion = pytest.importorskip("typer._coercion", reason="this typer leaves conversion to click")
    differences, checked = [], set()
    for name, command, param in parameters():
        kind = values._plain_kind(param.type_descriptor.annotation)
        assert kind is not None, f"{name} {param.name}: {param.type_descriptor.annotation}"
        assert isinstance(param.get_runtime_param(), values.DirectValue), (name, param.name)
        many = bool(param.multiple or param.nargs == -1)
        ctx = typer.Context(command)
        typers = coercion.build_runtime_param(param.type_descriptor)
        samples = [tuple(TEXTS[kind][:2]), (), None] if many else [*TEXTS[kind], None]
        for value in samples:
            theirs = converted(typers, value, param, ctx)
            ours = converted(param.get_runtime_param(), value, param, ctx)
            if not same(theirs, ours):
                differences.append(f"{name} {param.name} {value!r}: typer {theirs}, torchdoctor {ours}")
        checked.add((kind, many))
    assert not differences, differences
    assert checked >= {(str, False), (str, True), (int, False), (float, False), (bool, False), (Path, False)}


def test_a_refused_number_is_one_line_naming_the_option(capsys: pytest.CaptureFixture[str]) -> None:
    from torchdoctor import cli
    from torchdoctor.checking import exitcodes

    for argv, said in (
        (["check", "--timeout", "abc"], "Invalid value for '--timeout': "),
        (["check", "--nproc", "1.5"], "Invalid value for '--nproc': "),
    ):
        with pytest.raises(SystemExit) as stopped:
            cli.main(argv)
        err = capsys.readouterr().err
        assert stopped.value.code == exitcodes.USAGE
        assert err.startswith(f"torchdoctor: error: {said}") and err.count("\n") == 1, err


def test_a_long_refused_value_is_shown_by_its_start(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("typer._coercion", reason="this typer leaves conversion, and its message, to click")
    from torchdoctor import cli

    with pytest.raises(SystemExit):
        cli.main(["check", "--nproc", "9" * 100_000])
    err = capsys.readouterr().err
    assert f"'{'9' * 40}' is not a valid whole number." in err and len(err) < 200, err


def test_a_parameter_typer_would_convert_its_own_way_is_left_to_typer() -> None:
    app = typer.Typer()

    @app.command()
    def main(
        level: Annotated[int, typer.Option(min=0, max=3)] = 1,
        target: Annotated[Path, typer.Option(exists=True)] = Path("."),
        words: Annotated[tuple[str, str], typer.Option()] = ("a", "b"),
    ) -> None:
        del level, target, words

    command = typer.main.get_command(app)
    params = [p for p in command.params if p.name in ("level", "target", "words")]
    values.convert_directly(params)
    assert len(params) == 3
    assert not any(isinstance(getattr(p, "_runtime_param", None), values.DirectValue) for p in params)
