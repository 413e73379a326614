"""The selector's fitting rows: every distinct confirmed candidate of the fitting questions with its
features and whether the strict judge calls it right, and the question-level accuracy the
selector's threshold is chosen on (`factqa bench fit selector`, `factqa bench fit feature-sets`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from experiment.base.errors import ModelError
from experiment.base.types import Article, Question
from experiment.bench.fit.sets import OUT, fitting_samples, fitting_sets
from experiment.config import RunConfig
from experiment.evaluate.answer import Answer
from experiment.evaluate.features import FEATURES, ConfirmedAnswer, candidates
from experiment.evaluate.judge import gold_of, sample_right
from experiment.evaluate.large_check import EVIDENCE, LARGE_EVIDENCE, evidence_score
from experiment.generate.cache import GenerationCache
from experiment.runner import check_scoring, llama_factory, score_all


@dataclass
class Row:
    question: str
    cluster: str
    unanswerable: bool
    features: dict[str, float | None]
    right: bool


# More features for each of a question's candidates (in their order), beyond the shipped ones
Extra = Callable[
    [Question, Article, Sequence[ConfirmedAnswer], Sequence[Answer]], list[dict[str, float]]
]


class LargeEvidence:
    """An `Extra`: the large model's evidence-only check of every candidate as the feature
    `large_evidence` (`evidence_score` of its margin over "unknown"), through the benchmarks'
    generation cache; the model is loaded on the first call that misses it."""

    def __init__(self) -> None:
        self.cfg = RunConfig(out=OUT)
        self.cache = GenerationCache(OUT / ".cache" / "generations.sqlite")
        self.backend = None
        self.calls = 0

    def __call__(
        self,
        q: Question,
        article: Article,
        found: Sequence[ConfirmedAnswer],
        small: Sequence[Answer],
    ) -> list[dict[str, float]]:
        if not found:
            return []
        if self.backend is None:
            self.backend = llama_factory(self.cfg.large, self.cfg)
        scoring = check_scoring(
            self.cfg, {article.id: article}, {q.id: small}, {q.id: found}, EVIDENCE
        )
        made, why = score_all(scoring, self.backend, self.cache, [q])
        if why:
            raise ModelError(f"the large model cannot check the candidates: {why}")
        self.calls += made[q.id].calls
        return [{LARGE_EVIDENCE: evidence_score(m)} for m in made[q.id].margins]


def fitting_rows(
    v1: Path, v2: Path, tatqa: Path | None = None, extra: Extra | None = None
) -> tuple[list[Row], dict[str, int], list[str]]:
    """Candidate rows of the fitting questions, the question count per set, and every question id
    (questions with no confirmed candidate have no row but still count). `extra` adds features
    to each row (`factqa bench fit feature-sets`)."""
    rows: list[Row] = []
    counts: dict[str, int] = {}
    qids: list[tuple[str, str, bool]] = []
    for name, articles, questions, small in fitting_samples(fitting_sets(v1, v2, tatqa)):
        counts[name] = len(questions)
        for q in questions:
            qids.append((f"{name}:{q.id}", q.cluster, q.unanswerable))
            gold = gold_of(q)
            found = candidates(q, articles[q.article_id], small[q.id])
            more = extra(q, articles[q.article_id], found, small[q.id]) if extra else []
            for i, c in enumerate(found):
                s = small[q.id][c.index]
                right = sample_right(s, q, gold)
                features = {**c.features, **(more[i] if more else {})}
                rows.append(Row(f"{name}:{q.id}", q.cluster, q.unanswerable, features, right))
    return rows, counts, [f"{q}\t{c}\t{u}" for q, c, u in qids]


def matrix(
    rows: list[Row], impute: dict[str, float], features: Sequence[str] = FEATURES
) -> np.ndarray:
    return np.array(
        [
            [
                r.features[f] if r.features[f] is not None else impute.get(f, 0.0)  # type: ignore[misc]
                for f in features
            ]
            for r in rows
        ]
    )


def question_accuracy(
    rows: list[Row], probs: np.ndarray, threshold: float, questions: list[str]
) -> float:
    """Accuracy over every fitting question when the top candidate is kept at `threshold`."""
    best: dict[str, tuple[float, bool]] = {}
    for r, p in zip(rows, probs, strict=True):
        if r.question not in best or p > best[r.question][0]:
            best[r.question] = (float(p), r.right)
    right = 0
    for line in questions:
        qid, _, unanswerable = line.split("\t")
        top = best.get(qid)
        kept = top is not None and top[0] >= threshold
        right += (kept and top[1]) or (not kept and unanswerable == "True")  # type: ignore[index]
    return right / len(questions)


THRESHOLDS = [t / 100 for t in range(0, 100)]


def set_means(
    rows: list[Row], probs: np.ndarray, questions: list[str], sets: Sequence[str]
) -> list[float]:
    """At each of THRESHOLDS, the mean over the fitting sets of their question accuracy (each
    set weighs the same)."""
    parts = [[line for line in questions if line.startswith(f"{name}:")] for name in sets]
    return [
        float(np.mean([question_accuracy(rows, probs, t, part) for part in parts]))
        for t in THRESHOLDS
    ]
