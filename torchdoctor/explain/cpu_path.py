"""A program asked to run on the CPU that still calls CUDA: the writer's words for its CPU mode, and the
program's own CUDA call a traceback shows (a frame outside torch whose source line calls torch.cuda or
.cuda()); and torch.load restoring tensors saved on a GPU, which asks for CUDA wherever it runs. The "no
GPU" messages (no CUDA GPUs, a CPU-only torch) read with these say that the program, not the machine or the
install, is what to change: the merged fixes of ultralytics/yolov3#1637,
foundation-model-stack/foundation-model-stack#226, amanchadha/iSeeBetter#1 and mhpi/generic_deltamodel#113
guarded such calls; twtygqyy/pytorch-vdsr's loads the checkpoint with map_location."""

from __future__ import annotations

import re
from dataclasses import replace

from torchdoctor.explain.model import Analysis, last_match
from torchdoctor.explain.statement import failing_statement, is_torch_file
from torchdoctor.model import Fix

# "I am using CPU only", "even when using device='cpu'", "CUDA error even when using cpu yaml", "--device cpu"
_CPU_MODE = re.compile(
    r"\b(?:using|use|run|running|on)\s(?:the\s|a\s)?cpu[ _-]only\b|\b(?:even|still)\b[^\n]{0,40}?\bcpu\b"
    r"|(?:--device|\bdevice)\s?[=: ]\s?['\"]?cpu\b|\bcpu (?:yaml|config|mode)\b",
    re.IGNORECASE,
)
# A statement's CUDA call: .cuda(...), a device given as 'cuda', torch.cuda's functions but its questions.
_CALLS_CUDA = r"\.cuda\(|\bdevice\s?=\s?['\"]cuda|\btorch\.cuda\.(?!is_available|device_count)\w{1,40}\("
_CUDA_CALL = re.compile(_CALLS_CUDA)
# A frame of the program (not torch's own files) and the source line under it calling CUDA.
_PROGRAM_CUDA_CALL = re.compile(
    r"File \"([^\"\n]{1,300})\", line (\d{1,6}), in (\w{1,100})\n[ \t]{1,40}([^\n]{0,160}?"
    rf"(?:{_CALLS_CUDA})[^\n]{{0,80}})"
)
CAUSE = (
    "The program was asked to run on the CPU, but it still calls CUDA on that path: a "
    "torch.cuda.synchronize() or empty_cache() in its timing or clean-up code, a .cuda() or device='cuda' "
    "written without a check, a default that picks the GPU; with no usable GPU (or a CPU-only torch) that "
    "call fails."
)
FIX = Fix(
    "Guard the program's CUDA calls with the device it chose (if device.type == 'cuda': "
    "torch.cuda.synchronize(), or if torch.cuda.is_available():), replace .cuda() with .to(device), or "
    "update the program to a release that does; check that every part of it follows its device option."
)


WINDOW = 200_000
"""The end of a text that is read: where a traceback and the words around the error are."""


def cpu_path(text: str, message: re.Pattern[str] | None = None) -> Analysis | None:
    """The program's own CUDA call and its CPU mode, where the text shows either with a CPU mode: None
    where the writer does not say the program runs on the CPU. With ``message`` (the error's pattern), the
    statement that raised it is read where no frame's line shows a CUDA call (an IPython cell's arrow)."""
    tail = text[-WINDOW:]
    mode = last_match(_CPU_MODE, tail)
    if mode is None:
        return None
    evidence = [f"the text runs the program on the CPU ({' '.join(mode[0].split())})"]
    calls = [c for c in _PROGRAM_CUDA_CALL.finditer(tail) if not is_torch_file(c[1])]
    if calls:
        call = calls[-1]
        where = call[1].replace("\\", "/")
        evidence.append(f"the program calls CUDA at {where}, line {call[2]} ({call[3]}): {call[4].strip()}")
    elif message is not None:
        called = cuda_call(tail, message)
        if called is not None:
            evidence.append(called)
    return Analysis(evidence=tuple(evidence), cause=CAUSE, fix=FIX)


# The writer's words for the statement before the message on its line: "encoder.cuda()出现了报错信息：..."
_NAMED_CUDA_CALL = re.compile(r"\b[A-Za-z_][\w.]{0,60}\.cuda\([^()\n]{0,40}\)", re.ASCII)


def cuda_call(text: str, message: re.Pattern[str]) -> str | None:
    """A line of evidence naming the program's statement that called CUDA and raised the last ``message``
    of ``text``: the traceback's failing statement, or a call the writer names before the message on its
    line; None where neither calls CUDA."""
    found = last_match(message, text)
    if found is None:
        return None
    statement = failing_statement(text, found.start())
    if statement is not None and _CUDA_CALL.search(statement.code):
        return f"the program calls CUDA at {statement}"
    line_start = text.rfind("\n", max(0, found.start() - 300), found.start()) + 1
    named = last_match(_NAMED_CUDA_CALL, text[max(line_start, found.start() - 300) : found.start()])
    if named is not None:
        return f"the writer names the call that failed: {named[0]}"
    return None


HARD_CODED_CAUSE = (
    "The program calls CUDA without asking whether there is a GPU (a .cuda() or device='cuda' written in: "
    "the call the text shows), and torch finds no NVIDIA driver here: on a machine without an NVIDIA GPU, "
    "or with no driver installed, that call fails."
)
HARD_CODED_FIX = Fix(
    "Where this machine has no NVIDIA GPU, run the program on the CPU: device = torch.device('cuda' if "
    "torch.cuda.is_available() else 'cpu'), then replace .cuda() with .to(device) at that call and every "
    "other (its device option where it has one; torch.load(..., map_location='cpu')). Where it has one, "
    "install the NVIDIA driver: nvidia-smi must list the GPU.",
    ("nvidia-smi",),
)


def hard_coded_cuda(text: str, message: re.Pattern[str]) -> Analysis | None:
    """A "no driver" message raised by the program's own CUDA call (:func:`cuda_call`); None where the
    text shows none."""
    called = cuda_call(text[-WINDOW:], message)
    if called is None:
        return None
    return Analysis(evidence=(called,), cause=HARD_CODED_CAUSE, fix=HARD_CODED_FIX)


# torch.load restoring a tensor saved on a GPU: its frames (serialization.py's restore_location and
# _cuda_deserialize), the program's call, or the writer's words ("loading a cuda tensor on a CPU only
# machine").
_RESTORING = re.compile(
    r"_cuda_deserialize|default_restore_location|restore_location\(|\btorch\.load\("
    r"|\bload(?:ing|s|ed)?\s(?:a\s|the\s)?(?:cuda|gpu)\s(?:tensors?|models?|checkpoints?|weights)\b",
    re.IGNORECASE,
)
RESTORED_CAUSE = (
    "torch.load puts each tensor back on the device it was saved from: a checkpoint saved on a GPU asks for "
    "CUDA as it loads, and this machine (or this torch) has none to give."
)
RESTORED_FIX = Fix(
    "Load the checkpoint onto the CPU, then move the model where it runs: torch.load(path, "
    "map_location='cpu') (torch 0.x: map_location=lambda storage, loc: storage), then "
    "model.load_state_dict(...) and model.to(device); every torch.load on the program's CPU path needs it."
)


def restored_on_cuda(text: str, before: int | None = None) -> Analysis | None:
    """A "no GPU" message that torch.load raised restoring CUDA tensors, where the text up to ``before``
    (the message) shows the load; None where it does not."""
    end = len(text) if before is None else before
    found = last_match(_RESTORING, text[max(0, end - WINDOW) : end])
    if found is None:
        return None
    line = f"the error came from torch.load restoring tensors saved on a GPU ({' '.join(found[0].split())})"
    return Analysis(evidence=(line,), cause=RESTORED_CAUSE, fix=RESTORED_FIX)


# Frameworks whose programs take the device from their own configuration: where the text shows one, its
# setting is the program's device option. detectron2: the config key MODEL.DEVICE, "cuda" by default
# (detectron2/config/defaults.py; the maintainers' answer in facebookresearch/detectron2#300).
_FRAMEWORK_CPU_OPTIONS = (
    (
        re.compile(r"\bdetectron2\b", re.IGNORECASE),
        "detectron2 takes the device from its config: cfg.MODEL.DEVICE = 'cpu' before the model is built "
        "(MODEL.DEVICE cpu among a tool's --opts).",
    ),
)


def program_cpu_option(text: str) -> str | None:
    """The device setting of the framework the text shows, where one is known; None elsewhere."""
    tail = text[-200_000:]
    return next((said for pattern, said in _FRAMEWORK_CPU_OPTIONS if pattern.search(tail)), None)


def with_program_cpu_option(analysis: Analysis, text: str) -> Analysis:
    """``analysis`` with the framework's own device setting after a fix that runs on the CPU."""
    option = program_cpu_option(text)
    fix = analysis.fix
    if option is None or fix is None or "on the CPU" not in fix.text:
        return analysis
    return replace(analysis, fix=Fix(f"{fix.text} {option}", fix.commands))
