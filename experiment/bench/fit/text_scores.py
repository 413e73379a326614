"""Fit small-text@0's selector on the fitting sets (issue 39): the small model scores each
question's bounded text pool, and a choice of normalisation and weights ranks it.

    factqa bench fit text-scores PATH/TO/dev-v1.1.json PATH/TO/dev-v2.0.json
        --tatqa PATH/TO/tatqa_dataset_dev.json [--per-set 200] [--write]

The fitting sets are `experiment.bench.fit.sets`'s (SQuAD v1.1 and v2.0 fitting titles, TAT-QA dev's
fitting half with its unanswerable questions), their first `--per-set` questions each (150;
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
from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from experiment.bench.app import command
from experiment.bench.fit import ranking_fit as rf
from experiment.bench.fit.ranking_fit import UNKNOWN_RULE, Item
from experiment.bench.fit.sets import OUT, fitting_sets
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
from experiment.generate.sampling import article_order
from experiment.runner import Confirmed, pool_scores

EVIDENCE = tuple(f for f in FEATURES if f not in SAMPLE_FEATURES)
VARIANTS = {
    "logistic+margin": ("score_margin",),
    "logistic+gap": ("score_gap",),
    "logistic+token": ("score_token",),
    "logistic+all": SCORE_FEATURES,
}


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
        assert got.drafts is not None, got.left_out
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


def fixed_scores(its: list[Item], way: str) -> rf.Rankings:
    if way == "rank":
        rank = text_rank()
        return [np.array([rank.score(f) for f in it.features]) for it in its]
    name = "score_gap" if way == "logprob" else "score_token"
    return [np.array([f[name] if f[name] is not None else -1e9 for f in it.features]) for it in its]


def cross_validate(its: list[Item], folds: int = 5) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for way in ("rank", "logprob", "token"):
        threshold = text_rank().threshold if way == "rank" else -np.inf
        out[way] = rf.fixed_way(its, fixed_scores(its, way), threshold, way != "rank")
    variants = {way: (*EVIDENCE, *names) for way, names in VARIANTS.items()}
    return {**out, **rf.logistic_ways(its, variants, folds)}


def selector_of(its: list[Item], way: str, table: dict, counts: dict[str, int]) -> SelectorModel:
    rule = way.endswith(UNKNOWN_RULE) or way in ("logprob", "token")
    fitted = {"questions": counts, "ways": table, "chosen": way, "command": COMMAND}
    way = way.removesuffix(UNKNOWN_RULE)
    if way in ("logprob", "token"):
        name = "score_gap" if way == "logprob" else "score_token"
        return SelectorModel(
            "text-selector", "rule", {name: 1.0}, -1e9, fitted={**fitted, "unknown_abstains": rule}
        )
    if way == "rank":
        rank = text_rank()
        from dataclasses import replace

        return replace(rank, name="text-selector", fitted={**fitted, "unknown_abstains": rule})
    return rf.logistic_selector(its, "text-selector", (*EVIDENCE, *VARIANTS[way]), rule, fitted)


COMMAND = (
    "factqa bench fit text-scores PATH/TO/dev-v1.1.json PATH/TO/dev-v2.0.json "
    "--tatqa PATH/TO/tatqa_dataset_dev.json --write"
)


@command("text-scores", fit=True)
def fit_text_scores(
    v1: SquadV1Arg,
    v2: SquadV2Arg,
    tatqa: Annotated[Path, typer.Option(help="TAT-QA dev (tatqa_dataset_dev.json).")],
    per_set: Annotated[int, typer.Option(help="Each SQuAD set's fitting questions.", min=1)] = 150,
    tatqa_per_set: Annotated[
        int,
        typer.Option(
            help="TAT-QA's fitting questions (its contexts are long: 12 s a question on 2 cores).",
            min=1,
        ),
    ] = 60,
    write: Annotated[
        bool, typer.Option("--write", help=f"Save the chosen selector to {PACKAGED.name}.")
    ] = False,
) -> None:
    """Fit small-text@0's selector on the fitting sets: the small model scores each question's
    bounded text pool, and the best way of ranking it by cross-validation is kept."""
    its = items(v1, v2, tatqa, per_set, tatqa_per_set)
    counts = rf.set_counts(its)
    table = cross_validate(its)
    rf.print_ways(table, list(counts))
    chosen = max((w for w in table if w != "rank"), key=lambda w: table[w]["mean"])
    print(f"chosen: {chosen} (cross-validated mean {table[chosen]['mean']:.3f})")
    model = selector_of(its, chosen, {w: round(r["mean"], 4) for w, r in table.items()}, counts)
    print(json.dumps({"weights": model.weights, "threshold": model.threshold}, indent=1))
    if write:
        save(model, PACKAGED)
        print(f"wrote {PACKAGED}")
