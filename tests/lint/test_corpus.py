"""The labelled corpus of training code (tests/corpus/lint): every record sits on the side of the split its
repository hashes to, names its source and a permissive licence, and gives a reason for every label; the
records of the dev split that carry their code get exactly the labelled findings from the default rules. The
frozen test split is measured by bench/lint.py only, never tuned on."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from torchdoctor.lint.engine import lint_tree, parse
from torchdoctor.lint.rules import DEFAULT_RULES

from corpus_tools.lint_records import PERMISSIVE, Record, records
from corpus_tools.splits import SPLITS, split_of

RECORDS = records()
SHA1 = re.compile(r"[0-9a-f]{40}")
REPO = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+")


def test_the_split_is_frozen() -> None:
    # Moving a repository to the other side would leak tuned-on material into the test split.
    assert [split_of(repo) for repo in ("pytorch/examples", "sfujim/TD3", "kuangliu/pytorch-cifar")] == [
        "dev",
        "test",
        "test",
    ]
    assert split_of("PyTorch/Examples") == split_of("pytorch/examples")
    sides = Counter(split_of(f"owner/repo{index}") for index in range(3000))
    assert 800 < sides["test"] < 1200 and sides["dev"] + sides["test"] == 3000


def test_the_corpus_is_split_by_repository() -> None:
    assert RECORDS
    misplaced = [
        f"{r.file.name} ({r.repo}) belongs in {split_of(r.repo)}/"
        for r in RECORDS
        if r.split != split_of(r.repo)
    ]
    assert not misplaced
    assert {r.split for r in RECORDS} <= set(SPLITS)


def test_every_record_names_its_source_and_licence() -> None:
    wrong = []
    for r in RECORDS:
        data = r.data
        commit, path = data["commit"], data["path"]
        expected = {
            "source": f"{r.repo}:{path}",
            "url": f"https://github.com/{r.repo}/blob/{commit}/{path}",
        }
        problems = [key for key, value in expected.items() if data[key] != value]
        problems += [] if REPO.fullmatch(r.repo) and SHA1.fullmatch(commit) else ["repo/commit"]
        problems += [] if data["license"] in PERMISSIVE else [f"licence {data['license']}"]
        # The file itself, or the git blob that a copy of the repository gives back byte for byte.
        problems += [] if ("code" in data) != ("blob" in data) else ["code xor blob"]
        problems += [] if "code" in data or SHA1.fullmatch(data["blob"]) else ["blob"]
        if problems:
            wrong.append(f"{r.file.name}: {problems}")
    assert not wrong


def line_count(record: Record) -> int:
    if "code" in record.data:
        return len(record.data["code"].splitlines())
    return int(record.data["lines"])


def test_every_label_has_a_rule_a_line_and_a_reason() -> None:
    wrong = []
    for r in RECORDS:
        findings = r.data["findings"]
        if r.data["kind"] != ("positive" if findings else "clean"):
            wrong.append(f"{r.file.name}: kind {r.data['kind']}")
        if len(set(r.labels)) != len(r.labels):
            wrong.append(f"{r.file.name}: a label twice")
        for item in findings:
            where = f"{r.file.name} {item.get('rule')} line {item.get('line')}"
            if item["rule"] not in DEFAULT_RULES or not 1 <= item["line"] <= line_count(r):
                wrong.append(f"{where}: no default rule or line outside the file")
            if not str(item.get("note", "")).strip():
                wrong.append(f"{where}: no reason")
            if "evidence" in item and not str(item["evidence"]).startswith("https://"):
                wrong.append(f"{where}: evidence is not a link")
    assert not wrong


def test_no_file_is_recorded_twice() -> None:
    sources = Counter((r.repo.lower(), r.data["path"], r.data["commit"]) for r in RECORDS)
    names = Counter(r.file.name for r in RECORDS)
    assert [s for s, n in sources.items() if n > 1] == [] and [s for s, n in names.items() if n > 1] == []


DEV_WITH_CODE = [r for r in RECORDS if r.split == "dev" and "code" in r.data]


@pytest.mark.parametrize("record", DEV_WITH_CODE, ids=[r.file.stem for r in DEV_WITH_CODE])
def test_dev_record(record: Record) -> None:
    """The default rules find exactly the labelled instances (noqa aside: the labels are every instance)."""
    data = record.data
    tree = parse(data["code"], data["path"])
    # one label per rule and line, however many things of the line a rule names
    found = sorted({(finding.rule, finding.line) for finding in lint_tree(tree, data["path"], DEFAULT_RULES)})
    notes = {(item["rule"], item["line"]): item["note"] for item in data["findings"]}
    missing = [
        f"{rule} line {line}: {notes[(rule, line)]}"
        for rule, line in record.labels
        if (rule, line) not in found
    ]
    extra = [f"{rule} line {line}" for rule, line in found if (rule, line) not in record.labels]
    assert found == record.labels, f"{data['source']}: missing {missing}, not labelled {extra}"
