"""Error messages of a torch build that does not fit the machine: CPU-only wheels, drivers, kernels, CUDA
initialisation, cuDNN and the other shared libraries, companion packages and NumPy.

The entries are the data of explanations.toml beside this module (:mod:`torchdoctor.explain.catalogue_file`),
registered in the entry-point group ``torchdoctor.explanations``; quoted from where torch raises them, the
research notes (research/cuda_semantics.md, research/ddp_dryrun.md 3), and the real texts of
tests/corpus/errors. This module holds their analysers.
"""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import islice
from typing import Any

from torchdoctor.checks.devices.explanations import hidden_gpus, lightning_gpu_request
from torchdoctor.checks.install import (
    builds,
    companions_judge,
    cuda_compat,
    install_plan,
    pairing,
    tables,
    unpublished,
    xpu_build,
)
from torchdoctor.checks.install.versions import Version
from torchdoctor.checks.memory.pinned import pinned_analysis
from torchdoctor.checks.training.explanations import asked_for_cpu
from torchdoctor.explain import Analysis, Entry, catalogue_file
from torchdoctor.explain.cpu_path import (
    cpu_path,
    cuda_call,
    hard_coded_cuda,
    restored_on_cuda,
    with_program_cpu_option,
)
from torchdoctor.explain.model import last_match, quoted, quoted_lines
from torchdoctor.explain.statement import (
    failing_statement,
    frame_files,
    installed_package,
    last_frame_file,
    source_folder,
)
from torchdoctor.explain.versions_said import versions_said
from torchdoctor.inputs import collect_env
from torchdoctor.machine.distributions import canonical_name
from torchdoctor.model import Fix
from torchdoctor.output.wording import and_list, clipped


def _last(pattern: str, text: str) -> re.Match[str] | None:
    return last_match(re.compile(pattern, re.IGNORECASE), text)


_DRIVER_SEEN = re.compile(
    r"(?:Nvidia driver version|Driver Version):\s*(\d{2,4}\.\d{1,3}(?:\.\d{1,3})?)", re.IGNORECASE
)
_WINDOWS_SEEN = re.compile(
    r"^OS:\s*Microsoft Windows|\bwin_amd64\b|[A-Z]:\\\\?Users\\|\\Scripts\\pip(?:\.exe)?\b", re.MULTILINE
)


@dataclass(frozen=True)
class _Seen:
    """What a pasted text says of the machine: the torch release, the OS, the driver."""

    version: str | None
    release: str | None
    cuda: str | None
    """The CUDA of the installed build, from its local version (``+cu126``)."""
    os_key: str
    driver_version: str | None
    driver_os: str


_SEEN_WINDOW = 65536  # a collect_env dump or a traceback header is short: the machine is said near the error


def _seen(whole: str) -> _Seen:
    text = (
        whole[:_SEEN_WINDOW]
        if len(whole) <= 2 * _SEEN_WINDOW
        else whole[:_SEEN_WINDOW] + whole[-_SEEN_WINDOW:]
    )
    torch_version = versions_said(text).get("torch")
    release = torch_version.partition("+")[0] if torch_version else None
    windows = _WINDOWS_SEEN.search(text) is not None
    driver = last_match(_DRIVER_SEEN, text)
    return _Seen(
        torch_version,
        release,
        cuda_compat.cuda_of_label((torch_version or "").partition("+")[2]),
        "windows-x86_64" if windows else "linux-x86_64",
        driver[1] if driver else None,
        "windows" if windows else "linux",
    )


def _plan(
    text: str, ccs: list[tuple[int, int]], driver_cuda: int | None, arch_list: Sequence[str] = ()
) -> install_plan.Plan:
    """The install plan ``torchdoctor check`` makes for the machine the text describes (the same function),
    with the arch list the installed torch states in the text."""
    seen = _seen(text)
    installed = install_plan.installed_build(seen.version, seen.os_key, seen.cuda, list(arch_list))
    return install_plan.plan_for(
        seen.release, seen.os_key, ccs, driver_cuda, seen.driver_version, seen.driver_os, installed=installed
    )


# The GPU the writer names beside a CPU-only torch. An AMD one ("I have AMD GPU", "AMD 6600XT", "the amd
# graphics card I use", "7900xt", "Radeon RX 580"; not an AMD CPU), an Intel one (Arc; HD, UHD or Iris
# graphics), a Mac's, or one the writer says is not NVIDIA's is no CUDA device: no CUDA build of torch can use
# it. An NVIDIA one ("RTX 4090", "GTX1650") is.
_AMD_GPU = re.compile(
    r"\b(?:AMD|Radeon)\b(?!\s?(?:Ryzen|EPYC|Threadripper|Athlon|Opteron|FX\b|CPU|processor))[ \w()/-]{0,20}?"
    r"(?:\bGPUs?\b|\b(?:graphics|video) cards?\b|\bcards?\b|\bRX\s?\d{3,4}\w{0,3}|\b\d{4}\s?XTX?\b)"
    r"|\bRadeon\b(?:\s(?:RX\s?)?\d{3,4}\s?[A-Z]{0,3})?|\bRX\s?[4-9]\d{2,3}\s?(?:XTX|XT)?\b|\b[5-9]\d00\s?XTX?\b",
    re.IGNORECASE | re.ASCII,
)
# The Intel GPUs torch's XPU build supports: Arc (A and B series, Core Ultra's Arc graphics) and the Data
# Center GPU Max ('Getting Started on Intel GPU', docs/source/notes/get_start_xpu.rst); the HD, UHD and Iris
# graphics of older processors are not among them.
_INTEL_GPU = re.compile(
    r"\bIntel\b[ \w()/®™-]{0,20}?\b(?:Arc|Data Center GPU Max)\b(?:\s?[A-Z]?\d{3,4}M?)?", re.IGNORECASE
)
_INTEL_INTEGRATED = re.compile(
    r"\bIntel\b(?:\(R\)|®)?[ \w-]{0,12}?\b(?:U?HD|Iris)\b(?: (?:Xe|Plus|Pro))?(?: Graphics)?(?: \d{3,4})?"
    r"|\bIntel(?:\(R\)|®)? (?:integrated )?graphics(?: cards?)?\b(?: \d{3,4})?",
    re.IGNORECASE,
)
# A Mac as writers name it, in any case: Apple silicon, an M-series chip beside a word that makes it Apple's
# ("m1 macbook pro", "M3 Pro", "M1 machine", "an M series chip"; Tesla M4 and M40 are NVIDIA's), the Mac
# itself ("Macbook", "on mac", "(OSX)", "macOS") or conda's and pip's platform tags (osx-arm64, macosx_).
_APPLE_GPU = re.compile(
    r"\bApple\s(?:M[1-5]|silicon|chip)\b"
    r"|\bM[1-5]\s?(?:Pro|Max|Ultra|chip|Mac\w{0,4}|machine|Air)\b|\bM[\s-]?series\s(?:chip|Mac)"
    r"|\b(?:i?Mac(?!\s?address)|MacBook\w{0,4}|mac\s?OS(?:\sX)?|OS\s?X)\b|\bosx-arm64\b|\bmacosx_\w",
    re.ASCII | re.IGNORECASE,
)
_NVIDIA_GPU = re.compile(
    r"\b(?:GeForce|RTX|GTX|Tesla|Quadro)\s?[A-Z]?\s?\d{3,4}(?:\s?Ti)?\b"
    r"|\bNVIDIA (?:[A-Z]\d{2,3}|RTX|GeForce)\w{0,10}",
    re.ASCII,
)
_OTHER_GPU: tuple[tuple[Callable[[str], re.Match[str] | None], str, str | None, str | None], ...] = (
    (
        _AMD_GPU.search,
        "an AMD GPU",
        "CUDA is NVIDIA's alone: no CUDA build of torch can use an AMD GPU. torch runs on AMD GPUs through "
        "its ROCm build, only for the GPUs ROCm supports: pytorch.org publishes it for Linux, and AMD "
        "publishes its own ROCm wheels of torch for Windows, for the Radeon and Ryzen GPUs of its Windows "
        "compatibility matrix.",
        "On Linux install torch's ROCm build (pip install torch --index-url "
        "https://download.pytorch.org/whl/rocm<version>, the program's AMD instructions where it has them); "
        "on Windows, AMD's ROCm build where the GPU is in its Windows compatibility matrix "
        "(rocm.docs.amd.com, Radeon and Ryzen, 'PyTorch via PIP installation': Python 3.12 wheels from "
        "repo.radeon.com/rocm/windows), installed in the environment the program runs in. Otherwise run on "
        "the CPU (the program's --cpu option, or device='cpu'), through DirectML where the program supports "
        "it, or on an NVIDIA GPU.",
    ),
    (
        _INTEL_GPU.search,
        "an Intel GPU",
        "CUDA is NVIDIA's alone: no CUDA build of torch can use an Intel GPU; torch reaches Intel GPUs as "
        "the 'xpu' device of its XPU build.",
        "Install torch's XPU build (pip install torch --index-url https://download.pytorch.org/whl/xpu) and "
        "use device 'xpu' where the program allows it; or run on the CPU (device='cpu').",
    ),
    (
        _INTEL_INTEGRATED.search,
        "an Intel integrated GPU",
        "CUDA is NVIDIA's alone: no CUDA build of torch can use an Intel GPU, and torch's XPU build supports "
        "Intel's Arc GPUs, not the HD, UHD or Iris graphics of older processors: no torch build computes on "
        "this one.",
        None,
    ),
    (
        _APPLE_GPU.search,
        "a Mac",
        "A Mac has no NVIDIA GPU and torch has no CUDA build for macOS: its GPU is the 'mps' device.",
        "Use device 'mps' where the program allows it (torch.backends.mps.is_available()), or run on the "
        "CPU (the program's --cpu option, or device='cpu'); the code's .cuda() calls and device='cuda' must "
        "go.",
    ),
    # the writer's words, read by the entry's own patterns; its cause and fix
    (lambda text: _NOT_NVIDIA.first_match(text), "a GPU that is not NVIDIA's", None, None),
)


# pip building a package (its metadata, its wheel): the package's setup.py runs in pip's isolated build
# environment, which has only its declared build requirements.
_PIP_BUILDING = re.compile(
    r"Getting requirements to build (?:wheel|editable)|Preparing metadata|egg_info|Building wheels? for"
    r"|\bon pip install\b|\bpip3? install\b[^\n]{0,80}\n[^\n]{0,200}No module named",
    re.IGNORECASE,
)
_BUILD_ISOLATION_FIX = Fix(
    "pip builds the package in an isolated environment with only its declared build requirements, and its "
    "setup.py imports torch: install torch first, then the package with pip install --no-build-isolation "
    "<package> (or pip install --no-build-isolation -e . in its folder).",
    ("pip install --no-build-isolation .",),
)


def analyse_torch_missing(text: str) -> Analysis:
    """pip's build of a package, where the text shows it; else the program's import of torch."""
    tail = text[-200_000:]
    building = last_match(_PIP_BUILDING, tail)
    if building is not None:
        line = f"pip is building a package ({' '.join(building[0].split())[:60]}): its setup.py imports torch"
        return Analysis(evidence=(line,), fix=_BUILD_ISOLATION_FIX)
    statement = failing_statement(tail, own_code=True)
    evidence = () if statement is None else (f"the program imports torch at {statement}",)
    if _PYTHON_2_WORDS.search(tail) is None:
        return Analysis(evidence=evidence)
    line = "the message is in Python 2's words (ImportError, the name unquoted): the Python that ran is 2.x"
    return Analysis(evidence=(*evidence, line), fix=_PYTHON_2_FIX)


# Python 2 says "ImportError: No module named torch"; Python 3 quotes the name (ModuleNotFoundError: No module
# named 'torch'). torch has published no Python 2 wheel since 1.5.
_PYTHON_2_WORDS = re.compile(r"ImportError\s{0,3}:\s{0,3}No module named torch(?![\w.'])")
_PYTHON_2_FIX = Fix(
    "Run the program with Python 3 (python3 script.py: torch has had no Python 2 wheel since 1.5), and where "
    "a script or the program starts another process as python (os.system('python ...'), subprocess, a shell "
    "script's python line), make that python3, or sys.executable in Python code; on Ubuntu the "
    "python-is-python3 package makes python name Python 3."
)


def analyse_no_hip_gpus(text: str) -> Analysis:
    """A ROCm torch on a machine whose GPU the text names as an NVIDIA one."""
    nvidia = _NVIDIA_GPU.search(text[:_SEEN_WINDOW])
    if nvidia is None:
        return Analysis()
    named = " ".join(nvidia[0].split())
    return Analysis(
        evidence=(f"the text names an NVIDIA GPU ({named}): a ROCm build cannot use it, the CUDA build can",)
    )


# lspci -k's line of the modules that may drive the GPU, where nouveau is one.
_NOUVEAU = re.compile(r"Kernel (?:driver in use|modules): [^\n]{0,80}?\bnouveau\b")


def analyse_driver_not_loaded(text: str) -> Analysis:
    """nouveau named for the GPU, where the text shows lspci's lines."""
    if _NOUVEAU.search(text[-200_000:]) is None:
        return Analysis()
    return Analysis(
        evidence=(
            "lspci names nouveau for the GPU: loaded, it holds the GPU the NVIDIA driver needs "
            "(blacklist it)",
        )
    )


# The loader's words: the libstdc++ it loaded, the version missing, and the module that asked.
_LIBSTDCXX = re.compile(
    r"(\S{0,200}libstdc\+\+\.so\.6): version [`'‘’\"]{0,2}((?:GLIBCXX|CXXABI)_[\d.]{3,10}?)[`'‘’\"]{0,2} "
    r"not found \(required by (\S{1,300})\)"
)
_CONDA_PATH = re.compile(r"(?:conda|mamba|miniforge)\w{0,3}[/\\]|[/\\]envs[/\\]", re.IGNORECASE)


def analyse_libstdcxx(text: str) -> Analysis:
    """The libstdc++ loaded and the module that asked; whether that module lives in a conda environment."""
    found = last_match(_LIBSTDCXX, text)
    if found is None:
        return Analysis()
    evidence = [f"{found[3]} needs {found[2]}, which {found[1]} lacks"]
    if _CONDA_PATH.search(found[3]) and not _CONDA_PATH.search(found[1]):
        evidence.append(
            "the module lives in a conda environment and the libstdc++ loaded is the system's: the "
            "environment's own (in $CONDA_PREFIX/lib) is newer"
        )
    return Analysis(evidence=tuple(evidence))


# A "no GPU" message: where it is, so that only what comes before it is read for its cause.
_NO_CUDA_MESSAGE = re.compile(
    r"Found no NVIDIA driver|Torch not compiled with CUDA enabled|module 'torch\._C' has no attribute '_cuda_"
)


def _restored(text: str) -> Analysis | None:
    """The message raised while torch.load restored tensors saved on a GPU, where the text shows the load."""
    message = last_match(_NO_CUDA_MESSAGE, text)
    return None if message is None else restored_on_cuda(text, message.start())


def analyse_no_driver(text: str) -> Analysis:
    """A checkpoint restored on CUDA, a program asked to run on the CPU, a GPU that is no NVIDIA one, then
    the program's own CUDA call where the text names no NVIDIA GPU (with one, the driver is what to fix)."""
    window = text[:_SEEN_WINDOW]
    message = _NO_DRIVER.compiled[0]  # the entry's own message, where the program's call is read before it
    return (
        _restored(text)
        or _colab_without_gpu(text)
        or asked_for_cpu(text)
        or cpu_path(text, message)
        or _gpu_not_cuda(window)
        or (None if _NVIDIA_GPU.search(window) else hard_coded_cuda(text, message))
        or Analysis()
    )


# Colab's team answers the message so (googlecolab/colabtools#4425, #4876, #5329): a runtime without a GPU.
_COLAB_RUNTIME = Fix(
    "Switch the notebook to a GPU runtime: Runtime > Change runtime type > a GPU accelerator (a T4 on the "
    "free tier), save, and run the cells again from the top (the new runtime starts empty, so the installs "
    "run again). Where Colab grants no GPU (the free tier's GPU time is spent), wait or use a paid tier; or "
    "run the program on the CPU where it has a CPU option.",
    ("nvidia-smi",),
)


def _colab_without_gpu(text: str) -> Analysis | None:
    """On Google Colab (its name, its /content/ folder, a notebook's address in the text) no driver is a
    runtime without a GPU: Colab installs the driver in its GPU runtimes only."""
    found = last_match(_COLAB, text[-200_000:])
    if found is None:
        return None
    return Analysis(
        evidence=(f"the text shows Google Colab ({found[0]})",),
        cause=(
            "On Google Colab this means the notebook's runtime has no GPU: a CPU runtime (the runtime "
            "type left at CPU, or no GPU granted), so no NVIDIA driver is loaded. Colab brings the driver "
            "with its GPU runtimes; it is not one to install."
        ),
        fix=_COLAB_RUNTIME,
    )


def analyse_not_compiled(text: str) -> Analysis:
    """A CPU-only torch: the build the text shows, and the GPU its writer names. With a GPU that is no
    NVIDIA one, installing a CUDA build is no answer: the build that reaches that GPU, or the CPU. Raised
    while torch.load restored a checkpoint saved on a GPU, map_location is the fix. A route to the CPU names
    the device setting of the framework the text shows."""
    return with_program_cpu_option(_not_compiled(text), text)


def _not_compiled(text: str) -> Analysis:
    restored = _restored(text)
    if restored is not None:
        return restored
    if _in_a_cpp_program(text[-200_000:]):
        return _CPP_WITHOUT_CUDA_LIBRARY
    evidence: list[str] = []
    seen = _seen(text)
    if seen.version is not None and "+cpu" in seen.version:
        evidence.append(f"the text shows torch {seen.version}: a CPU-only wheel")
    jetson = _on_jetson(text[-200_000:], tuple(evidence), _NOT_COMPILED.fix)
    if jetson is not None:
        return jetson
    window = text[:_SEEN_WINDOW]
    nvidia = _NVIDIA_GPU.search(window)
    if nvidia is not None:
        evidence.append(
            f"the text names an NVIDIA GPU ({' '.join(nvidia[0].split())}): a CUDA build can use it"
        )
    else:
        on_cpu = cpu_path(text)
        if on_cpu is not None:
            return replace(on_cpu, evidence=(*evidence, *on_cpu.evidence))
        other = _gpu_not_cuda(window) or asked_for_cpu(text)
        if other is not None:
            return replace(other, evidence=(*evidence, *other.evidence))
    from_file = _from_env_file(text[-200_000:], tuple(evidence), _NOT_COMPILED.fix)
    if from_file is not None:
        return from_file
    if nvidia is not None:
        return Analysis(evidence=tuple(evidence))
    # no NVIDIA GPU named: the machine may have none, and then the CPU build is the right one
    called = cuda_call(text[-200_000:], _NOT_COMPILED.compiled[0])
    if called is not None:
        evidence.append(called)
    base = _NOT_COMPILED.fix
    return Analysis(evidence=tuple(evidence), fix=Fix(f"{base.text} {_CPU_ROUTE}", base.commands))


# ATen's words (initCUDA of aten/src/ATen/detail/CUDAHooksInterface.h) thrown in a C++ program: C++'s
# uncaught-exception line or a CMake link line, and no Python traceback.
_ATEN_CUDA_HOOKS = re.compile(r"Cannot initialize CUDA without ATen_cuda library", re.IGNORECASE)
_CPP_PROGRAM = re.compile(
    r"terminate called after throwing an instance of|target_link_libraries\s?\(|CMakeLists\.txt",
    re.IGNORECASE,
)
_PYTHON_TRACEBACK = re.compile(r"Traceback \(most recent call last\)|^\s{0,8}File \"", re.MULTILINE)


def _in_a_cpp_program(tail: str) -> bool:
    return (
        _ATEN_CUDA_HOOKS.search(tail) is not None
        and _CPP_PROGRAM.search(tail) is not None
        and _PYTHON_TRACEBACK.search(tail) is None
    )


_CPP_WITHOUT_CUDA_LIBRARY = Analysis(
    evidence=("the text shows a C++ program (no Python traceback) that links torch's libraries itself",),
    cause="A C++ program linked against torch's libraries (libtorch, or ATen's own) asked for CUDA, and the "
    "CUDA library (libtorch_cuda.so, libATen_cuda.so in older releases) was not loaded with it: the linker "
    "drops a library none of whose symbols the program uses (--as-needed), or the program was linked "
    "against a CPU-only libtorch.",
    fix=Fix(
        "Keep the CUDA library in the link: link with -Wl,--no-as-needed before it (CMake: "
        "find_package(Torch) and target_link_libraries(<target> ${TORCH_LIBRARIES}), which adds it), and "
        "check with ldd that the binary depends on the *_cuda.so library; with a CPU-only libtorch, download "
        "its CUDA build.",
        ("ldd ./<binary> | grep -i cuda",),
    ),
)

# device.run_on_cpu's route, without its torch.load(map_location) and half-precision parts: here the message
# was raised by a .cuda() call, not by a checkpoint's restore
_CPU_ROUTE = (
    "Where this machine has no NVIDIA GPU, keep the CPU build and run the program on the CPU: its device "
    "option (device = 'cpu', --device cpu), or torch.device('cuda' if torch.cuda.is_available() else 'cpu') "
    "with .to(device) in place of its .cuda() calls."
)


# The module the message names, and the last file of the traceback before it: the one that imports it.
_MISSING_MODULE = re.compile(r"No module names?d?\s[‘'\"`]?([\w-]{1,60}(?:\.[\w-]{1,60}){0,5})")
_MISSING_NAME = re.compile(
    r"cannot import name\s[‘'\"`]([\w-]{1,60})[’'\"`]"
    r"(?:\s{1,3}from\s{1,3}[‘'\"`]([\w-]{1,60}(?:\.[\w-]{1,60}){0,5})[’'\"`])?"
)
# The module and the function of "module 'X' has no attribute 'Y'", read where extension.not_built's own
# pattern (a compiled part's name) recognised the line.
_NO_ATTRIBUTE = re.compile(r"module\s[‘'\"`]([\w.]{1,200})[’'\"`]\s{1,3}has no attribute\s[‘'\"`](\w{1,80})")
_NOT_THIS_BUILD_CAUSE = (
    "The extension's name imports, but what it finds is not a build of these sources: the folder of its "
    "sources, never built, imports as an empty namespace package (Python imports a folder without "
    "__init__.py on its path without an error, so the program starts and fails where it calls the "
    "extension), or a build that failed partway, or an older version's build, is the one installed."
)


# A package's compiled _C that failed to load: its own warning, or the name missing where an op calls it.
_C_NOT_LOADED = re.compile(r"Failed to load custom C\+\+ ops|name ['\"`]_C['\"`] is not defined")
_C_NOT_LOADED_FIX = Fix(
    "Reinstall the package so that its C++/CUDA ops are compiled: with CUDA_HOME set to the CUDA toolkit "
    "(the one torch was built with) and the GPU visible, since its setup.py builds the CUDA ops only where "
    "it finds CUDA: export CUDA_HOME=/usr/local/cuda-<version>, remove the old build folder, then pip "
    "install --no-build-isolation -e . (or python setup.py build install in its ops folder, as its README "
    'says); check with python -c "from <package> import _C".',
    ('python -c "import torch; from torch.utils.cpp_extension import CUDA_HOME; print(CUDA_HOME)"',),
)


def _c_not_loaded(tail: str) -> Analysis | None:
    found = last_match(_C_NOT_LOADED, tail)
    if found is None:
        return None
    line = (
        "the package's compiled _C did not load: its import is wrapped in a try, so the missing build shows "
        "where an op calls it"
    )
    statement = failing_statement(tail, found.start())
    evidence = (line,) if statement is None else (line, f"the op is called at {statement}")
    return Analysis(evidence=evidence, fix=_C_NOT_LOADED_FIX)


# Packages pip installs with a compiled part: imported from their source folder, that part is missing.
_SHIPPED_COMPILED = ("torch", "torchvision", "torchaudio", "mmcv", "detectron2", "pytorch3d")


def _from_source_folder(tail: str, message: re.Match[str] | None) -> Analysis | None:
    """The package whose compiled part is missing (``message``, the entry's last match in ``tail``), imported
    from a folder outside site-packages: its source checkout, where the traceback shows its files there."""
    if message is None:
        return None
    found = source_folder(tail, message.start(), _SHIPPED_COMPILED)
    if found is None:
        return None
    package, folder = found
    line_end = tail.find("\n", message.start())
    said = tail[message.start() : line_end if line_end >= 0 else len(tail)]
    if package not in said and "_C" not in said:
        return None
    evidence = (
        f"{package} is imported from the folder {folder} (its files there, not in site-packages): a source "
        "checkout",
    )
    cause = (
        f"Python imported {package} from its source folder, not from the installed package: the current "
        "directory and PYTHONPATH come before site-packages, and a source checkout has the compiled part "
        "only where it was built in place. Where it was installed with pip install . (or setup.py install), "
        "the build went to site-packages and the folder shadows it."
    )
    fix = Fix(
        f"Run the program from another directory (cd out of {folder}), or take that folder off PYTHONPATH, "
        f"so that the installed {package} is imported; to use the checkout itself, build it in place there: "
        "pip install -e . (python setup.py develop)."
    )
    return Analysis(evidence=evidence, cause=cause, fix=fix)


def analyse_extension_not_built(text: str) -> Analysis:
    """The extension the message names, with the file of the traceback that imports it; a package imported
    from its source folder."""
    tail = text[-200_000:]
    recognised = _NOT_BUILT.last_match(tail)
    checkout = _from_source_folder(tail, recognised)
    if checkout is not None:
        return checkout
    not_loaded = _c_not_loaded(tail)
    if not_loaded is not None:
        return not_loaded
    found = last_match(_MISSING_MODULE, tail)
    name = last_match(_MISSING_NAME, tail)
    empty = None if recognised is None else _NO_ATTRIBUTE.match(tail, recognised.start())
    if empty is not None and all(m is None or m.start() < empty.start() for m in (found, name)):
        line = f"the module {empty[1]} imports but has no {empty[2]}: not a build of the extension"
        importer = last_frame_file(tail, empty.start(), 800)
        if importer is not None:
            line += f" (called from {importer}: its setup.py is in a folder near it)"
        return Analysis(evidence=(line,), cause=_NOT_THIS_BUILD_CAUSE)
    if name is not None and (found is None or name.start() > found.start()):
        module = f"{name[2]}.{name[1]}" if name[2] else name[1]
        found = name
    elif found is not None:
        module = found[1]
    else:
        return Analysis()
    line = f"the missing module {module} is a compiled extension, built from its sources"
    importer = last_frame_file(tail, found.start(), 800)
    if importer is not None:
        line += f" (imported by {importer}: its setup.py is in a folder near it)"
    return Analysis(evidence=(line,))


# A JIT-built extension: the plugin or extension the message names, and a build waiting on a stale lock.
_PLUGIN_NAMED = re.compile(
    r"Setting up PyTorch plugin [\"“”]?(\w{1,80})|Error building extension ['\"`](\w{1,80})"
    r"|Failed to build CUDA kernels for (\w{1,60})"
    r"|torch_extensions[/\\](?:[^\n]{0,200}[/\\])?(\w{1,80})\.so\b"
    r"|(?:Loading|Building) extension module (\w{1,80})"
)
# torch's JIT build: the cache folder it builds in, and the lock a waiting build names (nvdiffrec's warning)
_EXTENSIONS_ROOT = re.compile(r"Using ([^\n]{1,300}?) as PyTorch extensions root")
_LOCK_FILE = re.compile(
    r"Lock file exists in build directory: ['\"]?([^'\"\n]{1,300}?)['\"]?\s*$", re.MULTILINE
)

_BUILD_FAILED = re.compile(
    r"\.\.\. ?Failed|Error building extension|ninja: build stopped|returned non-zero exit"
    r"|Failed to build CUDA"
)


# A container in the text (a docker or podman command, a Dockerfile, an image, a pod), and the docker run
# commands it shows.
_CONTAINER_SAID = re.compile(
    r"\b(?:docker|dockerfile|podman|container|kubernetes|k8s|nvidia/cuda|apptainer|singularity)\b",
    re.IGNORECASE,
)
# (nvidia-docker run is its own runtime with the GPUs)
_DOCKER_RUN = re.compile(r"(?<![\w-])docker run\b[^\n`]{0,300}")
_GPUS_ASKED = re.compile(r"--gpus\b|--runtime[= ]nvidia\b|NVIDIA_VISIBLE_DEVICES|--device[= ]nvidia")
_NO_DRIVER_CAUSE = (
    "No NVIDIA driver is installed on this machine, or its folder is not on PATH: nvidia-smi comes with the "
    "driver (/usr/bin on Linux, C:\\Windows\\System32 on Windows), and without the driver torch sees no GPU."
)


def analyse_nvidia_smi_missing(text: str) -> Analysis:
    """A container started without GPUs where the text shows a container (with any docker run command that
    asks for none); else no driver on the machine."""
    tail = text[-200_000:]
    if _CONTAINER_SAID.search(tail) is None:
        return Analysis(cause=_NO_DRIVER_CAUSE, fix=_NO_DRIVER.fix)
    evidence = ["the text runs it in a container"]
    without = _docker_run_without_gpus(tail)
    if without is not None:
        evidence.append(without)
    return Analysis(evidence=tuple(evidence))


def _docker_run_without_gpus(text: str) -> str | None:
    """The first docker run command ``text`` shows that asks for no GPU, as evidence; None where none does."""
    for found in islice(_DOCKER_RUN.finditer(text), 8):
        if _GPUS_ASKED.search(found[0]) is None:
            return f"the docker run command shown has no --gpus: {found[0].strip()}"
    return None


# Signs of libtorch in a link: its namespaces in a symbol, its CMake variables, the Python package's folder.
_LIBTORCH_SAID = re.compile(
    r"\b(?:c10|at|torch|caffe2)::|\blibtorch\b|\bTorch_DIR\b|\bcmake_prefix_path\b|find_package\(Torch\b"
)
# The first function the linker could not find, with the std::string of the caller's ABI.
_ABI_REFERENCE = re.compile(
    r"undefined references? to [`'‘]"
    r"([^\n`'’]{1,300}?(std::__cxx11::basic_string|\bstd::string const&)[^\n`'’]{0,200})"
)


def analyse_libtorch_abi(text: str) -> Analysis:
    """Which ABI the caller was built with, from the first symbol it asks for; not a link without libtorch."""
    tail = text[-200_000:]
    if _LIBTORCH_SAID.search(tail) is None:
        return Analysis(declined=True)
    found = _ABI_REFERENCE.search(tail)
    if found is None:
        return Analysis()
    symbol = found[1] if len(found[1]) <= 120 else found[1][:117] + "..."
    if "__cxx11" in found[2]:
        line = (
            f"the program asks for {symbol}: it was compiled with the C++11 ABI (_GLIBCXX_USE_CXX11_ABI=1), "
            "and the library it links has the old one"
        )
    else:
        line = (
            f"the program asks for {symbol} with the old std::string: it was compiled with the pre-C++11 ABI "
            "(_GLIBCXX_USE_CXX11_ABI=0), and the library it links has the C++11 one"
        )
    return Analysis(evidence=(line,))


# dockerd's words: the device driver asked for GPUs (empty where docker run --gpus names none), or the runtime
# name it does not know.
_NO_GPU_RUNTIME = re.compile(
    r'could not select device driver "([^"\n]{0,40})" with capabilities: \[\[gpu\]\]'
    r"|unknown or invalid runtime name: (nvidia)\b",
    re.IGNORECASE,
)


def analyse_no_gpu_runtime(text: str) -> Analysis:
    """Which of dockerd's two refusals the text shows: no device driver for GPUs, or no runtime named
    nvidia."""
    found = last_match(_NO_GPU_RUNTIME, text[-200_000:])
    if found is None:
        return Analysis()
    if found[2]:
        return Analysis(
            evidence=(
                "the container asks for the runtime nvidia, which this Docker daemon has not registered (its "
                "/etc/docker/daemon.json, read when the daemon starts)",
            )
        )
    asked = f'the device driver "{found[1]}"' if found[1] else "GPUs (no device driver named)"
    return Analysis(evidence=(f"Docker was asked for {asked} and no driver of this daemon gives GPUs",))


# xformers' kernel guard: the architectures the kernel needs, and the one its code was compiled for: 750 as
# __CUDA_ARCH__ writes 7.5 (older xformers), 70 as 7.0 and 100 or 120 as 10.0 or 12.0 (later ones; no GPU
# of compute capability 1.x or 2.x runs xformers).
_XFORMERS_ARCH = re.compile(
    r"FATAL: (?:this function|kernel [`'\"]?(\w{1,120})[`'\"]?) is for (sm\d{2,4}(?:-sm\d{2,4})?), "
    r"but was built for sm(\d{2,4})"
)


def analyse_xformers_arch(text: str) -> Analysis:
    """The architectures the kernel needs and the compute capability xformers' code was built for."""
    return quoted(_XFORMERS_ARCH, text, _xformers_arch_line)


def _xformers_arch_line(found: re.Match[str]) -> str:
    digits = found[3]
    major = digits[:2] if len(digits) == 4 or (len(digits) == 3 and digits[0] in "12") else digits[0]
    built = f"{major}.{digits[len(major)]}"
    return f"the kernel needs {found[2]}; the installed xformers was built for compute capability {built}"


# The TH struct the compiler cannot see inside.
_TH_STRUCT = re.compile(
    r"incomplete (?:type\s{0,3}[‘'\"`]?(?:struct )?|definition of type [‘'\"`]struct )"
    r"(at_Tensor_Impl|TH\w{0,20}Tensor)\b"
)


def analyse_th_struct(text: str) -> Analysis:
    """The struct the message names."""
    return quoted(
        _TH_STRUCT,
        text,
        lambda found: f"the compiler cannot see inside {found[1]}: its fields are private since 0.4.1",
    )


# cpm_kernels' own lookup of a CUDA library, and a Windows path in the text (a traceback's or a prompt's).
_CPM_LIBRARY = re.compile(r"Library (cudart|cuda|cublasLt|cublas|nvrtc) is not initialized")
_WINDOWS_PATH = re.compile(r"(?<![\w])[A-Za-z]:\\[^\n\\]{1,200}\\")


def analyse_cpm_library(text: str) -> Analysis:
    """The library cpm_kernels did not find; Windows' PATH first where the text shows Windows paths."""
    tail = text[-200_000:]
    found = last_match(_CPM_LIBRARY, tail)
    if found is None:
        return Analysis()
    line = f"cpm_kernels found no {found[1]} library"
    if _WINDOWS_PATH.search(tail) is None:
        return Analysis(evidence=(line,))
    fix = _CPM_KERNELS.fix
    linux, _, windows = fix.text.partition("; on Windows ")
    head, _, linux_how = linux.partition(": on Linux ")
    windows_how, _, rest = windows.partition(". ")
    if not (linux_how and windows_how and rest):  # the entry's fix no longer has the two halves
        return Analysis(evidence=(line, "the text shows Windows paths"))
    text_fix = f"{head}: on Windows {windows_how}; on Linux {linux_how}. {rest}"
    return Analysis(evidence=(line, "the text shows Windows paths"), fix=Fix(text_fix, fix.commands))


def analyse_build_failed(text: str) -> Analysis:
    """The extension the text names, and a build that waits rather than fails: a stale lock."""
    tail = text[-200_000:]
    named = last_match(_PLUGIN_NAMED, tail)
    name = None if named is None else next(group for group in named.groups() if group)
    evidence = () if name is None else (f"the extension built on first use: {name}",)
    if last_match(_BUILD_FAILED, tail) is not None:
        return Analysis(evidence=evidence)
    cause = (
        "An earlier build of this extension was interrupted (Ctrl-C, a killed job) and left its lock file in "
        "the torch_extensions cache: every later run waits on that lock forever instead of building."
    )
    root = last_match(_EXTENSIONS_ROOT, tail)
    lock = last_match(_LOCK_FILE, tail)
    lines = list(evidence)
    if root is not None:
        lines.append(f"the extensions root: {root[1].strip()}")
    if lock is not None:
        path = lock[1].strip()
        lines.append(f"the lock file the build waits on: {path}")
        removed = f'del "{path}"' if _WINDOWS_PATH.match(path) else f"rm {shlex.quote(path)}"
    elif root is not None and name is not None:
        folder = root[1].strip()
        windows = _WINDOWS_PATH.match(folder) is not None
        removed = (
            f'rmdir /s /q "{folder}\\{name}"' if windows else f"rm -rf {shlex.quote(f'{folder}/{name}')}"
        )
    else:
        removed = "rm -rf ~/.cache/torch_extensions"
    fix = Fix(
        f"Remove the lock file, or the extension's cache folder, and run again: {removed} (the cache is "
        "~/.cache/torch_extensions by default; on Windows %LOCALAPPDATA%\\torch_extensions\\torch_extensions"
        "\\Cache; TORCH_EXTENSIONS_DIR where set). The first build takes a minute or two; let it finish.",
        (removed,),
    )
    return Analysis(evidence=tuple(lines), cause=cause, fix=fix)


# The op the message names: mmcv's "nms is not compiled with GPU support", maskrcnn-benchmark's "(nms at
# .../csrc/nms.h:22)" after the message.
_OP_WITHOUT_GPU = re.compile(
    r"\b(\w{1,60}) is not compiled with GPU support|not compiled with GPU support \((\w{1,60}) at ",
    re.IGNORECASE,
)


def analyse_built_without_cuda(text: str) -> Analysis:
    """The op the message names, built without its CUDA code."""
    return quoted(_OP_WITHOUT_GPU, text, lambda f: f"the op {f[1] or f[2]} was built without its CUDA code")


# CHECK_CUDA's message, and TORCH_CHECK's own where the check has none ("Expected u.is_cuda() to be true, but
# got false": mamba_ssm's selective scan, causal-conv1d)
_CUDA_TENSOR_EXPECTED = re.compile(
    r"\b(\w{1,40}) must be a CUDA tensor"
    r"|Expected (\w{1,40})(?:\.device\(\))?\.is_cuda\(\) to be true, but got false",
    re.IGNORECASE,
)


def analyse_cuda_tensor_expected(text: str) -> Analysis:
    """The tensor the op's check names."""
    return quoted(
        _CUDA_TENSOR_EXPECTED, text, lambda m: f"the op's check names {m[1] or m[2]}: it is on the CPU"
    )


_HOST_COMPILER_LIMIT = re.compile(
    r"gcc versions? (?:later|newer) than (\d{1,2})(?:\.\d{1,2})? (?:is|are) not supported"
    r"|Only the versions between (\d{4}) and (\d{4})",
    re.IGNORECASE,
)


_STD_FUNCTION = re.compile(r"parameter packs not expa")
_GCC_HEADERS = re.compile(r"c\+\+/(\d{1,2}(?:\.\d{1,2}){0,2})/bits/std_function\.h")
_STD_FUNCTION_CAUSE = (
    "The nvcc of this CUDA 11 release cannot parse the C++ headers of the gcc it compiles the host side with "
    "(gcc 11's std_function.h): the host compiler is newer than that nvcc handles, though no version check "
    "refused it."
)
_STD_FUNCTION_FIX = Fix(
    "Build with CUDA 11.8 or newer (a toolkit of torch's CUDA major release; the nvcc that runs: which nvcc, "
    "and CUDA_HOME); or with gcc 10 as nvcc's host compiler: CC=gcc-10 CXX=g++-10 python setup.py install "
    "(torch's extension builder passes CC to nvcc as -ccbin; with conda, conda install -c conda-forge "
    "gxx_linux-64=10). Switching /usr/bin/gcc alone may not reach nvcc.",
    ("nvcc --version", "gcc --version"),
)


def analyse_host_compiler(text: str) -> Analysis:
    """The newest compiler this CUDA accepts, as its message says, in the fix; gcc 11's std_function.h that
    CUDA 11's nvcc cannot parse."""
    tail = text[-200_000:]
    if last_match(_STD_FUNCTION, tail) is not None:
        line = "nvcc cannot parse the gcc headers' std_function.h (<functional>): a CUDA 11 nvcc before 11.8"
        headers = last_match(_GCC_HEADERS, tail)
        said = (f"the headers are those of gcc {headers[1]} ({headers[0]})",) if headers else ()
        return Analysis(evidence=(line, *said), cause=_STD_FUNCTION_CAUSE, fix=_STD_FUNCTION_FIX)
    found = last_match(_HOST_COMPILER_LIMIT, tail)
    if found is None:
        return Analysis()
    if found[1] is None:
        return Analysis(
            evidence=(f"this CUDA accepts Visual Studio {found[2]} to {found[3]} only ({found[0]})",)
        )
    newest = found[1]
    return Analysis(
        evidence=(f"this CUDA accepts gcc {newest} at the newest ({found[0]})",),
        fix=Fix(
            f"Build with gcc {newest} or older: install it and point the build at it, CC=gcc-{newest} "
            f"CXX=g++-{newest} python setup.py install (or sudo update-alternatives --install "
            f"/usr/bin/gcc gcc /usr/bin/gcc-{newest} 60 and the same for g++; with conda, conda install -c "
            f"conda-forge gxx_linux-64={newest}); or use a newer CUDA toolkit that supports this gcc, of "
            "torch's CUDA major release. nvcc's -allow-unsupported-compiler skips the check, at the risk of "
            "a broken build.",
            ("gcc --version", "nvcc --version"),
        ),
    )


def _undeclared(names: str) -> re.Pattern[str]:
    """An identifier the compiler does not know, in gcc's, nvcc's, MSVC's or clang's words."""
    return re.compile(
        rf"use of undeclared identifier [‘'\"“]({names})\b"
        rf"|\b({names})[’'\"”]?(?: was not declared|\s{{1,3}}is undefined"
        r"|:\s{0,3}(?:identifier not found|undeclared identifier))"
    )


_TORCH_CHECK_MISSING = _undeclared(r"TORCH_CHECK")
# glog's checks, which torch's headers defined until 1.13 (pytorch/pytorch#82032: TORCH_CHECK_EQ...)
_GLOG_CHECK_MISSING = _undeclared(r"CHECK_(?:EQ|NE|LE|LT|GE|GT)")


def analyse_torch_macro(text: str) -> Analysis:
    """TORCH_CHECK missing is the other way round: the torch is older than the code; CHECK_EQ and its kin are
    glog's names, which torch's headers stopped defining in 1.13."""
    tail = text[-200_000:]
    torch_version = versions_said(tail).get("torch")
    said = (f"the text gives torch {torch_version}",) if torch_version else ()
    glog = sorted({found[1] or found[2] for found in _GLOG_CHECK_MISSING.finditer(tail)})
    if glog:
        return Analysis(
            evidence=(f"the extension uses {and_list(glog)}: written for torch 1.12 or older", *said),
            cause=(
                "torch's headers defined glog-style checks (CHECK_EQ, CHECK_NE, CHECK_LE, ...) until 1.13, "
                "which renamed them TORCH_CHECK_EQ, TORCH_CHECK_NE and so on (pytorch/pytorch#82032): an "
                "extension that uses the old names was written for torch 1.12 or older and does not compile "
                "against a newer one."
            ),
            fix=Fix(
                "Rename them in the extension's sources and rebuild, find . \\( -name '*.cpp' -o -name "
                "'*.cu' -o -name '*.h' \\) | xargs sed -i -E "
                "'s/\\bCHECK_(EQ|NE|LE|LT|GE|GT)\\(/TORCH_CHECK_\\1(/g' "
                "(or define each one the sources use: #ifndef CHECK_EQ / #define CHECK_EQ(a, b) "
                "TORCH_CHECK_EQ(a, b) / #endif), or install the torch release the code was written for, "
                "before 1.13."
            ),
        )
    if last_match(_TORCH_CHECK_MISSING, tail) is None:
        return Analysis(
            evidence=("the extension uses AT_CHECK: it was written for torch 1.4 or older", *said)
        )
    return Analysis(
        evidence=("the extension uses TORCH_CHECK, which the installed torch lacks", *said),
        cause=(
            "The extension uses TORCH_CHECK, which PyTorch added in 1.2 (AT_CHECK before): the installed "
            "torch is older than the code it compiles."
        ),
        fix=Fix(
            "Install torch 1.2 or later, or the extension's revision written for the installed torch (or "
            "add '#ifndef TORCH_CHECK / #define TORCH_CHECK AT_CHECK / #endif' to its sources)."
        ),
    )


def analyse_no_xpu(text: str) -> Analysis:
    tail = text[-200_000:]
    nvidia = last_match(_NVIDIA_GPU, tail)
    named = " ".join(nvidia[0].split()) if nvidia is not None else None
    return Analysis(evidence=xpu_build.evidence(tail, _seen(text).version, named))


def _gpu_not_cuda(window: str) -> Analysis | None:
    """The GPU the writer names that is no CUDA device, and the build (or the CPU) that reaches it."""
    for search, which, cause, fix in _OTHER_GPU:
        found = search(window)
        if found is not None:
            return Analysis(
                evidence=(f"the text names {which} ({' '.join(found[0].split())}), which is no CUDA device",),
                cause=cause or _NOT_NVIDIA.cause,
                fix=Fix(fix) if fix else _NOT_NVIDIA.fix,
            )
    return None


def analyse_not_nvidia(text: str) -> Analysis:
    return _gpu_not_cuda(text[:_SEEN_WINDOW]) or Analysis()


def analyse_driver_too_old(text: str) -> Analysis:
    if _CT2_CUDA_FAILED.search(text[-200_000:]) is not None:
        return _ctranslate2_driver()
    match = _last(r"found version (\d+)", text)
    if match is None:
        return _driver_told(text)
    found = int(match[1])
    version = cuda_compat.decode_cuda_int(found)
    if version is None:
        return Analysis()
    supported = cuda_compat.format_cuda(version)
    evidence = (
        f"found version {found}: this driver supports CUDA up to {supported} (not a driver release number)",
    )
    if _CONTAINER.search(text[-200_000:]) is not None:
        return _container_driver(text, version, evidence)
    plan = _plan(text, [], found)
    if plan.runs_here:
        return Analysis(
            evidence=(*evidence, *plan.evidence[:4]),
            fix=Fix(f"Update the NVIDIA driver, or: {plan.text[0].lower()}{plan.text[1:]}", plan.commands),
        )
    return Analysis(evidence=(*evidence, *plan.evidence[:4]), fix=Fix(plan.text, plan.commands))


# CTranslate2 (the engine of faster-whisper and WhisperX) words a CUDA error "CUDA failed with error <the
# runtime's string>": the runtime is its own build's, not torch's (OpenNMT/CTranslate2#1842: 4.x needs CUDA
# 12, 3.x is CUDA 11's).
_CT2_CUDA_FAILED = re.compile(
    r"CUDA\s{1,3}failed\s{1,3}with\s{1,3}error\s{1,3}CUDA\s{1,3}driver\s{1,3}version"
)


def _ctranslate2_driver() -> Analysis:
    floor = cuda_compat.MINOR_COMPAT_FLOOR[12]
    return Analysis(
        evidence=(
            "'CUDA failed with error' is CTranslate2's wording (the engine of faster-whisper and WhisperX): "
            "the CUDA runtime that needs a newer driver is its build's, not torch's",
        ),
        cause=(
            "CTranslate2 runs on the CUDA runtime of its own build, and CTranslate2 4.0 and newer are built "
            "against CUDA 12 (3.x against CUDA 11): the NVIDIA driver is older than that CUDA needs, or an "
            "application or container image brings a CUDA runtime newer than the driver supports."
        ),
        fix=Fix(
            f"Update the NVIDIA driver to one that runs CUDA 12 ({floor['linux']} or later on Linux, "
            f"{floor['windows']} or later on Windows), or match the CUDA runtime to the driver: the "
            "ctranslate2 release built for CUDA 11 (pip install --force-reinstall ctranslate2==3.24.0), an "
            "application's release built for the older CUDA, a container's base image of a CUDA release the "
            "driver supports.",
            ("nvidia-smi",),
        ),
    )


# A driver release as a writer gives it: "driver (418.87)", "driver version 470.182.03", "Driver Version:
# 470.86".
_DRIVER_TOLD = re.compile(
    r"\bdriver\b(?:\s{1,3}version)?[\s:(]{0,4}(?:is\s{1,3})?(\d{3}\.\d{2,3}(?:\.\d{2,3})?)\b", re.IGNORECASE
)
_CUDA_TOLD = re.compile(
    r"\bCUDA(?:\s{0,3}toolkit)?\s{0,3}(?:>=?|version)?\s{0,3}(1\d)\.(\d)\b", re.IGNORECASE
)


_NVCC_RELEASE = re.compile(r"\bCuda compilation tools, release (1\d)\.(\d)\b", re.IGNORECASE)


def analyse_unsupported_ptx(text: str) -> Analysis:
    return _driver_told(text)


def analyse_invalid_device_function(text: str) -> Analysis:
    """The GPU the text names, and the torch and CUDA releases it gives: the extension's CUDA is torch's."""
    evidence: list[str] = []
    named = _capability_named(text)
    if named is not None:
        (major, minor), said = named
        evidence.append(f"{said}: compute capability {major}.{minor}")
    else:
        several = _gpus_of_several_capabilities(text)
        if several is not None:
            evidence.append(several)
    tail = text[-200_000:]
    torch_version = versions_said(tail).get("torch")
    cuda = last_match(_CUDA_NAMED, tail)
    releases = [f"PyTorch {torch_version}"] if torch_version else []
    releases += [f"CUDA {cuda[1]}.{cuda[2]}"] if cuda is not None else []
    if releases:
        said = " and ".join(releases)
        evidence.append(f"the text gives {said}: an extension is built with the CUDA torch was built for")
    extension = _extension_kernel(tail)
    if extension is None:
        return Analysis(evidence=tuple(evidence))
    line, kernel = extension
    base = _INVALID_DEVICE_FUNCTION.fix
    lead = (
        f"Rebuild the extension that {kernel} belongs to on this machine, for this GPU (its setup.py, or pip "
        "install --no-build-isolation . in its folder, with the settings below). "
    )
    return Analysis(evidence=(*evidence, line), fix=Fix(lead + base.text, base.commands))


# A CUDA source file the text names ("at L:228 in pointnet2_ops/_ext-src/src/sampling_gpu.cu", "file=.../cuda/
# emd_kernel.cu line=190"): torch's own are under aten/, THC or c10, and torchvision's and xformers' come in
# their prebuilt wheels; any other is an extension's kernel.
_KERNEL_SOURCE = re.compile(r"[^\s\"'`:=()]{1,300}\.cu\b")
_TORCH_KERNEL = re.compile(
    r"(?:^|[/\\])(?:THC\w{0,10}|aten|ATen|c10|caffe2|torchvision|xformers)(?:[/\\]|$)", re.IGNORECASE
)


def _extension_kernel(text: str) -> tuple[str, str] | None:
    """The extension whose kernel the text shows, by its CUDA source file where it is not torch's: the
    evidence, and the file as the fix names it."""
    source = last_match(_KERNEL_SOURCE, text)
    if source is not None and _TORCH_KERNEL.search(source[0]) is None:
        parts = [part for part in re.split(r"[/\\]", source[0]) if part and part != ".."]
        named = "/".join(parts[-4:])
        return f"the kernel's source is {named}, an extension's own, not torch's", named
    return None


def _driver_told(text: str) -> Analysis:
    """A driver too old for a CUDA release, told in words: the driver release and the CUDA release the text
    names, the newest CUDA that driver supports and the driver that CUDA release needs."""
    tail = text[-200_000:]
    driver = last_match(_DRIVER_TOLD, tail)
    os_key = _seen(text).driver_os
    named = [
        (int(m[1]), int(m[2]))
        for pattern in (_CUDA_TOLD, _NVCC_RELEASE)
        for _, m in zip(range(20), pattern.finditer(tail), strict=False)
    ]
    evidence: list[str] = []
    supported = None
    told = driver[1] if driver is not None else ""
    if driver is not None:
        release = cuda_compat.parse_version(told)
        supported = cuda_compat._infer_driver_cuda(release, os_key) if release else None
        if supported is not None:
            up_to = cuda_compat.format_cuda(supported)
            evidence.append(f"the text names driver {told}: it supports CUDA up to {up_to}")
    wanted = max(named, default=None)
    need = cuda_compat.MIN_DRIVER.get(wanted, {}).get(os_key) if wanted else None
    if wanted is not None:
        line = f"the text names CUDA {cuda_compat.format_cuda(wanted)}"
        evidence.append(line + (f", which needs driver {need} or later ({os_key})" if need else ""))
    if supported is None:
        return Analysis(evidence=tuple(evidence))
    older = cuda_compat.format_cuda(supported)
    update = f"update the NVIDIA driver ({need} or later)" if need else "update the NVIDIA driver"
    return Analysis(
        evidence=tuple(evidence),
        fix=Fix(
            f"Install the torch build (or conda cudatoolkit) for CUDA {older} or older, which driver "
            f"{told} runs (conda: cudatoolkit={older}; pip: the matching cuXYZ index), or {update}.",
        ),
    )


# torch from a container image or its own build, not a wheel pip chose: NGC's images build it under
# /opt/pytorch/pytorch; the writer names a container, an image or docker ("容器" in Chinese).
_CONTAINER = re.compile(r"/opt/pytorch/pytorch|nvcr\.io|\bdocker\b|\bcontainers?\b|容器", re.IGNORECASE)
_CUDA_NAMED = re.compile(r"\bCUDA(?:[ _-]?version)?[ :]{0,3}(1\d)\.(\d)\b", re.IGNORECASE)


def _container_driver(text: str, supported: tuple[int, int], evidence: tuple[str, ...]) -> Analysis:
    """The driver a container's torch needs: its CUDA is fixed by the image, so the answer is the minimum
    driver of that CUDA (named where the text states it, else per CUDA line), or an image built for an older
    CUDA."""
    os_key = _seen(text).driver_os
    said = cuda_compat.format_cuda(supported)
    named = [
        (int(m[1]), int(m[2]))
        for m in _CUDA_NAMED.finditer(text[-200_000:])
        if (int(m[1]), int(m[2])) > supported
    ]
    lines = [
        *evidence,
        "torch comes with a container image (or its own build): the image fixes its CUDA, pip's builds do "
        "not apply",
    ]
    if named:
        cuda = named[-1]
        minimum = cuda_compat.MIN_DRIVER.get(cuda, {}).get(os_key)
        floor = cuda_compat.MINOR_COMPAT_FLOOR.get(cuda[0], {}).get(os_key)
        needs = (
            f"driver {minimum} or later"
            if minimum
            else cuda_compat.unknown_minimum(cuda_compat.format_cuda(cuda))
        )
        lines.append(f"the text names CUDA {cuda_compat.format_cuda(cuda)}: it needs {needs}")
        text_fix = (
            f"Update the NVIDIA driver to {minimum or 'the minimum'} or later for the image's CUDA "
            f"{cuda_compat.format_cuda(cuda)}"
            + (
                f" (any {cuda[0]}.x image runs from {floor} on, through minor-version compatibility)"
                if floor
                else ""
            )
            + f", or use an image built for CUDA {said} or older."
        )
        return Analysis(evidence=tuple(lines), fix=Fix(text_fix, ("nvidia-smi",)))
    # a driver of a CUDA line with minor-version compatibility already runs every image of that line
    same_line = supported[0] not in cuda_compat.MINOR_COMPAT_FLOOR
    majors = sorted(
        {
            major
            for major, _ in cuda_compat.MIN_DRIVER
            if major > supported[0] or (same_line and major == supported[0])
        }
    )
    parts = []
    newest = majors[-2:]  # each release of the two newest CUDA lines; the older lines by their floor alone
    for major in majors:
        rows = sorted(c for c in cuda_compat.MIN_DRIVER if c[0] == major and c > supported)
        if not rows:
            continue
        floor = cuda_compat.MINOR_COMPAT_FLOOR.get(major, {}).get(os_key)
        listed = ", ".join(f"{c[0]}.{c[1]}: {cuda_compat.MIN_DRIVER[c].get(os_key)}" for c in rows)
        if major not in newest and floor:
            parts.append(f"CUDA {major}.x from {floor}")
        else:
            parts.append(f"CUDA {major}.x from {floor} ({listed})" if floor else f"CUDA {major}.x ({listed})")
    return Analysis(
        evidence=tuple(lines),
        fix=Fix(
            "Update the NVIDIA driver to the minimum of the image's CUDA (its tag or release notes name it; "
            "NVIDIA's minimum drivers on this OS: " + "; ".join(parts) + "), or use an image built for "
            f"CUDA {said} or older (a torch built for it).",
            ("nvidia-smi",),
        ),
    )


def analyse_unpublished_torch(text: str) -> Analysis:
    os_key, tail = _seen(text).os_key, text[-200_000:]
    if os_key == "linux-x86_64" and _WINDOWS.search(tail) and not _LINUX.search(tail):
        os_key = "windows-x86_64"  # the writer's "Windows 11" beside pip's lines
    return unpublished.analyse_unpublished(text, os_key)


# Signs that the failing kernels are a CUDA extension built here, not torch's own: its module or build
# ("ext_module.", "mmcv/_ext", "python setup.py install", "pip install -e .", MMCV_WITH_OPS, a compile
# script, TORCH_CUDA_ARCH_LIST), or the writer's words ("custom CUDA kernel", "compile mmcv through the
# source code", "Built with pytorch 1.7").
_EXTENSION_BUILT = re.compile(
    r"\bext_module\.|\b\w{1,40}_ext\b|\bsetup\.py (?:install|develop|build)"
    r"|\bpip install (?:-e |--editable )?\.(?!\w)"
    r"|\bMMCV_WITH_OPS\b|\bTORCH_CUDA_ARCH_LIST\b|\bcompile\.sh\b|\bcpp_extension\b"
    r"|\bcustom (?:CUDA )?(?:kernels?|ops?|extensions?|operators?)\b"
    r"|\b(?:built|build|compiled?|compiling) (?:\w{1,20} ){0,3}?(?:from|through) (?:the )?source\b"
    r"|\bbuilt (?:it )?with (?:pytorch|torch)\b",
    re.IGNORECASE,
)
# An extension's own check macro reports a failed launch in words torch never prints: "CUDA kernel failed
# : no kernel image ..." (the PointNet++ family's CUDA_CHECK_ERRORS) or "cudaCheckError() failed", often
# with the extension's source file ("at L:231 in .../pointnet2/_ext_src/src/sampling_gpu.cu"); a .cu file
# of torch's own tree (aten/, c10/, THC) is no such sign.
_EXTENSION_REPORT = re.compile(r"\bCUDA kernel failed\b|\bcudaCheckError\(\) failed", re.IGNORECASE)
_CUDA_SOURCE = re.compile(r"\w\.cuh?(?![\w.])")
_TORCH_SOURCE = re.compile(
    r"aten[/\\]|c10[/\\]|\bTHCU?N?N?[/\\]|caffe2[/\\]|torch[/\\]csrc[/\\]", re.IGNORECASE
)
_CUDA_SOURCES_TRIED = 40  # a bound on the source files looked at, however long the text
_SOURCE_PATH_CHARS = 300  # a path is short: the reader looks back no further for its start


def _extension_built(text: str) -> bool:
    """Whether the text shows a CUDA extension built here: its module or build, the writer's words, its check
    macro's report, or a CUDA source file that is not torch's own."""
    if _EXTENSION_BUILT.search(text) or _EXTENSION_REPORT.search(text):
        return True
    for n, source in enumerate(_CUDA_SOURCE.finditer(text)):
        if n >= _CUDA_SOURCES_TRIED:
            break
        before = text[max(0, source.start() - _SOURCE_PATH_CHARS) : source.end()]
        path = before.split()[-1]
        if _TORCH_SOURCE.search(path) is None:
            return True
    return False


_EXTENSION_CAUSE = (
    "The kernel that failed is most likely a CUDA extension's (a package's own compiled kernels) built here "
    "without this GPU's architecture: an extension carries only the architectures it was compiled for "
    "(TORCH_CUDA_ARCH_LIST, or by default those of the GPUs visible when it was built), so one built on "
    "another GPU, or with a list that leaves this one out, has no kernel for it, whatever torch's own wheel "
    "has."
)
_CAPABILITY_SAID = re.compile(r"compute capability (\d{1,2}\.\d)\b")


# A torch that comes with an application's Docker image or container ("Image: ghcr.io/...", "this container",
# "your docker").
_BUNDLED = re.compile(r"\bdocker(?:file|hub)?\b|\bcontainers?\b|\b(?:ghcr|docker)\.io/", re.IGNORECASE)
_BUNDLED_FIX = (
    "The torch that fails comes with the application (its Docker image or container), so installing torch "
    "in another Python does not change it: update the application to its latest release, or use its image "
    "built for this GPU (for an RTX 50xx, one with a newer PyTorch built for CUDA 12.8 or later), or rebuild "
    "the image with a newer PyTorch in its Dockerfile."
)


def _an_old_gpu_dropped(capabilities: list[str]) -> bool:
    """Whether the one capability (``"6.1"``) the explanation names is an old GPU's that pip's default torch
    builds dropped."""
    if len(capabilities) != 1:
        return False
    major, _, minor = capabilities[0].partition(".")
    return builds.default_dropped((int(major), int(minor))) is not None


_BUNDLED_OLD_GPU_FIX = (
    "The torch that fails comes with the application (its Docker image or container), so installing torch "
    "in another Python does not change it: pin a torch that still has this old GPU's kernels where the image "
    "installs torch (its Dockerfile or requirements, after anything that pulls a newer torch), then rebuild "
    "the image; or use an older release of the application or its image."
)


# ROCm's words for an AMD GPU whose gfx target it was not built for, and the target where the text names it
# (rocBLAS's "for GPU arch : gfx1031", rocminfo's "amdgcn-amd-amdhsa--gfx1032", a gfx id in words).
_ROCM_NO_KERNEL = re.compile(r"hipErrorNoBinaryForGpu|TensileLibrary\w{0,30}\.dat", re.IGNORECASE)
_GFX = re.compile(r"\b(?:GPU arch\s?:\s?|amdhsa--)?(gfx\d[0-9a-f]{2,3})\b", re.IGNORECASE)
# The HIP SDK on Windows (ZLUDA runs on it): its paths and names.
_HIP_SDK_WINDOWS = re.compile(r"[A-Z]:\\[^\n]{0,80}?ROCm|\bHIP SDK\b|\bZLUDA\b|rocblas\.dll", re.IGNORECASE)
_ROCM_CAUSE = (
    "ROCm has no kernels for this AMD GPU's architecture (its gfx target): ROCm, its rocBLAS and the torch "
    "built for it are compiled for a list of gfx targets, and consumer cards outside it (the RX 6600 and "
    "6700 are gfx1032 and gfx1031, laptop APUs gfx1035 and gfx1103, a card newer than the release) get "
    "none."
)
_ROCM_FIX_LINUX = (
    "On Linux, let ROCm run the card as the supported target of its family, set before the program starts: "
    "HSA_OVERRIDE_GFX_VERSION=10.3.0 for RDNA2 and RDNA1 cards (gfx103x, gfx101x), 11.0.0 for RDNA3 "
    "(gfx110x); or install a ROCm release (and its torch build) that lists the card. Where the gfx named is "
    "a processor's integrated GPU picked before the card (gfx1036), hide it with HIP_VISIBLE_DEVICES."
)
_ROCM_FIX_WINDOWS = (
    "On Windows the HIP SDK (which ZLUDA runs on) has no rocBLAS kernels for this card: replace its "
    "rocblas.dll and rocblas\\library folder (in the SDK's bin folder) with a build for the card's gfx "
    "target made for the same HIP SDK version (the community ROCmLibs releases), or wait for a HIP SDK that "
    "supports it. "
)


def _rocm_no_kernel(text: str) -> Analysis | None:
    """An AMD GPU that ROCm was not built for, where the text shows ROCm's words for it."""
    tail = text[-200_000:]
    if last_match(_ROCM_NO_KERNEL, tail) is None:
        return None
    gfx = last_match(_GFX, tail)
    evidence = () if gfx is None else (f"the GPU's architecture: {gfx[1].lower()}",)
    windows = last_match(_HIP_SDK_WINDOWS, tail) is not None
    fix = (_ROCM_FIX_WINDOWS if windows else "") + _ROCM_FIX_LINUX
    return Analysis(evidence=evidence, cause=_ROCM_CAUSE, fix=Fix(fix, ("rocminfo | grep gfx",)))


def analyse_no_kernel(text: str) -> Analysis:
    """:func:`_analyse_no_kernel`, with a GPU name several models share said with each capability, and the
    rebuild of a CUDA extension with the GPU's capability in TORCH_CUDA_ARCH_LIST: leading where the text
    shows an extension built here, else after the fix for torch's own build. An AMD GPU that ROCm was not
    built for gets ROCm's own fixes."""
    rocm = _rocm_no_kernel(text)
    if rocm is not None:
        return rocm
    analysis = _analyse_no_kernel(text)
    if analysis.fix == _HARMLESS_FIX:
        return analysis
    if not analysis.evidence:
        shared = _shared_gpu_name(text) or _gpus_of_several_capabilities(text)
        if shared is not None:
            analysis = replace(analysis, evidence=(shared,))
    capabilities = list(
        dict.fromkeys(m[1] for line in analysis.evidence for m in _CAPABILITY_SAID.finditer(line))
    )
    arch = capabilities[0] if len(capabilities) == 1 else "<the GPU's capability, e.g. 8.6>"
    rebuild = (
        "with this GPU's capability in TORCH_CUDA_ARCH_LIST: remove its build folder, then "
        f'TORCH_CUDA_ARCH_LIST="{arch}" python setup.py install (or pip install --no-build-isolation '
        "--force-reinstall ., or the package's compile script, the same way), several GPUs' capabilities "
        "separated by ';' (\"7.0;8.0\")."
    )
    base = analysis.fix or _ENTRY_FIX
    tail = text[-200_000:]
    companion = last_match(_TORCHVISION_KERNEL, tail)
    if companion is not None and _TORCHVISION_BUILT.search(tail) is None:
        line = f"the kernel that failed is torchvision's own ({companion[0]}), from its prebuilt wheel"
        return _prebuilt_kernels(analysis, line, _TORCHVISION_KERNEL_CAUSE, _TORCHVISION_KERNEL_FIX, base)
    faiss = last_match(_FAISS_ASSERTION, tail)
    if faiss is not None:
        line = "the kernel that failed is faiss's GPU code (its assertion on a CUDA error)"
        return _prebuilt_kernels(analysis, line, _FAISS_KERNEL_CAUSE, f"{_FAISS_KERNEL_FIX} Otherwise:", base)
    runs = _xformers_run(tail)
    if runs is not None:
        line = f"the text runs xformers ({runs}), whose wheels carry their own kernels"
        return _prebuilt_kernels(
            analysis, line, _XFORMERS_KERNEL_CAUSE, f"{_XFORMERS_KERNEL_FIX} Otherwise:", base
        )
    built_here = _extension_built(tail)
    bundle = last_match(_BUNDLED, tail)
    if bundle is not None and not built_here:
        line = f"the text runs a torch bundled in an application's image ({' '.join(bundle[0].split())})"
        lead = _BUNDLED_OLD_GPU_FIX if _an_old_gpu_dropped(capabilities) else _BUNDLED_FIX
        return replace(
            analysis,
            evidence=(*analysis.evidence, line),
            fix=Fix(f"{lead} Inside the bundle, the same holds: {base.text}", base.commands),
        )
    if not built_here:
        extra = (
            " If torch's own operations run on this GPU and the error comes from a package's CUDA extension "
            f"built from source, rebuild that extension {rebuild}"
        )
        return replace(analysis, fix=Fix(base.text + extra, base.commands))
    torch_too = (
        " If torch's own operations fail too (python -c \"import torch; print(torch.ones(1, device='cuda') + "
        f'1)"), {base.text[:1].lower()}{base.text[1:]}'
    )
    return replace(
        analysis,
        cause=_EXTENSION_CAUSE,
        fix=Fix(f"Rebuild the CUDA extension {rebuild}{torch_too}", base.commands),
    )


# torchvision's own compiled kernels, as a message or traceback names them (a wheel's build path
# /tmp/pip-req-build-*/torchvision/csrc/cuda/nms_cuda.cu, its _C.so, torchvision.ops); unless the text builds
# torchvision itself, they came prebuilt with torchvision and are not an extension built here.
_TORCHVISION_KERNEL = re.compile(r"torchvision[/\\]csrc[/\\][\w/\\.]{0,80}|torchvision[/\\]_C\.so\b")
_TORCHVISION_BUILT = re.compile(
    r"(?:setup\.py (?:install|develop)|pip install (?:-e )?\.)[^\n]{0,80}torchvision|torchvision[^\n]{0,40}"
    r"(?:from|through) (?:the )?source",
    re.IGNORECASE,
)
# xformers in use, most telling first: its command-line flag, its compiled modules in a trace, its attention
# op, its name (not in a flag that turns it off: --disable-xformers, --no-xformers).
_XFORMERS_SIGNS = (
    re.compile(r"(?<![\w-])--(?:force-enable-)?xformers\b", re.IGNORECASE),
    re.compile(r"\b_C_flashattention\b|\bxformers[/\\.](?:_C|ops)\b", re.IGNORECASE),
    re.compile(r"\bmemory_efficient_attention\b|(?<!--disable-)(?<!--no-)\bxformers\b", re.IGNORECASE),
)
# faiss's GPU code checks each CUDA call with FAISS_ASSERT (faiss/gpu/utils/DeviceUtils.h CUDA_VERIFY):
# "Faiss assertion 'err__ == cudaSuccess' failed", then the CUDA error. faiss-gpu-cu12 1.14.1 has no sm_120
# kernels (a pipeline's notes, stored file 61920153312).
_FAISS_ASSERTION = re.compile(r"Faiss assertion 'err__ == cudaSuccess' failed")
_FAISS_KERNEL_CAUSE = (
    "The kernel that failed is faiss's, not torch's: the installed faiss-gpu has no kernels for this GPU's "
    "compute capability (a wheel or conda package compiled for other architectures, such as "
    "faiss-gpu-cu12 1.14.1 without sm_120), so faiss's GPU index fails here while torch runs."
)
_FAISS_KERNEL_FIX = (
    "Install a faiss-gpu build that carries this GPU's architecture (another faiss-gpu release or conda "
    "package, or faiss built from source with CMAKE_CUDA_ARCHITECTURES set to the GPU's capability), or "
    "run faiss on the CPU (faiss-cpu, or the program's option to search on the CPU)."
)
_XFORMERS_KERNEL_CAUSE = (
    "The kernel that failed is most likely xformers' own (its memory-efficient attention), not torch's: "
    "xformers' prebuilt wheels carry kernels for a narrower list of GPU architectures than torch and are "
    "built against one torch release, so a wheel for another torch or CUDA, or one without this GPU's "
    "architecture (an older GPU, or one newer than the wheel), fails here while torch itself runs."
)
_XFORMERS_KERNEL_FIX = (
    "Run once without xformers (drop --xformers, or turn off the program's 'use xformers' option; torch's "
    "own scaled_dot_product_attention does the same work, --opt-sdp-attention in the web UIs): if it then "
    "runs, install the xformers wheel built for the installed torch, from the same index (pip install -U "
    "xformers --index-url https://download.pytorch.org/whl/cu1XX), or build xformers for this GPU "
    '(TORCH_CUDA_ARCH_LIST="<the GPU\'s capability>" pip install -v -U '
    "git+https://github.com/facebookresearch/xformers)."
)


def _prebuilt_kernels(analysis: Analysis, line: str, cause: str, lead: str, base: Fix) -> Analysis:
    """``analysis`` told that the kernel is a prebuilt package's own (``line``, ``cause``), its fix led by
    ``lead`` before ``base``."""
    return replace(
        analysis,
        evidence=(*analysis.evidence, line),
        cause=cause,
        fix=Fix(f"{lead} {base.text}", base.commands),
    )


def _xformers_run(text: str) -> str | None:
    """What shows xformers running in ``text``, or None."""
    for sign in _XFORMERS_SIGNS:
        found = last_match(sign, text)
        if found is not None:
            return found[0]
    return None


_TORCHVISION_KERNEL_CAUSE = (
    "The kernel that failed is torchvision's own (its prebuilt ops, such as nms), not the program's: the "
    "installed torchvision does not pair with the installed torch and GPU, a torchvision built for another "
    "torch release or CUDA (installed apart from torch, from another index or by a requirements pin), or one "
    "too old to carry this GPU's architecture."
)
_TORCHVISION_KERNEL_FIX = (
    "Install the torchvision release that pairs with the installed torch, from the same index, in one "
    "command with torch (pip install --force-reinstall torch torchvision torchaudio --index-url "
    "https://download.pytorch.org/whl/cu1XX, a CUDA the driver supports and the GPU needs)."
)


_ENTRY_FIX = Fix(
    "Upgrade PyTorch to a build whose arch list covers this GPU: a GPU newer than the installed build needs "
    "a newer torch (pip install --upgrade torch torchvision torchaudio from the index of a CUDA the driver "
    "supports), an old GPU dropped from the list an older torch (torchdoctor check --only torch.build names "
    "the build and prints the pip command)."
)
_SHARED_NAME = re.compile(
    r"\b(?:(?:GeForce )?GTX |NVIDIA )?TITAN(?: (?:Xp|X|V|RTX|Z|Black))?\b", re.IGNORECASE
)


def _shared_gpu_name(text: str) -> str | None:
    """A GPU name the text gives that several models of NVIDIA's table end with ('TITAN X': the GeForce GTX
    TITAN X and the NVIDIA TITAN X), with each one's capability."""
    found = last_match(_SHARED_NAME, text[-200_000:])
    if found is None:
        return None
    said = " ".join(found[0].split())
    key = said.lower()
    models = sorted(
        {
            (cc, name)
            for name, cc in ((n, collect_env.compute_capability(n)) for n in _TABLE_NAMES.values())
            if cc is not None and (name.lower() == key or name.lower().endswith(" " + key))
        }
    )
    if not models:
        return None
    each = " or ".join(f"compute capability {major}.{minor} ({name})" for (major, minor), name in models)
    return f"the text names a {said}: {each}"


_WARNING_BEFORE = 600  # torch 2.7 on print the capability range in a warning of its own before this one


def _analyse_no_kernel(text: str) -> Analysis:
    current = _last(r"CUDA capability sm_(\d+) is not compatible", text)
    if current is not None:
        sm = int(current[1])
        around = text[max(0, current.start() - _WARNING_BEFORE) : current.end() + 1200]
        analysis = _no_kernel_for(sm, text, around)
        return _with_warned_gpu(analysis, text, current.start(), f"CUDA capability sm_{sm}")
    old = _last(r"which is of (?:cuda capability|compute capability \(CC\)) (\d+)\.(\d+)", text)
    if old is not None:
        analysis = _no_kernel_for(int(old[1]) * 10 + int(old[2]), text, text[old.end() : old.end() + 1200])
        return _with_warned_gpu(analysis, text, old.start(), old[0].removeprefix("which is of "))
    named = _capability_named(text)
    if named is not None:
        cc, said = named
        return _no_kernel_for(cc[0] * 10 + cc[1], text, "", said)
    series = last_match(_BLACKWELL_SERIES, text[-200_000:])
    if series is not None:
        return _no_kernel_for(120, text, "", f"the text names the {' '.join(series[0].split())}")
    return Analysis()


# The RTX 50 series named as a series ("RTX 50XX Series", "rtx5xxx cards", "RTX 50 series"): Blackwell GPUs,
# all sm_120.
_BLACKWELL_SERIES = re.compile(
    r"\bRTX[ -]?50xx(?: series)?\b|\brtx ?5xxx\b|\bRTX[ -]?50[ -]series\b", re.IGNORECASE
)


# The GPU torch's warning names before its capability: "Found GPU0 GeForce GTX 660 Ti which is of cuda
# capability 3.0." (torch 0.3 to 1.x) or "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not
# compatible" (torch 1.7 on), on the warning's own line; the name is said back with the capability as written.
_WARNED_OLD = re.compile(r"Found GPU(\d{1,2}) (\S[^\n]{0,80}?) ?$")
_WARNED_NEW = re.compile(r"\b((?:NVIDIA|GeForce|Tesla|Quadro|TITAN)\b[\w ()-]{2,60}?) with $")
_WARNED_NAME_CHARS = 100  # a GPU's name is short: the reader looks back no further


def _with_warned_gpu(analysis: Analysis, text: str, at: int, capability: str) -> Analysis:
    """``analysis`` with the GPU that torch's warning names just before ``at`` (where its capability is
    said) among the evidence, as the warning names it, with ``capability`` as written; unchanged where the
    line names none."""
    line_start = text.rfind("\n", max(0, at - _WARNED_NAME_CHARS), at) + 1
    head = text[max(line_start, at - _WARNED_NAME_CHARS) : at]
    found = _WARNED_OLD.search(head)
    if found is not None:
        line = f"torch's warning names GPU{found[1]}: {found[2]}, of {capability}"
    elif (named := _WARNED_NEW.search(head)) is not None:
        line = f"torch's warning names the GPU: {named[1]}, of {capability}"
    else:
        return analysis
    return replace(analysis, evidence=(*analysis.evidence[:1], line, *analysis.evidence[1:]))


# Where torch's message gives no capability, the writer often does: "compute capability of 3.5", or the
# GPU's model ("RTX 5090", "Tesla K40m", "GTX 1080 Ti"), looked up in collect_env's table of NVIDIA models. A
# GeForce model is known by its number alone, which writers often give without its brand or with the wrong
# one ("I am on a 3080", "3090显卡", "1080ti error", "GTX 2080" for an RTX 2080): the number is looked up
# under each of GeForce's brands, and a bare number only with a GPU's suffix (Ti, SUPER), a GPU word after
# it, or a verb of having or using before it ("on a 3080"), never one inside a size ("1920x1080", "(1920,
# 1200)") or an amount ("a 1024 GiB"). Word boundaries are ASCII's: a writer of Chinese glues the name to
# the characters around it ("换了A40遇到", "一张A40卡"). A workstation A-number ("A6000") is looked up as the
# RTX one too.
_CC_SAID = re.compile(
    r"compute capabilit(?:y|ies)\s{0,3}(?:of|is|=|:|up to)?\s{0,3}(\d{1,2})\.(\d)\b", re.IGNORECASE
)
_GPU_SAID = re.compile(
    r"\b(RTX|GTX|GT|MX|Tesla|Quadro|TITAN)[ -]{0,2}([A-Z]{0,3}\s?\d{2,4}[A-Z]{0,2}(?: Ti\b| SUPER\b)?)"
    r"|\b([ABHKLMPV]\d{2,3}[A-Za-z]{0,2}|A\d{4})\b"
    r"|(?<![A-Za-z0-9_.,(/×-])([1-9]\d{2,3}) ?(Ti|SUPER)(?![A-Za-z])"
    r"|(?<![A-Za-z0-9_.,(/×-])([1-9]\d{2,3})(?= ?(?:GPUs?\b|cards?\b|graphics\b|显卡))"
    r"|\b(?:on|with|have|has|got|use|using|bought) (?:a|an|my|the|one|two) ([1-9]\d{2,3})\b"
    r"(?![.,]?\d|x|×| ?[KMG]i?B)"
    # the T4 and the L4, one digit after the letter: in capitals only, a lone word
    r"|(?-i:(?<![A-Za-z0-9_.-])([TL]4)(?![A-Za-z0-9_]))",
    re.IGNORECASE | re.ASCII,
)
_GEFORCE_BRANDS = ("rtx", "gtx", "gt", "mx")
_TABLE_NAMES = {n.lower(): n for names in collect_env.GPU_COMPUTE_CAPABILITY.values() for n in names}
_GPU_NAMES_TRIED = 40  # a bound on the names looked up, however long the text


def _names_of(match: re.Match[str]) -> list[str]:
    """The table names a GPU model said in the text may have: a GeForce number under its brand as said
    first, then under each other GeForce brand."""
    if match[1]:
        brand = match[1].lower()
        # "4090Ti", "5090D" as nvidia-smi names them: "4090 Ti", "5090 D"
        model = re.sub(r"(?<=\d)(ti|super|d)$", r" \1", " ".join(match[2].lower().split()))
        if brand not in _GEFORCE_BRANDS:
            return [f"{brand} {model}"]
        others = [b for b in _GEFORCE_BRANDS if b != brand]
        return [f"geforce {brand} {model}", f"{brand} {model}", *(f"geforce {b} {model}" for b in others)]
    if match[3] or match[8]:
        model = (match[3] or match[8]).lower()
        return [f"tesla {model}", model, f"rtx {model}"]
    number = match[4] or match[6] or match[7]
    model = number if not match[5] else f"{number} {match[5].lower()}"
    return [f"geforce {b} {model}" for b in _GEFORCE_BRANDS]


def _capability_named(text: str) -> tuple[tuple[int, int], str] | None:
    """The compute capability the writer gives, or that of the one GPU model the text names: None where the
    text names none, or GPUs of different capabilities."""
    tail = text[-200_000:]
    stated = last_match(_CC_SAID, tail)
    if stated is not None:
        return (int(stated[1]), int(stated[2])), f"the text gives compute capability {stated[1]}.{stated[2]}"
    found = _gpu_models_named(tail)
    if len(found) != 1:
        return None
    [(cc, name)] = found.items()
    return cc, f"the text names the {name}"


def _gpus_of_several_capabilities(text: str) -> str | None:
    """The GPU models the text names when they differ in compute capability ("runs on the P100, fails on the
    RTX A6000"), each with its capability: a build or extension may have kernels for one and not the other."""
    found = _gpu_models_named(text[-200_000:])
    if len(found) < 2:
        return None
    each = ", ".join(f"the {name} ({major}.{minor})" for (major, minor), name in sorted(found.items()))
    return f"the text names GPUs of different compute capabilities: {each}"


_SUFFIX_WORDS = {"ti": "Ti", "super": "SUPER"}


def _table_name(name: str) -> str:
    """``name`` (lower case) as NVIDIA's table writes it: a table model, or one with a suffix after it
    ("geforce rtx 5090 d": the GeForce RTX 5090 D)."""
    if name in _TABLE_NAMES:
        return _TABLE_NAMES[name]
    model, _, suffix = name.rpartition(" ")
    if model in _TABLE_NAMES:
        return f"{_TABLE_NAMES[model]} {_SUFFIX_WORDS.get(suffix, suffix.upper())}"
    return name


def _gpu_models_named(tail: str) -> dict[tuple[int, int], str]:
    """Each compute capability of the GPU models the text names, with the first model said of it."""
    found: dict[tuple[int, int], str] = {}
    for n, match in enumerate(_GPU_SAID.finditer(tail)):
        if n >= _GPU_NAMES_TRIED:
            break
        for name in _names_of(match):
            cc = collect_env.compute_capability(name)
            if cc is not None:
                said = " ".join((match[7] or match[0]).split())
                table = _table_name(name)
                found.setdefault(cc, said if said.lower() == table.lower() else f"{said} (the {table})")
                break
    return found


# What torch's warning says the installed build was made for, in each generation's words: "The current PyTorch
# install supports CUDA capabilities sm_37 sm_50 ... sm_75" (1.7 on), "Minimum and Maximum cuda capability
# supported by this version of PyTorch is (7.0) - (12.0)" (2.7 on), "- 7.5 which supports hardware CC
# >=7.5,<8.0" one line per capability (2.11 on).
_BUILT_LIST = re.compile(r"supports CUDA capabilities ((?:sm_\d+ ?)+)")
_BUILT_RANGE = re.compile(
    r"Minimum and Maximum cuda capability supported by this version of PyTorch is\s{0,20}"
    r"\((\d{1,2})\.(\d)\) - \((\d{1,2})\.(\d)\)"
)
_BUILT_LINE = re.compile(r"^[ \t]{0,8}- (\d{1,2})\.(\d) which supports hardware CC", re.MULTILINE)


@dataclass(frozen=True)
class _Built:
    """The capabilities torch's warning says the installed build has kernels for (86 = 8.6): its arch list,
    or only the lowest and the highest (``whole`` False)."""

    capabilities: list[int]
    said: str
    whole: bool = True


def _built_for(after: str) -> _Built | None:
    """What the installed build was made for, as torch's warning after the GPU's capability gives it; None
    where it gives nothing."""
    listed = _BUILT_LIST.search(after)
    if listed is not None:
        names = listed[1].split()
        return _Built([int(n[3:]) for n in names], f"the installed torch has kernels for {' '.join(names)}")
    lines = [int(m[1]) * 10 + int(m[2]) for m in islice(_BUILT_LINE.finditer(after), 20)]
    if lines:
        return _Built(lines, f"the installed torch was built for {' '.join(f'sm_{sm}' for sm in lines)}")
    ranged = _BUILT_RANGE.search(after)
    if ranged is not None:
        low, high = f"{ranged[1]}.{ranged[2]}", f"{ranged[3]}.{ranged[4]}"
        capabilities = [int(ranged[1]) * 10 + int(ranged[2]), int(ranged[3]) * 10 + int(ranged[4])]
        return _Built(capabilities, f"the installed torch supports capabilities {low} to {high}", whole=False)
    return None


def _build_cause(sm: int, build: _Built | None, dropped: bool, fallen: _DefaultDrop | None = None) -> str:
    """Why the installed build has no kernels for ``sm``: its kernels stop below it (a build for an older
    CUDA) or start above it (an old GPU dropped), as far as the text says; an old GPU pip's default builds
    dropped (``fallen``) said so where the build's own list is not shown."""
    built = [] if build is None else build.capabilities
    listing = ""
    if build is not None:
        shown = " ".join(f"sm_{b}" for b in built) if build.whole else f"sm_{built[0]} to sm_{built[-1]}"
        listing = f" ({'its arch list' if build.whole else 'its range'}: {shown})"
    if built and sm > max(built):
        return (
            f"This torch build does not support sm_{sm}, this GPU's architecture: its kernels stop at "
            f"sm_{max(built)}{listing}: an older CUDA build (or an older torch) than this GPU needs."
        )
    if built and sm < min(built):
        return (
            f"This torch build no longer supports sm_{sm}, this GPU's architecture: its kernels start at "
            f"sm_{min(built)}{listing}. The GPU's older architecture was dropped from this build; an older "
            "CUDA build (or an older torch) still has it."
        )
    if built:
        return f"This torch build has no kernels for sm_{sm}, this GPU's architecture{listing}."
    if dropped:
        return (
            f"The installed torch has no kernels for sm_{sm}, this GPU's architecture, and no current torch "
            "build has: the GPU's older architecture was dropped from the builds; an older torch (or an "
            "older CUDA build) still has it."
        )
    if fallen is not None:
        return (
            f"The installed torch has no kernels for sm_{sm}, this GPU's architecture: an old GPU's, dropped "
            f"from the builds pip installs by default from torch {fallen.first} on (their CUDA "
            f"{fallen.cuda}); builds of other CUDA releases and older torch releases still have it."
        )
    return (
        f"The installed torch has no kernels for sm_{sm}, this GPU's architecture: an older CUDA build than "
        "this GPU needs, or a newer build that dropped an old GPU's architecture."
    )


def _harmless(sm: int, build: _Built | None) -> Analysis | None:
    """torch 2.7 to 2.10 warn of a GPU above the range's maximum even where it has the maximum's major (a
    GB10, 12.1, beside a build to 12.0): kernels built for X.y run on X.z where z >= y, so the build runs
    it."""
    if build is None or build.whole:
        return None
    high = build.capabilities[-1]
    if not (sm > high and sm // 10 == high // 10):
        return None
    return Analysis(
        evidence=(
            f"the GPU is sm_{sm}; the build's newest kernels are sm_{high}, of the same major: they run on "
            "it",
        ),
        cause=(
            f"A warning only: the build's sm_{high} kernels run on this sm_{sm} GPU (kernels built for a "
            "compute capability X.y run on every X.z with z >= y), and torch's range check of this release "
            "compares the whole number."
        ),
        fix=_HARMLESS_FIX,
    )


_HARMLESS_FIX = Fix(
    "Nothing to fix: the warning can be ignored (torch's own test, "
    "python -c \"import torch; print(torch.ones(1, device='cuda') + 1)\", runs on the GPU)."
)


def _no_kernel_for(sm: int, text: str, after: str, named: str | None = None) -> Analysis:
    """Which build has kernels for compute capability ``sm`` (86 = 8.6) and runs on the driver the text names:
    the plan ``torchdoctor check`` makes for the same machine; with the releases whose builds have kernels for
    it, which say whether the GPU needs a newer torch or an older one."""
    built = _built_for(after)
    harmless = _harmless(sm, built)
    if harmless is not None:
        return harmless
    cc = (sm // 10, sm % 10)
    evidence = [f"the GPU is sm_{sm} (compute capability {cc[0]}.{cc[1]})"]
    if named is not None:
        evidence[0] = f"{named}: sm_{sm} (compute capability {cc[0]}.{cc[1]})"
    span = _releases_with_kernels(cc)
    if built is not None:
        evidence.append(built.said)
    seen = _seen(text)
    if seen.driver_version is None:
        evidence.append(
            "the text names no driver version: the build is chosen for the newest driver it needs"
        )
    arch_list = [f"sm_{b}" for b in built.capabilities] if built is not None and built.whole else []
    plan = _plan(text, [cc], None, arch_list)
    fix = plan.text
    lines = builds.known_lines()
    if plan.kind == "cpu":
        evidence.append("no current torch build has kernels for this GPU")
        if span:
            (_, (last, last_cuda)) = span
            evidence.append(
                f"the newest torch with kernels for CC {cc[0]}.{cc[1]} is {last} (its CUDA {last_cuda} build)"
            )
            fix += (
                " To keep the GPU, downgrade to an older torch that still has its kernels (torch "
                f"{last} with CUDA {last_cuda}, and the extensions built for that release), or build from "
                "source."
            )
        else:
            evidence.append(f"no torch release from {lines[0]} on has kernels for CC {cc[0]}.{cc[1]}")
            fix += (
                f" To keep the GPU, downgrade to an older torch (before {lines[0]}) whose builds still had "
                "its kernels, with the extensions built for that release, or build from source."
            )
    elif span:
        ((first, first_cuda), _) = span
        said = (
            f"torch has kernels for CC {cc[0]}.{cc[1]} from {first} on (its CUDA {first_cuda} build), not in "
            "every CUDA build of a release"
        )
        if first == lines[0]:
            said += f"; {first} is the oldest release these tables know, so older ones may have them too"
        evidence.append(said)
        release = _seen(text).release
        installed = cuda_compat.parse_version(release)
        if installed is None or installed < (cuda_compat.parse_version(first) or ()):
            fix = f"Upgrade PyTorch to {first} or newer with a CUDA {first_cuda} or newer build. {fix}"
    on_windows = seen.os_key != "linux-x86_64" or _WINDOWS.search(text[-200_000:]) is not None
    fallen = None if on_windows else _default_drop(cc, built)
    if fallen is not None:
        evidence.append(fallen.said)
        fix += fallen.fix
    cause = _build_cause(sm, built, plan.kind == "cpu", fallen)
    return Analysis(evidence=(*evidence, *plan.evidence[:4]), cause=cause, fix=Fix(fix, plan.commands))


@dataclass(frozen=True)
class _DefaultDrop:
    """An old GPU whose kernels pip's default torch builds had and a later release's default build dropped:
    what the text is told of it."""

    said: str
    first: str
    """The first release line whose default build has none."""
    cuda: str
    """That build's CUDA."""
    fix: str


def _default_drop(cc: tuple[int, int], built: _Built | None) -> _DefaultDrop | None:
    """Where the builds pip installs by default on Linux dropped ``cc`` (unless the build the text shows
    stops below the GPU: a newer GPU than that build). Not for Windows, where pip's default torch is the
    CPU build."""
    sm = cc[0] * 10 + cc[1]
    if built is not None and sm > max(built.capabilities):
        return None
    dropped = builds.default_dropped(cc)
    if dropped is None:
        return None
    last, first = dropped
    release = builds.newest_release(last.line) or last.line
    said = f"CC {cc[0]}.{cc[1]}"
    return _DefaultDrop(
        said=(
            f"pip's default torch builds (Linux x86_64) dropped {said}: torch {release}'s (CUDA {last.cuda}) "
            f"was the last with its kernels, torch {first.line}'s (CUDA {first.cuda}) has none"
        ),
        first=first.line,
        cuda=first.cuda,
        fix=(
            f" A plain pip install (no index URL) needs a downgrade to torch {release}, the last release "
            f"whose default pip wheel (CUDA {last.cuda}) has kernels for {said}: pip install "
            f"torch=={release}, with the torchvision and torchaudio of that release."
        ),
    )


def _releases_with_kernels(
    cc: tuple[int, int],
) -> tuple[tuple[str, str], tuple[str, str]] | None:
    """(release, CUDA) of the first and the last Linux build the tables know with kernels for ``cc``: the
    oldest CUDA build with them of each of those releases."""
    have = [
        (line, build.cuda)
        for line in builds.known_lines()
        for build in reversed(builds.of(line, "linux-x86_64") or [])
        if builds.has_kernels(build, cc)
    ]
    if not have:
        return None
    last = have[-1][0]
    return have[0], next(pair for pair in have if pair[0] == last)


_INIT_ERRORS = catalogue_file.cases(__package__, "cuda.init_failed")


def analyse_init_failed(text: str) -> Analysis:
    found = [(m.start(), case) for case in _INIT_ERRORS if (m := last_match(case.compiled, text))]
    if not found:
        return Analysis()
    return max(found, key=lambda item: item[0])[1].analysis()


def analyse_cudnn_version(text: str) -> Analysis:
    match = _last(
        r"compiled\s+against \((\d+), (\d+), (\d+)\) but found runtime version \((\d+), (\d+), (\d+)\)", text
    )
    if match is not None:
        built, found = tuple(int(v) for v in match.groups()[:3]), tuple(int(v) for v in match.groups()[3:])
    else:
        old = _last(r"compiled against (\d+) but linked against (\d+)", text)
        if old is None:
            return Analysis()
        built, found = _cudnn_int(int(old[1])), _cudnn_int(int(old[2]))
    which = "an older" if found < built else "a newer"
    return Analysis(
        evidence=(
            f"torch was built with cuDNN {'.'.join(map(str, built))}, the process loaded "
            f"{'.'.join(map(str, found))}: {which} copy shadows torch's own",
        )
    )


def _cudnn_int(value: int) -> tuple[int, int, int]:
    """cuDNN's CUDNN_VERSION integer, major * 1000 + minor * 100 + patch (7102 = 7.1.2)."""
    return value // 1000, (value % 1000) // 100, value % 100


# A name quoted in Markdown or in a repr ('`libcuda.so`', "'libcudnn.so.9'") is the name without its quotes.
_LIBRARY_NAME = re.compile(r"([^\s`'\"]+\.(?:so[\d.]*|dll|dylib))\W*$", re.IGNORECASE)
_LOADER = re.compile(
    r": cannot open shared object file|Could not load library |Error loading\s{1,40}\""
    r"|Unable to load any of \{"
    r"| not found in the system path"
    r"|Library not loaded: "
)
_PRELOAD = re.compile(r"(lib\w{1,30}\.so[*\[\]0-9.-]{0,24}) not found in the system path")
_LIBRARY_KINDS = catalogue_file.cases(__package__, "lib.cannot_open_shared_object")


# The loader's own words when a program (not a Python import) starts: a C++ libtorch application, or a
# binding of another language (Rust's tch, Haskell's hasktorch) that links libtorch.
_PROGRAM_START = re.compile(
    r"error while loading shared libraries: ((?:libtorch|libc10)\w{0,20}\.so[\w.]{0,12})"
)
_LOADER_PATH_CAUSE = (
    "A program built against libtorch (a C++ application, or a binding of another language such as Rust's "
    "tch or Haskell's hasktorch) cannot find libtorch's own libraries when it starts: the dynamic loader "
    "looks in the program's rpath, LD_LIBRARY_PATH and the system's folders, and libtorch's lib folder is in "
    "none of them (a shell without the variable set, or a program installed or moved without its rpath)."
)
_LOADER_PATH_FIX = Fix(
    "Put libtorch's lib folder on the loader's path: export LD_LIBRARY_PATH=/path/to/libtorch/lib:"
    "$LD_LIBRARY_PATH (with pip's torch, the lib folder inside the torch package), as the binding's setup "
    "script does; or link the program with that folder in its rpath (CMake's INSTALL_RPATH, or "
    "-Wl,-rpath,/path/to/libtorch/lib).",
    ("python -c \"import os, torch; print(os.path.join(os.path.dirname(torch.__file__), 'lib'))\"",),
)


# A library under torch's JIT build cache: an extension built on first use whose build failed.
_JIT_LIBRARY = re.compile(r"torch_extensions[/\\][^\n:]{0,300}?\.so(?=: cannot open)")


def analyse_missing_library(text: str) -> Analysis:
    preload = last_match(_PRELOAD, text)
    if preload is not None:
        return _nvidia_wheels_missing(preload[1])
    started = last_match(_PROGRAM_START, text[-200_000:])
    if started is not None:
        line = f"a program (not a Python import) could not load {started[1]} when it started"
        return Analysis(evidence=(line,), cause=_LOADER_PATH_CAUSE, fix=_LOADER_PATH_FIX)
    name = _missing_library_name(text)
    homebrew = _HOMEBREW_LIBRARY.fullmatch(name or "")
    if homebrew is not None:
        return _homebrew_library(homebrew, text)
    if name is not None and name.lower().endswith(".dylib"):
        name = name.rsplit("/", 1)[-1]  # dyld's path ("@rpath/libc10.dylib"): the library is its file
    evidence = (f"missing: {name}",) if name else ()
    if last_match(_NO_VC_RUNTIME, text[-200_000:]) is not None:
        return _no_vc_runtime(evidence)
    built_here = last_match(_JIT_LIBRARY, text[-200_000:])
    if built_here is not None:
        line = f"the missing library is one torch builds on first use, in its cache ({built_here[0]})"
        return Analysis(evidence=(*evidence, line), cause=_JIT_ENTRY.cause, fix=_JIT_ENTRY.fix)
    cupy = _cupy_library(name, text)
    if cupy is not None:
        return cupy
    windows = _windows_dll(evidence, name, text[-200_000:])
    if windows is not None:
        return windows
    for case in _LIBRARY_KINDS:
        if case.compiled.search(name or text[-300:]):
            if case is _GCC_OPENMP and _torch_loads_it(name, text):
                continue
            if case is _DESKTOP_STACK:
                return _with_system_package(case.analysis(*evidence), name)
            found = _with_bundled_release(_with_cudnn_release(case.analysis(*evidence), name), name)
            other = _built_for_other_cuda(found, name, text)
            return other if other is not found else _release_asked_by_a_package(found, name, text)
    if name is not None and _PLAIN_LIBRARY.fullmatch(name) and _OF_TORCH_OR_CUDA.match(name) is None:
        return _not_torchs_library(evidence, name, text)
    return Analysis(evidence=evidence)


# The cases of libraries the system's packages bring, not torch's: OpenGL, X11 and GLib's (OpenCV's and
# RDKit's drawing), and GCC's OpenMP runtime, which torch's wheel carries a copy of for itself.
_DESKTOP_STACK = next(case for case in _LIBRARY_KINDS if case.compiled.search("libGL.so.1"))
_GCC_OPENMP = next(case for case in _LIBRARY_KINDS if case.compiled.search("libgomp.so.1"))


def _torch_loads_it(name: str | None, text: str) -> bool:
    """Whether the last traceback frame before the missing library ``name`` is torch's own."""
    at = text.rfind(name or "")
    head = text[max(0, at - 200_000) : at] if at >= 0 else text[-200_000:]
    package = _last_frame_package(head)
    return package is not None and package.startswith("torch")


# Frames that pass a library on to the loader: ctypes' own (ctypes.CDLL, cdll.LoadLibrary) and torch's
# torch.ops.load_library, which a package (torchaudio, torchvision, an extension) calls for its own library.
_PASSING_ON = re.compile(r"[/\\]ctypes[/\\]__init__\.py$|[/\\]torch[/\\]_ops\.py$")


def _last_frame_package(head: str) -> str | None:
    """The installed package of the last traceback frame at the end of ``head`` that does not only pass a
    library on to the loader, or None."""
    for frame in reversed(frame_files(head, len(head), 3000)):
        if not _PASSING_ON.search(frame):
            return installed_package(frame)
    return None


# Debian and Ubuntu name the package of a run-time library after its soname (Debian Policy 8.1; deb-shlibs(5):
# libcrunch.so.1 is in libcrunch1), with a hyphen where the name ends in a digit (libX11.so.6: libx11-6);
# GLib's libraries share one package.
_SONAME = re.compile(r"(lib[A-Za-z][\w+.-]{0,60}?)\.so\.(\d{1,3})(?:\.\d{1,6}){0,3}")
_GLIB_PACKAGE = "libglib2.0-0"
_GLIB_LIBRARIES = frozenset(
    {"libglib-2.0", "libgthread-2.0", "libgobject-2.0", "libgio-2.0", "libgmodule-2.0"}
)


def debian_package(library: str) -> str | None:
    """The Debian and Ubuntu package of the run-time library ``library`` (a soname: libXrender.so.1)."""
    found = _SONAME.fullmatch(library)
    if found is None:
        return None
    stem = found[1].lower()
    if stem in _GLIB_LIBRARIES:
        return _GLIB_PACKAGE
    return f"{stem}{'-' if stem[-1].isdigit() else ''}{found[2]}"


def _with_system_package(analysis: Analysis, name: str | None) -> Analysis:
    """The case's fix, led by the package that provides the missing library ``name``, which its command
    installs too."""
    package = None if name is None else debian_package(name)
    fix = analysis.fix
    if package is None or fix is None:
        return analysis
    lead = f"{name} is in the package {package} on Debian and Ubuntu: sudo apt-get install {package}."
    install = "sudo apt-get install -y "
    commands = [
        f"{install}{package} {command.removeprefix(install)}"
        if command.startswith(install) and package not in command.split()
        else command
        for command in fix.commands
    ]
    return replace(analysis, fix=Fix(f"{lead} {fix.text}", tuple(commands)))


# torch's check before it loads its DLLs on Windows (torch/__init__.py: ctypes.CDLL of vcruntime140.dll,
# msvcp140.dll and vcruntime140_1.dll, and this line where one fails).
_NO_VC_RUNTIME = re.compile(
    r"Visual C\+\+ Redistributable is not installed, this may lead to the DLL load failure", re.IGNORECASE
)


def _no_vc_runtime(evidence: tuple[str, ...]) -> Analysis:
    said = (
        "torch's own check at import could not load the Visual C++ runtime (vcruntime140.dll, msvcp140.dll, "
        "vcruntime140_1.dll) and said so: 'Microsoft Visual C++ Redistributable is not installed'"
    )
    return Analysis(
        evidence=(*evidence, said),
        cause=(
            "torch's own check at import found no Visual C++ runtime: the Microsoft Visual C++ "
            "Redistributable (x64) is not installed, older than torch needs (one before Visual Studio "
            "2019's has no vcruntime140_1.dll) or broken. torch's DLLs (c10.dll first) need it, so they "
            "fail to load, in whatever words Windows gives the failure."
        ),
        fix=Fix(
            "Install the latest Microsoft Visual C++ Redistributable (x64, "
            "https://aka.ms/vs/17/release/vc_redist.x64.exe), or where one is installed, repair it "
            "(Settings > Apps > Microsoft Visual C++ 2015-2022 Redistributable (x64) > Modify > Repair); "
            "then start the program again."
        ),
    )


# The lowest compute capability (major) each DeepSpeed op keeps in its builder's filter_ccs (op_builder/*.py
# at DeepSpeed commit edaa7221): the op names as its error gives them.
_DEEPSPEED_OP_FLOOR = {
    "ragged_device_ops": 8,
    "cutlass_ops": 8,
    "fp_quantizer": 8,
    "evoformer_attn": 7,
    "ragged_ops": 6,
    "inference_core_ops": 6,
    "transformer_inference": 6,
}
_DEEPSPEED_NO_CAPABILITY = re.compile(
    r"Unable to load (\w{1,60}) op due to no compute capabilities remaining"
)
# builder.py's warning before it: "Filtered compute capabilities [['7', '5']]"
_DEEPSPEED_FILTERED = re.compile(
    r"Filtered compute capabilities \[((?:\['\d{1,2}', '\d{1,2}[^'\]]{0,8}'\],? ?){1,20})\]"
)


def analyse_deepspeed_no_capability(text: str) -> Analysis:
    """The op's floor, where DeepSpeed's builders name one, and the capabilities it filtered out."""
    tail = text[-200_000:]
    found = last_match(_DEEPSPEED_NO_CAPABILITY, tail)
    if found is None:
        return Analysis()
    evidence = []
    floor = _DEEPSPEED_OP_FLOOR.get(found[1])
    if floor is not None:
        evidence.append(
            f"DeepSpeed builds {found[1]} only for compute capability {floor}.0 or newer (its op builder's "
            "filter_ccs): the capabilities it builds for (TORCH_CUDA_ARCH_LIST's where set, else the "
            "visible GPUs') have none"
        )
    filtered = last_match(_DEEPSPEED_FILTERED, tail)
    if filtered is not None:
        pairs = re.findall(r"\['(\d{1,2})', '(\d{1,2})", filtered[1])
        evidence.append(f"the capabilities DeepSpeed filtered out: {', '.join(f'{a}.{b}' for a, b in pairs)}")
    return Analysis(evidence=tuple(evidence))


# The libraries of torch, CUDA, the driver, ROCm and the runtimes torch's builds bring or link (MKL, OpenMP,
# MPI, the interconnects' verbs): the entry's cases and its own cause tell of them. Any other library is a
# package's or the system's, which reinstalling torch does not bring.
_OF_TORCH_OR_CUDA = re.compile(
    r"(?:lib)?(?:torch|c10|caffe2|shm|cuda|cudnn|cublas|cufft|curand|cusolver|cusparse|cupti|cufile|cutensor"
    r"|nv|nccl|magma|mkl|iomp|gomp|omp|tbb|roc|hip|hsa|amdhip|miopen|rccl|mpi|python|aoti|fbgemm|gloo|ucc"
    r"|ucx|ibverbs|rdma|triton|tensorrt|onnxruntime)",
    re.IGNORECASE,
)
# A library's file name alone, as the fix's commands quote it: nothing a shell would read as more than a word.
_PLAIN_LIBRARY = re.compile(r"[\w+-][\w.+-]{0,100}\.(?:so(?:\.[\d.]{1,20})?|dylib)", re.IGNORECASE)


# macOS: a library linked at Homebrew's own path for a formula (/usr/local/opt/<formula>/lib on Intel Macs,
# /opt/homebrew/opt/<formula>/lib on Apple silicon): torch 1.1.0's wheels asked for Homebrew's libomp there
# (pytorch/pytorch#20030, spro/practical-pytorch#131), a third-party CUDA build for Homebrew's open-mpi
# (TomHeaven/pytorch-osx-build#8); brew install <formula> puts it there.
_HOMEBREW_LIBRARY = re.compile(r"(/usr/local|/opt/homebrew)/opt/([\w@.+-]{1,60})/lib/([\w.+-]{1,100}\.dylib)")
_REFERENCED_FROM = re.compile(r"Referenced from: (?:<[\w-]{1,60}> )?(\S{1,300})")


def _homebrew_library(found: re.Match[str], text: str) -> Analysis:
    prefix, formula, library = found[1], found[2], found[3]
    which = "Apple silicon" if prefix == "/opt/homebrew" else "Intel Macs"
    evidence = [f"dyld looked for {library} at {found[0]}: Homebrew's place for its formula {formula}"]
    asking = last_match(_REFERENCED_FROM, text[-200_000:])
    if asking is not None:
        evidence.append(f"asked for by {asking[1].rsplit('site-packages/', 1)[-1]}")
    cause = (
        f"The library that asks for it was built against Homebrew's {formula} and links {library} where "
        f"Homebrew puts it ({prefix}, Homebrew's prefix on {which}), and this Mac has no {formula} there: it "
        "is not installed with Homebrew, or Homebrew lives under the other prefix (/opt/homebrew on Apple "
        "silicon, /usr/local on Intel Macs). Reinstalling the same build brings the same link."
    )
    fix = Fix(
        f"Install the formula with Homebrew: brew install {formula}. Or install a build of the package that "
        "brings its own copy of the library (torch 1.1.0's macOS wheels asked for Homebrew's libomp; its "
        "1.1.0.post2 wheels and later bring their own).",
        (f"brew install {formula}",),
    )
    return Analysis(evidence=tuple(evidence), cause=cause, fix=fix)


def _not_torchs_library(evidence: tuple[str, ...], name: str, text: str) -> Analysis:
    """A library that is not torch's or CUDA's: the package that needs it, where the traceback shows it,
    and how to find what provides it."""
    at = text.rfind(name)
    package = _package_asking(text, at if at >= 0 else len(text))
    who = f"{package}, which the program imports," if package else "a package the program imports"
    cause = (
        f"The loader could not find {name}, which is none of torch's, CUDA's or the driver's libraries: "
        f"{who} needs it, and it comes with that package or from the system's packages. Reinstalling torch "
        "does not bring it."
    )
    again = f"reinstall {package or 'the package whose import fails'} in this environment"
    if name.lower().endswith(".dylib"):
        stem = name.removeprefix("lib").split(".", 1)[0]
        fix = Fix(
            f"Install what provides {name}: a formula of Homebrew's (brew search {stem}) or a package of "
            f"conda-forge's, or {again}.",
            (f"brew search {stem}",),
        )
        return Analysis(evidence=evidence, cause=cause, fix=fix)
    fix = Fix(
        f"Install what provides {name}: the system's package (apt-file search {name} names it on Debian and "
        f"Ubuntu, dnf provides '*/{name}' on Fedora and RHEL; conda-forge packages many), or {again}.",
        (f"apt-file search {name}", f"ldconfig -p | grep {name.split('.so')[0]}"),
    )
    return Analysis(evidence=evidence, cause=cause, fix=fix)


# A CUDA runtime library of one release (libcudart.so.10.2) asked for where the text names another CUDA: a
# compiled package built against that release (an extension's _ext, mmcv-full) does not match the installed
# torch and CUDA (open-mmlab/mmcv#1224 and #1380, open-mmlab/mmdetection#6229, namtuanly/MTL-TabNet#5).
_CUDA_RUNTIME_LIBRARIES = "cudart|cublas|cublasLt|cufft|curand|cusolver|cusparse|nvrtc"
_VERSIONED_RUNTIME = re.compile(rf"lib(?:{_CUDA_RUNTIME_LIBRARIES})\.so\.(\d{{1,2}})\.(\d)")
# A CUDA library of one release (libcublasLt.so.11, libnvrtc.so.11.2) asked for by a package other than torch:
# a build of that package for that CUDA (mxnet-cu101, onnxruntime-gpu's CUDA 11 build, pykeops).
_RELEASE_ASKED = re.compile(rf"lib(?:{_CUDA_RUNTIME_LIBRARIES}|cudnn)\.so\.(\d{{1,2}})(?:\.(\d))?")
# The package that loads it, where the text says so: onnxruntime's provider library, the last frame before
# the message in an installed package (torch's own frames load torch's libraries), a pip name with a CUDA
# suffix (mxnet-cu112, cupy-cuda12x, spconv-cu118), the writer's "during the import of pykeops".
_ONNXRUNTIME_PROVIDER = re.compile(r"Failed to load library \[?libonnxruntime_providers_cuda")
# TensorFlow's loader logs each library it cannot open ("tensorflow/stream_executor/platform/default/
# dso_loader.cc:64] Could not load dynamic library 'libcufft.so.10'"), in a program importing it beside torch.
_TENSORFLOW_LOADER = re.compile(r"\btensorflow/[\w/]{0,80}dso_loader\.cc")
_CUDA_SUFFIXED = re.compile(r"\b([a-z][a-z0-9_]{1,30})-cu(?:da)?\d{2,3}[a-z]{0,4}\b", re.IGNORECASE)
_IMPORT_SAID = re.compile(
    r"\b(?:during|while|when|on)\s(?:the\s)?import(?:ing)?\s(?:of\s)?([a-z][a-z0-9_]{1,30})\b", re.IGNORECASE
)
# Colab's name, its notebooks' address, or its working folder at the root of a path (/content/, not a
# project's own content/ folder)
_COLAB = re.compile(r"\b(?:google\s)?colab\b|(?<![\w.~-])/content/|colab\.research\.google", re.IGNORECASE)
# A compiled extension's import just before the message, as a traceback's last statement gives it ("from
# detectron2 import _C", "from . import _ext", "import correlation_cuda"): that package loads the library.
_EXTENSION_IMPORT = re.compile(
    r"^[ \t>]*(?:from\s+([A-Za-z_][\w.]{0,60})\s+import\s+(?:_C|_ext|\w{1,40}_(?:cuda|ext|C))\b"
    r"|import\s+([A-Za-z_]\w{0,40}_(?:cuda|ext|C))\b)",
    re.MULTILINE,
)


# CuPy loads the CUDA libraries it needs itself ("CuPy failed to load libnvrtc.so.12", its cupy_backends
# frames): its wheels are built per CUDA major and look for that release's libraries in the machine's CUDA
# toolkit (docs.cupy.dev, Installation; BLAST-WarpX/warpx#4621, 98mxr/GMFSS_Fortuna#6).
_CUPY_LOAD = re.compile(r"CuPy failed to load ([^\s:]{1,80})|cupy_backends[/\\.]cuda")
# A CUDA library's file and its CUDA major: libnvrtc.so.12, nvrtc64_112_0.dll (11.2), cublas64_12.dll.
_CUDA_LIBRARY_RELEASE = re.compile(
    rf"({_CUDA_RUNTIME_LIBRARIES})(?:64_(1\d|[2-9])\d{{0,2}}(?:_0)?\.dll|\.so\.(\d{{1,2}}))", re.IGNORECASE
)
_CUDA_LIBRARY_LABEL = {
    "nvrtc": "NVRTC",
    "cublaslt": "cuBLASLt",
    "cublas": "cuBLAS",
    "cudart": "cudart",
    "curand": "cuRAND",
    "cufft": "cuFFT",
    "cusparse": "cuSPARSE",
    "cusolver": "cuSOLVER",
}
_CUPY_CAUSE = (
    "CuPy loads the CUDA libraries it needs itself, not torch's copies: its pip wheels are built per CUDA "
    "major (cupy-cuda11x for CUDA 11.2 to 11.8, cupy-cuda12x for CUDA 12) and look for that release's "
    "libraries in a CUDA toolkit installed on the machine (CUDA_PATH, LD_LIBRARY_PATH), which torch's wheels "
    "do not provide: the CuPy installed is for another CUDA than the machine has, or no CUDA toolkit of its "
    "release is installed."
)
_CUPY_FIX = Fix(
    "Install the one CuPy wheel of the machine's CUDA major (pip uninstall cupy cupy-cuda11x cupy-cuda12x, "
    "then pip install cupy-cuda12x for CUDA 12, cupy-cuda11x for CUDA 11) with a CUDA toolkit of that "
    "release on the machine, or conda install -c conda-forge cupy, which brings its CUDA libraries with it. "
    "Reinstalling torch does not help.",
    ("nvidia-smi", 'python -c "import cupy; cupy.show_config()"'),
)


def _cupy_library(name: str | None, text: str) -> Analysis | None:
    """A CUDA library CuPy could not load, with the CUDA major its file names; None where CuPy is not
    shown."""
    found = last_match(_CUPY_LOAD, text[-200_000:])
    if found is None:
        return None
    name = found[1] or name
    evidence = [f"missing: {name}"] if name else []
    release = _CUDA_LIBRARY_RELEASE.search(name or "")
    if release is not None:
        label = _CUDA_LIBRARY_LABEL[release[1].lower()]
        major = release[2] or release[3]
        evidence.append(f"CuPy loads {name}, CUDA {major}'s {label}, itself (not through torch)")
    else:
        evidence.append("CuPy loads the library itself (not through torch)")
    return Analysis(evidence=tuple(evidence), cause=_CUPY_CAUSE, fix=_CUPY_FIX)


def _package_asking(text: str, end: int) -> str | None:
    """The package other than torch that the text shows loading the missing library, or None."""
    head = text[max(0, end - 200_000) : end]
    if _ONNXRUNTIME_PROVIDER.search(head):
        return "onnxruntime-gpu"
    if _TENSORFLOW_LOADER.search(head[-600:]):
        return "tensorflow"
    package = _last_frame_package(head)
    if package is not None:
        # torch loads its own libraries; its companions (torchaudio, torchvision) and extensions have builds
        # of their own
        return None if package == "torch" or package.startswith("nvidia") else package
    imported = last_match(_EXTENSION_IMPORT, head[-600:])
    if imported is not None:
        module = (imported[1] or imported[2]).split(".")[0]
        if module and not module.startswith("torch"):
            return module
    said = last_match(_CUDA_SUFFIXED, head) or last_match(_IMPORT_SAID, head)
    return None if said is None or said[1].lower().startswith("torch") else said[1].lower()


# The CUDA libraries whose soname carries their own major, not CUDA's, by their file's stem: the CUDA 13
# wheels torch 2.14.1 installs ship libcufft.so.12, libcusolver.so.12, libcusparse.so.12 and libcurand.so.10
# beside libcudart.so.13 and libcublas.so.13, and cuDNN 9's libcudnn.so.9 (pip show -f of nvidia-cufft,
# nvidia-cusolver, nvidia-cusparse, nvidia-curand, nvidia-cudnn-cu13).
_OWN_MAJORS = {
    "libcudnn": "cuDNN",
    "libcufft": "cuFFT",
    "libcurand": "cuRAND",
    "libcusolver": "cuSOLVER",
    "libcusparse": "cuSPARSE",
}


def _release_asked_by_a_package(analysis: Analysis, name: str | None, text: str) -> Analysis:
    """A versioned CUDA library asked for by another package than torch (or on Colab, whose CUDA moves on):
    that package was built for that CUDA release, or for that cuDNN major where the library is cuDNN's."""
    asked = _RELEASE_ASKED.search(name or "")
    if asked is None:
        return analysis
    release = asked[1] if asked[2] is None else f"{asked[1]}.{asked[2]}"
    # cuDNN's, cuFFT's, cuRAND's, cuSOLVER's and cuSPARSE's sonames give the library's own major
    # (libcudnn.so.9: cuDNN 9, for CUDA 11 or 12; libcufft.so.10 beside libcublasLt.so.11), not CUDA's
    product = next((p for stem, p in _OWN_MAJORS.items() if asked[0].startswith(stem)), "CUDA")
    at = text.rfind(name or "")
    package = _package_asking(text, at if at >= 0 else len(text))
    colab = _COLAB.search(text[-200_000:]) is not None
    if package is None and not colab:
        return analysis
    evidence = list(analysis.evidence)
    who = f"The package {package}" if package else "A package the program uses (not torch)"
    if package is not None:
        evidence.append(
            f"{name} is asked for by {package}, not by torch: {package}'s build for {product} {release}"
        )
    if colab:
        evidence.append(
            f"the text runs on Google Colab, whose {product} moves to newer releases: a build for an older "
            f"{product} no longer finds its libraries there"
        )
    cause = (
        f"{who} was built for {product} {release} and asks for that release's {name}, which "
        f"this machine does not have (or not where the loader looks): the package's {product} build does not "
        f"match the {product} installed."
    )
    if product == "cuDNN":
        fix = Fix(
            f"Install the release of {package or 'that package'} built for the cuDNN and CUDA this "
            "environment has (its requirements name the cuDNN major each release takes; onnxruntime-gpu's "
            f"CUDA execution provider page lists them), or install cuDNN {release} for it: pip install "
            f"'nvidia-cudnn-cu12=={release}.*' (-cu11 with CUDA 11, -cu13 with CUDA 13), with its lib folder "
            "(site-packages/nvidia/cudnn/lib) on LD_LIBRARY_PATH where the package does not look in "
            "site-packages itself. Reinstalling torch does not help.",
            ("pip list 2>/dev/null | grep -i cudnn", "echo $LD_LIBRARY_PATH"),
        )
    elif product != "CUDA":
        wheel = f"nvidia-{product.lower()}"
        fix = Fix(
            f"Install the release of {package or 'that package'} built for the CUDA this environment has "
            f"(its requirements say which CUDA it takes), or install the library it asks for: {name} is "
            f"{product} {release}, which the {wheel} wheel of its CUDA ships ({wheel}-cu11 and -cu12 for "
            f"CUDA 11 and 12, {wheel} for CUDA 13; pip show -f lists the files), with that lib folder on "
            "LD_LIBRARY_PATH where the package does not look in site-packages itself. Reinstalling torch "
            "does not help.",
            (f"pip list 2>/dev/null | grep -i {wheel}", "echo $LD_LIBRARY_PATH"),
        )
    else:
        fix = Fix(
            f"Install the build of {package or 'that package'} made for the CUDA this machine has (pip's "
            "CUDA-suffixed builds such as mxnet-cu112 or cupy-cuda12x, onnxruntime-gpu's CUDA 12 build, a "
            "newer release of the package), after checking which CUDA that is (nvcc -V, nvidia-smi, "
            "torch.version.cuda), or rebuild it from source here against the installed torch and CUDA; or "
            f"install the CUDA {release} runtime it asks for and put it on LD_LIBRARY_PATH. Reinstalling "
            "torch does not help.",
            ("nvcc -V", 'python -c "import torch; print(torch.version.cuda)"'),
        )
    return replace(analysis, evidence=tuple(evidence), cause=cause, fix=fix)


_CUDA_TEXT = re.compile(r"\bcuda(?:[ _-]?version)?\s{0,3}[:=：]?\s{0,3}(\d{1,2})\.(\d)\b", re.IGNORECASE)


def _built_for_other_cuda(analysis: Analysis, name: str | None, text: str) -> Analysis:
    """The runtime's release, against another CUDA the text names: the package asking was built for it."""
    asked = _VERSIONED_RUNTIME.search(name or "")
    if asked is None:
        return analysis
    wanted = (int(asked[1]), int(asked[2]))
    named = {
        (int(m[1]), int(m[2])) for _, m in zip(range(40), _CUDA_TEXT.finditer(text[-200_000:]), strict=False)
    }
    # from CUDA 11 on the runtime's soname carries the major release only (libcudart.so.11.0 for every 11.x)
    whole_major = wanted[0] >= 11
    others = sorted(c for c in named if (c[0] != wanted[0] if whole_major else c != wanted))
    if not others:
        return analysis
    said = ", ".join(f"{a}.{b}" for a, b in others)
    old = f"{wanted[0]}.x" if whole_major else f"{wanted[0]}.{wanted[1]}"
    line = (
        f"{name} is the runtime of CUDA {old}, and the text names CUDA {said}: a binary built against "
        f"CUDA {old} does not match the installed CUDA"
    )
    fix = Fix(
        f"A compiled package built against CUDA {old} asks for its runtime: find which import raises it "
        "(the traceback's last module: an extension's _ext, mmcv-full's ops) and reinstall or rebuild that "
        "package for the installed torch and its CUDA (a prebuilt wheel from the index of this torch and "
        "CUDA pair, or built from source here), rather than installing the old CUDA.",
        ('python -c "import torch; print(torch.__version__, torch.version.cuda)"',),
    )
    return replace(analysis, evidence=(*analysis.evidence, line), fix=fix)


# A CUDA 11 library of the nvidia-*-cu11 wheels (cuBLAS, NVRTC ...): torch 1.13 and 2.0's PyPI wheels depend
# on them, where torch 1.12.1 and older, and torch 1.13's +cu116 builds of the PyTorch index, carry their CUDA
# libraries inside the torch wheel (snap-stanford/ogb#402 moved to the latter, pytorch/pytorch#89417 to the
# former).
_CU11_WHEEL_LIBRARY = re.compile(
    r"lib(?:cublas|cublasLt|cudart|nvrtc|cufft|curand|cusolver|cusparse|nvToolsExt)\.so\.11\b"
)


# Windows' DLLs of torch as the threads settled each: fbgemm.dll needs the OpenMP runtime libomp140 (torch 2.4
# on; kohya-ss/sd-scripts#1597, chn-lee-yumi/MaterialSearch#105), torch 2.3.0 installed per user loads MKL's
# DLLs from a user-base folder Windows does not search (pytorch/pytorch#125109, fixed by #125684), and a CUDA
# torch on an AMD GPU through ZLUDA finds its CUDA DLLs only with the HIP SDK on PATH
# (patientx/ComfyUI-Zluda#9).
_USER_SITE = re.compile(r"AppData\\Roaming\\Python\\Python\d{2,3}\\site-packages\\torch", re.IGNORECASE)
_WINDOWS_TORCH_DLL = re.compile(r"torch\\lib\\(\w{1,40}\.dll)", re.IGNORECASE)


# Windows found torch's DLL and its initialisation failed (WinError 1114), from torch 2.9 on: the Visual C++
# Redistributable updated (nagadomi/nunif#701), or torch 2.8, which loads where 2.9 does not
# (pytorch/pytorch#169429; 1517005260/graph-rag-agent#54, sdv-dev/SDMetrics#802).
_DLL_INIT_FAILED = re.compile(r"\[WinError 1114\]")
_LAST_LOADING_LINE = "2.8"


def _dll_init_failed(name: str) -> Analysis:
    row = pairing.row_for(builds.newest_release(_LAST_LOADING_LINE))
    pins = [f"torch=={row.torch}"] if row else []
    pins += [f"{c}=={v}" for c in ("torchvision", "torchaudio") if row and (v := row.companion(c))]
    return Analysis(
        evidence=(f"{name} was found but failed to initialise (WinError 1114)",),
        cause=(
            f"Windows found torch's {name} and its initialisation routine failed: most often the Microsoft "
            "Visual C++ Redistributable is missing or older than torch's DLLs need; torch 2.9 and later fail "
            "so on some machines where torch 2.8 loads."
        ),
        fix=Fix(
            "Install the latest Microsoft Visual C++ Redistributable (x64, "
            "https://aka.ms/vc14/vc_redist.x64.exe) and start the program again; where it still fails, "
            f"install torch {_LAST_LOADING_LINE} with its companions (from the index of the build wanted).",
            (f"pip install {' '.join(pins)}",) if pins else (),
        ),
    )


def _windows_dll(evidence: tuple[str, ...], name: str | None, tail: str) -> Analysis | None:
    """The DLL of torch Windows could not load, read by what the text shows beside it; None elsewhere."""
    dll = (name or "").lower()
    if not dll.endswith(".dll"):
        return None
    torch_dll = _WINDOWS_TORCH_DLL.search(tail) is not None
    # ROCm's Windows builds (c10_hip.dll) are their own project's, not the releases this reading knows
    torch_own = (torch_dll or dll.startswith(("c10", "torch_"))) and "hip" not in dll
    if torch_own and _DLL_INIT_FAILED.search(tail) is not None:
        return _dll_init_failed(name or dll)
    if not torch_dll:
        return None
    if _HIP_SDK_WINDOWS.search(tail) is not None or _AMD_GPU.search(tail) is not None:
        return Analysis(
            evidence=(
                *evidence,
                "the text shows an AMD GPU or ZLUDA: a CUDA build of torch run through ZLUDA",
            ),
            cause=(
                "torch's CUDA DLLs are ZLUDA's stand-ins here, and they load only with the AMD HIP SDK's "
                "libraries: the HIP SDK is not installed, or its bin folder is not on PATH."
            ),
            fix=Fix(
                "Install the HIP SDK release the program's ZLUDA instructions name, add its bin folder (and "
                "the ZLUDA folder) to PATH in both the user and the system variables, open a new terminal "
                "and run the program's ZLUDA setup again."
            ),
        )
    torch_version = versions_said(tail).get("torch")
    if dll.startswith("fbgemm") and (
        torch_version is None or Version(torch_version.split("+")[0]) >= Version("2.4")
    ):
        return Analysis(
            evidence=(*evidence, "fbgemm.dll loads the OpenMP runtime libomp140.x86_64.dll (torch 2.4 on)"),
            cause=(
                "fbgemm.dll needs Microsoft's LLVM OpenMP runtime, libomp140.x86_64.dll, which this Windows "
                "does not have: it comes with Visual Studio's C++ build tools, not with every Visual C++ "
                "Redistributable."
            ),
            fix=Fix(
                "Install the MSVC v143 C++ build tools (Visual Studio Installer: 'MSVC v143 - VS 2022 C++ "
                "x64/x86 build tools'), which put libomp140.x86_64.dll in System32, together with the latest "
                "Visual C++ Redistributable; or install a torch release that carries the runtime itself."
            ),
        )
    if _USER_SITE.search(tail) is not None:
        return Analysis(
            evidence=(
                *evidence,
                "torch is installed per user (AppData\\Roaming\\Python: pip install --user)",
            ),
            cause=(
                f"{dll} depends on MKL's DLLs, which a per-user install (pip install --user) puts in the "
                "user base's Library\\bin, a folder Windows does not search: torch 2.3.0's wheels load them "
                "from there (pytorch/pytorch#125109, fixed in later releases by #125684)."
            ),
            fix=Fix(
                "Install torch in a virtual environment (python -m venv venv, then pip install torch there) "
                "or without --user, or a later torch release."
            ),
        )
    return None


def _with_bundled_release(analysis: Analysis, name: str | None) -> Analysis:
    """A missing CUDA 11 library of the nvidia-* wheels: another torch release or build that carries its
    libraries inside its own wheel avoids those wheels altogether."""
    if name is None or analysis.fix is None or _CU11_WHEEL_LIBRARY.search(name) is None:
        return analysis
    fix = Fix(
        f"{analysis.fix.text} If the nvidia-* wheels will not install cleanly, another torch release or "
        "build avoids them: up to torch 1.12.1 the Linux wheels carry their CUDA libraries inside torch "
        "itself (pip install torch==1.12.1), and so do torch 1.13's +cu116 builds from the PyTorch index "
        "(torch==1.13.0+cu116 --extra-index-url https://download.pytorch.org/whl/cu116).",
        analysis.fix.commands,
    )
    return replace(analysis, fix=fix)


def _nvidia_wheels_missing(name: str) -> Analysis:
    """torch 2.0 and 2.1 look for their CUDA libraries in the nvidia-* wheels on sys.path
    (torch/__init__.py _preload_cuda_deps) and found none: the wheels were not installed with torch. The
    2.0.1 and 2.1.0 uploads to PyPI gave lockers (poetry, pdm) metadata without those dependencies
    (pytorch/pytorch#100974, python-poetry/poetry#8580)."""
    return Analysis(
        evidence=(f"missing: {name} (torch searched sys.path for the nvidia-* wheels' libraries)",),
        cause="torch loads its CUDA libraries (cuBLAS, cuDNN, NVRTC ...) from the nvidia-* wheels it depends "
        "on (nvidia-cublas-cu11/cu12 and the others) and found none on sys.path: they were not installed "
        "with this torch. Most often a lock file (poetry, pdm, pipenv) resolved torch 2.0.1 or 2.1.0, whose "
        "PyPI metadata gave lockers no nvidia-* dependencies; or they sit in another environment.",
        fix=Fix(
            "Reinstall torch with pip in this environment so its nvidia-* wheels come with it (pip install "
            "--force-reinstall torch==<its version>); under poetry or pdm pin torch away from the releases "
            'that lost them (torch = ">=2.0.0, !=2.0.1, !=2.1.0") or add the nvidia-* wheels of the '
            "installed torch (nvidia-cublas-cu12 and the others pip lists for it) explicitly.",
            ("pip list 2>/dev/null | grep -i nvidia", "pip install --force-reinstall torch"),
        ),
        check="torch.build",
    )


_CUDNN_RELEASE = re.compile(r"libcudnn\w*\.so\.(\d{1,2})|cudnn\w*64_(\d{1,2})\.dll", re.IGNORECASE)


def _with_cudnn_release(analysis: Analysis, name: str | None) -> Analysis:
    """A missing cuDNN names its major release: where no torch wheel brings it, that release is to install."""
    found = _CUDNN_RELEASE.search(name or "")
    if found is None or analysis.fix is None:
        return analysis
    major = found[1] or found[2]
    fix = Fix(
        f"{analysis.fix.text} The file is cuDNN {major}'s: to install cuDNN {major} outside pip, use the "
        f"distribution's package (libcudnn{major}) or conda install -c conda-forge cudnn={major}.",
        analysis.fix.commands,
    )
    return replace(analysis, fix=fix)


def _missing_library_name(text: str) -> str | None:
    """The library the last loader message names: just before ': cannot open shared object file', just
    after the other messages."""
    match = last_match(_LOADER, text)
    if match is None:
        return None
    if match[0].startswith(":"):
        name = _LIBRARY_NAME.search(text[max(0, match.start() - 200) : match.start()])
        return name[1].rsplit("/", 1)[-1] if name else None
    after = re.match(r"[^\",}\n]{1,260}", text[match.end() : match.end() + 260])
    # "cudnn_ops_infer64_8.dll. Error code 126": the name ends where its sentence does
    return after[0].split(". ")[0].strip().rstrip(".").rsplit("\\", 1)[-1] if after else None


# The file CTranslate2 (or cuDNN's loader) names, and the release it belongs to: cuBLAS of CUDA 11 or 12
# (cublas64_12.dll, cublasLt64_11.dll, libcublas.so.12), or cuDNN 8 or 9 (cudnn_ops_infer64_8.dll,
# cudnn_ops64_9.dll, libcudnn_ops.so.9).
_CT2_LIBRARY = re.compile(
    r"(?:Library |Could not locate )(\S{0,40}?(?:(cublas\w{0,4})64_(\d{2})\.dll"
    r"|lib(cublas\w{0,4})\.so\.(\d{2})|(cudnn\w{0,20})64_(\d)\.dll|lib(cudnn\w{0,20})\.so\.(\d)))",
    re.IGNORECASE,
)
_CT2_BUILDS = {
    ("CUDA", "11"): "ctranslate2 3.x, built against CUDA 11 (its CUDA 12 builds are 4.0 and newer)",
    ("CUDA", "12"): "ctranslate2 4.0 or newer, built against CUDA 12 (3.24.0 is the CUDA 11 build)",
    ("cuDNN", "8"): "ctranslate2 4.4 or older, built against cuDNN 8 (4.5 and newer use cuDNN 9)",
    ("cuDNN", "9"): "ctranslate2 4.5 or newer, built against cuDNN 9 (4.4.0 is the cuDNN 8 build)",
}


def analyse_ctranslate2_libraries(text: str) -> Analysis:
    """The release of the library CTranslate2 could not load, and the ctranslate2 build that asks for it."""
    found = last_match(_CT2_LIBRARY, text[-200_000:])
    if found is None:
        return Analysis()
    name = found[1]
    cublas = found[3] or found[5]
    kind, release = ("CUDA", cublas) if cublas else ("cuDNN", found[7] or found[9])
    build = _CT2_BUILDS.get((kind, release))
    if build is None:
        return Analysis(evidence=(f"missing: {name}",))
    what = f"CUDA {release}'s cuBLAS" if kind == "CUDA" else f"cuDNN {release}"
    return Analysis(
        evidence=(f"missing: {name}, the file of {what}",),
        cause=f"{name} is {what}: the installed build is {build}, and the machine has no {what} where the "
        "loader looks (a CUDA version mismatch between the build and the libraries installed).",
    )


_TORCH_ABI = re.compile(r"_ZNK?(?:3c10|2at|5torch|6caffe2)")


# Another torch's libraries where the loader looks before the rpath of the installed torch's: a libtorch
# folder, a source build's or an application's bundled torch libraries, on an LD_LIBRARY_PATH line of the text
# (its value, or the writer's words: "add libtorch/lib to $LD_LIBRARY_PATH"); or a library that failed from
# a libtorch folder. The environment's own site-packages/torch/lib is torch's own.
_LOADER_PATH_LINE = re.compile(r"^[^\n]{0,400}LD_LIBRARY_PATH[^\n]{0,400}$", re.MULTILINE)
_OTHER_TORCH_LIBRARIES = re.compile(
    r"\blibtorch\b|caffe2/build/lib\b|/lib/pytorch\b|\bpytorch/(?:torch|build)/lib\b", re.IGNORECASE
)
_LIBTORCH_FOLDER = re.compile(r"/libtorch[\w.+-]{0,40}/lib/", re.IGNORECASE)
_SHADOWING_TORCH = Analysis(
    cause="LD_LIBRARY_PATH holds another torch's libraries (a libtorch folder, a source build's or an "
    "application's own copy): the loader searches it before the installed torch's own folder, so torch or an "
    "extension built against it gets libraries of another release, which lack the functions it calls.",
    fix=Fix(
        "Take that folder off LD_LIBRARY_PATH in the shell (or service, or container) that runs Python: "
        "unset LD_LIBRARY_PATH to check, then set it without that folder. Give it only to the C++ program "
        "that needs it (LD_LIBRARY_PATH=<folder> ./program, or an rpath at link time), not to the "
        "environment.",
        ("echo $LD_LIBRARY_PATH",),
    ),
)


def _another_torch_on_the_loader_path(tail: str, failed: str) -> str | None:
    """The text's words for another torch's libraries on the loader's path; None where it shows none."""
    if _LIBTORCH_FOLDER.search(failed) and installed_package(failed) is None:
        return f"{failed} is in a libtorch folder, not the installed torch's"
    for line in islice(_LOADER_PATH_LINE.finditer(tail), 40):
        if _OTHER_TORCH_LIBRARIES.search(line[0]) is not None:
            return (
                f"LD_LIBRARY_PATH holds another torch's libraries: {clipped(' '.join(line[0].split()), 160)}"
            )
    return None


def analyse_undefined_symbol(text: str) -> Analysis:
    match = _last(
        r"undefined symbol:\s{1,8}([^\s,]{1,300})(?:,?\s{1,4}version\s([^\s,]{1,100}))?"
        r"|Symbol not found: ([^\s,]{1,300})"
        r"|symbol ([^\s,]{1,300}),? version ([^\s,]{1,100}) not defined in file",
        text,
    )
    if match is None:
        return _procedure_not_found(text)
    symbol = (match[1] or match[3] or match[4]).strip(_QUOTES_AROUND)
    owner = (match[2] or match[5] or "").strip(_QUOTES_AROUND)
    library = _LIBRARY_NAME.search(text[max(0, match.start() - 300) : match.start()])
    if library and "libbitsandbytes_cpu" in library[1]:
        # bitsandbytes printing its own probe of the CPU library it loaded: bitsandbytes.cpu_library's
        return Analysis(declined=True)
    where = "/".join(library[1].split("/")[-2:]) if library else ""
    evidence = [f"{where + ' needs ' if where else ''}the symbol {symbol}"]
    shadowed = _another_torch_on_the_loader_path(text[-200_000:], library[1] if library else "")
    if shadowed is not None:
        return Analysis(
            evidence=(*evidence, shadowed), cause=_SHADOWING_TORCH.cause, fix=_SHADOWING_TORCH.fix
        )
    outside = _symbol_from_outside_torch(evidence, where, symbol)
    if outside is not None:
        return outside
    if "RKSs" in symbol:
        evidence.append(
            "the symbol is mangled with the pre-C++11 std::string ABI: if torch.compiled_with_cxx11_abi() is "
            "True, the library was built for the other ABI"
        )
    nvcc_release = _NVCC_RUNTIME_SYMBOLS.get(symbol)
    if nvcc_release is not None:
        return _newer_nvcc_than_runtime(evidence, where, symbol, nvcc_release)
    if owner and _CUDA_LIBRARY.fullmatch(owner):
        return _older_cuda_library(evidence, where, symbol, owner)
    companion = _companion_of(where, symbol, text)
    if companion is not None:
        return _companion_symbol(evidence, companion, text)
    package = _package_of(library[1] if library else "", text[max(0, match.start() - 300) : match.start()])
    if symbol.startswith("THP"):
        return _python_bindings_unlinked(evidence, text, package)
    if package is not None and (_TORCH_ABI.search(symbol) or symbol.startswith("_ZTIN3c10")):
        return Analysis(
            evidence=tuple(evidence),
            cause=(
                f"The {_named_for_pip(package)} build does not match the installed torch (a version "
                "mismatch): its compiled module was built against another torch or CUDA release and calls "
                "torch's functions by C++ names this torch does not have."
            ),
            fix=_package_reinstall(package),
        )
    return Analysis(evidence=tuple(evidence), fix=_undefined_symbol_fix(where, symbol))


# A symbol quoted in prose ("an `undefined symbol: X` error", "'undefined symbol: X'.") ends at its quotes.
_QUOTES_AROUND = "`'\".;:)"
# Functions torch's own libraries take from a library outside torch that the environment supplies. MKL's
# iJIT_NotifyEvent: conda's torch builds link the environment's mkl, and MKL 2024.1 no longer has it
# (pytorch/pytorch#123097); pip's wheels carry MKL inside libtorch_cpu.so (nm -D: its mkl_ functions defined,
# no libmkl needed). NCCL's: libtorch_cuda.so links libnccl.so.2, which the nvidia-nccl wheel (or a system
# NCCL found first) supplies.
_MKL_CAUSE = (
    "torch's libtorch_cpu.so calls iJIT_NotifyEvent, a function of Intel's MKL, which torch's conda builds "
    "take from the environment's mkl package: MKL 2024.1 no longer has it, so a conda environment that "
    "resolved mkl 2024.1 (an environment file that does not pin mkl, a later install or update) breaks "
    "import torch."
)
_MKL_FIX = Fix(
    "Pin mkl at 2024.0 in that environment: conda install mkl==2024.0, or mkl=2024.0 in the environment "
    "file (environment.yml) before creating the environment again. pip's torch wheels carry MKL inside "
    "libtorch_cpu.so and do not need the package.",
    ("conda install mkl==2024.0", "conda list mkl"),
)
_NCCL_CAUSE = (
    "torch's libtorch_cuda.so calls an NCCL function that the libnccl.so.2 it loaded does not have: an "
    "older NCCL than torch was built with was found first, from a stale nvidia-nccl wheel (one of another "
    "CUDA major left beside torch's, nvidia-nccl-cu11 next to nvidia-nccl-cu12) or a system NCCL on "
    "LD_LIBRARY_PATH."
)
_NCCL_FIX = Fix(
    "Keep only the nvidia-nccl wheel torch asks for (pip show torch lists it under Requires): uninstall the "
    "others, take any NCCL directory off LD_LIBRARY_PATH, then reinstall torch so that its NCCL wheel "
    "matches it.",
    (
        "pip list 2>/dev/null | grep -i nvidia-nccl",
        "echo $LD_LIBRARY_PATH",
        "pip install --force-reinstall torch",
    ),
)


def _torchs_library(path: str) -> bool:
    """Whether the library file ``path`` (a name, or a path to it) is one of torch's own."""
    return path.rsplit("/", 1)[-1].startswith(("libtorch", "libc10"))


def _symbol_from_outside_torch(evidence: list[str], where: str, symbol: str) -> Analysis | None:
    """A symbol torch's own library (or an unnamed one) needs from MKL or NCCL: that library's release."""
    if where and not _torchs_library(where):
        return None
    if symbol.startswith("iJIT_"):
        owner, cause, fix = "Intel MKL's", _MKL_CAUSE, _MKL_FIX
    elif symbol.startswith("nccl"):
        owner, cause, fix = "NCCL's", _NCCL_CAUSE, _NCCL_FIX
    else:
        return None
    evidence[0] += f", which is {owner}, not torch's"
    return Analysis(evidence=tuple(evidence), cause=cause, fix=fix)


# torch's Python bindings (THPVariableClass, THPVariable_Wrap, ...) are in libtorch_python.so; a CMake build
# is the one that has to link it by hand (torch's CppExtension and CUDAExtension link torch_python).
_CMAKE_SAID = re.compile(r"\bcmake\b|CMakeLists\.txt", re.IGNORECASE)
_THP_CAUSE = (
    "THP symbols (THPVariableClass and the like) are torch's Python bindings, in libtorch_python.so, which "
    "every torch has: the extension was loaded without that library, imported before torch (import torch "
    "loads it), or built without linking it (a CMake build that links TORCH_LIBRARIES only, or an extension "
    "built for a torch before 1.5, which still loaded it for every module)."
)
_THP_STOPGAP = (
    "TORCH_USE_RTLD_GLOBAL=YES (in the environment of the program) makes torch load its libraries for every "
    "module, a stopgap."
)


def _python_bindings_unlinked(evidence: list[str], text: str, package: str | None) -> Analysis:
    """A THP symbol missing: libtorch_python.so not loaded or not linked; a CMake build the text shows leads
    with the link."""
    link = (
        "link the module against libtorch_python.so, target_link_libraries(<module> "
        '"${TORCH_INSTALL_PREFIX}/lib/libtorch_python.so") in its CMakeLists.txt, then rebuild'
    )
    if _CMAKE_SAID.search(text) is not None:
        fix = f"L{link[1:]}, and import torch before the module. {_THP_STOPGAP}"
    else:
        rebuild = (
            _package_reinstall(package).text
            if package is not None
            else "Rebuild the extension against the installed torch from a clean build folder (rm -rf build, "
            "then pip install --no-build-isolation .; torch's CppExtension and CUDAExtension link "
            "libtorch_python)."
        )
        fix = (
            f"Import torch before the extension. Where it still fails: {rebuild} For a CMake build: {link}. "
            + _THP_STOPGAP
        )
    return Analysis(evidence=tuple(evidence), cause=_THP_CAUSE, fix=Fix(fix))


# CUDA's libraries as a symbol's version tag names them ("version libcudart.so.12", "version libcudart").
_CUDA_LIBRARIES = (
    r"lib(?:cudart|cublas(?:Lt)?|cudnn\w{0,20}|nvrtc|cusparse(?:Lt)?|cufft|curand|cusolver|nvJitLink|nccl"
    r"|cupti)"
)
_CUDA_LIBRARY = re.compile(rf"{_CUDA_LIBRARIES}(?:\.so[\d.]{{0,12}})?")
# A CUDA library's file (libcublas.so.11, libcusparse.so.12, the driver's libcuda.so), which carries its own
# fix for a missing symbol; not a package's library whose name begins alike (cuEquivariance's libcue_ops.so).
_CUDA_LIBRARY_FILE = re.compile(rf"(?:{_CUDA_LIBRARIES}|lib(?:cufile|cutensor|cuda))\.so")


def _older_cuda_library(evidence: list[str], where: str, symbol: str, owner: str) -> Analysis:
    """ld.so names the library a symbol is expected from by its version tag: the copy of it that loaded is
    of another release (most often older) than the one the failing library was built against. A package's
    own library (not CUDA's, not torch's) may need a newer one than torch's own copy."""
    stem = owner.split(".so")[0]
    fix = _undefined_symbol_fix(where, symbol) if _CUDA_LIBRARY_FILE.search(where) else None
    evidence = [
        *evidence,
        f"{symbol} is expected from {owner} (the symbol's version tag): the {owner} loaded lacks it",
    ]
    cause = (
        f"Two CUDA releases are mixed: {where or 'the library'} was built against another release of "
        f"{owner} than the one that loaded, most often an older copy found first: a system CUDA toolkit "
        "or another CUDA directory on LD_LIBRARY_PATH, a conda cudatoolkit, or a CUDA runtime that "
        "another package or application bundles."
    )
    if fix is None and not _torchs_library(where):
        return Analysis(
            evidence=tuple(evidence),
            cause=(
                f"{cause} Or the copy that loaded is torch's own (the nvidia-* wheel torch pins, loaded "
                f"with torch), older than the {stem} release {where or 'a package'} was built against: one "
                "process holds one copy of each CUDA library."
            ),
            fix=Fix(
                "Make the releases agree: install the release of the package built for the CUDA torch "
                "brings (an older release of it, or its build for torch's CUDA), or a torch built for a "
                "newer CUDA release whose libraries have the function; where another CUDA is on "
                "LD_LIBRARY_PATH, take it off.",
                (
                    'python -c "import torch; print(torch.version.cuda)"',
                    "pip list 2>/dev/null | grep -i nvidia",
                    "echo $LD_LIBRARY_PATH",
                ),
            ),
        )
    return Analysis(
        evidence=tuple(evidence),
        cause=cause,
        fix=fix
        or Fix(
            f"Find which {stem} loads and where it comes from (ldd on the failing library | grep {stem}; "
            "echo $LD_LIBRARY_PATH; conda list cudatoolkit): take that CUDA off LD_LIBRARY_PATH (or unset "
            "it), remove a conda cudatoolkit of another release from the environment or install the one "
            "torch was built for, or replace a bundled old copy with a current one, so that the copy of "
            "torch's own CUDA release (its nvidia-* wheel) loads.",
            ("echo $LD_LIBRARY_PATH", "pip list 2>/dev/null | grep -i nvidia"),
        ),
    )


# Python's "DLL load failed" with Windows' error 127 (the specified procedure could not be found): a compiled
# module found, but not a function it calls in a DLL it links.
_DLL_PROCEDURE = re.compile(
    r"DLL load failed(?: while importing ?(\w{1,80}))?: ?(?:The specified procedure could not be found"
    r"|找不到\s{0,3}指定的程序)",
    re.IGNORECASE,
)


def _procedure_not_found(text: str) -> Analysis:
    """Windows' words for an undefined symbol: the module, and the package whose folder the traceback
    shows."""
    tail = text[-200_000:]
    found = last_match(_DLL_PROCEDURE, tail)
    if found is None:
        return Analysis()
    module = found[1] or "a compiled module"
    line = (
        f"Windows loaded {module} but not a function it calls (error 127, the specified procedure could "
        "not be found): Windows' words for an undefined symbol"
    )
    package = _package_of(found[1] or "", tail)
    if package is None:
        return Analysis(evidence=(line,))
    pip = _pip_name(package)
    fix = Fix(
        f"{package} was built against other releases of the DLLs it loads (for a torch extension: another "
        f"torch, CUDA or Python than the ones installed): install the {pip} build made for the installed "
        f"releases (pip uninstall -y {pip}; pip install {pip} --no-cache-dir, with --no-build-isolation "
        "where it compiles against torch), or the prebuilt wheel whose name matches them (torch, cuXYZ, "
        f"cp3XX). {_TORCH_TO_THE_BUILD.format(pip)}"
    )
    return Analysis(evidence=(line,), fix=fix)


# Functions of the CUDA runtime that the host code nvcc generates calls from a given CUDA release on (clang
# does the same from 9.2 and 10.1: clang/lib/Basic/Cuda.cpp, CUDA_USES_NEW_LAUNCH and
# CUDA_USES_FATBIN_REGISTER_END); a runtime older than the compiler lacks them.
_NVCC_RUNTIME_SYMBOLS = {
    "__cudaPushCallConfiguration": "CUDA 9.2",
    "__cudaPopCallConfiguration": "CUDA 9.2",
    "__cudaRegisterFatBinaryEnd": "CUDA 10",
}


def _newer_nvcc_than_runtime(evidence: list[str], where: str, symbol: str, release: str) -> Analysis:
    built = where or "the extension"
    return Analysis(
        evidence=(*evidence, f"nvcc of {release} and later generates calls to {symbol}"),
        cause=(
            f"{built} was compiled by nvcc of {release} or later, but the CUDA runtime loaded with it is "
            "older and has no such function: a CUDA version mismatch between the toolkit that built the "
            "extension (the nvcc on PATH or under CUDA_HOME, or one a Makefile names) and the CUDA torch was "
            "built with."
        ),
        fix=Fix(
            "Rebuild the extension with the CUDA toolkit whose release matches torch.version.cuda "
            "(CUDA_HOME and PATH pointing to /usr/local/cuda-<that release>, and no nvcc path hard-coded in "
            "a Makefile or make.sh), after deleting what the old build left (its .so files and build/ "
            "folder); or install a torch built for the toolkit the machine has.",
            ('python -c "import torch; print(torch.version.cuda)"', "nvcc --version", "which nvcc"),
        ),
    )


# The package a compiled module belongs to: its folder under site-packages ("site-packages/torch_scatter/
# _version_cuda.so", a path the terminal may have broken over two lines), or, for a module installed at the
# top level, the package that installs it (flash-attn's flash_attn_2_cuda).
_PACKAGE_FOLDER = re.compile(r"(?:site|dist)-packages[/\\](\w{1,60})[/\\]")
_TOP_LEVEL_MODULES = {
    "flash_attn_2_cuda": "flash_attn",
    "flash_attn_cuda": "flash_attn",
    "selective_scan_cuda": "mamba_ssm",
    "causal_conv1d_cuda": "causal_conv1d",
    "amp_C": "apex",
    "fused_layer_norm_cuda": "apex",
}
_NOT_A_PACKAGE = frozenset({"torch", "nvidia", "torchvision", "torchaudio", "torchtext"})
_EXTENSION_PIP_NAMES = {
    "flash_attn": "flash-attn",
    "fast_transformers": "pytorch-fast-transformers",
    "mmcv": "mmcv-full",
}
_PYG_PACKAGES = frozenset({"torch_scatter", "torch_sparse", "torch_cluster", "torch_spline_conv", "pyg_lib"})


def _package_of(library: str, before: str) -> str | None:
    """The Python package whose compiled module ``library`` is, from its path or the text just before it."""
    module = library.replace("\\", "/").rsplit("/", 1)[-1].split(".", 1)[0]
    folders = [*_PACKAGE_FOLDER.findall(library), _TOP_LEVEL_MODULES.get(module)]
    folders += reversed(_PACKAGE_FOLDER.findall(before))
    return next((f for f in folders if f and f not in _NOT_A_PACKAGE), None)


def _pip_name(package: str) -> str:
    """The name pip installs ``package`` (an import name) under."""
    return _EXTENSION_PIP_NAMES.get(package, package.replace("_", "-"))


def _named_for_pip(package: str) -> str:
    """A package as pip knows it, with the name it is imported by where the two differ."""
    pip = _pip_name(package)
    return pip if pip.replace("-", "_") == package else f"{pip} ({package})"


def _package_reinstall(package: str) -> Fix:
    pip = _pip_name(package)
    if package in _PYG_PACKAGES:
        return Fix(
            f"Install the {package} wheel made for the installed torch and its CUDA, from PyG's index: pip "
            f"uninstall -y {pip}; pip install {pip} -f https://data.pyg.org/whl/torch-<torch version>+<cuda "
            'tag>.html (python -c "import torch; print(torch.__version__)" prints both, e.g. 2.1.0+cu121). '
            + _TORCH_TO_THE_BUILD.format(pip)
        )
    if package == "mmcv":
        return Fix(
            "Install the mmcv build made for the installed torch and its CUDA, from OpenMMLab's index: pip "
            "uninstall -y mmcv-full mmcv; pip cache remove 'mmcv*'; pip install mmcv-full -f "
            "https://download.openmmlab.com/mmcv/dist/<cuda tag>/torch<torch version>/index.html (mim "
            "install mmcv-full picks it; mmcv 2.x is the package mmcv), then rebuild what was compiled "
            "against it (pip install -e . in mmdet3d, mmrotate...). " + _TORCH_TO_THE_BUILD.format("mmcv")
        )
    return Fix(
        f"Rebuild {pip} against the installed torch: pip uninstall -y {pip}; pip install {pip} "
        "--no-build-isolation --no-cache-dir (it builds against the torch already installed; "
        "--no-cache-dir keeps pip from reusing a wheel built for another torch), or install its prebuilt "
        "wheel made for this torch, CUDA and Python. " + _TORCH_TO_THE_BUILD.format(pip)
    )


# The other way round: torch moved to the release a prebuilt extension was made for, which is what users of
# an extension whose builds stop at another torch do (pytorch_scatter#186: torch 1.4 to 1.7; KNN_CUDA#2).
_TORCH_TO_THE_BUILD = (
    "Or the other way round: keep {} and install the torch release it was built for (its wheel's name, its "
    "release notes or its requirements say which), with the companions of that release."
)


_COMPANIONS = ("torchvision", "torchaudio", "torchtext")
_COMPANION_NAMED = re.compile(r"\b(torchvision|torchaudio|torchtext)\b", re.IGNORECASE)


def _companion_of(library: str, symbol: str, text: str) -> str | None:
    """The companion package whose library needs the symbol: named by the library's path, or, for a symbol
    of torch's own, by the text (the last companion it names)."""
    for companion in _COMPANIONS:
        if companion in library.lower():
            return companion
    if library and not library.rsplit("/", 1)[-1].startswith("lib"):
        return None
    if not (_TORCH_ABI.search(symbol) or symbol.startswith(("THP", "_torch", "torch_", "aoti_torch"))):
        return None
    named = last_match(_COMPANION_NAMED, text[-200_000:])
    return named[1].lower() if named else None


def _companion_symbol(evidence: list[str], companion: str, text: str) -> Analysis:
    """A companion built for another torch release: the release of it that pairs with the torch the text
    states (pip's torch==, a TORCH_VERSION, collect_env), with its install command."""
    torch_version = versions_said(text).get("torch")
    row = pairing.row_for(torch_version) if torch_version else None
    paired = getattr(row, companion, None) if row is not None else None
    if torch_version is None or not isinstance(paired, str):
        return Analysis(
            evidence=tuple(evidence),
            fix=Fix(
                f"{companion} was built for another torch release: install the {companion} release that "
                "pairs with the installed torch, from the same index as torch (torchdoctor check --only "
                "torch.stack names it).",
            ),
        )
    evidence.append(f"torch {torch_version} pairs with {companion} {paired}")
    return Analysis(
        evidence=tuple(evidence),
        fix=Fix(
            f"{companion} was built for another torch release: install the {companion} release that pairs "
            f"with torch {torch_version} ({companion} {paired}), from the same index as torch, and pin it "
            "there so that a later install does not move it again.",
            (companions_judge.install_command(companion, paired, torch_version),),
        ),
    )


def _undefined_symbol_fix(library: str, symbol: str) -> Fix | None:
    if symbol.startswith("cublasLt") and "libcublas" in library:
        return Fix(
            "libcublas and libcublasLt come from different cuBLAS releases: the libcublas.so of torch's "
            "nvidia-cublas wheel loaded a libcublasLt.so found first on LD_LIBRARY_PATH (a system or conda "
            "CUDA), or a second nvidia-cublas wheel replaced one half. Take the CUDA directories off "
            "LD_LIBRARY_PATH (or put the wheel's lib folder first: nvidia/cublas/lib, nvidia/cu13/lib with "
            "CUDA 13's wheels), and install the nvidia-cublas release torch asks for (pip show torch lists "
            "it under Requires).",
            (
                "echo $LD_LIBRARY_PATH",
                "pip list 2>/dev/null | grep -i nvidia-cublas",
                "pip install --force-reinstall torch",
            ),
        )
    if "nvJitLink" in symbol or _CUDA_LIBRARY_FILE.search(library):
        return Fix(
            "Two CUDA releases are mixed: a CUDA library found through LD_LIBRARY_PATH (or an older "
            "nvidia-* wheel, or a conda cudatoolkit of another release) is loaded instead of the one torch "
            "came with. Remove the CUDA directories from LD_LIBRARY_PATH (and that cudatoolkit from the "
            "conda environment, or install the one torch was built for), or reinstall torch so that its "
            "nvidia-* wheels match.",
            ("echo $LD_LIBRARY_PATH", "pip list 2>/dev/null | grep -i nvidia"),
        )
    if _torchs_library(library):
        return Fix("torch's own libraries do not match each other: reinstall torch in a clean environment.")
    if _TORCH_ABI.search(symbol) or symbol.startswith(("THP", "_torch", "aoti_torch")):
        return Fix(
            "A compiled extension or companion package was built against another torch release (or the "
            "other C++ ABI): rebuild it against the installed torch (pip install --no-build-isolation "
            "--force-reinstall <package>), or install the torch release it was built for."
        )
    return None


def analyse_companion(text: str) -> Analysis:
    evidence: list[str] = []
    cause = None
    backend = _last(r"Could not run '(torch\w+)::\w+' with arguments from the '(\w+)' backend", text)
    if backend is not None:
        cause = (
            f"{backend[1]} has no {backend[2]} kernels: a CPU-only {backend[1]} was installed next to a "
            f"{backend[2]} build of torch (or one built for another torch)."
        )
        evidence.append(f"{backend[1]} has no {backend[2]} kernel for its operators")
    seen = versions_said(text)
    torch_version = seen.get("torch")
    row = pairing.row_for(torch_version) if torch_version else None
    if torch_version is None or row is None or row.torchvision is None:
        return Analysis(evidence=tuple(evidence), cause=cause)
    evidence.append(f"torch {torch_version} pairs with torchvision {row.torchvision}")
    installed = seen.get("torchvision")
    if installed:
        made_for = pairing.pair("torchvision", installed, torch_version).made_for
        evidence.append(f"torchvision {installed} is made for {made_for or 'another torch'}")
    command = companions_judge.install_command("torchvision", row.torchvision, torch_version)
    fix = Fix(
        f"Install the torchvision release that pairs with torch {torch_version}, from the same index.",
        (command,),
    )
    return Analysis(evidence=tuple(evidence), cause=cause, fix=fix)


# torchvision/extension.py: "PyTorch has CUDA Version=12.4 and torchvision has CUDA Version=11.8";
# torchaudio/_extension/utils.py: "PyTorch has CUDA version 11.7 whereas TorchAudio has CUDA version 11.8".
_COMPANION_CUDA = re.compile(
    r"PyTorch\s{1,8}has\s{1,8}CUDA\s{1,8}Version\s{0,8}[= ]\s{0,8}(\d{1,2})\.(\d{1,2})\s{1,8}"
    r"(?:and|whereas)\s{1,8}(torchvision|TorchAudio)\s{1,8}has\s{1,8}CUDA\s{1,8}Version\s{0,8}[= ]\s{0,8}"
    r"(\d{1,2})\.(\d{1,2})",
    re.IGNORECASE,
)


def analyse_companion_cuda(text: str) -> Analysis:
    """The two CUDA releases the message gives, and the one index for all three packages: torch's own."""
    found = last_match(_COMPANION_CUDA, text[-200_000:])
    if found is None:
        return Analysis()
    torch_cuda, companion, other = f"{found[1]}.{found[2]}", found[3], f"{found[4]}.{found[5]}"
    name = "torchvision" if companion.lower() == "torchvision" else "torchaudio"
    ours_index, theirs_index = cuda_compat.wheel_index_url(torch_cuda), cuda_compat.wheel_index_url(other)
    ours, theirs = ours_index.rpartition("/")[2], theirs_index.rpartition("/")[2]
    return Analysis(
        evidence=(
            f"PyTorch has CUDA Version={torch_cuda} and {name} has CUDA Version={other}",
            f"torch is a {ours} build, {name} a {theirs} build",
        ),
        fix=Fix(
            f"Reinstall torch, torchvision and torchaudio in one command from one index, so that they "
            f"share one CUDA: from {ours} to keep torch's CUDA {torch_cuda}, or from {theirs} to move torch "
            f"to CUDA {other}. Pin the {name} release that pairs with the torch release (torchdoctor check "
            "--only torch.stack names it).",
            (
                f"pip install --force-reinstall torch torchvision torchaudio --index-url {ours_index}",
                f"pip install --force-reinstall torch torchvision torchaudio --index-url {theirs_index}",
            ),
        ),
    )


# xformers/_cpp_lib.py: "xFormers was built for:\n    PyTorch 2.3.0+cu121 with CUDA 1201 (you have
# 2.1.0+cu121)"
_XFORMERS_BUILT = re.compile(
    r"PyTorch\s{1,4}(\S{1,40})\s{1,4}with\s{1,4}CUDA\s{1,4}\d{1,6}\s{1,4}\(you have\s{1,4}([^)\s]{1,40})\)"
)
_XFORMERS_NOT_BUILT = re.compile(r"xFormers wasn't build with CUDA support|xFormers can't load C\+\+/CUDA")
_XFORMERS_ON_CPU = re.compile(r"device=cpu \(supported: \{'cuda'\}\)")


def analyse_xformers(text: str) -> Analysis:
    """The torch the wheel was built for and the one installed; tensors on the CPU told apart."""
    tail = text[-200_000:]
    built = last_match(_XFORMERS_BUILT, tail)
    if built is not None:
        return Analysis(
            evidence=(f"xformers was built for PyTorch {built[1]}; the installed torch is {built[2]}",)
        )
    if last_match(_XFORMERS_NOT_BUILT, tail) is None and last_match(_XFORMERS_ON_CPU, tail) is not None:
        return Analysis(
            evidence=("every operator refuses device=cpu: the tensors are on the CPU",),
            cause=(
                "xformers' memory-efficient attention runs only on CUDA tensors, and the query, key and "
                "value are on the CPU: the model (or its input) was not moved to the GPU, or CUDA is not "
                "available."
            ),
            fix=Fix(
                "Move the model and its inputs to the GPU (model.to('cuda')), check "
                "torch.cuda.is_available(), or turn xformers off when running on the CPU."
            ),
        )
    return Analysis()


_ORDER_TOLD = re.compile(
    r"\bimport(?:ing|ed)?\s{1,3}([\w.-]{1,40})\s{1,3}(before|after)\s{1,3}(?:importing\s{1,3})?(?:py)?torch\b"
    r"|\bif\s{1,3}([\w.-]{1,40})\s{1,3}is\s{1,3}imported\s{1,3}(before|after)\s{1,3}(?:py)?torch\b"
    r"|\bimporting\s{1,3}(?:first\s{1,3})?(?:py)?torch\b[^\n]{0,30}?\bthen\s{1,3}([\w.-]{1,40})",
    re.IGNORECASE,
)


def analyse_import_order(text: str) -> Analysis:
    """The order that crashes, as the text tells it, and the one to use."""
    told = last_match(_ORDER_TOLD, text[-200_000:])
    if told is None:
        return Analysis()
    other = told[1] or told[3] or told[5]
    first = "torch" if (told[2] or told[4] or "after").lower() == "after" else other
    if first == other:
        evidence = f"the text says importing {other} before torch crashes"
        fix = f"Import torch first, then {other} ({other} after torch), in every module of the program."
    else:
        evidence = f"the text says importing {other} after torch crashes"
        fix = f"Import {other} before torch, in every module of the program (the entry script first)."
    return Analysis(
        evidence=(evidence,), fix=Fix(fix + " Or upgrade one of them to a release that does not clash.")
    )


# onnxruntime 1.19 on says which majors it needs: "Require cuDNN 9.* and CUDA 12.*".
_ORT_REQUIRES = re.compile(r"Require cuDNN (\d{1,2})\.\* and CUDA (\d{1,2})\.\*", re.IGNORECASE)


def analyse_onnxruntime_provider(text: str) -> Analysis:
    """The CUDA and cuDNN majors the message says this onnxruntime-gpu needs."""
    return quoted(
        _ORT_REQUIRES,
        text,
        lambda m: f"this onnxruntime-gpu needs CUDA {m[2]}.x and cuDNN {m[1]}.x (its message)",
    )


_CLASHING_IMPORT = re.compile(
    r"(?m)^[ \t>]{0,8}(?:import|from)[ \t]{1,3}(decord|open3d|cv2|tensorflow|pyarrow)\b"
)
_TORCH_IMPORT = re.compile(r"(?m)^[ \t>]{0,8}(?:import|from)[ \t]{1,3}torch\w{0,6}\b")


def analyse_segfault(text: str) -> Analysis:
    """A package known to clash with torch imported before it, where the text's code shows both imports."""
    window = text[-200_000:]
    clashing, torch_import = _CLASHING_IMPORT.search(window), _TORCH_IMPORT.search(window)
    if clashing is None or torch_import is None or clashing.start() > torch_import.start():
        return Analysis()
    package = clashing[1]
    return Analysis(
        evidence=(f"the code imports {package} before torch",),
        fix=Fix(
            f"Import torch first, before {package}, in every module of the program (the entry script first); "
            "python -X faulthandler shows the line if it still crashes."
        ),
    )


# NumPy's C-API version (NPY_API_VERSION) -> the NumPy release that introduced it. Source:
# numpy/_core/code_generators/cversions.txt of numpy/numpy at 00be3ef9459634aaf074c450008857bdf131b151
# ("Version 7 (NumPy 1.7)", "Version 8 Added interface to MapIterObject" with no release of its own,
# "Version 9 (NumPy 1.8)", ... "Version 22 (NumPy 2.5.0)"). 0x8 names no release: a module built for it needs
# the first release with a later API, NumPy 1.8.
_NUMPY_API = {
    6: "1.6",
    7: "1.7",
    9: "1.8",
    10: "1.10",
    11: "1.13",
    12: "1.14",
    13: "1.16",
    14: "1.20",
    15: "1.22",
    16: "1.23",
    17: "1.25",
    18: "2.0",
    19: "2.1",
    20: "2.3",
    21: "2.4",
    22: "2.5",
}


def numpy_for_api(api: int) -> str | None:
    """The first NumPy release whose C-API is at least ``api``."""
    return next((_NUMPY_API[v] for v in sorted(_NUMPY_API) if v >= api), None)


def analyse_numpy(text: str) -> Analysis:
    api = _last(
        r"module compiled against API version 0x([0-9a-f]+) but this version of numpy is 0x([0-9a-f]+)", text
    )
    if api is not None:
        return _numpy_too_old(int(api[1], 16), int(api[2], 16))
    two = _last(r"compiled using NumPy 1\.x cannot be run in\s+NumPy (\d+\.\d+\.\d+)", text)
    if two is not None or _last(r"_ARRAY_API not found", text) is not None:
        version = f" {two[1]}" if two else ""
        return Analysis(
            evidence=(
                f"NumPy{version or ' 2'} is installed; a module in the traceback was built for NumPy 1.x",
            ),
            fix=Fix(
                f"Install NumPy 1.x next to this torch (torch {builds.first_for_numpy_2('linux')} and later "
                f"({builds.first_for_numpy_2('windows')} and later on Windows) are built for NumPy 2, so "
                "upgrading torch and the packages compiled against NumPy also works).",
                ('pip install "numpy<2"',),
            ),
        )
    if _last(r"No module named 'numpy'", text) is not None:
        return Analysis(
            evidence=("NumPy is not installed in this environment",),
            fix=Fix("Install NumPy in the environment torch runs in.", ("pip install numpy",)),
        )
    return Analysis()


def _numpy_too_old(built: int, installed: int) -> Analysis:
    needs = numpy_for_api(built)
    has = _NUMPY_API.get(installed)
    evidence = (
        f"a module was compiled for NumPy C-API {built:#x}"
        + (f" (NumPy {needs} or later)" if needs else "")
        + f", the installed NumPy has {installed:#x}"
        + (f" (NumPy {has})" if has else ""),
    )
    if needs is None or installed > built:
        return Analysis(evidence=evidence)
    return Analysis(
        evidence=evidence,
        fix=Fix(f"Upgrade NumPy to {needs} or later.", (f'pip install --upgrade "numpy>={needs}"',)),
    )


# nvcc's refusal names the architecture ('compute_61', "'compute 61'" as a page renders it, "compute86"); the
# CUDA releases whose nvcc know it: added (from the CUDA Toolkit release notes) and removed (compute_30 in
# 11.0, Kepler in 12.0, Maxwell to Volta in 13.0). Only the releases known for sure are named.
_NVCC_ARCH = re.compile(r"Unsupported gpu architecture\s{0,8}'?(?:compute|sm)[_ ]?(\d{2,3})", re.IGNORECASE)
_NVCC_RAN = re.compile(r"(?<![\w.-])(/[\w.+-]{1,60}(?:/[\w.+-]{1,60}){0,8}/nvcc)(?![\w.-])")
_ARCH_ADDED = {60: "8.0", 61: "8.0", 70: "9.0", 75: "10.0", 80: "11.0", 86: "11.1", 89: "11.8", 90: "11.8"}
_ARCH_ADDED |= {100: "12.8", 120: "12.8"}
_ARCH_REMOVED = {30: "11.0", 35: "12.0", 37: "12.0", 50: "13.0", 52: "13.0", 53: "13.0", 60: "13.0"}
_ARCH_REMOVED |= {61: "13.0", 62: "13.0", 70: "13.0", 72: "13.0"}


_LAST_KNOWING = {"11.0": "CUDA 10.2", "12.0": "CUDA 11.8", "13.0": "CUDA 12.x"}
"""The last toolkits that know an architecture the release named dropped."""
_CUDA_PATH = re.compile(r"\bcuda-(1\d)\.(\d)\b", re.IGNORECASE)
_NO_LONGER = re.compile(r"\bno longer supports?\b|\b(?:dropped|removed)\b", re.IGNORECASE)


def _toolkit_said(text: str) -> tuple[int, int] | None:
    """The CUDA toolkit release the text gives: nvcc --version's, a cuda-X.Y folder, or "CUDA X.Y"."""
    for pattern in (_NVCC_RELEASE, _CUDA_PATH, _CUDA_TOLD):
        found = last_match(pattern, text)
        if found is not None:
            return int(found[1]), int(found[2])
    return None


def analyse_nvcc_arch(text: str) -> Analysis:
    """The architecture nvcc refused, the CUDA releases that know it, the nvcc that ran (its path where the
    build printed it) and the GPU the writer names. An architecture the toolkit dropped (the only reading for
    one never added in a release nvcc still has, or where the text gives a toolkit that new, or says it is no
    longer supported) is the build's own list to change."""
    found = last_match(_NVCC_ARCH, text)
    if found is None:
        return Analysis()
    arch = int(found[1])
    cc = f"{arch // 10}.{arch % 10}"
    added, removed = _ARCH_ADDED.get(arch), _ARCH_REMOVED.get(arch)
    toolkit = _toolkit_said(text)
    line = f"nvcc was asked for compute_{arch} (compute capability {cc})"
    dropped = removed is not None and (
        added is None
        or (toolkit is not None and Version(f"{toolkit[0]}.{toolkit[1]}") >= Version(removed))
        or (toolkit is None and _NO_LONGER.search(text) is not None)
    )
    if dropped:
        said = f" (the text gives CUDA {toolkit[0]}.{toolkit[1]})" if toolkit is not None else ""
        line += f", which nvcc dropped in CUDA {removed}: the nvcc that ran is that new or newer{said}"
    elif added and removed:
        line += (
            f", which nvcc knows from CUDA {added} until {removed}: the nvcc that ran is outside that range"
        )
    elif added:
        line += f", which nvcc knows from CUDA {added} on: the nvcc that ran is older"
    evidence = [line]
    path = last_match(_NVCC_RAN, text)
    if path is not None:
        where = path[1]
        note = (
            " (the distribution's package, often older than a toolkit under /usr/local/cuda)"
            if where.startswith("/usr/bin/")
            else ""
        )
        evidence.append(f"the nvcc that ran: {where}{note}")
    named = _capability_named(text)
    if named is not None:
        (major, minor), said_gpu = named
        evidence.append(f"{said_gpu}: compute capability {major}.{minor}")
    if not dropped or removed is None:
        return Analysis(evidence=tuple(evidence))
    return Analysis(
        evidence=tuple(evidence),
        cause=(
            f"The build asks nvcc for compute_{arch}, an architecture CUDA {removed} dropped: this nvcc "
            f"(CUDA {removed} or newer) no longer supports it. The architecture comes from the build's own "
            f"list, written for older toolkits: a -gencode arch=compute_{arch},code=sm_{arch} flag "
            "hard-coded in setup.py, CMakeLists.txt or a Makefile, TORCH_CUDA_ARCH_LIST, or "
            f"CMAKE_CUDA_ARCHITECTURES. Unless the GPU itself is of compute capability {cc}, the build does "
            "not need it."
        ),
        fix=Fix(
            f"Remove compute_{arch} from the build's architectures: delete its -gencode "
            f"arch=compute_{arch},code=sm_{arch} flag in setup.py (or CMakeLists.txt, the Makefile), or name "
            'only the GPU\'s own capability (TORCH_CUDA_ARCH_LIST="8.6", CMAKE_CUDA_ARCHITECTURES=86); then '
            "rebuild from clean (remove the build folder). Where the GPU is of compute capability "
            f"{cc}, build with {_LAST_KNOWING[removed]} instead, the last toolkit that knows it.",
            (
                "nvcc --version",
                f"grep -rn compute_{arch} --include=setup.py --include=CMakeLists.txt --include=Makefile .",
            ),
        ),
    )


# The capability as Text Generation Inference logs it ("GPU with CUDA capability 7 5 is not supported").
_CAPABILITY_SPACED = re.compile(r"GPU with CUDA (?:is )?capability (\d) (\d) is not supported")


def analyse_quantized_move(text: str) -> Analysis:
    """Who moves the quantized model, where the traceback shows it: an installed library's own call (a
    Trainer's), or the program's statement."""
    tail = text[-200_000:]
    message = last_match(_QUANTIZED_MOVE, tail)
    end = None if message is None else message.start()
    mover = failing_statement(tail, end)
    package = None if mover is None else installed_package(mover.file)
    if mover is not None and package is not None and _MOVE_CALL.search(mover.code):
        line = f"{package} moves the model, not the program: {mover}"
        upgraded = list(dict.fromkeys((_pip_name(package), "transformers", "accelerate")))
        fix = Fix(
            f"Upgrade {and_list(upgraded)}: later releases skip the move for a model loaded in 4-bit or "
            "8-bit. Until then load the model without the library moving it, or move only the inputs.",
            (f"pip install -U {' '.join(upgraded)} bitsandbytes",),
        )
        return Analysis(evidence=(line,), fix=fix)
    statement = failing_statement(tail, end, own_code=True)
    if statement is None:
        return Analysis()
    return Analysis(evidence=(f"the program moves the model at {statement}",))


_QUANTIZED_MOVE = re.compile(r"is not supported for `?(?:4-bit`? or `?)?8-bit`?")
_MOVE_CALL = re.compile(r"\.(?:to|cuda)\(")


_TRITON_SEEN = re.compile(r"\btriton\b", re.IGNORECASE)


def analyse_invalid_kernel_image(text: str) -> Analysis:
    """The driver the text gives against the CUDA 12 of Triton's bundled ptxas; a Jetson's L4T release."""
    tail = text[-200_000:]
    if _JETSON.search(tail) is not None:
        return Analysis(
            evidence=("the text shows a Jetson",),
            cause=(
                "On a Jetson the CUDA of torch and of its container or wheel must be that of the installed "
                "L4T (JetPack) release: a container or wheel built for another release carries kernels this "
                "board's CUDA driver cannot load."
            ),
            fix=Fix(
                "Use the container or torch wheel built for the installed L4T release (cat "
                "/etc/nv_tegra_release; the l4t-pytorch tag of that release), or flash the JetPack the "
                "container was built for."
            ),
        )
    driver = last_match(_DRIVER_SEEN, tail)
    if _TRITON_SEEN.search(tail) is None or driver is None:
        return Analysis()
    floor = cuda_compat.MINOR_COMPAT_FLOOR[12]["linux"]
    if Version(driver[1]) >= Version(floor):
        return Analysis(evidence=(f"driver {driver[1]} runs CUDA 12's kernels",))
    return Analysis(
        evidence=(
            f"driver {driver[1]} is older than CUDA 12's ({floor} on Linux), whose ptxas Triton 2.2 and "
            "later bundle",
        ),
        cause=(
            f"The NVIDIA driver ({driver[1]}) is too old for the kernels Triton compiles: Triton 2.2 and "
            "later build them with the ptxas of CUDA 12 they bundle, and a driver before R525 cannot load "
            "them."
        ),
    )


# A text that says the packages are there.
_BOTH_INSTALLED = re.compile(
    r"(?:despite|although|even though|already|I have|I've|after) (?:\w+ ){0,4}?install\w{0,3}\b[^\n]{0,80}?"
    r"\b(?:accelerate|bitsandbytes)\b"
    r"|\b(?:accelerate|bitsandbytes)\b[^\n]{0,60}?\b(?:are|is) (?:already )?installed",
    re.IGNORECASE,
)


def analyse_quantization_unavailable(text: str) -> Analysis:
    tail = text[-200_000:]
    if _MACOS.search(tail) is not None or _APPLE_GPU.search(tail) is not None:
        return Analysis(
            evidence=("the text shows a Mac: it has no CUDA GPU, and bitsandbytes' quantization needs one",),
            fix=Fix(
                "Load the model without load_in_8bit or load_in_4bit (float16 on 'mps', or float32 on the "
                "CPU), or run it on a machine with an NVIDIA GPU."
            ),
        )
    if _BOTH_INSTALLED.search(tail) is not None:
        return Analysis(
            evidence=(
                "the text says accelerate and bitsandbytes are installed: torch seeing no CUDA GPU is what "
                "remains",
            )
        )
    return Analysis()


# Why bitsandbytes loaded its CPU library, by what its release prints: before 0.41 its own search for
# libcudart.so; 0.43.1 to 0.45 no library for torch's CUDA; the warning without "8-bit multiplication" and
# not through warnings.warn is 0.46 on, where only a torch without CUDA leads there (bitsandbytes' sources
# at those tags). On Windows ctypes says "function 'name' not found" where Linux says "undefined symbol".
_BNB_NO_CUDART = re.compile(
    r"libcudart\.so not found|No libcudart\.so found|did not contain \[?'libcudart\.so'"
    r"|libcudart\.so could not"
)
_BNB_NO_BINARY = re.compile(
    r"Could not find the bitsandbytes CUDA binary at[^\n]{0,200}?(libbitsandbytes_cuda\d{2,4}\w{0,20})"
)
_BNB_WARNED = re.compile(
    r"UserWarning: The installed version of bitsandbytes|warn\(\"The installed version of bitsandbytes"
)
_BNB_LOGGED = re.compile(
    r"compiled without GPU support\.[\s\S]{0,200}?8-bit optimizers and GPU quantization are unavailable"
)
_BNB_WINDOWS_CTYPES = re.compile(r"function 'cadam32bit_grad_fp32' not found")


def analyse_bitsandbytes_cpu(text: str) -> Analysis:
    tail = text[-200_000:]
    if last_match(_BNB_NO_CUDART, tail) is not None:
        return Analysis(
            evidence=("bitsandbytes did not find libcudart.so on its search path",),
            cause=(
                "bitsandbytes before 0.41 looked for the CUDA runtime itself, by the file name "
                "libcudart.so, in the conda environment, on LD_LIBRARY_PATH and in /usr/local/cuda/lib64, "
                "and loaded its CPU library where it found none (a CUDA runtime that only exists as "
                "libcudart.so.11.0, or in the pip nvidia-cuda-runtime wheel, is not found)."
            ),
            fix=Fix(
                "Upgrade bitsandbytes (pip install -U bitsandbytes): from 0.41 it takes the CUDA from "
                "torch. Or put the folder that holds libcudart.so on LD_LIBRARY_PATH (export "
                "LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64, or the environment's lib folder; "
                "where only libcudart.so.11.0 is there, a link ln -s libcudart.so.11.0 libcudart.so).",
                ("python -m bitsandbytes",),
            ),
        )
    binary = last_match(_BNB_NO_BINARY, tail)
    if binary is not None:
        return Analysis(
            evidence=(f"this bitsandbytes release has no {binary[1]}",),
            cause=(
                "torch sees the GPU, but the installed bitsandbytes release ships no library for torch's "
                f"CUDA ({binary[1]}), so it loaded its CPU library: a torch of a newer CUDA than the release "
                "knows."
            ),
            fix=Fix(
                "Upgrade bitsandbytes to a release built for this CUDA (pip install -U bitsandbytes), or "
                "install the torch CUDA build the release supports.",
                ("python -m bitsandbytes",),
            ),
        )
    warned = _BNB_WARNED.search(tail) is not None
    windows = _BNB_WINDOWS_CTYPES.search(tail) is not None or _WINDOWS.search(tail) is not None
    if windows and warned:
        return Analysis(
            evidence=(
                "bitsandbytes runs on Windows, in a release that warns through warnings.warn (0.43.0 or "
                "older)",
            ),
            cause=(
                "A bitsandbytes release older than 0.43, the first to support Windows, has no CUDA library "
                "for Windows, so it loaded its CPU library (where torch sees the GPU, this is the cause)."
            ),
            fix=Fix(
                "Upgrade bitsandbytes to a release with Windows CUDA libraries: pip install -U "
                "bitsandbytes (0.43 or later), in the environment that runs the program; remove forks "
                "installed for Windows before (pip uninstall bitsandbytes-windows).",
                ("pip install -U bitsandbytes",),
            ),
        )
    if _BNB_LOGGED.search(tail) is not None and not warned:
        return Analysis(
            evidence=("the warning's wording is bitsandbytes 0.46's or later's",),
            cause=(
                "bitsandbytes 0.46 and later load their CPU library only where torch.cuda.is_available() is "
                "False: this torch is a CPU-only build, or it finds no driver or GPU."
            ),
            fix=Fix(
                "Install torch's CUDA build in this environment (pip uninstall torch, then pip install "
                "torch --index-url https://download.pytorch.org/whl/cuXYZ for a CUDA the driver supports), "
                "and check nvidia-smi shows the GPU.",
                ('python -c "import torch; print(torch.__version__, torch.cuda.is_available())"',),
            ),
        )
    return Analysis()


# flash-attn 1.x's variable-length functions, which flash-attn 2 renamed flash_attn_varlen_*.
_UNPADDED = re.compile(r"flash_attn_unpadded_(\w{0,30})")


# The module a ModuleNotFoundError names; the pip names of modules installed under another name; where the
# program runs in an embedded Python (ComfyUI's portable build).
_MODULE_MISSING = re.compile(
    r"No module named\s(?:[‘'\"`]([A-Za-z_][\w.]{0,80})[’'\"`]|([A-Za-z_][\w.]{0,80}))"
)
_PIP_NAMES = {
    "cv2": "opencv-python",
    "PIL": "Pillow",
    "sklearn": "scikit-learn",
    "yaml": "PyYAML",
    "skimage": "scikit-image",
    "google.protobuf": "protobuf",
    "fitz": "PyMuPDF",
    "Crypto": "pycryptodome",
}
_EMBEDDED_PYTHON = re.compile(r"python_embed(?:ed)?\b|ComfyUI_windows_portable", re.IGNORECASE)
_EMBEDDED_PYTHON_NOTE = (
    "the program runs in ComfyUI's embedded Python (python_embeded): packages go in with "
    "python_embeded\\python.exe -m pip install ..."
)


# torch.load unpickling (its frames, or the writer's words for loading a checkpoint) beside the error: the
# module was imported to rebuild an object the checkpoint pickled.
_UNPICKLING = re.compile(
    r"unpickler\.load\(|\bfind_class\b|torch[/\\]serialization\.py|\btorch\.load\("
    r"|\bload(?:ing|ed|s)? (?:the |a |my |this )?(?:checkpoint|\.pth|pretrained weights|model file)",
    re.IGNORECASE,
)


def _unpickled_from_a_checkpoint(tail: str, where: int, module: str) -> Analysis | None:
    """A module torch.load imported to rebuild a pickled object (the error at ``where`` in ``tail``): the
    saving code's, not a requirement."""
    if _UNPICKLING.search(tail[max(0, where - 3000) : where + 600]) is None:
        return None
    return Analysis(
        evidence=(
            f"missing module: {module}",
            f"the module {module} was imported by torch.load, to rebuild an object the checkpoint holds",
        ),
        cause="torch.load rebuilds the objects a checkpoint holds (a whole model saved with "
        "torch.save(model), or instances of the saving program's classes) by importing the module each was "
        f"defined in, and {module} does not import in the Python that runs it: a package the saving code "
        "used that is not installed here, or a module of that code itself (a project's own models.py) that "
        "is not on the path.",
        fix=Fix(
            f"Load it where {module} imports: run from the saving project's folder (its repository), or put "
            "that folder on the path first (sys.path.insert(0, '<project folder>') before torch.load, or "
            f"PYTHONPATH), or install the package that provides {module}. To be free of it, load the "
            "checkpoint once in the saving project and save model.state_dict() instead, then build the model "
            "class and load_state_dict() it.",
        ),
    )


def analyse_not_installed(text: str) -> Analysis:
    """The module, its pip name where it differs, and the Python the program runs in; a module torch.load
    imported to unpickle a checkpoint is the saving code's."""
    tail = text[-200_000:]
    found = last_match(_MODULE_MISSING, tail)
    if found is None:
        return Analysis()
    module = found[1] or found[2].rstrip(".")
    unpickled = _unpickled_from_a_checkpoint(tail, found.start(), module)
    if unpickled is not None:
        return unpickled
    top = module.split(".")[0]
    evidence = [f"missing module: {module}"]
    pip_name = _PIP_NAMES.get(module) or _PIP_NAMES.get(top)
    if pip_name is not None:
        evidence.append(f"{top} is installed by the pip package {pip_name}")
    if "." in module and pip_name is None:
        evidence.append(
            f"{module} is a module of the package {top}: where {top} is installed, it is another release of "
            f"{top}, without that module"
        )
    if _EMBEDDED_PYTHON.search(tail) is not None:
        evidence.append(_EMBEDDED_PYTHON_NOTE)
    return Analysis(evidence=tuple(evidence))


# The name and the library of "cannot import name 'X' from 'pkg.sub'", and the library's version where the
# text states it ("diffusers==0.25.0", "diffusers 0.21.4", "diffusers: 0.24.0").
_NAME_FROM = re.compile(
    r"cannot import name\s[‘'\"`](\w{1,80})[’'\"`]\s{1,3}from\s{1,3}[‘'\"`]([\w.]{1,80})[’'\"`]"
)
_ATTRIBUTE_OF = re.compile(
    r"module\s[‘'\"`]([\w.]{1,80})[’'\"`]\s{1,3}has no attribute\s[‘'\"`](\w{1,80})[’'\"`]"
)

# Names a library's release removed, and what replaces them. Source: CuPy's upgrade guide
# (docs.cupy.dev/en/stable/upgrade.html, CuPy v13: "cupy.cuda.compile_with_cache() has been removed").
_REMOVED = {
    ("cupy", "compile_with_cache"): (
        "The installed CuPy is release 13 or newer, which removed cupy.cuda.compile_with_cache; "
        "the program's kernel launcher was written for CuPy 12 or older.",
        "CuPy 13 removed cupy.cuda.compile_with_cache: build the kernel with cupy.RawModule(code=source)"
        ".get_function(name) (or cupy.RawKernel), as the current softmax-splatting and PWC-Net code does, or "
        "install CuPy 12 (pip install cupy-cuda12x==12.3.0, cupy-cuda11x==12.3.0 for CUDA 11).",
    ),
}


def analyse_name_missing(text: str) -> Analysis:
    """The name, the library, and the library's version the text shows."""
    tail = text[-200_000:]
    imported, called = last_match(_NAME_FROM, tail), last_match(_ATTRIBUTE_OF, tail)
    if imported is not None and (called is None or imported.start() > called.start()):
        name, module, how = imported[1], imported[2], f"imported from {imported[2]}"
    elif called is not None:
        name, module, how = called[2], called[1], called[1]
    else:
        return Analysis()
    library = module.split(".")[0]
    evidence = [f"the installed {library} version has no {name} ({how})"]
    version = last_match(
        re.compile(
            rf"\b{re.escape(library)}\b\s{{0,3}}(?:==|:|\s)\s{{0,3}}v?(\d{{1,3}}\.\d{{1,3}}(?:\.\w{{1,10}})?)",
            re.IGNORECASE,
        ),
        tail,
    )
    if version is not None:
        evidence.append(f"the text shows {library} {version[1]}")
    fix = Fix(
        f"Install the release of {library} the program was written for: the version its requirements.txt, "
        f"setup.py or README pins (pip install {library}==<version>; pip show {library} shows the installed "
        "one), in the environment that runs the program; a name a newer release removed needs an older "
        f"{library}. Or update the program to a version that follows {library}'s new API.",
        (f"pip show {library}",),
    )
    removed = _REMOVED.get((library.lower(), name))
    if removed is not None:
        return Analysis(evidence=tuple(evidence), cause=removed[0], fix=Fix(removed[1], fix.commands))
    return Analysis(evidence=tuple(evidence), fix=fix)


# The mmcv release installed and the range the package accepts: "MMCV==2.2.0 is used but incompatible. Please
# install mmcv>=2.0.0rc4, <2.2.0." (mmcv 1.x's packages: "mmcv>=1.3.17, <=1.8.0"; older ones print version
# lists: "mmcv>=[1, 1, 2], <=[1, 2, 7]").
_MMCV_LIST = re.compile(r"\[([\d, ]{1,20})\]")
_MMCV_RANGE = re.compile(
    r"MMCV==(\S{1,30}) is used but incompatible\. Please install mmcv(>=?(?:\[[\d, ]{1,20}\]|[\w.]{1,20})),"
    r"\s{0,3}(<=?(?:\[[\d, ]{1,20}\]|\d[\w.]{0,19}?))\.?(?![\w.])"
)


def analyse_mmcv_range(text: str) -> Analysis:
    """The installed mmcv and the range to install, in the command: mmcv-full for a 1.x range (the 1.x build
    with the CUDA ops), mmcv from 2.0 on."""
    found = last_match(_MMCV_RANGE, text[-200_000:])
    if found is None:
        return Analysis()
    low, high = (
        _MMCV_LIST.sub(lambda v: ".".join(v[1].replace(" ", "").split(",")), b) for b in found.groups()[1:]
    )
    package = "mmcv-full" if re.match(r"<=?1\.", high) else "mmcv"
    wanted = f"{package}{low},{high}"
    return Analysis(
        evidence=(f"installed: mmcv {found[1]}; accepted: mmcv{found[2]}, {found[3]}",),
        fix=Fix(
            f"Install {package} in the range the package accepts, built for this torch and CUDA: mim install "
            f'"{wanted}" (pip install -U openmim first; or the prebuilt wheel from download.openmmlab.com '
            "for the torch and CUDA pair), not mmcv-lite or an unpinned pip install.",
            ("pip install -U openmim", f'mim install "{wanted}"'),
        ),
    )


# The release transformers' check found ("but found peft==0.14.0."), after the requirement the entry's own
# pattern reads ("peft>=0.15.0 is required"), and the environment whose site-packages the traceback shows (a
# conda env, a venv, an application's bundled Python).
_FOUND_RELEASE = re.compile(r"\bbut found ([\w.-]{1,60})==([\w.+-]{1,40}?)\.?(?=\s|$)")
# (read in the part of its line before "site-packages", so that the search stays short)
_ENVIRONMENT_ROOT = re.compile(
    r"(?<![^\s\"'(=])([A-Za-z]:\\[^\n\"']*?|/[^\n\"']*?)[/\\]lib[/\\](?:python\d\.\d{1,2}[/\\])?$",
    re.IGNORECASE,
)


# Requirements in the same words that pip does not install: the interpreter, CUDA and its libraries, the
# compilers, the driver; and torch with its companions, which come from the index of their CUDA release.
_NOT_FROM_PIP = frozenset(
    {"python", "cuda", "cudnn", "nccl", "gcc", "g++", "nvcc", "clang", "msvc", "glibc", "driver"}
)
_TORCH_FAMILY = frozenset({"torch", "pytorch", "torchvision", "torchaudio"})


def _environment_root(text: str) -> str | None:
    """The folder of the environment whose site-packages the last path in ``text`` is in."""
    at = text.rfind("site-packages")
    if at < 0:
        return None
    found = _ENVIRONMENT_ROOT.search(text[max(text.rfind("\n", 0, at) + 1, at - 300) : at])
    return None if found is None else found[1]


def analyse_version_required(text: str) -> Analysis:
    """The release required and the one found, the environment the traceback shows, and the install command
    with the requirement filled in."""
    tail = text[-200_000:]
    requirement = next(p for p in _VERSION_REQUIRED.compiled if "package" in p.groupindex)
    found = last_match(requirement, tail)
    if found is None:
        return Analysis()
    package = found["package"]
    if package.lower() in _NOT_FROM_PIP:
        return Analysis(declined=True)
    required = package + "".join(found["spec"].split())
    line = f"required: {required}"
    release = _FOUND_RELEASE.search(tail, found.end(), found.end() + 200)
    if release is not None and canonical_name(release[1]) == canonical_name(package):
        line += f"; installed: {release[1]} {release[2]}"
    evidence = [line]
    root = _environment_root(tail[: found.start()])
    if root is not None:
        evidence.append(
            f"the check runs in the environment {root} (its site-packages in the traceback): install it "
            "there, with that environment's python"
        )
    if _EMBEDDED_PYTHON.search(tail) is not None:
        evidence.append(_EMBEDDED_PYTHON_NOTE)
    cause = _VERSION_REQUIRED.cause.replace(
        "release of a package it needs", f"release of {package} it needs"
    ).replace("a package version mismatch", f"a {package} version mismatch")
    fix_text = _VERSION_REQUIRED.fix.text.replace('"<package><required>"', f'"{required}"')
    if package.lower() in _TORCH_FAMILY:
        fix_text += (
            f" {package} comes from the index of its CUDA release, not from pip's default one, and with its "
            "companions at the releases that pair with it: torchdoctor check --only torch.build prints the "
            "command for this machine."
        )
    fix = Fix(fix_text, (f'python -m pip install "{required}"', "pip check"))
    return Analysis(evidence=tuple(evidence), cause=cause, fix=fix)


def analyse_flash_attn_v1_names(text: str) -> Analysis:
    """The 1.x name the code asks for, and its flash-attn 2 name."""
    return quoted(
        _UNPADDED,
        text,
        lambda found: f"the code asks for {found[0]}, which flash-attn 2 calls flash_attn_varlen_{found[1]}",
    )


def analyse_before_ampere(text: str) -> Analysis:
    """The GPU (and its capability) the writer names, below Ampere's 8.0; flash-attn 1.x's own floor. A GPU
    the text names above the check's list (flash-attn 1.x: sm_75 and sm_8x; its 2.x check: sm_8x and sm_90)
    is newer than the release, not older: the fix upgrades flash-attn."""
    spaced = last_match(_CAPABILITY_SPACED, text[-200_000:])
    named = (
        ((int(spaced[1]), int(spaced[2])), "the log gives the GPU's capability")
        if spaced is not None
        else _capability_named(text)
    )
    first_release = "is_sm75" in text
    newest_known = (8, 9) if first_release else (9, 0)
    if named is not None and named[0] > newest_known:
        (major, minor), said = named
        return Analysis(
            evidence=(
                f"{said}: compute capability {major}.{minor}, newer than the architectures this flash-attn "
                f"check knows ({'sm_75 and sm_8x' if first_release else 'sm_8x and sm_90'})",
            ),
            cause=_NEWER_THAN_FLASH_ATTN,
            fix=_UPGRADE_FLASH_ATTN,
        )
    if first_release:
        return Analysis(
            evidence=("flash-attn 1.x asserts an Ampere (sm_8x) or Turing (sm_75) GPU: this one is older",)
        )
    kernels = (_CUTLASS_BF16,) if _NO_CUTLASS_KERNEL.search(text[-200_000:]) else ()
    if named is None:
        return Analysis(evidence=kernels)
    (major, minor), said = named
    line = f"{said}: compute capability {major}.{minor}"
    if major < 8:
        line += ", older than Ampere's 8.0"
    return Analysis(evidence=(line, *kernels))


_NO_CUTLASS_KERNEL = re.compile(r"cutlass[FB]: no kernel found to launch")
_CUTLASS_BF16 = (
    "cutlassF (cutlassB backward) is the memory-efficient attention of scaled_dot_product_attention (and of "
    "xformers): its bfloat16 kernels are built for sm_80 and newer only, its float16 and float32 ones from "
    "sm_50, so bfloat16 on an older GPU finds no kernel"
)


def analyse_flash_sdpa_backward(text: str) -> Analysis:
    """The GPU the text names (not an sm_80 one) and the torch it shows, where it gives them."""
    evidence: list[str] = []
    named = _capability_named(text)
    if named is not None:
        (major, minor), said = named
        # later releases' words for the check take the H100 too (is_sm80 || is_sm90)
        also_sm90 = "is_sm90" in text[-200_000:]
        if (major, minor) not in ((8, 0), (9, 0)) if also_sm90 else (major, minor) != (8, 0):
            taken = "the A100's 8.0 or the H100's 9.0" if also_sm90 else "the A100's 8.0 (sm_80)"
            evidence.append(f"{said}: compute capability {major}.{minor}, not {taken}")
    version = _seen(text).version
    if version is not None:
        evidence.append(f"the text shows torch {version}")
    return Analysis(evidence=tuple(evidence))


_NEWER_THAN_FLASH_ATTN = (
    "The installed flash-attn (or a package that bundles its kernels, such as xformers) checks the GPU "
    "against the architectures its release was written for (flash-attn 1.x: Turing's sm_75 and Ampere's "
    "sm_8x; the 2.x check that words it 'Ampere GPUs or newer': sm_8x and sm_90), and this GPU is newer "
    "than that list, not older."
)
_UPGRADE_FLASH_ATTN = Fix(
    "Upgrade flash-attn to a release that supports this GPU's architecture (pip install -U flash-attn "
    "--no-build-isolation, or its prebuilt wheel for the installed torch and CUDA; a source build with the "
    "GPU's capability in TORCH_CUDA_ARCH_LIST), and the packages that bundle its kernels (xformers); code "
    "written for flash-attn 1.x renames its calls (flash_attn_unpadded_* is flash_attn_varlen_* in 2.x). "
    'Until then, run standard attention (attn_implementation="sdpa" in transformers).'
)


# The FP8 checks' own figures ("compute capability >= 9.0 or 8.9", "8.9 or higher"), which are no GPU's;
# and the GPU's capability as the FP8 checks and nvidia-smi's query print it ("Your GPU's capability is 8.6",
# "compute_cap\n8.6", "with sm80").
_FP8_FLOOR = re.compile(r"compute capability (?:>= ?9\.0(?: or 8\.9)?|8\.9 or higher)", re.IGNORECASE)
_FP8_GPU_CAPABILITY = re.compile(
    r"\bcapability is (\d{1,2})\.(\d)\b|\bcompute_cap\s{1,4}(\d{1,2})\.(\d)\b|\bsm_?([1-9])(\d)\b",
    re.IGNORECASE,
)


def analyse_fp8(text: str) -> Analysis:
    """The GPU's compute capability against FP8's 8.9, and a torch build without the kernel."""
    tail = _FP8_FLOOR.sub(" ", text[-200_000:])
    shown = last_match(_FP8_GPU_CAPABILITY, tail)
    if shown is not None:
        digits = [g for g in shown.groups() if g is not None]
        named: tuple[tuple[int, int], str] | None = (
            (int(digits[0]), int(digits[1])),
            f"the text gives the GPU's capability ({' '.join(shown[0].split())})",
        )
    else:
        named = _capability_named(tail)
    if named is None:
        return Analysis()
    (major, minor), said = named
    if (major, minor) >= (8, 9):
        line = f"{said}: compute capability {major}.{minor}, which has FP8: the torch build is what lacks it"
        return Analysis(evidence=(line,))
    return Analysis(evidence=(f"{said}: compute capability {major}.{minor}, below the 8.9 that FP8 needs",))


def analyse_nvrtc_arch(text: str) -> Analysis:
    """The GPU (and its capability) the writer names, which torch's NVRTC does not know."""
    named = _capability_named(text)
    if named is None:
        return Analysis()
    (major, minor), said = named
    return Analysis(evidence=(f"{said}: sm_{major}{minor} (compute capability {major}.{minor})",))


# A CPU-only build the text shows: a +cpu version, conda's cpu package ("py3.8_cpu_0") or cpuonly.
_CPU_BUILD_SAID = re.compile(r"\b\d\.\d{1,2}(?:\.\d{1,2})?\+cpu\b|\bpy3\.?\d{1,2}_cpu_\d\b|\bcpuonly\b")
# A CUDA version the writer names ("the newest cuda installed 12.2", "CUDA 11.3", "cudatoolkit=11.3").
_CUDA_VERSION_SAID = re.compile(
    r"\bcuda(?:toolkit)?\b[^\n.;,]{0,30}?(?<![\d.])(1\d\.\d)(?![\d])", re.IGNORECASE
)
_JETSON = re.compile(r"\bJetson\b|\bJetPack\b|\bL4T\b", re.IGNORECASE)
_IMAGE_BUILT = re.compile(r"\bdocker\b|\bDockerfile\b|\bcontainer\b", re.IGNORECASE)
# An environment made from a file or by a solver: conda's environment.yml, pip's requirements.txt, a package
# whose dependencies bring torch.
_ENV_FILE = re.compile(
    r"\b(?:environment|env)\.ya?ml\b|\bya?ml file\b|\benvironment files?\b|\brequirements(?:\.txt)?\b"
    r"|\b(?:conda|mamba) env (?:create|update)\b|\bsolver\b|\b(?:mamba|conda)\b[^\n]{0,40}?\binstalls?\b"
    r"|\bautomatically installs\b"
    # a conda environment's own folder in a traceback
    r"|[\\/](?:\.conda|anaconda3|miniconda3|miniforge3|mambaforge)[\\/]envs[\\/]",
    re.IGNORECASE,
)
_ENV_FILE_CAUSE = (
    "The environment file (or the dependencies of what was installed) does not ask for a CUDA build of "
    "torch, so the solver is free to pick a CPU-only build, and does: conda-forge's cpu builds, the pytorch "
    "channel's cpuonly variant, pip's default wheel on Windows and macOS, or a +cpu pin. A cudatoolkit "
    "installed beside it does not change which torch build is picked."
)
_ENV_FILE_FIX = (
    "Ask for the CUDA build in the environment file itself, then recreate the environment (conda env remove "
    "-n <name>, then conda env create -f environment.yml: an update keeps the CPU build). With conda, "
    "conda-forge's pytorch-gpu, or the build pinned as pytorch=*=*cuda*; for torch 2.5 and older from the "
    "pytorch channel, pytorch-cuda=<12.x> with the channels pytorch and nvidia listed before conda-forge and "
    "defaults. With pip (requirements.txt, or the pip: part of an environment.yml), --index-url "
    "https://download.pytorch.org/whl/cu1XX with torch==<version>+cu1XX. "
)


def _from_env_file(window: str, evidence: tuple[str, ...], base: Fix) -> Analysis | None:
    """An environment made from a file or by a solver: the file's request for a build is the fix. None where
    the text shows neither."""
    if _ENV_FILE.search(window) is None:
        return None
    return Analysis(
        evidence=evidence, cause=_ENV_FILE_CAUSE, fix=Fix(_ENV_FILE_FIX + base.text, base.commands)
    )


def _on_jetson(window: str, evidence: tuple[str, ...], base: Fix) -> Analysis | None:
    """A CPU-only torch on a Jetson: NVIDIA's wheel for the board's JetPack, before ``base``."""
    if _JETSON.search(window) is None:
        return None
    return Analysis(
        evidence=(*evidence, "the text is about a Jetson (aarch64 with JetPack)"),
        fix=Fix(
            "On a Jetson, torch reaches the GPU only through a wheel built for the JetPack release "
            "(and its Ubuntu and Python) the board runs: pip's aarch64 wheels from PyPI are CPU-only, "
            "and a wheel built for another JetPack does not fit. Install NVIDIA's torch wheel for the "
            "installed JetPack (its version: cat /etc/nv_tegra_release), or flash the JetPack image the "
            "wheel was built for. " + base.text,
            base.commands,
        ),
    )


# Lightning's refusal of the GPU accelerator (lightning/pytorch/trainer/connectors/accelerator_connector.py).
_LIGHTNING_NO_GPU = re.compile(
    r"(?:CUDA|GPU)Accelerator`? can not run on your system|No supported gpu backend found!"
)


# The compiler lookup torch.utils.cpp_extension runs: where cl (Windows), which $CXX (elsewhere).
_COMPILER_LOOKUP = re.compile(
    r"""Command ['"]?\[['"](where|which)['"], ['"]([\w+.]{1,12})['"]\]['"]? returned non-zero exit status"""
    r"|Error checking compiler version for (cl)\b"
)


def analyse_compiler_not_found(text: str) -> Analysis:
    """The compiler the lookup asked for, and the fix of that system alone."""
    found = last_match(_COMPILER_LOOKUP, text[-200_000:])
    if found is None:
        return Analysis()
    if found[3] or found[1] == "where":
        return Analysis(
            evidence=("the lookup is Windows' (where cl): MSVC's cl.exe is not on this process's PATH",),
            fix=Fix(
                'Install Visual Studio Build Tools with the "Desktop development with C++" workload (MSVC '
                'and a Windows SDK), and start the program from the "x64 Native Tools Command Prompt for VS" '
                "(or run vcvars64.bat in the shell first), or add MSVC's bin\\Hostx64\\x64 folder to PATH; "
                "then where cl answers. Or install the package's prebuilt wheel where the project publishes "
                "one.",
                ("where cl",),
            ),
        )
    return Analysis(
        evidence=(f"the lookup is which {found[2]}: no {found[2]} on this process's PATH",),
        fix=Fix(
            "Install g++ (apt install build-essential, or the distribution's gcc-c++ package), or point CXX "
            "at an installed C++ compiler. Or install the package's prebuilt wheel where the project "
            "publishes one.",
            (f"which {found[2]}",),
        ),
    )


def analyse_not_available(text: str) -> Analysis:
    """torch not reaching the GPU: the CPU-only build the text shows, the CUDA toolkit its writer names (which
    does not make the build), and where the build comes from: a Jetson's NVIDIA wheels, a Docker image."""
    window = text[-200_000:]
    evidence: list[str] = []
    lightning = lightning_gpu_request(window)
    if lightning is not None and not lightning[1]:
        evidence.append(f"Lightning was asked for GPUs [{lightning[0]}] and this process sees none")
    elif _LIGHTNING_NO_GPU.search(window) is not None:
        evidence.append(
            "Lightning refuses the GPU accelerator where torch.cuda.device_count() is 0: this torch sees no "
            "CUDA GPU"
        )
    cpu = _CPU_BUILD_SAID.search(window)
    if cpu is not None:
        evidence.append(f"the text shows a CPU-only build ({cpu[0]})")
    else:
        hidden = hidden_gpus(window)
        if hidden is not None:
            return hidden
        without = _docker_run_without_gpus(window)
        if without is not None:
            return Analysis(
                evidence=(*evidence, without),
                cause=_STARTED_WITHOUT_GPUS.cause,
                fix=_STARTED_WITHOUT_GPUS.fix,
            )
    cuda = last_match(_CUDA_VERSION_SAID, window)
    if cuda is not None:
        evidence.append(
            f"the text names CUDA {cuda[1]}: a CUDA toolkit (or the driver's CUDA version) does not decide "
            "torch's build, which carries its own CUDA runtime"
        )
    base = _NOT_AVAILABLE.fix
    jetson = _on_jetson(window, tuple(evidence), base)
    if jetson is not None:
        return jetson
    from_file = _from_env_file(window, tuple(evidence), base)
    if from_file is not None:
        return from_file
    if _IMAGE_BUILT.search(window) is not None:
        return Analysis(
            evidence=tuple(evidence),
            fix=Fix(
                "In a Docker container the image's torch is the one that counts (nvidia-smi answering "
                "inside shows the GPU is passed through): make the Dockerfile or its environment file "
                "install a CUDA build of torch, then rebuild the image (docker build --no-cache), or use an "
                "image that has one. " + base.text,
                base.commands,
            ),
        )
    return Analysis(evidence=tuple(evidence))


_WINDOWS = re.compile(
    r"(?<![A-Za-z])windows(?![A-Za-z])|\bwin(?:10|11|32|_amd64)\b|(?<![\w/])[A-Z]:\\[\w.-]", re.IGNORECASE
)


def analyse_nccl_not_built(text: str) -> Analysis:
    """Windows named: torch for Windows is built without NCCL (USE_NCCL is Linux only), so gloo is the
    backend there, whatever the build."""
    if _WINDOWS.search(text[-200_000:]) is None:
        return Analysis()
    return Analysis(
        evidence=("the text is about Windows, where torch is built without NCCL",),
        cause=(
            "The backend 'nccl' was requested on Windows: torch for Windows is built without NCCL (only "
            "Linux builds have it), so no install gives it; one GPU needs no process group, several do."
        ),
        fix=Fix(
            "Use the gloo backend on Windows: init_process_group(backend='gloo'), or the program's own "
            "setting of it (a training config's dist backend set to gloo instead of nccl; a trainer's "
            "ddp_backend: gloo); an environment variable helps only a program that reads it. Or train on "
            "Linux (WSL2 included) for NCCL."
        ),
    )


_SIX_NAME = re.compile(r"cannot import name [‘'\"]?(\w{1,60})[’'\"]?", re.IGNORECASE)
_SIX_REPLACEMENTS = {
    "container_abcs": "import collections.abc as container_abcs",
    "string_classes": "str (string_classes = str)",
    "int_classes": "int (int_classes = int)",
    "inf": "from torch import inf (or math.inf)",
    "nan": "math.nan",
    "py3": "True (Python 3 is all torch runs on)",
    "py37": "sys.version_info >= (3, 7)",
}
# The package whose file imports it: the last frame in site-packages that is not torch's own.
_PACKAGE_FRAME = re.compile(r"site-packages[/\\]([A-Za-z_][\w.-]{0,60})[/\\]([\w/\\.-]{1,200}\.py)")
_FRAMES_READ = 200


def analyse_private_module(text: str) -> Analysis:
    """The name imported from torch._six, with what replaces it, and the package whose file imports it."""
    window = text[-200_000:]
    evidence: list[str] = []
    name = last_match(_SIX_NAME, window)
    if name is not None:
        replacement = _SIX_REPLACEMENTS.get(name[1].lower())
        line = f"the name imported from torch._six: {name[1]}"
        evidence.append(line if replacement is None else f"{line}; its replacement: {replacement}")
    package = None
    for n, frame in enumerate(_PACKAGE_FRAME.finditer(window)):
        if n >= _FRAMES_READ:
            break
        if frame[1] != "torch":
            package = frame
    if package is not None:
        evidence.append(
            f"the import is in {package[1]} ({package[1]}/{package[2].replace(chr(92), '/')}): upgrade "
            f"{package[1]} to a release that supports the installed torch, or patch that file"
        )
    return Analysis(evidence=tuple(evidence))


_THC_AT = re.compile(r"(THC\w{0,20}\.(?:cpp|cu|c))(?::| line=)(\d{1,5})")
_TORCH_RELEASE_SAID = re.compile(
    r"(?<![\w-])(?:py)?torch[ \t]{0,2}(?:==|=|:|version:?)?[ \t]{0,2}v?\d\.\d{1,2}(?:\.\d{1,2})?(?:\.post\d)?"
    r"(?!\w|\.\d)",
    re.IGNORECASE,
)


_INVALID_ARGUMENT_SAID = re.compile(r"invalid argument", re.IGNORECASE)


def analyse_invalid_argument(text: str) -> Analysis:
    """Where THC raised it and the torch release the text gives: the version whose build is to be checked;
    an argument refused while pinning host memory is the host's."""
    pinned = pinned_analysis(text, _INVALID_ARGUMENT_SAID)
    if pinned is not None:
        return pinned
    window = text[-200_000:]
    evidence: list[str] = []
    at = last_match(_THC_AT, window)
    if at is not None:
        evidence.append(f"raised at {at[1]}:{at[2]}, in THC: torch 1.x or older")
    release = last_match(_TORCH_RELEASE_SAID, window)
    if release is not None:
        evidence.append(f"the text gives the torch release: {' '.join(release[0].split())}")
    return Analysis(evidence=tuple(evidence))


_OPENMP_PAIR = re.compile(
    r"Initializing (lib\w{1,20}\.(dll|dylib|so(?:\.\d{1,3})?)),? but found ((?:lib)?\w{1,20}"
    r"(?:\.(?:dll|dylib|so(?:\.\d{1,3})?))?) already initiali[sz]ed",
    re.IGNORECASE,
)
_OPENMP_OS = {"dll": "Windows", "dylib": "macOS"}


def analyse_openmp(text: str) -> Analysis:
    """The two runtimes the message names (and so the OS), and the torch release the text shows; on Windows
    the commands that find the copies there."""
    window = text[-200_000:]
    evidence: list[str] = []
    pair = last_match(_OPENMP_PAIR, window)
    system = None
    if pair is not None:
        system = _OPENMP_OS.get(pair[2].lower(), "Linux")
        second = "another copy of it" if pair[3].lower() == pair[1].lower() else pair[3]
        evidence.append(f"{pair[1]} was starting with {second} already loaded ({system})")
    version = _seen(text).version
    if version is not None:
        evidence.append(f"the text shows torch {version}")
    analysis = Analysis(evidence=tuple(evidence))
    if system != "Windows" and _WINDOWS_SEEN.search(window) is None:
        return analysis
    base = _OPENMP.fix
    return replace(
        analysis,
        fix=Fix(
            base.text,
            (
                "conda install nomkl",
                'conda list | findstr /i "mkl openmp numpy torch"',
                'where /r "%CONDA_PREFIX%" libiomp5md.dll',
            ),
        ),
    )


# The nvcc path a failed build shows, quoted by the build ("unable to execute
# '/usr/local/cuda:/usr/local/cuda-9.0/bin/nvcc'", "nvcc not found at '/opt/cuda/bin/nvcc'"), else as a
# shell or a title gives it ("/bin/sh: 1: :/usr/local/cuda/bin/nvcc: not found").
_NVCC_QUOTED = re.compile(
    r"(?:nvcc not found at|unable to execute|No such file or directory:?) ['\"]([^\n]{0,300}?/bin/nvcc)['\"]"
)
_NVCC_PATH = re.compile(
    r"((?:[A-Za-z]:)?[^\s'\"`]{0,300}?/bin/nvcc)['\"`]{0,2}:? (?:No such file or directory|not found)",
    re.IGNORECASE,
)


# The writer installing mmcv: "pip install mmcv-full", "mim install mmcv", "安装MMCV报错" (installing MMCV
# failed).
_MMCV_INSTALLED = re.compile(
    r"\b(?:pip3?|mim) install\s(?:-U\s)?mmcv(?:-full)?\b|(?:\binstall\w{0,3}\s|安装)mmcv", re.IGNORECASE
)


# FlashInfer compiles its kernels on first use (the sampling and attention of vLLM and SGLang): its message,
# or its frames. Its prebuilt kernels (flashinfer-cubin, flashinfer-jit-cache: its README, "Package
# Options") need no nvcc; vLLM's VLLM_USE_FLASHINFER_SAMPLER=0 (vllm/envs.py) keeps its sampler off it.
_FLASHINFER_JIT = re.compile(
    r"Could not find nvcc and default cuda_home=['\"]?([^'\"\s]{1,200})|[/\\]flashinfer[/\\]jit[/\\]"
)


def _flashinfer_without_nvcc(found: re.Match[str]) -> Analysis:
    where = f" ({found[1]} does not exist)" if found[1] else ""
    line = (
        "FlashInfer compiles its kernels on first use and looked for nvcc: CUDA_HOME or CUDA_PATH, the nvcc "
        f"on PATH, then /usr/local/cuda{where}"
    )
    fix = Fix(
        "Give FlashInfer its kernels prebuilt, so that it compiles nothing: flashinfer install-cubin-wheel "
        "and flashinfer install-jit-cache-wheel (the flashinfer-cubin and flashinfer-jit-cache packages of "
        "its release and this CUDA). Or give it a CUDA toolkit: a CUDA -devel image in place of -runtime, or "
        "a toolkit of torch's CUDA release with CUDA_HOME pointed at its root (export "
        "CUDA_HOME=/usr/local/cuda-12.8 and PATH=$CUDA_HOME/bin:$PATH). In vLLM, "
        "VLLM_USE_FLASHINFER_SAMPLER=0 keeps the sampler off FlashInfer.",
        ("flashinfer show-config", "flashinfer install-jit-cache-wheel", "which nvcc"),
    )
    cause = (
        "FlashInfer (the sampling and attention kernels of vLLM and SGLang) compiles its CUDA kernels on "
        "first use with nvcc from a CUDA toolkit, and found none: torch's wheels and a CUDA -runtime image "
        "bring the CUDA runtime, not nvcc, and no prebuilt kernels of FlashInfer's were installed for this "
        "release."
    )
    return Analysis(evidence=(line,), cause=cause, fix=fix)


def analyse_cuda_home(text: str) -> Analysis:
    """The nvcc path the build tried, and what is wrong with CUDA_HOME where the path shows it: a list of
    paths or a stray ':', quotes inside it, its bin folder. A build of mmcv is pip's fallback for a wheel
    it did not find: the pre-built wheel comes first."""
    tail = text[-200_000:]
    built = (*_MMCV_ENTRY.compiled_symptoms, _MMCV_INSTALLED)
    mmcv = next((m for p in built if (m := last_match(p, tail)) is not None), None)
    if mmcv is not None:
        shown = mmcv[0].strip("/\\")
        line = f"pip is compiling mmcv from source ({shown})"
        return Analysis(evidence=(line,), fix=_MMCV_ENTRY.fix)
    flashinfer = last_match(_FLASHINFER_JIT, tail)
    if flashinfer is not None:
        return _flashinfer_without_nvcc(flashinfer)
    found = last_match(_NVCC_QUOTED, tail) or last_match(_NVCC_PATH, tail)
    if found is None:
        return Analysis()
    path = found[1]
    root = path.removesuffix("/bin/nvcc")
    evidence = [f"the build looked for nvcc at {path}"]
    if ":" in root.removeprefix(root[:2] if root[1:2] == ":" else ""):
        evidence.append(f"CUDA_HOME holds '{root}': more than one path or a stray ':', not one toolkit root")
    elif "'" in root or '"' in root:
        evidence.append(f"CUDA_HOME holds quotes ({root}): they become part of the path")
    elif root.endswith("/bin"):
        evidence.append(f"CUDA_HOME is the toolkit's bin folder ({root}), not its root")
    else:
        evidence.append(f"no nvcc at {path}: no CUDA toolkit there, or CUDA_HOME points at the wrong one")
    return Analysis(evidence=tuple(evidence))


_CUDA_MISMATCH = re.compile(
    r"The detected CUDA version \((\d{1,2}\.\d{1,2})\) mismatches the version that was used to compile"
    r"\s{0,20}PyTorch \((\d{1,2}\.\d{1,2})\)"
    r"|Installed CUDA version (\d{1,2}\.\d{1,2}) does not match the version torch was compiled with "
    r"(\d{1,2}\.\d{1,2})"
)
# DeepSpeed's own part of the fix; the rest is the entry's (_CUDA_VERSION_MISMATCH).
_DEEPSPEED_CUDA_CHECK = (
    "DeepSpeed's op builder makes the same check before it compiles its ops (at install with "
    "DS_BUILD_OPS=1, or at first use); DS_SKIP_CUDA_CHECK=1 skips it: harmless where only the minor releases "
    "differ, while ops built across major releases fail to load."
)


def analyse_cuda_version_mismatch(text: str) -> Analysis:
    """The toolkit's CUDA and torch's, as the message gives them (torch's words or DeepSpeed's)."""
    found = last_match(_CUDA_MISMATCH, text[-200_000:])
    if found is None:
        return Analysis()
    toolkit, built_for = (found[1], found[2]) if found[1] else (found[3], found[4])
    line = f"the CUDA toolkit found is {toolkit}; the installed torch was built for CUDA {built_for}"
    if found[1]:
        return Analysis(evidence=(line,))
    return Analysis(
        evidence=(line,),
        cause=(
            "DeepSpeed's op builder (and builders copied from it) compiles CUDA ops with the toolkit it "
            f"finds (CUDA_HOME, else the nvcc on PATH) and refuses CUDA {toolkit} because the installed "
            f"torch was built for CUDA {built_for}: a CUDA version mismatch between the toolkit and torch."
        ),
        fix=Fix(
            f"{_CUDA_VERSION_MISMATCH.fix.text} {_DEEPSPEED_CUDA_CHECK}", _CUDA_VERSION_MISMATCH.fix.commands
        ),
    )


# The GPU the container refuses, and the container's release and PyTorch from its banner.
_CONTAINER_REFUSED = re.compile(
    r"Detected NVIDIA (?:NVIDIA )?(.{2,60}?) GPU, which is not yet supported in this version of the container"
)
_NGC_RELEASE = re.compile(r"NVIDIA Release (\d{2}\.\d{2})")
_NGC_TORCH = re.compile(r"PyTorch Version (\S{3,40})")
# The NGC image the text builds on or runs: "FROM nvcr.io/nvidia/tensorrt:22.07-py3", "nvcr.io/nvidia/pytorch:
# 19.10-py3".
_NGC_IMAGE = re.compile(r"nvcr\.io/nvidia/([a-z][\w-]{1,40}):(\d{2}\.\d{2})(?:-py3)?\b")


def analyse_container_gpu(text: str) -> Analysis:
    """The GPU refused, its compute capability, and the container's release as its banner gives them."""
    tail = text[-200_000:]
    refused = last_match(_CONTAINER_REFUSED, tail)
    if refused is None:
        return Analysis()
    evidence = [f"the container refuses the {refused[1]}"]
    named = _capability_named(refused[0])
    if named is not None:
        (major, minor), _ = named
        evidence[0] += f", a GPU of compute capability {major}.{minor}"
    release, torch_version = last_match(_NGC_RELEASE, tail), last_match(_NGC_TORCH, tail)
    if release is not None:
        with_torch = f", with PyTorch {torch_version[1]}" if torch_version is not None else ""
        evidence.append(f"the container is NVIDIA's release {release[1]}{with_torch}")
    else:
        image = last_match(_NGC_IMAGE, tail)
        if image is not None:
            evidence.append(f"the image is NVIDIA's {image[1]} container of release {image[2]} ({image[0]})")
    return Analysis(evidence=tuple(evidence))


# The folder the link line gives the linker for libcudart ("-L/opt/conda/envs/x/lib64 -lcudart").
_CUDART_LINKED_FROM = re.compile(r"-L(\S{1,300}?) -lcudart\b")


def analyse_cudart_not_found(text: str) -> Analysis:
    return quoted(
        _CUDART_LINKED_FROM,
        text,
        lambda found: (
            f"the linker looked for libcudart.so in {found[1]} (the link line's -L{found[1]} -lcudart)"
        ),
    )


# pip's isolated build environment, and the torch it holds: a torch file under it, or pip's own line of
# what it installed there ("Successfully installed ... torch-2.3.1+cpu ...").
_BUILD_ENV = re.compile(r"pip-build-env-\w{1,20}")
_BUILD_ENV_TORCH = re.compile(
    r"pip-build-env-\w{1,20}[/\\]{1,2}(?:overlay|normal)[/\\]{1,2}[^\n\"']{0,80}?site-packages[/\\]{1,2}torch[/\\]"
)
_INSTALLED_TORCH = re.compile(
    r"Successfully installed [^\n]{0,4000}?\btorch-(\d{1,3}\.\d{1,3}(?:\.\d{1,3})?(?:\+[\w.]{1,20})?)(?!\S)"
)


def analyse_isolated_torch(text: str) -> Analysis:
    """The isolated build environment the text shows, whether a torch is in it, the torch pip put there."""
    tail = text[-200_000:]
    environment = last_match(_BUILD_ENV, tail)
    if environment is None:
        return Analysis()
    holds_torch = _BUILD_ENV_TORCH.search(tail) is not None
    evidence = [
        f"the build ran in pip's isolated build environment ({environment[0]})"
        + (", and imported the torch inside it" if holds_torch else "")
    ]
    installed = last_match(_INSTALLED_TORCH, tail)
    if installed is not None:
        evidence.append(f"pip installed torch {installed[1]} there, whatever torch the environment has")
    return Analysis(evidence=tuple(evidence))


_PYBIND_CALL = re.compile(
    r"(\w{1,80})\(\): incompatible function arguments\. The following argument types are supported:"
    r"\s{0,200}?(?:1\.\s{0,4})?\(((?:[^()\n]|\([^()\n]{0,200}\)){0,2000})\)"
)
# The module the call goes through ("causal_conv1d_cuda.causal_conv1d_fwd("): its package, by its name.
_EXTENSION_MODULE = re.compile(r"\b(\w{1,60}?)(?:_cuda|_C|_ext|_cpp)?\.(\w{1,80})\(")


def analyse_incompatible_arguments(text: str) -> Analysis:
    """The function, the number of arguments its compiled form takes, and its package where the call shows
    the module."""
    tail = text[-200_000:]
    found = last_match(_PYBIND_CALL, tail)
    if found is None:
        return Analysis()
    function, signature = found[1], found[2]
    taken = len(re.findall(r"\barg\d{1,3}:", signature))
    line = f"{function}() was called with other arguments than its compiled form takes"
    evidence = [line + (f" ({taken} arguments)" if taken else "")]
    for call in _EXTENSION_MODULE.finditer(tail):
        if call[2] == function and call[1] != function:
            package = call[1].replace("_", "-")
            evidence.append(f"the compiled function is {call[1]}'s (the {package} package, by its name)")
            break
    return Analysis(evidence=tuple(evidence))


# Triton's three failures, the most telling first: no C compiler for its launcher, no working Triton for
# torch.compile, and xformers' notice that its optional Triton kernels are off.
_NO_C_COMPILER = re.compile(r"Failed to find C compiler", re.IGNORECASE)
_NO_TRITON = re.compile(r"Cannot find a working triton installation", re.IGNORECASE)
_TRITON_WINDOWS = (
    "On Windows, where there is no official Triton: pip install -U triton-windows, of the Triton minor "
    "release the installed torch pairs with (triton-windows' README: torch 2.6 with 3.2, 2.7 with 3.3, one "
    "Triton minor release per torch minor release; pip uninstall triton first where an old one is installed)."
)
_TRITON_LINUX = (
    "On Linux, torch's wheel brings the triton it was built with, so one missing or too old was replaced by "
    "another install: pip install --force-reinstall torch (from the index it came from) brings it back."
)
_COMPILER_WINDOWS = (
    "On Windows: pip install -U triton-windows (its wheels bring their own C compiler, TinyCC, from "
    "3.2.0.post13 on); with an older or custom wheel, install Visual Studio Build Tools (the 'Desktop "
    "development with C++' workload) and start the program from the x64 Native Tools prompt, or set CC to "
    "MSVC's cl.exe (its full path, ending in bin\\Hostx64\\x64\\cl.exe) with that folder on PATH."
)
_COMPILER_LINUX = "On Linux: install gcc (sudo apt install build-essential) or set CC to a C compiler."
_WITHOUT_COMPILE = (
    "without compilation: the program's compile option off (a TorchCompile node removed, --compile off), "
    "or torch._dynamo.config.suppress_errors = True to fall back to eager."
)


def _triton_windows_pin(text: str) -> str | None:
    """The triton-windows requirement for the torch release the text states: the Triton minor release torch
    pins on Linux, which triton-windows' README pairs with the same torch from torch 2.5 on."""
    torch_version = versions_said(text).get("torch")
    row = pairing.row_for(torch_version) if torch_version else None
    if row is None or row.triton is None or Version(row.torch) < Version("2.5"):
        return None
    pins = [str(p.get("specifier") or "") for p in row.triton if p.get("name") == "triton"]
    found = re.fullmatch(r"==(\d+)\.(\d+)\.\d+", pins[0]) if pins else None
    if found is None:
        return None
    major, minor = int(found[1]), int(found[2])
    return f'pip install -U "triton-windows>={major}.{minor},<{major}.{minor + 1}" (torch {row.torch})'


def _platform_first(windows: bool, on_windows: str, on_linux: str) -> str:
    return f"{on_windows} {on_linux}" if windows else f"{on_linux} {on_windows}"


# inductor's own check (torch/_inductor/scheduler.py create_backend, exc.py GPUTooOldForTriton): "Found <GPU>
# which is too old to be supported by the triton GPU compiler ... Triton only supports devices of CUDA
# Capability >= 7.0, but your device is of CUDA capability <major>.<minor>"; torch/_dynamo/config.py reads
# TORCH_COMPILE_DISABLE.
_TRITON_GPU_TOO_OLD = re.compile(
    r"Found ([^\n]{1,80}?) which is too old to be supported by the triton GPU compiler", re.IGNORECASE
)
_TRITON_CAPABILITY = re.compile(
    r"Triton only supports devices of CUDA Capability >= 7\.0, but your device is of CUDA capability "
    r"(\d\.\d)",
    re.IGNORECASE,
)


def _gpu_too_old_for_triton(gpu: str | None, capability: str | None) -> Analysis:
    shown = ", ".join(
        part for part in (gpu, f"compute capability {capability}" if capability else None) if part
    )
    return Analysis(
        evidence=(f"the GPU: {shown}; Triton runs on capability 7.0 (Volta) and newer",),
        cause="torch.compile's inductor backend generates its GPU kernels with Triton, which supports GPUs "
        "of compute capability 7.0 and newer, and this GPU is older (Pascal: GTX 10x0, TITAN X, P100, P40, "
        "P4; Maxwell and Kepler): no Triton release and no reinstall changes that.",
        fix=Fix(
            "Run without compilation: the program's compile option off (compile=False, --compile off, a "
            "TorchCompile node removed), or TORCH_COMPILE_DISABLE=1 in the environment (torch.compile then "
            "runs the model eagerly); or run on a GPU of compute capability 7.0 or newer (T4, V100, RTX 20x0 "
            "and later).",
            ("TORCH_COMPILE_DISABLE=1 python train.py",),
        ),
    )


def analyse_triton(text: str) -> Analysis:
    """Which of Triton's failures the text shows, with the way out for the platform it names (Windows first
    where it names Windows, else Linux first); xformers' notice alone is harmless."""
    tail = text[-200_000:]
    gpu, capability = last_match(_TRITON_GPU_TOO_OLD, tail), last_match(_TRITON_CAPABILITY, tail)
    if gpu is not None or capability is not None:
        return _gpu_too_old_for_triton(gpu and gpu[1], capability and capability[1])
    windows = _WINDOWS.search(tail) is not None
    evidence = ("the text is about Windows, which has no official Triton",) if windows else ()
    if _NO_C_COMPILER.search(tail) is not None:
        return Analysis(
            evidence=evidence,
            cause="Triton compiles a small C launcher for its kernels the first time they run "
            "(torch.compile's inductor, SageAttention), and it found no C compiler: none of cc, gcc or clang "
            "on PATH (on Windows, MSVC's cl.exe), and CC not set.",
            fix=Fix(
                f"{_platform_first(windows, _COMPILER_WINDOWS, _COMPILER_LINUX)} Or run {_WITHOUT_COMPILE}"
            ),
        )
    if _NO_TRITON.search(tail) is not None:
        pin = _triton_windows_pin(tail)
        return Analysis(
            evidence=evidence + ((f"for Windows, the text's torch: {pin}",) if pin else ()),
            cause="torch.compile's inductor backend generates its GPU kernels with Triton, and no working "
            "Triton is installed"
            + (
                ": Windows has no official Triton, so it is there only where triton-windows was installed."
                if windows
                else ", or it is too old for this torch (Windows has no official Triton; on Linux torch's "
                "wheel brings its own)."
            ),
            fix=Fix(f"Run {_WITHOUT_COMPILE} {_platform_first(windows, _TRITON_WINDOWS, _TRITON_LINUX)}"),
        )
    return Analysis(
        evidence=evidence,
        cause="xformers (and libraries that import it) checks at import whether Triton imports and, where it "
        "does not (Windows has no official Triton), leaves its optional Triton kernels off and says so: a "
        "notice, not an error; the program runs on without them.",
        fix=Fix(
            "Nothing to install: the notice can be ignored (the program works without Triton; on Windows the "
            "community triton-windows package would enable those kernels)."
        ),
    )


# The text shows WSL: its name, or its driver folder (/usr/lib/wsl: "wsl" there is a word of its own).
# WSL 1 has no GPU, so "WSL1" is not this platform.
_WSL = re.compile(r"\bWSL2?\b", re.IGNORECASE)

# The NVML function a traceback calls, and the platforms known to answer only part of NVML.
_NVML_CALL = re.compile(r"\b(nvml(?:Device|System|Unit)\w{2,60})\b")
_NVML_PLATFORMS = (
    (re.compile(r"\bGB10\b|\bDGX Spark\b", re.IGNORECASE), "DGX Spark's GB10 (unified memory)"),
    (re.compile(r"\bJetson\b|\bTegra\b|\bJetPack\b", re.IGNORECASE), "a Jetson (Tegra) board"),
    (_WSL, "WSL"),
)


def analyse_nvml_not_supported(text: str) -> Analysis:
    """The NVML query the traceback names and the platform the text names."""
    tail = text[-200_000:]
    evidence = []
    call = last_match(_NVML_CALL, tail)
    if call is not None:
        evidence.append(f"the query NVML does not answer here: {call[1]}")
    platform = next((name for words, name in _NVML_PLATFORMS if words.search(tail)), None)
    if platform is not None:
        evidence.append(f"the GPU is on {platform}")
    return Analysis(evidence=tuple(evidence))


_LIBCUDA_WSL_FIRST = re.compile(r"^(.*?)(On Linux: .*)$", re.DOTALL)


def analyse_libcuda(text: str) -> Analysis:
    """Where the text shows WSL, the entry's fix as written (WSL's first); elsewhere its Linux part first."""
    if _WSL.search(text[-200_000:]) is not None:
        return Analysis(evidence=("the text is about WSL",))
    parts = _LIBCUDA_WSL_FIRST.match(_LIBCUDA.fix.text)
    if parts is None:
        return Analysis()
    return Analysis(fix=Fix(f"{parts[2]} {parts[1].strip()}", _LIBCUDA.fix.commands))


# The library GNU ld could not link: the path before "error adding symbols".
_WRONG_FORMAT = re.compile(r"(?:^|[\s:])([^\s:]{1,300}?\.(?:so|a|o)(?:\.[\d.]{1,20})?): error adding symbols")
_ARM_WORDS = re.compile(r"\b(?:aarch64|arm64|armv7l|Jetson|Raspberry Pi|Drive PX2?)\b", re.IGNORECASE)


def analyse_wrong_architecture(text: str) -> Analysis:
    """The library the linker refused, and the ARM machine where the text names it."""
    return quoted_lines(
        text,
        (_WRONG_FORMAT, lambda found: f"the library of another architecture: {found[1]}"),
        (_ARM_WORDS, lambda found: f"the machine it is linked on: {found[0]}"),
    )


def analyse_no_cuda_runtime(text: str) -> Analysis:
    """Where the text shows a container, its GPUs lead the fix; a CPU-only torch the text shows is named."""
    tail = text[-200_000:]
    cpu_build = last_match(_CPU_BUILD_SAID, tail)
    if cpu_build is not None:
        return Analysis(evidence=(f"the text shows a CPU-only torch ({cpu_build[0]})",))
    bundle = last_match(_BUNDLED, tail)
    if bundle is not None:
        return Analysis(evidence=(f"the build runs in a container ({' '.join(bundle[0].split())})",))
    return Analysis()


# The glibc a binary asks for and the binary: "version `GLIBC_2.27' not found (required by /x/y.so)".
_GLIBC_WANTED = re.compile(
    r"version [`'‘’\"]{0,2}GLIBC_(\d{1,2}\.\d{1,3})[`'‘’\"]{0,2} not found"
    r"(?: \(required by ([^)\s]{1,300})\))?"
)


def analyse_glibc(text: str) -> Analysis:
    """The glibc version the binary needs, and the binary."""
    found = last_match(_GLIBC_WANTED, text[-200_000:])
    if found is None:
        return Analysis()
    evidence = [
        f"the binary needs glibc {found[1]} (GLIBC_{found[1]}) or newer; ldd --version names this one"
    ]
    if found[2]:
        evidence.append(f"the binary: {found[2]}")
    return Analysis(evidence=tuple(evidence))


# The providers an onnxruntime without CUDA offers, as its warning or a printed list gives them, and a pip
# list of both packages ("onnxruntime   1.19.0" and "onnxruntime-gpu   1.18.1").
_ORT_PROVIDERS = re.compile(
    r"Available providers: '([\w, ]{1,200})'?"
    r"|(?:available[ _]providers?|runtime providers)\W{0,40}\[([\w'\", ]{1,200})\]",
    re.IGNORECASE,
)
_ORT_PACKAGE = re.compile(r"(?m)^[ \t]{0,8}(onnxruntime(?:-gpu)?)[ \t]{1,40}(\d[\w.]{0,30})[ \t]*$")


def analyse_onnxruntime_packages(text: str) -> Analysis:
    """The providers the installed onnxruntime offers, and both packages where a pip list shows them."""
    tail = text[-200_000:]
    evidence = []
    providers = last_match(_ORT_PROVIDERS, tail)
    if providers is not None:
        names = re.findall(r"\w+ExecutionProvider", providers[1] or providers[2])
        if names and "CUDAExecutionProvider" not in names:
            evidence.append(f"the onnxruntime imported offers {', '.join(names)}: no CUDAExecutionProvider")
    installed = {found[1]: found[2] for found in islice(_ORT_PACKAGE.finditer(tail), 20)}
    if len(installed) == 2:
        cpu, gpu = installed["onnxruntime"], installed["onnxruntime-gpu"]
        evidence.append(f"both onnxruntime {cpu} and onnxruntime-gpu {gpu} are installed")
    return Analysis(evidence=tuple(evidence))


# A Linux or a macOS the text names (a Windows one is _WINDOWS'), and a line of code that sets the device to
# 'mps'.
_LINUX = re.compile(r"\b(?:Linux|Ubuntu|Debian|CentOS|Fedora|Rocky)\b|(?<![\w.])/home/\w")
_MACOS = re.compile(
    r"\b(?:macOS|Mac ?OS(?: X)?|OS X|Darwin|Apple silicon|M[1-4] (?:Pro|Max|Ultra|chip))\b"
    r"|(?<![\w.])/Users/\w",
    re.IGNORECASE,
)
_MPS_ON_A_MAC = Analysis(
    cause=(
        "The program moves a model or tensor to 'mps', and on this Mac the torch in use was built without "
        "MPS: a build from source made without it, or a torch from before MPS came to torch's macOS builds."
    ),
    fix=Fix(
        "Install torch's macOS wheel in this environment (pip install --upgrade torch): "
        "torch.backends.mps.is_built() says whether a build has MPS, torch.backends.mps.is_available() "
        "whether this Mac can use it (a recent macOS); or run on the CPU with device='cpu'.",
        ('python -c "import torch; print(torch.__version__, torch.backends.mps.is_built())"',),
    ),
)
_MPS_IN_CODE = re.compile(r"(?m)^[^\n]{0,200}?(?:[\"']mps[\"']|--device[ =]mps\b)[^\n]{0,200}$")


def analyse_no_mps(text: str) -> Analysis:
    """The platform the text shows, the CUDA build or NVIDIA GPU it has instead, and the code that asks for
    'mps'."""
    tail = text[-200_000:]
    mac = last_match(_MACOS, tail)
    if mac is not None and _WINDOWS.search(tail) is None:
        return replace(_MPS_ON_A_MAC, evidence=(f"the text shows macOS ({' '.join(mac[0].split())})",))
    evidence = []
    if _WINDOWS.search(tail) is not None:
        evidence.append("the text shows Windows, where no torch has MPS")
    elif _LINUX.search(tail) is not None:
        evidence.append("the text shows Linux, where no torch has MPS")
    seen = _seen(text)
    if seen.version is not None and seen.cuda is not None:
        evidence.append(f"this torch is a CUDA build ({seen.version}): 'cuda' reaches the GPU")
    gpu = last_match(_NVIDIA_GPU, tail)
    if gpu is not None:
        evidence.append(f"the machine has an NVIDIA GPU ({' '.join(gpu[0].split())}): 'cuda' reaches it")
    code = last_match(_MPS_IN_CODE, tail)
    if code is not None:
        evidence.append(f"the code sets the device to 'mps': {clipped(' '.join(code[0].split()), 160)}")
    return Analysis(evidence=tuple(evidence))


# The packages whose GitHub releases carry prebuilt CUDA wheels, as a text names them ("Mamba-ssm1.1.0",
# "causal_conv1d", "flash-attn").
_RELEASE_WHEEL_PACKAGE = re.compile(
    r"\b(flash[-_]attn|mamba[-_]ssm|causal[-_]conv1d)(?![a-z])", re.IGNORECASE
)
_WHEEL_GUESSED = re.compile(r"Guessing wheel URL:\s{0,4}(https://\S{1,300}?\.whl)")
_WHEEL_NOT_FOUND = re.compile(r"Precompiled wheel not found")
# The torch the build ran against, as these setup.py files print it ("torch.__version__  = 2.4.0+cu121").
_TORCH_BUILT = re.compile(r"torch\.__version__\s{0,4}=\s{0,4}((\d{1,2}\.\d{1,2})\.\d{1,3}\+cu(\d{3}))\b")
_WHEEL_NOT_DOWNLOADED = re.compile(
    r"urlopen error|Connection reset by peer|timed out|Name or service not known"
)


def _release_wheel_evidence(text: str) -> tuple[str, ...]:
    """The packages with release wheels the text names, and what their setup.py said of the wheel."""
    named = list(
        dict.fromkeys(found[1].lower().replace("_", "-") for found in _RELEASE_WHEEL_PACKAGE.finditer(text))
    )
    if not named:
        return ()
    whose = "their" if len(named) > 1 else "its"
    evidence = [f"the build is {' and '.join(named)}'s: {whose} releases carry prebuilt wheels"]
    torch_built = last_match(_TORCH_BUILT, text)
    if torch_built is not None:
        version, release, cuda = torch_built[1], torch_built[2], torch_built[3]
        evidence.append(
            f"torch {version}: the wheel to take is tagged "
            f"cu{cuda[:-1]}torch{release} (older releases: cu118 for CUDA 11, cu122 or cu123 for CUDA 12)"
        )
    guessed = last_match(_WHEEL_GUESSED, text)
    if guessed is not None:
        evidence.append(f"its setup.py looked for {guessed[1]}")
    if _WHEEL_NOT_FOUND.search(text) is not None:
        evidence.append("no wheel of that name was found, so it compiled")
    elif _WHEEL_NOT_DOWNLOADED.search(text) is not None and guessed is not None:
        evidence.append("it could not download the wheel (no access to GitHub), so it compiled")
    return tuple(evidence)


def analyse_release_wheel(text: str) -> Analysis:
    return Analysis(evidence=_release_wheel_evidence(text))


def analyse_setup_build(text: str) -> Analysis:
    """A failed build of a package whose releases carry prebuilt wheels: the fix leads with the wheel."""
    evidence = _release_wheel_evidence(text)
    if not evidence:
        return Analysis()
    wheel, build = _RELEASE_WHEEL.fix, _SETUP_BUILD.fix
    return Analysis(
        evidence=evidence,
        fix=Fix(f"{wheel.text} {build.text}", (*wheel.commands, *build.commands)),
    )


_EGL_CALL = re.compile(r"(?:\[F glutil\.cpp:(?P<line>\d+)\] )?(?P<call>egl\w+)\(\) failed", re.IGNORECASE)


def analyse_egl_unavailable(text: str) -> Analysis:
    """The EGL call that failed, and nvdiffrast's line that stopped the process."""
    failed = last_match(_EGL_CALL, text[-200_000:])
    if failed is None:
        return Analysis()
    where = f" at glutil.cpp:{failed['line']} (nvdiffrast)" if failed["line"] else ""
    return Analysis(evidence=(f"{failed['call']}() failed{where}: EGL could not start on this machine",))


# Each renderer's failure to get an OpenGL context without a display, with what it says.
_NO_DISPLAY = re.compile(
    r"NoSuchDisplayException: Cannot connect to [\"“](?P<display>[^\"”\n]{0,40})[\"”]"
    r"|(?P<window>Failed to initialize Pyglet window with an OpenGL)"
    r"|(?P<glx>'GLXPlatform' object has no attribute 'EGL')"
    r"|egl\.py\", line \d{1,5}, in (?P<device>get_device_by_index)"
)


def analyse_no_display(text: str) -> Analysis:
    """What the renderer says it could not do: connect to the display, open a window, find an EGL device, or
    find EGL on the platform PyOpenGL chose."""
    found = last_match(_NO_DISPLAY, text[-200_000:])
    if found is None:
        return Analysis()
    if found["window"]:
        line = "pyrender could not open a pyglet window: no display, and no offscreen platform chosen"
    elif found["glx"]:
        line = (
            "PyOpenGL runs on GLX (an X display), not EGL: PYOPENGL_PLATFORM was not egl when OpenGL was "
            "first imported (or MUJOCO_GL and PYOPENGL_PLATFORM differ)"
        )
    elif found["device"]:
        line = (
            "pyrender's EGL platform found no EGL device: the NVIDIA driver's EGL library is not visible "
            "here (a container without the graphics capability, a driver without libEGL_nvidia)"
        )
    else:
        shown = found["display"]
        where = "DISPLAY is not set (no X server in this session)" if shown in ("None", "") else "no X server"
        line = f'pyglet: Cannot connect to "{shown}": {where}'
    return Analysis(evidence=(line,))


# pip's lines "somepkg 1.2.3 requires torch<2.7,>=2.2.1, but you have torch 2.8.0+cu128 which is
# incompatible".
_TORCH_REQUIREMENT = re.compile(
    r"\b(?P<package>[A-Za-z0-9][\w.-]{0,80}) (?P<version>[\w.+!-]{1,40}) requires torch\b"
    r"(?P<spec>[^\n]{0,80}?), but you have torch (?P<have>[\w.+-]{1,60}?)\.? which is incompatible"
)


def analyse_torch_requirement_conflict(text: str) -> Analysis:
    """Each package's requirement on torch and the torch installed; the matched set of torch and the
    companions named (their releases for the installed torch), or the package to upgrade."""
    conflicts = list(islice(_TORCH_REQUIREMENT.finditer(text[-200_000:]), 8))
    if not conflicts:
        return Analysis()
    evidence = tuple(
        dict.fromkeys(
            f"{c['package']} {c['version']} requires torch{c['spec'].strip()}; "
            f"the installed torch is {c['have']}"
            for c in conflicts
        )
    )
    have = conflicts[-1]["have"]
    companions = [c for c in conflicts if c["package"].lower() in pairing.PAIRED]
    if not companions:
        named = conflicts[-1]["package"]
        return Analysis(
            evidence=evidence,
            fix=Fix(
                f"Upgrade {named} to a release whose requirement allows torch {have} (pip install -U "
                f"{named}; pip show {named} lists what it requires), or install a torch it allows "
                f"(torch{conflicts[-1]['spec'].strip()}) where that torch runs on this GPU; pip install "
                f"--no-deps {named} keeps this torch, a combination its makers did not test.",
                ("pip check",),
            ),
        )
    row = pairing.row_for(have)
    # the index of the torch's build, or of the companion's where the torch's version has no label
    labels = (companions_judge.index_label(c[part]) for c in conflicts for part in ("have", "version"))
    label = next((found for found in labels if found is not None), None)
    pins = [f"torch=={have.split('+')[0]}"]
    for name in dict.fromkeys(c["package"].lower() for c in companions):
        # a release the table does not pair (a nightly torch): pip's resolver picks the one whose own
        # requirement is the torch pinned beside it
        release = row.companion(name) if row is not None else None
        if release is None:
            pins.append(name)
        else:
            line = release.count(".") == 1  # the table names a release line: pip fills in the patch release
            pins.append(companions_judge.shell_word(f"{name}=={release}" + (".*" if line else "")))
    nightly = "/nightly" if ".dev" in have else ""
    index = f" --index-url {cuda_compat.WHEEL_ROOT}{nightly}/{label}" if label else ""
    return Analysis(
        evidence=evidence,
        fix=Fix(
            "Install torch and its companions as one matched set, in one pip command from the same index: "
            f"pip install {' '.join(pins)}{index} (the companions' releases for the installed torch); or "
            "move torch to the release they were made for where the program allows it, or uninstall the "
            "companions the program does not use.",
            ("pip check",),
        ),
    )


_TORCH_INIT_FRAME = re.compile(r'File "(?P<folder>[^"\n]{1,300}?)[/\\]torch[/\\]__init__\.py", line \d')


def analyse_compiled_core_missing(text: str) -> Analysis:
    """Where torch was imported from, where the traceback shows its __init__.py: a source checkout, or an
    installed tree."""
    tail = text[-200_000:]
    frame = last_match(_TORCH_INIT_FRAME, tail)
    if frame is None:
        return Analysis()
    folder = frame["folder"]
    if installed_package(f"{folder}/torch/") is None:
        line = f"torch is imported from {folder}, not from site-packages: a source checkout"
        fix = Fix(
            f"Run Python from another directory than {folder} (or take it off PYTHONPATH), so that the "
            "installed torch is imported, or build the checkout in place: pip install "
            "--no-build-isolation -v -e . there."
        )
        return Analysis(evidence=(line,), fix=fix)
    line = f"torch is imported from {folder}: an installed torch without its compiled _C for this Python"
    return Analysis(evidence=(line,))


_PYTHON_COMMANDS = frozenset({"python", "python3", "pip", "pip3", "conda", "py"})
_SYSTEM_COMMANDS = frozenset(
    {"git", "git-lfs", "wget", "curl", "ffmpeg", "ffprobe", "unzip", "tar", "make", "gcc", "g++", "cc", "c++"}
    | {"cl", "sudo", "apt", "apt-get", "7z", "aria2c", "espeak", "sox"}
)
# a console script whose pip name is another
_COMMAND_PACKAGE = {"huggingface-cli": "huggingface_hub"}


def analyse_command_not_found(text: str) -> Analysis:
    """The command the shell did not find (its entry's symptoms name it), and what brings it."""
    found = _COMMAND_NOT_FOUND.last_symptom(text[-200_000:])
    if found is None:
        return Analysis()
    command = found["command"].strip()
    evidence = (f"the shell found no command {command}",)
    name = command.lower().removesuffix(".exe")
    if name == "torchrun":
        return Analysis(
            evidence=evidence,
            cause=(
                "torchrun comes with torch (1.10 and later): its command is in the bin folder (Scripts on "
                "Windows) of the environment torch is installed in, and the shell that ran it is not in that "
                "environment, or the environment has no torch."
            ),
            fix=Fix(
                "Activate the environment that has torch before running the script (conda activate <env>, or "
                "source <venv>/bin/activate), or install torch there; or run the launcher through that "
                "environment's python: python -m torch.distributed.run with the same arguments."
            ),
        )
    if name == "nvcc":
        return Analysis(
            evidence=evidence,
            cause=(
                "nvcc, CUDA's compiler, comes with the CUDA toolkit, not with torch's wheels or conda's CUDA "
                "runtime: no toolkit is installed, or its bin folder is not on PATH."
            ),
            fix=Fix(
                "Install the CUDA toolkit of torch's CUDA release (torch.version.cuda) and put its bin "
                "folder on PATH (export PATH=/usr/local/cuda/bin:$PATH, with CUDA_HOME=/usr/local/cuda), or "
                "conda install -c nvidia cuda-nvcc of that release.",
                ('python -c "import torch; print(torch.version.cuda)"',),
            ),
        )
    if name in _PYTHON_COMMANDS:
        return Analysis(
            evidence=evidence,
            cause=f"No Python environment with {command} is on this shell's PATH: none is active, or Python "
            "was installed without adding itself to PATH.",
            fix=Fix(
                "Activate the environment the program uses (conda activate <env>; source "
                "<venv>/bin/activate; on Windows <venv>\\Scripts\\activate), or install Python with 'Add "
                "python.exe to PATH'; on Debian and Ubuntu python is python3 (apt install python-is-python3)."
            ),
        )
    if name in _SYSTEM_COMMANDS:
        return Analysis(
            evidence=evidence,
            cause=f"{command} is a system program, not a Python package, and it is not installed or not on "
            "PATH.",
            fix=Fix(
                f"Install {command} with the system's package manager (apt install, brew install; on Windows "
                "winget or its installer, with its folder added to PATH), then open a new terminal."
            ),
        )
    package = _COMMAND_PACKAGE.get(name, command)
    install = f"python -m pip install {package}"
    return Analysis(
        evidence=evidence,
        cause=(
            f"The program runs {command}, a command a Python package installs into its environment's bin "
            "folder (Scripts on Windows), and the shell that ran it found none: the package is not installed "
            "in the environment the program runs with (its requirements went into another Python), or that "
            "environment is not active in this shell."
        ),
        fix=Fix(
            f"Install it into the Python the program runs with: {install} (with that environment's python: a "
            "web UI's venv or embedded python; in a notebook, %pip install), or activate that environment "
            "before running the program.",
            (install,),
        ),
    )


_INVALID_ELF = re.compile(r"([^\s/`'\"]{1,200}\.so(?:\.[\d.]{1,20})?):\s{1,4}invalid ELF header")


def analyse_invalid_elf_header(text: str) -> Analysis:
    return quoted(
        _INVALID_ELF,
        text,
        lambda f: f"the loader found no ELF header in {f[1]}: the file is not a Linux shared library",
    )


_TORCH_ATTRIBUTE = re.compile(
    r"module\s[‘'\"`](torch(?:\.\w{1,40}){0,3})[’'\"`]\s{1,3}has no attribute\s[‘'\"`](\w{1,80})[’'\"`]"
)
# names every torch release has had since 1.0: a torch without them is no torch
_EVERY_TORCH = frozenset({"cuda", "nn", "Tensor", "tensor", "device", "float32", "zeros", "ones", "no_grad"})


@functools.cache
def _torch_names() -> dict[str, Any]:
    return tables.load("torch_names.json")


# torch's own source calling the name: the last frame is in an installed torch, or the text points at
# torch's file in PyTorch's repository: a bug of that torch, which no reading of the environment names
_TORCH_SOURCE_LINK = re.compile(r"github\.com/pytorch/pytorch/blob/\w{1,64}/torch/[\w/]{1,200}\.py")


def analyse_torch_attribute_missing(text: str) -> Analysis:
    tail = text[-200_000:]
    found = last_match(_TORCH_ATTRIBUTE, tail)
    if found is None:
        return Analysis()
    frame = last_frame_file(tail, found.start(), 3000)
    if (frame is not None and installed_package(frame) == "torch") or _TORCH_SOURCE_LINK.search(tail):
        return Analysis(declined=True)
    module, name = found[1], found[2]
    table = _torch_names()
    release, names = table["torch"], table["modules"].get(module)
    if module == "torch" and name in _EVERY_TORCH:
        line = (
            f"every torch has torch.{name}: the module imported as torch is not torch (a file or folder "
            "named torch on the path, an empty namespace package, a broken install)"
        )
    elif names is None:
        return Analysis()
    elif name in names:
        line = f"torch {release} has {module}.{name}: the installed torch is older than the code needs"
    else:
        line = (
            f"torch {release} has no {module}.{name} either: no name of that release (a misspelling, a name "
            "of another package, or one removed before it)"
        )
    return Analysis(evidence=(line,))


ENTRIES: tuple[Entry, ...] = catalogue_file.read(__package__, globals())
_NOT_AVAILABLE = next(e for e in ENTRIES if e.id == "cuda.not_available")
_STARTED_WITHOUT_GPUS: Entry = next(e for e in ENTRIES if e.id == "container.started_without_gpus")
_COMMAND_NOT_FOUND: Entry = next(e for e in ENTRIES if e.id == "shell.command_not_found")
_INVALID_DEVICE_FUNCTION = next(e for e in ENTRIES if e.id == "cuda.invalid_device_function")
_NOT_COMPILED = next(e for e in ENTRIES if e.id == "torch.not_compiled_with_cuda")
_OPENMP = next(e for e in ENTRIES if e.id == "openmp.duplicate_runtime")
_NOT_NVIDIA: Entry = next(e for e in ENTRIES if e.id == "gpu.not_nvidia")
_JIT_ENTRY: Entry = next(e for e in ENTRIES if e.id == "extension.build_failed")
_MMCV_ENTRY: Entry = next(e for e in ENTRIES if e.id == "mmcv.built_from_source")
_CPM_KERNELS: Entry = next(e for e in ENTRIES if e.id == "cpm_kernels.library_not_found")
_NOT_BUILT: Entry = next(e for e in ENTRIES if e.id == "extension.not_built")
_VERSION_REQUIRED: Entry = next(e for e in ENTRIES if e.id == "package.version_required")
_NO_DRIVER: Entry = next(e for e in ENTRIES if e.id == "cuda.no_driver")
_CUDA_VERSION_MISMATCH: Entry = next(e for e in ENTRIES if e.id == "build.cuda_version_mismatch")
_LIBCUDA: Entry = next(e for e in ENTRIES if e.id == "driver.libcuda_not_found")
_RELEASE_WHEEL: Entry = next(e for e in ENTRIES if e.id == "extension.release_wheel_build_failed")
_SETUP_BUILD: Entry = next(e for e in ENTRIES if e.id == "extension.setup_build_failed")
