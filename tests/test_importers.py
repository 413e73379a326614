"""Importers: SQuAD, DROP and TAT-QA fixtures (written here) become a layout `factqa run` loads."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.base.errors import InputError
from experiment.corpus import load_articles, load_questions
from experiment.importers.layout import Imported, ImportStats, stratified_sample
from experiment.importers.readers import tatqa_passage, tatqa_scaled
from experiment.importers.service import import_dataset
from experiment.values.normalize import parse_value
from experiment.values.tables import markdown_table, parse_tables
from experiment.verify.match import verify
from tests.importer_fixtures import LAYOUTS, squad, tatqa, write_layout_file

PARA_A = "The Velden bridge opened on 4 May 1931 after 26 months of work. It is 412 metres long."
PARA_B = "In 1950 the town had 8,200 inhabitants; by 2000 it had grown to 15,400."


def squad_file(tmp_path: Path, v2: bool = False) -> Path:
    qas_a = [
        {
            "id": "qa1",
            "question": "When did the Velden bridge open?",
            "answers": [
                {"text": "4 May 1931", "answer_start": 28},
                {"text": "1931", "answer_start": 34},
            ],
        },
        {
            "id": "qa2",
            "question": "How long is the bridge?",
            "answers": [{"text": "412 metres", "answer_start": 70}],
        },
        {
            "id": "qa3",
            "question": "Who built the bridge?",
            "answers": [{"text": "Velden", "answer_start": 4}],
        },
    ]
    qas_b = [
        {
            "id": "qb1",
            "question": "How many inhabitants did the town have in 1950?",
            "answers": [{"text": "8,200", "answer_start": 25}],
        },
    ]
    if v2:
        qas_b.append(
            {
                "id": "qb2",
                "question": "How many inhabitants did the town have in 1975?",
                "answers": [],
                "is_impossible": True,
            }
        )
    data = {
        "version": "2.0" if v2 else "1.1",
        "data": [
            {"title": "Velden_Bridge", "paragraphs": [{"context": PARA_A, "qas": qas_a}]},
            {"title": "Velden (town)", "paragraphs": [{"context": PARA_B, "qas": qas_b}]},
        ],
    }
    path = tmp_path / "squad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_squad_import_keeps_figure_date_questions_and_ids(tmp_path: Path) -> None:
    res = import_dataset("squad", squad_file(tmp_path), tmp_path / "out")
    assert res.stats.read == 4 and res.stats.kept == 3 and res.stats.skipped_not_figure_date == 1
    articles = load_articles(res.articles)
    questions = {q.id: q for q in load_questions(res.questions, articles)}
    assert set(questions) == {"qa1", "qa2", "qb1"}  # the original ids
    assert questions["qa1"].kind == "date" and questions["qa1"].gold == ("4 May 1931", "1931")
    assert questions["qa2"].kind == "figure"
    art = articles[questions["qb1"].article_id]
    assert art.text == PARA_B and art.title == "Velden (town)" and art.published == "unknown"


def test_squad_v2_unanswerable_get_gold_unanswerable(tmp_path: Path) -> None:
    res = import_dataset("squad", squad_file(tmp_path, v2=True), tmp_path / "out")
    qs = {q.id: q for q in load_questions(res.questions, load_articles(res.articles))}
    assert qs["qb2"].unanswerable and qs["qb2"].kind == "figure"
    only = import_dataset(
        "squad", squad_file(tmp_path, v2=True), tmp_path / "o2", sample=1, unanswerable=1
    )
    assert only.stats.kept == 2 and only.stats.unanswerable == 1


def test_drop_both_forms_and_gzip(tmp_path: Path) -> None:
    passage = "The Otters scored 17 points in the first half and 10 in the second half."
    rows = [
        {
            "id": "d-1",
            "passage_id": "p_1",
            "passage": passage,
            "question": "How many points did the Otters score in total?",
            "answers": ["27"],
        },
        {
            "id": "d-2",
            "passage_id": "p_1",
            "passage": passage,
            "question": "Which team scored?",
            "answers": ["Otters"],
        },
    ]
    split = tmp_path / "drop.jsonl.gz"
    split.write_bytes(gzip.compress("\n".join(json.dumps(r) for r in rows).encode()))
    res = import_dataset("drop", split, tmp_path / "a")
    qs = load_questions(res.questions, load_articles(res.articles))
    assert [q.id for q in qs] == ["d-1"] and qs[0].gold == ("27",)
    raw = tmp_path / "drop_v0.jsonl"
    raw.write_text(
        json.dumps(
            {
                "context": f"Passage: {passage}\nQuestion: How many points did the Otters "
                "score in the first half?\nAnswer:",
                "completion": " 17",
                "ref_text": "17|17",
            }
        ),
        encoding="utf-8",
    )
    res = import_dataset("drop", raw, tmp_path / "b")
    (q,) = load_questions(res.questions, load_articles(res.articles))
    assert q.id == "drop-dev-00000" and q.gold == ("17",)
    assert load_articles(res.articles)[q.article_id].text == passage


def test_tatqa_table_and_scale(tmp_path: Path) -> None:
    doc = [
        {
            "table": {"uid": "t-1", "table": [["", "2019", "2018"], ["Revenue", "1,200", "1,050"]]},
            "paragraphs": [{"uid": "p1", "order": 1, "text": "Revenue grew by 14.3% in 2019."}],
            "questions": [
                {
                    "uid": "u1",
                    "question": "What was the revenue in 2019?",
                    "answer": ["1,200"],
                    "derivation": "",
                    "answer_type": "span",
                    "answer_from": "table",
                    "scale": "thousand",
                },
                {
                    "uid": "u2",
                    "question": "What percentage did revenue grow by?",
                    "answer": 14.3,
                    "derivation": "",
                    "answer_type": "span",
                    "answer_from": "text",
                    "scale": "percent",
                },
                {
                    "uid": "u3",
                    "question": "How many years are shown?",
                    "answer": ["2019", "2018"],
                    "derivation": "",
                    "answer_type": "multi-span",
                    "answer_from": "table",
                    "scale": "",
                },
            ],
        }
    ]
    path = tmp_path / "tatqa.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    res = import_dataset("tatqa", path, tmp_path / "out")
    arts = load_articles(res.articles)
    qs = {q.id: q for q in load_questions(res.questions, arts)}
    assert qs["u2"].gold == ("14.3%",) and "u3" not in qs  # multi-span is not one figure
    text = arts["t-1"].text
    assert text.startswith("|  | 2019 | 2018 |\n| --- | --- | --- |\n| Revenue | 1,200 | 1,050 |")
    (table,) = parse_tables(text)
    assert [[c.text for c in row] for row in table.rows] == [
        ["", "2019", "2018"],
        ["Revenue", "1,200", "1,050"],
    ]


def test_tatqa_table_follows_the_paragraph_that_introduces_it_and_confirms_in_its_scale(
    tmp_path: Path,
) -> None:
    doc = tatqa()[:1]
    doc[0]["paragraphs"] = [
        {"uid": "p2", "order": 2, "text": "Revenue by year is as follows (in thousands):"},
        {"uid": "p1", "order": 1, "text": "Results"},
        {"uid": "p3", "order": 3, "text": "Revenue grew by 14.3% in 2019."},
    ]
    doc[0]["table"]["table"].append(["Cash | equivalents", "(15)", "3\n4"])
    path = tmp_path / "tatqa.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    res = import_dataset("tatqa", path, tmp_path / "out")
    arts = load_articles(res.articles)
    text = arts["t-1"].text
    intro, table_text, rest = text.split("\n\n")[1:]
    assert intro == "Revenue by year is as follows (in thousands):" and rest.startswith(
        "Revenue grew"
    )
    assert table_text.splitlines()[3] == r"| Cash \| equivalents | (15) | 3 4 |"
    (table,) = parse_tables(text)
    assert table.caption is not None and table.caption.text == intro
    assert (table.scale.factor, table.scale.unit) == (1e3, "")
    (q1,) = [q for q in load_questions(res.questions, arts) if q.id == "u1"]
    assert q1.gold == ("1,200 thousand",)
    verdict = verify(parse_value(q1.gold[0], "figure"), text)
    assert verdict.confirmed and [s.text for s in verdict.spans] == ["1,200"]
    assert verify(parse_value("-15,000", "figure"), text).confirmed  # accounting parentheses


def test_tatqa_passage_without_an_introducing_paragraph_starts_with_its_table() -> None:
    table = [["", "2019"], ["Staff", "40"]]
    passage = tatqa_passage(table, ["Staff grew.", "", "Costs: none."])
    assert passage.split("\n\n") == [markdown_table(table), "Staff grew.", "Costs: none."]
    assert tatqa_passage([], ["Intro:", "More."]) == "Intro:\n\nMore."


@pytest.mark.parametrize(
    ("fmt", "content", "message"),
    [
        ("squad", '{"rows": []}', "expected a field 'data'"),
        ("squad", "{not json", "not valid JSON"),
        ("drop", '{"foo": 1}', "neither a 'passage' nor a 'context'"),
        ("drop", '{"passage": "x", "question": "", "answers": ["1"]}', "question"),
        ("tatqa", '{"data": []}', "expected a list of documents"),
    ],
)
def test_foreign_files_are_refused_with_what_was_expected(
    tmp_path: Path, fmt: str, content: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as e:
        import_dataset(fmt, path, tmp_path / "out")
    assert message in str(e.value) and "bad.json" in str(e.value) and "Fix:" in str(e.value)
    assert not (tmp_path / "out").exists()  # nothing written


def test_existing_import_is_not_mixed(tmp_path: Path) -> None:
    src = squad_file(tmp_path)
    import_dataset("squad", src, tmp_path / "out")
    with pytest.raises(InputError, match="already holds an import"):
        import_dataset("squad", src, tmp_path / "out", sample=1)
    res = import_dataset("squad", src, tmp_path / "out", sample=1, overwrite=True)
    assert len(load_questions(res.questions)) == 1 and len(list(res.articles.glob("*.md"))) == 1


def test_stratified_sample_spreads_over_groups_and_is_seeded() -> None:
    rows = [
        Imported(f"q{g}{i}", f"p{g}", "t", "x", "q", ("1",), f"g{g}")
        for g in range(5)
        for i in range(10)
    ]
    pick = stratified_sample(rows, 10, seed=3)
    assert sorted(r.group for r in pick) == sorted([f"g{g}" for g in range(5)] * 2)
    assert pick == stratified_sample(rows, 10, seed=3)
    assert pick != stratified_sample(rows, 10, seed=4)


def test_cli_import(tmp_path: Path) -> None:
    res = CliRunner().invoke(
        cli.app, ["import", "squad", str(squad_file(tmp_path)), "--out", str(tmp_path / "o")]
    )
    assert res.exit_code == 0, res.output
    assert "kept 3 figure/date questions" in res.output and "factqa run --articles" in res.output
    bad = CliRunner().invoke(
        cli.app, ["import", "drop", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "o")]
    )
    assert bad.exit_code == 2 and "data file not found" in bad.output


DROP_PASSAGE = (
    "The Otters scored 17 points in the first half and 10 in the second half. The game was "
    "played on 12 October 2008."
)
DROP_QUESTIONS = [
    ("q-total", "How many points did the Otters score in total?", {"number": "27"}, ["27"]),
    ("q-first", "How many points did the Otters score in the first half?", {"number": "17"}, []),
    (
        "q-date",
        "When was the game played?",
        {"date": {"day": "12", "month": "October", "year": "2008"}},
        [],
    ),
    ("q-team", "Which team scored?", {"spans": ["Otters"]}, []),
    ("q-two", "Which halves were played?", {"spans": ["first", "second"]}, []),
]


def _typed(answer: dict) -> dict:
    return {"number": "", "date": {"day": "", "month": "", "year": ""}, "spans": []} | answer


def _drop_official(tmp_path: Path) -> Path:
    pairs = []
    for qid, question, answer, _ in DROP_QUESTIONS:
        pair = {"question": question, "query_id": qid, "answer": _typed(answer)}
        if qid == "q-first":  # a second annotator's answer becomes another gold variant
            pair["validated_answers"] = [_typed({"number": "17.0"})]
        pairs.append(pair)
    path = tmp_path / "drop_dataset_dev.json.gz"
    data = {"nfl_1": {"passage": DROP_PASSAGE, "qa_pairs": pairs, "wiki_url": "x"}}
    path.write_bytes(gzip.compress(json.dumps(data).encode()))
    return path


def test_drop_official_layout_keeps_what_the_json_lines_form_keeps(tmp_path: Path) -> None:
    res = import_dataset("drop", _drop_official(tmp_path), tmp_path / "official")
    official = {q.id: q for q in load_questions(res.questions, load_articles(res.articles))}
    assert set(official) == {"q-total", "q-first", "q-date"}  # spans that are no figure: out
    assert official["q-date"].kind == "date" and official["q-date"].gold == ("12 October 2008",)
    assert official["q-first"].gold == ("17", "17.0")  # validated answers are variants
    assert official["q-total"].computed and not official["q-first"].computed  # 27 is a sum
    assert official["q-total"].cluster == "nfl_1"
    assert res.stats.skipped.get("several spans") == 1

    rows = [
        {"id": qid, "passage_id": "nfl_1", "passage": DROP_PASSAGE, "question": question,
         "answers": [v for v in (_typed(a)["number"],) if v] or _typed(a)["spans"] or
         ["12 October 2008"]}
        for qid, question, a, _ in DROP_QUESTIONS
    ]  # fmt: skip
    lines = tmp_path / "drop.jsonl"
    lines.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    res = import_dataset("drop", lines, tmp_path / "lines")
    jsonl = {q.id: q for q in load_questions(res.questions, load_articles(res.articles))}
    assert set(jsonl) == set(official)
    assert {q: (jsonl[q].kind, jsonl[q].computed) for q in jsonl} == {
        q: (official[q].kind, official[q].computed) for q in official
    }


def test_drop_official_layout_with_a_broken_record_names_it(tmp_path: Path) -> None:
    path = tmp_path / "drop.json"
    path.write_text(json.dumps({"nfl_9": {"passage": "Text."}}), encoding="utf-8")
    with pytest.raises(InputError, match=r"passage 'nfl_9'.*qa_pairs") as e:
        import_dataset("drop", path, tmp_path / "out")
    assert "drop.json" in str(e.value) and "Fix:" in str(e.value)


def test_tatqa_kind_comes_from_the_answer_and_the_scale_is_applied_once(tmp_path: Path) -> None:
    questions = [
        # no "how many" or "what percentage" in the wording: kept for its typed gold
        ("u1", "What was the revenue in 2019?", ["1,200"], "span", "table", "thousand"),
        ("u2", "What was the change in revenue?", 150, "arithmetic", "table", "thousand"),
        ("u3", "What was the net income?", ["$15.5 million"], "span", "text", "million"),
        ("u4", "What share of revenue was cloud?", 14.3, "span", "text", "percent"),
        ("u5", "Which years are shown?", ["2019", "2018"], "multi-span", "table", ""),
        ("u6", "How many segments are there?", 3, "count", "text", ""),
        ("u7", "Who audited the accounts?", ["Moss & Co"], "span", "text", ""),
        ("u8", "When was the plant opened?", ["March 2017"], "span", "text", ""),
    ]
    doc = [
        {
            "table": {"uid": "t-1", "table": [["", "2019", "2018"], ["Revenue", "1,200", "1,050"]]},
            "paragraphs": [
                {"uid": "p1", "order": 1, "text": "Net income was $15.5 million; cloud 14.3%."},
                {"uid": "p2", "order": 2, "text": "The plant opened in March 2017."},
            ],
            "questions": [
                {
                    "uid": u,
                    "question": q,
                    "answer": a,
                    "answer_type": t,
                    "answer_from": f,
                    "scale": s,
                    "derivation": "1,200 - 1,050" if t == "arithmetic" else "",
                }
                for u, q, a, t, f, s in questions
            ],
        }
    ]
    path = tmp_path / "tatqa_dataset_dev.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    res = import_dataset("tatqa", path, tmp_path / "out")
    qs = {q.id: q for q in load_questions(res.questions, load_articles(res.articles))}
    assert set(qs) == {"u1", "u2", "u3", "u4", "u6", "u8"}
    assert qs["u1"].gold == ("1,200 thousand",) and qs["u1"].kind == "figure"
    assert qs["u3"].gold == ("$15.5 million",)  # the scale word once, not "million million"
    assert qs["u4"].gold == ("14.3%",)
    assert qs["u2"].computed and qs["u6"].computed and not qs["u1"].computed
    assert qs["u8"].kind == "date"
    assert "arithmetic from table" in qs["u2"].notes
    assert res.stats.skipped == {
        "multi-span answer": 1,
        "span answer is not a figure or a date": 1,
    }


def test_cli_import_counts_what_was_left_out_and_why(tmp_path: Path) -> None:
    res = CliRunner().invoke(
        cli.app,
        ["import", "drop", str(_drop_official(tmp_path)), "--out", str(tmp_path / "o")],
    )
    assert res.exit_code == 0, res.output
    out = " ".join(res.output.split())
    assert "kept 3 figure/date questions" in out and "1 several spans" in out
    assert "1 kept answers are computed, not stated" in out
    half = CliRunner().invoke(
        cli.app,
        ["import", "squad", str(squad_file(tmp_path)), "--out", str(tmp_path / "h"), "--half", "x"],
    )
    assert half.exit_code == 2 and "--half must be 'fit' or 'eval'" in half.output


# Malformed input (issue 25): refused as a file, or skipped and counted by reason, never data.


def _import(folder: Path, layout: str, data: Any = None) -> tuple[ImportStats, dict]:
    """Import layout `layout` (its valid data, or `data`) in `folder`; the stats and the
    questions by id, as `factqa run` loads them."""
    folder.mkdir(exist_ok=True)
    fmt = LAYOUTS[layout][0]
    res = import_dataset(fmt, write_layout_file(folder, layout, data), folder / "out")
    questions = load_questions(res.questions, load_articles(res.articles))  # the run loads it
    return res.stats, {q.id: q for q in questions}


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    ("fmt", "content"),
    [
        ("squad", '{"data": ' + DEEP + "}"),
        ("tatqa", DEEP),
        ("drop", '{"nfl_1": {"passage": "x", "qa_pairs": ' + DEEP + "}}"),
        ("drop", '{"passage": "x", "question": "How many?", "answers": ' + DEEP + "}"),
        ("squad", '{"data": [' + "9" * 5000 + "]}"),
    ],
    ids=["squad", "tatqa", "drop-official", "drop-lines", "squad-long-number"],
)
def test_json_nested_too_deep_or_too_long_is_refused_not_a_traceback(
    tmp_path: Path, fmt: str, content: str
) -> None:
    path = tmp_path / "deep.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as e:
        import_dataset(fmt, path, tmp_path / "out")
    message = str(e.value)
    assert "deep.json" in message and "Fix:" in message
    assert "nested too deep" in message or "number too long" in message
    assert not (tmp_path / "out").exists()


def _tatqa_with(question: dict | None = None, doc: dict | None = None) -> list[dict]:
    """The TAT-QA fixture with its first question's (or first document's) fields replaced."""
    data = tatqa()
    data[0] |= doc or {}
    data[0]["questions"][0] |= question or {}
    return data


def _table_with(**fields: Any) -> dict:
    return {"table": {"uid": "t-1", "table": [["Revenue", "1,200"]]} | fields}


@pytest.mark.parametrize(
    ("data", "reason", "gone"),
    [
        (
            _tatqa_with({"answer": {"x": 1}}),
            "malformed TAT-QA question (answer: an object, expected text, a number or a list of "
            "text)",
            {"u1"},
        ),
        (
            _tatqa_with({"scale": "percentage"}),
            "malformed TAT-QA question (scale: 'percentage' is not one of '', 'thousand', "
            "'million', 'billion', 'percent')",
            {"u1"},
        ),
        (
            _tatqa_with({"answer": True}),
            "malformed TAT-QA question (answer: true/false, expected text, a number or a list of "
            "text)",
            {"u1"},
        ),
        (
            _tatqa_with({"answer": float("nan")}),
            "malformed TAT-QA question (answer: not a finite number)",
            {"u1"},
        ),
        (
            _tatqa_with(doc=_table_with(table="Revenue | 1,200")),
            "malformed TAT-QA table (table: text, expected a list)",
            {"u1", "u2"},
        ),
        (
            _tatqa_with(doc={"paragraphs": [{"uid": "p1", "order": 1, "text": None}]}),
            "malformed TAT-QA paragraph (text: null, expected text)",
            {"u1", "u2"},
        ),
    ],
    ids=["answer-object", "unknown-scale", "answer-bool", "answer-nan", "table-text", "null-text"],
)
def test_tatqa_malformed_records_are_skipped_and_counted(
    tmp_path: Path, data: list, reason: str, gone: set[str]
) -> None:
    stats, qs = _import(tmp_path, "tatqa", data)
    assert set(qs) == {"u1", "u2", "u3", "u4"} - gone
    assert stats.skipped[reason] == 1
    written = "".join(p.read_text() for p in (tmp_path / "out").rglob("*.*"))
    assert "None" not in written and "{'x'" not in written


@pytest.mark.parametrize(
    ("answer", "scale", "gold"),
    [
        ("$19.1 million", "thousand", "$19.1 million"),  # the answer's own scale word wins
        ("1,200", "thousand", "1,200 thousand"),
        ("2.5 billion", "million", "2.5 billion"),
        ("15%", "thousand", "15%"),
        ("14.3", "percent", "14.3%"),
        ("12 percent", "percent", "12 percent"),
        ("3.0 millions", "million", "3.0 millions"),
        ("1,200", "", "1,200"),
    ],
)
def test_tatqa_scale_is_applied_only_where_the_answer_has_none(
    answer: str, scale: str, gold: str
) -> None:
    assert tatqa_scaled(answer, scale) == gold


def test_tatqa_import_keeps_the_answers_own_scale_word(tmp_path: Path) -> None:
    _, qs = _import(tmp_path, "tatqa")
    assert qs["u3"].gold == ("$19.1 million",) and qs["u1"].gold == ("1,200 thousand",)
    assert qs["u4"].gold == ("14.3%",)


def test_squad_duplicate_id_is_skipped_and_the_first_one_kept(tmp_path: Path) -> None:
    data = squad()
    first, second = data["data"][0]["paragraphs"][0]["qas"]
    second["id"] = first["id"]  # a date question, then a figure question with the same id
    stats, qs = _import(tmp_path, "squad", data)
    assert set(qs) == {"qa1", "qb1", "qb2"}
    assert qs["qa1"].kind == "date" and qs["qa1"].gold == ("4 May 1931",)
    assert stats.skipped == {"duplicate question id (the first is kept)": 1}
    res = CliRunner().invoke(
        cli.app,
        ["import", "squad", str(tmp_path / "dev-v2.0.json"), "--out", str(tmp_path / "cli")],
    )
    assert res.exit_code == 0 and "1 duplicate question id" in " ".join(res.output.split())


def _set(data: Any, path: tuple, value: Any) -> Any:
    node = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return data


@pytest.mark.parametrize(
    ("layout", "path", "value", "reason", "gone"),
    [
        (
            "squad",
            ("data", 0, "paragraphs", 0, "context"),
            None,
            "malformed SQuAD paragraph (context: null, expected text)",
            {"qa1", "qa2"},
        ),
        (
            "squad",
            ("data", 0, "paragraphs", 0, "qas", 1, "answers", 0, "answer_start"),
            "70",
            "malformed SQuAD answer (answer_start: text, expected a whole number)",
            {"qa2"},
        ),
        (
            "squad",
            ("data", 0, "paragraphs", 0, "qas", 1, "answers"),
            [],
            "malformed SQuAD question (answers: none for an answerable question)",
            {"qa2"},
        ),
        (
            "squad",
            ("data", 1, "title"),
            7,
            "malformed SQuAD article (title: a number, expected text)",
            {"qb1", "qb2"},
        ),
        (
            "drop-official",
            ("hist_2", "qa_pairs", 0, "answer", "date"),
            "4 May 1931",
            "malformed DROP answer (date: text, expected an object)",
            {"q2"},
        ),
        (
            "drop-split",
            (1, "answers"),
            [None],
            "malformed DROP line (answers: an item: null, expected text)",
            {"d-2"},
        ),
        (
            "drop-split",
            (1, "passage"),
            None,
            "malformed DROP line (passage: null, expected text)",
            {"d-2"},
        ),
        (
            "drop-evals",
            (1, "context"),
            "How many months?",
            "malformed DROP line (context: not 'Passage: ...\\nQuestion: ...')",
            {"drop-dev-00001"},
        ),
    ],
    ids=[
        "squad-null-context",
        "squad-answer-start-text",
        "squad-no-answers",
        "squad-title-number",
        "drop-date-text",
        "drop-null-answer",
        "drop-null-passage",
        "drop-evals-context",
    ],
)
def test_one_malformed_record_is_skipped_and_counted_not_the_file(
    tmp_path: Path, layout: str, path: tuple, value: Any, reason: str, gone: set[str]
) -> None:
    valid_stats, valid = _import(tmp_path / "valid", layout)
    stats, qs = _import(tmp_path / "bad", layout, _set(LAYOUTS[layout][2](), path, value))
    assert gone <= set(valid) and set(qs) == set(valid) - gone
    assert stats.skipped == valid_stats.skipped | {reason: 1}


def test_a_file_without_one_well_formed_record_is_refused_naming_the_first(tmp_path: Path) -> None:
    data = squad()
    for article in data["data"]:
        article["paragraphs"][0]["context"] = None
    with pytest.raises(InputError) as e:
        import_dataset("squad", write_layout_file(tmp_path, "squad", data), tmp_path / "out")
    message = str(e.value)
    assert "skipped 2 records" in message and "Fix:" in message
    assert "data[0].paragraphs[0]: malformed SQuAD paragraph (context: null, expected text)" in (
        message
    )
    assert not (tmp_path / "out").exists()


def test_a_passage_id_naming_another_passage_is_skipped_not_misattached(tmp_path: Path) -> None:
    data = squad()
    data["data"][0]["title"] = data["data"][1]["title"]  # two articles titled "Velden"
    stats, qs = _import(tmp_path, "squad", data)
    assert set(qs) == {"qa1", "qa2"}  # the second article's questions would read the first's text
    assert stats.skipped == {"passage id of another passage (the first is kept)": 2}


@pytest.mark.parametrize("mark", ["\r", "\u2028", "\x85", "\x0b"])
def test_a_line_break_in_a_question_is_written_as_a_space(tmp_path: Path, mark: str) -> None:
    data = squad()
    data["data"][0]["paragraphs"][0]["qas"][1]["question"] = f"How long{mark}is the bridge?"
    _, qs = _import(tmp_path, "squad", data)  # the run reads the questions file back whole
    assert qs["qa2"].text == "How long is the bridge?"


def test_tatqa_split_by_table_uid_gives_disjoint_halves_that_cover_every_context(
    tmp_path: Path,
) -> None:
    uids = ["t-1", "t-2", "t-3", "t-4", "t-5", "t-6"]
    docs = [
        {
            "table": {"uid": uid, "table": [["", "2019"], ["Revenue", f"{i + 1},200"]]},
            "paragraphs": [{"uid": f"p{i}", "order": 1, "text": "Revenue rose."}],
            "questions": [
                {
                    "uid": f"q-{uid}",
                    "question": "What was the revenue in 2019?",
                    "answer": [f"{i + 1},200"],
                    "derivation": "",
                    "answer_type": "span",
                    "answer_from": "table",
                    "scale": "thousand",
                }
            ],
        }
        for i, uid in enumerate(uids)
    ]
    path = tmp_path / "tatqa.json"
    path.write_text(json.dumps(docs), encoding="utf-8")
    halves = {}
    for half in ("fit", "eval"):
        out = tmp_path / half
        res = CliRunner().invoke(
            cli.app, ["import", "tatqa", str(path), "--out", str(out), "--half", half]
        )
        assert res.exit_code == 0, res.output
        arts = load_articles(out / "articles")
        qs = load_questions(out / "questions" / "tatqa.csv", arts)
        assert {q.article_id for q in qs} == set(arts)
        assert f"{6 - len(arts)} of the other half" in res.output
        halves[half] = set(arts)
    assert halves == {"fit": {"t-1", "t-3", "t-5", "t-6"}, "eval": {"t-2", "t-4"}}
    assert halves["fit"].isdisjoint(halves["eval"]) and halves["fit"] | halves["eval"] == set(uids)
