"""The CPU mode a text gives and the program's own CUDA call its traceback shows (constructed texts around
the forms the thread corpus holds: torch's frames, a program's frames)."""

from __future__ import annotations

from torchdoctor.explain import cpu_path

ERROR = "\nRuntimeError: No CUDA GPUs are available"
TORCH_FRAME = (
    '  File "/usr/lib/python3/site-packages/torch/utils/benchmark/timer.py", line 20, in sync\n'
    "    torch.cuda.synchronize()\n"
)


def _frame(path: str, line: int, function: str, source: str) -> str:
    return f'  File "{path}", line {line}, in {function}\n    {source}\n'


def test_the_last_call_of_the_program_is_named_and_torchs_own_frames_are_not() -> None:
    text = (
        "python run.py --device cpu\nTraceback (most recent call last):\n"
        + _frame("/home/me/proj/train.py", 5, "main", "model.cuda()")
        + _frame("/home/me/proj/utils/timer.py", 12, "now", "torch.cuda.synchronize()")
        + TORCH_FRAME
        + ERROR
    )
    found = cpu_path.cpu_path(text)
    assert found is not None
    assert found.evidence == (
        "the text runs the program on the CPU (--device cpu)",
        "the program calls CUDA at /home/me/proj/utils/timer.py, line 12 (now): torch.cuda.synchronize()",
    )
    # no CPU mode said: not this, whatever the frames
    assert cpu_path.cpu_path(text.replace("--device cpu", "")) is None


def test_only_the_end_of_a_text_is_read() -> None:
    said = "cpu mode"
    at_edge = said + " " * (cpu_path.WINDOW - len(said) - len(ERROR)) + ERROR
    assert len(at_edge) == cpu_path.WINDOW
    assert cpu_path.cpu_path(at_edge) is not None
    beyond = said + " " * (cpu_path.WINDOW + 1 - len(said) - len(ERROR)) + ERROR
    assert cpu_path.cpu_path(beyond) is None


def test_a_program_line_that_names_a_torch_folder_is_still_the_programs() -> None:
    text = (
        "python run.py --device cpu\n"
        + _frame("/home/me/proj/load.py", 3, "load", 'model = torch.load("/data/torch/model.pt").cuda()')
        + ERROR
    )
    found = cpu_path.cpu_path(text)
    assert found is not None
    assert found.evidence[-1].startswith("the program calls CUDA at /home/me/proj/load.py")
    # the window is the end every explanation analyser reads (text[-200_000:])
    assert cpu_path.WINDOW == 200_000
