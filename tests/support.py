"""Helpers for end-to-end tests: run the installed CLI, build plugin distributions and torch-less Pythons."""

from __future__ import annotations

import ctypes
import functools
import json
import math
import os
import subprocess
import sys
import textwrap
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

TESTS = Path(__file__).parent
FIXTURES = TESTS / "fixtures"
BIN = Path(sys.executable).parent
SITE_PACKAGES = Path(next(p for p in sys.path if p.endswith("site-packages")))


def nvidia_driver_here() -> bool:
    """Whether this machine has an NVIDIA driver (a library NVML or CUDA would load)."""
    for library in ("libnvidia-ml.so.1", "libcuda.so.1"):
        try:
            ctypes.CDLL(library)
        except OSError:
            continue
        return True
    return False


CPU_MACHINE = pytest.mark.skipif(nvidia_driver_here(), reason="expects a machine without an NVIDIA driver")

# What the installed torch says of itself, measured by conftest.py in each test process before it collects
# (collecting imports torch: the measure is that import); a Python started with this environment reads it.
TORCH_FACTS_ENV = "TDTEST_TORCH_FACTS"


def measure_torch() -> dict[str, Any]:
    """Import torch and say what it says of itself, and how long the import took: here, where this process
    has not imported torch yet; otherwise in a fresh Python."""
    if "torch" in sys.modules:
        code = f"import json, sys; sys.path.insert(0, {str(TESTS)!r}); import support; "
        code += "print(json.dumps(support.measure_torch()))"
        result = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=True
        )
        measured: dict[str, Any] = json.loads(result.stdout)
        return measured
    started = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch warns where it finds no NumPy
            import torch
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
        return {"importable": False, "error": error, "import_s": time.perf_counter() - started}
    import_s = time.perf_counter() - started
    # asked before the maps are read: asking loads the libraries cuDNN loads lazily (libcudnn_graph)
    cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
    distributed = torch.distributed.is_available()
    with open("/proc/self/maps") as maps:
        mapped = sorted({line.split()[-1] for line in maps if "/" in line and ".so" in line})
    return {
        "importable": True,
        "version": torch.__version__,
        "cuda": torch.version.cuda,
        "hip": getattr(torch.version, "hip", None),
        "cudnn": cudnn,
        "nccl": bool(distributed and torch.distributed.is_nccl_available()),
        "gloo": bool(distributed and torch.distributed.is_gloo_available()),
        "mapped": mapped,
        "import_s": import_s,
    }


@functools.cache
def torch_here() -> dict[str, Any]:
    """What the torch of this environment says of itself: ``version``, ``cuda`` (None for a CPU-only build),
    ``cudnn``, ``nccl``, ``mapped`` (the shared libraries a process that imported it maps: torch's among
    them) and ``import_s``."""
    recorded = os.environ.get(TORCH_FACTS_ENV)
    return json.loads(recorded) if recorded else measure_torch()


def torch_release() -> str:
    """The installed torch's release, without a local version: ``2.13.0`` for ``2.13.0+cpu``."""
    return str(torch_here()["version"]).split("+", 1)[0]


def cpu_only_torch() -> bool:
    return torch_here()["cuda"] is None and torch_here()["hip"] is None


def build_words() -> str:
    """How torch.build names the installed torch's build: ``CPU-only`` or ``CUDA 13.0``."""
    return "CPU-only" if torch_here()["cuda"] is None else f"CUDA {torch_here()['cuda']}"


def no_gpu_reason() -> str:
    """Why the installed torch measures no GPU on a machine without one, as the transfer probe says it."""
    version, cuda = torch_here()["version"], torch_here()["cuda"]
    if cuda is None:
        return f"torch {version} is a CPU-only build"
    return f"torch {version} (CUDA {cuda}) sees no GPU"


# How long `import torch` takes on the machine the tests were written on; deadlines in tests scale with
# what it takes here (a loaded machine, a CUDA build that maps more libraries), never below what they were.
REFERENCE_IMPORT_S = 1.0


def slack(seconds: float) -> float:
    """``seconds`` scaled by how much slower torch imports here than on the reference machine, rounded up
    to whole seconds."""
    return float(math.ceil(seconds * max(1.0, torch_here()["import_s"] / REFERENCE_IMPORT_S)))


def cli_env(**extra: str | None) -> dict[str, str]:
    """The current environment without the variables that change what torchdoctor sees, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CUDA_", "TORCHDOCTOR_", "LOCAL_RANK"))}
    env.pop("NO_COLOR", None)
    env.pop("FORCE_COLOR", None)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(TESTS), env.get("PYTHONPATH", "")) if p)
    for key, value in extra.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def run_cli(
    *args: str,
    env: dict[str, str] | None = None,
    python: str | None = None,
    timeout: float = 120,
    cwd: Path | None = None,
    input_text: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``torchdoctor ARGS`` as a user would: the console script, or ``PYTHON -m torchdoctor``; stdin is
    ``input_text``, or empty."""
    command = [python, "-m", "torchdoctor", *args] if python else [str(BIN / "torchdoctor"), *args]
    return subprocess.run(
        command,
        env=env if env is not None else cli_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        input=input_text if input_text is not None else "",
        check=False,
    )


def install_without_deps(python: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``pip install --no-deps ARGS`` into the environment of ``python``. Never without --no-deps: a
    :func:`linked_venv` shares this environment's files, and an uninstall there would delete them."""
    return subprocess.run(
        [sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-input", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


# Runs CLI commands in one process, then says its last exit code and which heavy modules it imported.
_IN_PROCESS = """
import json, sys
from torchdoctor import cli
code = None
for argv in json.loads(sys.argv[1]):
    try:
        cli.main(argv)
    except SystemExit as exc:
        code = exc.code
heavy = [m for m in ("torch", "pynvml", "pydantic") if m in sys.modules]
sys.stderr.write(f"exit={code} imported={heavy}\\n")
"""


def cli_in_process(*argvs: list[str]) -> subprocess.CompletedProcess[str]:
    """Run the CLI commands ``argvs`` one after another in one fresh Python process, as ``cli.main``
    does for a user; its stderr ends with ``exit=CODE imported=[...]`` (torch, pynvml or pydantic if
    imported)."""
    return subprocess.run(
        [sys.executable, "-c", _IN_PROCESS, json.dumps(argvs)],
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


_EACH_IN_PROCESS = """
import json, sys
from support import end_kept_hosts, invoke
done = [invoke(*argv) for argv in json.loads(sys.argv[1])]
end_kept_hosts()
print(json.dumps([[d.returncode, d.stdout, d.stderr] for d in done]))
"""


def invoked_in_a_process(
    argvs: list[tuple[str, ...]], timeout: float
) -> list[subprocess.CompletedProcess[str]]:
    """Each of the CLI commands ``argvs`` as :func:`invoke` runs it, all in one fresh Python process that
    ``timeout`` bounds: for input that would hang or exhaust the process running the CLI if a guard failed."""
    done = subprocess.run(
        [sys.executable, "-c", _EACH_IN_PROCESS, json.dumps(argvs)],
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )
    return [
        subprocess.CompletedProcess(["torchdoctor", *argv], code, out, err)
        for argv, (code, out, err) in zip(argvs, json.loads(done.stdout), strict=True)
    ]


@functools.cache
def _validator(name: str) -> Any:
    """The validator of a shipped schema (``report`` or ``run_report``), the schema checked once: checking
    it again for every document (``jsonschema.validate``) costs a hundred times the validation."""
    from torchdoctor import schema

    document = getattr(schema, f"{name}_schema")()
    validator = jsonschema.validators.validator_for(document)
    validator.check_schema(document)
    return validator(document)


def assert_valid(document: Any, schema: str = "report") -> None:
    """``document`` is valid against the shipped schema ``schema`` (jsonschema's error otherwise)."""
    _validator(schema).validate(document)


def validated_report(stdout: str) -> dict[str, Any]:
    """Parse stdout as exactly one JSON report and validate it against the shipped schema."""
    report = json.loads(stdout)
    assert_valid(report)
    return report


def write_distribution(
    site: Path, name: str, version: str, module: str, source: str, entries: dict[str, str]
) -> None:
    """An installed distribution in ``site``: a module, and a dist-info naming its torchdoctor.checks."""
    site.mkdir(parents=True, exist_ok=True)
    (site / f"{module}.py").write_text(textwrap.dedent(source))
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    lines = "".join(f"{key} = {value}\n" for key, value in entries.items())
    (info / "entry_points.txt").write_text(f"[torchdoctor.checks]\n{lines}")
    (info / "RECORD").write_text("")


def linked_venv(root: Path, leave_out: tuple[str, ...] = ()) -> tuple[str, Path]:
    """A virtual environment sharing this one's site-packages by symlinks, minus entries whose lower-cased
    name starts with one of ``leave_out``. Returns its python and its site-packages folder."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    python = root / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    for entry in SITE_PACKAGES.iterdir():
        if entry.name.lower().startswith(leave_out) or (site / entry.name).exists():
            continue
        (site / entry.name).symlink_to(entry)
    return str(python), site


def python_without_torch(root: Path, fake_torch: str | None = None) -> str:
    """A virtual environment with everything of this one except torch; optionally a broken torch instead.

    ``fake_torch`` is the source of a ``torch/__init__.py`` installed with a dist-info, as a wheel whose
    import fails would be.
    """
    python, site = linked_venv(root)
    for name in ("torch", "functorch", "torchgen", *(p.name for p in site.glob("torch-*.dist-info"))):
        (site / name).unlink(missing_ok=True)
    if fake_torch is not None:
        (site / "torch").mkdir()
        (site / "torch" / "__init__.py").write_text(textwrap.dedent(fake_torch))
        info = site / "torch-2.13.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: torch\nVersion: 2.13.0\n")
        (info / "RECORD").write_text("")
    return python


def fixture_facts(name: str) -> dict[str, Any]:
    """The facts of a machine in tests/fixtures (each file says how it was made: ``fixture.made``)."""
    data = json.loads((FIXTURES / name).read_text())
    assert (data.get("fixture") or {}).get("source"), f"{name} must say where its numbers come from"
    facts: dict[str, Any] = data["facts"]
    return facts


def judge_fixture(check: Any, name: str, options: dict[str, Any] | None = None, **replace: Any) -> Any:
    """Judge a fixture's facts with ``check``; ``replace`` swaps whole probes' facts (e.g. env=...)."""
    facts = fixture_facts(name)
    facts.update(replace)
    return check.judge({p.name: facts[p.name] for p in check.probes}, options or {})


def installed(check_id: str) -> tuple[Any, Any]:
    """The entry and the Check of an installed check, imported in this process."""
    from torchdoctor.checking import registry

    entry = registry.find_entry(check_id)
    check = registry.load(entry)
    assert not isinstance(check, registry.LoadFailure), check
    return entry, check


def judged(check_ids: list[str], facts: dict[str, Any], options: dict[str, Any] | None = None) -> list[Any]:
    """The verdicts the installed checks give on ``facts``, judged here as the worker would judge them."""
    from torchdoctor.checking import runner

    verdicts = []
    for check_id in check_ids:
        entry, check = installed(check_id)
        verdicts.append(runner.judge_here(check, entry, facts, {}, options or {}))
    return verdicts


def machine_report(
    facts: dict[str, Any],
    check_ids: list[str],
    host: dict[str, Any],
    options: dict[str, Any] | None = None,
    timings: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON report a machine with these facts would have saved (judged there with ``check_ids``)."""
    from torchdoctor.model import Report

    verdicts = judged(check_ids, facts, options)
    timings = timings or {"total_s": 2.5, "probes": {}}
    return Report("0.1.0", "2026-11-30T11:32:16Z", host, options or {}, facts, verdicts, timings).to_json()


def explained_lines(text: str) -> list[str]:
    """What ``torchdoctor explain TEXT`` prints, the matching done in this process as the worker does it
    (the CLI's own path, worker included, is tested once for all)."""
    from torchdoctor.commands.explain import explained
    from torchdoctor.explain import catalogue, format_lines

    explanations, problems = explained(text, catalogue.answer)
    assert not problems
    return format_lines(explanations)


class _LentHost:
    """A kept host worker lent to one command (the ``runner.Worker`` the command's session holds): the
    command sees only what the worker wrote on stderr while it held it (counted in the tail the worker's
    handle keeps, STDERR_KEPT_BYTES: after more than that in all, an offset no longer marks where it began),
    and ending the command hands the worker back alive. A call that failed has already ended the worker (a
    timeout or garbage kills it, a crash is its end), and the next command then gets a new one."""

    def __init__(self, worker: Any) -> None:
        self._worker = worker
        self._before = len(worker.stderr_text())

    def call(self, target: str, options: dict[str, Any], timeout: float) -> dict[str, Any]:
        answer: dict[str, Any] = self._worker.call(target, options, timeout)
        return answer

    def stderr_text(self) -> str:
        text: str = self._worker.stderr_text()
        return text[self._before :]

    def close(self) -> None:
        pass


_kept_hosts: dict[tuple[Any, ...], Any] = {}
_CLI_ONLY_VARIABLES = frozenset({"PYTEST_CURRENT_TEST", "COMP_WORDS", "COMP_CWORD", "_TORCHDOCTOR_COMPLETE"})
"""Variables only the CLI process reads (a completion request): a worker started under other values of them
does the same work."""


def _lend_host(start: Callable[[], Any]) -> _LentHost:
    """The host worker of the current environment and folder, started on first use (by ``start``, the
    CLI's own ``runner.host_worker``) and kept: describing, judging and explaining are pure functions of
    those, so the commands a test module invokes in this process share one worker instead of starting one
    each (a ``torchdoctor`` process starts its own, as ever)."""
    environment = tuple(sorted((k, v) for k, v in os.environ.items() if k not in _CLI_ONLY_VARIABLES))
    key = (environment, os.getcwd())
    worker = _kept_hosts.get(key)
    if worker is None or worker.proc is None or worker.proc.poll() is not None:
        worker = _kept_hosts[key] = start()
    return _LentHost(worker)


def end_kept_hosts() -> None:
    """End the host workers :func:`invoke` kept (conftest.py does at the end of each test module)."""
    for worker in _kept_hosts.values():
        worker.close()
    _kept_hosts.clear()


def invoke(
    *args: str,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    input_text: str | None = None,
    merged: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Run ``torchdoctor ARGS`` through ``cli.main`` in this process, with ``env`` as the whole environment,
    ``cwd`` as the current folder and ``input_text`` (or nothing) on stdin: what :func:`run_cli` gives,
    without starting a Python for the CLI (``merged``: what it writes on stderr goes into stdout, in the
    order written). The workers it starts are processes as ever, but the host worker (describing, judging,
    explaining) is kept for the next command of the same environment and folder (:func:`_lend_host`). For
    what a test says of the CLI's output, exit code and files; a test of the CLI process itself (what it
    imports, its streams, signals and deadlines, a worker of its own) uses :func:`run_cli`."""
    import io

    from torchdoctor import cli
    from torchdoctor.checking import runner

    def stream(data: bytes = b"") -> io.TextIOWrapper:
        return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="surrogateescape", newline="")

    environment = env if env is not None else cli_env()
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved_streams, saved_path = (sys.stdin, sys.stdout, sys.stderr), list(sys.path)
    stdin, stdout = stream((input_text or "").encode()), stream()
    stderr = stdout if merged else stream()
    code: Any = 0
    started_host = runner.host_worker
    try:
        runner.host_worker = functools.partial(_lend_host, started_host)
        os.environ.clear()
        os.environ.update(environment)
        # The CLI finds the checks of the distributions on its sys.path, which PYTHONPATH extends.
        extra = environment.get("PYTHONPATH", "").split(os.pathsep)
        sys.path[:0] = [folder for folder in extra if folder and folder not in sys.path]
        if cwd is not None:
            os.chdir(cwd)
        sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
        try:
            cli.main(list(args))
        except SystemExit as exc:
            code = exc.code
    finally:
        runner.host_worker = started_host
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        sys.path[:] = saved_path
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    outputs = []
    for captured in (stdout, stderr):
        captured.flush()
        outputs.append(captured.buffer.getvalue().decode("utf-8", errors="surrogateescape"))  # type: ignore[attr-defined]
    if merged:
        outputs[1] = ""
    returncode = 0 if code is None else code if isinstance(code, int) else 1  # as Python exits on SystemExit
    return subprocess.CompletedProcess(["torchdoctor", *args], returncode, *outputs)
