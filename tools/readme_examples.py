"""The README's example outputs, made by running each documented command for real.

Every generated block of README.md follows a marker line ``<!-- readme-example: NAME -->`` and holds
``$ COMMAND`` and what that command printed (stdout and stderr, as a terminal shows them). Examples that
judge files of this repository (fixtures, snapshots, corpus texts; ``--from`` where a GPU machine is shown)
print the same everywhere but for this machine's headline and the seconds a run took: ``--check`` compares
them with both masked. Examples marked live show this machine itself (a dry run, the default check):
``--write`` runs them here, and ``--check`` compares them only on each verdict line's status and check id.

    python tools/readme_examples.py --write          # rewrite every block from fresh runs
    python tools/readme_examples.py --write NAME...  # only these
    python tools/readme_examples.py --check          # exit 1 when a block differs from a fresh run
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
MARKER = re.compile(r"^<!-- readme-example: ([\w.-]+) -->\n```(?:text|json)\n(.*?)```", re.M | re.S)
# Variables of the caller that would change what an example shows; an example sets its own.
_CLEARED = (
    "CUDA_VISIBLE_DEVICES",
    "PYTORCH_CUDA_ALLOC_CONF",
    "PYTORCH_ALLOC_CONF",
    "MASTER_PORT",
    "MASTER_ADDR",
)


@dataclass(frozen=True)
class Example:
    name: str
    command: str
    """The command line as the README shows it (after ``$ ``), run with shlex's reading of it."""
    files: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Files the command names, written into a scratch folder first: name -> (corpus JSON, its key)."""
    live: bool = False
    """What it shows is this machine itself: compared by status and check id only."""
    install: tuple[str, ...] = ()
    """Packages installed (pip --no-deps) into a scratch folder on the command's PYTHONPATH: the situation
    the example shows (a torchvision of another torch beside this one); nothing of the environment changes."""
    holds_port: int | None = None
    """A port another program listens on while the command runs (python -m http.server)."""
    agents: int = 1
    """How many copies of the command run at once (torchrun agents standing for nodes); the output shown is
    what the reporting one printed on stdout."""
    scratch: bool = False
    """Run in an empty scratch folder (a command that writes a file)."""
    abridge: Callable[[str], str] | None = None


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
    """``$ COMMAND`` and what the command printed, run in the repository (or a scratch folder) by
    ``execute`` (the examples of several agents start them as processes)."""
    words = shlex.split(example.command)
    assignments = {}
    while "=" in words[0]:
        name, value = words.pop(0).split("=", 1)
        assignments[name] = value
    executable = shutil.which(words[0], path=str(Path(sys.executable).parent)) or words[0]
    with (
        tempfile.TemporaryDirectory(prefix="torchdoctor-readme-") as scratch,
        contextlib.ExitStack() as stack,
    ):
        cwd = Path(scratch) if example.files or example.scratch else REPO
        for name, (source, key) in example.files.items():
            record = json.loads((REPO / source).read_text(encoding="utf-8"))
            (cwd / name).write_text(str(record[key]), encoding="utf-8")
        if example.install:
            site = Path(scratch) / "site"
            pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site)]
            subprocess.run([*pip, *example.install], check=True, timeout=600)
            assignments["PYTHONPATH"] = str(site)
        if example.holds_port is not None:
            stack.enter_context(_listening(example.holds_port))
        env = _environment(assignments)
        if example.agents > 1:
            output = _agents([executable, *words[1:]], cwd, env, example.agents)
        else:
            output = execute([executable, *words[1:]], cwd, env)
    if example.abridge is not None:
        return example.abridge(output)
    return f"$ {example.command}\n{output.rstrip()}\n"


@contextlib.contextmanager
def _listening(port: int) -> Iterator[None]:
    holder = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "0.0.0.0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(200):
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        yield
    finally:
        holder.terminate()
        holder.wait(timeout=30)


def _agents(argv: list[str], cwd: Path, env: dict[str, str], count: int) -> str:
    started = [
        subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        for _ in range(count)
    ]
    outputs = [process.communicate(timeout=600)[0] for process in started]
    return next((out for out in outputs if out.strip()), "")


def _abridged_json(output: str) -> str:
    """A JSON report cut to what a reader needs to see its shape: each probe's facts and a verdict's facts
    stand for themselves with ``"...": "..."``."""
    data = json.loads(output)
    data["facts"] = {name: {"...": "..."} for name in list(data["facts"])[:3]}
    for verdict in data["verdicts"]:
        verdict["facts"] = {"...": "..."}
    data["timings"]["probes"] = dict(list(data["timings"]["probes"].items())[:3])
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


EXAMPLES = (
    Example("check-cvd-typo", 'CUDA_VISIBLE_DEVICES="0 1" torchdoctor check', live=True),
    Example("check-json", "torchdoctor check --json --only torch.build", live=True, abridge=_abridged_json),
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
        "MASTER_PORT=29500 torchdoctor check --only ddp.dryrun",
        live=True,
        holds_port=29500,
    ),
    Example(
        "cluster-two-agents",
        "torchrun --nnodes 2 --nproc-per-node 1 --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:29400 "
        "--rdzv-id doctor --max-restarts 0 -m torchdoctor cluster",
        live=True,
        agents=2,
    ),
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
    Example(
        "triage-rtx5090",
        "torchdoctor triage issue.md",
        {"issue.md": ("tests/corpus/collect_env/dev/pytorch_pytorch_150733.json", "text")},
    ),
    Example(
        "lint-learn2perturb",
        "torchdoctor lint --show-fixes train.py",
        {"train.py": ("tests/corpus/lint/test/learn2perturb_train.json", "code")},
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


def blocks(readme: str) -> dict[str, str]:
    return {m[1]: m[2] for m in MARKER.finditer(readme)}


def write(names: Sequence[str]) -> None:
    readme = README.read_text(encoding="utf-8")
    for name in names:
        output = run(BY_NAME[name])
        pattern = re.compile(
            rf"(^<!-- readme-example: {re.escape(name)} -->\n```(?:text|json)\n)(.*?)(```)", re.M | re.S
        )
        if not pattern.search(readme):
            raise SystemExit(f"README.md has no block for {name}")
        found = pattern.search(readme)
        assert found is not None
        readme = readme[: found.start(2)] + output + readme[found.end(2) :]
        sys.stdout.write(f"wrote {name}\n")
    README.write_text(readme, encoding="utf-8")


def drifted(names: Sequence[str]) -> list[str]:
    shown = blocks(README.read_text(encoding="utf-8"))
    return [
        n
        for n in names
        if comparable(BY_NAME[n], shown.get(n, "")) != comparable(BY_NAME[n], run(BY_NAME[n]))
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tools/readme_examples.py", description=__doc__)
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
    stale = drifted(names)
    for name in stale:
        sys.stderr.write(f"README.md: the example {name} differs from a fresh run\n")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
