"""TDL001 (a tensor move as a statement), TDL102 (created then moved in a loop), TDL103 (half model in
training): positives, and the negatives that a linter crying wolf would get wrong."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Lint = Callable[..., list[tuple[str, int]]]  # the `lint` fixture of conftest.py

HEAD = "import torch\nimport torch.nn as nn\nfrom torch.utils.data import DataLoader\n"


@pytest.mark.parametrize(
    "body",
    [
        "x = torch.zeros(3)\nx.to(device)",
        "x = torch.from_numpy(a)\nx.cuda()",
        "x = torch.tensor([1, 2])\nx.float()",
        "x = torch.randn(2, 2).t()\nx.half()",
        "x = torch.zeros_like(y)\nx.type(torch.float16)",
        "x = torch.arange(3)\nx = x.to(device)\nx.cpu()",
        "def f(x: torch.Tensor) -> None:\n    x.to('cuda')",
        "def f(x: 'int', y: torch.Tensor | None) -> None:\n    y.cuda()",
        "loader = DataLoader(ds)\nfor x, y in loader:\n    x.to(device)",
        "loader = DataLoader(ds)\nfor i, (x, y) in enumerate(loader):\n    y.cuda()",
        "def train(train_loader):\n    for data in train_loader:\n        x = data[0]\n        x.cuda()",
        "x = torch.zeros(3) * 2\nx.pin_memory()",
    ],
)
def test_tdl001_flags_a_tensor_move_whose_result_is_dropped(lint: Lint, body: str) -> None:
    found = lint(HEAD + body, {"TDL001"})
    assert found == [("TDL001", HEAD.count("\n") + body.count("\n") + 1)]


def test_tdl001_flags_buffers_and_tensor_attributes(lint: Lint) -> None:
    code = """
    import torch
    import torch.nn as nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("mask", torch.ones(3))
            self.fc = nn.Linear(3, 3)

        def move(self, device):
            self.mask.to(device)
            self.fc.to(device)
    """
    assert lint(code, {"TDL001"}) == [("TDL001", 11)]


@pytest.mark.parametrize(
    "body",
    [
        "model = nn.Linear(2, 2)\nmodel.to(device)",
        "model = nn.Sequential(nn.Linear(2, 2))\nmodel.cuda()\nmodel.half()",
        "import torchvision\nmodel = torchvision.models.resnet18()\nmodel.to(device)",
        "x = torch.zeros(3)\nx = x.to(device)",
        "def f(x):\n    x.to(device)",  # unknown type
        # a whole batch may be a transformers BatchEncoding, whose .to() moves it in place
        "loader = DataLoader(ds)\nfor batch in loader:\n    batch.to(device)",
        "x = torch.zeros(3)\nx.type()",  # the type's name
        "torch.zeros(1).cuda()",  # a temporary: initialises CUDA on purpose
        "x = torch.zeros(3)\nx = model(x)\nx.to(device)",  # rebound to something unknown
        "x = torch.zeros(3)\nx.requires_grad_()",
        "x = torch.zeros(3)\ny = x.to(device)",
    ],
)
def test_tdl001_stays_silent_on_modules_assignments_and_unknowns(lint: Lint, body: str) -> None:
    assert lint(HEAD + body, {"TDL001"}) == []


def test_tdl001_knows_modules_of_this_file_and_module_attributes(lint: Lint) -> None:
    code = """
    import torch
    import torch.nn as nn

    class Block(nn.Module):
        pass

    class Net(Block):
        def __init__(self):
            super().__init__()
            self.encoder = Block()

    model = Net()
    model.to("cuda")
    model.encoder.cuda()
    """
    assert lint(code, {"TDL001"}) == []


def test_tdl102_flags_a_created_then_moved_tensor_in_a_loop(lint: Lint) -> None:
    code = """
    import torch
    for step in range(10):
        mask = torch.zeros(4).to(device)
        ids = torch.tensor(batch).cuda()
    values = [torch.ones(2).to(device) for _ in range(3)]
    """
    assert lint(code, {"TDL102"}) == [("TDL102", 3), ("TDL102", 4), ("TDL102", 5)]


@pytest.mark.parametrize(
    "body",
    [
        "mask = torch.zeros(4).to(device)",  # not in a loop
        "for i in range(3):\n    mask = torch.zeros(4, device=device)",
        "for i in range(3):\n    mask = torch.zeros(4).to(torch.float16)",  # a dtype, not a device
        "for i in range(3):\n    x = torch.from_numpy(a).cuda()",  # from_numpy has no device=
        "for i in range(3):\n    x = torch.zeros(4).cpu()",
    ],
)
def test_tdl102_negatives(lint: Lint, body: str) -> None:
    assert lint(HEAD + body, {"TDL102"}) == []


def test_tdl103_flags_half_models_in_training_code(lint: Lint) -> None:
    code = """
    import torch
    import torch.nn as nn
    model = nn.Linear(2, 2).cuda()
    model.half()
    other = nn.Linear(2, 2)
    other = other.to(torch.float16)
    loss = model(x).sum()
    loss.backward()
    """
    assert lint(code, {"TDL103"}) == [("TDL103", 4), ("TDL103", 6)]


@pytest.mark.parametrize(
    "body",
    [
        "model = nn.Linear(2, 2)\nmodel.half()\nwith torch.no_grad():\n    model(x)",  # inference only
        "x = torch.zeros(3).half()\nloss.backward()",  # a tensor
        "model = nn.Linear(2, 2)\nmodel.to(torch.float32)\noptimizer.step()",
    ],
)
def test_tdl103_negatives(lint: Lint, body: str) -> None:
    assert lint(HEAD + body, {"TDL103"}) == []


def test_tdl103_counts_an_optimizer_step_as_training(lint: Lint) -> None:
    assert lint(HEAD + "model = nn.Linear(2, 2)\nmodel.half()\noptimizer.step()", {"TDL103"}) == [
        ("TDL103", 5)
    ]


@pytest.mark.parametrize(
    ("code", "line"),
    [
        (  # a method's argument that callers of this file pass a tensor
            "class Runner:\n"
            "    def step(self, inp):\n"
            "        inp.to(self.device)\n"
            "        return inp\n"
            "    def run(self, loader):\n"
            "        for images, labels in loader:\n"
            "            self.step(images)\n"
            "loader = DataLoader(ds)\n"
            "Runner().run(loader)\n",
            6,
        ),
        (  # an argument a module is called with: its input
            "class Wrapper(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.net = nn.Linear(2, 2)\n"
            "    def predict(self, inputs):\n"
            "        self.net(inputs)\n"
            "        inputs.cuda()\n",
            10,
        ),
        (  # a tensor on one path, the parameter on the other
            "def walk(x, direction=None):\n"
            "    if direction is None:\n"
            "        direction = torch.randn(3)\n"
            "    direction.to(x.device)\n",
            7,
        ),
        (  # an input of a module's forward(), cast back to its dtype
            "class Block(nn.Module):\n"
            "    def forward(self, hidden_states, mask=None):\n"
            "        hidden_states.to(torch.float32)\n"
            "        return hidden_states\n",
            6,
        ),
        (  # an entry of a batch
            "for batch in DataLoader(ds):\n    batch['image'].cuda()\n",
            5,
        ),
        (  # what a method of this file returns
            "class Net(nn.Module):\n"
            "    def build_input(self, n):\n"
            "        return torch.zeros(n)\n"
            "    def forward(self, n):\n"
            "        x = self.build_input(n).squeeze()\n"
            "        x.cuda()\n",
            9,
        ),
    ],
)
def test_tdl001_finds_tensors_through_callers_inputs_paths_and_returns(
    lint: Lint, code: str, line: int
) -> None:
    assert lint(HEAD + code, {"TDL001"}) == [("TDL001", line)]


@pytest.mark.parametrize(
    "code",
    [
        "def f(model, device):\n    model.to(device)\n",  # a parameter nothing says is a tensor
        "def f(x, layer):\n    x = layer\n    x.to(device)\n",
        "class Block(nn.Module):\n    def forward(self, x, sub=nn.Identity()):\n        sub.to(x.device)\n",
        "def f(x):\n    x = model(x)\n    x.to(device)\nf(torch.zeros(3))\n",  # rebound to something unknown
    ],
)
def test_tdl001_negatives_of_the_inferences(lint: Lint, code: str) -> None:
    assert lint(HEAD + code, {"TDL001"}) == []


# A receiver the inference cannot type, shown to be a tensor by what made it or by how it is used after. The
# shapes of real code: an RNN language model's get_batch() tuple (pytorch/examples word_language_model style),
# a diffusion pipeline's image argument checked with .size(), a vocoder's mel spectrogram after .view(), a
# helper annotated -> Tensor.
@pytest.mark.parametrize(
    ("code", "line"),
    [
        (  # an element of what a function of this file returns, then given to the model
            "def get_batch(source, i):\n"
            "    return source[i:i + 35], source[i + 1:i + 36].view(-1)\n"
            "def train(model, data_source):\n"
            "    for i in range(0, 100, 35):\n"
            "        data, targets = get_batch(data_source, i)\n"
            "        data.cuda()\n"
            "        output = model(data)\n",
            9,
        ),
        (  # a parameter every caller passes a name it uses as a tensor
            "class Pipeline:\n"
            "    def prepare(self, init_image):\n"
            "        init_image.to(self.device)\n"
            "        return self.vae.encode(init_image)\n"
            "    def __call__(self, prompt, image):\n"
            "        if image.size(0) != 1:\n"
            "            raise ValueError(prompt)\n"
            "        return self.prepare(image)\n",
            6,
        ),
        (  # reshaped by a method only tensors have, whatever torch.load returned
            "def load(path, device):\n"
            "    spect = torch.load(path, map_location='cpu')\n"
            "    spect = spect.view(1, 80, -1)\n"
            "    spect.to(device)\n"
            "    return spect\n",
            7,
        ),
        (  # made by a method only tensors have
            "def f(batch, device):\n    x = batch['audio'].contiguous()\n    x.to(device)\n    return x\n",
            6,
        ),
        (  # a function of this file annotated to return a tensor
            "def make(n) -> torch.Tensor:\n    return helper(n)\nx = make(3)\nx.cuda()\n",
            7,
        ),
    ],
)
def test_tdl001_finds_tensors_by_their_producers_and_uses(lint: Lint, code: str, line: int) -> None:
    assert lint(HEAD + code, {"TDL001"}) == [("TDL001", line)]


@pytest.mark.parametrize(
    "code",
    [
        # a tokenizer's BatchEncoding (its .to() moves it in place), given to the model
        "def f(tokenizer, model, s):\n    enc = tokenizer(s)\n    enc.to(device)\n    return model(enc)\n",
        "def f(proc, model, x):\n    enc = proc.encode_batch(x)\n    enc.to(device)\n    return model(enc)\n",
        # a model built by a function, moved in place and then called
        "def f(name, x):\n    net = get_network(name)\n    net.cuda()\n    return net(x)\n",
        # an object built by a class, whatever it shares with tensors
        "def f(x):\n    buf = Buffer(x)\n    buf.to(device)\n    return model(buf)\n",
        # a NumPy view by dtype is no tensor
        "def f(a):\n    b = a.view(np.float32)\n    b.to(device)\n",
    ],
)
def test_tdl001_evidence_does_not_make_tensors_of_other_objects(lint: Lint, code: str) -> None:
    assert lint(HEAD + "import numpy as np\n" + code, {"TDL001"}) == []
