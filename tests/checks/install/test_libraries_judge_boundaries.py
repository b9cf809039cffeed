"""torch.stack on the libraries torch mapped: where each copy comes from and which version it is read as,
as the dynamic loader, torch, cuDNN and pip define them.

ld.so(8): the directories of LD_LIBRARY_PATH are searched, each of them, before DT_RUNPATH (the RUNPATH of
libtorch points at site-packages/nvidia/<part>/lib, where the nvidia-* wheels install); LD_PRELOAD objects
are loaded before everything else. pip records each file a wheel installed in its RECORD (PEP 376/627),
which the probe reads to name the wheel of a copy. torch.backends.cudnn.version() returns CUDNN_VERSION of
cudnn_version.h; torch._C._cudnn.getRuntimeVersion()/getCompileVersion() the two versions torch compares;
torch.cuda.nccl.version() the NCCL it loaded. Facts go through JSON before they are judged, as a report's
facts do.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from torchdoctor.checks.install.libraries_judge import cudnn_text
from torchdoctor.checks.install.stack_check import CHECK
from torchdoctor.model import Status

from support import fixture_facts

MATCHED = "a100_stack_matched.json"  # torch 2.5.1+cu124, every CUDA library from its nvidia-* wheels
SYSTEM_CUDNN = "a100_stack_system_cudnn_on_ld_library_path.json"  # the CUDA 12.4 toolkit's cuDNN 9.0.0 first
SITE = "/opt/venv/lib/python3.11/site-packages"
CUDA_LIB = "/usr/local/cuda-12.4/targets/x86_64-linux/lib"  # /usr/local/cuda/lib64 resolves here
APT_LIB = (
    "/usr/lib/x86_64-linux-gnu"  # where Ubuntu's packages (libcudnn9-cuda-12, libnccl2, libgomp1) install
)
PASSING_PACKAGES = "torchvision 0.20.1, torchaudio 2.5.1, triton 3.1.0 fit torch 2.5.1"


def libs_of(name: str) -> dict[str, Any]:
    return copy.deepcopy(fixture_facts(name)["loaded_libraries"])


def judged(name: str, libs: dict[str, Any]) -> Any:
    facts = fixture_facts(name)
    facts["loaded_libraries"] = libs
    reported = json.loads(
        json.dumps(facts)
    )  # strings as a report's facts hold them: none shared with the code
    return CHECK.judge({p.name: reported[p.name] for p in CHECK.probes}, {})


def rows(verdict: Any) -> dict[str, dict[str, Any]]:
    return {d["path"]: d for d in verdict.details if isinstance(d, dict)}


def lib(path: str, base: str, family: str, file_version: str | None) -> dict[str, Any]:
    return {
        "name": path.rsplit("/", 1)[1],
        "base": base,
        "family": family,
        "path": path,
        "file_version": file_version,
    }


def moved(libs: dict[str, Any], base: str, path: str, file_version: str | None) -> None:
    found = next(x for x in libs["libraries"] if x["base"] == base)
    found.update(name=path.rsplit("/", 1)[1], path=path, file_version=file_version)


# --- cudnn_version.h: CUDNN_VERSION = MAJOR * 1000 + MINOR * 100 + PATCHLEVEL up to cuDNN 8, MAJOR * 10000 +
# MINOR * 100 + PATCHLEVEL from cuDNN 9; MINOR is one digit under the first encoding, PATCHLEVEL two digits.


@pytest.mark.parametrize(
    ("version", "text"),
    [(8999, "8.9.99"), (6000, "6.0.0"), (99999, "9.99.99"), (90000, "9.0.0"), (100000, "10.0.0")],
)
def test_the_highest_and_lowest_cudnn_versions_of_each_encoding_read_as_torch_prints_them(
    version: int, text: str
) -> None:
    assert cudnn_text(version) == text


# --- copies with no wheel copy beside them: torch's own word, then the file name -------------------------


def test_system_libraries_that_no_wheel_ships_pass_and_are_read_as_torch_and_their_file_names_tell() -> None:
    # torch built against the system's cuDNN and NCCL (no nvidia-cudnn/-nccl wheel), NVRTC from the toolkit
    libs = libs_of(MATCHED)
    del libs["wheel_files"]["libcudnn"], libs["wheel_files"]["libnccl"]
    moved(libs, "libcudnn", f"{APT_LIB}/libcudnn.so.8.9.7", "8.9.7")
    moved(libs, "libnccl", f"{APT_LIB}/libnccl.so.2.21.5", "2.21.5")
    libs["libraries"].append(lib(f"{CUDA_LIB}/libnvrtc.so.12.4.127", "libnvrtc", "nvrtc", "12.4.127"))
    libs["torch_reports"] = {"cudnn": 8907, "nccl": "2.21.5"}  # no getRuntimeVersion: cudnn.version() alone

    verdict = judged(MATCHED, libs)

    assert verdict.status is Status.PASS
    assert verdict.summary == (
        "torch 2.5.1+cu124: cuDNN, NCCL, cuBLAS, CUDA runtime, NVRTC, OpenMP runtime loaded, 3 of 7 files "
        f"from outside torch's wheels; {PASSING_PACKAGES}"
    )
    by_path = rows(verdict)
    cudnn = by_path[f"{APT_LIB}/libcudnn.so.8.9.7"]
    assert (cudnn["version"], cudnn["from"]) == ("8.9.7 (torch.backends.cudnn.version())", "the system")
    nccl = by_path[f"{APT_LIB}/libnccl.so.2.21.5"]
    assert (nccl["version"], nccl["from"]) == ("2.21.5 (torch.cuda.nccl.version())", "the system")
    nvrtc = by_path[f"{CUDA_LIB}/libnvrtc.so.12.4.127"]
    assert (nvrtc["version"], nvrtc["from"]) == ("12.4.127 (file name)", "the system")
    gomp = by_path[f"{SITE}/torch/lib/libgomp-a34b3233.so.1"]
    assert (gomp["version"], gomp["from"]) == ("soname 1 (file name)", "torch's own wheel (2.5.1+cu124)")
    cudart = by_path[f"{SITE}/nvidia/cuda_runtime/lib/libcudart.so.12"]
    assert cudart["version"] == "12.4.127 (nvidia-cuda-runtime-cu12 wheel)"


def test_a_library_torchs_wheel_ships_with_torchs_report_is_read_as_torch_reports_it() -> None:
    # a torch wheel that bundles cuDNN in torch/lib (as the cu11x wheels did): torch's word for its version
    libs = libs_of(MATCHED)
    libs["wheel_files"]["libcudnn"] = [
        {"path": f"{SITE}/torch/lib/libcudnn.so.9", "wheel": "torch", "version": "2.5.1+cu124"}
    ]
    moved(libs, "libcudnn", f"{SITE}/torch/lib/libcudnn.so.9", "9")

    verdict = judged(MATCHED, libs)

    assert verdict.status is Status.PASS
    cudnn = rows(verdict)[f"{SITE}/torch/lib/libcudnn.so.9"]
    assert (cudnn["version"], cudnn["from"]) == (
        "9.1.0 (torch's cuDNN runtime version)",
        "torch's own wheel (2.5.1+cu124)",
    )


def test_libraries_all_from_torchs_own_wheel_are_said_to_come_from_it() -> None:
    # a CPU wheel: the libgomp torch vendors in torch/lib is the one library of interest mapped
    libs = libs_of(MATCHED)
    libs["libraries"] = [x for x in libs["libraries"] if x["family"] == "openmp"]
    libs["wheel_files"] = {"libgomp": libs["wheel_files"]["libgomp"]}
    libs["torch_reports"] = {}

    verdict = judged(MATCHED, libs)

    assert verdict.status is Status.PASS
    assert (
        verdict.summary
        == f"torch 2.5.1+cu124: OpenMP runtime loaded from torch's own wheel; {PASSING_PACKAGES}"
    )


def test_a_copy_in_site_packages_that_no_wheels_record_lists_is_named_so() -> None:
    # a file in nvidia/cudnn/lib that no installed wheel's RECORD lists (copied in, or left by an uninstall)
    libs = libs_of(MATCHED)
    libs["wheel_files"]["libcudnn"][0].update(wheel=None, version=None)
    cudnn = next(x for x in libs["libraries"] if x["base"] == "libcudnn")
    libs["libraries"] = [cudnn, *(x for x in libs["libraries"] if x is not cudnn)]  # /proc/self/maps order

    verdict = judged(MATCHED, libs)

    assert verdict.status is Status.PASS
    assert verdict.summary.startswith(
        "torch 2.5.1+cu124: cuDNN, NCCL, cuBLAS, CUDA runtime, OpenMP runtime loaded from torch's wheels; "
    )
    cudnn = rows(verdict)[f"{SITE}/nvidia/cudnn/lib/libcudnn.so.9"]
    assert (cudnn["version"], cudnn["from"]) == (
        "9.1.0 (torch's cuDNN runtime version)",
        "site-packages, in no wheel's RECORD",
    )


def test_a_shadowed_copy_that_no_wheels_record_lists_is_not_named_as_a_wheel() -> None:
    libs = libs_of(MATCHED)
    libs["wheel_files"]["libcudnn"][0].update(wheel=None, version=None)
    moved(libs, "libcudnn", f"{APT_LIB}/libcudnn.so.9.1.0", "9.1.0")

    verdict = judged(MATCHED, libs)

    assert verdict.status is Status.FAIL
    assert verdict.summary == (
        f"cuDNN is loaded from {APT_LIB}, not from the nvidia-* wheels torch was installed with"
    )
    assert f"in no wheel's RECORD: {SITE}/nvidia/cudnn/lib/libcudnn.so.9" in verdict.details


def test_a_shadowed_wheel_whose_metadata_gives_no_version_is_named_without_one() -> None:
    # importlib.metadata reads Name and Version from METADATA; a broken install may lack Version
    libs = libs_of(MATCHED)
    libs["wheel_files"]["libcudnn"][0]["version"] = None
    moved(libs, "libcudnn", f"{APT_LIB}/libcudnn.so.9.1.0", "9.1.0")

    verdict = judged(MATCHED, libs)

    assert verdict.summary == f"cuDNN is loaded from {APT_LIB}, not from the nvidia-cudnn-cu12 wheel"
    assert f"nvidia-cudnn-cu12 ships: {SITE}/nvidia/cudnn/lib/libcudnn.so.9" in verdict.details


# --- the toolkit's libraries on LD_LIBRARY_PATH ------------------------------------------------------------


def test_the_toolkits_libraries_read_as_their_file_names_and_come_from_outside_the_wheels() -> None:
    verdict = judged(SYSTEM_CUDNN, libs_of(SYSTEM_CUDNN))
    by_path = rows(verdict)
    cudart = by_path[f"{CUDA_LIB}/libcudart.so.12.4.127"]
    assert (cudart["version"], cudart["from"]) == ("12.4.127 (file name)", "outside the wheels")
    cublas = by_path[f"{CUDA_LIB}/libcublas.so.12.4.5.8"]
    assert (cublas["version"], cublas["from"]) == ("12.4.5.8 (file name)", "outside the wheels")
    assert f"loaded: {CUDA_LIB}/libcudart.so.12.4.127, version 12.4.127 (file name)" in verdict.details


SAME_CUDNN = {"cudnn": 90100, "cudnn_runtime": "9.1.0", "cudnn_compiled": "9.1.0", "nccl": "2.21.5"}
NEWER_CUDNN = {"cudnn": 90501, "cudnn_runtime": "9.5.1", "cudnn_compiled": "9.1.0", "nccl": "2.21.5"}
NO_COMPILED = {"cudnn": 90100, "cudnn_runtime": "9.1.0", "nccl": "2.21.5"}


@pytest.mark.parametrize(
    ("reports", "version", "words"),
    [
        (SAME_CUDNN, "9.1.0", None),
        (NEWER_CUDNN, "9.5.1", "torch was built against cuDNN 9.1.0 and runs cuDNN 9.5.1"),
        (NO_COMPILED, "9.1.0", None),  # a torch that reports no compile-time version: nothing to compare
    ],
)
def test_a_cudnn_alone_first_on_ld_library_path_is_taken_off_every_entry_that_names_its_folder(
    reports: dict[str, Any], version: str, words: str | None
) -> None:
    # ld.so searches each LD_LIBRARY_PATH entry before DT_RUNPATH: the folder named twice (a link and its
    # target, as `export LD_LIBRARY_PATH=...:$LD_LIBRARY_PATH` run twice leaves it) shadows the wheel until
    # both entries are gone.
    libs = libs_of(MATCHED)
    moved(libs, "libcudnn", f"{CUDA_LIB}/libcudnn.so.{version}", version)
    libs["torch_reports"] = reports
    libs["ld_library_path"] = [
        {"entry": "/usr/local/cuda/lib64", "resolved": CUDA_LIB},
        {"entry": "/usr/local/nvidia/lib64", "resolved": "/usr/local/nvidia/lib64"},
        {"entry": CUDA_LIB, "resolved": CUDA_LIB},
    ]

    verdict = judged(MATCHED, libs)

    assert verdict.status is Status.FAIL
    assert verdict.summary == (
        f"cuDNN is loaded from {CUDA_LIB}, not from the nvidia-cudnn-cu12 9.1.0.70 wheel: "
        "/usr/local/cuda/lib64 comes first on LD_LIBRARY_PATH"
    )
    details = [str(d) for d in verdict.details]
    assert (
        f"loaded: {CUDA_LIB}/libcudnn.so.{version}, version {version} (torch's cuDNN runtime version)"
        in details
    )
    assert f"LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/nvidia/lib64:{CUDA_LIB}" in details
    assert [d for d in details if d.startswith("torch was built against")] == ([words] if words else [])
    assert verdict.fix is not None
    assert verdict.fix.text == (
        f"Take /usr/local/cuda/lib64 and {CUDA_LIB} off LD_LIBRARY_PATH for this job: the loader searches "
        "LD_LIBRARY_PATH before the RUNPATH that points torch at its wheels, so torch loads the cuDNN of the "
        "nvidia-cudnn-cu12 9.1.0.70 wheel."
    )
    assert verdict.fix.commands == ("export LD_LIBRARY_PATH=/usr/local/nvidia/lib64",)


SYSTEM_WORDS = "torch was built against cuDNN 9.1.0 and runs cuDNN 9.0.0"


def test_the_cudnn_versions_torch_reports_are_evidence_of_the_cudnn_finding_only() -> None:
    # cuDNN from Ubuntu's libcudnn9-cuda-12 (found through /etc/ld.so.conf), cuBLAS and the CUDA runtime from
    # the toolkit on LD_LIBRARY_PATH: two folders, two findings, and torch's cuDNN words once
    libs = libs_of(SYSTEM_CUDNN)
    moved(libs, "libcudnn", f"{APT_LIB}/libcudnn.so.9.0.0", "9.0.0")

    verdict = judged(SYSTEM_CUDNN, libs)

    assert verdict.status is Status.FAIL
    assert verdict.summary == (
        f"cuBLAS, CUDA runtime are loaded from {CUDA_LIB}, not from the nvidia-* wheels torch was installed "
        "with: /usr/local/cuda/lib64 comes first on LD_LIBRARY_PATH"
    )
    details = [str(d) for d in verdict.details]
    assert f"fail: cuDNN is loaded from {APT_LIB}, not from the nvidia-cudnn-cu12 9.1.0.70 wheel" in details
    assert details.count(SYSTEM_WORDS) == 1
    # the variable is evidence of the finding it explains, not of the one the loader's other paths explain
    assert details.count("LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/nvidia/lib64") == 1
    assert verdict.fix is not None
    assert verdict.fix.commands == (
        "export LD_LIBRARY_PATH=/usr/local/nvidia/lib64",
        'LD_DEBUG=libs python -c "import torch" 2>&1 | grep libcudnn',
    )
    assert (
        "Something loads this cuDNN before torch does (a library path in /etc/ld.so.conf, or another package "
        "imported first): find it in the loader's debug output and remove it."
    ) in verdict.fix.text


def test_a_system_nccl_beside_the_system_cudnn_is_its_own_finding_read_as_torch_reports_it() -> None:
    libs = libs_of(SYSTEM_CUDNN)
    moved(libs, "libnccl", f"{APT_LIB}/libnccl.so.2.21.5", "2.21.5")  # Ubuntu's libnccl2

    verdict = judged(SYSTEM_CUDNN, libs)

    details = [str(d) for d in verdict.details]
    assert f"fail: NCCL is loaded from {APT_LIB}, not from the nvidia-nccl-cu12 2.21.5 wheel" in details
    assert f"loaded: {APT_LIB}/libnccl.so.2.21.5, version 2.21.5 (torch.cuda.nccl.version())" in details
    assert details.count(SYSTEM_WORDS) == 1


def test_two_mapped_cudnn_copies_are_each_read_as_their_file_or_wheel_not_as_torchs_one_report() -> None:
    # torch reports the version of one cuDNN; with two mapped, which one it is is not known
    libs = libs_of(SYSTEM_CUDNN)
    wheel = fixture_facts(MATCHED)["loaded_libraries"]["libraries"]
    libs["libraries"].append(next(x for x in wheel if x["base"] == "libcudnn"))

    verdict = judged(SYSTEM_CUDNN, libs)

    details = [str(d) for d in verdict.details]
    assert f"loaded: {CUDA_LIB}/libcudnn.so.9.0.0, version 9.0.0 (file name)" in details
    assert "warn: 2 copies of libcudnn (cuDNN) are loaded in the torch process" in details
    by_path = rows(verdict)
    assert by_path[f"{CUDA_LIB}/libcudnn.so.9.0.0"]["version"] == "9.0.0 (file name)"
    assert (
        by_path[f"{SITE}/nvidia/cudnn/lib/libcudnn.so.9"]["version"] == "9.1.0.70 (nvidia-cudnn-cu12 wheel)"
    )


def test_a_wheel_path_that_sorts_after_the_system_copy_does_not_make_the_system_copy_the_wheels() -> None:
    # pip into a Docker image's system Python (/usr/local/lib/python3.11/dist-packages), beside Ubuntu's cuDNN
    dist = "/usr/local/lib/python3.11/dist-packages"
    libs = json.loads(json.dumps(libs_of(MATCHED)).replace(SITE, dist))
    moved(libs, "libcudnn", f"{APT_LIB}/libcudnn.so.9.1.0", "9.1.0")

    verdict = judged(MATCHED, libs)

    assert verdict.status is Status.FAIL
    assert verdict.summary == f"cuDNN is loaded from {APT_LIB}, not from the nvidia-cudnn-cu12 9.1.0.70 wheel"
    assert rows(verdict)[f"{APT_LIB}/libcudnn.so.9.1.0"]["from"] == "outside the wheels"


# --- LD_PRELOAD --------------------------------------------------------------------------------------------


def test_a_system_libgomp_in_ld_preload_is_named_as_the_entry_to_remove() -> None:
    # LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2:/usr/lib/x86_64-linux-gnu/libgomp.so.1 (the
    # "cannot allocate memory in static TLS block" workaround); the link's target is what the process maps
    libs = libs_of(MATCHED)
    moved(libs, "libgomp", f"{APT_LIB}/libgomp.so.1.0.0", "1.0.0")
    libs["ld_preload"] = [
        {"entry": f"{APT_LIB}/libjemalloc.so.2", "resolved": f"{APT_LIB}/libjemalloc.so.2"},
        {"entry": f"{APT_LIB}/libgomp.so.1", "resolved": f"{APT_LIB}/libgomp.so.1.0.0"},
    ]

    verdict = judged(MATCHED, libs)

    assert verdict.status is Status.WARN
    assert (
        verdict.summary
        == f"OpenMP runtime is loaded from {APT_LIB}, not from torch's own wheel: it is in LD_PRELOAD"
    )
    assert f"loaded: {APT_LIB}/libgomp.so.1.0.0, version 1.0.0 (file name)" in verdict.details
    assert verdict.fix is not None
    assert verdict.fix.text == (
        f"Remove {APT_LIB}/libgomp.so.1 from LD_PRELOAD, so torch loads the OpenMP runtime of torch's own "
        "wheel."
    )
    assert verdict.fix.commands == ()
