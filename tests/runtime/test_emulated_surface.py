"""What a program reaches of ``torch.cuda`` and its neighbours on GPUs emulated on the CPU, and the honest
edges. The emulator is installed into this process's torch for each test and taken out after it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from torchdoctor.runtime.emulation import edges
from torchdoctor.runtime.emulation.emulator import Emulator
from torchdoctor.runtime.session import Options

from run_support import marked_line, run_script


@pytest.fixture
def gpus() -> Iterator[tuple[Any, list[list[str]]]]:
    import torch

    said: list[list[str]] = []
    emulator = Emulator(torch, 2, said.append)
    emulator.install()
    try:
        yield torch, said
    finally:
        emulator.uninstall()
    assert not torch.cuda.is_available() or torch.version.cuda is not None  # taken out again


def test_devices_and_the_current_one(gpus: tuple[Any, list[list[str]]]) -> None:
    torch, _ = gpus
    assert torch.cuda.is_available() and torch.cuda.device_count() == 2
    assert torch.cuda.get_device_properties(1).total_memory > 0 and torch.cuda.get_device_name(0)
    assert torch.ones(1, device="cuda").device == torch.device("cuda", 0)
    torch.cuda.set_device(1)
    assert torch.cuda.current_device() == 1 and torch.ones(1).cuda().get_device() == 1
    with torch.cuda.device(0):
        assert torch.zeros(1, device="cuda").device.index == 0
    assert torch.cuda.current_device() == 1
    with pytest.raises(RuntimeError, match="CUDA error: invalid device ordinal"):
        torch.cuda.set_device(2)
    with pytest.raises(AssertionError, match="Invalid device id"):
        torch.cuda.get_device_properties(2)
    assert torch.backends.cudnn.is_available()
    generator = torch.Generator(device="cuda").manual_seed(0)
    expected = torch.randn(3, generator=torch.Generator().manual_seed(0))
    assert generator.device.type == "cuda" and isinstance(torch.default_generator, torch.Generator)
    assert torch.equal(torch.randn(3, device="cuda", generator=generator).cpu(), expected)


def test_moves_copy_and_a_discarded_move_leaves_the_original(gpus: tuple[Any, list[list[str]]]) -> None:
    torch, _ = gpus
    x = torch.arange(4.0)
    y = x.to("cuda:1")
    assert x.device.type == "cpu" and not x.is_cuda and y.is_cuda and y.device.index == 1
    assert y.cpu().device.type == "cpu" and y.to(y) is y and y.to(torch.float16).device == y.device
    assert y.tolist() == [0.0, 1.0, 2.0, 3.0] and float(y.sum().item()) == 6.0
    with pytest.raises(TypeError, match="can't convert cuda:1 device type tensor to numpy"):
        y.numpy()
    with pytest.raises(RuntimeError, match="found at least two devices, cuda:1 and cpu!"):
        _ = y + x
    assert (y[torch.tensor([0, 2])]).device.index == 1  # CPU indices index a GPU tensor
    legacy = x.type(torch.cuda.DoubleTensor)
    assert legacy.type() == "torch.cuda.DoubleTensor" and x.type() == "torch.FloatTensor"
    parameter = torch.nn.Parameter(torch.ones(2, device="cuda:1"))
    assert parameter.device.index == 1 and parameter.data.device.index == 1


def test_streams_events_memory_and_pinning(gpus: tuple[Any, list[list[str]]]) -> None:
    torch, _ = gpus
    stream, start, end = torch.cuda.Stream(), torch.cuda.Event(enable_timing=True), torch.cuda.Event(True)
    start.record()
    with torch.cuda.stream(stream):
        x = torch.ones(1024, device="cuda")
    stream.synchronize()
    end.record()
    torch.cuda.synchronize()
    assert end.elapsed_time(start) <= 0 <= start.elapsed_time(end)
    assert torch.cuda.memory_allocated(0) >= 4096 and torch.cuda.memory_allocated(1) == 0
    free, total = torch.cuda.mem_get_info()
    assert free <= total - 4096
    del x
    assert torch.cuda.memory_allocated(0) == 0
    assert "cuda:0: 0 bytes" in torch.cuda.memory_summary()
    with torch.cuda.nvtx.range("step"):
        assert torch.cuda.nvtx.range_push("inner") == 1 and torch.cuda.nvtx.range_pop() == 1
    host = torch.ones(4)
    pinned = host.pin_memory()
    assert pinned.is_pinned() and not host.is_pinned() and pinned.device.type == "cpu"


def test_autocast_on_cuda_runs_as_cpu_autocast_with_the_same_dtype(gpus: tuple[Any, list[list[str]]]) -> None:
    torch, _ = gpus
    a = torch.ones(4, 4, device="cuda")
    with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
        assert (a @ a).dtype == torch.bfloat16 and (a @ a).is_cuda


def test_layers_take_their_cpu_paths_and_name_arguments_as_on_a_gpu(
    gpus: tuple[Any, list[list[str]]], recwarn: pytest.WarningsRecorder
) -> None:
    torch, _ = gpus
    lstm = torch.nn.LSTM(4, 2, batch_first=True).to("cuda")
    assert lstm(torch.randn(1, 3, 4, device="cuda"))[0].is_cuda
    assert not [w for w in recwarn if "cuDNN" in str(w.message)]  # no cuDNN path is tried
    embedding = torch.nn.Embedding(10, 4).to("cuda")
    with pytest.raises(RuntimeError) as raised:
        embedding(torch.tensor([1, 2]))
    assert str(raised.value) == (
        "Expected all tensors to be on the same device, but got index is on cpu, different from other "
        "tensors on cuda:0 (when checking argument in method wrapper_CUDA__index_select)"
    )
    scaler, layer = torch.amp.GradScaler("cuda"), torch.nn.Linear(4, 2).to("cuda")
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.1)
    with torch.autocast("cuda"):
        loss = layer(torch.randn(3, 4, device="cuda")).float().sum()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    assert scaler.get_scale() > 0


def test_gradients_and_optimizer_state_take_their_parameter_device(gpus: tuple[Any, list[list[str]]]) -> None:
    torch, _ = gpus
    model = torch.nn.Linear(3, 1).to("cuda:1")
    optimizer = torch.optim.AdamW(model.parameters())
    model(torch.randn(2, 3, device="cuda:1")).sum().backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    assert model.weight.grad.device.index == 1
    assert {str(v.device) for v in optimizer.state[model.weight].values() if v.dim()} == {"cuda:1"}
    (gradient,) = torch.autograd.grad(model(torch.ones(1, 3, device="cuda:1")).sum(), [model.bias])
    assert gradient.device.index == 1


def test_the_edges_are_said_or_refused(gpus: tuple[Any, list[list[str]]]) -> None:
    torch, said = gpus

    def double(x: Any) -> Any:
        return x * 2

    compiled = torch.compile(double)
    assert compiled is double and said.count([edges.COMPILE]) == 1
    torch.compile(double)
    assert said.count([edges.COMPILE]) == 1  # once
    import torch.utils.cpp_extension as extension

    with pytest.raises(RuntimeError, match="custom CUDA extension cannot run on an emulated GPU"):
        extension.load_inline("x", cpp_sources="")


def test_non_blocking_from_pageable_memory_is_named() -> None:
    ran = run_script("pageable_non_blocking.py", options=Options(gpus=1))
    assert ran.code == 0, ran.stderr
    lines = {f.site.line for f in ran.report.findings if f.id == "non_blocking_pageable" and f.site}
    assert lines == {marked_line("pageable_non_blocking.py", "pageable")}


def test_watch_emulates_gpus_for_its_block(capsys: pytest.CaptureFixture[str]) -> None:
    import torch

    import torchdoctor

    with torchdoctor.watch(gpus=2):
        assert torch.cuda.device_count() == 2
        assert torch.ones(1, device="cuda:1").device == torch.device("cuda", 1)
    assert "emulating 2 GPUs (cuda:0 to cuda:1) on the CPU" in capsys.readouterr().err
    assert torch.ones(1).device.type == "cpu"


def test_a_default_device_and_legacy_constructors_place_as_on_gpus(gpus: tuple[Any, list[list[str]]]) -> None:
    torch, _ = gpus
    torch.set_default_device("cuda:1")
    try:
        assert torch.zeros(2).device == torch.device("cuda", 1) and torch.get_default_device().index == 1
        assert torch.nn.Linear(2, 2).weight.device.index == 1
        assert torch.zeros(2, device="cpu").device.type == "cpu"
    finally:
        torch.set_default_device(None)
    with torch.device("cuda"):
        assert torch.ones(1).device == torch.device("cuda", 0)
    assert torch.ones(1).device.type == "cpu"
    # torch.Tensor(...) and torch.FloatTensor(...) make CPU tensors, which CUDA refuses beside a GPU's
    gpu = torch.ones(2, device="cuda")
    for legacy in (torch.Tensor(2), torch.FloatTensor([1.0, 2.0])):
        with pytest.raises(RuntimeError, match="found at least two devices, cuda:0 and cpu!"):
            _ = legacy * gpu
    assert isinstance(torch.ones(1), torch.FloatTensor) and not isinstance(torch.ones(1), torch.LongTensor)
    assert torch.ones(1).type(torch.DoubleTensor).dtype == torch.float64
    # Module.to(device=...) by keyword moves the module
    assert torch.nn.Linear(1, 1).to(device=torch.device("cuda", 1)).weight.device.index == 1
