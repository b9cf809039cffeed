"""`torchdoctor lint --fix` judged: every rewrite the default rules make on the lint corpus, compared with the
committed judgement of each one (bench/lint_fix_judged.json), and the share a reviewer accepts.

    python bench/lint_fix_review.py [--sources DIR ...] [--template FILE] [--show]

Each finding with a rewrite is applied alone to its file as the corpus holds it; the lines it changes are the
rewrite. A rewrite is keyed by record, rule and the sha256 of the lines before and after (and its count
where the same change comes again in the file), so a judgement stays with the rewrite it was given to and a
rewrite that changes is judged again. A verdict is ``accept``
(what a reviewer of that repository would merge), ``reject`` (correct but not the fix the code calls for,
such as a buffer where the tensor is trained) or ``harmful`` (it breaks the program or hides the bug).
Rewrites the list does not judge are printed as ``unjudged``; --template writes them as entries to judge.
Goal: at least 95 % accepted and none harmful.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from corpus_tools.lint_fixes import Rewrite, rewrites
from corpus_tools.lint_records import code_of, records

JUDGED = Path(__file__).resolve().parent / "lint_fix_judged.json"  # read by tests/lint/test_fix.py too
VERDICTS = ("accept", "reject", "harmful")


def collect(sources: list[Path]) -> tuple[list[Rewrite], int]:
    found: list[Rewrite] = []
    missing = 0
    for record in records():
        code = code_of(record, sources)
        if code is None:
            missing += 1
            continue
        found.extend(rewrites(code, record.data["path"], record.file.stem))
    return found, missing


def load_judged() -> dict[str, dict[str, Any]]:
    if not JUDGED.exists():
        return {}
    entries = json.loads(JUDGED.read_text("utf-8"))["rewrites"]
    return {entry["key"]: entry for entry in entries}


def report(found: list[Rewrite], judged: dict[str, dict[str, Any]], show: bool) -> Counter[str]:
    verdicts: Counter[str] = Counter()
    by_rule: dict[str, Counter[str]] = {}
    unjudged = []
    for rewrite in found:
        entry = judged.get(rewrite.key)
        verdict = entry["verdict"] if entry else "unjudged"
        verdicts[verdict] += 1
        by_rule.setdefault(rewrite.rule, Counter())[verdict] += 1
        if entry is None:
            unjudged.append(rewrite)
        elif show and verdict != "accept":
            why = entry.get("reason", "")
            print(f"  {verdict}: {rewrite.record} line {rewrite.line} {rewrite.rule}: {why}")
    judged_count = sum(verdicts[v] for v in VERDICTS)
    left = verdicts["unjudged"]
    print(f"--fix rewrites on the corpus: {len(found)}; judged {judged_count}, unjudged {left}")
    for rule, counts in sorted(by_rule.items()):
        print(f"  {rule}: " + ", ".join(f"{counts[v]} {v}" for v in (*VERDICTS, "unjudged") if counts[v]))
    if judged_count:
        share = verdicts["accept"] / judged_count
        print(f"accepted {verdicts['accept']} of {judged_count} ({share:.0%}), harmful {verdicts['harmful']}")
    gone = len(set(judged) - {rewrite.key for rewrite in found})
    if gone:
        print(f"{gone} judged rewrites are no longer made")
    print("goal: at least 95 % accepted, none harmful")
    for rewrite in unjudged:
        print(f"  unjudged: {rewrite.record} line {rewrite.line} {rewrite.rule}")
    return verdicts


def template(found: list[Rewrite], judged: dict[str, dict[str, Any]], path: Path) -> None:
    entries = [
        {
            "key": rewrite.key,
            "record": rewrite.record,
            "rule": rewrite.rule,
            "line": rewrite.line,
            "before": rewrite.before,
            "after": rewrite.after,
            "verdict": "",
            "reason": "",
        }
        for rewrite in found
        if rewrite.key not in judged
    ]
    path.write_text(json.dumps({"rewrites": entries}, indent=1, ensure_ascii=False) + "\n", "utf-8")
    print(f"{len(entries)} unjudged rewrites written to {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sources", action="append", type=Path, help="a folder of git copies of the corpus")
    parser.add_argument("--template", type=Path, help="write the unjudged rewrites here as entries to judge")
    parser.add_argument("--show", action="store_true", help="print every rewrite not accepted, with why")
    args = parser.parse_args()
    sources = args.sources or [
        Path(p) for p in os.environ.get("TORCHDOCTOR_CORPUS_SOURCES", "").split(os.pathsep) if p
    ]
    found, missing = collect(sources)
    if missing:
        print(f"{missing} records skipped: no git copy of their repository under --sources")
    judged = load_judged()
    report(found, judged, args.show)
    if args.template:
        template(found, judged, args.template)


if __name__ == "__main__":
    main()
