"""The ``torch.cuda`` a program sees under ``--gpus N``: N devices, a current one, streams and events that
keep the program's order (the CPU runs every operation at once), memory figures from the tensors each
emulated GPU holds, and ``torch.accelerator``, ``torch.backends.cudnn`` and ``torch.autocast("cuda")`` to
match. Autocast on ``cuda`` runs as CPU autocast with the same dtype (float16 unless given): CPU autocast
casts fewer operations than CUDA's.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from torchdoctor.runtime.emulation.devices import Machine
from torchdoctor.runtime.emulation.legacy import answering_as

NAME = "torchdoctor emulated GPU (CPU)"
CAPABILITY = (9, 0)


@dataclass(frozen=True)
class Properties:
    """What ``torch.cuda.get_device_properties`` gives, for an emulated GPU."""

    name: str
    major: int
    minor: int
    total_memory: int
    multi_processor_count: int
    is_integrated: bool = False
    is_multi_gpu_board: bool = False
    uuid: str = ""
    L2_cache_size: int = 0
    warp_size: int = 32

    def __repr__(self) -> str:
        return (
            f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
            f"total_memory={self.total_memory // 2**20}MB, "
            f"multi_processor_count={self.multi_processor_count})"
        )


def host_memory() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 16 * 2**30


class Stream:
    """A stream of an emulated GPU: the CPU has run every operation by the time the next line runs."""

    def __init__(self, device: Any = None, priority: int = 0, **kwargs: Any) -> None:
        self.device = device
        self.priority = priority
        self.cuda_stream = 0

    def synchronize(self) -> None:
        return None

    def wait_stream(self, stream: Any) -> None:
        return None

    def wait_event(self, event: Any) -> None:
        return None

    def record_event(self, event: Any = None) -> Event:
        event = event if event is not None else Event()
        event.record(self)
        return event  # type: ignore[no-any-return]

    def query(self) -> bool:
        return True

    def is_capturing(self) -> bool:
        return False

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


class Event:
    """An event: ``elapsed_time`` is the host's time between two records, in milliseconds."""

    def __init__(
        self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False
    ) -> None:
        self.enable_timing = enable_timing
        self.when: float | None = None

    def record(self, stream: Any = None) -> None:
        self.when = time.perf_counter()

    def synchronize(self) -> None:
        return None

    def wait(self, stream: Any = None) -> None:
        return None

    def query(self) -> bool:
        return True

    def elapsed_time(self, end_event: Event) -> float:
        if self.when is None or end_event.when is None:
            raise ValueError("Both events must be recorded before calculating elapsed time.")
        return (end_event.when - self.when) * 1000.0


DEFAULT_STREAM = Stream()


def _record_stream(self: Any, stream: Any) -> None:
    """Tensor.record_stream: the CPU frees nothing early, there is nothing to record."""
    return None


def generator_class(torch: Any, machine: Machine) -> type:
    """``torch.Generator("cuda")``: a CPU generator that says it is on its emulated GPU. Every generator,
    torch's own default one included, is still an instance of ``torch.Generator``."""
    real = torch._C.Generator

    class Generator(real, metaclass=answering_as(real, type(real))):  # type: ignore[misc,metaclass,valid-type]
        def __new__(cls, device: Any = "cpu") -> Any:
            index = machine.resolve(device) if device is not None else None
            generator = super().__new__(cls, device if isinstance(index, str) else "cpu")
            generator.emulated = index if isinstance(index, int) else None
            return generator

        @property
        def device(self) -> Any:
            index = getattr(self, "emulated", None)
            return machine.device(index) if index is not None else real.device.__get__(self)

    Generator.__module__, Generator.__qualname__ = "torch", "Generator"
    return Generator


class CudaSurface:
    """Replaces what a program reaches in ``torch.cuda`` and its neighbours; ``patch`` remembers how to
    put each back."""

    def __init__(self, torch: Any, machine: Machine, patch: Callable[[Any, str, Any], None]) -> None:
        self.torch, self.machine, self.patch = torch, machine, patch
        self.peak: dict[int, int] = {}

    def install(self) -> None:
        cuda = self.torch.cuda
        for name, value in self._functions().items():
            self.patch(cuda, name, value)
        for owner in (cuda, self.torch):
            if hasattr(owner, "Stream"):
                self.patch(owner, "Stream", Stream)
            if hasattr(owner, "Event"):
                self.patch(owner, "Event", Event)
        self.patch(self.torch.Tensor, "record_stream", _record_stream)
        self.patch(self.torch, "Generator", generator_class(self.torch, self.machine))
        self.device_class = self._device_class()
        self.patch(cuda, "device", self.device_class)
        self._nvtx()
        self._accelerator()
        self._backends()
        self._autocast()

    # --- torch.cuda ---------------------------------------------------------------------------------------

    def _index(self, device: Any = None) -> int:
        if device is None:
            return self.machine.current
        if hasattr(device, "index") and getattr(device, "type", "cuda") == "cuda" and device.index is None:
            return self.machine.current
        index = self.machine.parse(device)
        if not isinstance(index, int):
            raise ValueError(f"Expected a cuda device, but got: {device}")
        return index

    def _checked_index(self, device: Any = None) -> int:
        index = self._index(device)
        if not 0 <= index < self.machine.count:
            raise AssertionError("Invalid device id")
        return index

    def _functions(self) -> dict[str, Any]:
        machine, torch = self.machine, self.torch
        default_stream = DEFAULT_STREAM
        total = host_memory()

        def set_device(device: Any) -> None:
            if isinstance(device, int) and device < 0:
                return
            machine.current = machine.check(self._index(device))

        def properties(device: Any = None) -> Properties:
            index = self._checked_index(device)
            return Properties(NAME, *CAPABILITY, total, os.cpu_count() or 1, uuid=f"emulated-{index}")

        def allocated(device: Any = None) -> int:
            index = self._index(device)
            now = machine.bytes_on(index)
            self.peak[index] = max(self.peak.get(index, 0), now)
            return now

        def peak(device: Any = None) -> int:
            index = self._index(device)
            return max(self.peak.get(index, 0), allocated(index))

        def reset_peak(device: Any = None) -> None:
            self.peak[self._index(device)] = 0

        def mem_get_info(device: Any = None) -> tuple[int, int]:
            used = allocated(device)
            return max(0, total - used), total

        def memory_stats(device: Any = None) -> dict[str, int]:
            now = allocated(device)
            return {
                "allocated_bytes.all.current": now,
                "allocated_bytes.all.peak": peak(device),
                "reserved_bytes.all.current": now,
                "reserved_bytes.all.peak": peak(device),
            }

        def nothing() -> Callable[..., None]:
            # One function for each name: torch.compile's rules tell torch's functions apart by identity.
            def ignored(*args: Any, **kwargs: Any) -> None:
                return None

            return ignored

        @contextlib.contextmanager
        def stream(chosen: Any = None) -> Iterator[None]:
            yield

        return {
            "is_available": lambda: True,
            "device_count": lambda: machine.count,
            "is_initialized": lambda: True,
            "init": nothing(),
            "_lazy_init": nothing(),
            "current_device": lambda: machine.current,
            "set_device": set_device,
            "get_device_name": lambda device=None: properties(device).name,
            "get_device_properties": properties,
            "get_device_capability": lambda device=None: (
                CAPABILITY if self._checked_index(device) >= 0 else None
            ),
            "get_arch_list": lambda: ["sm_90"],
            "is_bf16_supported": lambda *a, **k: True,
            "synchronize": lambda device=None: None,
            "is_current_stream_capturing": lambda: False,
            "current_stream": lambda device=None: default_stream,
            "default_stream": lambda device=None: default_stream,
            "set_stream": nothing(),
            "stream": stream,
            "memory_allocated": allocated,
            "max_memory_allocated": peak,
            "memory_reserved": allocated,
            "max_memory_reserved": peak,
            "reset_peak_memory_stats": reset_peak,
            "reset_max_memory_allocated": reset_peak,
            "memory_stats": memory_stats,
            "memory_summary": lambda device=None, abbreviated=False: (
                f"torchdoctor emulated GPU cuda:{self._index(device)}: {allocated(device)} bytes held by its "
                "tensors (no caching allocator is emulated)\n"
            ),
            "mem_get_info": mem_get_info,
            "empty_cache": nothing(),
            "ipc_collect": nothing(),
            "manual_seed": nothing(),
            "manual_seed_all": nothing(),
            "seed": nothing(),
            "seed_all": nothing(),
            "get_rng_state": lambda device="cuda": torch.get_rng_state(),
            "set_rng_state": lambda state, device="cuda": None,
            "get_rng_state_all": lambda: [torch.get_rng_state() for _ in range(machine.count)],
            "set_rng_state_all": lambda states: None,
        }

    def _device_class(self) -> type:
        surface = self

        class device:
            """``with torch.cuda.device(k):``: ``cuda`` means ``cuda:k`` inside."""

            def __init__(self, device: Any) -> None:
                self.index = -1 if device is None or device == -1 else surface._index(device)
                self.previous = surface.machine.current

            def __enter__(self) -> None:
                self.previous = surface.machine.current
                if self.index >= 0:
                    surface.machine.current = surface.machine.check(self.index)

            def __exit__(self, *exc: Any) -> None:
                surface.machine.current = self.previous

        return device

    def _nvtx(self) -> None:
        """NVTX ranges mark a profiler's timeline, which nothing here records: they keep their depth."""
        nvtx = sys.modules.get("torch.cuda.nvtx")
        if nvtx is None:
            return
        depth = [0]

        def push(msg: Any) -> int:
            depth[0] += 1
            return depth[0] - 1

        def pop() -> int:
            depth[0] = max(0, depth[0] - 1)
            return depth[0]

        @contextlib.contextmanager
        def range_(msg: Any, *args: Any, **kwargs: Any) -> Iterator[None]:
            push(msg)
            try:
                yield
            finally:
                pop()

        for name, value in (
            ("range_push", push),
            ("range_pop", pop),
            ("range_start", lambda msg: 0),
            ("range_end", lambda range_id: None),
            ("mark", lambda msg: None),
            ("range", range_),
        ):
            if hasattr(nvtx, name):
                self.patch(nvtx, name, value)

    # --- neighbours ---------------------------------------------------------------------------------------

    def _accelerator(self) -> None:
        accelerator = getattr(self.torch, "accelerator", None)
        if accelerator is None:
            return
        machine, torch = self.machine, self.torch

        def set_index(device: Any) -> None:
            machine.current = machine.check(self._index(device))

        for name, value in (
            ("is_available", lambda: True),
            ("current_accelerator", lambda check_available=False: torch.device("cuda")),
            ("device_count", lambda: machine.count),
            ("current_device_index", lambda: machine.current),
            ("current_device_idx", lambda: machine.current),
            ("set_device_index", set_index),
            ("set_device_idx", set_index),
            ("synchronize", lambda device=None: None),
            ("current_stream", lambda device=None: DEFAULT_STREAM),
            ("device_index", self.device_class),
        ):
            if hasattr(accelerator, name):
                self.patch(accelerator, name, value)

    def _backends(self) -> None:
        cudnn = getattr(getattr(self.torch, "backends", None), "cudnn", None)
        if cudnn is not None and hasattr(cudnn, "is_available"):
            self.patch(cudnn, "is_available", lambda: True)
        if cudnn is not None and hasattr(cudnn, "is_acceptable"):
            # No cuDNN kernel runs here: layers take their other path (an RNN does not flatten its weights).
            self.patch(cudnn, "is_acceptable", lambda tensor: False)

    def _autocast(self) -> None:
        autocast_mode = getattr(getattr(self.torch, "amp", None), "autocast_mode", None)
        autocast = getattr(autocast_mode, "autocast", None)
        if autocast is None:
            return
        torch, original = self.torch, autocast.__init__

        def __init__(self: Any, device_type: str, dtype: Any = None, *args: Any, **kwargs: Any) -> None:
            if device_type == "cuda":
                device_type, dtype = "cpu", dtype if dtype is not None else torch.float16
            original(self, device_type, dtype, *args, **kwargs)

        self.patch(autocast, "__init__", __init__)
