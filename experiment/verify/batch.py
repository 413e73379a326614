"""Batch verification: confirm answers from any system in the articles, row by row.

Input columns: `answer`, and `article_id` (an id in the articles folder) or `article` (a path to
an article file); optional `question_id`, `question` and `kind`. A row that names an unknown
article is reported in its own `reason` and the other rows are still verified.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from experiment.base.errors import FactQAError, InputError
from experiment.base.files import Ledger, csv_data
from experiment.base.types import Article, span_cells
from experiment.corpus import read_article, read_text, refuse_repeated
from experiment.verify.answer import Confirmation, confirm_text
from experiment.verify.derive import (
    confirm_derivation,
    confirm_expression,
    is_computed,
    is_derivation,
)

RESULT_COLUMNS = ("confirmed", "value", "span_start", "span_end", "span_text", "reason")


@dataclass
class VerifyStats:
    rows: int = 0
    confirmed: int = 0
    errors: int = 0
    first_error: str = ""


def confirm_answer(answer: str, article: Article, question: str = "", kind: str = "") -> dict:
    """One answer against one article: the result columns of a verified row.

    Without a kind, the figure reading is tried first and the date reading if it is not confirmed.
    A derivation ("8 = 9 - 2") or a calculation ("9 - 2") is confirmed as `--article` does:
    its arithmetic and every operand, never its result alone.
    """
    if is_computed(answer, kind):
        return _derivation_cells(answer, article)
    chosen: Confirmation | None = None
    reason = ""
    for k in [kind] if kind in ("figure", "date") else ["figure", "date"]:
        found = confirm_text(answer, article.text, question, k)
        if found.best is None:
            reason = reason or found.reason
            continue
        if chosen is None or found.confirmed:
            chosen = found
        if found.confirmed:
            break
    best = chosen.best if chosen else None
    return {
        "confirmed": "true" if chosen and chosen.confirmed else "false",
        "value": best.value.canonical() if best else "",
        **span_cells(chosen.span if chosen else None),
        "reason": chosen.reason if chosen else reason,
    }


def _derivation_cells(answer: str, article: Article) -> dict:
    """The result columns of a derivation or calculation: its result (or the calculator's) and
    its first operand's span."""
    d = (confirm_derivation if is_derivation(answer) else confirm_expression)(answer, article.text)
    value = d.result or d.computed
    span = next((o.span for o in d.operands if o.span is not None), None)
    return {
        "confirmed": "true" if d.confirmed else "false",
        "value": value.canonical() if value else "",
        **span_cells(span),
        "reason": d.reason,
    }


class ArticleSource:
    """Articles by id from a folder, or by path, each read once."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._by_id: dict[str, Article] | None = None
        self._by_path: dict[Path, Article] = {}

    def read_paths(self) -> list[Path]:
        """The article files read by path so far."""
        return list(self._by_path)

    def get(self, row: dict[str, str]) -> Article:
        if row.get("article"):
            path = Path(row["article"])
            if path not in self._by_path:
                self._by_path[path] = read_article(path)
            return self._by_path[path]
        article_id = (row.get("article_id") or "").strip()
        if self._by_id is None:
            from experiment.corpus import load_articles

            if self.folder is None:
                raise FactQAError("rows name article ids: pass --articles with their folder")
            self._by_id = load_articles(self.folder)
        if article_id not in self._by_id:
            raise FactQAError(f"unknown article '{article_id}'")
        return self._by_id[article_id]


def verify_rows(path: Path, articles: ArticleSource) -> Iterator[tuple[dict[str, str], dict]]:
    with io.StringIO(read_text(path), newline="") as f:
        reader = csv.DictReader(f, strict=True)
        try:
            header = reader.fieldnames or []
        except csv.Error as e:
            raise InputError(
                f"malformed CSV header ({e})", path=path, line=1, fix="close every quoted cell"
            ) from None
        refuse_repeated(header, path, "rename or remove one of them")
        if "answer" not in header or not {"article_id", "article"} & set(header):
            raise InputError(
                "needs an 'answer' column and an 'article_id' or 'article' column",
                path=path,
                line=1,
                fix="add the columns to the header line",
            )
        try:
            for row in reader:
                if None in row:
                    raise InputError(
                        f"{len(header) + len(row[None])} cells, the header names {len(header)}",
                        path=path,
                        line=reader.line_num,
                        fix="quote cells that hold a comma, or name every column in the header",
                    )
                try:
                    article = articles.get(row)
                except InputError:
                    raise
                except FactQAError as e:
                    yield (
                        row,
                        {c: "" for c in RESULT_COLUMNS}
                        | {"confirmed": "false", "reason": f"line {reader.line_num}: {e}"},
                    )
                    continue
                yield (
                    row,
                    confirm_answer(
                        row["answer"] or "",
                        article,
                        row.get("question") or "",
                        (row.get("kind") or "").strip().lower(),
                    ),
                )
        except csv.Error as e:
            raise InputError(
                f"malformed CSV ({e})",
                path=path,
                line=reader.line_num,
                fix="close every quoted cell",
            ) from None


def read_files(path: Path, articles: ArticleSource) -> list[Path]:
    """Every file a verification of `path` reads: the CSV, the articles it names by path, and
    every article file of the --articles folder."""
    folder = articles.folder
    found = [*folder.glob("*.md"), *folder.glob("*.txt")] if folder and folder.is_dir() else []
    return [path, *articles.read_paths(), *found]


def refuse_input(out: Path, path: Path, articles: ArticleSource) -> None:
    """`out` is none of the files the verification reads (links followed)."""
    target = out.resolve()
    for read in read_files(path, articles):
        if read.resolve() == target:
            raise InputError(
                "is a file the verification reads, so it is not written over",
                path=out,
                field="--out",
                fix="give --out another file",
            )


def verify_file(
    path: Path, out: Path, articles: ArticleSource, overwrite: bool = False
) -> VerifyStats:
    """Write `out` with every input column plus the result columns; return the counts. `out`
    is never one of the files read, and replaces only a file factqa wrote (`files.Ledger`)
    unless `overwrite`."""
    refuse_input(out, path, articles)
    ledger = Ledger.open(out.parent)
    if not overwrite:
        ledger.check(out.name, OVERWRITE)  # before any row is read
    stats = VerifyStats()
    rows = []
    columns: list[str] = []
    for row, result in verify_rows(path, articles):
        if not columns:
            columns = [c for c in row if c not in RESULT_COLUMNS] + list(RESULT_COLUMNS)
        stats.rows += 1
        stats.confirmed += result["confirmed"] == "true"
        failed = result["reason"].startswith("line ")
        stats.errors += failed
        stats.first_error = stats.first_error or (result["reason"] if failed else "")
        rows.append(row | result)
    if not rows:  # a header alone (or an empty file): nothing to verify, nothing written
        raise InputError(
            "no answer rows, nothing to verify",
            path=path,
            line=2,
            fix="add one row per answer under the header (answer, and article or article_id)",
        )
    refuse_input(out, path, articles)  # the rows may name articles by path
    data = csv_data(out.name, rows, columns or ["answer", *RESULT_COLUMNS])
    ledger.write({out.name: data}, OVERWRITE, replace_theirs=overwrite)
    return stats


OVERWRITE = "give --out another file, move that one away, or pass --overwrite to replace it"
