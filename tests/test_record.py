"""The run record: a folder written before `format_version` (tests/fixtures/run_v0, a
`factqa run` of conftest's fake models over three questions at k=2, CSV only) still loads, with
the figures that code gave (run_v0.expected.json, written by it)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from experiment.base.errors import InputError
from experiment.record.columns import QUESTION_FACTS, TABLES, question_columns
from experiment.record.migrate import FORMAT_VERSION, migrate
from experiment.report.run import load_run
from experiment.report.validate import validated_attempts, validated_run

FIXTURES = Path(__file__).parent / "fixtures"
V0 = FIXTURES / "run_v0"


def _figures(path: Path) -> dict[str, Any]:
    """What the fixture's expected.json records, computed from the folder at `path`."""
    run = validated_run(path)
    a = validated_attempts(run)
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


def test_the_fixture_is_read_through_migrate() -> None:
    run = validated_run(V0)
    assert run.written_in == 0 and run.manifest.format_version == FORMAT_VERSION
    assert run.manifest.config.k == 2 and run.manifest.machine.cpu_count >= 1


def test_a_folder_before_the_calculation_form_scored_the_results(fake_run: Path) -> None:
    data = json.loads((fake_run / "manifest.json").read_text(encoding="utf-8"))
    assert data["config"]["derived_text"] == "calculation"  # a new run states its form
    older = data | {"format_version": 2, "config": dict(data["config"])}
    del older["config"]["derived_text"]
    assert migrate(older, {})[0]["config"]["derived_text"] == "result"
    assert validated_run(V0).manifest.config.derived_text == "result"


def test_a_new_run_writes_the_current_format_and_the_spec_s_columns(fake_run: Path) -> None:
    data = json.loads((fake_run / "manifest.json").read_text(encoding="utf-8"))
    assert data["format_version"] == FORMAT_VERSION
    run = load_run(fake_run)
    assert run.written_in == FORMAT_VERSION and migrate(data, {})[0] == data
    for name in data["outputs"]:
        if name in TABLES and name != "questions.csv":  # its methods vary: below
            header = pd.read_csv(fake_run / name, nrows=0).columns
            assert list(header) == TABLES[name].names, name
    header = list(pd.read_csv(fake_run / "questions.csv", nrows=0).columns)
    facts = [c.name for c in QUESTION_FACTS]
    assert header == question_columns(run.methods, facts)


def test_a_folder_of_format_4_says_what_it_left_out_in_one_record() -> None:
    older = {
        "format_version": 4,
        "checks_left_out": "fake-large cannot score candidates",
        "drafts_left_out": "small: first request failed: a; b; large: malformed response",
    }
    manifest, _ = migrate(older, {})
    assert manifest["left_out"] == {
        "check": "fake-large cannot score candidates",
        "pool scores (small)": "first request failed: a; b",
        "pool scores (large)": "malformed response",
    }
    assert "checks_left_out" not in manifest and "drafts_left_out" not in manifest
    assert migrate({"format_version": 4}, {})[0]["left_out"] == {}


def test_a_folder_of_a_later_format_is_refused(fake_run: Path, tmp_path: Path) -> None:
    later = tmp_path / "later"
    shutil.copytree(fake_run, later)
    path = later / "manifest.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps(data | {"format_version": FORMAT_VERSION + 1}), encoding="utf-8")
    with pytest.raises(InputError, match="update factqa"):
        load_run(later)


def test_a_public_runs_section_counts_its_blind_spots_without_their_text() -> None:
    """A benchmark section of a data set that is not the project's own shows why the kept
    answers were wrong by cause, never the questions, gold or evidence (they are the data
    set's text); the bundled corpus's shows its examples."""
    from dataclasses import replace

    from experiment.report.markdown import benchmark_section

    run = load_run(V0)
    question = str(run.blindspots.question.iloc[0])
    public = benchmark_section(run, "Fixture", "factqa bench run x y")
    assert "Why the confirmed answers were wrong" in public and question not in public
    own = replace(run, manifest=replace(run.manifest, bundled=True))
    assert question in benchmark_section(own, "Fixture", "factqa bench run bundled")


def _as_format_5(run_dir: Path, dest: Path) -> None:
    """`run_dir` (format 6) as format 5 wrote it: its scores as checks.csv and drafts.csv, in
    their own columns, the manifest's output records to match."""
    from experiment.base.files import file_record
    from experiment.record.columns import CHECKS, DRAFTS

    shutil.copytree(run_dir, dest)
    raw = pd.read_csv(dest / "scores.csv", keep_default_na=False, dtype=str)
    (dest / "scores.csv").unlink()
    parts = raw.scoring.str.partition(" (")
    kind, which = parts[0], parts[2].str.rstrip(")")
    checks = raw[kind == "check"].assign(mode=which[kind == "check"])
    checks = checks.rename(columns={"text": "candidate", "score": "margin"})[CHECKS.names]
    pools = raw[kind == "pool scores"].assign(role=which[kind == "pool scores"])
    pools = pools.rename(columns={"score": "logprob"})[DRAFTS.names]
    path = dest / "manifest.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    outputs = {n: r for n, r in data["outputs"].items() if n != "scores.csv"}
    for name, frame in (("checks.csv", checks), ("drafts.csv", pools)):
        frame.to_csv(dest / name, index=False)
        outputs[name] = file_record(dest / name)
    data |= {"format_version": 5, "outputs": outputs}
    path.write_text(json.dumps(data), encoding="utf-8")


def test_a_format_5_folder_s_two_score_tables_read_as_the_one(
    fake_run: Path, tmp_path: Path
) -> None:
    """Format 5 wrote the checks and the pools' scores as two tables; they read as the one
    scores.csv a new run writes, and each kind's view of it is the same."""
    new = load_run(fake_run)
    assert set(new.scores.scoring) >= {"check (whole)", "pool scores (small)"}
    assert not new.checks.empty and not new.drafts.empty
    _as_format_5(fake_run, tmp_path / "v5")
    old = validated_run(tmp_path / "v5")
    assert old.written_in == 5 and "scores.csv" not in old.manifest.outputs
    pd.testing.assert_frame_equal(old.scores, new.scores)
    pd.testing.assert_frame_equal(old.checks, new.checks)
    pd.testing.assert_frame_equal(old.drafts, new.drafts)
    assert old.checks.columns.tolist()[:4] == ["question_id", "mode", "candidate", "margin"]
    assert old.drafts.columns.tolist()[:5] == ["question_id", "role", "text", "logprob", "tokens"]


def test_a_run_without_scores_has_empty_views(fake_run: Path, tmp_path: Path) -> None:
    from experiment.record.scores import view

    empty = load_run(fake_run).scores.iloc[:0]
    assert view(empty, "check").empty and view(empty, "pool scores").empty
    assert "mode" in view(empty, "check").columns and "role" in view(empty, "pool scores")
