"""docs/reference/cli.md, written from the typer app of ``torchdoctor.cli``: every command with its usage, its
help text and each argument and option with its help and default, as ``--help`` has them.

The app is built with the options of torchdoctor's own checks (a plugin installed here adds none), so the
page is the same in every environment; the test suite fails while the committed page is not what this
writes today.

    python tools/cli_reference.py --write    # rewrite docs/reference/cli.md
    python tools/cli_reference.py --check    # exit 1 when the committed page is stale
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "reference" / "cli.md"
DISTRIBUTION = "torchdoctor"
"""The distribution whose checks' options the page shows."""

HEADER = """\
# The command line

Every command of `torchdoctor` with its arguments and options, as `torchdoctor COMMAND --help` prints
them. The options of the built-in checks (`--min-free`, `--memory-snapshot`, `--quick`, `--nproc`,
`--backend`) join the commands that run checks, and a plugin's options join them the same way:
`torchdoctor check --help` lists what the installed checks take. [Commands at a
glance](../commands/index.md) has them on one page with the exit codes.

<!-- Generated from the typer app by python tools/cli_reference.py --write: edit the help texts. -->
"""

_MARKDOWN = re.compile(r"([\\`*_\[\]<>|])")


def _escaped(text: str) -> str:
    """Help text as Markdown shows it literally."""
    return _MARKDOWN.sub(lambda m: "&lt;" if m[1] == "<" else "&gt;" if m[1] == ">" else "\\" + m[1], text)


def _paragraphs(text: str) -> list[str]:
    return [" ".join(p.split()) for p in inspect.cleandoc(text).split("\n\n") if p.strip()]


def app() -> Any:
    """The click group typer builds for ``torchdoctor``, with the options of torchdoctor's own checks."""
    import typer.main

    from torchdoctor.checking import options
    from torchdoctor.cli import build_app, prepare

    run = prepare("list")  # the checks described, no probe worker started
    if run.workers is not None:
        run.workers.close()
    declared, checks = options.merge([c for c in run.checks if c.entry.distribution == DISTRIBUTION])
    return typer.main.get_command(build_app(declared, checks))


def _argument(param: Any, context: Any) -> str:
    return str(param.metavar) if param.metavar else " ".join(param.get_usage_pieces(context))


def _section(command: Any, context: Any, title: str) -> list[str]:
    usage = " ".join([context.command_path, *command.collect_usage_pieces(context)])
    lines = [f"## `{title}`", "", "```text", usage, "```", ""]
    lines += [f"{_escaped(p)}\n" for p in _paragraphs(command.help or "")]
    # as --help lists them: an argument under its metavar, an option as click names it, with its default
    records = [(p, p.get_help_record(context)) for p in command.get_params(context)]
    arguments = [(_argument(p, context), r[1]) for p, r in records if r and p.param_type_name == "argument"]
    option_rows = [r for p, r in records if r and p.param_type_name == "option"]
    for heading, rows in (("Arguments", arguments), ("Options", option_rows)):
        if rows:
            lines += [f"**{heading}**", ""]
            lines += [
                f"- `{name}`: {_escaped(' '.join(text.split()))}" if text else f"- `{name}`"
                for name, text in rows
            ]
            lines.append("")
    if command.epilog:
        lines += [f"{_escaped(p)}\n" for p in _paragraphs(command.epilog)]
    return lines


def render() -> str:
    """The page, as the app is today."""
    group = app()
    # the Context class of the click typer runs on: its own copy from typer 0.2x on, click may be absent
    context = group.context_class
    lines = [HEADER]
    with context(group, info_name="torchdoctor", **group.context_settings) as root:
        lines += _section(group, root, "torchdoctor")
        lines += ["**Commands**", ""]
        lines += [
            f"- [`{name}`](#torchdoctor-{name}): {_escaped(command.get_short_help_str(limit=1000))}"
            for name, command in group.commands.items()
        ]
        lines.append("")
        for name, command in group.commands.items():
            with context(command, info_name=name, parent=root, **command.context_settings) as inner:
                lines += _section(command, inner, f"torchdoctor {name}")
    return "\n".join(lines).rstrip() + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/cli_reference.py", description=__doc__)
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true")
    action.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    text = render()
    if args.write:
        PAGE.write_text(text, encoding="utf-8")
        sys.stdout.write(f"wrote {PAGE.relative_to(REPO)}\n")
        return 0
    if not PAGE.is_file() or PAGE.read_text(encoding="utf-8") != text:
        sys.stderr.write(f"{PAGE.relative_to(REPO)} is stale: run python tools/cli_reference.py --write\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
