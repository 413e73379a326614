"""Loading the corpus: good input loads, bad input is refused naming file, line, field and fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from experiment.base.errors import InputError
from experiment.config import PROJECT_ROOT
from experiment.corpus import load_articles, load_questions, parse_article

from .conftest import ARTICLE_A


def test_loads_fixture(corpus: tuple[Path, Path]) -> None:
    arts, qs = corpus
    articles = load_articles(arts)
    questions = load_questions(qs, articles)
    assert sorted(articles) == ["alpha", "beta"]
    assert articles["alpha"].published == "2024-03-01"
    assert [q.id for q in questions] == ["alpha-1", "alpha-2", "alpha-3", "beta-1", "beta-2"]
    assert questions[-1].unanswerable


def test_bundled_corpus_is_large_and_fair() -> None:
    articles = load_articles(PROJECT_ROOT / "articles")
    questions = load_questions(PROJECT_ROOT / "questions", articles)
    assert len(articles) >= 12
    assert len(questions) >= 120
    for a in articles.values():
        assert 300 <= len(a.text.split()) <= 900, a.id
    share = sum(q.unanswerable for q in questions) / len(questions)
    assert 0.08 <= share <= 0.12
    assert {q.kind for q in questions} == {"figure", "date"}


def _error(func, *args) -> InputError:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError) as info:
        func(*args)
    return info.value


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    p = tmp_path / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize(
    ("text", "line", "field", "needle"),
    [
        ("no front matter\n", 1, None, "has no front matter"),
        ("---\nid: x\ntitle: t\n", 1, None, "not closed"),
        (
            "---\nid: x\ntitle: [unclosed\npublished: 2024-01-01\n---\nbody\n",
            4,
            None,
            "not valid YAML",
        ),
        ("---\nid: x\ntitle: t\n---\nbody\n", 2, "published", "missing"),
        ("---\nid: x\ntitle: t\npublished: 2024-01-01\n---\n\n  \n", 6, None, "body is empty"),
        ("---\nid: ../x\ntitle: t\npublished: 2024-01-01\n---\nbody\n", 2, "id", "not a safe id"),
    ],
)
def test_bad_article(tmp_path: Path, text: str, line: int, field: str | None, needle: str) -> None:
    path = write(tmp_path, "bad.md", text)
    e = _error(parse_article, path)
    assert e.path == path and e.line == line and e.field == field
    assert needle in str(e) and "bad.md" in str(e) and e.fix


def test_article_not_utf8(tmp_path: Path) -> None:
    path = write(tmp_path, "latin.md", b"---\nid: x\n" + b"title: caf\xe9\n")
    e = _error(parse_article, path)
    assert e.line == 3 and "UTF-8" in str(e)


def test_duplicate_article_id(tmp_path: Path) -> None:
    write(tmp_path, "a.md", ARTICLE_A)
    write(tmp_path, "b.md", ARTICLE_A)
    e = _error(load_articles, tmp_path)
    assert e.field == "id" and "duplicate" in str(e)


HEADER = "id,article_id,question,answers,kind,notes\n"


@pytest.mark.parametrize(
    ("rows", "line", "field", "needle"),
    [
        ("q1,nowhere,How many?,5,figure,\n", 2, "article_id", "article 'nowhere' not found"),
        ("q1,alpha,How many?, | ,figure,\n", 2, "answers", "gold answer is empty"),
        ("q1,alpha,Tell me the figure.,,,\n", 2, "kind", "wording does not say"),
        ("q1,alpha,How many?,lots,figure,\n", 2, "answers", "cannot be read as a figure"),
        ("q1,alpha,How many?,5,colour,\n", 2, "kind", "unknown"),
        ("q1,alpha,,5,figure,\n", 2, "question", "empty"),
        ("q1,alpha,How many?,5,figure,\nq1,alpha,Again?,6,figure,\n", 3, "id", "duplicate"),
        ('q1,alpha,"How many?,5,figure,\n', 2, None, "malformed CSV"),
        ("q1,alpha,How many?,5\n", 2, None, "has 4 cells"),
    ],
)
def test_bad_question_rows(
    corpus: tuple[Path, Path], tmp_path: Path, rows: str, line: int, field: str | None, needle: str
) -> None:
    articles = load_articles(corpus[0])
    path = write(tmp_path, "q.csv", HEADER + rows)
    e = _error(load_questions, path, articles)
    assert (e.line, e.field) == (line, field)
    assert needle in str(e) and "q.csv" in str(e) and e.fix


def test_missing_column(tmp_path: Path) -> None:
    path = write(tmp_path, "q.csv", "id,article_id,kind\nq1,a,figure\n")
    e = _error(load_questions, path)
    assert (e.line, e.field) == (1, "question") and "missing column" in str(e)


def test_questions_without_gold_or_kind_load_with_the_kind_from_the_wording(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path,
        "q.csv",
        "id,article_id,question\nq1,a,How many stores are there?\nq2,a,When did it open?\n",
    )
    q1, q2 = load_questions(path)
    assert (q1.gold, q1.kind) == ((), "figure") and (q2.gold, q2.kind) == ((), "date")
    mixed = write(
        tmp_path,
        "m.csv",
        "id,article_id,question,answers,kind\nq1,a,How many?,5,figure\nq2,a,How many?,,\n",
    )
    with_gold, without = load_questions(mixed)
    assert with_gold.gold == ("5",) and without.gold == () and without.kind == "figure"


def test_unknown_column(tmp_path: Path) -> None:
    path = write(tmp_path, "q.csv", HEADER.strip() + ",colour\n")
    e = _error(load_questions, path)
    assert e.field == "colour"


def test_empty_questions_file(tmp_path: Path) -> None:
    assert "empty" in str(_error(load_questions, write(tmp_path, "q.csv", "")))


def test_plain_text_articles_load_beside_markdown(tmp_path: Path) -> None:
    (tmp_path / "alpha.md").write_text(ARTICLE_A, encoding="utf-8")
    (tmp_path / "q3-notes.txt").write_text("\ufeffRevenue rose 12% to €4.1 billion.\n", "utf-8")
    articles = load_articles(tmp_path)
    assert sorted(articles) == ["alpha", "q3-notes"]
    plain = articles["q3-notes"]
    assert plain.text == "Revenue rose 12% to €4.1 billion." and plain.title == "q3-notes"
    assert plain.published == ""


@pytest.mark.parametrize(
    ("name", "text", "needle"),
    [
        ("bad name!.txt", "Some text.", "not a safe id"),
        ("empty.txt", "  \n", "article is empty"),
    ],
)
def test_bad_plain_text_article(tmp_path: Path, name: str, text: str, needle: str) -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=needle) as e:
        load_articles(tmp_path)
    assert name in str(e.value)


def test_a_text_and_a_markdown_article_with_one_id_are_refused(tmp_path: Path) -> None:
    (tmp_path / "alpha.md").write_text(ARTICLE_A, encoding="utf-8")
    (tmp_path / "alpha.txt").write_text("Other text.", encoding="utf-8")
    with pytest.raises(InputError, match="duplicate article id 'alpha'"):
        load_articles(tmp_path)


@pytest.mark.parametrize(
    ("published", "needle"),
    [
        ("2025-13-45", "'2025-13-45' is not a real date"),
        ("2025-02-30", "'2025-02-30' is not a real date"),
        ("2024-01-01 25:00:00", "is not a real date"),
    ],
)
def test_an_impossible_publication_date_names_its_line_and_field(
    tmp_path: Path, published: str, needle: str
) -> None:
    path = write(tmp_path, "bad.md", f"---\nid: x\ntitle: t\npublished: {published}\n---\nbody\n")
    e = _error(parse_article, path)
    assert (e.path, e.line, e.field) == (path, 4, "published")
    assert needle in str(e) and "YYYY-MM-DD" in str(e)
    # the same impossible date in a field the loader does not read as a date is only text
    ok = write(tmp_path, "ok.md", "---\nid: x\ntitle: 2025-02-30\npublished: 2024-02-29\n---\nb\n")
    assert (parse_article(ok).title, parse_article(ok).published) == ("2025-02-30", "2024-02-29")


@pytest.mark.parametrize(
    ("front", "field", "line"),
    [
        ("id: x\ntitle: [1, 2]\npublished: 2024-01-01\n", "title", 3),
        ("id: x\ntitle: t\npublished: {year: 2024}\n", "published", 4),
        ("title: t\nid: [x]\npublished: 2024-01-01\n", "id", 3),
    ],
)
def test_a_front_matter_field_that_is_not_one_value_is_refused(
    tmp_path: Path, front: str, field: str, line: int
) -> None:
    e = _error(parse_article, write(tmp_path, "a.md", f"---\n{front}---\nbody\n"))
    assert (e.field, e.line) == (field, line) and "must be one value" in str(e)


def test_deeply_nested_front_matter_is_refused_not_a_recursion_error(tmp_path: Path) -> None:
    deep = "---\nid: x\ntitle: " + "[" * 5000 + "\npublished: 2024-01-01\n---\nbody\n"
    e = _error(parse_article, write(tmp_path, "deep.md", deep))
    assert "nested too deeply" in str(e) and e.line == 2


def test_a_binary_file_with_a_nul_byte_is_not_read_as_text(tmp_path: Path) -> None:
    from experiment.corpus import read_given_article

    path = write(tmp_path, "blob.md", b"12 units\nsold\x00\x01\x02 and more")
    e = _error(read_given_article, path)
    assert e.line == 2 and "NUL byte" in str(e) and "binary" in str(e)
