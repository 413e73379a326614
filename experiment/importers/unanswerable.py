"""Unanswerable questions made from answerable ones by asking for a year the passage lacks.

A data set without unanswerable questions (TAT-QA) cannot teach a selector when to abstain. The
rule, fixed and needing no model: an answerable question whose gold is stated (not computed),
whose text names exactly one year, and whose passage names that year becomes unanswerable when
that year is replaced by the year before the passage's earliest (a year the passage nowhere
names): "What was the revenue in 2019?" over a table of 2018 and 2019 becomes "What was the
revenue in 2017?". The id gains `-other-year`; the gold is empty (unanswerable).

A date question is left alone (its answer may be the year itself), and so is a question whose
year is part of a longer figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from experiment.importers.layout import Imported
from experiment.values.periods import atoms

SUFFIX = "-other-year"


def _years(text: str) -> list[tuple[int, int, int]]:
    return [(int(a.value), a.start, a.end) for a in atoms(text) if a.kind == "y"]


def other_year(row: Imported) -> Imported | None:
    """The row asking for a year its passage does not name, or None where the rule does not
    apply (module docstring)."""
    if not row.answers or row.computed or row.kind == "date":
        return None
    asked = _years(row.question)
    stated = {y for y, _, _ in _years(row.passage)}
    if len(asked) != 1 or asked[0][0] not in stated:
        return None
    _, start, end = asked[0]
    new = min(stated) - 1
    question = row.question[:start] + str(new) + row.question[end:]
    return replace(row, qid=row.qid + SUFFIX, question=question, answers=(), note="other year")


def other_year_questions(rows: Sequence[Imported]) -> list[Imported]:
    """The unanswerable questions `other_year` makes (a sample of them is drawn as the source's
    own unanswerable questions are)."""
    return [swapped for row in rows if (swapped := other_year(row)) is not None]
