"""The fitting set every choice is made on (never a reported sample): 400 SQuAD v1.1 and 50
answerable + 100 unanswerable SQuAD v2.0 questions of the fitting titles
(experiment/importers/split.py), and, where TAT-QA dev is given, 120 stated questions of its
fitting half (table uids) with 40 unanswerable ones made from them by asking for a year the
context lacks (experiment/importers/unanswerable.py); with the small model's ten confirmed samples
per question.

Used by `factqa bench fit selector`, `factqa bench fit stopping`, `factqa bench fit excerpt` and
`factqa bench model-check`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from experiment.base.types import Article, Question
from experiment.config import PROJECT_ROOT, RunConfig
from experiment.evaluate.answer import Answer
from experiment.generate.windows import ARTICLE
from experiment.importers.service import ImportResult, import_dataset
from experiment.runner import small_samples

OUT = PROJECT_ROOT / "outputs" / "bench"
# name, answerable sample, unanswerable sample
SETS = (("squad-v1-fit", 400, None), ("squad-v2-fit", 50, 100))
TATQA_SET = ("tatqa-fit", 120, 40)


def fitting_sets(v1: Path, v2: Path, tatqa: Path | None = None) -> list[tuple[str, ImportResult]]:
    """The fitting questions of SQuAD v1.1 and v2.0 dev, and of TAT-QA dev when given, imported
    (once) into outputs/bench/data."""
    sets = [
        (name, import_dataset("squad", src, OUT / "data" / name, n, 0, unans, True, "fit"))
        for (name, n, unans), src in zip(SETS, (v1, v2), strict=True)
    ]
    if tatqa is not None:
        name, n, unans = TATQA_SET
        imp = import_dataset(
            "tatqa", tatqa, OUT / "data" / name, n, 0, unans, True, "fit", True, stated_only=True
        )
        sets.append((name, imp))
    return sets


def fitting_samples(
    sets: list[tuple[str, ImportResult]], reading: str = ARTICLE
) -> Iterator[tuple[str, dict[str, Article], list[Question], dict[str, list[Answer]]]]:
    """Each fitting set's name, articles, questions and the small model's confirmed samples
    (reading `reading`), through the shared generation cache of outputs/bench."""
    for name, imp in sets:
        run_id = name if reading == ARTICLE else f"{name}-{reading.replace(':', '')}"
        cfg = RunConfig(
            articles=imp.articles,
            questions=imp.questions,
            out=OUT,
            run_id=run_id,
            small_context=reading,
        )
        yield (name, *small_samples(cfg))
