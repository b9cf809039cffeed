"""ddp.dryrun's -v rank table: figures written as the summary writes them, never raw floats."""

from __future__ import annotations

from torchdoctor.checks.ddp.dryrun_check import CHECK

from support import fixture_facts


def test_the_rank_table_shows_seconds_and_gb_per_s() -> None:
    finding = CHECK.judge(fixture_facts("h100x8_ddp_healthy.json"), {})
    rows = [d for d in finding.details if isinstance(d, dict)]
    assert rows
    for row in rows:
        assert not any(isinstance(value, float) for value in row.values()), row
        assert str(row["init"]).endswith(" s") and str(row["busbw"]).endswith(" GB/s")
