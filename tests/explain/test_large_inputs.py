"""explain on large texts: a log without line breaks costs its length, and its first error is still found."""

from __future__ import annotations

import pytest

from torchdoctor.explain import catalogue, explain
from torchdoctor.explain.matcher import prepare

from growth import linear, repeated

ENTRIES = catalogue.installed()
OOM = (
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of "
    "79.15 GiB of which 5.06 MiB is free.\n"
)
FRAME = '  File "/srv/train/model.py", line 12, in forward '
WARNING = "/srv/train/model.py:12: UserWarning: slow "


def test_an_error_above_a_megabyte_line_of_frames_is_found() -> None:
    """Once every catalogue ran to its deadline on such a line (each frame re-read the whole line: at 1 MiB
    some 20,000 frames times the line). The growth checks below hold the reading linear."""
    text = OOM + FRAME * (2**20 // len(FRAME)) + "\n"
    assert [e.id for e in explain(text, ENTRIES)] == ["cuda.out_of_memory"]


@pytest.mark.parametrize(
    "piece", [FRAME, WARNING, FRAME + "\n    x = layer(x)\n"], ids=["frames", "warnings", "lines"]
)
def test_blanking_code_lines_is_linear(piece: str) -> None:
    assert linear(prepare, repeated(piece), 1 << 16)
