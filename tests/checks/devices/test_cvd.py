"""CUDA_VISIBLE_DEVICES parsing and resolution against research/cuda_semantics.md tables 1.3 and 1.4."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from torchdoctor.checks.devices.cvd import KINDS, CvdIssue, ParsedCvd, Resolution, parse, resolve

# The four NVML UUIDs of table 1.4 (prefixes from PyTorch's test, tails invented), in CUDA order.
UUIDS = (
    "GPU-9942190a-2f6c-4b1e-8d3a-5c7e9f0a1b2c",
    "GPU-9e8d35e3-7a41-4c2d-9b5e-0f1a2b3c4d5e",
    "GPU-e429a63e-1b2c-4d3e-8f4a-6b7c8d9e0f1a",
    "GPU-eee1dfbc-3c4d-4e5f-a6b7-8c9d0e1f2a3b",
)


def machine(count: int) -> list[str]:
    """UUIDs of a machine with ``count`` GPUs (the table's four first)."""
    extra = [f"GPU-{k:08x}-0000-4000-8000-{k:012x}" for k in range(len(UUIDS), count)]
    return [*UUIDS, *extra][:count]


def on(raw: str | None, count: int = 4) -> Resolution:
    return resolve(parse(raw), machine(count))


def kinds(issues: tuple[CvdIssue, ...]) -> set[str]:
    return {issue.kind for issue in issues}


def issue(resolution: Resolution, kind: str) -> CvdIssue:
    return next(found for found in resolution.issues if found.kind == kind)


@dataclass(frozen=True)
class IndexRow:
    raw: str | None
    items: tuple[int, ...]
    counts: tuple[int, int, int]  # count@2, count@4, count@8
    visible4: tuple[int, ...]  # driver-visible physical GPUs with N = 4
    kinds: frozenset[str] = frozenset()


def row(
    raw: str | None,
    items: tuple[int, ...],
    counts: tuple[int, int, int],
    visible4: tuple[int, ...],
    *issue_kinds: str,
) -> IndexRow:
    return IndexRow(raw, items, counts, visible4, frozenset(issue_kinds))


NONE = (0, 0, 0)

# Table 1.3, one case per row (row 26 holds two values); kinds are those found with N = 4.
INDEX_ROWS = {
    "01-unset": row(None, (), (2, 4, 8), (0, 1, 2, 3)),
    "02-empty": row("", (), NONE, (), "hides_all"),
    "03-space": row(" ", (), NONE, (), "hides_all"),
    "04": row("0", (0,), (1, 1, 1), (0,)),
    "05": row("0,1", (0, 1), (2, 2, 2), (0, 1)),
    "06": row("1,0", (1, 0), (2, 2, 2), (1, 0)),
    "07": row("2,1", (2, 1), (0, 2, 2), (2, 1)),
    "08": row("0,2,-1,1", (0, 2), (1, 2, 2), (0, 2), "truncated"),
    "09": row("-1", (), NONE, (), "truncated", "hides_all"),
    "10": row("0,0", (), NONE, (), "duplicate", "hides_all"),
    "11": row("0, 1, 2, 1", (), NONE, (), "duplicate", "hides_all"),
    "12": row("0, 1, 2, -1, 3", (0, 1, 2), (2, 3, 3), (0, 1, 2), "truncated"),
    "13": row(" 0 , 1 ", (0, 1), (2, 2, 2), (0, 1)),
    "14": row("0,,1", (0,), (1, 1, 1), (0,), "empty_entry"),
    "15": row(",0", (), NONE, (), "empty_entry", "hides_all"),
    "16": row("0,", (0,), (1, 1, 1), (0,), "empty_entry"),
    "17": row("1gpu2,2ampere", (1, 2), (1, 2, 2), (1, 2), "trailing_text"),
    "18": row("2, +3, -0, 5", (2, 3, 0, 5), (0, 3, 4), (2, 3, 0), "out_of_range"),
    "19": row("one,two,3,4", (), NONE, (), "truncated", "hides_all"),
    "20": row("4,3,two,one", (4, 3), (0, 0, 2), (), "truncated", "out_of_range", "hides_all"),
    "21": row("0-2", (0,), (1, 1, 1), (0,), "separator"),
    "22": row("0 1", (0,), (1, 1, 1), (0,), "separator"),
    "23": row("1;2", (1,), (1, 1, 1), (1,), "separator"),
    "24": row("00,1", (0, 1), (2, 2, 2), (0, 1)),
    "25": row("01,1", (), NONE, (), "duplicate", "hides_all"),
    "26-plus": row("+1", (1,), (1, 1, 1), (1,)),
    "26-minus-zero": row("-0", (0,), (1, 1, 1), (0,)),
    "27": row("3,7", (3, 7), (0, 1, 2), (3,), "out_of_range"),
    "28": row("7,0", (7, 0), (0, 0, 2), (), "out_of_range", "hides_all"),
    "29": row("0,7,1", (0, 7, 1), (1, 1, 3), (0,), "out_of_range"),
    "30": row("0,GPU-9e8d35e3", (0,), (1, 1, 1), (0,), "mixed_kinds"),
    "31": row("NoDevFiles", (), NONE, (), "hides_all"),
}


@pytest.mark.parametrize("case", INDEX_ROWS.values(), ids=INDEX_ROWS.keys())
def test_index_table_parse(case: IndexRow) -> None:
    assert parse(case.raw).items == case.items


@pytest.mark.parametrize("case", INDEX_ROWS.values(), ids=INDEX_ROWS.keys())
def test_index_table_counts(case: IndexRow) -> None:
    counts = tuple(len(on(case.raw, gpus).visible) for gpus in (2, 4, 8))
    assert counts == case.counts


@pytest.mark.parametrize("case", INDEX_ROWS.values(), ids=INDEX_ROWS.keys())
def test_index_table_driver_visible_and_issues(case: IndexRow) -> None:
    resolution = on(case.raw, 4)
    assert resolution.visible == case.visible4
    assert resolution.mig == ()
    assert kinds(resolution.issues) == case.kinds


@dataclass(frozen=True)
class UuidRow:
    raw: str
    items: tuple[str, ...]
    visible: tuple[int, ...]
    kinds: frozenset[str] = frozenset()
    mig: tuple[str, ...] = ()


def uuid_row(raw: str, items: tuple[str, ...], visible: tuple[int, ...], *issue_kinds: str) -> UuidRow:
    return UuidRow(raw, items, visible, frozenset(issue_kinds))


def mig_row(raw: str) -> UuidRow:
    return UuidRow(raw, (raw,), (), frozenset(), (raw,))


# Table 1.4 with its 4 GPUs. Rows given as candidates are set as the variable (all start "GPU-").
UUID_ROWS = {
    "unique-prefix": uuid_row("GPU-9e8d35e3", ("GPU-9e8d35e3",), (1,)),
    "order-kept": uuid_row("GPU-9e8d35e3,GPU-e4", ("GPU-9e8d35e3", "GPU-e4"), (1, 2)),
    "order-reversed": uuid_row("GPU-e4,GPU-9e8d35e3", ("GPU-e4", "GPU-9e8d35e3"), (2, 1)),
    "ambiguous": uuid_row("GPU-e", ("GPU-e",), (), "ambiguous_uuid", "hides_all"),
    "ambiguous-stops": uuid_row(
        "GPU-9e8d35e3,GPU-e,GPU-e429", ("GPU-9e8d35e3", "GPU-e", "GPU-e429"), (1,), "ambiguous_uuid"
    ),
    "unknown-first": uuid_row(
        "GPU-123,GPU-9e8d35e3", ("GPU-123", "GPU-9e8d35e3"), (), "unknown_uuid", "hides_all"
    ),
    "unknown-stops": uuid_row(
        "GPU-9e8d35e3,GPU-123,GPU-e429", ("GPU-9e8d35e3", "GPU-123", "GPU-e429"), (1,), "unknown_uuid"
    ),
    "same-gpu-twice": uuid_row(
        "GPU-9e8d35e3,GPU-e429,GPU-9e8",
        ("GPU-9e8d35e3", "GPU-e429", "GPU-9e8"),
        (),
        "duplicate",
        "hides_all",
    ),
    "literal-duplicate": uuid_row("GPU-9e8d35e3,GPU-9e8d35e3", (), (), "duplicate", "hides_all"),
    "integer-after-uuid": uuid_row(
        "GPU-123, 2", ("GPU-123",), (), "mixed_kinds", "unknown_uuid", "hides_all"
    ),
    "upper-case-hex": uuid_row("GPU-9E8D35E3", ("GPU-9E8D35E3",), (), "unknown_uuid", "hides_all"),
    "leading-space": uuid_row(" GPU-9e8d35e3", (), (), "whitespace", "hides_all"),
    "lower-case-prefix": uuid_row("gpu-9e8d35e3", (), (), "prefix_case", "hides_all"),
    "bare-prefix": uuid_row("GPU-", ("GPU-",), (), "ambiguous_uuid", "hides_all"),
    "mig-uuid": mig_row("MIG-89c850dc"),
    "mig-triple": mig_row("MIG-GPU-9e8d35e3/1/0"),
}


@pytest.mark.parametrize("case", UUID_ROWS.values(), ids=UUID_ROWS.keys())
def test_uuid_table(case: UuidRow) -> None:
    parsed = parse(case.raw)
    resolution = resolve(parsed, UUIDS)
    assert parsed.items == case.items
    assert resolution.visible == case.visible
    assert resolution.mig == case.mig
    assert kinds(resolution.issues) == case.kinds


MODES = {
    None: "unset",
    "": "none",
    "-1": "none",
    "0,1": "index",
    "GPU-9e8d35e3": "uuid",
    "GPU-9e8d35e3,GPU-9e8d35e3": "none",
    "MIG-89c850dc": "mig",
    "gpu-9e8d35e3": "none",
}


@pytest.mark.parametrize(("raw", "mode"), MODES.items())
def test_mode(raw: str | None, mode: str) -> None:
    assert parse(raw).mode == mode


def test_unset_shows_every_gpu_in_order() -> None:
    assert parse(None) == ParsedCvd(None, "unset", (), ())
    assert on(None, 3) == Resolution((0, 1, 2), (), ())


def test_issues_are_syntax_only_in_parse_and_carried_by_resolve() -> None:
    parsed = parse("0,7,1")
    assert parsed.issues == ()
    assert kinds(resolve(parsed, machine(4)).issues) == {"out_of_range"}
    assert kinds(resolve(parsed, machine(8)).issues) == set()
    assert resolve(parse("0,-1"), machine(4)).issues == parse("0,-1").issues


# One input per kind; each message is checked once for being one line that names its entry.
SAMPLES = {
    "hides_all": "",
    "duplicate": "0,1,0",
    "truncated": "0,1,-1,3",
    "out_of_range": "0,7",
    "unknown_uuid": "GPU-123",
    "ambiguous_uuid": "GPU-e",
    "mixed_kinds": "0,GPU-9e8d35e3",
    "separator": "0 1",
    "empty_entry": "0,,1",
    "trailing_text": "1gpu2",
    "whitespace": " GPU-9e8d35e3",
    "prefix_case": "gpu-9e8d35e3",
    "mig": "MIG-89c850dc,MIG-GPU-9e8d35e3/1/0",
}


def test_samples_cover_every_kind() -> None:
    assert tuple(SAMPLES) == KINDS


@pytest.mark.parametrize(("kind", "raw"), SAMPLES.items())
def test_message_is_one_line_naming_the_entry(kind: str, raw: str) -> None:
    found = issue(on(raw), kind)
    assert "\n" not in found.message
    assert found.message
    if found.entry is None:
        assert found.position is None
        assert repr(raw) in found.message
    else:
        assert found.entry == raw.split(",")[found.position or 0]
        assert f"entry {found.position} {found.entry!r}" in found.message


def test_every_issue_kind_is_declared() -> None:
    raws = [case.raw for case in INDEX_ROWS.values()] + [case.raw for case in UUID_ROWS.values()]
    seen = {found.kind for raw in raws for found in on(raw).issues}
    assert seen <= set(KINDS)


def test_truncation_says_how_many_entries_are_dropped() -> None:
    message = issue(on("0,1,2,-1,3"), "truncated").message
    assert message == "entry 3 '-1' is not a valid GPU index: it and the 1 entry after it are ignored"


def test_minus_one_is_named_as_the_hide_all_idiom() -> None:
    assert "common idiom to hide all GPUs" in issue(on("-1"), "hides_all").message


def test_empty_value_is_set_but_empty() -> None:
    assert "set but empty: no GPU is visible" in issue(on(""), "hides_all").message


def test_no_dev_files_is_explained() -> None:
    assert "batch systems" in issue(on("NoDevFiles"), "hides_all").message


def test_out_of_range_names_the_gpu_count() -> None:
    message = issue(on("0,7,1"), "out_of_range").message
    assert message.startswith("entry 1 '7' refers to GPU 7 but this machine has 4 GPUs: ")
    assert message.endswith("it and the 1 entry after it are ignored")


def test_out_of_range_first_entry_hides_all() -> None:
    assert on("2,1", 2).visible == ()
    assert kinds(on("2,1", 2).issues) == {"out_of_range", "hides_all"}


def test_duplicate_after_normalisation_names_both_entries() -> None:
    message = issue(on("01,1"), "duplicate").message
    assert "entry 1 '1' repeats GPU 1 (entry 0 '01')" in message


@pytest.mark.parametrize(
    ("raw", "fixed"),
    [("0 1", "0,1"), ("1;2", "1,2"), ("0-2", "0,1,2"), ("3,0 1", "3,0,1")],
)
def test_separator_suggests_commas(raw: str, fixed: str) -> None:
    message = issue(on(raw), "separator").message
    assert message.endswith(f"CUDA_VISIBLE_DEVICES={fixed}")


def test_range_is_called_out() -> None:
    assert "ranges are not supported" in issue(on("0-2"), "separator").message


def test_trailing_comma_drops_nothing() -> None:
    assert "no GPU is lost" in issue(on("0,"), "empty_entry").message
    assert "1 entry after it" in issue(on("0,,"), "empty_entry").message


def test_bare_sign_is_an_invalid_entry() -> None:
    # torch raises ValueError on these; the driver reads them as invalid indices.
    assert on("0,-").visible == (0,)
    assert kinds(on("+").issues) == {"truncated", "hides_all"}


def test_upper_case_uuid_points_to_the_lower_case_form() -> None:
    message = issue(on("GPU-9E8D35E3"), "unknown_uuid").message
    assert "'GPU-9e8d35e3'" in message
    assert "nvidia-smi -L" in message
    assert "GPU 1" in message


def test_ambiguous_uuid_names_the_matches() -> None:
    message = issue(on("GPU-e"), "ambiguous_uuid").message
    assert UUIDS[2] in message
    assert UUIDS[3] in message
    assert UUIDS[0] not in message


def test_same_gpu_through_two_prefixes() -> None:
    message = issue(on("GPU-9e8d35e3,GPU-e429,GPU-9e8"), "duplicate").message
    assert "entry 2 'GPU-9e8' is GPU 1 again (entry 0 'GPU-9e8d35e3')" in message


@pytest.mark.parametrize(("raw", "kind"), [(" GPU-9e8d35e3", "whitespace"), ("gpu-9e8d35e3", "prefix_case")])
def test_misread_uuid_list_gives_the_corrected_value(raw: str, kind: str) -> None:
    assert issue(on(raw), kind).message.endswith("CUDA_VISIBLE_DEVICES=GPU-9e8d35e3")


def test_whitespace_inside_a_uuid_list_ends_it() -> None:
    resolution = on("GPU-9e8d35e3, GPU-e4")
    assert resolution.visible == (1,)
    assert issue(resolution, "whitespace").position == 1


def test_trailing_whitespace_after_a_uuid_matches_nothing() -> None:
    resolution = on("GPU-9e8d35e3 ")
    assert resolution.visible == ()
    assert kinds(resolution.issues) == {"whitespace", "unknown_uuid", "hides_all"}
    assert "without the whitespace" in issue(resolution, "unknown_uuid").message


def test_bare_prefix_names_the_only_gpu() -> None:
    assert on("GPU-", 1).visible == (0,)


def test_only_the_first_mig_instance_is_used() -> None:
    resolution = on("MIG-89c850dc,MIG-GPU-9e8d35e3/1/0")
    assert resolution.mig == ("MIG-89c850dc",)
    assert resolution.visible == ()
    assert "only the first MIG instance is used" in issue(resolution, "mig").message


def test_mig_is_not_checked_against_gpu_uuids() -> None:
    assert on("MIG-ffffffff", 0).issues == ()


def test_mixed_kinds_in_a_uuid_list() -> None:
    resolution = on("GPU-9e8d35e3,MIG-89c850dc")
    assert resolution.visible == (1,)
    assert kinds(resolution.issues) == {"mixed_kinds"}


def test_only_ascii_digits_are_digits_as_strtoul_reads_them() -> None:
    assert parse("1²").items == (1,)  # the leftover text is ignored, as "1gpu2" is
    assert parse("٣").items == ()  # an Arabic-Indic three is no digit to CUDA
