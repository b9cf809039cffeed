"""Every corpus is split once by repository: each record sits on the side its repository hashes to, so no
repository is on both sides, and every record names its source."""

from __future__ import annotations

import json

import pytest

from corpus_tools import splits


@pytest.mark.parametrize("corpus", ["collect_env", "issues"])
def test_every_file_sits_on_the_side_of_its_repository(corpus: str) -> None:
    paths = splits.files(corpus)
    assert paths
    for path in paths:
        record = json.loads(path.read_text(encoding="utf-8"))
        assert record["source"] and record["url"], path
        assert path.parent.name == splits.split_of(splits.repository_of(record["source"])), path


def test_every_error_text_sits_on_the_side_of_its_repository_in_its_ids_file() -> None:
    sides: dict[str, set[str]] = {}
    for split in splits.SPLITS:
        for entry_id, _, record in splits.error_records(split):
            assert record["source"] and record["url"] and record["expect"] == entry_id
            repository = splits.repository_of(record["source"])
            assert splits.split_of(repository) == split, record["source"]
            sides.setdefault(repository, set()).add(split)
    assert all(len(found) == 1 for found in sides.values())
    assert {s for found in sides.values() for s in found} == set(splits.SPLITS)


def test_the_split_is_a_fixed_function_of_the_repository_name() -> None:
    assert splits.repository_of("pytorch/pytorch#123 comment") == "pytorch/pytorch"
    assert splits.repository_of("https://www.example.org/a/b") == "example.org"
    assert splits.split_of("pytorch/pytorch") == splits.split_of(" PyTorch/PyTorch ")
    names = [f"owner{n}/repo{n}" for n in range(300)]
    share = sum(splits.split_of(name) == "test" for name in names) / len(names)
    assert 0.25 < share < 0.42
    with pytest.raises(ValueError, match="owner/name#number or a URL"):
        splits.repository_of("no source")
