"""Telling user code from torch's and the standard library's, a call whose result is thrown away, the
failing expression of a frame, and the identity table that holds no tensor alive."""

from __future__ import annotations

import gc
import json
import os
import sys
import sysconfig
import weakref

import pytest
import torch

from torchdoctor.runtime import expressions
from torchdoctor.runtime.sites import Frames, result_discarded
from torchdoctor.runtime.table import IdTable


def test_torch_the_standard_library_and_torchdoctor_are_not_user_code() -> None:
    frames = Frames(
        [os.path.dirname(str(torch.__file__)), os.path.dirname(os.path.dirname(expressions.__file__))]
    )
    assert not frames.is_user(str(torch.nn.modules.module.__file__))
    assert not frames.is_user(str(json.__file__))
    assert not frames.is_user(str(expressions.__file__))
    assert not frames.is_user("<frozen runpy>")
    assert frames.is_user(__file__) and frames.is_user("<stdin>")
    site_packages = sysconfig.get_paths()["purelib"]
    assert frames.is_user(os.path.join(site_packages, "transformers", "modeling_utils.py"))


class _Probe:
    def to(self, *args: object) -> bool:
        return result_discarded(sys._getframe(1))


def test_a_call_on_a_line_of_its_own_throws_its_result_away() -> None:
    probe = _Probe()
    kept = probe.to("cuda")
    assert kept is False
    assert [probe.to("cuda")][0] is False
    seen = []
    probe.to = lambda *a: seen.append(result_discarded(sys._getframe(1)))  # type: ignore[method-assign]
    probe.to("cuda")
    assert seen == [True]


def _fails(scale: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        y = x + 1
        return (
            y * scale  # the failing operation
        )


def test_the_failing_expression_and_its_operands_are_read_without_running_anything() -> None:
    with pytest.raises(RuntimeError) as raised:
        _fails(torch.ones(3), torch.ones(3, device="meta"))
    tb = raised.value.__traceback__
    while tb is not None and tb.tb_frame.f_code is not _fails.__code__:
        tb = tb.tb_next
    assert tb is not None
    node = expressions.failing_node(tb.tb_frame, tb.tb_lasti, tb.tb_lineno)
    assert node is not None
    assert "y * scale" in expressions.text(node)  # the expression itself (the statement before 3.11)
    reader = expressions.Reader(
        tb.tb_frame, lambda v: isinstance(v, torch.Tensor), lambda v: False, lambda v: False
    )
    parts = reader.parts(node)
    assert [p.expression for p in parts] == ["y", "scale"]
    assert [str(value.device) for p in parts for _, value in p.leaves] == ["meta", "cpu"]


class _Sneaky:
    calls = 0

    @property
    def weight(self) -> int:
        _Sneaky.calls += 1
        return 1


def test_reading_an_operand_never_runs_a_property() -> None:
    assert expressions.static_attribute(_Sneaky(), "weight") is not None
    assert _Sneaky.calls == 0
    module = torch.nn.Linear(2, 2)
    assert expressions.static_attribute(module, "weight") is module.weight


def test_the_table_holds_no_object_alive_and_leaves_no_reference_behind() -> None:
    table: IdTable[str] = IdTable()
    kept = torch.zeros(2)
    dropped = torch.zeros(2)
    assert table.put(kept, "kept") and table.put(dropped, "dropped")
    assert weakref.getweakrefcount(kept) == 1
    ref = weakref.ref(dropped)
    del dropped
    gc.collect()
    assert ref() is None and len(table) == 1
    assert table.pop(kept) == "kept" and weakref.getweakrefcount(kept) == 0
    assert table.get(kept) is None and not table.put(1, "no weak reference to an int")
