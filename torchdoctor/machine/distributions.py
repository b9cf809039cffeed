"""The name and version of an installed distribution, from the headers of its metadata alone.

``Distribution.metadata`` parses the whole METADATA file, long description included (torchdoctor's holds
its README), and ``.version`` parses it again: across every installed distribution that is most of the time
a probe of the installed packages takes."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib import metadata


# The distributions installed beside torch that are built for one torch (the companions probe reports them,
# and a collect_env dump's package list is read for them), and the names torch's pinned triton goes by.
TORCH_COMPANIONS = (
    "torchvision",
    "torchaudio",
    "torchtext",
    "torchdata",
    "triton",
    "xformers",
    "flash-attn",
    "deepspeed",
    "apex",
)
TRITON_NAMES = ("triton", "pytorch-triton", "pytorch-triton-rocm", "pytorch-triton-xpu")


def canonical_name(name: str) -> str:
    """A distribution's name as pip compares names: runs of ``-``, ``_`` and ``.`` as one ``-``, lower case
    (PEP 503, "Normalized Names"; what ``packaging.utils.canonicalize_name`` returns, without importing its
    module, which imports the whole of ``packaging.tags``)."""
    return _SEPARATORS.sub("-", name).lower()


_SEPARATORS = re.compile(r"[-_.]+")


def name_and_version(dist: metadata.Distribution) -> tuple[str | None, str | None]:
    """``(Name, Version)`` as the METADATA (or PKG-INFO) headers give them; None for one that is missing."""
    text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
    fields: dict[str, str] = {}
    for line in text.split("\n\n", 1)[0].splitlines():
        key, colon, value = line.partition(":")
        key = key.lower()
        if colon and key in ("name", "version"):
            fields.setdefault(key, value.strip())
    return fields.get("name") or None, fields.get("version") or None
