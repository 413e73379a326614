"""The methods the experiment compares, all computed from the same samples (nothing regenerated).

- large@1            the large model's one greedy answer (the reference)
- large-verified@1   that answer, kept only if the article confirms it
- small@1            the small model's first sample
- small-maj@k        majority of k samples, unchecked ("unknown" answers vote too)
- small-verified@k   majority among samples the article confirms; abstain when none (the claim)
- small-pass@k       right if any sample is right: the ceiling a perfect checker would reach
- cascade            small-verified@k, falling back to large@1 only when nothing was confirmed
- small-rule@k       the hand-set selector's pick among the confirmed candidates (`selector`)
- small-selected@k   the learned selector's pick; abstains when no candidate is likely enough
- cascade@B%         small-selected@k, except that the B % of questions with the lowest selector
                     confidence get large@1's answer instead (`routed`)

An abstention (the model said "not stated", or the method declined) is wrong on an answerable
question and right on an unanswerable one; a failure (empty or repetitive output, an error, no
value of the asked kind) is wrong on both, and is counted apart.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from experiment.evaluate.features import candidates
from experiment.evaluate.judge import Gold, gold_of, judge
from experiment.evaluate.scored import Scored
from experiment.evaluate.selector import RULE, SelectorModel, learned, select
from experiment.evaluate.vote import majority
from experiment.records import Article, Question
from experiment.verify.match import verify

__all__ = ["Scored"]  # re-exported: callers import it from here

REFERENCE = "large@1"
ROUTED_SHARES = (10, 20, 30)  # the B of the cascade@B methods in every table (percent)


def method_names(k: int, selected: bool = True) -> list[str]:
    names = [
        "large@1",
        "large-verified@1",
        "small@1",
        f"small-maj@{k}",
        f"small-verified@{k}",
        f"small-pass@{k}",
        "cascade",
    ]
    if selected:
        names[6:6] = [f"small-rule@{k}", f"small-selected@{k}"]
        names += [f"cascade@{b}%" for b in ROUTED_SHARES]
    return names


@dataclass(frozen=True)
class MethodAnswer:
    method: str
    chosen: Scored | None  # the sample whose answer is given; None when there is none
    correct: bool
    agreement: float
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    large_calls: int
    failed: bool = False  # no answer because the model failed, not because it abstained
    samples: int = 0  # small-model samples the method paid for (fewer than k when stopped early)

    @property
    def answered(self) -> bool:
        return self.chosen is not None

    @property
    def abstained(self) -> bool:
        """No answer, deliberately: the model said "not stated" or the method declined."""
        return self.chosen is None and not self.failed

    @property
    def in_text_wrong(self) -> bool:
        """Answered, confirmed by the article, and still wrong: the verifier's blind spot."""
        return self.chosen is not None and self.chosen.attempt.confirmed and not self.correct


def question_facts(q: Question, article: Article, small: Sequence[Scored]) -> dict[str, object]:
    """What the verifier could and did do for one question, whatever the method.

    - gold_in_text: the article states a gold value (false for computed answers, e.g. DROP sums);
    - samples_drawn: the small model's samples (k, or fewer where adaptive sampling stopped);
    - small_correct: small samples whose value is right;
    - small_correct_confirmed: of those, the ones the article confirmed. A question with
      small_correct > 0 and small_correct_confirmed == 0 is one the verifier cost.
    """
    gold = gold_of(q)
    right = [s for s in small if s.value is not None and _right(s, q, gold)]
    return {
        "gold_in_text": any(verify(g.value, article.text).confirmed for g in gold),
        "samples_drawn": len(small),
        "small_correct": len(right),
        "small_correct_confirmed": sum(s.attempt.confirmed for s in right),
    }


def _right(s: Scored, q: Question, gold: Sequence[Gold]) -> bool:
    return judge(s.value, q, gold, s.attempt.raw_text, s.abstained)


def _cost(samples: Sequence[Scored]) -> tuple[int, int, float]:
    return (
        sum(s.attempt.prompt_tokens for s in samples),
        sum(s.attempt.completion_tokens for s in samples),
        sum(s.attempt.seconds for s in samples),
    )


def _answer(
    method: str,
    chosen: Scored | None,
    q: Question,
    gold: Sequence[Gold],
    paid: Sequence[Scored],
    agreement: float,
    large_calls: int,
    failed: bool = False,
    correct: bool | None = None,
) -> MethodAnswer:
    """A method's answer: `chosen` (None: abstained, or `failed`), judged unless `correct` given."""
    if correct is None:
        text = chosen.attempt.raw_text if chosen else ""
        correct = judge(chosen.value if chosen else None, q, gold, text, not failed)
    small = sum(s.attempt.role == "small" for s in paid)
    return MethodAnswer(
        method, chosen, correct, agreement, *_cost(paid), large_calls, failed, samples=small
    )


def _pass_at_k(q: Question, small: Sequence[Scored], gold: Sequence[Gold], k: int) -> MethodAnswer:
    """Right if any sample is right. The answer shown is the first right sample (None when that
    is a deliberate abstention on an unanswerable question), else the first that answered, so
    coverage is "any sample answered" and failures are never a pass."""
    right = [s for s in small if _right(s, q, gold)]
    answered = [s for s in small if s.value is not None]
    chosen = right[0] if right else (answered[0] if answered else None)
    if chosen is not None and chosen.value is None:
        chosen = None
    failed = all(s.failed for s in small)
    return _answer(f"small-pass@{k}", chosen, q, gold, small, 1.0, 0, failed, bool(right))


def answer_methods(
    q: Question,
    small: Sequence[Scored],
    large: Scored,
    k: int,
    article: Article | None = None,
    selector: SelectorModel | None = None,
) -> dict[str, MethodAnswer]:
    """Every method's answer to one question from its first k small samples and the large one
    (the selector's methods only when the `article` is given; `selector` replaces the shipped
    one). A question that adaptive sampling stopped early has fewer than k samples; the methods
    are still named @k. The routed cascades need every question's answer: see `routed`."""
    gold = gold_of(q)
    small = list(small[:k])
    values = [s.value for s in small]
    abstentions = [s.abstained for s in small]
    all_failed = all(s.failed for s in small)
    large_pick = large if large.value is not None else None
    verified_large = large if large.value is not None and large.attempt.confirmed else None
    maj = majority(values, abstain_votes=True, abstentions=abstentions)
    ver = majority(values, keep=[s.attempt.confirmed for s in small], abstentions=abstentions)
    ver_pick = small[ver.index] if ver.index is not None else None
    fallback = ver_pick is None
    answers = [
        _answer("large@1", large_pick, q, gold, [large], 1.0, 1, large.failed),
        _answer("large-verified@1", verified_large, q, gold, [large], 1.0, 1, large.failed),
        _answer(
            "small@1",
            small[0] if small[0].value is not None else None,
            q,
            gold,
            small[:1],
            1.0,
            0,
            small[0].failed,
        ),
        _answer(
            f"small-maj@{k}",
            small[maj.index] if maj.index is not None else None,
            q,
            gold,
            small,
            maj.agreement,
            0,
            all_failed,
        ),
        _answer(f"small-verified@{k}", ver_pick, q, gold, small, ver.agreement, 0, all_failed),
        _pass_at_k(q, small, gold, k),
        _answer(
            "cascade",
            large_pick if fallback else ver_pick,
            q,
            gold,
            [*small, large] if fallback else small,
            1.0 if fallback else ver.agreement,
            1 if fallback else 0,
            large.failed if fallback else False,
        ),
    ]
    if article is not None:
        cands = candidates(q, article, small)
        for name, model in (("rule", RULE), ("selected", selector or learned())):
            sel = select(cands, model)
            pick = small[sel.chosen.index] if sel.chosen is not None else None
            answers.append(
                _answer(f"small-{name}@{k}", pick, q, gold, small, sel.confidence, 0, all_failed)
            )
    return {a.method: a for a in answers}


def routed(
    questions: Sequence[Question],
    answers: dict[str, dict[str, MethodAnswer]],
    share: float,
    base: str,
) -> dict[str, MethodAnswer]:
    """`base` for every question, except that the `share` of questions (rounded down) with the
    lowest confidence (`base`'s agreement field: the selector's score; ties by question id)
    take large@1's answer, paying for both models."""
    order = sorted(questions, key=lambda q: (answers[q.id][base].agreement, q.id))
    sent = {q.id for q in order[: math.floor(share * len(questions) + 1e-9)]}
    out = {}
    for q in questions:
        own, large = answers[q.id][base], answers[q.id][REFERENCE]
        if q.id not in sent:
            out[q.id] = replace(own, large_calls=0)
            continue
        out[q.id] = replace(
            large,
            prompt_tokens=own.prompt_tokens + large.prompt_tokens,
            completion_tokens=own.completion_tokens + large.completion_tokens,
            seconds=own.seconds + large.seconds,
            samples=own.samples,
        )
    return out


def add_routed(
    questions: Sequence[Question], answers: dict[str, dict[str, MethodAnswer]], k: int
) -> None:
    """Add cascade@B% (B in `ROUTED_SHARES`) to `answers`, routing by small-selected@k."""
    for b in ROUTED_SHARES:
        name = f"cascade@{b}%"
        for qid, a in routed(questions, answers, b / 100, f"small-selected@{k}").items():
            answers[qid][name] = replace(a, method=name)


def routing_curve(
    questions: Sequence[Question], answers: dict[str, dict[str, MethodAnswer]], k: int
) -> list[dict[str, float | int | str]]:
    """Accuracy against the share of questions sent to the large model, 0 to 100 % in steps of
    5 %, for each selector's confidence."""
    rows: list[dict[str, float | int | str]] = []
    for base in (f"small-selected@{k}", f"small-rule@{k}"):
        for pct in range(0, 101, 5):
            got = routed(questions, answers, pct / 100, base)
            rows.append(
                {
                    "selector": base,
                    "share_sent": pct / 100,
                    "sent": math.floor(pct / 100 * len(questions) + 1e-9),
                    "accuracy": sum(a.correct for a in got.values()) / len(questions),
                }
            )
    return rows


def k_curve(
    questions: Sequence[Question],
    small: dict[str, Sequence[Scored]],
    large: dict[str, Scored],
    k: int,
    articles: dict[str, Article] | None = None,
) -> list[dict[str, float | int]]:
    """Accuracy and coverage of the k-dependent methods for k' = 1..k, from the same samples
    (the selectors' too when `articles` are given)."""
    rows: list[dict[str, float | int]] = []
    names = ["small-maj", "small-verified", "small-pass"]
    if articles is not None:
        names += ["small-rule", "small-selected"]
    for kk in range(1, k + 1):
        per_q = [
            answer_methods(
                q, small[q.id], large[q.id], kk, articles[q.article_id] if articles else None
            )
            for q in questions
        ]
        for name in names:
            col = [a[f"{name}@{kk}"] for a in per_q]
            rows.append(
                {
                    "k": kk,
                    "method": name,
                    "accuracy": sum(a.correct for a in col) / len(col),
                    "coverage": sum(a.answered for a in col) / len(col),
                }
            )
    return rows
