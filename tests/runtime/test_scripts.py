"""The classic mistakes, each a script of scripts/ run in this process as ``torchdoctor run`` runs it: the
report names the lines of the mistake (marked ``# name`` in the script), the error goes out unchanged and the
exit code is the script's. Device mismatches on the CPU build come from ``meta`` tensors (element-wise ops
between cpu and meta raise torch's device error) or from the fake CUDA machine of conftest.py."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from torchdoctor.runtime.model import Finding
from torchdoctor.runtime.session import Options
from torchdoctor.runtime.sites import Site, shown_path

from fake_cuda import fake_cuda, save_checkpoint_on
from run_support import SCRIPTS, Ran, marked_line, run_script
from support import assert_valid


def site(script: str, marker: str) -> str:
    """``file:line`` of the marked line as torchdoctor shows it (relative to the working directory)."""
    return f"{shown_path(str(SCRIPTS / script))}:{marked_line(script, marker)}"


def finding(ran: Ran, kind: str) -> Finding:
    found = [f for f in ran.report.findings if f.id == kind]
    assert found, f"no {kind} finding in:\n{ran.stderr}"
    return found[0]


def valid(ran: Ran) -> None:
    assert_valid(ran.report.to_json(), "run_report")


@pytest.fixture
def meta(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEMO_DEVICE", "meta")


def test_a_plain_tensor_attribute_is_named_with_where_it_was_made_and_moved(meta: None) -> None:
    ran = run_script("plain_attribute.py")
    assert ran.code == 1
    mismatch = finding(ran, "device_mismatch")
    assert mismatch.site is not None and mismatch.site.line == marked_line("plain_attribute.py", "fails")
    (odd,) = [o for o in mismatch.operands if o.odd]
    assert (odd.expression, odd.device, odd.shape) == ("self.scale", "cpu", [16])
    notes = "\n".join(odd.notes)
    assert "Net.scale, a plain attribute, not a buffer" in notes
    assert f"Net.to() at {site('plain_attribute.py', 'moved')}" in notes
    assert f"made at {site('plain_attribute.py', 'made')} in __init__ by torch.ones" in notes
    assert mismatch.fix is not None and "self.register_buffer('scale', torch.ones(...))" in mismatch.fix
    # The block, then the error itself as Python prints it, message unchanged, torchdoctor's frames left out.
    block_end = ran.stderr.index("== end of torchdoctor run")
    assert ran.stderr.index("Traceback (most recent call last):") > block_end
    assert ran.stderr.rstrip().endswith(
        "RuntimeError: Tensor on device cpu is not on the expected device meta!"
    )
    assert "torchdoctor/runtime" not in ran.stderr[block_end:]
    valid(ran)


def test_a_discarded_to_is_named_with_its_line_and_the_assignment_that_fixes_it(meta: None) -> None:
    ran = run_script("discarded_to.py")
    mismatch = finding(ran, "device_mismatch")
    (odd,) = [o for o in mismatch.operands if o.odd]
    assert odd.expression == "y"
    assert any(
        n.startswith(f"y.to(DEVICE) at {site('discarded_to.py', 'discarded')}") and "thrown away" in n
        for n in odd.notes
    )
    assert mismatch.fix == (
        f"keep the result at {site('discarded_to.py', 'discarded')} in <module>: y = y.to(DEVICE) "
        "(Tensor.to returns a new tensor)"
    )
    model = next(o for o in mismatch.operands if o.kind == "module")
    assert model.expression == "model(x)" and model.device == "meta"


def test_a_cpu_tensor_from_a_helper_in_another_file_is_traced_to_the_helper(meta: None) -> None:
    ran = run_script("helper_tensor.py", "bias")
    mismatch = finding(ran, "device_mismatch")
    assert mismatch.site is not None and mismatch.site.line == marked_line(
        "helper_tensor.py", "fails with the bias"
    )
    (odd,) = [o for o in mismatch.operands if o.odd]
    assert odd.expression == "bias"
    assert f"made at {site('mask_helpers.py', 'made')} in position_bias by torch.zeros" in odd.notes
    assert f"torch.zeros(..., device='meta') at {site('mask_helpers.py', 'made')}" in str(mismatch.fix)


def test_deep_traces_the_result_of_an_operation_to_the_helper_line(meta: None) -> None:
    light = run_script("helper_tensor.py", "mask")
    (unread,) = [o for o in finding(light, "device_mismatch").operands if o.odd]
    assert unread.expression == "causal_mask(8)" and unread.device == "cpu"  # read from the message
    assert "--deep" in str(unread.fix)
    deep = run_script("helper_tensor.py", "mask", options=Options(deep=True))
    (odd,) = [o for o in finding(deep, "device_mismatch").operands if o.odd]
    assert (odd.expression, odd.shape) == ("causal_mask(8)", [8, 8])
    assert f"made at {site('mask_helpers.py', 'op')} in causal_mask by tril" in odd.notes
    valid(deep)


def test_a_checkpoint_saved_on_another_gpu_names_the_load_without_map_location(
    tmp_path: Path,
) -> None:
    checkpoint = tmp_path / "checkpoint.pt"
    save_checkpoint_on(checkpoint, "cuda:3")
    with fake_cuda():
        ran = run_script("checkpoint_device.py", str(checkpoint))
    assert ran.code == 1
    mismatch = finding(ran, "device_mismatch")
    (odd,) = [o for o in mismatch.operands if o.odd]
    assert (odd.expression, odd.device) == ("state['bias']", "cuda:3")
    loaded = site("checkpoint_device.py", "loaded")
    assert any(n.startswith(f"loaded by torch.load({str(checkpoint)!r}) at {loaded}") for n in odd.notes)
    assert "saved on cuda:3, and loaded there: torch.load got no map_location" in odd.notes[0]
    assert f"map_location='cuda:0') at {loaded}" in str(mismatch.fix)
    assert ran.stderr.rstrip().endswith(
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cuda:3!"
    )


def test_ranks_all_on_cuda0_are_named_with_their_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LOCAL_RANK", "1")
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "2")
    with fake_cuda(device_count=2):
        ran = run_script("ranks_cuda0.py")
    assert ran.code == 0 and ran.stdout.startswith("rank 1:")
    lines = sorted(f.site.line for f in ran.report.findings if f.id == "rank_device" and f.site)
    assert lines == [
        marked_line("ranks_cuda0.py", "model on cuda:0"),
        marked_line("ranks_cuda0.py", "batch on cuda:0"),
    ]
    assert "== torchdoctor run [rank 1] ==" in ran.stderr
    assert "torch.cuda.set_device(1)" in str(ran.report.findings[0].fix)
    assert ran.report.rank == {"rank": 1, "local_rank": 1, "world_size": 2}
    valid(ran)


@pytest.mark.parametrize(("local_rank", "gpus"), [("0", 2), ("1", 1)], ids=["rank-0", "one-gpu-per-rank"])
def test_a_rank_on_its_own_cuda0_is_fine(monkeypatch: pytest.MonkeyPatch, local_rank: str, gpus: int) -> None:
    monkeypatch.setenv("LOCAL_RANK", local_rank)
    with fake_cuda(device_count=gpus):
        ran = run_script("ranks_cuda0.py")
    assert [f for f in ran.report.findings if f.id == "rank_device"] == []


def test_non_blocking_from_pageable_memory_and_tiny_copies_are_named_by_line() -> None:
    with fake_cuda():
        ran = run_script("pageable_non_blocking.py")
    pageable = finding(ran, "non_blocking_pageable")
    assert pageable.site is not None and pageable.site.line == marked_line(
        "pageable_non_blocking.py", "pageable"
    )
    tiny = finding(ran, "tiny_copies")
    assert tiny.site is not None and tiny.site.line == marked_line("pageable_non_blocking.py", "tiny")
    by_line = {t.site.line: t for t in ran.report.transfers}
    copies = by_line[marked_line("pageable_non_blocking.py", "pageable")]
    assert (copies.count, copies.bytes, copies.pageable, copies.non_blocking_pageable) == (
        8,
        8 * 64 * 1024 * 4,
        8,
        8,
    )
    assert by_line[marked_line("pageable_non_blocking.py", "tiny")].count == 1200
    valid(ran)


def test_fp16_overflow_after_half_names_the_module_its_input_range_and_the_half_line() -> None:
    ran = run_script("fp16_overflow.py", options=Options(nan=True))
    assert ran.code == 0 and "0 inf" in ran.stdout
    nonfinite = finding(ran, "nonfinite")
    assert nonfinite.summary.startswith(
        "Net.scores (Scores) returned inf or NaN in float16 in forward pass 1"
    )
    assert "float16 holds at most 65504" in nonfinite.summary
    reached = float(nonfinite.summary.split("inputs reached ")[1].split(",")[0])
    assert 255 < reached < 65504  # the inputs were fine; the unscaled products overflowed
    assert nonfinite.evidence == [
        f"Net was converted to float16 by Net.half() at {site('fp16_overflow.py', 'converted')} in <module>"
    ]
    valid(ran)


def test_scripts_are_plain_programs() -> None:
    """The scripts run with plain python too (bench/gpu_smoke.sh runs them on a GPU): they import torch, the
    standard library and each other, never a test helper or torchdoctor."""
    own = {path.stem for path in SCRIPTS.glob("*.py")}
    for script in SCRIPTS.glob("*.py"):
        tree = ast.parse(script.read_text())
        imported = {
            name.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            for name in (
                [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            )
        }
        assert imported <= {"torch", *own, *sys.stdlib_module_names}, (script.name, imported)


def test_a_checkpoint_for_a_gpu_this_machine_lacks_names_the_load(tmp_path: Path) -> None:
    checkpoint = tmp_path / "checkpoint.pt"
    save_checkpoint_on(checkpoint, "cuda:3")
    ran = run_script("checkpoint_device.py", str(checkpoint))
    assert ran.code == 1
    failed = finding(ran, "checkpoint_device")
    assert failed.site is not None and failed.site.line == marked_line("checkpoint_device.py", "loaded")
    assert "saved on cuda:3" in failed.summary and "map_location=device" in str(failed.fix)
    assert (
        ran.stderr.rstrip().splitlines()[-1].startswith("RuntimeError: Attempting to deserialize object on")
    )


def test_implicit_synchronisations_are_counted_only_where_the_device_makes_the_host_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DEMO_DEVICE", "cpu")
    ran = run_script("implicit_syncs.py", options=Options(deep=True))
    assert ran.code == 0 and ran.report.syncs == []  # a CPU tensor's .item() waits for nothing
    from torchdoctor.runtime.recorder import Recorder

    recorder = Recorder.__new__(Recorder)
    recorder.syncs = {}
    where = Site("train.py", 7, "main")
    for device in ("cuda", "cuda", "cpu", "meta", "mps"):
        recorder.count_sync(".item()", device, where)
    assert recorder.syncs[where].calls == {".item()": 3}


@pytest.mark.parametrize(
    ("case", "fix"),
    [
        (
            "dict",
            "keep the result at {site} in <module>: batch[name] = value.to(DEVICE) "
            "(Tensor.to returns a new tensor)",
        ),
        (
            "list",
            "tensor.to(DEVICE) at {site} in <module> returns a new tensor, which is thrown away: use what it "
            "returns where the tensor is used (Tensor.to never moves a tensor in place)",
        ),
    ],
)
def test_a_discarded_to_in_a_loop_gets_a_fix_that_is_valid_python_for_that_loop(
    meta: None, case: str, fix: str
) -> None:
    """Assigning the loop variable would not change the dict: the fix assigns the dict's entry; over a list
    no one statement is right, and none is given."""
    ran = run_script("discarded_in_loops.py", case)
    mismatch = finding(ran, "device_mismatch")
    assert mismatch.fix == fix.format(site=site("discarded_in_loops.py", f"discarded in a {case} loop"))
    if case == "dict":
        statement = mismatch.fix.split(": ", 1)[1].split(" (", 1)[0]
        assert isinstance(ast.parse(statement).body[0], ast.Assign)


@pytest.mark.parametrize(
    ("case", "expression", "held"),
    [
        ("list", "self.cell_anchors[0]", "AnchorHead.cell_anchors[0], in a plain list"),
        ("dict", "self.priors['p3']", "AnchorHead.priors['p3'], in a plain dict"),
    ],
)
def test_a_tensor_in_a_plain_list_or_dict_of_a_module_is_named_as_such(
    meta: None, case: str, expression: str, held: str
) -> None:
    """As torchdoctor.audit() names them: Module.to() moved the parameters, not the tensors in the
    container."""
    ran = run_script("anchors_in_list.py", case)
    mismatch = finding(ran, "device_mismatch")
    (odd,) = [o for o in mismatch.operands if o.odd]
    assert odd.expression == expression
    moved = site("anchors_in_list.py", "moved")
    assert (
        f"{held}, not a buffer: AnchorHead.to() at {moved} in <module> moved the parameters, not it"
        in odd.notes
    )
    assert any(
        n.startswith(f"made at {site('anchors_in_list.py', f'made in a {case}')} in ") for n in odd.notes
    )
    assert mismatch.fix is not None and mismatch.fix.startswith("hold them where Module.to() moves them")
    assert f"plain {case} AnchorHead.{'cell_anchors' if case == 'list' else 'priors'}" in mismatch.fix


@pytest.mark.parametrize("case", ["pe", "mask", "inv_freq"])
def test_a_plain_attribute_made_by_operations_light_mode_does_not_wrap_is_traced_to_a_line(
    meta: None, case: str
) -> None:
    """A view (transpose, unsqueeze) is traced to the factory that made its storage; a tensor computed by
    other operations (tril, arithmetic) to the line that set the attribute; either way the fix names the line
    where the buffer belongs."""
    ran = run_script("derived_attributes.py", case)
    mismatch = finding(ran, "device_mismatch")
    (odd,) = [o for o in mismatch.operands if o.odd]
    assert odd.notes[0].startswith(f"Block.{case}, a plain attribute, not a buffer")
    if case == "pe":
        assert odd.notes[1:3] == [
            "a view of the tensor made below (view, transpose, unsqueeze...)",
            f"made at {site('derived_attributes.py', 'pe made')} in __init__ by torch.zeros",
        ]
    else:
        assert odd.notes[1].startswith(f"set at {site('derived_attributes.py', f'{case} set')} in __init__")
    assert mismatch.fix == (
        f"register it as a buffer in Block.__init__ instead of a plain attribute: self.register_buffer("
        f"{case!r}, tensor) at {site('derived_attributes.py', f'{case} set')} in __init__ (persistent=False "
        "keeps it out of the state_dict); Module.to() then moves it with the parameters"
    )


def test_a_mismatch_inside_compiled_code_names_the_compiled_line_and_no_operands_of_the_call(
    meta: None,
) -> None:
    """The frame the program sees is the compiled call's, whose operands are all on one device: no mismatch
    of those is made up; torch.compile's own message says where in the program it arose."""
    ran = run_script("compiled_model.py")
    assert ran.code == 1
    assert [f.id for f in ran.report.findings if f.id in ("device_mismatch", "compiled_region")] == [
        "compiled_region"
    ]
    compiled = finding(ran, "compiled_region")
    where = site("compiled_model.py", "fails inside the compiled code")
    assert compiled.evidence[1].startswith(
        f"in the compiled code at {where} in forward: return self.fc(x) * self.scale"
    )


def test_a_compiled_model_run_eagerly_is_the_model_that_was_moved(
    meta: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With TORCH_COMPILE_DISABLE=1 (torch._dynamo's config.disable) the mismatch is explained: the model is
    named as it was written, and its move before torch.compile is found through the OptimizedModule that wraps
    it."""
    import torch._dynamo

    monkeypatch.setattr(torch._dynamo.config, "disable", True)
    ran = run_script("compiled_model.py")
    mismatch = finding(ran, "device_mismatch")
    (odd,) = [o for o in mismatch.operands if o.odd]
    moved = site("compiled_model.py", "moved")
    assert odd.notes[0] == (
        f"Net.scale, a plain attribute, not a buffer: Net.to() at {moved} in <module> moved the parameters, "
        "not it"
    )
    assert not any(
        "never moved" in note or "OptimizedModule" in note for o in mismatch.operands for note in o.notes
    )


def test_nan_from_finite_inputs_far_inside_the_range_is_a_domain_error_not_an_overflow() -> None:
    """--nan judges by the values it saw: NaN and no inf from inputs near 1 is an operation outside its
    domain, and the fix says so instead of prescribing autocast or scaling."""
    ran = run_script("bf16_log_domain.py", options=Options(nan=True))
    assert ran.code == 0 and ran.stdout.startswith("True True")
    nonfinite = finding(ran, "nonfinite")
    assert nonfinite.summary.startswith("Net.head (LogHead) returned NaN, and no inf, in bfloat16")
    assert nonfinite.summary.endswith("not an overflow, but an operation outside its domain")
    reached = float(nonfinite.summary.split("finite inputs of at most ")[1].split(" ")[0])
    assert reached < 10
    assert nonfinite.fix is not None and "autocast would give the same NaN" in nonfinite.fix
    assert "GradScaler" not in nonfinite.fix
    valid(ran)


def test_deep_traces_a_computed_tensor_to_the_factory_that_lacked_device(meta: None) -> None:
    """--deep names the last operation's line and, past it, the factory call the values started from: the
    line where device= is missing."""
    ran = run_script("rotary_frequencies.py", options=Options(deep=True))
    mismatch = finding(ran, "device_mismatch")
    (odd,) = [o for o in mismatch.operands if o.odd]
    made = site("rotary_frequencies.py", "made without device")
    assert odd.notes[0].startswith(f"made at {site('rotary_frequencies.py', 'last operation')} in rotary_")
    assert odd.notes[1] == f"computed from the tensor made at {made} in rotary_frequencies by torch.arange"
    assert mismatch.fix == (
        f"make it on meta where its values start: torch.arange(..., device='meta') at {made} in "
        "rotary_frequencies (it is computed from that), or move the result with .to('meta')"
    )


def test_every_tensor_on_the_wrong_device_in_the_failing_line_is_named(meta: None) -> None:
    """The operation that raised is the first of the line; the bias further along would fail next, and is
    named too; the CPU index is not (indexing with a CPU tensor is allowed)."""
    ran = run_script("chained_operands.py")
    mismatch = finding(ran, "device_mismatch")
    odd = {o.expression: o for o in mismatch.operands if o.odd}
    assert set(odd) == {"scale", "bias"}
    assert odd["bias"].notes[0] == "on cpu too, on the same line: the next operation would fail on it"
    assert (
        f"made at {site('chained_operands.py', 'bias made')} in <module> by torch.zeros" in odd["bias"].notes
    )
    assert mismatch.summary.endswith("scale (cpu), bias (cpu) on another device than meta")
    assert (
        mismatch.fix is not None
        and mismatch.fix.startswith("scale: make it on meta")
        and "bias: " in mismatch.fix
    )
