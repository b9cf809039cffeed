"""Checks that misbehave on purpose, for the runner's tests (imported by the worker through PYTHONPATH)."""

from __future__ import annotations

import os
import time
from typing import Any

from torchdoctor.model import Finding, Status
from torchdoctor.plugin import Check, Option, Probe

ANSWER = Probe("answer", "fake_probes:answer")


def fine(facts: Any, options: Any) -> Finding:
    return Finding(Status.PASS, "fine")


def raises(facts: Any, options: Any) -> Finding:
    raise KeyError("missing")


def not_a_finding(facts: Any, options: Any) -> Any:
    return "pass"


def loops(facts: Any, options: Any) -> Finding:
    while True:
        time.sleep(0.01)


def aborts(facts: Any, options: Any) -> Finding:
    os.abort()


def echo_options(facts: Any, options: Any) -> Finding:
    return Finding(Status.PASS, f"options {sorted(options.items())}", facts={"options": dict(options)})


OK = Check("a.ok", "a.ok", (ANSWER,), fine)
HANG = Check("a.hang", "a.hang", (Probe("hang", "fake_probes:hang"),), fine)
BAD_JUDGE = Check("a.badjudge", "a.badjudge", (ANSWER,), raises)
NOT_FINDING = Check("a.notfinding", "a.notfinding", (ANSWER,), not_a_finding)
LOOPS = Check("a.loops", "a.loops", (ANSWER,), loops)
ABORTS = Check("a.aborts", "a.aborts", (ANSWER,), aborts)
SECOND = Check("a.second", "a.second", (Probe("answer", "fake_probes:chatty"),), fine)
WITH_OPTION = Check(
    "a.option",
    "a.option",
    (ANSWER,),
    echo_options,
    options=(Option("level", "--level", "a.option: how much.", "int", default=1, minimum=0, maximum=9),),
)
CLASHING = Check(
    "a.clash",
    "a.clash",
    (ANSWER,),
    fine,
    options=(Option("timeout_s", "--timeout", "a.clash: takes the command's own flag.", "float"),),
)
WRONG_ID = Check("a.other", "a.other", (ANSWER,), fine)
NOT_A_CHECK = "not a check"


def hogs_memory(facts: Any, options: Any) -> Finding:
    # bytes(n) is calloc'd: each GiB counts against the address-space cap without being written to.
    hoard = [bytes(2**30) for _ in range(64)]
    return Finding(Status.PASS, f"held {len(hoard)} GiB")


HOGS = Check("a.hogs", "a.hogs", (ANSWER,), hogs_memory)
