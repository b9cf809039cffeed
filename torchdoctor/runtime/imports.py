"""Code run once a module has been imported, by whatever imports it first (torch for the recorder, the parts
of torch an emulated GPU cannot run for ``--gpus``)."""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.util
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any


class AfterImport(importlib.abc.MetaPathFinder):
    """Calls ``callback(module)`` once the top-level module ``name`` has been imported, by whatever code
    imports it first; the module's own loader runs it unchanged."""

    def __init__(self, name: str, callback: Callable[[ModuleType], None]) -> None:
        self.name, self.callback = name, callback

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != self.name:
            return None
        self.remove()
        spec = importlib.util.find_spec(fullname)
        loader = getattr(spec, "loader", None)
        run = getattr(loader, "exec_module", None)
        if spec is None or loader is None or run is None:
            return spec
        callback = self.callback

        def exec_module(module: ModuleType) -> None:
            try:
                run(module)
            finally:
                with contextlib.suppress(AttributeError, TypeError):
                    del loader.exec_module
            callback(module)

        try:
            loader.exec_module = exec_module
        except (AttributeError, TypeError):
            return spec
        return spec

    def install(self) -> None:
        sys.meta_path.insert(0, self)

    def remove(self) -> None:
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self)
