"""TDL006 (non_blocking copies of batches of an unpinned DataLoader) and TDL007 (CUDA in worker processes)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Lint = Callable[..., list[tuple[str, int]]]  # the `lint` fixture of conftest.py

HEAD = "import torch\nfrom torch.utils.data import DataLoader, Dataset\n"


def loop(loader: str, body: str) -> str:
    return HEAD + f"loader = {loader}\nfor x, y in loader:\n    {body}\n"


@pytest.mark.parametrize(
    "loader",
    ["DataLoader(ds, batch_size=8)", "DataLoader(ds, pin_memory=False)", "DataLoader(ds, num_workers=4)"],
)
@pytest.mark.parametrize(
    "body",
    ["x = x.to(device, non_blocking=True)", "y = y.cuda(non_blocking=True)", "x.cuda(device, True).sum()"],
)
def test_tdl006_flags_non_blocking_copies_of_unpinned_batches(lint: Lint, loader: str, body: str) -> None:
    assert lint(loop(loader, body), {"TDL006"}) == [("TDL006", 5)]


@pytest.mark.parametrize(
    ("loader", "body"),
    [
        ("DataLoader(ds, pin_memory=True)", "x = x.to(device, non_blocking=True)"),
        ("DataLoader(ds, pin_memory=args.pin)", "x = x.to(device, non_blocking=True)"),  # unknown
        ("DataLoader(ds, **kwargs)", "x = x.to(device, non_blocking=True)"),  # unknown
        ("DataLoader(ds)", "x = x.to(device)"),
        ("DataLoader(ds)", "x = x.to(device, non_blocking=False)"),
        ("make_loader()", "x = x.to(device, non_blocking=True)"),  # unknown loader
    ],
)
def test_tdl006_negatives(lint: Lint, loader: str, body: str) -> None:
    assert lint(loop(loader, body), {"TDL006"}) == []


def test_tdl006_follows_batches_through_enumerate_items_and_rebinding(lint: Lint) -> None:
    code = HEAD + (
        "loader = DataLoader(ds)\n"
        "for step, batch in enumerate(loader):\n"
        "    batch = {k: v.to(device, non_blocking=True) for k, v in batch.items()}\n"
        "for images, labels in tqdm(loader):\n"
        "    images = torch.autograd.Variable(images)\n"
        "    images = images.cuda(non_blocking=True)\n"
        "for batch in loader:\n"
        "    images = batch['image']\n"
        "    images = images.cuda(non_blocking=True)\n"
    )
    assert lint(code, {"TDL006"}) == [("TDL006", 5), ("TDL006", 8), ("TDL006", 11)]


def test_tdl006_a_loop_over_a_loader_parameter_uses_the_loaders_of_the_file(lint: Lint) -> None:
    train = "def train(train_loader):\n    for x, y in train_loader:\n        x = x.cuda(non_blocking=True)\n"
    unpinned = HEAD + train + "train(DataLoader(ds, batch_size=4))\n"
    pinned = HEAD + train + "train(DataLoader(ds, pin_memory=True))\n"
    no_loader = HEAD + train
    assert lint(unpinned, {"TDL006"}) == [("TDL006", 5)]
    assert lint(pinned, {"TDL006"}) == []
    assert lint(no_loader, {"TDL006"}) == []


DATASET = HEAD + (
    "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
    "class Images(Dataset):\n"
    "    def __getitem__(self, index):\n"
    "        image = torch.zeros(3)\n"
    "        return {move}\n"
    "train_set = Images()\n"
    "loader = DataLoader(train_set, {options})\n"
)


@pytest.mark.parametrize(
    "move",
    [
        "image.cuda()",
        "image.to(device)",
        "image.to('cuda')",
        "image.to(torch.device('cuda:0'))",
        "image.to(self.device)",  # a name that says it holds a device, in code that moves data
        "torch.zeros(3, device=device)",
    ],
)
@pytest.mark.parametrize(
    "options",
    [
        "num_workers=4",
        "batch_size=8, num_workers=2, shuffle=True",
        "num_workers=args.workers",
    ],  # unknown: may fork
)
def test_tdl007_flags_cuda_in_getitem_with_worker_processes(lint: Lint, move: str, options: str) -> None:
    assert lint(DATASET.format(move=move, options=options), {"TDL007"}) == [("TDL007", 7)]


@pytest.mark.parametrize(
    ("move", "options"),
    [
        ("image.cuda()", "num_workers=0"),
        ("image.cuda()", "batch_size=4"),  # no workers by default
        ("image.cuda()", "num_workers=4, multiprocessing_context='spawn'"),
        ("image.to('cpu')", "num_workers=4"),
        ("image.to(image.device)", "num_workers=4"),  # where the tensor already is
        ("image.to(torch.float16)", "num_workers=4"),
        ("image.to(self.dtype)", "num_workers=4"),
        ("torch.zeros(3, device='cpu')", "num_workers=4"),
        ("image.float()", "num_workers=4"),
    ],
)
def test_tdl007_negatives(lint: Lint, move: str, options: str) -> None:
    assert lint(DATASET.format(move=move, options=options), {"TDL007"}) == []


def test_tdl007_spawned_workers_may_use_cuda(lint: Lint) -> None:
    code = DATASET.format(move="image.cuda()", options="num_workers=4")
    spawn = "import torch.multiprocessing as mp\nmp.set_start_method('spawn', force=True)\n"
    assert lint(code + spawn, {"TDL007"}) == []
    assert lint(code + spawn.replace("spawn", "fork"), {"TDL007"}) == [("TDL007", 7)]


def test_tdl007_flags_collate_functions_and_module_constants(lint: Lint) -> None:
    code = HEAD + (
        "import functools\n"
        "WORKERS = 8\n"
        "def collate(batch, device):\n"
        "    return torch.stack(batch).to('cuda')\n"
        "def other_collate(batch):\n"
        "    return [item.cuda() for item in batch]\n"
        "a = DataLoader(ds, num_workers=WORKERS, collate_fn=functools.partial(collate, device='cuda'))\n"
        "b = DataLoader(ds, num_workers=2, collate_fn=other_collate)\n"
        "c = DataLoader(ds, collate_fn=lambda batch: batch[0].cuda())\n"
    )
    assert lint(code, {"TDL007"}) == [("TDL007", 6), ("TDL007", 8)]


def test_tdl007_ignores_datasets_no_worker_loader_uses(lint: Lint) -> None:
    code = HEAD + (
        "class Cached(Dataset):\n"
        "    def __getitem__(self, index):\n"
        "        return self.items[index].cuda()\n"
        "loader = DataLoader(other_set, num_workers=4)\n"
        "for x in DataLoader(Cached(), num_workers=0):\n"
        "    x = x.cuda()\n"
    )
    assert lint(code, {"TDL007"}) == []


WORKERS = HEAD + "import functools\n"


@pytest.mark.parametrize(
    ("code", "lines"),
    [
        (  # a method, with a tuple of tensors moved in one statement (a finding for each: x and y)
            "class Trainer:\n"
            "    def __init__(self, ds, args):\n"
            "        self.device = args.device\n"
            "        self.loader = DataLoader(ds, num_workers=4, collate_fn=self.collate)\n"
            "    def collate(self, batch):\n"
            "        x, y = torch.stack(batch), torch.stack(batch)\n"
            "        x, y = x.to(self.device), y.to(self.device)\n"
            "        return x, y\n",
            [10, 10],
        ),
        (  # a function nested in the one that makes it
            "def make_collate(pad):\n"
            "    def collate(batch):\n"
            "        return torch.stack(batch).cuda()\n"
            "    return collate\n"
            "loader = DataLoader(ds, num_workers=2, collate_fn=make_collate(0))\n",
            [6],
        ),
        (  # a class whose __init__ moves tensors, built inside the collate function
            "class Batch:\n"
            "    def __init__(self, src, device):\n"
            "        self.src = src.to(device)\n"
            "def collate(batch, device):\n"
            "    return Batch(torch.stack(batch), device)\n"
            "loader = DataLoader(ds, num_workers=2, collate_fn=functools.partial(collate, device='cuda'))\n",
            [6],
        ),
        (  # a lambda, and a Dataset that creates a tensor on the device
            "class Items(Dataset):\n"
            "    def __getitem__(self, i):\n"
            "        return torch.zeros(3, device='cuda')\n"
            "loader = DataLoader(Items(), num_workers=2, collate_fn=lambda b: torch.stack(b).to(device))\n",
            [6, 7],
        ),
    ],
)
def test_tdl007_follows_worker_code_wherever_it_is_written(lint: Lint, code: str, lines: list[int]) -> None:
    assert lint(WORKERS + code, {"TDL007"}) == [("TDL007", line) for line in lines]


def test_tdl007_an_argparse_default_of_0_workers_forks_nothing(lint: Lint) -> None:
    code = DATASET.format(move="image.cuda()", options="num_workers=args.workers")
    parser = "parser.add_argument('--workers', type=int, default={})\n"
    assert lint(code + parser.format(0), {"TDL007"}) == []
    assert lint(code + parser.format(8), {"TDL007"}) == [("TDL007", 7)]


@pytest.mark.parametrize(
    "source",
    [
        "def make_loader():\n    return DataLoader(ds, batch_size=4)\nloader = make_loader()\n",
        "loader = DataLoader(ds)\nloader = logger.log_every(loader, 10)\n",
    ],
)
def test_tdl006_follows_loaders_returned_and_wrapped(lint: Lint, source: str) -> None:
    code = HEAD + source + "for x, y in loader:\n    x = x.to(device, non_blocking=True)\n"
    assert lint(code, {"TDL006"}) == [("TDL006", len(code.splitlines()))]


def test_tdl006_a_loader_passed_in_by_a_caller(lint: Lint) -> None:
    train = (
        "def train(model, data, device):\n"
        "    for x, y in metric_logger.log_every(data, 10):\n"
        "        x = x.to(device, non_blocking=True)\n"
    )
    assert lint(HEAD + train + "train(m, DataLoader(ds), 'cuda')\n", {"TDL006"}) == [("TDL006", 5)]
    assert lint(HEAD + train + "train(m, DataLoader(ds, pin_memory=True), 'cuda')\n", {"TDL006"}) == []
    assert lint(HEAD + train, {"TDL006"}) == []  # nobody here says what it gets


@pytest.mark.parametrize(
    "copy",
    [
        "x = torch.from_numpy(a).to(device, non_blocking=True)",
        "x = torch.zeros(3).cuda(non_blocking=True)",
        "x = torch.tensor([1, 2]).to(device, non_blocking=True)",
    ],
)
def test_tdl006_a_tensor_just_made_on_the_cpu_is_pageable(lint: Lint, copy: str) -> None:
    assert lint(HEAD + copy, {"TDL006"}) == [("TDL006", 3)]
    pinned = copy.replace(".to(", ".pin_memory().to(").replace(".cuda(", ".pin_memory().cuda(")
    assert lint(HEAD + pinned, {"TDL006"}) == []
    assert lint(HEAD + "x = torch.zeros(3, device='cuda').to(d, non_blocking=True)", {"TDL006"}) == []


def test_tdl006_follows_a_batch_through_the_methods_that_hand_it_on(lint: Lint) -> None:
    code = HEAD + (
        "class Trainer:\n"
        "    def prepare(self, data):\n"
        "        for k, v in data.items():\n"
        "            data[k] = v.to(self.device, non_blocking=True)\n"
        "        return data\n"
        "    def train_one_epoch(self, loader):\n"
        "        for batch in loader:\n"
        "            batch = self.prepare(batch)\n"
        "    def train(self, train_loader):\n"
        "        self.train_one_epoch(train_loader)\n"
        "Trainer().train(DataLoader(ds, batch_size=4))\n"
    )
    assert lint(code, {"TDL006"}) == [("TDL006", 6)]
    assert lint(code.replace("batch_size=4", "pin_memory=True"), {"TDL006"}) == []


@pytest.mark.parametrize(
    "loader",
    ["DataLoader(ds, num_workers=0)", "DataLoader(ds, batch_size=8, num_workers=NUM_WORKERS)"],
)
def test_tdl006_no_advice_where_the_file_says_num_workers_0(lint: Lint, loader: str) -> None:
    """The loop loads every batch itself: pinning would buy the non_blocking copy nothing worth a finding."""
    code = (
        HEAD
        + "NUM_WORKERS = 0\n"
        + f"loader = {loader}\nfor x, y in loader:\n    x = x.to(device, non_blocking=True)\n"
    )
    assert lint(code, {"TDL006"}) == []


def test_tdl007_a_dataset_no_linted_loader_loads_is_reported(lint: Lint) -> None:
    """It runs in worker processes as soon as any DataLoader loads it with num_workers > 0; a class that is no
    torch Dataset, or one the file loads only without workers, is not reported."""
    code = HEAD + (
        "class Faces(Dataset):\n"
        "    def __getitem__(self, index):\n"
        "        return self.items[index].cuda()\n"
        "class Base(Dataset):\n"
        "    pass\n"
        "class Derived(Base):\n"
        "    def __getitem__(self, index):\n"
        "        return self.items[index].to('cuda')\n"
        "class Table:\n"
        "    def __getitem__(self, index):\n"
        "        return self.items[index].cuda()\n"
    )
    assert lint(code, {"TDL007"}) == [("TDL007", 5), ("TDL007", 10)]
    loaded = code + "loader = DataLoader(Faces(), num_workers=0)\nother = DataLoader(Derived())\n"
    assert lint(loaded, {"TDL007"}) == []
