"""The committed results (`results/PRESET/`) read back whole: every file matches its index's
size and SHA-256, and nothing in them names a machine's own paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from experiment.config import PROJECT_ROOT
from experiment.report.results import load_results

# every folder but results/bench/, the sections' records (tests/test_results_document.py)
COMMITTED = sorted(
    p for p in (PROJECT_ROOT / "results").glob("*") if p.is_dir() and p.name != "bench"
)


@pytest.mark.parametrize("folder", COMMITTED, ids=lambda p: p.name)
def test_committed_results_read_back_and_hold_no_machine_paths(folder: Path) -> None:
    got = load_results(folder)
    assert got.source.preset in folder.name
    assert len(got.run.summary) > 0 and len(got.samples) > 0
    summary = set(got.run.summary.method)
    assert {"large@1", "small-verified@10"} <= summary
    for plain in ("manifest.json", "results.json"):
        text = (folder / plain).read_text(encoding="utf-8")
        assert str(PROJECT_ROOT) not in text and "/home/" not in text and "/root/" not in text
