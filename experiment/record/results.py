"""Writing a benchmark's committed results (`results/PRESET/`) from a finished run's tables.

What every published figure is computed from, small enough to commit: the summary and the
other method tables as the run wrote them, the manifest (paths made relative), one row per
question (ids and facts), per question and method (the answer and its outcome), per sample
(the model's raw text, what was read from it, its evidence as offsets, its cost), and every
scoring's scores (the large model's checks, the pools' scores) with their calls' cost. The
large tables are gzip-compressed CSV (`record.columns.RESULT_TABLES`).

A public data set's own text stays out: no question, no gold, no passage. Evidence is kept as
offsets into the passage (`span_start`, `spans`), never as its text, and a scored pool text (the
article's own figure as written) only as its SHA-256 (`text_key`). The bundled corpus is the
project's own, so its questions, gold and scored texts are kept whole. `results.json` says what
the results are of (the preset and how its sample is imported again) and each file's size and
SHA-256. `report/results.py` reads them back.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from experiment.base.files import (
    NotOwned,
    atomic_write,
    file_record,
    read_cell,
    safe_name,
    sha256_file,
    write_csv,
)
from experiment.config import PATH_SETTINGS, RunConfig
from experiment.evaluate.scoring import POOL, label_parts
from experiment.record.columns import (
    QUESTION_FACTS,
    RESULT_ANSWERS,
    RESULT_COPIES,
    RESULT_QUESTIONS,
    RESULT_SAMPLES,
    RESULT_SCORES,
)
from experiment.record.manifest import Manifest
from experiment.record.results_index import INDEX, MANIFEST, RESULTS_FORMAT, Source, text_key
from experiment.record.write import write_manifest

OUTSIDE = "DATA"  # a path outside the repository, in a committed manifest: DATA/<its name>


def portable(path: str, root: Path) -> str:
    """A path as a committed file may state it: relative to `root` (the repository) where it
    is inside it, else `DATA/<its name>`."""
    if not path:
        return path
    p = Path(path)
    if not p.is_absolute():
        return path
    try:
        return p.resolve().relative_to(root.resolve()).as_posix() or "."
    except ValueError:
        return f"{OUTSIDE}/{p.name}"


def portable_manifest(m: Manifest, root: Path) -> Manifest:
    """The manifest with its settings' paths and its command made `portable`."""
    values = m.config.as_dict()
    command = m.command
    for name in PATH_SETTINGS:
        given = str(values.get(name, ""))
        values[name] = portable(given, root)
        if given and given != values[name]:
            command = command.replace(given, values[name])
    command = command.replace(str(root.resolve()) + "/", "")
    return replace(m, config=RunConfig.of_record(values), command=command)


def _text(value: Any) -> str:
    """A text cell as the run meant it (the spreadsheet guard of `files.safe_cell` undone)."""
    return read_cell(str(value)) if value is not None and value == value else ""


def _spans(cell: Any) -> str:
    """Typed spans (tuples of `Span`) or a JSON cell as a JSON array of [start, end] pairs."""
    if isinstance(cell, tuple | list):
        return json.dumps([[s.start, s.end] for s in cell])
    return str(cell or "[]")


def question_rows(questions: pd.DataFrame, public: bool) -> Iterator[dict[str, Any]]:
    """questions.csv.gz: ids and facts; the question and gold only where not `public`."""
    facts = [c.name for c in QUESTION_FACTS if c.name in questions.columns]
    for r in questions.to_dict("records"):
        row = {c: r.get(c, "") for c in ("question_id", "article_id", "cluster", "kind")}
        row |= {"unanswerable": r.get("unanswerable", False), "computed": r.get("computed", "")}
        row |= {f: r[f] for f in facts}
        row |= {"agreement": r.get("agreement", ""), "span_start": r.get("span_start", "")}
        row["span_end"] = r.get("span_end", "")
        if not public:
            row |= {"question": _text(r["question"]), "gold": _text(r["gold"])}
        yield row


def answer_rows(questions: pd.DataFrame, methods: Sequence[str]) -> Iterator[dict[str, Any]]:
    """answers.csv.gz: one row per question and method (the answer as the model wrote it), from
    questions.csv's wide layout with each method's `.em` and `.f1` added."""
    names = RESULT_ANSWERS.names[2:]
    for r in questions.to_dict("records"):
        for m in methods:
            row = {"question_id": r["question_id"], "method": m}
            row |= {c: r.get(f"{m}.{c}", "") for c in names}
            row["answer"] = _text(row["answer"])
            yield row


def sample_rows(attempts: pd.DataFrame) -> Iterator[dict[str, Any]]:
    """samples.csv.gz: one row per sample; evidence as offsets only."""
    keep = [c for c in RESULT_SAMPLES.names if c not in ("spans", "operand_spans")]
    for r in attempts.to_dict("records"):
        row = {c: r.get(c, "") for c in keep}
        for c in ("raw_text", "answer", "reason", "context"):
            row[c] = _text(row[c])
        row["spans"], row["operand_spans"] = _spans(r["spans"]), _spans(r["operand_spans"])
        yield row


def score_rows(scores: pd.DataFrame, public: bool) -> Iterator[dict[str, Any]]:
    """scores.csv.gz: each scored text's score and its calls' cost, by question and scoring;
    the text itself where it is a model's (a check's candidate) or not `public` (always its
    `text_key`)."""
    for r in scores.to_dict("records"):
        text = _text(r["text"])
        hidden = public and label_parts(str(r["scoring"]))[0] == POOL
        kept = str(r.get("text_sha256") or "")  # results written again: a hidden text's key
        key = kept if kept and not text else text_key(text)
        row = {c: r.get(c, "") for c in RESULT_SCORES.names}
        yield row | {"text": "" if hidden else text, "text_sha256": key}


@dataclass(frozen=True)
class RunTables:
    """A finished run's tables as its reader typed them (`report.run.Run`)."""

    manifest: Manifest
    methods: list[str]
    questions: pd.DataFrame
    attempts: pd.DataFrame
    scores: pd.DataFrame


def write_results(
    dest: Path, run_dir: Path, tables: RunTables, source: Source, root: Path
) -> dict[str, dict[str, Any]]:
    """`dest` (results/PRESET/) from the run at `run_dir`: every file replaced, then the index
    (`results.json`); returns each file's size and SHA-256, by name. The index is the folder's
    ledger: a file it does not record with the SHA-256 the file has (a user's, or one edited
    since) is refused (`files.NotOwned`) before anything is removed."""
    recorded = _recorded(dest)
    theirs = [p for p in sorted(dest.glob("*")) if p.is_file() and p.name not in recorded]
    if theirs:
        raise NotOwned(theirs[0], "move that file out of the results folder, then run again")
    dest.mkdir(parents=True, exist_ok=True)
    for name in recorded:
        (dest / name).unlink(missing_ok=True)
    written: list[str] = []
    for name in RESULT_COPIES:
        if (run_dir / name).is_file():
            atomic_write(dest / name, (run_dir / name).read_bytes())
            written.append(name)
    public = source.public
    parts = (
        (RESULT_QUESTIONS, question_rows(tables.questions, public)),
        (RESULT_ANSWERS, answer_rows(tables.questions, tables.methods)),
        (RESULT_SAMPLES, sample_rows(tables.attempts)),
        (RESULT_SCORES, score_rows(tables.scores, public)),
    )
    for table, rows in parts:
        if table is RESULT_SCORES and tables.scores.empty:
            continue
        columns = [c for c in table.names if not (public and c in ("question", "gold"))]
        write_csv(dest / table.file, _known(rows), columns)
        written.append(table.file)
    m = portable_manifest(tables.manifest, root)
    write_manifest(dest / MANIFEST, m)
    written.append(MANIFEST)
    files = {n: file_record(dest / n) for n in sorted(written)}
    index = {"format_version": RESULTS_FORMAT, "source": asdict(source), "files": files}
    atomic_write(dest / INDEX, json.dumps(index, indent=2, sort_keys=True) + "\n")
    return files


def _recorded(dest: Path) -> list[str]:
    """The files of `dest` its index records with the SHA-256 they have, and the index."""
    try:
        index = json.loads((dest / INDEX).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    files = index.get("files") if isinstance(index, dict) else None
    return [INDEX] + [
        name
        for name, r in (files if isinstance(files, dict) else {}).items()
        if safe_name(str(name))
        and isinstance(r, dict)
        and (dest / name).is_file()
        and r.get("sha256") == sha256_file(dest / name)
    ]


def _known(rows: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Rows with an unknown number (NaN) as an empty cell, as the run folder writes it."""
    for row in rows:
        yield {k: "" if isinstance(v, float) and v != v else v for k, v in row.items()}
