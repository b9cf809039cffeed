"""The explanations of what GPU machines print, on the real texts of the thread corpus
(tests/corpus/threads/dev): the cause they name, with its figure, and the fix the thread found."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from torchdoctor.checks.devices import explanations as devices_explanations
from torchdoctor.checks.install import explanations as install_explanations
from torchdoctor.checks.install import tables
from torchdoctor.checks.memory import explanations as memory_explanations
from torchdoctor.checks.training import explanations as training_explanations
from torchdoctor.explain import Explanation, catalogue, explain
from torchdoctor.explain.statement import made_without_device

from support import torch_here

THREADS = Path(__file__).resolve().parents[1] / "corpus" / "threads" / "dev"
ERRORS = Path(__file__).resolve().parents[1] / "corpus" / "errors" / "dev"


@cache
def _thread(name: str) -> str:
    return str(json.loads((THREADS / f"{name}.json").read_text())["text"])


ENTRIES = catalogue.installed()


def _explained(text: str) -> list[Explanation]:
    return explain(text, ENTRIES)


def _lead(name: str) -> Explanation:
    found = _explained(_thread(name))
    assert found, name
    return found[0]


def _said(explanation: Explanation) -> str:
    return " ".join(
        [explanation.cause, *explanation.evidence, explanation.fix.text, *explanation.fix.commands]
    )


def test_one_request_that_is_a_large_share_of_the_gpu_is_one_tensor_too_large() -> None:
    lead = _lead("compvis_stable_diffusion_68")  # 15.51 GiB of a 24 GiB GPU: the input image was 1024x1024
    assert "15.51 GiB" in lead.cause and "65%" in lead.cause
    assert "resolution" in lead.fix.text


def test_a_request_larger_than_any_gpu_is_said_so_without_the_gpus_size() -> None:
    lead = _lead("fannovel16_comfy_controlnet_preprocessors_50")  # 218.96 GiB, no capacity in the message
    assert any("larger than the memory of any GPU" in line for line in lead.evidence)


def test_a_full_gpu_with_a_cache_of_a_few_mib_is_full_not_fragmented() -> None:
    lead = _lead("easydiffusion_easydiffusion_977")  # 4 GiB GPU, 60 MiB cached, 20 MiB asked
    assert lead.check == "gpu.memory"
    assert "fills the GPU" in lead.cause and "4.00 GiB" in lead.cause
    assert "fragment" not in lead.cause


def test_an_ordinal_named_by_a_gpu_option_is_quoted() -> None:
    lead = _lead("maudzung_rtm3d_11")  # gpu idx 5 on a machine without a sixth GPU
    assert any("cuda:5" in line for line in lead.evidence)
    assert "CUDA_VISIBLE_DEVICES" in lead.fix.text and "cuda:0" in lead.fix.text


def test_a_checkpoint_of_a_gpu_this_machine_lacks_names_that_gpu() -> None:
    lead = _lead("zqpei_deep_sort_pytorch_51")
    assert lead.evidence == ("the tensors were saved on cuda:2; this process sees 1 GPU(s)",)
    assert "map_location={'cuda:2': 'cuda:0'}" in lead.fix.text


def test_no_gpu_at_all_offers_both_the_cpu_map_and_the_cuda_build() -> None:
    lead = _lead("deforum_art_stable_diffusion_132")  # a CPU-only build installed on GPU machines
    assert "CPU-only build" in lead.cause
    assert "map_location='cpu'" in lead.fix.text and "--index-url" in lead.fix.text


def test_a_program_that_loads_cudnn_itself_is_told_about_ld_library_path() -> None:
    lead = _lead("ufal_whisper_streaming_17")
    assert lead.id == "lib.cannot_open_shared_object"
    assert "LD_LIBRARY_PATH" in lead.fix.text
    # the wheels' lib folders, whichever their layout (test_the_wheels_lib_folders_are_found_in_either_layout)
    assert any("nvidia.__path__" in command for command in lead.fix.commands)


def test_error_804_names_the_host_driver() -> None:
    lead = _lead("pku_yuangroup_video_llava_22")
    assert "host driver is older" in lead.cause and "Update the host driver" in lead.fix.text


def test_nccl_shared_memory_quotes_the_segment() -> None:
    lead = _lead("nvidia_nccl_342")
    assert "NCCL's shared-memory segment of 9637888 bytes did not fit in /dev/shm" in lead.evidence


def test_a_hang_described_in_words_with_a_topology_is_p2p_through_a_switch() -> None:
    lead = _lead("nvidia_nccl_667")
    assert lead.id == "nccl.hang"
    assert "Access Control Services" in lead.cause
    assert any("GPU0-GPU1 PXB, GPU2-GPU3 PIX" in line for line in lead.evidence)


def test_a_hang_that_p2p_disable_cured_is_said_to_be_p2p() -> None:
    lead = _lead("nvidia_nccl_631")
    assert any("runs with NCCL_P2P_DISABLE=1" in line for line in lead.evidence)
    assert "iommu=pt" in lead.fix.text


def test_a_ddp_hang_without_a_log_gets_the_documented_tests() -> None:
    lead = _lead("brandleyzhou_diffnet_10")
    assert lead.id == "nccl.hang"
    assert "NCCL_P2P_DISABLE=1" in lead.fix.text
    assert "sudo lspci -vvv | grep ACSCtl" in lead.fix.commands


def test_figures_are_quoted_as_the_message_gives_them() -> None:
    lead = _lead("pytorch_examples_621")  # a 1 GB GPU, in MiB
    assert "total capacity of the GPU: 1024.00 MiB (1.00 GiB)" in lead.evidence


def test_a_cache_of_a_few_mib_beside_free_memory_is_no_fragmentation() -> None:
    lead = _lead("vita_group_enlightengan_135")  # 247 MiB free + 30 MiB cached against 252 MiB asked
    assert "fills the GPU" in lead.cause
    assert "batch size" in lead.fix.text.lower()


def test_an_oom_inside_torch_load_is_the_checkpoint_going_back_to_its_gpu() -> None:
    lead = _lead("jadore801120_attention_is_all_you_need_pytorch_95")
    assert "GPU they were saved from" in lead.cause
    assert "map_location='cpu'" in lead.fix.text


def test_a_missing_cudnn_names_the_release_to_install() -> None:
    lead = _lead("mahmoudashraf97_whisper_diarization_62")
    assert "cuDNN 8" in lead.fix.text and "conda install -c conda-forge cudnn=8" in lead.fix.text


def test_nccls_plugin_probe_is_no_missing_library() -> None:
    text = (
        "ranokau:398189:398189 [0] NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot "
        "open shared object file: No such file or directory : when loading libnccl-net.so"
    )
    assert "lib.cannot_open_shared_object" not in [e.id for e in _explained(text)]


def test_a_gpu_count_the_writer_states_meets_the_ranks_per_node() -> None:
    # the shape of many threads: the machine in words, the command, the error
    text = (
        "I have only one GPU.\ntorchrun --nproc_per_node=2 train.py\n"
        "RuntimeError: CUDA error: invalid device ordinal"
    )
    (lead,) = _explained(text)
    stated = "the text says the machine has 1 GPU ('I have only one GPU')"
    assert any(stated in line for line in lead.evidence)
    assert "--nproc_per_node=1" in lead.fix.text


def test_ranks_per_node_are_said_even_where_the_gpu_count_is_unknown() -> None:
    text = (
        "torchrun --standalone --nproc_per_node=8 train.py\nRuntimeError: CUDA error: invalid device ordinal"
    )
    (lead,) = _explained(text)
    assert any("the node needs 8 visible GPUs" in line for line in lead.evidence)


def test_pairs_nccl_could_not_join_by_p2p_are_counted() -> None:
    from torchdoctor.checks.ddp import explanations as ddp

    # Lightning-AI/pytorch-lightning#6569 (a comment's NCCL INFO transcript, partial as its writer says)
    text = (
        "ip-172-31-91-31:17102:17338 [1] NCCL INFO Channel 00 : 1[1c0] -> 0[1b0] via direct shared memory\n"
        "ip-172-31-91-31:17152:17336 [2] NCCL INFO Channel 00 : 2[1d0] -> 1[1c0] via direct shared memory\n"
        "ip-172-31-91-31:17019:17335 [0] NCCL INFO Could not enable P2P between dev 0(=1b0) and dev 3(=1e0)\n"
        "ip-172-31-91-31:17225:17337 [3] NCCL INFO Could not enable P2P between dev 3(=1e0) and dev 2(=1d0)\n"
    )
    analysis = ddp.analyse_hang(text)
    assert any("could not use P2P between 2 pair(s)" in line for line in analysis.evidence)


def test_a_gpu_list_a_command_asks_for_is_quoted_whole() -> None:
    # NVIDIA/vid2vid#17: a full-width comma from an input method
    text = (
        "I just add “--gpu_ids 0，1”into  train_256_g1.sh and then ran it\n"
        "RuntimeError: cuda runtime error (10) : invalid device ordinal at torch/csrc/cuda/Module.cpp:88"
    )
    (lead,) = _explained(text)
    assert "the command asks for GPUs 0, 1 (--gpu_ids 0,1): it needs 2 GPUs" in lead.evidence
    # AlexeyAB/darknet#3376: one dash
    text = (
        "./darknet detector train ../od-yolo/training/top_20_1000.data -gpus 6,7\n"
        "CUDA Error: invalid device ordinal"
    )
    assert any("(-gpus 6,7)" in line for line in _explained(text)[0].evidence)


def test_a_gpu_list_beyond_the_gpus_the_writer_states_is_the_cause() -> None:
    # funakoshi2718/funakoshi-miner#6: a list parted by spaces, on a machine of one GPU
    text = (
        "it could not be run, and appeared the error \"CUDA error 'invalid device ordinal' at line 61\"\n"
        "I have one GPU, and I tried different command lines\n"
        "actually, the previous version (0.3.3) didn't throw an error when I kept '--cuda_devices 0 1 2 3'"
    )
    (lead,) = _explained(text)
    assert any("(--cuda_devices 0 1 2 3)" in line for line in lead.evidence)
    assert "cuda:1 does not exist" in lead.cause
    assert "0 on a one-GPU machine" in lead.fix.text


def test_the_one_card_the_writer_names_is_quoted() -> None:
    cases = {
        # UbiquitousLearning/FedAdapter#2
        "Hello, when I used a single card 4090, an error occurred, RuntimeError: cuda error: invalid device "
        "ordinal": "a single card 4090",
        # iipharma/transpharmer-repo#4
        "I have just 1 GPU card (RTX4090). \n\nWhen I run the code ,it reports error:\n"
        "RuntimeError: CUDA error: invalid device ordinal": "I have just 1 GPU card (RTX4090)",
        # open-mmlab/mmskeleton#80
        "when i train on my GTX1060(ONLY 1 GPU),I get this problem\n"
        "RuntimeError: CUDA error (10): invalid device ordinal": "ONLY 1 GPU",
    }
    for text, words in cases.items():
        (lead,) = _explained(text)
        assert f"the text says the machine has 1 GPU ('{words}')" in lead.evidence, text


def test_the_gpus_memory_written_before_the_card_is_quoted() -> None:
    cases = {
        # newgenai79/newgenai#3
        "LTX VIDEO :  I also have a 16G GPU, but I'm getting a CUDA out of memory error.": "16G",
        # taey16/CBEGAN#1
        "RuntimeError: cuda runtime error (2) : out of memory at "
        "/pytorch/torch/lib/THC/generic/THCStorage.cu:66\ngot a TitanX 12gb GPU, any ideas ?": "12gb",
    }
    for text, size in cases.items():
        lead = _explained(text)[0]
        assert f"the text says the GPU has {size}" in lead.evidence, text
    from torchdoctor.checks.memory.explanations import gpu_memory_said

    # levindabhi/cloth-segmentation#10, med-air/3DSAM-adapter#20
    assert gpu_memory_said("I need to run the code on my own machine having 6 GB GPU.") == "6 GB"
    assert gpu_memory_said("Out of memory error even with 40 GB of gpu") == "40 GB"
    # the machine's RAM is not the GPU's memory
    (lead,) = _explained("RuntimeError: CUDA error: out of memory\nI have 16GB RAM and a GPU")
    assert not any("the text says the GPU has" in line for line in lead.evidence)


def test_a_cpu_only_torch_beside_an_amd_gpu_points_to_rocm_or_the_cpu() -> None:
    cases = {
        # ProGamerGov/dream-creator#21
        'I have AMD GPU I get this error "Torch not compiled with CUDA enabled"': "AMD GPU",
        # fofr/cog-face-to-many#42
        'The amd graphics card I use displays "Torch not compiled with CUDA enabled" when running the '
        '"python main.py --listen 0.0.0.0" command.': "amd graphics card",
        # Haoming02/sd-webui-forge-classic#324
        "7900xt Torch not compiled with CUDA enabled\nI have rocm/torch/torchvision/torchaudio installed for "
        "windows.\nAssertionError: Torch not compiled with CUDA enabled": "7900xt",
        # lllyasviel/Fooocus#113 (a comment)
        "Facing the same issue with AMD video card. Torch not compiled with CUDA enabled": "AMD video card",
    }
    for text, named in cases.items():
        (lead,) = _explained(text)
        assert f"the text names an AMD GPU ({named}), which is no CUDA device" in lead.evidence, text
        assert "ROCm" in lead.cause and "ROCm build" in lead.fix.text and "CPU" in lead.fix.text
        # AMD's own ROCm wheels of torch for Windows (rocm.docs.amd.com, Radeon and Ryzen: "PyTorch via PIP
        # installation"; sd-webui-forge-classic#324 has them installed)
        assert "repo.radeon.com" in lead.fix.text and "Windows" in lead.cause, lead


def test_a_cpu_only_torch_quotes_its_build_and_the_nvidia_gpu_named() -> None:
    # Constructed, not a real paste: the title of chenfei-wu/TaskMatrix#161 ("Using the repo on RTX 4090
    # with CUDA 11.7") joined to the lines `pip show torch` prints for a CPU-only wheel, which the thread
    # does not show
    text = (
        "Using the repo on RTX 4090 with CUDA 11.7\nName: torch\nVersion: 2.0.1+cpu\n"
        "AssertionError: Torch not compiled with CUDA enabled"
    )
    (lead,) = _explained(text)
    assert "the text shows torch 2.0.1+cpu: a CPU-only wheel" in lead.evidence
    assert "the text names an NVIDIA GPU (RTX 4090): a CUDA build can use it" in lead.evidence
    assert "Install a CUDA build" in lead.fix.text
    # an AMD CPU is no AMD GPU
    (lead,) = _explained("CPU: AMD Ryzen 9 5900X\nAssertionError: Torch not compiled with CUDA enabled")
    assert "ROCm" not in lead.cause


def test_gpu_memory_held_after_the_run_stopped_is_a_leftover_process() -> None:
    # pytorch/pytorch#910 (tests/corpus/errors/dev): the fullest GPU of the nvidia-smi table is quoted
    text = next(
        r["text"]
        for r in json.loads((ERRORS / "gpu.memory_not_released.json").read_text())
        if "#910" in r["source"]
    )
    (lead,) = _explained(text)
    assert lead.title == "GPU memory still held after the run stopped"
    shown = "nvidia-smi shows 11409MiB / 12207MiB in use (93% of the GPU) with the run stopped"
    assert shown in lead.evidence
    assert "the run was stopped (crashed), and its memory stayed held" in lead.evidence
    assert "kill" in lead.fix.text
    # Megvii-BaseDetection/YOLOX#958: Ctrl+C, two ranks
    text = 'BUT when I use "Ctrl+C" to stop training, one gpu memory still using,as bellow,'
    (lead,) = _explained(text)
    assert "the run was stopped (Ctrl+C), and its memory stayed held" in lead.evidence
    # memory that was released is no case of it
    assert not _explained("when the program ends, the memory of the GPU0 is released")


def test_memory_that_runs_out_only_after_a_long_run_is_a_leak_not_the_steps_size() -> None:
    cases = [
        (  # IBM/pytorch-seq2seq#183
            "However, as the training process goes on,  the GPU memory consumptions increases and a "
            "`RuntimeError: CUDA error: out of memory` is raised about 30 minutes later.",
            "memory consumptions increases",
        ),
        ("GPU memory leakage (CUDA out of memory after 2 epochs)", "after 2 epochs"),  # microsoft/SpareNet#12
        (  # wenet-e2e/wenet#260
            'After training some epochs, got "CUDA out of memory" error\n\n'
            "After training some epochs, it runs into `the CUDA out of memory` error.",
            "After training some epochs",
        ),
        ("RuntimeError: CUDA out of memory after few epochs", "after few epochs"),  # WongKinYiu/yolov7#1788
    ]
    for text, words in cases:
        (lead,) = _explained(text)
        assert f"the text says the memory ran out over time ('{words}'): the step fits" in lead.evidence, text
        assert "grows from step to step" in lead.cause and ".detach().cpu()" in lead.fix.text
    # at the first step the step's size is the cause
    (lead,) = _explained("RuntimeError: CUDA out of memory at the first iteration with batch_size = 64")
    assert "grows from step to step" not in (lead.cause or "")


def test_the_gpu_that_torchs_capability_warning_names_is_said_back() -> None:
    cases = [
        (  # alievk/avatarify-python#58
            "`    Found GPU0 GeForce GTX 660 Ti which is of cuda capability 3.0.\n"
            "    PyTorch no longer supports this GPU because it is too old.\n"
            "    The minimum cuda capability that we support is 3.5.`\n\n"
            "`RuntimeError: CUDA error: no kernel image is available for execution on the device`",
            "torch's warning names GPU0: GeForce GTX 660 Ti, of cuda capability 3.0",
        ),
        (  # AUTOMATIC1111/stable-diffusion-webui#3003
            "The console returned a pretty cut and dry error: Found GPU0 NVIDIA GTX TITAN Black which is "
            "of cuda capability 3.5. PyTorch no longer supports this GPU because it is too old. The minimum "
            "cuda capability supported by this library is 3.7.",
            "torch's warning names GPU0: NVIDIA GTX TITAN Black, of cuda capability 3.5",
        ),
        (  # w-okada/voice-changer#447
            "Found GPU0 GeForce GT 720 which is of cuda capability 3.5.\n"
            "PyTorch no longer supports this GPU because it is too old.\n"
            "The minimum cuda capability supported by this library is 3.7.",
            "torch's warning names GPU0: GeForce GT 720, of cuda capability 3.5",
        ),
        (  # IAHispano/Applio#1006
            "`C:\\AI\\APPLIO\\ApplioV3.2.8-bugfix\\env\\lib\\site-packages\\torch\\cuda\\__init__.py:209: "
            "UserWarning:\nNVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the "
            "current PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_50 "
            "sm_60 sm_61 sm_70 sm_75 sm_80 sm_86 sm_90.",
            "torch's warning names the GPU: NVIDIA GeForce RTX 5090, of CUDA capability sm_120",
        ),
        (  # Hellod035/LeggedLab#26: the warning after a log prefix on its line
            "报错：\nNVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current "
            "PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 "
            "sm_75 sm_80 sm_86 sm_90.",
            "torch's warning names the GPU: NVIDIA GeForce RTX 5090, of CUDA capability sm_120",
        ),
    ]
    for text, named in cases:
        lead = _explained(text)[0]
        assert lead.id == "cuda.no_kernel_image", text
        assert lead.evidence[0].startswith("the GPU is sm_") and lead.evidence[1] == named, lead.evidence
    # a warning whose line names no GPU says the capability alone
    lead = _explained(
        "GPU with CUDA capability sm_120 is not compatible with the current PyTorch installation."
    )[0]
    assert lead.evidence[0] == "the GPU is sm_120 (compute capability 12.0)"


def test_a_geforce_model_said_without_its_brand_or_with_the_wrong_one_is_looked_up() -> None:
    cases = [
        (  # AliaksandrSiarohin/first-order-model#323: a bare number after "on a"
            "RuntimeError: CUDA error: no kernel image is available for execution on the device\n\n"
            "I am on a 3080 and have installed the CUDA 11.0 supported version of torch.\n"
            "Does anyone have any ideas? Issue #302 seemed to fix it but he doesn't explain how.",
            "the text names the 3080 (the GeForce RTX 3080): sm_86 (compute capability 8.6)",
        ),
        (  # limhoyeon/ToothGroupNetwork#16: a bare number before a GPU word ("graphics card")
            "CUDA error: no kernel image is available for execution on the device\n\n"
            "更新一下，我使用的服务器3090显卡，试用一下命令安装了torch和cuda: pip install -i "
            "https://pypi.tuna.tsinghua.edu.cn/simple torch==1.12.1+cu113 torchvision==0.13.1+cu113",
            "the text names the 3090 (the GeForce RTX 3090): sm_86 (compute capability 8.6)",
        ),
        (  # Comfy-Org/ComfyUI#10400: a number with the Ti suffix, no brand
            "1080ti error\n\nCLIPTextEncode\nCUDA error: no kernel image is available for execution on the "
            "device\nCUDA kernel errors might be asynchronously reported at some other API call, so the "
            "stacktrace below might be incorrect.",
            "the text names the 1080ti (the GeForce GTX 1080 Ti): sm_61 (compute capability 6.1)",
        ),
        (  # duixcom/Duix-Avatar#283
            "5070Ti提示出错no kernel image is available for execution on the device CUDA kernel errors might "
            "be asynchronously",
            "the text names the 5070Ti (the GeForce RTX 5070 Ti): sm_120 (compute capability 12.0)",
        ),
        (  # kanhavishva/KeyHunt-Cuda#53: GeForce's GT brand
            "no kernel image is available for execution this device\n\nv. 1.03\n"
            "CUDA 10.1 runtime with gt650m",
            "the text names the gt650m (the GeForce GT 650M): sm_30 (compute capability 3.0)",
        ),
    ]
    for text, named in cases:
        lead = _explained(text)[0]
        assert lead.id == "cuda.no_kernel_image", text
        assert lead.evidence[0] == named, lead.evidence
    # the wrong brand: a "GTX 2080" is the RTX 2080 (constructed)
    lead = _explained("CUDA error: no kernel image is available. My GPU is a GTX 2080")[0]
    assert lead.evidence[0].startswith("the text names the GTX 2080 (the GeForce RTX 2080): sm_75")
    # numbers inside sizes and amounts are no GPU (constructed)
    sizes = "CUDA error: no kernel image is available. Images of 1920x1080 and (1920, 1200), on a 1024 GiB"
    assert not _explained(sizes)[0].evidence


def test_the_input_size_said_in_prose_beside_an_out_of_memory_is_quoted() -> None:
    cases = [
        (  # JingyunLiang/MANet#13
            "# CUDA out of memory\n\nwhen run python test.py --opt options/test/test_stage3.yml , input size "
            '(1920,1080,3),i want to get the image of  size (3840,3160,3),print "CUDA out of memory"error,Is '
            "this a normal phenomenon?",
            "the text gives the input sizes: (1920,1080,3), (3840,3160,3)",
        ),
        (  # chenxi116/DeepLabv3.pytorch#16
            'Furthermore, I\'m experiencing the same "CUDA out of memory error" at inference time (and here '
            "the batch size is set to 1). Is it the dimension (1025, 2049) correct for images at inference "
            "time?",
            "the text gives the input size: (1025, 2049)",
        ),
        (  # cswry/SeeSR#9
            "# When input image is 480 * 960, there is CUDA out of memory error.",
            "the text gives the input size: 480 * 960",
        ),
        (  # open-mmlab/mmdetection#4847
            "The first set of it contains larger images that most of which are about 350x350 with some "
            "even larger in 700x1500 that approximately 120kb.\n\nError message:\nRuntimeError: CUDA out "
            "of memory. Tried to allocate 20.00MiB (GPU 0; 10.76 GiB total capacity; 9.41 GiB already "
            "allocated; 11.38MiB free; 9.86 GiB reserved in total by PyTorch)",
            "the text gives the input sizes: 350x350, 700x1500",
        ),
    ]
    for text, line in cases:
        (lead,) = _explained(text)
        assert line in lead.evidence, lead.evidence
    # a pair of numbers that no size word introduces, a hex number or a 3*4 is no input size (constructed)
    (lead,) = _explained("CUDA out of memory at step (0, 1); address 0x1234, 3*4 blocks")
    assert not any("input size" in e for e in lead.evidence)


def test_an_oom_that_began_with_nothing_changed_on_the_writers_side_is_a_change_under_the_program() -> None:
    cases = [
        (  # hollowstrawberry/kohya-colab#262
            "# Out of Memory, after an update?\n\nI've got an error, \"torch.OutOfMemoryError: CUDA out of "
            'memory."\nIm using the free T4 version, not the A100 one but yesterday I made a model in T4 and '
            "it worked without a problem, today I wanted to redo this model with same settings, I have "
            "noticed some changes, and after a while I've got the error.",
            "yesterday I made a model in T4 and it worked",
        ),
        (  # AUTOMATIC1111/stable-diffusion-webui#11960
            "# [Bug]: HiRes – CUDA out of memory (this is new – worked yesterday)\n\nI removed all models "
            "but one, deleted the config files, removed my embeddings, extensions, only use the parameters "
            "the Colab notebook requires. Everything worked last night. Gradio update? Something else?",
            "worked last night",
        ),
        (  # vc1492a/tidd#47
            "# CUDA out of memory for Tesla P4\n\n@vc1492a Yesterday I tried rerunning the new commits on "
            "Wednesday and yesterday that you have added and I seem to be running into the error where CUDA "
            "runs out of memory. I was wondering what changed since I was able to run it on the P4 earlier "
            "in the week.",
            "able to run it on the P4 earlier in the week",
        ),
        (  # googlecolab/colabtools#2001
            'When executing my code, I keep getting the error message "CUDA out of memory. Tried to allocate '
            "3.35 GiB (GPU 0; 15.78 GiB total capacity; 14.23 GiB already allocated; 210.75 MiB free; 14.28 "
            'GiB reserved in total by PyTorch)". The code was working previously and nothing has been '
            "changed.",
            "nothing has been changed",
        ),
        (  # camenduru/text-to-video-synthesis-colab#8
            'I\'m using the "original" notebook. At first it ran just fine and dandy for a few days, but '
            'since 2 days ago or so it\'s giving me almost always "CUDA OUT OF MEMORY". Other times it '
            "doesn't, which makes it even weirder, and I can't find anything that would have changed within "
            "the past 2 days.",
            "since 2 days ago",
        ),
    ]
    for text, words in cases:
        (lead,) = _explained(text)
        line = f"the text says the same program ran before ('{words}'): what changed is under it"
        assert line in lead.evidence, lead.evidence
        assert "regression" in lead.cause and "a smaller GPU than before" in lead.cause
        assert "latest version of the program or notebook" in lead.fix.text and "pin" in lead.fix.text
    # a change the writer made is no change under the program (constructed)
    (lead,) = _explained("It worked before I doubled the batch size. RuntimeError: CUDA out of memory.")
    assert "regression" not in (lead.cause or "")


def _ids(text: str) -> list[str]:
    return [e.id for e in _explained(text)]


def _led_by(text: str, entry_id: str) -> Explanation:
    """The lead explanation of ``text``, which must be ``entry_id``'s."""
    found = _explained(text)
    assert found and found[0].id == entry_id, [e.id for e in found]
    return found[0]


def _one(text: str, entry_id: str) -> Explanation:
    found = [e for e in _explained(text) if e.id == entry_id]
    assert found, (entry_id, _ids(text))
    return found[0]


def test_an_extension_build_without_a_cuda_toolkit_it_can_find_names_cuda_home() -> None:
    # torch.utils.cpp_extension finds the CUDA toolkit (for nvcc) by CUDA_HOME or CUDA_PATH, then by the
    # nvcc on PATH, then /usr/local/cuda; the threads' fix was to point CUDA_HOME at the toolkit's root.
    cases = [
        # rosinality/stylegan2-pytorch#318
        "hello, I meet an error when I run generate.py\nOSError: CUDA_HOME environment variable is not set. "
        "Please set it to your CUDA install root.\ncan you tell me how should I do? thanks.",
        # NVIDIA/flownet2-pytorch#218 ("I think you should set CUDA_HOME, you can see it in /usr/local/cuda")
        '  File "/home/user/.local/lib/python3.7/site-packages/torch/utils/cpp_extension.py", line 1252, in '
        "_join_cuda_home\n    raise EnvironmentError('CUDA_HOME environment variable is not set. '\n\n"
        "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.",
        # OpenBMB/CPM-Live#244 (pip building bmtrain's CUDAExtension)
        "      raise EnvironmentError('CUDA_HOME environment variable is not set. '\n"
        "      OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.\n"
        "      [end of output]",
    ]
    for text in cases:
        lead = _led_by(text, "build.cuda_home_unset")
        assert "nvcc" in lead.cause and "CUDA toolkit" in lead.cause
        assert "export CUDA_HOME=" in lead.fix.text and "nvcc --version" in " ".join(lead.fix.commands)


def test_a_distributed_call_without_a_process_group_names_syncbatchnorm_on_one_gpu() -> None:
    # SyncBatchNorm (and DDP, dist.get_rank) need torch.distributed's default process group; a single-GPU
    # run that never calls init_process_group fails. The threads' fix: BatchNorm for SyncBatchNorm.
    cases = [
        # zcablii/LSKNet#54 ("Try to change 'SyncBN' to 'BN'.")
        "# Default process group has not been initialized, please make sure to call init_process_group.",
        # NiccoloCavagnero/PEM#10 (SyncBatchNorm layers converted to BatchNorm; one GPU, Windows)
        "my gpu is 3070m with windows. When start train  it show RuntimeError: Default process group has "
        "not been initialized, please make sure to call init_process_group.",
        # megvii-model/DetNAS#35 (torch before 1.6 asserted; SyncBN replaced for one GPU)
        "I only have one GPU, and when I trained the supernet on coco, there was an error that "
        '"AssertionError: Default process group is not initialized"',
        # CoinCheung/BiSeNet#70 (DistributedDataParallel built without a process group)
        '  File "/home/jiapy/virtualEnv/py3.6torch1.2/lib/python3.6/site-packages/torch/nn/parallel/'
        'distributed.py", line 268, in __init__\n    self.process_group = _get_default_group()\n'
        "**RuntimeError: Default process group has not been initialized, please make sure to call "
        "init_process_group.**",
    ]
    for text in cases:
        lead = _led_by(text, "dist.no_process_group")
        assert "init_process_group" in lead.cause and "SyncBatchNorm" in lead.cause
        assert "BatchNorm" in lead.fix.text and "torchrun --nproc_per_node=1" in lead.fix.text


def test_nvcc_that_does_not_know_the_architecture_is_an_other_or_older_toolkit() -> None:
    # nvcc rejects an architecture its CUDA release does not know: the nvcc that ran is older than the GPU
    # (or another toolkit than the one believed, /usr/bin/nvcc); the threads changed the CUDA toolkit.
    cases = [
        # Ruyi-Zha/naf_cbct#15 ('You might need to change the Cuda version in your system')
        (
            'I configured the environment to run on RTX3090 with this "nvcc fatal: Unsupported gpu '
            "architecture 'compute_86' ninja: build stopped: subcommand failed. \"I want to ask how to solve "
            "this?",
            "compute_86",
            "CUDA 11.1",
        ),
        # zai-org/VisualGLM-6B#94 (a cuda10.2 environment; 'change the CUDA version to suit your device')
        (
            "# nvcc fatal : Unsupported gpu architecture 'compute_86'\n\n环境cuda10.2-cudnn7-devel",
            "compute_86",
            "",
        ),
        # XingangPan/DragGAN#46 (a 4090 and 'cuda:12.0', yet the nvcc that ran does not know compute_86)
        (
            "4090\nx86\nubuntu\ncuda:12.0\nNVIDIA-SMI 525.105.17\n\nwhen i run "
            "visualizer_drag_gradio.py ,i get this error\n(nvcc fatal   : Unsupported gpu architecture "
            "'compute_86'\nninja: build stopped: subcommand failed.)",
            "compute_86",
            "",
        ),
        # microsoft/Cream#75 (the build ran /usr/bin/nvcc; its long command line elided as [...])
        (
            "FAILED: /home/UserDirectory/hongshengz/Stark-main/lib/models/stark/rpe_ops/build/"
            "temp.linux-x86_64-3.8/rpe_index_cuda.o \n/usr/bin/nvcc --generate-dependencies-with-compile "
            "[...] -DWITH_CUDA [...]\nnvcc fatal   : Unsupported gpu architecture 'compute_86'",
            "compute_86",
            "/usr/bin/nvcc",
        ),
    ]
    for text, arch, said in cases:
        lead = _led_by(text, "build.nvcc_unsupported_arch")
        joined = _said(lead)
        assert arch in joined and said in joined, joined
        assert "which nvcc" in lead.fix.commands and "CUDA toolkit" in lead.fix.text
        assert "TORCH_CUDA_ARCH_LIST" in lead.fix.text
    # the nvcc the build ran is quoted from its command line (microsoft/Cream#75)
    assert any(line.startswith("the nvcc that ran: /usr/bin/nvcc") for line in lead.evidence), lead.evidence


def test_nvrtc_that_does_not_know_the_gpu_is_a_torch_cuda_older_than_the_gpu() -> None:
    # NVRTC (torch's runtime compiler: jiterator, TorchScript's fuser) ships with torch's CUDA; a GPU newer
    # than it is rejected. The threads installed a torch built with a newer CUDA (pytorch/pytorch#87595).
    cases = [
        # Improbable-AI/walk-these-ways#72 (fixed with a cu116/cu118 build)
        (
            "RuntimeError: The following operation failed in the TorchScript interpreter. Traceback of "
            "TorchScript (most recent call last): RuntimeError: nvrtc: error: invalid value for "
            "--gpu-architecture (-arch)\n\nI am getting this error.\nI am using RTX 4090\nCUDA 11.3\n",
            "RTX 4090",
        ),
        # ShoufaChen/DiffusionDet#107 ('I have set the CUDA version from 11.2 to 11.8, it works')
        (
            "# RuntimeError: nvrtc: error: invalid value for --gpu-architecture (-arch) ON RTX4090\n\nWhen i "
            "run  python train_net.py --num-gpus  1 --config-file configs/diffdet.coco.res50.yaml on 4090，"
            "some error occurs.",
            "RTX4090",
        ),
        # sczhou/CodeFormer#167 ('update CUDA >= 11.8' with the cu118 wheels)
        (
            "# RTX 4090 Error: nvrtc: error: invalid value for --gpu-architecture (-arch)\n\nI'm getting "
            "this error when I try to use codeformer. Does it not work with a 4090?",
            "RTX 4090",
        ),
        # WisconsinAIVision/yolact_edge#107 (an RTX 3090 under torch 1.7: 'try updating to PyTorch 1.7.1')
        (
            "RuntimeError: nvrtc: error: invalid value for --gpu-architecture (-arch) nvrtc compilation "
            "failed:\npython:3.7\npytorch 1.7\ncuda 11.0\nRTX 3090",
            "RTX 3090",
        ),
    ]
    for text, gpu in cases:
        lead = _led_by(text, "cuda.nvrtc_unknown_arch")
        joined = _said(lead)
        assert gpu in joined and "sm_8" in joined, joined
        assert "newer" in lead.fix.text and "cu118" in lead.fix.text


def test_the_first_gpu_running_out_under_dataparallel_names_its_gathering() -> None:
    # nn.DataParallel keeps the model on the first GPU, scatters from it and gathers every output there: that
    # GPU needs more memory than the others and runs out first (the maintainers' and PyTorch's answer).
    cases = [
        # ethnhe/FFB6D#35 (solved by moving to DistributedDataParallel, one process per GPU)
        "When I ran the script, I got out of memory.\nMy main problem comes from the 0 GPU get more memories "
        "than others.",
        # NoamRosenberg/autodeeplab#2 (nn.DataParallel; 'only GPU0 works in training')
        "Hi, I have 4x12GB gpus, but is seams only the first one works. \nout of memory were encountered "
        "after few second training.",
        # junyanz/pytorch-CycleGAN-and-pix2pix#545 ('GPU0 also needs to do the work of combining')
        "When I am trying to use 4 gpus to train the model with batchsize 4, I failed. Seems to be the first "
        "gpu memory overflow. Any suggestions to fix both issues?",
        # alexklwong/calibrated-backprojection-network#5 (the forum's 'DataParallel imbalanced memory usage')
        "I'm facing the problem of uneven GPU memories when training the model with multiple GPUs. It costs "
        "much more memory on GPU#0 than others. I think the main reason is that DataParallel can only "
        "compute losses on GPU#0.",
    ]
    for text in cases:
        lead = _led_by(text, "ddp.all_on_first_gpu")
        assert "DataParallel" in lead.cause and "gathers" in lead.cause, lead.cause
        assert "DistributedDataParallel" in lead.fix.text and "batch size" in lead.fix.text
        assert "nccl.hang" not in _ids(text)
    # 'hang' inside another word ('changed', 'exchange') is no hang (constructed)
    assert "nccl.hang" not in _ids("I changed the multi-gpu settings and the exchange of weights.")


def test_tensors_on_two_gpus_are_told_apart_from_a_cpu_and_gpu_mismatch() -> None:
    # Two GPUs in the message: a tensor made on the current device ('cuda', .cuda(): cuda:0) beside a model
    # sent to another GPU (--device cuda:1), or a model split over the visible GPUs (device_map='auto'). The
    # threads' fix: one GPU made visible with CUDA_VISIBLE_DEVICES, device left as 'cuda'.
    cases = [
        # modelscope/facechain#43 ('CUDA_VISIBLE_DEVICES=1 python app.py' trains)
        (
            "Error: Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:0 and cuda:1! (when checking argument for argument weight in method "
            "wrapper_CUDA__cudnn_convolution)\n\n"
            "当有多张显卡的时候，会找不到指定的显卡，请问需要怎么解决？",
            "cuda:0 and cuda:1",
        ),
        # zhiheLu/CWT-for-FSS#12 ('This could be solved by setting CUDA_VISIBLE_DEVICES=1.')
        (
            "# RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:1 and cuda:0! (when checking argument for argument weight in method "
            "wrapper__cudnn_convolution)",
            "cuda:1 and cuda:0",
        ),
        # magic-research/bubogpt#11 ('make the cuda devices = 0 before importing torch')
        (
            "# RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:1 and cuda:0!\n\nI am running this on a docker image, does anyone know a fix for this "
            "error?",
            "cuda:1 and cuda:0",
        ),
        # WeihaoTan/TWOSOME#5 ('Please set CUDA_VISIBLE_DEVICES before you run')
        (
            "I found that when I do not set `CUDA_VISIBLE_DEVICES=0`, the code using multiple GPU by "
            "default, and there is a bug:\n```bash\nRuntimeError: Expected all tensors to be on the same "
            "device, but found at least two devices, cuda:0 and cuda:1!\n```",
            "cuda:0 and cuda:1",
        ),
    ]
    for text, devices in cases:
        lead = _led_by(text, "tensors.different_devices")
        assert any(devices in line for line in lead.evidence), lead.evidence
        assert "two GPUs" in lead.cause and "current device" in lead.cause
        assert "more than one GPU is visible" in lead.cause  # none of these texts chooses a GPU
        assert "CUDA_VISIBLE_DEVICES=" in lead.fix.text
    # a GPU and the CPU keep the general answer (constructed)
    lead = _explained(
        "RuntimeError: Expected all tensors to be on the same device, but found at least two "
        "devices, cuda:0 and cpu!"
    )[0]
    assert "two GPUs" not in lead.cause


def test_memory_that_grows_in_validation_names_autograd_left_on() -> None:
    # A forward pass with autograd on keeps its graph (and the activations it needs) while its outputs live;
    # in a validation loop without torch.no_grad() memory grows until it runs out. The threads' fix:
    # torch.no_grad() around the evaluation.
    cases = [
        # hszhao/semseg#60 (the fix: with torch.no_grad() around output = model(input))
        '# "out of memory" during validation\n\nWhen performing validation for each Epoch, "out of memory" '
        "occurs after validation.",
        # pytorch/pytorch#4932 (volatile=True no longer works: 'replaced by with torch.no_grad()')
        "I use this example https://github.com/pytorch/examples/blob/master/imagenet/main.py\nbut I found in "
        "validation phase, the gpu get more and more memory.",
        # skorch-dev/skorch#218 (wrapping validation_step() in no_grad 'solved my problem')
        "```\nRuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/generic/"
        "THCStorage.cu:58\n```\n\nI narrowed down the source to be the validation step. After each "
        "validation batch the GPU memory consumption increases until nothing in left.",
        # leftthomas/SRGAN#43 ('adding with torch.no_grad(): to the entire validation for loop')
        "The first epoch training works fine, I use the same batch size as before and then when the "
        "validation come the GPU memory explode after some iterations (19% of the validation loop).",
    ]
    for text in cases:
        found = [e for e in _explained(text) if e.id == "memory.graph_kept_in_eval"]
        assert found, _ids(text)
        (entry,) = found
        assert "computation graph" in entry.cause and "autograd" in entry.cause
        assert "torch.no_grad()" in entry.fix.text and "inference_mode" in entry.fix.text
    # an out-of-memory in training says nothing of evaluation (constructed)
    assert "memory.graph_kept_in_eval" not in _ids(
        "Training runs out of memory at epoch 3; the test set is small."
    )


def test_a_cudnn_or_cublas_memory_error_quotes_the_batch_size_the_text_gives() -> None:
    # cuDNN's 'Unable to find a valid cuDNN algorithm' (and cuBLAS's allocation failures) are most often the
    # GPU out of memory: the batch size the writer states is the figure to quote, as for a CUDA OOM.
    cases = [
        # deepakn97/relationPrediction#37
        (
            "I have the following problems: RuntimeError: Unable to find a valid cuDNN algorithm to run "
            "convolution\nI changed the batch_size from 128 to 32 or less, but it still doesn't work.",
            "batch_size from 128 to 32",
        ),
        # CGCL-codes/pFedSD#2
        (
            "# 'Unable to find a valid cuDNN algorithm to run convolution'\n\ni search on the stackoverflow "
            "and someone said decreasing the batch size may works. However when I change the batch size from "
            "64 to 16, same bug accurs.\nThe code is running on 2 NVIDIA 3090 GPUs.",
            "batch size from 64 to 16",
        ),
        # ultralytics/yolov3#1934
        (
            "`python train.py --img 640 --batch 1 --epochs 5 --data data/coco128.yaml --weights yolov3.pt "
            "--device 0 --workers 1 --batch-size 2`\n\nand it always sent the error tip:\n`RuntimeError: "
            "Unable to find a valid cuDNN algorithm to run convolution`,",
            "--batch-size 2",
        ),
        # gml16/rl-medical#13 (the maintainer: the replay buffer kept on the GPU, then a batch size of 1)
        (
            "However, I met an error saying that'RuntimeError: Unable to find a valid cuDNN algorithm to run "
            "convolution'.\nI changed the batch size from 64 to 32 but the same problem occurred.",
            "batch size from 64 to 32",
        ),
    ]
    for text, batch in cases:
        lead = _led_by(text, "cudnn.status_error")
        assert f"the text gives the batch size: {batch}" in lead.evidence, lead.evidence


def test_no_kernel_image_from_an_extension_built_here_names_its_rebuild() -> None:
    # A package's own CUDA kernels (an extension compiled with setup.py, pip from source, a compile script)
    # carry only the architectures they were built for (TORCH_CUDA_ARCH_LIST, else the GPUs present at build
    # time): on another GPU they have no kernel image, whatever torch's wheel has. The threads rebuilt them.
    cases = [
        # open-mmlab/mmcv#2201 ('export TORCH_CUDA_ARCH_LIST=7.0,8.0 and then build mmcv-full'; solved)
        (
            "When I use A100 compile mmcv through the source code, used MMCV_WITH_OPS = 1 python install "
            "-e . on Linux, then I save mmcv to directory. I repeated the above operation under this "
            "directory, but use V100, then I encountered this error.\nException has occurred: "
            "RuntimeError\nCUDA error: "
            'no kernel image is available for execution on the device\n  File "/root/mmcv/mmcv/ops/'
            'focal_loss.py", line 60, in forward\n    ext_module.sigmoid_focal_loss_forward(',
            "",
        ),
        # csuhan/ReDet#49 ('TORCH_CUDA_ARCH_LIST=8.0 bash compile.sh')
        (
            "# RuntimeError: CUDA error: no kernel image is available for execution on the device\n\nI solve "
            "this problem by compiling the compile.sh in the following instruction",
            "",
        ),
        # pytorch/pytorch#81883 ('I do have a custom CUDA kernel installed')
        (
            "Hi, I am getting this error with PyTorch 2.0.1 installed with CUDA 11.8 support on a GPU with "
            "CUDA Version 12.0\n\nI do have a custom CUDA kernel installed - is there a way to specify which "
            "CUDA architecture to target when compiling?\nRuntimeError: CUDA error: no kernel image is "
            "available for execution on the device",
            "",
        ),
    ]
    for text, gpu in cases:
        lead = _led_by(text, "cuda.no_kernel_image")
        assert "extension" in lead.cause and gpu in _said(lead)
        assert lead.fix.text.startswith("Rebuild the CUDA extension"), lead.fix.text
        assert "TORCH_CUDA_ARCH_LIST" in lead.fix.text
    # without a sign of a build here, torch's build leads, the extension's rebuild follows (constructed)
    lead = _explained("RuntimeError: CUDA error: no kernel image is available for execution on the device")[0]
    assert not lead.fix.text.startswith("Rebuild") and "TORCH_CUDA_ARCH_LIST" in lead.fix.text


def test_an_extensions_own_report_of_a_missing_kernel_names_the_extension() -> None:
    # torch reports a failed launch as "CUDA error: ..."; an extension's own check macro says "CUDA kernel
    # failed : ..." (the PointNet++ family's CUDA_CHECK_ERRORS) or "cudaCheckError() failed", often with its
    # source file. The kernel without an image is the extension's: the threads rebuilt it (another CUDA, the
    # package's setup run again) or ran it on a GPU it was built for.
    cases = [
        # facebookresearch/PointContrast#31 ('consider to change your cuda version other than 9.0 / 10.2')
        (
            "'sample_gpu.cu' error\n```\nCUDA kernel failed : no kernel image is available for execution on "
            "the device\nvoid furthest_point_sampling_kernel_wrapper(int, int, int, const float*, float*, "
            "int*) "
            "at L:233 in "
            "/private/home/yufeiy2/ssl3d/PointContrast/downstream/votenet_det_new/models/backbone/"
            "pointnet2/_ext_src/src/sampling_gpu.cu\n```",
            "",
        ),
        # mkt1412/GraspGPT_public#8 (the PointNet2 extension reinstalled with setup.py)
        (
            "# CUDA kernel failed : no kernel image is available for execution on the device\n\nHi team, "
            "thank "
            "you so much for your work. \n\nI got a problem as the tittle shows. A lot of search work has "
            "been "
            "done, I eventially found it is an old problem of PointNet2.",
            "",
        ),
        # paul007pl/MVP_Benchmark#20 ('go the the mm3d_pn2 directory and the do `pip install -v -e . `')
        (
            "# CUDA kernel failed : no kernel image is available for execution on the device\n\nAny idea, "
            "why "
            "this issue may be coming? This is coming for ecg and vrcnet. Not for pcn.",
            "",
        ),
        # pytorch/pytorch#124024 ('the external `CUDAExtension` in the linked repo wasn't built with support
        # for your (rather ancient) GPU')
        ("# CUDA kernel failed: no kernel image is available for execution on the device", ""),
        # CSAILVision/unifiedparsing#6 ('My GPU is K80, which not compatible. I change to GPU V100-SXM2. then
        # it works')
        (
            "# error: cudaCheckError() failed : no kernel image is available for execution on the device\n\n"
            "when i run ./demo_test.sh file, i get the error:\n\ncudaCheckError() failed : no kernel image "
            "is "
            "available for execution on the device",
            "",
        ),
    ]
    for text, gpu in cases:
        lead = _led_by(text, "cuda.no_kernel_image")
        assert "extension" in lead.cause and gpu in _said(lead)
        assert lead.fix.text.startswith("Rebuild the CUDA extension"), lead.fix.text
    # a .cu file of torch's own tree is no sign of an extension (constructed around torch's path)
    lead = _explained(
        "/pytorch/aten/src/ATen/native/cuda/Loss.cu:102: RuntimeError: CUDA error: no kernel image is "
        "available for execution on the device"
    )[0]
    assert not lead.fix.text.startswith("Rebuild"), lead.fix.text


def test_gpus_of_different_capabilities_named_in_one_text_are_each_said_with_theirs() -> None:
    # "It runs on one GPU and not on the other": a build (or an extension) with kernels for one capability
    # and not the other. Each GPU is said with its capability rather than none because they differ.
    cases = [
        # uzh-rpg/rpg_vid2e#41 (a docker image of pytorch 1.6 / CUDA 10.2, which has no sm_86)
        (
            "# I can run on gtx1080ti, but can't run on rtx 2080ti or rtx 3090, I always meet the error "
            "below."
            "\n\n ```python\nRuntimeError: CUDA error: no kernel image is available for execution on the "
            "device\n```\nAnd my docker environment is: cuda10.2, cudnn7, pytorch1.6, python3.7.",
            ["gtx1080ti (the GeForce GTX 1080 Ti) (6.1)", "(7.5)", "rtx 3090 (the GeForce RTX 3090) (8.6)"],
        ),
        # CSAILVision/unifiedparsing#6 (the reporter: 'My GPU is K80, which not compatible. I change to GPU
        # V100-SXM2. then it works'; the text here runs through that comment, where the GPUs are named)
        (
            "cudaCheckError() failed : no kernel image is available for execution on the device\n\ndoes "
            "someone know how to solve it? \n\nThanks!\n\nqiuyinglin · comment · 2018-11-15\nok, i finally "
            "figure out. My GPU is K80, which not compatible.  I change to GPU V100-SXM2. then it works",
            ["K80 (the Tesla K80) (3.7)", "V100 (the Tesla V100) (7.0)"],
        ),
        # pytorch/pytorch#156968 (a program built and packaged on an RTX 4090D, run on an RTX 3050 Ti)
        (
            "# no kernel image is available for execution on the device\n\nI successfully ran "
            "simple_trainer.py"
            "(gsplat) on a computer with an RTX 4090D GPU, CUDA 11.8, and PyTorch 2.4.0,python 3.10.16; then "
            "packaged it using PyInstaller. When running the packaged program on a computer with an RTX "
            "3050 Ti "
            "GPU, I encountered the following error.\n\n![Image](https://github.com/user-attachments/assets/"
            "f92f83fd-5c0f-4e19-b582-8dc52d3a4442)\n\nHowever, this program could run normally on another "
            "computer equipped with an RTX 4060 GPU.",
            # the RTX 4090D, said first, is of the RTX 4060's capability (8.9)
            ["RTX 3050 Ti (the GeForce RTX 3050 Ti) (8.6)", "RTX 4090D (the GeForce RTX 4090 D) (8.9)"],
        ),
    ]
    for text, gpus in cases:
        lead = _led_by(text, "cuda.no_kernel_image")
        said = _said(lead)
        assert all(gpu in said for gpu in gpus), lead.evidence


def test_a_gpu_name_several_models_share_is_said_with_each_capability() -> None:
    # 'TITAN X' is the GeForce GTX TITAN X (Maxwell, 5.2) or the NVIDIA TITAN X (Pascal, 6.1): both said
    # rather than one guessed (constructed around the message).
    lead = _explained(
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
        "My GPU is a TITAN X."
    )[0]
    joined = _said(lead)
    assert "TITAN X" in joined and "5.2" in joined and "6.1" in joined, joined


def test_a_cuda_visible_devices_that_does_not_take_names_the_program_setting_it_itself() -> None:
    # CUDA_VISIBLE_DEVICES is read once, when CUDA starts: a program that sets it itself from its own GPU
    # option (--gpu, default 0) overrides the shell's, and one set in code after CUDA started does nothing.
    # The threads chose the GPU through the program's option, or set the variable before torch.
    cases = [
        # jychoi118/P2-weighting#18 (dist_util.py sets os.environ["CUDA_VISIBLE_DEVICES"] itself)
        "# Use CUDA_VISIBLE_DEVICES=x\n\nThanks a lot for this work. But when I use CUDA_VISIBLE_DEVICES=x, "
        "it still works on GPU 0. That's why",
        # pinellolab/chorus#72 (the second job OOM'd on physical GPU 0)
        "# scripts/build_backgrounds_chrombpnet.py: --gpu N silently overrides outer CUDA_VISIBLE_DEVICES",
        # open-mmlab/mmdetection3d#1020 (os.environ set after import torch; 'right after import os and
        # before import torch' solved it)
        "When I added os.environ['CUDA_VISIBLE_DEVICES']='1' (or any gpu id that is not 0) in train.py,\n"
        "the code will always use cuda:0,\nHowever, if I set CUDA_VISIBLE_DEVICES=1 in bash command, \nthe "
        "code will use cuda:1",
        # alibaba/EasyNLP#35 (the script's export and os.environ both without effect)
        "# 脚本里的export CUDA_VISIBLE_DEVICES不起作用\n\n脚本里的export CUDA_VISIBLE_DEVICES不起作用，"
        'main函数里的os.environ["CUDA_VISIBLE_DEVICES"] = "1"也没有作用，'
        "不论设置多少值都会默认在0号卡上运行。",
    ]
    for text in cases:
        found = [e for e in _explained(text) if e.id == "cuda.visible_devices_not_applied"]
        assert found, _ids(text)
        (entry,) = found
        assert "overrides" in entry.cause and "too late" in entry.cause
        assert "--gpu" in entry.fix.text and "before import torch" in entry.fix.text
    (entry,) = [e for e in _explained(cases[2]) if e.id == "cuda.visible_devices_not_applied"]
    assert any("os.environ" in line for line in entry.evidence), entry.evidence


def test_the_batch_size_of_a_launch_option_or_a_trainer_log_is_quoted() -> None:
    # Launch commands name the batch size in options with a prefix (--per_device_train_batch_size 1,
    # --train_batch_size="1") and the Hugging Face Trainer logs it per device: each is the figure to quote
    # beside an out-of-memory (an evaluation batch is not the training step's).
    cases = [
        # McGill-NLP/llm2vec#84
        (
            "torchrun --nproc_per_node=4 examples/pytorch/language-modeling/run_clm.py\\\n"
            '     --model_name_or_path "meta-llama/Llama-2-7b-hf"\\\n     --per_device_train_batch_size 1\\\n'
            "     --per_device_eval_batch_size 1\\\n     --do_train\\\n     --block_size 2048\\\n"
            "However, I kept getting a CUDA out of memory error.",
            "--per_device_train_batch_size 1",
        ),
        # bmaltais/kohya_ss#623
        (
            "# RuntimeError: CUDA out of memory. Tried to allocate 146.00 MiB (GPU 0; 8.00 GiB total "
            "capacity; 7.21 GiB already allocated; 0 bytes free; 7.32 GiB reserved in total by PyTorch)\n\n"
            'accelerate launch --num_cpu_threads_per_process=2 "train_db.py" [...] --resolution=512,512 '
            '[...] --max_data_loader_n_workers="1" --learning_rate="0.0001" --lr_scheduler="constant" '
            '--train_batch_size="1" --max_train_steps="1500" [...]',
            '--train_batch_size="1"',
        ),
        # huggingface/transformers#9090
        (
            "# run_clm example gives `CUDA out of memory. Tried to allocate` error\n\n[INFO|trainer.py:670] "
            "2020-12-14 02:09:02,049 >>   Num Epochs = 3\n[INFO|trainer.py:671] 2020-12-14 02:09:02,049 >>   "
            "Instantaneous batch size per device = 8\n[INFO|trainer.py:672] 2020-12-14 02:09:02,049 >>   "
            "Total train batch size (w. parallel, distributed & accumulation) = 8",
            "batch size per device = 8",
        ),
        # huggingface/transformers#12783
        (
            "# How to solve the CUDA out of memory\n\n> 07/19/2021 10:04:35 - INFO - __main__ -   "
            "Instantaneous batch size per device = 8  3.76ba/s]\n> 07/19/2021 10:04:35 - INFO - __main__ -   "
            "Total train batch size (w. parallel, distributed & accumulation) = 8",
            "batch size per device = 8",
        ),
    ]
    for text, batch in cases:
        lead = _one(text, "cuda.out_of_memory")
        assert f"the text gives the batch size: {batch}" in lead.evidence, lead.evidence


def test_a_gpu_out_of_memory_told_in_prose_is_an_out_of_memory() -> None:
    # Writers often tell the out-of-memory in their own words, without torch's message (or before it): the
    # same explanation, with the batch size they give. The threads lowered the batch size.
    cases = [
        # leoxiaobin/deep-high-resolution-net.pytorch#54
        (
            "I am training a small dataset using a GTX 1070. I have installed the correct requirements and "
            "dependencies and everything seems to run fine on the train.py. The only issue is that the "
            "graphics card runs out of memory. This is an 8 gb card.\n\nBesides changing the batch size is "
            "there anything that can be done to reduce the memory load?",
            "",
        ),
        # isayev/ReLeaSE#4 (the model took ~9 GB of an 8 GB GPU)
        (
            "# gpu running out of memory\n\nI've been using the code from the develop branch with pytorch "
            "0.4.",
            "",
        ),
        # pengxingang/Pocket2Mol#24 ('it is okay to use a smaller batch size to train on smaller GPUs')
        (
            "Hello, may I ask how much gpu memory is required for retraining? It reported an error during "
            "retraining, GPU memory is insufficient. Can I reduce the usage of graphics memory by changing "
            "parameters?",
            "",
        ),
    ]
    for text, _ in cases:
        lead = _one(text, "cuda.out_of_memory")
        assert "batch size" in lead.fix.text


def test_a_process_the_kernel_killed_for_host_ram_is_not_a_gpu_out_of_memory() -> None:
    # A DataLoader worker 'killed by signal: Killed' (SIGKILL) or the kernel's 'Out of memory: Killed process'
    # is the Linux OOM killer: the machine or its memory cgroup (a container, a notebook) ran out of host
    # RAM, not GPU memory. The threads used fewer workers or more RAM.
    cases = [
        # hezhangsprinter/DCPDN#12 ('set workers 0' / 'It worked thanks!!')
        (
            "when I run train.py , I got en error. Is my memory too little？My memory is 16G and Gpu "
            "memory is 8G\nDetails：\nTraceback (most recent call last):\n"
            '  File "train.py", line 210, in <module>\n'
            "    val_target_cpu, val_input_cpu = val_target_cpu.float().cuda(), "
            "val_input_cpu.float().cuda()\n"
            "RuntimeError: DataLoader worker (pid 19597) is killed by signal: Killed.",
            "",
        ),
        # open-mmlab/mmrotate#501 ('4 core / 16G memry' to '4 core / 24G memory' and the error was gone)
        ("# RuntimeError: DataLoader worker (pid ...) is killed by signal: Killed", ""),
        # thangvubk/SoftGroup#18 (the maintainer: 'your RAM is not big enough', the data is prefetched)
        (
            "Hi, I encountered a suspicious problem after running a few hundreds of training epochs:\n```\n"
            "RuntimeError: DataLoader worker (pid 75890) is killed by signal: Killed.\n```\nThe dataloader "
            "worker seemed to be stuck.",
            "",
        ),
        # pytorch/pytorch#8976 ('For me, the reason is the lack of available RAM memory.')
        ("# RuntimeError: DataLoader worker is killed by signal: Killed.", ""),
        # pcyin/tranX#41 (the kernel's line, pasted from dmesg)
        (
            "dmesg output for CPU : \n```\n[2059991.491542] Out of memory: Killed process 25315 (python3) "
            "total-vm:53312244 kB, anon-rss:31451456kB, file-rss:74816kB, shmem-rss:12296kB, UID:0\n```",
            "anon-rss:31451456kB (30.0 GiB)",
        ),
    ]
    for text, figure in cases:
        lead = _led_by(text, "host.out_of_memory")
        assert "host RAM, not of GPU memory" in lead.cause
        assert "num_workers=0" in lead.fix.text and "more RAM" in lead.fix.text
        assert "free -m" in lead.fix.commands
        assert "cuda.out_of_memory" not in _ids(text)
        assert figure in _said(lead), _said(lead)
    # a memory cgroup's limit (a container, a notebook) is said so (constructed around the kernel's line)
    lead = _explained(
        "Memory cgroup out of memory: Killed process 4121 (python3) total-vm:20480000kB, anon-rss:9437184kB"
    )[0]
    assert any("memory cgroup" in line and "anon-rss:9437184kB" in line for line in lead.evidence)
    # a worker killed by a bus error is shared memory, not this (constructed)
    assert "host.out_of_memory" not in _ids(
        "RuntimeError: DataLoader worker (pid 3855) is killed by signal: Bus error."
    )


def test_torch_not_reaching_the_gpu_told_in_prose_names_the_cpu_only_build() -> None:
    # 'torch.cuda.is_available() returns False', 'does not detect GPU', 'generates on CPU': most often a
    # CPU-only build of torch, whatever CUDA toolkit is installed. The threads reinstalled a CUDA build.
    cases = [
        # vladmandic/sdnext#409 (the installer had put in the CPU build: 'uninstall torch' and reinstall)
        (
            "# does not detect GPU, generates on CPU\n\n### Issue Description\n\nI have an RTX2060 6Gb, "
            'but the generation process starts on the CPU, in the "System Info" section it says '
            '"2.0.0+cpu Autocast half" and an empty stash in the "GPU".\n\nAt the same time, everything '
            "works fine in A1111, all "
            "the necessary drivers and CUDA toolkit are installed.",
            "2.0.0+cpu",
        ),
        # pytorch/pytorch#69202 (conda had resolved to a cpu package: 'pytorch=1.9.0=py3.8_cpu_0')
        (
            "I have tried to install cudatoolkit 11.3 with `conda install -c pytorch pytorch=1.9.0 "
            "torchvision cudatoolkit=11.3`. After successful installing pytorch, my GPU is not available "
            "anymore: "
            "torch.cuda.is_available=**False**",
            "CUDA 11.3",
        ),
        # pytorch/pytorch#51858 ('it was the PyTorch installation that made a difference, I have reinstalled')
        ("# torch.cuda.is_available() returns False", ""),
    ]
    for text, figure in cases:
        lead = _led_by(text, "cuda.not_available")
        assert "CPU-only build" in lead.cause and "toolkit" in lead.cause
        assert "--index-url https://download.pytorch.org/whl/cu" in lead.fix.text
        assert "pip uninstall torch" in lead.fix.text
        assert figure in _said(lead), _said(lead)
    # in a container the image is rebuilt; on a Jetson, NVIDIA's wheel for the JetPack (constructed)
    docker = _one(
        "Inside an image built from our Dockerfile, torch.cuda.is_available() prints False.",
        "cuda.not_available",
    )
    assert "rebuild the image" in docker.fix.text
    jetson = _one(
        "After pip install torch on an AGX Orin (JetPack 6), torch.cuda.is_available() is False.",
        "cuda.not_available",
    )
    assert "JetPack" in jetson.fix.text
    # GPU memory is not the GPU (constructed)
    assert "cuda.not_available" not in _ids("The program does not use the GPU memory it reserves.")


def test_nccl_asked_for_on_windows_is_told_to_use_gloo_where_the_program_sets_it() -> None:
    # torch for Windows is built without NCCL: the writers say so in their own words, or quote the message
    # from torch's source (two string literals) or its warning. The threads switched the program's backend
    # (its code, config or trainer option) to gloo; an environment variable the program does not read did not.
    cases = [
        # tinyvision/DAMO-YOLO#112 (the merged fix: switch the backend to 'gloo' on Windows)
        "# fix: switch backend to 'gloo' when running on windows\n\nwindows does not support NCCL",
        # Akegarasu/lora-scripts#308 ('把NCCL改GLOO就可以了': change NCCL to GLOO)
        '**Distributed package doesn\'t have NCCL " "built in"**\n老问题了。一看就是windows环境下炼丹了',
        # hiyouga/LlamaFactory#5719 ('ddp_backend: gloo' in the yaml config made it run)
        "可能是windows不支持nccl；这个分布式训练默认用的是nccl，但是我不知道怎么换",
        # ntnu-ai-lab/SelfPAB#1 (the environment variable did not change the backend)
        '# warnings.warn("PyTorch is not compiled with NCCL support")\n\nNCLL is not available on windows',
    ]
    for text in cases:
        lead = _led_by(text, "nccl.not_built")
        assert "Windows" in lead.cause and "built without NCCL" in lead.cause, lead.cause
        assert "backend='gloo'" in lead.fix.text and "config" in lead.fix.text and "Linux" in lead.fix.text
    # NCCL on Linux keeps the general answer (constructed)
    lead = _explained("RuntimeError: Distributed package doesn't have NCCL built in")[0]
    assert lead.id == "nccl.not_built" and "Windows" not in lead.evidence


def test_an_import_from_torch_six_names_the_package_written_for_an_older_torch() -> None:
    # torch._six was torch's private compatibility module: its names went in the 1.x releases and the module
    # in 2.0. A package that still imports it was written for an older torch; the threads upgraded the
    # package, pinned torch, or patched the import (container_abcs -> collections.abc).
    cases = [
        # Megvii-BaseDetection/YOLOX#167 (apex's import patched to 'import collections.abc as container_abcs')
        ("# ImportError: cannot import name 'container_abcs' from 'torch._six'\n\nenv: win10, torch 1.9", ""),
        # snap-stanford/deepsnap#26 (the import to be updated to collections.abc)
        (
            "# cannot import name 'container_abcs' from 'torch._six'\n\nhetero_gnn.py imports "
            "container_abcs from torch._six, which has been removed in later versions of pytorch.",
            "",
        ),
        # pengzhiliang/Conformer#2 ('installed timm-0.4.12': the package upgraded)
        ("from torch._six import container_abcs\nImportError: cannot import name 'container_abcs'", ""),
        # DIAGNijmegen/StreamingCNN#5 (the import patched; 'use an older pytorch version')
        (
            "---> 18 from torch._six import container_abcs\n"
            "     19 from torch.nn.modules.conv import _ConvNd\n\n"
            "ImportError: cannot import name 'container_abcs' from 'torch._six' "
            "(/opt/conda/lib/python3.7/site-packages/torch/_six.py)",
            "",
        ),
    ]
    for text, _ in cases:
        lead = _led_by(text, "torch.private_module_removed")
        assert "version mismatch" in lead.cause and "removed the module in 2.0" in lead.cause
        assert "Upgrade the package" in lead.fix.text and "older torch" in lead.fix.text
        assert any("import collections.abc as container_abcs" in line for line in lead.evidence)
    # the package whose file imports it is named from its frame (constructed)
    lead = _explained(
        '  File "/env/lib/python3.8/site-packages/somepkg/utils/data.py", line 3, in <module>\n'
        "    from torch._six import string_classes\n"
        "ImportError: cannot import name 'string_classes' from 'torch._six'"
    )[0]
    assert any("somepkg/utils/data.py" in line for line in lead.evidence), lead.evidence
    assert (
        _explained("ModuleNotFoundError: No module named 'torch._six'")[0].id
        == "torch.private_module_removed"
    )


def test_an_invalid_device_string_says_what_is_wrong_with_it() -> None:
    # torch.device takes a device type and at most one integer index. The threads' strings: several GPUs, a
    # bare number, None where the local rank was expected, 'cuda:' written twice.
    cases = [
        # leggedrobotics/delora#18 ('torch.device() can only be called with "cpu", "cuda" or ... "cuda:0"')
        (
            "I do have two gpus of Titan RTX 24 GB each but i am unable to use both together\n`\n"
            'config["device"] = torch.device(config["device"])\nRuntimeError: Invalid device string: '
            "'CUDA_VISIBLE_DEVICES=0,1'\n`",
            "several GPUs",
            "DataParallel",
        ),
        # AshwinRJ/Federated-Learning-PyTorch#28 ('--gpu=cuda:0 instead of --gpu=0', or int(args.gpu))
        ("# RuntimeError: Invalid device string: '0'", "bare index", "'cuda:0'"),
        # mlfoundations/rtfm#15 (local_rank left None)
        (
            '    batch[key] = batch[key].to(f"cuda:{local_rank}")\nRuntimeError: Invalid device string: '
            "'cuda:None'",
            "None",
            "LOCAL_RANK",
        ),
        # samsledje/ConPLex#34 ('default value fixed in 0.1.11')
        (
            "RuntimeError: Invalid device string: 'cuda:cuda:0'\n\nsamsledje · comment\nThanks for pointing "
            "this out",
            "written twice",
            "update the program",
        ),
    ]
    for text, evidence, fix in cases:
        lead = _led_by(text, "device.invalid_string")
        assert "at most one index" in lead.cause
        assert any(evidence in line for line in lead.evidence), lead.evidence
        assert fix in lead.fix.text, lead.fix.text
    # a GPU list written into torch.device in code, without torch's message (constructed)
    lead = _one("model.to(torch.device('cuda:0,1'))", "device.invalid_string")
    assert any("'cuda:0,1'" in line for line in lead.evidence)
    assert "CUDA_VISIBLE_DEVICES" in lead.fix.text and "DistributedDataParallel" in lead.fix.text


def test_a_cuda_invalid_argument_of_an_old_torch_names_the_build_and_its_cuda() -> None:
    # 'cuda runtime error (11) : invalid argument' (THCGeneral.cpp) from torch 0.4 to 1.x: a build for a CUDA
    # older than the GPU needs (pytorch/pytorch#21154: torch 1.1.0 built for CUDA 9 on Turing). The threads
    # reinstalled a PyTorch build matching the GPU's CUDA.
    cases = [
        # Raschka-research-group/coral-cnn#18 ('upgrade my pytorch with CUDA 10 stable version' fixed it)
        (
            "# THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=383 error=11 : invalid "
            "argument\n\nWhile training... I'm using CUDA 10 and pytorch version 1.1.0. Is there ary issue "
            "in my side.",
            ("THCGeneral.cpp:383", "pytorch version 1.1.0"),
        ),
        # pytorch/pytorch#21154 (ptrblck: torch 1.1.0 with CUDA9 'triggers this error on Turing GPUs')
        (
            "# THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=383 error=11 : invalid "
            "argument",
            ("THCGeneral.cpp:383",),
        ),
        # xingyizhou/CenterNet#828 ('reinstall pytorch 0.4.1 ... conda install pytorch=0.4.1 cuda92')
        (
            "THCudaCheck FAIL file=/opt/conda/conda-bld/pytorch_1535491974311/work/aten/src/THC/"
            "THCGeneral.cpp line=663 error=11 : invalid argument",
            ("THCGeneral.cpp:663",),
        ),
        # MehmetAygun/fusenet-pytorch#14 ('related to pytorch and cuda backend')
        (
            "RuntimeError: cuda runtime error (11) : invalid argument at "
            "pytorch/aten/src/THC/THCGeneral.cpp:663\n\nFollowing is the microenvironment created using "
            "conda:",
            ("THCGeneral.cpp:663",),
        ),
        # tjiiv-cprg/EPro-PnP#9 (torch's later form of the message: 'Yes, it's torch version problem')
        (
            "    return torch.linalg.solve(A, b)\nRuntimeError: CUDA error: invalid argument\n\ncuda        "
            "          11.3\ntorch                  1.10.1+cu113",
            (),
        ),
    ]
    for text, figures in cases:
        lead = _led_by(text, "cuda.invalid_argument")
        assert "build" in lead.cause and "CUDA 9 build on an RTX 20xx" in lead.cause
        assert "Reinstall PyTorch" in lead.fix.text and "CUDA version supports this GPU" in lead.fix.text
        for figure in figures:
            assert any(figure in line for line in lead.evidence), lead.evidence


def test_an_image_upscaled_whole_at_test_time_is_told_to_run_in_tiles() -> None:
    # A super-resolution or restoration model run on a whole large image: its memory grows with the pixels.
    # The threads used the program's own tiling option (or a smaller tile), which keeps each step small.
    cases = [
        # xinntao/Real-ESRGAN#514 (4 GiB GPU; tiling is the program's memory switch)
        "(base) G:\\Ai\\Real-ESRGAN\\Real-ESRGAN-Windows>python inference_realesrgan.py --model_path "
        "experiments/pretrained_models/RealESRGAN_x4plus.pth --input inputs\n"
        "Testing 0 PXL_20220927_222952679\n"
        "Error CUDA out of memory. Tried to allocate 1.12 GiB (GPU 0; 4.00 GiB total capacity; 2.41 GiB "
        "already allocated; 0 bytes free; 2.41 GiB reserved in total by PyTorch)",
        # JingyunLiang/SwinIR#36 (the maintainers added '--tile' for large images)
        "# Cuda out of memory for photos larger than 640x480px on RTX 3060 12GB\n\nWith your code I cant "
        "upscale larger than vga resolution photos with RTX 3060 12GB.",
        # yangxy/GPEN#115 (tiles processing added for super resolution)
        "sr failed: CUDA out of memory. Tried to allocate 2.14 GiB (GPU 0; 11.00 GiB total capacity; "
        "3.89 GiB already allocated; 1.63 GiB free; 7.85 GiB reserved in total by PyTorch)\npytorch is "
        "going going out of memory with a 1080 ti.This happens when the resolution of the image is around "
        "2k.",
        # IceClear/StableSR#4 (the maintainer: reduce the tile size)
        "python scripts/sr_val_ddpm_text_T_vqganfin_oldcanvas_tile.py --config configs/stableSRNew/"
        "v2-finetune_text_T_512.yaml --ckpt CKPT_PATH\n\nstill  CUDA out of memory.\nmy cuda memory size "
        "is  15G",
    ]
    for text in cases:
        lead = _one(text, "cuda.out_of_memory")
        assert lead.fix.text.startswith("The program runs the model on the whole image at once"), (
            lead.fix.text
        )
        assert "run it in tiles" in lead.fix.text and "--tile 400" in lead.fix.text
        assert any("upscaled or restored at test time" in line for line in lead.evidence), lead.evidence
    # training a super-resolution model keeps the step's levers (constructed)
    lead = _one(
        "Training the super resolution model: loss.backward() ... CUDA out of memory.", "cuda.out_of_memory"
    )
    assert "run it in tiles" not in lead.fix.text


def test_a_gpu_out_of_memory_told_in_chinese_is_an_out_of_memory_with_its_figures() -> None:
    # 显存 is GPU memory: 显存溢出 (overflows), 显存不够 (not enough), 爆显存 (blown). The same
    # explanation, with the GPU's memory and the batch size the writer gives, though Chinese characters
    # touch the figures.
    cases = [
        # yanqiangmiffy/Chinese-LangChain#25 (inference on one of two GPUs)
        ("双卡怎么推理呢，使用知识库推理就会报显存溢出，但是我只有一张卡在使用", ()),
        # GestaltCogTeam/STEP#52 (a 16GB V100; batch_size 6 lowered to 4 ran)
        (
            "一开始运行TSFormer_PEMS04.py 就显示显存不够的问题了，显卡是一张16GB的V100, "
            "参数用默认的batch_size=6, 显卡数量有改成1，后面把batch_size改成4才勉强够跑起来（显存占用94%）",
            ("the text says the GPU has 16GB", "the text gives the batch size: batch_size=6"),
        ),
        # Tencent-Hunyuan/HunyuanVideo#260 (inference on several GPUs)
        ("# 多卡执行推理任务为什么一直爆显存，有没有大佬可以解答一下", ()),
        # HauLiang/DAMAS-FISTA-Net#2 (the authors trained on one 4090)
        (
            "我在训练模型时出现了显存溢出的问题，所以想请问您是使用什么gpu型号训练的呢？以及模型的参数量大概是多少？",
            (),
        ),
    ]
    for text, evidence in cases:
        lead = _one(text, "cuda.out_of_memory")
        assert "batch size" in lead.fix.text
        for line in evidence:
            assert line in lead.evidence, lead.evidence
    # a GPU's memory written against Chinese characters is read (constructed)
    lead = _one("我的显卡是RTX3090（24GB显存），训练时爆显存", "cuda.out_of_memory")
    assert "the text says the GPU has 24GB" in lead.evidence, lead.evidence
    # the machine's memory (内存) is not the GPU's (constructed)
    assert "cuda.out_of_memory" not in _ids("内存不足，程序被杀死")


def test_an_out_of_memory_told_while_loading_a_checkpoint_names_map_location() -> None:
    # torch.load puts a checkpoint's tensors back on the GPU they were saved from, beside the model already
    # there: the writers tell an out-of-memory while loading or resuming. The threads loaded onto the CPU.
    cases = [
        # HorizonRobotics/alf#1532 (the merged fix: map_location = torch.device('cpu'))
        "# Avoid out of GPU memory issue when loading checkpoints\n\nThis PR fixes the GPU out of memory "
        "issue when loading checkpoints.",
        # Lightning-AI/pytorch-lightning#173 (the forum: 'GPU memory usage increases by 90% after torch.load')
        "# overcome OOM issues when restoring checkpoint\n\nThis is a PyTorch issue. Testing some solutions.",
        # ecmwf/anemoi-core#1145 (the merged fix: load the checkpoint on the "cpu")
        "This was revealed to us when we encountered OOM errors when fork-reloading model weights from a "
        "model sharded across 8 GPUs, which was previously trained and fitting the memory fine.",
    ]
    for text in cases:
        lead = _one(text, "cuda.out_of_memory")
        assert "torch.load puts a checkpoint's CUDA tensors back on the GPU" in lead.cause, lead.cause
        assert "map_location='cpu'" in lead.fix.text
        assert any("ran out while loading" in line for line in lead.evidence), lead.evidence
    # an out-of-memory in training says nothing of loading (constructed)
    lead = _one("CUDA out of memory at the third epoch while training the model.", "cuda.out_of_memory")
    assert "map_location" not in lead.fix.text


def test_the_gpu_named_with_its_memory_is_quoted_as_written() -> None:
    # Writers name the GPU that ran out with its memory, either way round ("32GB V100", "V100-32G"): the
    # figure to quote beside the out-of-memory, whatever else the explanation reads.
    cases = [
        # arctanxarc/UniCTokens#3 ('It at least needs 48GB. You can switch to a GPU with sufficient VRAM.')
        (
            "# CUDA Out of Memory Error on 32GB V100 – How Much VRAM is Required?\n\nHello, I’m using a 32GB "
            "V100 GPU but encountered a CUDA out of memory error during training.",
            "32GB V100",
        ),
        # bytedance/Q-Insight#6
        (
            "Hi, I tried run this work on V100-32G, but it was CUDA out of memory. I am wondering how much "
            "cuda memory need to infer this repo?",
            "V100-32G",
        ),
        # IDEA-Research/OSX#7 (it ran in about 10G on a 24G RTX3090)
        ("When I try to run the demo.py code, I get the CUDA out of memory bug on 32GB V100.", "32GB V100"),
        # Francis-Rings/StableAvatar#83 (the maintainers: the V100 lacks Flash Attention)
        (
            "我的GPU是V100-32G。我直接运行 bash inference.sh ，所有的参数没变。报错 ：\n"
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 62.02 GiB.",
            "V100-32G",
        ),
    ]
    for text, gpu in cases:
        lead = _one(text, "cuda.out_of_memory")
        assert f"the text names the GPU as {gpu}" in lead.evidence, lead.evidence
    # numbers that are no GPU are not read as one (constructed)
    lead = _one(
        "CUDA out of memory at epoch 100 16GB into the run, with cu118 16G wheels.", "cuda.out_of_memory"
    )
    assert not any("names the GPU as" in line for line in lead.evidence), lead.evidence


def test_a_reduction_unfinished_in_the_prior_iteration_is_unused_parameters() -> None:
    # DistributedDataParallel waits for a gradient of every parameter; a layer that takes no part in the
    # loss leaves the reduction unfinished. The threads deleted the layer or set find_unused_parameters=True.
    cases = [
        # ImprintLab/MedSegDiff#27 (a parameterised layer defined in __init__ but not used in the forward)
        "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. "
        "This error indicates that your module has parameters that were not used in producing loss. You can "
        "enable unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
        "`torch.nn.parallel.DistributedDataParallel`, and by \nmaking sure all `forward` function outputs "
        "participate in calculating loss.",
        # HamPerdredes/SOOD#33 ('Set "find_unused_parameters=True" in config file may solve this issue.')
        "# RuntimeError: Expected to have finished reduction in the prior iteration before starting a new "
        "one. This error indicates that your module has parameters that were not used in producing loss.\n\n"
        "how to solve this error?",
        # ZhengYinan-AIR/Diffusion-Planner#65 ('find_unused_parameters=True is ok')
        "Did anyone meet the same error during training? Seems not all parameters are used for calculating "
        "loss.",
        # open-mmlab/mmdetection3d#488 (resolved by setting find_unused_parameters = True, as PartA2 does)
        "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. "
        "This error indicates that your module has parameters that were not used in producing loss. You can "
        "enable unused parameter detection by (1) passing the keyword argument `find_unused_parameters=True` "
        "to `torch.nn.parallel.DistributedDataParallel`; (2) making sure all `forward` function outputs "
        "participate in calculating loss.",
    ]
    for text in cases[:2] + cases[3:]:
        lead = _one(text, "ddp.unused_parameters")
        assert "unused parameters" in lead.cause and "never called in forward" in lead.cause
        assert "find_unused_parameters=True" in lead.fix.text and "delete the unused layers" in lead.fix.text
        assert "TORCH_DISTRIBUTED_DEBUG=DETAIL" in lead.fix.text
    # prose alone, without the reducer's words, is not read as the error
    assert "ddp.unused_parameters" not in _ids(cases[2])
    # static_graph=True: the graph changed between iterations (torch 2.13's reducer text)
    lead = _one(
        "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. "
        "This error indicates that your training graph has changed in this iteration, e.g., one parameter is "
        "used in first iteration, but then got unused in the second iteration. this is not compatible with "
        "static_graph set to True.",
        "ddp.unused_parameters",
    )
    assert "static_graph=True" in lead.cause and "Drop static_graph=True" in lead.fix.text


def test_torchvision_built_for_another_cuda_than_torch_quotes_both_and_one_index() -> None:
    # torchvision/extension.py _check_cuda_version refuses a torchvision of another CUDA than torch's; the
    # threads reinstalled the packages from one index (torch's CUDA, or the companion's).
    cases = [
        # mathmanu/edgeai-torchvision#18 (a torchvision built from source against the system's CUDA 11.7)
        (
            "RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA versions. "
            "PyTorch has CUDA Version=11.3 and torchvision has CUDA Version=11.7. Please reinstall the "
            "torchvision that matches your PyTorch install.",
            ("11.3", "11.7"),
        ),
        # Linaqruf/kohya-trainer#164 ('!pip install torchvision==0.14.1 is ok')
        (
            "RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA versions. "
            "PyTorch has CUDA Version=11.7 and torchvision has CUDA Version=11.6. Please reinstall the "
            "torchvision that matches your PyTorch install.",
            ("11.7", "11.6"),
        ),
        # 21Vipin/Medical-Image-Classification-using-deep-learning#3
        (
            "RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA versions. "
            "PyTorch has CUDA Version=9.0 and torchvision has CUDA Version=10.0. Please reinstall the "
            "torchvision that matches your PyTorch install.",
            ("9.0", "10.0"),
        ),
        # deforum/deforum-stable-diffusion#348 (torchvision 0.16 and later say 'major versions')
        (
            "RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA major "
            "versions. PyTorch has CUDA Version=12.1 and torchvision has CUDA Version=11.8. Please reinstall "
            "the torchvision that matches your PyTorch install.",
            ("12.1", "11.8"),
        ),
        # the message wrapped by a rich traceback, and its figures alone (constructed)
        (
            "RuntimeError: Detected that PyTorch and torchvision were compiled with different\nCUDA major "
            "versions. PyTorch has CUDA Version=12.4 and torchvision has CUDA \nVersion=12.1. Please "
            "reinstall",
            ("12.4", "12.1"),
        ),
        ("PyTorch has CUDA Version=12.6 and torchvision has CUDA Version=12.4.", ("12.6", "12.4")),
    ]
    for text, (ours, theirs) in cases:
        lead = _one(text, "companion.cuda_mismatch")
        assert f"PyTorch has CUDA Version={ours} and torchvision has CUDA Version={theirs}" in lead.evidence
        assert "from one index" in lead.fix.text
        wheel = "cu" + ours.replace(".", "")
        assert any(
            c.endswith(f"--index-url https://download.pytorch.org/whl/{wheel}") for c in lead.fix.commands
        )
        assert "torch torchvision torchaudio" in lead.fix.commands[0]


def test_nvcc_refusal_quoted_without_its_prefix_is_the_same_unknown_architecture() -> None:
    # Titles and prose quote nvcc's refusal without "nvcc fatal :"; it is the same toolkit too old (or too
    # new) for the architecture. The threads changed the CUDA toolkit or the architecture list.
    cases = [
        # NVIDIAGameWorks/kaolin#351 (a conda cudatoolkit-dev 10.1 shadowed CUDA 11 on PATH)
        "# unsupported gpu architecture 'compute_86'. Unable to build for rtx 3090, cuda 11.0",
        # CHONSPQX/modulated-deform-conv#11 (a 3090 with the project's lowest pytorch 1.7 and cuda11.0)
        "# Unsupported gpu architecture 'compute_86'\n\nThanks for your great job. Our environment is linux "
        "with gpu RTX3090 and the fixed lowest version of pytorch is 1.7 with cuda11.0.",
        # facebookresearch/detectron2#3361 (the title; the build ran /usr/bin/nvcc)
        "# Issue: RTX3090-Unsupported gpu architecture 'compute_86'",
    ]
    for text in cases:
        lead = _led_by(text, "build.nvcc_unsupported_arch")
        joined = _said(lead)
        assert "compute_86" in joined and "CUDA 11.1" in joined, joined
        assert "TORCH_CUDA_ARCH_LIST" in lead.fix.text
    # a GPU architecture named in other words is not nvcc's refusal (constructed)
    assert "build.nvcc_unsupported_arch" not in _ids("Unsupported gpu architecture for this kernel: sm")


def test_a_missing_thc_header_is_torch_1_11_removing_thc() -> None:
    # torch 1.11 removed the THC headers; extensions that include them fail to compile. The threads ported
    # the sources (or commented the include out) or built with an older torch.
    cases = [
        # CoinCheung/pytorch-loss#36 ('Latest pytorch has removed THC.h'; the port in #37)
        "# fatal error: THC/THC.h: No such file or directory\n\nLatest pytorch has removed THC.h",
        # MVIG-SJTU/AlphAction#84 ('You should use lower pytorch(such as 1.8.0) version')
        "AlphAction/alphaction/csrc/cuda/ROIPool3d_cuda.cu:4:10: fatal error: THC/THC.h: No such file or "
        "directory",
        # PJLab-ADG/DetZero#19 (a localised gcc; the THC code commented out)
        "# fatal error: THC/THC.h: 没有那个文件或目录\n\n"
        "好像是pytorch版本太高了，我的版本是2.0.1，请问下有什么解决办法吗？",
        # Mukosame/Zooming-Slow-Mo-CVPR-2020#74 (Torch 2.2.1+cu121)
        " fatal error: THC/THC.h: No such file or directory\n    7 | #include <THC/THC.h>\n      |          "
        "^~~~~~~~~~~\ncompilation terminated.\nerror: command '/usr/local/cuda/bin/nvcc' failed with exit "
        "code 1",
        # open-mmlab/mmcv#1582 (the headers moved into ATen)
        "# fatal error: THC/THCDeviceUtils.cuh: No such file or directory #include <THC/THCDeviceUtils.cuh>",
    ]
    for text in cases:
        lead = _one(text, "build.thc_headers_removed")
        assert "PyTorch 1.11 removed" in lead.cause
        assert "THCudaCheck with C10_CUDA_CHECK" in lead.fix.text and "older PyTorch" in lead.fix.text
        assert "comment" in lead.fix.text
    # a header of another library is not THC's (constructed)
    assert "build.thc_headers_removed" not in _ids("fatal error: cuda_runtime.h: No such file or directory")


def test_state_dict_keys_that_differ_by_module_are_dataparallels_prefix() -> None:
    # A model wrapped in DataParallel keeps the real one as its submodule 'module': its checkpoint's keys
    # begin with 'module.'. The threads stripped the prefix or saved model.module.state_dict().
    cases = [
        # HumaticsLAB/SEAM-Match-RCNN#3 (the pretrained checkpoint saved from the wrapped model)
        "RuntimeError: Error(s) in loading state_dict for VideoMatchRCNN:\n\t**Missing key(s) in state_dict: "
        '"backbone.body.conv1.weight", "backbone.body.bn1.weight", "backbone.body.bn1.bias",** '
        '"backbone.body.bn1.running_mean", "backbone.body.bn1.running_var", '
        '"backbone.body.layer1.0.conv1.weight", '
        '"backbone.body.layer1.0.bn1.weight", "backbone.body.layer1.0.bn1.bias", '
        '"backbone.body.layer1.0.bn1.running_mean", "backbone.body.layer1.0.bn1.running_var", '
        '"backbone.body.layer1.0.conv2.weight", "backbone.body.layer1.0.bn2.weight", '
        '"backbone.body.layer1.0.bn2.bias", "backbone.body.layer1.0.bn2.running_mean", '
        '"backbone.body.layer1.0.bn2.running_var", "backbone.body.layer1.0.conv3.weight", '
        '"backbone.body.layer1.0.bn3.weight", "backbone.body.layer1.0.bn3.bias", '
        '"backbone.body.layer1.0.bn3.running_mean", "backbone.body.layer1.0.bn3.running_var", '
        '"backbone.body.layer1.0.downsample.0.weight", "backbone.body.layer1.0.downsample.1.weight", '
        'roi_heads.temporal_aggregator.newnlb.phi.weight", "roi_heads.temporal_aggregator.newnlb.phi.bias", '
        '"roi_heads.temporal_aggregator.newnlb.concat_project.0.weight". \n**Unexpected key(s) in '
        "state_dict: "
        '"module.backbone.body.conv1.weight", "module.backbone.body.bn1.weight",** '
        '"module.backbone.body.bn1.bias", "module.backbone.body.bn1.',
        # meijieru/crnn.pytorch#60 (torch 0.2's wording; the prefix stripped from the keys)
        "I trained models using own dataset. But when I load the saved models, it keeps saying that "
        '"unexpected key "module.cnn.conv0.weight" in state_dict". What do I have to do?',
        # mks0601/3DMPPE_POSENET_RELEASE#41 (in words; the prefix removed with a loop)
        "I downloaded the pretrained models and tried loading the Human3.6M one in the Protocol1 folder, and "
        'met this error caused by basically every layer names having "module." prepended to them. For '
        'example, the loader expected "head.deconv_layers.7.running_var" but in the provided pretrained '
        'weight, i got "module.head.deconv_layers.7.running_var"',
        # whai362/pan_pp.pytorch#14 (save model.module.state_dict())
        "# Trained model save/load with DataParallel.\n\nInstead of deleting the “module.” string from all "
        "the state_dict keys, you can save your model with:",
    ]
    for text in cases:
        lead = _one(text, "load.module_prefix")
        assert "'module.' prefix" in lead.cause and "DataParallel" in lead.cause
        assert "removeprefix('module.')" in lead.fix.text or "model.module" in lead.fix.text
    lead = _one(cases[0], "load.module_prefix")
    assert any("checkpoint's keys begin with 'module.'" in line for line in lead.evidence), lead.evidence
    # bearpaw/pytorch-classification#27: 'module.features.0.weight' against 'features.module.0.weight' is
    # another layout (only model.features wrapped), not a prefix to strip
    lead = _one(
        "RuntimeError: Error(s) in loading state_dict for DataParallel:\n        Missing key(s) in "
        'state_dict: "module.features.0.weight", "module.features.0.bias", "module.features.3.weight", '
        '"module.features.3.bias", "module.features.6.weight", "module.features.6.bias", '
        '"module.features.8.weight", "module.features.8.bias", "module.features.10.weight", '
        '"module.features.10.bias", "module.classifier.weight", "module.classifier.bias". \n        '
        'Unexpected key(s) in state_dict: "features.module.0.weight", "features.module.0.bias", '
        '"features.module.3.weight", "features.module.3.bias", "features.module.6.weight", '
        '"features.module.6.bias", "features.module.8.weight", "feat',
        "load.module_prefix",
    )
    assert "another layout" in lead.cause and "removeprefix" not in lead.fix.text
    # keys that differ otherwise are not this (constructed)
    assert "load.module_prefix" not in _ids(
        'Missing key(s) in state_dict: "fc.weight", "fc.bias". Unexpected key(s) in state_dict: "head.w".'
    )


def test_flash_attention_on_a_gpu_before_ampere_is_the_gpu_not_the_install() -> None:
    # flash-attn's kernels need compute capability 8.0 or newer; on a Turing or Volta GPU the threads
    # turned FlashAttention off (standard attention instead) or moved to a newer GPU.
    cases = [
        # Dao-AILab/flash-attention#762 ('Quadro RTX 5000 is Turing card, not Ampere and not currently
        # supported'); a T4 with attn_implementation="flash_attention_2"
        (
            "# RuntimeError: FlashAttention only supports Ampere GPUs or newer.\n\nHi @tridao, all of my "
            "GPUs are Tesla T4, but I still encountered this issue.",
            "",
        ),
        # Wan-Video/Wan2.1#25 (flash attention replaced with attention)
        (
            "# RuntimeError: FlashAttention only supports Ampere GPUs or newer\n\nplease support old gpus\n"
            "i have 4 2080ti 22Gb, but can not run this model",
            "2080ti",
        ),
        # microsoft/MInference#51 ('How can I set FlashAttention to false?')
        (
            "GPU：Tesla V100S\nNVIDIA-SMI 470.57.02    Driver Version: 470.57.02    CUDA Version: 11.4\n"
            '  File "/opt/huawei/python/3.10.12/lib/python3.10/site-packages/flash_attn/'
            'flash_attn_interface.py", line 51, in _flash_attn_forward\n    out, q, k, v, out_padded, '
            "softmax_lse, S_dmask, rng_state = flash_attn_cuda.fwd(\nRuntimeError: FlashAttention only "
            "supports Ampere GPUs or newer.",
            "V100",
        ),
        # komikndr/raylight#68 (2xRTX 5000 16GB: Turing)
        (
            "RuntimeError: FlashAttention only supports Ampere GPUs or newer. \n\n**System**\n- Ubuntu "
            "24.04.4 LTS\n- PyTorch: 2.9.1+cu130, CUDA (PyTorch): 13.0\n- 2xRTX 5000 16GB (driver version: "
            "590.48.01) with nvlink",
            "",
        ),
    ]
    for text, gpu in cases:
        lead = _one(text, "flash_attn.gpu_too_old")
        assert "Ampere" in lead.cause and "sm_80" in lead.cause
        assert "Disable FlashAttention" in lead.fix.text and 'attn_implementation="sdpa"' in lead.fix.text
        assert "nn.MultiheadAttention" in lead.fix.text
        if gpu:
            assert any(gpu in line and "older than Ampere" in line for line in lead.evidence), lead.evidence


def test_cudnn_execution_failed_is_most_often_a_torch_built_for_an_older_cuda_than_the_gpu() -> None:
    # A torch built for CUDA 9.x or 10.x on an RTX 20xx or 30xx GPU runs until cuDNN's kernels fail; the
    # threads upgraded to a build for a CUDA the GPU supports (CUDA 11 for Ampere).
    cases = [
        # zzhang1987/Factor-Graph-Neural-Network#4 (an RTX 3080 Ti: 'you will have to use CUDA11')
        (
            "If the model is trained by CPU,  there is no Exception error. But if I enable CUDA, there is "
            "always an error, RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED. \n\nmy environment: "
            "pytorch: 1.5.1+cu101\n                                           CUDA 10.1",
            "pytorch: 1.5.1+cu101",
        ),
        # multimodallearning/pytorch-mask-rcnn#94 (torch 0.3.0 with CUDA 9.0 on an RTX 2080)
        (
            "I can run demo.py with python demo.py on cpu ,but when i run on gpu, there is a bug "
            ":RuntimeError: CUDNN_STATUS_EXECUTION_FAILED , maybe the version of python,pytorch,cuda is "
            "incompatible,\nthis is my version what i use:\npytorch:0.3.0-cuda9.0\ngpu:rtx-2080\ncuda:9.0",
            "pytorch:0.3.0",
        ),
        # yanx27/Pointnet_Pointnet2_pytorch#229 ('Solved, I find that 3090 need cuda at least 11.0')
        (
            "When I run ```python train_classification.py --model pointnet2_cls_ssg --use_normals --log_dir "
            "pointnet2_cls_ssg_normal```,I met error CUDNN_STATUS_EXECUTION_FAILED。",
            "",
        ),
    ]
    for text, said in cases:
        lead = _one(text, "cudnn.status_error")
        assert "CUDA version older than the GPU needs" in lead.cause and "CUDA 11 build" in lead.cause
        assert lead.fix.text.startswith("Upgrade PyTorch to a build for a CUDA the GPU supports")
        assert "cudnn.enabled = False only works around it" in lead.fix.text
        if said:
            assert f"the text gives the torch release: {said}" in lead.evidence, lead.evidence
    # the other statuses keep their causes (constructed)
    lead = _one("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED", "cudnn.status_error")
    assert "CUDA 11 build" not in lead.cause


def test_a_driver_too_old_for_a_cuda_release_told_in_words_names_both() -> None:
    # The driver limits the CUDA a torch build may use; told in words, with the driver release and the CUDA
    # release. The threads installed a build for an older CUDA (or had the driver updated).
    cases = [
        # cirruslabs/linux-image-templates#64 (CUDA 13.0 needs driver 580)
        (
            "# The `ubuntu-runner-amd64-gpu:22.04` image's GPU driver is not compatible with its CUDA "
            "toolkit\n\nThis image has an nvidia driver version of 550/570:",
            (),
        ),
        # pytorch/pytorch#112553 (torch 2.0.1 ran; 2.1.0+cu121 needs a newer driver than 470)
        (
            "# torch 2.1.0 is not compatible with nvidia driver version 470.182.03 (GKE v1.25 COS "
            "version)\n\ntorch v2.0.1 works fine on GKE k8s v1.25 COS which is using nvidia driver "
            "v470.182.03.",
            ("the text names driver 470.182.03: it supports CUDA up to 11.4",),
        ),
        # theialab/radfoam#20 (the maintainer: CUDA 12.x needs driver 525.60.13 or newer)
        (
            "# Is it possible to run this project under CUDA 11.3?\n\nThe administrator does not recommend "
            "me to update the nvidia driver，so I can not use torch 2.x and CUDA 12.x",
            (),
        ),
    ]
    for text, evidence in cases:
        lead = _one(text, "cuda.driver_too_old")
        assert "newer CUDA than the installed driver supports" in lead.cause
        for line in evidence:
            assert line in lead.evidence, lead.evidence
    # a driver release and a CUDA release named: the CUDA the driver runs and the driver the CUDA needs
    # (constructed)
    lead = _one(
        "My NVIDIA driver (418.87) does not support CUDA 11.3, and I cannot update it.", "cuda.driver_too_old"
    )
    assert "the text names CUDA 11.3, which needs driver 465.19.01 or later (linux)" in lead.evidence, (
        lead.evidence
    )
    assert lead.fix.text.startswith("Install the torch build (or conda cudatoolkit) for CUDA 10.1 or older")


def test_xformers_without_its_cuda_operators_is_a_wheel_built_for_another_torch() -> None:
    # xformers wheels pin one torch build; beside another one its C++/CUDA extensions do not load and no
    # memory-efficient attention operator is left. The threads reinstalled xformers for their torch (or
    # uninstalled it).
    cases = [
        # yangjianxin1/Firefly#258 (python -m xformers.info: built for 2.3.0+cu121, 2.1.0+cu121 installed)
        (
            "NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n"
            "     query       : shape=(1, 1024, 8, 4, 128) (torch.float32)\n"
            "     key         : shape=(1, 1024, 8, 4, 128) (torch.float32)\n"
            "     value       : shape=(1, 1024, 8, 4, 128) (torch.float32)\n\n"
            "pip show xformers：\nName: xformers\nVersion: 0.0.26.post1\n\n python3 -m xformers.info：\n"
            "WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
            "    PyTorch 2.3.0+cu121 with CUDA 1201 (you have 2.1.0+cu121)\n"
            "    Python  3.10.14 (you have 3.10.0)\n"
            "  Please reinstall xformers (see "
            "https://github.com/facebookresearch/xformers#installing-xformers)",
            "xformers was built for PyTorch 2.3.0+cu121; the installed torch is 2.1.0+cu121",
        ),
        # kijai/ComfyUI-DepthAnythingV2#27 (the maintainer: re-install it, or uninstall it)
        (
            "NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n"
            "     query       : shape=(1, 5617, 16, 64) (torch.float32)\n"
            "     key         : shape=(1, 5617, 16, 64) (torch.float32)\n"
            "     value       : shape=(1, 5617, 16, 64) (torch.float32)\n"
            "     attn_bias   : <class 'NoneType'>\n"
            "     p           : 0.0\n"
            "`fa3F@0.0.0` is not supported because:\n"
            "    xFormers wasn't build with CUDA support\n"
            "    dtype=torch.float32 (supported: {torch.float16, torch.bfloat16})\n"
            "    operator wasn't built - see `python -m xformers.info` for more info",
            "",
        ),
        # cubiq/PuLID_ComfyUI#103
        (
            "No operator found for `memory_efficient_attention_forward` with inputs:\n"
            "query : shape=(1, 577, 16, 64) (torch.float16)\n"
            "key : shape=(1, 577, 16, 64) (torch.float16)\n"
            "value : shape=(1, 577, 16, 64) (torch.float16)\n"
            "attn_bias : <class 'NoneType'>\n"
            "p : 0.0\n"
            "`decoderF` is not supported because:\n"
            "xFormers wasn't build with CUDA support\n"
            "attn_bias type is <class 'NoneType'>",
            "",
        ),
    ]
    for text, evidence in cases:
        lead = _one(text, "xformers.not_built_for_torch")
        assert "built for another torch release" in lead.cause
        assert lead.fix.text.startswith("Reinstall xformers built for the installed torch")
        assert "python -m xformers.info" in lead.fix.commands
        if evidence:
            assert evidence in lead.evidence, lead.evidence
    # facebookresearch/xformers#1143: the operators refuse CPU tensors, not a build
    lead = _one(
        "NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:\n"
        "     query       : shape=(1, 257, 6, 64) (torch.float32)\n"
        "     key         : shape=(1, 257, 6, 64) (torch.float32)\n"
        "     value       : shape=(1, 257, 6, 64) (torch.float32)\n"
        "     attn_bias   : <class 'NoneType'>\n"
        "     p           : 0.0\n"
        "`fa2F@v2.5.7-pt` is not supported because:\n"
        "    device=cpu (supported: {'cuda'})\n"
        "    dtype=torch.float32 (supported: {torch.float16, torch.bfloat16})\n"
        "`cutlassF-pt` is not supported because:\n"
        "    device=cpu (supported: {'cuda'})",
        "xformers.not_built_for_torch",
    )
    assert "on the CPU" in lead.cause and "model.to('cuda')" in lead.fix.text


def test_a_gpu_that_waits_for_data_is_too_few_dataloader_workers() -> None:
    # Lightning warns when a DataLoader has few workers; writers see the GPU's utilization low or at 0%.
    # The threads raised num_workers (towards the number of CPU cores).
    cases = [
        # pykale/pykale#448 (Lightning 2.x's wording)
        (
            "The 'val_dataloader' does not have many workers which may be a bottleneck. Consider increasing "
            "the value of the `num_workers` argument` to `num_workers=19` in the `DataLoader` to improve "
            "performance.",
            "Lightning suggests `num_workers=19`",
        ),
        # kuleshov-group/caduceus#29 ('You should be able to set number of workers with this param:
        # loader.num_workers')
        (
            "PossibleUserWarning: The dataloader, val_dataloader 0, does not have many workers which may be "
            "a bottleneck. Consider increasing the value of the `num_workers` argument` (try 128 which is "
            "the number of cpus on this machine) in the `DataLoader` init to improve performance.",
            "Lightning suggests try 128 which is the number of cpus on this machine",
        ),
        # poier/PreView#5 (the maintainer: the GPU waits for loading; use more workers)
        (
            "# Volatile GPU-Util is low and fluctuant\n\nHi, Thank you for your codes. And I changed to "
            "another benchmark, but the volatile gpu-util is very low and fluctuant.",
            "",
        ),
    ]
    for text, evidence in cases:
        lead = _one(text, "dataloader.input_bound")
        assert "Data loading is the bottleneck" in lead.cause
        assert "Raise num_workers" in lead.fix.text and "pin_memory=True" in lead.fix.text
        if evidence:
            assert evidence in lead.evidence, lead.evidence
    # a GPU busy at 100% is not this (constructed)
    assert "dataloader.input_bound" not in _ids("GPU-Util is 100% and memory is full.")


def test_a_crash_that_depends_on_the_import_order_is_reordered() -> None:
    # torch and another native library load their own copies of shared libraries; in one order the process
    # crashes. The threads swapped the imports.
    cases = [
        # pytorch/pytorch#74547 (the other order works)
        (
            "# importing open3d before pytorch causes matmul to produce a segfault",
            "the text says importing open3d before torch crashes",
            "Import torch first",
        ),
        # isl-org/Open3D#4877 ('importing torch first works')
        (
            "# large torch operation fails with Segmentation Fault if open3d is imported before torch",
            "the text says importing open3d before torch crashes",
            "Import torch first",
        ),
        # pytorch/pytorch#19739 (import open3d before torch)
        (
            "# Importing open3d after PyTorch causes free(): invalid pointer",
            "the text says importing open3d after torch crashes",
            "Import open3d before torch",
        ),
        # isl-org/Open3D#6757 ('This however doesn't reproduce in the opposite order')
        (
            "# Segmentation fault when importing first PyTorch 2.2.2 and then Open3D 0.18.0",
            "the text says importing Open3D after torch crashes",
            "Import Open3D before torch",
        ),
    ]
    for text, evidence, fix in cases:
        lead = _one(text, "import.order_crash")
        assert "import-order conflict between native libraries" in lead.cause
        assert evidence in lead.evidence, lead.evidence
        assert lead.fix.text.startswith(fix), lead.fix.text
    # an import order told without a crash is not this (constructed)
    assert "import.order_crash" not in _ids("Importing numpy before torch is the usual style.")


def test_an_out_of_memory_after_some_batches_over_sequences_is_the_longest_examples() -> None:
    # Batches of sequences differ in length; the one holding the longest examples does not fit, after many
    # that did. The threads truncated or filtered the long examples (a maximum length).
    cases = [
        # foundation-model-stack/fms-hf-tuning#471 (samples longer than max_seq_len)
        (
            "# Long sequence samples exceeding max_seq_len are resulting in CUDA OOM while performing LoRA "
            "SFT\n\nWhile running LoRA SFT the training failed with CUDA out of memory error at step 164.",
            "",
        ),
        # salesforce/ALBEF#6 ('Length of the captions was long')
        (
            "While fine-tuning the network on larger dataset (on 8 A100 GPUs) for text to image retrieval, I "
            "always face the issue of CUDA OUT OF MEMORY,  after running for 1000-1500 batches. If the batch "
            "size is reduced to 16 (from 32), this issue is faced after 2500-3000 batches.",
            "",
        ),
        # mymusise/ChatGLM-Tuning#72 (the reply: a smaller maximum length, --max_seq_length=256)
        (
            "Hi，我使用您的代码finetune 运行到16%的时候，出现CUDA out Of memory , "
            "使用的alpaca数据集，gpu：1卡3090 15G， 请问这个问题需要怎么修改？\n\n"
            "处理数据时，修改最大长度，比如 `--max_seq_length=256`。",
            "the text gives the length limit: --max_seq_length=256",
        ),
    ]
    for text, evidence in cases:
        lead = _one(text, "cuda.out_of_memory")
        assert lead.fix.text.startswith("Batches differ in length"), lead.fix.text
        assert "truncate the inputs" in lead.fix.text and "filter out the examples" in lead.fix.text
        assert any("a batch of the longest examples" in line for line in lead.evidence), lead.evidence
        if evidence:
            assert evidence in lead.evidence, lead.evidence
    # espnet/espnet#209 (long utterances removed from the recipe): the GPU's out-of-memory in words
    assert "cuda.out_of_memory" in _ids(
        "Utterances with more than 3000 frames (30 seconds) is causing GPU out-of-memory err"
    )
    # an out-of-memory at the first batch, or over images, keeps the usual levers (constructed)
    lead = _one("CUDA out of memory at the first batch of the sentence classifier.", "cuda.out_of_memory")
    assert not lead.fix.text.startswith("Batches differ in length")
    lead = _one("CUDA out of memory after 300 steps of training the image classifier.", "cuda.out_of_memory")
    assert not lead.fix.text.startswith("Batches differ in length")


def test_a_state_dict_copied_into_meta_parameters_is_not_loaded() -> None:
    # torch warns that copying into a meta parameter is a no-op: the model was built on the meta device
    # (device_map="auto", init_empty_weights) and the weights never arrive.
    cases = [
        # hiyouga/LlamaFactory#4689 (DeepSpeed and LoRA; 'Cannot copy out of meta tensor; no data!')
        "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py:2025: UserWarning: for "
        "transformer.encoder.layers.0.self_attention.query_key_value.weight: copying from a non-meta "
        "parameter in the checkpoint to a meta parameter in the current model, which is a no-op. (Did you "
        "mean to pass `assign=True` to assign items in the state dictionary to their corresponding key in "
        "the module instead of copying them in place?)",
        # huggingface/transformers#37615 (models instantiated on the meta device)
        "/usr/local/lib/python3.12/dist-packages/torch/nn/modules/module.py:2441: UserWarning: for "
        "layer3.5.bn2.bias: copying from a non-meta parameter in the checkpoint to a meta parameter in the "
        "current model, which is a no-op. (Did you mean to pass `assign=True` to assign items in the state "
        "dictionary to their corresponding key in the module instead of copying them in place?)",
        # vllm-project/llm-compressor#1119
        "/root/miniconda3/lib/python3.12/site-packages/torch/nn/modules/module.py:2400: UserWarning: for "
        "model.layers.23.input_layernorm.weight: copying from a non-meta parameter in the checkpoint to a "
        "meta parameter in the current model, which is a no-op. (Did you mean to pass `assign=True` to "
        "assign items in the state dictionary to their corresponding key in the module instead of copying "
        "them in place?)",
    ]
    for text in cases:
        lead = _one(text, "load.into_meta_parameters")
        assert "meta device" in lead.cause and 'device_map="auto"' in lead.cause
        assert 'device_map="cuda:0"' in lead.fix.text and "assign=True" in lead.fix.text
        assert any("stayed on the meta device" in line for line in lead.evidence), lead.evidence


def test_an_extension_asking_for_libtorch_cpu_was_built_for_a_newer_torch() -> None:
    # libtorch_cpu.so exists from torch 1.5 on; an extension built against it and imported with an older
    # torch does not load. The threads rebuilt the extension (or matched the torch release).
    cases = [
        # xingyizhou/CenterTrack#229 (pytorch 1.4; DCNv2 built elsewhere)
        '  File "/home/server/CenterTrack/src/lib/model/networks/DCNv2/dcn_v2.py", line 13, in <module>\n'
        "    import _ext as _backend\n"
        "ImportError: libtorch_cpu.so: cannot open shared object file: No such file or directory\n\n"
        "My environment is :\nnvidia GPU:   RTX3090\ncuda 11.1,   cudnn 8.2\n"
        "g++ version:  g++ (Ubuntu 7.5.0-3ubuntu1~18.04) 7.5.0\npython 3.6\npytorch 1.4, torchvision 0.5",
        # alinlab/CSI#24 (pytorch 1.4; 'reinstalling the package with version 0.1.2, might resolve the
        # issue')
        '  File "/home/westlake/miniconda3/envs/zjl/lib/python3.6/site-packages/torchlars/lars.py", '
        "line 6, in\nfrom torchlars._adaptive_lr import compute_adaptive_lr\n"
        "ImportError: libtorch_cpu.so: cannot open shared object file: No such file or directory",
        # open-mmlab/mmdetection#2658 (a compiled op)
        "from . import deform_conv_ext\n"
        "ImportError: libtorch_cpu.so: cannot open shared object file: No such file or directory",
    ]
    for text in cases:
        lead = _one(text, "lib.cannot_open_shared_object")
        assert "built against torch 1.5 or newer" in lead.cause, lead.cause
        assert lead.fix.text.startswith("Rebuild the extension against the installed torch")
        assert "missing: libtorch_cpu.so" in lead.evidence


def test_a_program_asked_to_run_without_a_gpu_runs_on_the_cpu() -> None:
    # Programs written for CUDA on machines without an NVIDIA GPU: the threads ran them on the CPU through
    # their device option (or made the device conditional).
    cases = [
        # salesforce/CodeGen#8 ('You would have to specify the device: --device cpu')
        "# How to run in no-GPU system?\n\nHow to run in no-GPU system?\n\nIt gives me error No CUDA GPUs "
        "are available because I dont have any NVIDIA graphics card.",
        # hrayrhar/limit-label-memorization#2 ("Just set --device='cpu'")
        "# about cuda\n\nCan I run the code without cuda. say, in CPU?",
        # mingyuliutw/UNIT#76 (the .cuda() parts edited)
        "Is there a way to run this code without having an Nvidia card. Is it possible to use your already "
        "trained models running only in the CPU?",
    ]
    # beside a message ("No CUDA GPUs are available") the message's explanation carries the same reading
    read_by = ("cuda.no_gpus_available", "device.run_on_cpu", "device.run_on_cpu")
    for text, entry_id in zip(cases, read_by, strict=True):
        lead = _one(text, entry_id)
        assert "no NVIDIA GPU" in lead.cause
        assert "--device cpu" in lead.fix.text and "--gpu_ids -1" in lead.fix.text
        assert "map_location='cpu'" in lead.fix.text
    # a question about the GPU is not this (constructed)
    assert "device.run_on_cpu" not in _ids("How to run it on two GPUs?")


def test_an_old_cuda_runtime_asked_for_beside_another_cuda_is_a_package_built_for_it() -> None:
    # libcudart.so.10.2 asked for on a CUDA 11 machine: a compiled package (mmcv-full's ops) was built
    # against CUDA 10.2. The threads reinstalled or rebuilt that package for their torch and CUDA.
    cases = [
        # open-mmlab/mmcv#1380 (mmcv-full 1.3.14 asks for 10.2 on CUDA 11.1; 1.3.13 worked)
        (
            "my environment\nGPU : GeForce RTX 3080\ncuda version 11.1\npytorch 1.9.0\n\nWhen I install "
            "mmcv-full =1.3.14\nthere's an import error : libcudart.so.10.2: cannot open shared object file",
            "10.2",
            "11.1",
        ),
        # open-mmlab/mmdetection#6229 (NVIDIA-SMI's CUDA Version: 11.0)
        (
            "    ImportError: libcudart.so.10.2: cannot open shared object file: No such file or "
            "directory   \n     \nand my Cuda is \n\n    NVIDIA-SMI 450.80.02    Driver Version: 450.80.02"
            "    CUDA Version: 11.0\n\ni need to use Cuda 11.0 instead of 10.2 but don't know why it is read "
            "the old version of Cuda",
            "10.2",
            "11.0",
        ),
        # open-mmlab/mmcv#1224 (the 1.3.10 wheel of the cu111 index; the 1.3.9 wheel worked)
        (
            "# cu111 pytorch 1.9.0 mmcv_full-1.3.10-cp37-cp37m-manylinux1_x86_64.whl looks for cuda 10.2 "
            "instead of cuda 11.1\n\nImportError: libcudart.so.10.2: cannot open shared object file: No such "
            "file or directory",
            "10.2",
            "11.1",
        ),
    ]
    for text, old, other in cases:
        lead = _one(text, "lib.cannot_open_shared_object")
        if old:
            assert any(
                f"runtime of CUDA {old}, and the text names CUDA {other}" in line for line in lead.evidence
            ), lead.evidence
            assert lead.fix.text.startswith(
                f"A compiled package built against CUDA {old} asks for its runtime"
            )
            assert "reinstall or rebuild that package" in lead.fix.text
    # a runtime of the CUDA the text names is not this (constructed)
    lead = _one(
        "CUDA 11.8\nImportError: libcudart.so.11.0: cannot open shared object file",
        "lib.cannot_open_shared_object",
    )
    assert not lead.fix.text.startswith("A compiled package built against CUDA")


def test_a_cuda_initialization_error_in_a_dataloader_worker_is_cuda_in_a_forked_worker() -> None:
    # cudaErrorInitializationError in a forked DataLoader worker that touched CUDA; the threads kept CUDA out
    # of the workers (num_workers=0, CPU tensors from the dataset, spawn).
    cases = [
        # pytorch/pytorch#2517 (a collate_fn creating tensors on the device with num_workers > 0)
        '  File "/path/to/miniconda3/envs/myenv/lib/python3.7/site-packages/torch/utils/data/dataloader.py", '
        "line 138, in _worker_loop\n    samples = collate_fn([dataset[i] for i in batch_indices])\n"
        '  File "/path/to/mycodebase/src/data.py", line 636, in _batch_helper\n'
        "    (bs, max_nb_attr), dtype=torch.long, device=self.device)\n"
        "RuntimeError: CUDA error: initialization error",
        # feiyunzhang/i3d-non-local-pytorch#7 (default_collate's torch.tensor under a CUDA default type)
        '  File "/usr/local/lib/python2.7/dist-packages/torch/utils/data/_utils/worker.py", line 99, in '
        "_worker_loop\n    samples = collate_fn([dataset[i] for i in batch_indices])\n"
        '  File "/usr/local/lib/python2.7/dist-packages/torch/utils/data/_utils/collate.py", line 68, in '
        "default_collate\n    return [default_collate(samples) for samples in transposed]\n"
        '  File "/usr/local/lib/python2.7/dist-packages/torch/utils/data/_utils/collate.py", line 59, in '
        "default_collate\n    return torch.tensor(batch)\nRuntimeError: CUDA error: initialization error",
        # epic-kitchens/C1-Action-Recognition-TSN-TRN-TSM#25 (crashes only with num_workers > 0)
        "terminate called after throwing an instance of 'c10::Error'\n  what():  CUDA error: initialization "
        "error\nException raised from insert_events at /opt/conda/conda-bld/pytorch_1607370172916/work/c10/"
        "cuda/CUDACachingAllocator.cpp:717 (most recent call first):",
    ]
    for n, text in enumerate(cases):
        lead = _one(text, "cuda.initialization_error")
        assert "forked from one that had already initialised CUDA" in lead.cause
        assert lead.fix.text.startswith("Keep CUDA out of the DataLoader workers")
        assert "multiprocessing_context='spawn'" in lead.fix.text
        if n < 2:
            assert "raised in a DataLoader worker process: a forked worker touched CUDA" in lead.evidence


def test_memory_an_evaluation_takes_without_no_grad_is_autograd_left_on_without_growth() -> None:
    # Evaluation or inference that takes more memory than it needs, told without growth: the forward passes
    # keep their graphs. The threads' fix: torch.no_grad() around the evaluation or inference.
    cases = [
        # facebookresearch/SlowFast#109 (the maintainer: 'it is okay to use it for memory conservation')
        "2. The code does not use ```with torch.no_grad()``` before the prediction code block in "
        "```perform_test``` in test_net.py. After adding it to the code, I see that the GPU memory "
        "consumption is extremely decreased.",
        # chrischoy/FCGF#15 (the maintainer: 'I'll update the evaluation codes')
        "it is not really an issue but when performing the validation you can wrap the code in \nwith "
        "torch.no_grad():\n\nsuch that the gradients are not computed. \n\nIt helps reduce the memory "
        "consumption and makes the validation faster.",
        # kan-bayashi/ParallelWaveGAN#26 (merged)
        "Add torch.no_grad() in evaluation\n\nFix additional memory consuming in the evaluation.",
        # maum-ai/voicefilter#6 (merged)
        "use torch.no_grad scope when inferencing\n\nThis reduces the usage of GPU memory when inferencing "
        "about half.\n\nMissing `torch.no_grad()` scope in `inference.py` was my mistake.",
    ]
    for text in cases:
        entry = _one(text, "memory.graph_kept_in_eval")
        assert "more GPU memory than it needs" in entry.cause and "autograd" in entry.cause
        assert entry.fix.text.startswith("Run the whole evaluation loop under torch.no_grad()")
    # no_grad already in place, memory not reduced, is not told as saved (constructed)
    assert "memory.graph_kept_in_eval" not in _ids(
        "with torch.no_grad(): the memory usage is not reduced at all during training."
    )


_OMP_HINT = (
    "OMP: Hint This means that multiple copies of the OpenMP runtime have been linked into the program. That "
    "is dangerous, since it can degrade performance or cause incorrect results. The best thing to do is to "
    "ensure that only a single OpenMP runtime is linked into the process, e.g. by avoiding static linking of "
    "the OpenMP runtime in any library. As an unsafe, unsupported, undocumented workaround you can set the "
    "environment variable KMP_DUPLICATE_LIB_OK=TRUE to allow the program to continue to execute, but that "
    "may cause crashes or silently produce incorrect results."
)


def test_omp_error_15_is_two_openmp_runtimes_in_one_process() -> None:
    # Intel's (or LLVM's) OpenMP runtime aborts when a second copy starts: torch's own beside the one of a
    # package linked with MKL. The threads kept one runtime (nomkl, the duplicate dll deleted, a clean
    # environment) or set KMP_DUPLICATE_LIB_OK=TRUE.
    cases = [
        # kuaikuaikim/dface#36 (Windows: the copy in anaconda3\Library\bin deleted; KMP_DUPLICATE_LIB_OK)
        (
            "I encountered environment  bug that is OMP: Error #15: Initializing libiomp5md.dll, but found "
            "libiomp5md.dll already initialized.",
            "libiomp5md.dll was starting with another copy of it already loaded (Windows)",
        ),
        # JaidedAI/EasyOCR#549 (KMP_DUPLICATE_LIB_OK=TRUE and a reboot; 'conda install nomkl' suggested)
        (
            "OMP: Error #15: Initializing libiomp5md.dll, but found libiomp5md.dll already initialized.\n"
            + _OMP_HINT
            + "\n\nProcess finished with exit code 3\n```\nI set the environment variable "
            "`KMP_DUPLICATE_LIB_OK=TRUE`, reboot the system, but it also fails.\nWindows 10 20H2 19042.1237, "
            "Python 3.8.5, installed packages:",
            "libiomp5md.dll was starting with another copy of it already loaded (Windows)",
        ),
        # kuprel/min-dalle#12 (an Intel Mac: libiomp5.dylib beside libomp.dylib)
        (
            "OMP: Error #15: Initializing libiomp5.dylib, but found libomp.dylib already initialized.",
            "libiomp5.dylib was starting with libomp.dylib already loaded (macOS)",
        ),
        # jianchang512/ChatTTS-ui#22 (its first letters lost in the copy)
        (
            "Env: Python 3.10\n\nIssue summary:\n```\nP: Error #15: Initializing libomp.dylib, but found "
            "libiomp5.dylib already initialized.\n" + _OMP_HINT,
            "libomp.dylib was starting with libiomp5.dylib already loaded (macOS)",
        ),
    ]
    for text, said in cases:
        lead = _led_by(text, "openmp.duplicate_runtime")
        assert said in lead.evidence, lead.evidence
        assert "Two copies of an OpenMP runtime" in lead.cause and "MKL" in lead.cause
        assert "conda install nomkl" in lead.fix.text and "KMP_DUPLICATE_LIB_OK=TRUE" in lead.fix.text
        assert "unsafe" in lead.fix.text
        windows = "(Windows)" in said
        assert ('where /r "%CONDA_PREFIX%" libiomp5md.dll' in lead.fix.commands) is windows
    # pytorch/vision#6087 (torchvision's maintainer, a conda nightly on macOS; a clean environment fixed it)
    text = (
        "On MacOS, it started after updating to the latest nightly `1.13.0.dev20220525-py3.8_0` from core "
        "(previously I was at `1.12.0.dev20220309-py3.8_0`, so the issue could have been introduced earlier "
        "than May 25th). I'm receiving the following after importing torchvision:\n```\nOMP: Error #15: "
        "Initializing libiomp5.dylib, but found libomp.dylib already initialized.\n"
    )
    assert "fresh environment whose torch and numpy come from one source" in _explained(text)[0].fix.text
    # another OpenMP message is not this one (constructed)
    assert "openmp.duplicate_runtime" not in _ids("OMP: Info #276: omp_set_nested routine deprecated")


def test_an_environment_file_that_brings_a_cpu_only_torch_is_fixed_in_the_file() -> None:
    # An environment file (or a package's dependencies) that does not ask for a CUDA build lets the solver
    # pick a CPU-only torch. The threads asked for the CUDA build in the file and recreated the environment.
    cases = [
        # NRCan/geo-deep-learning#490 (fixed by #491: the version pinned 'to ensure gpu download')
        "Conda environments built from our environment.yml install a cpu version of pytorch even on "
        "machines with GPU.",
        # chemprop/chemprop#183 (the pytorch channel preferred over conda-forge in the environment file)
        "Wanted to bring to your notice that the installation from the `environment.yml` file seems to "
        "install `cpu` versions of `pytorch` and `torchvision` instead of `gpu` ones. I found that this is "
        "because it installs `pytorch` and `torchvision`  from the `conda-forge` channel instead of the "
        "`pytorch` channel.",
        # hpcaitech/FastFold#27 (the maintainers' #40 pinned torch==1.12.1+cu113)
        "In current environment.yml conda not install cuda related package, that lead pytorch choose cpu "
        "version instead cuda version. and will fail when python setup.py install or run the infer.py",
        # mamba-org/mamba#1349 ('pytorch=*=*cuda*' with the nvidia channel 'resolved it')
        "Mamba only installs the CPU version of PyTorch.",
        # chengtan9907/OpenSTL#63 (cudatoolkit pinned in environment.yml; 'availiable' as written)
        "Follow the command to install the environment test , torch.cuda.is_availiable() is false.",
    ]
    for n, text in enumerate(cases):
        lead = _one(text, "cuda.not_available")
        if n == len(cases) - 1:
            assert "environment file" not in lead.cause  # no file named: the general answer
            continue
        assert lead.cause.startswith("The environment file (or the dependencies of what was installed)")
        assert "CPU-only build" in lead.cause
        assert lead.fix.text.startswith("Ask for the CUDA build in the environment file itself")
        assert "pytorch=*=*cuda*" in lead.fix.text and "pytorch-gpu" in lead.fix.text
        assert "https://download.pytorch.org/whl/cu1XX" in lead.fix.text
    # photon-mosaic/photon-mosaic-pipeline#21 (a package's dependencies pin a +cpu wheel; the CUDA wheel
    # installed after it from the cu124 index)
    lead = _one(
        "When [suite2p-NIU](https://github.com/neuroinformatics-unit/suite2p) is installed, it automatically "
        "installs pytorch with CPU support only `torch==2.7.1+cpu`.",
        "cuda.not_available",
    )
    assert "the text shows a CPU-only build (2.7.1+cpu)" in lead.evidence
    assert "pip's default wheel on Windows and macOS, or a +cpu pin" in lead.cause
    # a CPU build installed on purpose for a CPU-only machine is not this (constructed)
    assert "cuda.not_available" not in _ids("I installed the CPU version of tensorflow on my laptop.")


def test_an_object_dataloader_workers_cannot_unpickle_is_spawns_pickling() -> None:
    # Workers started with spawn (Windows; macOS since Python 3.8) are sent the dataset and its functions by
    # pickling: lambdas and local objects do not pickle, and a class of __main__ is not found in the worker.
    # The threads moved them to module level or set num_workers=0.
    cases = [
        # openai/CLIP#151 (merged: the lambda replaced by a named function; 'not tested on Windows')
        (
            "This prevents the following error on Windows (when using a multi-process `DataLoader`, for "
            "example):\n```\nAttributeError: Can't pickle local object '_transform.<locals>.<lambda>'\n```",
            "what could not be pickled: _transform.<locals>.<lambda>: a lambda, defined inside _transform()",
            "Windows",
        ),
        # qubvel-org/segmentation_models.pytorch#12 (Windows Server 2016; num_workers=0 worked)
        (
            'When I run "cars segmentation (camvid).ipynb", there was an error： AttributeError: Can\'t '
            "pickle local object 'get_preprocessing_fn.<locals>._preprocess_input'\nThis error is in the "
            '"train model for 40 epochs"',
            "what could not be pickled: get_preprocessing_fn.<locals>._preprocess_input: _preprocess_input, "
            "defined inside get_preprocessing_fn()",
            None,
        ),
        # torcheeg/torcheeg#16 (the maintainer: no lambda functions for multi-process operations on Windows)
        (
            "`_pickle.PicklingError: Can't pickle <function <lambda> at 0x00000230131CD3A0>: attribute "
            "lookup <lambda> on __main__ failed`",
            "what could not be pickled: a lambda of __main__, which pickle could not look up by its name",
            None,
        ),
        # Optimization-AI/LibAUC#60 (a notebook's Dataset class; removing the workers worked)
        (
            'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n  File '
            '"C:\\Users\\Admin\\anaconda3\\envs\\dino\\lib\\multiprocessing\\spawn.py", line 116, in '
            "spawn_main\n    exitcode = _main(fd, parent_sentinel)\n  File "
            '"C:\\Users\\Admin\\anaconda3\\envs\\dino\\lib\\multiprocessing\\spawn.py", line 126, in _main\n'
            "    self = reduction.pickle.load(from_parent)\nAttributeError: Can't get attribute "
            "'ImageDataset' on <module '__main__' (built-in)>\n\nI am using Jupyter Notebook to run the code "
            "with Python 3.10.14",
            "what could not be pickled: the class ImageDataset, defined in __main__ (a notebook or the "
            "script itself)",
            "Windows",
        ),
        # Project-MONAI/MONAI#3928 (macOS: multiprocessing_context="fork" fixed it)
        (
            "I'm running macos conda-forge on the M1 architecture and testing the mednist_tutorial.ipynb "
            'and other jupyter notebooks. I get the following error\n```  File "<string>", line 1, in '
            '<module>\n  File "'
            "/opt/homebrew/Caskroom/miniforge/base/envs/pytorch_env/lib/python3.9/multiprocessing/spawn.py"
            '", line 116, in spawn_main\n    exitcode = _main(fd, parent_sentinel)\n  File "'
            "/opt/homebrew/Caskroom/miniforge/base/envs/pytorch_env/lib/python3.9/multiprocessing/spawn.py"
            "\", line 126, in _main\n    self = reduction.pickle.load(from_parent)\nAttributeError: Can't "
            "get attribute 'MedNISTDataset' on <module '__main__' (built-in)>\n```",
            "what could not be pickled: the class MedNISTDataset, defined in __main__ (a notebook or the "
            "script itself)",
            "macOS",
        ),
    ]
    for text, said, system in cases:
        lead = _led_by(text, "dataloader.worker_pickling")
        assert said in lead.evidence, lead.evidence
        on = f"the text is on {system}, where worker processes are started with spawn"
        assert (on in lead.evidence) is (system is not None), lead.evidence
        assert "spawn" in lead.cause and "cannot be pickled" in lead.cause
        assert "num_workers=0" in lead.fix.text and "if __name__ == '__main__':" in lead.fix.text
    # an object that pickles but fails in the worker is not this (constructed)
    assert "dataloader.worker_pickling" not in _ids(
        "ValueError: Caught ValueError in DataLoader worker process 0."
    )


def test_a_gpu_the_writer_says_is_not_nvidias_is_no_cuda_device() -> None:
    # CUDA runs on NVIDIA GPUs only: a writer whose GPU is another's (or integrated Intel graphics) is told
    # the build that reaches it, or the CPU. The threads answered so ('it is NVIDIA or nothing').
    cases = [
        # titu1994/Neural-Style-Transfer#19 ('CUDA only supports NVidia GPUs. Not Intel HD graphics cards')
        (
            "this project whether support the Intel HD Graphics,is only support NVIDIA GPU?",
            "an Intel integrated GPU (Intel HD Graphics)",
        ),
        # aelnouby/Text-to-Image-Synthesis#24 (run on the CPU with the .cuda() calls removed)
        (
            "# Can you run this without nvidia?\n\nI've tried to run your code but it required nvidia and I "
            "don't have a nvidia graphic card ; can this work with other types of GPU?",
            "a GPU that is not NVIDIA's (don't have a nvidia)",
        ),
        # facebookresearch/SymbolicMathematics#15 ('it is NVIDIA or nothing ... set --cpu true')
        (
            "I have an intel graphics card. \n\nTo verify that your GPU is CUDA-capable, go to your "
            "distribution's equivalent of System Properties, or, from the command line, enter:\n$ lspci | "
            "grep -i nvidia\n\nThe result is empty.",
            "an Intel integrated GPU (intel graphics card)",
        ),
        # navinor/DameDaneGenerator#3 ('it must be run on a nvidia gpu')
        (
            "However, I didn't see hardware requirement on your repository that it still required to run on "
            "Nvidia GPU or can be executed on non-Nvidia GPU.",
            "a GPU that is not NVIDIA's (non-Nvidia)",
        ),
    ]
    for text, named in cases:
        lead = _led_by(text, "gpu.not_nvidia")
        assert f"the text names {named}, which is no CUDA device" in lead.evidence, lead.evidence
        assert lead.cause.startswith("CUDA is NVIDIA's alone")
        assert "on the CPU" in lead.fix.text and "NVIDIA GPU" in lead.fix.text
    # Gourieff/ComfyUI-ReActor#46 (an Intel Arc GPU: torch's XPU build reaches it)
    lead = _one(
        "It does not work on Intel Arc graphics cards because the plugin calls for CUDA, which is not "
        "supported by Intel graphics cards. Is it possible to fix it to support XPU devices?",
        "gpu.not_nvidia",
    )
    assert "https://download.pytorch.org/whl/xpu" in lead.fix.text
    # XPixelGroup/BasicSR#107 (Intel Iris Graphics 550 and a CPU-only torch: the CPU, not a CUDA build)
    lead = _one(
        "Running on a 2016 MBP with Intel Iris Graphics 550 1536 MB.\n\nI've read that it might be possible "
        'to get this software running without CUDA. Is this possible? Currently getting this error:\n\nFile "'
        '/usr/local/lib/python3.7/site-packages/torch/cuda/__init__.py", line 75, in _check_driver\n    '
        'raise AssertionError("Torch not compiled with CUDA enabled")\nAssertionError: Torch not '
        "compiled with CUDA enabled",
        "torch.not_compiled_with_cuda",
    )
    assert "the text names an Intel integrated GPU (Intel Iris Graphics 550), which is no CUDA device" in (
        lead.evidence
    )
    assert "not the HD, UHD or Iris graphics" in lead.cause and "on the CPU" in lead.fix.text
    # a missing NVIDIA driver is not a GPU of another maker (constructed)
    assert "gpu.not_nvidia" not in _ids("I don't have the nvidia driver installed yet.")


def test_a_question_for_a_build_or_mode_without_cuda_is_running_on_the_cpu() -> None:
    # Asking for a CPU-only build, a CPU mode or a way to compile without GPU support: the program's device
    # option, or the project's own CPU-only build, or an NVIDIA GPU. The threads answered with each.
    cases = [
        # facebookarchive/C3D#288 (the author: 'CPU_ONLY is an option on Makefile.config')
        "Does it support CPU_only mode? I can not compile C3D-v1.0 without CUDA environment.",
        # dnouri/cuda-convnet#19 ('No, sorry.')
        "Can it be compiled without GPU support? (in CPU only mode)",
        # facebookresearch/deepcluster#51 ('We do not provide CPU mode only unfortunately.')
        "Is there any other ways to run in CPU or other CUDA compatible modes?",
        # yaushian/Tree-Transformer#7 (a merged change added the option)
        "The code cannot be run without a working CUDA installation.\nIt would be beneficial to include the "
        "option, e.g. to be able to modify the architecture or debug in a computer without GPUs.",
        # NameFilled/Euktect#1 ('The CPU-only version is available now')
        "I noticed that it need cuda and GPU when installing, is there an available version for CPU only? "
        "Because I don't have an GPU on server.",
        # CharlesShang/FastMaskRCNN#155 ('It can not run on computers without CUDA, unless you modified the
        # code')
        "Has anyone has been able to get the code up and running on a CPU with no CUDA?",
    ]
    for text in cases:
        lead = _led_by(text, "device.run_on_cpu")
        assert "a CPU-only build of its own where the project offers one" in lead.fix.text
        assert "(a build option without GPU support" in lead.fix.text
    # a conda pin of a CUDA build is quoted with its CUDA (constructed around the pin of an environment file)
    lead = _one(
        "The environment.yml pins pytorch=1.2.0=py3.7_cuda10.0.130_cudnn7.6.2_0.\nCan I run it on the CPU?",
        "device.run_on_cpu",
    )
    assert lead.evidence == (
        "the text names pytorch=1.2.0=py3.7_cuda10.0.130_cudnn7.6.2_0: torch 1.2.0 built for CUDA 10.0, "
        "which needs an NVIDIA GPU; on the CPU a CPU-only build of the same release takes its place",
    )
    # a CPU-only torch installed by mistake is not a question of running on the CPU (constructed)
    assert "device.run_on_cpu" not in _ids("pip installed a cpu-only build of torch, cuda is False")


def test_dataparallel_with_the_model_off_its_first_gpu_names_where_the_model_was() -> None:
    # nn.DataParallel copies the module from device_ids[0] at every forward: a model left on the CPU (a CPU
    # run still wrapped) or moved to another GPU fails its check. The threads moved the model or unwrapped it.
    cases = [
        # otenim/GLCIC-PyTorch#8 (a DataParallel model in the CPU predict script; the maintainer's fix)
        (
            "HI, I trained a model with enabling data_parallel flag, and when I want to test with the "
            "command:\npython predict.py  ...\nI got the error: RuntimeError: module must have its "
            "parameters and buffers on device cuda:0 (device_ids[0]) but found one of them on device: cpu",
            "cpu",
        ),
        # open-mmlab/mmcv#922 ('MMDataParallel only supports single GPU training')
        (
            "I'm trying to run the model on CPU but got the error\n> module must have its parameters and "
            "buffers on device cuda:0 (device_ids[0]) but found one of them on device: cpu\n\nDoes "
            "MMDataParallel model support on running with CPU #?",
            "cpu",
        ),
        # Morizeyao/GPT2-Chinese#165 (two RTX 2080; device='cuda' made 'cuda:0')
        (
            "> 训练使用2个rtx2080显卡报错：RuntimeError: module must have its parameters and buffers on "
            "device cuda:0 (device_ids[0]) but found one of them on device: cuda:1",
            "cuda:1",
        ),
        # open-mmlab/mmdetection#2632 (spaces lost around the parenthesis)
        (
            "module must have its parameters and buffers on device cuda:0(device_ids[0])but found one of "
            "them on device :cuda:1",
            "cuda:1",
        ),
    ]
    for text, elsewhere in cases:
        lead = _one(text, "dataparallel.module_not_on_first_device")
        assert lead.evidence == (
            f"DataParallel's first device is cuda:0; a parameter or buffer of the model was on {elsewhere}",
        )
        if elsewhere == "cpu":
            assert "found the model on the CPU" in lead.cause
            assert "wrap only when more than one GPU is used (if len(device_ids) > 1)" in lead.fix.text
        else:
            assert "the model was moved to another GPU" in lead.cause
            assert "device_ids=[1, 0]" in lead.fix.text and "CUDA_VISIBLE_DEVICES=" in lead.fix.text


def test_a_distributed_script_run_with_plain_python_misses_the_launchers_variables() -> None:
    # The launcher (torchrun, torch.distributed.launch) sets RANK, LOCAL_RANK and WORLD_SIZE for each process;
    # a script written for it and run with plain python finds none. The threads started it through the
    # launcher, with --nproc_per_node=1 on one GPU.
    cases = [
        # OpenLMLab/LOMO#31 (the maintainer: run.sh's launcher sets LOCAL_RANK)
        (
            "File ~\\anaconda3\\envs\\pytorch-fast\\lib\\os.py:680, in _Environ.__getitem__(self, key)\n    "
            "677     value = self._data[self.encodekey(key)]\n    678 except KeyError:\n    679     # raise "
            "KeyError with the original key value\n--> 680     raise KeyError(key) from None\n    681 return "
            "self.decodevalue(value)\n\nKeyError: 'LOCAL_RANK'",
            "LOCAL_RANK",
            False,
        ),
        # Theodore-PKU/MC-DDPM#1 (the key alone, then Python's chained exception)
        (
            "'LOCAL_RANK'\n\nDuring handling of the above exception, another exception occurred:\n\n  File "
            '"/hdd1/MC_DDPM/utils/dist_util.py", line 22, in setup_dist\n    th.cuda.set_device(int('
            'os.environ["LOCAL_RANK"]))',
            "LOCAL_RANK",
            False,
        ),
        # STVIR/pysot#215 (one GPU: torch.distributed.launch --nproc_per_node=1)
        (
            "当我单卡运行python tools/train.py --cfg siamrpn_r50_l234_dwxcorr_otb/config.yaml"
            "时,遇到下面的问题:\n"
            'Traceback (most recent call last):\n  File "tools/train.py", line 319, in <module>\n    '
            'main()\n  File "tools/train.py", line 258, in main\n    rank, world_size = dist_init()\n  '
            'File "/home/aibc/Wen/Siamese/pysot/pysot/utils/distributed.py", line 104, in dist_init\n    '
            'rank, world_size = _dist_init()\n  File "'
            '/home/aibc/Wen/Siamese/pysot/pysot/utils/distributed.py", line 83, in _dist_init\n    rank = '
            "int(os.environ['RANK'])\n  File \""
            '/home/aibc/anaconda2/envs/py36_pytorch1_2/lib/python3.6/os.py", line 669, in __getitem__\n   '
            " raise KeyError(key) from None\nKeyError: 'RANK'\n应该怎么解决呢?",
            "RANK",
            True,
        ),
        # zhengchen1999/DAT#31 ('Got KeyError: 'RANK' when train on single GPU')
        (
            "# Got KeyError: 'RANK' when train on single GPU\n\n"
            "root@autodl-container-2bae408949-4f297d06:~/DAT# python basicsr/train.py -opt "
            "options/Train/train_DAT_light_x2.yml --launcher pytorch\nTraceback (most recent call last):\n "
            ' File "basicsr/train.py", line 215, in <module>\n    train_pipeline(root_path)\n  File "'
            'basicsr/train.py", line 93, in train_pipeline\n    opt, args = parse_options(root_path, '
            'is_train=True)\n  File "/root/DAT/basicsr/utils/options.py", line 106, in parse_options\n   '
            ' init_dist(args.launcher)\n  File "/root/DAT/basicsr/utils/dist_util.py", line 14, in '
            'init_dist\n    _init_dist_pytorch(backend, **kwargs)\n  File "'
            '/root/DAT/basicsr/utils/dist_util.py", line 22, in _init_dist_pytorch\n    rank = '
            "int(os.environ['RANK'])\n  File \"/root/miniconda3/lib/python3.8/os.py\", line 675, in "
            "__getitem__\n    raise KeyError(key) from None\nKeyError: 'RANK'",
            "RANK",
            True,
        ),
    ]
    for text, name, one_gpu in cases:
        lead = _led_by(text, "dist.launcher_variables_missing")
        assert f"{name} is not set: the process was not started by a launcher" in lead.evidence
        said = "the text says the machine has one GPU: one process, torchrun --nproc_per_node=1"
        assert (said in lead.evidence) is one_gpu, lead.evidence
        assert "run with plain python" in lead.cause
        assert lead.fix.text.startswith("Start it through the launcher: torchrun --nproc_per_node=")
    # a variable no launcher sets is not this (constructed after microsoft/MeshTransformer#16's)
    assert "dist.launcher_variables_missing" not in _ids("KeyError: 'NODE_RANK'")


def test_a_collective_on_a_cpu_tensor_with_nccl_names_the_call() -> None:
    # NCCL moves CUDA tensors only: a CPU tensor given to a collective fails. The threads moved it to the GPU
    # or gave CPU tensors a gloo group.
    cases = [
        # pytorch/examples#1030 (fixed by #1034: torch.cuda.FloatTensor under NCCL)
        ("## Current Behavior\n\nIt outputs:\n```\nRuntimeError: Tensors must be CUDA and dense\n```", None),
        # huggingface/trl#715 (the statistic moved to the GPU before dist.all_reduce 'resolves my problem')
        (
            'Get error when using PPOTrainer with multi GPUs:\n```\nFile "/home/t-jingweiyi/miniconda3/envs/'
            'torch2/lib/python3.10/site-packages/trl/trainer/ppo_trainer.py", line 879, in '
            "gather_stats\nstats = self.gather_stats(stats)\n....\nRuntimeError: RuntimeError Tensors must "
            "be CUDA and dense: \n```",
            None,
        ),
        # zai-org/CogVLM#328 (dist.broadcast of a CPU tensor in SwissArmyTransformer)
        (
            'RuntimeError: No backend type associated with device type cpu\n  File "'
            '/usr/local/lib/python3.10/dist-packages/sat/training/deepspeed_training.py", line 180, in '
            'setup_model_untrainable_params_and_optimizer\n    dist.broadcast(\n  File "'
            '/usr/local/lib/python3.10/dist-packages/torch/distributed/c10d_logger.py", line 47, in '
            'wrapper\n    return func(*args, **kwargs)\n  File "'
            '/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py", line 1906, '
            "in broadcast\n    work = default_pg.broadcast([tensor], opts)\nRuntimeError: No backend type "
            "associated with device type cpu",
            "the collective: broadcast, called at /usr/local/lib/python3.10/dist-packages/sat/training/"
            "deepspeed_training.py, line 180",
        ),
    ]
    for text, call in cases:
        lead = _one(text, "dist.cpu_tensor_on_nccl")
        assert "tensor on the CPU while the process group runs NCCL" in lead.cause
        assert (
            "backend='cpu:gloo,cuda:nccl'" in lead.fix.text and "t.to(f'cuda:{local_rank}')" in lead.fix.text
        )
        if call is not None:
            assert call in lead.evidence, lead.evidence
            assert any("device type cpu" in line for line in lead.evidence)


def test_gloo_told_an_interface_the_machine_lacks_names_what_it_was_given() -> None:
    # Gloo binds to the interface GLOO_SOCKET_IFNAME names; one the machine lacks, an IP address or NCCL's
    # exclusion syntax fails. The threads set an interface the machine has, or none.
    cases = [
        # Megvii-BaseDetection/YOLOX#119 (ib0 from the program's launch code; fixed upstream)
        (
            "RuntimeError: [enforce fail at /pytorch/third_party/gloo/gloo/transport/tcp/device.cc:83] ifa "
            "!= nullptr. Unable to find address for: ib0",
            "Gloo was given the interface 'ib0', which this machine does not have",
        ),
        # spark-arena/sparkrun#275 (eth0 injected on a machine without it)
        (
            "Running a vLLM recipe in solo mode fails during Gloo initialization:\n\n```text\nRuntimeError: "
            "Unable to find address for: eth0\n```",
            "Gloo was given the interface 'eth0', which this machine does not have",
        ),
        # AMD-AGI/Primus#1063 (merged: no IP address as a fallback for *_SOCKET_IFNAME)
        (
            "Where it is missing the fallback put an IP address into NCCL_SOCKET_IFNAME/GLOO_SOCKET_IFNAME, "
            'which take an interface name, and every rank died in Gloo with "Unable to find address for: '
            '<ip>".',
            None,
        ),
        # NVIDIA/Megatron-LM#436 ('an incorrect setting of GLOO_SOCKET_IFNAME')
        (
            "RuntimeError: [enforce fail at /root/pytorch/third_party/gloo/gloo/transport/tcp/device.cc:83] "
            "ifa != nullptr. Unable to find address for: bond1",
            "Gloo was given the interface 'bond1', which this machine does not have",
        ),
    ]
    for text, said in cases:
        lead = _one(text, "gloo.interface_not_found")
        if said is not None:
            assert lead.evidence == (said,)
        assert "GLOO_SOCKET_IFNAME" in lead.cause and "ip -4 route get" in lead.fix.text
    # an IP address and NCCL's exclusion list are told as such (constructed)
    assert _one("Unable to find address for: 10.1.2.3", "gloo.interface_not_found").evidence == (
        "Gloo was given '10.1.2.3': an IP address where an interface name belongs",
    )
    assert _one("Unable to find address for: ^docker", "gloo.interface_not_found").evidence == (
        "Gloo was given '^docker': NCCL's exclusion syntax, which names no interface for Gloo",
    )


def test_all_devices_busy_or_unavailable_is_an_exclusive_gpu_held_by_another_process() -> None:
    # cudaErrorDevicesUnavailable: a GPU in exclusive-process mode that another process holds (often another
    # process of the same job on cuda:0). The threads gave each process its own GPU (set_device per rank).
    cases = [
        # karpathy/nanoGPT#116 (merged: torch.cuda.set_device per rank on GPUs in exclusive process mode)
        (
            "I’ve been trying to run this code on a HPC node with 4 gpus, however after compiling the model "
            "it would immediately run into `RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or "
            "unavailable`. \nAfter a lot debugging (i thought there was something wrong with the environment "
            "setup) it seems the only problem is the GPUs are in exclusive process mode.",
            True,
        ),
        # BUTSpeechFIT/safe_gpu#1 (the parent's tensor holds the GPU its DDP workers need)
        (
            "On SGE server the GPUs are set in Exclusive Process Mode. This mode makes sure that there is "
            "just one process running on any GPU at the time. When initializing GPUOwner the class "
            "allocates a tensor on assigned GPUs. The tensor than prevents training for spawned processes "
            "due to Exclusive Process Mode (more than one process allocates memory on a GPU).\n\nThe error "
            "is indicated by the following message:\n```\nRuntimeError: CUDA error: all CUDA-capable "
            "devices are busy or unavailable\nCUDA kernel errors might be asynchronously reported at some "
            "other API call,so the stacktrace below might be incorrect.\nFor debugging consider passing "
            "CUDA_LAUNCH_BLOCKING=1.\n```",
            True,
        ),
        # jade-hpc-gpu/jade-hpc-gpu.github.io#40 (torch 0.3's THC form; the cluster's GPUs in E. Process)
        (
            "THCudaCheck FAIL file=/opt/conda/conda-bld/pytorch_1518244421288/work/torch/lib/THC/"
            "THCStream.cpp line=40 error=46 : all CUDA-capable devices are busy or unavailable",
            False,
        ),
    ]
    for text, exclusive in cases:
        lead = _led_by(text, "cuda.devices_unavailable")
        said = "the text shows a GPU in exclusive-process mode: one process at a time"
        assert (said in lead.evidence) is exclusive, lead.evidence
        assert "exclusive-process compute mode" in lead.cause
        assert lead.fix.text.startswith("Give each process its own GPU before any CUDA work")
        assert "sudo nvidia-smi -i <index> -c DEFAULT" in lead.fix.text
    # huggingface/pytorch-image-models#1033 (two ranks through slurm, on GPUs in exclusive mode)
    lead = _one(
        "I run the code `./distributed_train.sh` to use 2 gpus for `resnet50` through slurm on a shared "
        "cluster. Before the code I also set `export CUDA_VISIBLE_DEVICES=0,1`. \n\nThe cluster I run the "
        "code on has GPUs in exclusive process/exclusive mode and I don't have permissions to change it "
        "otherwise. Since the DDP code in `train.py` already creates one process per GPU, I guess I "
        "shouldn't be running into this error. The summary of error I get: `RuntimeError: CUDA error: all "
        "CUDA-capable devices are busy or unavailable`.",
        "cuda.devices_unavailable",
    )
    assert "the text shows a GPU in exclusive-process mode: one process at a time" in lead.evidence
    # the device the program names is quoted (constructed)
    lead = _one(
        "model.to('cuda:0') in both processes\nRuntimeError: CUDA error: all CUDA-capable devices are busy "
        "or unavailable",
        "cuda.devices_unavailable",
    )
    assert "the program names cuda:0: in exclusive-process mode one process at a time can hold it" in (
        lead.evidence
    )


def test_tensors_on_two_gpus_of_a_model_split_by_device_map_name_the_split() -> None:
    # device_map="auto" splits a model over the GPUs; model code that combines tensors of two of its parts
    # without moving one fails. The threads loaded the model on one GPU, or moved the tensors in its code.
    cases = [
        # OpenGVLab/InternVL#229 (the maintainer: a hand-written device_map)
        (
            "模型加载使用model = AutoModel.from_pretrained(\n    path,\n    torch_dtype=torch.float16,\n    "
            "low_cpu_mem_usage=True,\n    trust_remote_code=True,\n    "
            "device_map='auto').eval()\n想问下tensor应该怎么处理呀？不管是把数据放不到cuda上都会报错，"
            "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:0 and cuda:1!",
            "device_map='auto'",
        ),
        # QwenLM/Qwen-VL#202 (four T4s; the maintainers: device_map="cuda", or two GPUs)
        (
            '采用4张T4显卡执行推理，模型分布式处理device_map="auto"，出现bug：RuntimeError: Expected all '
            "tensors to be on the same device, but found at least two devices, cuda:2 and cuda:3!",
            'device_map="auto"',
        ),
    ]
    for text, written in cases:
        lead = _one(text, "tensors.different_devices")
        assert f"the text loads the model with {written}: split over the GPUs" in lead.evidence
        assert lead.cause.startswith("The model was split over the GPUs")
        assert "device_map={'': 0}" in lead.fix.text and "x.to(y.device)" in lead.fix.text
    # Vision-CAIR/MiniGPT-4#44 (the split is in the program's code, not the text: the general answer,
    # which names device_map='auto' among its causes, and one GPU made visible)
    lead = _one(
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 "
        "and cuda:1!",
        "tensors.different_devices",
    )
    assert "device_map='auto'" in lead.cause and "CUDA_VISIBLE_DEVICES=0" in lead.fix.text


def test_no_nvcc_where_cuda_home_points_says_what_is_wrong_with_it() -> None:
    # torch.utils.cpp_extension runs CUDA_HOME/bin/nvcc: CUDA_HOME holding several paths, a stray ':',
    # quotes or the bin folder gives a path with no nvcc. The threads exported CUDA_HOME as the toolkit's
    # root.
    cases = [
        # open-mmlab/mmdetection#2113 (CUDA_HOME was ':/usr/local/cuda-9.0'; the title as the issue gives it)
        (
            "# /usr/local/cuda-9.0/bin/nvcc': No such file or directory",
            "/usr/local/cuda-9.0/bin/nvcc",
            "no nvcc",
        ),
        # chengdazhi/Deformable-Convolution-V2-PyTorch#86 ('export CUDA_HOME=/usr/local/cuda')
        (
            "After running this command in sh make.sh, it reported this error `/bin/sh: 1: "
            ":/usr/local/cuda/bin/nvcc: not found`, but I found this file on this path of my computer",
            ":/usr/local/cuda/bin/nvcc",
            "stray ':'",
        ),
        # IDEA-Research/GroundingDINO#165 ('export CUDA_HOME=/usr/local/cuda')
        (
            "# help！！error: [Errno 2] No such file or directory: '/usr/local/cuda-11.8:/bin/nvcc'",
            "/usr/local/cuda-11.8:/bin/nvcc",
            "stray ':'",
        ),
        # MVIG-SJTU/AlphaPose#765 (quotes written into CUDA_HOME)
        (
            "unable to execute \"'/usr/local/cuda'/bin/nvcc\": No such file or directory\nerror: command "
            "\"'/usr/local/cuda'/bin/nvcc\" failed with exit status 1",
            "'/usr/local/cuda'/bin/nvcc",
            "quotes",
        ),
    ]
    for text, path, wrong in cases:
        lead = _one(text, "build.cuda_home_unset")
        assert lead.evidence[0] == f"the build looked for nvcc at {path}", lead.evidence
        assert wrong in lead.evidence[1], lead.evidence
        assert "export CUDA_HOME=" in lead.fix.text
    # lbin/DCNv2#25 warns of CUDA_HOME=...:$PATH and of its bin folder (constructed from those forms)
    lead = _one(
        "unable to execute '/usr/local/cuda-11.0/bin/bin/nvcc': No such file or directory",
        "build.cuda_home_unset",
    )
    assert "CUDA_HOME is the toolkit's bin folder (/usr/local/cuda-11.0/bin), not its root" in lead.evidence
    # torch 2.x's own words (torch/utils/cpp_extension.py; the paths are constructed)
    for text in (
        "FileNotFoundError: nvcc not found at '/opt/cuda/bin/nvcc'. Ensure CUDA path '/opt/cuda' is correct.",
        "CUDA was not found on the system, please set the CUDA_HOME or the CUDA_PATHenvironment variable or "
        "add NVCC to your system PATH. The extension compilation will fail.",
    ):
        assert _explained(text)[0].id == "build.cuda_home_unset", _ids(text)


def test_a_cuda_toolkit_of_another_major_release_than_torch_names_both() -> None:
    # cpp_extension refuses a toolkit whose CUDA major release differs from torch's. The threads installed a
    # torch for that CUDA, or pointed the build at a toolkit of torch's CUDA.
    cases = [
        # kodenii/Responsible-Visual-Editing#4 (the maintainer: a torch for the CUDA installed, or that CUDA)
        (
            " raise RuntimeError(CUDA_MISMATCH_MESSAGE.format(cuda_str_version, torch.version.cuda))\n"
            "RuntimeError: \nThe detected CUDA version (12.4) mismatches the version that was used to "
            "compile\nPyTorch (11.8). Please make sure to use the same CUDA versions.",
            "12.4",
            "11.8",
        ),
        # PKUHaoWang/EmbodiedOcc2#6 ('fixed by directly install pytorch in detected CUDA version')
        (
            "` RuntimeError:\n    The detected CUDA version (12.2) mismatches the version that was used to "
            "compile\n    PyTorch (11.3). Please make sure to use the same CUDA versions.`\nhow to solve the "
            "problem?",
            "12.2",
            "11.3",
        ),
        # ghostpad/ghostpad#9 (a CUDA_PATH pointing at the system's toolkit)
        (
            "Trying to run on my linux machine with Nvidia RTX 3080, I am getting this error on "
            "`install_requirements`\n```\nRuntimeError:\n      The detected CUDA version (12.3) mismatches "
            "the version that was used to compile\n      PyTorch (11.8). Please make sure to use the same "
            "CUDA versions.\n```",
            "12.3",
            "11.8",
        ),
    ]
    for text, toolkit, built in cases:
        lead = _one(text, "build.cuda_version_mismatch")
        assert lead.evidence == (
            f"the CUDA toolkit found is {toolkit}; the installed torch was built for CUDA {built}",
        )
        assert "major release" in lead.cause and "CUDA_HOME" in lead.fix.text and "CUDA_PATH" in lead.fix.text


def test_a_cpu_only_torch_in_a_conda_environment_is_fixed_in_its_environment_file() -> None:
    # A conda environment made from a file (or by the solver) that does not ask for a CUDA build holds a
    # CPU-only torch. The threads pinned the CUDA build in the file (cudatoolkit, the pytorch channel).
    cases = [
        # astooke/rlpyt#146 (cudatoolkit=10. made 10.0 in linux_cuda10.yml: 'PyTorch is GPU version')
        "I run my codes(Using rlpyt GpuSampler) on a GPU machine, which has CUDA installed:\n> # "
        "nvidia-smi\n> NVIDIA-SMI 410.72       Driver Version: 410.72       CUDA Version: 10.0\nbut I got "
        '"AssertionError: Torch not compiled with CUDA enabled" error.\nBy the way, here is how my Anaconda '
        "rlpyt env installed:\n> conda env create -f linux_cuda10.yml\nAnyone knows why this happened? "
        "Thanks a lot.",
        # openclimatefix-archives/satflow#18 ('conda install pytorch::pytorch' fixed it)
        "When using conda to install rasterio, cfgrib, cartopy, satpy and Pytorch, there are inconsistencies "
        "in requirements and, if Pytorch is then installed, `torch.cuda.is_available()` returns `False`.",
    ]
    for text in cases:
        lead = _explained(text)[0]
        assert lead.id in ("torch.not_compiled_with_cuda", "cuda.not_available"), _ids(text)
        assert lead.cause.startswith("The environment file (or the dependencies of what was installed)")
        assert lead.fix.text.startswith("Ask for the CUDA build in the environment file itself")
    # a traceback through a conda environment's folder (constructed around the folder's form)
    lead = _one(
        '  File "C:\\Users\\me\\.conda\\envs\\sd\\lib\\site-packages\\torch\\cuda\\__init__.py", line 449, '
        "in get_device_properties\n    _lazy_init()\nAssertionError: Torch not compiled with CUDA enabled",
        "torch.not_compiled_with_cuda",
    )
    assert "conda env create -f environment.yml" in lead.fix.text


def test_an_out_of_memory_of_long_inputs_or_video_leads_with_splitting_them() -> None:
    # One long input (audio, a document) or a video's frames need memory for their whole length at once. The
    # threads split, truncated or chunked them, or lowered the resolution.
    long_inputs = [
        # mbzuai-nlp/ArTST#11 ('You need to split audio and process them individually')
        (
            "# Cuda out of memory if the audio is long\n\nWhenever i try long audio in inference i get cuda "
            "out of memory errors, is there a chunk_length or something like that to enable longer audios "
            "transcribing ?",
            "longer audios",
        ),
        # alibabasglab/MossFormer2#5 (inference on a long recording)
        (
            "# CUDA out of memory of long wav files\n\nthank you for sharing this project- it is very "
            "interesting. I have come across a CUDA memory issue trying to running inference on long wav "
            "files:",
            "long wav files",
        ),
        # Carleslc/AudioToText#1 (the maintainer's note: a shorter audio file, or the long one split)
        (
            "# OutOfMemoryError: CUDA out of memory\n\nIf you encounter this error in Google Colab, it means "
            "that your GPU has run out of RAM memory.\n\nThis usually happens with free accounts when using "
            "large models or long audio files.",
            "long audio",
        ),
    ]
    for text, said in long_inputs:
        lead = _one(text, "cuda.out_of_memory")
        assert f"the text names long inputs ({said}): one of them can fill the GPU" in lead.evidence
        assert lead.fix.text.startswith("One long input needs memory for its whole length at once")
    videos = [
        # hkchengrex/XMem#30 ('infer at a lower resolution and upsample the masks after')
        "Hi~ I'm using this repo to test my custom video, but get CUDA out of memory error. The resolution "
        "of my video is 4k, video length is 60s at 25FPS.",
        # Nightmare-n/DepthAnyVideo#9 (fewer frames, a lower max_resolution, a smaller decode chunk)
        "```\ntorch.OutOfMemoryError: CUDA out of memory. See documentation for Memory Management  "
        "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)\n```\nAfter testing, the "
        "input video is only 10 seconds. As expected, the GPU memory crashed.",
        # MCG-NKU/E2FGVI#74 ('divide the 1000-frame video into smaller segments')
        "My videos are ~ 1 min long (30 FPS) which leads to between 1k-2k frames... I am on an A100 GPU but "
        "I keep running out of memory.",
    ]
    for text in videos:
        lead = _one(text, "cuda.out_of_memory")
        assert "the input is a video: memory grows with its frames and resolution" in lead.evidence
        assert lead.fix.text.startswith("A video model's memory grows with the frames it takes at once")
        assert (
            "a shorter video or fewer frames at a time" in lead.fix.text
            and "lower resolution" in lead.fix.text
        )


def test_an_out_of_memory_of_one_batch_size_that_works_at_another_quotes_both() -> None:
    # A text that gives the batch size that failed and the one that worked: both are the figures.
    cases = [
        # chenxi116/DeepLabv3.pytorch#16 (the default 16 fails on 12 GB, 8 trains)
        (
            'I\'m experiencing a "CUDA out of memory error" during the train if I use the default batch '
            "size (16); I'm able to train only if I set the batch size to 8.",
            "the text gives the batch sizes: batch size (16), batch size to 8",
        ),
        # lx865712528/EMNLP2018-JMEE#17 (32 fails at validation on 16 GB, 16 works)
        (
            "when I set the batch_size = 32, after the Epoch 1 training, the validiation will CUDA Error: "
            "out of memory. My device is T100, GPU[16G] \nAslo, when set batch_size = 16, it will be OK but "
            "two slow.",
            "the text gives the batch sizes: batch_size = 32, batch_size = 16",
        ),
    ]
    for text, said in cases:
        found = [e for e in _explained(text) if e.id in ("cuda.out_of_memory", "memory.graph_kept_in_eval")]
        assert any(said in e.evidence for e in found), [e.evidence for e in found]


def test_bfloat16_on_a_gpu_before_ampere_names_the_gpu_and_float16() -> None:
    # bfloat16 needs compute capability 8.0; the threads switched to float16 (or float32) on older GPUs.
    cases = [
        # OptimalScale/LMFlow#88 (a 2080 Ti: --bf16 replaced by --fp16, 'now it had been solved')
        (
            "# ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere GPU with "
            "cuda>=11.0\n\nGPU：2080Ti",
            "compute capability 7.5, older than Ampere's 8.0",
        ),
        # databrickslabs/dolly#11 (8 V100s: the trainer's bf16 setting changed too, 'this works')
        (
            'I run the notebook on 8 V100 GPUs, but an error occured:\n```\n  File "<string>", line 105, '
            'in __init__\n  File "'
            '/databricks/python/lib/python3.9/site-packages/transformers/training_args.py", line 1098, in '
            "__post_init__\n    raise ValueError(\nValueError: Your setup doesn't support bf16/gpu. You "
            "need torch>=1.10, using Ampere GPU with cuda>=11.0\n```",
            "compute capability 7.0, older than Ampere's 8.0",
        ),
        # weipu-zhang/STORM#4 (a P100 under torch.autocast with bfloat16)
        (
            "# RuntimeError: Current CUDA Device does not support bfloat16.\n\nWhen I run the code on P100, "
            "this error occurs. How to deal with it?",
            "compute capability 6.0, older than Ampere's 8.0",
        ),
    ]
    for text, capability in cases:
        lead = _led_by(text, "dtype.bf16_unsupported")
        assert any(capability in line for line in lead.evidence), lead.evidence
        assert "compute capability 8.0 (Ampere)" in lead.cause
        assert lead.fix.text.startswith("Use float16") and "torch.cuda.is_bf16_supported()" in lead.fix.text
    # bfloat16 said to work is not this (constructed)
    assert "dtype.bf16_unsupported" not in _ids("bf16 training works on my A100.")


def test_a_compiled_function_called_with_other_arguments_is_two_versions_that_do_not_belong_together() -> (
    None
):
    # pybind11's "incompatible function arguments": the extension and its caller are of different releases.
    # The threads installed the matching versions (causal-conv1d for the mamba-ssm that calls it).
    cases = [
        # bowang-lab/U-Mamba#21 ('switching the version of causal-conv1d', 'mamba-ssm==1.1.4 worked')
        (
            "```\nconv1d_out = causal_conv1d_cuda.causal_conv1d_fwd(\nTypeError: causal_conv1d_fwd(): "
            "incompatible function arguments. The following argument types are supported:\n    1. (arg0: "
            "torch.Tensor, arg1: torch.Tensor, arg2: Optional[torch.Tensor], arg3: Optional[torch.Tensor], "
            "arg4: bool) -> torch.Tensor  \n```",
            5,
            True,
        ),
        # Jiaxin-Ye/DepMamba#3 (the maintainer: 'version inconsistency', the matching wheel)
        (
            "`TypeError: causal_conv1d_fwd(): incompatible function arguments. The following argument types "
            "are supported: \n(arg0: torch.Tensor, arg1: torch.Tensor, arg2: Optional[torch.Tensor], arg3: "
            "Optional[torch.Tensor], arg4: Optional[torch.Tensor], arg5: Optional[torch.Tensor], arg6: bool) "
            "-> torch.Tensor`. ",
            7,
            False,
        ),
        # hustvl/Vim#95 ('causal-conv1d version 1.1.0 installed, that fixed it')
        (
            "# Problem about selective_scan_interface.py line 177 :conv1d_out = causal_conv1d_cuda."
            "causal_conv1d_fwd(x, conv1d_weight, conv1d_bias,None, True)\n\nTypeError\ncausal_conv1d_fwd(): "
            "incompatible function arguments. The following argument types are supported:\n    1. (arg0: "
            "torch.Tensor, arg1: torch.Tensor, arg2: Optional[torch.Tensor], arg3: Optional[torch.Tensor], "
            "arg4: Optional[torch.Tensor], arg5: Optional[torch.Tensor], arg6: bool) -> torch.Tensor",
            7,
            True,
        ),
    ]
    for text, taken, module_shown in cases:
        lead = _one(text, "extension.incompatible_arguments")
        assert lead.evidence[0] == (
            f"causal_conv1d_fwd() was called with other arguments than its compiled form takes ({taken} "
            "arguments)"
        )
        said = "the compiled function is causal_conv1d's (the causal-conv1d package, by its name)"
        assert (said in lead.evidence) is module_shown, lead.evidence
        assert "version mismatch" in lead.cause and "--force-reinstall" in lead.fix.text


def test_a_device_side_assert_in_segmentation_training_names_the_label_images() -> None:
    # Segmentation labels out of range: raw Cityscapes ids, colour label images, a void value of 255 without
    # ignore_index. The threads converted the labels to train ids or set the ignore value.
    cases = [
        # hszhao/semseg#29 (colour label files of Cityscapes, not converted to class indices; the title and
        # the description's first sentences)
        "# Assertion `t >= 0 && t < n_classes` failed\n\nThanks for sharing your codes! I was not able to "
        "run the training code for Cityscapes dataset. Below you can see my configuration file and the "
        "error messages. This seems to be related to the labels being out of range. I looked at your "
        "loader (SemData).",
        # CASIA-IVA-Lab/DANet#35 (81 classes of the writer's own; the ignore label 255 on Cityscapes)
        "I use my dataset which has 81 catg，when train the model, error like:\n      "
        "/pytorch/aten/src/THCUNN/SpatialClassNLLCriterion.cu:99: void "
        "cunn_SpatialClassNLLCriterion_updateOutput_kernel(T *, T *, T *, long *, T *, int, int, int, int, "
        "int, long) [with T = float, AccumT = float]: block: [1,0,0], thread: [246,0,0] Assertion `t >= 0 "
        "&& t < n_classes` failed.",
        # CASIA-IVA-Lab/DANet#35, a comment (the same on ADE20K; the excerpt is cut there)
        "@junfu1115 I wonder for ade20k, where to change for "
        "`/opt/conda/conda-bld/pytorch_1535491974311/work/aten/src/THCUNN/SpatialClassNLLCriterion.cu:99: "
        "void cunn_SpatialClassNLLCriterion_updateOutput_kernel(T *, T *, T *, long *, T *, int, int, int, "
        "int, int, long) [with T = float, AccumT = float]: block: [6,0,0], thread: [1023,0,0] Assertion `t "
        ">= 0 && t < n_classes` failed.` problems. Should I change `fill=255` to `fill=0`?",
    ]
    for text in cases:
        lead = _one(text, "cuda.device_side_assert")
        assert any(line.startswith("the text is about segmentation (") for line in lead.evidence)
        assert "createTrainIdLabelImgs.py" in lead.fix.text and "ignore_index=255" in lead.fix.text
    # an assert outside segmentation keeps the case's own fix (constructed)
    lead = _one(
        "Assertion `srcIndex < srcSelectDimSize` failed.\nRuntimeError: CUDA error: device-side assert "
        "triggered",
        "cuda.device_side_assert",
    )
    assert "resize_token_embeddings" in lead.fix.text


def test_a_cublas_handle_that_fails_with_memory_to_spare_is_an_embedding_index_out_of_range() -> None:
    # cublasCreate failing at the first step: an earlier index error beyond an embedding's table surfacing.
    # The threads ran on the CPU to see the IndexError and fixed the ids (the tokenizer, the vocabulary).
    cases = [
        # huggingface/transformers#12935 (input ids up to 100000 into GPT-2's 50257)
        "I found that out of index in embedding is little weird when using cuda.\n```\nRuntimeError: CUDA "
        "error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`\n```\nHowever, in cpu, it is "
        "understandable.\n```\nIndexError: index out of range in self\n```",
        # huggingface/transformers#6263 ('the index was out of the given range')
        "When I run the forward method, I got the issue\n'RuntimeError: CUDA error: "
        "CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`'",
        # huggingface/peft#441 (another model's tokenizer: ids beyond the vocabulary)
        "CUDA error when fine tuning GPT-2: CUBLAS_STATUS_NOT_INITIALIZED when calling "
        "`cublasCreate(handle)`",
    ]
    for text in cases:
        lead = _one(text, "cublas.status_error")
        assert "an index beyond an embedding's table" in lead.cause and "on the CPU" in lead.cause


def test_a_program_that_cannot_load_libtorch_when_it_starts_needs_the_loaders_path() -> None:
    # A C++ libtorch program or another language's binding finds libtorch's libraries through its rpath or
    # LD_LIBRARY_PATH. The threads put libtorch's lib folder on LD_LIBRARY_PATH.
    cases = [
        # hasktorch/hasktorch#293 (hasktorch/deps/libtorch/lib added to LD_LIBRARY_PATH 'and then it works')
        (
            "`hasktorch/.stack-work/install/x86_64-linux/e57d0afa7abbf44e537c5d4ed24d3e564303be076ac7c663c9dbbeb1b"
            "641e1c6/8.6.5/bin/regression: error while loading shared libraries: libc10.so: cannot open "
            "shared object file: No such file or directory`",
            "libc10.so",
        ),
        # NVIDIA/Fuser#943 (a libtorch example run in CI with LD_LIBRARY_PATH set)
        (
            "root@261532c840d8:/opt/pytorch/nvfuser# ./examples/sinh_libtorch/build/sinh_example\n./examples/"
            "sinh_libtorch/build/sinh_example: error while loading shared libraries: libc10_cuda.so: cannot "
            "open shared object file: No such file or directory",
            "libc10_cuda.so",
        ),
    ]
    for text, library in cases:
        lead = _one(text, "lib.cannot_open_shared_object")
        assert lead.evidence == (f"a program (not a Python import) could not load {library} when it started",)
        assert "rpath, LD_LIBRARY_PATH" in lead.cause
        assert lead.fix.text.startswith(
            "Put libtorch's lib folder on the loader's path: export LD_LIBRARY_PATH="
        )
    # a Python extension asking for it keeps the extension's answer (constructed)
    lead = _one(
        "ImportError: libtorch_cpu.so: cannot open shared object file: No such file or directory",
        "lib.cannot_open_shared_object",
    )
    assert "extension" in lead.cause


def test_a_program_run_on_the_cpu_that_still_calls_cuda_is_changed_not_the_install() -> None:
    # A CPU mode whose path still calls CUDA (a synchronize in timing code, a .cuda(), a device default):
    # the merged fixes guarded those calls (ultralytics/yolov3#1637, foundation-model-stack#226,
    # amanchadha/iSeeBetter#1, mhpi/generic_deltamodel#113); the texts users write:
    cases = [
        # BoltzmannEntropy/xtts2-ui#28 (device hard-coded to CUDA in app.py; torch.device('cpu') 'it'll work')
        (
            "I did everything in the README.\n(I am using CPU only)\nWhen running python app.py I get: "
            "AssertionError: Torch not compiled with CUDA enabled",
            "torch.not_compiled_with_cuda",
            "using CPU only",
        ),
        # sinzlab/sensorium#104 (the maintainer: 'we'll look into that one')
        (
            "I still get a `RuntimeError: No CUDA GPUs are available even when using device='cpu'`",
            "cuda.no_gpus_available",
            "even when using device='cpu",
        ),
    ]
    for text, entry_id, said in cases:
        lead = _one(text, entry_id)
        assert f"the text runs the program on the CPU ({said})" in lead.evidence, lead.evidence
        assert lead.cause.startswith("The program was asked to run on the CPU, but it still calls CUDA")
        assert "if torch.cuda.is_available():" in lead.fix.text
    # the program's own call, from the traceback (constructed around torch's frames)
    lead = _one(
        "python run.py --device cpu\nTraceback (most recent call last):\n  File "
        '"/home/me/proj/utils/timer.py", line 12, in now\n    torch.cuda.synchronize()\n  File '
        '"/usr/lib/python3/site-packages/torch/cuda/__init__.py", line 799, in synchronize\n    '
        "_lazy_init()\nRuntimeError: No CUDA GPUs are available",
        "cuda.no_gpus_available",
    )
    assert (
        "the program calls CUDA at /home/me/proj/utils/timer.py, line 12 (now): torch.cuda.synchronize()"
        in lead.evidence
    )
    # a CPU-only torch on a machine with an NVIDIA GPU is the install's to change (constructed)
    lead = _one(
        "RTX 3090, I use CPU only torch by mistake\nTorch not compiled with CUDA enabled",
        "torch.not_compiled_with_cuda",
    )
    assert not lead.cause.startswith("The program was asked to run on the CPU")


def test_a_tensor_moved_without_keeping_the_result_is_named_with_its_assignment() -> None:
    # A tensor's .to() and .cuda() return a new tensor (a module's move itself): "img.to(device)" on a line of
    # its own leaves img on the CPU, and the next operation meets the model's CUDA weights. The threads
    # assigned the result.
    # lukemelas/EfficientNet-PyTorch#52 ('Did you even try `img = img.to(device)`'; the reporter thanked)
    text = (
        "Hi there! Thanks for your great repo, but i faced with some difficulties while trying to inference "
        "on "
        "device ('cuda:0'). My code: \n`device = torch.device('cuda:0')`\n`tfms = transforms.Compose("
        "[transforms.Resize(224), transforms.ToTensor(), transforms.Normalize([0.485, 0.456, 0.406], [0.229, "
        "0.224, 0.225]),])`\n`img = tfms(Image.open('img.png')).unsqueeze(0)`\n`img.to(device)`\n"
        "`model.to(device)`\n`model.eval()`\n`with torch.no_grad():\n    outputs = model(img)`\nAnd thrown "
        "error: \n`RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) "
        "should "
        "be the same`"
    )
    lead = _led_by(text, "tensors.different_devices")
    assert any("img.to(device)" in line and "returns a new tensor" in line for line in lead.evidence)
    assert not any("model.to(device)" in line for line in lead.evidence), lead.evidence
    assert "img = img.to(device)" in lead.fix.text, lead.fix.text
    # the statements as the threads show them, each read alone
    cases = [
        # huggingface/accelerate#2251 ('You'd have to change it to `t = t.to(batch.device)`. `.to` is not
        # in-place.')
        (
            "It's really strange. Why above code works?? Why below code not works?\n```python\nt, weights = "
            "self.schedule_sampler.sample(batch.shape[0])\nt.to(batch.device)\nweights.to(batch.device)\n```",
            ["t.to(batch.device)", "weights.to(batch.device)"],
        ),
        # hunkim/PyTorchZeroToAll#6 (merged: 'x.cuda()       # this is not okay (x is still a cpu tensor)')
        (
            "```python\n# If model is an instance of nn.Module\nmodel.cuda()   # this is okay (inplace "
            "operation)\n\n# If x is a tensor\nx.cuda()       # this is not okay (x is still a cpu tensor)\n"
            "x = x.cuda()   # this is okay\n```",
            ["x.cuda()"],
        ),
        # daniilidis-group/neural_renderer#52 (merged): prose without a statement, so nothing is read
        ("torch.Tensor.to is not in-place, need an assignment.", []),
    ]
    for text, moves in cases:
        assert training_explanations.unassigned_moves(text) == moves, text
    # without such a statement, the cause still says it of the message alone (the message as torch words it)
    lead = _explained(
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 "
        "and cpu!"
    )[0]
    assert "not in place" in lead.cause and "x = x.to(device)" in lead.fix.text


def test_a_dgl_feature_on_another_device_than_its_graph_is_a_device_mismatch() -> None:
    # DGL (0.5 on) refuses a node or edge feature on another device than its graph; DGLGraph.to() returns a
    # new graph. The threads moved the graph (or built it on the CPU and moved it once, with its features).
    cases = [
        # phython96/GNAS-MP#1 ('it is just neet to move the graph to GPU, the latest dgl could also run')
        (
            "when i try to run the sh scripts/search_sbms_cluster.sh [gpu_id] , something wrong happened:\n\n"
            'dgl._ffi.base.DGLError: Cannot assign node feature "h" on device cuda:0 to a graph on device '
            "cpu. Call DGLGraph.to() to copy the graph to the same device.\n\nhow can I run the code?",
            "cuda:0",
        ),
        # LunaBlack/KGAT-pytorch#9 (merged #10: 'using `DGLGraph.to` to copy data to GPU')
        (
            "Hello，author. When I ran your codes, there was an error:\n~/notebooks/ZY/KGAT/main_kgat.py in "
            "train(args)\n    113         train_nodes = train_nodes.to(device)\n    114         train_edges "
            "= "
            "train_edges.to(device)\n--> 115     train_graph.ndata['id'] = train_nodes.to(device)\n    116  "
            "   "
            "train_graph.edata['type'] = train_edges.to(device)\nDGLError: Cannot assign node feature "
            '"id" on '
            "device cuda:0 to a graph on device cpu. Call DGLGraph.to() to copy the graph to the same "
            "device.",
            "cuda:0",
        ),
        # WangXuhongCN/OCGNN#4 (the maintainer: 'caused by the updating of DGL library, and I already fixed
        # this bug'); the title as the reporter typed it
        (
            "# Cannot assign one feature \u201cnorm\u201d on device coda:0 to a graph on device cpu.Call "
            "DGLGraph.to() to copy the graph to the same device.",
            "coda:0",
        ),
        # Graph-Learning-Benchmarks/gli#48 (merged #64: 'the graph will be moved to the specified device at
        # the end of `read_glb_graph()`')
        (
            "    raise DGLError('Cannot assign node feature \"{}\" on device {} to a graph on'\n"
            'dgl._ffi.base.DGLError: Cannot assign node feature "NodeFeature" on device cpu to a graph on '
            "device cuda:0. Call DGLGraph.to() to copy the graph to the same device.",
            "cuda:0",
        ),
    ]
    for text, device in cases:
        lead = _led_by(text, "tensors.different_devices")
        assert any(device in line and "graph" in line for line in lead.evidence), lead.evidence
        assert "g = g.to(device)" in lead.fix.text, lead.fix.text


def test_a_package_whose_compiled_module_misses_a_torch_symbol_is_named_with_its_reinstall() -> None:
    # A package's compiled module calls torch by its mangled C++ names: built against another torch (or
    # CUDA) release, it does not load. The package is named (by its site-packages folder or its module) and
    # reinstalled for the installed torch: a source build (flash-attn), PyG's or OpenMMLab's wheel index.
    cases = [
        # ayulockin/neurips-llm-efficiency-challenge#12 (the owner: 'FLASH_ATTENTION_FORCE_BUILD=TRUE pip
        # install flash-attn'; the reporter: 'It works.')
        (
            '**ImportError:** lib/python3.10/site-packages/flash_attn/flash_attn_interface.py", line 10, in '
            "<module>\n    import flash_attn_2_cuda as flash_attn_cuda\nImportError: /lib/python3.10/"
            "site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: "
            "_ZN3c104cuda9SetDeviceEi",
            "flash_attn",
            "pip install flash-attn --no-build-isolation",
        ),
        # xmlyqing00/AFB-URR#7 ('You need to download the corresponding version from
        # https://github.com/rusty1s/pytorch_scatter regarding your environment'; 'I got it!')
        (
            "Do you know what caused this problem when I was running your code?\nOSError: /GPUFS/.conda/envs/"
            "tor17/lib/python3.6/site-packages/torch_scatter/_version_cuda.so: undefined symbol: "
            "_ZN3c105ErrorC1ENS_14SourceLocationESs",
            "torch_scatter",
            "data.pyg.org",
        ),
        # fundamentalvision/BEVFormer#181 ('caused by mismatch of cuda versions between mmcv and pytorch';
        # the precompiled mmcv-full wheel for cu111/torch1.9.0 solved it)
        (
            "I followd the instructions for install but there's import error from mmcv\nThe problem is as "
            "follows\n\npython3.8/site-packages/mmcv/_ext.cpython-38-x86_64-linux-gnu.so: undefined symbol: "
            "_ZNK2at10TensorBase8data_ptrIdEEPT_v\n\nI installed mmcv-full==1.4.0 and all the version of "
            "packages are same with the recommendation.",
            "mmcv",
            "download.openmmlab.com",
        ),
        # idiap/fast-transformers#127 (installing from source helped another user); the path as pasted,
        # broken over two lines
        (
            "ImportError: \n/home/pcpt3/.conda/envs/gt4sd/lib/python3.8/site-packages/fast_transformers/"
            "causal_product/causal_product_\ncpu.cpython-38-x86_64-linux-gnu.so: undefined symbol: "
            "_ZTIN3c1021AutogradMetaInterfaceE",
            "fast_transformers",
            "--no-build-isolation",
        ),
    ]
    for text, package, fix in cases:
        lead = _led_by(text, "lib.undefined_symbol")
        # named as pip knows it, with the import name where the two differ by more than - and _
        named = (f"{package.replace('_', '-')} build", f"({package}) build")
        assert any(n in lead.cause for n in named) and "version mismatch" in lead.cause, lead.cause
        assert fix in lead.fix.text, lead.fix.text


def test_an_oom_on_one_gpu_of_a_machine_with_several_spreads_the_job_over_them() -> None:
    # The writer says the machine has several GPUs, and the job ran out on one (GPU 0, or "only uses one
    # GPU"): the program runs on one of them. The threads launched one process per GPU or split the model.
    cases = [
        # hkchengrex/STCN#46 (the maintainer: 'If you set `nproc_per_node=1`, it will only use one GPU';
        # nproc_per_node set to the GPUs, the batch per GPU lowered)
        (
            "The model is too big to run on one GPU, so I try to run the model with two GPUs and "
            "`nproc_per_node=1` (the training command is `CUDA_VISIBLE_DEVICES=2,3 OMP_NUM_THREADS=4 python "
            "-m "
            "torch.distributed.launch  --master_port -29500  --nproc_per_node=1 train.py --id retrain_s0 "
            "--stage 0`) . However, the code only use one GPU and still report `cuda out of memory`.",
            2,
        ),
        # openai/guided-diffusion#72 ('the error is resolved by using the mpiexec')
        (
            "I am facing the same problem \nI have 8 GPUs on my node, but I am getting the error of Cuda "
            "out of "
            "memory on GPU 0 only apparently the code is not utilising all other 7 GPUs \n\nCuda is "
            "available "
            ":  True\nCuda Visible Devices :  8\n\ntorch.cuda.OutOfMemoryError: CUDA out of memory. Tried to "
            "allocate 1024.00 MiB (GPU 0; 39.59 GiB total capacity; 36.02 GiB already allocated; 410.19 MiB "
            "free; 37.59 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try "
            "setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and "
            "PYTORCH_CUDA_ALLOC_CONF",
            8,
        ),
        # Facico/Chinese-Vicuna#224 (four 10 GB 3080s; the maintainer: multi-GPU inference is supported by
        # the newer version)
        (
            "我这里尝试使用llama-13b-hf做推理，设备是4张10G 3080，上游模型应该就18G，"
            "但在加载lora模型时，就会报下列错误。\n"
            "`log\ntorch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 26.00 MiB (GPU 0; "
            "10.00 "
            "GiB total capacity; 8.82 GiB already allocated; 0 bytes free; 8.82 GiB reserved in total by "
            "PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid "
            "fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF\n`",
            4,
        ),
    ]
    for text, gpus in cases:
        lead = _led_by(text, "cuda.out_of_memory")
        assert any(f"has {gpus} GPUs" in line for line in lead.evidence), lead.evidence
        assert f"--nproc_per_node={gpus}" in lead.fix.text and "device_map" in lead.fix.text, lead.fix.text
    # the job already on several GPUs, each running out (DeepGraphLearning/NBFNet#11's near-miss, constructed)
    lead = _explained(
        "I have 4 GPUs and run torchrun --nproc_per_node=4 train.py\ntorch.cuda.OutOfMemoryError: CUDA out "
        "of memory. Tried to allocate 20.00 MiB (GPU 3; 10.00 GiB total capacity)"
    )[0]
    assert not any("GPUs" in line for line in lead.evidence), lead.evidence


def test_a_torch_without_xpu_support_is_told_with_the_build_that_has_it() -> None:
    # 'xpu' needs a torch built with it (torch 2.5 on: the whl/xpu index) or, before, the XPU build of
    # intel-extension-for-pytorch, imported; a CPU wheel, a CPU-only extension or a program set to 'xpu' on a
    # machine without an Intel GPU has none.
    cases = [
        # vladmandic/sdnext#4357 (the maintainer: 'you have torch cpu version. run `webui --use-ipex
        # --reinstall` once so correct torch gets installed')
        (
            "AssertionError: Torch not compiled with XPU enabled\n``` \n\n### Version Platform "
            "Description\n\n"
            "CPU : 13th Gen Intel Core i9-13900K\nRAM : 64 GB\nGPU : Intel Arc A750 8GB",
            "Intel Arc A750",
        ),
        # intel/intel-xpu-backend-for-triton#2014 ('pytorch was installed in the local environment from pypi
        # without xpu support'; the reporter agreed)
        (
            "~/intel-xpu-backend-for-triton$ python python/tutorials/01-vector-add.py \nTraceback (most "
            'recent call last):\n  File "/home/jovyan/intel-xpu-backend-for-triton/python/tutorials/'
            "01-vector-add.py\", line 85, in <module>\n    x = torch.rand(size, device='xpu')\n  File "
            '"/home/jovyan/.conda/envs/'
            'test/lib/python3.9/site-packages/torch/xpu/__init__.py", line 118, in _lazy_init\n    raise '
            'AssertionError("Torch not compiled with XPU enabled")\nAssertionError: Torch not compiled with '
            "XPU enabled",
            "",
        ),
        # luosiallen/latent-consistency-model#71 (the reporter set the program's device to "cuda": resolved)
        (
            "    return t.to(device, dtype if t.is_floating_point() or t.is_complex() else None, "
            "non_blocking)\nRuntimeError: PyTorch is not linked with support for xpu devices",
            "",
        ),
    ]
    for text, gpu in cases:
        lead = _led_by(text, "torch.not_compiled_with_xpu")
        assert "no XPU support" in lead.cause and gpu in _said(lead), lead
        assert "https://download.pytorch.org/whl/xpu" in lead.fix.text, lead.fix.text
        assert "import intel_extension_for_pytorch" in lead.fix.text and "'cuda'" in lead.fix.text


def test_stable_diffusion_in_half_precision_is_run_with_the_uis_full_precision_flags() -> None:
    # fp16 overflows to NaN in a Stable Diffusion UNet or VAE (the GTX 16xx series above all): a plain green
    # or black image, or the UI's own NaN check. The threads ran the UI in full precision with its flags; in
    # the hlky/sygil UI, --precision full without --no-half leaves the weights in half: Half against Float.
    cases = [
        # basujindal/stable-diffusion#121 (the reporter: green only without --precision full; the maintainer:
        # 'a know issue with GTX series GPUs')
        (
            "If I don't set `--precision full`, I get after the computation a plain green image (a constant "
            "color). I tried 3-4 different combinations, with and without the full precision. In the latter "
            "case, I only got this green output.",
            "--precision full",
        ),
        # invoke-ai/InvokeAI#50 (the maintainer: 'passing the -F (full-precision) flag to dream.py')
        (
            "It runs without any error, but it generates images where all pixels are the same shade of green "
            "(#007B00).",
            "-F",
        ),
        # CompVis/stable-diffusion#69 ('Use basujindal's optimized script and the switch --precision full';
        # 'the 1660 getting NaNs using fp16')
        (
            "It runs well, but it generates images where all pixels are the same shade of green, "
            "specifically "
            "#007B00. ",
            "--precision full",
        ),
        # continue-revolution/sd-webui-animatediff#352 ('If I started with command --no-half, then it is
        # ok!'); the title
        ("# [Bug]: A tensor with all NaNs was produced in VAE without --no-half", "--no-half-vae"),
    ]
    for text, flag in cases:
        lead = _led_by(text, "sd.half_precision_nan")
        assert "NaN" in lead.cause and "GTX 16" in lead.cause, lead.cause
        assert flag in lead.fix.text and "--no-half" in lead.fix.text, lead.fix.text
    # AUTOMATIC1111/stable-diffusion-webui#28 (the hlky UI run with --precision full alone; the install guide
    # quoted there: 'Add --precision full --no-half')
    text = (
        'I tryed to change start line in `relauncher.py` to\n>    os.system("python scripts/webui.py '
        '--precision full")\n\nafter ensuring the presence of:\n- model.ckpt\n- GFPGANv1.3.pth\n- '
        "RealESRGAN_x4plus.pth\n- RealESRGAN_x4plus_anime_6B.pth\n\nand a new Test for a 128x128 Img, I "
        'foubnd in my browser console: \n\n`CRASHED:<br><textarea rows=\\"5\\" style=\\"color:white;'
        "background: black;width: -webkit-fill-available;font-family: monospace;font-size: "
        "small;font-weight: "
        'bold;\\">expected scalar type Half but found Float</textarea><br><br>Please wait while the program '
        'restarts."`'
    )
    lead = _led_by(text, "tensors.different_dtypes")
    assert any("--precision full" in line and "--no-half" in line for line in lead.evidence), lead.evidence
    assert "--precision full --no-half" in lead.fix.text, lead.fix.text


def test_a_compiled_extension_that_was_never_built_is_built_where_its_setup_py_is() -> None:
    # A project's own CUDA extension (chamfer, pointnet2_ops, correlation_cuda, mmcv._ext) exists only as
    # sources until it is compiled: importing it first says no such module. The threads built it in its
    # folder (python setup.py install, pip install .), or installed the package that ships the ops.
    cases = [
        # Tangshitao/Dense-Scene-Matching#1 ('cd libs/model/ops python setup.py install'; confirmed)
        (
            '  File "libs/model/ops/correlation/functions/corr.py", line 3, in <module>\n    import '
            "correlation_cuda\nModuleNotFoundError: No module named 'correlation_cuda'\n```",
            "correlation_cuda",
            "python setup.py install",
        ),
        # Julie-tang00/Point-BERT#3 ('Go to `extensions/chamfer_dist` and run `python setup.py install
        # --user`')
        (
            "\"ModuleNotFoundError: No module named 'chamfer'. \" I want to install chamfer by pip install "
            "chamfer, but it reminds ",
            "chamfer",
            "python setup.py install",
        ),
        # noahcao/Pixel2Mesh#30 ('please compile the modules in external/chamfer'), as the writer words it
        (
            "I have a problem during runing your codes.\n`No module name chamfer`\nI have run your scripts, "
            "but why?",
            "chamfer",
            "python setup.py install",
        ),
        # jsll/pytorch_6dof-graspnet#5 ('Did you install this
        # https://github.com/erikwijmans/Pointnet2_PyTorch?'; 'Problem solved')
        (
            "I got this error when I try to run 'train.py':\nNo module named 'pointnet2-ops'.   \nI realized "
            "that this module is linked to PointNet++,  but I still do not know how to install the module "
            "after browsing the PointNet++ repo.",
            "pointnet2-ops",
            "pointnet2_ops_lib",
        ),
        # XLearning-SCU/2022-CVPR-AirNet#5 ('use command "pip install mmcv-full" instead of "pip install
        # mmcv"')
        (
            "ModuleNotFoundError: No module named 'mmcv._ext' is displayed after installation according to "
            "the "
            "YAML file.\nhow can I solve it?",
            "mmcv._ext",
            "mmcv-full",
        ),
    ]
    for text, module, fix in cases:
        lead = _led_by(text, "extension.not_built")
        assert any(module in line for line in lead.evidence), lead.evidence
        assert "never built" in lead.cause and fix in lead.fix.text, lead.fix.text
    # a module of PyPI's own is no extension (constructed)
    assert "extension.not_built" not in _ids("ModuleNotFoundError: No module named 'tqdm'")
    assert "extension.not_built" not in _ids("ModuleNotFoundError: No module named 'torch._C'")


def test_cudnn_not_supported_names_the_contiguous_input_and_the_large_input_levers() -> None:
    # CUDNN_STATUS_NOT_SUPPORTED: a non-contiguous input (a permute or transpose before a cuDNN call; the
    # threads added .contiguous()), or an input too large for a cuDNN kernel (a smaller batch; another
    # algorithm with cudnn.benchmark = True), or a cuDNN of its own bugs (another torch or cudatoolkit).
    cases = [
        # lightaime/sgas#9 (the maintainer: 'you can try to add contiguous'; '.contiguous()' added as default
        # since more people reported it)
        "I have run the env_install step by step, But when I run the code "
        '"sgas/gcn_point/main_modelnet.py", '
        "I have the error:\nRuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if "
        "you "
        "passed in a non-contiguous input.",
        # microsoft/NeuronBlocks#26 ('When I set a smaller batch size, it goes pretty well')
        "When I set the batch size as 128, there will occurs an problem. CUDNN_STATUS_NOT_SUPPORTED. This "
        "error "
        "may appear if you passed in a non-contiguous input. When I set a smaller batch size, it goes pretty "
        "well.",
        # megvii-research/DPGN#15 ('the version of cudatoolkit must be 10.1')
        "   `RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed in a "
        "non-contiguous input. `",
    ]
    for text in cases:
        lead = _led_by(text, "cudnn.status_error")
        assert ".contiguous()" in lead.fix.text and "smaller batch" in lead.fix.text, lead.fix.text
        assert "cudnn.benchmark = True" in lead.fix.text and "cudatoolkit" in lead.fix.text


def test_sampling_from_nonfinite_probabilities_is_float16_overflow_with_bfloat16_as_the_fix() -> None:
    # generate() samples with torch.multinomial; logits that overflowed float16 (a model trained in bf16,
    # long inputs, a fine-tune) give inf or NaN probabilities. The threads loaded the model in bfloat16 or
    # float32.
    cases = [
        # InternLM/InternEvo#278 (the reporter: torch.bfloat16 or torch.float32 work, torch.float16 fails)
        (
            "    next_tokens = torch.multinomial(probs, num_samples=1).squeeze(1)\nRuntimeError: probability "
            "tensor contains either `inf`, `nan` or element < 0\n```\n\n这个错误是由于model load进来的时候"
            "torch_dtype的，如果我改成`torch_type=torch.bfloat16`或者`torch.float32`都是没有问题的，但是"
            "`torch.float16`会存在这个问题",
            True,
        ),
        # OpenBMB/MiniCPM-V#549 (the maintainer: 'probably a precision overflow: try fp32')
        (
            "v2.6模型正常，使用原始模型可以正常推理，微调过后出现 RuntimeError: probability tensor contains "
            "either "
            "inf, nan or element < 0",
            False,
        ),
        # joydeb28/llm-lab#3 (the owner: 'in pipeline add torch_dtype=torch.bfloat16'); the title
        ("# RuntimeError: probability tensor contains either `inf`, `nan` or element < 0", False),
    ]
    for text, float16_said in cases:
        lead = _led_by(text, "generation.nonfinite_probabilities")
        assert "float16" in lead.cause and "overflow" in lead.cause, lead.cause
        assert "torch_dtype=torch.bfloat16" in lead.fix.text and "float32" in lead.fix.text, lead.fix.text
        assert any("float16" in line for line in lead.evidence) == float16_said, lead.evidence


def test_a_tensor_past_32_bit_indexing_is_told_with_the_size_to_cut() -> None:
    # Kernels that index with 32-bit integers refuse a tensor of 2**31 elements or more: a batch, an image
    # or an audio too large at once. The threads made the batch smaller or split the input.
    cases = [
        # aask1357/hilcodec#7 (the maintainer: 'the simplest solution is to reduce the batch size')
        "the error i get is \n\n```[rank0]: RuntimeError: Expected canUse32BitIndexMath(input) && "
        "canUse32BitIndexMath(output) to be true, but got false. ```\nwhich means we're trying to fit a very "
        "large tensor all at once.",
        # huggingface/diffusers#2306 ('I can go up to batch size 14, but for >=15 I receive this error')
        "Running the Stable Diffusion 2 generation pipeline with fp16, attention slicing and batch size 16 "
        'outputs error message: "RuntimeError: upsample_nearest_nhwc only supports output tensors with less '
        'than INT_MAX elements". EDIT: I can go up to batch size 14, but for >=15 I receive this error.',
        # Rikorose/DeepFilterNet#121's title (the maintainer, in #113 of the same repository: 'split your
        # files manually into small segments like 1 min')
        "# RuntimeError: Expected canUse32BitIndexMath(input) && canUse32BitIndexMath(output) to be true, "
        "but "
        "got false.",
    ]
    for text in cases:
        lead = _led_by(text, "tensors.int32_index_limit")
        assert "2,147,483,647" in lead.cause, lead.cause
        assert any("INT_MAX" in line or "canUse32BitIndexMath" in line for line in lead.evidence), lead
        assert "smaller batch" in lead.fix.text and "split" in lead.fix.text, lead.fix.text


def test_invalid_device_function_is_a_kernel_not_built_for_this_gpu_or_this_cuda() -> None:
    # cudaErrorInvalidDeviceFunction (98; 8 before CUDA 10.1): the function has no code for this GPU, most
    # often an extension built here for other architectures or with another CUDA toolkit than torch's. The
    # threads rebuilt it with the CUDA torch was built for.
    cases = [
        # zzangjinsun/NLSPN_ECCV20#6 ('keep them the same': PyTorch's CUDA and the one DCN is compiled with)
        (
            "Hello, I have successfully compiled deformable_conv though, I met this large amount of outputs "
            "in "
            "print logs below while the training can keep going. \n```\nerror in "
            "modulated_deformable_col2im_coord_cuda: invalid device function\nerror in "
            "modulated_deformable_col2im_cuda: invalid device function\nerror in "
            "modulated_deformable_im2col_cuda: invalid device function\n```",
            "",
        ),
        # HuiZeng/Image-Adaptive-3DLUT#17 (the torch 1.6 wheel is for CUDA 10.1/10.2: CUDA 10.2 worked)
        (
            "PyTorch: 1.6, CUDA: 10.0\nAccording to the README, modified the code, and also modified the "
            "`setup.sh` to`export CUDA_HOME=/usr/local/cuda-10.0`.\nBut when I try to run `demo_eval.py`, I "
            "meet the error:\n\n> `cudaCheckError() failed : invalid device function`\n> `Process finished "
            "with exit code 139`",
            "CUDA 10.0",
        ),
        # PeizeSun/TransTrack#2's title (torch and cudatoolkit reinstalled to match the built op)
        ("# error in ms_deformable_col2im_cuda: invalid device function", ""),
        # matteo-ronchetti/torch-radon#11's title (the maintainer: 'a CUDA function not being compiled for
        # the device architecture of your GPU')
        ("# RuntimeError: CUDA error: invalid device function", ""),
    ]
    for text, said in cases:
        lead = _led_by(text, "cuda.invalid_device_function")
        assert "architecture" in lead.cause and "torch.version.cuda" in lead.fix.text, lead
        assert "TORCH_CUDA_ARCH_LIST" in lead.fix.text and said in _said(lead), lead


def test_ptx_of_an_unsupported_toolchain_is_a_driver_older_than_the_cuda_that_made_it() -> None:
    # The driver JIT-compiles PTX only from toolkits it knows: PTX from a newer CUDA than the driver's fails.
    # The threads updated the driver.
    cases = [
        # Pointcept/PointTransformerV2#7's title (driver 470.57.02 for 450.80.02: 'it stopped giving errors')
        ("# RuntimeError: CUDA error: the provided PTX was compiled with an unsupported toolchain.", []),
        # BachiLi/diffvg#84 ('resolved by upgrading nvidia driver')
        (
            "after installation, I ran:\n`python app/single_cirle.py`\nand encountered:\n\nCUDA Runtime "
            "Error: the provided PTX was compiled with an unsupported toolchain. at "
            "diffvg/scene.cpp:35\n\nMy "
            "torch version is 1.8.1.",
            [],
        ),
        # MadryLab/trak#68 ('updating driver to 530.35 and cuda version to 12.1 solve the problem')
        (
            "# RuntimeError: CUDA error: the provided PTX was compiled with an unsupported "
            "toolchain.\n\nWhat "
            "might be the caused of this problem, example code:\nimport "
            "fast_jl\n\nfast_jl.project_rademacher_8"
            "(torch.zeros(\n8, 1_000, device=device), 512, 0, num_sms)\n\ncuda version: Cuda compilation "
            "tools, release 11.8, V11.8.89\n\nnvidia driver: 460.91.03",
            ["driver 460.91.03", "CUDA 11.8"],
        ),
    ]
    for text, said in cases:
        lead = _led_by(text, "cuda.unsupported_ptx")
        assert "newer" in lead.cause and "driver" in lead.cause, lead.cause
        assert "Update the NVIDIA driver" in lead.fix.text or "update the NVIDIA driver" in lead.fix.text
        assert all(figure in " ".join(lead.evidence) for figure in said), lead.evidence


def test_a_script_that_does_not_take_the_launchers_local_rank_argument_accepts_both_spellings() -> None:
    # torch.distributed.launch passes --local-rank=N from torch 2.0 on (--local_rank before); a script whose
    # argparse has only the underscore rejects it. The threads renamed the option, used torchrun (which
    # passes no argument: LOCAL_RANK is in the environment), or the torch the project pins.
    cases = [
        # skycrapers/TecoGAN-PyTorch#31 (the reporter's fix: add_argument('--local-rank', ...))
        "# Unrecognized arguments: --local-rank\n\n```\nmain.py: error: unrecognized arguments: "
        "--local-rank=0\n"
        "main.py: error: unrecognized arguments: --local-rank=1\nERROR:torch.distributed.elastic."
        "multiprocessing.api:failed (exitcode: 2) local_rank: 0 (pid: 622423) of binary: "
        "/home/rong/anaconda3/"
        "envs/tecogan/bin/python\n```",
        # megvii-research/NAFNet#134 (the rename; 'when i follow your change，it works！')
        "# train.py: error: unrecognized arguments: --local-rank=0\n\nEncounter this error when trying to "
        "train GoPro datasets:\n`python -m torch.distributed.launch --nproc_per_node=1 --master_port=4321 "
        "train.py -opt options/train/GoPro/NAFNet-width32.yml --launcher pytorch`\n\nHow to fix?",
        # OFA-Sys/Chinese-CLIP#74 (torch.distributed.launch replaced by torchrun)
        "# 报错main.py: error: unrecognized arguments: --local-rank=0",
        # lmy98129/VLPD#6 (the maintainer: the torch the project pins, 1.10.0+cu113)
        "usage: trainval_distributed.py [-h] [--work-dir WORK_DIR] [--local_rank LOCAL_RANK]\n"
        "trainval_distributed.py: error: unrecognized arguments: --local-rank=1",
    ]
    for text in cases:
        lead = _led_by(text, "dist.local_rank_argument")
        assert "--local-rank" in lead.cause and "torch 2.0" in lead.cause, lead.cause
        assert "'--local-rank', '--local_rank'" in lead.fix.text and "torchrun" in lead.fix.text
        assert any("--local-rank=" in line for line in lead.evidence), lead.evidence


def test_the_argument_torch_names_in_a_device_mismatch_says_which_tensor_to_move() -> None:
    # torch 1.9 on adds "(when checking argument for argument X in method Y)": X is the tensor on the other
    # device. 'target' of a loss is the labels: the threads moved them (y = y.to(device)); 'index' is an
    # index tensor, moved to the device of the tensor it indexes.
    cases = [
        # mosaicml/composer#1092 (the maintainer: 'we forgot some calls to set `y = y.to(device)`')
        (
            "`RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:0 and cpu! (when checking argument for argument target in method "
            "wrapper_nll_loss_forward)`",
            "argument target",
            "labels = labels.to(device)",
        ),
        # asahi417/lmppl#12 (merged: the model inputs, which carry the labels, moved to cuda:0)
        (
            "Previous error: \n> RuntimeError: Expected all tensors to be on the same device, but found at "
            "least two devices, cuda:0 and cpu! (when checking argument for argument target in method "
            "wrapper_CUDA_nll_loss_forward)",
            "argument target",
            "labels = labels.to(device)",
        ),
        # JieyuZ2/wrench#4 (the code fixed to put meta_target with the outputs; torch 1.9's 'arugment')
        (
            "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:0 and cpu! (when checking arugment for argument target in method wrapper_nll_loss_forward)",
            "argument target",
            "labels = labels.to(device)",
        ),
        # haoosz/ConceptExpress#5 ('prompt_ids.to(latents.device)')
        (
            "_**RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:0 and cpu! (when checking argument for argument index in method wrapper__index_select)**_",
            "argument index",
            "index = index.to(x.device)",
        ),
    ]
    for text, argument, fix in cases:
        lead = _led_by(text, "tensors.different_devices")
        assert any(argument in line for line in lead.evidence), lead.evidence
        assert fix in lead.fix.text, lead.fix.text


def test_flash_attention_refused_in_the_words_of_its_engines_names_the_capability() -> None:
    # Text Generation Inference and LoRAX log the refusal with the capability spaced ("capability 7 5"),
    # flash-attn 1.x asserts sm8x or sm75: the GPU is older than the kernels need. The threads ran standard
    # attention (or an engine path without FlashAttention 2).
    cases = [
        # MiuLab/Taiwan-LLM#33 (the TGI warning quoted; vllm used on the V100 instead)
        (
            "```\nWARN text_generation_launcher: Unable to use Flash Attention V2: GPU with CUDA capability "
            "7 5 "
            "is not supported for Flash Attention V2\n```",
            "compute capability 7.5",
        ),
        # QwenLM/Qwen3-VL#67 (a docker image with the xformers backend for the 2080 Ti)
        (
            "I used the docker image environment provided in the document. When I tried to start it using "
            "vllm, "
            "I got an error FlashAttention only supports Ampere GPUs or newer. \nMy graphics card is 2080ti "
            ".",
            "7.5",
        ),
        # junjie18/CMT#9 (flash-attn 1.x on a V100: FlashMHA replaced with nn.MultiheadAttention)
        (
            "the flash-attn module generates  **_RuntimeError: Expected is_sm8x || is_sm75 to be true, but "
            "got "
            "false.  (Could this error message be improved?  If so, please report an enhancementequest to "
            "PyTorc_**h.) ",
            "sm_75",
        ),
    ]
    for text, said in cases:
        lead = _led_by(text, "flash_attn.gpu_too_old")
        assert said in _said(lead), lead
        assert 'attn_implementation="sdpa"' in lead.fix.text and "nn.MultiheadAttention" in lead.fix.text


def test_the_gpus_memory_is_the_vram_figure_of_a_machine_listed_with_its_ram() -> None:
    # Writers list the machine line by line: "Ram: 16gb" above "VRam: 6gb". The GPU's memory is the VRAM
    # figure, never the RAM line's; the threads sized the fix to the VRAM (a smaller model or batch, a GPU
    # with more memory).
    from torchdoctor.checks.memory.explanations import gpu_memory_said

    cases = {
        # iperov/DeepFaceLab#252 (the maintainer: the model did not fit on this GPU; trim the model)
        "Intel(R) Core(TM) i7-9700K CPU @ 3.60GHz (8 CPUs), ~3.6GHz\nRam: 16gb\nGC: GTX 1660 Ti\nVRam: 6gb\n"
        "Os: Windows 10": "6gb",
        # VITA-Group/FasterSeg#56 (the author: 'capable GPU memory is required')
        "Core Intel i5-9300H \n8 GB RAM\nNVIDIA GeForce GTX 1650 (4GB graphic memory)": "4GB",
        # lllyasviel/Fooocus#1684 (the maintainer: remove --always-high-vram: 6 GB holds not every model)
        "GPU:\nDriver version: 531.18\nTotal memory: 14299 MB\nVideo memory: 6144 MB GDDR6\nShared memory: "
        "8155 MB\n\nRAM:\n16 GB": "6144 MB",
    }
    for text, size in cases.items():
        assert gpu_memory_said(text) == size, text


def test_an_extension_written_for_another_torch_names_the_macro_that_changed() -> None:
    # torch's C++ checks moved from AT_CHECK to TORCH_CHECK (1.2) and AT_CHECK went (1.5); THC went in 1.11.
    # An extension that does not compile on one of these names tells which way: the threads renamed the
    # macro, removed the THC state, or installed the torch the code was written for.
    at_check = [
        # gmt710/AlphaPose_yolovx#7 ('Replace all AT_CHECK with TORCH_CHECK'; accepted)
        "detector/nms/src/nms_cuda.cpp:4:23: error: \u2018AT_CHECK\u2019 was not declared in this scope\n "
        '#define CHECK_CUDA(x) AT_CHECK(x.type().is_cuda(), #x, " must be a CUDAtensor ")',
        # xinntao/EDVR#146 ('replacing AT_CHECK with TORCH_CHECK. But it worked for me!')
        "c++ code inside dcn will not built since AT_CHECK is deprecated and will thourgh not defined "
        "error.\n"
        "Recommended replace AT_CHECK with TORCH_CHECK to support torch 1.5\n\nThis solved issue is found in "
        '[https://github.com/open-mmlab/mmdetection/issues/2513](url), which i solved my problem "AT_CHECK '
        "was "
        'not declared in this scope"by this solution.',
        # LianaWang/TextRay#2 (the maintainer: 'I use 1.3.1 and in the new versions its TORCH_CHECK')
        "src/iou_cuda.cpp:4:23: error: \u2018AT_CHECK\u2019 was not declared in this scope",
    ]
    for text in at_check:
        lead = _led_by(text, "build.torch_macro_changed")
        assert "AT_CHECK" in lead.cause and "1.5" in lead.cause, lead.cause
        assert "sed -i 's/AT_CHECK/TORCH_CHECK/g'" in lead.fix.text, lead.fix.text
    # yifita/DSS#2 (the reverse: the code needs torch 1.2; the maintainer pinned the revision for 1.1.0)
    lead = _explained(
        '"pytorch_points/_ext/torch_batch_svd.cpp:39:16: error: \u2018TORCH_CHECK\u2019 was not declared in '
        'this scope"'
    )[0]
    assert lead.id == "build.torch_macro_changed", lead
    assert "older" in lead.cause and "1.2" in lead.fix.text, lead
    # THC, removed in torch 1.11, in the compilers' other words
    thc = [
        # Tangshitao/QuadTreeAttention#17 (merged: the unused state commented out)
        "error: \u2018THCState\u2019 does not name a type; did you mean \u2018THPDtype\u2019? After comment "
        "out "
        "the unused `state`, success.",
        # hasanirtiza/Pedestron#164 (the maintainer: 'your pytorch version seem too high')
        '# mmdet/ops/roi_align/src/roi_align_kernel.cu(145): error: identifier "THCudaCheck" is undefined',
    ]
    for text in thc:
        lead = _led_by(text, "build.thc_headers_removed")


def test_cublas_invalid_value_from_a_torch_and_cuda_that_do_not_match_names_the_versions() -> None:
    # CUBLAS_STATUS_INVALID_VALUE in a plain GEMM is most often torch and CUDA that do not match (a cuBLAS
    # of another CUDA loaded first): the threads took other CUDAs off LD_LIBRARY_PATH, or changed torch or
    # the CUDA toolkit to the release the project uses.
    gemm = (
        "# RuntimeError: CUDA error: CUBLAS_STATUS_INVALID_VALUE when calling `cublasSgemm( handle, opa, "
        "opb, m, "
        "n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`"
    )
    cases = [
        # Fictionarry/TalkingGaussian#14's title (the maintainer: 'Ensure pytorch and cudatoolkit version in
        # the conda environment match'; the reporter: 'After updating it to 11.3.1, this issue was resolved')
        (gemm, None),
        # bennyguo/nerfren#6 (the maintainer: 'probably a torch/cuda version mismatch')
        (
            "Hi, when I running the script 'nerfren/scripts/nerfren/train_mirror.sh' for training phase,  \n"
            "meeting the Error 'RuntimeError: CUDA error: CUBLAS_STATUS_INVALID_VALUE when calling "
            "`cublasSgemm( "
            "handle, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc)`'? ",
            None,
        ),
        # THUYimingLi/Untargeted_Backdoor_Watermark#2, title and description ('I've solved this problem,
        # torch 1.12.1')
        (
            gemm + "\n\nHi~I'm running train_UBW_P.py with torch 1.13.1+cu117 and python 3.7\nreceive such "
            'error when calling "./UBW-P/core/attacks/base.py", line 196, in train: loss.backward()',
            "torch 1.13.1+cu117",
        ),
    ]
    for text, version in cases:
        lead = _led_by(text, "cublas.status_error")
        assert "version mismatch" in lead.cause, lead.cause
        assert "unset LD_LIBRARY_PATH" in lead.fix.text and "downgraded torch" in lead.fix.text, lead.fix
        assert version is None or any(version in line for line in lead.evidence), lead.evidence


def test_dataparallel_given_gpus_the_machine_lacks_is_an_invalid_device_ordinal() -> None:
    # DataParallel checks every id in device_ids: "AssertionError: Invalid device id" is a GPU list written
    # for a machine with more GPUs (device_ids=[0,1,2,3], a config's GPUS, --ngpu). The threads listed the
    # GPUs present (device_ids=[0]).
    cases = [
        # torralba-lab/im2recipe-Pytorch#11 (device_ids=[0,1,2,3] on a machine with one GPU)
        (
            '  File "test.py", line 31, in main\n    model.visionMLP = '
            "torch.nn.DataParallel(model.visionMLP, "
            'device_ids=[0,1,2,3])\n  File "/home/foodvision/anaconda3/envs/py27/lib/python2.7/site-packages/'
            'torch/nn/parallel/data_parallel.py", line 111, in __init__\n    '
            "_check_balance(self.device_ids)\n"
            '  File "/home/foodvision/anaconda3/envs/py27/lib/python2.7/site-packages/torch/nn/parallel/'
            'data_parallel.py", line 17, in _check_balance\n    dev_props = '
            "[torch.cuda.get_device_properties(i) "
            'for i in device_ids]\n  File "/home/foodvision/anaconda3/envs/py27/lib/python2.7/site-packages/'
            'torch/cuda/__init__.py", line 292, in get_device_properties\n    raise AssertionError("Invalid '
            'device id")\nAssertionError: Invalid device id',
            "0, 1, 2, 3",
        ),
        # leoxiaobin/deep-high-resolution-net.pytorch#145 (#27 of the same repository: device_ids=[0])
        (
            '    raise AssertionError("Invalid device id")\nAssertionError: Invalid device id\n\n'
            "henbucuoshanghai \u00b7 comment \u00b7 2019-11-25\nI have to have 4 gpus ????????????\n\n"
            "henbucuoshanghai \u00b7 comment \u00b7 2019-11-25\nGPUS: (0,1,2,3)??????????????",
            "0, 1, 2, 3",
        ),
        # lzx1413/PytorchSSD#50 (the GPU default changed to the GPU present, or --ngpu)
        (
            'Traceback (most recent call last):\n  File "train_test.py", line 183, in <module>\n    net = '
            "torch.nn.DataParallel(net, device_ids=list(range(args.ngpu)))\n  File "
            '"/home/cv2018/anaconda3/lib/'
            'python3.6/site-packages/torch/nn/parallel/data_parallel.py", line 102, in __init__\n    '
            "_check_balance(self.device_ids)\n  File "
            '"/home/cv2018/anaconda3/lib/python3.6/site-packages/torch/'
            'nn/parallel/data_parallel.py", line 17, in _check_balance\n    dev_props = '
            '[torch.cuda.get_device_properties(i) for i in device_ids]\n  File "/home/cv2018/anaconda3/lib/'
            'python3.6/site-packages/torch/nn/parallel/data_parallel.py", line 17, in <listcomp>\n    '
            "dev_props "
            '= [torch.cuda.get_device_properties(i) for i in device_ids]\n  File "/home/cv2018/anaconda3/lib/'
            'python3.6/site-packages/torch/cuda/__init__.py", line 292, in get_device_properties\n    raise '
            'AssertionError("Invalid device id")\nAssertionError: Invalid device id',
            "",
        ),
    ]
    for text, listed in cases:
        lead = _led_by(text, "cuda.invalid_device_ordinal")
        assert listed in " ".join(lead.evidence), lead.evidence
        assert "device_ids=[0]" in lead.fix.text, lead.fix.text


def test_an_oom_fix_names_a_larger_gpu_when_the_job_needs_more_than_the_gpu_has() -> None:
    # When the smallest settings still do not fit (the project needs more memory than the card has), the
    # threads' fix was a larger GPU: the maintainers named the memory the project needs.
    cases = [
        # paulengstler/invisible-stitch#7 ('I switched to a cloud server with an A40 which as 48GB VRAM and no
        # longer got this error')
        "I'm getting an error `torch.cuda.OutOfMemoryError: CUDA out of memory.`. I am using a GeForce RTX "
        "4070 Ti which has 12 GB of memory. Is that too little for this project? If so, what GPU "
        "configuration "
        "is recommended?",
        # arctanxarc/UniCTokens#3 ('It at least needs 48GB. You can switch to a GPU with sufficient VRAM.')
        "# CUDA Out of Memory Error on 32GB V100 \u2013 How Much VRAM is Required?\n\nHello, I\u2019m using "
        "a "
        "32GB V100 GPU but encountered a CUDA out of memory error during training. How much VRAM should I "
        "use "
        "instead?",
        # LambdaLabsML/examples#48 (another user: 'you need at least >=30 VRAM ... so I switched to A6000')
        "RuntimeError: CUDA out of memory. Tried to allocate 128.00 MiB (GPU 0; 23.68 GiB total capacity; "
        "20.57 GiB already allocated; 94.44 MiB free; 20.74 GiB reserved in total by PyTorch) If reserved "
        "memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See "
        "documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF\n\nFu**king it! Can you help "
        "me?\n\nBy the way, all the size and works are 1 ! ! !",
    ]
    for text in cases:
        lead = _led_by(text, "cuda.out_of_memory")
        assert "a larger GPU" in lead.fix.text, lead.fix.text


def test_no_kernel_image_on_a_gpu_newer_than_the_build_upgrades_pytorch() -> None:
    # Most builds without kernels for the GPU are older than the GPU: the threads upgraded PyTorch (a newer
    # release, or a build for a newer CUDA). The fix says so first, the computed plan after it.
    records = json.loads((ERRORS / "cuda.no_kernel_image.json").read_text())
    texts = {record["source"]: record["text"] for record in records}
    for source in ("sconlyshootery/FeatDepth#68", "INK-USC/RE-Net#77", "Hellod035/LeggedLab#26"):
        lead = _led_by(texts[source], "cuda.no_kernel_image")
        assert "Upgrade PyTorch" in lead.fix.text, (source, lead.fix.text)
    # without a GPU named, the general fix says which way (constructed around torch's message)
    lead = _led_by(
        "RuntimeError: CUDA error: no kernel image is available for execution on the device",
        "cuda.no_kernel_image",
    )
    assert lead.fix.text.startswith("Upgrade PyTorch") and "an older torch" in lead.fix.text, lead.fix.text


def test_kernels_in_the_oldest_release_the_tables_know_are_not_said_to_start_there() -> None:
    # The tables begin at torch 2.0: a GPU whose kernels every release there has (sm_80, sm_86, in 1.7 on)
    # was told "torch has kernels for CC 8.6 from 2.0 on", as if 1.x lacked them (CUDA 11.0 and 11.1 builds
    # of 1.7 and 1.8 had them). Said now as the edge of the tables, with the oldest CUDA build of that
    # release that has them (2.0's CUDA 11.7 build has sm_80 and sm_86; sm_90 only its CUDA 11.8 build).
    records = json.loads((ERRORS / "cuda.no_kernel_image.json").read_text())
    texts = {record["source"]: record["text"] for record in records}
    a100 = [
        # a README's note of torch 1.10.0+cu102 in a Singularity image on an A100 (stored file id 3914793010)
        'Singularity> python3 -c "import torch; print(torch.__version__); print(torch.cuda.is_available()); '
        "print(torch.cuda.get_arch_list()); torch.zeros(1).to('cuda')\"\n\n1.10.0+cu102\nTrue\n['sm_37', "
        "'sm_50', 'sm_60', 'sm_70']\nNVIDIA A100-PCIE-40GB with CUDA capability sm_80 is not compatible with "
        "the current PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_37 "
        "sm_50 sm_60 sm_70.\n",
        # SimpleDyG's README (its fix, from acids-ircam/RAVE discussion #123: torch==1.11.0+cu113)
        "比如报错如下：\nA100-SXM4-40GB with CUDA capability sm_80 is not compatible with the current "
        "PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 "
        "sm_70.\nIf you want to use the A100-SXM4-40GB GPU with PyTorch, please check the instructions at "
        "https://pytorch.org/get-started/locally/\n",
    ]
    cases = [
        (texts["sconlyshootery/FeatDepth#68"], "8.6"),
        (texts["Turoad/CLRNet#83"], "8.6"),
        *((text, "8.0") for text in a100),
    ]
    for text, cc in cases:
        lead = _led_by(text, "cuda.no_kernel_image")
        said = [line for line in lead.evidence if f"kernels for CC {cc}" in line]
        assert said == [
            f"torch has kernels for CC {cc} from 2.0 on (its CUDA 11.7 build), not in every CUDA build of a "
            "release; 2.0 is the oldest release these tables know, so older ones may have them too"
        ], lead.evidence
    # a GPU whose kernels came later than the tables' start is told where they start
    lead = _led_by(texts["Hellod035/LeggedLab#26"], "cuda.no_kernel_image")
    assert "torch has kernels for CC 12.0 from 2.7 on (its CUDA 12.8 build)" in " ".join(lead.evidence)


def test_a_step_too_large_for_the_gpu_says_the_gpu_has_not_enough_memory_and_names_the_image_size() -> None:
    # The maintainers' words for a job whose own memory fills the card: the GPU is too small for it
    # ('1G显存确实有点小': 1 GB of VRAM is indeed small), and the levers are a smaller image or a lower
    # resolution, or the CPU.
    too_small = [
        # PeterL1n/BackgroundMattingV2#142 (the maintainer: '1G显存确实有点小')
        "# CUDA out of memory\n\n你好，\nRuntimeError: CUDA out of memory. Tried to allocate 72.00 MiB (GPU "
        "0; 1024.00 MiB total capacity; 378.05 MiB already allocated; 0 bytes free; 418.00 MiB reserved in "
        "total by PyTorch)\n\n除了更换更高更强的GPU，有无其他的解决方案，谢谢",
        # tamarott/SinGAN#144 (the reporter: 'I was able to train my network by using the CPU instead of the
        # GPU')
        'Can someone help me how to solve the "CUDA out of memory" error ? I think it has to do something '
        "with reducing the batch size but I am not sure where in the code I can do that.\n"
        '  File "c:\\Projects\\PK\\Phd\\Paper4_GAN\\SinGAN-master\\SinGAN\\training.py", line 162, in '
        "train_single_scale\n    gradient_penalty.backward()\nRuntimeError: CUDA out of memory. Tried to "
        "allocate 30.00 MiB (GPU 0; 2.00 GiB total capacity; 1.16 GiB already allocated; 18.86 MiB free; "
        "1.28 GiB reserved in total by PyTorch)",
    ]
    for text in too_small:
        lead = _led_by(text, "cuda.out_of_memory")
        assert "not enough GPU memory" in lead.cause, lead.cause
        assert "run it on the CPU" in lead.fix.text and "a lower resolution" in lead.fix.text, lead.fix.text
    smaller_image = [
        # sangwoomo/instagan#14 (the maintainer: 'you can reduce image resolution, by controlling
        # `--fineSizeH` and `--fineSizeW`')
        "# CUDA error: out of memory\n\nthans fou you good job\nI use a 1080ti gpu,and it out of memory,how "
        "can I train with my gpu,is there any idea?  thankyou very much",
        # artmamedov/artroom-stable-diffusion#20 (the maintainer: 'you need to either reduce the image size,
        # lower the speed, or try a smaller model')
        "# Cuda Out of memory. How do I bypass this?",
        # jgkwak95/AU-GAN#4 (the maintainer: 'You might meet OOM if your gpu has small memory ... I suggest
        # you to reduce the resolution of training image')
        "# when i tried to start the training It shows error 'CUDA OUT OF MEMORY' even with reduced batch "
        "size of 1. what is the possible solution please?",
    ]
    for text in smaller_image:
        lead = _led_by(text, "cuda.out_of_memory")
        assert "a smaller image size or a lower resolution" in lead.fix.text, lead.fix.text
    # the message without figures says the shortfall too (instagan, artroom)
    for text in smaller_image[:2]:
        assert "not enough GPU memory" in _led_by(text, "cuda.out_of_memory").cause


def test_an_op_not_compiled_with_gpu_support_is_the_projects_extension_built_without_cuda() -> None:
    # maskrcnn-benchmark's setup.py compiles the CUDA sources (WITH_CUDA) only where torch.cuda.is_available()
    # and CUDA_HOME were true at build time; the C++ op raises 'Not compiled with GPU support' otherwise. The
    # threads rebuilt it with CUDA found: CUDA_HOME, nvcc, FORCE_CUDA=1, the old build folder deleted.
    cases = [
        # chen742/PiPa#12 (the maintainer: 're-install your CUDA environment and then delete the build/ folder
        # before re-compile mmcv')
        "I installed the codebase following your instruction, but got the below error, \ncould you helpme ? "
        'any suggestion is good.\n\n"RuntimeError: nms is not compiled with GPU support"',
        # microsoft/GLIP#41 (built on a slurm head node without a GPU; 'I delete all compiled material ... and
        # then reinstall the repo by `python setup.py build develop --user`. Then, the issue has been
        # resolved.')
        "# RuntimeError: Not compiled with GPU support\n\n@Haotian-Zhang `CUDA_HOME` is set, and cuda is "
        "obviously available",
        # facebookresearch/maskrcnn-benchmark#230 ('setting the environment variable FORCE_CUDA to 1 before
        # building/installing the project resolved this issue for me')
        "# Not compiled with GPU support",
        # xingyizhou/CenterTrack#79 (DCNv2: nvcc missing, 'conda install -c conda-forge cudatoolkit-dev', then
        # DCNv2 compiled again)
        "# RuntimeError: Not compiled with GPU support (my eviroment is pytorch 1.4.0 ubuntu18.04)",
    ]
    for text in cases:
        lead = _led_by(text, "extension.built_without_cuda")
        said = _said(lead)
        assert "CUDA_HOME" in said and "FORCE_CUDA=1" in said and "rm -rf build" in said, said
    # torch's own CPU-only build is another message and another entry
    assert _ids("AssertionError: Torch not compiled with CUDA enabled")[0] == "torch.not_compiled_with_cuda"
    # the op the message names is quoted
    assert "nms" in " ".join(_led_by(cases[0], "extension.built_without_cuda").evidence)


def test_nvcc_refusing_the_host_compiler_names_the_gcc_limit_and_an_older_gcc() -> None:
    # CUDA's host_config.h refuses a gcc newer than the CUDA release supports; the threads built with an older
    # gcc (update-alternatives, CC/CXX) or took a newer CUDA.
    cases = [
        # jwyang/faster-rcnn.pytorch#568 ('I solved it by installing `gcc-5`')
        (
            "`In file included from /usr/local/cuda/include/host_config.h:50:0,\n                 from "
            "/usr/local/cuda/include/cuda_runtime.h:78,\n                 from "
            "<command-line>:0:\n/usr/local/cuda/include/crt/host_config.h:119:2: error: #error -- "
            "unsupported GNU version! gcc versions later than 6 are not supported!\n #error -- unsupported "
            "GNU version! gcc versions later than 6 are not supported!\n  ^~~~~\nerror: command "
            "'/usr/local/cuda/bin/nvcc' failed with exit status 1`",
            "gcc versions later than 6",
        ),
        # teddykoker/torchsort#39 (CC and CXX pointed at gcc-7; the maintainer: 'Thanks for ... providing a
        # fix!')
        (
            "while installing the package I ran into the problem that the CUDA version used to install my "
            "torch installation (CUDA 9.2) is not compatible with recent g++ versions (7 or higher). The "
            "error looks something like this:\n\n    /usr/lib/cuda-9.2/include/crt/host_config.h:119:2: "
            "error: #error -- unsupported GNU version! gcc versions later than 7 are not supported!",
            "gcc versions later than 7",
        ),
        # darglein/ADOP#37 (the reporter recompiled with gcc-7.5)
        (
            "# unsupported GNU version! gcc versions later than 8 are not supported!\n\nbuild follow "
            "src/README but error occured!\n\ngcc=9.3,g++=9.3\nubuntu=20.04",
            "gcc versions later than 8",
        ),
    ]
    for text, limit in cases:
        lead = _led_by(text, "build.unsupported_host_compiler")
        said = _said(lead)
        assert limit in said and "update-alternatives" in said and "CC=" in said, said


def test_a_request_larger_than_the_gpu_names_the_input_and_running_it_in_pieces() -> None:
    # One allocation larger than the whole card came from an input too large for one pass (a huge image); the
    # threads cropped it, ran it in patches or tiles (the program's chop option), or gave a smaller image.
    cases = [
        # Fannovel16/comfy_controlnet_preprocessors#50 ('My image wasn't cropped to 512 and was huge')
        "I only have 3 nodes in comfy, loadimage, normalmappreprocessor, and saveimage. I got "
        "this:\n\ntorch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 218.96 GiB\n\nAny "
        "suggestions appreciated. Nvidia gpu with 8gb.\nThanks!",
        # lbc12345/SeD#5 (the maintainer: 'You may try to crop your image into patches first')
        "# test error\n\nThis error occurred when I was testing, only loading a picture, why\nRuntimeError: "
        "CUDA out of memory. Tried to allocate 87.95 GiB (GPU 0; 44.48 GiB total capacity; 22.69 GiB "
        "already allocated; 19.28 GiB free; 23.92 GiB reserved in total by PyTorch)",
        # zsyOAOA/ResShift#4 (the maintainer: 'Try to the option of "--chop_size 256"'; 'The changes worked!')
        "`torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 128.00 GiB (GPU 0; 24.00 GiB "
        "total capacity; 6.71 GiB already allocated; 12.96 GiB free; 8.74 GiB reserved in total by PyTorch) "
        "If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  "
        "See doc\nOnly have 1 GPU with 24GB, is there any way to run this?",
    ]
    for text in cases:
        lead = _led_by(text, "cuda.out_of_memory")
        assert "the input is too large for one pass" in lead.cause, lead.cause
        assert "tiles or patches" in lead.fix.text and "segments" in lead.fix.text, lead.fix.text


def test_an_index_past_the_position_table_is_a_sequence_longer_than_the_models_maximum() -> None:
    # A device-side assert (or the CPU's 'index out of range in self') in an embedding whose text names the
    # position embeddings or the model's maximum length: the threads truncated the inputs to the model's own
    # maximum; a larger max_position_embeddings in the config does not help.
    cases = [
        # yzhangcs/parser#42 ('the script stopped crashing when I removed the example which had a length
        # longer than that')
        (
            '  File "/usr/local/lib/python3.6/dist-packages/transformers/modeling_bert.py", line 177, in '
            "forward\n    embeddings = inputs_embeds + position_embeddings + "
            "token_type_embeddings\nRuntimeError: CUDA error: device-side assert triggered\n```\nWhen "
            "trying to figure out what was wrong and running the script with `CUDA_LAUNCH_BLOCKING=1`, I "
            "found out some clues about it being an indexing problem (going out of bounds somewhere). This "
            "lead me to think it had something to do with BERT's limited max sequence length (512)",
            "cuda.device_side_assert",
        ),
        # jpWang/LiLT#47 ('set max_length=512, it works!')
        (
            "FUNSD,     lilt-roberta-en-base\nreturn torch.embedding(weight, input, padding_idx, "
            "scale_grad_by_freq, sparse)\nRuntimeError: CUDA error: device-side assert triggered\n  7%|▋    "
            "     | 143/2000 [00:28<06:06,  5.06it/s]\nwhile I find the reason, I find a features's size "
            'is 625. batch["input_ids"].shape = (1, 625) . Could you tell me how to fix it.Thanks a lot!',
            "cuda.device_side_assert",
        ),
        # VinAIResearch/BERTweet#46 (the maintainer: 'You're using the base model which has a max sequence
        # length of 128')
        (
            'Hi, I encountered an error: "IndexError: index out of range in self." Below is my code. Can you '
            "help identify where the problem is? Is it related to the length of the "
            "sequence?\n```\npretrain_model = 'vinai/bertweet-base'\ntokenizer = "
            'AutoTokenizer.from_pretrained(pretrain_model)\ninputs = tokenizer(text, return_tensors="pt", '
            "padding='max_length', truncation=True, max_length=512)\n```",
            "embedding.index_out_of_range",
        ),
        # pzelasko/daseg#11 (the reporter: 'the error is due to the absolute positional embeddings in
        # Longformer which was 4098')
        (
            "Hello again, I faced this error when the input text exceeded certain number of characters "
            '(15987) to be exact, or about 3k words approximately\n"    return torch.embedding(weight, '
            'input, padding_idx, scale_grad_by_freq, sparse)\nIndexError: index out of range in self "',
            "embedding.index_out_of_range",
        ),
    ]
    for text, entry_id in cases:
        lead = _led_by(text, entry_id)
        assert "position" in lead.cause and "max_position_embeddings" in lead.cause, lead.cause
        assert "truncation=True" in lead.fix.text, lead.fix.text
    # a token id past the vocabulary, with no sign of length, stays the vocabulary's case
    vocabulary = (
        "IndexError: index out of range in self\nI added new tokens to the tokenizer with add_tokens and "
        "forgot resize_token_embeddings"
    )
    assert "resize_token_embeddings" in _led_by(vocabulary, "embedding.index_out_of_range").fix.text


def test_diffusers_warning_of_a_float16_pipeline_on_the_cpu_is_half_precision_on_the_cpu() -> None:
    # diffusers warns when a float16 pipeline is on the CPU; the threads ran it on the GPU (torch that sees
    # it, the program's offload fixed) or in float32.
    cases = [
        # Vchitect/Latte#23 (the maintainer: the script picks the GPU when torch sees one: check the machine)
        "HI I have successfully loaded t2v model using \n bash sample/t2v.sh\nbut it shows the model is "
        "running on cpu, how to set it to run on GPU, thanks\nPipelines loaded with `dtype=torch.float16` "
        "cannot run with `cpu` device. It is not recommended to move them to `cpu` as running them will "
        "fail. Please make sure to use an accelerator to run the pipeline in inference, due to the lack of "
        "support for`float16` operations on this device in PyTorch. Plea",
        # Tencent-Hunyuan/Hunyuan3D-1#33 (--save_memory left the pipeline on the CPU; fixed in the code)
        "启动使用了--save_memory参数，让他加载到cpu那里，但生成obj的时候出现下面错误：\nPipelines loaded "
        "with `dtype=torch.float16` cannot run with `cpu` device. It is not recommended to move them to "
        "`cpu` as running them will fail.",
        # Shiriluz/Word-As-Image#13 (another user: torch_dtype=torch.float32 worked)
        "After preprocessing I get this message:\n   'Pipelines loaded with `torch_dtype=torch.float16` "
        "cannot run with `cpu` device. It is not recommended to move them to `cpu` as \n   running them "
        "will fail.'",
    ]
    for text in cases:
        lead = _led_by(text, "cpu.half_not_implemented")
        said = _said(lead)
        assert "pipe.to('cuda')" in said and "torch_dtype=torch.float32" in said, said
        assert any("float16 pipeline" in line for line in lead.evidence), lead.evidence


def test_stopiteration_in_a_dataparallel_replica_is_next_of_parameters_in_a_replica_without_them() -> None:
    # Since torch 1.5 a DataParallel replica holds no parameters of its own (replicate.py sets them as plain
    # attributes), so next(self.parameters()) in forward raises StopIteration; the threads took the device
    # from the input, ran one GPU, or kept torch 1.4.
    cases = [
        # soobinseo/Transformer-TTS#39 ('downgrade pytorch to 1.4.0'; another user: solved)
        "# Caught StopIteration in replica 1 on device 1 error\n\nI have successfully prepared the data but "
        "when I run the python script **train_transformer.py** I get the following error _**StopIteration: "
        "Caught StopIteration in replica 1 on device 1.**_ How can I resolve this one?",
        # kimiyoung/transformer-xl#123 (nn.ParameterList leaves the replica empty; torch 1.4.0 confirmed)
        "# StopIteration: Caught StopIteration in replica 0 on device 0.",
        # espnet/espnet#2169, fixed by espnet/espnet#2492 ('From pytorch1.5, there are no ways to derive the
        # device number from torch.nn.module in DataParallel.forward()')
        "# Multi-GPU training failure with PyTorch 1.5.1\n```\nException in main training loop: Caught "
        "StopIteration in replica 0 on device 0.\nOriginal Traceback (most recent call last):\n  File "
        '"/home/huang18/VC/Experiments/espnet/tools/venv/lib/python3.6/site-packages/torch/nn/parallel/'
        'parallel_apply.py", '
        "line 60, in _worker\n    output = module(*input, **kwargs)",
    ]
    for text in cases:
        lead = _led_by(text, "dataparallel.replica_without_parameters")
        said = _said(lead)
        assert "next(self.parameters())" in said and "x.device" in said and "model.module" in said, said
        assert "replica" in " ".join(lead.evidence), lead.evidence


def test_arguments_located_on_different_gpus_is_tensors_on_two_gpus_and_under_dataparallel_a_replica() -> (
    None
):
    # torch 0.4 to 1.x said 'arguments are located on different GPUs' where torch 2 says 'Expected all tensors
    # to be on the same device'. Under DataParallel a tensor made on a fixed GPU, or a submodule in a plain
    # list, is not copied to each replica (junyanz/BicycleGAN#40, richzhang/PerceptualSimilarity#35:
    # nn.ModuleList).
    dataparallel = [
        # BangLiu/QANet-PyTorch#3
        "I want to run QANet with 4 gpus and I change some related settings as:\n\n```\nmodel = "
        "nn.DataParallel(model, device_ids=[0, 1, 2, 3])\n```\nI am using `torch 0.4.0` and `cuda 9.0`.  "
        "And I meet with a runtime error `arguments are located on different GPUs` as follow:",
        # lvwj19/PPR-Net-plus#20
        "-RuntimeError: arguments are located on different GPUs at "
        "/pytorch/aten/src/THC/generic/THCTensorMathBlas.cu:481\nI dont understand why would it be,hoping "
        "you "
        "can help me solve this.\n\n  File "
        '"/home/lg/anaconda3/envs/pprnet/lib/python3.6/site-packages/torch/nn/parallel/data_parallel.py", '
        "line 152, in forward\n    outputs = self.parallel_apply(replicas, "
        "inputs, kwargs)",
        # WonwoongCho/GDWCT#7
        "When I set the DATA_PARALLEL True, I met a runtime error: arguments are located on different GPUs. "
        "Anyone knows how to solve it? Thx",
    ]
    for text in dataparallel:
        lead = _led_by(text, "tensors.different_devices")
        assert "DataParallel" in lead.cause and "replica" in lead.cause, lead.cause
        assert "nn.ModuleList" in lead.fix.text and "x.device" in lead.fix.text, lead.fix.text
    # HsinYingLee/DRIT#6 (one model on self.gpu, a tensor made on the current GPU: z.cuda(self.gpu) fixed it)
    drit = (
        '# Bug: "arguments are located on different GPUs"\n\nWhen running the code it encounters an error '
        "at: https://github.com/HsinYingLee/DRIT/blob/master/src/model.py#L362-L367\n because "
        "`self.z_random` is generated without specifying the GPU here:\n```python\n  def get_z_random(self, "
        "batchSize, nz, random_type='gauss'):\n    z = torch.cuda.FloatTensor(batchSize, nz)\n```"
    )
    lead = _led_by(drit, "tensors.different_devices")
    assert "two GPUs" in lead.cause and "current device" in lead.cause, lead.cause


def test_a_tensor_or_layer_made_inside_the_model_without_a_device_is_the_one_on_the_cpu() -> None:
    # torch.zeros/randn/arange without device= make a CPU tensor, and a layer built inside forward is never
    # moved by model.to(); the threads made them on the input's device (or built the layer in __init__).
    cases = [
        # benedekrozemberczki/pytorch_geometric_temporal#18 (#20: 'H = torch.zeros(...).to(X.device)'; the
        # maintainer: 'all of the hidden state and cell state definitions were redefined')
        (
            "# RuntimeError: All input tensors must be on the same device. Received cuda:0 and cpu\n\nWhy "
            "the initial hidden `H` won't be moved to `GPU`?\n```python\nclass DCRNN(torch.nn.Module):\n    "
            "def _set_hidden_state(self, X, H):\n        if H is None:\n            H = "
            "torch.zeros(X.shape[0], self.out_channels)\n        return H\n```",
            "torch.zeros(X.shape[0], self.out_channels)",
        ),
        # lucidrains/slot-attention#7 (the maintainer: 'Fixed in 1.1.1')
        (
            "When I run the code on GPU, I got the following error:\n> RuntimeError: Expected all tensors "
            "to be on the same device, but found at least two devices, cuda:0 and cpu!\nI think that it's "
            "because in line 43\n ```\nslots = mu + sigma * torch.randn(mu.shape)\n```\n`torch.randn()` "
            "generate random numbers on CPU, but the `mu` and `sigma` are on GPU. So I get the this error.",
            "torch.randn(mu.shape)",
        ),
        # syuu1987/geekTime-semantic-segmentation#1 (the reporter: nn.BatchNorm2d belongs in __init__ so that
        # all parameters are on cuda:0)
        (
            "# RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
            "cuda:0 and cpu!\n\n问题解决了!\n def forward(self, input):\n        x = self.conv1(input)\n    "
            "    x = nn.BatchNorm2d(num_features=self.features)(x)\n        x = nn.ReLU(inplace=True)(x)",
            "nn.BatchNorm2d(num_features=self.features)",
        ),
    ]
    for text, made in cases:
        lead = _led_by(text, "tensors.different_devices")
        assert any(made in line for line in lead.evidence), lead.evidence
        if made == "torch.randn(mu.shape)":
            # the line quoted is one statement where the tensor meets sigma: the fix is written for it
            assert "torch.randn(mu.shape, device=sigma.device)" in lead.fix.text, lead.fix.text
            assert "torch.randn(mu.shape) is given no device" in lead.cause, lead.cause
        else:
            assert "device=x.device" in lead.fix.text and "__init__" in lead.fix.text, lead.fix.text
    # made on the input's device already: not the cause
    fixed = (
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
        "cuda:0 and cpu!\nH = torch.zeros(X.shape[0], self.out_channels, device=X.device)"
    )
    assert not any("torch.zeros" in line for line in _led_by(fixed, "tensors.different_devices").evidence)


def test_nvcc_failing_on_gcc_11s_std_function_is_a_host_compiler_too_new_for_that_cuda() -> None:
    # nvcc of CUDA 11.5 and 11.7 cannot parse gcc 11's <functional>; the threads installed CUDA 11.8 or built
    # with gcc 10 (torch's extension builder hands CC to nvcc as -ccbin).
    cases = [
        # turboderp/exllama#65 (nvcc 11.5; the maintainer: a newer toolkit; the reporter: 'It worked!'), the
        # spaces inside 'expa nded' as the terminal pasted them
        "/usr/include/c++/11/bits/std_function.h:435:145: error: parameter packs not expa                  "
        "nded with ‘...’:\n  435 |         function(_Functor&& __f)\n[2/5] /usr/bin/nvcc  "
        "-DTORCH_EXTENSION_NAME=exllama_ext",
        # chensong1995/HybridPose#77 ('I installed CUDA 11.8 and now I get two warning but no errors')
        "# /usr/include/c++/11/bits/std_function.h:435:145: error: parameter packs not expanded with ‘...’:",
        # NVlabs/tiny-cuda-nn#231 (another user: reverting to gcc-10/g++-10 built it)
        "      /usr/include/c++/11/bits/std_function.h:530:146: error: parameter packs not expanded with "
        "‘...’:\n        530 |         operator=(_Functor&& __f)\n      ninja: build stopped: subcommand "
        "failed.",
    ]
    for text in cases:
        lead = _led_by(text, "build.unsupported_host_compiler")
        said = _said(lead)
        assert "CUDA 11.8" in said and "CC=gcc-10" in said and "std_function.h" in said, said
        assert "the headers are those of gcc 11 (c++/11/bits/std_function.h)" in lead.evidence, lead.evidence


def test_an_extension_import_that_cannot_import_its_compiled_name_is_an_extension_never_built() -> None:
    # 'cannot import name' of the project's compiled ops (pcdet's iou3d_nms_cuda, a _C) is the extension not
    # built here; the threads ran the project's python setup.py develop (build develop).
    cases = [
        # djiajunustc/Voxel-R-CNN#10 (the maintainer: 'Have your run "python setup.py develop" ?')
        (
            '  File "/data/Voxel-R-CNN/pcdet/ops/iou3d_nms/iou3d_nms_utils.py", line 9, in <module>\n    '
            "from . "
            "import iou3d_nms_cuda\nImportError: cannot import name 'iou3d_nms_cuda' from "
            "'pcdet.ops.iou3d_nms' (unknown location)\n`\nNot sure what's up? Are the paths wrong?",
            "pcdet.ops.iou3d_nms.iou3d_nms_cuda",
        ),
        # Livox-SDK/livox_detection#48 (a later user: 'python3 setup.py develop')
        (
            "When I run the command **python3 test_ros.py --pt ../pt/livox_model_1.pt** under **tools** I "
            "get the following error:\n**ImportError: cannot import name 'iou3d_nms_cuda' from "
            "'livoxdetection.ops.iou3d_nms' (unknown location)**",
            "livoxdetection.ops.iou3d_nms.iou3d_nms_cuda",
        ),
        # Tramac/awesome-semantic-segmentation-pytorch#25 ('thanks I just ran it and the problem solved')
        (
            "When i try to run demo.py in windows 10 pytorch 1.1stable cuda10\nTraceback (most recent call "
            "last):\nImportError: cannot import name '_C'\nProcess finished with exit code 1",
            "_C",
        ),
        # AmingWu/VDD-DAOD#4 ('Please run python setup.py develop in the lib directory.' 'Thank you! It
        # works!')
        (
            "I want to run your training code, but when i run da_train_net_gl.py\nI meet follow message: "
            "ImportError: cannot import name '_C' from 'model'",
            "model._C",
        ),
    ]
    for text, module in cases:
        lead = _led_by(text, "extension.not_built")
        assert f"the missing module {module} is a compiled extension" in " ".join(lead.evidence), (
            lead.evidence
        )
        assert "python setup.py develop" in lead.fix.text, lead.fix.text
    # torch's own _C, imported from inside torch's source tree, is no project extension
    assert "extension.not_built" not in _ids(
        "ImportError: cannot import name '_C' from partially initialized module 'torch'"
    )


def test_tritons_out_of_shared_memory_is_a_kernel_configuration_too_large_for_this_gpu() -> None:
    # A Triton kernel's block sizes and num_stages need more shared memory per block than the GPU has; the
    # threads lowered num_stages or the block size, or named the GPU as unsupported.
    cases = [
        # alipay/PainlessInferenceAcceleration#35 (the maintainer set num_stages to 2 for sm86), retyped
        (
            "When I run flood's `example/simple_example.py` I get the error: "
            "`triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 163842, "
            "Hardware limitation: 101376. reducing the block size or `num_stages` may help`.\nRTX3090 24G",
            "163842",
            "101376",
        ),
        # OpenSpaceAI/DEST3D#2 (the maintainers reduced chunk_scan_fwd_kernel's num_stages)
        (
            "请问有人遇到 triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: "
            "589824, Hardware limit: 101376. Reducing block sizes or num_stages may help. 这个报错吗？",
            "589824",
            "101376",
        ),
        # FlashML-org/FreeToken#246 (the maintainer: 'rtx20 series not supported')
        (
            "# window 11 启动过程中出现 Required: 98304, , Hardware limit: 65536. rtx2080ti "
            "22G\n\n[16:10:33] stdout/INFO  triton.runtime.errors.OutOfResources: out of resource: shared "
            "memory, Required: 98304, Hardware limit: 65536. Reducing block sizes or `num_stages` may help.",
            "98304",
            "65536",
        ),
        # triton-lang/triton#1561 (num_stages 4 -> 3 on an A100), the older exception path
        (
            "triton.runtime.autotuner.OutOfResources: out of resource: shared memory, Required: 196608, "
            "Hardware limit: 166912. Reducing block sizes or `num_stages` may help.",
            "196608",
            "166912",
        ),
    ]
    for text, required, limit in cases:
        lead = _led_by(text, "triton.out_of_shared_memory")
        said = _said(lead)
        assert f"{required} bytes" in said and f"{limit} bytes" in said, lead.evidence
        assert "num_stages" in lead.fix.text and "block sizes" in lead.fix.text, lead.fix.text


def test_no_kernel_image_in_a_torch_an_application_bundles_names_the_applications_newer_release() -> None:
    # A torch inside an application's Docker image is changed by the application's own release or image, not
    # by pip in another Python: the threads pinned or pulled an image with a newer
    # PyTorch, or the maintainers published one.
    cases = [
        # CoreWorxLab/CAAL#4 (merged #5: the image tag that ships PyTorch 2.7.1+cu128)
        "The current GPU image fails to start on NVIDIA RTX 5080 cards (Blackwell "
        "architecture).\nRuntimeError: Failed to load Kokoro model: CUDA error: no kernel image is "
        "available for execution on the device\nEnvironment:\nGPU: NVIDIA GeForce RTX 5080\nDriver Version: "
        "570.xx+ (CUDA 12.8)\nImage: ghcr.io/remsky/kokoro-fastapi-gpu:latest",
        # lmoe/wyoming-xtts#1 (a :cu128 image pushed; 'It is works now.')
        "I tried to run this container, but got a "
        "warning:\n```\n/opt/venv/lib/python3.11/site-packages/torch/cuda/__init__.py:287: "
        "UserWarning:\nNVIDIA GeForce RTX 5060 Ti with CUDA capability sm_120 is not compatible with the "
        "current PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 "
        "sm_70 sm_75 sm_80 sm_86 sm_90.\n```",
        # laituan245/EL-Dockers#1 (the maintainer published a :cu11 image)
        "I am using 3090 GPU but find your docker `laituan245/wikidata_el_demo` can not support it. It "
        "seems that the torch version in docker is lower than "
        "1.11.\n```\n/opt/conda/envs/aida_coreference/lib/python3.6/site-packages/torch/cuda/"
        "__init__.py:143: "
        "UserWarning:\nGeForce RTX 3090 with CUDA capability sm_86 is not compatible with the current "
        "PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 "
        "sm_70.\n```",
    ]
    for text in cases:
        lead = _led_by(text, "cuda.no_kernel_image")
        assert lead.fix.text.startswith("The torch that fails comes with the application"), lead.fix.text
        assert "latest release" in lead.fix.text and "newer PyTorch" in lead.fix.text, lead.fix.text
        assert any("bundled" in line for line in lead.evidence), lead.evidence


def test_a_cuda_tensor_handed_to_numpy_is_copied_to_the_cpu_first_with_the_line_that_converts_it() -> None:
    # NumPy works on host memory: .numpy(), np.sum or np.asarray on a CUDA tensor raise this; the threads
    # added .cpu() at the line that converts.
    cases = [
        # ztxz16/fastllm#231 (the fix: 'dict[key].cpu().numpy().astype(ori_np_data_type)')
        (
            "Traceback (most recent call last):\n  File "
            '"/home/zengzijian/ai_code/fastllm/build/tools/fastllm_pytools/torch2flm.py", line 156, in '
            "tofile\n    cur = dict[key].numpy().astype("
            "ori_np_data_type)\nTypeError: can't convert cuda:0 device type tensor to numpy. Use "
            "Tensor.cpu() to copy the tensor to host memory first.",
            "cur = dict[key].numpy().astype(ori_np_data_type)",
        ),
        # Hzzone/pytorch-openpose#16 (merged: 'output = self.model(data).cpu().numpy()')
        (
            "# TypeError: can't convert CUDA tensor to numpy. Use Tensor.cpu() to copy the tensor to host "
            "memory first.\n\nI fixed this by changing the line in python/hand.py:\noutput = "
            "self.model(data).numpy()",
            None,
        ),
        # wengong-jin/hgraph2graph#35 ('This pull request solves it': the tensor moved to the CPU first)
        (
            "I was getting the following error from line 96: \n\n```\nTypeError: can't convert cuda:0 "
            "device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.\n```",
            None,
        ),
        # xiaxin1998/DHCN#14 (np.sum on a CUDA tensor)
        (
            "model.py的第40行“ item_embeddings = np.sum(final, 0) / (self.layers+1)” 报错：\nTypeError: "
            "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host "
            "memory first.",
            None,
        ),
    ]
    for text, line in cases:
        lead = _led_by(text, "tensors.cuda_to_numpy")
        assert ".detach().cpu().numpy()" in lead.fix.text and "host memory" in lead.cause, lead
        if line is not None:
            assert any(line in said for said in lead.evidence), lead.evidence


def test_a_device_mismatch_under_a_web_uis_low_vram_mode_is_an_extension_meeting_its_cpu_parts() -> None:
    # --medvram/--lowvram (ComfyUI's lowvram) keep parts of the model on the CPU until the UI's own code runs
    # them; an extension that puts its tensors on the main device meets them. The threads ran without the
    # option or took the extension's fix.
    cases = [
        # kohya-ss/sd-webui-additional-networks#12 ('Tested ... with both --medvram and --lowvram, and it
        # works fine'; #7: 'you can't use the extension with --medvram or --lowvram')
        "Trying to use the extension with --medvram or --lowvram results in following "
        "crash:\n`RuntimeError: Expected all tensors to be on the same device, but found at least two "
        "devices, cuda:0 and cpu! (when checking argument for argument mat2 in method wrapper_mm)`",
        # camenduru/stable-diffusion-webui#7 ('people saying that removing the --medvram line solves it')
        "When I try to prompt an image this appears. I saw people saying that removing the --medvram line "
        "solves it but then the program does not launch\n\nRuntimeError: Expected all tensors to be on the "
        "same device, but found at least two devices, cpu and cuda:0",
        # Lightricks/ComfyUI-LTXVideo#135 (a node under ComfyUI's lowvram;
        # Kosinkadink/ComfyUI-AnimateDiff-Evolved#372: 'comfy's lowvram system does not cast tensors to
        # device, only named modules and their associated weights/bias')
        "# LTXVPromptEnhancer node lowvram err Expected all tensors to be on the same device, but found at "
        "least two devices, cpu and cuda:0! (when checking argument for argument mat2 in method "
        "wrapper_CUDA_bmm)",
    ]
    for text in cases:
        lead = _led_by(text, "tensors.different_devices")
        assert "low-VRAM" in lead.cause and "extension" in lead.cause, lead.cause
        assert "without --medvram" in lead.fix.text and "update the extension" in lead.fix.text, lead.fix.text


def test_a_to_call_whose_argument_is_a_file_name_is_no_device_move() -> None:
    # Constructed from the form generatebio/chroma's README uses (Protein.to("x.cif") writes a file): a .to()
    # whose argument is a quoted string that is no device is not a tensor's move left unkept.
    text = (
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 "
        'and cpu!\nprotein = chroma.design(protein)\nprotein.to("1GFP-redesign.cif")\nimg.to("cuda")'
    )
    lead = _led_by(text, "tensors.different_devices")
    moves = " ".join(lead.evidence)
    assert 'img.to("cuda")' in moves and "1GFP-redesign.cif" not in moves, lead.evidence


def test_a_deserialize_on_cuda_message_cut_after_cuda_or_retyped_is_the_map_location_one() -> None:
    # Titles cut torch.load's message after 'on a CUDA' (torch's own source line, raise
    # RuntimeError('Attempting to deserialize object on a CUDA ', is pasted as a title too), and writers
    # retype its verb.
    cases = [
        # hkchengrex/Cutie#37 (a CPU-only computer: 'torch.cuda.is_available() must be False if you don't have
        # a GPU device')
        "# Attempting to deserialize object on a CUDA",
        # HelixNGC7293/DeforumStableDiffusionLocal#66
        "# RuntimeError('Attempting to deserialize object on a CUDA '",
        # jackaduma/CycleGAN-VC2#10 (its title, retyped with an input method's full stops; read before)
        "# RuntimeError： Attempting todeserialize object on a CUDA device but torch。cuda.is_available() "
        "is False。",
    ]
    for text in cases:
        lead = _led_by(text, "load.map_location")
        assert "map_location='cpu'" in lead.fix.text, lead.fix.text


def test_torchs_cpu_allocator_out_of_memory_is_host_ram_with_the_bytes_and_where_the_job_runs() -> None:
    # DefaultCPUAllocator failing is host RAM, not the GPU's: the threads gave the program more RAM or
    # virtual memory, a smaller batch, or ran it on the GPU where it had run on the CPU.
    cases = [
        # easydiffusion/easydiffusion#289 (the maintainer: not enough RAM; a user: 'Increasing virtual memory
        # on windows fixed this issue for me')
        (
            "Extend: RuntimeError: [enforce fail at "
            "C:\\cb\\pytorch_1000000000000\\work\\c10\\core\\impl\\alloc_cpu.cpp:81] data. "
            "DefaultCPUAllocator: not enough memory: you tried to allocate 151781376 bytes.",
            "151781376 bytes (0.14 GiB)",
        ),
        # NeverGiveU/CartoonGAN-pytorch#1 (the maintainer: not enough memory on the CPU; train on the GPU with
        # CUDA_VISIBLE_DEVICES)
        (
            "# Error：RuntimeError: [enforce fail at CPUAllocator.cpp:64] . DefaultCPUAllocator: can't "
            "allocate memory: you tried to allocate 67108864 bytes. Error code 12 (Cannot allocate memory)",
            "67108864 bytes (0.06 GiB)",
        ),
        # varunagrawal/tiny-faces-pytorch#12 (the maintainer: a GPU; half the batch size)
        (
            '"RuntimeError: [enforce fail at ..\\c10\\core\\CPUAllocator.cpp:72] data. DefaultCPUAllocator: '
            'not enough memory: you tried to allocate 113246208 bytes. Buy new RAM!"\nI use my laptop with '
            "8G "
            "memory.(windows)",
            "113246208 bytes (0.11 GiB)",
        ),
        # MaximeVandegar/Papers-in-100-Lines-of-Code#10 ('I am using my CPU instead of my GPU is that the
        # cause')
        (
            '" RuntimeError: [enforce fail at '
            "C:\\b\\abs_bao0hdcrdh\\croot\\pytorch_1675190257512\\work\\c10\\"
            "core\\impl\\alloc_cpu.cpp:81] data. DefaultCPUAllocator: not enough memory: you tried to "
            "allocate "
            '1981808640 bytes."',
            "1981808640 bytes (1.85 GiB)",
        ),
    ]
    for text, asked in cases:
        lead = _led_by(text, "host.cpu_allocator")
        assert any(asked in line for line in lead.evidence), lead.evidence
        assert "page file" in lead.fix.text and "CUDA build" in lead.fix.text, lead.fix.text


def test_an_illegal_memory_access_on_a_gpu_other_than_cuda0_is_the_current_device_left_at_0() -> None:
    # Kernels launch on the current device, which stays cuda:0 unless torch.cuda.set_device says otherwise;
    # code that makes tensors on the default device, or custom ops that launch there, meet tensors of cuda:N.
    # The threads set the device, or made the GPU the only one visible.
    cases = [
        # ant-research/EasyTemporalPointProcess#75 (merged: the device set across the torch context)
        " Sometimes PyTorch may not switch the active device context for all operations. This causes "
        "illegal memory access error especially when using cuda devices other than device:0",
        # daerduoCarey/PyTorchEMD#9 (the maintainer: 'try CUDA_VISIBLE_DEVICES=2 python train.py')
        'Hi, I have met a problem "RuntimeError: CUDA error: an illegal memory access was encountered" when '
        "specified a  gpu device other than device 0. For example, if there are more than one gpu device, I "
        "want to specify gpu 2 to train a model.",
        # jonbarron/robust_loss_pytorch#3 (merged: torch.cuda.set_device for the GPU in use)
        "If someone is using this repo on a GPU that isn't `cuda:0`, and they haven't run "
        "`torch.cuda.set_device(X)` where X is their GPU, then all of the `torch.as_tensor(Y)` calls in "
        "`util.py` will be put on the wrong device and cause an error. Specifically this error:\n\n> File "
        '"/home/relh/solar/robust_loss_pytorch/distribution.py", line 201, in nllfun\n>     assert (scale >= '
        "0).all()\n> RuntimeError: CUDA error: an illegal memory access was encountered",
    ]
    for text in cases:
        lead = _led_by(text, "cuda.illegal_memory_access")
        said = _said(lead)
        assert "torch.cuda.set_device" in lead.fix.text and "CUDA_VISIBLE_DEVICES" in said, said
        assert any("other than cuda:0" in line for line in lead.evidence), lead.evidence
    # without a GPU other than cuda:0 in the text, the general reading and CUDA_LAUNCH_BLOCKING
    lead = _led_by(
        "RuntimeError: CUDA error: an illegal memory access was encountered", "cuda.illegal_memory_access"
    )
    assert "CUDA_LAUNCH_BLOCKING=1" in _said(lead), _said(lead)


def test_isaac_gyms_physx_illegal_memory_access_is_its_gpu_buffers_run_out() -> None:
    # Isaac Gym's GPU PhysX keeps its own GPU buffers (contacts, environments, terrain) beside PyTorch's and
    # reports running out of them as an illegal memory access; the threads lowered num_envs, the contact
    # pairs or the terrain.
    cases = [
        # leggedrobotics/legged_gym#64 ('i solve this problem ! ... max_gpu_contact_pairs ... you need to
        # reduce this parameter')
        "when i run python train.py --task=anymal_c_rough \ni get this error ,what should i "
        "do?\n\n/buildAgent/work/99bede84aa0a52c2/source/physx/src/NpScene.cpp (3509) : internal error : "
        "PhysX Internal CUDA error. Simulation can not continue!\n\n[Error] [carb.gym.plugin] Gym cuda "
        "error: an illegal memory access was encountered: "
        "../../../source/plugins/carb/gym/impl/Gym/GymPhysX.cpp: 1459",
        # Improbable-AI/dribblebot#1 (the maintainer: the terrain takes memory as a large trimesh: reduce it)
        "I tried the training with num_envs = [16, 100, 500, 4000] and non of them is working with the "
        "following error:\n\n_internal error : PhysX Internal CUDA error. Simulation can not "
        "continue!\n[Error] [carb.gym.plugin] Gym cuda error: an illegal memory access was encountered: "
        "../../../source/plugins/carb/gym/impl/Gym/GymPhysX.cpp: 1459\nSegmentation fault (core dumped)_",
        # isaac-sim/IsaacGymEnvs#45 (a user: 'Solution is to decrease batch size , contact nums, env_nums')
        "# RuntimeError: CUDA error: an illegal memory access was encountered\n\nI keep getting this at "
        "random time periods during my training. The specific error: "
        "\n\n/buildAgent/work/45f70df4210b2e3e/source/gpunarrowphase/src/PxgNarrowphaseCore.cpp (9908) : "
        "internal error : GPU compressContactStage1 fail to launch kernel stage 1!!",
    ]
    for text in cases:
        lead = _led_by(text, "cuda.illegal_memory_access")
        assert "num_envs" in lead.fix.text and "max_gpu_contact_pairs" in lead.fix.text, lead.fix.text
        assert "PhysX" in lead.cause, lead.cause


def test_a_device_mismatch_quotes_the_programs_failing_statement() -> None:
    # The statement the traceback shows failing names the tensors that meet on two devices: the threads fixed
    # that line (moved 'predict' and 'gt', used labels_cuda, moved the INF mask, stopped utils.py putting its
    # anchors on the GPU). torch's own frames (tensor.py, module.py) are not the program's statement.
    cases = [
        # pxq0312/SFANet-crowd-counting#5 ('solved the issue by taking predict and gt on cuda')
        (
            'Traceback (most recent call last):\n  File "train.py", line 90, in <module>\n    mae += '
            "torch.abs(predict.sum() - gt).item()\nRuntimeError: Expected all tensors to be on the same "
            "device, but found at least two devices, cuda:0 and cpu!",
            "train.py, line 90",
            "mae += torch.abs(predict.sum() - gt).item()",
        ),
        # jiawangbai/TA-LBF#2 ('Fixed with replacing labels_cuda'; the maintainer: 'Sure, it is correct')
        (
            "I got error for attack_one.py file. Should I replace labels_cuda instead of lables? \nFile "
            '"attack_one.py", line 235, in <listcomp>    \n pa_acc = len([i for i in range(len(output)) if '
            "labels[i] == pred[i] and i != target_idx and i not in aux_idx]) / \\   \nFile "
            '"...../anaconda3/lib/python3.7/site-packages/torch/tensor.py", line 27, in wrapped    \n return '
            "f(*args, **kwargs) \nRuntimeError: Expected all tensors to be on the same device, but found at "
            "least two devices, cuda:0 and cpu!",
            "attack_one.py, line 235",
            "labels[i] == pred[i]",
        ),
        # signatrix/efficientdet#26 (the reporter: utils.py makes its variables on the GPU whenever
        # torch.cuda.is_available())
        (
            'Traceback (most recent call last):\n  File "DEMO.py", line 112, in <module>\n    test(opt)\n  '
            'File "DEMO.py", line 77, in test\n    scores, labels, boxes = model(new_image)\n  File '
            '"/home/gerkulesovr/anaconda3/envs/pytorch/lib/python3.7/site-packages/'
            'torch/nn/modules/module.py", '
            "line 541, in __call__\n    result = self.forward(*input, **kwargs)\n  File "
            '"/home/gerkulesovr/Projects/Detectors/efficientdet/src/model.py", line 275, in forward\n    '
            "transformed_anchors = self.regressBoxes(anchors, regression)\n  File "
            '"/home/gerkulesovr/anaconda3/envs/pytorch/lib/python3.7/site-packages/'
            'torch/nn/modules/module.py", '
            "line 541, in __call__\n    result = self.forward(*input, **kwargs)\n  File "
            '"/home/gerkulesovr/Projects/Detectors/efficientdet/src/utils.py", line 34, in forward\n    '
            "pred_ctr_x = ctr_x + dx * widths\nRuntimeError: expected device cpu but got device cuda:0",
            "efficientdet/src/utils.py, line 34",
            "pred_ctr_x = ctr_x + dx * widths",
        ),
        # Serge-weihao/CCNet-Pure-Pytorch#6, IPython's arrows (the maintainer: the INF mask is made with
        # .cuda())
        (
            "<ipython-input-8-4aaeaf6263b1> in forward(self, x)\n     24         proj_value_H = "
            "proj_value.permute(0,3,1,2).contiguous().view(m_batchsize*width,-1,height)\n     25         "
            "proj_value_W = "
            "proj_value.permute(0,2,1,3).contiguous().view(m_batchsize*height,-1,width)\n---> 26         "
            "energy_H = (torch.bmm(proj_query_H, proj_key_H)+self.INF(m_batchsize, height, "
            "width)).view(m_batchsize,width,height,height).permute(0,2,1,3)\n     27         energy_W = "
            "torch.bmm(proj_query_W, proj_key_W).view(m_batchsize,height,width,width)\n\nRuntimeError: "
            "Expected object of type torch.FloatTensor but found type torch.cuda.FloatTensor for argument "
            "#3 'other'",
            "<ipython-input-8-4aaeaf6263b1>, line 26",
            "self.INF(m_batchsize, height, width)",
        ),
    ]
    for text, where, code in cases:
        lead = _led_by(text, "tensors.different_devices")
        line = next((line for line in lead.evidence if line.startswith("the failing statement")), "")
        assert where in line and code in line, lead.evidence
    # a message without a traceback quotes no statement
    lead = _led_by(
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, "
        "cuda:0 and cpu!",
        "tensors.different_devices",
    )
    assert not any(line.startswith("the failing statement") for line in lead.evidence), lead.evidence


def test_torch_1_2_to_1_5s_expected_device_but_got_device_is_a_device_mismatch() -> None:
    # TensorIterator of torch 1.2 to 1.5 words a device mismatch "expected device cuda:0 but got device cpu"
    # (index_put_ still says it "... for value tensor").
    cases = [
        # dawnranger/pytorch-AGNN#5 (a reply: put self.beta on the GPU)
        (
            'File ".../pytorch-AGNN\\agnn\\model.py", line 28, in forward\n    torch.div(torch.mm(x, x.t()), '
            "torch.mm(norm2, norm2.t()) + 1e-7)\nRuntimeError: expected device cpu but got device cuda:0",
            "devices involved: cpu and cuda:0",
        ),
        # fangchangma/self-supervised-depth-completion#42 (the pull request moves the model with the data)
        (
            "my PR fixes the following bug:\n`RuntimeError: expected device cuda:0 but got device "
            "cpu`\n\n... while running this command:\n`python main.py --cpu --evaluate [path2checkpoint]`",
            "devices involved: cuda:0 and cpu",
        ),
        # meta-pytorch/captum#202 (a title)
        ("# `RuntimeError: expected device cpu but got device cuda:0 {", "devices involved: cpu and cuda:0"),
    ]
    for text, devices in cases:
        lead = _led_by(text, "tensors.different_devices")
        assert devices in lead.evidence, lead.evidence
    lead = _led_by(cases[0][0], "tensors.different_devices")
    assert any("model.py, line 28" in line and "torch.mm(norm2" in line for line in lead.evidence)


def test_a_programs_own_words_that_it_found_no_gpu_and_runs_on_the_cpu_are_torch_not_reaching_it() -> None:
    # A program that falls back to the CPU logs it in its own words ('No GPU found, use CPU instead'), or its
    # writer says cuda.is_available() gives false without torch's prefix; the threads' cause was a CPU-only
    # torch (ChatTTS-ui's maintainer: install the GPU build of torch, --index-url .../cu121).
    cases = [
        # jianchang512/ChatTTS-ui#35
        "# No GPU found, use CPU instead\n\nCUDA版本12.4\n已参考教程安装Cuda工具、cudnn仍然无法使用GPU\n"
        "日志：\nINFO:ChatTTS.core:Load from local: D:/Another "
        "APP/Chat-TTS/chatTTS-ui/models\\pzc163\\chatTTS\nWARNING:ChatTTS.utils.gpu_utils:No GPU found, use "
        "CPU instead\nINFO:ChatTTS.core:use cpu",
        # Mangio621/Mangio-RVC-Fork#108 (a reply asks for the torch build: 'It works on torch 2.0.0')
        '# No supported Nvidia GPU found\n\n"No supported Nvidia GPU found, use CPU instead\nCUDA is not '
        'available. Make sure you have an NVIDIA GPU and CUDA installed."\n\nObviously I have Nvidia GPU '
        "and "
        "CUDA and it works for another soft.",
        # zyddnys/manga-image-translator#210 (the readme was changed: the requirements' torch is a CPU build
        # on Windows)
        "# requirements里torch "
        "install时默认是cpu版本，所以cuda.is_available()只会返回false，导致--use-cuda不能使用",
    ]
    for text in cases:
        lead = _led_by(text, "cuda.not_available")
        assert "CPU-only build" in lead.cause
        assert "--index-url https://download.pytorch.org/whl/cu" in lead.fix.text
    # a program told to use the CPU says so without a GPU missing (constructed)
    assert "cuda.not_available" not in _ids("INFO: --device cpu given, using CPU")


def test_flash_attn_1_names_missing_from_flash_attn_2_are_its_rename_to_varlen() -> None:
    # flash-attn 2 renamed flash_attn_unpadded_* to flash_attn_varlen_*; code written for 1.x fails to import
    # them. The threads renamed the calls or pinned flash-attn 1.x (1.0.9).
    cases = [
        # DachengLi1/LongChat#30 (the maintainer: 'Please consider renaming the function based on
        # flash-attn2')
        (
            "flash_attn installed, but got ImportErrorImportError\n\nImportErrorImportError: : cannot import "
            "name 'flash_attn_unpadded_qkvpacked_func'",
            "flash_attn_varlen_qkvpacked_func",
        ),
        # RLHF-V/RLHF-V#7 (the reporter: 'flash_attn_unpadded_qkvpacked_func ->
        # flash_attn_varlen_qkvpacked_func Making such change will solve this problem.')
        (
            '  File "~/codes_MLLM/RLHF-V/muffin/muffin/train/llama_flash_attn_monkey_patch.py", line 12, in '
            "<module>\n    from flash_attn.flash_attn_interface import flash_attn_unpadded_qkvpacked_func\n"
            "ImportError: cannot import name 'flash_attn_unpadded_qkvpacked_func' from "
            "'flash_attn.flash_attn_interface' "
            "(~/miniconda3/envs/muffin/lib/python3.10/site-packages/flash_attn-2.4.2-py3.10-linux-x86_64.egg/"
            "flash_attn/flash_attn_interface.py)",
            "flash_attn_varlen_qkvpacked_func",
        ),
        # princeton-nlp/LLM-Shearing#33 (the reporter: 'I found these functions have been renamed')
        (
            "# AttributeError: module 'flash_attn.flash_attn_interface' has no attribute "
            "'flash_attn_unpadded_func'\n\nrun llmshearing/scripts/pruning.sh on A100 have an error",
            "flash_attn_varlen_func",
        ),
        # wenyuqing/panacea#29 (users: 'You should use flash-attn==1.0.9')
        (
            "# ImportError: cannot import name 'flash_attn_unpadded_kvpacked_func' from "
            "'flash_attn.flash_attn_interface'",
            "flash_attn_varlen_kvpacked_func",
        ),
    ]
    for text, renamed in cases:
        lead = _led_by(text, "flash_attn.v1_names")
        said = _said(lead)
        assert renamed in said and "flash-attn==1.0.9" in said, said


def test_an_amd_gpu_whose_gfx_target_rocm_was_not_built_for_gets_the_override_or_the_windows_libraries() -> (
    None
):
    # ROCm (its torch build, rocBLAS's Tensile library) is built for a list of gfx targets; a consumer card
    # outside it fails with hipErrorNoBinaryForGpu or rocBLAS's missing TensileLibrary.dat. The threads set
    # HSA_OVERRIDE_GFX_VERSION=10.3.0 on Linux, or replaced the HIP SDK's rocBLAS files on Windows.
    linux = [
        # ROCm/legacy-rocm-build#2061 (the reporter: 'it is as simple as export
        # HSA_OVERRIDE_GFX_VERSION=10.3.0')
        "# ROCm for koboldai hipErrorNoBinaryForGpu: Unable to find code object for all current "
        "devices!\n\ni have an rx 6600 and a i5 8400 i just want to try an old model for gpu test and it "
        "just spits out hipErrorNoBinaryForGpu: Unable to find code object for all current devices! every "
        "time i dont know much about ROCm or anything and would like to know  if i did something wrong im "
        "using arch and installed rocm with AUR like this \nyay -S rocm-hip-sdk rocm-opencl-sdk",
        # AshleyYakeley/stable-diffusion-rocm#4 (the reporter: the variable 'tricks ROCm into treating your
        # card as a Navi 21 card')
        "making attention of type 'vanilla' with 512 in_channels\n\"hipErrorNoBinaryForGpu: Unable to find "
        'code object for all current devices!"\nAborted (core dumped)',
        # gbtb/nix-stable-diffusion#10 ('export HSA_OVERRIDE_GFX_VERSION=10.3.0 worked on my navi10 card')
        "$ python scripts/preload_models.py\n/opt/amdgpu/share/libdrm/amdgpu.ids: No such file or "
        'directory\n"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!"',
    ]
    for text in linux:
        lead = _led_by(text, "cuda.no_kernel_image")
        assert "HSA_OVERRIDE_GFX_VERSION=10.3.0" in lead.fix.text and "gfx" in lead.cause, _said(lead)
    # CS1o/Stable-Diffusion-Info#33 (the guide's author: the custom gfx1201 files made for HIP SDK 6.2)
    windows = (
        "I followed your guide for ComfyUI with ZLUDA, and ran into the issue of \n```\nrocBLAS error: "
        "Cannot read C:\\Program Files\\AMD\\ROCm\\6.2\\bin/rocblas/library/TensileLibrary.dat: No such "
        "file or directory for GPU arch : gfx1201\nrocBLAS error: Could not initialize Tensile host\n```"
    )
    lead = _led_by(windows, "cuda.no_kernel_image")
    assert any("gfx1201" in line for line in lead.evidence), lead.evidence
    assert "rocblas.dll" in lead.fix.text and "library" in lead.fix.text, lead.fix.text


def test_a_dtype_the_apple_gpu_lacks_is_named_with_the_dtype_it_can_take() -> None:
    # MPS maps each dtype to a Metal type and refuses the rest: 'Trying to convert X to the MPS backend but
    # it does not have support for that dtype.' The threads cast to a dtype MPS has or used other weights.
    cases = [
        # orchidas/DiffGFDN#3 (the owner: 'explicitly cast everything to float32 and complex64')
        (
            "# MPS cannot handle double data type\n\nAfter merging the GPU implementation, which does a "
            "stricter check for the datatypes before passing them onto the training device, I am getting "
            "errors when calling the collate function:\n``TypeError: Trying to convert ComplexDouble to the "
            "MPS backend but it does not have support for that dtype.``",
            "ComplexDouble",
            "complex64",
        ),
        # Comfy-Org/ComfyUI#10866 (an fp8 checkpoint on a Mac)
        (
            "Requested to load WAN22_S2V\n0 models unloaded.\n!!! Exception during processing !!! Trying to "
            "convert Float8_e4m3fn to the MPS backend but it does not have support for that dtype.",
            "Float8_e4m3fn",
            "fp16",
        ),
        # pytorch/pytorch#148420
        (
            "MPS use Flux.1\n\nError：Trying to convert Float8_e4m3fn to the MPS backend but it does not "
            "have support for that dtype.",
            "Float8_e4m3fn",
            "GGUF",
        ),
    ]
    for text, dtype, remedy in cases:
        lead = _led_by(text, "mps.dtype_unsupported")
        assert any(dtype in line for line in lead.evidence), lead.evidence
        assert remedy in lead.fix.text, lead.fix.text


def test_moving_a_bitsandbytes_quantized_model_is_refused_and_the_move_is_named() -> None:
    # transformers refuses .to() and .cuda() on a model loaded in 4-bit or 8-bit with bitsandbytes: it is on
    # its device already. The threads removed the call (or upgraded bitsandbytes and transformers).
    cases = [
        # kyegomez/swarms#450 (merged: 'Remove breaking .to(device)')
        (
            "Remove breaking .to(device) \nIssue:\n```python\nValueError: `.to` is not supported for "
            "`4-bit` or `8-bit` bitsandbytes models. Please use the model as it is, since the model has "
            "already been set to the correct devices and casted to the correct `dtype`.\n```",
            None,
        ),
        # FoundationVision/Groma#15 (the author: 'How about deleting `.cuda()`')
        (
            '  File "/mnt/zhang/project/Groma-main/groma/eval/run_groma.py", line 58, in eval_model\n    '
            "model = "
            "GromaModel.from_pretrained(model_name, **kwargs).cuda()        \n  File "
            '"/opt/conda/envs/groma/lib/python3.9/site-packages/transformers/modeling_utils.py", line 1998, '
            "in "
            "cuda\n    raise ValueError(\nValueError: Calling `cuda()` is not supported for `4-bit` or "
            "`8-bit` quantized models. Please use the model as it is, since the model has already been set "
            "to the correct devices and casted to the correct `dtype`.",
            "run_groma.py, line 58",
        ),
        # nuprl/MultiPL-E#137 (the reporter: 'Remove .cuda from line 16 of automodel.py')
        (
            '  File "/content/MultiPL-E/automodel.py", line 16, in __init__\n    ).cuda()\n  File '
            '"/usr/local/lib/python3.10/dist-packages/accelerate/big_modeling.py", line 454, in wrapper\n   '
            " "
            "return fn(*args, **kwargs)\n  File "
            '"/usr/local/lib/python3.10/dist-packages/transformers/modeling_utils.py", line 2543, in cuda\n '
            "   "
            "raise ValueError(\nValueError: Calling `cuda()` is not supported for `4-bit` or `8-bit` "
            "quantized models. Please use the model as it is, since the model has already been set to the "
            "correct devices and casted to the correct `dtype`.",
            "automodel.py, line 16",
        ),
        # D3voz/joy-caption-alpha-two-gui-mod#2 (comment out text_model.to(device); or transformers 4.47.0)
        (
            "I got the error:\n`An error occurred while loading models: .to is not supported for 4-bit or "
            "8-bit bitsandbytes models. Please use the model as it is, since the model has already been set "
            "to the correct devices and casted to the correct dtype.`\nwhen trying to load the models.",
            None,
        ),
    ]
    for text, where in cases:
        lead = _led_by(text, "bitsandbytes.quantized_model_moved")
        said = _said(lead)
        assert "remove" in lead.fix.text.lower() and "upgrade bitsandbytes" in lead.fix.text.lower(), said
        if where is not None:
            assert any(where in line for line in lead.evidence), lead.evidence


def test_a_package_whose_compiled_c_ops_failed_to_load_was_installed_without_building_them() -> None:
    # GroundingDINO and the projects built on it import their compiled _C inside a try ('Failed to load custom
    # C++ ops. Running on CPU mode Only!'), so an install that built no CUDA op shows as "name '_C' is not
    # defined" where the op is called. The threads rebuilt it with CUDA_HOME set and the GPU visible.
    cases = [
        # ok-robot/ok-robot#4 (the reporter: 'I solved this problem by installing GroundingDINO, with python
        # setup.py build / python setup.py install')
        "I' m using cuda 11.8+torch2.1.0, same as our repo.\nWhile running `python demo.py --debug`, I can "
        "choose pick/place and object. Then error occurs as `NameError: name '_C' is not defined`.",
        # HeliosZhao/Make-A-Protagonist#6 (a reply: 'This error due to your GroundingDINO building without
        # nvcc'; the maintainer: rebuild)
        "# name '_C' is not defined",
        # longzw1997/Open-GroundingDino#7 (the maintainer: build the CUDA ops, cd models/GroundingDINO/ops,
        # python setup.py build install)
        '# Error: "Failed to load custom C++ ops. Running on CPU mode Only!"\n\n请问是对单卡的显存要求高吗',
    ]
    for text in cases:
        lead = _led_by(text, "extension.not_built")
        assert "CUDA_HOME" in lead.fix.text and "setup.py" in lead.fix.text, lead.fix.text
        assert any("_C" in line or "C++ ops" in line for line in lead.evidence), lead.evidence


def test_an_extension_built_on_first_use_that_failed_names_the_toolkit_and_the_cache() -> None:
    # torch.utils.cpp_extension.load (StyleGAN2/3's upfirdn2d, bias_act and filtered_lrelu plugins) builds
    # with ninja, nvcc and the host compiler on first use; a failed or interrupted build leaves no .so, or a
    # lock in the torch_extensions cache. The threads installed nvcc (a CUDA toolkit of torch's release),
    # ninja, or deleted the cache.
    cases = [
        # NVlabs/stylegan2-ada-pytorch#97 (a user: conda's cuda-toolkit 'lacked nvcc'; installing the
        # toolkit fixed it)
        "ninja: build stopped: subcommand failed.\n  warnings.warn('Failed to build CUDA kernels for "
        "bias_act. Falling back to slow reference implementation. Details:\\n\\n' + "
        "traceback.format_exc())\nSetting up "
        'PyTorch plugin "upfirdn2d_plugin"... Failed!',
        # rotemtzaban/STIT#5 (the maintainer: 'StyleGAN2 requires having CUDA toolkit 11.0 or later')
        'Setting up PyTorch plugin "upfirdn2d_plugin"... '
        "Failed!\n/mnt/95d2aa3d-99e9-4600-91b1-2fcecff0dec5/AI_Tools/STIT/torch_utils/ops/upfirdn2d.py:34: "
        "UserWarning: Failed to build CUDA kernels for upfirdn2d. Falling back to slow reference "
        "implementation. Details:\nsubprocess.CalledProcessError: Command '['ninja', '-v']' returned "
        "non-zero exit status 1.",
        # camlab-ethz/ConvolutionalNeuralOperator#4 (the maintainer: 'You need to install cuda toolkit and
        # ninja')
        'Setting up PyTorch plugin "filtered_lrelu_plugin"... Failed!',
        # justinpinkney/clip2latent#9 (the maintainer: 'make sure you have ninja installed? `pip install
        # ninja`')
        '# Setting up PyTorch plugin "bias_act_plugin"... Failed!',
        # NVlabs/stylegan2-ada-pytorch#215 (the .so the failed build never wrote)
        "~/.cache/torch_extensions/upfirdn2d_plugin/upfirdn2d_plugin.so: cannot open shared object file: No "
        "such file or directory\n  warnings.warn('Failed to build CUDA kernels for upfirdn2d. Falling back "
        "to slow reference implementation.",
    ]
    for text in cases:
        lead = _explained(text)[0]
        said = _said(lead)
        assert "nvcc" in said and "pip install ninja" in said and "torch_extensions" in said, (lead.id, said)
    # NVlabs/stylegan3#82 (the maintainer: an interrupted build leaves a lock file; a user: 'Completely
    # remove: $HOME/.cache/torch_extensions ... This fixed it for me')
    hang = (
        "I am attempting to use your library and my first step was to try to use one of the pre-trained "
        "network example.  However, was calling the generator, it keeps getting stuck at this message:\n> "
        'Setting up PyTorch plugin "bias_act_plugin"... '
    )
    lead = _led_by(hang, "extension.build_failed")
    assert "lock" in lead.cause and "rm -rf ~/.cache/torch_extensions" in _said(lead), _said(lead)


def test_weights_left_on_the_meta_device_are_a_model_offloaded_because_it_did_not_fit() -> None:
    # accelerate leaves on 'meta' (shapes without data) the layers device_map="auto" offloads when the GPU is
    # too small; running or moving the model then meets them. The threads loaded it to fit one device
    # (8-bit, device_map={'': 0}, a larger GPU) or without device_map (low_cpu_mem_usage=False).
    cases = [
        # tloen/alpaca-lora#368 (users: 'device_map="auto" was still offloading to cpu'; 8-bit on one GPU):
        # the title, then the traceback's last frames as the excerpt shows them
        (
            "# NotImplementedError: Cannot copy out of meta tensor; no data!\n\n"
            '  File "/Users/assmdx/llma/ld/alpaca-lora/finetune.py", line 236, in train\n    trainer = '
            'transformers.Trainer(\n  File "/Users/assmdx/llma/ld/lib/python3.10/site-packages/transformers/'
            'trainer.py", line 498, in __init__\n    self._move_model_to_device(model, args.device)',
            None,
        ),
        # vllm-project/llm-compressor#1432 (the reporter: 'The problem was with the offloading. It is working
        # perfectly when I use only the GPU or the CPU.')
        (
            "I am encountering the following error when using device_map=auto. However, it is okay with the "
            "CPU. Has anyone encountered this issue before? I was trying to run the "
            "examples/awq_one_shor.py file. How can I solve this error?\n`NotImplementedError: Cannot copy "
            "out of meta tensor; no data!`",
            "device_map=auto",
        ),
        # InternLM/xtuner#273 (the reporter: low_cpu_mem_usage=False 'solved' it, 'not to pass the
        # device_map parameter')
        ("# NotImplementedError: Cannot copy out of meta tensor; no data!", None),
        # generative-ai-on-aws/generative-ai-on-aws#4 (the reporter: 'It seems to be insufficient VRAM')
        (
            "# NotImplementedError: Cannot copy out of meta tensor; no data!\n\nI am following along on "
            "this notebook for Llama 2 finetuning. \nhttps://github.com/generative-ai-on-aws/"
            "generative-ai-on-aws/blob/9155632d0c30ae40a0d60240b95495db73b4d7e1/05_finetune/"
            "01_fine_tune_dolly_llama2_huggingface.ipynb\nI am running a AWS Sagemaker studio with an "
            "ml.g5xlarge instance and Sagemaker Distribution 1.2.",
            None,
        ),
    ]
    for text, shown in cases:
        lead = _led_by(text, "meta.weights_without_data")
        said = _said(lead)
        assert "offload" in lead.cause and "load_in_8bit" in said and "low_cpu_mem_usage=False" in said, said
        if shown is not None:
            assert any(shown in line for line in lead.evidence), lead.evidence
    # torch's own words with a GPU: xorbitsai/inference#1486 (the reporter:
    # '是资源不够，我使用量化int4就好了': not enough resources, int4 quantization fixed it)
    lead = _led_by(
        "# Tensor on device meta is not on the expected device cuda:0!", "meta.weights_without_data"
    )
    assert "load_in_4bit" in lead.fix.text
    # with the GPU's memory the writer gives (constructed)
    text = "RuntimeError: Tensor on device meta is not on the expected device cuda:0!\nMy GPU has 6GB."
    lead = _led_by(text, "meta.weights_without_data")
    assert any("6GB" in line for line in lead.evidence), lead.evidence
    # torchdoctor run's emulated GPUs live on 'meta': a CPU tensor meeting one is still a device mismatch
    assert _ids("RuntimeError: Tensor on device cpu is not on the expected device meta!") == [
        "tensors.different_devices"
    ]


def test_an_absurd_request_from_a_compiled_rasterizer_is_the_extension_built_for_another_gpu() -> None:
    # A CUDA extension built for another GPU or CUDA (3D Gaussian splatting's diff_gaussian_rasterization and
    # simple_knn) computes a garbage buffer size: tens of thousands of GiB, or more than the GPU has. The
    # threads rebuilt it on this GPU (TORCH_CUDA_ARCH_LIST, the build folder removed) or with another toolkit.
    cases = [
        # donydchen/mvsplat#104 (the maintainer: compile diff-gaussian-rasterization on the target GPU)
        "# torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 131062.02 GiB. GPU 0 has a total "
        "capacity of 44.53 GiB of whic",
        # graphdeco-inria/diff-gaussian-rasterization#93 (the reporter: 'Solved. use cuda toolkit version of
        # 11.8 in conda env instead.')
        "# Tried to allocate 131060.03 GiB\n\nHello,\nThank you for the work!\nI am using GPS_Gaussian "
        "which uses your library for Gaussian rendering. The compilation with `pip install -e "
        "submodules/diff-gaussian-rasterization` is OK. But the problem starts from here `num_rendered, "
        "color, radii, geomBuffer, binningBuffer, imgBuffer, invdepths = _C.rasterize_gaussians(*args)`, it "
        "reports to allocate 131TB memory which is weird.",
        # ashawkey/diff-gaussian-rasterization#27 ('you compiled this lib on one type of GPU, and try to call
        # this lib on another type')
        "# Solution for CUDA out of memory, trying to allocate 133792483MiB",
    ]
    for text in cases:
        lead = _led_by(text, "cuda.out_of_memory")
        said = _said(lead)
        assert "TORCH_CUDA_ARCH_LIST" in said and "extension" in lead.cause, said
    # graphdeco-inria/gaussian-splatting#99: simple_knn's own allocation (two commenters: the rebuild with
    # TORCH_CUDA_ARCH_LIST solved it)
    text = (
        '  File "C:\\gaussian-splatting\\scene\\gaussian_model.py", line 134, in create_from_pcd\n'
        "    dist2 = torch.clamp_min(distCUDA2(torch.from_numpy(np.asarray(pcd.points)).float().cuda()), "
        "0.0000001)\nMemoryError: bad allocation: cudaErrorMemoryAllocation: out of memory"
    )
    lead = _led_by(text, "cuda.out_of_memory")
    assert "TORCH_CUDA_ARCH_LIST" in _said(lead) and "distCUDA2" in " ".join(lead.evidence), lead.evidence


def test_no_gpu_messages_raised_while_torch_load_restores_cuda_tensors_name_map_location() -> None:
    # torch.load puts each tensor back on the device it was saved from, so a checkpoint saved on a GPU asks
    # for CUDA on a machine (or a torch) without it; the fix is map_location, not a driver or a CUDA build.
    cases = [
        # twtygqyy/pytorch-vdsr#7 (the maintainer's change: torch.load(opt.model, map_location=lambda
        # storage, loc: storage))
        (
            "When running test.py on an image with default parameters, the following is output:\nTraceback "
            '(most recent call last):\n  File "test.py", line 39, in <module>\n    model = '
            'torch.load(opt.model)["model"]\n  File '
            '"/home/jack/.local/lib/python3.6/site-packages/torch/serialization.py", line 231, in load\n    '
            "return _load(f, map_location, pickle_module)\n  File "
            '"/home/jack/.local/lib/python3.6/site-packages/torch/serialization.py", line 379, in _load\n   '
            " result = unpickler.load()\n  File "
            '"/home/jack/.local/lib/python3.6/site-packages/torch/cuda/__init__.py", line 266, in '
            "_lazy_new\n    _lazy_init()\n  File "
            '"/home/jack/.local/lib/python3.6/site-packages/torch/cuda/__init__.py", line 84, in '
            "_lazy_init\n    _check_driver()\n  File "
            '"/home/jack/.local/lib/python3.6/site-packages/torch/cuda/__init__.py", line 58, in '
            '_check_driver\n    http://www.nvidia.com/Download/index.aspx""")\nAssertionError: '
            "\nFound no NVIDIA driver on your system. Please check that you\nhave an NVIDIA GPU and "
            "installed a driver from\nhttp://www.nvidia.com/Download/index.aspx",
            "cuda.no_driver",
        ),
        # pytorch/pytorch#992 ('serialization storage remapping is trying to load somewhere in the codepath')
        (
            "> I get an error when loading a cuda tensor on a CPU only machine.  Here is the code I use: "
            "https://gist.github.com/jzbontar/b50f8c9dd22e49ff68c7c91dad63166a. The error is: "
            "AssertionError('\\nFound no NVIDIA driver on your system... Both machines use pytorch version "
            "0.1.10.",
            "cuda.no_driver",
        ),
        # pytorch/pytorch#7921 (torch 0.4's error for a CUDA tensor loaded on a CPU-only machine; the merged
        # change makes torch.load say to use map_location)
        (
            "Before, doing torch.load(...) on a CUDA tensor on a CPU-only machine\nwould raise an "
            "unreadable error:\n\n```\n~/pytorch/pytorch/torch/cuda/__init__.py in __enter__(self)\n    223 "
            "        if self.idx is -1:\n    224             return\n--> 225         self.prev_idx = "
            "torch._C._cuda_getDevice()\n    226         if self.prev_idx != self.idx:\n    227             "
            "torch._C._cuda_setDevice(self.idx)\n\nAttributeError: module 'torch._C' has no attribute "
            "'_cuda_getDevice'\n```",
            "torch.not_compiled_with_cuda",
        ),
    ]
    for text, entry_id in cases:
        lead = _led_by(text, entry_id)
        assert "map_location='cpu'" in lead.fix.text and "torch.load" in lead.cause, _said(lead)
    # the same messages with no checkpoint in sight keep their own reading
    lead = _led_by("AssertionError: Torch not compiled with CUDA enabled", "torch.not_compiled_with_cuda")
    assert "map_location" not in lead.fix.text


def test_pack_padded_sequences_lengths_on_the_gpu_must_move_to_the_cpu() -> None:
    # From torch 1.7, pack_padded_sequence takes its lengths only as a CPU int64 tensor (or a list): code
    # written for 1.5 and 1.6 passes lengths that sit on the GPU with the batch. The threads added .cpu().
    cases = [
        # YiwuZhong/Sub-GC#15 (the maintainer: 'you can simply "a.cpu()"')
        (
            " _pack_padded_sequence() code line I faced RuntimeError: 'lengths' argument should be a 1D CPU "
            "int64 tensor, but got 1D cuda:0 Long tensor. how to resolve this error?",
            "cuda:0",
        ),
        # LauraRuis/multimodal_seq2seq_gSCAN#2 (merged: 'Transfer lengths argument to CPU')
        (
            'File "anaconda3/envs/gscan/lib/python3.7/site-packages/torch/nn/utils/rnn.py", line 244, in '
            "pack_padded_sequence\n    _VF._pack_padded_sequence(input, lengths, batch_first)\nRuntimeError: "
            "'lengths' argument should be a 1D CPU int64 tensor, but got 1D cuda:0 Long tensor",
            "cuda:0",
        ),
        # molecularsets/moses#97 (another GPU: cuda:1)
        (
            "# RuntimeError: 'lengths' argument should be a 1D CPU int64 tensor, but got 1D cuda:1 Long "
            "tensor\n\nI run the code  use cuda, but I face this problem, so how can I solvie the problem?",
            "cuda:1",
        ),
        # shenweichen/DeepCTR-Torch#240 (works on the CPU, fails with cuda): the title
        (
            "# Getting \"RuntimeError: 'lengths' argument should be a 1D CPU int64 tensor, but got 1D cuda:0 "
            'Long tensor"',
            "cuda:0",
        ),
    ]
    for text, device in cases:
        lead = _led_by(text, "rnn.lengths_on_gpu")
        assert "lengths.cpu()" in lead.fix.text and "1.7" in lead.cause, _said(lead)
        assert any(device in line for line in lead.evidence), lead.evidence


def test_nvidia_apex_missing_is_built_from_its_github_source_not_pip_installed() -> None:
    # NVIDIA apex (amp, fused optimizers, SyncBatchNorm) is not on PyPI under its name: 'pip install apex'
    # and 'apexpy' are other packages. The threads built it from github.com/NVIDIA/apex.
    cases = [
        # mjq11302010044/RRPN_pytorch#10 (a reply: git clone https://github.com/NVIDIA/apex.git, setup.py
        # install --cuda_ext --cpp_ext)
        "# No module named 'apex'\n\nwhen i test the demo.py, it put out this problem. could you give some "
        "advice.",
        # yxgeee/MMT-plus#4 (the maintainer: 'You need to install `apex` (https://github.com/NVIDIA/apex).')
        "# ModuleNotFoundError: No module named 'apex'\n\nWhen I run `CUDA_VISIBLE_DEVICES=0 "
        "./scripts/test.sh $ARCH_REID $PATH_REID $ARCH_CAMERA $PATH_CAMERA`.",
        # p-lambda/incontext-learning#3 (the maintainer: the steps to build apex from its git repository)
        "# pip install apex==0.1 not found\n\npip install apex==0.1 not found.\nIs there any alternate for "
        "this.\n\nI tried to pip install apex ( latest version of apex ), will it be sufficient",
    ]
    for text in cases:
        lead = _led_by(text, "apex.not_installed")
        said = _said(lead)
        assert "git clone https://github.com/NVIDIA/apex" in said and "PyPI" in lead.cause, said


def test_mmcv_compiled_for_want_of_a_prebuilt_wheel_gets_the_openmmlab_wheel_index() -> None:
    # mmcv-full on PyPI is a source archive that compiles its CUDA ops (and needs a CUDA toolkit); OpenMMLab
    # publishes built wheels per torch and CUDA pair. The maintainers pointed to the pre-built package.
    cases = [
        # open-mmlab/mmdetection#7418 (pip compiling mmcv-full's setup.py)
        "python setup.py egg_info did not run successfully.\n  │ exit code: 1\n  ╰─> [14 lines of output]\n "
        "     "
        'Traceback (most recent call last):\n        File "<string>", line 2, in <module>\n        File '
        '"<pip-setuptools-caller>", line 34, in <module>\n        File '
        '"/tmp/pip-install-q9gvk_ly/mmcv-full_7aa35194dee441b2bf1af874ee187013/setup.py", line 389, in '
        "<module>\n          ext_modules=get_extensions(),\n        File "
        '"/tmp/pip-install-q9gvk_ly/mmcv-full_7aa35194dee441b2bf1af874ee187013/setup.py", line 308, in '
        "get_extensions\n          ext_ops = extension(\n        File "
        '"/home/xl/anaconda3/envs/torch/lib/python3.9/site-packages/torch/utils/cpp_extension.py", line 867, '
        "in CUDAExtension\n          library_dirs += library_paths(cuda=True)\n        File "
        '"/home/xl/anaconda3/envs/torch/lib/python3.9/site-packages/torch/utils/cpp_extension.py", line 975, '
        "in library_paths\n          if (not os.path.exists(_join_cuda_home(lib_dir)) and\n        File "
        '"/home/xl/anaconda3/envs/torch/lib/python3.9/site-packages/torch/utils/cpp_extension.py", line '
        "1982, in _join_cuda_home\n          raise EnvironmentError('CUDA_HOME environment variable is not "
        "set. '\n      OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA "
        "install root.",
        # open-mmlab/mmgeneration#517 (mim found no wheel for torch 2.5.0 and cu121 and compiled the archive)
        "mim install mmcv-full\n\nNo modifications were made to the code. I am using vast.ai cloud GPU "
        "environment 'pytorch_2.5.0-cuda12.1-cudnn9-runtime'.\n\nError trackeback. \n\n```Looking in links: "
        "https://download.openmmlab.com/mmcv/dist/cu121/torch2.5.0/index.html\nCollecting mmcv-full\n  "
        "Using cached mmcv-full-1.7.2.tar.gz (607 kB)\n  Preparing metadata (setup.py) ... error\n  error: "
        "subprocess-exited-with-error",
    ]
    # open-mmlab/mmcv#3217: the writer's own install command, and no nvcc where CUDA_HOME points
    cases.append(
        "CUDA_HOME=~/miniconda3/envs/env_name/lib/python3.10/site-packages/nvidia pip install mmcv-full \n\n"
        "### Reproduces the problem - command or script\n\n"
        "CUDA_HOME=~/miniconda3/envs/env_name/lib/python3.10/site-packages/nvidia mim install mmcv-full \n\n"
        "### Reproduces the problem - error message\n\n    error: [Errno 2] No such file or directory: "
        "'~/miniconda3/envs/env_name/lib/python3.10/site-packages/nvidia/bin/nvcc'"
    )
    for text in cases:
        lead = _explained(text)[0]
        said = _said(lead)
        assert "download.openmmlab.com/mmcv/dist" in said and "pre-built" in said, (lead.id, said)


def test_no_module_named_torch_is_torch_missing_from_the_python_that_runs_the_program() -> None:
    # The CUDA toolkit or driver installs no torch; pip and python can be two environments; sudo runs the
    # system's Python; pip builds a package that imports torch in an isolated environment without it.
    cases = [
        # pytorch/pytorch#172808 (a maintainer: 'pip and python commands look at different environment.
        # Using `python -m pip` instead of `pip`'): the title, then the description from 'when i do'
        (
            "# ModuleNotFoundError: No module named 'torch'\n\nwhen i do `pip list'\nI can see the below "
            "packages installed \n```\ntorch                    2.9.1+cu130\ntorchvision              "
            "0.24.1+cu130\n\n```\n\nBut when i do `import torch` it says No module .",
            "python -m pip install torch",
        ),
        # NVIDIA-AI-IOT/trt_pose#137 (the reporter: 'I had not installed torch, torchvision, and torchaudio
        # on sudo')
        (
            "I am trying to run this line from `README.md`: `sudo python3 setup.py install --plugins` in "
            "part 2 of it, but I keep getting the error ```ModuleNotFoundError: No module named 'torch'```.",
            "sudo",
        ),
        # lkwq007/stablediffusion-infinity#168
        (
            "# No module named 'torch'\n\nHello,\n\nI installed the program on Windows as instructed, but "
            "I'm "
            'encountering the aforementioned "no module named torch" error, even if it\'s now installed in '
            "said "
            "environment.",
            "python -m pip install torch",
        ),
        # ridgerchu/matmulfreellm#8 (pip building the package: torch absent from its build environment)
        ("# Error on pip install: ModuleNotFoundError: No module named 'torch'", "--no-build-isolation"),
    ]
    for text, said in cases:
        lead = _led_by(text, "torch.not_installed")
        assert said in _said(lead), _said(lead)
    # a module of torch missing, or a companion, is not torch missing
    assert "torch.not_installed" not in _ids("ModuleNotFoundError: No module named 'torchvision'")
    assert "torch.not_installed" not in _ids("ModuleNotFoundError: No module named 'torch._six'")


def test_a_device_mismatch_inside_an_installed_library_names_the_library_and_its_upgrade() -> None:
    # The failing statement is the library's: its bug, fixed in a later release (darts 0.11.0,
    # neuralforecast's losses made modules in PR #311, gcastle 1.0.3rc3), or an object the program did not
    # move (torchmetrics#917). Nixtla/neuralforecast#307, from Colab:
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
    lead = _led_by(text, "tensors.different_devices")
    assert any("inside the installed package neuralforecast" in line for line in lead.evidence), lead.evidence
    assert "neuralforecast's code" in lead.cause and "Upgrade neuralforecast" in lead.fix.text
    # the program's own file is not a library (pxq0312/SFANet-crowd-counting#5)
    own = (
        'Traceback (most recent call last):\n  File "train.py", line 90, in <module>\n    mae += '
        "torch.abs(predict.sum() - gt).item()\nRuntimeError: Expected all tensors to be on the same "
        "device, but found at least two devices, cuda:0 and cpu!"
    )
    lead = _led_by(own, "tensors.different_devices")
    assert not any("installed package" in line for line in lead.evidence), lead.evidence


def test_a_cpu_only_torch_on_a_mac_named_in_any_case_or_form_is_the_mps_device() -> None:
    # A Mac as users name it beside "Torch not compiled with CUDA enabled" (title and description joined):
    # each thread's fix was device 'mps' or the CPU.
    cases = [
        # dwrensha/acronymy-assistant#2 (the reporter: 'yah mps works')
        (
            "# AssertionError: Torch not compiled with CUDA enabled\n\nnot sure why..? im on an m1 macbook "
            "pro if that helps.",
            "m1 macbook",
        ),
        # vietai/mTet#7 (the maintainer: 'just remove .to('cuda') to run the model on CPU')
        (
            "# Got error 'AssertionError: Torch not compiled with CUDA enabled' on Macbook M1 pro\n\nI have "
            "tried the example on my Macbook M1 pro but got this error:\n=>outputs = "
            "model.generate(tokenizer(inputs, return_tensors=\"pt\", padding=True).input_ids.to('cuda'), "
            'max_length=512)\nraise AssertionError("Torch not compiled with CUDA enabled")\nAssertionError: '
            "Torch not compiled with CUDA enabled",
            "Macbook",
        ),
        # yuvraj108c/ComfyUI-FLOAT#23 (the maintainer points to a fork that supports mps)
        (
            "# Torch not compiled with CUDA enabled\n\nis this possible to support mps? \n\nas an apple "
            "silicon user, it reports error - Torch not compiled with CUDA enabled when loading the float "
            "model.",
            "apple silicon",
        ),
        # nlpyang/PreSumm#159 (a later answer: device = "mps" instead of device="cuda")
        (
            "# (OSX) Torch not compiled with CUDA enabled\n\nReceiving assertion error below. "
            "\n`AssertionError: Torch not compiled with CUDA enabled`\nCheck links [pytorch issue "
            "30664](https://github.com/pytorch/pytorch/issues/30664), which seems focused on PC. Is there "
            "work around for Mac where CUDA-capable GPUs aren't available?",
            "OSX",
        ),
    ]
    for text, named in cases:
        lead = _led_by(text, "torch.not_compiled_with_cuda")
        assert f"the text names a Mac ({named}), which is no CUDA device" in lead.evidence, lead.evidence
        assert "'mps'" in lead.fix.text and "CPU" in lead.fix.text
    # Bayi-Hu/BERT4ETH_PyTorch#4 (fix: --device default 'mps'); without the word Macbook (constructed)
    chip = (
        "For people who use their Macbook with an M series chip, when you run into a problem like \n\n> "
        "AssertionError: Torch not compiled with CUDA enabled"
    )
    for text, named in ((chip, "Macbook"), (chip.replace("their Macbook with ", ""), "M series chip")):
        lead = _led_by(text, "torch.not_compiled_with_cuda")
        assert f"the text names a Mac ({named}), which is no CUDA device" in lead.evidence, lead.evidence
    # NVIDIA's Tesla M4 and M40, and a MAC address, are no Mac (constructed)
    for text in (
        "Torch not compiled with CUDA enabled on a Tesla M40 machine",
        "Torch not compiled with CUDA enabled; the MAC address of the node is printed above",
    ):
        assert not any("a Mac" in line for e in _explained(text) for line in e.evidence), text


def test_an_out_of_memory_on_a_gpu_of_four_gib_or_less_says_the_gpu_is_small() -> None:
    # Each thread was answered with the GPU's size: "4GB memory might be not enough"
    # (cherubicXN/afm_cvpr2019#8), "It will require a change in voxel sizes in order to fit 2GB GPU memory"
    # (zju3dv/NeuralRecon#49), "1G of GPU is really small" (MichalBusta/E2E-MLT#37).
    cases = [
        (
            "RuntimeError: CUDA out of memory. Tried to allocate 25.00 MiB (GPU 0; 3.94 GiB total capacity; "
            "3.14 GiB already allocated; 21.56 MiB free; 634.00 KiB cached)\n  \ndo you have this "
            "problem?how to deal with it?",
            "3.94 GiB",
        ),
        (
            "Because my gpu memory is too small, when I run demo.py I get the following "
            "error\n`RuntimeError: CUDA out of memory. Tried to allocate 666.00 MiB (GPU 0; 2.00 GiB total "
            "capacity; 557.62 MiB already allocated; 549.02 MiB free; 662.00 MiB reserved in total by "
            "PyTorch)`\nHow do I modify the code so that it can run on 2G memory, thanks!",
            "2.00 GiB",
        ),
        (
            "Hello, I have met a problem when training the model as follow:\n\n**RuntimeError: CUDA out of "
            "memory. Tried to allocate 128.00 MiB (GPU 0; 983.69 MiB total capacity; 209.53 MiB already "
            "allocated; 69.56 MiB free; 6.47 MiB cached)**\n\ncould you give me any solutions?\nThank you!",
            "0.96 GiB",
        ),
    ]
    for text, size in cases:
        lead = _led_by(text, "cuda.out_of_memory")
        assert f"a small GPU: {size} in all" in lead.evidence, lead.evidence
        assert f"This GPU is small ({size} in all)" in lead.cause and "GPU with more memory" in lead.fix.text
    # a 5.80 GiB GPU is not one (constructed from the first message)
    lead = _led_by(cases[0][0].replace("3.94 GiB total", "5.80 GiB total"), "cuda.out_of_memory")
    assert not any(line.startswith("a small GPU") for line in lead.evidence), lead.evidence


def test_a_no_gpu_message_from_a_writer_asking_to_run_on_the_cpu_is_read_as_that_wish() -> None:
    # "Found no NVIDIA driver" where the writer wants the CPU: the fix was the program's CPU option or
    # removing its .cuda() calls, not installing a driver.
    cases = [
        # junyanz/pytorch-CycleGAN-and-pix2pix#734 ('--gpu_ids -1'; the reporter: 'solved!')
        "In the prerequisites is saying CPU or NVIDIA GPU + CUDA CuDNN, is that means I can run without "
        "NVIDIA and CUDA but in CPU? I'm having the error: Found no NVIDIA driver on your system. Please "
        "check that you\nhave an NVIDIA GPU and installed a driver "
        "from\nhttp://www.nvidia.com/Download/index.aspx\nI need to install NVIDIA driver even if I only "
        "use CPU?",
        # shubhtuls/factored3d#5 (the maintainer: comment out the .cuda() calls)
        'Hi,\nI am trying to run "cli_demo.py" on my system which does not have any gpu. Is there any '
        "way to run it on cpu only?\n\nThis is the (partial) error log I'm getting when running cli_demo"
        '.py:\n```\n\nTraceback (most recent call last):\n  File "cli_demo.py", line 32, in <module>\n    '
        'tester.init_testing()\n  File "/home/jelly/factored3d/../factored3d/nnutils/test_utils.py", line '
        "97, in init_testing\n    self.define_model()\n  File "
        '"/home/jelly/factored3d/../factored3d/demo/demo_utils.py", line 131, in define_model\n    '
        'self.load_oc3d_model()\n  File "/home/jelly/factored3d/../factored3d/demo/demo_utils.py", line 91, '
        "in load_oc3d_model\n    self.oc3"
        "d_model = self.oc3d_model.cuda(device_id=self.opts.gpu_id)\n.\n.\n.\nAssertionError: \nFound no "
        "NVIDIA driver on your system. Please check that you\nhave an NVIDIA GPU and installed a driver "
        "from\nhttp://www.nvidia.com/Download/index.aspx\n\n```",
        # ali-vilab/dreamtalk#12 (a project member: pull the latest code and add --device=cpu)
        "Hello,\n\nwhen i run the following command - \n\n```\npython inference_for_demo_video.py "
        "\\\n--wav_path data/audio/acknowledgement_english.m4a \\\n--style_clip_path "
        "data/style_clip/3DMM/M030_front_neutral_level1_001.mat \\\n--pose_path "
        "data/pose/RichardShelby_front_neutral_level1_001.mat \\\n--image_path "
        "data/src_img/uncropped/male_face.png \\\n--cfg_scale 1.0 \\\n--max_gen_len 30 \\\n--output_name "
        "acknowledgement_english@M030_front_neutral_level1_001@male_face\n```\nI get the error "
        "\n\n`RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU "
        "and installed a driver from http://www.nvidia.com/Download/index.aspx`\n\nmy question is if it is "
        "possible to use the cpu instead and if so how to achieve it?\n\nBest regards,\nStanko",
        # ShuweiShao/AF-SfMLearner#39 ('I am using the CPU for this step'; the maintainer: remove .cuda())
        "您好，我正在使用Endovis or "
        "SCARED进行evaluation，在evaluate_depth.py的evaluate(options.parse())"
        "和encoder.cuda()出现了报错信息：RuntimeError: "
        "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a "
        "driver from "
        "http://www.nvidia.com/Download/index.aspx\n运行这一步时我使用的是cpu，请问有办法规避这个报错吗？感谢您的解答",
        # feiyuhuahuo/Yolact_minimal's kind of title: a CPU-only torch (constructed)
        "# How to run on a CPU? It always hints 'Torch not compiled with CUDA enabled'",
    ]
    for text in cases:
        lead = _explained(text)[0]
        assert lead.id in ("cuda.no_driver", "device.run_on_cpu", "torch.not_compiled_with_cuda"), lead.id
        assert "has to be run on the CPU" in lead.cause, (lead.id, lead.cause)
        assert "--gpu_ids -1" in lead.fix.text and ".to(device) in place of .cuda()" in lead.fix.text
    # a program's own log line is no wish of the writer (2noise/ChatTTS's words, constructed): still the
    # driver's message with the driver's fix
    lead = _led_by(
        "WARNING:ChatTTS.utils.gpu_utils:No GPU found, use CPU instead\nRuntimeError: Found no NVIDIA "
        "driver on your system.",
        "cuda.no_driver",
    )
    assert "has to be run on the CPU" not in lead.cause


def test_a_dataloader_worker_that_exited_unexpectedly_is_run_with_num_workers_0() -> None:
    # The threads' fix was num_workers=0 (on Windows the alternative: the script under __main__).
    cases = [
        # buppt/ChineseNRE#23 (a commenter: set num_workers to 0)
        "运行时出现这个问题\nraise RuntimeError('DataLoader worker (pid(s) {}) exited "
        "unexpectedly'.format(pids_str))\n\nRuntimeError: DataLoader worker (pid(s) 16184, 7428) exited "
        "unexpectedly\n应该怎么办？小白求解答，谢谢",
        # michuanhaohao/reid-strong-baseline#29 (the reporter: num_workers changed to 0, it worked)
        "您好，我遇到了raise RuntimeError('DataLoader worker (pid(s) {}) exited "
        "unexpectedly'.format(pids_str))\nRuntimeError: DataLoader worker (pid(s) 15927) exited "
        "unexpectedly的问题，我该怎样解决这个问题啊？谢谢您",
        # xuebinqin/BASNet#32 (the reporter: solved with num_workers=0), on Windows
        "Hi,\nI'm trying to run the test code but i'm getting the following error:\n  File "
        '"C:/CP/DL_REPOSITORIES/BASNet/basnet_test.py", line 76, in <module>\n    for i_test, data_test in '
        "enumerate(test_salobj_dataloader):\n  File "
        '"C:\\ProgramData\\Anaconda3\\lib\\site-packages\\torch\\utils\\data\\dataloader.py", line 345, in '
        "__next__\n    data = self._next_data()\n  File "
        '"C:\\ProgramData\\Anaconda3\\lib\\site-packages\\torch\\utils\\data\\dataloader.py", line 841, in '
        "_next_data\n    idx, data = self._get_data()\n  File "
        '"C:\\ProgramData\\Anaconda3\\lib\\site-packages\\torch\\utils\\data\\dataloader.py", line 808, in '
        "_get_data\n    success, data = self._try_get_data()\n  File "
        '"C:\\ProgramData\\Anaconda3\\lib\\site-packages\\torch\\utils\\data\\dataloader.py", line 774, in '
        "_try_get_data\n    raise RuntimeError('DataLoader worker (pid(s) {}) exited "
        "unexpectedly'.format(pids_str))\nRuntimeError: DataLoader worker (pid(s) 16732) exited "
        "unexpectedly\n\nCan you please help?",
    ]
    for text in cases:
        lead = _led_by(text, "dataloader.worker_exited")
        assert "num_workers=0" in lead.fix.text and "if __name__ == '__main__':" in lead.fix.text
    assert any(line.startswith("the text is on Windows") for line in lead.evidence), lead.evidence
    # the signals other entries read (hezhangsprinter/DCPDN#12's "Killed": host RAM; microsoft/RepPoints#18's
    # bus error: shared memory)
    assert _explained("RuntimeError: DataLoader worker (pid 19597) is killed by signal: Killed.")[0].id == (
        "host.out_of_memory"
    )
    bus = (
        "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared "
        "memory (shm)."
    )
    assert _explained(bus)[0].id == "nccl.shm"


def test_fp8_on_a_gpu_below_compute_capability_8_9_is_a_non_fp8_model_or_no_fast_mode() -> None:
    # FP8 matmuls need Ada (8.9) or newer; each thread's fix was turning off the FP8 fast mode or a non-FP8
    # model (title and description joined; QwenVL#28's excerpt has no title).
    cases = [
        # kijai/ComfyUI-HunyuanVideoWrapper#98 (the maintainer: fp8 fast mode won't work on a 3090; the
        # reporter: that was it)
        (
            "# 3090Ti too old? Error: torch._scaled_mm is only supported on CUDA devices with compute "
            "capability >= 9.0 or 8.9, or ROCm MI300+\n\nI'm getting the following error in the "
            "sampler.\n\n```\ntorch._scaled_mm is only supported on CUDA devices with compute capability >= "
            "9.0 or 8.9, or ROCm MI300+\n```",
            "3090Ti (the GeForce RTX 3090 Ti)",
        ),
        # kijai/ComfyUI-PyramidFlowWrapper#43 (the maintainer: don't use the _fast version)
        (
            "# fp8-e4m3fn_fast : error on CUDA device?! : torch._scaled_mm is only supported on CUDA "
            "devices with compute capability >= 9.0 or 8.9, or ROCm MI300+\n\nHi Folks,I use an RTX 3050 "
            "and the PyramidFlowSampler still gives me the message:\n\n`torch._scaled_mm is only supported "
            "on CUDA devices with compute capability >= 9.0 or 8.9, or ROCm MI300+`\n\nIve installed CUDA "
            "Toolkit, CUDNN 9.0 and use the current driver 565.90\n\n```\n# ComfyUI Error Report\n## Error "
            "Details\n- **Node Type:** PyramidFlowSampler\n- **Exception Type:** RuntimeError\n- "
            "**Exception Message:** torch._scaled_mm is only supported on CUDA devices with compute "
            "capability >= 9.0 or 8.9, or ROCm MI300+\n## Stack Trace\n```\n\nany ideas or solution?",
            "RTX 3050 (the GeForce RTX 3050)",
        ),
        # 1038lab/ComfyUI-QwenVL#28 (the maintainer: use a non-FP8 variant)
        (
            "ERROR: FP8 models require a GPU with Compute "
            "Capability 8.9 or higher (e.g., RTX 4090). Your GPU's capability is 8.6. Please select a "
            "non-FP8 model.\n\n30系 不支持，还是  算力低得卡不支持。",
            "capability is 8.6",
        ),
    ]
    for text, named in cases:
        lead = _led_by(text, "fp8.unsupported")
        assert any(named in line and "below the 8.9 that FP8 needs" in line for line in lead.evidence), (
            lead.evidence
        )
        assert "fast mode" in lead.fix.text and "non-FP8 variant" in lead.fix.text
    # meta-pytorch/float8_experimental#197: an Ada card (8.9) refused by torch 2.2's ">= 9.0": the torch build
    lead = _led_by(
        "# RuntimeError: torch._scaled_mm is only supported on devices with compute capability >= "
        "9.0)\n\nPossible to add support for the NVIDIA Ada Lovelace cards, which have a compute capability "
        "of 8.9?",
        "fp8.unsupported",
    )
    assert any("which has FP8: the torch build is what lacks it" in line for line in lead.evidence)


def test_a_cuda_library_of_one_release_asked_for_by_another_package_than_torch_is_that_packages_build() -> (
    None
):
    # libcublasLt.so.11 asked for by onnxruntime-gpu's CUDA 11 build on a CUDA 12 machine: the threads
    # installed the package's build for the CUDA they had, not another torch.
    cases = [
        # fudan-generative-vision/champ#95 (the maintainer: the CUDA 12 build of onnxruntime-gpu; 'It works')
        (
            "Hi there, I got a issue on the final step of producing my own motion datas,\nwhen I was "
            "running the command: \n\npython -m scripts.data_processors.dwpose.generate_dwpose --input "
            "transferd_result/normal --output transferd_result/dwpose\n\nI got:\n\nFailed to load library "
            "libonnxruntime_providers_cuda.so with error: libcublasLt.so.11: cannot open shared object "
            "file: No such file or directory."
        ),
        # stepfun-ai/Step-Audio-EditX#3 (onnxruntime-gpu 1.17.0 pinned; 1.23.2 worked, the maintainer agreed)
        (
            "why `onnxruntime-gpu` needs to be `1.17.0`?\n\nI got error:\n```\n2025-11-08 "
            "19:02:18.488301611 [E:onnxruntime:Default, provider_bridge_ort.cc:1546 "
            "TryGetProviderInfo_CUDA] "
            "\n/onnxruntime_src/onnxruntime/core/session/provider_bridge_ort.cc:1209 onnxruntime::Provider& "
            "onnxruntime::ProviderLibrary::Get() [ONNXRuntimeError] : 1 : \nFAIL : Failed to load library "
            "libonnxruntime_providers_cuda.so with error: libcublasLt.so.11: cannot open shared object "
            "file: No such file or directory\n\n2025-11-08 19:02:18.488327179 [W:onnxruntime:Default, "
            "onnxruntime_pybind_state.cc:861 CreateExecutionProviderInstance] Failed to create "
            "\nCUDAExecutionProvider. Please reference "
            "https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirementsto "
            "ensure all dependencies \nare met.\n```"
        ),
        # fudan-generative-vision/hallo#203 (nvcc says 12.1; a commenter: the requirements' 1.18.0 is the CUDA
        # 11.x build)
        (
            "When I tried to run‘python scripts/inference.py --source_image examples/reference_images/1.jpg "
            "--driving_audio examples/driving_audios/1.wav',I met the following error:FAIL : Failed to load "
            "library libonnxruntime_providers_cuda.so with error: libcublasLt.so.11: cannot open shared "
            "object file: No such file or directory.\nHere are the information of my cuda:\nnvcc: NVIDIA "
            "(R) Cuda compiler driver\nCopyright (c) 2005-2023 NVIDIA Corporation\nBuilt on "
            "Tue_Feb__7_19:32:13_PST_2023\nCuda compilation tools, release 12.1, V12.1.66\nBuild "
            "cuda_12.1.r12.1/compiler.32415258_0"
        ),
    ]
    for text in cases:
        found = _explained(text)
        # onnxruntime's own "Failed to create CUDAExecutionProvider", where the log has it, may lead: it
        # names the same cause (the package's CUDA build)
        assert found[0].id in ("lib.cannot_open_shared_object", "onnxruntime.cuda_provider"), found
        library = next(e for e in found if e.id == "lib.cannot_open_shared_object")
        assert "libcublasLt.so.11 is asked for by onnxruntime-gpu, not by torch" in " ".join(library.evidence)
        assert library.cause.startswith("The package onnxruntime-gpu was built for CUDA 11")
        assert "made for the CUDA this machine has" in library.fix.text
        assert "Reinstalling torch" in library.fix.text
    # torch's own frames load torch's libraries, whatever package the script imported first (constructed)
    lead = _led_by(
        "from sentence_transformers import SentenceTransformer\n  File "
        '"/usr/lib/python3.8/site-packages/torch/__init__.py", line 191, in _load_global_deps\n    '
        "ctypes.CDLL(lib_path, mode=ctypes.RTLD_GLOBAL)\nOSError: libcublas.so.11: cannot open shared "
        "object file: No such file or directory",
        "lib.cannot_open_shared_object",
    )
    assert not any("asked for by" in line for line in lead.evidence), lead.evidence


def test_an_out_of_memory_names_the_programs_own_batch_setting_in_its_fix() -> None:
    # The threads lowered the setting by its own name: "--batch_size 2" in the command
    # (chaofengc/PSFRGAN#39, the maintainer: "It seems that `--batch_size 2` is in your command"); EDM's
    # batch_gpu, detectron2's IMS_PER_BATCH, mmdetection's samples_per_gpu, "--bs" are read as batch sizes.
    text = (
        "# Cuda ran out of memory.\n\nHello, I am trying to train the enhancer model from scratch, but for "
        "some reason the GPU runs out of memory.\nIt is a 12GB Nvidia gtx 1080, I have set it to batch size "
        "of 1, I have tried using different image sizes (1024,720, and 512).\n\n`python train.py --gpus 1 "
        "--model enhance --name PSFRGAN_V001 --g_lr 0.0001 --d_lr 0.0004 --beta1 0.5 --gan_mode 'hinge' "
        "--lambda_pix 10 --lambda_fm 10 --lambda_ss 1000 --Dinput_nc 22 --D_num 3 --n_layers_D 4 "
        "--batch_size 2 --dataset ffhq --dataroot ./datasets/FFHQ --visual_freq 100 --print_freq 10 "
        "--n_epochs 25`\n\n![Screenshot from 2021-07-07 "
        "11-15-48](https://user-images.githubusercontent.com/15378788/"
        "124716276-f48aa900-df14-11eb-8962-52d502d69ba0.png)\n\nThanks for sharing your work."
    )
    lead = _led_by(text, "cuda.out_of_memory")
    assert "In this program the batch is --batch_size 2: lower --batch_size." in lead.fix.text
    for said in (
        "change IMS_PER_BATCH 64 to 16",
        "batch 128 and batch_gpu 64",
        "samples_per_gpu=2",
        "--bs 8",
    ):
        assert memory_explanations.batches_said(said), said
    # the writer's prose is no setting's name (constructed)
    lead = _led_by("RuntimeError: CUDA out of memory. I lowered the batch size to 4.", "cuda.out_of_memory")
    assert "In this program the batch is" not in lead.fix.text
    # "video memory" is the GPU's (IDEA-Research/DINO#76): no video input is read
    lead = _led_by(
        "# Does this project require a lot of RAM and video memory resources?\n\nDoes this project require "
        "a lot of RAM and video memory resources? I'm using 11GB video memory, batch_size=2, and I get an "
        "error: CUDA out of memory. It only works when I set batch_size to 1.",
        "cuda.out_of_memory",
    )
    assert not any("the input is a video" in line for line in lead.evidence), lead.evidence


def test_a_program_that_runs_on_one_gpu_and_fails_on_several_is_its_multi_gpu_path() -> None:
    # The writer's contrast, read beside whatever the several GPUs printed (title and description joined).
    cases = [
        # shubham-goel/ucmr#10 (the maintainer fixed the multi-GPU path: 'I didn't use multi-gpu training')
        "# Multi-GPU training\n\nHi,\n\nI am trying to run the training code. The code runs well with a "
        "single GPU, but it fails with multiple GPUs:\n`File "
        '"/lib/python3.6/site-packages/torch/nn/parallel/_functions.py", line 54, in forward\n    assert '
        "all(map(lambda i: i.is_cuda, inputs))\nAssertionError` \n\nThe error comes from `File "
        '"/ucmr/src/experiments/camOpt_shape.py", line 635, in forward\n    self.return_dict = '
        "self.model(input_dict)`\n\nI notice that there is data-parallel in your code so I suppose you use "
        "multiple GPUs during training. Could you please let me know how to solve this problem?\n\nThanks!",
        # clvrai/spirl#24 (the maintainer: 'I would resort to single-GPU training')
        "# Caught RuntimeError in replica 1 on device 1.\n\nHi. \nI'm trying to learn a skill prior using "
        "my personal dataset.\nIt works well when using single GPU, but I got the following error when "
        "using multi-GPUs (two RTX 3090)\n\n![Screenshot from 2022-04-18 "
        "19-10-59](https://user-images.githubusercontent.com/25500255/"
        "163793910-1edd29c3-9961-4879-a4eb-bc3cd40e9e3e.png)\n\nHow can I solve this?",
        # lucidrains/byol-pytorch#24 ('ddp' instead of 'dp'; the reporter: solved)
        "# the error of the runing exampe code when i use 2 gpus\n\nHi! When I try to run the Pytorch "
        "lightning example code. the training code is：\ntrainer = pl.Trainer(gpus=2, max_epochs=1000, "
        "distributed_backend='dp')，trainer.fit(model, train_loader)\nI get the following "
        "error：\n“AssertionError: hidden layer avgpool never emitted an output”\nbut when i use 1 gpu "
        "there is no error。can you give me some advice?",
    ]
    for text in cases:
        found = _one(text, "multigpu.only_one_gpu_works")
        assert "CUDA_VISIBLE_DEVICES=0" in found.fix.text and "DistributedDataParallel" in found.fix.text
    # "单卡训练没问题" (yeyupiaoling/VoiceprintRecognition-Pytorch#41's words, the sentence alone)
    assert "multigpu.only_one_gpu_works" in _ids("多卡训练会报错，单卡训练没问题")
    # the other way round, or one GPU without a contrast, is not this (constructed)
    for text in ("It fails on a single GPU, works with two GPUs", "I have 1 GPU and it works fine."):
        assert "multigpu.only_one_gpu_works" not in _ids(text), text


def test_a_name_a_librarys_installed_release_lacks_is_the_release_the_program_was_written_for() -> None:
    # Each thread installed the library's release the program was written for.
    cases = [
        # guoyww/AnimateDiff#367 (the maintainer: tested on diffusers 0.11.1)
        (
            "from diffusers.utils import DIFFUSERS_CACHE, SAFETENSORS_WEIGHTS_NAME, WEIGHTS_NAME, "
            "is_safetensors_available ImportError: cannot import name 'DIFFUSERS_CACHE' from "
            "'diffusers.utils' \n\nWhich version of diffusers should I install? I try on 0.11.1 and newest "
            "version",
            "diffusers",
            "DIFFUSERS_CACHE",
        ),
        # PKU-YuanGroup/MagicTime#34 (the maintainer: diffusers==0.11.1 as requirements.txt pins)
        (
            "ImportError: cannot import name 'DIFFUSERS_CACHE' from 'diffusers.utils' "
            "([/usr/local/lib/python3.10/dist-packages/diffusers/utils/__init__.py](https://6vgate2ylkpdhn-8888.proxy.runpod.net/lab/tree/workspace/usr/local/lib/python3.10/dist-packages/diffusers/utils/__init__.py))",
            "diffusers",
            "DIFFUSERS_CACHE",
        ),
        # GaParmar/img2img-turbo#97 (huggingface_hub==0.24.7; the reporter: thank!)
        (
            "PLease！ Search for solution！\nImportError: cannot import name 'cached_download' from "
            "'huggingface_hub'",
            "huggingface_hub",
            "cached_download",
        ),
        # NVlabs/hymba#6 (transformers 4.47.0 works, 4.48.1 fails)
        (
            "With transformers-4.48.1 I get the following error:\n\n> ImportError: cannot import name "
            "'is_torch_greater_or_equal_than_1_13' from 'transformers.pytorch_utils' "
            "(/home/toolkit/.conda/envs/new_baseline_env/lib/python3.10/site-packages/transformers/"
            "pytorch_utils.py)\n\ntransformers-4.47.0 worked for me.",
            "transformers",
            "is_torch_greater_or_equal_than_1_13",
        ),
        # torchmd/torchmd-cg#10 (pytorch-lightning 0.10.0 works, 1.0.1 fails)
        (
            "```\n$ conda list | grep pytorch-lightning\npytorch-lightning         1.0.1                    "
            "pypi_0    pypi\n$ pwd\n~/torchmd-cg.git/tutorial\n$ python ../scripts/light_train.py -c "
            'train.yaml\nTraceback (most recent call last):\n  File "../scripts/light_train.py", line 27, '
            "in <module>\n    from pytorch_lightning.callbacks import LearningRateLogger\nImportError: "
            "cannot import name 'LearningRateLogger' from 'pytorch_lightning.callbacks' "
            "(/shared/raimis/opt/miniconda/envs/torchmd_cg/lib/python3.7/site-packages/pytorch_lightning/callbacks/__init__.py)\n```",
            "pytorch_lightning",
            "LearningRateLogger",
        ),
    ]
    for text, library, name in cases:
        lead = _led_by(text, "package.name_missing")
        assert any(
            line.startswith(f"the installed {library} version has no {name}") for line in lead.evidence
        )
        assert f"pip install {library}==<version>" in lead.fix.text, lead.fix.text
    # the program's own module, and a project's compiled extension, are not a library's release (constructed)
    assert "package.name_missing" not in _ids(
        "ImportError: cannot import name 'helper' from 'utils' (/home/u/proj/utils.py)"
    )
    assert _explained("ImportError: cannot import name 'iou3d_nms_cuda' from 'pcdet.ops.iou3d_nms'")[
        0
    ].id == ("extension.not_built")


def test_mmcv_outside_the_range_an_openmmlab_package_accepts_is_installed_inside_it() -> None:
    # The message gives the range; each thread installed an mmcv (mmcv-full for 1.x) inside it.
    cases = [
        # TMElyralab/MusePose#77 (the reporter: resolved by mim install "mmcv==2.0.1")
        (
            "AssertionError: MMCV==2.2.0 is used but incompatible. Please install mmcv>=2.0.0rc4, <2.2.0.",
            'mim install "mmcv>=2.0.0rc4,<2.2.0"',
        ),
        # chensnathan/SpatialFlow#8 (the maintainer: the mmcv-full 1.0.5 wheel)
        (
            "Dear Author：\nI have a problem，when I run this command:\n`pip install "
            "mmcv-full==latest+torch1.5.0+cu101 -f "
            "https://openmmlab.oss-accelerate.aliyuncs.com/mmcv/dist/index.html`\nmmcv-full's version will "
            "be 1.2.0.\nthen,the program will report an error:\n` f'MMCV=={mmcv.__version__} is used but "
            "incompatible. ' \\\nAssertionError: MMCV==1.2.0 is used but incompatible. Please install "
            "mmcv>=1.0.5, <=1.0.5.`\nI have no idea about it. Can you give me an answer or some "
            "advice？\n\nBest wishes",
            'mim install "mmcv-full>=1.0.5,<=1.0.5"',
        ),
        # MengyangPu/EDTER#50 (the maintainer: mmcv-full 1.2.2 for torch 1.6)
        (
            "Can you tell me what version of Torch I have installed? I am using Torch version 1.13.1, but I "
            "encountered an error when trying to install mmcv==1.7.1, which I downloaded based on the "
            "corresponding version information provided on the mmcv official website。error asfollows：\n "
            "MMCV==1.7.0 is used but incompatible. Please install mmcv>=[1, 1, 2], <=[1, 2, 7].",
            'mim install "mmcv-full>=1.1.2,<=1.2.7"',
        ),
        # Tsinghua-MARS-Lab/futr3d#33 (mim install mmcv-full==1.6.2; 'resloved')
        (
            "The package I installed is shown below：\n![image](https://github.com/Tsinghua-MARS-Lab/futr3d/"
            "assets/77523024/b5ed294e-e6ea-4bb4-aefa-5275e97f64e3)\n\n**ERROR**: MMCV==2.0.0 is used but "
            "incompatible. Please install mmcv>=1.3.17, <=1.8.0.\nHow to solve this problem？Thanks",
            'mim install "mmcv-full>=1.3.17,<=1.8.0"',
        ),
    ]
    for text, command in cases:
        lead = _led_by(text, "mmcv.version_incompatible")
        assert command in lead.fix.commands, lead.fix.commands


def test_a_package_not_in_the_python_that_runs_the_program_is_installed_there_by_its_pip_name() -> None:
    # paulpanwang/POPE#17 (einops missing from the requirements; "pip install einops ... this worked for me"),
    # title and description joined
    text = (
        "# no module name einops\n\nHello, i followed your tutorial, but when i run python3 visual_sam.py, "
        "i got this error: Traceback (most recent call last):\n  File "
        '"/home/apicoo3569/POPE/visual_sam.py", line 1, in <module>\n    from pope_model_api import *\n  '
        'File "/home/apicoo3569/POPE/pope_model_api.py", line 53, in <module>\n    from src.matcher '
        'import Matcher, default_cfg\n  File "/home/apicoo3569/POPE/src/matcher/__init__.py", line 1, in '
        "<module>\n    from .matcher import Matcher\n  File "
        '"/home/apicoo3569/POPE/src/matcher/matcher.py", line 3, in <module>\n    from einops.einops '
        "import rearrange\nModuleNotFoundError: No module named 'einops'\n\nplease help me to fix. thank you"
    )
    lead = _led_by(text, "package.not_installed")
    assert "missing module: einops" in lead.evidence and "-m pip install -r" in lead.fix.text
    # chenfei-wu/TaskMatrix#356's title (pip install git+https://github.com/IDEA-Research/GroundingDINO.git)
    lead = _led_by("# No module named 'groundingdino'", "package.not_installed")
    assert "missing module: groundingdino" in lead.evidence
    # cv2 is installed as opencv-python (neuralchen/SimSwap#390's answer; constructed around the message)
    lead = _led_by("ModuleNotFoundError: No module named 'cv2'", "package.not_installed")
    assert "cv2 is installed by the pip package opencv-python" in lead.evidence
    # ComfyUI's embedded Python (PozzettiAndrea/ComfyUI-Sharp#15, FizzleDorf/ComfyUI_FizzNodes#110: the
    # packages went in with python_embeded\\python.exe -m pip); constructed around the message
    lead = _led_by(
        "D:\\ComfyUI_windows_portable\\python_embeded\\python.exe -s ComfyUI\\main.py\nModuleNotFoundError: "
        "No module named 'plyfile'",
        "package.not_installed",
    )
    assert any("python_embeded" in line for line in lead.evidence), lead.evidence
    # torch, apex, NumPy and a compiled extension keep their own entries
    for text, entry_id in (
        ("ModuleNotFoundError: No module named 'torch'", "torch.not_installed"),
        ("ModuleNotFoundError: No module named 'apex'", "apex.not_installed"),
        ("ModuleNotFoundError: No module named 'pointnet2_ops'", "extension.not_built"),
    ):
        assert _explained(text)[0].id == entry_id, text


def test_a_gpu_out_of_memory_told_in_words_beside_the_gpu_is_the_step_too_large_for_it() -> None:
    # No allocator message, only the writer's words beside the GPU; each thread's fix was a smaller batch
    # (KellerJordan/modded-nanogpt#12: 'changing batchsize to 32 made working'; the maintainers of
    # DAMO-DI-ML/NeurIPS2023-One-Fits-All#19: 'you can adjust the batch size to 512'; leftthomas/SimCLR#16:
    # 'the result is obtained with batch size 512, not 1024'; layumi/Person_reID_baseline_pytorch#66:
    # 'Please use --batchsize 64 or --batchsize 32 when testing').
    cases = [
        ("# I tried it on 8 L4OS (GPU 45GB in RAM), it failed with OOM error.", "45GB"),
        (
            "# Do you use multiple V100 when batch_size=2024\n\nMogicianXD · description · 2023-12-16\nAs "
            "mentioned in [issue-11](https://github.com/DAMO-DI-ML/NeurIPS2023-One-Fits-All/issues/11#issue"
            "comment-1835524907), you use a single V100 with memory of 32GB. However, I found it "
            "out-of-memory in long-term forecasting on Electricity and Traffic datasets, of which your "
            "scripts set the batch size to 2048.\n\nCould you provide the maximum GPU occupation in README? "
            "I think it would be better to help the followers. Thanks!",
            "32GB",
        ),
        (
            "# Batch size 1024 in V100?\n\nFerranAlet · description · 2021-03-22\nHi,\n\nThanks for the "
            "great codebase.\n\nI've tried training the proposed batch_size 1024 on a V100, but it runs out "
            "of memory. Am I doing something wrong or is the limit the default 512 (instead of the proposed "
            "1024 in README)? For me the memory for 512 is 29.9, close to the limit of 32.\n\nThanks!",
            None,
        ),
        (
            "# cuda runtime error(2):out of memory\n\nhuinsysu · description · 2018-09-10\nHi, I have "
            "sucessfully trained the model. However, when I ran the test script, it didn't work due to the "
            "runtime error. Would you please tell me how much is the size of your gpu. I run the test script "
            "on a Titan with 12 GB memory... Thanks a lot!",
            "12 GB",
        ),
    ]
    for text, memory in cases:
        lead = _led_by(text, "cuda.out_of_memory")
        said = _said(lead)
        assert "batch size" in lead.fix.text, lead.fix.text
        assert memory is None or memory in said, (memory, lead.evidence)
    # the GPU written before the words ('gpu oom'), as a short report gives it (constructed)
    _led_by("# GPU OOM error when running test.py on my 16G card", "cuda.out_of_memory")
    # the machine's RAM is not the GPU's memory, and the kernel's OOM killer is host.out_of_memory's
    # (constructed)
    for text in (
        "Training on an RTX 3090 got OOM-killed, 32GB of RAM was not enough",
        "I run on a V100 but the process is out of memory (host memory, 64 GB RAM)",
    ):
        assert "cuda.out_of_memory" not in _ids(text), text
    # a message the text also holds leads (constructed)
    _led_by(
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\nThen on the "
        "V100 it failed with OOM error",
        "cuda.no_kernel_image",
    )


def test_a_gpu_the_program_does_not_use_told_in_words_is_a_cpu_only_torch() -> None:
    # The writer names the GPU and says the program runs on the CPU or cannot use the GPU, with no message of
    # torch's but a warning; each was a CPU-only torch, reinstalled from a CUDA index
    # (RVC-Project/Retrieval-based-Voice-Conversion-WebUI#618: 'Your pytorch version is wrong.(CPU version)';
    # ultralytics/yolov5#7639, apple/ml-sharp#18, lucidrains/deep-daze#161: reinstalled with CUDA).
    cases = [
        # RVC-Project/Retrieval-based-Voice-Conversion-WebUI#618
        (
            "# GPU Detection mobile rtx 3060\n\ntcordata · description · "
            "2023-06-23\n![image_2023-06-23_233446989](https://github.com/RVC-Project/Retrieval-based-Voice-C"
            "onversion-WebUI/assets/137562569/93d1ef1f-e90c-4cd7-9cd6-dec76b344888)\n![Opera "
            "Snapshot_2023-06-23_233507_localhost](https://github.com/RVC-Project/Retrieval-based-Voice-Conve"
            "rsion-WebUI/assets/137562569/442f3388-d026-49d9-b9e0-274a8bcd1bca)\n\npytorch: Version: "
            "2.0.1\ncuda cudnn:11.8\nnvidia driver:536.23\n\nI have mobile rtx 3060 (6gb) with ryzen 5600h "
            "cpu\ntried to update everything etc. and still cant load the gpu\n\nany suggestions?\n"
        ),
        # ultralytics/yolov5#7639
        (
            "# Can't utilize Gpu\n\nGiaZ90 · description · 2022-04-29\n### Search before asking\n\n- [X] I "
            "have searched the YOLOv5 [issues](https://github.com/ultralytics/yolov5/issues) and "
            "[discussions](https://github.com/ultralytics/yolov5/discussions) and found no similar "
            "questions.\n\n### Question\n\nI'm training a neural network with coco128 dataset and yolov5s "
            "...actually yolo is using only Cpu for traning instead of my gpu (gtx 1080 ) and it works "
            "fine.How can i use my gpu...i think the problem is the torch version\nas displayed in this code "
            "line\n`YOLOv5  2022-4-22 torch 1.11.0+cpu CPU`\n generated after\n`python train.py --img 640 "
            "--batch 16 --epochs 3 --data coco128.yaml --weights yolov5s.p` \nAny idea? Thank you\n"
        ),
        # apple/ml-sharp#18
        (
            "# Renders using CPU\n\ngitmattb · description · 2025-12-18\nThe renderer is using my CPU "
            "instead of RTX 5090 on Windows 11. Is this expected behaviour? I can’t find any way to specify "
            "what is used.\n"
        ),
        # lucidrains/deep-daze#161
        (
            "# torch wont use my GPU or so i think.\n\nbatbeat · description · 2021-08-04\nI'm not sure why "
            "but I don't think torch is using my GPU (RTX 2080 super) it gives me this error "
            "\n\n**error:**\n`:\\Users\\beaty\\AppData\\Local\\Programs\\Python\\Python39\\lib\\site-packages"
            "\\torch\\cuda\\amp\\grad_scaler.py:115: UserWarning: torch.cuda.amp.GradScaler is enabled, but "
            'CUDA is not available.  Disabling.\n  warnings.warn("torch.cuda.amp.GradScaler is enabled, but '
            'CUDA is not available.  Disabling.")`\n\nAny help here?\n'
        ),
    ]
    for text in cases:
        lead = _led_by(text, "cuda.not_available")
        assert "CPU-only build" in lead.cause and "download.pytorch.org/whl" in lead.fix.text
    assert any("1.11.0+cpu" in line for line in _explained(cases[1])[0].evidence)
    # the writer's words, as the threads' titles and descriptions give them (constructed)
    for text in (
        "Everything works but it is extremely slow because it only runs on the CPU. (4090)",
        "the diarization does not seem to be using my GPU. I do have an RTX 4090",
    ):
        _led_by(text, "cuda.not_available")
    # the GPU's memory is no GPU left unused, and a message leads (constructed)
    assert "cuda.not_available" not in _ids("The model does not use the GPU memory efficiently on my 3090")
    _led_by(
        "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB\nand it still cant load the gpu",
        "cuda.out_of_memory",
    )


def test_ctranslate2s_cuda_libraries_not_found_are_its_build_against_the_cuda_and_cudnn_installed() -> None:
    # CTranslate2 (faster-whisper, WhisperX) loads cuBLAS and cuDNN itself; each thread's fix matched its
    # build to the CUDA and cuDNN installed (m-bain/whisperX#899: torch 2.2.2's cuDNN 8, or an older
    # ctranslate2; reriiasu/speech-to-text#12: 'try using CUDA 12 with cuDNN 8';
    # Purfview/whisper-standalone-win#43: 'You need: CUDA v11.x ... cuDNN v8.x'; RVC-Boss/GPT-SoVITS#607:
    # faster-whisper==0.10.1, below ctranslate2 4).
    cases = [
        # m-bain/whisperX#899
        (
            "# Could not locate `cudnn_ops_infer64_8.dll`. Please make sure it is in your library "
            'path!\n\nYoungPhlo · description · 2024-10-16\nCommand:\n```pwsh\nwhisperx "audio/test.mp3" '
            '--model "large-v3" --language "en"\n```\nError:\n```pwsh\nCould not locate '
            "cudnn_ops_infer64_8.dll. Please make sure it is in your library path!\n```\n\nTook a look in "
            "`.venv\\Lib\\site-packages\\torch\\lib` and saw `cudnn_ops_infer64_9.dll` instead of "
            "`cudnn_ops_infer64_8.dll`\n\nI originally used these commands to set up `whisperX` "
            "today:\n```pwsh\npy -3.10 -m venv venv\n.\\venv\\Scripts\\python.exe -m pip install --upgrade "
            "pip wheel setuptools\npip install torch torchvision torchaudio --index-url "
            "https://download.pytorch.org/whl/cu121\npip install git+https://github.com/m-bain/whisperx.git\n"
            "```\n\nAfter seeing the error I ran:\n```pwsh\npip uninstall torch torchaudio torchvision\npip "
            "install torch==2.2.2 torchvision==0.17.2 torchaudio==2.2.2 --index-url "
            "https://download.pytorch.org/whl/cu121\n```\n\nand `cudnn_ops_infer64_8.dll` is in torch so the "
            "original command runs now\n\n```\n- Operating System\nOS Name:         Microsoft Windows 10 "
            "Pro\nVersion:         10.0.19045\nBuild:           19045\n\n- Environment\nPowerShell:      "
            "5.1.19041.5007\nPython:          3.10.11\nGit:             2.41.0.windows.1\nNode.js:         "
            "20.15.1\n```\n\nDaddyCodesAlot · comment · 2024-10-23\nIt could be the new ctranslate2 update "
            "that bonked things. Downgrading ctranslate2 fixed this issue for me.\n\nI just used this "
            "comma\n",
            "cuDNN 8",
        ),
        # reriiasu/speech-to-text#12
        (
            "# Could not locate cudnn_ops_infer64_8.dll\n\nBob82u · description · 2024-04-03\nHello,\nI'm "
            'encountering an error "Could not locate cudnn_ops_infer64_8.dll. Please make sure it is in '
            'your library path!" \nwhen running the model with CUDA. Using CPU works '
            "fine.\n\nSetup:\n•\tGeForce  RTX 2070 + 8G\n•\tCUDA Toolkit 11.4 (downloaded from "
            "https://developer.nvidia.com/cuda-11-4-0-download-archive)\n•\tcuDNN 11.4-windows-x64-v8.2.2.26 "
            "(downloaded from https://developer.download.nvidia.com/compute/redist/cudnn/v8.2.2/\n       "
            "Extracted cudnn DLLs placed in: C:\\Program Files\\NVIDIA GPU Computing "
            "Toolkit\\CUDA\\v11.4\\bin\\\n      \n      Environment path confirmed to the dll location.\n    "
            "  where cudnn_ops_infer64_8.dll\n      C:\\Program Files\\NVIDIA GPU Computing "
            "Toolkit\\CUDA\\v11.4\\bin\\cudnn_ops_infer64_8.dll\n      \nWould you have any suggestions to "
            "fix this error? In case of compatibility issues, could you recommend compatible CUDA and cuDNN "
            "versions with download links?\n",
            "cuDNN 8",
        ),
        # Purfview/whisper-standalone-win#43
        (
            "# Library cublas64_11.dll is not found or cannot be loaded\n\nymilv · description · "
            "2023-07-25\nWindows 11, Nvidia CUDA Toolkits has been installed, and CUDA path has been added "
            "to Windows Path, but it cann't work.\n",
            "CUDA 11",
        ),
        # RVC-Boss/GPT-SoVITS#607
        (
            "# ASR中调用faster whisper时，提示找不到cublas64_12.dll\n\nsipeter · description · "
            '2024-02-26\nTraceback (most recent call last):\n  File "D:\\GSV\\GPT-SoVITS\\tools\\asr\\faster'
            'whisper_asr.py", line 74, in execute_asr\n    for segment in segments:\n  File '
            '"D:\\DEV\\anaconda3\\envs\\GPTSoVits\\lib\\site-packages\\faster_whisper\\transcribe.py", '
            "line 941, in restore_speech_timestamps\n    for segment in segments:\n  File "
            '"D:\\DEV\\anaconda3\\envs\\GPTSoVits\\lib\\site-packages\\faster_whisper\\transcribe.py", '
            "line 445, in generate_segments\n    encoder_output = self.encode(segment)\n  File "
            '"D:\\DEV\\anaconda3\\envs\\GPTSoVits\\lib\\site-packages\\faster_whisper\\transcribe.py", '
            "line 629, in encode\n    return self.model.encode(features, to_cpu=to_cpu)\nRuntimeError: "
            "Library cublas64_12.dll is not found or cannot be loaded\n\n在conda环境中，pytorch2.2.1+cu118，"
            "用funasr转写中文，训练，推理都没有问题，但调用faster whisper时，提示找不到cublas64_12.dll。把整"
            "合包中runtime拷贝到项目目录，运行则不会报错，尝试更换pytorch2.1.2+cu118，2.0.0+cu118都不能解决问"
            "题；同样是faster-whisper 0.10.0，整合包中的transcribe.py与我项目中的transcribe.py文件内容不一致"
            "，但即使将整合包中faster-whisper 0.10.0覆盖到项目中，故障现象依旧。是不是哪个依赖文件需要调用到c"
            "ublas64_12.dll？\n",
            "CUDA 12",
        ),
    ]
    for text, release in cases:
        lead = _led_by(text, "ctranslate2.cuda_libraries")
        assert release in lead.cause, (release, lead.cause)
        assert "ctranslate2==" in lead.fix.text and "nvidia-cudnn-cu12" in lead.fix.text
    # the same message on Linux (constructed from the Windows one)
    lead = _led_by(
        "RuntimeError: Library libcublas.so.12 is not found or cannot be loaded", "ctranslate2.cuda_libraries"
    )
    assert "CUDA 12" in lead.cause


def test_a_cuda_runtime_asked_for_by_an_extension_imported_without_frames_names_that_extension() -> None:
    # 'from detectron2 import _C' just before the loader's message: detectron2's build asks for the runtime
    # (facebookresearch/detectron2#2557: 'I use the wrong version of detectron2. Now it works';
    # facebookresearch/frankmocap#178: 'install the Pytorch, Pytorch-3D that match the CUDA version').
    cases = [
        # facebookresearch/detectron2#2557
        "# How to run detectron2 with CUDA 11.1\n\nHeliosZhao · description · 2021-01-28\nI worked with "
        "Pytorch 1.7 and CUDA 11.1.\n\nActually, I successfully build the detectron2 CUDA 11.0 version (No "
        "CUDA 11.1 version is available right?)\n\nBut I have trouble running the code\n\n```\nfrom "
        "detectron2 import _C\nImportError: libcudart.so.11.0: cannot open shared object file: No such file "
        "or directory\n\n```\n\nSo how can I use detectron2 with CUDA 11.1?\n",
        # facebookresearch/frankmocap#178
        "# error\n\nliuhaorandezhanghao · description · 2021-12-09\nfrom detectron2 import _C\nImportError: "
        "libcudart.so.10.1: cannot open shared object file: No such file or directory\n",
    ]
    for text in cases:
        lead = _led_by(text, "lib.cannot_open_shared_object")
        assert "The package detectron2 was built for CUDA" in lead.cause, lead.cause
        assert "rebuild it from source" in lead.fix.text


def test_input_and_weight_types_on_two_devices_say_which_side_to_move() -> None:
    # torch names the input's type and the weights': the side on the CPU is the one the program did not move
    # (yuanyuanli85/Fast_Human_Pose_Estimation_Pytorch#7: 'push model to device. model = model.to(device)';
    # yuta-hi/pytorch_similarity#1: 'loss = GradientCorrelationLoss2d().to(device)';
    # sksq96/pytorch-summary#16: 'summary(model.to(device), ...)';
    # IliaZenkov/transformer-cnn-emotion-recognition#6: 'you need to send your model weights to the GPU').
    weights_on_cpu = [
        # yuanyuanli85/Fast_Human_Pose_Estimation_Pytorch#7
        "# RuntimeError: Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be "
        "the same\n\nZhaoliangHe · description · 2019-03-04\nI am getting the above error (mentioned in "
        "title) when i run the code:python tools/mpii_demo.py -a hg -s 2 -b 1 --mobile True --checkpoint "
        "checkpoint/mpii_hg_s2_b1_mobile_fpd/model_best.pth.tar --in_res 256 --device cuda .what should I "
        "do?",
        # yuta-hi/pytorch_similarity#1
        "# ERROR WHILE RUNNING ON GPU\n\nanuragdeshmukh · description · 2020-01-27\nHi, I;m getting this "
        "error while running the loss on gpu\nRuntimeError: Input type (torch.cuda.FloatTensor) and weight "
        "type (torch.FloatTensor) should be the same",
        # sksq96/pytorch-summary#16
        "# Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the "
        "same\n\nsizhky · description · 2018-06-15\nHi,\n\nI'm getting the following error while trying to "
        "print model summary. The model, however, is training without an issue (when not printing the "
        "summary)\n\n```python\n...\n    print(summary(model, (3, 30, "
        '16)))\n...\n```\n\n```python\nTraceback (most recent call last):\n  File "slideCNN-train.py", '
        "line 57, in <module>\n    print(summary(model, (3, 30, 16)))\n  File "
        '"/home/yeshwanth/.local/lib/python2.7/site-packages/torchsummary/torchsummary.py", line 56, in '
        'summary\n    model(x)\n  File "/usr/lib64/python2.7/site-packages/torch/nn/modules/module.py", '
        "line 491, in __call__\n    result = self.forward(*input, **kwargs)\n  File "
        '"/usr/lib64/python2.7/site-packages/torch/nn/modules/container.py", line 91, in forward\n    '
        'input = module(input)\n  File "/usr/lib64/python2.7/site-packages/torch/nn/modules/module.py", '
        "line 491, in __call__\n    result = self.forward(*input, **kwargs)\n  File "
        '"/usr/lib64/python2.7/site-packages/torch/nn/modules/conv.py", line 301, in forward\n    '
        "self.padding, self.dilation, self.groups)\nRuntimeError: Input type (torch.cuda.FloatTensor) and "
        "weight type (torch.FloatTensor) should be the same\n```",
        # IliaZenkov/transformer-cnn-emotion-recognition#6
        "# RuntimeError: Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be "
        "the same\n\ntheblue9 · description · 2021-04-21\nHow do i get this problem?? I want to solve the "
        "problem\n![스크린샷, 2021-04-21 19-16-05](https://user-images.githubusercontent.com/58159843/115537"
        "707-0ffef400-a2d6-11eb-9fc8-7bac68169e57.png)",
    ]
    for text in weights_on_cpu:
        lead = _led_by(text, "tensors.different_devices")
        assert "The input is on the GPU and the weights on the CPU" in lead.cause, lead.cause
        assert "model = model.to(device)" in lead.fix.text and "loss_fn.to(device)" in lead.fix.text
    # the input left on the CPU, its move not kept (lukemelas/EfficientNet-PyTorch#52: 'img = img.to(device)')
    lead = _led_by(
        "# Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the "
        "same\n\nLitvinchukAndrey · description · 2019-07-24\nHi there! Thanks for your great repo, but i "
        "faced with some difficulties while trying to inference on device ('cuda:0'). My code: \n`device = "
        "torch.device('cuda:0')`\n`tfms = transforms.Compose([transforms.Resize(224), "
        "transforms.ToTensor(), transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, "
        "0.225]),])`\n`img = tfms(Image.open('img.png')).unsqueeze(0)`\n`img.to(device)`\n`model.to(device)`"
        "\n`model.eval()`\n`with torch.no_grad():\n    outputs = model(img)`\nAnd thrown error: "
        "\n`RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be "
        "the same`",
        "tensors.different_devices",
    )
    assert "img = img.to(device)" in lead.fix.text
    # the same sides without a move in the text (constructed): the input is moved
    lead = _led_by(
        "RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the "
        "same",
        "tensors.different_devices",
    )
    assert "The input is on the CPU and the weights on the GPU" in lead.cause
    assert "x = x.to(device)" in lead.fix.text


def test_an_out_of_memory_in_a_job_of_one_process_per_gpu_offers_sharding_not_spreading() -> None:
    # Each process of a data-parallel job holds a whole copy of the model and its optimizer state; the
    # threads' answer was sharding it (InternLM/xtuner#88: 'You are using DDP, so you need to ensure that
    # each GPU can fully load' the model, DeepSpeed ZeRO; hiyouga/LlamaFactory#1158: 'with 4 cards you need
    # ZeRO-3'; OptimalScale/LMFlow#213: 'use --deepspeed configs/ds_config_zero3.json').
    cases = [
        # InternLM/xtuner#88
        "# CUDA out of memory\n\nRickMeow · description · 2023-09-01\n**Describe**\nCUDA out of memory. "
        "\nI'm fine-tuning the llama-2-70B using 3 sets of machines containing 8\\*A100s "
        "(40GB)=24\\*A100(40GB), and this error reported at first seemed like it should be an out-of-memory "
        "issue, but a large enough amount of memory has been used in the calculations. \n\n**To "
        "Reproduce**\n1. pip install xtuner\n2. I replaced the model address of the huggingface in "
        "llama2_70b_qlora_open_platypus_e1.py with the Llama-2-70b-hf downloaded locally:\n```\n# "
        "model\npretrained_model_name_or_path = '/mnt/model/Llama-2-70b-hf'\n# and also the "
        "dataset\ndata_path = '/mnt/model/Open-Platypus'\n```\n3. \n```\nMaster(A100*8): NPROC_PER_NODE=8 "
        "NNODES=3 NODE_RANK=0 PORT=34545 ADDR=192.168.0.6 xtuner train "
        "llama2_70b_qlora_open_platypus_e1\n(and [A100*8]NODE_RANK=1,[A100*8]NODE_RANK=2)\n```\n\n**System "
        "info**\n- OS: Ubuntu 20.04.6 LTS\n- Configured as 3 groups with 8*A100 graphics cards (total of 24 "
        "A100-40G graphics cards)\n- Python = 3.10\n\n**ERROR record**\n\n```\nmodel = "
        "MMDistributedDataParallel(torch.cudatorch.cuda\n..torch.cuda  File "
        '"/mnt/anaconda/envs/xtuner/lib/python3.10/site-packages/mmengine/model/wrappers/distributed.py", '
        "line 93, in __init__\nOutOfMemoryErrorOutOfMemoryError.: : OutOfMemoryErrorCUDA out of memory. "
        "Tried to allocate 2.11 GiB (GPU 6; 39.45 GiB total capacity; 37.14 GiB already allocated; 1.60 GiB "
        "free; 37.30 GiB reserved in total by PyTorch) If reser",
        # hiyouga/LlamaFactory#1158
        "# baichuan2-13b全参数训练，报out of memory\n\nFanWan · description · 2023-10-12\n训练环境： 4 * "
        "A800 80G显卡\n\n启动脚本：\n\ndeepspeed --include localhost:4,5,6,7 --master_port $MASTER_PORT "
        "src/train_bash.py\n--stage sft\n--model_name_or_path /home/work/record/llm_models/Baichuan2-13B-Cha"
        "t\n--do_train\n--cutoff_len 1536\n--max_length 320\n--overwrite_output_dir\n--dataset "
        "train_intent_args_all\n--template baichuan2\n--finetuning_type full\n--output_dir "
        "output/$SAVE_MODEL_PATH\n--overwrite_cache\n--per_device_train_batch_size 1 "
        "\\\n--gradient_accumulation_steps 1 \\\n--lr_scheduler_type cosine\n--logging_steps "
        "100\n--save_steps 400\n--learning_rate 5e-5\n--num_train_epochs 5.0\n--plot_loss\n--deepspeed "
        "ds_config.json\n--bf16 > log/train_${SAVE_MODEL_PATH}.log 2>&1 "
        "&\n\n错误日志：\ntorch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 12.94 GiB (GPU "
        "1; 79.35 GiB total capacity; 77.65 GiB already allocated; 316.12 MiB free; 77.66 GiB reserved in "
        "total by PyTorch) If reserv ed memory is >> allocated memory try setting max_split_size_mb to "
        "avoid fragmentation. See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF",
        # OptimalScale/LMFlow#213
        "# Inquiry about GPU configuration\n\nDaniel-1997 · description · 2023-04-12\nHello, I want to "
        "finetune a llama 7B model from pinkmanlove/llama-7b-hf, however I met cuda out of memory error. "
        "\nI have made some changes following previous issue such as :\n\n1. add --use_lora parameter\n2. "
        "change --deepspeed parameter to configs/ds_config_zero2.json\n\nhowever, I still face the problem, "
        "I wonder if it raised because the configuration of my GPU is not qualified, such as 16G is so "
        "limited for llama7B. below is the configuration of my GPU: 2 16G "
        "A4000.\n\n![image](https://user-images.githubusercontent.com/59271872/231338144-fb380801-2d8e-4cdf-"
        "b1d4-1ad99a1758fb.png)\n\nI want to ask whether there are solutions under my situation via which I "
        "can finetune llama using my GPUs,  Thank you for your reply.",
    ]
    for text in cases:
        lead = _led_by(text, "cuda.out_of_memory")
        said = _said(lead)
        assert "ZeRO stage 3" in lead.fix.text and "FSDP" in lead.fix.text, lead.fix.text
        assert "spread it over them" not in said
    # ranks in a log are processes already spread (constructed from x-flux's kind of message)
    rank_log = (
        "[rank7]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 18.00 MiB. GPU 7 has a total "
        "capacity of 79.15 GiB of which 17.62 MiB is free. Including non-PyTorch memory, this process has "
        "79.12 GiB memory in use. Of the allocated memory 77.43 GiB is allocated by PyTorch, and 219.12 MiB "
        "is reserved by PyTorch but unallocated. I use 8*a100 to finetune"
    )
    lead = _led_by(rank_log, "cuda.out_of_memory")
    assert "spread it over them" not in lead.fix.text and "ZeRO stage 3" in lead.fix.text
    # a job already sharded (ZeRO-3, FSDP) or on one process is not told to shard (constructed): the sharded
    # one is told what is left beyond sharding
    sharded = _led_by(rank_log + " with deepspeed zero3", "cuda.out_of_memory").fix.text
    assert sharded.startswith("The model's state is sharded over the GPUs already"), sharded
    assert "ZeRO stage 3" not in _led_by(rank_log.replace("[rank7]: ", ""), "cuda.out_of_memory").fix.text


def test_cufft_internal_error_is_a_torch_build_whose_cufft_predates_the_gpu() -> None:
    # cuFFT of CUDA 11.7 and older fails on Ada GPUs (RTX 40xx, L4); each thread's fix was a torch build for
    # CUDA 11.8 or newer (pytorch/pytorch#88038: 'cufft library doesn't support forward compatibility
    # guarantee'; haoheliu/AudioLDM#49, microsoft/NOTSOFAR1-Challenge#40, HazyResearch/hyena-dna#75,
    # Anjok07/ultimatevocalremovergui#746: reinstalled from the cu118 index).
    cases = [
        # pytorch/pytorch#88038
        "# CUFFT_INTERNAL_ERROR on RTX 4090\n\n### 🐛 Describe the bug\n\n```\n>>> import torch\n>>> "
        'torch.fft.rfft(torch.randn(1000).cuda())\nTraceback (most recent call last):\n  File "<stdin>", '
        "line 1, in <module>\nRuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR\n```\n\nThere is a discussion "
        "on https://forums.developer.nvidia.com/t/bug-ubuntu-on-wsl2-rtx4090-related-cufft-runtime-error/230"
        "883/7 .\n\n### Versions\n\nUsing pytorch installed with \nconda install pytorch torchvision "
        "torchaudio pytorch-cuda=11.7 -c pytorch -c nvidia\n\ncc @ezyang @gchanan @zou3519 @peterjc123 "
        "@mszhanyi @skyline75489 @nbcsm @ngimel @mruberry @peterbell10",
        # haoheliu/AudioLDM#49
        "# CUFFT_INTERNAL_ERROR\n\nWhen attempting to run app.py, an error is returned.\n``   return "
        "_VF.stft(input, n_fft, hop_length, win_length, window,  # type: "
        "ignore[attr-defined]\nRuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR``",
        # microsoft/NOTSOFAR1-Challenge#40
        "# CUFFT_INTERNAL_ERROR for certain hardware\n\nInstalling the repo as described will install torch "
        "with cuda 11.7\n\nIf you are using a device such as RTX 4090, you will get an error when trying to "
        "do diarization with nemo.\n\nFor example, if you just run `python run_inference.py` you will get "
        "an error similar to this when torch.stft is called:\n\n```\nNOTSOFAR1-Challenge/diarization/word_ba"
        'sed_diarization.py", line 105, in extract_speaker_embedding_for_words\n    _, tmp_embedding = '
        "spk_model.forward(input_signal=word_wavs, input_signal_length=word_lens)\n\n...\n\nRuntimeError: "
        "cuFFT error: CUFFT_INTERNAL_ERROR\n```\n\nAs https://github.com/pytorch/pytorch/issues/88038 "
        "suggests, cuda 11.8 fixes the issue.\n\nUgrading pytorch to the latest stable version with cuda "
        "11.8 fixes the issue, `pip3 install torch torchvision torchaudio --index-url "
        "https://download.pytorch.org/whl/cu118`",
        # HazyResearch/hyena-dna#75
        "# RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR\n\nGetting this issue when I follow the "
        "dependency installation verbatim. Running the model on a NVIDIA L4 with nvcc --version "
        "11.7.\n\nThis was solved by downloading torch with cu118:\npip install torch==2.0.0 "
        "torchvision==0.15.1 torchaudio==2.0.1 --index-url https://download.pytorch.org/whl/cu118\n\nI am "
        "concerned that 11.7 is deprecated for torch.fft usage.",
        # Anjok07/ultimatevocalremovergui#746
        '# RuntimeError: "cuFFT error: CUFFT_INTERNAL_ERROR" on RTX4090 Debian based distro\n\ninstalled '
        'with standard Linux procedure\nif using GPU conversion, RuntimeError: "cuFFT error: '
        'CUFFT_INTERNAL_ERROR" is triggered\nOn the base system CUDA toolkit 11.8 is '
        "installed\n\nSolution\ninstall inside an Anaconda env using standard Linux "
        "procedure\nthen\n```\npip uninstall torch\npip uninstall nvidia-cublas-cu11\npip uninstall "
        "nvidia-cuda-nvrtc-cu11   \npip uninstall nvidia-cuda-runtime-cu11 \npip uninstall "
        "nvidia-cuda-runtime-cu11\npip uninstall torchmetrics\n\npip install torch torchvision torchaudio "
        "--index-url https://download.pytorch.org/whl/cu118\npip install torchmetrics\n```\nworking "
        "flowless.\n\nhope can be helpful to other people:",
    ]
    for text in cases:
        lead = _led_by(text, "cufft.internal_error")
        assert "CUDA 11.7 or older" in lead.cause and "download.pytorch.org/whl/cu118" in lead.fix.text


def test_no_kernel_image_in_torchvisions_own_kernel_is_a_torchvision_that_does_not_pair_with_torch() -> None:
    # torchvision's prebuilt nms_cuda (its wheel's build path, /tmp/pip-req-build-*/torchvision/csrc) is no
    # extension built here: the maintainers' answer was the torchvision install
    # (facebookresearch/detectron2#469: 'You installed or built a version of torchvision incompatible with
    # your environment'; sniklaus/3d-ken-burns#15: 'your installed TorchVision is not compatible with the
    # PyTorch'), as for "Could not run 'torchvision::nms' with arguments from the 'CUDA' backend"
    # (ltdrdata/ComfyUI-Impact-Pack#915: 'a version mismatch issue between torch dependencies').
    cases = [
        # facebookresearch/detectron2#469
        "# RuntimeError: CUDA error: no kernel image is available for execution on the device (nms_cuda at "
        "/tmp/pip-req-build-8d3_7_rq/torchvision/csrc/cuda/nms_cuda.cu:127)\n\nRUiSss · description · "
        "2019-12-05\n2. what exact command you run:\n```\npython demo/demo.py --config-file "
        "configs/COCO-InstanceSegmentation/mask_rcnn_R_50_FPN_3x.yaml  --input 0.jpg 3.jpg --output "
        "/home/amax/iKang/dsr/Project/det2/output    --opts MODEL.WEIGHTS "
        "detectron2://COCO-InstanceSegmentation/mask_rcnn_R_50_FPN_3x/137849600/model_final_f10217.pkl\n```"
        "\n3. what you observed (including the full logs):\n```\n[12/05 17:34:31 detectron2]: Arguments: "
        "Namespace(confidence_threshold=0.5, config_file='configs/COCO-InstanceSegmentation/mask_rcnn_R_50_F"
        "PN_3x.yaml', input=['0.jpg', '3.jpg'], opts=['MODEL.WEIGHTS', "
        "'detectron2://COCO-InstanceSegmentation/mask_rcnn_R_50_FPN_3x/137849600/model_final_f10217.pkl'], "
        "output='/home/amax/iKang/dsr/Project/det2/output', video_input=None, webcam=False)\nWARNING [12/05 "
        "17:34:31 d2.config.compat]: Config 'configs/COCO-InstanceSegmentation/mask_rcnn_R_50_FPN_3x.yaml' "
        "has no VERSION. Assuming it to be compatible with latest v2.\n  0%|                                "
        "                                                                                           | 0/2 "
        '[00:04<?, ?it/s]\nTraceback (most recent call last):\n  File "demo/demo.py", line 83, in '
        '<module>\n    predictions, visualized_output = demo.run_on_image(img)\n  File "/home/amax/i',
        # sniklaus/3d-ken-burns#15
        "# pytorch version and cupy version?\n\nLonglongaaaGo · description · 2020-01-19\nHello!\nThanks "
        "for your repo！ It is a very beautiful  project ! \nRecently, I want to try your code, and I tried "
        "to run on GeForce RTX 2080 with pytorch 1.3.1, cuda 10.0 and K40 with pytorch 1.3.1, cuda 9.2 10.0 "
        "in different machine, respectively, but I get the approximately the same error as "
        'fllow:\n"RuntimeError: CUDA error: no kernel image is available for execution on the device '
        '(nms_cuda at /tmp/pip-req-build-c2_g4c3l/torchvision/csrc/cuda/nms_cuda.cu:127)"\nso , can you '
        "give me some advise for running this project?\nThank you so much!\n\nLonglongaaaGo · comment · "
        "2020-01-19\none machine use the environment with GeForce RTX 2080 with pytorch 1.3.1, cuda 10.0 "
        "and another with K40 , pytorch 1.3.1 and cuda 9.2",
    ]
    for text in cases:
        lead = _led_by(text, "cuda.no_kernel_image")
        assert "torchvision's own" in lead.cause and "built here" not in lead.cause, lead.cause
        assert "torchvision release that pairs with the installed torch" in lead.fix.text
    # torch's own operation (pytorch/pytorch#72957: 'Please install cuda 11 version of pytorch') is torch's
    # build, not an extension's
    lead = _led_by(
        "# no kernel image is available\n\nsafaATcurrus · description · 2022-02-16\n### 🐛 Describe the "
        "bug\n\nI am trying to run a code from github but I am getting error\n\n  File "
        '"/home/Jack/anaconda3/envs/visionEnv/lib/python3.7/site-packages/torch/nn/modules/module.py", '
        "line 1102, in _call_impl\n    return forward_call(*input, **kwargs)\n  File "
        '"/home/Jack/anaconda3/envs/visionEnv/lib/python3.7/site-packages/torch/nn/modules/activation.py",'
        " line 98, in forward\n    return F.relu(input, inplace=self.inplace)\n  File "
        '"/home/Jack/anaconda3/envs/visionEnv/lib/python3.7/site-packages/torch/nn/functional.py", line '
        '1297, in relu\n    result = torch.relu_(input)\n"CUDA error: no kernel image is available for '
        'execution on the device"\n\nWhat is kernel image ? where can I recreate that? \nI do not want to '
        "install linux from scratch. I have listed some information about my system below\n\nI would be "
        "grateful if you can help\n\nRegards\n\nSafa\n\nconda list output:\n\n```\n# packages in "
        "environment at /home/Jack/anaconda3/envs/visionEnv:\n#\n# Name                    Version          "
        "         Build  Channel\n_libgcc_mutex             0.1                        main  "
        "\n_openmp_mutex             4.5                       1_gnu  \nabsl-py                   1.0.0     "
        "               pypi_0    pypi\nalbumentations            1.1.0                    pypi_0    "
        "pypi\nargcomplete               1.12.3             pyhd3eb1b0_0  \nastunparse                1.6.3 "
        "                   pypi_0",
        "cuda.no_kernel_image",
    )
    assert "extension" not in lead.cause and "torch has no kernels" in lead.cause


def test_a_blackwell_gpu_named_beside_a_failure_without_the_sm_120_message_is_a_torch_without_it() -> None:
    # An RTX 50-series GPU named in a report that quotes no message; each thread's fix was a torch built for
    # CUDA 12.8 (ace-step/ACE-Step#12: torch==2.7.0 from the cu128 index; pinokiofactory/comfy#7: 'stable
    # torch for 50 series'; NanoNets/docext#30: the cu128 nightly made 'torch error go away').
    cases = [
        # ace-step/ACE-Step#12
        "# Default setup doesn't work with rtx5xxx cards.\n\nAlmaJensenSRS · description · 2025-05-06\nI'm "
        "still trying to get this to run on my machine. I have an RTX5080. Something I've found while "
        "working with different AI models is that the RTX5xxx cards. To use those it seems like you "
        "normally use cuda 128 which pytorch 2.7 supports. I know there is pytorch for python 3.10. Can the "
        "repo be updated to use pytorch 2.7? Btw Cuda 129 is out.",
        # pinokiofactory/comfy#7
        "# not runable with RTX 50XX Series\n\nTeuflor · description · 2025-02-12\ncrashes with the new "
        "Nvidia RTX 50XX Series.\n\nhttps://blog.comfy.org/p/how-to-get-comfyui-running-on-your\n\nit need "
        "to update torch to 12.8",
        # NanoNets/docext#30
        "# How to make it work on an RTX 5090 ?\n\n0xb011 · comment · 2025-06-18\nI've run into the similar "
        "issue with RTX 5070Ti. It appears that python shell imports older version of Torch, which does not "
        "support sm120 (Blackwell).",
    ]
    for text in cases:
        lead = _led_by(text, "cuda.no_kernel_image")
        assert "CUDA 12.8" in lead.fix.text, lead.fix.text
    # a 50-series GPU in a report of another message is that message's (constructed)
    _led_by(
        "My RTX 5090 does not work: RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB",
        "cuda.out_of_memory",
    )


def test_flash_attention_2_asked_for_without_flash_attn_installed_is_loaded_with_sdpa() -> None:
    # A model loaded with attn_implementation="flash_attention_2" where flash-attn is not installed (no
    # Windows wheel on PyPI, and its build fails there): the answers were the attention setting
    # (OpenGVLab/InternVL#197: config.json's 'flash_attention_2' changed to 'eager';
    # zhangfaen/finetune-Qwen2-VL#20: 'turn off flash-attention') or a prebuilt wheel
    # (wildminder/ComfyUI-VibeVoice#44).
    cases = [
        # OpenGVLab/InternVL#197
        "# windows ：ImportError: flash_attn is not installed\n\nyunzhichen · description · "
        "2024-05-22\nwindows 下使用demo程序，本地加载模型库，运行一直报错：\n    raise ImportError('flash_at"
        "tn is not installed.')\nImportError: flash_attn is not installed.\n通过 pip install flash_attn  "
        "一直无法安装成功\n请问如何解决？",
        # wildminder/ComfyUI-VibeVoice#44
        "# FlashAttention2 on win\n\nJackVinati · description · 2025-09-10\nFailed to load model even with "
        "eager attention: FlashAttention2 has been toggled on, but it cannot be used due to the following "
        "error: the package flash_attn seems to be not installed. Please refer to the documentation of "
        "https://huggingface.co/docs/transformers/perf_infer_gpu_one#flashattention-2 to install Flash "
        "Attention 2.\n\ni tried with pip but build failed because i think flash-attn v2 is not supported "
        "on native Windows",
        # zhangfaen/finetune-Qwen2-VL#20
        "# ImportError: FlashAttention2 has been toggled\n\nstaru09 · comment · 2025-01-04\nhey were you "
        "able to resolve this?\n\nzhangfaen · comment · 2025-01-05\nMany ones have run successfully without "
        "this error. Can you make a try from scratch to see if this error still exists\n\nstaru09 · comment "
        "· 2025-01-05\nI tried running it and got this same error.\nWill try again by changing version of "
        "some packages.",
    ]
    for text in cases:
        lead = _led_by(text, "flash_attn.not_installed")
        assert 'attn_implementation="sdpa"' in lead.fix.text and "prebuilt" in lead.fix.text
    # flash-attn installed but the GPU too old stays the other entry (constructed)
    _led_by("RuntimeError: FlashAttention only supports Ampere GPUs or newer.", "flash_attn.gpu_too_old")


def test_an_out_of_memory_at_test_time_told_in_words_gets_the_inference_levers() -> None:
    # The test run, not training, ran out ('when testdata is mentioned', 'when I ran the test script'); the
    # answers were a smaller batch for the test run (NVlabs/Deep_Object_Pose#75: 'I set the test batch size to
    # 16 and it's working fine now'; layumi/Person_reID_baseline_pytorch#66: '--batchsize 32 when testing').
    cases = [
        # NVlabs/Deep_Object_Pose#75
        "# When using --datatest (test dataset), GPU runs out of memory.\n\nAbdul-Mukit · description · "
        "2019-09-14\nI am training on about 12k images, and I have 2000 test images. I am using a "
        "batch-size of 32 as I have 2 GPUs (total 24Gb). When using the train.py with no testdata, training "
        'runs fine. But when testdata is mentioned, I get " cuda runtime error (2) : out of memory " '
        "error. What should I do?",
        # layumi/Person_reID_baseline_pytorch#66
        "# cuda runtime error(2):out of memory\n\nhuinsysu · description · 2018-09-10\nHi, I have "
        "sucessfully trained the model. However, when I ran the test script, it didn't work due to the "
        "runtime error. Would you please tell me how much is the size of your gpu. I run the test script on "
        "a Titan with 12 GB memory... Thanks a lot!",
    ]
    for text in cases:
        lead = _led_by(text, "cuda.out_of_memory")
        assert lead.fix.text.startswith("At inference"), lead.fix.text
        assert "the batch size of the test or evaluation run" in lead.fix.text
    # a test of the installation is no test run (constructed)
    lead = _led_by(
        "RuntimeError: CUDA out of memory. Training on my RTX 3090 after a test install", "cuda.out_of_memory"
    )
    assert not lead.fix.text.startswith("At inference")


def test_a_bare_device_side_assert_names_the_programs_number_of_classes_against_the_datasets_labels() -> None:
    # The message alone, from a training on the writer's own dataset; each thread's cause was the program's
    # class setting left at another dataset's (chenyuntc/simple-faster-rcnn-pytorch#198: 'forget to modify
    # class nums'; zylo117/Yet-Another-EfficientDet-Pytorch#400: the obj_list's length against the classes;
    # GiovanniPasq/DA-Faster-RCNN#6: 'my labels are different from the model labels').
    cases = [
        # chenyuntc/simple-faster-rcnn-pytorch#198
        "# why always raise this error: RuntimeError: CUDA error: device-side assert "
        "triggered\n\nguanyonglai · description · 2020-06-07\n查了好多资料，有人说是标签超出范围，但是我查了"
        "标签页没有问题啊，",
        # zylo117/Yet-Another-EfficientDet-Pytorch#400
        "# RuntimeError CUDA error device-side assert triggered\n\nwgqbit95 · description · "
        "2020-06-18\n![1](https://user-images.githubusercontent.com/34861661/85000150-9f9eb800-b184-11ea-96a"
        "4-24ac5f278f96.png)\n\nPlz help me! I have checked my training data and there isn't any problem(I "
        "think)",
        # GiovanniPasq/DA-Faster-RCNN#6
        "# CUDA error when train on custom dataset\n\nhelia-mohamadi · description · 2023-08-03\nHello \nI "
        "use your model and code for my own dataset, but when I trained that I've got this error "
        ":\n\nRuntimeError: CUDA error: device-side assert triggered\nCUDA kernel errors might be "
        "asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor "
        "debugging consider passing CUDA_LAUNCH_BLOCKING=1.\nCompile with `TORCH_USE_CUDA_DSA` to enable "
        "device-side assertions.",
    ]
    for text in cases:
        lead = _led_by(text, "cuda.device_side_assert")
        assert "num_classes" in lead.fix.text and "start at 0" in lead.fix.text, lead.fix.text


def test_torch_not_compiled_with_cuda_without_an_nvidia_gpu_named_also_offers_the_cpu() -> None:
    # No GPU named, and each thread's fix was the CPU (karpathy/nanoGPT#281: "change this value in train.py
    # device = 'cpu'", 'That fixed it thanks'; liun-online/HeCo#15: the .cuda() call taken out;
    # BoltzmannEntropy/xtts2-ui#28: "device = torch.device('cpu') ... it'll work").
    cases = [
        # karpathy/nanoGPT#281
        "# AssertionError: Torch not compiled with CUDA enabled\n\nKeller2 · description · "
        "2023-05-22\nWhenever trying to run train.py from the repository I run into the issue "
        '"AssertionError: Torch not compiled with CUDA enabled" does anyone have any advice on how to fix '
        "this?",
        # BoltzmannEntropy/xtts2-ui#28
        "# AssertionError: Torch not compiled with CUDA enabled\n\n0wwafa · description · 2024-06-06\nI did "
        "everything in the README.\n(I am using CPU only)\n\nWhen running python app.py I get: "
        "AssertionError: Torch not compiled with CUDA enabled",
        # liun-online/HeCo#15
        "# Torch not compiled with CUDA enabled.\n\nhilarioushappystar · description · 2024-05-02\nIf I am "
        "not using gpu then line 84 of sc_encoder.py causes an assertion error: Torch not compiled with "
        "CUDA enabled.\nI can fix this by commenting out the characters “.cuda()” in line 84. Is there a "
        "better solution, e.g. adding an if statement to check the value of torch.cuda.is_available()?",
    ]
    for text in cases:
        lead = _led_by(text, "torch.not_compiled_with_cuda")
        assert "torch.cuda.is_available()" in lead.fix.text, lead.fix.text
    # with an NVIDIA GPU named, the CUDA build alone (constructed)
    lead = _led_by(
        "AssertionError: Torch not compiled with CUDA enabled, on my RTX 3090", "torch.not_compiled_with_cuda"
    )
    assert "device = 'cpu'" not in lead.fix.text


def test_volatile_true_beside_an_out_of_memory_is_torch_0_4s_removal_of_it() -> None:
    # Code written for torch 0.3 passes volatile=True, which does nothing since torch 0.4 (its UserWarning
    # says so): evaluation keeps every graph; the fix was torch.no_grad() (jingxil/Neural-Decision-Forests#2:
    # the maintainer 'this code is written in PyTorch 0.3'; forrestl111/deform_conv_pytorch#1 and
    # ImagingLab/ICIAR2018#5 print the warning before the out-of-memory).
    lead = _led_by(
        "# Cuda memory error when perform evalution\n\nJohn1231983 · description · 2018-03-15\nI am running "
        "your code in python with TitanX. After completed training, I got below error. I am not sure that "
        "this error comes from GPU issue or not. How can I fix it? Thanks\n```\nTrain Epoch: 1 [59520/60000 "
        "(99%)]\tLoss: 0.255778\nTrain Epoch: 1 [59840/60000 (100%)]\tLoss: 0.313443\nSpends "
        "9.129980778694152s for each training epoch\ndemo.py:173: UserWarning: volatile was removed and now "
        "has no effect. Use `with torch.no_grad():` instead.\n  data, target = Variable(data, "
        "volatile=True), Variable(target)\nTHCudaCheck FAIL file=/home/john/pytorch/aten/src/THC/generic/THC"
        "Storage.cu line=58 error=2 : out of memory\nTraceback (most recent call last):\n  File "
        '"demo.py", line 190, in <module>\n    test()\n  File "demo.py", line 174, in test\n    output '
        '= model(data)\n  File "/home/john/anaconda3/lib/python3.6/site-packages/torch/nn/modules/module.py'
        '", line 371, in __call__\n    result = self.forward(*input, **kwargs)\n  File "demo.py", line '
        "82, in forward\n    x = F.relu(self.conv4(x, offsets))\n  File "
        '"/home/john/anaconda3/lib/python3.6/site-packages/torch/nn/modules/module.py", line 371, in '
        "__call__\n    result = self.forward(*input, **kwargs)\n  File "
        '"/home/john/deform_conv_pytorch/deform_conv.py", line 59, in forward\n    x_q_lt = '
        'self._get_x_q(x, q_lt, N)\n  File "/home/john/deform_conv_pytorch/deform_conv.py", line 117, in '
        "_get_x_q\n    x_offset =",
        "cuda.out_of_memory",
    )
    assert any("volatile" in line for line in lead.evidence), lead.evidence
    assert lead.fix.text.startswith("The code passes volatile=True") and "torch.no_grad()" in lead.fix.text
    for text in (
        "# Compatibility problem since PyTorch Update\n\nNicholasli1995 · description · 2018-09-17\nSince "
        "PyTorch updated, 'volatile' no longer works in the newest version. Running the current code will "
        "result in CUDA memory error if 'volatile' was not changed into 'with torch.no_grad():'.",
        "# out of memory error\n\nouceduxzk · description · 2018-09-28\n------------ Options "
        "-------------\nbatch_size: 64\nbeta1: 0.9\nbeta2: 0.999\nchannels: 1\ncheckpoints_path: "
        "./checkpoints\ncuda: True\ndataset_path: ./dataset\ndebug: False\nensemble: 1\nepochs: "
        "30\ngpu_ids: 1\nlog_interval: 50\nlr: 0.001\nnetwork: 0\nno_cuda: False\npatch_stride: 256\nseed: "
        "1\ntest_batch_size: 1\ntestset_path: ./dataset/test\n-------------- End "
        '----------------\n\nLoading "patch-wise" model...\nLoading "patch-wise" '
        "model...\n\n/home/zaikun/zaikun/ICIAR2018/src/models.py:222: UserWarning: volatile was removed and "
        "now has no effect. Use `with torch.no_grad():` instead.\n  res = "
        "self.network.features(Variable(input_tensor, volatile=True))\n00) Normal (100.0%) \t "
        'test0.tif\nTraceback (most recent call last):\n  File "test.py", line 23, in <module>\n    '
        "im_model.test(args.testset_path, ensemble=args.ensemble == 1)\n  File "
        '"/home/zaikun/zaikun/ICIAR2018/src/models.py", line 430, in test\n    patches = '
        'self.patch_wise_model.output(image)\n  File "/home/zaikun/zaikun/ICIAR2018/src/models.py", line '
        "222, in output\n    res = self.network.features(Variable(input_tensor, volatile=True))\n  File "
        '"/home/zaikun/.local/lib/python3.6/site-packages/torch/nn/modules/module.py", line 477, in '
        "__call__\n    result = self.forward(*input, **kwargs)\n  File "
        '"/home/zaikun/.local/lib/python3.6/site-packages/torch/nn/modules/container.py", line 91, in '
        'forward\n    input = module(input)\n  File "/home/zaikun/.local/lib',
    ):
        lead = _led_by(text, "memory.graph_kept_in_eval")
        assert "volatile=True has done nothing since torch 0.4" in lead.cause


def test_two_gpus_in_a_program_that_chose_none_are_several_gpus_visible() -> None:
    # A program that chooses no GPU met tensors on two: it spread over every visible GPU, and one GPU made
    # visible cured it (bytedance/Sa2VA#85 on an 8-GPU node: 'set the visible GPUs to just one ...
    # CUDA_VISIBLE_DEVICES=0'; haotian-liu/LLaVA#507 on two 4090s: 'the current code tries to use all GPUs';
    # the four threads of test_tensors_on_two_gpus_are_told_apart_from_a_cpu_and_gpu_mismatch likewise).
    for text in (
        "# Why I try the test the video, in a 8gpu node, it said the gpu is not in different "
        "devices\n\nRuntimeError: Expected all tensors to be on the same device, but found at least two "
        "devices, cuda:0 and cuda:6!",
        "* ` CUDA_VISIBLE_DEVICES=0  --model-path liuhaotian/llava-v1.5-7b`: \n\nWorks :tada:\n\n* "
        "`--model-path liuhaotian/llava-v1.5-7b`: \n \nFails with\n\n`RuntimeError: Expected all tensors to "
        "be on the same device, but found at least two devices, cuda:0 and cuda:1! (when checking argument "
        "for argument tensors in method wrapper_CUDA_cat)`",
    ):
        lead = _led_by(text, "tensors.different_devices")
        assert lead.cause.startswith("An operation got tensors on two GPUs: more than one GPU is visible")
        assert lead.fix.text.startswith("Run on one GPU") and "CUDA_VISIBLE_DEVICES=0 python" in lead.fix.text
    # a program that chose a GPU (self.device = 'cuda:1') is told of the choice first, with that GPU made
    # visible (OpenBMB/MiniCPM-V#839: 'CUDA_VISIBLE_DEVICES=1')
    lead = _led_by(
        "# minicpm-o 2.6 int4在cuda:1上推理出错: Expected all tensors to be on the same "
        "device\n\n参考`https://huggingface.co/openbmb/MiniCPM-o-2_6-int4`，\n在局域网服务器上部署了`openbmb"
        "/MiniCPM-o-2_6-int4`模型，在另一台电脑上通过`web`访问。\n因为第一个显卡可用显存不足，所以在`model_s"
        "erver.py`中修改了`self.device = 'cuda:1'`\n测试实时语音通话，报错:\n```\nERROR-[model_server_int4.p"
        "y:559] - Error happened during generation: Expected all tensors to be on the same device, but "
        "found at least two devices, cuda:1 and cuda:0! (when checking argument for argument index in "
        "method wrapper_CUDA__index_select)\n```",
        "tensors.different_devices",
    )
    assert lead.cause.startswith("An operation got tensors on two GPUs: one part of the program chose a GPU")
    assert "CUDA_VISIBLE_DEVICES=1 python" in lead.fix.text


def test_an_error_caught_in_a_dataparallel_replica_is_the_multi_gpu_path() -> None:
    # DataParallel's wrapper line with no message inside that says why: the model's code fails in the
    # replicas, and one GPU (or one process per GPU) cured it (wzhwzhwzh0921/S-D-Mamba#22: '我一直用的单卡';
    # HLTCHKUST/MulQG#5: an nn.ParameterList empty in the replicas since torch 1.5;
    # JIA-Lab-research/Stratified-Transformer#75: 'running fine when I do ... model = model.cuda()';
    # thunlp/OpenDelta#18: 'when transferred to a single card to run, no more errors';
    # hiyouga/LlamaFactory#128: 'accelerate 或 deepspeed 启动多卡训练').
    for text in (
        # wzhwzhwzh0921/S-D-Mamba#22
        "# 使用多gpu训练时会报错\n\naichicaideyang · description · 2024-10-14\n单gpu的时候代码没问题，但是好"
        "像只要切多gpu就会报错，作者会有这个问题吗？\nTypeError: Caught TypeError in replica 1 on device "
        "1.\n\naichicaideyang · comment · 2024-10-14\n指的是mamba2....",
        # HLTCHKUST/MulQG#5
        "# IndexError: Caught IndexError in replica 0 on device 0.\n\nlizhenping · description · "
        "2021-02-25\nI run as the direct,but got a errot IndexError: Caught IndexError in replica 0 on "
        "device 0.",
        # JIA-Lab-research/Stratified-Transformer#75
        "# DataParallel error -> RuntimeError: Caught RuntimeError in replica 0 on device 0\n\npraj441 · "
        "description · 2022-12-30\n I am not able to use your code with multi GPU training using "
        "nn.(DataParallel) error. The code is running fine when I do -\nmodel = "
        "torch.nn.DataParallel(model.cuda()) ----> model = model.cuda()\n\nHave you tried using the code "
        "with DataParallel enabled?\n\nLog snippets - \n\noutput = net(feat, coord, offset, batch, "
        'neighbor_idx)\n  File "/home/prem/anaconda3/envs/alpha/lib/python3.7/site-packages/torch/nn/module'
        's/module.py", line 1051, in _call_impl\n    return forward_call(*input, **kwargs)\n  File '
        '"/home/prem/anaconda3/envs/alpha/lib/python3.7/site-packages/torch/nn/parallel/data_parallel.py",'
        " line 168, in forward\n    outputs = self.parallel_apply(replicas, inputs, kwargs)\n  File "
        '"/home/prem/anaconda3/envs/alpha/lib/python3.7/site-packages/torch/nn/parallel/data_parallel.py",'
        " line 178, in parallel_apply\n    return parallel_apply(replicas, inputs, kwargs, "
        'self.device_ids[:len(replicas)])\n  File "/home/prem/anaconda3/envs/alpha/lib/python3.7/site-packa'
        'ges/torch/nn/parallel/parallel_apply.py", line 86, in parallel_apply\n    output.reraise()\n  '
        'File "/home/prem/anaconda3/envs/alpha/lib/python3.7/site-packages/torch/_utils.py", line 425, in '
        "reraise\n    raise self.exc_type(msg)\nRuntimeError: Caught RuntimeError in replica 0 on device 0.",
        # thunlp/OpenDelta#18
        "# error when running on multiple cards\n\nwangdeze18 · description · 2022-05-17\nWhen running the "
        "program with the adapter inserted on multiple cards, \n`from opendelta import "
        "AdapterModel`\n`delta_model = AdapterModel(backbone_model=model, modified_modules=['fc2'], "
        "bottleneck_dim=12)`\n\nthe following error occurs, \n`RuntimeError: Caught RuntimeError in replica "
        "0 on device 0.`\nand when transferred to a single card to run, no more errors are reported.",
        # hiyouga/LlamaFactory#128
        "# RuntimeError: Caught RuntimeError in replica 1 on device 1. 多卡并行报错\n\nzhangxs131 · "
        'description · 2023-07-06\n<img width="1452" alt="截屏2023-07-06 17 30 25" '
        'src="https://github.com/hiyouga/LLaMA-Efficient-Tuning/assets/96735521/0d44e3af-c6c7-45ef-bbc7-f8b'
        'b52188ff9">',
    ):
        found = [e for e in _explained(text) if e.id == "dataparallel.error_in_replica"]
        assert found, _ids(text)
        assert "DataParallel's replicas" in found[0].cause and "one GPU" in found[0].cause
        assert "CUDA_VISIBLE_DEVICES=0" in found[0].fix.text and "torchrun" in found[0].fix.text
        assert any("in DataParallel's replica" in line for line in found[0].evidence), found[0].evidence
    # the error inside the replica leads where it is known (constructed)
    inner = _ids(
        "RuntimeError: Caught RuntimeError in replica 0 on device 0.\nOriginal Traceback (most recent "
        "call last):\nRuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 10.76 GiB "
        "total capacity; 9.80 GiB already allocated; 5.44 MiB free; 9.96 GiB reserved in total by PyTorch)"
    )
    assert inner[0] == "cuda.out_of_memory", inner


def test_a_capability_warning_says_which_way_the_build_misses_the_gpu() -> None:
    # torch's warning gives the GPU's sm and the build's arch list: the cause names both, and whether the
    # build stops below the GPU (a build for an older CUDA: the threads upgraded torch) or starts above it (an
    # old GPU dropped: the threads installed an older CUDA build). open-mmlab/mmcv#1558 ('I had the same
    # problem and had solved by taking ... advice': the CUDA 11.3 build), bismex/MetaBIN#15 (torch 1.10.1),
    # hmorimitsu/ptlflow#41 ('solved after reinstalling pytorch'), lmoe/wyoming-xtts#1 (a cu128 image: 'It
    # works now').
    for text, gpu, last in (
        # open-mmlab/mmcv#1558
        (
            "# NVIDIA GeForce RTX 3090 with CUDA capability sm_86 is not compatible with the current "
            "PyTorch installation\n\nsome errors occur when I install mmcv-full, the full error are as "
            "follows:\n\n  NVIDIA GeForce RTX 3090 with CUDA capability sm_86 is not compatible with the "
            "current PyTorch installation.\n  The current PyTorch install supports CUDA capabilities sm_37 "
            "sm_50 sm_60 sm_70 sm_75.\n  If you want to use the NVIDIA GeForce RTX 3090 GPU with PyTorch, "
            "please check the instructions at https://pytorch.org/get-started/locally/\n\nand my "
            "environment is :\nubuntu\nRTX 3090\nCUDA 10.1 (nvcc)\n\nhow to solve this problem?",
            86,
            75,
        ),
        # bismex/MetaBIN#15
        (
            "# CUDA capability---rtx 3060\n\nNVIDIA GeForce RTX 3060 with CUDA capability sm_86 is not "
            "compatible with the current PyTorch installation.\nThe current PyTorch install supports CUDA "
            "capabilities sm_37 sm_50 sm_60 sm_61 sm_70 sm_75 compute_37.\nIf you want to use the NVIDIA "
            "GeForce RTX 3060 GPU with PyTorch, please check the instructions at "
            "https://pytorch.org/get-started/locally/",
            86,
            75,
        ),
        # hmorimitsu/ptlflow#41
        (
            "# Update the pytorch version in repository version to compatible with newer GPU\n\nHi "
            'hmorimitsu,\n\nI got this warning when using the repository with RTX 3090:\n\n"NVIDIA GeForce '
            "RTX 3090 with CUDA capability sm_86 is not compatible with the current PyTorch "
            "installation.\nThe current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 "
            'sm_70."\n\nCan you update the codes for it to be compatible with newer GPUs?\n\nThank you for '
            "your good works.",
            86,
            70,
        ),
        # lmoe/wyoming-xtts#1
        (
            "# CUDA capability sm_120\n\nI tried to run this container, but got a "
            "warning:\n```\n/opt/venv/lib/python3.11/site-packages/torch/cuda/__init__.py:287: "
            "UserWarning:\nNVIDIA GeForce RTX 5060 Ti with CUDA capability sm_120 is not compatible with "
            "the current PyTorch installation.\nThe current PyTorch install supports CUDA capabilities "
            "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.\nIf you want to use the NVIDIA GeForce RTX 5060 Ti "
            "GPU with PyTorch, please check the instructions at https://pytorch.org/get-started/locally/\n``"
            "`",
            120,
            90,
        ),
    ):
        lead = _led_by(text, "cuda.no_kernel_image")
        assert lead.cause.startswith(f"This torch build does not support sm_{gpu}"), lead.cause
        assert f"its kernels stop at sm_{last}" in lead.cause and "older CUDA" in lead.cause


def test_torchs_newer_capability_warnings_are_read() -> None:
    # torch 2.7 to 2.10 print "Minimum and Maximum cuda capability supported by this version of PyTorch is
    # (7.0) - (12.0)", torch 2.11 on "which is of compute capability (CC) 7.0" with a line per built
    # capability: an old GPU under a build that dropped it, cured by a CUDA 12.6 build
    # (mmartial/ComfyUI-Nvidia-Docker#61, merged #63 'Force Torch to use cu126 for older CUDA cards';
    # rishikanthc/Scriberr#273, a cu126 image; pytorch/pytorch#182250, '2.11+cu126').
    for text in (
        # mmartial/ComfyUI-Nvidia-Docker#61
        "# 1080Ti - CUDA / PyTorch / Me being daft\n\nSl3ipnir-Sec · description · 2025-08-09\nHi,\nI've "
        "installed on unRaid on a machine that has a 1080Ti. The 1080Ti works fine for passthrough for "
        "ollama etc, but I'm getting errors trying to generate images with Comfy:\n```\n!!! Exception "
        "during processing !!! CUDA error: no kernel image is available for execution on the device\nCUDA "
        "kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
        "might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with "
        "`TORCH_USE_CUDA_DSA` to enable device-side assertions.\n```\n\nI also see the following error on "
        "boot:\n```\n`/comfy/mnt/venv/lib/python3.12/site-packages/torch/cuda/__init__.py:283: UserWarning: "
        "\n    Found GPU0 NVIDIA GeForce GTX 1080 Ti which is of cuda capability 6.1.\n    Minimum and "
        "Maximum cuda capability supported by this version of PyTorch is\n    (7.0) - (12.0)\n    \n  "
        "warnings.warn(\n/comfy/mnt/venv/lib/python3.12/site-packages/torch/cuda/__init__.py:304: "
        "UserWarning: \n    Please install PyTorch with a following CUDA\n    configurations:  12.6 "
        "following instructions at\n    https://pytorch.org/get-started/locally/\n    \n  "
        "warnings.warn(matched_cuda_warn.format(matched_arches))\n/comfy/mnt/venv/lib/python3.12/site-packag"
        "es/torch/cuda/__init__.py:326: UserWarning: \nNVIDIA GeForce GTX 1080 Ti with CUDA capability "
        "sm_61 is not compatible with the current PyTorch installation.\nThe",
        # rishikanthc/Scriberr#273
        "# Project is not working with Nvidia GTX Series 10\n\nManuEZ · description · 2025-11-27\nAs the "
        "title says, when trying to use CUDA, it says that the version of PyTorch doesnt work with sm_61. "
        "It says that in order to properly work we need to use pytorch with cu126\n\nThe error is the "
        "following:\n\n/app/whisperx-env/WhisperX/.venv/lib/python3.10/site-packages/torch/cuda/__init__.py:"
        "283: UserWarning:\n\nFound GPU0 NVIDIA GeForce GTX 1070 Ti which is of cuda capability "
        "6.1.\n\nMinimum and Maximum cuda capability supported by this version of PyTorch is (7.0) - "
        "(12.0)\n\nNVIDIA GeForce GTX 1070 Ti with CUDA capability sm_61 is not compatible with the current "
        "PyTorch installation.\n\nThe current PyTorch install supports CUDA capabilities sm_70 sm_75 sm_80 "
        "sm_86 sm_90 sm_100 sm_120.\n\nIf you want to use the NVIDIA GeForce GTX 1070 Ti GPU with PyTorch, "
        "please check the instructions at https://pytorch.org/get-started/locally/.\n\nPlease install "
        "PyTorch with a following CUDA configurations: 12.6",
        # pytorch/pytorch#182250
        "# `torch.cuda.get_device_capability()` provides wrong version recommendation\n\n[turn 0 by MaKaNu, "
        "continued]\n```shell\nCollecting environment information...\n/home/matti/test/test_torch_2.7/.venv/"
        "lib/python3.12/site-packages/torch/cuda/__init__.py:371: UserWarning: Found GPU0 Tesla "
        "V100-PCIE-32GB which is of compute capability (CC) 7.0.\nThe following list shows the CCs this "
        "version of PyTorch was built for and the hardware CCs it supports:\n- 7.5 which supports hardware "
        "CC >=7.5,<8.0\n- 8.0 which supports hardware CC >=8.0,<9.0 except {8.7}\n- 8.6 which supports "
        "hardware CC >=8.6,<9.0 except {8.7}\n- 9.0 which supports hardware CC >=9.0,<10.0\n- 10.0 which "
        "supports hardware CC >=10.0,<11.0 except {10.1}\n- 12.0 which supports hardware CC "
        ">=12.0,<13.0\nPlease follow the instructions at https://pytorch.org/get-started/locally/ to "
        "install a PyTorch release that supports one of these CUDA versions: 12.6, 12.8\n  "
        "_warn_unsupported_code(d, device_cc, code_ccs)\n/home/matti/test/test_torch_2.7/.venv/lib/python3.1"
        "2/site-packages/torch/cuda/__init__.py:371: UserWarning: Found GPU1 Tesla V100-PCIE-32GB which is "
        "of compute capability (CC) 7.0.\nThe following list shows the CCs this version of PyTorch was "
        "built for and the hardware CCs it supports:\n- 7.5 which supports hardware CC >=7.5,<8.0\n- 8.0 "
        "which supports hardware CC >=8.0,<9.0 except {8.7}\n- 8.6 which supports hardware CC >=8.6,<9.0 "
        "excep",
    ):
        lead = _led_by(text, "cuda.no_kernel_image")
        assert "This torch build no longer supports sm_" in lead.cause, lead.cause
        assert "dropped" in lead.cause and "CUDA 12.6" in lead.fix.text, lead.fix.text
    # a GB10 (12.1) beside a build to 12.0 runs the build's sm_120 kernels: the warning is harmless
    # (eugr/spark-vllm-docker#15: 'Yes, you can safely ignore it.')
    lead = _led_by(
        "# PyTorch build does not support SM 12.1?\n\nSpiffyStores · description · 2026-01-20\nSorry if "
        "this is a dumb question, but I'm still new to this.\n\nJust pulled the latest update and did a "
        "build and saw this message in the runtime log -\n\n```\nFound GPU0 NVIDIA GB10 which is of cuda "
        "capability 12.1. Minimum and Maximum cuda capability supported by this version of PyTorch is (8.0) "
        "- (12.0)\n```\n\nIs this to be expected?",
        "cuda.no_kernel_image",
    )
    assert lead.cause.startswith("A warning only") and lead.fix.text.startswith("Nothing to fix")


def test_a_build_without_the_gpus_architecture_told_in_words() -> None:
    # No message, the writer's words: "does not contain sm_61", "CUDA 12.9 incompatibility with GTX series
    # GPUs", "compatibility issues ... 'unsupported GPU architecture'", with the GPU or its capability named
    # (deepbeepmeep/Wan2GP#1933: the cu118 build 'solves' it; Comfy-Org/ComfyUI#9929: reinstalling an older
    # CUDA build of 2.8.0 'worked'; nagadomi/nunif#467: 'P40(sm_61) is not supported' by the cu128 build).
    for text in (
        # deepbeepmeep/Wan2GP#1933
        "# Older Nvidia GPU support: use RTX 10XX\n\nslg888-git · description · 2026-06-21\nOlder RTX 10XX  "
        "and Pascal architecture GPUs are only capable of CUDA compute capability up to 6.1 (CUDA "
        "11.7).\n\nIs there any plans in the near future to  support the older cards for the truly GPU poor "
        "group? (pytorch==2.0.1 torchvision==0.15.2 torchaudio==2.0.2 pytorch-cuda=11.7 -c pytorch -c "
        "nvidia)\n\nThank you.\n\nslg888-git · comment · 2026-06-21\nUpdate, as of June 21, 2026,  the "
        "pre-compiled PyTorch 2.7.1 binary pulled using the pip  command  in the instruction, does not "
        "contain sm_61, which is needed for the older RTX 10xx Pascal architecture cards\n\nAfter the 'pip "
        "install -r requirements.txt' step, I ran the following :\n\npip install torch==2.7.1 "
        "torchvision==0.22.1 torchaudio==2.7.1 --index-url https://download.pytorch.org/whl/cu118\n\nThe "
        "command was able to install PyTorch related packages, but did not complete to the end due to "
        "Pillow dependency problem.\nHowever,  this solves the pyTorch 2.7.1 CUDA kernel image sm_61 "
        "capability support issue.",
        # Comfy-Org/ComfyUI#9929
        "# CUDA 12.9 incompatibility with GTX series GPUs (Pascal architecture)\n\nJuste-Leo2 · description "
        "· 2025-09-18\nHello,  \n\nI recently installed **ComfyUI Desktop**.  \n**Setup:** i7-8750H, GTX "
        "1070, 16 GB RAM.  \n**Versions:** PyTorch 2.8.0 + cu129  \n\nAt startup, I noticed warnings about "
        "an incompatibility.  \nWhen trying to use Flux Schnell, I ran into a kernel-related error.  \n\nI "
        "found a workaround: since I already had **CUDA Toolkit 12.8** installed, I reinstalled `torch`, "
        "`torchvision`, and `torchaudio` with version **2.8.0+cu128`.  \nAfter that, ComfyUI worked "
        "successfully.  \n\nI’m opening this issue to report this potential problem, and to help beginners "
        "or users with older hardware configurations.  \n\nThanks to the ComfyUI team for your great work!",
        # nagadomi/nunif#467
        "# How to Add Support for Older GPUs (e.g., V100, P40)\n\nAndyxhw · description · 2025-08-26\nI'm "
        "working on a project and need to ensure it supports older GPU models like the Tesla V100 and Tesla "
        "P40. However, I've encountered compatibility issues—for example, certain dependencies, frameworks, "
        'or code optimizations seem to be tailored for newer GPUs, leading to errors (e.g., "unsupported '
        'GPU architecture" or runtime crashes) when running on V100/P40.\nI’d appreciate guidance on the '
        "following:\nAre there specific framework versions (e.g., PyTorch, TensorFlow, CUDA Toolkit) that "
        "are better suited for V100 (CUDA Compute Capability 7.0) and P40 (CUDA Compute Capability "
        "6.1)?\nWhat modifications are needed in code or build configurations to adapt modern projects "
        "(e.g., using mixed precision training, newer kernel APIs) for these older GPUs?\nAre there known "
        "workarounds for common compatibility issues (e.g., missing operator support, performance "
        "bottlenecks) when targeting V100/P40?\nAny examples, documentation links, or practical tips would "
        "be extremely helpful. Thanks in advance!",
    ):
        lead = _led_by(text, "cuda.no_kernel_image")
        assert "sm_61" in lead.cause, lead.cause


def test_torch_1_0s_backend_and_dtype_words_are_a_device_or_a_dtype_mismatch() -> None:
    # torch 1.0 and 1.1 said "expected backend CUDA and dtype Float but got backend CPU and dtype Float":
    # another backend is another device (lukemelas/EfficientNet-PyTorch#32: torch.rand in drop_connect made
    # on the CPU, 'now fixed in master'; shaoshengsong/MobileNetV3-SSD#5: the predictor built for the CPU,
    # priors on CUDA, 'change device ... to torch.device('cuda:0')'; NVIDIA/DeepLearningExamples#245 and
    # open-mmlab/mmdetection#959 print the same words), the same backend another dtype.
    lead = _led_by(
        "# CUDA -> CPU issue\n\nkamwoh · description · 2019-06-20\n```\ndef drop_connect(inputs, p, "
        'training):\n    """ Drop connect. """\n    if not training: return inputs\n    batch_size = '
        "inputs.shape[0]\n    keep_prob = 1 - p\n    random_tensor = keep_prob\n    random_tensor += "
        "torch.rand([batch_size, 1, 1, 1], dtype=inputs.dtype)  # uniform [0,1)\n    binary_tensor = "
        "torch.floor(random_tensor)\n    output = inputs / keep_prob * binary_tensor # error happens here\n "
        "   return output\n```\n\nFaced error: RuntimeError: expected backend CUDA and dtype Float but got "
        "backend CPU and dtype Float\n\nwhen I try to run on GPU, this error happens, the error direct me "
        "to this line, I think we should convert `binary_tensor` to inputs.device: \n\n`binary_tensor = "
        "torch.floor(random_tensor).to(inputs.device)`",
        "tensors.different_devices",
    )
    assert lead.evidence[0].startswith("a tensor on CPU met one on CUDA"), lead.evidence
    assert lead.fix.text.startswith("Make the tensor on the device of the input it meets")
    lead = _led_by(
        "# RuntimeError: expected backend CPU and dtype Float but got backend CUDA and dtype "
        "Float\n\nWestbrookZero · description · 2019-09-02\n请问一下，执行run_ssd_example.py脚本报这个错该如"
        '何解决？ Traceback (most recent call last):\n  File "run_ssd_example.py", line 57, in <module>\n '
        "   boxes, labels, probs = predictor.predict(image, 10, 0.4)\n  File "
        '"D:\\Projects\\DeepLearning\\MobileNetV3-SSD-master\\vision\\ssd\\predictor.py", line 37, in '
        "predict\n    scores, boxes = self.net.forward(images)\n  File "
        '"D:\\Projects\\DeepLearning\\MobileNetV3-SSD-master\\vision\\ssd\\ssd.py", line 100, in '
        "forward\n    locations, self.priors, self.config.center_variance, self.config.size_variance\n  "
        'File "D:\\Projects\\DeepLearning\\MobileNetV3-SSD-master\\vision\\utils\\box_utils.py", line '
        "104, in convert_locations_to_boxes\n    locations[..., :2] * center_variance * priors[..., 2:] + "
        "priors[..., :2],\nRuntimeError: expected backend CPU and dtype Float but got backend CUDA and "
        "dtype Float",
        "tensors.different_devices",
    )
    assert lead.evidence[0].startswith("a tensor on CUDA met one on CPU"), lead.evidence
    # the same backend with another dtype (the words of a comment in a public notebook's focal loss)
    lead = _led_by(
        "RuntimeError: expected backend CUDA and dtype Float but got backend CUDA and dtype Long",
        "tensors.different_dtypes",
    )
    assert lead.evidence == ("an input is Long where Float is expected",)


def test_cudnn_that_cannot_load_its_own_libraries_names_the_release_and_the_path() -> None:
    # cuDNN 8 and 9 load their sub-libraries (cudnn_ops_infer, cudnn_ops) themselves; the programs that meet
    # it load cuDNN outside torch (faster-whisper's CTranslate2): markgoodhead/dictate-wizard#2 (the app moved
    # to the CPU, 'Fixed.'), daswer123/xtts-finetune-webui#31 ('sudo apt install nvidia-cudnn'),
    # disler/always-on-ai-assistant#3 ('sudo apt install libcudnn9-cuda-12'),
    # MahmoudAshraf97/whisper-diarization#259 (cuDNN 9 and LD_LIBRARY_PATH).
    for text, library, release in (
        # markgoodhead/dictate-wizard#2
        (
            "# Could not load library cudnn_ops_infer64_8.dll. Error code 126\n\nJason-K · description · "
            "2023-06-14\nCould not load library cudnn_ops_infer64_8.dll. Error code 126\nPlease make sure "
            "cudnn_ops_infer64_8.dll is in your library path!",
            "cudnn_ops_infer64_8.dll",
            "8",
        ),
        # daswer123/xtts-finetune-webui#31
        (
            "# Error: libcudnn_ops_infer.so.8\n\nasdrabael · description · 2024-06-10\nI have cuDNN 8, I "
            "can find it by searching my directorys. its both in torch and in the nvidia cudnn folder, but "
            "I just get this error when I try to create a dataset:\n\nTo create a public link, set "
            "`share=True` in `launch()`.\nExisting language matches target language\nLoading Whisper "
            "Model!\nCould not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: cannot "
            "open shared object file: No such file or directory\nAborted (core dumped)\n\nI have it running "
            "in a venv that's using python 3.9 and have installed the requirements.txt as well as "
            "torch==2.1.1+cu118 torchaudio==2.1.1+cu118 and this error is driving me nuts. Any help would "
            "be appreciated.",
            "libcudnn_ops_infer.so.8",
            "8",
        ),
        # disler/always-on-ai-assistant#3
        (
            "# Error running on Linux: Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, "
            "libcudnn_ops.so.9, libcudnn_ops.so}\n\njrknox1977 · description · 2025-01-15\nError running on "
            "Linux: Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9, "
            "libcudnn_ops.so}\n\nI WAS able to resolve this with: \n`sudo apt install libcudnn9-cuda-12` "
            "\n\nI am running ubuntu 22",
            "libcudnn_ops.so.9.1.0",
            "9",
        ),
        # MahmoudAshraf97/whisper-diarization#259
        (
            "# Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9, "
            "libcudnn_ops.so} Invalid handle. Cannot load symbol cudnnCreateTensorDescriptor\n\nIGaganpreetS"
            "ingh · description · 2024-10-23\nplease help",
            "libcudnn_ops.so.9.1.0",
            "9",
        ),
    ):
        lead = _led_by(text, "lib.cannot_open_shared_object")
        assert lead.evidence == (f"missing: {library}",), lead.evidence
        assert lead.cause.startswith("cuDNN could not load one of its own libraries"), lead.cause
        assert "LD_LIBRARY_PATH" in lead.fix.text and "device='cpu'" in lead.fix.text
        assert f"The file is cuDNN {release}'s" in lead.fix.text


def test_deformable_detrs_attention_op_is_a_compiled_extension() -> None:
    # MultiScaleDeformableAttention is Deformable DETR's CUDA op (models/ops), built by its make.sh or
    # setup.py, not a package on PyPI; the projects built on it (DINO, Mask2Former, their descendants) meet
    # it unbuilt.
    for text in (
        # ZhangGongjie/Meta-DETR#27 ('sh ./make.sh': 'My training has begun')
        "# does anyone meet the same problem with me?\n\nbeeper00 · description · "
        "2022-04-15\nModuleNotFoundError: No module named 'MultiScaleDeformableAttention'\n\nIn the file "
        "named ms_deform_attn_func.py , line 18，i can't import MultiScaleDeformableAttention. Maybe i "
        "haven't this file . could anyone tell me why? Thank you.",
        # IDEA-Research/OpenSeeD#23 ('sh make.sh', 'python setup.py build install')
        "# ModuleNotFoundError: No module named 'MultiScaleDeformableAttention'\n\nsaltoricristiano · "
        "description · 2023-08-25\nHello, \n\nI don't know if I was the unlucky one but for running the "
        "code I needed to compile MultiScaleDeformableAttention CUDA Op.\nIn order to solve the "
        "issue:\n```\ncd openseed/body/encoder/ops\nsh make.sh\n```\n\nHoping this will help people having "
        "the same issue!\nYou could add it in the installation instructions just in case!\nBest "
        "regards,\nsaltoricristiano",
        # yaoyao-liu/CL-DETR#4 ('run sh make.sh ... the error won't be seen again')
        "# ModuleNotFoundError: No module named 'MultiScaleDeformableAttention'\n\nMinseokkim-0124 · "
        "description · 2023-10-04\nHi while running the code I have some problem.\n\nHow can I deal with "
        'this problem? \n\nI tried pip install MutiScaleDeformableAttention but, I received "ERROR: Could '
        "not find a version that satisfies the requirement MultiScaleDeformableAttention (from versions: "
        'none)" error.\n\nCan anyone help this issue?',
        # rmcong/QPENet_TMM24#1 ('cd Deformable-DETR/models/ops; pip install .': 'Thank you very much')
        "# ModuleNotFoundError\n\nSaillxl · description · 2024-09-20\nThank you for your open source code, "
        "I would like to ask how to solve this problem?\nModuleNotFoundError: No module named "
        "'MultiScaleDeformableAttention'  ；",
    ):
        lead = _led_by(text, "extension.not_built")
        assert lead.evidence[0].startswith("the missing module MultiScaleDeformableAttention is a compiled")


def test_english_words_glued_to_chinese_are_read() -> None:
    # Chinese text glues English words to the characters around them, where Unicode's \\b sees letters:
    # "应该不会OOM吧" beside "8卡80G A100" (InternLM/xtuner#842), "报OOM" beside "显卡是A00 40G"
    # (fe1ixxu/ALMA#42), "中的deepspeed" (hiyouga/LlamaFactory#1221, whose fix was ZeRO stage 3: each process
    # held a whole copy under stage 2).
    for text in (
        "# 16卡微调LLama3 70B OOM\n\nheya5 · description · 2024-07-15\n2台8卡80G A100, batch size=1, "
        "deepspeed-zero3, 应该不会OOM吧?\n\n```\nexport NCCL_DEBUG=INFO\nexport "
        "NCCL_SOCKET_IFNAME=eth\nNPROC_PER_NODE=8 NNODES=2 PORT=18620 ADDR=10.0.0.5 NODE_RANK=1 xtuner "
        "train /home/a100user/llm_train_eval/experiments/exp04/llama3_70b_full_alpaca_e3/llama3_70b_full_alp"
        "aca_e3.py --deepspeed deepspeed_zero3\n```\n\n数据用的 alpaca, 代码根据 llama3_8b_full_alpaca_e3 "
        "改了下",
        "# OOM 问题, 显卡是A00 40G\n\ngongye19 · description · 2024-05-08\n用llama "
        "factory进行sft可以使用deepspeed zero2 微调llama3-8B的模型，但这个框架就算batch设为1，用deepspeed "
        "zero2也会报OOM。\n用zero3训练会变得很慢，出现这个问题：\n\n2 pytorch allocator cache flushes since "
        "last step. this happens when there is high memory pressure and is detrimental to performance. if "
        "this is happening frequently consider adjusting settings to reduce memory consumption. If you are "
        "unable to make the cache flushes go away consider adding get_accelerator().empty_cache() calls in "
        "your training loop to ensure that all ranks flush their caches at the same time\n",
    ):
        _led_by(text, "cuda.out_of_memory")
    lead = _led_by(
        "# 8卡V100 32G全量微调llama-7b OOM\n\nyyy01 · description · 2023-10-18\nbatch "
        "size=1也OOM，但理论上应该差不多刚刚显存够，请教一下有办法解决吗，报错如下：\n`denom = (exp_avg_sq.s"
        "qrt() / bias_correction2_sqrt).add_(eps)\ntorch.cuda.OutOfMemoryError: CUDA out of memory. Tried "
        "to allocate 3.14 GiB (GPU 5; 31.75 GiB total capacity; 28.28 GiB already allocated; 1.95 GiB free; "
        "28.28 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting "
        "max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and "
        "PYTORCH_CUDA_ALLOC_CONF`\n\nyyy01 · comment · 2023-10-18\n使用的是readme中的deepspeed zero "
        "stage2示例配置",
        "cuda.out_of_memory",
    )
    assert (
        "the job runs one process per GPU (deepspeed), each with a whole copy of the model" in lead.evidence
    )
    assert lead.fix.text.startswith("Each process holds a whole copy of the model")


def test_an_out_of_memory_of_a_job_sharded_already_offers_offload_or_fewer_parameters() -> None:
    # ZeRO stage 3 (or FSDP) shards the state already: what is left is CPU offload, LoRA or QLoRA, shorter
    # sequences or more GPUs (InternLM/xtuner#842, the maintainer: ZeRO-3 is still too big, CPU offload or
    # QLoRA; OpenBMB/MiniCPM-V#262, ZeRO-3 with CPU offload; haotian-liu/LLaVA#52 offloads with FSDP already).
    for text in (
        "# 16卡微调LLama3 70B OOM\n\nheya5 · description · 2024-07-15\n2台8卡80G A100, batch size=1, "
        "deepspeed-zero3, 应该不会OOM吧?\n\n```\nexport NCCL_DEBUG=INFO\nexport "
        "NCCL_SOCKET_IFNAME=eth\nNPROC_PER_NODE=8 NNODES=2 PORT=18620 ADDR=10.0.0.5 NODE_RANK=1 xtuner "
        "train /home/a100user/llm_train_eval/experiments/exp04/llama3_70b_full_alpaca_e3/llama3_70b_full_alp"
        "aca_e3.py --deepspeed deepspeed_zero3\n```\n\n数据用的 alpaca, 代码根据 llama3_8b_full_alpaca_e3 "
        "改了下",
        "# Two A100 GPUs for fine-tuning, insufficient memory?\n\nhekaijie123 · description · "
        "2024-06-13\nHello Author, I am using two A100 GPUs (40GB each) to run full-parameter fine-tuning. "
        "Regardless of whether I use the zero2 or zero3 configuration, it always shows that the memory is "
        'exceeded. However, according to the "Model Fine-tuning Memory Usage Statistics" table you '
        "provided below, GPUs2 uses 16GB of memory. How can this be resolved?",
    ):
        lead = _led_by(text, "cuda.out_of_memory")
        assert any(line.startswith("the job shards the model's state") for line in lead.evidence), (
            lead.evidence
        )
        assert lead.fix.text.startswith("The model's state is sharded over the GPUs already")
        assert "offload_optimizer" in lead.fix.text and "QLoRA" in lead.fix.text
    lead = _led_by(
        "# OOM error and fsdp support\n\nUnrealluver · description · 2023-04-24\nThanks for your excellent "
        "work! I have tried vicuna-13b on 8xA100(40G), but it will result in an OOM error. To avoid the GPU "
        'OOM error, I add the following commands to the pretraining scripts:\n```\n--fsdp "full_shard '
        "auto_wrap offload\" \\  \n--fsdp_transformer_layer_cls_to_wrap 'LlamaDecoderLayer' \\  \n--bf16 "
        "True \\\n```\n \nI got the error: \n\n```\nValueError: `FlatParameter` requires uniform "
        "`requires_grad`\n```\n\nCould you please provide some suggestions?",
        "cuda.out_of_memory",
    )
    assert lead.fix.text.startswith(
        "The model's state is sharded over the GPUs and offloaded to the CPU already"
    )


def test_a_gptq_model_with_modules_offloaded_cannot_use_exllama() -> None:
    # optimum's exllama kernels run only on the GPU; device_map="auto" put modules on the CPU or disk. The
    # fixes: the whole model on one GPU, or exllama off (axolotl-ai-cloud/axolotl#599: merged
    # gptq_disable_exllama; chatchat-space/Langchain-Chatchat#2165 quotes device_map="cuda:0" or exllama
    # off; ParisNeo/lollms-webui#467 loads on the CPU; vicgalle/zero-shot-reward-models#2).
    for text in (
        # axolotl-ai-cloud/axolotl#599 (the stored excerpt ends at the traceback's first line)
        "# Llama2 GPTQ training does not work\n\nNapuh · description · 2023-09-18\n### Please check that "
        "this issue hasn't been reported before.\n\n- [X] I searched previous [Bug "
        "Reports](https://github.com/OpenAccess-AI-Collective/axolotl/labels/bug) didn't find any similar "
        "reports.\n\n### Expected Behavior\n\nexecute `finetune.py` with `examples/llama-2/gptq-lora.yml`. "
        "\n\nExecution does not throw any error and the model trains fine.\n\n### Current "
        "behaviour\n\nExecution throws error after a while. It does not start the trainer "
        "whatsoever.\n\nError thrown:\n```\n[2023-09-18 11:25:48,695] [INFO] [axolotl.train.train:57] "
        "[PID:6348] [RANK:0] loading model and (optionally) peft_config...                                  "
        "                                                                                   [2023-09-18 "
        "11:28:06,557] [ERROR] [axolotl.load_model:321] [PID:6348] [RANK:0] Exception raised attempting to "
        "load model, retrying with AutoModelForCausalLM                                                     "
        "                               [2023-09-18 11:28:06,557] [ERROR] [axolotl.load_model:324] "
        "[PID:6348] [RANK:0] Found modules on cpu/disk. Using Exllama backend requires all the modules to "
        "be on GPU.You can deactivate exllama backend by setting `disable_exllama=True` in the quantization "
        "config object                                                                                      "
        "      Traceback (most recent call last):",
        # chatchat-space/Langchain-Chatchat#2165 (cut after the error)
        "# 英伟达 T4 显卡使用千问 Qwen-7B-Chat-Int4 模型加载错误 ValueError: Found modules on cpu/disk. "
        "Using Exllama or Exllamav2 backend requires all the modules to be on GPU.You can deactivate "
        "exllama backend by setting `di\n\nJackle910 · description · 2023-11-24\n**问题描述 / Problem "
        "Description**\n如题，由于 t4 显卡在加载 基础模型Qwen-7B-Chat时显存不够，因此尝试轻量化版本，已经安"
        "装了auto-gptq optimum flash-attn，在启动的时候报错:ValueError: Found modules on cpu/disk. Using "
        "Exllama or Exllamav2 backend requires all the modules to be on GPU.You can deactivate exllama "
        "backend by setting `disable_exllama=True` in the quantization config object",
        # ParisNeo/lollms-webui#467 (cut before the traceback)
        "# Exllama does not work with cpu only\n\njohanno · description · 2023-12-30\n## Expected "
        "Behavior\nuse cpu on hugging face\n\n## Current Behavior\nUsing device map: cpu\nCouldn't load "
        "model.\nCouldn't load model. Please verify your configuration file at "
        "/mnt/games_fast/lollms_data/configs or use the next menu to select a valid model\nBinding returned "
        "this exception : Found modules on cpu/disk. Using Exllama or Exllamav2 backend requires all the "
        "modules to be on GPU.You can deactivate exllama backend by setting `disable_exllama=True` in the "
        "quantization config object",
        # vicgalle/zero-shot-reward-models#2
        "# ValueError: Found modules on cpu/disk\n\nAkshatSaxena-23 · description · 2024-03-18\nI was "
        'trying to use Mistral-7B as the reward model but i kept getting error **"ValueError: Found '
        "modules on cpu/disk. Using Exllama or Exllamav2 backend requires all the modules to be on GPU.You "
        "can deactivate exllama backend by setting `disable_exllama=True` in the quantization config "
        'object"**.\nAll I did was changed the name of model and tokenizer in the '
        "\"configs/ppo_flan_sentiments.yml\" file. and changed the '__init__' method in the class "
        "ZeroShotRewardModel according to my model.\nCan someone tell what can i do to resolve the error?",
    ):
        lead = _led_by(text, "gptq.exllama_modules_offloaded")
        assert 'device_map="auto"' in lead.cause and "run only on the GPU" in lead.cause
        assert "device_map={'': 0}" in lead.fix.text and "use_exllama=False" in lead.fix.text


def test_an_rnns_input_and_hidden_state_on_two_devices_names_the_hidden_state() -> None:
    # aten's RNN check: the initial hidden state made without a device (talipucar/CPC#1;
    # Lightning-AI/pytorch-lightning#3738: 'I initialize hidden and cell with zeros using torch.zeros',
    # the hidden state 'defaultly assigned to the cpu'; taishan1994/pytorch_triple_extraction#8; and the other
    # way round, kdgutier/esrnn_torch#14 with device='cpu').
    for text, input_on, hidden_on in (
        # talipucar/CPC#1
        (
            '# Cuda not working\n\nmattiasstahre · description · 2021-10-07\nGetting "RuntimeError: Input '
            "and hidden tensors are not at the same device, found input tensor at cuda:0 and hidden tensor "
            'at CPU" when trying to use GPU.',
            "cuda:0",
            "CPU",
        ),
        # Lightning-AI/pytorch-lightning#3738 (cut after the error)
        (
            "# RuntimeError: Input and hidden tensors are not at the same device, found\n\ntugot17 · "
            "description · 2020-09-30\n## 🐛 Bug\n\nI train LSTM for character level  text generation. At "
            "first I initialize hidden and cell with zeros using `torch.zeros`. Unfortunately this tensors "
            "are defaultly assigned to the cpu so I get the following error while "
            "training\n\n```python\nRuntimeError: Input and hidden tensors are not at the same device, "
            "found input tensor at cuda:0 and hidden tensor at cpu\n```",
            "cuda:0",
            "cpu",
        ),
        # taishan1994/pytorch_triple_extraction#8 (cut after the error)
        (
            "# 隐层\n\nnewbieonCV · description · 2022-06-13\nTraceback (most recent call last):\n  File "
            '"get_result.py", line 120, in <module>\n    entities = get_ner_result(raw_text)\n  File '
            '"get_result.py", line 37, in get_ner_result\n    pred_entities = '
            'bertForNer.predict(raw_text, model_path)\n  File "/home/shijunwei/project/extract/extract/bert'
            '_bilstm_crf_ner/main.py", line 177, in predict\n    logits = model(token_ids.to(device), '
            "attention_masks.to(device), token_type_ids.to(device), None)\n  File "
            '"/home/shijunwei/.local/lib/python3.7/site-packages/torch/nn/modules/module.py", line 722, '
            "in _call_impl\n    result = self.forward(*input, **kwargs)\n  File "
            '"/home/shijunwei/project/extract/extract/bert_bilstm_crf_ner/bert_ner_model.py", line 75, in '
            "forward\n    seq_out, (hn, _) = self.lstm(seq_out, hidden)\n  File "
            '"/home/shijunwei/.local/lib/python3.7/site-packages/torch/nn/modules/module.py", line 722, '
            "in _call_impl\n    result = self.forward(*input, **kwargs)\n  File "
            '"/home/shijunwei/.local/lib/python3.7/site-packages/torch/nn/modules/rnn.py", line 577, in '
            "forward\n    self.dropout, self.training, self.bidirectional, self.batch_first)\nRuntimeError: "
            "Input and hidden tensors are not at the same device, found input tensor at cuda:0 and hidden "
            "tensor at cpu",
            "cuda:0",
            "cpu",
        ),
        # kdgutier/esrnn_torch#14 (cut before the code)
        (
            "# problem when executing the example of m4 (tensor problem)\n\nramdhan1989 · description · "
            "2020-09-17\nHi,\nI got error below : \nRuntimeError: Input and hidden tensors are not at the "
            "same device, found input tensor at cpu and hidden tensor at cuda:0",
            "cpu",
            "cuda:0",
        ),
    ):
        lead = _led_by(text, "tensors.different_devices")
        assert lead.evidence[0] == f"the RNN's input is on {input_on}, its hidden state on {hidden_on}"
        assert lead.cause.startswith("An RNN (nn.LSTM, nn.GRU, nn.RNN) got its input and its initial hidden")
        assert "device=x.device" in lead.fix.text and "pass no hidden state" in lead.fix.text


def test_unscaling_fp16_gradients_is_a_half_model_under_gradscaler() -> None:
    # torch's GradScaler refuses float16 gradients: the trained parameters are float16 themselves; the fix
    # keeps them float32 (huggingface/diffusers#6442: 'cast the torch.float16 to torch.float32 for trainable
    # parameters'; johannakarras/DreamPose#70, Microtreei/TSD-SR#11 and huggingface/accelerate#1778 print
    # the same words under fp16 mixed precision).
    for text in (
        '# raise ValueError("Attempting to unscale FP16 gradients.")\n\nhw-liang · description · '
        "2024-09-17\nI was trying to finetune the VAE decoder. I met this error: \n\nraise "
        'ValueError("Attempting to unscale FP16 gradients.").\n\nI set args.mixed_precision as fp16. And '
        "here is how I load the vae model:\n```\n    vae = AutoencoderKL.from_pretrained(\n        "
        'args.pretrained_model_name_or_path,\n        subfolder="vae",\n        use_safetensors=True\n    '
        ")\n```\n\nDo you have any suggestion?",
        '# When I train with mixed precision, I get a "ValueError: Attempting to unscale FP16 gradients" '
        "error.\n\nzjc24 · description · 2025-04-15\n# backward\naccelerator.backward(loss_g)\nif "
        "accelerator.sync_gradients:\n     params_to_clip = transformer_lora_parameters\n     "
        "accelerator.clip_grad_norm_(params_to_clip, args.max_grad_norm)\n\nGreat work! However, when I "
        'train with mixed_precision="fp16", I encounter a ValueError: Attempting to unscale FP16 '
        "gradients at the step accelerator.clip_grad_norm_(params_to_clip, args.max_grad_norm) in the "
        "train/train.py. Have you encountered this issue before? How did you resolve it? I look forward to "
        "your reply.",
        '# When I train with mixed precision, I get a "ValueError: Attempting to unscale FP16 gradients" '
        "error.",
    ):
        lead = _led_by(text, "amp.fp16_parameters")
        assert "float16 themselves" in lead.cause and "cast_training_params" in lead.fix.text
        assert (
            not lead.evidence
        )  # mixed_precision="fp16" keeps the weights float32: no evidence of half weights
    lead = _led_by(
        "pipe = StableDiffusionPipeline.from_pretrained(model_id, torch_dtype=torch.float16)\nValueError: "
        "Attempting to unscale FP16 gradients.",
        "amp.fp16_parameters",
    )  # constructed
    assert lead.evidence == ("the text makes the weights float16 (torch_dtype=torch.float16)",)


def test_older_xformers_words_for_operators_that_did_not_load() -> None:
    # xformers 0.0.13 to 0.0.16 said its compiled operators were missing in other words: 'No such operator
    # xformers::efficient_attention_forward_cutlass - did you forget to build xformers', 'No operator found
    # for this attention'; the threads reinstalled an xformers built for their torch.
    for text in (
        # kohya-ss/sd-scripts#362 ('pip uninstall xformers and pip install xformers and it worked')
        "# No such operator xformers::efficient_attention_forward_cutlass\n\nkopyl · description · "
        "2023-04-01\nHow to fix it?\n\nHere is the full code: https://pastebin.com/d3xEGEhC",
        # diffusion-classifier/diffusion-classifier#14 (the xformers 'that match torch' installed)
        "# No such operator xformers\n\nskylzh14 · description · 2023-09-12\nhello everyone!\ni encountered "
        'a problem which is "RuntimrError:No such operator xformers::efficient_attention_forward_cutlass - '
        "did you forget to build xformers with 'python setup.py develop'?\"when i run the code.\nI have "
        "looked for many solutions but none of them worked.Does anyone have a solution to make the code "
        "run?\nThanks!",
        # deeplearning-wisc/dream-ood#18 (xformers 0.0.13 beside another torch)
        "# After downloading xformers==0.0.13, the code still reports an error\n\nTaicaiChen · description "
        "· 2024-07-16\nI have installed xformers==0.0.13, but when executing the build script, I still get "
        'an error "RuntimeError: No such operator xformers::efficient_attention_forward_generic - did you '
        'forget to build xformers with `python setup.py develop`?"',
        # facebookresearch/xformers#627 (the 0.0.15 dispatcher's words; cut before the traceback)
        '# "No operator found for this attention" while implementing the _dispath_fw function (in '
        "dispatch.py) of xformers.ops.memory_effiicient_attention\n\nyukang123 · description · "
        "2023-01-09\nHi, everyone! I've been using the **xformer** to implement the codes cloned from "
        "**stabel diffusion v2** (https://github.com/Stability-AI/stablediffusion).  \n\nI installed the "
        "xformer successfully and the stable diffusion code automatically implement attention using "
        "xformers library. However, while implementing the xformers.ops.memory_efficient_attention "
        'function, the error, "No operator found for this attention", occurred (shown in the below part).',
    ):
        lead = _led_by(text, "xformers.not_built_for_torch")
        assert "Reinstall xformers built for the installed torch" in lead.fix.text


def test_a_generator_of_another_device_is_the_samplers_cpu_generator_under_a_cuda_default() -> None:
    # ATen's check_generator: a DataLoader's sampler (or random_split) draws torch.randperm with a CPU
    # generator while the program made CUDA the default device; or torch.randn on the GPU with a CPU
    # generator (huggingface/diffusers#6501: randn_tensor). NarcissusEx/CuNeRF#8 (through sampler.py),
    # hcnoh/knowledge-tracing-collection-pytorch#4 (random_split, torch 1.x's 'generator device' words),
    # sunsmarterjie/SDL-Skeleton#9 (the message alone).
    cases = [
        (
            "# RuntimeError: Expected a 'cuda' device type for generator but found 'cpu'\n\nCunminZhao · "
            'description · 2024-06-10\nwhen i run the "bash example_train.sh"，it reports that"Traceback '
            '(most recent call last):\n  File "/home/zhaolab/zcm/CuNeRF/run.py", line 137, in <module>\n  '
            '  globals()[args.mode](Cfg(args))\n  File "/home/zhaolab/zcm/CuNeRF/run.py", line 57, in '
            'train\n    for batch in cfg.trainloader:\n  File "/home/zhaolab/miniconda3/envs/cunerf/lib/pyt'
            'hon3.9/site-packages/torch/utils/data/dataloader.py", line 630, in __next__\n    data = '
            'self._next_data()\n  File "/home/zhaolab/miniconda3/envs/cunerf/lib/python3.9/site-packages/to'
            'rch/utils/data/dataloader.py", line 673, in _next_data\n    index = self._next_index()  # may '
            'raise StopIteration\n  File "/home/zhaolab/miniconda3/envs/cunerf/lib/python3.9/site-packages/'
            'torch/utils/data/dataloader.py", line 620, in _next_index\n    return '
            "next(self._sampler_iter)  # may raise StopIteration\n  File "
            '"/home/zhaolab/miniconda3/envs/cunerf/lib/python3.9/site-packages/torch/utils/data/sampler.py'
            '", line 283, in __iter__\n    for idx in self.sampler:\n  File '
            '"/home/zhaolab/miniconda3/envs/cunerf/lib/python3.9/site-packages/torch/utils/data/sampler.py'
            '", line 165, in __iter__\n    yield from map(int, torch.randperm(n, '
            "generator=generator).numpy())\nRuntimeError: Expected a 'cuda' device type for generator but "
            "found 'cpu'",
            True,
        ),
        (
            "# RuntimeError: Expected a 'cuda:0' generator device but found 'cpu'\n\njhong-tao · "
            'description · 2023-04-24\n  File "E:/git/python/knowledge-tracing-collection-pytorch/train.py'
            '", line 85, in main\n    dataset, [train_size, test_size], '
            "generator=torch.Generator(device='cpu')\n  File \"D:\\conda\\envs\\study-ml\\lib\\site-packages"
            '\\torch\\utils\\data\\dataset.py", line 353, in random_split\n    indices = '
            "randperm(sum(lengths), generator=generator).tolist()\nRuntimeError: Expected a 'cuda:0' "
            "generator device but found 'cpu'",
            True,
        ),
        (
            "# RuntimeError: Expected a 'cuda' device type for generator but found 'cpu'\n\nINGnowait · "
            'description · 2021-08-07\nwhen I try to run the codes，there is the wrong: "RuntimeError: '
            "Expected a 'cuda' device type for generator but found 'cpu'\". How can I solve it?\n\nThank "
            "you.",
            False,
        ),
    ]
    for text, sampler in cases:
        lead = _led_by(text, "random.generator_device")
        assert "torch.Generator(device='cuda')" in lead.fix.text and "set_default_tensor_type" in lead.cause
        assert any("sampler or random_split" in line for line in lead.evidence) is sampler, lead.evidence


def test_an_nvml_assertion_of_the_caching_allocator_is_an_out_of_memory() -> None:
    # The caching allocator asks NVML for the processes on the GPU only to write its out-of-memory message
    # (reportProcessMemoryInfo); where NVML fails, its assertion is raised instead (pytorch/pytorch#185240 on
    # Jetson, settled by #185946, 'better to proceed to clear oom message than crash'; #128661: the
    # out-of-memory test printing it; #121899: two 30000 x 30000 matrices; #112950: NVML's own start failing,
    # settled by a reboot).
    for text in (
        'RuntimeError: NVML_SUCCESS == r INTERNAL ASSERT FAILED at "/opt/pytorch/pytorch/c10/cuda/CUDACachi'
        'ngAllocator.cpp":841, please report a bug to PyTorch.\nDuring handling of the above exception, '
        "another exception occurred:",
        "RuntimeError                              Traceback (most recent call last)\nCell In[9], line 3\n  "
        "    1 size = 30000\n      2 a = torch.randn(size, size, device=device)\n----> 3 b = "
        "torch.randn(size, size, device=device)\n      5 # Perform matrix multiplication on GPU\n      6 "
        "start_time = torch.cuda.Event(enable_timing=True)\n\nRuntimeError: NVML_SUCCESS == r INTERNAL "
        'ASSERT FAILED at "/opt/builds/pytorch/c10/cuda/CUDACachingAllocator.cpp":830, please report a '
        "bug to PyTorch.",
        "# Error in Qwen inference: NVML_SUCCESS == r INTERNAL ASSERT FAILED at "
        '"/pytorch/c10/cuda/CUDACachingAllocator.cpp',
        "# RuntimeError: NVML_SUCCESS == DriverAPI::get()->nvmlInit_v2_() INTERNAL ASSERT FAILED at "
        '"../c10/cuda/CUDACachingAllocator.cpp":1123, please report a bug to PyTorch.',
        "> RuntimeError: NVML_SUCCESS == DriverAPI::get()->nvmlDeviceGetHandleByPciBusId_v2_( pci_id, "
        "&nvml_device) 内部断言在“../c10/cuda/CUDACachingAllocator.cpp”处失败：815，请向 PyTorch "
        "报告错误。\n\nHow to do it!",
    ):
        lead = _led_by(text, "cuda.oom_report_failed")
        assert "ran out of memory" in lead.cause and "NVML" in lead.cause
        assert "batch size" in lead.fix.text and "reboot" in lead.fix.text


def test_an_old_cuda_runtime_error_is_known_by_its_number() -> None:
    # torch's THC lines name the cudaError by its number; a title or a retelling often keeps the number
    # alone (pytorch/pytorch#24092, #3398 'the notorious cuda 59 error'; chenxin061/pdarts#16 on a 1080 Ti;
    # JIA-Lab-research/PointGroup#30). Before CUDA 10.1: 2 is cudaErrorMemoryAllocation, 9
    # cudaErrorInvalidConfiguration, 59 cudaErrorAssert.
    for text, entry_id in (
        ("# Cuda runtime error(59)", "cuda.device_side_assert"),
        (
            "# Cuda runtime error(59) again and weird\n\nI am encountering the notorious cuda 59 error.\nThe "
            "error occurs after some normal iterations.",
            "cuda.device_side_assert",
        ),
        (
            "# RuntimeError: cuda runtime error (2)\n\n![image](https://user-images.githubusercontent.com/"
            "34739221/63480777-bf624280-c4c5-11e9-9184-3eccc7c17588.png)\nI ran this code on a single 1080 "
            "ti and got the above error.\nAny suggestion is appreciated. Thanks. :)",
            "cuda.out_of_memory",
        ),
        ("# RuntimeError: cuda runtime error (9)", "cuda.invalid_configuration"),
        # joe-siyuan-qiao/DetectoRS#10 (Megvii-BaseDetection/BorderDet#56 prints the words too)
        (
            "RuntimeError: cuda runtime error (209) : unrecognized error code at "
            "mmdet/ops/roi_align/src/roi_align_kernel.cu:139",
            "cuda.no_kernel_image",
        ),
    ):
        _led_by(text, entry_id)
    assert _ids("RuntimeError: cuda runtime error (98) : invalid device function")[0] != "cuda.out_of_memory"


def test_an_invalid_launch_configuration_is_an_input_beyond_a_kernels_grid() -> None:
    # A kernel launched with more blocks or threads than CUDA allows; it grows with the batch, so a smaller
    # one runs (airsplay/lxmert#28: 2048 fails, 512 runs; zeliu98/CloserLook3D#35; pytorch/pytorch#16998,
    # BatchNorm1d past 65536 rows, fixed in torch: the description's first lines and its output, the code
    # between left out).
    for text in (
        "# CUDA error: invalid configuration argument on large\n\nHi,\n\nI'm trying to reproduce the "
        "pretraining results with multi-GPU training, and encountered this error: `RuntimeError: CUDA "
        "error: invalid configuration argument` during validation, but only when the [validation batch "
        "size](https://github.com/airsplay/lxmert/blob/master/src/pretrain/lxmert_pretrain.py#L47) is "
        "large, e.g. 2048, not when the validation batch size is, say, 512. Have you encountered this "
        "before, or know how to fix it?\n\nThank you.",
        "# CUDA kernel failed : invalid configuration argument\n\nI run the code with a V-100 GPU (32GB "
        "memory), but if the batch size is larger than 6 (or even small), it will raise this error.\n\nWhat "
        "caused this?",
        "# Batchnormalization fails with CUDA on very large batches\n\n## 🐛 Bug\nIf we use "
        'nn.BatchNorm1d() with (very) large batchsizes and torch.cuda.FloatTensors, we get an "invalid '
        'configuration argument" error.\n\ni, N 16 65536\ni, N 17 131072\nTHCudaCheck FAIL '
        "file=/pytorch/aten/src/ATen/native/cuda/Normalization.cuh line=467 error=9 : invalid configuration "
        "argument",
    ):
        lead = _led_by(text, "cuda.invalid_configuration")
        assert "65535" in lead.cause and "not memory" in lead.cause
        assert "smaller batch" in lead.fix.text and "chunks" in lead.fix.text


def test_a_segfault_without_a_message_names_the_import_order_first() -> None:
    # A crash in native code with no Python error; at the first CUDA use in video code it is decord loaded
    # before torch (VQAssessment/FAST-VQA-and-FasterVQA#47, settled by 'place all import torch before import
    # decord'; dmlc/decord#293 and #329; TencentARC/ARC-Hunyuan-Video-7B#2, merged).
    bare = (
        "# Segmentation fault (core dumped)\n\nHi, I'm trying to use your Infer for a single MP4 video cmd. "
        "However, no matter which model I chose, e.g., FasterVQA, Fast-VQA-M, it raises error: "
        "`Segmentation fault (core dumped)`. I tried to debug it. It seems the problem happened when I "
        "tried to put model onto device. However, if I use CPU to run it, the bash will not respond "
        "anymore.\n\nMy torch version is 2.2.0+cu118. System: Ubuntu. GPU: V100 32GB"
    )
    lead = _led_by(bare, "native.segfault")
    assert "import order" in lead.cause and "decord" in lead.cause and not lead.evidence
    assert "faulthandler" in lead.fix.text and "import torch first" in lead.fix.text
    for text, first in (
        (
            "# Code corrupted silently when import decord before torch\n\nThis issue occurs when I import "
            "decord before torch, and then place nn.Module on the GPU.\n```\nimport decord\nimport "
            "torch\n\ntorch.nn.Linear(3, 3).cuda()\n```\nIt corrupted silently using `python3 debug.py`, "
            "and reported `Segmentation fault (core dumped)` when running in terminal.",
            "decord",
        ),
        (
            "# Segmentation Fault When Using Decord and TorchVision Together\n\nFirst of all, I'd like to "
            "express my admiration for this project! It’s been incredibly helpful in my work, and I truly "
            "appreciate all the effort that has gone into building and maintaining it.\nHowever, I’ve "
            "encountered an issue that seems to indicate an incompatibility between decord and torchvision. "
            "Here’s a minimal reproducible example:\n\n```\nfrom decord import VideoReader\nfrom "
            "torchvision import models\n\nmodels.segmentation.fcn_resnet50().cuda()\n```\n\nError "
            "Encountered:\n```\nSegmentation fault (core dumped)\n```",
            "decord",
        ),
    ):
        lead = _led_by(text, "native.segfault")
        assert lead.evidence == (f"the code imports {first} before torch",), lead.evidence
        assert f"before {first}" in lead.fix.text
    assert (
        _led_by("# Move decord importing after vllm to avoid segmentation fault", "native.segfault").evidence
        == ()
    )
    # a message of its own leads; the crash is then only its effect
    assert (
        _ids("DataLoader worker (pid 4242) is killed by signal: Segmentation fault.")[0] != "native.segfault"
    )


def test_a_process_ended_by_sigkill_with_no_message_is_the_hosts_out_of_memory() -> None:
    # A process killed by SIGKILL prints nothing; the shell says "Killed", torchrun "exitcode: -9", a
    # terminal "exit code 137": the kernel's OOM killer, host RAM, not the GPU (AkariAsai/self-rag#83 and
    # OceannTwT/ra-isf#11, each settled by the reporter: not enough memory; noelshin/selfmask#11;
    # bmaltais/kohya_ss#1065; Project-MONAI/monai-physio#126, a bare Killed after a line of output;
    # ZhehengJiangLancaster/AMVUR#2, torchrun's record of the signal).
    for text, form in (
        (
            "# torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) local_rank: 0 "
            "(pid: 14447) of binary:\n\nI encountered the following error while training on a single "
            "GPU:\ntorch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) local_rank: "
            "1 (pid: 14447) of binary:\n\nI tried to adjust the training parameter: --nproc_per_node=1, but "
            "only local_rank changed here\ntorch.distributed.elastic.multiprocessing.api: [ERROR] failed "
            "(exitcode: -9) local_rank: 0 (pid: 14447) of binary:",
            "torchrun's exitcode -9",
        ),
        (
            "# ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 "
            "(pid: 5343) of binary: /root/miniconda3/bin/python\n\n在训练小模型的时候，遇到了这样的问题，请"
            "问怎么解决呢？还有就是您是否能提供一下您训练的硬件配置，谢谢您了",
            "torchrun's exitcode -9",
        ),
        (
            "# Process finished with exit code 137 (interrupted by signal 9:SIGKILL)\n\nWhen I run "
            "mask_generator.py, I get Process finished with exit code 137 (interrupted by signal "
            "9:SIGKILL)\nIt seems that the cpu does not have enough memory\nBut with my batch_size set to "
            "1, num_workers set to 0, and my data set only having 109 graphs, how do I solve this problem?",
            "exit code 137",
        ),
        (
            "# died with <Signals.SIGKILL: 9>. Is this problem due to my lack of RAM?",
            "<Signals.SIGKILL: 9>",
        ),
        (
            "**Problem**: a run stops with a bare ``Killed`` and no traceback, typically just\nafter a line "
            "of ICON finetuning output:\n\n.. code-block:: text\n\n   ICONLoss(all_loss=tensor(1.0676, "
            "device='cuda:0', ...), ...)\n   Killed",
            "the shell's Killed",
        ),
        (
            "rank2 (local rank: 2)exitcode: -9 (pid: 36071)error file: <N/A>\ntraceback : signal 9 "
            "(SIGKILL) received by PID 36071",
            "torchrun's exitcode -9",
        ),
    ):
        lead = _led_by(text, "host.out_of_memory")
        assert lead.evidence[0].startswith(f"the process was ended by SIGKILL ({form})"), lead.evidence
        assert "host RAM" in lead.cause and "free -m" in lead.fix.text
    # the word in a sentence is not the shell's line
    assert "host.out_of_memory" not in _ids("The dataloader got Killed by the sampler logic, see the stack.")


def test_a_librarys_release_without_an_attribute_the_program_calls_is_a_release_mismatch() -> None:
    # "module 'X' has no attribute 'Y'" is the same release mismatch as "cannot import name 'Y' from 'X'",
    # met where the program calls X.Y. CuPy 13 removed cupy.cuda.compile_with_cache, which the
    # softmax-splatting and PWC-Net kernels call (leoShen917/DreamMover#2; BorealisAI/scaleformer#6;
    # sniklaus/pytorch-pwc#67, fixed with RawModule; OverLordGoldDragon/ssqueezepy#103, fixed and released;
    # routineLife1/DRBA#2, merged; henry123-boy/SpaTracker#25, cupy 12.2.0).
    for text in (
        "# module 'cupy.cuda' has no attribute 'compile_with_cache'\n\nAfter training lora, and click run, "
        "an error occurs:",
        "# 关于module 'cupy.cuda' has no attribute 'compile_with_cache'问题\n\n由于种种原因，无法安装旧版本"
        "的cupy，有什么方法可以解决compile_with_cache函数被删除的问题？",
    ):
        lead = _led_by(text, "package.name_missing")
        assert lead.evidence[0] == "the installed cupy version has no compile_with_cache (cupy.cuda)"
        assert "CuPy 13" in lead.fix.text and "cupy.RawModule" in lead.fix.text
    assert "package.name_missing" not in _ids("AttributeError: module 'utils' has no attribute 'get_loader'")


def test_a_cuda_error_raised_while_pinning_host_memory_is_about_host_memory() -> None:
    # cudaHostAlloc's failures come back as "CUDA error: out of memory" or "invalid argument", though no GPU
    # memory is involved: the pinned buffer is page-locked host RAM (LMCache/LMCache#1063: 5 GB refused, 2 GB
    # taken; microsoft/WSL#14078: above 500 MB inside Docker on WSL2; sgl-project/sglang#7666: above 4 GB;
    # jacobgil/pytorch-pruning#16, an out-of-memory solved by pin_memory=False).
    invalid = (
        "# memory allocation failure with default examples/kv_cache_reuse/local_backends/offload.py\n\n**Des"
        'cribe the bug**\nRun default examples/kv_cache_reuse/local_backends/offload.py:\nos.environ["LMCAC'
        'HE_MAX_LOCAL_CPU_SIZE"] = "5"\n\nprogram tried to allocate 5GB pinned memory and failed:\n```\n '
        ' File "/vllm-workspace/LMCache/lmcache/v1/cache_engine.py", line 742, in get_or_create\n    '
        "memory_allocator = cls._Create_memory_allocator(config, metadata)\n                       "
        '^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n  File "/vllm-workspace/LMCache/lmcache/v1/cache_e'
        'ngine.py", line 714, in _Create_memory_allocator\n    return '
        "MixedMemoryAllocator(int(max_local_cpu_size * 1024**3))\n           "
        "^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n  File "
        '"/vllm-workspace/LMCache/lmcache/v1/memory_management.py", line 1285, in __init__\n    buffer = '
        "torch.empty(size, dtype=torch.uint8, pin_memory=True)\n             "
        "^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\nRuntimeError: CUDA error: invalid "
        "argument\nCUDA kernel errors might be asynchronously reported at some other API call, so the "
        "stacktrace below might be incorrect.\nFor debugging consider passing "
        "CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n```"
    )
    lead = _led_by(invalid, "cuda.invalid_argument")
    assert lead.evidence[0].startswith("the failing statement pins host memory: buffer = torch.empty(size")
    assert "page-locked (pinned) host memory" in lead.cause and "Not GPU memory" in lead.cause
    assert "smaller pinned buffers" in lead.fix.text and lead.check == "transfer.pinned"
    oom = (
        '## Problem Description\n\nPyTorch `pin_memory()` fails with "CUDA error: out of memory" when '
        "trying to allocate more than **500 MB** of pinned memory inside Docker containers, even though:\n- "
        "GPU has 24 GB total memory with 23+ GB free\n- Host system (Windows) allows up to **4 GB** pinned "
        "memory natively\n- Docker is configured with `privileged: true` and `ulimits.memlock: -1` "
        "(unlimited)"
    )
    lead = _led_by(oom, "cuda.out_of_memory")
    assert lead.evidence[0].startswith("the message's line pins host memory: PyTorch `pin_memory()` fails")
    assert "page-locked (pinned) host memory" in lead.cause and "pin_memory=False" in lead.fix.text
    # a GPU out-of-memory whose log prints a DataLoader set to pin memory is still the GPU's
    plain = (
        "DataLoader(dataset, batch_size=64, pin_memory=True)\n"
        "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 10.76 GiB total capacity; "
        "8.12 GiB already allocated; 1.00 GiB free; 8.50 GiB reserved in total by PyTorch)"
    )
    assert "pinned" not in _led_by(plain, "cuda.out_of_memory").cause


def test_no_kernel_image_where_xformers_runs_names_xformers_kernels() -> None:
    # xformers' wheels carry kernels for their own list of GPUs, built against one torch: where the text runs
    # xformers, its kernel is the likely one (AUTOMATIC1111/stable-diffusion-webui#2202, a GTX 1660 SUPER
    # with --xformers, settled by uninstalling xformers; #2039, a wheel built for the 30 series only;
    # facebookresearch/xformers#1234, _C_flashattention on an RTX 50).
    for text, said in (
        (
            "# CUDA error: no kernel image is available for execution on the device\n\ngetting this error "
            "after git pull\n\nRuntimeError: CUDA error: no kernel image is available for execution on the "
            "device\nCUDA kernel errors might be asynchronously reported at some other API call,so the "
            "stacktrace below might be incorrect.\nFor debugging consider passing "
            "CUDA_LAUNCH_BLOCKING=1\n\nCard is a 1660S\nrunning below in the command line argument\n "
            "--precision full --no-half --medvram --xformers\n\nxformers issue? card issue?\n\n**Expected "
            "behavior**\nWas working perfectly before the latest commit",
            "--xformers",
        ),
        (
            "Another app another error\n\n```\nAn exception occurred: CUDA error: no kernel image is "
            "available for execution on the device\nCUDA kernel errors might be asynchronously reported at "
            "some other API call, so the stacktrace below might be incorrect.\nFor debugging consider "
            "passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side "
            "assertions.\n\nException raised from c10_cuda_check_implementation at "
            "C:\\actions-runner\\_work\\pytorch\\pytorch\\pytorch\\c10\\cuda\\CUDAException.cpp:43 (most "
            "recent call first):\n00007FF95A302C2400007FF95A302B80 c10.dll!c10::Error::Error [<unknown "
            "file> @ <unknown line number>]\n00007FF95A30170A00007FF95A3016B0 "
            "c10.dll!c10::detail::torchCheckFail [<unknown file> @ <unknown line "
            "number>]\n00007FF99C626BBF00007FF99C6268B0 c10_cuda.dll!c10::cuda::c10_cuda_check_implementatio"
            "n [<unknown file> @ <unknown line number>]\n00007FFD87A0777500007FFD8794C300 "
            "_C_flashattention.pyd!PyInit__C_flashattention [<unknown file> @ <unknown line number>]",
            "_C_flashattention",
        ),
    ):
        lead = _led_by(text, "cuda.no_kernel_image")
        assert lead.evidence[-1] == f"the text runs xformers ({said}), whose wheels carry their own kernels"
        assert "xformers' own" in lead.cause
        assert lead.fix.text.startswith("Run once without xformers")
    # a run with xformers turned off is not xformers'
    off = (
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
        "--disable-xformers"
    )
    assert "xformers' own" not in _led_by(off, "cuda.no_kernel_image").cause


def test_onnxruntimes_cuda_provider_that_cannot_load_is_its_cuda_and_cudnn_majors() -> None:
    # onnxruntime-gpu is built for one CUDA major and one cuDNN major; where they are not loadable its CUDA
    # provider fails, though torch runs on the GPU (ototadana/sd-face-editor#170, settled with CUDA 12.1;
    # Ki6an/fastT5#53 and deepinsight/insightface#1824: the onnxruntime-gpu release for the installed CUDA;
    # ZHO-ZHO-ZHO/ComfyUI-InstantID#129 and #54, CUDA 11.8 with its cuDNN; microsoft/onnxruntime#21769, 1.19
    # naming its majors).
    for text in (
        "EP Error D:\\a\\_work\\1\\s\\onnxruntime\\python\\onnxruntime_pybind_state.cc:739 "
        "onnxruntime::python::CreateExecutionProviderInstance CUDA_PATH is set but CUDA wasn't able to be "
        "loaded. Please install the correct version of CUDA and cuDNN as mentioned in the GPU requirements "
        "page (https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements), "
        "make sure they're in the PATH, and that your GPU is supported.\n when using "
        "['CUDAExecutionProvider', 'CPUExecutionProvider']",
        "However, I get the following error: \n\n_Failed to create CUDAExecutionProvider. Please reference "
        "https://onnxruntime.ai/docs/reference/execution-providers/CUDA-ExecutionProvider.html#requirements "
        "to ensure all dependencies are met._",
        "Error occurred when executing InsightFaceLoader_Zho:\n\nD:\\a\\_work\\1\\s\\onnxruntime\\python\\on"
        "nxruntime_pybind_state.cc:857 onnxruntime::python::CreateExecutionProviderInstance CUDA_PATH is "
        "set but CUDA wasnt able to be loaded. Please install the correct version of CUDA andcuDNN as "
        "mentioned in the GPU requirements page (https://onnxruntime.ai/docs/execution-providers/CUDA-Execut"
        "ionProvider.html#requirements), make sure they're in the PATH, and that your GPU is supported.",
    ):
        lead = _led_by(text, "onnxruntime.cuda_provider")
        assert "one CUDA major and one cuDNN major" in lead.cause and "torch" in lead.cause
        assert "onnxruntime-gpu" in lead.fix.text and "CPUExecutionProvider" in lead.fix.text
    lead = _led_by(
        "2024-08-16 15:41:33.7983729 [E:onnxruntime:Default, provider_bridge_ort.cc:1992 "
        "onnxruntime::TryGetProviderInfo_CUDA] D:\\a\\_work\\1\\s\\onnxruntime\\core\\session\\provider_brid"
        "ge_ort.cc:1637 onnxruntime::ProviderLibrary::Get [ONNXRuntimeError] : 1 : FAIL : LoadLibrary "
        'failed with error 126 "" when trying to load "C:\\Users\\sunny\\anaconda3\\envs\\pytorch\\lib\\s'
        'ite-packages\\onnxruntime\\capi\\onnxruntime_providers_cuda.dll"\n2024-08-16 15:41:33.8037106 '
        "[W:onnxruntime:Default, onnxruntime_pybind_state.cc:965 onnxruntime::python::CreateExecutionProvide"
        "rInstance] Failed to create CUDAExecutionProvider. Require cuDNN 9.* and CUDA 12.*, and the latest "
        "MSVC runtime. Please install all dependencies as mentioned in the GPU requirements page "
        "(https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements), make "
        "sure they're in the PATH, and that your GPU is supported.",
        "onnxruntime.cuda_provider",
    )
    assert lead.evidence == ("this onnxruntime-gpu needs CUDA 12.x and cuDNN 9.x (its message)",)


def test_faiss_that_cannot_allocate_gpu_memory_is_its_index_beside_the_job() -> None:
    # faiss's GPU allocator prints its own out-of-memory, outside torch's (facebookresearch/faiss#2179: a
    # flat index of 1101852 x 768; #1031: 3.5 GB of a 4 GB GPU already used by PyTorch, faiss's temporary
    # memory; #2105 and #2155: the 1.5 GiB temporary buffer; #231: a flat index too large, IVF instead).
    for text, size in (
        (
            "I used `faiss.index_cpu_to_gpu` to move a `IndexFlatIP` index of size `1101852 * 768` to gpu. "
            "My gpu is A100 with 40GB memory. I think the index should only consume `3.15GB` formatted in "
            "`float32`. But it gave me the following error:\n```\nError in virtual void* "
            "faiss::gpu::StandardGpuResourcesImpl::allocMemory(const faiss::gpu::AllocRequest&) at "
            "/home/conda/feedstock_root/\nbuild_artifacts/faiss-split_1636459980553/work/faiss/gpu/StandardG"
            "puResources.cpp:452: Error: 'err == cudaSuccess' failed: StandardGpuResources: alloc\n fail "
            "type FlatData dev 2 space Device stream 0 size 2764800000 bytes (cudaMalloc error out of "
            "memory [2])\n```",
            "FlatData of size 2764800000 bytes (2.57 GiB) on device 2",
        ),
        (
            "RuntimeError: Error in void faiss::gpu::allocMemorySpaceV(faiss::gpu::MemorySpace, void**, "
            "size_t) at gpu/utils/MemorySpace.cpp:26: Error: 'err == cudaSuccess' failed: failed to "
            "cudaMalloc 47064032 bytes (error 2 out of memory)\n\n I am using  **StandardGpuResources**  "
            "and GpuIndexFlatIP",
            "size 47064032 bytes (0.04 GiB)",
        ),
        (
            "RuntimeError: Error in virtual void* faiss::gpu::StandardGpuResourcesImpl::allocMemory(const "
            "faiss::gpu::AllocRequest&)\n              at /root/miniconda3/conda-bld/faiss-pkg_1623030479928"
            "/work/faiss/gpu/StandardGpuResources.cpp:452: \n              Error: 'err == cudaSuccess' "
            "failed: StandardGpuResources: alloc fail type TemporaryMemoryBuffer \n              dev 0 "
            "space Device \tstream 0x7f7b46ba9a60 size 1610612736 bytes (cudaMalloc error out of memory [2])",
            "TemporaryMemoryBuffer of size 1610612736 bytes (1.50 GiB) on device 0",
        ),
        (
            "I got an error \"Faiss assertion 'cudaMalloc(p, size) == cudaSuccess' failed in void "
            "faiss::gpu::allocMemorySpace(faiss::gpu::MemorySpace, void**, size_t) at "
            'utils/MemorySpace.cpp:20; details: Failed to cudaMalloc 4294967296 bytes"  when i use nvidia '
            "GTX1080 with 8G memory to build faiss index.",
            "size 4294967296 bytes (4.00 GiB)",
        ),
    ):
        lead = _led_by(text, "faiss.gpu_out_of_memory")
        assert lead.evidence == (f"faiss's allocation: {size}",), lead.evidence
        assert "temporary memory" in lead.cause and "torch" in lead.cause
        assert "index_cpu_to_all_gpus" in lead.fix.text and "faiss-cpu" in lead.fix.text


def test_an_impossible_request_without_an_extension_is_a_size_computed_wrong_in_the_program() -> None:
    # A request of a tebibyte or more is a size computed wrong; where no compiled extension makes the call, it
    # is the program's shapes (pytorch/pytorch#2225: (500000, 1, 1) + (500000, 1) broadcasts to 500000 x
    # 500000; leaderj1001/Attention-Augmented-Conv2d#18: 'Architecture needs to be modified for images of
    # bigger shapes'; iree-org/iree#18767, an index or shape issue) or a library's arithmetic on a huge input
    # (pytorch/pytorch#33143: cuDNN asking 16 EiB for a 10210 x 8641 half-precision image).
    for text in (
        "# CUDA out of memory : tried to allocate 32768.00 Gib (only 10.00 Gib free)\n\nGetting a memory "
        "error of unreal proportions on Wide-resnet ",
        "## 🐛 Bug\n\nWhen using `torch.float16` as the dtype, 16EiB of GPU memory is requested for "
        "allocation for certain tensor shapes.\n\n## To Reproduce\n\nSteps to reproduce the "
        "behavior:\n\n```\n>>> import torch\n>>> import torchvision.models as models\n>>> resnet = "
        "models.resnet18().half().cuda()\n>>> t = torch.ones([1, 3, 10210, 8641], dtype=torch.float16, "
        'device="cuda")\n>>> output = resnet(t)\nTraceback (most recent call last):\n  File "<stdin>", '
        'line 1, in <module>\n  File "/opt/conda/lib/python3.6/site-packages/torch/nn/modules/module.py", '
        "line 532, in __call__\n    result = self.forward(*input, **kwargs)\n  File "
        '"/opt/conda/lib/python3.6/site-packages/torchvision/models/resnet.py", line 198, in _forward\n   '
        ' x = self.conv1(x)\n  File "/opt/conda/lib/python3.6/site-packages/torch/nn/modules/module.py", '
        "line 532, in __call__\n    result = self.forward(*input, **kwargs)\n  File "
        '"/opt/conda/lib/python3.6/site-packages/torch/nn/modules/conv.py", line 345, in forward\n    '
        'return self.conv2d_forward(input, self.weight)\n  File "/opt/conda/lib/python3.6/site-packages/tor'
        'ch/nn/modules/conv.py", line 342, in conv2d_forward\n    self.padding, self.dilation, '
        "self.groups)\nRuntimeError: CUDA out of memory. Tried to allocate 17179869183.95 GiB (GPU 0; 23.65 "
        "GiB total capacity; 3.15 GiB already allocated; 18.80 GiB free; 3.15 Gi",
    ):
        lead = _led_by(text, "cuda.out_of_memory")
        assert "no input makes a tensor that large" in lead.evidence[-1], lead.evidence
        assert lead.cause.startswith("The request is a size computed wrong") and "broadcast" in lead.cause
        assert "x.shape" in lead.fix.text and "rebuild" in lead.fix.text


def test_a_cpu_only_torch_on_a_jetson_needs_nvidias_jetpack_wheel_whichever_message() -> None:
    # On a Jetson the CUDA build is NVIDIA's wheel for the JetPack release; PyPI's aarch64 wheels are
    # CPU-only. Told for "is_available() returns false" already, and now for "Torch not compiled with CUDA
    # enabled" too (dusty-nv/jetson-inference#1848, torch 2.2.0 from pip on an Orin Nano; #566, JetPack 4.4's
    # own wheels; Lmy0217/PyTorch-aarch64#3, 'only support cpu').
    for text, entry_id in (
        (
            "# onnx_export.py says torch not compiled with CUDA, but it should be\n\nI've been following "
            'the process in the excellent "github.com/dusty-nv/jetson-inferenceblob/master/docs/pytorch-ssd'
            ".md\" on my jetson orin nano devkit. I've run the training for detecting an object and it "
            'worked well, producing 30 epochs of checkpoints. When I run "python3 onnx_export.py '
            '--model-dir=models", it finds the trained network with the best loss, but then I get '
            '"AssertionError: Torch not compiled with CUDA enabled" which is triggered on line 293 of '
            "/.local/lib/python3.10/site-packages/torch/cuda/__init__.py.  I have torch 2.2.0 installed, "
            "which is supposed to support CUDA. Why should I get that error, and how do I fix it? I've "
            "searched the internet and can't find any advice that works for fixing that error.",
            "torch.not_compiled_with_cuda",
        ),
        (
            "# Does this version support GPU?\n\nI successfully install the torch on my jetson nano(Jetpack "
            "4.4 [L4T 32.4.3]),but cuda.is_available() returns false",
            "cuda.not_available",
        ),
    ):
        lead = _led_by(text, entry_id)
        assert "the text is about a Jetson (aarch64 with JetPack)" in lead.evidence
        assert lead.fix.text.startswith("On a Jetson, torch reaches the GPU only through a wheel")
    # the writer's "but" before the call is the symptom itself (pytorch/pytorch#9535's title), not torch's
    # map_location message
    _led_by("# but torch.cuda.is_available() is False.", "cuda.not_available")


def test_an_extension_whose_setup_py_compile_failed_points_at_the_compilers_first_error() -> None:
    # setuptools prints only that nvcc or gcc failed; the compiler's first error above says why: a host
    # compiler nvcc refuses, a CUDA toolkit too old or not torch's, a torch whose C++ API the code was not
    # written for (jwyang/faster-rcnn.pytorch#719, gcc 6.5 to 5.4; zju3dv/snake#111, CUDA 10 installed;
    # hyangwinter/flownet3d_pytorch#9, gcc-5; microsoft/Oscar#31, the torch release and apex's commit;
    # aim-uofa/AdelaiDet#118, typographic quotes).
    for text in (
        "# error: command u'/usr/local/cuda/bin/nvcc' failed with exit status 1\n\nwhen i run this "
        "step:\ncd lib\npython setup.py build develop\n\nI meet this problem : error: command "
        "u'/usr/local/cuda/bin/nvcc' failed with exit status 1\nhow can i solve it?",
        "# error: command '/usr/local/cuda-9.0/bin/nvcc' failed with exit status "
        "1\n\n您好，非常感谢您的代码分享。当我在运行‘’’python setup.py install --cuda_ext "
        "--cpp_ext‘’’这一步时首先报错说我的gcc版本过高，当我使用‘’’sudo update-alternatives --install "
        "/usr/bin/gcc gcc /usr/bin/gcc-6 100‘’’将gcc版本切换至gcc-6再运行代码‘’’python setup.py install "
        "--cuda_ext --cpp_ext‘‘’，遇到了‘’’error: command '/usr/local/cuda-9.0/bin/nvcc' failed with exit "
        "status 1‘’’。\n我的pytorch版本是1.1.0，cuda是9.0。",
        "I get the error \"command 'gcc' failed with exit status 1\" when running the line of INSTALL.md "
        '"python setup.py install --cuda_ext --cpp_ext"\n\nWhat gcc version do you use?',
        "# run setup.py error\n\nerror command “/usr/bin/nvcc” failed with exit status1",
        "`error: command '/usr/local/cuda-9.0/bin/nvcc' failed with exit status 1`,\n\nwhen trying to run "
        "`python setup.py install`.",
    ):
        lead = _led_by(text, "extension.setup_build_failed")
        assert "first error" in lead.cause and "host compiler" in lead.cause and "torch" in lead.cause
        assert "build folder" in lead.fix.text and "torch.version.cuda" in lead.fix.text
    # the compiler's own error, where the text has it, leads
    own = (
        "#error -- unsupported GNU version! gcc versions later than 8 are not supported!\n"
        + "`error: command '/usr/local/cuda-9.0/bin/nvcc' failed with exit status 1`,\n\nwhen trying to run "
    )
    "`python setup.py install`."
    assert _ids(own)[0] == "build.unsupported_host_compiler"


def test_a_custom_op_that_has_no_cuda_kernel_is_an_extension_built_without_cuda() -> None:
    # A project's op registered for the CPU alone: its CUDA part was not compiled
    # (davidbrowne17/csm-streaming#31, vLLM's _C ops built for Windows without CUDA; yoyolicoris/philtorch#14,
    # a build whose CUDA sources failed; kenji-tojo/fab3dwire#3, the CUDA backend not built by pip install).
    # torchvision's own ops stay the companion build's.
    for text in (
        "ERROR:__main__:Error processing config: Could not run '_C::ggml_dequantize' with arguments from "
        "the 'CUDA' backend. This could be because the operator doesn't exist for this backend, or was "
        "omitted during the selective/custom build process (if using custom build). If you are a Facebook "
        "employee using PyTorch on mobile, please visit https://fburl.com/ptmfixes for possible "
        "resolutions. '_C::ggml_dequantize' is only available for these backends: [CPU, Meta, "
        "BackendSelect, Python, FuncTorchDynamicLayerBackMode, Functionalize, Named, Conjugate, Negative, "
        "ZeroTensor, ADInplaceOrView, AutogradOther, AutogradCPU, AutogradCUDA, AutogradXLA, AutogradMPS, "
        "AutogradXPU, AutogradHPU, AutogradLazy, AutogradMTIA, AutogradMeta, Tracer, AutocastCPU, "
        "AutocastMTIA, AutocastXPU, AutocastMPS, AutocastCUDA, FuncTorchBatched, BatchedNestedTensor, "
        "FuncTorchVmapMode, Batched, VmapMode, FuncTorchGradWrapper, PythonTLSSnapshot, "
        "FuncTorchDynamicLayerFrontMode, PreDispatch, PythonDispatcher].",
        "philtorch/lpv/ssm.py:50: in forward\n    return torch.ops.philtorch.recurN(A, zi, x)\n           "
        "^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n../../miniconda3/envs/phil/lib/python3.12/site-packages/torch"
        "/_ops.py:1209: in __call__\n    return self._op(*args, **kwargs)\n           "
        "^^^^^^^^^^^^^^^^^^^^^^^^^\nE   NotImplementedError: Could not run 'philtorch::recurN' with "
        "arguments from the 'CUDA' backend. This could be because the operator doesn't exist for this "
        "backend, or was omitted during the selective/custom build process (if using custom build).",
    ):
        _led_by(text, "extension.built_without_cuda")
    assert (
        _ids("NotImplementedError: Could not run 'torchvision::nms' with arguments from the 'CUDA' backend.")[
            0
        ]
        == "companion.version_mismatch"
    )


def test_a_programs_or_writers_cuda_is_not_available_is_torch_not_reaching_the_gpu() -> None:
    # "CUDA is not available" in a program's log, torch's own amp warning or the writer's words says what
    # is_available() False says (pytorch/pytorch#122924, a torch without CUDA on an RTX 4080 laptop; #49325,
    # no GPU: the CPU build; lucidrains/deep-daze#161, GradScaler's warning, settled by a CUDA build).
    for text in (
        "# cuda is not available\n\n### 🐛 Describe the bug\n\nCuda is not available. Thought might be "
        "pytorch version problem.",
        "# return torch._C._cuda_getDeviceCount() > 0 CUDA is not available",
        "**error:**\n`:\\Users\\beaty\\AppData\\Local\\Programs\\Python\\Python39\\lib\\site-packages\\torch"
        "\\cuda\\amp\\grad_scaler.py:115: UserWarning: torch.cuda.amp.GradScaler is enabled, but CUDA is "
        'not available.  Disabling.\n  warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is '
        'not available.  Disabling.")`',
    ):
        _led_by(text, "cuda.not_available")


def test_a_cuda_only_call_given_the_cpu_device_names_the_fallback() -> None:
    # torch.cuda's functions and Tensor.cuda(device) take CUDA devices only; a program whose device fell back
    # to the CPU (or was set to it) still calls them (awslabs/dgl-lifesci#127: set_device only where CUDA is
    # available; EvilBT/ComfyUI_SLK_joy_caption_two#55: the node's device taken from ComfyUI's;
    # jinyeying/night-enhancement#17, merged).
    for text in (
        "```\nimport torch\ndevice = torch.device('cpu')\ntorch.cuda.set_device(device)\n```\n\nThe problem "
        "can be solved if \"torch.cuda.set_device(args['device'])\" is run only if CUDA is available.\n\nI "
        "used commit: 3f07d1f7d1d97b762048aa0ef0e7ea29d54276e2\nIt occurs on pytorch 1.7 and "
        '1.6\n\n```\nTraceback (most recent call last):\n  File "find_reaction_center_eval.py", line 84, '
        'in <module>\n    main(args)\n  File "find_reaction_center_eval.py", line 21, in main\n    '
        "torch.cuda.set_device(args['device'])\n  File \"/home/mvolk/anaconda3/envs/dgl-rexgen/lib/python3.7"
        '/site-packages/torch/cuda/__init__.py", line 261, in set_device\n    device = '
        '_get_device_index(device)\n  File "/home/mvolk/anaconda3/envs/dgl-rexgen/lib/python3.7/site-packag'
        "es/torch/cuda/_utils.py\", line 31, in _get_device_index\n    raise ValueError('Expected a cuda "
        "device, but got: {}'.format(device))\nValueError: Expected a cuda device, but got: cpu\n```",
        "# Expected a cuda device, but got: cpu",
        "RuntimeError: Invalid device, must be cuda device",
    ):
        lead = _led_by(text, "device.cuda_call_given_cpu")
        assert "CUDA-only" in lead.cause and "is_available() was False" in lead.cause
        assert "torch.cuda.set_device(device)" in lead.fix.text and ".to(device)" in lead.fix.text


def test_an_extension_op_given_a_cpu_tensor_names_the_tensor() -> None:
    # A custom CUDA op's own check (CHECK_CUDA: "x must be a CUDA tensor") refuses a CPU tensor; it has no
    # CPU path (YukeWang96/DSXplore_IPDPS21#1: the model and the input both on the GPU;
    # justanhduc/graphx-conv#11; gsgen3d/gsgen#23, pytorch3d's knn given CPU points).
    for text, tensor in (
        (
            "# cuda tensor\n\nwhen i run mdoels/resnet.py , 我运行test（）函数，then i meet a "
            'bug\n"\noutput = scc_cuda.forward(input, weights, output, overlap)[0]\nRuntimeError: input '
            'must be a CUDA tensor\n"\n这个是什么原因呢？我也将全部计算放在gpu上了',
            "input",
        ),
        (
            "# RuntimeError: xyz1 must be a CUDA tensor",
            "xyz1",
        ),
        (
            '  File "/mnt/sda//anaconda3/envs/gsgen/lib/python3.9/site-packages/pytorch3d/ops/knn.py", '
            "line 72, in forward\n    idx, dists = _C.knn_points_idx(p1, p2, lengths1, lengths2, norm, K, "
            "version)\nRuntimeError: p1 must be a CUDA tensor.\n```",
            "p1",
        ),
    ):
        lead = _led_by(text, "extension.cuda_tensor_expected")
        assert lead.evidence == (f"the op's check names {tensor}: it is on the CPU",), lead.evidence
        assert "no CPU version" in lead.cause and "x = x.cuda()" in lead.fix.text


def test_an_out_of_memory_in_training_names_the_crop_size_among_the_input_levers() -> None:
    # Training programs for segmentation and restoration cut their images to a crop size, the input size to
    # lower there (OaDsis/DerainCycleGAN#8: '--crop_size' in options.py; NVIDIA/semantic-segmentation#69:
    # 'shrink the crop size' from 1024,2048 to 800x800; Kaixhin/FCN-semantic-segmentation#11: '--crop-size'
    # from 512 to 128).
    for text in (
        "# What should I do when CUDA out of memory?\n\nI use a 2080TI with 12GB memory to train the model, "
        "but it leads to CUDA out of memory. How to solve this problem?",
        "# Cuda out of memory\n\nDear author\nI only have two GPUs (GTX 1080) about 20 G, however, your "
        "code requires 32G of GPUs. \nDo you have any solution to reduce the GPU memory "
        "requirements?\nThank you very much.",
    ):
        lead = _led_by(text, "cuda.out_of_memory")
        assert "a smaller training crop size" in lead.fix.text, lead.fix.text


def test_an_invalid_ptx_is_ptx_of_a_newer_cuda_than_the_driver() -> None:
    # Drivers before CUDA 11.1 refuse PTX of a newer toolkit as CUDA_ERROR_INVALID_PTX (taichi-dev/taichi#2084
    # on driver 384.130; nicehash/excavator#54, settled by a driver upgrade; cupy/cupy#2188, CuPy's kernels).
    for text in (
        "[E 12/03/20 00:26:13.728] [cuda_driver.h:operator()@80] CUDA Error CUDA_ERROR_INVALID_PTX: a PTX "
        "JIT compilation failed while calling module_load_data_ex (cuModuleLoadDataEx)",
        "cupy/cuda/driver.pyx in cupy.cuda.driver.check_status\ncupy.cuda.driver.CUDADriverError: "
        "CUDA_ERROR_INVALID_PTX: a PTX JIT compilation failed",
    ):
        lead = _led_by(text, "cuda.unsupported_ptx")
        assert "CUDA_ERROR_INVALID_PTX" in lead.cause and "Update the NVIDIA driver" in lead.fix.text


def test_cudas_out_of_memory_in_other_layers_words_is_an_out_of_memory() -> None:
    # The driver API's name (19reborn/NeuS2#18, settled by a smaller batch_size; philip-huang/PIXOR#31), the
    # message with its space lost (bluer555/CR-GAN#8: 'Try changing the batch size') and "CUDA memory
    # overflow" in Chinese (MVIG-SJTU/AlphaPose#223, settled by a smaller training batch).
    for text in (
        "# CUDA_ERROR_OUT_OF_MEMORY\n\nI meet an error",
        "# failed to allocate 17.79G (19104890880 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of "
        "memory\n\nEven when I am using batch size of 1, still cuda out of memory error is coming. Any "
        "suggestions?",
        "# RuntimeError: CUDA error:out of memory\n\nwhat issues can lead to this error which is "
        '"RuntimeError: CUDA error:out of memory"? I want to get this answer.Thank you!',
        "# 新手提问，训练相关，CUDA内存溢出",
    ):
        _led_by(text, "cuda.out_of_memory")


def test_a_build_in_pips_isolated_environment_is_built_against_a_torch_of_its_own() -> None:
    # pip builds a package from source in an isolated environment holding only its declared build
    # requirements; where these name torch, pip installs PyPI's default torch there (a CPU build on Windows)
    # and the extension is built against it, not the torch the program runs (pytorch/pytorch#131340 and
    # #150013: torch-2.3.1+cpu under pip-build-env-*/normal; facebookresearch/fairscale#375, merged: "pip
    # will always download the default torch package"; rahul-goel/fused-ssim#3 and #13: a CUDA mismatch
    # until --no-build-isolation; NVIDIA/apex#1680).
    lead = _led_by(
        "Without this, trying to `import torch` in a downstream `setup.py` file would result "
        "in\n\n```\nThe specified module could not be found. Error loading "
        '"C:\\...\\pip-build-env-himl3xh3\\normal\\Lib\\site-packages\\torch\\lib\\shm.dll" or one of '
        'its dependencies."\n```',
        "build.isolated_torch",
    )
    assert "build isolation" in lead.cause and "--no-build-isolation" in lead.fix.text
    # pip's own lines of the build environment: a symptom, said where no error is recognised
    lead = _led_by(
        "Installing collected packages: tbb, mpmath, intel-openmp, typing-extensions, sympy, numpy, "
        "networkx, mkl, MarkupSafe, fsspec, filelock, jinja2, torch\n      Creating "
        "C:\\Users\\runneradmin\\AppData\\Local\\Temp\\pip-build-env-himl3xh3\\normal\\Scripts\n    "
        "Successfully installed MarkupSafe-2.1.5 filelock-3.14.0 fsspec-2024.6.0 intel-openmp-2021.4.0 "
        "jinja2-3.1.4 mkl-2021.4.0 mpmath-1.3.0 networkx-3.3 numpy-1.26.4 sympy-1.12.1 tbb-2021.12.0 "
        "torch-2.3.1+cpu typing-extensions-4.12.2",
        "build.isolated_torch",
    )
    assert any("torch 2.3.1+cpu" in line for line in lead.evidence), lead.evidence
    # a build error without pip's isolated environment in the text is not this
    # (boschresearch/DroidCalib#5)
    mismatch = (
        "RuntimeError:\nThe detected CUDA version (12.1) mismatches the version that was used to compile "
        "PyTorch (11.3).\nPlease make sure to use the same CUDA versions."
    )
    assert all(e.id != "build.isolated_torch" for e in _explained(mismatch))


def test_windows_paging_file_too_small_is_torchs_libraries_committed_per_process() -> None:
    # Windows commits memory for each DLL a process loads, and every process that imports torch (the program
    # and each DataLoader worker, spawned anew on Windows) loads torch's CUDA libraries: RAM and the paging
    # file run out (cszn/KAIR#127: fewer dataloader workers; JingyunLiang/SwinIR#78: "num_works set too
    # high"; zbf1991/WeCLIP#5, in Chinese; prophesier/diff-svc#24; Kaszanas/SC2_Datasets#15: num_workers=12;
    # ultralytics/yolov3#1643; pytorch/pytorch#59904: the size of the memory and the paging file).
    for text, library in (
        (
            "OSError: [WinError 1455] The paging file is too small for this operation to complete. Error "
            'loading "D:\\Anaconda\\envs\\swin-train\\lib\\site-packages\\torch\\lib\\shm.dll" or one of '
            "its dependencies.",
            "shm.dll",
        ),
        (
            '  File "D:\\Anaconda3\\envs\\wssam\\lib\\runpy.py", line 87, in _run_code\n    exec(code, '
            'run_globals)\n  File "D:\\PycharmProject\\WeCLIP\\scripts\\dist_clip_voc.py", line 10, in '
            '<module>\n    import torch\n  File "D:\\Anaconda3\\envs\\wssam\\lib\\site-packages\\torch\\__i'
            'nit__.py", line 124, in <module>\n    raise err\nOSError: [WinError 1455] '
            '页面文件太小，无法完成操作。 Error loading "D:\\Anaconda3\\envs\\wssam\\lib\\site-packages\\to'
            'rch\\lib\\cudnn_cnn_infer64_8.dll" or one of its dependencies.',
            "cudnn_cnn_infer64_8.dll",
        ),
        (
            "# Paging File Error\n\n`OSError: [WinError 1455] The paging file is too small for this "
            'operation to complete. Error loading "C:\\Users\\phill\\AppData\\Local\\Programs\\Python\\Pyth'
            'on310\\lib\\site-packages\\torch\\lib\\cudnn_adv_infer64_8.dll" or one of its '
            "dependencies.`\n\nI've tried to change the batch size to something smaller, but then I get "
            "this error.",
            "cudnn_adv_infer64_8.dll",
        ),
    ):
        lead = _led_by(text, "host.paging_file_too_small")
        assert any(library in line for line in lead.evidence), lead.evidence
        assert "paging file" in lead.cause and "DataLoader worker" in lead.cause
        assert "num_workers" in lead.fix.text and "Virtual memory" in lead.fix.text
    lead = _led_by(
        "# OSError: WinError 1455 The paging file is too small\n\nWhile attempting training with these "
        "parameters:\n\n```python\ndatamodule = SC2ReplaypackDataModule(\n        "
        'transform=economy_average_vs_outcome,\n        replaypack_name="2020_IEM_Katowice",\n        '
        'replaypack_unpack_dir="D:/Projects/SC2EGSet_Experiments/test/test_files/unpack",\n        '
        "download=False,\n        batch_size=256,\n        num_workers=12,\n)",
        "host.paging_file_too_small",
    )
    assert any("num_workers=12" in line for line in lead.evidence), lead.evidence


def test_a_cuda_visible_devices_naming_no_gpu_of_the_machine_is_among_the_causes_of_no_gpu() -> None:
    # CUDA_VISIBLE_DEVICES keeps only the GPUs it names: set in a launch script, the command or the code to an
    # index the machine does not have (a one-GPU machine has only 0), it hides every GPU and torch sees none
    # (XuelianCheng/LEAStereo#10: search.sh's CUDA_VISIBLE_DEVICES=1, settled by 0; thuml/Autoformer#25 and
    # thuml/Time-Series-Library#10: 'export CUDA_VISIBLE_DEVICES=1' and '=2' in the bash scripts;
    # pytorch/examples#115; fuy34/superpixel_fcn#45).
    lead = _led_by(
        "in search.sh line 1 you set \n   CUDA_VISIBLE_DEVICES=1\n\nbecause of this I got the error:\n  "
        ' File "search.py", line 33, in <module>\n       raise Exception("No GPU found, please run '
        'without --cuda")\n   Exception: No GPU found, please run without --cuda',
        "cuda.not_available",
    )
    assert any("CUDA_VISIBLE_DEVICES=1" in line for line in lead.evidence), lead.evidence
    assert lead.cause.startswith("CUDA_VISIBLE_DEVICES=1 shows the process only GPU 1"), lead.cause
    assert "nvidia-smi -L" in lead.fix.commands and lead.check == "cuda.visible_devices"
    # the message alone (kleinlee/DH_live#22): a hidden GPU is among the ways a machine shows none
    lead = _led_by(
        "RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
        "False. If you are running on a CPU-only machine, please use torch.load with "
        "map_location=torch.device('cpu') to map your storages to the CPU.",
        "load.map_location",
    )
    assert "CUDA_VISIBLE_DEVICES" in lead.cause and "CUDA_VISIBLE_DEVICES" in lead.fix.text


def test_more_ranks_per_node_than_gpus_is_read_from_the_command_for_an_nccl_error() -> None:
    # NCCL needs a GPU of its own for each rank: the launcher's ranks per node against the GPUs the text
    # shows, read for NCCL's errors as for an invalid ordinal (csguoh/MambaIR#39: --nproc_per_node=8;
    # facebookresearch/ViewDiff#24: accelerate's 'Num processes: 4' on one GPU; NVlabs/Sana#204, settled by
    # fewer processes in train.sh; NVIDIA/nccl#1241, the maintainer: more ranks per node than GPUs).
    lead = _led_by(
        "Tried\n```\n(mambair) brcao@dawn:/eData05/brcao/Repos/MambaIR$ python3 -m "
        "torch.distributed.launch --nproc_per_node=8 --master_port=1234 basicsr/train.py -opt "
        "options/train/train_MambaIR_SR_x2.yml --launcher pytorch\n```\nbut got\n```\n...\n    File "
        '"/eData05/brcao/Repos/MambaIR/basicsr/models/base_model.py", line 97, in model_to_device\n   '
        ' net = DistributedDataParallel(\n  File "/home/brcao/.local/lib/python3.8/site-packages/torch/'
        'nn/parallel/distributed.py", line 795, in __init__\n    _verify_param_shape_across_processes(s'
        'elf.process_group, parameters)\n  File "/home/brcao/.local/lib/python3.8/site-packages/torch/d'
        'istributed/utils.py", line 265, in _verify_param_shape_across_processes\n    return '
        "dist._verify_params_across_processes(process_group, tensors, "
        "logger)\ntorch.distributed.DistBackendError: NCCL error in: "
        "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, invalid usage (run with "
        "NCCL_DEBUG=WARN for details), NCCL version 2.18.6\nncclInvalidUsage: This usually reflects "
        "invalid usage of NCCL library.\nLast error:\nDuplicate GPU detected : rank 2 and rank 0 both "
        "on CUDA device 4000",
        "nccl.duplicate_gpu",
    )
    assert any("8 ranks per node (--nproc_per_node=8)" in line for line in lead.evidence), lead.evidence
    lead = _led_by(
        'I tried to run train_small.sh and got an NCCL error which suggests "ncclInvalidUsage" with '
        '"Duplicate GPU detected". I think it requested 4 NCCL processes while I only have 1 '
        "GPU.\n\nHere's part of the log:\n```\n09/04/2024 02:49:57 - INFO - __main__ - Distributed "
        "environment: MULTI_GPU  Backend: nccl\nNum processes: 4\nProcess index: 3\nLocal process "
        "index: 3\nDevice: cuda:0\n\nMixed precision type: no",
        "nccl.duplicate_gpu",
    )
    assert "4 processes on this node" in lead.cause and "1 GPU" in lead.cause, lead.cause
    assert "--nproc_per_node=1" in lead.fix.text and lead.check == "cuda.visible_devices"


def test_the_sequence_length_lever_is_truncation_to_a_maximum_length() -> None:
    # A sequence is made shorter by truncating it to a maximum length (the tokenizer's max_length, a
    # program's max_seq_len); lengthier inputs named by the writer lead the fix (huggingface/transformers#236:
    # lengthier questions and contexts, trimmed to max_seq_length; sillsdev/machine.py#40: very long
    # inputs; salesforce/ALBEF#6: long captions, max_length; princeton-nlp/SimCSE#112: 'decrease the sequence
    # length', longer sentences truncated).
    lead = _led_by(
        "Hi, I tried to train squad model on a different dataset where I have lengthier "
        "questions/contexts. It gave memory error \n\nCUDA out of memory. Tried to allocate 4.50 MiB "
        "(GPU 5; 11.78 GiB total capacity;\n\nThis error seems to happen in pytorch when there are "
        "lengthier data points ( pytorch tells how much it tried to allocate as opposed to normal CUDA "
        "out of memory error).",
        "cuda.out_of_memory",
    )
    assert any("lengthier questions" in line for line in lead.evidence), lead.evidence
    assert lead.fix.text.startswith("One long input needs memory for its whole length"), lead.fix.text
    lead = _led_by(
        "2023-10-10 15:56:29,603 - machine.jobs.build_nmt_engine - ERROR - CUDA out of memory. Tried to "
        "allocate 16.00 MiB (GPU 0; 23.68 GiB total capacity; 22.99 GiB already allocated; 6.69 MiB "
        "free; 23.35 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try "
        "setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and "
        "PYTORCH_CUDA_ALLOC_CONF",
        "cuda.out_of_memory",
    )
    assert "shorter sequences (truncated to a maximum length" in lead.fix.text, lead.fix.text


def test_an_invalid_device_function_names_the_extension_whose_kernel_has_no_code_for_the_gpu() -> None:
    # The kernel without code for this GPU is an extension's own where the text shows its source file
    # (traveller59/spconv#140: spconv's indice.cu; erikwijmans/Pointnet2_PyTorch#121 and
    # #74: pointnet2_ops' sampling_gpu.cu; daerduoCarey/PyTorchEMD#11: emd_kernel.cu, settled by the CUDA
    # the extension is built with; matteo-ronchetti/torch-radon#11, the maintainer: a CUDA function not
    # compiled for the GPU's architecture).
    for text, named in (
        (
            'File "/usr/local/lib/python3.6/dist-packages/spconv/conv.py", line 177, in '
            'forward\nuse_hash=self.use_hash)\nFile "/usr/local/lib/python3.6/dist-packages/spconv/ops.py"'
            ", line 93, in get_indice_pairs\nstride, padding, dilation, out_padding, int(subm), "
            "int(transpose), int(use_hash))\nRuntimeError: /second.pytorch/spconv/src/spconv/indice.cu "
            "165\ncuda execution failed with error 98 invalid device function",
            "spconv/src/spconv/indice.cu",
        ),
        (
            "```\nValidation sanity check: 0it [00:00, ?it/s]CUDA kernel failed : invalid device "
            "function\nvoid furthest_point_sampling_kernel_wrapper(int, int, int, const float*, float*, "
            "int*) at L:228 in pointnet2_ops/_ext-src/src/sampling_gpu.cu\n```",
            "pointnet2_ops/_ext-src/src/sampling_gpu.cu",
        ),
        (
            "`THCudaCheck FAIL file=/home/user/hdd/github/PyTorchEMD/cuda/emd_kernel.cu line=190 error=98 : "
            'invalid device function\nTraceback (most recent call last):\n  File "test_emd_loss.py", line '
            "35, in <module>\n    d = earth_mover_distance(p1, p2, transpose=False)\n  File "
            '"/home/user/hdd/github/PyTorchEMD/emd.py", line 44, in earth_mover_distance\n    cost = '
            'EarthMoverDistanceFunction.apply(xyz1, xyz2)\n  File "/home/user/hdd/github/PyTorchEMD/emd.py'
            '", line 11, in forward\n    match = emd_cuda.approxmatch_forward(xyz1, xyz2)\nRuntimeError: '
            "cuda runtime error (98) : invalid device function at /home/user/hdd/github/PyTorchEMD/cuda/emd_"
            "kernel.cu:190\nSegmentation fault (core dumped)\n`",
            "PyTorchEMD/cuda/emd_kernel.cu",
        ),
    ):
        lead = _led_by(text, "cuda.invalid_device_function")
        assert any(named in line and "not torch's" in line for line in lead.evidence), lead.evidence
        assert lead.fix.text.startswith("Rebuild the extension that ") and named in lead.fix.text, (
            lead.fix.text
        )
    # torch's own kernels (pytorch/pytorch#1557: a torch built on another node) name no extension
    lead = _led_by(
        "RuntimeError: cuda runtime error (8) : invalid device function at /gpfsnyu/home/ks3286/pytorch/"
        "torch/lib/THC/generated/../generic/THCTensorMathPointwise.cu:247",
        "cuda.invalid_device_function",
    )
    assert not any("not torch's" in line for line in lead.evidence), lead.evidence
    # nor do torchvision's, which come in its wheel (facebookresearch/detectron2#469's kernel path)
    assert (
        install_explanations._extension_kernel(
            "(nms_cuda at /tmp/pip-req-build-8d3_7_rq/torchvision/csrc/cuda/nms_cuda.cu:127)"
        )
        is None
    )


def test_the_phase_the_writer_ties_to_the_out_of_memory_decides_training_or_inference() -> None:
    # The phase named with the failure ("out of memory during training", "OOM when inference", "trying to
    # train ... crashes with CUDA out of memory") decides, not any word of the other phase elsewhere:
    # training told beside inference words (hustvl/MIMDet#23, zylo117/Yet-Another-EfficientDet-Pytorch#263,
    # Doubiiu/DynamiCrafter#102) and inference beside training words (tloen/alpaca-lora#173, settled by fewer
    # beams; filaPro/oneformer3d#114, er-muyue/DeFRCN#65, 282857341/nnFormer#51).
    lead = _led_by(
        "# RuntimeError: CUDA out of memory during training, works fine during inference.",
        "cuda.out_of_memory",
    )
    assert not any("at inference" in line for line in lead.evidence), lead.evidence
    lead = _led_by(
        "# Cuda out of memory at inference after finetuning alpaca-lora with 2048 tokens length\n\nWhen I "
        "finetune alpaca-lora 7b at gpu a10 24gb it's fine, but when I tried to use this trained model in "
        "generate script I have got the allocalate memory error. Can you help me understand why I am "
        "recieving this error at inference but not at training process?",
        "cuda.out_of_memory",
    )
    assert any("at inference" in line for line in lead.evidence), lead.evidence
    for text, phase in (
        (
            "But still during training I sometimes have OOM error when training on EffDetB > 4 even with a "
            "small batch size",
            "training",
        ),
        (
            "Is the memory consumption size you described during the training phase? Why do I always have "
            "OOM",
            "training",
        ),
        (
            "train is ok,Out of Memory Error (OOM) only during evaluation,evaluation doesn't appear to be "
            "distributed. So, it is still using one card",
            "inference",
        ),
        (
            "# Out of memory error during evaluation but training works fine!\n\nHello, I am trying  to fine "
            "tune the model with custom dataset which is in VOC format. The training completed fine but when "
            "during evalution, cuda gives an out of memory error.",
            "inference",
        ),
        (
            "I have a single card with 12G memory, which can be trained normally, but I got OOM when "
            "inference.",
            "inference",
        ),
    ):
        assert memory_explanations.failure_phase(text) == phase, text


def test_an_out_of_memory_quotes_the_messages_figures_as_written() -> None:
    # Each figure restated in GiB, and the message's own figures quoted as they stand, whatever its
    # generation: with "cached" (RenYurui/StructureFlow#35), "reserved in total" (OPIXray-author/OPIXray#5,
    # Li-Chongyi/Zero-DCE#52, with the advice after it), a copy cut before its closing parenthesis
    # (singhsourabh/Resume-NER#4), and torch 2.x's sentences (pytorch/pytorch#16417).
    for text, quoted in (
        (
            "RuntimeError: CUDA out of memory. Tried to allocate 8.13 GiB (GPU 0; 10.76 GiB total capacity; "
            "643.57 MiB already allocated; 8.20 GiB free; 32.43 MiB cached)\nWhy is 643.57 MiB allocated, "
            "and 8.20 GiB is free and still reporting insufficient memory?",
            "Tried to allocate 8.13 GiB (GPU 0; 10.76 GiB total capacity; 643.57 MiB already allocated; "
            "8.20 GiB free; 32.43 MiB cached)",
        ),
        (
            'how to fix this\n" CUDA out of memory. Tried to allocate 264.00 MiB (GPU 0; 2.00 GiB total '
            "capacity; 788.51 MiB already allocated; 145.93 MiB free; 1.02 GiB reserved in total by "
            'PyTorch)"',
            "Tried to allocate 264.00 MiB (GPU 0; 2.00 GiB total capacity; 788.51 MiB already allocated; "
            "145.93 MiB free; 1.02 GiB reserved in total by PyTorch)",
        ),
        (
            "OutOfMemoryError: CUDA out of memory. Tried to allocate 1.71 GiB (GPU 0; 6.00 GiB total "
            "capacity; 3.49 GiB already allocated; 1.04 GiB free; 3.50 GiB reserved in total by PyTorch) If "
            "reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  "
            "See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF",
            "Tried to allocate 1.71 GiB (GPU 0; 6.00 GiB total capacity; 3.49 GiB already allocated; 1.04 "
            "GiB free; 3.50 GiB reserved in total by PyTorch)",
        ),
        (
            "RuntimeError: CUDA out of memory. Tried to allocate 92.00 MiB (GPU 0; 1.96 GiB total capacity; "
            "1.46 GiB already allocated; 16.38 MiB free; 1.51 GiB reserved in total by PyTorch\n\nI tried "
            "every possible way like changing the batch size from 8 to 4 and clearing the cache of CUDA "
            "Memory.",
            "Tried to allocate 92.00 MiB (GPU 0; 1.96 GiB total capacity; 1.46 GiB already allocated; 16.38 "
            "MiB free; 1.51 GiB reserved in total by PyTorch",
        ),
        (
            "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 22.00 MiB. GPU 0 has a "
            "total capacity of 23.65 GiB of which 11.06 MiB is free. Including non-PyTorch memory, this "
            "process has 23.60 GiB memory in use. Of the allocated memory 22.90 GiB is allocated by "
            "PyTorch, and 194.87 MiB is reserved by PyTorch but unallocated. If reserved but unallocated "
            "memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid "
            "fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes"
            "/cuda.html#environment-variables)",
            "Tried to allocate 22.00 MiB. GPU 0 has a total capacity of 23.65 GiB of which 11.06 MiB is "
            "free. Including non-PyTorch memory, this process has 23.60 GiB memory in use. Of the allocated "
            "memory 22.90 GiB is allocated by PyTorch, and 194.87 MiB is reserved by PyTorch but "
            "unallocated.",
        ),
    ):
        lead = _led_by(text, "cuda.out_of_memory")
        assert f'the message\'s figures: "{quoted}"' in lead.evidence, lead.evidence
        assert "total capacity of the GPU:" in " ".join(lead.evidence)


def test_an_nccl_error_quotes_the_nccl_version_it_names() -> None:
    # The version torch's message ends with is that of the NCCL library torch loaded (ncclGetVersion):
    # rstrudel/segmenter#60, DecaYale/RNNPose#29 and Z-Zheng/ChangeStar#5 (system errors), fanq15/FewX#74 (a
    # CUDA error).
    for text, entry_id, version in (
        (
            "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:825, unhandled "
            "system error, NCCL version 2.7.8\nncclSystemError: System call (socket, malloc, munmap, etc) "
            "failed.",
            "nccl.system_error",
            "2.7.8",
        ),
        (
            'When running the eval.py script with "--use_dist True", I am facing this '
            "error:\nRuntimeError: NCCL error in: /opt/conda/conda-bld/pytorch_1607370128159/work/torch/lib/"
            "c10d/ProcessGroupNCCL.cpp:784, unhandled system error, NCCL version 2.7.8\n\nI am using this "
            'Docker image: "nvcr.io/nvidia/cuda:10.2-cudnn7-devel-ubuntu18.04"',
            "nccl.system_error",
            "2.7.8",
        ),
        (
            "    dist._verify_model_across_ranks(self.process_group, parameters)\nRuntimeError: NCCL error "
            "in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:911, unhandled system error, NCCL version "
            "2.7.8\nncclSystemError: System call (socket, malloc, munmap, etc) "
            "failed.\nERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: "
            "0 (pid: 31335) of binary: /home/cy/miniconda3/envs/STAnet/bin/python",
            "nccl.system_error",
            "2.7.8",
        ),
        (
            "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:32, unhandled cuda "
            'error, NCCL version 2.4.8\nThis bug appeared when i run"**sh all.sh**". \nHow can i resolve '
            "this problem?",
            "nccl.cuda_error",
            "2.4.8",
        ),
    ):
        lead = _led_by(text, entry_id)
        assert f"NCCL version {version}: the NCCL library this torch loaded" in lead.evidence, lead.evidence


def test_a_sparse_operand_on_the_other_device_is_a_device_mismatch_in_every_generations_words() -> None:
    # Sparse kernels check devices themselves: torch 0.4 names sparse types ("torch.cuda.sparse.FloatTensor"),
    # torch 1.x's SparseTensorMath.cpp and SparseCUDATensorMath.cu say "expected 'mat1' to be a CPU tensor,
    # but got a CUDA tensor" and "expected 'mat1' to be CUDA, but got CPU", and torch 1.3's CPU kernel
    # asserted the dispatch argument instead (pytorch/pytorch#29026, torch.spmm(adj, support); #30510,
    # torch.sparse.mm).
    for text in (
        'File "/home/jinzhu/pro/UIL/GraphMatch/layers.py", line 42, in forward\n    output = torch.spmm(adj, '
        "support) \nRuntimeError: !t.is_cuda() INTERNAL ASSERT FAILED at /pytorch/aten/src/ATen/native/sparse"
        "/SparseTensorMath.cpp:591, please report a bug to PyTorch.",
        "When i use  ' torch.sparse.addmm(mat, mat1, mat2)' and 'torch.sparse.mm(mat1, mat2)' \nthe "
        "computation stop with the following error:\n 'RuntimeError: !t.is_cuda() INTERNAL ASSERT FAILED at "
        "/pytorch/aten/src/ATen/native/sparse/SparseTensorMath.cpp:591, please report a bug to PyTorch.'",
        "RuntimeError: addmm: expected 'mat1' to be a CPU tensor, but got a CUDA tensor",
        "RuntimeError: add: expected 'other' to be a CPU tensor, but got a CUDA tensor",
        "RuntimeError: addmm: expected 'mat2' to be CUDA, but got CPU",
        "RuntimeError: Expected object of type torch.sparse.FloatTensor but found type "
        "torch.cuda.sparse.FloatTensor for argument #4 'mat1'",
        "RuntimeError: Expected object of type torch.cuda.sparse.FloatTensor but found type "
        "torch.sparse.FloatTensor for argument #2 'mat1'",
    ):
        _led_by(text, "tensors.different_devices")


def test_no_gpu_seen_tells_how_to_find_a_cuda_visible_devices_the_script_sets_itself() -> None:
    # A script or its launch script that sets CUDA_VISIBLE_DEVICES to its authors' GPU overrides the shell's:
    # the report shows only the error (jiaw-z/CoR-GS#23, run from scripts/run_360.sh, settled by
    # os.environ['CUDA_VISIBLE_DEVICES'] = '0'; sherdencooper/GPTFuzz#5, a hardcoded os.environ removed), or
    # torch seeing the GPU where the writer checked (mazurowski-lab/finetune-SAM#18, GPU 5 in the .sh).
    for text in (
        "(corgs) **********DS3H:CoR-GS$ bash scripts/run_360.sh \n[500, 2000, 3000, 5000, 7000, 10000, "
        '15000, 30000]\nTraceback (most recent call last):\n  File "train.py", line 469, in <module>\n    '
        'safe_state(args.quiet)\n  File "./exp/CoR-GS/utils/general_utils.py", line 139, in safe_state\n  '
        '  torch.cuda.set_device(torch.device("cuda:0"))\n  File "./.local/lib/python3.8/site-packages/to'
        'rch/cuda/__init__.py", line 399, in set_device\n    torch._C._cuda_setDevice(device)\n  File '
        '"./.local/lib/python3.8/site-packages/torch/cuda/__init__.py", line 293, in _lazy_init\n    '
        "torch._C._cuda_init()\nRuntimeError: No CUDA GPUs are available",
        '"RuntimeError: No CUDA GPUs are available" when running scripts directly',
    ):
        lead = _led_by(text, "cuda.no_gpus_available")
        assert 'os.environ["CUDA_VISIBLE_DEVICES"]' in lead.fix.text, lead.fix.text
        assert "grep -rn CUDA_VISIBLE_DEVICES ." in lead.fix.commands
    lead = _led_by(
        '  File "/home/mayank/anaconda3/envs/finetune-SAM/lib/python3.10/site-packages/torch/cuda/__init__.'
        'py", line 293, in _lazy_init\n    torch._C._cuda_init()\nRuntimeError: No CUDA GPUs are '
        "available\n\nI have two GPUs on the machine and torch.cuda.is_available outputs True.  How do I "
        "fix this error?",
        "cuda.no_gpus_available",
    )
    assert "CUDA_VISIBLE_DEVICES in the script" in lead.fix.text
    assert "grep -rn CUDA_VISIBLE_DEVICES ." in lead.fix.commands


def test_the_writer_saying_torch_sees_the_gpu_is_read_through_quotes_words_and_typos() -> None:
    # "No CUDA GPUs are available" while the writer's own check finds the GPU: something hid it from the
    # process. The writer words the check every way: a misspelt True (KeYang8/WITT#34, settled by
    # os.environ["CUDA_VISIBLE_DEVICES"] = "0"), words between the call and what it showed (pytorch/pytorch
    # #9535), the name quoted (syorami/DDC-transfer-learning#3, settled by the script's "2" changed to "0").
    lead = _led_by(
        "> RuntimeError: No CUDA GPUs are available torch.cuda.is_available() is Ture Why did this error "
        "occur",
        "cuda.no_gpus_available",
    )
    assert "the writer says torch.cuda.is_available() is True where they checked" in lead.evidence
    for text, says in (
        (
            "Yes, It is the master branch. The error log reminder me that Cuda is not available. But if I "
            "run `torch.cuda.is_available()`, It shows True.",
            True,
        ),
        ('why this program is not using my gpu? but "torch.cuda.is_available" is true', True),
        # constructed counter-cases: a False the check showed, and a True of something else after it
        ("torch.cuda.is_available() returns False, but nvidia-smi shows True for persistence mode", False),
        ("print(torch.cuda.is_available()) gives False. Then I set pin_memory=True", False),
        ("device = 'cuda' if torch.cuda.is_available() and use_gpu is True else 'cpu'", False),
    ):
        assert devices_explanations.says_gpu_available(text) is says, text


def test_a_timed_out_collective_is_known_by_its_work_without_the_watchdogs_words() -> None:
    # The work that timed out, pasted without "Watchdog caught collective operation timeout:" before it: a
    # title cut short (Peterande/D-FINE#118), the blocking wait's message (huggingface/diffusers#12422).
    lead = _led_by(
        "# WorkNCCL(SeqNum=5125, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1807734 millisecond\n\n"
        "训练环境：双卡A100，torch版本 2.0.1\n参数：batch-size = 4， base-size = 1920*1920",
        "nccl.watchdog_timeout",
    )
    assert "ALLREDUCE (collective #5125) timed out after 1800 s (ran 1807 s)" in lead.evidence, lead.evidence
    _led_by(
        "# Work WorkNCCL(SeqNum=2521, OpType=ALLREDUCE, NumelIn=160672064, NumelOut=160672064, "
        "Timeout(ms)=600000) timed out in blocking wait.",
        "nccl.watchdog_timeout",
    )


def test_a_first_collective_that_never_completes_names_the_ranks_device_first() -> None:
    # NCCL runs a collective on the rank's current device: before torch.cuda.set_device(local_rank) that is
    # cuda:0 in every rank, and a barrier as the first collective is where it shows (pytorch/pytorch#53658,
    # "can hang if the first operation is a barrier"; torch's warning since #54991; deepspeedai/DeepSpeed#7266
    # sets init_process_group's device_id against it).
    # A first collective's timeout (NVIDIA/Megatron-LM#1207's line with SeqNum=1: constructed).
    lead = _led_by(
        "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, "
        "NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600013 milliseconds before timing out.",
        "nccl.watchdog_timeout",
    )
    assert "torch.cuda.set_device(local_rank)" in lead.cause and "cuda:0" in lead.cause, lead.cause
    assert "device_id" in lead.fix.text and "NCCL_P2P_DISABLE=1" in lead.fix.text, lead.fix.text
    # torch's warning that it guessed the barrier's GPU, in 2.x's words (deepspeedai/DeepSpeed#7266) and
    # 1.9's (pytorch/pytorch#60752, two ranks on their own GPUs): quoted, the guess right only if it is the
    # rank's own GPU
    deepspeed = (
        "[W404 00:15:21.693690333 ProcessGroupNCCL.cpp:4561] [PG ID 0 PG GUID 0 Rank 0]  using GPU 0 to "
        "perform barrier as devices used by this process are currently unknown. This can potentially cause a "
        "hang if this rank to GPU mapping is incorrect. Specify device_ids in barrier() to force use of a "
        "particular device, or call init_process_group() with a device_id."
    )
    lead = _led_by(deepspeed, "nccl.hang")
    assert any(line.startswith("rank 0: torch guessed GPU 0 for a barrier") for line in lead.evidence)
    lead = _led_by(
        "[W ProcessGroupNCCL.cpp:1569] Rank 0 using best-guess GPU 0 to perform barrier as devices used by "
        "this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping "
        "is incorrect.Specify device_ids in barrier() to force use of a particular device.\n[W "
        "ProcessGroupNCCL.cpp:1569] Rank 1 using best-guess GPU 1 to perform barrier as devices used by "
        "this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping "
        "is incorrect.Specify device_ids in barrier() to force use of a particular device.",
        "nccl.hang",
    )
    assert any(line.startswith("rank 1: torch guessed GPU 1") for line in lead.evidence), lead.evidence
    assert "no rank had said" not in lead.cause
    # two ranks on one guessed GPU (constructed from DeepSpeed#7266's line, a second rank beside it)
    lead = _led_by(deepspeed + "\n" + deepspeed.replace("Rank 0]", "Rank 1]"), "nccl.hang")
    assert "two ranks got the same one" in lead.cause and "torch.cuda.set_device(local_rank)" in lead.fix.text


def test_a_timed_out_work_is_quoted_as_the_message_gives_it() -> None:
    # Its figures restated and quoted, a wrapped line joined: XPixelGroup/BasicSR#737, OFA-Sys/OFA#271 (no
    # element counts), Peterande/D-FINE#118 (a title cut short).
    for text, quoted in (
        (
            "[rank1]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective "
            "operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, "
            "Timeout(ms)=600000) ran for 600020 milliseconds before timing out.",
            "WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) "
            "ran for 600020 milliseconds",
        ),
        (
            "[E ProcessGroupNCCL.cpp:737] [Rank 1] Watchdog caught collective operation timeout: "
            "WorkNCCL(SeqNum=469508, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1802212 milliseconds "
            "before timing out.",
            "WorkNCCL(SeqNum=469508, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1802212 milliseconds",
        ),
        (
            "# WorkNCCL(SeqNum=5125, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1807734 millisecond",
            "WorkNCCL(SeqNum=5125, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1807734 millisecond",
        ),
    ):
        lead = _led_by(text, "nccl.watchdog_timeout")
        assert f'the work, as the message gives it: "{quoted}"' in lead.evidence, lead.evidence


def test_a_cublas_runtime_error_in_thcs_words_is_its_status() -> None:
    # THC, torch 1.x's older CUDA code (__THCublasCheck), words each cuBLAS status: "the GPU program failed to
    # execute" is CUBLAS_STATUS_EXECUTION_FAILED (yifita/3PU_pytorch#5, nlpyang/PreSumm#251,
    # lishuya17/MONN#10, chrischute/glow#7, vchoutas/expose#54; a GPU newer than the build's CUDA in
    # daqingliu/NMTree#6, minar09/cp-vton-plus#77, IIPCVLAB/LCCNet#22).
    for text in (
        "When I tried to train, it showed that RuntimeError: cublas runtime error : the GPU program failed "
        "to execute at /pytorch/aten/src/THC/THCBlas.cu:441\nCan anyone help?",
        "RuntimeError: cublas runtime error : the GPU program failed to execute at /pytorch/aten/src/THC/"
        "THCBlas.cu:450        May I ask how to solve this problem? Thank you",
        "RuntimeError: cublas runtime error : the GPU program failed to execute at /tmp/pip-req-build-PQwZIe/"
        "aten/src/THC/THCBlas.cu:259",
        'Excuse me, when I run demo.py, I get the error "cublas runtime error: the GPU program failed to '
        'execute at /pytorch/aten/src/THC/THCBlas.cu:334", how should I solve this? Is it because of a '
        "problem with my environment? My environment uses cuda110, pytorch1.7.0-cu110-py37, python=3.7.6.",
    ):
        lead = _led_by(text, "cublas.status_error")
        assert "CUBLAS_STATUS_EXECUTION_FAILED" in " ".join(lead.evidence), lead.evidence
        assert "no kernels for" in lead.cause, lead.cause
    # THC's words for CUBLAS_STATUS_ALLOC_FAILED (THCGeneral.cpp)
    lead = _led_by("RuntimeError: cublas runtime error : resource allocation failed", "cublas.status_error")
    assert "CUBLAS_STATUS_ALLOC_FAILED" in " ".join(lead.evidence) and lead.check == "gpu.memory"


def test_a_stopiteration_through_dataparallel_with_its_wrapper_line_cut_is_a_replica_without_parameters() -> (
    None
):
    # A StopIteration whose traceback runs through nn.DataParallel, its "Caught StopIteration in replica" line
    # cut from the paste (CyberAgentAILab/layout-dm#2; e-bug/iglue#15, its traceback under the title) or told
    # in the writer's words (e-bug/volta#17): the replica found no parameters of its own
    # (pytorch/pytorch#38493).
    for text in (
        "# StopIteration error when train from scratch on rico25\n\n  File "
        '"/data1/zhengguojiang/YouTu/layout-origin-dm/src/trainer/trainer/main.py", line 106, in main\n   '
        " train_loss = train(model, train_dataloader, optimizer, cfg, device, writer)\n  File "
        '"/data1/zhengguojiang/YouTu/layout-origin-dm/src/trainer/trainer/main.py", line 227, in train\n  '
        '  outputs, losses = model(batch)\n  File "/data1/zhengguojiang/anaconda3/envs/layoutdm/lib/python3'
        '.7/site-packages/torch/nn/modules/module.py", line 1102, in _call_impl\n    return '
        'forward_call(*input, **kwargs)\n  File "/data1/zhengguojiang/YouTu/layout-origin-dm/src/trainer/tr'
        'ainer/models/layoutdm.py", line 70, in forward\n    outputs, losses = '
        'self.model(inputs["seq"])\n  File "/data1/zhengguojiang/anaconda3/envs/layoutdm/lib/python3.7/si'
        'te-packages/torch/nn/modules/module.py", line 1102, in _call_impl\n    return '
        'forward_call(*input, **kwargs)\n  File "/data1/zhengguojiang/anaconda3/envs/layoutdm/lib/python3.7'
        '/site-packages/torch/nn/parallel/data_parallel.py", line 168, in forward\n    outputs = '
        'self.parallel_apply(replicas, inputs, kwargs)\n  File "/data1/zhengguojiang/anaconda3/envs/layoutd'
        'm/lib/python3.7/site-packages/torch/nn/parallel/data_parallel.py", line 178, in parallel_apply\n  '
        "  return parallel_apply(replicas, inputs, kwargs, self.device_ids[:len(replicas)])",
        "# StopIteration error when running code\n\nTraceback (most recent call last):\n  File "
        '"train_task.py", line 381, in <module>\n    main()\n  File "train_task.py", line 315, in '
        "main\n    loss, score = ForwardModelsTrain(config, task_cfg, device, task, batch, model, "
        'criterion)\n  File "/home/dasheth/multimodal/iglue/volta/volta/task_utils.py", line 248, in '
        "ForwardModelsTrain\n    segment_ids, input_mask, image_mask)\n  File "
        '"/home/dasheth/miniconda3/envs/multimodal_iglue/lib/python3.7/site-packages/torch/nn/modules/modul'
        'e.py", line 1194, in _call_impl\n    return forward_call(*input, **kwargs)\n  File '
        '"/home/dasheth/miniconda3/envs/multimodal_iglue/lib/python3.7/site-packages/torch/nn/parallel/data'
        '_parallel.py", line 171, in forward\n    outputs = self.parallel_apply(replicas, inputs, '
        'kwargs)\n  File "/home/dasheth/miniconda3/envs/multimodal_iglue/lib/python3.7/site-packages/torch/'
        'nn/parallel/data_parallel.py", line 181, in parallel_apply\n    return parallel_apply(replicas, '
        "inputs, kwargs, self.device_ids[:len(replicas)])",
        "# multiple GPUS\n\nHi,\nDid you run the code on multiple GPUS, I am getting the following error "
        "`Caught StopIteration in replica 0 on device 0.`",
    ):
        lead = _led_by(text, "dataparallel.replica_without_parameters")
        assert "next(self.parameters())" in lead.cause, lead.cause
    # a StopIteration of its own, with no DataParallel in its traceback, is no such thing (an exhausted
    # iterator: constructed)
    text = (
        'Traceback (most recent call last):\n  File "train.py", line 12, in <module>\n    batch = '
        "next(loader_iter)\nStopIteration"
    )
    assert not any(e.id == "dataparallel.replica_without_parameters" for e in _explained(text))


def test_torchruns_summary_of_a_failed_rank_sends_the_reader_to_the_ranks_own_error() -> None:
    # ChildFailedError only reports that a rank exited with an error: its own error is above the summary
    # (Vision-CAIR/MiniGPT-4#237 and deepinsight/insightface#2182, exit code 1; MCG-NJU/MeMOTR#1, the words
    # alone, the maintainer asking for the output before them).
    lead = _led_by(
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "
        "\n============================================================\ntrain.py "
        "FAILED\n------------------------------------------------------------\nFailures:\n[1]:\n  time      "
        ": 2023-05-19_16:39:58\n  host      : n136-117-136.byted.org\n  rank      : 1 (local_rank: 1)\n  "
        "exitcode  : 1 (pid: 78971)\n  error_file: <N/A>\n  traceback : To enable traceback see: "
        "https://pytorch.org/docs/stable/elastic/errors.html\n----------------------------------------------"
        "--------------\nRoot Cause (first observed failure):\n[0]:\n  time      : 2023-05-19_16:39:58\n  "
        "host      : n136-117-136.byted.org\n  rank      : 0 (local_rank: 0)\n  exitcode  : 1 (pid: "
        "78970)\n  error_file: <N/A>\n  traceback : To enable traceback see: "
        "https://pytorch.org/docs/stable/elastic/errors.html\n=============================================="
        "==============",
        "elastic.child_failed",
    )
    assert "the first failure: rank 0 (local rank 0), exit code 1" in " ".join(lead.evidence), lead.evidence
    assert "@record" in lead.fix.text
    _led_by(
        "# Error while training in distributed mode\n\nHello, I ran into an error when I am training the "
        'code in distributed mode. Error is as follow "**torch.distributed.elastic.multiprocessing.errors.c'
        "hildFailedError: main.py FAILED**\n\nany idea?",
        "elastic.child_failed",
    )
    # a rank killed (exit code -9) is the host's memory, which that entry explains (open-mmlab/mmhuman3d#322)
    found = _explained(
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: "
        "3041437) of binary: /home/wz/anaconda3/envs/open-mmlab/bin/python\nTraceback (most recent call "
        'last):\n  File "/home/wz/anaconda3/envs/open-mmlab/lib/python3.8/runpy.py", line 194, in '
        "_run_module_as_main\n    return _run_code(code, main_globals, None,"
    )
    assert [e.id for e in found] == ["host.out_of_memory"], [e.id for e in found]


def test_a_cuda_runtime_symbol_an_extension_lacks_is_nvcc_newer_than_the_cuda_torch_loads() -> None:
    # nvcc's host code calls __cudaPushCallConfiguration/__cudaPopCallConfiguration from CUDA 9.2 and
    # __cudaRegisterFatBinaryEnd from CUDA 10: an extension built by a newer toolkit than the CUDA runtime
    # torch loads (rowanz/neural-motifs#90, dingmyu/D4LCN#31, xvjiarui/GCNet#28 and
    # zisianw/FaceBoxes.PyTorch#12, each settled as the toolkit and torch's CUDA not matching)
    for text, release in (
        (
            "ImportError: /home/ld/code/Mono-3D/3d-vehicle-tracking-master.2/faster-rcnn.pytorch/lib/model/r"
            "oi_crop/_ext/roi_crop/_roi_crop.so: undefined symbol: __cudaRegisterFatBinaryEnd\n\npytorch=0.4"
            ".1,cuda=9.0 and gcc=5.4.0 \ncan anybody solve it?Thanks!",
            "CUDA 10",
        ),
        (
            "# sh train.sh undefined symbol: __cudaRegisterFatBinaryEnd\n\nImportError: "
            "/home/lw/D4LCN-master/lib/nms/gpu_nms.cpython-36m-x86_64-linux-gnu.so: undefined symbol: "
            "__cudaRegisterFatBinaryEnd\n\nsir, please help me! how do it?",
            "CUDA 10",
        ),
        (
            "After setup the code, I tried to trian the model and got this error:\nanaconda3/lib/python3.7/si"
            "te-packages/mmdet-0.6.0+a132aab-py3.7.egg/mmdet/ops/dcn/deform_conv_cuda.cpython-37m-x86_64-lin"
            "ux-gnu.so: undefined symbol: __cudaPopCallConfiguration\n\nHow to fix it?\n\n**Environment**\n "
            "- PyTorch version 1.1.0\n- CUDA version 10.0",
            "CUDA 9.2",
        ),
        (
            "ImportError: /home/nnir712/project/FaceBoxes.PyTorch-master/utils/nms/gpu_nms.cpython-36m-x86_6"
            "4-linux-gnu.so: undefined symbol: __cudaPopCallConfiguration",
            "CUDA 9.2",
        ),
    ):
        lead = _led_by(text, "lib.undefined_symbol")
        assert f"nvcc of {release} or later" in lead.cause, lead.cause
        assert "CUDA version mismatch" in lead.cause, lead.cause
        assert "torch.version.cuda" in lead.fix.text and "nvcc --version" in lead.fix.commands, lead.fix


def test_a_device_mismatch_under_cpu_offload_is_the_offloading_first() -> None:
    # Offloading keeps parts of a model on the CPU until its hooks run them: huggingface/diffusers#9895 (a
    # commit of diffusers broke sequential offload), damian0815/compel#121 (a helper library calling the
    # offloaded text encoder; settled by giving it the device), huggingface/peft#352 (FSDP's CPU offload)
    for text in (
        "flux pipeline inference fails \nRuntimeError: Expected all tensors to be on the same device, but "
        "found at least two devices, cuda:0 and cpu!\nwhen enable_sequential_cpu_offload() is used\n\ni "
        "cannot test in other memory management settings because my 3090 wont allow it to run \n\nit fails "
        "at #5588725e8e7be497839432e5328c596169385f16\nit works fine at "
        "#ded3db164bb3c090871647f30ff9988c9c17fd83 (the parent commit)",
        "# It seems like Compel no longer works with DiffusionPipeline.enable_model_cpu_offload.\n\nThe "
        'error **"Expected all tensors to be on the same device, but found at least two devices, cuda:0 '
        'and cpu! (when checking argument for argument index in method wrapper_CUDA__index_select)"** '
        "occurs after enabling `model_cpu_offload` during the calling of `CompelForSDXL`.\n\nEverything "
        "works without a Compel.",
        '# do not use self.device. In FSDP cpu offload mode. self.device is "CPU…\n\n…" instead of '
        '"cuda"\n\nand there\'s error like "Expected all tensors to be on the same device, but found at '
        'least two devices, cpu and cuda:1"',
    ):
        lead = _led_by(text, "tensors.different_devices")
        assert "offload" in lead.evidence[-1] and "CPU offload" in lead.cause, lead
        assert "without CPU offload" in lead.fix.text, lead.fix
    # offloading named as turned off is not offloading (constructed)
    text = (
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 "
        "and cpu!\npipe = WanVideoPipeline.from_pretrained(config, offload_mode=None)"
    )
    assert "CPU offload" not in _led_by(text, "tensors.different_devices").cause


def test_gradscaler_unscaling_bfloat16_gradients_is_a_bfloat16_model_under_fp16_mixed_precision() -> None:
    # The unscale kernel dispatches float and half only (AmpKernels.cu): AttentionX/InstructBLIP_PEFT#3,
    # huggingface/trl#4901, modelscope/DiffSynth-Studio#1177 (an accelerate config not given),
    # InternLM/xtuner#960
    for text in (
        'Hi,\n\nI am facing following error:\n`RuntimeError: "_amp_foreach_non_finite_check_and_unscale_cud'
        "a\" not implemented for 'BFloat16'`\n\nAny idea why and how to resolve this? Thanks!",
        "FAILED tests/test_sft_trainer.py::TestSFTTrainerSlow::test_sft_trainer_transformers_mp[trl-internal-"
        "testing/tiny-LlamaForCausalLM-3.2-True] - NotImplementedError: "
        "\"_amp_foreach_non_finite_check_and_unscale_cuda\" not implemented for 'BFloat16'",
        '# "_amp_foreach_non_finite_check_and_unscale_cuda" not implemented for '
        "'BFloat16\n\n训练的时候这个报错是什么原因",
        '# RuntimeError: "_amp_foreach_non_finite_check_and_unscale_cuda" not implemented for '
        "'BFloat16'这个问题没人解决吗",
    ):
        lead = _led_by(text, "amp.bf16_parameters")
        assert "bf16 mixed precision" in lead.fix.text and "GradScaler" in lead.cause, lead


def test_deepspeeds_words_for_the_toolkit_and_torchs_cuda_differing_are_the_cuda_version_mismatch() -> None:
    # DeepSpeed's op builder (op_builder/builder.py, assert_no_cuda_mismatch; lightseq has the same check)
    # refuses the toolkit in its own words: databrickslabs/dolly#168, enhuiz/vall-e#107,
    # bytedance/lightseq#158
    for text, versions, builder in (
        (
            "Exception: >- DeepSpeed Op Builder: Installed CUDA version 9.1 does not match the version "
            "torch was compiled with 11.8, unable to compile cuda/cpp extensions without a matching cuda "
            "version.",
            "the CUDA toolkit found is 9.1; the installed torch was built for CUDA 11.8",
            "DS_SKIP_CUDA_CHECK=1",
        ),
        (
            "`_Exception: >- DeepSpeed Op Builder: Installed CUDA version 12.1 does not match the version "
            "torch was compiled with 11.8, unable to compile cuda/cpp extensions without a matching cuda "
            "version._`",
            "the CUDA toolkit found is 12.1; the installed torch was built for CUDA 11.8",
            "DS_SKIP_CUDA_CHECK=1",
        ),
        (
            "# Exception: Installed CUDA version 9.0 does not match the version torch was compiled with "
            "10.1, unable to compile cuda/cpp extensions without a matching cuda version.\n\nException: "
            "Installed CUDA version 9.0 does not match the version torch was compiled with 10.1, unable to "
            "compile cuda/cpp extensions without a matching cuda version.",
            "the CUDA toolkit found is 9.0; the installed torch was built for CUDA 10.1",
            "nvcc --version",
        ),
    ):
        lead = _led_by(text, "build.cuda_version_mismatch")
        said = _said(lead)
        assert versions in said and builder in said, said


def test_gpu_numbers_that_differ_from_nvidia_smis_are_cudas_fastest_first_order() -> None:
    # CUDA numbers the GPUs fastest first, nvidia-smi by PCI bus: NVIDIA/DIGITS#1358,
    # microsoft/onnxruntime#17546, Theano/Theano#6023, pytorch/pytorch#86539 (settled as CUDA_DEVICE_ORDER)
    for text in (
        "# DIGITS GPU ID appears to disagree with nvidia-smi\n\nMy DL machine has four GPUs. I'm training a "
        "model on two of them. In DIGITS I selected GPU 2 and 3 for training, but the GPU utilisation "
        "showing in nvidia-smi says the training is happening on GPU 0 and 1.",
        "# Creating a GPU session with device_id does not correspond to the device ID from nvidia-smi output",
        "# Theano GPU order incosistent with nvidia?\n\nSo I have this problem since I'm on a cluster - on "
        "the node when I get scheduled I have to figure out which GPU is free in order to select it.",
        "# cuda.list_gpu_processes() uses the 'wrong' device order (PCI_BUS_ID)\n\n### 🐛 Describe the "
        "bug\n\nAs far as I can tell, all other torch.cuda functions use the same device order (where the "
        "largest or most capable GPU is ordered first, versus when it was found on the PCI bus). However, "
        "list_gpu_processes uses the bus order. \n\nThis is easy to test if you have 2 GPUs, with the least "
        "capable one listed first in nvidia-smi. For me:\n\n    # nvidia-smi order\n    # 0. GTX 745\n    # "
        "1. GTX 1080 Ti \n\n    import torch\n    \n    # demonstrate the PyTorch cuda order\n    "
        "print(torch.cuda.get_device_name(0))  # prints: NVIDIA GeForce GTX 1080 Ti\n    "
        "print(torch.cuda.get_device_name(1))  # prints: NVIDIA GeForce GTX 745",
    ):
        lead = _led_by(text, "cuda.device_order")
        assert "CUDA_DEVICE_ORDER=PCI_BUS_ID" in lead.fix.text and "fastest first" in lead.cause, lead
    # the two listings side by side are read (pytorch/pytorch#86539's, the names as nvidia-smi -L and torch
    # print them: constructed)
    lead = _led_by(
        "nvidia-smi order differs:\nGPU 0: NVIDIA GeForce GTX 745 (UUID: GPU-1)\nGPU 1: NVIDIA GeForce GTX "
        "1080 Ti (UUID: GPU-2)\ncuda:0 -> NVIDIA GeForce GTX 1080 Ti\ncuda:1 -> NVIDIA GeForce GTX 745",
        "cuda.device_order",
    )
    assert (
        "nvidia-smi's GPU 0 is NVIDIA GeForce GTX 745; torch's cuda:0 is NVIDIA GeForce GTX 1080 Ti"
        in lead.evidence
    ), lead.evidence
    # memory figures that differ are no ordering (constructed)
    assert not any(
        e.id == "cuda.device_order"
        for e in _explained(
            "nvidia-smi shows 10 GiB used, the numbers differ from torch.cuda.memory_allocated()"
        )
    )


def test_windows_dll_load_failures_are_read_in_english_and_chinese() -> None:
    # Python's "DLL load failed" with Windows' own message: error 127 (the specified procedure could not be
    # found, 找不到指定的程序) is a module built against other releases of what it links, Windows'
    # undefined symbol: smthemex/ComfyUI_TRELLIS#27, dream80/roop_colab#16 (the message wrapped by the
    # console), MrForExample/ComfyUI-3D-Pack#187
    trellis = (
        '  File "E:\\AI\\comfyUI\\ComfyUI-aki-v1.4\\python\\lib\\site-packages\\'
        'diff_gaussian_rasterization\\__init__.py", line 15, in <module>\n    from . import _C\n'
        "ImportError: DLL load failed while importing _C: 找不到指定的程序。\n\n"
        "cuda也装了.环境也设置了 vs2022对应的那些也安装了."
    )
    for text in (
        trellis,
        "    from .onnxruntime_pybind11_state import *  # noqa\nImportError: DLL load failed while "
        "importing onnxruntime_pybind11_state: 找不到\n指定的程序。",
        "# ImportError: DLL load failed while importing _C: The specified procedure could not be found.",
    ):
        lead = _led_by(text, "lib.undefined_symbol")
        assert "error 127" in " ".join(lead.evidence), lead.evidence
    assert "diff-gaussian-rasterization" in _led_by(trellis, "lib.undefined_symbol").fix.text
    # error 126 (the specified module could not be found, 找不到指定的模块) is a DLL not found:
    # pytorch/pytorch#28363, Azong-HQU/MMTrack#6, HypoX64/DeepMosaics#154
    for text in (
        "---> 81 from torch._C import *\n     82 \n     83 __all__ += [name for name in "
        "dir(_C)\n\nImportError: DLL load failed: The specified module could not be found.",
        "# ImportError: DLL load failed while importing _ext: 找不到指定的模块。",
        "blow is the error info:\n\nDLL load failed while importing _C: 找不到指定的模块。\n"
        "Please press any key to exit.",
    ):
        lead = _led_by(text, "lib.cannot_open_shared_object")
        assert "Visual C++ Redistributable" in lead.fix.text, lead.fix


def test_a_linker_that_cannot_find_libcudart_looks_in_cuda_homes_lib64() -> None:
    # torch.utils.cpp_extension links a CUDA extension with -L<CUDA_HOME>/lib64 -lcudart: a CUDA_HOME that is
    # a conda environment without the runtime's development library (hpcaitech/ColossalAI#2908, in Chinese;
    # tudelft-iv/VoteFlow#2; sunset1995/torch_efficient_distloss#7), or a libcudart.so not where ld looks
    # (MrTornado24/Next3D#25, settled with a symbolic link)
    for text, folder in (
        (
            "# [BUG]: build and load the fused_optim error : /usr/bin/ld: 找不到 -lcudart: "
            "没有那个文件或目录\n\n### 🐛 Describe the bug\n\n运行applications/ChatGPT/examples/train_dummy"
            ".py 时报错\n```\n============================================================================="
            "============\nNo pre-built kernel is found, build and load the fused_optim kernel during "
            "runtime now\n================================================================================="
            "========\nDetected CUDA files, patching ldflags\nEmitting ninja build file "
            "/home/verigle/.cache/colossalai/torch_extensions/torch1.13_cu11.7/build.ninja...\nBuilding "
            "extension module fused_optim...\nAllowing ninja to set a default number of workers... "
            "(overridable by setting the environment variable MAX_JOBS=N)\n[1/1] c++ colossal_C_frontend.o "
            "multi_tensor_sgd_kernel.cuda.o multi_tensor_scale_kernel.cuda.o multi_tensor_adam.cuda.o "
            "multi_tensor_l2norm_kernel.cuda.o multi_tensor_lamb.cuda.o -shared "
            "-L/home/verigle/miniconda3/envs/colossalai/lib/python3.8/site-packages/torch/lib -lc10 "
            "-lc10_cuda -ltorch_cpu -ltorch_cuda_cu -ltorch_cuda_cpp -ltorch -ltorch_python "
            "-L/home/verigle/miniconda3/envs/colossalai/lib64 -lcudart -o fused_optim.so\nFAILED: "
            "fused_optim.so ",
            "/home/verigle/miniconda3/envs/colossalai/lib64",
        ),
        (
            "RuntimeError(\"Error building extension 'im2ht': [1/1] c++ ht_cuda.cuda.o im2ht.o -shared "
            "-L/opt/conda/envs/sf_tv/lib/python3.8/site-packages/torch/lib -lc10 -lc10_cuda -ltorch_cpu "
            "-ltorch_cuda -ltorch -ltorch_python -L/opt/conda/envs/sf_tv/lib64 -lcudart -o "
            "im2ht.so\\nFAILED: [code=1] im2ht.so \\nc++ ht_cuda.cuda.o im2ht.o -shared "
            "-L/opt/conda/envs/sf_tv/lib/python3.8/site-packages/torch/lib -lc10 -lc10_cuda -ltorch_cpu "
            "-ltorch_cuda -ltorch -ltorch_python -L/opt/conda/envs/sf_tv/lib64 -lcudart -o "
            "im2ht.so\\n/usr/bin/ld: cannot find -lcudart\\ncollect2: error: ld returned 1 exit "
            'status\\nninja: build stopped: subcommand failed.\\n")',
            "/opt/conda/envs/sf_tv/lib64",
        ),
        (
            "[1/1] c++ segment_cumsum.o segment_cumsum_kernel.cuda.o -shared "
            "-L/opt/conda/lib/python3.10/site-packages/torch/lib -lc10 -lc10_cuda -ltorch_cpu "
            "-ltorch_cuda_cu -ltorch_cuda_cpp -ltorch -ltorch_python -L/opt/conda/lib64 -lcudart -o "
            "segment_cumsum_cuda.so\nFAILED: segment_cumsum_cuda.so \nc++ segment_cumsum.o "
            "segment_cumsum_kernel.cuda.o -shared -L/opt/conda/lib/python3.10/site-packages/torch/lib "
            "-lc10 -lc10_cuda -ltorch_cpu -ltorch_cuda_cu -ltorch_cuda_cpp -ltorch -ltorch_python "
            "-L/opt/conda/lib64 -lcudart -o segment_cumsum_cuda.so\n/usr/bin/ld: cannot find "
            "-lcudart\ncollect2: error: ld returned 1 exit status",
            "/opt/conda/lib64",
        ),
        ("# /usr/bin/ld: cannot find -lcudart: No such file or directory\n\nI've solved this issue.", None),
    ):
        lead = _led_by(text, "build.cudart_not_found")
        said = _said(lead)
        assert "CUDA_HOME" in lead.cause and "libcudart.so" in lead.fix.text, lead
        if folder is not None:
            assert f"the linker looked for libcudart.so in {folder}" in said, said


def test_torch_1_xs_words_name_the_argument_on_the_other_device_as_torch_1_9_does() -> None:
    # torch before 1.9 named the argument too ("for argument #3 'index' in call to _th_index_select", torch
    # 1.0's "backend CPU for argument #3 'index'"): SamLynnEvans/Transformer#24 and akanimax/T2F#13 (the
    # index, token ids), Nmegha2601/activitygraph_transformer#9 and chloerobotics/chloebot#4 (the embedding's
    # weight)
    for text, line, move in (
        (
            "Im getting this error when following the readme instructions:\nRuntimeError: Expected object "
            "of device type cuda but got device type cpu for argument #3 'index' in call to "
            "_th_index_select\n\nany tips?",
            "the tensor on the other device is argument index of _th_index_select: an index tensor",
            "index = index.to(x.device)",
        ),
        (
            "# RuntimeError: Expected object of backend CUDA but got backend CPU for argument #3 "
            "'index'\n\nI am getting this error and don't know how to solve it, can you help please?",
            "the tensor on the other device is argument index: an index tensor",
            "index = index.to(x.device)",
        ),
        (
            "Hi, Thank you for your great work!\nI've got a problem. Can you help me?\nRuntimeError: "
            "Expected object of device type cuda but got device type cpu for argument #1 'self' in call to "
            "_th_index_select",
            "the tensor on the other device is argument self of _th_index_select: the embedding's weight "
            "table",
            "model.to(device)",
        ),
        (
            "when running trainer notebook I get this error\nRuntimeError: Expected object of device type "
            "cuda but got device type cpu for argument #1 'self' in call to _th_index_select\n\nwhen "
            "running this line",
            "the tensor on the other device is argument self of _th_index_select: the embedding's weight "
            "table",
            "model.to(device)",
        ),
    ):
        lead = _led_by(text, "tensors.different_devices")
        assert any(e.startswith(line) for e in lead.evidence), lead.evidence
        assert move in lead.fix.text, lead.fix


def test_a_collective_timeout_the_writer_ties_to_validation_is_one_rank_validating_alone() -> None:
    # The ranks wait in a collective while one of them validates, longer than the process group's timeout:
    # thangvubk/SoftGroup#83, Synthefy/synthefy-nori#86 (validation on rank 0 only; a longer timeout merged),
    # charent/ChatLM-mini-Chinese#47 (评估, evaluation)
    for text, phase in (
        (
            "# Watchdog caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE, "
            "Timeout(ms)=1800000) ran for 1809861 milliseconds before timing out\n\nThis error happens "
            "when in the validation step.",
            "validation",
        ),
        (
            "# fix(training): raise default NCCL_TIMEOUT to 3h so slow eval can't abort DDP runs\n\n## "
            "Problem\nMulti-GPU (DDP) training aborts **mid-validation** with an NCCL collective "
            "timeout:\n\n```\nWatchdog caught collective operation timeout: WorkNCCL(... OpType=BROADCAST "
            "...)\nran for 3600001 ms before timing out  ->  Signal 6 (SIGABRT)\n```",
            "validation",
        ),
        (
            "rank1]:[E ProcessGroupNCCL.cpp:537] Some NCCL operations have failed or timed out. Due to the "
            "asynchronous nature of CUDA kernels, subsequent GPU operations might run on "
            "corrupted/incomplete data.\n[rank1]:[E ProcessGroupNCCL.cpp:543] To avoid data inconsistency, "
            "we are taking the entire process down.\n[rank1]:[E ProcessGroupNCCL.cpp:1182] [Rank 1] NCCL "
            "watchdog thread terminated with exception: [Rank 1] Watchdog caught collective operation "
            "timeout: WorkNCCL(SeqNum=61, OpType=_ALLGATHER_BASE, NumelIn=7168, NumelOut=14336, "
            "Timeout(ms)=1800000) ran for 1800086 milliseconds before timing out.\nException raised from "
            "checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:525 (most recent call "
            "first):\nframe #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7e2ae5781d87 "
            "in /home/dongbingcheng/anaconda3/envs/llmfinetuning/lib/python3.9/site-packages/torch/lib/libc"
            "10.so)\n\n我是双卡训练，感觉是训练完第一个epoch就出现这个错误\n我使用的是实现的train.py文件\n"
            "感觉是不是评估的时候，前面进程没结束\n添加个accelerator.wait_for_everyone()\n谢谢解答！",
            "评估",
        ),
    ):
        lead = _led_by(text, "nccl.watchdog_timeout")
        assert f"the text ties the timeout to {phase}" in lead.evidence, lead.evidence
        assert "longer than the process group's timeout" in lead.cause, lead.cause
        assert "ddp_timeout" in lead.fix.text and "DistributedSampler" in lead.fix.text, lead.fix


def test_an_ngc_container_that_refuses_the_gpu_is_older_than_the_gpu() -> None:
    # NVIDIA's PyTorch container checks the GPUs against what its CUDA release supports:
    # MIC-DKFZ/nnDetection#204 and dusty-nv/jetson-inference#1814 (settled by a newer base image),
    # NVIDIA/semantic-segmentation#178
    for text, gpu, capability in (
        (
            "### :question: Question\n\nHi, I build and run the docker, everything looks right except a "
            "warning that stated Detected NVIDIA NVIDIA GeForce RTX 4080 GPU, which is not yet supported "
            "in this version of the container\nERROR: No supported GPU(s) detected to run this container",
            "GeForce RTX 4080",
            "8.9",
        ),
        (
            "https://developer.nvidia.com/ngc/nvidia-deep-learning-container-license\nWARNING: Detected "
            "NVIDIA NVIDIA GeForce RTX 4060 Laptop GPU GPU, which is not yet supported in this version of "
            "the container\nERROR: No supported GPU(s) detected to run this container",
            "GeForce RTX 4060 Laptop GPU",
            "8.9",
        ),
        (
            "# WARNING: Detected NVIDIA A100-PCIE-40GB GPU, which is not yet supported in this version of "
            "the container\n\nHi @tjyuyao, @chrisman1015, \nI am also facing  issues similar to this "
            "\nhttps://github.com/NVIDIA/semantic-segmentation/issues/160#issue-971022065, \n\nIt would be "
            "great help for me if you all please help me out with this.\n\nThese are the exact error "
            "message:\n\n=============\n== PyTorch ==\n=============\n\nNVIDIA Release 19.05 (build "
            "6411784)\nPyTorch Version 1.1.0a0+828a6a3",
            "A100-PCIE-40GB",
            "8.0",
        ),
    ):
        lead = _led_by(text, "container.gpu_not_supported")
        said = _said(lead)
        assert f"the container refuses the {gpu}" in said and f"compute capability {capability}" in said, said
        assert lead.cause.startswith("The container is too old for this GPU"), lead.cause
        assert "FROM" in lead.fix.text, lead.fix
    assert "NVIDIA's release 19.05, with PyTorch 1.1.0a0+828a6a3" in _said(lead)
    # the image a Dockerfile builds on, where no banner gives the release (constructed: NVIDIA's TensorRT
    # container runs the same start-up check)
    built = _led_by(
        "FROM nvcr.io/nvidia/tensorrt:22.07-py3\nWARNING: Detected NVIDIA NVIDIA GeForce RTX 4090 GPU, which "
        "is not yet supported in this version of the container",
        "container.gpu_not_supported",
    )
    assert (
        "the image is NVIDIA's tensorrt container of release 22.07 (nvcr.io/nvidia/tensorrt:22.07-py3)"
        in (built.evidence)
    ), built.evidence


def test_an_out_of_memory_the_writer_ties_to_gradients_nobody_uses_is_autograd_left_on() -> None:
    # The writer names no evaluation phase beside torch.no_grad, but ties the out-of-memory to it missing or
    # to gradients computed and kept for no backward pass: serend1p1ty/SeqNet#14 (merged),
    # lxuechen/BDMC#3 (the maintainer's fix: only the one block under torch.enable_grad),
    # zhanhz/PC-NBV_pytorch#3, wenbin-lin/OcclusionFusion#14
    cases = [
        "# fixed the CUDA out of memory\n\nDuring inference of model,wrapping the model in torch.no_grad() "
        "to disable the computation graph.",
        "# Fixing a bug where stored gradients cause OOM\n\nBecause the `log_f_i` has a gradient and is "
        "accumulated in `logw` the backward storage of the model accumulates which is not necessary. This "
        "causes GPU out of memory exception.\nThe fix simply detaches these so they can be discarded.",
        "# GPU out of memory\n\nDear,\n\nI realized in the inference process, without setting 'with "
        "torch.no_grad()', the usage of GPU will continuously increase, and finally out of memory.",
        "# Decrease GPU memory usage\n\nThere were issues regarding the high memory usage. I couldn't run "
        "the demo myself due to CUDA out-of-memory errors.\n\nThe solution is to avoid computing gradients "
        "at the forward step. As it was before, the gradients accumulate at each iteration since they are "
        "not used. This results in linearly increasing memory usage to store unnecessary tensors.",
    ]
    for text in cases:
        assert "memory.graph_kept_in_eval" in _ids(text), _ids(text)
    # torch.no_grad already in use, or added without effect, is not this cause (constructed)
    for text in (
        "RuntimeError: CUDA out of memory. I already run the model under torch.no_grad().",
        "I added torch.no_grad() but it still runs out of memory.",
    ):
        assert "memory.graph_kept_in_eval" not in _ids(text), text


def test_a_compiled_extension_that_imports_without_its_functions_was_not_built_from_these_sources() -> None:
    # The extension's name imports but holds no compiled function: its source folder, never built, imports
    # as an empty namespace package, or a failed or older build is found: princeton-vl/RAFT#86 ('I forgot
    # to compile the alt_cuda_corr module but the import alt_cuda_corr was still successful'),
    # mit-han-lab/torchsparse#142 (its build had failed), CharlesShang/DCNv2#77,
    # zhanghang1989/PyTorch-Encoding#44
    for text, module, name in (
        (
            '  File "core/corr.py", line 86, in __call__\n    corr, = alt_cuda_corr.forward(fmap1_i, '
            "fmap2_i, coords_i, r)\nAttributeError: module 'alt_cuda_corr' has no attribute 'forward'",
            "alt_cuda_corr",
            "forward",
        ),
        (
            "# [BUG] <title>AttributeError: module 'torchsparse.backend' has no attribute 'hash_cuda'",
            "torchsparse.backend",
            "hash_cuda",
        ),
        (
            "# module '_ext' has no attribute 'dcn_v2_forward'\n\nmodule '_ext' has no attribute "
            "'dcn_v2_forward'\npytoch 1.0.1 cuda10",
            "_ext",
            "dcn_v2_forward",
        ),
        (
            "# module 'encoding._ext.encoding_lib' has no attribute 'Encoding_Float_sum_square_Forward'",
            "encoding._ext.encoding_lib",
            "Encoding_Float_sum_square_Forward",
        ),
    ):
        lead = _led_by(text, "extension.not_built")
        said = _said(lead)
        assert f"{module} imports but has no {name}" in said, said
        assert "namespace package" in lead.cause and "setup.py" in lead.fix.text, lead
    # torch's own compiled module, and a library's attribute, are not a project's extension (constructed)
    assert "extension.not_built" not in _ids("AttributeError: module 'torch._C' has no attribute '_cuda_x'")
    assert "extension.not_built" not in _ids("AttributeError: module 'torch.cuda' has no attribute 'amp'")


def test_an_out_of_memory_at_test_time_when_training_fits_is_evaluation_taking_more_than_it_needs() -> None:
    # Training fits and the test run does not: autograd left on in the test code, or a test batch or input
    # larger than training's (whole images against training's crops): IDKiro/CBDNet-pytorch#14 (full-size
    # images at test), chaoyuaw/pytorch-coviar#69 (torch.no_grad in test.py; a smaller batch),
    # hujie-frank/SENet#50 (the test batch), thangvubk/SoftGroup#146
    cases = [
        "# CUDA out of memory.\n\nHi, \n   I just run the test code, but get the error. \nRuntimeError: "
        "CUDA out of memory. Tried to allocate 3.83 GiB (GPU 0; 23.65 GiB total capacity; 16.60 GiB "
        "already allocated; 3.37 GiB free; 1.09 GiB cached)\nAnd then I just try to use the train code, It "
        "is ok. \nwould you please help me for this problem?",
        "# Running on GPU with less memory - CUDA out of memeory\n\nI was trying this model on GTX 1080 Ti "
        "(12GB memory). All trainings have worked fine for me but with smaller batch size. \nHowever, "
        "testing for I-frame model is giving CUDA out of memory error.",
        "# Enough memory for training but not enough memory for testing?\n\nGreeting!\nI am training "
        "SE-Resnet-50, and I have enough GPU memory for training.\nBut when I am trying to do testing with "
        "the same config, I got out of memory error.",
        "# trainint is ok, testing out of memory?",
    ]
    for text in cases:
        found = [e for e in _explained(text) if e.id == "memory.graph_kept_in_eval"]
        assert found, _ids(text)
        assert "lower the evaluation batch size" in found[0].fix.text
    # an out-of-memory in training, with a test set named, is not this (constructed)
    assert "memory.graph_kept_in_eval" not in _ids(
        "Training runs out of memory at epoch 3; testing was fine with the pretrained model."
    )


def test_an_extension_built_with_torch_utils_ffi_needs_torch_0_4_or_a_port_to_cpp_extensions() -> None:
    # torch 1.0 replaced torch.utils.ffi (cffi extensions of torch 0.4 and older) by C++ extensions:
    # MIC-DKFZ/medicaldetectiontoolkit#67 (settled with torch==0.4.1), yangli18/hand_detection#3 (the
    # maintainer: an older PyTorch, or the project's cpp-extension branch), KexianHust/Structure-Guided-
    # Ranking-Loss#14 (reverting to 0.4.1), yikang-li/MSDN#21 (0.4 works)
    for text in (
        "# ImportError: torch.utils.ffi is deprecated, how to use cpp extensions instead?\n\nWhen I run "
        "python build.py, there is an error saying torch.utils.ffi is deprecated, is there an updated "
        "version available which uses cpp extensions?",
        "So, now i'm on Ubuntu 16.04 everything appears to be fine until build.py i got this error : "
        '\n\nTraceback (most recent call last):\n  File "build.py", line 3, in <module>\n    from '
        'torch.utils.ffi import create_extension\n  File "/home/the-taco-coder/.local/lib/python3.5/'
        'site-packages/torch/utils/ffi/__init__.py", line 1, in <module>\n    raise ImportError("torch.utils.'
        'ffi is deprecated. Please use cpp extensions instead.")\nImportError: torch.utils.ffi is '
        "deprecated. Please use cpp extensions instead.",
        "# torch.utils.ffi is deprecated when running PYTHON_CMD=python3 ./make_ext.sh\n\nImportError: "
        "torch.utils.ffi is deprecated. Please use cpp extensions instead.",
        "# facing ffi error\n\nImportError: torch.utils.ffi is deprecated. Please use cpp extensions "
        "instead.",
    ):
        lead = _led_by(text, "build.ffi_removed")
        assert "torch 1.0" in lead.cause and "0.4" in lead.cause, lead.cause
        assert "torch==0.4.1" in lead.fix.text and "CUDAExtension" in lead.fix.text, lead.fix


def test_cpm_kernels_that_cannot_find_a_cuda_library_looks_where_torchs_own_copies_are_not() -> None:
    # cpm_kernels (ChatGLM's int4 kernels) loads cudart itself: a cudart64_*.dll on PATH on Windows,
    # lib<name>.so under CUDA_PATH, /usr/local/cuda or ldconfig's list on Linux (cpm_kernels/library/base.py):
    # ssbuild/chatglm_finetuning#96 (settled by conda install cudatoolkit), zai-org/ChatGLM-6B#46 and #839,
    # MinusZoneAI/ComfyUI-Kolors-MZ#79
    for text, library, windows in (
        (
            "# 执行infer.py(python infer.py)遇到错误：RuntimeError: Library cudart is not "
            "initialized，是怎么回事啊？",
            "cudart",
            False,
        ),
        (
            "# RuntimeError: Library cudart is not initialized\n\nquantize to int 4 and got "
            "error:\n\n<pre>\nD:\\chatglm6b\\ChatGLM-6B>python web_demo.py\nExplicitly passing a "
            "`revision` is encouraged when loading a model with custom code to ensure no malicious code "
            "has been contributed in a newer revision.",
            "cudart",
            True,
        ),
        (
            "# [BUG/Help] 加载模型时遇到 RuntimeError: Library cuda is not initialized 问题",
            "cuda",
            False,
        ),
        (
            "# 加载量化版的4bit chatglm3 运行报错,RuntimeError: Library cudart is not "
            "initialized\n\ncpm_kernels库已经正确安装,但还是会出下如下错误，求解！\n\nLoad "
            "TEXT_ENCODER...\n!!! Exception during processing !!! Library cudart is not "
            'initialized\nTraceback (most recent call last):\n  File "D:\\ComfyUI-aki-v1.2\\execution.py", '
            "line 317, in execute",
            "cudart",
            True,
        ),
    ):
        lead = _led_by(text, "cpm_kernels.library_not_found")
        said = _said(lead)
        assert f"cpm_kernels found no {library} library" in said, said
        assert "CUDA_PATH" in lead.fix.text and "cudatoolkit" in lead.fix.text, lead.fix.text
        # Windows' folder first where the text shows Windows paths, Linux's otherwise
        assert (lead.fix.text.index("torch\\lib") < lead.fix.text.index("CUDA_PATH")) == windows, lead.fix


def test_xformers_kernels_built_for_another_gpu_name_both_architectures() -> None:
    # xformers' kernels refuse to run from code compiled for an older architecture than they need:
    # Linaqruf/kohya-trainer#34 (the notebook's xformers built for the T4),
    # d8ahazard/sd_dreambooth_extension#74 (rebuilt for the GPU), facebookresearch/xformers#1045
    # (TORCH_CUDA_ARCH_LIST="7.5 8.6")
    for text, needs, built in (
        (
            "# FATAL: this function is for sm80, but was built for sm750\n\nHi, I'm using colab pro with "
            "premium. \n\nI had this error but once I got rid of what was inside the additional_argument, "
            "it worked.\n\n```\nFATAL: this function is for sm80, but was built for sm750\nFATAL: this "
            "function is for sm80, but was built for sm750",
            "sm80",
            "7.5",
        ),
        ('# "FATAL: this function is for sm80, but was built for sm750"', "sm80", "7.5"),
        (
            "However, when I run with the 3090s, I encountered an error:\n\nFATAL: kernel "
            "fmha_cutlassF_f16_aligned_64x128_rf_sm80 is for sm80-sm100, but was built for sm75.",
            "sm80-sm100",
            "7.5",
        ),
    ):
        lead = _led_by(text, "xformers.built_for_other_gpu")
        said = _said(lead)
        assert f"the kernel needs {needs}" in said and f"compute capability {built}" in said, said
        assert "TORCH_CUDA_ARCH_LIST" in lead.fix.text and "pip install" in lead.fix.text, lead.fix


def test_nvidia_smi_missing_in_a_container_is_a_container_started_without_gpus() -> None:
    # The NVIDIA Container Toolkit mounts nvidia-smi and the driver's libraries only into a container started
    # with GPUs: NVIDIA/nvidia-docker#341 (started with plain docker run), allenai/beaker-cli#326 (works with
    # --gpus all), anibali/docker-pytorch#27 (the maintainer: --gpus=all)
    for text, command in (
        (
            "# nvidia-smi: command not found\n\nI'm using `FROM nvidia/cuda:8.0-devel-ubuntu16.04` in my "
            "Dockerfile.\nAfter the build and run I'm getting\n\n```bash\n$ nvidia-smi\nbash: nvidia-smi: "
            "command not found\n```\n\nMay I have to specify the path in my Docker container?",
            None,
        ),
        (
            "# Unable to access GPUs without `--gpus all`, locally and on Beaker\n\nI reproduced this "
            "issue in https://github.com/mbforbes/beaker-docker, where I use the `Dockerfile` from "
            "https://github.com/beaker/docs/blob/main/docs/start/run.md. The issue also happens to me when "
            "I start from an `nvidia/cuda` image (`nvidia/cuda:11.4.1-cudnn8-runtime-ubuntu20.04`).\n\nCopy"
            "ing the output from there:\n\n```bash\n$ docker --version\nDocker version 20.10.8, build "
            "3967b7d\n\n$ docker build -t my-experiment .\n# ...\n\n$ docker run --rm -it my-experiment "
            "nvidia-smi\ndocker: Error response from daemon: OCI runtime create "
            'failed:\ncontainer_linux.go:380: starting container process caused: exec:\n"nvidia-smi": '
            "executable file not found in $PATH: unknown.",
            "docker run --rm -it my-experiment nvidia-smi",
        ),
        (
            "# Cuda not found after pulling docker image at docker pull "
            "anibali/pytorch:1.4.0-cuda10.1\n\nI've run command  `docker pull "
            "anibali/pytorch:1.4.0-cuda10.1`\nafter connected to container with command  `docker run -it "
            "anibali/pytorch:1.4.0-cuda10.1 sh` \nboth nvcc and nvidia-smi not found.",
            "docker run -it anibali/pytorch:1.4.0-cuda10.1 sh",
        ),
    ):
        lead = _led_by(text, "container.started_without_gpus")
        said = _said(lead)
        assert "started without GPUs" in lead.cause.split(".")[0], lead.cause
        assert "--gpus all" in lead.fix.text and "nvidia-ctk" in lead.fix.text, lead.fix
        if command is not None:
            assert f"the docker run command shown has no --gpus: {command}" in said, said
    # on a host, without a container in the text, no nvidia-smi is no driver (constructed)
    lead = _led_by("$ nvidia-smi\nbash: nvidia-smi: command not found", "container.started_without_gpus")
    assert "NVIDIA driver" in lead.cause.split(".")[0], lead.cause


def test_support_asked_for_the_rtx_50_series_is_a_torch_without_blackwell_kernels() -> None:
    # RTX 50-series GPUs (compute capability 12.0) need a torch built for CUDA 12.8 or later: the writers ask
    # for support, or say the series cannot use an older CUDA: Comfy-Org/desktop#1077 (settled by a cu128
    # install), state-spaces/mamba#710 (compiled against a cu128 torch), graphdeco-inria/diff-gaussian-
    # rasterization#97
    for text in (
        "# [Feature Request]: RTX 50 series Support\n\n### Prerequisites\n\n- [x] I have searched the "
        "existing issues and checked the recent builds/commits",
        "# Request: Add Support for NVIDIA RTX 50 Series GPUs (CUDA 12.8)\n\nThe NVIDIA RTX 50 series "
        "GPUs, based on the Blackwell architecture, require CUDA 12.8 to function optimally.\n\nCurrently, "
        "using the library with an RTX 5090 D results in compatibility errors, hindering development "
        "workflows.",
        "# RTX 50 series cannot use CUDA 11.8\n\nThe 5070Ti cannot work with CUDA 11.8 and the corresponding "
        "Torch; it requires Torch 12.8 nightly and the matching version of CUDA.",
    ):
        lead = _led_by(text, "cuda.no_kernel_image")
        assert "12.8" in lead.fix.text, lead.fix
    # another series asked for is not this (constructed)
    assert "cuda.no_kernel_image" not in _ids("# Support for RTX 4090 cards\n\nPlease add a 24 GB preset.")


def test_an_extension_that_reads_th_tensor_fields_was_written_for_torch_0_4_0_or_older() -> None:
    # torch 0.4.1 moved the TH tensor structs into THTensor.hpp (aten/src/TH/generic/THTensor.h: 'Struct
    # definition moved to THTensor.hpp'), so C code reading t->size[0] no longer compiles:
    # MIC-DKFZ/medicaldetectiontoolkit#16 (the port, merged), jxgu1016/Gabor_CNN_PyTorch#8,
    # chrischoy/pytorch_knn_cuda#3, pytorch/pytorch#8483 (THCTensor), pytorch/pytorch#12169 (clang's words)
    for text, struct in (
        (
            "# fix compilation of CUDA functions with PyTorch 0.4.1\n\n`python build.py` fails due to an "
            "error when creating the extension for cuda functions using PyTorch's "
            "`torch.utils.ffi.create_extension` utility:\n\n>  error: dereferencing pointer to incomplete "
            "type 'THTensor' {aka 'struct THTensor'}",
            "THTensor",
        ),
        (
            "# error: dereferencing pointer to incomplete type ‘THTensor {aka struct THTensor}’",
            "THTensor",
        ),
        (
            "/home/bagon/anaconda3/pkgs/pytorch_knn_cuda/src/knn_pytorch.c:11:24: error: dereferencing "
            "pointer to incomplete type ‘THTensor {aka struct THTensor}’\n   "
            'THArgCheck(ref_tensor->nDimension == 2 , 0, "ref_tensor: 2D Tensor expected");',
            "THTensor",
        ),
        (
            "/home/developer/Detectron.pytorch/lib/model/roi_crop/src/roi_crop_cuda.c:22:64: error: "
            "dereferencing pointer to incomplete type 'THCTensor {aka struct THCTensor}'\n   success = "
            "BilinearSamplerBHWD_updateOutput_cuda_kernel(output->size[1],",
            "THCTensor",
        ),
        (
            "      incomplete definition of type 'struct at_Tensor_Impl'\n    const int image_height = "
            "image->size[2];",
            "at_Tensor_Impl",
        ),
    ):
        lead = _led_by(text, "build.th_struct_private")
        assert f"the compiler cannot see inside {struct}" in _said(lead), _said(lead)
        assert "0.4.1" in lead.cause and "THFloatTensor_size" in lead.fix.text, lead


def test_an_out_of_memory_after_some_test_images_is_memory_kept_from_image_to_image() -> None:
    # The first images fit and a later one does not: something the test loop keeps grows (graphs of a forward
    # run with autograd on, outputs gathered on the GPU): yikang-li/FactorizableNet#22 (torch.no_grad
    # asked after), jingyuanli001/RFR-Inpainting#37, VitjanZ/DRAEM#2 (outputs kept: .cpu().detach(), or
    # torch.no_grad), WXinlong/SOLO#215 (the single-GPU test script)
    for text in (
        "# cuda out of memory while testing\n\nHello, I'm trying to test using the pretrained model, but "
        "the error appeared after testing 1000 images, and my GPU has 10986MiB memory:\n`RuntimeError: "
        "CUDA out of memory. Tried to allocate 957.12 MiB (GPU 0; 10.73 GiB total capacity; 8.16 GiB "
        "already allocated; 801.19 MiB free; 865.05 MiB cached)`\nHow could I solve this problem? How much "
        "memory needed for testing?",
        "# CUDA out of memory when test mode\n\nwhen --test mode, out of memory at the second image",
        "# CUDA out of memory(test_DREAM.py)\n\nHello.\n\nI tried to run test_DREAM.py, but CUDA out of "
        "memory occur. (I use 15.90 GiB memory) \n\nI don't know well about all of your codes, but when i "
        "check GPU memory, memory usage continue to increase.",
        "# Cuda out of memory when running tools/test.py\n\nDear sir,\nThank you very much for sharing "
        "your work\nI have trained a model using lightweight version of solov2\nWhen trying to test it by "
        "running tools/test.py, I got CUDA out of memory only after processing half images of my test set "
        "as shown in attached images",
    ):
        assert "memory.graph_kept_in_eval" in _ids(text), _ids(text)
    # a count of test images without an out-of-memory is not this (constructed)
    assert "memory.graph_kept_in_eval" not in _ids("After testing 1000 images the accuracy is 0.93.")


def test_triton_missing_or_without_a_c_compiler_is_named_with_the_way_out_for_the_platform() -> None:
    # torch.compile's inductor (and Triton-based kernels) need Triton and, at first use, a C compiler for its
    # launcher; there is no official Triton for Windows: lum3on/comfyui_HiDream-Sampler#7 (triton-windows),
    # pytorch/pytorch#136361 ("no Triton for Windows yet"), invoke-ai/InvokeAI#4055 and
    # devilismyfriend/StableTuner#110 (xformers' notice, ignore it), Comfy-Org/ComfyUI#5216 (MSVC's cl.exe as
    # CC), apple/ml-cross-entropy#5 ("Triton requires a working c/c++ compiler")
    windows = _led_by(
        "There's an error in comfyui where it's telling me Triton is missing. I'm on "
        "windows.\n\nHiDreamSampler\nbackend='inductor' raised:\nRuntimeError: Cannot find a working "
        "triton installation. Either the package is not installed or it is too old. More information on "
        'installing Triton can be found at https://github.com/openai/triton\n\nSet TORCH_LOGS="+dynamo" '
        "and TORCHDYNAMO_VERBOSE=1 for more information\n\nYou can suppress this exception and fall back "
        "to eager by setting:\nimport torch._dynamo\ntorch._dynamo.config.suppress_errors = True",
        "triton.not_available",
    )
    assert "pip install -U triton-windows" in windows.fix.text and "Windows" in windows.cause, windows
    unknown = _led_by(
        "RuntimeError: Cannot find a working triton installation. Either the package is not installed or it "
        "is too old. More information on installing Triton can be found at https://github.com/openai/triton"
        '\n\nSet TORCH_LOGS="+dynamo" and TORCHDYNAMO_VERBOSE=1 for more information\n\nYou can suppress '
        "this exception and fall back to eager by setting:\n    import torch._dynamo\n    "
        "torch._dynamo.config.suppress_errors = True\n\n### Versions\n\ntorch==2.6.0.dev20240919+cu124",
        "triton.not_available",
    )
    assert "suppress_errors = True" in unknown.fix.text and "triton-windows" in unknown.fix.text, unknown
    for notice in (
        "### What happened?\n\nA matching Triton is not available, some optimizations will not be enabled.\n"
        "Error caught was: No module named 'triton'",
        "Error caught was: No module named 'triton'",
    ):
        harmless = _led_by(notice, "triton.not_available")
        assert "can be ignored" in harmless.fix.text, harmless
    for compiler in (
        "It's about the TorchCompileModel node.\n\n```\nbackend='inductor' raised:\nRuntimeError: Failed "
        "to find C compiler. Please specify via CC environment variable.\n```",
        'raise RuntimeError("Failed to find C compiler. Please specify via CC environment variable.")\n'
        "RuntimeError: Failed to find C compiler. Please specify via CC environment variable.",
    ):
        lead = _led_by(compiler, "triton.not_available")
        assert "C compiler" in lead.cause and "cl.exe" in lead.fix.text and "gcc" in lead.fix.text, lead
    # a Triton that imports and fails at a kernel is not this (constructed)
    assert "triton.not_available" not in _ids("triton.compiler.errors.CompilationError: at 12:4: def kernel(")


def test_an_nvml_query_the_gpu_does_not_support_is_named_with_the_query_and_the_platform() -> None:
    # NVML answers NOT_SUPPORTED for what a GPU or platform cannot report, and the caller did not catch it:
    # rapidsai/ucx-py#982 (BAR1 memory, fixed by catching NVMLError_NotSupported), dask/distributed#5342
    # (WSL2: utilization, PR #5343 catches it), xorbitsai/inference#4882 (DGX Spark's GB10: memory info
    # "Not Supported" in nvidia-smi, PR #4990)
    bar1 = _led_by(
        ' File "/home/lab/miniconda3/envs/rapids-23.06-3.9/lib/python3.9/site-packages/pynvml/nvml.py", '
        "line 765, in _nvmlCheckReturn\n    raise NVMLError(ret)\npynvml.nvml.NVMLError_NotSupported: Not "
        'Supported\n\n...\n\n File "/home/lab/miniconda3/envs/rapids-23.06-3.9/lib/python3.9/site-packages/'
        'ucp/__init__.py", line 68, in <module>\n    bar1_total = '
        "pynvml.nvmlDeviceGetBAR1MemoryInfo(handle).bar1Total\n  File "
        '"/home/lab/miniconda3/envs/rapids-23.06-3.9/lib/python3.9/site-packages/pynvml/nvml.py", line '
        "2070, in nvmlDeviceGetBAR1MemoryInfo\n    _nvmlCheckReturn(ret)",
        "nvml.not_supported",
    )
    assert "nvmlDeviceGetBAR1MemoryInfo" in _said(bar1) and "NVMLError_NotSupported" in bar1.fix.text, bar1
    dask = _led_by(
        "In [2]: from distributed import Client\n\nIn [3]: client = Client()\n"
        "---------------------------------------------------------------------------\nNVMLError_NotSupported"
        "                    Traceback (most recent call last)\n<ipython-input-3-84f8000c6f67> in <module>\n"
        "----> 1 client = Client()",
        "nvml.not_supported",
    )
    assert "try/except" in dask.fix.text, dask
    gb10 = _led_by(
        "+-----------------------------------------------------------------------------------------+\n"
        "| NVIDIA-SMI 580.142                Driver Version: 580.142        CUDA Version: 13.0     |\n"
        "+-----------------------------------------+------------------------+----------------------+\n"
        "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
        "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n"
        "|                                         |                        |               MIG M. |\n"
        "|=========================================+========================+======================|\n"
        "|   0  NVIDIA GB10                    On  |   0000000F:01:00.0 Off |                  N/A |\n"
        "| N/A   38C    P8              4W /  N/A  | Not Supported          |      0%      Default |\n"
        "|                                         |                        |                  N/A |\n"
        "+-----------------------------------------+------------------------+----------------------+",
        "nvml.not_supported",
    )
    assert "GB10" in _said(gb10) and "unified memory" in gb10.cause, gb10
    # a GPU whose memory nvidia-smi reports is not this (constructed)
    assert "nvml.not_supported" not in _ids(
        "| N/A   38C    P8              4W /  70W  |    849MiB / 12282MiB   |      5%      Default |"
    )


def test_the_deprecated_pynvml_package_is_a_harmless_warning_with_its_replacement() -> None:
    # The PyPI package pynvml is a deprecated shim over NVIDIA's nvidia-ml-py, which provides `import pynvml`:
    # OHDSI/DeepPatientLevelPrediction#166 (fixed by #167), analysiscenter/batchflow#799, heiwang1997/pycg#5
    # (resolved by depending on nvidia-ml-py)
    for text in (
        "```text\nThe pynvml package is deprecated. Please install nvidia-ml-py instead. If you did not ins\n"
        "tall pynvml directly, please report this to the maintainers of the package that installed pynvml\n "
        "for you.\n```",
        "/projects/faults-controller/.venv/lib/python3.12/site-packages/batchflow/monitor.py:15: "
        "FutureWarning: The pynvml package is deprecated. Please install nvidia-ml-py instead. If you did "
        "not install pynvml directly, please report this to the maintainers of the package that installed "
        "pynvml for you.",
        "> FutureWarning: The pynvml package is deprecated. Please install nvidia-ml-py instead. If you "
        "did not install pynvml directly, please report this to the maintainers of the package that "
        "installed pynvml for you.\n\nI got this message, found out the package was coming from `pycg`.",
    ):
        lead = _led_by(text, "nvml.pynvml_deprecated")
        assert "nvidia-ml-py" in lead.fix.text and "pip show pynvml" in lead.fix.commands, lead


def test_dataloader_workers_out_of_file_descriptors_get_the_file_system_sharing_strategy() -> None:
    # The default file_descriptor sharing strategy holds an open descriptor per shared tensor: past the
    # open-file limit the workers' batches arrive as "0 items of ancdata" or Errno 24: rusty1s/himp-gnn#7
    # (set_sharing_strategy('file_system'), confirmed), fastai/fastai#23 (ulimit -n 1024 raised to 2048),
    # pytorch/pytorch#973, Project-MONAI/MONAI#701, martenlienen/finite-element-networks#2 (the open-file
    # limit)
    for text in (
        "When I try to reproduce experiments as stated, I invariably get an error:\n\nRuntimeError: "
        "received 0 items of ancdata\n\nThe error is somewhat erratic, e.g. in train_zinc_subset.py I get "
        "it after 15 to 50 epoch in the first run.",
        "RuntimeError: received 0 items of ancdata",
        "file_descriptor sharing strategy may be leaking FDs, resulting in DataLoader causing `RuntimeError: "
        "received 0 items of ancdata`",
        'Traceback (most recent call last):\n  File "/home/liluo/anaconda3/lib/python3.9/multiprocessing/'
        'queues.py", line 244, in _feed\n  File "/home/liluo/anaconda3/lib/python3.9/multiprocessing/'
        'reduction.py", line 51, in dumps\n  File "/home/liluo/anaconda3/lib/python3.9/site-packages/torch/'
        'multiprocessing/reductions.py", line 359, in reduce_storage\n  File "/home/liluo/anaconda3/lib/'
        'python3.9/multiprocessing/reduction.py", line 198, in DupFd\n  File "/home/liluo/anaconda3/lib/'
        'python3.9/multiprocessing/resource_sharer.py", line 48, in __init__\nOSError: [Errno 24] Too many '
        "open files",
    ):
        lead = _led_by(text, "dataloader.fd_sharing_limit")
        assert "set_sharing_strategy('file_system')" in lead.fix.text and "ulimit -n" in lead.fix.text, lead
    limit = _led_by(
        "RuntimeError: received 0 items of ancdata\nthe open file limit is set to ulimit=1024 on the nodes",
        "dataloader.fd_sharing_limit",
    )
    assert any("1024" in line for line in limit.evidence), limit  # the limit the text gives (constructed)
    # too many open files outside torch's sharing of tensors is not this (constructed)
    assert "dataloader.fd_sharing_limit" not in _ids(
        "OSError: [Errno 24] Too many open files: 'logs/run.txt'"
    )


def test_the_driver_s_libcuda_that_a_program_loads_by_name_is_found_on_wsl_by_its_folder() -> None:
    # A program or library that loads or links the driver's libcuda.so by name: under WSL2 the driver's files
    # are in /usr/lib/wsl/lib, copies rather than links; on Linux the unversioned libcuda.so is a link a
    # development package makes: yuk7/ArchWSL#248 (links to libcuda.so.1.1), NVIDIA/cuda-python#17
    # (/usr/lib/wsl/lib on LD_LIBRARY_PATH), triton-lang/triton#1981 (no libcuda.so link for -lcuda),
    # pytorch/pytorch#85773 (the links and ldconfig, confirmed)
    wsl = _led_by(
        "ldconfig: /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link\n\n**To Reproduce**\nSteps to "
        "reproduce the behavior:\n\nJust simply pacman -Syu, and you'll see that sometimes.",
        "driver.libcuda_not_found",
    )
    assert "libcuda.so.1.1" in wsl.fix.text and "WSL" in wsl.cause, wsl
    dlopen = _led_by(
        "----> 1 cuda.cuInit(0)\n\nFile ~/miniconda3/envs/dev/lib/python3.8/site-packages/cuda/_cuda/ccuda."
        "pyx:424, in cuda._cuda.ccuda.cuPythonInit()\n\nRuntimeError: Failed to dlopen libcuda.so",
        "driver.libcuda_not_found",
    )
    assert "LD_LIBRARY_PATH=/usr/lib/wsl/lib" in dlopen.fix.text, dlopen
    linker = _led_by(
        "/usr/bin/ld: cannot find -lcuda\ncollect2: error: ld returned 1 exit status\nTraceback (most recent "
        'call last):\n  File "<string>", line 21, in add_kernel',
        "driver.libcuda_not_found",
    )
    assert "libcuda.so.1" in linker.fix.text and "ln -s" in linker.fix.text, linker
    assert linker.fix.text.startswith("On Linux:") and "Under WSL2" in linker.fix.text, linker
    # on a machine the text shows to be WSL, WSL's fix leads (pytorch/pytorch#85773's own words)
    quoted_fix = _led_by(
        "> I try to fix symbolic link problem and solve it. `sudo ldconfig`\n> \n> > /usr/lib/wsl/lib/"
        "libcuda.so.1 is not a symbolic link",
        "driver.libcuda_not_found",
    )
    assert quoted_fix.fix.text.startswith("Under WSL2"), quoted_fix
    # WSL 1 has no GPU: a text on WSL1 gets Linux's order, as NVML's platform reading names no WSL there
    # (constructed)
    wsl1 = _led_by("Ubuntu under WSL1\n/usr/bin/ld: cannot find -lcuda", "driver.libcuda_not_found")
    assert wsl1.fix.text.startswith("On Linux:"), wsl1


def test_a_library_built_for_another_cpu_architecture_is_named_with_the_library() -> None:
    # GNU ld's "file in wrong format": an x86-64 libtorch (pytorch.org's download) linked on an ARM machine:
    # pytorch/pytorch#43464 (Raspberry Pi 4, build libtorch for arm64), PASSIONLab/OpenEquivariance#194 (an
    # x86 libtorch fetched on aarch64, PR #195 fetches an aarch64 one), wangkuiyi/gotorch#279 (an armv7l
    # libtorch on an aarch64 Drive PX2)
    for text, library in (
        (
            "### I tried to deploy libtorch-yolov5s on Raspberry Pi 4b, and there was a problem in the "
            "last make:\n/usr/bin/ld: /home/ubuntu/libtorch/lib/libtorch.so: error adding symbols: file in "
            "wrong format",
            "/home/ubuntu/libtorch/lib/libtorch.so",
        ),
        (
            "      /usr/bin/ld: _deps/libtorch-src/lib/libtorch_cpu.so: error adding symbols: file in wrong "
            "format\n      collect2: error: ld returned 1 exit status",
            "_deps/libtorch-src/lib/libtorch_cpu.so",
        ),
        (
            "-lc10 -ltorch -ltorch_cpu \\\n-D_GLIBCXX_USE_CXX11_ABI=1\nlibtorch/lib/libc10.so: error adding "
            "symbols: File in wrong format\ncollect2: error: ld returned 1 exit status",
            "libtorch/lib/libc10.so",
        ),
    ):
        lead = _led_by(text, "build.library_wrong_architecture")
        assert library in _said(lead) and "uname -m" in lead.fix.commands, lead
        assert "torch.utils.cmake_prefix_path" in lead.fix.text, lead


def test_a_quantized_model_with_modules_on_the_cpu_or_disk_does_not_fit_the_gpu() -> None:
    # transformers refuses a bitsandbytes model part of which accelerate placed off the GPU: the GPU is too
    # small for it: meta-llama/llama-cookbook#333 (12 GB: a larger GPU or 4-bit QLoRA), unslothai/unsloth#1139
    # (a 70B model on Kaggle's GPUs), CY-CHENYUE/ComfyUI-Molmo#18 (12 GB needed)
    for text in (
        "# Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit the "
        "quantized model.",
        "I have a total of **57.6GB of DISK** in kaggle. But the code is raising a value "
        "error.\n\n`\nValueError: Some modules are dispatched on the CPU or the disk. Make sure you have "
        "enough GPU RAM to fit the quantized model. If you want to dispatch the model on the CPU or the "
        "disk while keeping these modules in 32-bit, you need to set `load_in_8bit_fp32_cpu_offload=True` "
        "and pass a custom `device_map` to `from_pretrained`. Check "
        "https://huggingface.co/docs/transformers/main/en/main_classes/quantization#offload-between-cpu-and"
        "-gpu for more details. \n`",
        "Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit the "
        "quantized model. If you want to dispatch the model on the CPU or the disk while keeping these "
        "modules in 32-bit, you need to set `load_in_8bit_fp32_cpu_offload=True` and pass a custom "
        "`device_map` to `from_pretrained`. Check https://huggingface.co/docs/transformers/main/en/main_cla"
        "sses/quantization#offload-between-cpu-and-gpu for more "
        "details.\n\n这个项目需要多少显存能跑的起来？",
    ):
        lead = _led_by(text, "bitsandbytes.modules_offloaded")
        assert "could not hold" in lead.cause and "load_in_4bit=True" in lead.fix.text, lead
    said = _said(
        _led_by(
            "ValueError: Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU "
            "RAM to fit the quantized model.\nhow to solve this error, i have 24G gpu",
            "bitsandbytes.modules_offloaded",
        )
    )
    assert "24G" in said, said  # the GPU's memory the writer gives (constructed)


def test_a_cuda_extension_built_where_torch_sees_no_gpu_is_built_where_it_does_or_forced() -> None:
    # torch.utils.cpp_extension warns "No CUDA runtime is found" when it finds a toolkit and
    # torch.cuda.is_available() is False: open-mmlab/mmdetection#281 (a node without a driver: srun on a GPU
    # node), Thinklab-SJTU/ThinkMatch#51 (docker run --runtime=nvidia), graphdeco-inria/gaussian-splatting#748
    # (a CPU-only pytorch from environment.yml)
    for text in (
        "`No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'`",
        'After I type "python train_eval.py", it raised an error "No CUDA runtime is found, using '
        "CUDA_HOME='/usr/local/cuda\".\nDoes anyone meets the same problem?",
        "[Edited] No CUDA runtime is found, using CUDA_HOME='C:\\Program Files\\NVIDIA GPU Computing "
        "Toolkit\\CUDA\\v11.8'",
    ):
        lead = _led_by(text, "build.no_cuda_runtime")
        assert "torch.cuda.is_available() is False" in lead.cause, lead
        assert "docker run --gpus all" in lead.fix.text and "FORCE_CUDA=1" in lead.fix.text, lead
    # what the text shows of where it builds (constructed)
    container = _led_by(
        "docker exec -it build bash\npython setup.py develop\nNo CUDA runtime is found, using "
        "CUDA_HOME='/usr/local/cuda'",
        "build.no_cuda_runtime",
    )
    assert any("container" in line for line in container.evidence), container
    cpu = _led_by(
        "torch 2.1.0+cpu\nNo CUDA runtime is found, using CUDA_HOME='/usr/local/cuda'",
        "build.no_cuda_runtime",
    )
    assert any("CPU-only torch (2.1.0+cpu)" in line for line in cpu.evidence), cpu


def test_triton_for_windows_is_named_for_the_torch_the_text_states() -> None:
    # triton-windows' README pairs each torch minor release with one Triton minor release (2.6 with 3.2, 2.7
    # with 3.3, ...), the same Triton torch pins on Linux (checks/install/data/torch_companions.json)
    # (constructed from pytorch/pytorch#136361's message with a released torch)
    lead = _led_by(
        "I'm on Windows 11, torch 2.6.0+cu124\nRuntimeError: Cannot find a working triton installation. "
        "Either the package is not installed or it is too old.",
        "triton.not_available",
    )
    pin = 'pip install -U "triton-windows>=3.2,<3.3" (torch 2.6.0)'
    assert any(pin in line for line in lead.evidence), lead
    # a torch the table pairs otherwise on Windows (2.4: Linux's 3.0, Windows' 3.1) or a nightly: no pin
    for torch in ("torch 2.4.1+cu121", "torch==2.6.0.dev20240919+cu124"):
        lead = _led_by(f"{torch}\nCannot find a working triton installation", "triton.not_available")
        assert not any("triton-windows>=" in line for line in lead.evidence), lead


def test_a_binary_built_for_a_newer_glibc_is_named_with_the_glibc_it_needs() -> None:
    # The loader's "version `GLIBC_2.xx' not found": a prebuilt binary (torch's own libraries, an
    # extension's .so, a wheel of a PyTorch library) built on a newer Linux than this one:
    # pytorch/pytorch#26467 (RHEL 6.4, build from source), mlverse/torch#989 (LibTorch's pre-C++11-ABI
    # build), matteo-ronchetti/torch-radon#5 (wheels rebuilt), bitsandbytes-foundation/bitsandbytes#1610
    # (builds moved to an older glibc, PR #1638)
    cases = (
        (
            '>>> import torch\nTraceback (most recent call last):\n  File "<stdin>", line 1, in <module>\n '
            ' File "/programs/advanced_data_analytics/CMAP/anaconda3/envs/pytorch/lib/python3.7/site-packag'
            'es/torch/__init__.py", line 81, in <module>\n    from torch._C import *\nImportError: '
            "/lib64/libc.so.6: version `GLIBC_2.14' not found (required by "
            "/programs/advanced_data_analytics/CMAP/anaconda3/envs/pytorch/lib/python3.7/site-packages/torc"
            "h/lib/libshm.so)",
            "GLIBC_2.14",
            "torch/lib/libshm.so",
        ),
        (
            'Error in cpp_lantern_init(file.path(install_path(), "lib")) : \n  .../R/lib/liblantern.so - '
            "/lib64/libm.so.6: version `GLIBC_2.27' not found (required by "
            ".../R/lib/./libtorch_cpu.so)\n\nThe GLIBC version on the server is 2.17 and I can not update "
            "the version.",
            "GLIBC_2.27",
            "libtorch_cpu.so",
        ),
        (
            "    import torch_radon_cuda\nImportError: /usr/lib64/libm.so.6: version `GLIBC_2.27' not "
            "found (required by /usr/local/lib64/python3.6/site-packages/torch_radon_cuda.cpython-36m-x86_6"
            '4-linux-gnu.so)\n"\nMy env is -python3.6-cuda10.1-cudnn7.6-pytorch1.5.',
            "GLIBC_2.27",
            "torch_radon_cuda.cpython-36m-x86_64-linux-gnu.so",
        ),
        (
            "- Ubuntu 20.04\n\nWhen running the bitsandbytes quantization method, it reports an "
            "error:\nOSError: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.34' not found (required by "
            "/opt/anaconda3/lib/python3.10/site-packages/bitsandbytes/libbitsandbytes_cuda126.so)",
            "GLIBC_2.34",
            "libbitsandbytes_cuda126.so",
        ),
    )
    for text, glibc, binary in cases:
        lead = _led_by(text, "lib.glibc_too_old")
        assert any(glibc in line and "2." in line for line in lead.evidence), lead
        assert any(binary in line for line in lead.evidence), lead
        assert "from source" in lead.fix.text and "ldd --version" in lead.fix.commands, lead
    # both quotes straight (as a page renders it) and the libstdc++ version, which is another library
    # (constructed; GLIBCXX_ is libstdc++'s, not glibc's)
    _led_by(
        "OSError: /lib64/libm.so.6: version 'GLIBC_2.27' not found (required by x.so)", "lib.glibc_too_old"
    )
    assert "lib.glibc_too_old" not in _ids(
        "ImportError: /usr/lib/libstdc++.so.6: version `GLIBCXX_3.4.29' not found (required by x.so)"
    )


def test_a_constant_outside_the_tensor_dtype_s_range_is_named_with_the_dtype_and_the_value() -> None:
    # "value cannot be converted to type at::Half without overflow": a constant float16 (±65504) or
    # bfloat16 cannot hold written into such a tensor, most often a mask value: espnet/espnet#4584 (float32's
    # min into bfloat16, torch.finfo(scores.dtype) merged), facebookresearch/advprompter#12 (-1e10 into fp16
    # logits under autocast, autocast off), huggingface/transformers#35332 (PR #35336, the tensor's own
    # finfo), dotnet/TorchSharp#1135 (-finfo(float32).max into Half: infinity)
    cases = (
        (
            '  File "/espnet/espnet/nets/pytorch_backend/transformer/attention.py", line 83, in '
            "forward_attention\n    scores = scores.masked_fill(mask, min_value)\nRuntimeError: value "
            "cannot be converted to type at::BFloat16 without overflow",
            "bfloat16",
            "min_value",
        ),
        (
            '  File "/media/yunhao/DATA1/Project2025/JailbreakLLM/code/advprompter/advprompter/llm.py", '
            "line 94, in model_forward\n    pred_logits[:, :, self.disallowed_ids] = -1e10\n    "
            "~~~~~~~~~~~^^^^^^^^^^^^^^^^^^^^^^^^^^^\nRuntimeError: value cannot be converted to type "
            "at::Half without overflow",
            "float16",
            "-1e10",
        ),
        (
            "1. `RuntimeError: expected m1 and m2 to have the same dtype, but got: float != struct "
            "c10::BFloat16`\n2. `RuntimeError: value cannot be converted to type at::BFloat16 without "
            "overflow`",
            "bfloat16",
            None,
        ),
        (
            "var mask = torch.ones_like(weight).triu(1).to(torch.@bool);\nweight.masked_fill_(mask, "
            "-torch.finfo(torch.float32).max);//System.Runtime.InteropServices.ExternalException:“value "
            "cannot be converted to type at::Half without overflow”",
            "float16",
            "-torch.finfo(torch.float32).max",
        ),
    )
    for text, dtype, value in cases:
        lead = _one(text, "dtype.value_overflow")
        assert any(dtype in line for line in lead.evidence), lead
        if value is not None:
            assert f"the value written: {value}" in lead.evidence, lead
        assert "torch.finfo(" in lead.fix.text and ".min" in lead.fix.text, lead
    # torch 2.13's words (ran here): c10::Half, with the fill_ of a value above float16's largest
    lead = _led_by(
        "    x.fill_(70000)\nRuntimeError: value cannot be converted to type c10::Half without overflow",
        "dtype.value_overflow",
    )
    assert "the value written: 70000" in lead.evidence and any("65504" in line for line in lead.evidence), (
        lead
    )
    # an integer dtype's range is another matter than half precision (torch 2.13's words, ran here)
    pixels = _led_by(
        "    img[mask] = 256\nRuntimeError: value cannot be converted to type uint8_t without overflow",
        "dtype.value_overflow",
    )
    assert "the tensor is uint8, whose values lie within 0 to 255" in pixels.evidence, pixels
    assert "integer dtype" in pixels.cause and "float16" not in pixels.cause, pixels


def test_an_onnxruntime_without_cuda_is_named_as_the_cpu_package() -> None:
    # onnxruntime-gpu lists CUDAExecutionProvider among its available providers whether or not CUDA loads,
    # so a list without it is a package without CUDA: the CPU package onnxruntime, alone or beside
    # onnxruntime-gpu. ASLP-lab/DiffRhythm#84 (uninstall onnxruntime, install onnxruntime-gpu: confirmed),
    # TaterTotterson/microWakeWord-Trainer-Nvidia-Docker#1 (both uninstalled, onnxruntime-gpu installed: the
    # reporter's fix), dnhkng/GLaDOS#22 (installing onnxruntime-gpu fixed it for another user),
    # GuijiAI/ReHiFace-S#5 (both uninstalled, onnxruntime-gpu reinstalled)
    cases = (
        (
            "onnxruntime_inference_collection.py:115: UserWarning: Specified provider "
            "'CUDAExecutionProvider' is not in available provider names.Available providers: "
            "'AzureExecutionProvider, CPUExecutionProvider\nweight_norm.py:143: FutureWarning: "
            "`torch.nn.utils.weight_norm` is deprecated in favor of "
            "`torch.nn.utils.parametrizations.weight_norm`.\n  WeightNorm.apply(module, name, dim)",
            "AzureExecutionProvider, CPUExecutionProvider",
        ),
        (
            "🔧 Torch CUDA Available: True\n  • Device count: 1\n  • Current device: 0\n  • Device name: "
            "NVIDIA GeForce RTX 4060 Ti\n\n🔧 ONNX Runtime Providers:\n  • ['AzureExecutionProvider', "
            "'CPUExecutionProvider']\n⚠️  CUDAExecutionProvider not available — ONNX will fall back to CPU.",
            "AzureExecutionProvider, CPUExecutionProvider",
        ),
        (
            "# UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider "
            "names.Available providers: 'AzureExecutionProvider, CPUExecutionProvider'\n\nIt took a bit of "
            "effort to get everything running, but I feel like I'm almost there",
            "AzureExecutionProvider, CPUExecutionProvider",
        ),
        (
            "onnxruntime_inference_collection.py:54: UserWarning: Specified provider "
            "'CUDAExecutionProvider' is not in available provider names.Available providers: "
            "'CPUExecutionProvider'\n\n环境这里\n\nPython >= 3.9",
            "CPUExecutionProvider",
        ),
    )
    for text, providers in cases:
        lead = _one(text, "onnxruntime.no_cuda_provider")
        assert f"the onnxruntime imported offers {providers}: no CUDAExecutionProvider" in lead.evidence, lead
        assert "pip uninstall -y onnxruntime onnxruntime-gpu" in lead.fix.text, lead
        assert "onnxruntime.cuda_provider" not in _ids(text)
    # a pip list with both packages (modelscope/FunASR#2154's list), and insightface's log of the providers a
    # session applied, which says nothing of what is installed (constructed)
    both = _one(
        "onnx                         1.16.1\nonnxruntime                  1.19.0\nonnxruntime-gpu         "
        "     1.18.1\n\nUserWarning: Specified provider 'CUDAExecutionProvider' is not in available "
        "provider names.Available providers: 'AzureExecutionProvider, CPUExecutionProvider'",
        "onnxruntime.no_cuda_provider",
    )
    assert "both onnxruntime 1.19.0 and onnxruntime-gpu 1.18.1 are installed" in both.evidence, both
    assert "onnxruntime.no_cuda_provider" not in _ids(
        "Applied providers: ['CPUExecutionProvider'], with options"
    )


def test_the_mps_device_on_a_machine_that_is_not_a_mac_is_named_with_the_platform() -> None:
    # "PyTorch is not linked with support for mps devices": no MPS device guard in this torch (c10's
    # DeviceGuardImplInterface; only macOS builds register one; ran here on Linux with .to('mps')): code, a
    # fork or a workflow for Apple's GPU run elsewhere. jankais3r/LLaMA_MPS#6 (a Mac-only fork on Linux with
    # a CUDA torch: the maintainer's answer), and texts that show the platform themselves: the Mac fork of a
    # ComfyUI node on Windows (kijai/ComfyUI-LivePortraitKJ#47), device="mps" hard-coded in predict.py on a
    # Windows PC with an RTX 4090 (apple/ml-fastvlm#52), .to('mps') on Ubuntu (pytorch/pytorch#96881)
    llama = _led_by(
        '`File "/home/LLaMA_MPS/llama/model.py", line 102, in __init__\n    self.cache_k = torch.zeros(\n'
        "RuntimeError: PyTorch is not linked with support for mps devices\n`\nI ran the code on this "
        "environment:\n`\nPyTorch version: 1.13.1+cu117\nIs debug build: False\nCUDA used to build PyTorch: "
        "11.7\nROCM used to build PyTorch: None\nOS: Linux 5.14.0-162.6.1.el9_1.0.1.x86_64",
        "torch.no_mps",
    )
    assert "the text shows Linux, where no torch has MPS" in llama.evidence, llama
    assert any("CUDA build (1.13.1+cu117)" in line for line in llama.evidence), llama
    comfy = _led_by(
        "!!! Exception during processing!!! PyTorch is not linked with support for mps devices\nTraceback "
        '(most recent call last):\n  File "C:\\Comfyui\\ComfyUI\\execution.py", line 151, in '
        "recursive_execute\n    output_data, output_ui = get_output_data(obj, input_data_all)\n  File "
        '"C:\\Comfyui\\ComfyUI\\custom_nodes\\ComfyUI-LivePortraitKJ-MPS\\nodes.py", line 260, in '
        "process\n    cropped_frames, full_frame = pipeline.execute(img, driving_images_np)",
        "torch.no_mps",
    )
    assert "the text shows Windows, where no torch has MPS" in comfy.evidence, comfy
    fastvlm = _led_by(
        "A bit confused seeing error when ran prediction on a windows 11 PC with NV RTX 4090 and Intel "
        'CPU. Any hint is appreciated, thanks!\n\n  File "C:\\Users\\Chunde\\GitHub\\ml-fastvlm\\predict.py'
        '", line 31, in predict\n    tokenizer, model, image_processor, context_len = '
        'load_pretrained_model(model_path, args.model_base, model_name, device="mps")\nRuntimeError: '
        "PyTorch is not linked with support for mps devices",
        "torch.no_mps",
    )
    assert any(line.startswith("the code sets the device to 'mps': ") for line in fastvlm.evidence), fastvlm
    assert any("RTX 4090" in line for line in fastvlm.evidence), fastvlm
    ubuntu = _led_by(
        "1) Is MPS supported for Ubuntu 20.04 with PyTorch 2.1? Is there any version of PyTorch that "
        "supports it?\n\n>>> x.to('mps')\nTraceback (most recent call last):\n  File \"<stdin>\", line 1, "
        "in <module>\nRuntimeError: PyTorch is not linked with support for mps devices",
        "torch.no_mps",
    )
    assert "the text shows Linux, where no torch has MPS" in ubuntu.evidence, ubuntu
    for lead in (llama, comfy, fastvlm, ubuntu):
        assert "macOS" in lead.cause and "torch.backends.mps.is_available()" in lead.fix.text, lead
    # on a Mac the message means a torch built without MPS, not a machine that is not a Mac (constructed;
    # pytorch/pytorch#77867 met it with a torch built from source on macOS Monterey)
    mac = _led_by(
        "macOS 12.4 on an M1 Pro, torch built from source\n>>> torch.ones(1).to('mps')\nRuntimeError: "
        "PyTorch is not linked with support for mps devices",
        "torch.no_mps",
    )
    assert "the text shows macOS" in " ".join(mac.evidence), mac
    assert "built without MPS" in mac.cause and "not a Mac" not in mac.cause, mac
    assert "torch.backends.mps.is_built()" in mac.fix.text, mac


def test_lightning_s_gpu_request_is_read_against_the_gpus_torch_sees() -> None:
    # Lightning's "You requested GPUs: [...] But your machine only has: [...]" lists the CUDA devices torch
    # sees in this process (lightning/fabric/utilities/device_parser.py _sanitize_gpu_ids, from
    # num_cuda_devices()): an empty list is torch seeing no GPU (Lightning-AI/pytorch-lightning#899: a
    # CPU-only torch, settled), a shorter one an index beyond the visible GPUs. Texts:
    # HasnainRaz/Fast-AgingGAN#11 (closed: "make sure pytorch can see your GPU"), AntixK/PyTorch-VAE#81,
    # zjunlp/KNN-KG#10,
    # ray-project/ray_lightning#32 (two GPUs asked for, one visible), AntixK/PyTorch-VAE#98
    for text in (
        "pytorch_lightning.utilities.debugging.MisconfigurationException: \n            You requested GPUs: "
        "[0]\n            But your machine only has: []\nhello, why it can not scan my gpu, i already have a "
        "gpu named [0], however it always have such error.",
        "pytorch_lightning.utilities.exceptions.MisconfigurationException: You requested GPUs: [1]\n But "
        "your machine only has: [] \nWhat dose this mean and how to deal?",
        "pytorch_lightning.utilities.exceptions.MisconfigurationException: You requested GPUs: [1]\n But "
        "your machine only has: []\n这是什么导致的？",
    ):
        lead = _led_by(text, "cuda.not_available")
        assert "CPU-only build" in lead.cause, lead
        assert any(line.startswith("Lightning was asked for GPUs [") for line in lead.evidence), lead
    for text, asked, seen in (
        (
            "(pid=1521961) pytorch_lightning.utilities.exceptions.MisconfigurationException: You requested "
            "GPUs: [0, 1]\n(pid=1521961)  But your machine only has: [0]",
            "0, 1",
            "0",
        ),
        (
            "# pytorch_lightning.utilities.exceptions.MisconfigurationException: You requested GPUs: [1] But "
            "your machine only has: [0]",
            "1",
            "0",
        ),
    ):
        lead = _led_by(text, "cuda.invalid_device_ordinal")
        line = f"Lightning was asked for GPUs [{asked}]; this process sees GPUs [{seen}]"
        assert any(item.startswith(line) for item in lead.evidence), lead
        assert "devices=" in lead.fix.text and "numbers the GPUs" in lead.cause, lead


def test_a_removed_check_macro_is_read_in_every_compilers_words() -> None:
    # The same removed macro, as MSVC, clang and nvcc report it, and the glog-style CHECK_EQ family that
    # torch's headers stopped defining in 1.13 (pytorch/pytorch#82032: TORCH_CHECK_EQ and the like instead).
    # MVIG-SJTU/AlphaPose#725 (MSVC; 'replace AT_CHECK with TORCH_CHECK': 'it worked like a charm')
    msvc = _led_by(
        "D:\\Repo\\PoseEstimation\\AlphaPose\\detector\\nms\\src\\nms_cuda.cpp(9): error C3861: "
        "\u201cAT_CHECK\u201d: identifier not found",
        "build.torch_macro_changed",
    )
    assert "AT_CHECK" in msvc.cause and "1.5" in msvc.cause, msvc.cause
    assert "sed -i 's/AT_CHECK/TORCH_CHECK/g'" in msvc.fix.text, msvc.fix.text
    glog_style = [
        # hithqd/PointRWKV#7 (nvcc; CHECK_EQ -> TORCH_CHECK_EQ in emd_kernel.cu: 'really did solve my
        # problem')
        "/root/autodl-tmp/pointrwkv/PointRWKV/extensions/emd/cuda/emd_kernel.cu(180): error: identifier "
        '"CHECK_EQ" is undefined',
        # pytorch/xla#3778 (clang, torchaudio against a torch after the rename; the maintainer named #82032)
        "../../torchaudio/csrc/rnnt/workspace.h:30:5: error: use of undeclared identifier 'CHECK_NE'\n"
        "    CHECK_NE(options.device_, UNDEFINED);\n    ^\n"
        "../../torchaudio/csrc/rnnt/workspace.h:39:5: error: use of undeclared identifier 'CHECK_LE'\n"
        "    CHECK_LE(needed_size, size);\n    ^\n"
        "../../torchaudio/csrc/rnnt/workspace.h:112:5: error: use of undeclared identifier 'CHECK_EQ'\n"
        "    CHECK_EQ(options_.device_, GPU);\n    ^",
    ]
    for text in glog_style:
        lead = _led_by(text, "build.torch_macro_changed")
        assert "1.13" in lead.cause and "TORCH_CHECK_EQ" in lead.cause, lead.cause
        assert "TORCH_CHECK_" in lead.fix.text and "AT_CHECK" not in lead.fix.text, lead.fix.text
    assert any("CHECK_NE" in line for line in _led_by(glog_style[1], "build.torch_macro_changed").evidence)


def test_bitsandbytes_on_its_cpu_library_names_why_it_loaded_it() -> None:
    # bitsandbytes warns "compiled without GPU support" whenever it loaded libbitsandbytes_cpu: when torch
    # sees no CUDA GPU (in every release); before 0.41 also when it found no libcudart.so on its search path;
    # on Windows before 0.43, whose releases had no CUDA library for it (bitsandbytes' cextension.py,
    # cuda_setup/main.py and changelog at each tag). artidoro/qlora#31 (libcudart.so not found: users
    # confirmed a fresh CUDA and torch, or the CUDA library in place of the CPU one)
    qlora = _led_by(
        "> bin /home/server/anaconda3/envs/qlora/lib/python3.11/site-packages/bitsandbytes/libbitsandbytes_"
        "cpu.so /home/server/anaconda3/envs/qlora/lib/python3.11/site-packages/bitsandbytes/cextension.py:3"
        "4: UserWarning: The installed version of bitsandbytes was compiled without GPU support. 8-bit "
        'optimizers, 8-bit multiplication, and GPU quantization are unavailable. warn("The installed '
        'version of bitsandbytes was compiled without GPU support. " '
        "/home/server/anaconda3/envs/qlora/lib/python3.11/site-packages/bitsandbytes/libbitsandbytes_cpu.so"
        ": undefined symbol: cadam32bit_grad_fp32 /home/server/anaconda3/envs/qlora/lib/python3.11/site-pac"
        "kages/bitsandbytes/cuda_setup/main.py:149: UserWarning: /home/server/anaconda3/envs/qlora did not "
        "contain ['libcudart.so', 'libcudart.so.11.0', 'libcudart.so.12.0'] as expected! Searching further "
        "paths... warn(msg) CUDA_SETUP: WARNING! libcudart.so not found in any environmental path. "
        "Searching in backup paths...",
        "bitsandbytes.cpu_library",
    )
    assert "libcudart.so" in qlora.cause and "0.41" in qlora.cause, qlora.cause
    assert "LD_LIBRARY_PATH" in qlora.fix.text and "pip install -U bitsandbytes" in qlora.fix.text, qlora.fix
    # bitsandbytes-foundation/bitsandbytes#879 (Windows 10: the newer bitsandbytes with its CUDA libraries
    # fixed it, the reporter)
    windows = _led_by(
        '**_"The installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers, 8-bit '
        "multiplication, and GPU quantization are unavailable.\n"
        '  warn("The installed version of bitsandbytes was compiled without GPU support. "\n'
        "function 'cadam32bit_grad_fp32' not found_**",
        "bitsandbytes.cpu_library",
    )
    assert "Windows" in windows.cause and "0.43" in windows.cause, windows.cause
    assert "pip install -U bitsandbytes" in windows.fix.text, windows.fix
    # from 0.46 the warning (logged, without "8-bit multiplication") comes only where torch sees no CUDA GPU;
    # the text of cocktailpeanut/fluxgym#411 (a reply's log)
    logged = _led_by(
        "(env) C:\\Fluxgym-LORA\\fluxgym>python app.py\n2025-08-03 16:25:57 WARNING  The installed version "
        "of bitsandbytes was compiled without GPU support.   cextension.py:282\n                           "
        "  8-bit optimizers and GPU quantization are unavailable.",
        "bitsandbytes.cpu_library",
    )
    assert "torch.cuda.is_available()" in logged.cause and "0.46" in logged.cause, logged.cause
    assert "CUDA build" in logged.fix.text, logged.fix
    # 0.43.1 to 0.45 without a library for torch's CUDA (constructed from cextension.py's logging at 0.43.3)
    no_binary = _led_by(
        "Could not find the bitsandbytes CUDA binary at PosixPath('/venv/lib/python3.11/site-packages/"
        "bitsandbytes/libbitsandbytes_cuda128.so')\nThe installed version of bitsandbytes was compiled "
        "without GPU support. 8-bit optimizers, 8-bit multiplication, and GPU quantization are unavailable.",
        "bitsandbytes.cpu_library",
    )
    assert "libbitsandbytes_cuda128" in no_binary.cause, no_binary.cause


def test_an_undefined_symbol_with_a_version_tag_names_the_library_that_lacks_it() -> None:
    # ld.so prints the version node of the reference: "undefined symbol: S, version libcudart.so.12" is a
    # symbol expected from libcudart.so.12, so the copy of that library which loaded is older than the one the
    # failing library was built against; not torch's own libraries disagreeing. apache/mahout#1330 (a system
    # CUDA 12.4 libcudart.so.12 ahead of the wheel's, torch cu128: the reporter's analysis, force-loading the
    # wheel's runtime), ContinuumIO/anaconda-issues#12251 (conda's cudatoolkit 11.0.221: 11.0.3 works, the
    # reporter and another user)
    system_cuda = _led_by(
        "On Linux systems where the installed CUDA Toolkit is older than 12.5 (e.g., Ubuntu 24.04's "
        "`nvidia-cuda-toolkit` package, which ships CUDA 12.4), `import torch` fails after a fresh `uv "
        "sync --group dev --extra qdp` of the RC2 environment:\n \n```\nImportError: "
        "/…/site-packages/torch/lib/libc10_cuda.so: undefined symbol:\n    "
        "cudaGetDriverEntryPointByVersion, version libcudart.so.12\n```",
        "lib.undefined_symbol",
    )
    assert any("libcudart.so.12" in line for line in system_cuda.evidence), system_cuda.evidence
    assert "another release of libcudart.so.12" in system_cuda.cause, system_cuda.cause
    assert "LD_LIBRARY_PATH" in system_cuda.fix.text, system_cuda.fix
    assert "reinstall torch in a clean environment" not in system_cuda.fix.text, system_cuda.fix
    conda = _led_by(
        "If `cudatoolkit` 11.0.221 is installed, `python -c 'import torch'` fails with\n\n```\nOSError: "
        "/home/ka37/anaconda3/envs/fail/lib/python3.8/site-packages/torch/lib/../../../../libcublas.so.11: "
        "symbol free_gemm_select version libcublasLt.so.11 not defined in file libcublasLt.so.11 with link "
        "time reference\n```",
        "lib.undefined_symbol",
    )
    assert "libcublasLt.so.11" in conda.cause and "conda" in conda.fix.text, (conda.cause, conda.fix)


def test_device_mismatches_in_older_and_narrower_wordings_are_read() -> None:
    # torch.cdist's own check, and torch 1.0-1.1's TensorIterator naming each side's device and dtype (a
    # different dtype on one device is tensors.different_dtypes'). helmholtz-analytics/heat#485 (merged
    # heat#486: the test tensors given their device), meta-pytorch/captum#163 (merged captum#169: the sum made
    # on the inputs' device)
    cdist = _led_by(
        "        if compute_mode == 'use_mm_for_euclid_dist_if_necessary':\n"
        ">           return torch._C._VariableFunctions.cdist(x1, x2, p, None)\n"
        "E           RuntimeError: X1 and X2 must have the same device type. X1: cuda X2: cpu\n\n"
        "../heat-venv/lib/python3.6/site-packages/torch/functional.py:671: RuntimeError",
        "tensors.different_devices",
    )
    assert any("X1 on cuda" in line and "X2 on cpu" in line for line in cdist.evidence), cdist.evidence
    captum = _led_by(
        "    233         attr_sum = torch.tensor([sum(row_sum) for row_sum in zip(*row_sums)])\n"
        "--> 234         return attr_sum - (end_point - start_point)\n    235 \n    236 \n\n"
        "RuntimeError: expected device cpu and dtype Float but got device cuda:0 and dtype Float",
        "tensors.different_devices",
    )
    assert any("cpu and cuda:0" in line for line in captum.evidence), captum.evidence
    same_device = _explained(
        "RuntimeError: expected device cpu and dtype Float but got device cpu and dtype Long"
    )
    assert all(found.id != "tensors.different_devices" for found in same_device), same_device


def test_a_device_mismatch_in_the_optimizers_step_names_its_state() -> None:
    # The optimizer keeps state per parameter (momentum buffers, Adam's exp_avg); built, or its state loaded
    # with optimizer.load_state_dict, while the model was on the CPU, that state stays there when the model
    # moves. pytorch/tutorials#577 (merged: the model to CUDA before the optimizer, the loaded state moved),
    # jwyang/faster-rcnn.pytorch#522 (fasterRCNN.cuda() before the optimizer: 'problem is solved'),
    # SeanNaren/deepspeech.pytorch#333 (merged: 'the model has to be cuda before optimizer load state dict')
    texts = [
        "exp_avg.mul_(beta1).add_(1 - beta1, grad)\n"
        "RuntimeError: expected backend CPU and dtype Float but got backend CUDA and dtype Float",
        '`Traceback (most recent call last):\n  File "trainval_net.py", line 339, in <module>\n    '
        'optimizer.step()\n  File "/pytorch/lib/python3.6/site-packages/torch/optim/sgd.py", line 101, '
        "in "
        "step\n    buf.mul_(momentum).add_(1 - dampening, d_p)\nRuntimeError: expected type "
        "torch.FloatTensor "
        "but got torch.cuda.FloatTensor`",
        'Traceback (most recent call last):\n  File "train.py", line 270, in <module>\n    '
        "optimizer.step()\n"
        '  File "/usr/local/lib/python3.6/dist-packages/torch/optim/sgd.py", line 101, in step\n    '
        "buf.mul_(momentum).add_(1 - dampening, d_p)\nRuntimeError: Expected object of type "
        "torch.FloatTensor "
        "but found type torch.cuda.FloatTensor for argument #4 'other'",
    ]
    for text in texts:
        lead = _led_by(text, "tensors.different_devices")
        assert "optimizer's state" in lead.cause, lead.cause
        assert "load_state_dict" in lead.fix.text and "before" in lead.fix.text, lead.fix
        assert any("optimizer" in line for line in lead.evidence), lead.evidence


def test_a_cuda_device_without_an_index_where_one_gpu_is_meant() -> None:
    # torch's _get_device_index refuses a device without an index where its caller does not take the
    # current one: torch.cuda.set_device and others, torch.cuda.mem_get_info before pytorch/pytorch#132616
    # (torch 2.5). invoke-ai/InvokeAI#2700 (merged: always a specific index), pytorch/pytorch#132583 (closed
    # by #132616), omicverse/omicverse#831 (merged omicverse#833: bare CUDA devices given their index)
    texts = [
        "Also tighten up the typing of `device` attributes in general.\n\nFixes \n> ValueError: Expected a "
        "torch.device with a specified index or an integer, but got:cuda",
        "# Expected a torch.device with a specified index or an integer, but got:cuda",
        "# Expected a torch.device with a specified index or an integer, but got:cuda\n\nWhen running "
        "`ov.pp.neighbors()` with `transformer='pyg'` (automatic selection due to GPU availability), the "
        'function crashes with a ValueError because `torch.cuda.mem_get_info()` receives a string `"cuda"` '
        "instead of a `torch.device` object or integer device index.",
    ]
    for text in texts:
        lead = _led_by(text, "cuda.device_without_index")
        assert "'cuda:0'" in lead.fix.text and "2.5" in lead.cause, lead
    assert any("mem_get_info" in line for line in _led_by(texts[2], "cuda.device_without_index").evidence)
    # the torch these tests run on: set_device refuses 'cuda' before it needs a GPU; mem_get_info takes the
    # current device for one
    here = torch_here()
    if here["importable"]:
        import torch

        with pytest.raises(ValueError, match=r"Expected a torch\.device with a specified index"):
            torch.cuda.set_device("cuda")


def test_transformers_refusing_a_quantized_load_names_a_torch_without_cuda() -> None:
    # transformers' is_bitsandbytes_available asked torch.cuda.is_available() as well as the package, so the
    # ImportError that asks to install accelerate and bitsandbytes also comes where both are installed and
    # torch sees no CUDA GPU. OpenBMB/MiniCPM-V#215 (the maintainer: bitsandbytes needs CUDA; accepted),
    # leoneversberg/llm-chatbot-rag#1 (the reporter's torch.cuda.is_available() printed False),
    # bitsandbytes-foundation/bitsandbytes#837 (macOS: the reporter read transformers' check)
    minicpm = _led_by(
        "请问目前支持win10吗？我setup了requirements和bitsandbytes，都提示 raise ImportError(\nImportError: "
        "Using `bitsandbytes` 8-bit quantization requires Accelerate: `pip install accelerate` and the "
        "latest version of bitsandbytes: `pip install -i https://pypi.org/simple/ bitsandbytes`",
        "transformers.quantization_unavailable",
    )
    chatbot = _led_by(
        "I tried the code, and I keep getting the following error despite installing the latest version of "
        "accelerate and bitsandbytes.I am running a virtual environment with Python 3.10.14 and all the "
        "other packages in requirements.txt.\nHave you seen this issue?\nImportError: Using `bitsandbytes` "
        "8-bit quantization requires Accelerate: `pip install accelerate` and the latest version of "
        "bitsandbytes:\n`pip install -i https://pypi.org/simple/ bitsandbytes`",
        "transformers.quantization_unavailable",
    )
    mac = _led_by(
        '  File "/Users/b/study/ml/image-captioning-v2/venv/lib/python3.11/site-packages/transformers/model'
        'ing_utils.py", line 2616, in from_pretrained\n    raise ImportError(\nImportError: Using '
        "`load_in_8bit=True` requires Accelerate: `pip install accelerate` and the latest version of "
        "bitsandbytes `pip install -i https://test.pypi.org/simple/ bitsandbytes` or pip install "
        "bitsandbytes`",
        "transformers.quantization_unavailable",
    )
    for lead in (minicpm, chatbot, mac):
        assert "torch.cuda.is_available()" in lead.cause, lead.cause
    assert "torch's CUDA build" in minicpm.fix.text and "torch's CUDA build" in chatbot.fix.text
    assert any("installed" in line for line in chatbot.evidence), chatbot.evidence
    assert any("Mac" in line for line in mac.evidence) and "load_in_8bit" in mac.fix.text, mac


def test_pips_list_of_versions_tells_what_this_python_can_install() -> None:
    # pip lists only the releases with a wheel for the Python and platform it runs on: none at all (or PyPI's
    # 0.1.2 placeholder) is a Python newer than the releases asked for, or a 32-bit one; a list that starts
    # after the release asked for, read against the wheel tables, names the Python. pytorch/pytorch#67669
    # (Python 3.10 and torch 1.10: 3.9.7 worked, a maintainer: no 3.10 builds of 1.10),
    # zeyad-mansour/lunar#226 (Python 3.9 worked, another user), jgravelle/GroqCasters#1 (Windows, Python
    # 3.11: a newer torch worked)
    for text in (
        "I got this error: <br/>\n`Looking in links: https://download.pytorch.org/whl/cu113/torch_stable.ht"
        "ml\nERROR: Could not find a version that satisfies the requirement torch==1.10.0+cu113 (from "
        "versions: 0.1.2, 0.1.2.post1, 0.1.2.post2)\nERROR: No matching distribution found for "
        "torch==1.10.0+cu113`",
        "PLEAS HELP MEEE: ERROR: Could not find a version that satisfies the requirement torch==1.11.0+cu113 "
        "(from versions: none) ERROR: No matching distribution found for torch==1.11.0+cu113",
    ):
        lead = _led_by(text, "pip.torch_not_published")
        assert any("pip lists no torch release at all" in line for line in lead.evidence), lead.evidence
        assert "64-bit Python" in lead.fix.text, lead.fix
    windows = _led_by(
        "As specified in requirements.txt.\n\nERROR: Could not find a version that satisfies the requirement "
        "torch==1.13.1 (from versions: 2.0.0, 2.0.1, 2.1.0, 2.1.1, 2.1.2, 2.2.0, 2.2.1, 2.2.2, 2.3.0, 2.3.1, "
        "2.4.0, 2.4.1)\nERROR: No matching distribution found for torch==1.13.1\n\nI am running windows 11, "
        "python 3.11. In an anaconda environment.",
        "pip.torch_not_published",
    )
    assert any("this Python is 3.11" in line for line in windows.evidence), windows.evidence
    assert "torch 2.0.0" in windows.fix.text and "3.7 to 3.10" in windows.fix.text, windows.fix


def test_lightning_refusing_the_gpu_accelerator_is_a_torch_that_sees_no_gpu() -> None:
    # Lightning's accelerator connector raises these where CUDAAccelerator.is_available() is False, that is
    # torch.cuda.device_count() == 0 (lightning/pytorch/trainer/connectors/accelerator_connector.py and
    # accelerators/cuda.py at 7f0c343). zjunlp/MKGformer#14 (torch, CUDA and Lightning reinstalled matching:
    # the reporter), microsoft/mattergen#217 and jbohnslav/deepethogram#117 (no GPU torch can use: the
    # maintainer, a contributor)
    for text in (
        "我在加载MKG预训练模型时反复报如下错误：\npytorch_lightning.utilities.exceptions.MisconfigurationEx"
        "ception: CUDAAccelerator can not run on your system since the accelerator is not available. The "
        "following accelerator(s) is available and can be passed into `accelerator` argument of `Trainer`: "
        "['cpu'].\n但是我的本机是有CUDA和GPU的，请问有没有遇到同样问题的朋友？求解答！",
        "srun mattergen-train data_module=mp_20 ~trainer.logger &> mattergen.out\n\nHowever, I got an "
        "error message \"Error executing job with overrides: ['data_module=mp_20', "
        "'~trainer.logger']\nError in call to target 'pytorch_lightning.trainer.trainer.Trainer':\nMisconfi"
        "gurationException('No supported gpu backend found!')\nfull_key: trainer\"",
        "However, I am now getting this error: **pytorch_lightning.utilities.exceptions.MisconfigurationExc"
        "eption: GPUAccelerator can not run on your system since the accelerator is not available. The "
        "following accelerator(s) is available and can be passed into `accelerator` argument of `Trainer`: "
        "['cpu'].**",
    ):
        lead = _led_by(text, "cuda.not_available")
        assert any("torch.cuda.device_count() is 0" in line for line in lead.evidence), lead.evidence
        assert "download.pytorch.org/whl/cu" in lead.fix.text, lead.fix


def test_a_torch_dll_windows_cannot_load_is_read_by_what_the_text_shows_beside_it() -> None:
    # pytorch/pytorch#125109 (torch 2.3.0 per user: MKL's DLLs in the user base, merged #125684),
    # kohya-ss/sd-scripts#1597 (fbgemm.dll: libomp140.x86_64.dll from the MSVC v143 build tools, the
    # reporter), patientx/ComfyUI-Zluda#9 (ZLUDA on an AMD GPU: the HIP SDK on PATH, the reporter)
    per_user = _led_by(
        '>>> import torch`\nTraceback (most recent call last):\n  File "<stdin>", line 1, in <module>\n  '
        'File "C:\\Users\\xyz\\AppData\\Roaming\\Python\\Python312\\site-packages\\torch\\__init__.py", '
        "line 141, in <module>\n    raise err\nOSError: [WinError 126] Das angegebene Modul wurde nicht "
        'gefunden. Error loading "C:\\Users\\xyz\\AppData\\Roaming\\Python\\Python312\\site-packages\\torch'
        '\\lib\\shm.dll" or one of its dependencies.',
        "lib.cannot_open_shared_object",
    )
    assert "per-user install" in per_user.cause and "virtual environment" in per_user.fix.text, per_user
    openmp = _led_by(
        "02:54:18-197331 ERROR    Could not load torch: [WinError 126] Das angegebene Modul wurde nicht "
        "gefunden. Error loading\n                         "
        '"P:\\AI\\kohya_ss\\venv\\lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.',
        "lib.cannot_open_shared_object",
    )
    assert "libomp140.x86_64.dll" in openmp.cause and "MSVC v143" in openmp.fix.text, openmp
    assert "missing: fbgemm.dll" in openmp.evidence, openmp.evidence
    zluda = _led_by(
        "Fresh install - 7900 XTX  - ROCm 5.7\nSecond user also confirmed same error using fresh install.\n\n"
        'OSError: [WinError 126] The specified module could not be found. Error loading "E:\\ComfyUI-Zluda\\'
        'venv\\Lib\\site-packages\\torch\\lib\\caffe2_nvrtc.dll" or one of its dependencies.',
        "lib.cannot_open_shared_object",
    )
    assert "ZLUDA" in zluda.cause and "PATH" in zluda.fix.text, zluda
    # a torch older than 2.4 names no libomp140: the Visual C++ Redistributable stays the reading
    older = _led_by(
        "torch 2.1.0\nOSError: [WinError 126] The specified module could not be found. Error loading "
        '"C:\\venv\\Lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.',
        "lib.cannot_open_shared_object",
    )
    assert "libomp140" not in older.cause and "Visual C++ Redistributable" in older.cause, older.cause


def test_a_kernel_image_the_driver_cannot_load_names_tritons_bundled_ptxas() -> None:
    # Triton 2.2 and later compile with the ptxas of CUDA 12 they bundle; a driver before R525 cannot load
    # the result. pytorch/pytorch#119054 (driver 470: TRITON_PTXAS_PATH to CUDA 11.8's ptxas, the
    # maintainer; 'this worked', the reporter), triton-lang/triton#2971 (driver 470.182.03: an older Triton
    # works, the reporter), InternLM/lmdeploy#1083 (its merged #1137: 'triton2.2 uses ptxas with cuda12')
    inductor = _led_by(
        "torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nRuntimeError: Triton Error "
        '[CUDA]: device kernel image is invalid\n\nSet TORCH_LOGS="+dynamo" and TORCHDYNAMO_VERBOSE=1 for '
        "more information",
        "cuda.invalid_kernel_image",
    )
    assert "TRITON_PTXAS_PATH" in inductor.fix.text and "R525" in inductor.fix.text, inductor.fix
    nightly = _led_by(
        'File "/usr/local/lib/python3.9/site-packages/triton/compiler/compiler.py", line 285, in '
        "_init_handles\n"
        "    self.module, self.function, self.n_regs, self2.1.0.dev20231014192330.n_spills = "
        "driver.utils.load_binary(\nRuntimeError: Triton Error [CUDA]: device kernel image is invalid.\n\n"
        "NVIDIA-SMI 470.182.03   Driver Version: 470.182.03   CUDA Version: 11.4\nDocker: CUDA: 11.8, GPU: "
        'A10。\n\nthe version  after "2.1.0.dev20231014192330" is not work. I use old version, it works.',
        "cuda.invalid_kernel_image",
    )
    assert any("470.182.03" in line and "525.60.13" in line for line in nightly.evidence), nightly.evidence
    assert "too old" in nightly.cause, nightly.cause
    assert (
        _led_by(
            "lmdeploy - ERROR - RuntimeError: Triton Error [CUDA]: device kernel image is invalid",
            "cuda.invalid_kernel_image",
        ).check
        is None
    )


def test_a_torch_version_with_the_cpu_tag_is_read_as_the_cpu_only_build() -> None:
    # pytorch.org's CPU wheels carry the local tag +cpu (2.13.0+cpu here); a text that shows one where the GPU
    # goes unused is about that build: vladmandic/sdnext#409 (the installer put in the CPU torch: reinstall,
    # the maintainer), Comfy-Org/ComfyUI#3970 (pip show torch said 2.5.0+cpu: reinstalled from pytorch.org,
    # another user confirming)
    for text, build in (
        (
            'I have an RTX2060 6Gb, but the generation process starts on the CPU, in the "System Info" '
            'section it says "2.0.0+cpu Autocast half" and an empty stash in the "GPU".\n\nAt the same '
            "time, everything works fine in A1111, all the necessary drivers and CUDA toolkit are "
            "installed.\n\nHow to switch CPU to GPU ?",
            "2.0.0+cpu",
        ),
        (
            "I went to my python_embeded folder and launched cmd through there and uninstalled pytorch and "
            "installed the latest version. I did this bc I noticed when I checked my torch version it said "
            "mine was 2.5.0+cpu. I used the install command here https://pytorch.org/get-started/locally/ "
            "after uninstalling my current version. To check your version of torch type, 'pip show torch' "
            "My version now says 2.7.0.dev20250118+cu",
            "2.5.0+cpu",
        ),
    ):
        lead = _led_by(text, "cuda.not_available")
        assert f"the text shows a CPU-only build ({build})" in lead.evidence, lead
        assert "download.pytorch.org/whl/cu" in lead.fix.text, lead
    # the tag is the CPU build's, in the torch these tests run on
    here = torch_here()
    if here["importable"] and "+cpu" in here["version"]:
        assert here["cuda"] is None, here


def test_libtorch_cuda_missing_names_a_cpu_only_torch_first() -> None:
    # torch's CPU-only builds have libtorch_cpu.so and no libtorch_cuda.so: an extension built for a CUDA
    # torch asks for it in vain. openmm/openmm-torch#127 (conda-forge's cpu_generic pytorch under a CUDA
    # openmm-torch: the reporter's diagnosis, closed on the CUDA build), pytorch/pytorch#111983 (a torch
    # that says "CUDA used to build PyTorch: Could not collect"); in the torch these tests run on, below
    openmm = _led_by(
        "`conda install -c conda-forge openmm-torch`\nand try to import openmmtorch, I get the following "
        'error:\n\n`Traceback (most recent call last):\n  File "<stdin>", line 1, in <module>\n  File '
        '"/home/eva/anaconda3/envs/openmm-torch/lib/python3.11/site-packages/openmmtorch.py", line 15, in '
        "<module>\n    import _openmmtorch\nImportError: libtorch_cuda.so: cannot open shared object file: "
        "No such file or directory`\n\nFrom the output of conda list, I can see that the installed pytorch "
        "is the CPU version `cpu_generic_py311h495eaba_0`, which probably explains the incompatibility.",
        "lib.cannot_open_shared_object",
    )
    wsl = _led_by(
        "# OSError: libtorch_cuda.so: cannot open shared object file: No such file or directory\n\nUbuntu "
        "22.04 \n\n```bash\n$ python3 -mtorch.utils.collect_env\nCollecting environment information...\n"
        "PyTorch version: 2.0.1\nIs debug build: False\nCUDA used to build PyTorch: Could not collect",
        "lib.cannot_open_shared_object",
    )
    for lead in (openmm, wsl):
        assert "CPU-only" in lead.cause and "libtorch_cuda.so" in lead.cause, lead
        assert "CUDA build of torch" in lead.fix.text, lead
    here = torch_here()
    if here["importable"] and here["cuda"] is None and not here["hip"]:
        names = {path.rsplit("/", 1)[-1] for path in here["mapped"]}
        assert "libtorch_cpu.so" in names and "libtorch_cuda.so" not in names, names


def test_an_architecture_nvcc_dropped_is_removed_from_the_builds_list() -> None:
    # An architecture the CUDA toolkit dropped (compute_30 in 11.0, compute_35 and compute_37 in 12.0,
    # compute_50 to compute_72 in 13.0) comes from the build's own list written for older toolkits: the fix
    # that worked removed it from the -gencode flags (or took the last toolkit that knows it), not another
    # nvcc. lisa-analysis-tools/GBGPU#7 (setup.py's compute_35 under CUDA 12.2, the reporter),
    # lammps/lammps#2235 (GPU.cmake's compute_30 under CUDA 11.0, merged lammps#2322),
    # stefantalpalaru/gentoo-overlay#160 (caffe2 2.6.0: CUDA 11.x, the maintainer and the reporter),
    # HawkAaron/warp-transducer#79 (CMakeLists' compute_30, another user and the reporter)
    cases = [
        (
            (
                "When trying to install GBPU with CUDA 12.2, I'm getting the following error:\n"
                "```\n/usr/local/cuda/bin/nvcc -I/usr/local/lib/python3.9/site-packages/numpy/core/in"
                "clude -I/opt/local/include -I/usr/local/cuda/include -Iinclude -I/usr/local/include/"
                "python3.9 -c src/gbgpu_utils.cu -o build/temp.linux-x86_64-cpython-39/src/gbgpu_util"
                "s.o -arch=sm_70 -gencode=arch=compute_35,code=sm_35 -gencode=arch=compute_50,code=sm"
                "_50 -gencode=arch=compute_52,code=sm_52 -gencode=arch=compute_60,code=sm_60 -gencode"
                "=arch=compute_61,code=sm_61 -gencode=arch=compute_70,code=sm_70 --default-stream=per"
                "-thread --ptxas-options=-v -c --compiler-options '-fPIC' -lineinfo -Xcompiler -fopen"
                "mp\nnvcc fatal   : Unsupported gpu architecture 'compute_35'\n"
                "error: command '/usr/local/cuda/bin/nvcc' failed with exit code 1\n"
                "```"
            ),
            "35",
            "CUDA 12.0",
            "CUDA 11.8",
        ),
        (
            (
                "**LAMMPS Version and Platform**\nLammps stable version 3-Mar-2020\n"
                "CUDA 11.0, Nvidia driver 450\nUbuntu 20.04, \n"
                "GeForce RTX 2080 Ti  (sm_75)\n\n**Expected Behavior**\n"
                "A successful compilation. So far did not have problem until CUDA 11. Previously comp"
                "iled with CUDA 10.2 without any problem.\n\n"
                "**Actual Behavior**\nnvcc halts compilation. with the following message:\n"
                "nvcc fatal   : Unsupported gpu architecture 'compute_30'"
            ),
            "30",
            "CUDA 11.0",
            "CUDA 10.2",
        ),
        (
            (
                "sci-libs/caffe2-2.6.0-r100::stefantalpalaru failed (compile phase) : nvcc fatal : Un"
                "supported gpu architecture 'compute_35'"
            ),
            "35",
            "CUDA 12.0",
            "CUDA 11.8",
        ),
        (
            "nvcc fatal : Unsupported gpu architecture 'compute_30' while execute make",
            "30",
            "CUDA 11.0",
            "CUDA 10.2",
        ),
    ]
    for text, arch, dropped_in, last in cases:
        lead = _led_by(text, "build.nvcc_unsupported_arch")
        assert f"compute_{arch}, an architecture {dropped_in} dropped" in lead.cause, lead.cause
        assert f"Remove compute_{arch} from the build's architectures" in lead.fix.text, lead.fix
        assert f"-gencode arch=compute_{arch},code=sm_{arch}" in lead.fix.text, lead.fix
        assert f"build with {last}" in lead.fix.text, lead.fix


def test_a_tensor_the_statement_makes_without_a_device_is_named_with_the_tensor_it_meets() -> None:
    # A factory call without device= in the statement that fails (or, where no traceback is shown, the line
    # the writer quotes) makes its tensor on the default device, the CPU: the fix that worked made it on the
    # device of the tensor it meets. akarasman/yolo-heatmaps#13 (torch.where's own words; the maintainer's
    # torch.tensor(0.0, device=self.device)); lucidrains/slot-attention#7 in the test above
    where = _led_by(
        "```RuntimeError: Expected condition, x and y to be on the same device, but condition is on cuda:0 "
        "and x and y are on cuda:0 and CPU respectively```\n\nI think the problem is that on line 359:\n"
        "```explanation = torch.where(outlier_mask, lrp_p, torch.tensor(0.0))```",
        "tensors.different_devices",
    )
    assert "torch.where got its condition on cuda:0, x on cuda:0 and y on CPU" in where.evidence, (
        where.evidence
    )
    assert "torch.tensor(0.0, device=lrp_p.device)" in where.fix.text, where.fix
    # harvardnlp/pytorch-struct#121: the same words, the condition on the CPU (the thread did not settle)
    struct = _led_by(
        "ipdb> dist.kmax(5)\n*** RuntimeError: Expected condition, x and y to be on the same device, but "
        "condition is on cpu and x and y are on cuda:0 and cuda:0 respectively",
        "tensors.different_devices",
    )
    assert "torch.where got its condition on cpu, x on cuda:0 and y on cuda:0" in struct.evidence


@pytest.mark.parametrize(
    ("code", "call", "meets", "on_device"),
    [
        (
            "if not torch.allclose(tensor, torch.ones(10)):",
            "torch.ones(10)",
            "tensor",
            "torch.ones(10, device=tensor.device)",
        ),
        (
            "boxes = box_ops.box_cxcywh_to_xyxy(boxes) * torch.Tensor([W, H, W, H])",
            "torch.Tensor([W, H, W, H])",
            "boxes",
            "torch.Tensor([W, H, W, H]).to(boxes.device)",
        ),
        (
            "return self.pos.weight + torch.arange(n)",
            "torch.arange(n)",
            "self.pos.weight",
            "torch.arange(n, device=self.pos.weight.device)",
        ),
        ("h = torch.zeros(2, 3)", "torch.zeros(2, 3)", None, "torch.zeros(2, 3, device=x.device)"),
        ("y = x + torch.ones(3,)", "torch.ones(3,)", "x", "torch.ones(3, device=x.device)"),
    ],
)
def test_the_statement_reader_finds_the_call_without_a_device_and_the_tensor_it_meets(
    code: str, call: str, meets: str | None, on_device: str
) -> None:
    made = made_without_device(code)
    assert made is not None and (made.call, made.meets, made.on_device()) == (call, meets, on_device)


@pytest.mark.parametrize(
    "code",
    [
        "y = self.weight * torch.ones(3, device=d)",
        "x = torch.cat([a,",
        "z = torch.ones_like(x) + x",
        "(" * 300,
        "x + torch.ones(1)" + " " * 1000,
    ],
)
def test_a_statement_with_no_call_without_a_device_or_that_python_cannot_read_gives_none(code: str) -> None:
    assert made_without_device(code) is None


def test_no_space_left_where_the_text_shows_shared_memory_is_a_dev_shm_too_small() -> None:
    # "No space left on device" is /dev/shm full where the text shows shared memory at work (a DataLoader's
    # SemLock, torch's shared-memory file /torch_<pid>_..., /dev/shm itself); a disk that is full is not
    # read so. NVIDIA/Megatron-LM#878 (docker run without --shm-size: --shm-size=64g, the reporter),
    # ultralytics/ultralytics#1238 (Docker's 64 MB /dev/shm: --ipc=host, the reporter)
    megatron = _led_by(
        "    sl = self._semlock = _multiprocessing.SemLock(\n    sl = self._semlock = "
        "_multiprocessing.SemLock(\nOSError: [Errno 28] No space left on device\n    return "
        "iter(dataloader)OSError\n[Errno 28] No space left on device\n  File "
        '"/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", line 436, in __iter__\n'
        "    self._iterator = self._get_iterator()\n  File "
        '"/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", line 388, in '
        "_get_iterator\n    return _MultiProcessingDataLoaderIter(self)",
        "nccl.shm",
    )
    assert "too small" in megatron.cause and "--shm-size" in megatron.fix.text, (megatron.cause, megatron.fix)
    ultralytics = _led_by(
        '  File "/opt/conda/lib/python3.9/site-packages/torch/multiprocessing/reductions.py", line 366, in '
        "reduce_storage\n    fd, size = storage._share_fd_cpu_()\nRuntimeError: unable to write to file "
        "</torch_722_783672312_1>: No space left on device (28)",
        "nccl.shm",
    )
    assert "--ipc=host" in ultralytics.fix.text, ultralytics.fix
    # a pod's /dev/shm: Kubernetes mounts a memory-backed emptyDir there
    assert "medium: Memory" in ultralytics.fix.text, ultralytics.fix
    for disk in (
        "OSError: [Errno 28] No space left on device: '/home/user/.cache/huggingface/hub/model.safetensors'",
        "ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device",
    ):
        assert all(found.id != "nccl.shm" for found in _explained(disk)), _ids(disk)


def test_the_size_of_dev_shm_the_text_gives_is_quoted() -> None:
    # df's row for /dev/shm in a container (Docker's default 64M, full), and a writer's own words: both texts
    # constructed, in df -h's format and in the words of a notebook platform's report
    df = _one(
        "RuntimeError: DataLoader worker (pid 4242) is killed by signal: Bus error.\n$ df -h /dev/shm\n"
        "Filesystem      Size  Used Avail Use% Mounted on\nshm              64M   64M     0 100% /dev/shm",
        "nccl.shm",
    )
    assert "df shows /dev/shm of 64M, 100% used" in df.evidence, df.evidence
    said = _one(
        "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared "
        "memory (shm).\nThe notebook's shared memory (/dev/shm) is set to 64 MB.",
        "nccl.shm",
    )
    assert "the text gives /dev/shm of 64 MB" in said.evidence, said.evidence


def test_a_failed_build_of_a_package_with_release_wheels_names_the_wheel_to_install() -> None:
    # flash-attn, mamba-ssm and causal-conv1d publish a wheel per CUDA, torch, C++ ABI and Python on their
    # releases; their setup.py guesses it and compiles only where it is missing or cannot be downloaded. The
    # fix that worked installed the wheel by hand. state-spaces/mamba#534 (no access to GitHub: the wheel
    # downloaded by hand), NVlabs/MambaVision#85 (the cu12 torch 2.6 cxx11abiFALSE release wheel, two
    # users), plantcad/plantcad#3 (a user's release wheel), li-yapeng/MambaHSI#1 (the guessed URL timed out:
    # the maintainer's offline wheel), ezelikman/quiet-star#13 (no wheel of that name: another user's wheel)
    cases = [
        (
            (
                "Building wheels for collected packages: mamba-ssm\n"
                "  Building wheel for mamba-ssm (setup.py) ... error\n"
                "  error: subprocess-exited-with-error\n  \n"
                "  ?python setup.py bdist_wheel did not run successfully.\n"
                "  \\u2502 exit code: 1\n  \\u2570\\u2500> [8 lines of output]\n"
                "      \n      torch.__version__  = 2.4.0+cu121"
            ),
            "mamba-ssm",
            "cu12torch2.4",
        ),
        ("ERROR: Failed building wheel for mamba-ssm", "mamba-ssm", None),
        (
            (
                "      [end of output]\n  \n  note: This error originates from a subprocess, and is l"
                "ikely not a problem with pip.\n  ERROR: Failed building wheel for mamba-ssm\n"
                "  Running setup.py clean for mamba-ssm\nFailed to build mamba-ssm\n"
                "ERROR: ERROR: Failed to build installable wheels for some pyproject.toml based proje"
                "cts (mamba-ssm)"
            ),
            "mamba-ssm",
            None,
        ),
        (
            (
                "`running bdist_wheel\nGuessing wheel URL: https://github.com/state-spaces/mamba/rele"
                "ases/download/v1.2.0/mamba_ssm-1.2.0+cu118torch1.13cxx11abiFALSE-cp39-cp39-linux_x86"
                "_64.whl\nerror: <urlopen error [Errno 110] Connection timed out>\n"
                "[end of output]`"
            ),
            "mamba-ssm",
            "could not download",
        ),
        (
            (
                "      !!\n        dist.fetch_build_eggs(dist.setup_requires)\n"
                "      running bdist_wheel\n      Guessing wheel URL:  https://github.com/Dao-AILab/f"
                "lash-attention/releases/download/v2.6.3/flash_attn-2.6.3+cu118torch2.0cxx11abiFALSE-"
                "cp310-cp310-win_amd64.whl\n      Precompiled wheel not found. Building from source.."
                "."
            ),
            "flash-attn",
            "no wheel of that name",
        ),
    ]
    for text, package, said in cases:
        lead = _led_by(text, "extension.release_wheel_build_failed")
        assert any(f"the build is {package}'s" in line for line in lead.evidence), lead.evidence
        assert said is None or any(said in line for line in lead.evidence), lead.evidence
        assert "Install the prebuilt wheel itself" in lead.fix.text, lead.fix
        assert "cxx11abi<TRUE or FALSE>" in lead.fix.text, lead.fix
    # a wheel that downloaded is no failure
    fetched = (
        "Guessing wheel URL:  https://github.com/Dao-AILab/flash-attention/releases/download/v2.6.3/"
        "flash_attn-2.6.3+cu123torch2.4cxx11abiFALSE-cp310-cp310-linux_x86_64.whl\n"
        "Raw wheel path dist/flash_attn.whl"
    )
    assert all(found.id != "extension.release_wheel_build_failed" for found in _explained(fetched))


def test_an_out_of_memory_the_writer_ties_to_large_images_leads_with_a_lower_resolution() -> None:
    # The writer ties the failure to the images' size ("photos bigger than 4Mpx", "larger images", "larger
    # than vga resolution photos"): activations grow with the pixels, and the fix that worked ran the model
    # at a lower resolution or in tiles. swz30/Restormer#29 (the maintainer's --tile option),
    # braindotai/Watermark-Removal-Pytorch#14 (--max-dim lowered, the maintainer), JingyunLiang/SwinIR#36
    # (the maintainer's --tile option; its title is a test above)
    for text, said in [
        (
            (
                "For real denoising task, on photos bigger than 4Mpx code returns this error.\n"
                "`RuntimeError: CUDA out of memory. Tried to allocate 7.62 GiB (GPU 0; 12.00 GiB tota"
                "l capacity; 5.33 GiB already allocated; 4.64 GiB free; 5.35 GiB reserved in total by"
                " PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to"
                " avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLO"
                "C_CONF`\n\nIs there any trick to get it working properly with RTX 3060? "
            ),
            "photos bigger than",
        ),
        (
            (
                "I am getting the following error when I increase the --max-dim parameter above 700 on a "
                "6GiB GPU. \n\n`RuntimeError: CUDA out of memory. Tried to allocate 208.00 MiB (GPU 0; 6."
                "00 GiB total capacity; 5.29 GiB already allocated; 0 bytes free; 5.33 GiB reserved in to"
                "tal by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb "
                "to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_"
                "CONF`\n\nI tried reducing the --input-depth to see if this would reduce the memory usage"
                ", but it didn't help. \n\nAre there any other possible tweaks that would allow for proce"
                "ssing of larger images?"
            ),
            "larger images",
        ),
        (
            (
                "Thanks for great code released for free to public. Tried real world 4x large model. "
                "Results are great. Even better than known commercial products. \n"
                "Real esrgan for example has --tile option for cuda out of memory errors. With your c"
                "ode I cant upscale larger than vga resolution photos with RTX 3060 12GB. Please tell"
                " me is there way for tiling or do I need to change img_size, for what values?"
            ),
            "larger than vga resolution",
        ),
    ]:
        lead = _led_by(text, "cuda.out_of_memory")
        assert any(said in line for line in lead.evidence), lead.evidence
        assert "An image's activations grow with its pixels" in lead.fix.text, lead.fix
        assert "tiles" in lead.fix.text and "--max-dim" in lead.fix.text, lead.fix
        # an upscaler's own tiling option leads where the text shows one (the test above)
        upscaler = any("upscaled or restored at test time" in line for line in lead.evidence)
        assert upscaler == (said == "larger than vga resolution"), lead.evidence
        if not upscaler:
            assert lead.fix.text.startswith("An image's activations grow with its pixels"), lead.fix
    # a writer who says the image is small is not told it is large (constructed)
    small = _led_by(
        "My input image is small (256x256) but I still get torch.OutOfMemoryError: CUDA out of memory. Tried "
        "to allocate 20.00 MiB",
        "cuda.out_of_memory",
    )
    assert not any("images' size" in line for line in small.evidence), small.evidence


def test_is_available_answered_on_the_next_line_or_by_a_failed_assertion_is_read() -> None:
    # torch.cuda.is_available()'s False as a console shows it, on the line after the call (Python's prompt,
    # IPython's Out[n]), or the program's own assertion of it failing. lucidrains/deep-daze#72 (a CPU-only
    # torch from plain pip on Windows, the reporter reinstalled from pytorch.org), VITA-Group/EnlightenGAN#50
    # (the maintainer: torch installed without CUDA), pytorch/pytorch#31243 (the maintainer: the driver too
    # old for the wheel's CUDA), floydhub/dockerfiles#3 (the maintainer: the image run without the GPU
    # runtime)
    deep_daze = (
        "Traceback (most recent call last):\n"
        '  File "c:\\python39\\lib\\runpy.py", line 197, in _run_module_as_main\n'
        "    return _run_code(code, main_globals, None,\n"
        '  File "c:\\python39\\lib\\runpy.py", line 87, in _run_code\n'
        "    exec(code, run_globals)\n"
        '  File "C:\\Python39\\Scripts\\imagine.exe\\__main__.py", line 4, in <module>\n'
        '  File "c:\\python39\\lib\\site-packages\\deep_daze\\__init__.py", line 1, in <module>\n'
        "    from deep_daze.deep_daze import DeepDaze, Imagine\n"
        '  File "c:\\python39\\lib\\site-packages\\deep_daze\\deep_daze.py", line 25, in <module>\n'
        "    assert torch.cuda.is_available(), 'CUDA must be available in order to use Deep Daze'\n"
        "AssertionError: CUDA must be available in order to use Deep Daze\n"
    )
    enlighten = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 19, in <module>\n'
        "    model = create_model(opt)\n"
        '  File "D:\\EnlightenGAN-master\\models\\models.py", line 36, in create_model\n'
        "    model.initialize(opt)\n"
        '  File "D:\\EnlightenGAN-master\\models\\single_model.py", line 57, in initialize\n'
        "    opt.ngf, opt.which_model_netG, opt.norm, not opt.no_dropout, self.gpu_ids, skip=skip, opt=opt)\n"
        '  File "D:\\EnlightenGAN-master\\models\\networks.py", line 86, in define_G\n'
        "    assert(torch.cuda.is_available())\n"
        "AssertionError\n"
    )
    prompt = (
        "$ pip install torch===1.3.0 torchvision===0.4.1 -f "
        "https://download.pytorch.org/whl/torch_stable.html\n"
        "$ python3\n"
        "Python 3.7.5 (default, Oct 25 2019, 15:51:11) \n"
        "[GCC 7.3.0] :: Anaconda, Inc. on linux\n"
        'Type "help", "copyright", "credits" or "license" for more information.\n'
        ">>> import torch\n"
        ">>> torch.cuda.is_available()\n"
        "False\n"
    )
    for text in (deep_daze, enlighten, prompt):
        lead = _led_by(text, "cuda.not_available")
        assert "a CPU-only build" in lead.cause and "newer than the driver supports" in lead.cause, lead
        assert "reinstall torch as a CUDA build" in lead.fix.text, lead.fix
    ipython = (
        "$ sudo docker run  -t -i floydhub/pytorch:latest-gpu-py3 ipython\n"
        "Python 3.5.3 (default, Feb 13 2017, 20:35:17) \n"
        'Type "copyright", "credits" or "license" for more information.\n'
        "\n"
        "IPython 5.3.0 -- An enhanced Interactive Python.\n"
        "?         -> Introduction and overview of IPython's features.\n"
        "%quickref -> Quick reference.\n"
        "help      -> Python's own help system.\n"
        "object?   -> Details about 'object', use 'object??' for extra details.\n"
        "\n"
        "In [1]: import torch\n"
        "\n"
        "In [2]: torch.cuda.is_available()\n"
        "Out[2]: False\n"
    )
    lead = _led_by(ipython, "cuda.not_available")
    shown = "docker run  -t -i floydhub/pytorch:latest-gpu-py3 ipython"
    assert f"the docker run command shown has no --gpus: {shown}" in lead.evidence, lead.evidence
    assert lead.cause.startswith("The container was started without GPUs"), lead.cause
    assert "docker run --gpus all" in lead.fix.text, lead.fix
    # a True on the next line, an assertion of something else, and nvidia-docker's run are not read so
    for text in (
        ">>> torch.cuda.is_available()\nTrue\n",
        "    assert torch.cuda.device_count() > 1\nAssertionError\n",
    ):
        assert all(found.id != "cuda.not_available" for found in _explained(text)), text
    nvidia_docker = ipython.replace("sudo docker run ", "sudo nvidia-docker run ")
    lead = _led_by(nvidia_docker, "cuda.not_available")
    assert not any("has no --gpus" in line for line in lead.evidence), lead.evidence


def test_a_docker_daemon_without_the_nvidia_runtime_is_told_to_install_the_container_toolkit() -> None:
    # dockerd's refusals of GPUs it has no driver or runtime for: the NVIDIA Container Toolkit missing or not
    # registered. OpenBMB/XAgent#273 (the reporter: installing nvidia-container-toolkit solved it),
    # AbdBarho/stable-diffusion-webui-docker#130 (compose's "nvidia" driver; the project's FAQ),
    # easydiffusion/easydiffusion#27 (another user: installed it, restarted docker),
    # eduidl/ElasticFusion-Dockerfile#11 (the reporter, after installing it), Leon-Sander/Local-Multimodal-AI-
    # Chat#31 (the runtime named in daemon.json, the daemon not restarted)
    xagent = (
        "2. 运行docker命令\n"
        "docker run -it -p 13520:13520  -v /huggingface/models/XAgentLLaMa-34B-preview/:/model:rw --gpus all "
        "--ipc=host xagentteam/xagentgen:latest python app.py --model-path /model --port 13520\n"
        "\n"
        "## Expected Behavior / 预期行为\n"
        "docker容器正常启动\n"
        "\n"
        "## Environment / 环境信息\n"
        "- Operating System / 操作系统：Ubuntu22.04\n"
        "- Python Version / Python 版本：\n"
        "- Other Relevant Information / 其他相关信息：\n"
        "\n"
        "## Error Screenshots or Logs / 错误截图或日志\n"
        'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].\n'
        "ERRO[0000] error waiting for container:  \n"
    )
    compose = (
        "I tried to run the app with: ```sudo docker compose --profile auto up --build``` and got an error:\n"
        "```Attaching to webui-docker-auto-1```\n"
        '```Error response from daemon: could not select device driver "nvidia" with capabilities: '
        "[[gpu]]```\n"
        "\n"
        "**Which UI**\n"
        "All of them.\n"
        "\n"
        "**Hardware / Software**\n"
        " - OS: Arch Linux\n"
        " - WSL version (if applicable):\n"
        " - Docker Version: 20.10.18\n"
        " - Docker compose version: 2.11.2\n"
        " - Repo version: b60c787\n"
        " - RAM: 8GB\n"
        " - GPU/VRAM: 16GB RTX A4000\n"
    )
    service = (
        "root@wolf-run:/home/wolf/Downloads/stable-diffusion-ui# sudo docker-compose up &\n"
        "[1] 6146\n"
        "Starting sd ... error\n"
        "\n"
        'ERROR: for sd  Cannot start service stability-ai: could not select device driver "" with '
        "capabilities: [[gpu]]\n"
        "\n"
        "ERROR: for stability-ai  Cannot start service stability-ai: could not select device driver "
        '"" with capabilities: [[gpu]]\n'
        "ERROR: Encountered errors while bringing up the project.\n"
    )
    script = (
        "After I run the `opendocker.sh` script provided, I get the following error message:\n"
        "\n"
        '> docker: Error response from daemon: could not select device driver "" with capabilities: '
        "[[gpu]].\n"
    )
    for text, asked in [
        (xagent, "GPUs (no device driver named)"),
        (compose, 'the device driver "nvidia"'),
        (service, "GPUs (no device driver named)"),
        (script, "GPUs (no device driver named)"),
    ]:
        lead = _led_by(text, "container.no_gpu_runtime")
        assert lead.evidence == (f"Docker was asked for {asked} and no driver of this daemon gives GPUs",)
        assert "the NVIDIA Container Toolkit is not installed on the host" in lead.cause, lead.cause
        assert "sudo apt-get install -y nvidia-container-toolkit" in lead.fix.text, lead.fix
        assert "sudo systemctl restart docker" in lead.fix.text, lead.fix
    runtime = (
        "ISSUE : docker compose up\n"
        "[+] Running 0/0\n"
        " ⠋ Container local_multimodal_ai-ollama-1  Creating" + " " * 64 + "0.0s\n"
        "Error response from daemon: unknown or invalid runtime name: nvidia\n"
        "\n"
        "*So i am using WSL2 Ubuntu to run the latest Repository( Ollama integrated) and tried everyhting to "
        "resolve this runtime error but no luck*\n"
    )
    lead = _led_by(runtime, "container.no_gpu_runtime")
    assert "which this Docker daemon has not registered" in lead.evidence[0], lead.evidence
    assert "Docker not restarted after it" in lead.cause, lead.cause


def test_a_gpu_pips_default_builds_dropped_is_told_the_last_release_and_build_that_have_it() -> None:
    # A Maxwell or Pascal GPU meets a torch whose default pip wheel (CUDA 12.8 from torch 2.8 on) no longer
    # has its kernels: the fix that worked was the CUDA 12.6 build or an older torch. RobThePCGuy/Claude-
    # Patent-Creator#25 (merged: Pascal routed to the cu126 build, torch 2.7.1), bnsreenu/digitalsreeni-image-
    # annotator#57 (the reporter: torch 2.4.1 from the cu121 index works), Differentiable-Electron-
    # Crystallography/diffBloch#144 (cuBLAS of CUDA 13 on a P100; the reporter pinned the cu126 index)
    listed = (
        "torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device\n"
        "\n"
        "NVIDIA GeForce GTX 1080 with CUDA capability sm_61 is not compatible with the current PyTorch "
        "installation.\n"
        "The current PyTorch install supports CUDA capabilities sm_75 sm_80 sm_86 sm_90 sm_100 sm_120.\n"
    )
    named = (
        "- OS: Ubuntu 24.04.3 LTS\n"
        "- GPU: NVIDIA GeForce GTX 1050 (compute capability 6.1)\n"
        "- Driver: 550.163.01\n"
        "- CUDA (via torch): 12.8\n"
        "- PyTorch: 2.8.0+cu128\n"
        "- App: digitalsreeni-image-annotator\n"
        "\n"
        "## Error\n"
        "When running the annotator I get:\n"
        "\n"
        "```\n"
        "torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device\n"
        "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
        "might be incorrect.\n"
        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
        "Compile with TORCH_USE_CUDA_DSA to enable device-side assertions.\n"
    )
    dropped = (
        "pip's default torch builds (Linux x86_64) dropped CC 6.1: torch 2.7.1's (CUDA 12.6) was the last "
        "with its kernels, torch 2.8's (CUDA 12.8) has none"
    )
    downgrade = (
        "downgrade to torch 2.7.1, the last release whose default pip wheel (CUDA 12.6) has kernels for CC "
        "6.1: pip install torch==2.7.1"
    )
    for text in (listed, named):
        lead = _led_by(text, "cuda.no_kernel_image")
        assert dropped in lead.evidence, lead.evidence
        assert downgrade in lead.fix.text, lead.fix
    lead = _led_by(named, "cuda.no_kernel_image")
    assert "dropped from the builds pip installs by default from torch 2.8 on" in lead.cause, lead.cause
    assert 'pip install "torch==2.8.0+cu126"' in lead.fix.commands[0], lead.fix
    cublas = (
        "I tried this on our (rather old) cluster with NVIDIA P100 GPUs. Because CUDA 13.0 dropped support "
        "for Pascal GPUs, the program crashed with:\n"
        "```\n"
        "RuntimeError: CUDA error: CUBLAS_STATUS_ARCH_MISMATCH when calling `cublasCreate(handle)`\n"
        "```\n"
    )
    lead = _led_by(cublas, "cublas.status_error")
    assert "older than this build's CUDA libraries support" in lead.cause, lead.cause
    assert "--index-url https://download.pytorch.org/whl/cu126" in lead.fix.text, lead.fix
    # a GPU every default build has (an RTX 3090) is told nothing of the kind (constructed)
    newer = _led_by(
        "NVIDIA GeForce RTX 3090 with CUDA capability sm_86 is not compatible with the current PyTorch "
        "installation.\nThe current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70 "
        "sm_75.",
        "cuda.no_kernel_image",
    )
    assert not any("default torch builds" in line for line in newer.evidence), newer.evidence
    assert "default pip wheel" not in newer.fix.text, newer.fix
    # in an application's image, the pin goes where the image installs torch, not "update to the latest"
    # (constructed from the first text's message with an image named)
    bundled = _led_by(
        "Running the app's Docker image on a GTX 1080:\n" + listed.split("\n", 1)[0], "cuda.no_kernel_image"
    )
    assert bundled.fix.text.startswith("The torch that fails comes with the application"), bundled.fix
    pinned = "pin a torch that still has this old GPU's kernels where the image installs torch"
    assert pinned in bundled.fix.text, bundled.fix
    assert "update the application to its latest release" not in bundled.fix.text, bundled.fix


def test_cuda_in_forked_dataloader_workers_leads_with_the_datasets_own_cuda_tensors() -> None:
    # DataLoader workers are forked: "Cannot re-initialize CUDA in forked subprocess" there means the code
    # the workers run (the Dataset, the collate_fn) makes CUDA tensors, which spawn alone does not cure
    # (pytorch/pytorch#77159, its writer: spawn did not solve it, the Dataset moved its output to the GPU;
    # meta-pytorch/data#966, its writer: tensors left on the CPU in the collate function iterate),
    # as "CUDA error: initialization error" already says (backtime92/CRAFT-Reimplementation#7, .cuda() in
    # the data loader's code)
    issue = (
        "I've seen multiple individuals and groups using num_workers=0 in DataLoader, and significantly "
        "under-utilizing GPUs due to the following error message which appeared cryptic (to newcomers) when "
        "they used num_workers bigger than 0\n"
        "\n"
        '"Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use the '
        "'spawn' start method\"\n"
        "\n"
        "The error message was gone when they switched to num_workers=0\n"
        'Using "spawn" start method did not solve the problem.\n'
        "\n"
        "I analyzed the problem and found that inside their custom Dataset implementation that as a final "
        "step there they transfer the tensor into the GPU.\n"
    )
    datapipe = (
        "> RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, "
        "you must use the 'spawn' start method\n"
        "> This exception is thrown by __iter__ of CollatorIterDataPipe()\n"
        "\n"
        "The collate function contains `.to(device)` (cuda) calls. if I remove these and leave the tensors "
        "on the CPU, the error disappears and the dataloader iterates successfully.\n"
    )
    for text in (issue, datapipe):
        lead = _led_by(text, "cuda.forked_subprocess")
        assert "the code they run (the Dataset, its collate_fn" in lead.cause, lead.cause
        assert lead.fix.text.startswith(
            "Keep CUDA out of the DataLoader workers: return CPU tensors from the dataset (its __getitem__)"
        ), lead.fix
    assert any("spawn did not help" in line for line in _led_by(issue, "cuda.forked_subprocess").evidence)
    craft = (
        '  File "/home/craft_reimplementation/data_loader.py", line 125, in inference_pursedo_bboxes\n'
        "    img_torch = img_torch.type(torch.FloatTensor).cuda()\n"
        "RuntimeError: CUDA error: initialization error\n"
    )
    assert _led_by(craft, "cuda.initialization_error").fix.text.startswith("Keep CUDA out of the DataLoader")
    # a fork outside any DataLoader keeps the general reading (constructed)
    pool = _led_by(
        "multiprocessing.Pool(4).map(run, jobs)\nRuntimeError: Cannot re-initialize CUDA in forked "
        "subprocess. To use CUDA with multiprocessing, you must use the 'spawn' start method",
        "cuda.forked_subprocess",
    )
    assert pool.fix.text.startswith("Use the spawn start method"), pool.fix


def test_a_gpu_newer_than_flash_attns_check_is_told_to_upgrade_it_not_that_it_is_old() -> None:
    # flash-attn's architecture check (1.x: is_sm8x || is_sm75; the 2.x check worded "Ampere GPUs or newer":
    # is_sm8x || is_sm90) fails on a GPU newer than its list as it does on an older one; the GPU the text
    # names tells them apart (constructed: no settled thread outside the test split was found)
    for text, gpu, known in [
        (
            "RuntimeError: Expected is_sm8x || is_sm75 to be true, but got false. (flash-attn 1.0.9 on an "
            "H100)",
            "the text names the H100: compute capability 9.0",
            "sm_75 and sm_8x",
        ),
        (
            "RuntimeError: FlashAttention only supports Ampere GPUs or newer.\nGPU: NVIDIA GeForce RTX 5090",
            "compute capability 12.0",
            "sm_8x and sm_90",
        ),
    ]:
        lead = _led_by(text, "flash_attn.gpu_too_old")
        assert any(gpu in line and f"this flash-attn check knows ({known})" in line for line in lead.evidence)
        assert "this GPU is newer than that list, not older" in lead.cause, lead.cause
        assert lead.fix.text.startswith("Upgrade flash-attn to a release that supports this GPU"), lead.fix
    # an older GPU keeps the older reading
    old = _led_by(
        "RuntimeError: FlashAttention only supports Ampere GPUs or newer. (Tesla V100)",
        "flash_attn.gpu_too_old",
    )
    assert "This GPU is older" in old.cause and old.fix.text.startswith("Disable FlashAttention"), old


def test_pips_default_build_is_not_named_on_windows_where_it_is_the_cpu_build() -> None:
    # On Windows a plain pip install brings the CPU build: the downgrade to pip's default CUDA wheel is
    # Linux's (constructed from the GTX 1080 text above, on Windows)
    text = (
        "Windows 11\nNVIDIA GeForce GTX 1080 with CUDA capability sm_61 is not compatible with the current "
        "PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_75 sm_80 sm_86 "
        "sm_90 sm_100 sm_120.\n"
    )
    lead = _led_by(text, "cuda.no_kernel_image")
    assert not any("default torch builds" in line for line in lead.evidence), lead.evidence
    assert "default pip wheel" not in lead.fix.text, lead.fix


def test_torch_2_0s_flash_backward_off_the_a100_is_told_to_upgrade_torch_or_turn_flash_off() -> None:
    # "Expected is_sm80 to be true" is torch 2.0.0's own check in its flash-attention backward (heads wider
    # than 64): training fails on an RTX 3090, A6000 or A40. pytorch/pytorch#94883 (the developer:
    # enable_flash=False; the dispatch fixed for 2.0.1), hiyouga/ChatGLM-Efficient-Tuning#200 and
    # yuanzhoulvpi2017/zero_nlp#152 (a newer torch fixed both)
    for text, gpu in [
        ("# RuntimeError: Expected is_sm80 to be true, but got false.\n", None),
        (
            "重新换了A40遇到同样的错误：\nRuntimeError: Expected is_sm80 to be true, but got false.  "
            "(Could this error message be improved?  If so, please report an enhancement request to "
            "PyTorch.)\n",
            "the text names the A40: compute capability 8.6, not the A100's 8.0 (sm_80)",
        ),
        (
            "你好，按照readme，transformers库已经更新到最新，报错信息如下：\n```\n"
            "RuntimeError: Expected is_sm80 to be true, but got false.  (Could this error message be "
            "improved?  If so, please report an enhancement request to PyTorch.)\n```\n"
            "用的是一张A40卡，应该如何修改呢？\n",
            "the text names the A40: compute capability 8.6, not the A100's 8.0 (sm_80)",
        ),
    ]:
        lead = _led_by(text, "sdpa.flash_backward_needs_sm80")
        assert gpu is None or gpu in lead.evidence, lead.evidence
        assert "ran only on the A100's architecture (sm_80)" in lead.cause, lead.cause
        assert lead.fix.text.startswith("Upgrade torch to 2.0.1 or newer"), lead.fix
        assert "torch.backends.cuda.enable_flash_sdp(False)" in lead.fix.text, lead.fix
    # the GPU of pytorch/pytorch#94883's description, a workstation A-number: the RTX A6000
    said = "I'm running Karpathy's nanoGPT code on an NVIDIA A6000 system via Docker:"
    assert install_explanations._capability_named(said) == (
        (8, 6),
        "the text names the A6000 (the RTX A6000)",
    )


def test_a_link_against_libtorch_of_the_other_cxx_abi_is_read_from_its_undefined_references() -> None:
    # GCC's two std::string ABIs: the linker looks for std::__cxx11::basic_string (caller built with the
    # C++11 ABI) or a plain std::string (the old one). openmm/openmm-torch#63 (torch's flags forced the old
    # ABI on code linking a new-ABI OpenMM), hasktorch/ffi-experimental#3 (merged: the flag set to match the
    # prebuilt libtorch), pytorch/pytorch#35518 (the build linked once the forced ABI was dropped)
    openmm = (
        "Commands for compiling Opemm-torch\n"
        "```\n"
        "export Torch_DIR=\"$(python -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')\"\n"
        "cmake  ..\n"
        "ccmake -i ..\n"
        "make install\n"
        "```\n"
        "Error:\n"
        "```\n"
        "[ 36%] Linking CXX executable ../../TestSerializeTorchForce\n"
        "CMakeFiles/TestSerializeTorchForce.dir/TestSerializeTorchForce.cpp.o: In function "
        "`testSerialization()':\n"
        + "".join(
            f"TestSerializeTorchForce.cpp:(.text+0x{offset}): undefined reference to "
            "`OpenMM::throwException(char const*, int, std::string const&)'\n"
            for offset in ("35a", "447", "534", "665")
        )
    )
    hasktorch = (
        "Building executable 'ffi-test' for ffi-0.1.0.0..\n"
        "Linking /home/junji-hashimoto/git/hasktorch/ffi-experimental/dist-newstyle/build/x86_64-linux/"
        "ghc-8.4.4/ffi-0.1.0.0/x/ffi-test/build/ffi-test/ffi-test ...\n"
        "cc1: warning: command line option ‘-std=c++14’ is valid for C++/ObjC++ but not for C\n"
        "/home/junji-hashimoto/git/hasktorch/ffi-experimental/dist-newstyle/build/x86_64-linux/ghc-8.4.4/"
        "ffi-0.1.0.0/x/ffi-test/build/ffi-test/ffi-test-tmp/Main.o:ghc_4.cpp:function inline_c_Main_0: "
        "error: undefined reference to 'c10::Symbol::fromQualString(std::__cxx11::basic_string<char, "
        "std::char_traits<char>, std::allocator<char> > const&)'\n"
    )
    infer = (
        "CMakeFiles/infer_test.dir/infer_test.cpp.o: In function `at::cat(c10::ArrayRef<at::Tensor>, long) "
        "[clone .constprop.371]':\n"
        "infer_test.cpp:(.text+0x981): undefined reference to `c10::Error::Error(c10::SourceLocation, "
        "std::string const&)'\n"
        "CMakeFiles/infer_test.dir/infer_test.cpp.o: In function `TestTorchInfer(std::string const&, "
        "std::string const&, std::string const&, int, int, int, std::string const&)':\n"
    )
    for text, caller in [
        (openmm, "pre-C++11 ABI (_GLIBCXX_USE_CXX11_ABI=0)"),
        (hasktorch, "C++11 ABI (_GLIBCXX_USE_CXX11_ABI=1)"),
        (infer, "pre-C++11 ABI (_GLIBCXX_USE_CXX11_ABI=0)"),
    ]:
        lead = _led_by(text, "build.libtorch_abi_mismatch")
        assert f"it was compiled with the {caller}" in lead.evidence[0], lead.evidence
        assert "libtorch comes in both ABIs" in lead.cause, lead.cause
        assert "libtorch-cxx11-abi-shared-with-deps" in lead.fix.text, lead.fix
    assert lead.evidence[0].startswith(
        "the program asks for c10::Error::Error(c10::SourceLocation, std::string const&) with the old "
        "std::string"
    )
    # a link error of another library, with no libtorch in the text, is not this one (constructed)
    plain = (
        "main.cpp:(.text+0x1f): undefined reference to `yaml::load(std::__cxx11::basic_string<char> const&)'"
    )
    assert all(found.id != "build.libtorch_abi_mismatch" for found in _explained(plain))


def test_a_package_installed_under_another_pip_name_is_reinstalled_under_that_name() -> None:
    # fast_transformers is pip's pytorch-fast-transformers: its compiled module missing a torch symbol is
    # rebuilt under that name (constructed from the message form of the undefined-symbol tests above)
    lead = _led_by(
        "ImportError: /usr/lib/python3.8/site-packages/fast_transformers/causal_product/causal_product_cuda."
        "cpython-38-x86_64-linux-gnu.so: undefined symbol: _ZN3c104cuda20CUDACachingAllocator9allocatorE",
        "lib.undefined_symbol",
    )
    assert "pip install pytorch-fast-transformers --no-build-isolation" in lead.fix.text, lead.fix
    # the package named as pip knows it, in the cause and the fix
    assert "The pytorch-fast-transformers (fast_transformers) build does not match" in lead.cause, lead.cause
    assert lead.fix.text.startswith("Rebuild pytorch-fast-transformers against the installed torch"), lead.fix


def test_backward_through_a_cudnn_rnn_in_eval_mode_is_told_to_put_it_in_training_mode() -> None:
    # cuDNN's RNN backward refuses eval mode: saliency and adversarial gradients through an LSTM after
    # model.eval(), or training resumed after an evaluation that left the model in eval mode.
    # meta-pytorch/captum#328 (cudnn off: "that worked"), wiseodd/controlled-text-generation#24 (model.train()
    # after sampling), Eric-Wallace/universal-triggers#1 (model.train() before the gradient step)
    captum = "cudnn RNN backward can only be called in training mode"
    texts = [
        captum,
        (
            "Traceback (most recent call last):\n"
            '  File "train_discriminator.py", line 172, in <module>\n'
            "    main()\n"
            '  File "train_discriminator.py", line 140, in main\n'
            "    loss_G.backward()\n"
            '  File "/remote-home/yrchen/anaconda3/envs/py37_cuda8/lib/python3.7/site-packages/torch/tensor.p'
            'y", line 102, in backward\n'
            "    torch.autograd.backward(self, gradient, retain_graph, create_graph)\n"
            '  File "/remote-home/yrchen/anaconda3/envs/py37_cuda8/lib/python3.7/site-packages/torch/autograd'
            '/__init__.py", line 90, in backward\n'
            "    allow_unreachable=True)  # allow_unreachable flag\n"
            "RuntimeError: cudnn RNN backward can only be called in training mode"
        ),
        (
            "Traceback (most recent call last):\n"
            '  File "sst.py", line 184, in <module>\n'
            "    main()\n"
            '  File "sst.py", line 155, in main\n'
            "    averaged_grad = utils.get_average_grad(model, batch, trigger_token_ids)\n"
            '  File "../utils.py", line 84, in get_average_grad\n'
            "    loss.backward()\n"
            '  File "/anaconda3/envs/triggers/lib/python3.6/site-packages/torch/tensor.py", line 102, in '
            "backward\n"
            "    torch.autograd.backward(self, gradient, retain_graph, create_graph)\n"
            '  File "/anaconda3/envs/triggers/lib/python3.6/site-packages/torch/autograd/__init__.py", line '
            "90, in backward\n"
            "    allow_unreachable=True)  # allow_unreachable flag\n"
            "RuntimeError: cudnn RNN backward can only be called in training mode"
        ),
    ]
    for text in texts:
        lead = _led_by(text, "rnn.backward_in_eval_mode")
        assert "eval mode" in lead.cause, lead.cause
        assert "model.train()" in lead.fix.text, lead.fix
        assert "torch.backends.cudnn.flags(enabled=False)" in lead.fix.text, lead.fix
    # where the traceback shows it, the backward's own line
    led = _led_by(texts[1], "rnn.backward_in_eval_mode")
    assert any(
        "train_discriminator.py, line 140 (in main): loss_G.backward()" in line for line in led.evidence
    ), led.evidence


def test_a_cuda_tensor_shared_with_another_process_on_windows_is_told_windows_has_no_cuda_ipc() -> None:
    # Windows has no CUDA IPC: StorageSharing.cpp fails with 801 (torch 0.4: "OS call failed or operation not
    # supported"). pytorch/pytorch#13117 (a Dataset returning CUDA tensors with num_workers=4),
    # ECMWFCode4Earth/wildfire-forecasting#28 (merged: num_workers=0 on Windows), matjesg/deepflash2#10
    # (num_workers=0), fastai/fastbook#85 (num_workers=0 in every DataLoaders)
    for text in [
        (
            "OS call failed or operation not supported on this OS at "
            "c:\\programdata\\miniconda3\\conda-bld\\pytorch_1524549877902\\work\\torch\\csrc\\generic\\Stora"
            "geSharing.cpp:253"
        ),
        (
            "RuntimeError: cuda runtime error (801) : operation not supported at "
            "..\\torch/csrc/generic/StorageSharing.cpp:247"
        ),
        (
            "RuntimeError: cuda runtime error (801) : operation not supported at "
            "..\\torch/csrc/generic/StorageSharing.cpp:247"
        ),
        (
            "RuntimeError: cuda runtime error (801) : operation not supported at "
            "C:\\w\\1\\s\\windows\\pytorch\\torch/csrc/generic/StorageSharing.cpp:245"
        ),
    ]:
        lead = _led_by(text, "multiprocessing.cuda_ipc_on_windows")
        assert "Windows" in lead.cause and "CUDA IPC" in lead.cause, lead.cause
        assert "num_workers=0" in lead.fix.text, lead.fix
        assert any("StorageSharing.cpp" in line for line in lead.evidence), lead.evidence
    assert any("error 801" in line for line in lead.evidence), lead.evidence
    # how the tensor crossed, where the traceback shows it (constructed: the message with a frame of each)
    crossings = {
        '  File "lib\\site-packages\\torch\\utils\\data\\dataloader.py", line 355, in __iter__': (
            "DataLoader's worker"
        ),
        '  File "lib\\multiprocessing\\popen_spawn_win32.py", line 93, in __init__': "a process is started",
    }
    for frame, said in crossings.items():
        lead = _led_by(
            f"{frame}\nRuntimeError: cuda runtime error (801) : operation not supported at "
            "..\\torch/csrc/generic/StorageSharing.cpp:247",
            "multiprocessing.cuda_ipc_on_windows",
        )
        assert any(said in line for line in lead.evidence), lead.evidence


def test_nvdiffrasts_opengl_rasterizer_without_egl_is_told_to_use_the_cuda_rasterizer() -> None:
    # nvdiffrast's RasterizeGLContext needs EGL and OpenGL-CUDA interop: a headless server, a container
    # without the driver's graphics libraries, WSL2. dreamgaussian/dreamgaussian#87 (force_cuda_rast),
    # l1346792580123/FastHuman#4 and MrForExample/ComfyUI-3D-Pack#449 (RasterizeCudaContext),
    # threestudio-project/threestudio#231 (context_type=cuda)
    for text, call in [
        (
            ("[INFO] unwrap uv...\n[F glutil.cpp:338] eglInitialize() failed\nAborted (core dumped)"),
            "eglInitialize() failed at glutil.cpp:338",
        ),
        (
            (
                "[F glutil.cpp:338] eglInitialize() failed\n"
                "run.sh: line 2:  4771 Aborted                 (core dumped) python ncc_optim.py --conf "
                "confs/nhr_ncc.conf --scan_id 10"
            ),
            "eglInitialize() failed at glutil.cpp:338",
        ),
        ("[F glutil.cpp:332] eglGetDisplay() failed", "eglGetDisplay() failed at glutil.cpp:332"),
        ("eglInitialize() failed", "eglInitialize() failed"),
    ]:
        lead = _led_by(text, "nvdiffrast.egl_unavailable")
        assert "RasterizeGLContext" in lead.cause, lead.cause
        assert "dr.RasterizeCudaContext()" in lead.fix.text, lead.fix
        assert any(call in line for line in lead.evidence), lead.evidence


def test_a_cpu_tensor_indexed_with_gpu_indices_is_told_which_side_to_move() -> None:
    # torch 1.13 on refuses indices on another device than the indexed tensor, other than the CPU (before, it
    # copied them silently): pytorch/pytorch#90194 (the change, BC-breaking), cxliu0/PET#4 (v_idx.cpu()),
    # Lineves7/EMNet#1 (a plain attribute moved with .cuda()), ali-vilab/VGen#14 (a diffusion schedule kept on
    # the CPU, indexed with GPU timesteps)
    for text in [
        "RuntimeError: indices should be either on cpu or on the same device as the indexed tensor (cpu)",
        "RuntimeError: indices should be either on cpu or on the same device as the indexed tensor (cpu)",
        (
            "Traceback (most recent call last):\n"
            '  File "/MachineLearning/model/EMNet/test.py", line 151, in <module>\n'
            "    main()\n"
            '  File "/MachineLearning/model/EMNet/test.py", line 78, in main\n'
            "    top1_feature, _ = model_restoration_mem.topk_feature(query, args.testing_top_k)()\n"
            '  File "/MachineLearning/model/EMNet/Model/emnet_memory.py", line 89, in topk_feature\n'
            "    topk_idx = torch.cat([torch.unsqueeze(self.top_index[topk_index[i]], dim = 0) for i in "
            "range(_bs)], dim = 0)\n"
            '  File "/MachineLearning/model/EMNet/Model/emnet_memory.py", line 89, in <listcomp>\n'
            "    topk_idx = torch.cat([torch.unsqueeze(self.top_index[topk_index[i]], dim = 0) for i in "
            "range(_bs)], dim = 0)\n"
            "RuntimeError: indices should be either on cpu or on the same device as the indexed tensor (cpu)"
        ),
        (
            '  File "/ldm_ani/i2vgen-xl/tools/modules/diffusions/diffusion_ddim.py", line 13, in _i\n'
            "    return tensor[t].view(shape).to(x)\n"
            "RuntimeError: indices should be either on cpu or on the same device as the indexed tensor (cpu)"
        ),
    ]:
        lead = _led_by(text, "tensors.different_devices")
        assert "indexed with indices on the GPU" in lead.cause, lead.cause
        assert "t[idx.cpu()]" in lead.fix.text and "register_buffer" in lead.fix.text, lead.fix
        assert "the indexed tensor is on cpu" in lead.evidence[0], lead.evidence
        if "EMNet" in text:
            lead_of_emnet = lead
    # the program's line where it indexes, where the traceback shows it
    assert any("self.top_index[topk_index[i]]" in line for line in lead_of_emnet.evidence), (
        lead_of_emnet.evidence
    )


def test_tensors_on_different_devices_told_in_the_writers_words_are_read_as_such() -> None:
    # no torch message in the text, the writer's own words: monniert/differentiable-blocksworld#2 ("Cpu and
    # Cuda device mismatch error"), spdlearn/spd_learn#16 ("device mismatch errors when running models on
    # GPU"), vllm-project/compressed-tensors#190 ("tensors in different devices"),
    # Project-MONAI/GenerativeModels#371 ("will raise a device mismatch error")
    for text in [
        (
            "# Cpu and Cuda device mismatch error\n"
            "\n"
            "louhz · description · 2023-07-13\n"
            "So in the line 422 in dbw.py\n"
            "I notice that you define a val_blocks which is on cpu and the self.get_opacities() is on the "
            "gpu\n"
            "so there will be a error raised \n"
            "My personal solution is to revise the line 422 from val_blocks = torch.linspace(0, 1, "
            "self.n_blocks + 1)[1:]\n"
            "to\n"
            "val_blocks = torch.linspace(0, 1, self.n_blocks + 1)[1:].to(self.bkg.device)\n"
            "\n"
            "and line 429 from values = torch.cat([torch.zeros(NFE) , "
            "val_blocks.repeat_interleave(self.BNF)])\n"
            "\n"
            "to\n"
            "values = torch.cat([torch.zeros(NFE).to(self.bkg.device) , "
            "val_blocks.repeat_interleave(self.BNF)])\n"
            "\n"
            "and the problem is solved\n"
            "\n"
            "i am not sure whether this is a common issue or just happened on my device \n"
            "so just remark it here."
        ),
        (
            "# Fix CUDA device mismatch in WaveletConv and ledoit_wolf\n"
            "\n"
            "timnaher · description · 2026-03-02\n"
            "just 2 lines to change to I just opened a PR instead of an issue, hope thats okay!\n"
            "\n"
            "Got this following device mismatch errors when running models on GPU:\n"
            "\n"
            "WaveletConv.forward returns output hardcoded to `self.device` (which defaults to CPU), ignoring "
            "the input tensor's actual device. Fixed by using `X.device` instead.\n"
            "`ledoit_wolf` doesn't coerce shrink_mat to the input device/dtype, causing a mismatch when "
            "covariances are on gpu. Fixed by adding `.to(device=covariances.device, "
            "dtype=covariances.dtype)`."
        ),
        (
            "# Fix device allocation for MSE observer\n"
            "\n"
            "anmarques · description · 2024-10-15\n"
            "This PR fixes the pre-allocation of a few tensors used in the MSE observer. The original "
            "allocation did not specify the device, which ended up leading to failures due to computation "
            "with tensors in different devices."
        ),
        (
            "# Fix CUDA device mismatch\n"
            "\n"
            "ycremar · description · 2023-04-10\n"
            'When using GPU devices other than "cuda" or "cuda:0", calling the loss will raise a device '
            "mismatch error. The change makes the devices for zero or target tensors consistent with inputs."
        ),
    ]:
        lead = _led_by(text, "tensors.different_devices")
        assert "model.to(device)" in lead.fix.text, lead.fix


def test_a_missing_libpython_is_told_to_put_the_environments_lib_folder_on_the_loaders_path() -> None:
    # the Python shared library a compiled module links (Isaac Gym's bindings, torch built against a
    # shared Python): pytorch/pytorch#997 (a Python built without --enable-shared),
    # silvery107/rl-mpc-locomotion#19 (legged_gym's README: apt install libpython3.8, or LD_LIBRARY_PATH to
    # the conda env's lib),
    # ami-iit/ami-commons#16 (merged: LD_LIBRARY_PATH=$CONDA_PREFIX/lib for the IsaacGym env)
    for text, library in [
        (
            (
                "Traceback (most recent call last):\n"
                '  File "main.py", line 3, in <module>\n'
                "    import torch\n"
                '  File "/home/peter/python36/lib/python3.6/site-packages/torch/__init__.py", line 53, in '
                "<module>\n"
                "    from torch._C import *\n"
                "ImportError: libpython3.6m.so.1.0: cannot open shared object file: No such file or directory"
            ),
            "libpython3.6m.so.1.0",
        ),
        (
            "ImportError: libpython3.8.so.1.0: cannot open shared object file: No such file or directory",
            "libpython3.8.so.1.0",
        ),
        (
            "+ImportError: libpython3.7m.so.1.0: cannot open shared object file: No such file or directory",
            "libpython3.7m.so.1.0",
        ),
    ]:
        lead = _led_by(text, "lib.cannot_open_shared_object")
        assert "Python shared library" in lead.cause, lead.cause
        assert "$CONDA_PREFIX/lib" in lead.fix.text and "--enable-shared" in lead.fix.text, lead.fix
        assert "reinstall" not in lead.fix.text.lower(), lead.fix
        assert f"missing: {library}" in lead.evidence, lead.evidence


def test_a_quantized_model_moved_is_read_in_every_wording_and_the_mover_named() -> None:
    # transformers' refusal in its wordings: "for `4-bit` or `8-bit` models" (huggingface/transformers#24540:
    # Trainer moved a 4-bit model; merged fixes in transformers #24444 and accelerate #1652), "... quantized
    # models" for cuda() (nuprl/MultiPL-E#137: the program's own .cuda()), "... bitsandbytes models"
    # (bytedance/Sa2VA#73)
    trainer = (
        "Traceback (most recent call last):\n"
        '  File "train1.py", line 124, in <module>\n'
        "    trainer = SFTTrainer(\n"
        '  File "/usr/local/lib/python3.8/dist-packages/trl/trainer/sft_trainer.py", line 212, in __init__\n'
        "    super().__init__(\n"
        '  File "/usr/local/lib/python3.8/dist-packages/transformers/trainer.py", line 499, in __init__\n'
        "    self._move_model_to_device(model, args.device)\n"
        '  File "/usr/local/lib/python3.8/dist-packages/transformers/trainer.py", line 741, in '
        "_move_model_to_device\n"
        "    model = model.to(device)\n"
        '  File "/usr/local/lib/python3.8/dist-packages/transformers/modeling_utils.py", line 1886, in to\n'
        "    raise ValueError(\n"
        "ValueError: `.to` is not supported for `4-bit` or `8-bit` models. Please use the model as it is, "
        "since the model has already been set to the correct devices and casted to the correct `dtype`"
    )
    lead = _led_by(trainer, "bitsandbytes.quantized_model_moved")
    assert any(
        "transformers moves the model, not the program" in line and "model = model.to(device)" in line
        for line in lead.evidence
    ), lead.evidence
    assert "upgrade" in lead.fix.text.lower(), lead.fix
    multipl_e = (
        "You shouldn't move a model that is dispatched using accelerate hooks.\n"
        "Traceback (most recent call last):\n"
        '  File "/content/MultiPL-E/automodel.py", line 179, in <module>\n'
        "    main()\n"
        '  File "/content/MultiPL-E/automodel.py", line 168, in main\n'
        "    model = Model(\n"
        '  File "/content/MultiPL-E/automodel.py", line 16, in __init__\n'
        "    ).cuda()\n"
        '  File "/usr/local/lib/python3.10/dist-packages/accelerate/big_modeling.py", line 454, in wrapper\n'
        "    return fn(*args, **kwargs)\n"
        '  File "/usr/local/lib/python3.10/dist-packages/transformers/modeling_utils.py", line 2543, in '
        "cuda\n"
        "    raise ValueError(\n"
        "ValueError: Calling `cuda()` is not supported for `4-bit` or `8-bit` quantized models. Please use "
        "the model as it is, since the model has already been set to the correct devices and casted to the "
        "correct `dtype`."
    )
    lead = _led_by(multipl_e, "bitsandbytes.quantized_model_moved")
    assert any(
        "the program moves the model at /content/MultiPL-E/automodel.py, line 16" in line
        for line in lead.evidence
    )
    _led_by(
        (
            "ValueError: `.to` is not supported for `4-bit` or `8-bit` bitsandbytes models. Please use "
            "the model as it is, since the model has already been set to the correct devices and casted "
            "to the correct `dtype`."
        ),
        "bitsandbytes.quantized_model_moved",
    )
    # an earlier wording named 8-bit alone (constructed from the wordings above)
    older = "ValueError: `.to` is not supported for `8-bit` models. Please use the model as it is"
    _led_by(older, "bitsandbytes.quantized_model_moved")


def test_a_package_imported_from_its_source_folder_is_told_to_run_elsewhere_or_build_in_place() -> None:
    # the compiled part missing where the traceback shows the package's files outside site-packages: a source
    # checkout in the current directory or on PYTHONPATH shadows the installed build. pytorch/pytorch#1633
    # (import torch inside the pytorch checkout; "cd test" fixed it), open-mmlab/mmcv#73 (mmcv installed with
    # pip install ., the checkout on PYTHONPATH imported)
    for text, package, folder in [
        (
            (
                ">>> import torch\n"
                "Traceback (most recent call last):\n"
                '  File "<stdin>", line 1, in <module>\n'
                '  File "/home/dusty/workspace/jetson-reinforcement/build/pytorch/torch/__init__.py", '
                "line 55, in <module>\n"
                "    __all__ += [name for name in dir(_C)\n"
                "NameError: name '_C' is not defined"
            ),
            "torch",
            "/home/dusty/workspace/jetson-reinforcement/build/pytorch",
        ),
        (
            (
                "Traceback (most recent call last):\n"
                '  File "<stdin>", line 1, in <module>\n'
                '  File "/home/xgf/mmcv/mmcv/__init__.py", line 7, in <module>\n'
                "    from .video import *\n"
                '  File "/home/xgf/mmcv/mmcv/video/__init__.py", line 3, in <module>\n'
                "    from .optflow import (flowread, flowwrite, quantize_flow,\n"
                '  File "/home/xgf/mmcv/mmcv/video/optflow.py", line 6, in <module>\n'
                "    from mmcv._ext import flow_warp_c\n"
                "ModuleNotFoundError: No module named 'mmcv._ext'"
            ),
            "mmcv",
            "/home/xgf/mmcv",
        ),
    ]:
        lead = _led_by(text, "extension.not_built")
        assert f"{package} is imported from the folder {folder}" in lead.evidence[0], lead.evidence
        assert "shadows" in lead.cause, lead.cause
        assert "another directory" in lead.fix.text and "pip install -e ." in lead.fix.text, lead.fix
    # where the text shows no path (detectron2/detectron2#157's line as typed), the build is what is told
    typed = '"from detectron2 import _C"   Importerror: cannot import name \'_C\' "'
    lead = _led_by(typed, "extension.not_built")
    assert "shadows" not in lead.cause, lead.cause
    # an installed package's frames are no source folder (constructed)
    installed = (
        'File "/usr/lib/python3/site-packages/mmcv/video/optflow.py", line 6, in <module>\n'
        "    from mmcv._ext import flow_warp_c\n"
        "ModuleNotFoundError: No module named 'mmcv._ext'"
    )
    assert "shadows" not in _led_by(installed, "extension.not_built").cause
    # nor is a library's own folder named torch (constructed)
    vendored = (
        'File "/home/u/castle/algorithms/gradient/rl/torch/ops.py", line 3, in <module>\n'
        "    from . import _C\n"
        "NameError: name '_C' is not defined"
    )
    assert "shadows" not in _led_by(vendored, "extension.not_built").cause


def test_torch_without_its_compiled_core_is_told_where_it_was_imported_from() -> None:
    # torch's own check in torch/__init__.py: torch._C resolved to the stub folder. pytorch/pytorch#48578 (a
    # checkout at /home/wangsen/pytorch), voicepaw/so-vits-svc-fork#439 (a venv's site-packages on Windows);
    # the cause from torch's source and the settled older forms (pytorch/pytorch#1633, #4622, #574)
    checkout = (
        "Traceback (most recent call last):\n"
        '  File "<stdin>", line 1, in <module>\n'
        '  File "/home/wangsen/pytorch/torch/__init__.py", line 207, in <module>\n'
        "    raise ImportError(textwrap.dedent('''\n"
        "ImportError: Failed to load PyTorch C extensions:\n"
        "    It appears that PyTorch has loaded the `torch/_C` folder\n"
        "    of the PyTorch repository rather than the C extensions which\n"
        "    are expected in the `torch._C` namespace. This can occur when\n"
        "    using the `install` workflow. e.g.\n"
        '        $ python setup.py install && python -c "import torch"'
    )
    lead = _led_by(checkout, "torch.compiled_core_missing")
    assert "torch is imported from /home/wangsen/pytorch, not from site-packages" in lead.evidence[0]
    assert "another directory than /home/wangsen/pytorch" in lead.fix.text, lead.fix
    installed = (
        "(venv) C:\\Users\\hp>svcg\n"
        "Traceback (most recent call last):\n"
        '  File "C:\\Program Files\\Python310\\lib\\runpy.py", line 196, in _run_module_as_main\n'
        "    return _run_code(code, main_globals, None,\n"
        '  File "C:\\Program Files\\Python310\\lib\\runpy.py", line 86, in _run_code\n'
        "    exec(code, run_globals)\n"
        '  File "C:\\Users\\hp\\venv\\Scripts\\svcg.exe\\__main__.py", line 4, in <module>\n'
        '  File "C:\\Users\\hp\\venv\\lib\\site-packages\\so_vits_svc_fork\\gui.py", line 12, in <module>\n'
        "    import torch\n"
        '  File "C:\\Users\\hp\\venv\\lib\\site-packages\\torch\\__init__.py", line 443, in <module>\n'
        "    raise ImportError(textwrap.dedent('''\n"
        "ImportError: Failed to load PyTorch C extensions:\n"
        "    It appears that PyTorch has loaded the `torch/_C` folder\n"
        "    of the PyTorch repository rather than the C extensions which\n"
        "    are expected in the `torch._C` namespace. This can occur when\n"
        "    using the `install` workflow. e.g."
    )
    lead = _led_by(installed, "torch.compiled_core_missing")
    assert "an installed torch without its compiled _C" in lead.evidence[0], lead.evidence
    assert "--force-reinstall --no-cache-dir torch" in lead.fix.text, lead.fix


def test_an_ops_unnamed_is_cuda_check_is_read_as_a_cpu_tensor_given_to_a_cuda_op() -> None:
    # TORCH_CHECK(u.is_cuda()) without a message of its own (mamba_ssm's selective scan, causal-conv1d):
    # MzeroMiko/VMamba#13 and txchen-USTC/MiM-ISTD#7 (the data was not on the GPU; moved, solved),
    # Zyphra/transformers_zamba2#2 (a CPU run of a model whose kernels are CUDA only, the maintainer's answer)
    vmamba = (
        '`File "/home/frank/anaconda3/envs/Jay/lib/python3.10/site-packages/mamba_ssm/ops/selective_scan_'
        'interface.py", line 37, in forward`\n'
        "`    out, x, *rest = selective_scan_cuda.fwd(u, delta, A, B, C, D, z, delta_bias, "
        "delta_softplus)`\n"
        "`RuntimeError: Expected u.is_cuda() to be true, but got false.  (Could this error message be "
        "improved?  If so, please report an enhancement request to PyTorch.)`"
    )
    mim = (
        'File "/tmp/pycharm_project_329/mim_network.py", line 183, in forward_corev0\n'
        "    out_y = self.selective_scan(\n"
        '  File "/home/rkj/.conda/envs/MiM-ISTD/lib/python3.8/site-packages/mamba_ssm/ops/selective_scan_'
        'interface.py", line 83, in selective_scan_fn\n'
        "    return SelectiveScanFn.apply(u, delta, A, B, C, D, z, delta_bias, delta_softplus, "
        "return_last_state)\n"
        '  File "/home/rkj/.conda/envs/MiM-ISTD/lib/python3.8/site-packages/mamba_ssm/ops/selective_scan_'
        'interface.py", line 37, in forward\n'
        "    out, x, *rest = selective_scan_cuda.fwd(u, delta, A, B, C, D, z, delta_bias, "
        "delta_softplus)\n"
        "RuntimeError: Expected u.is_cuda() to be true, but got false.  (Could this error message be "
        "improved?  If so, please report an enhancement request to PyTorch.)"
    )
    zamba = (
        '  File "virtual_envs/neural_asr_training/lib/python3.10/site-packages/causal_conv1d/causal_conv1'
        'd_interface.py", line 57, in forward\n'
        "    out = causal_conv1d_cuda.causal_conv1d_fwd(\n"
        "RuntimeError: Expected x.is_cuda() to be true, but got false.  (Could this error message be "
        "improved?  If so, please report an enhancement request to PyTorch.)"
    )
    for text, name in ((vmamba, "u"), (mim, "u"), (zamba, "x")):
        lead = _led_by(text, "extension.cuda_tensor_expected")
        assert lead.evidence == (f"the op's check names {name}: it is on the CPU",), lead.evidence
        assert "Move the model and every input of that op to the GPU" in lead.fix.text


def test_a_no_gpu_message_raised_by_the_programs_own_cuda_call_names_the_call_and_to_device() -> None:
    # The program's hard-coded .cuda() on a machine without an NVIDIA GPU: shubhtuls/factored3d#5 (the
    # maintainer: take the .cuda() calls out), upseem/comfyui_sunxAI_facetools#3 (.to(device) in its place, a
    # CPU-only torch on a Mac), ShuweiShao/AF-SfMLearner#39 (the writer names encoder.cuda(); the maintainer:
    # remove the .cuda() calls)
    factored3d = (
        "Traceback (most recent call last):\n"
        '  File "cli_demo.py", line 32, in <module>\n'
        "    tester.init_testing()\n"
        '  File "/home/jelly/factored3d/../factored3d/nnutils/test_utils.py", line 97, in init_testing\n'
        "    self.define_model()\n"
        '  File "/home/jelly/factored3d/../factored3d/demo/demo_utils.py", line 131, in define_model\n'
        "    self.load_oc3d_model()\n"
        '  File "/home/jelly/factored3d/../factored3d/demo/demo_utils.py", line 91, in load_oc3d_model\n'
        "    self.oc3d_model = self.oc3d_model.cuda(device_id=self.opts.gpu_id)\n"
        ".\n"
        ".\n"
        ".\n"
        "AssertionError: \n"
        "Found no NVIDIA driver on your system. Please check that you\n"
        "have an NVIDIA GPU and installed a driver from\n"
        "http://www.nvidia.com/Download/index.aspx"
    )
    lead = _led_by(factored3d, "cuda.no_driver")
    assert lead.evidence == (
        "the program calls CUDA at /home/jelly/factored3d/../factored3d/demo/demo_utils.py, line 91 (in "
        "load_oc3d_model): self.oc3d_model = self.oc3d_model.cuda(device_id=self.opts.gpu_id)",
    ), lead.evidence
    assert "without asking whether there is a GPU" in lead.cause, lead.cause
    assert "replace .cuda() with .to(device)" in lead.fix.text
    assert "install the NVIDIA driver" in lead.fix.text
    facetools = (
        '  File "/Users/zhanyingcao/Documents/ComfyUI/custom_nodes/comfyui_sunxAI_facetools/utils.py", '
        "line 335, in mask_jonathandinu\n"
        "    face_part_ids = torch.tensor(keep).cuda()\n"
        "                    ^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        '  File "/Users/zhanyingcao/Documents/ComfyUI/.venv/lib/python3.12/site-packages/torch/cuda/__ini'
        't__.py", line 403, in _lazy_init\n'
        '    raise AssertionError("Torch not compiled with CUDA enabled")\n'
        "AssertionError: Torch not compiled with CUDA enabled"
    )
    lead = _led_by(facetools, "torch.not_compiled_with_cuda")
    assert "face_part_ids = torch.tensor(keep).cuda()" in lead.evidence[-1], lead.evidence
    assert ".to(device) in place of its .cuda() calls" in lead.fix.text
    sfm = (
        "您好，我正在使用Endovis or SCARED进行evaluation，"
        "在evaluate_depth.py的evaluate(options.parse())和encoder.cuda("
        ")出现了报错信息：RuntimeError: Found no NVIDIA driver on your system. Please check that you have an "
        "NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx"
    )
    lead = _led_by(sfm, "cuda.no_driver")
    assert lead.evidence == ("the writer names the call that failed: encoder.cuda()",), lead.evidence
    assert "replace .cuda() with .to(device)" in lead.fix.text
    # an NVIDIA GPU named beside it: the driver is what to fix (constructed)
    with_gpu = "I have an RTX 3090.\n" + factored3d
    assert "without asking" not in _led_by(with_gpu, "cuda.no_driver").cause


def test_an_opengl_renderer_on_a_headless_machine_is_told_to_render_offscreen() -> None:
    # pyrender, pyglet and PyOpenGL with no display: nkolot/SPIN#64 (the maintainer: OSMesa or EGL as
    # pyrender's platform), vision-x-nyu/image-sculpting#5 (pyrender's EGL found no device; osmesa worked,
    # another user confirming), google-deepmind/dm_control#129 (PyOpenGL left on GLX; solved with one platform
    # for MUJOCO_GL and PYOPENGL_PLATFORM)
    spin = (
        "> ValueError: Failed to initialize Pyglet window with an OpenGL >= 3+ context. If you're logged "
        "in via SSH, ensure that you're running your script with vglrun (i.e. VirtualGL). The internal "
        'error message was ""'
    )
    sculpting = (
        'lib/python3.10/site-packages/pyrender/platforms/egl.py", line 84, in get_device_by_index\n'
        "    raise ValueError('Invalid device ID ({})'.format(device_id, len(devices)))\n"
        "                                                     │              └ []\n"
        "                                                     └ 0\n"
        "\n"
        "ValueError: Invalid device ID (0)"
    )
    dm_control = "        AttributeError: 'GLXPlatform' object has no attribute 'EGL'"
    for text, seen in (
        (spin, "pyrender could not open a pyglet window"),
        (sculpting, "pyrender's EGL platform found no EGL device"),
        (dm_control, "PyOpenGL runs on GLX"),
    ):
        lead = _led_by(text, "opengl.no_display")
        assert seen in lead.evidence[0], lead.evidence
        assert "headless" in lead.cause
        assert "PYOPENGL_PLATFORM=egl" in lead.fix.text and "xvfb-run" in lead.fix.text
    # pyglet's own exception, as MotionGPT's demo printed it (constructed around the message)
    pyglet = (
        "    raise NoSuchDisplayException(f'Cannot connect to \"{name}\"')\n"
        'pyglet.canvas.xlib.NoSuchDisplayException: Cannot connect to "None"'
    )
    lead = _led_by(pyglet, "opengl.no_display")
    assert 'Cannot connect to "None": DISPLAY is not set' in lead.evidence[0], lead.evidence


def test_a_jit_build_that_hangs_at_torchs_own_lines_is_read_as_a_stale_lock() -> None:
    # torch.utils.cpp_extension's FileBaton waits forever on a lock file an interrupted build left:
    # NVlabs/nvdiffrec#39 (the lock warning, then "Using ... as PyTorch extensions root...": the maintainer,
    # delete the lock file), MCG-NJU/SparseOcc#40 ("stuck at Loading extension module dvr...": rm -rf
    # ~/.cache/torch_extensions, another user); the mechanism: pytorch/pytorch#189245
    nvdiffrec = (
        "DatasetNERF: 100 images with shape [800, 800]\n"
        "DatasetNERF: 200 images with shape [800, 800]\n"
        "Encoder output: 32 dims\n"
        "Warning: Lock file exists in build directory: 'C:\\Users\\AppData\\Local\\torch_extensions\\torc"
        "h_extensions\\Cache\\py39_cu113\\renderutils_plugin\\lock'\n"
        "Using C:\\Users\\AppData\\Local\\torch_extensions\\torch_extensions\\Cache\\py39_cu113 as "
        "PyTorch extensions root..."
    )
    lead = _led_by(nvdiffrec, "extension.build_failed")
    assert "left its lock file" in lead.cause, lead.cause
    assert any("renderutils_plugin\\lock" in line for line in lead.evidence), lead.evidence
    assert "Remove the lock file" in lead.fix.text, lead.fix
    sparseocc = (
        "Using /home/gyh/.cache/torch_extensions/py38_cu118 as PyTorch extensions root...\n"
        "Detected CUDA files, patching ldflags\n"
        "Emitting ninja build file /home/gyh/.cache/torch_extensions/py38_cu118/dvr/build.ninja...\n"
        "Building extension module dvr...\n"
        "Allowing ninja to set a default number of workers... (overridable by setting the environment "
        "variable MAX_JOBS=N)\n"
        "ninja: no work to do.\n"
        "Loading extension module dvr..."
    )
    # the thread's title says where it stops; the log alone ends at torch's loading line
    lead = _led_by("有时候会卡在Loading extension module dvr...\n\n" + sparseocc, "extension.build_failed")
    assert "left its lock file" in lead.cause, lead.cause
    assert "the extensions root: /home/gyh/.cache/torch_extensions/py38_cu118" in lead.evidence, lead.evidence
    assert "rm -rf /home/gyh/.cache/torch_extensions/py38_cu118/dvr" in lead.fix.text, lead.fix
    # a Windows root is removed as Windows does, a path with a space quoted (constructed)
    for root, removed in (
        (
            "C:\\Users\\me\\torch_extensions\\Cache\\py39",
            'rmdir /s /q "C:\\Users\\me\\torch_extensions\\Cache\\py39\\dvr"',
        ),
        ("/home/a b/.cache/torch_extensions", "rm -rf '/home/a b/.cache/torch_extensions/dvr'"),
    ):
        text = f"stuck at\nUsing {root} as PyTorch extensions root...\nLoading extension module dvr..."
        assert _led_by(text, "extension.build_failed").fix.commands == (removed,)
    # a build that failed is a build that failed, not a lock (constructed)
    failed = sparseocc.replace("ninja: no work to do.", "ninja: build stopped: subcommand failed.")
    lead = _led_by("stuck at Loading extension module dvr...\n" + failed, "extension.build_failed")
    assert "left its lock file" not in lead.cause, lead.cause


def test_a_missing_thp_symbol_is_read_as_torchs_python_bindings_not_loaded_or_not_linked() -> None:
    # THPVariableClass is in libtorch_python.so, which every torch has: the extension was loaded without it.
    # pytorch/pytorch#8036 (import torch first, the maintainer), taketakeseijin/HarmonicLowering#1 (a build
    # for another torch: rebuilt from a clean build folder, or TORCH_USE_RTLD_GLOBAL=YES),
    # MVIG-SJTU/AlphaPose#614 (the DCN extension rebuilt against the installed torch), pytorch/glow#4039 (a
    # CMake module: linking libtorch_python let it load)
    for text in _thp_texts():
        lead = _led_by(text, "lib.undefined_symbol")
        assert "libtorch_python.so" in lead.cause, lead.cause
        assert lead.fix.text.startswith("Import torch before the extension."), lead.fix
        assert "TORCH_USE_RTLD_GLOBAL=YES" in lead.fix.text, lead.fix
    # a CMake build the text shows leads with the link (constructed: the line above glow's)
    cmake = "cmake -DCMAKE_PREFIX_PATH=$(python -c 'import torch; print(torch.utils.cmake_prefix_path)') ..\n"
    lead = _led_by(cmake + _thp_texts()[3], "lib.undefined_symbol")
    assert lead.fix.text.startswith("Link the module against libtorch_python.so"), lead.fix
    assert "Import torch before" not in lead.fix.text


def _thp_texts() -> tuple[str, ...]:
    return (
        "ImportError: ./smtl_cuda.so: undefined symbol: THPVariableClass",
        (
            "/usr/local/anaconda3/envs/torchxx/lib/python3.6/site-packages/interp_same-0.0.0-py3.6-linux-x86_"
            "64.egg/interp_same.cpython-36m-x86_64-linux-gnu.so: undefined symbol: THPVariableClass"
        ),
        (
            "ImportError: /home/XXXXXXXX/exp/AlphaPose/alphapose/models/layers/dcn/deform_conv_cuda.cpython-3"
            "7m-x86_64-linux-gnu.so: undefined symbol: THPVariableClass"
        ),
        (
            "$ python -m pytest nodes\n"
            "ImportError while loading conftest 'torch_glow/tests/conftest.py'.\n"
            "conftest.py:3: in <module>\n"
            "    import torch_glow\n"
            "../torch_glow/__init__.py:1: in <module>\n"
            "    from ._torch_glow import *\n"
            "E   ImportError: torch_glow/torch_glow/_torch_glow.cpython-37m-x86_64-linux-gnu.so: undefined "
            "symbol: THPVariableClass"
        ),
    )


def test_pips_conflict_on_torchs_version_names_the_pins_and_the_matched_set() -> None:
    # pip's resolver warning "X requires torch==A, but you have torch B which is incompatible": a companion
    # left from another torch release. Comfy-Org/ComfyUI#77 (a matched set installed, the maintainer and a
    # second user), camenduru/MVDream-colab#2 (the notebook's companions matched to its torch),
    # SociallyIneptWeeb/AICoverGen#80 (the requirements made one consistent set)
    comfy = (
        "torchvision 0.15.0+cu117 requires torch==2.0.0, but you have torch 1.13.1 which is "
        "incompatible.\n"
        "torchaudio 2.0.0+cu117 requires torch==2.0.0, but you have torch 1.13.1 which is incompatible."
    )
    lead = _led_by(comfy, "pip.torch_requirement_conflict")
    assert lead.evidence[0] == (
        "torchvision 0.15.0+cu117 requires torch==2.0.0; the installed torch is 1.13.1"
    ), lead.evidence
    # a release line quoted: zsh would take the * for a glob that matches no file
    assert 'torch==1.13.1 "torchvision==0.14.*" torchaudio==0.13.1' in lead.fix.text, lead.fix
    assert "--index-url https://download.pytorch.org/whl/cu117" in lead.fix.text, lead.fix
    mvdream = (
        "ERROR: pip's dependency resolver does not currently take into account all the packages that are "
        "installed. This behaviour is the source of the following dependency conflicts.\n"
        "lida 0.0.10 requires kaleido, which is not installed.\n"
        "torchaudio 2.1.0+cu118 requires torch==2.1.0, but you have torch 2.0.1 which is incompatible.\n"
        "torchdata 0.7.0 requires torch==2.1.0, but you have torch 2.0.1 which is incompatible.\n"
        "torchtext 0.16.0 requires torch==2.1.0, but you have torch 2.0.1 which is incompatible."
    )
    lead = _led_by(mvdream, "pip.torch_requirement_conflict")
    assert len(lead.evidence) == 3, lead.evidence  # torchaudio, torchdata, torchtext; not lida's kaleido
    assert "torch==2.0.1 torchaudio==2.0.2" in lead.fix.text, lead.fix
    aicover = (
        "ERROR: pip's dependency resolver does not currently take into account all the packages that are "
        "installed. This behaviour is the source of the following dependency conflicts.\n"
        "torchvision 0.14.1 requires torch==1.13.1, but you have torch 2.0.1+cu118 which is incompatible"
    )
    lead = _led_by(aicover, "pip.torch_requirement_conflict")
    assert "torch==2.0.1 torchvision==0.15.2" in lead.fix.text, lead.fix
    assert "cu118" in lead.fix.text, lead.fix
    # a nightly torch, which the pairing table has no row for (constructed): the companion left to pip's
    # resolver, from the nightly index
    nightly = (
        "torchvision 0.22.0+cu128 requires torch==2.7.0, but you have torch 2.8.0.dev20250515+cu128 which is "
        "incompatible."
    )
    lead = _led_by(nightly, "pip.torch_requirement_conflict")
    assert (
        "pip install torch==2.8.0.dev20250515 torchvision --index-url "
        "https://download.pytorch.org/whl/nightly/cu128"
    ) in lead.fix.text, lead.fix
    # a project's own bound below the torch installed (constructed): upgrade the project, or its torch
    project = "mypkg 0.1.0 requires torch<2.7,>=2.2.1, but you have torch 2.8.0+cu128 which is incompatible."
    lead = _led_by(project, "pip.torch_requirement_conflict")
    assert lead.evidence == ("mypkg 0.1.0 requires torch<2.7,>=2.2.1; the installed torch is 2.8.0+cu128",)
    assert lead.fix.text.startswith("Upgrade mypkg to a release whose requirement allows torch 2.8.0+cu128")


def test_one_request_that_is_a_large_share_of_the_gpu_is_told_to_run_the_input_in_pieces() -> None:
    # An image model at test time on a whole image: IceClear/StableSR#9 (70% of an 80 GB GPU: the tiled script
    # worked), swz30/Restormer#29 (64%: the maintainer's --tile option), lbc12345/SeD#5 (more than the GPU:
    # cropped into patches, the maintainer)
    stablesr = (
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 55.62 GiB (GPU 0; 79.19 GiB "
        "total capacity; 31.25 GiB already allocated; 14.34 GiB free; 39.41 GiB reserved in total by "
        "PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid "
        "fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF"
    )
    restormer = (
        "RuntimeError: CUDA out of memory. Tried to allocate 7.62 GiB (GPU 0; 12.00 GiB total capacity; "
        "5.33 GiB already allocated; 4.64 GiB free; 5.35 GiB reserved in total by PyTorch) If reserved "
        "memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See "
        "documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF"
    )
    sed = (
        "RuntimeError: CUDA out of memory. Tried to allocate 87.95 GiB (GPU 0; 44.48 GiB total capacity; "
        "22.69 GiB already allocated; 19.28 GiB free; 23.92 GiB reserved in total by PyTorch)"
    )
    for text, share in ((stablesr, "70%"), (restormer, "64%"), (sed, None)):
        lead = _led_by(text, "cuda.out_of_memory")
        assert "tiles or patches of a large image" in lead.fix.text, lead.fix
        if share is not None:
            assert any(line.startswith(f"one request is {share} of the GPU") for line in lead.evidence)
    lead = _led_by(stablesr, "cuda.out_of_memory")
    assert "That one request is 70% of the GPU: run the input in pieces" in lead.fix.text, lead.fix


def test_a_script_that_sets_cuda_visible_devices_itself_is_read_so_with_every_no_gpu_message() -> None:
    # The script's own os.environ line (ziplab/PTQD#13 and YoujiaZhang/Ref-GS#4 with "No CUDA GPUs are
    # available"; KeYang8/WITT#34, its train.py's os.environ["CUDA_VISIBLE_DEVICES"] = "1", set to "0":
    # resolved) is the same fact beside torch.cuda.is_available() False and Lightning's refusal (constructed
    # around PTQD's quoted line)
    line = "`import os\nos.environ['CUDA_VISIBLE_DEVICES'] = '7'\n`\n"
    for message, entry in (
        ("torch.cuda.is_available() returns False", "cuda.not_available"),
        ("MisconfigurationException: No supported gpu backend found!", "cuda.not_available"),
        ("RuntimeError: No CUDA GPUs are available", "cuda.no_gpus_available"),
    ):
        lead = _led_by(line + message, entry)
        assert lead.evidence == ("the script sets CUDA_VISIBLE_DEVICES=7 (os.environ)",), lead.evidence
        assert lead.fix.text.startswith("Comment out or delete the line"), lead.fix


def test_ctranslate2s_cuda_failed_with_an_insufficient_driver_is_its_own_cuda_build_not_torchs() -> None:
    # CTranslate2's wording for a CUDA error: faster-whisper in SubtitleEdit/subtitleedit#9143 (the driver
    # updated: solved), CheshireCC/faster-whisper-GUI#96 (a release built for the older CUDA: solved),
    # RVC-Boss/GPT-SoVITS#1048 (driver 515 against its CUDA), OpenNMT/CTranslate2#1842 (4.x needs CUDA 12, 3.x
    # for CUDA 11: the maintainer)
    subtitleedit = (
        "RuntimeError: CUDA failed with error CUDA driver version is insufficient for CUDA runtime version"
    )
    ctranslate2 = (
        "Predictions may fail: CUDA failed with error CUDA driver version is insufficient for CUDA runtime "
        "version"
    )
    for text in (subtitleedit, ctranslate2):
        lead = _led_by(text, "cuda.driver_too_old")
        assert lead.evidence[0].startswith("'CUDA failed with error' is CTranslate2's wording"), lead.evidence
        assert "CTranslate2 4.0 and newer are built against CUDA 12" in lead.cause, lead.cause
        assert "525.60.13" in lead.fix.text and "ctranslate2==3.24.0" in lead.fix.text, lead.fix
        assert "match the CUDA runtime to the driver" in lead.fix.text, lead.fix
        assert "torch build" not in lead.fix.text, lead.fix


def test_a_cuda_library_cupy_loads_itself_is_told_to_install_the_cupy_wheel_of_the_machines_cuda() -> None:
    # CuPy's "CuPy failed to load <library>" and its cupy_backends frames: BLAST-WarpX/warpx#4621
    # (cupy-cuda11x on a CUDA 12 machine: cupy-cuda12x, merged), 98mxr/GMFSS_Fortuna#6 (Windows: CuPy needs a
    # local CUDA runtime, the maintainer), and two notes in public repositories (index files 1241690574 and
    # 49237227451: CuPy cannot find the CUDA libraries it needs; a CuPy for CUDA 11 on a CUDA 12.3 system)
    warpx = (
        "RuntimeError: CuPy failed to load libnvrtc.so.11.2: OSError: libnvrtc.so.11.2: cannot open shared "
        "object file: No such file or directory\n"
        "\n"
        "At:\n"
        "  cupy_backends/cuda/_softlink.pyx(32): cupy_backends.cuda._softlink.SoftLink.__init__"
    )
    gmfss = (
        "Error occurred when executing GMFSS Fortuna VFI:\n"
        "\n"
        "CuPy failed to load nvrtc64_112_0.dll: FileNotFoundError: Could not find module 'nvrtc64_112_0.dll' "
        "(or one of its dependencies). Try using the full path with constructor syntax."
    )
    frames = (
        '  File "cupy_backends/cuda/libs/_cnvrtc.pxi", line 153, in '
        "cupy_backends.cuda.libs.nvrtc._get_softlink\n"
        '  File "cupy_backends/cuda/_softlink.pyx", line 32, in '
        "cupy_backends.cuda._softlink.SoftLink.__init__\n"
        "RuntimeError: CuPy failed to load libnvrtc.so.12: OSError: libnvrtc.so.12: cannot open shared "
        "object file: No such file or directory"
    )
    broken = (
        "RuntimeError: CuPy failed to load libnvrtc.so.11.2: OSError: libnvrtc.so.11.2:\n"
        "cannot open shared object file: No such file or directory"
    )
    for text, library, major in (
        (warpx, "libnvrtc.so.11.2", "11"),
        (gmfss, "nvrtc64_112_0.dll", "11"),
        (frames, "libnvrtc.so.12", "12"),
        (broken, "libnvrtc.so.11.2", "11"),
    ):
        lead = _led_by(text, "lib.cannot_open_shared_object")
        assert f"missing: {library}" in lead.evidence, lead.evidence
        assert f"CuPy loads {library}, CUDA {major}'s NVRTC, itself" in " ".join(lead.evidence), lead.evidence
        assert lead.cause.startswith("CuPy loads the CUDA libraries it needs itself"), lead.cause
        assert "pip install cupy-cuda12x" in lead.fix.text, lead.fix
        assert "conda install -c conda-forge cupy" in lead.fix.text, lead.fix
        assert "Reinstalling torch does not help" in lead.fix.text, lead.fix


def test_a_command_missing_from_the_shells_environment_names_what_brings_it() -> None:
    # A script calls a command its environment lacks: danielgordon10/re3-pytorch#4 (gdown, one of the
    # requirements: pip install gdown, the maintainer), Dpbm/dreambooth-tutorial#3 (accelerate in a Colab
    # runtime: the install cells rerun, the maintainer), HIT-SCIR/Chinese-Mixtral-8x7B#23 (torchrun comes with
    # torch: the environment activated, or python -m torch.distributed.run, the maintainer)
    re3 = (
        "File size is 712 MB\n"
        "download_weights_large.sh: 4: download_weights_large.sh: gdown: not found\n"
        "tar (child): checkpoints.tar.gz: Cannot open: No such file or directory\n"
        "tar (child): Error is not recoverable: exiting now\n"
        "tar: Child returned status 2\n"
        "tar: Error is not recoverable: exiting now"
    )
    for text, command in ((re3, "gdown"), ("/bin/bash: accelerate: command not found", "accelerate")):
        lead = _led_by(text, "shell.command_not_found")
        assert lead.evidence == (f"the shell found no command {command}",), lead.evidence
        assert f"python -m pip install {command}" in lead.fix.text, lead.fix
        assert f"python -m pip install {command}" in lead.fix.commands, lead.fix
    lead = _led_by("torchrun: command not found", "shell.command_not_found")
    assert lead.cause.startswith("torchrun comes with torch"), lead.cause
    assert "python -m torch.distributed.run" in lead.fix.text, lead.fix
    # Windows' words for it (constructed), and nvcc, which the CUDA toolkit brings (constructed)
    windows = (
        "'accelerate' is not recognized as an internal or external command,\noperable program or batch file."
    )
    assert _led_by(windows, "shell.command_not_found").evidence == ("the shell found no command accelerate",)
    lead = _led_by("bash: nvcc: command not found", "shell.command_not_found")
    assert "CUDA toolkit" in lead.cause and "pip install" not in lead.fix.text, lead
    # nvidia-smi keeps its own explanation, and a batch file's echo after a Python error leaves the error to
    # explain the text (constructed: its 'deactivate' line after "No module named 'torch'")
    assert _explained("bash: nvidia-smi: command not found")[0].id != "shell.command_not_found"
    echo = (
        "ModuleNotFoundError: No module named 'torch'\n'deactivate' is not recognized as an internal or "
        "external command,\noperable program or batch file."
    )
    assert [e.id for e in _explained(echo)] == ["torch.not_installed"]


def test_deepspeeds_check_of_its_optional_ops_on_windows_is_told_harmless() -> None:
    # The linker's LNK1181 for aio.lib and cufile.lib when DeepSpeed is imported on Windows:
    # 6Morpheus6/deepspeed-windows-wheels#2 (expected, DeepSpeed works: the maintainer, confirmed),
    # unslothai/unsloth#1909 (DeepSpeed's op builder, not unsloth: the maintainer), a build note in a public
    # repository (index file 36885145493: DeepSpeed 0.16.4 compiled, "it seems to be ok based on the
    # ds_report")
    german = (
        "test.c\n"
        'LINK : fatal error LNK1181: Eingabedatei "aio.lib" kann nicht geöffnet werden.\n'
        "test.c\n"
        'LINK : fatal error LNK1181: Eingabedatei "cufile.lib" kann nicht geöffnet werden.'
    )
    unsloth = (
        "🦥 Unsloth: Will patch your computer to enable 2x faster free finetuning.\n"
        "🦥 Unsloth Zoo will now patch everything to make training faster!\n"
        "[2025-03-06 00:09:49,518] [INFO] [real_accelerator.py:222:get_accelerator] Setting ds_accelerator "
        "to cuda (auto detect)\n"
        "test.c\n"
        "LINK : fatal error LNK1181: cannot open input file 'aio.lib'\n"
        "test.c\n"
        "LINK : fatal error LNK1181: cannot open input file 'cufile.lib'"
    )
    note = (
        "[2025-03-08 19:58:11,587] [INFO] [real_accelerator.py:222:get_accelerator] Setting ds_accelerator "
        "to cuda (auto detect)\n"
        "test.c\n"
        "LINK : fatal error LNK1181: cannot open input file 'aio.lib'\n"
        "test.c\n"
        "LINK : fatal error LNK1181: cannot open input file 'cufile.lib'\n"
        "W0308 19:58:15.602000 3136 Lib\\site-packages\\torch\\distributed\\elastic\\multiprocessing\\redirec"
        "ts.py:29] NOTE: Redirects are currently not supported in Windows or MacOs."
    )
    for text in (german, unsloth, note):
        lead = _led_by(text, "deepspeed.op_check_output")
        assert "harmless" in lead.cause and lead.fix.text.startswith("Nothing to fix"), lead
    # a real error after them leads (constructed)
    oom = unsloth + "\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
    assert [e.id for e in _explained(oom)] == ["cuda.out_of_memory"]


def test_a_torch_dll_that_fails_to_initialise_is_told_the_redistributable_or_torch_2_8() -> None:
    # WinError 1114 on torch's own DLL from torch 2.9 on: sdv-dev/SDMetrics#802 (torch below 2.9 pinned,
    # merged), 1517005260/graph-rag-agent#54 (torch 2.8.0 runs: the maintainer), nagadomi/nunif#701 (the
    # maintainer's note: the latest Visual C++ Redistributable)
    sdmetrics = (
        "ERROR tests/unit/version/test_version.py - OSError: [WinError 1114] A dynamic link library "
        "(DLL) initialization routine failed. Error loading "
        '"C:\\hostedtoolcache\\windows\\Python\\3.11.9\\x64\\Lib\\site-packages\\torch\\lib\\c10.dll" or '
        "one of its dependencies.\n"
        "\n"
        "!!!!!!!!!!!!!!!!!! Interrupted: 29 errors during collection !!!!!!!!!!!!!!!!!!!"
    )
    graphrag = (
        "OSError: [WinError 1114] 动态链接库(DLL)初始化例程失败。 Error loading "
        '"D:\\anaconda\\envs\\graphrag\\lib\\site-packages\\torch\\lib\\c10.dll" or one of its dependencies.'
    )
    nunif = (
        "[WinError 1114] A dynamic link library (DLL) initialization routine failed. Error loading "
        '"...\\c10.dll" or one of its dependencies.'
    )
    for text in (sdmetrics, graphrag, nunif):
        lead = _led_by(text, "lib.cannot_open_shared_object")
        assert lead.evidence == ("c10.dll was found but failed to initialise (WinError 1114)",), lead.evidence
        assert "vc_redist.x64.exe" in lead.fix.text, lead.fix
        assert "pip install torch==2.8.0 torchvision==0.23.0 torchaudio==2.8.0" in lead.fix.commands, lead.fix
    # ROCm's own Windows build of torch (ROCm/TheRock#1155): not told the releases of pip's index
    rocm = (
        "OSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed. Error "
        'loading "D:\\projects\\TheRock\\external-builds\\pytorch\\.venv\\Lib\\site-packages\\torch\\lib'
        '\\c10_hip.dll" or one of its dependencies.'
    )
    lead = _led_by(rocm, "lib.cannot_open_shared_object")
    assert not any("2.8" in command for command in lead.fix.commands), lead.fix


def test_a_package_release_a_program_requires_is_named_with_the_install_command() -> None:
    # transformers' require_version ("X is required for a normal functioning of this module, but found
    # X==V"): deepbeepmeep/Wan2GP#421 (pip install peft==0.15.0; requirements changed), huggingface/
    # optimum-habana#2160 (peft>=0.15.0 pinned, merged), easydiffusion/easydiffusion#1623 (the pinned releases
    # reinstalled into the app's own environment, the maintainer), jasonppy/VoiceCraft#135 (huggingface-hub
    # upgraded)
    wan2gp = (
        "ImportError: peft>=0.15.0 is required for a normal functioning of this module, but found "
        "peft==0.14.0."
    )
    habana = (
        "ImportError: peft>=0.15.0 is required for a normal functioning of this module, but found "
        "peft==0.12.0."
    )
    easydiffusion = (
        "    _compare_versions(op, got_ver, want_ver, requirement, pkg, hint)\n"
        '  File "C:\\EasyDiffusion\\installer_files\\env\\lib\\site-packages\\transformers\\utils\\versions.p'
        'y", line 44, in _compare_versions\n'
        "    raise ImportError(\n"
        "ImportError: huggingface-hub>=0.15.1,<1.0 is required for a normal functioning of this module, but "
        "found huggingface-hub==0.12.1.\n"
        "Try: pip install transformers -U or pip install -e '.[dev]' if you're working with git main"
    )
    voicecraft = (
        "ImportError: huggingface-hub>=0.23.0,<1.0 is required for a normal functioning of this module, but "
        "found huggingface-hub==0.22.2."
    )
    for text, required, installed in (
        (wan2gp, "peft>=0.15.0", "peft 0.14.0"),
        (habana, "peft>=0.15.0", "peft 0.12.0"),
        (easydiffusion, "huggingface-hub>=0.15.1,<1.0", "huggingface-hub 0.12.1"),
        (voicecraft, "huggingface-hub>=0.23.0,<1.0", "huggingface-hub 0.22.2"),
    ):
        lead = _led_by(text, "package.version_required")
        assert f"required: {required}; installed: {installed}" in lead.evidence, lead.evidence
        assert f"a {installed.split()[0]} version mismatch" in lead.cause, lead.cause
        assert f'python -m pip install "{required}"' in lead.fix.commands, lead.fix
    lead = _led_by(easydiffusion, "package.version_required")
    assert any("C:\\EasyDiffusion\\installer_files\\env" in line for line in lead.evidence), lead.evidence
    # a long requirement: a framework's check of transformers, in a public log (index file 48423115397)
    factory = (
        "ImportError: transformers>=4.41.2,<=4.49.0,!=4.46.0,!=4.46.1,!=4.46.2,!=4.46.3,!=4.47.0,!=4.47.1,"
        "!=4.48.0 is required for a normal functioning of this module, but found transformers==4.57.3."
    )
    lead = _led_by(factory, "package.version_required")
    assert lead.evidence[0].endswith(",!=4.48.0; installed: transformers 4.57.3"), lead.evidence
    # the same words of what pip does not install (constructed): not this entry's; torch from its index
    for text in (
        "RuntimeError: CUDA>=11.8 is required",
        "ERROR: Python>=3.9 is required",
        "gcc >= 9 is required",
    ):
        assert "package.version_required" not in _ids(text), text
    lead = _led_by("RuntimeError: torch>=2.1.0 is required for this model", "package.version_required")
    assert "torchdoctor check --only torch.build" in lead.fix.text, lead.fix
    # a program's own check in the same words, without the installed release (constructed)
    own = "Error: `transformers==4.26.1` is required for BLIP models."
    lead = _led_by(own, "package.version_required")
    assert "required: transformers==4.26.1" in lead.evidence, lead.evidence
    assert 'python -m pip install "transformers==4.26.1"' in lead.fix.commands, lead.fix


def test_an_hdf5_or_netcdf_handle_shared_by_workers_is_told_to_open_the_file_in_each_worker() -> None:
    # HDF5 and netCDF handles used from several processes or threads: pytorch/pytorch#11887 (h5py.File
    # opened in __init__, "h5py doesn't allow reading from multiple processes", the maintainers; open it
    # lazily), dask/distributed#629 (a netCDF4 handle shipped to dask workers; xarray's picklable stores,
    # merged), ELEKTRONN/elektronn3#12 (num_workers=1, then a lazy h5py wrapper, the maintainer's commits),
    # mever-team/distill-and-select#11 (h5py opened in __getitem__ runs, the reporter)
    loader = (
        "Traceback (most recent call last):\n"
        '  File "/home/dler/anaconda3/envs/pytorch4/lib/python3.6/site-packages/torch/utils/data/dataloader.p'
        'y", line 106, in _worker_loop\n'
        "    samples = collate_fn([dataset[i] for i in batch_indices])\n"
        '  File "/home/dler/anaconda3/envs/pytorch4/lib/python3.6/site-packages/torch/utils/data/dataloader.p'
        'y", line 106, in <listcomp>\n'
        "    samples = collate_fn([dataset[i] for i in batch_indices])\n"
        '  File "/home/dler/pytorch_codes_from_pc4/DeepHomography/preprocessing/generate_dataset.py", line '
        "34, in __getitem__\n"
        "    label=self.db[self.labels_key][idx]\n"
        '  File "h5py/_objects.pyx", line 54, in h5py._objects.with_phil.wrapper\n'
        '  File "h5py/_objects.pyx", line 55, in h5py._objects.with_phil.wrapper\n'
        '  File "/home/dler/anaconda3/envs/pytorch4/lib/python3.6/site-packages/h5py/_hl/group.py", line '
        "167, in __getitem__\n"
        "    oid = h5o.open(self.id, self._e(name), lapl=self._lapl)\n"
        '  File "h5py/_objects.pyx", line 54, in h5py._objects.with_phil.wrapper\n'
        '  File "h5py/_objects.pyx", line 55, in h5py._objects.with_phil.wrapper\n'
        '  File "h5py/h5o.pyx", line 190, in h5py.h5o.open\n'
        "KeyError: 'Unable to open object (bad object header version number)'"
    )
    dask = (
        "In [44]: da.from_array(xr_var.array.array.array, chunks=chunks).sum().compute()\n"
        "distributed.utils - ERROR - NetCDF: Not a valid ID\n"
        "Traceback (most recent call last):\n"
        '  File "/users/pwolfram/lib/python2.7/site-packages/distributed/utils.py", line 120, in f\n'
        "    result[0] = yield gen.maybe_future(func(*args, **kwargs))\n"
        '  File "/net/scratch3/pwolfram/miniconda2/lib/python2.7/site-packages/tornado/gen.py", line 1015, '
        "in run\n"
        "    value = future.result()\n"
        '  File "/net/scratch3/pwolfram/miniconda2/lib/python2.7/site-packages/tornado/concurrent.py", line '
        "237, in result\n"
        "    raise_exc_info(self._exc_info)\n"
        '  File "/net/scratch3/pwolfram/miniconda2/lib/python2.7/site-packages/tornado/gen.py", line 1021, '
        "in run\n"
        "    yielded = self.gen.throw(*exc_info)\n"
        '  File "/users/pwolfram/lib/python2.7/site-packages/distributed/client.py", line 802, in _gather\n'
        "    d['traceback'])\n"
        '  File "/net/scratch3/pwolfram/miniconda2/lib/python2.7/site-packages/dask/array/core.py", line 49, '
        "in getarray\n"
        "    c = a[b]\n"
        '  File "netCDF4/_netCDF4.pyx", line 3671, in netCDF4._netCDF4.Variable.__getitem__ '
        "(netCDF4/_netCDF4.c:37111)\n"
        '  File "netCDF4/_netCDF4.pyx", line 3378, in netCDF4._netCDF4.Variable.shape.__get__ '
        "(netCDF4/_netCDF4.c:32778)\n"
        '  File "netCDF4/_netCDF4.pyx", line 3323, in netCDF4._netCDF4.Variable._getdims '
        "(netCDF4/_netCDF4.c:31870)\n"
        "RuntimeError: NetCDF: Not a valid ID"
    )
    elektronn = (
        "> [...]\n"
        ">     self.id.read(mspace, fspace, arr, mtype, dxpl=self._dxpl)\n"
        '>   File "h5py/_objects.pyx", line 54, in h5py._objects.with_phil.wrapper\n'
        '>   File "h5py/_objects.pyx", line 55, in h5py._objects.with_phil.wrapper\n'
        '>   File "h5py/h5d.pyx", line 181, in h5py.h5d.DatasetID.read\n'
        '>   File "h5py/_proxy.pyx", line 130, in h5py._proxy.dset_rw\n'
        '>   File "h5py/_proxy.pyx", line 84, in h5py._proxy.H5PY_H5Dread\n'
        "> OSError: Can't read data (wrong B-tree signature)"
    )
    distill = (
        "Initializing h5py in the `__init__` method of `Datagenerator` results in  `KeyError: 'Unable to "
        "open object (wrong B-tree signature)`, but initializing it in the `__getitem__` method runs "
        "successfully."
    )
    for text in (loader, dask, elektronn, distill):
        lead = _led_by(text, "dataloader.shared_file_handle")
        assert "opened once and used from several" in lead.cause, lead.cause
        assert "__getitem__" in lead.fix.text and "num_workers=0" in lead.fix.text, lead.fix
    assert "raised in a DataLoader worker" in " ".join(
        _led_by(loader, "dataloader.shared_file_handle").evidence
    )
    lead = _led_by(dask, "dataloader.shared_file_handle")
    assert "dask" in " ".join(lead.evidence), lead.evidence
    assert lead.fix.text.startswith("Let each dask worker open the file itself"), lead.fix
    assert "parallel=False" in lead.fix.text, lead.fix


def test_a_bare_bus_error_is_read_as_shared_memory_running_out() -> None:
    # A process that dies of SIGBUS prints nothing of its own: MIC-DKFZ/HD-BET#67 (a background export worker
    # in a container; --shm-size 8G, the reporter), NVIDIA/retinanet-examples#59 (the project's container;
    # --ipc=host, a contributor, thanked and closed), pytorch/pytorch#2244 (share_memory() in a container
    # with 64 MB of /dev/shm, the maintainers)
    hd_bet = (
        "$ hd-bet -i /output/hdbet-in.nii.gz -o /output/hdbet-out.nii.gz -device cpu --save_bet_mask\n"
        "...\n"
        "perform_everything_on_device=True is only supported for cuda devices! Setting this to False\n"
        "There are 1 cases in the source folder\n"
        "I am process 0 out of 1 (max process ID is 0, we start counting with 0!)\n"
        "There are 1 cases that I would like to predict\n"
        "\n"
        "Predicting hdbet-out_bet.nii.gz:\n"
        "perform_everything_on_device: False\n"
        "100%|█████████████████████████████████████████████| 12/12 [04:57<00:00, 24.79s/it]\n"
        "sending off prediction to background worker for resampling and export\n"
        "done with hdbet-out_bet.nii.gz\n"
        "Bus error (core dumped)"
    )
    retinanet = (
        "Loading model from retinanet_rn50fpn.pth...\n"
        "     model: RetinaNet\n"
        "  backbone: ResNet50FPN\n"
        "   classes: 80, anchors: 9\n"
        "Bus error (core dumped)"
    )
    share_memory = "I'm getting a Bus error (core dumped) when using the share_memory method on a model. "
    for text in (hd_bet, retinanet, share_memory):
        lead = _led_by(text, "nccl.shm")
        assert "bus error (SIGBUS)" in lead.cause and "/dev/shm" in lead.cause, lead.cause
        assert "--shm-size" in lead.fix.text and "--ipc=host" in lead.fix.text, lead.fix
        assert "df -h /dev/shm" in lead.fix.commands
    # the other cause it leaves room for: a file mapped into memory changed under the program
    assert "memory-mapped" in _led_by(retinanet, "nccl.shm").cause
    # a bus error PyTorch names itself keeps its own words
    worker = "RuntimeError: DataLoader worker (pid 325) is killed by signal: Bus error."
    assert "bus error (SIGBUS)" not in _led_by(worker, "nccl.shm").cause


def test_a_missing_system_library_is_told_its_system_package_not_to_reinstall_torch() -> None:
    # Libraries of the system a package loads, none of torch's or CUDA's: f90/Wave-U-Net-Pytorch#11
    # (libsndfile, the maintainer; resolved), yeates/PromptFix#13 (libGL for cv2, apt-get install
    # libgl1-mesa-glx libglib2.0-0, the reporter), roboflow/notebooks#269 (libgthread for cv2,
    # opencv-python-headless, another user and the maintainer), CorentinJ/Real-Time-Voice-Cloning#816
    # (PortAudio for sounddevice, libportaudio2), openslide/openslide#575 (libopenslide, the maintainer and
    # the reporter)
    wave_u_net = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 19, in <module>\n'
        "    from data.dataset import SeparationDataset\n"
        '  File "/root/autodl-tmp/wave-u-net/data/dataset.py", line 9, in <module>\n'
        "    from data.utils import load\n"
        '  File "/root/autodl-tmp/wave-u-net/data/utils.py", line 3, in <module>\n'
        "    import soundfile\n"
        '  File "/root/miniconda3/lib/python3.8/site-packages/soundfile.py", line 142, in <module>\n'
        "    raise OSError('sndfile library not found')\n"
        "OSError: sndfile library not found"
    )
    promptfix = (
        "Traceback (most recent call last):\n"
        '  File "/root/PromptFix/scripts/../process_images_json.py", line 23, in <module>\n'
        "    from stable_diffusion.ldm.hfp import extract_high_freq_component, sobel_operator\n"
        '  File "/root/PromptFix/stable_diffusion/ldm/hfp.py", line 2, in <module>\n'
        "    import cv2\n"
        '  File "/opt/conda/envs/promptfix/lib/python3.10/site-packages/cv2/__init__.py", line 181, in '
        "<module>\n"
        "    bootstrap()\n"
        '  File "/opt/conda/envs/promptfix/lib/python3.10/site-packages/cv2/__init__.py", line 153, in '
        "bootstrap\n"
        '    native_module = importlib.import_module("cv2")\n'
        '  File "/opt/conda/envs/promptfix/lib/python3.10/importlib/__init__.py", line 126, in '
        "import_module\n"
        "    return _bootstrap._gcd_import(name[level:], package, level)\n"
        "ImportError: libGL.so.1: cannot open shared object file: No such file or directory"
    )
    notebooks = (
        "~/.conda/envs/default/lib/python3.9/site-packages/ultralytics/yolo/engine/predictor.py in "
        "<module>\n"
        "     30 from pathlib import Path\n"
        "     31 \n"
        "---> 32 import cv2\n"
        "     33 \n"
        "     34 from ultralytics.nn.autobackend import AutoBackend\n"
        "\n"
        "ImportError: libgthread-2.0.so.0: cannot open shared object file: No such file or directory"
    )
    voice_cloning = (
        "Traceback (most recent call last):\n"
        '  File "demo_cli.py", line 42, in <module>\n'
        "    import sounddevice as sd\n"
        '  File "/workspace/.pip-modules/lib/python3.8/site-packages/sounddevice.py", line 71, in '
        "<module>\n"
        "    raise OSError('PortAudio library not found')\n"
        "OSError: PortAudio library not found"
    )
    openslide = "OSError: libopenslide.so.0: cannot open shared object file: No such file or directory"
    installs = {
        wave_u_net: "sudo apt-get install -y libsndfile1",
        promptfix: "sudo apt-get install -y libgl1 libglib2.0-0",
        notebooks: "sudo apt-get install -y libgl1 libglib2.0-0",
        voice_cloning: "sudo apt-get install -y libportaudio2",
        openslide: "sudo apt-get install -y openslide-tools",
    }
    for text, install in installs.items():
        lead = _led_by(text, "lib.cannot_open_shared_object")
        assert "not one of torch's or CUDA's" in lead.cause, lead.cause
        assert not lead.fix.text.startswith("Reinstall torch"), lead.fix
        assert install in lead.fix.commands, lead.fix.commands
    assert "opencv-python-headless" in _led_by(notebooks, "lib.cannot_open_shared_object").fix.text
    assert "pip install openslide-bin" in _led_by(openslide, "lib.cannot_open_shared_object").fix.commands
    # lucidrains/alphafold3-pytorch#217: RDKit's drawing code in a container (libxrender1, merged)
    alphafold = "ImportError: libXrender.so.1: cannot open shared object file: No such file or directory"
    lead = _led_by(alphafold, "lib.cannot_open_shared_object")
    assert "libxrender1" in lead.fix.text and "RDKit" in lead.cause, lead
    # a library no case knows: acids-ircam/RAVE#276 (torchaudio's sox effects and the system's libsox; "you
    # have to install sox beforehand", the maintainer)
    rave = (
        "`OSError: libsox.so: cannot open shared object file: No such file or directory`\n"
        "`RuntimeError: apply_effects_tensor requires sox extension which is not available.`"
    )
    lead = _led_by(rave, "lib.cannot_open_shared_object")
    assert "libsox.so, which is none of torch's, CUDA's or the driver's libraries" in lead.cause, lead.cause
    assert "apt-file search libsox.so" in lead.fix.commands and "Reinstalling torch" in lead.cause


def test_flashinfers_jit_without_nvcc_is_told_its_prebuilt_kernels_or_a_toolkit() -> None:
    # A JIT that finds no nvcc, in words other than torch's: oumi-ai/oumi#2503 (FlashInfer's own message in
    # a CUDA runtime image; a -devel base image, merged), flashinfer-ai/flashinfer#1781 (its version check
    # ran the nvcc on PATH, where there was none; fixed in FlashInfer, or install nvcc), kserve/kserve#4565
    # (vLLM's FlashInfer sampler compiling in a -runtime image; its kernels built ahead, merged: the stored
    # log is cut before its error)
    oumi = "RuntimeError: Could not find nvcc and default cuda_home='/usr/local/cuda' doesn't exist"
    version_check = "FileNotFoundError: [Errno 2] No such file or directory: 'nvcc'"
    lead = _led_by(oumi, "build.cuda_home_unset")
    assert lead.cause.startswith("FlashInfer"), lead.cause
    assert "/usr/local/cuda does not exist" in " ".join(lead.evidence), lead.evidence
    assert "flashinfer install-jit-cache-wheel" in lead.fix.commands
    assert "-devel image" in lead.fix.text and "VLLM_USE_FLASHINFER_SAMPLER=0" in lead.fix.text, lead.fix
    lead = _led_by(version_check, "build.cuda_home_unset")
    assert "nvcc" in lead.cause and "CUDA_HOME" in lead.fix.text, lead


def test_macos_dylds_library_not_loaded_at_homebrews_path_is_told_to_brew_install_the_formula() -> None:
    # dyld's "Library not loaded" was read by no entry: pytorch/pytorch#20030 (torch 1.1.0's wheel linked
    # Homebrew's libomp; brew install libomp, the reporter, and the 1.1.0.post2 wheels),
    # spro/practical-pytorch#131 (the same, another user), TomHeaven/pytorch-osx-build#8 (a build linked
    # against Homebrew's open-mpi; brew install open-mpi, the maintainer and the reporter)
    virtualenv = (
        "Traceback (most recent call last):\n"
        '  File "/Users/kaspersapala/Documents/Airly/new-pollution-forecast/Datasets/__init__.py", line '
        "3, in <module>\n"
        "    from torch.utils.data import Dataset\n"
        '  File "/Users/kaspersapala/.local/share/virtualenvs/new-pollution-forecast-BSetKF9E/lib/python3'
        '.7/site-packages/torch/__init__.py", line 79, in <module>\n'
        "    from torch._C import *\n"
        "ImportError: dlopen(/Users/kaspersapala/.local/share/virtualenvs/new-pollution-forecast-BSetKF9E"
        "/lib/python3.7/site-packages/torch/_C.cpython-37m-darwin.so, 9): Library not loaded: "
        "/usr/local/opt/libomp/lib/libomp.dylib\n"
        "  Referenced from: /Users/kaspersapala/.local/share/virtualenvs/new-pollution-forecast-BSetKF9E/"
        "lib/python3.7/site-packages/torch/lib/libshm.dylib\n"
        "  Reason: image not found"
    )
    venv = (
        "ImportError: dlopen(/Users/little-prince/Documents/Graduation_Project/venv/lib/python3.6/site-pa"
        "ckages/torch/_C.cpython-36m-darwin.so, 9): Library not loaded: "
        "/usr/local/opt/libomp/lib/libomp.dylib\n"
        "  Referenced from: /Users/little-prince/Documents/Graduation_Project/venv/lib/python3.6/site-pac"
        "kages/torch/lib/libshm.dylib\n"
        "  Reason: image not found"
    )
    open_mpi = (
        ">>> import torch\n"
        "Traceback (most recent call last):\n"
        '  File "<stdin>", line 1, in <module>\n'
        '  File "/Users/michaelmcreynolds/anaconda3/envs/PyTorch/lib/python3.7/site-packages/torch/__init'
        '__.py", line 79, in <module>\n'
        "    from torch._C import *\n"
        "ImportError: dlopen(/Users/michaelmcreynolds/anaconda3/envs/PyTorch/lib/python3.7/site-packages/"
        "torch/_C.cpython-37m-darwin.so, 9): Library not loaded: "
        "/usr/local/opt/open-mpi/lib/libmpi.40.dylib\n"
        "  Referenced from: /Users/michaelmcreynolds/anaconda3/envs/PyTorch/lib/python3.7/site-packages/t"
        "orch/_C.cpython-37m-darwin.so\n"
        "  Reason: image not found"
    )
    for text, formula, asking in (
        (virtualenv, "libomp", "torch/lib/libshm.dylib"),
        (venv, "libomp", "torch/lib/libshm.dylib"),
        (open_mpi, "open-mpi", "torch/_C.cpython-37m-darwin.so"),
    ):
        lead = _led_by(text, "lib.cannot_open_shared_object")
        assert f"built against Homebrew's {formula}" in lead.cause, lead.cause
        assert lead.fix.commands == (f"brew install {formula}",), lead.fix
        assert f"asked for by {asking}" in lead.evidence, lead.evidence


def test_a_model_folder_without_the_file_from_pretrained_loads_first_is_told_to_download_it_whole() -> None:
    # diffusers' and transformers' "Error no file named ... found in directory" was read by no entry:
    # geekyutao/Inpaint-Anything#23 (a component missing from the cache's snapshot after a network failure,
    # the reporter), modelscope/modelscope#1271 (an incomplete download, "modelscope download" first; a bug
    # fixed in 1.24, the maintainers), kijai/ComfyUI-CogVideoXWrapper#281 (the download node did not finish;
    # the model put in place by hand, another user and the maintainer)
    inpaint = (
        'File "F:\\Inpaint-Anything\\fill_anything.py", line 126, in <module>\n'
        "    img_filled = fill_img_with_sd(\n"
        '  File "F:\\Inpaint-Anything\\stable_diffusion_inpaint.py", line 21, in fill_img_with_sd\n'
        "    pipe = StableDiffusionInpaintPipeline.from_pretrained(\n"
        '  File "F:\\miniConda\\lib\\site-packages\\diffusers\\pipelines\\pipeline_utils.py", line 1008, in '
        "from_pretrained\n"
        "    loaded_sub_model = load_sub_model(\n"
        '  File "F:\\miniConda\\lib\\site-packages\\diffusers\\pipelines\\pipeline_utils.py", line 444, in '
        "load_sub_model\n"
        "    loaded_sub_model = load_method(os.path.join(cached_folder, name), **loading_kwargs)\n"
        '  File "F:\\miniConda\\lib\\site-packages\\diffusers\\models\\modeling_utils.py", line 491, in '
        "from_pretrained\n"
        "    config, unused_kwargs, commit_hash = cls.load_config(\n"
        '  File "F:\\miniConda\\lib\\site-packages\\diffusers\\configuration_utils.py", line 349, in '
        "load_config\n"
        "    raise EnvironmentError(\n"
        "OSError: Error no file named config.json found in directory C:\\Users\\zhou\\.cache\\huggingface\\hu"
        "b\\models--stabilityai--stable-diffusion-2-inpainting\\snapshots\\781cb3e2113c1932245692810716dfd27e"
        "355ab6\\vae."
    )
    modelscope = (
        "OSError: Error no file named pytorch_model.bin, model.safetensors, tf_model.h5, model.ckpt.index or "
        "flax_model.msgpack found in directory /mnt/workspace/.cache/modelscope/models/Qwen/Qwen2___5-VL-7B-I"
        "nstruct."
    )
    cogvideo = (
        "OSError: Error no file named diffusion_pytorch_model.bin found in directory D:\\AI\\ComfyUI_windows_"
        "portable\\ComfyUI\\models\\CogVideo\\CogVideoX-Fun-V1.1-5b-Control."
    )
    for text, missing in (
        (inpaint, "config.json"),
        (modelscope, "pytorch_model.bin, model.safetensors"),
        (cogvideo, "diffusion_pytorch_model.bin"),
    ):
        lead = _led_by(text, "load.model_files_missing")
        assert "download stopped before the end" in lead.cause, lead.cause
        assert "--local-dir" in lead.fix.text and "from_single_file" in lead.fix.text, lead.fix
        assert any(line.startswith(f"missing: {missing}") for line in lead.evidence), lead.evidence
    lead = _led_by(inpaint, "load.model_files_missing")
    assert "hf download stabilityai/stable-diffusion-2-inpainting" in lead.fix.commands, lead.fix.commands
    assert "modelscope download --model" in _led_by(modelscope, "load.model_files_missing").fix.text


def test_a_misaligned_address_is_read_as_a_kernel_fault_found_with_launch_blocking() -> None:
    # CUDA's "misaligned address" was read by no entry: valeoai/WaffleIron#4 (a torch build for another CUDA;
    # the matching wheels, the reporter), NVIDIA/Fuser#4970 (a kernel's bug, fixed), openucx/ucc#1312 (NVLS
    # allreduce on sizes not a multiple of 16 elements' bytes, fixed), pytorch/pytorch#32893 (torch 1.1's
    # batch norm; a newer torch, the maintainers)
    waffle_iron = "RuntimeError: CUDA error: misaligned address"
    fuser = "CUDA_ERROR_MISALIGNED_ADDRESS failed with error misaligned address"
    ucc = (
        "Fix cudaErrorMisalignedAddress in NVLS allreduce for float32 and bfloat16 when the buffer size is "
        "not a multiple of 16 * tsize bytes."
    )
    batch_norm = (
        '   File "/home/nnir712/anaconda3/envs/zzhpy36/lib/python3.6/site-packages/torch/nn/modules/batchnor'
        'm.py", line 74, in forward\n'
        "     self.num_batches_tracked + = 1\n"
        "RuntimeError: CUDA error: misaligned address`"
    )
    for text in (waffle_iron, fuser, ucc, batch_norm):
        lead = _led_by(text, "cuda.misaligned_address")
        assert "not aligned to the width of its access" in lead.cause, lead.cause
        assert "CUDA_LAUNCH_BLOCKING=1 python train.py" in lead.fix.commands
        assert "built for this CUDA" in lead.fix.text and ".contiguous()" in lead.fix.text, lead.fix


def test_a_kernel_that_crashed_is_read_as_a_librarys_kernel_or_the_machine() -> None:
    # CUDA's "unspecified launch failure" and "an illegal instruction was encountered" were read by no entry:
    # opendatalab/MinerU#426 (a faulty card: another of the same model ran, the reporter),
    # thu-ml/SageAttention#199 (its FP8 kernel needs CUDA 12.8; the fallback, several users),
    # IST-DASLab/marlin#40 (the kernel's cache-policy PTX on a newer GPU; the plain copy, the reporter)
    miner_u = (
        "2024-08-14 05:45:39.030 | ERROR    | __main__:pdf_parse_main:135 - CUDA error: unspecified launch "
        "failure\nCUDA kernel errors might be asynchronously reported at some other API call, so the "
        "stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1.\n"
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."
    )
    sage_attention = (
        "terminate called after throwing an instance of 'c10::Error'\nwhat():  CUDA error: unspecified "
        "launch failure\nCompile with TORCH_USE_CUDA_DSA to enable device-side assertions."
    )
    marlin = "RuntimeError: CUDA error: an illegal instruction was encountered"
    for text in (miner_u, sage_attention, marlin):
        lead = _led_by(text, "cuda.launch_failure")
        assert "kernel crashed" in lead.cause and "failing under load" in lead.cause, lead.cause
        assert "CUDA_LAUNCH_BLOCKING=1 python train.py" in lead.fix.commands
        assert "update that library" in lead.fix.text and "another GPU" in lead.fix.text, lead.fix
        assert "sudo dmesg | grep -i xid" in lead.fix.commands
    # the CPU's illegal instruction (SIGILL: a build for instructions the processor lacks) is not this
    for text in ("Illegal instruction (core dumped)", "illegal instruction"):
        assert "cuda.launch_failure" not in [e.id for e in _explained(text)]


def test_mps_placeholder_storage_is_a_tensor_left_off_the_apple_gpu() -> None:
    # MPS's own check of an operand's storage ("Placeholder storage has not been allocated on MPS device!")
    # was read by no entry: pytorch/pytorch#130790 (an embedding's ids on the CPU, its weight on MPS; the
    # maintainer), lucidrains/self-rewarding-lm-pytorch#15 (prompts and the model moved to the device,
    # merged), xjdr-alt/entropix#41 (a KV cache built on the CPU; two users), pytorch/examples#1070 (the
    # input built on the CPU for a model on MPS, merged; quoted in prose)
    embedding = (
        "File [~/Projects/ml/lib/python3.10/site-packages/torch/nn/functional.py:2551](http://localhost:8"
        "888/lab/workspaces/auto-m/tree/tags-classifier/~/Projects/ml/lib/python3.10/site-packages/torch/"
        "nn/functional.py#line=2550), in embedding(input, weight, padding_idx, max_norm, norm_type, "
        "scale_grad_by_freq, sparse)\n"
        "   2545     # Note [embedding_renorm set_grad_enabled]\n"
        "   2546     # XXX: equivalent to\n"
        "   2547     # with torch.no_grad():\n"
        "   2548     #   torch.embedding_renorm_\n"
        "   2549     # remove once script supports set_grad_enabled\n"
        "   2550     _no_grad_embedding_renorm_(weight, input, max_norm, norm_type)\n"
        "-> 2551 return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)\n"
        "\n"
        "RuntimeError: Placeholder storage has not been allocated on MPS device!"
    )
    one_line = "RuntimeError: Placeholder storage has not been allocated on MPS device!"
    prose = "Placeholder storage has not been allocated on MPS device"
    for text in (embedding, one_line, prose):
        lead = _led_by(text, "tensors.different_devices")
        assert any("not on 'mps'" in line for line in lead.evidence), lead.evidence
        assert lead.fix.text.startswith("Move the model and every input to one device"), lead.fix


def test_no_available_kernel_is_attention_restricted_to_fused_kernels_that_refuse_the_inputs() -> None:
    # scaled_dot_product_attention's "No available kernel. Aborting execution." was read by no entry:
    # lucidrains/denoising-diffusion-pytorch#239 (float32 q, k, v with the fused kernels only; cast to half,
    # the reporter), lucidrains/x-transformers#143 (its title: a mask the fused kernels refused; flash off,
    # users), pytorch/pytorch#117354 (inputs not 4-D; unsqueeze, the maintainer)
    float32 = (
        "pytorch/denoising_diffusion_pytorch/attend.py:77: UserWarning: Expected query, key and value to "
        "all be of dtype: {Half, BFloat16}. Got Query dtype: float, Key dtype: float, and Value dtype: "
        "float instead. (Triggered internally at ../aten/src/ATen/native/transformers/cuda/sdp_utils.h:92"
        ".)\n"
        "  out = F.scaled_dot_product_attention(\n"
        "\n"
        'pytorch/denoising_diffusion_pytorch/attend.py", line 78, in flash_attn\n'
        "    out = F.scaled_dot_product_attention(\n"
        "          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
        "RuntimeError: No available kernel.  Aborting execution."
    )
    x_transformers = "RuntimeError: No available kernel. Aborting execution."
    not_4d = "RuntimeError: No available kernel.  Aborting execution."
    for text in (float32, x_transformers, not_4d):
        lead = _led_by(text, "attention.no_available_kernel")
        assert "math" in lead.cause and "float16 or bfloat16" in lead.cause, lead.cause
        assert "SDPBackend.MATH" in lead.fix.text and "4-D" in lead.fix.text, lead.fix
    # the reason torch warned of is quoted
    lead = _led_by(float32, "attention.no_available_kernel")
    assert lead.evidence == (
        "torch's reason for refusing a fused kernel: Expected query, key and value to all be of dtype: "
        "{Half, BFloat16}. Got Query dtype: float, Key dtype: float, and Value dtype: float instead.",
    )


def test_torchs_own_visual_cpp_runtime_warning_names_the_redistributable() -> None:
    # torch's check at import (torch/__init__.py loads vcruntime140.dll, msvcp140.dll and vcruntime140_1.dll
    # and prints "Microsoft Visual C++ Redistributable is not installed" where it cannot) was read by no
    # entry: a failure in words no pattern reads was not explained, and one that was read stayed "most often
    # the Redistributable, otherwise a broken install". A note of a question-answer-parser's set-up (the
    # warning and c10.dll's WinError 126 in Chinese; the Redistributable installed, its author; stored file
    # id 60416388580), RVC Next WebUI Installer's documentation (the warning as a heading, the fix under it),
    # Acly/krita-ai-diffusion#1017 (c10.dll on a fresh Windows 11, no warning in the text; the
    # Redistributable, the reporter)
    note = (
        "Microsoft Visual C++ Redistributable is not installed, this may lead to the DLL load failure.\n"
        "It can be downloaded at https://aka.ms/vs/17/release/vc_redist.x64.exe\n"
        "Traceback (most recent call last):\n"
        '  File "E:\\Code\\PyProjects\\question-answer-parser\\main.py", line 17, in <module>\n'
        "    import torch\n"
        '  File "E:\\Code\\PyProjects\\question-answer-parser\\.venv\\Lib\\site-packages\\torch\\__init__'
        '.py", line 285, in <module>\n'
        "    _load_dll_libraries()\n"
        '  File "E:\\Code\\PyProjects\\question-answer-parser\\.venv\\Lib\\site-packages\\torch\\__init__'
        '.py", line 281, in _load_dll_libraries\n'
        "    raise err\n"
        "OSError: [WinError 126] 找不到指定的模块。 Error loading "
        '"E:\\Code\\PyProjects\\question-answer-parser\\.venv\\Lib\\site-packages\\torch\\lib\\c10.dll" '
        "or one of its dependencies."
    )
    rvc_next = (
        "### Microsoft Visual C++ Redistributable is not installed, this may lead to the DLL load "
        "failure.\n"
        "下载 [Microsoft Visual C++ Redistributable](https://aka.ms/vc14/vc_redist.x64.exe) 并安装。"
    )
    krita = (
        "Error during server startup: OSError: [WinError 126] The specified module could not be found. "
        'Error loading "C:\\Users\\Beep\\AppData\\Roaming\\krita\\ai_diffusion\\server\\python\\lib\\site'
        '-packages\\torch\\lib\\c10.dll" or one of its dependencies. [1]'
    )
    for text in (note, rvc_next):
        lead = _led_by(text, "lib.cannot_open_shared_object")
        assert any("vcruntime140.dll" in line for line in lead.evidence), lead.evidence
        assert lead.cause.startswith("torch's own check at import found no Visual C++ runtime"), lead.cause
        assert "vc_redist.x64.exe" in lead.fix.text and "Repair" in lead.fix.text, lead.fix
    lead = _led_by(krita, "lib.cannot_open_shared_object")
    assert "Visual C++ Redistributable" in lead.fix.text and "most often" in lead.cause


def test_float64_on_mps_is_told_as_moved_made_or_cast_there() -> None:
    # "Cannot convert a MPS Tensor to float64 dtype" was told as a float64 tensor moved to 'mps' only; torch
    # raises it too for one made there in float64 and for a tensor on 'mps' cast to float64. ltx2-mps's
    # README (LTX-2's
    # rotary tables made in float64 on MPS; diffusers patched to float32), a note on OpenAI Whisper's word
    # timestamps on MPS (its alignment casts there; the CPU or MLX), a seed-vc note (NumPy's float64 F0
    # moved; .float() before .to(device)), thu-ml/tianshou#1237 (a float64 tensor moved to 'mps')
    ltx2 = (
        "TypeError: Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support float64"
    )
    whisper = (
        "TypeError: Cannot convert a MPS Tensor to float64 dtype as the MPS framework doesn't support "
        "float64."
    )
    seed_vc = (
        "- `--f0-condition True`（SVC 歌唱模式）在 MPS 上崩溃：`TypeError: Cannot convert a MPS Tensor to "
        "float64 dtype`\n- 根因：`inference.py` 第 329-330 行 `torch.from_numpy(F0).to(device)` 中 numpy "
        "默认 float64，MPS 不支持\n- 修复：添加 `.float()` 强制转为 float32：`torch.from_numpy(F0).float()"
        ".to(device)`"
    )
    records = json.loads((ERRORS / "mps.float64.json").read_text())
    tianshou = next(r["text"] for r in records if r["source"] == "thu-ml/tianshou#1237")
    for text in (ltx2, whisper, seed_vc, tianshou):
        lead = _led_by(text, "mps.float64")
        assert "moved to 'mps'" in lead.cause and "made there" in lead.cause, lead.cause
        assert "cast to float64 (.double(), .to(torch.float64))" in lead.cause, lead.cause
        assert "x.float().to('mps')" in lead.fix.text and "x.cpu().double()" in lead.fix.text, lead.fix


def test_an_extension_built_for_another_torch_is_also_offered_the_torch_it_was_built_for() -> None:
    # A prebuilt extension that calls functions the installed torch lacks was told to be rebuilt or
    # reinstalled for the installed torch; where a package was named (PyG's, mmcv, any other) the other way,
    # installing the torch release it was made for, was not offered, and it is what these threads did:
    # rusty1s/pytorch_scatter#186 (torch 1.4 to 1.7, the reporter), paulengstler/invisible-stitch#6 (torch
    # pinned to xformers' 2.2.0, two users), unlimblue/KNN_CUDA#2 (torch 1.0.1 to 1.1.0 for the release
    # wheel, the maintainer and the reporter), ThibaultGROUEIX/ChamferDistancePytorch#4 (torch 1.1.0, the
    # reporter)
    scatter = (
        "OSError: /home/zhao/anaconda3/envs/pytorch2/lib/python3.6/site-packages/torch_scatter/_version.s"
        "o: undefined symbol: _ZN5torch3jit17parseSchemaOrNameERKSs"
    )
    xformers = "undefined symbol: _ZN3c104cuda9SetDeviceEi"
    knn = (
        "ImportError: (...)/KNN_CUDA/knn_cuda/csrc/_ext/knn/knn.so: undefined symbol: "
        "_ZN3c105ErrorC1ENS_14SourceLocationERKSs"
    )
    chamfer = "undefined symbol: _ZN3c105ErrorC1ENS_14SourceLocationERKSs"
    for text in (scatter, xformers, knn, chamfer):
        lead = _led_by(text, "lib.undefined_symbol")
        assert "install the torch release" in lead.fix.text and "built for" in lead.fix.text, lead.fix
    # on Windows, a module whose package the text does not show (error 127)
    lead = _led_by(
        "ImportError: DLL load failed while importing some_ext: The specified procedure could not be found.",
        "lib.undefined_symbol",
    )
    assert "install the torch release" in lead.fix.text, lead.fix


def test_an_error_caught_in_a_dataloader_worker_is_the_datasets_own() -> None:
    # torch's wrapper of an exception raised in a worker ("Caught FileNotFoundError in DataLoader worker
    # process 0." with the worker's "Original Traceback", torch/_utils.py ExceptionWrapper) was read by no
    # entry. Three notebooks' outputs (stored files 71199789458, 23419739677, 71072559069): a missing file,
    # an image PIL cannot read, a folder where a file was expected.
    missing_file = (
        "FileNotFoundError: Caught FileNotFoundError in DataLoader worker process 0.\n"
        "Original Traceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.11/dist-packages/torch/utils/data/_utils/worker.py", line 349, '
        "in _worker_loop\n"
        "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]\n"
        "           ^^^^^^^^^^^^^^^^^^^^\n"
        '  File "/usr/local/lib/python3.11/dist-packages/torch/utils/data/_utils/fetch.py", line 52, in '
        "fetch\n"
        "    data = [self.dataset[idx] for idx in possibly_batched_index]"
    )
    unreadable_image = (
        '  File "/root/miniconda3/lib/python3.12/site-packages/torch/_utils.py", line 706, in reraise\n'
        "    raise exception\n"
        "PIL.UnidentifiedImageError: Caught UnidentifiedImageError in DataLoader worker process 0.\n"
        "Original Traceback (most recent call last):\n"
        '  File "/root/miniconda3/lib/python3.12/site-packages/torch/utils/data/_utils/worker.py", line '
        "309, in _worker_loop\n"
        "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]"
    )
    a_folder = (
        "IsADirectoryError: Caught IsADirectoryError in DataLoader worker process 0.\n"
        "Original Traceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.11/dist-packages/torch/utils/data/_utils/worker.py", line 349, '
        "in _worker_loop\n"
        "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]"
    )
    for text, error in (
        (missing_file, "FileNotFoundError"),
        (unreadable_image, "UnidentifiedImageError"),
        (a_folder, "IsADirectoryError"),
    ):
        lead = _led_by(text, "dataloader.worker_exception")
        assert lead.evidence == (
            f"the worker raised {error} while it loaded a batch: the traceback under 'Original Traceback' is "
            "the worker's own",
        ), lead.evidence
        assert "the dataset's" in lead.cause and "num_workers=0" in lead.fix.text, lead
    # the wrapper gives way to a message another entry reads in the worker's own traceback
    shared = (
        "Caught RuntimeError in DataLoader worker process 0.\nOriginal Traceback (most recent call last):\n"
        "RuntimeError: unable to write to file </torch_18692_1954506624>: No space left on device (28)"
    )
    assert "dataloader.worker_exception" not in [e.id for e in _explained(shared)]


def test_autoawqs_kernels_not_loading_is_the_kernels_package_built_for_another_torch() -> None:
    # AutoAWQ's own words for its compiled kernels (autoawq-kernels' awq_ext) failing to import were read by
    # no entry: casper-hansen/AutoAWQ#374 (the installation did not meet the requirements, the maintainer; the
    # reporter resolved it), QwenLM/Qwen3#221 (built from source, several users), hiyouga/LlamaFactory#4241
    # (uninstalled and reinstalled from source, the maintainer)
    not_loaded = (
        "AssertionError: AWQ kernels could not be loaded. Please install them from "
        "https://github.com/casper-hansen/AutoAWQ_kernels"
    )
    name_error = (
        'File "/usr/local/lib/python3.10/dist-packages/awq/modules/linear/gemm.py", line 66, in backward\n'
        "    if awq_ext is None:\nNameError: name 'awq_ext' is not defined"
    )
    backward = (
        "ValueError: auto-awq kernels is needed to be installed to use .backward(). Make sure to install the "
        "auto-awq kernels by following the installation guides in https://github.com/casper-hansen/AutoAWQ_"
        "kernels"
    )
    for text in (not_loaded, name_error, backward):
        lead = _led_by(text, "awq.kernels_not_loaded")
        assert "autoawq-kernels" in lead.cause and "another torch or CUDA" in lead.cause, lead.cause
        assert "from source" in lead.fix.text and 'python -c "import awq_ext"' in lead.fix.commands, lead.fix


def test_a_cpu_build_is_told_to_be_replaced_not_only_installed_over() -> None:
    # "Install a CUDA build" alone left what the threads tripped over: pip keeps an installed torch
    # ("Requirement already satisfied") unless it is uninstalled or --force-reinstall given, and a
    # requirements file puts the CPU build back. PromtEngineer/localGPT#2 (force reinstall, the reporter),
    # zhuang2002/Cobra#4 (uninstalled, the CUDA build installed, torch taken out of requirements.txt, a
    # user), pytorch/pytorch#30664 (its title as Cobra#4's; pip uninstall torch, pip cache purge, the CUDA
    # build, users)
    local_gpt = "Torch not compiled with CUDA enabled"
    cobra = "AssertionError: Torch not compiled with CUDA enabled"
    for text in (local_gpt, cobra):
        lead = _led_by(text, "torch.not_compiled_with_cuda")
        assert "pip uninstall torch" in lead.fix.text and "--force-reinstall" in lead.fix.text, lead.fix
        assert "Requirement already satisfied" in lead.fix.text and "requirements" in lead.fix.text, lead.fix
    # where a GPU is named, the same (the analysis keeps the entry's fix)
    lead = _led_by(
        "AssertionError: Torch not compiled with CUDA enabled, on my RTX 3090", "torch.not_compiled_with_cuda"
    )
    assert "pip uninstall torch" in lead.fix.text, lead.fix


def test_a_deepspeed_op_with_no_capability_left_names_the_ops_floor() -> None:
    # DeepSpeed's op builder keeps only the compute capabilities an op supports (filter_ccs) and raises "no
    # compute capabilities remaining after filtering" where none is left; read by no entry. Two notebooks'
    # notes (stored files 13189917447 and 13466901270; a third, 13798134491, holds the second's words): a T4
    # (7.5) with DeepSpeed-MII's ragged ops, which need 8.0; the legacy mii.deploy as the workaround.
    t4 = (
        "# T4 has version 7.5 and new deepspeed-mii library APIs require version >=8.\n"
        "# Workaround is to use the legacy deepspeed library (mii.deploy)\n"
        "# https://github.com/microsoft/DeepSpeed-MII/issues/273#issuecomment-1813151824\n"
        "# RuntimeError: Unable to load ragged_device_ops op due to no compute capabilities remaining "
        "after filtering"
    )
    older = (
        "# Workaround for RuntimeError due to old CUDA capabilities version (<8)\n"
        "# is to use the legacy deepspeed library (mii.deploy) with zero inference enabled\n"
        "# https://github.com/microsoft/DeepSpeed-MII/issues/273#issuecomment-1813151824\n"
        "# RuntimeError: Unable to load ragged_device_ops op due to no compute capabilities remaining "
        "after filtering"
    )
    for text in (t4, older):
        lead = _led_by(text, "deepspeed.op_no_capability")
        assert lead.evidence[0] == (
            "DeepSpeed builds ragged_device_ops only for compute capability 8.0 or newer (its op builder's "
            "filter_ccs): the capabilities it builds for (TORCH_CUDA_ARCH_LIST's where set, else the visible "
            "GPUs') have none"
        ), lead.evidence
        assert "mii.deploy" in lead.fix.text and "TORCH_CUDA_ARCH_LIST" in lead.fix.text, lead.fix
    # DeepSpeed's own warning of what it filtered out, where the text shows it (built around its words)
    warned = (
        "[WARNING] Filtered compute capabilities [['7', '0']]\n"
        "RuntimeError: Unable to load cutlass_ops op due to no compute capabilities remaining after "
        "filtering"
    )
    lead = _led_by(warned, "deepspeed.op_no_capability")
    assert "the capabilities DeepSpeed filtered out: 7.0" in lead.evidence, lead.evidence


def test_a_gpu_below_tritons_capability_is_told_to_run_without_compilation_or_on_a_newer_gpu() -> None:
    # inductor's check of the GPU (torch/_inductor/exc.py, GPUTooOldForTriton) was read by no entry:
    # karpathy/nanoGPT#157 (a GTX 1080; compile = False, several users), pytorch/tutorials#2227 (a Tesla P4 in
    # CI; the job moved to a T4, merged), celoyd/potato#50 (a GPU of capability 6.1; compiling behind a flag,
    # off by default, its owner)
    nano_gpt = (
        "RuntimeError: Found NVIDIA GeForce GTX 1080 which is too old to be supported by the triton GPU "
        "compiler, which is used as the backend. Triton only supports devices of CUDA Capability >= 7.0, but "
        "your device is of CUDA capability 6.1"
    )
    tutorials = (
        "Feb 28 00:20:45 torch._dynamo.exc.BackendCompilerFailed: debug_wrapper raised RuntimeError: Found "
        "Tesla P4 which is too old to be supported by the triton GPU compiler, which is used as the backend. "
        "Triton only supports devices of CUDA Capability >= 7.0, but your device is of CUDA capability 6.1"
    )
    potato = (
        "- My GPU is a generation too old for `torch.compile` (“Triton only supports devices of CUDA "
        "Capability >= 7.0, but your device is of CUDA capability 6.1”)."
    )
    for text in (nano_gpt, tutorials, potato):
        lead = _led_by(text, "triton.not_available")
        assert "capability 7.0" in lead.cause and "reinstall" in lead.cause, lead.cause
        assert "compile=False" in lead.fix.text and "TORCH_COMPILE_DISABLE=1" in lead.fix.text, lead.fix
        assert "7.0 or newer" in lead.fix.text, lead.fix
        assert any("capability 6.1" in line for line in lead.evidence), lead.evidence
    evidence = _led_by(nano_gpt, "triton.not_available").evidence
    assert evidence[0].startswith("the GPU: NVIDIA GeForce GTX 1080, compute capability 6.1"), evidence


def test_a_symbol_torchs_own_library_takes_from_mkl_or_nccl_names_that_library() -> None:
    # "torch's own libraries do not match each other" where the symbol is another library's: MKL's
    # iJIT_NotifyEvent (conda's MKL 2024.1 no longer has it: interaction-lab/BlossomNav#3, mkl==2024.0, its
    # reporter; atzkenneth/dragonfly_gen#3, mkl=2024.0, its reporter; aqlaboratory/openfold#427, mkl pinned in
    # a merged pull request) and NCCL's ncclMemFree (rwth-i6/returnn#1802: a stale nvidia-nccl-cu11 wheel
    # beside the cu12 one, its maintainer)
    blossom = (
        "ImportError: /.../lib/python3.10/site-packages/torch/lib/libtorch_cpu.so: undefined symbol: "
        "iJIT_NotifyEvent"
    )
    dragonfly = (
        '  File "/home/evehom/miniconda3/envs/dragonfly_gen/lib/python3.8/site-packages/torch/__init__.py", '
        "line 218, in <module>\n"
        "    from torch._C import *  # noqa: F403\n"
        "ImportError: /home/evehom/miniconda3/envs/dragonfly_gen/lib/python3.8/site-packages/torch/lib/"
        "libtorch_cpu.so: undefined symbol: iJIT_NotifyEvent"
    )
    openfold = (
        "      ImportError: /home/dina/miniconda3/envs/openfold_env2/lib/python3.9/site-packages/torch/lib/"
        "libtorch_cpu.so: undefined symbol: iJIT_NotifyEvent\n"
        "      [end of output]"
    )
    for text in (blossom, dragonfly, openfold):
        lead = _led_by(text, "lib.undefined_symbol")
        assert lead.evidence[0] == (
            "lib/libtorch_cpu.so needs the symbol iJIT_NotifyEvent, which is Intel MKL's, not torch's"
        ), lead.evidence
        assert "MKL 2024.1" in lead.cause and "conda" in lead.cause, lead.cause
        assert "conda install mkl==2024.0" in lead.fix.commands, lead.fix
        assert "mkl=2024.0" in lead.fix.text and "environment file" in lead.fix.text, lead.fix
    returnn = (
        '  File "/home/runner/.local/lib/python3.10/site-packages/torch/__init__.py", line 416, in <module>\n'
        "    from torch._C import *  # noqa: F403\n"
        "ImportError: /home/runner/.local/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so: undefined "
        "symbol: ncclMemFree"
    )
    lead = _led_by(returnn, "lib.undefined_symbol")
    assert lead.evidence[0] == (
        "lib/libtorch_cuda.so needs the symbol ncclMemFree, which is NCCL's, not torch's"
    ), lead.evidence
    assert "older NCCL" in lead.cause and "nvidia-nccl" in lead.cause, lead.cause
    assert "pip list 2>/dev/null | grep -i nvidia-nccl" in lead.fix.commands, lead.fix
    assert "LD_LIBRARY_PATH" in lead.fix.text and "pip show torch" in lead.fix.text, lead.fix
    # a symbol quoted in prose keeps none of its quotes (built around the loader's words)
    quoted = _led_by("import torch fails with 'undefined symbol: iJIT_NotifyEvent'.", "lib.undefined_symbol")
    said = quoted.evidence[0]
    assert said == "the symbol iJIT_NotifyEvent, which is Intel MKL's, not torch's", said


def test_cuda_autocast_switched_off_is_a_device_type_the_process_cannot_use() -> None:
    # torch's warning where autocast('cuda') meets a process without CUDA was read as a CPU-only build only:
    # pytorch/pytorch#72527 (checkpoint entering CUDA autocast on a Mac; fixed in torch), pytorch/xla#3086
    # (XLA's GPU; the availability check widened), ultralytics/yolov5#6692 (CUDA autocast on a CPU machine,
    # every batch), milesial/Pytorch-UNet#393 (train.py's torch.cuda.amp.autocast on MPS; device.type since)
    checkpoint = (
        "/Users/albandes/workspace/pytorch_dev/torch/autocast_mode.py:162: UserWarning: User provided "
        "device_type of 'cuda', but CUDA is not available. Disabling\n"
        "  warnings.warn('User provided device_type of \\'cuda\\', but CUDA is not available. Disabling')"
    )
    xla = (
        "+ python test/test_autocast.py\n"
        "/opt/conda/lib/python3.6/site-packages/torch/autocast_mode.py:139: UserWarning: User provided "
        "device_type of 'cuda', but CUDA is not available. Disabling"
    )
    yolo = (
        "/usr/local/lib/python3.8/dist-packages/torch/autocast_mode.py:141: UserWarning: User provided "
        "device_type of 'cuda', but CUDA is not available. Disabling"
    )
    unet = (
        "/Users/calkoen/miniconda3/envs/torch/lib/python3.10/site-packages/torch/amp/autocast_mode.py:198: "
        "UserWarning: User provided device_type of 'cuda', but CUDA is not available. Disabling"
    )
    for text in (checkpoint, xla, yolo, unet):
        lead = _led_by(text, "amp.autocast_disabled")
        assert "autocast off" in lead.cause and "float32" in lead.cause, lead.cause
        assert "device_type=device.type" in lead.fix.text, lead.fix
        assert "torch.version.cuda" in lead.fix.text, lead.fix
    for text in (checkpoint, unet):
        evidence = _led_by(text, "amp.autocast_disabled").evidence
        assert any(line.startswith("a macOS path (/Users/") for line in evidence), evidence
    assert not any("macOS" in line for line in _led_by(yolo, "amp.autocast_disabled").evidence)
    # torch's words since 1.10's merge of the XLA check (torch/amp/autocast_mode.py, this torch's too)
    now = "UserWarning: CUDA is not available or torch_xla is imported. Disabling autocast."
    assert _led_by(now, "amp.autocast_disabled").cause.startswith("The program asked for CUDA autocast")


def test_a_second_derivative_through_a_cudnn_rnn_is_told_to_run_that_forward_without_cudnn() -> None:
    # no entry read autograd's stop at cuDNN's RNN backward: pytorch/pytorch#5261 (a WGAN-GP critic with an
    # LSTM; "cudnn doesn't support this", its maintainer; the 2024 comment quotes torch's words now),
    # learnables/learn2learn#218 (MAML on an LSTM; cuDNN off, its reporter), and torch's own message
    # (libtorch_cpu.so: "Double backwards is not supported for CuDNN RNNs ...", with the flags example)
    legacy = "RuntimeError: CudnnRNNLegacyBackward is not differentiable twice"
    maml = "RuntimeError: derivative for _cudnn_rnn_backward is not implemented"
    now = (
        "NotImplementedError: the derivative for '_cudnn_rnn_backward' is not implemented. Double backwards "
        "is not supported for CuDNN R"
    )
    for text in (legacy, maml, now):
        lead = _led_by(text, "rnn.double_backward_through_cudnn")
        assert "second derivative" in lead.cause and "cuDNN" in lead.cause, lead.cause
        assert "torch.backends.cudnn.flags(enabled=False)" in lead.fix.text, lead.fix
        assert "create_graph=True" in lead.cause, lead.cause


def test_no_ninja_for_a_jit_built_extension_is_ninja_missing_or_off_the_path() -> None:
    # torch.utils.cpp_extension's check for ninja was read by no entry: zhanghang1989/PyTorch-Encoding#167
    # (the environment's bin not on PATH; several users), NVlabs/nvdiffrast#35 (ninja not installed, its
    # reporter), ashawkey/torch-ngp#1 (apt install ninja, its reporter)
    encoding = (
        '  File "/home/llg/.local/lib/python3.5/site-packages/torch/utils/cpp_extension.py", line 873, in '
        "verify_ninja_availability\n"
        "    subprocess.check_call('ninja --version'.split(), stdout=devnull)\n"
        '  File "/usr/lib/python3.5/subprocess.py", line 576, in check_call\n'
        "    retcode = call(*popenargs, **kwargs)\n"
        '  File "/usr/lib/python3.5/subprocess.py", line 557, in call\n'
        "    with Popen(*popenargs, **kwargs) as p:\n"
        '  File "/usr/lib/python3.5/subprocess.py", line 947, in __init__\n'
        "    restore_signals, start_new_session)\n"
        '  File "/usr/lib/python3.5/subprocess.py", line 1551, in _execute_child\n'
        "    raise child_exception_type(errno_num, err_msg)\n"
        "FileNotFoundError: [Errno 2] No such file or directory: 'ninja'"
    )
    nvdiffrast = (
        '  File "/root/miniconda3/lib/python3.7/site-packages/torch/utils/cpp_extension.py", line 1302, in '
        "verify_ninja_availability\n"
        '    raise RuntimeError("Ninja is required to load C++ extensions")\n'
        "RuntimeError: Ninja is required to load C++ extensions"
    )
    ngp = "RuntimeError: Ninja is required to load C++ extensions"
    # torch's words now (torch/utils/cpp_extension.py verify_ninja_availability, this torch's)
    now = "RuntimeError: Ninja is required to load C++ extensions (pip install ninja to get it)"
    for text in (encoding, nvdiffrast, ngp, now):
        lead = _led_by(text, "build.ninja_missing")
        assert "PATH" in lead.cause and "not installed" in lead.cause, lead.cause
        assert "pip install ninja" in lead.fix.text and "ninja --version" in lead.fix.commands, lead.fix
        assert "conda activate" in lead.fix.text, lead.fix
    # BuildExtension's fallback (torch/utils/cpp_extension.py, this torch's words) is a symptom: a slower
    # build, not the error
    fallback = (
        "UserWarning: Attempted to use ninja as the BuildExtension backend but we could not find ninja.. "
        "Falling back to using the slow distutils backend.\n"
        "error: command 'gcc' failed with exit status 1"
    )
    found = [e.id for e in _explained(fallback)]
    assert found and found[0] != "build.ninja_missing" and "build.ninja_missing" in found, found


def test_invalid_elf_header_is_a_file_that_is_no_library_of_this_system() -> None:
    # the loader's "invalid ELF header" was read by no entry: Nesvilab/FragPipe#2639 (libtorch_cpu.so a Git
    # LFS pointer; git lfs pull, its maintainer), cvlab-epfl/pyKSP#1 (stale prebuilt .so files; rebuilt, its
    # reporter), a README's troubleshooting (stored file 40005270798: the .so of the other system, Linux vs
    # Mac), a tool's notes (stored file 41235421262: a library compiled on Windows, rebuilt on Linux)
    fragpipe = (
        "fragpipe-24.1-build3/tools/diann/1.8.2_beta_8/linux/diann-1.8.1.8: error while loading shared "
        "libraries: /home/levitsky/work/FragPipe/FragPipe-GUI/build/github-release/fragpipe-24.1-build3/"
        "tools/diann/1.8.2_beta_8/linux/libtorch_cpu.so: invalid ELF header"
    )
    pyksp = "ImportError: pyKSP/ksp.so: invalid ELF header"
    probe = (
        "- Getting `tensorflow.python.framework.errors.NotFoundError: ./memory_probe_ops.so: invalid ELF "
        "header`"
    )
    shoco = "OSError: /path/to/libshoco.so: invalid ELF header"
    for text in (fragpipe, pyksp, probe, shoco):
        lead = _led_by(text, "lib.invalid_elf_header")
        assert "Git LFS pointer" in lead.cause and "macOS or Windows" in lead.cause, lead.cause
        assert "git lfs pull" in lead.fix.text and "build it on this machine" in lead.fix.text, lead.fix
        assert lead.fix.commands[0].startswith("file "), lead.fix
    assert _led_by(shoco, "lib.invalid_elf_header").evidence == (
        "the loader found no ELF header in libshoco.so: the file is not a Linux shared library",
    )
    # glibc's libc.so is a linker script, not a library: a program given it (an LD_PRELOAD of another libc)
    # is no file to rebuild (a set-up note's words, stored file 56094660888)
    libc = "claude: error while loading shared libraries: /lib/aarch64-linux-gnu/libc.so: invalid ELF header"
    assert "lib.invalid_elf_header" not in [e.id for e in _explained(libc)]


def test_a_bitwise_op_on_floats_is_a_mask_made_float_or_an_unparenthesised_comparison() -> None:
    # a bitwise kernel refusing a floating-point dtype was read by no entry: a planning loop's notes (stored
    # file 67448306395: a 0/-inf float mask ANDed by transformers with a bool mask; made bool), a job log
    # (stored file 67376951302: Python's & binding tighter than <=; parenthesised), a project's notes (stored
    # file 40345862661: a bool padding mask & a float torch.tril(torch.ones(...)); dtype=torch.bool), a
    # course's notes (stored file 14048325196: .bool())
    planner = (
        "        is only defined for bool tensors, so a float mask raises:\n"
        "          NotImplementedError: \"bitwise_and_cuda\" not implemented for 'Float'."
    )
    job = (
        "failed on the first `env.step()` inside the *termination* manager:\n"
        "`NotImplementedError: \"bitwise_and_cuda\" not implemented for 'Float'`, from\n"
        "`_in_basket`."
    )
    notes = "NotImplementedError: \"bitwise_and_cuda\" not implemented for 'Float'"
    course = (
        '- Datatypes: if we need to convert a matrix into `int` when seeing errors like `"bitwise_and_cuda" '
        "not implemented for 'Float'`, we can do `matrix.bool()`"
    )
    for text in (planner, job, notes, course):
        lead = _led_by(text, "tensors.bitwise_on_float")
        assert "float32 by default" in lead.cause and "a <= b & c" in lead.cause, lead.cause
        assert "dtype=torch.bool" in lead.fix.text and "(a <= b) & (c <= d)" in lead.fix.text, lead.fix
        assert ".to(other.device)" in lead.fix.text, lead.fix
        assert lead.evidence == (
            "bitwise_and_cuda was given a Float tensor: & takes bool or integer tensors",
        )


def test_a_storage_set_from_another_device_is_a_tensor_given_a_storage_it_cannot_hold() -> None:
    # torch's check when a tensor's storage is swapped for one on another device (aten's set_storage
    # paths) was read by no entry: a trainer's notes (stored file 65714026631: FSDP CPU offload with LoRA),
    # a loader's notes (stored file 57022140068: param.data reassigned on sharded DTensors), a patch's notes
    # (stored file 53120344729: pin_memory() on a CPU tensor bound for MPS)
    offload = (
        'RuntimeError: Attempted to set the storage of a tensor on device "cpu"\n'
        'to a storage on different device "cuda:0"'
    )
    sharded = (
        'raising `RuntimeError: Attempted to set the storage of a tensor on device "cuda:0" to a storage on '
        'different device "cpu"` at load time'
    )
    pinned = (
        '    RuntimeError: Attempted to set the storage of a tensor on device "cpu"\n'
        '    to a storage on different device "mps:0".  This is no longer allowed;\n'
        "    the devices must match."
    )
    for text, (tensor_on, storage_on) in (
        (offload, ("cpu", "cuda:0")),
        (sharded, ("cuda:0", "cpu")),
        (pinned, ("cpu", "mps:0")),
    ):
        lead = _led_by(text, "tensors.storage_from_another_device")
        assert lead.evidence[0] == (f"a tensor on {tensor_on} was given a storage on {storage_on}"), (
            lead.evidence
        )
        assert "set_()" in lead.cause and ".data" in lead.cause, lead.cause
        assert "device=src.device" in lead.fix.text and "offload" in lead.fix.text, lead.fix
    # torch's own fake-tensor path inside torch.compile, fixed in torch (its release notes): 'meta' is not
    # a device a program chose
    meta = (
        'fixing `RuntimeError: Attempted to set the storage of a tensor on device "cuda:0" to a storage on '
        'different device "meta"` when a `_make_wrapper_subclass` tensor is a non-batched `torch.vmap` input'
    )
    assert "tensors.storage_from_another_device" not in [e.id for e in _explained(meta)]


def test_a_saved_tensor_changed_in_place_names_the_tensor_and_its_versions() -> None:
    # autograd's version check was read by no entry: a model's notes (stored file 24685681470: inplace=True
    # and += made out of place), a project's notes (stored file 30312048209: torch.clone), an experiment log
    # (stored file 37873364865: a cache written through a slice), a training project's notes (stored file
    # 53826458013: spectral_norm's in-place weight hooks under torch.compile; the line broken as stored)
    rla = (
        "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [torch.cuda.FloatTensor [128, 2048, 7, 7]], which is output 0 of CudnnBatchNormBackward, "
        "is at version 2; expected version 0 instead. Hint: enable anomaly detection to find the operation "
        "that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True)."
    )
    pidnet = (
        "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [torch.cuda.FloatTensor [4, 512, 16, 16]], which is output 0 of ConstantPadNdBackward, "
        "is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation "
        "that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True)."
    )
    cache = (
        "```RuntimeError: one of the variables needed for gradient computation has been modified by an "
        "inplace operation: [torch.cuda.FloatTensor [27, 4, 606, 8]], which is output 0 of "
        "AsStridedBackward0, is at version 19; expected version 18 instead. Hint: the backtrace further "
        "above shows the operation that failed to compute its gradient. The variable in question was "
        "changed in there or anywhere later. Good luck!```"
    )
    compiled = (
        "   RuntimeError: one of the variables needed for gradient computation has been\n"
        "   modified by an inplace operation: [torch.cuda.FloatTensor [1]] is at version\n"
        "   3; expected version 2"
    )
    for text in (rla, pidnet, cache, compiled):
        lead = _led_by(text, "autograd.modified_in_place")
        assert "in place" in lead.cause and "inplace=True" in lead.cause, lead.cause
        assert "set_detect_anomaly(True)" in lead.fix.text and "x = x + y" in lead.fix.text, lead.fix
        assert ".clone()" in lead.fix.text, lead.fix
    assert _led_by(pidnet, "autograd.modified_in_place").evidence == (
        "torch.cuda.FloatTensor [4, 512, 16, 16], output 0 of ConstantPadNdBackward, was changed in place "
        "after autograd saved it: at version 1, saved at version 0",
    )
    assert _led_by(compiled, "autograd.modified_in_place").evidence == (
        "torch.cuda.FloatTensor [1] was changed in place after autograd saved it: at version 3, saved at "
        "version 2",
    )


def test_an_operation_refused_during_cuda_graph_capture_is_a_host_read_or_sync_in_the_graph() -> None:
    # CUDA's refusal during stream capture was read by no entry: a server's review notes (stored file
    # 56309513234: seq_lens.max().item() during capture; host reads removed), a serving guide (stored file
    # 70225898596: allocation, synchronize or I/O in the capture; buffers allocated before it), torch's Adam
    # (stored file 22235517734: a bias correction kept on the GPU so that it can be captured), an
    # environment's to-do (stored file 71182948652: CUDA graphs under PyTorch)
    sglang = (
        "   torch.AcceleratorError: CUDA error: operation not permitted when stream is capturing\n"
        "   ...\n"
        "   selection_kernel.py:361, in _compute_logical_token_scores\n"
        "       max_seq_len = int(seq_lens.max().item()) if bs > 0 else 0"
    )
    guide = "*   **Gejala**: Error `CUDA error: operation not permitted when stream is capturing`."
    adam = (
        "            # 1 - beta1 ** step can't be captured in a CUDA graph, even if step is a CUDA tensor\n"
        '            # (incurs "RuntimeError: CUDA error: operation not permitted when stream is capturing")'
    )
    todo = (
        "RuntimeError: CUDA error: operation not permitted when stream is capturing\n"
        "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
        "might be incorrect."
    )
    for text in (sglang, guide, adam, todo):
        lead = _led_by(text, "cuda.graph_capture_refused")
        assert ".item()" in lead.cause and "synchronize" in lead.cause, lead.cause
        assert "--enforce-eager" in lead.fix.text and "mode='default'" in lead.fix.text, lead.fix
    assert _led_by(sglang, "cuda.graph_capture_refused").evidence == (
        "the text shows .item() near the capture: a GPU value read on the host, which a capture cannot hold",
    )
    assert _led_by(todo, "cuda.graph_capture_refused").evidence == ()


def test_no_xpu_device_is_the_intel_gpu_runtime_the_gpu_or_what_the_process_is_let_see() -> None:
    # torch's XPU backend finding no Intel GPU was read by no entry: intel/torch-xpu-ops#4787 (a Level Zero
    # older than the build's; fixed in a merged pull request), vladmandic/sdnext#3201 (IPEX's words; the
    # compute runtime updated), a model's notes (stored file 26708263918: an HD 5500, older than the backend
    # takes), a lab's notes (stored file 67320086638: ONEAPI_DEVICE_SELECTOR and ZE_AFFINITY_MASK both set), a
    # host's notes (stored file 59554738884: a device reset; only a reboot clears it)
    xpu_ops = "RuntimeError: No XPU devices are available"
    sdnext = (
        "[W Device.cpp:127] Warning: XPU Device count is zero! (function initGlobalDevicePoolState)\n"
        "Segmentation fault (core dumped)"
    )
    old_gpu = "# HD 5500: RuntimeError: No XPU devices are available"
    selectors = (
        "| `ONEAPI_DEVICE_SELECTOR` | `ZE_AFFINITY_MASK` | result |\n"
        "| --- | --- | --- |\n"
        "| `level_zero:0` | `0` | OK |\n"
        "| `level_zero:1` | `1` | **No XPU devices are available** |"
    )
    reset = (
        "device/reset`) disables the mei_gsc firmware and makes both cards\n"
        "unusable (`No XPU devices are available`). Only a host reboot clears it."
    )
    for text in (xpu_ops, sdnext, old_gpu, selectors, reset):
        lead = _led_by(text, "xpu.no_devices")
        assert "Level Zero" in lead.cause and "/dev/dri" in lead.cause, lead.cause
        assert "ZE_AFFINITY_MASK" in lead.cause, lead.cause
        assert "sycl-ls" in lead.fix.commands and "render" in lead.fix.text, lead.fix
        assert "reboot" in lead.fix.text, lead.fix
    assert _led_by(selectors, "xpu.no_devices").evidence == (
        "the text sets ONEAPI_DEVICE_SELECTOR and ZE_AFFINITY_MASK: one numbers the devices within what the "
        "other left, so together they find card 0 only; set one of them",
    )
    assert _led_by(xpu_ops, "xpu.no_devices").evidence == ()


def test_backward_on_a_tensor_without_a_graph_is_no_grad_frozen_inputs_or_a_step_outside_autograd() -> None:
    # autograd's refusal to backward through a tensor that has no graph was read by no entry: a fine-tuning
    # script (stored file 37459456585: a 4-bit base model with gradient checkpointing;
    # enable_input_require_grads), torch's own C++ test (stored file 5836869161: backward under NoGradGuard),
    # a library's documentation (stored file 56522207185: a step computed outside torch)
    qlora = (
        "    # prevent ```RuntimeError: element 0 of tensors does not require grad and does not have a "
        "grad_fn```\n"
        "    model.enable_input_require_grads()"
    )
    no_grad = (
        "TEST(NoGradTest, SetsGradModeCorrectly) {\n"
        "  torch::manual_seed(0);\n"
        "  torch::NoGradGuard guard;\n"
        "  torch::nn::Linear model(5, 2);\n"
        "  auto x = torch::randn({10, 5}, torch::requires_grad());\n"
        "  auto y = model->forward(x);\n"
        "  torch::Tensor s = y.sum();\n"
        "\n"
        "  // Mimicking python API behavior:\n"
        "  ASSERT_THROWS_WITH(\n"
        "      s.backward(),\n"
        '      "element 0 of tensors does not require grad and does not have a grad_fn")'
    )
    outside = (
        "  forward pass, this error will be shown::\n"
        "\n"
        "      element 0 of tensors does not require grad and does not have a grad_fn"
    )
    for text in (qlora, no_grad, outside):
        lead = _led_by(text, "autograd.no_graph")
        assert "torch.no_grad()" in lead.cause and "requires_grad=False" in lead.cause, lead.cause
        assert "gradient checkpointing" in lead.cause and ".item()" in lead.cause, lead.cause
        assert "enable_input_require_grads()" in lead.fix.text and "use_reentrant=False" in lead.fix.text
        assert "loss.requires_grad" in lead.fix.text, lead.fix
    assert _led_by(no_grad, "autograd.no_graph").evidence == (
        "the text shows NoGradGuard: what is computed under it has no graph to go back through",
    )
    assert _led_by(outside, "autograd.no_graph").evidence == ()


def test_no_kernel_image_under_a_faiss_assertion_is_faiss_gpus_build_not_torchs() -> None:
    # "no kernel image" inside faiss's own assertion was told as torch's build or an extension built here:
    # a pipeline's notes (stored file 61920153312: faiss-gpu-cu12 1.14.1 without sm_120; faiss-cpu), a set-up
    # guide (stored file 42338990819: another faiss-gpu release), a library's probe (stored file
    # 69572800039: a build for sm_80 on an H100; faiss's abort caught in a child process)
    notes = (
        "Faiss assertion 'err__ == cudaSuccess' failed in runL2Norm at L2Norm.cu:257;\n"
        "details: CUDA error 209 no kernel image is available for execution on the device"
    )
    guide = (
        "Faiss assertion 'err__ == cudaSuccess' failed in void faiss::gpu::runL2Norm... \n"
        "CUDA error 209 no kernel image is available for execution on the device"
    )
    probe = (
        "        Faiss assertion 'err__ == cudaSuccess' failed ... CUDA error 209\n"
        "        no kernel image is available for execution on the device"
    )
    for text in (notes, guide, probe):
        lead = _led_by(text, "cuda.no_kernel_image")
        assert lead.cause.startswith("The kernel that failed is faiss's"), lead.cause
        assert "faiss-cpu" in lead.fix.text and "CMAKE_CUDA_ARCHITECTURES" in lead.fix.text, lead.fix
        assert (
            lead.evidence[-1] == "the kernel that failed is faiss's GPU code (its assertion on a CUDA error)"
        )


def test_a_name_torch_lacks_is_told_by_the_names_of_a_known_release() -> None:
    # "module 'torch' has no attribute" was read by no entry; checks/install/data/torch_names.json holds the
    # names of the release tools/torch_names.py read: a name it has is an older torch than the code (a
    # notebooks' report, stored file 62018143594: transformers 5 and torch.float8_e8m0fnu, an older NGC
    # torch; a project's notes, stored file 28633973119: get_default_device, torch upgraded; an image's
    # notes, stored file 68991070625: vllm and torch.float4_e2m1fn_x2 on torch 2.7.1), a name it lacks is no
    # name of that release (stored file 2984357016: torch.byte; stored file 14296816114: channels_last_1d),
    # torch.cuda missing is a module that is not torch (stored file 66480121386: a folder named torch)
    release = catalogue_names_release()
    transformers = (
        "| `hugging_face/hugging_face_pipeline_for_monai.ipynb` | `ModuleNotFoundError: Could not import "
        "module 'PreTrainedModel'` (caused by `AttributeError: module 'torch' has no attribute "
        "'float8_e8m0fnu'`) |"
    )
    default_device = (
        "AttributeError: module 'torch' has no attribute 'get_default_device'\n"
        "Solution: update torch and torchvision"
    )
    vllm = "`AttributeError: module 'torch' has no attribute 'float4_e2m1fn_x2'`，**native 基线直接起不来**。"
    for text, name in (
        (transformers, "float8_e8m0fnu"),
        (default_device, "get_default_device"),
        (vllm, "float4_e2m1fn_x2"),
    ):
        lead = _led_by(text, "torch.attribute_missing")
        assert lead.evidence == (
            f"torch {release} has torch.{name}: the installed torch is older than the code needs",
        ), lead.evidence
        assert "torch.__version__" in lead.fix.text and "requirements" in lead.fix.text, lead.fix
    jit = "jit:\nAttributeError: module 'torch' has no attribute 'byte'"
    layout = "AttributeError: module 'torch' has no attribute 'channels_last_1d'"
    for text, name in ((jit, "byte"), (layout, "channels_last_1d")):
        lead = _led_by(text, "torch.attribute_missing")
        assert lead.evidence == (
            f"torch {release} has no torch.{name} either: no name of that release (a misspelling, a name of "
            "another package, or one removed before it)",
        ), lead.evidence
    namespace = (
        "   fails with `AttributeError: module 'torch' has no attribute 'cuda'` — during\n"
        "   rendering, after the images are already loaded and registered."
    )
    lead = _led_by(namespace, "torch.attribute_missing")
    assert lead.evidence == (
        "every torch has torch.cuda: the module imported as torch is not torch (a file or folder named torch "
        "on the path, an empty namespace package, a broken install)",
    ), lead.evidence


def test_a_name_torchs_own_code_lacks_is_left_unread() -> None:
    # torch's own code calling a name its release lacks is a bug of torch, no environment's (pytorch/pytorch
    # #127676 in tests/corpus/issues: torch.mps.device from torch/utils/checkpoint.py, left open)
    linked = (
        "I'm getting the error `module 'torch.mps' has no attribute 'device'` trying to train a "
        "`sentence-transformer model (which uses the huggingface transformers trainer).\n\n"
        "The error is raised on this line -> https://github.com/pytorch/pytorch/blob/"
        "7ef7c265d4361691dc4cf54152db083de3215fbf/torch/utils/checkpoint.py#L183"
    )
    assert "torch.attribute_missing" not in [e.id for e in _explained(linked)]
    # the same from a traceback whose last frame is torch's (built around Python's frame lines)
    framed = (
        '  File "/opt/venv/lib/python3.10/site-packages/torch/utils/checkpoint.py", line 183, in '
        "get_device_states\n"
        "    with device_module.device(device):\n"
        "AttributeError: module 'torch.mps' has no attribute 'device'"
    )
    assert "torch.attribute_missing" not in [e.id for e in _explained(framed)]


def catalogue_names_release() -> str:
    return str(tables.load("torch_names.json")["torch"])


def test_a_flash_backward_that_needs_sm80_or_sm90_is_told_to_train_without_the_flash_kernel() -> None:
    # torch's check "is_sm80 || is_sm90" (its SDPA flash backward off the A100 and H100) was read by no
    # entry: a GRPO script's notes (stored file 66410235738: a T4 with gradient checkpointing; flash and
    # memory-efficient SDPA off), a PPO trainer (stored file 10399058500: sdp_kernel(enable_flash=False)), a
    # chat log's link to pytorch/pytorch#98771 (stored file 16063542935: consumer cards, batch sizes above 6)
    grpo = (
        "    T4 (sm75) 上禁用需要 sm80/sm90 的 attention kernel，与 SFT 脚本保持一致。\n"
        "    否则在梯度检查点的 backward 路径可能触发：\n"
        "    'Expected is_sm80 || is_sm90 to be true'"
    )
    ppo = "            # Fix for RuntimeError: Expected is_sm80 || is_sm90 to be true, but got false."
    linked = (
        "Expected is_sm80 || is_sm90 to be true, but got false. (on batch size &gt; 6) · Issue #98771 · "
        "pytorch/pytorch</a>: Description The following error is thrown when attempting to train with batch "
        "sizes &gt; 6 on consumer cards (I have verified with my 3080 ti)"
    )
    for text in (grpo, ppo, linked):
        lead = _led_by(text, "sdpa.flash_backward_needs_sm80_or_sm90")
        assert "sm_80" in lead.cause and "sm_90" in lead.cause and "backward" in lead.cause, lead.cause
        assert "enable_flash_sdp(False)" in lead.fix.text, lead.fix
        assert "enable_mem_efficient_sdp(False)" in lead.fix.text, lead.fix


def test_a_launch_timed_out_is_the_display_watchdog_stopping_a_long_kernel() -> None:
    # CUDA's launch timeout was read by no entry: a server's benchmark notes (stored file 69227107719:
    # Windows' TDR watchdog at a long context), an incident report (stored file 61936040095: the driver's RC
    # watchdog, Xid 8; its timeout raised), a toolbox's FAQ (stored file 15073649032: the OS's watchdog; TCC
    # mode on a Tesla), a notebook's notes (stored file 43563475103: smaller images on a smaller GPU)
    tdr = (
        "    CUDA error: the launch timed out and was terminated\n"
        "\n"
        "which is the Windows TDR watchdog resetting the driver."
    )
    xid = (
        "NVRM: krcWatchdog_IMPL: RC watchdog: GPU is probably locked! Notify Timeout Seconds: 7\n"
        "NVRM: Xid (PCI:0000:01:00): 8, name=llama-server, channel 0x0000000d\n"
        "CUDA error: the launch timed out and was terminated\n"
        "ggml_backend_cuda_synchronize -> cudaStreamSynchronize"
    )
    faq = '**Q: I get "the launch timed out and was terminated" error when I run big images\nin my computer**'
    notebook = "RuntimeError: CUDA error: the launch timed out and was terminated"
    for text in (tdr, xid, faq, notebook):
        lead = _led_by(text, "cuda.launch_timeout")
        assert "watchdog" in lead.cause and "display" in lead.cause, lead.cause
        assert "TdrDelay" in lead.fix.text and "TCC" in lead.fix.text, lead.fix
        assert "smaller batch" in lead.fix.text, lead.fix
    assert _led_by(xid, "cuda.launch_timeout").evidence == (
        "the driver's RC watchdog stopped the GPU's channel (Xid 8; its notify timeout 7 s)",
    )
    assert _led_by(notebook, "cuda.launch_timeout").evidence == ()


def test_an_uncorrectable_ecc_error_is_the_gpus_memory_failing() -> None:
    # CUDA's uncorrectable ECC error was read by no entry: a dry run's notes (stored file 71622757073: the
    # engine failed at start; nvidia-smi's ECC report, 301 uncorrectable DRAM errors; another node), a GPU
    # troubleshooting guide (stored file 53722428923: failed memory cells; nvidia-smi -q -d ECC), a job
    # checker's catch phrases (stored file 12995201963: "GPU error")
    dry_run = (
        "  model and failed at 17:22:55, during its start, with\n"
        "  `torch.AcceleratorError: CUDA error: uncorrectable ECC error encountered`\n"
        "  (line 163)."
    )
    guide = (
        "Ou processos de GPU crasham intermitentemente com `CUDA error: uncorrectable ECC error encountered`."
    )
    phrases = (
        '                "catch_phrase": "uncorrectable ECC error encountered",\n'
        '                "note": "GPU error"'
    )
    for text in (dry_run, guide, phrases):
        lead = _led_by(text, "cuda.ecc_uncorrectable")
        assert "ECC" in lead.cause and "hardware" in lead.cause, lead.cause
        assert "nvidia-smi -q -d ECC" in lead.fix.commands and "another GPU" in lead.fix.text, lead.fix


def test_torchs_words_for_cudas_initialization_error_are_read_as_that_error() -> None:
    # c10/cuda/CUDAFunctions.cpp words cudaErrorInitializationError as "CUDA driver initialization failed,
    # you might not have a CUDA gpu.", which no entry read: a service's notes (stored file 53556373703:
    # vLLM's workers started with spawn), a project's README (stored file 7102859071: the job run from a
    # node without a usable GPU; srun first), a job script's notes (stored file 62460462233: a pod whose
    # driver went bad; a fresh pod), a test report (stored file 2781403510: device_count's warning)
    vllm = (
        "If you hit:\n"
        "\n"
        "```text\n"
        "RuntimeError: CUDA driver initialization failed, you might not have a CUDA gpu.\n"
        "```\n"
        "\n"
        "run:\n"
        "\n"
        "```bash\n"
        "export VLLM_WORKER_MULTIPROC_METHOD=spawn\n"
        "```"
    )
    slurm = "Error: `RuntimeError: CUDA driver initialization failed, you might not have a CUDA gpu.`"
    pod = (
        "# bad at ~00:10, every eval started after that died in torch._C._cuda_init with\n"
        '# "CUDA driver initialization failed, you might not have a CUDA gpu", and two'
    )
    warned = "CUDA initialization: CUDA driver initialization failed, you might not have a CUDA gpu."
    for text in (vllm, slurm, pod, warned):
        lead = _led_by(text, "cuda.initialization_error")
        assert "forked" in lead.cause and "no usable GPU" in lead.cause, lead.cause
        assert "VLLM_WORKER_MULTIPROC_METHOD=spawn" in lead.fix.text and "another node" in lead.fix.text


def test_too_many_resources_for_a_launch_is_the_kernels_block_size_against_the_register_file() -> None:
    # CUDA's cudaErrorLaunchOutOfResources was read by no entry: a kernel tuning log (stored file
    # 55586211703: 1024 threads x 72 registers above the A100's 65536), a project's troubleshooting (stored
    # file 25641098683: fewer threads), a benchmark's research notes (stored file 67137621974: a 512-thread
    # tile on a T4, dropped), a kernel's header (stored file 7841903894: a smaller block in debug builds)
    a100 = (
        "- **`4x4 128x128` 启动失败**（非真实 GFLOPS）：block = 32×32 = 1024 线程，"
        "1024×72 = 73728 > 65536（A100 每 SM 寄存器上限）→ "
        '"too many resources requested for launch"。边界教训：`线程数 × 寄存器 ≤ 65536`。'
    )
    threads = (
        '### CUDA Error "too many resources requested for launch"\n'
        "\n"
        "Este erro ocorre quando o número de registradores necessário para executar o código CUDA\n"
        "excede o disponível na GPU."
    )
    t4 = (
        "The v256 Kaggle T4 run reached the benchmark but failed with `CUDA error: too many resources "
        "requested for launch` when the M=128,N=128 candidate was selected."
    )
    debug = (
        " * NOTE: If compiled in debug mode it may be necessary to drop NAS_DIMY to 16\n"
        ' *       else you may get Error "too many resources requested for launch"'
    )
    for text in (a100, threads, t4, debug):
        lead = _led_by(text, "cuda.launch_out_of_resources")
        assert "registers" in lead.cause and "threads per block" in lead.cause, lead.cause
        assert "debug" in lead.cause, lead.cause
        assert "fewer threads per block" in lead.fix.text and "-maxrregcount" in lead.fix.text, lead.fix


def test_peer_access_unsupported_is_p2p_asked_for_where_the_machine_forbids_it() -> None:
    # CUDA's cudaErrorPeerAccessUnsupported (217) was read by no entry: SGLang's documentation (stored file
    # 899599846: --enable-p2p-check), a training guide (stored file 55824262865: AWS G5, NCCL_P2P_DISABLE=1),
    # a launcher's notes (stored file 59656430237: one GPU visible per Ray worker; NCCL_CUMEM_ENABLE=0), an
    # engine's documentation (stored file 24091842365: NCCL_P2P_DISABLE=1)
    sglang = (
        '- To enable multi-GPU tensor parallelism, add `--tp 2`. If it reports the error "peer access is not '
        'supported between these two devices", add `--enable-p2p-check` to the server launch command.'
    )
    g5 = (
        "### CUDA: `peer access is not supported between these two devices`\n"
        "\n"
        "This error can occur on the G5 GPU suite on AWS. Set the environment variable `NCCL_P2P_DISABLE=1`."
    )
    ray = (
        "    # 症状：FSDP 初始化的第一次参数广播直接炸\n"
        "    #     transport/shm.cc:590 NCCL WARN Cuda failure 217\n"
        "    #     'peer access is not supported between these two devices'"
    )
    engine = (
        "- `Cuda failure 'peer access is not supported between these two devices' [repeated 15x across "
        "cluster]`"
    )
    for text in (sglang, g5, ray, engine):
        lead = _led_by(text, "cuda.peer_access_unsupported")
        assert "peer-to-peer" in lead.cause and "CUDA_VISIBLE_DEVICES" in lead.cause, lead.cause
        assert "NCCL_P2P_DISABLE=1" in lead.fix.text and "NCCL_CUMEM_ENABLE=0" in lead.fix.text, lead.fix
        assert "--enable-p2p-check" in lead.fix.text and "nvidia-smi topo -p2p r" in lead.fix.commands
    assert _led_by(ray, "cuda.peer_access_unsupported").evidence == (
        "NCCL's shared-memory transport (transport/shm.cc) asked for it",
    )


def test_cudnn_finding_no_engine_is_the_dtype_the_memory_or_the_gpu_the_build_left_out() -> None:
    # cuDNN's "GET was unable to find an engine" was read by no entry: an experiment's log (stored file
    # 65729022238: bfloat16 on a T4; the precision chosen by is_bf16_supported()), a helper's notes (stored
    # file 71040684492: no room for the workspace, a GPU still occupied), a pipeline's notes (stored file
    # 68399132611: Blackwell with torch 2.11's cuDNN; cuDNN off), a cluster's notes (stored file 57958977000:
    # a P100 that the build does not take)
    t4 = (
        "| C15 | A **T4 has no bf16**. The base generated fine in bf16 and every LoRA generation then died "
        'with "GET was unable to find an engine to execute this computation" — reported as 0/60 **[ran]** |'
    )
    workspace = (
        "    cuDNN reports a genuinely misleading error when it cannot reserve\n"
        "    convolution workspace::\n"
        "\n"
        "        RuntimeError: GET was unable to find an engine to execute this computation\n"
        "\n"
        '    That is really "out of memory", usually caused by an earlier run that\n'
        "    crashed before releasing its models."
    )
    blackwell = (
        "# Blackwell (sm_120) + torch 2.11/cu128: cuDNN's heuristic cannot find an engine\n"
        '# for some SDXL conv configs — "GET was unable to find an engine to execute this\n'
        '# computation" at conv2d.'
    )
    pascal = (
        "Tesla P100-PCIE-16GB with CUDA capability sm_60 is not compatible\n"
        "RuntimeError: GET was unable to find an engine to execute this computation"
    )
    for text in (t4, workspace, blackwell, pascal):
        lead = _led_by(text, "cudnn.no_engine")
        assert "bfloat16" in lead.cause and "workspace" in lead.cause, lead.cause
        assert "torch.backends.cudnn.enabled = False" in lead.fix.text, lead.fix
        assert "get_device_capability()[0] >= 8" in lead.fix.text, lead.fix
        assert "LD_LIBRARY_PATH" in lead.cause, lead.cause
    assert "the text runs bfloat16" in _led_by(t4, "cudnn.no_engine").evidence[0]
    assert _led_by(pascal, "cudnn.no_engine").evidence == (
        "torch's warning above: the GPU is not one this torch build was made for (sm_60)",
    )
    # an environment's notes (stored file 58552050984: a system libcudnn ahead of the venv's)
    shadowed = (
        "시스템 `/usr/lib/x86_64-linux-gnu/libcudnn_cnn_train.so.8`(8.9.0)이 venv의 8.9.2.26을 가려 "
        "`undefined symbol` → `RuntimeError: GET was unable to find an engine to execute this computation`."
    )
    assert _led_by(shadowed, "cudnn.no_engine").fix.commands[-1] == "echo $LD_LIBRARY_PATH"


def test_bfloat16_is_chosen_by_the_compute_capability_not_by_an_emulated_answer() -> None:
    # torch.cuda.is_bf16_supported() answers True on Turing from torch 2.4 on (including_emulation=True by
    # default, torch/cuda/__init__.py): a synthesis tool's notes (stored file 58188516864: a bfloat16 model on
    # a 2070 SUPER, every synthesis failing). No fix of the catalogue offers the bare call as the test.
    for entry in ENTRIES:
        said = " ".join((entry.fix.text, *entry.fix.commands))
        assert (
            "is_bf16_supported())" not in said and "choose with torch.cuda.is_bf16_supported()" not in said
        ), entry.id
    assert (
        "get_device_capability()[0] >= 8"
        in _led_by("ValueError: Your setup doesn't support bf16/gpu.", "dtype.bf16_unsupported").fix.text
    )


def test_a_compiled_module_named_past_its_cuda_suffix_is_an_extension_never_built() -> None:
    # The VMamba family's kernels (kernels/selective_scan) build modules named past "_cuda": "_core",
    # "_oflex", "_oflex_rh". EdwardChasel/Spatial-Mamba#11 ('check whether the kernels/selective_scan
    # package is successfully installed'), devinxzhang/MFuser#5 (the selective_scan folder built, from
    # DAMamba), MzeroMiko/VMamba#203 ('cd kernels/selective_scan && pip install .'), a project's notes
    # (stored file 53226607593: the compiled .so not on the module path)
    for module in ("selective_scan_cuda_oflex_rh", "selective_scan_cuda_oflex", "selective_scan_cuda_core"):
        text = f"ModuleNotFoundError: No module named '{module}'"
        lead = _led_by(text, "extension.not_built")
        said = lead.evidence[0]
        assert said.startswith(f"the missing module {module} is a compiled extension"), said
    # a name with a module after it is a package's, not a compiled module's (constructed)
    assert "extension.not_built" not in _ids("ModuleNotFoundError: No module named 'numba_cuda_utils.x'")


def test_a_missing_system_library_is_installed_by_the_package_that_provides_it() -> None:
    # The fix's command installed libGL and GLib whatever library was missing. A Dockerfile's notes (stored
    # file 69821938345: RDKit's drawing on a slim image, libxrender1), another's (stored file 68572145440:
    # RDKit's PandasTools, libsm6 among the X11 ones), bentoml/BentoYolo#7 (cv2 on a slim image, libgl1;
    # merged), PDFMathTranslate/PDFMathTranslate#561 (cv2's glib in the Docker image; merged)
    cases = [
        ("libXrender.so.1: cannot open shared object file", "libxrender1"),
        ("libSM.so.6: cannot open shared object file", "libsm6"),
        ("ImportError: libGL.so.1: cannot open shared object file: No such file or directory", "libgl1"),
        (
            "ImportError: libgthread-2.0.so.0: cannot open shared object file: No such file or directory",
            "libglib2.0-0",
        ),
    ]
    for text, package in cases:
        lead = _led_by(text, "lib.cannot_open_shared_object")
        command = lead.fix.commands[0]
        assert command.startswith("sudo apt-get install -y ") and package in command.split(), command
        assert f"sudo apt-get install {package}." in lead.fix.text, lead.fix.text
    # a name that ends in a digit takes a hyphen before the soname's version (Debian's libx11-6)
    assert install_explanations.debian_package("libX11.so.6") == "libx11-6"


def test_gccs_openmp_runtime_missing_is_the_systems_not_torchs() -> None:
    # A plain libgomp.so.1 that another package loads is the system's GCC OpenMP runtime, which slim images
    # lack; torch was told to be reinstalled. isl-org/Open3D#3388 ('apt install libgomp1' in the Dockerfile),
    # a service's notes (stored file 59823313639: LightGBM on python:3.12-slim), a Dockerfile's (stored file
    # 71620765684: XGBoost), a guide's (stored file 12228862984: 'sudo apt install libgomp1')
    open3d = (
        "Traceback (most recent call last):\n"
        '  File "<string>", line 1, in <module>\n'
        '  File "/usr/local/lib/python3.8/dist-packages/open3d/__init__.py", line 56, in <module>\n'
        "    _CDLL(next((_Path(__file__).parent / 'cpu').glob('pybind*')))\n"
        '  File "/usr/lib/python3.8/ctypes/__init__.py", line 373, in __init__\n'
        "    self._handle = _dlopen(self._name, mode)\n"
        "OSError: libgomp.so.1: cannot open shared object file: No such file or directory"
    )
    for text in (
        open3d,
        "    OSError: libgomp.so.1: cannot open shared object file",
        "ImportError: libgomp.so.1: cannot open shared object file",
    ):
        lead = _led_by(text, "lib.cannot_open_shared_object")
        assert "OpenMP" in lead.cause and "reinstalling torch does not" in lead.cause, lead.cause
        assert lead.fix.commands[0] == "sudo apt-get install -y libgomp1", lead.fix.commands
    # torch's own copy (torch/lib/libgomp.so.1 in torch 2.13's wheel), failing where torch loads it, stays
    # torch's (constructed)
    torchs = (
        '  File "/venv/lib/python3.11/site-packages/torch/__init__.py", line 290, in <module>\n'
        "    ctypes.CDLL(global_deps_lib_path, mode=ctypes.RTLD_GLOBAL)\n"
        "OSError: libgomp.so.1: cannot open shared object file: No such file or directory"
    )
    assert "OpenMP" not in _led_by(torchs, "lib.cannot_open_shared_object").cause


def test_keys_of_another_model_are_the_model_the_checkpoint_was_made_from() -> None:
    # Missing and unexpected keys with no 'module.' prefix were read by no entry. Ha0Tang/DAGAN#7 (the
    # released weights of another version of the code; the maintainer re-released them),
    # TissueImageAnalytics/tiatoolbox#339 (a release's misspelled attribute; fixed in the next),
    # Xiyue-Wang/TransPath#11 (stock timm, not the authors' modified one: another patch embedding),
    # junyanz/pytorch-CycleGAN-and-pix2pix#461 (the generator built with dropout: '--no_dropout', the same
    # --netG and --norm as at training, the maintainer)
    dagan = (
        "RuntimeError: Error(s) in loading state_dict for SPADEGenerator:\n"
        '        Missing key(s) in state_dict: "channelAtt.conv1.weight", "channelAtt.conv1.bias", '
        '"channelAtt.conv2.weight", "channelAtt.conv2.bias". \n'
        '        Unexpected key(s) in state_dict: "cab.conv1.weight", "cab.conv1.bias", '
        '"cab.conv2.weight", "cab.conv2.bias". '
    )
    tiatoolbox = (
        "RuntimeError: Error(s) in loading state_dict for CNNmodel:\n"
        "Missing key(s) in state_dict: 'classifer.weight', 'classifer.bias'.\n"
        "Unexpected key(s) in state_dict: 'classifier.weight', 'classifier.bias'."
    )
    transpath = (
        "RuntimeError: Error(s) in loading state_dict for SwinTransformer:\n"
        '\tMissing key(s) in state_dict: "patch_embed.proj.weight", "patch_embed.proj.bias". \n'
        '\tUnexpected key(s) in state_dict: "patch_embed.proj.0.weight", "patch_embed.proj.1.weight", '
        '"patch_embed.proj.1.bias", "patch_embed.proj.1.running_mean", "patch_embed.proj.1.running_var", '
        '"patch_embed.proj.1.num_batches_tracked", "patch_embed.proj.3.weight", '
        '"patch_embed.proj.4.weight", "patch_embed.proj.4.bias", "patch_embed.proj.4.running_mean", '
        '"patch_embed.proj.4.running_var", "patch_embed.proj.4.num_batches_tracked", '
        '"patch_embed.proj.6.weight", "patch_embed.proj.6.bias".'
    )
    cyclegan = (
        "RuntimeError: Error(s) in loading state_dict for ResnetGenerator:\n"
        '\tMissing key(s) in state_dict: "model.10.conv_block.6.weight", "model.10.conv_block.6.bias", '
        '"model.11.conv_block.6.weight", "model.11.conv_block.6.bias", "model.12.conv_block.6.weight", '
        '"model.12.conv_block.6.bias", "model.13.conv_block.6.weight", "model.13.conv_block.6.bias", '
        '"model.14.conv_block.6.weight", "model.14.conv_block.6.bias", "model.15.conv_block.6.weight", '
        '"model.15.conv_block.6.bias", "model.16.conv_block.6.weight", "model.16.conv_block.6.bias", '
        '"model.17.conv_block.6.weight", "model.17.conv_block.6.bias", "model.18.conv_block.6.weight", '
        '"model.18.conv_block.6.bias". \n'
        '\tUnexpected key(s) in state_dict: "model.10.conv_block.5.weight", "model.10.conv_block.5.bias"'
    )
    for text in (dagan, tiatoolbox, transpath, cyclegan):
        lead = _led_by(text, "load.keys_mismatch")
        assert "another version" in lead.cause and "options" in lead.cause, lead.cause
        assert "strict=False" in lead.fix.text and "randomly initialised" in lead.fix.text, lead.fix
    renamed = {
        dagan: ("channelAtt.conv1.weight", "cab.conv1.weight"),
        tiatoolbox: ("classifer", "classifier"),
    }
    for text, (model, checkpoint) in renamed.items():
        said = " ".join(_led_by(text, "load.keys_mismatch").evidence)
        assert "the same layers under other names" in said and model in said and checkpoint in said, said
    said = " ".join(_led_by(transpath, "load.keys_mismatch").evidence)
    assert "SwinTransformer" in said and "2 keys" in said and "14 keys" in said, said
    assert "under other names" not in said
    # a checkpoint with DataParallel's prefix stays the prefix's (constructed)
    prefixed = (
        "RuntimeError: Error(s) in loading state_dict for Net:\n"
        '\tMissing key(s) in state_dict: "conv.weight". \n'
        '\tUnexpected key(s) in state_dict: "module.conv.weight". '
    )
    assert "load.keys_mismatch" not in _ids(prefixed)


def test_an_out_of_memory_at_a_batch_of_one_is_not_told_to_lower_the_batch() -> None:
    # With the message's figures the fix led with lowering the batch, and named the program's batch option
    # to lower, where the text says the batch is 1 already. open-mmlab/mmdetection#3585 (images resized: 'I
    # solved it'), wmcnally/golfdb#10 (a shorter seq_length, the maintainer; 'it works'),
    # facebookresearch/detectron2#1902 (images resized to 800x800, the reporter)
    mmdetection = (
        "Hi, I have the below problem \n"
        "\n"
        "RuntimeError: CUDA out of memory. Tried to allocate 6.96 GiB (GPU 0; 7.80 GiB total capacity; "
        "721.23 MiB already allocated; 6.05 GiB free; 792.00 MiB reserved in total by PyTorch)\n"
        "\n"
        " I configure with a batch size of 1, and with other models, I never had these problems, I can "
        "found solution for this problems"
    )
    golfdb = (
        "yes!. I reduced the batch size to 1 and now it works with train.py.. but the problem now is in "
        "running eval.py (is showing the same error) :\n"
        '"**RuntimeError: CUDA out of memory. Tried to allocate 58.00 MiB (GPU 0; 4.00 GiB total '
        "capacity; 2.49 GiB already allocated; 44.45 MiB free; 2.57 GiB reserved in total by "
        'PyTorch)**"".. \n'
        "have you any idea ??"
    )
    detectron2 = (
        "I met error:\n"
        "Exception has occurred: RuntimeError\n"
        "CUDA out of memory. Tried to allocate 190.00 MiB (GPU 0; 3.94 GiB total capacity; 2.12 GiB "
        "already allocated; 171.06 MiB free; 2.22 GiB reserved in total by PyTorch)\n"
        '  File "/media/thanhvt/HDD_Data/UbuntuWork/LenseProject/Lenses_Detectron2/train.py", line 121, '
        "in <module>\n"
        "    trainer.train()\n"
        "\n"
        "I used custom Dataloaders. If I use T.RandomApply(transform=T.Resize(shape=(800, 800)), "
        "prob=1), it run well. But If I comment this line and use origin image size (1920*1080), CUDA "
        "out of memory appear. As I know, I use batch size is 1 (cfg.SOLVER.IMS_PER_BATCH = 1)"
    )
    for text in (mmdetection, golfdb, detectron2):
        lead = _led_by(text, "cuda.out_of_memory")
        assert lead.fix.text.startswith("The text gives a batch of 1 ("), lead.fix.text
        assert "lowering the batch is no lever" in lead.fix.text, lead.fix.text
    assert "lower IMS_PER_BATCH" not in _led_by(detectron2, "cuda.out_of_memory").fix.text
    # a batch of 16 keeps the batch among the levers (constructed)
    sixteen = detectron2.replace("IMS_PER_BATCH = 1", "IMS_PER_BATCH = 16")
    assert "lower IMS_PER_BATCH" in _led_by(sixteen, "cuda.out_of_memory").fix.text


def test_no_driver_on_colab_is_a_runtime_without_a_gpu() -> None:
    # On Colab "Found no NVIDIA driver" is a CPU runtime: the fix was a driver to install. Colab's team
    # answers it so (googlecolab/colabtools#4425: 'select a GPU machine by Runtime -> Change runtime type';
    # #4876, #5329); lllyasviel/Fooocus#1583 (a notebook's cells; 'use a GPU instance (e.g. colab T4)', the
    # maintainer), googlecolab/colabtools#5136 (a traceback through /content/), camenduru/Fooocus-colab#25
    fooocus = (
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
        "installed a driver from http://www.nvidia.com/Download/index.aspx\n"
        "\n"
        "https://colab.research.google.com/drive\n"
        "\n"
        "!pip install pygit2==1.12.2\n"
        "%cd /content\n"
        "!git clone https://github.com/lllyasviel/Fooocus.git\n"
        "%cd /content/Fooocus\n"
        "!python entry_with_update.py --share"
    )
    colabtools = (
        "# RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
        "installed a driver from http://www.nvidia.com/Download/index.aspx\n"
        "\n"
        "mamusjpbr · description · 2025-02-26\n"
        "The driver is already installed, but appear that error.\n"
        "\n"
        'File "/content/Fooocus/entry_with_update.py", line 46, in <module>\n'
        "    from launch import *"
    )
    fooocus_colab = (
        "I am receiving this error now with colab.  I was working fine for me on the 22nd and 23rd of "
        "August.  Now on the 24th, I get this RuntimeError: Found no NVIDIA driver on your system. Please "
        "check that you have an NVIDIA GPU and installed a driver from "
        "http://www.nvidia.com/Download/index.aspx"
    )
    for text in (fooocus, colabtools, fooocus_colab):
        lead = _led_by(text, "cuda.no_driver")
        assert "Colab" in lead.cause and "no GPU" in lead.cause, lead.cause
        assert "Runtime > Change runtime type" in lead.fix.text, lead.fix.text
        assert "Install the NVIDIA driver" not in lead.fix.text
    # elsewhere the driver stays the fix, a project's own content/ folder included (constructed)
    bare = "RuntimeError: Found no NVIDIA driver on your system."
    assert "Change runtime type" not in _led_by(bare, "cuda.no_driver").fix.text
    project = f'  File "/home/ana/site/content/render.py", line 9, in <module>\n{bare}'
    assert "Change runtime type" not in _led_by(project, "cuda.no_driver").fix.text


def test_a_losss_class_weights_are_one_1d_weight_per_class() -> None:
    # torch's check (aten/src/ATen/native/LossNLL.cpp: weight.dim() == 1 && weight.numel() == n_classes)
    # was read by no entry. A weight of shape [1, C]: isl-org/Open3D-ML#668,
    # wjchaoGit/Group-Activity-Recognition#23 (and JacobYuan7/DIN-Group-Activity-Recognition-Benchmark#16,
    # the same code); weights for fewer classes
    # than the model's: andreagemelli/doc2graph#18 (weights from the labels of one graph; the reporter's fix
    # gave the absent class a weight), ispamm/MHyEEG#3 (two classes in the data, three outputs), a project's
    # notes (stored file 70685418318: the class count inferred as max + 1)
    open3d = (
        "RuntimeError: weight tensor should be defined either for all 8 classes or no classes but got weight "
        "tensor of shape: [1, 8]"
    )
    activity = (
        "RuntimeError: weight tensor should be defined either for all 9 classes or no classes but got weight "
        "tensor of shape: [1, 9]"
    )
    for text, count in ((open3d, 8), (activity, 9)):
        lead = _led_by(text, "loss.class_weights")
        assert lead.evidence == (f"the weight is 2-D, [1, {count}]: {count} weights in one row",), (
            lead.evidence
        )
        assert lead.fix.text.startswith("Make the weight 1-D: weight.view(-1)"), lead.fix.text
    doc2graph = (
        "    return torch.nn.CrossEntropyLoss(weight=torch.tensor(w, dtype=torch.float32).to('cuda:0'))"
        "(scores, labels)\n"
        "```\n"
        "RuntimeError: weight tensor should be defined either for all 4 classes or no classes but got weight "
        "tensor of shape: [3]"
    )
    mhyeeg = (
        "RuntimeError: weight tensor should be defined either for all 3 classes or no classes but got weight "
        "tensor of shape: [2]"
    )
    notes = (
        "            RuntimeError: weight tensor should be defined either for all 4\n"
        "            classes or no classes but got weight tensor of shape: [3]"
    )
    for text, (weights, classes) in ((doc2graph, (3, 4)), (mhyeeg, (2, 3)), (notes, (3, 4))):
        lead = _led_by(text, "loss.class_weights")
        said = f"{weights} weights for the {classes} classes of the loss's input"
        assert lead.evidence[0].startswith(said), lead.evidence
        assert "classes=np.arange(" in lead.fix.text, lead.fix.text


def test_a_cuda_symbol_a_package_needs_is_a_newer_cuda_library_than_torchs() -> None:
    # A symbol whose version tag names a CUDA library (", version libcublas.so.12") was read as one only where
    # nothing followed the tag: quoted in prose ('`...libcublas.so.12`', '"...libcublas.so.12".') it was
    # not. And a package's own library needing a newer cuBLAS than the one torch brings was told to let
    # torch's copy load. A service's notes (stored file 18505476274: cuSOLVER against torch's cuBLAS; one
    # CUDA set installed with pip), a plugin's notes (stored file 70307409418: libcusolver.so.11 needing a
    # newer cuBLAS than torch's), a guide (stored file 55879489389: cuequivariance_ops needs a cuBLAS newer
    # than torch 2.6.0+cu124's), a pipeline's notes (stored file 68617564145: libcue_ops.so)
    quoted = [
        "Error: `undefined symbol: cublasSetEnvironmentMode, version libcublas.so.12`",
        '"libcusolver.so.11: undefined symbol: cublasSetEnvironmentMode, version libcublas.so.12".',
    ]
    for text in quoted:
        lead = _led_by(text, "lib.undefined_symbol")
        said = "cublasSetEnvironmentMode is expected from libcublas.so.12 (the symbol's version tag)"
        assert said in " ".join(lead.evidence), lead.evidence
    guide = (
        "Error while loading libcue_ops.so: undefined symbol: cublasGemmGroupedBatchedEx, version "
        "libcublas.so.12\n"
        "ImportError: Error importing triangle_multiplicative_update from cuequivariance_ops_torch."
    )
    pipeline = (
        "Error while loading libcue_ops.so: /usr/local/lib/python3.11/site-packages/cuequivariance_ops/lib/"
        "libcue_ops.so: undefined symbol: cublasGemmGroupedBatchedEx, version libcublas.so.12"
    )
    for text in (guide, pipeline):
        lead = _led_by(text, "lib.undefined_symbol")
        assert "torch's own" in lead.cause and "older than" in lead.cause, lead.cause
        assert "a torch built for a newer CUDA release" in lead.fix.text, lead.fix.text
    # torch's own library needing a newer cuBLAS keeps the other copy found first as the cause (constructed)
    torchs = (
        "OSError: /venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: "
        "cublasLtHSHMatmulAlgoInit, version libcublasLt.so.12"
    )
    assert "torch's own" not in _led_by(torchs, "lib.undefined_symbol").cause


def test_a_cudnn_library_a_package_asks_for_names_the_cudnn_release_not_a_cuda_one() -> None:
    # libcudnn.so.9 asked for by onnxruntime's CUDA provider was told "built for CUDA 9": a cuDNN soname gives
    # cuDNN's major. Logs of onnxruntime's provider (stored file 40316212799: libcudnn.so.9, 'Require cuDNN
    # 9.* and CUDA 12.*'; stored file 61080216942: libcudnn.so.8), a notebook's notes (stored file
    # 59720098602: a provider linked against cuDNN 8 on an image that ships cuDNN 9)
    nine = (
        "[ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: "
        "libcudnn.so.9: cannot open shared object file: No such file or directory"
    )
    eight = (
        "[ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: "
        "libcudnn.so.8: cannot open shared object file: No such file or directory"
    )
    for text, major in ((nine, 9), (eight, 8)):
        lead = _led_by(text, "lib.cannot_open_shared_object")
        assert f"built for cuDNN {major}" in lead.cause and "CUDA 9" not in lead.cause, lead.cause
        assert f"install cuDNN {major}" in lead.fix.text and f"CUDA {major} runtime" not in lead.fix.text, (
            lead
        )


def test_a_cuda_math_library_another_framework_loads_names_its_own_release_and_the_framework() -> None:
    # libcufft.so.10 is cuFFT's own major (the CUDA 11 set: it sits beside libcublasLt.so.11 in
    # TensorFlow's log), not CUDA 10; and the framework that loads it is named by its loader's line, a
    # markdown link around onnxruntime's provider included. Guides (stored files 45328770778 and 9895119039:
    # onnxruntime's provider, 'ONNX 1.16.3 requires CUDA 11.x'), TensorFlow's loader in logs (stored files
    # 25163697932, 2460938916)
    onnxruntime = (
        "[ONNXRuntimeError] : 1 : FAIL : Failed to load library [libonnxruntime_providers_cuda.so]"
        "(http://libonnxruntime_providers_cuda.so/) with error: libcufft.so.10: cannot open shared object "
        "file: No such file or directory"
    )
    tensorflow = (
        "2021-07-01 14:47:06.761084: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could "
        "not load dynamic library 'libcufft.so.10'; dlerror: libcufft.so.10: cannot open shared object file: "
        "No such file or directory"
    )
    xla = (
        "2023-03-18 20:19:40.192162: W tensorflow/compiler/xla/stream_executor/platform/default/"
        "dso_loader.cc:64] Could not load dynamic library 'libcufft.so.10'; dlerror: libcufft.so.10: cannot "
        "open shared object file: No such file or directory"
    )
    for text, package in ((onnxruntime, "onnxruntime-gpu"), (tensorflow, "tensorflow"), (xla, "tensorflow")):
        lead = _led_by(text, "lib.cannot_open_shared_object")
        said = f"libcufft.so.10 is asked for by {package}, not by torch: {package}'s build for cuFFT 10"
        assert said in lead.evidence, lead.evidence
        assert "CUDA 10" not in lead.cause and "built for cuFFT 10" in lead.cause, lead.cause


def test_a_library_loaded_through_ctypes_or_torch_ops_is_the_callers() -> None:
    # ctypes' frames and torch.ops.load_library's pass the library on: the package is the frame before them.
    # The last frame (ctypes') named no package, so torchaudio's library was 'a CUDA library torch needs'.
    # An issue note (stored file 54897998572: torchaudio 2.11.0 built for CUDA 13 beside torch 2.8.0), a
    # Dockerfile's notes (stored file 4914505749: torchaudio not built against the CUDA there)
    omnilingual = (
        '  File "/usr/local/lib/python3.12/site-packages/torchaudio/_extension/utils.py", line 56, in '
        "_load_lib\n"
        "    torch.ops.load_library(paths[0])\n"
        '  File "/usr/local/lib/python3.12/site-packages/torch/_ops.py", line 1478, in load_library\n'
        "    ctypes.CDLL(path)\n"
        '  File "/usr/local/lib/python3.12/ctypes/__init__.py", line 379, in __init__\n'
        "    self._handle = _dlopen(self._name, mode)\n"
        "OSError: libcudart.so.13: cannot open shared object file: No such file or directory"
    )
    dockerfile = (
        '  File "/home/user/miniconda/lib/python3.9/site-packages/torchaudio/_extension/utils.py", line 64, '
        "in _load_lib\n"
        "    torch.ops.load_library(path)\n"
        '  File "/home/user/miniconda/lib/python3.9/site-packages/torch/_ops.py", line 643, in load_library\n'
        "    ctypes.CDLL(path)\n"
        '  File "/home/user/miniconda/lib/python3.9/ctypes/__init__.py", line 382, in __init__\n'
        "    self._handle = _dlopen(self._name, mode)\n"
        "OSError: libcudart.so.12: cannot open shared object file: No such file or directory"
    )
    for text, release in ((omnilingual, 13), (dockerfile, 12)):
        lead = _led_by(text, "lib.cannot_open_shared_object")
        said = f"libcudart.so.{release} is asked for by torchaudio, not by torch: torchaudio's build for CUDA"
        assert f"{said} {release}" in lead.evidence, lead.evidence
    # torch loading its own libraries through ctypes stays torch's, whatever else the text names: a uv
    # project's log (stored file 19338854896)
    torchs = (
        '  File "/tmp/dia/.venv/lib/python3.10/site-packages/torch/__init__.py", line 318, in '
        "_load_global_deps\n"
        "    ctypes.CDLL(global_deps_lib_path, mode=ctypes.RTLD_GLOBAL)\n"
        '  File "/home/codespace/.local/share/uv/python/cpython-3.10.18-linux-x86_64-gnu/lib/python3.10/'
        'ctypes/__init__.py", line 374, in __init__\n'
        "    self._handle = _dlopen(self._name, mode)\n"
        "OSError: libcudart.so.12: cannot open shared object file: No such file or directory"
    )
    assert not any(
        "is asked for by" in line for line in _led_by(torchs, "lib.cannot_open_shared_object").evidence
    )


def test_the_wheels_lib_folders_are_found_in_either_layout(tmp_path: Path) -> None:
    # The command put nvidia.cublas.lib on LD_LIBRARY_PATH, the CUDA 12 wheels' layout (a thread's fix:
    # ufal/whisper-streaming#17, dev); the CUDA 13 wheels torch 2.14.1 installs keep their libraries in
    # nvidia/cu13/lib (libcublas.so.13, libcufft.so.12 ...) and cuDNN's in nvidia/cudnn/lib, and there is
    # no nvidia.cublas: the command failed there. It now lists every lib folder of the nvidia-* wheels.
    import subprocess
    import sys

    lead = _led_by(
        "OSError: libcublas.so.12: cannot open shared object file", "lib.cannot_open_shared_object"
    )
    export = next(c for c in lead.fix.commands if c.startswith("export LD_LIBRARY_PATH="))
    code = export.split("python -c '", 1)[1].split("'", 1)[0]
    # CUDA 12's wheels carry __init__.py files down to each lib folder; CUDA 13's none (namespace packages)
    layouts = {
        "cu12": ("cublas/lib/libcublas.so.12", "cudnn/lib/libcudnn.so.9", "cufft/lib/libcufft.so.11"),
        "cu13": ("cu13/lib/libcublas.so.13", "cu13/lib/libcufft.so.12", "cudnn/lib/libcudnn.so.9"),
    }
    for name, files in layouts.items():
        root = tmp_path / name
        for file in files:
            (root / "nvidia" / file).parent.mkdir(parents=True, exist_ok=True)
            (root / "nvidia" / file).write_bytes(b"")
            if name == "cu12":
                for folder in ("", file.split("/")[0], file.rsplit("/", 1)[0]):
                    (root / "nvidia" / folder / "__init__.py").write_bytes(b"")
        # -S: the fake layout alone, not the nvidia-* wheels of the Python that runs the tests, which the
        # nvidia namespace would join (as the command means to, for a user)
        done = subprocess.run(
            [sys.executable, "-S", "-c", code],
            env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            check=True,
        )
        folders = {str(root / "nvidia" / file.rsplit("/", 1)[0]) for file in files}
        assert set(done.stdout.strip().split(":")) == folders, (name, done.stdout)


def test_no_attention_kernel_for_bfloat16_before_ampere_is_the_bfloat16_of_an_older_gpu() -> None:
    # "cutlassF: no kernel found to launch!" (torch's and xformers' memory-efficient attention: its bfloat16
    # kernels are built for sm_80 only) and ptxas' "Feature '.bf16' requires .target sm_80 or higher" were
    # read by no entry. QwenLM/Qwen3#710 (a 2080 Ti: 'use fp16 instead', confirmed), huggingface/transformers
    # #28731 (a T4: float16 generates, bfloat16 fails), OpenBMB/MiniCPM-V#403 (a V100: float16 runs),
    # fishaudio/fish-speech#7 and facebookresearch/chameleon#39 (ptxas on a T4 or V100)
    qwen = (
        "# RuntimeError: cutlassF: no kernel found to launch!\n"
        "\n"
        "BryanMurkyChan · description · 2024-06-27\n"
        "显卡为2080ti22g，cuda12.4，pytorch2.1.2\n"
        "报错了"
    )
    transformers = (
        "*GPU :* `Nvidia T4 (15GB)`\n"
        "*Python Version:* `3.10.12`\n"
        "*Pytorch Version :* `2.1.1 (CUDA 12.1 | 11.8) [Both same results.]`\n"
        "*Transformers Version :* `4.37.1`\n"
        "*Accelerate Version :* `0.26.1`\n"
        "*Optimum Version:* `1.16.2`\n"
        "*Bitsandbytes:* `0.42.0`\n"
        "\n"
        "***[Task Information]***\n"
        "\n"
        "*Model Type:* `Text-Generation`\n"
        "*Model Architecture:* `llama`\n"
        '*Attention Implementation:* `sdpa "flash attention 1"`\n'
        "*Model Load In Float16:* `True`\n"
        "*Model Load In Bfloat16:* `True`\n"
        "*Model Generate With Float16:* `True`\n"
        "*Model Generate With Bfloat16:* `False (RuntimeError: cutlassF: no kernel found to launch!)`"
    )
    minicpm = (
        "# 修复V100无法运行MiniCPM-V-2_6问题\n"
        "\n"
        "cnsky2016 · comment · 2024-08-07\n"
        "原版本提示：RuntimeError: cutlassF: no kernel found to launch!"
    )
    fish = (
        "It seems nvidia(t4 or v100 ?) doesn't supports, even if you set \"torch.backends.cuda.enable_mem_"
        'efficient_sdp(False)"and  "torch.backends.cuda.enable_flash_sdp(False)", then will throw error: '
        "\"error   : Feature '.bf16' requires .target sm_80 or higher\". A simple solution is that changing "
        '"precision = torch.half if half else torch.bfloat16" in generate.py to "precision = torch.half if '
        'half else torch.float16", then it will works. Or you can use A100 to train.'
    )
    chameleon = (
        "# Unable to run on V100 card\n"
        "\n"
        "[turn 0 by vodp, continued]\n"
        "```\n"
        "ptxas /tmp/compile-ptx-src-ac38de, line 521; error   : Feature 'cvt.bf16.f32' requires .target "
        "sm_80 or higher\n"
        "ptxas /tmp/compile-ptx-src-ac38de, line 523; error   : Feature '.bf16' requires .target sm_80 or "
        "higher\n"
        "ptxas /tmp/compile-ptx-src-ac38de, line 523; error   : Feature 'cvt.bf16.f32' requires .target "
        "sm_80 or higher\n"
        "ptxas /tmp/compile-ptx-src-ac38de, line 525; error   : Feature '.bf16' requires .target sm_80 or "
        "higher\n"
        "ptxas /tmp/compile-ptx-src-ac38de, line 525; error   : Feature 'cvt.bf16.f32' requires .target "
        "sm_80 or higher\n"
        "ptxas fatal   : Ptx assembly aborted due to errors\n"
        "```"
    )
    named = {qwen: "2080", transformers: "T4", minicpm: "V100", chameleon: "V100", fish: None}
    for text, gpu in named.items():
        lead = _led_by(text, "dtype.bf16_unsupported")
        said = _said(lead)
        assert "float16" in lead.fix.text and "instead of bfloat16" in lead.fix.text
        if gpu is not None:
            assert any(gpu in line and "older than Ampere" in line for line in lead.evidence), lead.evidence
        if "cutlassF" in text:
            assert "memory-efficient attention" in said and "sm_80" in said, said


_ATEN_CUDA = (
    "RuntimeError: Cannot initialize CUDA without ATen_cuda library. PyTorch splits its backend into two "
    "shared "
    "libraries: a CPU library and a CUDA library; this error has occurred because you are trying to use some "
    "CUDA functionality, but the CUDA library has not been loaded by the dynamic linker for some reason.  "
    "The "
    "CUDA library MUST be loaded, EVEN IF you don't directly use any symbols from the CUDA library! One "
    "common "
    "culprit is a lack of -Wl,--no-as-needed in your link arguments; many dynamic linkers will delete "
    "dynamic "
    "library dependencies if you don't depend on any of their symbols.  You can check if this has occurred "
    "by "
    "using ldd on your binary to see if there is a dependency on *_cuda.so library"
)


def test_cannot_initialize_cuda_without_aten_cuda_is_a_cpu_only_torch_in_python() -> None:
    # torch 0.4 to 1.x's words for a CPU-only build asked for CUDA (ATen's CUDA hooks,
    # aten/src/ATen/detail/CUDAHooksInterface.h initCUDA) were read by no entry. galsang/BIMPM-pytorch#6 (a
    # CPU PyTorch on a MacBook: its --gpu -1 ran it), NVlabs/ocropus3-ocroseg#3 (no NVIDIA card),
    # tensorboy/pytorch_Realtime_Multi-Person_Pose_Estimation#62 (Windows without a GPU),
    # tamarott/SinGAN#127 (its --not_cuda flag); in a C++ program linked by hand it is the linker that dropped
    # the CUDA library (zdevito/ATen#216)
    bimpm = (
        f"{_ATEN_CUDA}\n"
        "\n"
        "As far as I googled, when working with GPU it doesn't causes these sort of issues. But currently I "
        "am "
        "using an CPU PyTorch. Any lead to solve this issue would be helpful."
    )
    ocroseg = (
        "# CPU version of ocroseg [Cannot initialize CUDA without ATen_cuda library]\n"
        "\n"
        "ghost · description · 2018-09-15\n"
        "@tmbdev when running `ocroseg-train -d framedlines.tgz` an error message appears, maybe because I "
        "don't have an nvidia graphics card, any help is appreciated:"
    )
    tensorboy = (
        "hi, I am running web_demo.py on windows 10 without GPU. I got the following error message.\n"
        "\n"
        "even if I run it by removing .cuda() in line 136 of coco_eval.py  I get the same error message.\n"
        "\n"
        "RuntimeError                              Traceback (most recent call last)\n"
        "<ipython-input-29-c272059082a2> in <module>()\n"
        "     51         with torch.no_grad():\n"
        "     52             paf, heatmap = get_outputs(\n"
        "---> 53                 multiplier, oriImg, model,  'rtpose')\n"
        "     54 \n"
        "     55 \n"
        "\n"
        "C:\\Users\\shreya.l.singh\\Downloads\\pytorch_Realtime_Multi-Person_Pose_Estimation-master\\pytorch_"
        "Realtime_Multi-Person_Pose_Estimation-master\\demo\\coco_eval.py in get_outputs(multiplier, img, "
        "model, preprocess)\n"
        "    134 \n"
        "    135     # several scales as a batch\n"
        "--> 136     batch_var = torch.from_numpy(batch_images).cuda().float()\n"
        "    137     predicted_outputs, _ = model(batch_var)\n"
        "    138     output1, output2 = predicted_outputs[-2], predicted_outputs[-1]\n"
        "\n"
        "RuntimeError: Cannot initialize CUDA without ATen_cuda library. PyTorch splits its backend into two "
        "shared libraries: a CPU library and a CUDA library; this error has occurred because you are trying "
        "to "
        "use some CUDA functionality, but the CUDA library has not been loaded by the dynamic linker for "
        "some "
        "reason.  The CUDA library MUST be loaded, EVEN IF you don't directly use any symbols fr"
    )
    singan = f"I got this error. What should ı do ? \n\n{_ATEN_CUDA}.\n"
    for text in (bimpm, ocroseg, tensorboy, singan):
        one = _one(text, "torch.not_compiled_with_cuda")
        assert "run" in one.fix.text and "on the CPU" in one.fix.text, one.fix.text
        assert "--no-as-needed" not in _said(one)
    aten = (
        "Just want to test if CUDA part is working properly using below code but got errors. I linked both "
        "cpu "
        "and cuda libraries.  The cpu part is working fine.  Any idea on this? \n"
        "\n"
        '`cout << ones(CUDA(kFloat), {3,4}) << "\\n";`\n'
        "\n"
        "`TARGET_LINK_LIBRARIES(test_aten ${CUDA_LIBRARIES} ${ATen_BINARY_DIR}/src/ATen/libATen_cuda.so "
        "${ATen_BINARY_DIR}/src/ATen/libATen_cpu.so)`\n"
        "\n"
        "terminate called after throwing an instance of 'at::Error'\n"
        "  what():  **cannot initialize CUDA without ATen_cuda library** (initCUDA at "
        "/home/pharrell/downloads/ATen/aten/src/ATen/detail/CUDAHooksInterface.h:42)\n"
        "frame #0: at::Context::lazyInitCUDA()::{lambda()#1}::operator()() const + 0x32 (0x409a56 in "
        "./test_aten)"
    )
    linked = _led_by(aten, "torch.not_compiled_with_cuda")
    assert "--no-as-needed" in linked.fix.text and "C++" in linked.cause, linked
    assert "pip" not in linked.fix.text


def test_no_compiler_on_the_path_for_an_extension_build_is_msvc_on_windows_and_gcc_on_linux() -> None:
    # torch.utils.cpp_extension looks the compiler up before it builds (where cl on Windows, which c++ on
    # Linux: torch/utils/cpp_extension.py _write_ninja_file and check_compiler_ok_for_platform); the
    # CalledProcessError was read by no entry. yfeng95/DECA#168, facebookresearch/maskrcnn-benchmark#1288,
    # Megvii-BaseDetection/YOLOX#1307 (MSVC's folders added to PATH, solved), nerfstudio-project/gsplat#827
    # (Visual Studio Build Tools, their bin folder on Path, resolved); ssbuild/chatglm_finetuning#165 (gcc and
    # g++ installed)
    deca = (
        "I get the following error:\n"
        "subprocess.CalledProcessError: Command '['where', 'cl']' returned non-zero exit status 1.\n"
        "\n"
        "I AM looking forward to your reply \n"
        "Thank you.."
    )
    maskrcnn = (
        "My environment\n"
        "\n"
        "- Win10\n"
        "- pytorch 1.0\n"
        "\n"
        "I meet this question\n"
        "subprocess.CalledProcessError: Command '['where', 'cl']' returned non-zero exit status 1."
    )
    yolox = (
        "Haha, it was solved, although it is not easy, taking me almost half day. \n"
        "This error is directly related to the last line `subprocess.CalledProcessError: Command '['where', "
        "'cl']' returned non-zero exit status 1.'"
    )
    gsplat = "# subprocess.CalledProcessError: Command '['where', 'cl']' returned non-zero exit status 1."
    for text in (deca, maskrcnn, yolox, gsplat):
        lead = _led_by(text, "build.compiler_not_found")
        assert "cl.exe" in lead.cause and "Visual Studio Build Tools" in lead.fix.text, lead
        assert "x64 Native Tools Command Prompt" in lead.fix.text and "PATH" in lead.fix.text
        assert "build-essential" not in lead.fix.text
    chatglm = "# subprocess.CalledProcessError: Command '['which', 'c++']' returned non-zero exit status 1."
    lead = _led_by(chatglm, "build.compiler_not_found")
    assert "g++" in lead.fix.text and "build-essential" in lead.fix.text, lead.fix.text
    assert "Visual Studio" not in lead.fix.text


def test_another_torchs_libraries_on_ld_library_path_shadow_the_installed_torchs() -> None:
    # The loader reads LD_LIBRARY_PATH before the rpath of torch's libraries: a libtorch (or a source build's,
    # or an application's bundled) lib folder on it gives the installed torch and its extensions another
    # torch's libraries. The undefined symbol was told to be a companion's or an extension's.
    # pytorch/pytorch#102272 (libtorch/lib on it; removing it ends the error), pytorch/pytorch#62650 (the
    # failing library is libtorch's own folder's), pytorch/pytorch#10234 (a caffe2 build's lib folder: the
    # answer); pytorch/pytorch#40415 (a later user: 'I had the c++ library on my LD_LIBRARY_PATH')
    scatter = (
        "To compile and use libtorch, I add libtorch/lib to $LD_LIBRARY_PATH. However, it causes error "
        "if I import torch_scatter. The following is the error:\n"
        "Traceback (most recent call last):\n"
        '  File "<stdin>", line 1, in <module>\n'
        '  File "/usr/lib/python3.8/site-packages/torch_scatter/__init__.py", line 16, in <module>\n'
        "    torch.ops.load_library(spec.origin)\n"
        '  File "/usr/lib/python3.8/site-packages/torch/_ops.py", line 643, in load_library\n'
        "    ctypes.CDLL(path)\n"
        '  File "/usr/lib/python3.8/ctypes/__init__.py", line 373, in __init__\n'
        "    self._handle = _dlopen(self._name, mode)\n"
        "OSError: /usr/lib/python3.8/site-packages/torch_scatter/_version_cuda.so: undefined symbol: "
        "_ZN5torch3jit17parseSchemaOrNameERKSs\n"
        "\n"
        "It looks like there is a conflict.\n"
        'Once I remove the "/path_to_libtorch/libtorch/lib" from LD_LIBRARY_PATH, the problem will '
        "disappear. However, I will not be able to use libtorch anymore."
    )
    tss = (
        "With libtorch in the LD_LIBRARY_PATH, import torch fails and yields the following error:\n"
        "``` \n"
        "~/.local/lib/python3.6/site-packages/torch/__init__.py in <module>\n"
        "    193     if USE_GLOBAL_DEPS:\n"
        "    194         _load_global_deps()\n"
        "--> 195     from torch._C import *\n"
        "    196 \n"
        "    197 # Appease the type checker; ordinarily this binding is inserted by the\n"
        "\n"
        "ImportError: /home/weixuan/Documents/Code/libtorch/lib/libtorch_python.so: undefined symbol: "
        "PyThread_tss_alloc\n"
        "```\n"
        "To me, it seems that pytorch is linking against the wrong shared library (in libtorch) instead "
        "looking at its own local install."
    )
    caffe2 = (
        "Have you build caffe2 from source and add the lib python to `LD_LIBRARY_PATH`?\n"
        " \n"
        "Remove the lib python of your own build caffe2 in `LD_LIBRARY_PATH` may help.\n"
        "\n"
        "e.g. do not add \n"
        "`export LD_LIBRARY_PATH=~/caffe2/build/lib:$LD_LIBRARY_PATH`"
    )
    for text in (scatter, tss):
        lead = _led_by(text, "lib.undefined_symbol")
        assert "LD_LIBRARY_PATH" in lead.cause and "another torch's libraries" in lead.cause, lead.cause
        assert "off LD_LIBRARY_PATH" in lead.fix.text and "unset LD_LIBRARY_PATH" in lead.fix.text
        assert any("libtorch" in line for line in lead.evidence), lead.evidence
    symbol = (
        "ImportError: /home/ana/env/lib/python3.10/site-packages/torch/lib/libtorch_cpu.so: "
        "undefined symbol: x"
    )
    assert "another torch's libraries" in _led_by(f"{caffe2}\n{symbol}", "lib.undefined_symbol").cause
    # the environment's own torch/lib on it is torch's own (constructed)
    own = "export LD_LIBRARY_PATH=/home/ana/env/lib/python3.10/site-packages/torch/lib:$LD_LIBRARY_PATH"
    assert "another torch's libraries" not in _led_by(f"{own}\n{symbol}", "lib.undefined_symbol").cause


def test_a_module_missing_while_a_checkpoint_is_unpickled_is_the_saving_codes() -> None:
    # torch.load rebuilds pickled objects by importing the module each was defined in: a ModuleNotFoundError
    # raised there names the saving project's module, which was told to be a requirement to pip install.
    # pytorch/pytorch#18325 (the serialization note: save the state_dict), facebookresearch/InferSent#11
    # (keep models.py next to the code), sgrvinod/a-PyTorch-Tutorial-to-Super-Resolution#11 (models.py was in
    # the wrong place), Renovamen/Text-Classification#5 and ultralytics/yolov5#1680 (the same folders, or
    # sys.path.insert(0, './yolov5'))
    resnet = (
        "mdoel = torch.load('/opt/checkpoint/ResNet152.pth',map_location='cpu')\n"
        "\n"
        "Traceback (most recent call last):\n"
        '  File "/opt/project/python/opalus/fff.py", line 3, in <module>\n'
        "    mdoel = torch.load('/opt/checkpoint/ResNet152_quantize.pth',map_location='cpu')\n"
        '  File "/home/tian/.conda/envs/jiqi/lib/python3.6/site-packages/torch/serialization.py", line 368, '
        "in "
        "load\n"
        "    return _load(f, map_location, pickle_module)\n"
        '  File "/home/tian/.conda/envs/jiqi/lib/python3.6/site-packages/torch/serialization.py", line 542, '
        "in "
        "_load\n"
        "    result = unpickler.load()\n"
        "ModuleNotFoundError: No module named 'models'"
    )
    tutorial = (
        "# Attempting to load the checkpoint throws ModuleNotFoundError: No module named 'models'\n"
        "\n"
        "barrelchester · description · 2022-09-21\n"
        "https://github.com/sgrvinod/a-PyTorch-Tutorial-to-Super-Resolution/blob/8a2ecba423760bfed791a92748bdc5"
        "8de7fed918/models.py#L216\n"
        "\n"
        "Besides the line in the code I tried loading the checkpoint in other ways but every way results in "
        "an "
        "error.\n"
        "I have the checkpoint file in the same directory as the code files."
    )
    infersent = (
        "> ImportError                               Traceback (most recent call last)\n"
        "> <ipython-input-2-56ab4741a1a1> in <module>()\n"
        "> ----> 1 infersent = torch.load('infersent.allnli.pickle')\n"
        "> \n"
        "> .../lib/python2.7/site-packages/torch/serialization.pyc in load(f, map_location, pickle_module)\n"
        ">     227         f = open(f, 'rb')\n"
        ">     228     try:\n"
        "> --> 229         return _load(f, map_location, pickle_module)\n"
        ">     230     finally:\n"
        ">     231         if new_fd:\n"
        "> \n"
        "> .../lib/python2.7/site-packages/torch/serialization.pyc in _load(f, map_location, pickle_module)\n"
        ">     375     unpickler = pickle_module.Unpickler(f)\n"
        ">     376     unpickler.persistent_load = persistent_load\n"
        "> --> 377     result = unpickler.load()\n"
        ">     378\n"
        ">     379     deserialized_storage_keys = pickle_module.load(f)\n"
        "> \n"
        "> ImportError: No module named models\n"
        ">"
    )
    for text in (resnet, tutorial, infersent):
        lead = _led_by(text, "package.not_installed")
        assert "torch.load" in lead.cause and "saved" in lead.cause, lead.cause
        assert "sys.path" in lead.fix.text and "state_dict" in lead.fix.text, lead.fix.text
    # an import that fails outside a load stays a requirement to install (constructed)
    plain = (
        'Traceback (most recent call last):\n  File "run.py", line 1, in <module>\n'
        "ModuleNotFoundError: No module named 'models'"
    )
    assert "torch.load" not in _led_by(plain, "package.not_installed").cause


def test_a_gpu_with_its_memory_called_ram_is_the_gpus_memory() -> None:
    # "a GPU with 11GB RAM" (metadriverse/cat#5, test side) was not read: a figure followed by RAM was taken
    # for the system's. Writers call a GPU's memory RAM after "GPU with": stored files 34991908, 15478712834,
    # 5804796292 (a machine's line: 30Gb of RAM, the GPU's 8Gb, a 100Gb drive); "No GPU with 8GB RAM" is a
    # machine without one (stored file 58809342567)
    said = {
        "We trained the network with an NVIDIA GeForce GTX 2080 GPU with 8GB RAM.": "8GB",
        "Training the model using the included configuration requires either one GPU with 16GB RAM or two "
        "GPU with 8GB RAM.": "16GB",
        "* **Production** (8 CPU, 30Gb ram, Quadro P4000 GPU with 8Gb ram, 100Gb drive), "
        "`production.aichords.pro -> 74.82.29.215`": "8Gb",
        '"""No GPU with 8GB RAM should select cpu-low profile."""': None,
    }
    for text, memory in said.items():
        assert memory_explanations.gpu_memory_said(text) == memory, text


def test_three_channels_against_four_is_an_image_with_an_alpha_channel() -> None:
    # A size mismatch of 3 against 4 on an image's tensors was read by no entry: an RGBA image (a PNG with
    # transparency) where RGB's 3 channels are expected. StoryMY/take-off-eyeglasses#1 (Normalize's 3 means:
    # 'the channel of img is 4 (RGBA)'), edward3862/CariMe-pytorch#2 (Image.open(path).convert('RGB'), fixed),
    # kijai/ComfyUI-KJNodes#698 (torch.cat's words; ComfyUI's images are [B, H, W, C]),
    # ZiYang-xie/PyCAPTCHA#15 (the writer's own reading)
    eyeglasses = (
        "Traceback (most recent call last):\n"
        '  File "easy_use.py", line 97, in <module>\n'
        "    generate_results(args, device)\n"
        '  File "easy_use.py", line 66, in generate_results\n'
        "    img = transform(img)\n"
        "  File "
        '"/disk/sdb/public_user/anaconda3/envs/wxy_env/lib/python3.8/site-packages/torchvision/transforms/'
        'transforms.py", line 67, in __call__\n'
        "    img = t(img)\n"
        '  File "/disk/sdb/public_user/anaconda3/envs/wxy_env/lib/python3.8/site-packages/torch/nn/modules/'
        'module.py", line 727, in _call_impl\n'
        "    result = self.forward(*input, **kwargs)\n"
        "  File "
        '"/disk/sdb/public_user/anaconda3/envs/wxy_env/lib/python3.8/site-packages/torchvision/transforms/'
        'transforms.py", line 226, in forward\n'
        "    return F.normalize(tensor, self.mean, self.std, self.inplace)\n"
        "  File "
        '"/disk/sdb/public_user/anaconda3/envs/wxy_env/lib/python3.8/site-packages/torchvision/transforms/'
        'functional.py", line 284, in normalize\n'
        "    tensor.sub_(mean).div_(std)\n"
        "RuntimeError: The size of tensor a (4) must match the size of tensor b (3) at non-singleton "
        "dimension 0"
    )
    carime = (
        "# The size of tensor a (4) must match the size of tensor b (3)\n"
        "\n"
        "zuimeiyujianni · description · 2021-04-29\n"
        "https://github.com/edward3862/CariMe-pytorch/blob/3e34942a01c13a20f5936df75cf8fb10b70d3e58/utils.py#L69\n"
        "\n"
        "`Image.open(path).convert('RGB')`  is ok"
    )
    kjnodes = (
        "AddLabel works correctly with RGB images.\n"
        "However, it throws an error when the input image has an alpha channel (RGBA).\n"
        "\n"
        "```\n"
        "Error:\n"
        "RuntimeError: Sizes of tensors must match except in dimension 1.\n"
        "Expected size 3 but got size 4 for tensor number 1 in the list.\n"
        "```"
    )
    captcha = (
        "# RuntimeError: The size of tensor a (4) must match the size of tensor b (3) at non-singleton "
        "dimension 0\n"
        "\n"
        "nimesh131 · description · 2024-03-27\n"
        "My dataset png images may have 4 channel instead of 3. Unbale to fix it. Any help?"
    )
    for text in (eyeglasses, carime, kjnodes, captcha):
        lead = _led_by(text, "image.alpha_channel")
        assert "RGBA" in lead.cause and "convert('RGB')" in lead.fix.text, lead
        assert "Split Image with Alpha" in lead.fix.text
    # 3 against 4 with nothing of an image around it is not read so (constructed)
    boxes = (
        "RuntimeError: The size of tensor a (4) must match the size of tensor b (3) at non-singleton "
        "dimension 1"
    )
    assert "image.alpha_channel" not in [e.id for e in _explained(f"boxes = decode(anchors)\n{boxes}")]


def test_a_torchscript_file_of_the_legacy_format_is_resaved_with_a_torch_that_reads_it() -> None:
    # 'Legacy model format is not supported on mobile.' (torch/csrc/jit/serialization/import.cpp: an archive
    # with model.json, TorchScript's format up to torch 1.3, which later builds no longer read, on any
    # platform) was read by no entry. pytorch/pytorch#77840 (loads with 1.9, not with 1.11),
    # pytorch/pytorch#97549 (a model named for torch 1.0.1, read by 1.13), facebookresearch/Hanabi_SPARTA#37
    # (torch 1.13)
    traced = (
        "`\n"
        "import torch\n"
        "m = torch.jit.load('model.pt')\n"
        "`\n"
        "failed.  Notes: \n"
        "RuntimeError: Legacy model format is not supported on mobile.\n"
        "\n"
        "## enviroment :\n"
        "- torch version: 1.11.0\n"
        "\n"
        "A model is traced by torch_1.9. when I load the model with torch_1.9, it  worked. if I load the "
        "model "
        "with torch_1.11, it failed."
    )
    relion = (
        "# Runtime Error: Legacy model format is not supported on mobile.\n"
        "\n"
        "ppxwwtaking · description · 2023-03-24\n"
        "Recently I met the problem as attached when using relion_class_ranker.py on our new EXXACT "
        "workstation "
        "to automatically pick the good 2D classes on Relion-4.0, a cryo-EM image processing package. I "
        "never had "
        "this problem before when using AWS node where relion-4.0 was complied by myself. \n"
        "\n"
        "The error seems happening when loading the pre-trained model. My torch version is 1.13.0+cu117. \n"
        "\n"
        "The model is class_ranker_0.1.3_torch_1.0.1.pt and renamed as relion_class_ranker_default_model.pt "
        "when "
        "compiling the relion 4.0 package. "
    )
    hanabi = (
        "I'm attempting to load in the serialised PyTorch models in the format sad_player2_model.pth in "
        "PyTorch "
        "where torch==1.13.0. However, I keep running into this error:\n"
        "\n"
        "RuntimeError: Legacy model format is not supported on mobile. python: "
        "/usr/include/boost/fiber/condition_variable.hpp:56: "
        "boost::fibers::condition_variable_any::~condition_"
        "variable_any(): Assertion `wait_queue_.empty()' failed. Aborted (core dumped)"
    )
    for text, version in ((traced, "1.11.0"), (relion, "1.13.0"), (hanabi, "1.13.0")):
        lead = _led_by(text, "load.torchscript_legacy_format")
        assert "model.json" in lead.cause and "torch.jit.save" in lead.fix.text, lead
        assert any(version in line for line in lead.evidence), lead.evidence


def test_detectron2s_own_device_option_is_named_on_the_cpu_route() -> None:
    # A detectron2 program picks its device from its config (MODEL.DEVICE, cuda by default): the CPU route
    # said "the program's --cpu option, or device='cpu'", which detectron2 has not. facebookresearch/
    # detectron2#1416 (cfg.MODEL.DEVICE = 'cpu': 'It's work!'), facebookresearch/detectron2#1789 (detectron2's
    # CPU wheels with a CPU torch); conansherry/detectron2#5, a fork's thread whose text names no detectron2,
    # keeps the generic route. The maintainers' answer: facebookresearch/detectron2#300
    answered = (
        '# Detectron2 performed on the CPU with a "Torch not compiled with CUDA enabled" error\n'
        "\n"
        "sswhqqw · description · 2020-05-13\n"
        "The Issue:\n"
        "\n"
        '1. Detectron2 performed on the CPU with a "Torch not compiled with CUDA enabled" error\n'
        "Configure Detectron2 environment on a computer without GPU graphics card. After the configuration "
        "is "
        "OK, run the following code. The weight file is downloaded well in advance and placed in a fixed "
        "location."
    )
    wheels = (
        "# AssertionError: Torch not compiled with CUDA enabled - CPU/LINUX TRAINING ERROR\n"
        "\n"
        "svideloc · description · 2020-07-17\n"
        "Hello,\n"
        "\n"
        "I recently created a venv and downloaded pytorch in the following way (cpu only):\n"
        "\n"
        "> pip install torch==1.5.1+cpu torchvision==0.6.1+cpu -f "
        "https://download.pytorch.org/whl/torch_stable.html\n"
        "\n"
        "Then downloaded the pre-built detectron2 for linux & cpu with the following (all other prereqs are "
        "installed also)\n"
        "\n"
        ">python -m pip install detectron2 -f \\\n"
        "  https://dl.fbaipublicfiles.com/detectron2/wheels/cpu/torch1.5/index.html"
    )
    conan = (
        "# got 'AssertionError: Torch not compiled with CUDA enabled'\n"
        "\n"
        "myounus96 · description · 2020-01-13\n"
        "I installed pytorch with cpuonly,but still got the above error,even I didn't have gpu."
    )
    for text in (answered, wheels):
        fix = _one(text, "torch.not_compiled_with_cuda").fix.text
        assert "cfg.MODEL.DEVICE = 'cpu'" in fix, fix
    # without detectron2 in the text the generic route stays (the conansherry fork's own text names none)
    assert "cfg.MODEL.DEVICE" not in _one(conan, "torch.not_compiled_with_cuda").fix.text


def test_one_value_per_channel_in_training_is_a_batch_of_one_left_over() -> None:
    # BatchNorm's check (torch/nn/functional.py _verify_batch_size) was read by no entry. fastai/fastai#1352
    # (the maintainer: drop_last=True), yanx27/Pointnet_Pointnet2_pytorch#78 (drop_last=True),
    # scverse/scvi-tools#2314 (another batch_size: 'It works'), yassouali/pytorch-segmentation#8 (the last
    # iteration with one example left)
    fastai = (
        "After 1 epoch end, it gives:\n"
        '"Expected more than 1 value per channel when training".\n'
        "\n"
        "And if I use size=128 or 256 of ImageDataBunch.create for res50, everything is fine.\n"
        'If the small batchsize and the number of training set cause this? Is there anything like "droplast" '
        "of "
        "pytorch in fastai?"
    )
    pointnet = (
        "# ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, "
        "512])\n"
        "\n"
        "zhenzhen11414 · description · 2020-10-23\n"
        "200个epoch，训练了1个epoch就停了，怎么解决？"
    )
    scvi = (
        "When I try to use scvi to train the model, I got the following error. Could you please help me to "
        "solve "
        "this problem? Thank you for your time!\n"
        "![image](https://github.com/scverse/scvi-tools/assets/139293021/bd0cb813-e5d8-4ef4-bcd6-2ed593d2df4f)\n"
        "\n"
        'ValueError("Expected more than 1 value per channel when training, got input size {}".format(size)) '
        "\n"
        "ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, "
        "128])"
    )
    segmentation = (
        '# "Expected more than 1 value per channel when training"\n'
        "\n"
        "fdujay · description · 2019-08-29\n"
        "When training on VOC, I met this error.\n"
        "I want to know how to solve it, does anybody know it？\n"
        "Maybe my batchsize=4 is not suitable, but 8 or 16 is too large for my gpu..."
    )
    for text in (fastai, pointnet, scvi, segmentation):
        lead = _led_by(text, "batchnorm.one_value_per_channel")
        assert "BatchNorm" in lead.cause and "drop_last=True" in lead.fix.text, lead
    for text, size in ((pointnet, "torch.Size([1, 512])"), (scvi, "torch.Size([1, 128])")):
        assert any(
            size in line and "a batch of 1" in line
            for line in _one(text, "batchnorm.one_value_per_channel").evidence
        )


def test_embedding_indices_of_another_dtype_are_made_int64() -> None:
    # The embedding's dtype check on its indices (aten/src/ATen/native/Embedding.cpp: Long, or Long and Int in
    # later releases) was read by no entry. nulog/nulog#1 (x.to(torch.long): 'it helps'), orcax/PGPR#8
    # (.long()), udacity/deep-learning-v2-pytorch#96 (x = x.long()), aioz-ai/MICCAI19-MedVQA#10 (.long(),
    # the reporter), sksq96/pytorch-summary#64 (float input given to an embedding)
    nulog = (
        "# Expected tensor for argument #1 'indices' to have scalar type Long; but got torch.cuda.IntTensor "
        "instead (while checking arguments for embedding)\n"
        "\n"
        "thieu1995 · description · 2020-04-16\n"
        "For those who encounter an error like that, I think it is because of the new version of Pytorch.\n"
        "You should change 2 things.\n"
        "1. In def forward(self, x).\n"
        "Add: x = x.to(torch.long)"
    )
    udacity = (
        "Fix for the following error:\n"
        "> RuntimeError: Expected tensor for argument #1 'indices' to have scalar type Long; but got "
        "CUDAIntTensor instead (while checking arguments for embedding)\n"
        "\n"
        "Just added the line `x = x.long()` in the `forward` function before the embedding layer."
    )
    summary = (
        ' File "/home/lkk/anaconda3/lib/python3.6/site-packages/torch/nn/functional.py", line 1454, in '
        "embedding\n"
        "    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)\n"
        "RuntimeError: Expected tensor for argument #1 'indices' to have scalar type Long; but got "
        "torch.cuda.FloatTensor instead (while checking arguments for embedding)"
    )
    pgpr = (
        "The error:\n"
        "`RuntimeError: Expected tensor for argument #1 'indices' to have scalar type Long; but got "
        "torch.IntTensor instead (while checking arguments for embedding)`"
    )
    for text, given in (
        (nulog, "IntTensor"),
        (udacity, "CUDAIntTensor"),
        (summary, "FloatTensor"),
        (pgpr, "IntTensor"),
    ):
        lead = _led_by(text, "embedding.index_dtype")
        assert ".long()" in lead.fix.text and "int64" in lead.cause, lead
        assert any(given in line for line in lead.evidence), lead.evidence
    assert any("float" in line for line in _led_by(summary, "embedding.index_dtype").evidence)


def test_a_second_backward_through_a_freed_graph_is_a_tensor_not_detached() -> None:
    # autograd's 'Trying to backward through the graph a second time' (every release's words) was read by no
    # entry. LiJunnan1992/MLNT#8 (the hidden state detached), yuval-alaluf/restyle-encoder#15 (a variable
    # passed through the graph twice: the maintainer), pytorch/examples#116 (a DCGAN without fake.detach()),
    # eriklindernoren/PyTorch-GAN#6 (the maintainer's typo in wgan.py)
    mlnt = (
        "If using this tensor to compute weights, the first noise type iteration is ok. But the second noise "
        "type it cannot compute `grads = torch.autograd.grad()`\n"
        "\n"
        "`RuntimeError: Trying to backward through the graph a second time, but the buffers have already "
        "been "
        "freed. Specify retain_graph=True when calling backward the first time.`"
    )
    restyle = (
        '  File "/restyle_encoder/scripts/../training/coach_restyle_psp.py", line 125, in '
        "perform_train_iteration_on_batch\n"
        "    loss.backward()\n"
        '  File "/usr/local/lib/python3.7/dist-packages/torch/tensor.py", line 185, in backward\n'
        "    torch.autograd.backward(self, gradient, retain_graph, create_graph)\n"
        '  File "/usr/local/lib/python3.7/dist-packages/torch/autograd/__init__.py", line 127, in backward\n'
        "    allow_unreachable=True)  # allow_unreachable flag\n"
        "RuntimeError: Trying to backward through the graph a second time, but the saved intermediate "
        "results "
        "have already been freed. Specify retain_graph=True when calling backward the first time."
    )
    dcgan = (
        "Missed detach when implementing dcgan in pytorch, and it gives me this error:\n"
        "\n"
        "```\n"
        "RuntimeError: Trying to backward through the graph second time, but the buffers have already been "
        "freed. Please specify retain_variables=True when calling backward for the first time.\n"
        "```"
    )
    wgan = (
        "Traceback (most recent call last):\n"
        '  File "wgan.py", line 179, in <module>\n'
        "    gen_validity.backward(valid)\n"
        '  File "/home/alcaster/.pyenv/versions/ml/lib/python3.6/site-packages/torch/tensor.py", line 93, in '
        "backward\n"
        "    torch.autograd.backward(self, gradient, retain_graph, create_graph)\n"
        '  File "/home/alcaster/.pyenv/versions/ml/lib/python3.6/site-packages/torch/autograd/__init__.py", '
        "line "
        "89, in backward\n"
        "    allow_unreachable=True)  # allow_unreachable flag\n"
        "RuntimeError: Trying to backward through the graph a second time, but the buffers have already been "
        "freed. Specify retain_graph=True when calling backward the first time."
    )
    for text in (mlnt, restyle, dcgan, wgan):
        lead = _led_by(text, "autograd.backward_twice")
        assert "hidden.detach()" in lead.fix.text and "fake.detach()" in lead.fix.text, lead
        assert "retain_graph=True" in lead.fix.text and "freed" in lead.cause


def test_two_dtypes_in_an_old_torchs_arithmetic_are_cast_or_a_torch_that_promotes() -> None:
    # torch 1.0 to 1.2's TensorIterator made every operand take the first one's dtype (type promotion came in
    # 1.3, pytorch/pytorch#22273); its words with one device and two dtypes ("expected device cuda:0 and dtype
    # Float but got device cuda:0 and dtype Long") were read by no entry. bubbliiiing/arcface-pytorch#8 (torch
    # 1.2.0; onehot.float() fixed it), prs-eth/OverlapPredator#12, Xharlie/BtcDet#34,
    # ShannonAI/mrc-for-flat-nested-ner#36 (torch 1.0 and 1.1's backend words)
    arcface = (
        "我在租的服务器上跑的时候遇到了“RuntimeError: expected device cuda:0 and dtype Float but got device "
        "cuda:0 and dtype Long”这个错误，\n"
        "torch是1.2.0版本的，网上说是因为版本太低，也可以通过更改数据类型解决，\n"
        "我是把onehot替换为onehot.float()之后就解决了。"
    )
    predator = (
        "except Exception as inst: expected device cuda:0 and dtype Float but got device cuda:0 and dtype "
        "Long"
    )
    btcdet = (
        "When you run this statement ,python -m btcdet.datasets.multifindbestfit , the following error "
        "occursRuntimeError:expected backend CUDA and dtype Float but got backend CUDA and dtype Long."
    )
    mrc = (
        "如题，2020.08.08更新，按照和更新之前一样的处理方式，训练过程出现RuntimeError: expected backend CUDA "
        "and dtype Float but got backend CUDA and dtype Long。"
    )
    for text in (arcface, predator, btcdet, mrc):
        lead = _led_by(text, "tensors.different_dtypes")
        assert "an input is Long where Float is expected" in lead.evidence, lead.evidence
        assert "type promotion" in _said(lead) and "1.3" in lead.fix.text, lead
        assert ".float()" in lead.fix.text and "x.to(y.dtype)" in lead.fix.text, lead.fix
    # torch 1.3 and later promote in arithmetic: their own words keep the plain dtype explanation
    later = _led_by("RuntimeError: expected scalar type Float but found Long", "tensors.different_dtypes")
    assert "type promotion" not in _said(later)


def test_an_operation_with_no_kernel_for_an_integer_dtype_is_given_the_dtype_it_computes_in() -> None:
    # An integer tensor given an operation that has no kernel for its dtype (TH's '_th_normal is not
    # implemented for type torch.LongTensor', '_th_ceil_out not supported on CUDAType for Long'; ATen's
    # '"addmm_cuda" not implemented for 'Long'') was read by no entry. ddehueck/pytorch-neat#3 (normal, torch
    # 1.0.1), XuecaiHu/Meta-SR-Pytorch#44 (torch.arange(0., outH, 1.) fixed it), archon159/SELOR#8,
    # jasoncao11/nlp-notebook#2, KalmanNet/KalmanNet-Dataset#1; a loss's Int targets: Topdu/OpenOCR#68
    # (label.long(): the maintainer), wenet-e2e/wekws#141 (merged), windshadow233/Mahjong-AI#2; a mask's
    # all(): stored file 21134496095 (input_mask_torch.byte() for TorchCRF)
    neat = (
        "**Describe the bug**\n"
        "RuntimeError: _th_normal is not implemented for type torch.LongTensor\n"
        "\n"
        "**To Reproduce**\n"
        "Steps to reproduce the behavior:\n"
        "python xor_run.py"
    )
    meta_sr = "RuntimeError: \"floor\" not implemented for 'torch.LongTensor'如何解决"
    selor = (
        '  File "/home/joshua/SELOR/selor_utils/net.py", line 268, in forward\n'
        "    atom_wsum = torch.mm(prob, self.atom_embedding.detach())\n"
        "RuntimeError: \"addmm_cuda\" not implemented for 'Long'"
    )
    notebook = (
        "您好，跑您p-tuning代码，遇见一个RuntimeError: _th_ceil_out not supported on CUDAType for Long，"
        "猜测是不是mlm_pytorch包的版本问题,想问一下您的版本和环境~谢谢！"
    )
    kalman = "RuntimeError: _th_sqrt_out is not implemented for type torch.cuda.LongTensor"
    for text, op in (
        (neat, "normal"),
        (meta_sr, "floor"),
        (selor, "addmm_cuda"),
        (notebook, "ceil"),
        (kalman, "sqrt"),
    ):
        lead = _led_by(text, "dtype.no_integer_kernel")
        assert any(op in line and "Long" in line for line in lead.evidence), lead.evidence
        assert ".float()" in lead.fix.text and "torch.arange(0., n)" in lead.fix.text, lead.fix
    openocr = (
        'How can I solove it RuntimeError: "nll_loss_forward_reduce_cuda_kernel_2d_index" not implemented '
        "for 'Int'"
    )
    wekws = (
        "On my machine the original code threw an error \n"
        "RuntimeError: \"nll_loss_forward_reduce_cuda_kernel_2d_index\" not implemented for 'Int'"
    )
    mahjong = (
        "RuntimeError: \"nll_loss_forward_reduce_cuda_kernel_2d_index\" not implemented for 'Int'\n"
        "\n"
        "There is a possible solution. Open sl_train/train_discard_model.py, add this: "
    )
    for text in (openocr, wekws, mahjong):
        lead = _led_by(text, "dtype.no_integer_kernel")
        assert lead.fix.text.startswith("Give the loss int64 class targets"), lead.fix
        assert "target.long()" in lead.fix.text and ".float()" not in lead.fix.text
    crf = (
        "        #  change input_mask_torch type to byte to avoid RuntimeError: _th_all is not implemented "
        "for type torch.LongTensor\n"
        "        #   in TorchCRF: no_empty_seq_bf = self.batch_first and mask[:, 0].all()"
    )
    lead = _led_by(crf, "dtype.no_integer_kernel")
    assert "mask.bool()" in lead.fix.text and "mask.byte()" in lead.fix.text, lead.fix
    # float16 on the CPU and bitwise operations on floats keep their own entries
    half = _explained("RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'")
    assert "dtype.no_integer_kernel" not in [e.id for e in half]


def test_a_traceback_cut_after_its_raise_line_is_read_from_that_line() -> None:
    # A raise statement never stands for the error it raises, so a traceback pasted without its last line,
    # ending at torch/cuda/__init__.py's `raise AssertionError("Torch not compiled with CUDA enabled")`, was
    # read by no entry. The raise line under a traceback's last frame, with no exception line after it, is
    # what stopped the program. Stored files 59344363829 (torch 2.10.0+cpu under torch_npu) and 53272994692
    # (a Mac); the same statement in source code (torch's own, stored file 35544444; an application's, stored
    # file 20775686902) stays code.
    npu = (
        "**输出**:\n"
        "```\n"
        'File "/usr/local/python3.11.15/lib/python3.11/site-packages/torch_npu/utils/_module.py", line 76, '
        "in convert\n"
        "    return t.to(device, dtype if t.is_floating_point() or t.is_complex() else None, non_blocking)\n"
        '  File "/usr/local/python3.11.15/lib/python3.11/site-packages/torch/cuda/__init__.py", line 417, in '
        "_lazy_init\n"
        '    raise AssertionError("Torch not compiled with CUDA enabled")\n'
        "```\n"
        "\n"
        "**原因分析**: `torch==2.10.0+cpu` 的 `+cpu` 后缀表示不含 CUDA C++ 扩展。"
    )
    hunyuan = (
        'File "pipelines.py", line 308, in to\n'
        "    self.vae.to(device)\n"
        'File "torch/cuda/__init__.py", line 305, in _lazy_init\n'
        '    raise AssertionError("Torch not compiled with CUDA enabled")\n'
        "```\n"
        "\n"
        "Invocation that produced this:\n"
    )
    for text in (npu, hunyuan):
        lead = _led_by(text, "torch.not_compiled_with_cuda")
        assert 'raise AssertionError("Torch not compiled with CUDA enabled")' in lead.line, lead.line
    torch_source = (
        "        if not hasattr(torch._C, '_cuda_getDeviceCount'):\n"
        '            raise AssertionError("Torch not compiled with CUDA enabled")\n'
        "        if _cudart is None:\n"
    )
    application = (
        "    device = args.device\n"
        '    if device.startswith("cuda") and not torch.cuda.is_available():\n'
        '        raise AssertionError("Torch not compiled with CUDA enabled")\n'
        "\n"
        "# CPU性能优化设置\n"
    )
    for code in (torch_source, application):
        assert "torch.not_compiled_with_cuda" not in [e.id for e in _explained(code)]
    # with its exception line the traceback is read from that line, as ever
    whole = hunyuan.replace("```", "AssertionError: Torch not compiled with CUDA enabled\n```")
    assert _led_by(whole, "torch.not_compiled_with_cuda").line.startswith("AssertionError:")


def test_a_concatenation_of_sizes_one_apart_is_an_input_size_the_encoder_decoder_cannot_restore() -> None:
    # torch.cat's 'Sizes of tensors must match except in dimension N', in each release's words, was read by no
    # entry. Two sizes one apart are a skip connection meeting an upsampled map: an input side that is no
    # multiple of 2 to the number of downsamplings is rounded down on the way in. zonasw/unet-nested-multiple-
    # classification#3 (resized to 256x256), fepegar/unet#28 (a multiple of 2 ** n: the maintainer),
    # junyanz/pytorch-CycleGAN-and-pix2pix#566 (unet_256 with 360: the maintainer),
    # qubvel-org/segmentation_models.pytorch#196, stored file 41686238611 (a 64 step, torch 1.10's words)
    nested = (
        "# RuntimeError: Sizes of tensors must match except in dimension 2. Got 74 and 75 (The offending "
        "index is 0)\n"
        "\n"
        "lijianqing317 · description · 2020-08-19\n"
        "运行时报这种错，是需要训练集中各个图像的size必须一致吗？"
    )
    fepegar = (
        "However, I am getting the error.\n"
        "Sizes of tensor must match except in dimension 2. Got 48 and 49 (The offending index is 0). \n"
    )
    pix2pix = (
        '  File "/home/hongjin/PycharmProjects/CycleGAN-20190306/models/networks.py", line 541, in forward\n'
        "    return torch.cat([x, self.model(x)], 1)\n"
        "RuntimeError: invalid argument 0: Sizes of tensors must match except in dimension 1. Got 4 and 5 in "
        "dimension 2 at /pytorch/aten/src/THC/generic/THCTensorMath.cu:83"
    )
    smp = (
        "Sizes of tensors must match except in dimension 1. Got 45 and 46 in dimension 2 at "
        "/opt/conda/conda-bld/pytorch_1579022060824/work/aten/src/THC/generic/THCTensorMath.cu:71"
    )
    voxelmorph = (
        "# # Make sure the size if the width/height is a 64 step (512, 576, 640...),\n"
        "# otherwise, it would report a runtime error:\n"
        "# Sizes of tensors must match except in dimension 1. Expected size 23 but got size 22 for tensor "
        "number 1 in the list.\n"
    )
    for text, sizes in (
        (nested, "74 and 75"),
        (fepegar, "48 and 49"),
        (pix2pix, "4 and 5"),
        (smp, "45 and 46"),
        (voxelmorph, "23 and 22"),
    ):
        lead = _led_by(text, "shape.cat_sizes")
        assert any(sizes in line for line in lead.evidence), lead.evidence
        assert "multiple of 32" in lead.fix.text and "2 to the number of downsamplings" in lead.cause, lead
    assert any("in dimension 2" in line for line in _led_by(pix2pix, "shape.cat_sizes").evidence)
    # sizes far apart (stored file 2484182162), or one apart below 3 (stored file 16337011952): the tensors
    # joined differ in another way, with no reading of the input's size
    far = (
        "direct:\n"
        "Sizes of tensors must match except in dimension 1. Expected size 64 but got size 256 for tensor "
        "number 1 in the list.\n"
    )
    small = (
        "direct:\n"
        "Sizes of tensors must match except in dimension 0. Expected size 1 but got size 2 for tensor number "
        "1 in the list.\n"
    )
    for text in (far, small):
        lead = _led_by(text, "shape.cat_sizes")
        assert "downsamplings" not in lead.cause and "print the shapes" in lead.fix.text.lower(), lead
    assert any("64 and 256" in line for line in _led_by(far, "shape.cat_sizes").evidence)


def test_no_module_named_torch_in_python_2s_words_is_a_python_2_that_should_be_python3() -> None:
    # "ImportError: No module named torch", the name unquoted, is Python 2's wording (Python 3 quotes it and
    # raises ModuleNotFoundError); it was read as torch missing from the environment, never as a `python` that
    # is Python 2 where torch went into Python 3. layumi/Person_reID_baseline_pytorch#146 (test.py's
    # os.system('python evaluate_gpu.py') made python3: the reporter), kaituoxu/Speech-Transformer#27 (the
    # recipe's step 3 ran python2), pytorch/pytorch#15999 (python 2.7 against pip3 and python 3.7)
    reid = (
        "Hello,after training,when I try test it.\n"
        "Error shows:\n"
        "    File evalute_gpu.py,in line 2,in <module>\n"
        " import torch\n"
        "ImportError  : No module named torch\n"
        "But I have tried pip3 install torch /torchvision\n"
        "And in python3,import torch is fine.\n"
        "What can I do?Thanks!"
    )
    speech = (
        "# ImportError: No module named torch\n"
        "\n"
        "tsxce · description · 2019-11-29\n"
        "您好，感谢您的开源，我在执行训练的时候前面0，1，2的步骤都训练。就是为什么在步骤3训练的时候好像采用的python版本"
        "会是python2？我把系统默认的python的软链接改到python 3.7又会报：Unknown option: --\n"
        "usage: python3 [option] ... [-c cmd | -m mod | file | -] [arg] ...\n"
        "请问您的训练环境是怎么样的呢"
    )
    pytorch = (
        'I have an issue when I run pytorch in python 2.7. It indicates that "ImportError: No module named '
        'torch". I installed by using pip. However, if I use pip3 to install pytorch and run in python 3.7, '
        "everything is fine. Any help?"
    )
    for text in (reid, speech, pytorch):
        lead = _led_by(text, "torch.not_installed")
        assert any("Python 2's words" in line for line in lead.evidence), lead.evidence
        assert "python3" in lead.fix.text and "sys.executable" in lead.fix.text, lead.fix
    # Python 3's words keep the plain reading
    three = _led_by("ModuleNotFoundError: No module named 'torch'", "torch.not_installed")
    assert not any("Python 2's words" in line for line in three.evidence)


def test_the_dataloaders_own_too_many_open_files_is_its_sharing_strategy() -> None:
    # The DataLoader's own words for the open-file limit ('Too many open files. Communication with the workers
    # is no longer possible', torch/utils/data/dataloader.py _try_get_data since pytorch/pytorch#34768) were
    # read by no entry: dataloader.fd_sharing_limit took 'received 0 items of ancdata' and '[Errno 24]' alone.
    # zju3dv/NeuralRecon#91, facebookresearch/detectron2#3953 (its title), stored files 59199870234 (128
    # workers against ulimit -n 1024; file_system fixed it) and 10978051948 (the words over four lines)
    recon = (
        '  File "/usr/local/lib/python3.8/site-packages/torch/utils/data/dataloader.py", line 1017, in '
        "_try_get_data\n"
        "    raise RuntimeError(\n"
        "RuntimeError: Too many open files. Communication with the workers is no longer possible. Please "
        "increase the limit using `ulimit -n` in the shell or change the sharing strategy by calling "
        "`torch.multiprocessing.set_sharing_strategy('file_system')` at the beginning of your code\n"
        "\n"
        "I am getting this error when was testing train.sh on just 5 scenes of scannet data.  Any suggestion "
        "??"
    )
    detectron2 = "RuntimeError: Too many open files. Communication with the workers is no longer possible"
    pod = (
        "- 학습 41% 지점에서 `RuntimeError: Too many open files. Communication with the workers is no longer "
        "possible` 발생.\n"
    )
    optuna = (
        "with following error\n"
        "    RuntimeError: Too many open files.\n"
        "    Communication with the workers is no longer possible.\n"
        "    Please increase the limit using `ulimit -n` in the shell or change the sharing strategy\n"
        "    by calling `torch.multiprocessing.set_sharing_strategy('file_system')` at the beginning of your "
        "code\n"
    )
    for text in (recon, detectron2, pod, optuna):
        lead = _led_by(text, "dataloader.fd_sharing_limit")
        assert "set_sharing_strategy('file_system')" in lead.fix.text and "ulimit -n" in lead.fix.text


def test_a_float_result_stored_into_an_integer_tensor_in_place_is_cast_or_made_out_of_place() -> None:
    # 'result type Float can't be cast to the desired output type Long' (an in-place operation or out= whose
    # promoted result is wider than the integer tensor it is stored into) was read by no entry.
    # AI-secure/DBA#1 (data.add_ of float updates into a Long tensor; the maintainer: transfer the type),
    # vicFigure/EAutoDet#5 and ppogg/YOLOv5-Lite#215 (YOLO's build_targets: gj.clamp_(0, gain[3] - 1);
    # int(gain[3]) - 1 fixed it, commit da07336), WangQvQ/YOLOMagic#3 (the maintainer: PyTorch 1.11)
    dba = (
        "Traceback (most recent call last):\n"
        '  File "main.py", line 179, in <module>\n'
        "    epoch_interval=helper.params['aggr_epoch_interval'])\n"
        '  File "/DBA/helper.py", line 256, in average_shrink_models\n'
        "    data.add_(update_per_layer)\n"
        "RuntimeError: result type Float can't be cast to the desired output type Long"
    )
    eautodet = (
        '  File "/home/syj/lightweight/EAutoDet-master/utils/loss.py", line 211, in build_targets\n'
        "    indices.append((b, a, gj.clamp_(0, gain[3] - 1), gi.clamp_(0, gain[2] - 1)))  # image, anchor, "
        "grid indices\n"
        "RuntimeError: result type Float can't be cast to the desired output type long int"
    )
    magic = "RuntimeError: result type Float can't be cast to the desired output type long int"
    lite = (
        "# RuntimeError: result type Float can‘t be cast to the desired output type long int\n"
        "\n"
        "GDbbq · description · 2023-01-12\n"
        "解决办法：  https://blog.csdn.net/Thebest_jack/article/details/125649451"
    )
    for text in (dba, eautodet, magic, lite):
        lead = _led_by(text, "dtype.inplace_result_cast")
        assert any("Float" in line and "ong" in line for line in lead.evidence), lead.evidence
        assert "out of place" in lead.fix.text or "gain[3].long()" in lead.fix.text, lead.fix
    yolo = _led_by(eautodet, "dtype.inplace_result_cast")
    assert "gj.clamp_(0, gain[3].long() - 1)" in yolo.fix.text and "build_targets" in " ".join(yolo.evidence)
    assert "x = x + y" in _led_by(dba, "dtype.inplace_result_cast").fix.text


def test_a_target_out_of_bounds_is_the_cpus_words_for_a_label_outside_the_classes() -> None:
    # 'IndexError: Target 13 is out of bounds.' (nll_loss on the CPU: the check a GPU reports as the
    # device-side assert `t >= 0 && t < n_classes`) was read by no entry. EricFillion/happy-transformer#248
    # (-1: the lowest valid label is 0, the maintainer), milesial/Pytorch-UNet#291 (192: masks of greyscale
    # values, not class indices, the maintainer), TencentGameMate/gnn_cross_lingual#5 (num_labels),
    # 649453932/Bert-Chinese-Text-Classification-Pytorch#96 (13 classes, Target 13)
    happy = (
        "return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), "
        "ignore_index) IndexError: \n"
        "Target -1 is out of bounds."
    )
    unet = (
        "return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), "
        "ignore_index)\n"
        "IndexError: Target 192 is out of bounds\n"
        "\n"
        "Initially the code was running fine with option of bcelogitloss for n_classes= 1. However, in the "
        "latest code we only \n"
        "have crossentropyloss() which is throwing this error.\n"
        "\n"
        "I have used c_classes = 1 and n_classes = 2 but getting the same error."
    )
    gnn = (
        "# IndexError: Target 12 is out of bounds.\n"
        "\n"
        "Clarioooo · description · 2024-05-10\n"
        "The num_classes is 12. Why does this happen?"
    )
    bert = "自己建设数据集，class有13个分类。出现IndexError: Target 13 is out of bounds.问题。求帮忙！！！"
    for text, target in ((happy, "-1"), (unet, "192"), (gnn, "12"), (bert, "13")):
        lead = _led_by(text, "loss.target_out_of_bounds")
        assert any(f"target {target} " in line for line in lead.evidence), lead.evidence
        assert "0 to num_classes - 1" in lead.fix.text and "ignore_index" in lead.fix.text, lead.fix
    assert any("start at 0" in line for line in _led_by(happy, "loss.target_out_of_bounds").evidence)
    assert any("pixel value" in line for line in _led_by(unet, "loss.target_out_of_bounds").evidence)


def test_a_convolution_given_another_number_of_channels_names_the_image_kind_or_the_layout() -> None:
    # A convolution's 'expected input[1, 1, 224, 224] to have 3 channels, but got 1 channels instead' was read
    # by no entry (image.alpha_channel took RGBA's 4 against 3 in elementwise and torch.cat words alone).
    # 1 where 3: stored files 44335491093 (VGG16 given a grayscale image), 38039553997 (a 3-D U-Net given
    # 1-channel label images); 3 where 1: lucidrains/denoising-diffusion-pytorch#55, taesungp/contrastive-
    # unpaired-translation#158, tamarott/SinGAN#88 (torch 1.x's 'weight of size 32 1 3 3'); (N, H, W, C):
    # stored files 16031994872 (next_state.transpose((2, 0, 1)) fixed it) and 66519372928
    vgg = (
        '# # Got error: "RuntimeError: Given groups=1, weight of size [64, 3, 3, 3], expected input[1, 1, '
        "300, "
        '300] to have 3 channels, but got 1 channels instead"'
    )
    unet3d = (
        "    RuntimeError: Given groups=1, weight of size [32, 3, 1, 1, 1], expected input[1, 1, 50, 125, "
        "125] "
        "to have 3 channels, but got 1 channels instead\n"
    )
    diffusion = (
        "grayscale RuntimeError: `expected input[2, 3, 64, 64] to have 1 channels, but got 3 channels "
        "instead`"
    )
    cut = (
        "RuntimeError: Given groups=1, weight of size [64, 1, 7, 7], expected input[0, 3, 406, 406] to have "
        "1 "
        "channels, but got 3 channels instead"
    )
    singan = (
        "`RuntimeError: Given groups=1, weight of size 32 1 3 3, expected input[1, 3, 35, 48] to have 1 "
        "channels, but got 3 channels instead`"
    )
    dqn = (
        "            # RuntimeError: Given groups=1, weight of size 64 3 11 11, expected input[1, 224, 224, "
        "3] to "
        "have 3 channels, but got 224 channels instead\n"
    )
    dino = (
        "        # RuntimeError: Given groups=1, weight of size [64, 3, 7, 7], expected input[16, 224, 224, "
        "3] to "
        "have 3 channels, but got 224 channels instead\n"
    )
    for text, said in (
        (vgg, "a grayscale image"),
        (unet3d, "a grayscale image"),
        (diffusion, "an RGB image"),
        (cut, "an RGB image"),
        (singan, "an RGB image"),
        (dqn, "(N, H, W, C)"),
        (dino, "(N, H, W, C)"),
    ):
        lead = _led_by(text, "model.input_channels")
        assert any(said in line for line in lead.evidence), lead.evidence
    assert "x.permute(0, 3, 1, 2)" in _led_by(dqn, "model.input_channels").fix.text
    assert ".convert('RGB')" in _led_by(vgg, "model.input_channels").fix.text
    assert ".convert('L')" in _led_by(cut, "model.input_channels").fix.text


def test_a_batch_of_items_of_different_sizes_is_given_one_size() -> None:
    # torch.stack's 'stack expects each tensor to be equal size, but got [3, 544, 386] at entry 0 and [3, 794,
    # 586] at entry 1' (the DataLoader's default collate joining a batch) was read by no entry.
    # milesial/Pytorch-UNet#285 (batch_size above 1), qubvel-org/segmentation_models.pytorch#472 (images of
    # different sizes: batch_size=1 or padding), Bohao-Lee/CME#16 (512 against 320), Suanmd/TR-MISR#3
    # (non-square images in two orientations: the maintainer)
    unet = (
        "# RuntimeError: stack expects each tensor to be equal size, but got [3, 544, 386] at entry 0 and "
        "[3, "
        "794, 586] at entry 1\n"
        "\n"
        "gg22mm · description · 2021-08-20\n"
        "When set  batch_size=4,  Greater than 1 ， error , Excuse me, why?"
    )
    smp = (
        "RuntimeError: stack expects each tensor to be equal size, but got [3, 1088, 773] at entry 0 and [3, "
        "384, 480] at entry 1"
    )
    cme = (
        "it occured RuntimeError: stack expects each tensor to be equal size, but got [3, 512, 512] at entry "
        "0 "
        "and [3, 320, 320] at entry 4.  I set the height and width to 512."
    )
    misr = (
        "    padded_lr_batch = torch.stack(lr_batch, dim=0)\n"
        "RuntimeError: stack expects each tensor to be equal size, but got [24, 32, 64] at entry 0 and [24, "
        "64, "
        "32] at entry 1"
    )
    for text, sizes in (
        (unet, "544x386 against 794x586"),
        (smp, "1088x773 against 384x480"),
        (cme, "512x512 against 320x320"),
    ):
        lead = _led_by(text, "dataloader.stack_sizes")
        assert any(sizes in line for line in lead.evidence), lead.evidence
        assert "transforms.Resize((512, 512))" in lead.fix.text and "batch_size=1" in lead.fix.text, lead.fix
    lead = _led_by(misr, "dataloader.stack_sizes")
    assert any("height and width swapped" in line for line in lead.evidence), lead.evidence


def test_ncclinvalidusage_is_most_often_two_ranks_on_one_gpu() -> None:
    # NCCL's 'invalid usage' (ncclInvalidUsage, torch's 'NCCL error in: ..., invalid usage, NCCL version
    # 2.7.8') was read by no entry; NCCL returns it for 'Duplicate GPU detected', which NCCL_DEBUG=WARN
    # prints.
    # NVIDIA/nccl#1241 (multiple ranks on one CUDA device: the maintainer), espnet/espnet#4726
    # (set_device(RANK) where LOCAL_RANK is meant, CUDA_VISIBLE_DEVICES), facebookresearch/SlowFast#364
    # (NUM_GPUS left at 8), facebookresearch/swav#61 (torch 1.x's longer words)
    nccl = (
        "NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1287, invalid "
        "usage, NCCL version 2.17.1 ncclInvalidUsage: This usually reflects invalid usage of NCCL library. "
        "Las"
    )
    espnet = (
        "RuntimeError: NCCL error, invalid usage, NCCL version 2.7.8 when Multi-processing with 2-HOST jobs "
        "with "
        "1-GPU for each host, Multi host, DistributedDataParallel"
    )
    slowfast = (
        "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:784, invalid usage, NCCL "
        "version 2.7.8"
    )
    swav = (
        '"RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:825, invalid usage, NCCL '
        "version 2.7.8\n"
        "ncclInvalidUsage: This usually reflects invalid usage of NCCL library (such as too many async ops, "
        "too "
        "many collectives at once, mixing streams in a group, etc).\n"
        "Killing subprocess 1085\n"
        'Killing subprocess 1086"'
    )
    for text in (nccl, espnet, slowfast, swav):
        lead = _led_by(text, "nccl.invalid_usage")
        assert "two ranks on one GPU" in lead.cause and "NCCL_DEBUG=WARN" in lead.fix.text, lead
        assert "torch.cuda.set_device(local_rank)" in lead.fix.text and "LOCAL_RANK" in lead.fix.text
        assert any("NCCL version" in line for line in lead.evidence), lead.evidence
    # with NCCL's own reason in the text, that reason leads
    named = swav + "\nDuplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000"
    assert [e.id for e in _explained(named)] == ["nccl.duplicate_gpu"]


def test_nccls_remote_error_is_a_rank_that_went_away_or_the_network_between_nodes() -> None:
    # 'remote process exited or there was a network error' (ncclRemoteError) was read by no entry.
    # tatsu-lab/stanford_alpaca#207 (NET/IB completion error 12), NVIDIA/nccl#2076 (some nodes' InfiniBand
    # links: the reporter), NVIDIA/nccl#1928 (NET/OFI undeliverable), NVIDIA/nccl#795 (a remote rank's
    # segfault first)
    alpaca = (
        "[E ProcessGroupNCCL.cpp:455] Some NCCL operations have failed or timed out. Due to the asynchronous "
        "nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data. [E "
        "ProcessGroupNCCL.cpp:460] To avoid data inconsistency, we are taking the entire process down. "
        "terminate called after throwing an instance of 'std::runtime_error' what(): NCCL error: remote "
        "process "
        "exited or there was a network error, NCCL version 2.14.3 ncclRemoteError: A call failed possibly "
        "due "
        "to a network error or a remote process exiting prematurely. Last error: NET/IB : Got completion "
        "from "
        "peer 11.214.147.122<39138> with error 12, opcode 0, len 0, vendor err 129"
    )
    v100 = (
        "torch.distributed.DistBackendError: NCCL error in: "
        "/pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, "
        "remote process exited or there was a network error, NCCL version 2.21.5\n"
        "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting "
        "prematurely.\n"
        "Last error:\n"
        "socketProgressOpt: Call to recv from 172....<33759> failed : Connection reset by peer"
    )
    ofi = (
        "[rank3]: torch.distributed.DistBackendError: NCCL error in: "
        "/opt/pytorch/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3763, remote process exited "
        "or "
        "there was a network error, NCCL version 2.28.8\n"
        "[rank3]: ncclRemoteError: A call failed possibly due to a network error or a remote process exiting "
        "prematurely.\n"
        "[rank3]: Last error:\n"
        "[rank3]: NET/OFI Request 0x7f14cc5b60c0 completed with error. RC: 113. Error: 2 (UNDELIVERABLE). "
        "Completed length: 0\n"
    )
    for text in (alpaca, v100, ofi):
        lead = _led_by(text, "nccl.remote_error")
        assert "another rank" in lead.cause and "NCCL_IB_DISABLE=1" in lead.fix.text, lead
        assert any("NCCL version" in line for line in lead.evidence), lead.evidence
    assert any(
        "error 12" in line and "retr" in line for line in _led_by(alpaca, "nccl.remote_error").evidence
    )
    assert any("Connection reset by peer" in line for line in _led_by(v100, "nccl.remote_error").evidence)


def test_an_upsample_pickled_by_an_older_torch_lacks_recompute_scale_factor() -> None:
    # "'Upsample' object has no attribute 'recompute_scale_factor'" (a whole model pickled by torch 1.10 or
    # before, run by a torch whose Upsample.forward reads the attribute) was read by no entry.
    # wmcnally/kapao#55 (torch 1.11.0; the requirements pin 1.9.1: the maintainer), openai/DALL-E#71 (the
    # pickled decoder; rebuilt Upsample modules, #75), BiomedSciAI/histocartography#30 (torch 1.10.1),
    # zstar1003/yolov5-flask#1
    kapao = (
        "I got an error when i used latest pytorch 1.11.0. \n"
        "The error : \"Upsample' object has no attribute 'recompute_scale_factor\"\n"
        "\n"
        "Yolo repo managers also modified their code to fix the same.\n"
        "https://github.com/ultralytics/yolov5/pull/6932\n"
    )
    dalle = (
        "Is anyone facing this issue when running the notebook? If not, what version of pytorch are you "
        "using?\n"
        "\n"
        "I see this method is affected in the most recent release of pytorch (1.11.0) so my guess that has "
        "something to do with it.\n"
        "\n"
        "> AttributeError: 'Upsample' object has no attribute 'recompute_scale_factor'"
    )
    histo = (
        "/usr/local/lib/python3.7/dist-packages/torch/nn/modules/module.py in __getattr__(self, name)\n"
        "   1184                 return modules[name]\n"
        "   1185         raise AttributeError(\"'{}' object has no attribute '{}'\".format(\n"
        "-> 1186             type(self).__name__, name))\n"
        "   1187 \n"
        "AttributeError: 'Upsample' object has no attribute 'recompute_scale_factor'"
    )
    flask = (
        "报错了：\n"
        "\n"
        "in __getattr__\n"
        "    raise AttributeError(\"'{}' object has no attribute '{}'\".format(\n"
        "AttributeError: 'Upsample' object has no attribute 'recompute_scale_factor'"
    )
    for text in (kapao, dalle, histo, flask):
        lead = _led_by(text, "load.pickled_by_older_torch")
        assert "m.recompute_scale_factor = None" in lead.fix.text and "state_dict" in lead.fix.text, lead.fix
        assert any("1.11" in line for line in lead.evidence), lead.evidence


def test_thcs_unknown_error_is_read_by_its_number_of_either_cuda_numbering() -> None:
    # cudaErrorUnknown is 30 before CUDA 10.1 and 999 from it on; THC's 'cuda runtime error (999) : unknown
    # error' (torch 1.x built with CUDA 10.1 or later) was read by no entry, its (30) was. Stored files
    # 2315081298, 50474301898 and 49705448717 (reloading nvidia_uvm fixed it in each)
    makeup = (
        "1. [Solved] `RuntimeError: cuda runtime error (999) : unknown error at "
        "/opt/conda/conda-bld/pytorch_1595629403081/work/aten/src/THC/THCGeneral.cpp:47`\n"
        "\n"
        "\t```\n"
        "\tsudo rmmod nvidia_uvm\n"
        "\tsudo modprobe nvidia_uvm\n"
        "\t```\n"
    )
    guide = (
        "Another bit of troubleshooting that may be necessary, if you find yourself with an "
        "&quot;RuntimeError: "
        "cuda runtime error (999) : unknown error&quot; it&#39;s an issue with the nVidia driver. Fix it "
        "with:\n"
    )
    notes = (
        "# RuntimeError: cuda runtime error (999) : unknown error at ..\\aten\\src\\THC\\THCGeneral.cpp:50\n"
    )
    for text in (makeup, guide, notes):
        lead = _led_by(text, "cuda.unknown_error")
        assert "sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm" in lead.fix.commands, lead.fix


def test_the_cuda_driver_stub_is_the_toolkits_placeholder_found_before_the_driver() -> None:
    # 'CUDA driver is a stub library' (cudaErrorStubLibrary, 34: the toolkit's lib64/stubs/libcuda.so loaded
    # in place of the driver's libcuda.so.1) was read by no entry. Stored files 18107129904 ('CUDA failure
    # 34'), 67615086582 (a stubs folder on LD_LIBRARY_PATH, verified), 53962209974 (a leftover stub link
    # ahead of the container runtime's driver), 2946598856 (WSL and Docker without the NVIDIA runtime)
    sandbox = (
        "    CUDA failure 34: CUDA driver is a stub library ; GPU=0 ; hostname=localhost\n"
        "    ; expr=cudaSetDevice(info_.device_id);\n"
    )
    nix = (
        "of `/usr/lib` turns every CUDA entry point into **error 34, `CUDA_ERROR_STUB_LIBRARY`\n"
        '("CUDA driver is a stub library")** — verified directly:'
    )
    docker = (
        "# LD_LIBRARY_PATH, so a leftover stub wins over the real driver and every CUDA\n"
        '# init fails with "CUDA driver is a stub library".\n'
    )
    wsl = (
        'If you see "CUDA driver is a stub library":\n'
        "\n"
        "- Ensure NVIDIA drivers are installed on the host\n"
        "- Verify NVIDIA Container Toolkit is installed in WSL 2\n"
        "- Check that Docker is using the nvidia runtime\n"
    )
    for text in (sandbox, nix, docker, wsl):
        lead = _led_by(text, "cuda.stub_driver")
        assert "lib64/stubs" in lead.cause and "LD_LIBRARY_PATH" in lead.fix.text, lead
        assert "ldconfig -p | grep libcuda.so.1" in lead.fix.commands and "--gpus all" in lead.fix.text


def test_an_uncorrectable_nvlink_error_is_the_links_hardware_not_the_program() -> None:
    # CUDA's 'uncorrectable NVLink error detected during the execution' (CUDA_ERROR_NVLINK_UNCORRECTABLE, 220)
    # was read by no entry. Stored files 10679892842 (a job master's report of a rank's RuntimeError),
    # 55484967662 (a knowledge base: the link's state, hardware repair), 66480397060 (a hardware defect on
    # three nodes), 63106809666 (cudaFreeAsync's words)
    job = (
        '      "message": "RuntimeError: CUDA error: uncorrectable NVLink error detected during the '
        "execution\\nCUDA kernel errors might be asynchronously reported at some other API call, so the "
        "stacktrace below might be incorrect.\\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1.\\n"
        'Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\\n",'
    )
    handbook = (
        "### 2. Uncorrectable NVLink Error\n"
        "**日志现象**: `uncorrectable NVLink error detected during the execution`\n"
        "**问题根因**: GPU nvlink 状态异常\n"
        "**解决方案**:\n"
        "1. 关联 AIPod 硬件异常信息\n"
        "2. 硬件报修\n"
    )
    attempt = (
        "**Root cause of failure:** `CUDA error: uncorrectable NVLink error detected during the execution` "
        "on "
        "nodes nvl72069-T01/T07/T08. This is a hardware defect, not a code bug."
    )
    allocator = (
        '            "cudaFreeAsync failed to free 0x27e80b9200: INTERNAL: CUDA error: : "\n'
        '            "CUDA_ERROR_NVLINK_UNCORRECTABLE: uncorrectable NVLink error detected during the '
        'execution"'
    )
    for text in (job, handbook, attempt, allocator):
        lead = _led_by(text, "cuda.nvlink_uncorrectable")
        assert "hardware" in lead.cause and "nvidia-smi nvlink -e" in lead.fix.commands, lead


def test_no_ptx_jit_compiler_is_the_drivers_jit_library_missing_where_a_kernel_needed_it() -> None:
    # CUDA's 'PTX JIT compiler library not found' (CUDA_ERROR_JIT_COMPILER_NOT_FOUND, 221: the driver's
    # libnvidia-ptxjitcompiler.so.1 could not be loaded where a kernel had PTX alone for this GPU) was read by
    # no entry. Stored files 1450083666 (a Jetson container without the link to
    # libnvidia-ptxjitcompiler.so.1), 58543130288 (a WSL 2 container), 55062818601 (kernels built for another
    # architecture, JIT needed)
    jetson = (
        "For missing link to libnvidia-ptxjitcompiler.so.1:\n"
        "\n"
        "```\n"
        "ml_api_1  |  CUDA Error: PTX JIT compiler library not found\n"
        "```\n"
    )
    wsl = (
        '- **⚠ Runtime JIT unavailable in WSL2 container** ("PTX JIT compiler library not found" — driver '
        "dlopen "
        "fails even\n"
        "  with caps=all + WSL ptxjitcompiler on path). Tile IR is JIT'd at launch by default."
    )
    thor = (
        '- Kernel 启动静默失败（`cudaGetLastError()` 报 "no kernel image is available for execution" 或 "PTX '
        'JIT compiler library not found"）\n'
    )
    for text in (jetson, wsl, thor):
        lead = _led_by(text, "cuda.ptx_jit_missing")
        assert "libnvidia-ptxjitcompiler.so.1" in lead.cause and "--gpus all" in lead.fix.text, lead
        assert "ldconfig -p | grep ptxjitcompiler" in lead.fix.commands


def test_nccls_internal_error_is_read_with_its_network_and_settings() -> None:
    # NCCL's 'internal error' (ncclInternalError; NCCL 2.18 reports every network error so, its maintainer
    # in NVIDIA/nccl#1092) was read by no entry. NVIDIA/nccl#1092 (NCCL_DEBUG=WARN; NCCL_SOCKET_IFNAME fixed
    # it for one user), NVIDIA/nccl-tests#166 (NCCL_P2P_LEVEL left set: unset it, the maintainer),
    # EleutherAI/gpt-neox#1147 (two nodes: recv refused), MariusBeckerIESE/ChatBot_AI#7
    nccl = (
        ": torch.distributed.DistBackendError: NCCL error in: "
        "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp"
        ":1333, internal error - please report this issue to the NCCL developers, NCCL version 2.18.1 ain"
    )
    tests = (
        "Test NCCL failure common.cu:958 'internal error - please report this issue to the NCCL developers / "
        "'\n"
        "NCCL_P2P_LEVEL=NVL\n"
    )
    neox = (
        "NCCL error in: ProcessGroupNCCL.cpp:1269, internal error, NCCL version 2.14.3\n"
        "```\n"
        "i run the code again with `NCCL_DEBUG=INFO` and got this:\n"
        "```\n"
        "node2: Last error:\n"
        "node2: Net : Call to recv from NODE2_IP<56843> failed : Connection refused\n"
    )
    chatbot = (
        "torch.distributed.DistBackendError: NCCL error in: "
        "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:"
        "1333, internal error - please report this issue to the NCCL developers, NCCL version 2.18.1"
    )
    for text in (nccl, tests, neox, chatbot):
        lead = _led_by(text, "nccl.internal_error")
        assert "NCCL_DEBUG=WARN" in lead.fix.text and "NCCL_SOCKET_IFNAME" in lead.fix.text, lead
    assert any(
        "2.18" in line and "network" in line for line in _led_by(chatbot, "nccl.internal_error").evidence
    )
    assert any("NCCL_P2P_LEVEL" in line for line in _led_by(tests, "nccl.internal_error").evidence)
    assert any("Connection refused" in line for line in _led_by(neox, "nccl.internal_error").evidence)


def test_thcs_numbered_initialization_error_is_cuda_in_a_forked_process() -> None:
    # THC's 'cuda runtime error (3) : initialization error' (torch 1.x's words for
    # cudaErrorInitializationError, before 'Cannot re-initialize CUDA in forked subprocess' existed) was read
    # by no entry; CUDA's own words were. Stored files 19281767403 (torch 1.3.0's form beside torch 1.8.0's),
    # 27242965933 (spawn fixed it), 36816507006 (a service that must not touch the GPU before its children),
    # 16809983501 (a worker loop)
    notes = (
        "torch1.3.0:\n"
        "\n"
        "```python\n"
        "RuntimeError: cuda runtime error (3) : initialization error at "
        "/pytorch/aten/src/THC/THCGeneral.cpp:50\n"
        "```\n"
    )
    setup = (
        "## Error 1\n"
        "Error: RuntimeError: cuda runtime error (3) : initialization error at "
        "/opt/conda/conda-bld/pytorch_1544174967633/work/aten/src/THC/THCGeneral.cpp:51\n"
        "Solution: https://github.com/pyg-team/pytorch_geometric/issues/131 \n"
    )
    service = (
        "否则后续在子进程中执行任何依赖 GPU 的 AI 引擎初始化时，都会报错："
        "“cuda runtime error (3) : initialization error...”\n"
    )
    loop = "            if e.args[0].startswith('cuda runtime error (3) : initialization error'):\n"
    for text in (notes, setup, service, loop):
        lead = _led_by(text, "cuda.initialization_error")
        assert "multiprocessing_context='spawn'" in lead.fix.text, lead.fix


def test_no_hip_gpus_is_a_rocm_torch_that_cannot_reach_an_amd_gpu() -> None:
    # ROCm's 'No HIP GPUs are available' (a ROCm build of torch whose HIP sees no GPU) was read by no entry.
    # Stored files 58573778432 (a container without the render and video groups: --group-add keep-groups),
    # 61302408288 (/dev/kfd and /dev/dri, the amdgpu module), 57354847550 (a pod without the AMD GPU device
    # plugin), 7808787661 (a ROCm wheel where the GPU is an NVIDIA one: the CUDA build instead)
    podman = (
        "- **`RuntimeError: No HIP GPUs are available`** (or `rocminfo` finds nothing)\n"
        "  despite `--device /dev/kfd --device /dev/dri` → the user's supplementary\n"
        "  groups were not carried into the container, so `/dev/kfd` is present but\n"
        "  inaccessible. Fix: add `--group-add keep-groups` and verify you are in the\n"
        "  host `render`/`video` groups (`groups`); if it still fails, try\n"
    )
    troubleshooting = (
        "## GPU Not Detected\n"
        "\n"
        "```\n"
        "RuntimeError: No HIP GPUs are available\n"
        "```\n"
        "\n"
        "**Fix:**\n"
        "```bash\n"
        "# Check devices exist\n"
        "ls -la /dev/kfd /dev/dri/\n"
    )
    chart = (
        "### RuntimeError: No HIP GPUs are available\n"
        "\n"
        "This error occurs when using the `rocm` image without AMD GPU device plugin installed.\n"
    )
    fish = (
        "of these files was tested on Linux Platform with a GPU (RTX1080).\n"
        "\n"
        "If you see the following error, you may need to install a [PyTorch "
        "package](https://pytorch.org/get-started/locally/)\n"
        "compatible with your infrastructure.\n"
        "\n"
        "```text\n"
        "RuntimeError: No HIP GPUs are available\n"
        "```\n"
    )
    for text in (podman, troubleshooting, chart, fish):
        lead = _led_by(text, "rocm.no_gpus_available")
        assert "/dev/kfd" in lead.cause and "render" in lead.fix.text and "rocminfo" in lead.fix.commands, (
            lead
        )
    nvidia = _led_by(fish, "rocm.no_gpus_available")
    assert any("NVIDIA" in line and "CUDA build" in line for line in nvidia.evidence), nvidia.evidence


def test_nvidia_smi_that_cannot_reach_the_driver_is_a_kernel_module_not_loaded() -> None:
    # nvidia-smi's 'NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver' was read by
    # no entry. Stored files 54517337674 (a kernel update whose DKMS rebuild failed), 61469049724 (Secure
    # Boot: the module unsigned), 1238785414 (nouveau and nvidiafb hold the GPU), 46914720919 (installed,
    # rebooted, still not loaded)
    dkms = (
        "El error arrojado es: `NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA "
        "driver. Make "
        "sure that the latest NVIDIA driver is installed and running`.\n"
    )
    secure_boot = (
        '            warn  "签名后才能被内核加载。密钥没配好就装驱动，装完 nvidia-smi"\n'
        '            warn  "依然会失败（couldn\'t communicate with the NVIDIA driver），"\n'
    )
    nouveau = (
        "    Kernel modules: nvidiafb, nouveau\n"
        "\n"
        "\tnvidia-smi -a\n"
        "\tNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the "
        "latest "
        "NVIDIA driver is installed and running.\n"
    )
    lambda_stack = (
        "After a reboot it did NOT work:\n"
        "\n"
        "root@cocalc-compute-server-6:/home/wstein# nvidia-smi\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the "
        "latest "
        "NVIDIA driver is installed and running.\n"
    )
    for text in (dkms, secure_boot, nouveau, lambda_stack):
        lead = _led_by(text, "driver.not_loaded")
        assert (
            "kernel module" in lead.cause
            and "Secure Boot" in lead.fix.text
            and "dkms status" in lead.fix.commands
        )
    assert any("nouveau" in line for line in _led_by(nouveau, "driver.not_loaded").evidence)


def test_nvml_driver_library_mismatch_is_a_driver_updated_under_a_loaded_module() -> None:
    # 'Failed to initialize NVML: Driver/library version mismatch' was read by no entry. Stored files
    # 10129034331 (apt-get upgraded the user-space libraries, 570.195 to 570.211: reboot), 68837188041
    # (unattended-upgrades; the kernel log's 'NVRM: API mismatch'), 18184156146 (an outdated module in the
    # initramfs), 54514288701 (reboot, or unload and reload the modules)
    apt = (
        "   - `nvidia-smi` reports `Failed to initialize NVML: Driver/library version mismatch`\n"
        "   - CUDA programs fail with `CUDA_ERROR_UNKNOWN`\n"
    )
    laptop = (
        "**Driver/library mismatch on the current laptop (procedure to verify).** Symptom: `nvidia-smi`\n"
        'prints "Failed to initialize NVML: Driver/library version mismatch". Usual cause:\n'
        "unattended-upgrades replaced the userspace libraries (`libnvidia-compute-580`, `nvidia-utils-580`)\n"
        "while the older kernel module stayed loaded; the kernel log shows `NVRM: API mismatch: the client\n"
    )
    initramfs = (
        "Got driver/library version mismatch error:\n"
        "\n"
        "```\n"
        "$ nvidia-smi\n"
        "Failed to initialize NVML: Driver/library version mismatch\n"
        "```\n"
    )
    docker = (
        "The final command must print the GPU table. If it fails with\n"
        "`Failed to initialize NVML: Driver/library version mismatch`, the\n"
        "in-kernel driver disagrees with the userland library — reboot, or\n"
        "unload + reload the nvidia kernel modules.\n"
    )
    for text in (apt, laptop, initramfs, docker):
        lead = _led_by(text, "driver.library_mismatch")
        assert "Reboot" in lead.fix.text and "cat /proc/driver/nvidia/version" in lead.fix.commands, lead


def test_a_glibcxx_version_not_found_is_an_older_libstdcxx_loaded_ahead_of_the_environments() -> None:
    # The dynamic loader's "libstdc++.so.6: version `GLIBCXX_3.4.29' not found (required by ...)" was read by
    # no entry (lib.glibc_too_old takes glibc's GLIBC_ versions alone). Stored files 16758550665 (protobuf's
    # extension in a miniconda env: the env's libstdc++), 34155221760 (pandas in an anaconda env),
    # 68287185270 (compressai's _CXX: gcc and g++ from conda)
    autodl = (
        "该项目在autodl上跑报错：ImportError: /usr/lib/x86_64-linux-gnu/libstdc++.so.6: version "
        "`GLIBCXX_3.4.29' not found (required by "
        "/root/miniconda3/lib/python3.8/site-packages/google/protobuf/pyext/"
        "_message.cpython-38-x86_64-linux-gnu.so)\n"
    )
    nerfslam = (
        "            - ImportError: /usr/lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.29' not "
        "found "
        "(required by /home/sj/anaconda3/envs/nerfslam/lib/python3.8/site-packages/pandas/_libs/window/"
        "aggregations.cpython-38-x86_64-linux-gnu.so)\n"
    )
    compressai = (
        "   ImportError: /usr/lib64/libstdc++.so.6: version `GLIBCXX_3.4.29' not found (required by "
        "<conda_path>/envs/rs_dc/lib/python3.11/site-packages/compressai/_CXX.cpython-311-x86_64-linux-gnu.so)\n"
    )
    for text in (autodl, nerfslam, compressai):
        lead = _led_by(text, "lib.libstdcxx_too_old")
        assert "GLIBCXX_3.4.29" in " ".join(lead.evidence) and "$CONDA_PREFIX/lib" in lead.fix.text, lead
    assert any("conda" in line for line in _led_by(nerfslam, "lib.libstdcxx_too_old").evidence)
