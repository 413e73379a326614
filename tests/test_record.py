"""The run record: a folder written before `format_version` (tests/fixtures/run_v0, a
`factqa run` of conftest's fake models over three questions at k=2, CSV only) still loads, with
the figures that code gave (run_v0.expected.json, written by it)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from experiment.report.checked import checked_attempts, checked_run

FIXTURES = Path(__file__).parent / "fixtures"
V0 = FIXTURES / "run_v0"


def _figures(path: Path) -> dict[str, Any]:
    """What the fixture's expected.json records, computed from the folder at `path`."""
    run = checked_run(path)
    a = checked_attempts(run)
    q = run.questions
    return {
        "k": run.k,
        "scored_against": run.scored_against,
        "verified": run.verified,
        "selected": run.selected,
        "methods": run.methods,
        "summary": {
            r.method: [r.questions, r.accuracy, r.coverage, r.failed]
            for r in run.summary.itertuples()
        },
        "correct": {m: int(q[f"{m}.correct"].sum()) for m in run.methods},
        "confidence": {m: round(float(q[f"{m}.confidence"].sum()), 6) for m in run.methods},
        "question_columns": list(q.columns),
        "attempts": {
            "rows": len(a),
            "confirmed": int(a.confirmed.sum()),
            "derived": int(a.derived.sum()),
            "spans": [[[s.start, s.end] for s in spans] for spans in a.spans],
            "flops_nan": int(a.flops.isna().sum()),
        },
        "curves": list(run.curves.shape),
        "routing": list(run.routing.shape),
        "blindspots": list(run.blindspots.shape),
        "agreement": list(run.agreement.shape),
        "small_samples": run.manifest.small_samples,
        "reading": run.manifest.reading,
    }


def test_a_folder_written_before_format_version_gives_the_same_figures() -> None:
    expected = json.loads((FIXTURES / "run_v0.expected.json").read_text(encoding="utf-8"))
    found = json.loads(json.dumps(_figures(V0)))
    assert found.keys() == expected.keys()
    for key, value in expected.items():
        if key == "summary":
            for method, row in value.items():
                assert all(
                    math.isclose(x, y) for x, y in zip(found[key][method], row, strict=True)
                ), method
        else:
            assert found[key] == value, key
