"""``torchdoctor lint``: a static linter for device mistakes in PyTorch training code.

Standard library only, and independent of the rest of torchdoctor: the CLI calls
:func:`torchdoctor.lint.command.run_lint`; :func:`lint_source` lints one file's text.
"""

from torchdoctor.lint.engine import ParseFailure, lint_source
from torchdoctor.lint.findings import Finding
from torchdoctor.lint.rules import DEFAULT_RULES, RULES

__all__ = ["DEFAULT_RULES", "RULES", "Finding", "ParseFailure", "lint_source"]
