"""`torchdoctor explain` over the corpus of real error texts (tests/corpus/errors, one file per id).

Every record must lead with its ``expect`` id, and every id recognised in it must be ``expect`` or one of
its ``also`` ids (0 wrong ids). The catalogue itself is checked too: an entry for every corpus id, a check
that exists, a source.
"""

from __future__ import annotations

from typing import Any

import pytest

from torchdoctor import cli
from torchdoctor.checking import exitcodes
from torchdoctor.explain import catalogue, explain

from corpus_tools import splits
from support import explained_lines

ENTRIES = catalogue.installed()
CHECKS = {
    "torch.build",
    "torch.stack",
    "cuda.visible_devices",
    "gpu.memory",
    "gpu.fragmentation",
    "transfer.pinned",
    "ddp.dryrun",
}


def _records() -> list[tuple[str, dict[str, Any]]]:
    return [
        (f"{entry_id}-{split}-{n}", record)
        for split in splits.SPLITS
        for entry_id, n, record in splits.error_records(split)
    ]


RECORDS = _records()


@pytest.mark.parametrize(("name", "record"), RECORDS, ids=[name for name, _ in RECORDS])
def test_the_lead_is_the_expected_id_and_no_id_is_wrong(name: str, record: dict[str, Any]) -> None:
    found = [e.id for e in explain(record["text"], ENTRIES)]
    assert found, f"{name}: nothing recognised"
    assert found[0] == record["expect"], f"{name}: led by {found[0]}, all: {found}"
    assert set(found) <= {record["expect"], *record["also"]}, f"{name}: wrong ids in {found}"


def test_the_corpus_is_large_and_each_file_holds_its_own_id() -> None:
    assert len(RECORDS) >= 500
    for name, record in RECORDS:
        assert name.rsplit("-", 2)[0] == record["expect"]


def test_every_corpus_id_has_an_entry_and_every_entry_is_complete() -> None:
    ids = [entry.id for entry in ENTRIES]
    assert len(ids) == len(set(ids))
    assert {record["expect"] for _, record in RECORDS} <= set(ids)
    for entry in ENTRIES:
        assert entry.check is None or entry.check in CHECKS, entry.id
        assert entry.source, entry.id
        assert entry.cause and entry.fix.text, entry.id


FIRST_OF_EACH_ID = list({record["expect"]: record for _, record in RECORDS}.items())


@pytest.mark.parametrize(("entry_id", "record"), FIRST_OF_EACH_ID, ids=[i for i, _ in FIRST_OF_EACH_ID])
def test_each_entry_is_printed_with_title_cause_fix_and_check(entry_id: str, record: dict[str, Any]) -> None:
    entry = next(e for e in ENTRIES if e.id == entry_id)
    lines = explained_lines(record["text"])
    assert lines[0] == entry.title
    assert lines[1].startswith("  seen:  ")
    assert any(line.startswith("  cause: ") for line in lines)
    assert any(line.startswith("  fix:   ") for line in lines)
    if entry.check:
        assert any(line.startswith("  check: torchdoctor check --only ") for line in lines)


def test_the_cli_prints_what_the_worker_matched(capsys: pytest.CaptureFixture[str]) -> None:
    _, record = FIRST_OF_EACH_ID[0]
    with pytest.raises(SystemExit) as exited:
        cli.main(["explain", record["text"]])
    assert exited.value.code in (None, exitcodes.OK)
    assert capsys.readouterr().out.splitlines() == explained_lines(record["text"])
