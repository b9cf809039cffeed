"""Whether a CUDA error was raised while pinning host memory: page-locked host RAM, not the GPU's.

cudaHostAlloc (torch's pinned-memory allocator, CachingHostAllocator) reports its failures with CUDA's own
errors, "out of memory" or "invalid argument", so the message alone reads as the GPU's. The line of the
message, or the last frame of the traceback before it, says where it came from.
"""

from __future__ import annotations

import re
from collections import deque

from torchdoctor.explain import Analysis
from torchdoctor.explain.model import last_match
from torchdoctor.model import Fix

_PINNING = re.compile(
    r"\bpin_memory\b|\bcudaHostAlloc\b|\bcudaMallocHost\b|CachingHostAllocator", re.IGNORECASE
)
_FRAME = re.compile(r'File "([^"\n]{1,400})", line \d{1,7}, in [^\n]{1,200}\n([^\n]{0,400})')
_FRAMES_BEFORE = 20_000
"""How far before the message its traceback's last frame is looked for."""

CAUSE = (
    "Not GPU memory: the allocation that failed is of page-locked (pinned) host memory, which torch asks "
    "CUDA for (cudaHostAlloc) when a DataLoader has pin_memory=True, a tensor is pinned (.pin_memory(), "
    "pin_memory=True) or a buffer is kept pinned for asynchronous copies, and CUDA reports its refusal with "
    "its own errors. The host could not lock that much RAM: the machine or its container is short of RAM "
    "(a Docker container's memory limit, a memlock ulimit), WSL2 and Docker on Windows pin far less than "
    "the host has, and a single pinned buffer of several GiB is refused outright (invalid argument)."
)
FIX = Fix(
    "Pin less: set pin_memory=False in the DataLoader (or the program's option for it), or keep pinned "
    "buffers smaller (smaller pinned buffers, under 2 GiB each, allocated in pieces); give a container the "
    "host's memory (docker run --ipc=host, --ulimit memlock=-1) and check the host RAM that is free. The "
    "GPU's memory is not the limit here, so a smaller batch on the GPU does not help.",
    ("free -m", "ulimit -l"),
)


def pinning_failed(text: str, message_at: int) -> str | None:
    """The evidence that the error at ``message_at`` came from pinning host memory, or None: the message's
    own line names pinning, or the last frame before it (its file or its source line) does."""
    start = text.rfind("\n", 0, message_at) + 1
    end = text.find("\n", message_at)
    line = text[start : len(text) if end < 0 else end].strip()
    if _PINNING.search(line):
        return f"the message's line pins host memory: {line[:160]}"
    frames = deque(_FRAME.finditer(text, max(0, message_at - _FRAMES_BEFORE), message_at), maxlen=1)
    last = frames[0] if frames else None
    if last is None or not (_PINNING.search(last[1]) or _PINNING.search(last[2])):
        return None
    code = last[2].strip()
    return f"the failing statement pins host memory: {code[:160]}" if code else f"raised in {last[1]}"


def pinned_analysis(text: str, message: re.Pattern[str]) -> Analysis | None:
    """The pinned-memory reading of the last ``message`` in ``text``'s last 200,000 characters, where the
    error came from pinning host memory; None where it did not."""
    tail = text[-200_000:]
    found = last_match(message, tail)
    said = None if found is None else pinning_failed(tail, found.start())
    if said is None:
        return None
    return Analysis(evidence=(said,), cause=CAUSE, fix=FIX, check="transfer.pinned")
