"""A device mismatch explained from the recorder's records: every operand of the failing operation, its
device, dtype and shape, the module attribute holding it, where it was made, moved, loaded, a ``.to()`` on it
whose result was thrown away, and the fix for the one on the wrong device.

The failing operation is read from the traceback (:mod:`torchdoctor.runtime.expressions`): the innermost
frame of user code whose failing expression has operands on two devices, else the innermost frame of
``torch.nn`` (a layer's ``F.linear(input, self.weight, self.bias)``). ``--deep`` also catches the operands
torch itself received.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from types import FrameType
from typing import Any

from torchdoctor.output.wording import clipped
from torchdoctor.runtime import expressions
from torchdoctor.runtime.model import Finding, Operand, site_text
from torchdoctor.runtime.recorder import BATCH, Owner, Provenance, Recorder, is_factory
from torchdoctor.runtime.sites import Site, site_of

MAX_CHAIN = 8
"""Exceptions followed through __cause__ and __context__."""
MAX_MESSAGE = 4000
_DEVICE = re.compile(r"\b(cpu|meta|(?:cuda|mps|xpu|hpu|npu|xla|privateuseone)(?::\d+)?)\b")
# Convolutions still name tensor types:
# Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same.
_INPUT_WEIGHT = re.compile(r"Input type \(([\w.]+)\) and weight type \(([\w.]+)\)")
# Frames that only exist while torch.compile traces or runs compiled code (torch._dynamo's eval_frame wraps
# many eager functions too, so it proves nothing).
_COMPILER = tuple(
    os.sep.join(("", "torch", *parts))
    for parts in (
        ("_dynamo", "convert_frame.py"),
        ("_dynamo", "symbolic_convert.py"),
        ("_dynamo", "output_graph.py"),
        ("_inductor", ""),
        ("_functorch", "_aot_autograd", ""),
    )
)
_COMPILED_CODE = ("torch_dynamo_resume_in_", "<eval_with_key>", "torchinductor_")
_TORCH_NN = f"{os.sep}torch{os.sep}nn{os.sep}"


def exception_chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < MAX_CHAIN:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def looks_like_device_error(message: str) -> bool:
    """Torch's device-mismatch messages name two devices ("found at least two devices, cuda:0 and cpu",
    "Tensor on device meta is not on the expected device cpu"), or, for a convolution, a CUDA and a CPU
    tensor type."""
    message = message[:MAX_MESSAGE]
    if "device" in message.lower() and len(set(_DEVICE.findall(message))) >= 2:
        return True
    found = _INPUT_WEIGHT.search(message)
    return found is not None and (".cuda." in found[1]) != (".cuda." in found[2])


def explain(exc: BaseException, recorder: Recorder) -> list[Finding]:
    """What torchdoctor can say about ``exc``: a checkpoint torch.load could not place, a device mismatch
    with its operands, and whether it happened inside a compiled region; [] for any other error."""
    for error in exception_chain(exc):
        for failed, finding in recorder.load_failures:
            if failed is error:
                return [finding]
        found = _mismatch(error, recorder)
        if found:
            return found
    return []


@dataclass
class _Frame:
    frame: FrameType
    offset: int
    line: int
    user: bool


def _frames(error: BaseException, recorder: Recorder) -> list[_Frame]:
    found = []
    tb = error.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        found.append(_Frame(tb.tb_frame, tb.tb_lasti, tb.tb_lineno, recorder.frames.is_user(filename)))
        tb = tb.tb_next
    return found


def _compiled(error: BaseException, frames: list[_Frame]) -> bool:
    if type(error).__module__.startswith(("torch._dynamo", "torch._inductor")):
        return True
    for found in frames:
        code = found.frame.f_code
        if any(part in code.co_filename for part in _COMPILER):
            return True
        if code.co_name.startswith(_COMPILED_CODE[0]) or any(
            p in code.co_filename for p in _COMPILED_CODE[1:]
        ):
            return True
    return False


def _mismatch(error: BaseException, recorder: Recorder) -> list[Finding]:
    frames = _frames(error, recorder)
    message = str(error)
    gate = looks_like_device_error(message)
    captured = next((args for failed, _, args in recorder.op_failures if failed is error), None)
    if not gate and captured is None:
        return []
    compiled = _compiled(error, frames)
    ordered = [f for f in reversed(frames) if f.user] + [
        f for f in reversed(frames) if not f.user and _TORCH_NN in f.frame.f_code.co_filename
    ]
    story = _Story(recorder)
    chosen: tuple[_Frame, str, list[Operand]] | None = None
    same_line: list[tuple[str, Any]] = []
    for candidate in ordered:
        node = expressions.failing_node(candidate.frame, candidate.offset, candidate.line)
        if node is None:
            continue
        operands = story.operands(candidate.frame, node)
        devices = {o.device for o in operands if o.device}
        if len(devices) >= 2:
            chosen = (candidate, expressions.text(node), operands)
            same_line = story.statement_tensors(candidate.frame, node)
            break
        # Where torch.compile raised, the frame the program sees is the compiled call's, whose operands are
        # not the failing operation's: only operands read on two devices tell a mismatch there.
        if chosen is None and candidate.user and devices and not compiled:
            chosen = (candidate, expressions.text(node), operands)
    if captured is not None:
        chosen = story.add_captured(chosen, captured, frames)
    findings = []
    if chosen is not None and (gate or len({o.device for o in chosen[2] if o.device}) >= 2):
        where, expression, operands = chosen
        findings.append(story.finding(site_of_frame(where), expression, operands, error, same_line))
    if compiled:
        evidence = [f"{type(error).__name__}: {_first_line(message)}"]
        inside = _compiled_user_code(message)
        if inside is not None:
            evidence.append(f"in the compiled code at {inside}")
        findings.append(
            Finding(
                id="compiled_region",
                summary="the error was raised while torch.compile ran the code: torchdoctor records nothing "
                "inside a compiled region",
                evidence=evidence,
                fix="run it again with TORCH_COMPILE_DISABLE=1 to have the mismatch explained line by line",
            )
        )
    return findings


_USER_CODE = re.compile(
    r'from user code:[ \t]*\n[ \t]*File "([^"\n]{1,4096})", line (\d{1,9}), in ([^\n]{1,200})\n([^\n]{0,400})'
)


def _compiled_user_code(message: str) -> str | None:
    """Where in the program torch.compile's own message says the error arose (its "from user code" part):
    ``file:line in function: source``."""
    found = _USER_CODE.search(message[:MAX_MESSAGE])
    if found is None:
        return None
    where = site_text(Site(found[1], int(found[2]), found[3].strip()))
    source = " ".join(found[4].split())
    return f"{where}: {source}" if source else where


def site_of_frame(frame: _Frame) -> Site:
    site = site_of(frame.frame)
    return Site(site.file, frame.line, site.function)


def _first_line(message: str) -> str:
    line = message.strip().splitlines()[0] if message.strip() else ""
    return clipped(line, 200)


class _Story:
    """Builds operands and their notes from the recorder's records."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder
        self.torch = recorder.torch
        self.frame_modules: list[Any] = []
        """The modules among the failing frame's variables (``self`` in a forward)."""
        self._fixes: dict[int, _Fixing] = {}
        self._values: dict[int, Any] = {}
        """Operand (by id) -> the tensor or module it shows."""
        self._made: list[Operand] = []
        """Every operand made, kept alive so that no id above is reused for another."""

    def is_tensor(self, value: Any) -> bool:
        return isinstance(value, self.torch.Tensor)

    def is_module(self, value: Any) -> bool:
        return isinstance(value, self.torch.nn.Module)

    def is_torch(self, value: Any) -> bool:
        return str(getattr(value, "__module__", None) or "").startswith("torch")

    def operands(self, frame: FrameType, node: Any) -> list[Operand]:
        reader = expressions.Reader(frame, self.is_tensor, self.is_module, self.is_torch)
        self.frame_modules = [v for v in list(frame.f_locals.values())[:64] if self.is_module(v)]
        operands: list[Operand] = []
        seen: set[int] = set()
        for part in reader.parts(node):
            if not part.leaves:
                unread = Operand(expression=part.expression, kind="unknown")
                self._made.append(unread)
                operands.append(unread)
            for shown, value in part.leaves:
                if id(value) in seen:
                    continue
                seen.add(id(value))
                operands.append(self.operand(shown, value, reader))
        return operands

    def operand(self, shown: str, value: Any, reader: expressions.Reader | None) -> Operand:
        operand = self._operand(shown, value, reader)
        self._made.append(operand)
        self._values[id(operand)] = value
        return operand

    def _operand(self, shown: str, value: Any, reader: expressions.Reader | None) -> Operand:
        if self.is_module(value):
            return self.module_operand(shown, value)
        owner = self.owner(shown, value, reader)
        operand = Operand(
            expression=shown,
            kind="tensor",
            device=str(value.device),
            dtype=str(value.dtype).removeprefix("torch."),
            shape=[int(n) for n in value.shape],
        )
        unmoved = owner is None or owner.kind in ("attribute", "container")
        provenance = self.recorder.tensors.get(value) if unmoved else None
        # A view (view, transpose, unsqueeze, expand...) shares the storage its base was made with.
        base = getattr(value, "_base", None) if provenance is None and unmoved else None
        viewed = self.recorder.tensors.get(base) if base is not None else None
        assigned = None
        if owner is not None:
            operand.notes += self.owner_notes(owner)
            if owner.kind == "buffer":
                provenance = self.recorder.module_record(owner.module).buffers.get(owner.attribute)
            elif owner.kind == "attribute":
                assigned = self.recorder.module_record(owner.module).assigned.get(owner.attribute)
        if viewed is not None:
            operand.notes.append("a view of the tensor made below (view, transpose, unsqueeze...)")
            operand.notes += provenance_notes(viewed, operand.device)
        elif provenance is not None:
            operand.notes += provenance_notes(provenance, operand.device)
        elif assigned is not None:
            operand.notes.append(
                f"set at {site_text(assigned)}, from operations light mode does not follow (--deep finds the "
                "line of each)"
            )
        operand.notes = operand.notes or [self.unseen()]
        self._fixes[id(operand)] = _Fixing(owner, provenance or viewed, assigned, viewed is not None)
        return operand

    def owner(self, shown: str, value: Any, reader: expressions.Reader | None) -> Owner | None:
        """The module attribute holding ``value``: read from the expression (``self.scale``) or searched for
        from the modules the program moved or built."""
        extra = list(self.frame_modules)
        if reader is not None and "." in shown:
            base_text, _, attribute = shown.rpartition(".")
            try:
                base = reader.evaluate(ast.parse(base_text, mode="eval").body)
            except SyntaxError:
                base = None
            if self.is_module(base):
                own = vars(base)
                kind = next(
                    (
                        kind
                        for kind, table in (
                            ("parameter", own.get("_parameters", {})),
                            ("buffer", own.get("_buffers", {})),
                            ("attribute", own),
                        )
                        if table.get(attribute) is value
                    ),
                    None,
                )
                if kind is not None:
                    root, path = self.recorder.root_of(base, [*extra, base])
                    return Owner(root, path, base, attribute, kind)
        return self.recorder.owner_of(value, extra)

    def owner_notes(self, owner: Owner) -> list[str]:
        record = self.recorder.modules.get(owner.root)
        move = record.moves[-1] if record is not None and record.moves else None
        model = type(owner.root).__name__
        moved_at = f"{model}.{move.method}() at {site_text(move.site)}" if move is not None else None
        if owner.kind in ("attribute", "container"):
            how = (
                f"{moved_at} moved the parameters, not it"
                if moved_at
                else "Module.to() moves parameters and buffers, not plain attributes"
            )
            what = "a plain attribute" if owner.kind == "attribute" else f"in a plain {_container(owner)}"
            lines = [f"{owner.name}, {what}, not a buffer: {how}"]
        else:
            held = f"{owner.name}, a {owner.kind} of {model}"
            moved = (
                f"; {moved_at} put it on {move.device}"
                if moved_at and move is not None
                else "; the model was never moved with Module.to()"
            )
            lines = [held + moved]
        notes = self.recorder.modules.get(owner.module)
        if notes is not None:
            lines += notes.notes.get(owner.attribute, [])
        return lines

    def module_operand(self, shown: str, module: Any) -> Operand:
        first = next(iter([*module.parameters(), *module.buffers()][:1]), None)
        root, path = self.recorder.root_of(module, [*self.frame_modules, module])
        name = f"{type(root).__name__}.{path} ({type(module).__name__})" if path else type(module).__name__
        operand = Operand(
            expression=shown,
            kind="module",
            device=str(first.device) if first is not None else None,
            dtype=str(first.dtype).removeprefix("torch.") if first is not None else None,
        )
        where = f"on {operand.device}" if first is not None else "none: it has no parameters"
        operand.notes.append(f"the output of {name}, whose parameters are {where}")
        record = self.recorder.modules.get(root)
        if record is not None and record.moves:
            move = record.moves[-1]
            operand.notes.append(
                f"{type(root).__name__}.{move.method}() at {site_text(move.site)} put it on {move.device}"
            )
        elif first is not None:
            operand.notes.append(f"{type(root).__name__} was never moved with Module.to()")
        self._fixes[id(operand)] = _Fixing()
        return operand

    def unseen(self) -> str:
        if self.recorder.deep:
            return "made where torchdoctor saw nothing (inside torch's C++ code, or in another thread)"
        return (
            "made by an operation: light mode records factories, .to() and torch.load, not every "
            "operation (--deep does)"
        )

    def add_captured(
        self, chosen: tuple[_Frame, str, list[Operand]] | None, captured: list[Any], frames: list[_Frame]
    ) -> tuple[_Frame, str, list[Operand]] | None:
        """The tensors the failing torch function received (--deep): each one the source did not show takes
        the place of an operand that could not be read (``causal_mask(8)``), or is added."""
        name, tensors = captured[0], captured[1:]
        operands = list(chosen[2]) if chosen is not None else []
        shown = {id(self._values[id(o)]) for o in operands if id(o) in self._values}
        opaque = [o for o in operands if o.kind == "unknown"]
        for tensor in tensors:
            if id(tensor) in shown:
                continue
            shown.add(id(tensor))
            if opaque:
                unread = opaque.pop(0)
                operands[operands.index(unread)] = self.operand(unread.expression, tensor, None)
            else:
                operands.append(self.operand(f"an operand of {name}()", tensor, None))
        if chosen is not None:
            return (chosen[0], chosen[1], operands)
        user = next((f for f in reversed(frames) if f.user), None)
        return (user, f"{name}(...)", operands) if user is not None and operands else None

    def statement_tensors(self, frame: FrameType, node: Any) -> list[tuple[str, Any]]:
        reader = expressions.Reader(frame, self.is_tensor, self.is_module, self.is_torch)
        return expressions.statement_tensors(reader, frame, node)

    def finding(
        self,
        site: Site,
        expression: str,
        operands: list[Operand],
        error: BaseException,
        same_line: Sequence[tuple[str, Any]] = (),
    ) -> Finding:
        _read_unknown(operands, str(error), self.unseen())
        devices = [o.device for o in operands if o.device]
        expected = expected_device(devices, self.recorder)
        seen = {id(self._values.get(id(o))) for o in operands}
        for shown, value in same_line:
            # A 0-dim tensor or an integer one (a scalar, an index) may rightly stay on the CPU.
            if expected is None or id(value) in seen or str(value.device) == expected:
                continue
            if value.dim() == 0 or not (value.is_floating_point() or value.is_complex()):
                continue
            seen.add(id(value))
            later = self.operand(shown, value, None)
            later.notes.insert(
                0, f"on {later.device} too, on the same line: the next operation would fail on it"
            )
            operands.append(later)
        fixes = []
        for operand in operands:
            if expected is not None and operand.device is not None and operand.device != expected:
                operand.odd = True
                fixing = self._fixes.get(id(operand), _Fixing())
                operand.fix = fix_for(operand, fixing, expected, self.recorder.deep)
                fixes.append(operand.fix)
        odd = [o for o in operands if o.odd]
        if odd and expected is not None:
            names = ", ".join(f"{o.expression} ({o.device})" for o in odd)
            summary = f"device mismatch at {site_text(site)}: {names} on another device than {expected}"
        else:
            on = ", ".join(dict.fromkeys(devices)) or "unknown devices"
            summary = f"device mismatch at {site_text(site)}: operands on {on}"
        fix = fixes[0] if len(fixes) == 1 else "; ".join(f"{o.expression}: {o.fix}" for o in odd) or None
        if fix is None:
            fix = "put every operand on one device (tensor.to(device)) before this operation"
        return Finding(
            id="device_mismatch",
            summary=summary,
            site=site,
            evidence=[f"in: {expression}", f"{type(error).__name__}: {_first_line(str(error))}"],
            fix=fix,
            operands=operands,
        )


def _read_unknown(operands: list[Operand], message: str, unseen: str) -> None:
    """An operand that could not be read is on the device the error message names that no other operand is
    on, when that leaves exactly one."""
    named = list(dict.fromkeys(_DEVICE.findall(message[:MAX_MESSAGE])))
    known = {o.device for o in operands if o.device}
    unknown = [o for o in operands if o.device is None and o.kind == "unknown"]
    rest = [device for device in named if device not in known]
    if len(unknown) == 1 and len(rest) == 1:
        unknown[0].device = rest[0]
        unknown[0].notes += [f"on {rest[0]}: the other device the error message names", unseen]


def provenance_notes(provenance: Provenance, device: str | None) -> list[str]:
    notes = []
    if provenance.loaded is not None:
        loaded = provenance.loaded
        how = (
            f"map_location put it on {loaded.device}"
            if loaded.mapped
            else f"saved on {loaded.device}, and loaded there: torch.load got no map_location"
        )
        notes.append(f"loaded by torch.load({loaded.source}) at {site_text(loaded.site)}: {how}")
    elif provenance.made is not None and provenance.made_by == BATCH:
        notes.append(f"a batch the DataLoader gave at {site_text(provenance.made)}")
    elif provenance.made is not None:
        notes.append(f"made at {site_text(provenance.made)} by {provenance.made_by}")
        if provenance.origin is not None:
            where, factory = provenance.origin
            notes.append(f"computed from the tensor made at {site_text(where)} by {factory}")
    if provenance.moved is not None:
        notes.append(
            f"moved from {provenance.moved_from} to its device by {provenance.moved_by} at "
            f"{site_text(provenance.moved)}"
        )
    if provenance.discarded is not None:
        site, call, target, _ = provenance.discarded
        notes.append(
            f"{call} at {site_text(site)} returned a copy on {target} that was thrown away: "
            f"this tensor stayed on {device}"
        )
    return notes


def expected_device(devices: list[str], recorder: Recorder) -> str | None:
    """The device the operation should run on: this rank's GPU, else where the program last moved a model,
    else the one accelerator among the operands, else the device most operands are on."""
    distinct = list(dict.fromkeys(devices))
    if len(distinct) < 2:
        return None
    if recorder.local_rank is not None and f"cuda:{recorder.local_rank}" in distinct:
        return f"cuda:{recorder.local_rank}"
    if recorder.last_move_device in distinct:
        return recorder.last_move_device
    accelerators = [d for d in distinct if d != "cpu"]
    if len(accelerators) == 1:
        return accelerators[0]
    counts = {d: devices.count(d) for d in distinct}
    best = max(counts.values())
    leaders = [d for d, n in counts.items() if n == best]
    return leaders[0] if len(leaders) == 1 else None


@dataclass(frozen=True)
class _Fixing:
    """What the fix of an operand is made from: the module attribute holding it, its history (or its base's,
    for a view), and where a plain attribute was set."""

    owner: Owner | None = None
    provenance: Provenance | None = None
    assigned: Site | None = None
    view: bool = False


def _container(owner: Owner) -> str:
    """``list``, ``tuple`` or ``dict``: the plain container attribute that holds the tensor."""
    held = vars(owner.module).get(owner.attribute.split("[", 1)[0])
    return type(held).__name__ if isinstance(held, list | tuple | dict) else "container"


def fix_for(operand: Operand, fixing: _Fixing, expected: str, deep: bool) -> str:
    target = repr(expected)
    owner, provenance = fixing.owner, fixing.provenance
    if operand.kind == "module":
        return f"move the model to {expected} before calling it: model.to({target})"
    if owner is not None and owner.kind == "container":
        held = owner.attribute.split("[", 1)[0]
        buffer = f"self.register_buffer({held!r}, torch.stack([...]))"
        return (
            f"hold them where Module.to() moves them: instead of the plain {_container(owner)} "
            f"{type(owner.module).__name__}.{held}, one buffer ({buffer} when they have one shape) or a "
            "buffer each; or move them in forward with .to(x.device)"
        )
    if owner is not None and owner.kind == "attribute":
        factory = provenance is not None and not fixing.view and is_factory(provenance.made_by)
        made = f"{provenance.made_by}(...)" if factory and provenance is not None else "tensor"
        at = fixing.assigned or (provenance.made if provenance is not None else None)
        where = f" at {site_text(at)}" if at is not None else ""
        return (
            f"register it as a buffer in {type(owner.module).__name__}.__init__ instead of a plain "
            f"attribute: self.register_buffer({owner.attribute!r}, {made}){where} (persistent=False keeps "
            "it out of the state_dict); Module.to() then moves it with the parameters"
        )
    if provenance is not None and provenance.discarded is not None:
        site, call, _, kept = provenance.discarded
        if kept is not None:
            return f"keep the result at {site_text(site)}: {kept} (Tensor.to returns a new tensor)"
        return (
            f"{call} at {site_text(site)} returns a new tensor, which is thrown away: use what it returns "
            "where the tensor is used (Tensor.to never moves a tensor in place)"
        )
    if owner is not None:
        return f"move the whole model to {expected} before using it: model.to({target})"
    if provenance is not None and provenance.loaded is not None:
        loaded = provenance.loaded
        return (
            f"load it onto the right device: torch.load({loaded.source}, map_location={target}) at "
            f"{site_text(loaded.site)}"
        )
    if provenance is not None and provenance.moved is not None:
        return (
            f"{provenance.moved_by} at {site_text(provenance.moved)} put it on {operand.device}: move it to "
            f"{expected} there"
        )
    if provenance is not None and provenance.made_by == BATCH and provenance.made is not None:
        name = operand.expression if operand.expression.isidentifier() else "x"
        return (
            f"move the batch to {expected} right after {site_text(provenance.made)}: {name} = "
            f"{name}.to({target}) for each tensor of it"
        )
    if provenance is not None and provenance.made is not None and is_factory(provenance.made_by):
        return (
            f"make it on {expected} where it is made: {provenance.made_by}(..., device={target}) at "
            f"{site_text(provenance.made)}, or move it there with .to({target}) before it is used"
        )
    if provenance is not None and provenance.origin is not None:
        start, maker = provenance.origin
        return (
            f"make it on {expected} where its values start: {maker}(..., device={target}) at "
            f"{site_text(start)} (it is computed from that), or move the result with .to({target})"
        )
    if provenance is not None and provenance.made is not None:
        return (
            f"it is computed by {provenance.made_by} at {site_text(provenance.made)} from tensors on "
            f"{operand.device}: make those on {expected} (device={target}), or move the result with "
            f".to({target})"
        )
    hint = "" if deep else "; torchdoctor run --deep finds the line that made it"
    return f"move it with .to({target}) before this operation{hint}"
