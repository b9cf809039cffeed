"""What `torchdoctor run` costs a small CPU training loop, measured side by side.

    python bench/runtime_overhead.py [--runs N] [--steps N] [--processes]

tests/runtime/scripts/train_loop.py (an MLP trained with Adam on DataLoader batches moved with .to(device)
each step) runs three ways in each round, in a shuffled order so that machine noise hits all alike: as plain
`python` would run it, under `torchdoctor run` (light mode) and under `torchdoctor run --deep`. All three run
in this process, through the same launcher `torchdoctor run` uses (torch is imported once, so the loop's own
CPU seconds, printed by the script, are compared and nothing else: on a shared machine the CPU time of the
one thread the loop runs on counts the recorder's work and not the other processes'). --processes also runs
`python train_loop.py`, `torchdoctor run train_loop.py` and `torchdoctor run --deep train_loop.py` as
processes (bench/sidebyside.py) and compares whole processes, torch's import included. Every run must print
the same final loss: the recorder does not change what the program computes.

Target: light mode at most 1.10x plain python on the loop. --deep has no target; its cost is stated.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import statistics
import sys
import time
from pathlib import Path

import sidebyside

from torchdoctor.runtime import launch
from torchdoctor.runtime.session import Options, Session

TARGET_LIGHT = 1.10
LOOP = Path(__file__).resolve().parent.parent / "tests" / "runtime" / "scripts" / "train_loop.py"
WAYS = {"python": None, "torchdoctor run": Options(), "torchdoctor run --deep": Options(deep=True)}


def run_once(options: Options | None, steps: int, *extra: str) -> dict[str, str]:
    """The loop run once in this process, as `python` or under a recording session; its printed fields."""
    program = launch.script(str(LOOP), ["--steps", str(steps), *extra])
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        if options is None:
            code = launch.run(program, lambda error, code: None, restore=True)
        else:
            session = Session(options, argv=program.argv)
            session.start()
            code = launch.run(program, session.finish, restore=True)
    if code != 0:
        raise SystemExit(f"train_loop.py exited with {code}")
    return _fields(out.getvalue())


def in_process(
    runs: int, steps: int, ways: dict[str, Options | None] = WAYS, extra: tuple[str, ...] = ()
) -> tuple[dict[str, float], set[str]]:
    """The loop's CPU seconds (the median of ``runs`` rounds in a shuffled order) for each way, and the final
    losses printed."""
    for options in ways.values():  # warm-up: first imports, allocator, caches
        run_once(options, steps, *extra)
    samples: dict[str, list[float]] = {name: [] for name in ways}
    losses = set()
    for _ in range(runs):
        order = list(ways)
        random.shuffle(order)
        for name in order:
            fields = run_once(ways[name], steps, *extra)
            samples[name].append(float(fields["loop_cpu_s"]))
            losses.add(fields["loss"])
        done = ", ".join(f"{name} {values[-1]:.3f} s" for name, values in samples.items() if values)
        print(f"round {len(samples['python'])}: {done}", file=sys.stderr, flush=True)
    return {name: statistics.median(values) for name, values in samples.items()}, losses


def processes(runs: int, steps: int) -> tuple[dict[str, float], dict[str, float], set[str]]:
    exe = sidebyside.torchdoctor_exe()
    loop = [str(LOOP), "--steps", str(steps)]
    commands = {
        "python": [sys.executable, *loop],
        "torchdoctor run": [exe, "run", *loop],
        "torchdoctor run --deep": [exe, "run", "--deep", *loop],
    }
    samples = sidebyside.rounds(commands, runs, expect_code=0)
    fields = {name: [_fields(s["stdout"]) for s in runs_] for name, runs_ in samples.items()}
    loop_s = {
        name: statistics.median(float(f["loop_cpu_s"]) for f in found) for name, found in fields.items()
    }
    total_s = {name: statistics.median(s["s"] for s in runs_) for name, runs_ in samples.items()}
    losses = {f["loss"] for found in fields.values() for f in found}
    return loop_s, total_s, losses


def _fields(stdout: str) -> dict[str, str]:
    """``loop_s 0.5 steps 400 loss 1.2`` -> {"loop_s": "0.5", "steps": "400", "loss": "1.2"}."""
    words = stdout.split()
    return dict(zip(words[::2], words[1::2], strict=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--processes", action="store_true", help="Also compare whole processes.")
    args = parser.parse_args()
    started = time.perf_counter()
    loop_s, losses = in_process(args.runs, args.steps)
    print(f"train_loop.py, {args.steps} steps, in one process; {sidebyside.heading(args.runs)}")
    print(f"{'':24} {'loop CPU s':>10} {'ratio':>6}")
    for name in WAYS:
        print(f"{name:24} {loop_s[name]:10.3f} {loop_s[name] / loop_s['python']:5.2f}x")
    light = loop_s["torchdoctor run"] / loop_s["python"]
    if args.processes:
        process_loop, total, process_losses = processes(args.runs, args.steps)
        losses |= process_losses
        print(f"\nthe same as processes (torch's import included); {sidebyside.heading(args.runs)}")
        print(f"{'':24} {'loop CPU s':>10} {'ratio':>6} {'process s':>10} {'ratio':>6}")
        for name in WAYS:
            print(
                f"{name:24} {process_loop[name]:10.3f} {process_loop[name] / process_loop['python']:5.2f}x "
                f"{total[name]:10.3f} {total[name] / total['python']:5.2f}x"
            )
    conclude("light mode", light, TARGET_LIGHT, losses, started)


def conclude(label: str, ratio: float, target: float, losses: set[str], started: float) -> None:
    """The verdict against the target and the check that every run computed the same; exit 1 on a miss."""
    verdict = "meets" if ratio <= target else "MISSES"
    print(f"\n{label} {ratio:.2f}x plain python on the loop: {verdict} the target of {target:.2f}x")
    same = "yes" if len(losses) == 1 else "NO: " + ", ".join(sorted(losses))
    print(f"the same final loss in every run: {same}")
    print(f"({time.perf_counter() - started:.0f} s)")
    if len(losses) != 1 or ratio > target:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
