"""`factqa bench model-check`: the small model's choice among its confirmed candidates and its
yes/no check of each, as the benchmark asks them (a scripted model; the real one runs in the
bench)."""

from __future__ import annotations

import math
from pathlib import Path

from experiment.base.types import Generation
from experiment.bench.measure.model_check import (
    CHOICE,
    YES_NO,
    Asked,
    CachedModel,
    ask,
    choice_messages,
    p_yes,
    ranked_oof,
    top_right,
)
from experiment.evaluate.features import candidates
from experiment.generate.cache import GenerationCache
from experiment.generate.models.base import Backend, Messages, SamplingParams
from experiment.generate.prompts import messages_for
from tests.test_selector import ARTICLE, FOUNDED, sample


def test_the_choice_prompt_is_the_sampling_prompt_with_the_candidates_listed() -> None:
    plain = messages_for(ARTICLE, FOUNDED)
    asked = choice_messages(ARTICLE, FOUNDED, ["2009", "2014"])
    assert asked[0] == plain[0]
    head = plain[1]["content"].split("\nAnswer with")[0]
    assert asked[1]["content"].startswith(head)  # the article's prefix is shared
    assert "one of these, or none of them: 2009; 2014\n" in asked[1]["content"]
    assert plain == messages_for(ARTICLE, FOUNDED)  # the sampling prompt is left as it was


def test_p_yes_reads_the_greedy_reply() -> None:
    def g(text: str, logprob: float | None) -> Generation:
        return Generation(text, 5, 1, 0.1, "stop", logprob)

    assert math.isclose(p_yes(g("Yes.", math.log(0.8))), 0.8)
    assert math.isclose(p_yes(g("No", math.log(0.8))), 0.2)
    assert p_yes(g("maybe", -0.1)) == 0.5 and p_yes(g("yes", None)) == 0.5


def scripted(choice: str, yes_to: str) -> tuple[list[Messages], object]:
    calls: list[Messages] = []

    def model(messages: Messages, params: SamplingParams) -> Generation:
        calls.append(messages)
        if params == CHOICE:
            return Generation(choice, 300, 2, 1.5, "stop", -0.2)
        said = "yes" if f"Proposed answer: {yes_to}\n" in messages[1]["content"] else "no"
        return Generation(said, 40, 1, 0.25, "stop", math.log(0.9))

    return calls, model


def test_ask_marks_the_chosen_candidate_and_each_p_yes() -> None:
    small = [sample(FOUNDED, t, i) for i, t in enumerate(["2009", "2014", "2009", "2014", "2014"])]
    cands = candidates(FOUNDED, ARTICLE, small)
    assert [c.canonical for c in cands] == ["2009", "2014"]
    calls, model = scripted("It was 2009", yes_to="2009")
    got = ask(model, FOUNDED, ARTICLE, small, cands)  # type: ignore[arg-type]
    assert got.right == [True, False]
    assert got.chosen == [1.0, 0.0]
    assert [round(y, 3) for y in got.yes] == [0.9, 0.1]
    # the check shows only the candidate's evidence sentence, not the article
    check = calls[1][1]["content"]
    assert "founded in 2009" in check and "1,240" not in check
    assert got.choice_s == 1.5 and got.check_s == 0.5
    assert math.isclose(got.sampling_s, 0.5)


def test_a_choice_outside_the_candidates_chooses_none() -> None:
    small = [sample(FOUNDED, t, i) for i, t in enumerate(["2009", "2014"])]
    _, model = scripted("unknown", yes_to="none")
    got = ask(model, FOUNDED, ARTICLE, small, candidates(FOUNDED, ARTICLE, small))  # type: ignore[arg-type]
    assert got.chosen == [0.0, 0.0]


def test_the_cached_model_calls_the_backend_once_per_prompt(tmp_path: Path) -> None:
    class Counting(Backend):
        name, fingerprint, calls = "fake", "sha256:fake", 0

        def generate(self, messages, params, seeds):  # type: ignore[no-untyped-def]
            Counting.calls += 1
            return [Generation("yes", 10, 1, 0.2, "stop", -0.1) for _ in seeds]

    cache = GenerationCache(tmp_path / "g.sqlite")
    model = CachedModel(Counting(), cache)
    prompt = [{"role": "user", "content": "q"}]
    first, again = model(prompt, YES_NO), model(prompt, YES_NO)
    cache.close()
    assert Counting.calls == 1 and first == again


def test_rankings_count_the_questions_whose_top_candidate_is_right() -> None:
    feats = [{f: 0.5 for f in ("votes",)}]
    asked = [
        Asked("q1", "t1", [False, True], feats * 2, chosen=[0.0, 1.0], yes=[0.9, 0.1]),
        Asked("q2", "t2", [True, False], feats * 2, chosen=[0.0, 0.0], yes=[0.7, 0.2]),
    ]
    assert top_right(asked, [a.chosen for a in asked]) == 2  # a tie keeps the first
    assert top_right(asked, [a.yes for a in asked]) == 1


def test_out_of_fold_ranking_keeps_each_questions_candidates_together() -> None:
    from experiment.evaluate.features import FEATURES

    asked = []
    for i in range(10):  # the right candidate has more votes, in every title
        base = dict.fromkeys(FEATURES, 0.0)
        asked.append(
            Asked(f"q{i}", f"t{i}", [i % 2 == 0, i % 2 == 1],
                  [base | {"votes": 0.8 if i % 2 == 0 else 0.2},
                   base | {"votes": 0.2 if i % 2 == 0 else 0.8}],
                  chosen=[1.0, 0.0], yes=[0.5, 0.5])
        )  # fmt: skip
    scores = ranked_oof(asked, None)
    assert [len(s) for s in scores] == [2] * 10
    assert top_right(asked, scores) == 10
