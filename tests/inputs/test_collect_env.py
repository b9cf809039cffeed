"""collect_env dumps: every real one of the corpus is read, becomes a valid saved report, and its faults are
named by the checks that judge it; the parser on each format variant; texts without a dump."""

from __future__ import annotations

import importlib.util
import json
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from torchdoctor.inputs import collect_env, saved

from corpus_tools import splits
from growth import linear, repeated

ROOT = Path(__file__).resolve().parents[2]
RECORDS = {path.stem: json.loads(path.read_text()) for path in splits.files("collect_env")}
FAULTS = [(name, fault) for name, record in RECORDS.items() for fault in record["faults"]]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_collect_env", ROOT / "bench" / "collect_env.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BENCH = _bench()


def dump_of(name: str) -> collect_env.Dump:
    dump = collect_env.find(RECORDS[name]["text"])
    assert dump is not None, name
    return dump


def facts_of(name: str) -> dict[str, Any]:
    facts: dict[str, Any] = dump_of(name).to_report(name)["facts"]
    return facts


def verdicts_of(name: str) -> dict[str, Any]:
    verdicts: dict[str, Any] = BENCH.judge(dump_of(name).to_report(name))
    return verdicts


# --- the corpus ---------------------------------------------------------------------------------------------


def test_the_corpus_is_all_here() -> None:
    assert len(RECORDS) == 37
    assert len(FAULTS) >= 10


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_every_dump_is_read_into_a_valid_saved_report(name: str) -> None:
    report = dump_of(name).to_report(f"{name}.json")
    data = saved.parse(json.dumps(report), name)  # the shipped JSON Schema, and the verdicts' shape
    assert data["collect_env"]["source"] == f"{name}.json"
    assert isinstance(data["collect_env"]["complete"], bool)
    assert data["collect_env"]["fields"], "the raw fields are kept"
    assert data["verdicts"] == [] and data["probe_errors"] == {} and data["options"] == {}
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", data["created_at"])
    assert set(data["facts"]) >= {"torch", "nvml", "cuda_driver", "companions"}
    # what the dump says is what the saved report's facts say
    fields, torch, nvml = data["collect_env"]["fields"], data["facts"]["torch"], data["facts"]["nvml"]
    if "PyTorch version" in fields:
        assert torch["version"] == fields["PyTorch version"]
    if fields.get("Is debug build") in ("True", "False", "Yes", "No"):
        assert torch["debug"] is (fields["Is debug build"] in ("True", "Yes"))
    python = re.match(r"\d+\.\d+(\.\d+)?", fields.get("Python version", ""))
    if python:
        assert torch["python"] == python.group(0)
    driver = fields.get("Nvidia driver version", "")
    if re.fullmatch(r"\d{3}\.\d+(\.\d+)?", driver):
        assert nvml["driver_version"] == driver
    elif driver in ("No CUDA", "Could not collect"):
        assert "driver_version" not in nvml


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_every_dump_is_judged_by_the_install_checks(name: str) -> None:
    verdicts = verdicts_of(name)
    assert set(verdicts) == {"torch.build", "torch.stack"}
    listed = bool(facts_of(name)["companions"])
    for check_id, verdict in verdicts.items():
        if check_id == "torch.stack" and not listed:  # no package list: nothing of the stack was read
            assert verdict.status.value == "skip" and "nothing of its stack is known" in verdict.summary
            continue
        assert verdict.status.value in ("pass", "warn", "fail"), verdict.summary
        if verdict.status.value != "pass":
            assert verdict.fix is not None and verdict.fix.text


@pytest.mark.parametrize(("name", "fault"), FAULTS)
def test_each_labelled_fault_is_named_by_its_check(name: str, fault: str) -> None:
    verdicts = verdicts_of(name)
    check_id = BENCH.FAULTS[fault][0]
    assert fault in BENCH.faults_named(verdicts), (check_id, verdicts[check_id].summary)


def test_the_corpus_targets_are_met() -> None:
    result = BENCH.run(repeat=1)
    assert result["read"] == result["dumps"] == len(RECORDS)
    assert result["faults_named"] >= 0.9 * result["faults_labelled"]


def test_each_fault_kind_names_only_its_own_finding() -> None:
    """The markers the corpus test uses tell the faults apart."""
    summaries = {
        "cpu_wheel_on_gpu_machine": "CPU-only torch 2.2.2 on a machine with NVIDIA GeForce RTX 4080 Laptop "
        "GPU: 'Torch not compiled with CUDA enabled'",
        "driver_too_old": "the NVIDIA driver is too old for this CUDA 10.2 build of torch",
        "arch_not_covered": "GPU 0 GeForce 210 (CC 1.2, sm_12): this torch has no kernels for it: its CUDA "
        "10.0 cannot compile for a GPU this old",
        "python_unsupported": "torch 2.5 does not support Python 3.8: it supports Python 3.9 to 3.12",
        "companion_mismatch": "torchvision 0.12.0 is made for torch 1.11, not for torch 1.13.0.dev20220525",
        "torch_installed_twice": "torch is installed twice in this environment: conda's pytorch 1.3.0 "
        "(pytorch) and pip's torch 1.2.0",
    }
    for fault, summary in summaries.items():
        matching = {f for f, (_, pattern) in BENCH.FAULTS.items() if pattern.search(summary)}
        assert matching == {fault}, (fault, matching)


# --- what the facts say, and what they leave out ------------------------------------------------------------


def test_a_collect_env_2x_dump_gives_the_probes_shapes_and_nothing_else() -> None:
    facts = facts_of("pytorch_pytorch_122924")
    torch = facts["torch"]
    assert torch["version"] == "2.2.2" and torch["importable"] is True
    assert (torch["flavor"], torch["cuda"]) == (
        "cpu",
        None,
    )  # "CUDA used to build PyTorch: Could not collect"
    assert torch["python"] == "3.10.13"
    assert torch["machine"] == "AMD64"
    assert torch["os"] == {"system": "Windows", "release": "10"}
    assert torch["cuda_available"] is False and torch["debug"] is False
    for unsaid in ("device_count", "arch_list", "cudnn_version", "nccl_version", "mps", "file", "devices"):
        assert unsaid not in torch
    assert facts["nvml"] == {
        "available": True,
        "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4080 Laptop GPU", "compute_capability": [8, 9]}],
        "driver_version": "551.86",
    }
    assert facts["cuda_driver"] == {}
    names = {c["name"]: c["version"] for c in facts["companions"]["companions"]}
    assert names == {"torchaudio": "2.2.2", "torchvision": "0.17.2"}
    assert "pins" not in facts["companions"]  # torch's own metadata is not in a dump


def test_collect_env_1x_fields_no_and_full_cuda_versions() -> None:
    facts = facts_of("pytorch_pytorch_28321")
    assert facts["torch"]["cuda"] == "10.1.243" and facts["torch"]["flavor"] == "cuda"
    assert facts["torch"]["debug"] is False and facts["torch"]["cuda_available"] is False  # "No"
    assert facts["torch"]["python"] == "3.7"
    assert facts["nvml"]["driver_version"] == "410.104"
    assert facts["nvml"]["gpus"][0]["compute_capability"] == [7, 5]  # Tesla T4
    installs = facts["companions"]["torch_installs"]
    assert {(i["listed_by"], i["name"], i["version"]) for i in installs} == {
        ("pip", "torch", "1.2.0"),
        ("conda", "pytorch", "1.3.0"),
    }


def test_a_gpu_list_on_following_lines_and_full_width_colons() -> None:
    gpus = facts_of("pytorch_pytorch_37320")["nvml"]["gpus"]
    assert [g["index"] for g in gpus] == [0, 1, 2, 3]
    assert {g["name"] for g in gpus} == {"Tesla P100-PCIE-16GB"}
    assert all(g["compute_capability"] == [6, 0] for g in gpus)


def test_torchs_own_warnings_before_the_dump_are_facts() -> None:
    lhotse = facts_of("lhotse_speech_lhotse_793")
    assert lhotse["cuda_driver"] == {"driver_cuda_version": 9010}
    assert "found version 9010" in lhotse["torch"]["cuda_warnings"][0]
    assert lhotse["torch"]["cuda"] == "10.2"
    assert "flavor" in lhotse["torch"] and lhotse["torch"]["flavor"] == "cuda"  # "ROCM ...: N/" is cut off
    rtx = facts_of("pytorch_pytorch_150733")
    assert rtx["torch"]["arch_list"] == ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]
    assert rtx["nvml"]["gpus"][0]["compute_capability"] == [12, 0]


def test_rocm_dumps_name_no_nvidia_gpu() -> None:
    facts = facts_of("rocm_xformers_12")
    assert (facts["torch"]["flavor"], facts["torch"]["hip"]) == ("rocm", "6.0.32830-d62f6a171")
    assert facts["nvml"] == {}
    assert dump_of("rocm_xformers_12").fields["HIP runtime version"] == "6.0.32830"


def test_an_xpu_line_and_a_cpu_block_are_read() -> None:
    dump = dump_of("pytorch_pytorch_137846")
    assert dump.fields["Is XPU available"] == "False"
    assert dump.fields["CPU"].startswith("Name: 12th Gen Intel(R) Core(TM) i7-1270P")
    assert facts_of("pytorch_pytorch_137846")["torch"]["flavor"] == "cpu"


def test_a_linux_cpu_block_keeps_its_own_lines() -> None:
    dump = dump_of("pytorch_pytorch_143288")
    assert dump.fields["CPU"].splitlines()[0].startswith("Architecture:")
    facts = facts_of("pytorch_pytorch_143288")
    assert facts["torch"]["os"] == {"system": "Linux", "release": "6.5.0-1025-azure", "wsl": False}
    assert facts["nvml"]["available"] is False  # "GPU models and configuration: No CUDA"


def test_macos_keeps_the_cuda_kext_version_out_of_the_driver_facts() -> None:
    facts = facts_of("pytorch_pytorch_16999")
    assert facts["torch"]["os"] == {"system": "Darwin"}
    assert "driver_version" not in facts["nvml"]
    assert facts["nvml"]["gpus"][0]["compute_capability"] == [6, 1]
    assert dump_of("pytorch_pytorch_16999").fields["Nvidia driver version"] == "1.1.0"


def test_the_issue_templates_bullets() -> None:
    dump = dump_of("pytorch_pytorch_30071")
    assert dump.fields["PyTorch Version (e.g., 1.0)"] == "1.3"
    assert dump.fields["How you installed PyTorch (conda, pip, source)"] == "pip install"
    facts = dump.to_report("x")["facts"]
    assert facts["torch"]["version"] == "1.3" and "flavor" not in facts["torch"]
    assert facts["torch"]["python"] == "3.6.7"
    assert facts["nvml"] == {}  # the template's GPU field is empty: not known


def test_hand_written_bullets_with_bold_and_backticks() -> None:
    facts = facts_of("pytorch_pytorch_160804")
    assert facts["torch"]["version"] == "2.2.0+cu121"
    assert (facts["torch"]["flavor"], facts["torch"]["cuda"]) == ("cuda", "12.1")  # the wheel's label
    assert facts["nvml"]["driver_version"] == "570.181"  # "CUDA Version: 12.8 (Driver 570.181)"
    assert facts["nvml"]["gpus"][0]["compute_capability"] == [12, 0]
    mac = facts_of("pytorch_pytorch_177819")["torch"]
    assert (mac["version"], mac["python"], mac["machine"]) == ("2.10.0", "3.12.13", "arm64")


def test_a_retyped_version_line_without_colon() -> None:
    dump = dump_of("pytorch_pytorch_37320")
    assert dump.fields["PyTorch version"] == "1.5.0"
    assert dump.fields["Os"] == "Ubuntu 18.04.3 LTS"


@pytest.mark.parametrize(
    ("name", "complete"),
    [
        ("pytorch_pytorch_164943", True),  # ends with its package list and the closing fence
        ("pytorch_pytorch_28321", True),  # a heading follows the package list
        ("pytorch_pytorch_31876", True),  # "[conda] Could not collect" ends the text
        ("facebookresearch_detectron2_4581", False),  # "[pip3] torchvisi"
        ("pytorch_pytorch_32524", False),  # stops at "CMake version"
        ("lhotse_speech_lhotse_793", False),
    ],
)
def test_complete_means_the_package_lists_end(name: str, complete: bool) -> None:
    assert dump_of(name).complete is complete


# --- format variants of one real dump -----------------------------------------------------------------------

BASE = RECORDS["pytorch_pytorch_28321"]["text"]
CORE = BASE[BASE.index("PyTorch version") : BASE.index("\n\n## Additional context")]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(CORE, id="bare"),
        pytest.param(CORE.replace("\n", "\r\n"), id="crlf"),
        pytest.param(CORE.replace("\n", "\r"), id="cr"),
        # Every other character str.splitlines() ends a line at, one per line, in turn
        pytest.param(
            "".join(
                line + "\x85\u2028\u2029\x0b\x0c\x1c\x1d\x1e"[i % 8]
                for i, line in enumerate(CORE.split("\n"))
            ),
            id="unicode-line-ends",
        ),
        pytest.param(
            f"Hi,\n\nafter the update CUDA is gone.\n\n```\n{CORE}\n```\n\nThanks!", id="fenced-in-prose"
        ),
        pytest.param("\n".join("    " + line for line in CORE.splitlines()), id="indented"),
        pytest.param("\n".join("> " + line for line in CORE.splitlines()), id="quoted"),
        pytest.param(f"<details><summary>env</summary>\n\n{CORE}\n</details>", id="details"),
    ],
)
def test_one_dump_in_every_wrapping_says_the_same(text: str) -> None:
    dump = collect_env.find(text)
    assert dump is not None
    facts = dump.to_report("x")["facts"]
    assert facts["torch"]["version"] == "1.3.0"
    assert facts["torch"]["cuda"] == "10.1.243"
    assert facts["nvml"]["driver_version"] == "410.104"
    assert len(dump.libraries) == 11
    assert dump.fields["GPU models and configuration"] == "GPU 0: Tesla T4"


def test_the_first_of_two_dumps_is_read() -> None:
    other = RECORDS["pytorch_pytorch_43058"]["text"]
    dump = collect_env.find(f"{CORE}\n\nand on the other machine:\n\n{other}")
    assert dump is not None and dump.said["torch"] == "1.3.0"


def test_a_lone_version_line_above_a_dump_is_passed_over() -> None:
    # pytorch/pytorch#78343: the reporter printed torch.__version__ in a REPL above the dump
    repl = '>>> print(f"PyTorch version: {torch.__version__}")\nPyTorch version: 1.3.0\n>>> print(mps)'
    dump = collect_env.find(f"```\n{repl}\n```\n\n### Versions\n\n{CORE}")
    assert dump is not None and dump.said["torch"] == "1.3.0"
    assert dump.fields["GPU models and configuration"] == "GPU 0: Tesla T4"
    alone = collect_env.find(f"```\n{repl}\n```\n")  # no dump follows: the line is all there is
    assert alone is not None and set(alone.said) == {"torch"}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("NVIDIA GeForce RTX 4080 Laptop GPU", (8, 9)),
        ("GeForce GTX 1060 with Max-Q Design", (6, 1)),
        ("Tesla V100-SXM2-16GB", (7, 0)),
        ("NVIDIA A100-SXM4-80GB", (8, 0)),
        ("NVIDIA A10", (8, 6)),
        ("NVIDIA L40S", (8, 9)),
        ("NVIDIA TITAN Xp", (6, 1)),
        ("GeForce GTX TITAN X", (5, 2)),
        ("NVIDIA GeForce RTX 5090 D", (12, 0)),
        # the rows NVIDIA's page added (as it stood on 2026-12-06), in nvidia-smi's names and the page's
        ("NVIDIA RTX PRO 4000 Blackwell SFF Edition", (12, 0)),
        ("NVIDIA RTX PRO 2000 Blackwell", (12, 0)),
        ("NVIDIA RTX 6000 Ada Generation", (8, 9)),
        ("NVIDIA RTX 6000 Ada", (8, 9)),
        ("NVIDIA RTX 4000 SFF Ada Generation", (8, 9)),
        ("NVIDIA RTX 2000 Ada Generation", (8, 9)),
        ("Jetson T5000", (11, 0)),
        ("GeForce 210", (1, 2)),
        ("GeForce GT 540M", (2, 1)),  # Fermi (GF108M), its driver branch ends at R390
        ("NVIDIA GeForce GTX 560 Ti", (2, 1)),
        ("Quadro 4000", (2, 0)),
        ("NVIDIA GeForce GTX 660", (3, 0)),  # Kepler, its driver branch ends at R470
        ("GeForce GTX 660M", (3, 0)),
        ("Quadro K4000", (3, 0)),
        ("NVIDIA GeForce GT 730", None),  # sold on a Fermi and on Kepler chips: its architecture is not known
        ("Tesla V100S-PCIE-32GB", (7, 0)),  # a GV100 (Volta), as NVIDIA lists the V100 family
        ("AMD Radeon RX 6950 XT (gfx1030)", None),
        ("Device 66a1", None),
    ],
)
def test_compute_capability_by_model_name(name: str, expected: tuple[int, int] | None) -> None:
    assert collect_env.compute_capability(name) == expected


def test_the_model_table_has_no_name_twice() -> None:
    names = [n.lower() for names in collect_env.GPU_COMPUTE_CAPABILITY.values() for n in names]
    assert len(names) == len(set(names))


# --- no dump ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n\n",
        "I upgraded PyTorch yesterday and now training is slow.",
        "PyTorch 2.1 is great, and my PyTorch version is the latest one.",
        "pytorch version\nis debug build",
        'Traceback (most recent call last):\n  File "train.py", line 3\nRuntimeError: CUDA error',
        json.dumps({"schema_version": 1, "facts": {}}),
        "\x00\x01\x02 binary-ish \ufffd text",
        "- OS: Ubuntu 22.04\n- Python: 3.11\n- GPU: RTX 4090",
    ],
)
def test_a_text_without_a_dump_gives_none(text: str) -> None:
    assert collect_env.find(text) is None


@pytest.mark.parametrize(
    "make",
    [
        repeated("- * "),
        repeated("pytorch\n"),
        repeated("x", suffix="\n" + CORE),
        repeated("GPU 0: NVIDIA A100\n", prefix="PyTorch version: 2.0.0\nGPU models and configuration:\n"),
        # Runs a pattern once tried every way of splitting (digits, then spaces, around the version):
        repeated("0", prefix="PyTorch version 1.", suffix=" y"),
        repeated(" ", prefix="PyTorch: ", suffix="x"),
        # Lines (at most 4,096 characters each) whose runs grow with n.
        lambda n: "- PyTorch version: 2.0\n" + ("- F: driver" + " " * (n // 80) + "x\n") * 16,
        lambda n: "- PyTorch version: 2.0\n" + ("- " * (n // 160) + "x: y\n") * 16,
    ],
    ids=["bullets", "openings", "one long line", "gpus", "digits", "spaces", "driver", "nested bullets"],
)
def test_reading_a_dump_is_linear(make: Callable[[int], str]) -> None:
    def read(text: str) -> None:
        dump = collect_env.find(text)
        if dump is not None:
            dump.to_report("issue")

    assert linear(read, make, 1 << 16)


def test_a_dump_without_torch_says_it_does_not_import_and_not_why() -> None:
    # collect_env prints "PyTorch version: N/A" when it cannot import torch (TORCH_AVAILABLE is False)
    dump = collect_env.find(CORE.replace("PyTorch version: 1.3.0", "PyTorch version: N/A"))
    assert dump is not None
    report = dump.to_report("x")
    assert report["facts"]["torch"]["importable"] is False
    assert "version" not in report["facts"]["torch"] and "import_error" not in report["facts"]["torch"]
    verdicts = BENCH.judge(report)
    assert verdicts["torch.build"].status.value == "fail"
    assert verdicts["torch.build"].summary == "torch does not import here (the facts do not say why)"
    assert verdicts["torch.stack"].status.value == "skip"


def test_a_dump_without_its_package_list_leaves_torch_stack_a_skip() -> None:
    # Nothing of the stack was read: no loaded libraries (a dump never lists them) and no package list.
    text = CORE[: CORE.index("Versions of relevant libraries")]
    dump = collect_env.find(text)
    assert dump is not None and not dump.libraries
    stack = BENCH.judge(dump.to_report("x"))["torch.stack"]
    assert stack.status.value == "skip"
    assert stack.summary == (
        "torch 1.3.0: nothing of its stack is known from these facts (loaded libraries not read, a "
        "collect_env dump does not list them; no package list)"
    )
    listed = BENCH.judge(collect_env.find(CORE).to_report("x"))["torch.stack"]  # type: ignore[union-attr]
    assert listed.status.value != "skip"
