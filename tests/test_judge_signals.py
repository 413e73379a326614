"""The judge's signals (issue 53): each signal's calls and the features its scores give, and the
fitting bench's ways read from them."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from experiment.bench.fit.judge import Judged, alone, figures, firsts, judged_set, section
from experiment.bench.fit.ranking_fit import Item
from experiment.bench.sections import measured
from experiment.config import RunConfig
from experiment.evaluate.judge_signals import (
    CALIBRATED,
    CHANNEL,
    CHANNEL_N,
    CONTENT_FREE,
    FORMS,
    MASK,
    PAIRWISE,
    Judging,
    bare,
    content_free,
    evidence_of,
    forms_of,
    own_forms,
)
from experiment.evaluate.large_check import Probe
from experiment.evaluate.pool import PoolCandidate, bounded, pool
from experiment.generate.models.base import CandidateScores
from experiment.generate.prompts import messages_for

from .conftest import write_corpus
from .test_pool import PROSE, TABLE, article, question

ASK = "How many people did the company employ in 2023?"


def scores(*logprobs: float, tokens: int = 2) -> CandidateScores:
    return CandidateScores(tuple(logprobs), tuple(tokens for _ in logprobs), 10, 0.0, 12, 100.0)


def setup(text: str = PROSE, ask: str = ASK, gold: str = "1,240"):  # type: ignore[no-untyped-def]
    q, art = question(ask, gold), article(text)
    cands = bounded(pool(q, art))
    return q, art, cands, messages_for(art, q)


def by_text(cands: list[PoolCandidate], text: str) -> int:
    return next(i for i, c in enumerate(cands) if c.text == text)


def test_a_bare_figure_is_the_number_alone() -> None:
    assert bare("$142.9 million") == "142.9"
    assert bare("1,240") == ""  # already bare: no second form
    assert bare("12 to 15") == ""  # two figures: no single bare one


def test_forms_join_the_probability_one_value_splits_across_its_writings() -> None:
    q, art, cands, messages = setup(TABLE, "What was revenue in 2019?", "$142.9 million")
    i = next(i for i, c in enumerate(cands) if "142.9" in c.text)
    assert "142.9" in forms_of(cands[i], art) and cands[i].text != "142.9"
    base = {c.text: -3.0 for c in cands}
    base[cands[i].text] = -3.2  # a little less probable written out ...
    probes = FORMS.probes(Judging(messages, q, art, cands, list(range(len(cands))), base))
    assert len(probes) == 1 and "142.9" in probes[0].texts
    assert not set(probes[0].texts) & set(base)  # the base texts are not scored again
    got = [-1.0 if t == "142.9" else -9.0 for t in probes[0].texts]  # ... but likely bare
    feats = FORMS.decide(Judging(messages, q, art, cands, [], base), probes, [scores(*got)])
    assert feats[i]["form_gap"] == 0.0  # the value's forms together come first
    assert feats[i]["written_gap"] == 0.0  # the cell as the table writes it: its bare figure
    assert all(f["form_gap"] < 0 for j, f in enumerate(feats) if j != i)


def test_calibration_takes_away_what_the_article_makes_likely_for_any_question() -> None:
    q, art, cands, messages = setup()
    free = content_free(messages, q)
    assert (
        f"Question: {CONTENT_FREE}\n" in free[-1]["content"] and q.text not in free[-1]["content"]
    )
    assert free[-1]["content"].startswith(messages[-1]["content"][:200])  # one prefix: read once
    salient, asked = by_text(cands, "2009"), by_text(cands, "1,240")
    base = {c.text: -5.0 for c in cands} | {"2009": -1.0, "1,240": -1.5}
    probes = CALIBRATED.probes(Judging(messages, q, art, cands, [], base))
    (probe,) = probes
    got = [-1.0 if t == "2009" else -6.0 for t in probe.texts]  # salient with no question at all
    feats = CALIBRATED.decide(Judging(messages, q, art, cands, [], base), probes, [scores(*got)])
    assert feats[asked]["calib_gap"] == 0.0 and feats[salient]["calib_gap"] < 0


def test_the_channel_reads_each_top_candidates_sentence_with_and_without_its_figure() -> None:
    q, art, cands, messages = setup()
    i = by_text(cands, "1,240")
    shown, masked = evidence_of(cands[i], art)
    assert shown.startswith("In 2023 the company employed 1,240") and "Tampere" not in shown
    assert masked == f"In 2023 the company employed {MASK} people, up from 960 a year earlier."
    order = list(range(len(cands)))
    probes = CHANNEL.probes(Judging(messages, q, art, cands, order, {}))
    assert {p.texts for p in probes} == {(q.text,)}  # the question is what is scored
    assert {p.members[0] for p in probes} <= set(order[:CHANNEL_N])
    # one call per distinct passage: 960 shares 1,240's sentence, and its unmasked passage
    assert len({p.messages[-1]["content"] for p in probes}) == len(probes)
    lps = [-10.0 if "employed" in p.messages[-1]["content"] else -40.0 for p in probes]
    feats = CHANNEL.decide(
        Judging(messages, q, art, cands, order, {}), probes, [scores(x, tokens=10) for x in lps]
    )
    assert feats[i]["channel_gap"] == 0.0
    assert feats[by_text(cands, "2014")]["channel_gap"] == pytest.approx(-3.0)
    read = {p.messages[-1]["content"].removeprefix("Passage: ") for p in probes}
    beyond = [j for j in range(len(cands)) if j not in order[:CHANNEL_N]]
    assert beyond and all(
        (feats[j]["channel_gap"] is None) == (evidence_of(cands[j], art)[0] not in read)
        for j in beyond
    )  # beyond the top few, only a passage read already is scored


def test_the_mask_hides_the_candidates_own_mention_only() -> None:
    text = "In 2015 the firm ran 5 plants and 15 depots, and 25 trucks made 5,500 trips."
    q, art = question("How many plants did the firm run?", "5"), article(text)
    (five,) = [c for c in bounded(pool(q, art)) if c.text == "5"]
    assert evidence_of(five, art)[1] == text.replace(" 5 plants", f" {MASK} plants")
    q, art = question("What was revenue in 2019?", "$142.9 million"), article(TABLE)
    cell = next(c for c in bounded(pool(q, art)) if "142.9" in c.text)
    shown, masked = evidence_of(cell, art)
    assert shown.splitlines()[-1] == "| Revenue | 142.9 | 120.5 |"
    assert masked.splitlines()[-1] == f"| Revenue | {MASK} | 120.5 |"
    assert masked.splitlines()[:-1] == shown.splitlines()[:-1]  # the headers stay


def test_a_form_belongs_to_one_candidate_and_a_date_has_no_bare_year() -> None:
    text = "The plant opened in October 1973. A second line followed in 1973 too."
    q, art = question("When did the plant open?", "October 1973", kind="date"), article(text)
    cands = bounded(pool(q, art))
    month = next(c for c in cands if c.text == "October 1973")
    assert "1973" not in forms_of(month, art)  # "1973" is another date
    q, art = (
        question("What was the loss?", "-123 million"),
        article("The loss was -123 million. Sales were 123 million."),
    )
    cands = bounded(pool(q, art))
    got = dict(zip((c.text for c in cands), own_forms(cands, art), strict=True))
    assert all("123" not in forms for forms in got.values())  # shared: neither's


def test_pairwise_compares_the_top_two_in_both_orders_so_position_bias_cancels() -> None:
    q, art, cands, messages = setup()
    order = [by_text(cands, "1,240"), by_text(cands, "960"), *range(len(cands))]
    probes = PAIRWISE.probes(Judging(messages, q, art, cands, order, {}))
    assert [p.members for p in probes] == [(order[0], order[1]), (order[1], order[0])]
    assert "A: 1,240\nB: 960" in probes[0].messages[-1]["content"]
    assert "A: 960\nB: 1,240" in probes[1].messages[-1]["content"]
    biased = PAIRWISE.decide(
        Judging(messages, q, art, cands, order, {}),
        probes,
        [scores(-0.1, -3.0), scores(-0.1, -3.0)],
    )
    assert biased[order[0]]["pair_win"] == pytest.approx(0.5)  # always "A": no preference
    sure = PAIRWISE.decide(
        Judging(messages, q, art, cands, order, {}),
        probes,
        [scores(-3.0, -0.1), scores(-0.1, -3.0)],
    )
    assert sure[order[1]]["pair_win"] > 0.9 and sure[order[0]]["pair_win"] < 0.1
    assert sum(f["pair_win"] is not None for f in sure) == 2
    assert PAIRWISE.probes(Judging(messages, q, art, cands[:1], [0], {})) == []


def _judged(i: int, right_at: int, pair_second: float, group: str) -> Judged:
    feats = [
        {"score_gap": 0.0, "form_gap": -1.0, "calib_gap": 0.0, "channel_gap": -1.0,
         "pair_win": 1.0 - pair_second},
        {"score_gap": -1.0, "form_gap": 0.0, "calib_gap": -1.0, "channel_gap": 0.0,
         "pair_win": pair_second},
    ]  # fmt: skip
    right = [j == right_at for j in range(2)]
    return Judged(
        Item("set", group, False, feats, right, False), [0, 1], {"base": 10.0, "forms": 5.0}
    )


def test_each_way_alone_has_its_first_candidate_and_loss() -> None:
    j = _judged(0, right_at=1, pair_second=0.8, group="g")
    got = firsts(j)
    assert got["logprob"] == 0 and got["forms"] == 1 and got["channel"] == 1
    assert got["pairwise"] == 1 and got["selector"] == 0 and got["calibrated"] == 0
    table = alone([j, _judged(1, right_at=0, pair_second=0.2, group="h")])["set"]
    assert table["held"] == 2 and table["wrong"]["logprob"] == 1 and table["wrong"]["pairwise"] == 0


def test_a_fitted_margin_over_unknown_abstains_where_the_training_folds_say() -> None:
    import numpy as np

    from experiment.bench.fit.ranking_fit import cv_threshold

    # answerable questions whose top candidate is right at a margin of 1 over "unknown", and
    # unanswerable ones whose top candidate sits 1 below it: a threshold between is right on all
    its = [Item("s", f"g{i}", i % 2 == 1, [{}], [i % 2 == 0], False) for i in range(10)]
    margins = [np.array([1.0 if i % 2 == 0 else -1.0]) for i in range(10)]
    right, chosen = cv_threshold(its, margins, (-np.inf, -2.0, 0.0, 2.0), 5)
    assert all(right) and chosen == [0.0] * 5
    never, _ = cv_threshold(its, margins, (-np.inf,), 5)  # a grid that cannot abstain
    assert sum(never) == 5


def test_the_section_is_rendered_from_its_record() -> None:
    judged = [_judged(i, right_at=i % 2, pair_second=0.9 if i % 2 else 0.1, group=f"g{i}")
              for i in range(10)]  # fmt: skip
    got = figures(judged, "small", "m.gguf")
    assert got["cost"]["forms"] == pytest.approx(0.5) and got["cost"]["channel"] == 0.0
    assert not math.isnan(got["together"]["+pairwise"]["mean"])
    assert "logprob, abstains under a fitted margin" in got["together"]
    text = section(measured("fit-judge", "factqa bench fit judge ...", got))
    assert "| pairwise | 0.000 |" in text and "forms 0.50x" in text


def test_a_new_signal_is_one_registration(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    fake_factory,  # type: ignore[no-untyped-def]
) -> None:
    """A toy signal registered in `SIGNALS` is called on every question by the fit, measured
    alone and together, and costed, with no other edit."""
    from experiment.evaluate import judge_signals

    def probes(j: judge_signals.Judging) -> list[Probe]:
        return [Probe(j.messages, tuple(c.text for c in j.cands), tuple(range(len(j.cands))))]

    def decide(j: judge_signals.Judging, probes: object, scores: object) -> list:  # type: ignore[type-arg]
        return [{"toy": -float(i)} for i in range(len(j.cands))]

    toy = judge_signals.Signal("toy", ("toy",), probes, decide)
    monkeypatch.setitem(judge_signals.SIGNALS, "toy", toy)
    articles, questions = write_corpus(tmp_path)
    cfg = RunConfig(
        articles=articles, questions=questions, out=tmp_path / "out", run_id="fit",
        small="fake-small", large="fake-large", drafts="small",
    )  # fmt: skip
    judged = judged_set("toy-set", cfg, 5, "small", factory=fake_factory)
    assert judged and all("toy" in j.flops for j in judged)
    assert all(f["toy"] is not None for j in judged for f in j.item.features)
    got = figures(judged, "small", "fake-small")
    assert got["alone"]["toy-set"]["held"] > 0 and "toy" in got["alone"]["toy-set"]["wrong"]
    assert "+toy" in got["together"] and "toy" in got["cost"]
