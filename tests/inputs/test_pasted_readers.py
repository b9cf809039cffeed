"""Readers of what GPU machines print, pasted in public threads: ``torch.cuda.memory_summary()`` tables,
``nvidia-smi topo -m`` matrices and ``nvidia-smi --query-*`` CSV, read into the facts of a live machine;
what a pasted text cannot say stays unknown. Each text is quoted as the thread shows it, cut where the stored
excerpt is cut."""

from __future__ import annotations

import json
from pathlib import Path

from torchdoctor.checks.ddp import explanations as ddp
from torchdoctor.inputs import memory_snapshot, memory_summary, nvidia_smi, nvidia_smi_csv, nvidia_topo, saved

import support
from growth import linear

THREADS = Path(__file__).resolve().parents[1] / "corpus" / "threads" / "dev"

# pytorch/pytorch#35901 (turn 5, cut inside the reserved row): 12420 MB reserved against 1062 MB allocated
PYTORCH_35901 = """\
```
|===========================================================================|
|                  PyTorch CUDA memory summary, device ID 0                 |
|---------------------------------------------------------------------------|
|            CUDA OOMs: 1            |        cudaMalloc retries: 1         |
|===========================================================================|
|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |
|---------------------------------------------------------------------------|
| Allocated memory      |    1062 MB |    4877 MB |   89299 MB |   88237 MB |
|       from large pool |    1048 MB |    4865 MB |   89263 MB |   88215 MB |
|       from small pool |      14 MB |      14 MB |      35 MB |      21 MB |
|---------------------------------------------------------------------------|
| Active memory         |    1062 MB |    4877 MB |   89299 MB |   88237 MB |
|       from large pool |    1048 MB |    4865 MB |   89263 MB |   88215 MB |
|       from small pool |      14 MB |      14 MB |      35 MB |      21 MB |
|---------------------------------------------------------------------------|
| GPU reserved memory   |   12420 MB |   12420 MB |   16924 MB |    4504 MB |
|       from large pool |   12404 MB |   12"""

# facebookresearch/vissl#514 (turn 0, continued): the table without its header
VISSL_514 = """\
```
| GPU reserved memory   |    8184 MB |    9330 MB |   15628 MB |    7444 MB |
|       from large pool |    8162 MB |    9308 MB |   15606 MB |    7444 MB |
|       from small pool |      22 MB |      22 MB |      22 MB |       0 MB |
|---------------------------------------------------------------------------|
| Non-releasable memory |  202300 KB |    1563 MB |   10613 MB |   10415 MB |
|       from large pool |  199936 KB |    1559 MB |   10597 MB |   10401 MB |
|       from small pool |    2364 KB |       3 MB |      16 MB |      14 MB |
|---------------------------------------------------------------------------|
"""

# NVIDIA/nccl#667: "NCCL hangs in the case GPUs are linked through PXB or PIX" (tabs as pasted)
NCCL_667 = (
    "\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity\n"
    "GPU0\t X \tPXB\tSYS\tSYS\t0-27,56-83\t0\n"
    "GPU1\tPXB\t X \tSYS\tSYS\t0-27,56-83\t0\n"
    "GPU2\tSYS\tSYS\t X \tPIX\t28-55,84-111\t1\n"
    "GPU3\tSYS\tSYS\tPIX\t X \t28-55,84-111\t1\n"
    "\n"
    "The topology is as above.\n"
    "\n"
    "all_reduce_perf works fine only with those linked through SYS. The rest will result in hanging.\n"
)

# pytorch/pytorch#47885 (comment quoting frederikschubert), with the legend after it
PYTORCH_47885 = """\
 nvidia-smi topo -m
        GPU0    GPU1    GPU2    GPU3    GPU4    GPU5    CPU Affinity    NUMA Affinity
GPU0     X      PIX     NODE    SYS     SYS     SYS     0-17,36-53      0
GPU1    PIX      X      NODE    SYS     SYS     SYS     0-17,36-53      0
GPU2    NODE    NODE     X      SYS     SYS     SYS     0-17,36-53      0
GPU3    SYS     SYS     SYS      X      PIX     NODE    18-35,54-71     1
GPU4    SYS     SYS     SYS     PIX      X      NODE    18-35,54-71     1
GPU5    SYS     SYS     SYS     NODE    NODE     X      18-35,54-71     1

Legend:

  X    = Self
  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)
"""

# NVIDIA/nccl#1608 comment: NVLink between two GPUs, the third across the SMP interconnect
NCCL_1608 = """\
nvidia-smi topo -m
        GPU0    GPU1    GPU2    CPU Affinity    NUMA Affinity   GPU NUMA ID
GPU0     X      NV12    SYS     0-15,32-47      0               N/A
GPU1    NV12     X      SYS     0-15,32-47      0               N/A
GPU2    SYS     SYS      X      16-31,48-63     1               N/A
"""

# mostlygeek/llama-swap#782: a noheader CSV names no field (and GB10 reports no memory)
LLAMA_SWAP_782 = """\
Observed behavior:
`nvidia-smi --query-gpu=memory.used,memory.total,utilization.memory` reports:

```text
[N/A], [N/A], 0
```
"""


def test_a_memory_summary_gives_the_allocator_totals_and_counters() -> None:
    found = memory_summary.find(PYTORCH_35901)
    assert found is not None
    (device,) = found.facts()["allocator"]["devices"]
    assert device["device"] == 0
    assert device["reserved_bytes"] == 12420 * 2**20
    assert device["allocated_bytes"] == 1062 * 2**20
    assert device["free_bytes"] == (12420 - 1062) * 2**20
    assert device["counters"] == {"num_ooms": 1, "num_alloc_retries": 1}
    # cut before the non-releasable row and without per-block figures: unknown, not zero
    assert device["inactive_split_bytes"] is None
    assert device["largest_free_block_bytes"] is None
    small = next(p for p in device["pools"] if p["pool"] == "small_pool")
    assert small["reserved_bytes"] is None


def test_a_summary_without_its_header_is_not_read() -> None:
    assert memory_summary.find(VISSL_514) is None
    assert memory_summary.size("202300 KB") == 202300 * 2**10
    assert memory_summary.size("12 parsecs") is None


def test_gpu_fragmentation_judges_a_pasted_summary_with_its_figures() -> None:
    data = saved.from_text(PYTORCH_35901, "issue")
    (verdict,) = support.judged(["gpu.fragmentation"], data["facts"])
    assert verdict.status.value == "fail"
    assert "12420 MB reserved against 1062 MB allocated" in verdict.summary
    assert "expandable_segments" in verdict.fix.text
    assert any("largest free block is unknown" in str(line) for line in verdict.details)


def test_topo_matrices_give_the_links_between_gpus() -> None:
    found = nvidia_topo.find(NCCL_667)
    assert found is not None
    facts = found.facts()
    assert facts["gpus"] == ["GPU0", "GPU1", "GPU2", "GPU3"]
    assert facts["through_switch"] == [{"a": 0, "b": 1, "link": "PXB"}, {"a": 2, "b": 3, "link": "PIX"}]
    six = nvidia_topo.find(PYTORCH_47885)
    assert six is not None and len(six.gpus) == 6 and len(six.links) == 15
    assert six.describe() == "GPU0-GPU1 PIX, GPU3-GPU4 PIX"
    nvlink = nvidia_topo.find(NCCL_1608)
    assert nvlink is not None
    assert nvlink.facts()["nvlink"] == [{"a": 0, "b": 1, "link": "NV12"}]
    assert nvlink.facts()["through_switch"] == []


def test_the_hang_analysis_names_the_switched_pairs_and_the_documented_test() -> None:
    analysis = ddp.analyse_hang(NCCL_667)
    assert analysis.cause is not None and "Access Control Services" in analysis.cause
    assert any("GPU0-GPU1 PXB, GPU2-GPU3 PIX" in line for line in analysis.evidence)
    assert analysis.fix is not None and "NCCL_P2P_DISABLE=1" in analysis.fix.text
    assert "sudo lspci -vvv | grep ACSCtl" in analysis.fix.commands
    # an NVLink pair behind no switch gives no P2P-through-a-switch story
    assert ddp.analyse_hang(NCCL_1608).cause is None


def test_a_noheader_csv_is_not_read() -> None:
    assert nvidia_smi_csv.find(LLAMA_SWAP_782) is None


# The two queries in the format nvidia-smi documents (its man page, --format=csv): not a pasted text, the
# shape the reader must take, with a process on each GPU found through the UUID.
DOCUMENTED = """\
index, uuid, memory.used [MiB], memory.total [MiB]
0, GPU-aaaa, 23000 MiB, 24576 MiB
1, GPU-bbbb, 4 MiB, 24576 MiB

gpu_uuid, pid, process_name, used_gpu_memory [MiB]
GPU-aaaa, 1395, python, 22990 MiB
"""


def test_query_csv_gives_gpu_memory_facts_and_processes_through_the_uuid() -> None:
    found = nvidia_smi_csv.find(DOCUMENTED)
    assert found is not None
    gpus = found.facts()["nvml"]["gpus"]
    assert [g["index"] for g in gpus] == [0, 1]
    assert gpus[0]["memory_used_bytes"] == 23000 * 2**20
    assert gpus[0]["processes"] == [{"pid": 1395, "used_memory_bytes": 22990 * 2**20, "kind": "compute"}]
    assert gpus[1]["processes"] == []
    # without a UUID or bus id column, processes of a several-GPU query are on an unknown GPU
    no_key = DOCUMENTED.replace("gpu_uuid, ", "").replace("GPU-aaaa, 1395", "1395")
    unknown = nvidia_smi_csv.find(no_key)
    assert unknown is not None and "processes" not in unknown.facts()["nvml"]["gpus"][0]


def test_readers_of_one_text_add_up() -> None:
    data = saved.from_text(PYTORCH_35901 + "\n\n" + NCCL_667, "issue")
    assert {"allocator", "topology"} <= set(data["facts"])
    assert data["memory_summary"]["devices"] == [0]


def test_readers_are_linear_on_hostile_text() -> None:
    header = memory_summary.HEADER + " 0 |\n"
    assert linear(memory_summary.find, lambda n: header * (n // len(header)), 64 * 2**10)
    assert linear(nvidia_topo.find, lambda n: "GPU0 GPU1 " * (n // 10), 64 * 2**10)
    assert linear(nvidia_smi_csv.find, lambda n: "memory.total, memory.used\n" * (n // 26), 64 * 2**10)


def test_a_table_pasted_from_its_column_titles_on_is_read_without_a_driver() -> None:
    # yangjianxin1/GPT2-chitchat#19: GPU 0 full with another job, GPUs 1-3 idle; cut above its titles
    text = json.loads((THREADS / "yangjianxin1_gpt2_chitchat_19.json").read_text())["text"]
    table = nvidia_smi.find(text)
    assert table is not None and table.driver_version is None
    assert [gpu.used_mib for gpu in table.gpus] == [15514, 0, 0, 0]
    assert not table.processes_listed
    (verdict,) = support.judged(["gpu.memory"], saved.from_text(text, "issue")["facts"])
    assert verdict.status.value == "warn"
    assert "held by processes the table does not list (another job's, or this one's)" in verdict.summary
    # GPUs that hold no memory are idle even where the table does not list processes
    assert "export CUDA_VISIBLE_DEVICES=1,2,3" in verdict.fix.commands


def test_a_collect_env_dump_quoted_as_github_quotes_it_is_found_whole() -> None:
    # a real dump (pytorch/pytorch#122924), quoted in a reply: "> " before each line, ">" alone on blank
    # ones, and once more for a quote of a quote
    from torchdoctor.inputs import collect_env

    corpus = Path(__file__).resolve().parents[1] / "corpus" / "collect_env" / "dev"
    text = json.loads((corpus / "pytorch_pytorch_122924.json").read_text())["text"]
    plain = collect_env.find(text)
    assert plain is not None
    for prefix in ("> ", "> > "):
        quoted = "\n".join(prefix + line if line.strip() else prefix.rstrip() for line in text.splitlines())
        found = collect_env.find(quoted)
        assert found is not None
        assert found.fields == plain.fields and found.libraries == plain.libraries


# Printed torch.cuda.memory_snapshot() segments as a debugger shows them (blocks elided to {...}), from a
# public repository's notes on Stable Diffusion's memory (a Markdown file of the stored index, id
# 48193640481): the notes' own memory_reserved (1558 MiB) and memory_allocated (522 MiB) beside them.
SD_NOTES_SNAPSHOT = """\
memory_allocated : 522.0 MiB, 534528.0 KiB
memory_reserved : 1558.0 MiB
nvidia-smi : 1558.0 add 620.0 = 2178.0 MiB

0:
{'device': 6, 'address': 140197194891264, 'total_size': 1073741824, 'allocated_size': 0, 'active_size': 0, \
'stream': 0, 'segment_type': 'large', 'blocks': [{...}]}
1:
{'device': 6, 'address': 140198268633088, 'total_size': 536870912, 'allocated_size': 536870912, \
'active_size': 536870912, 'stream': 0, 'segment_type': 'large', 'blocks': [{...}]}
2:
{'device': 6, 'address': 140198805504000, 'total_size': 20971520, 'allocated_size': 10485760, \
'active_size': 10485760, 'stream': 0, 'segment_type': 'large', 'blocks': [{...}, {...}, {...}]}
3:
{'device': 6, 'address': 140198830669824, 'total_size': 2097152, 'allocated_size': 0, 'active_size': 0, \
'stream': 0, 'segment_type': 'small', 'blocks': [{...}]}
"""


def test_printed_snapshot_segments_give_the_allocator_totals_of_their_device() -> None:
    found = memory_snapshot.find(SD_NOTES_SNAPSHOT)
    assert found is not None and len(found.segments) == 4
    (device,) = found.facts()["allocator"]["devices"]
    assert device["device"] == 6
    assert device["reserved_bytes"] == 1558 * 2**20  # the notes' memory_reserved
    assert device["allocated_bytes"] == 522 * 2**20  # the notes' memory_allocated
    # 10 MiB free inside the segment that also holds 10 MiB in use: empty_cache() cannot release it
    assert device["inactive_split_bytes"] == 10 * 2**20
    # the blocks were not printed: the largest free block is unknown, not zero
    assert device["largest_free_block_bytes"] is None
    data = saved.from_text(SD_NOTES_SNAPSHOT, "notes")
    assert data["memory_snapshot"]["devices"] == [6]
    (verdict,) = support.judged(["gpu.fragmentation"], data["facts"])
    assert "cuda:6: 1558 MB reserved, 522 MB allocated" in verdict.summary
    assert any("memory_snapshot() segments (4 segments)" in str(line) for line in verdict.details)


# A constructed snapshot with its blocks printed (the shape torch 2.x prints: Module.cpp's segment and block
# dicts), one large segment cut into a used block between two free ones.
WITH_BLOCKS = str(
    [
        {
            "device": 0,
            "address": 139_000_000_000_000,
            "total_size": 1024 * 2**20,
            "allocated_size": 512 * 2**20,
            "active_size": 512 * 2**20,
            "requested_size": 512 * 2**20,
            "stream": 0,
            "segment_type": "large",
            "segment_pool_id": (0, 0),
            "is_expandable": False,
            "frames": [],
            "blocks": [
                {"address": 1, "size": 256 * 2**20, "requested_size": 0, "state": "inactive", "frames": []},
                {"address": 2, "size": 512 * 2**20, "requested_size": 1, "state": "active_allocated"},
                {"address": 3, "size": 256 * 2**20, "requested_size": 0, "state": "inactive", "frames": []},
            ],
        }
    ]
)


def test_printed_blocks_give_the_largest_free_block_and_the_fragmentation() -> None:
    found = memory_snapshot.find(WITH_BLOCKS)
    assert found is not None
    (device,) = found.facts()["allocator"]["devices"]
    (pool,) = device["pools"]
    assert pool["free_bytes"] == 512 * 2**20 and pool["largest_free_block_bytes"] == 256 * 2**20
    assert pool["external_fragmentation"] == 0.5
    assert pool["inactive_split_bytes"] == 512 * 2**20 and pool["free_blocks"] == 2
    data = saved.foreign_report(WITH_BLOCKS, "snapshot")
    assert data is not None
    (verdict,) = support.judged(["gpu.fragmentation"], data["facts"])
    assert verdict.status.value in ("warn", "fail")


def test_snapshot_text_that_is_cut_off_or_not_a_segment_is_not_read() -> None:
    assert memory_snapshot.find(WITH_BLOCKS[: len(WITH_BLOCKS) // 2]) is None
    assert memory_snapshot.find("{'device': 0, 'total_size': 'many'}") is None
    assert memory_snapshot.find("{'device': 0, 'total_size': __import__('os')}") is None


def test_the_snapshot_reader_is_linear_on_hostile_text() -> None:
    assert linear(memory_snapshot.find, lambda n: "{'device': [" * (n // 12), 64 * 2**10)
    assert linear(memory_snapshot.find, lambda n: "{'device': 0, 'total_size': 1}" * (n // 30), 64 * 2**10)
    assert linear(memory_snapshot.find, lambda n: "{'device': '" + "x" * n, 64 * 2**10)


# Real --query-gpu and --query-compute-apps CSV pasted together: an experiment log of a public repository
# (stored index id 57070576593; eight 141 GiB GPUs, the processes named through gpu_uuid, one process name
# nvidia-smi could not resolve) and a deploy note of another (id 65981223827; one L40S, so its processes
# need no uuid).
EXPERIMENT_LOG = """\
## Before
index, uuid, memory.used [MiB], memory.total [MiB], utilization.gpu [%]
0, GPU-a44622e3-2296-6285-0a86-84d0f6c67900, 130013 MiB, 143771 MiB, 100 %
1, GPU-4f31bb83-f8dc-d0af-029e-bc4356e6afeb, 130053 MiB, 143771 MiB, 100 %
2, GPU-4e9e74b7-4977-f04d-3af3-ccfe5f570e90, 105851 MiB, 143771 MiB, 100 %
3, GPU-02dbe542-8a6f-11a4-7c2a-486b7d4e9092, 129993 MiB, 143771 MiB, 100 %
4, GPU-cb449822-5571-be90-8303-e7558da3ea66, 106091 MiB, 143771 MiB, 100 %
5, GPU-8e137fa6-c3d9-6980-7733-0d8df296756e, 105851 MiB, 143771 MiB, 100 %
6, GPU-d9337494-6060-1440-039f-4654245b5764, 106139 MiB, 143771 MiB, 100 %
7, GPU-28780eb0-24d5-1f13-59b8-ae5c23617a72, 58071 MiB, 143771 MiB, 0 %

gpu_uuid, pid, process_name, used_gpu_memory [MiB]
GPU-a44622e3-2296-6285-0a86-84d0f6c67900, 1328667, /usr/local/bin/python3.10, 130004 MiB
GPU-4f31bb83-f8dc-d0af-029e-bc4356e6afeb, 1328668, /usr/local/bin/python3.10, 130044 MiB
GPU-4e9e74b7-4977-f04d-3af3-ccfe5f570e90, 1425258, python3, 105842 MiB
GPU-02dbe542-8a6f-11a4-7c2a-486b7d4e9092, 1328669, /usr/local/bin/python3.10, 129984 MiB
GPU-cb449822-5571-be90-8303-e7558da3ea66, 1425259, python3, 105842 MiB
GPU-8e137fa6-c3d9-6980-7733-0d8df296756e, 1425260, python3, 105842 MiB
GPU-d9337494-6060-1440-039f-4654245b5764, 1425261, python3, 105842 MiB
GPU-28780eb0-24d5-1f13-59b8-ae5c23617a72, 1758887, [Not Found], 58060 MiB
"""
L40S_NOTE = """\
index, name, memory.total [MiB], memory.used [MiB], memory.free [MiB]
0, NVIDIA L40S, 46068 MiB, 9123 MiB, 36346 MiB

pid, process_name, used_gpu_memory [MiB]
44378, tritonserver, 1836 MiB
44966, /opt/tritonserver/backends/python/triton_python_backend_stub, 974 MiB
52114, /usr/bin/python3, 6294 MiB
"""


def test_real_query_csv_attaches_the_compute_apps_to_their_gpus() -> None:
    found = nvidia_smi_csv.find(EXPERIMENT_LOG)
    assert found is not None
    facts = found.facts()
    gpus = facts["nvml"]["gpus"]
    assert len(gpus) == 8 and gpus[7]["uuid"] == "GPU-28780eb0-24d5-1f13-59b8-ae5c23617a72"
    assert gpus[0]["memory_total_bytes"] == 143771 * 2**20
    assert [p["pid"] for p in gpus[2]["processes"]] == [1425258]
    assert gpus[7]["processes"][0]["used_memory_bytes"] == 58060 * 2**20
    assert facts["gpu_processes"]["processes"]["1328667"]["name"] == "/usr/local/bin/python3.10"
    one = nvidia_smi_csv.find(L40S_NOTE)
    assert one is not None
    (l40s,) = one.facts()["nvml"]["gpus"]
    assert [p["pid"] for p in l40s["processes"]] == [44378, 44966, 52114]
    assert l40s["memory_used_bytes"] == 9123 * 2**20


# A DGX Spark's GB10 shares the system's memory, and nvidia-smi says so in its table ("Not Supported" in
# Memory-Usage: xorbitsai/inference#4882) and in its CSV ("[N/A]": XuehaiPan/nvitop#208, whose NVML answers
# NOT_SUPPORTED on the same machine, and unslothai/unsloth#10283).
GB10_TABLE = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 580.142                Driver Version: 580.142        CUDA Version: 13.0     |
+-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA GB10                    On  |   0000000F:01:00.0 Off |                  N/A |
| N/A   38C    P8              4W /  N/A  | Not Supported          |      0%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
"""
GB10_CSV = (
    "$ nvidia-smi --query-gpu=memory.total,memory.used,memory.free,utilization.gpu,power.draw,"
    "temperature.gpu --format=csv\n"
    "memory.total [MiB], memory.used [MiB], memory.free [MiB], utilization.gpu [%], power.draw [W], "
    "temperature.gpu\n"
    "[N/A], [N/A], [N/A], 0 %, 11.17 W, 35\n"
)


def test_a_gpu_whose_memory_nvidia_smi_does_not_report_is_read_as_nvml_answers_it() -> None:
    from torchdoctor.checks.memory.memory_check import CHECK

    for text in (GB10_TABLE, GB10_CSV):
        facts = saved.from_text(text, "issue")["facts"]
        (gpu,) = facts["nvml"]["gpus"]
        assert gpu["errors"] == {"memory": "NotSupported"} and "memory_total_bytes" not in gpu, gpu
        verdict = CHECK.judge({probe.name: facts[probe.name] for probe in CHECK.probes}, {})
        assert verdict.status.value == "skip", verdict
        assert "has no memory of its own" in verdict.summary
