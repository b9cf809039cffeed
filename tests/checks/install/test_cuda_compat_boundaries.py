"""The edges of a wheel's arch list, a toolkit's targets and the driver's CUDA version against a GPU, as CUDA
and torch define them."""

from __future__ import annotations

import dataclasses
import warnings

import pytest

from torchdoctor.checks.install import cuda_compat
from torchdoctor.checks.install.cuda_compat import (
    DEVICE_REQUIREMENT,
    DRIVERS,
    LAST_DRIVER_BRANCH,
    arch_coverage,
    arch_list_from_config,
    decode_cuda_int,
    driver_compat,
    last_driver_for,
    min_driver_source,
    toolkit_reach,
)

DEVICE_CCS = [10 * major + minor for major in range(3, 14) for minor in range(10)]


# PTX "produced for some specific compute capability can always be compiled to binary code of greater or
# equal compute capability" (CUDA C++ Programming Guide, Binary and PTX compatibility;
# shared/design/research/cuda_semantics.md, section 5): compute_XY covers a GPU of exactly CC X.Y.
@pytest.mark.parametrize(
    ("entry", "cc"),
    [
        ("compute_50", (5, 0)),
        ("compute_80", (8, 0)),
        ("compute_86", (8, 6)),
        ("compute_86", (8, 9)),
        ("compute_90", (9, 0)),
        ("compute_89", (9, 0)),
        ("compute_120", (12, 0)),
    ],
)
def test_plain_ptx_covers_a_gpu_of_its_compute_capability_or_newer(entry: str, cc: tuple[int, int]) -> None:
    result = arch_coverage([entry], cc)
    assert (result.supported, result.via, result.entry) == (True, "ptx", entry)


@pytest.mark.parametrize(
    ("entry", "cc"),
    [("compute_86", (8, 0)), ("compute_89", (8, 7)), ("compute_90", (8, 9)), ("compute_120", (10, 3))],
)
def test_plain_ptx_does_not_cover_an_older_gpu(entry: str, cc: tuple[int, int]) -> None:
    assert arch_coverage([entry], cc).supported is False


def test_a_cubin_runs_on_the_ccs_this_machines_torch_says_it_runs_on() -> None:
    """DEVICE_REQUIREMENT is torch's own table (torch/cuda/__init__.py, _code_compatible_with_device): the
    installed torch (the test process imports it) answers for every pair of code and device CC, those its
    table does not name included."""
    import torch

    rule = getattr(torch.cuda, "_code_compatible_with_device", None)
    if rule is None:
        pytest.skip("this torch has no torch.cuda._code_compatible_with_device to compare with")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns of each CC its table does not name
        torch_says = [[code, device] for code in DEVICE_CCS for device in DEVICE_CCS if rule(device, code)]
    ours = [
        [code, device]
        for code in DEVICE_CCS
        for device in DEVICE_CCS
        if arch_coverage(
            [f"sm_{code}"], (device // 10, device % 10), torch.__version__, torch.version.cuda
        ).via
        == "sass"
    ]
    assert ours == torch_says


# torch's DEVICE_REQUIREMENT (torch/cuda/__init__.py of the torch 2.13.0 wheel): a cubin for sm_XY runs on
# CC X.Y itself and the later CCs of the same major.
@pytest.mark.parametrize(
    ("entry", "cc", "runs"),
    [
        ("sm_80", (8, 0), True),
        ("sm_86", (8, 6), True),
        ("sm_86", (8, 9), True),
        ("sm_86", (8, 0), False),
        ("sm_90", (9, 0), True),
        ("sm_90", (10, 0), False),
        ("sm_120", (12, 0), True),
        ("sm_120", (12, 1), True),
    ],
)
def test_a_cubin_runs_on_its_own_cc_and_later_ones_of_its_major(
    entry: str, cc: tuple[int, int], runs: bool
) -> None:
    result = arch_coverage([entry], cc)
    assert (result.supported, result.via) == ((True, "sass") if runs else (False, None))


def test_a_cc_without_kernels_is_named_with_its_minor() -> None:
    assert arch_coverage(["sm_90"], (8, 6)).message == (
        "sm_86 GPU (CC 8.6): the wheel's arch list sm_90 has no kernel image for it"
    )


def test_the_values_are_immutable() -> None:
    for value in (
        driver_compat("12.8", 12080, "570.26"),
        arch_coverage(["sm_90"], (9, 0)),
        toolkit_reach("12.8", (9, 0)),
    ):
        field = dataclasses.fields(value)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, field, None)


# cuDriverGetVersion and nvmlSystemGetCudaDriverVersion encode CUDA X.Y as 1000 * X + 10 * Y (CUDA Driver API,
# Version Management): 12090 is CUDA 12.9.
@pytest.mark.parametrize(
    ("value", "cuda"), [(12090, (12, 9)), (12080, (12, 8)), (11020, (11, 2)), (13000, (13, 0))]
)
def test_the_drivers_cuda_version_is_decoded(value: int, cuda: tuple[int, int]) -> None:
    assert decode_cuda_int(value) == cuda


def test_a_cuda_version_with_a_patch_is_read_by_its_major_and_minor() -> None:
    assert driver_compat("12.8.1", 12080, "570.26").status == "ok"
    assert driver_compat("12.8.1", 12080, "570.26").message.endswith("this torch is built for CUDA 12.8")


def test_a_driver_version_that_is_not_one_is_not_quoted() -> None:
    assert driver_compat("12.8", 12080, "N/A").message == (
        "the driver supports CUDA 12.8; this torch is built for CUDA 12.8"
    )


def test_a_driver_of_an_older_major_is_too_old_with_no_minor_version_way_out() -> None:
    # minor-version compatibility holds within a major only (CUDA Compatibility guide; cuda_semantics.md 4)
    result = driver_compat("12.8", 11080, "520.61.05")
    assert result.status == "too_old"
    assert result.message.endswith("this torch is built for CUDA 12.8, which needs driver >= 570.26 on linux")


def test_the_arch_list_of_the_build_flags_lists_each_arch_once() -> None:
    line = (
        "  - NVCC architecture flags: -gencode;arch=compute_90,code=sm_90;"
        "-gencode;arch=compute_90,code=sm_90;"
        "-gencode;arch=compute_90,code=compute_90;-gencode;arch=compute_90,code=lto_90\n"
    )
    assert arch_list_from_config(line) == ["sm_90", "compute_90"]


# data/cuda_drivers.json's toolkit_targets (each row sourced there): CUDA 12.8 compiles for CC 5.0 and newer,
# CUDA 11.1 for sm_80 and sm_86 but not yet for the Tegra sm_87 (CUDA 11.4).
@pytest.mark.parametrize(
    ("cuda", "cc", "status", "said"),
    [
        (
            "12.8",
            (3, 5),
            "below",
            "CUDA 12.8 compiles for CC 5.0 and newer only: no build with it has code for CC 3.5",
        ),
        ("13.0", (5, 0), "below", "CUDA 13.0 compiles for CC 7.5 and newer only"),
        ("11.1", (8, 7), "above", "CUDA 11.1 cannot compile for CC 8.7 (sm_80, sm_86)"),
        ("11.0", (8, 7), "above", "CUDA 11.0 cannot compile for CC 8.7 (sm_80)"),
        ("12.8", (11, 0), "above", "CUDA 12.8 cannot compile for CC 11.0 (no CC 11.x target)"),
        ("12.8", (8, 7), "within", "CUDA 12.8 compiles for CC 8.7"),
    ],
)
def test_what_a_toolkit_compiles_for(cuda: str, cc: tuple[int, int], status: str, said: str) -> None:
    reach = toolkit_reach(cuda, cc)
    assert reach.status == status
    assert reach.message.startswith(said)


def test_windows_by_its_python_name_nt_takes_the_windows_minimum() -> None:
    # CUDA 12.8 needs 570.26 on Linux and 570.65 on Windows (data/cuda_drivers.json, NVIDIA's Table 3)
    assert driver_compat("12.8", None, "570.30", "nt").required_driver == "570.65"
    assert driver_compat("12.8", None, "570.30", "nt").status == "minor_compat"
    assert driver_compat("12.8", None, "570.30", "linux").status == "ok"


def test_the_source_of_a_minimum_driver_is_the_tables() -> None:
    assert min_driver_source((12, 8)) == DRIVERS["min_driver"]["12.8"]["source"]
    assert min_driver_source((99, 9)) is None


@pytest.mark.parametrize("key", sorted(LAST_DRIVER_BRANCH))
def test_the_last_driver_branch_of_an_architecture_is_found_by_its_cc(key: str) -> None:
    major, _, minor = key.partition(".")
    assert last_driver_for((int(major), int(minor or 0))) == LAST_DRIVER_BRANCH[key]


def test_a_driver_that_reports_its_cuda_version_is_not_said_to_be_inferred() -> None:
    assert driver_compat("12.8", 12080, "570.26").message == (
        "driver 570.26 supports CUDA 12.8; this torch is built for CUDA 12.8"
    )
    assert driver_compat("12.8", None, "570.26").message == (
        "driver 570.26 supports CUDA 12.8 (by its version number); this torch is built for CUDA 12.8"
    )


def test_a_cuda_version_newer_than_the_tables_names_its_majors_floor() -> None:
    # the minor-version compatibility floor of CUDA 12.x is 525.60.13 on Linux (cuda_semantics.md, section 0)
    assert driver_compat("12.99", 11080, "520.61.05").message.endswith(
        "this torch is built for CUDA 12.99, which needs driver >= 525.60.13 on linux"
    )


def test_a_cuda_older_than_the_toolkit_table_is_unknown() -> None:
    assert toolkit_reach("6.5", (3, 5)).status == "unknown"


def test_a_toolkit_between_the_tables_rows_compiles_for_what_the_row_before_it_does() -> None:
    # data/cuda_drivers.json has rows where nvcc's targets changed: CUDA 12.6 compiles for CC 9.0 as 12.0 does
    assert toolkit_reach("12.6", (9, 0)).status == "within"
    assert toolkit_reach("11.6", (8, 6)).status == "within"


def test_no_driver_names_the_minimum_the_build_needs_where_the_tables_know_it() -> None:
    assert driver_compat("12.8", None, None).message == (
        "no NVIDIA driver found; this torch is built for CUDA 12.8 (needs driver >= 570.26)"
    )
    assert (
        driver_compat("12.99", None, None).message
        == "no NVIDIA driver found; this torch is built for CUDA 12.99"
    )


def test_the_internal_records_are_immutable() -> None:
    for value in (
        DEVICE_REQUIREMENT[80],
        cuda_compat._parse_arch("sm_90"),
        cuda_compat._read_driver(12080, "570.26", "linux"),
    ):
        assert value is not None
        field = dataclasses.fields(value)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, field, None)


def test_a_cuda_version_without_its_minor_is_not_read() -> None:
    assert driver_compat("12", 12080, "570.26").message == "cannot read torch's CUDA version '12'"


@pytest.mark.parametrize(("os_name", "minimum"), [("posix", "570.26"), ("linux", "570.26"), ("nt", "570.65")])
def test_pythons_os_names_take_their_systems_minimum(os_name: str, minimum: str) -> None:
    # os.name is 'posix' on Linux and 'nt' on Windows (Python's os module documentation)
    assert driver_compat("12.8", None, "570.30", os_name).required_driver == minimum


# torch/cuda/__init__.py of the torch 2.14.1 wheel against 2.13.0's: DEVICE_REQUIREMENT[110] became the set
# {10.1, 11.0} (Thor, renumbered), and builds of CUDA 13.2 or later use
# DEVICE_REQUIREMENT_POST_JETSON_SBSA_UNIFICATION (SBSA cubins of sm_70, sm_80 and sm_86 run on the Jetson
# parts 7.2 and 8.7).
@pytest.mark.parametrize(
    ("entry", "cc", "torch_version", "cuda", "runs"),
    [
        ("sm_110", (10, 1), "2.13.0", "13.0", False),
        ("sm_110", (10, 1), "2.14.1", "13.0", True),
        ("sm_110", (11, 0), "2.14.1", "13.0", True),
        ("sm_80", (8, 7), "2.14.1", "13.0", False),
        ("sm_80", (8, 7), "2.14.1", "13.2", True),
        ("sm_86", (8, 7), "2.14.1+cu132", "13.2", True),
        ("sm_70", (7, 2), "2.14.1", "13.2", True),
        ("sm_80", (8, 7), "2.13.0", "13.2", False),
        ("sm_80", (8, 7), None, None, False),
        # the SBSA rows still run on the GPUs of their own CC
        ("sm_70", (7, 0), "2.14.1", "13.2", True),
        ("sm_80", (8, 0), "2.14.1", "13.2", True),
        ("sm_86", (8, 6), "2.14.1", "13.2", True),
        # from 13.2 on, not before; and in every release after 2.14
        ("sm_80", (8, 7), "2.14.1", "13.1", False),
        ("sm_80", (8, 7), "2.15.0", "13.3", True),
        ("sm_110", (10, 1), "2.15.0", "13.0", True),
    ],
)
def test_the_device_rule_is_the_one_of_the_torch_release_and_cuda_build(
    entry: str, cc: tuple[int, int], torch_version: str | None, cuda: str | None, runs: bool
) -> None:
    assert arch_coverage([entry], cc, torch_version, cuda).supported is runs


@pytest.mark.parametrize(
    ("label", "cuda"), [("cu124", "12.4"), ("cu118", "11.8"), ("cu130", "13.0"), ("cpu", None), (None, None)]
)
def test_a_wheel_label_names_its_cuda(label: str | None, cuda: str | None) -> None:
    assert cuda_compat.cuda_of_label(label) == cuda
