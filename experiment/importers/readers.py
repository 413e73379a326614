"""Readers for SQuAD (v1.1, v2.0), DROP (simple-evals JSONL, plain or split) and TAT-QA JSON.

Each reader checks the shape it expects and raises `InputError` naming the file, the record and the
field that differ, so a foreign file is refused with what was expected instead of a traceback.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from experiment.errors import InputError
from experiment.importers.layout import Imported

Reader = Callable[[Path], Iterator[Imported]]


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


def read_squad(path: Path) -> Iterator[Imported]:
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
    golds = tuple(dict.fromkeys(" ".join(str(a).split()) for a in answers if str(a).strip()))
    passage_id = str(
        obj.get("passage_id") or "p_" + hashlib.sha1(passage.encode()).hexdigest()[:12]
    )
    return Imported(qid, passage_id, passage_id, passage, question, golds, passage_id)


def read_drop(path: Path) -> Iterator[Imported]:
    """DROP dev as JSON lines (gzip or plain). Questions without any gold answer are skipped."""
    for line, raw in enumerate(_open_text(path).splitlines(), start=1):
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
    "'scale'}]}"
)
_SCALE = {"": "", "thousand": " thousand", "million": " million", "billion": " billion"}


def tatqa_answer(answer: Any, scale: str) -> tuple[str, ...]:
    """TAT-QA gold as strings our reader parses: the scale becomes a word or a percent sign."""
    values = answer if isinstance(answer, list) else [answer]
    if len(values) != 1:
        return ()  # multi-span answers are not one figure
    text = str(values[0]).strip()
    if scale == "percent":
        return (text if text.endswith("%") else f"{text}%",)
    return (text + _SCALE.get(scale, ""),)


def _table_text(rows: Any) -> str:
    if not isinstance(rows, list):
        return ""
    lines = [" | ".join(str(c).strip() for c in r) for r in rows if isinstance(r, list)]
    return "\n".join(line for line in lines if line.strip(" |"))


def read_tatqa(path: Path) -> Iterator[Imported]:
    """TAT-QA: the passage is the table (a line per row, cells joined by ' | '), then the text."""
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
            answers = tatqa_answer(q["answer"], str(q.get("scale") or ""))
            if answers:
                yield Imported(qid, uid, f"TAT-QA {uid}", passage, text, answers, uid)


READERS: dict[str, Reader] = {"squad": read_squad, "drop": read_drop, "tatqa": read_tatqa}


def read_dataset(fmt: str, path: Path) -> Iterator[Imported]:
    if fmt not in READERS:
        raise InputError(f"unknown format '{fmt}'", fix=f"use one of: {', '.join(READERS)}")
    if not path.is_file():
        raise InputError("data file not found", path=path, fix="give the path of the data file")
    return READERS[fmt](path)
