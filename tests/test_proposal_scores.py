"""Computed answers drafted from the text, checked by the models (issue 40's model half): the
texts scored for a computed question, the computed pool merged with the small model's
calculations, small-text-derived@k's rule, large-text-derived@1, their cost, a run and `ask`."""

from __future__ import annotations

import math
from dataclasses import asdict, replace
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.base.types import Article, Generation, Question
from experiment.evaluate.confirm import confirm_sample
from experiment.evaluate.drafts import (
    COMPUTED,
    LARGE,
    NEAR_TIE,
    SMALL,
    STATED,
    Drafts,
    derived_features,
    derived_pick,
    derived_selector,
    pool_of,
    question_pools,
    texts_to_score,
)
from experiment.evaluate.methods import (
    LARGE_TEXT,
    LARGE_TEXT_DERIVED,
    SMALL_TEXT,
    SMALL_TEXT_0,
    SMALL_TEXT_DERIVED,
    answer_methods,
)
from experiment.evaluate.proposal_pool import (
    CALCULATION,
    is_computed,
    proposal_pool,
    result_text,
)
from experiment.evaluate.proposals import KEEP_N, kept, propose
from experiment.evaluate.selector import SelectorModel
from experiment.evaluate.summary import BEATS, TIED, TOO_FEW
from experiment.generate.prompts import AUTO, CALC, FIGURE
from experiment.generate.sampling import Sample
from experiment.report.run import load_run

from .conftest import (
    ARTICLE_A,
    LARGE_ANSWERS,
    QUESTIONS,
    SMALL_ANSWERS,
    FakeBackend,
    keyword_script,
    run_args,
    write_corpus,
)

TABLE = """Revenue by segment ($ in millions):

| | 2019 | 2018 | 2017 |
|---|---|---|---|
| Hardware | 142.9 | 120.5 | 101.0 |
| Software | 80.0 | 70.2 | 60.4 |
| Total revenue | 210.9 | 182.7 | 155.4 |
"""
CHANGE = "What was the change in hardware revenue from 2018 to 2019?"


def _article(text: str = TABLE) -> Article:
    return Article("a", "t", "", text, Path("a.md"))


def _question(text: str = CHANGE, gold: str = "$22.4 million") -> Question:
    return Question("q", "a", text, (gold,), "figure")


def calc(q: Question, art: Article, text: str, i: int, flops: float = 1e6):  # type: ignore[no-untyped-def]
    """A small-model sample drawn with the calculation prompt, confirmed as a run confirms it."""
    g = Generation(text, 100, 5, 0.1, evaluated_tokens=105, flops=flops)
    return confirm_sample(Sample(q, i, i, g, cached=False, prompt=CALC), art, "small", "m", 0.7)


def scores(texts: tuple[str, ...], best: dict[str, float], role: str, unknown: float) -> Drafts:
    """`role`'s scores of a computed pool: `best`'s texts as given, "unknown" at `unknown`, the
    rest -6; the call cost 2e6 FLOPs, the candidates alone 3e5."""
    lps = tuple(unknown if t == "unknown" else best.get(t, -6.0) for t in texts)
    return Drafts(role, texts, lps, tuple(3 for _ in texts), 50, 0.1, 30, 2e6, 20, 3e5,
                  pool=COMPUTED)  # fmt: skip


def test_a_computed_question_scores_its_kept_proposals_results_as_written_then_unknown() -> None:
    q, art = _question(), _article()
    assert is_computed(q, AUTO) and is_computed(q, CALC)
    assert not is_computed(q, FIGURE)  # the figure prompt: the stated pool, as before
    assert not is_computed(_question("What was hardware revenue in 2019?"), AUTO)
    own, merged = question_pools(q, art, (), AUTO)
    texts = texts_to_score(own, merged)
    results = [result_text(p, art.text) for p in kept(propose(q.text, art.text))]
    assert texts[-1] == "unknown" and set(texts[:-1]) == set(results)
    assert len(set(results)) == len(texts) - 1 <= KEEP_N
    assert texts[0] == "$22.4 million"  # the top proposal, in its table's scale
    assert own[0].proposal is not None and own[0].proposal.derivation == "22.4 = 142.9 - 120.5"
    stated, _ = question_pools(q, art, (), FIGURE)
    assert "$142.9 million" in texts_to_score(stated)  # the figure prompt scores the stated
    assert pool_of(q, AUTO) == COMPUTED and pool_of(q, FIGURE) == STATED


@pytest.mark.parametrize(
    ("text", "question", "derivation", "written"),
    [
        (TABLE, CHANGE, "-22.4 = 120.5 - 142.9", "-$22.4 million"),  # the table's scale
        (
            "Revenue rose to €1.12 billion from €982 million.",
            "By how much did revenue rise?",
            "138000000 = €1.12 billion - €982 million",
            "€138 million",  # the smaller scale word of its figures
        ),
        (
            "Cyclists waited 48 seconds before and 31 seconds after the change.",
            "How much shorter was the wait after the change?",
            "17 = 48 seconds - 31 seconds",
            "17 seconds",
        ),
        (TABLE, "What percentage of total revenue was hardware in 2019?", None, "%"),
    ],
)
def test_a_result_is_written_as_a_model_would_answer_it(
    text: str, question: str, derivation: str | None, written: str
) -> None:
    found = propose(question, text)
    if derivation is None:  # a ratio asked as a percentage keeps its computed form
        p = next(p for p in found if p.operation == "ratio")
        assert result_text(p, text) == p.result and p.result.endswith(written)
        return
    p = next(p for p in found if p.derivation == derivation)
    assert result_text(p, text) == written


def test_a_sampled_calculation_joins_the_proposal_of_its_value() -> None:
    q, art = _question(), _article()
    small = [calc(q, art, "142.9 - 120.5", 0), calc(q, art, "142.9 - 120.5", 1)]
    small.append(calc(q, art, "155.4 - 101.0", 2))  # a value no kept proposal gives
    assert all(s.attempt.derived for s in small)
    merged = proposal_pool(q, art, small)
    both = [c for c in merged if c.origin == "both"]
    top = next(c for c in merged if c.canonical == small[0].value.canonical())  # type: ignore[union-attr]
    assert top in both and top.samples == (0, 1) and top.index == 0
    assert top.proposal is not None and top.proposal.derivation == "22.4 = 142.9 - 120.5"
    assert top.features["votes"] == 2.0 and top.features["proposal_rank"] == 0.0
    assert len([c for c in merged if c.canonical == top.canonical]) == 1  # one cluster
    assert all(c.origin == "text" for c in proposal_pool(q, art))  # no sample: text alone
    # a value only the samples give is still a candidate, after the proposals, in its scale
    last = merged[-1]
    assert last.origin == "sampled" and last.samples == (2,) and last.proposal is None
    assert last.text == "$54.4 million" and last.features["proposal_score"] is None
    # a sample the derivation rule refuses (a sum where a change is asked) is no candidate
    refused = calc(q, art, "142.9 + 101.0", 0)
    assert not refused.attempt.derived
    assert all(c.origin == "text" for c in proposal_pool(q, art, [refused]))


def test_in_the_calculation_form_the_texts_scored_are_the_calculations() -> None:
    q, art = _question(), _article()
    small = [calc(q, art, "142.9 - 120.5", 0), calc(q, art, "155.4 - 101.0", 1)]
    results = proposal_pool(q, art, small)
    calcs = proposal_pool(q, art, small, form=CALCULATION)
    # the same candidates, in the same order, each scored as the calculation prompt asks
    assert [c.canonical for c in calcs] == [c.canonical for c in results]
    assert calcs[0].text == "142.9 - 120.5" and results[0].text == "$22.4 million"
    assert all(c.text == c.proposal.expression for c in calcs if c.proposal is not None)
    assert calcs[-1].proposal is None and calcs[-1].text == "155.4 - 101.0"  # its own working
    own, merged = question_pools(q, art, small, AUTO, CALCULATION)
    assert "142.9 - 120.5" in texts_to_score(own, merged)
    assert "$22.4 million" not in texts_to_score(own, merged)
    # the methods read the scored form from the scores themselves
    texts = texts_to_score(merged)
    best = {"142.9 - 120.5": -0.5}
    drafts = replace(scores(texts, best, SMALL, -3.0), form=CALCULATION)
    picked = derived_pick(proposal_pool(q, art, small, form=drafts.form), drafts)
    assert picked.chosen is not None and picked.chosen.canonical == calcs[0].canonical


def test_the_rule_prefers_the_most_probable_and_breaks_near_ties_by_votes_then_rank() -> None:
    q, art = _question(), _article()
    small = [calc(q, art, "120.5 - 142.9", i) for i in range(2)]  # the wrong sign, twice
    merged = proposal_pool(q, art, small)
    texts = texts_to_score(merged)
    right, voted = "$22.4 million", "-$22.4 million"
    assert voted in texts and next(c for c in merged if c.text == voted).origin == "both"
    clear = derived_pick(merged, scores(texts, {right: -1.0, voted: -3.0}, SMALL, -5.0))
    assert clear.chosen is not None and clear.chosen.text == right  # four times as probable
    near = derived_pick(merged, scores(texts, {right: -1.0, voted: -1.5}, SMALL, -5.0))
    assert NEAR_TIE > 0.5 and near.chosen is not None and near.chosen.text == voted  # votes
    no_votes = proposal_pool(q, art)
    even = derived_pick(no_votes, scores(texts, {right: -1.2, voted: -1.0}, SMALL, -5.0))
    assert even.chosen is not None and even.chosen.text == right  # the model-free rank
    lost = derived_pick(merged, scores(texts, {right: -1.0}, SMALL, -0.5))
    assert lost.chosen is None and lost.unknown_won and lost.ranked  # "unknown" wins: abstain
    assert lost.confidence == pytest.approx(1 / (1 + math.exp(0.5)))


def test_a_fitted_model_can_replace_the_rule_over_the_same_features() -> None:
    q, art = _question(), _article()
    merged = proposal_pool(q, art)
    d = scores(texts_to_score(merged), {"$22.4 million": -1.0}, SMALL, -5.0)
    feats = derived_features(merged, d)
    assert set(feats[0]) >= {"score_margin", "votes", "proposal_score", "proposal_rank"}
    worst_rank = SelectorModel("rank", "rule", {"proposal_rank": 1.0}, -1e9)
    got = derived_pick(merged, d, worst_rank)
    assert got.chosen is merged[-1]


def test_the_methods_answer_computed_questions_only_and_pay_for_what_they_read() -> None:
    q, art = _question(), _article()
    small = [calc(q, art, "142.9 - 120.5", 0), calc(q, art, "101.0 - 120.5", 1)]
    large = calc(q, art, "142.9 - 120.5", 0, flops=9e6)
    texts = texts_to_score(proposal_pool(q, art, small))
    ds = {
        SMALL: scores(texts, {"$22.4 million": -0.5}, SMALL, -2.0),
        LARGE: scores(texts, {"-$68 million": -0.4, "$22.4 million": -0.9}, LARGE, -2.0),
    }
    out = answer_methods(q, small, large, 2, art, drafts=ds, computed=True)
    mine = out[SMALL_TEXT_DERIVED.name(2)]
    assert mine.correct and mine.chosen is small[0]  # a "both" candidate: its shown sample
    assert mine.samples == 2 and mine.flops == pytest.approx(2 * 1e6 + 3e5)  # samples + texts
    theirs = out[LARGE_TEXT_DERIVED.name(2)]
    # the same fitted pick as small-text-derived@k's, over the large model's scores
    same = derived_pick(proposal_pool(q, art), ds[LARGE], derived_selector(ds[LARGE].form))
    assert same.chosen is not None and theirs.chosen is not None
    assert theirs.chosen.value == same.chosen.value
    assert theirs.chosen.attempt.derived  # the working shown
    assert theirs.large_calls == 1 and theirs.samples == 0 and theirs.flops == 2e6  # the call
    for method in (SMALL_TEXT_0.name(2), SMALL_TEXT.name(2), LARGE_TEXT.name(2)):
        stated = out[method]  # the stated methods: nothing of theirs was scored
        assert stated.abstained and stated.flops == 0 and stated.samples == 0, method
    # a stated question: the computed methods abstain and pay nothing
    s = Question("s", "a", "What was hardware revenue in 2019?", ("$142.9 million",), "figure")
    plain = {role: Drafts(role, ("$142.9 million", "unknown"), (-0.5, -2.0), (3, 3))
             for role in (SMALL, LARGE)}  # fmt: skip
    out = answer_methods(s, small, large, 2, art, drafts=plain, computed=True)
    for method in (SMALL_TEXT_DERIVED.name(2), LARGE_TEXT_DERIVED.name(2)):
        assert out[method].abstained and out[method].flops == 0, method
    assert out[LARGE_TEXT.name(2)].correct


def test_unknown_winning_abstains_where_the_pick_says_so_and_a_failed_call_is_a_failure() -> None:
    q, art = _question(), _article()
    small = [calc(q, art, "142.9 - 120.5", 0)]
    texts = texts_to_score(proposal_pool(q, art, small))
    lost = {r: scores(texts, {"$22.4 million": -3.0}, r, -1.0) for r in (SMALL, LARGE)}
    out = answer_methods(q, small, small[0], 1, art, drafts=lost, computed=True)
    # both: where the shipped pick says so (the fit chose whether "unknown" abstains); the
    # hand-set rule always abstains
    shipped = derived_selector(lost[SMALL].form)
    abstains = shipped is None or bool(shipped.fitted.get("unknown_abstains", True))
    assert out[SMALL_TEXT_DERIVED.name(1)].abstained == abstains
    assert out[LARGE_TEXT_DERIVED.name(1)].abstained == abstains
    assert derived_pick(proposal_pool(q, art, small), lost[SMALL]).chosen is None
    broken = {r: Drafts(r, (), (), (), error="boom", pool=COMPUTED) for r in (SMALL, LARGE)}
    out = answer_methods(q, small, small[0], 1, art, drafts=broken, computed=True)
    assert out[SMALL_TEXT_DERIVED.name(1)].failed and out[LARGE_TEXT_DERIVED.name(1)].failed


MORE_UNITS = "How many more units were sold than the target?"
HEAD, *ROWS = QUESTIONS.strip().splitlines()
WITH_COMPUTED = (
    "\n".join(  # the test corpus and one computed question, marked computed
        [
            f"{HEAD},computed",
            *(f"{r},false" for r in ROWS),
            f"alpha-4,alpha,{MORE_UNITS},3200,figure,,true",
        ]
    )
    + "\n"
)
MORE = "than the target"


def _fakes() -> dict[str, FakeBackend]:
    small = {MORE: ["13,200 - 10,000", "3200"], **SMALL_ANSWERS}  # the first: the one it scores
    large = {MORE: "13,200 - 10,000", **LARGE_ANSWERS}
    return {
        "fake-small": FakeBackend("fake-small", keyword_script(small), flops=1e6),
        "fake-large": FakeBackend("fake-large", keyword_script(large), flops=1e7),
    }


def _auto_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A run of the test corpus and one computed question under `--prompt auto`, k = 4."""
    fakes = _fakes()
    monkeypatch.setattr(cli, "_factory", lambda: lambda spec, _cfg: fakes[spec])
    arts, qs = write_corpus(tmp_path, questions=WITH_COMPUTED)
    args = run_args(arts, qs, "fake-small", "fake-large", 4, tmp_path, "auto", "--prompt", "auto")
    result = CliRunner().invoke(cli.app, args)
    assert result.exit_code == 0, result.output
    return tmp_path / "auto"


def test_a_run_under_auto_scores_the_proposals_and_reports_the_methods(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = _auto_run(tmp_path, monkeypatch)
    summary = pd.read_csv(run / "summary.csv").set_index("method")
    assert {"small-text-derived@4", "large-text-derived@1"} <= set(summary.index)
    questions = pd.read_csv(run / "questions.csv", keep_default_na=False).set_index("question_id")
    for method in ("small-text-derived@4", "large-text-derived@1"):
        assert questions.loc["alpha-4", f"{method}.correct"], method
        assert questions.loc["alpha-4", f"{method}.value"] == "3200"
        others = questions.drop(index="alpha-4")[f"{method}.abstained"]
        assert others.all(), method  # every other question is stated: not theirs
    # both texts-derived methods' cost is theirs alone: one question's
    assert summary.loc["large-text-derived@1", "flops"] == pytest.approx(1e7 / 5)
    assert summary.loc["small-text-derived@4", "flops"] > 4 * 1e6
    drafts = load_run(run).drafts
    mine = drafts[drafts.question_id == "alpha-4"]
    expected = {"unknown"} | {
        c.text
        for c in proposal_pool(
            Question("alpha-4", "alpha", MORE_UNITS, ("3200",), "figure"),
            Article("alpha", "t", "", ARTICLE_A.split("---", 2)[2].strip(), Path("a")),
            form=CALCULATION,
        )
    }
    assert set(mine[mine.role == "large"].text) == expected
    assert "13,200 - 10,000" in set(mine.text)
    assert (mine.groupby("role").text.last() == "unknown").all()
    assert not set(drafts[drafts.question_id == "alpha-1"].text) & {"3200"}  # its stated pool


def _ask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[dict[str, FakeBackend], list[str]]:
    """The fakes behind `factqa ask`, and its arguments for the computed question, k = 2."""
    fakes = _fakes()
    monkeypatch.setattr(cli, "_factory", lambda: lambda spec, _cfg: fakes[spec])
    arts, _ = write_corpus(tmp_path)
    return fakes, [
        "ask", str(arts / "alpha.md"), MORE_UNITS, "--model", "fake-small", "-k", "2",
        "--large", "fake-large", "--all",
    ]  # fmt: skip


def test_ask_lists_the_proposals_with_their_working_and_scores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, base = _ask(tmp_path, monkeypatch)
    res = CliRunner().invoke(cli.app, [*base, "--prompt", "auto"], terminal_width=200)
    assert res.exit_code == 0, res.output
    drafted = res.output.split("the calculations the article drafts (", 1)[1]
    assert "after the calc prompt" in drafted and "3200 = 13,200 - 10,000" in drafted
    assert "both" in drafted and "-0.50" in drafted  # the sampled "3200" joins its proposal
    assert "small-text-derived@2: 3200" in drafted
    # as a run: a question routed to the calculation prompt has its calculations scored, and
    # the lead answer is the small pipeline's, from them
    assert "the pool (" not in res.output
    assert res.output.startswith("answer: 3200 (small-pipeline@2: the calculation the article ")
    hidden = CliRunner().invoke(cli.app, [*base, "--prompt", "auto", "--no-pool"])
    assert "the calculations the article drafts" not in hidden.output
    assert "the pool (" not in hidden.output


def test_ask_scores_the_results_as_written_when_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fakes, base = _ask(tmp_path, monkeypatch)
    res = CliRunner().invoke(cli.app, [*base, "--prompt", "auto", "--derived-text", "result"])
    assert res.exit_code == 0, res.output
    texts = {t for _, scored in fakes["fake-small"].scored for t in scored}
    assert "3200" in texts and "13,200 - 10,000" not in texts  # the results, not the working
    bad = CliRunner().invoke(cli.app, [*base, "--prompt", "auto", "--derived-text", "sum"])
    assert bad.exit_code != 0 and "derived_text" in bad.output


def test_the_benchmark_reads_the_models_figures_and_issue_40s_keys_from_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = _auto_run(tmp_path, monkeypatch)
    from experiment.bench.analyse import proposals as bench

    got = bench.model_result(run)
    assert got.k == 4 and got.n == 1  # the computed column: alpha-4 only
    assert got.accuracy["small-text-derived"] == got.accuracy["large-text-derived"] == 1.0
    # small-text-derived@4 paid its 4 samples (1e6 each) and its texts; large@1 its answer, 1e7
    assert got.flops_ratio is not None and 0.4 < got.flops_ratio < 0.5
    part = bench.part_figures(bench.PartResult("tatqa-eval", [bench.Row(True, 0, 3, True)]))
    models = {"tatqa-eval": asdict(got), "bundled": asdict(got)}
    line = bench.key_line([part], models)
    assert line.split() == [
        "tatqa_arith_large=1.000",
        "tatqa_arith_text_derived=1.000",
        "tatqa_arith_small_text_derived=1.000",
        "tatqa_arith_cov=1.000",
        "bundled_computed_large=1.000",
        "bundled_computed_small_text_derived=1.000",
        f"computed_flops_ratio_tatqa={got.flops_ratio:.3f}",
    ]
    table = bench.table([part], 10, {"tatqa-eval": models["tatqa-eval"]})
    assert "small-text-derived@4" in table.splitlines()[0]
    text_derived = f"{got.accuracy['text-derived']:.3f}"
    large = f"{got.accuracy['large']:.3f}"
    cells = f"| 1 | {large} | {text_derived} | 1.000 | 1.000 | {got.flops_ratio:.2f}x |"
    assert table.splitlines()[2].endswith(f"{cells} {got.verdict} | {got.over_text} |")
    assert got.over_text.startswith("too few clusters")  # against text-derived too
    assert got.verdict.startswith(TOO_FEW)  # one computed question, one cluster


def test_the_benchmark_tests_small_text_derived_against_large_on_the_computed_questions() -> None:
    from experiment.bench.analyse.proposals import _verdict

    def frame(mine: list[bool], large: list[bool], computed: list[bool]) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "cluster": [f"c{i}" for i in range(len(mine))],
                "computed": computed,
                "std.correct": mine,
                "large.correct": large,
            }
        )

    # 12 computed questions in 12 clusters: mine right on all, large on none
    wins = frame([True] * 12 + [False] * 8, [False] * 12 + [True] * 8, [True] * 12 + [False] * 8)
    assert _verdict(wins, "std", "large") == f"{BEATS} (+12/-0)"  # the stated 8 left out
    tied = frame([True, False] * 6, [False, True] * 6, [True] * 12)
    assert _verdict(tied, "std", "large") == f"{TIED} (+6/-6)"
    assert _verdict(wins, None, "large") == ""
