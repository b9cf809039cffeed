"""`torchdoctor.audit(module, *inputs)` on real modules; `meta` stands in for a second device here."""

from __future__ import annotations

import json

import pytest
import torch
from torch import nn

import torchdoctor
from torchdoctor.runtime.audit import AuditResult, audit


class WithUnregisteredTensor(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(4, 3)
        self.register_buffer("mean", torch.zeros(4))
        self.scale = torch.ones(3)  # a plain attribute: .to() leaves it behind

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(x - self.mean) * self.scale


class WithContainers(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(2, 2)
        self.anchors = [torch.zeros(2), torch.ones(2)]
        self.tables = {"pos": torch.arange(4.0), "nested": [torch.zeros(1)]}
        self.heads = [nn.Linear(2, 5)]  # not registered: no .to(), no .parameters(), no state_dict


class Split(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Linear(3, 4)
        self.head = nn.Linear(4, 2, device="meta")


def kinds(result: AuditResult) -> list[tuple[str, str]]:
    return [(p.kind, p.where) for p in result.problems]


def test_an_unregistered_tensor_attribute_is_flagged_and_really_stays_behind_on_to() -> None:
    model = WithUnregisteredTensor()
    result = audit(model)
    assert kinds(result) == [("unregistered_tensor", "scale")]
    problem = result.problems[0]
    assert "Module.to() does not move it" in problem.summary
    assert "self.register_buffer('scale', tensor) in WithUnregisteredTensor.__init__" in problem.fix
    # What the audit claims is what torch does: to() moves the buffer and not the attribute.
    model.to(torch.float64)
    assert model.mean.dtype == torch.float64
    assert model.scale.dtype == torch.float32


def test_parameters_and_buffers_are_listed_by_kind_device_and_dtype() -> None:
    result = audit(WithUnregisteredTensor())
    groups = {(g.kind, g.device, g.dtype): (g.count, g.numel, g.bytes) for g in result.groups}
    assert groups == {("parameter", "cpu", "float32"): (2, 15, 60), ("buffer", "cpu", "float32"): (1, 4, 16)}
    assert dict(result.devices) == {"cpu": ("linear", "(own tensors)")}


def test_tensors_in_plain_lists_and_dicts_and_unregistered_modules_are_flagged() -> None:
    result = audit(WithContainers())
    assert kinds(result) == [
        ("tensor_in_container", "anchors[0]"),
        ("tensor_in_container", "anchors[1]"),
        ("tensor_in_container", "tables['pos']"),
        ("tensor_in_container", "tables['nested'][0]"),
        ("module_in_container", "heads[0]"),
    ]
    module_problem = result.problems[-1]
    assert "a Linear inside a plain list (15 parameter elements)" in module_problem.summary
    assert module_problem.fix == "keep submodules in nn.ModuleList or nn.ModuleDict"


def test_a_module_split_across_devices_names_where_each_part_is() -> None:
    result = audit(Split())
    assert kinds(result) == [("split_devices", "Split")]
    problem = result.problems[0]
    assert problem.summary == "parameters and buffers are on 2 devices (cpu: encoder; meta: head)"
    assert "to_empty" in problem.fix


def test_inputs_on_another_device_than_the_parameters_are_flagged() -> None:
    batch = {"x": torch.zeros(8, 4, device="meta"), "ids": [torch.zeros(8, dtype=torch.long)]}
    result = audit(WithUnregisteredTensor(), batch)
    assert [(i.where, i.device, i.dtype, i.shape) for i in result.inputs] == [
        ("inputs[0]['x']", "meta", "float32", (8, 4)),
        ("inputs[0]['ids'][0]", "cpu", "int64", (8,)),
    ]
    assert ("input_device", "inputs[0]['x']") in kinds(result)
    assert ("input_device", "inputs[0]['ids'][0]") not in kinds(result)
    moved = next(p for p in result.problems if p.kind == "input_device")
    assert moved.summary == "on meta, the parameters on cpu"


def test_a_float64_input_to_a_float32_model_is_flagged() -> None:
    result = audit(nn.Linear(2, 2), torch.zeros(1, 2, dtype=torch.float64))
    assert kinds(result) == [("input_dtype", "inputs[0]")]
    # The audit warns about exactly what the forward pass then raises.
    with pytest.raises(RuntimeError, match="must have the same dtype"):
        nn.Linear(2, 2)(torch.zeros(1, 2, dtype=torch.float64))


def test_a_clean_model_passes_and_the_result_prints_and_converts_to_json() -> None:
    result = torchdoctor.audit(nn.Sequential(nn.Linear(2, 3), nn.ReLU()), torch.zeros(5, 2))
    assert result.ok and result.status == "pass"
    text = str(result)
    lines = text.splitlines()
    assert lines[0] == "torchdoctor.audit: Sequential, 2 parameter(s) and 0 buffer(s) on cpu; ok"
    assert lines[2].split() == ["tensors", "device", "dtype", "count", "elements", "size"]
    assert lines[3].split() == ["parameter", "cpu", "float32", "2", "9", "36", "B"]
    assert "inputs[0]  cpu     float32  (5, 2)" in text
    data = json.loads(json.dumps(result.to_json()))
    assert data["status"] == "pass"
    assert data["inputs"] == [{"where": "inputs[0]", "device": "cpu", "dtype": "float32", "shape": [5, 2]}]


def test_the_printed_table_lists_every_problem_with_its_fix() -> None:
    text = str(audit(WithContainers()))
    assert text.splitlines()[0].endswith("; 5 problems")
    assert "  ! heads[0]: a Linear inside a plain list" in text
    assert text.count("    fix: ") == 5


def test_torchdoctor_audit_is_the_function_however_the_module_was_imported() -> None:
    import torchdoctor.runtime.audit

    assert torchdoctor.audit is torchdoctor.runtime.audit.audit
    assert torchdoctor.audit(nn.Linear(1, 1)).ok


def test_something_else_than_a_module_is_a_clear_type_error() -> None:
    with pytest.raises(TypeError, match=r"audit\(\) needs a torch\.nn\.Module, not Tensor"):
        audit(torch.zeros(1))
