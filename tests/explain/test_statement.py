"""The program's failing statement read from a pasted traceback (torchdoctor.explain.statement)."""

from __future__ import annotations

import pytest

from torchdoctor.explain.statement import Statement, failing_statement

from growth import linear, repeated


def test_the_last_frame_of_the_program_is_the_failing_statement() -> None:
    text = (
        'Traceback (most recent call last):\n  File "train.py", line 12, in <module>\n    main()\n  File '
        '"train.py", line 90, in main\n    loss = criterion(out, y)\n  File '
        '"/usr/lib/python3/site-packages/torch/nn/modules/module.py", line 541, in __call__\n    result = '
        "self.forward(*input, **kwargs)\nRuntimeError: boom"
    )
    assert failing_statement(text) == Statement("train.py", "90", "main", "loss = criterion(out, y)")


def test_a_log_prefix_or_a_quote_before_the_source_line_is_not_code() -> None:
    text = '[rank0]:   File "a.py", line 3, in f\n[rank0]:     x = y + z\n[rank0]: RuntimeError: boom'
    assert failing_statement(text) == Statement("a.py", "3", "f", "x = y + z")
    quoted = '> File "b.py", line 5, in g\n>     assert (s >= 0).all()\n> RuntimeError: boom'
    assert failing_statement(quoted) == Statement("b.py", "5", "g", "assert (s >= 0).all()")


def test_ipythons_arrow_names_the_cell_and_its_line() -> None:
    text = (
        "<ipython-input-3-ab> in forward(self, x)\n     10         a = 1\n---> 11         return self.f(x) + "
        "b\n     12 \n\nRuntimeError: boom"
    )
    expected = Statement("<ipython-input-3-ab>", "11", "forward", "return self.f(x) + b")
    assert failing_statement(text) == expected


def test_a_raise_is_not_the_failing_statement_and_installed_packages_can_be_left_out() -> None:
    text = (
        '  File "run.py", line 58, in main\n    model = Model.from_pretrained(name).cuda()\n  File '
        '"/env/lib/python3.9/site-packages/transformers/modeling_utils.py", line 1998, in cuda\n    '
        'return self._move()\n  File "/env/lib/python3.9/site-packages/transformers/modeling_utils.py", '
        "line 2001, in _move\n    raise ValueError(\nValueError: boom"
    )
    assert failing_statement(text).file.endswith("modeling_utils.py")  # type: ignore[union-attr]
    assert failing_statement(text).line == "1998"  # type: ignore[union-attr]
    assert failing_statement(text, own_code=True) == Statement(
        "run.py", "58", "main", "model = Model.from_pretrained(name).cuda()"
    )


def test_a_frame_without_its_source_line_and_a_message_alone_name_no_statement() -> None:
    assert failing_statement('  File "a.py", line 3, in f\nRuntimeError: boom') is None
    assert failing_statement("RuntimeError: Expected all tensors to be on the same device") is None


def test_only_the_frames_before_the_end_given_count() -> None:
    text = '  File "a.py", line 3, in f\n    x = 1\nError A\n  File "b.py", line 4, in g\n    y = 2\nError B'
    assert failing_statement(text, text.index("Error A")).file == "a.py"  # type: ignore[union-attr]


def test_a_long_statement_is_cut_when_quoted() -> None:
    statement = Statement("a.py", "1", "f", "x = " + "y + " * 100)
    assert len(str(statement)) < 220 and str(statement).endswith("...")


@pytest.mark.parametrize(
    "unit",
    [
        'File "a", line 1, in f\n    x\n',
        'File "a", line 1, in f\n',
        "a in f(\n",
        " in f(" * 50 + "\n",
        "---> 1 x\n",
        "-" * 200 + "\n",
    ],
)
def test_reading_frames_is_linear(unit: str) -> None:
    assert linear(failing_statement, repeated(unit), 40_000)
