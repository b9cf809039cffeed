"""nvidia-*-cuNN wheels of another CUDA than torch's build, as a collect_env dump lists them. The versions
are published ones: nvidia-cudnn-cu11 8.5.0.96 (the wheel torch 1.13's CUDA 11.7 build pins) and
nvidia-cublas-cu12 12.1.3.1 (torch 2.1's CUDA 12.1 build)."""

from __future__ import annotations

from torchdoctor.checks.install import companions_judge
from torchdoctor.model import Status

CU121 = {"version": "2.1.0+cu121", "flavor": "cuda", "cuda": "12.1"}
WHEELS = {"nvidia-cudnn-cu11": "8.5.0.96", "nvidia-cublas-cu12": "12.1.3.1"}


def test_a_cuda_11_wheel_beside_a_cuda_12_torch_is_named() -> None:
    (finding,) = companions_judge.findings(CU121, {"installed": WHEELS}, {})
    assert finding.status is Status.WARN
    assert finding.summary.startswith(
        "1 nvidia-* wheel(s) of CUDA 11 beside torch 2.1.0+cu121, a CUDA 12.1 build: torch loads its own"
    )
    assert finding.details == ("nvidia-cudnn-cu11 8.5.0.96",)
    assert finding.fix is not None and finding.fix.commands == ("pip show nvidia-cudnn-cu11",)


def test_wheels_of_torchs_own_cuda_and_builds_without_cuda_say_nothing() -> None:
    own = {"nvidia-cublas-cu12": "12.1.3.1"}
    assert companions_judge.findings(CU121, {"installed": own}, {}) == []
    cpu = {"version": "2.1.0+cpu", "flavor": "cpu", "cuda": None}
    assert companions_judge.findings(cpu, {"installed": WHEELS}, {}) == []
    rocm = {"version": "2.1.0+rocm5.6", "flavor": "rocm", "cuda": None, "hip": "5.6"}
    assert companions_judge.findings(rocm, {"installed": WHEELS}, {}) == []
