"""The program's failing statement read from a pasted traceback (torchdoctor.explain.statement)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from torchdoctor.explain.statement import (
    TORCH_MODULES,
    Statement,
    failing_statement,
    installed_package,
    is_torch_file,
)

from growth import linear, repeated


def test_the_last_frame_of_the_program_is_the_failing_statement() -> None:
    text = (
        'Traceback (most recent call last):\n  File "train.py", line 12, in <module>\n    main()\n  File '
        '"train.py", line 90, in main\n    loss = criterion(out, y)\n  File '
        '"/usr/lib/python3/site-packages/torch/nn/modules/module.py", line 541, in __call__\n    result = '
        "self.forward(*input, **kwargs)\nRuntimeError: boom"
    )
    assert failing_statement(text) == Statement("train.py", "90", "main", "loss = criterion(out, y)")


def test_a_log_prefix_or_a_quote_before_the_source_line_is_not_code() -> None:
    text = '[rank0]:   File "a.py", line 3, in f\n[rank0]:     x = y + z\n[rank0]: RuntimeError: boom'
    assert failing_statement(text) == Statement("a.py", "3", "f", "x = y + z")
    quoted = '> File "b.py", line 5, in g\n>     assert (s >= 0).all()\n> RuntimeError: boom'
    assert failing_statement(quoted) == Statement("b.py", "5", "g", "assert (s >= 0).all()")


def test_ipythons_arrow_names_the_cell_and_its_line() -> None:
    text = (
        "<ipython-input-3-ab> in forward(self, x)\n     10         a = 1\n---> 11         return self.f(x) + "
        "b\n     12 \n\nRuntimeError: boom"
    )
    expected = Statement("<ipython-input-3-ab>", "11", "forward", "return self.f(x) + b")
    assert failing_statement(text) == expected


def test_a_raise_is_not_the_failing_statement_and_installed_packages_can_be_left_out() -> None:
    text = (
        '  File "run.py", line 58, in main\n    model = Model.from_pretrained(name).cuda()\n  File '
        '"/env/lib/python3.9/site-packages/transformers/modeling_utils.py", line 1998, in cuda\n    '
        'return self._move()\n  File "/env/lib/python3.9/site-packages/transformers/modeling_utils.py", '
        "line 2001, in _move\n    raise ValueError(\nValueError: boom"
    )
    assert failing_statement(text).file.endswith("modeling_utils.py")  # type: ignore[union-attr]
    assert failing_statement(text).line == "1998"  # type: ignore[union-attr]
    assert failing_statement(text, own_code=True) == Statement(
        "run.py", "58", "main", "model = Model.from_pretrained(name).cuda()"
    )


def test_a_frame_without_its_source_line_and_a_message_alone_name_no_statement() -> None:
    assert failing_statement('  File "a.py", line 3, in f\nRuntimeError: boom') is None
    assert failing_statement("RuntimeError: Expected all tensors to be on the same device") is None


def test_only_the_frames_before_the_end_given_count() -> None:
    text = '  File "a.py", line 3, in f\n    x = 1\nError A\n  File "b.py", line 4, in g\n    y = 2\nError B'
    assert failing_statement(text, text.index("Error A")).file == "a.py"  # type: ignore[union-attr]


def test_a_long_statement_is_cut_when_quoted() -> None:
    statement = Statement("a.py", "1", "f", "x = " + "y + " * 100)
    assert len(str(statement)) < 220 and str(statement).endswith("...")


@pytest.mark.parametrize(
    "unit",
    [
        'File "a", line 1, in f\n    x\n',
        'File "a", line 1, in f\n',
        "a in f(\n",
        " in f(" * 50 + "\n",
        "---> 1 x\n",
        "-" * 200 + "\n",
    ],
)
def test_reading_frames_is_linear(unit: str) -> None:
    assert linear(failing_statement, repeated(unit), 40_000)


def test_a_librarys_own_folder_named_torch_is_the_librarys_code_not_torchs() -> None:
    # Only the package torch is torch: castle/algorithms/gradient/rl/torch/ (huawei-noah/trustworthyAI#53, the
    # device mismatch gcastle's RL algorithm made), ray/rllib/models/torch/ (ray-project/ray) and nncf/torch/
    # (openvinotoolkit/nncf) are libraries' folders. The tracebacks are built here around those real paths.
    for library_file in (
        "/root/miniconda3/envs/cdt/lib/python3.8/site-packages/castle/algorithms/gradient/rl/torch/models/"
        "actor_graph.py",
        "/home/u/.venv/lib/python3.10/site-packages/ray/rllib/models/torch/fcnet.py",
        "/opt/conda/lib/python3.9/site-packages/nncf/torch/quantization/layers.py",
        "/home/u/ray/rllib/models/torch/fcnet.py",
    ):
        assert not is_torch_file(library_file), library_file
        text = f'  File "{library_file}", line 139, in f\n    y = a + b\nRuntimeError: boom'
        assert failing_statement(text) == Statement(library_file, "139", "f", "y = a + b")
    # torch's own files: installed (POSIX, Windows), a source tree (pytorch/pytorch#81881's
    # /home/atalman/torch/backends/...), a PyInstaller bundle (alievk/avatarify-python#103's torchf\torch\),
    # torch 1.x's torch/tensor.py
    for torch_file in (
        "/usr/lib/python3/site-packages/torch/nn/modules/module.py",
        "C:\\Python39\\lib\\site-packages\\torch\\nn\\modules\\module.py",
        "/home/atalman/torch/backends/cudnn/__init__.py",
        "torchf\\torch\\_utils.py",
        "/anaconda3/lib/python3.7/site-packages/torch/tensor.py",
    ):
        assert is_torch_file(torch_file), torch_file


def test_the_torch_modules_named_are_the_installed_torchs() -> None:
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        pytest.skip("torch is not installed in this Python (CI's Python 3.10 step)")
    torch_folder = Path(spec.origin).parent
    missing = [name for name in TORCH_MODULES if not any(torch_folder.glob(f"{name}*"))]
    assert not missing, missing


def test_the_installed_package_of_a_frame_is_named() -> None:
    # darts (unit8co/darts#413, a comment: fixed in darts 0.11.0) and torchmetrics
    # (Lightning-AI/torchmetrics#206): the last frames before the cut are the library's own
    darts = (
        '  File "/home/nozberkman/projects/transformer-exercise/venv/lib/python3.9/site-packages/darts/'
        'utils/torch.py", line 65, in decorator\n    return decorated(self, *args, **kwargs)\n  File "/'
        "home/nozberkman/projects/transformer-exercise/venv/lib/python3.9/site-packages/darts/models/to"
        'rch_forecasting_model.py", line 431, in fit\n    self.fit_from_dataset(train_dataset, val_data'
        'set, verbose, epochs)\n  File "/home/nozberkman/projects/transformer-exercise/venv/lib/python3'
        '.9/site-packages/darts/utils/torch.py", line 65, in decorator\n    return decorated(self, *arg'
        's, **kwargs)\n  File "/home/nozberkman/projects/transformer-exercise/venv/lib/python3.9/site-p'
        'ackages/darts/models/torch_forecasting_model.py", line 519, in fit_from_dataset\n    self._tra'
        'in(train_loader, val_loader, tb_writer, verbose, train_num_epochs)\n  File "/home/nozberkman/p'
        "rojects/transformer-exercise/venv/lib/python3.9/site-packages/darts/models/torch_forecasting_m"
        'odel.py", line 825, in _train\n    validation_loss = self._evaluate_validation_loss(val_loader'
        ')\n  File "/home/nozberkman/projects/transformer-exercise/venv/lib/python3.9/site-packages/dar'
        'ts/models/torch_forecasting_model.py", line 850, in _evaluate_validat'
    )
    statement = failing_statement(darts)
    assert statement is not None and statement.line == "825", statement
    assert installed_package(statement.file) == "darts"
    torchmetrics = (
        'Traceback (most recent call last):\n  File "<stdin>", line 1, in <module>\n  File "/users-1/an'
        'aconda3/envs/E1/lib/python3.8/site-packages/torch/nn/modules/module.py", line 889, in _call_im'
        'pl\n    result = self.forward(*input, **kwargs)\n  File "/users-1/anaconda3/envs/E1/lib/python'
        '3.8/site-packages/torchmetrics/metric.py", line 152, in forward\n    self.update(*args, **kwar'
        'gs)\n  File "/users-1/anaconda3/envs/E1/lib/python3.8/site-packages/torchmetrics/metric.py", l'
        'ine 199, in wrapped_func\n    return update(*args, **kwargs)\n  File "/users-1/anaconda3/envs/'
        "E1/lib/python3.8/site-packages/torchmetrics/cl"
    )
    statement = failing_statement(torchmetrics)
    assert statement is not None and statement.line == "199", statement
    assert installed_package(statement.file) == "torchmetrics"
    assert installed_package("train.py") is None


def test_colabs_linked_ipython_frames_name_the_cell_and_its_line() -> None:
    # Nixtla/neuralforecast#307, from Colab: each frame's file is a Markdown link
    text = (
        "RuntimeError                              Traceback (most recent call last)\n[<ipython-input-9"
        "-a05534e5c6e2>](https://localhost:8080/#) in <module>\n----> 1 fcst.fit(df=Y_train_df)\n\n33 f"
        "rames\n[/usr/local/lib/python3.7/dist-packages/neuralforecast/losses/pytorch.py](https://local"
        "host:8080/#) in __call__(self, y, y_hat, mask)\n    418         sq     = torch.maximum(-error,"
        " torch.zeros_like(error))\n    419         s1_q   = torch.maximum(error, torch.zeros_like(erro"
        "r))\n--> 420         mqloss = (self.quantiles * sq + (1 - self.quantiles) * s1_q)\n    421 \n "
        "   422         # Match y/weights dimensions and compute weighted average\n\nRuntimeError: Expe"
        "cted all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
    )
    expected = Statement(
        "/usr/local/lib/python3.7/dist-packages/neuralforecast/losses/pytorch.py",
        "420",
        "__call__",
        "mqloss = (self.quantiles * sq + (1 - self.quantiles) * s1_q)",
    )
    assert failing_statement(text) == expected
