"""Issue 43's limits: reading an article is linear in its text."""

from __future__ import annotations

from experiment.bench.measure.scan import article, scan_seconds


def test_scan_is_linear() -> None:
    # tables' captions and the cut of table mentions were read in time quadratic in the text:
    # ten times the text took about 60 times as long
    small = min(scan_seconds(article(0.04)) for _ in range(2))
    large = scan_seconds(article(0.4))
    assert large / small < 25, (small, large)


def test_a_large_table_reads_each_cell_once(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # a 10,000-row table took 7-8 s per verify: its cells were read again and again, past the
    # cache of cells, and scanned twice more for their values and mentions
    from experiment.values import tables

    rows = "\n".join(f"| Item {i} | {i * 7 % 1000:,} | {i * 13 % 997}.5 |" for i in range(10_000))
    text = f"(in thousands)\n\n| Item | 2023 | 2022 |\n|---|---|---|\n{rows}\n"
    calls = []
    real = tables.scan
    monkeypatch.setattr(tables, "scan", lambda t, *a: calls.append(t) or real(t, *a))
    tables._read.cache_clear()
    tables.article_mentions(text)
    cells = 3 * 10_001
    assert len(calls) <= cells + 10, len(calls)
