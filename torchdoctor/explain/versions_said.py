"""The versions of torch and its companions a pasted text states: pip show's lines, a collect_env dump's, the
writer's prose ("torch version is 1.13.0+cu117", "torch==2.1.2"). Read by the explanations of more than one
check."""

from __future__ import annotations

import re

_VERSION_SEEN = re.compile(
    r"\b(pytorch|torchvision|torchaudio|torch)(?:[ _]version)?(?: is| of)?(?:==|[ :=]{1,3})"
    r"v?(\d+\.\d+(?:\.\d+)?(?:\.dev\d{8})?(?:\+\w+)?)|Name: (torch\w*)\s{1,4}Version: (\S{1,40})",
    re.IGNORECASE,
)


def versions_said(text: str) -> dict[str, str]:
    """Versions of torch and its companions the pasted text states (pip show, collect_env, prose): the first
    one stated of each, by distribution name (pytorch read as torch)."""
    seen: dict[str, str] = {}
    for match in _VERSION_SEEN.finditer(text):
        name = (match[1] or match[3]).lower().replace("pytorch", "torch")
        seen.setdefault(name, match[2] or match[4])
    return seen
