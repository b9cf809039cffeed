"""The analysers of the catalogue, each on real texts of tests/corpus/errors: the figures they read out of a
message (sizes, versions, ports, capabilities, sequence numbers) and the cause, fix and check they choose."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache

import pytest

from torchdoctor.checks.install import install_plan, pairing
from torchdoctor.explain import Explanation, catalogue, explain

from corpus_tools import splits

ENTRIES = catalogue.installed()


@cache
def _corpus(entry_id: str, split: str) -> list[str]:
    records = json.loads((splits.CORPUS / "errors" / split / f"{entry_id}.json").read_text(encoding="utf-8"))
    return [record["text"] for record in records]


def lead(entry_id: str, split: str, n: int) -> Explanation:
    """The leading explanation of record ``n`` of the ``split`` corpus file of ``entry_id``."""
    first = explain(_corpus(entry_id, split)[n], ENTRIES)[0]
    assert first.id == entry_id
    return first


# (corpus file, record, a piece of one evidence line, the check chosen or None to leave it unasserted)
EVIDENCE = [
    ("cuda.out_of_memory", "dev", 1, "fragmentation: the cached free memory would fit", "gpu.fragmentation"),
    ("cuda.out_of_memory", "test", 5, "exhaustion: free memory plus the allocator's cache", "gpu.memory"),
    ("cuda.out_of_memory", "test", 1, "one request is larger than the whole GPU", "gpu.memory"),
    ("cuda.out_of_memory", "test", 1, "2 processes hold memory on this GPU (pid 608946: 14.91 GiB", None),
    ("cuda.out_of_memory", "dev", 18, "reserved by PyTorch but unallocated: 4.02 GiB", "gpu.fragmentation"),
    ("cuda.out_of_memory", "test", 7, "reserved by PyTorch but unallocated: 4.94 GiB", "gpu.fragmentation"),
    ("cuda.out_of_memory", "test", 9, "one request is larger than the whole GPU", None),
    ("cuda.out_of_memory", "dev", 10, "the message has no figures", "gpu.memory"),
    ("cuda.out_of_memory", "dev", 14, "the message has no figures", None),
    (
        "cuda.process_on_several_gpus",
        "dev",
        0,
        "PID 331904: 0MiB on GPU 0, 1717MiB on GPU 1",
        "cuda.visible_devices",
    ),
    (
        "cuda.process_on_several_gpus",
        "test",
        0,
        "PID 788874: 0MiB on GPU 1, 825MiB on GPU 2, 0MiB on GPU 3",
        None,
    ),
    ("mps.out_of_memory", "dev", 6, "other allocations exceed the tensors", None),
    ("mps.out_of_memory", "dev", 14, "below the limit: Metal itself refused the allocation", None),
    ("mps.out_of_memory", "dev", 2, "the tensors themselves fill the limit", None),
    (
        "mps.out_of_memory",
        "dev",
        2,
        "tensors: 15.72 GiB, other Metal allocations: 2.41 MiB, limit: 18.13 GiB",
        None,
    ),
    ("cublas.status_error", "test", 0, "CUBLAS_STATUS_NOT_INITIALIZED", "gpu.memory"),
    ("cublas.status_error", "dev", 4, "CUBLAS_STATUS_INVALID_VALUE", "torch.stack"),
    ("cublas.status_error", "dev", 5, "CUBLAS_STATUS_EXECUTION_FAILED", "torch.build"),
    ("cudnn.status_error", "test", 0, "no cuDNN algorithm could run", "gpu.memory"),
    ("cudnn.status_error", "dev", 11, "CUDNN_STATUS_MAPPING_ERROR", "cuda.visible_devices"),
    ("cudnn.status_error", "test", 3, "CUDNN_STATUS_NOT_INITIALIZED", "gpu.memory"),
    (
        "cuda.driver_too_old",
        "dev",
        0,
        "found version 6050: this driver supports CUDA up to 6.5",
        "torch.build",
    ),
    ("cuda.driver_too_old", "test", 0, "this driver supports CUDA up to 11.0", None),
    (
        "cuda.no_kernel_image",
        "test",
        0,
        "the installed torch has kernels for sm_50 sm_60 sm_61 sm_70",
        "torch.build",
    ),
    ("cuda.no_kernel_image", "dev", 0, "the GPU is sm_86 (compute capability 8.6)", None),
    ("cuda.no_kernel_image", "dev", 9, "no current torch build has kernels for this GPU", None),
    ("cuda.init_failed", "dev", 4, "CUDA error 802 (cudaErrorSystemNotReady)", "torch.build"),
    ("cuda.init_failed", "dev", 0, "CUDA error 803 (cudaErrorSystemDriverMismatch)", None),
    ("cuda.init_failed", "dev", 7, "CUDA error 804 (cudaErrorCompatNotSupportedOnDevice)", None),
    (
        "cudnn.version_mismatch",
        "dev",
        0,
        "built with cuDNN 8.5.0, the process loaded 8.3.3: an older copy",
        None,
    ),
    (
        "cudnn.version_mismatch",
        "test",
        2,
        "built with cuDNN 7.1.2, the process loaded 7.6.0: a newer copy",
        None,
    ),
    ("cudnn.version_mismatch", "dev", 4, "built with cuDNN 6.0.21, the process loaded 5.1.10", "torch.stack"),
    ("lib.cannot_open_shared_object", "test", 2, "missing: libcuda.so", "torch.build"),
    ("lib.cannot_open_shared_object", "dev", 0, "missing: libcudnn.so.8", None),
    ("lib.cannot_open_shared_object", "dev", 5, "missing: fbgemm.dll", None),
    ("lib.cannot_open_shared_object", "dev", 13, "missing: libcudnn_graph.so.9.1.0", None),
    ("lib.cannot_open_shared_object", "dev", 3, "missing: libtorch_cuda_cu.so", None),
    (
        "lib.undefined_symbol",
        "test",
        0,
        "torchvision/_C.so needs the symbol _ZN3c105ErrorC1ENS_14SourceLocation",
        None,
    ),
    ("lib.undefined_symbol", "dev", 2, "pre-C++11 std::string ABI", "torch.stack"),
    ("lib.undefined_symbol", "test", 4, "the symbol _torch_library_impl", None),
    (
        "companion.version_mismatch",
        "dev",
        13,
        "torchvision has no CUDA kernel for its operators",
        "torch.stack",
    ),
    ("companion.version_mismatch", "dev", 15, "torchvision 0.20.1+cu124 is made for torch 2.5", None),
    (
        "numpy.unavailable",
        "dev",
        2,
        "compiled for NumPy C-API 0xf (NumPy 1.22 or later), the installed NumPy has 0xd",
        None,
    ),
    ("numpy.unavailable", "dev", 0, "NumPy 2.0.0 is installed", None),
    ("numpy.unavailable", "dev", 4, "NumPy is not installed", None),
    (
        "nccl.watchdog_timeout",
        "dev",
        1,
        "rank 4: ALLREDUCE of 466,119,168 elements (collective #1580) timed out",
        None,
    ),
    (
        "nccl.watchdog_timeout",
        "dev",
        7,
        "collective #80078 differs between ranks: ALLREDUCE(2106881), BROADCAST",
        None,
    ),
    ("nccl.watchdog_timeout", "dev", 12, "the very first collective never completed", "ddp.dryrun"),
    ("nccl.watchdog_timeout", "dev", 5, "timed out after 1800 s (ran 25625 s)", None),
    ("nccl.watchdog_timeout", "test", 0, "the watchdog's verdict only", None),
    ("dist.rendezvous_timeout", "dev", 1, "more processes than the world size", "ddp.dryrun"),
    ("dist.rendezvous_timeout", "dev", 2, "4 rank(s) missing", None),
    ("dist.rendezvous_timeout", "dev", 18, "1 of 3 processes joined in 901 s; 2 never came", None),
    ("dist.rendezvous_timeout", "dev", 12, "no answer from the store at 192.0.0.1:1234 within 60 s", None),
    ("dist.rendezvous_timeout", "dev", 13, "no answer from the store at IP1:2222 within 60 s", None),
    ("dist.address_in_use", "dev", 4, "port 29500 is taken", "ddp.dryrun"),
    ("dist.address_in_use", "dev", 10, "port 18071 is taken", None),
    ("nccl.duplicate_gpu", "test", 3, "ranks 4 and 0 both use the GPU at PCI 0000:01:00.0", None),
    ("nccl.cuda_error", "dev", 7, "the CUDA call inside NCCL failed with 'out of memory'", "gpu.memory"),
    ("nccl.cuda_error", "dev", 11, "failed with 'invalid argument'", "ddp.dryrun"),
    (
        "nccl.system_error",
        "dev",
        6,
        "NCCL: socketStartConnect: Connect to fe80::966d:ae03:a2:8cf0%ib1<17943> failed",
        None,
    ),
    (
        "nccl.system_error",
        "dev",
        4,
        "NCCL's last error: socketStartConnect: Connect to 192.168.19.14<52822> failed",
        None,
    ),
    ("nccl.shm", "dev", 5, "every tensor a DataLoader worker sends is one shared-memory file", None),
    ("cuda.invalid_device_ordinal", "dev", 5, "asked for cuda:1; this process sees 0 GPUs", None),
    (
        "transfer.cannot_pin",
        "dev",
        0,
        "the tensor to pin is a torch.cuda.FloatTensor: it is already on the GPU",
        None,
    ),
    ("tensors.different_devices", "dev", 1, "argument 'index' is on cpu, the operation runs on cuda", None),
    ("tensors.different_devices", "test", 4, "argument 'mat2' is on CUDA, the operation runs on CPU", None),
    (
        "tensors.different_devices",
        "dev",
        5,
        "the input is a torch.cuda.FloatTensor, the weights a torch.FloatTensor",
        None,
    ),
    ("tensors.different_devices", "test", 5, "mat1 is on cpu, the other tensors on cuda:0", None),
    ("tensors.different_devices", "dev", 14, "argument 'mat2' is a Variable[torch.cuda.FloatTensor]", None),
    ("tensors.different_dtypes", "test", 0, "float64 usually comes from NumPy arrays", None),
    (
        "tensors.different_dtypes",
        "dev",
        1,
        "the input is a torch.cuda.HalfTensor, the weights a torch.cuda.FloatTensor",
        None,
    ),
    ("tensors.different_dtypes", "test", 3, "a torch.cuda.HalfTensor meets a torch.cuda.FloatTensor", None),
    (
        "cuda.device_side_assert",
        "dev",
        1,
        "a target label is negative or not below the number of classes",
        None,
    ),
    ("cuda.device_side_assert", "dev", 8, "an index is beyond the size of the indexed dimension", None),
    ("train.fp16_nan_loss", "test", 0, "loss scale lowered to 32768.0: a few skipped steps", None),
    ("train.fp16_nan_loss", "dev", 1, "anomaly detection: the backward of MulBackward0 produced NaN", None),
    ("train.fp16_nan_loss", "dev", 2, "anomaly detection: the backward of MmBackward0 produced NaN", None),
    (
        "cpu.half_not_implemented",
        "dev",
        4,
        "the kernel without float16 support: LayerNormKernelImpl",
        "torch.build",
    ),
    (
        "mps.op_not_implemented",
        "dev",
        1,
        "PYTORCH_ENABLE_MPS_FALLBACK is on, the operation runs on the CPU",
        None,
    ),
    (
        "mps.op_not_implemented",
        "dev",
        9,
        "the operation without an MPS kernel: aten::_slow_conv2d_forward",
        None,
    ),
]


@pytest.mark.parametrize(
    ("entry_id", "split", "n", "piece", "check"),
    EVIDENCE,
    ids=[f"{i}-{split}-{n}" for i, split, n, _, _ in EVIDENCE],
)
def test_the_analysis_reads_the_message(
    entry_id: str, split: str, n: int, piece: str, check: str | None
) -> None:
    explanation = lead(entry_id, split, n)
    assert any(piece in line for line in explanation.evidence), explanation.evidence
    if check is not None:
        assert explanation.check == check


def test_oom_fixes_use_the_allocator_setting_the_message_names() -> None:
    assert lead("cuda.out_of_memory", "dev", 1).fix.commands == (
        "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
    )
    assert lead("cuda.out_of_memory", "dev", 20).fix.commands == (
        "export PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128",
    )
    oldest = lead("cuda.out_of_memory", "dev", 18)  # torch 1.x: "cached" is reserved but unallocated
    assert oldest.fix.commands == ()
    assert "empty_cache" in oldest.fix.text
    assert "fragmented" in oldest.cause


def test_a_request_larger_than_the_gpu_is_not_called_fragmentation() -> None:
    explanation = lead("cuda.out_of_memory", "test", 1)
    assert "larger than the GPU" in explanation.cause or "more memory than the GPU has" in explanation.cause
    assert "fragmentation" not in " ".join(explanation.evidence)
    # the attention lever names what a transformers model is loaded with, not only the call (a model whose
    # attention falls back to eager: lucidrains/titans-pytorch#33, fixed with flash attention;
    # RenqiChen/Genomic-Selection#2, long sequences through flashattention; NVIDIA/cosmos#47, the unfused
    # attention's matmul)
    assert 'attn_implementation="flash_attention_2"' in explanation.fix.text
    assert "pip install flash-attn" in explanation.fix.text


def test_no_kernel_image_gives_the_plan_check_gives_for_the_same_machine() -> None:
    explanation = lead("cuda.no_kernel_image", "dev", 3)
    plan = install_plan.plan_for(None, "linux-x86_64", [(12, 0)], None, None, "linux")
    assert explanation.fix.commands == plan.commands and plan.commands
    assert explanation.evidence[0] == "the GPU is sm_120 (compute capability 12.0)"


def test_init_failures_get_the_fix_of_their_error_number() -> None:
    assert (
        "sudo systemctl enable --now nvidia-fabricmanager" in lead("cuda.init_failed", "dev", 5).fix.commands
    )
    assert "reboot" in lead("cuda.init_failed", "dev", 1).fix.text.lower()
    assert "Update the host driver" in lead("cuda.init_failed", "dev", 9).fix.text


def test_missing_libraries_are_told_apart() -> None:
    assert "driver's own library" in lead("lib.cannot_open_shared_object", "dev", 10).cause
    assert "Visual C++ Redistributable" in lead("lib.cannot_open_shared_object", "dev", 6).fix.text
    assert "nvidia-* wheels" in lead("lib.cannot_open_shared_object", "dev", 12).cause
    assert "torch 1.12 or older" in lead("lib.cannot_open_shared_object", "dev", 3).cause


def test_a_library_name_that_is_more_than_a_word_never_reaches_a_command() -> None:
    # the library's name goes into the commands of the fix only where a shell reads it as one word
    for name in ("x;reboot;libfoo.so", "$(touch pwned)libfoo.so", "libfoo.so`id`"):
        text = f"OSError: {name}: cannot open shared object file: No such file or directory"
        found = explain(text, catalogue.installed())
        assert found and found[0].id == "lib.cannot_open_shared_object"
        assert not any(c in command for command in found[0].fix.commands for c in ";$`()|&"), found[0].fix
    plain = explain("OSError: libfoo.so.3: cannot open shared object file", catalogue.installed())[0]
    assert "apt-file search libfoo.so.3" in plain.fix.commands


def test_undefined_symbols_are_told_apart() -> None:
    assert lead("lib.undefined_symbol", "dev", 0).fix.text.startswith(
        "torchvision was built for another torch"
    )
    assert lead("lib.undefined_symbol", "dev", 10).fix.text.startswith(
        "torchaudio was built for another torch"
    )
    assert "LD_LIBRARY_PATH" in lead("lib.undefined_symbol", "dev", 7).fix.text
    # THPVariableClass: torch's Python bindings, not linked or not loaded (libtorch_python.so)
    assert "libtorch_python.so" in lead("lib.undefined_symbol", "dev", 1).fix.text
    assert "reinstall torch" in lead("lib.undefined_symbol", "dev", 5).fix.text


def test_companion_fix_installs_the_torchvision_that_pairs_with_the_stated_torch() -> None:
    row = pairing.row_for("2.4.0+cu121")
    assert row is not None and row.torchvision is not None
    explanation = lead("companion.version_mismatch", "dev", 15)
    assert explanation.fix.commands == (
        f"pip install torchvision=={row.torchvision} --index-url https://download.pytorch.org/whl/cu121",
    )
    assert f"torch 2.4.0+cu121 pairs with torchvision {row.torchvision}" in explanation.evidence
    assert "CPU-only torchvision" in lead("companion.version_mismatch", "dev", 12).cause


def test_numpy_fixes_follow_the_direction_of_the_mismatch() -> None:
    assert lead("numpy.unavailable", "dev", 2).fix.commands == ('pip install --upgrade "numpy>=1.22"',)
    assert lead("numpy.unavailable", "dev", 1).fix.commands == ('pip install "numpy<2"',)
    assert lead("numpy.unavailable", "dev", 12).fix.commands == ('pip install "numpy<2"',)
    assert lead("numpy.unavailable", "dev", 4).fix.commands == ("pip install numpy",)


def test_desynchronised_collectives_get_their_own_cause() -> None:
    explanation = lead("nccl.watchdog_timeout", "dev", 11)
    assert "called different collectives" in explanation.cause
    assert "TORCH_DISTRIBUTED_DEBUG=DETAIL torchrun ..." in explanation.fix.commands


def test_two_jobs_on_one_store_are_recognised_by_the_worker_count() -> None:
    explanation = lead("dist.rendezvous_timeout", "dev", 5)
    assert "world_size=4, 8 processes reached the barrier, timeout 0:30:00" in explanation.evidence
    assert "MASTER_PORT" in explanation.fix.text


def test_shared_memory_fixes_depend_on_who_used_it() -> None:
    nccl = lead("nccl.shm", "test", 0)
    assert nccl.check == "ddp.dryrun"
    assert "NCCL_SHM_DISABLE=1" in nccl.fix.text
    loader = lead("nccl.shm", "test", 2)
    assert loader.check is None
    assert "num_workers" in loader.fix.text


def test_nccl_out_of_memory_points_at_gpu_memory() -> None:
    explanation = lead("nccl.cuda_error", "dev", 6)
    assert explanation.check == "gpu.memory"
    assert "out of memory" in explanation.cause


def test_pinning_a_gpu_tensor_is_a_code_fix_and_a_dying_thread_a_machine_check() -> None:
    assert "already on the GPU" in lead("transfer.cannot_pin", "dev", 2).fix.text
    assert lead("transfer.cannot_pin", "dev", 2).check is None
    assert lead("transfer.cannot_pin", "test", 3).check == "transfer.pinned"


def test_a_loss_scale_below_one_means_the_model_overflows() -> None:
    explanation = lead("train.fp16_nan_loss", "test", 2)
    assert "the loss scale fell to 1.020640762992391e-202" in explanation.evidence[-1]
    assert "the model itself produces inf or NaN" in explanation.cause


def test_device_asserts_name_the_check_to_make() -> None:
    explanation = lead("cuda.device_side_assert", "dev", 4)
    assert "labels" in explanation.fix.text
    assert explanation.fix.commands == ("CUDA_LAUNCH_BLOCKING=1 python train.py",)


def test_anomaly_detection_nan_is_not_blamed_on_half_precision_alone() -> None:
    explanation = lead("train.fp16_nan_loss", "dev", 6)  # an extension op's backward, in float32
    assert explanation.cause.startswith("Autograd's anomaly detection names the first backward function")


# Real OOMs whose job holds most of the GPU (its own reserved memory): the step does not fit, whatever the
# cache or the memory outside PyTorch's allocator also shows; the fix always offers a smaller batch.
# dev records 24 (chnsh/DCRNN_PyTorch#6: 1.16 GiB outside, read before as another process), 25
# (xinge008/Cylinder3D#109: free plus cached would fit, and 4.12 GiB outside), 26
# (yijingru/BBAVectors-Oriented-Object-Detection#113: 0.51 GiB cached against 182 MiB asked, read before as
# fragmentation alone).
@pytest.mark.parametrize("n", [24, 25, 26])
def test_an_oom_of_a_job_that_holds_most_of_the_gpu_is_a_step_that_does_not_fit(n: int) -> None:
    explanation = lead("cuda.out_of_memory", "dev", n)
    assert "the step needs more memory than the GPU has" in explanation.cause
    assert "lower the batch size" in explanation.fix.text
    assert any("its own memory is most of the GPU" in line for line in explanation.evidence)
    # Cylinder3D's free and cached memory only together fit the request: fragmentation is said first there
    assert explanation.check == ("gpu.fragmentation" if n == 25 else "gpu.memory")


def test_a_large_cache_beside_the_allocated_memory_says_fragmentation_first_and_a_smaller_step_too() -> None:
    explanation = lead("cuda.out_of_memory", "test", 7)  # 4.94 GiB cached beside 8.77 GiB allocated
    assert explanation.cause.index("fragmented") < explanation.cause.index("the step needs more memory")
    assert "lower the batch size" in explanation.fix.text and "a larger GPU" in explanation.fix.text
    assert explanation.check == "gpu.fragmentation"


def test_memory_held_outside_a_job_that_fills_the_gpu_is_named_beside_the_smaller_step() -> None:
    explanation = lead("cuda.out_of_memory", "dev", 24)
    assert "1.16 GiB of the GPU is held outside PyTorch's allocator" in explanation.cause
    assert "nvidia-smi --query-compute-apps=pid,used_memory --format=csv" in explanation.fix.commands


def test_a_gpu_held_by_others_while_the_job_holds_little_says_to_kill_the_holder() -> None:
    text = (
        "Tried to allocate 216.00 MiB (GPU 0; 7.92 GiB total capacity; 69.17 MiB already allocated; "
        "24.56 MiB free; 86.00 MiB reserved in total by PyTorch)"
    )
    explanation = explain(text, ENTRIES)[0]
    assert "held outside" in explanation.cause and "kill" in explanation.fix.text


# Real OOMs raised inside torch.load, whose only sign of it is the traceback's frames (serialization.py's
# restore_location and _cuda_deserialize): dev records 27 (nkolot/SPIN#76), 28 (koyeongmin/PINet#16) and 29
# (openvinotoolkit/nncf#204). The analysers read the text with its frames and code lines, which matching
# blanks.
@pytest.mark.parametrize("n", [27, 28, 29])
def test_an_oom_whose_frames_are_torch_loads_is_the_checkpoint_going_back_to_its_gpu(n: int) -> None:
    explanation = lead("cuda.out_of_memory", "dev", n)
    assert "GPU they were saved from" in explanation.cause
    assert "map_location='cpu'" in explanation.fix.text


# "Attempting to deserialize object on a CUDA device" where the writer's own check found the GPU: the
# process that loaded was hidden it (a CUDA_VISIBLE_DEVICES the script sets, more processes than GPUs).
# dev record 13 (fuy34/superpixel_fcn#45: the script's CUDA_VISIBLE_DEVICES '1' on one GPU), and
# https://github.com/keunsoo-ko/CMT/issues/1 and https://github.com/yunjey/pytorch-tutorial/issues/249.
HIDDEN_FROM_THE_PROCESS: list[Callable[[], str]] = [
    lambda: _corpus("load.map_location", "dev")[13],
    lambda: (
        "Dear authors, I have GPU, and torch.cuda.is_available() is True, and I am still getting the "
        "error. \n"
        "```\nLoad checkpoint from: ./checkpoint/Place2.pth\nTraceback (most recent call last):\n"
        '  File "demo.py", line 31, in <module>\n    proposed = load_checkpoint(args.ckpt, proposed)\n'
        "RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
        "False. If you are running on a CPU-only machine, please use torch.load with "
        "map_location=torch.device('cpu') to map your storages to the CPU.\n```"
    ),
    lambda: (
        "# Cuda is true why don`t use it？\n\nRuntimeError: Attempting to deserialize object on a CUDA "
        "device but torch.cuda.is_available() is False. If you are running on a CPU-only machine, please use "
        "torch.load with map_locatio\nn=torch.device('cpu') to map your storages to the CPU."
    ),
]


@pytest.mark.parametrize("text", HIDDEN_FROM_THE_PROCESS)
def test_a_gpu_the_writer_sees_but_the_loading_process_does_not_was_hidden_from_it(
    text: Callable[[], str],
) -> None:
    explanation = explain(text(), ENTRIES)[0]
    assert explanation.id == "load.map_location"
    assert "hid the GPUs from that process" in explanation.cause
    assert "CUDA_VISIBLE_DEVICES" in explanation.fix.text and "--world_size" in explanation.fix.text


def test_the_message_retyped_with_an_input_methods_full_stops_is_recognised() -> None:
    assert lead("load.map_location", "dev", 14).id == "load.map_location"  # jackaduma/CycleGAN-VC2#10


# "No CUDA GPUs are available" read with what the text says: the script's own CUDA_VISIBLE_DEVICES (dev
# record 6, YoujiaZhang/Ref-GS#4, and https://github.com/ziplab/PTQD/issues/13), or the writer's check
# finding the GPU (dev records 7 and 8: thuml/Anomaly-Transformer#74, mazurowski-lab/finetune-SAM#18).
def test_a_script_that_sets_cuda_visible_devices_itself_is_quoted_and_told_to_drop_the_line() -> None:
    ptqd = (
        "It is strongly recommended to remove the setting of cuda device ID in the code：\n`import os\n"
        "os.environ['CUDA_VISIBLE_DEVICES'] = '7'\n`\n\nas the error message No CUDA GPUs are available "
        "keeps running"
    )
    for text, value in ((_corpus("cuda.no_gpus_available", "dev")[6], "2"), (ptqd, "7")):
        explanation = explain(text, ENTRIES)[0]
        assert explanation.id == "cuda.no_gpus_available"
        assert f"the script sets CUDA_VISIBLE_DEVICES={value} (os.environ)" in explanation.evidence
        assert "Comment out or delete the line" in explanation.fix.text


@pytest.mark.parametrize("n", [7, 8])
def test_no_gpu_in_a_run_whose_writer_sees_one_is_a_process_hidden_its_gpus(n: int) -> None:
    explanation = lead("cuda.no_gpus_available", "dev", n)
    assert "hid the GPUs from that process" in explanation.cause
    assert "map_location" not in explanation.fix.text


# NCCL's duplicate GPU quoted as the message gives it, beside what its bus number means: verl-project/verl#161
# (a dev repository), https://github.com/rulixiang/afa/issues/26,
# https://github.com/Intellindust-AI-Lab/DEIM/issues/113.
@pytest.mark.parametrize(
    ("line", "quoted", "bus"),
    [
        ("Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 10", "device 10", "0000:00:01.0"),
        (
            "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 4f000",
            "device 4f000",
            "0000:4f:00.0",
        ),
        (
            "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000",
            "device 1000",
            "0000:01:00.0",
        ),
    ],
)
def test_a_duplicate_gpu_is_quoted_as_nccl_says_it(line: str, quoted: str, bus: str) -> None:
    explanation = explain(
        f"ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n{line}", ENTRIES
    )[0]
    assert explanation.id == "nccl.duplicate_gpu"
    assert f"rank 1 and rank 0 both on CUDA {quoted}" in explanation.evidence
    assert f"ranks 1 and 0 both use the GPU at PCI {bus}" in explanation.evidence


# A hang at PyTorch Lightning's "initializing ddp": what Lightning reads from the environment (NODE_RANK) or
# P2P between the GPUs, the one the members shown point at first. Dev records 3
# (Lightning-AI/pytorch-lightning#5651: NODE_RANK set, unsetting it fixed it) and 4 (#4389: each GLOBAL_RANK
# twice); https://github.com/CompVis/taming-transformers/issues/235 (NCCL_P2P_DISABLE=1 worked there).
def test_a_hang_at_lightnings_rendezvous_names_node_rank_and_p2p() -> None:
    for n in (3, 4):
        explanation = lead("nccl.hang", "dev", n)
        assert "NODE_RANK" in explanation.cause and "peer-to-peer" in explanation.cause
        assert "unset NODE_RANK" in explanation.fix.commands
        assert "NCCL_P2P_DISABLE=1" in explanation.fix.text
    doubled = lead("nccl.hang", "dev", 4)
    assert any("GLOBAL_RANK 0, 1, 2, 3 is taken by more than one process" in e for e in doubled.evidence)
    taming = (
        "training with `--gpus 0,`  `--gpus 0,1` hangs at initializing ddp ...\n\nI've tried, change `ddp` "
        "to `dp`, change `nccl` to `gloo`, upgrade lightning or torch version... still not work."
    )
    explanation = explain(taming, ENTRIES)[0]
    assert explanation.id == "nccl.hang" and "NCCL_P2P_DISABLE=1" in explanation.fix.text


def test_a_count_of_gpus_beside_a_hang_is_a_hang() -> None:
    # the words of https://github.com/vllm-project/vllm/issues/5484 (a P2P hang between two GPUs), of
    # https://github.com/open-mmlab/mmaction/issues/176, and dev record 5 (chenyilun95/DSGN2#20, where
    # NCCL_P2P_DISABLE=1 stopped the freezes)
    for text in (
        "Testing 2 GPUs on 1 node hangs after this:\n\nNCCL version 2.20.5+cuda12.4",
        "When using a single machine with 8 GPUs to train an I3D model, the program will hang at the end of "
        "an epoch, at this time the GPU utilization rate always shows 100%",
        _corpus("nccl.hang", "dev")[5],
    ):
        explanation = explain(text, ENTRIES)[0]
        assert explanation.id == "nccl.hang" and "NCCL_P2P_DISABLE=1" in explanation.fix.text


# A driver too old for the torch of a container: the image fixes the CUDA, so the answer is that CUDA's
# minimum driver (or an image built for an older CUDA), not another pip build. Dev records 9
# (shiyu-coder/Kronos#71), 10 (neosun100/DeepSeek-OCR-WebUI#10: a 12.6 driver, which runs every 12.x image, so
# CUDA 13) and 11 (DataBiosphere/dsub#215: a Docker image on a CUDA 10.2 driver).
@pytest.mark.parametrize(
    ("n", "minimum"), [(9, "12.0: 525.60.13"), (10, "13.0: 580.65.06"), (11, "CUDA 11.x from 450.80.02")]
)
def test_a_containers_torch_on_an_old_driver_gets_the_minimum_drivers_of_the_images_cuda(
    n: int, minimum: str
) -> None:
    explanation = lead("cuda.driver_too_old", "dev", n)
    assert any("torch comes with a container image" in line for line in explanation.evidence)
    assert minimum in explanation.fix.text and "use an image built for CUDA" in explanation.fix.text
    assert "pip install" not in explanation.fix.text


def test_the_cuda_a_container_text_names_gets_its_own_minimum_driver() -> None:
    # a constructed text: the container's CUDA stated beside the warning
    text = (
        "The container uses CUDA 12.1.\nUserWarning: CUDA initialization: The NVIDIA driver on your system "
        "is too old (found version 11000). (Triggered internally at /opt/pytorch/pytorch/c10/cuda/"
        "CUDAFunctions.cpp:108.)"
    )
    explanation = explain(text, ENTRIES)[0]
    assert "the text names CUDA 12.1: it needs driver 530.30.02 or later" in explanation.evidence
    assert "Update the NVIDIA driver to 530.30.02 or later" in explanation.fix.text


# torch 2.0 and 2.1's own search of sys.path for the nvidia-* wheels ("libcublas.so.*[0-9] not found in the
# system path"): the wheels were not installed with torch. Dev records 17 to 19
# (zai-org/ChatGLM3#317, jhurliman/music-interpolation#5, pysentimiento/pysentimiento#55).
@pytest.mark.parametrize("back", [3, 4, 5])
def test_a_preload_that_finds_no_nvidia_wheels_says_to_reinstall_torch_with_them(back: int) -> None:
    texts = _corpus("lib.cannot_open_shared_object", "dev")
    explanation = explain(texts[-back], ENTRIES)[0]
    assert explanation.id == "lib.cannot_open_shared_object"
    assert any(line.startswith("missing: libcublas.so.*[0-9]") for line in explanation.evidence)
    assert "nvidia-* wheels" in explanation.cause
    assert "pip install --force-reinstall torch" in explanation.fix.commands


# A CUDA 11 library of the nvidia-*-cu11 wheels missing: another release or build carries its libraries inside
# torch. The last two dev records (pytorch/pytorch#89417: 1.12.1 fixed it; snap-stanford/ogb#402: the +cu116
# build of the PyTorch index).
def test_a_missing_cuda_11_wheel_library_offers_a_torch_that_carries_its_libraries() -> None:
    for text in _corpus("lib.cannot_open_shared_object", "dev")[-2:]:
        explanation = explain(text, ENTRIES)[0]
        assert "missing: libcublas.so.11" in explanation.evidence
        assert "pip install torch==1.12.1" in explanation.fix.text and "+cu116" in explanation.fix.text
    twelve = explain("OSError: libcublas.so.12: cannot open shared object file: No such file", ENTRIES)[0]
    assert "1.12.1" not in twelve.fix.text


def test_a_companion_built_for_another_torch_gets_the_release_that_pairs_with_the_stated_torch() -> None:
    # deepbeepmeep/Wan2GP#1701 (the last dev record): pip put torchaudio 2.11 beside torch==2.10.0
    row = pairing.row_for("2.10.0")
    assert row is not None and row.torchaudio is not None
    explanation = explain(_corpus("lib.undefined_symbol", "dev")[-1], ENTRIES)[0]
    assert f"torch 2.10.0 pairs with torchaudio {row.torchaudio}" in explanation.evidence
    assert f"(torchaudio {row.torchaudio})" in explanation.fix.text
    assert explanation.fix.commands[0].startswith(f"pip install torchaudio=={row.torchaudio}")


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_memory_every_process_puts_on_the_first_gpu_is_a_missing_set_device(n: int) -> None:
    # pytorch/examples#969, yyliu01/PS-MT#20, marcoamonteiro/pi-GAN#22 (set_device fixed it),
    # p0p4k/vits2_pytorch#36
    explanation = lead("ddp.all_on_first_gpu", "dev", n)
    assert "first GPU" in explanation.cause
    assert "torch.cuda.set_device(local_rank)" in explanation.fix.text
    assert "CUDA_VISIBLE_DEVICES" in explanation.fix.text and "map_location" in explanation.fix.text
