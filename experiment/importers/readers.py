"""Readers for SQuAD (v1.1, v2.0), DROP (official JSON, or simple-evals JSON lines plain or split)
and TAT-QA JSON.

A file that cannot be read as a whole (not UTF-8 or JSON, nested too deep, a top level of another
shape) is refused with an `InputError` naming the file and what was expected. Every record is
validated against its authors' schema (`schema.validate`): a malformed one is skipped and counted by
reason in the import summary, never turned into data.
"""

from __future__ import annotations

import calendar
import hashlib
import json
import os
import re
import zlib
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from experiment.base.errors import InputError
from experiment.base.streams import MAX_EXPANDED_MB, TooLarge, gunzip_capped
from experiment.importers.layout import Imported, ImportStats, shown, stated
from experiment.importers.schema import (
    Malformed,
    any_text,
    decode_json,
    each,
    either,
    finite,
    flag,
    items,
    list_of,
    listed,
    one_of,
    record,
    text,
    validate,
    whole,
)
from experiment.importers.split import units
from experiment.values.canonical import DateValue, Quantity
from experiment.values.normalize import parse_value
from experiment.values.question_kind import wording_kind
from experiment.values.tables import markdown_table

Reader = Callable[[Path, ImportStats], list[Imported]]
NO_GOLD = "no gold answer"


MAX_EXPANDED_ENV = "FACTQA_MAX_EXPANDED_MB"  # raises the cap on a gzip file's expanded size


def _max_expanded(path: Path) -> int:
    """The most bytes a gzip file may expand to: `MAX_EXPANDED_MB`, or the environment's."""
    raw = os.environ.get(MAX_EXPANDED_ENV, "").strip()
    if not raw:
        return MAX_EXPANDED_MB * 2**20
    try:
        mb = float(raw)
    except ValueError:
        mb = -1.0
    if not 0 < mb < 2**40:
        raise InputError(
            f"{MAX_EXPANDED_ENV}={raw!r} is not a positive number of megabytes",
            path=path,
            fix=f"set {MAX_EXPANDED_ENV} to a size in MB, or unset it ({MAX_EXPANDED_MB})",
        )
    return int(mb * 2**20)


def _gunzip(data: bytes, path: Path) -> bytes:
    """Every member of a gzip file, expanded no further than the cap: a small file that
    expands to gigabytes is refused in constant memory, before it takes any (`streams`)."""
    limit = _max_expanded(path)
    try:
        return gunzip_capped(data, limit)
    except TooLarge:
        raise InputError(
            f"expands to more than {limit / 2**20:g} MB",
            path=path,
            fix=f"check the file; to read it anyway, set {MAX_EXPANDED_ENV} to a larger size in MB",
        ) from None


def _open_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise InputError(f"cannot read file ({e.strerror})", path=path) from e
    if data[:2] == b"\x1f\x8b":
        try:
            data = _gunzip(data, path)
        except (OSError, EOFError, zlib.error) as e:
            raise InputError(f"broken gzip file ({e})", path=path, fix="download it again") from e
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(
            f"not valid UTF-8 (byte {e.start})", path=path, fix="give the original UTF-8 file"
        ) from e


def _load_json(path: Path, expected: str) -> Any:
    try:
        return decode_json(_open_text(path), path)
    except json.JSONDecodeError as e:
        raise InputError(
            f"not valid JSON ({e.msg})", path=path, line=e.lineno, fix=f"give {expected}"
        ) from e


SQUAD_FIX = "give a SQuAD v1.1 or v2.0 JSON file ({'data': [{'title', 'paragraphs': [...]}]})"
SQUAD_ARTICLE = {"title": text, "paragraphs": items}
SQUAD_PARAGRAPH = {"context": text, "qas": items}
SQUAD_QUESTION = {"id": text, "question": text, "answers": list_of(record)}
SQUAD_V2 = {"is_impossible": flag}
SQUAD_ANSWER = {"text": text, "answer_start": whole}


def read_squad(path: Path, stats: ImportStats) -> list[Imported]:
    """SQuAD v1.1/v2.0: one passage per paragraph; `is_impossible` questions get no answers."""
    data = _load_json(path, "a SQuAD JSON file")
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise InputError(
            "top level: expected a field 'data'", path=path, field="data", fix=SQUAD_FIX
        )
    return each(listed("data", data["data"], partial(_squad_article, stats=stats)), stats)


def _squad_article(_: int, art: Any, where: str, stats: ImportStats) -> list[Imported]:
    art = validate(art, SQUAD_ARTICLE, "SQuAD article")
    read = partial(_squad_paragraph, title=art["title"], stats=stats)
    return each(listed(f"{where}.paragraphs", art["paragraphs"], read), stats)


def _squad_paragraph(
    pi: int, para: Any, where: str, title: str, stats: ImportStats
) -> list[Imported]:
    para = validate(para, SQUAD_PARAGRAPH, "SQuAD paragraph")
    read = partial(_squad_question, title=title, pi=pi, context=para["context"])
    return each(listed(f"{where}.qas", para["qas"], read), stats)


def _squad_answers(qa: dict[str, Any], context: str) -> tuple[str, ...]:
    """The answer texts of a validated question: none when it is impossible, one at least else,
    each inside the context."""
    answers = [validate(a, SQUAD_ANSWER, "SQuAD answer") for a in qa["answers"]]
    if qa.get("is_impossible"):
        if answers:
            raise Malformed("SQuAD question", "answers", "given for an unanswerable question")
        return ()
    if not answers:
        raise Malformed("SQuAD question", "answers", "none for an answerable question")
    for a in answers:
        if not 0 <= a["answer_start"] <= len(context) - len(a["text"]):
            raise Malformed("SQuAD answer", "answer_start", "outside the context")
    return tuple(a["text"] for a in answers)


def _squad_question(
    _: int, qa: Any, where: str, title: str, pi: int, context: str
) -> list[Imported]:
    qa = validate(qa, SQUAD_QUESTION, "SQuAD question", SQUAD_V2)
    return [
        Imported(
            qid=qa["id"],
            passage_id=f"{title}-p{pi:03d}",
            title=title.replace("_", " "),
            passage=context,
            question=qa["question"],
            answers=_squad_answers(qa, context),
            group=title,
        )
    ]


DROP_FIX = (
    "give DROP as JSON lines: {'id', 'passage', 'question', 'answers'} per line, or the "
    "simple-evals form {'context': 'Passage: ...\\nQuestion: ...\\nAnswer:', 'ref_text': 'a|b'}"
)
DROP_PASSAGE = {"passage": text, "qa_pairs": items}
DROP_PAIR = {"question": text, "query_id": text, "answer": record}
DROP_PAIR_EXTRA = {"validated_answers": items}
DROP_ANSWER = {"number": any_text, "date": record, "spans": list_of(any_text)}
DROP_DATE = {"day": any_text, "month": any_text, "year": any_text}
DROP_SPLIT = {"passage": text, "question": text, "answers": list_of(any_text)}
DROP_SPLIT_EXTRA = {"id": text, "passage_id": text, "answer": any_text}
DROP_EVALS = {"context": text, "ref_text": any_text}
DROP_EVALS_EXTRA = {"completion": any_text}


def drop_answer(answer: Any) -> tuple[str, str | None]:
    """A DROP typed answer as (text, kind): a `number` is a figure, a filled `date` a date, one
    span is kept untyped (the wording decides); ("", None) for several spans or none.
    `Malformed` when it is not DROP's {number, date: {day, month, year}, spans}."""
    answer = validate(answer, DROP_ANSWER, "DROP answer")
    date = validate(answer["date"], DROP_DATE, "DROP date")
    number = answer["number"].strip()
    if number:
        return number, "figure"
    day, month, year = (date[f].strip() for f in ("day", "month", "year"))
    if day or month or year:
        if month.isdecimal() and not 1 <= int(month) <= 12:
            raise Malformed("DROP date", "month", f"{month!r} is not a month from 1 to 12")
        if day and not (day.isdecimal() and 1 <= int(day) <= 31):
            raise Malformed("DROP date", "day", f"{day!r} is not a day from 1 to 31")
        if month.isdecimal():
            month = calendar.month_name[int(month)]
        return " ".join(p for p in (day, month, year) if p), "date"
    spans = [x.strip() for x in answer["spans"] if x.strip()]
    return (spans[0], None) if len(spans) == 1 else ("", None)


def _drop_passage(pid: str, rec: Any, stats: ImportStats) -> list[Imported]:
    rec = validate(rec, DROP_PASSAGE, "DROP passage")
    read = partial(_drop_pair, pid=pid, passage=rec["passage"], stats=stats)
    return each(listed(f"passage {shown(pid)}.qa_pairs", rec["qa_pairs"], read), stats)


def _drop_pair(
    _: int, qa: Any, where: str, pid: str, passage: str, stats: ImportStats
) -> list[Imported]:
    qa = validate(qa, DROP_PAIR, "DROP question", DROP_PAIR_EXTRA)
    gold, kind = drop_answer(qa["answer"])
    extra = [drop_answer(a) for a in qa.get("validated_answers", [])]
    if not gold:
        several = sum(bool(s.strip()) for s in qa["answer"]["spans"]) > 1
        stats.skip("several spans" if several else NO_GOLD)
        return []
    golds = [gold, *(more for more, more_kind in extra if more and more_kind == kind)]
    return [_drop_imported(qa["query_id"], pid, passage, qa["question"], golds, kind)]


def _drop_imported(
    qid: str, pid: str, passage: str, question: str, golds: list[str], kind: str | None
) -> Imported:
    """One DROP question; computed when no gold value is stated in the passage."""
    answers = tuple(dict.fromkeys(" ".join(a.split()) for a in golds if a.strip()))
    computed = bool(answers) and not any(stated(a, kind, question, passage) for a in answers)
    return Imported(qid, pid, pid, passage, question, answers, pid, kind, computed)


def _evals_fields(obj: dict[str, Any]) -> tuple[str, str, list[str]]:
    """(passage, question, answers) of a validated simple-evals line."""
    head, sep, rest = obj["context"].partition("\nQuestion:")
    if not sep or not head.startswith("Passage:"):
        raise Malformed("DROP line", "context", "not 'Passage: ...\\nQuestion: ...'")
    passage = head[len("Passage:") :].strip()
    question = rest.rsplit("\nAnswer:", 1)[0].strip()
    for field, value in (("passage", passage), ("question", question)):
        if not value:
            raise Malformed("DROP line", "context", f"empty {field}")
    return passage, question, obj["ref_text"].split("|")


def _drop_line(line: int, obj: Any, stats: ImportStats) -> list[Imported]:
    """One JSON line: the split layout (a 'passage' field) or simple-evals ('context')."""
    if "passage" in validate(obj, {}, "DROP line"):
        obj = validate(obj, DROP_SPLIT, "DROP line", DROP_SPLIT_EXTRA)
        passage, question, answers = obj["passage"], obj["question"], obj["answers"]
        qid = obj.get("id") or f"drop-{line:05d}"
    elif "context" in obj:
        obj = validate(obj, DROP_EVALS, "DROP line", DROP_EVALS_EXTRA)
        passage, question, answers = _evals_fields(obj)
        qid = f"drop-dev-{line - 1:05d}"
    else:
        raise Malformed("DROP line", "record", "neither a 'passage' nor a 'context' field")
    pid = obj.get("passage_id") or "p_" + hashlib.sha1(passage.encode()).hexdigest()[:12]
    row = _drop_imported(qid, pid, passage, question, answers, None)
    if not row.answers:
        stats.skip(NO_GOLD)
        return []
    return [row]


def _official(text: str, path: Path) -> dict[str, Any] | None:
    """The parsed file when it is DROP's official layout (one object of passage records), else
    None (JSON lines: one object per line)."""
    if not text.lstrip().startswith("{"):
        return None
    try:
        data = decode_json(text, path)
    except json.JSONDecodeError:
        return None
    if "passage" in data or "context" in data:
        return None  # one JSON line
    return data if any(isinstance(v, dict) for v in data.values()) else None


def _json_lines(text: str, path: Path) -> list[tuple[int, Any]]:
    """(line number, value) of every non-blank line (lines end at '\\n' only: a JSON string may
    hold other line separators); a line that is not JSON refuses the file."""
    rows = []
    for line, raw in enumerate(text.split("\n"), start=1):
        if raw.strip():
            try:
                rows.append((line, decode_json(raw, path, line)))
            except json.JSONDecodeError as e:
                raise InputError(
                    f"not valid JSON ({e.msg})", path=path, line=line, fix=DROP_FIX
                ) from e
    return rows


def read_drop(path: Path, stats: ImportStats) -> list[Imported]:
    """DROP dev in its official layout or as JSON lines (either gzip or plain). Questions without
    any gold answer are skipped and counted."""
    text = _open_text(path)
    official = _official(text, path)
    if official is not None:
        tasks = (
            (f"passage {shown(pid)}", partial(_drop_passage, pid, rec, stats))
            for pid, rec in official.items()
        )
        return each(tasks, stats)
    tasks = (
        (f"line {line}", partial(_drop_line, line, obj, stats))
        for line, obj in _json_lines(text, path)
    )
    return each(tasks, stats)


TATQA_FIX = (
    "give a TAT-QA JSON file: a list of {'table': {'uid', 'table': [[...]]}, "
    "'paragraphs': [{'uid', 'order', 'text'}], 'questions': [{'uid', 'question', 'answer', "
    "'derivation', 'answer_type', 'answer_from', 'scale'}]}"
)
SCALES = ("", "thousand", "million", "billion", "percent")
ANSWER_TYPES = ("span", "multi-span", "arithmetic", "count")
TATQA_DOCUMENT = {"table": record, "paragraphs": items, "questions": items}
TATQA_TABLE = {"uid": text, "table": list_of(list_of(any_text))}
TATQA_PARAGRAPH = {"uid": text, "order": whole, "text": any_text}


def _spans(value: Any) -> str | None:
    """A list of text with at least one span that is not empty (the authors pad a few lists of
    several spans with an empty one)."""
    problem = list_of(any_text, nonempty=True)(value)
    if problem is None and not any(v.strip() for v in value):
        return "a list of empty text"
    return problem


TATQA_ANSWER = either("text, a number or a list of text", text, finite, _spans)
TATQA_QUESTION = {
    "uid": text,
    "question": text,
    "answer": TATQA_ANSWER,
    "derivation": any_text,
    "answer_type": one_of(ANSWER_TYPES),
    "answer_from": one_of(("text", "table", "table-text")),
    "scale": one_of(SCALES),
}
_ACCOUNTING = re.compile(r"\(\s*(?P<figure>[$€£¥]?\s*\d[\d,]*(?:\.\d+)?%?)\s*\)")
_OWN_SCALE = re.compile(r"%|percent|\b(?:thousand|million|billion|trillion)s?\b", re.I)


def tatqa_scaled(text: str, scale: str) -> str:
    """`text` with TAT-QA's scale applied, only where the answer carries no scale of its own:
    "1,200" and "thousand" read "1,200 thousand", "$19.1 million" stays as it is."""
    text = text.strip()
    if m := _ACCOUNTING.fullmatch(text):  # "(3,709)": a negative in accounts, kept as one
        text = f"-{m['figure']}"
    if not scale or _OWN_SCALE.search(text):
        return text
    return f"{text}%" if scale == "percent" else f"{text} {scale}"


def tatqa_answer(answer: Any, scale: str) -> tuple[str, ...]:
    """TAT-QA gold as strings our reader parses; () for a multi-span answer."""
    values = answer if isinstance(answer, list) else [answer]
    if len(values) != 1:
        return ()
    return (tatqa_scaled(str(values[0]), scale),)


def _span_kind(text: str, question: str) -> str | None:
    """The kind of a span answer from the answer itself: a date finer than a year is a date, a
    bare year a date only when the question asks when; any other number a figure."""
    date = parse_value(text, "date", question)
    figure = parse_value(text, "figure", question)
    if isinstance(date, DateValue) and (date.granularity != "year" or figure is None):
        return "date"
    if isinstance(figure, Quantity):
        if figure.as_year() is not None and wording_kind(question) == "date":
            return "date"
        return "figure"
    return None


def _tatqa_question(
    _: int, q: Any, where: str, uid: str, passage: str, stats: ImportStats
) -> list[Imported]:
    q = validate(q, TATQA_QUESTION, "TAT-QA question")
    answer_type, question = q["answer_type"], q["question"]
    answers = tatqa_answer(q["answer"], q["scale"])
    if answer_type == "multi-span" or not answers:
        stats.skip("multi-span answer")
        return []
    computed = answer_type in ("arithmetic", "count")
    kind = "figure" if computed else _span_kind(answers[0], question)
    if kind is None:
        stats.skip("span answer is not a figure or a date")
        return []
    note = f"{answer_type} from {q['answer_from']}"
    title = f"TAT-QA {uid}"
    return [Imported(q["uid"], uid, title, passage, question, answers, uid, kind, computed, note)]


def tatqa_passage(table: list[list[str]], paragraphs: list[str]) -> str:
    """The article of a context: its table as a Markdown pipe table (`experiment.values.tables`)
    right after the first paragraph that ends with ':' (the one that introduces it, "...as
    follows (in thousands):", so it is the table's caption), else before every paragraph."""
    at = next((i + 1 for i, text in enumerate(paragraphs) if text.strip().endswith(":")), 0)
    parts = [*paragraphs[:at], markdown_table(table), *paragraphs[at:]]
    return "\n\n".join(part for part in parts if part.strip()).strip()


def _tatqa_document(_: int, doc: Any, where: str, stats: ImportStats) -> list[Imported]:
    """A context: its paragraphs in order, with its table (`tatqa_passage`)."""
    doc = validate(doc, TATQA_DOCUMENT, "TAT-QA document")
    table = validate(doc["table"], TATQA_TABLE, "TAT-QA table")
    paragraphs = [validate(p, TATQA_PARAGRAPH, "TAT-QA paragraph") for p in doc["paragraphs"]]
    ordered = sorted(paragraphs, key=lambda p: p["order"])
    passage = tatqa_passage(table["table"], [p["text"] for p in ordered])
    if not passage:
        raise Malformed("TAT-QA document", "table", "no table row and no paragraph text")
    read = partial(_tatqa_question, uid=table["uid"], passage=passage, stats=stats)
    return each(listed(f"{where}.questions", doc["questions"], read), stats)


def read_tatqa(path: Path, stats: ImportStats) -> list[Imported]:
    """TAT-QA: one passage per context. The kind comes from the answer (arithmetic and count
    answers are figures, and computed), not from the question's wording; multi-span answers are
    left out and counted."""
    data = _load_json(path, "a TAT-QA JSON file")
    if not isinstance(data, list):
        raise InputError("top level: expected a list of documents", path=path, fix=TATQA_FIX)
    rows = each(listed("", data, partial(_tatqa_document, stats=stats)), stats)
    unit = units(_tatqa_contexts(data))
    return [replace(r, group=unit.get(r.group, r.group)) for r in rows]


def _tatqa_contexts(data: list[Any]) -> dict[str, list[str]]:
    """Each context's table uid and its paragraphs' texts (for `split.units`; a malformed
    document is left to `_tatqa_document`, which names it)."""
    out: dict[str, list[str]] = {}
    for doc in data:
        try:
            uid, paragraphs = doc["table"]["uid"], doc["paragraphs"]
            out.setdefault(str(uid), []).extend(str(p["text"]) for p in paragraphs)
        except (KeyError, TypeError):
            continue
    return out


READERS: dict[str, Reader] = {"squad": read_squad, "drop": read_drop, "tatqa": read_tatqa}


def read_dataset(fmt: str, path: Path, stats: ImportStats | None = None) -> list[Imported]:
    """The well-formed questions of `path` read as `fmt`; what was left out is in `stats`."""
    if fmt not in READERS:
        raise InputError(f"unknown format '{fmt}'", fix=f"use one of: {', '.join(READERS)}")
    if not path.is_file():
        raise InputError("data file not found", path=path, fix="give the path of the data file")
    return READERS[fmt](path, stats if stats is not None else ImportStats())


def data_json(fmt: str, path: Path) -> Any:
    """A SQuAD or TAT-QA file's JSON as it is, its top level checked (an `InputError` naming the
    file and the shape expected), for a tool that reads the records itself."""
    if not path.is_file():
        raise InputError("data file not found", path=path, fix="give the path of the data file")
    if fmt == "squad":
        data = _load_json(path, "a SQuAD JSON file")
        if not isinstance(data, dict) or not isinstance(data.get("data"), list):
            raise InputError(
                "top level: expected a field 'data'", path=path, field="data", fix=SQUAD_FIX
            )
        return data
    data = _load_json(path, "a TAT-QA JSON file")
    if not isinstance(data, list):
        raise InputError("top level: expected a list of documents", path=path, fix=TATQA_FIX)
    return data
