"""The GPUs a pasted text says the machine has, and whether the job already runs on several."""

from __future__ import annotations

import pytest

from torchdoctor.checks.memory import gpus_said


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("I have 8 GPUs on my node ... not utilising all other 7 GPUs", 8),  # the largest count said
        ("a node of 8 GPUs, of which two GPUs are free", 8),  # the largest count, not the last words
        ("run the model with two GPUs and `nproc_per_node=1`", 2),
        ("three GPUs", 3),
        ("four GPUs", 4),
        ("eight GPUs", 8),
        ("我的配置是RTX 4090 * 4卡", 4),
        ("设备是4张10G 3080", 4),
        ("a machine with 4x A100 80GB", 4),
        ("training on 2 RTX 3090 cards", 2),
    ],
)
def test_the_count_of_gpus_the_writer_gives_is_read(text: str, count: int) -> None:
    found = gpus_said.machine_gpus(text)
    assert found is not None and found[0] == count, found


@pytest.mark.parametrize(
    "text",
    [
        "one GPU only",
        "1 GPU",
        "on 1 x A100 80GB",  # one is no several
        "an image of 224x224 and a 2x1024 grid",
        "3090显卡",  # a model number, not a count
        "batch size 16, 512x512 crops",
    ],
)
def test_no_count_is_read_where_the_text_gives_none(text: str) -> None:
    assert gpus_said.machine_gpus(text) is None


def test_a_job_already_on_several_gpus_is_told() -> None:
    assert gpus_said.already_spread("torchrun --nproc_per_node=4 train.py")
    assert gpus_said.already_spread("model = nn.DataParallel(model)")
    assert gpus_said.already_spread('AutoModel.from_pretrained(name, device_map="auto")')
    assert not gpus_said.already_spread("python -m torch.distributed.launch --nproc_per_node=1 train.py")


def test_the_counts_read_are_bounded_however_long_the_text() -> None:
    assert gpus_said.machine_gpus("2 GPUs, " * 39 + "8 GPUs") == (8, "8 GPUs")
    assert gpus_said.machine_gpus("2 GPUs, " * 40 + "8 GPUs") == (2, "2 GPUs")
