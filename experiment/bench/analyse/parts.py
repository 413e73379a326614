"""A run's figures on each questions file of its corpus apart (the bundled corpus: its original
150 questions, the table questions, the computed ones), so that runs before and after a corpus
grew compare on the same questions.

    factqa bench parts RUN_DIR [--questions QUESTIONS_DIR]

Prints a Markdown table: per file, its questions, unanswerable ones, each headline method's
accuracy, the accuracy on answerable questions, the unanswerable questions a method abstained
on, and where the gold was when small-selected@k kept a wrong figure (blindspots.csv's
`gold_status`: sampled and confirmed but ranked lower, sampled but not confirmed, not sampled).
"""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer

from experiment.base.errors import InputError
from experiment.bench.app import command
from experiment.bench.harness import ROOT
from experiment.bench.looks import evaluation_run
from experiment.evaluate.methods import LARGE_1, PASS, ROUTED, SELECTED, VERIFIED


@command("parts")
def parts(
    run_dir: Annotated[Path, typer.Argument(metavar="RUN", help="A finished run folder.")],
    questions: Annotated[
        Path, typer.Option(help="The questions files' folder.", show_default="questions")
    ] = ROOT / "questions",
) -> None:
    """A run's figures on each questions file of its corpus apart, so that runs before and after
    a corpus grew compare on the same questions."""
    files = _question_files(questions)
    run = evaluation_run(run_dir)
    k = run.manifest.config.k
    methods = [m.name(k) for m in (LARGE_1, VERIFIED, SELECTED, PASS, ROUTED[1])]
    q = run.questions
    spots = run.blindspots
    print("| file | questions | unanswerable | " + " | ".join(methods) + " |")
    print("| --- | ---: | ---: | " + " | ".join("---:" for _ in methods) + " |")
    notes = []
    for file, ids in files.items():
        part = q[q.question_id.isin(ids)]
        if part.empty:
            continue
        unanswerable = part.gold.eq("unanswerable")
        cells = [f"{part[f'{m}.correct'].mean():.3f}" for m in methods]
        print(
            f"| {file.name} | {len(part)} | {int(unanswerable.sum())} | " + " | ".join(cells) + " |"
        )
        answerable = part[~unanswerable]
        abstained = {m: int(part[unanswerable][f"{m}.abstained"].sum()) for m in methods}
        wrong = spots[(spots.method == SELECTED.name(k)) & spots.question_id.isin(ids)]
        where = Counter(wrong.gold_status) if not wrong.empty else Counter()
        notes.append(
            f"- {file.name}: answerable {len(answerable)}: "
            + ", ".join(f"{m} {answerable[f'{m}.correct'].mean():.3f}" for m in methods)
            + f"; unanswerable abstained on (of {int(unanswerable.sum())}): "
            + ", ".join(f"{m} {n}" for m, n in abstained.items())
            + f"; {SELECTED.name(k)} wrong, where the gold was: "
            + (", ".join(f"{s} {n}" for s, n in where.most_common()) or "none")
        )
    if not notes:
        raise InputError(
            f"none of the run's questions is in a questions file of {questions}",
            path=questions,
            fix="give --questions the folder of the corpus the run read",
        )
    print()
    print("\n".join(notes))


def _question_files(folder: Path) -> dict[Path, set[str]]:
    """Each questions file of `folder` with its ids; an `InputError` naming the folder or file
    where there is none, or a file has no 'id' column."""
    fix = "give --questions a folder of questions CSV files (a column 'id')"
    if not folder.is_dir():
        raise InputError("no such questions folder", path=folder, fix=fix)
    out = {}
    for file in sorted(folder.glob("*.csv")):
        try:
            with file.open(encoding="utf-8", newline="") as f:
                reader = csv.DictReader(f)
                if "id" not in (reader.fieldnames or []):
                    raise InputError.missing_columns(["id"], file, fix)
                out[file] = {row["id"] for row in reader}
        except (UnicodeDecodeError, csv.Error) as e:
            raise InputError(f"not a UTF-8 CSV file ({e})", path=file, fix=fix) from None
    if not out:
        raise InputError("no questions CSV file in the folder", path=folder, fix=fix)
    return out
