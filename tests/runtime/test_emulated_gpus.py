"""``torchdoctor run --gpus N``: scripts written for GPUs, unchanged, run on GPUs emulated on the CPU. A
correct one runs to the end with the CPU's values; a device mistake fails at its line with torch's own
message, and the doctor names it. Every fact here is read from the torch the tests run on."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from torchdoctor.runtime import launch
from torchdoctor.runtime.emulation import messages
from torchdoctor.runtime.session import Options, Session

from run_support import SCRIPTS, Ran, marked_line, run_script
from support import invoke


def gpus(n: int) -> Options:
    return Options(gpus=n)


def mismatch_of(ran: Ran) -> object:
    found = [f for f in ran.report.findings if f.id == "device_mismatch"]
    assert found, ran.stderr
    return found[0]


def test_a_training_script_runs_to_the_end_with_the_values_of_a_cpu_run() -> None:
    cpu = run_script("emulated_training.py", record=False)
    emulated = run_script("emulated_training.py", options=gpus(1))
    assert cpu.code == emulated.code == 0, emulated.stderr
    assert emulated.stdout == cpu.stdout and "epoch 1 loss" in cpu.stdout
    # Parameters, their gradients and the optimizer's state are on the GPU the model was moved to.
    assert "cuda:0 cuda:0 cuda:0" in emulated.stderr
    assert "cpu cpu cpu" in cpu.stderr
    assert "emulating 1 GPU (cuda:0) on the CPU" in emulated.stderr


def test_a_plain_tensor_attribute_fails_at_its_line_with_the_cuda_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DEMO_DEVICE", "cuda")
    ran = run_script("plain_attribute.py", options=gpus(1))
    assert ran.code == 1
    message = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
    assert ran.stderr.rstrip().endswith(f"RuntimeError: {message}")
    mismatch = mismatch_of(ran)
    assert mismatch.site.line == marked_line("plain_attribute.py", "fails")  # type: ignore[attr-defined]
    (odd,) = [o for o in mismatch.operands if o.odd]  # type: ignore[attr-defined]
    assert (odd.expression, odd.device) == ("self.scale", "cpu")
    assert "self.register_buffer('scale'" in str(mismatch.fix)  # type: ignore[attr-defined]


def test_a_discarded_to_leaves_the_tensor_on_the_cpu_and_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEMO_DEVICE", "cuda")
    ran = run_script("discarded_to.py", options=gpus(1))
    assert ran.code == 1
    mismatch = mismatch_of(ran)
    assert mismatch.site.line == marked_line("discarded_to.py", "fails")  # type: ignore[attr-defined]
    (odd,) = [o for o in mismatch.operands if o.odd]  # type: ignore[attr-defined]
    assert (odd.expression, odd.device) == ("y", "cpu")
    assert "y = y.to(DEVICE)" in str(mismatch.fix)  # type: ignore[attr-defined]


def test_a_gpu_beyond_the_machine_fails_as_cuda_does() -> None:
    ran = run_script("emulated_ordinal.py", options=gpus(2))
    assert ran.code == 1
    import torch

    kind = getattr(torch, "AcceleratorError", RuntimeError).__name__
    assert f"{kind}: CUDA error: invalid device ordinal" in ran.stderr
    assert f'emulated_ordinal.py", line {marked_line("emulated_ordinal.py", "beyond")}' in ran.stderr
    assert run_script("emulated_ordinal.py", options=gpus(3)).code == 0


def test_a_checkpoint_keeps_its_gpu_and_fails_to_load_where_that_gpu_is_missing(tmp_path: Path) -> None:
    path = str(tmp_path / "checkpoint.pt")
    assert run_script("emulated_checkpoint.py", "save", path, "cuda:1", options=gpus(2)).code == 0
    loaded = run_script("emulated_checkpoint.py", "load", path, options=gpus(2))
    assert loaded.code == 0 and loaded.stdout.strip() == "cuda:1"
    import torch

    # Saved on cuda:1: torch itself records the location, as it does on a GPU.
    with open(path, "rb") as f:
        assert b"cuda:1" in f.read()
    missing = run_script("emulated_checkpoint.py", "load", path, options=gpus(1))
    assert missing.code == 1
    assert (
        "Attempting to deserialize object on CUDA device 1 but torch.cuda.device_count() is 1. Please use "
        "torch.load with map_location to map your storages to an existing device."
    ) in missing.stderr
    found = [f for f in missing.report.findings if f.id == "checkpoint_device"]
    assert found and "saved on cuda:1" in found[0].summary
    assert not torch.cuda.is_available() or torch.version.cuda is not None


def test_module_mode_sees_the_gpus(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(SCRIPTS)
    program = launch.module("emulated_module", [])
    session = Session(gpus(2), argv=program.argv, module="emulated_module")
    session.start()
    code = launch.run(program, lambda error, code: session.finish(error, code), restore=True)
    assert code == 0
    assert capsys.readouterr().out.strip() == "2 cuda:0 True 4.0"


def test_the_message_of_a_checked_operation_names_its_argument() -> None:
    import torch

    from torchdoctor.runtime.emulation.devices import CPU, Machine
    from torchdoctor.runtime.emulation.placement import dispatch_mode

    machine = Machine(1)
    a, b, unknown = torch.ones(2, 2), torch.ones(2, 2), torch.ones(2, 2)
    machine.place(a, 0)
    machine.place(b, CPU)
    with dispatch_mode(torch, machine)():
        with pytest.raises(RuntimeError) as raised:
            torch.mm(a, b)
        assert (a * torch.tensor(2.0)).shape == (2, 2)  # a 0-dim CPU tensor is a scalar to CUDA
        with pytest.raises(RuntimeError, match=r"found at least two devices, cuda:0 and cpu!$"):
            _ = b * a  # TensorIterator names the GPU first, whatever the order of the operands
        # A tensor torch's C++ code made from nothing (a DDP bucket) is on the device of those it meets.
        assert machine.index_of(unknown.add_(a)) == 0
    assert str(raised.value) == (
        "Expected all tensors to be on the same device, but got mat2 is on cpu, different from other tensors "
        "on cuda:0 (when checking argument in method wrapper_CUDA_mm)"
    )
    assert "invalid device ordinal" in str(messages.invalid_ordinal())
    assert os.path.basename(sys.executable)


def test_a_gpu_count_out_of_range_is_refused_before_the_program_runs() -> None:
    refused = invoke("run", "--gpus", "0", str(SCRIPTS / "emulated_module.py"))
    assert refused.returncode == 2 and "--gpus takes 1 to 64 GPUs, not 0" in refused.stderr


def test_the_function_mode_places_results_and_hands_two_devices_to_the_operation_check() -> None:
    import torch

    from torchdoctor.runtime.emulation.devices import CPU, Machine
    from torchdoctor.runtime.emulation.placement import dispatch_mode, function_mode

    machine = Machine(2)
    weight = torch.nn.Parameter(torch.ones(3, 2))
    a, b, index = torch.ones(2, 3), torch.ones(2, 3), torch.tensor([0, 1])
    machine.place(weight, 1)
    machine.place(a, 1)
    machine.place(b, CPU)
    machine.place(index, CPU)
    with function_mode(torch, machine, dispatch_mode(torch, machine), [None])():
        out = torch.nn.functional.linear(a, weight.t())
        assert machine.index_of(out) == 1 and machine.index_of(out.sum()) == 1
        assert machine.index_of(a[index]) == 1  # a CPU index tensor indexes a GPU tensor
        assert machine.index_of(torch.zeros(2, device="cuda:0")) == 0
        assert machine.tag_of(torch.zeros(2, device="cpu")) == CPU
        # Two devices meet: the aten operation that refuses them says so in torch's words.
        with pytest.raises(RuntimeError) as raised:
            torch.nn.functional.linear(b, weight.t())
        assert str(raised.value) == (
            "Expected all tensors to be on the same device, but got mat2 is on cuda:1, different from other "
            "tensors on cpu (when checking argument in method wrapper_CUDA_mm)"
        )
        # A copy between devices is allowed, and its destination stays where it is.
        b.copy_(a)
        assert machine.tag_of(b) == CPU
        # autograd makes gradients in C++: each takes its parameter's device when the program reads it.
        (a @ weight).sum().backward()
        assert machine.index_of(weight.grad) == 1


def test_optimizer_state_follows_its_parameters_and_a_late_move_fails_as_on_gpus() -> None:
    resumed = run_script("optimizer_state_device.py", options=gpus(1))
    assert resumed.code == 0, resumed.stderr
    # Adam keeps its step count on the CPU and its moments on the parameter's device
    assert resumed.stdout.strip() == "cuda:0 cuda:0 cpu 2.0"
    late = run_script("optimizer_state_device.py", "--late", options=gpus(1))
    assert late.code == 1
    import torch

    two_devices = [[torch.empty(1)], [torch.empty(1, device="meta")]]
    try:  # torch's own words for two devices at one index, as its foreach optimizers raise them
        torch._C._group_tensors_by_device_and_dtype(two_devices, False)
    except RuntimeError as error:
        message = str(error)
    assert late.stderr.rstrip().endswith(f"RuntimeError: {message}")
    line = marked_line("optimizer_state_device.py", "steps")
    assert f'optimizer_state_device.py", line {line}' in late.stderr


def test_deep_mode_above_the_emulation_sees_the_same_program(monkeypatch: pytest.MonkeyPatch) -> None:
    # --deep's TorchFunctionMode sits above the emulation's and calls torch functions of its own first
    training = run_script("emulated_training.py", options=Options(gpus=1, deep=True))
    assert training.code == 0 and "epoch 1 loss" in training.stdout, training.stderr
    monkeypatch.setenv("DEMO_DEVICE", "cuda")
    ran = run_script("plain_attribute.py", options=Options(gpus=1, deep=True))
    assert ran.code == 1
    message = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
    assert ran.stderr.rstrip().endswith(f"RuntimeError: {message}")
    assert mismatch_of(ran).site.line == marked_line("plain_attribute.py", "fails")  # type: ignore[attr-defined]
