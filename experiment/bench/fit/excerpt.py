"""Choose how many sentences the small model reads, on the fitting half of SQuAD (never on a
reported sample).

    factqa bench fit excerpt SQUAD_V1_DEV_JSON SQUAD_V2_DEV_JSON [--grid 2,3,4] [--write]

The questions are the selector's fitting set (`factqa bench fit selector`: 400 SQuAD v1.1 and 150
SQuAD v2.0 questions of the fitting titles). For each N of the grid the small model draws its ten
samples reading only the N sentences closest to the question (`--small-context excerpt:N`, the
same code path as `factqa run`); the whole passage is the reference (the samples the selector
was fitted on, from the cache). Kept: the fewest sentences whose small-verified@10 and
small-selected@10 both stay within 1 point of reading the whole passage. Prints the grid and the
choice, with the prompt tokens the small model read per question and the share of questions
whose gold answer is written in the excerpt, and with `--write` writes them to the `excerpt-fit`
section of docs/RESULTS.md.
"""

from __future__ import annotations

from typing import Annotated

import typer

from experiment.base.errors import ConfigError
from experiment.bench.app import command
from experiment.bench.fit.sets import fitting_samples, fitting_sets
from experiment.bench.harness import (
    RESULTS_MD,
    ResultsMdOpt,
    SquadV1Arg,
    SquadV2Arg,
    WriteOpt,
    finish,
)
from experiment.bench.sections import Record, measured, renders
from experiment.evaluate.methods import PASS, SELECTED, VERIFIED, answer_methods
from experiment.generate.windows import ARTICLE
from experiment.report.tables import markdown_table

SECTION = "excerpt-fit"

TOLERANCE = 0.01
K = 10
METHODS = tuple(m.name(K) for m in (VERIFIED, SELECTED, PASS))


def measure(sets: list, reading: str) -> dict[str, float]:
    """Accuracy of each method, prompt tokens per question and gold-in-excerpt share."""
    right = dict.fromkeys(METHODS, 0)
    tokens = shown = n = 0
    for _, articles, questions, small in fitting_samples(sets, reading):
        for q in questions:
            samples = small[q.id]
            got = answer_methods(q, samples, samples[0], K, articles[q.article_id])
            for m in METHODS:
                right[m] += got[m].correct
            tokens += samples[0].attempt.prompt_tokens
            shown += q.unanswerable or _gold_shown(q, articles, reading)
            n += 1
    out = {m: right[m] / n for m in METHODS}
    out.update(tokens=tokens / n, shown=shown / n, n=n)
    return out


def _gold_shown(q, articles, reading: str) -> bool:  # type: ignore[no-untyped-def]
    """Whether a gold answer is written in what the small model read (the fitting half only)."""
    from experiment.generate.windows import excerpt, parse_reading

    article = articles[q.article_id]
    n = parse_reading(reading).excerpt
    shown = excerpt(article.text, q.text, n, None, len) if n else None
    text = shown.text if shown else article.text
    return any(g.lower() in text.lower() for g in q.gold)


def sentence_counts(grid: str) -> list[int]:
    """The grid's sentence counts, largest first; a `ConfigError` naming --grid where one is not
    a whole number of at least 1."""
    try:
        sizes = sorted({int(x) for x in grid.split(",") if x.strip()}, reverse=True)
    except ValueError:
        sizes = []
    if not sizes or sizes[-1] < 1:
        raise ConfigError(
            f"--grid '{grid}' is not a list of sentence counts",
            field="grid",
            allowed="whole numbers of at least 1, comma-separated (e.g. 2,3,4)",
        )
    return sizes


@command("excerpt", fit=True)
def fit_excerpt(
    squad_v1: SquadV1Arg,
    squad_v2: SquadV2Arg,
    grid: Annotated[str, typer.Option(help="Sentence counts to try.")] = "2,3,4",
    results: ResultsMdOpt = RESULTS_MD,
    write: WriteOpt = False,
) -> None:
    """Choose how many sentences the small model reads, on the fitting half of SQuAD (never on
    a reported sample); with --write, writes the `excerpt-fit` section of docs/RESULTS.md."""
    sizes = sentence_counts(grid)
    imports = fitting_sets(squad_v1, squad_v2)
    base = measure(imports, ARTICLE)
    rows = [{"reads": ARTICLE, **base}]
    chosen = ARTICLE
    for n in sizes:
        got = measure(imports, f"excerpt:{n}")
        rows.append({"reads": f"excerpt:{n}", **got})
        print(f"excerpt:{n}: " + ", ".join(f"{m} {got[m]:.3f}" for m in METHODS), flush=True)
        if all(got[m] >= base[m] - TOLERANCE for m in METHODS[:2]):
            chosen = f"excerpt:{n}"
    figures = {"grid": grid, "k": K, "tolerance": TOLERANCE, "rows": rows, "chosen": chosen}
    command_line = (
        f"factqa bench fit excerpt PATH/TO/dev-v1.1.json PATH/TO/dev-v2.0.json --grid {grid} "
        "--write"
    )
    finish(results, measured(SECTION, command_line, figures), write)
    print(f"chosen={chosen}")


@renders(SECTION, "fitted")
def section(record: Record) -> str:
    """docs/RESULTS.md's `excerpt-fit` section from its record."""
    f = record.figures
    base, *_ = f["rows"]
    methods = [m for m in METHODS if m in base]

    def row(got: dict) -> list[str]:  # type: ignore[type-arg]
        label = "whole passage" if got["reads"] == ARTICLE else f"`{got['reads']}`"
        cells = [f"{got[m]:.3f} ({got[m] - base[m]:+.3f})" for m in methods]
        return [label, f"{got['tokens']:.0f}", f"{got['shown']:.1%}", *cells]

    header = ["small model reads", "prompt tokens per question", "gold in what it read", *methods]
    table = "\n".join(markdown_table(header, [row(r) for r in f["rows"]]))
    return f"""## Reading an excerpt: choosing the sentences on the fitting half

Command: `{record.command}`. Commit `{record.commit}`, {record.date}. {base["n"]} questions of \
the fitting titles (the selector's fitting set), ten samples each, the small model reading the \
whole passage or only the N sentences closest to the question (TF-IDF cosine, in article \
order); answers are verified against the whole passage either way. Kept: the fewest sentences \
with {methods[0]} and {methods[1]} both within {f["tolerance"] * 100:.0f} point of the whole \
passage. "Gold in what it read": a gold answer is written in the text the small model was \
shown (unanswerable questions count as shown).

{table}

Chosen: `{f["chosen"]}`."""
