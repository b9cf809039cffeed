"""Probes of tests/isolation/test_zygote.py, run in a real probe worker that imported torch first (its
warm-up)."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from typing import Any

from torchdoctor.checks.ddp import launcher
from torchdoctor.isolation import zygote

# Imported in the worker before the zygote forks, as the dry run's launcher imports the rank program.
from zygote_rank import dump  # noqa: F401

MARK_ENV = "TORCHDOCTOR_TEST_GETENV_LOG"


def _mark(text: str) -> None:
    path = os.environ.get(MARK_ENV)
    if path:
        with open(path, "a") as log:
            log.write(f"{os.getpid()} MARK {text}\n")


@zygote.preload("torch.distributed")
def compare(options: Mapping[str, Any]) -> dict[str, Any]:
    """``zygote_rank.dump`` started as the launcher starts a fresh rank and from the zygote, in local rank 1's
    environment of a 2-rank run with ``options["extra"]`` added."""
    _mark("probes start")
    env = launcher.torchrun_env(dict(os.environ), 1, 2, "127.0.0.1", launcher.free_port(), "zygote-test")
    env.update(options.get("extra") or {})
    argv = ["--local-rank=1", "two words"]
    fresh = subprocess.run(
        [sys.executable, "-P", "-m", "zygote_rank.dump", *argv],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        start_new_session=True,
        timeout=120,
    )
    client = zygote.current()
    assert client is not None, zygote.why_not_fork()
    read, write = os.pipe()
    with tempfile.TemporaryFile() as stderr:
        child = client.spawn(
            "zygote_rank.dump",
            argv,
            env,
            write,
            stderr.fileno(),
            launcher.TORCHRUN_VARIABLES | set(options.get("extra") or {}),
            timeout=60,
        )
        os.close(write)
        assert not isinstance(child, str), child
        with os.fdopen(read, "rb") as out:
            forked_out = out.read()
        code = child.wait(60)
        stderr.seek(0)
        forked_err = stderr.read().decode(errors="replace")
    assert fresh.returncode == 0 == code, (fresh.stderr.decode(errors="replace")[-2000:], forked_err[-2000:])
    imported = zygote.imported
    assert imported is not None
    return {
        "env": env,
        "fresh": json.loads(fresh.stdout),
        "forked": json.loads(forked_out),
        "stderr": {"fresh": fresh.stderr.decode(errors="replace"), "forked": forked_err},
        "forked_pid": child.pid,
        "zygote_pid": client.pid,
        "import_read": sorted(imported.read),
        "import_listed": imported.listed,
        "collector": {
            "enabled": gc.isenabled(),
            "frozen": gc.get_freeze_count(),
            "modules": len(sys.modules),
        },
    }


def fork_after_cuda_query(options: Mapping[str, Any]) -> dict[str, Any]:
    """Ask torch whether CUDA is available, as a probe does, then fork another zygote: is it fit to serve?"""
    import torch

    available = torch.cuda.is_available()
    client = zygote._fork([])
    assert client is not None
    try:
        ready = client.ready(60)
    finally:
        client.close()
    return {"available": available, "cuda_built": torch.version.cuda is not None, "ready": ready}
