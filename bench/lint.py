"""`torchdoctor lint`: precision and recall of the default rules over the labelled corpus, and its speed
against flake8 (default settings) on the same large real tree, measured side by side.

    python bench/lint.py [--runs N] [--tree PATH] [--skip-speed]

Quality: every tests/corpus/lint/*.json record (real code, every instance of TDL001-TDL007 labelled by hand)
is linted with the default rules; a finding is a true positive when its (rule, line) is labelled.
Targets: precision >= 95 %, recall >= 80 %, per rule and overall.

Speed: both linters as subprocesses over the installed torch package's Python files (by default), in
shuffled rounds after a warm-up run each (bench/sidebyside.py); the table shows medians and the ratio.
`torchdoctor lint` is used when the CLI has the command, `python -m torchdoctor.lint` otherwise.
Target: at least 3x faster than flake8.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from collections import Counter
from pathlib import Path

import sidebyside

from torchdoctor.lint.engine import lint_tree, parse
from torchdoctor.lint.rules import DEFAULT_RULES

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus" / "lint"


def corpus_scores() -> None:
    records = sorted(CORPUS.glob("*.json"))
    true_pos: Counter[str] = Counter()
    false_pos: Counter[str] = Counter()
    false_neg: Counter[str] = Counter()
    misses: list[str] = []
    for path in records:
        record = json.loads(path.read_text(encoding="utf-8"))
        labelled = Counter((item["rule"], item["line"]) for item in record["findings"])
        tree = parse(record["code"], record["path"])
        found = Counter((f.rule, f.line) for f in lint_tree(tree, record["path"], DEFAULT_RULES))
        for rule, line in found | labelled:
            hits = min(found[(rule, line)], labelled[(rule, line)])
            true_pos[rule] += hits
            false_pos[rule] += found[(rule, line)] - hits
            false_neg[rule] += labelled[(rule, line)] - hits
            if found[(rule, line)] != labelled[(rule, line)]:
                kind = "false positive" if found[(rule, line)] > hits else "missed"
                misses.append(f"  {kind}: {path.stem} line {line} {rule}")
    kinds = Counter(json.loads(p.read_text(encoding="utf-8"))["kind"] for p in records)
    print(f"corpus: {len(records)} files ({kinds['positive']} positive, {kinds['clean']} clean), {CORPUS}")
    header = ("rule", "labelled", "found", "TP", "FP", "FN", "precision", "recall")
    print("{:<8} {:>8} {:>6} {:>4} {:>4} {:>4} {:>10} {:>8}".format(*header))
    rows = [*sorted(DEFAULT_RULES), "overall"]
    for rule in rows:
        if rule == "overall":
            tp, fp, fn = (sum(counter.values()) for counter in (true_pos, false_pos, false_neg))
        else:
            tp, fp, fn = true_pos[rule], false_pos[rule], false_neg[rule]
        precision = f"{100 * tp / (tp + fp):.1f} %" if tp + fp else "-"
        recall = f"{100 * tp / (tp + fn):.1f} %" if tp + fn else "-"
        print(f"{rule:<8} {tp + fn:>8} {tp + fp:>6} {tp:>4} {fp:>4} {fn:>4} {precision:>10} {recall:>8}")
    print("targets: precision >= 95 %, recall >= 80 %")
    for line in misses:
        print(line)


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
    commands = {name: command, "flake8 (default settings)": [sys.executable, "-m", "flake8", tree]}
    samples = sidebyside.rounds(commands, runs)
    print(f"tree: {tree} ({len(files)} .py files, {lines} lines)")
    print(sidebyside.heading(runs))
    base = statistics.median(s["s"] for s in samples["flake8 (default settings)"])
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
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tree", help="the tree to lint (default: the installed torch package)")
    parser.add_argument("--skip-speed", action="store_true")
    args = parser.parse_args()
    corpus_scores()
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
