"""A run's exports: attempts.csv, questions.csv and summary.csv, as rows (the manifest is
`report/manifest.py`'s).

Every file goes through `experiment.files` (atomic, spreadsheet-safe); this module decides only
which columns each file has and how a record becomes a row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, fields
from typing import Any

from experiment.evaluate.registry import Answers
from experiment.evaluate.summary import MethodSummary
from experiment.records import Attempt, Question, span_cells, spans_cell

# `cached` stays out of the export: a resumed run must write the same file as an uninterrupted
# one, but for what was measured (seconds, and the cost: after a restart the article is read
# again). The manifest counts the generations that came from the cache.
_SPAN_FIELDS = ("spans", "operand_spans")
ATTEMPT_COLUMNS = [f.name for f in fields(Attempt) if f.name not in (*_SPAN_FIELDS, "cached")] + [
    "span_start",
    "span_end",
    "span_text",
    *_SPAN_FIELDS,
]


def attempt_row(a: Attempt) -> dict[str, Any]:
    row = {f.name: getattr(a, f.name) for f in fields(Attempt) if f.name not in _SPAN_FIELDS}
    row["candidates"] = " | ".join(a.candidates)
    row.update(span_cells(a.span))
    row["spans"] = spans_cell(a.spans)
    row["operand_spans"] = spans_cell(a.operand_spans)
    return row


def question_rows(
    questions: Sequence[Question],
    answers: Answers,
    methods: Sequence[str],
    verified: str,
    extra: Mapping[str, Mapping[str, Any]] | None = None,
) -> tuple[list[dict[str, Any]], list[str]]:
    """One row per question: gold, the kept span, then each method's answer and verdict.

    `extra[question_id]` adds per-question cells (gold_in_text, sample counts) after the gold.
    """
    extra_columns = list(next(iter(extra.values())).keys()) if extra else []
    columns = [
        "question_id",
        "article_id",
        "cluster",
        "kind",
        "question",
        "gold",
        "unanswerable",
        "computed",
        *extra_columns,
        "agreement",
        "span_start",
        "span_end",
        "span_text",
    ]
    for m in methods:
        columns += [
            f"{m}.answer",
            f"{m}.value",
            f"{m}.correct",
            f"{m}.abstained",
            f"{m}.failed",
            f"{m}.agreement",
            f"{m}.confidence",
            f"{m}.in_text_wrong",
        ]
    rows = []
    for q in questions:
        per = answers[q.id]
        kept = per[verified].chosen
        row: dict[str, Any] = {
            "question_id": q.id,
            "article_id": q.article_id,
            "cluster": q.cluster,
            "kind": q.kind,
            "question": q.text,
            "gold": " | ".join(q.gold),
            "unanswerable": q.unanswerable,
            "computed": q.computed,
            **(extra[q.id] if extra else {}),
            "agreement": per[verified].agreement,
            **span_cells(kept.attempt.span if kept else None),
        }
        for m in methods:
            a = per[m]
            row[f"{m}.answer"] = a.chosen.attempt.answer if a.chosen else ""
            row[f"{m}.value"] = a.chosen.attempt.value if a.chosen else ""
            row[f"{m}.correct"] = a.correct
            row[f"{m}.abstained"] = a.abstained
            row[f"{m}.failed"] = a.failed
            row[f"{m}.agreement"] = a.agreement
            row[f"{m}.confidence"] = a.confidence
            row[f"{m}.in_text_wrong"] = a.in_text_wrong
        rows.append(row)
    return rows, columns


SUMMARY_COLUMNS = [f.name for f in fields(MethodSummary)]


def summary_rows(summary: Sequence[MethodSummary]) -> list[dict[str, Any]]:
    """summary.csv's (or agreement.csv's) rows, in SUMMARY_COLUMNS."""
    return [asdict(s) for s in summary]
