"""``torchdoctor explain``: the cause, the fix and the check to run for an error message or a whole log.

The known messages are data: catalogues of :class:`Entry` objects registered in the entry-point group
``torchdoctor.explanations`` (:mod:`torchdoctor.explain.catalogue`), matched by :mod:`.matcher`. The CLI runs
the matching in the worker, each catalogue under a deadline, as it runs a plugin's check.
"""

from torchdoctor.explain.matcher import explain
from torchdoctor.explain.model import Analysis, Entry, Explanation
from torchdoctor.explain.text import format_lines

__all__ = ["Analysis", "Entry", "Explanation", "explain", "format_lines"]
