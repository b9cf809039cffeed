"""PYTORCH_CUDA_ALLOC_CONF / PYTORCH_ALLOC_CONF parsed as torch's C++ allocator config parser does."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from torchdoctor.checks.memory import alloc_conf
from torchdoctor.checks.memory.alloc_conf import FAIL, WARN

VALID = [
    "expandable_segments:True",
    "expandable_segments: False",
    "max_split_size_mb:512",
    "max_split_size_mb:20,garbage_collection_threshold:0.6",
    "roundup_power2_divisions:4",
    "roundup_power2_divisions:[256:1,512:2,1024:4,>:8]",
    "backend:cudaMallocAsync",
    "backend:native,expandable_segments:True,",
    "pinned_use_cuda_host_register:True,pinned_num_register_threads:8",
    "large_segment_size_mb:64,max_split_size_mb:64",
    "per_process_memory_fraction:0.5",
    "",
]


@pytest.mark.parametrize("value", VALID)
def test_valid_values_have_no_issue(value: str) -> None:
    assert alloc_conf.parse(value).issues == ()


@pytest.mark.parametrize(
    ("value", "key", "text"),
    [
        ("expandable_segments:Maybe", "expandable_segments", "must be True or False"),
        ("expandable_segments:true", "expandable_segments", "(capitalised)"),
        ("max_split_size_mb:abc", "max_split_size_mb", "is not a whole number"),
        ("max_split_size_mb:10", "max_split_size_mb", "at least 20"),
        ("max_split_size_mb:-1", "max_split_size_mb", "is negative"),
        ("garbage_collection_threshold:1.5", "garbage_collection_threshold", "outside (0.0, 1.0)"),
        ("garbage_collection_threshold:high", "garbage_collection_threshold", "is not a number"),
        ("roundup_power2_divisions:3", "roundup_power2_divisions", "power of 2"),
        ("roundup_power2_divisions:[256:3,>:8]", "roundup_power2_divisions", "0 or a power of 2"),
        ("roundup_power2_divisions:[300:2]", "roundup_power2_divisions", "interval 300"),
        ("roundup_power2_divisions:[256:1", "roundup_power2_divisions", "no closing ']'"),
        ("backend:cudaMalloc", "backend", "native or cudaMallocAsync"),
        ("pinned_num_register_threads:3", "pinned_num_register_threads", "power of 2 up to 128"),
        ("pinned_num_register_threads:256", "pinned_num_register_threads", "power of 2 up to 128"),
        ("expandable_segment:True", "expandable_segment", "did you mean expandable_segments?"),
        ("expandable_segments=True", "expandable_segments", "with a colon, not '='"),
        ("expandable_segments:True;max_split_size_mb:512", "expandable_segments", "separated by commas"),
        ("max_split_size_mb", "max_split_size_mb", "needs a value"),
        ("max_split_size_mb:", "max_split_size_mb", "has no value"),
        ("expandable_segments:True,,max_split_size_mb:512", None, "unexpected ','"),
    ],
)
def test_a_bad_value_fails_naming_the_key(value: str, key: str | None, text: str) -> None:
    conf = alloc_conf.parse(value)
    failing = [issue for issue in conf.issues if issue.severity == FAIL]
    assert failing, conf.issues
    assert failing[0].key == key
    assert text in failing[0].message
    if key is not None:
        assert key in failing[0].message


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("max_split_size_mb:512MB", "read as 512: the text after the number is ignored"),
        ("garbage_collection_threshold:0.6x", "read as 0.6"),
        ("max_split_size_mb:512,max_split_size_mb:1024", "set twice: the last value, 1024, wins"),
        (
            "backend:cudaMallocAsync,expandable_segments:True",
            "ignores expandable_segments",
        ),
    ],
)
def test_values_torch_runs_but_not_as_written_warn(value: str, text: str) -> None:
    conf = alloc_conf.parse(value)
    assert conf.worst == WARN
    assert any(text in issue.message for issue in conf.issues)


def test_the_last_of_a_repeated_option_is_the_one_in_effect() -> None:
    conf = alloc_conf.parse("expandable_segments:False, expandable_segments:True")
    assert conf.options == {"expandable_segments": "True"}


def test_pytorch_cuda_alloc_conf_wins_and_a_disagreeing_pytorch_alloc_conf_warns() -> None:
    reading = alloc_conf.read(
        {
            "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
            "PYTORCH_ALLOC_CONF": "expandable_segments:False",
        }
    )
    assert reading.used is not None and reading.used.variable == "PYTORCH_CUDA_ALLOC_CONF"
    assert reading.expandable_segments is True
    (issue,) = reading.issues
    assert issue.severity == WARN
    assert issue.key == "expandable_segments"
    assert "torch reads PYTORCH_CUDA_ALLOC_CONF and ignores PYTORCH_ALLOC_CONF" in issue.message
    assert "True in PYTORCH_CUDA_ALLOC_CONF, False in PYTORCH_ALLOC_CONF" in issue.message


def test_an_empty_pytorch_cuda_alloc_conf_still_hides_pytorch_alloc_conf() -> None:
    reading = alloc_conf.read(
        {"PYTORCH_CUDA_ALLOC_CONF": "", "PYTORCH_ALLOC_CONF": "expandable_segments:True"}
    )
    assert reading.expandable_segments is False
    assert "default in PYTORCH_CUDA_ALLOC_CONF, True in PYTORCH_ALLOC_CONF" in reading.issues[0].message


def test_both_variables_saying_the_same_is_fine() -> None:
    same = "expandable_segments:True,max_split_size_mb:512"
    reading = alloc_conf.read(
        {"PYTORCH_CUDA_ALLOC_CONF": same, "PYTORCH_ALLOC_CONF": same.replace(",", ", ")}
    )
    assert reading.issues == ()


def test_pytorch_alloc_conf_alone_is_used() -> None:
    reading = alloc_conf.read({"PYTORCH_ALLOC_CONF": "backend:cudaMallocAsync"})
    assert reading.used is not None and reading.used.variable == "PYTORCH_ALLOC_CONF"
    assert reading.backend == "cudaMallocAsync"
    assert (
        alloc_conf.describe(reading)
        == "PYTORCH_ALLOC_CONF='backend:cudaMallocAsync' sets backend:cudaMallocAsync"
    )


def test_nothing_set_means_the_defaults() -> None:
    reading = alloc_conf.read({})
    assert (reading.used, reading.issues, reading.backend, reading.expandable_segments) == (
        None,
        (),
        "native",
        False,
    )
    assert alloc_conf.read({"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"}).no_caching is True
    assert alloc_conf.read({"PYTORCH_NO_CUDA_MEMORY_CACHING": "0"}).no_caching is False


def test_tokens_follow_torchs_tokenizer() -> None:
    assert alloc_conf.tokens(" a : 1 ,b:[ 2:3 ,>:4]") == [
        "a",
        ":",
        "1",
        ",",
        "b",
        ":",
        "[",
        "2",
        ":",
        "3",
        ",",
        ">",
        ":",
        "4",
        "]",
    ]


# Values whose verdict torch's own parser decides on any build: only options of the accelerator-generic
# parser (c10/core/AllocatorConfig.cpp), which the CPU build of torch also links. Left out on purpose:
# unknown keys (only CUDA builds reject them), negative sizes (torch wraps them to huge numbers; this
# parser fails them) and trailing text after a number (torch ignores it; this parser warns).
CONFORMANCE = [
    "expandable_segments:True",
    "expandable_segments:Maybe",
    "expandable_segments:true",
    "expandable_segments: False",
    "max_split_size_mb:abc",
    "max_split_size_mb:10",
    "max_split_size_mb:19",
    "max_split_size_mb:20",
    "max_split_size_mb:512",
    "max_non_split_rounding_mb:10",
    "max_non_split_rounding_mb:64",
    "garbage_collection_threshold:0",
    "garbage_collection_threshold:0.6",
    "garbage_collection_threshold:1",
    "garbage_collection_threshold:1.5",
    "roundup_power2_divisions:3",
    "roundup_power2_divisions:4",
    "roundup_power2_divisions:[256:1,512:2,>:8]",
    "roundup_power2_divisions:[256:3]",
    "roundup_power2_divisions:[300:2]",
    "large_segment_size_mb:10",
    "large_segment_size_mb:11",
    "pinned_use_background_threads:False",
    "pinned_use_background_threads:yes",
    "pinned_max_cached_size_mb:1024",
    "expandable_segments=True",
    "expandable_segments:True;max_split_size_mb:512",
    "expandable_segments:True,max_split_size_mb:512,garbage_collection_threshold:0.8",
    # the edges (test_alloc_conf_boundaries.py): std::stod reads ".5" and "5e-1"; the threshold is open at
    # both ends; a single division of 0 is no power of 2 (llvm::isPowerOf2_64), an entry's 0 disables
    # rounding; an interval of 0 is no power of 2; kLargeBuffer is the least max_non_split_rounding_mb
    "garbage_collection_threshold:.5",
    "garbage_collection_threshold:5e-1",
    "garbage_collection_threshold:+.25",
    "garbage_collection_threshold:0.",
    "garbage_collection_threshold:10e-1",
    "roundup_power2_divisions:0",
    "roundup_power2_divisions:1",
    "roundup_power2_divisions:[256:0]",
    "roundup_power2_divisions:[>:0]",
    "roundup_power2_divisions:[256:0,512:4,>:0]",
    "roundup_power2_divisions:[0:1]",
    "max_non_split_rounding_mb:19",
    "max_non_split_rounding_mb:20",
    "garbage_collection_threshold:-0.5",
    "roundup_power2_divisions:[]",
    "pinned_max_round_threshold_mb:0",
    "pinned_max_cached_size_mb:0",
]
_TORCH_PARSER = """
import json, sys, warnings
warnings.simplefilter("ignore")
import torch
results = {}
for value in json.loads(sys.argv[1]):
    torch._C._accelerator_setAllocatorSettings("large_segment_size_mb:20")  # undo the last value's state
    try:
        torch._C._accelerator_setAllocatorSettings(value)
        results[value] = True
    except Exception:
        results[value] = False
print(json.dumps(results))
"""


def test_accepts_and_rejects_exactly_what_torchs_own_parser_does() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _TORCH_PARSER, json.dumps(CONFORMANCE)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    torch_accepts = json.loads(done.stdout.splitlines()[-1])
    ours = {value: alloc_conf.parse(value).worst != FAIL for value in CONFORMANCE}
    assert ours == torch_accepts
    assert set(torch_accepts.values()) == {True, False}


# The option names in the libraries of the torch 2.14.1 CUDA wheel for Linux x86_64 (PyPI,
# torch-2.14.1-cp311-cp311-manylinux_2_28_x86_64.whl), read by allocator_probe.torch_keys's scan of
# torch/lib/libc10.so and torch/lib/libc10_cuda.so.
TORCH_2_14_1_CUDA_KEYS = {
    "common": [
        "expandable_segments",
        "garbage_collection_threshold",
        "large_segment_size_mb",
        "max_non_split_rounding_mb",
        "max_split_size_mb",
        "pinned_max_cached_size_mb",
        "pinned_max_round_threshold_mb",
        "pinned_use_background_threads",
        "roundup_power2_divisions",
    ],
    "device": [
        "backend",
        "graph_capture_record_stream_reuse",
        "per_process_memory_fraction",
        "pinned_free_catch_all",
        "pinned_num_register_threads",
        "pinned_reserve_segment_size_mb",
        "pinned_use_cuda_host_register",
        "pinned_use_hip_host_register",
        "release_lock_on_cudamalloc",
        "release_lock_on_hipmalloc",
        "throw_on_cudamalloc_oom",
    ],
}


@pytest.mark.parametrize(
    "value", ["expandable_segments:True\n", "expandable_segments:True\t", "\n  max_split_size_mb: 512\n\r"]
)
def test_whitespace_anywhere_is_skipped_as_torch_skips_it(value: str) -> None:
    """A YAML block scalar leaves a trailing newline; torch's ConfigTokenizer drops every isspace()."""
    conf = alloc_conf.parse(value)
    assert conf.issues == ()
    assert set(conf.options.values()) <= {"True", "512"}


def test_a_key_of_a_newer_torch_fails_on_the_installed_one() -> None:
    known = alloc_conf.accepted_keys(TORCH_2_14_1_CUDA_KEYS)
    assert known is not None and "expandable_segments_reserve" not in known
    conf = alloc_conf.parse("expandable_segments:True,expandable_segments_reserve:4", known=known)
    (issue,) = conf.issues
    assert (issue.severity, issue.key) == (FAIL, "expandable_segments_reserve")
    assert "not an option of the installed torch" in issue.message
    assert alloc_conf.parse("expandable_segments_reserve:4").issues == ()  # keys unknown: every key accepted


def test_a_cpu_only_build_has_no_device_options_to_refuse() -> None:
    known = alloc_conf.accepted_keys({"common": TORCH_2_14_1_CUDA_KEYS["common"], "device": None})
    assert known is not None and {"backend", "pinned_use_cuda_host_register"} <= known
    assert alloc_conf.accepted_keys({"common": None, "device": None}) is None


def test_options_the_async_backend_ignores_get_a_fix_about_them() -> None:
    (issue,) = alloc_conf.parse("backend:cudaMallocAsync,expandable_segments:True").issues
    assert issue.severity == WARN and issue.key == "backend"
    assert issue.fix.startswith("Drop expandable_segments (backend:cudaMallocAsync manages memory itself)")
    assert issue.value == "backend:cudaMallocAsync"
    assert "variable" not in issue.fix


@pytest.mark.parametrize(
    ("version", "refused"), [("2.13.0+cu126", True), ("2.14.1", True), ("2.15.0", False)]
)
def test_a_key_is_gated_on_the_release_when_the_libraries_cannot_be_read(version: str, refused: bool) -> None:
    # The wheels' libc10_cuda.so holds expandable_segments_reserve from torch 2.15.0 on.
    known = alloc_conf.accepted_keys({"common": None, "device": None, "version": version})
    assert known is not None and "max_split_size_mb" in known
    conf = alloc_conf.parse("expandable_segments_reserve_by_class:[serving:0.5]", known=known)
    assert bool(conf.issues) is refused
    if refused:
        assert "it came in torch 2.15" in conf.issues[0].message
    assert alloc_conf.FIRST_RELEASE["expandable_segments_reserve"][1].count("libc10_cuda.so") == 1
