"""``torchdoctor triage``: real issue texts judged and explained, and the links between the two."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from torchdoctor.checking import doctor, exitcodes, runner
from torchdoctor.checking.registry import Loaded
from torchdoctor.inputs import saved
from torchdoctor.model import Status
from torchdoctor.support import triage

from corpus_tools import splits
from support import FIXTURES, invoke

H100 = FIXTURES / "h100x8_cvd_2_3.json"


def corpus_text(name: str) -> str:
    return str(json.loads(splits.find("collect_env", name).read_text())["text"])


def error_text(message_id: str) -> str:
    """The first recorded text of a known message (tests/corpus/errors)."""
    return str(json.loads(splits.find("errors", message_id).read_text())[0]["text"])


@pytest.fixture(scope="module")
def shared() -> Iterator[tuple[runner.Workers, list[Loaded]]]:
    with runner.Workers() as workers:
        yield workers, doctor.installed_checks(workers)


def triaged(shared: tuple[runner.Workers, list[Loaded]], text: str, name: str = "issue.md") -> triage.Triage:
    workers, checks = shared
    return triage.triage(text, name, checks, workers)


def statuses(found: triage.Triage) -> dict[str, str]:
    assert found.report is not None
    return {v.id: v.status.value for v in found.report.verdicts}


def test_a_new_gpu_on_an_old_wheel_is_explained_and_confirmed_by_its_dump(shared: Any) -> None:
    # pytorch/pytorch#150733: an RTX 5090 D (sm_120) with torch 2.6.0+cu126, whose arch list stops at sm_90.
    found = triaged(shared, corpus_text("pytorch_pytorch_150733"))
    assert found.environment == "a collect_env dump, cut off"
    assert statuses(found)["torch.build"] == "fail"
    assert [e.id for e in found.explanations] == ["cuda.no_kernel_image"]
    (link,) = found.links
    assert link.verdict is not None and link.verdict.id == "torch.build"
    assert link.reading.startswith(
        "confirmed by the environment shown: torch.build fails: GPU 0 NVIDIA GeForce"
    )
    assert found.exit_code == exitcodes.THRESHOLD


def test_a_driver_too_old_warning_before_the_dump_meets_the_driver_verdict(shared: Any) -> None:
    # lhotse-speech/lhotse#793: torch 1.12.1+cu102 warned that the driver supports CUDA 9.1 only.
    found = triaged(shared, corpus_text("lhotse_speech_lhotse_793"))
    assert statuses(found)["torch.build"] == "fail"
    assert [link.explanation.id for link in found.links] == ["cuda.driver_too_old"]
    assert found.links[0].reading.startswith("confirmed by the environment shown: torch.build fails")


def test_checks_a_dump_cannot_answer_are_skipped_in_their_places(shared: Any) -> None:
    found = triaged(shared, corpus_text("pytorch_pytorch_150733"))
    assert found.report is not None
    _, checks = shared
    assert [v.id for v in found.report.verdicts] == [c.id for c in checks]
    skipped = [v for v in found.report.verdicts if v.status is Status.SKIP]
    assert "ddp.dryrun" in {v.id for v in skipped}
    # torch.stack is judged from a dump, and skips this one on its own: it lists no packages.
    stack = next(v for v in skipped if v.id == "torch.stack")
    assert "nothing of its stack is known from these facts" in stack.summary
    others = [v for v in skipped if v.id != "torch.stack"]
    assert all(v.summary.startswith("not in a collect_env dump (it needs the ") for v in others)


def test_an_error_without_an_environment_is_explained_and_asks_for_a_report(shared: Any) -> None:
    found = triaged(shared, error_text("torch.not_compiled_with_cuda"))
    assert found.report is None and found.environment is None
    assert [e.id for e in found.explanations] == ["torch.not_compiled_with_cuda"]
    assert found.links == []
    assert found.exit_code == exitcodes.OK


def test_a_json_report_in_a_fence_of_the_issue_is_judged(shared: Any) -> None:
    text = f"My job lands on the wrong GPU. Report:\n\n```json\n{H100.read_text()}\n```\n\nThanks!"
    found = triaged(shared, text)
    assert found.environment is not None and found.environment.startswith("a synthetic fixture")
    assert statuses(found)["cuda.visible_devices"] == "pass"


def test_a_broken_report_in_a_fence_is_a_note_and_the_errors_are_still_explained(shared: Any) -> None:
    text = '```json\n{"schema_version": 1, "facts": {}}\n```\n' + error_text("cuda.out_of_memory")
    found = triaged(shared, text)
    assert found.report is None
    assert found.problems and found.problems[0].startswith("issue.md is not a valid report: ")
    assert [e.id for e in found.explanations] == ["cuda.out_of_memory"]


def test_a_text_with_nothing_to_triage_is_refused(shared: Any) -> None:
    with pytest.raises(triage.NothingToTriage, match="holds no collect_env dump, no torchdoctor report"):
        triaged(shared, "The loss does not go down after epoch 3. Any idea?")


def test_check_from_judges_a_collect_env_dump(tmp_path: Path) -> None:
    path = tmp_path / "issue.txt"
    path.write_text(corpus_text("pytorch_pytorch_150733"))
    result = invoke("check", "--from", path.name, "--json", cwd=tmp_path)
    assert result.returncode == exitcodes.THRESHOLD, result.stderr
    data = json.loads(result.stdout)
    assert data["collect_env"]["complete"] is False
    assert {v["id"]: v["status"] for v in data["verdicts"]}["torch.build"] == "fail"
    assert "(a collect_env dump, cut off) with today's rules" in result.stderr


def test_triage_cli_writes_text_markdown_and_json(tmp_path: Path) -> None:
    path = tmp_path / "issue.md"
    path.write_text(corpus_text("lhotse_speech_lhotse_793"))
    text = invoke("triage", str(path))
    assert text.returncode == exitcodes.THRESHOLD, text.stderr
    assert "What the environment says about them:" in text.stdout
    markdown = invoke("triage", "--format", "md", str(path))
    assert markdown.stdout.startswith("<!-- torchdoctor triage: post it as a reply to the issue -->")
    assert "| ❌ fail | `torch.build` |" in markdown.stdout
    as_json = invoke("triage", "--json", "-", input_text=path.read_text())
    data = json.loads(as_json.stdout)
    assert data["links"][0]["explanation"] == "cuda.driver_too_old"
    assert data["links"][0]["status"] == "fail"
    assert data["report"]["redacted"] is True
    assert data["exit_code"] == as_json.returncode == exitcodes.THRESHOLD


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("   \n", "issue.md is empty: paste the issue text"),
        ("Nothing to see here.\n", "issue.md holds no collect_env dump, no torchdoctor report and no error"),
        (None, "issue.md is a folder, not an issue"),
    ],
    ids=["blank", "nothing-known", "directory"],
)
def test_bad_triage_input_is_one_line_and_exit_2(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "issue.md"
    if content is None:
        path.mkdir()
    else:
        path.write_text(content)
    result = invoke("triage", path.name, cwd=tmp_path)
    assert result.returncode == exitcodes.USAGE
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"torchdoctor: error: {message}"), line
    assert result.stdout == ""


def test_saved_from_text_reads_json_fenced_json_and_dumps() -> None:
    report = json.loads(H100.read_text())
    assert saved.from_text(json.dumps(report))["facts"] == report["facts"]
    assert saved.from_text(f"see\n```\n{json.dumps(report)}\n```\n")["facts"] == report["facts"]
    assert "collect_env" in saved.from_text(corpus_text("pytorch_pytorch_150733"), "dump.txt")
    with pytest.raises(saved.SavedReportError, match="no torchdoctor JSON report and no collect_env dump"):
        saved.from_text("hello")


# Per record of tests/corpus/issues: whether torchdoctor finds an environment it can judge in the text, and
# the explanations it must give, leading one first; both read off the record's labels (the errors it quotes).
EXPECTED: dict[str, tuple[bool, list[str]]] = {
    "aszc_dev_comfyui_coremlsuite_3_comment": (False, ["tensors.different_devices"]),
    "facebookresearch_fairseq_3752": (True, ["cuda.out_of_memory"]),
    "peterh0323_smart_construction_39": (False, ["cuda.driver_too_old"]),
    "pytorch_pytorch_11989": (True, ["cuda.unknown_error"]),
    # torch.mps has no attribute 'device'; macOS 13.7 refused as "MPS backend is supported on MacOS 13.0+":
    # bugs of torch itself, which no explanation names; the dump is still judged.
    "pytorch_pytorch_127676": (True, []),
    "pytorch_pytorch_164943": (True, []),
    "pytorch_pytorch_136148": (False, ["mps.op_not_implemented"]),
    "pytorch_pytorch_37209": (False, ["lib.cannot_open_shared_object"]),
    # "PyTorch Version (e.g., 1.0):Latest": a template without a version is no environment to judge.
    "pytorch_pytorch_39723": (False, ["lib.cannot_open_shared_object"]),
    "pytorch_pytorch_43845": (True, ["lib.cannot_open_shared_object"]),
    "rocm_pytorch_882": (False, ["cuda.no_kernel_image"]),
    "sshaoshuai_mtr_42": (False, ["nccl.cuda_error"]),
    "sshaoshuai_pointrcnn_128": (False, ["cuda.no_kernel_image"]),
    "ultralytics_yolov5_2389": (False, ["cuda.driver_too_old"]),
    "vaibhavs10_insanely_fast_whisper_41": (True, ["torch.not_compiled_with_cuda"]),
}


def test_every_issue_record_has_an_expectation() -> None:
    assert sorted(p.stem for p in splits.files("issues")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_real_issue_is_triaged_as_its_thread_reads(shared: Any, name: str) -> None:
    record = json.loads(splits.find("issues", name).read_text())
    has_environment, explanation_ids = EXPECTED[name]
    found = triaged(shared, record["text"], f"{name}.md")
    assert (found.report is not None) is has_environment, found.problems
    assert [e.id for e in found.explanations] == explanation_ids
    if found.report is not None:
        assert found.report.extra["collect_env"]["source"] == f"{name}.md"
        assert {v.status for v in found.report.verdicts} <= {
            Status.PASS,
            Status.WARN,
            Status.FAIL,
            Status.SKIP,
        }


def test_an_error_whose_check_passes_on_the_dump_points_at_another_environment(shared: Any) -> None:
    # Vaibhavs10/insanely-fast-whisper#41: "Torch not compiled with CUDA enabled", while the reporter's own
    # prompt shows torch 2.1.0+cu121 with CUDA available: the failing program ran in another environment.
    record = json.loads(splits.find("issues", "vaibhavs10_insanely_fast_whisper_41").read_text())
    (link,) = triaged(shared, record["text"]).links
    assert link.verdict is not None and link.verdict.status is Status.PASS
    assert "the error came from another environment (another Python, venv or conda env" in link.reading


@pytest.mark.parametrize(
    "name", ["pytorch_pytorch_11989", "pytorch_pytorch_43845", "vaibhavs10_insanely_fast_whisper_41"]
)
def test_the_cli_triages_a_real_issue_body_from_stdin(name: str) -> None:
    record = json.loads(splits.find("issues", name).read_text())
    result = invoke("triage", "--json", input_text=record["text"])
    assert result.returncode in (exitcodes.OK, exitcodes.THRESHOLD), result.stderr
    data = json.loads(result.stdout)
    has_environment, explanation_ids = EXPECTED[name]
    assert (data["report"] is not None) is has_environment
    assert [e["id"] for e in data["explanations"]] == explanation_ids
    assert data["exit_code"] == result.returncode
    assert [link["explanation"] for link in data["links"]] == [
        e["id"] for e in data["explanations"] if e["check"] and has_environment
    ]


# -- torchdoctor's own reports in an issue: the environment, never an error quoted ------------------------

NO_DRIVER_HOST = {"hostname": "laptop", "os": "Ubuntu 24.04 LTS", "machine": "x86_64", "python": "3.11.9"}


def no_driver_report() -> dict[str, Any]:
    """The JSON report of a laptop without an NVIDIA driver: its cuda_driver facts hold libcuda's
    'cannot open shared object file' as a fact."""
    from support import fixture_facts, machine_report

    facts = fixture_facts("laptop_no_driver.json")
    assert "cannot open shared object file" in facts["cuda_driver"]["load_error"]
    options = {"timeout": 30.0, "fail_on": "fail"}
    return machine_report(facts, ["torch.build", "cuda.visible_devices"], NO_DRIVER_HOST, options)


def markdown_of(data: dict[str, Any]) -> str:
    from torchdoctor.render import markdown

    return markdown.render_text(saved.report_from_json(data))


def test_the_markdown_report_the_readme_says_to_paste_is_the_environment(shared: Any) -> None:
    data = no_driver_report()
    text = markdown_of(data)
    assert "cannot open shared object file" in text  # the fact, in the report's facts block
    found = triaged(shared, text, "torchdoctor-report.md")
    assert found.environment is not None and found.environment.startswith("a Markdown report of torchdoctor")
    assert found.explanations == []  # the report's facts are not errors the user hit
    assert found.report is not None
    recorded = {v["id"]: (v["status"], v["summary"]) for v in data["verdicts"]}
    assert {v.id: (v.status.value, v.summary) for v in found.report.verdicts} == recorded


def test_a_markdown_report_with_a_traceback_around_it_explains_only_the_traceback(shared: Any) -> None:
    data = no_driver_report()
    issue = (
        "Training fails on my laptop.\n\n" + markdown_of(data) + "\n"
        "OSError: `libcudnn.so.9: cannot open shared object file: No such file or directory`\n"
    )
    found = triaged(shared, issue)
    (explanation,) = found.explanations
    assert "libcudnn.so.9" in explanation.line
    assert "missing: libcudnn.so.9" in explanation.evidence  # no stray backtick from the Markdown
    assert "libcuda.so" not in " ".join(explanation.evidence)


def test_the_json_report_is_the_environment_and_none_of_its_facts_is_quoted(shared: Any) -> None:
    data = no_driver_report()
    found = triaged(shared, json.dumps(data, indent=2), "torchdoctor-report.json")
    assert found.report is not None and found.explanations == []
    fenced = f"It breaks:\n\n```json\n{json.dumps(data)}\n```\n"
    assert triaged(shared, fenced).explanations == []


def test_the_markdown_reply_names_skipped_checks_in_one_line(shared: Any) -> None:
    import io

    from torchdoctor.support import triage_render as renderer

    found = triaged(shared, corpus_text("pytorch_pytorch_150733"))
    assert found.report is not None
    skipped = [v.id for v in found.report.verdicts if v.status is Status.SKIP]
    assert len(skipped) >= 2
    out = io.StringIO()
    renderer.render_markdown(found, out)
    reply = out.getvalue()
    assert "➖ skip" not in reply
    (line,) = [line for line in reply.splitlines() if "skipped" in line and "not answerable" in line]
    assert line.startswith(f"{len(skipped)} checks skipped")
    assert all(f"`{i}`" in line for i in skipped)
