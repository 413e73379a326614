"""Fit small-text-derived@k's pick on the fitting halves (issue 40): the small model samples each
computed question under the calculation prompt and scores its kept proposals, and a choice of
ranking is kept by cross-validation.

    factqa bench fit derived PATH/TO/tatqa_dataset_dev.json PATH/TO/drop_dev.jsonl.gz
        [--tatqa-n 120] [--drop-n 200] [--forms result,calculation] [--write]

The fitting halves are TAT-QA dev's fitting half and DROP dev's fitting half
(`importers/split.py`), each imported whole into outputs/bench/data; of each, the questions
`auto` routes to the calculation prompt (`proposal_pool.is_computed`: what the method answers
at evaluation, a stated question the rule sends there included), every n-th of them up to
`--tatqa-n` and `--drop-n` (a fixed sample, no seed to choose; TAT-QA's long contexts cost
several times a DROP passage). Nothing here reads an evaluation part or the bundled corpus.
The small model's k samples and its scores of the proposals merged with them come through the
run's own stages (`runner.sample`, `runner.pool_scores`) and the shared generation cache of
outputs/bench, so a later run with the same settings reuses them.

Ways of picking compared (a question's accuracy: its pick is right; an abstention is wrong,
every question being answerable), each set weighing the same:
- `rule`: the hand-set rule (`drafts.derived_pick` without a model);
- `rank`: the best proposal's model-free rank (text-derived's order; a value only samples
  give last); `logprob`: the most probable, "unknown" abstaining;
- `logistic+F`: a logistic regression of "right" on the features F of `drafts.DERIVED_FEATURES`
  (5-fold cross-validation grouped by passage, each fold's threshold chosen on its training
  folds), with and without "unknown" abstaining.
`--forms` compares the texts the model scores (`proposal_pool.FORMS`: each candidate's result as
written, or its calculation, as the calculation prompt asks), each fitted and cross-validated
alike from the same samples, and says which picks best; the selector shipped is the run's form's
(`RunConfig.derived_text`). The best by cross-validated mean is refitted on every fitting
question and, with `--write`,
saved as experiment/evaluate/derived_selector.json (its `fitted` record says what it was
fitted on, the table of ways and the choice); `rule` chosen saves that record alone, and the
method keeps the hand-set rule.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from experiment.base.errors import ConfigError
from experiment.base.types import Article, Question
from experiment.bench.app import command
from experiment.bench.fit.ranking_fit import (
    UNKNOWN_RULE,
    Item,
    Rankings,
    fixed_way,
    logistic_selector,
    logistic_ways,
    print_ways,
    set_counts,
)
from experiment.bench.fit.sets import OUT
from experiment.bench.harness import RESULTS_MD, ResultsMdOpt, every_nth, publish
from experiment.bench.sections import Record, measured, renders
from experiment.config import RunConfig
from experiment.corpus import load_articles, load_questions
from experiment.evaluate.drafts import (
    DERIVED_PACKAGED,
    DERIVED_SELECTOR,
    SMALL,
    derived_features,
    derived_pick,
    unknown_wins,
)
from experiment.evaluate.judge import gold_of, judge
from experiment.evaluate.proposal_pool import FORMS, is_computed, proposal_pool
from experiment.evaluate.proposals import KEEP_N
from experiment.evaluate.selector import SelectorModel, save
from experiment.generate.prompts import AUTO
from experiment.importers.service import import_dataset
from experiment.runner import BackendFactory, confirm, llama_factory, pool_scores, sample

SECTION = "derived-fit"
PROPOSAL = ("votes", "share", "proposal_score", "proposal_rank")
VARIANTS = {
    "logistic+text": PROPOSAL,
    "logistic+margin": ("score_margin", *PROPOSAL),
    "logistic+all": ("score_margin", "score_gap", "score_token", *PROPOSAL),
}
# a value no proposal gives: ranked after the kept ones, with the lowest model-free score
IMPUTE = {"proposal_rank": float(KEEP_N), "proposal_score": 0.0}
COMMAND = (
    "factqa bench fit derived PATH/TO/tatqa_dataset_dev.json PATH/TO/drop_dev.jsonl.gz --write"
)


def routed_sample(questions: Sequence[Question], n: int) -> list[Question]:
    """The questions `auto` routes to the calculation prompt, every n-th of them up to `n`."""
    return every_nth([q for q in questions if is_computed(q, AUTO)], n)


def fitting_part(
    name: str, fmt: str, source: Path, n: int
) -> tuple[RunConfig, dict[str, Article], list[Question]]:
    """A data set's fitting half, imported whole into outputs/bench/data, the small model's run
    settings over it (`auto`, its pool scores only), and its routed sample."""
    imp = import_dataset(fmt, source, OUT / "data" / f"{fmt}-fit-all", None, 0, None, True, "fit")
    articles = load_articles(imp.articles)
    cfg = RunConfig(
        articles=imp.articles,
        questions=imp.questions,
        out=OUT,
        run_id=f"{name}-derived",
        prompt=AUTO,
        drafts="small",
    )
    return cfg, articles, routed_sample(load_questions(imp.questions, articles), n)


def items_of(
    name: str,
    cfg: RunConfig,
    articles: dict[str, Article],
    questions: list[Question],
    factory: BackendFactory = llama_factory,
) -> list[Item]:
    """One fitting set's items: the small model's k samples of each question under `cfg`'s
    prompt setting, its scores of the computed pool, each candidate's features and verdict."""

    def progress(role: str, done: float, total: int) -> None:
        if int(done) % 25 == 0 and done == int(done):
            print(f"{name} {role}: {int(done)}/{total}", flush=True)

    drawn = sample(cfg, articles, questions, factory, progress, roles=("small",))
    got = pool_scores(
        cfg, articles, questions, confirm(cfg, articles, questions, drawn), factory, progress
    )
    assert got.drafts is not None, got.left_out
    out = []
    for q in questions:
        article = articles[q.article_id]
        cands = proposal_pool(q, article, got.small[q.id][: cfg.k], form=cfg.derived_text)
        drafts = got.drafts[q.id][SMALL]
        gold = gold_of(q)
        picked = derived_pick(cands, drafts).chosen
        out.append(
            Item(
                name,
                f"{name}:{q.article_id}",
                q.unanswerable,
                derived_features(cands, drafts),
                [judge(c.value, q, gold, c.text, True, c.written) for c in cands],
                unknown_wins(cands, drafts),
                None if picked is None else cands.index(picked),  # type: ignore[arg-type]
            )
        )
    return out


def _one_hot(it: Item) -> np.ndarray:
    s = np.full(len(it.features), -1.0)
    if it.rule_pick is not None:
        s[it.rule_pick] = 1.0
    return s


def fixed_scores(its: list[Item], way: str) -> Rankings:
    if way == "rule":
        return [_one_hot(it) for it in its]
    if way == "rank":
        last = IMPUTE["proposal_rank"]
        rank = [[f["proposal_rank"] for f in it.features] for it in its]
        return [np.array([-(last if r is None else r) for r in rs], dtype=float) for rs in rank]
    return [
        np.array([f["score_gap"] if f["score_gap"] is not None else -1e9 for f in it.features])
        for it in its
    ]


def cross_validate(its: list[Item]) -> dict[str, dict]:
    """Every way's per-set accuracy and mean (the logistic ones held out by passage)."""
    out = {
        "rule": fixed_way(its, fixed_scores(its, "rule"), 0.0, False),
        "rank": fixed_way(its, fixed_scores(its, "rank"), -np.inf, False),
        "logprob": fixed_way(its, fixed_scores(its, "logprob"), -np.inf, True),
    }
    folds = min(5, len({it.group for it in its}))
    return {**out, **logistic_ways(its, VARIANTS, folds, IMPUTE)}


def selector_of(
    its: list[Item], way: str, table: dict, counts: dict[str, int], form: str
) -> SelectorModel:
    """The chosen way as a shipped selector for the scored texts' `form` (`rule`: a record of
    the choice, no weights)."""
    fitted = {"questions": counts, "ways": table, "chosen": way, "command": COMMAND, "form": form}
    rule = way.endswith(UNKNOWN_RULE) or way == "logprob"
    fixed = {"rule": {}, "rank": {"proposal_rank": -1.0}, "logprob": {"score_gap": 1.0}}
    if way in fixed:
        return SelectorModel(
            DERIVED_SELECTOR,
            "rule",
            fixed[way],
            -1e9,
            impute=dict(IMPUTE) if way == "rank" else {},
            fitted={**fitted, "unknown_abstains": rule},
        )
    cols = VARIANTS[way.removesuffix(UNKNOWN_RULE)]
    return logistic_selector(its, DERIVED_SELECTOR, cols, rule, fitted, IMPUTE)


def fit(its: list[Item], form: str) -> tuple[dict[str, dict], str, SelectorModel]:
    """The ways' table, the chosen way (best cross-validated mean; the hand-set rule on a tie)
    and its selector for `form` refitted on every item."""
    table = cross_validate(its)
    chosen = max(table, key=lambda w: (table[w]["mean"], w == "rule"))
    rounded = {w: round(r["mean"], 4) for w, r in table.items()}
    return table, chosen, selector_of(its, chosen, rounded, set_counts(its), form)


@command("derived", fit=True)
def fit_derived(
    tatqa: Annotated[Path, typer.Argument(help="TAT-QA dev (tatqa_dataset_dev.json).")],
    drop: Annotated[Path, typer.Argument(help="DROP dev (drop_dev.jsonl.gz).")],
    tatqa_n: Annotated[
        int, typer.Option(help="TAT-QA fitting questions routed to the calculation prompt.", min=1)
    ] = 120,
    drop_n: Annotated[
        int, typer.Option(help="DROP fitting questions routed to the calculation prompt.", min=1)
    ] = 200,
    forms: Annotated[
        str,
        typer.Option(
            help="The scored texts' forms to compare, comma-separated: result, calculation "
            "(the selector shipped is the run's form's, RunConfig.derived_text)."
        ),
    ] = RunConfig.derived_text,
    write: Annotated[
        bool,
        typer.Option(
            "--write",
            help=f"Save the choice to {DERIVED_PACKAGED.name} and its section of docs/RESULTS.md.",
        ),
    ] = False,
    results: ResultsMdOpt = RESULTS_MD,
) -> None:
    """Fit small-text-derived@k's pick on the fitting halves of TAT-QA and DROP: the small model
    samples and scores each computed question's proposals, and the best way of picking by
    cross-validation is kept."""
    wanted = [f.strip() for f in forms.split(",") if f.strip()]
    if not wanted or set(wanted) - set(FORMS):
        raise ConfigError(f"--forms {forms}: give {' or '.join(FORMS)}", field="forms")
    parts = (("tatqa-fit", "tatqa", tatqa, tatqa_n), ("drop-fit", "drop", drop, drop_n))
    loaded = [(name, *fitting_part(name, fmt, source, n)) for name, fmt, source, n in parts]
    fits: dict[str, Fit] = {}
    for form in wanted:
        its: list[Item] = []
        for name, cfg, articles, questions in loaded:
            its += items_of(name, replace(cfg, derived_text=form), articles, questions)
        table, chosen, model = fit(its, form)
        fits[form] = Fit(table, chosen, model, set_counts(its))
        print(f"scored texts: {form}")
        print_ways(table, list(set_counts(its)))
        print(f"chosen: {chosen} (cross-validated mean {table[chosen]['mean']:.3f})")
    shipped = fits.get(RunConfig.derived_text)
    if shipped is not None:
        weights = {"weights": shipped.model.weights, "threshold": shipped.model.threshold}
        print(json.dumps(weights, indent=1))
    if write:
        if shipped is None:
            raise ConfigError(
                f"--write ships the run's form's selector: add {RunConfig.derived_text} to --forms",
                field="forms",
            )
        save(shipped.model, DERIVED_PACKAGED)
        print(f"wrote {DERIVED_PACKAGED}")
        command = COMMAND + ("" if wanted == [RunConfig.derived_text] else f" --forms {forms}")
        publish(results, measured(SECTION, command, figures(fits)))


@dataclass(frozen=True)
class Fit:
    """One form's fit: its ways' accuracies (`cross_validate`), the chosen way, the selector
    refitted on every item, and the questions per set."""

    table: dict[str, dict]
    chosen: str
    model: SelectorModel
    counts: dict[str, int]

    @property
    def mean(self) -> float:
        return float(self.table[self.chosen]["mean"])


def figures(fits: dict[str, Fit]) -> dict:  # type: ignore[type-arg]
    """The record's figures: per form, each way's accuracies, the choice and its weights."""
    return {
        "forms": {
            form: {
                "ways": {w: {"sets": r["sets"], "mean": r["mean"]} for w, r in f.table.items()},
                "chosen": f.chosen,
                "counts": f.counts,
                "weights": f.model.weights,
                "threshold": f.model.threshold,
            }
            for form, f in fits.items()
        }
    }


def compact(forms: dict[str, dict]) -> list[str]:  # type: ignore[type-arg]
    """The ways' table, one row a way, for each form two columns: each set's accuracy and their
    mean for the way as it is (`rule` and `logprob` abstain where "unknown" wins, the others
    not), and a logistic way's mean with "unknown" abstaining."""
    first = next(iter(forms.values()))
    sets = list(first["counts"])
    head = ["way"]
    for form in forms:
        head += [f"{form}: {' / '.join(sets)} / mean", f"{form}, unknown abstains"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for way in (w for w in first["ways"] if not w.endswith(UNKNOWN_RULE)):
        cells = [way]
        for f in forms.values():
            row, ruled = f["ways"][way], f["ways"].get(way + UNKNOWN_RULE)
            cells.append(
                " / ".join(f"{row['sets'][s]:.3f}" for s in sets) + f" / {row['mean']:.3f}"
            )
            cells.append("—" if ruled is None else f"{ruled['mean']:.3f}")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


@renders(SECTION, "fitted")
def section(record: Record) -> str:
    """docs/RESULTS.md's `derived-fit` section: each form's ways, the choice and its weights."""
    forms = record.figures["forms"]
    first = next(iter(forms.values()))
    sets = ", ".join(f"{name} {n}" for name, n in first["counts"].items())
    tables = "\n".join(compact(forms))
    shipped = forms[RunConfig.derived_text]
    weights = ", ".join(f"`{f}` {w:+.2f}" for f, w in shipped["weights"].items()) or "none"
    means = {form: f["ways"][f["chosen"]]["mean"] for form, f in forms.items()}
    better = max(means, key=lambda form: means[form])
    compared = (
        f" Of the forms compared, **{better}** picks best on the fitting halves "
        f"({', '.join(f'{form} {mean:.3f}' for form, mean in means.items())})."
        if len(forms) > 1
        else ""
    )
    return f"""## small-text-derived@k's pick: fitted on the fitting halves (issue 40)

Command: `{record.command}` (commit `{record.commit}`, {record.date}; the small model samples
and scores the questions `auto` routes to the calculation prompt: {sets}). Accuracy of each way
of picking, each form of the scored texts (`rule` and `logprob` abstain where "unknown" is more
probable than every candidate; the logistic ones cross-validated by passage):

{tables}

Shipped for the run's form ({RunConfig.derived_text}): **{shipped["chosen"]}** (standardised
weights: {weights}; threshold {shipped["threshold"]:.2f}), as
experiment/evaluate/{DERIVED_PACKAGED.name}.{compared}"""
