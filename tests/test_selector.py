"""The question-aware selector: answer types, evidence alignment, candidate features, the
selectors, the routed cascade, and the split that keeps fitting and evaluation apart."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from experiment.base.types import Article, Attempt, Question
from experiment.evaluate.answer import Answer
from experiment.evaluate.answer_type import asked_type, candidate_types, type_fit
from experiment.evaluate.evidence import QuestionView
from experiment.evaluate.features import FEATURES, candidates
from experiment.evaluate.large_check import LARGE_EVIDENCE
from experiment.evaluate.methods import (
    ROUTED_SHARES,
    add_routed,
    answer_methods,
    method_names,
    routing_curve,
)
from experiment.evaluate.selector import (
    CHECKED,
    PACKAGED,
    RULE,
    SelectorModel,
    learned,
    learned_checked,
    load,
    pick,
    save,
)
from experiment.importers.layout import Imported, ImportStats
from experiment.importers.layout import select as select_rows
from experiment.importers.split import half_of
from experiment.values.normalize import parse_value
from experiment.verify.answer import confirm_text

TEXT = (
    "OrigoTech was founded in 2009 by two engineers in Tampere. "
    "The company opened its second office in 2014. "
    "In 2023 the company employed 1,240 people, up from 960 a year earlier. "
    "Its headquarters building has 14 floors."
)
ARTICLE = Article("a1", "OrigoTech", "2024-01-01", TEXT, Path("a1.md"))
FOUNDED = Question("q1", "a1", "In what year was OrigoTech founded?", ("2009",), "date")
STAFF = Question(
    "q2", "a1", "How many people did the company employ in 2023?", ("1,240",), "figure"
)


def sample(q: Question, text: str, i: int, logprob: float | None = None) -> Answer:
    """A small-model sample confirmed in ARTICLE, as a run confirms it."""
    found = confirm_text(text, TEXT, q.text, q.kind)
    value = found.best.value if found.best else None
    attempt = Attempt(
        question_id=q.id, article_id="a1", role="small", model="m", sample_index=i, seed=i,
        temperature=0.7, raw_text=text, prompt_tokens=10, completion_tokens=2, seconds=0.1,
        cached=False, answer=found.best.text if found.best else "",
        value=value.canonical() if value else "", confirmed=found.confirmed, spans=found.spans,
        reason=found.reason, logprob=logprob,
    )  # fmt: skip
    return Answer(attempt, value)


# -- answer types -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("In what year was it founded?", "year"),
        ("What date did the deal close?", "full date"),
        ("When did the plant open?", "date"),
        ("How many people work there?", "count"),
        ("What percentage of revenue came from cloud?", "percentage"),
        ("How much did the company pay for the site?", "money"),
        ("How long is the bridge?", "measure"),
        ("How old was the founder?", "age"),
        ("By how much did sales fall?", "number"),
    ],
)
def test_the_asked_type_comes_from_the_wording(question: str, asked: str) -> None:
    assert asked_type(question) == asked


def test_type_fit_is_soft_exact_near_or_none() -> None:
    year, day = parse_value("2009", "date"), parse_value("3 March 2009", "date")
    money, count = parse_value("€4.5 million", "figure"), parse_value("450", "figure")
    assert candidate_types(count) == ("count",) and "year" in candidate_types(
        parse_value("2009", "figure")
    )
    assert type_fit("year", year) == 1.0 and type_fit("full date", year) == 0.5
    assert type_fit("date", day) == 1.0
    assert type_fit("count", count) == 1.0 and type_fit("count", money) == 0.0
    assert type_fit("money", count) == 0.5  # a unit is often left out


# -- evidence alignment -------------------------------------------------------------------------


def test_the_sentence_that_matches_the_question_scores_highest() -> None:
    view = QuestionView.of(TEXT, FOUNDED.text)
    founded = view.align(TEXT.index("2009"), TEXT.index("2009") + 4)
    office = view.align(TEXT.index("2014"), TEXT.index("2014") + 4)
    assert founded.best_sentence == 1.0 and office.best_sentence == 0.0
    assert founded.bm25 == 1.0 > office.bm25
    assert founded.overlap > office.overlap
    assert founded.proximity > 0
    assert TEXT[slice(*founded.sentence)].startswith("OrigoTech was founded")


def test_alignment_of_an_article_without_sentences_is_zero() -> None:
    view = QuestionView.of("", "How many?")
    assert view.align(0, 0).score == 0.0


# -- candidates and their features ---------------------------------------------------------------


def test_candidates_are_distinct_confirmed_answers_with_features() -> None:
    small = [
        sample(STAFF, "1,240", 0, -2.0),
        sample(STAFF, "960", 1, -6.0),
        sample(STAFF, "1240 people", 2, -1.0),
        sample(STAFF, "5,000", 3),  # not in the text: never a candidate
        sample(STAFF, "2023", 4),  # in the text, and in the question
    ]
    cands = candidates(STAFF, ARTICLE, small)
    assert [c.canonical for c in cands] == ["1240", "960", "2023"]
    first = cands[0]
    assert set(first.features) == set(FEATURES)
    assert first.samples == (0, 2) and first.features["votes"] == 2 / 4
    assert first.features["share"] == 2 / 5 and first.features["rivals"] == 1 / 3
    assert first.features["logprob"] == pytest.approx(-1.0 / 30)  # the best of its samples
    assert cands[2].features["in_question"] == 1.0 and first.features["in_question"] == 0.0
    assert cands[2].features["logprob"] is None  # no sample reported one
    assert TEXT[first.span.start : first.span.end] == "1,240"


def test_no_confirmed_sample_means_no_candidate() -> None:
    assert candidates(STAFF, ARTICLE, [sample(STAFF, "5,000", 0)]) == []


# -- selectors ----------------------------------------------------------------------------------


def test_the_rule_prefers_the_figure_the_question_asks_about() -> None:
    small = [sample(FOUNDED, "2014", i) for i in range(3)] + [sample(FOUNDED, "2009", 3)]
    sel = pick(candidates(FOUNDED, ARTICLE, small), RULE)
    assert sel.chosen is not None and sel.chosen.canonical == "2009"  # outvoted, still chosen
    assert [c.canonical for c, _ in sel.ranked] == ["2009", "2014"]
    # the plain vote keeps the other one: this is what the selector adds
    out = answer_methods(FOUNDED, small, small[3], 4, ARTICLE, RULE)
    assert not out["small-verified@4"].correct and out["small-rule@4"].correct


def test_a_selector_abstains_below_its_threshold() -> None:
    cands = candidates(FOUNDED, ARTICLE, [sample(FOUNDED, "2014", 0)])
    strict = SelectorModel("strict", "rule", dict(RULE.weights), threshold=5.0)
    sel = pick(cands, strict)
    assert sel.chosen is None and sel.best is not None and sel.confidence < 5.0
    assert pick([], RULE).confidence == 0.0


def test_the_logistic_score_is_a_probability_and_missing_features_are_imputed() -> None:
    model = SelectorModel(
        "m", "logistic", {"votes": 2.0, "logprob": 1.0}, 0.5, intercept=-1.0,
        mean={"votes": 0.5, "logprob": -0.2}, scale={"votes": 0.25, "logprob": 0.1},
        impute={"logprob": -0.2},
    )  # fmt: skip
    high = model.score({"votes": 1.0, "logprob": None})
    low = model.score({"votes": 0.0, "logprob": None})
    assert 0.0 < low < 0.5 < high < 1.0
    assert model.score({"votes": 1.0, "logprob": -0.2}) == high  # imputed at its mean


def test_a_saved_selector_loads_back_and_unknown_features_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    save(RULE, path)
    assert load(path) == RULE
    data = json.loads(path.read_text())
    data["weights"]["colour"] = 1.0
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="colour"):
        load(path)


def test_the_shipped_selector_was_fitted_on_the_fitting_titles_only() -> None:
    model = learned()
    assert model.kind == "logistic" and set(model.weights) == set(FEATURES)
    assert 0.0 <= model.threshold < 1.0
    fitted = model.fitted
    assert fitted["questions"] and fitted["titles_sha256"]
    # The half of a title is the parity of its hash's first byte: every fitting title is even,
    # so no benchmark sample (odd titles only, see the next test) shares a title with it.
    assert all(int(h[:2], 16) % 2 == 0 for h in fitted["titles_sha256"])
    # fitted by `factqa bench fit selector` (before issue 41: bench/fit/selector.py)
    assert any(c in fitted["command"] for c in ("bench fit selector", "bench/fit/selector.py"))
    assert PACKAGED.is_file()


def test_the_checked_selector_is_the_same_fit_with_the_large_models_evidence_score() -> None:
    model, plain = learned_checked(), learned()
    assert CHECKED.is_file() and set(model.weights) == {*FEATURES, LARGE_EVIDENCE}
    assert "--large-evidence" in model.fitted["command"]
    assert model.fitted["titles_sha256"] == plain.fitted["titles_sha256"]
    assert model.fitted["questions"] == plain.fitted["questions"]
    # the check's vote counts for a candidate: a higher score raises it, all else equal
    base = {f: model.mean.get(f, 0.0) for f in FEATURES}
    assert model.score({**base, LARGE_EVIDENCE: 0.95}) > model.score({**base, LARGE_EVIDENCE: 0.05})


def test_the_split_rule_puts_each_title_in_one_half_and_imports_only_that_half() -> None:
    titles = [f"Title {i}" for i in range(40)]
    halves = {t: half_of(t) for t in titles}
    assert set(halves.values()) == {"fit", "eval"}
    for t, h in halves.items():
        assert (hashlib.sha256(t.encode()).digest()[0] % 2 == 1) == (h == "eval")
    rows = [
        Imported(f"q{i}", f"p{i}", t, f"It opened in {1900 + i}.", "When did it open?",
                 (str(1900 + i),), t)
        for i, t in enumerate(titles)
    ]  # fmt: skip
    for half in ("fit", "eval"):
        stats = ImportStats()
        picked = select_rows(rows, None, 0, None, stats, half)  # type: ignore[arg-type]
        assert picked and {half_of(r.group) for r, _ in picked} == {half}
        assert stats.skipped_other_half == len(titles) - len(picked)


# -- routed cascade -----------------------------------------------------------------------------


def test_cascade_at_b_sends_the_least_confident_share_to_the_large_model() -> None:
    qs = [Question(f"q{i}", "a1", FOUNDED.text, ("2009",), "date") for i in range(10)]
    answers = {}
    for i, q in enumerate(qs):
        # questions 0..3 get a wrong, weakly supported answer; the others the right one
        text = "2014" if i < 4 else "2009"
        small = [sample(q, text, j) for j in range(1 + i % 3)]
        answers[q.id] = answer_methods(q, small, sample(q, "2009", 0), 3, ARTICLE, RULE)
    add_routed(qs, answers, 3)
    names = method_names(3)
    assert all(f"cascade@{b}%" in names for b in ROUTED_SHARES)
    for b in ROUTED_SHARES:
        got = [answers[q.id][f"cascade@{b}%"] for q in qs]
        assert sum(a.large_calls for a in got) == b // 10  # B % of 10 questions, rounded down
    at30 = [answers[q.id]["cascade@30%"] for q in qs]
    sent = [q.id for q, a in zip(qs, at30, strict=True) if a.large_calls]
    assert set(sent) <= {"q0", "q1", "q2", "q3"}  # the low-confidence (wrong) ones go first
    assert sum(a.correct for a in at30) == 9
    curve = routing_curve(qs, answers, 3)
    full = [r for r in curve if r["selector"] == "small-selected@3" and r["share_sent"] == 1.0]
    assert full[0]["accuracy"] == 1.0  # everything sent: large@1's accuracy


# -- where the checker fails --------------------------------------------------------------------


def test_blind_spots_say_whether_the_right_figure_was_sampled_confirmed_and_out_ranked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import experiment.evaluate.blindspots as bs
    import experiment.evaluate.methods as methods

    by_votes = SelectorModel("votes", "rule", {"votes": 1.0}, threshold=0.0)
    monkeypatch.setattr(bs, "learned", lambda: by_votes)
    monkeypatch.setattr(methods, "learned", lambda: by_votes)
    staff2 = Question("q3", "a1", STAFF.text, ("7,000",), "figure")  # never sampled
    staff3 = Question("q4", "a1", STAFF.text, ("5,000",), "figure")  # sampled, not in the text
    cases = {
        staff3.id: (staff3, ["960", "5,000"]),
        FOUNDED.id: (FOUNDED, ["2014", "2014", "2014", "2009"]),  # right, confirmed, out-voted
        STAFF.id: (STAFF, ["960", "1,240", "960"]),  # right, confirmed, out-voted
        staff2.id: (staff2, ["960", "1,240"]),
    }
    qs = [q for q, _ in cases.values()]
    small = {q.id: [sample(q, t, i) for i, t in enumerate(texts)] for q, texts in cases.values()}
    answers = {
        q.id: answer_methods(q, small[q.id], small[q.id][0], len(small[q.id]), ARTICLE) for q in qs
    }
    k_of = {q.id: len(small[q.id]) for q in qs}
    rows = {}
    for q in qs:
        method = f"small-selected@{k_of[q.id]}"
        for spot in bs.blind_spots([q], answers, [method], small, {"a1": ARTICLE}):
            rows[q.id] = spot
    assert rows[FOUNDED.id].gold_status == "confirmed, out-ranked"
    assert rows[FOUNDED.id].gold_rank == 2 and rows[FOUNDED.id].answer == "2014"
    assert rows[FOUNDED.id].features is not None and rows[FOUNDED.id].confidence == 0.75
    assert rows[STAFF.id].gold_status == "confirmed, out-ranked"
    assert rows[staff2.id].gold_status == "not sampled" and rows[staff2.id].gold_rank is None
    assert rows[staff3.id].gold_status == "sampled, not confirmed"
    csv_row = bs.row(rows[FOUNDED.id])
    assert list(csv_row) == bs.COLUMNS and csv_row["votes"] == 0.75


def test_selected_checked_ranks_by_the_evidence_check_and_pays_for_it() -> None:
    from experiment.evaluate.large_check import EVIDENCE, Check

    small = [sample(STAFF, "1,240", 0, -2.0), sample(STAFF, "960", 1, -2.0)]
    large = sample(STAFF, "1,240", 9)
    name = "small-selected-checked@2"

    def ranked(margins: tuple[float, ...]) -> tuple[str | None, int, int]:
        check = Check(EVIDENCE, ("1,240", "960"), margins, None, 40, 0.5, 40, 1e9, 1)
        got = answer_methods(STAFF, small, large, 2, ARTICLE, checks={EVIDENCE: check})[name]
        value = got.chosen.attempt.value if got.chosen is not None else None
        return value, got.prompt_tokens, got.large_calls

    # the check's call and its 40 prompt tokens are paid beside the two samples' 10 each
    assert ranked((6.0, -6.0)) == ("1240", 60, 1)
    assert ranked((-6.0, 6.0))[0] == "960"  # the check's verdict turns the ranking
    none = answer_methods(STAFF, small, large, 2, ARTICLE, checks={})[name]
    assert none.chosen is None and none.large_calls == 0  # nothing confirmed: no call
