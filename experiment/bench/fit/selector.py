"""Fit the learned selector on the fitting halves of SQuAD and TAT-QA and ship it in the package.

    factqa bench fit selector SQUAD_V1_DEV_JSON SQUAD_V2_DEV_JSON [--tatqa TATQA_DEV_JSON]
                              [--large-evidence] [--out PATH] [--write]

Fitting set (never an evaluation question: `experiment/importers/split.py` puts each title in one
half by a fixed rule, and every benchmark sample comes from the other half):
- 400 figure/date questions of SQuAD v1.1 dev from the fitting titles (seed 0), and
- 100 unanswerable and 50 answerable figure/date-looking questions of SQuAD v2.0 dev from the
  fitting titles (seed 0), so that the selector learns when to abstain;
- with `--tatqa`, 120 stated figure/date questions of TAT-QA dev's fitting half (table uids) and
  the unanswerable questions made from it by asking for a year the context lacks (28; seed 0):
  tables, periods and scale (`experiment/bench/fit/sets.py`).

The small model's 10 samples per question come through the benchmarks' generation cache
(outputs/bench/.cache). Every distinct confirmed candidate is a row, labelled by the strict judge.
The model is a scikit-learn logistic regression on the standardised features. Five-fold
cross-validation grouped by title (a TAT-QA table) gives out-of-fold probabilities; on them the
abstention threshold is the one that maximises the mean over the fitting sets of their
question-level accuracy (an abstention is right on an unanswerable question; each set weighs the
same, so that the 400 SQuAD v1.1 questions, none unanswerable, do not decide it alone), and the
reliability table and Brier score are reported. The final model is refitted on all rows and,
with `--write`, written to experiment/evaluate/selector.json with the command, the fitting
titles' SHA-256 and the cross-validated figures.

`--large-evidence` fits the same way with one more feature, `large_evidence`: the large model's
evidence-only check of each candidate (`experiment/evaluate/large_check.py`; its scores go
through the same cache), and with `--write` writes experiment/evaluate/selector_checked.json,
the selector of `small-selected-checked@k`. `factqa bench fit feature-sets` showed it raises the
fitting sets' mean out of fold.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from experiment.bench.app import command
from experiment.bench.fit.rows import (
    THRESHOLDS,
    LargeEvidence,
    Row,
    fitting_rows,
    matrix,
    question_accuracy,
    set_means,
)
from experiment.bench.harness import (
    LargeEvidenceOpt,
    SquadV1Arg,
    SquadV2Arg,
    TatqaOpt,
)
from experiment.evaluate.features import FEATURES
from experiment.evaluate.large_check import LARGE_EVIDENCE
from experiment.evaluate.selector import (
    CHECKED,
    FOLDS,
    PACKAGED,
    RULE,
    SelectorModel,
    out_of_fold,
    save,
)


def reliability(probs: np.ndarray, right: np.ndarray, bins: int = 10) -> list[str]:
    lines = [
        "| confidence | candidates | mean confidence | share right |",
        "| --- | --- | --- | --- |",
    ]
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        inside = (probs >= lo) & ((probs < hi) if b < bins - 1 else (probs <= hi))
        if inside.any():
            lines.append(
                f"| {lo:.1f}-{hi:.1f} | {int(inside.sum())} | {probs[inside].mean():.3f} | "
                f"{right[inside].mean():.3f} |"
            )
    return lines


def threshold_sweep(
    rows: list[Row], probs: np.ndarray, questions: list[str], sets: list[str]
) -> list[str]:
    """Each fitting set's out-of-fold accuracy if the selector abstained below each threshold,
    beside abstaining on every question (right only on unanswerable ones)."""
    head = " | ".join(sets)
    lines = [f"| threshold | {head} |", "| --- |" + " --- |" * len(sets)]
    parts = {name: [q for q in questions if q.startswith(name)] for name in sets}
    for t in (0.0, 0.2, 0.4, 0.6, 0.7, 0.8, 0.9):
        accs = [question_accuracy(rows, probs, t, parts[name]) for name in sets]
        lines.append(f"| {t:.1f} | " + " | ".join(f"{a:.3f}" for a in accs) + " |")
    never = [sum(q.endswith("True") for q in parts[n]) / len(parts[n]) for n in sets]
    lines.append("| abstain on all | " + " | ".join(f"{a:.3f}" for a in never) + " |")
    return lines


@command("selector", fit=True)
def fit_selector(
    squad_v1: SquadV1Arg,
    squad_v2: SquadV2Arg,
    tatqa: TatqaOpt = None,
    large_evidence: LargeEvidenceOpt = False,
    out: Annotated[
        Path | None, typer.Option(help="default: selector.json (selector_checked.json)")
    ] = None,
    write: Annotated[
        bool,
        typer.Option(
            "--write", help="Save the fitted selector (to --out, or to its file in the package)."
        ),
    ] = False,
) -> None:
    """Fit the learned selector on the fitting halves of SQuAD (and TAT-QA) and, with --write,
    ship it in the package (experiment/evaluate/selector.json; with --large-evidence,
    selector_checked.json)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    features = (*FEATURES, LARGE_EVIDENCE) if large_evidence else FEATURES
    out = out or (CHECKED if large_evidence else PACKAGED)
    extra = LargeEvidence() if large_evidence else None
    rows, counts, questions = fitting_rows(squad_v1, squad_v2, tatqa, extra)
    known = [r.features["logprob"] for r in rows if r.features["logprob"] is not None]
    impute = {f: 0.0 for f in features}
    impute["logprob"] = float(np.mean(known)) if known else 0.0
    x = matrix(rows, impute, features)
    y = np.array([r.right for r in rows], dtype=int)
    groups = np.array([r.cluster for r in rows])

    oof = out_of_fold(x, y, groups)
    accs = [question_accuracy(rows, oof, t, questions) for t in THRESHOLDS]
    balanced = set_means(rows, oof, questions, counts)
    best = int(np.argmax(balanced))
    threshold = THRESHOLDS[best]
    brier = float(np.mean((oof - y) ** 2))
    rule_scores = np.array([RULE.score(r.features) for r in rows])
    rule_acc = question_accuracy(rows, rule_scores, RULE.threshold, questions)

    scaler = StandardScaler().fit(x)
    clf = LogisticRegression(C=1.0, max_iter=1000).fit(scaler.transform(x), y)
    titles = sorted({line.split("\t")[1] for line in questions})
    model = SelectorModel(
        name="logistic-checked" if large_evidence else "logistic",
        kind="logistic",
        weights={f: round(float(w), 6) for f, w in zip(features, clf.coef_[0], strict=True)},
        intercept=round(float(clf.intercept_[0]), 6),
        threshold=threshold,
        mean={f: round(float(m), 6) for f, m in zip(features, scaler.mean_, strict=True)},
        scale={f: round(float(s), 6) for f, s in zip(features, scaler.scale_, strict=True)},
        impute={f: round(v, 6) for f, v in impute.items()},
        fitted={
            "command": "factqa bench fit selector PATH/TO/dev-v1.1.json PATH/TO/dev-v2.0.json "
            "--tatqa PATH/TO/tatqa_dataset_dev.json"
            + (" --large-evidence" if large_evidence else "")
            + " --write",
            "questions": counts,
            "candidates": len(rows),
            "right_candidates": int(y.sum()),
            "title_rule": "experiment/importers/split.py: half 'fit'",
            "titles_sha256": [hashlib.sha256(t.encode()).hexdigest() for t in titles],
            "cv": {
                "folds": FOLDS,
                "grouped_by": "title",
                "brier": round(brier, 4),
                "threshold_rule": "max of the mean out-of-fold accuracy over the fitting sets",
                "mean_set_accuracy_at_threshold": round(balanced[best], 4),
                "question_accuracy_at_threshold": round(accs[best], 4),
                "rule_question_accuracy": round(rule_acc, 4),
            },
        },
    )
    print(f"fitting questions: {counts}; candidates: {len(rows)} ({int(y.sum())} right)")
    print(f"titles: {len(titles)}; threshold (cross-validated): {threshold:.2f}")
    print(
        f"out-of-fold question accuracy: {accs[best]:.3f} (rule: {rule_acc:.3f}; the best pooled "
        f"threshold {THRESHOLDS[int(np.argmax(accs))]:.2f} gives {max(accs):.3f}); mean over the "
        f"fitting sets {balanced[best]:.3f}; Brier {brier:.4f}"
    )
    votes = np.array([r.features["votes"] + 1e-3 * (r.features["share"] or 0) for r in rows])
    for name in counts:
        part = [line for line in questions if line.startswith(name)]
        print(
            f"{name} ({len(part)} questions), out of fold: selector "
            f"{question_accuracy(rows, oof, threshold, part):.3f}, the vote among confirmed "
            f"{question_accuracy(rows, votes, 0.0, part):.3f}, best confirmed candidate "
            f"{question_accuracy(rows, y.astype(float), 0.5, part):.3f}"
        )
    print("\n".join(reliability(oof, y)))
    print("\n".join(threshold_sweep(rows, oof, questions, list(counts))))
    print("weights:", {f: round(w, 3) for f, w in model.weights.items()})
    if write:
        save(model, out)
        print(f"wrote {out}")
