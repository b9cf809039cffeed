"""The figures of a CUDA out-of-memory message reasoned with, on messages users pasted in public issues (each
quoted verbatim, its thread named): memory held outside the job (total - free - what the job holds), a job
that spilled past the GPU (allocated above capacity), fragmentation where free and cached memory only together
fit the request, a zero read as a zero, the figures pasted without the words before them, and which of the
processes a message lists is the job."""

from __future__ import annotations

import pytest

from torchdoctor.checks.memory.explanations import ENTRIES, analyse_oom
from torchdoctor.explain import explain

from corpus_tools import splits


@pytest.mark.parametrize(
    ("message", "outside"),
    [
        (  # One-2-3-45/One-2-3-45#25: 1.01 GiB reserved by the job on a 14.56 GiB GPU with 1.31 GiB free
            "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.69 GiB (GPU 0; 14.56 GiB "
            "total "
            "capacity; 649.97 MiB already allocated; 1.31 GiB free; 1.01 GiB reserved in total by PyTorch) "
            "If "
            "reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.",
            "12.24 GiB of 14.56 GiB",
        ),
        (  # nv-nguyen/cnos#29: a second run while the first still held the GPU
            "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1024.00 MiB (GPU 0; 23.63 "
            "GiB "
            "total capacity; 3.75 GiB already allocated; 1.05 GiB free; 3.83 GiB reserved in total by "
            "PyTorch) "
            "If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.",
            "18.75 GiB of 23.63 GiB",
        ),
        (  # research/memory_bandwidth.md 1.6 (b): 188 MiB reserved on a 7.93 GiB GPU with 47 MiB free
            "RuntimeError: CUDA out of memory. Tried to allocate 36.00 MiB (GPU 0; 7.93 GiB total capacity; "
            "130.35 MiB already allocated; 47.06 MiB free; 188.00 MiB reserved in total by PyTorch)",
            "7.70 GiB of 7.93 GiB",
        ),
    ],
)
def test_memory_held_outside_the_job_is_named_with_its_figure(message: str, outside: str) -> None:
    analysis = analyse_oom(message)
    assert any(line.startswith(f"held outside this job: {outside}") for line in analysis.evidence)
    assert analysis.cause is not None and "held outside it" in analysis.cause
    assert analysis.check == "gpu.memory"
    assert analysis.fix is not None and "nvidia-smi" in analysis.fix.commands[0]


@pytest.mark.parametrize(
    "message",
    [
        # fastMRI#44 (7.36 of 7.93 GiB reserved by the job itself), TotalSegmentator#62 (18.07 of 23.70),
        # Patch-GCN#28
        # (21.93 of 23.65): the job holds the GPU; what is left outside is its CUDA context
        "RuntimeError: CUDA out of memory. Tried to allocate 28.00 MiB (GPU 0; 7.93 GiB total capacity; "
        "7.18 GiB "
        "already allocated; 27.56 MiB free; 7.36 GiB reserved in total by PyTorch)",
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 6.58 GiB (GPU 0; 23.70 GiB total "
        "capacity; 13.64 GiB already allocated; 4.23 GiB free; 18.07 GiB reserved in total by PyTorch)",
        "RuntimeError: CUDA out of memory. Tried to allocate 2.92 GiB (GPU 0; 23.65 GiB total capacity; "
        "19.63 GiB "
        "already allocated; 188.56 MiB free; 21.93 GiB reserved in total by PyTorch)",
    ],
)
def test_a_job_that_holds_the_gpu_itself_is_not_told_another_process_does(message: str) -> None:
    analysis = analyse_oom(message)
    assert not any(line.startswith("held outside this job") for line in analysis.evidence)


def test_free_and_cached_memory_that_only_together_fit_is_fragmentation() -> None:
    # wasserth/TotalSegmentator#62: 4.23 GiB free and 4.43 GiB cached, each below the 6.58 GiB asked for
    analysis = analyse_oom(
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 6.58 GiB (GPU 0; 23.70 GiB total "
        "capacity; 13.64 GiB already allocated; 4.23 GiB free; 18.07 GiB reserved in total by PyTorch) If "
        "reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation."
    )
    assert "free (4.23 GiB) and cached (4.43 GiB) memory together would fit it" in analysis.evidence
    assert analysis.check == "gpu.fragmentation"
    assert analysis.fix is not None and "torch.cuda.empty_cache()" in analysis.fix.text


def test_a_job_allocated_past_the_gpus_capacity_spilled_and_needs_to_shrink() -> None:
    # richard-peng-xia/MMed-RAG#38: 22.44 GiB allocated on an 8 GiB RTX 4060 Ti (Windows), "of which 0
    # bytes is
    # free"; the maintainer's fix was a smaller batch
    analysis = analyse_oom(
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB. GPU 0 has a total "
        "capacty "
        "of 8.00 GiB of which 0 bytes is free. Of the allocated memory 22.44 GiB is allocated by PyTorch, "
        "and "
        "3.16 MiB is reserved by PyTorch but unallocated."
    )
    assert "free on the GPU: 0 bytes (0.00 GiB)" in analysis.evidence  # a zero is a figure, not a missing one
    assert any("more than the GPU's 8.00 GiB" in line for line in analysis.evidence)
    assert analysis.fix is not None and "smaller batch" in analysis.fix.text


def test_the_figures_pasted_without_the_words_before_them_are_read() -> None:
    # ShannonAI/Self_Explaining_Structures_Improve_NLP_Models#6 pasted the figures alone
    analysis = analyse_oom(
        "Tried to allocate 20.00 MiB (GPU 0; 1.96 GiB total capacity; 1.24 GiB already allocated; 2.88 MiB "
        "free; 1.25 GiB reserved in total by PyTorch)"
    )
    assert "total capacity of the GPU: 1.96 GiB" in analysis.evidence


def test_which_listed_process_is_the_job_is_said() -> None:
    # the 2.x message lists every process on the GPU; "this process has" names the job's figure
    analysis = analyse_oom(
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total "
        "capacity of "
        "23.64 GiB of which 1.10 GiB is free. Process 4242 has 12.52 GiB memory in use. Process 5151 has "
        "10.00 "
        "GiB memory in use. Including non-PyTorch memory, this process has 12.52 GiB memory in use. Of the "
        "allocated memory 11.80 GiB is allocated by PyTorch, and 250.00 MiB is reserved by PyTorch but "
        "unallocated."
    )
    line = next(line for line in analysis.evidence if line.startswith("2 processes hold memory"))
    assert "pid 4242: 12.52 GiB (this job)" in line and "the others hold 10.00 GiB" in line


_THC = "RuntimeError: cuda runtime error (2) : out of memory at "


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (  # pytorch/pytorch#7634
            "my gpu is 1060 with 6G memory ,how did that come?\nRuntimeError: cuda runtime err(2): "
            "out of memory at /opt/conda/conda-bld/pytorch_1501953625411/work/pytorch-0.1.12/torch/"
            "libTHC/THCstorage.cu:66",
            "6G",
        ),
        (  # shipubupt/NIPS2018#5
            "ubuntu16.04 ++940mx(2gb)+cuda8.0+py27+pytorch0.3.0post4 .I have changed batch_test=1 in "
            f"option.py .but it is always out of memory\n{_THC}"
            "/pytorch/torch/lib/THC/generic/THCStorage.cu:58",
            "2gb",
        ),
        (  # pytorch/pytorch#7417
            "This algorithm was developed on NVIDIA Titan X graphic card and I have a NVIDIA GTX 1050 TI "
            "4GB.\n`THCudaCheck FAIL file=/opt/conda/conda-bld/pytorch_1518238409320/work/torch/lib/THC/"
            "generic/THCStorage.cu line=58 error=2 : out of memory`",
            "4GB",
        ),
    ],
)
def test_a_thc_oom_without_figures_is_weighed_against_the_gpu_memory_the_writer_gives(
    text: str, said: str
) -> None:
    analysis = analyse_oom(text)
    assert f"the text says the GPU has {said}" in analysis.evidence
    assert (
        "THC wording" in analysis.evidence[0]
        and "outside PyTorch's caching allocator" not in analysis.evidence[0]
    )
    assert analysis.cause is not None and "more memory than the GPU's" in analysis.cause
    assert analysis.fix is not None and "a larger GPU (more GPU memory)" in analysis.fix.text


def test_the_machines_ram_is_not_read_as_the_gpus_memory() -> None:
    # andyzeng/visual-pushing-grasping#2: 16GB of RAM beside a GTX 750TI whose memory the writer does not give
    text = (
        "My enviroment: windows10 with Intel(R) Core(TM) i5-6400 CPU @ 2.70GHz   16GB RAM  cuda9.0 "
        "installed(with cudnn) with NVIDIA GTX 750TI.\nRuntimeError: cuda runtime error (2) : out of memory"
    )
    analysis = analyse_oom(text)
    assert analysis.cause is None and not any("the text says the GPU has" in e for e in analysis.evidence)


_TRIED = "RuntimeError: CUDA out of memory. Tried to allocate "


@pytest.mark.parametrize(
    "text",
    [
        # https://github.com/yyliu01/RPL/issues/14 (the maintainer: a lower resolution, or a larger GPU)
        "Hi, I'm trying to run inference as you mentioned, but instead I've gotten this error every time;\n"
        f"{_TRIED}602.00 MiB (GPU 0; 5.70 GiB total capacity; 2.97 GiB already allocated; 340.50 MiB free; "
        "3.57 GiB reserved in total by PyTorch)",
        # https://github.com/cv516Buaa/tph-yolov5/issues/23 (a batch of 1 did not help; --img-size 1996)
        "When I am trying to run the inference command I am getting the next error:\n"
        f"ret = input.softmax(dim)\n{_TRIED}962.00 MiB (GPU 0; 3.81 GiB total capacity; 1.79 GiB already "
        "allocated; 725.00 MiB free; 1.93 GiB reserved in total by PyTorch)",
        # https://github.com/clovaai/CRAFT-pytorch/issues/15 (a smaller image, torch.no_grad, a larger GPU)
        "`python test.py --trained_model=./craft_mlt_25k.pth --test_folder=./test_data`\n> "
        f"{_TRIED}100.00 MiB (GPU 0; 3.95 GiB total capacity; 2.88 GiB already allocated; 58.25 MiB free; "
        "42.71 MiB cached)",
    ],
)
def test_an_oom_at_inference_leads_with_what_inference_can_change(text: str) -> None:
    analysis = analyse_oom(text)
    assert "the text says the memory ran out at inference, with no backward pass" in analysis.evidence
    assert analysis.fix is not None and analysis.fix.text.startswith("At inference")
    assert "input size" in analysis.fix.text and "smaller model" in analysis.fix.text


def test_an_oom_in_a_training_step_keeps_the_training_fix_whatever_else_the_text_says() -> None:
    text = (
        f"evaluation after every epoch\n    loss.backward()\n{_TRIED}602.00 MiB (GPU 0; 5.70 GiB total "
        "capacity; 2.97 GiB already allocated; 340.50 MiB free; 3.57 GiB reserved in total by PyTorch)"
    )
    analysis = analyse_oom(text)
    assert analysis.fix is None or not analysis.fix.text.startswith("At inference")


def _errors_corpus_text(source: str) -> str:
    return next(r["text"] for _, _, r in splits.error_records() if r["source"] == source)


@pytest.mark.parametrize(
    "source",
    [
        # the web UI's --medvram/--lowvram, which keep parts of the model in system memory
        "AUTOMATIC1111/stable-diffusion-webui#3883",
        # the pull request's flag runs the model in half precision
        "CompVis/stable-diffusion#41",
        # the answers: a GPU too small, or the web UI's --lowvram
        "AUTOMATIC1111/stable-diffusion-webui#3102",
    ],
)
def test_an_oom_of_a_pretrained_model_run_leads_with_the_models_own_memory(source: str) -> None:
    analysis = analyse_oom(_errors_corpus_text(source))
    assert analysis.fix is not None
    assert analysis.fix.text.startswith("A pretrained model run on a GPU too small for it")
    for lever in (
        "half precision",
        "4-bit quantized",
        "offloading part of it to the CPU",
        "run it on the CPU",
    ):
        assert lever in analysis.fix.text


def test_an_oom_without_signs_of_a_pretrained_model_keeps_the_steps_fix_first_and_names_the_model_after() -> (
    None
):
    # https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/1601's message alone, without its words
    text = (
        f"{_TRIED}20.00 MiB (GPU 0; 2.00 GiB total capacity; 1.68 GiB already allocated; 0 bytes free; "
        "1.72 GiB reserved in total by PyTorch)"
    )
    analysis = analyse_oom(text)
    assert analysis.fix is not None and analysis.fix.text.startswith("Lower the batch size")
    assert "If the model's weights alone fill the GPU" in analysis.fix.text


def test_a_gpu_named_by_its_data_centre_model_gives_its_memory() -> None:
    # https://github.com/shikiw/OPERA/issues/36
    analysis = analyse_oom(
        "I run the demo on a A6000 with 48 GB memory, but it tells me that CUDA error: out of memory."
    )
    assert "the text says the GPU has 48 GB" in analysis.evidence


def test_the_catalogues_oom_fix_names_the_models_own_memory_where_the_figures_decide_nothing() -> None:
    # the maintainer: the repository's low-VRAM mode or a smaller image
    found = explain(_errors_corpus_text("google/RB-Modulation#5"), ENTRIES)
    assert found and found[0].id == "cuda.out_of_memory"
    assert "offload part of it to the CPU" in found[0].fix.text


@pytest.mark.parametrize(
    "text",
    [
        # https://github.com/TencentARC/GFPGAN/issues/328 (a 2 GB laptop GPU; max_split_size_mb did not help)
        f"{_TRIED}154.00 MiB (GPU 0; 1.96 GiB total capacity; 775.63 MiB already allocated; 99.88 MiB free; "
        "920.00 MiB reserved in total by PyTorch)",
        # https://github.com/OPIXray-author/OPIXray/issues/5 (the answer: a larger GPU (more GPU memory))
        f"{_TRIED}264.00 MiB (GPU 0; 2.00 GiB total capacity; 788.51 MiB already allocated; 145.93 MiB free; "
        "1.02 GiB reserved in total by PyTorch)",
        # https://github.com/AliaksandrSiarohin/first-order-model/issues/73 (--cpu worked, then a 6 GB card)
        f"{_TRIED}36.00 MiB (GPU 0; 963.31 MiB total capacity; 497.39 MiB already allocated; 12.62 MiB free; "
        "885.00 KiB cached)",
    ],
)
def test_on_a_small_gpu_the_context_and_display_are_set_apart_from_the_jobs_share(
    text: str,
) -> None:
    analysis = analyse_oom(text)
    assert analysis.cause is not None and "the step needs more memory than the GPU has" in analysis.cause
    assert analysis.fix is not None
    assert "a larger GPU (more GPU memory)" in analysis.fix.text and "run it on the CPU" in analysis.fix.text


@pytest.mark.parametrize(
    "text",
    [
        # https://github.com/levihsu/OOTDiffusion/issues/167 (the maintainer: 4 GB is not enough)
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
        "capacty of 4.00 GiB of which 2.80 GiB is free. Of the allocated memory 0 bytes is allocated by "
        "PyTorch, and 0 bytes is reserved by PyTorch but unallocated.",
        # https://github.com/pytorch/pytorch/issues/40002 (the reporter: the machine's RAM was full)
        f"{_TRIED}50.00 MiB (GPU 0; 6.00 GiB total capacity; 693.78 MiB already allocated; 3.91 GiB free; "
        "18.22 MiB cached)",
        # https://github.com/pytorch/pytorch/issues/16417
        f"{_TRIED}12.50 MiB (GPU 0; 10.92 GiB total capacity; 8.57 MiB already allocated; 9.28 GiB free; "
        "4.68 MiB cached)",
        # https://github.com/chatchat-space/Langchain-Chatchat/issues/2437 (an 8 GB RTX 4060 on Windows)
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 108.00 MiB. GPU 0 has a total "
        "capacty of 8.00 GiB of which 4.44 GiB is free. Of the allocated memory 2.49 GiB is allocated by "
        "PyTorch, and 6.49 MiB is reserved by PyTorch but unallocated.",
    ],
)
def test_a_request_well_below_the_free_memory_is_no_full_gpu_and_no_other_holder(text: str) -> None:
    analysis = analyse_oom(text)
    assert analysis.cause is not None and analysis.cause.startswith("The request fits the")
    assert "taken by something other" not in analysis.cause and "fills the GPU" not in analysis.cause
    assert analysis.fix is not None and "a larger GPU (more GPU memory)" in analysis.fix.text


@pytest.mark.parametrize(
    "text",
    [
        # https://github.com/RenYurui/StructureFlow/issues/35: 8.13 GiB asked, 8.20 GiB free
        f"{_TRIED}8.13 GiB (GPU 0; 10.76 GiB total capacity; 643.57 MiB already allocated; 8.20 GiB free; "
        "32.43 MiB cached)",
        # https://github.com/neurosim/DNN_NeuroSim_V1.3/issues/28: 1.12 MiB asked, 3.56 MiB free
        f"{_TRIED}1.12 MiB (GPU 0; 22.37 GiB total capacity; 15.87 GiB already allocated; 3.56 MiB free; "
        "787.74 MiB cached)",
    ],
)
def test_a_request_that_only_just_fits_the_free_memory_is_read_by_the_other_figures(text: str) -> None:
    analysis = analyse_oom(text)
    assert analysis.cause is None or not analysis.cause.startswith("The request fits the")


@pytest.mark.parametrize(
    ("text", "stated"),
    [
        (  # https://github.com/herbert-chen/tianchi_lvcai/issues/9
            "Cuda out of memory even batch size is reduced to 2\n"
            f"{_TRIED}20.00 MiB (GPU 0; 2.00 GiB total capacity; 1.25 GiB already allocated; 3.55 MiB free; "
            "1.27 GiB reserved in total by PyTorch)",
            "batch size is reduced to 2",
        ),
        (  # https://github.com/naoto0804/pytorch-domain-adaptation/issues/2
            "I have changed the batch size to 4 and I have 8 GB GPU, but still get the error.\n\n"
            "RuntimeError: cuda runtime error (2) : out of memory at "
            "/pytorch/aten/src/THC/THCTensorRandom.cu:25",
            "batch size to 4",
        ),
        (  # https://github.com/pytorch/examples/issues/621
            f"{_TRIED}26.00 MiB (GPU 0; 1024.00 MiB total capacity; 435.61 MiB already allocated; 24.17 MiB "
            "free; 26.39 MiB cached)\nI have tried to set the batch-size as 16 or 32, but it didn't work.",
            "batch-size as 16",
        ),
    ],
)
def test_the_batch_size_the_text_states_is_quoted(text: str, stated: str) -> None:
    assert f"the text gives the batch size: {stated}" in analyse_oom(text).evidence


@pytest.mark.parametrize(
    "text",
    [
        # https://github.com/yangjianxin1/GPT2-chitchat/issues/19 (GPU 0 ran another job: 15514MiB / 16130MiB)
        "python3 train.py --epochs 30 --batch_size 1 --device 0 --raw\n\n"
        "RuntimeError: CUDA error: out of memory",
        # https://github.com/mrnabati/CenterFusion/issues/15 (the answer: set CUDA_VISIBLE_DEVICES and --gpus)
        "CUDA out of memory\nMy GPU memory is 11G\nand whatever the batch_size is \nalso CUDA out of memory",
        # https://github.com/PeterouZh/CIPS-3D/issues/19 (another GPU worked)
        "There is an issue **CUDA error: out of memory** (even with batch size = 1) when I try to run "
        "training script with this command\n"
        "`CUDA_VISIBLE_DEVICES=2 python train.py --tl_opts batch_size 1 img_size 32`",
    ],
)
def test_an_oom_without_figures_whatever_the_batch_leads_with_a_free_gpu(text: str) -> None:
    analysis = analyse_oom(text)
    assert analysis.cause is not None and "is occupied" in analysis.cause
    assert analysis.fix is not None and analysis.fix.text.startswith("See what holds each GPU")
    assert "CUDA_VISIBLE_DEVICES=<index of a free one>" in analysis.fix.text


def test_a_batch_of_one_beside_figures_is_read_by_the_figures() -> None:
    text = (
        "--batch_size 1\n"
        f"{_TRIED}20.00 MiB (GPU 0; 6.00 GiB total capacity; 5.14 GiB already allocated; 0 bytes free; "
        "5.24 GiB reserved in total by PyTorch)"
    )
    analysis = analyse_oom(text)
    assert analysis.cause is not None and "is occupied" not in analysis.cause
