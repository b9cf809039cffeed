"""CUDA_VISIBLE_DEVICES read the way CUDA and PyTorch read it, with every way the value can go wrong.

:func:`parse` is a port of ``torch.cuda._parse_visible_devices`` (torch 2.13) that also records what
it sees; it needs no knowledge of the GPUs. :func:`resolve` applies the parsed value to the GPUs of
one machine (their UUIDs in CUDA enumeration order) the way the driver does: an index past the last
GPU or a UUID prefix that does not name exactly one GPU ends the list. Pure standard library, no I/O.

The rules and the test vectors come from ``research/cuda_semantics.md`` §1 (NVIDIA's CUDA
Programming Guide §5.2.1.1, PyTorch PRs #84879 and #92315, nvitop's driver probes).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from torchdoctor.output.wording import and_list

_ENV = "CUDA_VISIBLE_DEVICES"
_ASCII_DIGITS = "0123456789"

KINDS = (
    "hides_all",
    "duplicate",
    "truncated",
    "out_of_range",
    "unknown_uuid",
    "ambiguous_uuid",
    "mixed_kinds",
    "separator",
    "empty_entry",
    "trailing_text",
    "whitespace",
    "prefix_case",
    "mig",
)

_GPU = "GPU-"
_MIG = "MIG-"
_PREFIXES = (_GPU, _MIG)
# Some batch systems set this literal when a job is given no GPU; having no digits, it is an invalid index.
_NO_DEV_FILES = "NoDevFiles"

# Text after an entry's number that looks like another number behind a separator ("0 1", "1;2", "0-2").
_SEPARATED = re.compile(r"[\s;:|/.\-]+[+-]?\d")
_RANGE = re.compile(r"(\d+)\s*-\s*(\d+)")
_LONGEST_RANGE = 64


@dataclass(frozen=True)
class CvdIssue:
    kind: str  # one of KINDS
    position: int | None  # 0-based index of the offending comma-separated entry
    entry: str | None  # that entry's raw text
    message: str  # one line: what happens, and what to write instead where there is a fix


@dataclass(frozen=True)
class ParsedCvd:
    raw: str | None  # None when the variable is unset
    mode: str  # "unset" | "index" | "uuid" | "mig" | "none"
    items: tuple[int, ...] | tuple[str, ...]  # what torch's _parse_visible_devices returns; unset -> ()
    issues: tuple[CvdIssue, ...]  # syntax-only findings


@dataclass(frozen=True)
class Resolution:
    visible: tuple[int, ...]  # positions in the uuids given to resolve(), in cuda:0, cuda:1, ... order
    mig: tuple[str, ...]  # the MIG entry CUDA would use (at most one)
    issues: tuple[CvdIssue, ...]  # parse issues followed by what resolution found


# ---------------------------------------------------------------------------------------------
# parse


def parse(raw: str | None) -> ParsedCvd:
    """Parse a CUDA_VISIBLE_DEVICES value (``None`` when unset) exactly as PyTorch does."""
    if raw is None:
        return ParsedCvd(None, "unset", (), ())
    if not raw.strip():
        message = f"{_ENV}={raw!r} is set but empty: no GPU is visible; unset it to see every GPU"
        return _nothing(raw, CvdIssue("hides_all", None, None, message))
    if raw.strip() == _NO_DEV_FILES:
        return _nothing(raw, _hides_all(raw, "some batch systems set this value when a job is given no GPU"))
    if raw.startswith(_PREFIXES):
        prefix = raw[: len(_GPU)]
        items, issues = _parse_uuids(raw, prefix)
        if prefix == _MIG and len(items) > 1:
            issues.append(_extra_mig(raw, items))
        mode = "mig" if prefix == _MIG else "uuid"
        return ParsedCvd(raw, mode if items else "none", items, tuple(issues))
    misread = _misread_uuid_list(raw)
    if misread:
        return ParsedCvd(raw, "none", (), misread)
    values, issues = _parse_indices(raw)
    return ParsedCvd(raw, "index" if values else "none", values, tuple(issues))


def _nothing(raw: str, *issues: CvdIssue) -> ParsedCvd:
    return ParsedCvd(raw, "none", (), issues)


def _strtoul(text: str) -> tuple[int, int]:
    """Return (value, characters used) of the leading ``[+-]?digits`` of ``text``; value -1 when invalid.

    PR pytorch#84879: CUDA reads entries "like strtoul", so "1gpu2" is 1. Torch uses str.isdigit()
    and raises on a bare sign ("-", "+x"); here that is an invalid entry instead.
    """
    end = 1 if text[:1] in ("+", "-") else 0
    while end < len(text) and text[end] in _ASCII_DIGITS:  # strtoul reads ASCII digits only
        end += 1
    try:
        return int(text[:end]), end
    except ValueError:
        return -1, 0


def _parse_indices(raw: str) -> tuple[tuple[int, ...], list[CvdIssue]]:
    entries = raw.split(",")
    values: list[int] = []
    issues: list[CvdIssue] = []
    for pos, entry in enumerate(entries):
        value, used = _strtoul(entry.strip())
        if value in values:
            # "Repeated ordinal results in empty set" (torch; nvitop observed the same from the driver).
            first = values.index(value)
            message = (
                f"entry {pos} {entry!r} repeats GPU {value} (entry {first} {entries[first]!r}): "
                "a GPU listed twice hides every GPU"
            )
            issues.append(CvdIssue("duplicate", pos, entry, message))
            return (), [*issues, _hides_all(raw, "it lists the same GPU twice")]
        if value < 0:
            issues.append(_invalid_index(entries, pos))
            break
        values.append(value)
        leftover = _leftover_text(entries, pos, value, used)
        if leftover:
            issues.append(leftover)
    if not values:
        issues.append(_hides_all(raw, _first_entry_reason(entries[0])))
    return tuple(values), issues


def _invalid_index(entries: list[str], pos: int) -> CvdIssue:
    """The issue for an entry that ends an index list: empty, negative, non-numeric or a UUID."""
    entry = entries[pos]
    text = entry.strip()
    if not text:
        return _empty_entry(entries, pos)
    if text.upper().startswith(_PREFIXES):
        message = (
            f"entry {pos} {entry!r} is a UUID in a list of indices: indices and UUIDs cannot be mixed, "
            f"so {_ignored(entries, pos)}"
        )
        return CvdIssue("mixed_kinds", pos, entry, message)
    message = f"entry {pos} {entry!r} is not a valid GPU index: {_ignored(entries, pos)}"
    return CvdIssue("truncated", pos, entry, message)


def _empty_entry(entries: list[str], pos: int) -> CvdIssue:
    entry = entries[pos]
    if pos == len(entries) - 1 and pos > 0:
        message = f"entry {pos} {entry!r} is empty (a trailing comma): nothing follows it, so no GPU is lost"
    else:
        message = f"entry {pos} {entry!r} is empty: {_ignored(entries, pos)}"
    return CvdIssue("empty_entry", pos, entry, message)


def _leftover_text(entries: list[str], pos: int, value: int, used: int) -> CvdIssue | None:
    """Text after an entry's number: another number behind a separator, or ignored trailing text."""
    entry = entries[pos]
    text = entry.strip()
    rest = text[used:]
    if not rest:
        return None
    if not _SEPARATED.match(rest):
        message = f"entry {pos} {entry!r} is read as {value}: the text after the number is ignored"
        return CvdIssue("trailing_text", pos, entry, message)
    span = _RANGE.fullmatch(text)
    numbers = _expand_range(span) if span else re.findall(r"\d+", text)
    fixed = ",".join(
        [*(e.strip() for e in entries[:pos]), *numbers, *(e.strip() for e in entries[pos + 1 :])]
    )
    # PR pytorch#84879: "at using 510 driver, ranges do not seem to be supported".
    advice = "ranges are not supported, list every GPU" if span else "use commas"
    message = f"entry {pos} {entry!r} is read as {value}: {advice}, {_ENV}={fixed}"
    return CvdIssue("separator", pos, entry, message)


def _expand_range(span: re.Match[str]) -> list[str]:
    low, high = int(span[1]), int(span[2])
    if low <= high < low + _LONGEST_RANGE:
        return [str(n) for n in range(low, high + 1)]
    return [span[1], span[2]]


def _first_entry_reason(entry: str) -> str:
    text = entry.strip()
    if re.fullmatch(r"-\d+", text):
        return f"{text!r} is the common idiom to hide all GPUs from a process"
    return f"its first entry {entry!r} is not a valid GPU index, so the list is empty"


def _misread_uuid_list(raw: str) -> tuple[CvdIssue, ...]:
    """A UUID list that torch reads as indices (and so hides every GPU): leading space, lower-case prefix.

    Only an exact "GPU-"/"MIG-" at the very start selects the UUID branch (torch tests the whole
    variable); the driver's own handling is undocumented (research note §1.5).
    """
    text = raw.lstrip()
    prefix = text[: len(_GPU)]
    if prefix.upper() not in _PREFIXES:
        return ()
    entry = raw.split(",")[0]
    fixed = _fixed_uuid_list(raw)
    issues: list[CvdIssue] = []
    if text != raw:
        message = (
            f"entry 0 {entry!r} starts with whitespace, so the value is read as a list of indices and "
            f"hides every GPU: {_ENV}={fixed}"
        )
        issues.append(CvdIssue("whitespace", 0, entry, message))
    if prefix not in _PREFIXES:
        message = (
            f"entry 0 {entry!r} has a {prefix!r} prefix but only {prefix.upper()!r} starts a UUID list, "
            f"so the value is read as indices and hides every GPU: {_ENV}={fixed}"
        )
        issues.append(CvdIssue("prefix_case", 0, entry, message))
    issues.append(_hides_all(raw, f"it is not read as a UUID list; write {_ENV}={fixed}"))
    return tuple(issues)


def _fixed_uuid_list(raw: str) -> str:
    fixed = []
    for entry in raw.split(","):
        text = entry.strip()
        if text[: len(_GPU)].upper() in _PREFIXES:
            text = text[: len(_GPU)].upper() + text[len(_GPU) :]
        fixed.append(text)
    return ",".join(fixed)


def _parse_uuids(raw: str, prefix: str) -> tuple[tuple[str, ...], list[CvdIssue]]:
    """Port of torch's parse_list_with_prefix: no stripping; an entry without the prefix ends the list."""
    entries = raw.split(",")
    kept: list[str] = []
    issues: list[CvdIssue] = []
    for pos, entry in enumerate(entries):
        if entry in kept:
            first = kept.index(entry)
            message = f"entry {pos} {entry!r} repeats entry {first}: a GPU listed twice hides every GPU"
            issues.append(CvdIssue("duplicate", pos, entry, message))
            return (), [*issues, _hides_all(raw, "it lists the same UUID twice")]
        if not entry.startswith(prefix):
            issues.append(_foreign_entry(entries, pos, prefix))
            break
        kept.append(entry)
        if entry != entry.rstrip():
            message = (
                f"entry {pos} {entry!r} ends with whitespace, which is not trimmed in a UUID list, "
                f"so it matches no GPU: write {entry.strip()!r}"
            )
            issues.append(CvdIssue("whitespace", pos, entry, message))
    return tuple(kept), issues


def _foreign_entry(entries: list[str], pos: int, prefix: str) -> CvdIssue:
    """The issue for an entry of a UUID list that does not start with the list's prefix."""
    entry = entries[pos]
    text = entry.strip()
    if not text:
        return _empty_entry(entries, pos)
    fixed = _fixed_uuid_list(entry)
    if text.startswith(prefix):
        message = (
            f"entry {pos} {entry!r} starts with whitespace, which is not trimmed in a UUID list: "
            f"{_ignored(entries, pos)}; write {fixed!r}"
        )
        return CvdIssue("whitespace", pos, entry, message)
    if text.upper().startswith(prefix):
        message = (
            f"entry {pos} {entry!r} does not start with {prefix!r} (the prefix is case-sensitive): "
            f"{_ignored(entries, pos)}; write {fixed!r}"
        )
        return CvdIssue("prefix_case", pos, entry, message)
    message = (
        f"entry {pos} {entry!r} is not a {prefix!r} entry: a list cannot mix indices, GPU UUIDs and "
        f"MIG instances, so {_ignored(entries, pos)}"
    )
    return CvdIssue("mixed_kinds", pos, entry, message)


def _extra_mig(raw: str, items: tuple[str, ...]) -> CvdIssue:
    entry = raw.split(",")[1]
    after = len(items) - 2
    also = f" (nor the {after} after it)" if after else ""
    message = (
        f"entry 1 {entry!r} is not used{also}: "
        "only the first MIG instance is used: CUDA enumerates a single MIG instance per process"
    )
    return CvdIssue("mig", 1, entry, message)


# ---------------------------------------------------------------------------------------------
# resolve


def resolve(parsed: ParsedCvd, uuids: Sequence[str]) -> Resolution:
    """Apply ``parsed`` to a machine whose GPUs have ``uuids`` ("GPU-..."), in CUDA enumeration order."""
    issues = list(parsed.issues)
    if parsed.mode == "unset":
        return Resolution(tuple(range(len(uuids))), (), tuple(issues))
    if parsed.mode == "mig":
        # A MIG value cannot be checked against GPU UUIDs; only the first instance is enumerated.
        return Resolution((), (str(parsed.items[0]),), tuple(issues))
    if parsed.mode == "index":
        visible = _resolve_indices(parsed, len(uuids), issues)
    elif parsed.mode == "uuid":
        visible = _resolve_uuids(parsed, list(uuids), issues)
    else:
        visible = ()
    return Resolution(visible, (), tuple(issues))


def _resolve_indices(parsed: ParsedCvd, count: int, issues: list[CvdIssue]) -> tuple[int, ...]:
    """An index past the last GPU ends the list (NVIDIA: "only devices ... before the invalid index")."""
    entries = str(parsed.raw).split(",")
    values = [int(item) for item in parsed.items]
    for pos, value in enumerate(values):
        if value >= count:
            message = (
                f"entry {pos} {entries[pos]!r} refers to GPU {value} but this machine has "
                f"{_gpus(count)}: {_ignored(entries, pos)}"
            )
            issues.append(CvdIssue("out_of_range", pos, entries[pos], message))
            if pos == 0:
                issues.append(
                    _hides_all(
                        str(parsed.raw),
                        f"its first entry names GPU {value}, which is absent",
                    )
                )
            return tuple(values[:pos])
    return tuple(values)


def _resolve_uuids(parsed: ParsedCvd, uuids: list[str], issues: list[CvdIssue]) -> tuple[int, ...]:
    """Prefix-match each entry to exactly one GPU (case-sensitive, as torch's _transform_uuid_to_ordinals)."""
    entries = str(parsed.raw).split(",")
    found: list[int] = []
    for pos, candidate in enumerate(str(item) for item in parsed.items):
        matches = _matching(candidate, uuids)
        if len(matches) != 1:
            issues.append(_unmatched(entries, pos, matches, uuids))
            if pos == 0:
                issues.append(_hides_all(str(parsed.raw), "its first UUID does not name exactly one GPU"))
            break
        if matches[0] in found:
            first = found.index(matches[0])
            message = (
                f"entry {pos} {candidate!r} is GPU {matches[0]} again (entry {first} {entries[first]!r}): "
                "a GPU listed twice hides every GPU"
            )
            issues.append(CvdIssue("duplicate", pos, candidate, message))
            issues.append(_hides_all(str(parsed.raw), "two of its UUIDs name the same GPU"))
            return ()
        found.append(matches[0])
    return tuple(found)


def _unmatched(entries: list[str], pos: int, matches: list[int], uuids: list[str]) -> CvdIssue:
    candidate = entries[pos]
    if matches:
        named = and_list([f"GPU {k} ({uuids[k]})" for k in matches])
        message = (
            f"entry {pos} {candidate!r} is ambiguous: it matches {named}; give enough characters to "
            f"name one GPU: {_ignored(entries, pos)}"
        )
        return CvdIssue("ambiguous_uuid", pos, candidate, message)
    message = f"entry {pos} {candidate!r} matches no GPU on this machine{_near_miss(candidate, uuids)}: "
    return CvdIssue("unknown_uuid", pos, candidate, message + _ignored(entries, pos))


def _near_miss(candidate: str, uuids: list[str]) -> str:
    """Why a prefix that nearly matches does not: stray whitespace or upper-case hex."""
    text = candidate.strip()
    if text != candidate and _matching(text, uuids):
        return f" (without the whitespace, {text!r} would match {_gpu_list(_matching(text, uuids))})"
    lower = text[: len(_GPU)] + text[len(_GPU) :].lower()
    if lower != text and _matching(lower, uuids):
        # nvidia-smi -L prints lower-case hex; torch compares case-sensitively, the driver is undocumented.
        return (
            f" (UUIDs are matched case-sensitively: the lower-case form {lower!r}, as printed by "
            f"`nvidia-smi -L`, would match {_gpu_list(_matching(lower, uuids))})"
        )
    return " (`nvidia-smi -L` lists the UUIDs)"


def _matching(prefix: str, uuids: list[str]) -> list[int]:
    return [k for k, uuid in enumerate(uuids) if uuid.startswith(prefix)]


# ---------------------------------------------------------------------------------------------
# wording


def _hides_all(raw: str, reason: str) -> CvdIssue:
    return CvdIssue("hides_all", None, None, f"{_ENV}={raw!r} hides every GPU: {reason}")


def _ignored(entries: list[str], pos: int) -> str:
    after = len(entries) - pos - 1
    if after == 0:
        return "it is ignored"
    return f"it and the {after} {'entry' if after == 1 else 'entries'} after it are ignored"


def _gpus(count: int) -> str:
    if count == 0:
        return "no GPU"
    return f"{count} GPU" if count == 1 else f"{count} GPUs"


def _gpu_list(indices: list[int]) -> str:
    if len(indices) == 1:
        return f"GPU {indices[0]}"
    return "GPUs " + and_list([str(k) for k in indices])
