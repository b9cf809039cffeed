"""The edges of the allocator options' values, each as torch's own parser draws it.

The sources: c10/core/AllocatorConfig.cpp (the options every build parses, judged on this machine's torch by
test_alloc_conf.py's test_accepts_and_rejects_exactly_what_torchs_own_parser_does, whose cases hold these
values too), c10/cuda/CUDAAllocatorConfig.cpp and c10/cuda/CUDAAllocatorConfig.h (the CUDA options, read in
the revision whose parser knows per_process_memory_fraction, pinned_free_catch_all and throw_on_cudamalloc_oom
but not expandable_segments_reserve: the keys of torch 2.13's libc10_cuda.so), and llvm::isPowerOf2_64 in
c10/util/llvmMathExtras.h: "Return true if the argument is a power of two > 0", so 0 is not one.
"""

from __future__ import annotations

import dataclasses

import pytest

from torchdoctor.checks.memory import alloc_conf
from torchdoctor.checks.memory.alloc_conf import FAIL


def failing(value: str) -> list[str]:
    return [issue.message for issue in alloc_conf.parse(value).issues if issue.severity == FAIL]


# CUDAAllocatorConfig::parsePinnedNumRegisterThreads (CUDAAllocatorConfig.cpp, lines 170-187 there):
# TORCH_CHECK_VALUE(llvm::isPowerOf2_64(val2), ...) then TORCH_CHECK_VALUE(val2 <= maxThreads, ...), where
# CUDAAllocatorConfig::pinned_max_register_threads() returns 128 (CUDAAllocatorConfig.h: "limiting this to
# 128 threads").
@pytest.mark.parametrize("threads", [1, 2, 8, 64, 128])
def test_pinned_num_register_threads_up_to_128_in_powers_of_2_is_accepted(threads: int) -> None:
    assert alloc_conf.parse(f"pinned_num_register_threads:{threads}").issues == ()


@pytest.mark.parametrize("threads", [0, 3, 5, 6, 129, 256])
def test_pinned_num_register_threads_outside_the_powers_of_2_up_to_128_fails(threads: int) -> None:
    assert failing(f"pinned_num_register_threads:{threads}") == [
        f"pinned_num_register_threads:{threads} must be a power of 2 up to 128"
    ]


# AllocatorConfig::parseRoundUpPower2Divisions: the single legacy value must satisfy
# llvm::isPowerOf2_64(val1) ("For roundups, the divisions has to be power of 2"), so 0 fails; an entry of the
# list passes with "val2 == 0 || llvm::isPowerOf2_64(val2)" ("power of 2 or 0 to disable roundup").
def test_roundup_power2_divisions_0_alone_fails() -> None:
    assert failing("roundup_power2_divisions:0") == ["roundup_power2_divisions:0 must be a power of 2"]
    assert alloc_conf.parse("roundup_power2_divisions:1").issues == ()


@pytest.mark.parametrize(
    "value",
    [
        "roundup_power2_divisions:[256:0]",
        "roundup_power2_divisions:[>:0]",
        "roundup_power2_divisions:[256:0,512:4,>:0]",
        "roundup_power2_divisions:[1:1]",
    ],
)
def test_roundup_power2_divisions_entry_of_0_disables_rounding_and_is_accepted(value: str) -> None:
    assert alloc_conf.parse(value).issues == ()


def test_roundup_power2_divisions_interval_must_be_a_power_of_2_above_0() -> None:
    # "For roundups, the intervals have to be power of 2": llvm::isPowerOf2_64(stoul(val1)), 0 included.
    assert failing("roundup_power2_divisions:[0:1]") == [
        "roundup_power2_divisions: the interval 0 must be a power of 2 (MiB)"
    ]


# AllocatorConfig::parseGarbageCollectionThreshold reads the value with std::stod, which takes ".5" and "5e-1"
# as 0.5, and keeps it where val_env > 0 && val_env < 1.0.
@pytest.mark.parametrize("value", [".5", "0.5", "5e-1", "0.999", "1e-3", "+.25", "0.1"])
def test_garbage_collection_threshold_written_as_stod_reads_it_is_accepted(value: str) -> None:
    assert alloc_conf.parse(f"garbage_collection_threshold:{value}").issues == ()


@pytest.mark.parametrize("value", ["0", "0.", ".0", "1", "1.0", "10e-1", "-0.5"])
def test_garbage_collection_threshold_at_0_or_1_fails(value: str) -> None:
    assert failing(f"garbage_collection_threshold:{value}") == [
        f"garbage_collection_threshold:{value} is outside (0.0, 1.0)"
    ]


# per_process_memory_fraction (CUDAAllocatorConfig::parsePerProcessMemoryFraction, lines 158-168 of that
# revision): "val_env >= 0.0 && val_env <= 1.0", both ends included.
@pytest.mark.parametrize(("value", "accepted"), [("0", True), ("1", True), ("1.01", False), ("-0.1", False)])
def test_per_process_memory_fraction_includes_both_ends(value: str, accepted: bool) -> None:
    assert (failing(f"per_process_memory_fraction:{value}") == []) is accepted


# kLargeBuffer (20 MiB) is the least max_split_size_mb and max_non_split_rounding_mb ("must be >= 20");
# large_segment_size_mb "must be > 10 MB" (torch's own message for 10 on this machine's torch).
@pytest.mark.parametrize(
    ("value", "accepted"),
    [
        ("max_split_size_mb:20", True),
        ("max_split_size_mb:19", False),
        ("max_non_split_rounding_mb:20", True),
        ("max_non_split_rounding_mb:19", False),
        ("large_segment_size_mb:11", True),
        ("large_segment_size_mb:10", False),
    ],
)
def test_the_least_sizes_torch_accepts(value: str, accepted: bool) -> None:
    assert (failing(value) == []) is accepted


def test_a_negative_size_names_the_number_torch_wraps_it_to() -> None:
    # std::stoull wraps a negative number around 2**64 (C++ [string.conversions], strtoull)
    assert failing("max_split_size_mb:-1") == [
        "max_split_size_mb:-1 is negative: torch reads it as 18446744073709551615"
    ]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            "max_split_size_mb",
            "max_split_size_mb needs a value written max_split_size_mb:VALUE, found nothing after it",
        ),
        (
            "max_split_size_mb,",
            "max_split_size_mb needs a value written max_split_size_mb:VALUE, found ',' after it",
        ),
        (
            "roundup_power2_divisions:[],max_split_size_mb",
            "max_split_size_mb needs a value written max_split_size_mb:VALUE, found nothing after it",
        ),
        ("max_split_size_mb:,", "max_split_size_mb: has no value after the ':' (found ',')"),
        (
            "roundup_power2_divisions:[1],max_split_size_mb:,",
            "max_split_size_mb: has no value after the ':' (found ',')",
        ),
        ("roundup_power2_divisions:[256:1", "roundup_power2_divisions:[... has no closing ']'"),
    ],
)
def test_a_missing_value_is_named_wherever_the_option_stands(value: str, message: str) -> None:
    assert failing(value)[-1] == message


def test_two_list_options_are_each_read_to_their_own_closing_bracket() -> None:
    conf = alloc_conf.parse("roundup_power2_divisions:[256:1],roundup_power2_divisions:[512:2]")
    assert conf.options == {"roundup_power2_divisions": "[512:2]"}
    assert [issue.message for issue in conf.issues] == [
        "roundup_power2_divisions is set twice: the last value, [512:2], wins"
    ]


def test_trailing_text_after_a_number_names_the_number_stod_reads() -> None:
    # std::stod reads the longest leading decimal number, sign and exponent included, and ignores the rest
    [issue] = alloc_conf.parse("garbage_collection_threshold:+5e-1x").issues
    assert issue.message == "garbage_collection_threshold:+5e-1x is read as +5e-1: the rest is ignored"


# AllocatorConfig.cpp accepts 0 for the pinned sizes (torch's own parser on this machine, test_alloc_conf.py)
@pytest.mark.parametrize("key", ["pinned_max_round_threshold_mb", "pinned_max_cached_size_mb"])
def test_pinned_sizes_of_0_are_accepted(key: str) -> None:
    assert alloc_conf.parse(f"{key}:0").issues == ()


def test_an_empty_list_of_divisions_is_accepted() -> None:
    # parseRoundUpPower2Divisions reads entries until the ']' it meets first
    assert alloc_conf.parse("roundup_power2_divisions:[]").issues == ()


def test_options_after_a_malformed_list_are_read_in_place() -> None:
    conf = alloc_conf.parse("roundup_power2_divisions:[1],roundup_power2_divisions:[256:1]")
    assert conf.options == {"roundup_power2_divisions": "[256:1]"}
    assert [issue.key for issue in conf.issues] == ["roundup_power2_divisions"] * 2
    assert "the entry '1' must be INTERVAL:DIVISIONS" in conf.issues[0].message
    assert "set twice" in conf.issues[1].message
    conf = alloc_conf.parse("roundup_power2_divisions:[1],max_split_size_mb:64")
    assert conf.options == {"roundup_power2_divisions": "[1]", "max_split_size_mb": "64"}
    assert [issue.key for issue in conf.issues] == ["roundup_power2_divisions"]
    conf = alloc_conf.parse(
        "roundup_power2_divisions:[],max_split_size_mb:64,roundup_power2_divisions:[],backend:native"
    )
    assert conf.options == {"roundup_power2_divisions": "[]", "max_split_size_mb": "64", "backend": "native"}
    assert [issue.severity for issue in conf.issues] == ["warn"]  # set twice


def test_a_list_without_its_closing_bracket_fails_however_long() -> None:
    value = "roundup_power2_divisions:[" + ",".join(["256:1"] * 100)
    assert failing(value) == ["roundup_power2_divisions:[... has no closing ']'"]


def test_the_values_read_are_immutable() -> None:
    conf = alloc_conf.parse("max_split_size_mb:512")
    reading = alloc_conf.read({"PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:10"})
    for value in (conf, reading, reading.issues[0]):
        field = dataclasses.fields(value)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, field, None)


def test_a_number_of_any_length_is_read_whole() -> None:
    assert alloc_conf.parse("max_split_size_mb:" + "1" * 300).issues == ()


@pytest.mark.parametrize("value", [3, 5, 6, 12])
def test_a_single_division_must_be_a_power_of_2(value: int) -> None:
    assert failing(f"roundup_power2_divisions:{value}") == [
        f"roundup_power2_divisions:{value} must be a power of 2"
    ]


# kMinLargeAlloc: large_segment_size_mb "must be > 10 MB"; CUDAAllocatorConfig::parsePinnedReserveSegmentSize:
# "Pinned reserve segment size has to be greater than 0" (TORCH_CHECK_VALUE(val2 > 0, ...)).
@pytest.mark.parametrize(
    ("value", "accepted"),
    [
        ("large_segment_size_mb:5", False),
        ("pinned_reserve_segment_size_mb:0", False),
        ("pinned_reserve_segment_size_mb:1", True),
    ],
)
def test_sizes_that_must_be_more_than_a_minimum(value: str, accepted: bool) -> None:
    assert (failing(value) == []) is accepted


def test_an_interval_that_is_not_a_number_fails() -> None:
    assert failing("roundup_power2_divisions:[abc:1]") == [
        "roundup_power2_divisions:abc is not a whole number"
    ]


def test_parse_names_pytorch_cuda_alloc_conf_by_default() -> None:
    assert alloc_conf.parse("").variable == "PYTORCH_CUDA_ALLOC_CONF"


def test_an_unknown_key_is_not_read_as_another_option() -> None:
    assert [issue.key for issue in alloc_conf.parse("zzz_option:3").issues] == ["zzz_option"]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("max_split_size_mb:512:1024", "expected ',' after the max_split_size_mb option, found ':'"),
        ("roundup_power2_divisions:[1],max_split_size_mb:", "max_split_size_mb: has no value after the ':'"),
    ],
)
def test_what_follows_a_value_is_checked(value: str, message: str) -> None:
    assert failing(value)[-1] == message


def test_a_release_after_the_first_with_a_key_accepts_it() -> None:
    # FIRST_RELEASE: expandable_segments_reserve came in torch 2.15
    for version, has in (("2.14.1", False), ("2.15.0", True), ("2.16.0", True), ("3.0.0", True)):
        keys = alloc_conf.accepted_keys({"version": version, "common": None})
        assert keys is not None and ("expandable_segments_reserve" in keys) is has, version


def test_the_keys_torch_accepts_are_its_common_and_device_keys_together() -> None:
    keys = alloc_conf.accepted_keys({"common": ["max_split_size_mb", "backend"], "device": ["backend", "x"]})
    assert keys == {"max_split_size_mb", "backend", "x"}


def test_two_disagreeing_variables_name_only_the_options_they_disagree_on() -> None:
    reading = alloc_conf.read(
        {
            "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True,max_split_size_mb:512,backend:native",
            "PYTORCH_ALLOC_CONF": "expandable_segments:True,max_split_size_mb:256,backend:cudaMallocAsync",
        }
    )
    [conflict] = [issue for issue in reading.issues if "disagree" in issue.message]
    assert conflict.key == "backend"
    assert "expandable_segments" not in conflict.message
    assert (
        "backend is native in PYTORCH_CUDA_ALLOC_CONF, cudaMallocAsync in PYTORCH_ALLOC_CONF"
        in conflict.message
    )


def test_every_entry_of_a_list_is_checked_after_a_malformed_one() -> None:
    assert failing("roundup_power2_divisions:[256:,300:2]") == [
        "roundup_power2_divisions: the entry '256:' must be INTERVAL:DIVISIONS",
        "roundup_power2_divisions: the interval 300 must be a power of 2 (MiB)",
    ]


def test_an_option_without_a_value_after_a_long_list_fails() -> None:
    value = "roundup_power2_divisions:[" + ",".join(["256:1"] * 70) + "],max_split_size_mb:"
    assert failing(value) == ["max_split_size_mb: has no value after the ':'"]


def test_long_values_are_read_whole() -> None:
    assert alloc_conf.parse("garbage_collection_threshold:0." + "1" * 300).issues == ()
    assert alloc_conf.parse("roundup_power2_divisions:[" + ",".join(["256:1"] * 70) + "]").issues == ()


def test_a_disagreement_names_four_options_at_most() -> None:
    reading = alloc_conf.read(
        {
            "PYTORCH_CUDA_ALLOC_CONF": "backend:native,expandable_segments:True,"
            "garbage_collection_threshold:0.5,max_split_size_mb:512,roundup_power2_divisions:4",
            "PYTORCH_ALLOC_CONF": "backend:cudaMallocAsync,expandable_segments:False,"
            "garbage_collection_threshold:0.6,max_split_size_mb:256,roundup_power2_divisions:8",
        }
    )
    [conflict] = [issue for issue in reading.issues if "disagree" in issue.message]
    for key in ("backend", "expandable_segments", "garbage_collection_threshold", "max_split_size_mb"):
        assert f"{key} is " in conflict.message
    assert "roundup_power2_divisions is" not in conflict.message


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            "roundup_power2_divisions:[256:1]+x",
            "expected ',' after the roundup_power2_divisions option, found '+x'",
        ),
        (
            "max_split_size_mb[512]",
            "max_split_size_mb needs a value written max_split_size_mb:VALUE, found '[' after it",
        ),
        (
            "roundup_power2_divisions:[],max_split_size_mb]",
            "max_split_size_mb needs a value written max_split_size_mb:VALUE, found ']' after it",
        ),
        (
            "roundup_power2_divisions:[" + ",".join(["256:1"] * 70) + "],max_split_size_mb",
            "max_split_size_mb needs a value written max_split_size_mb:VALUE, found nothing after it",
        ),
    ],
)
def test_what_stands_after_a_key_or_a_list_is_named(value: str, message: str) -> None:
    assert failing(value)[-1] == message
