"""A message pasted from a terminal or a rendered page often breaks its line where it has a space, and a
writer often quotes a message without its tail: an entry's pattern still recognises it. The texts are real:
the threads named, and logs pasted in public repositories' notes (found by the search tool's file index,
which names no repository)."""

from __future__ import annotations

import pytest

from torchdoctor.explain import catalogue, explain
from torchdoctor.explain.model import any_space

ENTRIES = catalogue.installed()


def _ids(text: str) -> list[str]:
    return [e.id for e in explain(text, ENTRIES)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # https://github.com/guoqincode/Open-AnimateAnyone/issues/114
            "NVIDIA H100 PCIe with CUDA capability\nsm_90 is not compatible with the current PyTorch "
            "installation.\nThe current PyTorch\ninstall supports CUDA capabilities sm_37 sm_50 sm_60 sm_70 "
            "sm_75 sm_80 sm_86.",
            "cuda.no_kernel_image",
        ),
        (  # a V100 job's log, pasted in a repository's notes (index file 70605160377)
            "torch.AcceleratorError: CUDA error: no kernel image is available for\nexecution on the device",
            "cuda.no_kernel_image",
        ),
        (  # an RTX PRO 6000's warning, pasted in a repository's notes (index file 52418446421)
            "UserWarning: NVIDIA RTX PRO 6000 Blackwell Workstation Edition with CUDA capability\n"
            "sm_120 is not compatible with the current PyTorch installation.",
            "cuda.no_kernel_image",
        ),
        (  # a model's index_select, pasted in a repository's notes (index file 68292013770)
            "RuntimeError: Expected all tensors to be on the same\ndevice, but got index is on cuda:0, "
            "different from other tensors on\ncpu (wrapper_CUDA__index_select)",
            "tensors.different_devices",
        ),
    ],
)
def test_a_message_broken_across_lines_is_recognised(text: str, expected: str) -> None:
    assert expected in _ids(text)


@pytest.mark.parametrize(
    "text",
    [
        # https://github.com/yuval-alaluf/Attend-and-Excite/issues/7 (reinstalled torch as a CUDA build)
        'I have this error : "CUDA error : no kernel image is available for execution" on line 91 of '
        "pipeline_stable_diffusion.py.",
        # https://github.com/facebookresearch/detectron2/issues/512 (the answer: the torch build lacks sm_35)
        'Unable To Fix "no kernel image is available for execution" Error',
        # https://github.com/pytorch/pytorch/issues/72957 (its title)
        "no kernel image is available",
    ],
)
def test_a_message_quoted_without_its_tail_is_recognised(text: str) -> None:
    assert "cuda.no_kernel_image" in _ids(text)


def test_only_a_written_space_is_widened() -> None:
    widened = any_space(r"a b[ x]c\ d")
    assert widened.startswith("a[\\s") and widened.endswith("]{1,256}b[ x]c\\ d"), widened


def test_a_space_stays_one_character_in_a_look_behind_and_under_its_own_quantifier() -> None:
    # a look-behind must have a fixed width; " ?" and " {0,3}" quantify the space itself
    assert "{1,256}" not in any_space(r"(?<!device but )x") and "{1,256}" not in any_space(r"a ?b")
    assert any_space(r"a {0,3}b").endswith("]{0,3}b")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # kohya-ss/sd-scripts#1597: a logger that indents its continuation lines
            "02:54:18-197331 ERROR    Could not load torch: [WinError 126] Das angegebene Modul wurde nicht "
            'gefunden. Error loading\n                         "P:\\AI\\kohya_ss\\venv\\lib\\site-packages\\'
            'torch\\lib\\fbgemm.dll" or one of its dependencies.',
            "lib.cannot_open_shared_object",
        ),
        (  # constructed in rich's console layout: a line padded to the width, its continuation indented
            "[12/01/24 10:00:00] ERROR    RuntimeError: Expected all tensors to be on the same"
            + " " * 40
            + "\n"
            + " " * 29
            + "device, but found at least two devices, cuda:0 and cpu!",
            "tensors.different_devices",
        ),
    ],
)
def test_a_message_a_logger_pads_and_indents_is_recognised(text: str, expected: str) -> None:
    assert expected in _ids(text)


def test_a_space_of_a_page_or_of_chinese_text_stands_for_a_space() -> None:
    # patterns compile with re.ASCII, whose \\s is ASCII's alone: a written space still takes a no-break space
    # (a rendered page) or the ideographic one (constructed)
    assert "cuda.out_of_memory" in _ids("RuntimeError: CUDA\xa0out of memory. Tried to allocate 2.00 GiB")
    assert "torch.not_compiled_with_cuda" in _ids("Torch\u3000not compiled with CUDA enabled")
