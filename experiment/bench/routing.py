"""How well the `auto` prompt's rule routes computed questions (`question_kind.asks_computation`).

    factqa bench routing PATH/TO/drop_dev.jsonl.gz PATH/TO/tatqa_dataset_dev.json

For the fitting and the evaluation part of each data set (importers/split.py; the rule was
written from the fitting parts only), the importer's sample of 200 figure/date questions, seed 0:
how many questions the importer marks computed, and the rule's recall (computed questions sent
to the `calc` prompt) and precision (questions sent there that are computed). No model runs.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated

import typer

from experiment.bench.app import command
from experiment.corpus import load_articles, load_questions
from experiment.importers.service import import_dataset
from experiment.values.question_kind import asks_computation


def routed(fmt: str, source: Path, half: str, out: Path) -> tuple[int, int, int, int]:
    """(questions, computed, routed, routed and computed) of one part's sample."""
    imported = import_dataset(fmt, source, out / f"{fmt}-{half}", 200, 0, None, True, half)
    qs = load_questions(imported.questions, load_articles(imported.articles))
    computed = [q for q in qs if q.computed]
    sent = [q for q in qs if asks_computation(q.text)]
    both = [q for q in sent if q.computed]
    return len(qs), len(computed), len(sent), len(both)


@command("routing")
def routing(
    drop: Annotated[Path, typer.Argument(help="DROP dev (drop_dev.jsonl.gz).")],
    tatqa: Annotated[Path, typer.Argument(help="TAT-QA dev (tatqa_dataset_dev.json).")],
) -> None:
    """How well the `auto` prompt's rule routes computed questions: recall and precision on
    each part of DROP and TAT-QA (no model)."""
    print("| data set | part | questions | computed | sent to calc | recall | precision |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        for fmt, source in (("drop", drop), ("tatqa", tatqa)):
            for half in ("fit", "eval"):
                n, computed, sent, both = routed(fmt, source, half, Path(tmp))
                recall = both / computed if computed else float("nan")
                precision = both / sent if sent else float("nan")
                print(
                    f"| {fmt} | {half} | {n} | {computed} | {sent} | {recall:.2f} | "
                    f"{precision:.2f} |"
                )
