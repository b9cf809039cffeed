"""What a pasted text shows of a torch without XPU support: the extension's and torch's releases, the GPU."""

from __future__ import annotations

from torchdoctor.checks.install import xpu_build


def test_a_cpu_release_of_the_extension_is_told_from_an_xpu_build() -> None:
    cpu = xpu_build.evidence("intel-extension-for-pytorch 1.11.08\ntorch 1.11.0", "1.11.0", None)
    assert cpu[0] == (
        "the text shows intel-extension-for-pytorch 1.11.08: a release without +xpu: a CPU build of the "
        "extension, with no XPU support"
    )
    assert cpu[1] == "the text shows torch 1.11.0"
    xpu = xpu_build.evidence("ipex=2.1.10+xpu", None, None)
    assert xpu == ("the text shows intel-extension-for-pytorch 2.1.10+xpu: an XPU build",)
    gpu_build = xpu_build.evidence("intel_extension_for_pytorch==1.10.200+gpu", None, None)
    assert gpu_build[0].endswith(": an XPU build")


def test_the_gpu_the_text_names_says_which_device_the_program_needs() -> None:
    intel = xpu_build.evidence("GPU : Intel Arc A750 8GB", None, None)
    assert intel == ("the text names an Intel GPU (Intel Arc A750): torch's XPU build can use it",)
    lower = xpu_build.evidence("my intel arc a770, on Windows", None, None)
    assert lower == ("the text names an Intel GPU (intel arc a770): torch's XPU build can use it",)
    nvidia = xpu_build.evidence("device = 'xpu'", None, "RTX 3090")
    assert nvidia == ("the text names an NVIDIA GPU (RTX 3090): the program's device is 'cuda', not xpu",)
    message = "RuntimeError: PyTorch is not linked with support for xpu devices"
    assert xpu_build.evidence(message, None, None) == ()
