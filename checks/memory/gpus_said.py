"""How many GPUs a pasted text says the machine has ("8 GPUs on my node", "two GPUs", "RTX 4090 * 4卡",
"4张10G 3080"), and whether the job already runs on several of them (a launcher with several processes,
DataParallel, a model split by device_map)."""

from __future__ import annotations

import re
from itertools import islice

_WORDS = {"two": 2, "three": 3, "four": 4, "eight": 8}
_NUMBER = rf"(\d{{1,2}}|{'|'.join(_WORDS)})"
_MODEL = r"(?:NVIDIA\s)?(?:RTX|GTX|Tesla|Quadro|TITAN|[AHLVP]\d{2,3}|[1-5]0[5-9]0)[\w -]{0,12}?"
# "8 GPUs", "two GPUs", "4 x A100 GPUs", "2 RTX 3090 cards"; "4x A100", "8×V100"; "RTX 4090 * 4", "A100 x 8";
# "4卡", "4张卡", "4块3090" (Chinese counts cards with 张 and 块).
_MACHINE_GPUS = re.compile(
    rf"(?<![\w.]){_NUMBER}\s{{0,2}}(?:[x×*]\s{{0,2}})?(?:[\w-]{{1,20}}\s){{0,2}}?"
    r"(?:GPUs|cards|graphics cards)\b"
    rf"|(?<![\w.])(\d{{1,2}})\s{{0,2}}[x×*]\s{{0,2}}{_MODEL}(?![\w])"
    rf"|\b{_MODEL}\s{{0,2}}[x×*]\s{{0,2}}(\d{{1,2}})(?!\d)"
    r"|(?<!\d)(\d{1,2})\s?(?:张|块)|(?<!\d)(\d{1,2})\s?卡",
    re.IGNORECASE,
)
# One process per GPU: a launcher's count above one, a log's rank above 0 ("[rank7]:"), DDP (mmengine's
# MMDistributedDataParallel too), DeepSpeed, FSDP.
_PROCESSES = (
    r"--?nproc[_-]per[_-]node[= ]\s{0,2}(?:[2-9]|\d{2})\b|\bNPROC_PER_NODE=\s?(?:[2-9]|\d{2})\b"
    r"|--num[_-]processes[= ]\s{0,2}(?:[2-9]|\d{2})\b|\[rank[1-9]\d{0,3}\]"
    r"|DistributedDataParallel\b|\bdeepspeed\b|\bFSDP\b|FullyShardedDataParallel"
)
# ASCII: in Chinese text the words touch the characters around them ("中的deepspeed"), which Unicode's \b
# counts as letters
_SEVERAL_PROCESSES = re.compile(_PROCESSES, re.IGNORECASE | re.ASCII)
# The job on several GPUs already: several processes, DataParallel, a split model.
_ALREADY_SPREAD = re.compile(
    rf"{_PROCESSES}|\bDataParallel\b|device_map\s{{0,3}}=\s{{0,3}}[\"'](?:auto|balanced)",
    re.IGNORECASE | re.ASCII,
)
# The training state sharded by ZeRO stage 3 or FSDP; with a model split by device_map, the model's state
# sharded over the processes already.
_STATE_SHARDING = (
    r"zero[_ -]?(?:stage)?[_ :=\"']{0,3}3\b|\bzero3\b|\bFSDP\b|FullyShardedDataParallel|full_shard"
)
_STATE_SHARDED = re.compile(_STATE_SHARDING, re.IGNORECASE | re.ASCII)
_SHARDED = re.compile(rf"{_STATE_SHARDING}|device_map\s{{0,3}}=", re.IGNORECASE | re.ASCII)
_OFFLOADED = re.compile(r"\boffload(?:_optimizer|_param)?\b|cpu_offload", re.IGNORECASE | re.ASCII)


_COUNTS_READ = 40  # a bound on the counts looked at, however long the text


def machine_gpus(text: str) -> tuple[int, str] | None:
    """The number of GPUs the text says the machine has (two or more: the largest count it gives, as "8 GPUs
    on my node ... all other 7 GPUs" says 8), with the words that say it."""
    counts: list[tuple[int, str]] = []
    for found in islice(_MACHINE_GPUS.finditer(text), _COUNTS_READ):
        said = next(group for group in found.groups() if group)
        counts.append((_WORDS.get(said.lower()) or int(said), " ".join(found[0].split())))
    if not counts:
        return None
    count, words = max(counts, key=lambda item: item[0])
    return (count, words) if count >= 2 else None


def already_spread(text: str) -> bool:
    """Whether the text shows the job on several GPUs already."""
    return _ALREADY_SPREAD.search(text) is not None


def replicated(text: str) -> str | None:
    """What in the text shows one process per GPU, each with a whole copy of the model (data parallel, ZeRO
    stage 1 or 2), or None: one process, or the model's state sharded already."""
    if _SHARDED.search(text) is not None:
        return None
    found = _SEVERAL_PROCESSES.search(text)
    return None if found is None else " ".join(found[0].split())


def state_sharded(text: str) -> tuple[str, bool] | None:
    """What in the text shows the model's training state sharded over the processes (ZeRO stage 3, FSDP), and
    whether the text offloads it to the CPU too; None where it shows neither."""
    found = _STATE_SHARDED.search(text)
    if found is None:
        return None
    return " ".join(found[0].split()), _OFFLOADED.search(text) is not None
