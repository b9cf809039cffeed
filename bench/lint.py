"""`torchdoctor lint`: precision and recall of the default rules on the labelled corpus, for the dev and the
frozen test split side by side; TorchFix on the same corpus; and lint's speed against flake8 on the same large
real tree.

    python bench/lint.py [--sources DIR ...] [--misses] [--batch NAME] [--with-repository] [--runs N]
                         [--tree PATH] [--skip-speed] [--torchfix-runs N] [--skip-torchfix]

Quality: every tests/corpus/lint/{dev,test}/*.json record (real code, every instance of TDL001-TDL007 labelled
by hand) is linted with the default rules; a finding is a true positive when its (rule, line) is labelled.
Records that name their file by git blob need a git copy of their repository under a --sources folder (as
``owner+name/repo``, ``owner/name`` or ``owner+name``; TORCHDOCTOR_CORPUS_SOURCES, os.pathsep-separated, is
the default). --misses lists the dev split's disagreements; the test split is measured, never tuned on.
Targets on test: precision >= 95 %, recall >= 85 %.

Frozen batch: the newest batch of tests/corpus/lint/batches.json (or the one --batch names), records labelled
before lint ran on them, is scored apart from its own records: per rule, for each split and for both; with
--misses, its dev disagreements only.

--with-repository lints each record's file together with the rest of its repository at the record's commit,
as `torchdoctor lint .` in a checkout does (facts of other files count: the DataLoader a training loop gets,
the helper that sets the device); without it each file is linted alone, as a labeller read it first.

TorchFix (pip install torchfix): flake8 --select TOR and torchdoctor lint over the same corpus files, what
each finds at the labelled lines and how long each takes (bench/lint_torchfix.py).

Speed: lint and flake8 (its default checks E, F, W, C90, named explicitly so an installed plugin such as
TorchFix does not join in) as subprocesses over the installed torch package's Python files (by default), in
shuffled rounds after a warm-up run each (bench/sidebyside.py). Target: at least 3x faster than flake8.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

import lint_scores
import lint_torchfix
import sidebyside

FLAKE8 = "flake8 (E,F,W,C90)"


def lint_command(tree: str) -> tuple[str, list[str]]:
    exe = sidebyside.torchdoctor_exe()
    probe = subprocess.run([exe, "lint", "--help"], capture_output=True, check=False)
    if probe.returncode == 0:
        return "torchdoctor lint", [exe, "lint", tree]
    return "python -m torchdoctor.lint", [sys.executable, "-m", "torchdoctor.lint", tree]


def speed(tree: str, runs: int) -> None:
    files = list(Path(tree).rglob("*.py"))
    lines = sum(path.read_bytes().count(b"\n") for path in files)
    name, command = lint_command(tree)
    commands = {name: command, FLAKE8: [sys.executable, "-m", "flake8", "--select", "E,F,W,C90", tree]}
    samples = sidebyside.rounds(commands, runs)
    print(f"tree: {tree} ({len(files)} .py files, {lines} lines)")
    print(sidebyside.heading(runs))
    base = statistics.median(s["s"] for s in samples[FLAKE8])
    print(f"{'command':<28} {'median s':>9} {'min s':>7} {'peak MiB':>9} {'reports':>8} {'vs flake8':>10}")
    for label, results in samples.items():
        median = statistics.median(s["s"] for s in results)
        fastest = min(s["s"] for s in results)
        rss = max(s["rss_kb"] for s in results)
        reports = len(results[-1]["stdout"].splitlines())
        print(
            f"{label:<28} {median:9.2f} {fastest:7.2f} {rss / 1024:9.1f} {reports:>8} {base / median:9.1f}x"
        )
    lint_median = statistics.median(s["s"] for s in samples[name])
    print(f"speed-up: {base / lint_median:.1f}x faster than flake8 (target >= 3x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--sources", action="append", type=Path, help="a folder of git copies of the corpus's repositories"
    )
    parser.add_argument("--misses", action="store_true", help="list the dev split's disagreements")
    parser.add_argument("--batch", help="the frozen batch to score apart (default: the newest)")
    parser.add_argument(
        "--with-repository",
        action="store_true",
        help="lint each file together with its repository at the record's commit, as `lint .` in a checkout",
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tree", help="the tree to lint (default: the installed torch package)")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--torchfix-runs", type=int, default=1)
    parser.add_argument("--skip-torchfix", action="store_true")
    args = parser.parse_args()
    sources = args.sources or [
        Path(p) for p in os.environ.get("TORCHDOCTOR_CORPUS_SOURCES", "").split(os.pathsep) if p
    ]
    lint_scores.report(sources, args.misses, args.with_repository)
    print()
    batch = lint_scores.chosen_batch(args.batch)
    lint_scores.batch_report(sources, args.misses, batch, args.with_repository)
    print()
    lint_scores.fix_report(sources)
    if not args.skip_torchfix:
        print()
        lint_torchfix.compare(sources, args.torchfix_runs)
    if args.skip_speed:
        return
    tree = (
        args.tree
        or subprocess.run(
            [sys.executable, "-c", "import torch, os; print(os.path.dirname(torch.__file__))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    print()
    speed(tree, args.runs)


if __name__ == "__main__":
    main()
