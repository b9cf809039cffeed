"""NCCL and gloo environment variables that break a distributed run, or quietly slow it down.

Sources (research note ddp_dryrun.md, sections 3 and F14): GLOO_SOCKET_IFNAME takes concrete
interface names, comma-separated, and gloo fails with "Unable to find address for" when one does not
exist; NCCL_SOCKET_IFNAME is a list of prefixes (``=`` for exact names, a leading ``^`` to exclude);
NCCL's docs warn that debugging variables left set "may result in sub-optimal behavior, crashes, or
hangs"; NCCL_ASYNC_ERROR_HANDLING and NCCL_BLOCKING_WAIT were renamed TORCH_NCCL_* in torch 2.2.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from torchdoctor.model import Finding, Fix, Status

NCCL_DEBUG_KNOBS = (
    "NCCL_P2P_DISABLE",
    "NCCL_SHM_DISABLE",
    "NCCL_IB_DISABLE",
    "NCCL_NET_GDR_LEVEL",
    "NCCL_P2P_LEVEL",
    "NCCL_ALGO",
    "NCCL_PROTO",
)
RENAMED = {
    "NCCL_ASYNC_ERROR_HANDLING": "TORCH_NCCL_ASYNC_ERROR_HANDLING",
    "NCCL_BLOCKING_WAIT": "TORCH_NCCL_BLOCKING_WAIT",
}
RENAMED_IN = (2, 2)


def set_variables(env: Mapping[str, str]) -> list[str]:
    """``NAME=value`` of every NCCL_*, GLOO_*, TORCH_NCCL_* and USE_LIBUV variable that is set."""
    return [
        f"{name}={value}"
        for name, value in sorted(env.items())
        if name.startswith(("NCCL_", "GLOO_", "TORCH_NCCL_")) or name == "USE_LIBUV"
    ]


def findings(
    env: Mapping[str, str],
    backend: str | None,
    interfaces: Sequence[str] | None,
    torch_version: str | None = None,
) -> list[Finding]:
    """What is wrong with these variables for ``backend``; ``torch_version`` (None: not known) decides
    which of the renamed variables the ranks' torch reads."""
    result = _gloo_interface(env, backend, interfaces)
    if backend == "nccl":
        result += _nccl_interface(env, interfaces)
        result += _debug_knobs(env)
    result += _renamed(env, torch_version)
    return result


def _gloo_interface(
    env: Mapping[str, str], backend: str | None, interfaces: Sequence[str] | None
) -> list[Finding]:
    value = env.get("GLOO_SOCKET_IFNAME")
    if value is None:
        return []
    status = Status.FAIL if backend == "gloo" else Status.WARN
    names = [n.strip() for n in value.split(",")]
    fix = Fix(
        "Set GLOO_SOCKET_IFNAME to interfaces this machine has, as plain names separated by commas "
        "(every rank needs the same number of them), or unset it to let gloo choose.",
        ("ip -brief address", "unset GLOO_SOCKET_IFNAME"),
    )
    if any(n.startswith(("^", "=")) for n in names) or "" in names:
        return [
            Finding(
                status,
                f"GLOO_SOCKET_IFNAME={value!r} is not a list of interface names: gloo has no '^' or '=' "
                "syntax (that is NCCL_SOCKET_IFNAME's)",
                (),
                fix,
            )
        ]
    if interfaces is None:
        return []
    missing = [n for n in names if n not in interfaces]
    if not missing:
        return []
    return [
        Finding(
            status,
            f"GLOO_SOCKET_IFNAME={value} names {', '.join(repr(n) for n in missing)}, which this machine "
            "does not have: gloo fails with 'Unable to find address for'",
            (f"interfaces here: {', '.join(interfaces)}",),
            fix,
        )
    ]


def _nccl_interface(env: Mapping[str, str], interfaces: Sequence[str] | None) -> list[Finding]:
    value = env.get("NCCL_SOCKET_IFNAME")
    if value is None or interfaces is None or value.startswith("^"):
        return []
    entries = [e.strip() for e in value.split(",") if e.strip()]
    matched = [
        i for i in interfaces for e in entries if (i == e[1:] if e.startswith("=") else i.startswith(e))
    ]
    if matched:
        return []
    return [
        Finding(
            Status.FAIL,
            f"NCCL_SOCKET_IFNAME={value} matches no interface of this machine: NCCL cannot bootstrap "
            "('no socket interface found')",
            (f"interfaces here: {', '.join(interfaces)}",),
            Fix(
                "Name an interface prefix this machine has (e.g. NCCL_SOCKET_IFNAME=eth0, or ^docker,lo to "
                "exclude), or unset it.",
                ("ip -brief address", "unset NCCL_SOCKET_IFNAME"),
            ),
        )
    ]


def _debug_knobs(env: Mapping[str, str]) -> list[Finding]:
    present = [f"{name}={env[name]}" for name in NCCL_DEBUG_KNOBS if name in env]
    if not present:
        return []
    return [
        Finding(
            Status.WARN,
            f"NCCL debugging settings are set ({', '.join(present)}): NCCL's docs warn they may cause "
            "sub-optimal behavior, crashes, or hangs",
            (),
            Fix(
                "Unset them unless you are debugging NCCL on purpose; check /etc/nccl.conf and "
                "~/.nccl.conf too.",
                tuple(f"unset {p.split('=', 1)[0]}" for p in present),
            ),
        )
    ]


def _renamed(env: Mapping[str, str], torch_version: str | None) -> list[Finding]:
    line = _release_line(torch_version)
    if line is not None and line < RENAMED_IN:
        return _too_new_names(env, str(torch_version))
    old = [name for name in RENAMED if name in env]
    if not old:
        return []
    unknown = (
        ()
        if line is not None
        else ("torch's version is not known here: before torch 2.2 the old names are the ones read",)
    )
    return [
        Finding(
            Status.WARN,
            f"{', '.join(old)} {'is' if len(old) == 1 else 'are'} deprecated since torch 2.2: use "
            f"{', '.join(RENAMED[n] for n in old)}",
            (*(f"{n}={env[n]}" for n in old), *unknown),
            Fix(
                "Rename the variables; torch prints a deprecation warning for the old names.",
                tuple(f"export {RENAMED[n]}={env[n]} && unset {n}" for n in old),
            ),
        )
    ]


def _too_new_names(env: Mapping[str, str], torch_version: str) -> list[Finding]:
    """On a torch before 2.2 the TORCH_NCCL_* names are not read: the old names are the ones that work."""
    unread = [(old, new) for old, new in RENAMED.items() if new in env and old not in env]
    if not unread:
        return []
    return [
        Finding(
            Status.WARN,
            f"{', '.join(new for _, new in unread)} {'is' if len(unread) == 1 else 'are'} read from torch "
            f"2.2 on: torch {torch_version} reads {', '.join(old for old, _ in unread)}",
            tuple(f"{new}={env[new]}" for _, new in unread),
            Fix(
                "Set the name this torch reads (or upgrade torch to 2.2 or newer).",
                tuple(f"export {old}={env[new]}" for old, new in unread),
            ),
        )
    ]


def _release_line(version: str | None) -> tuple[int, int] | None:
    match = re.match(r"(\d+)\.(\d+)", version or "")
    return None if match is None else (int(match[1]), int(match[2]))
