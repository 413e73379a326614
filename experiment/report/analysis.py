"""Analysis of a finished run folder: the figures the notebook, `factqa report` and the benchmarks
share, all computed from the run's CSVs (nothing is regenerated).

- risk-coverage: answer only when agreement (votes / k) reaches a threshold; coverage and accuracy
  of what is answered, for every threshold;
- AUROC of agreement as a confidence for "this answer is right" (scikit-learn), answered only;
- cost per correct answer: tokens and model seconds divided by correct answers;
- SQuAD exact match and F1 of each method's answer text (the official normalisation), beside our
  value-based correctness;
- what the verifier cost: questions where a right answer was sampled but the article confirmed none.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter

import pandas as pd

from experiment.report.run import flag


def answered_mask(q: pd.DataFrame, method: str) -> pd.Series:
    """Questions the method answered: neither abstained nor failed (runs before failures were
    counted apart have no `.failed` column)."""
    failed = flag(q[f"{method}.failed"]) if f"{method}.failed" in q else False
    return ~flag(q[f"{method}.abstained"]) & ~failed


def risk_coverage(q: pd.DataFrame, method: str) -> pd.DataFrame:
    """Per agreement threshold t: coverage (answered with agreement >= t) and accuracy there."""
    answered = answered_mask(q, method)
    conf = pd.to_numeric(q[f"{method}.agreement"]).where(answered, -1.0)
    correct = flag(q[f"{method}.correct"])
    rows = []
    for t in sorted(set(conf[answered]), reverse=True):
        take = conf >= t
        rows.append(
            {
                "method": method,
                "threshold": t,
                "coverage": take.mean(),
                "accuracy": correct[take].mean(),
                "risk": 1 - correct[take].mean(),
            }
        )
    return pd.DataFrame(rows, columns=["method", "threshold", "coverage", "accuracy", "risk"])


def auroc(q: pd.DataFrame, method: str) -> float:
    """How well agreement ranks right answers above wrong ones (answered questions only)."""
    from sklearn.metrics import roc_auc_score

    answered = answered_mask(q, method)
    y = flag(q[f"{method}.correct"])[answered]
    if y.nunique() < 2:
        return math.nan
    return float(roc_auc_score(y, pd.to_numeric(q[f"{method}.agreement"])[answered]))


def cost_table(summary: pd.DataFrame) -> pd.DataFrame:
    correct = (summary.accuracy * summary.questions).round().astype(int)
    tokens = summary.prompt_tokens + summary.completion_tokens
    return pd.DataFrame(
        {
            "method": summary.method,
            "accuracy": summary.accuracy,
            "correct": correct,
            "tokens": tokens,
            "seconds": summary.seconds,
            "tokens_per_correct": (tokens / correct.where(correct > 0)).round(0),
            "seconds_per_correct": (summary.seconds / correct.where(correct > 0)).round(3),
            "large_calls": summary.large_calls,
        }
    )


def _squad_normalize(text: str) -> str:
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def _f1(pred: str, gold: str) -> float:
    p, g = _squad_normalize(pred).split(), _squad_normalize(gold).split()
    if not p or not g:
        return float(p == g)
    common = sum((Counter(p) & Counter(g)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)


def squad_em_f1(q: pd.DataFrame, method: str) -> tuple[float, float]:
    """SQuAD exact match and F1 (max over golds); an unanswerable gold is the empty string, as in
    the official v2.0 script, so an abstention scores 1 there."""
    em = f1 = 0.0
    for pred, gold, unanswerable in zip(
        q[f"{method}.answer"], q.gold, flag(q.unanswerable), strict=True
    ):
        golds = [""] if unanswerable else [g.strip() for g in gold.split(" | ")]
        em += max(float(_squad_normalize(pred) == _squad_normalize(g)) for g in golds)
        f1 += max(_f1(pred, g) for g in golds)
    n = max(len(q), 1)
    return em / n, f1 / n


def verifier_cost(q: pd.DataFrame, method: str) -> dict[str, int]:
    """Questions where some small sample was right but `method` was not, because the article
    confirmed none of the right samples; split by whether a gold value is in the text at all."""
    if "small_correct" not in q:
        return {}
    sampled_right = pd.to_numeric(q.small_correct) > 0
    none_confirmed = pd.to_numeric(q.small_correct_confirmed) == 0
    wrong = ~flag(q[f"{method}.correct"])
    in_text = flag(q.gold_in_text)
    lost = sampled_right & none_confirmed & wrong
    return {
        "gold_in_text": int(in_text.sum()),
        "gold_not_in_text": int((~in_text).sum()),
        "lost": int(lost.sum()),
        "lost_gold_not_in_text": int((lost & ~in_text).sum()),
        "right_when_gold_not_in_text": int((~in_text & ~wrong).sum()),
    }
