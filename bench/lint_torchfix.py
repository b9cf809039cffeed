"""TorchFix (the PyTorch team's linter, a flake8 plugin) next to `torchdoctor lint` on the labelled corpus:
what each finds and how long each takes on the same files.

TorchFix has no device rules; its TOR102 (`torch.load` without `weights_only`) fires at the same calls as
TDL004 (`torch.load` without `map_location`) when neither keyword is given. The corpus files are written to a
scratch folder (one .py per record, under dev/ and test/) and both tools run over it as subprocesses, one
after the other, in alternating order; the table gives wall time and CPU time (user + system of the tool and
its children), which a busy machine distorts less.
"""

from __future__ import annotations

import importlib.util
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import sidebyside
from lint_scores import Record, code_of, records

FLAKE8_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):\d+: (?P<code>[A-Z]+\d+) ")


def available() -> bool:
    return importlib.util.find_spec("torchfix") is not None and importlib.util.find_spec("flake8") is not None


def materialise(corpus: list[Record], sources: list[Path], into: Path) -> dict[Path, Record]:
    """Write each record's code to ``into/<split>-split/<stem>.py`` (a folder named ``test`` would make every
    file a test file to lint); records without code are left out."""
    written: dict[Path, Record] = {}
    for record in corpus:
        code = code_of(record, sources)
        if code is None:
            continue
        path = into / f"{record.split}-split" / f"{record.file.stem}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code, encoding="utf-8")
        written[path.resolve()] = record
    return written


def timed(command: list[str]) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds of the command and its children, stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def parse(output: str) -> Counter[tuple[Path, int, str]]:
    found: Counter[tuple[Path, int, str]] = Counter()
    for line in output.splitlines():
        match = FLAKE8_LINE.match(line)
        if match:
            found[(Path(match["path"]).resolve(), int(match["line"]), match["code"])] += 1
    return found


def compare(sources: list[Path], runs: int) -> None:
    if not available():
        print("TorchFix: not installed (pip install torchfix), comparison skipped")
        return
    with tempfile.TemporaryDirectory(prefix="lint-corpus-") as scratch:
        files = materialise(records(), sources, Path(scratch))
        commands = {
            "flake8 + TorchFix (--select TOR)": [sys.executable, "-m", "flake8", "--select", "TOR", scratch],
            "torchdoctor lint": [sidebyside.torchdoctor_exe(), "lint", "--format", "text", scratch],
        }
        samples: dict[str, list[tuple[float, float, str]]] = {name: [] for name in commands}
        for index in range(runs):
            order = list(commands) if index % 2 == 0 else list(reversed(commands))
            for name in order:
                samples[name].append(timed(commands[name]))
        torchfix = parse(samples["flake8 + TorchFix (--select TOR)"][-1][2])
        lint = parse(samples["torchdoctor lint"][-1][2])
    print(f"TorchFix on the same {len(files)} corpus files ({runs} run(s) each, alternating order)")
    print(f"{'command':<34} {'best wall s':>11} {'best CPU s':>10} {'findings':>9}")
    for name, results in samples.items():
        count = len(parse(results[-1][2]))
        print(f"{name:<34} {min(r[0] for r in results):11.2f} {min(r[1] for r in results):10.2f} {count:>9}")
    wall = {name: min(r[0] for r in results) for name, results in samples.items()}
    cpu = {name: min(r[1] for r in results) for name, results in samples.items()}
    names = list(commands)
    print(
        f"torchdoctor lint: {wall[names[0]] / wall[names[1]]:.1f}x less wall time, "
        f"{cpu[names[0]] / max(cpu[names[1]], 1e-9):.1f}x less CPU time than flake8 + TorchFix"
    )
    print(
        "TorchFix findings by code: " + ", ".join(f"{code} {n}" for code, n in _codes(torchfix).most_common())
    )
    _overlap(files, torchfix, lint)


def _codes(found: Counter[tuple[Path, int, str]]) -> Counter[str]:
    codes: Counter[str] = Counter()
    for (_, _, code), n in found.items():
        codes[code] += n
    return codes


def _overlap(
    files: dict[Path, Record],
    torchfix: Counter[tuple[Path, int, str]],
    lint: Counter[tuple[Path, int, str]],
) -> None:
    """Labelled instances per rule and split, and how many of them each tool reports at their line."""
    labelled: Counter[tuple[str, str]] = Counter()
    by_torchfix: Counter[tuple[str, str]] = Counter()
    by_lint: Counter[tuple[str, str]] = Counter()
    tor102 = {(path, line) for path, line, code in torchfix if code == "TOR102"}
    torchfix_lines = {(path, line) for path, line, _ in torchfix}
    for path, record in files.items():
        for rule, line in record.labels:
            key = (rule, record.split)
            labelled[key] += 1
            by_torchfix[key] += (path, line) in (tor102 if rule == "TDL004" else torchfix_lines)
            by_lint[key] += (path, line, rule) in lint
    print("labelled instances found at their line (TorchFix: TOR102 for TDL004, any TOR code for the others)")
    print(f"{'rule':<8} {'split':<5} {'labelled':>8} {'TorchFix':>9} {'lint':>5}")
    for rule, split in sorted(labelled):
        key = (rule, split)
        print(f"{rule:<8} {split:<5} {labelled[key]:>8} {by_torchfix[key]:>9} {by_lint[key]:>5}")
    tdl004_lines = {
        (path, line) for path, record in files.items() for rule, line in record.labels if rule == "TDL004"
    }
    extra = len(tor102 - tdl004_lines)
    print(f"TOR102 at calls that are not TDL004 instances (map_location given, weights_only not): {extra}")
