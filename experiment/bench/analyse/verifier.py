"""Verifier quality on SQuAD v1.1 dev figure/date questions: recall, rejection, speed.

    factqa bench verifier PATH/TO/dev-v1.1.json [--limit N] [--seed S] [--write]

- recall: share of gold answers confirmed in their own paragraph;
- rejection: share of corrupted answers refused. Corruptions: one digit changed, a year shifted
  by one, the scale changed (million <-> billion, or "thousand" added), and a figure taken from
  another paragraph of the same article. A corruption is kept only if its digits do not occur in
  the paragraph at all: that test is plain string search, independent of the verifier;
- recall and rejection are reported for the evaluation titles apart from the fitting titles
  (experiment/importers/split.py): the verifier's rules were mended from this benchmark's misses
  over all titles, so only the evaluation titles' figures are out of sample for what comes next;
- speed: verifications per second on one core, cold (the paragraph is scanned for every check)
  and warm (scanned once per paragraph, as a run does).

With `--write`, writes its section of docs/RESULTS.md; the last line printed is machine-readable.
The section names the misses and the accepted corruptions by question id, the kinds of value the
parser read and a cause found by code (`miss_cause`, `accepted_cause`), never by their text:
SQuAD's gold strings, paragraphs and the corruptions made from them stay out of the repository.
"""

from __future__ import annotations

import random
import re
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from experiment.base.errors import InputError
from experiment.base.types import Span
from experiment.bench.app import command
from experiment.bench.harness import RESULTS_MD, WriteOpt, finish, records_of
from experiment.bench.sections import Record, measured, renders
from experiment.importers.readers import SQUAD_FIX, data_json
from experiment.importers.split import HALVES, half_of
from experiment.values.canonical import CURRENCIES, UNITS, DateValue, Quantity, Value, supports
from experiment.values.normalize import outermost, parse_value, scan
from experiment.values.question_kind import question_kind
from experiment.values.tables import article_mentions
from experiment.verify.match import verify

SECTION = "verifier"
HALF_FIGURES = ("recall", "answers", "rejection", "corruptions")
SCALE_SWAP = {
    "million": "billion",
    "billion": "million",
    "thousand": "million",
    "trillion": "billion",
}


@dataclass(frozen=True)
class Item:
    qid: str
    question: str
    kind: str
    gold: str
    context: str
    article: int
    half: str  # the title's half (experiment/importers/split.py)
    start: int = -1  # where the gold string starts in the paragraph (SQuAD's answer_start)


def load(path: Path) -> tuple[list[Item], dict[int, list[str]]]:
    """The figure and date gold answers of a SQuAD file, and each article's paragraphs; a file of
    another data set is refused naming it and the shape expected."""
    data = data_json("squad", path)
    with records_of(path, SQUAD_FIX):
        return _items(data)


def _items(data: dict[str, Any]) -> tuple[list[Item], dict[int, list[str]]]:
    items, paragraphs = [], {}
    for ai, art in enumerate(data["data"]):
        paragraphs[ai] = [p["context"] for p in art["paragraphs"]]
        for p in art["paragraphs"]:
            for qa in p["qas"]:
                golds = sorted({a["text"].strip() for a in qa["answers"]})
                kind = question_kind(qa["question"], golds)
                if kind is None:
                    continue
                starts = {}
                for a in qa["answers"]:
                    lead = len(a["text"]) - len(a["text"].lstrip())
                    at = a["answer_start"] + lead if "answer_start" in a else -1
                    starts.setdefault(a["text"].strip(), at)
                for g in golds:
                    items.append(
                        Item(
                            qa["id"],
                            qa["question"],
                            kind,
                            g,
                            p["context"],
                            ai,
                            half_of(art["title"]),
                            starts[g],
                        )
                    )
    return items, paragraphs


# Independent of the package on purpose: the test of "not in the paragraph" must not be the
# verifier under test.
WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]


def digit_runs(text: str) -> set[str]:
    runs = {re.sub(r"[,\s]", "", m) for m in re.findall(r"\d[\d,]*(?:\.\d+)?", text)}
    words = re.findall(r"[a-z]+", text.lower())
    return runs | {str(WORDS.index(w)) for w in words if w in WORDS}


def absent(candidate: str, context: str) -> bool:
    digits = digit_runs(candidate)
    return bool(digits) and not digits & digit_runs(context)


def scale_absent(corrupted: str, context: str) -> bool:
    """A scale change keeps the digits, so test the written figure instead: the corrupted
    number-and-scale must not be in the paragraph, nor the number followed by ",000"."""
    flat = re.sub(r"\s+", " ", context.lower())
    text = re.sub(r"\s+", " ", corrupted.lower().strip())
    if text in flat:
        return False
    m = re.match(r"[$€£]?([\d,.]+) thousand$", text)
    return not (m and re.search(rf"{re.escape(m.group(1))}(?:,000| thousand)", flat))


def change_digit(text: str, rng: random.Random) -> str | None:
    positions = [i for i, c in enumerate(text) if c.isdigit()]
    if not positions:
        return None
    i = rng.choice(positions)
    choices = [d for d in "0123456789" if d != text[i] and not (d == "0" and i == positions[0])]
    return text[:i] + rng.choice(choices) + text[i + 1 :]


def shift_year(text: str, rng: random.Random) -> str | None:
    m = re.search(r"\b(1[0-9]{3}|20[0-9]{2})\b", text)
    if not m:
        return None
    year = int(m.group(1)) + rng.choice((-1, 1))
    return text[: m.start()] + str(year) + text[m.end() :]


def change_scale(text: str) -> str | None:
    for word, other in SCALE_SWAP.items():
        if re.search(rf"\b{word}\b", text, re.I):
            return re.sub(rf"\b{word}\b", other, text, count=1, flags=re.I)
    bare = text.strip().rstrip(".,;:")  # "10." is the figure 10 ending a sentence
    if re.fullmatch(r"[$€£]?\d[\d,.]*", bare):
        return bare + " thousand"
    return None


def other_paragraph(item: Item, paragraphs: dict[int, list[str]], rng: random.Random) -> str | None:
    pool = []
    for ctx in paragraphs[item.article]:
        if ctx == item.context:
            continue
        for m in scan(ctx):
            wanted = DateValue if item.kind == "date" else Quantity
            # A decade or century from elsewhere can be true of this paragraph's year too.
            coarse = any(getattr(v, "granularity", "") in ("decade", "century") for v in m.values)
            if (
                not coarse
                and any(isinstance(v, wanted) for v in m.values)
                and absent(m.text, item.context)
            ):
                pool.append(m.text)
    return rng.choice(pool) if pool else None


# The causes the section names. Found by code from the values the parser read, so the section
# shows why without showing SQuAD's text.
RANK_FOR_COUNT = "rank written, count asked"
CUT = "span cut mid-figure"
CUT_WORD = "span cut mid-word"
NOT_IN_TEXT = "figure not in the paragraph"
NOT_READ = "gold not read"
OTHER_MISS = "value in the paragraph, not matched"
CONVERSION = "converted unit within tolerance"
FIRST_OF_SEVERAL = "several figures, the first (a rank) read"
NEW_YEAR = "no year, season across New Year"
COARSER = "coarser period holding a stated date"
SPELLED = "value in the paragraph, written otherwise"
UNEXPLAINED = "not explained"


def value_kind(value: Value | None) -> str:
    """What the parser read, without the value: "number", "rank", "length", "amount (USD)",
    "date (decade)", with a qualifier or "range" where it read one."""
    if value is None:
        return "nothing"
    if isinstance(value, DateValue):
        return f"date ({value.granularity}{'' if value.year_known else ', no year'})"
    if value.unit == "ord":
        kind = "rank"
    elif value.unit in CURRENCIES:
        kind = f"amount ({value.unit})"
    elif value.unit:
        kind = UNITS[value.unit][0].replace("_", " ") if value.unit in UNITS else "figure"
    else:
        kind = "number"
    extra = [q for q in (value.qualifier, "range" if value.is_range else "") if q]
    return f"{kind}, {', '.join(extra)}" if extra else kind


def _numbers(value: Value) -> tuple[float, float] | None:
    return (value.low, value.high) if isinstance(value, Quantity) else None


def _cut(it: Item) -> str:
    """Where the gold string cuts the paragraph's text: CUT where it starts or ends inside a
    figure ("5" of "45", ".7" of "1.7", "4," of "4,000") or short of a number that goes on
    ("two hundred" of "two hundred forty"); CUT_WORD inside a word that holds no figure ("ten"
    of "tenant"); "" where it cuts neither."""
    ctx, start, end = it.context, it.start, it.start + len(it.gold)
    if start < 0 or ctx[start:end] != it.gold:
        return ""

    def joined(i: int) -> bool:  # the characters either side of position i are one token
        if i <= 0 or i >= len(ctx):
            return False
        a, b = ctx[i - 1], ctx[i]
        if a.isalnum() and b.isalnum():
            return True
        # a decimal point or a thousands separator between digits: "1|.7", "4,|000"
        if a.isdigit() and b in ".,":
            return ctx[i + 1 : i + 2].isdigit()
        return a in ".," and b.isdigit() and ctx[i - 2 : i - 1].isdigit()

    over = [m for m in article_mentions(ctx) if m.values and m.start < end and start < m.end]
    if joined(start) or joined(end):
        return CUT if over else CUT_WORD
    # a number that goes on past the gold's edge (a date that holds it is read more finely)
    outside = [m for m in over if m.start < start or m.end > end]
    return CUT if any(isinstance(v, Quantity) for m in outside for v in m.values) else ""


def miss_cause(it: Item, value: Value | None) -> str:
    """Why a gold answer was not confirmed in its own paragraph, from what the parser read."""
    if value is None:
        return NOT_READ
    read = [v for m in article_mentions(it.context) for v in m.values]
    if isinstance(value, Quantity) and not value.unit:
        ranks = [v for v in read if isinstance(v, Quantity) and v.unit == "ord"]
        counts = [v for v in read if isinstance(v, Quantity) and v.unit != "ord"]
        if any(_numbers(v) == _numbers(value) for v in ranks) and not any(
            _numbers(v) == _numbers(value) for v in counts
        ):
            return RANK_FOR_COUNT
    cut = _cut(it)
    if cut:
        return cut
    if isinstance(value, Quantity) and not any(_numbers(v) == _numbers(value) for v in read):
        return NOT_IN_TEXT
    return OTHER_MISS


def evidence_value(value: Value, context: str, span: Span | None) -> Value | None:
    """The value read at the evidence span that supports `value`."""
    if span is None:
        return None
    at = [m for m in article_mentions(context) if (m.start, m.end) == (span.start, span.end)]
    values = [v for m in at or scan(span.text) for v in m.values]
    return next((v for v in values if supports(v, value)), values[0] if values else None)


def _md(d: DateValue, end: bool = False) -> tuple[int, int]:
    day = d.end if end else d.start
    return day.month, day.day


def accepted_cause(text: str, value: Value | None, evidence: Value | None, span: str) -> str:
    """Why a corruption (`text`, read as `value`) was confirmed at the evidence `span` (read as
    `evidence`), from what the parser read."""
    if value is None or evidence is None:
        return UNEXPLAINED
    if isinstance(value, Quantity) and isinstance(evidence, Quantity):
        if value.unit and evidence.unit and value.unit != evidence.unit:
            return CONVERSION
        if value.unit == "ord" and len(outermost(scan(text))) > 1:
            return FIRST_OF_SEVERAL
    if isinstance(value, DateValue) and isinstance(evidence, DateValue):
        if not value.year_known and evidence.year_known and _md(evidence, True) < _md(evidence):
            return NEW_YEAR
        inside = value.start <= evidence.start and evidence.end <= value.end
        if inside and (value.start, value.end) != (evidence.start, evidence.end):
            return COARSER
    if supports(evidence, value) and not digit_runs(text) & digit_runs(span):
        return SPELLED  # the probe's absence test (digit strings, number words) missed it
    return UNEXPLAINED


def _run(data: Path, limit: int, seed: int, write: bool) -> int:
    items, paragraphs = load(data)
    if limit:
        items = items[:limit]
    if not items:
        raise InputError(
            "no figure or date question with a gold answer",
            path=data,
            fix="give SQuAD v1.1 dev (dev-v1.1.json)",
        )
    questions = len({i.qid for i in items})

    misses: list[Item] = []
    miss_rows: list[list[str]] = []  # id, kind, what the parser read, cause: no SQuAD text
    for it in items:
        value = parse_value(it.gold, it.kind, it.question)
        if not verify(value, it.context, it.gold).confirmed:
            misses.append(it)
            miss_rows.append([it.qid, it.kind, value_kind(value), miss_cause(it, value)])

    corrupt: dict[str, list[tuple[Item, str]]] = {
        "digit": [],
        "year": [],
        "scale": [],
        "other paragraph": [],
    }
    for it in items:
        # each answer's own generator: its corruptions do not depend on which other answers
        # the normalizer reads, so two versions of the verifier are compared on the same draws
        rng = random.Random(f"{seed}:{it.qid}:{it.gold}")
        for name, text in (
            ("digit", change_digit(it.gold, rng)),
            ("year", shift_year(it.gold, rng) if it.kind == "date" else None),
            ("scale", change_scale(it.gold) if it.kind == "figure" else None),
            ("other paragraph", other_paragraph(it, paragraphs, rng)),
        ):
            fresh = (
                scale_absent(text, it.context)
                if name == "scale" and text
                else (text and absent(text, it.context))
            )
            if text and text != it.gold and fresh:
                corrupt[name].append((it, text))
    # per corruption: the item, then what the parser read of the corruption and of the
    # evidence, and the cause; the corrupted string (made from the gold) is not kept
    accepted: dict[str, list[tuple[Item, str, str, str]]] = {k: [] for k in corrupt}
    for name, pairs in corrupt.items():
        for it, text in pairs:
            value = parse_value(text, it.kind, it.question)
            v = verify(value, it.context, text)
            if v.confirmed and value is not None:
                evidence = evidence_value(value, it.context, v.span)
                span = v.span.text if v.span else ""
                accepted[name].append(
                    (
                        it,
                        value_kind(value),
                        value_kind(evidence),
                        accepted_cause(text, value, evidence, span),
                    )
                )

    checks = [(it.gold, it.kind, it.context) for it in items]
    checks += [(t, it.kind, it.context) for pairs in corrupt.values() for it, t in pairs]
    scan.cache_clear()
    t0 = time.perf_counter()
    for text, kind, ctx in checks:
        scan.cache_clear()
        verify(parse_value(text, kind), ctx, text)
    cold = len(checks) / (time.perf_counter() - t0)
    scan.cache_clear()
    t0 = time.perf_counter()
    for text, kind, ctx in checks:
        verify(parse_value(text, kind), ctx, text)
    warm = len(checks) / (time.perf_counter() - t0)

    kinds = Counter(i.kind for i in items)
    by_half = {h: _half_rates(h, items, misses, corrupt, accepted) for h in HALVES}
    figures = {
        "questions": questions,
        "kinds": {"figure": kinds["figure"], "date": kinds["date"]},
        "answers": len(items),
        "misses": miss_rows,
        "corruptions": {name: len(pairs) for name, pairs in corrupt.items()},
        "accepted": {
            name: [[it.qid, it.kind, *rest] for it, *rest in acc] for name, acc in accepted.items()
        },
        "halves": {h: dict(zip(HALF_FIGURES, got, strict=True)) for h, got in by_half.items()},
        "checks_per_s": {"warm": warm, "cold": cold},
    }  # fmt: skip
    command_line = (
        f"factqa bench verifier PATH/TO/dev-v1.1.json{f' --limit {limit}' if limit else ''} "
        f"--seed {seed}"
    )
    record = measured(SECTION, command_line, figures)
    finish(RESULTS_MD, record, write)
    return 0


def rates(f: dict[str, Any]) -> tuple[float, float]:
    """Recall and rejection from the record's figures."""
    total = sum(f["corruptions"].values())
    taken = sum(len(a) for a in f["accepted"].values())
    return 1 - len(f["misses"]) / f["answers"], 1 - taken / max(total, 1)


def line(f: dict[str, Any]) -> str:
    """The machine-readable line: checks_per_s is the rate as the verifier is used (each
    paragraph scanned once, when first seen, then looked up); the section gives the cold worst
    case too."""
    recall, rejection = rates(f)
    ev = f["halves"]["eval"]
    return (
        f"recall={recall:.4f} rejection={rejection:.4f} "
        f"checks_per_s={f['checks_per_s']['warm']:.0f} "
        f"recall_eval={ev['recall']:.4f} rejection_eval={ev['rejection']:.4f}"
    )


@renders(SECTION, "verifier")
def section(record: Record) -> str:
    """docs/RESULTS.md's `verifier` section from its record."""
    f = record.figures
    recall, rejection = rates(f)
    n, total = f["answers"], sum(f["corruptions"].values())
    taken = sum(len(a) for a in f["accepted"].values())
    lines = [
        "## Verifier on SQuAD v1.1 dev (figure and date questions)",
        "",
        f"Command: `{record.command}` (commit `{record.commit}`, {record.date})",
        "",
        f"- questions kept by the figure/date rule: {f['questions']} "
        f"({f['kinds']['figure']} figure and {f['kinds']['date']} date gold answers, {n} in all)",
        f"- **recall** (gold confirmed in its own paragraph): **{recall:.4f}** "
        f"({n - len(f['misses'])}/{n})",
        f"- **rejection** (corruptions refused): **{rejection:.4f}** ({total - taken}/{total})",
    ]
    for name, count in f["corruptions"].items():
        lines.append(f"  - {name}: {1 - len(f['accepted'][name]) / max(count, 1):.4f} of {count}")
    for h, got in f["halves"].items():
        lines.append(
            f"- {'evaluation' if h == 'eval' else 'fitting'} titles: recall {got['recall']:.4f} of "
            f"{got['answers']} gold answers, rejection {got['rejection']:.4f} of "
            f"{got['corruptions']} corruptions"
        )
    speed = f["checks_per_s"]
    lines += [
        f"- **speed** on one core: **{speed['warm']:,.0f} checks/s** as used (each paragraph "
        "scanned once, when first checked; the cache starts empty), "
        f"{speed['cold']:,.0f} checks/s in the worst case (the paragraph scanned again for every "
        "check)",
        "",
        *miss_table(f["misses"]),
        "",
        *accepted_table(f["accepted"]),
        "",
        f"`{line(f)}`",
    ]
    return "\n".join(lines)


def _half_rates(
    half: str,
    items: list[Item],
    misses: list[Item],
    corrupt: dict[str, list[tuple[Item, str]]],
    accepted: dict[str, list[tuple[Item, str, str, str]]],
) -> tuple[float, int, float, int]:
    """Recall (of how many) and rejection (of how many) on one half's titles."""
    n_rec = sum(it.half == half for it in items)
    missed = sum(it.half == half for it in misses)
    n_rej = sum(it.half == half for pairs in corrupt.values() for it, _ in pairs)
    taken = sum(it.half == half for acc in accepted.values() for it, *_ in acc)
    return 1 - missed / max(n_rec, 1), n_rec, 1 - taken / max(n_rej, 1), n_rej


def _by_cause_lines(rows: list[tuple[str, str]]) -> list[str]:
    """One line per cause, the most frequent first: its count and the cases' labels."""
    by: dict[str, list[str]] = {}
    for label, cause in rows:
        by.setdefault(cause, []).append(label)
    ordered = sorted(by.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return [f"- {cause} ({len(labels)}): {', '.join(labels)}" for cause, labels in ordered]


def miss_table(rows: list[list[str]]) -> list[str]:
    """The recall misses by cause, each with its question ids (a row: question id, kind, what the
    parser read of the gold, cause). No gold string: it is SQuAD's text."""
    return [
        f"### Recall misses ({len(rows)})",
        "",
        *_by_cause_lines([(f"{r[0]} ({r[1]}, read as {r[2]})", r[-1]) for r in rows]),
    ]


def accepted_table(rows: dict[str, list[list[str]]]) -> list[str]:
    """The corruptions accepted by cause, each with its question ids and corruption (a row:
    question id, kind, what the parser read of the corruption and of the evidence, cause). No
    gold, corrupted or evidence string: each is SQuAD's text or made from it."""
    every = [
        (f"{r[0]} ({name}, {r[2]} against {r[3]})", r[-1])
        for name, acc in rows.items()
        for r in acc
    ]
    return [f"### Corruptions accepted ({len(every)})", "", *_by_cause_lines(every)]


@command("verifier")
def verifier_command(
    data: Annotated[Path, typer.Argument(help="SQuAD v1.1 dev (dev-v1.1.json).")],
    limit: Annotated[int, typer.Option(help="Only the first N gold answers.", min=0)] = 0,
    seed: Annotated[int, typer.Option(help="Seed of the rejection probes.")] = 0,
    write: WriteOpt = False,
) -> None:
    """Verifier quality on SQuAD v1.1 dev figure/date questions: recall, rejection, speed."""
    code = _run(data, limit, seed, write)
    if code:
        raise typer.Exit(code)
