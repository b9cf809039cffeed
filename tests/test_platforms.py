"""The checks run in a process made to look like Windows or like macOS (tests/foreign_platform): no
``resource``, ``fcntl``, ``termios``, ``pwd`` (Windows), no ``fork``, sessions or uids (Windows), no ``/proc``
or ``/sys`` and no CPU affinity (both). Each platform is one live ``check --json`` for the whole module (every
check on Windows; on macOS all but the dry run): a verdict for every check, none of them an error, and what
the platform cannot tell said as such."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from torchdoctor.checking import registry

from support import TESTS, cli_env, run_cli, slack

FOREIGN = TESTS / "foreign_platform"
CHECK_IDS = {entry.id for entry in registry.find_entries() if entry.distribution == "torchdoctor"}


def foreign_env(platform: str, **extra: str) -> dict[str, str]:
    env = cli_env(TORCHDOCTOR_TEST_PLATFORM=platform, **extra)
    env["PYTHONPATH"] = os.pathsep.join((str(FOREIGN), env["PYTHONPATH"]))
    return env


@pytest.fixture(scope="module", params=["win32", "darwin"])
def foreign_run(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    platform = str(request.param)
    # The dry run's ranks cost an import of torch each: run on the Windows-like process only, where its
    # launcher, port lock and clean-up differ from Linux's (on macOS only the zygote does, refused below).
    only = [] if platform == "win32" else ["--only", ",".join(sorted(CHECK_IDS - {"ddp.dryrun"}))]
    done = run_cli("check", "--json", *only, env=foreign_env(platform), timeout=slack(120))
    assert done.stdout, done.stderr
    report = json.loads(done.stdout)
    return {"platform": platform, "code": done.returncode, "stderr": done.stderr, "report": report}


def _verdicts(run: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {v["id"]: v for v in run["report"]["verdicts"]}


def test_the_shim_takes_away_what_the_platform_lacks() -> None:
    """The harness itself: what torchdoctor's code sees in a Windows-like and a macOS-like process."""
    probe = (
        "import json, os, platform, sys\n"
        "from torchdoctor.machine import host\n"
        "def imports(name):\n"
        "    try:\n"
        "        __import__(name)\n"
        "    except ImportError:\n"
        "        return False\n"
        "    return True\n"
        "def proc():\n"
        "    try:\n"
        "        open('/proc/self/maps').close()\n"
        "    except OSError:\n"
        "        return False\n"
        "    return True\n"
        "print(json.dumps({'platform': sys.platform, 'system': platform.system(),"
        " 'fork': hasattr(os, 'fork'), 'resource': imports('resource'), 'fcntl': imports('fcntl'),"
        " 'os': host.summary()['os'],"
        " 'affinity': hasattr(os, 'sched_getaffinity'), 'proc_outside': proc()}))\n"
    )
    seen = {}
    for platform in ("win32", "darwin"):
        done = subprocess.run(
            [sys.executable, "-c", probe],
            env=foreign_env(platform),
            capture_output=True,
            text=True,
            check=True,
        )
        seen[platform] = json.loads(done.stdout)
    assert seen["win32"] == {
        "platform": "win32",
        "system": "Windows",
        "fork": False,
        "resource": False,
        "fcntl": False,
        "os": "Windows 10",
        "affinity": False,
        "proc_outside": True,  # only torchdoctor's own code is refused /proc
    }
    assert seen["darwin"] == {
        "platform": "darwin",
        "system": "Darwin",
        "fork": True,
        "resource": True,
        "fcntl": True,
        "os": "macOS 14.5",
        "affinity": False,
        "proc_outside": True,
    }


def test_every_check_gives_a_verdict_and_none_is_an_error(foreign_run: dict[str, Any]) -> None:
    verdicts = _verdicts(foreign_run)
    expected = CHECK_IDS if foreign_run["platform"] == "win32" else CHECK_IDS - {"ddp.dryrun"}
    assert set(verdicts) == expected, foreign_run["stderr"][-2000:]
    errors = {k: v["summary"] for k, v in verdicts.items() if v["status"] == "error"}
    assert not errors, errors
    assert foreign_run["code"] in (0, 1), foreign_run["stderr"][-2000:]
    expected_os = "Windows 10" if foreign_run["platform"] == "win32" else "macOS 14.5"
    assert foreign_run["report"]["host"]["os"] == expected_os


def test_the_loaded_libraries_come_from_what_the_platform_offers(foreign_run: dict[str, Any]) -> None:
    libs = foreign_run["report"]["facts"]["loaded_libraries"]
    assert libs["platform"] == foreign_run["platform"]
    if foreign_run["platform"] == "win32":
        # psutil's mapped files of the process (here the Linux ones psutil reads): torch's OpenMP found
        assert libs["source"] == "psutil memory_maps" and libs["skip_reason"] is None
        assert any(lib["family"] == "openmp" for lib in libs["libraries"])
    else:
        # dyld's image list is not there on Linux: said, not an error
        assert libs["source"] is None
        assert libs["skip_reason"].startswith("this platform cannot tell which libraries torch loaded")
        assert "loaded libraries not read on darwin" in _verdicts(foreign_run)["torch.stack"]["summary"]


def test_the_dry_run_starts_fresh_ranks_with_gloo_and_no_port_lock_error(foreign_run: dict[str, Any]) -> None:
    if foreign_run["platform"] != "win32":
        pytest.skip("the dry run is run in the Windows-like process only")
    verdict = _verdicts(foreign_run)["ddp.dryrun"]
    assert verdict["status"] == "pass", verdict
    facts = foreign_run["report"]["facts"]["ddp.dryrun"]
    assert facts["plan"]["backend"] == "gloo"
    assert all(rank["process"] == {"fresh": "no zygote"} for rank in facts["ranks"])
    assert all(
        rank["boot_id"] is None for rank in facts["ranks"]
    )  # no /proc: the host name tells nodes apart


def test_the_bounds_of_another_platform(foreign_run: dict[str, Any]) -> None:
    memlock = foreign_run["report"]["facts"]["pinned_bandwidth"]["memlock_bytes"]
    if foreign_run["platform"] == "win32":
        assert memlock is None  # no rlimits on Windows
    else:
        assert memlock is not None and set(memlock) == {"soft", "hard"}


def test_the_worker_memory_bound_ends_a_process_where_no_rlimit_holds(tmp_path: Path) -> None:
    """Windows-like: no ``resource``, so the psutil watchdog bounds the worker's memory."""
    code = (
        "import time\n"
        "from torchdoctor.isolation import lifeline\n"
        "assert lifeline.bound_memory(1)\n"
        "time.sleep(30)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=foreign_env("win32"),
        capture_output=True,
        text=True,
        timeout=slack(30),
    )
    assert done.returncode == 71, done.stderr
    assert "passed its memory bound" in done.stderr


def test_piped_output_is_utf8_where_windows_would_write_its_code_page() -> None:
    code = (
        "import sys\n"
        "from torchdoctor.output import streams\n"
        "streams.utf8_on_windows()\n"
        "print(sys.stdout.encoding, '\\u2192 caf\\u00e9')\n"
    )
    for platform, expected in (("win32", "utf-8 → café\n"), ("darwin", "cp1252 \\u2192 café\n")):
        done = subprocess.run(
            [sys.executable, "-c", code],
            env=foreign_env(platform, PYTHONIOENCODING="cp1252:backslashreplace"),
            capture_output=True,
            check=True,
        )
        written = done.stdout.decode("utf-8" if platform == "win32" else "cp1252")
        assert written == expected
