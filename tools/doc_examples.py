"""The example outputs of README.md and of the docs pages, made by running each documented command for real.

Every generated block follows a marker line ``<!-- example: NAME -->`` in README.md or a page of docs/ and
holds ``$ COMMAND`` and what that command printed (stdout and stderr, as a terminal shows them). An example
of several commands (two torchrun agents standing for two nodes) shows each after its ``$ `` and runs them
as one bash script, exactly as printed. One example may be shown on several pages: each copy is written and
checked. Examples that judge files of this repository (fixtures, snapshots, the texts of docs/examples/;
``--from`` where a GPU machine is shown) print the same everywhere but for this machine's headline and the
seconds a run took: ``--check`` compares them with both masked. Examples marked live show this machine itself
(a dry run, the default check): ``--write`` runs them here, and ``--check`` compares them only on each verdict
line's status and check id. The test suite runs the examples that are neither live nor costly (a process
importing torch) again; ``--check`` runs all of them.

The input files of docs/examples/ are texts of the corpus in tests/corpus/, copied verbatim below a header
that names their public source; ``--write`` writes them and ``--check`` fails when one differs.

    python tools/doc_examples.py --write          # rewrite every block and input file from fresh runs
    python tools/doc_examples.py --write NAME...  # only these blocks
    python tools/doc_examples.py --check          # exit 1 when a block or an input file is stale
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = REPO / "docs"
INPUTS = DOCS / "examples"
"""Files the examples read, not pages."""
MARKER = re.compile(
    r"^(?P<head><!-- example: (?P<name>[\w.-]+) -->\n(?P<fence>`{3,})(?:text|json|markdown)\n)"
    r"(?P<body>.*?)^(?P=fence)$",
    re.M | re.S,
)
"""A marker, the fence that follows it (four backticks around Markdown that holds fences) and its body."""
# Variables of the caller that would change what an example shows; an example sets its own.
_CLEARED = (
    "CUDA_VISIBLE_DEVICES",
    "PYTORCH_CUDA_ALLOC_CONF",
    "PYTORCH_ALLOC_CONF",
    "MASTER_PORT",
    "MASTER_ADDR",
)


def pages() -> list[Path]:
    """README.md and every page of docs/ (the input files of docs/examples/ are no pages)."""
    found = [p for p in sorted(DOCS.rglob("*.md")) if INPUTS not in p.parents]
    return [README, *found]


def shown_name(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


@dataclass(frozen=True)
class Copied:
    """A file of docs/examples/ that an example reads: the text a corpus record holds, verbatim below a
    header naming its public source (the record's ``source`` and ``url``)."""

    path: str
    record: str
    key: str

    def text(self) -> str:
        record = json.loads((REPO / self.record).read_text(encoding="utf-8"))
        licence = f", licence: {record['license']}" if record.get("license") else ""
        header = [
            f"{record['source']} ({record['url']}{licence}),",
            f"copied verbatim below this header from {self.record} ({self.key!r}).",
        ]
        if self.path.endswith(".py"):
            top = "".join(f"# {line}\n" for line in header)
        else:
            top = "<!-- " + "\n".join(header) + " -->\n"
        return top + str(record[self.key])


COPIES = (
    Copied(
        "docs/examples/pytorch_pytorch_150733.md",
        "tests/corpus/collect_env/dev/pytorch_pytorch_150733.json",
        "text",
    ),
    Copied("docs/examples/learn2perturb_train.py", "tests/corpus/lint/test/learn2perturb_train.json", "code"),
)


@dataclass(frozen=True)
class Example:
    name: str
    command: str
    """The command line as the docs show it (after ``$ ``), run with shlex's reading of it; several lines:
    several commands, run as one bash script exactly as shown."""
    live: bool = False
    """What it shows is this machine itself: compared by status and check id only."""
    costly: bool = False
    """It starts a process that imports torch: ``--check`` runs it again, the test suite does not."""
    install: tuple[str, ...] = ()
    """Packages installed (pip --no-deps) into a scratch folder on the command's PYTHONPATH: the situation
    the example shows (a torchvision of another torch beside this one); nothing of the environment changes."""
    scratch: bool = False
    """Run in an empty scratch folder (a command that writes a file)."""
    abridge: Callable[[str], str] | None = None
    """What of the output the block shows, cut by a rule (never by hand)."""
    shows_command: bool = True
    """The block starts with ``$ COMMAND``; otherwise it holds the output alone (a JSON document) and the
    page names the command in the text around it."""

    @property
    def commands(self) -> list[str]:
        return self.command.split("\n")

    @property
    def prompt(self) -> str:
        """The command lines as the block shows them."""
        return "".join(f"$ {line}\n" for line in self.commands)


def _environment(assignments: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _CLEARED}
    env.update(NO_COLOR="1", COLUMNS="200", TERM="dumb", **assignments)
    return env


Execute = Callable[[list[str], Path, dict[str, str]], str]
"""Runs ``argv`` in a folder with an environment; returns its stdout and stderr as one stream."""


def run_process(argv: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        argv,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # one stream, in the order a terminal shows them
        text=True,
        timeout=600,
        check=False,
    )
    return done.stdout


def run(example: Example, execute: Execute = run_process) -> str:
    """The block of an example: ``$ COMMAND`` and what the command printed, run in the repository (or a
    scratch folder) by ``execute``; several commands run as one bash script, by a process of their own."""
    bin_folder = str(Path(sys.executable).parent)
    words = shlex.split(example.command) if len(example.commands) == 1 else []
    assignments = {}
    while words and "=" in words[0]:
        name, value = words.pop(0).split("=", 1)
        assignments[name] = value
    with tempfile.TemporaryDirectory(prefix="torchdoctor-example-") as scratch:
        cwd = Path(scratch) if example.scratch else REPO
        if example.install:
            site = Path(scratch) / "site"
            pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site)]
            subprocess.run([*pip, *example.install], check=True, timeout=600)
            assignments["PYTHONPATH"] = str(site)
        env = _environment(assignments)
        if words:
            executable = shutil.which(words[0], path=bin_folder) or words[0]
            output = execute([executable, *words[1:]], cwd, env)
        else:
            env["PATH"] = os.pathsep.join([bin_folder, env.get("PATH", "")])
            output = run_process(["bash", "-c", example.command], cwd, env)
    if example.abridge is not None:
        output = example.abridge(output)
    shown = f"{output.rstrip()}\n"
    return example.prompt + shown if example.shows_command else shown


def _abridged_json(output: str) -> str:
    """A JSON report cut to what a reader needs to see its shape: each probe's facts and a verdict's facts
    stand for themselves with ``"...": "..."``."""
    data = json.loads(output)
    data["facts"] = {name: {"...": "..."} for name in list(data["facts"])[:3]}
    for verdict in data["verdicts"]:
        verdict["facts"] = {"...": "..."}
    data["timings"]["probes"] = dict(list(data["timings"]["probes"].items())[:3])
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _abridged_markdown(output: str) -> str:
    """A Markdown report cut after the summary line of its collapsed facts block."""
    lines = output.splitlines()
    end = next(i for i, line in enumerate(lines) if line.startswith("<summary>"))
    return "\n".join([*lines[: end + 1], "", "[... the facts, collapsed until opened ...]", "</details>"])


def _abridged_traceback(output: str) -> str:
    """torchdoctor's block whole; of Python's traceback after it, the program's own first frame and the
    error; the repository's folder shown as ``...``."""
    lines = output.replace(str(REPO), "...").splitlines()
    start = lines.index("Traceback (most recent call last):")
    second = next(i for i in range(start + 2, len(lines)) if lines[i].startswith("  File "))
    return "\n".join([*lines[:second], "[... the rest of the traceback, as Python prints it ...]", lines[-1]])


_CLUSTER_AGENT = (
    "torchrun --nnodes 2 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:29400 "
    "--rdzv-id doctor --max-restarts 0 -m torchdoctor cluster"
)

EXAMPLES = (
    Example("check-cvd-typo", 'CUDA_VISIBLE_DEVICES="0 1" torchdoctor check', live=True),
    Example("check-green", "torchdoctor check", live=True),
    Example(
        "check-json",
        "torchdoctor check --json --only torch.build",
        live=True,
        abridge=_abridged_json,
        shows_command=False,
    ),
    Example(
        "stack-companions",
        "torchdoctor check --only torch.stack",
        live=True,
        install=("torchvision==0.29.1",),
    ),
    Example(
        "check-from-h100-cvd",
        "torchdoctor check --from tests/fixtures/h100x8_cvd_2_3.json --only cuda.visible_devices -v",
    ),
    Example(
        "fragmentation-typo",
        'PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,max_split_size_mb:abc" '
        "torchdoctor check --only gpu.fragmentation",
    ),
    Example(
        "fragmentation-snapshot",
        "torchdoctor check --only gpu.fragmentation --memory-snapshot "
        "tests/snapshots/v100_32gb_split_fragmented.pickle",
    ),
    Example(
        "fragmentation-hostile",
        "torchdoctor check --only gpu.fragmentation --memory-snapshot "
        "tests/snapshots/hostile_calls_os_system.pickle",
    ),
    Example(
        "gpu-memory-busy",
        "torchdoctor check --from tests/fixtures/h100x2_busy_two_foreign.json --only gpu.memory",
    ),
    Example(
        "pinned-downtrained",
        "torchdoctor check --from tests/fixtures/h100_pcie_gen3x8_downtrained.json --only transfer.pinned",
    ),
    Example(
        "pinned-gen5", "torchdoctor check --from tests/fixtures/h100_pcie_gen5x16.json --only transfer.pinned"
    ),
    Example("ddp-dryrun", "torchdoctor check --only ddp.dryrun -v", live=True),
    Example(
        "master-port-held",
        "timeout 10 python -m http.server 29500 --bind 0.0.0.0 > /dev/null 2>&1 &\n"
        "sleep 1\n"
        "MASTER_PORT=29500 torchdoctor check --only ddp.dryrun",
        live=True,
    ),
    Example("list", "torchdoctor list"),
    Example("cluster-two-agents", f"{_CLUSTER_AGENT} &\n{_CLUSTER_AGENT}", live=True),
    Example(
        "cluster-missing-rank",
        "RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29511 torchdoctor cluster --timeout 10",
        live=True,
    ),
    Example(
        "report-written",
        "CUDA_VISIBLE_DEVICES=0,0 NCCL_DEBUG=INFO torchdoctor report --only torch.build,cuda.visible_devices",
        live=True,
        scratch=True,
    ),
    Example(
        "report-markdown",
        "torchdoctor report --from tests/fixtures/h100x8_cpu_wheel.json --preview",
        abridge=_abridged_markdown,
    ),
    Example("check-from-h100", "torchdoctor check --from tests/fixtures/h100x8_cvd_2_3.json"),
    Example(
        "diff-drivers",
        "torchdoctor diff tests/fixtures/h100x8_cvd_2_3.json tests/fixtures/h100_driver535_cu129_wheel.json",
    ),
    Example(
        "explain-oom",
        'torchdoctor explain "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 '
        "has a total capacity of 79.10 GiB of which 1.50 GiB is free. ... 16.97 GiB is reserved by PyTorch "
        'but unallocated. ..."',
    ),
    Example("explain-id", "torchdoctor explain load.map_location"),
    Example("triage-rtx5090", f"torchdoctor triage {COPIES[0].path}"),
    Example("lint-learn2perturb", f"torchdoctor lint --show-fixes {COPIES[1].path}"),
    Example(
        "run-plain-attribute",
        "DEMO_DEVICE=meta torchdoctor run tests/runtime/scripts/plain_attribute.py",
        costly=True,
        abridge=_abridged_traceback,
    ),
    Example(
        "run-gpus-plain-attribute",
        "DEMO_DEVICE=cuda torchdoctor run --gpus 1 tests/runtime/scripts/plain_attribute.py",
        costly=True,
        abridge=_abridged_traceback,
    ),
)
BY_NAME = {example.name: example for example in EXAMPLES}


_SECONDS = re.compile(r"\b\d+\.\d+ s\b")
_HEADLINE = re.compile(r"^torchdoctor \d\S* \| .*$", re.M)
_VERDICT = re.compile(r"^\s*(PASS|WARN|FAIL|SKIP|ERROR)\s+(\S+)", re.M)


def comparable(example: Example, text: str) -> str:
    """What must not drift: all of it but this machine's headline and the seconds a run took; for a live
    example, the status and id of each verdict line."""
    if example.live:
        return "\n".join(" ".join(m.groups()) for m in _VERDICT.finditer(text))
    return _SECONDS.sub("N s", _HEADLINE.sub("torchdoctor (this machine)", text))


def blocks(text: str) -> dict[str, str]:
    """The generated blocks of one page, by example name."""
    return {m["name"]: m["body"] for m in MARKER.finditer(text)}


def shown() -> dict[str, list[tuple[Path, str]]]:
    """Every generated block of README.md and docs/, by example name: the pages that show it and what."""
    found: dict[str, list[tuple[Path, str]]] = {}
    for page in pages():
        for match in MARKER.finditer(page.read_text(encoding="utf-8")):
            found.setdefault(match["name"], []).append((page, match["body"]))
    return found


def write_copies() -> None:
    for copy in COPIES:
        path = REPO / copy.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(copy.text(), encoding="utf-8")


def stale_copies() -> list[str]:
    return [
        c.path
        for c in COPIES
        if not (REPO / c.path).is_file() or (REPO / c.path).read_text(encoding="utf-8") != c.text()
    ]


def _with_block(text: str, name: str, output: str) -> str:
    """``text`` with the body of every block of ``name`` replaced by ``output``."""

    def replaced(match: re.Match[str]) -> str:
        body = output if match["name"] == name else match["body"]
        return match["head"] + body + match["fence"]

    return MARKER.sub(replaced, text)


def write(names: Sequence[str]) -> None:
    write_copies()
    where = shown()
    for name in names:
        if name not in where:
            raise SystemExit(f"no page has a block for {name}: add <!-- example: {name} --> and a fence")
        output = run(BY_NAME[name])
        for page in dict.fromkeys(page for page, _ in where[name]):
            page.write_text(_with_block(page.read_text(encoding="utf-8"), name, output), encoding="utf-8")
            sys.stdout.write(f"wrote {name} in {shown_name(page)}\n")


def drifted(names: Sequence[str]) -> list[str]:
    """``PAGE: NAME`` of every block that differs from a fresh run of its example."""
    where = shown()
    stale = []
    for name in names:
        example = BY_NAME[name]
        fresh = comparable(example, run(example))
        stale += [
            f"{shown_name(p)}: {name}"
            for p, body in where.get(name, [])
            if comparable(example, body) != fresh
        ]
    return stale


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/doc_examples.py", description=__doc__)
    parser.add_argument("names", nargs="*", help="examples to write or check (default: all)")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true")
    action.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in BY_NAME]
    if unknown:
        parser.error(f"unknown example(s): {', '.join(unknown)}; known: {', '.join(BY_NAME)}")
    names = args.names or list(BY_NAME)
    if args.write:
        write(names)
        return 0
    where = shown()
    problems = [f"{path}: differs from the corpus text it copies" for path in stale_copies()]
    problems += [f"{n}: no page shows it" for n in names if n not in where]
    problems += [f"{n}: no such example" for n in where if n not in BY_NAME]
    problems += [f"{block}: differs from a fresh run" for block in drifted(names)]
    for problem in problems:
        sys.stderr.write(f"{problem}\n")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
