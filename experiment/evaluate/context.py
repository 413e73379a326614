"""What a figure stands for, read without gold: the period and the measure around a candidate.

A question's period is the period atoms of its text (`experiment.values.periods`). A candidate's
period is its **context's**:
- a table cell: its column headers (their periods head the cell), else its row headers, else the
  table's caption;
- prose: for each kind, the atom written nearest to the confirming span in its own sentence (the
  span itself left out: "rose to $5.1m in 2019 from $4.0m in 2018" gives 2019 to 5.1 and 2018 to
  4.0).

`period_match` compares them kind by kind over the kinds the question names:
- `same`: the share of those kinds where the context names the question's atom;
- `other`: 1 when, for some kind the question names, the context names only other atoms.
A question without a period gives 0 and 0, so the features move nothing there.

The **measure** of a question is its content terms (`evidence.terms`) less period words and
wh-words. `cover` is the share of them in a context's terms: for a cell its row and column headers
and the caption, for prose its sentence.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from experiment.evaluate.evidence import terms
from experiment.values.periods import MONTHS, Atom, atoms, by_kind
from experiment.values.tables import Cell, Table, parse_tables

PERIOD_WORDS = frozenset(
    t
    for t, _, _ in terms(
        "year years fiscal quarter quarters half month months period ended ending first "
        "second third fourth " + " ".join(MONTHS)
    )
)
WH_WORDS = frozenset(t for t, _, _ in terms("what which who how when where many much amount value"))


@dataclass(frozen=True)
class PeriodMatch:
    same: float
    other: float


def period_match(question: Sequence[Atom], context: Sequence[Atom]) -> PeriodMatch:
    """How the context's period compares with the question's (module docstring)."""
    asked, stated = by_kind(question), by_kind(context)
    if not asked:
        return PeriodMatch(0.0, 0.0)
    same = sum(bool(asked[k] & stated.get(k, set())) for k in asked) / len(asked)
    other = any(stated.get(k) and not asked[k] & stated[k] for k in asked)
    return PeriodMatch(same, float(other))


def nearest(found: Sequence[Atom], start: int, end: int) -> list[Atom]:
    """Per kind, the atom nearest to text[start:end], leaving out atoms inside it."""
    best: dict[str, tuple[int, Atom]] = {}
    for a in found:
        if a.start < end and start < a.end:
            continue
        d = start - a.end if a.end <= start else a.start - end
        if a.kind not in best or d < best[a.kind][0]:
            best[a.kind] = (d, a)
    return [a for _, a in best.values()]


def measure_terms(question: str) -> frozenset[str]:
    """The question's content terms less period words and wh-words: its measure and entity."""
    return frozenset(t for t, _, _ in terms(question)) - PERIOD_WORDS - WH_WORDS


def cover(measure: frozenset[str], context: str) -> float:
    """The share of `measure` among the terms of `context` (1 when the question has none)."""
    if not measure:
        return 1.0
    return len(measure & {t for t, _, _ in terms(context)}) / len(measure)


@lru_cache(maxsize=256)
def _tables(text: str) -> tuple[Table, ...]:
    return parse_tables(text)


def cell_at(text: str, start: int, end: int) -> tuple[Table, Cell] | None:
    """The body cell of a table that holds text[start:end], with its table."""
    for table in _tables(text):
        if table.start <= start and end <= table.end:
            cell = table.cell_at(start, end)
            if cell is not None and not cell.header:
                return table, cell
    return None


@dataclass(frozen=True)
class Context:
    """Where a candidate's span stands: the text that says what it measures, and its period."""

    text: str
    period: tuple[Atom, ...]
    in_table: bool


def _headers_text(text: str, spans: Iterable[object]) -> str:
    return " ".join(text[s.start : s.end] for s in spans)  # type: ignore[attr-defined]


def context_of(text: str, start: int, end: int, sentence: tuple[int, int]) -> Context:
    """The context of the span text[start:end], whose sentence is `sentence` (module docstring)."""
    found = cell_at(text, start, end)
    if found is not None:
        table, cell = found
        columns = _headers_text(text, cell.column_headers)
        rows = _headers_text(text, cell.row_headers)
        caption = text[table.caption.start : table.caption.end] if table.caption else ""
        period = atoms(columns) or atoms(rows) or atoms(caption)
        return Context(f"{rows} {columns} {caption}", tuple(period), True)
    s_start, s_end = sentence
    sentence_text = text[s_start:s_end]
    found_atoms = [
        Atom(a.kind, a.value, a.start + s_start, a.end + s_start) for a in atoms(sentence_text)
    ]
    return Context(sentence_text, tuple(nearest(found_atoms, start, end)), False)
