"""Does any process a check started outlive `torchdoctor check`? A plugin check whose probe starts a daemon
that leaves the worker's session (setsid) and forks twice, run N times in each of three ways: the probe
returns while the daemon is still detaching, after it has detached, or ends its own worker once it has.

    python bench/daemon_cleanup.py [--runs N]

After each check the daemon's last process is looked for (its pid file), and counted if it is still running
(a zombie is not: it ran its last instruction, and only waits for whoever adopted it to read its status).
Target: none running, in every way.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

PLUGIN = """
import os, subprocess, sys, time
from torchdoctor import Check, Finding, Probe, Status

CODE = (
    "import os, sys, time\\n"
    "os.setsid()\\n"
    "if os.fork():\\n    os._exit(0)\\n"
    "if os.fork():\\n    os._exit(0)\\n"
    "open(sys.argv[1], 'w').write(str(os.getpid()))\\n"
    "time.sleep(60)\\n"
)


def probe(options):
    pidfile = os.environ["DAEMON_PIDFILE"]
    subprocess.Popen([sys.executable, "-c", CODE, pidfile])
    way = os.environ["DAEMON_WAY"]
    while way != "returns at once" and not os.path.exists(pidfile):
        time.sleep(0.005)
    if way == "ends its worker":
        os._exit(3)
    return {"started": True}


def judge(facts, options):
    return Finding(Status.PASS, "a daemon was started")


CHECK = Check("acme.daemon", "Daemon", (Probe("acme_daemon", "acme_daemon:probe"),), judge)
"""
WAYS = ("returns at once", "returns once detached", "ends its worker")


def _plugin(folder: Path) -> None:
    (folder / "acme_daemon.py").write_text(PLUGIN)
    info = folder / "acme_daemon-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-daemon\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[torchdoctor.checks]\nacme.daemon = acme_daemon:CHECK\n")
    (info / "RECORD").write_text("")


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def main() -> None:
    parser = argparse.ArgumentParser(description=textwrap.dedent(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    exe = shutil.which("torchdoctor") or str(Path(sys.executable).parent / "torchdoctor")
    with tempfile.TemporaryDirectory(prefix="torchdoctor-daemon-") as scratch:
        folder = Path(scratch)
        _plugin(folder)
        pidfile = folder / "daemon.pid"
        env = {**os.environ, "PYTHONPATH": str(folder), "DAEMON_PIDFILE": str(pidfile)}
        missed = 0
        for way in WAYS:
            running = 0
            for _ in range(args.runs):
                pidfile.unlink(missing_ok=True)
                subprocess.run(
                    [exe, "check", "--only", "acme.daemon"],
                    env={**env, "DAEMON_WAY": way},
                    capture_output=True,
                    timeout=120,
                    check=False,
                )
                deadline = time.monotonic() + 0.5
                while not pidfile.exists() and time.monotonic() < deadline:
                    time.sleep(0.02)
                text = pidfile.read_text() if pidfile.exists() else ""
                if text and _running(int(text)):
                    running += 1
                    os.kill(int(text), 9)
            missed += running
            print(f"the probe {way}: a daemon running after the check in {running} of {args.runs} runs")
        print("target (none running): " + ("met" if missed == 0 else "MISSED"))


if __name__ == "__main__":
    main()
