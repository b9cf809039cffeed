"""What a pasted text shows of a torch that has no XPU (Intel GPU) support: the releases of torch and of
intel-extension-for-pytorch it names, and the GPU, which says which of the causes it is."""

from __future__ import annotations

import re

from torchdoctor.explain.model import last_match

# "intel-extension-for-pytorch 1.11.08" (pip list), "intel_extension_for_pytorch==2.1.10+xpu",
# "ipex=2.1.10+xpu"
_IPEX_VERSION = re.compile(
    r"\b(?:intel[-_ ]extension[-_ ]for[-_ ]pytorch|ipex)(?:\s{0,20}(?:==?|:)\s{0,3}|\s{1,20})v?"
    r"(\d{1,2}\.\d{1,3}(?:\.\d{1,5})?(?:\+\w{1,20})?)",
    re.IGNORECASE,
)
_INTEL_GPU = re.compile(
    r"\bIntel(?:\(R\)|®)?\s(?:Arc|Iris|UHD|HD|Data Center GPU)\b[\w ()™®-]{0,24}?"
    r"(?=\s{0,3}(?:\d+\s?GB|\n|$|,|\)))",
    re.IGNORECASE,
)


def evidence(text: str, torch_version: str | None, nvidia_gpu: str | None) -> tuple[str, ...]:
    """The lines of evidence the text gives: the extension's release and build, torch's, and the GPU (an
    NVIDIA GPU the text names is ``nvidia_gpu``)."""
    lines: list[str] = []
    ipex = last_match(_IPEX_VERSION, text)
    if ipex is not None:
        version = ipex[1]
        build = (
            "an XPU build"
            if re.search(r"xpu|gpu", version, re.IGNORECASE)
            else "a release without +xpu: a CPU build of the extension, with no XPU support"
        )
        lines.append(f"the text shows intel-extension-for-pytorch {version}: {build}")
    if torch_version is not None:
        lines.append(f"the text shows torch {torch_version}")
    intel = last_match(_INTEL_GPU, text)
    if intel is not None:
        lines.append(
            f"the text names an Intel GPU ({' '.join(intel[0].split())}): torch's XPU build can use it"
        )
    if nvidia_gpu is not None:
        lines.append(f"the text names an NVIDIA GPU ({nvidia_gpu}): the program's device is 'cuda', not xpu")
    return tuple(lines)
