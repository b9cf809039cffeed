"""What this worker process has served: the channel its answers go to, and how many requests it began.

Apart from the worker's loop (:mod:`torchdoctor.isolation.worker`), so that the zygote the worker forks reads
it without importing the worker back.
"""

from __future__ import annotations

from typing import IO

channel: IO[str] | None = None
"""The channel the answers go to; set when the worker starts. A probe that writes here on purpose corrupts the
protocol, which the runner reports as garbage."""
handled = 0
"""How many requests this worker has begun, the one running included."""
