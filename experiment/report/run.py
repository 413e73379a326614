"""A finished run folder, loaded once: manifest, summary, questions, attempts, curves, blind spots,
routing.

Every reader of a run (the notebook, `factqa report`, the HTML page, the Markdown writer, the
benchmarks) loads it here, so a run folder is validated and parsed in one place: every output
must have the size and SHA-256 its manifest records (a folder cut short or edited is refused),
a folder of an older format is brought to the current one (`record.migrate`), and cells are
typed as `record.columns` declares: true/false cells become booleans, confidences numbers, and
an attempt's confirming spans `Span` records.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd

from experiment.base.errors import InputError
from experiment.base.files import file_record
from experiment.base.types import Span
from experiment.evaluate.methods import SELECTED, SMALL_PIPELINE, VERIFIED
from experiment.evaluate.scoring import CHECK, POOL
from experiment.record.columns import (
    ATTEMPTS,
    CHECKS,
    DRAFTS,
    QUESTION_PARSE,
    SCORES,
    TABLES,
    Table,
    question_column,
)
from experiment.record.manifest import FileRecord, Manifest, from_json, read_json
from experiment.record.migrate import migrate, version_of
from experiment.record.scores import view

RUN_FILES = ("manifest.json", "summary.csv", "questions.csv", "curves.csv")
OPTIONAL = ("blindspots.csv", "routing.csv", "agreement.csv")


@dataclass(frozen=True)
class Run:
    path: Path
    manifest: Manifest  # at the current format (`record.migrate`)
    summary: pd.DataFrame
    questions: pd.DataFrame  # typed: see `typed_questions`
    curves: pd.DataFrame
    blindspots: pd.DataFrame
    routing: pd.DataFrame  # accuracy against the share sent to the large model (may be empty)
    agreement: pd.DataFrame  # the summary over questions without gold, against large@1 (or empty)
    written_in: int = 0  # the format version the folder was written in (before `migrate`)

    @cached_property
    def attempts(self) -> pd.DataFrame:
        """attempts.csv, typed (`typed_attempts`); loaded when first asked for."""
        path = self.path / "attempts.csv"
        if not path.is_file():
            raise InputError(
                "the run folder has no attempts.csv", path=self.path, fix="run it again"
            )
        raw = pd.read_csv(path, keep_default_na=False, dtype=str)
        old = {"format_version": self.written_in}
        return typed_attempts(migrate(old, {ATTEMPTS.file: raw})[1][ATTEMPTS.file])

    @cached_property
    def scores(self) -> pd.DataFrame:
        """scores.csv at the current format, typed: every scoring's scores, a row per question,
        scoring and text (empty where the run scored nothing; `record.scores`). A folder before
        format 6 has them as checks.csv and drafts.csv, joined here (`record.migrate`)."""
        old = {"format_version": self.written_in}
        raw = {
            n: pd.read_csv(self.path / n, keep_default_na=False, dtype=str)
            for n in (SCORES.file, CHECKS.file, DRAFTS.file)  # the two: before format 6
            if (self.path / n).is_file()
        }
        frame = migrate(old, raw)[1].get(SCORES.file, pd.DataFrame(columns=SCORES.names))
        return _typed(frame, {c: SCORES.dtype(c) for c in SCORES.names})

    @cached_property
    def checks(self) -> pd.DataFrame:
        """The large model's checks: the check rows of `scores`, by mode and candidate."""
        return view(self.scores, CHECK)

    @cached_property
    def drafts(self) -> pd.DataFrame:
        """The pools' scores: the pool rows of `scores`, by role and text."""
        return view(self.scores, POOL)

    @property
    def scored_against(self) -> str:
        """'gold', 'large@1' (no question has gold: the summary is agreement) or 'both'."""
        return self.manifest.scored_against

    @property
    def k(self) -> int:
        return self.manifest.k

    @property
    def methods(self) -> list[str]:
        return list(self.summary.method)

    def has(self, method: str) -> bool:
        return method in set(self.summary.method)

    @property
    def verified(self) -> str:
        """small-verified@k: the method as the user stated it."""
        return VERIFIED.name(self.k)

    @property
    def selected(self) -> str | None:
        """The learned selector's method, in runs that have it."""
        name = SELECTED.name(self.k)
        return name if self.has(name) else None

    @property
    def pipeline(self) -> str | None:
        """small-pipeline@k, in runs that scored the pools."""
        name = SMALL_PIPELINE.name(self.k)
        return name if self.has(name) else None


def _truth(col: pd.Series) -> pd.Series:
    return col.astype(str).str.lower().eq("true")


def _typed(frame: pd.DataFrame, dtypes: dict[str, str]) -> pd.DataFrame:
    """`frame` (text cells) with its `dtypes` columns typed: bools, numbers, spans."""
    frame = frame.copy()
    for col, dtype in dtypes.items():
        if dtype == "bool":
            frame[col] = _truth(frame[col])
        elif dtype in ("int", "float"):
            frame[col] = pd.to_numeric(frame[col], errors="coerce")
        elif dtype == "spans":
            frame[col] = [parse_spans(cell) for cell in frame[col]]
    return frame


def typed_questions(q: pd.DataFrame) -> pd.DataFrame:
    """questions.csv at the current format, as read (text cells), with flags as booleans and
    agreement and confidence as numbers (`record.columns`)."""
    dtypes = {c: question_column(c).dtype for c in q.columns}
    return _typed(q, {c: t for c, t in dtypes.items() if t in QUESTION_PARSE})


def parse_spans(cell: str, text: str = "") -> tuple[Span, ...]:
    """The `spans` cell (a JSON array of [start, end] pairs) as spans, their text from `text`
    when given."""
    cell = str(cell).strip()
    pairs = [(int(a), int(b)) for a, b in json.loads(cell)] if cell else []
    return tuple(Span(a, b, text[a:b] if text else "") for a, b in pairs)


def typed_attempts(a: pd.DataFrame) -> pd.DataFrame:
    """attempts.csv at the current format, as read, with `confirmed` and `derived` booleans,
    `spans` and `operand_spans` tuples of `Span`s and the costs numbers (`record.columns`)."""
    return _typed(a, {c: ATTEMPTS.dtype(c) for c in ATTEMPTS.parse})


CACHED_FIX = "run the same command again: the answers are cached"


def _mismatch(file: Path, recorded: FileRecord) -> str:
    """How a file differs from what the manifest records of it; "" when it does not."""
    if not file.is_file():
        return "missing"
    found = file_record(file)
    if found["bytes"] != recorded.bytes:
        return f"has {found['bytes']:,} bytes, the manifest records {recorded.bytes:,}"
    if found["sha256"] != recorded.sha256:
        return "its SHA-256 is not the one the manifest records (edited)"
    return ""


def validate_outputs(path: Path, manifest: Manifest) -> None:
    """Every file the run wrote is there as it wrote it; an `InputError` naming the first one
    that is not (a folder cut short, edited or partly rewritten)."""
    for name, recorded in manifest.outputs.items():
        problem = _mismatch(path / name, recorded)
        if problem:
            raise InputError(
                f"{problem}: the run folder is not the one its manifest.json describes",
                path=path / name,
                fix=CACHED_FIX,
            )


def _read(path: Path, table: Table) -> pd.DataFrame:
    """One table as written: text for text tables, else as pandas infers it."""
    if table.text:
        return pd.read_csv(path / table.file, keep_default_na=False, dtype=str)
    return pd.read_csv(path / table.file)


def load_run(path: Path) -> Run:
    """A run folder written by `factqa run`, of any format version; a clear error if it is not
    one, or if its files are not the ones its manifest records."""
    missing = [f for f in RUN_FILES if not (path / f).is_file()]
    if missing:
        raise InputError(
            f"not a finished run folder (no {', '.join(missing)})",
            path=path,
            fix="give a folder written by 'factqa run'",
        )
    file = path / "manifest.json"
    raw = read_json(file)
    manifest = from_json(_migrate(raw, {}, file)[0], file)
    validate_outputs(path, manifest)  # before any table is parsed: an edited file is named so
    tables = _migrate(raw, _tables(path, manifest), file)[1]
    return Run(
        path,
        manifest,
        tables["summary.csv"],
        typed_questions(tables["questions.csv"]),
        tables["curves.csv"],
        *(tables.get(name, pd.DataFrame()) for name in OPTIONAL),
        written_in=version_of(raw),
    )


def _migrate(
    raw: dict[str, Any], tables: dict[str, pd.DataFrame], file: Path
) -> tuple[dict[str, Any], dict[str, pd.DataFrame]]:
    """`record.migrate`, its refusal naming the manifest."""
    try:
        return migrate(raw, tables)
    except InputError as e:
        raise InputError(e.reason, path=file, field="format_version", fix=e.fix) from None


def _tables(path: Path, manifest: Manifest) -> dict[str, pd.DataFrame]:
    """The folder's tables but attempts.csv (read when asked for): the optional ones this run
    wrote (by its manifest's outputs; by their presence in a folder of format 0 that lists
    none)."""
    listed = manifest.outputs
    names = [
        *RUN_FILES[1:],
        *(n for n in OPTIONAL if n in listed or (not listed and (path / n).exists())),
    ]
    return {n: _read(path, TABLES[n]) for n in names}
