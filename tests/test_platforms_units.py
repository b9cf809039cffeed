"""What each guarded facility does on the platform that lacks it, in this process: ``sys.platform`` and the
facility swapped for the test (the whole process made foreign is tests/test_platforms.py)."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any

import pytest

from torchdoctor.checks.ddp import dryrun_probe, portlock
from torchdoctor.checks.install import libraries_judge, libraries_probe
from torchdoctor.checks.install.build_check import CHECK as BUILD
from torchdoctor.checks.probes import torch_probe
from torchdoctor.checks.transfer import bandwidth_probe, pinned_judge
from torchdoctor.inputs import collect_env
from torchdoctor.isolation import lifeline, processes, zygote
from torchdoctor.model import Status
from torchdoctor.output import redact

from support import fixture_facts


class FakeMsvcrt(types.ModuleType):
    """``msvcrt.locking`` as Windows does it: a byte range locked without waiting, refused while held."""

    LK_NBLCK = 2
    LK_UNLCK = 0

    def __init__(self) -> None:
        super().__init__("msvcrt")
        self.held: set[tuple[int, int]] = set()

    def locking(self, fd: int, mode: int, nbytes: int) -> None:
        key = (os.fstat(fd).st_ino, os.lseek(fd, 0, os.SEEK_CUR))
        if mode == self.LK_UNLCK:
            self.held.discard(key)
        elif key in self.held:
            raise OSError(errno.EACCES, "Permission denied")
        else:
            self.held.add(key)


@pytest.fixture
def windows(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> FakeMsvcrt:
    msvcrt = FakeMsvcrt()
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setitem(sys.modules, "msvcrt", msvcrt)
    monkeypatch.setitem(sys.modules, "fcntl", None)
    monkeypatch.setattr(redact, "system_user", lambda: "DOMAIN user")
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    return msvcrt


def test_the_windows_port_lock_names_its_holder_and_is_released(windows: FakeMsvcrt, tmp_path: Path) -> None:
    assert portlock.lock_folder() == str(tmp_path / "torchdoctor-DOMAIN_user")
    with portlock.hold(29600) as first:
        assert first is None  # held by this run
        with portlock.hold(29600) as second:
            assert second == os.getpid()  # the pid written before the locked byte
        assert (
            (tmp_path / "torchdoctor-DOMAIN_user" / "master-port-29600.lock")
            .read_bytes()
            .startswith(str(os.getpid()).encode())
        )
    assert not windows.held
    with portlock.hold(29600) as again:
        assert again is None


def test_without_a_lock_to_take_the_dry_run_goes_on_unlocked(windows: FakeMsvcrt, monkeypatch: Any) -> None:
    monkeypatch.setitem(sys.modules, "msvcrt", None)
    with portlock.hold(29601) as holder:
        assert holder is None
    monkeypatch.setattr(redact, "system_user", lambda: None)
    with portlock.hold(29601) as holder:
        assert holder is None


def test_a_windows_account_name_comes_from_the_system_not_the_environment(monkeypatch: Any) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(os, "getlogin", lambda: "alice")
    monkeypatch.setenv("USERNAME", "mallory")
    assert redact.system_user() == "alice"


def test_a_child_tree_is_killed_through_psutil_on_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    proc = subprocess.Popen(["sh", "-c", "sleep 60 & sleep 60"], start_new_session=True)
    try:
        deadline = time.monotonic() + 10
        while not processes.descendants(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        children = processes.descendants(proc.pid)
        assert children
        monkeypatch.setattr(sys, "platform", "win32")
        monkeypatch.setattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0x200, raising=False)
        assert processes.own_group() == {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}
        processes.kill_group(proc)
        assert proc.wait(timeout=10) != 0
        for child in children:
            child.wait(timeout=10)
    finally:
        proc.kill()
        proc.wait()


def test_a_windows_parent_is_watched_by_its_start_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    assert lifeline._parent_watch(os.getpid())()
    parent = subprocess.Popen(["sleep", "60"])
    alive = lifeline._parent_watch(parent.pid)
    assert alive()
    parent.kill()
    parent.wait()
    assert not alive()  # Windows keeps the dead parent's pid as this process's parent: psutil tells
    assert not lifeline._parent_watch(parent.pid)()


def test_only_linux_forks_torch_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    for platform in ("darwin", "win32"):
        monkeypatch.setattr(sys, "platform", platform)
        assert zygote.why_not_fork() == "forking a torch process needs Linux"


def test_no_rlimit_and_no_affinity_are_facts_not_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setitem(sys.modules, "resource", None)
    assert bandwidth_probe.memlock_limit() is None
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    assert bandwidth_probe.allowed_cpus() == set(range(os.cpu_count() or 1))
    assert bandwidth_probe.bind_to({0}) is False


def test_a_pin_failure_on_windows_names_no_ulimit() -> None:
    finding = pinned_judge._pin_failure("cuda:0", {"error": "out of memory"}, None)
    assert finding.status is Status.FAIL
    assert "no locked-memory limit" in " ".join(finding.details)
    assert finding.fix is not None and not finding.fix.commands


def test_windows_gpus_run_the_dry_run_with_gloo(monkeypatch: pytest.MonkeyPatch) -> None:
    assert dryrun_probe.default_backend(2) == ("nccl", "gpus")
    monkeypatch.setattr(sys, "platform", "win32")
    assert dryrun_probe.default_backend(2) == ("gloo", "windows")
    assert dryrun_probe.default_backend(0) == ("gloo", "cpu")


@pytest.mark.parametrize(
    ("name", "base", "family"),
    [
        ("libomp.dylib", "libomp", "openmp"),
        ("libcudnn.9.dylib", "libcudnn", "cudnn"),
        ("cudart64_12.dll", "libcudart", "cudart"),
        ("cublasLt64_12.dll", "libcublasLt", "cublas"),
        ("cudnn_ops64_9.dll", "libcudnn_ops", "cudnn"),
        ("nvrtc-builtins64_128.dll", "libnvrtc-builtins", "nvrtc"),
        ("libiomp5md.dll", "libiomp5", "openmp"),
        ("vcomp140.dll", "libvcomp", "openmp"),
        ("torch_cpu.dll", "libtorch_cpu", None),
    ],
)
def test_macos_and_windows_library_names(name: str, base: str, family: str | None) -> None:
    parsed = libraries_probe.library_base(name)
    assert parsed is not None and parsed[0] == base
    assert libraries_probe.family_of(base) == family


class _Function:
    def __init__(self, body: Any) -> None:
        self.body = body
        self.restype: Any = None
        self.argtypes: Any = None

    def __call__(self, *args: Any) -> Any:
        return self.body(*args)


def test_macos_reads_the_loaded_libraries_from_dyld(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    torch_lib = tmp_path / "site-packages" / "torch" / "lib"
    torch_lib.mkdir(parents=True)
    (torch_lib / "libomp.dylib").write_bytes(b"")
    images = [b"/usr/lib/dyld", str(torch_lib / "libomp.dylib").encode(), b"/opt/homebrew/lib/libomp.dylib"]
    loader = types.SimpleNamespace(
        _dyld_image_count=_Function(lambda: len(images)),
        _dyld_get_image_name=_Function(lambda index: images[index]),
    )
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setattr("ctypes.CDLL", lambda name, *args, **kwargs: loader)
    source, paths, why_not = libraries_probe.loaded_files()
    assert (source, why_not) == ("dyld", None)
    assert paths == [image.decode() for image in images]
    assert paths is not None
    libs: dict[str, Any] = {
        "platform": "darwin",
        "libraries": libraries_probe.libraries_of_interest(paths),
        "wheel_files": libraries_probe.wheel_files(torch_lib.parent, "2.13.0", {"libomp"}),
    }
    assert [lib["path"] for lib in libs["libraries"]] == paths[1:]
    found = libraries_judge.findings(libs)
    assert any("2 copies of libomp" in finding.summary for finding in found)
    assert any("/opt/homebrew/lib" in finding.summary for finding in found)  # not torch's own libomp
    for finding in found:
        assert finding.fix is not None and finding.fix.commands[0].startswith("DYLD_PRINT_LIBRARIES=1")
    assert "DYLD_LIBRARY_PATH" in " ".join(f.fix.text for f in found if f.fix)


def test_without_a_dyld_image_list_the_platform_cannot_tell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setattr("ctypes.CDLL", lambda *args, **kwargs: types.SimpleNamespace())
    _, paths, why_not = libraries_probe.loaded_files()
    assert paths is None and why_not is not None and why_not.startswith("this platform cannot tell")


MACOS_13_DUMP = """Collecting environment information...
PyTorch version: 2.9.0
Is debug build: False
CUDA used to build PyTorch: None
ROCM used to build PyTorch: N/A

OS: macOS 13.6.7 (arm64)
GCC version: Could not collect
Clang version: 15.0.0 (clang-1500.3.9.4)
CMake version: Could not collect
Libc version: N/A

Python version: 3.12.4 (main, Jun  6 2024, 18:26:44) [Clang 15.0.0 (clang-1500.3.9.4)] (64-bit runtime)
Python platform: macOS-13.6.7-arm64-arm-64bit
Is CUDA available: False
"""


class _FakeTorch:
    """What the torch probe asks of MPS, as torch on a Mac answers."""

    def __init__(self, available: bool) -> None:
        mps = types.SimpleNamespace(is_built=lambda: True, is_available=lambda: available)
        self.backends = types.SimpleNamespace(mps=mps)


def _live_mps(monkeypatch: pytest.MonkeyPatch, macos: str, available: bool, fallback: str | None) -> Any:
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setattr("platform.mac_ver", lambda *args: (macos, ("", "", ""), "arm64"))
    monkeypatch.setattr("platform.machine", lambda: "arm64")
    monkeypatch.setattr(torch_probe, "_rosetta", lambda: False)
    if fallback is None:
        monkeypatch.delenv(torch_probe.MPS_FALLBACK, raising=False)
    else:
        monkeypatch.setenv(torch_probe.MPS_FALLBACK, fallback)
    return torch_probe._mps(_FakeTorch(available))


def _judged_with_mps(mps: dict[str, Any]) -> Any:
    facts = fixture_facts("macbook_m1_macos13_torch29.json")
    facts["torch"]["mps"] = mps
    return BUILD.judge({p.name: facts[p.name] for p in BUILD.probes}, {})


def test_mps_judged_live_is_judged_as_the_dump_reader_judges_it(monkeypatch: pytest.MonkeyPatch) -> None:
    dump = collect_env.find(MACOS_13_DUMP)
    assert dump is not None
    from_dump = dump.to_report("x")["facts"]["torch"]["mps"]
    live = _live_mps(monkeypatch, "13.6.7", available=False, fallback=None)
    # the same facts under the same keys; only a live probe can say whether MPS is available
    assert {k: live[k] for k in from_dump} == from_dump
    assert live["available"] is False and live["fallback"] is None
    by_dump, by_probe = _judged_with_mps(from_dump), _judged_with_mps(live)
    for verdict in (by_dump, by_probe):
        assert verdict.status is Status.WARN
        assert "14.0" in verdict.summary and "torch 2.9" in verdict.summary
        assert verdict.fix is not None and "Update to macOS 14.0 or newer" in verdict.fix.text
    assert by_dump.fix == by_probe.fix
    assert "PYTORCH_ENABLE_MPS_FALLBACK unset" in " ".join(map(str, by_probe.details))


def test_mps_available_on_a_new_enough_mac_passes_and_says_the_fallback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    live = _live_mps(monkeypatch, "14.5", available=True, fallback="1")
    verdict = _judged_with_mps(live)
    assert verdict.status is Status.PASS and "MPS available" in verdict.summary
    details = " ".join(map(str, verdict.details))
    assert "macOS 14.5; torch 2.9's MPS needs macOS 14.0 or newer" in details
    assert "PYTORCH_ENABLE_MPS_FALLBACK=1: an operator MPS lacks runs on the CPU" in details
