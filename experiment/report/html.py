"""One self-contained HTML page for a run: provenance, the method table, the plots, and a card per
question with its samples and the article's evidence spans highlighted; an article's Markdown
tables show as tables, the kept answer's cell and its row and column headers marked.

`write_html(run_dir)` writes `RUN/report.html`. It needs no network and no server: the plots are
inlined as PNG data, the style and the filtering script are in the page. Rendering goes through a
Jinja2 template with autoescaping, so text from articles, questions and models shows as text
(a `<script>` in a question is never run). Every card is in the page; the script shows 50 at a
time for the chosen filter, so a page of thousands of questions stays usable.

Filters (counts beside each): all, wrong, confirmed but wrong, small and large disagree, abstained,
failed; all of them for small-verified@k (the method as the user stated it), and a text search over
the questions. A card shows the claim's methods' answers (large@1, small-verified@k,
small-pipeline@k, small-selected@k), the others on demand. The method table sorts by any column
(click its header) and a method filter narrows it and the cards' answers; its numbers never wrap
inside a cell.
"""

from __future__ import annotations

import base64
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from experiment.base.errors import InputError
from experiment.corpus import load_articles
from experiment.evaluate.methods import REFERENCE
from experiment.record.manifest import Manifest
from experiment.report.machine import cores_phrase, cpu_phrase, run_facts
from experiment.report.markdown import run_command
from experiment.report.plots import plot_files
from experiment.report.run import Run, load_run
from experiment.report.tables import FULL, method_cells
from experiment.values.tables import Table, parse_tables

TEMPLATE = "report.html.j2"
FILTERS = (
    ("all", "all"),
    ("wrong", "wrong"),
    ("in_text_wrong", "confirmed but wrong"),
    ("disagree", "small and large disagree"),
    ("abstained", "abstained"),
    ("failed", "failed"),
)


@dataclass
class Piece:
    """A stretch of article text: plain, a confirming span, or the kept answer's span."""

    text: str
    kind: str = ""  # "", "span" or "kept"
    start: int = 0
    end: int = 0
    anchor: str = ""


@dataclass
class CellView:
    """A table cell of the page: its text pieces, `th` in a header row, and what it is to the
    kept answer ("kept-cell" for its cell, "kept-row-head" / "kept-col-head" for its headers)."""

    pieces: list[Piece]
    tag: str
    mark: str = ""


@dataclass
class Block:
    """A stretch of the article: text pieces, or a table's rows of cells."""

    pieces: list[Piece] = field(default_factory=list)
    rows: list[list[CellView]] = field(default_factory=list)


@dataclass
class Card:
    index: int
    qid: str
    question: str
    gold: str
    methods: list[dict[str, Any]]
    samples: list[dict[str, Any]]
    blocks: list[Block]
    flags: dict[str, bool] = field(default_factory=dict)


Marks = list[tuple[int, int]]


def _cut(
    text: str, lo: int, hi: int, marks: Marks, kept: tuple[int, int] | None, n: int
) -> list[Piece]:
    """text[lo:hi] cut at every mark inside it; the kept span is marked apart."""
    out, pos = [], lo
    for start, end in marks:
        if start < pos or end > hi:
            continue  # overlaps the previous mark, or leaves the stretch: keep the first
        out.append(Piece(text[pos:start]))
        kind = "kept" if kept == (start, end) else "span"
        out.append(Piece(text[start:end], kind, start, end, f"q{n}-{start}-{end}"))
        pos = end
    out.append(Piece(text[pos:hi]))
    return out


def _table_rows(
    text: str, table: Table, marks: Marks, kept: tuple[int, int] | None, n: int
) -> list[list[CellView]]:
    """The table's cells, the kept answer's cell and its row and column headers marked."""
    cell = table.cell_at(*kept) if kept else None
    heads = {}
    if cell is not None:
        heads = {(h.start, h.end): "kept-row-head" for h in cell.row_headers}
        heads |= {(h.start, h.end): "kept-col-head" for h in cell.column_headers}
        heads[(cell.start, cell.end)] = "kept-cell"
    return [
        [
            CellView(
                _cut(text, c.start, c.end, marks, kept, n),
                "th" if c.header else "td",
                heads.get((c.start, c.end), ""),
            )
            for c in row
        ]
        for row in table.rows
    ]


def _blocks(text: str, spans: Marks, kept: tuple[int, int] | None, n: int) -> list[Block]:
    """The article as text and tables, cut at every span; a span that crosses a cell's or a
    table's edge is not marked."""
    marks = sorted({s for s in spans if 0 <= s[0] < s[1] <= len(text)})
    blocks, pos = [], 0
    for table in parse_tables(text):
        blocks.append(Block(_cut(text, pos, table.start, marks, kept, n)))
        blocks.append(Block(rows=_table_rows(text, table, marks, kept, n)))
        pos = table.end
    blocks.append(Block(_cut(text, pos, len(text), marks, kept, n)))
    return blocks


def _span(row: Mapping[str, Any]) -> tuple[int, int] | None:
    """The kept answer's span cells of a questions.csv row."""
    if str(row.get("span_start", "")).strip() in ("", "nan"):
        return None
    return int(float(row["span_start"])), int(float(row["span_end"]))


def _cards(run: Run, kept: str, articles: dict[str, Any]) -> list[Card]:
    attempts = run.attempts
    claim = claim_methods(run)
    small = attempts[attempts.role == "small"]
    by_q = {qid: g for qid, g in small.groupby("question_id", sort=False)}
    cards = []
    for n, row in enumerate(run.questions.to_dict("records")):
        art = articles.get(row["article_id"])
        text = art.text if art is not None else ""
        samples, spans = [], []
        mine = by_q.get(row["question_id"], small.iloc[:0])
        for sd in mine.to_dict("records"):
            # a derived answer's evidence is its operands' spans, each marked in the article
            operands = [(o.start, o.end) for o in sd["operand_spans"]] if sd["derived"] else []
            first = sd["spans"][0] if sd["confirmed"] and sd["spans"] else None
            span = (first.start, first.end) if first else (operands[0] if operands else None)
            if first:
                spans.append((first.start, first.end))
            spans.extend(operands)
            samples.append(
                {
                    "index": sd["sample_index"],
                    "raw": sd["raw_text"],
                    "value": sd["value"],
                    "confirmed": sd["confirmed"],
                    "derived": sd["derived"],
                    "anchor": f"q{n}-{span[0]}-{span[1]}" if span else "",
                }
            )
        kept_span = _span(row)
        if kept_span:
            spans.append(kept_span)
        methods = [
            {
                "name": m,
                "answer": row[f"{m}.answer"] or ("abstained" if row[f"{m}.abstained"] else "—"),
                "correct": row[f"{m}.correct"],
                "claim": m in claim,
            }
            for m in run.methods
        ]
        k_answer, large_answer = row[f"{kept}.value"], row[f"{REFERENCE}.value"]
        flags = {
            "all": True,
            "wrong": not row[f"{kept}.correct"],
            "in_text_wrong": bool(row.get(f"{kept}.in_text_wrong", False)),
            "disagree": k_answer != large_answer,
            "abstained": row[f"{kept}.abstained"],
            "failed": bool(row.get(f"{kept}.failed", False)),
        }
        cards.append(
            Card(
                n,
                row["question_id"],
                row["question"],
                row["gold"],
                methods,
                samples,
                _blocks(text, spans, kept_span, n),
                flags,
            )
        )
    return cards


def claim_methods(run: Run) -> list[str]:
    """The methods a card shows first: large@1, the method as the user stated it, the small
    pipeline's answer and the learned selector's pick (the rest are one click away)."""
    shown = (REFERENCE, run.verified, run.pipeline, run.selected)
    return [m for m in shown if m is not None and run.has(m)]


def _plots(run: Run) -> list[tuple[str, str]]:
    with tempfile.TemporaryDirectory() as tmp:
        return [
            (p.stem.replace("_", " "), base64.b64encode(p.read_bytes()).decode("ascii"))
            for p in plot_files(run, Path(tmp))
        ]


def _articles_folder(run: Run, articles_dir: Path | None) -> Path:
    """The folder of the run's articles: `articles_dir`, else the one the run read."""
    folder = Path(articles_dir or run.manifest.config.articles)
    if not str(folder) or not folder.is_dir():
        raise InputError(
            "the run's articles folder is not here", path=folder, fix="pass --articles FOLDER"
        )
    return folder


def validate_html(run: Run, articles_dir: Path | None = None) -> None:
    """What the page needs beyond the run's tables, validated before anything is written: its
    attempts.csv and its articles folder."""
    from experiment.report.validate import validated_attempts

    validated_attempts(run)
    _articles_folder(run, articles_dir)


def render_html(run_dir: Path, articles_dir: Path | None = None) -> str:
    """The page of the run in `run_dir` (articles from the run's own articles folder unless
    `articles_dir` is given)."""
    import jinja2

    run = load_run(run_dir)
    m = run.manifest
    articles = load_articles(_articles_folder(run, articles_dir))
    kept = run.verified  # the method as the user stated it
    header, rows = method_cells(run.summary.itertuples(), FULL)
    cards = _cards(run, kept, articles)
    counts = {key: sum(c.flags[key] for c in cards) for key, _ in FILTERS}
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("experiment.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    return env.get_template(TEMPLATE).render(
        title=f"factqa run {m.run_id}",
        m=m,
        command=run_command(m),
        models=m.models,
        header=header,
        rows=rows,
        plots=_plots(run),
        cards=cards,
        filters=FILTERS,
        counts=counts,
        kept=kept,
        scored_against=run.scored_against,
        machine=_machine_line(m),
    )


def _machine_line(m: Manifest) -> str:
    """Where the run ran and how busy the machine was; "" where the manifest has no machine."""
    facts = run_facts(m.machine, m.cpu_seconds, m.load, m.load_warning)
    parts = [p for p in (cores_phrase(facts), cpu_phrase(facts)) if p]
    build = m.machine.ggml_commit
    if parts and build:
        parts.append(f"llama.cpp {build}")
    return " · ".join(parts)


def write_html(run_dir: Path, articles_dir: Path | None = None) -> Path:
    """RUN/report.html, only into a run folder factqa wrote, and only over a report.html it
    wrote (`record.manifest.run_ledger`)."""
    from experiment.record.manifest import NOT_OURS, run_ledger

    ledger = run_ledger(run_dir)
    ledger.check("report.html", NOT_OURS)  # before the page is drawn
    ledger.write({"report.html": render_html(run_dir, articles_dir)}, NOT_OURS)
    return run_dir / "report.html"
