"""torchdoctor.memory_report(): the gpu.fragmentation verdict from inside a training process."""

from __future__ import annotations

import io
import json
import sys
import types
from typing import Any

import pytest
from rich.console import Console

import torchdoctor
from torchdoctor.model import Status
from torchdoctor.runtime import memory_report as memory_report_module

from support import CPU_MACHINE, FIXTURES, assert_valid, torch_here

MIB = 2**20


@CPU_MACHINE
def test_on_this_cpu_machine_it_runs_and_skips_with_the_reason() -> None:
    report = torchdoctor.memory_report()

    (verdict,) = report.verdicts
    assert verdict.id == "gpu.fragmentation"
    assert report.status is Status.SKIP
    assert verdict.summary.startswith("no allocator variable set; no allocator data: CUDA is not available")
    cuda = torch_here()["cuda"]
    assert ("a CPU-only build" if cuda is None else f"built for CUDA {cuda}") in verdict.summary
    assert_valid(report.to_json())
    assert report.to_json()["exit_code"] == 0


def test_it_prints_as_the_verdict_table_and_renders_with_rich() -> None:
    report = torchdoctor.memory_report()

    printed = str(report)
    console = Console(file=io.StringIO(), width=120, color_system=None)
    console.print(report)

    assert printed.startswith("torchdoctor ")
    assert "SKIP   gpu.fragmentation  no allocator variable set" in printed
    assert printed.rstrip().splitlines()[-1].startswith("no problems in 1 check (1 skipped)")
    assert "gpu.fragmentation" in console.file.getvalue()  # type: ignore[attr-defined]


def test_it_is_the_function_after_its_module_is_imported() -> None:
    first = torchdoctor.memory_report()
    again = torchdoctor.memory_report(device=None)

    assert torchdoctor.memory_report is memory_report_module.memory_report
    assert first.status is again.status is Status.SKIP


def test_a_bad_allocator_variable_fails_inside_the_job_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:Maybe")

    report = torchdoctor.memory_report()

    assert report.status is Status.FAIL
    assert report.verdicts[0].summary.startswith("expandable_segments must be True or False")
    assert report.to_json()["exit_code"] == 1


# -- a CUDA process: torch's allocator API answering with a recorded snapshot ----------------------


def cuda_torch(snapshot: dict[str, Any], stats: dict[int, dict[str, int]], initialized: bool = True) -> Any:
    """The parts of torch memory_report() reads, as a CUDA build in a job that has allocated answers them."""
    cuda = types.SimpleNamespace(
        is_available=lambda: True,
        is_initialized=lambda: initialized,
        device_count=lambda: len(stats),
        current_device=lambda: 0,
        memory_stats=lambda index: stats[index],
        get_allocator_backend=lambda: "native",
        memory=types.SimpleNamespace(_snapshot=lambda: snapshot),
        _utils=types.SimpleNamespace(
            _get_device_index=lambda device, optional=False: int(str(device).removeprefix("cuda:"))
        ),
    )
    return types.SimpleNamespace(
        __version__="2.13.0+cu129", version=types.SimpleNamespace(cuda="12.9"), cuda=cuda
    )


def recorded(name: str) -> dict[str, Any]:
    snapshot: dict[str, Any] = json.loads((FIXTURES / name).read_text())["snapshot"]
    return snapshot


def test_inside_a_job_it_judges_the_live_allocator(monkeypatch: pytest.MonkeyPatch) -> None:
    snapshot = recorded("v100_32gb_split_fragmented.json")
    stats = {
        0: {
            "num_alloc_retries": 7,
            "num_ooms": 1,
            "reserved_bytes.all.peak": 158 * 200 * MIB,
            "num_sync_all_streams": 7,
        },
        1: {"num_alloc_retries": 0, "num_ooms": 0, "reserved_bytes.all.peak": 0},
    }
    monkeypatch.setitem(sys.modules, "torch", cuda_torch(snapshot, stats))

    report = torchdoctor.memory_report()

    assert report.status is Status.FAIL
    verdict = report.verdicts[0]
    assert verdict.summary.startswith("cuda:0 ran out of memory asking for 50.0 MiB")
    assert any("7 cudaMalloc retries" in str(d) for d in verdict.details)
    assert any(str(d).startswith("from this process's allocator") for d in verdict.details)
    (device,) = report.facts["allocator"]["devices"]  # GPU 1 never allocated: not judged
    assert device["counters"]["num_alloc_retries"] == 7
    assert report.facts["allocator"]["backend"] == "native"
    assert_valid(report.to_json())


def test_a_device_can_be_named(monkeypatch: pytest.MonkeyPatch) -> None:
    stats = {0: {"reserved_bytes.all.peak": 1}, 1: {"num_alloc_retries": 2, "reserved_bytes.all.peak": 0}}
    monkeypatch.setitem(sys.modules, "torch", cuda_torch({"segments": [], "device_traces": []}, stats))

    report = memory_report_module.memory_report("cuda:1")

    (device,) = report.facts["allocator"]["devices"]
    assert device["device"] == 1
    assert report.status is Status.WARN
    assert report.verdicts[0].summary.startswith("cuda:1: 2 cudaMalloc retries")


def test_before_the_job_touches_the_gpu_it_skips_without_initialising_cuda(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "torch", cuda_torch({"segments": []}, {0: {}}, initialized=False))

    report = torchdoctor.memory_report()

    assert report.status is Status.SKIP
    assert "this process has not used CUDA yet" in report.verdicts[0].summary
