"""Each method's answer to one question, from scripted samples: abstentions, failures, pass@k."""

from __future__ import annotations

from experiment.base.types import Attempt, Question
from experiment.evaluate.answer import Answer
from experiment.evaluate.methods import answer_methods
from experiment.values.extract import ABSTAINED
from experiment.values.normalize import parse_value

Q = Question("q1", "a1", "How many staff were there?", ("450",), "figure")
NONE = Question("q2", "a1", "How many offices were there?", ("unanswerable",), "figure")


def s(text: str, confirmed: bool = False, reason: str = "", i: int = 0) -> Answer:
    """A scored sample: `text` is the model's answer; a value is read when it has one."""
    value = parse_value(text, "figure") if text and reason == "" else None
    attempt = Attempt(
        question_id="q", article_id="a1", role="small", model="m", sample_index=i, seed=i,
        temperature=0.7, raw_text=text, prompt_tokens=10, completion_tokens=2, seconds=0.1,
        cached=False, answer=text if value else "", value=value.canonical() if value else "",
        confirmed=confirmed, reason=reason,
    )  # fmt: skip
    return Answer(attempt, value)


ABSTAIN = s("The article does not say.", reason=ABSTAINED)
FAIL = s("", reason="empty output")


def test_every_method_on_a_plain_question() -> None:
    small = [s("400", True), s("450", True), s("450", True), s("500"), s("500"), s("500")]
    out = answer_methods(Q, small, s("450", True), 6)
    assert out["large@1"].correct and out["large-verified@1"].correct
    assert not out["small@1"].correct  # the first sample is 400
    assert not out["small-maj@6"].correct  # three unconfirmed 500s outvote two 450s
    assert out["small-verified@6"].correct and out["small-verified@6"].agreement == 2 / 6
    assert out["small-pass@6"].correct and out["small-pass@6"].chosen.value.canonical() == "450"
    assert out["cascade"].large_calls == 0 and out["cascade"].correct


def test_failures_are_not_abstentions_on_an_unanswerable_question() -> None:
    failed = answer_methods(NONE, [FAIL, FAIL], FAIL, 2)
    for name, a in failed.items():
        assert a.failed and not a.abstained and not a.correct, name
    abstained = answer_methods(NONE, [ABSTAIN, FAIL], ABSTAIN, 2)
    for name in ("large@1", "small@1", "small-maj@2", "small-verified@2", "small-pass@2"):
        assert abstained[name].abstained and abstained[name].correct, name


def test_an_unconfirmed_answer_makes_verified_methods_abstain_not_fail() -> None:
    out = answer_methods(NONE, [s("3"), FAIL], s("3"), 2)
    assert out["small-verified@2"].abstained and out["small-verified@2"].correct
    assert out["large-verified@1"].abstained and out["large-verified@1"].correct
    assert not out["large@1"].correct and not out["small-maj@2"].correct


def test_pass_at_k_cells_describe_the_method_not_the_first_sample() -> None:
    # first sample failed, second answered wrong, third right: the pass shows the right one
    out = answer_methods(Q, [FAIL, s("400"), s("450")], s("450"), 3)["small-pass@3"]
    assert out.correct and out.answered and out.chosen.value.canonical() == "450"
    # nobody right: the first answer that was given, still not a pass
    out = answer_methods(Q, [FAIL, s("400"), FAIL], s("450"), 3)["small-pass@3"]
    assert not out.correct and out.chosen.value.canonical() == "400"
    # every sample failed: a failure, never a pass
    out = answer_methods(Q, [FAIL, FAIL], s("450"), 2)["small-pass@2"]
    assert out.failed and not out.correct and not out.answered


def test_cascade_asks_the_large_model_only_when_nothing_was_confirmed() -> None:
    out = answer_methods(Q, [s("400"), s("500")], s("450"), 2)["cascade"]
    assert out.large_calls == 1 and out.correct
    assert out.prompt_tokens == 30  # two small samples and the large answer are paid for
