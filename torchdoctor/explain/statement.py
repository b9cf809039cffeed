"""The program's statement that failed, as a pasted traceback shows it: the last frame before the message
that is not torch's own (torch's frames say only that an operation ran), with the source line under it.

Python's frames (``File "train.py", line 90, in <module>`` and the line below, a log's or a quote's prefix
allowed) and IPython's (``<ipython-input-8-...> in forward(self, x)``, then ``---> 26 code``) are read."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TypeGuard

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


def frame_files(text: str, end: int, window: int) -> list[str]:
    """The files of the Python frames in the ``window`` characters of ``text`` before ``end``, in order."""
    return [frame[1] for frame in _FRAME_FILE.finditer(text, max(0, end - window), end)]


def last_frame_file(text: str, end: int, window: int) -> str | None:
    """The file of the last Python frame in the ``window`` characters of ``text`` before ``end``."""
    files = frame_files(text, end, window)
    return files[-1] if files else None


def installed_package(file: str) -> str | None:
    """The installed package ``file`` belongs to (the folder after the last site-packages or dist-packages),
    or None for a file outside an installed tree: the program's own."""
    roots = list(_INSTALLED_ROOT.finditer(file))
    return roots[-1]["package"] if roots else None


def source_folder(
    text: str, end: int, packages: tuple[str, ...], window: int = 5000
) -> tuple[str, str] | None:
    """(package, the folder holding it) where a traceback frame in the ``window`` characters of ``text``
    before ``end`` is a file of one of ``packages`` outside an installed tree: the package imported from a
    source checkout (the current directory or PYTHONPATH come before site-packages), not from its install."""
    found = None
    for frame in _FRAME_FILE.finditer(text, max(0, end - window), end):
        file = frame[1].replace("\\", "/")
        if installed_package(file) is not None:
            continue
        for package in packages:
            folder, sep, _ = file.rpartition(f"/{package}/")
            # a library's own folder named torch is not torch's source
            if sep and folder and (package != "torch" or is_torch_file(file)):
                found = (package, folder)
    return found


def is_torch_file(file: str) -> bool:
    """Whether ``file`` is one of torch's own: installed as the package torch, or a torch module in a source
    tree."""
    package = installed_package(file)
    if package is not None:
        return package == "torch"
    return _TORCH_SOURCE.search(file) is not None


# torch's calls that make a tensor: on the default device (the CPU) unless given device=. The first group
# takes device= (some of the linter's CREATION_FACTORIES, kept here so that explain does not import the
# linter); the legacy constructors and from_numpy do not, and are moved with .to().
# fmt: off
_FACTORIES = frozenset((
    "arange", "as_tensor", "empty", "eye", "full", "linspace", "ones", "rand", "randint", "randn", "tensor",
    "zeros",
))
# fmt: on
_CONSTRUCTORS = frozenset(("Tensor", "FloatTensor", "LongTensor", "IntTensor", "BoolTensor", "from_numpy"))
_LONGEST_READ = 1000
"""The longest line read as a statement: a traceback's code line is at most 400 characters."""
_MODULE_NAMES = frozenset(("torch", "np", "numpy", "math", "F", "nn", "self"))
"""Names that are modules (or the object itself), never the tensor a factory's tensor meets."""


@dataclass(frozen=True)
class MadeWithoutDevice:
    """A tensor a statement makes with a torch factory call and no device, and the tensor it meets there."""

    call: str
    """The call as the statement writes it: ``torch.ones(10)``."""
    meets: str | None
    """The nearest other tensor of the statement (``tensor``, ``self.weight``), or None where it has none."""
    takes_device: bool

    def on_device(self) -> str:
        """The call made on the device of the tensor it meets."""
        target = f"{self.meets or 'x'}.device"
        if not self.takes_device:
            return f"{self.call}.to({target})"
        opened = self.call.rstrip()[:-1].rstrip().removesuffix(",")
        return f"{opened}{'' if opened.endswith('(') else ', '}device={target})"


def made_without_device(code: str) -> MadeWithoutDevice | None:
    """A torch factory call in the statement ``code`` that gives no device (the outermost, then the first),
    or None (also where the line is not a whole statement Python can read: a line of a longer one)."""
    tree = _parsed(code) if len(code) <= _LONGEST_READ else None
    if tree is None:
        return None
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        factory = _factory(node)
        if factory is None or any(keyword.arg == "device" for keyword in factory[0].keywords):
            continue
        made, name = factory
        call = ast.get_source_segment(code, made)
        if call is None:
            continue
        inside = set(ast.walk(made))
        names = [n for n in ast.walk(tree) if n not in inside and _is_operand(n, parents)]
        names.sort(key=lambda n: (n.lineno, n.col_offset))
        before = [n for n in names if (n.lineno, n.col_offset) < (made.lineno, made.col_offset)]
        nearest = before[-1] if before else (names[0] if names else None)
        meets = ast.unparse(nearest) if nearest is not None else None
        return MadeWithoutDevice(call, meets, name not in _CONSTRUCTORS)
    return None


def _parsed(code: str) -> ast.Module | None:
    # a block's header ("if not torch.allclose(a, torch.ones(3)):") reads with a body under it
    for source in (code, f"{code}\n    pass"):
        try:
            return ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    return None


def _factory(node: ast.AST) -> tuple[ast.Call, str] | None:
    """``node`` where it is a call of a torch function that makes a tensor, with that function's name."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return None
    owner, name = node.func.value, node.func.attr
    if isinstance(owner, ast.Name) and owner.id == "torch" and (name in _FACTORIES or name in _CONSTRUCTORS):
        return node, name
    return None


def _is_operand(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> TypeGuard[ast.Name | ast.Attribute]:
    """Whether ``node`` is a whole name or attribute chain the statement reads as a value: not a call's
    function, not part of a longer chain, not a module, not what is assigned."""
    if not isinstance(node, ast.Name | ast.Attribute) or not isinstance(node.ctx, ast.Load):
        return False
    parent = parents.get(node)
    if isinstance(parent, ast.Attribute) or (isinstance(parent, ast.Call) and parent.func is node):
        return False
    root: ast.expr = node
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name):
        return False
    return node is not root or root.id not in _MODULE_NAMES
