"""The registry finds checks through entry points without importing them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from packaging.utils import canonicalize_name

from torchdoctor.checking import registry
from torchdoctor.machine.distributions import canonical_name

from support import write_distribution


def test_an_entry_names_its_distribution_from_the_metadata_headers_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_distribution(tmp_path, "acme-doctor", "1.2", "acme_checks", "", {"acme.ok": "acme_checks:OK"})
    info = tmp_path / "acme_doctor-1.2.dist-info"
    # A long description that quotes other headers is the body, after the first blank line.
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: acme-doctor\nVersion: 1.2\nSummary: x\n\nName: not-this\nVersion: 9\n"
    )
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    (entry,) = [e for e in registry.find_entries() if e.id == "acme.ok"]
    assert (entry.distribution, entry.version, entry.value) == ("acme-doctor", "1.2", "acme_checks:OK")


def test_the_built_in_checks_belong_to_torchdoctor() -> None:
    from importlib import metadata

    entries = {e.id: e for e in registry.find_entries()}
    assert entries["torch.build"].distribution == "torchdoctor"
    assert entries["torch.build"].version == metadata.version("torchdoctor")


@given(st.text(alphabet="aAzZ09-_.", max_size=20))
def test_a_name_is_normalized_as_packaging_normalizes_it(name: str) -> None:
    assert canonical_name(name) == canonicalize_name(name)
