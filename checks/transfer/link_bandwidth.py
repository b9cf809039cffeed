"""What a host link should carry, and the grade of a measured copy against it. Pure.

Figures and rule from research/memory_bandwidth.md §2.5 and §2.9:

- theoretical one-direction rate ``T = per-lane rate of the generation x width`` for PCIe
  (after 8b/10b or 128b/130b encoding), 450 GB/s for NVLink-C2C (Grace Hopper, Grace Blackwell);
- expected pinned copy-engine rate ``E = eta x T``, eta = 0.80 for PCIe Gen1-4, 0.85 for Gen5,
  0.78 for C2C (medians of published nvbandwidth and bandwidthTest results);
- ``pass`` at or above 85 % of E, ``warn`` from 60 %, ``fail`` below.

Healthy systems land in pass: Gen5 x16 passes from 45.5 GB/s (H100/H800 measure 53-57), Gen4
x16 from 21.4 (A100 25.7), Gen3 x16 from 10.7 (P100 12.2).
"""

from __future__ import annotations

from dataclasses import dataclass

# GB/s per lane and direction, after encoding (hpc-notes.pages.dev/reference/pcie).
# Gen6: 64 GT/s PAM4 in 256-byte FLITs of which 242 bytes carry data (PCI-SIG PCIe 6.0 base specification:
# 236 B TLP payload + 6 B DLP; 8 B CRC and 6 B FEC per FLIT): 64 / 8 x 242 / 256 = 7.5625 GB/s per lane.
PER_LANE_GBPS = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.5625}
C2C_GBPS = 450.0
ETA_PCIE = 0.80
ETA_PCIE_GEN5 = 0.85  # Gen5 and later
ETA_C2C = 0.78
PASS_AT = 0.85
WARN_FROM = 0.60


@dataclass(frozen=True)
class Expected:
    link: str  # "PCIe Gen5 x16" or "NVLink-C2C"
    theoretical_gbps: float
    expected_gbps: float

    @property
    def pass_gbps(self) -> float:
        return self.expected_gbps * PASS_AT

    @property
    def fail_below_gbps(self) -> float:
        return self.expected_gbps * WARN_FROM


def pcie_label(gen: int | None, width: int | None) -> str:
    return f"PCIe Gen{gen if gen is not None else '?'} x{width if width is not None else '?'}"


def expected(gen: int | None, width: int | None, c2c: bool = False) -> Expected | None:
    """The expected pinned rate of a link; None when the link is not known well enough."""
    if c2c:
        return Expected("NVLink-C2C", C2C_GBPS, round(C2C_GBPS * ETA_C2C, 2))
    if gen not in PER_LANE_GBPS or not width:
        return None
    assert gen is not None
    theoretical = PER_LANE_GBPS[gen] * width
    eta = ETA_PCIE_GEN5 if gen >= 5 else ETA_PCIE
    return Expected(pcie_label(gen, width), round(theoretical, 2), round(theoretical * eta, 2))


def grade(measured_gbps: float, target: Expected) -> str:
    """``pass``, ``warn`` or ``fail`` by the share of the expected rate."""
    share = measured_gbps / target.expected_gbps
    if share >= PASS_AT:
        return "pass"
    return "warn" if share >= WARN_FROM else "fail"
