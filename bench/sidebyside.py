"""Side-by-side measurement shared by the benchmarks: commands run in shuffled rounds, so machine noise hits
all of them alike, each in a wrapper that reports its wall time and the peak resident set of everything it
started (getrusage of the waited-for descendants)."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

_WRAPPER = """
import json, resource, subprocess, sys, time
started = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
elapsed = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"s": elapsed, "rss_kb": peak, "code": done.returncode, "stdout": done.stdout}))
"""


def torchdoctor_exe() -> str:
    return shutil.which("torchdoctor") or str(Path(sys.executable).parent / "torchdoctor")


def measure(command: list[str], expect_code: int | None = None) -> dict[str, Any]:
    """One run: ``s`` (wall seconds), ``rss_kb`` (peak of it and its descendants), ``code``, ``stdout``."""
    out = subprocess.run(
        [sys.executable, "-c", _WRAPPER, *command], capture_output=True, text=True, check=True
    )
    result: dict[str, Any] = json.loads(out.stdout)
    if expect_code is not None and result["code"] != expect_code:
        raise SystemExit(f"{' '.join(command)} exited with {result['code']}, not {expect_code}")
    return result


def rounds(
    commands: dict[str, list[str]], runs: int, expect_code: int | None = None
) -> dict[str, list[dict[str, Any]]]:
    """Every command once per round, in a new random order each round, after one warm-up run each."""
    for command in commands.values():
        measure(command, expect_code)
    samples: dict[str, list[dict[str, Any]]] = {name: [] for name in commands}
    for _ in range(runs):
        order = list(commands)
        random.shuffle(order)
        for name in order:
            samples[name].append(measure(commands[name], expect_code))
    return samples


def heading(runs: int) -> str:
    return f"{runs} rounds, {time.strftime('%Y-%m-%d %H:%M')}, Python {sys.version.split()[0]}"
