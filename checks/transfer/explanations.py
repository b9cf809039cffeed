"""Messages about host-to-device copies: non_blocking copies from pageable memory, pinning that fails.

The entries are the data of explanations.toml beside this module (:mod:`torchdoctor.explain.catalogue_file`),
registered in the entry-point group ``torchdoctor.explanations``; quoted from where torch raises them, the
research notes (research/memory_bandwidth.md 4), and the real texts of tests/corpus/errors. This module holds
their analyser.
"""

from __future__ import annotations

import re

from torchdoctor.explain import Analysis, Entry, catalogue_file
from torchdoctor.explain.model import last_match
from torchdoctor.model import Fix

_CANNOT_PIN = re.compile(r"cannot pin '([\w.]{1,80})'")


def analyse_cannot_pin(text: str) -> Analysis:
    """A GPU tensor handed to pin_memory is a code error; a pin memory thread that dies is the machine's."""
    match = last_match(_CANNOT_PIN, text)
    if match is None:
        return Analysis(check="transfer.pinned")
    if "cuda" not in match[1].lower():
        return Analysis(evidence=(f"the tensor to pin is a {match[1]}",))
    return Analysis(
        evidence=(f"the tensor to pin is a {match[1]}: it is already on the GPU",),
        fix=Fix(
            "The dataset or collate_fn returns tensors that are already on the GPU, so the DataLoader's "
            "pin_memory=True cannot pin them: return CPU tensors from the dataset and move each batch with "
            ".to(device, non_blocking=True), or set pin_memory=False."
        ),
    )


ENTRIES: tuple[Entry, ...] = catalogue_file.read(__package__, globals())
