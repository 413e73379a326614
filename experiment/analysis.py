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

import json
import math
import re
import string
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from experiment.errors import InputError

RUN_FILES = ("manifest.json", "summary.csv", "questions.csv", "curves.csv")


@dataclass(frozen=True)
class Run:
    path: Path
    manifest: dict[str, Any]
    summary: pd.DataFrame
    questions: pd.DataFrame
    curves: pd.DataFrame
    blindspots: pd.DataFrame

    @property
    def k(self) -> int:
        return int(self.manifest["config"]["k"])

    @property
    def verified(self) -> str:
        return f"small-verified@{self.k}"

    @property
    def methods(self) -> list[str]:
        return list(self.summary.method)


def load_run(path: Path) -> Run:
    """A run folder written by `factqa run`; a clear error if it is not one."""
    missing = [f for f in RUN_FILES if not (path / f).is_file()]
    if missing:
        raise InputError(
            f"not a finished run folder (no {', '.join(missing)})",
            path=path,
            fix="give a folder written by 'factqa run'",
        )
    spots = path / "blindspots.csv"
    return Run(
        path,
        json.loads((path / "manifest.json").read_text(encoding="utf-8")),
        pd.read_csv(path / "summary.csv"),
        pd.read_csv(path / "questions.csv", keep_default_na=False, dtype=str),
        pd.read_csv(path / "curves.csv"),
        pd.read_csv(spots, keep_default_na=False, dtype=str) if spots.exists() else pd.DataFrame(),
    )


def flag(col: pd.Series) -> pd.Series:
    """A true/false CSV column as booleans."""
    return col.astype(str).str.lower().eq("true")


def risk_coverage(q: pd.DataFrame, method: str) -> pd.DataFrame:
    """Per agreement threshold t: coverage (answered with agreement >= t) and accuracy there."""
    answered = ~flag(q[f"{method}.abstained"])
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

    answered = ~flag(q[f"{method}.abstained"])
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


def plot_files(run: Run, out: Path) -> list[Path]:
    """accuracy_vs_k.png, risk_coverage.png and cost_vs_accuracy.png into `out`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    written = []
    large = float(run.summary.set_index("method").loc["large@1", "accuracy"])

    fig, ax = plt.subplots(figsize=(6, 4))
    for method, part in run.curves.groupby("method"):
        ax.plot(part.k, part.accuracy, marker="o", label=method)
    ax.axhline(large, color="grey", linestyle="--", label="large@1")
    ax.set(xlabel="k (small-model samples)", ylabel="accuracy", title="Accuracy against k")
    ax.legend()
    written.append(_save(fig, out / "accuracy_vs_k.png"))

    fig, ax = plt.subplots(figsize=(6, 4))
    for method in (f"small-maj@{run.k}", run.verified):
        rc = risk_coverage(run.questions, method)
        ax.step(rc.coverage, rc.accuracy, where="post", marker=".", label=method)
    ax.axhline(large, color="grey", linestyle="--", label="large@1")
    ax.set(
        xlabel="coverage (answered at agreement >= threshold)",
        ylabel="accuracy of the answered",
        title="Risk-coverage, agreement as confidence",
    )
    ax.legend()
    written.append(_save(fig, out / "risk_coverage.png"))

    fig, ax = plt.subplots(figsize=(6, 4))
    cost = cost_table(run.summary)
    ax.scatter(cost.seconds, cost.accuracy)
    for r in cost.itertuples():
        ax.annotate(r.method, (r.seconds, r.accuracy), fontsize=8)
    ax.set(xlabel="model seconds (all questions)", ylabel="accuracy", title="Cost against accuracy")
    written.append(_save(fig, out / "cost_vs_accuracy.png"))
    return written


def _save(fig: Any, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return path
