"""The linted files as one project: facts that sit in another file (the DataLoader of a Dataset, the helper
that sets up the process group, the base class that makes a class a module, the caller that passes an
unpinned loader, the forward() that calls a helper building layers), found through the imports between
them."""

from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path

import pytest

from torchdoctor.lint.command import run_lint
from torchdoctor.lint.project import Project
from torchdoctor.lint.summary import FileSummary, Location, locate


def tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def found(*paths: Path, select: str = "ALL") -> list[tuple[str, str, int]]:
    """(file relative to the first path's folder, rule, line) of what linting the paths together reports."""
    out = io.StringIO()
    run_lint(
        [str(path) for path in paths], select=[select], output_format="json", stdout=out, stderr=io.StringIO()
    )
    base = paths[0] if paths[0].is_dir() else paths[0].parent
    return sorted(
        (Path(item["path"]).relative_to(base).as_posix(), item["rule"], item["line"])
        for item in json.loads(out.getvalue())
    )


PACKAGE = {
    "pkg/__init__.py": "from .data import Images\n",
    "pkg/data.py": """
        import torch
        from torch.utils.data import Dataset

        class Images(Dataset):
            def __getitem__(self, index):
                return torch.zeros(3).to(self.device)

        def pad_collate(batch):
            return torch.stack(batch).cuda()
    """,
    "pkg/dist.py": """
        import os
        import torch
        import torch.distributed as dist

        def setup():
            dist.init_process_group("nccl")
            torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))

        def setup_without_device():
            dist.init_process_group("nccl")
    """,
    "pkg/engine.py": """
        def train_one_epoch(model, data_loader, device):
            for samples, targets in data_loader:
                samples = samples.to(device, non_blocking=True)
    """,
    "pkg/layers.py": """
        import torch.nn as nn

        def conv_bn(c):
            return nn.Sequential(nn.Conv2d(c, c, 3), nn.BatchNorm2d(c))

        class Base(nn.Module):
            pass
    """,
    "pkg/model.py": """
        import torch
        from .layers import Base, conv_bn

        class Net(Base):
            def __init__(self):
                super().__init__()
                self.mask = torch.zeros(3)

            def forward(self, x):
                return conv_bn(3)(x)
    """,
}
SCRIPT = """
    from torch.utils.data import DataLoader
    from pkg import Images
    from pkg.data import pad_collate
    from pkg.dist import setup_without_device
    from pkg.engine import train_one_epoch
    from pkg.model import Net

    setup_without_device()
    model = Net().cuda()
    loader = DataLoader(Images(), num_workers=4, collate_fn=pad_collate)
    train_one_epoch(model, loader, "cuda")
"""


def test_facts_of_other_files_count(tmp_path: Path) -> None:
    root = tree(tmp_path, {**PACKAGE, "train.py": SCRIPT})
    assert found(root) == [
        ("pkg/data.py", "TDL007", 6),  # the loader that forks workers is in train.py
        ("pkg/data.py", "TDL007", 9),
        ("pkg/engine.py", "TDL006", 3),  # train.py passes it an unpinned loader
        ("pkg/layers.py", "TDL003", 4),  # Net.forward calls it
        ("pkg/model.py", "TDL002", 7),  # Base is an nn.Module in layers.py
        ("train.py", "TDL005", 9),  # setup_without_device sets up the group and no device
    ]


def test_without_the_other_files_those_findings_are_not_guessed(tmp_path: Path) -> None:
    root = tree(tmp_path, {**PACKAGE, "train.py": SCRIPT})
    # the loaders and the script are not linted; the model and its layers still are, and a Dataset that
    # moves samples to the GPU is one as soon as any DataLoader loads it with workers (a collate function is
    # only one where a loader is seen to use it)
    assert found(root / "pkg") == [
        ("data.py", "TDL007", 6),
        ("layers.py", "TDL003", 4),
        ("model.py", "TDL002", 7),
    ]


@pytest.mark.parametrize(
    ("loader", "expected"),
    [
        ("DataLoader(Images(), num_workers=0, collate_fn=pad_collate)", []),
        ("DataLoader(Images(), collate_fn=pad_collate)", []),  # num_workers defaults to 0
        ('DataLoader(Images(), num_workers=2, multiprocessing_context="spawn")', []),
        ("DataLoader(Images(), num_workers=2, collate_fn=pad_collate)", [6, 9]),
    ],
)
def test_a_dataset_loaded_without_forked_workers_is_not_reported(
    tmp_path: Path, loader: str, expected: list[int]
) -> None:
    script = SCRIPT.replace("DataLoader(Images(), num_workers=4, collate_fn=pad_collate)", loader)
    root = tree(tmp_path, {**PACKAGE, "train.py": script})
    assert [line for name, _, line in found(root, select="TDL007")] == expected


def test_a_helper_that_sets_the_device_answers_for_the_script(tmp_path: Path) -> None:
    script = "from pkg.dist import setup\nsetup()\nmodel = model.cuda()\n"
    root = tree(tmp_path, {**PACKAGE, "train.py": script})
    assert found(root / "train.py", root / "pkg", select="TDL005") == []


def test_locate_names_modules_by_their_packages(tmp_path: Path) -> None:
    root = tree(tmp_path, {**PACKAGE, "train.py": SCRIPT})
    assert locate(str(root / "pkg" / "model.py")) == Location("pkg.model", "pkg", str(root))
    assert locate(str(root / "pkg" / "__init__.py")) == Location("pkg", "pkg", str(root))
    assert locate(str(root / "train.py")) == Location("train", "", str(root))


def summary(path: str, module: str, root: str = "/r", **fields: object) -> FileSummary:
    return FileSummary(path, Location(module, module.rpartition(".")[0], root), **fields)  # type: ignore[arg-type]


def test_resolution_follows_re_exports_and_refuses_ambiguity() -> None:
    init = summary("/r/pkg/__init__.py", "pkg", exports={"Net": "pkg.model.Net"})
    model = summary("/r/pkg/model.py", "pkg.model", defines=frozenset({"Net"}))
    owner = summary("/r/train.py", "train", defines=frozenset({"local"}))
    project = Project([init, model, owner])
    assert project.resolve(owner, "pkg.Net") == (model, "Net")
    assert project.resolve(owner, "pkg.Other") is None  # not defined there (a star import, say): unknown
    assert project.resolve(owner, ":local") == (owner, "local")
    assert project.resolve(owner, "torch.nn.Linear") is None
    # two top-level `utils` modules: the one beside the importing file wins; elsewhere, neither
    near = summary("/r/utils.py", "utils", defines=frozenset({"helper"}))
    far = summary("/s/utils.py", "utils", root="/s", defines=frozenset({"helper"}))
    project = Project([near, far, owner])
    assert project.resolve(owner, "utils.helper") == (near, "helper")
    stranger = summary("/t/main.py", "main", root="/t")
    assert Project([near, far, stranger]).resolve(stranger, "utils.helper") is None


def test_re_exports_in_a_cycle_end() -> None:
    a = summary("/r/a.py", "a", exports={"X": "b.X"})
    b = summary("/r/b.py", "b", exports={"X": "a.X"})
    assert Project([a, b]).resolve(a, "b.X") is None


@pytest.mark.parametrize("depth", [1, 50])
def test_base_classes_across_files(depth: int) -> None:
    files = [summary("/r/m0.py", "m0", classes={"C0": (True, (), False)}, defines=frozenset({"C0"}))]
    for index in range(1, depth + 1):
        bases = (f"m{index - 1}.C{index - 1}",)
        classes = {f"C{index}": (None, bases, False)}
        files.append(
            summary(f"/r/m{index}.py", f"m{index}", classes=classes, defines=frozenset({f"C{index}"}))
        )
    project = Project(files)
    assert project.is_module(files[-1], f":C{depth}")
    cyclic = summary("/r/x.py", "x", classes={"A": (None, (":B",), False), "B": (None, (":A",), False)})
    assert not Project([cyclic]).is_module(cyclic, ":A")


# ashawkey/torch-ngp's layout (sdf/utils.py, main_sdf.py): a Trainer in a folder without __init__.py, imported
# with `from sdf.utils import *`; the script hands its DataLoaders to trainer.train(), whose prepare_data()
# copies each batch with non_blocking=True, item by item (`enumerate(data)`, `data.items()`) or whole.
TRAINER = """
    import torch

    class Trainer:
        def __init__(self, device):
            self.device = device

        def prepare_data(self, data):
            if isinstance(data, list):
                for i, v in enumerate(data):
                    data[i] = v.to(self.device, non_blocking=True)
            elif isinstance(data, dict):
                for k, v in data.items():
                    data[k] = v.to(self.device, non_blocking=True)
            else:
                data = data.to(self.device, non_blocking=True)
            return data

        def train_one_epoch(self, loader):
            for data in loader:
                data = self.prepare_data(data)

        def train(self, train_loader, max_epochs):
            for _ in range(max_epochs):
                self.train_one_epoch(train_loader)
"""
TRAINER_SCRIPT = """
    import torch
    {imports}

    loader = torch.utils.data.DataLoader(torch.zeros(8, 3), batch_size=2{pin})
    trainer = Trainer("cuda")
    trainer.train(loader, 20)
"""
PREPARED_LINES = [
    ("sdf/utils.py", "TDL006", 10),
    ("sdf/utils.py", "TDL006", 13),
    ("sdf/utils.py", "TDL006", 15),
]


@pytest.mark.parametrize(
    "imports", ["from sdf.utils import *", "from sdf.utils import Trainer", "from sdf import utils"]
)
def test_a_loader_handed_to_a_method_of_an_imported_class_is_followed(tmp_path: Path, imports: str) -> None:
    script = TRAINER_SCRIPT.format(imports=imports, pin="")
    if imports == "from sdf import utils":
        script = script.replace('trainer = Trainer("cuda")', 'trainer = utils.Trainer("cuda")')
    root = tree(tmp_path, {"sdf/utils.py": TRAINER, "main_sdf.py": script})
    assert found(root, select="TDL006") == PREPARED_LINES


def test_a_pinned_loader_handed_to_the_same_method_is_not_reported(tmp_path: Path) -> None:
    script = TRAINER_SCRIPT.format(imports="from sdf.utils import *", pin=", pin_memory=True")
    root = tree(tmp_path, {"sdf/utils.py": TRAINER, "main_sdf.py": script})
    assert found(root, select="TDL006") == []


def test_without_the_script_the_trainer_alone_is_not_reported(tmp_path: Path) -> None:
    root = tree(tmp_path, {"sdf/utils.py": TRAINER})
    assert found(root / "sdf" / "utils.py", select="TDL006") == []


def test_a_class_the_script_defines_itself_is_not_the_imported_one(tmp_path: Path) -> None:
    script = TRAINER_SCRIPT.format(imports="from sdf.utils import *", pin="").replace(
        "loader =",
        "class Trainer:\n        def __init__(self, device): ...\n"
        "        def train(self, loader, n): ...\n\n    loader =",
    )
    root = tree(tmp_path, {"sdf/utils.py": TRAINER, "main_sdf.py": script})
    assert found(root, select="TDL006") == []


def test_a_factory_function_is_not_taken_for_a_class(tmp_path: Path) -> None:
    # `trainer = make_trainer()`: what a function returns is not known from its name
    script = TRAINER_SCRIPT.format(imports="from sdf.utils import *", pin="").replace(
        'Trainer("cuda")', 'make_trainer("cuda")'
    )
    utils = TRAINER + "\n\ndef make_trainer(device):\n    return Trainer(device)\n"
    root = tree(tmp_path, {"sdf/utils.py": utils, "main_sdf.py": script})
    assert found(root, select="TDL006") == []


def test_namespace_folders_name_the_modules_below_them() -> None:
    location = Location("utils", "", "/r/project/sdf")
    from torchdoctor.lint.project import _namespace_names

    assert _namespace_names(location) == ["sdf.utils", "project.sdf.utils"]
    assert _namespace_names(Location("utils", "", "/r/my-project/sdf")) == ["sdf.utils"]
