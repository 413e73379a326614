"""`import_dataset`: read, filter, sample and write, refusing to mix with an earlier import."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from experiment.corpus import QUESTION_COLUMNS
from experiment.errors import InputError
from experiment.files import atomic_write, safe_name
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
    targets = [out / "articles", out / "questions"]
    existing = [t for t in targets if t.exists() and any(t.iterdir())]
    if existing and not overwrite:
        raise InputError(
            "already holds an import", path=existing[0], fix="pass --overwrite, or another --out"
        )
    out.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".factqa-import-", dir=out))
    try:  # written beside the earlier import, which stays whole if this one fails
        articles, questions = write_layout(picked, staging, fmt, source.name, stats)
        written = sorted(str(p.relative_to(staging)) for p in staging.rglob("*") if p.is_file())
        earlier = _earlier_import(out)
        for name in written:
            (out / name).parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging / name, out / name)
        for name in sorted(set(earlier) - set(written)):
            (out / name).unlink(missing_ok=True)  # only what an earlier import wrote
        atomic_write(out / IMPORTED, json.dumps(written, indent=1) + "\n")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return ImportResult(out / articles.name, out / "questions" / questions.name, stats)


IMPORTED = ".factqa-import.json"  # the files the last import wrote, relative to its --out


def _written_name(name: str) -> bool:
    parts = Path(name).parts
    return len(parts) == 2 and parts[0] in ("articles", "questions") and safe_name(parts[1])


def _earlier_import(out: Path) -> list[str]:
    """The files an earlier import in `out` wrote: its record, or for an import from before the
    record was kept, the articles with the importer's front matter and the question files with
    its header. A user's own files are never among them."""
    record = out / IMPORTED
    if record.is_file():
        try:
            names = json.loads(record.read_text(encoding="utf-8"))
        except (ValueError, OSError):
            names = []  # a damaged record: nothing is taken as the earlier import's
        listed = names if isinstance(names, list) else []
        # only a plain file in articles/ or questions/: never a path out of them
        return [n for n in listed if isinstance(n, str) and _written_name(n)]
    found = []
    for path in sorted((out / "articles").glob("*.md")):
        head = path.read_text(encoding="utf-8", errors="replace")[:4000]
        if head.startswith("---\nid: ") and "\nsource: " in head.split("\n---\n", 1)[0]:
            found.append(f"articles/{path.name}")
    header = ",".join([*QUESTION_COLUMNS, "notes", "cluster", "computed"])
    for path in sorted((out / "questions").glob("*.csv")):
        with path.open(encoding="utf-8", errors="replace") as f:
            if f.readline().strip() == header:
                found.append(f"questions/{path.name}")
    return found
