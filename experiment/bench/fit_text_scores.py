"""Fit small-text@0's selector on the fitting sets (issue 39): the small model scores each
question's bounded text pool, and a choice of normalisation and weights ranks it.

    factqa bench fit text-scores PATH/TO/dev-v1.1.json PATH/TO/dev-v2.0.json
        --tatqa PATH/TO/tatqa_dataset_dev.json [--per-set 200] [--write]

The fitting sets are `experiment.fitting`'s (SQuAD v1.1 and v2.0 fitting titles, TAT-QA dev's
fitting part with its unanswerable questions), their first `--per-set` questions each (150;
TAT-QA's first `--tatqa-per-set`, 60, in article order: its long contexts make each question
cost several times a SQuAD one). Nothing here reads an evaluation half or the bundled corpus.
The small model scores each question's bounded pool (`pool.bounded`, top `POOL_N` by the
model-free rank) with "unknown" through the run's own stage (`runner.pool_scores`, the shared
generation cache of outputs/bench); no sample is drawn.

Ways of ranking compared, by 5-fold cross-validation grouped by article (a fold's threshold
chosen on its training folds, maximising the mean of the sets' question accuracies, each set
weighing the same; an abstention is right on an unanswerable question):
- `rank`: the model-free rank alone (text-only's, no model);
- `logprob`, `token`: the most probable candidate, by its log-probability or per token;
- `logistic+S`: a logistic regression of "right" on the evidence features and the score
  features S (`drafts.SCORE_FEATURES`: margin over "unknown", gap to the best, per token),
  with its threshold, and (", unknown abstains") also abstaining where "unknown" is more
  probable than every candidate (the selector's `fitted.unknown_abstains`).
`logprob` and `token` abstain where "unknown" wins. The best
by cross-validated mean accuracy is refitted on every fitting question and, with `--write`,
saved as experiment/evaluate/text_selector.json (its `fitted` record says what it was fitted
on and the table of ways) and printed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from experiment.bench.app import command
from experiment.bench.harness import SquadV1Arg, SquadV2Arg
from experiment.config import RunConfig
from experiment.corpus import load_articles, load_questions
from experiment.evaluate.drafts import (
    PACKAGED,
    SCORE_FEATURES,
    SMALL,
    score_features,
    unknown_wins,
)
from experiment.evaluate.features import FEATURES
from experiment.evaluate.judge import gold_of, judge
from experiment.evaluate.pool import SAMPLE_FEATURES, bounded, pool, text_rank
from experiment.evaluate.selector import SelectorModel, save
from experiment.fitting import OUT, fitting_sets
from experiment.generate.sampling import article_order
from experiment.runner import Confirmed, pool_scores

EVIDENCE = tuple(f for f in FEATURES if f not in SAMPLE_FEATURES)
VARIANTS = {
    "logistic+margin": ("score_margin",),
    "logistic+gap": ("score_gap",),
    "logistic+token": ("score_token",),
    "logistic+all": SCORE_FEATURES,
}
THRESHOLDS = [t / 100 for t in range(0, 100)]
UNKNOWN_RULE = ", unknown abstains"


@dataclass
class Item:
    """One fitting question: its set, group, candidates' features and rightness."""

    set: str
    group: str
    unanswerable: bool
    features: list[dict[str, float | None]]
    right: list[bool]
    unknown_won: bool


def items(v1: Path, v2: Path, tatqa: Path, per_set: int, tatqa_n: int) -> list[Item]:
    out: list[Item] = []
    for name, imp in fitting_sets(v1, v2, tatqa):
        articles = load_articles(imp.articles)
        n = tatqa_n if name.startswith("tatqa") else per_set
        questions = article_order(load_questions(imp.questions, articles))[:n]
        cfg = RunConfig(
            articles=imp.articles,
            questions=imp.questions,
            out=OUT,
            run_id=f"{name}-pool",
            drafts="small",
        )

        def progress(role: str, done: float, total: int, name: str = name) -> None:
            if int(done) % 25 == 0 and done == int(done):
                print(f"{name} {role}: {int(done)}/{total}", flush=True)

        got = pool_scores(cfg, articles, questions, Confirmed({}, {}, {}), progress=progress)
        assert got.drafts is not None, got.drafts_left_out
        for q in questions:
            article = articles[q.article_id]
            cands = bounded(pool(q, article))
            drafts = got.drafts[q.id][SMALL]
            gold = gold_of(q)
            feats = score_features(cands, drafts)
            out.append(
                Item(
                    name,
                    f"{name}:{q.cluster}",
                    q.unanswerable,
                    [{**c.features, **f} for c, f in zip(cands, feats, strict=True)],
                    [judge(c.value, q, gold, c.text, True, c.written) for c in cands],
                    unknown_wins(cands, drafts),
                )
            )
    return out


def accuracy(its: list[Item], scores: list[np.ndarray], threshold: float, rule: bool) -> dict:
    """Question accuracy per set when each question keeps its top candidate at `threshold`
    (and, with `rule`, abstains where "unknown" won)."""
    right: dict[str, list[bool]] = {}
    for it, s in zip(its, scores, strict=True):
        kept = len(s) > 0 and s.max() >= threshold and not (rule and it.unknown_won)
        ok = it.right[int(s.argmax())] if kept else it.unanswerable
        right.setdefault(it.set, []).append(bool(ok))
    return {name: float(np.mean(v)) for name, v in right.items()}


def mean_of(acc: dict) -> float:
    return float(np.mean(list(acc.values())))


def best_threshold(its: list[Item], scores: list[np.ndarray], rule: bool) -> float:
    means = [mean_of(accuracy(its, scores, t, rule)) for t in THRESHOLDS]
    return THRESHOLDS[int(np.argmax(means))]


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


def fit_logistic(its: list[Item], names: tuple[str, ...]):  # type: ignore[no-untyped-def]
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    impute = {n: 0.0 for n in names}
    xs = design(its, names, impute)
    x = np.vstack([m for m in xs if len(m)])
    y = np.concatenate([np.array(it.right, dtype=int) for it in its if it.features])
    scaler = StandardScaler().fit(x)
    clf = LogisticRegression(C=1.0, max_iter=2000).fit(scaler.transform(x), y)
    return scaler, clf, impute


def predict(model, its: list[Item], names: tuple[str, ...]) -> list[np.ndarray]:  # type: ignore[no-untyped-def]
    scaler, clf, impute = model
    return [
        clf.predict_proba(scaler.transform(m))[:, 1] if len(m) else np.array([])
        for m in design(its, names, impute)
    ]


def fixed_scores(its: list[Item], way: str) -> list[np.ndarray]:
    if way == "rank":
        rank = text_rank()
        return [np.array([rank.score(f) for f in it.features]) for it in its]
    name = "score_gap" if way == "logprob" else "score_token"
    return [np.array([f[name] if f[name] is not None else -1e9 for f in it.features]) for it in its]


def cross_validate(its: list[Item], folds: int = 5) -> dict[str, dict]:
    from sklearn.model_selection import GroupKFold

    groups = [it.group for it in its]
    split = list(GroupKFold(folds).split(np.zeros(len(its)), groups=groups))
    out: dict[str, dict] = {}
    for way in ("rank", "logprob", "token"):
        scores = fixed_scores(its, way)
        rule = way != "rank"
        threshold = text_rank().threshold if way == "rank" else -np.inf
        acc = accuracy(its, scores, threshold, rule)
        out[way] = {"sets": acc, "mean": mean_of(acc)}
    for way, names in VARIANTS.items():
        for rule in (True, False):
            cols = (*EVIDENCE, *names)
            held: list[np.ndarray | None] = [None] * len(its)
            thresholds = []
            for train, test in split:
                tr = [its[i] for i in train]
                model = fit_logistic(tr, cols)
                t = best_threshold(tr, predict(model, tr, cols), rule)
                thresholds.append(t)
                te = [its[i] for i in test]
                for i, s in zip(test, predict(model, te, cols), strict=True):
                    held[i] = np.where(s >= t, s, -1.0) if len(s) else s
            scores = [h if h is not None else np.array([]) for h in held]
            acc = accuracy(its, scores, 0.0, rule)
            name = way + (UNKNOWN_RULE if rule else "")
            out[name] = {"sets": acc, "mean": mean_of(acc), "thresholds": thresholds}
    return out


def selector_of(its: list[Item], way: str, table: dict, counts: dict[str, int]) -> SelectorModel:
    rule = way.endswith(UNKNOWN_RULE) or way in ("logprob", "token")
    fitted = {
        "questions": counts,
        "ways": table,
        "chosen": way,
        "unknown_abstains": rule,
        "command": COMMAND,
    }
    way = way.removesuffix(UNKNOWN_RULE)
    if way in ("logprob", "token"):
        name = "score_gap" if way == "logprob" else "score_token"
        return SelectorModel("text-selector", "rule", {name: 1.0}, -1e9, fitted=fitted)
    if way == "rank":
        rank = text_rank()
        from dataclasses import replace

        return replace(rank, name="text-selector", fitted=fitted)
    cols = (*EVIDENCE, *VARIANTS[way])
    scaler, clf, impute = fit_logistic(its, cols)
    probs = predict((scaler, clf, impute), its, cols)
    threshold = best_threshold(its, probs, rule)
    return SelectorModel(
        "text-selector",
        "logistic",
        {n: round(float(w), 6) for n, w in zip(cols, clf.coef_[0], strict=True)},
        threshold,
        round(float(clf.intercept_[0]), 6),
        {n: round(float(m), 6) for n, m in zip(cols, scaler.mean_, strict=True)},
        {n: round(float(s), 6) for n, s in zip(cols, scaler.scale_, strict=True)},
        {n: impute[n] for n in cols},
        fitted,
    )


COMMAND = (
    "factqa bench fit text-scores PATH/TO/dev-v1.1.json PATH/TO/dev-v2.0.json "
    "--tatqa PATH/TO/tatqa_dataset_dev.json --write"
)


@command("text-scores", fit=True)
def fit_text_scores(
    v1: SquadV1Arg,
    v2: SquadV2Arg,
    tatqa: Annotated[Path, typer.Option(help="TAT-QA dev (tatqa_dataset_dev.json).")],
    per_set: Annotated[int, typer.Option(help="Each SQuAD set's fitting questions.")] = 150,
    tatqa_per_set: Annotated[
        int,
        typer.Option(
            help="TAT-QA's fitting questions (its contexts are long: 12 s a question on 2 cores)."
        ),
    ] = 60,
    write: Annotated[
        bool, typer.Option("--write", help=f"Save the chosen selector to {PACKAGED.name}.")
    ] = False,
) -> None:
    """Fit small-text@0's selector on the fitting sets: the small model scores each question's
    bounded text pool, and the best way of ranking it by cross-validation is kept."""
    its = items(v1, v2, tatqa, per_set, tatqa_per_set)
    counts: dict[str, int] = {}
    for it in its:
        counts[it.set] = counts.get(it.set, 0) + 1
    table = cross_validate(its)
    sets = list(counts)
    print("| way | " + " | ".join(sets) + " | mean |")
    print("| --- |" + " --- |" * (len(sets) + 1))
    for way, row in table.items():
        cells = " | ".join(f"{row['sets'][s]:.3f}" for s in sets)
        print(f"| {way} | {cells} | {row['mean']:.3f} |")
    chosen = max((w for w in table if w != "rank"), key=lambda w: table[w]["mean"])
    print(f"chosen: {chosen} (cross-validated mean {table[chosen]['mean']:.3f})")
    model = selector_of(its, chosen, {w: round(r["mean"], 4) for w, r in table.items()}, counts)
    print(json.dumps({"weights": model.weights, "threshold": model.threshold}, indent=1))
    if write:
        save(model, PACKAGED)
        print(f"wrote {PACKAGED}")
