"""`torchdoctor lint` in the wild: every finding of the default rules on whole popular repositories, compared
with the committed judgement of each finding (bench/lint_wild_judged.json), and the precision per rule.

    python bench/lint_wild.py --cache DIR [--repo owner/name ...] [--all] [--template FILE]

--cache is a folder of git copies of the repositories (``owner+name/repo``, ``owner/name`` or ``owner+name``,
a bare repository or a clone). Each repository's Python files at the commit the judged list names (HEAD where
it names none) are written to a scratch folder and linted there with the CLI, so whatever lint reads across
files counts.

A finding is keyed by repository, path, rule and the sha256 of its stripped source line (with a counter for
equal lines), so it keeps its judgement when lines move. A verdict is ``bites`` (the pitfall can happen to a
user of that code), ``harmless`` (the rule's claim is true but cannot matter there) or ``false`` (the claim is
wrong). Findings the list does not judge are printed as ``unjudged`` and counted apart; judged findings lint
no longer reports are counted as ``gone``. --template writes the unjudged findings as entries to judge.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import sidebyside

from corpus_tools.lint_records import git_dirs

JUDGED = Path(__file__).resolve().parent / "lint_wild_judged.json"
VERDICTS = ("bites", "harmless", "false")
DEFAULT_REPOS = (
    "pytorch/examples",
    "huggingface/pytorch-image-models",
    "Lightning-AI/pytorch-lightning",
    "ultralytics/yolov5",
    "facebookresearch/fairseq",
)


@dataclass(frozen=True)
class Finding:
    repo: str
    path: str
    rule: str
    line: int
    text: str
    nth: int  # 0 for the first finding of this rule on an equal line of the same file, 1 for the next...

    @property
    def key(self) -> tuple[str, str, str, str, int]:
        return (self.repo, self.path, self.rule, text_sha(self.text), self.nth)


def text_sha(text: str) -> str:
    return hashlib.sha256(text.strip().encode("utf-8")).hexdigest()[:16]


def git(git_dir: Path, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, check=True).stdout


def export(git_dir: Path, commit: str, into: Path) -> dict[str, str]:
    """Write the commit's .py files under ``into``; return path -> text."""
    listing = git(git_dir, "ls-tree", "-r", "-z", commit).split(b"\0")
    texts: dict[str, str] = {}
    for entry in listing:
        if not entry:
            continue
        meta, _, name = entry.partition(b"\t")
        mode, kind, sha = meta.split()
        path = name.decode("utf-8", "replace")
        if kind != b"blob" or mode == b"120000" or not path.endswith(".py"):
            continue
        data = git(git_dir, "cat-file", "blob", sha.decode())
        target = into / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        texts[path] = data.decode("utf-8", "replace")
    return texts


def lint(repo: str, tree: Path, texts: dict[str, str]) -> list[Finding]:
    done = subprocess.run(
        [sidebyside.torchdoctor_exe(), "lint", "--format", "json", str(tree)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"torchdoctor lint failed on {repo}: {done.stderr.strip()[:300]}")
    seen: Counter[tuple[str, str, str]] = Counter()
    findings = []
    for item in sorted(json.loads(done.stdout or "[]"), key=lambda i: (i["path"], i["line"], i["rule"])):
        path = Path(item["path"]).resolve().relative_to(tree.resolve()).as_posix()
        lines = texts.get(path, "").splitlines()
        text = lines[item["line"] - 1] if 0 < item["line"] <= len(lines) else ""
        nth_key = (path, item["rule"], text_sha(text))
        findings.append(Finding(repo, path, item["rule"], item["line"], text, seen[nth_key]))
        seen[nth_key] += 1
    return findings


def load_judged(path: Path) -> tuple[dict[str, str], dict[tuple[str, str, str, str, int], dict[str, Any]]]:
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"repos": {}, "judged": []}
    judged = {}
    for entry in data["judged"]:
        if entry["verdict"] not in VERDICTS:
            raise SystemExit(
                f"{path}: unknown verdict {entry['verdict']!r} for {entry['path']}:{entry['line']}"
            )
        judged[(entry["repo"], entry["path"], entry["rule"], entry["text_sha"], entry.get("nth", 0))] = entry
    return data["repos"], judged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--cache", type=Path, required=True, help="folder of git copies of the repositories")
    parser.add_argument("--repo", action="append", help="owner/name (default: the five of the judged list)")
    parser.add_argument("--all", action="store_true", help="print every finding, not only the unjudged")
    parser.add_argument("--template", type=Path, help="write the unjudged findings here as entries to judge")
    args = parser.parse_args()
    commits, judged = load_judged(JUDGED)
    repos = args.repo or list(commits or DEFAULT_REPOS)
    findings: list[Finding] = []
    files = 0
    for repo in repos:
        found = git_dirs(repo, [args.cache])
        if not found:
            print(f"{repo}: no git copy under {args.cache}, skipped")
            continue
        commit = commits.get(repo) or git(found[0], "rev-parse", "HEAD").decode().strip()
        with tempfile.TemporaryDirectory(prefix="lint-wild-") as scratch:
            texts = export(found[0], commit, Path(scratch))
            got = lint(repo, Path(scratch), texts)
        files += len(texts)
        findings += got
        print(f"{repo} at {commit[:12]}: {len(texts)} .py files, {len(got)} findings")
    tally: dict[str, Counter[str]] = {}
    unjudged = []
    for finding in findings:
        entry = judged.get(finding.key)
        verdict = entry["verdict"] if entry else "unjudged"
        tally.setdefault(finding.rule, Counter())[verdict] += 1
        if entry is None:
            unjudged.append(finding)
        if args.all or entry is None:
            reason = f"  ({entry['reason']})" if entry else ""
            print(f"  {verdict:<9} {finding.repo}:{finding.path}:{finding.line} {finding.rule}{reason}")
    keys = {finding.key for finding in findings}
    gone = Counter(key[2] for key in judged if key[0] in repos and key not in keys)
    print(f"\n{len(findings)} findings in {files} files of {len(repos)} repositories")
    print(
        f"{'rule':<8} {'findings':>8} {'bites':>6} {'harmless':>8} {'false':>6} {'unjudged':>8} {'gone':>5} "
        f"{'true':>6} {'bite':>6}"
    )
    for rule in [*sorted(tally), "overall"]:
        counts = sum(tally.values(), Counter()) if rule == "overall" else tally[rule]
        lost = sum(gone.values()) if rule == "overall" else gone[rule]
        judged_n = sum(counts[v] for v in VERDICTS)
        true = f"{(counts['bites'] + counts['harmless']) / judged_n:.2f}" if judged_n else "-"
        bite = f"{counts['bites'] / judged_n:.2f}" if judged_n else "-"
        print(
            f"{rule:<8} {sum(counts.values()):>8} {counts['bites']:>6} {counts['harmless']:>8} "
            f"{counts['false']:>6} {counts['unjudged']:>8} {lost:>5} {true:>6} {bite:>6}"
        )
    print("true: precision (bites + harmless over the judged findings); bite: the share that can bite")
    if args.template:
        entries = [
            {
                "repo": f.repo,
                "path": f.path,
                "line": f.line,
                "rule": f.rule,
                "text_sha": text_sha(f.text),
                "nth": f.nth,
                "verdict": "",
                "reason": "",
            }
            for f in unjudged
        ]
        args.template.write_text(json.dumps(entries, indent=1) + "\n", encoding="utf-8")
        print(f"{len(entries)} unjudged findings written to {args.template}")


if __name__ == "__main__":
    main()
