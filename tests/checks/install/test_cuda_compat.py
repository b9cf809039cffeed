from __future__ import annotations

import pytest

from torchdoctor.checks.install.cuda_compat import (
    MIN_DRIVER,
    MINOR_COMPAT_FLOOR,
    arch_coverage,
    arch_list_from_config,
    decode_cuda_int,
    driver_compat,
    format_cuda,
    install_command,
    parse_version,
    wheel_index_url,
)

# --------------------------------------------------------------------------------------------------
# Versions
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("12.8", (12, 8)),
        ("570.153.02", (570, 153, 2)),
        (" 535.104.05\n", (535, 104, 5)),
        ("580", (580,)),
        ("", None),
        (None, None),
        ("N/A", None),
        ("12.8a", None),
        ("2.13.0+cpu", None),
        ("12..8", None),
    ],
)
def test_parse_version(text: str | None, expected: tuple[int, ...] | None) -> None:
    assert parse_version(text) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (12080, (12, 8)),
        (12020, (12, 2)),
        (11040, (11, 4)),
        (13000, (13, 0)),
        (13020, (13, 2)),
        (0, None),
        (-1, None),
        (None, None),
    ],
)
def test_decode_cuda_int(value: int | None, expected: tuple[int, int] | None) -> None:
    assert decode_cuda_int(value) == expected


def test_format_cuda() -> None:
    assert format_cuda((12, 8)) == "12.8"
    assert format_cuda((13, 0)) == "13.0"


# --------------------------------------------------------------------------------------------------
# Driver tables and verdicts
# --------------------------------------------------------------------------------------------------

# Section 4.1 of the research note (NVIDIA release notes, Table 3): GA minimums, Linux and Windows.
TABLE_3_GA = [
    ((7, 0), "346.46", "347.62"),
    ((7, 5), "352.31", "353.66"),
    ((8, 0), "367.48", "369.30"),
    ((9, 0), "384.81", "385.54"),
    ((9, 1), "390.46", "391.29"),
    ((9, 2), "396.26", "397.44"),
    ((10, 0), "410.48", "411.31"),
    ((10, 1), "418.39", "418.96"),
    ((10, 2), "440.33", "441.22"),
    ((11, 8), "520.61.05", "520.06"),
    ((12, 0), "525.60.13", "527.41"),
    ((12, 1), "530.30.02", "531.14"),
    ((12, 2), "535.54.03", "536.25"),
    ((12, 3), "545.23.06", "545.84"),
    ((12, 4), "550.54.14", "551.61"),
    ((12, 5), "555.42.02", "555.85"),
    ((12, 6), "560.28.03", "560.76"),
    ((12, 8), "570.26", "570.65"),
    ((12, 9), "575.51.03", "576.02"),
    ((13, 0), "580.65.06", None),
    ((13, 1), "590.44.01", None),
    ((13, 2), "595.45.04", None),
]


def _just_below(version: str) -> str:
    *head, last = version.split(".")
    return ".".join([*head, str(int(last) - 1)])


@pytest.mark.parametrize(("cuda", "linux", "windows"), TABLE_3_GA)
def test_min_driver_matches_table_3(cuda: tuple[int, int], linux: str, windows: str | None) -> None:
    assert MIN_DRIVER[cuda].get("linux") == linux
    assert MIN_DRIVER[cuda].get("windows") == windows


def test_minor_compat_floors() -> None:
    assert MINOR_COMPAT_FLOOR[11] == {"linux": "450.80.02", "windows": "452.39"}
    assert MINOR_COMPAT_FLOOR[12] == {"linux": "525.60.13", "windows": "528.33"}
    assert MINOR_COMPAT_FLOOR[13]["linux"] == "580.65.06"


@pytest.mark.parametrize(("cuda", "linux", "windows"), TABLE_3_GA)
def test_driver_exactly_at_minimum_is_ok(cuda: tuple[int, int], linux: str, windows: str | None) -> None:
    result = driver_compat(format_cuda(cuda), None, linux)
    assert result.status == "ok", result.message
    assert result.required_driver == linux


# Just below a GA minimum the driver supports an older minor: fine through minor-version compatibility,
# except at X.0, where "just below" falls under the major's floor, and before CUDA 11, which had none.
@pytest.mark.parametrize(
    ("cuda", "linux", "expected"),
    [
        (cuda, linux, "too_old" if cuda in ((12, 0), (13, 0)) or cuda < (11, 0) else "minor_compat")
        for cuda, linux, _ in TABLE_3_GA
    ],
)
def test_driver_just_below_minimum(cuda: tuple[int, int], linux: str, expected: str) -> None:
    result = driver_compat(format_cuda(cuda), None, _just_below(linux))
    assert result.status == expected, result.message
    assert result.required_driver == linux


@pytest.mark.parametrize(
    ("torch_cuda", "driver_cuda", "driver_version", "expected"),
    [
        ("12.8", 12080, "570.153.02", "ok"),
        ("12.8", 12090, "575.57.08", "ok"),
        ("12.8", 13000, "580.65.06", "ok"),  # newer major: backward compatible
        ("12.6", 12080, "570.153.02", "ok"),
        ("12.8", 12020, "535.104.05", "minor_compat"),
        ("13.2", 13000, "580.65.06", "minor_compat"),
        ("11.8", 11000, "450.80.02", "minor_compat"),
        ("12.8", 11040, "470.82.01", "too_old"),
        ("13.0", 12090, "575.57.08", "too_old"),
        ("13.0", 12080, "570.153.02", "too_old"),
        ("11.8", 11000, "450.51.05", "too_old"),  # same major, under the 450.80.02 floor
        ("12.8", None, None, "no_driver"),
        ("12.8", 0, "", "no_driver"),
        (None, 12080, "570.153.02", "unknown"),
        ("12.8", None, "not a version", "unknown"),
    ],
)
def test_decision_table(
    torch_cuda: str | None, driver_cuda: int | None, driver_version: str | None, expected: str
) -> None:
    assert driver_compat(torch_cuda, driver_cuda, driver_version).status == expected


def test_minor_compat_message_names_both_versions() -> None:
    result = driver_compat("12.8", 12020, "535.104.05")
    assert result.status == "minor_compat"
    for part in ("535.104.05", "CUDA 12.2", "CUDA 12.8", "minor-version compatibility"):
        assert part in result.message
    assert result.required_driver == "570.26"


def test_too_old_message_quotes_torch_found_version() -> None:
    result = driver_compat("12.8", 11040, "470.82.01")
    assert result.status == "too_old"
    assert "found version 11040" in result.message
    assert "570.26" in result.message


def test_too_old_under_floor_mentions_floor() -> None:
    result = driver_compat("11.8", 11000, "450.51.05")
    assert "found version 11000" in result.message
    assert "450.80.02" in result.message


def test_no_driver_message() -> None:
    result = driver_compat("12.8", None, None)
    assert "no NVIDIA driver" in result.message
    assert result.required_driver == "570.26"


def test_cpu_build_is_unknown() -> None:
    result = driver_compat(None, 12080, "570.153.02")
    assert (result.status, result.required_driver) == ("unknown", None)
    assert "not a CUDA build" in result.message


@pytest.mark.parametrize(
    ("driver_version", "expected", "driver_cuda_text"),
    [
        ("570.153.02", "ok", "CUDA 12.8"),
        ("535.104.05", "minor_compat", "CUDA 12.2"),
        ("470.82.01", "too_old", "found version 11040"),
        ("400.1", "too_old", "supports CUDA 9.2 (by its version number)"),
        ("340.1", "too_old", "predates CUDA 7.0"),
    ],
)
def test_driver_cuda_inferred_from_version(driver_version: str, expected: str, driver_cuda_text: str) -> None:
    result = driver_compat("12.8", None, driver_version)
    assert result.status == expected
    assert driver_cuda_text in result.message


def test_reported_cuda_without_driver_version() -> None:
    assert driver_compat("12.8", 12020, None).status == "minor_compat"
    # An 11.0 driver may sit under the 11.x floor: without its version that cannot be told.
    assert driver_compat("11.8", 11000, None).status == "unknown"


def test_windows_minimums() -> None:
    result = driver_compat("12.8", 12080, "572.61", os_name="windows")
    assert result.status == "ok"
    assert result.required_driver == "570.65"
    assert driver_compat("12.8", None, "570.64", os_name="Windows").status == "minor_compat"
    # Table 3 has no Windows entry for 13.x; the 13.x floor (any R580 driver) still gives CUDA 13.0.
    thirteen = driver_compat("13.0", None, "581.15", os_name="windows")
    assert thirteen.status == "ok"
    assert thirteen.required_driver is None


# --------------------------------------------------------------------------------------------------
# Compute capability vs arch list
# --------------------------------------------------------------------------------------------------

UP_TO_SM90 = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]
BLACKWELL_WHEEL = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]


# Section 5.2's executed vectors: `supported` equals the `_check_capability OK` column, except the
# compute_90 row, which torch does not credit and the driver runs by JIT-compiling the PTX.
@pytest.mark.parametrize(
    ("arch_list", "cc", "supported", "via", "entry"),
    [
        (UP_TO_SM90, (12, 0), False, None, None),
        (UP_TO_SM90, (8, 9), True, "sass", "sm_86"),
        (BLACKWELL_WHEEL, (12, 1), True, "sass", "sm_120"),
        (BLACKWELL_WHEEL, (6, 1), False, None, None),
        (["sm_80", "sm_90"], (8, 7), False, None, None),
        (["sm_90a"], (9, 0), True, "sass", "sm_90a"),
        (["sm_100", "sm_120"], (10, 3), True, "sass", "sm_100"),
        (["sm_100"], (10, 1), False, None, None),
        (["sm_101"], (11, 0), True, "sass", "sm_101"),
        ([*UP_TO_SM90, "compute_90"], (10, 0), True, "ptx", "compute_90"),
    ],
)
def test_executed_vectors(
    arch_list: list[str], cc: tuple[int, int], supported: bool, via: str | None, entry: str | None
) -> None:
    result = arch_coverage(arch_list, cc)
    assert (result.supported, result.via, result.entry) == (supported, via, entry)


@pytest.mark.parametrize(
    ("arch_list", "cc", "supported", "via"),
    [
        (["sm_90a"], (9, 0), True, "sass"),
        (["sm_100a"], (10, 3), False, None),  # arch-specific: exactly 10.0
        (["sm_100a"], (10, 0), True, "sass"),
        (["sm_100f"], (10, 3), True, "sass"),  # family-specific: 10.0 and 10.3
        (["sm_100f"], (10, 1), False, None),  # Thor is not in the family
        (["sm_120f"], (12, 1), True, "sass"),
        (["sm_101a"], (11, 0), True, "sass"),  # Thor renamed 10.1 -> 11.0 in CUDA 13
        (["compute_90a"], (9, 0), True, "ptx"),
        (["compute_90a"], (10, 0), False, None),  # arch-specific PTX does not carry forward
        (["compute_100f"], (10, 3), True, "ptx"),
        (["compute_100f"], (12, 0), False, None),
        (["compute_75"], (12, 0), True, "ptx"),
        (["compute_80"], (8, 7), True, "ptx"),
        (["compute_90"], (8, 9), False, None),  # PTX only runs on equal or newer CCs
    ],
)
def test_arch_suffixes_and_ptx(
    arch_list: list[str], cc: tuple[int, int], supported: bool, via: str | None
) -> None:
    result = arch_coverage(arch_list, cc)
    assert (result.supported, result.via) == (supported, via)


@pytest.mark.parametrize(
    ("arch_list", "cc", "supported"),
    [
        (["sm_53"], (5, 3), True),
        (["sm_50"], (5, 3), False),
        (["sm_62"], (6, 1), False),
        (["sm_60"], (6, 2), False),
        (["sm_72"], (7, 2), True),
        (["sm_70"], (7, 5), True),
        (["sm_75"], (8, 0), False),  # SASS does not cross majors
        (["sm_87"], (8, 7), True),
        (["sm_95"], (9, 7), True),  # unknown code CC: interval to the end of its major, as torch does
    ],
)
def test_sass_rules(arch_list: list[str], cc: tuple[int, int], supported: bool) -> None:
    assert arch_coverage(arch_list, cc).supported is supported


def test_sass_preferred_over_ptx() -> None:
    result = arch_coverage(["compute_90", "sm_90"], (9, 0))
    assert (result.via, result.entry) == ("sass", "sm_90")


def test_uncovered_gpu_message_names_the_gpu_and_list() -> None:
    result = arch_coverage(UP_TO_SM90, (12, 0))
    assert "sm_120" in result.message
    assert "CC 12.0" in result.message
    assert "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90" in result.message


def test_covered_messages() -> None:
    assert arch_coverage(["sm_90"], (9, 0)).message == "CC 9.0 runs sm_90 kernels"
    ptx = arch_coverage(["compute_90"], (10, 0)).message
    assert "compute_90" in ptx
    assert "JIT" in ptx


@pytest.mark.parametrize("arch_list", [[], ["gfx90a"]])
def test_unknown_arch_list(arch_list: list[str]) -> None:
    result = arch_coverage(arch_list, (8, 0))
    assert (result.supported, result.via, result.entry) == (False, None, None)
    assert "unknown" in result.message


CONFIG_CU121 = """PyTorch built with:
  - GCC 9.3
  - C++ Version: 201703
  - CPU capability usage: AVX2
  - CUDA Runtime 12.1
  - NVCC architecture flags: -gencode;arch=compute_50,code=sm_50;-gencode;arch=compute_60,code=sm_60;\
-gencode;arch=compute_70,code=sm_70;-gencode;arch=compute_75,code=sm_75;-gencode;arch=compute_80,code=sm_80;\
-gencode;arch=compute_86,code=sm_86;-gencode;arch=compute_90,code=sm_90;-gencode;arch=compute_90,code=compute_90
  - CuDNN 8.9.2
  - Build settings: BLAS_INFO=mkl, BUILD_TYPE=Release, CUDA_VERSION=12.1, TORCH_CUDA_ARCH_LIST=5.0;6.0;7.0
"""


def test_arch_list_from_config() -> None:
    assert arch_list_from_config(CONFIG_CU121) == [*UP_TO_SM90, "compute_90"]


def test_arch_list_from_config_bracketed_codes() -> None:
    line = "  - NVCC architecture flags: -gencode arch=compute_90a,code=[sm_90a,compute_90a]\n"
    assert arch_list_from_config(line) == ["sm_90a", "compute_90a"]


def test_arch_list_from_cpu_config() -> None:
    assert (
        arch_list_from_config("PyTorch built with:\n  - GCC 11.2\n  - CPU capability usage: AVX512\n") == []
    )


# --------------------------------------------------------------------------------------------------
# Published builds
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cuda", "url"),
    [
        ("12.9", "https://download.pytorch.org/whl/cu129"),
        ("13.0", "https://download.pytorch.org/whl/cu130"),
        ("11.8", "https://download.pytorch.org/whl/cu118"),
    ],
)
def test_wheel_index_url(cuda: str, url: str) -> None:
    assert wheel_index_url(cuda) == url


def test_wheel_index_url_rejects_junk() -> None:
    with pytest.raises(ValueError):
        wheel_index_url("cpu")


@pytest.mark.parametrize(
    ("torch_version", "cuda", "command"),
    [
        (
            "2.13.0",
            "12.9",
            'pip install "torch==2.13.0+cu129" --index-url https://download.pytorch.org/whl/cu129',
        ),
        (
            "2.13.0+cpu",
            "13.2",
            'pip install "torch==2.13.0+cu132" --index-url https://download.pytorch.org/whl/cu132',
        ),
        (
            "2.13.0+cu129",
            None,
            'pip install "torch==2.13.0+cpu" --index-url https://download.pytorch.org/whl/cpu',
        ),
        (
            "2.14.0.dev20260501+cu130",
            "13.0",
            'pip install "torch==2.14.0.dev20260501+cu130" --index-url https://download.pytorch.org/whl/nightly/cu130',
        ),
    ],
)
def test_install_command(torch_version: str, cuda: str | None, command: str) -> None:
    assert install_command(torch_version, cuda) == command
