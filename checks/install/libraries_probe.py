"""The ``loaded_libraries`` probe: the shared libraries the torch process mapped, not those installed.

Reporters that run ``ldconfig -p`` show the system's cuDNN, not the one torch loaded (pytorch#78489, which
suggests reading ``/proc/self/maps``; macOS has none: there the dynamic loader lists its images, and on
Windows psutil lists the mapped files). This probe imports torch, initializes CUDA only where a GPU is
visible, asks torch for the cuDNN and NCCL versions it uses (which loads them), then reads the mapped files
of the CUDA runtime, cuBLAS, cuDNN, NCCL, NVRTC and the OpenMP runtime, next to the copies that torch's own
wheel and the installed ``nvidia-*`` wheels ship.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from torchdoctor.machine.distributions import name_and_version

MAPS = Path("/proc/self/maps")
FAMILY_LABELS = {
    "cudart": "CUDA runtime",
    "cublas": "cuBLAS",
    "cudnn": "cuDNN",
    "nccl": "NCCL",
    "nvrtc": "NVRTC",
    "openmp": "OpenMP runtime",
}
_FAMILY_PREFIXES = (
    ("libcudart", "cudart"),
    ("libcublas", "cublas"),
    ("libcudnn", "cudnn"),
    ("libnccl", "nccl"),
    ("libnvrtc", "nvrtc"),
    ("libgomp", "openmp"),
    ("libiomp5", "openmp"),
    ("libomp", "openmp"),
    ("libvcomp", "openmp"),  # the MSVC OpenMP runtime
)
_SO_RE = re.compile(r"^(?P<stem>lib[^/]*?)\.so(?:\.(?P<version>[0-9][0-9.]*))?$")
# macOS: libomp.dylib, libcudnn.9.dylib
_DYLIB_RE = re.compile(r"^(?P<stem>lib[^/.]+?)(?:\.(?P<version>[0-9][0-9.]*))?\.dylib$")
# Windows: cudart64_12.dll, cublasLt64_12.dll, cudnn_ops64_9.dll, nvrtc64_120_0.dll; libiomp5md.dll,
# vcomp140.dll, libomp140.x86_64.dll
_DLL_RE = re.compile(r"^(?P<stem>[A-Za-z][A-Za-z_-]*?)(?:64)?_(?P<version>[0-9]+(?:_[0-9]+)*)\.dll$", re.I)
_DLL_PLAIN_RE = re.compile(r"^(?P<stem>[A-Za-z][A-Za-z_-]*?)(?P<version>[0-9]+)?(?:\.\w+)?\.dll$", re.I)
# auditwheel renames vendored copies: libgomp-a34b3233.so.1, libcudart.faf08d9a.so.13
_VENDORED_HASH_RE = re.compile(r"[-.][0-9a-f]{8}$")


def library_base(file_name: str) -> tuple[str, str | None] | None:
    """``libcudnn_ops.so.9.1.0`` -> (``libcudnn_ops``, ``9.1.0``); ``libomp.dylib`` -> (``libomp``, None);
    ``cudnn64_9.dll`` -> (``libcudnn``, ``9``), named as on Linux; None for a file that is no library."""
    match = _SO_RE.match(file_name)
    if match is not None:
        return _VENDORED_HASH_RE.sub("", match["stem"]), match["version"]
    match = _DYLIB_RE.match(file_name)
    if match is not None:
        return match["stem"], match["version"]
    if file_name.lower().startswith("libiomp5") and file_name.lower().endswith(".dll"):
        return "libiomp5", None  # libiomp5md.dll: Intel's OpenMP runtime, 5 is its name, not a version
    match = _DLL_RE.match(file_name) or _DLL_PLAIN_RE.match(file_name)
    if match is not None:
        stem, version = match["stem"], match["version"]
        base = stem if stem.lower().startswith("lib") else f"lib{stem}"
        return base, version and version.replace("_", ".")
    return None


def family_of(base: str) -> str | None:
    for prefix, family in _FAMILY_PREFIXES:
        if (
            base == prefix
            or base.startswith((f"{prefix}_", f"{prefix}-", f"{prefix}."))
            or (prefix == "libcublas" and base == "libcublasLt")
        ):
            return family
    return None


def mapped_files(maps_text: str) -> list[str]:
    """The distinct files in a ``/proc/<pid>/maps`` text, in the order they first appear."""
    seen: dict[str, None] = {}
    for line in maps_text.splitlines():
        parts = line.split(None, 5)
        if len(parts) < 6:
            continue
        path = parts[5].strip()
        if path.endswith(" (deleted)"):
            path = path[: -len(" (deleted)")]
        if path.startswith("/"):
            seen.setdefault(path, None)
    return list(seen)


def libraries_of_interest(paths: Iterable[str]) -> list[dict[str, Any]]:
    libraries = []
    for path in paths:
        parsed = library_base(os.path.basename(path))
        if parsed is None:
            continue
        base, file_version = parsed
        family = family_of(base)
        if family is None:
            continue
        libraries.append(
            {
                "name": os.path.basename(path),
                "base": base,
                "family": family,
                "path": path,
                "file_version": file_version,
            }
        )
    return libraries


def probe(options: Mapping[str, Any]) -> dict[str, Any]:
    facts: dict[str, Any] = {
        "platform": sys.platform,
        "source": None,
        "skip_reason": None,
        "libraries": [],
        "wheel_files": {},
        "torch_reports": {},
        "cuda_initialized": False,
        "ld_library_path": _search_path(os.environ.get("LD_LIBRARY_PATH")),
        "ld_preload": _search_path(os.environ.get("LD_PRELOAD"), separators=r"[:\s]+"),
    }
    if sys.platform not in ("linux", "darwin", "win32"):
        facts["skip_reason"] = f"this platform ({sys.platform}) cannot tell which libraries a process loaded"
        return facts
    try:
        import torch
    except BaseException as exc:  # a broken torch is torch.build's verdict; here it only ends the reading
        facts["skip_reason"] = f"torch does not import ({type(exc).__name__}: {str(exc)[:300]})"
        return facts
    facts["cuda_initialized"] = _initialize_cuda_if_visible(torch)
    facts["torch_reports"] = _torch_reports(torch)
    source, paths, why_not = loaded_files()
    if paths is None:
        facts["skip_reason"] = why_not
        return facts
    facts["source"] = source
    libraries = libraries_of_interest(paths)
    facts["libraries"] = libraries
    torch_dir = Path(torch.__file__).resolve().parent
    bases = {lib["base"] for lib in libraries}
    facts["wheel_files"] = wheel_files(torch_dir, str(torch.__version__), bases)
    return facts


def loaded_files() -> tuple[str, list[str] | None, str | None]:
    """The files this process loaded, from where this platform lists them: ``/proc/self/maps`` (Linux), the
    dynamic loader's image list (macOS), the mapped files psutil reads (Windows). (source, paths, None), or
    (source, None, why not) where the list cannot be read."""
    if sys.platform == "darwin":
        images = dyld_images()
        if images is None:
            return "dyld", None, "this platform cannot tell which libraries torch loaded (no dyld image list)"
        return "dyld", images, None
    if sys.platform == "win32":
        return _psutil_maps()
    try:
        maps_text = MAPS.read_text()
    except OSError as exc:
        return str(MAPS), None, f"cannot read {MAPS}: {exc.strerror or exc}"
    return str(MAPS), mapped_files(maps_text), None


def dyld_images() -> list[str] | None:
    """macOS: the images the dynamic loader has loaded (``_dyld_image_count``, ``_dyld_get_image_name``);
    None where the loader offers no such list."""
    import ctypes

    try:
        loader = ctypes.CDLL(None)
        count = loader._dyld_image_count
        name = loader._dyld_get_image_name
    except (OSError, AttributeError):
        return None
    count.restype = ctypes.c_uint32
    count.argtypes = []
    name.restype = ctypes.c_char_p
    name.argtypes = [ctypes.c_uint32]
    images: dict[str, None] = {}
    for index in range(int(count())):
        raw = name(index)
        if raw:
            images.setdefault(os.fsdecode(raw), None)
    return list(images)


def _psutil_maps() -> tuple[str, list[str] | None, str | None]:
    source = "psutil memory_maps"
    try:
        import psutil

        maps = psutil.Process().memory_maps(grouped=True)
    except Exception as exc:  # psutil.AccessDenied, or a psutil without memory maps here
        return source, None, f"this platform cannot tell which libraries torch loaded ({type(exc).__name__})"
    return source, list(dict.fromkeys(str(m.path) for m in maps if getattr(m, "path", None))), None


def _search_path(value: str | None, separators: str = ":") -> list[dict[str, str | None]]:
    if value is None:
        return []
    entries = [e for e in re.split(separators, value) if e]
    return [{"entry": e, "resolved": os.path.realpath(e) if os.path.isabs(e) else None} for e in entries]


def _initialize_cuda_if_visible(torch: Any) -> bool:
    if not getattr(torch.version, "cuda", None):
        return False
    try:
        if torch.cuda.is_available():
            torch.cuda.init()
            return True
    except Exception:
        return False
    return False


def _torch_reports(torch: Any) -> dict[str, Any]:
    """What torch itself says of the libraries it uses; asking loads them where torch loads them lazily."""
    reports: dict[str, Any] = {}
    if not (getattr(torch.version, "cuda", None) or getattr(torch.version, "hip", None)):
        return reports
    try:
        reports["cudnn"] = torch.backends.cudnn.version()
    except Exception as exc:  # torch raises its own "cuDNN version incompatibility" here: evidence
        reports["cudnn_error"] = " ".join(f"{type(exc).__name__}: {exc}".split())[:600]
    cudnn = getattr(torch._C, "_cudnn", None)
    if cudnn is not None:
        try:
            reports["cudnn_runtime"] = ".".join(str(p) for p in cudnn.getRuntimeVersion())
            reports["cudnn_compiled"] = ".".join(str(p) for p in cudnn.getCompileVersion())
        except Exception as exc:
            reports.setdefault("cudnn_error", f"{type(exc).__name__}: {exc}"[:600])
    try:
        nccl = torch.cuda.nccl.version()
        reports["nccl"] = ".".join(str(p) for p in nccl) if isinstance(nccl, tuple) else str(nccl)
    except Exception as exc:
        reports["nccl_error"] = f"{type(exc).__name__}: {exc}"[:500]
    return reports


def wheel_files(torch_dir: Path, torch_version: str, bases: set[str]) -> dict[str, list[dict[str, Any]]]:
    """For each library base name, the copies shipped by torch's wheel and by the nvidia-* wheels beside it.

    torch's wheel keeps its libraries in ``torch/lib`` (and ``torch.libs`` for vendored ones); the nvidia-*
    wheels install into ``nvidia/<part>/lib`` of the same site-packages, where torch's RUNPATH points.
    """
    site = torch_dir.parent
    owners = _nvidia_owners(site)
    found: dict[str, list[dict[str, Any]]] = {}
    folders = [torch_dir / "lib", site / "torch.libs"]
    nvidia = site / "nvidia"
    if nvidia.is_dir():  # nvidia/<part>/lib, and nvidia/<part>/bin for the DLLs of Windows wheels
        folders += sorted(p / sub for p in nvidia.iterdir() for sub in ("lib", "bin") if (p / sub).is_dir())
    for folder in folders:
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            parsed = library_base(name)
            if parsed is None or parsed[0] not in bases:
                continue
            real = os.path.realpath(folder / name)
            owner: Mapping[str, str | None]
            if folder.parent == torch_dir or folder.name == "torch.libs":
                owner = {"wheel": "torch", "version": torch_version}
            else:
                owner = owners.get(real) or {"wheel": None, "version": None}
            found.setdefault(parsed[0], []).append({"path": real, **owner})
    return found


def _nvidia_owners(site: Path) -> dict[str, dict[str, str | None]]:
    """Real path of each file an installed nvidia-* wheel (or cuda-toolkit part) ships -> that wheel."""
    owners: dict[str, dict[str, str | None]] = {}
    if not (site / "nvidia").is_dir():
        return owners
    import importlib.metadata  # here, not at the top: the worker that describes checks never needs it

    for info in sorted(site.glob("nvidia_*.dist-info")):
        dist = importlib.metadata.PathDistribution(info)
        name, version = name_and_version(dist)
        name = name or info.name.split("-")[0]
        for file in dist.files or []:
            if ".so" in file.name or file.name.endswith((".dylib", ".dll")):
                owners[os.path.realpath(site / str(file))] = {"wheel": name.lower(), "version": version}
    return owners
