"""What the worker runs for the CLI: ``ready`` imports the judges ahead of judging, and changes no verdict."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from support import cli_env

PLUGIN = {
    "declared.py": """
        from torchdoctor import Check, judge_at

        GOOD = Check("t.good", "good", (), judge_at("good_judge:judge"))
        BROKEN = Check("t.broken", "broken", (), judge_at("broken_judge:judge"))
    """,
    "good_judge.py": """
        from torchdoctor import Finding, Status

        def judge(facts, options):
            return Finding(Status.PASS, "judged")
    """,
    "broken_judge.py": """
        raise RuntimeError("this judge cannot be imported")
    """,
}

SCRIPT = """
import json, sys, threading
from torchdoctor.checking import hosted, registry

named = (("t.good", "GOOD"), ("t.broken", "BROKEN"))
entries = [registry.Entry(i, f"declared:{n}", "acme", "1").to_json() for i, n in named]
imported_before = "good_judge" in sys.modules
answer = hosted.ready({"entries": entries})
for thread in threading.enumerate():
    if thread.name == "torchdoctor-ready":
        thread.join(60)
imported = "good_judge" in sys.modules
judged = [hosted.judge({"entry": e, "facts": {}, "options": {}}) for e in entries]
print(json.dumps({"before": imported_before, "after": imported, "answer": answer, "judged": judged}))
"""


def test_ready_imports_the_judges_in_the_background_and_a_broken_one_still_judges_as_before(
    tmp_path: Path,
) -> None:
    for name, text in PLUGIN.items():
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    env = {**cli_env(), "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["before"], result["after"]) == (False, True)
    assert result["answer"] == {"importing": ["good_judge:judge", "broken_judge:judge"]}
    good, broken = result["judged"]
    assert good["finding"]["status"] == "pass"
    assert broken["raised"]["type"] == "RuntimeError"
    assert "this judge cannot be imported" in broken["raised"]["message"]
