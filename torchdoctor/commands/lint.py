"""``torchdoctor lint [PATHS...]``: the device mistakes of training code, found before it runs."""

from __future__ import annotations

from typing import Annotated

import typer


def _complete_formats(incomplete: str) -> list[str]:
    from torchdoctor.lint.output import FORMATS

    return [name for name in FORMATS if name.startswith(incomplete)]


def _complete_rules(incomplete: str) -> list[str]:
    from torchdoctor.lint.rules import RULES_BY_ID

    return [rule for rule in RULES_BY_ID if rule.startswith(incomplete.upper())]


def lint(
    paths: Annotated[
        list[str] | None,
        typer.Argument(metavar="[PATHS]...", help="Files or folders to lint (default: .); - reads stdin."),
    ] = None,
    select: Annotated[
        list[str] | None,
        typer.Option(
            metavar="RULES",
            help="Rule ids or prefixes to report (TDL001, TDL1, ALL); replaces the configured ones.",
            autocompletion=_complete_rules,
        ),
    ] = None,
    ignore: Annotated[
        list[str] | None,
        typer.Option(
            metavar="RULES", help="Rule ids or prefixes not to report.", autocompletion=_complete_rules
        ),
    ] = None,
    output_format: Annotated[
        str,
        typer.Option(
            "--format",
            metavar="text|json|github|sarif",
            help="Output format.",
            autocompletion=_complete_formats,
        ),
    ] = "text",
    json_output: Annotated[bool, typer.Option("--json", help="The same as --format json.")] = False,
    show_fixes: Annotated[
        bool, typer.Option("--show-fixes", help="Print each finding's fix and the explain entry it prevents.")
    ] = False,
    fix: Annotated[
        bool,
        typer.Option(
            "--fix", help="Apply the safe rewrites (TDL001, TDL002, TDL004) to the files; print what is left."
        ),
    ] = False,
    diff: Annotated[
        bool, typer.Option("--diff", help="Print the safe rewrites as a diff; write nothing.")
    ] = False,
) -> None:
    """Find device mistakes in training code without running it.

    Tensors moved and thrown away, tensors Module.to() does not move, layers built in forward(), torch.load
    without map_location, every DDP rank on cuda:0, non_blocking copies from pageable memory, CUDA in
    DataLoader workers. Exit code 0: clean; 1: findings (with --diff too); 2: a path or file
    that cannot be read, parsed or fixed, or a bad option."""
    from torchdoctor.lint.command import run_lint

    code = run_lint(
        paths or [],
        select=select,
        ignore=ignore,
        output_format="json" if json_output else output_format,
        show_fixes=show_fixes,
        fix=fix,
        diff=diff,
    )
    raise typer.Exit(code)
