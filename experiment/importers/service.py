"""`import_dataset`: read, filter, sample and write, refusing to mix with an earlier import."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from experiment.base.errors import InputError
from experiment.base.files import Ledger, safe_name, sha256_file
from experiment.importers.layout import ImportStats, safe_id, select, write_layout
from experiment.importers.looked import dataset_of, mark
from experiment.importers.readers import read_dataset
from experiment.importers.split import Half
from experiment.importers.unanswerable import other_year_questions


@dataclass(frozen=True)
class ImportResult:
    articles: Path
    questions: Path
    stats: ImportStats


def _nothing_found(source: Path, stats: ImportStats) -> InputError:
    """The refusal of a file without one question to keep, naming the first refused record."""
    message = "no figure or date questions found"
    if stats.first_at:
        reason, where = next(iter(stats.first_at.items()))
        message += f"; skipped {stats.refused} records, the first at {where}: {reason}"
    return InputError(message, path=source, fix="check the file and the format")


def import_dataset(
    fmt: str,
    source: Path,
    out: Path,
    sample: int | None = None,
    seed: int = 0,
    unanswerable: int | None = None,
    overwrite: bool = False,
    half: Half | None = None,
    other_years: bool = False,
    stated_only: bool = False,
    ids: frozenset[str] | None = None,
) -> ImportResult:
    """Import `source` into `out/articles` and `out/questions/<fmt>.csv`.

    Everything is read and validated before anything is written; an existing import in `out` is
    replaced only with `overwrite`, so two samples never mix in one folder. `other_years` adds
    the unanswerable questions of `experiment.importers.unanswerable` to the source's own;
    `stated_only` leaves out the questions whose gold is computed; `ids` keeps only the
    questions of those ids (a sealed sample: `bench/sealed.py`). Reading an evaluation-half,
    whole or sealed sample marks it as looked at (`importers/looked.py`).
    """
    for value, name in ((sample, "--sample"), (unanswerable, "--unanswerable")):
        if value is not None and value < 1:
            raise InputError(
                f"{name} must be at least 1, got {value}", fix=f"drop {name} or raise it"
            )
    stats = ImportStats()
    rows = [r for r in read_dataset(fmt, source, stats) if not (stated_only and r.computed)]
    if ids is not None:
        rows = [r for r in rows if safe_id(r.qid) in ids]
    if other_years:
        rows += other_year_questions(rows)
    picked = select(rows, sample, seed, unanswerable, stats, half)
    if not picked:
        raise _nothing_found(source, stats)
    if ids is not None or half != "fit":
        part = "sealed" if ids is not None else "development" if half == "eval" else "whole"
        mark(dataset_of(fmt, source), part)
    ledger = Ledger.open(out, adopt=_earlier_record(out))  # finishes a killed import first
    earlier = [rel for rel in ledger.files if _written_name(rel)]
    if earlier and not overwrite:
        raise InputError(
            "already holds an import",
            path=out / earlier[0],
            fix="pass --overwrite, or another --out",
        )
    fix = "move that file out of the folder, or import into another --out"
    with ledger.stage("import") as staging:  # the earlier import stays whole until the swap
        articles, questions = write_layout(picked, staging, fmt, source.name, stats)
        ledger.swap(staging, remove=earlier, fix=fix, forget=[IMPORTED])
    return ImportResult(out / articles.name, out / "questions" / questions.name, stats)


IMPORTED = ".factqa-import.json"  # before the ledger: the names the last import wrote


def _written_name(name: str) -> bool:
    parts = Path(name).parts
    return len(parts) == 2 and parts[0] in ("articles", "questions") and safe_name(parts[1])


def _earlier_record(out: Path) -> dict[str, str]:
    """An import from before the ledger: the files its record names (each a plain file of
    articles/ or questions/), adopted as they are now, since the tool wrote them. A folder
    with no record adopts nothing: no file is taken for the tool's by its look."""
    try:
        names = json.loads((out / IMPORTED).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # none, or a damaged record: nothing is taken as the earlier import's
    listed = names if isinstance(names, list) else []
    return {
        n: sha256_file(out / n)
        for n in listed
        if isinstance(n, str) and _written_name(n) and (out / n).is_file()
    }
