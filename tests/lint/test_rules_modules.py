"""TDL002 (a tensor kept as a plain attribute of an nn.Module) and TDL003 (a layer built in forward)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Lint = Callable[..., list[tuple[str, int]]]  # the `lint` fixture of conftest.py

MODULE = """import torch
import torch.nn as nn
import torch.nn.functional as F

class Net(nn.Module):
    def __init__(self, n, scale, device):
        super().__init__()
{init}

    def forward(self, x):
{forward}
        return x
"""
INIT_LINE, FORWARD_LINE = 8, 11


def module(init: str = "pass", forward: str = "pass") -> str:
    indent = " " * 8
    return MODULE.format(
        init="\n".join(indent + line for line in init.splitlines()),
        forward="\n".join(indent + line for line in forward.splitlines()),
    )


@pytest.mark.parametrize(
    "init",
    [
        "self.mask = torch.zeros(n)",
        "self.pos = torch.arange(n).unsqueeze(0)",
        "self.causal = torch.triu(torch.ones(n, n), diagonal=1)",
        "self.weights = torch.tensor([1.0, 2.0])",
        "self.state = torch.zeros(n, device=device)",  # placed by hand, still not moved by Module.to()
        "self.table = torch.randn(n, n).float()",
        "self.scale = torch.tensor(0.5)",  # a 0-dim tensor: harmless beside CUDA tensors, still not moved
        "self.mean = torch.tensor(scale).view(-1, 1, 1)",
        "self.inv_freq = 1.0 / (10000 ** (torch.arange(0, n, 2).float() / n))",
        "setattr(self, 'mask', torch.zeros(n))",
    ],
)
def test_tdl002_flags_a_tensor_attribute_set_in_init(lint: Lint, init: str) -> None:
    assert lint(module(init=init), {"TDL002"}) == [("TDL002", INIT_LINE)]


@pytest.mark.parametrize(
    "init",
    [
        'self.register_buffer("mask", torch.zeros(n))',
        "self.weight = nn.Parameter(torch.zeros(n))",
        "self.weight = torch.zeros(n)\nself.weight = nn.Parameter(self.weight)",
        "self.mask = nn.Buffer(torch.zeros(n))",
        "self.fc = nn.Linear(n, n)",
        "self.scaled = self.fc.weight * 2",  # derived from a parameter, not built from factories
        "self.n = n",
        "self.mask = make_mask(n)",  # unknown
        'self.register_buffer("mask", None)\nself.mask = torch.zeros(n)',
    ],
)
def test_tdl002_negatives(lint: Lint, init: str) -> None:
    assert lint(module(init=init), {"TDL002"}) == []


def test_tdl002_ignores_state_set_in_forward_and_classes_that_are_not_modules(lint: Lint) -> None:
    code = module(forward="self.hidden = torch.zeros(3)") + (
        "\nclass Plain:\n    def __init__(self):\n        self.mask = torch.zeros(3)\n"
    )
    assert lint(code, {"TDL002"}) == []


def test_tdl002_skips_a_module_that_moves_its_own_tensors(lint: Lint) -> None:
    code = module(init="self.mask = torch.zeros(n)") + (
        "\n    def _apply(self, fn, recurse=True):\n        self.mask = fn(self.mask)\n"
        "        return super()._apply(fn, recurse)\n"
    )
    assert lint(code, {"TDL002"}) == []


def test_tdl002_follows_helpers_called_from_init_and_local_base_classes(lint: Lint) -> None:
    code = """
    import torch
    from torch import nn

    class Base(nn.Module):
        pass

    class Cell(Base):
        def __init__(self, n):
            super().__init__()
            self.reset(n)

        def reset(self, n):
            self.h = torch.zeros(1, n)
            self.c = torch.zeros(1, n)

        def step(self, n):
            self.later = torch.zeros(n)
    """
    assert lint(code, {"TDL002"}) == [("TDL002", 13), ("TDL002", 14)]


def test_tdl002_skips_a_placeholder_rebuilt_when_stale(lint: Lint) -> None:
    forward = "if self.cache is None or self.cache.shape[0] != x.shape[0]:\n    self.cache = make(x)"
    assert lint(module(init="self.cache = torch.zeros(1)", forward=forward), {"TDL002"}) == []
    state = "y = x + self.state\nself.state = y.detach()"  # read before it is replaced: a real bug
    assert lint(module(init="self.state = torch.zeros(1)", forward=state), {"TDL002"}) == [
        ("TDL002", INIT_LINE)
    ]


def test_tdl002_still_flags_a_tensor_the_class_moves_by_hand(lint: Lint) -> None:
    # Harmless where every use moves it, but a plain attribute all the same: a buffer needs no moving.
    init = "self.mask = torch.ones(n)"
    assert lint(module(init=init, forward="x = x * self.mask.to(x.device)"), {"TDL002"}) == [
        ("TDL002", INIT_LINE)
    ]


def test_tdl002_skips_what_lightning_moves_itself(lint: Lint) -> None:
    code = """
    import torch
    import lightning as L

    class Model(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.example_input_array = torch.zeros(2, 3)
            self.lookup = torch.zeros(2, 3)
    """
    assert lint(code, {"TDL002"}) == [("TDL002", 8)]


def test_tdl002_reports_each_attribute_once(lint: Lint) -> None:
    code = module(init="self.m = torch.zeros(n)\nself.m = torch.ones(n)")
    assert lint(code, {"TDL002"}) == [("TDL002", INIT_LINE)]


@pytest.mark.parametrize(
    "forward",
    [
        "x = nn.Linear(4, 4)(x)",
        "norm = nn.BatchNorm2d(4)\nx = norm(x)",
        "x = nn.LayerNorm(4)(x)",
        "w = nn.Parameter(torch.zeros(4))",
        "x = nn.InstanceNorm2d(4, affine=True)(x)",
        "x = torch.nn.Embedding(10, 4)(x)",
    ],
)
def test_tdl003_flags_layers_with_weights_built_in_forward(lint: Lint, forward: str) -> None:
    assert lint(module(forward=forward), {"TDL003"}) == [("TDL003", FORWARD_LINE)]


def test_tdl003_looks_into_functions_nested_in_forward(lint: Lint) -> None:
    forward = "def inner(y):\n    return nn.Conv2d(1, 1, 3)(y)\nx = inner(x)"
    assert lint(module(forward=forward), {"TDL003"}) == [("TDL003", FORWARD_LINE + 1)]


@pytest.mark.parametrize(
    "forward",
    [
        "x = nn.ReLU()(x)",
        "x = nn.Dropout(0.1)(x)",
        "x = nn.Identity()(x)",
        "x = nn.Flatten()(x)",
        "x = nn.Softmax(dim=-1)(x)",
        "x = nn.MaxPool2d(2)(x)",
        "x = F.relu(x)",
        "x = nn.InstanceNorm2d(4)(x)",  # no affine, no running stats by default
        "x = nn.LayerNorm(4, elementwise_affine=False)(x)",
        "x = nn.BatchNorm1d(4, affine=False, track_running_stats=False)(x)",
        "loss = nn.CrossEntropyLoss()(x, y)",
        "x = nn.Sequential()(x)",
    ],
)
def test_tdl003_negatives(lint: Lint, forward: str) -> None:
    assert lint(module(forward=forward), {"TDL003"}) == []


def test_tdl003_only_looks_at_forward_of_modules(lint: Lint) -> None:
    code = """
    import torch.nn as nn
    from torch.nn import Linear

    class Net(nn.Module):
        def build(self):
            self.fc = Linear(2, 2)

        def forward(self, x):
            return Linear(2, 2)(x)

    class NotAModule:
        def forward(self, x):
            return nn.Linear(2, 2)(x)
    """
    assert lint(code, {"TDL003"}) == [("TDL003", 9)]


def test_tdl002_flags_tensors_set_in_loops_and_through_setattr(lint: Lint) -> None:
    init = (
        "for i in range(3):\n    setattr(self, f'w{i}', torch.ones(n))\n"
        "for name in ('a', 'b'):\n    self.c = torch.zeros(n)"
    )
    assert lint(module(init=init), {"TDL002"}) == [("TDL002", INIT_LINE + 1), ("TDL002", INIT_LINE + 3)]


def test_tdl002_a_class_that_overrides_to_covers_only_what_it_moves(lint: Lint) -> None:
    hook = (
        "\n    def to(self, *args, **kwargs):\n"
        "        self.a = self.a.to(*args, **kwargs)\n"
        "        return super().to(*args, **kwargs)\n"
    )
    code = module(init="self.a = torch.zeros(n)\nself.b = torch.zeros(n)") + hook
    assert lint(code, {"TDL002"}) == [("TDL002", INIT_LINE + 1)]  # b is forgotten
    generic = "\n    def _apply(self, fn, recurse=True):\n        for k, v in vars(self).items():\n"
    generic += "            pass\n"
    assert lint(module(init="self.b = torch.zeros(n)") + generic, {"TDL002"}) == []


def test_tdl002_a_base_class_of_a_file_not_linted_counts_when_the_class_looks_like_a_module(
    lint: Lint,
) -> None:
    code = """
    import torch
    from models.base import BaseVAE, BaseConfig

    class VAE(BaseVAE):
        def __init__(self):
            super().__init__()
            self.c_max = torch.Tensor([25.0])

        def forward(self, x):
            return x

    class Config(BaseConfig):
        def __init__(self):
            super().__init__()
            self.defaults = torch.zeros(3)
    """
    assert lint(code, {"TDL002"}) == [("TDL002", 7)]


@pytest.mark.parametrize(
    ("forward", "line"),
    [
        ("outs = [nn.Linear(4, 4)(x) for _ in range(2)]", FORWARD_LINE),
        ("for i in range(3):\n    x = nn.Conv2d(3, 3, 1)(x)", FORWARD_LINE + 1),
        ("head = nn.Sequential(\n    nn.Linear(4, 4),\n    nn.ReLU(),\n)\nx = head(x)", FORWARD_LINE),
        ("x = self.decode(x)", 15),
        ("if self.proj is None:\n    self.proj = nn.Linear(4, 4)\nx = self.proj(x)", FORWARD_LINE + 1),
    ],
)
def test_tdl003_follows_loops_comprehensions_containers_helpers_and_lazy_layers(
    lint: Lint, forward: str, line: int
) -> None:
    helper = "\n    def decode(self, x):\n        proj = nn.Linear(4, 4)\n        return proj(x)\n"
    assert lint(module(forward=forward) + helper, {"TDL003"}) == [("TDL003", line)]


def test_tdl003_a_stateful_module_class_built_in_forward(lint: Lint) -> None:
    code = module(forward="x = Block(4)(x)\nx = Act()(x)") + (
        "\nclass Block(nn.Module):\n    def __init__(self, n):\n        super().__init__()\n"
        "        self.fc = nn.Linear(n, n)\n"
        "\nclass Act(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.act = nn.ReLU()\n"
    )
    assert lint(code, {"TDL003"}) == [("TDL003", FORWARD_LINE)]


def test_tdl003_a_module_that_runs_forward_once_while_built_is_lazy_on_purpose(lint: Lint) -> None:
    code = module(
        init="self.proj = None\nself(torch.zeros(1, 4))",
        forward="if self.proj is None:\n    self.proj = nn.Linear(4, 4)\nx = self.proj(x)",
    )
    assert lint(code, {"TDL003"}) == []


# Tensors stored in ways real modules store them: a positional encoding built in a local and stored as a view
# (the sinusoidal-encoding snippet copied into many transformer tutorials, without register_buffer), two
# attributes in one assignment, a value set in a branch after a first None, a Parameter moved at once (which
# stores the plain tensor .cuda() returns).
@pytest.mark.parametrize(
    ("init", "lines"),
    [
        ("pe = torch.zeros(n, 4)\npe[:, 0::2] = torch.sin(pe[:, 0::2])\nself.pe = pe.unsqueeze(0)", [10]),
        ("self.a, self.b = torch.zeros(3), torch.zeros(4)", [8, 8]),
        ("self.scale = None\nif scale:\n    self.scale = torch.ones(1)", [10]),
        ("self.w = nn.Parameter(torch.randn(n, n)).cuda()", [8]),
        ("table = torch.arange(n)\nrows = table.view(-1, 1)\nself.rows = rows", [10]),
    ],
)
def test_tdl002_finds_tensors_stored_through_locals_tuples_branches_and_moved_parameters(
    lint: Lint, init: str, lines: list[int]
) -> None:
    assert [line for _, line in lint(module(init=init), {"TDL002"})] == lines


@pytest.mark.parametrize(
    "init",
    [
        "self.freq_bands = torch.linspace(0.0, 8.0, n)\nself.freq_bands = self.freq_bands.numpy().tolist()",
        "pe = make_table(n)\nself.pe = pe.unsqueeze(0)",  # a local nothing says is built here
        "self.a, self.n = torch.zeros(3).cuda(), n\nself.register_buffer('a', None)",
    ],
)
def test_tdl002_negatives_of_locals_and_conversions(lint: Lint, init: str) -> None:
    assert lint(module(init=init), {"TDL002"}) == []


LAZY = """import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.head = None

    def forward(self, x):
        x = self.conv(x).flatten(1)
        if self.head is None:
            self.head = nn.Linear(x.shape[1], 10)
        return self.head(x)

model = Net()
{build}
"""


@pytest.mark.parametrize(
    ("build", "lines"),
    [
        # materialised by a dummy forward before it is moved and given to the optimizer
        (
            "model(torch.zeros(1, 3, 8, 8))\nmodel = model.cuda()\nopt = torch.optim.SGD(model.parameters())",
            [],
        ),
        # run first after it was moved and the optimizer was built: the layer misses both
        (
            "model = model.cuda()\nopt = torch.optim.SGD(model.parameters())\nmodel(torch.zeros(1, 3, 8, 8))",
            [13],
        ),
        ("model = model.cuda()\nopt = torch.optim.SGD(model.parameters())", [13]),
    ],
)
def test_tdl003_a_lazy_layer_materialised_before_training_is_not_reported(
    lint: Lint, build: str, lines: list[int]
) -> None:
    assert [line for _, line in lint(LAZY.format(build=build), {"TDL003"})] == lines


def test_tdl003_a_lazy_layer_of_a_submodule_the_owners_dry_run_builds_is_not_reported(lint: Lint) -> None:
    """The shape of BYOL (lucidrains/byol-pytorch): NetWrapper builds its projector on first use, and
    BYOL.__init__ runs a dummy forward after building the wrapper, before any optimizer exists."""
    code = (
        "import torch\nimport torch.nn as nn\n\n"
        "class NetWrapper(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.projector = None\n\n"
        "    def forward(self, x):\n"
        "        if self.projector is None:\n"
        "            self.projector = nn.Linear(x.shape[-1], 8)\n"
        "        return self.projector(x)\n\n"
        "class BYOL(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.online = NetWrapper()\n"
        "{dry_run}"
        "    def forward(self, x):\n"
        "        return self.online(x)\n"
    )
    assert lint(code.format(dry_run="        self.forward(torch.randn(2, 4))\n\n"), {"TDL003"}) == []
    assert lint(code.format(dry_run="\n"), {"TDL003"}) == [("TDL003", 11)]


CONV_LSTM = """import torch
import torch.nn as nn

class Cell(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.conv = nn.Conv2d(hidden, hidden, 3)
        self.peephole = None

    def forward(self, x):
        return self.conv(x) * self.peephole

    def init_hidden(self, hidden, shape):
        if self.peephole is None:
            self.peephole = nn.Parameter(torch.zeros(1, hidden, *shape)).cuda()
        return torch.zeros(1, hidden, *shape)

class Stack(nn.Module):
    def __init__(self, layers):
        super().__init__()
        for i in range(layers):
            setattr(self, f"cell{{i}}", Cell(8))
        self.first = Cell(8)

    def forward(self, x):
        for i in range(2):
            {call}.init_hidden(8, x.shape[-2:])
        return x
"""


@pytest.mark.parametrize("call", ["getattr(self, f'cell{i}')", "self.first"])
def test_a_parameter_moved_at_once_in_a_method_forward_reaches(lint: Lint, call: str) -> None:
    """The shape of a ConvLSTM (automan000/Convolutional_LSTM_PyTorch): init_hidden(), which forward() reaches
    through getattr(self, name), builds peephole weights as nn.Parameter(...).cuda(): a plain tensor, stored
    (TDL002, even though it is rebuilt when missing) and created while forward runs (TDL003)."""
    assert lint(CONV_LSTM.format(call=call), {"TDL002", "TDL003"}) == [("TDL002", 15), ("TDL003", 15)]
