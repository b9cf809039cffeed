"""Error messages of a device that is not there: no GPU at all, device ordinals, GPU checkpoints without
that GPU, pinning without an accelerator.

The entries are the data of explanations.toml beside this module (:mod:`torchdoctor.explain.catalogue_file`),
registered in the entry-point group ``torchdoctor.explanations``; quoted from where torch raises them, the
research notes (research/ddp_dryrun.md 3, research/cuda_semantics.md), and the real texts of
tests/corpus/errors. This module holds their analyser.
"""

from __future__ import annotations

import re

from torchdoctor.explain import Analysis, Entry, catalogue_file
from torchdoctor.explain.model import last_match

_ORDINAL = re.compile(r"device(?:_index)?=(\d+), num_gpus=(\d*)")


def analyse_ordinal(text: str) -> Analysis:
    match = last_match(_ORDINAL, text)
    if match is None:
        return Analysis()
    seen = match[2] or "0"
    return Analysis(evidence=(f"asked for cuda:{match[1]}; this process sees {seen} GPU(s)",))


ENTRIES: tuple[Entry, ...] = catalogue_file.read(__package__, globals())
