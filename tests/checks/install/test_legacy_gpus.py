"""torch.build on a collect_env dump of a GPU whose driver support has ended (a Fermi GPU on its last branch,
R390; a Kepler GPU on R470), known by its model name alone: the verdict names the branch the GPU ends on and
never says to update the driver past it."""

from __future__ import annotations

import pytest

from torchdoctor.checks.install.build_check import CHECK
from torchdoctor.inputs import collect_env
from torchdoctor.model import Status

# The fields torch's collect_env prints, filled in for each case below (test input, not a recorded machine).
_DUMP = """PyTorch version: {torch}
Is debug build: False
CUDA used to build PyTorch: {cuda}
ROCM used to build PyTorch: N/A

OS: Ubuntu 20.04.6 LTS (x86_64)
GCC version: (Ubuntu 9.4.0-1ubuntu1~20.04.2) 9.4.0
Clang version: Could not collect
CMake version: Could not collect
Libc version: glibc-2.31

Python version: 3.10.12 (main, Jun 11 2023, 05:26:28) [GCC 9.4.0] (64-bit runtime)
Python platform: Linux-5.15.0-91-generic-x86_64-with-glibc2.31
Is CUDA available: False
CUDA runtime version: No CUDA
GPU models and configuration: GPU 0: {gpu}
Nvidia driver version: {driver}
cuDNN version: Could not collect

Versions of relevant libraries:
[pip3] torch=={torch}
"""


@pytest.mark.parametrize(
    ("gpu", "driver", "torch", "cuda", "branch"),
    [
        ("GeForce GTX 550 Ti", "390.157", "2.1.0+cu118", "11.8", "R390 branch"),
        ("GeForce GT 540M", "390.157", "2.0.1+cu117", "11.7", "R390 branch"),
        ("NVIDIA GeForce GTX 660", "470.223.02", "2.1.0+cu121", "12.1", "R470 branch"),
        ("Quadro K4000", "470.223.02", "2.3.1+cu121", "12.1", "R470 branch"),
    ],
)
def test_a_gpu_past_its_last_driver_branch_is_not_told_to_update_the_driver(
    gpu: str, driver: str, torch: str, cuda: str, branch: str
) -> None:
    dump = collect_env.find(_DUMP.format(gpu=gpu, driver=driver, torch=torch, cuda=cuda))
    assert dump is not None
    facts = dump.to_report("machine")["facts"]
    verdict = CHECK.judge({probe.name: facts.get(probe.name, {}) for probe in CHECK.probes}, {})
    text = " ".join([verdict.summary, *map(str, verdict.details)])
    assert verdict.fix is not None
    text += " " + verdict.fix.text + " " + " ".join(verdict.fix.commands)
    assert verdict.status is Status.FAIL, text
    assert branch in text, text
    assert "Update the NVIDIA driver" not in text, text
