"""Light mode: where each tensor was made and moved, recorded by thin wrappers around the few torch entry
points that make or move tensors (the factories, ``Tensor.to/cuda/cpu/half/bfloat16``, ``Module.to`` and its
kin, ``torch.load``, the DataLoader's batches) and the module registration hooks.

A wrapper calls torch first and records after; an error from torch passes through untouched, and an error in
the recording switches the whole recorder off (:meth:`Recorder.fail`) without disturbing the program. While
``torch.compile`` traces, every wrapper returns straight to torch. Nothing is ever set on a tensor or a
module: tensors are remembered through :class:`~torchdoctor.runtime.table.IdTable`, never a parameter or a
buffer (``swap_tensors`` refuses tensors with weak references), and buffers through their module.
"""

from __future__ import annotations

import functools
import os
import sys
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import FrameType, ModuleType
from typing import Any

from torchdoctor.runtime import ranks, transfers
from torchdoctor.runtime.audit import tensors_in
from torchdoctor.runtime.model import Finding, SyncSite, TransferSite, site_text
from torchdoctor.runtime.sites import Frames, Site, result_discarded, site_of
from torchdoctor.runtime.table import IdTable

FACTORIES = (
    "tensor",
    "as_tensor",
    "asarray",
    "from_numpy",
    "frombuffer",
    "scalar_tensor",
    "zeros",
    "ones",
    "empty",
    "full",
    "rand",
    "randn",
    "randint",
    "randperm",
    "arange",
    "linspace",
    "logspace",
    "eye",
    "empty_strided",
    "zeros_like",
    "ones_like",
    "empty_like",
    "full_like",
    "rand_like",
    "randn_like",
    "randint_like",
    "tril_indices",
    "triu_indices",
)
TENSOR_MOVES = ("to", "cuda", "cpu", "half", "bfloat16")
MODULE_MOVES = ("to", "cuda", "cpu", "half", "bfloat16", "float", "double", "to_empty")
BATCH = "a DataLoader batch"
"""What made a tensor that a DataLoader gave: a batch, whether its workers or this process built it."""
MAX_MOVES_KEPT = 16
"""Moves of one module remembered (the last ones)."""
MAX_FINDINGS = 200
_LIVE: weakref.WeakSet[Recorder] = weakref.WeakSet()


def _off_in_child() -> None:
    """A forked child (a DataLoader worker) records nothing: its tensors reach the program as batches, which
    the parent tags with the line of its loop."""
    for recorder in list(_LIVE):
        recorder.on = False
        recorder.forked = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_off_in_child)


@dataclass(slots=True)
class Loaded:
    site: Site
    source: str
    device: str
    mapped: bool
    """torch.load was given a map_location (the device is then not necessarily the one it was saved on)."""


@dataclass(slots=True)
class Provenance:
    """What the recorder knows of one tensor."""

    made: Site | None = None
    made_by: str | None = None
    moved: Site | None = None
    moved_by: str | None = None
    moved_from: str | None = None
    discarded: tuple[Site, str, str, str | None] | None = None
    """A call on it whose result was thrown away: where, its source text, the device it would have given,
    and the statement that would have kept it (None where no single statement is right)."""
    loaded: Loaded | None = None
    origin: tuple[Site, str] | None = None
    """``--deep``: the factory call its values were first computed from (where, which factory), when that is
    another line than the operation that made it."""

    def factory_origin(self) -> tuple[Site, str] | None:
        """Where the factory behind this tensor ran: its own, or the one it was computed from."""
        if self.origin is not None:
            return self.origin
        return (self.made, str(self.made_by)) if self.made is not None and is_factory(self.made_by) else None


def is_factory(made_by: str | None) -> bool:
    """Whether ``made_by`` names one of torch's factories (``torch.zeros``)."""
    return bool(made_by) and str(made_by).startswith("torch.") and str(made_by)[6:] in FACTORIES


@dataclass(slots=True)
class Move:
    site: Site
    method: str
    device: str | None
    dtype: str | None


@dataclass(frozen=True)
class Owner:
    """Where a module holds a tensor: ``root`` (the model), the path of ``module`` in it, the attribute."""

    root: Any
    path: str
    module: Any
    attribute: str
    kind: str
    """parameter, buffer, attribute (a plain one, which Module.to() does not move) or container (a tensor in a
    plain list, tuple or dict attribute, which Module.to() does not move either); ``attribute`` then names
    the element (``anchors[0]``)."""

    @property
    def name(self) -> str:
        """``Net.encoder.scale``: the root's class, then the path."""
        inner = f"{self.path}.{self.attribute}" if self.path else self.attribute
        return f"{type(self.root).__name__}.{inner}"


@dataclass
class ModuleRecord:
    moves: list[Move] = field(default_factory=list)
    buffers: dict[str, Provenance] = field(default_factory=dict)
    """Where each buffer's first tensor was made (the tensor itself is replaced by Module.to)."""
    notes: dict[str, list[str]] = field(default_factory=dict)
    """Per parameter or buffer name: discarded calls on it."""
    attached: Site | None = None
    """Where it was made a submodule of another module."""
    assigned: dict[str, Site] = field(default_factory=dict)
    """Per plain tensor attribute: the line of the program that last set it (``self.mask = ...``)."""


class Patch:
    """One attribute replaced by a wrapper, and how to put the original back."""

    def __init__(self, owner: Any, name: str, wrapper: Any) -> None:
        self.owner, self.name, self.wrapper = owner, name, wrapper
        self.had_own = isinstance(owner, type) and name in vars(owner)
        self.original = vars(owner)[name] if self.had_own else getattr(owner, name)
        setattr(owner, name, wrapper)

    def undo(self) -> None:
        current = vars(self.owner).get(self.name) if isinstance(self.owner, type) else None
        if isinstance(self.owner, type) and current is not self.wrapper:
            return  # replaced again after us: theirs stays, ours is switched off
        if not isinstance(self.owner, type) and getattr(self.owner, self.name, None) is not self.wrapper:
            return
        if self.had_own or not isinstance(self.owner, type):
            setattr(self.owner, self.name, self.original)
        else:
            delattr(self.owner, self.name)


def compiling_check(torch: ModuleType) -> Callable[[], bool]:
    """torch's own "is torch.compile tracing now": torch.compiler.is_compiling where it exists (2.3 on),
    torch._dynamo's before that; never True on a torch without torch.compile."""
    compiler = getattr(torch, "compiler", None)
    check = getattr(compiler, "is_compiling", None)
    if callable(check):
        return check  # type: ignore[no-any-return]
    dynamo = sys.modules.get("torch._dynamo")
    check = getattr(dynamo, "is_compiling", None)
    return check if callable(check) else (lambda: False)  # type: ignore[no-any-return]


def library_dirs(torch: ModuleType) -> list[str]:
    """torch's own folders and torchdoctor's: never user code."""
    dirs = [os.path.dirname(str(torch.__file__)), os.path.dirname(os.path.dirname(__file__))]
    for sibling in ("functorch", "torchgen"):
        module = sys.modules.get(sibling)
        if module is not None and getattr(module, "__file__", None):
            dirs.append(os.path.dirname(str(module.__file__)))
    return dirs


class Recorder:
    def __init__(
        self,
        torch: ModuleType,
        say: Callable[[list[str]], None],
        local_rank: int | None = None,
    ) -> None:
        self.torch = torch
        self.say = say
        self.frames = Frames(library_dirs(torch))
        self.compiling = compiling_check(torch)
        self.local_rank = local_rank
        self.on = False
        self.failure: str | None = None
        self.moving_module = 0
        self.last_move_device: str | None = None
        """The device the latest Module.to() (or .cuda()...) put a module on: what the program means."""
        self.deep = False
        self.forked = False
        """This is a forked child of the process that installed the recorder: it stays off."""
        self.internal = 0
        """Above 0 while torchdoctor itself runs torch operations (the --nan checks): nothing is recorded."""
        self.tensors: IdTable[Provenance] = IdTable()
        self.modules: IdTable[ModuleRecord] = IdTable()
        self.transfers: dict[tuple[Site, str], TransferSite] = {}
        self.syncs: dict[Site, SyncSite] = {}
        self.findings: list[Finding] = []
        self.load_failures: list[tuple[BaseException, Finding]] = []
        self.op_failures: list[tuple[BaseException, str, list[Any]]] = []
        self.pinned: Callable[[Any], bool | None] = _pinned
        self.visible_gpus: Callable[[], int | None] = self._visible_gpus
        self._patches: list[Patch] = []
        self._handles: list[Any] = []
        self._reported_sites: set[tuple[str, Site]] = set()

    # --- installing -------------------------------------------------------------------------------------

    def install(self) -> None:
        torch = self.torch
        for name in FACTORIES:
            original = getattr(torch, name, None)
            if callable(original):
                self._patch(torch, name, self._factory(original, f"torch.{name}"))
        for name in TENSOR_MOVES:
            self._patch(torch.Tensor, name, self._tensor_move(getattr(torch.Tensor, name), name))
        module_class = torch.nn.Module
        for name in MODULE_MOVES:
            if hasattr(module_class, name):
                self._patch(module_class, name, self._module_move(getattr(module_class, name), name))
        self._patch(module_class, "__setattr__", self._attribute_set(module_class.__setattr__))
        self._patch(torch, "load", self._load(torch.load))
        utils = sys.modules.get("torch.utils")
        if utils is not None and callable(getattr(utils, "swap_tensors", None)):
            self._patch(utils, "swap_tensors", self._swap(utils.swap_tensors))
        self._install_dataloader()
        self._install_ddp()
        self._install_registration_hooks()
        self._teach_torchscript()
        self._teach_dynamo()
        self.on = True
        _LIVE.add(self)

    def uninstall(self) -> None:
        self.on = False
        _LIVE.discard(self)
        self._teach_dynamo()
        for patch in reversed(self._patches):
            patch.undo()
        self._patches.clear()
        for handle in self._handles:
            handle.remove()
        self._handles.clear()

    def forget(self) -> None:
        """Drop every weak reference the recorder holds (after uninstall, once the report is built)."""
        self.tensors.clear()
        self.modules.clear()

    def _patch(self, owner: Any, name: str, wrapper: Any) -> None:
        self._patches.append(Patch(owner, name, wrapper))

    def _install_dataloader(self) -> None:
        loader = sys.modules.get("torch.utils.data.dataloader")
        iterator = getattr(loader, "_BaseDataLoaderIter", None)
        if iterator is not None and "__next__" in vars(iterator):
            self._patch(iterator, "__next__", self._batches(vars(iterator)["__next__"]))

    def _install_ddp(self) -> None:
        """``DistributedDataParallel(model, device_ids=...)`` in a rank of a distributed job: which GPU."""
        if self.local_rank is None:
            return
        ddp = getattr(sys.modules.get("torch.nn.parallel.distributed"), "DistributedDataParallel", None)
        if ddp is not None and "__init__" in vars(ddp):
            self._patch(ddp, "__init__", self._ddp_init(vars(ddp)["__init__"]))

    def _ddp_init(self, original: Callable[..., Any]) -> Callable[..., Any]:
        recorder = self

        @functools.wraps(original)
        def __init__(self: Any, module: Any, *args: Any, **kwargs: Any) -> None:
            if recorder.on:
                try:
                    ids = kwargs.get("device_ids", args[0] if args else None)
                    recorder.ddp_wrapped(ids, sys._getframe(1))
                except Exception as exc:
                    recorder.fail(exc)
            original(self, module, *args, **kwargs)

        return __init__

    def _install_registration_hooks(self) -> None:
        """Global registration hooks (torch 2.1 on) where torch has them, else wrap register_buffer."""
        module = sys.modules.get("torch.nn.modules.module")
        buffer_hook = getattr(module, "register_module_buffer_registration_hook", None)
        if buffer_hook is None:
            module_class = self.torch.nn.Module
            self._patch(module_class, "register_buffer", self._register_buffer(module_class.register_buffer))
        else:
            self._handles.append(buffer_hook(self._guarded(self.buffer_registered)))
        for name, method in (
            ("register_module_module_registration_hook", self.module_registered),
            ("register_module_parameter_registration_hook", self.parameter_registered),
        ):
            hook = getattr(module, name, None)
            if hook is not None:
                self._handles.append(hook(self._guarded(method)))

    def _teach_torchscript(self) -> None:
        """TorchScript resolves torch.zeros by identity: tell it a wrapper is the same builtin."""
        builtins = sys.modules.get("torch.jit._builtins")
        register = getattr(builtins, "_register_builtin", None)
        if register is None:
            return
        for patch in self._patches:
            if patch.owner is self.torch and patch.name in FACTORIES:
                register(patch.wrapper, f"aten::{patch.name}")

    def _teach_dynamo(self) -> None:
        """torch.compile finds torch's functions by identity, in a map it builds from the torch namespace the
        first time it compiles: built while a wrapper stood in for torch.zeros, it lacks the builtin, built
        before, it lacks the wrapper. Each gets the other's rule, so code compiled before, during or after
        a recording traces without a graph break. Only where torch.compile has already been used."""
        rules_module = sys.modules.get("torch._dynamo.trace_rules")
        build = getattr(rules_module, "get_torch_obj_rule_map", None)
        if build is None:
            return
        try:
            rules = build()
        except Exception:
            return
        if not isinstance(rules, dict):
            return
        for patch in self._patches:
            for known, other in ((patch.original, patch.wrapper), (patch.wrapper, patch.original)):
                try:
                    if known in rules and other not in rules:
                        rules[other] = rules[known]
                except TypeError:  # an unhashable original
                    break

    # --- the wrappers ---------------------------------------------------------------------------------

    def _factory(self, original: Callable[..., Any], name: str) -> Callable[..., Any]:
        recorder, compiling = self, self.compiling

        @functools.wraps(original)
        def factory(*args: Any, **kwargs: Any) -> Any:
            if not recorder.on or compiling():
                return original(*args, **kwargs)
            result = original(*args, **kwargs)
            try:
                recorder.made(result, name, sys._getframe(1))
            except Exception as exc:
                recorder.fail(exc)
            return result

        return factory

    def _tensor_move(self, original: Callable[..., Any], method: str) -> Callable[..., Any]:
        recorder, compiling = self, self.compiling

        @functools.wraps(original)
        def move(self: Any, *args: Any, **kwargs: Any) -> Any:
            if not recorder.on or recorder.moving_module or compiling():
                return original(self, *args, **kwargs)
            result = original(self, *args, **kwargs)
            try:
                recorder.tensor_moved(self, result, method, args, kwargs, sys._getframe(1))
            except Exception as exc:
                recorder.fail(exc)
            return result

        return move

    def _module_move(self, original: Callable[..., Any], method: str) -> Callable[..., Any]:
        recorder, compiling = self, self.compiling

        @functools.wraps(original)
        def move(self: Any, *args: Any, **kwargs: Any) -> Any:
            if not recorder.on or compiling():
                return original(self, *args, **kwargs)
            recorder.moving_module += 1
            try:
                result = original(self, *args, **kwargs)
            finally:
                recorder.moving_module -= 1
            try:
                recorder.module_moved(self, method, sys._getframe(1))
            except Exception as exc:
                recorder.fail(exc)
            return result

        return move

    def _load(self, original: Callable[..., Any]) -> Callable[..., Any]:
        recorder, compiling = self, self.compiling

        @functools.wraps(original)
        def load(f: Any, *args: Any, **kwargs: Any) -> Any:
            if not recorder.on or compiling():
                return original(f, *args, **kwargs)
            mapped = (args[0] if args else kwargs.get("map_location")) is not None
            try:
                result = original(f, *args, **kwargs)
            except BaseException as exc:
                try:
                    recorder.load_failed(exc, f, sys._getframe(1))
                except Exception as failure:
                    recorder.fail(failure)
                raise
            try:
                recorder.loaded(result, f, mapped, sys._getframe(1))
            except Exception as exc:
                recorder.fail(exc)
            return result

        return load

    def _swap(self, original: Callable[..., Any]) -> Callable[..., Any]:
        recorder = self

        @functools.wraps(original)
        def swap_tensors(t1: Any, t2: Any) -> Any:
            # swap_tensors refuses a tensor with a weak reference: drop ours first, whatever the state.
            recorder.tensors.pop(t1)
            recorder.tensors.pop(t2)
            return original(t1, t2)

        return swap_tensors

    def _batches(self, original: Callable[..., Any]) -> Callable[..., Any]:
        recorder = self

        @functools.wraps(original)
        def __next__(self: Any) -> Any:
            batch = original(self)
            if recorder.on:
                try:
                    recorder.batch_taken(batch, sys._getframe(1))
                except Exception as exc:
                    recorder.fail(exc)
            return batch

        return __next__

    def _register_buffer(self, original: Callable[..., Any]) -> Callable[..., Any]:
        recorder = self

        @functools.wraps(original)
        def register_buffer(self: Any, name: str, tensor: Any, *args: Any, **kwargs: Any) -> Any:
            if recorder.on:
                recorder._guarded(recorder.buffer_registered)(self, name, tensor)
            return original(self, name, tensor, *args, **kwargs)

        return register_buffer

    def _attribute_set(self, original: Callable[..., Any]) -> Callable[..., Any]:
        recorder, compiling = self, self.compiling

        @functools.wraps(original)
        def __setattr__(self: Any, name: str, value: Any) -> None:
            original(self, name, value)
            if recorder.on and isinstance(value, recorder.torch.Tensor) and not compiling():
                try:
                    recorder.attribute_set(self, name, value, sys._getframe(1))
                except Exception as exc:
                    recorder.fail(exc)

        return __setattr__

    def _guarded(self, method: Callable[..., Any]) -> Callable[..., None]:
        recorder, compiling = self, self.compiling

        def hook(*args: Any) -> None:
            if not recorder.on or compiling():
                return
            try:
                method(*args)
            except Exception as exc:
                recorder.fail(exc)

        return hook

    # --- what the wrappers record ---------------------------------------------------------------------

    def made(self, result: Any, name: str, caller: FrameType) -> None:
        # A factory torch calls itself (the gradient backward() starts from, a layer's empty weight, a
        # worker's batch rebuilt) is not the program's: noting it would cost every step and tell nothing.
        if self.frames.in_library(caller.f_code.co_filename):
            return
        if not isinstance(result, self.torch.Tensor) or isinstance(result, self.torch.nn.Parameter):
            return
        site = self.frames.site(caller)
        if site is None:
            return
        self.tensors.put(result, Provenance(made=site, made_by=name))
        if self.local_rank is not None:
            self.check_rank(result.device, site, f"{name}()")

    def attribute_set(self, module: Any, name: str, value: Any, caller: FrameType) -> None:
        """``module.name = value`` left a plain tensor attribute (not a parameter, not a buffer): where."""
        if vars(module).get(name) is not value:
            return
        site = self.frames.site(caller)
        if site is not None:
            self.module_record(module).assigned[name] = site

    def tensor_moved(
        self,
        source: Any,
        result: Any,
        method: str,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        caller: FrameType,
    ) -> None:
        if result is source or not isinstance(result, self.torch.Tensor):
            return
        frame = self.frames.user_frame(caller)
        if frame is None:
            return
        site = site_of(frame)
        before, after = source.device, result.device
        if before != after:
            self.count_transfer(source, before, after, site, _non_blocking(method, args, kwargs))
            if self.local_rank is not None:
                self.check_rank(after, site, f".{method}()")
        if frame is caller and result_discarded(caller):
            self.discarded(source, site, method, str(after), caller)
            return
        if isinstance(result, self.torch.nn.Parameter):
            return
        known = self.tensors.get(source)
        provenance = Provenance(
            made=known.made if known else None,
            made_by=known.made_by if known else None,
            loaded=known.loaded if known else None,
        )
        if before != after:
            provenance.moved, provenance.moved_by, provenance.moved_from = site, f".{method}()", str(before)
        elif known is not None:
            provenance.moved, provenance.moved_by, provenance.moved_from = (
                known.moved,
                known.moved_by,
                known.moved_from,
            )
        self.tensors.put(result, provenance)

    def discarded(self, source: Any, site: Site, method: str, device: str, caller: FrameType) -> None:
        from torchdoctor.runtime.expressions import call_text, kept_result

        text = call_text(caller) or f"tensor.{method}(...)"
        note = (site, text, device, kept_result(caller))
        if isinstance(source, self.torch.nn.Parameter) or self.is_registered(source):
            owner = self.owner_of(source)
            if owner is not None:
                record = self.module_record(owner.module)
                record.notes.setdefault(owner.attribute, []).append(
                    f"{text} at {site_text(site)} returned a copy on {device} that was thrown away"
                )
            return
        provenance = self.tensors.get(source)
        if provenance is None:
            provenance = Provenance()
            self.tensors.put(source, provenance)
        provenance.discarded = note

    def module_moved(self, module: Any, method: str, caller: FrameType) -> None:
        site = self.frames.site(caller)
        if site is None:
            return
        module = _compiled_inner(module)
        first = next(_module_tensors(module), None)
        device = str(first.device) if first is not None else None
        dtype = _dtype(first) if first is not None else None
        record = self.module_record(module)
        record.moves = [*record.moves[-(MAX_MOVES_KEPT - 1) :], Move(site, method, device, dtype)]
        if device is not None:
            self.last_move_device = device
        if self.local_rank is not None and first is not None:
            self.check_rank(first.device, site, f"{type(module).__name__}.{method}()")

    def loaded(self, result: Any, source: Any, mapped: bool, caller: FrameType) -> None:
        site = self.frames.site(caller)
        if site is None:
            return
        name = _source_name(source)
        if isinstance(result, self.torch.nn.Module):
            self.module_record(result)
            return
        for _, tensor in tensors_in(result, "", self.torch):
            if isinstance(tensor, self.torch.nn.Parameter):
                continue
            device = str(tensor.device)
            self.tensors.put(
                tensor,
                Provenance(
                    made=site, made_by=f"torch.load({name})", loaded=Loaded(site, name, device, mapped)
                ),
            )
            if self.local_rank is not None:
                self.check_rank(tensor.device, site, f"torch.load({name})")

    def load_failed(self, exc: BaseException, source: Any, caller: FrameType) -> None:
        site = self.frames.site(caller)
        saved_on = _saved_location(exc)
        if site is None or saved_on is None:
            return
        name = _source_name(source)
        finding = Finding(
            id="checkpoint_device",
            summary=f"torch.load({name}) at {site_text(site)} failed: the checkpoint was saved on "
            f"{saved_on}, which this process does not have, and no map_location maps it elsewhere",
            site=site,
            evidence=[f"{name} holds tensors saved on {saved_on} (torch.save keeps each tensor's device)"],
            fix=f"load it onto this process's device: torch.load({name}, map_location=device) at "
            f"{site_text(site)} (map_location='cpu' to load on the CPU first)",
        )
        self.load_failures.append((exc, finding))

    def batch_taken(self, batch: Any, caller: FrameType) -> None:
        site = self.frames.site(caller)
        if site is None:
            return
        for tensor in self._batch_tensors(batch):
            known = self.tensors.get(tensor)
            # A batch from worker processes is rebuilt here by torch's own factories (torch.empty over shared
            # memory), which the recorder sees as made on the loop's line: it is a batch all the same.
            if known is None or (known.made == site and known.moved is None and known.loaded is None):
                self.tensors.put(tensor, Provenance(made=site, made_by=BATCH))

    def _batch_tensors(self, batch: Any) -> list[Any]:
        """The tensors of a batch: the tensor, the tensors of a tuple, list or dict of them (the usual
        batches, without a generic walk), or what a bounded walk finds in anything else."""
        tensor = self.torch.Tensor
        if isinstance(batch, tensor):
            return [batch]
        items = (
            batch.values() if isinstance(batch, dict) else batch if isinstance(batch, list | tuple) else None
        )
        if items is not None and all(isinstance(item, tensor) for item in items):
            return list(items)
        return [found for _, found in tensors_in(batch, "", self.torch)]

    def buffer_registered(self, module: Any, name: str, tensor: Any) -> None:
        if tensor is None:
            return
        provenance = self.tensors.pop(tensor)
        if provenance is None:
            site = self.frames.site(sys._getframe(1))
            provenance = Provenance(made=site, made_by="register_buffer") if site else None
        if provenance is not None:
            self.module_record(module).buffers[name] = provenance

    def module_registered(self, parent: Any, name: str, child: Any) -> None:
        self.module_record(parent)
        if child is not None:
            record = self.module_record(child)
            if record.attached is None:
                record.attached = self.frames.site(sys._getframe(1))

    def parameter_registered(self, module: Any, name: str, parameter: Any) -> None:
        self.module_record(module)

    # --- helpers -----------------------------------------------------------------------------------------

    def module_record(self, module: Any) -> ModuleRecord:
        record = self.modules.get(module)
        if record is None:
            record = ModuleRecord()
            self.modules.put(module, record)
        return record

    def known_modules(self) -> list[Any]:
        return [module for module, _ in self.modules.items()]

    def roots(self, extra: list[Any] | None = None) -> list[Any]:
        """The known modules no other known module holds (a model, not its layers), biggest first."""
        known = self.known_modules() + [m for m in extra or [] if isinstance(m, self.torch.nn.Module)]
        unique = list({id(m): m for m in known}.values())
        children = {
            id(child) for m in unique for child in vars(m).get("_modules", {}).values() if child is not None
        }
        roots = [_compiled_inner(m) for m in unique if id(m) not in children]
        return list({id(m): m for m in roots}.values())

    def owner_of(self, tensor: Any, extra: list[Any] | None = None) -> Owner | None:
        """The module that holds ``tensor`` (a parameter, a buffer or a plain attribute), found from the
        known roots and ``extra`` modules."""
        for root in self.roots(extra):
            for prefix, module in _named_modules(root):
                own = vars(module)
                for kind, table in (
                    ("parameter", own.get("_parameters", {})),
                    ("buffer", own.get("_buffers", {})),
                    ("attribute", own),
                ):
                    for attribute, value in table.items():
                        if value is tensor:
                            return Owner(root, prefix, module, attribute, kind)
                for attribute, value in vars(module).items():
                    if isinstance(value, list | tuple | dict) and not attribute.startswith("_"):
                        for where, found in tensors_in(value, attribute, self.torch):
                            if found is tensor:
                                return Owner(root, prefix, module, where, "container")
        return None

    def root_of(self, module: Any, extra: list[Any] | None = None) -> tuple[Any, str]:
        """The known root holding ``module`` and its path from there (``module`` itself, "" when none)."""
        for root in self.roots(extra):
            for prefix, found in _named_modules(root):
                if found is module:
                    return root, prefix
        return module, ""

    def is_registered(self, tensor: Any) -> bool:
        owner = self.owner_of(tensor)
        return owner is not None and owner.kind in ("parameter", "buffer")

    def count_transfer(self, source: Any, before: Any, after: Any, site: Site, non_blocking: bool) -> None:
        direction = transfers.direction(before.type, after.type)
        if direction is None:
            return
        pinned = self.pinned(source) if direction == transfers.HOST_TO_DEVICE else None
        nbytes = int(source.nbytes)
        key = (site, direction)
        entry = self.transfers.get(key)
        if entry is None:
            entry = self.transfers[key] = TransferSite(site=site, direction=direction)
        transfers.add(entry, nbytes, pinned, non_blocking)

    def count_sync(self, name: str, device_type: str, site: Site) -> None:
        if not transfers.synchronises(device_type):
            return
        entry = self.syncs.get(site)
        if entry is None:
            entry = self.syncs[site] = SyncSite(site=site)
        entry.calls[name] = entry.calls.get(name, 0) + 1

    def ddp_wrapped(self, device_ids: Any, caller: FrameType) -> None:
        """The ``device_ids`` a rank gave DistributedDataParallel, as indices (``cuda:k``, ``torch.device``,
        or k), judged against its LOCAL_RANK."""
        assert self.local_rank is not None
        if not isinstance(device_ids, list | tuple) or not device_ids:
            return
        indices = []
        for given in device_ids:
            index = given if isinstance(given, int) else self.torch.device(given).index
            if index is None:
                return
            indices.append(int(index))
        site = self.frames.site(caller)
        if site is None or ("device_ids", site) in self._reported_sites:
            return
        what = "DistributedDataParallel(...)"
        self._say_once(
            "device_ids",
            site,
            ranks.judge_device_ids(self.local_rank, indices, self.visible_gpus(), site, what),
        )

    def check_rank(self, device: Any, site: Site, what: str) -> None:
        assert self.local_rank is not None
        if device.type != "cuda" or ("rank", site) in self._reported_sites:
            return
        self._say_once(
            "rank",
            site,
            ranks.judge(self.local_rank, device.type, device.index, self.visible_gpus(), site, what),
        )

    def _say_once(self, kind: str, site: Site, finding: Finding | None) -> None:
        """A rank's finding at ``site``, kept and said the moment it is found, once per site."""
        if finding is None:
            return
        self._reported_sites.add((kind, site))
        self.add_finding(finding)
        from torchdoctor.runtime.render import finding_lines

        self.say(finding_lines(finding))

    def add_finding(self, finding: Finding) -> None:
        if len(self.findings) < MAX_FINDINGS:
            self.findings.append(finding)

    def _visible_gpus(self) -> int | None:
        cuda = getattr(self.torch, "cuda", None)
        try:
            return int(cuda.device_count()) if cuda is not None else None
        except Exception:
            return None

    def fail(self, exc: BaseException) -> None:
        """Switch everything off after an error of torchdoctor's own, and say so once; the program runs on."""
        if self.failure is not None:
            return
        where = _innermost(exc)
        self.failure = f"{type(exc).__name__}: {exc}{where}"
        self.on = False
        self.say(
            [
                f"torchdoctor switched its recorder off after an error of its own: {self.failure}",
                "  the program runs on unchanged; what was recorded before is kept",
                "  please report this, with the line above, to torchdoctor's maintainers",
            ]
        )


def _pinned(tensor: Any) -> bool | None:
    try:
        return bool(tensor.is_pinned())
    except Exception:
        return None


def _non_blocking(method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """The non_blocking flag of a .to() or .cuda() call, given by keyword or by position."""
    if "non_blocking" in kwargs:
        return bool(kwargs["non_blocking"])
    if method == "cuda":
        return len(args) > 1 and bool(args[1])
    if method == "to":
        flags = [a for a in args if isinstance(a, bool)]
        return bool(flags and flags[0])
    return False


def _module_tensors(module: Any) -> Iterator[Any]:
    yield from module.parameters()
    yield from module.buffers()


def _compiled_inner(module: Any) -> Any:
    """The model a ``torch.compile`` wrapper (OptimizedModule) holds, which is what the program moved and
    what holds the tensors; any other module itself."""
    if type(module).__name__ == "OptimizedModule":
        inner = vars(module).get("_modules", {}).get("_orig_mod")
        if inner is not None:
            return inner
    return module


def _named_modules(root: Any) -> Iterator[tuple[str, Any]]:
    try:
        yield from root.named_modules(remove_duplicate=True)
    except TypeError:  # a subclass overriding named_modules without the argument
        yield from root.named_modules()


def _dtype(tensor: Any) -> str:
    return str(tensor.dtype).removeprefix("torch.")


def _source_name(source: Any) -> str:
    if isinstance(source, str | bytes | os.PathLike):
        return repr(os.fspath(source) if not isinstance(source, bytes) else source.decode(errors="replace"))
    return f"a {type(source).__name__}"


def _saved_location(exc: BaseException) -> str | None:
    """The device tag torch.load was restoring when ``exc`` was raised: the ``location`` its
    restore_location (torch/serialization.py) received, read from the failing frames."""
    tb = exc.__traceback__
    found = None
    while tb is not None:
        value = tb.tb_frame.f_locals.get("location")
        if isinstance(value, str) and len(value) < 64:
            found = value
        tb = tb.tb_next
    return found


def _innermost(exc: BaseException) -> str:
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if last is None:
        return ""
    return f" (at {os.path.basename(last.tb_frame.f_code.co_filename)}:{last.tb_lineno})"
