"""Error messages caused by the training code itself: tensors on different devices or of different dtypes,
checkpoints of another shape, device-side asserts, half-precision overflow.

Registered in the entry-point group ``torchdoctor.explanations``; quoted from where torch raises them, and
the research notes (research/memory_bandwidth.md 1.6, research/ddp_dryrun.md 3, research/cuda_semantics.md).
"""

from __future__ import annotations

import re

from torchdoctor.explain import Analysis, Entry
from torchdoctor.model import Fix

_AUDIT = (
    "torchdoctor.audit(model, *inputs) lists every tensor with its device, and what Module.to() does not move"
)


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


def analyse_devices(text: str) -> Analysis:
    match = (
        re.search(r"found at least two devices, (\S+?) and (\S+?)[!,]", text)
        or re.search(r"got (\w+) is on (\S+?), different from other tensors on (\S+?)[\s(,]", text)
        or re.search(r"Tensor on device (\S+) is not on the expected device (\S+?)!", text)
    )
    if match is None:
        return Analysis()
    if len(match.groups()) == 3:
        return Analysis(evidence=(f"{match[1]} is on {match[2]}, the other tensors on {match[3]}",))
    return Analysis(evidence=(f"devices involved: {match[1]} and {match[2]}",))


ENTRIES: tuple[Entry, ...] = (
    Entry(
        id="tensors.different_devices",
        title="Tensors on different devices",
        patterns=(
            r"Expected all tensors to be on the same device",
            r"\bis on \S+, different from other tensors on ",
            r"Tensor on device \S+ is not on the expected device",
            r"Input type \(torch\.(?:cuda\.)?\w+\) and weight type \(torch\.(?:cuda\.)?\w+\) "
            r"should be the same",
        ),
        cause="An operation got tensors on different devices (a model on the GPU and a batch on the CPU, or "
        "a tensor that model.to(device) did not move because it is a plain attribute, not a parameter or "
        "buffer).",
        fix=Fix(
            "Move the model and every input to one device (model.to(device); batch = batch.to(device)); "
            f"register tensors the model keeps with self.register_buffer(). {_AUDIT}."
        ),
        source="ATen device checks; torch 2.13 testing/_internal/common_methods_invocations.py",
        analyse=analyse_devices,
    ),
    Entry(
        id="tensors.different_dtypes",
        title="Tensors of different dtypes",
        patterns=(
            r"mat1 and mat2 must have the same dtype",
            r"expected scalar type \w+ but found \w+",
            r"Input type \(\w+\) and bias type \(\w+\) should be the same",
        ),
        cause="An input's dtype differs from the parameters' (float64 data from NumPy into a float32 model, "
        "or half-precision weights with float32 inputs outside autocast).",
        fix=Fix(
            "Cast inputs to the parameters' dtype (x = x.to(next(model.parameters()).dtype)), or run the "
            f"forward pass under torch.autocast. {_AUDIT}."
        ),
        source="torch 2.13 CPU: nn.Linear(2, 2)(torch.zeros(1, 2, dtype=torch.float64))",
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
        patterns=(r"device-side assert triggered",),
        cause="A kernel's own check failed, most often an index out of range: a class label at or above the "
        "number of classes in a loss, or a token id beyond an embedding. CUDA reports it asynchronously, so "
        "the traceback may point at a later line.",
        fix=Fix(
            "Run once with CUDA_LAUNCH_BLOCKING=1 (or on the CPU) for the real line and a readable message, "
            "and check label and index ranges.",
            ("CUDA_LAUNCH_BLOCKING=1 python train.py",),
        ),
    ),
    Entry(
        id="train.fp16_nan_loss",
        title="NaN or inf loss in half precision",
        patterns=(
            r"\bloss\b[^\n]{0,40}?[\s=:(]-?(?:nan|inf)\b",
            r"returned nan values in its \d+\w* output",
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
        source="torch.autograd anomaly mode ('returned nan values'); DeepSpeed and apex loss-scaler messages",
    ),
)
