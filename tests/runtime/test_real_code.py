"""``torchdoctor run --gpus 1`` on real training code: files recorded in the lint corpus
(tests/corpus/lint), copied verbatim from their repositories into tests/runtime/scripts/real/ with a
small driver that does what the repository's own script does with them (each file's docstring says
what was copied, from which commit, and under which license). A labelled device mistake fails where a
GPU fails it, with torch's message, and the doctor names the line; the same file runs to the end on
the CPU, so the failure is the GPU's alone. A clean file runs to the end with the CPU's output.

Lines are found by searching the copied text (a marker comment would change the copied code)."""

from __future__ import annotations

import pytest

from torchdoctor.runtime.session import Options

from run_support import SCRIPTS, Ran, run_script

SAME_DEVICE = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"


def line_of(script: str, text: str) -> int:
    """The number of the one line of ``scripts/real/script`` whose stripped text is ``text``."""
    lines = (SCRIPTS / "real" / script).read_text().splitlines()
    found = [number for number, line in enumerate(lines, 1) if line.strip() == text]
    assert len(found) == 1, (script, text, found)
    return found[0]


def on_gpu(script: str, *args: str) -> Ran:
    return run_script(f"real/{script}", *args, options=Options(gpus=1))


def on_cpu(script: str, *args: str) -> Ran:
    return run_script(f"real/{script}", *args, record=False)


def mismatch_of(ran: Ran) -> object:
    found = [f for f in ran.report.findings if f.id == "device_mismatch"]
    assert found, ran.stderr
    return found[0]


def assert_fails_at(script: str, line: int, message: str) -> Ran:
    cpu = on_cpu(script)
    assert cpu.code == 0, cpu.stderr
    ran = on_gpu(script)
    assert ran.code == 1, ran.stderr
    assert ran.stderr.rstrip().endswith(f"RuntimeError: {message}"), ran.stderr[-2000:]
    mismatch = mismatch_of(ran)
    assert mismatch.site.line == line, mismatch  # type: ignore[attr-defined]
    assert mismatch.site.file.endswith(f"real/{script}")  # type: ignore[attr-defined]
    assert f"device mismatch at tests/runtime/scripts/real/{script}:{line}" in ran.stderr
    return ran


# --- labelled mistakes ----------------------------------------------------------------------------


def test_neural_renderer_look_at_discarded_to_fails_where_the_cpu_up_meets_the_gpu() -> None:
    # The corpus labels look_at.py line 29, `up.to(device)` as a statement (TDL001). That line raises
    # nothing on a GPU either: the discarded copy is just lost. The GPU fails where the CPU `up` first
    # meets a GPU tensor, torch.cross(up, z_axis) (look_at.py line 49), which is the line a real GPU's
    # traceback ends at, so that is the site asserted. The generated CUDA wrapper of linalg_cross checks
    # its operands' devices before its kernel runs, hence torch's "got other is on ..." text.
    script = "daniilidis_group_neural_renderer_look_at.py"
    line = line_of(script, "x_axis = F.normalize(torch.cross(up, z_axis), eps=1e-5)")
    message = (
        "Expected all tensors to be on the same device, but got other is on cuda:0, different from other "
        "tensors on cpu (when checking argument in method wrapper_CUDA_linalg_cross)"
    )
    ran = assert_fails_at(script, line, message)
    # The renderer's own call, with its list defaults for at and up, ran on the GPU before it.
    assert ran.stdout == "default camera (2, 4, 3)\n"


def test_learn2perturb_evaluate_discarded_cuda_fails_in_the_model_s_first_layer() -> None:
    # The corpus labels evaluate.py lines 18-19, `inputs.cuda()` / `labels.cuda()` as statements
    # (TDL001). The batch stays on the CPU and fails in the first operation of the model on the GPU,
    # Normalize_layer's x.sub(self.mean) (models/normalizer.py line 11), where a real GPU fails too.
    script = "armenjeddi_learn2perturb_evaluate.py"
    line = line_of(script, "return x.sub(self.mean).div(self.std)")
    ran = assert_fails_at(script, line, SAME_DEVICE)
    assert on_cpu(script).stdout.startswith("        Clean data accuracy = ")
    # The doctor names the labelled line: the copy inputs.cuda() made was thrown away.
    labelled = line_of(script, "inputs.cuda()")
    assert f"{script}:{labelled} in evaluate: inputs = inputs.cuda()" in str(mismatch_of(ran).fix)  # type: ignore[attr-defined]


def test_learn2perturb_train_discarded_cuda_fails_in_the_model_s_first_layer() -> None:
    # train.py lines 56-57, the same mistake as evaluate.py in the training loop main.py runs first.
    script = "armenjeddi_learn2perturb_train.py"
    line = line_of(script, "return x.sub(self.mean).div(self.std)")
    ran = assert_fails_at(script, line, SAME_DEVICE)
    assert ran.stdout == "epoch: 1 / 1 ...\n    Training:\n"
    assert on_cpu(script).stdout.endswith("    trained on 8 images\n")
    labelled = line_of(script, "inputs.cuda()")
    assert f"{script}:{labelled} in train: inputs = inputs.cuda()" in str(mismatch_of(ran).fix)  # type: ignore[attr-defined]


def test_xlstm_slstm_plain_state_fails_where_it_enters_a_gpu_layer() -> None:
    # The corpus labels sLSTMblock.py lines 47-50: init_states keeps the recurrent states as plain
    # torch.zeros attributes (TDL002), on the CPU; model.to(device) does not move them. The first use,
    # self.ri_gate(ht_1) (sLSTMblock.py line 60), runs BlockDiagonal.forward, whose Linear layers are
    # on the GPU: the deepest line of the program's own code in a GPU's traceback is there (utils.py
    # line 26), and that is the site. The Linear has no bias and a 3-d input, so at::linear folds it to
    # at::mm, whose generated CUDA wrapper checks self (the CPU state) then mat2 (the weight).
    script = "styalai_xlstm_pytorch_slstmblock.py"
    line = line_of(script, "x = [block(x) for block in self.blocks]")
    message = (
        "Expected all tensors to be on the same device, but got mat2 is on cuda:0, different from other "
        "tensors on cpu (when checking argument in method wrapper_CUDA_mm)"
    )
    ran = assert_fails_at(script, line, message)
    assert on_cpu(script).stdout.startswith("torch.Size([4, 8, 32])\nloss ")
    # The doctor follows the CPU operand back to the labelled line that made it.
    labelled = line_of(script, "self.ht_1 = torch.zeros(1, 1, x.shape[2])")
    fix = str(mismatch_of(ran).fix)  # type: ignore[attr-defined]
    assert "self.register_buffer('ht_1', torch.zeros(...))" in fix
    assert f"{script}:{labelled} in init_states" in fix


def test_td3_ourddpg_plain_action_bounds_fail_in_the_actor_s_forward() -> None:
    # The corpus labels OurDDPG.py lines 22-23: self.min_action / self.max_action, torch.FloatTensor of
    # the action-space bounds, are plain attributes of Actor (TDL002). Actor(...).to(device) leaves them
    # on the CPU; Actor.forward (OurDDPG.py line 29) multiplies their (6,)-shaped difference with the GPU
    # activations: the line a GPU fails at.
    script = "sfujim_td3_ourddpg.py"
    line = line_of(
        script,
        "return (self.max_action - self.min_action) * ((torch.tanh(self.l3(a)) + 1) / 2) + self.min_action",
    )
    assert_fails_at(script, line, SAME_DEVICE)


def test_td3_plain_max_action_fails_in_the_actor_s_forward() -> None:
    # The corpus labels TD3/TD3.py line 21: self.max_action = torch.Tensor(max_action), a one-element
    # (not 0-dim) CPU tensor kept as a plain attribute of Actor (TDL002). Actor.forward (line 27)
    # multiplies it with the GPU activations: the line a GPU fails at.
    script = "sfujim_td3_td3.py"
    line = line_of(script, "x = self.max_action * torch.tanh(self.l3(x))")
    assert_fails_at(script, line, SAME_DEVICE)


# --- clean files ----------------------------------------------------------------------------------


def test_rainbow_dqn_runs_on_the_gpu_with_the_cpu_s_output() -> None:
    script = "kaixhin_rainbow_model.py"
    cpu = on_cpu(script)
    assert cpu.code == 0, cpu.stderr
    ran = on_gpu(script)
    assert ran.code == 0, ran.stderr[-3000:]
    assert ran.stdout == cpu.stdout
    assert not [f for f in ran.report.findings if f.id == "device_mismatch"]


def test_supcon_loss_trains_on_the_gpu_with_the_cpu_s_output() -> None:
    script = "hobbitlong_supcontrast_losses.py"
    cpu = on_cpu(script)
    assert cpu.code == 0, cpu.stderr
    assert cpu.stdout.startswith("SupCon loss ")
    ran = on_gpu(script)
    assert ran.code == 0, ran.stderr[-3000:]
    assert ran.stdout == cpu.stdout
    assert not [f for f in ran.report.findings if f.id == "device_mismatch"]


@pytest.mark.parametrize("model", ["LSTM", "Transformer"])
def test_word_language_model_trains_on_the_gpu_with_the_cpu_s_output(model: str) -> None:
    # main.py's own switch: --cuda on the GPU, none on the CPU (where main.py runs without it).
    script = "pytorch_examples_word_language_model_model.py"
    cpu = on_cpu(script, "--model", model)
    assert cpu.code == 0, cpu.stderr
    assert "| end of training | valid loss" in cpu.stdout
    ran = on_gpu(script, "--model", model, "--cuda")
    assert ran.code == 0, ran.stderr[-3000:]
    assert ran.stdout == cpu.stdout
    assert not [f for f in ran.report.findings if f.id == "device_mismatch"]


def test_xlstm_slstm_with_the_notebook_s_default_device_runs_on_the_gpu() -> None:
    # examples/tinyshakespeare.ipynb calls torch.set_default_device(device) before building the model:
    # the plain states are then made on the GPU, and the labelled mistake does not show on one GPU.
    script = "styalai_xlstm_pytorch_slstmblock.py"
    cpu = on_cpu(script, "--default-device")
    assert cpu.code == 0, cpu.stderr
    assert "state ht_1 on cpu" in cpu.stderr
    ran = on_gpu(script, "--default-device")
    assert "state ht_1 on cuda:0" in ran.stderr
    assert ran.code == 0, ran.stderr[-3000:]
    assert ran.stdout == cpu.stdout
