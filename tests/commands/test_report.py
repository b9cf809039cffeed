"""`torchdoctor report` end to end on this CPU machine: file names, formats, atomic writes, no overwrite."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

import pytest

from torchdoctor.checking import exitcodes
from torchdoctor.model import Fix, Report, Status, Verdict
from torchdoctor.output.files import write_new
from torchdoctor.render import markdown

from support import build_words, invoke, torch_here, torch_release, validated_report

ONLY = ("--only", "torch.build,cuda.visible_devices")


@pytest.fixture(scope="module")
def saved_json(saved_report: dict[str, Any]) -> Path:
    """`torchdoctor report -o ticket.json` of this machine, with a warning (conftest.py): the saved report the
    tests of ``report --from`` write again."""
    assert saved_report["returncode"] == exitcodes.OK, saved_report["stderr"]
    assert "(JSON, redacted)" in saved_report["stdout"]
    return Path(saved_report["path"])


@pytest.fixture(scope="module")
def default_run(tmp_path_factory: pytest.TempPathFactory, saved_json: Path) -> tuple[Path, str]:
    """`torchdoctor report` with no -o, in an empty folder: what it wrote and what it said (of the run
    saved_json probed, so that one run of the probes serves every test here)."""
    folder = tmp_path_factory.mktemp("ticket")
    result = invoke("report", "--from", str(saved_json), cwd=folder)
    assert result.returncode == exitcodes.OK, result.stderr
    return folder, result.stdout


def test_without_o_it_writes_markdown_to_torchdoctor_report_md(default_run: tuple[Path, str]) -> None:
    folder, stdout = default_run
    assert sorted(p.name for p in folder.iterdir()) == ["torchdoctor-report.md"]
    assert stdout == "wrote torchdoctor-report.md (Markdown, redacted): 1 warning in 2 checks\n"
    mode = stat.S_IMODE((folder / "torchdoctor-report.md").stat().st_mode)
    umask = os.umask(0)
    os.umask(umask)
    assert mode == 0o666 & ~umask


def test_the_markdown_is_ready_for_a_github_issue(default_run: tuple[Path, str]) -> None:
    text = (default_run[0] / "torchdoctor-report.md").read_text()
    lines = text.splitlines()
    assert lines[0].startswith("<!--") and lines[1] == "### torchdoctor report"
    table = lines.index("| status | check | verdict |")
    assert lines[table + 2].startswith(
        f"| ✅ pass | `torch.build` | torch {torch_here()['version']}, {build_words()} build; no NVIDIA GPU "
    )
    assert lines[table + 3].startswith("| ⚠️ warn | `cuda.visible_devices` | CUDA_VISIBLE_DEVICES='0,0' hides")
    # The problem in full, then its fix as a command block, before the facts.
    problem = lines.index(
        next(line for line in lines if line.startswith("#### ⚠️ warn `cuda.visible_devices`"))
    )
    details = lines.index("<details>")
    assert table < problem < details
    assert "```bash\nnvidia-smi -L\n```" in text
    summary = lines[details + 1]
    assert summary.startswith("<summary>Facts: System, ")  # then "Tools on the PATH, " where there are any
    assert "PyTorch, NVIDIA driver, Environment variables" in summary
    assert lines[-1] == "</details>"
    assert "| NCCL_DEBUG | `INFO` |" in text
    assert "| CUDA_VISIBLE_DEVICES | `0,0` |" in text
    assert f"| torch | `{torch_here()['version']}` |" in text


def test_an_existing_file_is_never_overwritten_without_force(
    default_run: tuple[Path, str], saved_json: Path
) -> None:
    folder, _ = default_run
    target = folder / "torchdoctor-report.md"
    before = target.read_text()
    refused = invoke("report", "--from", str(saved_json), cwd=folder)
    assert refused.returncode == exitcodes.USAGE
    assert refused.stderr == "torchdoctor: error: torchdoctor-report.md exists: use --force to overwrite it\n"
    assert target.read_text() == before
    forced = invoke("report", "--from", str(saved_json), "--only", "torch.build", "--force", cwd=folder)
    assert forced.returncode == exitcodes.OK, forced.stderr
    assert target.read_text() != before  # one check now, not two
    assert target.read_text().splitlines()[1] == "### torchdoctor report"
    assert sorted(p.name for p in folder.iterdir()) == ["torchdoctor-report.md"]  # no temporary file left


def test_o_with_a_json_suffix_writes_a_valid_redacted_json_report(saved_json: Path) -> None:
    data = validated_report(saved_json.read_text())
    assert data["redacted"] is True
    assert re.fullmatch(r"<host-[0-9a-f]{6,}>", data["host"]["hostname"])
    assert set(data["facts"]) >= {"torch", "nvml", "cuda_driver", "env", "installed_packages"}
    assert data["facts"]["installed_packages"]["packages"]["torch"].startswith(torch_release())


def test_from_writes_the_report_of_a_saved_one_judged_today_in_every_format(
    saved_json: Path, tmp_path: Path
) -> None:
    for fmt in ("md", "json", "html", "svg"):
        result = invoke("report", "--from", str(saved_json), "--format", fmt, cwd=tmp_path)
        assert result.returncode == exitcodes.OK, result.stderr
        assert result.stdout.startswith(f"wrote torchdoctor-report.{fmt} (")
        assert result.stdout.endswith(": 1 warning in 2 checks\n")
        assert result.stderr.startswith(f"torchdoctor: judging the facts of {saved_json} (torchdoctor ")
    rejudged = validated_report((tmp_path / "torchdoctor-report.json").read_text())
    saved = json.loads(saved_json.read_text())
    assert rejudged["facts"] == saved["facts"] and rejudged["host"] == saved["host"]
    assert [(v["id"], v["status"]) for v in rejudged["verdicts"]] == [
        (v["id"], v["status"]) for v in saved["verdicts"]
    ]


def test_from_refuses_what_only_probes_read_and_a_bad_file_before_writing(
    saved_json: Path, tmp_path: Path
) -> None:
    for args, message in [
        (["--timeout", "5"], "--timeout cannot be used with --from: it judges saved facts, no probe runs"),
        (["--nproc", "2"], "--nproc cannot be used with --from"),
        (["--only", "gpu.memory"], f"no check selected here can be judged from {saved_json}"),
    ]:
        result = invoke("report", "--from", str(saved_json), *args, cwd=tmp_path)
        assert result.returncode == exitcodes.USAGE, result.stderr
        assert result.stderr.splitlines()[-1].startswith(f"torchdoctor: error: {message}")
    (tmp_path / "notes.txt").write_text("not a report\n")
    result = invoke("report", "--from", "notes.txt", cwd=tmp_path)
    assert result.returncode == exitcodes.USAGE
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_format_html_without_o_writes_torchdoctor_report_html(saved_json: Path, tmp_path: Path) -> None:
    result = invoke("report", "--from", str(saved_json), "--format", "html", cwd=tmp_path)
    assert result.returncode == exitcodes.OK, result.stderr
    text = (tmp_path / "torchdoctor-report.html").read_text()
    assert text.startswith("<!DOCTYPE html>")
    assert "torch.build" in text and f"{build_words()} build" in text
    title = r"<title>torchdoctor report: &lt;host-[0-9a-f]+&gt;, \d{4}-\d\d-\d\dT[\d:]+Z</title>"
    assert re.search(title, text)
    assert not re.search(r"""(src|href)=["']?https?:|url\(|@import""", text)


def test_preview_prints_what_would_be_shared_and_writes_nothing(saved_json: Path, tmp_path: Path) -> None:
    result = invoke("report", "--from", str(saved_json), "--preview", "--format", "svg", cwd=tmp_path)
    assert result.returncode == exitcodes.OK, result.stderr
    assert result.stdout.startswith("<svg")
    assert list(tmp_path.iterdir()) == []
    # self-contained: rich's SVG would load its font from a CDN
    assert not re.search(r"""url\((?!#)|@import|@font-face|(src|href)=["']?https?:""", result.stdout)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "pdf"], "--format must be one of md, json, html, svg, not 'pdf'"),
        (["-o", "no/such/folder/r.md"], "-o no/such/folder/r.md: the folder no/such/folder does not exist"),
        (["-o", "."], ". is a folder: give a file name with -o"),
        (["--only", "torch.biuld"], "unknown check id 'torch.biuld'"),
        (["--timeout", "0"], "--timeout must be a number of seconds above 0 and at most 3600, not 0"),
    ],
)
def test_bad_input_is_one_line_and_exit_2_before_any_probe_runs(
    tmp_path: Path, args: list[str], message: str
) -> None:
    # Where no --only is given, one whose probe imports no torch: no worker starts importing it for nothing.
    only = () if "--only" in args else ("--only", "cuda.visible_devices")
    result = invoke("report", *args, *only, cwd=tmp_path)
    assert result.returncode == exitcodes.USAGE
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"torchdoctor: error: {message}")
    assert list(tmp_path.iterdir()) == []


def test_write_new_refuses_an_existing_name_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "r.md"
    write_new(target, "first")
    with pytest.raises(FileExistsError):
        write_new(target, "second")
    assert target.read_text() == "first"
    write_new(target, "third", overwrite=True)
    assert target.read_text() == "third"
    assert [p.name for p in tmp_path.iterdir()] == ["r.md"]


def test_markdown_escapes_what_would_otherwise_become_markup() -> None:
    verdict = Verdict(
        "acme.x",
        "Acme",
        Status.FAIL,
        "ran as <user> on <host>: a|b, *not* a list",
        ("uses `backticks` and | pipes",),
        Fix("Run `fix` then | check.", ("echo '|'",)),
    )
    report = Report("0.1.0", "2026-11-30T11:32:16Z", {}, {}, {}, [verdict], {"total_s": 0.1, "probes": {}})
    text = markdown.render_text(report)
    assert "| ❌ fail | `acme.x` | ran as &lt;user&gt; on &lt;host&gt;: a\\|b, \\*not\\* a list |" in text
    assert "```text\nuses `backticks` and | pipes\n```" in text
    assert "**Fix:** Run \\`fix\\` then \\| check." in text
    assert "```bash\necho '|'\n```" in text
    assert markdown.code("a`b|c") == "`` a`b\\|c ``"


def _fifo(tmp_path: Path) -> Path:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


def _link_to_device(tmp_path: Path) -> Path:
    link = tmp_path / "report.md"
    link.symlink_to("/dev/null")
    return link


@pytest.mark.parametrize(
    ("make", "text"),
    [
        (lambda tmp: Path("/dev/null"), "is not a regular file"),
        (_fifo, "is not a regular file"),
        (_link_to_device, "/dev/null is not a regular file"),
        (lambda tmp: tmp, "is a folder"),
        (lambda tmp: tmp / ("x" * 300 + ".md"), "File name too long"),
    ],
    ids=["device", "fifo", "symlink-to-device", "folder", "long-name"],
)
def test_only_a_regular_file_is_ever_replaced_even_with_force(tmp_path: Path, make: Any, text: str) -> None:
    target = make(tmp_path)
    result = invoke("report", "--only", "cuda.visible_devices", "-o", str(target), "--force", cwd=tmp_path)
    assert result.returncode == exitcodes.USAGE
    (line,) = result.stderr.splitlines()
    assert text in line
    assert Path("/dev/null").is_char_device()


def test_force_through_a_link_to_a_regular_file_writes_that_file(saved_json: Path, tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_text("old\n")
    (tmp_path / "link.md").symlink_to(real)
    result = invoke("report", "--from", str(saved_json), "-o", "link.md", "--force", cwd=tmp_path)
    assert result.returncode == exitcodes.OK, result.stderr
    assert (tmp_path / "link.md").is_symlink()
    assert "cuda.visible_devices" in real.read_text()


def test_the_report_carries_what_collect_env_prints(saved_json: Path, tmp_path: Path) -> None:
    """CPU, C library, compilers and the CUDA toolkit on the PATH, debug build, XNNPACK, NumPy: the report
    can stand in for python -m torch.utils.collect_env in an issue template."""
    data = validated_report(saved_json.read_text())
    system = data["facts"]["system"]
    assert system["cpu"]["cores"] and system["libc"]
    assert "gcc" in system["tools"] and "nvcc" in system["tools"]
    torch = data["facts"]["torch"]
    assert torch["debug"] is False and "xnnpack" in torch and "installed" in torch["numpy"]
    markdown = invoke("report", "--from", str(saved_json), "--preview", cwd=tmp_path).stdout
    for heading in ("#### System", "#### Tools on the PATH", "#### PyTorch"):
        assert heading in markdown
    assert "| CPU features |" in markdown and "| NumPy |" in markdown and "| debug build |" in markdown
