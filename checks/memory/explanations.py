"""Error messages of GPU memory: CUDA and MPS out of memory with their figures read and classified, and the
cuBLAS and cuDNN status errors that are most often an out-of-memory in disguise.

The entries are the data of explanations.toml beside this module (:mod:`torchdoctor.explain.catalogue_file`),
registered in the entry-point group ``torchdoctor.explanations``; quoted from where torch raises them, the
research notes (research/memory_bandwidth.md 1.6), and the real texts of tests/corpus/errors. This module
holds their analysers.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, replace

from torchdoctor.checks.memory import gpus_said
from torchdoctor.checks.memory.pinned import pinned_analysis
from torchdoctor.explain import Analysis, Entry, catalogue_file
from torchdoctor.explain.model import Case, last_match, quoted, quoted_lines
from torchdoctor.model import Fix

_SIZE = r"(\d+(?:\.\d+)?) ?([KMGTP]i?B|bytes)"

_UNITS = {"B": 1, "BYTES": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15}

_UNITS.update({"KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40, "PIB": 2**50})

_OOM_START = re.compile(r"out of memory\. Tried to allocate", re.IGNORECASE)
# The figures pasted without the words before them ("Tried to allocate 20.00 MiB (GPU 0; 7.92 GiB total
# capacity; ...)" or the 2.x "Tried to allocate 64.00 MiB. GPU 0 has a total capacity of ...").
_FIGURES_START = re.compile(
    r"Tried to allocate [\d.]+ ?[KMGTP]i?B(?: \(GPU \d+;|\. GPU \d+ has)", re.IGNORECASE
)
_MPS_OOM = re.compile(
    rf"MPS backend out of memory \(MPS allocated: {_SIZE}, other allocations: {_SIZE}, max allowed: "
    rf"{_SIZE}\)\. Tried to allocate {_SIZE}",
    re.IGNORECASE,
)
_CUBLAS = re.compile(r"CUBLAS_STATUS_([A-Z_]+)")
_CUDNN = re.compile(
    r"CUDNN_STATUS_([A-Z_]+)|(valid cuDNN algorithm|valid convolution algorithms)", re.IGNORECASE
)


# Where the figures of an out-of-memory message end: the parenthesis of torch 1.x's "(GPU 0; ...)", or the
# advice that follows torch 2.x's sentences; a copy cut short ends with its line.
_FIGURES_END = re.compile(r"\)| If reserved| See documentation|\n")
_QUOTED_FIGURES_CHARS = 600


def _quoted_figures(message: str) -> str:
    """The figures of ``message`` (from "Tried to allocate") as the message words them, for the evidence."""
    start = message.lower().find("tried to allocate")
    if start < 0:
        return ""
    clause = message[start : start + _QUOTED_FIGURES_CHARS]
    end = _FIGURES_END.search(clause)
    if end is not None:
        clause = clause[: end.end() if end[0] == ")" else end.start()]
    return clause.rstrip(" \t\r\"'`")


def _bytes(number: str, unit: str) -> float:
    return float(number) * _UNITS[unit.upper()]


def _size(pattern: str, text: str) -> float | None:
    match = re.search(pattern.replace("SIZE", _SIZE), text, re.IGNORECASE)
    return None if match is None else _bytes(match[1], match[2])


def _first_size(text: str, *patterns: str) -> float | None:
    """The figure of the first pattern found, a zero included ("of which 0 bytes is free")."""
    for pattern in patterns:
        found = _size(pattern, text)
        if found is not None:
            return found
    return None


def _gib(size: float) -> str:
    return f"{size / 2**30:.2f} GiB"


def _as_said(text: str, size: float, *patterns: str) -> str:
    """A figure as the message gives it ("1024.00 MiB"), with its GiB beside it when the unit differs."""
    for pattern in patterns:
        match = re.search(pattern.replace("SIZE", _SIZE), text, re.IGNORECASE)
        if match is not None:
            said = f"{match[1]} {match[2]}"
            return said if match[2].upper() == "GIB" else f"{said} ({_gib(size)})"
    return _gib(size)


def _last_message(start: re.Pattern[str], text: str, length: int = 1500) -> str:
    """The text of the last message that ``start`` finds (the one that stopped the program)."""
    found = last_match(start, text)
    return text if found is None else text[found.start() : found.start() + length]


def _unallocated(text: str) -> float | None:
    """Reserved by PyTorch's allocator but not allocated, from any generation of the message: stated (2.x),
    reserved minus allocated (1.4 to 2.0), or the 'cached' figure of 1.0 to 1.3, which is that same
    difference: pytorch/pytorch PR #13751, which wrote that message, defines "cached" as "memory held by the
    allocator but not used by the program", measured after the allocator returned its unused blocks, so
    what is left is split from blocks partly in use."""
    stated = _size(r"SIZE is reserved by PyTorch but unallocated", text)
    if stated is not None:
        return stated
    reserved = _size(r"SIZE reserved in total by PyTorch", text)
    allocated = _size(r"SIZE already allocated", text)
    if reserved is not None and allocated is not None:
        return max(reserved - allocated, 0.0)
    return _size(r"SIZE cached\)", text)


# The text says the memory ran out at inference (no backward pass): the writer's words, or the script or call.
_AT_INFERENCE = re.compile(
    r"\b(?:inference|inferring|infer\.py|predict(?:ion|ing)?|testing|test\.py|demo\.py|eval\.py"
    r"|evaluat(?:e|ing|ion)|torch\.no_grad|inference_mode"
    # the test run in words: "the test script", "in test phase", "when testdata is mentioned"; in Chinese
    # the test run itself ("进行测试", "测试时", "测试阶段"), not any "测试" (a test of anything)
    r"|test[ _-]?(?:script|code|phase|stage|time|mode|data(?:set)?|set|images?))\b"
    r"|进行测试|测试(?:时|阶段|集)",
    re.IGNORECASE,
)
# The memory ran out in a program that runs a pretrained model rather than training one: generation (a
# diffusion pipeline, sampling, a web UI), a model being loaded, or a low-VRAM option asked about. There the
# model's own weights are most of what the GPU holds, and a batch is often 1 already.
_RUNS_A_MODEL = re.compile(
    r"\b(?:diffusion|pipeline|pipe\.|generat(?:e|es|ed|ing|ion)|sampling|from_pretrained|load_model"
    r"|load(?:s|ed|ing)?(?: the| a)?(?: [\w.-]{1,40}){0,3} model|(?:low|med)[-_ ]?vram|webui|demo)\b",
    re.IGNORECASE,
)
_TRAINING = re.compile(r"\.backward\(|optimizer\.step\(|\bloss\.backward\b|\btrain(?:ing)? step\b")
# The phase the writer ties to the out-of-memory: one named right after it with a preposition ("out of memory
# during training", "OOM when inference"), else the nearest named before it on its line ("trying to train
# LoRA instantly crashes with CUDA out of memory"). Only words beside the failure count: a text that trains
# and fails at evaluation names both phases.
_OOM_SAID = re.compile(r"out[ -]of[ -]memory|\bOOM\b|OutOfMemoryError", re.IGNORECASE)
_PHASE_AFTER = re.compile(
    r"[^\n.!?]{0,30}?\b(?:during|while|when|at|in|on)\s(?:the\s)?(?P<phase>[a-z-]{3,14})", re.IGNORECASE
)
_PHASE_WORD = re.compile(
    r"\b(?:(?P<training>train|training|trained|trains|fine-?tun(?:e|es|ed|ing)|finetun(?:e|es|ed|ing))"
    r"|(?P<inference>inference|inferring|infer|evaluation|evaluating|evaluate|eval|testing|test|validation|"
    r"validating|prediction|predicting|predict|generation|generating|sampling))\b",
    re.IGNORECASE,
)
_OOM_MENTIONS_READ = 16


def failure_phase(text: str) -> str | None:
    """ "training" or "inference" where the writer ties one to an out-of-memory, else None."""
    tail = text[-200_000:]
    for said in itertools.islice(_OOM_SAID.finditer(tail), _OOM_MENTIONS_READ):
        after = _PHASE_AFTER.match(tail, said.end())
        if after is not None:
            word = _PHASE_WORD.fullmatch(after["phase"])
            if word is not None:
                return "training" if word["training"] else "inference"
        line_start = tail.rfind("\n", 0, said.start()) + 1
        before = tail[max(line_start, said.start() - 60) : said.start()]
        words = list(_PHASE_WORD.finditer(before))
        if words:
            return "training" if words[-1]["training"] else "inference"
    return None


# The input-size lever and the shortfall, in the words the threads' answers use ("reduce the image size",
# "reduce the resolution of training image", "1G显存确实有点小": 1 GB of GPU memory is indeed small).
_INPUT_SIZE = (
    "a smaller image size or a lower resolution, a smaller training crop size, shorter sequences (truncated "
    "to a maximum length: the tokenizer's max_length, a max_seq_len option)"
)
_NOT_ENOUGH = "not enough GPU memory for it as set: the GPU is too small for this step"
# One tensor too large for the GPU, whatever the batch: the input in parts, as super-resolution and
# restoration projects do at test time on whole images (their --tile options).
_IN_PIECES = (
    "run the input in pieces and join the outputs: tiles or patches of a large image, segments (chunks) of a "
    "long audio or video (the program's tile, chop or chunk option, or by hand)"
)
_MODEL_LEVERS = (
    "make the model itself take less of the GPU: half precision (model.half(), torch_dtype=torch.float16), "
    "8-bit or 4-bit quantized weights (load_in_8bit, load_in_4bit), offloading part of it to the CPU (the "
    "program's low-VRAM or CPU-offload option, accelerate's device_map=\"auto\", diffusers' "
    "enable_model_cpu_offload()) or a smaller model variant; or run it on the CPU"
)
_AT_INFERENCE_FIX = (
    "At inference no gradients or optimizer state are kept (run the forward under torch.inference_mode() or "
    "torch.no_grad(), with model.eval()), so the levers are the input size (a lower resolution or a shorter "
    "sequence, or tiles of a large image), the batch (down to 1: the batch size of the test or evaluation "
    "run, which some programs set apart from training's), and the model's own memory: "
    + _MODEL_LEVERS
    + "; or a larger GPU (more GPU memory)."
)
_A_MODEL_FIX = (
    "A pretrained model run on a GPU too small for it is held mostly by its weights: "
    + _MODEL_LEVERS
    + "; or a larger GPU (more GPU memory)."
)
_MODEL_AFTER = (
    "If the model's weights alone fill the GPU, " + _MODEL_LEVERS + " or on a larger GPU (more GPU memory)."
)


# The batch size the writer states ("batch_size = 60", "--batch-size 32", "the batch size to 4", "batch size
# is reduced to 2", "the batch size from 64 to 16"), an option's with a prefix or a suffix
# ("--per_device_train_batch_size 1", '--train_batch_size="1"', "--dataloader_batch_size 8", "--batch_size_pre
# 16", "micro_batch_size: 4", "pp_microbatch_size=4"), a program's own name for it (detectron2's
# IMS_PER_BATCH, mmdetection's samples_per_gpu, EDM's batch_gpu, "--bs 8", "batch=16") or the Hugging Face
# Trainer's log ("Instantaneous batch size per device = 8"): the lever the fix names, quoted as written.
_BATCH_SAID = re.compile(
    r"(?<![\w-])(?:--?)?(?:(?:[a-z]{1,12}_){0,4}(?:micro_?|mini_?)?batch[ _-]?size(?:_[a-z]{1,12})?"
    r"|(?:[a-z]{1,12}_){0,2}microbatch_size|ims_per_batch|(?:samples|imgs|images)_per_gpu|batch_gpu"
    r"|bs(?=[ \t]{0,3}[=:]|[ \t]\d)|batch(?=[ \t]{0,3}=))\b"
    r"(?:[ \t]*(?:[=:]|is|was|of|to|as|set|reduced|changed|lowered|decreased|per (?:device|gpu)"
    r"|from[ \t]*\d{1,5}[ \t]*to)){0,3}"
    r"[ \t]*[\"'(]?\d{1,5}\b[\"')]?",
    re.IGNORECASE
    | re.ASCII,  # "默认的batch_size=6": a Chinese character before it is no letter of the option
)
# An evaluation batch ("--per_device_eval_batch_size 1", "val_batch_size") is not the training step's.
_EVAL_BATCH = re.compile(r"(?:eval|val|valid|test)_batch", re.IGNORECASE)
_BATCHES_READ = 64  # a bound on the matches read, however often a log repeats its options


def batches_said(text: str) -> list[str]:
    """The batch sizes the text states (not an evaluation batch's), as written, each size once: one that
    failed and one that worked are both quoted."""
    shown: dict[str, str] = {}
    for n, found in enumerate(_BATCH_SAID.finditer(text[-200_000:])):
        if n >= _BATCHES_READ:
            break
        if _EVAL_BATCH.search(found[0]) is None:
            said = " ".join(found[0].split())
            size = re.findall(r"\d+", said)[-1]
            shown.pop(size, None)  # a size said again counts where it was said last
            shown[size] = said
    return list(shown.values())


def batch_said(text: str) -> str | None:
    """The last batch size the text states (not an evaluation batch's), as written."""
    said = batches_said(text)
    return said[-1] if said else None


# The input size the writer states, as written: an image's width and height ("640x360", "1024×1024",
# "1120 * 1450") or a shape in parentheses ("(1025, 2049)", "(1920,1080,3)") after a word of size, image or
# input in the same sentence ("input size (1920,1080,3),i want to get the image of size (3840,3160,3)").
_SIZE_BY_X = r"(?<![\w.])\d{2,5} ?[x×] ?\d{2,5}(?![\w.])"
_INPUT_SIZE_SAID = re.compile(
    rf"{_SIZE_BY_X}"
    r"|\b(?:size|sizes|image|images|input|inputs|resolution|dim|dims|dimension|dimensions|shape|data)\b"
    r"[^.\n]{0,60}?(\(\s?\d{2,5}\s?,\s?\d{2,5}(?:\s?,\s?\d{1,4})?\s?\)"
    r"|(?<![\w.])\d{2,5} ?\* ?\d{2,5}(?![\w.]))",
    re.IGNORECASE,
)
_INPUT_SIZES_SHOWN = 3
_INPUT_SIZES_TRIED = 64  # a bound on the matches read, however often the text repeats one size


def input_sizes_said(text: str) -> list[str]:
    """The input sizes (an image's width and height, a shape) the writer states, as written, the first
    few; after one size word a sentence may name several ("input size (1920,1080,3),i want to get ...
    (3840,3160,3)")."""
    shown: list[str] = []
    window = text[-200_000:]
    at = 0
    for _ in range(_INPUT_SIZES_TRIED):
        found = _INPUT_SIZE_SAID.search(window, at)
        if found is None:
            break
        said = " ".join((found[1] or found[0]).split())
        if said not in shown:
            shown.append(said)
        if len(shown) == _INPUT_SIZES_SHOWN:
            break
        # a shape found after its size word: the rest of the sentence may give more
        at = found.start(1) + 1 if found[1] else found.end()
    return shown


# The writer says the batch is not the lever: it is 1 already, or the error comes whatever its size.
_ANY_BATCH = re.compile(
    r"\b(?:even with|whatever|regardless of|no matter(?: what)?|any)(?: the| a| my)? batch[ _-]?size",
    re.IGNORECASE,
)
_OCCUPIED = (
    "A batch of 1 (or any batch, as the text says) does not fit, so the step's size is not what fills the "
    "GPU: the GPU the job runs on is occupied (another process or a zombie of an earlier run holds it; the "
    "program may run on another GPU than the one meant), the model alone does not fit it, or one input alone "
    "is too large (the longest document, sentence or audio file, the largest image)."
)
_OCCUPIED_FIX = (
    "See what holds each GPU (nvidia-smi) and run on a free GPU: CUDA_VISIBLE_DEVICES=<index of a free one> "
    "exported or on the same command line, before the first CUDA call, with cuda:0 in the code; if the GPU "
    "is free and it still fails, either one input is too large (split long documents and audio into "
    "shorter pieces, or truncate them to a maximum length; a smaller image size or a lower resolution) or "
    "the model alone is too large for it: "
)


# The writer says the memory ran out only after a long run, or grows from step to step: the step itself fits,
# something accumulates ("a memory leak", "memory keeps increasing", "after 30 epochs", "when training the
# model for too long").
_GROWS = re.compile(
    r"\bmemory[ -]leak\w{0,3}|\bleak(?:s|ing)? (?:GPU |CUDA )?memory\b"
    r"|\bmemory (?:usage )?(?:keeps|kept|is|was) (?:increasing|growing|rising|going up)"
    r"|\bmemory (?:usage )?(?:grows|increases|accumulates|builds up) (?:with|every|each|over|after|until)\b"
    r"|\bmemory (?:usage |consumptions? )(?:increases|grows|keeps increasing|is increasing)"
    r"|\b(?:after|for) (?:training |running )?(?:\d{1,4}|several|many|a few|few|some)"
    r" (?:epochs|iterations|hours)\b"
    r"|\bfor too long\b",
    re.IGNORECASE,
)
_GROWS_CAUSE = (
    "The memory grows from step to step until the GPU is full: the step itself fits (it ran for a while), "
    "and something keeps GPU tensors from one step to the next: a loss or the outputs appended to a list "
    "without .item() or .detach(), predictions or metrics gathered on the GPU over an epoch, a graph kept "
    "alive by a tensor that still requires grad, in the training or the validation loop, or in the "
    "program's own code."
)
_GROWS_FIX = (
    "Find what grows: log torch.cuda.memory_allocated() every few steps and at each validation (or record "
    "torch.cuda.memory._record_memory_history() and read the snapshot). Keep Python numbers, not tensors "
    "(loss.item()), move what is gathered to the CPU and detach it (.detach().cpu()), run validation under "
    "torch.no_grad(). Where the growth is in the program or a library it uses, update it to a version that "
    "fixes the leak, or turn off the feature that accumulates."
)


def _growing(analysis: Analysis, text: str) -> Analysis | None:
    """A step that fits and memory that grows (the writer's words), unless the figures name another holder
    of the GPU, fragmentation or one tensor too large."""
    if analysis.fix is not None and "gradient accumulation" not in analysis.fix.text:
        return None
    found = last_match(_GROWS, text[-200_000:])
    if found is None:
        return None
    return Analysis(
        evidence=(
            *analysis.evidence,
            f"the text says the memory ran out over time ('{' '.join(found[0].split())}'): the step fits",
        ),
        cause=_GROWS_CAUSE,
        fix=Fix(_GROWS_FIX, ("nvidia-smi --query-gpu=memory.used --format=csv -l 60",)),
        check="gpu.memory",
    )


# The writer says the same program ran before and fails from a point in time on, with nothing changed on
# their side ("worked yesterday", "this is new", "nothing has been changed", "able to run it ... until last
# week", "since 2 days ago", "days ago ... started", "after an update"): what changed is under the program.
_STARTED_AT = re.compile(
    r"\b(?:worked|working|ran|running|able to run|was fine|were fine)\b[^.\n]{0,40}?"
    r"\b(?:yesterday|last (?:night|week|month)|previously|until|earlier (?:in the|this) (?:week|month)"
    r"|before(?=\s{0,3}(?:[.,;!)]|$)))"
    r"|\byesterday\b[^.\n]{0,60}?\b(?:worked|was fine|without (?:a |any )?problems?)\b"
    r"|\bthis is new\b|\bnothing (?:has |had )?(?:been |was )?changed\b"
    r"|\b(?:without|didn't|did not|haven't|have not) chang(?:e|ed|ing) anything\b"
    r"|\b(?:days?|weeks?) ago\b[^.\n]{0,60}?\b(?:started|began|appeared)\b"
    r"|\b(?:started|began|since)\b[^.\n]{0,40}?\b(?:days?|weeks?) ago\b"
    r"|\b(?:after|since) (?:an|the|a recent|the latest|the last) update\b",
    re.IGNORECASE | re.MULTILINE,
)
_STARTED_CAUSE = (
    "The same program ran before and runs out of memory from a point in time on, with nothing changed on "
    "the writer's side: what changed is under it: an update of the program or notebook (a regression, "
    "which its maintainers may have fixed since), a library it installs unpinned (torch, diffusers, "
    "xformers, transformers) that now takes more memory, or a smaller GPU than before (Colab and other "
    "clouds assign different GPUs)."
)
_STARTED_FIX = (
    "Update to the latest version of the program or notebook (a fresh copy of the notebook) and look in its "
    "issue tracker for the regression; otherwise pin the versions that last worked (pip install "
    "<package>==<version>), and check which GPU the session got (nvidia-smi). Until then, "
)


def _changed_underneath(analysis: Analysis, text: str) -> Analysis | None:
    """A program that ran before and now runs out of memory with nothing changed on the writer's side (the
    writer's words), unless the figures name another holder of the GPU, fragmentation or one tensor too
    large."""
    if analysis.fix is not None and "gradient accumulation" not in analysis.fix.text:
        return None
    found = last_match(_STARTED_AT, text[-200_000:])
    if found is None:
        return None
    step = "lower the batch size or the input size, or use mixed precision, to fit what the GPU has now."
    return Analysis(
        evidence=(
            *analysis.evidence,
            f"the text says the same program ran before ('{' '.join(found[0].split())}'): what changed is "
            "under it",
        ),
        cause=_STARTED_CAUSE,
        fix=Fix(_STARTED_FIX + step, ("nvidia-smi", "pip list")),
        check="gpu.memory",
    )


_SHARED_MEMORY = re.compile(r"Required: (\d{4,7}),\s{0,3},?\s{0,3}Hardware limit(?:ation)?: (\d{4,7})")


def _shared_memory_line(found: re.Match[str]) -> str:
    required, limit = int(found[1]), int(found[2])
    return (
        f"the kernel needs {required} bytes of shared memory per block, the GPU allows {limit} bytes "
        f"({required / limit:.1f} times as much)"
    )


def analyse_triton_shared_memory(text: str) -> Analysis:
    """The shared memory the kernel asked for against the GPU's limit, as Triton gives them."""
    return quoted(_SHARED_MEMORY, text, _shared_memory_line)


# A request as the message or its writer gives it ("Tried to allocate 131062.02 GiB", "trying to allocate
# 133792483MiB"), a compiled extension's call in the text, and thrust's allocation failing inside one.
_REQUEST_SAID = re.compile(
    r"\b(?:tried|trying) to allocate\s{0,3}(\d{1,15}(?:\.\d{1,4})?)\s{0,2}([KMGTP]i?B)\b", re.IGNORECASE
)
_EXTENSION_CALL = re.compile(
    r"\b_C\.(\w{1,60})\(|\b(diff[_-]gaussian[_-]rasterization|simple[_-]knn|distCUDA2|tinycudann)\b",
    re.IGNORECASE,
)
_THRUST_ALLOCATION = re.compile(r"bad[_ ]?alloc(?:ation)?: cudaErrorMemoryAllocation", re.IGNORECASE)
_NO_INPUT_BYTES = 2**40
"""A request of a tebibyte or more: no tensor a model makes of its input is that large on any GPU; such a size
is computed from garbage (a compiled kernel for another GPU, an overflow)."""
_MISBUILT_CAUSE = (
    "The request is a size a compiled CUDA extension computed wrong, not memory the job needs: an extension "
    "(3D Gaussian splatting's diff_gaussian_rasterization and simple_knn, a project's own ops) built for "
    "another GPU architecture or against another CUDA (a wheel built elsewhere, a build folder from another "
    "machine, an nvcc other than torch's CUDA) runs kernels that read their sizes wrong."
)
_MISBUILT_FIX = Fix(
    "Rebuild the extension on this machine for this GPU: pip uninstall it, remove its build folder, then "
    'TORCH_CUDA_ARCH_LIST="<this GPU\'s capability, e.g. 8.6>" pip install --no-build-isolation '
    "./submodules/diff-gaussian-rasterization (the same for simple-knn and the project's other ops), with an "
    "nvcc of torch's CUDA release. Only if the rebuilt extension still asks for more than the GPU has is the "
    "scene or input too large.",
    (
        'python -c "import torch; print(torch.version.cuda, torch.cuda.get_device_capability())"',
        "nvcc --version",
    ),
)

# A request no input needs, with no compiled extension shown making it.
_GARBAGE_CAUSE = (
    "The request is a size computed wrong, not memory the job needs. Most often the program's shapes: "
    "tensors that broadcast into a huge one ((N, 1) with (N,) makes N x N), a batch and a feature dimension "
    "swapped, an input of another layout or size than the code expects (a model for small images given a "
    "large one); or a library's size arithmetic overflowing on a very large input; or a compiled CUDA "
    "extension built for another GPU or CUDA that reads its sizes wrong."
)
_GARBAGE_FIX = Fix(
    "Print the shapes at the failing line (x.shape for each tensor it combines) and make them the ones the "
    "code expects: reshape or unsqueeze so the batch dimensions line up instead of broadcasting, and give "
    "the model inputs of the size and layout it was made for (resize or tile a very large image). Where a "
    "compiled extension makes the call, rebuild it on this machine for this GPU (pip uninstall it, remove "
    'its build folder, TORCH_CUDA_ARCH_LIST="<this GPU\'s capability>" pip install --no-build-isolation .).'
)


def _misbuilt_extension(text: str) -> Analysis | None:
    """An out-of-memory whose request a compiled extension computed wrong: a tebibyte or more, or more than
    the GPU (any GPU, where the message gives no capacity) from an extension's call, or thrust's allocation
    failing in one."""
    tail = text[-200_000:]
    said = last_match(_REQUEST_SAID, tail)
    requested = None if said is None else _bytes(said[1], said[2])
    call = last_match(_EXTENSION_CALL, tail)
    message = _last_message(_FIGURES_START, tail) if said is not None else ""
    total = _first_size(message, r"total capac\w* of SIZE", r"SIZE total capacity") if message else None
    absurd = requested is not None and requested >= _NO_INPUT_BYTES
    capacity = LARGEST_GPU_BYTES if total is None else total
    beyond = call is not None and requested is not None and requested > capacity
    thrust = call is not None and last_match(_THRUST_ALLOCATION, tail) is not None
    if not (absurd or beyond or thrust):
        return None
    evidence = []
    if said is not None:
        evidence.append(f"the request: {' '.join(said[0].split())}")
    if absurd:
        evidence.append("a tebibyte or more: no input makes a tensor that large; the size is garbage")
    if call is None:
        return Analysis(evidence=tuple(evidence), cause=_GARBAGE_CAUSE, fix=_GARBAGE_FIX)
    evidence.append(f"the allocation comes from a compiled extension: {call[0].rstrip('(')}")
    return Analysis(evidence=tuple(evidence), cause=_MISBUILT_CAUSE, fix=_MISBUILT_FIX)


# faiss's allocation as its message gives it: "StandardGpuResources: alloc fail type FlatData dev 2 space
# Device stream 0 size 2764800000 bytes", or older faiss's "failed to cudaMalloc 47064032 bytes".
_FAISS_ALLOCATION = re.compile(
    r"alloc\s{1,40}fail\s{1,40}type\s{1,40}(\w{1,40})\s{1,40}dev\s{1,3}(\d{1,3})[^\n]{0,120}?size\s{1,3}(\d{1,20})"
    r"\s{1,3}bytes|failed to cudaMalloc (\d{1,20}) bytes",
    re.IGNORECASE,
)


def analyse_faiss_oom(text: str) -> Analysis:
    """The allocation faiss's message names: its kind, device and size."""

    def said(found: re.Match[str]) -> str:
        if found[4] is not None:
            size = int(found[4])
            return f"faiss's allocation: size {size} bytes ({size / 2**30:.2f} GiB)"
        size = int(found[3])
        gib = f"{size / 2**30:.2f} GiB"
        return f"faiss's allocation: {found[1]} of size {size} bytes ({gib}) on device {found[2]}"

    return quoted(_FAISS_ALLOCATION, text, said)


_OUT_OF_MEMORY_SAID = re.compile(r"out of memory", re.IGNORECASE)


def analyse_oom(text: str) -> Analysis:
    """:func:`_analyse_oom` with the batch size the text states, if any, among the evidence. A message
    without figures from a job whose batch is 1 already (or fails whatever the batch) is a GPU already
    occupied, or a model too large for it: the fix leads with finding a free GPU. A request a compiled
    extension computed wrong is said first."""
    pinned = pinned_analysis(text, _OUT_OF_MEMORY_SAID)
    if pinned is not None:
        return pinned
    misbuilt = _misbuilt_extension(text)
    if misbuilt is not None:
        return misbuilt
    if not _while_loading_found(text):
        base = _analyse_oom(text)
        growing = _growing(base, text) or _changed_underneath(base, text)
        if growing is not None:
            return growing
    tail = text[-200_000:]
    batches = batches_said(tail)
    shown = batches[-1] if batches else None
    at_one = shown is not None and _BATCH_OF_ONE.search(shown) is not None
    # the batch of 1 said first of the generic levers, after those that lead for a reason of the text's own
    analysis = _batch_spent(_analyse_oom_fix(text), shown) if at_one else _analyse_oom_fix(text)
    if len(batches) > 1:
        line = f"the text gives the batch sizes: {', '.join(batches[-3:])}"
        analysis = analysis.with_evidence(line)
    elif shown is not None:
        analysis = analysis.with_evidence(f"the text gives the batch size: {shown}")
    if not at_one:
        analysis = _batch_setting_named(analysis, shown)
    sizes = input_sizes_said(tail)
    if sizes:
        line = f"the text gives the input size{'s' if len(sizes) > 1 else ''}: {', '.join(sizes)}"
        analysis = analysis.with_evidence(line)
    named = gpu_named_with_memory(tail)
    if named is not None:
        analysis = analysis.with_evidence(f"the text names the GPU as {named}")
    figures = re.search(r"Tried to allocate", tail, re.IGNORECASE) is not None
    analysis = _large_images(analysis, tail)
    analysis = _in_tiles(analysis, tail)
    analysis = _one_of_several(analysis, tail)
    analysis = _replicated(analysis, tail, figures)
    analysis = _volatile(analysis, tail)
    longest = _long_examples(analysis, tail)
    analysis = longest if longest is not analysis else _long_inputs(analysis, tail)
    analysis = _video(analysis, tail)
    smallest = at_one or _ANY_BATCH.search(tail)
    if not smallest or figures or _while_loading_found(text) or _over_several_gpus(analysis):
        return analysis
    commands = ("nvidia-smi --query-compute-apps=pid,used_memory --format=csv",)
    return replace(
        analysis,
        cause=_OCCUPIED + ("" if analysis.cause is None else " " + analysis.cause),
        check="gpu.memory",
        fix=Fix(_OCCUPIED_FIX + _MODEL_LEVERS + ".", commands),
    )


# A batch size stated as 1 ("batch_size = 1", "IMS_PER_BATCH = 1)", "a batch size of 1").
_BATCH_OF_ONE = re.compile(r"\D1[\"')]?$")


def _batch_spent(analysis: Analysis, shown: str | None) -> Analysis:
    """A fix that lowers the batch, told first that the text's batch is 1 already."""
    fix = analysis.fix or _OOM.fix
    if "batch" not in fix.text.lower():
        return analysis
    said = (
        f"The text gives a batch of 1 ({shown}): lowering the batch is no lever here; lower the input's size "
        "(the resolution, the sequence or clip length, the number of frames or time steps in one sample)"
    )
    return replace(analysis, fix=Fix(f"{said}, or use the other levers below. {fix.text}", fix.commands))


# The program's own name for its batch setting, as written ("batch_gpu", "--per_device_train_batch_size",
# "IMS_PER_BATCH", "--bs", "batch="), not the prose "batch size".
_BATCH_SETTING = re.compile(r"-{0,2}[A-Za-z][\w.-]*_[\w.-]*|--?[\w.-]+|bs\b|batch(?=\s{0,3}=)", re.IGNORECASE)


def _batch_setting_named(analysis: Analysis, shown: str | None) -> Analysis:
    """A fix that lowers the batch, told which of the program's settings that is where the text shows it."""
    setting = None if shown is None else _BATCH_SETTING.match(shown)
    fix = analysis.fix or _OOM.fix
    if setting is None or "batch" not in fix.text:
        return analysis
    line = f" In this program the batch is {shown}: lower {setting[0]}."
    return replace(analysis, fix=Fix(fix.text + line, fix.commands))


# An image upscaled or restored whole at test time: super-resolution and restoration programs ("--scale 4",
# "upscale", "super resolution", Real-ESRGAN's inference script, SwinIR, a tile option already in use), whose
# memory grows with the image's pixels; the threads ran them in tiles with the program's own option.
_RESTORES_IMAGES = re.compile(
    r"super[- _]?resolution|\bupscal(?:e|es|ed|ing|er)\b|\b\w{0,20}ESRGAN\w{0,20}|\bSwinIR\b"
    r"|\bsr failed\b|--scale[ =]\d|--tile(?:_size)?\b|--tiled\b|_tile\.py\b",
    re.IGNORECASE,
)
_TILES_FIX = (
    "The program runs the model on the whole image at once, and a super-resolution or restoration model's "
    "memory grows with the image's pixels (its output is scale² larger): run it in tiles with the "
    "program's own tiling option (--tile 400 in Real-ESRGAN and SwinIR, --tiled --tile_size 512 in others; "
    "a tile, chop or patch option by another name), a smaller tile where it already tiles; or downscale the "
    "input image."
)


# An out-of-memory that comes after some batches ran ("after 4800 batch", "at step 164", "after running for
# 1000-1500 batches", "运行到16%的时候": when the run reached 16%) in a run over sequences (text, captions,
# speech, tokens): the batch that holds the longest examples is the one that does not fit. The threads capped
# or filtered the length.
_AFTER_SOME = re.compile(
    r"\bafter\s{1,3}(?:(?:training|running)\s{1,3}(?:on\s{1,3}|for\s{1,3})?)?(?:some|a\s{1,3}few|several|many|"
    r"a\s{1,3}while|\d[\d,]{0,8}(?:-\d{1,8})?|a\s{1,3}few\s{1,3}thousands?|thousands?)\s{0,3}(?:of\s{1,3})?"
    r"(?:\w{1,12}\s{1,3})?(?:batch(?:es)?|steps?|iterations?|iters?|examples|samples|epochs?)\b"
    r"|\bat\s{1,3}(?:step|iteration|iter|batch)\s{1,3}\d{1,9}\b"
    r"|\bin\s{1,3}the\s{1,3}middle\s{1,3}of\s{1,3}(?:an?\s{1,3}|the\s{1,3})?epoch\b"
    r"|(?:训练|运行|跑)到\s{0,3}\d{1,3}\s?%",
    re.IGNORECASE,
)
_SEQUENCES = re.compile(
    r"\b(?:seq2seq|sequences?|sentences?|captions?|texts?|utterances?|transcripts?|tokens?|speech|audio|ASR|TTS|"
    r"NMT|SFT|LoRA|"
    r"max[-_ ]?(?:seq(?:uence)?[-_ ]?)?len(?:gth)?|max[-_]duration|truncat\w{0,4})\b",
    re.IGNORECASE,
)
_LENGTH_OPTION = re.compile(
    r"(?<![\w-])-{0,2}max[-_ ](?:duration|seq(?:uence)?[-_ ]?len(?:gth)?|len(?:gth)?|tokens)"
    r"\s{0,3}[=:]\s{0,3}\d{1,6}(?:\.\d{1,3})?",
    re.IGNORECASE,
)
_LONG_EXAMPLES_FIX = (
    "Batches differ in length, and the one that holds the longest examples (a long sentence, sequence or "
    "utterance) needs far more memory than the typical batch, so the run fails after some batches however "
    "many fit before: cap the length (truncate the inputs to a maximum length: max_seq_len, --truncate), or "
    "filter out the examples (utterances) that are too long before training, and batch by length (bucketing, "
    "a max-tokens or max-duration budget per batch) so that no batch holds many long ones; lower the batch "
    "size only if that is not enough."
)


def _long_examples(analysis: Analysis, tail: str) -> Analysis:
    """An out-of-memory after some batches ran, over sequences: the fix leads with capping the length."""
    if last_match(_AFTER_SOME, tail) is None or last_match(_SEQUENCES, tail) is None:
        return analysis
    evidence = ["the GPU ran out after some batches had run, over sequences: a batch of the longest examples"]
    option = last_match(_LENGTH_OPTION, tail)
    if option is not None:
        evidence.append(f"the text gives the length limit: {' '.join(option[0].split())}")
    commands = analysis.fix.commands if analysis.fix is not None else ()
    return replace(analysis, evidence=(*analysis.evidence, *evidence), fix=Fix(_LONG_EXAMPLES_FIX, commands))


# The writer names long inputs: "long audio", "large wav files", "very long sentences", "longest document".
_LONG_INPUTS = re.compile(
    r"\b(?:long|longer|lengthier|longest|large|huge|very long)\s(?:audios?|wav(?: files?)?|sentences?|"
    r"documents?|utterances?|sequences?|texts?|inputs?|prompts?|contexts?|questions?)\b"
    r"|\b(?:audio|utterance|sentence|document|input|chunk|segment)s? (?:is|are) (?:too |very )?long\b",
    re.IGNORECASE,
)
_LONG_INPUTS_FIX = (
    "One long input needs memory for its whole length at once: split long documents and audio into shorter "
    "pieces (the program's chunk option, or by hand) or truncate them to a maximum length, and skip the "
    "inputs that still do not fit. "
)


def _leading(analysis: Analysis, line: str, lever: str) -> Analysis:
    """``analysis`` with ``line`` among its evidence and its fix led by ``lever``."""
    base = analysis.fix or _OOM.fix
    return replace(analysis, evidence=(*analysis.evidence, line), fix=Fix(lever + base.text, base.commands))


def _led_by_words(analysis: Analysis, tail: str, words: re.Pattern[str], line: str, lever: str) -> Analysis:
    """``analysis`` led by ``lever`` where the writer's ``words`` are in ``tail``; ``line``, the evidence,
    holds ``{}`` for the words as written (white space made single)."""
    found = last_match(words, tail)
    if found is None:
        return analysis
    return _leading(analysis, line.format(" ".join(found[0].split())), lever)


def _long_inputs(analysis: Analysis, tail: str) -> Analysis:
    """Long inputs the writer names: the fix leads with splitting or truncating them."""
    line = "the text names long inputs ({}): one of them can fill the GPU"
    return _led_by_words(analysis, tail, _LONG_INPUTS, line, _LONG_INPUTS_FIX)


# The writer ties the failure to large images: "photos bigger than 4Mpx", "processing of larger images",
# "larger than vga resolution photos", "the image is too large"; or says small ones run ("if the input image
# is small, it is normal", "small images work").
_LARGE_IMAGES = re.compile(
    r"\b(?:large|larger|big|bigger|huge|high[- ]?res(?:olution)?)\s(?:input\s)?"
    r"(?:images?|photos?|pictures?)\b"
    r"|\b(?:images?|photos?|pictures?)\s(?:bigger|larger)\sthan\b"
    r"|\b(?:bigger|larger)\sthan\s(?:\w{1,20}\s){0,3}?(?:resolution|images?|photos?|pictures?)\b"
    r"|\b(?:input\s)?(?:image|photo|picture)s?\s(?:is|are)\s(?:too\s|very\s)?(?:large|big|huge)\b"
    r"|\b(?:image|photo|picture)s?\s(?:is|are)\ssmall(?:er)?,?\s(?:it\s(?:is|was)\s)?(?:normal|fine|ok)\b"
    r"|\bsmall(?:er)?\s(?:images?|photos?|pictures?)\s(?:work|run|are\sfine)",
    re.IGNORECASE,
)
_LARGE_IMAGES_FIX = (
    "An image's activations grow with its pixels, and the text ties the failure to large images: lower the "
    "resolution the program runs at (resize or downscale the input first, or the program's own size option: "
    "a max size, max_pixels, resolution or --max-dim setting; a smaller crop when training), or process a "
    "large image in tiles and join the outputs (the program's tile option). "
)


def _large_images(analysis: Analysis, tail: str) -> Analysis:
    """Large images the writer names: the fix leads with a lower resolution or tiles."""
    line = "the text ties the failure to the images' size ({})"
    return _led_by_words(analysis, tail, _LARGE_IMAGES, line, _LARGE_IMAGES_FIX)


# A video input: "my custom video", "the input video is only 10 seconds", "1k-2k frames".
# "video memory", "video card" and "video RAM" are the GPU's, not a video input.
_VIDEO = re.compile(
    r"\bvideos?\b(?!\s?(?:memory|card|cards|ram|mem)\b)|\b\d[\d.,k-]{0,8}\s?frames\b|\bFPS\b", re.IGNORECASE
)
_VIDEO_FIX = (
    "A video model's memory grows with the frames it takes at once and their resolution: process a shorter "
    "video or fewer frames at a time (the program's chunk, window or num_frames option; split a long video "
    "into segments and join the results) or a lower resolution (infer smaller, upsample after). "
)


def _video(analysis: Analysis, tail: str) -> Analysis:
    """A video input: the fix leads with fewer frames at a time or a lower resolution."""
    if last_match(_VIDEO, tail) is None or _TRAINING.search(tail) is not None:
        return analysis
    return _leading(analysis, "the input is a video: memory grows with its frames and resolution", _VIDEO_FIX)


# The job ran out on one GPU: the message names it ("(GPU 0; ...", "GPU 0 has a total capacity"), or the
# writer says so ("only use one GPU", "only first GPU has been utilized").
_ONE_GPU_RAN_OUT = re.compile(
    r"\(GPU \d{1,2};|\bGPU \d{1,2} has a total capac|\bon GPU \d{1,2}\b"
    r"|\bonly\s(?:uses?|utili[sz]e[sd]?|using|runs?\son|loads?\sonto)\s(?:one|a\ssingle|the\sfirst|1)\sGPU\b"
    r"|\bonly\s(?:the\s)?first\sGPU\b",
    re.IGNORECASE,
)


def _one_of_several(analysis: Analysis, tail: str) -> Analysis:
    """A machine the text says has several GPUs, and a job that ran out on one of them without being spread
    over the others: the fix leads with spreading it."""
    machine = gpus_said.machine_gpus(tail)
    if machine is None or _ONE_GPU_RAN_OUT.search(tail) is None or gpus_said.already_spread(tail):
        return analysis
    count, words = machine
    line = (
        f"the text says the machine has {count} GPUs ({words}), and the job ran out of memory on one of them"
    )
    every = ",".join(str(index) for index in range(count))
    lever = (
        f"The job runs on a single GPU of the {count} the machine has: spread it over them. Train with one "
        f"process per GPU (torchrun --nproc_per_node={count} train.py, or the program's own launcher or GPU "
        f"option, such as --gpus {every}), the batch per GPU lowered so that the total batch stays; split a "
        "model too large for one GPU over them (device_map='auto' in transformers/accelerate, or the "
        "program's model-parallel option). "
    )
    return _leading(analysis, line, lever)


_JOB_HOLDS = "this job holds "
_SHARD_FIX = (
    "Each process holds a whole copy of the model, its gradients and its optimizer state (data parallel, "
    "DeepSpeed ZeRO stage 1 or 2): shard them over the GPUs instead, DeepSpeed ZeRO stage 3 (with CPU "
    "offload where that is still short) or PyTorch FSDP (accelerate's DeepSpeed or FSDP config), so that "
    "each GPU holds its share; and lower the batch per GPU. "
)


_SHARDED_FIX = (
    "The model's state is sharded over the GPUs already (ZeRO stage 3 or FSDP), and each GPU's share is "
    "still too large: offload it to the CPU (DeepSpeed's offload_optimizer and offload_param with device "
    "cpu, FSDP's CPU offload), train fewer parameters (LoRA, or QLoRA on a 4-bit model) instead of a full "
    "fine-tune, shorten the sequences or lower the batch per GPU, or add GPUs. "
)
_OFFLOADED_FIX = (
    "The model's state is sharded over the GPUs and offloaded to the CPU already, and what stays on each GPU "
    "(the layers being computed, the activations) is still too large: train fewer parameters (LoRA, or QLoRA "
    "on a 4-bit model) instead of a full fine-tune, shorten the sequences or lower the batch per GPU "
    "(activation checkpointing), or add GPUs. "
)


_REPLICATED = "the job runs one process per GPU"
_SHARDED = "the job shards the model's state over its GPUs already"


def _over_several_gpus(analysis: Analysis) -> bool:
    """Whether the analysis found the job's model state on several GPUs: what fills each is that state, not
    another process, even at a batch of 1."""
    return any(line.startswith((_REPLICATED, _SHARDED)) for line in analysis.evidence)


def _replicated(analysis: Analysis, tail: str, figures: bool) -> Analysis:
    """A job of one process per GPU whose own memory fills the GPU (or whose message gives no figures):
    each process keeps a whole copy of the model's state, which sharding divides among the GPUs; where it is
    sharded already, what is left is offloading it or training fewer parameters."""
    fills = any(line.startswith(_JOB_HOLDS) for line in analysis.evidence)
    if figures and not fills:
        return analysis
    processes = gpus_said.replicated(tail)
    if processes is not None:
        line = f"{_REPLICATED} ({processes}), each with a whole copy of the model"
        return _leading(analysis, line, _SHARD_FIX)
    sharded = gpus_said.state_sharded(tail)
    if sharded is None:
        return analysis
    shown, offloaded = sharded
    line = f"{_SHARDED} ({shown})" + (", offloaded to the CPU" if offloaded else "")
    return _leading(analysis, line, _OFFLOADED_FIX if offloaded else _SHARDED_FIX)


# volatile=True of torch 0.3, or torch 0.4's warning that it does nothing: evaluation written for 0.3 keeps
# every graph since 0.4.
_VOLATILE = re.compile(r"volatile was removed and now has no effect|\bvolatile\s{0,2}=\s{0,2}True\b")
_VOLATILE_FIX = (
    "The code passes volatile=True (torch 0.3 and older), which does nothing since torch 0.4, so its "
    "evaluation keeps every graph: run it under with torch.no_grad(): in place of volatile=True (torch 0.4's "
    "migration guide). "
)


def _volatile(analysis: Analysis, tail: str) -> Analysis:
    """An out-of-memory in code that still passes volatile=True: the fix leads with torch.no_grad()."""
    line = "the text shows {}: volatile does nothing since torch 0.4"
    return _led_by_words(analysis, tail, _VOLATILE, line, _VOLATILE_FIX)


def _in_tiles(analysis: Analysis, tail: str) -> Analysis:
    """An image upscaled or restored at test time: the fix leads with the program's tiling option."""
    found = last_match(_RESTORES_IMAGES, tail)
    if found is None or _TRAINING.search(tail) is not None:
        return analysis
    base = analysis.fix
    commands = (
        base.commands
        if base is not None
        else ("nvidia-smi --query-compute-apps=pid,used_memory --format=csv",)
    )
    said = " ".join(found[0].split())
    return replace(
        analysis,
        evidence=(*analysis.evidence, f"the text shows an image upscaled or restored at test time ({said})"),
        fix=Fix(_TILES_FIX + ("" if base is None else " " + base.text), commands),
    )


def _analyse_oom_fix(text: str) -> Analysis:
    """:func:`_analyse_oom`, with the model's own memory among the fixes of a step that does not fit (half
    precision, quantized weights, CPU offload, a smaller model, the CPU): first when the text shows a
    pretrained model run rather than trained (inference, generation, loading a model, a low-VRAM option;
    no backward pass), after the step's levers otherwise. At inference the fix leads with what inference
    can change: the input size, the batch, the model's memory."""
    analysis = _analyse_oom(text)
    if _while_loading_found(text):
        return analysis
    if analysis.fix is not None and "gradient accumulation" not in analysis.fix.text:
        return analysis  # another holder of the GPU, fragmentation, or one tensor too large: not the model
    tail = text[-200_000:]
    phase = failure_phase(tail)
    training = _TRAINING.search(tail) is not None or phase == "training"
    inference = not training and (phase == "inference" or last_match(_AT_INFERENCE, tail) is not None)
    runs_a_model = not training and _RUNS_A_MODEL.search(tail) is not None
    commands = (
        analysis.fix.commands
        if analysis.fix is not None
        else ("nvidia-smi --query-compute-apps=pid,used_memory --format=csv",)
    )
    rest = "" if analysis.fix is None else " " + analysis.fix.text
    if inference:
        evidence = "the text says the memory ran out at inference, with no backward pass"
        text_fix = _AT_INFERENCE_FIX + rest
    elif runs_a_model:
        evidence = "the text shows a pretrained model run (generation or loading), with no backward pass"
        text_fix = _A_MODEL_FIX + rest
    elif analysis.fix is not None:
        evidence = ""
        text_fix = analysis.fix.text + " " + _MODEL_AFTER
    else:
        return analysis
    return replace(
        analysis,
        evidence=(*analysis.evidence, evidence) if evidence else analysis.evidence,
        fix=Fix(text_fix, commands),
    )


def _analyse_oom(text: str) -> Analysis:
    """Sizes of a CUDA OOM message, classified as in research/memory_bandwidth.md 1.6.

    A request larger than the GPU: no setting helps. A request below the free memory the message reports,
    with room to spare (256 MiB or 5% of the GPU): the GPU was not full by its own count (free memory in
    pieces, Windows' backing memory, a holder that left), whatever the other figures say.
    Reserved-but-unallocated at least as large as the request: the memory is there but in pieces
    (fragmentation). Free plus reserved-but-unallocated below
    the request: the GPU is really full. Total minus free minus what the job holds: memory outside the job
    (another process, a zombie). Whenever the job's own memory is most of the GPU, the step does not fit
    it, and that is said (a smaller batch among the fixes) beside any fragmentation or outside holder the
    figures also show; "most" of what the GPU leaves a process, the context and a display (up to
    CONTEXT_BYTES outside the job) set apart.
    """
    start = _OOM_START if last_match(_OOM_START, text) is not None else _FIGURES_START
    message = _last_message(start, text)
    if _while_loading_found(text):
        return _while_loading(text)
    requested = _size(r"Tried to allocate SIZE", message)
    if requested is None:
        return _oom_without_figures(message, text)
    total = _first_size(message, r"total capac\w* of SIZE", r"SIZE total capacity")
    free = _first_size(message, r"of which SIZE is free", r"SIZE free;")
    allocated = _first_size(message, r"SIZE is allocated by PyTorch", r"SIZE already allocated")
    unallocated = _unallocated(message)
    process = _size(r"this process has SIZE memory in use", message)
    evidence = [f"tried to allocate {_as_said(message, requested, r'Tried to allocate SIZE')}"]
    if total is not None:
        shown = _as_said(message, total, r"total capac\w* of SIZE", r"SIZE total capacity")
        evidence.append(f"total capacity of the GPU: {shown}")
    if free is not None:
        evidence.append(
            f"free on the GPU: {_as_said(message, free, r'of which SIZE is free', r'SIZE free;')}"
        )
    if allocated is not None:
        shown = _as_said(message, allocated, r"SIZE is allocated by PyTorch", r"SIZE already allocated")
        evidence.append(f"allocated by PyTorch: {shown}")
    if unallocated is not None:
        evidence.append(f"reserved by PyTorch but unallocated: {_gib(unallocated)}")
    quoted = _quoted_figures(message)
    if quoted:
        evidence.append(f'the message\'s figures: "{quoted}"')
    evidence += _other_processes(message, process)
    if (total is not None and requested > total) or (total is None and requested > LARGEST_GPU_BYTES):
        return _larger_than_gpu(evidence, total)
    if total is not None and allocated is not None and allocated > total:
        return _spilled(evidence, allocated, total)
    # Free memory beyond the request by more than the allocator's rounding and a sliver the GPU keeps: the
    # GPU was not full by the message's own count (the floor is that of a cache worth the name).
    room = MATERIAL_CACHE_BYTES if total is None else max(MATERIAL_CACHE_BYTES, SMALL_SHARE * total)
    if free is not None and free - requested >= room:
        return _fits_free(evidence, requested, free, total)
    held = _held_by_this_process(process, allocated, unallocated)
    outside = None
    if total is not None and free is not None and held is not None:
        outside = total - free - held
    # The job's own memory is most of what the GPU leaves a process: whatever else the figures show, the step
    # does not fit it. The CUDA context and a display (up to CONTEXT_BYTES held outside the job) are no room
    # the job could have: on a 2 GiB laptop GPU they are half of it.
    overhead = 0.0 if outside is None else min(max(outside, 0.0), CONTEXT_BYTES)
    dominates = total is not None and held is not None and held >= OWN_SHARE * (total - overhead)
    large_outside = outside is not None and total is not None and outside > max(2**30, 0.2 * total)
    if large_outside and not dominates:
        assert outside is not None and total is not None and held is not None
        return _held_outside(evidence, outside, total, held)
    # A cache below a few percent of the GPU (and under 256 MiB) is too small to matter: the GPU is full,
    # whatever the sizes of the cache's blocks (research/memory_bandwidth.md 1.4: the same floor as
    # gpu.fragmentation's).
    material = unallocated is not None and (
        total is None or unallocated >= min(MATERIAL_CACHE_BYTES, SMALL_SHARE * total)
    )
    full = not material
    together = (
        material
        and free is not None
        and unallocated is not None
        and unallocated < requested
        and free < requested <= free + unallocated
    )
    fragmented = (material and unallocated is not None and unallocated >= requested) or together
    if together:
        assert free is not None and unallocated is not None
        evidence.append(f"free ({_gib(free)}) and cached ({_gib(unallocated)}) memory together would fit it")
    if free is not None and unallocated is not None and free + unallocated < requested:
        evidence.append("exhaustion: free memory plus the allocator's cache is less than the request")
    if dominates and (fragmented or large_outside):
        assert total is not None and held is not None
        figures = Figures(requested, total, held, allocated, unallocated, outside if large_outside else None)
        return _on_small_gpu(
            _does_not_fit(evidence, message, figures, fragmented=fragmented, together=together), total
        )
    if fragmented:
        return _on_small_gpu(_fragmented(evidence, message, together=together), total)
    if total is not None and requested >= LARGE_REQUEST_SHARE * total:
        return _on_small_gpu(_large_request(evidence, requested, total), total)
    if (
        total is not None
        and held is not None
        and free is not None
        and (full or free + (unallocated or 0) < requested)
    ):
        return _on_small_gpu(_exhausted(evidence, total, held), total)
    return _on_small_gpu(Analysis(evidence=tuple(evidence)), total)


LARGEST_GPU_BYTES = 192 * 10**9
"""The most memory one GPU has (AMD Instinct MI300X and NVIDIA B200: 192 GB): a request above it fits none."""
LARGE_REQUEST_SHARE = 0.25
"""A single request of at least this share of the GPU is one tensor too large for it, not a full GPU."""
SMALL_SHARE = 0.05
MATERIAL_CACHE_BYTES = 256 * 2**20
"""A cache of unallocated memory below this share of the GPU and this size is no fragmentation worth the
name."""
OWN_SHARE = 0.5
"""When what the job itself holds (PyTorch's reserved memory, or this process's) is at least this share of
the GPU, the step does not fit the GPU, whatever fragmentation or other holders the figures also show: the
fix always includes a smaller step."""
CONTEXT_BYTES = 2**30
"""Memory held outside the job up to this much is what any process on the GPU pays (its CUDA context, a few
hundred MiB to over 1 GiB with cuDNN and cuBLAS loaded) and a display on a desktop or laptop GPU: the job's
share is weighed against what is left."""
FRAGMENTATION_FIRST = 0.5
"""Reserved-but-unallocated memory of at least this share of the allocated memory (torch's own hint:
"reserved memory is >> allocated memory") makes fragmentation the more likely reading of the two; so does a
cache that could serve the request CACHE_MANY_TIMES over and is at least CACHE_SHARE of the GPU."""
CACHE_MANY_TIMES = 4
CACHE_SHARE = 0.1
SMALL_GPU_BYTES = 4.1 * 2**30
"""A GPU of at most this much memory (4 GB cards report 3.8 to 4.0 GiB, 2 GB cards 1.95 to 2.00 GiB) is
smaller than many models need at all, whatever the settings: the threads on such cards were answered with the
program's minimum GPU memory, or ran it on a larger GPU."""


def _on_small_gpu(analysis: Analysis, total: float | None) -> Analysis:
    """A reading of the step's own memory on a GPU of SMALL_GPU_BYTES or less, with the GPU's size said."""
    if total is None or total > SMALL_GPU_BYTES:
        return analysis
    small = (
        f"This GPU is small ({_gib(total)} in all): many models need more GPU memory than it has at all, so "
        "not enough GPU memory may be the whole answer; compare the program's stated minimum GPU memory."
    )
    larger = (
        f"Where the program needs more than this GPU's {_gib(total)} (its stated minimum, the GPU its "
        "authors used), run it on a GPU with more memory, or on the CPU."
    )
    cause, fix = analysis.cause or _OOM.cause, analysis.fix or _OOM.fix
    return replace(
        analysis,
        evidence=(*analysis.evidence, f"a small GPU: {_gib(total)} in all"),
        cause=f"{cause} {small}",
        fix=Fix(f"{fix.text} {larger}", fix.commands),
    )


@dataclass(frozen=True)
class Figures:
    """The figures of one OOM message that its two readings (fragmentation, a step too large) weigh."""

    requested: float
    total: float
    held: float
    allocated: float | None
    unallocated: float | None
    outside: float | None


_SMALLER_STEP = (
    "Make the step fit the GPU: lower the batch size (gradient accumulation keeps the effective batch) or "
    f"the input size ({_INPUT_SIZE}), use mixed precision (torch.autocast) and gradient checkpointing; or "
    "use a larger GPU (more GPU memory)."
)


def _does_not_fit(
    evidence: list[str], message: str, figures: Figures, *, fragmented: bool, together: bool
) -> Analysis:
    """The job's own memory is most of the GPU: the step needs more than the GPU has. Fragmentation, when
    the cache could also have served the request, is said beside it (first when the cache is large beside
    what is allocated), and memory held outside the job is named with how to find who holds it."""
    f = figures
    lines = [f"{_JOB_HOLDS}{_gib(f.held)} of the GPU's {_gib(f.total)}: its own memory is most of the GPU"]
    fit = (
        f"the step needs more memory than the GPU has ({_NOT_ENOUGH}): this job itself holds "
        f"{_gib(f.held)} of {_gib(f.total)}, and the batch with its activations (or the model and optimizer "
        "state) does not fit beside it"
    )
    frag_first = False
    frag = ""
    if fragmented and f.unallocated is not None:
        lines.append("fragmentation: the cached free memory would fit the request, but not in one block")
        # Free and cached memory that only together fit the request are fragmentation by the arithmetic
        # (expandable segments join them); a cache that alone fits it is slack the step outgrew unless it is
        # large beside what is allocated or beside the request.
        frag_first = (
            together
            or (f.allocated is not None and f.unallocated >= FRAGMENTATION_FIRST * f.allocated)
            or f.unallocated >= max(CACHE_MANY_TIMES * f.requested, CACHE_SHARE * f.total)
        )
        frag = (
            f"the memory is fragmented: PyTorch's caching allocator held {_gib(f.unallocated)} reserved but "
            f"unallocated{', with the free memory,' if together else ''} enough for the "
            f"{_gib(f.requested)} request, in blocks too small to serve it"
        )
    readings = [frag, fit] if frag_first else [fit, frag]
    readings = [r for r in readings if r]
    if len(readings) == 2:
        cause = f"Two readings fit these figures, the first more likely: {readings[0]}; or {readings[1]}."
    else:
        cause = readings[0][0].upper() + readings[0][1:] + "."
    commands: tuple[str, ...] = ()
    fixes = [_SMALLER_STEP]
    if f.requested >= LARGE_REQUEST_SHARE * f.total:
        share = f"{f.requested / f.total:.0%}"
        lines.append(f"one request is {share} of the GPU's {_gib(f.total)}")
        fixes.append(f"That one request is {share} of the GPU: {_IN_PIECES}.")
    if frag:
        frag_fix = _fragmentation_fix(message)
        against = "Against the fragmentation: " + frag_fix.text[0].lower() + frag_fix.text[1:]
        fixes.insert(0 if frag_first else 1, against)
        commands += frag_fix.commands
    if f.outside is not None:
        lines.append(
            f"held outside this job: {_gib(f.outside)} of {_gib(f.total)} (total - free - the "
            f"{_gib(f.held)} this process holds)"
        )
        cause += (
            f" Besides, {_gib(f.outside)} of the GPU is held outside PyTorch's allocator: the CUDA context "
            "(a few hundred MiB to over 1 GiB) and a display on a desktop GPU count there; more than that is "
            "another process or a zombie of an earlier run."
        )
        fixes.append(
            "nvidia-smi lists the processes on the GPU: kill one that should not be there, or use a free GPU."
        )
        commands += ("nvidia-smi --query-compute-apps=pid,used_memory --format=csv",)
    return Analysis(
        evidence=(*evidence, *lines),
        cause=cause,
        check="gpu.fragmentation" if frag_first else "gpu.memory",
        fix=Fix(" ".join(fixes), commands),
    )


# Attention that does not hold the sequence x sequence matrix: what a program calls, and what a transformers
# model is loaded with.
_EFFICIENT_ATTENTION = (
    "memory-efficient attention: FlashAttention (pip install flash-attn; attn_implementation="
    '"flash_attention_2" when a transformers model is loaded) or '
    'torch.nn.functional.scaled_dot_product_attention (attn_implementation="sdpa"), not an eager attention '
    "that holds the whole sequence x sequence matrix"
)


def _large_request(evidence: list[str], requested: float, total: float) -> Analysis:
    share = requested / total
    return Analysis(
        evidence=(*evidence, f"one request is {share:.0%} of the GPU's {_gib(total)}"),
        cause=f"A single allocation of {_gib(requested)} asks for {share:.0%} of the GPU: one tensor of the "
        "computation (an activation of a large batch, image or sequence, or an attention matrix) is too "
        "large for this GPU, more memory than the step can get beside the model.",
        fix=Fix(
            f"Make that one operation smaller: a smaller input ({_INPUT_SIZE}) or batch size, or "
            f"{_IN_PIECES}; for attention, {_EFFICIENT_ATTENTION}."
        ),
    )


def _exhausted(evidence: list[str], total: float, held: float) -> Analysis:
    return Analysis(
        evidence=(*evidence, f"{_JOB_HOLDS}{_gib(held)} of the GPU's {_gib(total)}: the GPU is full"),
        cause=f"The job itself fills the GPU: it holds {_gib(held)} of {_gib(total)}, and the step needs "
        f"more memory than the GPU has left ({_NOT_ENOUGH}: the batch, the activations, the model or the "
        "optimizer state are too large for this GPU).",
        fix=Fix(
            "Lower the batch size (with gradient accumulation to keep the effective batch) or the input size "
            f"({_INPUT_SIZE}), use mixed precision and activation checkpointing, or a larger GPU (more GPU "
            "memory).",
        ),
    )


def _held_by_this_process(
    process: float | None, allocated: float | None, unallocated: float | None
) -> float | None:
    """What this process holds on the GPU: stated (2.x, its CUDA context included), or what PyTorch
    reserved (allocated plus cached; the context, a few hundred MiB, then counts as outside)."""
    if process is not None:
        return process
    if allocated is not None and unallocated is not None:
        return allocated + unallocated
    return None


def _fits_free(evidence: list[str], requested: float, free: float, total: float | None) -> Analysis:
    """The request is well below what the message itself reports free: the GPU was not full by its own
    count, so neither this job's memory nor another holder's explains the failure by the figures."""
    share = "" if total is None else f", {requested / total:.0%} of the GPU's {_gib(total)}"
    return Analysis(
        evidence=(
            *evidence,
            f"the request ({_gib(requested)}{share}) is well below the free memory ({_gib(free)})",
        ),
        cause=f"The request fits the {_gib(free)} the message reports free, so the GPU was not full by its "
        "own count: the allocation failed because the free memory is not in one piece as large as the "
        f"{_gib(requested)} asked for (split by the driver's, the display's or another process's "
        "allocations, most often on a small GPU that also drives a desktop), because Windows could not back "
        "it with system memory (RAM and page file full), or because another process released memory between "
        "the failure and the message.",
        check="gpu.memory",
        fix=Fix(
            "Leave the GPU room to spare rather than relying on its last free piece: smaller allocations (a "
            "smaller batch or input, half precision, a smaller model) or a larger GPU (more GPU memory); on "
            "Windows close other programs that use the GPU and make sure RAM and the page file have room; "
            "watch nvidia-smi while the job runs for another process on the GPU.",
            ("nvidia-smi --query-compute-apps=pid,used_memory --format=csv",),
        ),
    )


def _held_outside(evidence: list[str], outside: float, total: float, held: float) -> Analysis:
    return Analysis(
        evidence=(
            *evidence,
            f"held outside this job: {_gib(outside)} of {_gib(total)} (total - free - the {_gib(held)} "
            "this process holds)",
        ),
        cause=f"Most of the GPU is taken by something other than this job: {_gib(outside)} of "
        f"{_gib(total)} is held outside it (another process on the same GPU, or a zombie of an earlier run "
        "that never exited), while this job holds only "
        f"{_gib(held)}.",
        check="gpu.memory",
        fix=Fix(
            "Find what holds the GPU (nvidia-smi lists each process with its pid) and kill it (a finished "
            "notebook kernel, an earlier run still alive, a zombie; kill <pid>, or restart the machine), "
            "ask the user whose job it is, or run this job on another GPU (CUDA_VISIBLE_DEVICES).",
            ("nvidia-smi --query-compute-apps=pid,used_memory --format=csv",),
        ),
    )


def _spilled(evidence: list[str], allocated: float, total: float) -> Analysis:
    return Analysis(
        evidence=(
            *evidence,
            f"PyTorch has allocated {_gib(allocated)}, more than the GPU's {_gib(total)}: the driver lent it "
            "system memory",
        ),
        cause="The job needs more memory than the GPU has: it already spilled past the GPU into system "
        "memory (Windows' CUDA sysmem fallback, or unified memory), slowly, and then ran out of that too.",
        fix=Fix(
            "Make the job fit the GPU: a smaller batch (gradient accumulation keeps the effective batch), "
            "mixed precision, activation checkpointing; or use a larger GPU (more GPU memory)."
        ),
    )


def _other_processes(message: str, process: float | None) -> list[str]:
    """The processes the message lists on the GPU, with which one is this job: the one whose figure is what
    "this process has" says."""
    others = re.findall(rf"Process (\d+) has {_SIZE} memory in use", message, re.IGNORECASE)
    if len(others) < 2:
        return []
    sizes = [(pid, _bytes(n, u)) for pid, n, u in others]
    job = None
    if process is not None:
        matching = [pid for pid, size in sizes if abs(size - process) <= 0.01 * 2**30]
        job = matching[0] if len(matching) == 1 else None
    in_use = ", ".join(f"pid {pid}: {_gib(size)}{' (this job)' if pid == job else ''}" for pid, size in sizes)
    line = f"{len(others)} processes hold memory on this GPU ({in_use})"
    if job is not None:
        held = sum(size for pid, size in sizes if pid != job)
        line += f"; the others hold {_gib(held)}"
    return [line]


def _larger_than_gpu(evidence: list[str], total: float | None) -> Analysis:
    whole = "the whole GPU" if total is not None else "the memory of any GPU (192 GB at the most)"
    return Analysis(
        evidence=(*evidence, f"one request is larger than {whole}"),
        cause="A single allocation asks for more memory than the GPU has: one tensor of the computation "
        "is too large, whatever else is on the GPU. Most often the input is too large for one pass (an "
        "image's resolution, an audio's or a sequence's length, a video's frames: the memory grows with "
        "it), or the batch, or an attention matrix over it.",
        fix=Fix(
            f"Make that one operation smaller: a smaller batch or input ({_INPUT_SIZE}), or {_IN_PIECES}; "
            f"for attention, {_EFFICIENT_ATTENTION}."
        ),
    )


def _fragmented(evidence: list[str], message: str, together: bool = False) -> Analysis:
    held = (
        "held, with what the GPU had free, enough memory for the request, but neither alone and in "
        "blocks too small to serve it"
        if together
        else "held enough free memory for the request, split in blocks too small to serve it"
    )
    return Analysis(
        evidence=(
            *evidence,
            "fragmentation: the cached free memory would fit the request, but not in one block",
        ),
        cause=f"The GPU ran out of memory while PyTorch's caching allocator {held}: the memory is "
        "fragmented.",
        check="gpu.fragmentation",
        fix=_fragmentation_fix(message),
    )


# expandable_segments came with torch 2.1: merged in April 2023 (pytorch/pytorch PR #96995; PR #100184,
# 2023-04-27, enables it in Meta's build "now that expandable_segments has been merged from OSS"), after
# torch 2.0 was released (2023-03-15). The message's wording "is reserved by PyTorch but unallocated" came
# with the same allocator (torch 2.1's "total capacty ... max_split_size_mb" form already has it, see
# research/memory_bandwidth.md 1.6), and torch.OutOfMemoryError is a later name of torch.cuda's error.
_HAS_EXPANDABLE = re.compile(
    r"is reserved by PyTorch but unallocated|torch\.OutOfMemoryError|PYTORCH_ALLOC_CONF", re.IGNORECASE
)


def _fragmentation_fix(message: str) -> Fix:
    """The allocator setting the message's own torch release offers: named by its hint, or read from its
    wording when the hint is cut off (a pasted text often ends in "...")."""
    named = "max_split_size_mb" in message and "expandable_segments" not in message
    if not named and ("expandable_segments" in message or _HAS_EXPANDABLE.search(message)):
        variable = "PYTORCH_ALLOC_CONF" if "PYTORCH_ALLOC_CONF" in message else "PYTORCH_CUDA_ALLOC_CONF"
        return Fix(
            "Let the allocator grow segments instead of splitting them "
            f"({variable}=expandable_segments:True, set before the first CUDA call), or free cached "
            "blocks between phases with torch.cuda.empty_cache().",
            (f"export {variable}=expandable_segments:True",),
        )
    if named:
        return Fix(
            "Stop the allocator from splitting large blocks (PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128, "
            "set before the first CUDA call), and free cached blocks between phases (after validation, "
            "before a differently shaped step) with torch.cuda.empty_cache(); torch 2.1 and later offer "
            "expandable_segments:True instead, which usually works better.",
            ("export PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128",),
        )
    # Only the older wordings are left ("reserved in total by PyTorch", "cached)"): torch 2.0 or older.
    return Fix(
        "This message's wording is that of torch 2.0 or older, which has no expandable_segments: stop "
        "the allocator from splitting large blocks (PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128, torch "
        "1.10 and later), free cached blocks between phases with torch.cuda.empty_cache(), or upgrade "
        "torch for PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.",
    )


# torch.load restoring a checkpoint's CUDA tensors onto the GPU they were saved from: its frames in the
# traceback (serialization.py's restore_location, _cuda_deserialize), or the call named beside the error.
_LOADING_FRAMES = re.compile(r"_cuda_deserialize|default_restore_location|restore_location\(")
_OOM_WORDS = re.compile(r"out of memory", re.IGNORECASE)


# The writer's words: the GPU ran out while a checkpoint or a model's weights were loaded ("OOM issues when
# restoring checkpoint", "out of GPU memory issue when loading checkpoints", "OOM errors when fork-reloading
# model weights", "out of memory at checkpoint loading").
_LOADING_SAID = re.compile(
    r"\b(?:OOM|out of (?:GPU |CUDA |video )?memory)\b[^\n]{0,60}?\b(?:when|while|during|at|in|on|after)\b"
    r"[^\n]{0,30}?(?:\b(?:re)?(?:load|loads|loading|restore|restoring|resume|resuming)\b[^\n]{0,30}?"
    r"\b(?:checkpoints?|ckpts?|weights|state[_ ]dicts?|models?)\b"
    r"|\b(?:model|checkpoint|ckpt|weights?)[ _-](?:loading|load)\b)",
    re.IGNORECASE,
)


def _while_loading_found(text: str) -> bool:
    if _LOADING_FRAMES.search(text) is not None or _LOADING_SAID.search(text[-200_000:]) is not None:
        return True
    oom = last_match(_OOM_WORDS, text)
    if oom is None:
        return False
    window = text[max(0, oom.start() - 400) : oom.end() + 400]
    return "torch.load(" in window


def _while_loading(text: str) -> Analysis:
    mapped = re.search(r"map_location\s*=", text) is not None
    said = _LOADING_SAID.search(text[-200_000:])
    where = (
        "the memory ran out inside torch.load"
        if said is None or _LOADING_FRAMES.search(text) is not None or "torch.load(" in text
        else f"the text says the memory ran out while loading ({' '.join(said[0].split())})"
    )
    return Analysis(
        evidence=(
            where + (" (the text shows a map_location)" if mapped else ", with no map_location shown"),
        ),
        cause="torch.load puts a checkpoint's CUDA tensors back on the GPU they were saved from before "
        "anything else happens: that GPU was full (another job on it, or this job's own model already "
        "there), even when the program means to run on the CPU or another GPU.",
        fix=Fix(
            "Load onto the CPU and move what is needed afterwards: torch.load(path, map_location='cpu'), "
            "then model.load_state_dict(...) and model.to(device); or map_location=device for the GPU the "
            "job uses."
        ),
    )


# THC's wording (torch 0.4 to 1.x): "cuda runtime error (2) : out of memory at .../THC/...", "THCudaCheck FAIL
# ... error=2 : out of memory". Every out-of-memory of that generation reads so, the caching allocator's
# own included: no figure was ever printed.
_THC_OOM = re.compile(r"runtime error \(2\)|error=2\b|THCudaCheck|/THC/|\bTHC\w{0,30}\.cu", re.IGNORECASE)
# The GPU's memory as the writer gives it beside the GPU ("a 1080 with 8Gb", "GTX 1050 TI 4GB", "940mx(2gb)",
# "my gpu is 3060 with 6GB memory", "11GB of VRAM", "an A6000 with 48 GB memory"), or before it ("an 8 GB
# GPU", "a 16G GPU", "a TitanX 12gb GPU", "a 24GB card"); not the machine's RAM ("16GB RAM", "32 GB DDR4").
_GPU_MEMORY_SAID = re.compile(
    r"(?:\b(?:GPU|card|GTX|RTX|Tesla|Titan|Quadro)\b|显卡|\b\d{3,4}(?:\s?Ti|[a-z]{1,2})?\b|\b[AHKLPTV]\d{1,4}\b)"
    r"[^\n.;]{0,25}?"
    r"(\d{1,3}(?:\.\d{1,2})?\s?(?:GB|GiB|Gb|gb|G)\b)"
    r"(?!\s?(?:of\s)?(?:system\s)?(?:RAM|DDR|disk|SSD|drive|HDD|storage|内存))"
    r"|\b(\d{1,3}(?:\.\d{1,2})?\s?(?:GB|GiB|Gb|G))[ \t]?(?:of\s|的)?"
    r"(?:VRAM|GPU memory|graphics? memory|video memory|显存|显卡"
    r"|(?:NVIDIA\s)?(?:GPU|graphics card|video card|card)s?\b)",
    # ASCII word boundaries: in Chinese text a figure or a GPU's name touches the characters around it
    # ("一张16GB的V100", "RTX3090（24GB显存）"), which Unicode \b counts as letters
    re.IGNORECASE | re.ASCII,
)


# The GPU's model and memory written together, either way round ("Tesla T4 (16GB)", "32GB V100", "V100-32G",
# "RTX 3060 12GB"): the figure a writer gives of the card that ran out, quoted as written. A model is letters
# glued to a number (V100, A6000, T4, RTX3090) or a GeForce brand and its number (RTX 3060, GTX 1080 Ti).
_GPU_MODEL = (
    r"(?:(?:Tesla|GeForce|NVIDIA|Quadro|TITAN)[ -])?"
    r"(?:(?:RTX|GTX)[ -]\d{3,4}(?: ?Ti)?|(?!cu\d|py\d|sm\d)[A-Z]{1,3}\d{1,4}(?: ?Ti)?)"
)
_GPU_SIZE = r"\d{1,3}(?:\.\d{1,2})?[ ]?(?:GB|GiB|G)(?![A-Za-z0-9])"
_GPU_NAMED_WITH_MEMORY = re.compile(
    rf"(?<![A-Za-z0-9_.-])(?:{_GPU_MODEL}[ -]?\(?{_GPU_SIZE}|{_GPU_SIZE}[ ]?{_GPU_MODEL}(?![A-Za-z0-9]))",
    re.IGNORECASE | re.ASCII,
)


# device_map="auto" (or "balanced", "sequential") in the text: accelerate placing the model's layers.
_DEVICE_MAP_AUTO = re.compile(
    r"""device_map\s{0,3}=\s{0,3}["']?(?:auto|balanced|sequential)\b""", re.IGNORECASE
)


def analyse_meta_weights(text: str) -> Analysis:
    """The device_map and the GPU's memory the text gives."""
    tail = text[-200_000:]
    evidence = []
    device_map = last_match(_DEVICE_MAP_AUTO, tail)
    if device_map is not None:
        evidence.append(
            f"the text loads with {' '.join(device_map[0].split())}: accelerate offloads what does not fit"
        )
    memory = gpu_named_with_memory(tail) or gpu_memory_said(tail)
    if memory is not None:
        evidence.append(f"the text gives the GPU's memory: {memory}")
    return Analysis(evidence=tuple(evidence))


def gpu_named_with_memory(text: str) -> str | None:
    """The GPU's model with its memory as the writer wrote them together ("V100-32G"); None where none."""
    found = _GPU_NAMED_WITH_MEMORY.search(text[:100_000])
    if found is None:
        return None
    said = " ".join(found[0].split())
    return said + ")" if "(" in said else said


# The GPU's memory under its own label, as a machine is listed line by line ("VRam: 6gb", "Video memory: 6144
# MB", "显存：24G"): it wins over any figure near a GPU's name, which may be the RAM line's.
_VRAM_LABELLED = re.compile(
    r"(?:\b(?:VRAM|video memory|graphics? memory|GPU memory)|显存)"
    r"[ \t]{0,3}[:：=-]?[ \t]{0,3}(\d{1,3}(?:\.\d{1,2})?[ \t]?(?:GB|GiB|Gb|G)\b|\d{3,6}[ \t]?MB\b)",
    re.IGNORECASE | re.ASCII,
)


# "a GPU with 11GB RAM": after "GPU with", RAM is the GPU's own memory ("No GPU with 8GB RAM" is a machine
# without one).
_GPU_WITH_RAM = re.compile(
    r"(?<!\bno )\b(?:GPU|graphics card|video card)s? with (\d{1,3}(?:\.\d{1,2})?\s?(?:GB|GiB|Gb|gb|G))"
    r"\s?(?:of\s)?(?:RAM|memory)\b",
    re.IGNORECASE | re.ASCII,
)


def gpu_memory_said(text: str) -> str | None:
    """The GPU's memory as the text's writer states it, as written ("8Gb"); None where it states none."""
    head = text[:100_000]
    labelled = _VRAM_LABELLED.search(head)
    if labelled is not None and labelled[1] is not None:
        return " ".join(labelled[1].split())
    with_ram = _GPU_WITH_RAM.search(head)
    if with_ram is not None:
        return " ".join(with_ram[1].split())
    found = _GPU_MEMORY_SAID.search(head)
    return None if found is None else " ".join((found[1] or found[2]).split())


def _oom_without_figures(message: str, text: str) -> Analysis:
    said = gpu_memory_said(text)
    if _THC_OOM.search(message):
        evidence = [
            "the message has no figures: it is the THC wording of torch 0.4 to 1.x, which every "
            "out-of-memory of that generation has (the caching allocator's own included)"
        ]
    elif re.search(r"CUDA error: out of memory", message, re.IGNORECASE):
        evidence = [
            "the message has no figures: a CUDA call outside PyTorch's caching allocator failed (the "
            "CUDA context, a cuBLAS or cuDNN workspace, an extension's own allocation)"
        ]
    elif said is None:
        return Analysis()
    else:
        evidence = []
    if said is None:
        return Analysis(evidence=tuple(evidence))
    return Analysis(
        evidence=(*evidence, f"the text says the GPU has {said}"),
        cause=f"Not enough GPU memory: the step needs more memory than the GPU's {said} holds: the model, "
        "its optimizer state and the batch with its activations (at this input size) do not fit together, "
        "or other processes hold part of it.",
        fix=Fix(
            f"Make the step fit {said}: lower the batch size (gradient accumulation keeps the effective "
            f"batch) or the input size ({_INPUT_SIZE}), use mixed precision and activation "
            "checkpointing or a smaller model; or use a larger GPU (more GPU memory). nvidia-smi shows "
            "whether another process holds part of it.",
            ("nvidia-smi --query-compute-apps=pid,used_memory --format=csv",),
        ),
    )


# nvidia-smi's memory column as the writer quotes it: "17323MiB / 24259MiB".
_USAGE_SAID = re.compile(r"\b(\d{1,6})\s?MiB\s{0,4}/\s{0,4}(\d{1,6})\s?MiB\b")
_STOPPED_BY = re.compile(
    r"\bCtrl\s?[-+]?\s?C\b|\bKeyboardInterrupt\b|\binterrupt(?:ed)?\b|\bkill(?:ed)?\b|\bcrash(?:ed)?\b",
    re.IGNORECASE,
)
_DISTRIBUTED_RUN = re.compile(
    r"\btorchrun\b|torch\.distributed\.launch|dist_train\w{0,10}|--nproc_per_node|\bmulti-?GPU\b",
    re.IGNORECASE,
)


def analyse_not_released(text: str) -> Analysis:
    """What the writer shows of the memory held after the run stopped: nvidia-smi's figure, how the run was
    stopped, and a distributed launch (whose other ranks outlive the one that was stopped)."""
    evidence: list[str] = []
    window = text[:200_000]
    # the fullest GPU of those the text shows (an nvidia-smi table has a row per GPU)
    shown = [
        (int(found[1]) / int(found[2]), " ".join(found[0].split()))
        for found in itertools.islice(_USAGE_SAID.finditer(window), 64)
        if 0 < int(found[1]) <= int(found[2])
    ]
    if shown:
        share, figure = max(shown)
        evidence.append(f"nvidia-smi shows {figure} in use ({share:.0%} of the GPU) with the run stopped")
    stopped = _STOPPED_BY.search(window)
    if stopped is not None:
        evidence.append(f"the run was stopped ({stopped[0]}), and its memory stayed held")
    if _DISTRIBUTED_RUN.search(window) is not None:
        evidence.append(
            "the run was a distributed launch: its other processes (one per rank) outlive the one stopped"
        )
    return Analysis(evidence=tuple(evidence))


def analyse_mps_oom(text: str) -> Analysis:
    """The figures of the MPS allocator's message (aten/src/ATen/mps/MPSAllocator.mm): MPS allocated is
    what tensors use, other allocations the rest of this process's Metal memory (the allocator's cache
    among it), max allowed the high-watermark limit (PYTORCH_MPS_HIGH_WATERMARK_RATIO times the device's
    recommended working set)."""
    found = last_match(_MPS_OOM, text)
    if found is None:
        return Analysis()
    allocated, other, limit, requested = (_bytes(found[i], found[i + 1]) for i in (1, 3, 5, 7))
    sizes = [f"{found[i]} {found[i + 1]}" for i in (1, 3, 5, 7)]
    evidence = [
        f"tensors: {sizes[0]}, other Metal allocations: {sizes[1]}, limit: {sizes[2]}, request: {sizes[3]}"
    ]
    if allocated + other + requested <= limit:
        return Analysis(
            evidence=(*evidence, "below the limit: Metal itself refused the allocation"),
            cause="The allocation stayed under PyTorch's limit, so Metal refused it: the machine has no "
            "memory left for the GPU (other applications, swap pressure) or gives this process little GPU "
            "memory at all (a virtual machine or a CI runner).",
            fix=Fix(
                "Close other memory-hungry applications, or run where the GPU has memory (a virtual macOS "
                "runner often has almost none); on such machines run on the CPU."
            ),
        )
    if requested > limit:
        return Analysis(evidence=(*evidence, "one request is larger than the whole limit"))
    if other > allocated:
        return Analysis(
            evidence=(*evidence, "other allocations exceed the tensors: cached or non-tensor Metal memory"),
            fix=Fix(
                "Most of the memory is not held by tensors: return the allocator's cache with "
                "torch.mps.empty_cache() between phases, and lower the batch size; raising the limit "
                "(PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0) risks the whole system swapping or freezing."
            ),
        )
    return Analysis(evidence=(*evidence, "the tensors themselves fill the limit"))


_CUBLAS_STATUSES = catalogue_file.cases(__package__, "cublas.status_error")


# The words of THC, torch 1.x's older CUDA code (__THCublasCheck in THCGeneral.cpp), for each cuBLAS status.
_THC_CUBLAS = {
    "library not initialized": "NOT_INITIALIZED",
    "resource allocation failed": "ALLOC_FAILED",
    "an invalid numeric value was used as an argument": "INVALID_VALUE",
    "an absent device architectural feature is required": "ARCH_MISMATCH",
    "an access to gpu memory space failed": "MAPPING_ERROR",
    "the gpu program failed to execute": "EXECUTION_FAILED",
    "an internal operation failed": "INTERNAL_ERROR",
}
_THC_CUBLAS_SAID = re.compile(r"cublas runtime error ?: ?(" + "|".join(_THC_CUBLAS) + ")", re.IGNORECASE)


def _cublas_status(text: str) -> tuple[str, str] | None:
    """The last cuBLAS status in ``text`` and how the text words it: CUBLAS_STATUS_<word>, or THC's words."""
    named = last_match(_CUBLAS, text)
    worded = last_match(_THC_CUBLAS_SAID, text)
    if worded is not None and (named is None or worded.start() > named.start()):
        status = _THC_CUBLAS[worded[1].lower()]
        return (
            status,
            f"'{worded[0]}' is CUBLAS_STATUS_{status} in the words of THC, torch 1.x's older CUDA code",
        )
    if named is None:
        return None
    return named[1].upper(), f"CUBLAS_STATUS_{named[1].upper()}"


def analyse_cublas(text: str) -> Analysis:
    found = _cublas_status(text)
    if found is None:
        return Analysis()
    status, worded = found
    analysis = _status_analysis(_CUBLAS_STATUSES, status, worded, text)
    if status != "INVALID_VALUE":
        return analysis
    tail = text[-200_000:]
    said = [
        " ".join(m[0].split()) for m in (last_match(_TORCH_SAID, tail), last_match(_CUDA_SAID, tail)) if m
    ]
    if not said:
        return analysis
    return analysis.with_evidence(f"the text gives {' and '.join(said)}: the torch and CUDA to match")


# A CUDA release as the writer gives it: "CUDA11.3", "cuda 11.3", "CUDA Version: 11.4".
_CUDA_SAID = re.compile(r"\bCUDA(?:[ _]?version)?[ :]{0,3}1\d\.\d\b", re.IGNORECASE)


_CUDNN_STATUSES = catalogue_file.cases(__package__, "cudnn.status_error")


def analyse_cudnn(text: str) -> Analysis:
    found = _CUDNN.findall(text)
    if not found:
        return Analysis()
    status, algorithm = found[-1]
    key = "ALGORITHM" if algorithm else status.upper()
    evidence = "no cuDNN algorithm could run" if algorithm else f"CUDNN_STATUS_{key}"
    analysis = _status_analysis(_CUDNN_STATUSES, key, evidence, text)
    said = last_match(_TORCH_SAID, text[-200_000:]) if key == "EXECUTION_FAILED" else None
    if said is None:
        return analysis
    line = f"the text gives the torch release: {' '.join(said[0].split())}"
    return analysis.with_evidence(line)


# The torch release as the writer gives it: "pytorch: 1.5.1+cu101", "pytorch:0.3.0", "torch==2.1.0".
_TORCH_SAID = re.compile(
    r"\b(?:py)?torch(?:[ _]version)?\s{0,3}(?:==|=|:|：|\s)\s{0,3}"
    r"v?\d{1,2}\.\d{1,2}(?:\.\d{1,2})?(?:\+cu\d{2,3})?",
    re.IGNORECASE,
)


def _status_analysis(statuses: tuple[Case, ...], status: str, evidence: str, text: str = "") -> Analysis:
    """The analysis of the case whose pattern is the whole ``status``; the evidence alone without one. A
    status that is the GPU out of memory (its case checks gpu.memory) quotes the batch size the text gives,
    as an out-of-memory does."""
    case = next((c for c in statuses if c.compiled.fullmatch(status)), None)
    if case is None:
        return Analysis(evidence=(evidence,))
    analysis = case.analysis(evidence)
    said = batch_said(text) if analysis.check == "gpu.memory" else None
    if said is None:
        return analysis
    line = f"the text gives the batch size: {said}"
    return analysis.with_evidence(line)


# The kernel's line for the process it killed: for the machine or a memory cgroup (a container), with the
# resident memory it freed ("anon-rss:31451456kB"; some kernels group the digits with commas).
_KERNEL_KILL = re.compile(
    r"(Memory cgroup out of memory|Out of memory): Kill(?:ed)? process (\d{1,10}) \(([^)\n]{1,64})\)"
    r"(?:[^\n]{0,200}?anon-rss:\s?([\d,]{1,16})\s?kB)?",
    re.IGNORECASE,
)
_WORKER_KILLED = re.compile(
    r"DataLoader worker (?:\(pids?\(?s?\)? ?[\d., ]{0,40}\) )?is killed by signal: Killed", re.IGNORECASE
)
_SIGKILL_REPORTED = (
    (
        re.compile(r"exitcode\s{0,2}:\s{0,2}-9\b|signal 9 \(SIGKILL\) received by PID", re.I),
        "torchrun's exitcode -9",
    ),
    (re.compile(r"return code = -9\b", re.I), "a launcher's return code -9"),
    (re.compile(r"exit code 137\b", re.I), "exit code 137"),
    (re.compile(r"<Signals\.SIGKILL: 9>", re.I), "<Signals.SIGKILL: 9>"),
    (re.compile(r"terminated with signal SIGKILL|signal 9\s{0,2}:\s{0,2}SIGKILL", re.I), "signal 9, SIGKILL"),
    (re.compile(r"(?m)^[ \t>`]{0,8}Killed[ \t]*$|[\"“`]Killed[\"”`]", re.I), "the shell's Killed"),
)
"""How a process ended by SIGKILL is reported, in the words of what started it."""
_WORKERS_SAID = re.compile(
    r"(?<![\w-])(?:--?)?(?:[a-z]{1,20}_){0,3}(?:num_workers|workers)\b[ \t]*[=:][ \t]*\d{1,3}\b",
    re.IGNORECASE,
)


_CPU_ASKED = re.compile(
    r"DefaultCPUAllocator: (?:not enough memory|can't allocate memory): you tried to allocate "
    r"(\d{1,15}) bytes"
)


def analyse_cpu_allocator(text: str) -> Analysis:
    """The host RAM the failed allocation asked for."""
    return quoted(
        _CPU_ASKED,
        text,
        lambda f: f"torch asked for {int(f[1])} bytes ({int(f[1]) / 2**30:.2f} GiB) of host RAM",
    )


def analyse_host_oom(text: str) -> Analysis:
    """What the text shows of the host's out-of-memory: the kernel's line (a memory cgroup's limit or the
    machine's RAM, the process and the memory it held), a DataLoader worker killed, the workers option."""
    window = text[-200_000:]
    evidence: list[str] = []
    killed = last_match(_KERNEL_KILL, window)
    if killed is not None:
        where = (
            "a memory cgroup (a container's or a notebook's limit)"
            if killed[1].lower().startswith("memory cgroup")
            else "the machine"
        )
        line = f"{killed[1]}: the kernel killed process {killed[2]} ({killed[3]}) when {where} ran out of RAM"
        if killed[4]:
            kib = int(killed[4].replace(",", ""))
            line += f"; it held anon-rss:{killed[4]}kB ({kib / 2**20:.1f} GiB)"
        evidence.append(line)
    if last_match(_WORKER_KILLED, window) is not None:
        evidence.append(
            "a DataLoader worker was ended by SIGKILL (signal: Killed), which is how the OOM killer ends a "
            "process"
        )
    if not evidence:
        reported = next((said for pattern, said in _SIGKILL_REPORTED if pattern.search(window)), None)
        if reported is not None:
            evidence.append(
                f"the process was ended by SIGKILL ({reported}), the signal the kernel's OOM killer sends; "
                "nothing in the process could print an error"
            )
    workers = _workers_set(window)
    if workers is not None:
        evidence.append(workers)
    return Analysis(evidence=tuple(evidence))


def _workers_set(window: str) -> str | None:
    """The DataLoader workers the text sets, as evidence: "the text sets num_workers=12"."""
    found = last_match(_WORKERS_SAID, window)
    return None if found is None else f"the text sets {' '.join(found[0].split())}"


# The library Windows failed to load ("Error loading "...\\torch\\lib\\cudnn_cnn_infer64_8.dll" or one of
# its dependencies").
_LIBRARY_NOT_LOADED = re.compile(r"Error loading [\"“]?[^\n\"”]{0,300}?[\\/]([\w.-]{1,80}\.dll)\b")


def analyse_paging_file(text: str) -> Analysis:
    """The library whose load failed, and the DataLoader workers the text sets."""
    window = text[-200_000:]
    evidence: list[str] = []
    library = last_match(_LIBRARY_NOT_LOADED, window)
    if library is not None:
        evidence.append(f"Windows could not commit memory to load {library[1]}, one of torch's libraries")
    workers = _workers_set(window)
    if workers is not None:
        evidence.append(f"{workers}: each worker is a process that loads torch's libraries")
    return Analysis(evidence=tuple(evidence))


_BF16_SAID = re.compile(r"\b(?:bf16|bfloat16)\b", re.IGNORECASE)
_NOT_COMPATIBLE = re.compile(r"with CUDA capability (sm_\d{2,3}) is not compatible")


def analyse_no_engine(text: str) -> Analysis:
    return quoted_lines(
        text,
        (
            _NOT_COMPATIBLE,
            lambda f: f"torch's warning above: the GPU is not one this torch build was made for ({f[1]})",
        ),
        (
            _BF16_SAID,
            lambda f: (
                f"the text runs bfloat16 ({f[0]}): GPUs before Ampere (compute capability 8.0) have no "
                "bfloat16 engines"
            ),
        ),
    )


ENTRIES: tuple[Entry, ...] = catalogue_file.read(__package__, globals())
_OOM: Entry = next(e for e in ENTRIES if e.id == "cuda.out_of_memory")
