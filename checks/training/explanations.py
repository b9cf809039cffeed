"""Error messages caused by the training code itself: tensors on different devices or of different dtypes
(in the wording of every torch generation), checkpoints of another shape, device-side asserts, half
precision that overflows or runs on the CPU, and operations the Apple GPU (MPS) does not have.

The entries are the data of explanations.toml beside this module (:mod:`torchdoctor.explain.catalogue_file`),
registered in the entry-point group ``torchdoctor.explanations``; quoted from where torch raises them, and
the real texts of tests/corpus/errors. This module holds their analysers.
"""

from __future__ import annotations

import re
from dataclasses import replace
from itertools import islice

from torchdoctor.explain import Analysis, Entry, catalogue_file
from torchdoctor.explain.model import Case, last_match, quoted, quoted_lines
from torchdoctor.explain.statement import (
    MadeWithoutDevice,
    Statement,
    failing_statement,
    installed_package,
    last_frame_file,
    made_without_device,
)
from torchdoctor.explain.versions_said import versions_said
from torchdoctor.inputs import conda_builds
from torchdoctor.model import Fix
from torchdoctor.output.wording import clipped

_DEVICE_FORMS = catalogue_file.cases(__package__, "tensors.different_devices")
_DTYPE_FORMS = catalogue_file.cases(__package__, "tensors.different_dtypes")
_ASSERTIONS = catalogue_file.cases(__package__, "cuda.device_side_assert")


def _last_form(forms: tuple[Case, ...], text: str) -> tuple[str, re.Match[str]] | None:
    """The evidence of the case that matches last in ``text``, its groups put in, and its match."""
    found = [(m, case) for case in forms if (m := last_match(case.compiled, text))]
    if not found:
        return None
    match, case = max(found, key=lambda item: item[0].start())
    return (case.evidence or "").format(*match.groups()), match


_GPU_ORDINAL = re.compile(r"\bcuda:(\d{1,2})\b")
_CHOSEN_CAUSE = (
    "one part of the program chose a GPU (a --device cuda:1 option, model.to('cuda:1')) while another makes "
    "its tensors on the current device (device='cuda', .cuda(), a checkpoint loaded where it was saved), "
    "which is cuda:0 unless torch.cuda.set_device says otherwise"
)
_SPREAD_CAUSE = (
    "more than one GPU is visible and the program spreads over them (code that uses every visible GPU by "
    "default: a model split over the GPUs by its loader, device_map='auto' or a model parallel, "
    "nn.DataParallel), and code written for one GPU combines a tensor on one GPU with one on another (an "
    "input stayed on another GPU than the layer that takes it)"
)
_EACH_INPUT_MOVED = (
    "Move each input to the device of the layer that takes it (x.to(next(model.parameters()).device)), and "
    "load checkpoints with map_location; a model split with device_map='auto' takes its inputs on its first "
    "layer's GPU."
)
_TWO_GPUS_CAUSE = f"An operation got tensors on two GPUs: {_CHOSEN_CAUSE}; or {_SPREAD_CAUSE}."
_SEVERAL_GPUS_CAUSE = f"An operation got tensors on two GPUs: {_SPREAD_CAUSE}; or {_CHOSEN_CAUSE}."
# A GPU other than the first chosen in the program's code or command: "--device cuda:1", "self.device =
# 'cuda:1'", ".to('cuda:2')", "set_device(1)", "--gpu 1"; the message's own "cuda:0 and cuda:1" is none.
_GPU_CHOSEN = re.compile(
    r"""["']cuda:[1-9]\d?["']|\bset_device\(\s{0,2}[1-9]|--[\w-]{0,20}(?:device|gpu)[\w-]{0,10}[= ]["']?"""
    r"""(?:cuda:)?[1-9]\b""",
    re.IGNORECASE | re.ASCII,
)


def _two_gpus_fix(other: str) -> Fix:
    return Fix(
        f"Run on one GPU by making only it visible before torch starts: CUDA_VISIBLE_DEVICES={other} python "
        f"... (or os.environ['CUDA_VISIBLE_DEVICES'] = '{other}' before import torch), and keep the "
        "program's device 'cuda' (inside the program it is then cuda:0); or call "
        f"torch.cuda.set_device({other}) first, so that 'cuda' and .cuda() mean that GPU. {_EACH_INPUT_MOVED}"
    )


_ONE_GPU_FIX = Fix(
    "Run on one GPU by making only it visible before torch starts: CUDA_VISIBLE_DEVICES=0 python ... (or "
    "os.environ['CUDA_VISIBLE_DEVICES'] = '0' before import torch): the program then sees a single GPU and "
    f"puts everything on it. To keep several GPUs, {_EACH_INPUT_MOVED[0].lower()}{_EACH_INPUT_MOVED[1:]}"
)


# A model split over the GPUs by accelerate: device_map="auto" (or "balanced", "sequential") in the text.
_SPLIT_BY_DEVICE_MAP = re.compile(
    r"""device_map\s{0,3}=\s{0,3}["'](?:auto|balanced(?:_low_0)?|sequential)["']""", re.IGNORECASE
)
_SPLIT_CAUSE = (
    "The model was split over the GPUs (device_map='auto' puts its layers on several GPUs), and the model's "
    "own code combines tensors that sit on two of them (text embeddings with image features, position ids "
    "with the queries) without moving one: that model code does not support being split."
)
_SPLIT_FIX = Fix(
    "Load the model on one GPU where it fits: device_map={'': 0} (or 'cuda'), or CUDA_VISIBLE_DEVICES=0 "
    "before the program starts; or update the model's code (its trust_remote_code files) to a version that "
    "supports the split, or move the tensors to the same device where that code combines them "
    "(x.to(y.device)); a hand-written device_map that keeps those parts on one GPU also works."
)


# A tensor's move on a line of its own, its result dropped: "img.to(device)", "x.cuda()  # ...", a graph's
# "G.to_device('cuda')"; a statement of a module ("model.to(device)", "self.net.cuda()") moves it in place.
_UNASSIGNED_MOVE = re.compile(
    r"^[ \t`>]*((\w{1,60}(?:\.\w{1,60}){0,4})\.(?:to|cuda|to_device)\(([^()\n]{0,80})\))"
    r"[ \t]*`?[ \t]*(?:#[^\n]*)?$",
    re.MULTILINE,
)
_MODULE_NAME = re.compile(
    r"model|net|module|layer|encoder|decoder|classifier|criterion|loss|backbone|head|^self$", re.IGNORECASE
)
_MOVES_READ = 20  # a bound on the statements looked at, however long the text
_QUOTED_ARGUMENT = re.compile(r"\s{0,3}[\"']([^\"'\n]{0,80})[\"']")
_DEVICE_NAME = re.compile(r"(?:cpu|cuda|mps|xpu|meta|hpu|npu)(?::\d{1,2})?", re.IGNORECASE)
_GRAPH_FIX = Fix(
    "Put the graph and its features on one device before assigning them: g = g.to(device) (a DGL graph's "
    ".to() returns a new graph, and from DGL 0.5 a graph and its features must share a device), then "
    "g.ndata['feat'] = feat.to(device); or build the graph with its features on the CPU and move it once "
    "at the end."
)


def unassigned_moves(text: str) -> list[str]:
    """The statements in ``text`` that move a tensor (or a graph) without keeping the result, in order."""
    return list(_unassigned_moves(text))


def _unassigned_moves(text: str) -> dict[str, str]:
    """Each statement of :func:`unassigned_moves` with the name it moves."""
    moves: dict[str, str] = {}
    for found in islice(_UNASSIGNED_MOVE.finditer(text[-200_000:]), _MOVES_READ):
        argument = _QUOTED_ARGUMENT.match(found[3])
        if argument is not None and _DEVICE_NAME.fullmatch(argument[1]) is None:
            continue  # .to("file.cif"): a method of another object, no device
        if _MODULE_NAME.search(found[2].rsplit(".", 1)[-1]) is None:
            moves.setdefault(found[1], found[2])
    return moves


# torch names the tensor on the other device: from 1.9 "(when checking argument for argument target in method
# wrapper_nll_loss_forward)" (1.9 spelt it "arugment"), before it "for argument #3 'index' in call to
# _th_index_select" (1.0: "got backend CPU for argument #3 'index'"). What each name is, and the move that
# fixes it.
_ARGUMENT_NAMED = re.compile(
    r"when checking ar(?:gu|ug)ment for argument (\w{1,40}) in method (\w{1,80})"
    r"|for argument #\d{1,2} '(\w{1,40})'(?: in call to (\w{1,80}))?"
)
_ARGUMENTS: dict[str, tuple[str, str]] = {
    "target": (
        "the loss's target: the labels",
        "Move the labels with the inputs before the loss: labels = labels.to(device) (y = y.to(device)); a "
        "DataLoader gives them on the CPU like the inputs.",
    ),
    "index": (
        "an index tensor (token ids, indices)",
        "Move the index to the device of the tensor it indexes: index = index.to(x.device).",
    ),
}
# index_select's self, where an embedding calls it: the embedding's weights (torch before 1.9).
_EMBEDDING_WEIGHT = (
    "the embedding's weight table, a parameter of the module",
    "Move the module that holds the embedding to the device of its input: model.to(device), after the model "
    "is built or loaded (an embedding made outside the model's __init__ is not moved with it).",
)


def _argument_moved(evidence: str, text: str) -> Analysis:
    """``evidence`` with the argument torch names on the other device, and its move where it is known."""
    named = last_match(_ARGUMENT_NAMED, text[-200_000:])
    if named is None:
        return Analysis(evidence=(evidence,))
    name, method = named[1] or named[3], named[2] or named[4]
    embedding_weight = name == "self" and re.search(r"index_select|embedding", method or "") is not None
    what, move = _EMBEDDING_WEIGHT if embedding_weight else _ARGUMENTS.get(name, (None, None))
    line = f"the tensor on the other device is argument {name}" + (f" of {method}" if method else "")
    line += f": {what}" if what else ""
    if move is None:
        return Analysis(evidence=(evidence, line))
    general = _DEVICES.fix
    return Analysis(evidence=(evidence, line), fix=Fix(f"{move} {general.text}", general.commands))


# A tensor made without a device in the code the text shows ("torch.zeros(X.shape[0], n)",
# "torch.randn(mu.shape)"), not moved on the same line, or a layer built and called inside forward
# ("nn.BatchNorm2d(num_features=c)(x)"): on the CPU, whatever device the model is on.
_MADE_ON_CPU = re.compile(
    r"\btorch\.(?:zeros|ones|randn|rand|randint|empty|full|arange|eye|linspace|tensor|FloatTensor|LongTensor)"
    r"\((?:[^()\n]|\([^()\n]{0,80}\)){0,200}\)(?!\s{0,2}\.(?:to|cuda|type_as)\()"
    # a layer with parameters (not an activation, dropout or pooling)
    r"|\bnn\.(?!(?:Leaky)?ReLU\d?\b|[GS]ELU\b|Sigmoid\b|Tanh\b|Dropout\w{0,3}\b|Softmax\b|Identity\b|Flatten\b"
    r"|\w{0,10}Pool\w{0,4}\b|Upsample\w{0,10}\b)[A-Z]\w{1,40}\((?:[^()\n]|\([^()\n]{0,80}\)){0,200}\)(?=\()"
)
_MADE_ON_CPU_FIX = Fix(
    "Make the tensor on the device of the input it meets: torch.zeros(..., device=x.device) (likewise "
    "torch.randn, torch.arange), x.new_zeros(...), torch.randn_like(x), or .to(x.device); build layers in "
    "__init__, not inside forward, so that model.to(device) moves their parameters; a tensor the model keeps "
    "goes in self.register_buffer().",
)
_MADE_READ = 20  # a bound on the calls looked at, however long the text


def _made_on_cpu(text: str) -> list[str]:
    """The calls in ``text`` that make a tensor (or a layer) without a device, in order."""
    made = []
    for found in islice(_MADE_ON_CPU.finditer(text[-200_000:]), _MADE_READ):
        if "device" not in found[0]:
            made.append(found[0])
    return list(dict.fromkeys(made))


# A web UI's low-VRAM mode: A1111's --medvram/--lowvram, ComfyUI's lowvram ("loading in lowvram mode").
_LOW_VRAM = re.compile(r"(?:--)?\b(?:med|low)vram\b", re.IGNORECASE)
_LOW_VRAM_CAUSE = (
    "A web UI's low-VRAM mode (--medvram, --lowvram; ComfyUI's lowvram) keeps parts of the model (the text "
    "encoder, the VAE, blocks of the UNet) on the CPU and moves each to the GPU only when the UI's own code "
    "runs it; an extension or custom node that puts its tensors on the UI's main device (cuda:0), or calls a "
    "part the UI has left on the CPU, meets the other device."
)
_LOW_VRAM_FIX = Fix(
    "Start the UI without --medvram or --lowvram (ComfyUI: --normalvram) where the GPU has the memory, or "
    "update the extension (or custom node) to a release that supports the low-VRAM mode; its own fix is to "
    "make its tensors on the device of the module it calls (next(module.parameters()).device), not the UI's "
    "main device."
)
# CPU offload turned on: diffusers' enable_model_cpu_offload/enable_sequential_cpu_offload, accelerate's
# cpu_offload, FSDP's CPUOffload, a pipeline's offload_mode (not offload_mode=None).
_CPU_OFFLOAD = re.compile(
    r"(?<![a-z])cpu[ _-]?offload(?:ing)?\b|\boffload_mode\s{0,2}=\s{0,2}(?![\"']?None\b)[\"']?\w{1,40}",
    re.IGNORECASE,
)
_CPU_OFFLOAD_CAUSE = (
    "CPU offload keeps parts of the model on the CPU and moves each to the GPU only while the offloading "
    "hooks run it: a tensor or module used outside those hooks stays on the CPU (a helper library that calls "
    "an offloaded text encoder itself, a component attached after offloading was turned on, a pipeline also "
    "moved with .to('cuda')), or that release of the library has a bug with this offload mode."
)
_CPU_OFFLOAD_FIX = Fix(
    "Run once without CPU offload (or with model-level offload, enable_model_cpu_offload, instead of "
    "sequential offload) to confirm it; then upgrade the library that offloads (diffusers and accelerate, "
    "or the pipeline's own package): such bugs are fixed in later releases. Turn offloading on after every "
    "component is attached and do not also move the pipeline with .to('cuda'); give a helper library that "
    "makes tensors for an offloaded module the device it runs on (Compel's device='cuda')."
)
# A model run by nn.DataParallel: its wrapper, its frames, its replicas, or the writer's multi-GPU words.
_DATAPARALLEL = re.compile(
    r"data[_ ]?parallel|\breplicas?\b|\bmulti[- ]?gpus?\b|\bmGPUs\b"
    r"|\b(?:several|multiple|[2-9]) gpus\b|\bdevice_ids\s{0,2}=",
    re.IGNORECASE,
)
_REPLICAS_CAUSE = (
    "Under nn.DataParallel each GPU runs a replica of the model, and an operation got tensors on two GPUs: a "
    "tensor the model makes on a fixed GPU (torch.cuda.FloatTensor(...), .cuda(), device='cuda:0') or keeps "
    "outside its registered parameters and buffers (a plain tensor attribute, submodules in a plain Python "
    "list) stays on the first GPU while the replica runs on another."
)
_REPLICAS_FIX = Fix(
    "Make tensors inside forward on the input's device (torch.zeros(..., device=x.device), "
    "x.new_zeros(...), t.to(x.device)) instead of .cuda() or a fixed GPU; keep submodules in nn.ModuleList "
    "or nn.ModuleDict and tensors as buffers (self.register_buffer), so that DataParallel copies them to "
    "each GPU. Or run on one GPU (CUDA_VISIBLE_DEVICES=0), or train with DistributedDataParallel, one "
    "process per GPU.",
    ("CUDA_VISIBLE_DEVICES=0 python train.py",),
)


def _on_two_gpus(evidence: str, text: str) -> Analysis:
    """Tensors on two GPUs that the message does not name: DataParallel's replicas where the text shows it."""
    if last_match(_DATAPARALLEL, text[-200_000:]) is not None:
        line = "the text runs the model under DataParallel (a replica per GPU)"
        return Analysis(evidence=(evidence, line), cause=_REPLICAS_CAUSE, fix=_REPLICAS_FIX)
    return Analysis(evidence=(evidence,), cause=_TWO_GPUS_CAUSE, fix=_two_gpus_fix("<index>"))


def _cpu_and_gpu(evidence: str, tail: str, statement: Statement | None) -> Analysis:
    """A tensor on the CPU meeting one on a GPU: a web UI's low-VRAM mode, CPU offload, a tensor the failing
    statement (or, without a traceback, a line of code the text shows) makes without a device where it meets
    another of the statement's tensors, a tensor or layer the code shown makes without one, or the argument
    torch names."""
    low_vram = last_match(_LOW_VRAM, tail)
    if low_vram is not None:
        line = f"the UI runs in a low-VRAM mode ({low_vram[0]}): parts of the model wait on the CPU"
        return Analysis(evidence=(evidence, line), cause=_LOW_VRAM_CAUSE, fix=_LOW_VRAM_FIX)
    offload = last_match(_CPU_OFFLOAD, tail)
    if offload is not None:
        line = f"the text turns CPU offload on ({offload[0]}): parts of the model wait on the CPU"
        return Analysis(evidence=(evidence, line), cause=_CPU_OFFLOAD_CAUSE, fix=_CPU_OFFLOAD_FIX)
    made = _made_on_cpu(tail)
    if statement is not None:
        codes = [statement.code]
    else:
        codes = [code for call in reversed(made) if (code := _line_holding(tail, call)) is not None]
    for code in codes:
        here = made_without_device(code)
        if here is not None and here.meets is not None:
            return _made_in_statement(evidence, here, code, here.meets)
    if made:
        line = (
            f"the code shown makes {', '.join(made[:3])} without a device: on the CPU, whatever device the "
            "model is on"
        )
        return Analysis(evidence=(evidence, line), fix=_MADE_ON_CPU_FIX)
    return _argument_moved(evidence, tail)


# IPython's arrow before a line of code ("---> 26 code"); a quote's ">" and a fence's backticks are stripped.
_ARROW = re.compile(r"-{1,8}>\s{0,8}\d{1,7}\s")
_LONGEST_LINE = 4000  # a line of code read at most; a statement is read up to 1,000 characters


def _line_holding(text: str, call: str) -> str | None:
    """The line of ``text`` that holds ``call`` (the last one), without a quote's or a fence's marks."""
    at = text.rfind(call)
    if at < 0:
        return None
    start, end = text.rfind("\n", 0, at) + 1, text.find("\n", at)
    line = text[start : end if end >= 0 else len(text)]
    if len(line) > _LONGEST_LINE:
        return None
    line = line.strip().strip("`").strip()
    while line.startswith(">"):
        line = line[1:].lstrip()
    arrow = _ARROW.match(line)
    return line[arrow.end() :] if arrow is not None else line


def _made_in_statement(evidence: str, made: MadeWithoutDevice, code: str, meets: str) -> Analysis:
    """A tensor the statement makes with no device, meeting another of the statement's tensors."""
    line = f"{made.call} is made without a device in the statement: {clipped(code, 160)}"
    cause = (
        f"{made.call} is given no device, so its tensor is made on the default device, the CPU (unless "
        f"torch.set_default_device or torch.set_default_tensor_type changed it), and it meets {meets}, "
        "which is on the GPU (or, where the default was changed to the GPU, the other way round)."
    )
    fix = Fix(
        f"Make it on the device of {meets}: {made.on_device()}; or, where every tensor of the program "
        "belongs on one GPU, set the default once at the start: torch.set_default_device('cuda')."
    )
    return Analysis(evidence=(evidence, line), cause=cause, fix=fix)


def analyse_devices(text: str) -> Analysis:
    found = _last_form(_DEVICE_FORMS, text)
    if found is None:
        return Analysis()
    evidence, match = found
    statement = failing_statement(text, match.start())
    analysis = _devices(text, evidence, match, statement)
    step = _optimizer_step(text, match.start(), statement)
    if step is not None:
        return Analysis(
            evidence=(*analysis.evidence, f"the tensors meet in {step}"),
            cause=_OPTIMIZER_STATE_CAUSE,
            fix=_OPTIMIZER_STATE_FIX,
        )
    if statement is None:
        return analysis
    line = f"the failing statement, {statement}: one of its tensors is on the other device"
    analysis = replace(analysis, evidence=(*analysis.evidence, line))
    package = installed_package(statement.file)
    return analysis if package is None else _in_library(analysis, package)


# An optimizer's step where the message is raised: a frame of torch.optim, the program's optimizer.step()
# (or a step() in a file of its own optimizer), or on the line above the state torch.optim keeps per
# parameter.
_OPTIM_FILE = re.compile(r"torch[/\\]optim[/\\](?!lr_scheduler)(\w+)\.py$")
_OPTIM_STATE_LINE = re.compile(r"\b(?:exp_avg(?:_sq)?|max_exp_avg_sq|momentum_buffer)\b[^\n]*\n[^\n]*$")
_OPTIMIZER_STATE_CAUSE = (
    "The optimizer's state (momentum buffers, Adam's exp_avg, a wrapper's copies of the parameters) is on "
    "another device than the parameters it updates, most often the optimizer state on the CPU and the "
    "parameters on the GPU: the optimizer was built, or its state loaded (optimizer.load_state_dict from a "
    "checkpoint, which puts each state tensor on its parameter's device as it is then), while the model was "
    "on the CPU, and the model moved to the GPU after."
)
_OPTIMIZER_STATE_FIX = Fix(
    "Call model.to(device) before constructing the optimizer and before optimizer.load_state_dict(...): "
    "model.to(device); optimizer = torch.optim.Adam(model.parameters(), ...); "
    "optimizer.load_state_dict(checkpoint['optimizer']). Where the state is already loaded, move it: for "
    "state in optimizer.state.values(): for key, value in state.items(): if torch.is_tensor(value): "
    "state[key] = value.to(device)."
)


def _optimizer_step(text: str, end: int, statement: Statement | None) -> str | None:
    """Where the tensors meet in an optimizer's step (``statement``, the failing one), in words; None
    elsewhere."""
    frame = last_frame_file(text, end, 3000)
    optim = _OPTIM_FILE.search(frame) if frame is not None else None
    if optim is not None:
        return f"the optimizer's step (torch/optim/{optim[1]}.py)"
    if statement is not None and (
        re.search(r"\b\w*optim\w*\.step\(", statement.code, re.IGNORECASE)
        or (statement.function == "step" and "optim" in statement.file.rsplit("/", 1)[-1].lower())
    ):
        return f"the optimizer's step, at {statement}"
    if _OPTIM_STATE_LINE.search(text[max(0, end - 3000) : end]) is not None:
        return "the optimizer's step (its per-parameter state: exp_avg, momentum_buffer)"
    return None


def _in_library(analysis: Analysis, package: str) -> Analysis:
    """The tensors meet inside an installed library's code, not the program's."""
    line = f"the failing statement is inside the installed package {package}, not in the program's own code"
    cause = (
        f"The tensors meet inside {package}'s code: {package} makes or keeps a tensor on the CPU while "
        "the rest is on the GPU (a bug of that release of the library: a tensor not moved to the GPU), or "
        f"the program gave {package} an object (a metric, a loss, a module, an input) that it did not move "
        "to the same device."
    )
    advice = (
        f"Upgrade {package} (pip install --upgrade with its pip name): libraries fix such device bugs in "
        "later releases. Where the newest release still fails, move what the program gives it to the device "
        f"(metric.to(device), loss.to(device)), or report it to {package}'s maintainers with this traceback."
    )
    base = analysis.fix or _DEVICES.fix
    if analysis.cause is not None:
        # the sides torch names say what the program left behind; the library only ran it
        cause = (
            f"{analysis.cause} The operation runs inside {package}'s code, on what the program gave it (or, "
            f"where the program's own tensors and modules are all on one device, a bug of that release of "
            f"{package})."
        )
        return replace(
            analysis,
            evidence=(*analysis.evidence, line),
            cause=cause,
            fix=Fix(f"{base.text} Where they already are, {advice[0].lower()}{advice[1:]}", base.commands),
        )
    fix = Fix(f"{advice} {base.text}", base.commands)
    return replace(analysis, evidence=(*analysis.evidence, line), cause=cause, fix=fix)


# A tensor type on a GPU, as the input's and the weights' types are named ("Input type
# (torch.cuda.FloatTensor) and weight type (torch.FloatTensor)", "Input type (MPSFloatType) and ...").
_ON_GPU_TYPE = re.compile(r"^(?:torch\.cuda\.|CUDA|MPS|torch\.mps\.)")


def _input_and_weights(evidence: str, input_type: str, weight_type: str) -> Analysis:
    """The side on the CPU is the one the program did not move: the input, or the module's weights (the two
    types as the tensors.different_devices case of the catalogue file read them)."""
    if _ON_GPU_TYPE.match(input_type) and not _ON_GPU_TYPE.match(weight_type):
        return Analysis(
            evidence=(evidence,),
            cause="The input is on the GPU and the weights on the CPU: the module was never moved to the GPU "
            "(a model built or loaded after the program's .to(device), or a module with weights of its own "
            "that the program calls, such as a loss, a summary or a second model).",
            fix=Fix(
                "Move the module to the input's device, after its weights are loaded: model = "
                "model.to(device) (or model.cuda()), and every module with weights that the program calls, "
                "a loss module too (loss_fn = loss_fn.to(device))."
            ),
        )
    if _ON_GPU_TYPE.match(weight_type) and not _ON_GPU_TYPE.match(input_type):
        return Analysis(
            evidence=(evidence,),
            cause="The input is on the CPU and the weights on the GPU: the input was never moved to the GPU, "
            "or its move was not kept (a tensor's .to() returns a copy on that device).",
            fix=Fix(
                "Move the input to the model's device before the call and keep the result: x = x.to(device) "
                "(or x = x.cuda()); where a library's predictor takes the input, pass it tensors on the "
                "model's device or upgrade to a release that moves them."
            ),
        )
    return Analysis(evidence=(evidence,))


def _devices(text: str, evidence: str, match: re.Match[str], statement: Statement | None) -> Analysis:
    matched = match[0]
    if matched.startswith("Cannot assign"):
        return Analysis(evidence=(evidence,), fix=_GRAPH_FIX)
    tail = text[-200_000:]
    moves = _unassigned_moves(tail)
    if moves:
        line = (
            f"the text moves with {', '.join(moves)} without keeping the result: a tensor's move returns a "
            "new tensor, and the one named stays where it was"
        )
        assign = "; ".join(f"{name} = {move}" for move, name in moves.items())
        fix = Fix(
            f"Assign the result of each move: {assign}. Module.to() moves a module in place; a tensor's "
            ".to() and .cuda() return a new tensor."
        )
        return Analysis(evidence=(evidence, line), fix=fix)
    if matched.startswith("arguments are located"):
        return _on_two_gpus(evidence, tail)
    if matched.startswith("Input and hidden"):
        return Analysis(evidence=(evidence,), cause=_HIDDEN_CAUSE, fix=_HIDDEN_FIX)
    if matched.startswith("Input type"):
        return _input_and_weights(evidence, match[1], match[2])
    if matched.startswith("indices should be"):
        return _indexed(evidence, match[1])
    gpus = list(dict.fromkeys(_GPU_ORDINAL.findall(matched)))
    if len(gpus) < 2:
        return _cpu_and_gpu(evidence, tail, statement)
    split = last_match(_SPLIT_BY_DEVICE_MAP, tail)
    if split is not None:
        line = f"the text loads the model with {' '.join(split[0].split())}: split over the GPUs"
        return Analysis(evidence=(evidence, line), cause=_SPLIT_CAUSE, fix=_SPLIT_FIX)
    chosen = last_match(_GPU_CHOSEN, tail)
    if chosen is None:
        line = "the text shows no GPU chosen by the program (no 'cuda:N' in its code, no --device or --gpu N)"
        return Analysis(evidence=(evidence, line), cause=_SEVERAL_GPUS_CAUSE, fix=_ONE_GPU_FIX)
    other = next((g for g in gpus if g != "0"), gpus[0])
    line = f"the text chooses a GPU ({chosen[0]})"
    return Analysis(evidence=(evidence, line), cause=_TWO_GPUS_CAUSE, fix=_two_gpus_fix(other))


_INDEXED_CAUSE = (
    "A tensor on the CPU was indexed with indices on the GPU: a lookup table, a mask, an index map or a "
    "diffusion model's schedule kept as a plain tensor (model.to() moves parameters and buffers, not plain "
    "attributes), indexed with a batch's indices or timesteps that are on the GPU. torch 1.13 and later "
    "refuse it (earlier releases copied the indices to the CPU silently, so code written for them fails on a "
    "newer torch)."
)
_INDEXED_FIX = Fix(
    "Index on one device: move the indices to the tensor's device and the result to the GPU, "
    "t[idx.cpu()].to(device), or keep the indexed tensor on the GPU: t = t.to(device), and in a module "
    "register it with self.register_buffer('t', t) so that model.to(device) moves it."
)


def _indexed(evidence: str, device: str) -> Analysis:
    """A tensor indexed with indices on another device: the CPU one with GPU indices, or two GPUs."""
    if device.lower() == "cpu":
        return Analysis(evidence=(evidence,), cause=_INDEXED_CAUSE, fix=_INDEXED_FIX)
    fix = Fix(
        f"Move the indices to the indexed tensor's device, t[idx.to(t.device)] ({device}), or to the CPU, "
        "t[idx.cpu()]; indices on another GPU are refused."
    )
    return Analysis(evidence=(evidence,), fix=fix)


_HIDDEN_CAUSE = (
    "An RNN (nn.LSTM, nn.GRU, nn.RNN) got its input and its initial hidden state on different devices: a "
    "hidden state made with torch.zeros(...) without a device (in forward, in an init_hidden method, or in "
    "__init__ as a plain tensor) stays on the CPU when the model and the batch move to the GPU; or one kept "
    "from an earlier batch is on another device than this batch."
)
_HIDDEN_FIX = Fix(
    "Make the hidden state on the input's device: h0 = torch.zeros(num_layers * num_directions, batch, "
    "hidden_size, device=x.device) (and c0 for an LSTM), or x.new_zeros(...); or pass no hidden state, and "
    "the RNN starts from zeros on the input's device. A hidden state carried between batches moves with the "
    "batch (h = h.to(x.device)) or is detached and kept on it."
)


# The device the lengths were on ("but got 1D cuda:0 Long tensor").
_LENGTHS_ON = re.compile(
    r"lengths['\"`]? argument should be a 1D CPU int64 tensor, but got \w{1,4} (\S{1,12}) (\w{1,12}) tensor"
)


def analyse_lengths_on_gpu(text: str) -> Analysis:
    """The device and dtype of the lengths, and the program's statement that passes them."""
    tail = text[-200_000:]
    found = last_match(_LENGTHS_ON, tail)
    if found is None:
        return Analysis()
    evidence = [f"the lengths are a {found[2]} tensor on {found[1]}"]
    statement = failing_statement(tail, found.start(), own_code=True)
    if statement is not None:
        evidence.append(f"the program passes them at {statement}")
    return Analysis(evidence=tuple(evidence))


# The traceback's code line just before the message: the statement that converts.
_CONVERTING_LINE = re.compile(r"\n[ \t]{2,12}(\S[^\n]{0,200})\n[^\n]{0,40}can't convert (?:cuda|CUDA)")


def analyse_cuda_to_numpy(text: str) -> Analysis:
    """The statement that converts, where the traceback shows it."""
    return quoted(_CONVERTING_LINE, text, lambda f: f"the conversion: {f[1].strip()}")


def analyse_dtypes(text: str) -> Analysis:
    found = _last_form(_DTYPE_FORMS, text)
    if found is None:
        return Analysis()
    evidence, match = found
    if _BEFORE_PROMOTION.match(match[0]):
        return Analysis(evidence=(evidence,), cause=_BEFORE_PROMOTION_CAUSE, fix=_BEFORE_PROMOTION_FIX)
    if "double" in match[0].lower():
        return Analysis(
            evidence=(
                evidence,
                "float64 usually comes from NumPy arrays (torch.from_numpy keeps their float64)",
            )
        )
    tail = text[-200_000:]
    if _FULL_PRECISION.search(tail) and not _NO_HALF.search(tail):
        line = "the text runs a Stable Diffusion UI with --precision full but without --no-half"
        return Analysis(evidence=(evidence, line), fix=_NO_HALF_FIX)
    return Analysis(evidence=(evidence,))


# torch 1.0 to 1.2's TensorIterator (the words "expected backend/device X and dtype A") gave every operand of
# an operation the first one's dtype; torch 1.3 promotes the arithmetic operators' operands to a common dtype
# (pytorch/pytorch#22273).
_BEFORE_PROMOTION = re.compile(r"expected (?:backend|device) ")
_BEFORE_PROMOTION_CAUSE = (
    "An operation got operands of two dtypes (a Long tensor of labels, counts or a one-hot in arithmetic "
    "with a Float one) in a torch from before type promotion: torch 1.0 to 1.2 required every operand to "
    "have the first one's dtype, where torch 1.3 and later promote them to a common dtype (a Long and a "
    "Float make a Float)."
)
_BEFORE_PROMOTION_FIX = Fix(
    "Cast the operand of the other dtype where the operation is (onehot.float(), labels.float(), "
    "x.to(y.dtype)), or upgrade torch to 1.3 or later (a release the program supports), whose arithmetic "
    "promotes mixed dtypes itself."
)


# The hlky/sygil Stable Diffusion UI: --precision full runs the sampler in float32, while the weights stay in
# half unless --no-half is given too ("Both --no-half and --precision full are required").
_FULL_PRECISION = re.compile(r"--precision[ =]full\b", re.IGNORECASE)
_NO_HALF = re.compile(r"--no-half\b(?!-)", re.IGNORECASE)
_NO_HALF_FIX = Fix(
    "--precision full needs --no-half too, or the model's weights stay in half while its inputs are float: "
    "launch with both, python scripts/webui.py --precision full --no-half (in scripts/relauncher.py for the "
    "hlky/sygil UI, in COMMANDLINE_ARGS for AUTOMATIC1111's)."
)


# The dtype the text loads the model in: torch.float16, torch_dtype="float16", fp16, half().
_FLOAT16_SAID = re.compile(
    r"\btorch\.float16\b|\btorch_dtype\s{0,3}=\s{0,3}[\"']?(?:float16|fp16|half)\b|\bfp16\b|\.half\(\)",
    re.IGNORECASE,
)


# Weights made float16 in the code the text shows (not the fp16 of a mixed-precision setting, which keeps them
# float32): torch_dtype=torch.float16, an fp16 variant, .half(), .to(torch.float16).
_HALF_WEIGHTS = re.compile(
    r"""\btorch_dtype\s{0,3}=\s{0,3}(?:torch\.float16|["']float16["'])|\bvariant\s{0,3}=\s{0,3}["']fp16["']"""
    r"|\.half\(\)|\.to\((?:dtype=)?torch\.float16\)",
    re.ASCII,
)


def analyse_fp16_parameters(text: str) -> Analysis:
    """Where the code the text shows makes the weights float16."""
    return quoted(_HALF_WEIGHTS, text, lambda said: f"the text makes the weights float16 ({said[0]})")


# The DataLoader's sampler or random_split drawing its permutation, in a traceback; and the program making
# CUDA the default device.
_PERMUTATION_DRAWN = re.compile(r"sampler\.py\b|\brandom_split\b|\brandperm\(", re.ASCII)
_CUDA_DEFAULT = re.compile(
    r"set_default_tensor_type\(\s{0,2}['\"]?torch\.cuda\.\w{1,30}['\"]?\s{0,2}\)"
    r"|set_default_device\(\s{0,2}['\"]cuda[:\d]{0,3}['\"]\s{0,2}\)"
)


def analyse_generator_device(text: str) -> Analysis:
    """The sampler's permutation where the traceback shows it, and a CUDA default device the text sets."""
    tail = text[-200_000:]
    evidence = []
    if last_match(_PERMUTATION_DRAWN, tail) is not None:
        evidence.append(
            "the traceback is in a DataLoader's sampler or random_split: torch.randperm with a CPU generator"
        )
    default = last_match(_CUDA_DEFAULT, tail)
    if default is not None:
        evidence.append(f"the program makes CUDA the default device ({default[0]})")
    return Analysis(evidence=tuple(evidence))


def analyse_nonfinite_probabilities(text: str) -> Analysis:
    """The float16 the text loads the model in, if it says so."""
    return quoted(_FLOAT16_SAID, text, lambda said: f"the text runs the model in float16 ({said[0]})")


_INT32_SAID = re.compile(
    r"numel needs to be smaller than int32_t max|canUse32BitIndexMath\(\w{1,20}\)"
    r"|input tensor must fit into 32-bit index math|less than INT_MAX elements"
)


def analyse_int32_limit(text: str) -> Analysis:
    """The limit as the message words it."""
    return quoted(_INT32_SAID, text, lambda said: f"the kernel indexes with 32-bit integers: {said[0]}")


def analyse_size_mismatch(text: str) -> Analysis:
    found = re.findall(
        r"size mismatch for (\S+): copying a param with shape torch\.Size\(\[([^\]]*)\]\) from checkpoint, "
        r"the shape in current model is torch\.Size\(\[([^\]]*)\]\)",
        text,
    )
    if not found:
        return Analysis()
    evidence = tuple(f"{name}: checkpoint [{saved}], model [{model}]" for name, saved, model in found[:8])
    names = ", ".join(repr(name) for name, _, _ in found[:8])
    return Analysis(
        evidence=evidence,
        fix=Fix(
            "Build the model with the configuration the checkpoint was trained with (number of classes, "
            "vocabulary or hidden size). To fine-tune with a new head instead, leave the mismatched tensors "
            f"out and load the rest: state = {{k: v for k, v in state.items() if k not in {{{names}}}}}; "
            "model.load_state_dict(state, strict=False)."
        ),
    )


_KEY_LIST = re.compile(r"(Missing|Unexpected) key\(s\) in state_dict:")
_QUOTED_KEY = re.compile(r"[\"']([^\"'\s]{1,300})[\"']")
_PREFIX = "module."


def _keys_listed(text: str) -> dict[str, list[str]]:
    """The first keys of the last Missing and Unexpected lists (at most 2,000 each)."""
    starts = [(m[1].lower(), m.end()) for m in _KEY_LIST.finditer(text[-400_000:])]
    lists: dict[str, list[str]] = {}
    for n, (kind, start) in enumerate(starts):
        end = starts[n + 1][1] if n + 1 < len(starts) else len(text[-400_000:])
        window = text[-400_000:][start : min(end, start + 200_000)]
        keys = [m[1] for m in islice(_QUOTED_KEY.finditer(window), 2000)]
        lists[kind] = keys
    return lists


# The files from_pretrained looked for and the folder, as diffusers and transformers name them; a folder of
# huggingface_hub's cache names its repository (models--<owner>--<name>, snapshots/<revision>).
_FILES_MISSING = re.compile(r"Error no file named ([^\n]{1,300}?) found in directory:? ?([^\n]{0,600})")
_CACHED_REPOSITORY = re.compile(r"models--([\w.-]{1,96})--([\w.-]{1,96})[/\\]snapshots")


def analyse_model_files_missing(text: str) -> Analysis:
    """The files missing and the folder; where the folder is a snapshot of huggingface_hub's cache, the
    command that fetches its repository again."""
    found = last_match(_FILES_MISSING, text[-200_000:])
    if found is None:
        return Analysis()
    folder = found[2].strip().rstrip(".")
    evidence = [f"missing: {found[1]}" + (f", in {folder}" if folder else "")]
    cached = last_match(_CACHED_REPOSITORY, folder)
    if cached is None:
        return Analysis(evidence=tuple(evidence))
    repository = f"{cached[1]}/{cached[2]}"
    evidence.append(f"the folder is a snapshot of {repository} in huggingface_hub's cache")
    fix = Fix(_MODEL_FILES_MISSING.fix.text, (f"hf download {repository}",))
    return Analysis(evidence=tuple(evidence), fix=fix)


def analyse_module_prefix(text: str) -> Analysis:
    """Which side carries 'module.', and whether the keys match once it is set aside."""
    lists = _keys_listed(text)
    missing, unexpected = lists.get("missing", []), lists.get("unexpected", [])
    if not missing and not unexpected:
        return Analysis()
    evidence: list[str] = []
    wrapped_model = bool(missing) and all(k.startswith(_PREFIX) for k in missing[:50])
    wrapped_checkpoint = bool(unexpected) and all(k.startswith(_PREFIX) for k in unexpected[:50])
    if wrapped_checkpoint and not wrapped_model:
        evidence.append(f"the checkpoint's keys begin with 'module.' ({unexpected[0]}), the model's do not")
    elif wrapped_model and not wrapped_checkpoint:
        evidence.append(
            f"the model's keys begin with 'module.' ({missing[0]}): it is wrapped, the checkpoint not"
        )
    bare = {k.removeprefix(_PREFIX) for k in missing}
    if missing and unexpected and not bare & {k.removeprefix(_PREFIX) for k in unexpected}:
        evidence.append(
            f"with 'module.' set aside the keys still differ (the model's {missing[0]}, the checkpoint's "
            f"{unexpected[0]})"
        )
        return Analysis(
            evidence=tuple(evidence),
            cause=(
                "The checkpoint's keys are not the model's even with the 'module.' prefix set aside: it "
                "holds another model, or another layout of it (a part wrapped on its own, a backbone's "
                "pretrained weights), not the same weights under a prefix."
            ),
            fix=Fix(
                "Load the checkpoint that was saved from this model, or load a part's weights into that "
                "part (model.backbone.load_state_dict(state)); compare the keys "
                "(list(state)[:5] against list(model.state_dict())[:5]) before renaming any."
            ),
        )
    if wrapped_model and not wrapped_checkpoint:
        return Analysis(
            evidence=tuple(evidence),
            fix=Fix(
                "The model is wrapped in DataParallel (or DistributedDataParallel) and the checkpoint was "
                "saved from the bare model: load it into model.module (model.module.load_state_dict(state)), "
                "or load it before wrapping the model.",
                ("model.module.load_state_dict(state)",),
            ),
        )
    return Analysis(evidence=tuple(evidence))


# torch's words: the classes of the loss's input, then the weight's shape.
_CLASS_WEIGHTS = re.compile(
    r"weight tensor should be defined either for all\s{1,20}(\d{1,9})\s{1,20}classes\s{1,20}or no classes"
    r"\s{1,20}but got (?:incorrect )?weight tensor of shape:?\s{0,4}\[([\d, ]{0,40})\]"
)


def analyse_class_weights(text: str) -> Analysis:
    """The weight's shape against the classes: a row of weights ([1, C]), or weights for another count."""
    found = last_match(_CLASS_WEIGHTS, text[-200_000:])
    if found is None:
        return Analysis()
    classes = int(found[1])
    shape = [int(n) for n in re.findall(r"\d+", found[2])]
    if len(shape) == 2 and 1 in shape and classes in shape:
        return Analysis(
            evidence=(f"the weight is 2-D, [{found[2]}]: {classes} weights in one row",),
            fix=Fix(
                "Make the weight 1-D: weight.view(-1) (or weight.squeeze(0)) before it is given to the loss; "
                f"its {classes} weights are the right count, in one row of a 2-D tensor.",
            ),
        )
    if len(shape) == 1 and shape[0] != classes:
        fewer = "fewer" if shape[0] < classes else "more"
        line = (
            f"{shape[0]} weights for the {classes} classes of the loss's input: {fewer} weights than classes"
        )
        return Analysis(evidence=(line,))
    return Analysis(evidence=(f"the weight's shape is [{found[2]}] for {classes} classes",))


_LOADED_INTO = re.compile(r"Error\(s\) in loading state_dict for (\w{1,100}):")


def _renamed(missing: list[str], unexpected: list[str]) -> tuple[str, str] | None:
    """The model's and the checkpoint's names of the same layers, where the two lists differ key by key in
    one and the same part ("channelAtt.conv1.weight" against "cab.conv1.weight"): a renamed attribute."""
    if not missing or len(missing) != len(unexpected):
        return None
    renamings = set()
    for model_key, saved_key in zip(missing, unexpected, strict=True):
        model_parts, saved_parts = model_key.split("."), saved_key.split(".")
        if len(model_parts) != len(saved_parts):
            return None
        differ = [n for n, (a, b) in enumerate(zip(model_parts, saved_parts, strict=True)) if a != b]
        if len(differ) != 1:
            return None
        renamings.add((differ[0], model_parts[differ[0]], saved_parts[differ[0]]))
    if len(renamings) != 1:
        return None
    ((_, model_name, saved_name),) = renamings
    return model_name, saved_name


def _keys(count: int) -> str:
    return "1 key" if count == 1 else f"{count} keys"


def analyse_keys_mismatch(text: str) -> Analysis:
    """The model's class and the keys each side lacks; the same layers under other names, a renamed
    attribute. Declined where either side's keys all begin with DataParallel's 'module.'."""
    lists = _keys_listed(text)
    missing, unexpected = lists.get("missing", []), lists.get("unexpected", [])
    if any(keys and all(k.startswith(_PREFIX) for k in keys[:50]) for keys in (missing, unexpected)):
        return Analysis(declined=True)
    model = last_match(_LOADED_INTO, text[-400_000:])
    into = f"loading into {model[1]}: " if model is not None else ""
    shown = []
    if missing:
        shown.append(f"{_keys(len(missing))} of the model missing from the checkpoint ({missing[0]})")
    if unexpected:
        shown.append(f"{_keys(len(unexpected))} in the checkpoint the model lacks ({unexpected[0]})")
    if not shown:
        return Analysis()
    evidence = [into + ", ".join(shown) + " (as many as the text shows)"]
    renamed = _renamed(missing, unexpected)
    if renamed is not None:
        evidence.append(
            f"the same layers under other names: {renamed[0]} in the model, {renamed[1]} in the checkpoint "
            "(the code and the checkpoint are of different versions)"
        )
    return Analysis(evidence=tuple(evidence))


# Segmentation training: its labels are the usual index out of range (raw ids, colours, a void value).
_SEGMENTATION = re.compile(
    r"\b(?:cityscapes|ADE20K|Pascal ?VOC|VOC20\d\d|COCO-?Stuff|segmentation|segment\w{0,8}\.py"
    r"|label (?:images?|maps?|files?)|labelIds|SpatialClassNLLCriterion|nll_loss2d)\b",
    re.IGNORECASE | re.ASCII,  # "用的cityscapes": a Chinese character before it is no letter of the word
)
_SEGMENTATION_FIX = Fix(
    "A segmentation label image must hold class indices from 0 to num_classes - 1, and its void value must "
    "be the loss's ignore_index: Cityscapes' gtFine *_labelIds.png hold the 34 raw ids, so train on the "
    "*_labelTrainIds.png that cityscapesScripts' createTrainIdLabelImgs.py makes (19 classes, 255 for void); "
    "colour label images hold RGB values, to be converted to class indices; and the void value (255) needs "
    "ignore_index=255 in the loss (CrossEntropyLoss(ignore_index=255)) or a remap. Check labels.unique() of "
    "a few images on the CPU.",
    ("CUDA_LAUNCH_BLOCKING=1 python train.py",),
)


# A sequence longer than the model's position table: the traceback or the writer names the position
# embeddings or the model's length limit ("position_embeddings", "max sequence length (512)",
# "max_length=512", "the length of the sequence", "input_ids\"].shape = (1, 625)").
_POSITIONS = re.compile(
    r"\bpos(?:ition)?(?:al)?[ _]?(?:embed\w{0,10}|ids)\b|\bmax_position_embeddings\b"
    r"|\bmax(?:imum)?[ _](?:seq(?:uence)?[ _]|sentence[ _]|input[ _])?len(?:gth)?\b"
    r"(?:\s{0,2}=\s{0,2}\d{1,6})?"
    r"|\b(?:length|size) of the (?:sequence|input|sentence)s?\b|\b(?:sequence|sentence) length\b"
    r"|\binput_ids\W{0,5}\.shape\s{0,2}=\s{0,2}\(\d{1,4}, ?\d{3,6}\)",
    re.IGNORECASE,
)
_POSITIONS_CAUSE = (
    "A sequence is longer than the model's position table: the position embeddings have "
    "max_position_embeddings rows (512 for BERT and RoBERTa, 128 for some small models, 4096 for Longformer; "
    "a hand-written model's positional table its own size), and a longer input indexes past the last one."
)
_POSITIONS_FIX = Fix(
    "Truncate the inputs to the model's own maximum, special tokens included: tokenizer(..., "
    "truncation=True, max_length=<the model's max_position_embeddings>) "
    "(model.config.max_position_embeddings says it), or split long inputs into pieces that fit; drop the "
    "examples that are longer in training. A larger max_position_embeddings in the config adds no trained "
    "positions: that needs a model pretrained (or enlarged and fine-tuned) with a longer table.",
    (
        "python -c \"from transformers import AutoConfig; print(AutoConfig.from_pretrained('<model>')."
        'max_position_embeddings)"',
    ),
)


def _past_positions(analysis: Analysis, text: str) -> Analysis:
    """An index error the text ties to the position table or a length limit: a sequence too long."""
    found = last_match(_POSITIONS, text[-200_000:])
    if found is None:
        return analysis
    line = f"the text names the position table or the input's length ({' '.join(found[0].split())})"
    return Analysis(evidence=(*analysis.evidence, line), cause=_POSITIONS_CAUSE, fix=_POSITIONS_FIX)


def analyse_index_out_of_range(text: str) -> Analysis:
    """An embedding's index error: a position past the table where the text says so."""
    return _past_positions(Analysis(), text)


def analyse_device_assert(text: str) -> Analysis:
    assertion = last_match(re.compile(r"Assertion `([^`\n]{1,200})` failed"), text)
    analysis = Analysis()
    if assertion is not None:
        evidence = f"assertion: {assertion[1]}"
        case = next((c for c in _ASSERTIONS if c.compiled.search(assertion[1])), None)
        analysis = case.analysis(evidence) if case is not None else Analysis(evidence=(evidence,))
    line = _segmentation_said(text)
    if line is None:
        return _past_positions(analysis, text)
    return replace(analysis, evidence=(*analysis.evidence, line), fix=_SEGMENTATION_FIX)


def _segmentation_said(text: str) -> str | None:
    """The evidence line where the text is about segmentation, whose label images hold the class indices."""
    segmentation = last_match(_SEGMENTATION, text[-200_000:])
    if segmentation is None:
        return None
    return f"the text is about segmentation ({segmentation[0]}): its label images hold the class indices"


_SCALE = re.compile(r"(?:reducing loss scale to|reducing to) ([\d.]+(?:e[+-]?\d+)?)", re.IGNORECASE)


def analyse_fp16(text: str) -> Analysis:
    evidence: list[str] = []
    anomaly = last_match(
        re.compile(r"Function '([^'\n]{1,80})' returned nan values|Error detected in (\w+)\."), text
    )
    if anomaly is not None:
        evidence.append(f"anomaly detection: the backward of {anomaly[1] or anomaly[2]} produced NaN")
    scales = _SCALE.findall(text)
    if not scales and anomaly is not None:
        return Analysis(
            evidence=tuple(evidence),
            cause="Autograd's anomaly detection names the first backward function that produced NaN: its "
            "inputs or its own arithmetic made NaN or inf there. In half precision that is often an "
            "overflow; in float32 a NaN already in the data, a division by zero, log(0) or sqrt of a "
            "negative number.",
        )
    if not scales:
        return Analysis(evidence=tuple(evidence))
    last = float(scales[-1])
    if last >= 1:
        evidence.append(
            f"loss scale lowered to {scales[-1]}: a few skipped steps while it settles are normal"
        )
        return Analysis(evidence=tuple(evidence))
    evidence.append(f"the loss scale fell to {scales[-1]}: almost every step overflows")
    return Analysis(
        evidence=tuple(evidence),
        cause="The loss scaler lowered the scale below 1 and still finds inf or NaN gradients: the model "
        "itself produces inf or NaN in half precision (an overflowing activation or loss), not an occasional "
        "spike the scaler absorbs.",
    )


_PIPELINE_ON_CPU = re.compile(r"loaded with `(?:torch_)?dtype=torch\.float16` cannot run with `cpu` device")
_PIPELINE_ON_CPU_FIX = Fix(
    "Run the pipeline on the GPU: pipe.to('cuda'), with a CUDA build of torch that sees the GPU "
    "(torch.cuda.is_available() True; a script that picks 'cuda' only when it is True otherwise falls back "
    "to the CPU), and an offload or low-memory option that moves it back to the GPU before it runs; or load "
    "it in float32 to run on the CPU (torch_dtype=torch.float32). A program that parks the pipeline on the "
    "CPU between steps on purpose prints the warning harmlessly when it runs.",
    ('python -c "import torch; print(torch.__version__, torch.cuda.is_available())"',),
)


# The operation and the integer dtype in each generation's words: TH's "_th_floor_out not supported on
# CUDAType for Long" and "_exp_out is not implemented for type torch.cuda.LongTensor" (an op's name with _th_
# and _out around it), ATen's '"addmm_cuda" not implemented for 'Long''.
_INTEGER_KERNEL = re.compile(
    r"\b(\w{1,80}) is not implemented for type torch\.(cuda\.)?(\w{1,10})Tensor"
    r"|\b(_th_\w{1,80}) not supported on (\w{1,10})Type for (\w{1,10})"
    r"|\"(\w{1,80})\" not implemented for '(?:torch\.)?(cuda\.)?(\w{1,10}?)(?:Tensor)?'"
)
_TH_NAME = re.compile(r"^_(?:th_)?|_out$")
_LOSS_TARGET_FIX = Fix(
    "Give the loss int64 class targets: target.long() (target.to(torch.int64)) before the loss, or where the "
    "dataset makes them (labels read as int32 from NumPy or a table come as torch.int32); the CUDA loss "
    "takes int64 or uint8 targets alone."
)
_MASK_FIX = Fix(
    "Make the mask a bool tensor: mask.bool() (mask.byte() where the torch is older than 1.2, whose all() "
    "and any() take uint8 alone), as a library that takes a mask (torchcrf) asks."
)


def analyse_integer_kernel(text: str) -> Analysis:
    found = last_match(_INTEGER_KERNEL, text)
    if found is None:
        return Analysis()
    groups = found.groups()
    if groups[0] is not None:
        name, on_gpu, dtype = groups[0], groups[1] is not None, groups[2]
    elif groups[3] is not None:
        name, on_gpu, dtype = groups[3], groups[4] == "CUDA", groups[5]
    else:
        name, on_gpu, dtype = groups[6], groups[7] is not None or "cuda" in groups[6], groups[8]
    op = _TH_NAME.sub("", name)
    where = " on the GPU" if on_gpu else ""
    evidence = (f"{op} has no kernel for {dtype} tensors{where}",)
    if "nll_loss" in op or "cross_entropy" in op:
        return Analysis(evidence=evidence, fix=_LOSS_TARGET_FIX)
    if op in ("all", "any"):
        return Analysis(evidence=evidence, fix=_MASK_FIX)
    return Analysis(evidence=evidence)


# The two sizes torch.cat found, in each release's words: THC's "Got 4 and 5 in dimension 2", torch 1.x's
# "except in dimension 2. Got 70 and 71 (The offending index is 0)", torch 1.10's "Expected size 25 but got
# size 24 for tensor number 1 in the list".
_CAT_SIZES = re.compile(
    r"except in dimension \d{1,3}\. (?:Got (\d{1,9}) and (\d{1,9})(?: in dimension (\d{1,3}))?"
    r"|Expected size (\d{1,9}) but got size (\d{1,9}))"
)
_ROUNDED_SIDE_CAUSE = (
    "Two sizes one apart are a skip connection of an encoder-decoder (a U-Net) meeting the upsampled map: "
    "each downsampling rounds an odd side down (75 to 37) and upsampling doubles it back (74), so an input "
    "side that is no multiple of 2 to the number of downsamplings cannot come back to the skip's size."
)
_ROUNDED_SIDE_FIX = Fix(
    "Resize or pad the input so that its height and width (and depth, in 3D) are a multiple of 32 (2 to the "
    "number of downsamplings, 5 in most U-Nets: 736x512 rather than 760x540), or match the upsampled map to "
    "the skip's size in the model before torch.cat (F.interpolate(x, size=skip.shape[2:]) or F.pad)."
)


def analyse_cat_sizes(text: str) -> Analysis:
    found = last_match(_CAT_SIZES, text)
    if found is None:
        return Analysis()
    first, second, dimension = found[1] or found[4], found[2] or found[5], found[3]
    where = f" in dimension {dimension}" if dimension else ""
    evidence = (f"the tensors joined differ in size: {first} and {second}{where}",)
    one_apart = abs(int(first) - int(second)) == 1 and min(int(first), int(second)) >= 3
    if not one_apart:
        return Analysis(evidence=evidence)
    return Analysis(evidence=evidence, cause=_ROUNDED_SIDE_CAUSE, fix=_ROUNDED_SIDE_FIX)


_RESULT_CAST = re.compile(
    r"result type (\w{1,20}) can.t be cast to the desired output type ([A-Za-z]{1,20}(?: int)?)"
)
# YOLOv5's build_targets and its forks: Long grid indices clamped in place with a float bound (gain[3] - 1).
_GRID_CLAMP = re.compile(r"\bclamp_\(0, gain\[[23]\] - 1\)")
_GRID_CLAMP_FIX = Fix(
    "Cast the bounds build_targets clamps its Long grid indices with (utils/loss.py): "
    "gj.clamp_(0, gain[3].long() - 1), gi.clamp_(0, gain[2].long() - 1) (or int(gain[3]) - 1), at each such "
    "line; the torch the fork was written for accepted the float bound."
)


def analyse_inplace_cast(text: str) -> Analysis:
    found = last_match(_RESULT_CAST, text)
    if found is None:
        return Analysis()
    evidence = (f"a {found[1]} result is to be stored into a {found[2]} tensor",)
    if _GRID_CLAMP.search(text[-200_000:]) is None:
        return Analysis(evidence=evidence)
    line = "the text shows YOLO's build_targets clamping Long grid indices with a float bound (gain[3] - 1)"
    return Analysis(evidence=(*evidence, line), fix=_GRID_CLAMP_FIX)


_TARGET_BOUNDS = re.compile(r"\bTarget (-?\d{1,9}) is out of bounds")


def analyse_target_bounds(text: str) -> Analysis:
    found = last_match(_TARGET_BOUNDS, text)
    if found is None:
        return Analysis()
    target = int(found[1])
    evidence = [f"the target {found[1]} is outside the classes the model outputs"]
    if target < 0:
        evidence.append(
            "a negative target: class targets start at 0, and the loss skips only its ignore_index (-100 "
            "by default)"
        )
    line = _segmentation_said(text)
    if line is not None:
        return Analysis(evidence=(*evidence, line), fix=Fix(_SEGMENTATION_FIX.text))
    if target > 100:
        evidence.append(
            f"a target as large as {target} is often a pixel value of a label image or mask (0 to 255), "
            "read where a class index is meant"
        )
    return Analysis(evidence=tuple(evidence))


def _sizes(listed: str) -> list[int]:
    """The sizes of a shape as a message lists them ("1, 1, 224, 224", "64 3 11 11")."""
    return [int(size) for size in re.findall(r"\d+", listed)]


def _shown(sizes: list[int]) -> str:
    return f"[{', '.join(map(str, sizes))}]"


_INPUT_CHANNELS = re.compile(
    r"expected input\[([\d,\s]{1,80})\] to have (\d{1,6}) channels, but got (\d{1,6}) channels instead"
)
_IMAGE_KINDS = {
    (3, 1): "1 channel where 3 are expected: a grayscale image (PIL mode L) where RGB is expected",
    (3, 4): "4 channels where 3 are expected: an RGBA image (with transparency) where RGB is expected",
    (1, 3): "3 channels where 1 is expected: an RGB image given to a model built for grayscale input",
}


def analyse_input_channels(text: str) -> Analysis:
    found = last_match(_INPUT_CHANNELS, text)
    if found is None:
        return Analysis()
    shape = _sizes(found[1])
    expected, got = int(found[2]), int(found[3])
    evidence = [f"the first layer takes {expected} channels; the input {_shown(shape)} has {got}"]
    kind = _IMAGE_KINDS.get((expected, got))
    if kind is not None:
        evidence.append(kind)
    elif len(shape) == 4 and shape[-1] == expected:
        evidence.append(
            f"its last dimension holds the {expected} channels: the batch is laid out (N, H, W, C), as a "
            "NumPy or PIL image array is"
        )
    return Analysis(evidence=tuple(evidence))


_STACK_SIZES = re.compile(
    r"stack expects each tensor to be equal size, but got \[([\d,\s]{0,80})\] at entry (\d{1,9}) and "
    r"\[([\d,\s]{0,80})\] at entry (\d{1,9})"
)


def analyse_stack_sizes(text: str) -> Analysis:
    found = last_match(_STACK_SIZES, text)
    if found is None:
        return Analysis()
    first, second = _sizes(found[1]), _sizes(found[3])
    evidence = [
        f"the batch's items differ: {_shown(first)} (entry {found[2]}) and {_shown(second)} "
        f"(entry {found[4]})"
    ]
    if len(first) == len(second) == 3 and first[0] == second[0]:
        if sorted(first[1:]) == sorted(second[1:]):
            evidence.append(
                "the same sizes with height and width swapped: non-square images in two orientations"
            )
        else:
            evidence.append(
                f"images of different sizes ({first[0]} channels; {first[1]}x{first[2]} against "
                f"{second[1]}x{second[2]})"
            )
    return Analysis(evidence=tuple(evidence))


def analyse_pickled_by_older_torch(text: str) -> Analysis:
    """The release of torch the text runs, where it says."""
    line = "nn.Upsample's forward reads recompute_scale_factor from torch 1.11 on"
    said = versions_said(text[-200_000:]).get("torch")
    if said is None:
        return Analysis(evidence=(line,))
    return Analysis(evidence=(line, f"the text shows torch {said}"))


def analyse_half_on_cpu(text: str) -> Analysis:
    op = last_match(re.compile(r"\"(\w{1,80})\" not implemented for 'Half'"), text)
    evidence = (f"the kernel without float16 support: {op[1]}",) if op else ()
    if last_match(_PIPELINE_ON_CPU, text[-200_000:]) is None:
        return Analysis(evidence=evidence)
    line = "diffusers warns that a float16 pipeline is on the CPU"
    return Analysis(evidence=(*evidence, line), fix=_PIPELINE_ON_CPU_FIX)


# The dtype MPS refused, and what to do for each: "Trying to convert ComplexFloat to the MPS backend".
_MPS_DTYPE = re.compile(r"Trying to convert (\w{1,40}) to the MPS backend|MPS (BFloat16) is only supported")
_MPS_DTYPE_FIXES = (
    (
        "Float8",
        "MPS has no float8: the model's weights are an fp8 checkpoint (Flux, SD3.5 and Wan *_fp8 files) "
        "made for NVIDIA GPUs. Use the model's fp16 or bf16 checkpoint, or a GGUF quantization of it, or "
        "load with the loader's weight dtype set to default or fp16.",
    ),
    (
        "ComplexDouble",
        "complex128 has no MPS type: cast to complex64 (and float64 to float32) before moving to MPS: "
        "x.to(torch.complex64).",
    ),
    (
        "Complex",
        "Complex tensors (an FFT's output) run on MPS only on macOS 14 or newer with a torch that supports "
        "them: upgrade macOS and torch, or run the complex operation on the CPU (torch.fft.fftn(x.cpu()), "
        "then .to('mps') on the result).",
    ),
    (
        "BFloat16",
        "bfloat16 runs on MPS only on macOS 14 (Sonoma) or newer with torch 2.3 or newer: upgrade both, or "
        "load the model in float16 or float32.",
    ),
    ("Double", "MPS has no float64: cast to float32 before moving to MPS (x.float(), or np.float32 arrays)."),
)


def analyse_mps_dtype(text: str) -> Analysis:
    found = last_match(_MPS_DTYPE, text[-200_000:])
    if found is None:
        return Analysis()
    dtype = found[1] or found[2]
    fix = next((f for prefix, f in _MPS_DTYPE_FIXES if dtype.startswith(prefix)), None)
    evidence = (f"the dtype MPS refused: {dtype}",)
    return Analysis(evidence=evidence) if fix is None else Analysis(evidence=evidence, fix=Fix(fix))


def analyse_mps_op(text: str) -> Analysis:
    op = last_match(re.compile(r"operator '([\w:.]{1,100})' is not current"), text)
    if op is None:
        op = last_match(re.compile(r"Could not run '([\w:.]{1,100})' with arguments from the 'MPS'"), text)
    if op is None:
        return Analysis()
    evidence = [f"the operation without an MPS kernel: {op[1]}"]
    if re.search(r"will fall back to run on the CPU", text[op.start() : op.start() + 300]):
        evidence.append("a warning: PYTORCH_ENABLE_MPS_FALLBACK is on, the operation runs on the CPU")
    return Analysis(evidence=tuple(evidence))


# Lightning's suggestion: "(try 128 which is the number of cpus on this machine)" (1.x), "to `num_workers=19`"
# (2.x); a GPU utilization the writer gives ("Volatile GPU-util indicates 0%").
_WORKERS_SUGGESTED = re.compile(
    r"\(try \d{1,4} which is the number of cpus on this machine\)|`num_workers=\d{1,4}`"
)
_UTILIZATION = re.compile(r"\bGPU[- ]?util(?:i[sz]ation)?\b[^\n%]{0,60}?\b(\d{1,3}) ?%", re.IGNORECASE)


def analyse_input_bound(text: str) -> Analysis:
    """The worker count Lightning suggests and the GPU utilization the writer gives."""
    return quoted_lines(
        text,
        (_WORKERS_SUGGESTED, lambda found: f"Lightning suggests {found[0].strip('()')}"),
        (_UTILIZATION, lambda found: f"the text gives GPU utilization {found[1]}%"),
    )


_META_KEY = re.compile(r"for ([\w.]{1,200}): copying from a non-meta parameter in the checkpoint to a meta")
_DEVICE_MAP = re.compile(r"device_map\s{0,3}=\s{0,3}[\"']?(\w{1,20})|\bdevice\b[^\n]{0,20}?[\"'](auto)[\"']")


def analyse_meta_load(text: str) -> Analysis:
    """How many parameters the warning names, one of them, and a device_map the text sets."""
    tail = text[-200_000:]
    keys = [m[1] for _, m in zip(range(5000), _META_KEY.finditer(tail), strict=False)]
    evidence = []
    if keys:
        many = f"{len(keys)} parameters" if len(keys) > 1 else "a parameter"
        evidence.append(f"{many} stayed on the meta device (e.g. {keys[0]})")
    mapped = last_match(_DEVICE_MAP, tail)
    if mapped is not None:
        evidence.append(f"the text sets device_map={mapped[1] or mapped[2]}")
    return Analysis(evidence=tuple(evidence))


_UNPICKLABLE = re.compile(
    r"""Can't (?:pickle|get) local object [`'"]?([\w.<>]{1,200})"""
    r"|Can't pickle <(?:function|class) [^\n]{0,120}?>: attribute lookup ([\w.<>]{1,100}) on ([\w.]{1,100})"
    r"""|Can't get attribute [`'"]([\w.]{1,100})[`'"] on <module [`'"]__(?:mp_)?main__"""
)
_SPAWNED_ON = (
    (
        re.compile(r"(?<![\w/])[A-Z]:\\[\w.-]|\bwin(?:dows|32|10|11)\b|popen_spawn_win32", re.IGNORECASE),
        "Windows",
    ),
    (re.compile(r"\bmac ?OS\b|/Users/\w|\bdarwin\b", re.IGNORECASE), "macOS"),
)


def _unpicklable(found: re.Match[str]) -> str:
    """What the message says could not be pickled, in words."""
    if found[4] is not None:
        return f"the class {found[4]}, defined in __main__ (a notebook or the script itself)"
    if found[2] is not None:
        what = "a lambda" if found[2] == "<lambda>" else found[2]
        return f"{what} of {found[3]}, which pickle could not look up by its name"
    name = found[1]
    outer, local, inner = name.partition(".<locals>.")
    if not local:
        return name
    what = "a lambda" if inner == "<lambda>" else inner
    return f"{name}: {what}, defined inside {outer.removesuffix('.__init__')}()"


def _spawned_on(tail: str) -> str | None:
    """The system the text is on where worker processes are started with spawn, or None."""
    return next((system for pattern, system in _SPAWNED_ON if pattern.search(tail) is not None), None)


def analyse_worker_pickling(text: str) -> Analysis:
    """What could not be pickled, and the system that starts workers with spawn."""
    tail = text[-200_000:]
    evidence = []
    found = last_match(_UNPICKLABLE, tail)
    if found is not None:
        evidence.append(f"what could not be pickled: {_unpicklable(found)}")
    system = _spawned_on(tail)
    if system is not None:
        evidence.append(f"the text is on {system}, where worker processes are started with spawn")
    return Analysis(evidence=tuple(evidence))


# Where the text shows the reads: a DataLoader worker's frame, or dask and xarray reading the file.
_IN_LOADER_WORKER = re.compile(r"\b_worker_loop\b|DataLoader worker")
_DASK_READING = re.compile(r"\bdask\b|\bxarray\b|\bopen_mfdataset\b|CachingFileManager", re.IGNORECASE)
_DASK_READING_FIX = Fix(
    "Let each dask worker open the file itself rather than sending it an open dataset, and read serially "
    "(xr.open_mfdataset(..., parallel=False)) with xarray's default lock kept (not lock=False). In a PyTorch "
    "Dataset, open the file on first use in __getitem__ or in the DataLoader's worker_init_fn, not in "
    "__init__; num_workers=0 confirms it (one process reads).",
    ("xr.open_mfdataset(paths, parallel=False)",),
)


def analyse_shared_file_handle(text: str) -> Analysis:
    """Whether the reads are a DataLoader worker's, or dask's and xarray's (their fix first)."""
    tail = text[-200_000:]
    evidence = []
    if _IN_LOADER_WORKER.search(tail) is not None:
        evidence.append(
            "the error is raised in a DataLoader worker (_worker_loop): a process forked from the main one, "
            "with the files it had open"
        )
    if _DASK_READING.search(tail) is None:
        return Analysis(evidence=tuple(evidence))
    evidence.append(
        "the text shows dask or xarray reading the file: their workers or threads share the handle"
    )
    return Analysis(evidence=tuple(evidence), fix=_DASK_READING_FIX)


# The program's own worker count as the text shows it ("num_workers=8", "--workers 4", "num_workers: 16").
_WORKERS_SAID = re.compile(
    r"\b(?:--?)?(?:num_workers|n_workers|workers)\b[ \t]*[=:]?[ \t]*\d{1,3}\b", re.IGNORECASE
)


def analyse_worker_exited(text: str) -> Analysis:
    """The system that starts workers with spawn, and the worker count the text shows."""
    tail = text[-200_000:]
    evidence = []
    workers = last_match(_WORKERS_SAID, tail)
    if workers is not None:
        evidence.append(f"the text sets the workers: {' '.join(workers[0].split())}")
    system = _spawned_on(tail)
    if system is not None:
        evidence.append(
            f"the text is on {system}, where worker processes are started with spawn and import the script "
            "again: its code must be under if __name__ == '__main__':"
        )
    return Analysis(evidence=tuple(evidence))


def analyse_run_on_cpu(text: str) -> Analysis:
    """A CUDA build of torch the text pins (a conda build string): a CPU build of the release replaces it."""
    pinned = [b for b in conda_builds.named(text[-200_000:]) if b.cuda != "cpu"]
    if not pinned:
        return Analysis()
    build = pinned[-1]
    return Analysis(
        evidence=(
            f"the text names {build.written}: torch {build.version} built for CUDA {build.cuda}, which needs "
            "an NVIDIA GPU; on the CPU a CPU-only build of the same release takes its place",
        )
    )


# Something of an image around a 3-against-4 mismatch: the words, a file type, PIL, torchvision's transforms.
_IMAGE_SAID = re.compile(
    r"\b(?:images?|img|imgs|png|jpe?g|webp|RGBA?|alpha|photos?|pictures?|pixels?|PIL|ComfyUI)\b"
    r"|Image\.open|transforms[/\\.]|\bnormalize\b|\.convert\(",
    re.IGNORECASE,
)
_CHANNELS = re.compile(
    r"size of tensor a \(([34])\) must match the size of tensor b \(([34])\) "
    r"at non-singleton dimension (-?\d)"
    r"|Expected size ([34]) but got size ([34]) for tensor number"
)


def analyse_alpha_channel(text: str) -> Analysis:
    """3 against 4 read as an image's channels only where the text shows an image; the dimension it names."""
    tail = text[-200_000:]
    if _IMAGE_SAID.search(tail) is None:
        return Analysis(declined=True)
    found = last_match(_CHANNELS, tail)
    if found is None:
        return Analysis()
    if found[1]:
        return Analysis(
            evidence=(
                f"{found[1]} channels against {found[2]} at dimension {found[3]}: RGBA's 4 against RGB's 3",
            )
        )
    return Analysis(
        evidence=(f"a tensor of size {found[5]} where {found[4]} was expected: RGBA's 4 against RGB's 3",)
    )


# libtorch's release, where a C++ program loads: its download name ("libtorch-cxx11-abi-shared-with-deps-
# 1.11.0%2Bcpu.zip") or the writer's words ("libtorch version 1.11.0").
_LIBTORCH_RELEASE = re.compile(
    r"\blibtorch(?:[\w.%+-]{0,60}?-|\s?(?:version\s?(?:is|:|=)?|==)\s{0,3}v?)(\d\.\d{1,2}\.\d{1,2})",
    re.IGNORECASE,
)


def analyse_legacy_torchscript(text: str) -> Analysis:
    """The release of torch (or libtorch) the text loads with."""
    tail = text[-200_000:]
    said = versions_said(tail).get("torch")
    libtorch = last_match(_LIBTORCH_RELEASE, tail)
    version = said.partition("+")[0] if said else libtorch[1] if libtorch else None
    if version is None:
        return Analysis()
    major, minor = (int(part) for part in version.split(".")[:2])
    reads = (
        "which no longer reads the legacy format" if (major, minor) >= (1, 11) else "a release before 1.11"
    )
    return Analysis(evidence=(f"the text shows torch {version}, {reads}",))


# BatchNorm's input size as its check gives it: "got input size torch.Size([1, 256, 1, 1])", or "[1, 128]".
_BATCHNORM_INPUT = re.compile(r"got input size (?:torch\.Size\()?\[(\d{1,9}(?:, \d{1,9}){1,5})\]\)?")


def analyse_one_value_per_channel(text: str) -> Analysis:
    """The input size BatchNorm was given: the batch, the channels, and maps of one value each."""

    def line(found: re.Match[str]) -> str:
        batch, channels, *rest = (int(part) for part in found[1].split(", "))
        maps = f", {'x'.join(str(r) for r in rest)} maps" if rest else ""
        size = found[0][len("got input size ") :]
        return f"BatchNorm got {size}: a batch of {batch}, {channels} channels{maps}"

    return quoted(_BATCHNORM_INPUT, text, line)


# The dtype the embedding's check was given: "but got torch.cuda.FloatTensor", "but got CUDAIntTensor".
_INDEX_GIVEN = re.compile(
    r"argument #1 'indices' to have [^;\n]{0,80}; but got ((?:torch\.)?(?:cuda\.)?(?:CUDA)?(\w{1,12})Tensor)"
)


def analyse_index_dtype(text: str) -> Analysis:
    """The tensor type the indices were: float ids, or int32 ones."""

    def line(found: re.Match[str]) -> str:
        kind = "float" if found[2] in ("Float", "Double", "Half", "BFloat16") else found[2].lower()
        return f"the indices are a {found[1]}: {kind} ids, where the lookup takes int64"

    return quoted(_INDEX_GIVEN, text, line)


def asked_for_cpu(text: str) -> Analysis | None:
    """The writer asking to run the program on the CPU (device.run_on_cpu's words): read beside a no-GPU
    message (no driver, no GPUs, a CPU-only torch), its explanation is that entry's, since installing a
    driver or a CUDA build is not what the writer wants; None where the writer does not ask."""
    found = _RUN_ON_CPU.last_symptom(text[-200_000:])
    if found is None:
        return None
    line = f"the writer asks to run the program on the CPU ({' '.join(found[0].split())})"
    return Analysis(evidence=(line,), cause=_RUN_ON_CPU.cause, fix=_RUN_ON_CPU.fix)


# The open-file limit where the text states it: "ulimit=1024", "ulimit -n is 1024", "ulimit -n 4096".
_FILE_LIMIT = re.compile(r"\bulimit(?: -n)?\s{0,3}(?:=|is|of|:)?\s{0,3}(\d{3,7})\b", re.IGNORECASE)


# torch's sharing of tensors between processes, in a traceback's frames or the writer's words.
_TENSOR_SHARING = re.compile(
    r"received 0 items of ancdata|torch[/\\]multiprocessing|\breduce_storage\b|\bDataLoader\b"
    r"|\bnum_workers\b|Communication with the workers is no longer possible",
    re.IGNORECASE,
)


def analyse_fd_limit(text: str) -> Analysis:
    """The open-file limit the text gives; 'Too many open files' where nothing shows torch's sharing of
    tensors between processes is another program's (declined)."""
    if _TENSOR_SHARING.search(text[-200_000:]) is None:
        return Analysis(declined=True)
    return quoted(
        _FILE_LIMIT, text, lambda found: f"the open-file limit the text gives: {found[1]} ({found[0]})"
    )


# The dtype the message names ("at::Half", "c10::BFloat16", "float", "uint8_t") and the range of each.
_OVERFLOW = re.compile(r"value cannot be converted to type (?:(?:at|c10)::)?(\w{1,40}) without overflow")
_DTYPE_RANGES = {
    "Half": "float16, whose values lie within ±65504",
    "BFloat16": "bfloat16, whose values lie within about ±3.39e38",
    "float": "float32, whose values lie within about ±3.40e38",
}
_INTEGER_RANGES = {
    "uint8_t": "uint8, whose values lie within 0 to 255",
    "int8_t": "int8, whose values lie within -128 to 127",
    "int16_t": "int16, whose values lie within -32768 to 32767",
    "int": "int32, whose values lie within -2147483648 to 2147483647",
}
_INTEGER_OVERFLOW = Analysis(
    cause=(
        "A constant outside the range of the tensor's integer dtype was written into it (masked_fill, "
        "fill_, an assignment x[mask] = v): an image's uint8 pixels set to 256 or -1, a label tensor of a "
        "narrow type."
    ),
    fix=Fix(
        "Write a value within the dtype's range (clamp it first), or convert the tensor to a wider dtype "
        "before writing (x = x.long(), or x.float() for pixel arithmetic, then back with .to(torch.uint8))."
    ),
)
# The value a statement writes: masked_fill(mask, v), fill_(v), x[...] = v; a line of code or a quote of it.
_VALUE_WRITTEN = re.compile(
    r"\.masked_fill_?\([^,\n]{1,200},\s*(?P<fill>[^\n]{1,80})\)\s*(?:;[^\n]*)?$"
    r"|\.fill_\(\s*(?P<single>[^\n]{1,80})\)\s*(?:;[^\n]*)?$"
    r"|\]\s*=\s*(?P<assigned>-?[^\s;=]{1,60})\s*(?:;[^\n]*)?$",
    re.MULTILINE,
)


def analyse_overflow(text: str) -> Analysis:
    """The dtype that cannot hold the value, and the value the code writes (the last statement before the
    message that writes one)."""
    message = last_match(_OVERFLOW, text[-200_000:])
    if message is None:
        return Analysis()
    start = len(text) - min(len(text), 200_000) + message.start()
    evidence = []
    dtype = _DTYPE_RANGES.get(message[1]) or _INTEGER_RANGES.get(message[1])
    if dtype is not None:
        evidence.append(f"the tensor is {dtype}")
    written = last_match(_VALUE_WRITTEN, text[max(0, start - 2_000) : start])
    if written is not None:
        value = written["fill"] or written["single"] or written["assigned"]
        evidence.append(f"the value written: {value.strip()}")
    if message[1] in _INTEGER_RANGES:
        return replace(_INTEGER_OVERFLOW, evidence=tuple(evidence))
    return Analysis(evidence=tuple(evidence))


_RNN_BACKWARD = re.compile(
    r"(?:cudnn|miopen) RNN backward can only be called in training mode", re.IGNORECASE
)


def analyse_rnn_backward_in_eval(text: str) -> Analysis:
    """The program's line whose backward ran through the RNN, where the traceback shows it."""
    message = last_match(_RNN_BACKWARD, text)
    statement = failing_statement(text, message.start()) if message is not None else None
    if statement is None:
        return Analysis()
    return Analysis(evidence=(f"the backward runs at {statement}: the model was in eval mode there",))


_IPC_FAILURE = re.compile(
    r"(?:error=(?P<number>\d+) : |cuda runtime error \((?P<runtime>\d+)\) : )?(?:OS call failed or )?"
    r"operation not supported(?: on this OS)?",
    re.IGNORECASE,
)
_IN_DATALOADER = re.compile(r"DataLoader|num_workers|_worker_loop", re.IGNORECASE)
_PROCESS_STARTED = re.compile(r"popen_spawn_win32|\.start\(\)|\bProcess\(", re.IGNORECASE)


def analyse_cuda_ipc_on_windows(text: str) -> Analysis:
    """The CUDA error number StorageSharing.cpp gave, and how the tensor crossed processes where the text
    shows it (a DataLoader's workers, or a process started with it)."""
    tail = text[-200_000:]
    failure = last_match(_IPC_FAILURE, tail)
    if failure is None:
        return Analysis()
    number = failure["number"] or failure["runtime"]
    said = f"error {number}: " if number else ""
    evidence = [
        f"{said}{failure[0].split(': ')[-1]} in StorageSharing.cpp, where torch asks CUDA for a handle to "
        "share a tensor's memory with another process"
    ]
    # the traceback around the message (THC prints its line before the traceback), not the rest of the text
    around = tail[max(0, failure.start() - 20_000) : failure.start() + 20_000]
    if _IN_DATALOADER.search(around):
        evidence.append("the tensors cross into the DataLoader's worker processes (num_workers > 0)")
    elif _PROCESS_STARTED.search(around):
        evidence.append("a process is started with CUDA tensors (or a CUDA model) among what it is given")
    return Analysis(evidence=tuple(evidence))


_WORKER_EXCEPTION = re.compile(
    r"\b(\w{1,60}(?:Error|Exception|Interrupt)) in DataLoader worker process \d{1,4}\b"
)


def analyse_worker_exception(text: str) -> Analysis:
    """The type of the exception the worker raised."""
    return quoted(
        _WORKER_EXCEPTION,
        text,
        lambda m: (
            f"the worker raised {m[1]} while it loaded a batch: the traceback under 'Original "
            "Traceback' is the worker's own"
        ),
    )


# Why scaled_dot_product_attention refused a fused kernel, in torch's warnings before "No available kernel"
# (sdp_utils): "UserWarning: Both fused kernels do not support non-null attn_mask. (Triggered internally at
# ../aten/src/ATen/native/transformers/cuda/sdp_utils.h:191.)"; a header ending "not used because:" says none.
_SDPA_REASON = re.compile(
    r"UserWarning: ([^\n]{5,300}?) ?\(Triggered internally at [^\n]{0,300}?sdp_utils", re.IGNORECASE
)
_MAX_SDPA_REASONS = 3


def analyse_no_available_kernel(text: str) -> Analysis:
    """The reasons torch warned of for refusing each fused attention kernel, where the text shows them."""
    tail = text[-200_000:]
    reasons = dict.fromkeys(
        reason
        for match in _SDPA_REASON.finditer(tail)
        if not (reason := match[1].strip()).endswith("because:")
    )
    return Analysis(
        evidence=tuple(
            f"torch's reason for refusing a fused kernel: {reason}"
            for reason in islice(reasons, _MAX_SDPA_REASONS)
        )
    )


# A macOS path in the warning: torch's macOS builds have no CUDA (pytorch.org's install selector), so CUDA
# autocast is off there on every Mac. Not Windows' C:\Users.
_MACOS_PATH = re.compile(r"(?<![\w:\\])/Users/[^\s/]{1,80}/")


def analyse_autocast_disabled(text: str) -> Analysis:
    if _MACOS_PATH.search(text[-200_000:]) is None:
        return Analysis()
    return Analysis(
        evidence=(
            "a macOS path (/Users/...): torch's macOS builds have no CUDA, so CUDA autocast is off on every "
            "Mac; the device type there is 'mps' or 'cpu'",
        )
    )


_BITWISE_KERNEL = re.compile(
    r"\"((bitwise_and|bitwise_or|bitwise_xor|bitwise_not|lshift|rshift)_(?:cuda|cpu|mps))\" "
    r"not implemented for '(\w{1,20})'"
)
_BITWISE_OPERATOR = {
    "bitwise_and": "&",
    "bitwise_or": "|",
    "bitwise_xor": "^",
    "bitwise_not": "~",
    "lshift": "<<",
    "rshift": ">>",
}


def analyse_bitwise_on_float(text: str) -> Analysis:
    return quoted(
        _BITWISE_KERNEL,
        text,
        lambda f: (
            f"{f[1]} was given a {f[3]} tensor: {_BITWISE_OPERATOR[f[2]]} takes bool or integer tensors"
        ),
    )


_STORAGE_DEVICES = re.compile(
    r"Attempted to set the storage of a tensor on device\s{1,8}\"?([\w:]{1,40})\"?\s{1,8}to a storage on "
    r"different device\s{1,8}\"?([\w:]{1,40})"
)


def analyse_storage_from_another_device(text: str) -> Analysis:
    return quoted(_STORAGE_DEVICES, text, lambda f: f"a tensor on {f[1]} was given a storage on {f[2]}")


_SAVED_TENSOR_CHANGED = re.compile(
    r"modified by an inplace operation:\s{1,8}\[([\w.]{1,60}) \[([\d, ]{0,80})\]\],?"
    r"(?:\s{1,8}which is (output \d{1,3} of \w{1,80}),)?\s{1,8}is at version\s{1,8}(\d{1,12});"
    r"\s{1,8}expected version\s{1,8}(\d{1,12})"
)


def _changed_in_place(found: re.Match[str]) -> str:
    made_by = f", {found[3]}," if found[3] else ""
    return (
        f"{found[1]} [{found[2]}]{made_by} was changed in place after autograd saved it: at version "
        f"{found[4]}, saved at version {found[5]}"
    )


def analyse_modified_in_place(text: str) -> Analysis:
    return quoted(_SAVED_TENSOR_CHANGED, text, _changed_in_place)


_NO_GRAD_SAID = re.compile(r"\b(torch\.no_grad\(\)|no_grad\(\)|NoGradGuard|inference_mode\(\))")


def analyse_no_graph(text: str) -> Analysis:
    return quoted(
        _NO_GRAD_SAID,
        text,
        lambda f: f"the text shows {f[1]}: what is computed under it has no graph to go back through",
    )


ENTRIES: tuple[Entry, ...] = catalogue_file.read(__package__, globals())
_MODEL_FILES_MISSING: Entry = next(e for e in ENTRIES if e.id == "load.model_files_missing")
_DEVICES: Entry = next(e for e in ENTRIES if e.id == "tensors.different_devices")
_RUN_ON_CPU: Entry = next(e for e in ENTRIES if e.id == "device.run_on_cpu")
