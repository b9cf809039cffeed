"""Error messages caused by the training code itself: tensors on different devices or of different dtypes
(in the wording of every torch generation), checkpoints of another shape, device-side asserts, half
precision that overflows or runs on the CPU, and operations the Apple GPU (MPS) does not have.

Registered in the entry-point group ``torchdoctor.explanations``; quoted from where torch raises them, and
the real texts of tests/corpus/errors.
"""

from __future__ import annotations

import re

from torchdoctor.explain import Analysis, Entry
from torchdoctor.explain.model import last_match
from torchdoctor.model import Fix

_AUDIT = (
    "torchdoctor.audit(model, *inputs) lists every tensor with its device, and what Module.to() does not move"
)

# The device and dtype mismatches of torch 0.4 and 1.x name tensor types (torch.cuda.FloatTensor): one side
# with cuda and the other without is a device mismatch; both on one device, a dtype mismatch. The patterns
# below split them so; \1 in the dtype patterns is the first type, which the second must differ from.
_CUDA, _CPU = r"torch\.cuda\.", r"torch\.(?!cuda\.)"
_VAR = r"(?:Variable\[)?"

_DEVICE_PATTERNS = (
    r"Expected all tensors to be on the same device",
    r"\bis on \S+, different from other tensors on ",
    r"Tensor on device \S+ is not on the expected device",
    r"Expected object of device type \w+ but got device type \w+",
    r"Expected object of backend \w+ but got backend \w+",
    rf"Input type \({_CUDA}\w+\) and weight type \({_CPU}\w+\)",
    rf"Input type \({_CPU}\w+\) and weight type \({_CUDA}\w+\)",
    r"Input type \(CUDA\w+\) and weight type \((?!CUDA)\w+\)",
    r"Input type \((?!CUDA)\w+\) and weight type \(CUDA\w+\)",
    r"Input type \(MPS\w+\) and weight type \(torch\.\w+\)",
    rf"Expected object of type {_VAR}{_CUDA}\w+\]? but found type {_VAR}{_CPU}\w+",
    rf"Expected object of type {_VAR}{_CPU}\w+\]? but found type {_VAR}{_CUDA}\w+",
    rf"but type {_CUDA}\w+ does not equal {_CPU}\w+",
    rf"but type {_CPU}\w+ does not equal {_CUDA}\w+",
    r"is on CPU, but expected (?:it|them) to be on GPU",
    r"to have the same device as tensor for argument",
    r"indices should be either on cpu or on the same device as the indexed tensor",
    r"all input tensors must be on the same device\. Received \S+ and \S+",
)

_DTYPE_PATTERNS = (
    r"mat1 and mat2 must have the same dtype",
    r"expected (?:m1|mat1) and (?:m2|mat2) to have the same dtype",
    r"expected scalar type \w+ but found \w+",
    r"Expected object of scalar type \w+ but got scalar type \w+",
    r"Found dtype \w+ but expected \w+",
    r"Input type \(\w+\) and bias type \(\w+\) should be the same",
    rf"Input type \({_CUDA}(\w+)\) and weight type \({_CUDA}(?!\1\))\w+\)",
    rf"Input type \({_CPU}(\w+)\) and weight type \({_CPU}(?!\1\))\w+\)",
    r"Input type \(CUDA(\w+)\) and weight type \(CUDA(?!\1\))\w+\)",
    r"Input type \((?!CUDA)(\w+)\) and weight type \((?!CUDA)(?!\1\))\w+\)",
    rf"Expected object of type {_VAR}{_CUDA}(\w+)\]? but found type {_VAR}{_CUDA}(?!\1\b)\w+",
    rf"Expected object of type {_VAR}{_CPU}(\w+)\]? but found type {_VAR}{_CPU}(?!\1\b)\w+",
    rf"but type {_CUDA}(\w+) does not equal {_CUDA}(?!\1\b)\w+",
    rf"but type {_CPU}(\w+) does not equal {_CPU}(?!\1\b)\w+",
)

_DEVICE_FORMS = (
    (r"found at least two devices, (\S+?) and (\S+?)[!,]", "devices involved: {0} and {1}"),
    (
        r"got (\w+) is on (\S+?), different from other tensors on (\S+?)[\s(,]",
        "{0} is on {1}, the other tensors on {2}",
    ),
    (r"Tensor on device (\S+) is not on the expected device (\S+?)!", "devices involved: {0} and {1}"),
    (r"must be on the same device\. Received (\S+) and (\w+(?::\d+)?)", "devices involved: {0} and {1}"),
    (
        r"Expected object of (?:device type|backend) (\w+) but got (?:device type|backend) (\w+) "
        r"for argument #\d+ '(\w+)'",
        "argument '{2}' is on {1}, the operation runs on {0}",
    ),
    (r"Input type \(([\w.]+)\) and weight type \(([\w.]+)\)", "the input is a {0}, the weights a {1}"),
    (
        r"Expected object of type ([\w.\[\]]+) but found type ([\w.\[\]]+) for argument #\d+ '(\w+)'",
        "argument '{2}' is a {1}, the operation expects a {0}",
    ),
    (r"Tensor for argument #\d+ '(\w+)' is on (\w+), but expected", "argument '{0}' is on {1}"),
)


def analyse_devices(text: str) -> Analysis:
    found = [(m, form) for pattern, form in _DEVICE_FORMS if (m := last_match(re.compile(pattern), text))]
    if not found:
        return Analysis()
    match, form = max(found, key=lambda item: item[0].start())
    return Analysis(evidence=(form.format(*match.groups()),))


_DTYPE_FORMS = (
    (r"expected scalar type (\w+) but found (\w+)", "an input is {1} where {0} is expected"),
    (
        r"Expected object of scalar type (\w+) but got scalar type (\w+)",
        "an input is {1} where {0} is expected",
    ),
    (r"Found dtype (\w+) but expected (\w+)", "a tensor is {0} where {1} is expected"),
    (r"must have the same dtype, but got (\w+) and (\w+)", "the operands are {0} and {1}"),
    (r"Input type \(([\w.]+)\) and weight type \(([\w.]+)\)", "the input is a {0}, the weights a {1}"),
    (r"Expected object of type ([\w.\[\]]+) but found type ([\w.\[\]]+)", "a {1} where a {0} is expected"),
    (r"but type ([\w.]+) does not equal ([\w.]+)", "a {0} meets a {1}"),
)


def analyse_dtypes(text: str) -> Analysis:
    found = [(m, form) for pattern, form in _DTYPE_FORMS if (m := last_match(re.compile(pattern), text))]
    if not found:
        return Analysis()
    match, form = max(found, key=lambda item: item[0].start())
    evidence = [form.format(*match.groups())]
    if "double" in match[0].lower():
        evidence.append("float64 usually comes from NumPy arrays (torch.from_numpy keeps their float64)")
    return Analysis(evidence=tuple(evidence))


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


_ASSERTIONS = (
    (
        r"t >= 0 && t < n_classes",
        "a target label is negative or not below the number of classes (NLLLoss / CrossEntropyLoss)",
        "Make labels run from 0 to num_classes - 1 (check labels.min() and labels.max() on the CPU), give "
        "the output layer as many units as classes, and use ignore_index for padding labels.",
    ),
    (
        r"index out of bounds|srcIndex < srcSelectDimSize|indexSelect",
        "an index is beyond the size of the indexed dimension (a token id not below an embedding's "
        "num_embeddings, an index_select or gather out of range)",
        "Check the indices against the size they index (token ids against the vocabulary size after adding "
        "special tokens: model.resize_token_embeddings), on the CPU where the error names the line.",
    ),
    (
        r"input_val >= zero && input_val <= one",
        "BCELoss got a value outside [0, 1]",
        "Apply a sigmoid before BCELoss, or better use BCEWithLogitsLoss on the raw logits.",
    ),
)


def analyse_device_assert(text: str) -> Analysis:
    assertion = last_match(re.compile(r"Assertion `([^`\n]{1,200})` failed"), text)
    if assertion is None:
        return Analysis()
    evidence = [f"assertion: {assertion[1]}"]
    for pattern, meaning, fix in _ASSERTIONS:
        if re.search(pattern, assertion[1]):
            return Analysis(
                evidence=(*evidence, meaning),
                fix=Fix(fix, ("CUDA_LAUNCH_BLOCKING=1 python train.py",)),
            )
    return Analysis(evidence=tuple(evidence))


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


def analyse_half_on_cpu(text: str) -> Analysis:
    op = last_match(re.compile(r"\"(\w{1,80})\" not implemented for 'Half'"), text)
    return Analysis(evidence=(f"the kernel without float16 support: {op[1]}",)) if op else Analysis()


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


ENTRIES: tuple[Entry, ...] = (
    Entry(
        id="tensors.different_devices",
        title="Tensors on different devices",
        patterns=_DEVICE_PATTERNS,
        cause="An operation got tensors on different devices (a model on the GPU and a batch on the CPU, or "
        "a tensor that model.to(device) did not move because it is a plain attribute, not a parameter or "
        "buffer).",
        fix=Fix(
            "Move the model and every input to one device (model.to(device); batch = batch.to(device)); "
            f"register tensors the model keeps with self.register_buffer(). {_AUDIT}."
        ),
        source="ATen device checks (TensorIterator, checkSameDevice, checkAllSameGPU; 'Expected object of "
        "device type/backend' in torch 1.x THNN/TH bindings); torch 2.13 "
        "testing/_internal/common_methods_invocations.py; "
        "tests/corpus/errors/*/tensors.different_devices.json",
        analyse=analyse_devices,
    ),
    Entry(
        id="tensors.different_dtypes",
        title="Tensors of different dtypes",
        patterns=_DTYPE_PATTERNS,
        cause="An input's dtype differs from the parameters' (float64 data from NumPy into a float32 model, "
        "or half-precision weights with float32 inputs outside autocast).",
        fix=Fix(
            "Cast inputs to the parameters' dtype (x = x.to(next(model.parameters()).dtype)), or run the "
            f"forward pass under torch.autocast. {_AUDIT}."
        ),
        source="torch 2.13 CPU: nn.Linear(2, 2)(torch.zeros(1, 2, dtype=torch.float64)); ATen checkSameType "
        "and the scalar-type checks of torch 1.x; tests/corpus/errors/*/tensors.different_dtypes.json",
        analyse=analyse_dtypes,
    ),
    Entry(
        id="load.size_mismatch",
        title="load_state_dict: size mismatch",
        patterns=(r"size mismatch for \S+: copying a param with shape",),
        cause="The checkpoint was saved from a model of a different shape: another number of classes, "
        "vocabulary size or width than the model it is loaded into.",
        fix=Fix(
            "Build the model with the checkpoint's configuration, or load only the matching tensors with "
            "strict=False."
        ),
        source="torch 2.13 torch/nn/modules/module.py _load_from_state_dict",
        analyse=analyse_size_mismatch,
    ),
    Entry(
        id="cuda.device_side_assert",
        title="CUDA device-side assert",
        patterns=(r"device-side assert triggered", r"thread: \[\d+,\d+,\d+\] Assertion `"),
        cause="A kernel's own check failed, most often an index out of range: a class label at or above the "
        "number of classes in a loss, or a token id beyond an embedding. CUDA reports it asynchronously, so "
        "the traceback may point at a later line.",
        fix=Fix(
            "Run once with CUDA_LAUNCH_BLOCKING=1 (or on the CPU) for the real line and a readable message, "
            "and check label and index ranges.",
            ("CUDA_LAUNCH_BLOCKING=1 python train.py",),
        ),
        source="c10/cuda/CUDAException.h (cudaErrorAssert); the kernels' CUDA_KERNEL_ASSERT lines "
        "(aten/src/ATen/native/cuda/Loss.cu, NLLLoss2d.cu, ScatterGatherKernel.cu)",
        analyse=analyse_device_assert,
    ),
    Entry(
        id="train.fp16_nan_loss",
        title="NaN or inf loss in half precision",
        patterns=(
            r"\bloss\b[^\n]{0,40}?[\s=:(]-?(?:nan|inf)\b",
            r"returned nan values in its \d+\w* output",
            r"Error detected in \w+\. Traceback of forward call that caused the error",
            r"Gradient overflow\.\s+Skipping step",
            r"OVERFLOW!.{0,80}Skipping step",
            r"loss scale overflow! Skipping step",
            r"(?:non-finite|NaN or Inf) (?:loss|found in)",
        ),
        cause="float16 overflows above 65504: large activations, logits or a loss computed in fp16 become "
        "inf, then NaN. A few skipped steps while a dynamic loss scale settles are normal; a scaler that "
        "keeps finding inf gradients, or a NaN loss, is not.",
        fix=Fix(
            "Use bfloat16 where the GPU supports it (Ampere and newer: torch.autocast('cuda', "
            "dtype=torch.bfloat16)); with fp16, use torch.autocast with torch.amp.GradScaler and compute the "
            "loss in float32. torch.autograd.set_detect_anomaly(True) names the first operation that made a "
            "NaN.",
            ('python -c "import torch; print(torch.cuda.is_bf16_supported())"',),
        ),
        source="torch.autograd anomaly mode ('returned nan values', 'Error detected in'); DeepSpeed and apex "
        "loss-scaler messages",
        analyse=analyse_fp16,
    ),
    Entry(
        id="cpu.half_not_implemented",
        title="float16 on the CPU: operation not implemented for 'Half'",
        patterns=(r"\"\w+\" not implemented for 'Half'",),
        cause="A float16 (half) model or tensor runs on the CPU, where many kernels (addmm, conv, "
        "layer_norm in older releases) have no float16 version: the model was loaded in half precision for a "
        "GPU, but the GPU is not used (no CUDA in this torch, or device='cpu').",
        fix=Fix(
            "Run the half-precision model on the GPU (model.to('cuda'); check torch.cuda.is_available()), or "
            "use float32 (model.float()) or bfloat16 on the CPU.",
            ('python -c "import torch; print(torch.cuda.is_available())"',),
        ),
        check="torch.build",
        source="aten/src/ATen/Dispatch.h, the AT_DISPATCH macros "
        "('\"<kernel>\" not implemented for <dtype>'); tests/corpus/errors/*/cpu.half_not_implemented.json",
        analyse=analyse_half_on_cpu,
    ),
    Entry(
        id="mps.op_not_implemented",
        title="Operation not implemented on MPS (Apple GPU)",
        patterns=(
            r"is not current(?:ly)? implemented for the MPS device",
            r"is not currently supported on the MPS backend",
            r"Could not run '(?!torch(?:vision|audio)::)[\w:.]+' with arguments from the 'MPS' backend",
        ),
        cause="The operation has no MPS kernel in this torch release, so it cannot run on the Apple GPU.",
        fix=Fix(
            "Upgrade torch (each release adds MPS kernels); or set PYTORCH_ENABLE_MPS_FALLBACK=1 before "
            "Python starts so the operation runs on the CPU (slower); or run on the CPU.",
            ("export PYTORCH_ENABLE_MPS_FALLBACK=1",),
        ),
        check="torch.build",
        source="aten/src/ATen/mps/MPSFallback.mm (mps_error_fallback, mps_fallback); "
        "tests/corpus/errors/*/mps.op_not_implemented.json",
        analyse=analyse_mps_op,
    ),
    Entry(
        id="mps.float64",
        title="MPS (Apple GPU) has no float64",
        patterns=(
            r"Cannot convert a MPS Tensor to float64 dtype",
            r"MPS framework doesn't support float64",
        ),
        cause="The Apple GPU has no float64: a float64 tensor (NumPy data, torch.tensor of Python floats "
        "with a float64 default dtype, or a model cast with .double()) was moved to 'mps'.",
        fix=Fix(
            "Convert to float32 before moving to MPS (tensor.float().to('mps'), or "
            "torch.from_numpy(array.astype('float32'))); keep torch's default dtype float32."
        ),
        source="aten/src/ATen/native/mps/operations/Copy.mm and OperationUtils.mm; "
        "tests/corpus/errors/*/mps.float64.json",
    ),
)
