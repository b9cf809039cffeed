"""``explain`` and ``triage`` know a ``torchdoctor run`` report: its stderr block pasted in a log, its JSON
report whole or in a Markdown fence; a hostile one is read in bounds and shown inert."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from torchdoctor import cli
from torchdoctor.checking import doctor, exitcodes, runner
from torchdoctor.runtime import readback
from torchdoctor.runtime.output import dumps, shareable
from torchdoctor.support import triage

from run_support import Ran, run_script


@pytest.fixture(scope="module")
def ran() -> Iterator[Ran]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DEMO_DEVICE", "meta")
        yield run_script("plain_attribute.py")


def test_a_pasted_stderr_block_becomes_the_leading_explanation(ran: Ran) -> None:
    log = f"epoch 1\n{ran.stderr}\nsome more output\n"
    (lead, *rest) = readback.explanations(log)
    assert rest == [] and lead.id == "run.device_mismatch"
    assert lead.title == "torchdoctor run: a device mismatch, operand by operand"
    assert lead.line.startswith("device mismatch at ") and "self.scale (cpu)" in lead.line
    assert any(line.startswith("Net.scale, a plain attribute, not a buffer") for line in lead.evidence)
    assert "self.register_buffer('scale'" in lead.fix.text


@pytest.mark.parametrize("fenced", [False, True], ids=["whole", "in-an-issue"])
def test_a_json_report_becomes_explanations(ran: Ran, fenced: bool) -> None:
    text = dumps(shareable(ran.report, redact=True))
    if fenced:
        text = f"My run fails:\n\n```json\n{text}```\n\nany idea?\n"
    (lead,) = readback.explanations(text)
    assert lead.id == "run.device_mismatch"
    assert any(line.startswith("self.scale: cpu, float32, shape (16,)") for line in lead.evidence)
    assert readback.is_json_report(text) is not fenced


def test_a_hostile_block_is_bounded_and_inert() -> None:
    evil = "== torchdoctor run ==\ndevice mismatch at x.py:1 in f: \x1b[2J\x07boom\n  fix: \x1b]0;title\x07\n"
    (found,) = readback.explanations(evil + "== end of torchdoctor run ==\n")
    assert "\x1b" not in found.line + found.fix.text and "\\x1b" in found.line
    assert readback.explanations(evil) == []  # no closing mark: no block
    many = ("== torchdoctor run ==\nx.py failed\n== end of torchdoctor run ==\n") * 1000
    assert len(readback.explanations(many)) == readback.MAX_BLOCKS
    assert readback.explanations('{"kind": "torchdoctor run", "findings": [') == []  # broken JSON: ignored


def test_explain_leads_with_the_run_report(ran: Ran, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(["explain", ran.stderr])
    out = capsys.readouterr().out
    assert exited.value.code == exitcodes.OK
    assert out.startswith("torchdoctor run: a device mismatch, operand by operand\n")
    assert "also in this text:" in out  # torch's own message, explained by the catalogue too


def test_triage_of_an_issue_with_a_run_report(ran: Ran) -> None:
    issue = f"Training fails with:\n\n```json\n{dumps(shareable(ran.report, redact=True))}```\n"
    with runner.Workers() as workers:
        found = triage.triage(issue, "issue.md", doctor.installed_checks(workers), workers)
    assert found.explanations[0].id == "run.device_mismatch"
    assert found.report is None and found.problems == []
    assert json.loads(json.dumps(found.to_json()))["explanations"][0]["id"] == "run.device_mismatch"
