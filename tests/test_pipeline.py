"""The pipelines (issue 53): one answer for every question, the computed pool's pick where the run
routes the question to the calculation prompt and the stated pool's pick elsewhere, by the small
model's scores, the large model's, or no model."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiment.evaluate.drafts import (
    COMPUTED,
    LARGE,
    SMALL,
    STATED,
    drafts_of,
    question_pools,
    texts_to_score,
)
from experiment.evaluate.methods import (
    LARGE_PIPELINE,
    LARGE_TEXT,
    LARGE_TEXT_DERIVED,
    SMALL_PIPELINE,
    SMALL_TEXT,
    SMALL_TEXT_DERIVED,
    TEXT_DERIVED,
    TEXT_ONLY,
    TEXT_PIPELINE,
    answer_methods,
)
from experiment.evaluate.proposal_pool import CALCULATION
from experiment.generate.models.base import CandidateScores
from experiment.generate.prompts import AUTO, FIGURE

from .conftest import run_args
from .test_pool import article, question, sample

# A sentence with two figures the questions below ask about, stated or computed from them.
PLANT = (
    "The Oulu plant assembled 13,200 units in 2024 and 10,000 units in 2023. "
    "It employs 85 people on two shifts."
)
STATED_Q = question("How many units did the Oulu plant assemble in 2024?", "13,200")
COMPUTED_Q = question(
    "How many more units did the Oulu plant assemble in 2024 than in 2023?", "3,200"
)
K = 3


def _answers(q, small_says: list[str], favoured: str, prompt: str):  # type: ignore[no-untyped-def]
    """Every method's answer where both models score the question's pool as a run with `prompt`
    scores it, `favoured` (a text of the pool) the most probable and "unknown" below it."""
    art = article(PLANT)
    small = [sample(q, art, text, i) for i, text in enumerate(small_says)]
    own, merged = question_pools(q, art, small, prompt, CALCULATION)
    of = COMPUTED if prompt == AUTO and q is COMPUTED_Q else STATED

    def scored(texts: tuple[str, ...]):  # type: ignore[no-untyped-def]
        said = tuple(-0.1 if favoured in t else -3.0 if t == "unknown" else -6.0 for t in texts)
        got = CandidateScores(said, tuple(2 for _ in texts), 50, 0.1, 60, 1e6)
        return got

    small_texts, large_texts = texts_to_score(own, merged), texts_to_score(own)
    drafts = {
        SMALL: drafts_of(SMALL, small_texts, scored(small_texts), None, of, CALCULATION),
        LARGE: drafts_of(LARGE, large_texts, scored(large_texts), None, of, CALCULATION),
    }
    large = sample(q, art, "10,000", 0)
    computed = prompt == AUTO  # a run under auto scores its computed questions' proposals
    return answer_methods(q, small, large, K, art, drafts=drafts, computed=computed, prompt=prompt)


def _value(a) -> str | None:  # type: ignore[no-untyped-def]
    return a.chosen.attempt.answer if a.chosen is not None else None


def test_a_stated_question_gets_the_stated_pool_s_pick() -> None:
    out = _answers(STATED_Q, ["13,200", "13,200", "85"], "13,200", AUTO)
    for pipeline, stated in (
        (SMALL_PIPELINE, SMALL_TEXT),
        (LARGE_PIPELINE, LARGE_TEXT),
        (TEXT_PIPELINE, TEXT_ONLY),
    ):
        got, want = out[pipeline.name(K)], out[stated.name(K)]
        assert _value(got) == _value(want) and got.correct == want.correct, pipeline.name(K)
    assert out[SMALL_PIPELINE.name(K)].correct
    assert out[SMALL_TEXT_DERIVED.name(K)].chosen is None  # not its question: it abstains


def test_a_question_routed_to_calculation_gets_the_computed_pool_s_pick() -> None:
    out = _answers(COMPUTED_Q, ["13,200 - 10,000"] * 3, "13,200 - 10,000", AUTO)
    for pipeline, computed in (
        (SMALL_PIPELINE, SMALL_TEXT_DERIVED),
        (LARGE_PIPELINE, LARGE_TEXT_DERIVED),
        (TEXT_PIPELINE, TEXT_DERIVED),
    ):
        got, want = out[pipeline.name(K)], out[computed.name(K)]
        assert _value(got) == _value(want) and got.correct == want.correct, pipeline.name(K)
    assert out[SMALL_PIPELINE.name(K)].correct  # 3,200 computed from the sentence's figures
    assert out[SMALL_TEXT.name(K)].chosen is None  # the stated pool's method abstains on it


def test_under_the_figure_prompt_nothing_is_routed_and_the_pipeline_is_the_stated_pick() -> None:
    out = _answers(COMPUTED_Q, ["13,200", "13,200", "10,000"], "13,200", FIGURE)
    for pipeline, stated in ((SMALL_PIPELINE, SMALL_TEXT), (TEXT_PIPELINE, TEXT_ONLY)):
        assert _value(out[pipeline.name(K)]) == _value(out[stated.name(K)])
    assert not out[SMALL_PIPELINE.name(K)].correct  # a stated figure cannot be the difference


def test_the_pipeline_section_is_read_from_a_committed_run(fake_run: Path, tmp_path: Path) -> None:
    from experiment.bench.analyse.pipeline import figures, machine_line, pipeline_section
    from experiment.report.results import load_any

    results = tmp_path / "results"
    shutil.copytree(fake_run, results / "bundled")
    (got,) = figures(results)
    q = load_any(fake_run).questions
    right = q["small-pipeline@4.correct"].astype(bool)
    assert got.versus_large.a == right.mean()
    assert got.versus_large.wins == int((right & ~q["large@1.correct"].astype(bool)).sum())
    assert got.versus_text.b == q["text-pipeline.correct"].astype(bool).mean()
    line = machine_line([got])
    assert line.startswith(f"pipeline_bundled={right.mean():.3f} large_bundled=")
    assert "judge_gap_large_min=" in line and "pipeline_minus_nomodel_min=" in line
    section = pipeline_section(results)
    assert section.startswith("## The small pipeline") and f"`{line}`" in section


def test_a_run_without_the_pools_scores_has_no_pipeline_section(
    monkeypatch: pytest.MonkeyPatch,
    fake_factory,
    corpus,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    from experiment import cli
    from experiment.bench.analyse.pipeline import pipeline_section

    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    args = run_args(*corpus, "fake-small", "fake-large", 2, tmp_path / "results", "bundled")
    res = CliRunner().invoke(cli.app, [*args, "--drafts", "none"])
    assert res.exit_code == 0, res.output
    assert pipeline_section(tmp_path / "results") == ""


def test_a_sealed_sample_s_figures_make_the_line(fake_run: Path, tmp_path: Path) -> None:
    import json

    import pandas as pd

    from experiment.base.files import file_record
    from experiment.bench.analyse.pipeline import figures, machine_line, pipeline_section
    from experiment.report.first_screen import SEALED_LABEL

    results = tmp_path / "results"
    shutil.copytree(fake_run, results / "squad-v1")
    shutil.copytree(fake_run, results / "sealed-squad-v1")
    sealed_csv = results / "sealed-squad-v1" / "questions.csv"
    q = pd.read_csv(sealed_csv)
    q["small-pipeline@4.correct"] = False  # the sealed sample: every pipeline answer wrong
    q.to_csv(sealed_csv, index=False)
    manifest = results / "sealed-squad-v1" / "manifest.json"
    data = json.loads(manifest.read_text())
    data["outputs"]["questions.csv"] = file_record(sealed_csv)  # the folder stays whole
    manifest.write_text(json.dumps(data))
    dev, sealed = figures(results)
    assert (dev.sample, sealed.sample) == ("development", "sealed")
    assert dev.versus_large.a > 0 and sealed.versus_large.a == 0
    assert machine_line([dev, sealed]).startswith("pipeline_squad=0.000 ")
    assert f"SQuAD v1.1{SEALED_LABEL} (" in pipeline_section(results)
