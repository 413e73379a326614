"""Load articles (Markdown with a YAML front matter block, or plain `.txt` files) and questions
(CSV), refusing bad input.

Every refusal is an `InputError` naming the file, the line, the field and the fix. Loading checks
the whole corpus before a run writes anything: a question pointing to a missing article, or a gold
answer that cannot be read as a figure or date, stops the run at the start, not an hour in.
"""

from __future__ import annotations

import csv
import datetime as dt
import re
from collections.abc import Iterable
from pathlib import Path

import yaml

from experiment.base.errors import InputError
from experiment.base.files import safe_name
from experiment.base.groups import dealt
from experiment.base.types import UNANSWERABLE, Article, Question
from experiment.values.normalize import parse_value
from experiment.values.question_kind import wording_kind

QUESTION_COLUMNS = ("id", "article_id", "question", "answers", "kind")  # as importers write them
REQUIRED_COLUMNS = ("id", "article_id", "question")
OPTIONAL_COLUMNS = ("notes", "cluster", "computed")
FLAGS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False, "": False}
KINDS = ("figure", "date")
ANSWER_SEPARATOR = "|"


def read_text(path: Path) -> str:
    """A UTF-8 text file (a BOM is dropped), or an InputError naming the line of a bad byte (a
    NUL byte too: valid UTF-8, but the mark of a binary file)."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise InputError(f"cannot read file ({e.strerror})", path=path) from e
    nul = data.find(b"\0")
    if nul >= 0:
        raise InputError(
            f"has a NUL byte (byte {nul}): a binary file, not text",
            path=path,
            line=data[:nul].count(b"\n") + 1,
            fix="give a text file, saved as UTF-8",
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise InputError(
            f"not valid UTF-8 (byte {e.start})",
            path=path,
            line=line,
            fix="save the file as UTF-8",
        ) from e


def _validate_id(value: object, path: Path, line: int, field: str) -> str:
    text = "" if value is None else str(value).strip()
    if not text:
        raise InputError("is empty", path=path, line=line, field=field, fix=f"give a {field}")
    if not safe_name(text):
        raise InputError(
            f"'{text}' is not a safe id",
            path=path,
            line=line,
            field=field,
            fix="use letters, digits, '-', '_' and '.' only, starting with a letter or digit",
        )
    return text


class _BadDate(str):
    """A front matter value written like a date that is no date (2025-02-30): kept as its text,
    with its line in the front matter, so only a field read as a date refuses it."""

    line: int


class _FrontMatter(yaml.SafeLoader):
    """YAML's safe loader, except that an impossible date is a `_BadDate`, not a ValueError."""

    def construct_yaml_timestamp(self, node: yaml.Node) -> object:  # type: ignore[override]
        try:
            return super().construct_yaml_timestamp(node)  # type: ignore[arg-type]
        except ValueError:
            bad = _BadDate(node.value)
            bad.line = node.start_mark.line
            return bad


_FrontMatter.add_constructor("tag:yaml.org,2002:timestamp", _FrontMatter.construct_yaml_timestamp)
SCALARS = (str, int, float, dt.date)  # what a front matter field may be (a datetime is a date)
FRONT_LINE = 2  # the file line of the front matter's first line


def _front_matter(path: Path, lines: list[str], close: int) -> dict:  # type: ignore[type-arg]
    """The front matter between the '---' lines as a mapping, or an InputError at its line."""
    try:
        meta = yaml.load("".join(lines[1:close]), Loader=_FrontMatter) or {}
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + FRONT_LINE if mark is not None else FRONT_LINE
        raise InputError(
            f"front matter is not valid YAML ({getattr(e, 'problem', e)})",
            path=path,
            line=line,
            fix="write 'key: value' lines; quote values that contain ':'",
        ) from None
    except ValueError as e:  # a value its tag cannot hold: '!!int x', '!!float y'
        raise InputError(
            f"front matter has a value YAML cannot read ({e})",
            path=path,
            line=FRONT_LINE,
            fix="write plain 'key: value' lines without '!!' tags",
        ) from None
    except RecursionError:
        raise InputError(
            "front matter is nested too deeply",
            path=path,
            line=FRONT_LINE,
            fix="write flat 'key: value' lines",
        ) from None
    if not isinstance(meta, dict):
        raise InputError(
            "front matter is not a mapping",
            path=path,
            line=FRONT_LINE,
            fix="write 'key: value' lines",
        )
    return meta


def _line_of(key: str, lines: list[str], close: int) -> int:
    """The file line of `key` in the front matter (its first line when not found)."""
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*:")
    return next((i + 1 for i in range(1, close) if pattern.match(lines[i])), FRONT_LINE)


def _published(value: object, path: Path) -> str:
    """The publication date as written (a YAML date as YYYY-MM-DD); an impossible one refused."""
    if isinstance(value, _BadDate):
        raise InputError(
            f"'{value}' is not a real date",
            path=path,
            line=value.line + FRONT_LINE,
            field="published",
            fix="write the date as YYYY-MM-DD, e.g. 'published: 2024-03-01'",
        )
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()[:10]
    return str(value)


def parse_article(path: Path) -> Article:
    """One article file: front matter with id, title, published; then a non-empty body."""
    text = read_text(path)
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise InputError(
            "has no front matter",
            path=path,
            line=1,
            fix="start the file with '---', then 'id:', 'title:', 'published:' lines, then '---'",
        )
    try:
        close = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise InputError(
            "front matter is not closed", path=path, line=1, fix="add a line '---' after it"
        ) from None
    meta = _front_matter(path, lines, close)
    for key in ("id", "title", "published"):
        if key not in meta or meta[key] in (None, ""):
            raise InputError(
                "is missing from the front matter",
                path=path,
                line=FRONT_LINE,
                field=key,
                fix=f"add a line '{key}: ...'",
            )
        if not isinstance(meta[key], SCALARS):
            raise InputError(
                f"must be one value, got {type(meta[key]).__name__}",
                path=path,
                line=_line_of(key, lines, close),
                field=key,
                fix=f"write '{key}: ...' with one value on its line",
            )
    article_id = _validate_id(meta["id"], path, _line_of("id", lines, close), "id")
    published = _published(meta["published"], path)
    body = "".join(lines[close + 1 :]).strip()
    if not body:
        raise InputError(
            "article body is empty",
            path=path,
            line=close + 2,
            fix="write the article text after the front matter",
        )
    return Article(article_id, str(meta["title"]).strip(), published, body, path)


def plain_article(path: Path) -> Article:
    """A plain-text article: the id and title are the file name without `.txt`; no date."""
    article_id = _validate_id(path.stem, path, 1, "file name")
    body = read_text(path).strip()
    if not body:
        raise InputError("article is empty", path=path, line=1, fix="write the article text")
    return Article(article_id, path.stem, "", body, path)


def read_article(path: Path) -> Article:
    """One article file: `.txt` is plain text, anything else Markdown with front matter."""
    if path.is_dir():
        raise InputError(
            "is a folder, not an article file", path=path, fix="give the path of a .md or .txt"
        )
    if not path.is_file():
        raise InputError("article file not found", path=path, fix="give the path of a .md or .txt")
    return plain_article(path) if path.suffix.lower() == ".txt" else parse_article(path)


def read_given_article(path: Path) -> Article:
    """An article named on its own (`factqa ask`): Markdown with front matter when it starts
    with '---', plain text otherwise, whatever its extension."""
    if path.is_dir():
        raise InputError(
            "is a folder, not an article file", path=path, fix="give the path of a .md or .txt"
        )
    if not path.is_file():
        raise InputError("article file not found", path=path, fix="give the path of a .md or .txt")
    text = read_text(path)
    if text.lstrip().startswith("---"):
        return parse_article(path)
    if not text.strip():
        raise InputError("article is empty", path=path, line=1, fix="write the article text")
    return Article(path.stem, path.stem, "", text.strip(), path)


def load_articles(folder: Path) -> dict[str, Article]:
    """All `*.md` (with front matter) and `*.txt` (plain) articles of a folder, keyed by id."""
    if folder.is_file():
        raise InputError(
            "is a file, not a folder of articles",
            path=folder,
            fix="pass --articles with the folder that holds it",
        )
    if not folder.is_dir():
        raise InputError(
            "articles folder not found",
            path=folder,
            fix="pass --articles with a folder of .md or .txt files",
        )
    articles: dict[str, Article] = {}
    files = sorted([*folder.glob("*.md"), *folder.glob("*.txt")])
    for path in files:
        if path.name.lower() in ("readme.md", "readme.txt"):
            continue
        article = read_article(path)
        if article.id in articles:
            raise InputError(
                f"duplicate article id '{article.id}' (also in {articles[article.id].source.name})",
                path=path,
                line=2 if path.suffix.lower() == ".md" else 1,
                field="id",
                fix="give each article its own id (a .txt article's id is its file name)",
            )
        articles[article.id] = article
    if not articles:
        raise InputError(
            "no .md or .txt articles in folder", path=folder, fix="add articles or pass --articles"
        )
    return articles


def _question_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if path.is_dir():
        files = sorted(path.glob("*.csv"))
        if files:
            return files
    raise InputError(
        "no questions file (.csv) found",
        path=path,
        fix="pass --questions with a CSV file or a folder of them",
    )


def _read_rows(path: Path) -> Iterable[tuple[int, dict[str, str]]]:
    text = read_text(path)
    reader = csv.reader(text.splitlines(keepends=True), strict=True)
    try:
        header = next(reader, None)
        if header is None:
            raise InputError(
                "file is empty",
                path=path,
                line=1,
                fix=f"add a header line: {','.join(QUESTION_COLUMNS)},notes",
            )
        header = [h.strip() for h in header]
        refuse_repeated(header, path, "keep one column of each name")
        missing = [c for c in REQUIRED_COLUMNS if c not in header]
        for sep in (";", "\t", "|"):
            if missing and len(header) == 1 and sep in header[0]:
                raise InputError(
                    f"the header is one cell holding {sep!r}: the columns are separated by "
                    f"{sep!r}, not by commas",
                    path=path,
                    line=1,
                    fix="save the file with commas between the columns (CSV)",
                )
        if missing:
            raise InputError.missing_columns(
                missing,
                path,
                f"the header must name {', '.join(REQUIRED_COLUMNS)} (and optionally "
                "answers, kind, notes, cluster, computed)",
            )
        extra = [c for c in header if c not in QUESTION_COLUMNS + OPTIONAL_COLUMNS]
        if extra:
            raise InputError(
                f"unknown column(s) {', '.join(extra)}",
                path=path,
                line=1,
                field=extra[0],
                fix=f"use only {', '.join(QUESTION_COLUMNS + OPTIONAL_COLUMNS)}",
            )
        for row in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise InputError(
                    f"has {len(row)} cells, the header has {len(header)}",
                    path=path,
                    line=line,
                    fix="quote cells that contain commas",
                )
            yield line, dict(zip(header, row, strict=True))
    except csv.Error as e:
        raise InputError(
            f"malformed CSV ({e})", path=path, line=reader.line_num, fix="close every quoted cell"
        ) from None


def _parse_gold(raw: str, kind: str, question: str, path: Path, line: int) -> tuple[str, ...]:
    gold = tuple(g.strip() for g in raw.split(ANSWER_SEPARATOR) if g.strip())
    if not gold:
        raise InputError(
            "gold answer is empty",
            path=path,
            line=line,
            field="answers",
            fix=f"write the answer, or '{UNANSWERABLE}'",
        )
    if gold == (UNANSWERABLE,):
        return gold
    for g in gold:
        if parse_value(g, kind, question) is None:
            raise InputError(
                f"gold answer '{g}' cannot be read as a {kind}",
                path=path,
                line=line,
                field="answers",
                fix="write it as a figure or date, e.g. '1,200' or 'March 2021'",
            )
    return gold


def _one_of(
    value: str, allowed: Iterable[str], path: Path, line: int, field: str, raw: str, fix: str
) -> None:
    if value not in allowed:
        raise InputError(
            f"{field} '{raw}' is unknown", path=path, line=line, field=field, fix=f"write {fix}"
        )


def load_questions(path: Path, articles: dict[str, Article] | None = None) -> list[Question]:
    """Questions from a CSV file or a folder of them, validated against `articles` if given."""
    questions: list[Question] = []
    seen: dict[str, tuple[Path, int]] = {}
    for file in _question_files(path):
        for line, row in _read_rows(file):
            qid = _validate_id(row["id"], file, line, "id")
            if qid in seen:
                other = seen[qid]
                raise InputError(
                    f"duplicate question id '{qid}' (first at {other[0].name}:{other[1]})",
                    path=file,
                    line=line,
                    field="id",
                    fix="give each question its own id",
                )
            seen[qid] = (file, line)
            article_id = _validate_id(row["article_id"], file, line, "article_id")
            if articles is not None and article_id not in articles:
                known = ", ".join(sorted(articles)[:8])
                raise InputError(
                    f"article '{article_id}' not found",
                    path=file,
                    line=line,
                    field="article_id",
                    fix=f"use one of: {known}",
                )
            text = row["question"].strip()
            if not text:
                raise InputError(
                    "question is empty",
                    path=file,
                    line=line,
                    field="question",
                    fix="write the question",
                )
            raw_gold = (row.get("answers") or "").strip()
            kind = (row.get("kind") or "").strip().lower()
            if not kind:
                kind = wording_kind(text) or ""
                if not kind:
                    raise InputError(
                        "kind is empty and the wording does not say whether a figure or a "
                        "date is asked",
                        path=file,
                        line=line,
                        field="kind",
                        fix="write 'figure' or 'date' in the kind column",
                    )
            _one_of(kind, KINDS, file, line, "kind", row.get("kind", ""), "'figure' or 'date'")
            # no gold: judged by agreement with the large model's answer instead
            gold = _parse_gold(raw_gold, kind, text, file, line) if raw_gold else ()
            notes = (row.get("notes") or "").strip()
            cluster = (row.get("cluster") or "").strip()
            flag = (row.get("computed") or "").strip().lower()
            _one_of(
                flag, FLAGS, file, line, "computed", row.get("computed", ""),
                "'true' (the gold is derived, not stated) or 'false'",
            )  # fmt: skip
            questions.append(
                Question(qid, article_id, text, gold, kind, notes, cluster, FLAGS[flag])  # type: ignore[arg-type]
            )
    if not questions:
        raise InputError("no questions found", path=path, fix="add rows below the header")
    return questions


def refuse_repeated(header: list[str], path: Path, fix: str) -> None:
    """An `InputError` naming the first column a CSV header names twice (line 1)."""
    twice = next((c for c in header if header.count(c) > 1), None)
    if twice is not None:
        raise InputError(
            f"the header names the column '{twice}' twice", path=path, line=1, field=twice, fix=fix
        )


def quick_sample(questions: list[Question], n: int, seed: int) -> list[Question]:
    """`n` of `questions` for a quick look at the experiment (`--limit N`): stated and computed
    in the corpus's proportion (at least one of each where both exist and `n` allows), each
    dealt evenly over the articles in an order fixed by `seed` (`groups.dealt`), so a few
    questions come from many articles and show both kinds; all of them where `n` is not fewer."""
    import random

    if n <= 0 or n >= len(questions):
        return list(questions)
    computed = [q for q in questions if q.computed]
    stated = [q for q in questions if not q.computed]
    n_computed = round(n * len(computed) / len(questions))
    if computed and stated and n >= 2:
        n_computed = min(max(n_computed, 1), n - 1)
    rng = random.Random(seed)
    article = lambda q: q.article_id  # noqa: E731
    took = dealt(computed, article, n_computed, rng) + dealt(stated, article, n - n_computed, rng)
    picked = {q.id for q in took}
    return [q for q in questions if q.id in picked]
