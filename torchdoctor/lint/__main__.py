"""``python -m torchdoctor.lint PATHS...``: the linter without the torchdoctor CLI around it."""

from __future__ import annotations

import argparse
import sys

from torchdoctor.lint.command import run_lint
from torchdoctor.lint.output import FORMATS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m torchdoctor.lint", description="Static linter for device mistakes in PyTorch code."
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="files or folders; - reads standard input")
    parser.add_argument("--select", action="append", help="rule ids or prefixes to report (replaces config)")
    parser.add_argument("--ignore", action="append", help="rule ids or prefixes not to report")
    parser.add_argument("--format", dest="output_format", choices=FORMATS, default="text")
    parser.add_argument("--json", dest="output_format", action="store_const", const="json")
    parser.add_argument("--show-fixes", action="store_true", help="print the fix and explain entry")
    parser.add_argument("--fix", action="store_true", help="apply the safe rewrites, print what is left")
    parser.add_argument(
        "--diff", action="store_true", help="print the safe rewrites as a diff, write nothing"
    )
    args = parser.parse_args(argv)
    return run_lint(
        args.paths,
        select=args.select,
        ignore=args.ignore,
        output_format=args.output_format,
        show_fixes=args.show_fixes,
        fix=args.fix,
        diff=args.diff,
    )


if __name__ == "__main__":
    sys.exit(main())
