"""Issue 43's limits: reading an article is linear in its text."""

from __future__ import annotations

from bench.scan import article, scan_seconds


def test_scan_is_linear() -> None:
    # tables' captions and the cut of table mentions were read in time quadratic in the text:
    # ten times the text took about 60 times as long
    small = min(scan_seconds(article(0.04)) for _ in range(2))
    large = scan_seconds(article(0.4))
    assert large / small < 25, (small, large)
