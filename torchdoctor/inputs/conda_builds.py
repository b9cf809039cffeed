"""The pytorch conda package a text names with its build string, and what the build string says of its
CUDA: ``pytorch=1.2.0=py3.7_cuda10.0.130_cudnn7.6.2_0`` in an environment file, or a ``conda list`` row
``pytorch  1.11.0  py3.8_cpu_0  pytorch``.

Build strings as each channel writes them: the pytorch channel ``py3.8_cuda11.3_cudnn8.2.0_0`` and
``py3.8_cpu_0``; Anaconda's defaults ``cuda100py37h53c1284_0`` and ``cpu_py37h...``; conda-forge
``cuda118_py310h...``, ``cuda126_generic_py312_...``, ``cpu_py310h...`` and ``cpu_generic_py311_...``. A
build string that says neither is not read. Bounded: the first ``MAX_NAMED`` packages a text names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import islice

MAX_NAMED = 50
_PACKAGE = re.compile(
    r"\bpytorch(?:==?|[ \t]{1,40})v?(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)(?:=|[ \t]{1,40})([\w.]{2,79}\w)",
    re.IGNORECASE,
)
_CUDA_FORMS = (
    re.compile(r"(?:^|_)cuda(\d{1,2})\.(\d)(?:\.\d{1,4})?_"),  # pytorch channel: py3.7_cuda10.0.130_cudnn...
    re.compile(r"^cuda(\d{1,2})(\d)(?:py|_)"),  # defaults cuda100py37..., conda-forge cuda118_py310...
)
_CPU_FORM = re.compile(r"(?:^|_)cpu(?:_|$)")


@dataclass(frozen=True)
class CondaBuild:
    """One pytorch package the text names: as written, its version, and its build's ``cuda`` ("10.0", or
    "cpu" for a CPU-only build)."""

    written: str
    version: str
    cuda: str


def cuda_of_build(build: str) -> str | None:
    """The CUDA release a pytorch conda build string says ("11.3"), "cpu" for a CPU-only build, None when it
    says neither."""
    for form in _CUDA_FORMS:
        found = form.search(build)
        if found is not None:
            return f"{int(found[1])}.{found[2]}"
    return "cpu" if _CPU_FORM.search(build) else None


def named(text: str) -> list[CondaBuild]:
    """The pytorch conda packages the text names with a build string that says CUDA or CPU."""
    found = []
    for match in islice(_PACKAGE.finditer(text), MAX_NAMED):
        cuda = cuda_of_build(match[2])
        if cuda is not None:
            found.append(CondaBuild(" ".join(match[0].split()), match[1], cuda))
    return found
