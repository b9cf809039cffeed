"""The frozen batches of the lint corpus (tests/corpus/lint/batches.json): every record of a batch is byte for
byte the file that was frozen before lint ran on it, so a label changed after lint's output was seen fails
here; and no record claims a batch it was not frozen in."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus_tools import batches
from corpus_tools.lint_records import records

BATCHES = batches.batches()


def test_there_is_a_frozen_batch() -> None:
    assert BATCHES
    assert len({batch.name for batch in BATCHES}) == len(BATCHES)
    assert all(batch.labelled.strip() for batch in BATCHES)


@pytest.mark.parametrize("batch", BATCHES, ids=[batch.name for batch in BATCHES])
def test_a_frozen_batch_is_unchanged(batch: batches.Batch) -> None:
    assert batches.problems(batch) == []
    # The batch lists exactly the records that name it: a record added later cannot join it unnoticed.
    assert list(batch.records) == batches.members(batch.name)


def test_every_record_that_names_a_batch_belongs_to_a_frozen_one() -> None:
    frozen = {name for batch in BATCHES for name in batch.records}
    claimed = {f"{record.split}/{record.file.name}" for record in records() if "batch" in record.data}
    assert claimed <= frozen


def test_a_changed_label_is_caught(tmp_path: Path) -> None:
    batch = BATCHES[-1]
    corpus = tmp_path / "lint"
    for name in batch.records:
        (corpus / name).parent.mkdir(parents=True, exist_ok=True)
        (corpus / name).write_bytes((batches.LINT / name).read_bytes())
    assert batches.problems(batch, corpus) == []
    first = corpus / batch.records[0]
    data = json.loads(first.read_text(encoding="utf-8"))
    data["findings"] = [*data["findings"], {"rule": "TDL004", "line": 1, "note": "added after the freeze"}]
    first.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    found = batches.problems(batch, corpus)
    assert f"{batch.records[0]}: changed since the batch was frozen" in found
    assert "the concatenated hash differs" in found
    first.unlink()
    assert f"{batch.records[0]}: missing" in batches.problems(batch, corpus)
