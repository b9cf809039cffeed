"""Documented exit codes of every torchdoctor command."""

from __future__ import annotations

from collections.abc import Iterable

from torchdoctor.model import Status, Verdict

OK = 0
"""Nothing at or above the --fail-on threshold."""
THRESHOLD = 1
"""A verdict at or above the --fail-on threshold (or, for diff, differences found)."""
USAGE = 2
"""A usage error or bad input: unknown option or check id, unreadable or invalid file."""
ERRORED = 3
"""A check errored or timed out, and no verdict reached the threshold."""

FAIL_ON = {"warn": Status.WARN, "fail": Status.FAIL}


def for_verdicts(verdicts: Iterable[Verdict], fail_on: Status = Status.FAIL) -> int:
    statuses = {v.status for v in verdicts}
    threshold = {Status.WARN, Status.FAIL} if fail_on is Status.WARN else {Status.FAIL}
    if statuses & threshold:
        return THRESHOLD
    if Status.ERROR in statuses:
        return ERRORED
    return OK
