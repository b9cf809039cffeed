"""Duck typing of parameters for TDL001: a parameter used as only a tensor can be is a tensor."""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Callable

import pytest

from torchdoctor.lint.evidence import usages
from torchdoctor.lint.imports import ImportTable

Lint = Callable[..., list[tuple[str, int]]]  # the `lint` fixture of conftest.py


def usage_of(code: str, name: str) -> tuple[int, int]:
    tree = ast.parse(textwrap.dedent(code))
    imports = ImportTable()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            imports.add(node)
    found = usages(tree, imports).get(name)
    return (found.tensor_uses, found.other_uses) if found else (0, 0)


@pytest.mark.parametrize(
    ("code", "counts"),
    [
        ("x.shape", (1, 0)),
        ("x[:, 0]", (1, 0)),
        ("y = x - 1", (1, 0)),
        ("import torch\ntorch.is_tensor(x)", (1, 0)),
        ("import torch\nisinstance(x, torch.Tensor)", (1, 0)),
        ("x.to(device)\nx.float()", (0, 0)),  # modules have these too
        ("x['input_ids']", (0, 0)),
        ("x(1)", (0, 1)),
        ("x.parameters()", (0, 1)),
        ("x.fc", (0, 1)),
        ("x.log('loss', 1)", (0, 0)),  # a logger, or Tensor.log: no evidence either way
    ],
)
def test_usages(code: str, counts: tuple[int, int]) -> None:
    assert usage_of(code, "x") == counts


@pytest.mark.parametrize(
    "function",
    [
        "def f(x, device):\n    x.to(device)\n    return x.unsqueeze(0)",
        "def f(labels, device):\n    k = labels.shape[1]\n    labels.cuda()",
        "def f(a, b):\n    a.cuda()\n    return a - b",
        "def f(x, device):\n    if x.ndimension() == 1:\n        x = x[None, :]\n    x.to(device)",
        "import torch\ndef f(x, d):\n    if torch.is_tensor(x):\n        x.to(d)",
    ],
)
def test_tdl001_flags_a_parameter_used_as_a_tensor(lint: Lint, function: str) -> None:
    found = lint(function, {"TDL001"})
    assert [rule for rule, _ in found] == ["TDL001"]


@pytest.mark.parametrize(
    "function",
    [
        "def f(model, device):\n    model.to(device)",  # no evidence: a module, most likely
        "def f(model, device):\n    model.to(device)\n    return model(x).shape",  # called: a module
        "def f(model, x):\n    model.cuda()\n    model.eval()\n    return model[0]",
        "def f(enc, d):\n    enc.to(d)\n    return enc.input_ids[:, 0]",  # a BatchEncoding
        "def f(d):\n    x = Results()\n    x.cpu()\n    return x - 1",  # bound to an object
        "def f(x: 'Model', d):\n    x.to(d)\n    return x.shape",  # annotated with something else
    ],
)
def test_tdl001_without_evidence_stays_silent(lint: Lint, function: str) -> None:
    assert lint(function, {"TDL001"}) == []


def test_a_parameter_named_batch_is_a_dataloader_batch(lint: Lint) -> None:
    code = """
    import torch
    def training_step(self, batch, batch_idx):
        x, y = batch
        x.to(self.device)
        batch.to(self.device)
        batch_idx.cpu()
    first = next(iter(train_loader))
    first[0].cuda()
    images = first["image"]
    images.cuda()
    """
    assert lint(code, {"TDL001"}) == [("TDL001", 4), ("TDL001", 8), ("TDL001", 10)]
