"""TDL004 (torch.load without map_location), TDL005 (hard-coded CUDA in a distributed script), TDL101 (CUDA
with no fallback)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Lint = Callable[..., list[tuple[str, int]]]  # the `lint` fixture of conftest.py


@pytest.mark.parametrize(
    "code",
    [
        "import torch\nstate = torch.load(path)",
        "import torch\nstate = torch.load(path, weights_only=True)",
        "from torch import load\nstate = load(path)",
        "import torch as th\nstate = th.load(open(path, 'rb'))",
    ],
)
def test_tdl004_flags_load_without_map_location(lint: Lint, code: str) -> None:
    assert lint(code, {"TDL004"}) == [("TDL004", 2)]


@pytest.mark.parametrize(
    "code",
    [
        "import torch\nstate = torch.load(path, map_location='cpu')",
        "import torch\nstate = torch.load(path, map_location=lambda s, loc: s)",
        "import torch\nstate = torch.load(path, 'cpu')",  # map_location given positionally
        "import torch\nstate = torch.load(path, device)",
        "import torch\nstate = torch.load(path, **options)",
        "import torch\nstate = torch.load(*arguments)",
        "import numpy as np\nstate = np.load(path)",
        "import torch\nmodel = torch.jit.load(path)",
        "import torch\nmodel = torch.hub.load('repo', 'model')",
        "import pickle\nstate = pickle.load(f)",
    ],
)
def test_tdl004_negatives(lint: Lint, code: str) -> None:
    assert lint(code, {"TDL004"}) == []


DIST = "import os\nimport torch\nimport torch.distributed as dist\ndist.init_process_group('nccl')\n"


@pytest.mark.parametrize(
    "body",
    [
        "model = model.cuda()",
        "model.cuda(0)",
        "device = torch.device('cuda')",
        "device = torch.device('cuda', 0)",
        "device = 'cuda:0'",
        "x = x.to('cuda')",
        "x = torch.zeros(3, device='cuda')",
        "state = torch.load(path, map_location='cuda:0')",
        "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')",
    ],
)
def test_tdl005_flags_hard_coded_cuda_in_a_distributed_script(lint: Lint, body: str) -> None:
    assert lint(DIST + body, {"TDL005"}) == [("TDL005", 5)]


def test_tdl005_with_ddp_but_the_process_group_set_up_elsewhere_only_flags_fixed_indices(lint: Lint) -> None:
    # utils.init_distributed_mode() of another module calls init_process_group, and set_device with it
    head = (
        "import torch\n"
        "from torch.nn.parallel import DistributedDataParallel as DDP\n"
        "utils.init_distributed_mode()\n"
    )
    assert lint(head + "model = DDP(net.cuda())", {"TDL005"}) == []
    assert lint(head + "model = DDP(net.cuda(0))\nx = x.to('cuda:0')", {"TDL005"}) == [
        ("TDL005", 4),
        ("TDL005", 5),
    ]


def test_tdl005_one_visible_device_per_process_is_a_current_device(lint: Lint) -> None:
    code = DIST + "os.environ['CUDA_VISIBLE_DEVICES'] = str(rank)\nmodel.cuda()"
    assert lint(code, {"TDL005"}) == []
    assert lint(code.replace("str(rank)", "'0,1'"), {"TDL005"}) == [("TDL005", 6)]


SET_DEVICE = "local_rank = int(os.environ['LOCAL_RANK'])\ntorch.cuda.set_device(local_rank)\n"


@pytest.mark.parametrize(
    "body",
    [
        SET_DEVICE + "model = model.cuda()",  # the current device is the local rank's
        SET_DEVICE + "x = x.to('cuda')",
        SET_DEVICE + "device = torch.device('cuda')",
        "device = torch.device('cuda', local_rank)",
        "device = torch.device(f'cuda:{local_rank}')",
        "model = model.cuda(local_rank)",
        "model = model.to(local_rank)",
        "state = torch.load(path, map_location={'cuda:0': f'cuda:{rank}'})",  # the remapping idiom
        "with torch.autocast(device_type='cuda'):\n    pass",
        "device_type = 'cuda'",
        "if args.device == 'cuda':\n    pass",
        "print('cuda')",
    ],
)
def test_tdl005_negatives(lint: Lint, body: str) -> None:
    assert lint(DIST + body, {"TDL005"}) == []


def test_tdl005_still_flags_an_index_when_set_device_is_called(lint: Lint) -> None:
    code = DIST + SET_DEVICE + "device = 'cuda:0'\nmodel.cuda(0)\nmodel.cuda()"
    assert lint(code, {"TDL005"}) == [("TDL005", 7), ("TDL005", 8)]


def test_tdl005_a_default_parameter_counts_only_when_a_call_relies_on_it(lint: Lint) -> None:
    define = "def train(model, loader, device=torch.device('cuda')):\n    pass\n"
    assert lint(DIST + define + "train(m, l, device=d)\ntrain(m, l, d)", {"TDL005"}) == []
    assert lint(DIST + define, {"TDL005"}) == []  # not called here: the callers decide
    assert lint(DIST + define + "train(m, l, device=d)\ntrain(m, l)", {"TDL005"}) == [("TDL005", 5)]
    method = "class T:\n    def run(self, x, device='cuda'):\n        pass\nT().run(x, d)\n"
    assert lint(DIST + method, {"TDL005"}) == []


def test_tdl005_a_constant_set_device_does_not_count(lint: Lint) -> None:
    assert lint(DIST + "torch.cuda.set_device(0)\nmodel.cuda()", {"TDL005"}) == [("TDL005", 6)]


def test_tdl005_is_silent_outside_distributed_scripts(lint: Lint) -> None:
    assert lint("import torch\nmodel.cuda()\ndevice = 'cuda:0'", {"TDL005"}) == []


def test_tdl101_flags_cuda_with_no_fallback(lint: Lint) -> None:
    code = "import torch\ndevice = torch.device('cuda')\nx = torch.zeros(2).to('cuda:1')\nmodel.cuda()"
    assert lint(code, {"TDL101"}) == [("TDL101", 2), ("TDL101", 3)]


@pytest.mark.parametrize(
    "code",
    [
        "import torch\ndevice = torch.device('cuda' if torch.cuda.is_available() else 'cpu')",
        "import torch\nif torch.cuda.is_available():\n    device = torch.device('cuda')",
        "import torch\ndevice = torch.device('cuda')\nfallback = torch.device('cpu')",
        "import torch\ndevice = 'cuda' if args.gpu else 'mps'",
    ],
)
def test_tdl101_negatives(lint: Lint, code: str) -> None:
    assert lint(code, {"TDL101"}) == []


def test_advice_rules_are_off_by_default(lint: Lint) -> None:
    from torchdoctor.lint.rules import DEFAULT_RULES

    assert lint("import torch\ndevice = torch.device('cuda')", DEFAULT_RULES) == []
