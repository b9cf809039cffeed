"""nvidia-smi tables pasted in public issues (each quoted as the thread shows it, cut where the excerpt is
cut) read into the facts of a live machine, and judged by gpu.memory through ``check --from``."""

from __future__ import annotations

import textwrap
from pathlib import Path

from torchdoctor.inputs import nvidia_smi, saved

# RLinf/RLinf#255 (driver 550, the wide format of nvidia-smi 5xx), cut after the second GPU
RLINF = """\
    Wed Nov 12 03:22:39 2025
    +-----------------------------------------------------------------------------------------+
    | NVIDIA-SMI 550.163.01             Driver Version: 550.163.01     CUDA Version: 12.4     |
    |-----------------------------------------+------------------------+----------------------+
    | GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
    | Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
    |                                         |                        |               MIG M. |
    |=========================================+========================+======================|
    |   0  NVIDIA GeForce RTX 4090        Off |   00000000:4E:00.0 Off |                  Off |
    | 30%   29C    P8             22W /  450W |     507MiB /  24564MiB |      0%      Default |
    |                                         |                        |                  N/A |
    +-----------------------------------------+------------------------+----------------------+
    |   1  NVIDIA GeForce RTX 4090        Off |   00000000:4F:00.0 Off |                  Off |
    | 30%   29C    P8             21W /  450W |     459MiB /  24564MiB |      0%      Default |
    |                                         |                        |                  N/A |
    +---------
"""

# ace-step/ACE-Step#344 (driver 570): an 8 GiB RTX 3070 with 7751 MiB in use, cut inside its Processes table
ACE_STEP = """\
    +-----------------------------------------------------------------------------------------+
    | NVIDIA-SMI 570.195.03             Driver Version: 570.195.03     CUDA Version: 12.8     |
    |-----------------------------------------+------------------------+----------------------+
    | GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
    | Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
    |                                         |                        |               MIG M. |
    |=========================================+========================+======================|
    |   0  NVIDIA GeForce RTX 3070        Off |   00000000:09:00.0  On |                  N/A |
    |  0%   51C    P0             48W /  240W |    7751MiB /   8192MiB |      0%      Default |
    |                                         |                        |                  N/A |
    +-----------------------------------------+------------------------+----------------------+
    | Processes:                                                                              |
    |  GPU   GI   CI              PID   Type   Process name                        GPU Memory |
    |        ID   ID                                                               Usage      |
    |==========================================================================
"""

# karfly/learnable-triangulation-pytorch#80 (driver 418, the narrow format of nvidia-smi 4xx), cut at GPU 3
KARFLY = """\
    +-----------------------------------------------------------------------------+
    | NVIDIA-SMI 418.87.00    Driver Version: 418.87.00    CUDA Version: 10.1     |
    |-------------------------------+----------------------+----------------------+
    | GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
    | Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
    |===============================+======================+======================|
    |   0  GeForce RTX 208...  Off  | 00000000:4B:00.0 Off |                  N/A |
    | 29%   34C    P2    64W / 250W |   8559MiB / 10989MiB |      0%      Default |
    +-------------------------------+----------------------+----------------------+
    |   1  GeForce RTX 208...  Off  | 00000000:4C:00.0 Off |                  N/A |
    | 32%   49C    P2   111W / 250W |   7384MiB / 10989MiB |    100%      Default |
    +-------------------------------+----------------------+----------------------+
    |   2  GeForce RTX 208...  Off  | 00000000:4D:00.0 Off |                  N/A |
    | 31%   42C    P2   114W / 250W |   7384MiB / 10989MiB |    100%      Default |
    +-------------------------------+----------------------+----------------------+
    |   3  GeForce RTX 208...  Off  | 00000000:4E:00.0  On |
"""

# m0nad/Diamorphine#13 (driver 410: a header without "CUDA Version")
DIAMORPHINE = """\
    [centos@wenyangmao01 ~]$ nvidia-smi
    Wed Jun 26 02:44:30 2019
    +-----------------------------------------------------------------------------+
    | NVIDIA-SMI 410.48                 Driver Version: 410.48                    |
    |-------------------------------+----------------------+----------------------+
    | GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
    | Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
    |===============================+======================+======================|
    |   0  Tesla V100-DGXS...  Off  | 00000000:82:00.0 Off |                    0 |
    | N/A   38C    P0    49W / 300W |    449MiB / 32478MiB |      0%      Default |
    +-------------------------------+----------------------+----------------------+
"""

# XuehaiPan/nvitop#152: a whole Processes section with the GI/CI columns (its GPU rows added above it, as
# nvidia-smi prints them, so that the processes have GPUs to sit on)
NVITOP_PROCESSES = """\
    | NVIDIA-SMI 535.54.03              Driver Version: 535.54.03    CUDA Version: 12.2     |
    |   0  Tesla T4                       On  | 00000000:00:04.0 Off |                    0 |
    | N/A   44C    P8              10W /  70W |    163MiB / 15360MiB |      0%      Default |
    |   1  Tesla T4                       On  | 00000000:00:05.0 Off |                    0 |
    | N/A   44C    P8              10W /  70W |    160MiB / 15360MiB |      0%      Default |
    +---------------------------------------------------------------------------------------+
    | Processes:                                                                            |
    |  GPU   GI   CI        PID   Type   Process name                            GPU Memory |
    |        ID   ID                                                             Usage      |
    |=======================================================================================|
    |    0   N/A  N/A     10734      C   ...-x86_64-Release/abcdefgh/foo_bar         160MiB |
    |    0   N/A  N/A     58661      G   .../abcdefgh/123456/bin/abcde/bazbaz          3MiB |
    |    1   N/A  N/A     10734      C   ...-x86_64-Release/abcdefgh/foo_bar         160MiB |
    +---------------------------------------------------------------------------------------+
"""


def _table(text: str) -> nvidia_smi.Table:
    found = nvidia_smi.find(textwrap.dedent(text))
    assert found is not None
    return found


def test_the_wide_format_gives_driver_cuda_and_each_gpus_memory() -> None:
    table = _table(RLINF)
    facts = table.facts()["nvml"]
    assert (facts["driver_version"], facts["cuda_driver_version"]) == ("550.163.01", 12040)
    assert [(g["index"], g["name"]) for g in facts["gpus"]] == [
        (0, "NVIDIA GeForce RTX 4090"),
        (1, "NVIDIA GeForce RTX 4090"),
    ]
    assert facts["gpus"][0]["memory_used_bytes"] == 507 * 2**20
    assert facts["gpus"][0]["memory_total_bytes"] == 24564 * 2**20
    assert "processes" not in facts["gpus"][0]  # the excerpt has no Processes section: unknown, not none


def test_the_narrow_format_and_a_gpu_cut_before_its_memory_line() -> None:
    gpus = _table(KARFLY).facts()["nvml"]["gpus"]
    assert [g["index"] for g in gpus] == [0, 1, 2, 3]
    assert gpus[1]["memory_used_bytes"] == 7384 * 2**20
    assert "memory_total_bytes" not in gpus[3]


def test_a_header_without_a_cuda_version() -> None:
    facts = _table(DIAMORPHINE).facts()["nvml"]
    assert facts["driver_version"] == "410.48" and facts["cuda_driver_version"] is None
    assert facts["gpus"][0]["memory_used_bytes"] == 449 * 2**20


def test_a_processes_table_cut_in_its_header_leaves_the_processes_unknown() -> None:
    facts = _table(ACE_STEP).facts()
    assert "processes" not in facts["nvml"]["gpus"][0]
    assert facts["gpu_processes"]["processes"] == {}


def test_a_whole_processes_table_gives_each_gpus_processes_with_gi_ci_columns() -> None:
    facts = _table(NVITOP_PROCESSES).facts()
    gpu0 = facts["nvml"]["gpus"][0]["processes"]
    assert [(p["pid"], p["kind"], p["used_memory_bytes"]) for p in gpu0] == [
        (10734, "compute", 160 * 2**20),
        (58661, "graphics", 3 * 2**20),
    ]
    assert facts["gpu_processes"]["processes"]["10734"]["name"] == "...-x86_64-Release/abcdefgh/foo_bar"


def test_check_from_a_pasted_table_judges_gpu_memory_and_says_what_the_table_cannot(tmp_path: Path) -> None:
    from torchdoctor.checks.memory.memory_check import CHECK

    path = tmp_path / "issue.md"
    path.write_text(
        "The training dies with CUDA out of memory:\n\n```\n" + textwrap.dedent(ACE_STEP) + "```\n"
    )
    report = saved.load(path)
    assert report.describe() == "nvidia-smi output"
    facts = report.data["facts"]
    verdict = CHECK.judge({probe.name: facts[probe.name] for probe in CHECK.probes}, {})
    assert verdict.status.value == "warn"
    assert "GPU 0 has 5.4 % free (441.0 MiB of 8.0 GiB)" in verdict.summary
    details = " ".join(map(str, verdict.details))
    assert "the processes on it are unknown" in details
    assert "which the job uses it does not say" in details


def test_hostile_lines_are_skipped_and_the_gpus_bounded() -> None:
    header = "| NVIDIA-SMI 550.163.01             Driver Version: 550.163.01     CUDA Version: 12.4     |\n"
    long_line = "|   0  " + " " * 30_000 + "x Off |\n"
    gpu = (
        "|   {i}  NVIDIA H100 80GB HBM3          On  |   00000000:{i:02X}:00.0 Off |                    0 |\n"
    )
    many = "".join(gpu.format(i=i % 256) for i in range(nvidia_smi.MAX_GPUS + 10))
    table = nvidia_smi.find(header + long_line + many)
    assert table is not None and len(table.gpus) == nvidia_smi.MAX_GPUS
    assert all(g.name == "NVIDIA H100 80GB HBM3" for g in table.gpus)
