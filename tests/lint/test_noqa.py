"""``# noqa`` comments on the reported line, read like flake8 reads them."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Lint = Callable[..., list[tuple[str, int]]]  # the `lint` fixture of conftest.py

LOAD = "import torch\nstate = torch.load(path)"


@pytest.mark.parametrize(
    "comment",
    ["# noqa", "# NOQA", "# noqa: TDL004", "# noqa:TDL004", "# noqa: E501,TDL004", "# noqa: TDL0", "#noqa"],
)
def test_noqa_suppresses(lint: Lint, comment: str) -> None:
    assert lint(f"{LOAD}  {comment}") == []


@pytest.mark.parametrize("comment", ["# noqa: TDL001", "# noqa: E501", "# noqa: TDL1", "# no qa"])
def test_noqa_for_other_codes_does_not(lint: Lint, comment: str) -> None:
    assert lint(f"{LOAD}  {comment}") == [("TDL004", 2)]


def test_noqa_applies_to_its_own_line_only(lint: Lint) -> None:
    assert lint("import torch  # noqa\nstate = torch.load(path)") == [("TDL004", 2)]


def test_noqa_on_the_first_line_of_a_multi_line_call(lint: Lint) -> None:
    assert lint("import torch\nstate = torch.load(  # noqa: TDL004\n    path,\n)") == []
