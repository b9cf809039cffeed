""" "invalid device ordinal" reasoned with what the pasted command, code or log says, on texts users pasted
in public issues (quoted as the thread shows them): torchrun starting more ranks per node than there are
visible GPUs, a CUDA_VISIBLE_DEVICES that renumbers the GPUs it keeps while the code names a physical index,
and the device indices the code names."""

from __future__ import annotations

import pytest

from torchdoctor.checks.devices.explanations import analyse_ordinal


def test_more_ranks_per_node_than_visible_gpus() -> None:
    # wenwenyu/PICK-pytorch#14: the fix that worked was --nproc_per_node=2
    analysis = analyse_ordinal(
        "CUDA_VISIBLE_DEVICES=1,2 python -m torch.distributed.launch --nnode=1 --node_rank=0 "
        "--nproc_per_node=4 \\\n--master_addr=127.0.0.1 --master_port=5555 \\\ntrain.py -c config.json "
        "--local_world_size 2\nRuntimeError: cuda runtime error (101) : invalid device ordinal at "
        "/pytorch/torch/csrc/cuda/Module.cpp:59"
    )
    assert "4 ranks per node (--nproc_per_node=4) for 2 visible GPUs" in " ".join(analysis.evidence)
    assert analysis.fix is not None and "--nproc_per_node=2" in analysis.fix.text


def test_a_physical_index_after_cuda_visible_devices_renumbered_the_gpus() -> None:
    # FlagAI-Open/Aquila2#132: CUDA_VISIBLE_DEVICES "4,3", then torch.device("cuda:3")
    analysis = analyse_ordinal(
        'import os\nos.environ["CUDA_VISIBLE_DEVICES"] = "4,3"\n\n self.device = torch.device("cuda:3" if '
        "torch.cuda.is_available() else 'cpu')\n"
    )
    assert "CUDA_VISIBLE_DEVICES=4,3 keeps 2 GPUs, renumbered: 4 as cuda:0, 3 as cuda:1" in analysis.evidence
    assert analysis.fix is not None and "cuda:1" in analysis.fix.text
    assert analysis.cause is not None and "cuda:3 does not exist in this process" in analysis.cause


def test_the_device_indices_the_code_names_are_listed() -> None:
    # LuyaooChen/uninformed-students-pytorch#3 (cuda:1 on a one-GPU machine),
    # yuanzhoulvpi2017/DocumentSearch#4 (.cuda(1) on Colab), chenfei-wu/TaskMatrix#154 (cuda:1 to cuda:7)
    for text, named in (
        ("device = torch.device('cuda:1')\nRuntimeError: CUDA error: invalid device ordinal", "cuda:1"),
        (
            "AutoModel.from_pretrained(gen_model_name_or_path, trust_remote_code=True).half().cuda(1)\n"
            "RuntimeError: CUDA error: invalid device ordinal",
            "cuda:1",
        ),
        (
            'self.edit = ImageEditing(device="cuda:6")\nself.i2t = ImageCaptioning(device="cuda:4")\n'
            "RuntimeError: CUDA error: invalid device ordinal",
            "cuda:4, cuda:6",
        ),
    ):
        evidence = " ".join(analyse_ordinal(text).evidence)
        assert f"the text names {named}" in evidence


def test_a_set_device_by_local_rank_that_fails_is_a_rank_beyond_the_gpus() -> None:
    # KellerJordan/modded-nanogpt#61 (torchrun from run.sh), microsoft/SimXNS#2: no count of GPUs in the text
    for text in (
        "Traceback (most recent call last):\n"
        '  File "/home/schmid/modded-nanogpt/train_gpt.py", line 402, in <module>\n'
        "    torch.cuda.set_device(local_rank)\n"
        '  File "/home/schmid/modded-nanogpt/venv-modded/lib/python3.12/site-packages/torch/cuda/'
        '__init__.py", line 477, in set_device\n'
        "    torch._C._cuda_setDevice(device)\n"
        "RuntimeError: CUDA error: invalid device ordinal\n",
        "orch.cuda.set_device(args.local_rank)\n"
        '  File "/home/socialab/miniconda3/envs/IR_SimANS-env/lib/python3.10/site-packages/torch/cuda/'
        '__init__.py", line 314, in set_device\n'
        "    torch._C._cuda_setDevice(device)\n"
        "RuntimeError: CUDA error: invalid device ordinal",
    ):
        analysis = analyse_ordinal(text)
        assert analysis.cause is not None and "more processes than GPUs" in analysis.cause
        assert analysis.fix is not None and "--nproc_per_node" in analysis.fix.text
        assert "--world_size" in analysis.fix.text


def test_the_ranks_per_node_of_a_set_device_by_local_rank_are_named() -> None:
    # cfzd/Ultra-Fast-Lane-Detection#193: --nproc_per_node=2 on a machine that shows fewer GPUs
    analysis = analyse_ordinal(
        "(lane-det) firdanis@firdanis-system:~/Ultra-Fast-Lane-Detection$ python -m torch.distributed.launch "
        "--nproc_per_node=2 train.py configs/culane.py \n"
        "Traceback (most recent call last):\n"
        '  File "train.py", line 107, in <module>\n'
        "    torch.cuda.set_device(args.local_rank)\n"
        '  File "/home/firdanis/anaconda3/envs/lane-det/lib/python3.7/site-packages/torch/cuda/__init__.py", '
        "line 261, in set_device\n"
        "    torch._C._cuda_setDevice(device)\n"
        "RuntimeError: CUDA error: invalid device ordinal\n"
    )
    assert analysis.cause is not None and "2 ranks per node (--nproc_per_node=2)" in analysis.cause


def test_a_stated_gpu_count_gives_the_ranks_per_node_to_start() -> None:
    # the shape of HRNet/HRNet-Semantic-Segmentation#171 with another count: the writer states the GPUs
    analysis = analyse_ordinal(
        "I have two GPUs.\n    torch.cuda.set_device(args.local_rank)\n"
        "RuntimeError: CUDA error: invalid device ordinal"
    )
    assert "the text says the machine has 2 GPUs ('I have two GPUs')" in analysis.evidence
    assert analysis.fix is not None and "--nproc_per_node=2" in analysis.fix.text


_SET_DEVICE_FRAME = (
    '  File "/usr/local/lib/python3.6/dist-packages/torch/cuda/__init__.py", line 281, in set_device\n'
    "    torch._C._cuda_setDevice(device)\n"
)


@pytest.mark.parametrize(
    ("text", "setting"),
    [
        (  # https://github.com/csxmli2016/DFDNet/issues/7
            '  File "/home/nextface/DFDNet/options/base_options.py", line 114, in parse\n'
            "    torch.cuda.set_device(opt.gpu_ids[0])\n" + _SET_DEVICE_FRAME + "RuntimeError: cuda runtime "
            "error (101) : invalid device ordinal at /opt/conda/conda-bld/pytorch_1595629427286/work/torch/"
            "csrc/cuda/Module.cpp:59",
            "gpu_ids",
        ),
        (  # https://github.com/ShomyLiu/Neu-Review-Rec/issues/17
            '  File "main.py", line 43, in train\n    torch.cuda.set_device(opt.gpu_id)\n'
            + _SET_DEVICE_FRAME
            + "RuntimeError: CUDA error: invalid device ordinal",
            "gpu_id",
        ),
        (  # https://github.com/ZhaoJ9014/face.evoLVe/issues/58 (title)
            "temp_x = x.cuda(self.device_id[i]) RuntimeError: CUDA error (10): invalid device ordinal",
            "device_id",
        ),
        (  # https://github.com/hanzhanggit/StackGAN-v2/issues/23 (title and message)
            "torch.cuda.set_device(self.gpus[0])\nRuntimeError: cuda runtime error (10) : invalid device "
            "ordinal at torch/csrc/cuda/Module.cpp:32",
            "gpus",
        ),
    ],
)
def test_an_index_taken_from_a_setting_of_the_script_is_named_with_the_setting(
    text: str, setting: str
) -> None:
    analysis = analyse_ordinal(text)
    assert analysis.cause is not None and f"the script's {setting} setting" in analysis.cause
    assert analysis.fix is not None and f"--{setting} 0" in analysis.fix.text
