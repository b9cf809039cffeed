"""What a distributed error message means: stable fragments of torch, gloo and NCCL messages.

The fragments are those the research note ddp_dryrun.md (sections 3 and 5) lists as stable across
torch versions, most of them reproduced verbatim with torch 2.13 and gloo. A *root* kind is
something wrong with the rank itself or its set-up; a *consequence* is a rank that was waiting on a
peer that died, hung or never came.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ROOT = "root"
CONSEQUENCE = "consequence"


@dataclass(frozen=True)
class Signature:
    kind: str
    role: str
    fragments: tuple[str, ...]
    meaning: str


SIGNATURES: tuple[Signature, ...] = (
    Signature(
        "port_in_use",
        ROOT,
        ("EADDRINUSE", "Address already in use", "errno: 98"),
        "MASTER_PORT is already in use on the master",
    ),
    Signature(
        "master_unresolvable",
        ROOT,
        ("gai error", "Name or service not known", "nodename nor servname"),
        "MASTER_ADDR does not resolve",
    ),
    Signature(
        "gloo_interface",
        ROOT,
        ("Unable to find address for", "connectFullMesh failed"),
        "gloo cannot use the network interface it was given or chose",
    ),
    Signature(
        "duplicate_gpu",
        ROOT,
        ("Duplicate GPU detected",),
        "two ranks use the same GPU (NCCL refuses this)",
    ),
    Signature(
        "nccl_system_error",
        ROOT,
        ("unhandled system error", "ncclSystemError"),
        "NCCL hit a system error (network interface, shared memory, firewall or InfiniBand)",
    ),
    Signature(
        "nccl_no_interface",
        ROOT,
        ("no socket interface found", "no NCCL_SOCKET_IFNAME interface found"),
        "NCCL found no network interface to bootstrap with (NCCL_SOCKET_IFNAME)",
    ),
    Signature(
        "nccl_unavailable",
        ROOT,
        ("doesn't have NCCL built in", "does not match the current compilation's accelerator support"),
        "this torch has no NCCL",
    ),
    Signature(
        "invalid_device_ordinal",
        ROOT,
        ("invalid device ordinal", "is out of range. Please use a device index"),
        "LOCAL_RANK names a GPU that is not visible",
    ),
    Signature(
        "libuv_missing",
        ROOT,
        ("use_libuv was requested", "USE_LIBUV=0"),
        "this torch has no libuv TCPStore",
    ),
    Signature(
        "env_incomplete",
        ROOT,
        ("expected, but not set",),
        "a variable of the torchrun contract is missing",
    ),
    Signature(
        "rendezvous_timeout",
        CONSEQUENCE,
        ("clients joined", "wait timeout after", "RendezvousTimeoutError", "store based barrier"),
        "timed out waiting for peers to join",
    ),
    Signature(
        "master_unreachable",
        CONSEQUENCE,
        ("trying to connect to (", "RendezvousConnectionError"),
        "could not connect to MASTER_ADDR:MASTER_PORT",
    ),
    Signature(
        "peer_died",
        CONSEQUENCE,
        ("Connection reset by peer", "Connection closed by peer", "remote process exited"),
        "a peer went away in the middle of a collective",
    ),
    Signature(
        "collective_timeout",
        CONSEQUENCE,
        (
            "Timed out waiting",
            "failed to pass monitoredBarrier",
            "Watchdog caught collective operation timeout",
        ),
        "a collective timed out waiting for a peer",
    ),
)
_BY_KIND = {signature.kind: signature for signature in SIGNATURES}
_MONITORED_BARRIER = re.compile(r"Ranks? ([\d,\s]+) failed to pass monitoredBarrier")


def classify(text: str) -> Signature | None:
    """The first signature whose fragment occurs in ``text`` (order: root causes first)."""
    for signature in SIGNATURES:
        if any(fragment in text for fragment in signature.fragments):
            return signature
    return None


def by_kind(kind: str) -> Signature | None:
    return _BY_KIND.get(kind)


def telling_line(text: str, kind: str | None) -> str:
    """The line of ``text`` that carries ``kind``'s fragment (NCCL puts it after "Last error:")."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    signature = _BY_KIND.get(kind or "")
    if signature is not None:
        for line in lines:
            if any(fragment in line for fragment in signature.fragments):
                return line
    return lines[0] if lines else ""


def ranks_missing_barrier(text: str) -> list[int]:
    """The ranks gloo's monitored_barrier names as not arriving (``Ranks 1, 3 failed to pass ...``)."""
    match = _MONITORED_BARRIER.search(text)
    if match is None:
        return []
    return [int(part) for part in re.split(r"[,\s]+", match.group(1).strip()) if part]
