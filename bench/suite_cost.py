"""The test suite's CPU time, side by side with `python -c "import torch"` in the same hour.

    python bench/suite_cost.py [--runs N] [--imports K] [PYTEST_ARGS ...]

The machine the suite is measured on is shared: the same run costs a quarter more CPU seconds in a loaded
hour than in a quiet one, and `import torch` with it. Each run of the suite (`pytest -q`, or PYTEST_ARGS) is
framed by K imports of torch before and K after; the table gives its CPU seconds (user + system of pytest and
of every process it waited for, as `/usr/bin/time` counts them), the median import's, and their ratio: the
suite's cost in torch imports, which the hour changes less (65 to 68 over runs that took from 154 to 187 CPU
seconds while an import took from 2.3 to 2.9 s; 66 and 68 at 311 and 322 s, at 4.7 s; 73 and 65 at 294 and
278 s, at 4.1 and 4.3 s; 78 and 63 at 181 and 169 s, at 2.3 and 2.7 s).
Target: at most 180 s of CPU, which holds in every hour where torch imports in 180 s / ratio or less.
"""

from __future__ import annotations

import argparse
import re
import resource
import statistics
import subprocess
import sys
import time

TARGET_S = 180.0


def cpu_of(command: list[str]) -> tuple[float, str]:
    """CPU seconds of ``command`` and every process it waited for, and the last line it printed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    spent = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited with {done.returncode}:\n{done.stdout[-3000:]}")
    lines = done.stdout.strip().splitlines()
    return spent, lines[-1] if lines else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=1, help="runs of the suite (default 1)")
    parser.add_argument("--imports", type=int, default=5, help="imports of torch before and after each run")
    args, pytest_args = parser.parse_known_args()
    suite = [sys.executable, "-m", "pytest", "-q", *pytest_args]
    importing = [sys.executable, "-c", "import torch"]
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, Python {sys.version.split()[0]}: {' '.join(suite[1:])}")
    header = ("run", "suite CPU s", "import torch s", "ratio", "holds up to", "pytest")
    print("{:>3}  {:>11}  {:>14}  {:>5}  {:>11}  {}".format(*header))
    for run in range(1, args.runs + 1):
        imports = [cpu_of(importing)[0] for _ in range(args.imports)]
        spent, summary = cpu_of(suite)
        imports += [cpu_of(importing)[0] for _ in range(args.imports)]
        one_import = statistics.median(imports)
        ratio = spent / one_import
        passed = re.sub(r" in [\d.]+s.*$", "", summary)
        holds = f"{TARGET_S / ratio:.2f} s"
        print(f"{run:>3}  {spent:>11.1f}  {one_import:>14.2f}  {ratio:>5.0f}  {holds:>11}  {passed}")
    print(f"target: at most {TARGET_S:.0f} s of CPU; 'holds up to': the import time up to which it holds")


if __name__ == "__main__":
    main()
