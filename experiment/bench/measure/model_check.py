"""What the small model's own check of its confirmed candidates adds to the selector, measured on
the fitting half of SQuAD (never on a reported sample).

    factqa bench model-check SQUAD_V1_DEV_JSON SQUAD_V2_DEV_JSON [--write]

The selector already reads the small model's view at no extra decoding: the log-probability of
each candidate's sampled text (`logprob`, experiment/evaluate/features.py). Issue 14 proposed two
checks that cost a second call; this script builds both and measures them:

- **choice**: the sampling prompt (same system prompt and article, so a run right after sampling
  would reuse the article's KV prefix) with the question's distinct confirmed answers listed as
  they were written, "or none of them"; greedy. The candidate its reply gives is `chosen`.
- **check**: one short prompt per candidate showing only its evidence sentence, the question and
  the candidate, "yes or no"; greedy. P(yes) is the reply's probability when it says yes, one
  minus it when it says no.

Questions: the selector's fitting set (`experiment/bench/fit/sets.py`) with at least two distinct
confirmed candidates, where the ranking decides the answer. For each way of ranking, the share of
those questions whose top candidate is right: the vote, `support`, the selector's out-of-fold
ranking (logistic regression, 5 folds grouped by title, as `factqa bench fit selector`) with and
without the check as a feature, and the check alone. Costs: the model's seconds per question for
each check, against the seconds its ten samples took. Generations go through the benchmarks' cache
(outputs/bench/.cache), so a second run replays them. With `--write`, writes the `model-check`
section of docs/RESULTS.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from experiment.base.types import Article, Generation, Question
from experiment.bench.app import command
from experiment.bench.fit.sets import OUT, fitting_samples, fitting_sets
from experiment.bench.harness import RESULTS_MD, SquadV1Arg, SquadV2Arg, WriteOpt, finish
from experiment.bench.sections import Record, measured, renders
from experiment.config import RunConfig
from experiment.evaluate.answer import Answer
from experiment.evaluate.features import FEATURES, ConfirmedAnswer, candidates
from experiment.evaluate.judge import gold_of, sample_right
from experiment.evaluate.selector import out_of_fold
from experiment.evaluate.vote import same_answer
from experiment.generate.cache import GenerationCache, cache_key
from experiment.generate.models.base import Backend, Messages, SamplingParams
from experiment.generate.prompts import messages_for
from experiment.report.tables import markdown_table
from experiment.runner import llama_factory
from experiment.verify.answer import confirm_text

RESULTS = RESULTS_MD
SECTION = "model-check"
ANY = "any candidate right (a perfect ranking)"
VOTE = "the vote (most confirmed samples)"
BASE = "selector features, out of fold"
WITH_CHOICE = "selector features + choice, out of fold"
WITH_YES = "selector features + P(yes), out of fold"
CHOICE = SamplingParams(temperature=0.0, top_p=1.0, top_k=1, max_tokens=24)
YES_NO = SamplingParams(temperature=0.0, top_p=1.0, top_k=1, max_tokens=2)
CHECK_SYSTEM = "You check answers to questions against one sentence of an article. Reply yes or no."
COMMAND = "factqa bench model-check PATH/TO/dev-v1.1.json PATH/TO/dev-v2.0.json --write"


def choice_messages(article: Article, q: Question, options: list[str]) -> Messages:
    """The sampling prompt with the candidates listed before the closing instruction."""
    messages = messages_for(article, q)
    listed = "; ".join(options)
    messages[-1]["content"] = messages[-1]["content"].replace(
        "\nAnswer with the figure or date only.",
        f"\nThe answer is one of these, or none of them: {listed}\n"
        "Answer with the figure or date only.",
    )
    return messages


def check_messages(sentence: str, q: Question, answer: str) -> Messages:
    return [
        {"role": "system", "content": CHECK_SYSTEM},
        {
            "role": "user",
            "content": (
                f"Sentence: {sentence}\n\nQuestion: {q.text}\nProposed answer: {answer}\n"
                "Does the sentence give this as the answer to the question? Reply yes or no."
            ),
        },
    ]


def p_yes(g: Generation) -> float:
    p = math.exp(g.logprob) if g.logprob is not None else 0.5
    word = g.text.strip().lower()
    return p if word.startswith("yes") else 1 - p if word.startswith("no") else 0.5


@dataclass
class Asked:
    """One fitting question with two or more confirmed candidates, and what each check said."""

    question: str
    cluster: str
    right: list[bool]
    features: list[dict[str, float | None]]
    chosen: list[float] = field(default_factory=list)
    yes: list[float] = field(default_factory=list)
    sampling_s: float = 0.0
    choice_s: float = 0.0
    check_s: float = 0.0


class CachedModel:
    """The small model behind the generation cache, greedy, one seed."""

    def __init__(self, backend: Backend, cache: GenerationCache) -> None:
        self.backend, self.cache = backend, cache

    def __call__(self, messages: Messages, params: SamplingParams) -> Generation:
        key = cache_key(self.backend.fingerprint, messages, params, 0, self.backend.setup)
        found = self.cache.get(key)
        if found is None:
            found = self.backend.generate(messages, params, [0])[0]
            self.cache.put_many(self.backend.name, [(key, found)])
        return found


def ask(
    model: Callable[[Messages, SamplingParams], Generation],
    q: Question,
    article: Article,
    small: list[Answer],
    cands: list[ConfirmedAnswer],
) -> Asked:
    gold = gold_of(q)
    shown = [small[c.index] for c in cands]
    out = Asked(
        question=q.id,
        cluster=q.cluster,
        right=[sample_right(s, q, gold) for s in shown],
        features=[c.features for c in cands],
        sampling_s=sum(s.attempt.seconds for s in small),
    )
    g = model(choice_messages(article, q, [s.attempt.answer for s in shown]), CHOICE)
    best = confirm_text(g.text, article.text, q.text, q.kind).best
    out.chosen = [float(best is not None and same_answer(best.value, c.value)) for c in cands]
    out.choice_s = g.seconds
    for c, s in zip(cands, shown, strict=True):
        start, end = c.sentence
        g = model(check_messages(article.text[start:end].strip(), q, s.attempt.answer), YES_NO)
        out.yes.append(p_yes(g))
        out.check_s += g.seconds
    return out


def top_right(asked: list[Asked], scores: list[list[float]]) -> int:
    """Questions whose highest-scored candidate is right (ties: the earliest, as the selector)."""
    return sum(a.right[int(np.argmax(s))] for a, s in zip(asked, scores, strict=True))


def feature(asked: list[Asked], name: str) -> list[list[float]]:
    """One score per candidate: a selector feature, or `chosen` / `yes` from the checks."""
    if name in ("chosen", "yes"):
        return [getattr(a, name) for a in asked]
    return [[f[name] or 0.0 for f in a.features] for a in asked]


def ranked_oof(asked: list[Asked], extra: str | None) -> list[list[float]]:
    """Out-of-fold probabilities of the selector's features (plus `extra`) over these questions."""
    names = [*FEATURES, *([extra] if extra else [])]
    x = np.column_stack([np.concatenate(feature(asked, n)) for n in names])
    y = np.array([r for a in asked for r in a.right], dtype=int)
    groups = np.array([a.cluster for a in asked for _ in a.right])
    flat = out_of_fold(x, y, groups)
    ends = np.cumsum([len(a.right) for a in asked])[:-1]
    return [list(part) for part in np.split(flat, ends)]


def _run(squad_v1: Path, squad_v2: Path, limit: int, write: bool) -> None:

    cfg = RunConfig()
    sets = fitting_sets(squad_v1, squad_v2)  # the data read (or refused) first
    cache = GenerationCache(OUT / ".cache" / "generations.sqlite")
    model = CachedModel(llama_factory(cfg.small, cfg), cache)
    asked: list[Asked] = []
    try:
        for _, articles, questions, small in fitting_samples(sets):
            for q in questions:
                cands = candidates(q, articles[q.article_id], small[q.id])
                if len(cands) >= 2 and not (limit and len(asked) >= limit):
                    asked.append(ask(model, q, articles[q.article_id], small[q.id], cands))
    finally:
        cache.close()

    n = len(asked)
    figures = {
        "questions": n,
        "right_first": {
            name: top_right(asked, scores())
            for name, scores in (
                (ANY, lambda: [[float(r) for r in a.right] for a in asked]),
                (VOTE, lambda: feature(asked, "votes")),
                ("support", lambda: feature(asked, "support")),
                (BASE, lambda: ranked_oof(asked, None)),
                ("choice alone (the named candidate)", lambda: feature(asked, "chosen")),
                (WITH_CHOICE, lambda: ranked_oof(asked, "chosen")),
                ("check alone (P(yes))", lambda: feature(asked, "yes")),
                (WITH_YES, lambda: ranked_oof(asked, "yes")),
            )
        },
        "seconds": {
            "sampling": sum(a.sampling_s for a in asked) / n,
            "choice": sum(a.choice_s for a in asked) / n,
            "check": sum(a.check_s for a in asked) / n,
        },
        "said_none": sum(not any(a.chosen) for a in asked),
    }
    record = measured(SECTION, COMMAND, figures)
    finish(RESULTS, record, write)


def line(f: dict[str, Any]) -> str:
    """The machine-readable line."""
    n, right, t = f["questions"], f["right_first"], f["seconds"]
    return (
        f"model_check_questions={n} oof_base={right[BASE] / n:.3f} "
        f"oof_choice={right[WITH_CHOICE] / n:.3f} oof_yes={right[WITH_YES] / n:.3f} "
        f"choice_over_sampling={t['choice'] / t['sampling']:.2f} "
        f"check_over_sampling={t['check'] / t['sampling']:.2f}"
    )


@renders(SECTION, "fitted")
def section(record: Record) -> str:
    """docs/RESULTS.md's `model-check` section from its record."""
    f = record.figures
    n, right, t = f["questions"], f["right_first"], f["seconds"]
    sampling, choice, check = t["sampling"], t["choice"], t["check"]
    table = markdown_table(
        ["ranking", "right first", "share"], [[k, v, f"{v / n:.3f}"] for k, v in right.items()]
    )
    return "\n".join(
        [
            "## The small model's own check: measured on the fitting half",
            "",
            f"Command: `{record.command}` (commit `{record.commit}`, {record.date}). Questions: "
            f"the {n} fitting-half questions (SQuAD v1.1 and v2.0 dev, fitting titles; "
            "`experiment/bench/fit/sets.py`) with two or more distinct confirmed candidates, "
            "where the ranking decides the answer. How often each way of ranking puts a right "
            "candidate first:",
            "",
            *table,
            "",
            f"The choice prompt named none of the candidates on {f['said_none']} of the {n} "
            f"questions. Cost per question, model seconds on this machine: choice {choice:.2f} "
            f"s, check {check:.2f} s (all its candidates), against {sampling:.2f} s for the ten "
            f"samples as recorded when they were drawn, in an earlier run "
            f"({choice / sampling:.2f}x and {check / sampling:.2f}x; the choice prompt read the "
            "whole article here, since the samples came from the cache; in a run right after "
            "sampling it would reuse the article's KV prefix).",
            "",
            "Adding either check to the selector's features moves its out-of-fold ranking by "
            f"{right[WITH_CHOICE] - right[BASE]:+d} and {right[WITH_YES] - right[BASE]:+d} "
            f"questions of {n}; the vote puts a right candidate first on {right[VOTE]}. A run "
            "keeps the free log-probability feature and neither check.",
            "",
            f"`{line(f)}`",
        ]
    )


@command("model-check")
def model_check_command(
    squad_v1: SquadV1Arg,
    squad_v2: SquadV2Arg,
    limit: Annotated[
        int, typer.Option(help="At most this many questions (smoke runs).", min=0)
    ] = 0,
    write: WriteOpt = False,
) -> None:
    """What the small model's own check of its confirmed candidates adds to the selector,
    measured on the fitting half of SQuAD (never on a reported sample)."""
    _run(squad_v1, squad_v2, limit, write)
