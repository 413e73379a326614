"""The committed results (`results/PRESET/`) read back whole: every file matches its index's
size and SHA-256, and nothing in them names a machine's own paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from experiment.config import PROJECT_ROOT
from experiment.report.results import load_results

NOT_RUNS = {"bench", "sealed"}

# every results folder (results/bench/ holds the sections' records: tests/test_results_document.py;
# results/sealed/ the sealed samples' ids: tests/test_sealed.py)
COMMITTED = sorted(
    p for p in (PROJECT_ROOT / "results").glob("*") if p.is_dir() and p.name not in NOT_RUNS
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


def test_the_committed_sealed_samples_hold_no_development_question() -> None:
    """Each public data set's sealed ids (results/sealed/samples.json) are disjoint from its
    committed development sample, sized like it (squad-v2: answerable and unanswerable)."""
    import gzip
    import json

    import pandas as pd

    samples = json.loads((PROJECT_ROOT / "results" / "sealed" / "samples.json").read_text())
    assert set(samples) == {"squad-v1", "squad-v2", "drop", "tatqa-dev"}
    for preset, drawn in samples.items():
        with gzip.open(PROJECT_ROOT / "results" / preset / "questions.csv.gz", "rt") as f:
            development = set(pd.read_csv(f, dtype=str).question_id)
        assert not development & set(drawn["ids"]) and drawn["development_overlap"] == 0
        assert len(drawn["ids"]) == len(set(drawn["ids"])) == drawn["size"] == len(development)
