"""The thread corpus (tests/corpus/threads): every record names its public source and sits on its
repository's side of the split, and the frozen batch is unchanged since it was labelled."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from corpus_tools import splits

CORPUS = Path(__file__).resolve().parent / "corpus" / "threads"


def test_records_name_their_source_and_sit_on_their_side() -> None:
    for split in splits.SPLITS:
        for path in sorted((CORPUS / split).glob("*.json")):
            record = json.loads(path.read_text())
            assert record["url"].startswith("https://github.com/"), path
            assert splits.split_of(splits.repository_of(record["source"])) == split, path
            labels = record["labels"]
            assert labels["cause"] and labels["cause_terms"] and labels["fix"] and labels["fix_terms"], path
            assert labels["figure"] is None or all(f in record["text"] for f in labels["figure"][:1]), path


def test_frozen_batches_are_unchanged() -> None:
    manifest = json.loads((CORPUS / "batches.json").read_text())
    for batch in manifest["batches"]:
        files = sorted(batch["files"])
        for name in files:
            assert hashlib.sha256((CORPUS / name).read_bytes()).hexdigest() == batch["files"][name], name
        whole = hashlib.sha256(b"".join((CORPUS / name).read_bytes() for name in files)).hexdigest()
        assert whole == batch["sha256"]
