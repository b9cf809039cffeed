"""Fault injection for the DDP dry run's end-to-end tests, from outside the shipped package.

Python imports ``sitecustomize`` at start-up from the first folder of ``sys.path`` that has one; the tests
put this folder on PYTHONPATH, which the CLI, its probe worker and every rank inherit. When
``TORCHDOCTOR_TEST_DDP`` holds a JSON object, this module patches the launcher and the rank program as
they are imported:

- ``faults``: ``{local rank: fault}``: ``raise_before_init``, ``hang_before_init``, ``hang_after_init``,
  ``exit_after_init`` or ``wrong_input``, acted out by that rank;
- ``rank_env``: ``{local rank: {VAR: value}}`` added to that rank's environment by the launcher.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import json
import os
import sys
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

HOOK_ENV = "TORCHDOCTOR_TEST_DDP"
FAULTS = frozenset(
    {"raise_before_init", "hang_before_init", "hang_after_init", "exit_after_init", "wrong_input"}
)


def _settings() -> dict[str, Any] | None:
    raw = os.environ.get(HOOK_ENV)
    if not raw:
        return None
    data = json.loads(raw)
    unknown = set((data.get("faults") or {}).values()) - FAULTS
    if unknown:
        raise ValueError(f"{HOOK_ENV}: unknown faults {sorted(unknown)}; known: {sorted(FAULTS)}")
    return data


def _own_fault(settings: dict[str, Any]) -> str | None:
    return (settings.get("faults") or {}).get(os.environ.get("LOCAL_RANK", ""))


def _patch_launcher(module: ModuleType, settings: dict[str, Any]) -> None:
    real = module.torchrun_env
    extra = {int(rank): dict(env) for rank, env in (settings.get("rank_env") or {}).items()}

    def torchrun_env(base_env: dict[str, str], local_rank: int, *args: Any, **kwargs: Any) -> dict[str, str]:
        return {**real(base_env, local_rank, *args, **kwargs), **extra.get(local_rank, {})}

    module.torchrun_env = torchrun_env


def _faulty_distributed(module: ModuleType, settings: dict[str, Any]) -> None:
    # The fault is looked up when acted out: a rank forked from a zygote imported this module before it
    # had a LOCAL_RANK.
    real_import = module._import_torch

    def import_torch() -> tuple[Any, Any]:
        torch, dist = real_import()
        real_init = dist.init_process_group

        def init_process_group(*args: Any, **kwargs: Any) -> Any:
            fault = _own_fault(settings)
            if fault == "raise_before_init":
                raise RuntimeError("injected failure before init_process_group")
            if fault == "hang_before_init":
                time.sleep(3600)
            return real_init(*args, **kwargs)

        dist.init_process_group = init_process_group
        return torch, dist

    module._import_torch = import_torch
    collective = module.collective
    real_all_reduce = collective.verified_all_reduce

    def verified_all_reduce(torch: Any, dist: Any, device: Any, contribution: float, *args: Any) -> Any:
        fault = _own_fault(settings)
        if fault == "hang_after_init":
            time.sleep(3600)
        if fault == "exit_after_init":
            os._exit(4)
        return real_all_reduce(torch, dist, device, 0 if fault == "wrong_input" else contribution, *args)

    collective.verified_all_reduce = verified_all_reduce


def _patch_rank(module: ModuleType, settings: dict[str, Any]) -> None:
    if settings.get("faults"):
        _faulty_distributed(module, settings)


class _PatchAfterImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: wraps the loader of the modules it patches so the patch follows their import."""

    def __init__(self, patches: dict[str, Callable[[ModuleType], None]]) -> None:
        self.patches = patches

    def find_spec(
        self, name: str, path: Any = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        patch = self.patches.get(name)
        if patch is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                real_exec = spec.loader.exec_module  # type: ignore[attr-defined]

                def exec_module(module: ModuleType, real_exec: Any = real_exec) -> None:
                    real_exec(module)
                    patch(module)

                spec.loader.exec_module = exec_module  # type: ignore[attr-defined]
                return spec
        return None


_SETTINGS = _settings()
if _SETTINGS is not None:
    sys.meta_path.insert(
        0,
        _PatchAfterImport(
            {
                "torchdoctor.checks.ddp.launcher": lambda m: _patch_launcher(m, _SETTINGS),
                "torchdoctor.checks.ddp.rank_program": lambda m: _patch_rank(m, _SETTINGS),
            }
        ),
    )
