"""The rule table of ``torchdoctor lint`` and the resolution of rule selectors (ids and id prefixes)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Level = Literal["error", "warning", "note"]
LEVELS: tuple[Level, ...] = ("error", "warning", "note")  # most severe first


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    default: bool
    summary: str
    message: str  # a str.format template over the finding's details
    fix: str
    explain: str | None  # the `torchdoctor explain` entry of the error this rule prevents
    # error: a bug (the code fails or computes the wrong thing); warning: it runs, slower than it should;
    # note: advice (it may bite elsewhere)
    level: Level = "error"


RULES: tuple[Rule, ...] = (
    Rule(
        id="TDL001",
        name="discarded-tensor-move",
        default=True,
        summary="Tensor.to()/.cuda()/.float()... as a statement: the result is discarded",
        message="{target}.{method}() on a tensor discards its result: Tensor.{method}() returns a new "
        "tensor and {target} is unchanged",
        fix="assign the result: {target} = {target}.{method}(...)",
        explain="tensors.different_devices",
    ),
    Rule(
        id="TDL002",
        name="tensor-attribute-not-buffer",
        default=True,
        summary="a tensor stored as a plain attribute of an nn.Module is not moved by Module.to()",
        message="tensor stored as plain attribute self.{attr} of nn.Module {cls}: "
        "model.to()/.cuda() will not move it",
        fix='self.register_buffer("{attr}", ...) (persistent=False keeps it out of the state_dict), '
        "or nn.Parameter(...) if it is trained",
        explain="tensors.different_devices",
    ),
    Rule(
        id="TDL003",
        name="layer-created-in-forward",
        default=True,
        summary="a layer or nn.Parameter created inside forward() is on the CPU and never trained",
        message="{layer}(...) created inside {cls}.forward(): {why}",
        fix="create it once in __init__ (self.<name> = {layer}(...)) and call it in forward; "
        "for a stateless op use torch.nn.functional",
        explain="tensors.different_devices",
    ),
    Rule(
        id="TDL004",
        name="load-without-map-location",
        default=True,
        summary="torch.load() without map_location",
        message="torch.load() without map_location: a checkpoint saved on a GPU fails to load on a machine "
        "without one",
        fix='torch.load(path, map_location="cpu") (or map_location=device)',
        explain="load.map_location",
    ),
    Rule(
        id="TDL005",
        name="hardcoded-cuda-in-distributed",
        default=True,
        summary="a hard-coded CUDA device in a distributed script puts every rank on GPU 0",
        message="hard-coded {what} in a distributed script: every rank lands on the same GPU",
        fix='local_rank = int(os.environ["LOCAL_RANK"]); torch.cuda.set_device(local_rank); '
        'device = torch.device("cuda", local_rank)',
        explain="nccl.duplicate_gpu",
    ),
    Rule(
        id="TDL006",
        name="non-blocking-without-pin-memory",
        default=True,
        summary="non_blocking=True copies of batches from a DataLoader without pin_memory=True, or of "
        "tensors just made on the CPU",
        message=".{method}(non_blocking=True) on {source}: the copy is from pageable memory and is not "
        "asynchronous",
        fix="DataLoader(..., pin_memory=True) for batches; a tensor made on the CPU just before: create it "
        "on the device (device=...) or copy it without non_blocking (pinning it by hand first is slower than "
        "a plain copy)",
        explain="transfer.pageable_non_blocking",
        level="warning",
    ),
    Rule(
        id="TDL007",
        name="cuda-in-dataloader-worker",
        default=True,
        summary="moving data to the GPU in a collate_fn or Dataset.__getitem__ run by DataLoader workers",
        message="{what} inside {where}, which runs in DataLoader worker processes (num_workers > 0): CUDA "
        "cannot be initialised in a forked subprocess",
        fix="return CPU tensors from the dataset and collate_fn; move the batch to the GPU in the training "
        "loop (pin_memory=True, non_blocking=True)",
        explain="cuda.forked_subprocess",
    ),
    Rule(
        id="TDL101",
        name="cuda-without-fallback",
        default=False,
        summary="a hard-coded CUDA device with no CPU or MPS fallback in the file",
        message="hard-coded {what} with no CPU/MPS fallback in this file: it fails on a machine without CUDA",
        fix='device = torch.device("cuda" if torch.cuda.is_available() else "cpu")',
        explain="torch.not_compiled_with_cuda",
        level="note",
    ),
    Rule(
        id="TDL102",
        name="tensor-created-then-moved-in-loop",
        default=False,
        summary="a tensor created on the CPU then moved, inside a loop",
        message="tensor created by {factory}() then moved with .{method}() inside a loop: an extra "
        "host-to-device copy at every iteration",
        fix="create it on the device: {factory}(..., device=device)",
        explain=None,
        level="warning",
    ),
    Rule(
        id="TDL103",
        name="half-model-in-training",
        default=False,
        summary="model.half() in code that trains",
        message="{target}.{method}() in training code: pure float16 weights and optimizer state overflow or "
        "underflow (NaN loss)",
        fix='keep the model in float32 and train under torch.autocast(device_type="cuda", '
        "dtype=torch.float16) with torch.amp.GradScaler (or use bfloat16)",
        explain="train.fp16_nan_loss",
        level="note",
    ),
    Rule(
        id="TDL104",
        name="load-own-checkpoint-without-map-location",
        default=False,
        summary="torch.load() without map_location of a file this run made: the same function saved it, or a "
        "temporary folder holds it",
        message="torch.load() without map_location of {path}, {why}: harmless here (the same run, the same "
        "devices), but the line fails on a machine without a GPU once copied to load someone else's "
        "checkpoint",
        fix='torch.load({path}, map_location="cpu") (or map_location=device)',
        explain="load.map_location",
        level="note",
    ),
)

RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}
DEFAULT_RULES: frozenset[str] = frozenset(rule.id for rule in RULES if rule.default)
ALL_RULES: frozenset[str] = frozenset(RULES_BY_ID)


class UnknownRuleError(ValueError):
    """A selector that names no rule; ``str()`` is the one line to print."""


def split_selectors(values: Iterable[str]) -> list[str]:
    """``["TDL001,TDL004", " TDL1 "]`` -> ``["TDL001", "TDL004", "TDL1"]``."""
    return [part.strip().upper() for value in values for part in value.split(",") if part.strip()]


def expand(selectors: Iterable[str], origin: str) -> frozenset[str]:
    """The rule ids a list of selectors names: an id, an id prefix (``TDL1``, ``TDL``) or ``ALL``."""
    ids: set[str] = set()
    for selector in split_selectors(selectors):
        matched = ALL_RULES if selector == "ALL" else {rid for rid in ALL_RULES if rid.startswith(selector)}
        if not matched:
            known = ", ".join(sorted(ALL_RULES))
            raise UnknownRuleError(f"unknown rule id {selector!r} in {origin} (known: {known})")
        ids |= matched
    return frozenset(ids)
