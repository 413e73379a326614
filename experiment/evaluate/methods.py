"""The methods the experiment compares, all computed from the same samples (nothing regenerated).

- large@1            the large model's one greedy answer (the reference)
- large-verified@1   that answer, kept only if the article confirms it
- small@1            the small model's first sample
- small-maj@k        majority of k samples, unchecked ("unknown" answers vote too)
- small-verified@k   majority among samples the article confirms; abstain when none (the claim)
- small-pass@k       right if any sample is right: the ceiling a perfect checker would reach
- cascade            small-verified@k, falling back to large@1 only when nothing was confirmed

An abstention is wrong on an answerable question and right on an unanswerable one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from experiment.evaluate.judge import gold_values, judge
from experiment.evaluate.vote import majority
from experiment.records import Article, Attempt, Question
from experiment.values.canonical import Value
from experiment.verify.match import verify

REFERENCE = "large@1"


def method_names(k: int) -> list[str]:
    return [
        "large@1",
        "large-verified@1",
        "small@1",
        f"small-maj@{k}",
        f"small-verified@{k}",
        f"small-pass@{k}",
        "cascade",
    ]


@dataclass(frozen=True)
class Scored:
    attempt: Attempt
    value: Value | None


@dataclass(frozen=True)
class MethodAnswer:
    method: str
    chosen: Scored | None  # the sample whose answer is given; None when the method abstains
    correct: bool
    agreement: float
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    large_calls: int

    @property
    def abstained(self) -> bool:
        return self.chosen is None

    @property
    def in_text_wrong(self) -> bool:
        """Answered, confirmed by the article, and still wrong: the verifier's blind spot."""
        return self.chosen is not None and self.chosen.attempt.confirmed and not self.correct


def question_facts(q: Question, article: Article, small: Sequence[Scored]) -> dict[str, object]:
    """What the verifier could and did do for one question, whatever the method.

    - gold_in_text: the article states a gold value (false for computed answers, e.g. DROP sums);
    - small_correct: small samples whose value is right;
    - small_correct_confirmed: of those, the ones the article confirmed. A question with
      small_correct > 0 and small_correct_confirmed == 0 is one the verifier cost.
    """
    gold = gold_values(q)
    right = [s for s in small if s.value is not None and judge(s.value, q, gold)]
    return {
        "gold_in_text": any(verify(g, article.text).confirmed for g in gold),
        "small_correct": len(right),
        "small_correct_confirmed": sum(s.attempt.confirmed for s in right),
    }


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
    gold: Sequence[Value],
    paid: Sequence[Scored],
    agreement: float,
    large_calls: int,
    correct: bool | None = None,
) -> MethodAnswer:
    value = chosen.value if chosen else None
    ok = judge(value, q, gold) if correct is None else correct
    return MethodAnswer(method, chosen, ok, agreement, *_cost(paid), large_calls)


def answer_methods(
    q: Question, small: Sequence[Scored], large: Scored, k: int
) -> dict[str, MethodAnswer]:
    """Every method's answer to one question from its first k small samples and the large one."""
    gold = gold_values(q)
    small = list(small[:k])
    values = [s.value for s in small]
    large_pick = large if large.value is not None else None
    verified_large = large if large.value is not None and large.attempt.confirmed else None
    maj = majority(values, abstain_votes=True)
    ver = majority(values, keep=[s.attempt.confirmed for s in small])
    ver_pick = small[ver.index] if ver.index is not None else None
    any_right = any(judge(v, q, gold) for v in values)
    first = small[0] if small[0].value is not None else None
    fallback = ver_pick is None
    answers = [
        _answer("large@1", large_pick, q, gold, [large], 1.0, 1),
        _answer("large-verified@1", verified_large, q, gold, [large], 1.0, 1),
        _answer("small@1", first, q, gold, small[:1], 1.0, 0),
        _answer(
            f"small-maj@{k}",
            small[maj.index] if maj.index is not None else None,
            q,
            gold,
            small,
            maj.agreement,
            0,
        ),
        _answer(f"small-verified@{k}", ver_pick, q, gold, small, ver.agreement, 0),
        _answer(f"small-pass@{k}", first, q, gold, small, 1.0, 0, correct=any_right),
        _answer(
            "cascade",
            large_pick if fallback else ver_pick,
            q,
            gold,
            [*small, large] if fallback else small,
            1.0 if fallback else ver.agreement,
            1 if fallback else 0,
        ),
    ]
    return {a.method: a for a in answers}


def k_curve(
    questions: Sequence[Question],
    small: dict[str, Sequence[Scored]],
    large: dict[str, Scored],
    k: int,
) -> list[dict[str, float | int]]:
    """Accuracy and coverage of the k-dependent methods for k' = 1..k, from the same samples."""
    rows: list[dict[str, float | int]] = []
    for kk in range(1, k + 1):
        per_q = [answer_methods(q, small[q.id], large[q.id], kk) for q in questions]
        for name in ("small-maj", "small-verified", "small-pass"):
            col = [a[f"{name}@{kk}"] for a in per_q]
            rows.append(
                {
                    "k": kk,
                    "method": name,
                    "accuracy": sum(a.correct for a in col) / len(col),
                    "coverage": sum(not a.abstained for a in col) / len(col),
                }
            )
    return rows
