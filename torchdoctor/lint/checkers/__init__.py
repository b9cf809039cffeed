"""One checker per rule: a function from a file's context to the rule's hits."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from torchdoctor.lint.checkers.dataloading import (
    cuda_in_dataloader_workers,
    non_blocking_without_pinned_memory,
)
from torchdoctor.lint.checkers.devices import (
    cuda_without_fallback,
    hard_coded_cuda_in_distributed,
    loads_of_own_checkpoints,
    loads_without_map_location,
)
from torchdoctor.lint.checkers.modules import layers_in_forward, plain_tensor_attributes
from torchdoctor.lint.checkers.tensors import (
    discarded_tensor_moves,
    half_models_in_training,
    tensors_created_then_moved_in_loops,
)
from torchdoctor.lint.context import FileContext
from torchdoctor.lint.findings import Hit

Checker = Callable[[FileContext], Iterable[Hit]]

CHECKERS: dict[str, Checker] = {
    "TDL001": discarded_tensor_moves,
    "TDL002": plain_tensor_attributes,
    "TDL003": layers_in_forward,
    "TDL004": loads_without_map_location,
    "TDL005": hard_coded_cuda_in_distributed,
    "TDL006": non_blocking_without_pinned_memory,
    "TDL007": cuda_in_dataloader_workers,
    "TDL101": cuda_without_fallback,
    "TDL102": tensors_created_then_moved_in_loops,
    "TDL103": half_models_in_training,
    "TDL104": loads_of_own_checkpoints,
}
