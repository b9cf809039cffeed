"""Error messages of a torch build that does not fit the machine: CPU-only wheels, drivers, kernels, CUDA
initialisation, cuDNN and the other shared libraries, companion packages and NumPy.

Registered in the entry-point group ``torchdoctor.explanations``; quoted from where torch raises them, the
research notes (research/cuda_semantics.md, research/ddp_dryrun.md 3), and the real texts of
tests/corpus/errors.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from torchdoctor.checks.install import builds, companions_judge, cuda_compat, install_plan, pairing
from torchdoctor.explain import Analysis, Entry
from torchdoctor.explain.model import last_match
from torchdoctor.model import Fix


def _last(pattern: str, text: str) -> re.Match[str] | None:
    return last_match(re.compile(pattern, re.IGNORECASE), text)


_DRIVER_SEEN = re.compile(
    r"(?:Nvidia driver version|Driver Version):\s*(\d{2,4}\.\d{1,3}(?:\.\d{1,3})?)", re.IGNORECASE
)
_WINDOWS_SEEN = re.compile(r"^OS:\s*Microsoft Windows|\bwin_amd64\b|[A-Z]:\\\\?Users\\", re.MULTILINE)


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
    torch_version = _versions_seen(text).get("torch")
    release = torch_version.partition("+")[0] if torch_version else None
    label = re.fullmatch(r"cu(\d{2})(\d)", (torch_version or "").partition("+")[2])
    windows = _WINDOWS_SEEN.search(text) is not None
    driver = last_match(_DRIVER_SEEN, text)
    return _Seen(
        torch_version,
        release,
        f"{label[1]}.{label[2]}" if label else None,
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


def analyse_driver_too_old(text: str) -> Analysis:
    match = _last(r"found version (\d+)", text)
    if match is None:
        return Analysis()
    found = int(match[1])
    version = cuda_compat.decode_cuda_int(found)
    if version is None:
        return Analysis()
    supported = cuda_compat.format_cuda(version)
    evidence = (
        f"found version {found}: this driver supports CUDA up to {supported} (not a driver release number)",
    )
    plan = _plan(text, [], found)
    if plan.runs_here:
        return Analysis(
            evidence=(*evidence, *plan.evidence[:4]),
            fix=Fix(f"Update the NVIDIA driver, or: {plan.text[0].lower()}{plan.text[1:]}", plan.commands),
        )
    return Analysis(evidence=(*evidence, *plan.evidence[:4]), fix=Fix(plan.text, plan.commands))


def analyse_no_kernel(text: str) -> Analysis:
    current = _last(r"CUDA capability sm_(\d+) is not compatible", text)
    if current is not None:
        return _no_kernel_for(int(current[1]), text, text[current.end() : current.end() + 400])
    old = _last(r"which is of cuda capability (\d+)\.(\d+)", text)
    if old is not None:
        return _no_kernel_for(int(old[1]) * 10 + int(old[2]), text, "")
    return Analysis()


def _no_kernel_for(sm: int, text: str, after: str) -> Analysis:
    """Which build has kernels for compute capability ``sm`` (86 = 8.6) and runs on the driver the text names:
    the plan ``torchdoctor check`` makes for the same machine."""
    cc = (sm // 10, sm % 10)
    supports = re.search(r"supports CUDA capabilities ((?:sm_\d+ ?)+)", after)
    evidence = [f"the GPU is sm_{sm} (compute capability {cc[0]}.{cc[1]})"]
    if supports:
        evidence.append(f"the installed torch has kernels for {supports[1].strip()}")
    seen = _seen(text)
    if seen.driver_version is None:
        evidence.append(
            "the text names no driver version: the build is chosen for the newest driver it needs"
        )
    plan = _plan(text, [cc], None, supports[1].split() if supports else ())
    if plan.kind == "cpu":
        evidence.append("no current torch build has kernels for this GPU")
    return Analysis(evidence=(*evidence, *plan.evidence[:4]), fix=Fix(plan.text, plan.commands))


_INIT_ERRORS = (
    (
        "system not yet initialized",
        "CUDA error 802 (cudaErrorSystemNotReady)",
        "The GPUs are not initialised yet. On NVSwitch systems (HGX/DGX A100, H100, H200) the "
        "nvidia-fabricmanager service must run, at the same version as the driver, before CUDA can start.",
        Fix(
            "Start the fabric manager (the same version as the driver) and wait until it reports the fabric "
            "as completed.",
            ("systemctl status nvidia-fabricmanager", "sudo systemctl enable --now nvidia-fabricmanager"),
        ),
    ),
    (
        "unsupported display driver / cuda driver combination",
        "CUDA error 803 (cudaErrorSystemDriverMismatch)",
        "The CUDA user-space driver (libcuda.so) does not match the loaded kernel module: the driver was "
        "updated without a reboot, or a container or conda environment brings its own libcuda (a "
        "cuda-compat package) that differs from the host's driver.",
        Fix(
            "Reboot after a driver update; otherwise remove the extra libcuda (cuda-compat, an "
            "LD_LIBRARY_PATH entry) so that the driver's own library is loaded.",
            ("cat /proc/driver/nvidia/version", "ldconfig -p | grep libcuda.so"),
        ),
    ),
    (
        "forward compatibility was attempted on non supported HW",
        "CUDA error 804 (cudaErrorCompatNotSupportedOnDevice)",
        "A CUDA forward-compatibility library (the cuda-compat package of a container image built for a "
        "newer CUDA) was loaded on a GPU that does not support forward compatibility (GeForce and most "
        "workstation GPUs).",
        Fix(
            "Update the host's NVIDIA driver to one that supports the container's CUDA, or use an image or "
            "a torch build for the CUDA the driver supports, and keep the compat libraries off "
            "LD_LIBRARY_PATH.",
            ("nvidia-smi",),
        ),
    ),
)


def analyse_init_failed(text: str) -> Analysis:
    found = [(m.start(), error) for error in _INIT_ERRORS if (m := _last(error[0], text))]
    if not found:
        return Analysis()
    _, (_, code, cause, fix) = max(found, key=lambda item: item[0])
    return Analysis(evidence=(code,), cause=cause, fix=fix)


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
    r": cannot open shared object file|Could not load library |Error loading \"|Unable to load any of \{"
)
_WINDOWS_DLL = r"\.dll|\[WinError 126\]"

_LIBRARY_KINDS = (
    (
        r"libcuda\.so",
        "the NVIDIA driver's own library (libcuda.so) is not found: no driver on this machine, a container "
        "started without GPU access, or under WSL /usr/lib/wsl/lib missing from the library path",
        Fix(
            "Install the NVIDIA driver, or start the container with GPU access (docker run --gpus all); "
            "check that the loader finds libcuda.",
            ("ldconfig -p | grep libcuda.so", "nvidia-smi"),
        ),
    ),
    (
        r"libtorch_cuda_(?:cu|cpp)\.so",
        "a library of torch 1.12 or older is asked for: an extension compiled against that torch is "
        "imported with this one",
        Fix("Rebuild or reinstall the extension against the installed torch."),
    ),
    (
        _WINDOWS_DLL,
        "Windows could not load one of torch's DLLs or a DLL it depends on: most often the Microsoft Visual "
        "C++ Redistributable is missing or old (fbgemm.dll needs its OpenMP runtime), otherwise a broken "
        "install",
        Fix(
            "Install the latest Microsoft Visual C++ Redistributable (x64, https://aka.ms/vs/17/release/"
            "vc_redist.x64.exe), then reinstall torch in a fresh environment if it still fails."
        ),
    ),
    (
        r"lib(?:cudnn|cublas|cudart|nvrtc|nccl|cusparse|cufft|curand|cusolver|nvJitLink)",
        "a CUDA library torch needs is not found: the nvidia-* wheels pip installs with torch are missing "
        "or not where torch looks for them (another site-packages, a lib64/lib split), or torch was built "
        "for a system CUDA that is not installed",
        Fix(
            "Reinstall torch with its CUDA libraries in this environment, and check that the nvidia-* "
            "wheels sit in the same site-packages as torch.",
            ("pip list 2>/dev/null | grep -i nvidia", "pip install --force-reinstall torch"),
        ),
    ),
)


def analyse_missing_library(text: str) -> Analysis:
    name = _missing_library_name(text)
    for pattern, cause, fix in _LIBRARY_KINDS:
        if re.search(pattern, name or text[-300:], re.IGNORECASE):
            evidence = (f"missing: {name}",) if name else ()
            return Analysis(evidence=evidence, cause=f"{cause[0].upper()}{cause[1:]}.", fix=fix)
    return Analysis(evidence=(f"missing: {name}",) if name else ())


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
    return after[0].strip().rstrip(".").rsplit("\\", 1)[-1] if after else None


_TORCH_ABI = re.compile(r"_ZNK?(?:3c10|2at|5torch|6caffe2)")


def analyse_undefined_symbol(text: str) -> Analysis:
    match = _last(r"undefined symbol: ([^\s,]{1,300})|Symbol not found: ([^\s,]{1,300})", text)
    if match is None:
        return Analysis()
    symbol = match[1] or match[2]
    library = _LIBRARY_NAME.search(text[max(0, match.start() - 300) : match.start()])
    where = "/".join(library[1].split("/")[-2:]) if library else ""
    evidence = [f"{where + ' needs ' if where else ''}the symbol {symbol}"]
    if "RKSs" in symbol:
        evidence.append(
            "the symbol is mangled with the pre-C++11 std::string ABI: if torch.compiled_with_cxx11_abi() is "
            "True, the library was built for the other ABI"
        )
    return Analysis(evidence=tuple(evidence), fix=_undefined_symbol_fix(where, symbol))


def _undefined_symbol_fix(library: str, symbol: str) -> Fix | None:
    for companion in ("torchvision", "torchaudio", "torchtext"):
        if companion in library.lower():
            return Fix(
                f"{companion} was built for another torch release: install the {companion} release that "
                "pairs with the installed torch, from the same index as torch (torchdoctor check --only "
                "torch.stack names it).",
            )
    if "nvJitLink" in symbol or re.search(r"libcu\w+\.so", library):
        return Fix(
            "Two CUDA releases are mixed: a CUDA library found through LD_LIBRARY_PATH (or an older "
            "nvidia-* wheel) is loaded instead of the one torch came with. Remove the CUDA directories from "
            "LD_LIBRARY_PATH, or reinstall torch so that its nvidia-* wheels match.",
            ("echo $LD_LIBRARY_PATH", "pip list 2>/dev/null | grep -i nvidia"),
        )
    if library.rsplit("/", 1)[-1].startswith(("libtorch", "libc10")):
        return Fix("torch's own libraries do not match each other: reinstall torch in a clean environment.")
    if _TORCH_ABI.search(symbol) or symbol.startswith(("THP", "_torch", "aoti_torch")):
        return Fix(
            "A compiled extension or companion package was built against another torch release (or the "
            "other C++ ABI): rebuild it against the installed torch (pip install --no-build-isolation "
            "--force-reinstall <package>), or install the torch release it was built for."
        )
    return None


_VERSION_SEEN = re.compile(
    r"\b(pytorch|torchvision|torchaudio|torch)(?:[ _]version)?(?: is)?(?:==|[ :=]{1,3})v?(\d+\.\d+(?:\.\d+)?"
    r"(?:\+\w+)?)|Name: (torch\w*)\s{1,4}Version: (\S{1,40})",
    re.IGNORECASE,
)


def _versions_seen(text: str) -> dict[str, str]:
    """Versions of torch and its companions the pasted text states (pip show, collect_env, prose)."""
    seen: dict[str, str] = {}
    for match in _VERSION_SEEN.finditer(text):
        name = (match[1] or match[3]).lower().replace("pytorch", "torch")
        seen.setdefault(name, match[2] or match[4])
    return seen


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
    seen = _versions_seen(text)
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


_NUMPY_CHECK = 'python -c "import numpy, torch; print(numpy.__version__, torch.__version__)"'

ENTRIES: tuple[Entry, ...] = (
    Entry(
        id="torch.not_compiled_with_cuda",
        title="Torch not compiled with CUDA enabled",
        patterns=(
            r"Torch not compiled with CUDA enabled",
            r"module 'torch\._C' has no attribute '_cuda_\w+'",
        ),
        cause="The installed torch is a CPU-only build: it has no CUDA code, whatever GPUs and driver the "
        "machine has.",
        fix=Fix(
            "Install a CUDA build of torch that fits this machine's driver and GPUs, in the same environment "
            "(torchdoctor check --only torch.build prints the exact pip command)."
        ),
        check="torch.build",
        source="torch/cuda/__init__.py _lazy_init (research/cuda_semantics.md 7); research/ddp_dryrun.md F13",
    ),
    Entry(
        id="cuda.no_kernel_image",
        title="No kernel image for this GPU",
        patterns=(
            r"no kernel image is available for execution on the device",
            r"CUDA capability sm_\d+ is not compatible with the current PyTorch installation",
            r"cudaErrorNoKernelImageForDevice",
            r"PyTorch no longer supports this GPU because it is too old",
            r"hipErrorNoBinaryForGpu",
        ),
        cause="The installed torch has no kernels for this GPU's compute capability (a new GPU with an older "
        "CUDA build, such as an RTX 50xx with a cu126 wheel, or an old GPU dropped from the arch list); on "
        "ROCm, hipErrorNoBinaryForGpu says the same of the GPU's gfx target.",
        fix=Fix(
            "Install a torch build whose arch list covers this GPU (torchdoctor check --only torch.build "
            "names the build and prints the pip command)."
        ),
        check="torch.build",
        source="research/cuda_semantics.md 5.2 (cudaErrorNoKernelImageForDevice = 209; "
        "torch/cuda/__init__.py _check_capability and _check_cubins)",
        analyse=analyse_no_kernel,
    ),
    Entry(
        id="cuda.driver_too_old",
        title="NVIDIA driver too old for this torch",
        patterns=(
            r"driver on your system is too old",
            r"CUDA driver version is insufficient for CUDA runtime version",
        ),
        cause="The torch build needs a newer CUDA than the installed driver supports. The 'found version' is "
        "the CUDA version the driver supports (12020 = CUDA 12.2), not the driver release.",
        fix=Fix(
            "Update the NVIDIA driver, or install a torch build for a CUDA version this driver supports "
            "(torchdoctor check --only torch.build prints the command)."
        ),
        check="torch.build",
        source="c10/cuda/CUDAFunctions.cpp device_count_impl (research/cuda_semantics.md 4); "
        "cudaErrorInsufficientDriver = 35",
        analyse=analyse_driver_too_old,
    ),
    Entry(
        id="cuda.no_driver",
        title="No NVIDIA driver found",
        patterns=(r"Found no NVIDIA driver on your system",),
        cause="torch has CUDA but no NVIDIA driver is loaded: no GPU, a container started without GPU "
        "access, or a driver that is not installed.",
        fix=Fix(
            "Install the NVIDIA driver; in a container, start it with GPU access (docker run --gpus all).",
            ("nvidia-smi",),
        ),
        check="torch.build",
        source="c10/cuda/CUDAFunctions.cpp (research/cuda_semantics.md 4)",
    ),
    Entry(
        id="cuda.init_failed",
        title="CUDA failed to initialise (cudaGetDeviceCount)",
        patterns=(
            r"Unexpected error from cudaGetDeviceCount\(\)",
            r"system not yet initialized",
            r"system has unsupported display driver / cuda driver combination",
            r"forward compatibility was attempted on non supported HW",
        ),
        cause="CUDA could not start on this machine: the driver, its user-space library or the GPU fabric "
        "is not in a state CUDA can use, so torch sees no GPU.",
        fix=Fix(
            "Read the error number: 802 needs the fabric manager (NVSwitch systems), 803 a reboot or the "
            "removal of a second libcuda, 804 a host driver new enough for the container's CUDA.",
            ("nvidia-smi",),
        ),
        check="torch.build",
        source="c10/cuda/CUDAFunctions.cpp device_count_impl ('Unexpected error from cudaGetDeviceCount()'); "
        "cudaErrorSystemNotReady = 802, cudaErrorSystemDriverMismatch = 803, "
        "cudaErrorCompatNotSupportedOnDevice = 804",
        analyse=analyse_init_failed,
    ),
    Entry(
        id="cuda.unknown_error",
        title="CUDA unknown error at initialisation",
        patterns=(
            r"CUDA unknown error ?- ?this may be due to an incorrectly set up environment",
            r"cuda runtime error \(30\) : unknown error",
            r"CUDA error: unknown error",
        ),
        cause="CUDA's initialisation failed with cudaErrorUnknown, so torch sets the device count to zero. "
        "Usually the driver's nvidia_uvm kernel module is missing or stuck (after a driver update or a "
        "suspend), or a container lacks /dev/nvidia-uvm; sometimes CUDA_VISIBLE_DEVICES was changed after "
        "CUDA had started.",
        fix=Fix(
            "Set CUDA_VISIBLE_DEVICES before Python starts, not in the script after import torch; reload the "
            "nvidia_uvm module (or reboot) when the driver was updated or the machine resumed from suspend.",
            ("nvidia-smi", "sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm"),
        ),
        check="cuda.visible_devices",
        source="c10/cuda/CUDAFunctions.cpp device_count_impl (cudaErrorUnknown = 999; THC error 30 in torch "
        "1.x); tests/corpus/errors/*/cuda.unknown_error.json",
    ),
    Entry(
        id="cudnn.version_mismatch",
        title="cuDNN version mismatch",
        patterns=(
            r"cuDNN version incompatibility: PyTorch was compiled",
            r"cuDNN version mismatch: PyTorch was compiled against",
        ),
        cause="The process loaded another cuDNN than the one torch was built with: a system or conda cuDNN "
        "on LD_LIBRARY_PATH (or an nvidia-cudnn wheel of another release) shadows torch's own.",
        fix=Fix(
            "Remove the other cuDNN from LD_LIBRARY_PATH (or uninstall it), or reinstall torch so that its "
            "own cuDNN wheel is the one found.",
            ("echo $LD_LIBRARY_PATH", 'python -c "import torch; print(torch.backends.cudnn.version())"'),
        ),
        check="torch.stack",
        source="torch/backends/cudnn/__init__.py _init; tests/corpus/errors/*/cudnn.version_mismatch.json",
        analyse=analyse_cudnn_version,
    ),
    Entry(
        id="lib.cannot_open_shared_object",
        title="A shared library could not be loaded",
        patterns=(
            r"cannot open shared object file",
            r"Could not load library lib",
            r"Unable to load any of \{",
            r"\[WinError 126\]",
        ),
        cause="The dynamic loader could not find a library torch (or an extension) needs: a CUDA library "
        "that is not installed or not on the path, the driver's libcuda, or a Windows DLL dependency.",
        fix=Fix(
            "Reinstall torch in this environment so that its libraries come with it, and keep other CUDA "
            "installations off LD_LIBRARY_PATH.",
            ("pip install --force-reinstall torch",),
        ),
        check="torch.build",
        source="the dynamic loader (dlopen, LoadLibrary) as torch/__init__.py and cuDNN report it; "
        "tests/corpus/errors/*/lib.cannot_open_shared_object.json",
        analyse=analyse_missing_library,
    ),
    Entry(
        id="lib.undefined_symbol",
        title="Undefined symbol: binaries built for another torch or CUDA",
        patterns=(r"undefined symbol: ", r"Symbol not found: ", r"\[WinError 127\]"),
        cause="A compiled library expects a function the loaded libraries do not have: torchvision, "
        "torchaudio or an extension built for another torch release, or two CUDA releases mixed through "
        "LD_LIBRARY_PATH.",
        fix=Fix(
            "Install the companion packages at the releases that pair with the installed torch, rebuild "
            "compiled extensions against it, and keep other CUDA installations off LD_LIBRARY_PATH."
        ),
        check="torch.stack",
        source="the dynamic loader (ld.so 'undefined symbol', dyld 'Symbol not found', Windows error 127); "
        "tests/corpus/errors/*/lib.undefined_symbol.json",
        analyse=analyse_undefined_symbol,
    ),
    Entry(
        id="companion.version_mismatch",
        title="torchvision does not match torch",
        patterns=(
            r"operator torch(?:vision|audio)::\w+ does not exist",
            r"No such operator torch(?:vision|audio)::\w+",
            r"Couldn't load custom C\+\+ ops",
            r"your PyTorch and torchvision versions are incompatible",
            r"Could not run 'torch(?:vision|audio)::\w+' with arguments from the '\w+' backend",
        ),
        cause="torchvision's compiled operators do not fit the installed torch: it was built for another "
        "torch release, or for another flavour (CPU-only next to a CUDA torch).",
        fix=Fix(
            "Install the torchvision release that pairs with the installed torch, from the same index "
            "(torchdoctor check --only torch.stack prints the command).",
        ),
        check="torch.stack",
        source="torchvision/extension.py _assert_has_ops; torch/_library (operator does not exist); "
        "tests/corpus/errors/*/companion.version_mismatch.json",
        analyse=analyse_companion,
    ),
    Entry(
        id="numpy.unavailable",
        title="NumPy does not fit this torch",
        patterns=(
            r"Failed to initialize NumPy",
            r"compiled using NumPy 1\.x cannot be run in",
            r"module compiled against API version 0x[0-9a-f]+ but this version of numpy is",
            r"numpy\.core\.multiarray failed to import",
            r"Numpy is not available",
        ),
        cause="torch cannot use the installed NumPy: NumPy 2 under a module built for NumPy 1.x, a NumPy "
        "older than the one a module was built against, or no NumPy at all.",
        fix=Fix(
            "Install a NumPy that fits: numpy<2 for a torch older than 2.3 (or for other modules built for "
            "NumPy 1.x), a newer NumPy when the message says the installed one is older.",
            (_NUMPY_CHECK,),
        ),
        source="torch/csrc/utils/tensor_numpy.cpp ('Failed to initialize NumPy', 'Numpy is not available'); "
        "NumPy's own import check; tests/corpus/errors/*/numpy.unavailable.json",
        analyse=analyse_numpy,
    ),
    Entry(
        id="nccl.not_built",
        title="This torch has no NCCL",
        patterns=(r"Distributed package doesn't have NCCL built in", r"NCCL support is not compiled"),
        cause="The backend 'nccl' was requested from a torch without NCCL: a CPU-only build, or macOS or "
        "Windows.",
        fix=Fix("Use backend='gloo' here, or install a CUDA build of torch on Linux for NCCL."),
        check="torch.build",
        source="research/ddp_dryrun.md F13; torch/distributed/distributed_c10d.py",
    ),
)
