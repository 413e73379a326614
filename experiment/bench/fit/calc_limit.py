"""`factqa bench fit calc-limit`: the calculation prompt's token limit, fitted on the fitting
halves.

    factqa bench fit calc-limit PATH/TO/drop_dev.jsonl.gz PATH/TO/tatqa_dataset_dev.json [--write]

The large model answers, greedy and under the calculation prompt with a generous limit
(`CEILING` tokens), every `n`-th of the questions of DROP's fitting half and TAT-QA's fitting
part that `auto` routes to the calculation prompt (`proposal_pool.is_computed`). For each
candidate limit in `LIMITS` it counts the answers whose length reaches it (they would be cut
there). The limit chosen is the smallest whose share is at most `SHARE`; it is shipped as
`generate/prompts.CALC_MAX_TOKENS` (a test checks the two agree). No evaluation sample is read.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated

import typer

from experiment.base.errors import InputError
from experiment.base.types import Article, Question
from experiment.bench.app import command
from experiment.bench.harness import RESULTS_MD, ResultsMdOpt, WriteOpt, every_nth, publish
from experiment.bench.sections import Record, measured, renders
from experiment.config import RunConfig
from experiment.corpus import load_articles, load_questions
from experiment.evaluate.proposal_pool import is_computed
from experiment.generate.models.base import GREEDY
from experiment.generate.prompts import AUTO, CALC_MAX_TOKENS
from experiment.generate.sampling import sample_question
from experiment.importers.service import import_dataset

SECTION = "calc-limit"
LIMITS = (32, 48, 64, 96, 128)
CEILING = 160  # above every candidate: an answer that reaches it is cut at every limit
SHARE = 0.01
COMMAND = (
    "factqa bench fit calc-limit PATH/TO/drop_dev.jsonl.gz PATH/TO/tatqa_dataset_dev.json --write"
)


def routed(fmt: str, data: Path, tmp: Path, n: int) -> tuple[dict[str, Article], list[Question]]:
    """`n` of the fitting half's questions that `auto` routes to the calculation prompt, spread
    evenly (`harness.every_nth`), with their articles."""
    got = import_dataset(fmt, data, tmp / fmt, None, 0, None, True, "fit")
    articles = load_articles(got.articles)
    questions = [q for q in load_questions(got.questions, articles) if is_computed(q, AUTO)]
    return articles, every_nth(questions, n)


def choose(lengths: list[int]) -> tuple[int | None, dict[int, float]]:
    """The smallest limit of `LIMITS` that at most `SHARE` of the answers reach (None: none
    does), and each limit's share."""
    shares = {lim: sum(n >= lim for n in lengths) / len(lengths) for lim in LIMITS}
    fits = [lim for lim, share in shares.items() if share <= SHARE]
    return (fits[0] if fits else None), shares


@command(SECTION, fit=True)
def calc_limit(
    drop: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="DROP dev.")],
    tatqa: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="TAT-QA dev.")],
    n: Annotated[int, typer.Option(help="Questions of each fitting half.", min=1)] = 40,
    write: WriteOpt = False,
    results_md: ResultsMdOpt = RESULTS_MD,
) -> None:
    """Fit the calculation prompt's token limit on the fitting halves (the large model answers)."""
    from experiment.cli import _factory

    cfg = RunConfig(prompt=AUTO)
    lengths: dict[str, list[int]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        parts = [  # both files read (or refused) before the model loads
            (name, *routed(fmt, data, Path(tmp), n))
            for name, fmt, data in (("drop-fit", "drop", drop), ("tatqa-fit", "tatqa", tatqa))
        ]
        for (_, _, questions), data in zip(parts, (drop, tatqa), strict=True):
            if not questions:
                raise InputError(
                    "no fitting question that asks for a computation",
                    path=data,
                    fix="give DROP dev and TAT-QA dev, in that order",
                )
        backend = _factory()(cfg.large, cfg)
        for name, articles, questions in parts:
            got = lengths.setdefault(name, [])
            for q in questions:
                (s,) = sample_question(
                    backend, articles[q.article_id], q, 1, GREEDY, cfg.seed, None, prompt=AUTO,
                    calc_max_tokens=CEILING,
                )  # fmt: skip
                got.append(s.generation.completion_tokens)
            print(f"{name}: {len(got)} answers, longest {max(got, default=0)} tokens")
    every = [x for v in lengths.values() for x in v]
    chosen, shares = choose(every)
    for lim, share in shares.items():
        print(f"limit {lim}: {share:.1%} of {len(every)} answers reach it")
    print(f"chosen: {chosen} (shipped: {CALC_MAX_TOKENS})")
    if write:
        figures = {"lengths": lengths, "chosen": chosen, "ceiling": CEILING, "share": SHARE,
                   "model": backend.name}  # fmt: skip
        publish(results_md, measured(SECTION, COMMAND, figures))


@renders(SECTION, "fitted")
def section(record: Record) -> str:
    """docs/RESULTS.md's `calc-limit` section from its record."""
    f = record.figures
    _, shares = choose([x for v in f["lengths"].values() for x in v])
    said = ", ".join(f"{lim} {share:.1%}" for lim, share in shares.items())
    parts = ", ".join(f"{name} {len(v)}" for name, v in f["lengths"].items())
    return f"""## The calculation prompt's token limit

Command: `{record.command}` ({f["model"]} answers; about half an hour on 2 CPU cores). Commit \
`{record.commit}`, {record.date}. The large model answers the fitting halves' questions that \
`auto` routes to the calculation prompt ({parts}), greedy, with a limit of {f["ceiling"]} \
tokens; an answer that reaches a limit would be cut there. The share that reaches each limit: \
{said}. The limit shipped (`RunConfig.calc_max_tokens`) is the smallest that at most \
{f["share"]:.0%} reach: **{f["chosen"]}**."""
