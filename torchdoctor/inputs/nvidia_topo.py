"""``nvidia-smi topo -m`` output found in a text, read into ``topology`` facts: how each pair of GPUs is
connected.

The matrix's legend (nvidia-smi): ``X`` self; ``NV#`` NVLink with # links; ``PIX`` at most one PCIe bridge;
``PXB`` several PCIe bridges, no host bridge; ``PHB`` through a PCIe host bridge (the CPU); ``NODE`` across
host bridges of one NUMA node; ``SYS`` (``SOC`` before driver 384) across the SMP interconnect between NUMA
nodes. A pair on PIX or PXB talks peer to peer through a PCIe switch, which is where PCI Access Control
Services (ACS) and the IOMMU redirect (or block) peer-to-peer traffic (NCCL troubleshooting, "PCI Access
Control Services").

Facts (``topology``): ``source``, ``gpus`` (the GPU names of the header, ``GPU0``...), ``nics`` (the other
columns: ``NIC0``, ``mlx5_0``), ``links`` (each pair of GPUs once: ``a``, ``b``, ``link``), ``through_switch``
(the pairs on PIX or PXB), ``nvlink`` (the pairs on NV#). What the matrix does not say (whether ACS is on,
whether P2P works) is not in the facts. Bounded: ``MAX_CHARS`` from the header, ``MAX_GPUS`` GPUs, lines of
``MAX_LINE`` characters, split on white space.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from torchdoctor.inputs import foreign

MAX_CHARS = 32 * 1024
MAX_GPUS = 64
MAX_LINE = 1200
MAX_TRIES = 64
LINKS = frozenset({"X", "PIX", "PXB", "PHB", "NODE", "SYS", "SOC"})
SWITCHED = frozenset({"PIX", "PXB"})


def _is_link(token: str) -> bool:
    return token in LINKS or (token.startswith("NV") and token[2:].isdigit() and len(token) <= 5)


def _is_device(token: str) -> bool:
    return (token.startswith(("GPU", "NIC")) and token[3:].isdigit()) or (
        token.startswith("mlx") and "_" in token and len(token) <= 16
    )


@dataclass(frozen=True)
class Topology:
    gpus: tuple[str, ...]
    nics: tuple[str, ...]
    links: tuple[tuple[int, int, str], ...]

    def facts(self) -> dict[str, Any]:
        def pair(a: int, b: int, link: str) -> dict[str, Any]:
            return {"a": a, "b": b, "link": link}

        return {
            "source": "nvidia-smi topo -m",
            "gpus": list(self.gpus),
            "nics": list(self.nics),
            "links": [pair(*link) for link in self.links],
            "through_switch": [pair(*link) for link in self.links if link[2] in SWITCHED],
            "nvlink": [pair(*link) for link in self.links if link[2].startswith("NV")],
        }

    def to_report(self, name: str) -> dict[str, Any]:
        """A saved report whose one fact is this matrix (no check judges it; explanations read it)."""
        marker = {"source": name, "gpus": len(self.gpus)}
        return foreign.report({"topology": self.facts()}, {}, nvidia_topo=marker)

    def describe(self, pairs: int = 6) -> str:
        """``GPU0-GPU1 PXB, GPU2-GPU3 PIX`` for the pairs through a PCIe switch (the first ``pairs``)."""
        switched = [f"GPU{a}-GPU{b} {link}" for a, b, link in self.links if link in SWITCHED]
        more = f" and {len(switched) - pairs} more" if len(switched) > pairs else ""
        return ", ".join(switched[:pairs]) + more


def find(text: str) -> Topology | None:
    """The first ``nvidia-smi topo -m`` matrix of ``text`` with at least two GPUs, or None."""
    at = text.find("GPU0")
    tries = 0
    while at >= 0 and tries < MAX_TRIES:
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        if "GPU1" in text[at:end]:  # a header names GPU0 and GPU1 on one line
            tries += 1
            begin = text.rfind("\n", 0, at) + 1
            found = _read(text[begin : begin + MAX_CHARS].splitlines())
            if found is not None:
                return found
        at = text.find("GPU0", end)
    return None


def _read(lines: list[str]) -> Topology | None:
    if not lines or len(lines[0]) > MAX_LINE:
        return None
    header = _tokens(lines[0])
    columns: list[str] = []
    for token in header:
        if not _is_device(token):
            break
        columns.append(token)
    gpus = [c for c in columns if c.startswith("GPU")]
    if len(gpus) < 2 or columns[0] != "GPU0" or len(gpus) > MAX_GPUS:
        return None
    links: dict[tuple[int, int], str] = {}
    rows = 0
    for raw in lines[1 : 1 + len(columns)]:
        if len(raw) > MAX_LINE:
            break
        cells = _tokens(raw)
        if not cells or not cells[0].startswith("GPU") or not cells[0][3:].isdigit():
            break
        row = int(cells[0][3:])
        values = cells[1 : 1 + len(columns)]
        if len(values) < len(columns) or not all(_is_link(v) for v in values):
            break
        rows += 1
        for column, value in zip(columns, values[: len(columns)], strict=True):
            if column.startswith("GPU") and value != "X":
                other = int(column[3:])
                links.setdefault((min(row, other), max(row, other)), value)
    if rows < 2:
        return None
    return Topology(
        tuple(gpus),
        tuple(c for c in columns if not c.startswith("GPU")),
        tuple((a, b, link) for (a, b), link in sorted(links.items())),
    )


def _tokens(line: str) -> list[str]:
    stripped = line.strip()
    while stripped.startswith(">"):
        stripped = stripped[1:].lstrip()
    return stripped.split()
