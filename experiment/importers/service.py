"""`import_dataset`: read, filter, sample and write, refusing to mix with an earlier import."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from experiment.errors import InputError
from experiment.importers.layout import ImportStats, select, write_layout
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
) -> ImportResult:
    """Import `source` into `out/articles` and `out/questions/<fmt>.csv`.

    Everything is read and checked before anything is written; an existing import in `out` is
    replaced only with `overwrite`, so two samples never mix in one folder. `other_years` adds
    the unanswerable questions of `experiment.importers.unanswerable` to the source's own;
    `stated_only` leaves out the questions whose gold is computed.
    """
    for value, name in ((sample, "--sample"), (unanswerable, "--unanswerable")):
        if value is not None and value < 1:
            raise InputError(
                f"{name} must be at least 1, got {value}", fix=f"drop {name} or raise it"
            )
    stats = ImportStats()
    rows = [r for r in read_dataset(fmt, source, stats) if not (stated_only and r.computed)]
    if other_years:
        rows += other_year_questions(rows)
    picked = select(rows, sample, seed, unanswerable, stats, half)
    if not picked:
        raise _nothing_found(source, stats)
    targets = [out / "articles", out / "questions"]
    existing = [t for t in targets if t.exists() and any(t.iterdir())]
    if existing and not overwrite:
        raise InputError(
            "already holds an import", path=existing[0], fix="pass --overwrite, or another --out"
        )
    for t in existing:
        shutil.rmtree(t)
    articles, questions = write_layout(picked, out, fmt, source.name, stats)
    return ImportResult(articles, questions, stats)
