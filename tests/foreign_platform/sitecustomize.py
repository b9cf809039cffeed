"""A Linux process made to look like Windows or macOS to torchdoctor: ``TORCHDOCTOR_TEST_PLATFORM=win32`` or
``darwin``, with this folder on PYTHONPATH (every process torchdoctor starts inherits both).

What the other platform lacks is taken away: on both, ``/proc`` and ``/sys`` cannot be read by torchdoctor's
code, and there is no CPU affinity; a Windows-like process has no ``resource``, ``fcntl``, ``termios``,
``pwd`` or ``grp`` (imports fail), no ``fork``, sessions, process groups or uids in ``os``, and ``Popen``
takes Windows' ``creationflags`` (and ignores them). ``sys.platform`` and ``platform.system()`` say what
the other platform says. What torchdoctor does not own keeps running as on Linux: every other module is
imported with the real platform back in place (torch would load its DLLs on win32, click would import
msvcrt), and a probe worker and a DDP rank import torch before the platform changes, as they would import it
anyway; only torchdoctor's own modules are imported, and everything runs, as the other platform.
"""

from __future__ import annotations

import os
import sys

AS = os.environ.get("TORCHDOCTOR_TEST_PLATFORM")


def _install(target: str) -> None:
    import builtins
    import contextlib
    import ctypes
    import ctypes.util  # noqa: F401
    import importlib.abc
    import importlib.machinery
    import io
    import platform
    import selectors  # noqa: F401
    import shutil  # noqa: F401
    import socket  # noqa: F401
    import subprocess
    import tempfile  # noqa: F401
    import threading

    import psutil  # noqa: F401  (its Linux implementation, which reads /proc for itself)

    command = " ".join(getattr(sys, "orig_argv", []))
    if "torchdoctor.isolation.worker --warm" in command or "torchdoctor.checks.ddp.rank_program" in command:
        with contextlib.suppress(Exception):
            import torch

            if "rank_program" in command:
                import torch.distributed  # noqa: F401

    real_platform = sys.platform
    real_system = platform.system
    removed: dict[tuple[object, str], object] = {}
    blocked: dict[str, object] = {}
    names = ["sched_getaffinity", "sched_setaffinity", "pidfd_open"]
    if target == "win32":
        names += ["fork", "forkpty", "setsid", "killpg", "getpgid", "setpgrp", "getuid", "geteuid", "getgid"]
        names += ["pread", "pwrite", "register_at_fork", "fchmod", "fchown", "getloadavg"]
        for module in ("resource", "fcntl", "termios", "pwd", "grp"):
            blocked[module] = sys.modules.get(module)
    for name in names:
        if hasattr(os, name):
            removed[(os, name)] = getattr(os, name)

    state = {"real": 0}
    lock = threading.RLock()

    def fake() -> None:
        sys.platform = target
        platform.system = (lambda: "Windows") if target == "win32" else (lambda: "Darwin")  # type: ignore[assignment]
        for owner, name in removed:
            with contextlib.suppress(AttributeError):
                delattr(owner, name)
        for module in blocked:
            sys.modules[module] = None  # type: ignore[assignment]

    def real() -> None:
        sys.platform = real_platform
        platform.system = real_system  # type: ignore[assignment]
        for (owner, name), value in removed.items():
            setattr(owner, name, value)
        for module, value in blocked.items():
            if value is None:
                sys.modules.pop(module, None)
            else:
                sys.modules[module] = value

    @contextlib.contextmanager
    def as_linux():  # type: ignore[no-untyped-def]
        with lock:
            state["real"] += 1
            if state["real"] == 1:
                real()
            try:
                yield
            finally:
                state["real"] -= 1
                if state["real"] == 0:
                    fake()

    class RealLoader(importlib.abc.Loader):
        def __init__(self, inner: importlib.abc.Loader) -> None:
            self.inner = inner

        def create_module(self, spec):  # type: ignore[no-untyped-def]
            with as_linux():
                return self.inner.create_module(spec)

        def exec_module(self, module):  # type: ignore[no-untyped-def]
            with as_linux():
                self.inner.exec_module(module)

        def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
            return getattr(self.inner, name)

    class OthersAsLinux(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):  # type: ignore[no-untyped-def]
            if name.partition(".")[0] == "torchdoctor":
                return None
            spec = importlib.machinery.PathFinder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = RealLoader(spec.loader)  # type: ignore[assignment]
            return spec

    sys.meta_path.insert(0, OthersAsLinux())

    # /proc and /sys, unreadable to torchdoctor's own code (psutil and torch still read them).
    skipped = ("pathlib", "io", "os", "posixpath", "genericpath", "contextlib", "fnmatch", "glob", "codecs")

    def refused(path: object) -> bool:
        try:
            text = os.fsdecode(os.fspath(path))  # type: ignore[arg-type]
        except TypeError:
            return False
        if not text.startswith(("/proc", "/sys")):
            return False
        frame = sys._getframe(2)
        while frame is not None:
            module = str(frame.f_globals.get("__name__", ""))
            if module.partition(".")[0] not in skipped and frame.f_code.co_filename != __file__:
                return module.startswith("torchdoctor")
            frame = frame.f_back  # type: ignore[assignment]
        return False

    def guard(function):  # type: ignore[no-untyped-def]
        def guarded(path, *args, **kwargs):  # type: ignore[no-untyped-def]
            if refused(path):
                raise FileNotFoundError(2, f"No such file or directory ({target} has none)", str(path))
            return function(path, *args, **kwargs)

        return guarded

    builtins.open = io.open = guard(io.open)  # type: ignore[assignment]
    for name in ("open", "readlink", "listdir", "scandir", "stat"):
        setattr(os, name, guard(getattr(os, name)))

    # Popen with Windows' own arguments (the POSIX implementation refuses creationflags).
    popen_init = subprocess.Popen.__init__

    def init(self, *args, creationflags: int = 0, **kwargs):  # type: ignore[no-untyped-def]
        popen_init(self, *args, **kwargs)

    subprocess.Popen.__init__ = init  # type: ignore[method-assign]
    if target == "win32":
        subprocess.CREATE_NEW_PROCESS_GROUP = 0x200  # type: ignore[attr-defined]
        platform.release = lambda: "10"  # type: ignore[assignment]
        platform.version = lambda: "10.0.22631"  # type: ignore[assignment]
    else:
        platform.mac_ver = lambda release="", versioninfo=("", "", ""), machine="": (  # type: ignore[assignment]
            os.environ.get("TORCHDOCTOR_TEST_MACOS", "14.5"),
            ("", "", ""),
            "arm64",
        )
    fake()


if AS in ("win32", "darwin"):
    _install(AS)
