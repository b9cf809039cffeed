"""Live progress on stderr while probes run: a spinner on a terminal, log lines with -v elsewhere."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any, TextIO


class LogProgress:
    def __init__(self, out: TextIO = sys.stderr) -> None:
        self.out = out

    def probe_started(self, name: str, index: int, total: int) -> None:
        self.out.write(f"torchdoctor: probe {index + 1}/{total} {name} ...\n")
        self.out.flush()

    def probe_finished(self, name: str, duration_s: float, error: Mapping[str, Any] | None) -> None:
        outcome = "ok" if error is None else f"{error.get('kind')}: {error.get('message')}"
        self.out.write(f"torchdoctor: probe {name} {outcome} ({duration_s:.2f} s)\n")
        self.out.flush()


class SpinnerProgress:
    """A transient rich status line on stderr; gone when the table prints."""

    def __init__(self) -> None:
        from rich.console import Console

        from torchdoctor.output import streams

        self._console = Console(file=streams.unguarded(sys.stderr))
        self._status = self._console.status("starting the probe worker", spinner="dots")
        self._status.start()

    def probe_started(self, name: str, index: int, total: int) -> None:
        self._status.update(f"[{index + 1}/{total}] {_shown(name)}")

    def probe_finished(self, name: str, duration_s: float, error: Mapping[str, Any] | None) -> None:
        if error is not None:
            kind, message = _shown(str(error.get("kind"))), _shown(str(error.get("message")))
            self._console.print(f"[yellow]probe {_shown(name)}: {kind}[/] {message}")

    def stop(self) -> None:
        self._status.stop()


def _shown(text: str) -> str:
    """Foreign text (a plugin's probe name, an error message) for rich: clean, and no markup."""
    from rich.markup import escape

    from torchdoctor.output import streams

    return escape(streams.clean_line(text))


def for_terminal(verbose: bool, enabled: bool = True) -> LogProgress | SpinnerProgress | None:
    if not enabled:
        return None
    from rich.console import Console

    if Console(file=sys.stderr).is_terminal:
        return SpinnerProgress()
    return LogProgress() if verbose else None
