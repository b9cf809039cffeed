"""The program's statement that failed, as a pasted traceback shows it: the last frame before the message
that is not torch's own (torch's frames say only that an operation ran), with the source line under it.

Python's frames (``File "train.py", line 90, in <module>`` and the line below, a log's or a quote's prefix
allowed) and IPython's (``<ipython-input-8-...> in forward(self, x)``, then ``---> 26 code``) are read."""

from __future__ import annotations

import re
from dataclasses import dataclass

from torchdoctor.output.wording import clipped

WINDOW = 200_000
"""The end of a text that is read: a traceback is just before its message."""

_LONGEST = 160
"""The longest statement quoted; a longer one is cut."""

# One alternation, so that the text is read once: a Python frame with the line under it, an IPython header
# (its file and function), an IPython arrow (its line number and code).
_FRAMES = re.compile(
    r"File \"(?P<file>[^\"\n]{1,300})\", line (?P<line>\d{1,7}), in (?P<func>[\w<>.]{1,100})[ \t]*\n"
    r"(?:[>|]|\[[^\]\n]{1,30}\]:?)?[ \t]{1,40}(?P<code>\S[^\n]{0,400})"
    # Colab links the file of an IPython frame: [/usr/.../losses.py](https://localhost:8080/#) in f(
    r"|^(?:\[(?P<linked>[^\]\n]{1,300})\]\([^)\s]{1,100}\)|(?P<cell>[^\s(]{1,300}))"
    r" in (?P<cell_func>[\w<>.]{1,100})\("
    r"|^[ \t]{0,8}-{1,6}>[ \t]{0,4}(?P<arrow_line>\d{1,7})[ \t]+(?P<arrow_code>\S[^\n]{0,400})",
    re.MULTILINE,
)
# Where packages are installed; the name after it is the package a frame belongs to.
_INSTALLED_ROOT = re.compile(r"[/\\](?:site|dist)-packages[/\\](?P<package>[\w.-]{1,100})[/\\]")
# torch's own files outside an installed tree (a source checkout, a relative path): ``torch/`` followed by one
# of torch's modules or packages. A library's own folder named torch (castle/algorithms/gradient/rl/torch/,
# ray/rllib/models/torch/, nncf/torch/) is not torch.
# fmt: off
TORCH_MODULES = (
    "amp", "ao", "autograd", "backends", "compiler", "cpu", "cuda", "distributed", "distributions", "export",
    "fft", "func", "functional", "fx", "hub", "jit", "library", "linalg", "mps", "multiprocessing", "nested",
    "nn", "onnx", "optim", "overrides", "profiler", "quantization", "random", "serialization", "sparse",
    "special", "storage", "testing", "utils", "xpu",
)
# fmt: on
"""Public modules and packages of torch that tracebacks show (tests hold them to the installed torch);
private ones (``_tensor``, ``_utils``, ``__init__``) are any name with a leading underscore."""
_TORCH_SOURCE = re.compile(
    rf"(?:^|[/\\])torch[/\\](?:_\w+|tensor|{'|'.join(TORCH_MODULES)})(?:[/\\.]|$)"  # torch 1.x: tensor.py
)
_NOT_CODE = re.compile(r"File \"|^\^+$|^~+$|^[\w.]*(?:Error|Exception)\b|^raise\b")


@dataclass(frozen=True)
class Statement:
    """A frame of the program and its source line."""

    file: str
    line: str
    function: str
    code: str

    def __str__(self) -> str:
        return f"{self.file}, line {self.line} (in {self.function}): {clipped(self.code, _LONGEST)}"


def failing_statement(text: str, end: int | None = None, *, own_code: bool = False) -> Statement | None:
    """The program's last statement before ``end`` (the message's position) in ``text``, or None where no
    frame of the program with its source line is shown; a ``raise`` is where an error was reported, not the
    statement that failed. ``own_code``: only the program's own files, not the installed packages it calls
    (site-packages, dist-packages)."""
    stop = len(text) if end is None else end
    start = max(0, stop - WINDOW)
    found: Statement | None = None
    cell = cell_func = ""
    for frame in _FRAMES.finditer(text, start, stop):
        if frame["cell_func"] is not None:
            cell, cell_func = (frame["cell"] or frame["linked"]).strip(), frame["cell_func"]
            continue
        if frame["arrow_line"] is not None:
            file, line, function, code = cell, frame["arrow_line"], cell_func, frame["arrow_code"]
        else:
            file, line, function, code = frame["file"], frame["line"], frame["func"], frame["code"]
        code = code.strip()
        if not file or is_torch_file(file) or _NOT_CODE.search(code):
            continue
        if own_code and installed_package(file) is not None:
            continue
        found = Statement(file.replace("\\", "/"), line, function, code)
    return found


_FRAME_FILE = re.compile(r'File "([^"\n]{1,300})", line \d{1,7}, in ')


def last_frame_file(text: str, end: int, window: int) -> str | None:
    """The file of the last Python frame in the ``window`` characters of ``text`` before ``end``."""
    file = None
    for frame in _FRAME_FILE.finditer(text, max(0, end - window), end):
        file = frame[1]
    return file


def installed_package(file: str) -> str | None:
    """The installed package ``file`` belongs to (the folder after the last site-packages or dist-packages),
    or None for a file outside an installed tree: the program's own."""
    roots = list(_INSTALLED_ROOT.finditer(file))
    return roots[-1]["package"] if roots else None


def is_torch_file(file: str) -> bool:
    """Whether ``file`` is one of torch's own: installed as the package torch, or a torch module in a source
    tree."""
    package = installed_package(file)
    if package is not None:
        return package == "torch"
    return _TORCH_SOURCE.search(file) is not None
