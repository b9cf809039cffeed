"""TDL004 (torch.load without map_location), TDL005 (hard-coded CUDA in a distributed script), TDL101 (CUDA
with no fallback)."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest

from torchdoctor.lint.context import PROJECT_MARKERS, folders_in_project

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


def test_tdl005_reports_a_constant_set_device_rather_than_what_follows_it(lint: Lint) -> None:
    assert lint(DIST + "torch.cuda.set_device(0)\nmodel.cuda()", {"TDL005"}) == [("TDL005", 5)]
    # beside a set_device(local_rank), set_device(0) is the branch of a single process
    both = (
        DIST
        + "if args.distributed:\n    torch.cuda.set_device(args.gpu)\nelse:\n    torch.cuda.set_device(0)"
    )
    assert lint(both, {"TDL005"}) == []


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


DIST_SCRIPT = "import torch\nimport torch.distributed as dist\ndist.init_process_group('nccl')\n"


def test_tdl005_the_current_device_without_set_device_in_a_script_that_sets_up_a_group(lint: Lint) -> None:
    assert lint(DIST_SCRIPT + "model = model.cuda()", {"TDL005"}) == [("TDL005", 4)]
    local = "torch.cuda.set_device(int(os.environ['LOCAL_RANK']))\n"
    assert lint(DIST_SCRIPT + local + "model = model.cuda()", {"TDL005"}) == []


@pytest.mark.parametrize(
    "guarded",
    [
        "if rank == 0:\n    x = x.cuda(0)",
        "if dist.get_rank() == 0 and args.eval:\n    x = x.to('cuda:0')",
        "if args.local_rank == 0:\n    model.cuda()",
        "if is_main_process():\n    device = torch.device('cuda:0')",
        "def evaluate(x):\n    return x.cuda(0)\nif rank == 0:\n    evaluate(y)",  # only rank 0 calls it
    ],
)
def test_tdl005_gpu_0_in_code_only_rank_0_runs_is_its_own(lint: Lint, guarded: str) -> None:
    local = "torch.cuda.set_device(rank)\n"
    assert lint(DIST_SCRIPT + local + guarded, {"TDL005"}) == []


def test_tdl005_gpu_1_under_a_rank_0_guard_is_still_wrong(lint: Lint) -> None:
    code = DIST_SCRIPT + "torch.cuda.set_device(rank)\nif rank == 0:\n    x = x.cuda(1)"
    assert lint(code, {"TDL005"}) == [("TDL005", 6)]


@pytest.mark.parametrize(
    "code",
    [
        "def test_round_trip(tmp_path):\n    torch.save(m.state_dict(), tmp_path / 'w.pt')\n"
        "    m.load_state_dict(torch.load(tmp_path / 'w.pt'))",
        "def check():\n    buffer = io.BytesIO()\n    torch.save(x, buffer)\n    buffer.seek(0)\n"
        "    y = torch.load(buffer)",
        "def test_resume(trainer, path):\n    trainer.save_checkpoint(path)\n    state = torch.load(path)",
        # a temporary folder of this run: pytest's fixture, tempfile, and names built from them
        "def test_fit(tmp_path):\n    trainer = Trainer(default_root_dir=tmp_path)\n    trainer.fit(m)\n"
        "    path = trainer.checkpoint_callback.best_model_path\n    state = torch.load(path)",
        "def test_all(tmp_path):\n    states = [torch.load(p) for p in tmp_path.iterdir()]",
        "def export():\n    with tempfile.TemporaryDirectory() as folder:\n"
        "        path = os.path.join(folder, 'w.pt')\n        state = torch.load(path)",
    ],
)
def test_tdl004_a_file_the_same_function_saved_is_advice_tdl104(lint: Lint, code: str) -> None:
    source = "import io\nimport os\nimport tempfile\nimport torch\n" + code
    found = lint(source, {"TDL004", "TDL104"})
    assert [rule for rule, _ in found] == ["TDL104"]


@pytest.mark.parametrize(
    "code",
    [
        # saved in one branch only: the load may read an older file from elsewhere
        "def f(p, train):\n    if train:\n        torch.save(m, p)\n    return torch.load(p)",
        # the name is rebound in between
        "def f(p):\n    torch.save(m, p)\n    p = other\n    return torch.load(p)",
        # another file
        "def f(p, q):\n    torch.save(m, p)\n    return torch.load(q)",
        # a folder that is not temporary, or a name that also holds another path
        "def f(root):\n    return torch.load(os.path.join(root, 'w.pt'))",
        "def f(tmp_path, other):\n    p = tmp_path / 'a'\n    if other:\n        p = other\n"
        "    return torch.load(p)",
        # the top level of a script: the line readers copy to load a checkpoint from elsewhere
        "torch.save(m, 'w.pt')\nm = torch.load('w.pt')",
    ],
)
def test_tdl004_stays_where_the_load_may_meet_another_machine(lint: Lint, code: str) -> None:
    found = lint("import io\nimport os\nimport torch\n" + code, {"TDL004", "TDL104"})
    assert [rule for rule, _ in found] == ["TDL004"]


def test_tdl004_at_the_top_level_of_a_test_file_is_tdl104() -> None:
    from torchdoctor.lint import lint_source

    code = "import torch\ntorch.save(m, 'w.pt')\nm = torch.load('w.pt')\n"
    rules = frozenset({"TDL004", "TDL104"})
    assert [f.rule for f in lint_source(code, "tests/test_io.py", rules)] == ["TDL104"]
    assert [f.rule for f in lint_source(code, "train.py", rules)] == ["TDL004"]


@pytest.mark.parametrize("marker", PROJECT_MARKERS)
def test_a_tests_folder_counts_below_the_projects_root_only(tmp_path: Path, marker: str) -> None:
    """A checkout that lives in ~/test/ is no test file: the folders are read from its project's root."""
    from torchdoctor.lint.command import run_lint

    code = "import torch\ntorch.save(m, 'w.pt')\nm = torch.load('w.pt')\n"
    project = tmp_path / "tests" / "checkout"
    (project / "tests").mkdir(parents=True)
    (project / marker).mkdir() if marker == ".git" else (project / marker).write_text("")
    (project / "train.py").write_text(code)
    (project / "tests" / "helpers.py").write_text(code)
    out = io.StringIO()
    assert run_lint([str(project)], stdout=out, stderr=io.StringIO(), select=["TDL004", "TDL104"]) == 1
    found = {line.split(":", 1)[0]: line.split()[1] for line in out.getvalue().splitlines()}
    assert found == {str(project / "train.py"): "TDL004", str(project / "tests" / "helpers.py"): "TDL104"}


def test_a_text_that_is_no_file_here_is_read_by_the_folders_it_names() -> None:
    assert folders_in_project("stdin") == []
    assert folders_in_project("no/such/tests/train.py") == ["no", "such", "tests"]


def test_torch_from_a_star_import(lint: Lint) -> None:
    assert lint("from model import *\nrnn = torch.load('rnn.pt')", {"TDL004"}) == [("TDL004", 2)]
    assert lint("from model import *\ntorch = other\nrnn = torch.load('rnn.pt')", {"TDL004"}) == []


def test_a_list_of_devices_to_go_through_is_not_a_device_picked(lint: Lint) -> None:
    # Lightning's tests/tests_fabric/utilities/test_distributed.py: parameters of a spawned test.
    code = (
        "import torch, torch.distributed as dist\n"
        "dist.init_process_group('nccl')\n"
        "DEVICES = [torch.device('cuda:0'), torch.device('cuda:1')]\n"
        "model = torch.nn.Linear(1, 1).to(torch.device('cuda:0'))\n"
    )
    assert lint(code, {"TDL005"}) == [("TDL005", 4)]


# DistributedDataParallel given GPU 0 (the shape of torch 1.x DDP tutorials copied into many training scripts,
# and of scripts launched one process per GPU that never read their local rank).
@pytest.mark.parametrize(
    "wrap",
    [
        "model = DDP(model, device_ids=[0], output_device=0)",
        "model = DDP(model, device_ids=[0])",
        "model = DDP(model, output_device=0)",
        "model = DDP(model, [0], 0)",
        "model = torch.nn.parallel.DistributedDataParallel(model, device_ids=['cuda:0'])",
    ],
)
def test_tdl005_flags_ddp_given_a_fixed_gpu(lint: Lint, wrap: str) -> None:
    head = DIST + "from torch.nn.parallel import DistributedDataParallel as DDP\n" + SET_DEVICE
    assert lint(head + wrap, {"TDL005"}) == [("TDL005", 8)]


@pytest.mark.parametrize(
    "wrap",
    [
        "model = DDP(model, device_ids=[local_rank], output_device=local_rank)",
        "model = DDP(model, device_ids=[args.gpu])",
        "model = DDP(model)",
        "model = DDP(model, device_ids=None)",  # a CPU or multi-device module
    ],
)
def test_tdl005_ddp_given_the_ranks_own_gpu(lint: Lint, wrap: str) -> None:
    head = DIST + "from torch.nn.parallel import DistributedDataParallel as DDP\n" + SET_DEVICE
    assert lint(head + wrap, {"TDL005"}) == []


@pytest.mark.parametrize(
    "code",
    [
        # a default the rank's own device replaces a few lines later
        "device = torch.device('cuda:0')\nlocal_rank = int(os.environ['LOCAL_RANK'])\n"
        "device = torch.device('cuda', local_rank)\nmodel.to(device)",
        "def main(args):\n    args.device = 'cuda:0'\n    if args.distributed:\n"
        "        args.device = f'cuda:{args.local_rank}'\n    model.to(args.device)",
        # each process sees its own GPU as GPU 0
        "os.environ['CUDA_VISIBLE_DEVICES'] = str(rank)\nmodel.cuda(0)\nx = torch.zeros(3, device='cuda:0')\n"
        "from torch.nn.parallel import DistributedDataParallel as DDP\nmodel = DDP(model, device_ids=[0])",
    ],
)
def test_tdl005_gpu_0_that_is_each_processs_own_is_not_reported(lint: Lint, code: str) -> None:
    assert lint(DIST + code, {"TDL005"}) == []


def test_tdl005_a_default_replaced_by_what_is_not_the_rank_still_counts(lint: Lint) -> None:
    code = DIST + "device = torch.device('cuda:0')\ndevice = torch.device('cuda', args.n_gpu - 1)\n"
    assert lint(code, {"TDL005"}) == [("TDL005", 5)]  # n_gpu is a count, not the rank's GPU
    visible = DIST + "os.environ['CUDA_VISIBLE_DEVICES'] = args.gpus\nmodel.cuda(0)"
    assert lint(visible, {"TDL005"}) == [("TDL005", 6)]
