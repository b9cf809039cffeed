"""The ``allocator`` probe: the caching allocator's state, from a snapshot file or from the live process.

Without ``--memory-snapshot`` and outside a training process there is nothing to read: allocator statistics
exist only in the process that allocates (research/memory_bandwidth.md §0.1). A snapshot file is unpickled by
:mod:`allocator_snapshot`, which refuses anything but plain data. Inside the user's job
(``torchdoctor.memory_report()`` runs this probe there with ``in_process``), the live allocator is read
through ``torch.cuda.memory_stats()`` and ``torch.cuda.memory._snapshot()``; CUDA is never initialised here.
"""

from __future__ import annotations

import importlib.util
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from torchdoctor.checks.memory import alloc_conf, allocator_snapshot

# torch.cuda.memory_stats() counters kept as facts (docstring of memory_stats in torch/cuda/memory.py).
_COUNTERS = ("num_alloc_retries", "num_ooms", "num_sync_all_streams", "num_device_alloc", "num_device_free")
_STATS = (
    "allocated_bytes.all.current",
    "allocated_bytes.all.peak",
    "reserved_bytes.all.current",
    "reserved_bytes.all.peak",
    "inactive_split_bytes.all.current",
    "requested_bytes.all.current",
)


def probe(options: Mapping[str, Any]) -> dict[str, Any]:
    return {**_allocator(options), "torch_keys": torch_keys()}


def _allocator(options: Mapping[str, Any]) -> dict[str, Any]:
    if options.get("in_process"):
        return live(options.get("device"))
    path = options.get("memory_snapshot")
    if not path:
        return {"source": None, "path": None, "error": None}
    try:
        summary = allocator_snapshot.summarize(allocator_snapshot.load(path))
    except allocator_snapshot.SnapshotError as exc:
        return {"source": "snapshot_file", "path": str(path), "error": str(exc)}
    return {"source": "snapshot_file", "path": str(path), "error": None, **summary}


_COMMON_LIBRARIES = ("libc10.so", "libc10.dylib", "c10.dll")
_DEVICE_LIBRARIES = ("libc10_cuda.so", "libc10_hip.so", "c10_cuda.dll", "c10_hip.dll")
_MAX_LIBRARY_BYTES = 256 * 2**20


def torch_keys() -> dict[str, Any]:
    """The allocator option names the installed torch's own libraries hold, found without importing torch.

    Every option torch parses is a string literal in libc10 (the options of every build) or libc10_cuda /
    libc10_hip (the device allocator's), so a name missing there is one this torch does not accept.
    ``device`` is None for a build without a device library (CPU-only).
    """
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):  # a torch module without a spec (replaced in sys.modules)
        spec = None
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    version = _torch_version()
    if not locations:
        return {"common": None, "device": None, "libraries": [], "version": version}
    lib = Path(locations[0]) / "lib"
    common = _names_in(lib, _COMMON_LIBRARIES)
    device = _names_in(lib, _DEVICE_LIBRARIES)
    return {
        "common": None if common is None else sorted(common[1]),
        "device": None if device is None else sorted(device[1]),
        "libraries": [found[0] for found in (common, device) if found is not None],
        "version": version,
    }


def _torch_version() -> str | None:
    """The installed torch's version from its distribution metadata (no import)."""
    import importlib.metadata  # here, not at the top: the worker that describes checks never needs it

    try:
        return importlib.metadata.version("torch")
    except (importlib.metadata.PackageNotFoundError, ValueError, OSError):
        return None


def _names_in(lib: Path, candidates: tuple[str, ...]) -> tuple[str, set[str]] | None:
    for name in candidates:
        path = lib / name
        try:
            if not path.is_file() or path.stat().st_size > _MAX_LIBRARY_BYTES:
                continue
            data = path.read_bytes()
        except OSError:
            continue
        return str(path), {key for key in alloc_conf.KNOWN_OPTIONS if b"\0" + key.encode() + b"\0" in data}
    return None


def validate_snapshot(value: Any) -> str:
    """``--memory-snapshot``: a file this probe can read; ValueError with the reason otherwise."""
    try:
        allocator_snapshot.summarize(allocator_snapshot.load(str(value)))
    except allocator_snapshot.SnapshotError as exc:
        raise ValueError(str(exc)) from None
    return str(value)


def _unavailable(reason: str) -> dict[str, Any]:
    return {"source": None, "unavailable_reason": reason, "devices": []}


def live(device: Any) -> dict[str, Any]:
    """This process's allocator; ``device`` is an index, ``"cuda:1"``, or None for every GPU it used."""
    try:
        with warnings.catch_warnings():  # only the first import in a process warns; the job's came first
            warnings.simplefilter("ignore")
            import torch
    except Exception as exc:  # a broken torch raises anything from OSError to SystemError
        return _unavailable(f"torch cannot be imported here ({type(exc).__name__}: {exc})")
    if not torch.cuda.is_available():
        build = "a CPU-only build" if torch.version.cuda is None else f"built for CUDA {torch.version.cuda}"
        return _unavailable(f"CUDA is not available in this process (torch {torch.__version__}, {build})")
    if not torch.cuda.is_initialized():
        # Initialising CUDA here would create a context the job did not ask for.
        return _unavailable(
            "this process has not used CUDA yet: call memory_report() after the model has run on the GPU"
        )
    wanted = _device_indices(torch, device)
    try:
        summary = allocator_snapshot.summarize(torch.cuda.memory._snapshot())
    except Exception as exc:  # cudaMallocAsync and pluggable allocators may not snapshot
        summary = {"devices": [], "segments": 0, "allocator_settings": None, "snapshot_error": str(exc)}
    by_device = {d["device"]: d for d in summary["devices"]}
    devices = []
    for index in wanted:
        entry = by_device.get(index) or {"device": index, "pools": [], "ooms": [], **_zero_totals()}
        entry["counters"], entry["stats"] = _stats(torch.cuda.memory_stats(index))
        devices.append(entry)
    return {
        "source": "in_process",
        "backend": _backend(torch),
        "segments": summary["segments"],
        "allocator_settings": summary["allocator_settings"],
        "devices": devices,
        **({"snapshot_error": summary["snapshot_error"]} if "snapshot_error" in summary else {}),
    }


def _device_indices(torch: Any, device: Any) -> list[int]:
    if device is not None:
        return [torch.cuda._utils._get_device_index(device, optional=True)]
    used = [
        index
        for index in range(torch.cuda.device_count())
        if torch.cuda.memory_stats(index).get("reserved_bytes.all.peak", 0) > 0
    ]
    return used or [torch.cuda.current_device()]


def _stats(stats: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    counters = {key: int(stats[key]) for key in _COUNTERS if key in stats}
    return counters, {key: int(stats[key]) for key in _STATS if key in stats}


def _zero_totals() -> dict[str, int]:
    keys = (
        "reserved_bytes",
        "allocated_bytes",
        "free_bytes",
        "inactive_split_bytes",
        "largest_free_block_bytes",
    )
    return dict.fromkeys(keys, 0)


def _backend(torch: Any) -> str | None:
    try:
        return str(torch.cuda.get_allocator_backend())
    except Exception:
        return None
