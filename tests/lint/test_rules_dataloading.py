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
        ("DataLoader(ds)", "z = torch.zeros(3).to(device, non_blocking=True)"),  # not from the loader
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
    "move", ["image.cuda()", "image.to(device)", "image.to('cuda')", "image.to(torch.device('cuda:0'))"]
)
@pytest.mark.parametrize("options", ["num_workers=4", "batch_size=8, num_workers=2, shuffle=True"])
def test_tdl007_flags_cuda_in_getitem_with_worker_processes(lint: Lint, move: str, options: str) -> None:
    assert lint(DATASET.format(move=move, options=options), {"TDL007"}) == [("TDL007", 7)]


@pytest.mark.parametrize(
    ("move", "options"),
    [
        ("image.cuda()", "num_workers=0"),
        ("image.cuda()", "batch_size=4"),  # no workers by default
        ("image.cuda()", "num_workers=args.workers"),  # unknown
        ("image.cuda()", "num_workers=4, multiprocessing_context='spawn'"),
        ("image.to('cpu')", "num_workers=4"),
        ("image.to(self.device)", "num_workers=4"),  # unknown device
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
