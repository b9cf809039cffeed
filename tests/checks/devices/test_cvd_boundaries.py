"""The edges of CUDA_VISIBLE_DEVICES parsing that a changed comparison or pattern would move, each stated as
CUDA or torch defines it."""

from __future__ import annotations

import dataclasses

import pytest

from torchdoctor.checks.devices.cvd import CvdIssue, ParsedCvd, Resolution, parse, resolve

UUIDS = [f"GPU-{k:08x}-0000-4000-8000-{k:012x}" for k in range(16)]


def separator(raw: str, count: int = 16) -> CvdIssue:
    issues = resolve(parse(raw), UUIDS[:count]).issues
    return next(issue for issue in issues if issue.kind == "separator")


# Ranges are not read by the driver (PR pytorch/pytorch#84879: "at using 510 driver, ranges do not seem to be
# supported"; shared/design/research/cuda_semantics.md, section 1.1): "0-7" is read as GPU 0 alone. The fix
# lists every GPU of the range, so that the job gets the eight it asked for.
@pytest.mark.parametrize(
    ("raw", "fixed"),
    [
        ("0-7", "0,1,2,3,4,5,6,7"),
        ("8-15", "8,9,10,11,12,13,14,15"),
        ("10-12", "10,11,12"),
        ("3-3", "3"),
        ("2,4-6", "2,4,5,6"),
        ("64-100", ",".join(map(str, range(64, 101)))),
    ],
)
def test_a_range_is_fixed_as_the_list_of_every_gpu_in_it(raw: str, fixed: str) -> None:
    found = separator(raw)
    assert "ranges are not supported" in found.message
    assert found.message.endswith(f"CUDA_VISIBLE_DEVICES={fixed}")


# torch counts at most 64 GPUs: an unset CUDA_VISIBLE_DEVICES is list(range(64)) in _parse_visible_devices
# (torch/cuda/__init__.py of torch 2.13; cuda_semantics.md, section 1.2). A range of 64 GPUs is listed in
# full; a longer one (or one that runs backwards) is no list of GPUs a machine has, and its two numbers are
# given as written.
def test_a_range_of_64_gpus_is_listed_and_a_longer_one_is_not() -> None:
    assert separator("0-63").message.endswith("CUDA_VISIBLE_DEVICES=" + ",".join(map(str, range(64))))
    assert separator("0-64").message.endswith("CUDA_VISIBLE_DEVICES=0,64")
    assert separator("1-64").message.endswith("CUDA_VISIBLE_DEVICES=" + ",".join(map(str, range(1, 65))))
    assert separator("7-0").message.endswith("CUDA_VISIBLE_DEVICES=7,0")
    assert separator("0-100").message.endswith("CUDA_VISIBLE_DEVICES=0,100")


# CUDA reads an entry "like strtoul" (PR pytorch/pytorch#84879): every leading digit, so "10" is GPU 10.
# A fix that split the digits ("1,0,1,1") would list a GPU twice, which hides every GPU
# (cuda_semantics.md, section 0, rule 3).
@pytest.mark.parametrize(
    ("raw", "fixed"),
    [
        ("10 11", "10,11"),
        ("12;13", "12,13"),
        ("0,10 11", "0,10,11"),
        ("10|2", "10,2"),
        ("0 1,2,3", "0,1,2,3"),
    ],
)
def test_multi_digit_indices_are_kept_whole_in_the_fix(raw: str, fixed: str) -> None:
    found = separator(raw)
    assert "use commas" in found.message
    assert found.message.endswith(f"CUDA_VISIBLE_DEVICES={fixed}")


def test_a_multi_digit_index_is_read_whole() -> None:
    assert parse("10,11").items == (10, 11)
    assert resolve(parse("10,11"), UUIDS[:12]).visible == (10, 11)
    assert resolve(parse("10,11"), UUIDS[:11]).visible == (10,)


def kinds(raw: str, count: int = 4) -> set[str]:
    return {issue.kind for issue in resolve(parse(raw), UUIDS[:count]).issues}


def message(raw: str, kind: str, count: int = 4) -> str:
    return next(issue.message for issue in resolve(parse(raw), UUIDS[:count]).issues if issue.kind == kind)


def test_the_parsed_values_are_immutable_and_hashable() -> None:
    parsed = parse("0,1")
    resolution = resolve(parsed, UUIDS[:4])
    for value in (parsed, resolution, CvdIssue("hides_all", None, None, "m")):
        assert isinstance(value, (ParsedCvd, Resolution, CvdIssue))
        hash(value)
        field = dataclasses.fields(value)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, field, None)


def test_no_dev_files_with_whitespace_around_it_hides_every_gpu() -> None:
    # the literal some batch systems set for a job given no GPU; whitespace around an entry is tolerated
    # (torch strips each entry, cuda_semantics.md section 1.2)
    assert message(" NoDevFiles ", "hides_all").endswith("when a job is given no GPU")


# strtoul reads the ASCII digits 0-9 only (C standard, 7.22.1.4); Python's int() would read other scripts'
# digits, so a sign followed by one (U+0661 ARABIC-INDIC DIGIT ONE) is no index.
@pytest.mark.parametrize("raw", ["+\u0661", "-\u0661", "\u0661"])
def test_a_sign_or_digit_of_another_script_is_not_an_index(raw: str) -> None:
    assert parse(raw).items == ()
    assert "hides_all" in kinds(raw)


def test_an_index_of_any_length_is_read_whole() -> None:
    raw = "1" * 300
    assert parse(raw).items == (int(raw),)
    assert kinds(raw) == {"out_of_range", "hides_all"}


def test_the_reason_a_list_hides_every_gpu_names_its_first_entry() -> None:
    assert message("x,-1", "hides_all").endswith(
        "its first entry 'x' is not a valid GPU index, so the list is empty"
    )
    assert message("-1,x", "hides_all").endswith("'-1' is the common idiom to hide all GPUs from a process")


def test_an_entry_after_the_first_foreign_one_of_a_uuid_list_is_not_read() -> None:
    # torch's parse_list_with_prefix stops at the first entry without the prefix
    raw = f"{UUIDS[0]},0,{UUIDS[1]}"
    assert parse(raw).items == (UUIDS[0],)
    assert resolve(parse(raw), UUIDS[:4]).visible == (0,)


def test_a_repeated_mig_entry_hides_every_gpu_and_names_no_unused_instance() -> None:
    assert parse("MIG-a,MIG-a").items == ()
    assert {issue.kind for issue in parse("MIG-a,MIG-a").issues} == {"duplicate", "hides_all"}


# "Only single MIG instance enumeration is supported" (CUDA Programming Guide, CUDA_VISIBLE_DEVICES;
# cuda_semantics.md section 1.1): the entries after the first are not used, and the message counts them.
@pytest.mark.parametrize(
    ("raw", "said"),
    [
        ("MIG-a,MIG-b", "entry 1 'MIG-b' is not used: only the first MIG instance is used"),
        ("MIG-a,MIG-b,MIG-c", "entry 1 'MIG-b' is not used (nor the 1 after it): only the first"),
        ("MIG-a,MIG-b,MIG-c,MIG-d", "entry 1 'MIG-b' is not used (nor the 2 after it): only the first"),
    ],
)
def test_mig_entries_after_the_first_are_counted(raw: str, said: str) -> None:
    [issue] = [issue for issue in parse(raw).issues if issue.kind == "mig"]
    assert issue.message.startswith(said)


@pytest.mark.parametrize(
    ("count", "has"), [(0, "this machine has no GPU"), (1, "this machine has 1 GPU"), (2, "has 2 GPUs")]
)
def test_an_index_past_the_last_gpu_names_how_many_there_are(count: int, has: str) -> None:
    assert has + ":" in message("0,1,2", "out_of_range", count)


@pytest.mark.parametrize(
    "candidate",
    [
        "GPU-ffff ",  # whitespace, and no GPU even without it
        "GPU-FFFF",  # upper case, and no GPU in lower case either
        "GPU-zz",
    ],
)
def test_a_uuid_that_matches_nothing_in_any_spelling_points_to_nvidia_smi(candidate: str) -> None:
    assert message(candidate, "unknown_uuid").endswith("(`nvidia-smi -L` lists the UUIDs): it is ignored")


def test_a_lower_case_spelling_that_matches_several_gpus_names_them_all() -> None:
    uuids = ["GPU-e1000000-0000-4000-8000-000000000000", "GPU-e2000000-0000-4000-8000-000000000000"]
    found = next(i for i in resolve(parse("GPU-E"), uuids).issues if i.kind == "unknown_uuid")
    assert "would match GPUs 0 and 1)" in found.message
    one = next(i for i in resolve(parse("GPU-E1"), uuids).issues if i.kind == "unknown_uuid")
    assert "would match GPU 0)" in one.message


def test_a_misread_uuid_list_quotes_its_first_entry() -> None:
    raw = f" {UUIDS[0]},{UUIDS[1]}"
    assert message(raw, "whitespace").startswith(f"entry 0 ' {UUIDS[0]}' starts with whitespace")


@pytest.mark.parametrize(
    ("raw", "ignored"),
    [
        ("0,x", "entry 1 'x' is not a valid GPU index: it is ignored"),
        ("0,x,1", "it and the 1 entry after it are ignored"),
        ("0,x,1,2", "it and the 2 entries after it are ignored"),
        ("0,x,1,2,3", "it and the 3 entries after it are ignored"),
    ],
)
def test_the_entries_an_invalid_one_hides_are_counted(raw: str, ignored: str) -> None:
    assert message(raw, "truncated").endswith(ignored)


def test_a_trailing_comma_after_any_number_of_entries_loses_no_gpu() -> None:
    raw = ",".join(map(str, range(299))) + ","
    [empty] = [issue for issue in parse(raw).issues if issue.kind == "empty_entry"]
    assert empty.message == "entry 299 '' is empty (a trailing comma): nothing follows it, so no GPU is lost"
