"""Measure the judge's signals on the fitting halves (issue 53): each alone and together.

    factqa bench fit judge PATH/TO/dev-v1.1.json PATH/TO/dev-v2.0.json
        --tatqa PATH/TO/tatqa_dataset_dev.json [--role small] [--per-set 100]
        [--tatqa-per-set 40] [--write]

The fitting sets are `text-scores`' (`bench.fit.sets`: SQuAD v1.1 and v2.0 fitting titles, TAT-QA
dev's fitting half with its unanswerable questions), their first questions in article order.
Nothing here reads an evaluation half or the bundled corpus. The model (`--role`) scores each
question's bounded pool after its answering prompt (the run's own stage, `runner.pool_scores`),
then makes each signal's calls (`evaluate.judge_signals`), all through the shared generation
cache of outputs/bench, so a second call costs no model time.

Printed (and, with `--write`, recorded as docs/RESULTS.md's `fit-judge` section):
- **alone**: each signal's ranking loss, the share of the questions whose bounded pool holds
  the gold where the signal's first candidate is not the gold, beside the model-free rank, the
  base log-probability and the shipped small-text@0 selector (the coverage: the share of the
  answerable questions whose pool holds the gold);
- **together**: the model writing its own answer, its log-probability's pick (abstaining where
  "unknown" wins, never, or under a margin over "unknown" fitted by cross-validation), then a
  logistic regression of "right" on the evidence features, the base score features and each
  signal's (then the signals a rule fixed beforehand keeps), by 5-fold cross-validation grouped by
  article, each set's question accuracy (abstaining under the fold's threshold; right on an
  unanswerable question), the selector's way (`ranking_fit`);
- **cost**: each signal's FLOPs per question over the base scoring call's.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from experiment.bench.app import command
from experiment.bench.fit import ranking_fit as rf
from experiment.bench.fit.ranking_fit import Item
from experiment.bench.fit.sets import OUT, fitting_sets
from experiment.bench.harness import (
    RESULTS_MD,
    ResultsMdOpt,
    SquadV1Arg,
    SquadV2Arg,
    WriteOpt,
    publish,
)
from experiment.bench.sections import Record, measured, renders
from experiment.config import RunConfig
from experiment.corpus import load_articles, load_questions
from experiment.evaluate.drafts import (
    SCORE_FEATURES,
    Drafts,
    rank_scored,
    score_features,
    text_selector,
    unknown_wins,
)
from experiment.evaluate.features import FEATURES
from experiment.evaluate.judge import gold_of, judge
from experiment.evaluate.judge_signals import ARTICLE_SIGNALS, SIGNALS, Judging, Signal
from experiment.evaluate.pool import SAMPLE_FEATURES, PoolCandidate, bounded, pool, text_rank
from experiment.evaluate.proposal_pool import is_computed
from experiment.evaluate.selector import SelectorModel
from experiment.generate.models.base import Backend
from experiment.generate.sampling import article_order, prompt_of
from experiment.runner import (
    BackendFactory,
    Confirmed,
    _cache,
    answering,
    cached_scores,
    confirm,
    llama_factory,
    pool_scores,
    sample,
)

SECTION, LARGE_SECTION = "fit-judge", "fit-judge-large"  # the small model's, the large one's
EVIDENCE = tuple(f for f in FEATURES if f not in SAMPLE_FEATURES)
BASE = (*EVIDENCE, *SCORE_FEATURES)
# a feature the signal did not give a candidate (beyond its top few): its value there
IMPUTE = {"form_gap": -20.0, "calib_gap": -20.0, "channel_gap": -5.0, "channel_mask": 0.0,
          "pair_win": 0.0}  # fmt: skip
# the log-probability's pick abstaining under a margin over "unknown" fitted by cross-validation
FITTED_MARGIN = "logprob, abstains under a fitted margin"
MARGINS = (-np.inf, *(t / 4 for t in range(-40, 17)))  # nats: never, then -10 to +4
COMMAND = (
    "factqa bench fit judge PATH/TO/dev-v1.1.json PATH/TO/dev-v2.0.json "
    "--tatqa PATH/TO/tatqa_dataset_dev.json --write"
)
LARGE_COMMAND = COMMAND + " --role large --per-set 50 --tatqa-per-set 20"


@dataclass
class Judged:
    """One fitting question: its candidates' features (evidence, base scores, every signal's),
    which are right, the base judge's order, and each signal's FLOPs."""

    item: Item
    order: list[int]
    flops: dict[str, float]
    writes: bool = False  # the same model's own greedy answer (large@1's prompt) is right


def _base(drafts: Drafts) -> dict[str, float]:
    return dict(zip(drafts.texts[:-1], drafts.logprobs[:-1], strict=True))


def _signal(
    sig: Signal, backend: Backend, cache: Any, judging: Judging
) -> tuple[list[dict[str, float | None]], float]:
    """One signal's features for a question's candidates, and its calls' FLOPs."""
    probes = sig.probes(judging)
    scores = [cached_scores(backend, cache, p) for p in probes]
    return sig.decide(judging, probes, scores), sum(s.flops or 0.0 for s in scores)


Row = tuple[list[PoolCandidate], list[dict[str, float | None]], list[int], dict[str, float]]


def _row(cands: list[PoolCandidate], drafts: Drafts, selector: SelectorModel) -> Row:
    """A question's candidates, their evidence and base score features (the signals' join
    later), their order by the shipped small-text@0 selector, and the base call's FLOPs."""
    ranked = rank_scored(cands, drafts, selector).ranked
    order = [next(i for i, c in enumerate(cands) if c is r) for r, _ in ranked]
    feats = [{**c.features, **f} for c, f in zip(cands, score_features(cands, drafts), strict=True)]
    return cands, feats, order, {"base": drafts.flops or 0.0}


def judged_set(
    name: str,
    cfg: RunConfig,
    n: int,
    role: str,
    say: Callable[[str], None] = print,
    factory: BackendFactory = llama_factory,
) -> list[Judged]:
    """A fitting set's first `n` questions (article order) that the run scores the stated pool
    of (a question routed to the calculation prompt has its proposals scored instead), judged
    by every signal, and the same model's own answer (`cfg`: the set, the models, the cache)."""
    articles = load_articles(cfg.articles)
    questions = [
        q
        for q in article_order(load_questions(cfg.questions, articles))
        if not is_computed(q, cfg.prompt)
    ][:n]
    got = pool_scores(cfg, articles, questions, Confirmed({}, {}, {}), factory)
    assert got.drafts is not None, got.left_out
    spec = cfg.small if role == "small" else cfg.large
    writer = replace(cfg, large=spec, run_id=f"{cfg.run_id}-writes-{role}")
    drawn = sample(writer, articles, questions, factory, roles=("large",))
    wrote = confirm(writer, articles, questions, drawn)
    params, k, reading = answering(cfg, role == "small")
    backend = factory(spec, cfg)
    cache = _cache(cfg)
    selector = text_selector()
    rows: dict[str, Row] = {}
    judgings: dict[str, Judging] = {}
    try:
        for q in questions:
            article, drafts = articles[q.article_id], got.drafts[q.id][role]
            rows[q.id] = row = _row(bounded(pool(q, article)), drafts, selector)
            cands, _, order, _ = row
            messages = prompt_of(backend, article, q, k, params, reading, cfg.prompt)[0]
            judgings[q.id] = Judging(messages, q, article, cands, order, _base(drafts))
        rest = tuple(s for s in SIGNALS if s not in ARTICLE_SIGNALS)
        for passes in (ARTICLE_SIGNALS, rest):  # the article's prefix serves the first
            for done, q in enumerate(questions, 1):
                _, feats, _, flops = rows[q.id]
                for s in passes:
                    got_f, cost = _signal(SIGNALS[s], backend, cache, judgings[q.id])
                    for f, g in zip(feats, got_f, strict=True):
                        f.update(g)
                    flops[s] = cost
                if done % 20 == 0:
                    say(f"{name} {'+'.join(passes)}: {done}/{len(questions)}")
    finally:
        cache.close()
        del backend
        gc.collect()
    out = []
    for q in questions:
        cands, feats, order, flops = rows[q.id]
        gold = gold_of(q)
        right = [judge(c.value, q, gold, c.text, True, c.written) for c in cands]
        unknown = unknown_wins(cands, got.drafts[q.id][role])
        own = wrote.large[q.id]
        writes = judge(own.value, q, gold, own.attempt.raw_text, own.value is None)
        item = Item(name, f"{name}:{q.cluster}", q.unanswerable, feats, right, unknown)
        out.append(Judged(item, order, flops, writes))
    return out


def _top(scores: Sequence[float | None], fallback: Sequence[int]) -> int:
    """The index of the best score (None below every number); ties and Nones by `fallback`."""
    rank = {i: r for r, i in enumerate(fallback)}
    return min(
        range(len(scores)),
        key=lambda i: (scores[i] is None, -(scores[i] or 0.0), rank.get(i, len(rank))),
    )


def firsts(j: Judged) -> dict[str, int]:
    """Each way's first candidate of a question ("alone": nothing fitted): the model-free rank,
    the base log-probability, the shipped selector, the value as the article writes it, then
    each signal by its first feature (`pairwise`: the selector's top two, reordered)."""
    feats, order = j.item.features, j.order or list(range(len(j.item.features)))
    rank = text_rank()
    out = {
        "rank": _top([rank.score(f) for f in feats], order),
        "logprob": _top([f.get("score_gap") for f in feats], order),
        "selector": order[0],
        "written": _top([f.get("written_gap") for f in feats], order),
    }
    for name, sig in SIGNALS.items():
        if name == "pairwise":
            pair = [f.get("pair_win") for f in feats]
            swap = len(order) >= 2 and (pair[order[1]] or 0.0) > (pair[order[0]] or 0.0)
            out[name] = order[1] if swap else order[0]
        else:
            out[name] = _top([f.get(sig.features[0]) for f in feats], order)
    return out


def alone(judged: Sequence[Judged]) -> dict[str, dict[str, Any]]:
    """Per set: the coverage, and each way's ranking loss over the questions whose pool holds
    the gold."""
    out: dict[str, dict[str, Any]] = {}
    for j in judged:
        s = out.setdefault(j.item.set, {"answerable": 0, "held": 0, "wrong": {}})
        if j.item.unanswerable:
            continue
        s["answerable"] += 1
        if not any(j.item.right):  # no candidate, or none right
            continue
        s["held"] += 1
        for way, i in firsts(j).items():
            s["wrong"][way] = s["wrong"].get(way, 0) + (not j.item.right[i])
        s["wrong"]["writes"] = s["wrong"].get("writes", 0) + (not j.writes)
    return out


def _or(x: float | None, default: float) -> float:
    return default if x is None else x


def kept_signals(table: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The signals shipped by the rule fixed before the measurement: under the way of abstaining
    the base does best with, adding the signal raises the mean accuracy and lowers no set."""
    flavour = max(("base", f"base{rf.UNKNOWN_RULE}"), key=lambda w: table[w]["mean"])
    suffix = flavour.removeprefix("base")
    base = table[flavour]
    return [
        name
        for name in SIGNALS
        if table[f"+{name}{suffix}"]["mean"] > base["mean"]
        and all(table[f"+{name}{suffix}"]["sets"][s] >= v for s, v in base["sets"].items())
    ]


def together(judged: Sequence[Judged]) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The model writing (its own greedy answer) and judging by its log-probability alone
    (large-text@1's way), then the cross-validated logistic ways: the base, with each signal,
    with the signals the rule keeps (`kept_signals`); each with its questions gained and lost
    against the base."""
    its = [j.item for j in judged]
    folds = min(5, len({it.group for it in its}))
    if folds < 2:
        return {}, []
    variants = {"base": BASE}
    for name, sig in SIGNALS.items():
        variants[f"+{name}"] = (*BASE, *sig.features)
    table = rf.logistic_ways(its, variants, folds, IMPUTE)
    kept = kept_signals(table)
    if kept:
        cols = (*BASE, *(f for n in kept for f in SIGNALS[n].features))
        table |= rf.logistic_ways(its, {"+kept": cols}, folds, IMPUTE)
    logprob = [np.array([_or(f.get("score_gap"), -1e9) for f in it.features]) for it in its]
    # the same pick, abstaining where its margin over "unknown" is under a fitted threshold
    margin = [np.array([_or(f.get("score_margin"), -1e9) for f in it.features]) for it in its]
    fitted, _ = rf.cv_threshold(its, margin, MARGINS, folds)
    fixed = {
        "writes": [j.writes for j in judged],
        f"logprob{rf.UNKNOWN_RULE}": rf.rights(its, logprob, -np.inf, True),
        "logprob": rf.rights(its, logprob, -np.inf, False),  # never abstains
        FITTED_MARGIN: fitted,
    }
    out: dict[str, dict[str, Any]] = {}
    for way, right in fixed.items():
        out[way] = {"sets": rf.per_set(its, right), "right": right}
    for way, r in table.items():
        out[way] = {"sets": r["sets"], "right": r["right"]}
    for way, r in out.items():
        r["mean"] = rf.mean_of(r["sets"])
        base = out["base" + (rf.UNKNOWN_RULE if way.endswith(rf.UNKNOWN_RULE) else "")]["right"]
        r["gained"] = sum(a and not b for a, b in zip(r["right"], base, strict=True))
        r["lost"] = sum(b and not a for a, b in zip(r["right"], base, strict=True))
    for r in out.values():
        del r["right"]
    return out, kept


def cost(judged: Sequence[Judged]) -> dict[str, float]:
    """Each signal's FLOPs over the base scoring call's, over every question."""
    base = sum(j.flops.get("base", 0.0) for j in judged) or 1.0
    return {s: sum(j.flops.get(s, 0.0) for j in judged) / base for s in SIGNALS}


def figures(judged: Sequence[Judged], role: str, model: str) -> dict[str, Any]:
    """The record's figures (`section` renders them)."""
    ways, kept = together(judged)
    return {
        "role": role,
        "model": model,
        "counts": rf.set_counts([j.item for j in judged]),
        "alone": alone(judged),
        "together": ways,
        "kept": kept,
        "cost": cost(judged),
    }


@command("judge", fit=True)
def fit_judge(
    v1: SquadV1Arg,
    v2: SquadV2Arg,
    tatqa: Annotated[Path, typer.Option(help="TAT-QA dev (tatqa_dataset_dev.json).")],
    role: Annotated[str, typer.Option(help="The model that judges: small or large.")] = "small",
    per_set: Annotated[int, typer.Option(help="Each SQuAD set's fitting questions.", min=1)] = 100,
    tatqa_per_set: Annotated[int, typer.Option(help="TAT-QA's fitting questions.", min=1)] = 40,
    write: WriteOpt = False,
    results_md: ResultsMdOpt = RESULTS_MD,
) -> None:
    """Measure each judge signal alone and together on the fitting halves."""
    if role not in ("small", "large"):
        raise typer.BadParameter("small or large", param_hint="--role")
    judged: list[Judged] = []
    for name, imp in fitting_sets(v1, v2, tatqa):
        n = tatqa_per_set if name.startswith("tatqa") else per_set
        cfg = RunConfig(
            articles=imp.articles, questions=imp.questions, out=OUT, run_id=f"{name}-pool",
            drafts=role,
        )  # fmt: skip
        judged += judged_set(name, cfg, n, role)
    cfg = RunConfig()
    got = figures(judged, role, Path(cfg.small if role == "small" else cfg.large).name)
    name, command_line = (SECTION, COMMAND) if role == "small" else (LARGE_SECTION, LARGE_COMMAND)
    record = measured(name, command_line, got)
    print(section(record))
    if write:
        publish(results_md, record)


def _alone_rows(f: Mapping[str, Any]) -> list[list[str]]:
    sets = list(f["alone"])
    ways = list(next(iter(f["alone"].values()))["wrong"]) if sets else []
    rows = [["coverage", *(f"{s['held']}/{s['answerable']}" for s in f["alone"].values())]]
    for way in ways:
        rows.append(
            [
                way,
                *(f"{s['wrong'].get(way, 0) / max(1, s['held']):.3f}" for s in f["alone"].values()),
            ]
        )
    return rows


@renders(LARGE_SECTION, "fitted")
@renders(SECTION, "fitted")
def section(record: Record) -> str:
    """docs/RESULTS.md's `fit-judge` and `fit-judge-large` sections from their records."""
    from experiment.report.tables import markdown_table

    f = record.figures
    sets = list(f["alone"])
    counts = ", ".join(f"{s} {n}" for s, n in f["counts"].items())
    alone_t = "\n".join(markdown_table(["way", *sets], _alone_rows(f)))
    rows = [
        [
            w,
            *(f"{r['sets'][s]:.3f}" for s in sets),
            f"{r['mean']:.3f}",
            f"+{r['gained']}/-{r['lost']}",
        ]
        for w, r in f["together"].items()
    ]
    together_t = "\n".join(markdown_table(["way", *sets, "mean", "against base"], rows))
    kept = ", ".join(f["kept"]) or "none"
    cost_t = ", ".join(f"{s} {x:.2f}x" for s, x in f["cost"].items())
    fitted_rule = (
        f'; with "{FITTED_MARGIN.split(", ", 1)[1]}", it abstains where its margin over '
        '"unknown" is under a threshold chosen on the training folds, grouped by article'
        if FITTED_MARGIN in f["together"]
        else ""  # a record made before the row
    )
    return f"""## The judge's signals on the fitting halves ({f["role"]} model)

Command: `{record.command}` ({f["model"]} judges). Commit `{record.commit}`, {record.date}. \
Questions: {counts} (the first of each set in article order whose stated pool the run scores; \
a question routed to the calculation prompt is not). Each signal \
(`experiment/evaluate/judge_signals.py`) scores the bounded pool of each question; nothing is \
read from an evaluation half. These questions are among those the shipped small-text@0 \
selector was fitted on, so its row, and the top candidates `channel` and `pairwise` read (by \
its order), are in-sample; the cross-validated rows below are not.

Alone: the coverage (questions whose bounded pool holds the gold, of the answerable), then each \
way's ranking loss, the share of those questions whose first candidate is not the gold (lower is \
better; `logprob` scores the pool's text, a table cell with its scale written out; `written` \
scores the value as the article first writes it, the cell's bare figure; `selector` is the \
shipped small-text@0 selector, `pairwise` its top two reordered by the pairwise comparison; \
`writes` is the model's own greedy answer):

{alone_t}

Together, question accuracy over every question (an abstention is right on an unanswerable \
one; higher is better): the model writing its own greedy answer (`writes`, as large@1 does), \
judging by its log-probability alone (large-text@1's way; without "unknown abstains", it never \
abstains{fitted_rule}), then a logistic regression over the \
evidence and base score features, with each signal's features, by 5-fold cross-validation \
grouped by article (abstaining under the fold's threshold), with the questions each gains and \
loses against the base of the same abstention rule:

{together_t}

The rule fixed before the measurement ships a signal when, under the base's better abstention \
rule, adding it raises the mean and lowers no set (`+kept`: all such together, scored on the \
same folds that chose them, so an upper bound). Kept: {kept}.

Cost, each signal's FLOPs over the base scoring call's: {cost_t}."""
