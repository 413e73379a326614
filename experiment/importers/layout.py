"""The shared half of every importer: filter, stratified sample, and write the layout.

An importer reader yields `Imported` rows (one question with its passage); this module keeps the
figure/date questions (`experiment.values.question_kind`), samples them evenly across articles,
and writes one Markdown file per passage plus one questions CSV that `factqa run` loads unchanged.
"""

from __future__ import annotations

import csv
import hashlib
import io
import random
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from experiment.base.files import atomic_write
from experiment.base.groups import dealt
from experiment.base.types import UNANSWERABLE
from experiment.corpus import ANSWER_SEPARATOR, QUESTION_COLUMNS
from experiment.importers.split import Half, half_of
from experiment.values.canonical import supports
from experiment.values.normalize import parse_value, scan
from experiment.values.question_kind import question_kind, wording_kind

UNKNOWN_DATE = "unknown"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_LINE_BREAK = re.compile("[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")  # where splitlines() splits


@dataclass(frozen=True)
class Imported:
    """One source question with its passage, before filtering."""

    qid: str
    passage_id: str
    title: str
    passage: str
    question: str
    answers: tuple[str, ...]  # empty for an unanswerable question
    group: str  # the source, for sampling, the split and the cluster (a SQuAD title, a DROP
    # passage, a TAT-QA unit: `split.units`)
    kind: str | None = None  # set where the source types its answers (DROP, TAT-QA)
    computed: bool = False  # the gold is derived (a sum, a difference, a count), not stated
    note: str = ""  # what the source says of the answer (TAT-QA: where it comes from)


@dataclass
class ImportStats:
    """What an import read, kept and left out; `factqa import` prints it."""

    read: int = 0  # well-formed questions with a unique id (what `skipped` counts is not read)
    kept: int = 0
    unanswerable: int = 0
    skipped_not_figure_date: int = 0
    skipped_bad_answer: int = 0
    skipped_other_half: int = 0
    skipped: dict[str, int] = field(default_factory=dict)  # records left out, by reason
    first_at: dict[str, str] = field(default_factory=dict)  # where a refused record was first met
    computed: int = 0
    written_questions: int = 0
    written_articles: int = 0

    def skip(self, reason: str, where: str = "") -> None:
        """Count a record left out for `reason`; `where` locates a malformed or duplicate one."""
        self.skipped[reason] = self.skipped.get(reason, 0) + 1
        if where:
            self.first_at.setdefault(reason, where)

    @property
    def refused(self) -> int:
        """Records left out as malformed or duplicate (those skipped with a location)."""
        return sum(self.skipped[reason] for reason in self.first_at)


def shown(text: str, limit: int = 40) -> str:
    """`text` quoted on one line for a message, cut to `limit` characters."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def one_line(text: str) -> str:
    """`text` with each line break (of any kind) made a space, so that the questions CSV reads
    back with the cell whole."""
    return _LINE_BREAK.sub(" ", no_nul(text)).strip()


def no_nul(text: str) -> str:
    """`text` without NUL characters: valid in a JSON string, but the corpus loader refuses a file
    holding one as binary."""
    return text.replace("\0", "")


MAX_ID = 100  # characters: an id names a file, and a file name holds at most 255 bytes


def safe_id(text: str) -> str:
    """An id the corpus loader accepts: letters, digits, '-', '_', '.'; never '..'; at most
    `MAX_ID` characters (a longer one is cut and ends with a hash of the whole, so it stays
    unique: a 300-character title made a file name too long)."""
    out = _UNSAFE.sub("_", text).strip("._-").replace("..", "_") or "x"
    if len(out) > MAX_ID:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        out = f"{out[: MAX_ID - 13].rstrip('._-')}-{digest}"
    return out


def stated(answer: str, kind: str | None, question: str, passage: str) -> bool:
    """Whether `passage` states the value of `answer` (read as `kind`, or either kind)."""
    for k in (kind,) if kind else ("figure", "date"):
        value = parse_value(answer, k, question)
        if value is not None and any(supports(v, value) for m in scan(passage) for v in m.values):
            return True
    return False


def classify(row: Imported) -> tuple[str | None, str]:
    """(kind, reason): the kind of a question we keep, or None with why it was left out."""
    if not row.answers:
        kind = wording_kind(row.question)
        return (kind, "" if kind else "not_figure_date")
    if any(ANSWER_SEPARATOR in a or _LINE_BREAK.search(a) for a in row.answers):
        return (None, "bad_answer")
    if row.kind is not None:  # typed by the source: every gold must read as that kind
        ok = all(parse_value(a, row.kind, row.question) is not None for a in row.answers)
        return (row.kind, "") if ok else (None, "bad_answer")
    kind = question_kind(row.question, row.answers)
    return (kind, "" if kind else "not_figure_date")


def stratified_sample(rows: Sequence[Imported], n: int, seed: int) -> list[Imported]:
    """n rows spread evenly across groups: shuffle groups and each group, then deal round-robin
    (`groups.dealt`, seeded by `seed`)."""
    return dealt(rows, lambda r: r.group, n, random.Random(seed))


DUPLICATE_ID = "duplicate question id (the first is kept)"
OTHER_PASSAGE = "passage id of another passage (the first is kept)"


def unique(rows: Iterable[Imported], stats: ImportStats) -> Iterator[Imported]:
    """The rows whose question id is new and whose passage id names one passage text, both as
    written (`safe_id`); any other row is skipped and counted, so the first one wins."""
    ids: set[str] = set()
    passages: dict[str, str] = {}
    for row in rows:
        qid = safe_id(row.qid)
        if qid in ids:
            stats.skip(DUPLICATE_ID, f"id {shown(row.qid)}")
        elif passages.setdefault(safe_id(row.passage_id), row.passage) != row.passage:
            stats.skip(OTHER_PASSAGE, f"id {shown(row.qid)}")
        else:
            ids.add(qid)
            yield row


def select(
    rows: Iterable[Imported],
    sample: int | None,
    seed: int,
    unanswerable: int | None,
    stats: ImportStats,
    half: Half | None = None,
) -> list[tuple[Imported, str]]:
    """Filter to figure/date questions (of one half of the titles, when `half` is given), then
    sample: `sample` overall, or `sample` answerable plus `unanswerable` unanswerable."""
    kept: list[tuple[Imported, str]] = []
    for row in unique(rows, stats):
        stats.read += 1
        if half is not None and half_of(row.group) != half:
            stats.skipped_other_half += 1
            continue
        kind, reason = classify(row)
        if kind is None:
            if reason == "bad_answer":
                stats.skipped_bad_answer += 1
            else:
                stats.skipped_not_figure_date += 1
            continue
        kept.append((row, kind))
    kinds = {r.qid: k for r, k in kept}
    pool = [r for r, _ in kept]
    if unanswerable is not None:
        answerable = [r for r in pool if r.answers]
        empty = [r for r in pool if not r.answers]
        chosen = stratified_sample(
            answerable, sample if sample is not None else len(answerable), seed
        )
        chosen += stratified_sample(empty, unanswerable, seed)
    elif sample is not None:
        chosen = stratified_sample(pool, sample, seed)
    else:
        chosen = pool
    chosen.sort(key=lambda r: (r.group, r.passage_id, r.qid))
    stats.kept = len(chosen)
    stats.unanswerable = sum(not r.answers for r in chosen)
    stats.computed = sum(r.computed for r in chosen)
    return [(r, kinds[r.qid]) for r in chosen]


def _article_text(article_id: str, title: str, passage: str, source: str) -> str:
    meta = yaml.safe_dump(
        {"id": article_id, "title": no_nul(title), "published": UNKNOWN_DATE, "source": source},
        allow_unicode=True,
        sort_keys=False,
        width=10_000,
    )
    return f"---\n{meta}---\n{no_nul(passage).strip()}\n"


def write_layout(
    picked: Sequence[tuple[Imported, str]], out: Path, name: str, source: str, stats: ImportStats
) -> tuple[Path, Path]:
    """Write `out/articles/*.md` and `out/questions/NAME.csv`; return both paths."""
    articles_dir, questions_dir = out / "articles", out / "questions"
    seen: dict[str, str] = {}
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([*QUESTION_COLUMNS, "notes", "cluster", "computed"])
    for row, kind in picked:
        article_id = safe_id(row.passage_id)
        if article_id not in seen:
            seen[article_id] = row.passage
            atomic_write(
                articles_dir / f"{article_id}.md",
                _article_text(article_id, row.title, row.passage, source),
            )
        answers = dict.fromkeys(no_nul(a).strip() for a in row.answers)
        gold = ANSWER_SEPARATOR.join(answers) or UNANSWERABLE
        note = one_line(f"{source}; {row.note}" if row.note else source)
        writer.writerow(
            [
                safe_id(row.qid),
                article_id,
                one_line(row.question),
                gold,
                kind,
                note,
                one_line(row.group),
                "true" if row.computed else "false",
            ]
        )
    questions = questions_dir / f"{name}.csv"
    atomic_write(questions, buf.getvalue())
    stats.written_questions = len(picked)
    stats.written_articles = len(seen)
    return articles_dir, questions
