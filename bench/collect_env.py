"""torchdoctor against the collect_env corpus: how many dumps it reads, and which faults its checks name.

    python bench/collect_env.py [--repeat N] [--json]

Each record of tests/corpus/collect_env is a dump pasted into a public issue, with the faults the thread
found (``faults``, a fixed vocabulary). For each one: ``collect_env.find`` reads it, ``Dump.to_report`` turns
it into a saved report, and the checks that judge a dump's facts (torch.build, torch.stack) judge it as
``torchdoctor check --from`` does. A fault is *named* when the check it belongs to gives at least a warn
whose summary, or one of whose further findings, says it. Reported: dumps read, faults named / labelled per
fault, faults named that the thread did not find (each listed: they may be real), and the time per dump.

Both splits of the corpus are reported apart: ``dev`` (the rules are tuned on it) and the frozen ``test``
(repositories no rule was tuned on; tests/corpus_tools/splits.py).

Target: every dump read, at least 90 % of the labelled faults named.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from corpus_tools import splits

# fault -> (the check that names it, what its finding says)
FAULTS: dict[str, tuple[str, re.Pattern[str]]] = {
    "cpu_wheel_on_gpu_machine": ("torch.build", re.compile(r"^CPU-only torch \S+ on a machine with")),
    "driver_too_old": ("torch.build", re.compile(r"the NVIDIA driver is too old")),
    "arch_not_covered": ("torch.build", re.compile(r"this torch has no kernels for it")),
    "python_unsupported": ("torch.build", re.compile(r"does not support Python")),
    "companion_mismatch": (
        "torch.stack",
        re.compile(
            r"^(torchvision|torchaudio|torchtext|torchdata|xformers|flash-attn|deepspeed|apex|triton|"
            r"pytorch-triton\S*|nvidia-\S+|\d+ CUDA wheels) "
        ),
    ),
    "torch_installed_twice": ("torch.stack", re.compile(r"torch is installed twice")),
}
CHECK_IDS = ("torch.build", "torch.stack")


def findings_of(verdict: Any) -> list[tuple[str, str]]:
    """(status, summary) of every finding a verdict holds: its lead, and the "fail: ..." / "warn: ..." lines
    Finding.combine adds for the others."""
    found = [(verdict.status.value, verdict.summary)]
    for detail in verdict.details:
        if isinstance(detail, str):
            status, colon, summary = detail.partition(": ")
            if colon and status in ("fail", "warn"):
                found.append((status, summary))
    return found


def faults_named(verdicts: Mapping[str, Any]) -> set[str]:
    """The corpus faults the verdicts (check id -> verdict) name at warn or worse."""
    named = set()
    for fault, (check_id, pattern) in FAULTS.items():
        verdict = verdicts.get(check_id)
        if verdict is None:
            continue
        if any(status in ("warn", "fail") and pattern.search(text) for status, text in findings_of(verdict)):
            named.add(fault)
    return named


@functools.cache
def _check(check_id: str) -> Any:
    """The installed check (through the entry points, as the CLI finds it)."""
    from torchdoctor.checking import registry

    check = registry.load(registry.find_entry(check_id))
    assert not isinstance(check, registry.LoadFailure), check
    return check


def judge(report: Mapping[str, Any]) -> dict[str, Any]:
    """torch.build and torch.stack on the report's facts, judged in this process."""
    facts = report["facts"]
    verdicts = {}
    for check_id in CHECK_IDS:
        check = _check(check_id)
        verdicts[check_id] = check.judge({p.name: facts[p.name] for p in check.probes}, {})
    return verdicts


def records(split: str | None = None) -> list[tuple[str, dict[str, Any]]]:
    """The dumps of one split (``dev``, ``test``) or of both."""
    return [(path.stem, json.loads(path.read_text())) for path in splits.files("collect_env", split)]


def run(repeat: int, split: str | None = None) -> dict[str, Any]:
    from torchdoctor.inputs import collect_env

    rows = []
    for name, record in records(split):
        read_times, judge_times = [], []
        dump, verdicts = None, {}
        for _ in range(repeat):
            started = time.perf_counter()
            dump = collect_env.find(record["text"])
            report = dump.to_report(name) if dump is not None else None
            read_times.append(time.perf_counter() - started)
            if report is not None:
                started = time.perf_counter()
                verdicts = judge(report)
                judge_times.append(time.perf_counter() - started)
        named = faults_named(verdicts)
        labelled = set(record["faults"])
        rows.append(
            {
                "record": name,
                "read": dump is not None,
                "complete": None if dump is None else dump.complete,
                "complete_label": record["complete"],
                "labelled": sorted(labelled),
                "named": sorted(named & labelled),
                "missed": sorted(labelled - named),
                "wrong": sorted(named - labelled),
                "read_ms": 1000 * statistics.median(read_times),
                "judge_ms": 1000 * statistics.median(judge_times) if judge_times else None,
                "summaries": {k: v.summary for k, v in verdicts.items()},
            }
        )
    return summarize(rows)


def summarize(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    per_fault = {}
    for fault in FAULTS:
        labelled = sum(fault in r["labelled"] for r in rows)
        named = sum(fault in r["named"] for r in rows)
        per_fault[fault] = {"named": named, "labelled": labelled}
    labelled_total = sum(len(r["labelled"]) for r in rows)
    named_total = sum(len(r["named"]) for r in rows)
    return {
        "dumps": len(rows),
        "read": sum(r["read"] for r in rows),
        "faults_named": named_total,
        "faults_labelled": labelled_total,
        "per_fault": per_fault,
        "missed": [(r["record"], f) for r in rows for f in r["missed"]],
        "wrong": [(r["record"], f, r["summaries"].get(FAULTS[f][0], "")) for r in rows for f in r["wrong"]],
        "complete_agrees": sum(r["complete"] == r["complete_label"] for r in rows if r["read"]),
        "read_ms_median": statistics.median(r["read_ms"] for r in rows),
        "read_ms_max": max(r["read_ms"] for r in rows),
        "judge_ms_median": statistics.median(r["judge_ms"] for r in rows if r["judge_ms"] is not None),
        "rows": list(rows),
    }


def print_table(result: Mapping[str, Any]) -> None:
    print(f"dumps read: {result['read']} / {result['dumps']}")
    share = result["faults_named"] / max(result["faults_labelled"], 1)
    print(f"faults named: {result['faults_named']} / {result['faults_labelled']} ({share:.0%})")
    for fault, counts in result["per_fault"].items():
        print(f"  {fault:26s} {counts['named']} / {counts['labelled']}")
    print(f"missed: {len(result['missed'])}")
    for record, fault in result["missed"]:
        print(f"  {record}: {fault}")
    print(f"wrong faults (named, not found by the thread; may be real): {len(result['wrong'])}")
    for record, fault, summary in result["wrong"]:
        print(f"  {record}: {fault}: {summary}")
    print(f"complete flag agrees with the corpus label: {result['complete_agrees']} / {result['read']}")
    print(
        f"time per dump: find + to_report median {result['read_ms_median']:.2f} ms, "
        f"max {result['read_ms_max']:.2f} ms; judging (2 checks) median {result['judge_ms_median']:.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per dump; the median time is reported")
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    args = parser.parse_args()
    results = {split: run(max(1, args.repeat), split) for split in splits.SPLITS}
    if args.json:
        print(json.dumps(results, indent=1, default=str))
        return
    for split, result in results.items():
        print(f"== {split} split ({'rules are tuned on it' if split == 'dev' else 'frozen, held out'})")
        print_table(result)
        print()


if __name__ == "__main__":
    main()
