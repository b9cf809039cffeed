"""Find a ``python -m torch.utils.collect_env`` dump in any text, and turn it into a saved report.

Users paste the dump into issues: of any torch version (1.0's "Is debug build: No" to 2.x's "CPU:" blocks,
ROCm's "HIP runtime version", "Is XPU available"), from Linux, Windows or macOS, whole or cut off, inside a
Markdown fence or an issue body, re-indented, or typed by hand in the issue template's bullets ("- PyTorch
Version (e.g., 1.0): 1.7"). :func:`find` locates the first one; :meth:`Dump.to_report` gives the saved report
``torchdoctor check --from`` judges. Its facts hold, in the probes' own shapes, what the dump says and nothing
it does not: a fact the dump leaves out is absent, so the judges leave that comparison out.

Bounded work: one regular expression without nested quantifiers finds the line that opens a dump; the dump is
then read line by line, at most ``MAX_DUMP_CHARS`` characters and ``MAX_LINE`` characters of each line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from torchdoctor.inputs import foreign
from torchdoctor.machine.distributions import TORCH_COMPANIONS, TRITON_NAMES, canonical_name

MAX_DUMP_CHARS = 1 << 20
MAX_LINE = 4096
MAX_LINES = 5000
_LOOKBACK = 16384  # characters before the opening line searched for the warnings torch printed first
_OPENINGS_TRIED = 8  # opening lines read, at most, for one that other fields follow: a bound keeps it linear

# The line that opens a dump: "PyTorch version: 2.5.1+cu124" (or N/A), the template's "- PyTorch Version
# (e.g., 1.0): 1.7", a hand-written "- **PyTorch**: `2.10.0`", or the retyped "PyTorch version 1.5.0" alone.
# No two neighbouring parts can take the same character (`[ \t]*` never meets another `[ \t]*`, `\d+` never
# meets `\S*`), so a failed match never retries a run's splits: linear in the text.
_OPENING = re.compile(
    r"^[ \t>*+\-`]*(?:"
    r"pytorch[ \t]+version[ \t]+\d+\.\d\S*[ \t]*$"
    r"|pytorch(?:[ \t]+version(?:[ \t]*\(e\.g\.,[ \t]*1\.0\))?)?\**"
    r"[ \t]*[:：][ \t]*(?:`[ \t]*)?(?:\d+\.\d+|n/a\b))",
    re.IGNORECASE | re.MULTILINE,
)
_COLLECTING = "Collecting environment information"
_VERSION = re.compile(r"\d+(?:\.\d+)+[^\s,;()`]*")
_NOT_AN_ANSWER = ("", "n/a", "none", "no cuda", "could not collect", "unknown")

# Field names of collect_env (every version) and of the issue template, lower-cased, to what they say.
_KEYS = {
    "pytorch version": "torch",
    "pytorch version (e.g., 1.0)": "torch",
    "pytorch": "torch",
    "is debug build": "debug",
    "cuda used to build pytorch": "cuda",
    "rocm used to build pytorch": "rocm",
    "os": "os",
    "os (e.g., linux)": "os",
    "macos": "macos",
    "gcc version": "gcc",
    "clang version": "clang",
    "cmake version": "cmake",
    "libc version": "libc",
    "python version": "python",
    "python": "python",
    "python platform": "platform",
    "is cuda available": "cuda_available",
    "cuda runtime version": "cuda_runtime",
    "cuda_module_loading set to": "cuda_module_loading",
    "gpu models and configuration": "gpus",
    "gpu": "gpus",
    "gpus": "gpus",
    "nvidia driver version": "driver",
    "cudnn version": "cudnn",
    "is xpu available": "xpu_available",
    "xpu used to build pytorch": "xpu",
    "hip runtime version": "hip_runtime",
    "miopen runtime version": "miopen",
    "is xnnpack available": "xnnpack",
    "cpu": "cpu",
    "versions of relevant libraries": "libraries",
    "version of relevant libraries": "libraries",
    "how you installed pytorch (conda, pip, source)": "installed_with",
    "build command you used (if compiling from source)": "build_command",
    "cuda/cudnn version": "cuda_cudnn",
    "any other relevant information": "other",
    "cuda version": "cuda_version",
    "architecture": "architecture",
}
_BLOCKS = ("gpus", "cudnn", "cpu", "libraries")

# NVIDIA GPU model -> compute capability, by the model name alone. Source: NVIDIA, "CUDA GPUs - Compute
# Capability" (https://developer.nvidia.com/cuda-gpus, its rows from 8.9 up as the page stood on 2026-12-06)
# and "Legacy CUDA GPU Compute Capability" (https://developer.nvidia.com/cuda-legacy-gpus). A name matches
# the longest model it starts with, followed by its end, a space, "-" or "(" ("NVIDIA GeForce RTX 4080
# Laptop GPU", "Tesla V100-SXM2-16GB", "NVIDIA GeForce RTX 5090 D", the China edition of the 5090). The Fermi
# (2.x) and Kepler (3.x) models are those whose name is one chip: a name NVIDIA sold on chips of two
# architectures (GeForce GT 630, 640, 710, 720, 730, GT 640M LE, GTX 860M) is left out, since the
# architecture decides the last driver a GPU can run. Each of them was checked against two copies of these
# tables: Lei Mao's "NVIDIA GPU Compute Capability"
# (https://leimao.github.io/blog/NVIDIA-GPU-Compute-Capability/, one table of every row of
# https://developer.nvidia.com/cuda-gpus, legacy rows included) and the "GPUs
# supported" table of Wikipedia's "CUDA" article (https://en.wikipedia.org/wiki/CUDA). Both give each Fermi
# and Kepler model here the compute capability it has, except: only NVIDIA's lists the GeForce GT 755M; only
# Wikipedia's the GRID K520, Quadro 600, 2000, 4000, 5000, 6000 and Tesla M2050, M2070, M2090; and Wikipedia's
# puts the GeForce GTX 870M under 5.0, NVIDIA's under 3.0 (kept). Models neither lists are left out.
GPU_COMPUTE_CAPABILITY: dict[str, tuple[str, ...]] = {
    "12.0": (
        "GeForce RTX 5090",
        "GeForce RTX 5080",
        "GeForce RTX 5070 Ti",
        "GeForce RTX 5070",
        "GeForce RTX 5060 Ti",
        "GeForce RTX 5060",
        "GeForce RTX 5050",
        "RTX PRO 6000 Blackwell",
        "RTX PRO 5000 Blackwell",
        "RTX PRO 4500 Blackwell",
        "RTX PRO 4000 Blackwell",
        "RTX PRO 2000 Blackwell",
    ),
    "12.1": ("GB10",),
    "11.0": ("Jetson T5000", "Jetson T4000"),
    "10.3": ("B300", "GB300"),
    "10.0": ("B200", "GB200", "B100"),
    "9.0": ("H100", "H200", "GH200", "H800", "H20"),
    "8.9": (
        "GeForce RTX 4090",
        "GeForce RTX 4080",
        "GeForce RTX 4070 Ti",
        "GeForce RTX 4070",
        "GeForce RTX 4060 Ti",
        "GeForce RTX 4060",
        "GeForce RTX 4050",
        "L4",
        "L40",
        "L40S",
        # NVIDIA's page writes "NVIDIA RTX 6000 Ada", nvidia-smi "NVIDIA RTX 6000 Ada Generation": both match
        "RTX 6000 Ada",
        "RTX 5000 Ada",
        "RTX 4500 Ada",
        "RTX 4000 Ada",
        "RTX 4000 SFF Ada",
        "RTX 2000 Ada",
    ),
    "8.7": ("Jetson AGX Orin", "Jetson Orin NX", "Jetson Orin Nano"),
    "8.6": (
        "GeForce RTX 3090 Ti",
        "GeForce RTX 3090",
        "GeForce RTX 3080 Ti",
        "GeForce RTX 3080",
        "GeForce RTX 3070 Ti",
        "GeForce RTX 3070",
        "GeForce RTX 3060 Ti",
        "GeForce RTX 3060",
        "GeForce RTX 3050 Ti",
        "GeForce RTX 3050",
        "RTX A6000",
        "RTX A5000",
        "RTX A4500",
        "RTX A4000",
        "RTX A2000",
        "A40",
        "A10",
        "A10G",
        "A16",
        "A2",
    ),
    "8.0": ("A100", "A30"),
    "7.5": (
        "GeForce RTX 2080 Ti",
        "GeForce RTX 2080 Super",
        "GeForce RTX 2080",
        "GeForce RTX 2070 Super",
        "GeForce RTX 2070",
        "GeForce RTX 2060 Super",
        "GeForce RTX 2060",
        "GeForce GTX 1660 Ti",
        "GeForce GTX 1660 Super",
        "GeForce GTX 1660",
        "GeForce GTX 1650 Super",
        "GeForce GTX 1650",
        "TITAN RTX",
        "Tesla T4",
        "T4",
        "Quadro RTX 8000",
        "Quadro RTX 6000",
        "Quadro RTX 5000",
        "Quadro RTX 4000",
        "T1000",
        "T600",
        "T400",
    ),
    "7.2": ("Jetson AGX Xavier", "Jetson Xavier NX"),
    "7.0": ("Tesla V100", "Tesla V100S", "TITAN V", "Quadro GV100"),
    "6.2": ("Jetson TX2",),
    "6.1": (
        "GeForce GTX 1080 Ti",
        "GeForce GTX 1080",
        "GeForce GTX 1070 Ti",
        "GeForce GTX 1070",
        "GeForce GTX 1060",
        "GeForce GTX 1050 Ti",
        "GeForce GTX 1050",
        "GeForce GT 1030",
        "TITAN Xp",
        "TITAN X",
        "Tesla P40",
        "Tesla P4",
        "Quadro P6000",
        "Quadro P5000",
        "Quadro P4000",
    ),
    "6.0": ("Tesla P100", "Quadro GP100"),
    "5.3": ("Jetson Nano", "Jetson TX1"),
    "5.2": (
        "GeForce GTX TITAN X",
        "GeForce GTX 980 Ti",
        "GeForce GTX 980",
        "GeForce GTX 970",
        "GeForce GTX 960",
        "GeForce GTX 950",
        "Tesla M60",
        "Tesla M40",
        "Quadro M6000",
    ),
    "5.0": ("GeForce GTX 750 Ti", "GeForce GTX 750", "Quadro K2200", "Quadro K620"),
    "3.7": ("Tesla K80",),
    "3.5": (
        "Tesla K40",
        "Tesla K40m",
        "Tesla K40c",
        "Tesla K20",
        "Tesla K20m",
        "Tesla K20c",
        "Tesla K20X",
        "Tesla K20Xm",
        "GeForce GTX TITAN",
        "GeForce GTX TITAN Black",
        "GeForce GTX TITAN Z",
        "GeForce GTX 780 Ti",
        "GeForce GTX 780",
        "Quadro K6000",
        "Quadro K5200",
    ),
    "3.0": (
        "Tesla K10",
        "GRID K520",
        "GeForce GTX 770",
        "GeForce GTX 760",
        "GeForce GTX 690",
        "GeForce GTX 680",
        "GeForce GTX 670",
        "GeForce GTX 660 Ti",
        "GeForce GTX 660",
        "GeForce GTX 650 Ti BOOST",
        "GeForce GTX 650 Ti",
        "GeForce GTX 650",
        "GeForce GTX 880M",
        "GeForce GTX 870M",
        "GeForce GTX 780M",
        "GeForce GTX 770M",
        "GeForce GTX 765M",
        "GeForce GTX 760M",
        "GeForce GTX 680MX",
        "GeForce GTX 680M",
        "GeForce GTX 675MX",
        "GeForce GTX 670MX",
        "GeForce GTX 660M",
        "GeForce GT 755M",
        "GeForce GT 750M",
        "GeForce GT 650M",
        "GeForce GT 645M",
        "Quadro K5000",
        "Quadro K4200",
        "Quadro K4000",
        "Quadro K2000",
        "Quadro K600",
        "Quadro K420",
    ),
    "2.1": (
        "GeForce GTX 560 Ti",
        "GeForce GTX 550 Ti",
        "GeForce GTX 460",
        "GeForce GTS 450",
        "GeForce GT 440",
        "GeForce GT 430",
        "GeForce GT 520",
        "GeForce GT 620",
        "GeForce GT 610",
        "GeForce GTX 675M",
        "GeForce GTX 670M",
        "GeForce GTX 580M",
        "GeForce GTX 570M",
        "GeForce GTX 560M",
        "GeForce GTX 485M",
        "GeForce GTX 470M",
        "GeForce GTX 460M",
        "GeForce GT 635M",
        "GeForce GT 630M",
        "GeForce GT 555M",
        "GeForce GT 550M",
        "GeForce GT 540M",
        "GeForce GT 525M",
        "GeForce GT 520M",
        "GeForce GT 445M",
        "GeForce GT 435M",
        "GeForce GT 420M",
        "GeForce GT 415M",
        "GeForce 610M",
        "Quadro 2000",
        "Quadro 600",
    ),
    "2.0": (
        "GeForce GTX 590",
        "GeForce GTX 580",
        "GeForce GTX 570",
        "GeForce GTX 480",
        "GeForce GTX 470",
        "GeForce GTX 465",
        "GeForce GTX 480M",
        "Tesla C2050",
        "Tesla C2070",
        "Tesla C2075",
        "Tesla M2050",
        "Tesla M2070",
        "Tesla M2090",
        "Quadro 6000",
        "Quadro 5000",
        "Quadro 4000",
    ),
    "1.3": ("GeForce GTX 285", "GeForce GTX 280", "GeForce GTX 275", "GeForce GTX 260"),
    "1.2": ("GeForce GT 240", "GeForce GT 220", "GeForce 210"),
}
_MODELS = {name.lower(): cc for cc, names in GPU_COMPUTE_CAPABILITY.items() for name in names}
_NVIDIA_WORDS = ("nvidia", "geforce", "tesla", "quadro", "titan", "rtx", "gtx", "jetson", "grid")
_MACHINES = re.compile(r"\b(x86_64|aarch64|arm64|amd64|ppc64le|s390x|i686)\b", re.IGNORECASE)
# The packages around torch the companions probe reports, and torch's pinned wheels.
_COMPANIONS = TORCH_COMPANIONS
_PINNED = (*TRITON_NAMES, "cuda-toolkit")


@dataclass(frozen=True)
class Dump:
    """One collect_env dump: its fields as written, the package lines and the warnings torch printed."""

    fields: dict[str, str]
    """Raw field name -> value, in order; a multi-line field (GPU list, CPU block) joined with newlines."""
    libraries: tuple[str, ...] = ()
    """The "[pip3] ..." and "[conda] ..." lines."""
    warnings: tuple[str, ...] = ()
    """What torch warned before the dump (CUDA initialization, unsupported GPU), one text each."""
    complete: bool = False
    """The dump reaches the end of its package lists (or, typed by hand, its last field)."""
    said: dict[str, str] = field(default_factory=dict, repr=False)
    """What each field says, by meaning (``torch``, ``cuda``, ``gpus``...): the first of its names found."""

    def to_report(self, name: str) -> dict[str, Any]:
        """A saved report (schema version 1) whose facts are what this dump says."""
        facts = _facts(self)
        torch = facts["torch"]
        host = {"os": self.said.get("os"), "python": torch.get("python"), "machine": torch.get("machine")}
        return foreign.report(
            facts,
            {k: str(v) for k, v in host.items() if v},
            collect_env={"source": name, "complete": self.complete, "fields": dict(self.fields)},
        )


def find(text: str) -> Dump | None:
    """The first collect_env dump in ``text``, or None when it holds none. An opening line that no other
    field follows ("PyTorch version: 1.13.0" printed by a REPL above the dump) is passed over for a later
    one that opens a dump, among the first few; where none does, that line is the dump."""
    first = None
    for tried, opening in enumerate(_OPENING.finditer(text)):
        if tried == _OPENINGS_TRIED:
            break
        dump = _dump_at(text, opening.start())
        if len(dump.said) > 1:
            return dump
        first = first or dump
    return first


def _dump_at(text: str, start: int) -> Dump:
    lines = islice(_lines(text, start, start + MAX_DUMP_CHARS), MAX_LINES)
    dump = _read(lines, ends_text=len(text) <= start + MAX_DUMP_CHARS)
    warnings = _warnings(text[max(0, start - _LOOKBACK) : start])
    return Dump(dump.fields, tuple(dump.libraries), warnings, dump.complete, dump.said)


# --- reading the lines ------------------------------------------------------------------------------------

# A line and its end, as str.splitlines() ends lines. Nothing after the line can take its characters, so a
# match never retries: linear in the text.
_LINE = re.compile(r"([^\n\r\v\f\x1c-\x1e\x85\u2028\u2029]*)(?:\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]|\Z)")


def _lines(text: str, start: int, stop: int) -> Iterator[str]:
    """The lines of ``text[start:stop]`` as str.splitlines() gives them, one at a time: a dump is read only as
    far as it goes, whatever follows it."""
    for line in _LINE.finditer(text, start, stop):
        if line.start() == line.end():
            return
        yield line.group(1)


@dataclass
class _Reader:
    fields: dict[str, str] = field(default_factory=dict)
    said: dict[str, str] = field(default_factory=dict)
    libraries: list[str] = field(default_factory=list)
    block: str | None = None
    block_key: str = ""
    block_lines: list[str] = field(default_factory=list)
    ended_by_text: bool = False
    complete: bool = False

    def record(self, key: str, value: str, meaning: str | None) -> None:
        self.fields.setdefault(key, value)
        if meaning is not None:
            self.said.setdefault(meaning, value)

    def open_block(self, key: str, meaning: str, first: str) -> None:
        self.close_block()
        self.block, self.block_key = meaning, key
        self.block_lines = [first] if first else []

    def close_block(self) -> None:
        if self.block is not None:
            lines = self.libraries if self.block == "libraries" else self.block_lines
            self.record(self.block_key, "\n".join(lines), self.block)
        self.block = None


def _clean(raw: str) -> tuple[str, bool]:
    """A line without indentation, Markdown bullets and bold, full-width colons as ASCII ones."""
    text = raw[:MAX_LINE].strip().replace("\uff1a", ":")
    if text.strip("> \t") == "":
        return "", bool(text)  # a quoted blank line: ">" alone, or "> >" in a quote of a quote
    start = 0
    while start + 1 < len(text) and text[start] in "-*+>" and text[start + 1] in " \t":
        start += 2
        while start < len(text) and text[start].isspace():
            start += 1
    return text[start:].replace("**", ""), start > 0


def _split(text: str) -> tuple[str, str, str | None]:
    """(key as written, value, meaning); meaning None for a line that is no known field."""
    lower = text.lower()
    if lower.startswith("pytorch version ") and ":" not in text:
        return text[:15], text[16:].strip(), "torch"
    key, colon, value = text.partition(":")
    if not colon:
        return "", text, None
    key = key.replace("`", "").strip()
    return key, value.strip().strip("`").strip(), _KEYS.get(" ".join(key.lower().split()))


def _read(lines: Iterable[str], ends_text: bool) -> _Reader:
    reader = _Reader()
    unknown = 0
    for index, raw in enumerate(lines):
        text, bullet = _clean(raw)
        if index and (text.startswith(("```", "#")) or text == "`"):
            reader.ended_by_text = True
            break
        if reader.block == "libraries":
            if not text and not reader.libraries:
                continue
            if text.startswith("["):
                reader.libraries.append(text)
                continue
            reader.ended_by_text = True
            break
        if not text:
            if reader.block in ("gpus", "cudnn", "cpu"):
                reader.close_block()
            continue
        key, value, meaning = _split(text)
        in_cpu = reader.block == "cpu" and meaning != "libraries"
        if meaning is not None and not in_cpu:
            unknown = 0
            reader.close_block()
            if meaning in _BLOCKS and (not value or value.startswith("Probably one of the following")):
                reader.open_block(key, meaning, value)
            else:
                reader.record(key, value, meaning)
        elif reader.block is not None:
            reader.block_lines.append(text)
        elif key and (bullet or len(key) <= 60):
            unknown = 0 if bullet else unknown
            reader.record(key, value, None)
        else:
            unknown += 1
            if unknown >= 2:
                reader.ended_by_text = True
                break
    reader.close_block()
    reader.complete = _complete(reader, ends_text)
    return reader


def _complete(reader: _Reader, ends_text: bool) -> bool:
    if "libraries" in reader.said or reader.libraries:
        last = reader.libraries[-1] if reader.libraries else ""
        conda_row = last.startswith("[conda]") and len(last.split()) >= 4
        whole = "==" in last or conda_row or "could not collect" in last.lower()
        return bool(reader.libraries) and (reader.ended_by_text or whole)
    if "debug" in reader.said:  # collect_env's own format, cut before its package lists
        return False
    return bool(reader.fields) and (reader.ended_by_text or ends_text)


def _warnings(before: str) -> tuple[str, ...]:
    """The CUDA warnings torch printed just before the dump (after "Collecting environment information")."""
    cut = before.rfind(_COLLECTING)
    lines = (before[cut:] if cut >= 0 else before).splitlines()[-40:]
    found: list[list[str]] = []
    current: list[str] | None = None
    for raw in lines:
        line = raw[:MAX_LINE].strip()
        _, marker, rest = line.partition("Warning:")
        if marker:
            current = [rest.strip()]
            found.append(current)
        elif line.startswith(("warnings.warn(", "return ", "warn(", _COLLECTING)):
            current = None
        elif current is not None and line:
            current.append(line)
    texts = ("\n".join(parts).strip() for parts in found)
    return tuple(t for t in texts if t and ("CUDA" in t or "NVIDIA" in t or "cuda capability" in t))


# --- facts ------------------------------------------------------------------------------------------------


def _answer(value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip().strip("`").strip()
    return None if value.lower() in _NOT_AN_ANSWER else value


def _version_in(value: str | None) -> str | None:
    match = _VERSION.match(_answer(value) or "")
    return match.group(0) if match else None


def _yes(value: str | None) -> bool | None:
    answer = (_answer(value) or "").lower()
    return {"true": True, "yes": True, "false": False, "no": False}.get(answer)


def _facts(dump: Dump) -> dict[str, Any]:
    torch = _torch(dump)
    nv = _nvml(dump, torch)
    return {
        "torch": torch,
        "nvml": nv,
        "cuda_driver": _cuda_driver(dump),
        "loaded_libraries": {"skip_reason": "a collect_env dump does not list them"},
        "companions": _companions(dump),
        "companion_operators": {},
    }


def _torch(dump: Dump) -> dict[str, Any]:
    said = dump.said
    version = _version_in(said.get("torch"))
    facts: dict[str, Any] = {"importable": version is not None}
    if version is not None:  # "PyTorch version: N/A": collect_env could not import torch, and says not why
        facts["version"] = version
    python = _version_in(said.get("python"))
    if python:
        facts["python"] = python
    machine = _machine(dump)
    if machine:
        facts["machine"] = machine
    system = _os(dump, machine)
    if system:
        facts["os"] = system
    if system.get("system") == "Darwin" and version is not None:
        mps = _mps(dump, version, machine)
        if mps:
            facts["mps"] = mps
    debug = _yes(said.get("debug"))
    if debug is not None:
        facts["debug"] = debug
    facts.update(_build(dump, version))
    available = _yes(said.get("cuda_available"))
    if available is not None:
        facts["cuda_available"] = available
    arch_list = _arch_list(dump.warnings)
    if arch_list:
        facts["arch_list"] = arch_list
    if dump.warnings:
        facts["cuda_warnings"] = list(dump.warnings)
    return facts


def _build(dump: Dump, version: str | None) -> dict[str, Any]:
    """flavor, cuda and hip, from the build fields, else from the wheel's local label (+cu121, +cpu)."""
    build = _build_said(dump, version)
    if "rocm" not in dump.said and build.get("hip", "") is None:
        del build["hip"]  # the dump does not say whether it is a ROCm build
    return build


def _build_said(dump: Dump, version: str | None) -> dict[str, Any]:
    said = dump.said
    rocm = _version_in(said.get("rocm"))
    cuda_text = said.get("cuda")
    label = (version or "").partition("+")[2].lower()
    if rocm:
        return {"flavor": "rocm", "hip": rocm, "cuda": None}
    cuda = _version_in(cuda_text)
    if cuda:
        return {"flavor": "cuda", "cuda": cuda, "hip": None}
    xpu = label == "xpu" or _yes(said.get("xpu_available")) is True
    if cuda_text is not None and (_answer(cuda_text) is None and cuda_text.strip().lower() != "n/a"):
        # "None" or "Could not collect": collect_env prints torch.version.cuda, None for a build without CUDA.
        return {"flavor": "xpu" if xpu else "cpu", "cuda": None, "hip": None}
    match = re.fullmatch(r"cu(\d{2,3})", label)
    if match:
        digits = match.group(1)
        return {"flavor": "cuda", "cuda": f"{digits[:-1]}.{digits[-1]}", "hip": None}
    if label.startswith("rocm"):
        return {"flavor": "rocm", "cuda": None}
    if label in ("cpu", "xpu"):
        return {"flavor": label, "cuda": None, "hip": None}
    return {}


def _arch_list(warnings: Sequence[str]) -> list[str]:
    for text in warnings:
        _, marker, rest = text.partition("supports CUDA capabilities ")
        if marker:
            return [t for t in rest.split(".")[0].split() if re.fullmatch(r"(sm|compute)_\d+[af]?", t)]
    return []


def _machine(dump: Dump) -> str | None:
    said = dump.said
    for value in (said.get("platform"), said.get("os"), said.get("python"), said.get("architecture")):
        match = _MACHINES.search(value or "")
        if match:
            return match.group(1) if match.group(1).lower() != "amd64" else "AMD64"
    return None


_MACOS_VERSION = re.compile(r"\b(?:macOS|Mac OSX|Mac OS X)\s+(\d+(?:\.\d+){0,2})", re.IGNORECASE)


def _mps(dump: Dump, version: str, machine: str | None) -> dict[str, Any]:
    """What a dump says of MPS: torch's macOS wheels are built with it from 1.12 on, and the macOS version
    is in the OS line; whether MPS is available a dump does not say (so the key is left out)."""
    release = _version_in(version.split("+")[0]) or ""
    numbers = tuple(int(part) for part in release.split(".")[:2] if part.isdigit())
    if numbers < (1, 12):
        return {}
    facts: dict[str, Any] = {"built": True}
    if machine:
        facts["machine"] = machine
    found = _MACOS_VERSION.search(dump.said.get("os") or "")
    if found:
        facts["macos_version"] = found.group(1)
    return facts


def _os(dump: Dump, machine: str | None) -> dict[str, Any]:
    said = dump.said
    platform = said.get("platform") or ""
    text = f"{said.get('os') or ''} {platform}".lower()
    if "macos" in said or "macos" in text or "mac osx" in text or "mac os x" in text or "darwin" in text:
        return {"system": "Darwin"}
    if "windows" in text:
        system: dict[str, Any] = {"system": "Windows"}
        parts = platform.split("-")
        if platform.startswith("Windows-") and len(parts) > 1:
            system["release"] = parts[1]
        return system
    linux = ("linux", "ubuntu", "debian", "centos", "red hat", "fedora", "suse", "arch", "rocky", "alma")
    if not any(word in text for word in linux):
        return {}
    system = {"system": "Linux"}
    if platform.startswith("Linux-") and machine and f"-{machine}" in platform:
        release = platform[len("Linux-") : platform.index(f"-{machine}")]
        system.update(release=release, wsl="microsoft" in release.lower())
    return system


def _gpu_lines(value: str | None) -> list[tuple[int, str]]:
    gpus = []
    for index, line in enumerate((value or "").splitlines()):
        match = re.match(r"GPU\s*(\d+)\s*:\s*(.+)", line.strip())
        name = match.group(2).strip() if match else line.strip()
        if _answer(name) is not None:
            gpus.append((int(match.group(1)) if match else index, name))
    return gpus


def compute_capability(name: str) -> tuple[int, int] | None:
    """The compute capability of an NVIDIA GPU model, by its name (see GPU_COMPUTE_CAPABILITY)."""
    text = " ".join(name.lower().split())
    text = text[len("nvidia ") :] if text.startswith("nvidia ") else text
    best = None
    for end in range(len(text), 0, -1):
        if end == len(text) or text[end] in " -(":
            cc = _MODELS.get(text[:end].rstrip())
            if cc is not None:
                best = cc
                break
    if best is None:
        return None
    major, minor = best.split(".")
    return int(major), int(minor)


def _is_nvidia(name: str) -> bool:
    lower = name.lower()
    return compute_capability(name) is not None or lower.startswith(_NVIDIA_WORDS)


def _warned_capabilities(warnings: Sequence[str]) -> dict[str, tuple[int, int]]:
    """GPU name -> CC, as torch's own warnings state them."""
    found: dict[str, tuple[int, int]] = {}
    for text in warnings:
        for line in text.splitlines():
            head, marker, rest = line.partition(" with CUDA capability sm_")
            digits = re.match(r"\d+", rest)
            if marker and digits:
                number = int(digits.group(0))
                found[head.strip()] = (number // 10, number % 10)
            old = re.search(r"Found GPU\d+ (.{1,200}?) which is of cuda capability (\d+)\.(\d+)", line)
            if old:
                found[old.group(1).strip()] = (int(old.group(2)), int(old.group(3)))
    return found


def _nvml(dump: Dump, torch: Mapping[str, Any]) -> dict[str, Any]:
    said = dump.said
    warned = _warned_capabilities(dump.warnings)
    gpus = []
    for index, name in _gpu_lines(said.get("gpus")):
        if not _is_nvidia(name) and name not in warned:
            continue
        cc = warned.get(name) or compute_capability(name)
        gpus.append({"index": index, "name": name, "compute_capability": list(cc) if cc else None})
    mac = (torch.get("os") or {}).get("system") == "Darwin"
    # On macOS collect_env reports the version of NVIDIA's CUDA kernel extension, not a driver NVIDIA's
    # driver tables list, so it is kept in the fields only.
    driver = None if mac else _version_in(said.get("driver")) or _hand_written_driver(dump)
    if gpus or driver:
        facts: dict[str, Any] = {"available": True, "gpus": gpus}
        if driver:
            facts["driver_version"] = driver
        return facts
    gpu_field = (said.get("gpus") or "").strip()
    if "debug" in said and gpu_field.lower() in ("no cuda", "could not collect"):
        # collect_env's own answer: nvidia-smi found no GPU ("No CUDA": no CUDA runtime, GPU or driver either)
        return {
            "available": False,
            "error": f"collect_env: GPU models and configuration: {gpu_field}",
            "gpus": [],
        }
    return {}


def _hand_written_driver(dump: Dump) -> str | None:
    if "debug" in dump.said:  # collect_env's own format has its driver field
        return None
    for value in dump.fields.values():
        match = re.search(r"driver(?: version)?(?:\s*:)?\s*(\d{3}\.\d+(?:\.\d+)?)", value, re.IGNORECASE)
        if match:
            return match.group(1)
    return None


def _cuda_driver(dump: Dump) -> dict[str, Any]:
    """cuDriverGetVersion, where torch's warning quotes it ("found version 9010")."""
    for text in dump.warnings:
        match = re.search(r"found version (\d{4,6})", text)
        if match:
            return {"driver_cuda_version": int(match.group(1))}
    return {}


def _library(line: str) -> dict[str, Any] | None:
    tag, _, rest = line[1:].partition("]")
    tag, rest = tag.strip().lower(), rest.strip()
    if tag.startswith("pip"):
        name, _, version = rest.partition("==")
        name = name.partition(" @ ")[0].strip()
        return {"listed_by": "pip", "name": canonical_name(name), "version": version.strip() or None}
    parts = rest.split()
    if tag != "conda" or not parts or rest.lower().startswith("could not collect"):
        return None
    entry = {"listed_by": "conda", "name": canonical_name(parts[0]), "version": None}
    for key, value in zip(("version", "build", "channel"), parts[1:4], strict=False):
        entry[key] = value
    return entry


def _companions(dump: Dump) -> dict[str, Any]:
    if not dump.libraries and "libraries" not in dump.said:
        return {}
    entries = [e for e in map(_library, dump.libraries) if e is not None]
    pip = {e["name"]: e for e in entries if e["listed_by"] == "pip" and e["version"]}
    conda = {e["name"]: e for e in entries if e["listed_by"] == "conda" and e["version"]}
    facts: dict[str, Any] = {"looked_for": list(_COMPANIONS), "installed": {}, "companions": []}
    for name in sorted({*pip, *conda}):
        entry = pip.get(name) or conda[name]
        if name in _PINNED or name.startswith("nvidia-"):
            facts["installed"][name] = entry["version"]
        if name in _COMPANIONS:
            facts["companions"].append(
                {
                    "name": name,
                    "version": entry["version"],
                    "build_version": entry["version"],
                    "build_version_from": f"{entry['listed_by']} list",
                }
            )
    if "torch" in pip:
        facts["torch"] = {"version": pip["torch"]["version"]}
    installs = [e for e in entries if e["name"] in ("torch", "pytorch") and e["version"]]
    if installs:
        facts["torch_installs"] = installs
    return facts
