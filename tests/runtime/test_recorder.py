"""The recorder must not change the program: nothing set on tensors, no weak reference on a parameter or a
buffer (swap_tensors refuses them), the same results bit for bit, torch.compile and TorchScript untouched,
DataLoader workers left alone, and an error of its own switches it off while the program runs on."""

from __future__ import annotations

import io
import pickle
import sys
import weakref
from collections.abc import Iterator
from contextlib import redirect_stderr
from pathlib import Path
from typing import Any

import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, TensorDataset

from torchdoctor.runtime import recorder as recording
from torchdoctor.runtime.session import Options, Session, Watch

from run_support import run_script


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.register_buffer("mask", torch.ones(4))
        self.scale = torch.full((4,), 2.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x) * self.mask


@pytest.fixture
def watching() -> Iterator[Session]:
    """A session recording in this process (stderr captured), finished at the end of the test."""
    err = io.StringIO()
    session = Session(Options(), argv=["test"], err=err)
    session.start()
    assert session.recorder is not None and session.recorder.on
    try:
        yield session
    finally:
        session.finish(None, None)


def no_weak_references(module: nn.Module) -> bool:
    tensors = [*module.parameters(), *module.buffers()]
    return bool(tensors) and all(weakref.getweakrefcount(t) == 0 for t in tensors)


def test_parameters_and_buffers_get_no_weak_reference_and_swap_tensors_works(watching: Session) -> None:
    model = Net()
    assert no_weak_references(model)
    previous = torch.__future__.get_swap_module_params_on_conversion()
    torch.__future__.set_swap_module_params_on_conversion(True)
    try:
        model.to(torch.float64)  # swaps every parameter
        model.load_state_dict({k: v.clone() for k, v in model.state_dict().items()})  # swaps buffers too
    finally:
        torch.__future__.set_swap_module_params_on_conversion(previous)
    assert no_weak_references(model) and model.fc.weight.dtype == torch.float64
    recorder = watching.recorder
    record = recorder.modules.get(model)
    assert record is not None and "mask" in record.buffers  # where the buffer was made, kept by its module
    assert record.buffers["mask"].made_by == "torch.ones"


def test_nothing_is_set_on_a_tensor_and_pickles_are_the_same(watching: Session, tmp_path: Path) -> None:
    made = torch.zeros(3)
    moved = made.to(torch.float64)
    model = Net()
    assert made.__dict__ == {} and moved.__dict__ == {} and model.fc.weight.__dict__ == {}
    assert watching.recorder.tensors.get(moved) is not None
    torch.save({"made": made, "model": model.state_dict()}, tmp_path / "c.pt")
    loaded = torch.load(tmp_path / "c.pt")
    assert loaded["made"].__dict__ == {} and torch.equal(loaded["made"], made)
    assert pickle.loads(pickle.dumps(model.fc.weight)).__dict__ == {}


def test_the_training_loop_gives_the_same_weights_bit_for_bit(tmp_path: Path) -> None:
    runs = {}
    for name, options in (("plain", None), ("light", Options()), ("deep", Options(deep=True))):
        path = tmp_path / f"{name}.pt"
        ran = run_script(
            "train_loop.py", "--steps", "20", "--save", str(path), options=options, record=bool(options)
        )
        assert ran.code == 0, ran.stderr
        runs[name] = torch.load(path)
    for name in ("light", "deep"):
        for key, plain in runs["plain"].items():
            other = runs[name][key]
            assert plain.dtype == other.dtype and torch.equal(
                plain.view(torch.int32), other.view(torch.int32)
            )


def test_an_error_of_its_own_switches_the_recorder_off_and_the_program_runs_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(self: Any, frame: Any) -> None:
        raise ValueError("a bug in torchdoctor")

    monkeypatch.setattr(recording.Frames, "site", broken)
    ran = run_script("train_loop.py", "--steps", "3")
    assert ran.code == 0 and ran.stdout.startswith("loop_s ")
    assert (
        "torchdoctor switched its recorder off after an error of its own: ValueError: a bug in torchdoctor"
        in (ran.stderr)
    )
    assert ran.report.recorder == "failed" and "a bug in torchdoctor" in str(ran.report.recorder_failure)


def _compiles_whole(step: Any) -> bool:
    import torch._dynamo

    torch._dynamo.reset()
    result = torch.compile(step, backend="eager", fullgraph=True)(torch.ones(4))
    return torch.equal(result, torch.ones(4, dtype=torch.float64))


def test_torch_compile_traces_straight_through_before_during_and_after_a_recording() -> None:
    """fullgraph=True: a graph break would raise. torch.compile's map of torch's functions is built the
    first time it compiles; here it is built once while the wrappers stand in for torch.zeros, once
    before."""
    import torch._dynamo

    def step(x: torch.Tensor) -> torch.Tensor:
        return x.to(torch.float64) + torch.zeros(4, dtype=torch.float64)

    rules = torch._dynamo.trace_rules.get_torch_obj_rule_map
    rules.cache_clear()
    with Watch(Options()), redirect_stderr(io.StringIO()):
        assert _compiles_whole(step)  # the map built now lacks the builtin torch.zeros
    assert _compiles_whole(step)
    rules.cache_clear()
    assert _compiles_whole(step)  # the map built now lacks the wrapper
    with Watch(Options()), redirect_stderr(io.StringIO()):
        assert _compiles_whole(step)


# torch.jit.script warns that it is deprecated (2.13.0 with a DeprecationWarning, 2.14.1 a FutureWarning);
# programs still using it are what this tests
@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")
def test_torchscript_still_compiles_calls_to_the_factories(watching: Session) -> None:
    def shifted(x: torch.Tensor) -> torch.Tensor:
        return x + torch.zeros(3)

    scripted = torch.jit.script(shifted)
    assert torch.equal(scripted(torch.ones(3)), torch.ones(3))


class _Recording(Dataset[torch.Tensor]):
    """Says, from inside the worker process, whether a recorder is on there."""

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: int) -> torch.Tensor:
        return torch.tensor(float(any(r.on for r in list(recording._LIVE))))


def test_batches_are_tagged_with_the_loop_line_and_fork_workers_record_nothing(watching: Session) -> None:
    loader = DataLoader(TensorDataset(torch.randn(8, 2)), batch_size=4)
    for (batch,) in loader:  # the loop
        provenance = watching.recorder.tensors.get(batch)
        assert provenance is not None and provenance.made_by == recording.BATCH
        assert provenance.made.line == sys._getframe().f_lineno - 3
    if "fork" not in torch.multiprocessing.get_all_start_methods():
        pytest.skip("no fork on this platform")
    forked = DataLoader(_Recording(), batch_size=2, num_workers=1, multiprocessing_context="fork")
    assert [b.tolist() for b in forked] == [[0.0, 0.0]]
    assert _Recording()[0].item() == 1.0  # here, in the parent, it is on
    # A worker's batch is rebuilt here by torch.empty over shared memory: a batch all the same, not a tensor
    # the program made with torch.empty on the loop's line.
    for batch in forked:
        provenance = watching.recorder.tensors.get(batch)
        assert provenance is not None and provenance.made_by == recording.BATCH


def test_watch_explains_a_mismatch_and_raises_it_unchanged() -> None:
    err = io.StringIO()
    model = Net()
    with redirect_stderr(err), pytest.raises(RuntimeError) as raised, Watch(Options()) as watch:
        model.to("meta")
        model(torch.ones(2, 4, device="meta")) * model.scale
    assert str(raised.value) == "Tensor on device cpu is not on the expected device meta!"
    assert watch.report is not None
    (mismatch,) = [f for f in watch.report.findings if f.id == "device_mismatch"]
    (odd,) = [o for o in mismatch.operands if o.odd]
    assert odd.expression == "model.scale" and odd.notes[0].startswith("Net.scale, a plain attribute")
    assert "== torchdoctor run ==" in err.getvalue()
    assert not any(isinstance(p, recording.Patch) for p in vars(torch.Tensor).values())
    assert "to" not in vars(torch.Tensor)  # every wrapper is gone


def test_watch_is_a_decorator_and_nests() -> None:
    err = io.StringIO()
    inner = Watch(Options())

    @Watch(Options())
    def outer() -> int:
        with inner:
            return int(torch.ones(2).to(torch.float64).sum())

    with redirect_stderr(err):
        assert outer() == 2
    assert inner.report is None  # only the outermost watch records and reports
    assert err.getvalue().count("== torchdoctor run ==") == 1
