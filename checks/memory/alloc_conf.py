"""PYTORCH_CUDA_ALLOC_CONF and PYTORCH_ALLOC_CONF read the way torch's C++ parser reads them.

A port of ``c10::CachingAllocator::ConfigTokenizer`` and the option parsers of
``c10/core/AllocatorConfig.cpp`` and ``c10/cuda/CUDAAllocatorConfig.cpp`` (those of torch 2.13, and the
options that came later, each with the first release that has it: ``FIRST_RELEASE``; the parser of
torch 2.13's libc10 reads PYTORCH_CUDA_ALLOC_CONF, then PYTORCH_HIP_ALLOC_CONF, then
PYTORCH_ALLOC_CONF and uses the first one that is set, even when it is empty). torch parses the
value at the first CUDA allocation and raises there, so a value that torch rejects is a
training run that dies on its first tensor. Pure: no I/O, no torch.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

VARIABLES = ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF", "PYTORCH_ALLOC_CONF")
"""The variables torch reads, in the order it tries them; the first one set is the one used."""
NO_CACHING = "PYTORCH_NO_CUDA_MEMORY_CACHING"

FAIL = "fail"
WARN = "warn"

_MIN_SPLIT_MB = 20  # kLargeBuffer: max_split_size_mb and max_non_split_rounding_mb must be >= this
_MIN_LARGE_SEGMENT_MB = 10  # kMinLargeAlloc: large_segment_size_mb must be > this
_MAX_REGISTER_THREADS = 128  # CUDAAllocatorConfig::pinned_max_register_threads()
_BACKENDS = ("native", "cudaMallocAsync", "hipMallocAsync")
# backend:cudaMallocAsync "ignores max_split_size_mb, roundup_power2_divisions, and
# garbage_collect_threshold" (torch's own warning) and the other options of the native allocator.
_NATIVE_ONLY = (
    "max_split_size_mb",
    "max_non_split_rounding_mb",
    "garbage_collection_threshold",
    "roundup_power2_divisions",
    "expandable_segments",
)
_SEPARATORS = ",:[]"


@dataclass(frozen=True)
class ConfIssue:
    severity: str  # FAIL: torch raises (or misreads it badly); WARN: it runs, not as written
    key: str | None  # the option the issue is about, None for the syntax of the whole value
    message: str
    fix: str = ""
    """What to do about this issue; empty for "correct the value" with the documentation's link."""
    value: str | None = None
    """A corrected value of the whole variable, where there is one to suggest."""


@dataclass(frozen=True)
class AllocConf:
    """One variable's value: the options as torch reads them (last one wins) and what is wrong."""

    variable: str
    raw: str
    options: dict[str, str] = field(default_factory=dict)
    issues: tuple[ConfIssue, ...] = ()

    @property
    def worst(self) -> str | None:
        severities = {issue.severity for issue in self.issues}
        return FAIL if FAIL in severities else WARN if WARN in severities else None


@dataclass(frozen=True)
class ConfReading:
    """What a process with these variables gets: the variable torch uses, and those it ignores."""

    used: AllocConf | None  # None when no variable is set: every option has its default
    ignored: tuple[AllocConf, ...]
    issues: tuple[ConfIssue, ...]  # the used value's issues, then the conflicts between variables
    no_caching: bool  # PYTORCH_NO_CUDA_MEMORY_CACHING=1: every allocation is a cudaMalloc

    @property
    def expandable_segments(self) -> bool:
        return self.used is not None and self.used.options.get("expandable_segments") == "True"

    @property
    def backend(self) -> str:
        return "native" if self.used is None else self.used.options.get("backend", "native")


# ---------------------------------------------------------------------------------------------
# tokens


_WHITESPACE = " \t\n\v\f\r"  # std::isspace in the C locale


def tokens(raw: str) -> list[str]:
    """ConfigTokenizer: ``,`` ``:`` ``[`` ``]`` are tokens of their own; all whitespace is dropped."""
    found: list[str] = []
    word = ""
    for char in raw:
        if char in _SEPARATORS:
            if word:
                found.append(word)
                word = ""
            found.append(char)
        elif char not in _WHITESPACE:
            word += char
    if word:
        found.append(word)
    return found


# ---------------------------------------------------------------------------------------------
# values

ValueCheck = Callable[[str, str], list[ConfIssue]]


def _whole_number(key: str, text: str) -> tuple[int | None, list[ConfIssue]]:
    """Read like std::stoull: leading digits, the rest ignored; a sign wraps around."""
    match = re.match(r"([+-]?)(\d+)", text)
    if match is None:
        return None, [ConfIssue(FAIL, key, f"{key}:{text} is not a whole number")]
    sign, digits = match.groups()
    if sign == "-":
        return None, [
            ConfIssue(FAIL, key, f"{key}:{text} is negative: torch reads it as {2**64 - int(digits)}")
        ]
    issues = []
    if match.end() < len(text):
        issues.append(
            ConfIssue(
                WARN, key, f"{key}:{text} is read as {int(digits)}: the text after the number is ignored"
            )
        )
    return int(digits), issues


def _number(key: str, text: str) -> tuple[float | None, list[ConfIssue]]:
    """Read like std::stod: a leading decimal number, the rest ignored."""
    match = re.match(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text)
    if match is None:
        return None, [ConfIssue(FAIL, key, f"{key}:{text} is not a number")]
    issues = []
    if match.end() < len(text):
        issues.append(ConfIssue(WARN, key, f"{key}:{text} is read as {match.group(0)}: the rest is ignored"))
    return float(match.group(0)), issues


def _power_of_two(value: int) -> bool:
    return value > 0 and value & (value - 1) == 0


def _bool(key: str, text: str) -> list[ConfIssue]:
    if text in ("True", "False"):
        return []
    return [ConfIssue(FAIL, key, f"{key} must be True or False (capitalised), not {text!r}")]


def _megabytes(minimum: int, strict: bool = False) -> ValueCheck:
    def check(key: str, text: str) -> list[ConfIssue]:
        value, issues = _whole_number(key, text)
        if value is not None and (value <= minimum if strict else value < minimum):
            bound = f"more than {minimum}" if strict else f"at least {minimum}"
            issues.append(ConfIssue(FAIL, key, f"{key}:{text} is too small: it must be {bound} (MiB)"))
        return issues

    return check


def _fraction(low_open: bool, high_open: bool) -> ValueCheck:
    def check(key: str, text: str) -> list[ConfIssue]:
        value, issues = _number(key, text)
        if value is None:
            return issues
        too_low = value <= 0 if low_open else value < 0
        too_high = value >= 1 if high_open else value > 1
        if too_low or too_high:
            interval = f"{'(' if low_open else '['}0.0, 1.0{')' if high_open else ']'}"
            issues.append(ConfIssue(FAIL, key, f"{key}:{text} is outside {interval}"))
        return issues

    return check


def _register_threads(key: str, text: str) -> list[ConfIssue]:
    value, issues = _whole_number(key, text)
    if value is not None and not (_power_of_two(value) and value <= _MAX_REGISTER_THREADS):
        issues.append(
            ConfIssue(FAIL, key, f"{key}:{text} must be a power of 2 up to {_MAX_REGISTER_THREADS}")
        )
    return issues


def _backend(key: str, text: str) -> list[ConfIssue]:
    if text in _BACKENDS:
        return []
    return [ConfIssue(FAIL, key, f"backend must be native or cudaMallocAsync, not {text!r}")]


def _any(key: str, text: str) -> list[ConfIssue]:
    return []


_SCALAR_OPTIONS: dict[str, ValueCheck] = {
    # c10/core/AllocatorConfig.cpp (every accelerator)
    "large_segment_size_mb": _megabytes(_MIN_LARGE_SEGMENT_MB, strict=True),
    "max_split_size_mb": _megabytes(_MIN_SPLIT_MB),
    "max_non_split_rounding_mb": _megabytes(_MIN_SPLIT_MB),
    "garbage_collection_threshold": _fraction(low_open=True, high_open=True),
    "expandable_segments": _bool,
    "pinned_use_background_threads": _bool,
    "pinned_max_round_threshold_mb": _megabytes(0),
    "pinned_max_cached_size_mb": _megabytes(0),
    # c10/cuda/CUDAAllocatorConfig.cpp (ROCm spellings are accepted on CUDA builds too)
    "backend": _backend,
    "release_lock_on_cudamalloc": _bool,
    "release_lock_on_hipmalloc": _bool,
    "pinned_use_cuda_host_register": _bool,
    "pinned_use_hip_host_register": _bool,
    "pinned_num_register_threads": _register_threads,
    "pinned_reserve_segment_size_mb": _megabytes(0, strict=True),
    "graph_capture_record_stream_reuse": _bool,
    "per_process_memory_fraction": _fraction(low_open=False, high_open=False),
    "pinned_free_catch_all": _bool,
    "throw_on_cudamalloc_oom": _bool,
    "expandable_segments_reserve": _any,  # malformed values only make torch warn and keep the default
}
_LIST_OPTIONS = ("roundup_power2_divisions", "expandable_segments_reserve_by_class")
KNOWN_OPTIONS = tuple(sorted((*_SCALAR_OPTIONS, *_LIST_OPTIONS)))
DEVICE_OPTIONS = frozenset(
    {
        "backend",
        "release_lock_on_cudamalloc",
        "release_lock_on_hipmalloc",
        "pinned_use_cuda_host_register",
        "pinned_use_hip_host_register",
        "pinned_num_register_threads",
        "pinned_reserve_segment_size_mb",
        "graph_capture_record_stream_reuse",
        "per_process_memory_fraction",
        "pinned_free_catch_all",
        "throw_on_cudamalloc_oom",
        "expandable_segments_reserve",
        "expandable_segments_reserve_by_class",
    }
)
"""Options the CUDA (or HIP) allocator parses (libc10_cuda); the others are c10's own, every build's."""


FIRST_RELEASE: dict[str, tuple[str, str]] = {
    key: (
        "2.15",
        "the key is in torch/lib/libc10_cuda.so of torch-2.15.0-cp312-cp312-manylinux_2_28_x86_64.whl on the "
        "package index and not in that of torch 2.13.0, 2.14.0 or 2.14.1 (the same wheel tag); added by "
        "pytorch/pytorch#192269 (2026-08)",
    )
    for key in ("expandable_segments_reserve", "expandable_segments_reserve_by_class")
}
"""Options that came after the releases torchdoctor otherwise knows: the first torch release line whose
libraries hold the key, with the source."""


def accepted_keys(torch_keys: Mapping[str, Any] | None) -> frozenset[str] | None:
    """The keys the installed torch accepts, from the key names found in its own libraries (the
    ``allocator`` probe's ``torch_keys``); where they could not be read, every key but those that came
    after the installed release (``FIRST_RELEASE``, by its ``version``); None, which accepts every key, when
    neither is known.

    A build without a CUDA or HIP library (CPU-only) has no device options to check them against.
    """
    if not torch_keys:
        return None
    if torch_keys.get("common") is None:
        line = _release_line(torch_keys.get("version"))
        if line is None:
            return None
        return frozenset(
            k for k in KNOWN_OPTIONS if k not in FIRST_RELEASE or line >= _pair(FIRST_RELEASE[k][0])
        )
    device = torch_keys.get("device")
    return frozenset(torch_keys["common"]) | (DEVICE_OPTIONS if device is None else frozenset(device))


def _pair(text: str) -> tuple[int, int]:
    major, minor = text.split(".")[:2]
    return int(major), int(minor)


def _release_line(version: Any) -> tuple[int, int] | None:
    match = re.match(r"(\d+)\.(\d+)", version) if isinstance(version, str) else None
    return None if match is None else (int(match[1]), int(match[2]))


def _roundup_divisions(text: str) -> list[ConfIssue]:
    """The legacy single value: a power of 2 applied to every size interval."""
    key = "roundup_power2_divisions"
    value, issues = _whole_number(key, text)
    if value is not None and not _power_of_two(value):
        issues.append(ConfIssue(FAIL, key, f"{key}:{text} must be a power of 2"))
    return issues


def _roundup_entry(interval: str, divisions: str) -> list[ConfIssue]:
    key = "roundup_power2_divisions"
    issues = []
    value, found = _whole_number(key, divisions)
    issues += found
    if value is not None and value != 0 and not _power_of_two(value):
        issues.append(
            ConfIssue(FAIL, key, f"{key}: {interval}:{divisions} divisions must be 0 or a power of 2")
        )
    if interval != ">":
        size, found = _whole_number(key, interval)
        issues += found
        if size is not None and not _power_of_two(size):
            issues.append(ConfIssue(FAIL, key, f"{key}: the interval {interval} must be a power of 2 (MiB)"))
    return issues


# ---------------------------------------------------------------------------------------------
# parse


class _Syntax(Exception):
    def __init__(self, key: str | None, message: str) -> None:
        super().__init__(message)
        self.issue = ConfIssue(FAIL, key, message)


def parse(raw: str, variable: str = VARIABLES[0], known: Sequence[str] | None = None) -> AllocConf:
    """Parse one variable's value; every issue names its option.

    ``known`` is the set of keys the installed torch accepts (read from its own libraries); a key of a
    newer torch is then an unknown key for this one. None accepts every key torchdoctor knows.
    """
    toks = tokens(raw)
    options: dict[str, str] = {}
    issues: list[ConfIssue] = []
    seen: list[str] = []
    i = 0
    try:
        while i < len(toks):
            key = toks[i]
            if key in _SEPARATORS:
                raise _Syntax(None, f"unexpected {key!r} where an option name should be ({raw!r})")
            if "=" in key:
                name = key.split("=", 1)[0]
                raise _Syntax(name, f"{key}: options are written {name}:VALUE, with a colon, not '='")
            i, value = _value(toks, i, key)
            if key not in KNOWN_OPTIONS:
                issues.append(_unknown(key))
            elif known is not None and key not in known:
                issues.append(_too_new(key))
            elif key in seen:
                issues.append(
                    ConfIssue(
                        WARN,
                        key,
                        f"{key} is set twice: the last value, {value}, wins",
                        f"Write {key} once, with the value you mean.",
                    )
                )
            if key in _SCALAR_OPTIONS:
                issues += _SCALAR_OPTIONS[key](key, value)
            elif key == "roundup_power2_divisions":
                issues += _roundup(value)
            seen.append(key)
            options[key] = value
            if i + 1 < len(toks):
                i += 1
                if toks[i] != ",":
                    raise _Syntax(key, f"expected ',' after the {key} option, found {toks[i]!r}")
            i += 1
    except _Syntax as syntax:
        issues.append(syntax.issue)
    backend = options.get("backend")
    ignored = [k for k in _NATIVE_ONLY if k in options]
    if backend in ("cudaMallocAsync", "hipMallocAsync") and ignored:
        kept = ",".join(f"{k}:{v}" for k, v in options.items() if k not in ignored)
        issues.append(
            ConfIssue(
                WARN,
                "backend",
                f"backend:{backend} ignores {', '.join(ignored)}: those options only apply to the "
                "native caching allocator",
                f"Drop {', '.join(ignored)} (backend:{backend} manages memory itself), or use the native "
                "allocator (remove backend) to keep them.",
                kept,
            )
        )
    return AllocConf(variable, raw, options, tuple(issues))


def _value(toks: Sequence[str], i: int, key: str) -> tuple[int, str]:
    """Consume ``:value`` or ``:[...]`` after the key at ``i``; returns the last index and the value."""
    if i + 1 >= len(toks) or toks[i + 1] != ":":
        found = "nothing" if i + 1 >= len(toks) else repr(toks[i + 1])
        raise _Syntax(key, f"{key} needs a value written {key}:VALUE, found {found} after it")
    if i + 2 >= len(toks):
        raise _Syntax(key, f"{key}: has no value after the ':'")
    if toks[i + 2] != "[":
        if toks[i + 2] in _SEPARATORS:
            raise _Syntax(key, f"{key}: has no value after the ':' (found {toks[i + 2]!r})")
        value = toks[i + 2]
        if ";" in value:
            raise _Syntax(key, f"{key}:{value}: options are separated by commas, not ';'")
        return i + 2, value
    end = i + 3
    while end < len(toks) and toks[end] != "]":
        end += 1
    if end >= len(toks):
        raise _Syntax(key, f"{key}:[... has no closing ']'")
    return end, "[" + "".join(toks[i + 3 : end]) + "]"


def _roundup(value: str) -> list[ConfIssue]:
    if not value.startswith("["):
        return _roundup_divisions(value)
    issues: list[ConfIssue] = []
    body = value[1:-1]
    for entry in filter(None, body.split(",")):
        interval, colon, divisions = entry.partition(":")
        if not colon or not divisions:
            message = f"roundup_power2_divisions: the entry {entry!r} must be INTERVAL:DIVISIONS"
            issues.append(ConfIssue(FAIL, "roundup_power2_divisions", message))
            continue
        issues += _roundup_entry(interval, divisions)
    return issues


def _unknown(key: str) -> ConfIssue:
    near = _closest(key)
    hint = f" (did you mean {near}?)" if near else ""
    return ConfIssue(
        FAIL,
        key,
        f"{key} is not an allocator option{hint}: CUDA builds of torch raise "
        f"\"Unrecognized key '{key}' in CUDA allocator config\"",
    )


def _too_new(key: str) -> ConfIssue:
    first = FIRST_RELEASE.get(key)
    came = f"it came in torch {first[0]}" if first else "it came in a newer release"
    return ConfIssue(
        FAIL,
        key,
        f"{key} is not an option of the installed torch ({came}): it raises "
        f"\"Unrecognized key '{key}' in CUDA allocator config\"",
        f"Remove {key}, or upgrade torch to a release that has it.",
    )


def _closest(key: str) -> str | None:
    import difflib

    matches = difflib.get_close_matches(key.lower(), KNOWN_OPTIONS, n=1, cutoff=0.75)
    return matches[0] if matches else None


# ---------------------------------------------------------------------------------------------
# the process environment


def read(environ: Mapping[str, str], known: Sequence[str] | None = None) -> ConfReading:
    """What torch makes of the allocator variables in ``environ``; ``known`` as for :func:`parse`."""
    present = [parse(environ[name], name, known) for name in VARIABLES if name in environ]
    no_caching = environ.get(NO_CACHING, "").strip() not in ("", "0")
    if not present:
        return ConfReading(None, (), (), no_caching)
    used, *ignored = present
    issues = list(used.issues)
    for other in ignored:
        if other.options != used.options:
            issues.append(_conflict(used, other))
    return ConfReading(used, tuple(ignored), tuple(issues), no_caching)


def _conflict(used: AllocConf, other: AllocConf) -> ConfIssue:
    keys = sorted(set(used.options) | set(other.options))
    differing = [k for k in keys if used.options.get(k) != other.options.get(k)]
    shown = "; ".join(
        f"{k} is {used.options.get(k, 'default')} in {used.variable}, "
        f"{other.options.get(k, 'default')} in {other.variable}"
        for k in differing[:4]
    )
    return ConfIssue(
        WARN,
        differing[0] if differing else None,
        f"{used.variable} and {other.variable} are both set and disagree ({shown}): torch reads "
        f"{used.variable} and ignores {other.variable}",
        f"Keep one allocator variable: unset {other.variable} (torch reads {used.variable}).",
    )


def describe(reading: ConfReading) -> str:
    """One line: which variable is in effect and the options it sets."""
    if reading.used is None:
        return "no allocator variable is set: torch's defaults (native allocator, expandable_segments False)"
    shown = ",".join(f"{k}:{v}" for k, v in reading.used.options.items()) or "nothing"
    return f"{reading.used.variable}={reading.used.raw!r} sets {shown}"
