"""Small valid files in every layout the importers read, each with two records at its top level
(so that one malformed record leaves the other to import), for the importer and garbage tests."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

BRIDGE = "The Velden bridge opened on 4 May 1931 after 26 months of work. It is 412 metres long."
TOWN = "In 1950 the town had 8,200 inhabitants; by 2000 it had grown to 15,400."
GAME = "The Otters scored 17 points in the first half and 10 in the second. Played 12 October 2008."


def squad() -> dict[str, Any]:
    """SQuAD v2.0: two articles, an answerable and an unanswerable question."""

    def qa(qid: str, question: str, answer: str | None, context: str) -> dict[str, Any]:
        answers = [] if answer is None else [{"text": answer, "answer_start": context.find(answer)}]
        return {"id": qid, "question": question, "answers": answers, "is_impossible": not answers}

    return {
        "version": "2.0",
        "data": [
            {
                "title": "Velden_Bridge",
                "paragraphs": [
                    {
                        "context": BRIDGE,
                        "qas": [
                            qa("qa1", "When did the Velden bridge open?", "4 May 1931", BRIDGE),
                            qa("qa2", "How long is the bridge?", "412 metres", BRIDGE),
                        ],
                    }
                ],
            },
            {
                "title": "Velden",
                "paragraphs": [
                    {
                        "context": TOWN,
                        "qas": [
                            qa("qb1", "How many inhabitants were there in 1950?", "8,200", TOWN),
                            qa("qb2", "How many inhabitants were there in 1975?", None, TOWN),
                        ],
                    }
                ],
            },
        ],
    }


def _drop_answer(number: str = "", date: tuple[str, str, str] = ("", "", "")) -> dict[str, Any]:
    day, month, year = date
    return {"number": number, "date": {"day": day, "month": month, "year": year}, "spans": []}


def drop_official() -> dict[str, Any]:
    """DROP's official layout: two passages with typed answers."""
    return {
        "nfl_1": {
            "passage": GAME,
            "qa_pairs": [
                {
                    "question": "How many points did the Otters score in total?",
                    "query_id": "q1",
                    "answer": _drop_answer(number="27"),
                    "validated_answers": [_drop_answer(number="27")],
                }
            ],
            "wiki_url": "https://en.wikipedia.org/wiki/Otters",
        },
        "hist_2": {
            "passage": BRIDGE,
            "qa_pairs": [
                {
                    "question": "When did the bridge open?",
                    "query_id": "q2",
                    "answer": _drop_answer(date=("4", "5", "1931")),
                }
            ],
        },
    }


def drop_split() -> list[dict[str, Any]]:
    """DROP as JSON lines with the passage in its own field."""
    return [
        {
            "id": "d-1",
            "passage_id": "p_1",
            "passage": GAME,
            "question": "How many points did the Otters score in total?",
            "answer": "27",
            "answers": ["27"],
        },
        {
            "id": "d-2",
            "passage_id": "p_2",
            "passage": BRIDGE,
            "question": "How long is the bridge?",
            "answer": "412 metres",
            "answers": ["412 metres", "412"],
        },
    ]


def drop_evals() -> list[dict[str, Any]]:
    """DROP as simple-evals JSON lines."""
    return [
        {
            "context": f"Passage: {passage}\nQuestion: {question}\nAnswer:",
            "completion": f" {answer.split('|')[0]}",
            "ref_text": answer,
        }
        for passage, question, answer in (
            (GAME, "How many points did the Otters score in the first half?", "17|17"),
            (BRIDGE, "How many months did the work take?", "26"),
        )
    ]


def _tatqa_question(uid: str, question: str, answer: Any, kind: str, scale: str) -> dict:
    return {
        "uid": uid,
        "order": 1,
        "question": question,
        "answer": answer,
        "derivation": "1,200 - 1,050" if kind == "arithmetic" else "",
        "answer_type": kind,
        "answer_from": "table",
        "rel_paragraphs": [],
        "req_comparison": False,
        "scale": scale,
    }


def tatqa() -> list[dict[str, Any]]:
    """TAT-QA: two documents (a table, paragraphs, questions)."""
    return [
        {
            "table": {"uid": "t-1", "table": [["", "2019", "2018"], ["Revenue", "1,200", "1,050"]]},
            "paragraphs": [{"uid": "p1", "order": 1, "text": "Revenue grew by 14.3% in 2019."}],
            "questions": [
                _tatqa_question(
                    "u1", "What was the revenue in 2019?", ["1,200"], "span", "thousand"
                ),
                _tatqa_question(
                    "u2", "What was the change in revenue?", 150, "arithmetic", "thousand"
                ),
            ],
        },
        {
            "table": {"uid": "t-2", "table": [["", "2019"], ["Staff", "40"]]},
            "paragraphs": [{"uid": "p2", "order": 1, "text": "Staff costs were $19.1 million."}],
            "questions": [
                _tatqa_question(
                    "u3", "What were staff costs?", ["$19.1 million"], "span", "thousand"
                ),
                _tatqa_question("u4", "What share did revenue grow by?", 14.3, "span", "percent"),
            ],
        },
    ]


def _json(data: Any) -> bytes:
    return json.dumps(data, indent=1).encode()


def _lines(data: Any) -> bytes:
    return "\n".join(json.dumps(row) for row in data).encode()


# name: (importer format, file name, valid data, how the data is written)
Layout = tuple[str, str, Callable[[], Any], Callable[[Any], bytes]]
LAYOUTS: dict[str, Layout] = {
    "squad": ("squad", "dev-v2.0.json", squad, _json),
    "drop-official": ("drop", "drop_dataset_dev.json", drop_official, _json),
    "drop-split": ("drop", "drop_dev.jsonl", drop_split, _lines),
    "drop-evals": ("drop", "drop_v0_dev.jsonl", drop_evals, _lines),
    "tatqa": ("tatqa", "tatqa_dataset_dev.json", tatqa, _json),
}


def write_layout_file(folder: Path, name: str, data: Any = None, gz: bool = False) -> Path:
    """The file of layout `name` (its valid data unless `data` is given) in `folder`."""
    _, file_name, valid, encode = LAYOUTS[name]
    raw = encode(valid() if data is None else data)
    path = folder / (file_name + (".gz" if gz else ""))
    path.write_bytes(gzip.compress(raw, mtime=0) if gz else raw)
    return path
