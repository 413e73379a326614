"""What the selector fits share: one fitting question's candidates (`Item`), its accuracy
under a ranking, a logistic regression of "right" over named features, its threshold, and a
cross-validation grouped by article (`factqa bench fit text-scores`, `fit derived`).

A ranking is one score array per question (its candidates in order): a question keeps its top
candidate when it scores at least the threshold and, under the "unknown" rule, "unknown" did
not win; it is right when the kept candidate is, and, when it abstains, when it is unanswerable.
Accuracy is per set, and the fits maximise the mean of the sets' accuracies (each set weighs
the same).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from experiment.evaluate.selector import SelectorModel

THRESHOLDS = [t / 100 for t in range(0, 100)]
UNKNOWN_RULE = ", unknown abstains"
Rankings = list[np.ndarray]  # one score per candidate, per question
Fitted = tuple[Any, Any, dict[str, float]]  # scaler, classifier, imputed values


@dataclass
class Item:
    """One fitting question: its set, group, candidates' features and rightness."""

    set: str
    group: str
    unanswerable: bool
    features: list[dict[str, float | None]]
    right: list[bool]
    unknown_won: bool
    rule_pick: int | None = None  # a hand-set rule's pick where one is compared (None: abstains)


def rights(its: list[Item], scores: Rankings, threshold: float, rule: bool) -> list[bool]:
    """Whether each question is right when it keeps its top candidate at `threshold` (and,
    with `rule`, abstains where "unknown" won); an abstention is right on an unanswerable one."""
    out = []
    for it, s in zip(its, scores, strict=True):
        kept = len(s) > 0 and s.max() >= threshold and not (rule and it.unknown_won)
        out.append(bool(it.right[int(s.argmax())] if kept else it.unanswerable))
    return out


def per_set(its: list[Item], right: list[bool]) -> dict[str, float]:
    """Question accuracy per set."""
    by: dict[str, list[bool]] = {}
    for it, ok in zip(its, right, strict=True):
        by.setdefault(it.set, []).append(ok)
    return {name: float(np.mean(v)) for name, v in by.items()}


def accuracy(its: list[Item], scores: Rankings, threshold: float, rule: bool) -> dict[str, float]:
    """Question accuracy per set under `rights`."""
    return per_set(its, rights(its, scores, threshold, rule))


def mean_of(acc: Mapping[str, float]) -> float:
    return float(np.mean(list(acc.values())))


def best_threshold(
    its: list[Item], scores: Rankings, rule: bool, grid: Sequence[float] = THRESHOLDS
) -> float:
    """The threshold of `grid` that maximises the mean of the sets' accuracies (the first
    among equals)."""
    means = [mean_of(accuracy(its, scores, t, rule)) for t in grid]
    return float(grid[int(np.argmax(means))])


def group_folds(its: list[Item], folds: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """`folds` (train, test) index splits of `its`, grouped by `Item.group`."""
    from sklearn.model_selection import GroupKFold

    groups = [it.group for it in its]
    return list(GroupKFold(folds).split(np.zeros(len(its)), groups=groups))


def cv_threshold(
    its: list[Item], scores: Rankings, grid: Sequence[float], folds: int
) -> tuple[list[bool], list[float]]:
    """A fixed ranking whose abstention threshold is fitted: by `folds`-fold cross-validation
    grouped by `Item.group`, each fold's threshold (of `grid`) is the one that maximises the
    mean of the sets' accuracies on its training folds, and the held-out questions are scored
    under it. Each question's rightness, and the folds' thresholds."""
    right = [False] * len(its)
    chosen = []
    for train, test in group_folds(its, folds):
        t = best_threshold([its[i] for i in train], [scores[i] for i in train], False, grid)
        chosen.append(t)
        got = rights([its[i] for i in test], [scores[i] for i in test], t, False)
        for i, ok in zip(test, got, strict=True):
            right[i] = ok
    return right, chosen


def design(its: list[Item], names: tuple[str, ...], impute: dict[str, float]) -> list[np.ndarray]:
    return [
        np.array(
            [
                [f[n] if f.get(n) is not None else impute.get(n, 0.0) for n in names]
                for f in it.features
            ]
        ).reshape(len(it.features), len(names))
        for it in its
    ]


def fit_logistic(
    its: list[Item], names: tuple[str, ...], impute: dict[str, float] | None = None
) -> Fitted:
    """A standardised logistic regression of "right" on `names` over every candidate of `its`
    (a missing feature takes its `impute` value, 0 unless given)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    fill = {n: (impute or {}).get(n, 0.0) for n in names}
    xs = design(its, names, fill)
    x = np.vstack([m for m in xs if len(m)])
    y = np.concatenate([np.array(it.right, dtype=int) for it in its if it.features])
    scaler = StandardScaler().fit(x)
    clf = LogisticRegression(C=1.0, max_iter=2000).fit(scaler.transform(x), y)
    return scaler, clf, fill


def predict(model: Fitted, its: list[Item], names: tuple[str, ...]) -> Rankings:
    scaler, clf, impute = model
    return [
        clf.predict_proba(scaler.transform(m))[:, 1] if len(m) else np.array([])
        for m in design(its, names, impute)
    ]


def fixed_way(its: list[Item], scores: Rankings, threshold: float, rule: bool) -> dict[str, Any]:
    """A ranking with nothing fitted: its per-set accuracies and their mean."""
    acc = accuracy(its, scores, threshold, rule)
    return {"sets": acc, "mean": mean_of(acc)}


def logistic_ways(
    its: list[Item],
    variants: Mapping[str, tuple[str, ...]],
    folds: int = 5,
    impute: dict[str, float] | None = None,
) -> dict[str, dict[str, Any]]:
    """Each variant's logistic regression (its feature columns), with and without the "unknown"
    rule, by `folds`-fold cross-validation grouped by `Item.group`: each fold's threshold is
    chosen on its training folds, and the held-out questions are scored."""
    split = group_folds(its, folds)
    out: dict[str, dict[str, Any]] = {}
    for way, cols in variants.items():
        for rule in (True, False):
            held: list[np.ndarray | None] = [None] * len(its)
            thresholds = []
            for train, test in split:
                tr = [its[i] for i in train]
                model = fit_logistic(tr, cols, impute)
                t = best_threshold(tr, predict(model, tr, cols), rule)
                thresholds.append(t)
                te = [its[i] for i in test]
                for i, s in zip(test, predict(model, te, cols), strict=True):
                    held[i] = np.where(s >= t, s, -1.0) if len(s) else s
            scores = [h if h is not None else np.array([]) for h in held]
            right = rights(its, scores, 0.0, rule)
            acc = per_set(its, right)
            name = way + (UNKNOWN_RULE if rule else "")
            out[name] = {
                "sets": acc,
                "mean": mean_of(acc),
                "thresholds": thresholds,
                "right": right,
            }
    return out


def logistic_selector(
    its: list[Item],
    name: str,
    cols: tuple[str, ...],
    rule: bool,
    fitted: dict[str, Any],
    impute: dict[str, float] | None = None,
) -> SelectorModel:
    """The logistic regression over `cols` refitted on every item, its threshold chosen on them,
    as a shipped selector."""
    scaler, clf, fill = fit_logistic(its, cols, impute)
    threshold = best_threshold(its, predict((scaler, clf, fill), its, cols), rule)
    return SelectorModel(
        name,
        "logistic",
        {n: round(float(w), 6) for n, w in zip(cols, clf.coef_[0], strict=True)},
        threshold,
        round(float(clf.intercept_[0]), 6),
        {n: round(float(m), 6) for n, m in zip(cols, scaler.mean_, strict=True)},
        {n: round(float(s), 6) for n, s in zip(cols, scaler.scale_, strict=True)},
        {n: fill[n] for n in cols},
        {**fitted, "unknown_abstains": rule},
    )


def print_ways(
    table: Mapping[str, Mapping[str, Any]], sets: list[str], say: Callable[[str], None] = print
) -> None:
    """The ways' table: each set's accuracy and the mean."""
    say("| way | " + " | ".join(sets) + " | mean |")
    say("| --- |" + " --- |" * (len(sets) + 1))
    for way, row in table.items():
        cells = " | ".join(f"{row['sets'][s]:.3f}" for s in sets)
        say(f"| {way} | {cells} | {row['mean']:.3f} |")


def set_counts(its: list[Item]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for it in its:
        counts[it.set] = counts.get(it.set, 0) + 1
    return counts
