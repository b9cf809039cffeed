"""Probes more than one area needs: the torch build and what the CUDA driver exposes, with NVML and the
environment, each named by its target so that a check's declaration imports none of them."""

from torchdoctor.plugin import Probe

TORCH = Probe("torch", "torchdoctor.checks.probes.torch_probe:probe")
CUDA_DRIVER = Probe("cuda_driver", "torchdoctor.checks.probes.cuda_driver_probe:probe")
NVML = Probe("nvml", "torchdoctor.machine.nvml:probe")
"""``torchdoctor.machine.nvml.PROBE``, named here without importing NVML's facade."""
ENV = Probe("env", "torchdoctor.machine.envvars:probe")
"""``torchdoctor.machine.envvars.PROBE``, named here without importing the redaction rules' module."""
