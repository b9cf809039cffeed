"""`torchdoctor explain`: one test per catalogue message, with the real texts users paste.

Each message is quoted from where it comes from: torch 2.13's own source or a run of it on this CPU
machine ("ran here"), the research notes (research/memory_bandwidth.md 1.6, research/ddp_dryrun.md 3,
research/cuda_semantics.md), or public logs found in code search.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from torchdoctor import cli
from torchdoctor.checking import exitcodes
from torchdoctor.explain import Explanation, catalogue
from torchdoctor.explain import explain as explain_with

from corpus_tools import splits
from support import BIN, cli_env, explained_lines

ENTRIES = catalogue.installed()


def explain(text: str) -> list[Explanation]:
    return explain_with(text, ENTRIES)


CUDA_ASYNC_NOTE = (
    "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
    "might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1"
)
# (entry id, message) for every entry of the catalogue; several real variants where torch has several.
MESSAGES = [
    (
        "tensors.different_devices",
        "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 "
        "and cpu! (when checking argument for argument mat1 in method wrapper_CUDA_addmm)",
    ),
    (
        "tensors.different_devices",
        "RuntimeError: Expected all tensors to be on the same device, but got mat2 is on cuda:3, different "
        "from other tensors on cuda:0 (when checking argument in method wrapper_CUDA_bmm)",
    ),
    ("tensors.different_devices", "RuntimeError: Tensor on device cpu is not on the expected device meta!"),
    (
        "tensors.different_devices",
        "RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the "
        "same or input should be a MKLDNN tensor and weight is a dense tensor",
    ),
    (
        "tensors.different_dtypes",
        "RuntimeError: mat1 and mat2 must have the same dtype, but got Double and Float",
    ),
    ("torch.not_compiled_with_cuda", "AssertionError: Torch not compiled with CUDA enabled"),
    (
        "torch.not_compiled_with_cuda",
        "AttributeError: module 'torch._C' has no attribute '_cuda_setDevice'",
    ),
    (
        "cuda.no_kernel_image",
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
        + CUDA_ASYNC_NOTE,
    ),
    ("cuda.invalid_device_ordinal", f"RuntimeError: CUDA error: invalid device ordinal\n{CUDA_ASYNC_NOTE}"),
    (
        "cuda.out_of_memory",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 0 has a total capacity "
        "of 23.64 GiB of which 3.10 GiB is free. Process 4242 has 20.52 GiB memory in use. Of the allocated "
        "memory 19.80 GiB is allocated by PyTorch, and 250.00 MiB is reserved by PyTorch but unallocated.",
    ),
    (
        "cuda.driver_too_old",
        "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your "
        "GPU driver by downloading and installing a new version from the URL: "
        "http://www.nvidia.com/Download/index.aspx",
    ),
    (
        "cuda.no_driver",
        "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
        "installed a driver from http://www.nvidia.com/Download/index.aspx",
    ),
    (
        "load.map_location",
        "RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
        "False. If you are running on a CPU-only machine, please use torch.load with "
        "map_location=torch.device('cpu') to map your storages to the CPU.",
    ),
    (
        "load.map_location",
        "RuntimeError: Attempting to deserialize object on CUDA device 1 but torch.cuda.device_count() is 1. "
        "Please use torch.load with map_location to map your storages to an existing device.",
    ),
    (
        "load.size_mismatch",
        "RuntimeError: Error(s) in loading state_dict for Linear:\n\tsize mismatch for weight: copying a "
        "param with shape torch.Size([2, 3]) from checkpoint, the shape in current model is "
        "torch.Size([2, 2]).",
    ),
    (
        "nccl.duplicate_gpu",
        "torch.distributed.DistBackendError: NCCL error in: "
        "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp"
        ":1727, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.19.3\nncclInvalidUsage: "
        "This usually reflects invalid usage of NCCL library.\nLast error:\nDuplicate GPU detected : rank 3 "
        "and rank 0 both on CUDA device f000",
    ),
    (
        "dist.address_in_use",
        "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network "
        "address. port: 29500, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use",
    ),
    (
        "nccl.system_error",
        "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, unhandled "
        "system error, NCCL version 2.14.3",
    ),
    ("nccl.not_built", "RuntimeError: Distributed package doesn't have NCCL built in"),
    (  # rosinality/stylegan2-pytorch#318
        "build.cuda_home_unset",
        "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.",
    ),
    (
        "build.nvcc_unsupported_arch",
        "nvcc fatal   : Unsupported gpu architecture 'compute_86'",
    ),  # microsoft/Cream#75
    (  # pytorch/pytorch#47658
        "cuda.nvrtc_unknown_arch",
        "RuntimeError: nvrtc: error: invalid value for --gpu-architecture (-arch)",
    ),
    (  # pytorch/pytorch#4932
        "memory.graph_kept_in_eval",
        "but I found in validation phase, the gpu get more and more memory.",
    ),
    (  # jychoi118/P2-weighting#18
        "cuda.visible_devices_not_applied",
        "But when I use CUDA_VISIBLE_DEVICES=x, it still works on GPU 0.",
    ),
    (  # MVIG-SJTU/AlphAction#84 (pytorch 1.11.0+cu115)
        "build.thc_headers_removed",
        "AlphAction/alphaction/csrc/cuda/ROIPool3d_cuda.cu:4:10: fatal error: THC/THC.h: No such file or "
        "directory",
    ),
    (  # pytorch/pytorch#3805 (torch 0.2's wording)
        "load.module_prefix",
        """it report the error that 'unexpected key "module.features.conv0.weight" in state_dict'.""",
    ),
    (  # microsoft/MInference#51 (flash-attn 2.6.0.post1 on a Tesla V100S)
        "flash_attn.gpu_too_old",
        "RuntimeError: FlashAttention only supports Ampere GPUs or newer.",
    ),
    (  # Vchitect/SEINE#27
        "xformers.not_built_for_torch",
        "`cutlassF` is not supported because:\n    xFormers wasn't build with CUDA support\n    operator "
        "wasn't built - see `python -m xformers.info` for more info",
    ),
    (  # pykale/pykale#448 (Lightning 2.x)
        "dataloader.input_bound",
        "The 'val_dataloader' does not have many workers which may be a bottleneck. Consider increasing "
        "the value of the `num_workers` argument` to `num_workers=19` in the `DataLoader` to improve "
        "performance.",
    ),
    (  # isl-org/Open3D#4877
        "import.order_crash",
        "large torch operation fails with Segmentation Fault if open3d is imported before torch",
    ),
    (  # torch/nn/modules/module.py _load_from_state_dict (torch 2.13)
        "load.into_meta_parameters",
        "UserWarning: for fc.weight: copying from a non-meta parameter in the checkpoint to a meta parameter "
        "in the current model, which is a no-op. (Did you mean to pass `assign=True` to assign items in the "
        "state dictionary to their corresponding key in the module instead of copying them in place?)",
    ),
    (  # hrayrhar/limit-label-memorization#2
        "device.run_on_cpu",
        "Can I run the code without cuda. say, in CPU?",
    ),
    (  # pytorch/pytorch#21092 (a CUDA default tensor type with DataLoader workers)
        "cuda.initialization_error",
        "RuntimeError: CUDA error: initialization error",
    ),
    (  # torchvision/extension.py _check_cuda_version (torchvision 0.16 and later)
        "companion.cuda_mismatch",
        "RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA major "
        "versions. PyTorch has CUDA Version=12.4 and torchvision has CUDA Version=11.8. Please reinstall the "
        "torchvision that matches your PyTorch install.",
    ),
    (  # torch/csrc/distributed/c10d/reducer.cpp (the text of torch 2.13's libtorch_cpu.so)
        "ddp.unused_parameters",
        "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. "
        "This error indicates that your module has parameters that were not used in producing loss. You can "
        "enable unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
        "`torch.nn.parallel.DistributedDataParallel`, and by \nmaking sure all `forward` function outputs "
        "participate in calculating loss.",
    ),
    (  # NiccoloCavagnero/PEM#10
        "dist.no_process_group",
        "RuntimeError: Default process group has not been initialized, please make sure to call "
        "init_process_group.",
    ),
    (
        "dist.rendezvous_timeout",
        "torch.distributed.DistStoreError: Timed out after 7 seconds waiting for clients. 1/2 clients "
        "joined.",
    ),
    (
        "cuda.forked_subprocess",
        "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you "
        "must use the 'spawn' start method",
    ),
    ("cuda.device_side_assert", f"RuntimeError: CUDA error: device-side assert triggered\n{CUDA_ASYNC_NOTE}"),
    (
        "transfer.pageable_non_blocking",
        "| Memcpy HtoD (Pageable -> Device)     | 0.00%  | 0.000us | 0.00% | 0.000us | 66.023ms | 97.48% |",
    ),
    (
        "transfer.pin_memory_without_gpu",
        "UserWarning: 'pin_memory' argument is set as true but no accelerator is found, then device pinned "
        "memory won't be used.",
    ),
    (
        "transfer.pin_memory_without_gpu",
        "RuntimeError: Cannot access accelerator device when none is available.",
    ),
    (
        "train.fp16_nan_loss",
        "[2023-07-24 13:21:32,378] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 "
        "Skipping step. Attempted loss scale: 4294967296, reducing to 2147483648",
    ),
    (
        "train.fp16_nan_loss",
        "RuntimeError: Function 'MseLossBackward0' returned nan values in its 0th output.",
    ),
    ("train.fp16_nan_loss", "epoch 3 step 1200 | loss nan | lr 3.0e-04 | grad_norm inf"),
    ("cuda.not_available", "torch.cuda.is_available() returns False"),  # pytorch/pytorch#51858
    (  # pytorch/pytorch#21154
        "cuda.invalid_argument",
        "THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=383 error=11 : invalid argument",
    ),
    ("device.invalid_string", "RuntimeError: Invalid device string: 'cuda:None'"),  # mlfoundations/rtfm#15
    (  # snap-stanford/deepsnap#26
        "torch.private_module_removed",
        "ImportError: cannot import name 'container_abcs' from 'torch._six'",
    ),
    (  # thangvubk/SoftGroup#18
        "host.out_of_memory",
        "RuntimeError: DataLoader worker (pid 75890) is killed by signal: Killed.",
    ),
    (  # alievk/avatarify-python#452
        "openmp.duplicate_runtime",
        "OMP: Error #15: Initializing libiomp5md.dll, but found libiomp5md.dll already initialized.",
    ),
    (  # openai/CLIP#151
        "dataloader.worker_pickling",
        "AttributeError: Can't pickle local object '_transform.<locals>.<lambda>'",
    ),
    (  # Megvii-BaseDetection/YOLOX#119
        "gloo.interface_not_found",
        "RuntimeError: [enforce fail at /pytorch/third_party/gloo/gloo/transport/tcp/device.cc:83] ifa != "
        "nullptr. Unable to find address for: ib0",
    ),
    (  # pytorch/examples#1030
        "dist.cpu_tensor_on_nccl",
        "RuntimeError: Tensors must be CUDA and dense",
    ),
    (  # PKUHaoWang/EmbodiedOcc2#6
        "build.cuda_version_mismatch",
        "RuntimeError:\n    The detected CUDA version (12.2) mismatches the version that was used to "
        "compile\n    PyTorch (11.3). Please make sure to use the same CUDA versions.",
    ),
    (  # BUTSpeechFIT/safe_gpu#1
        "cuda.devices_unavailable",
        "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable",
    ),
    (  # STVIR/pysot#215
        "dist.launcher_variables_missing",
        "KeyError: 'RANK'",
    ),
    (  # open-mmlab/mmcv#922
        "dataparallel.module_not_on_first_device",
        "module must have its parameters and buffers on device cuda:0 (device_ids[0]) but found one of them "
        "on device: cpu",
    ),
    (  # weipu-zhang/STORM#4
        "dtype.bf16_unsupported",
        "RuntimeError: Current CUDA Device does not support bfloat16.",
    ),
    (  # Jiaxin-Ye/DepMamba#3
        "extension.incompatible_arguments",
        "TypeError: causal_conv1d_fwd(): incompatible function arguments. The following argument types are "
        "supported:",
    ),
    (  # LianaWang/TextRay#2
        "build.torch_macro_changed",
        "src/iou_cuda.cpp:4:23: error: \u2018AT_CHECK\u2019 was not declared in this scope",
    ),
    (  # matteo-ronchetti/torch-radon#11
        "cuda.invalid_device_function",
        "RuntimeError: CUDA error: invalid device function",
    ),
    (  # BachiLi/diffvg#84
        "cuda.unsupported_ptx",
        "CUDA Runtime Error: the provided PTX was compiled with an unsupported toolchain. at "
        "diffvg/scene.cpp:35",
    ),
    (  # megvii-research/NAFNet#134
        "dist.local_rank_argument",
        "train.py: error: unrecognized arguments: --local-rank=0",
    ),
    (  # Tangshitao/Dense-Scene-Matching#1
        "extension.not_built",
        "ModuleNotFoundError: No module named 'correlation_cuda'",
    ),
    (  # joydeb28/llm-lab#3
        "generation.nonfinite_probabilities",
        "RuntimeError: probability tensor contains either `inf`, `nan` or element < 0",
    ),
    (  # continue-revolution/sd-webui-animatediff#352
        "sd.half_precision_nan",
        "[Bug]: A tensor with all NaNs was produced in VAE without --no-half",
    ),
    (  # aask1357/hilcodec#7
        "tensors.int32_index_limit",
        "RuntimeError: Expected canUse32BitIndexMath(input) && canUse32BitIndexMath(output) to be true, but "
        "got "
        "false.",
    ),
    (  # intel/intel-xpu-backend-for-triton#2014
        "torch.not_compiled_with_xpu",
        "AssertionError: Torch not compiled with XPU enabled",
    ),
    (  # chen742/PiPa#12
        "extension.built_without_cuda",
        "RuntimeError: nms is not compiled with GPU support",
    ),
    (  # jwyang/faster-rcnn.pytorch#568
        "build.unsupported_host_compiler",
        "/usr/local/cuda/include/crt/host_config.h:119:2: error: #error -- unsupported GNU version! gcc "
        "versions later than 6 are not supported!",
    ),
    (  # VinAIResearch/BERTweet#46
        "embedding.index_out_of_range",
        'Hi, I encountered an error: "IndexError: index out of range in self." Below is my code.',
    ),
    (  # kimiyoung/transformer-xl#123
        "dataparallel.replica_without_parameters",
        "StopIteration: Caught StopIteration in replica 0 on device 0.",
    ),
    (  # triton-lang/triton#1561
        "triton.out_of_shared_memory",
        "triton.runtime.autotuner.OutOfResources: out of resource: shared memory, Required: 196608, Hardware "
        "limit: 166912. Reducing block sizes or `num_stages` may help.",
    ),
    (  # wengong-jin/hgraph2graph#35
        "tensors.cuda_to_numpy",
        "TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to "
        "host memory first.",
    ),
    (  # easydiffusion/easydiffusion#289
        "host.cpu_allocator",
        "RuntimeError: [enforce fail at C:\\cb\\pytorch_1000000000000\\work\\c10\\core\\impl\\"
        "alloc_cpu.cpp:81] data. DefaultCPUAllocator: not enough memory: you tried to allocate 151781376 "
        "bytes.",
    ),
    (  # daerduoCarey/PyTorchEMD#9
        "cuda.illegal_memory_access",
        "RuntimeError: CUDA error: an illegal memory access was encountered",
    ),
    (  # RLHF-V/RLHF-V#7
        "flash_attn.v1_names",
        "ImportError: cannot import name 'flash_attn_unpadded_qkvpacked_func' from "
        "'flash_attn.flash_attn_interface'",
    ),
    (  # orchidas/DiffGFDN#3
        "mps.dtype_unsupported",
        "TypeError: Trying to convert ComplexDouble to the MPS backend but it does not have support for that "
        "dtype.",
    ),
    (  # kyegomez/swarms#450
        "bitsandbytes.quantized_model_moved",
        "ValueError: `.to` is not supported for `4-bit` or `8-bit` bitsandbytes models. Please use the model "
        "as it is, since the model has already been set to the correct devices and casted to the correct "
        "`dtype`.",
    ),
    (  # camlab-ethz/ConvolutionalNeuralOperator#4
        "extension.build_failed",
        'Setting up PyTorch plugin "filtered_lrelu_plugin"... Failed!',
    ),
    (  # vllm-project/llm-compressor#1432
        "meta.weights_without_data",
        "NotImplementedError: Cannot copy out of meta tensor; no data!",
    ),
    (  # LauraRuis/multimodal_seq2seq_gSCAN#2
        "rnn.lengths_on_gpu",
        "RuntimeError: 'lengths' argument should be a 1D CPU int64 tensor, but got 1D cuda:0 Long tensor",
    ),
    (  # yxgeee/MMT-plus#4
        "apex.not_installed",
        "ModuleNotFoundError: No module named 'apex'",
    ),
    (  # open-mmlab/mmgeneration#517
        "mmcv.built_from_source",
        "Collecting mmcv-full\n  Using cached mmcv-full-1.7.2.tar.gz (607 kB)\n  Preparing metadata "
        "(setup.py) ... error",
    ),
    (  # NVIDIA-AI-IOT/trt_pose#137
        "torch.not_installed",
        "ModuleNotFoundError: No module named 'torch'",
    ),
    (  # michuanhaohao/reid-strong-baseline#29
        "dataloader.worker_exited",
        "RuntimeError: DataLoader worker (pid(s) 15927) exited unexpectedly",
    ),
    (  # kijai/ComfyUI-PyramidFlowWrapper#43
        "fp8.unsupported",
        "RuntimeError: torch._scaled_mm is only supported on CUDA devices with compute capability >= 9.0 or "
        "8.9, or ROCm MI300+",
    ),
    (  # shubham-goel/ucmr#10
        "multigpu.only_one_gpu_works",
        "The code runs well with a single GPU, but it fails with multiple GPUs",
    ),
    (  # GaParmar/img2img-turbo#97
        "package.name_missing",
        "ImportError: cannot import name 'cached_download' from 'huggingface_hub'",
    ),
    (  # TMElyralab/MusePose#77
        "mmcv.version_incompatible",
        "AssertionError: MMCV==2.2.0 is used but incompatible. Please install mmcv>=2.0.0rc4, <2.2.0.",
    ),
    (  # paulpanwang/POPE#17
        "package.not_installed",
        "ModuleNotFoundError: No module named 'einops'",
    ),
    (  # RVC-Boss/GPT-SoVITS#607
        "ctranslate2.cuda_libraries",
        "RuntimeError: Library cublas64_12.dll is not found or cannot be loaded",
    ),
    (  # pytorch/pytorch#88038
        "cufft.internal_error",
        "RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR",
    ),
    (  # wildminder/ComfyUI-VibeVoice#44
        "flash_attn.not_installed",
        "FlashAttention2 has been toggled on, but it cannot be used due to the following error: the package "
        "flash_attn seems to be not installed.",
    ),
    (  # thunlp/OpenDelta#18
        "dataparallel.error_in_replica",
        "RuntimeError: Caught RuntimeError in replica 0 on device 0.",
    ),
    (  # vicgalle/zero-shot-reward-models#2
        "gptq.exllama_modules_offloaded",
        "ValueError: Found modules on cpu/disk. Using Exllama or Exllamav2 backend requires all the modules "
        "to be on GPU.You can deactivate exllama backend by setting `disable_exllama=True` in the "
        "quantization config object",
    ),
    (  # QwenAudio/FunMusic#28
        "amp.fp16_parameters",
        "ValueError: Attempting to unscale FP16 gradients.",
    ),
    (  # MIC-DKFZ/nnDetection#204
        "container.gpu_not_supported",
        "Detected NVIDIA NVIDIA GeForce RTX 4080 GPU, which is not yet supported in this version of the "
        "container",
    ),
    (  # tudelft-iv/VoteFlow#2
        "build.cudart_not_found",
        "/usr/bin/ld: cannot find -lcudart\ncollect2: error: ld returned 1 exit status",
    ),
    (  # NVIDIA/DIGITS#1358
        "cuda.device_order",
        "DIGITS GPU ID appears to disagree with nvidia-smi",
    ),
    (  # allenai/beaker-cli#326
        "container.started_without_gpus",
        "$ docker run --rm -it my-experiment nvidia-smi\ndocker: Error response from daemon: OCI runtime "
        "create failed:\ncontainer_linux.go:380: starting container process caused: exec:\n"
        '"nvidia-smi": executable file not found in $PATH: unknown.',
    ),
    (  # facebookresearch/xformers#692
        "xformers.built_for_other_gpu",
        "FATAL: kernel `fmha_cutlassF_f32_aligned_32x128_gmem_sm80` is for sm80-sm90, but was built for sm70",
    ),
    (  # zai-org/ChatGLM-6B#1434
        "cpm_kernels.library_not_found",
        'raise RuntimeError("Library %s is not initialized" % self.__name)\nRuntimeError: Library cudart is '
        "not initialized",
    ),
    (  # jwyang/faster-rcnn.pytorch#275
        "build.th_struct_private",
        "/lib/model/roi_crop/src/roi_crop.c:10:30: error: dereferencing pointer to incomplete type "
        "‘THFloatTensor {aka struct THFloatTensor}’",
    ),
    (  # pytorch/pytorch#136361
        "triton.not_available",
        "RuntimeError: Cannot find a working triton installation. Either the package is not installed or it "
        "is too old. More information on installing Triton can be found at https://github.com/openai/triton",
    ),
    (  # matteo-ronchetti/torch-radon#5
        "lib.glibc_too_old",
        "ImportError: /usr/lib64/libm.so.6: version `GLIBC_2.27' not found (required by /usr/local/lib64/"
        "python3.6/site-packages/torch_radon_cuda.cpython-36m-x86_64-linux-gnu.so)",
    ),
    (
        "dtype.value_overflow",
        "RuntimeError: value cannot be converted to type c10::Half without overflow",
    ),  # ran here
    (  # espnet/espnet#4584
        "dtype.value_overflow",
        "RuntimeError: value cannot be converted to type at::BFloat16 without overflow",
    ),
    ("torch.no_mps", "RuntimeError: PyTorch is not linked with support for mps devices"),  # ran here
    (  # GuijiAI/ReHiFace-S#5
        "onnxruntime.no_cuda_provider",
        "onnxruntime_inference_collection.py:54: UserWarning: Specified provider 'CUDAExecutionProvider' is "
        "not in available provider names.Available providers: 'CPUExecutionProvider'",
    ),
    (  # rapidsai/ucx-py#982
        "nvml.not_supported",
        "pynvml.nvml.NVMLError_NotSupported: Not Supported",
    ),
    (  # analysiscenter/batchflow#799
        "nvml.pynvml_deprecated",
        "/projects/faults-controller/.venv/lib/python3.12/site-packages/batchflow/monitor.py:15: "
        "FutureWarning: The pynvml package is deprecated. Please install nvidia-ml-py instead. If you did "
        "not install pynvml directly, please report this to the maintainers of the package that installed "
        "pynvml for you.",
    ),
    (  # NVIDIA/cuda-python#17
        "driver.libcuda_not_found",
        "RuntimeError: Failed to dlopen libcuda.so",
    ),
    (  # pytorch/pytorch#43464
        "build.library_wrong_architecture",
        "/usr/bin/ld: /home/ubuntu/libtorch/lib/libtorch.so: error adding symbols: file in wrong format",
    ),
    (  # rusty1s/himp-gnn#7
        "dataloader.fd_sharing_limit",
        "RuntimeError: received 0 items of ancdata",
    ),
    (  # unslothai/unsloth#1139
        "bitsandbytes.modules_offloaded",
        "ValueError: Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU RAM "
        "to fit the quantized model. If you want to dispatch the model on the CPU or the disk while keeping "
        "these modules in 32-bit, you need to set `load_in_8bit_fp32_cpu_offload=True` and pass a custom "
        "`device_map` to `from_pretrained`.",
    ),
    (  # Thinklab-SJTU/ThinkMatch#51
        "build.no_cuda_runtime",
        "No CUDA runtime is found, using CUDA_HOME='/usr/local/cuda",
    ),
    (  # NVIDIA/ContrastiveLosses4VRD#30
        "build.ffi_removed",
        "ImportError: torch.utils.ffi is deprecated. Please use cpp extensions instead.",
    ),
    (  # AttentionX/InstructBLIP_PEFT#3
        "amp.bf16_parameters",
        "RuntimeError: \"_amp_foreach_non_finite_check_and_unscale_cuda\" not implemented for 'BFloat16'",
    ),
    (  # sunsmarterjie/SDL-Skeleton#9
        "random.generator_device",
        "RuntimeError: Expected a 'cuda' device type for generator but found 'cpu'",
    ),
    (  # pytorch/pytorch#128661
        "cuda.oom_report_failed",
        'RuntimeError: NVML_SUCCESS == r INTERNAL ASSERT FAILED at "/opt/pytorch/pytorch/c10/cuda/'
        'CUDACachingAllocator.cpp":841, please report a bug to PyTorch.',
    ),
    (  # pytorch/pytorch#16998
        "cuda.invalid_configuration",
        "THCudaCheck FAIL file=/pytorch/aten/src/ATen/native/cuda/Normalization.cuh line=467 error=9 : "
        "invalid configuration argument",
    ),
    (  # VQAssessment/FAST-VQA-and-FasterVQA#47
        "native.segfault",
        "it raises error: `Segmentation fault (core dumped)`. I tried to debug it. It seems the problem "
        "happened when I tried to put model onto device.",
    ),
    (  # Ki6an/fastT5#53
        "onnxruntime.cuda_provider",
        "Failed to create CUDAExecutionProvider. Please reference https://onnxruntime.ai/docs/reference/"
        "execution-providers/CUDA-ExecutionProvider.html#requirements to ensure all dependencies are met.",
    ),
    (  # facebookresearch/faiss#1031
        "faiss.gpu_out_of_memory",
        "RuntimeError: Error in void faiss::gpu::allocMemorySpaceV(faiss::gpu::MemorySpace, void**, "
        "size_t) at gpu/utils/MemorySpace.cpp:26: Error: 'err == cudaSuccess' failed: failed to cudaMalloc "
        "47064032 bytes (error 2 out of memory)",
    ),
    (  # jwyang/faster-rcnn.pytorch#719
        "extension.setup_build_failed",
        "error: command u'/usr/local/cuda/bin/nvcc' failed with exit status 1",
    ),
    (  # awslabs/dgl-lifesci#127
        "device.cuda_call_given_cpu",
        "ValueError: Expected a cuda device, but got: cpu",
    ),
    (  # justanhduc/graphx-conv#11
        "extension.cuda_tensor_expected",
        "RuntimeError: xyz1 must be a CUDA tensor",
    ),
    (  # pytorch/pytorch#131340
        "build.isolated_torch",
        'The specified module could not be found. Error loading "C:\\...\\pip-build-env-himl3xh3\\normal\\Lib'
        '\\site-packages\\torch\\lib\\shm.dll" or one of its dependencies."',
    ),
    (  # cszn/KAIR#127
        "host.paging_file_too_small",
        "OSError: [WinError 1455] The paging file is too small for this operation to complete. Error "
        'loading "D:\\Anaconda\\envs\\swin-train\\lib\\site-packages\\torch\\lib\\shm.dll" or one of '
        "its dependencies.",
    ),
    (  # MCG-NJU/MeMOTR#1
        "elastic.child_failed",
        "torch.distributed.elastic.multiprocessing.errors.childFailedError: main.py FAILED",
    ),
    (  # navinor/DameDaneGenerator#3
        "gpu.not_nvidia",
        "I didn't see hardware requirement on your repository that it still required to run on Nvidia GPU or "
        "can be executed on non-Nvidia GPU.",
    ),
    (
        "bitsandbytes.cpu_library",
        "UserWarning: The installed version of bitsandbytes was compiled without GPU support. 8-bit "
        "optimizers, 8-bit multiplication, and GPU quantization are unavailable.",
    ),
    (
        "cuda.device_without_index",
        "ValueError: Expected a torch.device with a specified index or an integer, but got:cuda",
    ),
    (
        "transformers.quantization_unavailable",
        "ImportError: Using `bitsandbytes` 8-bit quantization requires Accelerate: `pip install accelerate` "
        "and the latest version of bitsandbytes: `pip install -i https://pypi.org/simple/ bitsandbytes`",
    ),
    ("cuda.invalid_kernel_image", "RuntimeError: Triton Error [CUDA]: device kernel image is invalid"),
    ("extension.release_wheel_build_failed", "ERROR: Failed building wheel for mamba-ssm"),
    (
        "container.no_gpu_runtime",
        'docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].',
    ),
    ("sdpa.flash_backward_needs_sm80", "RuntimeError: Expected is_sm80 to be true, but got false."),
    (
        "build.libtorch_abi_mismatch",
        "infer_test.cpp:(.text+0x981): undefined reference to `c10::Error::Error(c10::SourceLocation, "
        "std::string const&)'",
    ),
    (  # wiseodd/controlled-text-generation#24
        "rnn.backward_in_eval_mode",
        "RuntimeError: cudnn RNN backward can only be called in training mode",
    ),
    (  # ECMWFCode4Earth/wildfire-forecasting#28
        "multiprocessing.cuda_ipc_on_windows",
        "RuntimeError: cuda runtime error (801) : operation not supported at "
        "..\\torch/csrc/generic/StorageSharing.cpp:247",
    ),
    ("nvdiffrast.egl_unavailable", "[F glutil.cpp:338] eglInitialize() failed"),  # l1346792580123/FastHuman#4
    (
        "torch.compiled_core_missing",
        "ImportError: Failed to load PyTorch C extensions:",
    ),  # pytorch/pytorch#48578
    (
        "opengl.no_display",
        "ValueError: Failed to initialize Pyglet window with an OpenGL >= 3+ context.",
    ),  # nkolot/SPIN#64
    (
        "pip.torch_requirement_conflict",
        "torchvision 0.14.1 requires torch==1.13.1, but you have torch 2.0.1+cu118 which is incompatible",
    ),  # SociallyIneptWeeb/AICoverGen#80
    ("shell.command_not_found", "/bin/bash: accelerate: command not found"),  # Dpbm/dreambooth-tutorial#3
    (
        "deepspeed.op_check_output",
        "test.c\nLINK : fatal error LNK1181: cannot open input file 'aio.lib'",
    ),  # unslothai/unsloth#1909
    (
        "package.version_required",
        "ImportError: peft>=0.15.0 is required for a normal functioning of this module, but found "
        "peft==0.14.0.",
    ),  # deepbeepmeep/Wan2GP#421
    (
        "dataloader.shared_file_handle",
        "KeyError: 'Unable to open object (bad object header version number)'",
    ),  # pytorch/pytorch#11887
    (
        "load.model_files_missing",
        "OSError: Error no file named diffusion_pytorch_model.bin found in directory D:\\AI\\ComfyUI_windows_"
        "portable\\ComfyUI\\models\\CogVideo\\CogVideoX-Fun-V1.1-5b-Control.",
    ),  # kijai/ComfyUI-CogVideoXWrapper#281
    ("cuda.misaligned_address", "RuntimeError: CUDA error: misaligned address"),  # valeoai/WaffleIron#4
    (
        "cuda.launch_failure",
        "RuntimeError: CUDA error: an illegal instruction was encountered",
    ),  # IST-DASLab/marlin#40
    (
        "attention.no_available_kernel",
        "RuntimeError: No available kernel.  Aborting execution.",
    ),  # pytorch/pytorch#117354
    (
        "dataloader.worker_exception",
        "IsADirectoryError: Caught IsADirectoryError in DataLoader worker process 0.",
    ),  # a notebook's output (stored file 71072559069)
    (
        "awq.kernels_not_loaded",
        "AssertionError: AWQ kernels could not be loaded. Please install them from "
        "https://github.com/casper-hansen/AutoAWQ_kernels",
    ),  # casper-hansen/AutoAWQ#374
    (
        "deepspeed.op_no_capability",
        "# RuntimeError: Unable to load ragged_device_ops op due to no compute capabilities remaining after "
        "filtering",
    ),  # a notebook's note (stored file 13189917447)
    (
        "rnn.double_backward_through_cudnn",
        "RuntimeError: derivative for _cudnn_rnn_backward is not implemented",
    ),  # learnables/learn2learn#218
    (
        "amp.autocast_disabled",
        "/usr/local/lib/python3.8/dist-packages/torch/autocast_mode.py:141: UserWarning: User provided "
        "device_type of 'cuda', but CUDA is not available. Disabling",
    ),  # ultralytics/yolov5#6692
    ("build.ninja_missing", "RuntimeError: Ninja is required to load C++ extensions"),  # ashawkey/torch-ngp#1
    ("lib.invalid_elf_header", "ImportError: pyKSP/ksp.so: invalid ELF header"),  # cvlab-epfl/pyKSP#1
    (
        "tensors.bitwise_on_float",
        "NotImplementedError: \"bitwise_and_cuda\" not implemented for 'Float'",
    ),  # a project's notes (stored file 40345862661)
    (
        "tensors.storage_from_another_device",
        'RuntimeError: Attempted to set the storage of a tensor on device "cpu"\n'
        'to a storage on different device "cuda:0"',
    ),  # a trainer's notes (stored file 65714026631)
    (
        "autograd.modified_in_place",
        "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [torch.cuda.FloatTensor [4, 512, 16, 16]], which is output 0 of ConstantPadNdBackward, "
        "is at version 1; expected version 0 instead.",
    ),  # a project's notes (stored file 30312048209)
    (
        "cuda.graph_capture_refused",
        "RuntimeError: CUDA error: operation not permitted when stream is capturing",
    ),  # an environment's to-do (stored file 71182948652)
    ("xpu.no_devices", "RuntimeError: No XPU devices are available"),  # intel/torch-xpu-ops#4787
    (
        "autograd.no_graph",
        "    # prevent ```RuntimeError: element 0 of tensors does not require grad and does not have a "
        "grad_fn```",
    ),  # a fine-tuning script (stored file 37459456585)
    (
        "torch.attribute_missing",
        "AttributeError: module 'torch' has no attribute 'get_default_device'",
    ),  # a project's notes (stored file 28633973119)
    (
        "sdpa.flash_backward_needs_sm80_or_sm90",
        "            # Fix for RuntimeError: Expected is_sm80 || is_sm90 to be true, but got false.",
    ),  # a PPO trainer (stored file 10399058500)
    (
        "cuda.launch_timeout",
        "RuntimeError: CUDA error: the launch timed out and was terminated",
    ),  # a notebook's notes (stored file 43563475103)
    (
        "cuda.ecc_uncorrectable",
        "Ou processos de GPU crasham intermitentemente com `CUDA error: uncorrectable ECC error "
        "encountered`.",
    ),  # a GPU troubleshooting guide (stored file 53722428923)
    (
        "cuda.launch_out_of_resources",
        "The v256 Kaggle T4 run reached the benchmark but failed with `CUDA error: too many resources "
        "requested for launch` when the M=128,N=128 candidate was selected.",
    ),  # a benchmark's research notes (stored file 67137621974)
    (
        "cuda.peer_access_unsupported",
        "- `Cuda failure 'peer access is not supported between these two devices' [repeated 15x across "
        "cluster]`",
    ),  # an engine's documentation (stored file 24091842365)
    (
        "cudnn.no_engine",
        "Tesla P100-PCIE-16GB with CUDA capability sm_60 is not compatible\n"
        "RuntimeError: GET was unable to find an engine to execute this computation",
    ),  # a cluster's notes (stored file 57958977000)
    (
        "load.keys_mismatch",
        "RuntimeError: Error(s) in loading state_dict for CNNmodel:\n"
        "Missing key(s) in state_dict: 'classifer.weight', 'classifer.bias'.\n"
        "Unexpected key(s) in state_dict: 'classifier.weight', 'classifier.bias'.",
    ),  # TissueImageAnalytics/tiatoolbox#339
    (
        "loss.class_weights",
        "RuntimeError: weight tensor should be defined either for all 8 classes or no classes but got weight "
        "tensor of shape: [1, 8]",
    ),  # isl-org/Open3D-ML#668
    (
        "build.compiler_not_found",
        "subprocess.CalledProcessError: Command '['where', 'cl']' returned non-zero exit status 1.",
    ),  # yfeng95/DECA#168
    (
        "image.alpha_channel",
        "    img = transform(img)\n"
        "RuntimeError: The size of tensor a (4) must match the size of tensor b (3) at non-singleton "
        "dimension 0",
    ),  # StoryMY/take-off-eyeglasses#1
    (
        "load.torchscript_legacy_format",
        "RuntimeError: Legacy model format is not supported on mobile.",
    ),  # pytorch/pytorch#77840
    (
        "batchnorm.one_value_per_channel",
        "ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, "
        "128])",
    ),  # scverse/scvi-tools#2314
    (
        "embedding.index_dtype",
        "RuntimeError: Expected tensor for argument #1 'indices' to have scalar type Long; but got "
        "torch.cuda.IntTensor instead (while checking arguments for embedding)",
    ),  # nulog/nulog#1
    (
        "autograd.backward_twice",
        "RuntimeError: Trying to backward through the graph a second time, but the buffers have already been "
        "freed. Specify retain_graph=True when calling backward the first time.",
    ),  # eriklindernoren/PyTorch-GAN#6
    (
        "dtype.no_integer_kernel",
        "RuntimeError: _th_sqrt_out is not implemented for type torch.cuda.LongTensor",
    ),  # KalmanNet/KalmanNet-Dataset#1
    (
        "shape.cat_sizes",
        "RuntimeError: invalid argument 0: Sizes of tensors must match except in dimension 1. Got 4 and 5 in "
        "dimension 2 at /pytorch/aten/src/THC/generic/THCTensorMath.cu:83",
    ),  # junyanz/pytorch-CycleGAN-and-pix2pix#566
    (
        "dtype.inplace_result_cast",
        "RuntimeError: result type Float can't be cast to the desired output type Long",
    ),  # AI-secure/DBA#1
    (
        "loss.target_out_of_bounds",
        "IndexError: Target 12 is out of bounds.",
    ),  # TencentGameMate/gnn_cross_lingual#5
    (
        "model.input_channels",
        "RuntimeError: Given groups=1, weight of size [64, 1, 7, 7], expected input[0, 3, 406, 406] to have "
        "1 channels, but got 3 channels instead",
    ),  # taesungp/contrastive-unpaired-translation#158
    (
        "dataloader.stack_sizes",
        "RuntimeError: stack expects each tensor to be equal size, but got [3, 1088, 773] at entry 0 and [3, "
        "384, 480] at entry 1",
    ),  # qubvel-org/segmentation_models.pytorch#472
    (
        "nccl.invalid_usage",
        "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:784, invalid usage, NCCL "
        "version 2.7.8",
    ),  # facebookresearch/SlowFast#364
    (
        "nccl.remote_error",
        "torch.distributed.DistBackendError: NCCL error in: "
        "/pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, remote process exited or there was a "
        "network error, NCCL version 2.21.5",
    ),  # NVIDIA/nccl#2076
    (
        "load.pickled_by_older_torch",
        "AttributeError: 'Upsample' object has no attribute 'recompute_scale_factor'",
    ),  # BiomedSciAI/histocartography#30
    ("cuda.stub_driver", "RuntimeError: CUDA error: CUDA driver is a stub library"),
    (
        "cuda.nvlink_uncorrectable",
        "RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution",
    ),
    ("cuda.ptx_jit_missing", "CUDA Error: PTX JIT compiler library not found"),
    ("nccl.internal_error", "NCCL error in: ProcessGroupNCCL.cpp:1269, internal error, NCCL version 2.14.3"),
    ("rocm.no_gpus_available", "RuntimeError: No HIP GPUs are available"),
    (
        "driver.not_loaded",
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the "
        "latest NVIDIA driver is installed and running.",
    ),
    ("driver.library_mismatch", "Failed to initialize NVML: Driver/library version mismatch"),
    (
        "lib.libstdcxx_too_old",
        "ImportError: /usr/lib64/libstdc++.so.6: version `GLIBCXX_3.4.29' not found (required by "
        "<conda_path>/envs/rs_dc/lib/python3.11/site-packages/compressai/_CXX.cpython-311-x86_64-linux-gnu.so)",
    ),
]


def run_main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """The CLI in this process (fast), exit code and output as a user gets them."""
    with pytest.raises(SystemExit) as exited:
        cli.main(args)
    captured = capsys.readouterr()
    return int(exited.value.code or 0), captured.out, captured.err


def test_every_catalogue_entry_has_a_real_message_here_or_in_the_corpus() -> None:
    # tests/corpus/errors holds the real texts of every id (tests/explain/test_corpus.py runs them all);
    # the messages here are the ones the CLI tests below print, and those of ids the corpus lacks.
    corpus = {path.stem for path in splits.files("errors")}
    here = {entry_id for entry_id, _ in MESSAGES}
    assert here | corpus == {entry.id for entry in ENTRIES}


@pytest.mark.parametrize(
    ("entry_id", "message"), MESSAGES, ids=[f"{i}-{n}" for n, (i, _) in enumerate(MESSAGES)]
)
def test_the_message_is_explained_with_cause_fix_and_check(entry_id: str, message: str) -> None:
    entry = next(e for e in ENTRIES if e.id == entry_id)
    lines = explained_lines(message)
    out = "\n".join(lines)
    assert lines[0] == entry.title
    assert any(line.startswith("  cause: ") for line in lines)
    assert any(line.startswith("  fix:   ") for line in lines)
    if entry.check:
        assert any(line.startswith("  check: torchdoctor check --only ") for line in lines)
    assert "also in this text" not in out  # each message is recognised by its own entry only


def _lead(text: str) -> Explanation:
    (first, *_) = explain(text)
    return first


def test_oom_with_large_reserved_but_unallocated_memory_gets_the_fragmentation_hint() -> None:
    message = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
        "of 79.10 GiB of which 1.50 GiB is free. Including non-PyTorch memory, this process has 77.58 GiB "
        "memory in use. Of the allocated memory 60.12 GiB is allocated by PyTorch, and 16.97 GiB is reserved "
        "by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for "
        "Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
    )
    lead = _lead(message)
    assert "fragmented" in lead.cause
    assert "reserved by PyTorch but unallocated: 16.97 GiB" in lead.evidence
    assert lead.fix.commands == ("export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",)
    assert lead.check == "gpu.fragmentation"


def test_oldest_oom_text_computes_unallocated_from_reserved_minus_allocated() -> None:
    # The oldest form, verbatim from research/memory_bandwidth.md 1.6 (b):
    # 188.00 - 130.35 = 57.65 MiB reserved but unallocated >= 36 MiB requested.
    message = (
        "RuntimeError: CUDA out of memory. Tried to allocate 36.00 MiB (GPU 0; 7.93 GiB total capacity; "
        "130.35 MiB already allocated; 47.06 MiB free; 188.00 MiB reserved in total by PyTorch) If reserved "
        "memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation."
    )
    lead = _lead(message)
    assert "reserved by PyTorch but unallocated: 0.06 GiB" in lead.evidence
    # 7.93 GiB - 47 MiB free - the 188 MiB this process reserved: 7.70 GiB are held by something else, which
    # is the cause to name first (the cached 58 MiB is too little to matter)
    assert any(line.startswith("held outside this job: 7.70 GiB of 7.93 GiB") for line in lead.evidence)
    assert lead.check == "gpu.memory"


def test_oom_without_cached_memory_is_exhaustion_and_names_other_processes() -> None:
    message = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB. GPU 0 has a total capacity "
        "of 23.64 GiB of which 3.10 GiB is free. Process 4242 has 12.52 GiB memory in use. Process 5151 has "
        "8.00 GiB memory in use. Of the allocated memory 11.80 GiB is allocated by PyTorch, and 250.00 MiB "
        "is reserved by PyTorch but unallocated."
    )
    lead = _lead(message)
    evidence = list(lead.evidence)
    # 23.64 - 3.10 free - the 12.04 GiB PyTorch reserved here: 8.50 GiB held outside this job (pid 5151 has 8)
    assert any(line.startswith("held outside this job: 8.50 GiB of 23.64 GiB") for line in evidence)
    assert any(
        line.startswith("2 processes hold memory on this GPU (pid 4242: 12.52 GiB") for line in evidence
    )
    assert lead.check == "gpu.memory"
    assert "fragmented" not in lead.cause


def test_the_generic_allocator_message_names_pytorch_alloc_conf() -> None:
    message = (
        "Out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total capacity of 15.77 GiB of which 1.00 "
        "GiB is free. Of the allocated memory 8.00 GiB is allocated by PyTorch, and 6.00 GiB is reserved by "
        "PyTorch but unallocated. If reserved but unallocated memory is large try setting "
        "PYTORCH_ALLOC_CONF=expandable_segments:True to avoid fragmentation."
    )
    assert list(_lead(message).fix.commands) == ["export PYTORCH_ALLOC_CONF=expandable_segments:True"]


def test_driver_too_old_decodes_the_cuda_version_and_names_a_build_the_driver_runs() -> None:
    message = "RuntimeError: The NVIDIA driver on your system is too old (found version 12080)."
    lead = _lead(message)
    assert "this driver supports CUDA up to 12.8" in lead.evidence[0]
    # The plan torch.build makes for a driver of CUDA 12.8: the newest release with a build it runs.
    [command] = lead.fix.commands
    assert command.startswith('pip install "torch==') and command.endswith("/whl/cu126")
    assert "kernels" not in lead.fix.text  # the message names no GPU: no kernel claim
    old = _lead("The NVIDIA driver on your system is too old (found version 11040).")
    assert "CUDA up to 11.4" in old.evidence[0]
    assert "Update the NVIDIA driver" in old.fix.text
    assert all(c.endswith("/whl/cu118") for c in old.fix.commands)  # CUDA 11.x minor-version compatibility


def test_duplicate_gpu_decodes_nccls_bus_id() -> None:
    lead = _lead("Duplicate GPU detected : rank 3 and rank 0 both on CUDA device f000")
    assert lead.evidence == (
        "rank 3 and rank 0 both on CUDA device f000",
        "ranks 3 and 0 both use the GPU at PCI 0000:0f:00.0",
    )
    assert lead.check == "ddp.dryrun"


@pytest.mark.parametrize(
    "message",
    [
        "port: 29511, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use",
        "The server socket has failed to bind to [::]:29511 (errno: 98 - Address already in use).",
    ],
)
def test_address_in_use_names_the_port_in_the_fix(message: str) -> None:
    lead = _lead("The server socket has failed to listen on any local network address. " + message)
    assert lead.evidence == ("port 29511 is taken",)
    assert "ss -ltnp 'sport = :29511'" in lead.fix.commands


def test_size_mismatch_lists_the_tensors_and_the_strict_false_recipe() -> None:
    message = (
        "RuntimeError: Error(s) in loading state_dict for ResNet:\n"
        "\tsize mismatch for fc.weight: copying a param with shape torch.Size([10, 512]) from checkpoint, "
        "the shape in current model is torch.Size([1000, 512]).\n"
        "\tsize mismatch for fc.bias: copying a param with shape torch.Size([10]) from checkpoint, the shape "
        "in current model is torch.Size([1000])."
    )
    lead = _lead(message)
    assert lead.evidence == (
        "fc.weight: checkpoint [10, 512], model [1000, 512]",
        "fc.bias: checkpoint [10], model [1000]",
    )
    assert "{'fc.weight', 'fc.bias'}" in lead.fix.text
    assert "strict=False" in lead.fix.text


def test_in_a_traceback_the_last_error_leads_and_the_earlier_ones_follow(
    capsys: pytest.CaptureFixture[str],
) -> None:
    traceback = (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 12, in <module>\n'
        "    state = torch.load('ckpt.pt')\n"
        "RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
        "False. If you are running on a CPU-only machine, please use torch.load with "
        "map_location=torch.device('cpu') to map your storages to the CPU.\n\n"
        "During handling of the above exception, another exception occurred:\n\n"
        "Traceback (most recent call last):\n"
        '  File "train.py", line 14, in <module>\n'
        "    model.cuda()\n"
        "AssertionError: Torch not compiled with CUDA enabled\n"
    )
    code, out, _ = run_main(["explain", traceback], capsys)
    assert code == exitcodes.OK
    lines = out.splitlines()
    assert lines[0] == "Torch not compiled with CUDA enabled"
    assert "  seen:  AssertionError: Torch not compiled with CUDA enabled" in lines
    assert lines[lines.index("also in this text:") + 1].startswith(
        "  Loading GPU tensors where that GPU does not exist: RuntimeError: Attempting to deserialize"
    )


def test_an_unknown_message_says_so_and_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(["explain", "ValueError: too many values to unpack (expected 2)"], capsys)
    assert code == exitcodes.THRESHOLD
    assert out.startswith("torchdoctor does not know this message.")


def test_the_message_can_come_on_stdin_and_as_json(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("RuntimeError: CUDA error: invalid device ordinal\n"))
    code, out, _ = run_main(["explain", "--json"], capsys)
    assert code == exitcodes.OK
    (explanation,) = json.loads(out)
    assert explanation["id"] == "cuda.invalid_device_ordinal"
    assert explanation["check_command"] == "torchdoctor check --only cuda.visible_devices"


def test_no_message_at_all_is_bad_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("  \n"))
    code, _, err = run_main(["explain"], capsys)
    assert code == exitcodes.USAGE
    assert err == "torchdoctor: error: no error message given: pass it as an argument or on stdin\n"


def test_explain_as_installed_reads_a_pasted_traceback_on_stdin() -> None:
    traceback = "Traceback (most recent call last):\n  ...\n" + MESSAGES[16][1] + "\n"
    result = subprocess.run(
        [str(BIN / "torchdoctor"), "explain"],
        input=traceback,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == exitcodes.OK, result.stderr
    assert result.stdout.splitlines()[0] == "Address already in use (MASTER_PORT taken)"
    assert "    $ ss -ltnp 'sport = :29500'" in result.stdout.splitlines()
