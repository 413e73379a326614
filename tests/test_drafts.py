"""The article drafts, a model checks (issue 39): a model scores the bounded pool, "unknown"
abstains, the sample features join for small-text@k, and a run records the scores."""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.base.errors import ConfigError, ModelError
from experiment.config import RunConfig
from experiment.evaluate.drafts import (
    LARGE,
    SMALL,
    Drafts,
    drafts_of,
    merged_bounded,
    most_probable,
    rank_scored,
    score_features,
    text_selector,
    text_selector_k,
    texts_to_score,
    unknown_wins,
)
from experiment.evaluate.methods import LARGE_TEXT, SMALL_TEXT, SMALL_TEXT_0, answer_methods
from experiment.evaluate.pool import POOL_N, bounded, pool
from experiment.evaluate.selector import SelectorModel, learned
from experiment.generate.models.base import CandidateScores
from experiment.generate.models.cost import ModelShape
from experiment.report.run import load_run

from .conftest import FakeBackend, run_args
from .test_pool import PROSE, article, question, sample

BY_GAP = SelectorModel("gap", "rule", {"score_gap": 1.0}, -1e9)  # the most probable wins


def drafts(scores: dict[str, float], unknown: float, role: str = SMALL) -> Drafts:
    texts = (*scores, "unknown")
    return Drafts(role, texts, (*scores.values(), unknown), tuple(2 for _ in texts))


def test_the_most_probable_candidate_wins_and_unknown_winning_abstains() -> None:
    q, art = question("How many people did the company employ in 2023?", "1,240"), article(PROSE)
    cands = bounded(pool(q, art))
    scores = {c.text: -6.0 for c in cands} | {"1,240": -1.0}
    got = rank_scored(cands, drafts(scores, unknown=-3.0), BY_GAP)
    assert got.chosen is not None and got.chosen.text == "1,240" and not got.unknown_won
    lost = rank_scored(cands, drafts(scores, unknown=-0.5), BY_GAP)
    assert lost.chosen is None and lost.unknown_won
    assert lost.ranked[0][0].text == "1,240"  # still ranked, shown: only the answer abstains
    assert unknown_wins(cands, drafts({}, unknown=-9.0))  # nothing scored: nothing to give


def test_score_features_are_margin_gap_and_per_token_within_the_set() -> None:
    q, art = question("How many floors does the headquarters have?", "14"), article(PROSE)
    cands = [c for c in bounded(pool(q, art)) if c.text in ("14", "2009")]
    d = Drafts(SMALL, ("14", "2009", "unknown"), (-1.0, -3.0, -2.0), (2, 4, 3))
    feats = {c.text: f for c, f in zip(cands, score_features(cands, d), strict=True)}
    assert feats["14"] == {"score_margin": 1.0, "score_gap": 0.0, "score_token": -0.5}
    assert feats["2009"] == {"score_margin": -1.0, "score_gap": -2.0, "score_token": -0.75}


def test_a_candidate_that_was_not_scored_has_no_score_features() -> None:
    q, art = question("How many floors does the headquarters have?", "14"), article(PROSE)
    cands = bounded(pool(q, art))
    feats = score_features(cands, drafts({"14": -1.0}, unknown=-2.0))
    unscored = [f for c, f in zip(cands, feats, strict=True) if c.text != "14"]
    assert unscored and all(v is None for f in unscored for v in f.values())


def test_the_texts_scored_are_each_candidate_once_then_unknown() -> None:
    q, art = question("How many floors does the headquarters have?", "14"), article(PROSE)
    own = bounded(pool(q, art))
    texts = texts_to_score(own, own)
    assert texts[-1] == "unknown" and len(texts) == len(own) + 1
    assert len(set(texts)) == len(texts)


def test_the_merged_pool_keeps_every_sampled_candidate_beyond_n() -> None:
    many = " ".join(f"Plant {i} made {100 + i} units." for i in range(30))
    q, art = question("How many units did plant 29 make?", "129"), article(many)
    small = [sample(q, art, "129", i) for i in range(3)]
    merged = pool(q, art, small)
    assert len(merged) > POOL_N
    cut = merged_bounded(merged, n=2)
    assert {c.canonical for c in cut if c.origin != "text"} == {
        c.canonical for c in merged if c.origin != "text"
    }
    assert len([c for c in cut if c.origin == "text"]) <= 2


def test_the_candidates_own_cost_counts_their_tokens_after_the_prompt() -> None:
    shape = ModelShape(n_layer=2, d_model=8, d_attention=8, n_vocab=10, parameters=100,
                       nonembedding=50)  # fmt: skip
    got = CandidateScores((-1.0, -2.0, -3.0), (3, 1, 2), 100, 0.1, 120, 5e5)
    d = drafts_of(SMALL, ("a", "b", "unknown"), got, shape)
    positions = [100, 101, 100]  # "a": two tokens after the prompt's, "b" none, "unknown" one
    assert d.answer_tokens == 3
    assert d.answer_flops == shape.flops(positions, 3)
    assert d.flops == 5e5 and d.evaluated_tokens == 120  # the call's own cost, prompt and all
    assert drafts_of(SMALL, ("a", "b", "unknown"), got, None).answer_flops is None


def test_large_text_takes_the_most_probable_and_abstains_on_unknown() -> None:
    q, art = question("How many floors does the headquarters have?", "14"), article(PROSE)
    cands = bounded(pool(q, art))
    got = most_probable(cands, drafts({"14": -0.2, "2009": -3.0}, unknown=-1.0, role=LARGE))
    assert got.chosen is not None and got.chosen.text == "14"
    assert got.confidence == pytest.approx(1 / (1 + math.exp(-0.8)))
    assert most_probable(cands, drafts({"14": -2.0}, unknown=-1.0, role=LARGE)).chosen is None


def test_the_methods_answer_from_the_scores_and_pay_for_them() -> None:
    q, art = question("How many floors does the headquarters have?", "14"), article(PROSE)
    small = [sample(q, art, "2009", i) for i in range(4)]  # confirmed, and wrong
    large = sample(q, art, "14", 0)
    texts = texts_to_score(bounded(pool(q, art)), merged_bounded(pool(q, art, small)))
    scores = tuple(-0.1 if t == "14" else -2.0 if t == "unknown" else -5.0 for t in texts)
    got = CandidateScores(scores, tuple(2 for _ in texts), 80, 0.1, 90, 1e6)
    ds = {SMALL: drafts_of(SMALL, texts, got, None), LARGE: drafts_of(LARGE, texts, got, None)}
    out = answer_methods(q, small, large, 4, art, drafts=ds)
    for method in (SMALL_TEXT_0.name(4), LARGE_TEXT.name(4)):
        assert out[method].correct, method
        assert out[method].samples == 0 and out[method].flops == 1e6  # the call, no sample
    assert out[LARGE_TEXT.name(4)].large_calls == 1
    at_k = out[SMALL_TEXT.name(4)]
    assert at_k.samples == 4  # it paid for its samples


def test_small_text_k_weighs_the_samples_as_the_shipped_selector_does() -> None:
    base, k_model, shipped = text_selector(), text_selector_k(), learned()
    assert set(base.weights) < set(k_model.weights)
    for f in ("votes", "share", "support"):
        assert k_model.weights[f] == shipped.weights[f]
        assert k_model.mean[f] == shipped.mean[f]
    assert all(k_model.weights[f] == w for f, w in base.weights.items())


def test_without_the_scores_the_methods_are_not_run() -> None:
    q, art = question("How many floors does the headquarters have?", "14"), article(PROSE)
    small = [sample(q, art, "14", i) for i in range(2)]
    out = answer_methods(q, small, sample(q, art, "14", 0), 2, art)
    assert SMALL_TEXT_0.name(2) not in out and LARGE_TEXT.name(2) not in out
    only_small = {SMALL: drafts({"14": -1.0}, -2.0)}
    out = answer_methods(q, small, sample(q, art, "14", 0), 2, art, drafts=only_small)
    assert SMALL_TEXT_0.name(2) in out and LARGE_TEXT.name(2) not in out


def test_the_drafts_setting_is_checked_before_any_model_loads() -> None:
    assert RunConfig(drafts="none").draft_roles == ()
    assert RunConfig(drafts="large, small").draft_roles == (SMALL, LARGE)
    with pytest.raises(ConfigError, match="drafts must be 'none' or"):
        RunConfig(drafts="medium")


def test_a_run_scores_the_pools_and_reports_the_methods(  # type: ignore[no-untyped-def]
    corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fakes, fake_factory
) -> None:
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    articles, questions = corpus
    args = run_args(articles, questions, "fake-small", "fake-large", 4, tmp_path, "drafted")
    result = CliRunner().invoke(cli.app, args)
    assert result.exit_code == 0, result.output
    run = tmp_path / "drafted"
    summary = pd.read_csv(run / "summary.csv")
    assert {"small-text@0", "small-text@4", "large-text@1", "cascade-text@30%"} <= set(
        summary.method
    )
    # the figure prompt scores no proposals: the proposals' methods are in no table
    assert not {"small-text-derived@4", "large-text-derived@1"} & set(summary.method)
    # the routed cascade keeps small-text@4's answer or takes large@1's, and sends
    # the 30 % (rounded down) it is least sure of
    answers = pd.read_csv(run / "answers.csv", keep_default_na=False).set_index(
        ["question_id", "method"]
    )
    qids = sorted({q for q, _ in answers.index})
    sent = [
        q
        for q in qids
        if answers.loc[(q, "cascade-text@30%"), "answer"]
        != answers.loc[(q, "small-text@4"), "answer"]
    ]
    assert len(sent) <= int(0.3 * len(qids))
    for q in sent:
        assert (
            answers.loc[(q, "cascade-text@30%"), "answer"] == answers.loc[(q, "large@1"), "answer"]
        )
    rows = load_run(run).drafts
    assert set(rows.role) == {"small", "large"}
    assert (rows.groupby(["question_id", "role"]).text.last() == "unknown").all()
    scored = [texts for _, texts in fakes["fake-small"].scored]
    assert scored and all(t[-1] == "unknown" for t in scored)
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["left_out"] == {}


def test_a_model_that_cannot_score_leaves_its_method_out_and_says_why(  # type: ignore[no-untyped-def]
    corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fakes, caplog
) -> None:
    class Broken(FakeBackend):
        def score(self, messages, candidates):  # type: ignore[no-untyped-def]
            self.scored.append((messages, tuple(candidates)))
            raise ModelError(f"{self.name}: malformed response (no choices)")

    broken = Broken("fake-large", fakes["fake-large"].script)
    factory = {"fake-small": fakes["fake-small"], "fake-large": broken}
    monkeypatch.setattr(cli, "_factory", lambda: lambda spec, _cfg: factory[spec])
    articles, questions = corpus
    args = run_args(articles, questions, "fake-small", "fake-large", 4, tmp_path, "half")
    with caplog.at_level(logging.WARNING):
        result = CliRunner().invoke(cli.app, [*args, "--checks", "none"])
    assert result.exit_code == 0, result.output
    assert len(broken.scored) == 1  # one probe request, then no more
    methods = set(pd.read_csv(tmp_path / "half" / "summary.csv").method)
    assert "small-text@0" in methods and "large-text@1" not in methods
    manifest = json.loads((tmp_path / "half" / "manifest.json").read_text(encoding="utf-8"))
    assert list(manifest["left_out"]) == ["pool scores (large)"]
    assert "malformed response" in manifest["left_out"]["pool scores (large)"]


def test_no_drafts_runs_no_scoring(  # type: ignore[no-untyped-def]
    corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fakes, fake_factory
) -> None:
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    articles, questions = corpus
    args = run_args(articles, questions, "fake-small", "fake-large", 4, tmp_path, "plain")
    result = CliRunner().invoke(cli.app, [*args, "--drafts", "none", "--checks", "none"])
    assert result.exit_code == 0, result.output
    assert not fakes["fake-small"].scored and not fakes["fake-large"].scored
    assert not (tmp_path / "plain" / "scores.csv").exists()
