"""Readers for SQuAD (v1.1, v2.0), DROP (simple-evals JSONL, plain or split) and TAT-QA JSON.

Each reader checks the shape it expects and raises `InputError` naming the file, the record and the
field that differ, so a foreign file is refused with what was expected instead of a traceback.
"""

from __future__ import annotations

import calendar
import gzip
import hashlib
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from experiment.errors import InputError
from experiment.importers.layout import Imported, stated
from experiment.values.canonical import DateValue, Quantity
from experiment.values.normalize import parse_value
from experiment.values.question_kind import wording_kind

Reader = Callable[[Path, Any], Iterator[Imported]]  # (file, ImportStats or None)


def _open_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise InputError(f"cannot read file ({e.strerror})", path=path) from e
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as e:
            raise InputError(f"broken gzip file ({e})", path=path, fix="download it again") from e
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(
            f"not valid UTF-8 (byte {e.start})", path=path, fix="give the original UTF-8 file"
        ) from e


def _load_json(path: Path, expected: str) -> Any:
    try:
        return json.loads(_open_text(path))
    except json.JSONDecodeError as e:
        raise InputError(
            f"not valid JSON ({e.msg})", path=path, line=e.lineno, fix=f"give {expected}"
        ) from e


def _need(
    obj: Any, key: str, typ: type | tuple[type, ...], path: Path, where: str, fix: str
) -> Any:
    if not isinstance(obj, dict) or key not in obj or not isinstance(obj[key], typ):
        raise InputError(f"{where}: expected a field '{key}'", path=path, field=key, fix=fix)
    return obj[key]


SQUAD_FIX = "give a SQuAD v1.1 or v2.0 JSON file ({'data': [{'title', 'paragraphs': [...]}]})"


def read_squad(path: Path, stats: Any = None) -> Iterator[Imported]:
    """SQuAD v1.1/v2.0: one passage per paragraph; `is_impossible` questions get no answers."""
    data = _load_json(path, "a SQuAD JSON file")
    articles = _need(data, "data", list, path, "top level", SQUAD_FIX)
    for ai, art in enumerate(articles):
        title = str(_need(art, "title", str, path, f"data[{ai}]", SQUAD_FIX))
        paragraphs = _need(art, "paragraphs", list, path, f"data[{ai}]", SQUAD_FIX)
        for pi, para in enumerate(paragraphs):
            where = f"data[{ai}].paragraphs[{pi}]"
            context = _need(para, "context", str, path, where, SQUAD_FIX)
            for qi, qa in enumerate(_need(para, "qas", list, path, where, SQUAD_FIX)):
                w = f"{where}.qas[{qi}]"
                qid = str(_need(qa, "id", str, path, w, SQUAD_FIX))
                question = _need(qa, "question", str, path, w, SQUAD_FIX)
                answers = _need(qa, "answers", list, path, w, SQUAD_FIX)
                texts = tuple(
                    str(a["text"]) for a in answers if isinstance(a, dict) and "text" in a
                )
                if qa.get("is_impossible"):
                    texts = ()
                elif not texts:
                    continue  # answerable but without an answer text: nothing to judge against
                yield Imported(
                    qid=qid,
                    passage_id=f"{title}-p{pi:03d}",
                    title=title.replace("_", " "),
                    passage=context,
                    question=question,
                    answers=texts,
                    group=title,
                )


DROP_FIX = (
    "give DROP as JSON lines: {'id', 'passage', 'question', 'answers'} per line, or the "
    "simple-evals form {'context': 'Passage: ...\\nQuestion: ...\\nAnswer:', 'ref_text': 'a|b'}"
)
DROP_OFFICIAL_FIX = (
    "give DROP in its official layout: {PASSAGE_ID: {'passage': str, 'qa_pairs': [{'question', "
    "'query_id', 'answer': {'number', 'date': {'day', 'month', 'year'}, 'spans'}}]}}"
)


def drop_answer(answer: Any) -> tuple[str, str | None]:
    """A DROP typed answer as (text, kind): a `number` is a figure, a filled `date` a date, one
    span is kept untyped (the wording decides); ("", None) for anything else (several spans)."""
    if not isinstance(answer, dict):
        return "", None
    number = str(answer.get("number") or "").strip()
    if number:
        return number, "figure"
    date = answer.get("date") if isinstance(answer.get("date"), dict) else {}
    day, month, year = (str(date.get(f) or "").strip() for f in ("day", "month", "year"))
    if day or month or year:
        if month.isdigit() and 1 <= int(month) <= 12:
            month = calendar.month_name[int(month)]
        return " ".join(p for p in (day, month, year) if p), "date"
    spans = [str(x).strip() for x in answer.get("spans") or [] if str(x).strip()]
    return (spans[0], None) if len(spans) == 1 else ("", None)


def _drop_official(data: dict[str, Any], path: Path, stats: Any) -> Iterator[Imported]:
    for pid, record in data.items():
        where = f"passage '{pid}'"
        passage = _need(record, "passage", str, path, where, DROP_OFFICIAL_FIX)
        pairs = _need(record, "qa_pairs", list, path, where, DROP_OFFICIAL_FIX)
        for i, qa in enumerate(pairs):
            w = f"{where}.qa_pairs[{i}]"
            question = _need(qa, "question", str, path, w, DROP_OFFICIAL_FIX)
            answer = _need(qa, "answer", dict, path, w, DROP_OFFICIAL_FIX)
            text, kind = drop_answer(answer)
            if not text:
                if stats is not None:
                    stats.skip("several spans")
                continue
            golds = [text]
            for extra in qa.get("validated_answers") or []:
                more, more_kind = drop_answer(extra)
                if more and more_kind == kind:
                    golds.append(more)
            qid = str(qa.get("query_id") or f"{pid}-{i}")
            yield _drop_imported(qid, pid, passage, question, golds, kind)


def _drop_imported(
    qid: str, pid: str, passage: str, question: str, golds: list[str], kind: str | None
) -> Imported:
    """One DROP question; computed when no gold value is stated in the passage."""
    answers = tuple(dict.fromkeys(" ".join(a.split()) for a in golds if a.strip()))
    computed = bool(answers) and not any(stated(a, kind, question, passage) for a in answers)
    return Imported(qid, pid, pid, passage, question, answers, pid, kind, computed)


def _drop_row(obj: Any, path: Path, line: int) -> Imported:
    if not isinstance(obj, dict):
        raise InputError("expected a JSON object", path=path, line=line, fix=DROP_FIX)
    if "passage" in obj:
        passage, question = obj.get("passage"), obj.get("question")
        answers = obj.get("answers")
        if not isinstance(answers, list):
            raise InputError("expected a list", path=path, line=line, field="answers", fix=DROP_FIX)
        qid = str(obj.get("id") or f"drop-{line:05d}")
    elif "context" in obj and "ref_text" in obj:
        context = str(obj["context"])
        head, sep, rest = context.partition("\nQuestion:")
        if not sep or not head.startswith("Passage:"):
            raise InputError(
                "context is not 'Passage: ...\\nQuestion: ...'",
                path=path,
                line=line,
                field="context",
                fix=DROP_FIX,
            )
        passage = head[len("Passage:") :].strip()
        question = rest.rsplit("\nAnswer:", 1)[0].strip()
        answers = str(obj["ref_text"]).split("|")
        qid = f"drop-dev-{line - 1:05d}"
    else:
        raise InputError(
            "neither a 'passage' nor a 'context' field", path=path, line=line, fix=DROP_FIX
        )
    for field, value in (("passage", passage), ("question", question)):
        if not isinstance(value, str) or not value.strip():
            raise InputError("is missing or empty", path=path, line=line, field=field, fix=DROP_FIX)
    passage_id = str(
        obj.get("passage_id") or "p_" + hashlib.sha1(passage.encode()).hexdigest()[:12]
    )
    return _drop_imported(qid, passage_id, passage, question, [str(a) for a in answers], None)


def _official(text: str) -> dict[str, Any] | None:
    """The parsed file when it is DROP's official layout (one object of passages), else None."""
    if not text.lstrip().startswith("{"):
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None  # JSON lines: one object per line
    values = list(data.values()) if isinstance(data, dict) else []
    records = bool(values) and all(isinstance(v, dict) for v in values)
    if records and any("qa_pairs" in v or ("passage" in v and "question" not in v) for v in values):
        return data  # passage records; a broken one is refused by its missing field
    return None


def read_drop(path: Path, stats: Any = None) -> Iterator[Imported]:
    """DROP dev in its official layout or as JSON lines (either gzip or plain). Questions without
    any gold answer are skipped."""
    text = _open_text(path)
    official = _official(text)
    if official is not None:
        yield from _drop_official(official, path, stats)
        return
    for line, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as e:
            raise InputError(f"not valid JSON ({e.msg})", path=path, line=line, fix=DROP_FIX) from e
        row = _drop_row(obj, path, line)
        if row.answers:
            yield row


TATQA_FIX = (
    "give a TAT-QA JSON file: a list of {'table': {'uid', 'table': [[...]]}, "
    "'paragraphs': [{'uid', 'order', 'text'}], 'questions': [{'uid', 'question', 'answer', "
    "'answer_type', 'answer_from', 'scale'}]}"
)
SCALES = ("thousand", "million", "billion")


def tatqa_scaled(text: str, scale: str) -> str:
    """`text` with TAT-QA's scale applied once: a percent sign, or the scale word unless the
    answer already carries it ("15.5 million" stays as it is)."""
    text = text.strip()
    if scale == "percent":
        return text if text.endswith("%") or "percent" in text.lower() else f"{text}%"
    if scale in SCALES and not re.search(rf"\b{scale}\b", text, re.I):
        return f"{text} {scale}"
    return text


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
    q: dict[str, Any], uid: str, passage: str, text: str, qid: str, stats: Any
) -> Imported | None:
    answer_type = str(q.get("answer_type") or "")
    answers = tatqa_answer(q["answer"], str(q.get("scale") or ""))
    if answer_type == "multi-span" or not answers:
        if stats is not None:
            stats.skip("multi-span answer")
        return None
    computed = answer_type in ("arithmetic", "count")
    kind = "figure" if computed else _span_kind(answers[0], text)
    if kind is None:
        if stats is not None:
            stats.skip("span answer is not a figure or a date")
        return None
    where = str(q.get("answer_from") or "")
    note = f"{answer_type or 'answer'} from {where}" if where else answer_type
    return Imported(qid, uid, f"TAT-QA {uid}", passage, text, answers, uid, kind, computed, note)


def _table_text(rows: Any) -> str:
    if not isinstance(rows, list):
        return ""
    lines = [" | ".join(str(c).strip() for c in r) for r in rows if isinstance(r, list)]
    return "\n".join(line for line in lines if line.strip(" |"))


def read_tatqa(path: Path, stats: Any = None) -> Iterator[Imported]:
    """TAT-QA: the passage is the table (a line per row, cells joined by ' | '), then the text.
    The kind comes from the answer (arithmetic and count answers are figures, and computed),
    not from the question's wording; multi-span answers are left out and counted."""
    data = _load_json(path, "a TAT-QA JSON file")
    if not isinstance(data, list):
        raise InputError("top level: expected a list of documents", path=path, fix=TATQA_FIX)
    for di, doc in enumerate(data):
        where = f"[{di}]"
        table = _need(doc, "table", dict, path, where, TATQA_FIX)
        paragraphs = _need(doc, "paragraphs", list, path, where, TATQA_FIX)
        questions = _need(doc, "questions", list, path, where, TATQA_FIX)
        uid = str(table.get("uid") or f"doc{di:04d}")
        ordered = sorted(
            (p for p in paragraphs if isinstance(p, dict)), key=lambda p: p.get("order", 0)
        )
        passage = "\n\n".join(
            [_table_text(table.get("table")), *(str(p.get("text", "")) for p in ordered)]
        ).strip()
        for qi, q in enumerate(questions):
            w = f"{where}.questions[{qi}]"
            text = _need(q, "question", str, path, w, TATQA_FIX)
            qid = str(_need(q, "uid", str, path, w, TATQA_FIX))
            if "answer" not in q:
                raise InputError(
                    f"{w}: expected a field 'answer'", path=path, field="answer", fix=TATQA_FIX
                )
            row = _tatqa_question(q, uid, passage, text, qid, stats)
            if row is not None:
                yield row


READERS: dict[str, Reader] = {"squad": read_squad, "drop": read_drop, "tatqa": read_tatqa}


def read_dataset(fmt: str, path: Path, stats: Any = None) -> Iterator[Imported]:
    if fmt not in READERS:
        raise InputError(f"unknown format '{fmt}'", fix=f"use one of: {', '.join(READERS)}")
    if not path.is_file():
        raise InputError("data file not found", path=path, fix="give the path of the data file")
    return READERS[fmt](path, stats)
