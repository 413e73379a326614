"""The run folder's files and their columns, each with its dtype: the one spec that the writer
(`record.write`) and the readers (`report.run`, `report.validate`) use.

A dtype says what a cell holds: `str`, `int`, `float` (blank where `blank`: unknown), `bool`
(`true`/`false`), or `spans` (a JSON array of `[start, end]` pairs). Tables read as text
(`text`) keep their cells as written except the columns in `parse`, which the reader types;
the others are read as pandas infers them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import MISSING, dataclass, fields
from typing import Literal

from experiment.base.types import Attempt
from experiment.evaluate.agreement import disagreement_columns
from experiment.evaluate.blindspots import COLUMNS as SPOT_NAMES
from experiment.evaluate.methods import CURVE_COLUMNS as CURVE_NAMES
from experiment.evaluate.summary import MethodSummary
from experiment.record.value_cells import VALUE_COLUMNS

Dtype = Literal["str", "int", "float", "bool", "spans"]


@dataclass(frozen=True)
class Column:
    name: str
    dtype: Dtype = "str"
    required: bool = True  # a reader refuses the table without it
    blank: bool = False  # a number that may be empty (unknown)


@dataclass(frozen=True)
class Table:
    """One file of the run folder: its name and columns, in order."""

    file: str
    columns: tuple[Column, ...]
    text: bool = False  # read as text, the `parse` columns typed by the reader
    parse: tuple[str, ...] = ()

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns if c.required)

    @property
    def numbers(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns if c.dtype in ("int", "float"))

    @property
    def blank(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns if c.blank)

    def dtype(self, name: str) -> Dtype:
        return next(c.dtype for c in self.columns if c.name == name)


def _dtype(annotation: str) -> Dtype:
    """The dtype of a dataclass field annotated `annotation` ("int | None" is an int)."""
    first = annotation.split(" | ")[0]
    return first if first in ("int", "float", "bool") else "str"  # type: ignore[return-value]


def _of(record: type, skip: Iterable[str] = ()) -> tuple[Column, ...]:
    """The columns of a table written from `record` (a dataclass): fields without a default are
    required, those that may be None may be blank."""
    return tuple(
        Column(f.name, _dtype(str(f.type)), f.default is MISSING, "None" in str(f.type))
        for f in fields(record)
        if f.name not in skip
    )


def _cols(dtype: Dtype, *names: str, required: bool = True) -> tuple[Column, ...]:
    return tuple(Column(n, dtype, required) for n in names)


SPAN = (Column("span_start", "int", blank=True), Column("span_end", "int", blank=True))
SPAN_COLUMNS = (*SPAN, Column("span_text"))

# attempts.csv: `Attempt`'s fields, `value` split into typed columns (`value_cells`), the first
# confirming span, then every span as JSON. `cached` stays out: a resumed run writes the same
# file as an uninterrupted one (the manifest counts the cached generations).
_FIELDS = _of(Attempt, skip=("spans", "operand_spans", "cached"))
_AT_VALUE = [c.name for c in _FIELDS].index("value") + 1
_VALUE = (
    *(Column(n, "float", blank=True) for n in VALUE_COLUMNS[:3]),
    *_cols("str", *VALUE_COLUMNS[3:]),
)
ATTEMPTS = Table(
    "attempts.csv",
    (
        *_FIELDS[:_AT_VALUE],
        *_VALUE,
        *_FIELDS[_AT_VALUE:],
        *SPAN_COLUMNS,
        Column("spans", "spans"),
        Column("operand_spans", "spans"),
    ),
    text=True,
    parse=("confirmed", "derived", "spans", "operand_spans", "evaluated_tokens", "flops"),
)

# questions.csv: the question, the facts of `evaluate.methods.question_facts` and the run, the
# kept span, then `METHOD_COLUMNS` for each method (`{method}.{column}`)
QUESTION_HEAD = (
    *_cols("str", "question_id", "article_id"),
    *_cols("str", "cluster", "kind", required=False),
    *_cols("str", "question", "gold"),
    *_cols("bool", "unanswerable", "computed", required=False),
)
QUESTION_FACTS = (
    Column("gold_in_text", "bool", False),
    Column("samples_drawn", "int", False),
    Column("small_correct", "int", False),
    Column("small_correct_confirmed", "int", False),
    Column("stopped_early", "bool", False),
    Column("scored_against", "str", False),
)
QUESTION_TAIL = (Column("agreement", "float", False), *SPAN_COLUMNS)
METHOD_COLUMNS = (
    Column("answer"),
    Column("value"),
    Column("correct", "bool"),
    Column("abstained", "bool"),
    Column("failed", "bool", False),
    Column("agreement", "float"),
    Column("confidence", "float", False),
    Column("in_text_wrong", "bool", False),
)


def question_columns(methods: Sequence[str], facts: Sequence[str] = ()) -> list[str]:
    """questions.csv's columns for `methods`, with the per-question `facts` (QUESTION_FACTS')."""
    per = [f"{m}.{c.name}" for m in methods for c in METHOD_COLUMNS]
    return [*(c.name for c in QUESTION_HEAD), *facts, *(c.name for c in QUESTION_TAIL), *per]


_QUESTION = {c.name: c for c in (*QUESTION_HEAD, *QUESTION_FACTS, *QUESTION_TAIL)}
_PER_METHOD = {c.name: c for c in METHOD_COLUMNS}


def question_column(name: str) -> Column:
    """The spec of questions.csv's column `name` (a method's `{method}.{column}` included)."""
    if name in _QUESTION:
        return _QUESTION[name]
    method, _, column = name.rpartition(".")
    if method and column in _PER_METHOD:
        return _PER_METHOD[column]
    return Column(name, required=False)


def question_required(methods: Iterable[str]) -> tuple[str, ...]:
    """The columns a questions.csv of `methods` must have."""
    per = [f"{m}.{c.name}" for m in methods for c in METHOD_COLUMNS if c.required]
    return (*(c.name for c in QUESTION_HEAD if c.required), *per)


QUESTIONS = Table("questions.csv", (*QUESTION_HEAD, *QUESTION_FACTS, *QUESTION_TAIL), text=True)
QUESTION_PARSE: tuple[Dtype, ...] = ("bool", "float")  # the dtypes a reader of questions.csv types


ANSWERS = Table(
    "answers.csv",
    (
        *_cols("str", "question_id", "article_id", "kind", "method", "answer", "value"),
        *_VALUE,
        *_cols("bool", "correct", "abstained", "failed"),
        *_cols("float", "agreement", "confidence"),
        Column("in_text_wrong", "bool"),
        *SPAN_COLUMNS,
    ),
)
SUMMARY = Table("summary.csv", _of(MethodSummary))
AGREEMENT = Table("agreement.csv", SUMMARY.columns)  # the summary against large@1
_CURVE_TYPES: dict[str, Dtype] = {"k": "int", "method": "str", "flops": "float"}
CURVES = Table(
    "curves.csv",
    tuple(
        Column(n, _CURVE_TYPES.get(n, "float"), n not in ("flops", "seconds"), n == "flops")
        for n in CURVE_NAMES
    ),
)
ROUTING = Table(
    "routing.csv",
    (Column("selector"), *_cols("float", "share_sent", "sent", "accuracy")),
)
BLINDSPOTS = Table("blindspots.csv", _cols("str", *SPOT_NAMES), text=True)
# What a question's scoring calls cost, on each of its rows of scores.csv (a check mode's calls
# together; a pool's one call): blank where unknown (format 1 kept none)
CALL_COST = (
    Column("prompt_tokens", "int", False, True),
    Column("seconds", "float", False, True),
    Column("evaluated_tokens", "int", False, True),
    Column("flops", "float", False, True),
)
# Every scoring's scores in one table (`evaluate.scoring`): a row per question, scoring (its
# label: "check (whole)", "pool scores (small)") and scored text. `score` is what the scoring
# reads: a check's margin over "unknown" (blank where the call failed), a pool text's
# log-probability. A new scoring adds rows under its own label, never a column or a table.
SCORES = Table(
    "scores.csv",
    (
        *_cols("str", "question_id", "scoring", "text"),
        Column("score", "float", blank=True),
        Column("tokens", "int", False, True),  # the scored text's tokens, where it counts them
        Column("picked", "bool"),  # the text the scoring chose, where it chooses one
        Column("error"),
        *CALL_COST,
        Column("calls", "int", False, True),
    ),
)
# What the readers of one kind of scoring see (`record.scores.view`): the check's and the
# pools' rows of scores.csv, with their own names for `which`, `text` and `score`. Before format
# 6 a run folder wrote them as two files of these names (`record.migrate`).
CHECKS = Table(
    "checks.csv",
    (
        *_cols("str", "question_id", "mode", "candidate"),
        Column("margin", "float", blank=True),
        Column("picked", "bool"),
        Column("error"),
        *CALL_COST,
        Column("calls", "int", False, True),
    ),
)
DRAFTS = Table(
    "drafts.csv",
    (
        *_cols("str", "question_id", "role", "text"),
        Column("logprob", "float"),
        Column("tokens", "int"),
        *CALL_COST,
    ),
)


def disagreements_table(methods: Sequence[str]) -> Table:
    """disagreements.csv: the questions without gold where `methods` differ from large@1."""
    return Table("disagreements.csv", _cols("str", *disagreement_columns(list(methods))))


PARQUET = ("attempts.csv", "answers.csv")  # also written as Parquet where pyarrow is installed
TABLES = {
    t.file: t
    for t in (
        ATTEMPTS,
        QUESTIONS,
        ANSWERS,
        SUMMARY,
        AGREEMENT,
        CURVES,
        ROUTING,
        BLINDSPOTS,
        SCORES,
    )
}


# The committed results of a benchmark run (`results/PRESET/`, `record.results`): what every
# figure is computed from, without the data set's own text for a public data set (ids, model
# outputs, offsets and outcomes only). The large tables are gzip-compressed CSV.
RESULT_QUESTIONS = Table(
    "questions.csv.gz",
    (
        *_cols("str", "question_id", "article_id"),
        *_cols("str", "cluster", "kind"),
        *_cols("str", "question", "gold", required=False),  # the bundled corpus only
        *_cols("bool", "unanswerable", "computed"),
        *QUESTION_FACTS,
        Column("agreement", "float", False),
        *SPAN,
    ),
    text=True,
)
RESULT_ANSWERS = Table(
    "answers.csv.gz",
    (
        *_cols("str", "question_id", "method", "answer", "value"),
        *_cols("bool", "correct", "abstained", "failed"),
        *_cols("float", "agreement", "confidence"),
        Column("in_text_wrong", "bool"),
        *_cols("float", "em", "f1"),  # SQuAD's exact match and F1, computed with the gold
    ),
    text=True,
)
RESULT_SAMPLES = Table(
    "samples.csv.gz",
    (
        *_cols("str", "question_id", "role"),
        *_cols("int", "sample_index", "seed"),
        Column("raw_text"),
        *_cols("str", "answer", "value"),
        Column("confirmed", "bool"),
        Column("spans", "spans"),
        Column("derived", "bool"),
        Column("operand_spans", "spans"),
        Column("reason"),
        Column("context"),
        *_cols("int", "prompt_tokens", "completion_tokens"),
        Column("seconds", "float"),
        Column("logprob", "float", blank=True),
        Column("evaluated_tokens", "int", blank=True),
        Column("flops", "float", blank=True),
        *_cols("int", "round", "drawn"),
    ),
    text=True,
)
# a scored text is kept whole where the data set is the project's own or the text is a model's
# (a check's candidate); an article's own text (a pool's) of a public data set only as its
# SHA-256 (`text_key`), which every row has, so a replay finds the score of the text the
# current code asks for
RESULT_SCORES = Table(
    "scores.csv.gz",
    (
        *_cols("str", "question_id", "scoring"),
        Column("text", required=False),
        Column("text_sha256"),
        *(c for c in SCORES.columns[3:] if c.name != "picked"),
    ),
    text=True,
)
# results format 1 wrote the two kinds as two files (`report.results` reads them into one)
RESULT_CHECKS = Table(
    "checks.csv.gz", tuple(c for c in CHECKS.columns if c.name != "picked"), text=True
)
RESULT_DRAFTS = Table(
    "drafts.csv.gz",
    (
        *_cols("str", "question_id", "role"),
        Column("text", required=False),
        Column("text_sha256"),
        *DRAFTS.columns[3:],
    ),
    text=True,
)
RESULT_COPIES = ("summary.csv", "agreement.csv", "curves.csv", "routing.csv")  # as the run wrote
RESULT_TABLES = {
    t.file: t for t in (RESULT_QUESTIONS, RESULT_ANSWERS, RESULT_SAMPLES, RESULT_SCORES)
}
