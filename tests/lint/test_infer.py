"""What the inference says a name holds, checked directly (the rules build on it)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from torchdoctor.lint.context import FileContext
from torchdoctor.lint.infer import Cuda, Kind, Value
from torchdoctor.lint.scan import Where


def value_at_end(code: str, expr: str = "probe") -> Value:
    """The value of ``expr`` at the module level of ``code``."""
    context = FileContext(ast.parse(textwrap.dedent(code)))
    probe = ast.parse(expr, mode="eval").body
    return context.value(probe, Where(context.facts.module))


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        ("import torch\nprobe = torch.zeros(3)", Kind.TENSOR),
        ("import torch\nprobe = torch.zeros(3)\nprobe = probe.to('cuda')", Kind.TENSOR),
        ("import torch\nprobe = torch.zeros(3)\nprobe = f(probe)", Kind.UNKNOWN),
        ("import torch\nprobe, other = torch.zeros(3), 1", Kind.TENSOR),
        ("import torch\nother, probe = torch.zeros(3), 1", Kind.UNKNOWN),
        ("import torch.nn as nn\nprobe = nn.Linear(2, 2).cuda().eval()", Kind.MODULE),
        ("import torch\nprobe = torch.nn.Parameter(torch.zeros(2))", Kind.PARAMETER),
        ("from torch.utils.data import DataLoader\nprobe = DataLoader(ds)", Kind.DATALOADER),
        ("from torch.utils.data import DataLoader\nfor probe in DataLoader(ds):\n    pass", Kind.BATCH),
        ("from torch.utils.data import DataLoader\nfor probe, y in DataLoader(ds):\n    pass", Kind.TENSOR),
        (
            "from torch.utils.data import DataLoader as DL\nfor i, (probe, y) in enumerate(DL(d)):\n    pass",
            Kind.TENSOR,
        ),
        (
            "from torch.utils.data import DataLoader\nfor i, probe in zip(a, DataLoader(ds)):\n    pass",
            Kind.BATCH,
        ),
        ("import torch\nprobe = 'cuda:1'", Kind.DEVICE),
        ("for probe in self.val_loader:\n    pass", Kind.BATCH),  # named like a loader
        ("for probe in self.values:\n    pass", Kind.UNKNOWN),
        ("def probe():\n    pass", Kind.UNKNOWN),
        ("import numpy as np\nprobe = np.zeros(3)", Kind.UNKNOWN),
        ("import torch\nglobal probe\nprobe = torch.zeros(1)", Kind.UNKNOWN),  # global: not followed
        ("import torch\nx = torch.ones(2)\nprobe = (x * 2)[0].T", Kind.TENSOR),
    ],
)
def test_kinds(code: str, kind: Kind) -> None:
    assert value_at_end(code).kind is kind


@pytest.mark.parametrize(
    ("code", "cuda"),
    [
        ("import torch\nprobe = torch.device('cuda')", Cuda.YES),
        ("import torch\nprobe = torch.device('cuda' if torch.cuda.is_available() else 'cpu')", Cuda.MAYBE),
        ("import torch\nprobe = 'cpu'", Cuda.NO),
        ("import torch\nprobe = torch.device(args.device)", Cuda.UNKNOWN),
        ("import torch\nrank = 0\nprobe = f'cuda:{rank}'", Cuda.YES),
    ],
)
def test_devices(code: str, cuda: Cuda) -> None:
    value = value_at_end(code)
    assert value.kind is Kind.DEVICE
    assert value.cuda is cuda


def test_a_method_sees_module_names_but_not_its_class_body() -> None:
    code = """
    import torch
    mask = torch.zeros(2)
    class Holder:
        mask = None
        def method(self):
            pass
    """
    context = FileContext(ast.parse(textwrap.dedent(code)))
    (method,) = context.facts.functions["method"]
    inside = Where(context.facts.scope_of[method])
    assert context.value(ast.Name("mask"), inside).kind is Kind.TENSOR
    assert context.value(ast.Name("self"), inside).kind is Kind.SELF


def test_self_attributes_join_every_assignment_of_the_class() -> None:
    code = """
    import torch
    import torch.nn as nn
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.h = torch.zeros(2)
            self.fc = nn.Linear(2, 2)
            self.mixed = torch.zeros(2)
            self.register_buffer("buf", torch.zeros(2))
        def forward(self, x):
            self.h = self.h.to(x.device)
            self.mixed = x.tolist()
    """
    tree = ast.parse(textwrap.dedent(code))
    context = FileContext(tree)
    (net,) = context.facts.classes["Net"]
    assert context.infer.attr(net, "h").kind is Kind.TENSOR
    assert context.infer.attr(net, "fc").kind is Kind.MODULE
    assert context.infer.attr(net, "mixed").kind is Kind.UNKNOWN
    assert context.infer.attr(net, "buf").kind is Kind.BUFFER
    assert context.infer.attr(net, "missing").kind is Kind.UNKNOWN
