"""The CUDA out-of-memory fix on texts as users paste them: whole, or cut off before torch's own hint.

The texts are records of tests/corpus/errors cut where a user's paste often ends; the example of
docs/commands/explain.md is one such cut text. A cut text is judged by what it still shows: its wording tells
the torch release apart.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from torchdoctor.explain import catalogue, explain

from corpus_tools import splits

ENTRIES = catalogue.installed()
EXPLAIN_PAGE = (Path(__file__).resolve().parents[3] / "docs" / "commands" / "explain.md").read_text(
    encoding="utf-8"
)
EXPANDABLE = "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"


def _record(n: int) -> str:
    path = splits.CORPUS / "errors" / "dev" / "cuda.out_of_memory.json"
    return str(json.loads(path.read_text(encoding="utf-8"))[n]["text"])


def _fix(text: str) -> tuple[str, tuple[str, ...]]:
    explanation = explain(text, ENTRIES)[0]
    assert explanation.id == "cuda.out_of_memory"
    assert explanation.fix is not None
    return explanation.fix.text, explanation.fix.commands


def test_the_docs_example_cut_with_dots_is_read_as_a_release_with_expandable_segments() -> None:
    shown = re.search(r'\$ torchdoctor explain "(torch\.OutOfMemoryError: .*?)"\n', EXPLAIN_PAGE)
    assert shown is not None
    text, commands = _fix(shown[1])
    assert commands == (EXPANDABLE,)
    assert "predates" not in text


def test_a_current_message_cut_before_its_hint_still_gets_expandable_segments() -> None:
    whole = _record(1)
    cut = whole[: whole.index(" If reserved but unallocated")] + " ..."
    assert "expandable_segments" not in cut
    assert _fix(cut)[1] == _fix(whole)[1] == (EXPANDABLE,)


def test_torch_2_1s_message_keeps_its_own_hint_and_its_cut_form_gets_expandable_segments() -> None:
    whole = _record(20)  # "total capacty ... try setting max_split_size_mb": torch 2.1's wording
    assert _fix(whole)[1] == ("export PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128",)
    assert "torch 2.1 and later" in _fix(whole)[0]
    cut = whole[: whole.index(" If reserved but unallocated")]
    assert _fix(cut)[1] == (EXPANDABLE,)


def test_a_message_of_torch_1_says_it_has_no_expandable_segments() -> None:
    text, commands = _fix(_record(18))  # torch 1.0 to 1.3: "... cached)"
    assert commands == ()
    assert "torch 2.0 or older" in text and "max_split_size_mb" in text
