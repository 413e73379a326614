"""Analysis of a finished run folder: the figures the notebook, `factqa report` and the benchmarks
share, all computed from the run's CSVs (nothing is regenerated).

- risk-coverage: answer only when a method's confidence (a vote's agreement, votes / k, or a
  selector's score) reaches a threshold; coverage and accuracy of what is answered, per threshold;
- AUROC of that confidence for "this answer is right" (answered);
- cost per correct answer: tokens and model seconds divided by correct answers;
- SQuAD exact match and F1 of each method's answer text (the official normalisation), beside our
  value-based correctness;
- what the verifier cost: questions where a right answer was sampled but the article confirmed none;
- calibration of a confidence: a reliability table and the Brier score;
- the selector against the vote: how much of the gap to pass@k it closes;
- accuracy split into questions whose gold is stated in the text and those where it is computed;
- the derivation rule's record: working written, confirmed, and right when confirmed.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Mapping

import pandas as pd

from experiment.base.types import Question
from experiment.evaluate.judge import gold_of, judge
from experiment.evaluate.methods import PASS, VERIFIED
from experiment.values.normalize import parse_value


def answered_mask(q: pd.DataFrame, method: str) -> pd.Series:
    """Questions the method answered: neither abstained nor failed (runs before failures were
    counted apart have no `.failed` column). `q` is a run's typed questions (`Run.questions`)."""
    failed = q.get(f"{method}.failed", pd.Series(False, index=q.index))
    return ~q[f"{method}.abstained"] & ~failed


def risk_coverage(q: pd.DataFrame, method: str) -> pd.DataFrame:
    """Per confidence threshold t: coverage (answered with confidence >= t) and accuracy there
    (the confidence of a vote is its agreement, votes / k)."""
    answered = answered_mask(q, method)
    conf = q[f"{method}.confidence"].where(answered, -1.0)
    correct = q[f"{method}.correct"]
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
    """How well the confidence ranks right answers above wrong ones (answered questions only)."""
    from sklearn.metrics import roc_auc_score

    answered = answered_mask(q, method)
    y = q[f"{method}.correct"][answered]
    if y.nunique() < 2:
        return math.nan
    return float(roc_auc_score(y, q[f"{method}.confidence"][answered]))


def cost_table(summary: pd.DataFrame) -> pd.DataFrame:
    correct = (summary.accuracy * summary.questions).round().astype(int)
    tokens = summary.prompt_tokens + summary.completion_tokens
    flops = summary["flops"] if "flops" in summary.columns else pd.Series(math.nan, summary.index)
    return pd.DataFrame(
        {
            "method": summary.method,
            "accuracy": summary.accuracy,
            "correct": correct,
            "tokens": tokens,
            "seconds": summary.seconds,
            "flops": flops,
            "flops_per_question": flops / summary.questions,
            "flops_per_correct": flops / correct.where(correct > 0),
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


def squad_scores(q: pd.DataFrame, method: str) -> tuple[list[float], list[float]]:
    """Each question's SQuAD exact match and F1 of `method` (max over golds); an unanswerable
    gold is the empty string, as in the official v2.0 script, so an abstention scores 1 there.
    Committed results of a public data set hold no gold: their `{method}.em` and `.f1`."""
    if f"{method}.em" in q:
        return list(q[f"{method}.em"].astype(float)), list(q[f"{method}.f1"].astype(float))
    em, f1 = [], []
    for pred, gold, unanswerable in zip(q[f"{method}.answer"], q.gold, q.unanswerable, strict=True):
        golds = [""] if unanswerable else [g.strip() for g in gold.split(" | ")]
        em.append(max(float(_squad_normalize(pred) == _squad_normalize(g)) for g in golds))
        f1.append(max(_f1(pred, g) for g in golds))
    return em, f1


def squad_em_f1(q: pd.DataFrame, method: str) -> tuple[float, float]:
    """SQuAD exact match and F1 over the questions (`squad_scores`)."""
    em, f1 = squad_scores(q, method)
    n = max(len(q), 1)
    return sum(em) / n, sum(f1) / n


def verifier_cost(q: pd.DataFrame, method: str) -> dict[str, int]:
    """Questions where some small sample was right but `method` was not, because the article
    confirmed none of the right samples; split by whether a gold value is in the text at all."""
    if "small_correct" not in q:
        return {}
    sampled_right = pd.to_numeric(q.small_correct) > 0
    none_confirmed = pd.to_numeric(q.small_correct_confirmed) == 0
    wrong = ~q[f"{method}.correct"]
    in_text = q.gold_in_text
    lost = sampled_right & none_confirmed & wrong
    return {
        "gold_in_text": int(in_text.sum()),
        "gold_not_in_text": int((~in_text).sum()),
        "lost": int(lost.sum()),
        "lost_gold_not_in_text": int((lost & ~in_text).sum()),
        "right_when_gold_not_in_text": int((~in_text & ~wrong).sum()),
    }


def calibration(q: pd.DataFrame, method: str, bins: int = 10) -> tuple[pd.DataFrame, float]:
    """Reliability table (per confidence bin: answers, mean confidence, share right) and the Brier
    score of `method`'s confidence over the questions it answered."""
    answered = answered_mask(q, method)
    conf = q[f"{method}.confidence"][answered].clip(0.0, 1.0)
    right = q[f"{method}.correct"][answered].astype(float)
    if conf.empty:
        return pd.DataFrame(columns=["bin", "answers", "confidence", "right"]), math.nan
    edges = [i / bins for i in range(bins + 1)]
    cut = pd.cut(conf, edges, include_lowest=True, right=False)
    cut = cut.where(conf < 1.0, pd.Interval(edges[-2], edges[-1], closed="left"))
    rows = []
    for interval, part in conf.groupby(cut, observed=True):
        rows.append(
            {
                "bin": f"{interval.left:.1f}-{interval.right:.1f}",
                "answers": len(part),
                "confidence": part.mean(),
                "right": right[part.index].mean(),
            }
        )
    return pd.DataFrame(rows), float(((conf - right) ** 2).mean())


def gap_closed(summary: pd.DataFrame, method: str, k: int) -> float:
    """(method - small-verified@k) / (small-pass@k - small-verified@k): the share of the gap
    between the vote and an oracle that `method` closes (NaN when there is no gap)."""
    acc = summary.set_index("method").accuracy
    verified = acc[VERIFIED.name(k)]
    gap = acc[PASS.name(k)] - verified
    return float((acc[method] - verified) / gap) if gap > 0 else math.nan


def gap_phrase(summary: pd.DataFrame, method: str, k: int) -> str:
    """What `gap_closed` says, in words; a run where small-pass@k is no better than
    small-verified@k has no gap to close, and says so instead of 'nan%'."""
    share = gap_closed(summary, method, k)
    between = f"the gap between {VERIFIED.name(k)} and {PASS.name(k)}"
    if math.isnan(share):
        acc = summary.set_index("method").accuracy
        return f"{method}: no gap to close ({VERIFIED.name(k)} is at {PASS.name(k)}'s " + (
            f"{acc[PASS.name(k)]:.3f})"
        )
    return f"{method}: closes {share:.0%} of {between}"


def stated_computed(q: pd.DataFrame, methods: list[str]) -> pd.DataFrame:
    """Each method's accuracy on questions whose gold the text states and on those whose gold
    is computed from it (a sum, a count); runs without a `computed` column are all stated."""
    computed = q["computed"] if "computed" in q else pd.Series(False, index=q.index)
    rows = []
    for m in methods:
        right = q[f"{m}.correct"]
        rows.append(
            {
                "method": m,
                "stated": right[~computed].mean() if (~computed).any() else math.nan,
                "computed": right[computed].mean() if computed.any() else math.nan,
            }
        )
    out = pd.DataFrame(rows)
    out.attrs["n_stated"], out.attrs["n_computed"] = int((~computed).sum()), int(computed.sum())
    return out


def derivation_record(attempts: pd.DataFrame, questions: Mapping[str, Question]) -> dict[str, int]:
    """The derivation rule's own record over a run's samples (issue 27): how many answers
    came with their working, how many of those the checker confirmed, how many of the confirmed
    are right by the gold (its precision is right / derived), and the refusals by reason (the
    reason's words before its first quote, parenthesis, comma or colon, so "the operand '7' ..."
    counts with its kind).
    Questions without gold are left out."""
    out: dict[str, int] = {"samples": 0, "with_working": 0, "derived": 0, "derived_right": 0}
    working = attempts["working"] if "working" in attempts else pd.Series("", index=attempts.index)
    for row, written in zip(attempts.to_dict("records"), working, strict=True):
        q = questions.get(row["question_id"])
        if q is None or not q.gold:
            continue
        out["samples"] += 1
        if not str(written).strip():
            continue
        out["with_working"] += 1
        if not row.get("derived", False):
            reason = re.split(r"['(,:;]", str(row.get("derivation_reason", "")))[0].strip()
            reason = reason or "other"
            out[f"refused: {reason}"] = out.get(f"refused: {reason}", 0) + 1
            continue
        out["derived"] += 1
        # the result as computed (`answer`) and as read in its operands' table scale (`value`)
        readings = [str(row["answer"]), str(row.get("value", ""))]
        out["derived_right"] += any(
            judge(parse_value(text, q.kind, q.text), q, gold_of(q), str(row["answer"]))
            for text in readings
            if text
        )
    return out
